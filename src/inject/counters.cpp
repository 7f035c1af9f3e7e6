/*
 * counters.cpp - per-kernel hardware counters through CUPTI's range
 * profiler (counters.h says what and how). C++ only because CUDA 13.0's
 * cupti_profiler_host.h includes <string>; the code is C in style: no
 * exceptions, no allocation that can throw, nothing that outlives the
 * process's CUPTI session.
 *
 * Per context, once: the chip's name and counter availability, a host
 * object that turns the metric list (src/gpu/kernel_metrics.h, less the
 * names the chip does not know) into a config image (profiler_host.cpp, the
 * sequence PM sampling shares), the range profiler
 * enabled on the context and a counter data image for a few ranges. Per
 * profiled launch: Start in the launch's ENTER callback, Stop + decode +
 * evaluate at EXIT, then the image is re-initialised for the next one.
 * Auto range makes every kernel between Start and Stop a range of its own
 * (another thread's launch may land in between), so the value rows come
 * from the range named like the profiled kernel, or the only range.
 */
#include "inject/counters.h"

#include <dlfcn.h>
#include <pthread.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include "gpu/kernel_metrics.h"
#include "inject/profiler_host.h"

/* Ranges one session can hold: the profiled kernel plus launches from other
 * threads that land between Start and Stop. */
#define MAX_RANGES 16
#define MAX_CONTEXTS 16

