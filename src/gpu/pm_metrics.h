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
 * And pm_plan(), the plain-C bookkeeping of the decode loop: which samples
 * of the counter data image are new since the last decode and whether the
 * image must be re-initialised (it holds `capacity` samples).
 */
#ifndef GPUSCOPE_PM_METRICS_H
#define GPUSCOPE_PM_METRICS_H

#include <stddef.h>
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

/* One decode's work: samples [from, to) of the image are new; when reinit
 * is set the image is full (or CUPTI said so) and must be re-initialised
 * after them, and the next decode starts at 0. */
struct pm_plan {
	size_t from, to;
	int reinit;
};

/* emitted: samples of this image already taken; completed: CUPTI's
 * numCompletedSamples; capacity: the image's maxSamples; full: the decode
 * stopped because the image was full. A count going backwards (a
 * re-initialised image nobody told us about) restarts at 0. */
static inline struct pm_plan pm_plan_next(size_t emitted, size_t completed, size_t capacity,
					  int full)
{
	struct pm_plan p = {emitted, completed, 0};
	if (p.to > capacity)
		p.to = capacity;
	if (p.from > p.to)
		p.from = 0;
	p.reinit = full || (capacity > 0 && p.to >= capacity);
	return p;
}

#endif
