/*
 * test_smi_text.c - pasted nvidia-smi tables (src/health/smi_text.h): every
 * real table of tests/fixtures/smi/tables.txt reads its GPUs' numbers and
 * processes in each driver layout, and explain prints the stated reading
 * hint under the stated GPU; ERR! cells stay unknown and are counted; text
 * with no GPU row reads as nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health/explain.h"
#include "health/smi_text.h"
#include "util/error.h"

#include "fixture_cases.h"

/* explain's text for the query (malloc'd) */
static char *explained(const char *q)
{
	struct explain_result r;
	char err[GS_ERR_LEN], *buf = NULL;
	size_t len = 0;
	assert_int_equal(explain_match(q, strlen(q), &r, err), 0);
	FILE *f = open_memstream(&buf, &len);
	explain_print_text(f, &r, q);
	fclose(f);
	return buf;
}

static void check(const struct fixture_case *k, void *ctx)
{
	static struct smi_text t;
	const char *e;
	(void)ctx;
	if (!smi_text_parse(k->msg, k->len, &t))
		fail_msg("%s: not read", k->source);
	const char *gpus = case_value(k, "gpus", NULL), *procs = case_value(k, "procs", NULL);
	assert_non_null(gpus);
	assert_non_null(procs);
	if (t.n_gpu != atoi(gpus))
		fail_msg("%s: %d GPUs, expected %s", k->source, t.n_gpu, gpus);
	if ((t.procs_listed ? t.n_proc : -1) != atoi(procs))
		fail_msg("%s: %d processes, expected %s", k->source, t.procs_listed ? t.n_proc : -1,
			 procs);
	for (int from = 0; (e = case_value(k, "gpu", &from));) {
		int idx, pstate;
		double util, used, total, power, cap, temp;
		assert_int_equal(sscanf(e, "%d %lf %lf %lf %lf %lf %lf %d", &idx, &util, &used,
					&total, &power, &cap, &temp, &pstate),
				 8);
		const struct smi_gpu *g = NULL;
		for (int i = 0; i < t.n_gpu; i++)
			if (t.g[i].index == idx)
				g = &t.g[i];
		if (!g)
			fail_msg("%s: GPU %d not read", k->source, idx);
		if (g->util_pct != util || g->mem_used_mib != used || g->mem_total_mib != total ||
		    g->power_w != power || g->power_cap_w != cap || g->temp_c != temp ||
		    g->pstate != pstate)
			fail_msg("%s: GPU %d read as %.0f %.0f %.0f %.0f %.0f %.0f %d, expected %s",
				 k->source, idx, g->util_pct, g->mem_used_mib, g->mem_total_mib,
				 g->power_w, g->power_cap_w, g->temp_c, g->pstate, e);
	}
	char *text = NULL;
	for (int from = 0; (e = case_value(k, "hint", &from));) {
		char head[16];
		int idx, off;
		assert_int_equal(sscanf(e, "%d %n", &idx, &off), 1);
		if (!text) {
			char *q = strndup(k->msg, k->len);
			text = explained(q);
			free(q);
		}
		/* the GPU's block: from its line to the next GPU's */
		snprintf(head, sizeof(head), "GPU %d ", idx);
		const char *b = strstr(text, head);
		assert_non_null(b);
		const char *next = strstr(b + 1, "\nGPU ");
		const char *hit = strstr(b, e + off);
		if (!hit || (next && hit > next))
			fail_msg("%s: no hint '%s' for GPU %d in:\n%s", k->source, e + off, idx,
				 text);
	}
	free(text);
}

static void real_tables(void **state)
{
	(void)state;
	assert_true(each_fixture_case(FIXTURES_DIR "/smi/tables.txt", check, NULL) >= 5);
}

/* A processes table in the 5xx layout (GI and CI columns), an ERR! reading,
 * and memory in use that no process accounts for. */
static void processes_and_errors(void **state)
{
	(void)state;
	static struct smi_text t;
	static const char m[] =
	    "|   0  NVIDIA H100 80GB HBM3          On  |   00000000:18:00.0 Off |                  "
	    "  "
	    "0 |\n"
	    "| N/A   ERR!   P0            ERR! /  700W |   40000MiB /  81559MiB |     97%      "
	    "Default |\n"
	    "|   1  NVIDIA H100 80GB HBM3          On  |   00000000:2A:00.0 Off |                  "
	    "  "
	    "2 |\n"
	    "| N/A   31C    P0             70W /  700W |    5000MiB /  81559MiB |      0%      "
	    "Default |\n"
	    "| Processes:                                                                       |\n"
	    "|  GPU   GI   CI        PID   Type   Process name                        GPU Memory "
	    "|\n"
	    "|    0   N/A  N/A    123456      C   /opt/conda/bin/python                 39990MiB "
	    "|\n";
	assert_int_equal(smi_text_parse(m, sizeof(m) - 1, &t), 1);
	assert_int_equal(t.n_gpu, 2);
	assert_int_equal(t.n_proc, 1);
	assert_int_equal(t.p[0].pid, 123456);
	assert_int_equal(t.p[0].gpu, 0);
	assert_string_equal(t.p[0].name, "/opt/conda/bin/python");
	assert_true(t.p[0].mem_mib == 39990);
	assert_int_equal(t.g[0].errs, 2);
	assert_true(t.g[0].temp_c < 0 && t.g[0].power_w < 0 && t.g[0].power_cap_w == 700);
	assert_true(t.g[1].ecc_uncorr == 2);
	char *text = explained(m);
	assert_non_null(strstr(text, "2 values read ERR!"));
	assert_non_null(strstr(text, "5000 MiB in use and no process listed"));
	assert_non_null(strstr(text, "2 uncorrected ECC error(s)"));
	assert_non_null(strstr(text, "GPU-Util 97% is the share of time"));
	free(text);
	/* JSON: the numbers, the processes, the same hints */
	struct explain_result r;
	char err[GS_ERR_LEN], *buf = NULL;
	size_t len = 0;
	assert_int_equal(explain_match(m, strlen(m), &r, err), 0);
	FILE *f = open_memstream(&buf, &len);
	explain_print_json(f, &r, m);
	fclose(f);
	assert_non_null(strstr(buf, "\"nvidia_smi\""));
	assert_non_null(strstr(buf, "\"pid\": 123456"));
	assert_non_null(strstr(buf, "\"mem_total_mib\": 81559"));
	assert_non_null(strstr(buf, "no process listed"));
	assert_null(strstr(buf, "\"temp_c\": -1"));
	free(buf);
	static const char *const junk[] = {
	    "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |",
	    "|   0  Tesla V100  On  | 00000000:40:00.0 Off |   0 |",
	    "|   0  Tesla V100  On  | not a bus id | 0 |\n| N/A 34C P0 55W / 300W | 1MiB / 2MiB | "
	    "0% Default |",
	    "",
	};
	for (size_t i = 0; i < sizeof(junk) / sizeof(junk[0]); i++)
		assert_int_equal(smi_text_parse(junk[i], strlen(junk[i]), &t), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(real_tables),
	    cmocka_unit_test(processes_and_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
