/*
 * pm_metrics.h - the metrics `record --metrics pm` samples with CUPTI's PM
 * sampling (docs/counters.md): single-pass device-wide counters read at a
 * fixed interval (default 1 ms) with no replay, so that a window of time
 * can be attributed to the kernels running in it on long runs. One X-macro
 * list shared by the injected library (which asks CUPTI for the Nsight
 * Compute names, all in one pass on GH100: the toolkit's libcupti counts
 * the passes offline) and analysis/rendering (which read the samples back
 * from the trace's samples table by their trace names, beside GPM's).
 *
 * X(id, trace name, Nsight Compute metric, unit, what it says, the GPM
 *   metric it compares with or "")
 *
 * And the plain-C arithmetic of the injected library's decode loop
 * (src/inject/pmsampling.cpp), kept here so that it is tested: the sizes of
 * the hardware buffer and the counter data image for an interval, what to
 * do after one decode, which clock the windows' timestamps are on, and the
 * counts that say why no window was recorded.
 */
#ifndef GPUSCOPE_PM_METRICS_H
#define GPUSCOPE_PM_METRICS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define GS_PM_METRICS(X)                                                                           \
	X(PM_SM_ACTIVE, "pm_sm_active", "sm__cycles_active.avg.pct_of_peak_sustained_elapsed",     \
	  "%", "SMs with at least one warp resident (PM sampling)", "gpm_sm_util")                 \
	X(PM_WARPS_ACTIVE, "pm_warps_active",                                                      \
	  "sm__warps_active.avg.pct_of_peak_sustained_elapsed", "%",                               \
	  "resident warps against the SMs' maximum (PM sampling)", "gpm_sm_occupancy")             \
	X(PM_DRAM, "pm_dram_throughput", "dram__throughput.avg.pct_of_peak_sustained_elapsed",     \
	  "%", "DRAM throughput against its peak (PM sampling)", "gpm_dram_bw_util")               \
	X(PM_TENSOR, "pm_tensor_active",                                                           \
	  "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed", "%",                  \
	  "tensor pipe active cycles (PM sampling)", "gpm_tensor_util")                            \
	X(PM_GR_ACTIVE, "pm_gr_active", "gr__cycles_active.avg.pct_of_peak_sustained_elapsed",     \
	  "%", "graphics/compute engine busy (PM sampling)", "")

enum gs_pm_metric {
#define GS_PM_ENUM(id, trace, ncu, unit, what, gpm) id,
	GS_PM_METRICS(GS_PM_ENUM)
#undef GS_PM_ENUM
	    PM_COUNT
};

/* The trace name and unit of an id (static storage; "" past the list). */
static inline const char *pm_trace_name(int id)
{
	static const char *const names[] = {
#define GS_PM_TRACE(id, trace, ncu, unit, what, gpm) trace,
	    GS_PM_METRICS(GS_PM_TRACE)
#undef GS_PM_TRACE
	};
	return id >= 0 && id < PM_COUNT ? names[id] : "";
}

static inline const char *pm_unit(int id)
{
	static const char *const units[] = {
#define GS_PM_UNIT(id, trace, ncu, unit, what, gpm) unit,
	    GS_PM_METRICS(GS_PM_UNIT)
#undef GS_PM_UNIT
	};
	return id >= 0 && id < PM_COUNT ? units[id] : "";
}

/* The id of a trace name ("pm_dram_throughput"), -1 when not one of these. */
static inline int pm_metric_by_trace_name(const char *name)
{
	for (int i = 0; name && i < PM_COUNT; i++)
		if (strcmp(pm_trace_name(i), name) == 0)
			return i;
	return -1;
}

