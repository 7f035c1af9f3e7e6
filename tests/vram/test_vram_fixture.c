/*
 * test_vram_fixture.c - the estimator against measured tables
 * (tests/fixtures/vram/TABLE/: table.tsv + configs/NAME.json, made by
 * workloads/vram/make-fixture.py from measure.py's output; README.md there
 * says what ran where).
 *
 * For every row: the parameter count read from the row's config.json
 * equals model.parameters() exactly (QLoRA rows excepted: bitsandbytes
 * packs two weights per element); the estimator's saved tensors (the
 * activations and autocast copies of the backward's first phase) are
 * within 5% of the bytes autograd saved (saved-tensor hooks), for the
 * rows whose kernels the device shares with CUDA (Llama-shaped rows on the
 * CPU; every row measured on a GPU), checkpointed rows excepted (the hooks
 * do not see inside a checkpoint); and, where the peak was measured on a
 * GPU, the allocated peak is within 10% of torch.cuda.max_memory_allocated.
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

#include "util/error.h"
#include "vram/estimate.h"
#include "vram/model.h"

#define VRAM_FIXTURES FIXTURES_DIR "/vram"

struct row {
	char name[96], shape[32], mode[16], ckpt[16], device[16];
	long long batch, seq, new_tokens, params;
	double max_alloc, saved; /* < 0: not measured */
};

static double num_or_none(const char *s)
{
	return strcmp(s, "-") == 0 || strcmp(s, "None") == 0 ? -1 : atof(s);
}

static int parse_row(struct row *r, char *line)
{
	char *f[12];
	int n = 0;
	for (char *save, *t = strtok_r(line, "\t\n", &save); t && n < 12;
	     t = strtok_r(NULL, "\t\n", &save))
		f[n++] = t;
	if (n != 12)
		return -1;
	snprintf(r->name, sizeof(r->name), "%s", f[0]);
	snprintf(r->shape, sizeof(r->shape), "%s", f[1]);
	snprintf(r->mode, sizeof(r->mode), "%s", f[2]);
	snprintf(r->ckpt, sizeof(r->ckpt), "%s", f[3]);
	r->batch = atoll(f[4]);
	r->seq = atoll(f[5]);
	r->new_tokens = atoll(f[6]);
	r->params = atoll(f[7]);
	r->max_alloc = num_or_none(f[8]);
	r->saved = num_or_none(f[10]);
	snprintf(r->device, sizeof(r->device), "%s", f[11]);
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
}

static const struct vram_phase *phase(const struct vram_estimate *e, const char *name)
{
	for (int i = 0; i < e->n_phases; i++)
		if (strcmp(e->phases[i].name, name) == 0)
			return &e->phases[i];
	return NULL;
}

struct tally {
	int rows, params, saved, peaks, bad;
};

static void check_table(const char *dir, struct tally *t)
{
	char path[1024], line[1024], err[GS_ERR_LEN];
	snprintf(path, sizeof(path), "%s/table.tsv", dir);
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	if (!fgets(line, sizeof(line), f)) /* header */
		fail_msg("%s: empty", path);
	while (fgets(line, sizeof(line), f)) {
		struct row r;
		struct vram_model m;
		struct vram_job j;
		struct vram_estimate e;
		if (parse_row(&r, line))
			fail_msg("%s: bad row", path);
		t->rows++;
		snprintf(path, sizeof(path), "%s/configs/%s.json", dir, r.name);
		if (vram_model_from_config(&m, path, err))
			fail_msg("%s", err);
		job_of(&j, &r);
		if (vram_estimate(&e, &m, &j, err))
			fail_msg("%s: %s", r.name, err);
		if (j.mode != VRAM_MODE_QLORA) {
			t->params++;
			if (e.params.total != r.params) {
				print_error("%s: %lld parameters, the model has %lld\n", r.name,
					    (long long)e.params.total, r.params);
				t->bad++;
			}
		}
		int gpu = strcmp(r.device, "cpu") != 0;
		int same_kernels = gpu || m.family == VRAM_FAM_LLAMA;
		if (r.saved > 0 && same_kernels && j.mode != VRAM_MODE_INFERENCE &&
		    j.ckpt == VRAM_CKPT_NONE) {
			const struct vram_phase *p = phase(&e, "backward (loss)");
			double est =
			    p->part[VRAM_PART_ACTIVATIONS] + p->part[VRAM_PART_WEIGHT_COPIES];
			t->saved++;
			print_message("%-32s saved %12.0f estimate %12.0f (%.3f)\n", r.name,
				      r.saved, est, est / r.saved);
			if (fabs(est / r.saved - 1) > 0.05)
				t->bad++;
		}
		if (gpu && r.max_alloc > 0) {
			t->peaks++;
			print_message("%-32s peak  %12.0f estimate %12.0f (%.3f)\n", r.name,
				      r.max_alloc, e.allocated_peak,
				      e.allocated_peak / r.max_alloc);
			if (fabs(e.allocated_peak / r.max_alloc - 1) > 0.10)
				t->bad++;
		}
		snprintf(path, sizeof(path), "%s/table.tsv", dir);
	}
	fclose(f);
}

static void test_tables(void **state)
{
	struct tally t = {0};
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
	print_message("%d rows: %d parameter counts, %d saved-tensor sums, %d GPU peaks\n", t.rows,
		      t.params, t.saved, t.peaks);
	/* the CPU table alone: 15 exact counts and 8 Llama-shaped saved sums */
	assert_true(t.params >= 15);
	assert_true(t.saved >= 8);
	assert_int_equal(t.bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_tables)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
