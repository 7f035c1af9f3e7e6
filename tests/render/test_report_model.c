/*
 * test_report_model.c - the report model's forms (src/render/report_*.c):
 * how each kind of cell reads, that an unknown value is `?` in text and
 * null in JSON, that templates take their values (and thresholds) by name,
 * and that a report built from a trace has its sections with stable ids in
 * the v1 schema's key order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../analyze/build_trace.h"
#include "diagnose/diagnose.h"
#include "diagnose/thresholds.h"
#include "diagnose/finding.h"
#include "render/findings_render.h"
#include "render/report_render.h"

static const char *text(const struct rm_cell c)
{
	static char buf[128]; /* a test helper, one call at a time */
	return report_cell_text(buf, sizeof(buf), &c, -1, 0);
}

/* An action two findings share is whole under the first and a reference
 * with its first clause under the second; JSON keeps both whole. */
static void test_action_once(void **state)
{
	(void)state;
	struct finding_list l;
	finding_list_init(&l);
	const char *sw = "autograd's anomaly detection is on: turn it off outside debugging";
	const char *lng = "the time is in library kernels (cuBLAS/cuDNN/flash) at their roof and "
			  "what is left is less work, lower precision, shapes in multiples of 128";
	struct finding *a = finding_add(&l, "launch_overhead", SEV_CRITICAL, "launches");
	finding_action(a, "%s", sw);
	finding_action(a, "%s", lng);
	struct finding *b = finding_add(&l, "sync_stall", SEV_WARNING, "syncs");
	finding_action(b, "%s", "copy results back with non_blocking=True");
	finding_action(b, "%s", sw);
	finding_action(b, "%s", lng);
	char buf[400];
	assert_string_equal(finding_action_block(buf, sizeof(buf), &l, 0, 0), sw);
	assert_string_equal(finding_action_block(buf, sizeof(buf), &l, 1, 0),
			    "copy results back with non_blocking=True");
	assert_string_equal(finding_action_block(buf, sizeof(buf), &l, 1, 1),
			    "as under launch_overhead above: autograd's anomaly detection is on");
	/* a colon inside parentheses ends no clause */
	struct finding *x = finding_add(&l, "compute_bound", SEV_WARNING, "pipes");
	const char *epi = "fuse the epilogue into the library call (cuBLASLt epilogues: bias, "
			  "ReLU/GELU) instead of a kernel after it";
	finding_action(x, "%s", epi);
	struct finding *y = finding_add(&l, "gpu_busy", SEV_INFO, "busy");
	finding_action(y, "%s", epi);
	assert_string_equal(finding_action_block(buf, sizeof(buf), &l, 3, 0),
			    "as under compute_bound above: fuse the epilogue into the library call "
			    "(cuBLASLt epilogues: bias, ReLU/GELU)...");
	/* no colon within a line: its first 80 bytes */
	finding_action_block(buf, sizeof(buf), &l, 1, 2);
	assert_int_equal(strncmp(buf, "as under launch_overhead above: the time is in library", 54),
			 0);
	assert_non_null(strstr(buf, "..."));
	assert_true(strlen(buf) <= strlen("as under launch_overhead above: ") + 80 + 3);
	/* the action's own words up to a space: "...what is..." never "...what is le..." */
	const char *clause = buf + strlen("as under launch_overhead above: ");
	size_t len = (size_t)(strstr(buf, "...") - clause);
	assert_int_equal(strncmp(clause, lng, len), 0);
	assert_int_equal(lng[len], ' ');
	assert_true(len > 60);
	/* the text blocks say the switch once; the JSON twice */
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);
	assert_non_null(f);
	finding_list_text(f, &l);
	fclose(f);
	const char *whole = strstr(out, "turn it off outside debugging");
	const char *ref = strstr(out, "as under launch_overhead above: autograd's");
	assert_non_null(whole);
	assert_non_null(ref);
	assert_true(whole < ref);
	assert_null(strstr(ref, "turn it off outside debugging"));
	free(out);
	finding_list_release(&l);
}

static void test_cells(void **state)
{
	(void)state;
	struct rm_cell c = rm_cell_int(RM_DURATION, 12345678);
	assert_string_equal(text(c), "12.35 ms");
	c.style = RM_STYLE_SHORT;
	c.v.i = TH_SHORT_KERNEL_NS;
	assert_string_equal(text(c), "10 us");
	c.style = RM_STYLE_SECONDS;
	c.prec = 3;
	c.v.i = 1500000000;
	assert_string_equal(text(c), "1.500 s");
	assert_string_equal(text(rm_cell_num(RM_PERCENT, 12.25, 1)), "12.2%");
	c = rm_cell_num(RM_PERCENT, 12.5, 0);
	c.style = RM_STYLE_BARE;
	assert_string_equal(text(c), "12");
	c = rm_cell_num(RM_NUMBER, 3.14159, 2);
	c.style = RM_STYLE_MAGNITUDE;
	assert_string_equal(text(c), "3.14");
	c.v.d = 31.4159;
	assert_string_equal(text(c), "31.4");
	c.v.d = 314.159;
	assert_string_equal(text(c), "314");
	c = rm_cell_num(RM_NUMBER, -95.0, 0);
	c.style = RM_STYLE_SIGNED;
	assert_string_equal(text(c), "-95");
	c.v.d = 135;
	assert_string_equal(text(c), "+135");
	c = rm_cell_num(RM_NUMBER, 0.00225, 3);
	c.style = RM_STYLE_SIG;
	assert_string_equal(text(c), "0.00225");
	assert_string_equal(text(rm_cell_int(RM_COUNT, 20000)), "20000");
	/* unknown is never 0 */
	assert_string_equal(text(rm_cell_unknown(RM_COUNT)), "?");
	assert_string_equal(text(rm_cell_unknown(RM_PERCENT)), "?");
	assert_string_equal(text(rm_cell_unknown(RM_DURATION)), "?");
	assert_string_equal(text(rm_cell_str(RM_TEXT, NULL)), "?");
}