/* ---- the decode loop (src/inject/pmsampling.cpp) ----
 *
 * CUPTI's documented use (the CUPTI guide's PM sampling section and its
 * pm_sampling sample): each pass decodes the hardware buffer into a freshly
 * initialised counter data image, evaluates samples [0, numCompletedSamples)
 * and initialises the image again; a decode that stopped because the image
 * was full is followed by another at once. Invariants:
 *  1. The image holds a whole pass with room to spare (2.5 times the
 *     windows of a decode period, plus 64): a decode that fills the image
 *     loses windows (measured with CUDA 13.3 on an H100 by others; a guess
 *     for the H200 until its log says otherwise).
 *  2. The hardware buffer holds PM_HW_SECONDS of windows at
 *     PM_HW_WINDOW_BYTES each (measured elsewhere: 4-7 KB with 1-4
 *     metrics; ours are 5), so that a late decode does not overflow it.
 *  3. No image holds more than PM_IMAGE_MAX windows (about 16 KB each):
 *     at short intervals the decode period shrinks instead.
 */
#define PM_DECODE_NS 50000000ull /* a decode pass every 50 ms */
#define PM_DECODE_MIN_NS 1000000ull
#define PM_IMAGE_MAX 16384u
#define PM_IMAGE_SPARE 64u
#define PM_HW_WINDOW_BYTES (16u << 10)
#define PM_HW_SECONDS 2u
#define PM_HW_MIN_BYTES (8u << 20)
#define PM_HW_MAX_BYTES (256u << 20)

struct pm_sizes {
	uint64_t decode_ns;	/* the decode passes' period */
	uint32_t image_windows; /* the counter data image's maxSamples */
	size_t hw_bytes;	/* SetConfig's hardwareBufferSize, whole MiB */
};

/* The sizes for a window of interval_ns (> 0). */
static inline struct pm_sizes pm_sizes_for(uint64_t interval_ns)
{
	struct pm_sizes z;
	uint64_t iv = interval_ns ? interval_ns : 1;
	/* windows per pass * 5 / 2 <= PM_IMAGE_MAX - PM_IMAGE_SPARE */
	uint64_t most = (uint64_t)(PM_IMAGE_MAX - PM_IMAGE_SPARE) * 2 / 5 * iv;
	z.decode_ns = PM_DECODE_NS < most ? PM_DECODE_NS : most;
	if (z.decode_ns < PM_DECODE_MIN_NS)
		z.decode_ns = PM_DECODE_MIN_NS;
	uint64_t w = (z.decode_ns * 5 / 2 + iv - 1) / iv + PM_IMAGE_SPARE;
	z.image_windows = w < PM_IMAGE_MAX ? (uint32_t)w : PM_IMAGE_MAX;
	uint64_t hw = (uint64_t)PM_HW_SECONDS * 1000000000ull / iv * PM_HW_WINDOW_BYTES;
	if (hw < PM_HW_MIN_BYTES)
		hw = PM_HW_MIN_BYTES;
	if (hw > PM_HW_MAX_BYTES)
		hw = PM_HW_MAX_BYTES;
	z.hw_bytes = (size_t)((hw + (1u << 20) - 1) & ~(uint64_t)((1u << 20) - 1));
	return z;
}

/* What to do after one cuptiPmSamplingDecodeData: evaluate samples
 * [0, take), initialise the image again when it holds anything, and decode
 * again at once when it was full (and yielded windows: no endless loop). */
struct pm_step {
	size_t take;
	int reinit, again;
};

/* completed, populated: GetCounterDataInfo's numCompletedSamples and
 * numPopulatedSamples; capacity: the image's maxSamples; full: the decode
 * stopped with CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL. */
static inline struct pm_step pm_after_decode(size_t completed, size_t populated, size_t capacity,
					     int full)
{
	struct pm_step s;
	s.take = completed < capacity ? completed : capacity;
	s.reinit = completed > 0 || populated > 0 || full;
	s.again = full && s.take > 0;
	return s;
}

/* The clocks a window's timestamps may be on. The CUPTI guide calls them
 * "CPU based time stamps" without naming the clock; the trace is on
 * CUPTI's (cuptiGetTimestamp). Which one it is, is a guess to be checked on
 * the H200 (GPUSCOPE_DEBUG=1 prints the first window against each). */
