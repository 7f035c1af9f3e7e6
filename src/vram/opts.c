/*
 * opts.c - the command line's values as a model, a job and a GPU (opts.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "trace/trace_db.h"
#include "util/error.h"
#include "util/json_out.h"
#include "vram/opts.h"
#include "import/load.h"

int vram_parse_count(const char *s, long long *v)
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

/* --list and --gpu list in JSON: {"schema": ..., KEY: [...]} */
static void list_begin(struct json_out *j, FILE *f, const char *schema, const char *key)
{
	json_out_init(j, f, 1);
	json_begin_object(j);
	json_kv_string(j, "schema", schema);
	json_key(j, key);
	json_begin_array(j);
}

static void list_end(struct json_out *j, FILE *f)
{
	json_end_array(j);
	json_end_object(j);
	fputc('\n', f);
}

void vram_list_presets(FILE *f, int json)
{
	struct vram_params p;
	struct json_out j;
	if (json)
		list_begin(&j, f, "gpuscope.vram.presets.v1", "presets");
	struct vram_model model;
	for (int i = 0; vram_preset_at(&model, i) == 0; i++) {
		const struct vram_model *m = &model;
		vram_model_params(&p, m);
		if (!json) {
			fprintf(f, "%-24s %-8s %8.3f B  %s\n", m->name, m->model_type,
				p.total / 1e9, m->source);
			continue;
		}
		json_begin_object(&j);
		json_kv_string(&j, "name", m->name);
		json_kv_string(&j, "model_type", m->model_type);
		json_kv_int(&j, "params", (int64_t)p.total);
		json_kv_string(&j, "source", m->source);
		json_end_object(&j);
	}
	if (json)
		list_end(&j, f);
}

void vram_list_gpus(FILE *f, int json)
{
	struct json_out j;
	if (json)
		list_begin(&j, f, "gpuscope.vram.gpus.v1", "gpus");
	for (int i = 0; vram_gpu_at(i); i++) {
		const struct vram_gpu *g = vram_gpu_at(i);
		if (!json) {
			fprintf(f, "%-18s %9.0f MiB  %s\n", g->name, g->bytes / (1024.0 * 1024.0),
				g->source);
			continue;
		}
		json_begin_object(&j);
		json_kv_string(&j, "name", g->name);
		json_kv_int(&j, "bytes", (int64_t)g->bytes);
		json_kv_string(&j, "source", g->source);
		json_end_object(&j);
	}
	if (json)
		list_end(&j, f);
}

int vram_load_model(struct vram_model *m, const char *arg, char *err)
{
	struct stat st;
	char path[4096];
	if (vram_preset_find(m, arg) == 0)
		return 0;
	if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(path, sizeof(path), "%s/config.json", arg);
		return vram_model_from_config(m, path, err);
	}
	if (stat(arg, &st) == 0)
		return vram_model_from_config(m, arg, err);
	/* an id as the hub names it: "meta-llama/Llama-2-7b-hf", "Qwen2.5-7B" */
	if (vram_preset_lookup(m, arg) == 0)
		return 0;
	char near[160];
	int n_near = vram_preset_suggest(near, sizeof(near), arg);
	if (strstr(arg, ".json") || arg[0] == '/' || arg[0] == '.' || arg[0] == '~')
		return vram_model_from_config(m, arg, err); /* a path: says it cannot open it */
	if (n_near)
		return error_set(err,
				 "'%s' is neither a preset nor a file; did you mean %s? "
				 "(gpuscope vram --list)",
				 arg, near);
	return error_set(err,
			 "'%s' is neither a preset (gpuscope vram --list) nor a file (a "
			 "config.json or a folder holding one)",
			 arg);
}

int vram_build_model(struct vram_model *m, const char *arg, const struct vram_opts *o, char *err)
{
	enum vram_family fam = VRAM_FAM_LLAMA;
	if (o->family && vram_family_parse(o->family, &fam))
		return error_set(err, "unknown family '%s'", o->family);
	memset(m, 0, sizeof(*m));
	if (arg) {
		if (vram_load_model(m, arg, err))
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

int vram_build_job(struct vram_job *j, const struct vram_model *m, const struct vram_opts *o)
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
	if (o->new_tokens >= 0)
		j->gen_tokens = o->new_tokens;
	if (o->seq)
		j->seq = o->seq;
	else if (m->family == VRAM_FAM_VIT)
		j->seq = vram_model_tokens(m, 0);
	else if (vram_model_max_tokens(m) > 0 && vram_job_tokens(j) > vram_model_max_tokens(m))
		/* the default length, within what learned positions allow */
		j->seq = vram_model_max_tokens(m) -
			 (j->mode == VRAM_MODE_INFERENCE ? j->gen_tokens - 1 : 0);
	if (o->accum)
		j->accum = o->accum;
	if (o->rank)
		j->lora_rank = o->rank;
	j->lora_dropout = o->lora_dropout;
	if (o->double_quant >= 0)
		j->double_quant = o->double_quant;
	j->kv_paged = o->kv_paged;
	if (o->gpus)
		j->gpus = o->gpus;
	if (o->shard)
		vram_shard_parse(o->shard, &j->shard);
	if (o->offload)
		vram_offload_parse(o->offload, &j->offload);
	j->kv_fp8 = o->kv_dtype && strcmp(o->kv_dtype, "fp8") == 0;
	return o->targets ? parse_targets(j, o->targets) : 0;
}

int vram_pick_gpu(struct vram_gpu *g, const char *name, char *err)
{
	if (!name)
		return vram_gpu_local(g, NULL) == 0;
	if (strcasecmp(name, "none") == 0)
		return 0;
	if (strcasecmp(name, "local") == 0)
		return vram_gpu_local(g, err) == 0 ? 1 : -1;
	return vram_gpu_find(g, name) == 0 ? 1 : -2;
}

int vram_recording_peak_file(struct vram_recording_peak *out, const char *path, char *err)
{
	struct trace t;
	int rc = trace_load_any(&t, path, err);
	if (rc == 0) {
		rc = vram_recording_peak(out, &t, err);
		trace_release(&t);
	}
	return rc;
}
