/*
 * rules_uvm.c - unified_memory (issue #36 item 3): kernels stall on page
 * faults and migrations of managed memory (cudaMallocManaged and the
 * allocators over it), from CUPTI's unified-memory counters (record's
 * "uvm" kind, the trace's uvm rows).
 *
 * The stall is what the driver's own records cover: a GPU fault group from
 * the moment the driver starts servicing it until it queues the faulting
 * accesses' replay, a migration it made on demand (any cause but the
 * program's cudaMemPrefetchAsync: a fault, its own prefetch around one, an
 * eviction) and a throttling of the device. Their union on the device,
 * intersected with its kernels, is the kernel time spent with faults
 * outstanding (the kernels named are those it overlaps most); intersected
 * with the GPU's idle time, the time the GPU waited while pages moved (the
 * host's accesses pulling them back, the driver's migrations between
 * kernels), and the host's CPU-fault stretches (fault_stretches): a host
 * that touches pages the GPU holds spends them faulting the pages back
 * while the GPU, waiting for the host, idles. The impact is both: an upper
 * bound on what prefetching or
 * device buffers win back, since the bytes still move, at the link's bulk
 * rate and off the kernels' path.
 *
 * Side: host (rules.h). The finding is about the timeline (the GPU waits
 * for pages), so in the primary's refinement it counts with the findings
 * that feed the GPU, ahead of the kernels' own (the stalled kernels read
 * as latency-bound in the GPM windows).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/program.h"
#include "diagnose/rules_int.h"
#include "trace/spool.h"
#include "util/demangle.h"
#include "util/error.h"
#include "util/hmap.h"
#include "util/i18n.h"
#include "util/sort.h"
#include "util/vec.h"

#define MIB (1024.0 * 1024.0)

/* per kernel name: its time in the window and the part with faults */
struct kstall {
	uint32_t name_id;
	int64_t ns, stalled_ns;
};

struct uvm_stats {
	int64_t kernel_stall_ns; /* kernel time (union) with faults outstanding */
	int64_t idle_ns;	 /* GPU idle with on-demand migrations in flight, or
				    the host faulting pages back */
	int64_t host_fault_ns;	 /* GPU idle in the host's CPU-fault stretches */
	uint64_t gpu_faults, cpu_faults, thrashing, throttling, remote_maps;
	double htod_bytes, dtoh_bytes, dtod_bytes, on_demand_bytes, prefetch_bytes, evicted_bytes;
	double dtoh_host_bytes; /* device to host on the host's access (its faults and the
				   driver's prefetch around them) */
	int64_t htod_ns, dtoh_ns, on_demand_ns;
	struct kstall *k; /* by stalled_ns, descending */
	size_t n_k, cap_k;
};

static int cmp_iv(const void *x, const void *y)
{
	const struct an_interval *a = x, *b = y;
	return a->start < b->start ? -1 : a->start > b->start;
}

static int cmp_stall(const void *x, const void *y)
{
	const struct kstall *a = x, *b = y;
	if (a->stalled_ns != b->stalled_ns)
		return a->stalled_ns > b->stalled_ns ? -1 : 1;
	return a->name_id < b->name_id ? -1 : a->name_id > b->name_id;
}

/* Sorts and merges v[0..n) in place; returns the merged count. */
static size_t merge(struct an_interval *v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_iv);
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (m && v[i].start <= v[m - 1].end) {
			if (v[i].end > v[m - 1].end)
				v[m - 1].end = v[i].end;
			continue;
		}
		v[m++] = v[i];
	}
	return m;
}

/* |[s, e) ∩ the merged, sorted intervals v| */
static int64_t overlap(const struct an_interval *v, size_t n, int64_t s, int64_t e)
{
	size_t lo = 0, hi = n;
	while (lo < hi) { /* the first interval ending after s */
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].end <= s)
			lo = mid + 1;
		else
			hi = mid;
	}
	int64_t sum = 0;
	for (size_t i = lo; i < n && v[i].start < e; i++) {
		int64_t a = v[i].start > s ? v[i].start : s, b = v[i].end < e ? v[i].end : e;
		if (b > a)
			sum += b - a;
	}
	return sum;
}

