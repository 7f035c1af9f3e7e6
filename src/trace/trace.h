/*
 * trace.h - the in-memory trace model shared by every reader and writer.
 *
 * A `struct trace` holds one recorded run: devices, kernels, copies, memsets,
 * API calls, synchronizations, NVTX/CPU ranges, allocations, unified-memory
 * events, time-series samples, counters, processes and interned strings. It is what the trace
 * database loads into (trace_db_load), what the PyTorch importer produces,
 * and what analysis reads. All timestamps are nanoseconds on one clock
 * (the recording host's CLOCK_REALTIME unless meta.clock_domain says
 * otherwise); `end_ns >= start_ns` is an invariant the loaders enforce.
 *
 * Invariants:
 *  1. Every `*_id` naming a string is an index into `strings` (0 = "").
 *  2. Arrays are owned by the trace; trace_release() frees them all (a
 *     view owns only the arrays it names: trace_view_copy).
 *  3. Nothing here is sorted unless trace_sort() was called; after it,
 *     every event array is ordered by start_ns.
 */
#ifndef GPUSCOPE_TRACE_H
#define GPUSCOPE_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "util/hmap.h"

/* Memory kinds, as CUPTI_ACTIVITY_MEMORY_KIND_* collapses them. */
enum mem_kind {
	MEM_UNKNOWN = 0,
	MEM_PAGEABLE = 1,
	MEM_PINNED = 2,
	MEM_DEVICE = 3,
	MEM_MANAGED = 4,
	MEM_ARRAY = 5,
};

/* Copy directions. */
enum copy_kind {
	COPY_OTHER = 0,
	COPY_HTOD = 1,
	COPY_DTOH = 2,
	COPY_DTOD = 3,
	COPY_HTOH = 4,
	COPY_PTOP = 5,
};

/* What an API call is, for analysis (derived from its name on load). */
enum api_kind {
	API_OTHER = 0,
	API_LAUNCH = 1, /* cudaLaunchKernel, cuLaunchKernel, graph launches */
	API_MEMCPY = 2, /* synchronous or async copies */
	API_MEMSET = 3,
	API_SYNC = 4, /* device/stream/event synchronize, blocking waits */
	API_ALLOC = 5,
	API_FREE = 6,
};

enum api_domain {
	DOMAIN_RUNTIME = 0,
	DOMAIN_DRIVER = 1,
};

enum range_kind {
	RANGE_NVTX = 0,	      /* NVTX push/pop or start/end */
	RANGE_CPU_OP = 1,     /* PyTorch cpu_op */
	RANGE_ANNOTATION = 2, /* PyTorch user_annotation / record_function */
	RANGE_PYTHON = 3,     /* PyTorch python_function */
};

enum sync_kind {
	SYNC_UNKNOWN = 0,
	SYNC_EVENT = 1,
	SYNC_STREAM_WAIT_EVENT = 2,
	SYNC_STREAM = 3,
	SYNC_CONTEXT = 4, /* cudaDeviceSynchronize / cuCtxSynchronize */
};

struct trace_device {
	uint32_t id;
	uint32_t name_id;
	uint32_t cc_major, cc_minor;
	uint32_t sm_count;
	uint64_t mem_bytes;
	uint64_t mem_bandwidth_bps; /* bytes/s, 0 = unknown */
	uint32_t max_threads_per_sm;
	uint32_t max_blocks_per_sm;
	uint32_t regs_per_sm;
	uint32_t smem_per_sm;	     /* bytes */
	uint32_t max_smem_per_block; /* bytes, opt-in maximum */
	uint32_t warp_size;
	uint32_t pcie_gen, pcie_width; /* 0 = unknown */
};

struct trace_kernel {
	int64_t start_ns, end_ns;
	uint32_t pid, device, context, stream;
	uint32_t correlation;
	uint32_t name_id;
	uint32_t grid[3], block[3];
	uint32_t regs;	      /* registers per thread, 0 = unknown */
	uint32_t static_smem; /* bytes */
	uint32_t dyn_smem;    /* bytes */
	uint32_t graph_id;    /* 0 = not launched from a graph */
};

