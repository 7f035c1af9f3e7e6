/*
 * cmd_vram.c - 'gpuscope vram': memory a fine-tune or an inference needs,
 * broken down, against a GPU; what to change when it does not fit.
 *
 * Parses options into struct vram_opts and hands them to src/vram (opts.c:
 * the model, the job and the GPU; the estimate, the fit ladder, the text
 * and JSON forms). Exit 0 when it fits (or no GPU is known), 3 when it
 * does not, 1 on bad input, 2 on a bad command line.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "vram/advise.h"
#include "vram/opts.h"
#include "vram/render.h"

static int params_option(void *field, const char *arg, char *err)
{
	if (vram_parse_count(arg, (long long *)field))
		return error_set(err, "parameter count '%s' is not a count (7e9, 6.7B, 125M)", arg);
	return 0;
}

static int optimizer_option(void *field, const char *arg, char *err)
{
	enum vram_optimizer v;
	if (vram_optimizer_parse(arg, &v))
		return error_set(
		    err,
		    "unknown optimizer '%s' (adamw, adamw-fused, adamw8bit, "
		    "paged-adamw8bit, adafactor, sgd, or HF Trainer's optim names: "
		    "adamw_torch, adamw_torch_fused, adamw_bnb_8bit, paged_adamw_8bit)",
		    arg);
	*(const char **)field = arg;
	return 0;
}

static int shard_option(void *field, const char *arg, char *err)
{
	enum vram_shard v;
	if (vram_shard_parse(arg, &v))
		return error_set(err,
				 "unknown --shard '%s' (none, zero1, zero2, zero3, fsdp, "
				 "shard_grad_op)",
				 arg);
	*(const char **)field = arg;
	return 0;
}

#define O struct vram_opts
static const struct cli_option vram_options[] = {
    OPT_CHOICE(0, "mode", O, mode, "full|lora|qlora|inference", "what runs (default full)"),
    OPT_CHOICE(0, "precision", O, precision, "amp|bf16|fp32|fp8",
	       "amp (default): bf16 autocast with fp32 master weights; bf16, fp32 pure;\n"
	       "fp8: weights of a lora/qlora base or of an inference"),
    OPT_CALLBACK(0, "optimizer", O, optimizer, const char *, "NAME", optimizer_option,
		 "adamw (torch.optim.AdamW's default, foreach), adamw-fused, adamw8bit,\n"
		 "paged-adamw8bit (bitsandbytes), adafactor (transformers'), sgd (momentum);\n"
		 "HF Trainer's optim names too (default adamw)"),
    OPT_LLONG(0, "batch", O, batch, "N", 1, 1000000, "micro-batch (default 1)"),
    OPT_LLONG(0, "seq", O, seq, "N", 1, 100000000,
	      "tokens per sample; the prompt for inference (default 2048)"),
    OPT_LLONG(0, "accum", O, accum, "N", 1, 1000000, "gradient accumulation steps (default 1)"),
    OPT_CHOICE(0, "checkpointing", O, ckpt, "none|selective|full",
	       "activation checkpointing (default none)"),
    OPT_CHOICE(0, "attention", O, attention, "sdpa|eager", "attention implementation (sdpa)"),
    OPT_LLONG(0, "lora-rank", O, rank, "R", 1, 65536, "LoRA rank (default 16)"),
    OPT_STRING(0, "lora-targets", O, targets, "LIST",
	       "modules with adapters, comma-separated, or all-linear\n"
	       "(default: peft's for the family, e.g. q_proj,v_proj)"),
    OPT_DOUBLE(0, "lora-dropout", O, lora_dropout, "P", 0, 0.99, "LoRA dropout (default 0)"),
    OPT_BOOL(0, "double-quant", O, double_quant,
	     "qlora: quantise the quantisation constants (default on)"),
    OPT_LLONG(0, "new-tokens", O, new_tokens, "N", 0, 100000000,
	      "inference: tokens generated after the prompt (default 256)"),
    OPT_FLAG(0, "kv-paged", O, kv_paged, "inference: a paged KV cache (blocks of 16 tokens)"),
    OPT_CHOICE(0, "kv-dtype", O, kv_dtype, "bf16|fp8",
	       "inference: the KV cache's precision (bf16)"),
    OPT_LLONG(0, "gpus", O, gpus, "N", 1, 4096,
	      "GPUs the job spreads over (memory is per GPU): data parallel for\n"
	      "training (see --shard), tensor parallel for inference (default 1)"),
    OPT_CALLBACK(0, "shard", O, shard, const char *, "STAGE", shard_option,
		 "training over --gpus: none (DDP), zero1, zero2 (FSDP shard_grad_op),\n"
		 "zero3 (fsdp, full_shard)"),
    OPT_CHOICE(0, "offload", O, offload, "none|optimizer|params",
	       "training: the optimizer (ZeRO-Offload), or the parameters too, in host\n"
	       "memory"),
    OPT_STRING(0, "gpu", O, gpu, "NAME",
	       "fit against a card (list: the table); local: the GPU through NVML;\n"
	       "table: the common cards; none: no fit (default: the local GPU, or the\n"
	       "common cards when there is none)"),
    OPT_FORMAT(O, format, "text|json", "text (default) or json"),
    OPT_FLAG(0, "list", O, list, "list the presets"),
    OPT_STRING(0, "recording", O, recording, "FILE",
	       "a gpuscope recording of the run: its peak device memory (the caching\n"
	       "allocator's reserved memory) beside the estimate"),
    OPT_CHOICE(0, "family", O, family, "llama|gemma|gpt2|bert|vit",
	       "shape: the implementation layout (default llama)"),
    OPT_CALLBACK(0, "params", O, params, long long, "N", params_option,
		 "shape: total parameters (7e9, 6.7B, 125M), replacing the computed count"),
    OPT_LLONG(0, "layers", O, layers, "N", 1, 100000, "shape: layers"),
    OPT_LLONG(0, "hidden", O, hidden, "N", 1, 1 << 20, "shape: hidden size"),
    OPT_LLONG(0, "heads", O, heads, "N", 1, 65536, "shape: attention heads"),
    OPT_LLONG(0, "kv-heads", O, kv_heads, "N", 1, 65536, "shape: key/value heads (GQA)"),
    OPT_LLONG(0, "head-dim", O, head_dim, "N", 1, 65536, "shape: head dimension"),
    OPT_LLONG(0, "intermediate", O, intermediate, "N", 1, 1 << 22, "shape: MLP width"),
    OPT_LLONG(0, "vocab", O, vocab, "N", 0, 1 << 24, "shape: vocabulary size"),
    OPT_BOOL(0, "tied", O, tied, "shape: the lm_head shares the token embedding"),
    OPT_PROGRESS(O, progress),
    OPT_END(),
};
#undef O

const struct cli_spec cli_spec_vram = {
    .name = "vram",
    .args = "[MODEL]",
    .min_args = 0,
    .max_args = 1,
    .options = vram_options,
    .description =
	"How much GPU memory a fine-tune or an inference needs, part by part (weights,\n"
	"gradients, optimizer states, activations, KV cache, CUDA context, allocator\n"
	"headroom), whether it fits a GPU, and the cheapest changes that make it fit\n"
	"(docs/vram.md).\n"
	"\n"
	"MODEL is a Hugging Face config.json (or a folder holding one), read locally, or a\n"
	"preset (--list), by its name or the hub id it copies (meta-llama/Llama-2-7b-hf,\n"
	"with or without the organisation, any case). The shape options describe a model\n"
	"without one, or override its fields. Without a GPU (or with --gpu table) the job\n"
	"is set against common cards.\n",
    .footer = "exit codes: 0 fits (or no GPU known), 3 does not fit, 1 bad input, 2 usage\n",
};

/* The advice for the card (gpu NULL: none), the fit table (table), the
 * recording's peak, then the report; the exit code. */
