/*
 * render.c - the text and JSON forms of a vram report.
 */
#include <stdint.h>
#include <stdio.h>

#include "vram/render.h"
#include "util/json_out.h"
#include "vram/recording.h"

#define GiB (1024.0 * 1024.0 * 1024.0)

static const char *mode_words(enum vram_mode m)
{
	static const char *const w[] = {"full fine-tune", "LoRA fine-tune", "QLoRA fine-tune",
					"inference"};
	return (unsigned)m < 4 ? w[m] : "unknown";
}

static void job_line(FILE *f, const struct vram_model *m, const struct vram_job *j)
{
	fprintf(f, "job      %s", mode_words(j->mode));
	if (j->mode == VRAM_MODE_INFERENCE) {
		if (vram_model_is_lm(m))
			fprintf(f, ", batch %lld x prompt %lld + %lld new tokens, %s %s KV cache",
				(long long)j->batch, (long long)j->seq, (long long)j->gen_tokens,
				j->kv_paged ? "paged" : "contiguous", j->kv_fp8 ? "fp8" : "bf16");
		else
			fprintf(f, ", batch %lld", (long long)j->batch);
		if (j->gpus > 1)
			fprintf(f, ", tensor parallel over %lld GPUs (memory per GPU)",
				(long long)j->gpus);
		fprintf(f, "\n         precision: %s\n", vram_precision_words(j));
		return;
	}
	fprintf(f, ", micro-batch %lld x seq %lld, accumulation %lld, checkpointing %s",
		(long long)j->batch, (long long)vram_model_tokens(m, j->seq), (long long)j->accum,
		vram_ckpt_name(j->ckpt));
	if (j->mode == VRAM_MODE_LORA || j->mode == VRAM_MODE_QLORA)
		fprintf(f, ", rank %lld", (long long)j->lora_rank);
	fprintf(f, "\n         precision: %s (--precision %s)\n", vram_precision_words(j),
		vram_precision_name(j->precision));
	fprintf(f, "         optimizer: %s (--optimizer %s)\n", vram_optimizer_words(j->optimizer),
		vram_optimizer_name(j->optimizer));
	if (j->gpus > 1)
		fprintf(f, "         over %lld GPUs: %s (memory per GPU)\n", (long long)j->gpus,
			j->shard == VRAM_SHARD_NONE    ? "DDP, a full replica on each"
			: j->shard == VRAM_SHARD_ZERO1 ? "ZeRO-1, the optimizer states sharded"
			: j->shard == VRAM_SHARD_ZERO2
			    ? "ZeRO-2 (FSDP shard_grad_op), states and gradients sharded"
			    : "ZeRO-3 (FSDP full_shard), states, gradients and weights sharded");
	if (j->offload != VRAM_OFFLOAD_NONE)
		fprintf(f, "         offload: %s in host memory\n",
			j->offload == VRAM_OFFLOAD_OPTIMIZER
			    ? "the optimizer (fp32 master weights, gradients, states)"
			    : "the optimizer and the parameters");
}

/* "fits" (with the spare memory, or marked the cheapest), or "N GiB short" */
static void verdict(char *buf, size_t n, double cap, double total, int spare, int cheapest)
{
	if (total > cap)
		snprintf(buf, n, "%.2f GiB short", (total - cap) / GiB);
	else if (spare)
		snprintf(buf, n, "fits, %.2f GiB spare", (cap - total) / GiB);
	else
		snprintf(buf, n, "fits%s", cheapest ? "  <- cheapest" : "");
}

static void fit_table_text(FILE *f, const struct vram_report *r)
{
	fprintf(f, "\nno GPU named and none here: the job on common cards (--gpu NAME for one "
		   "card's changes; where each size comes from: --gpu list)\n");
	fprintf(f, "  %-10s %12s  %-24s %s\n", "card", "memory", "the job as given",
		"cheapest change that fits");
	for (int i = 0; i < r->n_fit; i++) {
		const struct vram_fit_row *w = &r->fit[i];
		char given[48];
		verdict(given, sizeof(given), w->gpu.bytes, w->total, 1, 0);
		fprintf(f, "  %-10s %8.2f GiB  %-24s ", w->gpu.name, w->gpu.bytes / GiB, given);
		if (w->fits)
			fprintf(f, "-");
		else if (w->has_change)
			fprintf(f, "%s (%.2f GiB)", w->change.flags, w->change.total / GiB);
		else
			fprintf(f, "none of the changes fits");
		if (!w->gpu.bf16)
			fprintf(f, "  [no bf16: fp16 %s]",
				r->job->mode == VRAM_MODE_INFERENCE ? "weights" : "autocast");
		fputc('\n', f);
	}
}

