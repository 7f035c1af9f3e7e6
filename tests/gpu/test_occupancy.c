/*
 * test_occupancy.c - the occupancy calculator: hand-checked cases per
 * architecture, refusals, and (when present) every row of the H200 sweep
 * recorded with cudaOccupancyMaxActiveBlocksPerMultiprocessor.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "gpu/occupancy.h"
#include "util/error.h"

struct occ_case {
	const char *arch;
	int block, regs, smem;
	int blocks; /* expected active blocks/SM */
	double occ;
	const char *limiter;
};

/* Hand-computed from the arithmetic in occupancy.c's design notes. */
static const struct occ_case cases[] = {
    {"sm_90", 256, 32, 0, 8, 1.0, "warps"},
    {"sm_90", 256, 64, 0, 4, 0.5, "registers"},
    {"sm_90", 1024, 64, 0, 1, 0.5, "registers"},
    {"sm_90", 32, 32, 0, 32, 0.5, "blocks"},
    {"sm_90", 128, 40, 0, 12, 0.75, "registers"},	     /* 1280 regs/warp: 12 warps/part */
    {"sm_90", 256, 0, 100 * 1024, 2, 0.25, "shared_memory"}, /* 101 KB each in 228 */
    {"sm_90", 128, 16, 48 * 1024, 4, 0.25, "shared_memory"}, /* 49 KB: 4 in 228 KB */
    {"sm_90", 128, 16, 227 * 1024, 1, 0.0625, "shared_memory"},
    {"sm_90", 1024, 255, 0, 0, 0.0, "registers"},  /* cannot launch */
    {"sm_86", 256, 32, 0, 6, 1.0, "warps"},	   /* 48 warps */
    {"sm_86", 64, 16, 0, 16, 2.0 / 3.0, "blocks"}, /* 16 blocks */
    {"sm_89", 64, 16, 0, 24, 1.0, "warps"},
    {"sm_80", 256, 0, 80 * 1024, 2, 0.25, "shared_memory"}, /* 81 KB in 164 KB */
    {"sm_75", 256, 32, 0, 4, 1.0, "warps"},		    /* 32 warps */
    {"sm_75", 32, 16, 0, 16, 0.5, "blocks"},
    {"sm_70", 256, 0, 48 * 1024, 2, 0.25, "shared_memory"}, /* no reserve: 96/48 */
    {"sm_100", 256, 128, 0, 2, 0.25, "registers"},
    {"sm_120", 96, 32, 0, 16, 1.0, "warps"},
};

static void test_cases(void **state)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct occ_case *c = &cases[i];
		struct occupancy_input in = {0};
		struct occupancy_result r;
		char err[GS_ERR_LEN];
		assert_int_equal(occupancy_arch_parse(c->arch, &in.cc_major, &in.cc_minor), 0);
		in.block_size = c->block;
		in.regs_per_thread = c->regs;
		in.smem_per_block = c->smem;
		assert_int_equal(occupancy_compute(&r, &in, err), 0);
		if (r.active_blocks_per_sm != c->blocks || strcmp(r.limiter, c->limiter) ||
		    r.theoretical_occupancy < c->occ - 1e-9 ||
		    r.theoretical_occupancy > c->occ + 1e-9)
			fail_msg(
			    "%s block %d regs %d smem %d: got %d blocks %.4f %s, want %d %.4f %s",
			    c->arch, c->block, c->regs, c->smem, r.active_blocks_per_sm,
			    r.theoretical_occupancy, r.limiter, c->blocks, c->occ, c->limiter);
	}
}

static void test_waves(void **state)
{
	struct occupancy_input in = {9, 0, 256, 64, 0, 1056, 0};
	struct occupancy_result r;
	assert_int_equal(occupancy_compute(&r, &in, NULL), 0);
	assert_true(r.waves > 1.999 && r.waves < 2.001); /* 1056 / (4 * 132) */
	in.grid_blocks = 0;
	assert_int_equal(occupancy_compute(&r, &in, NULL), 0);
	assert_true(r.waves == 0.0);
}

static void test_refusals(void **state)
{
	int ma, mi;
	assert_int_equal(occupancy_arch_parse("sm_90", &ma, &mi), 0);
	assert_int_equal(ma * 10 + mi, 90);
	assert_int_equal(occupancy_arch_parse("9.0", &ma, &mi), 0);
	assert_int_equal(occupancy_arch_parse("120", &ma, &mi), 0);
	assert_int_equal(ma, 12);
	const char *bad[] = {"sm_91", "sm_", "", "sm_9x", "12abc", "9.", ".0", "sm_-90", "sm_35"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (occupancy_arch_parse(bad[i], &ma, &mi) == 0)
			fail_msg("'%s' parsed", bad[i]);
	struct occupancy_input bad_in[] = {
	    {9, 0, 1025, 32, 0, 0, 0},	       {9, 0, 0, 32, 0, 0, 0},
	    {9, 0, 256, 256, 0, 0, 0},	       {9, 0, 256, -1, 0, 0, 0},
	    {9, 0, 256, 32, -1, 0, 0},	       {9, 0, 256, 32, 227 * 1024 + 1, 0, 0},
	    {9, 1, 256, 32, 0, 0, 0},	       {9, 0, 256, 32, 0, -5, 0},
	    {8, 6, 256, 32, 100 * 1024, 0, 0},
	};
	for (size_t i = 0; i < sizeof(bad_in) / sizeof(bad_in[0]); i++) {
		struct occupancy_result r;
		char err[GS_ERR_LEN] = "";
		if (occupancy_compute(&r, &bad_in[i], err) != -1 || !err[0])
			fail_msg("bad input %zu accepted", i);
	}
}

/* Every row of the H200 sweep must match exactly. */
static void test_h200_sweep(void **state)
{
	const char *path = FIXTURES_DIR "/occupancy/h200-sweep.csv";
	FILE *f = fopen(path, "r");
	if (!f) {
		printf("SKIP: %s absent (run workloads/occupancy on the H200)\n", path);
		skip();
	}
	char line[256], arch[32];
	int rows = 0, bad = 0;
	while (fgets(line, sizeof(line), f)) {
		int regs, block, sst, sdyn, want, ma, mi;
		if (line[0] == '#' || strncmp(line, "arch,", 5) == 0)
			continue;
		if (sscanf(line, "%31[^,],%d,%d,%d,%d,%d", arch, &regs, &block, &sst, &sdyn,
			   &want) != 6)
			fail_msg("unparsable row: %s", line);
		assert_int_equal(occupancy_arch_parse(arch, &ma, &mi), 0);
		struct occupancy_input in = {ma, mi, block, regs, sst + sdyn, 0, 0};
		struct occupancy_result r;
		char err[GS_ERR_LEN];
		int rc = occupancy_compute(&r, &in, err);
		int got = rc ? -1 : r.active_blocks_per_sm;
		if (got != want) {
			printf("MISMATCH: %s", line);
			printf("  got %d (%s)\n", got, rc ? err : r.limiter);
			bad++;
		}
		rows++;
	}
	fclose(f);
	printf("h200 sweep: %d rows, %d mismatches\n", rows, bad);
	assert_true(rows > 0);
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cases),
	    cmocka_unit_test(test_waves),
	    cmocka_unit_test(test_refusals),
	    cmocka_unit_test(test_h200_sweep),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