static int advise(const struct vram_opts *o, const struct vram_model *m, const struct vram_job *job,
		  const struct vram_gpu *gpu, int table, const struct vram_estimate *est,
		  struct vram_advice *adv, struct vram_fit_row *fit)
{
	struct vram_recording_peak rp;
	char err[GS_ERR_LEN];
	if (gpu && vram_advise(adv, m, job, gpu, err))
		return error_print("vram: %s", err);
	int n_fit = table ? vram_fit_table(fit, VRAM_MAX_FIT_ROWS, m, job, err) : 0;
	if (n_fit < 0)
		return error_print("vram: %s", err);
	if (o->recording && vram_recording_peak_file(&rp, o->recording, err))
		return error_print("vram: %s", err);
	struct vram_report rep = {m,
				  job,
				  est,
				  gpu,
				  gpu ? adv : NULL,
				  o->recording ? &rp : NULL,
				  o->recording,
				  table ? fit : NULL,
				  n_fit};
	if (strcmp(o->format, "json") == 0)
		vram_render_json(stdout, &rep);
	else
		vram_render_text(stdout, &rep);
	if (fflush(stdout) || ferror(stdout))
		return error_print("vram: cannot write the output");
	return gpu && !adv->fits ? GS_EXIT_FOUND : GS_EXIT_OK;
}