/* The host's CPU-fault stretches in the analysed window: its CPU page
 * faults (instants: CUPTI stamps when the driver starts on each), chained
 * while each follows the last within TH_UVM_FAULT_CHAIN_NS, from the first
 * of a chain to its last. A host touching managed pages that sit on the
 * GPU spends such a stretch in the fault handler and the migrations back,
 * not in its own work: managed_faults' host loop (H100, 2026-12-07) was
 * 93.5 of a 96.6 ms gap, 766 faults 82 us apart at the median. A lone
 * fault is no stretch. *v a fresh array (NULL when none), freed by the
 * caller; 0, or -1 when out of memory. */
static int fault_stretches(const struct analysis *a, struct an_interval **v, size_t *n)
{
	const struct trace *t = a->t;
	*v = NULL;
	*n = 0;
	size_t nf = 0, cap = 0;
	int64_t *ts = NULL;
	for (size_t i = 0; i < t->n_uvm; i++) {
		const struct trace_uvm *u = &t->uvm[i];
		if (u->kind != UVM_CPU_FAULT || u->start_ns < a->start_ns ||
		    u->start_ns > a->end_ns)
			continue;
		int64_t *x = VEC_PUSH(ts, nf, cap);
		if (!x) {
			free(ts);
			return -1;
		}
		*x = u->start_ns;
	}
	if (nf < 2) {
		free(ts);
		return 0;
	}
	qsort(ts, nf, sizeof(*ts), sort_cmp_i64);
	struct an_interval *out = malloc(nf / 2 * sizeof(*out));
	if (!out) {
		free(ts);
		return -1;
	}
	size_t m = 0;
	for (size_t i = 0, j; i < nf; i = j) {
		for (j = i + 1; j < nf && ts[j] - ts[j - 1] <= TH_UVM_FAULT_CHAIN_NS; j++)
			;
		if (j - i >= 2)
			out[m++] = (struct an_interval){ts[i], ts[j - 1]};
	}
	free(ts);
	if (!m) {
		free(out);
		return 0;
	}
	*v = out;
	*n = m;
	return 0;
}

/* GPU idle time inside the merged, sorted intervals v */
static int64_t idle_in(const struct analysis *a, const struct an_interval *v, size_t n)
{
	int64_t ns = 0;
	for (size_t i = 0; i < n; i++)
		ns += v[i].end - v[i].start - overlap(a->busy, a->n_busy, v[i].start, v[i].end);
	return ns;
}

int rule_uvm_host_ns(struct rule_ctx *c, int64_t *host, int64_t *synced)
{
	const struct analysis *a = c->a;
	*host = *synced = 0;
	if (!a->t->n_uvm)
		return 0;
	if (!c->uvm_host_done) { /* host_overhead and sync_stall both ask */
		struct an_interval *v;
		size_t n;
		if (fault_stretches(a, &v, &n) < 0)
			return -1;
		int rc = an_host_idle_within(a, v, n, &c->uvm_host_ns, &c->uvm_synced_ns);
		/* unified_memory fires on it alone from this share on: below
		 * it, the time stays host_overhead's and sync_stall's, so that
		 * no finding drops it */
		if (rc == 0 && an_pct(a, (double)idle_in(a, v, n)) < TH_MIN_IMPACT_PCT)
			c->uvm_host_ns = c->uvm_synced_ns = 0;
		free(v);
		if (rc < 0)
			return -1;
		c->uvm_host_done = 1;
	}
	*host = c->uvm_host_ns;
	*synced = c->uvm_synced_ns;
	return 0;
}

/* A migration the program did not ask for (cudaMemPrefetchAsync's are
 * UVM_CAUSE_USER). */
static int on_demand(const struct trace_uvm *u)
{
	return (u->kind == UVM_HTOD || u->kind == UVM_DTOH || u->kind == UVM_DTOD) &&
	       u->flags != UVM_CAUSE_USER;
}

