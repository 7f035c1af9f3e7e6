/*
 * analysis.h - what `gpuscope report` computes from a trace: where the time
 * went (span, GPU busy as interval unions, time by category, idle-gap
 * breakdown) and why (launch, kernel, copy, sync, NVTX, sample and process
 * statistics), then the findings the rules derive from it (rules.c).
 *
 * Invariants:
 *  1. analysis_run needs a sorted trace (trace_sort); it never modifies it.
 *  2. Every *_ns quantity is a union on the timeline unless it says _sum.
 *  3. Percentages are of span_ns (the analysed wall time) unless named.
 *  4. Memory is a few arrays sized by event counts; nothing per event.
 */
#ifndef GPUSCOPE_ANALYSIS_H
#define GPUSCOPE_ANALYSIS_H

#include <stdint.h>

#include "analyze/calls.h"
#include "analyze/comm.h"
#include "analyze/contention.h"
#include "analyze/families.h"
#include "analyze/hostidle.h"
#include "analyze/hostwait.h"
#include "analyze/hostside.h"
#include "analyze/kcounters.h"
#include "analyze/memory.h"
#include "analyze/ops.h"
#include "analyze/phases.h"
#include "analyze/program.h"
#include "analyze/series.h"
#include "trace/cuda_errors.h"
#include "report/finding.h" /* the findings an analysis carries (scripts/include-graph.sh) */
#include "gpu/pm_metrics.h"
#include "trace/trace.h"

struct rm_line; /* report/report.h: the warnings, as lines of the report */

/* Nothing to diagnose, and why (diagnose/nowork.c decides). */
enum an_nowork {
	NW_NONE = 0,	/* enough GPU work: the rules run */
	NW_NO_GPU_WORK, /* a recording or trace without GPU work */
	NW_TOO_LITTLE,	/* under TH_MIN_GPU_WORK_NS of it */
	NW_OTHER_ACCEL, /* a profile of another accelerator (nowork_accel) */
	NW_CPU_ONLY,	/* a PyTorch profile of the CPU only */
};

struct an_interval {
	int64_t start, end;
};

struct an_device {
	uint32_t id;
	uint32_t sm_count;
	int64_t busy_ns; /* union of kernels, copies, memsets on this device */
	int64_t kernel_ns;
};

struct an_stream {
	uint32_t device, stream;
	int64_t busy_ns;
	uint64_t ops;
};

/* Idle time of the GPU (gaps of the union of all GPU work in the span). */
struct an_idle {
	int64_t total_ns;
	int64_t launch_ns;   /* a launch in flight / work queued, or a short gap */
	int64_t sync_ns;     /* a sync call spans it (plus the relaunch after it) */
	int64_t copy_ns;     /* a memcpy/memset call is in flight */
	int64_t api_ns;	     /* another CUDA call (alloc, free, module load) in flight */
	int64_t dispatch_ns; /* host between CUDA calls, stretches < TH_HOST_WORK_NS */
	int64_t host_ns;     /* host work outside CUDA (longer stretches) */
	int64_t jit_ns;	     /* host_ns of JIT compilations in the window (phases.c) */
	uint64_t gaps;
	uint64_t gaps_ge_500ms; /* Nsight gpu_gaps */
	int64_t longest_gap_ns;
};

struct an_launch {
	uint64_t launches;  /* launch API calls */
	int64_t api_sum_ns; /* time inside launch calls */
	int64_t api_median_ns;
	uint64_t correlated;			/* launches whose GPU work was found */
	int64_t delay_mean_ns, delay_median_ns; /* kernel start - launch end */
	double queue_depth_mean;		/* ops in flight at each launch */
	double queue_empty_share;		/* launches finding nothing queued */
	uint64_t short_kernels;			/* < TH_SHORT_KERNEL_NS */
	int64_t short_kernel_sum_ns;
	/* launches of kernels of at least TH_BLOCKING_KERNEL_NS, and of those
	 * the calls that returned only once their kernel had ended (every one
	 * of them does under CUDA_LAUNCH_BLOCKING=1) */
	uint64_t long_launches, long_waited;
};

#define AN_MAX_CONFIGS 4

struct an_kernel_group {
	uint32_t name_id;
	uint64_t count;
	int64_t sum_ns, min_ns, max_ns, median_ns;
	/* the launch configuration (grid, block, registers, shared memory)
	 * holding the most of the group's time (issue #36 item 7: not the first
	 * launch's), and how many distinct ones its launches had (capped at
	 * AN_MAX_CONFIGS + 1: "more") with the share of time in the one shown */
	uint32_t grid[3], block[3];
	uint32_t configs;
	double config_share;
	uint32_t regs, smem;
	long long grid_blocks;
	int block_threads;
	double occupancy; /* 0..1; < 0 unknown */
	const char *limiter;
	double waves; /* 0 unknown */
	int blocks_per_sm;
	uint32_t device;
	int tuned;	  /* a library GEMM/attention/conv kernel (low occupancy by design) */
	double share_pct; /* of summed kernel time */
	uint8_t family;	  /* enum kfam (program.c) */
	uint8_t owner;	  /* enum kown */
};

