/*
 * pmsampling.cpp - CUPTI PM sampling (pmsampling.h says what and how). C++
 * only because CUDA 13's cupti_profiler_host.h includes <string>; C in
 * style like counters.cpp: no exceptions, no allocation that can throw.
 *
 * Per device, once: chip name, a PM-sampling host object with the metrics
 * of src/gpu/pm_metrics.h the chip knows (all in one pass, else off), PM
 * sampling enabled with a hardware buffer, a counter data image of
 * MAX_SAMPLES windows, started. Every GS_PM_DECODE_MS the thread decodes
 * the hardware buffer into the image, evaluates the windows completed since
 * the last decode (pm_plan_next) and re-initialises a full image.
 */
#include "inject/pmsampling.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cupti.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include "gpu/pm_metrics.h"

#define MAX_SAMPLES 4096 /* windows one image holds: 4 s at 1 ms */
/* raw records between decodes (CUPTI allocates it, possibly out of the
 * program's GPU memory, so it stays small): 50 ms of 1 ms windows need far
 * less; an overflow is counted and reported */
#define HW_BUFFER_BYTES (16u << 20)

namespace
{

const char *const ncu_names[] = {
#define GS_PM_NCU(id, trace, ncu, unit, what, gpm) ncu,
    GS_PM_METRICS(GS_PM_NCU)
#undef GS_PM_NCU
};

struct dev_state {
	CUpti_Profiler_Host_Object *host;
	CUpti_PmSampling_Object *pm;
	uint8_t *config, *data;
	size_t config_size, data_size, emitted;
	const char *metrics[PM_COUNT];
	int trace_of[PM_COUNT];
	size_t n_metrics;
	int started, stopped_bad;
};

struct state {
	pthread_mutex_t lock;
	pthread_cond_t wake, finished;
	pthread_t th;
	int running, stop, done;
	struct gs_pm_opts o;
	char status[256];
	uint64_t samples, overflows;
	uint32_t n_devs;
	struct dev_state devs[GS_PM_MAX_DEVICES];
};

struct state g = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER};

void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void say(const char *fmt, ...)
{
	if (!g.o.log)
		return;
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	g.o.log(msg);
}

const char *err_str(CUptiResult r)
{
	const char *s = NULL;
	if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s)
		return "unknown CUPTI error";
	return s;
}

/* Records why PM sampling stopped (the first reason stands); -1. */
int off(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int off(const char *fmt, ...)
{
	pthread_mutex_lock(&g.lock);
	if (!g.status[0]) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(g.status, sizeof(g.status), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&g.lock);
	say("pm sampling off: %s", g.status);
	return -1;
}

#define TRY(call, what)                                                                            \
	do {                                                                                       \
		CUptiResult r_ = (call);                                                           \
		say("pm sampling: device %u: %s: %s", dev, what, err_str(r_));                     \
		if (r_ != CUPTI_SUCCESS)                                                           \
			return off("PM sampling: %s failed on device %u: %s", what, dev,           \
				   err_str(r_));                                                   \
	} while (0)

/* Sleeps ms unless asked to stop; 1 when asked. */
int nap(long ms)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += (ms % 1000) * 1000000L;
	ts.tv_sec += ms / 1000 + ts.tv_nsec / 1000000000L;
	ts.tv_nsec %= 1000000000L;
	pthread_mutex_lock(&g.lock);
	while (!g.stop && pthread_cond_timedwait(&g.wake, &g.lock, &ts) != ETIMEDOUT) {
	}
	int stop = g.stop;
	pthread_mutex_unlock(&g.lock);
	return stop;
}

typedef int (*cu_count_fn)(int *);
typedef int (*cu_get_fn)(int *, int);
typedef int (*cu_state_fn)(int, unsigned *, int *);

/* Waits until some device's primary context is active (the program's CUDA
 * initialisation is done), at most GS_PM_WAIT_S; the number of devices,
 * 0 when asked to stop first or the driver cannot tell. */
