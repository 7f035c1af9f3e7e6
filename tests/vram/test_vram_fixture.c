/*
 * test_vram_fixture.c - the estimator against measured tables
 * (tests/fixtures/vram/TABLE/: table.tsv + configs/NAME.json, made by
 * workloads/vram/make-fixture.py from measure.py's output; README.md there
 * says what ran where). Columns are found by the header's names, so an
 * older table with fewer columns still reads ('-': not measured).
 *
 * For every row:
 *  - the parameter count read from the row's config.json equals
 *    model.parameters() exactly (QLoRA: bitsandbytes packs two 4-bit weights
 *    per element, so the layers' linears count half), and the trainable
 *    count equals the measured one (LoRA adapters on peft's targets);
 *  - the estimator's saved tensors (activations and autocast copies of the
 *    backward's first phase) are within 5% of the bytes autograd saved
 *    (saved-tensor hooks; under full checkpointing what the checkpoints
 *    keep), for the rows whose kernels the device shares with CUDA
 *    (Llama-shaped rows on the CPU; every GPU row);
 *  - on a GPU: the allocated peak within 10% of
 *    torch.cuda.max_memory_allocated (issue #23's target); the CUDA
 *    context within 2% of what NVML charged the process beyond the
 *    allocator's reserve; per kind of job (training, checkpointed,
 *    inference) the modelled allocator slack is the median of the measured
 *    reserved/allocated - 1, and, for the kinds whose rows agree (all but
 *    checkpointed training: 0.057 to 0.414 over three rows), the estimated
 *    reserve and total within 10% of max_memory_reserved and of NVML's
 *    figure for the process;
 *  - where a row measured its optimizer (measure.py --set optim; rows
 *    without an optimizer column ran torch.optim.AdamW's foreach default):
 *    the estimated states within 3% of its state tensors' bytes, and the
 *    step's temporaries within 10% (an estimate of none: within 2% of the
 *    states).
 * And the H200 recording of workloads/real/hf_llama_train.py
 * (tests/fixtures/real/hf_llama_train.db): --recording reads back its peak
 * of device memory, which torch.profiler's memory events of the same
 * program (h200-real/) put within 2%.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace_db.h"
#include "util/error.h"
#include "vram/estimate.h"
#include "vram/model.h"
#include "vram/recording.h"

#define VRAM_FIXTURES FIXTURES_DIR "/vram"

enum col {
	C_NAME,
	C_MODE,
	C_CKPT,
	C_BATCH,
	C_SEQ,
	C_NEW,
	C_PARAMS,
	C_TRAINABLE,
	C_ALLOC,
	C_RESERVED,
	C_SAVED,
	C_OUTSIDE,
	C_NVML,
	C_DEVICE,
	C_OPTIMIZER,
	C_OPT_STATES,
	C_STEP_TEMP,
	C_N
};
static const char *const col_names[C_N] = {"name",
					   "mode",
					   "checkpointing",
					   "batch",
					   "seq",
					   "new_tokens",
					   "parameters",
					   "trainable",
					   "max_allocated",
					   "max_reserved",
					   "saved_bytes",
					   "outside_allocator",
					   "nvml_process_used",
					   "device",
					   "optimizer",
					   "opt_state_bytes",
					   "step_temp_bytes"};

struct row {
	char name[96], mode[16], ckpt[16], device[16], optimizer[24];
	long long batch, seq, new_tokens;
	/* < 0: not measured */
	double params, trainable, max_alloc, max_reserved, saved, outside, nvml;
	double opt_states, step_temp; /* the optimizer's state tensors, its step's temporaries */
};

static double num_or_none(const char *s)
{
	return !s || strcmp(s, "-") == 0 || strcmp(s, "None") == 0 ? -1 : atof(s);
}

static int split(char *line, char **f, int max)
{
	int n = 0;
	for (char *save, *t = strtok_r(line, "\t\n", &save); t && n < max;
	     t = strtok_r(NULL, "\t\n", &save))
		f[n++] = t;
	return n;
}

/* idx[c] = the column of c in the header, -1 when absent */
static void parse_header(int *idx, char *line)
{
	char *f[32];
	int n = split(line, f, 32);
	for (int c = 0; c < C_N; c++) {
		idx[c] = -1;
		for (int i = 0; i < n; i++)
			if (strcmp(f[i], col_names[c]) == 0)
				idx[c] = i;
	}
	for (int c = 0; c <= C_PARAMS; c++)
		if (idx[c] < 0)
			fail_msg("table.tsv: no column '%s'", col_names[c]);
}