struct an_copy_group {
	uint8_t kind, src_kind, dst_kind;
	uint64_t count, bytes;
	int64_t sum_ns;
	double gbps;
};

struct an_copy_stats {
	uint64_t count, bytes, pageable_bytes, pageable_count;
	int64_t sum_ns, union_ns;
	int64_t not_overlapped_ns; /* copy time with no kernel running */
	double overlap_pct;	   /* of copy union time overlapped by kernels */
	double htod_gbps, dtoh_gbps, link_gbps;
	int64_t htod_ns, dtoh_ns; /* summed HtoD / DtoH copy time: 0, the rate is unknown */
};

struct an_sync_stats {
	uint64_t count;
	int64_t sum_ns;
	int64_t idle_after_ns; /* GPU idle in [sync start, next GPU work) */
	uint64_t readbacks;    /* device-to-host copies the host waited for (idle.c) */
	/* sync points (blocking calls' ends, read-backs) with a kernel started
	 * since the one before: a burst with no kernel between its syncs (a
	 * torch.save copying tensor after tensor) counts once (idle.c) */
	uint64_t spread;
	/* blocking calls whose thread's call just before was a host-to-device
	 * copy's: the host waits for its own upload (a pageable, synchronous
	 * tensor.to("cuda") is a copy and a stream synchronize), not for a
	 * read-back (idle.c) */
	uint64_t after_htod;
	uint64_t by_kind[5];
};

struct an_range_group {
	uint32_t name_id;
	uint8_t kind;
	uint64_t count, gpu_ops;
	int64_t cpu_sum_ns, gpu_sum_ns;
};

/* Means of sampled metrics; valid = the metric was sampled. A GPM value is
 * an average over its sample window; mean_busy rescales it to the busy part
 * of the window (gpm.c), so it reads as "while kernels ran". */
struct an_metric {
	const char *name;
	int valid;
	uint64_t n, n_busy; /* n_busy: windows mostly busy */
	double mean, mean_busy;
	double busy_frac_high; /* of busy time in windows >= TH_SOL_HIGH_PCT */
	double busy_frac_low;  /* of busy time in windows < TH_SOL_LOW_PCT */
};

/* GPM speed-of-light classes of the busy time (Nsight Compute SpeedOfLight
 * on GPM windows): shares of the busy time in sampled windows. */
struct an_sol {
	int valid;	     /* DRAM and a compute pipe were sampled */
	int64_t lag_ns;	     /* sample clock shift found by alignment (gpm.c) */
	double lag_corr;     /* correlation of SM activity with busy at lag_ns */
	int64_t sampled_ns;  /* busy time inside usable windows */
	double mem, compute; /* the higher roof >= TH_SOL_LOW_PCT */
	double latency;	     /* both < TH_SOL_LOW_PCT */
	double mixed;	     /* windows no kernel family dominates: no class (families.c) */
	double dram, pipe;   /* busy-weighted means: DRAM %, max(fp32, tensor) % */
};

/* A profiled trace's verdict estimated without the profiler's own host
 * cost (diagnose/unprofiled.c, issue #36 item 8): the trace's own figures
 * beside the estimate's. */
struct an_unprof {
	int nested;  /* this analysis is such an estimate: it makes none of its own */
	int ran;     /* estimated: a trace with the profiler's cost and a host-side primary */
	int changed; /* the estimate's primary differs from the trace's: it is the primary */
	uint64_t events;
	int64_t per_event_ns, removed_ns;
	double busy_pct, traced_busy_pct; /* GPU busy, estimated and as traced */
	char traced_primary[32];	  /* the trace's own primary */
	double traced_impact_pct;	  /* its impact as traced */
	double estimated_impact_pct;	  /* the same id's impact in the estimate (0: none) */
	struct an_unprof_ahead *ahead;	  /* private: the estimate made ahead (unprofiled.c) */
	const int *cancel; /* private: an estimate made ahead stops between two passes once
			    *cancel (read atomically) is nonzero (an_run_passes_with) */
};

enum an_metric_id {
	AM_GPU_UTIL,
	AM_SM,
	AM_OCC,
	AM_DRAM,
	AM_TENSOR,
	AM_FP32,
	AM_POWER,
	AM_TEMP,
	AM_SM_CLOCK,
	AM_COUNT
};

