/*
 * hmap.h - the hash tables of the code base: one map from 64-bit keys to
 * 64-bit values (struct u64map) and one index over items that live in the
 * caller's own array (struct hindex: interned strings, launch
 * configurations), both open addressing with linear probing, doubled at 50%
 * load, so every lookup is O(1) expected for millions of entries.
 *
 * Invariants:
 *  1. struct u64map takes every key, 0 and UINT64_MAX included.
 *  2. struct hindex keeps 32 bits of each item's hash beside its index
 *     (slot = hash32 << 32 | index + 1, 0 = empty): a probe compares hashes
 *     before it calls the caller's equality, and growing needs no rehash of
 *     the items. Indexes are below UINT32_MAX.
 *  3. Lookups are inline so that an equality function known at the call
 *     site is inlined; nothing here has static state (reentrant).
 *
 * Error contract: functions that allocate return 0, or -1 when out of memory
 * with the table unchanged.
 */
#ifndef GPUSCOPE_HMAP_H
#define GPUSCOPE_HMAP_H

#include <stddef.h>
#include <stdint.h>

/* A well-mixed 64-bit hash of a 64-bit value (never 0). */
static inline uint64_t hash_u64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x ? x : 1;
}

/* A 64-bit hash of len bytes at p (eight bytes a step). */
uint64_t hash_bytes(const void *p, size_t len);

/* ---- u64 -> u64 ---- */

struct u64map {
	uint64_t *keys, *vals;
	unsigned char *used;
	size_t cap, n; /* cap: a power of two or 0 */
};

/* Sizes the map for about `expect` keys (0 = small). 0 or -1. */
int u64map_init(struct u64map *m, size_t expect);
void u64map_release(struct u64map *m);
/* Sets key to v (adds or replaces). 0 or -1. */
int u64map_put(struct u64map *m, uint64_t key, uint64_t v);
/* 1 and *v when key is present, else 0. */
static inline int u64map_get(const struct u64map *m, uint64_t key, uint64_t *v)
{
	if (!m->cap)
		return 0;
	size_t mask = m->cap - 1, j = hash_u64(key) & mask;
	while (m->used[j]) {
		if (m->keys[j] == key) {
			*v = m->vals[j];
			return 1;
		}
		j = (j + 1) & mask;
	}
	return 0;
}

/* ---- an index over the caller's items ---- */

struct hindex {
	uint64_t *slots;
	size_t cap, n;
};

static inline uint32_t hindex_h32(uint64_t hash)
{
	return (uint32_t)(hash >> 32) ^ (uint32_t)hash;
}

/* Returns the index of an item with this hash for which eq(ctx, index)
 * holds, or -1. */
static inline int64_t hindex_find(const struct hindex *h, uint64_t hash,
				  int (*eq)(const void *ctx, uint32_t index), const void *ctx)
{
	if (!h->cap)
		return -1;
	uint32_t h32 = hindex_h32(hash);
	size_t mask = h->cap - 1, j = h32 & mask;
	uint64_t s;
	while ((s = h->slots[j]) != 0) {
		if ((uint32_t)(s >> 32) == h32 && eq(ctx, (uint32_t)s - 1))
			return (int64_t)((uint32_t)s - 1);
		j = (j + 1) & mask;
	}
	return -1;
}

/* Adds index under hash (not checked for duplicates). 0 or -1. */
int hindex_add(struct hindex *h, uint64_t hash, uint32_t index);
void hindex_release(struct hindex *h);

#endif