/* The analysis's device: its one device, UVM_CPU (any GPU) when it has
 * none or several. */
static uint32_t the_device(const struct analysis *a)
{
	return a->t->n_devices == 1 ? a->t->devices[0].id : UVM_CPU;
}

static void count(struct uvm_stats *st, const struct trace_uvm *u)
{
	int64_t d = u->end_ns - u->start_ns;
	double b = (double)u->value;
	switch (u->kind) {
	case UVM_HTOD:
		st->htod_bytes += b;
		st->htod_ns += d;
		break;
	case UVM_DTOH:
		st->dtoh_bytes += b;
		st->dtoh_ns += d;
		/* the host's faults and the driver's prefetch around them
		 * (managed_faults, H100: 27 MiB on faults, 2.3 GB around them) */
		if (u->flags == UVM_CAUSE_COHERENCE || u->flags == UVM_CAUSE_PREFETCH)
			st->dtoh_host_bytes += b;
		break;
	case UVM_DTOD:
		st->dtod_bytes += b;
		break;
	case UVM_GPU_FAULT:
		st->gpu_faults++;
		break;
	case UVM_CPU_FAULT:
		st->cpu_faults++;
		break;
	case UVM_THRASHING:
		st->thrashing++;
		break;
	case UVM_THROTTLING:
		st->throttling++;
		break;
	case UVM_REMOTE_MAP:
		st->remote_maps++;
		break;
	default:
		break;
	}
	if (u->kind == UVM_HTOD || u->kind == UVM_DTOH || u->kind == UVM_DTOD) {
		if (!on_demand(u)) {
			st->prefetch_bytes += b;
		} else {
			st->on_demand_bytes += b;
			st->on_demand_ns += d;
		}
		if (u->flags == UVM_CAUSE_EVICTION)
			st->evicted_bytes += b;
	}
}

/* Each kernel's time and stalled time, by name (in st->k, sorted). */
static int per_kernel(const struct analysis *a, const struct an_interval *s, size_t ns,
		      struct uvm_stats *st)
{
	struct u64map at;
	if (u64map_init(&at, 64) < 0)
		return -1;
	const struct trace *t = a->t;
	int rc = 0;
	for (size_t i = 0; i < t->n_kernels && rc == 0; i++) {
		const struct trace_kernel *k = &t->kernels[i];
		int64_t b = k->start_ns > a->start_ns ? k->start_ns : a->start_ns;
		int64_t e = k->end_ns < a->end_ns ? k->end_ns : a->end_ns;
		if (e <= b)
			continue;
		uint64_t v;
		struct kstall *x;
		if (u64map_get(&at, k->name_id, &v)) {
			x = &st->k[v];
		} else if (!(x = VEC_PUSH(st->k, st->n_k, st->cap_k)) ||
			   u64map_put(&at, k->name_id, st->n_k - 1) < 0) {
			rc = -1;
			break;
		} else {
			*x = (struct kstall){k->name_id, 0, 0};
		}
		x->ns += e - b;
		x->stalled_ns += overlap(s, ns, b, e);
	}
	u64map_release(&at);
	if (rc == 0 && st->n_k > 1)
		qsort(st->k, st->n_k, sizeof(*st->k), cmp_stall);
	return rc;
}

/* The unified-memory figures of the analysed window; 0, or -1 when out of
 * memory. */
