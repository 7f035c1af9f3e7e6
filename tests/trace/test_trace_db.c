/*
 * test_trace_db.c - the trace database round trip (unified-memory rows of
 * schema v5 included, and a v4 file without them), its refusals and its
 * behaviour on corrupt and foreign files.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <unistd.h>

#include "trace/schema.h"
#include "trace/trace_db.h"
#include "util/error.h"

static char dir[256];

static const char *tmp_path(const char *name)
{
	static char p[512];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return p;
}

static void fill(struct trace *t)
{
	trace_init(t);
	trace_set_meta(t, "command", "./app --x");
	struct trace_device *d = trace_add_device(t);
	d->id = 0;
	d->name_id = trace_intern(t, "NVIDIA H200");
	d->cc_major = 9;
	d->sm_count = 132;
	d->mem_bytes = 150ULL << 30;
	for (int i = 0; i < 1000; i++) {
		struct trace_kernel *k = trace_add_kernel(t);
		k->start_ns = 1700000000000000000LL + i * 10000;
		k->end_ns = k->start_ns + 3000 + i;
		k->pid = 4242;
		k->stream = 7;
		k->correlation = (uint32_t)i + 1;
		k->name_id = trace_intern(t, i % 2 ? "kernel_a" : "kernel_b");
		k->grid[0] = i % 2 ? 2 : 1024;
		k->grid[1] = k->grid[2] = 1;
		k->block[0] = 256;
		k->block[1] = k->block[2] = 1;
		k->regs = 32;
		k->dyn_smem = i % 2 ? 0 : 4096;
	}
	struct trace_copy *c = trace_add_copy(t);
	c->start_ns = 1700000000000000000LL - 5000; /* earliest event: the base */
	c->end_ns = c->start_ns + 777;
	c->kind = COPY_HTOD;
	c->src_kind = MEM_PAGEABLE;
	c->dst_kind = MEM_DEVICE;
	c->bytes = 1 << 20;
	struct trace_api *a = trace_add_api(t);
	a->start_ns = 1700000000000000100LL;
	a->end_ns = a->start_ns + 50;
	a->name_id = trace_intern(t, "cudaLaunchKernel");
	a->correlation = 1;
	struct trace_sample *s = trace_add_sample(t);
	s->ts_ns = 1700000000000000200LL;
	s->metric_id = trace_intern(t, "gpm_sm_util");
	s->value = 42.5;
	/* unified memory: a migration, a GPU fault, a CPU fault (an instant,
	 * the CPU as its device) */
	static const struct {
		int kind;
		uint32_t device, src, dst, flags;
		uint64_t value, address;
		int64_t at, dur;
	} uv[] = {{UVM_HTOD, 0, UVM_CPU, 0, UVM_CAUSE_COHERENCE, 2 << 20, 0x7f0000200000, 300, 900},
		  {UVM_GPU_FAULT, 0, 0, UVM_CPU, 2, 3, 0x7f0000200000, 250, 1200},
		  {UVM_CPU_FAULT, UVM_CPU, UVM_CPU, UVM_CPU, 1, 0x401234, 0x7f0000400000, 5000, 0}};
	for (size_t i = 0; i < sizeof(uv) / sizeof(uv[0]); i++) {
		struct trace_uvm *u = trace_add_uvm(t);
		u->start_ns = 1700000000000000000LL + uv[i].at;
		u->end_ns = u->start_ns + uv[i].dur;
		u->pid = 4242;
		u->kind = (uint8_t)uv[i].kind;
		u->device = uv[i].device;
		u->src = uv[i].src;
		u->dst = uv[i].dst;
		u->flags = uv[i].flags;
		u->value = uv[i].value;
		u->address = uv[i].address;
	}
	trace_set_meta(t, "uvm_counters", "recorded");
	struct trace_process *p = trace_add_process(t);
	p->pid = 4242;
	p->dropped_records = 3;
	p->status_id = trace_intern(t, "");
}

