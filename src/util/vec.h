/*
 * vec.h - one growable array for the whole code base.
 *
 * An array is three fields the owner declares next to each other (a pointer,
 * a count and a capacity, as TRACE_ARRAY in trace/trace.h does) and grows
 * with vec_push(), which doubles the capacity, so appending n elements costs
 * O(n) copies in all.
 *
 * Error contract: vec_push() and vec_reserve() return NULL / -1 when out of
 * memory and then leave the array as it was.
 */
#ifndef GPUSCOPE_VEC_H
#define GPUSCOPE_VEC_H

#include <stddef.h>

/* Makes room for at least `want` elements of `elem` bytes. 0 or -1. */
int vec_reserve(void **arr, size_t *cap, size_t want, size_t elem);

/* Appends one zeroed element and returns it, or NULL when out of memory. */
void *vec_push(void **arr, size_t *n, size_t *cap, size_t elem);

/* VEC_PUSH(p, n, cap): vec_push for a typed pointer p (returns typeof(p)). */
#define VEC_PUSH(p, n, cap) ((__typeof__(p))vec_push((void **)&(p), &(n), &(cap), sizeof(*(p))))

#endif