int wait_for_context(void)
{
	cu_count_fn count = (cu_count_fn)dlsym(RTLD_DEFAULT, "cuDeviceGetCount");
	cu_get_fn get = (cu_get_fn)dlsym(RTLD_DEFAULT, "cuDeviceGet");
	cu_state_fn st = (cu_state_fn)dlsym(RTLD_DEFAULT, "cuDevicePrimaryCtxGetState");
	for (long waited = 0;; waited += 10) {
		int n = 0;
		if (count && count(&n) == 0 && n > 0) {
			for (int i = 0; get && st && i < n; i++) {
				int d = 0, active = 0;
				unsigned flags = 0;
				if (get(&d, i) == 0 && st(d, &flags, &active) == 0 && active)
					return n;
			}
			if (waited >= GS_PM_WAIT_S * 1000L || !get || !st)
				return n;
		} else if (waited >= GS_PM_WAIT_S * 1000L) {
			off("PM sampling: no CUDA device%s",
			    count ? "" : " (no driver in the process)");
			return 0;
		}
		if (nap(10))
			return 0;
	}
}

uint8_t *zalloc(size_t n)
{
	return (uint8_t *)calloc(1, n ? n : 1);
}

CUptiResult init_image(struct dev_state *d)
{
	CUpti_PmSampling_CounterDataImage_Initialize_Params ip = {
	    CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE};
	ip.pPmSamplingObject = d->pm;
	ip.counterDataSize = d->data_size;
	ip.pCounterData = d->data;
	d->emitted = 0;
	return cuptiPmSamplingCounterDataImageInitialize(&ip);
}

