/*
 * test_unprofile.c - a profiled trace without the profiler's own cost
 * (analyze/unprofile.h, diagnose/unprofiled.c; issue #36 item 8), on traces
 * built in memory: a step the profiler made host-bound becomes GPU-bound,
 * a GPU-bound one keeps its timeline, a program host-bound by its own work
 * stays host-bound, a blocking sync waits for the moved work, and only a
 * profiler's trace is estimated at all.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/unprofile.h"
#include "diagnose/diagnose.h"
#include "diagnose/finding.h"
#include "diagnose/rules_int.h"
#include "report/report.h"
#include "build_trace.h"
#include "report_check.h"

#define COST (3 * US) /* the model's cost of one record in these tests */

/* n steps of: `ops` CPU ops of 1 us, `host_us` apart (the program's own
 * host time between them), then a 2 us cudaLaunchKernel and its kernel of
 * kernel_us, started 2 us after the call or behind the kernel before */
static void steps(struct trace *t, int n, int ops, double host_us, double kernel_us)
{
	bt_init(t);
	t->source = TRACE_SRC_PYTORCH;
	double at = 0, gpu = 0;
	for (int i = 0; i < n; i++) {
		for (int k = 0; k < ops; k++) {
			struct trace_range *r = bt_range(t, at, at + 1, 1, "aten::add");
			r->kind = RANGE_CPU_OP;
			at += host_us;
		}
		bt_api(t, at, at + 2, API_LAUNCH, (uint32_t)i + 1, "cudaLaunchKernel");
		double s = at + 4 > gpu ? at + 4 : gpu;
		bt_kernel(t, s, s + kernel_us, 7, (uint32_t)i + 1, "k", 1024, 256, 32);
		gpu = s + kernel_us;
		at += 2;
	}
	trace_sort(t);
}

static int64_t busy_gaps(const struct trace *t)
{
	int64_t g = 0;
	for (size_t i = 1; i < t->n_kernels; i++)
		if (t->kernels[i].start_ns > t->kernels[i - 1].end_ns)
			g += t->kernels[i].start_ns - t->kernels[i - 1].end_ns;
	return g;
}

/* 5 ops 4 us apart and a launch: 22 us of host a step for an 8 us kernel;
 * less 6 records x 3 us, 4 us a step: the kernels queue back to back */
static void test_profiler_bound(void **state)
{
	(void)state;
	struct trace t, v;
	char err[256];
	struct an_unprofile_stats st;
	steps(&t, 200, 5, 4, 8);
	assert_true(busy_gaps(&t) > 200 * 10 * US);
	assert_int_equal(an_unprofile_view(&v, &t, COST, &st, err), 0);
	assert_int_equal(st.events, 200 * 6);
	assert_int_equal(v.n_kernels, t.n_kernels);
	for (size_t i = 0; i < v.n_kernels; i++)
		assert_int_equal(v.kernels[i].end_ns - v.kernels[i].start_ns, 8 * US);
	/* the first kernels wait for the host once, then the queue holds */
	assert_true(busy_gaps(&v) < 20 * US);
	/* the host's order is kept: each launch before its kernel */
	for (size_t i = 0; i < v.n_apis; i++)
		assert_true(v.apis[i].end_ns <= v.kernels[i].start_ns);
	an_unprofile_view_release(&v);
	trace_release(&t);
}

/* 50 us kernels launched every 8 us: the GPU paces; removing host time
 * moves the run earlier but adds and removes no gap */
static void test_gpu_bound_kept(void **state)
{
	(void)state;
	struct trace t, v;
	char err[256];
	struct an_unprofile_stats st;
	steps(&t, 100, 2, 3, 50);
	assert_int_equal(busy_gaps(&t), 0);
	assert_int_equal(an_unprofile_view(&v, &t, COST, &st, err), 0);
	assert_int_equal(busy_gaps(&v), 0);
	assert_int_equal(v.kernels[v.n_kernels - 1].end_ns - v.kernels[0].start_ns,
			 t.kernels[t.n_kernels - 1].end_ns - t.kernels[0].start_ns);
	an_unprofile_view_release(&v);
	trace_release(&t);
}

