/*
 * trace.c - the in-memory trace model: growable arrays, string interning,
 * sorting and the name tables for enums.
 *
 * Interning keeps the strings in one array and an index over it
 * (util/hmap.h), so lookups stay O(1) for millions of names.
 */
#include "trace/trace.h"
#include "util/error.h"
#include "util/idset.h"
#include "util/vec.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void trace_init(struct trace *t)
{
	memset(t, 0, sizeof(*t));
	t->source = TRACE_SRC_RECORD;
	trace_intern(t, ""); /* id 0 */
}

_Static_assert(offsetof(struct trace, source) - offsetof(struct trace, devices) ==
		   TRACE_N_ARRAYS * (sizeof(void *) + 2 * sizeof(size_t)),
	       "TRACE_ARRAYS lists every array of struct trace");

void trace_release(struct trace *t)
{
	for (size_t i = 0; i < t->n_strings; i++)
		free(t->strings[i]);
	free(t->strings);
	hindex_release(&t->intern);
	trace_view_release(t, (1u << TRACE_N_ARRAYS) - 1);
}

int trace_view_alloc(struct trace *v, const struct trace *t, uint32_t had, uint32_t more)
{
#define UNSHARE(name)                                                                              \
	if (more & TRACE_OWN(name))                                                                \
		v->name = NULL;
	TRACE_ARRAYS(UNSHARE)
#undef UNSHARE
#define ALLOC(name)                                                                                \
	if (more & TRACE_OWN(name)) {                                                              \
		v->name = malloc((t->n_##name ? t->n_##name : 1) * sizeof(*t->name));              \
		if (!v->name) {                                                                    \
			trace_view_release(v, had | more);                                         \
			return -1;                                                                 \
		}                                                                                  \
		v->cap_##name = t->n_##name;                                                       \
	}
	TRACE_ARRAYS(ALLOC)
#undef ALLOC
	return 0;
}

int trace_view_copy(struct trace *v, const struct trace *t, uint32_t owned)
{
	*v = *t;
	if (trace_view_alloc(v, t, 0, owned) < 0)
		return -1;
#define COPY(name)                                                                                 \
	if ((owned & TRACE_OWN(name)) && t->n_##name)                                              \
		memcpy(v->name, t->name, t->n_##name * sizeof(*t->name));
	TRACE_ARRAYS(COPY)
#undef COPY
	return 0;
}

void trace_view_release(struct trace *v, uint32_t owned)
{
#define FREE_OWNED(name)                                                                           \
	if (owned & TRACE_OWN(name))                                                               \
		free(v->name);
	TRACE_ARRAYS(FREE_OWNED)
#undef FREE_OWNED
	memset(v, 0, sizeof(*v));
}

#define SAME_HEAD(type, head, f)                                                                   \
	_Static_assert(offsetof(struct type, f) == offsetof(struct head, f), #type "." #f)
#define GPU_HEAD(type)                                                                             \
	SAME_HEAD(type, trace_gpu_head, start_ns);                                                 \
	SAME_HEAD(type, trace_gpu_head, end_ns);                                                   \
	SAME_HEAD(type, trace_gpu_head, pid);                                                      \
	SAME_HEAD(type, trace_gpu_head, device);                                                   \
	SAME_HEAD(type, trace_gpu_head, context);                                                  \
	SAME_HEAD(type, trace_gpu_head, stream);                                                   \
	SAME_HEAD(type, trace_gpu_head, correlation)
GPU_HEAD(trace_kernel);
GPU_HEAD(trace_copy);
GPU_HEAD(trace_memset);
GPU_HEAD(trace_sync);
#define HOST_HEAD(type)                                                                            \
	SAME_HEAD(type, trace_host_head, start_ns);                                                \
	SAME_HEAD(type, trace_host_head, end_ns);                                                  \
	SAME_HEAD(type, trace_host_head, pid);                                                     \
	SAME_HEAD(type, trace_host_head, tid)
HOST_HEAD(trace_api);
HOST_HEAD(trace_range);

int trace_span_check(int64_t *start, int64_t *end)
{
	if (*start < -TRACE_NS_MAX || *start > TRACE_NS_MAX || *end < -TRACE_NS_MAX ||
	    *end > TRACE_NS_MAX)
		return -1;
	if (*end < *start)
		*end = *start;
	return 0;
}

int trace_span_dur(int64_t start, int64_t dur, int64_t *end)
{
	int64_t s = start, e;
	if (__builtin_add_overflow(start, dur > 0 ? dur : 0, &e) || trace_span_check(&s, &e) < 0)
		return -1;
	*end = e;
	return 0;
}

int trace_fill_gpu(void *row, struct trace_gpu_head h)
{
	if (trace_span_check(&h.start_ns, &h.end_ns) < 0)
		return -1;
	/* up to the last field: the struct's tail padding may be a row's next field */
	memcpy(row, &h, offsetof(struct trace_gpu_head, correlation) + sizeof(h.correlation));
	return 0;
}

int trace_fill_host(void *row, struct trace_host_head h)
{
	if (trace_span_check(&h.start_ns, &h.end_ns) < 0)
		return -1;
	memcpy(row, &h, offsetof(struct trace_host_head, tid) + sizeof(h.tid));
	return 0;
}

struct intern_key {
	const struct trace *t;
	const char *s;
	size_t len;
};

static int intern_eq(const void *ctx, uint32_t id)
{
	const struct intern_key *k = ctx;
	const char *c = k->t->strings[id];
	return strncmp(c, k->s, k->len) == 0 && c[k->len] == '\0';
}

uint32_t trace_intern_n(struct trace *t, const char *s, size_t len)
{
	if (!s)
		return 0;
	if (len == 0 && t->n_strings > 0)
		return 0;
	uint64_t h = hash_bytes(s, len);
	struct intern_key key = {t, s, len};
	int64_t found = hindex_find(&t->intern, h, intern_eq, &key);
	if (found >= 0)
		return (uint32_t)found;
	if (t->n_strings >= UINT32_MAX - 1 ||
	    vec_reserve((void **)&t->strings, &t->cap_strings, t->n_strings + 1,
			sizeof(*t->strings)) < 0)
		return UINT32_MAX;
	char *copy = malloc(len + 1);
	if (!copy)
		return UINT32_MAX;
	memcpy(copy, s, len);
	copy[len] = '\0';
	uint32_t id = (uint32_t)t->n_strings;
	if (hindex_add(&t->intern, h, id) < 0) {
		free(copy);
		return UINT32_MAX;
	}
	t->strings[t->n_strings++] = copy;
	return id;
}

uint32_t trace_intern(struct trace *t, const char *s)
{
	return trace_intern_n(t, s, s ? strlen(s) : 0);
}

const char *trace_str(const struct trace *t, uint32_t id)
{
	if (id >= t->n_strings)
		return "";
	return t->strings[id];
}

#define DEFINE_ADD(type, name)                                                                     \
	struct type *trace_add_##name##_(struct trace *t);                                         \
	struct type *trace_add_##name##_(struct trace *t)                                          \
	{                                                                                          \
		return vec_push((void **)&t->name, &t->n_##name, &t->cap_##name,                   \
				sizeof(struct type));                                              \
	}

DEFINE_ADD(trace_device, devices)
DEFINE_ADD(trace_kernel, kernels)
DEFINE_ADD(trace_copy, copies)
DEFINE_ADD(trace_memset, memsets)
DEFINE_ADD(trace_api, apis)
DEFINE_ADD(trace_sync, syncs)
DEFINE_ADD(trace_range, ranges)
DEFINE_ADD(trace_alloc, allocs)
DEFINE_ADD(trace_uvm, uvm)
DEFINE_ADD(trace_sample, samples)
DEFINE_ADD(trace_counter, counters)
DEFINE_ADD(trace_host_frame, host_frames)
DEFINE_ADD(trace_host_stack, host_stacks)
DEFINE_ADD(trace_host_sample, host_samples)
DEFINE_ADD(trace_host_sampling, host_sampling)
DEFINE_ADD(trace_host_sched, host_sched)
DEFINE_ADD(trace_framework, frameworks)
DEFINE_ADD(trace_capture_window, capture_windows)
DEFINE_ADD(trace_process, processes)
DEFINE_ADD(trace_meta_kv, meta)

struct trace_device *trace_add_device(struct trace *t)
{
	return trace_add_devices_(t);
}
struct trace_kernel *trace_add_kernel(struct trace *t)
{
	return trace_add_kernels_(t);
}
struct trace_copy *trace_add_copy(struct trace *t)
{
	return trace_add_copies_(t);
}
struct trace_memset *trace_add_memset(struct trace *t)
{
	return trace_add_memsets_(t);
}
struct trace_api *trace_add_api(struct trace *t)
{
	return trace_add_apis_(t);
}
struct trace_sync *trace_add_sync(struct trace *t)
{
	return trace_add_syncs_(t);
}
struct trace_range *trace_add_range(struct trace *t)
{
	return trace_add_ranges_(t);
}
struct trace_alloc *trace_add_alloc(struct trace *t)
{
	return trace_add_allocs_(t);
}
struct trace_uvm *trace_add_uvm(struct trace *t)
{
	return trace_add_uvm_(t);
}
struct trace_sample *trace_add_sample(struct trace *t)
{
	return trace_add_samples_(t);
}
struct trace_counter *trace_add_counter(struct trace *t)
{
	return trace_add_counters_(t);
}
struct trace_host_frame *trace_add_host_frame(struct trace *t)
{
	return trace_add_host_frames_(t);
}
struct trace_host_stack *trace_add_host_stack(struct trace *t)
{
	return trace_add_host_stacks_(t);
}
struct trace_host_sample *trace_add_host_sample(struct trace *t)
{
	return trace_add_host_samples_(t);
}
struct trace_host_sampling *trace_add_host_sampling(struct trace *t)
{
	return trace_add_host_sampling_(t);
}
struct trace_host_sched *trace_add_host_sched(struct trace *t)
{
	return trace_add_host_sched_(t);
}
struct trace_framework *trace_add_framework(struct trace *t)
{
	return trace_add_frameworks_(t);
}

struct trace_capture_window *trace_add_capture_window(struct trace *t)
{
	return trace_add_capture_windows_(t);
}
struct trace_process *trace_add_process(struct trace *t)
{
	return trace_add_processes_(t);
}

int trace_set_meta(struct trace *t, const char *key, const char *value)
{
	uint32_t k = trace_intern(t, key), v = trace_intern(t, value ? value : "");
	if (k == UINT32_MAX || v == UINT32_MAX)
		return -1;
	for (size_t i = 0; i < t->n_meta; i++) {
		if (t->meta[i].key_id == k) {
			t->meta[i].value_id = v;
			return 0;
		}
	}
	struct trace_meta_kv *kv = trace_add_meta_(t);
	if (!kv)
		return -1;
	kv->key_id = k;
	kv->value_id = v;
	return 0;
}

const char *trace_get_meta(const struct trace *t, const char *key)
{
	for (size_t i = 0; i < t->n_meta; i++)
		if (strcmp(trace_str(t, t->meta[i].key_id), key) == 0)
			return trace_str(t, t->meta[i].value_id);
	return NULL;
}

/* Every event struct starts with int64 start_ns, int64 end_ns. */
static int cmp_span(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;
	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	if (x[1] != y[1])
		return x[1] < y[1] ? -1 : 1;
	return 0;
}

static int cmp_ts(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;
	return x[0] < y[0] ? -1 : x[0] > y[0];
}

#define SORT(arr, n, cmp)                                                                          \
	do {                                                                                       \
		if ((n) > 1)                                                                       \
			qsort(arr, n, sizeof(*(arr)), cmp);                                        \
	} while (0)

void trace_sort(struct trace *t)
{
	SORT(t->kernels, t->n_kernels, cmp_span);
	SORT(t->copies, t->n_copies, cmp_span);
	SORT(t->memsets, t->n_memsets, cmp_span);
	SORT(t->apis, t->n_apis, cmp_span);
	SORT(t->syncs, t->n_syncs, cmp_span);
	SORT(t->ranges, t->n_ranges, cmp_span);
	SORT(t->allocs, t->n_allocs, cmp_ts);
	SORT(t->uvm, t->n_uvm, cmp_span);
	SORT(t->samples, t->n_samples, cmp_ts);
	SORT(t->host_samples, t->n_host_samples, cmp_ts);
	SORT(t->host_sched, t->n_host_sched, cmp_ts);
}

static int has(const char *s, const char *needle)
{
	return strstr(s, needle) != NULL;
}

enum api_kind api_kind_from_name(const char *n)
{
	if (!n)
		return API_OTHER;
	if (has(n, "Synchronize"))
		return API_SYNC;
	if (has(n, "LaunchKernel") || has(n, "LaunchCooperativeKernel") || has(n, "GraphLaunch") ||
	    has(n, "cuLaunch") || has(n, "cudaLaunch"))
		return API_LAUNCH;
	if (has(n, "Memcpy"))
		return API_MEMCPY;
	if (has(n, "Memset"))
		return API_MEMSET;
	if (has(n, "Free"))
		return API_FREE;
	if (has(n, "Malloc") || has(n, "MemAlloc") || has(n, "HostAlloc") || has(n, "MemCreate"))
		return API_ALLOC;
	return API_OTHER;
}

int sync_kind_from_name(const char *s)
{
	if (!s)
		return SYNC_UNKNOWN;
	if (has(s, "Stream Wait Event") || has(s, "StreamWaitEvent"))
		return SYNC_STREAM_WAIT_EVENT;
	if (has(s, "Event Sync") || has(s, "EventSynchronize"))
		return SYNC_EVENT;
	if (has(s, "Stream Sync") || has(s, "StreamSynchronize"))
		return SYNC_STREAM;
	if (has(s, "Context Sync") || has(s, "DeviceSynchronize") || has(s, "CtxSynchronize") ||
	    has(s, "ThreadSynchronize"))
		return SYNC_CONTEXT;
	return SYNC_UNKNOWN;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

long trace_add_api_syncs(struct trace *t)
{
	size_t n = t->n_syncs;
	uint64_t *have = n ? malloc(n * sizeof(*have)) : NULL;
	if (n && !have)
		return -1;
	for (size_t i = 0; i < n; i++)
		have[i] = (uint64_t)t->syncs[i].pid << 32 | t->syncs[i].correlation;
	if (n > 1)
		qsort(have, n, sizeof(*have), cmp_u64);
	long added = 0;
	for (size_t i = 0; i < t->n_apis; i++) {
		const struct trace_api *a = &t->apis[i];
		if (a->kind != API_SYNC)
			continue;
		uint64_t key = (uint64_t)a->pid << 32 | a->correlation;
		if (a->correlation && n && bsearch(&key, have, n, sizeof(*have), cmp_u64))
			continue;
		struct trace_sync *y = trace_add_sync(t);
		if (!y) {
			free(have);
			return -1;
		}
		memset(y, 0, sizeof(*y));
		y->start_ns = a->start_ns;
		y->end_ns = a->end_ns;
		y->pid = a->pid;
		y->correlation = a->correlation;
		y->stream = UINT32_MAX;
		y->kind = (uint8_t)sync_kind_from_name(trace_str(t, a->name_id));
		added++;
	}
	free(have);
	return added;
}

const char *copy_kind_name(int k)
{
	static const char *n[] = {"other", "HtoD", "DtoH", "DtoD", "HtoH", "PtoP"};
	return k >= 0 && k < 6 ? n[k] : "other";
}

const char *mem_kind_name(int k)
{
	static const char *n[] = {"unknown", "pageable", "pinned", "device", "managed", "array"};
	return k >= 0 && k < 6 ? n[k] : "unknown";
}

const char *api_kind_name(int k)
{
	static const char *n[] = {"other", "launch", "memcpy", "memset", "sync", "alloc", "free"};
	return k >= 0 && k < 7 ? n[k] : "other";
}

const char *sync_kind_name(int k)
{
	static const char *n[] = {"unknown", "event", "stream_wait_event", "stream", "context"};
	return k >= 0 && k < 5 ? n[k] : "unknown";
}

const char *range_kind_name(int k)
{
	static const char *n[] = {"nvtx", "cpu_op", "annotation", "python"};
	return k >= 0 && k < 4 ? n[k] : "nvtx";
}

const char *uvm_kind_name(int k)
{
	static const char *n[] = {"unknown",   "htod",	     "dtoh",	   "cpu_fault", "gpu_fault",
				  "thrashing", "throttling", "remote_map", "dtod"};
	return k > 0 && k <= UVM_KIND_MAX ? n[k] : "unknown";
}

/* Every timed event array but the ranges (a view's times are not in
 * their rows: trace_range_span): name, start field, end field. */
#define EVENT_ARRAYS(X)                                                                            \
	X(kernels, start_ns, end_ns)                                                               \
	X(copies, start_ns, end_ns)                                                                \
	X(memsets, start_ns, end_ns)                                                               \
	X(apis, start_ns, end_ns)                                                                  \
	X(syncs, start_ns, end_ns)                                                                 \
	X(allocs, ts_ns, ts_ns)                                                                    \
	X(uvm, start_ns, end_ns)                                                                   \
	X(samples, ts_ns, ts_ns)

size_t trace_long_lower(const struct trace_long_end *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].k < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int64_t trace_range_long_end(const struct trace *t, size_t k)
{
	size_t lo = trace_long_lower(t->range_long, t->n_range_long, k);
	/* always found in a view made right; else its start (an empty range) */
	return lo < t->n_range_long && t->range_long[lo].k == k ? t->range_long[lo].end_ns
								: t->range_start[k];
}

#define FIRST_FROM(fn, arr, field)                                                                 \
	size_t fn(const struct trace *t, int64_t ns)                                               \
	{                                                                                          \
		size_t lo = 0, hi = t->n_##arr;                                                    \
		while (lo < hi) {                                                                  \
			size_t mid = lo + (hi - lo) / 2;                                           \
			if (t->arr[mid].field < ns)                                                \
				lo = mid + 1;                                                      \
			else                                                                       \
				hi = mid;                                                          \
		}                                                                                  \
		return lo;                                                                         \
	}
FIRST_FROM(trace_first_kernel_from, kernels, start_ns)
FIRST_FROM(trace_first_copy_from, copies, start_ns)
FIRST_FROM(trace_first_api_from, apis, start_ns)
FIRST_FROM(trace_first_host_sample_from, host_samples, ts_ns)
#undef FIRST_FROM

int64_t trace_first_ns(const struct trace *t)
{
	int64_t b = INT64_MAX;
#define MIN_OF(arr, s, e)                                                                          \
	for (size_t i = 0; i < t->n_##arr; i++)                                                    \
		if (t->arr[i].s < b)                                                               \
			b = t->arr[i].s;
	EVENT_ARRAYS(MIN_OF)
#undef MIN_OF
	for (size_t i = 0; i < t->n_ranges; i++)
		if (trace_range_start(t, i) < b)
			b = trace_range_start(t, i);
	return b == INT64_MAX ? 0 : b;
}

int64_t trace_first_gpu_ns(const struct trace *t)
{
	int64_t first = INT64_MAX;
	if (t->n_kernels)
		first = t->kernels[0].start_ns;
	if (t->n_copies && t->copies[0].start_ns < first)
		first = t->copies[0].start_ns;
	if (t->n_memsets && t->memsets[0].start_ns < first)
		first = t->memsets[0].start_ns;
	return first;
}

int64_t trace_last_ns(const struct trace *t)
{
	int64_t e = INT64_MIN;
#define MAX_OF(arr, s, en)                                                                         \
	for (size_t i = 0; i < t->n_##arr; i++)                                                    \
		if (t->arr[i].en > e)                                                              \
			e = t->arr[i].en;
	EVENT_ARRAYS(MAX_OF)
#undef MAX_OF
	for (size_t i = 0; i < t->n_ranges; i++)
		if (trace_range_span(t, i).end_ns > e)
			e = trace_range_span(t, i).end_ns;
	return e == INT64_MIN ? 0 : e;
}

/* keeps the elements of array NAME of t for which KEEP(x) holds, in order */
#define TRACE_KEEP(t, name, KEEP)                                                                  \
	do {                                                                                       \
		size_t o_ = 0;                                                                     \
		for (size_t i_ = 0; i_ < (t)->n_##name; i_++) {                                    \
			const __typeof__((t)->name[0]) *x = &(t)->name[i_];                        \
			if (KEEP)                                                                  \
				(t)->name[o_++] = *x;                                              \
		}                                                                                  \
		(t)->n_##name = o_;                                                                \
	} while (0)

int trace_device_pids(const struct trace *t, uint32_t device, uint32_t **pids, size_t *n, char *err)
{
	size_t cap = 0;
	int oom = 0;
	*pids = NULL;
	*n = 0;
	for (size_t i = 0; i < t->n_kernels; i++)
		if (t->kernels[i].device == device)
			oom |= idset_add(pids, n, &cap, t->kernels[i].pid);
	for (size_t i = 0; i < t->n_copies; i++)
		if (t->copies[i].device == device)
			oom |= idset_add(pids, n, &cap, t->copies[i].pid);
	for (size_t i = 0; i < t->n_memsets; i++)
		if (t->memsets[i].device == device)
			oom |= idset_add(pids, n, &cap, t->memsets[i].pid);
	if (oom) {
		free(*pids);
		*pids = NULL;
		return error_set(err, "out of memory");
	}
	if (*n)
		return 0;
	free(*pids);
	*pids = NULL;
	/* name the devices that do have work */
	char list[256] = "";
	size_t at = 0;
	uint32_t seen[16];
	size_t ns = 0;
	for (size_t i = 0; i < t->n_kernels && ns < 16; i++) {
		uint32_t d = t->kernels[i].device;
		if (!idset_has(seen, ns, d)) {
			seen[ns++] = d;
			at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%u",
					       ns > 1 ? ", " : "", d);
			if (at >= sizeof(list))
				break;
		}
	}
	return error_set(err, "no GPU work on device %u (devices with kernels: %s)", device,
			 ns ? list : "none");
}

int trace_keep_device(struct trace *t, uint32_t device, char *err)
{
	uint32_t *pids;
	size_t n;
	if (trace_device_pids(t, device, &pids, &n, err) < 0)
		return -1;
	TRACE_KEEP(t, kernels, x->device == device);
	TRACE_KEEP(t, copies, x->device == device);
	TRACE_KEEP(t, memsets, x->device == device);
	/* a sync waits on its process's work */
	TRACE_KEEP(t, syncs, idset_has(pids, n, x->pid));
	TRACE_KEEP(t, samples, x->device == device);
	TRACE_KEEP(t, allocs, x->device == device);
	/* CPU faults belong to a process, not a device */
	TRACE_KEEP(t, uvm,
		   x->device == device || (x->device == UVM_CPU && idset_has(pids, n, x->pid)));
	/* host side: the processes that put work on the device */
	TRACE_KEEP(t, apis, idset_has(pids, n, x->pid));
	TRACE_KEEP(t, ranges, idset_has(pids, n, x->pid));
	TRACE_KEEP(t, counters, idset_has(pids, n, x->pid));
	TRACE_KEEP(t, host_samples, idset_has(pids, n, x->pid));
	TRACE_KEEP(t, host_sampling, idset_has(pids, n, x->pid));
	TRACE_KEEP(t, host_sched, idset_has(pids, n, x->pid));
	TRACE_KEEP(t, frameworks, idset_has(pids, n, x->pid));
	TRACE_KEEP(t, processes, idset_has(pids, n, x->pid));
	/* rules that read devices[0] (SM count, PCIe link) then see this one */
	size_t nd = t->n_devices;
	TRACE_KEEP(t, devices, x->id == device);
	if (!t->n_devices)
		t->n_devices = nd; /* no properties of it: keep what there is */
	free(pids);
	char v[16];
	snprintf(v, sizeof(v), "%u", device);
	if (trace_set_meta(t, "report_device", v) < 0)
		return error_set(err, "out of memory");
	return 0;
}

long trace_parse_device(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);
	return *s >= '0' && *s <= '9' && !*end && v >= 0 && v <= 1000000 ? v : -1;
}

static const struct {
	const char *name;
	unsigned caps;
} sources[TRACE_SRC_N] = {
    [TRACE_SRC_RECORD] = {"cupti", TRACE_CAP_WHOLE_PROCESS},
    [TRACE_SRC_PYTORCH] = {"pytorch",
			   TRACE_CAP_TORCH_PROGRAM | TRACE_CAP_CPU_OPS | TRACE_CAP_PROFILER_COST},
};

const char *trace_source_name(unsigned source)
{
	return source < TRACE_SRC_N ? sources[source].name : "unknown";
}

unsigned trace_source_caps(unsigned source)
{
	return source < TRACE_SRC_N ? sources[source].caps : 0;
}

int trace_source_parse(const char *name, uint8_t *source)
{
	for (unsigned i = 0; i < TRACE_SRC_N; i++)
		if (strcmp(sources[i].name, name) == 0) {
			*source = (uint8_t)i;
			return 0;
		}
	return -1;
}