static void round_trip(void **state)
{
	struct trace t, u;
	char err[GS_ERR_LEN];
	fill(&t);
	const char *path = tmp_path("rt.db");
	assert_int_equal(trace_db_save(path, &t, err), 0);
	assert_true(trace_db_is_gpuscope(path));
	assert_int_equal(trace_db_load(&u, path, err), 0);
	assert_int_equal(u.n_kernels, 1000);
	assert_int_equal(u.n_copies, 1);
	for (size_t i = 0; i < 1000; i++) {
		assert_int_equal(u.kernels[i].start_ns, t.kernels[i].start_ns);
		assert_int_equal(u.kernels[i].end_ns, t.kernels[i].end_ns);
		assert_string_equal(trace_str(&u, u.kernels[i].name_id),
				    trace_str(&t, t.kernels[i].name_id));
		assert_int_equal(u.kernels[i].grid[0], t.kernels[i].grid[0]);
		assert_int_equal(u.kernels[i].dyn_smem, t.kernels[i].dyn_smem);
		assert_int_equal(u.kernels[i].correlation, t.kernels[i].correlation);
		assert_int_equal(u.kernels[i].pid, 4242);
	}
	assert_int_equal(u.copies[0].start_ns, t.copies[0].start_ns);
	assert_int_equal(u.copies[0].src_kind, MEM_PAGEABLE);
	assert_int_equal(u.apis[0].kind, API_LAUNCH);
	assert_int_equal(u.samples[0].ts_ns, t.samples[0].ts_ns);
	assert_true(u.samples[0].value == 42.5);
	assert_string_equal(trace_str(&u, u.devices[0].name_id), "NVIDIA H200");
	assert_int_equal(u.devices[0].sm_count, 132);
	assert_int_equal(u.processes[0].dropped_records, 3);
	assert_string_equal(trace_get_meta(&u, "command"), "./app --x");
	char ver[16];
	snprintf(ver, sizeof(ver), "%d", TRACE_DB_SCHEMA_VERSION);
	assert_string_equal(trace_get_meta(&u, "schema_version"), ver);
	/* the unified-memory rows, field for field */
	assert_int_equal(u.n_uvm, 3);
	assert_memory_equal(u.uvm, t.uvm, 3 * sizeof(*u.uvm));
	assert_int_equal(u.uvm[2].device, UVM_CPU);
	assert_int_equal(u.uvm[2].end_ns, u.uvm[2].start_ns);
	assert_string_equal(trace_get_meta(&u, "uvm_counters"), "recorded");

	/* two distinct launch configurations for 1000 kernels */
	sqlite3 *db;
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(
	    sqlite3_prepare_v2(db, "SELECT count(*) FROM launch_configs", -1, &st, NULL),
	    SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), 2);
	sqlite3_finalize(st);
	/* the view gives absolute times back */
	assert_int_equal(
	    sqlite3_prepare_v2(db, "SELECT start_ns, name FROM kernel_v ORDER BY id LIMIT 1", -1,
			       &st, NULL),
	    SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int64(st, 0), 1700000000000000000LL);
	assert_string_equal((const char *)sqlite3_column_text(st, 1), "kernel_b");
	sqlite3_finalize(st);
	sqlite3_close(db);
	trace_release(&t);
	trace_release(&u);
}

static void refuses_foreign_file(void **state)
{
	struct trace t;
	char err[GS_ERR_LEN];
	const char *path = tmp_path("notes.txt");
	FILE *f = fopen(path, "w");
	fputs("precious\n", f);
	fclose(f);
	fill(&t);
	assert_int_equal(trace_db_save(path, &t, err), -1);
	assert_non_null(strstr(err, "refusing to replace"));
	char buf[32] = {0};
	f = fopen(path, "r");
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "precious\n");
	trace_release(&t);
}