struct trace_copy {
	int64_t start_ns, end_ns;
	uint32_t pid, device, context, stream;
	uint32_t correlation;
	uint8_t kind;		    /* enum copy_kind */
	uint8_t src_kind, dst_kind; /* enum mem_kind */
	uint64_t bytes;
	uint32_t graph_id;
};

struct trace_memset {
	int64_t start_ns, end_ns;
	uint32_t pid, device, context, stream;
	uint32_t correlation;
	uint8_t mem_kind;
	uint64_t bytes;
	uint32_t value;
};

struct trace_api {
	int64_t start_ns, end_ns;
	uint32_t pid, tid;
	uint32_t correlation;
	uint32_t name_id;
	uint8_t domain; /* enum api_domain */
	uint8_t kind;	/* enum api_kind, derived from the name */
	int32_t ret;	/* CUDA result code */
};

struct trace_sync {
	int64_t start_ns, end_ns;
	uint32_t pid, device, context, stream;
	uint32_t correlation;
	uint8_t kind; /* enum sync_kind */
};

struct trace_range {
	int64_t start_ns, end_ns;
	uint32_t pid, tid;
	uint32_t name_id;
	uint32_t domain_id; /* NVTX domain name, 0 = default */
	uint8_t kind;	    /* enum range_kind */
	uint32_t depth;	    /* nesting depth on its thread, 0 = outermost */
};

struct trace_alloc {
	int64_t ts_ns;
	uint32_t pid, device;
	uint64_t address;
	int64_t bytes; /* > 0 allocation, < 0 free */
	uint8_t mem_kind;
};

/* Unified (managed) memory events, as CUPTI's unified-memory counters give
 * them (CUpti_ActivityUnifiedMemoryCounterKind: the same numbers). */
enum uvm_kind {
	UVM_HTOD = 1,	    /* bytes migrated host to device */
	UVM_DTOH = 2,	    /* bytes migrated device to host */
	UVM_CPU_FAULT = 3,  /* one CPU page fault (an instant) */
	UVM_GPU_FAULT = 4,  /* a GPU fault group the driver serviced */
	UVM_THRASHING = 5,  /* a region processors keep taking from each other (an instant) */
	UVM_THROTTLING = 6, /* the driver held a processor's faults back */
	UVM_REMOTE_MAP = 7, /* a region mapped remotely instead of migrated (an instant) */
	UVM_DTOD = 8,	    /* bytes migrated device to device */
	UVM_KIND_MAX = 8
};

/* Why a migration happened (flags of UVM_HTOD / UVM_DTOH / UVM_DTOD rows,
 * CUpti_ActivityUnifiedMemoryMigrationCause); for UVM_GPU_FAULT and
 * UVM_CPU_FAULT rows the flags are the access (1 read, 2 write, 3 atomic,
 * 4 prefetch), for UVM_REMOTE_MAP the remote-map cause, for thrashing and
 * throttling CUPTI's activity flags. */
enum uvm_cause {
	UVM_CAUSE_UNKNOWN = 0,
	UVM_CAUSE_USER = 1,	 /* the program asked: cudaMemPrefetchAsync */
	UVM_CAUSE_COHERENCE = 2, /* a page fault (Pascal and later) */
	UVM_CAUSE_PREFETCH = 3,	 /* the driver's own prefetch around a fault */
	UVM_CAUSE_EVICTION = 4,	 /* evicted to make room on the GPU */
	UVM_CAUSE_ACCESS_COUNTERS = 5,
};

/* The CPU as a processor of a unified-memory event (src, dst, device). */
#define UVM_CPU UINT32_MAX

/* One unified-memory event. Instants (CPU faults, thrashing, remote maps)
 * have end_ns == start_ns. */
