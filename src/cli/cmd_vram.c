/*
 * cmd_vram.c - 'gpuscope vram': memory a fine-tune or an inference needs,
 * broken down, against a GPU; what to change when it does not fit.
 *
 * Parses options into a model and a job and hands them to src/vram (the
 * estimate, the fit ladder, the text and JSON forms). Exit 0 when it
 * fits (or no GPU is known), 3 when it does not, 1 on bad input, 2 on a
 * bad command line.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "vram/render.h"
#include "trace/trace_db.h"
#include "vram/advise.h"
#include "vram/recording.h"

/* "7e9", "6.7B", "125M", "350m", "70b", "1.5T". */
static int parse_count(const char *s, long long *v)
{
	char *end;
	errno = 0;
	double x = strtod(s, &end);
	if (errno || end == s || !isfinite(x) || x <= 0)
		return -1;
	double mul = 1;
	if (*end) {
		switch (*end) {
		case 'k':
		case 'K':
			mul = 1e3;
			break;
		case 'm':
		case 'M':
			mul = 1e6;
			break;
		case 'b':
		case 'B':
		case 'g':
		case 'G':
			mul = 1e9;
			break;
		case 't':
		case 'T':
			mul = 1e12;
			break;
		default:
			return -1;
		}
		if (end[1])
			return -1;
	}
	x *= mul;
	if (x < 1 || x > 1e14)
		return -1;
	*v = (long long)llround(x);
	return 0;
}

static void list_presets(FILE *f)
{
	struct vram_params p;
	for (int i = 0; vram_preset_at(i); i++) {
		const struct vram_model *m = vram_preset_at(i);
		vram_model_params(&p, m);
		fprintf(f, "%-24s %-8s %8.3f B  %s\n", m->name, m->model_type, p.total / 1e9,
			m->source);
	}
}

static void list_gpus(FILE *f)
{
	for (int i = 0; vram_gpu_at(i); i++) {
		const struct vram_gpu *g = vram_gpu_at(i);
		fprintf(f, "%-18s %9.0f MiB  %s\n", g->name, g->bytes / (1024.0 * 1024.0),
			g->source);
	}
}

/* MODEL: a preset, a config.json, or a folder holding one. */
static int load_model(struct vram_model *m, const char *arg, char *err)
{
	struct stat st;
	char path[4096];
	if (vram_preset_find(m, arg) == 0)
		return 0;
	if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(path, sizeof(path), "%s/config.json", arg);
		return vram_model_from_config(m, path, err);
	}
	if (stat(arg, &st) != 0 && !strchr(arg, '/') && !strstr(arg, ".json"))
		return error_set(err, "'%s' is neither a preset (gpuscope vram --list) nor a file",
				 arg);
	return vram_model_from_config(m, arg, err);
}

struct vram_opts {
	const char *mode, *precision, *optimizer, *ckpt, *attention, *targets, *gpu, *format;
	const char *family, *recording;
	long long batch, seq, accum, rank, new_tokens, params;
	long long layers, hidden, heads, kv_heads, head_dim, intermediate, vocab;
	double lora_dropout;
	int double_quant, kv_paged, list, tied, progress;
};

static int params_option(void *field, const char *arg, char *err)
{
	if (parse_count(arg, (long long *)field))
		return error_set(err, "parameter count '%s' is not a count (7e9, 6.7B, 125M)", arg);
	return 0;
}

#define O struct vram_opts
static const struct cli_option vram_options[] = {
    OPT_CHOICE(0, "mode", O, mode, "full|lora|qlora|inference", "what runs (default full)"),
    OPT_CHOICE(0, "precision", O, precision, "amp|bf16|fp32|fp8",
	       "amp (default): bf16 autocast with fp32 master weights; bf16, fp32 pure;\n"
	       "fp8: weights of a lora/qlora base or of an inference"),
    OPT_CHOICE(0, "optimizer", O, optimizer, "adamw|adamw8bit|sgd|adafactor",
	       "(default adamw; sgd with momentum)"),
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
    OPT_STRING(0, "gpu", O, gpu, "NAME",
	       "fit against a card (list: the table); local: the GPU through NVML;\n"
	       "none: no fit (default: the local GPU when there is one)"),
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
	"preset (--list). The shape options describe a model without one, or override\n"
	"its fields.\n",
    .footer = "exit codes: 0 fits (or no GPU known), 3 does not fit, 1 bad input, 2 usage\n",
};

/* The model: MODEL, or the shape options alone; shape options override. */
static int build_model(struct vram_model *m, const char *arg, const struct vram_opts *o, char *err)
{
	enum vram_family fam = VRAM_FAM_LLAMA;
	if (o->family && vram_family_parse(o->family, &fam))
		return error_set(err, "unknown family '%s'", o->family);
	memset(m, 0, sizeof(*m));
	if (arg) {
		if (load_model(m, arg, err))
			return -1;
		if (o->family && fam != m->family)
			return error_set(err, "--family %s contradicts the model's family (%s)",
					 o->family, vram_family_name(m->family));
	} else {
		if (!o->layers || !o->hidden || !o->heads)
			return error_set(err, "give a MODEL (config.json or preset) or at least "
					      "--layers, --hidden and --heads");
		m->family = fam;
		vram_model_defaults(m);
		snprintf(m->name, sizeof(m->name), "custom %s", vram_family_name(fam));
		snprintf(m->model_type, sizeof(m->model_type), "%s", vram_family_name(fam));
		m->vocab = vram_model_is_lm(m) ? 32000 : (fam == VRAM_FAM_BERT ? 30522 : 0);
		m->kv_heads = m->heads = o->heads;
	}
#define SET(f)                                                                                     \
	if (o->f)                                                                                  \
	m->f = o->f
	SET(layers);
	SET(hidden);
	SET(heads);
	SET(kv_heads);
	SET(head_dim);
	SET(intermediate);
	SET(vocab);
#undef SET
	if (!arg && !o->kv_heads)
		m->kv_heads = m->heads;
	if ((o->hidden || o->heads) && !o->head_dim)
		m->head_dim = m->hidden / m->heads;
	if (!m->intermediate) /* Llama's rule: 2/3 of 4h, a multiple of 256; else 4h */
		m->intermediate =
		    m->gated_mlp ? ((8 * m->hidden / 3 + 255) / 256) * 256 : 4 * m->hidden;
	if (o->params)
		m->params_override = o->params;
	if (o->tied >= 0)
		m->tied = o->tied;
	return vram_model_check(m, err);
}

