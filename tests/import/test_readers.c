/*
 * test_readers.c - the reader table (import/load.h) and trace sources.
 *
 * A new format is one reader and one table line: the test reader below
 * (a text file "gpuscope-test-trace" then "kernel NAME START_NS END_NS"
 * lines) is added to a copy of the table, and trace_load_with then opens
 * its files by content, a directory scan knows its suffix, and the
 * message for an unknown file names it with the others. A trace's source
 * round-trips through the database for every source, and a database that
 * names a source this gpuscope does not know is refused, not read as a
 * recording.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "import/load.h"
#include "trace/trace_db.h"
#include "util/error.h"
#include "util/infile.h"

#define MAGIC "gpuscope-test-trace\n"

static int sniff_test(const char *path, const unsigned char *head, size_t n)
{
	(void)path;
	return n >= strlen(MAGIC) && memcmp(head, MAGIC, strlen(MAGIC)) == 0;
}

static int load_test(struct trace *t, struct infile *in, const char *path,
		     const struct kineto_options *ko, char *err)
{
	(void)ko;
	char buf[4096];
	size_t len = 0;
	ssize_t got;
	while ((got = infile_read(in, buf + len, sizeof(buf) - 1 - len, err)) > 0)
		len += (size_t)got;
	if (got < 0)
		return -1;
	buf[len] = 0;
	trace_init(t);
	char name[64];
	long long s, e;
	for (char *line = strchr(buf, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
		if (sscanf(line + 1, "kernel %63s %lld %lld", name, &s, &e) != 3) {
			trace_release(t);
			return error_set(err, "'%s': a line that is not a kernel", path);
		}
		struct trace_kernel *k = trace_add_kernel(t);
		if (!k) {
			trace_release(t);
			return error_set(err, "out of memory");
		}
		k->start_ns = s;
		k->end_ns = e;
		k->name_id = trace_intern(t, name);
	}
	t->source = TRACE_SRC_RECORD;
	return 0;
}

static char dir[] = "/tmp/gs-test-readers-XXXXXX";

static void write_file(const char *name, const char *text)
{
	char p[256];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void new_format_is_one_line(void **state)
{
	(void)state;
	struct trace_reader table[8];
	assert_true(trace_n_readers < 8);
	memcpy(table, trace_readers, trace_n_readers * sizeof(*table));
	table[trace_n_readers] =
	    (struct trace_reader){"test trace", ".gst", sniff_test, load_test, TRACE_SRC_RECORD};
	size_t n = trace_n_readers + 1;
	write_file("a.gst", MAGIC "kernel k1 100 200\nkernel k2 300 450\n");
	write_file("b.txt", "neither\n");
	char p[256], err[GS_ERR_LEN] = "";
	struct trace t;
	snprintf(p, sizeof(p), "%s/a.gst", dir);
	/* the stock table does not read it, and says what it expected */
	assert_int_equal(trace_load_any(&t, p, err), -1);
	assert_non_null(strstr(err, "is neither a gpuscope trace database nor a pytorch "
				    "profiler trace (.json or .json.gz)"));
	/* the table with its line does */
	assert_int_equal(trace_load_with(table, n, &t, p, NULL, err), 0);
	assert_int_equal(t.n_kernels, 2);
	assert_string_equal(trace_str(&t, t.kernels[1].name_id), "k2");
	assert_int_equal(t.kernels[1].end_ns, 450);
	trace_release(&t);
	/* a file none reads: the message names every reader */
	snprintf(p, sizeof(p), "%s/b.txt", dir);
	assert_int_equal(trace_load_with(table, n, &t, p, NULL, err), -1);
	assert_non_null(strstr(err, "neither a gpuscope trace database, a pytorch profiler trace "
				    "(.json or .json.gz) nor a test trace (.gst)"));
	/* a directory scan knows its suffix */
	assert_true(trace_reader_suffix(table, n, "rank0.gst"));
	assert_false(trace_reader_suffix(trace_readers, trace_n_readers, "rank0.gst"));
	assert_true(trace_reader_suffix(trace_readers, trace_n_readers, "x.json.gz"));
	assert_false(trace_reader_suffix(trace_readers, trace_n_readers, ".db"));
	/* the commands' help lists it (cli's CLI_READS_TRACES), names aligned */
	char help[1024];
	trace_readers_help(help, sizeof(help), table, n);
	assert_non_null(strstr(help, "\n  test trace               .gst\n"));
	assert_non_null(strstr(help, "  pytorch profiler trace   .json .json.gz\n"));
	assert_null(
	    strstr(trace_readers_help(help, sizeof(help), trace_readers, trace_n_readers), ".gst"));
	unlink(p);
	snprintf(p, sizeof(p), "%s/a.gst", dir);
	unlink(p);
}

static void source_round_trips(void **state)
{
	(void)state;
	char p[256], err[GS_ERR_LEN] = "";
	snprintf(p, sizeof(p), "%s/s.db", dir);
	for (unsigned s = 0; s < TRACE_SRC_N; s++) {
		struct trace t;
		trace_init(&t);
		struct trace_kernel *k = trace_add_kernel(&t);
		k->start_ns = 1000;
		k->end_ns = 2000;
		k->name_id = trace_intern(&t, "k");
		t.source = (uint8_t)s;
		unlink(p);
		if (trace_db_save(p, &t, err) < 0)
			fail_msg("save: %s", err);
		trace_release(&t);
		if (trace_load_any(&t, p, err) < 0)
			fail_msg("load: %s", err);
		assert_int_equal(t.source, s);
		uint8_t back;
		assert_int_equal(trace_source_parse(trace_source_name(s), &back), 0);
		assert_int_equal(back, s);
		trace_release(&t);
	}
	/* the caps tell a profile from a recording */
	assert_true(trace_source_caps(TRACE_SRC_PYTORCH) & TRACE_CAP_PROFILER_COST);
	assert_false(trace_source_caps(TRACE_SRC_RECORD) & TRACE_CAP_PROFILER_COST);
	/* a source this gpuscope does not know: refused, not read as "cupti" */
	sqlite3 *db;
	assert_int_equal(sqlite3_open(p, &db), SQLITE_OK);
	assert_int_equal(
	    sqlite3_exec(db, "UPDATE meta SET value = 'tpu' WHERE key = 'source'", 0, 0, 0),
	    SQLITE_OK);
	sqlite3_close(db);
	struct trace t;
	assert_int_equal(trace_load_any(&t, p, err), -1);
	assert_non_null(strstr(err, "unknown source 'tpu'"));
	unlink(p);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(new_format_is_one_line),
	    cmocka_unit_test(source_round_trips),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