struct an_chunk {
	int64_t start, end;
	double busy_pct;
	double sm, dram, tensor; /* GPM means, < 0 when not sampled */
};

struct an_process {
	uint32_t pid, parent_pid; /* parent_pid: 0 when unknown (not in the processes table) */
	uint32_t cmdline_id, status_id;
	uint64_t kernels, copies, apis, dropped_records;
	int64_t kernel_sum_ns, overhead_ns;
};

struct analysis {
	const struct trace *t;
	const char *source;
	int64_t start_ns, end_ns, span_ns;    /* the analysed window: first to last GPU work */
	int64_t trace_start_ns, trace_end_ns; /* everything recorded */
	int64_t startup_ns, teardown_ns;      /* before the first / after the last GPU work */
	/* of [start_ns, end_ns], the time outside record's capture windows
	 * (trace/capture.h): not recorded, so left out of span_ns and idle */
	int64_t uncaptured_ns;
	int64_t warmup_ns;   /* warm-up left out before the analysed trace (analysis_run_opts) */
	int64_t cooldown_ns; /* a final phase with new kernels left out after it */
	uint64_t profiler_steps; /* the window is these ProfilerStep# ranges (0: not) */
	/* the same kernels were compiled again after the warm-up the window
	 * would have left out: no steady state, the window is the whole run
	 * (issue #36 item 2) */
	int recompiling;
	int64_t busy_ns;				   /* union of all GPU work */
	int64_t kernel_ns, copy_ns, memset_ns;		   /* unions */
	int64_t kernel_sum_ns, copy_sum_ns, memset_sum_ns; /* sums */
	int64_t copy_kind_ns[6];			   /* union per direction */
	uint64_t n_kernels, n_copies, n_memsets, n_apis;

	struct an_device *devices;
	size_t n_devices;
	struct an_stream *streams;
	size_t n_streams;
	struct an_interval *busy; /* union of all GPU work, sorted, disjoint */
	size_t n_busy;
	int64_t *busy_cum; /* busy_cum[i]: busy time of busy[0..i) */

	struct an_idle idle;
	struct an_launch launch;
	struct an_kernel_group *kgroups; /* by sum_ns descending */
	size_t n_kgroups;
	struct an_copy_group *cgroups;
	size_t n_cgroups;
	struct an_copy_stats copy;
	struct an_sync_stats sync;
	struct an_range_group *ranges; /* by gpu_sum_ns descending */
	size_t n_ranges;
	struct an_metric metrics[AM_COUNT];
	/* record --metrics pm's windows (pm.c): mean_busy is the mean of the
	 * windows the GPU was busy for at least half of */
	struct an_metric pm[PM_COUNT];
	struct an_sol sol;
	int lag_hint_set; /* private: sample clock shift found on the whole trace */
	int64_t lag_hint_ns;
	double lag_hint_corr;
	struct an_chunk chunks[30];
	int n_chunks;
	int low_chunks; /* chunks < TH_UTIL_CHUNK_LOW_PCT busy */
	struct an_process *processes;
	size_t n_processes;
	uint64_t dropped_records;
	int64_t overhead_ns;
	int64_t process_ns; /* the traced processes' lifetimes, summed (0: unknown) */

	/* kernel-shape shares of span (for rules), in ns of kernel time */
	int64_t small_grid_ns;	     /* kernels with grid < SMs */
	double small_grid_waste_ns;  /* sum dur * (1 - grid/SMs) */
	int64_t low_occ_ns;	     /* kernels with occupancy < TH_OCCUPANCY */
	double low_occ_gain_ns;	     /* sum dur * estimated gain, capped */
	double low_occ_gain_full_ns; /* the same uncapped: latency-bound kernels */
	double tail_waste_ns;	     /* sum dur * partial last wave share */
	int64_t short_floor_ns;	     /* short kernels: sum min(dur, TH_KERNEL_FLOOR_NS) */

	struct kc_table kc;	     /* per-kernel hardware counters (kcounters.h), empty without */
	struct an_series series;     /* what the report's pictures draw (series.h) */
	struct an_program prog;	     /* what kind of program it is (program.h) */
	struct an_ops ops;	     /* PyTorch op attribution (ops.h) */
	struct an_memory mem;	     /* device memory (memory.h) */
	struct an_calls calls;	     /* the idle inside other CUDA calls, by call (calls.h) */
	struct an_phases phases;     /* JIT compilations, phases (phases.h) */
	struct an_hostidle hostidle; /* host samples in GPU-idle time (hostidle.h) */
	struct an_hostwait hostwait; /* what each thread ran in each idle class (hostwait.h) */
	struct an_contention
	    contention; /* the launching thread's waits on its host (contention.h) */
	/* per gap (indexed like busy, n_busy + 1), the share of its host work
	 * and then of its dispatch time idle.c charged to the sync before it */
	float *gap_sync_frac;
	struct an_hostside hostside; /* input pipeline or host overhead (hostside.h) */
	struct an_families fam;	     /* busy time and verdicts by kernel family (families.h) */
	/* the whole trace's failed CUDA calls and host-free races, for the
	 * warnings (trace/cuda_errors.h): a read of every call, made a pass so
	 * that it runs beside the others, not on the report's serial tail */
	struct cuda_failures fail;
	/* the whole trace when the analysis covers a slice of it (warm-up cut,
	 * range); NULL: t is the whole trace */
	const struct trace *whole;

