/*
 * occupancy.h - theoretical occupancy of a kernel launch configuration.
 *
 * Mirrors what the CUDA runtime's cudaOccupancyMaxActiveBlocksPerMultiprocessor
 * computes (the logic published in cuda_occupancy.h) with the default
 * shared-memory carveout preference: the driver takes the carveout large
 * enough for the request, so the whole shared memory of the SM is available.
 * Checked row by row against the runtime on the H200
 * (tests/fixtures/occupancy/h200-sweep.csv, workloads/occupancy/sweep.cu).
 */
#ifndef GPUSCOPE_OCCUPANCY_H
#define GPUSCOPE_OCCUPANCY_H

struct occupancy_input {
	int cc_major, cc_minor;
	int block_size;
	int regs_per_thread;
	int smem_per_block;    /* static+dynamic bytes */
	long long grid_blocks; /* 0 = unknown */
	int sm_count;	       /* 0 = the arch table's default */
};

struct occupancy_result {
	int active_blocks_per_sm;
	int active_warps_per_sm;
	int max_warps_per_sm;
	double theoretical_occupancy; /* 0..1 */
	const char *limiter;	      /* "warps" | "blocks" | "registers" | "shared_memory" */
	int limit_warps, limit_blocks, limit_regs, limit_smem; /* blocks/SM allowed by each */
	double waves; /* grid_blocks / (active_blocks_per_sm * sm_count), 0 if grid unknown */
};

/*
 * Fills *out for *in. Returns 0, or -1 with a message in err (GS_ERR_LEN
 * bytes, may be NULL) for impossible input: unknown architecture, block size
 * outside 1..1024, registers outside 0..255, shared memory below 0 or above
 * the architecture's per-block maximum (opt-in), negative grid or SM count.
 * A valid configuration that cannot launch (too many registers for the
 * block) is not an error: active_blocks_per_sm is 0 and limiter says why.
 * Limits a kernel does not touch (0 registers) report the block limit.
 * On error *out is zeroed.
 */
int occupancy_compute(struct occupancy_result *out, const struct occupancy_input *in, char *err);

/* Parses "sm_90", "90", "9.0" (also "compute_90", "sm_90a", "sm_100f"). Returns 0, or -1 when
 * the text is junk or the architecture is not in the table. */
int occupancy_arch_parse(const char *arch, int *cc_major, int *cc_minor);

#endif