void vram_render_text(FILE *f, const struct vram_report *r)
{
	const struct vram_model *m = r->model;
	const struct vram_estimate *e = r->est;

	fprintf(f, "model    %s (%s", m->name, m->model_type);
	if (m->source)
		fprintf(f, "; %s", m->source);
	fprintf(f, ")\n");
	fprintf(f,
		"         %lld parameters (%.2f B), %lld layers, hidden %lld, %lld heads (%lld "
		"kv), head dim %lld, intermediate %lld, vocab %lld\n",
		(long long)e->params.total, e->params.total / 1e9, (long long)m->layers,
		(long long)m->hidden, (long long)m->heads, (long long)m->kv_heads,
		(long long)m->head_dim, (long long)m->intermediate, (long long)m->vocab);
	if (m->experts > 0)
		fprintf(
		    f,
		    "         mixture of experts: %lld experts of width %lld, %lld per token%s; "
		    "%.2f B parameters active per token\n",
		    (long long)m->experts, (long long)m->moe_intermediate, (long long)m->top_k,
		    m->shared_intermediate > 0 ? ", and a shared expert" : "",
		    e->params.active / 1e9);
	job_line(f, m, r->job);
	if (r->job->mode != VRAM_MODE_INFERENCE)
		fprintf(f, "         %lld trainable parameters\n", (long long)e->trainable);
	if (e->host_bytes > 0)
		fprintf(f, "         host memory for the offload: %.2f GiB\n", e->host_bytes / GiB);
	double unq = vram_unquantised_expert_bytes(m, r->job);
	if (unq > 0)
		fprintf(
		    f,
		    "note     bitsandbytes quantises nn.Linear modules only; transformers 5 keeps "
		    "this model's router and experts as tensors, so they stay unquantised: %.2f "
		    "GiB in fp32 after peft's prepare_model_for_kbit_training (half that in bf16 "
		    "without its cast; transformers 4, whose experts are nn.Linear modules, "
		    "quantises them)\n",
		    unq / GiB);
	fprintf(f, "\npeak at  %s\n", e->phases[e->peak_phase].name);
	for (int i = 0; i < VRAM_PART_N; i++) {
		if (i == VRAM_PART_CONTEXT)
			fprintf(f, "  %-48s %9.2f GiB\n", "= allocated peak (max_memory_allocated)",
				e->allocated_peak / GiB);
		if (e->part[i] > 0 ||
		    (i == VRAM_PART_ACTIVATIONS && r->job->mode != VRAM_MODE_INFERENCE))
			fprintf(f, "  %-48s %9.2f GiB\n",
				vram_part_label_for((enum vram_part)i, r->job,
						    e->phases[e->peak_phase].name),
				e->part[i] / GiB);
	}
	fprintf(f, "  %-48s %9.2f GiB\n", "= total (what nvidia-smi would show)", e->total / GiB);
	if (r->job->mode == VRAM_MODE_INFERENCE &&
	    e->part[VRAM_PART_HEADROOM] > e->allocated_peak - e->part[VRAM_PART_WEIGHTS])
		fprintf(
		    f,
		    "note     the headroom is the measured inference slack applied to the weights "
		    "too; for a model loaded in its dtype it is likely smaller: the total is an "
		    "upper bound (docs/vram.md, allocator headroom)\n");
	fprintf(f, "\nphases (allocated GiB):");
	for (int i = 0; i < e->n_phases; i++)
		fprintf(f, "%s %s %.2f", i ? " ·" : "", e->phases[i].name,
			e->phases[i].allocated / GiB);
	fputc('\n', f);
	if (r->recording) {
		const struct vram_recording_peak *p = r->recording;
		double est = vram_estimate_reserved(e);
		fprintf(f,
			"\nrecording %s: process %u held at most %.2f GiB of device memory (%u "
			"allocations: the caching allocator's reserved memory); the estimate's "
			"allocated peak + headroom is %.2f GiB (estimate / recording %.3f)\n",
			r->recording_path, p->pid, p->peak_bytes / GiB, p->allocations, est / GiB,
			est / p->peak_bytes);
	}

	if (!r->gpu) {
		if (r->fit)
			fit_table_text(f, r);
		else
			fprintf(f, "\nno GPU to fit against: give --gpu NAME (see --gpu list)\n");
		return;
	}
	const struct vram_advice *a = r->advice;
	fprintf(f, "\n%s: %.2f GiB (%s)\n", r->gpu->name, r->gpu->bytes / GiB, r->gpu->source);
	if (a->fits)
		fprintf(f, "fits, %.2f GiB to spare\n", (r->gpu->bytes - e->total) / GiB);
	else
		fprintf(f, "does not fit: %.2f GiB short; the peak is the %s\n",
			(e->total - r->gpu->bytes) / GiB, a->peak);
	if (a->max_batch > 0)
		fprintf(f, "largest micro-batch that fits: %lld\n", (long long)a->max_batch);
	else
		fprintf(f, "no micro-batch fits as configured\n");
	if (a->n_steps > 0)
		fprintf(
		    f, "\nwhat to change, cheapest first (each is the whole change, with the total "
		       "after it):\n");
	for (int i = 0; i < a->n_steps; i++) {
		const struct vram_step *s = &a->steps[i];
		char v[48];
		verdict(v, sizeof(v), r->gpu->bytes, s->total, 0, i == a->first_fit);
		fprintf(f, "  %2d. %-62s %9.2f GiB  %s\n", i + 1, s->flags, s->total / GiB, v);
		fprintf(f, "      %s", s->what);
		if (s->host_bytes > 0)
			fprintf(f, "; %.2f GiB of host memory", s->host_bytes / GiB);
		fprintf(f, "\n      cost: %s\n", s->cost);
	}
	if (a->n_steps > 0 && a->first_fit < 0)
		fprintf(f, "none of these fits %s\n", r->gpu->name);
	if (a->n_skipped > 0)
		fprintf(f, "\nleft out, they lower nothing here:\n");
	for (int i = 0; i < a->n_skipped; i++)
		fprintf(f, "  %s: %s\n", a->skipped[i].flags, a->skipped[i].why);
}

