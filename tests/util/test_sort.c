/*
 * test_sort.c - sort_stable (util/sort.h) against a reference: every input
 * shape that takes a different path (sorted, reversed, ties, overlapping
 * runs as a kineto trace's threads make them, long blocks that gallop,
 * stragglers, short inputs), with its buffer or with less than the merges
 * need, must give exactly the order of a stable sort, which the reference
 * gets by breaking ties on the original position.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/sort.h"

/* the key of a trace event (start, end), its input position, and a tail
 * that makes it the size of a range row */
struct el {
	int64_t start, end;
	uint32_t pos;
	char pad[20];
};

static int cmp_span(const void *x, const void *y, void *arg)
{
	const struct el *a = x, *b = y;
	(*(size_t *)arg)++;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->end < b->end ? -1 : a->end > b->end;
}

static int cmp_ref(const void *x, const void *y)
{
	size_t calls = 0;
	int c = cmp_span(x, y, &calls);
	if (c)
		return c;
	const struct el *a = x, *b = y;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

static uint64_t rng = 88172645463325252ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

enum shape {
	RANDOM,
	TIES,
	SORTED,
	REVERSED,
	EQUAL,
	THREADS,    /* two sorted threads, one after the other, overlapping in time */
	STRAGGLERS, /* sorted, with one element in 50 from earlier */
	BLOCKS,	    /* two sorted sequences interleaved in long blocks */
	SAWTOOTH,
	N_SHAPES,
};

static void fill(struct el *v, size_t n, enum shape sh)
{
	int64_t t = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t s = 0;
		switch (sh) {
		case RANDOM:
			s = (int64_t)(next() % 1000000000);
			break;
		case TIES:
			s = (int64_t)(next() % 8);
			break;
		case SORTED:
			s = (int64_t)i * 3;
			break;
		case REVERSED:
			s = (int64_t)(n - i);
			break;
		case EQUAL:
			s = 5;
			break;
		case THREADS:
			s = i < n * 2 / 3 ? (int64_t)i * 3 : (int64_t)(i - n * 2 / 3) * 6 + 1;
			break;
		case STRAGGLERS:
			s = next() % 50 ? (int64_t)i * 10
					: (int64_t)i * 10 - (int64_t)(next() % 5000);
			break;
		case BLOCKS:
			if (next() % 40 == 0)
				t += (int64_t)(next() % 1000);
			s = i < n / 2 ? (int64_t)i * 2 : t++;
			break;
		case SAWTOOTH:
			s = (int64_t)(i % 97);
			break;
		default:
			break;
		}
		v[i].start = s;
		v[i].end = s + (int64_t)(next() % 3); /* ties on start, not always on end */
		v[i].pos = (uint32_t)i;
		memset(v[i].pad, (int)(i & 0x7f), sizeof(v[i].pad));
	}
}

/* cmp_span without the count (sort_stable_two calls it from two threads) */
static int cmp_key(const void *x, const void *y, void *arg)
{
	(void)arg;
	const struct el *a = x, *b = y;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->end < b->end ? -1 : a->end > b->end;
}

/* max_buf: sort_stable_buf's limit, 0 for sort_stable, SIZE_MAX for
 * sort_stable_two */
static void check_buf(size_t n, enum shape sh, size_t max_buf)
{
	struct el *v = malloc((n + 1) * sizeof(*v)), *ref = malloc((n + 1) * sizeof(*ref));
	assert_non_null(v);
	assert_non_null(ref);
	fill(v, n, sh);
	memcpy(ref, v, n * sizeof(*v));
	qsort(ref, n, sizeof(*ref), cmp_ref);
	size_t calls = 0;
	if (max_buf == SIZE_MAX)
		assert_int_equal(sort_stable_two(v, n, sizeof(*v), cmp_key, NULL), 0);
	else if (max_buf)
		assert_int_equal(sort_stable_buf(v, n, sizeof(*v), cmp_span, &calls, max_buf), 0);
	else
		assert_int_equal(sort_stable(v, n, sizeof(*v), cmp_span, &calls), 0);
	if (memcmp(v, ref, n * sizeof(*v)) != 0) {
		for (size_t i = 0; i < n; i++)
			if (memcmp(&v[i], &ref[i], sizeof(*v)) != 0) {
				print_error(
				    "shape %d n %zu: first difference at %zu (pos %u, want %u)\n",
				    (int)sh, n, i, v[i].pos, ref[i].pos);
				break;
			}
		fail();
	}
	/* sorted input costs one compare per element */
	if (sh == SORTED && max_buf != SIZE_MAX)
		assert_true(calls <= n);
	free(v);
	free(ref);
}

static void check(size_t n, enum shape sh)
{
	check_buf(n, sh, 0);
}

static void every_shape_and_size(void **state)
{
	static const size_t sizes[] = {0, 1, 2, 3, 7, 31, 32, 33, 64, 65, 100, 1000, 4097, 100000};
	for (int sh = 0; sh < N_SHAPES; sh++)
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
			check(sizes[i], (enum shape)sh);
}

static void many_random_small(void **state)
{
	for (int r = 0; r < 2000; r++)
		check(1 + next() % 300, (enum shape)(next() % N_SHAPES));
}

/* A buffer smaller than the merges: they are split and their blocks
 * rotated (through the buffer, or by reversals when even that is short). */
static void small_buffers(void **state)
{
	static const size_t bufs[] = {1, 2, 3, 17, 100, 1000};
	static const size_t sizes[] = {2, 33, 100, 1000, 4097, 30000};
	for (size_t b = 0; b < sizeof(bufs) / sizeof(bufs[0]); b++)
		for (int sh = 0; sh < N_SHAPES; sh++)
			for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
				check_buf(sizes[i], (enum shape)sh, bufs[b] * sizeof(struct el));
	for (int r = 0; r < 500; r++)
		check_buf(1 + next() % 300, (enum shape)(next() % N_SHAPES),
			  (1 + next() % 40) * sizeof(struct el));
}

/* On two threads: the halves sorted apart and merged give the same
 * stable order (ties across the middle: the first half's first), every
 * shape, sizes around the threshold and odd ones. */
static void two_threads(void **state)
{
	static const size_t sizes[] = {0, 1, 127, 128, 129, 1000, 4097, 100001};
	for (int sh = 0; sh < N_SHAPES; sh++)
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
			check_buf(sizes[i], (enum shape)sh, SIZE_MAX);
	for (int r = 0; r < 300; r++)
		check_buf(100 + next() % 3000, (enum shape)(next() % N_SHAPES), SIZE_MAX);
}

/* Overlapping runs cost compares in proportion to the overlap, not
 * n log n: a million sorted elements with ten stragglers. */
static void nearly_sorted_is_cheap(void **state)
{
	size_t n = 1000000;
	struct el *v = malloc(n * sizeof(*v));
	assert_non_null(v);
	fill(v, n, SORTED);
	for (size_t i = 1; i <= 10; i++)
		v[i * 99991].start -= 1000; /* about 333 places back */
	size_t calls = 0;
	assert_int_equal(sort_stable(v, n, sizeof(*v), cmp_span, &calls), 0);
	for (size_t i = 1; i < n; i++)
		assert_true(v[i - 1].start <= v[i].start);
	assert_true(calls < 2 * n);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_shape_and_size), cmocka_unit_test(many_random_small),
	    cmocka_unit_test(small_buffers),	    cmocka_unit_test(nearly_sorted_is_cheap),
	    cmocka_unit_test(two_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