struct trace_uvm {
	int64_t start_ns, end_ns;
	uint32_t pid;
	/* the GPU it concerns: a migration's GPU end (HtoD: dst, DtoH: src,
	 * DtoD: dst), a GPU fault's or throttling's processor; UVM_CPU for CPU
	 * faults (and events no GPU is named in) */
	uint32_t device;
	uint32_t src, dst; /* processors as CUPTI names them (UVM_CPU: the CPU) */
	uint64_t value;	   /* bytes (migrations, thrashing, remote maps), fault groups (GPU
			      faults), the faulting instruction's address (CPU faults) */
	uint64_t address;  /* the first virtual address concerned */
	uint32_t flags;	   /* by kind: enum uvm_cause (migrations), the access (faults) */
	uint8_t kind;	   /* enum uvm_kind */
};

/* One time-series sample of one metric on one device (NVML/GPM). */
struct trace_sample {
	int64_t ts_ns;
	uint32_t device;
	uint32_t metric_id; /* string id of the metric name, see docs/trace-format.md */
	double value;
};

/* One counter value measured for one kernel (by correlation id). */
struct trace_counter {
	uint32_t pid;
	uint32_t correlation;
	uint32_t metric_id;
	double value;
};

/* Host stacks sampled by record (docs/host-sampling.md): frames, stacks as
 * a prefix tree of frames (a stack is its innermost node), and samples that
 * point at a stack. Ids are 1-based; stack 0 is the empty stack, a parent
 * of 0 the root. */
enum host_frame_kind {
	HOST_FRAME_UNKNOWN = 0, /* an address no mapping covers */
	HOST_FRAME_NATIVE = 1,	/* a function of an ELF file (name "" if it has no symbol) */
	HOST_FRAME_PYTHON = 2,	/* a Python function (code object or perf trampoline) */
	HOST_FRAME_JIT = 3,	/* another perf map entry */
};

struct trace_host_frame {
	uint32_t id;
	uint8_t kind;	    /* enum host_frame_kind */
	uint32_t name_id;   /* function (Python: qualified name from 3.11) */
	uint32_t module_id; /* ELF path; Python: "" */
	uint32_t file_id;   /* Python: source file */
	uint32_t line;	    /* Python: first line of the function; native: 0 */
};

struct trace_host_stack {
	uint32_t id;
	uint32_t parent_id; /* the caller's node, 0 = outermost */
	uint32_t frame_id;
};

enum host_sample_source {
	HOST_SRC_PERF = 1,   /* perf_event_open task clock: on-CPU time, native + Python */
	HOST_SRC_PYREAD = 2, /* the CPython reader: wall clock, Python frames, any state */
};

struct trace_host_sample {
	int64_t ts_ns;
	uint32_t pid, tid;
	uint32_t stack_id;
	uint32_t weight_ns; /* the time this sample stands for (the sampling period) */
	uint8_t source;	    /* enum host_sample_source */
};

/* How a process was sampled, or why it was not (status). */
struct trace_host_sampling {
	uint32_t pid;
	uint32_t mechanism_id; /* "perf", "pyread", "perf+pyread", "" when off */
	double hz;
	uint64_t samples, lost;
	uint64_t cost_ns;   /* the launcher's time spent sampling this process */
	uint32_t status_id; /* "" when sampled as asked, else why not (refusals: #17.6) */
};

/* One thread's scheduler statistics as the kernel keeps them
 * (/proc/PID/task/TID/schedstat), read while recording (v4,
 * docs/host-sampling.md): cumulative since the thread began, a row when
 * they changed since the last read. */
struct trace_host_sched {
	int64_t ts_ns;
	uint32_t pid, tid;
	uint64_t cpu_ns;  /* time on a CPU */
	uint64_t wait_ns; /* time runnable, waiting on a run queue for a CPU */
	uint64_t slices;  /* times it was put on a CPU */
};

/* A GPU-relevant library a process loaded (src/hostsample/frameworks.h). */
struct trace_framework {
	uint32_t pid;
	uint32_t name_id;    /* "PyTorch", "cuBLAS", ... */
	uint32_t version_id; /* "" when unknown */
	uint32_t source_id;  /* where the version came from: "dist-info", "file name", ... */
	uint32_t path_id;    /* the mapped file that showed it */
};

/* record --capture-range/--delay/--duration (trace/capture.h): one span of
 * time that was kept; everything else the program did is not in the trace */
