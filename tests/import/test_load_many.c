/*
 * test_load_many.c - several traces at once (trace_load_many): a directory
 * stands for its traces in name order, each trace equals the one loaded
 * alone, whatever the number of jobs, and a bad file fails the set with a
 * message naming it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "import/kineto.h"
#include "trace/trace_db.h"
#include "util/error.h"
#include "import/load.h"

static char dir[] = "/tmp/gs-test-many-XXXXXX";

static void copy(const char *from, const char *name)
{
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s/%s'", from, dir, name);
	assert_int_equal(system(cmd), 0);
}

static void directory_and_list(void **state)
{
	assert_non_null(mkdtemp(dir));
	copy(FIXTURES_DIR "/pytorch/transformer_step.json.gz", "rank1.json.gz");
	copy(FIXTURES_DIR "/pytorch/small_ops.json.gz", "rank0.json.gz");
	copy(FIXTURES_DIR "/zoo/healthy_pipeline.db", "rank2.db");
	copy(FIXTURES_DIR "/kineto-synthetic/small.json", "rank3.json");
	copy(FIXTURES_DIR "/kineto-synthetic/small.json", "notes.txt"); /* not a trace name */
	const char *alone[] = {"rank0.json.gz", "rank1.json.gz", "rank2.db", "rank3.json"};
	char err[GS_ERR_LEN];
	for (int jobs = 0; jobs <= 3; jobs++) {
		struct trace_set set;
		const char *paths[] = {dir};
		assert_int_equal(trace_load_many(&set, paths, 1, jobs, err), 0);
		assert_int_equal(set.n, 4);
		for (size_t i = 0; i < 4; i++) {
			char p[512];
			snprintf(p, sizeof(p), "%s/%s", dir, alone[i]);
			assert_string_equal(set.paths[i], p);
			struct trace t;
			assert_int_equal(trace_load_any(&t, p, err), 0);
			assert_true(kineto_same_trace(&t, &set.traces[i]));
			trace_release(&t);
		}
		trace_set_release(&set);
	}
	/* a list of files, in the order given */
	char a[512], b[512];
	snprintf(a, sizeof(a), "%s/rank3.json", dir);
	snprintf(b, sizeof(b), "%s/rank0.json.gz", dir);
	const char *paths[] = {a, b};
	struct trace_set set;
	assert_int_equal(trace_load_many(&set, paths, 2, 2, err), 0);
	assert_int_equal(set.n, 2);
	assert_string_equal(set.paths[0], a);
	assert_true(set.traces[0].n_kernels == 1 && set.traces[1].n_kernels > 100);
	trace_set_release(&set);
}

static void a_bad_file_fails_the_set(void **state)
{
	char bad[512], err[GS_ERR_LEN];
	snprintf(bad, sizeof(bad), "%s/rank9.json", dir);
	FILE *f = fopen(bad, "w");
	fputs("{\"traceEvents\": [", f);
	fclose(f);
	struct trace_set set;
	const char *paths[] = {dir};
	assert_int_equal(trace_load_many(&set, paths, 1, 2, err), -1);
	assert_non_null(strstr(err, "rank9.json"));
	assert_int_equal(set.n, 0);
	assert_null(set.traces);
	const char *none[] = {"/nonexistent/x.db"};
	assert_int_equal(trace_load_many(&set, none, 1, 0, err), -1);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(directory_and_list),
	    cmocka_unit_test(a_bad_file_fails_the_set),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
