/*
 * test_report_cli.c - `gpuscope report` and `gpuscope diff` end to end:
 * hand-built traces are saved as trace databases, the binary is run, and
 * its JSON is checked with python3's json parser (schema, primary, keys),
 * its text for the verdict line, and diff's exit code for the CI gate.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include "../analyze/build_trace.h"
#include "diagnose/diagnose.h"
#include "trace/trace_db.h"

static char dir[64];

static void storm(struct trace *t, int graph)
{
	bt_init(t);
	double at = 0;
	for (uint32_t i = 0; i < 5000; i++) {
		if (graph) /* the same work as a CUDA graph: back to back */
			bt_kernel(t, at + 5, at + 8, 7, 0, "tiny_add", 1024, 256, 32);
		else
			bt_launched(t, at + 5, at + 8, 7, i + 1, "tiny_add", 1024, 256, at, at + 4);
		at += graph ? 3.2 : 8;
	}
	if (graph)
		bt_api(t, 0, 10, API_LAUNCH, 0, "cudaGraphLaunch");
	struct trace_process *p = trace_add_process(t);
	p->pid = 100;
	p->cmdline_id = trace_intern(t, "./tiny_kernel_storm");
	analysis_sort(t);
}

static int save(struct trace *t, const char *name, char *path, size_t n)
{
	char err[512];
	snprintf(path, n, "%s/%s", dir, name);
	int rc = trace_db_save(path, t, err);
	if (rc)
		print_error("save: %s\n", err);
	trace_release(t);
	return rc;
}

static int sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	int rc = system(cmd);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/gs-report-test-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	sh("rm -rf '%s'", dir);
	return 0;
}

/* The commands reach the binary only when the linker keeps their objects. */
static void require_commands(void)
{
	if (sh("%s report --help > /dev/null 2>&1 && %s diff --help > /dev/null 2>&1", GPUSCOPE_BIN,
	       GPUSCOPE_BIN))
		fail_msg("gpuscope has no 'report'/'diff' command: cmd_*.o are not linked (weak "
			 "references do not pull objects out of libgpuscope_core.a; link it with "
			 "$<LINK_LIBRARY:WHOLE_ARCHIVE,gpuscope_core> or -Wl,--whole-archive)");
}

static void test_report_json(void **state)
{
	require_commands();
	struct trace t;
	char db[256];
	storm(&t, 0);
	assert_int_equal(save(&t, "storm.db", db, sizeof(db)), 0);
	assert_int_equal(sh("%s report --format json '%s' > '%s/r.json'", GPUSCOPE_BIN, db, dir),
			 0);
	assert_int_equal(
	    sh("python3 -c \"import json,sys; r=json.load(open('%s/r.json')); "
	       "assert r['schema']=='gpuscope.report.v1'; "
	       "assert r['source']=='cupti'; assert r['primary']=='launch_overhead'; "
	       "assert r['summary']['kernels']==5000; assert r['span_ns']>0; "
	       "assert 0<r['summary']['gpu_busy_pct']<50; "
	       "f=r['findings'][0]; assert f['id']=='launch_overhead'; "
	       "assert f['severity']=='critical' and f['actions']; "
	       "assert r['top_kernels'][0]['name']=='tiny_add'; "
	       "[r[k] for k in ('idle','copies','syncs','nvtx','processes','launch')]\"",
	       dir),
	    0);
	assert_int_equal(
	    sh("%s report '%s' | head -4 | grep -q 'launch_overhead (critical'", GPUSCOPE_BIN, db),
	    0);
	assert_int_equal(sh("%s report --format html '%s' | grep -q '</html>'", GPUSCOPE_BIN, db),
			 0);
	/* --device: one GPU of the trace; a device without work is an error */
	assert_int_equal(
	    sh("%s report --device 0 '%s' | head -1 | grep -q 'device 0 only'", GPUSCOPE_BIN, db),
	    0);
	assert_int_equal(sh("%s report --device 9 '%s' 2>/dev/null", GPUSCOPE_BIN, db), 1);
	assert_int_equal(sh("%s report --device x '%s' 2>/dev/null", GPUSCOPE_BIN, db), 2);
}

static void test_report_bad_input(void **state)
{
	require_commands();
	assert_int_equal(sh("%s report /nonexistent/x.db 2>/dev/null", GPUSCOPE_BIN), 1);
	assert_int_equal(sh("printf 'garbage' > '%s/junk'; %s report '%s/junk' 2>/dev/null", dir,
			    GPUSCOPE_BIN, dir),
			 1);
	assert_int_equal(
	    sh(": > '%s/empty'; %s report '%s/empty' 2>/dev/null", dir, GPUSCOPE_BIN, dir), 1);
	assert_int_equal(sh("%s report 2>/dev/null", GPUSCOPE_BIN), 2);
	assert_int_equal(sh("%s diff only-one.db 2>/dev/null", GPUSCOPE_BIN), 2);
	assert_int_equal(sh("%s diff a b --fail-on-regression x 2>/dev/null", GPUSCOPE_BIN), 2);
	assert_int_equal(sh("%s report --format xml x 2>/dev/null", GPUSCOPE_BIN), 2);
}

static void test_diff_cli(void **state)
{
	require_commands();
	struct trace t;
	char base[256], graph[256];
	storm(&t, 0);
	assert_int_equal(save(&t, "base.db", base, sizeof(base)), 0);
	storm(&t, 1);
	assert_int_equal(save(&t, "graph.db", graph, sizeof(graph)), 0);
	/* the graph run is faster: no regression either way round for 0% gate on it */
	assert_int_equal(
	    sh("%s diff '%s' '%s' --fail-on-regression 5 > /dev/null", GPUSCOPE_BIN, base, graph),
	    0);
	/* swapped, the new run is 2.5x slower: exit 3 */
	assert_int_equal(
	    sh("%s diff '%s' '%s' --fail-on-regression 5 > /dev/null", GPUSCOPE_BIN, graph, base),
	    3);
	assert_int_equal(
	    sh("%s diff --format json '%s' '%s' > '%s/d.json'", GPUSCOPE_BIN, base, graph, dir), 0);
	assert_int_equal(
	    sh("python3 -c \"import json; d=json.load(open('%s/d.json')); "
	       "assert d['schema']=='gpuscope.diff.v1'; "
	       "assert d['span']['ratio']<0.5; "
	       "c=[f for f in d['findings']['changed'] if f['id']=='launch_overhead']; "
	       /* launch idle 62.5% -> ~0; the graph's 3 us kernels still carry the
		  1 us fixed cost each that fusing them would win back */
	       "assert c and c[0]['delta_impact_pct']<-30; "
	       "assert 'gpu_busy' in [f['id'] for f in d['findings']['appeared']]; "
	       "k=[k for k in d['kernels'] if k['name']=='tiny_add'][0]; "
	       "assert k['base']['count']==5000 and k['new']['count']==5000\"",
	       dir),
	    0);
	/* --device on both sides; a device neither run used is an error */
	assert_int_equal(sh("%s diff --device 0 '%s' '%s' --fail-on-regression 5 > /dev/null",
			    GPUSCOPE_BIN, graph, base),
			 3);
	assert_int_equal(sh("%s diff --device 4 '%s' '%s' 2>/dev/null", GPUSCOPE_BIN, base, graph),
			 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_report_json),
	    cmocka_unit_test(test_report_bad_input),
	    cmocka_unit_test(test_diff_cli),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