struct trace_capture_window {
	int64_t start_ns, end_ns;
	uint32_t pid;	    /* the process whose call or range opened it, 0 = by time */
	uint32_t opened_id; /* what opened it: "cudaProfilerStart", "nvtx:NAME", "delay" */
	uint32_t closed_id; /* what closed it: "cudaProfilerStop", "range end", "duration", */
			    /* "program end" */
	uint64_t kernels;   /* kernels launched inside it (kept) */
};

struct trace_process {
	uint32_t pid;
	uint32_t parent_pid;
	uint32_t cmdline_id;
	int64_t start_ns, end_ns;
	uint64_t dropped_records; /* CUPTI records lost, as CUPTI reported */
	uint64_t overhead_ns;	  /* time gpuscope spent in buffer handling */
	uint32_t status_id;	  /* "" when traced, else why not (string) */
};

/* Times every reader accepts: |t| <= TRACE_NS_MAX ns (2^62, the year 2116),
 * so that the difference of any two times fits an int64_t and no span
 * arithmetic overflows (issue #21 item 5). */
#define TRACE_NS_MAX ((int64_t)1 << 62)

/* The leading fields of every GPU row (trace_kernel, trace_copy,
 * trace_memset, trace_sync) and of every host row (trace_api, trace_range):
 * what the one "fill a trace row" helper of all readers sets. */
struct trace_gpu_head {
	int64_t start_ns, end_ns;
	uint32_t pid, device, context, stream, correlation;
};
struct trace_host_head {
	int64_t start_ns, end_ns;
	uint32_t pid, tid;
};

#define TRACE_ARRAY(type, name)                                                                    \
	struct type *name;                                                                         \
	size_t n_##name, cap_##name

struct trace_meta_kv {
	uint32_t key_id, value_id;
};

struct trace {
	/* interned strings; strings[0] is "" */
	char **strings;
	size_t n_strings, cap_strings;
	struct hindex intern; /* string -> id (trace.c) */

	TRACE_ARRAY(trace_device, devices);
	TRACE_ARRAY(trace_kernel, kernels);
	TRACE_ARRAY(trace_copy, copies);
	TRACE_ARRAY(trace_memset, memsets);
	TRACE_ARRAY(trace_api, apis);
	TRACE_ARRAY(trace_sync, syncs);
	TRACE_ARRAY(trace_range, ranges);
	TRACE_ARRAY(trace_alloc, allocs);
	TRACE_ARRAY(trace_uvm, uvm); /* v5 */
	TRACE_ARRAY(trace_sample, samples);
	TRACE_ARRAY(trace_counter, counters);
	TRACE_ARRAY(trace_host_frame, host_frames);
	TRACE_ARRAY(trace_host_stack, host_stacks);
	TRACE_ARRAY(trace_host_sample, host_samples);
	TRACE_ARRAY(trace_host_sampling, host_sampling);
	TRACE_ARRAY(trace_host_sched, host_sched);
	TRACE_ARRAY(trace_framework, frameworks);
	TRACE_ARRAY(trace_capture_window, capture_windows);
	TRACE_ARRAY(trace_process, processes);
	TRACE_ARRAY(trace_meta_kv, meta);

	uint8_t source; /* enum trace_source: where the events came from */

	/* A view whose ranges are its trace's rows with times of its own
	 * (analyze/unprofile.c: 88 MiB of rows not copied for 2.3M ranges):
	 * range i is ranges[range_order[k]], k = range_first + i, starting at
	 * range_start[k] and lasting range_len[k] ns, or, when that is
	 * TRACE_LEN_LONG, ending at the end_ns range_long gives for k (sorted
	 * by k); n_ranges counts them, a slice moves range_first. The view's
	 * maker owns the arrays. NULL in a trace, which is every other case:
	 * where a view may be given, read ranges through trace_range_at,
	 * trace_range_span, trace_range_start or trace_range_row (below),
	 * never ranges[i] (test_unprofile reports each fixture's view and a
	 * copy of it: a reader of ranges[i] makes them differ). */
	const uint32_t *range_order;
	const int64_t *range_start;
	const uint32_t *range_len;
	const struct trace_long_end *range_long;
	size_t n_range_long, range_first;
};