static int uvm_stats(const struct analysis *a, struct uvm_stats *st)
{
	memset(st, 0, sizeof(*st));
	const struct trace *t = a->t;
	uint32_t dev = the_device(a);
	struct an_interval *s = malloc((t->n_uvm ? t->n_uvm : 1) * sizeof(*s));
	if (!s)
		return -1;
	size_t n = 0;
	for (size_t i = 0; i < t->n_uvm; i++) {
		const struct trace_uvm *u = &t->uvm[i];
		if (u->end_ns < a->start_ns || u->start_ns > a->end_ns)
			continue;
		if (u->device != UVM_CPU && dev != UVM_CPU && u->device != dev)
			continue;
		count(st, u);
		/* what holds the device back: a fault being serviced, a
		 * migration made on demand, the driver throttling it */
		if (u->device == UVM_CPU ||
		    !(u->kind == UVM_GPU_FAULT || u->kind == UVM_THROTTLING || on_demand(u)))
			continue;
		int64_t b = u->start_ns > a->start_ns ? u->start_ns : a->start_ns;
		int64_t e = u->end_ns < a->end_ns ? u->end_ns : a->end_ns;
		if (e > b)
			s[n++] = (struct an_interval){b, e};
	}
	n = merge(s, n);
	/* the kernels' union: the stalled kernel time is counted once when
	 * kernels run side by side */
	struct an_interval *k = malloc((t->n_kernels ? t->n_kernels : 1) * sizeof(*k));
	if (!k) {
		free(s);
		return -1;
	}
	size_t nk = 0;
	for (size_t i = 0; i < t->n_kernels; i++) {
		int64_t b =
		    t->kernels[i].start_ns > a->start_ns ? t->kernels[i].start_ns : a->start_ns;
		int64_t e = t->kernels[i].end_ns < a->end_ns ? t->kernels[i].end_ns : a->end_ns;
		if (e > b)
			k[nk++] = (struct an_interval){b, e};
	}
	nk = merge(k, nk);
	for (size_t i = 0; i < n; i++)
		st->kernel_stall_ns += overlap(k, nk, s[i].start, s[i].end);
	free(k);
	int rc = per_kernel(a, s, n, st);
	/* GPU idle: the stall's time, and the host's fault stretches, outside
	 * the busy union of all GPU work (counted once where they meet) */
	struct an_interval *cs = NULL;
	size_t ncs = 0;
	if (rc == 0)
		rc = fault_stretches(a, &cs, &ncs);
	struct an_interval *all = rc == 0 ? realloc(s, (n + ncs ? n + ncs : 1) * sizeof(*s)) : NULL;
	if (!all) {
		free(cs);
		free(s);
		return -1;
	}
	s = all;
	st->host_fault_ns = idle_in(a, cs, ncs);
	if (ncs)
		memcpy(s + n, cs, ncs * sizeof(*s));
	st->idle_ns = idle_in(a, s, merge(s, n + ncs));
	free(cs);
	free(s);
	return rc;
}

static void host_pulls(struct finding *f, const struct uvm_stats *st)
{
	finding_action(f,
		       N_("the host's own accesses pull %.0f MiB back to the CPU while the GPU "
			  "waits (%llu CPU page faults): let the host work on its own copy, or "
			  "prefetch to the host first"),
		       st->dtoh_host_bytes / MIB, (unsigned long long)st->cpu_faults);
}

/* The actions, in the program's terms (its framework), most effective
 * first; the program's own prefetches already seen change the first one. */