enum pm_clock { PM_CLOCK_CUPTI, PM_CLOCK_REALTIME, PM_CLOCK_MONOTONIC, PM_CLOCKS };

/* now[c] at most this far before a window's end, or this far after it */
#define PM_CLOCK_AHEAD_NS 1000000000ll
#define PM_CLOCK_BEHIND_NS 30000000000ll

/* The clock ts (a window's end, just decoded) was most likely taken on:
 * the one whose now[] (read after the decode) lies nearest it, within
 * PM_CLOCK_AHEAD_NS before and PM_CLOCK_BEHIND_NS after; CUPTI's on a tie;
 * -1 when none does (a now[] <= 0 is unknown). */
static inline int pm_clock_pick(uint64_t ts, const int64_t now[PM_CLOCKS])
{
	int best = -1;
	int64_t best_d = 0;
	for (int c = 0; c < PM_CLOCKS; c++) {
		int64_t d = now[c] - (int64_t)ts;
		if (now[c] <= 0 || ts > (uint64_t)INT64_MAX || d < -PM_CLOCK_AHEAD_NS ||
		    d > PM_CLOCK_BEHIND_NS)
			continue;
		int64_t a = d < 0 ? -d : d;
		if (best < 0 || a < best_d) {
			best = c;
			best_d = a;
		}
	}
	return best;
}

static inline const char *pm_clock_name(int c)
{
	static const char *const names[PM_CLOCKS] = {"CUPTI's clock", "CLOCK_REALTIME",
						     "CLOCK_MONOTONIC"};
	return c >= 0 && c < PM_CLOCKS ? names[c] : "an unknown clock";
}

/* How far the sampling thread got. */
enum pm_stage { PM_STAGE_WAIT, PM_STAGE_SETUP, PM_STAGE_SAMPLING, PM_STAGE_DONE };

/* What the sampling thread did, for the status and the log. */
struct pm_counts {
	uint32_t devices;   /* devices sampling started on */
	int stage;	    /* enum pm_stage */
	uint64_t passes;    /* decode passes over all devices */
	uint64_t decodes;   /* cuptiPmSamplingDecodeData calls that succeeded */
	uint64_t completed; /* samples they completed */
	uint64_t windows;   /* windows recorded (at least one value written) */
	uint64_t empty;	    /* completed samples that covered no time */
	uint64_t refused;   /* completed samples GetSampleInfo or Evaluate refused */
	uint64_t overflows; /* hardware-buffer overflows */
	uint64_t off_clock; /* windows written on an unknown clock (not moved) */
};

/* "2 device(s), 61 passes, ..." into buf (n > 0). */
static inline void pm_counts_line(char *buf, size_t n, const struct pm_counts *c)
{
	snprintf(buf, n,
		 "%u device(s), %llu decode passes, %llu decodes, %llu samples completed, %llu "
		 "windows recorded, %llu covering no time, %llu refused, %llu overflows",
		 c->devices, (unsigned long long)c->passes, (unsigned long long)c->decodes,
		 (unsigned long long)c->completed, (unsigned long long)c->windows,
		 (unsigned long long)c->empty, (unsigned long long)c->refused,
		 (unsigned long long)c->overflows);
}

/* Why no window was recorded, when nothing stopped PM sampling (a CUPTI
 * call that failed says so itself), into buf (n > 0). */
static inline void pm_explain_none(char *buf, size_t n, const struct pm_counts *c)
{
	const char *why =
	    c->stage == PM_STAGE_WAIT	 ? "the program ended before PM sampling saw a CUDA context"
	    : c->stage == PM_STAGE_SETUP ? "the program ended while PM sampling was being set up"
	    : !c->devices		 ? "no device was sampled"
	    : !c->decodes		 ? "no decode returned"
	    : !c->completed		 ? "the decodes completed no sample"
					 : "no completed sample gave a value";
	char line[320];
	pm_counts_line(line, sizeof(line), c);
	snprintf(buf, n, "PM sampling: no window recorded: %s (%s)", why, line);
}

#endif