/* one op and 100 us of the program's own Python a step: 3 us a record
 * does not make it GPU-bound */
static void test_own_host_work_stays(void **state)
{
	(void)state;
	struct trace t, v;
	char err[256];
	struct an_unprofile_stats st;
	steps(&t, 100, 1, 100, 8);
	int64_t before = busy_gaps(&t);
	assert_int_equal(an_unprofile_view(&v, &t, COST, &st, err), 0);
	int64_t after = busy_gaps(&v);
	/* 2 records x 3 us less a step, no more */
	assert_true(after < before);
	assert_true(after >= before - 100 * 2 * COST);
	assert_true(after > 100 * 80 * US);
	an_unprofile_view_release(&v);
	trace_release(&t);
}

/* a cudaDeviceSynchronize after a host-bound burst: as recorded it
 * returned 5 us after the last kernel; in the estimate it returns 5 us
 * after that kernel's new end, and the op after it starts after that */
static void test_sync_waits_for_moved_work(void **state)
{
	(void)state;
	struct trace t, v;
	char err[256];
	struct an_unprofile_stats st;
	steps(&t, 20, 5, 4, 8);
	int64_t last = t.kernels[t.n_kernels - 1].end_ns;
	double s_us = (double)last / US - 30;
	bt_api(&t, s_us, (double)last / US + 5, API_SYNC, 999, "cudaDeviceSynchronize");
	struct trace_range *r =
	    bt_range(&t, (double)last / US + 10, (double)last / US + 11, 1, "aten::mul");
	r->kind = RANGE_CPU_OP;
	trace_sort(&t);
	assert_int_equal(an_unprofile_view(&v, &t, COST, &st, err), 0);
	const struct trace_api *sync = NULL;
	for (size_t i = 0; i < v.n_apis; i++)
		if (v.apis[i].kind == API_SYNC)
			sync = &v.apis[i];
	assert_non_null(sync);
	int64_t new_last = v.kernels[v.n_kernels - 1].end_ns;
	assert_true(new_last < last);
	assert_int_equal(sync->end_ns, new_last + 5 * US);
	const struct trace_range after = trace_range_at(&v, v.n_ranges - 1);
	assert_string_equal(trace_str(&v, after.name_id), "aten::mul");
	assert_true(after.start_ns >= sync->end_ns);
	an_unprofile_view_release(&v);
	trace_release(&t);
}

static int warned(const struct analysis *a, const char *id)
{
	for (size_t i = 0; i < a->n_warnings; i++)
		if (a->warnings[i].id && !strcmp(a->warnings[i].id, id))
			return 1;
	return 0;
}

/* through report's analysis: the profiler-bound step's primary is the
 * estimate's gpu_busy, said by its warning and its title; the step
 * host-bound by its own work keeps launch_overhead; a recording (no
 * profiler cost) is never estimated */