static int parse_row(struct row *r, char *line, const int *idx)
{
	char *f[32], *v[C_N];
	int n = split(line, f, 32);
	for (int c = 0; c < C_N; c++)
		v[c] = idx[c] >= 0 && idx[c] < n ? f[idx[c]] : NULL;
	if (!v[C_NAME] || !v[C_MODE] || !v[C_CKPT] || !v[C_PARAMS])
		return -1;
	snprintf(r->name, sizeof(r->name), "%s", v[C_NAME]);
	snprintf(r->mode, sizeof(r->mode), "%s", v[C_MODE]);
	snprintf(r->ckpt, sizeof(r->ckpt), "%s", v[C_CKPT]);
	snprintf(r->device, sizeof(r->device), "%s", v[C_DEVICE] ? v[C_DEVICE] : "-");
	/* rows without the column ran torch.optim.AdamW's default (foreach) */
	snprintf(r->optimizer, sizeof(r->optimizer), "%s",
		 v[C_OPTIMIZER] && strcmp(v[C_OPTIMIZER], "-") ? v[C_OPTIMIZER] : "adamw");
	r->opt_states = num_or_none(v[C_OPT_STATES]);
	r->step_temp = num_or_none(v[C_STEP_TEMP]);
	r->batch = atoll(v[C_BATCH] ? v[C_BATCH] : "0");
	r->seq = atoll(v[C_SEQ] ? v[C_SEQ] : "0");
	r->new_tokens = atoll(v[C_NEW] ? v[C_NEW] : "0");
	r->params = num_or_none(v[C_PARAMS]);
	r->trainable = num_or_none(v[C_TRAINABLE]);
	r->max_alloc = num_or_none(v[C_ALLOC]);
	r->max_reserved = num_or_none(v[C_RESERVED]);
	r->saved = num_or_none(v[C_SAVED]);
	r->outside = num_or_none(v[C_OUTSIDE]);
	r->nvml = num_or_none(v[C_NVML]);
	return 0;
}

/* The job measure.py ran (its header says which). */
static void job_of(struct vram_job *j, const struct row *r)
{
	vram_job_defaults(j);
	assert_int_equal(vram_mode_parse(r->mode, &j->mode), 0);
	assert_int_equal(vram_ckpt_parse(r->ckpt, &j->ckpt), 0);
	j->batch = r->batch;
	j->seq = r->seq;
	j->lora_rank = 16;
	j->precision = j->mode == VRAM_MODE_INFERENCE ? VRAM_PREC_BF16 : VRAM_PREC_AMP;
	j->gen_tokens = r->new_tokens;
	assert_int_equal(vram_optimizer_parse(r->optimizer, &j->optimizer), 0);
}

static const struct vram_phase *phase(const struct vram_estimate *e, const char *name)
{
	for (int i = 0; i < e->n_phases; i++)
		if (strcmp(e->phases[i].name, name) == 0)
			return &e->phases[i];
	return NULL;
}

/* kinds of job with their own allocator slack (estimate.c) */
enum kind { K_TRAIN, K_CKPT, K_INFER, K_N };
static const char *const kind_names[K_N] = {"training", "checkpointed", "inference"};

#define MAX_ROWS 64

struct tally {
	int rows, params, trainable, saved, peaks, contexts, reserves, optims, bad;
	double slack[K_N][MAX_ROWS]; /* measured reserved / allocated - 1 */
	int n_slack[K_N];
	double model_slack[K_N];
};

static int within(const char *what, const char *name, double est, double meas, double tol)
{
	int ok = fabs(est / meas - 1) <= tol;
	print_message("%-30s %-9s %14.0f estimate %14.0f (%.3f)%s\n", name, what, meas, est,
		      est / meas, ok ? "" : "  <- off");
	return ok;
}

