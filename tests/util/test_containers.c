/*
 * test_containers.c - the growable array and the hash tables of src/util
 * (vec.h, hmap.h): growth keeps every element, every key (0 and
 * UINT64_MAX too) maps back, an index finds items through the caller's
 * equality only, and a million entries stay exact.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/hmap.h"
#include "util/vec.h"

struct pt {
	int x, y;
};

static void vec_grows_and_zeroes(void **state)
{
	struct pt *v = NULL;
	size_t n = 0, cap = 0;
	for (int i = 0; i < 100000; i++) {
		struct pt *p = VEC_PUSH(v, n, cap);
		assert_non_null(p);
		assert_int_equal(p->x, 0);
		assert_int_equal(p->y, 0);
		p->x = i;
		p->y = -i;
	}
	assert_int_equal(n, 100000);
	assert_true(cap >= n);
	for (int i = 0; i < 100000; i++) {
		assert_int_equal(v[i].x, i);
		assert_int_equal(v[i].y, -i);
	}
	size_t c = cap;
	assert_int_equal(vec_reserve((void **)&v, &cap, 10, sizeof(*v)), 0);
	assert_int_equal(cap, c); /* never shrinks */
	assert_int_equal(vec_reserve((void **)&v, &cap, SIZE_MAX / 2, sizeof(*v)), -1);
	assert_int_equal(cap, c); /* unchanged on failure */
	free(v);
}

static void u64map_every_key(void **state)
{
	struct u64map m;
	assert_int_equal(u64map_init(&m, 0), 0);
	uint64_t v;
	assert_int_equal(u64map_get(&m, 0, &v), 0);
	assert_int_equal(u64map_put(&m, 0, 11), 0);
	assert_int_equal(u64map_put(&m, UINT64_MAX, 12), 0);
	for (uint64_t k = 1; k <= 1000000; k++)
		assert_int_equal(u64map_put(&m, k * 0x10000, k), 0);
	assert_int_equal(u64map_put(&m, 0x10000, 99), 0); /* replaces */
	assert_int_equal(m.n, 1000002);
	assert_int_equal(u64map_get(&m, 0, &v), 1);
	assert_int_equal(v, 11);
	assert_int_equal(u64map_get(&m, UINT64_MAX, &v), 1);
	assert_int_equal(v, 12);
	assert_int_equal(u64map_get(&m, 0x10000, &v), 1);
	assert_int_equal(v, 99);
	for (uint64_t k = 2; k <= 1000000; k++) {
		assert_int_equal(u64map_get(&m, k * 0x10000, &v), 1);
		assert_int_equal(v, k);
	}
	assert_int_equal(u64map_get(&m, 0x10001, &v), 0);
	u64map_release(&m);
	assert_int_equal(u64map_get(&m, 0, &v), 0); /* released: empty */
}

struct words {
	char (*w)[16];
};

static int word_eq(const void *ctx, uint32_t i)
{
	const char *const *probe = ctx;
	return strcmp(probe[0], ((const struct words *)probe[1])->w[i]) == 0;
}

/* every hash the same: only the equality tells items apart */
static void hindex_uses_equality(void **state)
{
	char w[3000][16];
	struct words ws = {w};
	struct hindex h = {0};
	for (int i = 0; i < 3000; i++) {
		snprintf(w[i], sizeof(w[i]), "w%d", i);
		assert_int_equal(hindex_add(&h, 42, (uint32_t)i), 0);
	}
	for (int i = 0; i < 3000; i += 97) {
		const void *probe[2] = {w[i], &ws};
		assert_int_equal(hindex_find(&h, 42, word_eq, probe), i);
		assert_int_equal(hindex_find(&h, 43, word_eq, probe), -1);
	}
	const void *missing[2] = {"nope", &ws};
	assert_int_equal(hindex_find(&h, 42, word_eq, missing), -1);
	hindex_release(&h);
}

static void hash_bytes_reads_every_byte(void **state)
{
	char a[40], b[40];
	memset(a, 'x', sizeof(a));
	for (size_t len = 0; len < sizeof(a); len++)
		for (size_t i = 0; i < len; i++) {
			memcpy(b, a, sizeof(b));
			b[i] = 'y';
			assert_true(hash_bytes(a, len) != hash_bytes(b, len));
		}
	assert_true(hash_bytes("ab", 1) == hash_bytes("ac", 1));
	assert_true(hash_bytes("", 0) != hash_bytes("\0", 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(vec_grows_and_zeroes),
	    cmocka_unit_test(u64map_every_key),
	    cmocka_unit_test(hindex_uses_equality),
	    cmocka_unit_test(hash_bytes_reads_every_byte),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
