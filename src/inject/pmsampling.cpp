/*
 * pmsampling.cpp - CUPTI PM sampling (pmsampling.h says what and how). C++
 * only because CUDA 13's cupti_profiler_host.h includes <string>; C in
 * style like counters.cpp: no exceptions, no allocation that can throw.
 *
 * The calls follow the CUPTI guide's PM sampling section and its
 * pm_sampling sample, in this order, all on the sampling thread:
 *   cuptiProfilerInitialize (once); per device:
 *   cuptiProfilerDeviceSupported (PM sampling), cuptiDeviceGetChipName,
 *   the config image (profiler_host.cpp: host object, the metrics the chip
 *   knows, one pass or none), cuptiPmSamplingEnable, cuptiPmSamplingSetConfig
 *   (GPU time interval in ns, hardware buffer, keep oldest),
 *   cuptiPmSamplingGetCounterDataSize (maxSamples for one pass),
 *   cuptiPmSamplingCounterDataImageInitialize, cuptiPmSamplingStart;
 *   every pass: cuptiPmSamplingDecodeData into the image,
 *   cuptiPmSamplingGetCounterDataInfo, per completed sample
 *   cuptiPmSamplingCounterDataGetSampleInfo and
 *   cuptiProfilerHostEvaluateToGpuValues, the image initialised again
 *   (pm_after_decode: decode again at once when the image was full);
 *   at the end: a pass, cuptiPmSamplingStop, a pass for what the stop
 *   flushed, cuptiPmSamplingDisable, the host object released.
 * What is measured elsewhere and only guessed for the H200 is marked as a
 * guess where it is used (the overflow restart, the timestamps' clock, the
 * buffer sizes in src/gpu/pm_metrics.h); GPUSCOPE_DEBUG=1 logs what decides
 * each.
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

#include "inject/profiler_host.h"

#define MAX_ROUNDS 64  /* decodes in one pass at most (the image full each time) */
#define MAX_RESTARTS 3 /* sampling restarted after an overflow, per device */
#define LOG_PASSES 3   /* passes logged per device, then one in LOG_EVERY */
#define LOG_EVERY 40
#define LOG_REFUSED 3 /* refused samples logged with their error */

namespace
{

const char *const ncu_names[] = {
#define GS_PM_NCU(id, trace, ncu, unit, what, gpm) ncu,
    GS_PM_METRICS(GS_PM_NCU)
#undef GS_PM_NCU
};

/* The driver's entry points, from the libcuda.so.1 that loaded us: CUDA
 * 13.0's static runtime opens it RTLD_NOW | RTLD_LOCAL (seen through an
 * LD_PRELOADed dlopen), so RTLD_DEFAULT does not see it from here (libcupti
 * does not link it): the first version looked there, found nothing and
 * waited for a context until the program ended */
struct driver {
	CUresult (*count)(int *);
	CUresult (*get)(CUdevice *, int);
	CUresult (*state)(CUdevice, unsigned *, int *);
};

struct dev_state {
	struct gs_host_config hc;
	const char *metrics[PM_COUNT]; /* the known ones (hc.kept) */
	size_t from[PM_COUNT];	       /* their ids (hc.kept_from) */
	uint32_t index;
	CUpti_PmSampling_Object *pm;
	uint8_t *data;
	size_t data_size;
	int started;   /* sampling runs: decode it */
	int must_stop; /* switched off while it ran: stop it all the same */
	int restarts;
	int primary;	/* started under an active primary context: it must stay active */
	int gone;	/* that context ended: no CUPTI call on it any more */
	int clock;	/* pm_clock of its timestamps; -1 unknown, -2 not seen yet */
	int64_t offset; /* added to its timestamps: onto CUPTI's clock */
	uint64_t passes, windows;
};

struct state {
	pthread_mutex_t lock;
	pthread_cond_t wake, finished;
	pthread_t th;
	int running, stop, done;
	struct gs_pm_opts o;
	struct pm_sizes z;
	struct driver drv;
	char status[320];
	struct pm_counts n;
	uint64_t t0_ns; /* when the thread started */
	struct dev_state devs[GS_PM_MAX_DEVICES];
};

struct state g = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER};

uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ms since the thread started, for the log */
double since(void)
{
	return (double)(mono_ns() - g.t0_ns) / 1e6;
}

void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void say(const char *fmt, ...)
{
	if (!g.o.log)
		return;
	char msg[600];
	int k = snprintf(msg, sizeof(msg), "pm sampling +%.0f ms: ", since());
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg + k, sizeof(msg) - (size_t)k, fmt, ap);
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

/* Records why PM sampling (or a device) stopped, the first reason standing;
 * -1. */
int off(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int off(const char *fmt, ...)
{
	char msg[sizeof(g.status)];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&g.lock);
	if (!g.status[0])
		memcpy(g.status, msg, sizeof(msg));
	pthread_mutex_unlock(&g.lock);
	say("off: %s", msg);
	return -1;
}

/* A CUPTI call of device dev's set-up, named in the log and, failing, in
 * the status; returns -1 from the caller on failure. */
#define TRY(call, name)                                                                            \
	do {                                                                                       \
		CUptiResult r_ = (call);                                                           \
		say("device %u: %s: %s", dev, name, err_str(r_));                                  \
		if (r_ != CUPTI_SUCCESS)                                                           \
			return off("PM sampling: %s failed on device %u: %s", name, dev,           \
				   err_str(r_));                                                   \
	} while (0)

int stop_asked(void)
{
	return __atomic_load_n(&g.stop, __ATOMIC_ACQUIRE);
}

void set_stage(int s)
{
	__atomic_store_n(&g.n.stage, s, __ATOMIC_RELEASE);
}

/* Sleeps ns unless asked to stop; 1 when asked. */
int nap(uint64_t ns)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	uint64_t t = (uint64_t)ts.tv_nsec + ns;
	ts.tv_sec += (time_t)(t / 1000000000ull);
	ts.tv_nsec = (long)(t % 1000000000ull);
	pthread_mutex_lock(&g.lock);
	while (!g.stop && pthread_cond_timedwait(&g.wake, &g.lock, &ts) != ETIMEDOUT) {
	}
	int stop = g.stop;
	pthread_mutex_unlock(&g.lock);
	return stop;
}

/* Waits until CUDA is initialised and some device's primary context is
 * active (the program's CUDA start is done), at most GS_PM_WAIT_MS after
 * the initialisation; the number of devices, 0 when asked to stop first or
 * when there is none (then the status says why). */
int wait_for_cuda(void)
{
	void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	void *from = cuda ? cuda : RTLD_DEFAULT;
	*(void **)&g.drv.count = dlsym(from, "cuDeviceGetCount");
	*(void **)&g.drv.get = dlsym(from, "cuDeviceGet");
	*(void **)&g.drv.state = dlsym(from, "cuDevicePrimaryCtxGetState");
	say("driver: libcuda.so.1 %s; cuDeviceGetCount %s, cuDeviceGet %s, "
	    "cuDevicePrimaryCtxGetState %s",
	    cuda ? "loaded" : "not loaded", g.drv.count ? "found" : "missing",
	    g.drv.get ? "found" : "missing", g.drv.state ? "found" : "missing");
	if (!g.drv.count) {
		off("PM sampling: cuDeviceGetCount is not in the process (libcuda.so.1 %s)",
		    cuda ? "loaded" : "not loaded");
		return 0;
	}
	uint64_t init_at = 0;
	int last = -1;
	for (;;) {
		int n = 0;
		CUresult cr = g.drv.count(&n);
		if ((int)cr != last) {
			say("cuDeviceGetCount: %d (%d devices)", (int)cr, n);
			last = (int)cr;
		}
		if (cr == CUDA_SUCCESS) {
			if (n <= 0) {
				off("PM sampling: no CUDA device (cuDeviceGetCount)");
				return 0;
			}
			if (!init_at)
				init_at = mono_ns();
			for (int i = 0; g.drv.get && g.drv.state && i < n; i++) {
				CUdevice d = 0;
				int active = 0;
				unsigned flags = 0;
				if (g.drv.get(&d, i) == CUDA_SUCCESS &&
				    g.drv.state(d, &flags, &active) == CUDA_SUCCESS && active) {
					say("device %d's primary context is active", i);
					return n;
				}
			}
			if (!g.drv.get || !g.drv.state ||
			    mono_ns() - init_at >= GS_PM_WAIT_MS * 1000000ull) {
				say("no primary context %d ms after CUDA's start: sampling anyway",
				    GS_PM_WAIT_MS);
				return n;
			}
		}
		if (nap(10000000ull))
			return 0;
	}
}