static void rejects_bad_files(void **state)
{
	struct trace t;
	char err[GS_ERR_LEN];
	/* missing */
	assert_int_equal(trace_db_load(&t, tmp_path("missing.db"), err), -1);
	assert_non_null(strstr(err, "cannot open"));
	/* text */
	assert_int_equal(trace_db_load(&t, tmp_path("notes.txt"), err), -1);
	assert_non_null(strstr(err, "not a gpuscope trace database"));
	/* another SQLite database */
	sqlite3 *db;
	const char *other = tmp_path("other.db");
	assert_int_equal(sqlite3_open(other, &db), SQLITE_OK);
	sqlite3_exec(db, "CREATE TABLE x(a); INSERT INTO x VALUES (1);", NULL, NULL, NULL);
	sqlite3_close(db);
	assert_int_equal(trace_db_load(&t, other, err), -1);
	assert_non_null(strstr(err, "not a gpuscope trace database"));
	/* a newer schema */
	struct trace w;
	fill(&w);
	const char *newer = tmp_path("newer.db");
	assert_int_equal(trace_db_save(newer, &w, err), 0);
	trace_release(&w);
	assert_int_equal(sqlite3_open(newer, &db), SQLITE_OK);
	char newer_sql[64];
	snprintf(newer_sql, sizeof(newer_sql), "PRAGMA user_version=%d",
		 TRACE_DB_SCHEMA_VERSION + 1);
	sqlite3_exec(db, newer_sql, NULL, NULL, NULL);
	sqlite3_close(db);
	assert_int_equal(trace_db_load(&t, newer, err), -1);
	assert_non_null(strstr(err, "newer"));
}

/* a schema v4 file (before the unified-memory table) still loads: no uvm
 * rows, everything else as written; one of v5 that lost the table is
 * damaged */
static void loads_v4_without_uvm(void **state)
{
	(void)state;
	struct trace t, u;
	char err[GS_ERR_LEN];
	fill(&t);
	const char *path = tmp_path("v4.db");
	assert_int_equal(trace_db_save(path, &t, err), 0);
	sqlite3 *db;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "DROP TABLE uvm", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(trace_db_load(&u, path, err), -1);
	assert_non_null(strstr(err, "uvm"));
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "PRAGMA user_version=4", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(trace_db_load(&u, path, err), 0);
	assert_int_equal(u.n_uvm, 0);
	assert_int_equal(u.n_kernels, 1000);
	assert_int_equal(u.n_copies, 1);
	trace_release(&t);
	trace_release(&u);
}

static void rejects_corrupt_content(void **state)
{
	struct trace t;
	char err[GS_ERR_LEN];
	fill(&t);
	const char *path = tmp_path("corrupt.db");
	assert_int_equal(trace_db_save(path, &t, err), 0);
	trace_release(&t);
	/* truncate to half: the header survives, pages are missing */
	FILE *f = fopen(path, "r+");
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fclose(f);
	assert_int_equal(truncate(path, size / 2), 0);
	int rc = trace_db_load(&t, path, err);
	assert_int_equal(rc, -1);
	assert_true(strlen(err) > 0);
	/* overwrite the middle with garbage */
	assert_int_equal(trace_db_save(tmp_path("corrupt2.db"), (fill(&t), &t), err), 0);
	trace_release(&t);
	f = fopen(tmp_path("corrupt2.db"), "r+");
	fseek(f, 4096, SEEK_SET);
	for (int i = 0; i < 8192; i++)
		fputc((i * 131) & 0xff, f);
	fclose(f);
	rc = trace_db_load(&t, tmp_path("corrupt2.db"), err);
	/* either detected as corrupt, or (if the garbage hit free space) loaded */
	if (rc == 0)
		trace_release(&t);
	else
		assert_true(strlen(err) > 0);
}