/* Sets device dev up and starts it; 0 or -1 (off). */
int setup(uint32_t dev)
{
	struct dev_state *d = &g.devs[dev];
	CUpti_Device_GetChipName_Params cn = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
	cn.deviceIndex = dev;
	TRY(cuptiDeviceGetChipName(&cn), "chip name");
	CUpti_Profiler_Host_Initialize_Params hi = {
	    CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
	hi.profilerType = CUPTI_PROFILER_TYPE_PM_SAMPLING;
	hi.pChipName = cn.pChipName;
	/* no counter availability image: with one, the host API crashed in
	 * libnvperf_host on the H200 (counters.cpp); CUPTI needs it only for
	 * chips newer than itself */
	TRY(cuptiProfilerHostInitialize(&hi), "profiler host");
	d->host = hi.pHostObject;
	for (int i = 0; i < PM_COUNT; i++) {
		CUpti_Profiler_Host_GetMetricProperties_Params mp = {
		    CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE};
		mp.pHostObject = d->host;
		mp.pMetricName = ncu_names[i];
		if (cuptiProfilerHostGetMetricProperties(&mp) == CUPTI_SUCCESS) {
			d->trace_of[d->n_metrics] = i;
			d->metrics[d->n_metrics++] = ncu_names[i];
		}
	}
	if (!d->n_metrics)
		return off("PM sampling: the chip (%s) knows none of the metrics", cn.pChipName);
	CUpti_Profiler_Host_ConfigAddMetrics_Params am = {
	    CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
	am.pHostObject = d->host;
	am.ppMetricNames = d->metrics;
	am.numMetrics = d->n_metrics;
	TRY(cuptiProfilerHostConfigAddMetrics(&am), "adding the metrics");
	CUpti_Profiler_Host_GetConfigImageSize_Params cs = {
	    CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
	cs.pHostObject = d->host;
	TRY(cuptiProfilerHostGetConfigImageSize(&cs), "config image size");
	d->config_size = cs.configImageSize;
	if (!(d->config = zalloc(d->config_size)))
		return off("PM sampling: out of memory");
	CUpti_Profiler_Host_GetConfigImage_Params ci = {
	    CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
	ci.pHostObject = d->host;
	ci.configImageSize = d->config_size;
	ci.pConfigImage = d->config;
	TRY(cuptiProfilerHostGetConfigImage(&ci), "config image");
	CUpti_Profiler_Host_GetNumOfPasses_Params np = {
	    CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
	np.configImageSize = d->config_size;
	np.pConfigImage = d->config;
	TRY(cuptiProfilerHostGetNumOfPasses(&np), "pass count");
	if (np.numOfPasses != 1)
		return off("PM sampling: the metrics need %zu passes on %s (one is all it can do)",
			   np.numOfPasses, cn.pChipName);
	CUpti_PmSampling_Enable_Params en = {CUpti_PmSampling_Enable_Params_STRUCT_SIZE};
	en.deviceIndex = dev;
	TRY(cuptiPmSamplingEnable(&en), "enabling PM sampling");
	d->pm = en.pPmSamplingObject;
	CUpti_PmSampling_SetConfig_Params sc = {CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE};
	sc.pPmSamplingObject = d->pm;
	sc.configSize = d->config_size;
	sc.pConfig = d->config;
	sc.hardwareBufferSize = HW_BUFFER_BYTES;
	sc.samplingInterval = g.o.interval_ns;
	sc.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
	sc.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
	TRY(cuptiPmSamplingSetConfig(&sc), "configuring PM sampling");
	CUpti_PmSampling_GetCounterDataSize_Params ds = {
	    CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE};
	ds.pPmSamplingObject = d->pm;
	ds.pMetricNames = d->metrics;
	ds.numMetrics = d->n_metrics;
	ds.maxSamples = MAX_SAMPLES;
	TRY(cuptiPmSamplingGetCounterDataSize(&ds), "counter data size");
	d->data_size = ds.counterDataSize;
	if (!(d->data = zalloc(d->data_size)))
		return off("PM sampling: out of memory");
	TRY(init_image(d), "counter data image");
	CUpti_PmSampling_Start_Params sp = {CUpti_PmSampling_Start_Params_STRUCT_SIZE};
	sp.pPmSamplingObject = d->pm;
	TRY(cuptiPmSamplingStart(&sp), "starting PM sampling");
	d->started = 1;
	say("pm sampling: device %u (%s): %zu of %d metrics every %llu ns", dev, cn.pChipName,
	    d->n_metrics, (int)PM_COUNT, (unsigned long long)g.o.interval_ns);
	return 0;
}

/* Evaluates windows [from, to) of d's image. */
void emit_windows(uint32_t dev, struct dev_state *d, size_t from, size_t to)
{
	double v[PM_COUNT];
	for (size_t i = from; i < to; i++) {
		CUpti_PmSampling_CounterData_GetSampleInfo_Params si = {
		    CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE};
		si.pPmSamplingObject = d->pm;
		si.pCounterDataImage = d->data;
		si.counterDataImageSize = d->data_size;
		si.sampleIndex = i;
		if (cuptiPmSamplingCounterDataGetSampleInfo(&si) != CUPTI_SUCCESS)
			continue;
		CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {
		    CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
		ev.pHostObject = d->host;
		ev.pCounterDataImage = d->data;
		ev.counterDataImageSize = d->data_size;
		ev.rangeIndex = i;
		ev.ppMetricNames = d->metrics;
		ev.numMetrics = d->n_metrics;
		ev.pMetricValues = v;
		if (cuptiProfilerHostEvaluateToGpuValues(&ev) != CUPTI_SUCCESS ||
		    si.endTimestamp <= si.startTimestamp)
			continue; /* the first window primes the counters: no value */
		int any = 0;
		for (size_t m = 0; m < d->n_metrics; m++)
			if (isfinite(v[m])) {
				g.o.emit(dev, si.endTimestamp, pm_trace_name(d->trace_of[m]), v[m]);
				any = 1;
			}
		g.samples += any;
	}
	g.o.emit(dev, 0, NULL, 0); /* write out the decode's windows */
}

/* Drains d's hardware buffer; 0 or -1 (off). */
int decode(uint32_t dev, struct dev_state *d)
{
	for (int round = 0; round < 64; round++) {
		CUpti_PmSampling_DecodeData_Params dd = {
		    CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE};
		dd.pPmSamplingObject = d->pm;
		dd.pCounterDataImage = d->data;
		dd.counterDataImageSize = d->data_size;
		CUptiResult r = cuptiPmSamplingDecodeData(&dd);
		if (r == CUPTI_ERROR_OUT_OF_MEMORY || dd.overflow)
			g.overflows++; /* records lost; the decoded ones stand */
		else if (r != CUPTI_SUCCESS)
			return off("PM sampling: decoding failed on device %u: %s", dev,
				   err_str(r));
		CUpti_PmSampling_GetCounterDataInfo_Params gi = {
		    CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE};
		gi.pCounterDataImage = d->data;
		gi.counterDataImageSize = d->data_size;
		TRY(cuptiPmSamplingGetCounterDataInfo(&gi), "counter data info");
		int full =
		    dd.decodeStopReason == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL;
		struct pm_plan p =
		    pm_plan_next(d->emitted, gi.numCompletedSamples, MAX_SAMPLES, full);
		emit_windows(dev, d, p.from, p.to);
		d->emitted = p.to;
		if (!p.reinit)
			return 0;
		TRY(init_image(d), "re-initialising the counter data image");
	}
	return 0;
}

void teardown(uint32_t dev, struct dev_state *d)
{
	if (d->started || d->stopped_bad) {
		if (d->started)
			(void)decode(dev, d);
		CUpti_PmSampling_Stop_Params sp = {CUpti_PmSampling_Stop_Params_STRUCT_SIZE};
		sp.pPmSamplingObject = d->pm;
		cuptiPmSamplingStop(&sp);
		if (d->started)
			(void)decode(dev, d); /* what the stop flushed */
	}
	if (d->pm) {
		CUpti_PmSampling_Disable_Params dp = {CUpti_PmSampling_Disable_Params_STRUCT_SIZE};
		dp.pPmSamplingObject = d->pm;
		cuptiPmSamplingDisable(&dp);
	}
	if (d->host) {
		CUpti_Profiler_Host_Deinitialize_Params hd = {
		    CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
		hd.pHostObject = d->host;
		cuptiProfilerHostDeinitialize(&hd);
	}
	free(d->config);
	free(d->data);
	memset(d, 0, sizeof(*d));
}

#undef TRY

void *run(void *)
{
	int n = wait_for_context();
	uint32_t dev = 0;
	CUpti_Profiler_Initialize_Params pi = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
	CUptiResult r = n > 0 ? cuptiProfilerInitialize(&pi) : CUPTI_SUCCESS;
	if (r != CUPTI_SUCCESS) {
		off("PM sampling: cuptiProfilerInitialize failed: %s", err_str(r));
		n = 0;
	}
	/* a device that cannot be sampled leaves the others sampled (the status
	 * names it) */
	for (; dev < (uint32_t)n && dev < GS_PM_MAX_DEVICES; dev++)
		g.n_devs += setup(dev) == 0;
	int live = (int)g.n_devs;
	while (live > 0 && !nap(GS_PM_DECODE_MS))
		for (uint32_t i = 0; i < GS_PM_MAX_DEVICES; i++)
			if (g.devs[i].started && decode(i, &g.devs[i]) < 0) {
				g.devs[i].started = 0; /* its teardown still stops it */
				g.devs[i].stopped_bad = 1;
				live--;
			}
	for (uint32_t i = 0; i < GS_PM_MAX_DEVICES; i++)
		teardown(i, &g.devs[i]);
	pthread_mutex_lock(&g.lock);
	g.done = 1;
	pthread_cond_broadcast(&g.finished);
	pthread_mutex_unlock(&g.lock);
	return NULL;
}

} // namespace

extern "C" int gs_pm_start(const struct gs_pm_opts *o, char *why, size_t why_len)
{
	if (!o->emit || o->interval_ns < 1000 || o->interval_ns > 10000000000ull) {
		snprintf(why, why_len, "PM sampling interval out of range (1 us .. 10 s)");
		return -1;
	}
	g.o = *o;
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old); /* the program's signals stay the program's */
	int e = pthread_create(&g.th, NULL, run, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e != 0) {
		snprintf(why, why_len, "PM sampling: no thread: %s", strerror(e));
		return -1;
	}
	g.running = 1;
	return 0;
}

extern "C" int gs_pm_stop(int wait)
{
	if (!g.running)
		return 1;
	if (!wait) {
		g.stop = 1; /* from a signal handler: no lock, no join */
		return 0;
	}
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += (GS_PM_STOP_MS % 1000) * 1000000L;
	ts.tv_sec += GS_PM_STOP_MS / 1000 + ts.tv_nsec / 1000000000L;
	ts.tv_nsec %= 1000000000L;
	pthread_mutex_lock(&g.lock);
	g.stop = 1;
	pthread_cond_broadcast(&g.wake);
	int timed_out = 0;
	while (!g.done && !timed_out)
		timed_out = pthread_cond_timedwait(&g.finished, &g.lock, &ts) == ETIMEDOUT;
	int done = g.done;
	pthread_mutex_unlock(&g.lock);
	g.running = 0;
	if (done)
		pthread_join(g.th, NULL);
	else
		off("PM sampling: the last decode did not finish within %d ms", GS_PM_STOP_MS);
	return done;
}

extern "C" const char *gs_pm_status(void)
{
	return g.status;
}

extern "C" void gs_pm_stats(uint64_t *samples, uint32_t *devices, uint64_t *overflows)
{
	*samples = g.samples;
	*devices = g.n_devs;
	*overflows = g.overflows;
}
