/*
 * hmap.c - the hash tables (hmap.h).
 */
#include "util/hmap.h"

#include <stdlib.h>
#include <string.h>

uint64_t hash_bytes(const void *p, size_t len)
{
	const unsigned char *s = p;
	uint64_t h = 0x9E3779B97F4A7C15ULL ^ (len * 0xff51afd7ed558ccdULL);
	while (len >= 8) {
		uint64_t w;
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
		h ^= h >> 29;
		s += 8;
		len -= 8;
	}
	uint64_t w = 0;
	memcpy(&w, s, len);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
	return hash_u64(h);
}

static size_t pow2_for(size_t expect)
{
	size_t cap = 16;
	while (cap < expect * 2)
		cap *= 2;
	return cap;
}

static int u64map_resize(struct u64map *m, size_t cap)
{
	uint64_t *keys = malloc(cap * sizeof(*keys));
	uint64_t *vals = malloc(cap * sizeof(*vals));
	unsigned char *used = calloc(cap, 1);
	if (!keys || !vals || !used) {
		free(keys);
		free(vals);
		free(used);
		return -1;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->used[i])
			continue;
		size_t j = hash_u64(m->keys[i]) & (cap - 1);
		while (used[j])
			j = (j + 1) & (cap - 1);
		used[j] = 1;
		keys[j] = m->keys[i];
		vals[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	free(m->used);
	m->keys = keys;
	m->vals = vals;
	m->used = used;
	m->cap = cap;
	return 0;
}

int u64map_init(struct u64map *m, size_t expect)
{
	memset(m, 0, sizeof(*m));
	return u64map_resize(m, pow2_for(expect));
}

void u64map_release(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
	free(m->used);
	memset(m, 0, sizeof(*m));
}

int u64map_put(struct u64map *m, uint64_t key, uint64_t v)
{
	if ((m->n + 1) * 2 > m->cap && u64map_resize(m, m->cap ? m->cap * 2 : 16) < 0)
		return -1;
	size_t mask = m->cap - 1, j = hash_u64(key) & mask;
	while (m->used[j] && m->keys[j] != key)
		j = (j + 1) & mask;
	if (!m->used[j]) {
		m->used[j] = 1;
		m->keys[j] = key;
		m->n++;
	}
	m->vals[j] = v;
	return 0;
}

static int hindex_resize(struct hindex *h, size_t cap)
{
	uint64_t *slots = calloc(cap, sizeof(*slots));
	if (!slots)
		return -1;
	for (size_t i = 0; i < h->cap; i++) {
		uint64_t s = h->slots[i];
		if (!s)
			continue;
		size_t j = (uint32_t)(s >> 32) & (cap - 1);
		while (slots[j])
			j = (j + 1) & (cap - 1);
		slots[j] = s;
	}
	free(h->slots);
	h->slots = slots;
	h->cap = cap;
	return 0;
}

int hindex_add(struct hindex *h, uint64_t hash, uint32_t index)
{
	if ((h->n + 1) * 2 > h->cap && hindex_resize(h, h->cap ? h->cap * 2 : 1024) < 0)
		return -1;
	uint32_t h32 = hindex_h32(hash);
	size_t mask = h->cap - 1, j = h32 & mask;
	while (h->slots[j])
		j = (j + 1) & mask;
	h->slots[j] = (uint64_t)h32 << 32 | ((uint64_t)index + 1);
	h->n++;
	return 0;
}

void hindex_release(struct hindex *h)
{
	free(h->slots);
	memset(h, 0, sizeof(*h));
}