	struct finding_list findings;
	const struct finding *primary;
	struct an_unprof unprof; /* the verdict without the profiler's cost (issue #36 item 8) */

	enum an_nowork nowork;	  /* nothing to diagnose, and why (nowork.h) */
	const char *nowork_accel; /* the other accelerator ("MTIA"), "" */
	/* what a reader must not miss about the data (dropped records,
	 * gpuscope's overhead, processes not traced, no GPU work): warnings.c */
	struct rm_line *warnings;
	size_t n_warnings;

	/* the NVTX range name the span is bounded by ("" = whole trace) */
	char range[128];
	struct trace view; /* private: the slice of the trace a range selects */

	/* private: correlation -> GPU op (timeline.c) */
	uint32_t *corr_dir; /* direct table when one pid and ids are dense */
	size_t corr_dir_n;
	uint64_t *corr_keys; /* else open addressing, key = pid<<32|corr, +1 */
	uint32_t *corr_vals;
	size_t corr_cap;
	/* or, one pid with sparse ids: the ops by id >> corr_shift (buckets
	 * corr_ix[b] .. corr_ix[b + 1] of corr_ids/corr_vals, in put order) */
	uint32_t *corr_ix, *corr_ids;
	size_t corr_ix_n;
	unsigned corr_shift;
	uint32_t corr_pid;
};

/* What to analyse (report's and diff's options). */
struct analysis_opts {
	const char *range; /* bound the span by the NVTX/annotation ranges so named; NULL: none */
	int whole;	   /* 1: from the first event (no warm-up cut) */
	long long device;  /* one device: its work and the processes that launched it; -1: all */
};

/* The result of a run: `all` is the run as a whole (one device, or the
 * devices together: their union for the tables, their findings, each
 * marked with its device); dev[] one analysis per device when the run has
 * several (devices.c). */
struct analysis_result {
	struct analysis all;
	struct analysis *dev; /* by device order of all.devices; NULL with one device */
	size_t n_dev;
	long long device;	/* opts.device */
	struct comm_stats comm; /* across ranks (comm.h): n 0 without communication */
	struct trace *views;	/* private: each device's part of the trace */
	size_t n_views;
};

/* Loads a trace by content (any reader of import/load.h) into t
 * (initialised here, like trace_db_load) and sorts it, ready for
 * analysis_run. Returns 0, or -1 with a message in err and t empty. */
int analysis_load(struct trace *t, const char *path, char *err);
/* The same with the reader's options (import/kineto.h: its progress). */
struct kineto_options;
int analysis_load_opt(struct trace *t, const char *path, const struct kineto_options *ko,
		      char *err);
/* The traces of one job (job.c): one file as analysis_load, several files
 * or a directory loaded in parallel (jobs at a time, 0: the cores) and
 * merged into one (trace/merge.h), sorted. 0, or -1 with err. */
int analysis_load_job(struct trace *t, const char *const *paths, size_t n, int jobs, char *err);
/* 1 when paths are one job's traces (several, or a directory), else 0. */
int analysis_is_job(const char *const *paths, size_t n);
/* Orders every event array by start as trace_sort does, sorting only the
 * arrays that are not ordered yet (a loaded database usually is). */
void analysis_sort(struct trace *t);

/* Percent of the span, 0 when the span is empty. */
double an_pct(const struct analysis *a, double ns);

/* GPU busy time of the union in [t0, t1). */
int64_t an_busy_between(const struct analysis *a, int64_t t0, int64_t t1);

/* The host work inside the intervals v[0..n) (sorted by start, disjoint)
 * as the idle breakdown counts it: in *host its "host work outside CUDA"
 * (idle.host_ns), in *synced what it charged to the sync before (part of
 * idle.sync_ns: the overlap a blocking sync prevents). What a finding that
 * explains those stretches of host time takes from host_overhead and
 * sync_stall. 0, or -1 when out of memory. */
int an_host_idle_within(const struct analysis *a, const struct an_interval *v, size_t n,
			int64_t *host, int64_t *synced);

#endif