namespace
{

const char *const all_metrics[] = {
#define GS_KM_NAME(id, name, unit, what) name,
    GS_KERNEL_METRICS(GS_KM_NAME)
#undef GS_KM_NAME
};

struct ctx_state {
	CUcontext ctx;
	int failed;
	struct gs_host_config hc; /* the host object and the config image */
	CUpti_RangeProfiler_Object *rp;
	uint8_t *data;
	size_t data_size;
	const char *metrics[KM_COUNT];
	size_t n_metrics;
};

struct state {
	pthread_mutex_t lock;
	int ready, off, have_regex, profiler_init;
	regex_t re;
	long skip, count;
	unsigned long long matched, profiled, graph_skipped;
	uint32_t passes;
	char status[256];
	char dropped[1024];
	/* distinct kernel names seen (default selection): open addressing */
	char **seen;
	size_t n_seen, cap_seen;
	struct ctx_state ctxs[MAX_CONTEXTS];
	size_t n_ctxs;
	/* the launch in flight (lock held from enter to exit) */
	struct ctx_state *cur;
	uint32_t cur_corr;
	char cur_symbol[512];
	void (*log)(const char *msg);
};

struct state g = {PTHREAD_MUTEX_INITIALIZER};

void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void say(const char *fmt, ...)
{
	if (!g.log)
		return;
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	g.log(msg);
}

void set_off(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void set_off(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(g.status, sizeof(g.status), fmt, ap);
	va_end(ap);
	g.off = 1;
	say("counters off: %s", g.status);
}

const char *cupti_err(CUptiResult r)
{
	const char *s = NULL;
	if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s)
		return "unknown CUPTI error";
	return s;
}

uint64_t fnv(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* 1 when name was not seen before (and remembers it); -1 out of memory. */
int first_sight(const char *name)
{
	if (2 * (g.n_seen + 1) > g.cap_seen) {
		size_t cap = g.cap_seen ? 2 * g.cap_seen : 256;
		char **v = (char **)calloc(cap, sizeof(*v));
		if (!v)
			return -1;
		for (size_t i = 0; i < g.cap_seen; i++) {
			if (!g.seen[i])
				continue;
			size_t j = fnv(g.seen[i]) & (cap - 1);
			while (v[j])
				j = (j + 1) & (cap - 1);
			v[j] = g.seen[i];
		}
		free(g.seen);
		g.seen = v;
		g.cap_seen = cap;
	}
	size_t j = fnv(name) & (g.cap_seen - 1);
	while (g.seen[j]) {
		if (strcmp(g.seen[j], name) == 0)
			return 0;
		j = (j + 1) & (g.cap_seen - 1);
	}
	g.seen[j] = strdup(name);
	if (!g.seen[j])
		return -1;
	g.n_seen++;
	return 1;
}

/* The demangled function name: no return type, parameters or template
 * arguments ("void ns::k<int>(int*)" -> "ns::k"). */
void function_name(const char *demangled, char *out, size_t n)
{
	const char *end = demangled + strlen(demangled);
	int depth = 0;
	/* the parameter list starts at the last '(' at template depth 0 */
	const char *paren = NULL;
	for (const char *p = demangled; p < end; p++) {
		if (*p == '<')
			depth++;
		else if (*p == '>')
			depth--;
		else if (*p == '(' && depth == 0 && !paren)
			paren = p;
	}
	if (!paren)
		paren = end;
	/* the name starts after the last space at depth 0 before paren */
	const char *start = demangled;
	depth = 0;
	for (const char *p = demangled; p < paren; p++) {
		if (*p == '<')
			depth++;
		else if (*p == '>')
			depth--;
		else if (*p == ' ' && depth == 0)
			start = p + 1;
	}
	size_t k = 0;
	depth = 0;
	for (const char *p = start; p < paren && k + 1 < n; p++) {
		if (*p == '<')
			depth++;
		else if (*p == '>')
			depth--;
		else if (depth == 0)
			out[k++] = *p;
	}
	out[k] = 0;
}

/* The C++ runtime's demangler, looked up in the process (every CUDA C++
 * program and every framework has libstdc++ loaded): linking libstdc++ into
 * a library loaded into arbitrary programs would risk a second copy. */
typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

int regex_selects(const char *symbol)
{
	if (regexec(&g.re, symbol, 0, NULL, 0) == 0)
		return 1;
	static demangle_fn demangle;
	if (!demangle)
		*(void **)&demangle = dlsym(RTLD_DEFAULT, "__cxa_demangle");
	int st = 0;
	char *dm = demangle ? demangle(symbol, NULL, NULL, &st) : NULL;
	if (!dm)
		return 0;
	char fn[512];
	function_name(dm, fn, sizeof(fn));
	int hit = regexec(&g.re, dm, 0, NULL, 0) == 0 || regexec(&g.re, fn, 0, NULL, 0) == 0;
	free(dm);
	return hit;
}

/* Whether this launch is profiled (counts it as matched when it matches). */
int selected(const char *symbol)
{
	if (g.have_regex || g.count > 0) {
		if (g.have_regex && !regex_selects(symbol))
			return 0;
		g.matched++;
		if (g.matched <= (unsigned long long)g.skip)
			return 0;
		if (g.count > 0 && g.profiled >= (unsigned long long)g.count)
			return 0;
		return 1;
	}
	if (g.profiled >= GS_COUNTERS_DEFAULT_MAX)
		return 0;
	int first = first_sight(symbol);
	if (first < 0) {
		set_off("out of memory");
		return 0;
	}
	return first;
}

/* Notes in g.dropped the metrics the chip did not know (those the config
 * left out). */
void note_dropped(const struct ctx_state *c)
{
	for (size_t i = 0, k = 0; i < KM_COUNT; i++) {
		if (k < c->n_metrics && c->metrics[k] == all_metrics[i]) {
			k++;
			continue;
		}
		size_t len = strlen(g.dropped);
		if (!strstr(g.dropped, all_metrics[i]) &&
		    len + strlen(all_metrics[i]) + 2 < sizeof(g.dropped))
			snprintf(g.dropped + len, sizeof(g.dropped) - len, "%s%s", len ? "," : "",
				 all_metrics[i]);
	}
}

/* What each config step is called in the status and the log. */
const char *const step_words[GS_HOST_STEPS] = {
    "counter availability / profiler host",
    "adding the metrics",
    "config image size",
    "out of memory",
    "config image",
    "pass count",
};

void config_step(void *, enum gs_host_step s, CUptiResult r)
{
	if (s != GS_HOST_PASSES)
		say("counters: %s: %s", step_words[s], cupti_err(r));
}

/* Points the range profiler at a freshly initialised counter data image. */
CUptiResult arm(struct ctx_state *c)
{
	CUpti_RangeProfiler_CounterDataImage_Initialize_Params ip = {
	    CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
	ip.pRangeProfilerObject = c->rp;
	ip.counterDataSize = c->data_size;
	ip.pCounterData = c->data;
	memset(c->data, 0, c->data_size);
	CUptiResult r = cuptiRangeProfilerCounterDataImageInitialize(&ip);
	if (r != CUPTI_SUCCESS)
		return r;
	CUpti_RangeProfiler_SetConfig_Params sp = {
	    CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
	sp.pRangeProfilerObject = c->rp;
	sp.configSize = c->hc.image_size;
	sp.pConfig = c->hc.image;
	sp.counterDataImageSize = c->data_size;
	sp.pCounterDataImage = c->data;
	sp.range = CUPTI_AutoRange;
	sp.replayMode = CUPTI_KernelReplay;
	sp.maxRangesPerPass = MAX_RANGES;
	sp.numNestingLevels = 1;
	sp.minNestingLevel = 1;
	sp.passIndex = 0;
	sp.targetNestingLevel = 1;
	return cuptiRangeProfilerSetConfig(&sp);
}

#define TRY(call, what)                                                                            \
	do {                                                                                       \
		CUptiResult r_ = (call);                                                           \
		say("counters: %s: %s", what, cupti_err(r_));                                      \
		if (r_ != CUPTI_SUCCESS) {                                                         \
			set_off("%s failed: %s", what, cupti_err(r_));                             \
			c->failed = 1;                                                             \
			return NULL;                                                               \
		}                                                                                  \
	} while (0)

/* A zeroed buffer for c, or NULL with counters off and c failed. */
uint8_t *alloc_for(struct ctx_state *c, size_t n)
{
	uint8_t *p = (uint8_t *)calloc(1, n ? n : 1);
	if (!p) {
		set_off("out of memory");
		c->failed = 1;
	}
	return p;
}

/* The context's profiler state, set up on first use; NULL (and counters
 * off, with the reason) when it cannot be. */
struct ctx_state *ctx_state_for(CUcontext ctx)
{
	for (size_t i = 0; i < g.n_ctxs; i++)
		if (g.ctxs[i].ctx == ctx)
			return g.ctxs[i].failed ? NULL : &g.ctxs[i];
	if (g.n_ctxs == MAX_CONTEXTS) {
		set_off("more than %d CUDA contexts", MAX_CONTEXTS);
		return NULL;
	}
	struct ctx_state *c = &g.ctxs[g.n_ctxs++];
	memset(c, 0, sizeof(*c));
	c->ctx = ctx;
	if (!g.profiler_init) {
		CUpti_Profiler_Initialize_Params pi = {
		    CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
		TRY(cuptiProfilerInitialize(&pi), "cuptiProfilerInitialize");
		g.profiler_init = 1;
	}
	uint32_t dev = 0;
	TRY(cuptiGetDeviceId(ctx, &dev), "cuptiGetDeviceId");
	CUpti_Device_GetChipName_Params cn = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
	cn.deviceIndex = dev;
	TRY(cuptiDeviceGetChipName(&cn), "cuptiDeviceGetChipName");
	CUpti_Profiler_GetCounterAvailability_Params av = {
	    CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
	av.ctx = ctx;
	TRY(cuptiProfilerGetCounterAvailability(&av), "counter availability (size)");
	uint8_t *avail = alloc_for(c, av.counterAvailabilityImageSize + 1);
	if (!avail)
		return NULL;
	av.pCounterAvailabilityImage = avail;
	CUptiResult r = cuptiProfilerGetCounterAvailability(&av);
	enum gs_host_step failed = GS_HOST_INIT;
	if (r == CUPTI_SUCCESS) {
		/* H200, CUDA 13.0, driver 580: with the availability image
		 * cuptiProfilerHostConfigAddMetrics crashed inside libnvperf_host
		 * (every way of calling it, also outside callbacks); CUPTI needs
		 * the image only for chips newer than itself, so it is passed only
		 * on request (GPUSCOPE_COUNTERS_AVAIL=1) */
		const char *ua = getenv("GPUSCOPE_COUNTERS_AVAIL");
		c->hc.type = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
		c->hc.chip = cn.pChipName;
		c->hc.avail = ua && !strcmp(ua, "1") ? avail : NULL;
		c->hc.want = all_metrics;
		c->hc.n_want = KM_COUNT;
		c->hc.kept = c->metrics;
		c->hc.step = config_step;
		r = gs_host_config_build(&c->hc, &failed);
		c->n_metrics = c->hc.n_kept;
		if (r == CUPTI_SUCCESS || failed > GS_HOST_INIT)
			note_dropped(c);
	} else {
		config_step(NULL, GS_HOST_INIT, r);
	}
	free(avail);
	if (r != CUPTI_SUCCESS) {
		if (failed == GS_HOST_ALLOC)
			set_off("out of memory");
		else
			set_off("%s failed: %s", step_words[failed], cupti_err(r));
		c->failed = 1;
		return NULL;
	}
	if (!c->n_metrics) {
		set_off("the chip (%s) knows none of the metrics", cn.pChipName);
		c->failed = 1;
		return NULL;
	}
	if (c->hc.passes)
		g.passes = (uint32_t)c->hc.passes;
	CUpti_RangeProfiler_Enable_Params en = {CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
	en.ctx = ctx;
	TRY(cuptiRangeProfilerEnable(&en), "enabling the range profiler");
	c->rp = en.pRangeProfilerObject;
	CUpti_RangeProfiler_GetCounterDataSize_Params ds = {
	    CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
	ds.pRangeProfilerObject = c->rp;
	ds.pMetricNames = c->metrics;
	ds.numMetrics = c->n_metrics;
	ds.maxNumOfRanges = MAX_RANGES;
	ds.maxNumRangeTreeNodes = MAX_RANGES;
	TRY(cuptiRangeProfilerGetCounterDataSize(&ds), "counter data size");
	c->data_size = ds.counterDataSize;
	c->data = alloc_for(c, c->data_size);
	if (!c->data)
		return NULL;
	TRY(arm(c), "configuring the range profiler");
	say("counters: context %p ready: chip %s, %zu of %d metrics, %u passes", (void *)ctx,
	    cn.pChipName, c->n_metrics, (int)KM_COUNT, g.passes);
	return c;
}

#undef TRY

/* The range holding the profiled kernel: the one named like it, else the
 * only one; -1 when neither. */
long pick_range(struct ctx_state *c, size_t n)
{
	if (n == 1)
		return 0;
	for (size_t i = 0; i < n; i++) {
		CUpti_RangeProfiler_CounterData_GetRangeInfo_Params ri = {
		    CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE};
		ri.pCounterDataImage = c->data;
		ri.counterDataImageSize = c->data_size;
		ri.rangeIndex = i;
		ri.rangeDelimiter = "/";
		if (cuptiRangeProfilerCounterDataGetRangeInfo(&ri) == CUPTI_SUCCESS &&
		    ri.rangeName && strstr(ri.rangeName, g.cur_symbol))
			return (long)i;
	}
	return -1;
}

} // namespace

extern "C" int gs_counters_setup(const struct gs_counters_opts *o, char *why, size_t why_len)
{
	pthread_mutex_lock(&g.lock);
	g.log = o->log;
	g.skip = o->skip > 0 ? o->skip : 0;
	g.count = o->count;
	g.have_regex = 0;
	int rc = 0;
	if (o->regex && *o->regex) {
		int e = regcomp(&g.re, o->regex, REG_EXTENDED | REG_NOSUB);
		if (e != 0) {
			char msg[128];
			regerror(e, &g.re, msg, sizeof(msg));
			snprintf(why, why_len, "bad --kernel-regex '%s': %s", o->regex, msg);
			set_off("%s", why);
			rc = -1;
		} else {
			g.have_regex = 1;
		}
	}
	g.ready = rc == 0;
	pthread_mutex_unlock(&g.lock);
	return rc;
}

extern "C" int gs_counters_launch_enter(void *ctx, const char *symbol, uint32_t correlation)
{
	if (!symbol || !*symbol || !ctx)
		return 0;
	pthread_mutex_lock(&g.lock);
	if (!g.ready || g.off || !selected(symbol)) {
		pthread_mutex_unlock(&g.lock);
		return 0;
	}
	struct ctx_state *c = ctx_state_for((CUcontext)ctx);
	if (!c) {
		pthread_mutex_unlock(&g.lock);
		return 0;
	}
	CUpti_RangeProfiler_Start_Params st = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
	st.pRangeProfilerObject = c->rp;
	CUptiResult r = cuptiRangeProfilerStart(&st);
	say("counters: start for %.80s (correlation %u): %s", symbol, correlation, cupti_err(r));
	if (r != CUPTI_SUCCESS) {
		set_off("starting the range profiler failed: %s", cupti_err(r));
		pthread_mutex_unlock(&g.lock);
		return 0;
	}
	g.cur = c;
	g.cur_corr = correlation;
	snprintf(g.cur_symbol, sizeof(g.cur_symbol), "%s", symbol);
	return 1; /* the lock stays held until gs_counters_launch_exit */
}

extern "C" void gs_counters_launch_exit(gs_counter_emit_fn emit, void *ud)
{
	struct ctx_state *c = g.cur;
	if (!c) {
		pthread_mutex_unlock(&g.lock);
		return;
	}
	g.cur = NULL;
	CUpti_RangeProfiler_Stop_Params sp = {CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
	sp.pRangeProfilerObject = c->rp;
	CUptiResult r = cuptiRangeProfilerStop(&sp);
	CUpti_RangeProfiler_DecodeData_Params dd = {
	    CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
	dd.pRangeProfilerObject = c->rp;
	if (r == CUPTI_SUCCESS)
		r = cuptiRangeProfilerDecodeData(&dd);
	CUpti_RangeProfiler_GetCounterDataInfo_Params gi = {
	    CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
	gi.pCounterDataImage = c->data;
	gi.counterDataImageSize = c->data_size;
	if (r == CUPTI_SUCCESS)
		r = cuptiRangeProfilerGetCounterDataInfo(&gi);
	if (r != CUPTI_SUCCESS) {
		set_off("reading the counters failed: %s", cupti_err(r));
		pthread_mutex_unlock(&g.lock);
		return;
	}
	long k = pick_range(c, gi.numTotalRanges);
	say("counters: stop, %zu ranges decoded (%zu dropped), using range %ld", gi.numTotalRanges,
	    dd.numOfRangeDropped, k);
	double values[KM_COUNT];
	CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {
	    CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
	ev.pHostObject = c->hc.host;
	ev.pCounterDataImage = c->data;
	ev.counterDataImageSize = c->data_size;
	ev.rangeIndex = k < 0 ? 0 : (size_t)k;
	ev.ppMetricNames = c->metrics;
	ev.numMetrics = c->n_metrics;
	ev.pMetricValues = values;
	if (k >= 0 && cuptiProfilerHostEvaluateToGpuValues(&ev) == CUPTI_SUCCESS) {
		g.profiled++;
		for (size_t i = 0; emit && i < c->n_metrics; i++)
			emit(ud, g.cur_corr, c->metrics[i], values[i]);
	}
	r = arm(c);
	if (r != CUPTI_SUCCESS)
		set_off("re-arming the range profiler failed: %s", cupti_err(r));
	pthread_mutex_unlock(&g.lock);
}

extern "C" int gs_counters_context(void *ctx)
{
	pthread_mutex_lock(&g.lock);
	int rc = g.ready && !g.off && ctx_state_for((CUcontext)ctx) ? 0 : -1;
	pthread_mutex_unlock(&g.lock);
	return rc;
}

extern "C" void gs_counters_graph_launch(void)
{
	pthread_mutex_lock(&g.lock);
	g.graph_skipped++;
	pthread_mutex_unlock(&g.lock);
}

extern "C" void gs_counters_stats(uint64_t *profiled, uint64_t *graph_skipped, uint32_t *passes)
{
	pthread_mutex_lock(&g.lock);
	*profiled = g.profiled;
	*graph_skipped = g.graph_skipped;
	*passes = g.passes;
	pthread_mutex_unlock(&g.lock);
}

extern "C" const char *gs_counters_status(void)
{
	return g.status;
}

extern "C" const char *gs_counters_dropped(void)
{
	return g.dropped;
}

extern "C" void gs_counters_teardown(void)
{
	pthread_mutex_lock(&g.lock);
	for (size_t i = 0; i < g.n_ctxs; i++) {
		struct ctx_state *c = &g.ctxs[i];
		if (c->rp) {
			CUpti_RangeProfiler_Disable_Params dp = {
			    CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
			dp.pRangeProfilerObject = c->rp;
			cuptiRangeProfilerDisable(&dp);
			c->rp = NULL;
		}
		gs_host_config_release(&c->hc);
	}
	g.ready = 0;
	pthread_mutex_unlock(&g.lock);
}