/* A row's times (a view's own, above). */
struct trace_span {
	int64_t start_ns, end_ns;
};

/* a view's range lasting 2^32 - 1 ns or more: where it ends */
#define TRACE_LEN_LONG UINT32_MAX
struct trace_long_end {
	size_t k;
	int64_t end_ns;
};

/* The first of v[0..n) (sorted by k) whose k is k or more; n when none. */
size_t trace_long_lower(const struct trace_long_end *v, size_t n, size_t k);
/* The end of a view's long range k (range_long searched). */
int64_t trace_range_long_end(const struct trace *t, size_t k) __attribute__((pure));

/* Range i's start alone. */
static inline int64_t trace_range_start(const struct trace *t, size_t i)
{
	return t->range_order ? t->range_start[t->range_first + i] : t->ranges[i].start_ns;
}

/* Range i's times alone. */
static inline struct trace_span trace_range_span(const struct trace *t, size_t i)
{
	if (!t->range_order)
		return (struct trace_span){t->ranges[i].start_ns, t->ranges[i].end_ns};
	size_t k = t->range_first + i;
	int64_t s = t->range_start[k];
	uint32_t len = t->range_len[k];
	return (struct trace_span){s, len != TRACE_LEN_LONG ? s + (int64_t)len
							    : trace_range_long_end(t, k)};
}

/* The row of range i: its fields but its times, which in a view are
 * trace_range_span's (the row keeps t's, as recorded). For the readers of
 * names, kinds and threads: no copy, no times made. */
static inline const struct trace_range *trace_range_row(const struct trace *t, size_t i)
{
	return &t->ranges[t->range_order ? t->range_order[t->range_first + i] : i];
}

/* Range i of t (by value: in a view its times are not in the row). */
static inline struct trace_range trace_range_at(const struct trace *t, size_t i)
{
	if (!t->range_order)
		return t->ranges[i];
	struct trace_range r = t->ranges[t->range_order[t->range_first + i]];
	struct trace_span sp = trace_range_span(t, i);
	r.start_ns = sp.start_ns;
	r.end_ns = sp.end_ns;
	return r;
}

void trace_init(struct trace *t);
void trace_release(struct trace *t);

/* Every array of struct trace, in member order (trace.c checks the count). */
#define TRACE_ARRAYS(X)                                                                            \
	X(devices)                                                                                 \
	X(kernels)                                                                                 \
	X(copies)                                                                                  \
	X(memsets)                                                                                 \
	X(apis)                                                                                    \
	X(syncs)                                                                                   \
	X(ranges)                                                                                  \
	X(allocs)                                                                                  \
	X(uvm)                                                                                     \
	X(samples)                                                                                 \
	X(counters)                                                                                \
	X(host_frames)                                                                             \
	X(host_stacks)                                                                             \
	X(host_samples)                                                                            \
	X(host_sampling)                                                                           \
	X(host_sched)                                                                              \
	X(frameworks)                                                                              \
	X(capture_windows)                                                                         \
	X(processes)                                                                               \
	X(meta)

enum trace_array_id {
#define TRACE_ARRAY_ID(name) TRACE_ARRAY_##name,
	TRACE_ARRAYS(TRACE_ARRAY_ID)
#undef TRACE_ARRAY_ID
	    TRACE_N_ARRAYS
};

/* A view is a struct trace that shares another trace's strings and some of
 * its arrays and owns the rest (analyze/: a device's part of a trace, the
 * trace without the profiler's cost). Which arrays it owns is a set of
 * these bits, the same set for making and for releasing it. */
#define TRACE_OWN(name) (1u << TRACE_ARRAY_##name)

/* *v = t, sharing everything but the arrays in `owned`, which are copied
 * (capacity = length). 0, or -1 when out of memory (v then released). */