/* The job from the options (the choices were checked by the table). */
static void build_job(struct vram_job *j, const struct vram_model *m, const struct vram_opts *o)
{
	vram_job_defaults(j);
	if (o->mode)
		vram_mode_parse(o->mode, &j->mode);
	if (o->precision)
		vram_precision_parse(o->precision, &j->precision);
	if (o->optimizer)
		vram_optimizer_parse(o->optimizer, &j->optimizer);
	if (o->ckpt)
		vram_ckpt_parse(o->ckpt, &j->ckpt);
	if (o->attention && !strcmp(o->attention, "eager"))
		j->attn = VRAM_ATTN_EAGER;
	if (o->batch)
		j->batch = o->batch;
	if (o->seq)
		j->seq = o->seq;
	else if (m->family == VRAM_FAM_VIT)
		j->seq = vram_model_tokens(m, 0);
	if (o->accum)
		j->accum = o->accum;
	if (o->rank)
		j->lora_rank = o->rank;
	if (o->new_tokens >= 0)
		j->gen_tokens = o->new_tokens;
	j->lora_dropout = o->lora_dropout;
	if (o->double_quant >= 0)
		j->double_quant = o->double_quant;
	j->kv_paged = o->kv_paged;
}

static int parse_targets(struct vram_job *j, const char *list)
{
	char buf[512];
	snprintf(buf, sizeof(buf), "%s", list);
	j->n_targets = 0;
	for (char *save, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (j->n_targets >= VRAM_MAX_TARGETS || strlen(t) >= sizeof(j->targets[0]))
			return -1;
		snprintf(j->targets[j->n_targets++], sizeof(j->targets[0]), "%s", t);
	}
	return j->n_targets ? 0 : -1;
}

int cmd_vram(int argc, char **argv)
{
	struct vram_opts o = {.format = "text", .double_quant = -1, .tied = -1, .new_tokens = -1};
	struct vram_model m;
	struct vram_job job;
	struct vram_gpu gpu;
	struct vram_estimate est;
	struct vram_advice adv;
	char err[GS_ERR_LEN];
	int have_gpu = 0;

	int n = cli_parse(&cli_spec_vram, &o, argc, argv);
	if (n < 0)
		return cli_exit(n);
	if (o.list) {
		list_presets(stdout);
		return GS_EXIT_OK;
	}
	if (o.gpu && strcmp(o.gpu, "list") == 0) {
		list_gpus(stdout);
		return GS_EXIT_OK;
	}
	if (n == 0 && !o.layers && !o.hidden && !o.heads)
		return cli_usage_error(&cli_spec_vram,
				       "give a MODEL (config.json or preset) or its shape "
				       "(--layers, --hidden, --heads, ...)");
	if (n == 0 && (!o.layers || !o.hidden || !o.heads))
		return cli_usage_error(&cli_spec_vram,
				       "a shape needs at least --layers, --hidden and --heads");
	if (build_model(&m, n ? argv[0] : NULL, &o, err))
		return error_print("vram: %s", err);
	build_job(&job, &m, &o);
	if (o.targets && parse_targets(&job, o.targets))
		return cli_usage_error(&cli_spec_vram, "--lora-targets wants up to %d names",
				       VRAM_MAX_TARGETS);

	if (o.gpu && strcasecmp(o.gpu, "none") != 0) {
		if (strcasecmp(o.gpu, "local") == 0) {
			if (vram_gpu_local(&gpu, err))
				return error_print("vram: %s", err);
		} else if (vram_gpu_find(&gpu, o.gpu)) {
			return cli_usage_error(
			    &cli_spec_vram, "unknown GPU '%s' (gpuscope vram --gpu list)", o.gpu);
		}
		have_gpu = 1;
	} else if (!o.gpu && vram_gpu_local(&gpu, NULL) == 0) {
		have_gpu = 1;
	}
	if (have_gpu)
		job.cc_major = gpu.cc_major;

	if (vram_estimate(&est, &m, &job, err))
		return error_print("vram: %s", err);
	if (have_gpu && vram_advise(&adv, &m, &job, gpu.bytes, err))
		return error_print("vram: %s", err);
	struct vram_recording_peak rp;
	if (o.recording) {
		struct trace t;
		int rc = trace_load_any(&t, o.recording, err);
		if (rc == 0) {
			rc = vram_recording_peak(&rp, &t, err);
			trace_release(&t);
		}
		if (rc)
			return error_print("vram: %s", err);
	}
	struct vram_report rep = {&m,
				  &job,
				  &est,
				  have_gpu ? &gpu : NULL,
				  have_gpu ? &adv : NULL,
				  o.recording ? &rp : NULL,
				  o.recording};
	if (strcmp(o.format, "json") == 0)
		vram_render_json(stdout, &rep);
	else
		vram_render_text(stdout, &rep);
	if (fflush(stdout) || ferror(stdout))
		return error_print("vram: cannot write the output");
	return have_gpu && !adv.fits ? GS_EXIT_FOUND : GS_EXIT_OK;
}