static void advise(struct finding *f, const struct analysis *a, const struct uvm_stats *st)
{
	const char *already =
	    st->prefetch_bytes > 0 ? N_("the program prefetches some already; ") : "";
	/* the host pulling pages back holds the GPU longer than the kernels'
	 * faults (cupy_managed --fixed: it prefetches to the GPU, and its
	 * host's writes fault every page back, H100): that first */
	int host_first = st->host_fault_ns > st->kernel_stall_ns &&
			 an_pct(a, (double)st->idle_ns) >= TH_MIN_IMPACT_PCT &&
			 st->dtoh_host_bytes > 0;
	if (host_first)
		host_pulls(f, st);
	switch (a->prog.kind) {
	case PK_CUPY:
		finding_action(f,
			       N_("%sprefetch the managed arrays to the GPU after the host writes "
				  "them: cupy.cuda.runtime.memPrefetchAsync(a.data.ptr, a.nbytes, "
				  "device_id, stream.ptr), and to the host "
				  "(cupy.cuda.runtime.cudaCpuDeviceId) before it reads them"),
			       already);
		finding_action(
		    f, N_("or keep them in device memory: CuPy's default pool "
			  "(cupy.cuda.set_allocator(cupy.get_default_memory_pool().malloc)) "
			  "instead of one over cupy.cuda.malloc_managed, batches copied in "
			  "with cupy.asarray"));
		finding_action(
		    f, N_("data the GPU reads and the host only looks at: "
			  "cupy.cuda.runtime.memAdvise(ptr, nbytes, "
			  "cupy.cuda.runtime.cudaMemAdviseSetPreferredLocation, device_id)"));
		break;
	case PK_PYTORCH:
		finding_action(
		    f, N_("PyTorch's tensors are device memory: the managed memory comes "
			  "from a custom allocator (CUDAPluggableAllocator or a MemPool over "
			  "cudaMallocManaged, RMM's managed resource) or paged buffers "
			  "(bitsandbytes' paged optimizers): keep what each step reads out "
			  "of it"));
		finding_action(f,
			       N_("%sor prefetch those buffers to the GPU before the step: "
				  "cudaMemPrefetchAsync through cuda-python's cudart, on the "
				  "tensor's data_ptr() and the current stream"),
			       already);
		break;
	case PK_NUMBA:
		finding_action(f, N_("allocate what the kernels read with cuda.device_array (or "
				     "cuda.to_device) and copy batches in, instead of "
				     "cuda.managed_array"));
		finding_action(f,
			       N_("%sor keep cuda.managed_array and prefetch it to the GPU before "
				  "the kernels: cudaMemPrefetchAsync through cuda-python's cudart, "
				  "on arr.__cuda_array_interface__[\"data\"][0]"),
			       already);
		break;
	default:
		finding_action(
		    f,
		    N_("%sprefetch the managed buffers to the GPU before the kernels: "
		       "cudaMemPrefetchAsync(ptr, bytes, location, 0, stream), the device "
		       "as a cudaMemLocation (before CUDA 13: its number), and to the "
		       "host before the host reads them"),
		    already);
		finding_action(
		    f, N_("tell the driver where the data lives: cudaMemAdvise with "
			  "cudaMemAdviseSetPreferredLocation (the GPU), "
			  "cudaMemAdviseSetReadMostly for data both sides only read, "
			  "cudaMemAdviseSetAccessedBy for data the host reads now and then"));
		finding_action(f, N_("or use explicit device buffers: cudaMalloc, and one "
				     "cudaMemcpyAsync from pinned host memory per batch"));
		break;
	}
	if (!host_first && an_pct(a, (double)st->idle_ns) >= TH_MIN_IMPACT_PCT &&
	    st->dtoh_host_bytes > 0)
		host_pulls(f, st);
	if (st->evicted_bytes > 0)
		finding_action(f,
			       N_("the managed data does not fit the GPU: %.0f MiB were evicted to "
				  "the host; work on chunks that fit, each prefetched before its "
				  "kernels"),
			       st->evicted_bytes / MIB);
	if (st->thrashing)
		finding_action(f,
			       N_("the host and the GPU take the same pages in turns (%llu "
				  "thrashing events): give each its own buffer, or mark data both "
				  "only read as read-mostly"),
			       (unsigned long long)st->thrashing);
	/* the clause a first action quotes, in the reader's words */
	for (int k = 0; *already && k < f->n_actions; k++)
		finding_action_tr(f, k, already);
}

int64_t an_managed_unrecorded(const struct analysis *a, const char **note)
{
	const struct trace *t = a->whole ? a->whole : a->t;
	*note = trace_get_meta(t, SPOOL_NOTE_UVM);
	if (!*note || !strncmp(*note, SPOOL_NOTE_UVM_ON, strlen(SPOOL_NOTE_UVM_ON)))
		return 0;
	int64_t managed = 0;
	for (size_t i = 0; i < t->n_allocs; i++)
		if (t->allocs[i].mem_kind == MEM_MANAGED && t->allocs[i].bytes > 0)
			managed += t->allocs[i].bytes;
	return managed;
}

/* Without the counters unified_memory cannot fire, and managed memory's
 * costs read as the host's: its accesses to pages on the GPU fault them
 * back (CPU time outside CUDA calls: host_overhead), and the kernels that
 * fault them to the GPU run long (the syncs wait: sync_stall). cupy_managed
 * on the H200 (driver 580, CUPTI_ERROR_NOT_READY): host_overhead 34%,
 * sync_stall 32%, first advice "cupy.fuse the step". */