/* t and u hold the same rows (launch configurations are inside kernels) */
static void same_rows(const struct trace *t, const struct trace *u, const char *what)
{
	assert_int_equal(t->n_strings, u->n_strings);
	for (int i = 0; i < TT_COUNT; i++) {
		const struct ttable *tt = &trace_tables[i];
		if (i == TT_LAUNCH_CONFIGS)
			continue;
		size_t n = *(const size_t *)((const char *)t + tt->n_off);
		const void *a = *(void *const *)((const char *)t + tt->arr_off);
		const void *b = *(void *const *)((const char *)u + tt->arr_off);
		if (n != *(const size_t *)((const char *)u + tt->n_off) ||
		    (n && memcmp(a, b, n * tt->elem_size) != 0))
			fail_msg("%s: table %s differs between the pages and SQLite", what,
				 tt->name);
	}
}

/* path read from the pages and through SQLite only: the same rows, or the
 * same error; returns the tables the pages gave */
static unsigned long both_ways(const char *path)
{
	struct trace t, u;
	char e1[GS_ERR_LEN] = "", e2[GS_ERR_LEN] = "";
	struct trace_db_load_opts pages = {0}, sqlite = {.sqlite_only = 1};
	int r1 = trace_db_load_opt(&t, path, &pages, e1);
	int r2 = trace_db_load_opt(&u, path, &sqlite, e2);
	assert_int_equal(sqlite.page_tables, 0);
	assert_int_equal(r1, r2);
	if (r1 == 0) {
		same_rows(&t, &u, path);
		trace_release(&t);
		trace_release(&u);
	} else {
		assert_string_equal(e1, e2);
	}
	return pages.page_tables;
}

/* every committed database, read both ways */
static void pages_match_sqlite_fixtures(void **state)
{
	const char *dirs[] = {"tests/fixtures/zoo",
			      "tests/fixtures/real",
			      "tests/fixtures/pytorch",
			      "tests/fixtures/counters",
			      "tests/fixtures/pm",
			      "tests/fixtures/procs",
			      "examples"};
	size_t files = 0;
	for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
		char cmd[600];
		snprintf(cmd, sizeof(cmd), "ls %s/%s/*.db 2>/dev/null", GPUSCOPE_SOURCE_DIR,
			 dirs[d]);
		FILE *ls = popen(cmd, "r");
		assert_non_null(ls);
		char path[512];
		while (fgets(path, sizeof(path), ls)) {
			path[strcspn(path, "\n")] = 0;
			assert_true(both_ways(path) >= 4); /* kernels, copies, api calls, ... */
			files++;
		}
		pclose(ls);
	}
	assert_true(files >= 40);
}

/* a file fuzz_db found (tests/fuzz/corpus/db/overlapping-cells.db): two
 * cells of the syncs table's leaf overlap by 14 bytes; SQLite stops at the
 * second row with "malformed", and the page reader must not read them as
 * rows but leave the table to SQLite, which gives that message */
static void pages_refuse_overlapping_cells(void **state)
{
	(void)state;
	struct trace t;
	char err[GS_ERR_LEN] = "";
	const char *path = GPUSCOPE_SOURCE_DIR "/tests/fuzz/corpus/db/overlapping-cells.db";
	both_ways(path);
	assert_int_equal(trace_db_load(&t, path, err), -1);
	assert_non_null(strstr(err, "malformed"));
}

