/*
 * occupancy.c - the occupancy calculator: one table of per-architecture
 * limits and the runtime's arithmetic over it (see occupancy.h).
 *
 * Design notes (the invariants the H200 sweep checks):
 * 1. Registers are allocated per warp: regs * 32 rounded up to 256. Each of
 *    the 4 SM sub-partitions holds regs_per_sm / 4 registers, so warps/SM =
 *    4 * floor(regs_per_sm / 4 / regs_per_warp). A block needs its warp
 *    count rounded up to 4 warps' worth within regs_per_block, or it cannot
 *    launch (cuda_occupancy.h's "hardware check").
 * 2. Shared memory per block = static + dynamic + the driver's reserved
 *    1 KB (sm_80+), rounded up to 128 bytes (256 before sm_80).
 * 3. With the default carveout preference the driver picks a carveout that
 *    is large enough, so the SM's full shared memory counts.
 * 4. Ties go to warps, then blocks, then registers, then shared memory: the
 *    inherent limits first, so "registers" only names a real constraint.
 */
#include "gpu/occupancy.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

/*
 * Sources: CUDA C Programming Guide, "Compute Capabilities", table
 * "Technical Specifications per Compute Capability" (warps, blocks,
 * registers, shared memory per SM and per block, carveouts) and CUDA 13.0
 * cuda_occupancy.h (allocation granularities, sub-partitions, blocks/SM,
 * carveout lists, reservedSharedMemPerBlock). SM counts are the common
 * data-centre part of each architecture.
 */
struct arch_limits {
	int major, minor;
	int max_warps;				   /* per SM */
	int max_blocks;				   /* per SM */
	int regs_per_sm, regs_per_block, reg_unit; /* reg_unit: per-warp granularity */
	int max_regs_thread;
	int smem_per_sm;      /* the largest carveout, bytes */
	int smem_per_block;   /* opt-in maximum, bytes, excluding the reserved part */
	int smem_reserved;    /* per block, reserved by the driver */
	int smem_unit;	      /* allocation granularity */
	int carveouts_kb[12]; /* shared-memory configurations, 0-terminated after the first */
	int sm_count;	      /* default */
	const char *example;
};

/* One row per architecture: cc, warps/SM, blocks/SM, registers per SM / per block /
 * per-warp unit, max registers per thread, shared memory per SM / per block / reserved
 * per block / unit, carveouts (KB), default SM count, an example part. */
/* clang-format off */
static const struct arch_limits arch_table[] = {
    /* Guide: 7.0 64 warps, 32 blocks, 96 KB; cuda_occupancy.h: 256 B granularity */
    {7, 0, 64, 32, 65536, 65536, 256, 255,
     96 * 1024, 96 * 1024, 0, 256, {0, 8, 16, 32, 64, 96}, 80, "V100"},
    /* Guide: 7.5 32 warps, 16 blocks, 64 KB (32 or 64 KB carveout) */
    {7, 5, 32, 16, 65536, 65536, 256, 255,
     64 * 1024, 64 * 1024, 0, 256, {32, 64}, 40, "T4"},
    /* Guide: 8.0 64 warps, 32 blocks, 164 KB/SM, 163 KB/block, 1 KB reserved */
    {8, 0, 64, 32, 65536, 65536, 256, 255,
     164 * 1024, 163 * 1024, 1024, 128, {0, 8, 16, 32, 64, 100, 132, 164}, 108, "A100"},
    /* Guide: 8.6 48 warps, 16 blocks, 100 KB/SM, 99 KB/block */
    {8, 6, 48, 16, 65536, 65536, 256, 255,
     100 * 1024, 99 * 1024, 1024, 128, {0, 8, 16, 32, 64, 100}, 72, "A10"},
    /* Guide: 8.9 48 warps, 24 blocks, 100 KB/SM, 99 KB/block */
    {8, 9, 48, 24, 65536, 65536, 256, 255,
     100 * 1024, 99 * 1024, 1024, 128, {0, 8, 16, 32, 64, 100}, 142, "L40S"},
    /* Guide: 9.0 64 warps, 32 blocks, 228 KB/SM, 227 KB/block (H200: 132 SMs) */
    {9, 0, 64, 32, 65536, 65536, 256, 255,
     228 * 1024, 227 * 1024, 1024, 128,
     {0, 8, 16, 32, 64, 100, 132, 164, 196, 228}, 132, "H100/H200"},
    /* Guide: 10.0 64 warps, 32 blocks, 228 KB/SM, 227 KB/block */
    {10, 0, 64, 32, 65536, 65536, 256, 255,
     228 * 1024, 227 * 1024, 1024, 128,
     {0, 8, 16, 32, 64, 100, 132, 164, 196, 228}, 148, "B200"},
    /* Guide: 12.0 48 warps, 100 KB/SM, 99 KB/block; cuda_occupancy.h: 24 blocks */
    {12, 0, 48, 24, 65536, 65536, 256, 255,
     100 * 1024, 99 * 1024, 1024, 128, {0, 8, 16, 32, 64, 100}, 170, "RTX 5090"},
};
/* clang-format on */

#define N_ARCH (sizeof(arch_table) / sizeof(arch_table[0]))
#define WARP 32
#define SUB_PARTITIONS 4

