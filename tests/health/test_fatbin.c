/*
 * test_fatbin.c - SM list of the nvcc-made fixture (tests/fixtures/fatbin/README.md) and
 * no crash on corrupt copies (truncated at every 97th byte, random bytes over the fatbin);
 * #21 item 10: a section claiming 1 GB is refused after a bounded number of reads, and a
 * section without a valid fatbinary, a bad architecture or a directory are errors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
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

/* The fixture's fatbinary section header (in b). */
static Elf64_Shdr *fatbin_shdr(unsigned char *b)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)b;
	Elf64_Shdr *sh = (Elf64_Shdr *)(b + eh->e_shoff);
	const char *names = (const char *)b + sh[eh->e_shstrndx].sh_offset;
	for (int i = 0; i < eh->e_shnum; i++)
		if (!strcmp(names + sh[i].sh_name, "__nv_relfatbin") ||
		    !strcmp(names + sh[i].sh_name, ".nv_fatbin"))
			return &sh[i];
	fail_msg("no fatbinary section in the fixture");
	return NULL;
}

static void huge_section_is_bounded(void **state)
{
	long len;
	unsigned char *b = slurp(FIXTURE, &len);
	char tmp[] = "/tmp/gs-fatbin-XXXXXX";
	struct fatbin_archs a;
	char err[GS_ERR_LEN];
	int fd = mkstemp(tmp);
	assert_true(fd >= 0);
	/* the section moves to a 1 GB hole (a sparse file: zeros, no fatbinary) */
	Elf64_Shdr *sh = fatbin_shdr(b);
	uint64_t off = ((uint64_t)len + 4095) & ~4095ull;
	sh->sh_offset = off;
	sh->sh_size = 1ull << 30;
	assert_int_equal(write(fd, b, (size_t)len), len);
	assert_int_equal(ftruncate(fd, (off_t)(off + sh->sh_size)), 0);
	close(fd);
	assert_int_equal(fatbin_read(tmp, &a, err), -1);
	assert_non_null(strstr(err, "corrupt fatbinary section"));
	/* was one read per 8 bytes (134 million; 55 s): now 64 KiB reads up to a 1 MiB gap */
	assert_true(a.reads < 64);
	unlink(tmp);
	free(b);
}

static void corrupt_is_an_error(void **state)
{
	long len;
	unsigned char *b = slurp(FIXTURE, &len);
	char tmp[] = "/tmp/gs-fatbin-XXXXXX";
	struct fatbin_archs a;
	char err[GS_ERR_LEN];
	int fd = mkstemp(tmp);
	assert_true(fd >= 0);
	close(fd);
	Elf64_Shdr *sh = fatbin_shdr(b);
	unsigned char *fb = b + sh->sh_offset;
	uint32_t magic = 0xBA55ED50u, bad = 0xffffffffu;
	assert_memory_equal(fb, &magic, 4);

	/* no magic anywhere in the section: it was "ok" with no architecture */
	unsigned char *c = malloc((size_t)len);
	memcpy(c, b, (size_t)len);
	memset(c + sh->sh_offset, 0, 4);
	spit(tmp, c, len);
	assert_int_equal(fatbin_read(tmp, &a, err), -1);
	assert_non_null(strstr(err, "corrupt fatbinary section"));

	/* an entry with an impossible architecture: it was silently skipped */
	uint16_t hsize;
	memcpy(c, b, (size_t)len);
	memcpy(&hsize, fb + 6, 2);
	memcpy(c + sh->sh_offset + hsize + 28, &bad, 4);
	spit(tmp, c, len);
	assert_int_equal(fatbin_read(tmp, &a, err), -1);
	assert_non_null(strstr(err, "architecture"));
	free(c);
	unlink(tmp);

	assert_int_equal(fatbin_read(FIXTURES_DIR, &a, err), -1);
	assert_non_null(strstr(err, "is a directory"));
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(reads_fixture),	   cmocka_unit_test(rejects_non_elf),
	    cmocka_unit_test(corrupt_copies),	   cmocka_unit_test(huge_section_is_bounded),
	    cmocka_unit_test(corrupt_is_an_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