/* the program's prefetch calls (cudaMemPrefetchAsync, cuMemPrefetchAsync) */
static uint64_t prefetch_calls(const struct trace *t)
{
	uint64_t n = 0;
	uint32_t yes = 0, no = 0; /* the last name ids seen of each answer */
	for (size_t i = 0; i < t->n_apis; i++) {
		uint32_t id = t->apis[i].name_id;
		if (id != yes && (id == no || !strstr(trace_str(t, id), "MemPrefetchAsync"))) {
			no = id;
			continue;
		}
		yes = id;
		n++;
	}
	return n;
}

int adv_managed_unseen(struct finding *f, const struct analysis *a)
{
	const char *note;
	int64_t managed = an_managed_unrecorded(a, &note);
	if (!managed)
		return 0;
	uint64_t prefetches = prefetch_calls(a->whole ? a->whole : a->t);
	if (prefetches)
		/* it prefetches already (cupy_managed --fixed): what is left
		 * is the host pulling the pages back between prefetches */
		finding_action(f,
			       N_("the program uses %.0f MiB of managed memory and prefetches it "
				  "already (%llu prefetch calls), but its page faults were not "
				  "recorded here: this time may be the pages coming back each time "
				  "the host touches them between prefetches; give the host its own "
				  "copy (pinned host memory, copied in once a step) or keep the "
				  "data on the GPU, and record again where the driver gives the "
				  "unified-memory counters"),
			       (double)managed / MIB, (unsigned long long)prefetches);
	else if (a->prog.kind == PK_CUPY)
		finding_action(f,
			       N_("the program uses %.0f MiB of managed memory, whose page faults "
				  "this recording could not see: this time may be pages moving "
				  "between the host and the GPU as each touches them; prefetch "
				  "them to the GPU before the kernels "
				  "(cupy.cuda.runtime.memPrefetchAsync) or keep the data in device "
				  "arrays, and record again where the driver gives the "
				  "unified-memory counters"),
			       (double)managed / MIB);
	else
		finding_action(f,
			       N_("the program uses %.0f MiB of managed memory, whose page faults "
				  "this recording could not see: this time may be pages moving "
				  "between the host and the GPU as each touches them; prefetch "
				  "them to the GPU before the kernels (cudaMemPrefetchAsync) or "
				  "use device buffers, and record again where the driver gives the "
				  "unified-memory counters"),
			       (double)managed / MIB);
	return 1;
}