/* Why cuptiProfilerDeviceSupported said no, into buf. */
void unsupported(const CUpti_Profiler_DeviceSupported_Params *p, char *buf, size_t n)
{
	static const char *const level[] = {"unknown", "unsupported", "disabled", "supported"};
	snprintf(buf, n,
		 "architecture %s, SLI %s, vGPU %s, confidential compute %s, CMP %s, WSL %s",
		 level[p->architecture & 3], level[p->sli & 3], level[p->vGpu & 3],
		 level[p->confidentialCompute & 3], level[p->cmp & 3], level[p->wsl & 3]);
}

void host_step(void *ud, enum gs_host_step s, CUptiResult r)
{
	const struct dev_state *d = (const struct dev_state *)ud;
	say("device %u: %s: %s", d->index, gs_host_step_call(s), err_str(r));
}

/* GPUSCOPE_COUNTERS_AVAIL=1: the PM counter availability image for the
 * host object (CUPTI's sample passes it; without it CUPTI assumes every
 * counter of a chip it knows; the range profiler's own crashed
 * libnvperf_host on the H200, so it stays opt-in here too). NULL else. */
uint8_t *availability(uint32_t dev)
{
	const char *ua = getenv("GPUSCOPE_COUNTERS_AVAIL");
	if (!ua || strcmp(ua, "1") != 0)
		return NULL;
	CUpti_PmSampling_GetCounterAvailability_Params av = {
	    CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE};
	av.deviceIndex = dev;
	CUptiResult r = cuptiPmSamplingGetCounterAvailability(&av);
	uint8_t *img =
	    r == CUPTI_SUCCESS ? (uint8_t *)calloc(1, av.counterAvailabilityImageSize + 1) : NULL;
	if (img) {
		av.pCounterAvailabilityImage = img;
		r = cuptiPmSamplingGetCounterAvailability(&av);
	}
	say("device %u: cuptiPmSamplingGetCounterAvailability: %s (%zu bytes)", dev, err_str(r),
	    av.counterAvailabilityImageSize);
	if (r != CUPTI_SUCCESS) {
		free(img);
		img = NULL;
	}
	return img;
}

CUptiResult init_image(struct dev_state *d)
{
	CUpti_PmSampling_CounterDataImage_Initialize_Params ip = {
	    CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE};
	ip.pPmSamplingObject = d->pm;
	ip.counterDataSize = d->data_size;
	ip.pCounterData = d->data;
	return cuptiPmSamplingCounterDataImageInitialize(&ip);
}

/* Sets device dev up and starts it: 0; 1 when the program ended first
 * (not started); -1 when it cannot be sampled (the status says why). */
/* 1 when device dev's primary context is active (0 also when unknown) */
int primary_active(uint32_t dev)
{
	CUdevice cud = 0;
	unsigned flags = 0;
	int active = 0;
	return g.drv.get && g.drv.state && g.drv.get(&cud, (int)dev) == CUDA_SUCCESS &&
	       g.drv.state(cud, &flags, &active) == CUDA_SUCCESS && active;
}

/* A device sampled under its primary context whose context has ended (the
 * runtime's teardown at exit, cudaDeviceReset): CUPTI's PM calls on it are
 * not safe any more (on the H200 every run ended in SIGSEGV when the
 * decode ran into the runtime's teardown), so it is dropped with what it
 * had decoded. 1 when dropped. */