static void test_verdict(void **state)
{
	(void)state;
	struct trace t;
	struct analysis_result r;
	struct analysis_opts o = {.device = -1};
	char err[256];
	steps(&t, 400, 5, 4, 8);
	assert_int_equal(analysis_result_run(&r, &t, &o, err), 0);
	assert_true(r.all.unprof.ran && r.all.unprof.changed);
	assert_true(!strcmp(r.all.unprof.traced_primary, "launch_overhead") ||
		    !strcmp(r.all.unprof.traced_primary, "host_overhead"));
	assert_string_equal(r.all.primary->id, "gpu_busy");
	assert_non_null(strstr(r.all.primary->title, "estimated without torch.profiler"));
	assert_true(r.all.unprof.busy_pct > 90 && r.all.unprof.traced_busy_pct < 50);
	assert_true(warned(&r.all, "profiler_estimate") && !warned(&r.all, "profiler_overhead"));
	const struct finding *lo = finding_find(&r.all.findings, r.all.unprof.traced_primary);
	assert_non_null(lo);
	assert_non_null(finding_get(lo, "without_profiler_pct"));
	analysis_result_release(&r);
	trace_release(&t);

	steps(&t, 400, 1, 100, 8);
	assert_int_equal(analysis_result_run(&r, &t, &o, err), 0);
	assert_true(r.all.unprof.ran && !r.all.unprof.changed);
	assert_string_equal(r.all.primary->id, r.all.unprof.traced_primary);
	assert_true(warned(&r.all, "profiler_overhead") && !warned(&r.all, "profiler_estimate"));
	analysis_result_release(&r);
	trace_release(&t);

	steps(&t, 400, 5, 4, 8);
	t.source = TRACE_SRC_RECORD;
	assert_int_equal(analysis_result_run(&r, &t, &o, err), 0);
	assert_false(r.all.unprof.ran);
	assert_false(warned(&r.all, "profiler_estimate") || warned(&r.all, "profiler_overhead"));
	analysis_result_release(&r);
	trace_release(&t);
}

static uint64_t rnd_state;
static uint32_t rnd(uint32_t n)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return (uint32_t)(rnd_state % n);
}