int trace_view_copy(struct trace *v, const struct trace *t, uint32_t owned);
/* For a view v of t that owns the arrays in `had`: those in `more` become
 * its own too, of t's lengths, their rows unwritten (the caller writes
 * every one; a view made in steps holds only what each step needs). 0, or
 * -1 when out of memory (v then released, had | more). */
int trace_view_alloc(struct trace *v, const struct trace *t, uint32_t had, uint32_t more);
/* Frees the arrays in `owned` (what the view made) and zeroes v; never the
 * strings or the arrays it shares. */
void trace_view_release(struct trace *v, uint32_t owned);

/* Clamps *end to >= *start; 0, or -1 when either time is beyond
 * TRACE_NS_MAX (the times are then left as they were). */
int trace_span_check(int64_t *start, int64_t *end);
/* start + dur (dur < 0 counts as 0) into *end, checked as above. */
int trace_span_dur(int64_t start, int64_t dur, int64_t *end);
/* Fills the leading fields of a GPU row (struct trace_kernel, trace_copy,
 * trace_memset or trace_sync) from h, its span checked and clamped by
 * trace_span_check; 0, or -1 (row untouched) when a time is out of range. */
int trace_fill_gpu(void *row, struct trace_gpu_head h);
/* The same for a host row (struct trace_api or trace_range). */
int trace_fill_host(void *row, struct trace_host_head h);

/* Interns `s` (copied) and returns its id; 0 for NULL or "". Returns
 * UINT32_MAX only when out of memory. */
uint32_t trace_intern(struct trace *t, const char *s);
uint32_t trace_intern_n(struct trace *t, const char *s, size_t len);
/* The string for `id`; "" for an id out of range (never NULL). */
const char *trace_str(const struct trace *t, uint32_t id);

/* Appends one zeroed element and returns it, or NULL when out of memory. */
struct trace_device *trace_add_device(struct trace *t);
struct trace_kernel *trace_add_kernel(struct trace *t);
struct trace_copy *trace_add_copy(struct trace *t);
struct trace_memset *trace_add_memset(struct trace *t);
struct trace_api *trace_add_api(struct trace *t);
struct trace_sync *trace_add_sync(struct trace *t);
struct trace_range *trace_add_range(struct trace *t);
struct trace_alloc *trace_add_alloc(struct trace *t);
struct trace_uvm *trace_add_uvm(struct trace *t);
struct trace_sample *trace_add_sample(struct trace *t);
struct trace_counter *trace_add_counter(struct trace *t);
struct trace_host_frame *trace_add_host_frame(struct trace *t);
struct trace_host_stack *trace_add_host_stack(struct trace *t);
struct trace_host_sample *trace_add_host_sample(struct trace *t);
struct trace_host_sampling *trace_add_host_sampling(struct trace *t);
struct trace_host_sched *trace_add_host_sched(struct trace *t);
struct trace_framework *trace_add_framework(struct trace *t);
struct trace_capture_window *trace_add_capture_window(struct trace *t);
struct trace_process *trace_add_process(struct trace *t);

/* Sets (or replaces) a meta key. Returns 0 or -1 when out of memory. */
int trace_set_meta(struct trace *t, const char *key, const char *value);
/* The meta value for `key`, or NULL when absent. */
const char *trace_get_meta(const struct trace *t, const char *key);

/* Where a trace's events came from. The database stores it by name
 * (meta "source"); what it implies is asked through its capability bits,
 * never by comparing names. A new source is one line here and one in
 * trace.c's table. */
enum trace_source {
	TRACE_SRC_RECORD,  /* "cupti": gpuscope record (CUPTI in the process) */
	TRACE_SRC_PYTORCH, /* "pytorch": torch.profiler's trace (kineto) */
	TRACE_SRC_N,
};
/* the traced program is a PyTorch (so Python) program */
#define TRACE_CAP_TORCH_PROGRAM 1u
/* framework ops are recorded beside CUDA calls: ops and no CUDA call at
 * all are a profile of the CPU only */
#define TRACE_CAP_CPU_OPS 2u
/* the profiler's own cost lands on the host side of every op it records */
#define TRACE_CAP_PROFILER_COST 4u
/* the whole process is recorded from its start (a warm-up to cut) */
#define TRACE_CAP_WHOLE_PROCESS 8u

