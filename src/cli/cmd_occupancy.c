/*
 * cmd_occupancy.c - 'gpuscope occupancy': theoretical occupancy and its
 * limiter for one launch configuration (the math is in gpu/occupancy.c).
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "gpu/occupancy.h"
#include "util/json_out.h"

struct occupancy_opts {
	const char *arch, *format;
	int block_size, regs, sms, progress;
	long long smem, grid;
};

static const struct cli_option occupancy_options[] = {
    OPT_STRING(0, "arch", struct occupancy_opts, arch, "sm_XX",
	       "sm_70 sm_75 sm_80 sm_86 sm_89 sm_90 sm_100 sm_120 (also sm_90a,\n"
	       "compute_90, 90, 9.0)",
	       .flags = CLI_REQUIRED),
    OPT_INT(0, "block-size", struct occupancy_opts, block_size, "N", 1, 1024, "threads per block",
	    .flags = CLI_REQUIRED),
    OPT_INT(0, "regs", struct occupancy_opts, regs, "N", 0, 255,
	    "registers per thread (cudaFuncAttributes numRegs)", .flags = CLI_REQUIRED),
    OPT_BYTES(0, "smem", struct occupancy_opts, smem, "BYTES", 0, 1 << 30,
	      "static + dynamic shared memory per block (default 0; 48K = 49152)"),
    OPT_LLONG(0, "grid", struct occupancy_opts, grid, "N", 1,
	      (double)((1LL << 31) * 65535LL * 65535LL), "blocks in the grid, for waves"),
    OPT_INT(0, "sms", struct occupancy_opts, sms, "N", 1, 100000,
	    "SM count for waves (default: the architecture's usual part)"),
    OPT_FORMAT(struct occupancy_opts, format, "text|json", "text (default) or json"),
    OPT_PROGRESS(struct occupancy_opts, progress),
    OPT_END(),
};

const struct cli_spec cli_spec_occupancy = {
    .name = "occupancy",
    .max_args = 0,
    .options = occupancy_options,
    .description =
	"Theoretical occupancy of a kernel launch, as "
	"cudaOccupancyMaxActiveBlocksPerMultiprocessor\n"
	"computes it: active blocks and warps per SM, the limiter (warps, blocks, registers,\n"
	"shared_memory) and, with --grid, the number of waves.\n",
};

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
	struct occupancy_opts o = {.format = "text", .progress = -1};
	int n = cli_parse(&cli_spec_occupancy, &o, argc, argv);
	if (n < 0)
		return cli_exit(n);
	struct occupancy_input in = {
	    .block_size = o.block_size,
	    .regs_per_thread = o.regs,
	    .smem_per_block = (int)o.smem,
	    .grid_blocks = o.grid,
	    .sm_count = o.sms,
	};
	if (occupancy_arch_parse(o.arch, &in.cc_major, &in.cc_minor))
		return cli_usage_error(&cli_spec_occupancy, "unknown architecture '%s'", o.arch);

	char err[GS_ERR_LEN];
	struct occupancy_result r;
	if (occupancy_compute(&r, &in, err))
		return cli_usage_error(&cli_spec_occupancy, "%s", err);
	if (strcmp(o.format, "json") == 0)
		print_json(&in, &r);
	else
		print_text(&in, &r);
	return GS_EXIT_OK;
}
