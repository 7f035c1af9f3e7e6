/*
 * test_fatbin.c - SM list of the nvcc-made fixture (tests/fixtures/fatbin/README.md) and
 * no crash on corrupt copies (truncated at every 97th byte, random bytes over the fatbin).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "health/fatbin.h"
#include "util/error.h"

#define FIXTURE FIXTURES_DIR "/fatbin/tiny_sm80_sm90.o"

static unsigned char *slurp(const char *path, long *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	*len = ftell(f);
	fseek(f, 0, SEEK_SET);
	unsigned char *b = malloc((size_t)*len);
	assert_int_equal(fread(b, 1, (size_t)*len, f), (size_t)*len);
	fclose(f);
	return b;
}

static void spit(const char *path, const unsigned char *b, long len)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, (size_t)len, f), (size_t)len);
	fclose(f);
}

static void reads_fixture(void **state)
{
	struct fatbin_archs a;
	char err[GS_ERR_LEN], list[256];
	assert_int_equal(fatbin_read(FIXTURE, &a, err), 0);
	assert_int_equal(a.sections, 1);
	fatbin_list(&a, list, sizeof(list));
	assert_string_equal(list, "sm_80 sm_90 compute_90");
	assert_true(fatbin_runs_on(&a, 8, 0));
	assert_true(fatbin_runs_on(&a, 8, 6)); /* sm_80 cubin runs on 8.6 */
	assert_true(fatbin_runs_on(&a, 9, 0));
	assert_true(fatbin_runs_on(&a, 12, 0)); /* compute_90 PTX JITs on 12.0 */
	assert_false(fatbin_runs_on(&a, 7, 5)); /* nothing for Turing */
	a.n = 2;				/* drop the PTX: sm_120 is unsupported */
	assert_false(fatbin_runs_on(&a, 12, 0));
}

static void rejects_non_elf(void **state)
{
	struct fatbin_archs a;
	char err[GS_ERR_LEN];
	assert_int_equal(fatbin_read("/nonexistent/x.so", &a, err), -1);
	assert_non_null(strstr(err, "cannot open"));
	assert_int_equal(fatbin_read(FIXTURES_DIR "/kernel-logs/raw.log", &a, err), -1);
	assert_non_null(strstr(err, "not an ELF"));
	assert_int_equal(fatbin_read(FIXTURES_DIR, &a, err), -1);
}

static void corrupt_copies(void **state)
{
	long len;
	unsigned char *b = slurp(FIXTURE, &len);
	char tmp[] = "/tmp/gs-fatbin-XXXXXX";
	int fd = mkstemp(tmp);
	struct fatbin_archs a;
	char err[GS_ERR_LEN];
	assert_true(fd >= 0);
	close(fd);
	for (long cut = 0; cut < len; cut += 97) {
		spit(tmp, b, cut);
		fatbin_read(tmp, &a, err); /* any result, no crash, bounded */
		assert_true(a.n <= FATBIN_MAX_ARCHS);
	}
	srand(7);
	for (int round = 0; round < 200; round++) {
		unsigned char *c = malloc((size_t)len);
		memcpy(c, b, (size_t)len);
		for (int k = 0; k < 16; k++)
			c[rand() % len] = (unsigned char)rand();
		/* also hit the fatbinary headers (at 0x3a0 in the fixture) hard */
		for (int k = 0; k < 8; k++)
			c[0x3a0 + rand() % 256] = (unsigned char)rand();
		spit(tmp, c, len);
		fatbin_read(tmp, &a, err);
		free(c);
	}
	/* a fat_size pointing past the section is an error */
	unsigned char *c = malloc((size_t)len);
	memcpy(c, b, (size_t)len);
	memset(c + 0x3a0 + 8, 0xff, 8);
	spit(tmp, c, len);
	assert_int_equal(fatbin_read(tmp, &a, err), -1);
	assert_non_null(strstr(err, "corrupt"));
	free(c);
	unlink(tmp);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(reads_fixture),
	    cmocka_unit_test(rejects_non_elf),
	    cmocka_unit_test(corrupt_copies),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