const char *trace_source_name(unsigned source);
unsigned trace_source_caps(unsigned source);
/* The source named name into *source: 0, or -1 when no source has it. */
int trace_source_parse(const char *name, uint8_t *source);

/* The processes that put work (kernels, copies, memsets) on device: 0
 * with *pids (freed by the caller) and *n > 0, or -1 with err when out of
 * memory or when the device has no GPU work (naming the devices that do). */
int trace_device_pids(const struct trace *t, uint32_t device, uint32_t **pids, size_t *n,
		      char *err);
/* Keeps what concerns one device: its kernels, copies, memsets, samples and
 * unified-memory events, the host side (API calls, syncs, ranges, counters,
 * CPU faults, process rows) of the processes that put work on it, and its properties; sets meta
 * "report_device". -1 with err when the device has no GPU work. */
int trace_keep_device(struct trace *t, uint32_t device, char *err);
/* A --device argument: a decimal device number; -1 when s is not one. */
long trace_parse_device(const char *s);

/* The first row starting at or after ns (its index; n when none), in an
 * array sorted by start (trace_sort): kernels, copies, API calls, host
 * samples. */
size_t trace_first_kernel_from(const struct trace *t, int64_t ns);
size_t trace_first_copy_from(const struct trace *t, int64_t ns);
size_t trace_first_api_from(const struct trace *t, int64_t ns);
size_t trace_first_host_sample_from(const struct trace *t, int64_t ns);

/* The earliest timestamp of any event (0 for an empty trace). */
int64_t trace_first_ns(const struct trace *t);
/* The start of the first GPU work (kernel, copy, memset) of a trace whose
 * arrays are sorted by start; INT64_MAX when it has none. */
int64_t trace_first_gpu_ns(const struct trace *t);
/* The latest end (or timestamp) of any event (0 for an empty trace). */
int64_t trace_last_ns(const struct trace *t);

/* Sorts every event array by start time (stable on ties by end time). */
void trace_sort(struct trace *t);

/* Classifies an API function name ("cudaLaunchKernel", "cuMemcpyHtoD_v2",
 * "cudaStreamSynchronize", ...) into an enum api_kind. */
enum api_kind api_kind_from_name(const char *name);

/* The enum sync_kind of a synchronizing call or CUPTI sync record name
 * ("cudaStreamSynchronize", "cuCtxSynchronize", "Event Sync", ...). */
int sync_kind_from_name(const char *name);

/* Adds a sync row for each synchronizing API call (kind API_SYNC) that has
 * none of its own (a sync row with the same pid and correlation): record
 * leaves CUPTI's synchronization records off by default (docs/record.md)
 * and takes them from the API calls. The row's stream is UINT32_MAX
 * (unknown), its device and context 0. Returns the rows added, or -1 when
 * out of memory (the trace is then unchanged past the rows added). */
long trace_add_api_syncs(struct trace *t);

/* For a recording with per-kernel counters (record --metrics kernels):
 * shrinks each profiled launch call to its kernel's measured duration, puts
 * the kernel (recorded without timestamps under replay) inside it, moves
 * later events earlier by the time removed and drops samples taken during
 * a replay (replay.c). *removed_ns, *placed and *left_out (kernels without
 * timestamps that were not profiled) say what changed. 0, or -1 when out
 * of memory (the trace may then be half mapped). Needs a sorted trace. */
int trace_remove_replay(struct trace *t, int64_t *removed_ns, uint64_t *placed, uint64_t *left_out);

/* Names for enums, for rendering and CSV ("HtoD", "pageable", ...). */
const char *copy_kind_name(int kind);
const char *mem_kind_name(int kind);
const char *api_kind_name(int kind);
const char *sync_kind_name(int kind);
const char *range_kind_name(int kind);
/* "htod", "dtoh", "cpu_fault", "gpu_fault", "thrashing", "throttling",
 * "remote_map", "dtod"; "unknown" otherwise */
const char *uvm_kind_name(int kind);

#endif