static void exec_sql(const char *path, const char *sql)
{
	sqlite3 *db;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

/* enough kernels for several threads and a b-tree of three levels; then
 * files the page reader must leave to SQLite (or count again) */
static void pages_match_sqlite_edits(void **state)
{
	struct trace t;
	char err[GS_ERR_LEN];
	fill(&t);
	for (int i = 0; i < 300000; i++) {
		struct trace_kernel *k = trace_add_kernel(&t);
		k->start_ns = 1700000000100000000LL + i * 1000LL;
		k->end_ns = k->start_ns + 500 + i % 77;
		k->stream = (uint32_t)i % 3;
		k->correlation = (uint32_t)i + 2000;
		k->name_id = trace_intern(&t, i % 5 ? "kernel_a" : "kernel_c");
		k->grid[0] = 1 + (uint32_t)i % 300;
	}
	char path[512];
	snprintf(path, sizeof(path), "%s", tmp_path("pages.db"));
	assert_int_equal(trace_db_save(path, &t, err), 0);
	trace_release(&t);
	assert_true(both_ways(path) >= 4);
	const char *edits[] = {
	    /* rowids no longer dense: the estimates are wrong, the cells counted */
	    "DELETE FROM kernels WHERE id BETWEEN 1000 AND 1500 OR id % 97 = 0",
	    /* a real in an integer column (SQLite rounds it) */
	    "UPDATE kernels SET stream = 2.5 WHERE id = 77777",
	    /* text where a number is read */
	    "UPDATE kernels SET correlation = 'x' WHERE id = 5000",
	    /* rows written before a column that is read was added: they lack its
	       field (NULL, read as 0), a later row has it */
	    "DROP VIEW kernel_v; ALTER TABLE kernels DROP COLUMN graph_id; ALTER TABLE kernels ADD "
	    "COLUMN graph_id "
	    "INTEGER; INSERT INTO kernels(start_ns, dur_ns, config_id, graph_id) VALUES "
	    "(10, 5, 1, 7)",
	    /* a column added with a default value */
	    "ALTER TABLE api_calls ADD COLUMN extra INTEGER DEFAULT 7",
	    /* an index SQLite could scan instead */
	    "CREATE INDEX k_all ON kernels(start_ns, dur_ns, config_id, correlation, stream, pid, "
	    "device, context, graph_id)",
	    /* a row too big for its page (overflow pages) */
	    "UPDATE copies SET graph_id = 1, bytes = 3 WHERE id = 1; ALTER TABLE copies ADD COLUMN "
	    "pad BLOB; UPDATE copies SET pad = zeroblob(20000)",
	    /* integers of every stored size (1, 2, 3, 4, 6 and 8 bytes), each sign */
	    "UPDATE kernels SET graph_id = CASE id % 13 WHEN 0 THEN -1 WHEN 1 THEN -200 WHEN 2 "
	    "THEN -40000 WHEN 3 THEN -9000000 WHEN 4 THEN -3000000000 WHEN 5 THEN "
	    "-200000000000000 WHEN 6 THEN -9000000000000000000 WHEN 7 THEN 127 WHEN 8 THEN 32767 "
	    "WHEN 9 THEN 8388607 WHEN 10 THEN 2147483647 WHEN 11 THEN 140737488355327 ELSE "
	    "9223372036854775807 END, stream = id % 3 - 1; INSERT INTO copies(start_ns, dur_ns, "
	    "kind, "
	    "src_kind, dst_kind, bytes, correlation, stream, pid, device, context, graph_id) "
	    "SELECT "
	    "start_ns, dur_ns, kind, src_kind, dst_kind, v.column1, correlation, stream, pid, "
	    "device, context, graph_id FROM copies, (VALUES (-1), (-200), (-40000), (-9000000), "
	    "(-3000000000), (-200000000000000), (-9000000000000000000), (127), (32767), "
	    "(8388607), (2147483647), (140737488355327), (9223372036854775807), (0), (1)) v",
	    /* a time out of range: the same message both ways */
	    "UPDATE kernels SET start_ns = 9000000000000000000 WHERE id = 250000",
	};
	for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
		char cmd[1200], copy[512];
		snprintf(copy, sizeof(copy), "%s", tmp_path("edit.db"));
		snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", path, copy);
		assert_int_equal(system(cmd), 0);
		exec_sql(copy, edits[i]);
		both_ways(copy);
	}
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/gpuscope-test-db-XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(round_trip),
	    cmocka_unit_test(refuses_foreign_file),
	    cmocka_unit_test(rejects_bad_files),
	    cmocka_unit_test(loads_v4_without_uvm),
	    cmocka_unit_test(rejects_corrupt_content),
	    cmocka_unit_test(pages_match_sqlite_fixtures),
	    cmocka_unit_test(pages_match_sqlite_edits),
	    cmocka_unit_test(pages_refuse_overlapping_cells),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;
	return rc;
}