static void breakdown(struct json_out *j, const double *part)
{
	json_key(j, "breakdown");
	json_begin_object(j);
	for (int i = 0; i < VRAM_PART_N; i++)
		json_kv_int(j, vram_part_key((enum vram_part)i), (int64_t)(part[i] + 0.5));
	json_end_object(j);
}

static void json_job(struct json_out *j, const struct vram_model *m, const struct vram_job *jb)
{
	json_key(j, "job");
	json_begin_object(j);
	json_kv_string(j, "mode", vram_mode_name(jb->mode));
	json_kv_string(j, "precision", vram_precision_name(jb->precision));
	json_kv_string(j, "runs", vram_precision_words(jb));
	json_kv_int(j, "gpus", jb->gpus);
	if (jb->mode != VRAM_MODE_INFERENCE) {
		json_kv_string(j, "optimizer", vram_optimizer_name(jb->optimizer));
		json_kv_string(j, "optimizer_runs", vram_optimizer_words(jb->optimizer));
		json_kv_string(j, "shard", vram_shard_name(jb->shard));
		json_kv_string(j, "offload", vram_offload_name(jb->offload));
		json_kv_string(j, "checkpointing", vram_ckpt_name(jb->ckpt));
		json_kv_int(j, "accumulation", jb->accum);
	}
	json_kv_string(j, "attention", jb->attn == VRAM_ATTN_EAGER ? "eager" : "sdpa");
	json_kv_int(j, "batch", jb->batch);
	json_kv_int(j, "seq", vram_model_tokens(m, jb->seq));
	if (jb->mode == VRAM_MODE_LORA || jb->mode == VRAM_MODE_QLORA)
		json_kv_int(j, "lora_rank", jb->lora_rank);
	if (jb->mode == VRAM_MODE_INFERENCE) {
		json_kv_int(j, "new_tokens", jb->gen_tokens);
		json_kv_bool(j, "kv_paged", jb->kv_paged);
		json_kv_string(j, "kv_dtype", jb->kv_fp8 ? "fp8" : "bf16");
	}
	json_end_object(j);
}

static void json_step(struct json_out *j, const struct vram_step *s, int cheapest)
{
	json_begin_object(j);
	json_kv_string(j, "flags", s->flags);
	json_kv_string(j, "change", s->what);
	json_kv_string(j, "cost", s->cost);
	json_kv_int(j, "cost_rank", s->rank);
	json_kv_int(j, "total_bytes", (int64_t)(s->total + 0.5));
	if (s->host_bytes > 0)
		json_kv_int(j, "host_bytes", (int64_t)(s->host_bytes + 0.5));
	json_kv_bool(j, "fits", s->fits);
	json_kv_bool(j, "cheapest", cheapest);
	json_end_object(j);
}