static void check_row(const struct row *r, const char *dir, struct tally *t)
{
	char path[1024], err[GS_ERR_LEN];
	struct vram_model m;
	struct vram_job j;
	struct vram_estimate e;

	snprintf(path, sizeof(path), "%s/configs/%s.json", dir, r->name);
	if (vram_model_from_config(&m, path, err))
		fail_msg("%s", err);
	job_of(&j, r);
	if (vram_estimate(&e, &m, &j, err))
		fail_msg("%s: %s", r->name, err);
	t->rows++;

	double params = (double)e.params.total;
	if (j.mode == VRAM_MODE_QLORA) /* Params4bit: two weights per uint8 element */
		params -=
		    (double)m.layers * (double)(e.params.layer_linear - e.params.layer_params) / 2;
	t->params++;
	if (params != r->params) {
		print_error("%s: %.0f parameters, the model has %.0f\n", r->name, params,
			    r->params);
		t->bad++;
	}
	if (r->trainable >= 0) {
		t->trainable++;
		if ((double)e.trainable != r->trainable) {
			print_error("%s: %lld trainable, measured %.0f\n", r->name,
				    (long long)e.trainable, r->trainable);
			t->bad++;
		}
	}
	int gpu = strcmp(r->device, "cpu") != 0;
	int same_kernels = gpu || m.family == VRAM_FAM_LLAMA;
	if (r->saved > 0 && same_kernels && j.mode != VRAM_MODE_INFERENCE) {
		const struct vram_phase *p = phase(&e, "backward (loss)");
		double est = p->part[VRAM_PART_ACTIVATIONS] + p->part[VRAM_PART_WEIGHT_COPIES];
		t->saved++;
		t->bad += !within("saved", r->name, est, r->saved, 0.05);
	}
	if (r->opt_states > 0) { /* the optimizer's states: the step's, paged ones too */
		const struct vram_phase *p = phase(&e, "optimizer step");
		double est = p->part[VRAM_PART_OPTIMIZER] + p->part[VRAM_PART_PAGED];
		t->optims++;
		t->bad += !within("states", r->name, est, r->opt_states, 0.03);
		if (r->step_temp >= 0) { /* an estimate of none: under 2% of the states */
			double te = p->part[VRAM_PART_OPTIMIZER_TEMP];
			int ok = fabs(te - r->step_temp) <= fmax(0.10 * r->step_temp, 0.02 * est);
			print_message("%-30s %-9s %14.0f estimate %14.0f%s\n", r->name, "step temp",
				      r->step_temp, te, ok ? "" : "  <- off");
			t->bad += !ok;
		}
	}
	if (!gpu || r->max_alloc <= 0)
		return;
	t->peaks++;
	t->bad += !within("peak", r->name, e.allocated_peak, r->max_alloc, 0.10);
	if (r->outside > 0) {
		t->contexts++;
		t->bad += !within("context", r->name, e.part[VRAM_PART_CONTEXT], r->outside, 0.02);
	}
	if (r->max_reserved <= 0)
		return;
	const char *peak = e.phases[e.peak_phase].name;
	enum kind k = j.mode == VRAM_MODE_INFERENCE					? K_INFER
		      : j.ckpt == VRAM_CKPT_FULL && strcmp(peak, "optimizer step") != 0 ? K_CKPT
											: K_TRAIN;
	if (t->n_slack[k] < MAX_ROWS)
		t->slack[k][t->n_slack[k]++] = r->max_reserved / r->max_alloc - 1;
	t->model_slack[k] = e.part[VRAM_PART_HEADROOM] / e.allocated_peak;
	double reserved = vram_estimate_reserved(&e);
	if (k == K_CKPT) { /* shown, not held: see the header */
		within("reserved", r->name, reserved, r->max_reserved, 1e9);
		return;
	}
	t->reserves++;
	t->bad += !within("reserved", r->name, reserved, r->max_reserved, 0.10);
	if (r->nvml > 0)
		t->bad += !within("total", r->name, e.total, r->nvml, 0.10);
}

