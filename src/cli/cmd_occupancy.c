/*
 * cmd_occupancy.c - 'gpuscope occupancy': theoretical occupancy and its
 * limiter for one launch configuration (the math is in gpu/occupancy.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "gpu/occupancy.h"
#include "util/json_out.h"

void help_occupancy(FILE *f)
{
	fprintf(
	    f,
	    "usage: gpuscope occupancy --arch sm_XX --block-size N --regs N [--smem BYTES]\n"
	    "                          [--grid N] [--sms N] [--format text|json]\n"
	    "\n"
	    "Theoretical occupancy of a kernel launch, as "
	    "cudaOccupancyMaxActiveBlocksPerMultiprocessor\n"
	    "computes it: active blocks and warps per SM, the limiter (warps, blocks, registers,\n"
	    "shared_memory) and, with --grid, the number of waves.\n"
	    "\n"
	    "  --arch A         sm_70 sm_75 sm_80 sm_86 sm_89 sm_90 sm_100 sm_120 (or 90, 9.0)\n"
	    "  --block-size N   threads per block, 1..1024\n"
	    "  --regs N         registers per thread, 0..255 (cudaFuncAttributes numRegs)\n"
	    "  --smem BYTES     static + dynamic shared memory per block (default 0)\n"
	    "  --grid N         blocks in the grid, for waves\n"
	    "  --sms N          SM count for waves (default: the architecture's usual part)\n"
	    "  --format F       text (default) or json\n");
}

/* Whole decimal number in [lo, hi]; "12abc", "", "-" and overflow fail. */
static int parse_num(const char *s, long long lo, long long hi, long long *v)
{
	char *end;
	if (!s || !*s)
		return -1;
	errno = 0;
	long long x = strtoll(s, &end, 10);
	if (errno || *end || x < lo || x > hi)
		return -1;
	*v = x;
	return 0;
}

static void print_json(const struct occupancy_input *in, const struct occupancy_result *r)
{
	struct json_out j;
	json_out_init(&j, stdout, 1);
	json_begin_object(&j);
	json_kv_string(&j, "schema", "gpuscope.occupancy.v1");
	json_kv_int(&j, "cc_major", in->cc_major);
	json_kv_int(&j, "cc_minor", in->cc_minor);
	json_kv_int(&j, "block_size", in->block_size);
	json_kv_int(&j, "regs_per_thread", in->regs_per_thread);
	json_kv_int(&j, "smem_per_block", in->smem_per_block);
	json_kv_int(&j, "active_blocks_per_sm", r->active_blocks_per_sm);
	json_kv_int(&j, "active_warps_per_sm", r->active_warps_per_sm);
	json_kv_int(&j, "max_warps_per_sm", r->max_warps_per_sm);
	json_kv_double(&j, "theoretical_occupancy", r->theoretical_occupancy);
	json_kv_string(&j, "limiter", r->limiter);
	json_kv_int(&j, "limit_warps", r->limit_warps);
	json_kv_int(&j, "limit_blocks", r->limit_blocks);
	json_kv_int(&j, "limit_regs", r->limit_regs);
	json_kv_int(&j, "limit_smem", r->limit_smem);
	if (in->grid_blocks > 0) {
		json_kv_int(&j, "grid_blocks", in->grid_blocks);
		json_kv_double(&j, "waves", r->waves);
	}
	json_end_object(&j);
	fputc('\n', stdout);
}

static void print_text(const struct occupancy_input *in, const struct occupancy_result *r)
{
	printf("sm_%d%d, block %d, %d regs/thread, %d B shared memory/block\n", in->cc_major,
	       in->cc_minor, in->block_size, in->regs_per_thread, in->smem_per_block);
	printf("active blocks/SM       %d\n", r->active_blocks_per_sm);
	printf("active warps/SM        %d of %d\n", r->active_warps_per_sm, r->max_warps_per_sm);
	printf("theoretical occupancy  %.1f%%\n", 100.0 * r->theoretical_occupancy);
	printf("limiter                %s\n", r->limiter);
	printf("blocks/SM allowed by   warps %d, blocks %d, registers %d, shared memory %d\n",
	       r->limit_warps, r->limit_blocks, r->limit_regs, r->limit_smem);
	if (in->grid_blocks > 0)
		printf("waves                  %.2f (grid %lld)\n", r->waves, in->grid_blocks);
	if (r->active_blocks_per_sm == 0)
		printf("this configuration cannot launch: too many registers for the block\n");
}

int cmd_occupancy(int argc, char **argv)
{
	struct occupancy_input in = {0};
	const char *arch = NULL, *format = "text";
	int have_block = 0, have_regs = 0;
	long long v;

	for (int i = 1; i < argc; i++) {
		const char *opt = argv[i];
		if (strncmp(opt, "--", 2) != 0)
			return usage_error("occupancy: unexpected argument '%s'", opt);
		if (i + 1 >= argc)
			return usage_error("occupancy: option '%s' needs a value", opt);
		const char *val = argv[++i];
		if (strcmp(opt, "--arch") == 0) {
			arch = val;
		} else if (strcmp(opt, "--format") == 0) {
			if (strcmp(val, "text") && strcmp(val, "json"))
				return usage_error("occupancy: unknown format '%s'", val);
			format = val;
		} else if (strcmp(opt, "--block-size") == 0) {
			if (parse_num(val, 1, 1024, &v))
				return usage_error("occupancy: block size '%s' is not in 1..1024",
						   val);
			in.block_size = (int)v;
			have_block = 1;
		} else if (strcmp(opt, "--regs") == 0) {
			if (parse_num(val, 0, 255, &v))
				return usage_error("occupancy: registers '%s' is not in 0..255",
						   val);
			in.regs_per_thread = (int)v;
			have_regs = 1;
		} else if (strcmp(opt, "--smem") == 0) {
			if (parse_num(val, 0, 1 << 30, &v))
				return usage_error(
				    "occupancy: shared memory '%s' is not a byte count", val);
			in.smem_per_block = (int)v;
		} else if (strcmp(opt, "--grid") == 0) {
			if (parse_num(val, 1, (1LL << 31) * 65535LL * 65535LL, &v))
				return usage_error("occupancy: grid '%s' is not a block count",
						   val);
			in.grid_blocks = v;
		} else if (strcmp(opt, "--sms") == 0) {
			if (parse_num(val, 1, 100000, &v))
				return usage_error(
				    "occupancy: sm count '%s' is not a positive number", val);
			in.sm_count = (int)v;
		} else {
			return usage_error("occupancy: unknown option '%s'", opt);
		}
	}
	if (!arch)
		return usage_error("occupancy: --arch is required");
	if (!have_block)
		return usage_error("occupancy: --block-size is required");
	if (!have_regs)
		return usage_error("occupancy: --regs is required");
	if (occupancy_arch_parse(arch, &in.cc_major, &in.cc_minor))
		return usage_error("occupancy: unknown architecture '%s'", arch);

	char err[GS_ERR_LEN];
	struct occupancy_result r;
	if (occupancy_compute(&r, &in, err))
		return usage_error("occupancy: %s", err);
	if (strcmp(format, "json") == 0)
		print_json(&in, &r);
	else
		print_text(&in, &r);
	return GS_EXIT_OK;
}