int context_gone(struct dev_state *d)
{
	if (!d->primary || primary_active(d->index))
		return 0;
	off("PM sampling: device %u's context ended before sampling stopped; the windows "
	    "after the last decode are not recorded",
	    d->index);
	say("device %u: the primary context ended: no more CUPTI calls on it", d->index);
	d->gone = 1;
	d->started = 0;
	d->must_stop = 0;
	return 1;
}

int setup(uint32_t dev)
{
	struct dev_state *d = &g.devs[dev];
	d->index = dev;
	d->clock = -2;
	CUdevice cud = 0;
	if (g.drv.get && g.drv.get(&cud, (int)dev) == CUDA_SUCCESS) {
		CUpti_Profiler_DeviceSupported_Params ds = {
		    CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE};
		ds.cuDevice = cud;
		ds.api = CUPTI_PROFILER_PM_SAMPLING;
		CUptiResult r = cuptiProfilerDeviceSupported(&ds);
		char why[200];
		unsupported(&ds, why, sizeof(why));
		say("device %u: cuptiProfilerDeviceSupported: %s, %s (%s)", dev, err_str(r),
		    ds.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED ? "supported"
									     : "not supported",
		    why);
		if (r == CUPTI_SUCCESS && ds.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
			return off("PM sampling: device %u cannot be sampled "
				   "(cuptiProfilerDeviceSupported: %s)",
				   dev, why);
	}
	CUpti_Device_GetChipName_Params cn = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
	cn.deviceIndex = dev;
	TRY(cuptiDeviceGetChipName(&cn), "cuptiDeviceGetChipName");
	uint8_t *avail = availability(dev);
	d->hc.type = CUPTI_PROFILER_TYPE_PM_SAMPLING;
	d->hc.chip = cn.pChipName;
	d->hc.avail = avail;
	d->hc.want = ncu_names;
	d->hc.n_want = PM_COUNT;
	d->hc.kept = d->metrics;
	d->hc.kept_from = d->from;
	d->hc.step = host_step;
	d->hc.ud = d;
	enum gs_host_step failed = GS_HOST_INIT;
	CUptiResult r = gs_host_config_build(&d->hc, &failed);
	free(avail);
	if (r != CUPTI_SUCCESS)
		return off("PM sampling: %s failed on device %u (%s): %s",
			   gs_host_step_call(failed), dev, cn.pChipName, err_str(r));
	if (!d->hc.n_kept)
		return off("PM sampling: the chip (%s) knows none of the metrics", cn.pChipName);
	if (d->hc.passes != 1)
		return off("PM sampling: the metrics need %zu passes on %s (one is all it can do; "
			   "0: cuptiProfilerHostGetNumOfPasses failed)",
			   d->hc.passes, cn.pChipName);
	if (stop_asked())
		return 1;
	CUpti_PmSampling_Enable_Params en = {CUpti_PmSampling_Enable_Params_STRUCT_SIZE};
	en.deviceIndex = dev;
	TRY(cuptiPmSamplingEnable(&en), "cuptiPmSamplingEnable");
	d->pm = en.pPmSamplingObject;
	CUpti_PmSampling_SetConfig_Params sc = {CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE};
	sc.pPmSamplingObject = d->pm;
	sc.configSize = d->hc.image_size;
	sc.pConfig = d->hc.image;
	sc.hardwareBufferSize = g.z.hw_bytes;
	sc.samplingInterval = g.o.interval_ns; /* ns with the time-interval trigger */
	sc.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
	sc.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
	TRY(cuptiPmSamplingSetConfig(&sc), "cuptiPmSamplingSetConfig");
	CUpti_PmSampling_GetCounterDataSize_Params ds = {
	    CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE};
	ds.pPmSamplingObject = d->pm;
	ds.pMetricNames = d->metrics;
	ds.numMetrics = d->hc.n_kept;
	ds.maxSamples = g.z.image_windows;
	TRY(cuptiPmSamplingGetCounterDataSize(&ds), "cuptiPmSamplingGetCounterDataSize");
	d->data_size = ds.counterDataSize;
	if (!(d->data = (uint8_t *)calloc(1, d->data_size ? d->data_size : 1)))
		return off("PM sampling: out of memory (a counter data image of %zu bytes)",
			   d->data_size);
	TRY(init_image(d), "cuptiPmSamplingCounterDataImageInitialize");
	if (stop_asked())
		return 1;
	CUpti_PmSampling_Start_Params sp = {CUpti_PmSampling_Start_Params_STRUCT_SIZE};
	sp.pPmSamplingObject = d->pm;
	TRY(cuptiPmSamplingStart(&sp), "cuptiPmSamplingStart");
	d->started = 1;
	d->primary = primary_active(dev);
	say("device %u (%s): started: %zu of %d metrics, 1 pass, a window every %llu ns, "
	    "hardware buffer %zu bytes, counter data image of %u windows (%zu bytes), a decode "
	    "pass every %.1f ms",
	    dev, cn.pChipName, d->hc.n_kept, (int)PM_COUNT, (unsigned long long)g.o.interval_ns,
	    g.z.hw_bytes, g.z.image_windows, d->data_size, (double)g.z.decode_ns / 1e6);
	return 0;
}

/* The clock of d's timestamps, from its first window (pm_clock_pick): its
 * offset onto CUPTI's clock, fixed from then on. A guess to check on the
 * H200: the CUPTI guide only says "CPU based". */
void pick_clock(struct dev_state *d, uint64_t start, uint64_t end)
{
	int64_t now[PM_CLOCKS] = {0, 0, 0};
	uint64_t cupti = 0;
	if (cuptiGetTimestamp(&cupti) == CUPTI_SUCCESS)
		now[PM_CLOCK_CUPTI] = (int64_t)cupti;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	now[PM_CLOCK_REALTIME] = (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now[PM_CLOCK_MONOTONIC] = (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
	d->clock = now[PM_CLOCK_CUPTI] > 0 ? pm_clock_pick(end, now) : -1;
	d->offset = d->clock >= 0 ? now[PM_CLOCK_CUPTI] - now[d->clock] : 0;
	say("device %u: first window %llu..%llu (%.3f ms); now: CUPTI %lld, CLOCK_REALTIME %lld, "
	    "CLOCK_MONOTONIC %lld: taken as %s, %lld ns added",
	    d->index, (unsigned long long)start, (unsigned long long)end,
	    (double)(end - start) / 1e6, (long long)now[PM_CLOCK_CUPTI],
	    (long long)now[PM_CLOCK_REALTIME], (long long)now[PM_CLOCK_MONOTONIC],
	    pm_clock_name(d->clock), (long long)d->offset);
}

void refused(const struct dev_state *d, size_t i, const char *call, CUptiResult r)
{
	if (g.n.refused++ < LOG_REFUSED)
		say("device %u: sample %zu: %s: %s", d->index, i, call, err_str(r));
}

/* The first window's values, in the log. */
void say_values(const struct dev_state *d, const double *v)
{
	char line[400];
	size_t k = 0;
	line[0] = 0;
	for (size_t m = 0; m < d->hc.n_kept && k < sizeof(line); m++)
		k += (size_t)snprintf(line + k, sizeof(line) - k, "%s%s %.1f", m ? ", " : "",
				      pm_trace_name((int)d->from[m]), v[m]);
	say("device %u: first values: %s", d->index, line);
}

/* Evaluates samples [0, take) of d's image and writes their values. */
void emit_windows(struct dev_state *d, size_t take)
{
	double v[PM_COUNT];
	for (size_t i = 0; i < take; i++) {
		CUpti_PmSampling_CounterData_GetSampleInfo_Params si = {
		    CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE};
		si.pPmSamplingObject = d->pm;
		si.pCounterDataImage = d->data;
		si.counterDataImageSize = d->data_size;
		si.sampleIndex = i;
		CUptiResult r = cuptiPmSamplingCounterDataGetSampleInfo(&si);
		if (r != CUPTI_SUCCESS) {
			refused(d, i, "cuptiPmSamplingCounterDataGetSampleInfo", r);
			continue;
		}
		/* no time covered: the ones after a stop (stamped at the start,
		 * measured elsewhere), or lost after a full image (both 0) */
		if (si.endTimestamp <= si.startTimestamp) {
			g.n.empty++;
			continue;
		}
		CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {
		    CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
		ev.pHostObject = d->hc.host;
		ev.pCounterDataImage = d->data;
		ev.counterDataImageSize = d->data_size;
		ev.rangeIndex = i;
		ev.ppMetricNames = d->metrics;
		ev.numMetrics = d->hc.n_kept;
		ev.pMetricValues = v;
		r = cuptiProfilerHostEvaluateToGpuValues(&ev);
		if (r != CUPTI_SUCCESS) {
			refused(d, i, "cuptiProfilerHostEvaluateToGpuValues", r);
			continue;
		}
		if (d->clock == -2)
			pick_clock(d, si.startTimestamp, si.endTimestamp);
		uint64_t ts = si.endTimestamp + (uint64_t)d->offset;
		int any = 0;
		for (size_t m = 0; m < d->hc.n_kept; m++)
			if (isfinite(v[m])) {
				g.o.emit(d->index, ts, pm_trace_name((int)d->from[m]), v[m]);
				any = 1;
			}
		if (any && !d->windows)
			say_values(d, v);
		d->windows += any;
		g.n.windows += any;
		g.n.off_clock += any && d->clock < 0;
	}
}

/* The hardware buffer overflowed (DecodeData's overflow flag, or
 * CUPTI_ERROR_OUT_OF_MEMORY): measured elsewhere (CUDA 13.3, H100), CUPTI
 * then fails every later decode, so sampling is stopped and started
 * again, MAX_RESTARTS times at most. Whether Stop + Start clears the
 * buffer on the H200 is a guess the log settles. 0 when it runs again,
 * -1 when the device is off. */
int overflowed(struct dev_state *d, CUptiResult r, int restart)
{
	g.n.overflows++;
	uint32_t dev = d->index;
	say("device %u: hardware buffer overflow (cuptiPmSamplingDecodeData: %s) after %llu "
	    "windows; restart %d of %d",
	    dev, err_str(r), (unsigned long long)d->windows, restart ? d->restarts + 1 : 0,
	    MAX_RESTARTS);
	if (!restart)
		return -1; /* the last passes: no restart */
	if (d->restarts++ >= MAX_RESTARTS)
		return off("PM sampling: the hardware buffer of device %u overflowed %d times "
			   "(cuptiPmSamplingDecodeData: %s)",
			   dev, d->restarts, err_str(r));
	CUpti_PmSampling_Stop_Params st = {CUpti_PmSampling_Stop_Params_STRUCT_SIZE};
	st.pPmSamplingObject = d->pm;
	TRY(cuptiPmSamplingStop(&st), "cuptiPmSamplingStop (overflow)");
	TRY(init_image(d), "cuptiPmSamplingCounterDataImageInitialize (overflow)");
	CUpti_PmSampling_Start_Params sp = {CUpti_PmSampling_Start_Params_STRUCT_SIZE};
	sp.pPmSamplingObject = d->pm;
	TRY(cuptiPmSamplingStart(&sp), "cuptiPmSamplingStart (overflow)");
	return 0;
}

/* One decode pass over d (the file's top comment); when is "" while
 * sampling runs, else which of the last passes it is (no restart after an
 * overflow then). 0, or -1 with the device off (the status says why). */
int decode_pass(struct dev_state *d, const char *when)
{
	if (context_gone(d))
		return -1;
	uint32_t dev = d->index;
	uint64_t t = mono_ns(), w0 = d->windows, e0 = g.n.empty, f0 = g.n.refused;
	size_t completed = 0, populated = 0;
	int rounds = 0, reason = -1, rc = 0;
	d->passes++;
	g.n.passes++;
	for (int again = 1; again && rounds < MAX_ROUNDS; rounds++) {
		CUpti_PmSampling_DecodeData_Params dd = {
		    CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE};
		dd.pPmSamplingObject = d->pm;
		dd.pCounterDataImage = d->data;
		dd.counterDataImageSize = d->data_size;
		CUptiResult r = cuptiPmSamplingDecodeData(&dd);
		if (r == CUPTI_ERROR_OUT_OF_MEMORY) { /* no sample comes with it */
			rc = overflowed(d, r, !*when);
			break;
		}
		if (r != CUPTI_SUCCESS) {
			rc = off("PM sampling: cuptiPmSamplingDecodeData failed on device %u: %s",
				 dev, err_str(r));
			break;
		}
		g.n.decodes++;
		reason = (int)dd.decodeStopReason;
		CUpti_PmSampling_GetCounterDataInfo_Params gi = {
		    CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE};
		gi.pCounterDataImage = d->data;
		gi.counterDataImageSize = d->data_size;
		r = cuptiPmSamplingGetCounterDataInfo(&gi);
		if (r != CUPTI_SUCCESS) {
			rc = off("PM sampling: cuptiPmSamplingGetCounterDataInfo failed on device "
				 "%u: %s",
				 dev, err_str(r));
			break;
		}
		struct pm_step s = pm_after_decode(
		    gi.numCompletedSamples, gi.numPopulatedSamples, g.z.image_windows,
		    dd.decodeStopReason == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL);
		completed += s.take;
		populated += gi.numPopulatedSamples;
		g.n.completed += s.take;
		emit_windows(d, s.take);
		if (s.reinit && (r = init_image(d)) != CUPTI_SUCCESS) {
			rc = off("PM sampling: cuptiPmSamplingCounterDataImageInitialize failed on "
				 "device %u: %s",
				 dev, err_str(r));
			break;
		}
		if (dd.overflow) { /* the samples decoded stand; newer ones were lost */
			rc = overflowed(d, r, !*when);
			break;
		}
		again = s.again;
	}
	g.o.emit(dev, 0, NULL, 0); /* write out the pass's windows */
	int odd = rc < 0 || rounds > 1 || g.n.refused != f0 ||
		  reason == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL;
	if (g.o.log && (d->passes <= LOG_PASSES || d->passes % LOG_EVERY == 0 || odd || *when))
		say("device %u: pass %llu%s%s: %d decode(s), %zu completed, %zu populated, "
		    "last stop reason %d (0 other, 1 image full, 2 end of records), %llu "
		    "windows, %llu covering no time, %llu refused, %.2f ms",
		    dev, (unsigned long long)d->passes, *when ? " " : "", when, rounds, completed,
		    populated, reason, (unsigned long long)(d->windows - w0),
		    (unsigned long long)(g.n.empty - e0), (unsigned long long)(g.n.refused - f0),
		    (double)(mono_ns() - t) / 1e6);
	return rc;
}

/* A last pass, stopped, a pass for what the stop flushed, disabled. */
void teardown(struct dev_state *d)
{
	uint32_t dev = d->index;
	if (d->started && decode_pass(d, "(before stop)") < 0 && !d->gone) {
		d->started = 0;
		d->must_stop = 1;
	}
	if (d->gone) {
		/* CUPTI's objects of a device whose context ended are left alone */
		gs_host_config_release(&d->hc);
		free(d->data);
		memset(d, 0, sizeof(*d));
		return;
	}
	if (d->pm && (d->started || d->must_stop)) {
		CUpti_PmSampling_Stop_Params sp = {CUpti_PmSampling_Stop_Params_STRUCT_SIZE};
		sp.pPmSamplingObject = d->pm;
		say("device %u: cuptiPmSamplingStop: %s", dev, err_str(cuptiPmSamplingStop(&sp)));
	}
	if (d->started)
		(void)decode_pass(d, "(after stop)");
	if (d->pm) {
		CUpti_PmSampling_Disable_Params dp = {CUpti_PmSampling_Disable_Params_STRUCT_SIZE};
		dp.pPmSamplingObject = d->pm;
		say("device %u: cuptiPmSamplingDisable: %s", dev,
		    err_str(cuptiPmSamplingDisable(&dp)));
	}
	gs_host_config_release(&d->hc);
	free(d->data);
	memset(d, 0, sizeof(*d));
}

#undef TRY

/* A decode pass over every device that samples; *live counts them. */
void decode_all(uint32_t *live)
{
	for (uint32_t i = 0; i < GS_PM_MAX_DEVICES; i++) {
		struct dev_state *d = &g.devs[i];
		if (d->started && decode_pass(d, "") < 0) {
			d->started =
			    0; /* its teardown still stops it, unless its context is gone */
			d->must_stop = !d->gone;
			--*live;
		}
	}
}

void *run(void *)
{
	g.t0_ns = mono_ns();
	set_stage(PM_STAGE_WAIT);
	int n = wait_for_cuda();
	if (n > 0) {
		set_stage(PM_STAGE_SETUP);
		CUpti_Profiler_Initialize_Params pi = {
		    CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
		CUptiResult r = cuptiProfilerInitialize(&pi);
		say("cuptiProfilerInitialize: %s", err_str(r));
		if (r != CUPTI_SUCCESS) {
			off("PM sampling: cuptiProfilerInitialize failed: %s", err_str(r));
			n = 0;
		}
	}
	if (n > GS_PM_MAX_DEVICES)
		say("%d devices: the first %d are sampled", n, GS_PM_MAX_DEVICES);
	/* a device that cannot be sampled leaves the others sampled (the status
	 * names it); those started are decoded between the set-ups, so that a
	 * slow set-up does not overfill their images */
	uint32_t live = 0;
	for (uint32_t dev = 0; dev < (uint32_t)n && dev < GS_PM_MAX_DEVICES && !stop_asked();
	     dev++) {
		decode_all(&live);
		live += setup(dev) == 0;
	}
	g.n.devices = live;
	if (live) {
		set_stage(PM_STAGE_SAMPLING);
		if (g.o.started)
			g.o.started();
	}
	while (live > 0 && !nap(g.z.decode_ns))
		decode_all(&live);
	for (uint32_t i = 0; i < GS_PM_MAX_DEVICES; i++)
		teardown(&g.devs[i]);
	char line[320];
	pm_counts_line(line, sizeof(line), &g.n);
	say("done: %s", line);
	pthread_mutex_lock(&g.lock);
	g.done = 1;
	if (g.n.stage == PM_STAGE_SAMPLING)
		g.n.stage = PM_STAGE_DONE;
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
	g.z = pm_sizes_for(o->interval_ns);
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
		__atomic_store_n(&g.stop, 1, __ATOMIC_RELEASE); /* a signal handler: no lock */
		return 0;
	}
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += (GS_PM_STOP_MS % 1000) * 1000000L;
	ts.tv_sec += GS_PM_STOP_MS / 1000 + ts.tv_nsec / 1000000000L;
	ts.tv_nsec %= 1000000000L;
	pthread_mutex_lock(&g.lock);
	__atomic_store_n(&g.stop, 1, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&g.wake);
	int timed_out = 0;
	while (!g.done && !timed_out)
		timed_out = pthread_cond_timedwait(&g.finished, &g.lock, &ts) == ETIMEDOUT;
	int done = g.done;
	pthread_mutex_unlock(&g.lock);
	g.running = 0;
	if (done) {
		pthread_join(g.th, NULL);
		return 1;
	}
	int stage = __atomic_load_n(&g.n.stage, __ATOMIC_ACQUIRE);
	off("PM sampling: still %s %d ms after the program's end; its windows are not recorded",
	    stage == PM_STAGE_WAIT    ? "waiting for CUDA"
	    : stage == PM_STAGE_SETUP ? "being set up"
				      : "decoding",
	    GS_PM_STOP_MS);
	return 0;
}

extern "C" const char *gs_pm_status(void)
{
	return g.status;
}

extern "C" void gs_pm_counts(struct pm_counts *out)
{
	pthread_mutex_lock(&g.lock);
	*out = g.n;
	pthread_mutex_unlock(&g.lock);
}