int cmd_vram(int argc, char **argv)
{
	struct vram_opts o = {.format = "text", .double_quant = -1, .tied = -1, .new_tokens = -1};
	struct vram_model m;
	struct vram_job job;
	struct vram_gpu gpu;
	struct vram_estimate est;
	char err[GS_ERR_LEN];

	int n = cli_parse(&cli_spec_vram, &o, argc, argv);
	if (n < 0)
		return cli_exit(n);
	if (o.list) {
		vram_list_presets(stdout, strcmp(o.format, "json") == 0);
		return GS_EXIT_OK;
	}
	if (o.gpu && strcmp(o.gpu, "list") == 0) {
		vram_list_gpus(stdout, strcmp(o.format, "json") == 0);
		return GS_EXIT_OK;
	}
	if (n == 0 && !o.layers && !o.hidden && !o.heads)
		return cli_usage_error(&cli_spec_vram,
				       "give a MODEL (config.json or preset) or its shape "
				       "(--layers, --hidden, --heads, ...)");
	if (n == 0 && (!o.layers || !o.hidden || !o.heads))
		return cli_usage_error(&cli_spec_vram,
				       "a shape needs at least --layers, --hidden and --heads");
	if (vram_build_model(&m, n ? argv[0] : NULL, &o, err))
		return error_print("vram: %s", err);
	if (vram_build_job(&job, &m, &o))
		return cli_usage_error(&cli_spec_vram, "--lora-targets wants up to %d names",
				       VRAM_MAX_TARGETS);
	/* --gpu table, or no GPU named and none here: the job on common cards */
	int table = o.gpu && strcmp(o.gpu, "table") == 0;
	int have_gpu = table ? 0 : vram_pick_gpu(&gpu, o.gpu, err);
	if (have_gpu == -2)
		return cli_usage_error(&cli_spec_vram,
				       "unknown GPU '%s' (gpuscope vram --gpu list)", o.gpu);
	if (have_gpu < 0)
		return error_print("vram: %s", err);
	if (have_gpu)
		vram_job_for_gpu(&job, &gpu);
	table |= !have_gpu && !o.gpu;

	if (vram_estimate(&est, &m, &job, err))
		return error_print("vram: %s", err);
	/* the advice and the fit table are large: on the heap */
	struct vram_advice *adv = calloc(1, sizeof(*adv));
	struct vram_fit_row *fit = calloc(VRAM_MAX_FIT_ROWS, sizeof(*fit));
	int rc = adv && fit ? advise(&o, &m, &job, have_gpu ? &gpu : NULL, table, &est, adv, fit)
			    : error_print("vram: out of memory");
	free(adv);
	free(fit);
	return rc;
}
