/*
 * test_kineto_depth.c - range depths (kineto_post.c) against the
 * definition: each thread's ranges sorted by start, the longer of equal
 * starts first, then in file order, and walked with a stack. The importer
 * walks the file order instead where a thread's ranges come in that order
 * and sorts only the threads whose ranges do not; the traces here mix both
 * (nested, touching, equal and identical ranges, shuffled threads) and go
 * past the number of threads the walk keeps apart.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/kineto.h"
#include "util/error.h"

static uint64_t rng = 0x9E3779B97F4A7C15ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

struct buf {
	char *s;
	size_t n, cap;
};

static void put(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		va_start(ap, fmt);
		int k = vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
		va_end(ap);
		if ((size_t)k < b->cap - b->n) {
			b->n += (size_t)k;
			return;
		}
		b->cap = b->cap ? b->cap * 2 : 1 << 16;
		b->s = realloc(b->s, b->cap);
		assert_non_null(b->s);
	}
}

struct ev {
	int tid;
	long ts, dur;
};

/* A thread's ranges: a random forest of nested calls, children inside
 * their parent, some touching, some sharing the parent's start or
 * matching it exactly, in depth order. */
static size_t nest(struct ev *v, size_t n, size_t cap, int tid, long start, long end, int depth)
{
	long t = start;
	while (n < cap && t < end && next() % 4) {
		long len = 1 + (long)(next() % (uint64_t)(end - t));
		v[n++] = (struct ev){tid, t, len};
		if (next() % 8 == 0 && n < cap)
			v[n++] = (struct ev){tid, t, len}; /* identical */
		if (depth < 6)
			n = nest(v, n, cap, tid, t + (long)(next() % 2), t + len, depth + 1);
		t += len + (long)(next() % 3); /* 0: the next one touches */
	}
	return n;
}

/* The depths by the definition, over the loaded rows. */
static const struct trace_range *ref_base;

static int cmp_ref(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	const struct trace_range *x = &ref_base[i], *y = &ref_base[j];
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	if (x->end_ns != y->end_ns)
		return x->end_ns > y->end_ns ? -1 : 1;
	return i < j ? -1 : i > j;
}

static void check_depths(const struct trace *t)
{
	size_t n = t->n_ranges;
	size_t *idx = malloc((n + 1) * sizeof(*idx));
	int64_t *stack = malloc((n + 1) * sizeof(*stack));
	assert_non_null(idx);
	assert_non_null(stack);
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	ref_base = t->ranges;
	qsort(idx, n, sizeof(*idx), cmp_ref);
	size_t sp = 0;
	for (size_t i = 0; i < n; i++) {
		const struct trace_range *r = &t->ranges[idx[i]];
		if (i &&
		    (r->pid != t->ranges[idx[i - 1]].pid || r->tid != t->ranges[idx[i - 1]].tid))
			sp = 0;
		while (sp && stack[sp - 1] <= r->start_ns)
			sp--;
		if (r->depth != sp)
			fail_msg("range %zu (tid %u, %lld-%lld): depth %u, want %zu", idx[i],
				 r->tid, (long long)r->start_ns, (long long)r->end_ns, r->depth,
				 sp);
		stack[sp++] = r->end_ns;
	}
	free(idx);
	free(stack);
}

/* threads: how many; shuffled: one in that many threads has its ranges
 * shuffled (0: none); the threads' ranges are interleaved in blocks. */
static void one_trace(int threads, int shuffled, size_t per_thread)
{
	size_t cap = (size_t)threads * per_thread;
	struct ev *v = malloc(cap * sizeof(*v));
	size_t *first = malloc(((size_t)threads + 1) * sizeof(*first)), n = 0;
	assert_non_null(v);
	assert_non_null(first);
	for (int th = 0; th < threads; th++) {
		first[th] = n;
		for (long t0 = 1000; n < first[th] + per_thread / 2; t0 += 400000)
			n = nest(v, n, first[th] + per_thread, 100 + th, t0, t0 + 400000, 0);
		if (shuffled && th % shuffled == 0)
			for (size_t i = n - 1; i > first[th]; i--) {
				size_t j = first[th] + next() % (i - first[th] + 1);
				struct ev x = v[i];
				v[i] = v[j];
				v[j] = x;
			}
	}
	first[threads] = n;
	struct buf b = {0};
	put(&b, "{\"traceEvents\": [\n");
	size_t *at = malloc(((size_t)threads + 1) * sizeof(*at));
	assert_non_null(at);
	memcpy(at, first, ((size_t)threads + 1) * sizeof(*at));
	int left = threads, w = 0;
	while (left) {
		int th = (int)(next() % (uint64_t)threads);
		size_t k = 1 + next() % 20;
		for (; k && at[th] < first[th + 1]; k--, at[th]++) {
			const struct ev *e = &v[at[th]];
			put(&b,
			    "%s  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op\", \"pid\": "
			    "7, "
			    "\"tid\": %d, \"ts\": %ld, \"dur\": %ld}",
			    w++ ? ",\n" : "", e->tid, e->ts, e->dur);
			if (at[th] + 1 == first[th + 1])
				left--;
		}
	}
	put(&b, "\n]}\n");
	struct trace t;
	char err[GS_ERR_LEN] = "";
	if (kineto_load_mem(&t, b.s, b.n, err) < 0)
		fail_msg("%s", err);
	assert_int_equal(t.n_ranges, n);
	check_depths(&t);
	trace_release(&t);
	free(b.s);
	free(at);
	free(first);
	free(v);
}

static void ordered_threads(void **state)
{
	for (int r = 0; r < 20; r++)
		one_trace(1 + (int)(next() % 6), 0, 2000);
}

static void some_threads_shuffled(void **state)
{
	for (int r = 0; r < 20; r++)
		one_trace(2 + (int)(next() % 6), 2, 2000);
}

/* past MAX_WALK_THREADS (4096): every range sorted */
static void many_threads(void **state)
{
	one_trace(5000, 0, 4);
	one_trace(5000, 3, 4);
}

/* enough ranges for the ranges' own thread (over 65536) */
static void large(void **state)
{
	one_trace(3, 3, 50000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(ordered_threads),
	    cmocka_unit_test(some_threads_shuffled),
	    cmocka_unit_test(many_threads),
	    cmocka_unit_test(large),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