static void test_templates(void **state)
{
	(void)state;
	char buf[256];
	struct rm_line l = {.n_args = 2};
	l.args[0].key = "n";
	l.args[0].c = rm_cell_int(RM_COUNT, 7);
	l.args[1].key = "share";
	l.args[1].c = rm_cell_num(RM_PERCENT, 42.26, 1);
	assert_string_equal(
	    report_expand(buf, sizeof(buf), "{n} kernels, {share} of the run", &l, NULL),
	    "7 kernels, 42.3% of the run");
	/* a placeholder's decimals and sign */
	assert_string_equal(report_expand(buf, sizeof(buf), "{share:0} {share:+2}", &l, NULL),
			    "42% +42.26%");
	/* thresholds come from the table, so text cannot drift from the rules */
	assert_string_equal(report_expand(buf, sizeof(buf),
					  "< {th.short_kernel}, >= {th.gpu_gap}, {th.util_chunks} "
					  "chunks below {th.util_chunk_low}",
					  NULL, NULL),
			    "< 10 us, >= 500 ms, 30 chunks below 50%");
	/* a name nothing defines stays as written, visibly */
	assert_string_equal(report_expand(buf, sizeof(buf), "{nope} {th.nope}", &l, NULL),
			    "{nope} {th.nope}");
	/* cut at the buffer, never past it */
	char small[8];
	assert_string_equal(report_expand(small, sizeof(small), "{n} kernels", &l, NULL),
			    "7 kerne");
}

/* A trace of one kernel group with no device properties: occupancy,
 * registers, waves and the limiter are unknown, and say so. */
static char *render(int json)
{
	struct trace t;
	char err[512], *buf = NULL;
	size_t len = 0;
	trace_init(&t);
	t.source = TRACE_SRC_RECORD;
	bt_launched(&t, 10, 20, 7, 1, "k", 1, 32, 0, 5);
	t.kernels[0].regs = 0;
	struct trace_process *p = trace_add_process(&t);
	p->pid = 100;
	analysis_sort(&t);
	struct analysis_result res;
	struct analysis_opts o = {.device = -1};
	assert_int_equal(analysis_result_run(&res, &t, &o, err), 0);
	struct report r;
	assert_int_equal(report_build(&r, &res, "t.db", err), 0);
	FILE *f = open_memstream(&buf, &len);
	if (json)
		report_json(f, &r);
	else
		report_text(f, &r);
	fclose(f);
	/* the sections a renderer can count on, in text order */
	static const char *const ids[] = {
	    "run",  "warnings", "verdict", "summary", "findings", "top_kernels", "launch",
	    "idle", "copies",	"syncs",   "nvtx",    "samples",  "processes"};
	size_t at = 0;
	for (size_t i = 0; i < r.n_secs && at < sizeof(ids) / sizeof(ids[0]); i++)
		if (strcmp(r.secs[i].id, ids[at]) == 0)
			at++;
	assert_int_equal(at, sizeof(ids) / sizeof(ids[0]));
	report_release(&r);
	analysis_result_release(&res);
	trace_release(&t);
	return buf;
}

static void test_unknown_in_outputs(void **state)
{
	(void)state;
	char *j = render(1);
	assert_non_null(strstr(j, "\"registers_per_thread\": null"));
	assert_non_null(strstr(j, "\"theoretical_occupancy_pct\": null"));
	assert_non_null(strstr(j, "\"limiter\": null"));
	assert_non_null(strstr(j, "\"waves\": null"));
	assert_non_null(strstr(j, "\"htod_gbps\": null"));
	assert_non_null(strstr(j, "\"parent_pid\": null"));
	assert_non_null(strstr(j, "\"sm_count\": null")); /* no device properties */
	/* the schema's key order: summary before findings before processes */
	char *s = strstr(j, "\"summary\""), *fi = strstr(j, "\"findings\""),
	     *pr = strstr(j, "\"processes\""), *kc = strstr(j, "\"kernel_counters\"");
	assert_true(s && fi && pr && kc && s < fi && fi < pr && pr < kc);
	free(j);
	char *t = render(0);
	/* the kernel row: regs ?, occ% ?, limiter ?, waves ? */
	assert_non_null(strstr(t, "       1/32    ?    ? ?             ? 100.0%"));
	assert_non_null(strstr(t, "(< 10 us)")); /* from the threshold table */
	for (char *l = t, *e; (e = strchr(l, '\n')); l = e + 1)
		assert_false(e > l && e[-1] == ' '); /* no trailing blanks */
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cells),
	    cmocka_unit_test(test_action_once),
	    cmocka_unit_test(test_templates),
	    cmocka_unit_test(test_unknown_in_outputs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
