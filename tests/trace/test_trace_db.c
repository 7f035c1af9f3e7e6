/*
 * test_trace_db.c - the trace database round trip, its refusals and its
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
	assert_string_equal(trace_get_meta(&u, "schema_version"), "3");

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
	sqlite3_exec(db, "PRAGMA user_version=4", NULL, NULL, NULL);
	sqlite3_close(db);
	assert_int_equal(trace_db_load(&t, newer, err), -1);
	assert_non_null(strstr(err, "newer"));
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

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/gpuscope-test-db-XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(round_trip),
	    cmocka_unit_test(refuses_foreign_file),
	    cmocka_unit_test(rejects_bad_files),
	    cmocka_unit_test(rejects_corrupt_content),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;
	return rc;
}
