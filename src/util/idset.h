/*
 * idset.h - a small set of 32-bit ids (process ids, device ids) kept as an
 * unordered array: linear lookups, for the few dozen ids a trace has.
 * The array is the owner's (pointer, count, capacity: util/vec.h).
 */
#ifndef GPUSCOPE_IDSET_H
#define GPUSCOPE_IDSET_H

#include <stddef.h>
#include <stdint.h>

/* 1 when id is among v[0..n), else 0. */
int idset_has(const uint32_t *v, size_t n, uint32_t id);
/* Adds id unless present: 0, or -1 when out of memory (v unchanged). */
int idset_add(uint32_t **v, size_t *n, size_t *cap, uint32_t id);

#endif