#define SAME_ARRAY(x, y, name)                                                                     \
	do {                                                                                       \
		assert_int_equal((x).n_##name, (y).n_##name);                                      \
		if ((x).n_##name)                                                                  \
			assert_memory_equal((x).name, (y).name, (x).n_##name * sizeof(*(x).name)); \
	} while (0)

/* The view's ranges are t's rows (trace.h: range_order and the times), each
 * once, with their other fields, sorted by their new start and end as
 * trace_sort sorts them (ties in t's order). */
static void check_ranges(const struct trace *t, const struct trace *v)
{
	assert_int_equal(v->n_ranges, t->n_ranges);
	assert_ptr_equal(v->ranges, t->ranges);
	unsigned char *seen = calloc(t->n_ranges + 1, 1);
	assert_non_null(seen);
	for (size_t i = 0; i < v->n_ranges; i++) {
		uint32_t k = v->range_order[v->range_first + i];
		assert_true(k < t->n_ranges && !seen[k]);
		seen[k] = 1;
		const struct trace_range r = trace_range_at(v, i), *o = &t->ranges[k];
		assert_int_equal(r.name_id, o->name_id);
		assert_int_equal(r.pid, o->pid);
		assert_int_equal(r.tid, o->tid);
		assert_int_equal(r.kind, o->kind);
		assert_int_equal(r.domain_id, o->domain_id);
		assert_true(r.end_ns >= r.start_ns);
		if (!i)
			continue;
		struct trace_span a = trace_range_span(v, i - 1), b = trace_range_span(v, i);
		assert_true(
		    a.start_ns < b.start_ns ||
		    (a.start_ns == b.start_ns &&
		     (a.end_ns < b.end_ns ||
		      (a.end_ns == b.end_ns && v->range_order[v->range_first + i - 1] < k))));
	}
	free(seen);
}

/* A large trace of three processes whose records come in every rhythm
 * (dense runs that pile up debt, sparse ones that pay it off part way,
 * ties at one microsecond), launches of one or two ops (a few before
 * their calls), blocking syncs
 * and copies, ops without a launch, GPU-side annotations and allocations:
 * the view is the same, byte for byte, as the reference way's (every
 * point kept, all items sorted together, one thread) for several seeds. */
/* random_trace's shapes: procs processes (1-3), correlation ids stride
 * apart (sparse ones: the sweep's buckets of correlation >> shift), every
 * so often a launch of big ops (one bucket past the sweep's largest) */
struct shape {
	int procs;
	uint32_t stride;
	int big;
};

static void random_shape(struct trace *tp, uint64_t seed, struct shape sh)
{
	struct trace t;
	{
		rnd_state = 0x9e3779b97f4a7c15ULL * seed;
		bt_init(&t);
		t.source = TRACE_SRC_PYTORCH;
		uint32_t gpu = trace_intern(&t, "gpu");
		double at[3] = {0, 0, 0}, q[3][2] = {{0, 0}, {0, 0}, {0, 0}};
		uint32_t corr = 1;
		for (int i = 0; i < 30000; i++) {
			int p = (int)rnd((uint64_t)sh.procs);
			uint32_t pid = 100 + 100 * (uint32_t)p;
			int dense = rnd(4) != 0;
			for (int k = (int)rnd(4); k > 0; k--) {
				double len = (double)rnd(20);
				struct trace_range *r = bt_range(&t, at[p], at[p] + len, 1 + rnd(2),
								 rnd(2) ? "aten::add" : "f");
				r->pid = pid;
				r->kind = (uint8_t)(rnd(5)   ? RANGE_CPU_OP
						    : rnd(2) ? RANGE_NVTX
							     : RANGE_ANNOTATION);
				at[p] += dense ? rnd(2) : 1 + rnd(40);
			}
			uint32_t s = rnd(2);
			double start = at[p] + 1 + rnd(3) > q[p][s] ? at[p] + 1 + rnd(3) : q[p][s];
			if (rnd(16) == 0 && at[p] > 10)
				start = at[p] - 1 - rnd(8); /* skewed clocks: before its call */
			double klen = 1 + rnd(30);
			int what = (int)rnd(20);
			if (what < 14 || what == 19) {
				struct trace_api *a = bt_api(&t, at[p], at[p] + rnd(3), API_LAUNCH,
							     corr, "cudaLaunchKernel");
				a->pid = pid;
				if (what == 19)
					a->correlation = corr + 1000000; /* the op has no launch */
			} else if (what < 17) {
				struct trace_api *a = bt_api(&t, at[p], start + klen + rnd(4),
							     API_MEMCPY, corr, "cudaMemcpyAsync");
				a->pid = pid;
				struct trace_copy *c =
				    bt_copy(&t, start, start + klen, 7 + s, corr, COPY_DTOH,
					    MEM_DEVICE, MEM_PAGEABLE, 64);
				c->pid = pid;
				q[p][s] = start + klen;
				at[p] = a->end_ns / (double)US;
				corr += sh.stride;
				continue;
			} else {
				struct trace_api *a = bt_api(&t, at[p], q[p][s] + rnd(6), API_SYNC,
							     corr, "cudaStreamSynchronize");
				a->pid = pid;
				at[p] = a->end_ns / (double)US + 1;
				corr += sh.stride;
				continue;
			}
			int nk = rnd(4) ? 1 : 2;
			if (sh.big && rnd(1000) == 0)
				nk = 70; /* a graph's launch */
			for (int k = nk; k > 0; k--) {
				struct trace_kernel *kn = bt_kernel(&t, start, start + klen, 7 + s,
								    corr, "k", 64, 128, 32);
				kn->pid = pid;
				if (rnd(8) == 0) {
					struct trace_range *g =
					    bt_range(&t, start, start + klen, 7 + s, "ann");
					g->pid = pid;
					g->kind = RANGE_ANNOTATION;
					g->domain_id = gpu;
				}
				start += klen;
			}
			q[p][s] = start;
			if (rnd(16) == 0) {
				struct trace_alloc *al = trace_add_alloc(&t);
				al->ts_ns = (int64_t)(at[p] * US);
				al->pid = pid;
				al->bytes = 4096;
			}
			at[p] += 2;
			corr += sh.stride;
		}
		trace_sort(&t);
	}
	*tp = t;
}

static void random_trace(struct trace *tp, uint64_t seed)
{
	random_shape(tp, seed, (struct shape){3, 1, 0});
}

static void test_same_as_reference(void **state)
{
	(void)state;
	/* three processes (the sweep's hash table of launches), one with dense
	 * and sparse ids (its buckets), one with a graph's launch (a bucket too
	 * big: the hash table again) */
	static const struct shape shapes[] = {{3, 1, 0}, {3, 1, 0},  {3, 1, 0},
					      {1, 1, 0}, {1, 37, 0}, {1, 5, 1}};
	for (uint64_t seed = 1; seed <= sizeof(shapes) / sizeof(shapes[0]); seed++) {
		struct trace t, v, w;
		struct an_unprofile_stats st, sr;
		char err[256];
		random_shape(&t, seed, shapes[seed - 1]);
		assert_true(t.n_ranges + t.n_apis > 65536); /* the threads' size */
		assert_int_equal(an_unprofile_view_opt(&v, &t, COST, 0, &st, err), 0);
		assert_int_equal(an_unprofile_view_opt(&w, &t, COST, 1, &sr, err), 0);
		assert_true(st.events > 0 && st.removed_ns > 0);
		assert_int_equal(st.events, sr.events);
		assert_int_equal(st.removed_ns, sr.removed_ns);
		SAME_ARRAY(v, w, kernels);
		SAME_ARRAY(v, w, copies);
		SAME_ARRAY(v, w, apis);
		SAME_ARRAY(v, w, syncs);
		check_ranges(&t, &v);
		check_ranges(&t, &w);
		assert_int_equal(v.n_ranges, w.n_ranges);
		assert_memory_equal(v.range_order, w.range_order,
				    v.n_ranges * sizeof(*v.range_order));
		assert_memory_equal(v.range_start, w.range_start,
				    v.n_ranges * sizeof(*v.range_start));
		assert_memory_equal(v.range_len, w.range_len, v.n_ranges * sizeof(*v.range_len));
		assert_int_equal(v.n_range_long, w.n_range_long);
		SAME_ARRAY(v, w, allocs);
		SAME_ARRAY(v, w, processes);
		an_unprofile_view_release(&v);
		an_unprofile_view_release(&w);
		trace_release(&t);
	}
}

/* every time of t (as the sweep and the map read them) moved by k */
static void shift_trace(struct trace *t, int64_t k)
{
#define SHIFT(arr)                                                                                 \
	for (size_t i = 0; i < t->n_##arr; i++)                                                    \
		t->arr[i].start_ns += k, t->arr[i].end_ns += k;
	SHIFT(kernels)
	SHIFT(copies)
	SHIFT(memsets)
	SHIFT(apis)
	SHIFT(syncs)
	SHIFT(ranges)
	SHIFT(processes)
#undef SHIFT
	for (size_t i = 0; i < t->n_allocs; i++)
		t->allocs[i].ts_ns += k;
}

/* The model reads differences of times only, so a trace moved in time
 * gives the view moved as much: here across the 2^32 ns boundaries where
 * the packed timelines' high bits change (and through 0, where they are
 * negative), on the fast and the reference way. */
static void test_moved_in_time(void **state)
{
	(void)state;
	const int64_t ks[] = {((int64_t)1 << 32) - 20 * 1000 * US,
			      ((int64_t)5 << 32) - 37 * 1000 * US, -30 * 1000 * US};
	for (int ref = 0; ref < 2; ref++)
		for (size_t j = 0; j < sizeof(ks) / sizeof(ks[0]); j++) {
			struct trace t, m, v, w;
			struct an_unprofile_stats st, sm;
			char err[256];
			random_trace(&t, 7);
			random_trace(&m, 7);
			shift_trace(&m, ks[j]);
			assert_true(trace_first_ns(&m) >> 32 != trace_last_ns(&m) >> 32);
			assert_int_equal(an_unprofile_view_opt(&v, &t, COST, ref, &st, err), 0);
			assert_int_equal(an_unprofile_view_opt(&w, &m, COST, ref, &sm, err), 0);
			assert_int_equal(st.events, sm.events);
			assert_int_equal(st.removed_ns, sm.removed_ns);
			assert_int_equal(v.n_apis, w.n_apis);
			for (size_t i = 0; i < v.n_apis; i++) {
				assert_int_equal(w.apis[i].start_ns, v.apis[i].start_ns + ks[j]);
				assert_int_equal(w.apis[i].end_ns, v.apis[i].end_ns + ks[j]);
			}
			for (size_t i = 0; i < v.n_kernels; i++)
				assert_int_equal(w.kernels[i].start_ns,
						 v.kernels[i].start_ns + ks[j]);
			for (size_t i = 0; i < v.n_allocs; i++)
				assert_int_equal(w.allocs[i].ts_ns, v.allocs[i].ts_ns + ks[j]);
			assert_int_equal(v.n_ranges, w.n_ranges);
			for (size_t i = 0; i < v.n_ranges; i++) {
				assert_int_equal(trace_range_span(&w, i).start_ns,
						 trace_range_span(&v, i).start_ns + ks[j]);
				assert_int_equal(trace_range_span(&w, i).end_ns,
						 trace_range_span(&v, i).end_ns + ks[j]);
				assert_int_equal(w.range_order[i], v.range_order[i]);
			}
			an_unprofile_view_release(&v);
			an_unprofile_view_release(&w);
			trace_release(&t);
			trace_release(&m);
		}
}

/* A range of 2^32 ns or more keeps its end apart (trace.h: range_long):
 * two of them, on a process among the reference trace's, start and end
 * where short ranges of the same recorded start and end do (a range's
 * times are mapped each on their own). */
static void test_long_ranges(void **state)
{
	(void)state;
	struct trace t, v;
	struct an_unprofile_stats st;
	char err[256];
	random_trace(&t, 5);
	const double a[2] = {5, 20000}, len[2] = {5e6, 9e6}; /* us: 5 s and 9 s */
	const char *names[2][3] = {{"long0", "head0", "tail0"}, {"long1", "head1", "tail1"}};
	for (int k = 0; k < 2; k++) {
		struct trace_range *r[3] = {
		    bt_range(&t, a[k], a[k] + len[k], 1, names[k][0]),
		    bt_range(&t, a[k], a[k] + 1, 1, names[k][1]),
		    bt_range(&t, a[k] + len[k] - 1, a[k] + len[k], 1, names[k][2])};
		for (int j = 0; j < 3; j++)
			r[j]->pid = 100, r[j]->kind = RANGE_CPU_OP;
	}
	trace_sort(&t);
	assert_int_equal(an_unprofile_view(&v, &t, COST, &st, err), 0);
	assert_int_equal(v.n_range_long, 2);
	check_ranges(&t, &v);
	struct trace_span sp[2][3];
	int seen = 0;
	for (size_t i = 0; i < v.n_ranges; i++)
		for (int k = 0; k < 2; k++)
			for (int j = 0; j < 3; j++)
				if (!strcmp(trace_str(&v, trace_range_at(&v, i).name_id),
					    names[k][j])) {
					sp[k][j] = trace_range_span(&v, i);
					seen++;
				}
	assert_int_equal(seen, 6);
	for (int k = 0; k < 2; k++) {
		assert_int_equal(sp[k][0].start_ns, sp[k][1].start_ns);
		assert_int_equal(sp[k][0].end_ns, sp[k][2].end_ns);
		assert_true(sp[k][0].end_ns - sp[k][0].start_ns >= (int64_t)TRACE_LEN_LONG);
	}
	an_unprofile_view_release(&v);
	trace_release(&t);
}

/* The view's ranges seen through (trace.h: range_order and the times) read
 * the same to every pass as the same rows copied: each PyTorch fixture's
 * view and a copy of it with its ranges' rows written out give the same
 * report, byte for byte (a pass reading ranges[i] of the view reads t's
 * rows, in t's order and with t's times). The view's own report estimates
 * again, so a view of a view is made there too. */
static void test_view_reads_as_copy(void **state)
{
	(void)state;
	static const char *const fixtures[] = {
	    "pytorch/small_ops.json.gz",
	    "pytorch/dataloader_starved.json.gz",
	    "pytorch/transformer_step.json.gz",
	    "real/hf_llama_train.json.gz",
	    "pytorch/item_every_step.json.gz",
	    "real/hf_bert_syncs.json.gz",
	    "real/pyg_gcn.json.gz",
	    "kineto-synthetic/small.json.gz",
	};
	for (size_t k = 0; k < sizeof(fixtures) / sizeof(fixtures[0]); k++) {
		char path[512], err[512] = "";
		snprintf(path, sizeof(path), "%s/%s", FIXTURES_DIR, fixtures[k]);
		struct trace t, v;
		struct an_unprofile_stats st;
		if (analysis_load(&t, path, err) < 0)
			fail_msg("%s: %s", path, err);
		assert_int_equal(an_unprofile_view(&v, &t, COST, &st, err), 0);
		if (!t.n_ranges || !st.events)
			fail_msg("%s: no profiler records", fixtures[k]);
		struct trace c = v;
		struct trace_range *rows = malloc(v.n_ranges * sizeof(*rows));
		assert_non_null(rows);
		size_t moved = 0;
		for (size_t i = 0; i < v.n_ranges; i++) {
			rows[i] = trace_range_at(&v, i);
			moved += rows[i].start_ns != t.ranges[i].start_ns;
		}
		assert_true(moved > 0);
		c.ranges = rows;
		c.range_order = NULL;
		char *seen = report_of(&v, 0), *copied = report_of(&c, 0);
		assert_non_null(seen);
		assert_non_null(copied);
		if (strcmp(seen, copied) != 0)
			fail_msg("%s: the view's report is not its copy's", fixtures[k]);
		free(seen);
		free(copied);
		free(rows);
		an_unprofile_view_release(&v);
		trace_release(&t);
	}
}

/* r's report of t with o made on one CPU (the estimate made when the
 * verdict asks for it) and on all of them (made ahead, beside the
 * report's passes, when the trace is big: diagnose/unprofiled.c); the
 * two must be the same bytes. Returns whether the estimate ran. */
static int same_ahead(const struct trace *t, const struct analysis_opts *o)
{
	cpu_set_t all;
	char err[512] = "";
	struct analysis_result r;
	assert_int_equal(to_one_cpu(&all), 0);
	assert_int_equal(analysis_result_run(&r, t, o, err), 0);
	assert_int_equal(sched_setaffinity(0, sizeof(all), &all), 0);
	char *want = result_report(&r, 1);
	int ran = r.all.unprof.ran;
	analysis_result_release(&r);
	assert_int_equal(analysis_result_run(&r, t, o, err), 0);
	char *got = result_report(&r, 1);
	assert_int_equal(r.all.unprof.ran, ran);
	assert_null(r.all.unprof.ahead);
	analysis_result_release(&r);
	assert_non_null(want);
	assert_non_null(got);
	if (strcmp(want, got) != 0)
		fail_msg("the estimate made ahead reports otherwise than made after the passes");
	free(want);
	free(got);
	return ran;
}

/* The estimate made ahead on a big trace (over 65536 kernels and calls):
 * used (a profiler-bound run: the primary changes), cancelled (GPU-bound:
 * not host-side), over the steady state of ProfilerStep# ranges (the
 * whole trace's view, the window's analysis), over a named range (not
 * the steady state), and over all of it (whole) */
static void test_estimate_ahead(void **state)
{
	(void)state;
	struct trace t;
	struct analysis_opts o = {.device = -1};
	steps(&t, 36000, 5, 4, 8);
	assert_true(t.n_kernels + t.n_apis > 65536);
	assert_true(same_ahead(&t, &o));
	trace_release(&t);

	steps(&t, 36000, 1, 2, 40);
	assert_false(same_ahead(&t, &o));
	trace_release(&t);

	/* 22 us a step; ProfilerStep# ranges of 1000 steps from the 2000th to
	 * the 33000th (a warm-up and a cool-down cut) */
	steps(&t, 36000, 5, 4, 8);
	for (int k = 2000; k < 33000; k += 1000) {
		struct trace_range *r =
		    bt_range(&t, k * 22.0, (k + 1000) * 22.0 - 1, 9, "ProfilerStep#1");
		r->kind = RANGE_ANNOTATION;
	}
	struct trace_range *region = bt_range(&t, 9000 * 22.0, 15000 * 22.0, 8, "region");
	region->kind = RANGE_ANNOTATION;
	trace_sort(&t);
	assert_true(same_ahead(&t, &o));
	o.range = "region";
	assert_true(same_ahead(&t, &o));
	o.range = NULL;
	o.whole = 1;
	assert_true(same_ahead(&t, &o));
	trace_release(&t);
}

/* an_unprofile_view_until: not cancelled, the view an_unprofile_view
 * makes (the same report); cancelled, 1 and nothing made (the ASan build
 * sees a leak). A cancel inside the sweep depends on timing: the
 * GPU-bound trace of test_estimate_ahead makes one most runs, not
 * asserted. */
static void test_view_until(void **state)
{
	(void)state;
	struct trace t, v, u;
	char err[256];
	struct an_unprofile_stats st;
	int no = 0, yes = 1;
	steps(&t, 20000, 5, 4, 8);
	assert_int_equal(an_unprofile_view(&v, &t, COST, &st, err), 0);
	assert_int_equal(an_unprofile_view_until(&u, &t, COST, &no, &st, err), 0);
	char *a = report_of(&v, 0), *b = report_of(&u, 0);
	assert_non_null(a);
	assert_non_null(b);
	assert_string_equal(a, b);
	free(a);
	free(b);
	an_unprofile_view_release(&u);
	an_unprofile_view_release(&v);
	assert_int_equal(an_unprofile_view_until(&u, &t, COST, &yes, &st, err), 1);
	trace_release(&t);
}

/* an_run_estimate with a cancel flag (the estimate made ahead): clear,
 * the analysis the flag-less call makes (its findings and busy time);
 * set, -1 with "cancelled" and the analysis released (zeroed; the ASan
 * build sees a leak otherwise). A wrong runner that never looks at the
 * flag would run every pass and return 0. */
static void test_estimate_cancelled(void **state)
{
	(void)state;
	struct trace t;
	struct analysis a, b;
	char err[256] = "";
	int no = 0, yes = 1;
	/* over 65536 kernels and calls: the passes on every CPU (the runner's
	 * threads each look at the flag) */
	steps(&t, 36000, 5, 4, 8);
	assert_true(t.n_kernels + t.n_apis > 65536);
	assert_int_equal(an_run_estimate(&a, &t, NULL, 1, NULL, err), 0);
	assert_int_equal(an_run_estimate(&b, &t, NULL, 1, &no, err), 0);
	assert_true(a.findings.n > 0);
	assert_non_null(a.primary);
	assert_non_null(b.primary);
	assert_int_equal(a.findings.n, b.findings.n);
	assert_string_equal(a.primary->id, b.primary->id);
	assert_int_equal(a.busy_ns, b.busy_ns);
	analysis_release(&a);
	analysis_release(&b);
	assert_int_equal(an_run_estimate(&a, &t, NULL, 1, &yes, err), -1);
	assert_string_equal(err, "cancelled");
	assert_null(a.findings.v);
	assert_null(a.t);
	trace_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_profiler_bound),
	    cmocka_unit_test(test_gpu_bound_kept),
	    cmocka_unit_test(test_own_host_work_stays),
	    cmocka_unit_test(test_sync_waits_for_moved_work),
	    cmocka_unit_test(test_verdict),
	    cmocka_unit_test(test_estimate_ahead),
	    cmocka_unit_test(test_estimate_cancelled),
	    cmocka_unit_test(test_view_until),
	    cmocka_unit_test(test_same_as_reference),
	    cmocka_unit_test(test_view_reads_as_copy),
	    cmocka_unit_test(test_moved_in_time),
	    cmocka_unit_test(test_long_ranges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