static void check_table(const char *dir, struct tally *t)
{
	char path[1024], line[2048];
	int idx[C_N];
	snprintf(path, sizeof(path), "%s/table.tsv", dir);
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	if (!fgets(line, sizeof(line), f))
		fail_msg("%s: empty", path);
	parse_header(idx, line);
	while (fgets(line, sizeof(line), f)) {
		struct row r;
		if (parse_row(&r, line, idx))
			fail_msg("%s: bad row", path);
		check_row(&r, dir, t);
	}
	fclose(f);
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), by_value);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void test_tables(void **state)
{
	static struct tally t;
	(void)state;
	DIR *d = opendir(VRAM_FIXTURES);
	assert_non_null(d);
	for (struct dirent *de; (de = readdir(d));) {
		char dir[300];
		if (de->d_name[0] == '.')
			continue;
		if (snprintf(dir, sizeof(dir), "%s/%.64s", VRAM_FIXTURES, de->d_name) >=
		    (int)sizeof(dir))
			fail_msg("fixture path too long");
		check_table(dir, &t);
	}
	closedir(d);
	for (int k = 0; k < K_N; k++) {
		if (!t.n_slack[k])
			continue;
		double med = median(t.slack[k], t.n_slack[k]);
		int ok = fabs(med - t.model_slack[k]) <= 0.005;
		print_message("allocator slack, %-12s %2d rows: %.3f .. %.3f, median %.3f, "
			      "modelled %.3f%s\n",
			      kind_names[k], t.n_slack[k], t.slack[k][0],
			      t.slack[k][t.n_slack[k] - 1], med, t.model_slack[k],
			      ok ? "" : "  <- off");
		t.bad += !ok;
	}
	print_message("%d rows: %d parameter counts, %d trainable counts, %d saved-tensor sums, "
		      "%d GPU peaks, %d contexts, %d reserves, %d optimizer states\n",
		      t.rows, t.params, t.trainable, t.saved, t.peaks, t.contexts, t.reserves,
		      t.optims);
	/* the CPU table: 17 counts and 8 Llama-shaped saved sums; the H200's 15
	 * measure.py rows and hf_llama_train: 16 peaks, 15 contexts and trainable
	 * counts, 13 saved sums, every kind of job */
	assert_true(t.params >= 32);
	assert_true(t.trainable >= 15);
	assert_true(t.saved >= 21);
	assert_true(t.peaks >= 16);
	assert_true(t.contexts >= 15);
	assert_true(t.reserves >= 13);
	for (int k = 0; k < K_N; k++)
		assert_true(t.n_slack[k] >= 2);
	assert_int_equal(t.bad, 0);
}

/* The first row of a table (the h200-real one has one). */
static void first_row(struct row *r, const char *dir)
{
	char path[1024], line[2048];
	int idx[C_N];
	snprintf(path, sizeof(path), "%s/table.tsv", dir);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	parse_header(idx, line);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_int_equal(parse_row(r, line, idx), 0);
	fclose(f);
}

/*
 * hf_llama_train on the H200: the recording's peak is the sum of the
 * caching allocator's segments (2601 cudaMallocs, never freed: 11467780926
 * bytes, the sum of the allocations table's device rows); torch.profiler's
 * memory events of the same program (another run) say it reserved
 * 11333009408 at most: 128 MiB less (one segment fewer). The estimate's
 * reserve (allocated peak + slack) is held to 10% of the recording.
 */
static void test_recording(void **state)
{
	(void)state;
	char err[GS_ERR_LEN];
	struct trace t;
	struct vram_recording_peak p;
	struct row r;
	struct vram_model m;
	struct vram_job j;
	struct vram_estimate e;

	if (trace_load_any(&t, FIXTURES_DIR "/real/hf_llama_train.db", err))
		fail_msg("%s", err);
	assert_int_equal(vram_recording_peak(&p, &t, err), 0);
	trace_release(&t);
	assert_int_equal((long long)p.peak_bytes, 11467780926LL);
	assert_int_equal(p.allocations, 2601);
	assert_int_equal(p.processes, 1);

	first_row(&r, VRAM_FIXTURES "/h200-real");
	assert_string_equal(r.name, "hf_llama_train-b16-s1024");
	print_message("recording %.0f, torch.profiler reserved %.0f (%.4f)\n", p.peak_bytes,
		      r.max_reserved, p.peak_bytes / r.max_reserved);
	assert_true(fabs(p.peak_bytes / r.max_reserved - 1) <= 0.02);

	if (vram_model_from_config(&m,
				   VRAM_FIXTURES "/h200-real/configs/"
						 "hf_llama_train-b16-s1024.json",
				   err))
		fail_msg("%s", err);
	job_of(&j, &r);
	assert_int_equal(vram_estimate(&e, &m, &j, err), 0);
	assert_true(within("recording", r.name, vram_estimate_reserved(&e), p.peak_bytes, 0.10));
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_tables),
					   cmocka_unit_test(test_recording)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
