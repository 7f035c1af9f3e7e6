/*
 * sort.h - a stable sort that costs little on nearly sorted input.
 *
 * The event arrays of a trace come out of the readers almost in order (a
 * kineto trace is written thread by thread, each thread's events in time
 * order: a few hundred sorted runs for millions of rows). glibc's qsort is a
 * top-down merge sort that does all of its log2(n) passes whatever the
 * order; sort_stable() finds the sorted runs, extends short ones to 32
 * elements by insertion, and merges neighbouring runs only where they
 * overlap (the parts already in place are found by galloping searches and
 * left alone).
 *
 * Invariants:
 *  1. Stable: elements that compare equal keep their order, so the result
 *     is the one any stable sort gives (glibc's qsort, a merge sort, is
 *     stable when it can allocate its buffer).
 *  2. Memory: a buffer of the smaller side of the largest merge (none for
 *     sorted input), never more than glibc's qsort takes (a copy of the
 *     array, or two pointers per element for elements over 32 bytes): a
 *     merge larger than that is split, and one boundary per run.
 *
 * Error contract: sort_stable() always sorts; when its buffer cannot be
 * allocated it finishes with qsort_r (then elements that compare equal may
 * change order) and returns -1, else 0.
 */
#ifndef GPUSCOPE_SORT_H
#define GPUSCOPE_SORT_H

#include <stddef.h>
#include <stdint.h>

typedef int (*sort_cmp_fn)(const void *a, const void *b, void *arg);

int sort_stable(void *base, size_t n, size_t size, sort_cmp_fn cmp, void *arg);
/* sort_stable with at most max_buf bytes of buffer (at least one element). */
int sort_stable_buf(void *base, size_t n, size_t size, sort_cmp_fn cmp, void *arg, size_t max_buf);
/* sort_stable on two threads: each half of the array sorted on its own
 * (one on a new thread), then the two merged; the same order and error
 * contract. cmp is called from both threads at once. */
int sort_stable_two(void *base, size_t n, size_t size, sort_cmp_fn cmp, void *arg);

/* qsort's comparator of int64_t values, ascending. */
int sort_cmp_i64(const void *a, const void *b);
/* The median of v[0..n) (n > 0; two middle values averaged), v sorted in
 * place. */
int64_t sort_median_i64(int64_t *v, size_t n);

#endif