void vram_render_json(FILE *f, const struct vram_report *r)
{
	const struct vram_model *m = r->model;
	const struct vram_estimate *e = r->est;
	struct json_out j;

	json_out_init(&j, f, 1);
	json_begin_object(&j);
	json_kv_string(&j, "schema", "gpuscope.vram.v1");
	json_key(&j, "model");
	json_begin_object(&j);
	json_kv_string(&j, "name", m->name);
	json_kv_string(&j, "model_type", m->model_type);
	json_kv_string(&j, "family", vram_family_name(m->family));
	if (m->source)
		json_kv_string(&j, "source", m->source);
	json_kv_int(&j, "parameters", e->params.total);
	json_kv_int(&j, "layers", m->layers);
	json_kv_int(&j, "hidden", m->hidden);
	json_kv_int(&j, "heads", m->heads);
	json_kv_int(&j, "kv_heads", m->kv_heads);
	json_kv_int(&j, "head_dim", m->head_dim);
	json_kv_int(&j, "intermediate", m->intermediate);
	json_kv_int(&j, "vocab", m->vocab);
	if (m->experts > 0) {
		json_kv_int(&j, "experts", m->experts);
		json_kv_int(&j, "experts_per_token", m->top_k);
		json_kv_int(&j, "expert_intermediate", m->moe_intermediate);
		json_kv_int(&j, "shared_expert_intermediate", m->shared_intermediate);
		json_kv_int(&j, "active_parameters", e->params.active);
	}
	json_end_object(&j);
	if (vram_unquantised_expert_bytes(m, r->job) > 0)
		json_kv_int(&j, "unquantised_expert_bytes",
			    (int64_t)(vram_unquantised_expert_bytes(m, r->job) + 0.5));
	json_job(&j, m, r->job);
	json_kv_int(&j, "trainable_parameters", e->trainable);
	json_kv_int(&j, "total_bytes", (int64_t)(e->total + 0.5));
	json_kv_int(&j, "allocated_peak_bytes", (int64_t)(e->allocated_peak + 0.5));
	if (e->host_bytes > 0)
		json_kv_int(&j, "host_bytes", (int64_t)(e->host_bytes + 0.5));
	json_kv_string(&j, "peak_phase", e->phases[e->peak_phase].name);
	breakdown(&j, e->part);
	json_key(&j, "phases");
	json_begin_array(&j);
	for (int i = 0; i < e->n_phases; i++) {
		json_begin_object(&j);
		json_kv_string(&j, "name", e->phases[i].name);
		json_kv_int(&j, "allocated_bytes", (int64_t)(e->phases[i].allocated + 0.5));
		breakdown(&j, e->phases[i].part);
		json_end_object(&j);
	}
	json_end_array(&j);
	if (r->recording) {
		double est = vram_estimate_reserved(e);
		json_key(&j, "recording");
		json_begin_object(&j);
		json_kv_string(&j, "path", r->recording_path);
		json_kv_int(&j, "pid", r->recording->pid);
		json_kv_int(&j, "peak_bytes", (int64_t)r->recording->peak_bytes);
		json_kv_int(&j, "allocations", r->recording->allocations);
		json_kv_int(&j, "processes", r->recording->processes);
		json_kv_int(&j, "estimate_reserved_bytes", (int64_t)(est + 0.5));
		json_kv_double(&j, "ratio", est / r->recording->peak_bytes);
		json_end_object(&j);
	}
	if (r->gpu) {
		const struct vram_advice *a = r->advice;
		json_key(&j, "gpu");
		json_begin_object(&j);
		json_kv_string(&j, "name", r->gpu->name);
		json_kv_int(&j, "bytes", (int64_t)r->gpu->bytes);
		json_kv_string(&j, "source", r->gpu->source);
		json_kv_bool(&j, "fits", a->fits);
		json_kv_int(&j, "spare_bytes", (int64_t)(r->gpu->bytes - e->total));
		json_kv_int(&j, "largest_micro_batch", a->max_batch);
		json_end_object(&j);
		json_key(&j, "changes");
		json_begin_array(&j);
		for (int i = 0; i < a->n_steps; i++)
			json_step(&j, &a->steps[i], i == a->first_fit);
		json_end_array(&j);
		json_key(&j, "no_change");
		json_begin_array(&j);
		for (int i = 0; i < a->n_skipped; i++) {
			json_begin_object(&j);
			json_kv_string(&j, "flags", a->skipped[i].flags);
			json_kv_string(&j, "why", a->skipped[i].why);
			json_end_object(&j);
		}
		json_end_array(&j);
	}
	if (r->fit) {
		json_key(&j, "fit_table");
		json_begin_array(&j);
		for (int i = 0; i < r->n_fit; i++) {
			const struct vram_fit_row *w = &r->fit[i];
			json_begin_object(&j);
			json_kv_string(&j, "name", w->gpu.name);
			json_kv_int(&j, "bytes", (int64_t)w->gpu.bytes);
			json_kv_string(&j, "source", w->gpu.source);
			json_kv_bool(&j, "bf16", w->gpu.bf16);
			json_kv_int(&j, "total_bytes", (int64_t)(w->total + 0.5));
			json_kv_bool(&j, "fits", w->fits);
			json_kv_int(&j, "spare_bytes", (int64_t)(w->gpu.bytes - w->total));
			json_key(&j, "cheapest_change");
			if (w->has_change)
				json_step(&j, &w->change, 1);
			else
				json_null(&j);
			json_end_object(&j);
		}
		json_end_array(&j);
	}
	json_end_object(&j);
	fputc('\n', f);
}