static const struct arch_limits *arch_find(int major, int minor)
{
	for (size_t i = 0; i < N_ARCH; i++)
		if (arch_table[i].major == major && arch_table[i].minor == minor)
			return &arch_table[i];
	return NULL;
}

static int round_up(int x, int unit)
{
	return (x + unit - 1) / unit * unit;
}

static int parse_digits(const char *s, int *v)
{
	if (!*s || strlen(s) > 4)
		return -1;
	for (const char *p = s; *p; p++)
		if (*p < '0' || *p > '9')
			return -1;
	*v = atoi(s);
	return 0;
}

int occupancy_arch_parse(const char *arch, int *cc_major, int *cc_minor)
{
	int major, minor, v;
	if (!arch)
		return -1;
	if (strncmp(arch, "sm_", 3) == 0)
		arch += 3;
	else if (strncmp(arch, "compute_", 8) == 0)
		arch += 8;
	/* sm_90a, sm_100f: the arch-specific and family-specific targets
	 * (nvcc -arch) have the limits of their base architecture */
	char base[16];
	size_t len = strlen(arch);
	if (len >= 2 && len < sizeof(base) && (arch[len - 1] == 'a' || arch[len - 1] == 'f')) {
		memcpy(base, arch, len - 1);
		base[len - 1] = '\0';
		arch = base;
	}
	const char *dot = strchr(arch, '.');
	if (dot) {
		char buf[8];
		size_t n = (size_t)(dot - arch);
		if (n == 0 || n >= sizeof(buf))
			return -1;
		memcpy(buf, arch, n);
		buf[n] = '\0';
		if (parse_digits(buf, &major) || parse_digits(dot + 1, &minor) || minor > 9)
			return -1;
	} else {
		if (parse_digits(arch, &v) || v < 10)
			return -1;
		major = v / 10;
		minor = v % 10;
	}
	if (!arch_find(major, minor))
		return -1;
	*cc_major = major;
	*cc_minor = minor;
	return 0;
}

/* Blocks/SM the register file allows (note 1); 0 = cannot launch. */
static int regs_limit(const struct arch_limits *a, int regs, int warps_per_block)
{
	if (regs == 0)
		return a->max_blocks;
	int per_warp = round_up(regs * WARP, a->reg_unit);
	if (per_warp * round_up(warps_per_block, SUB_PARTITIONS) > a->regs_per_block ||
	    per_warp * warps_per_block > a->regs_per_block)
		return 0;
	int warps_sm = (a->regs_per_sm / SUB_PARTITIONS / per_warp) * SUB_PARTITIONS;
	return warps_sm / warps_per_block;
}

int occupancy_compute(struct occupancy_result *out, const struct occupancy_input *in, char *err)
{
	memset(out, 0, sizeof(*out));
	const struct arch_limits *a = arch_find(in->cc_major, in->cc_minor);
	if (!a)
		return error_set(err, "unknown architecture 'sm_%d%d'", in->cc_major, in->cc_minor);
	if (in->block_size < 1 || in->block_size > 1024)
		return error_set(err, "block size %d is outside 1..1024", in->block_size);
	if (in->regs_per_thread < 0 || in->regs_per_thread > a->max_regs_thread)
		return error_set(err, "%d registers per thread is outside 0..%d",
				 in->regs_per_thread, a->max_regs_thread);
	if (in->smem_per_block < 0 || in->smem_per_block > a->smem_per_block)
		return error_set(err,
				 "%d bytes of shared memory per block is outside 0..%d on sm_%d%d",
				 in->smem_per_block, a->smem_per_block, a->major, a->minor);
	if (in->grid_blocks < 0)
		return error_set(err, "grid of %lld blocks is negative", in->grid_blocks);
	if (in->sm_count < 0)
		return error_set(err, "sm count %d is negative", in->sm_count);

	int warps_per_block = (in->block_size + WARP - 1) / WARP;
	out->max_warps_per_sm = a->max_warps;
	out->limit_warps = a->max_warps / warps_per_block;
	out->limit_blocks = a->max_blocks;
	out->limit_regs = regs_limit(a, in->regs_per_thread, warps_per_block);
	int smem = round_up(in->smem_per_block + a->smem_reserved, a->smem_unit);
	out->limit_smem = smem > 0 ? a->smem_per_sm / smem : a->max_blocks;

	/* note 4: the first of the minima wins a tie */
	int n = out->limit_warps;
	out->limiter = "warps";
	if (out->limit_blocks < n) {
		n = out->limit_blocks;
		out->limiter = "blocks";
	}
	if (out->limit_regs < n) {
		n = out->limit_regs;
		out->limiter = "registers";
	}
	if (out->limit_smem < n) {
		n = out->limit_smem;
		out->limiter = "shared_memory";
	}
	out->active_blocks_per_sm = n;
	out->active_warps_per_sm = n * warps_per_block;
	out->theoretical_occupancy = (double)out->active_warps_per_sm / a->max_warps;
	int sms = in->sm_count ? in->sm_count : a->sm_count;
	if (in->grid_blocks > 0 && n > 0)
		out->waves = (double)in->grid_blocks / ((double)n * sms);
	return 0;
}