int rule_unified_memory(struct rule_ctx *c, const struct rule *r, char *err)
{
	struct analysis *a = c->a;
	if (!a->t->n_uvm)
		return 0;
	struct uvm_stats st;
	if (uvm_stats(a, &st) < 0) {
		free(st.k);
		return error_set(err, "out of memory");
	}
	double stall = an_pct(a, (double)st.kernel_stall_ns);
	double idle = an_pct(a, (double)st.idle_ns);
	double impact = stall + idle;
	size_t stalled = 0;
	while (stalled < st.n_k && st.k[stalled].stalled_ns > 0)
		stalled++;
	if (impact < TH_MIN_IMPACT_PCT || (!stalled && !st.on_demand_bytes && !st.host_fault_ns)) {
		free(st.k);
		return 0;
	}
	const struct trace *t = a->t;
	char buf[512], line[TH_NAME_COLS + 4];
	const char *raw = stalled ? trace_str(t, st.k[0].name_id) : "";
	const char *full = *raw ? gs_demangle(raw, buf, sizeof(buf)) : N_("(unnamed kernel)");
	gs_one_line_name(full, line, sizeof(line), TH_NAME_COLS);
	double mib = st.on_demand_bytes / MIB;
	enum severity sev = rule_sev(impact);
	struct finding *f =
	    stalled > 1
		? finding_add(
		      &a->findings, r->id, sev,
		      N_("kernels wait for managed memory's pages: %s and %zu other kernels "
			 "run %.1f%% of the span with page faults being serviced, the GPU "
			 "idles %.1f%% while pages migrate or the host faults them back; %.0f "
			 "MiB moved on demand"),
		      line, stalled - 1, stall, idle, mib)
	    : stalled ? finding_add(&a->findings, r->id, sev,
				    N_("kernels wait for managed memory's pages: %s runs %.1f%% of "
				       "the span with page faults being serviced, the GPU idles "
				       "%.1f%% while pages migrate or the host faults them back; "
				       "%.0f MiB moved on demand"),
				    line, stall, idle, mib)
		      : finding_add(&a->findings, r->id, sev,
				    N_("the GPU idles %.1f%% of the span while managed memory's "
				       "pages migrate on demand or the host faults them back (%.0f "
				       "MiB moved on demand)"),
				    idle, mib);
	if (!f) {
		free(st.k);
		return error_set(err, "out of memory");
	}
	if (stalled && !*raw) /* a word the title quotes */
		finding_title_tr(f, line);
	f->impact_pct = impact;
	finding_num(f, "unified_memory_pct", impact);
	finding_num(f, "stalled_kernel_pct", stall);
	finding_num(f, "stalled_kernel_ms", rule_ms(st.kernel_stall_ns));
	finding_num(f, "idle_migrating_pct", idle);
	if (st.host_fault_ns > 0)
		finding_num(f, "idle_host_faulting_pct", an_pct(a, (double)st.host_fault_ns));
	if (stalled) {
		finding_str(f, "kernel", "%s", full);
		finding_num(f, "kernel_stalled_pct",
			    st.k[0].ns > 0 ? 100.0 * (double)st.k[0].stalled_ns / (double)st.k[0].ns
					   : 0);
		char others[256] = "";
		size_t at = 0;
		for (size_t i = 1; i < stalled && i < TH_UVM_NAMED_KERNELS; i++) {
			const char *ri = trace_str(t, st.k[i].name_id);
			char b2[512], l2[TH_NAME_COLS + 4];
			gs_one_line_name(*ri ? gs_demangle(ri, b2, sizeof(b2))
					     : N_("(unnamed kernel)"),
					 l2, sizeof(l2), TH_NAME_COLS);
			int w =
			    snprintf(others + at, sizeof(others) - at, "%s%s", at ? "; " : "", l2);
			if (w < 0 || (size_t)w >= sizeof(others) - at)
				break;
			at += (size_t)w;
		}
		if (*others)
			finding_str(f, "other_kernels", "%s", others);
		finding_num(f, "kernels_stalled", (double)stalled);
	}
	finding_num(f, "gpu_page_faults", (double)st.gpu_faults);
	finding_num(f, "cpu_page_faults", (double)st.cpu_faults);
	finding_num(f, "htod_mib", st.htod_bytes / MIB);
	finding_num(f, "dtoh_mib", st.dtoh_bytes / MIB);
	finding_num(f, "htod_ms", rule_ms(st.htod_ns));
	finding_num(f, "dtoh_ms", rule_ms(st.dtoh_ns));
	finding_num(f, "on_demand_mib", st.on_demand_bytes / MIB);
	finding_num(f, "prefetched_mib", st.prefetch_bytes / MIB);
	/* bytes per ns = GB/s */
	finding_num_if(f, "on_demand_gbps", st.on_demand_ns > 0,
		       st.on_demand_ns > 0 ? st.on_demand_bytes / (double)st.on_demand_ns : 0);
	if (st.dtod_bytes > 0)
		finding_num(f, "dtod_mib", st.dtod_bytes / MIB);
	if (st.evicted_bytes > 0)
		finding_num(f, "evicted_mib", st.evicted_bytes / MIB);
	if (st.thrashing)
		finding_num(f, "thrashing", (double)st.thrashing);
	if (st.throttling)
		finding_num(f, "throttling", (double)st.throttling);
	if (st.remote_maps)
		finding_num(f, "remote_maps", (double)st.remote_maps);
	advise(f, a, &st);
	free(st.k);
	return 0;
}
