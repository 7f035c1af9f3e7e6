/*
 * trace_db.c - writing the trace database (schema in schema.h); reading it
 * is db_read.c's.
 *
 * The writer is built for rate: one private temporary file, prepared
 * statements, one transaction per 64k rows, journal and fsync off while
 * writing (the file is not visible under its name until it is complete:
 * crash safety comes from the final rename, not from a journal), then an
 * fsync and rename(2) over the destination.
 */
#include "trace/trace_db.h"

#include <fcntl.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/schema.h"
#include "util/error.h"
#include "util/hmap.h"
#include "util/vec.h"
#include "util/version.h"

#define BATCH_ROWS 65536
#define STR_(x) #x
#define STR(x) STR_(x)
#define SCHEMA_VERSION_STR STR(TRACE_DB_SCHEMA_VERSION)

int trace_db_is_gpuscope(const char *path)
{
	unsigned char h[72];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, h, sizeof(h));
	close(fd);
	if (n < 72 || memcmp(h, "SQLite format 3", 16) != 0)
		return 0;
	uint32_t app = (uint32_t)h[68] << 24 | (uint32_t)h[69] << 16 | (uint32_t)h[70] << 8 | h[71];
	return app == TRACE_DB_APPLICATION_ID;
}

int trace_db_is_nsys_export(const char *path)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int yes = 0;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(
		db,
		"select count(*) from sqlite_master where type = 'table' and name in "
		"('CUPTI_ACTIVITY_KIND_KERNEL', 'CUPTI_ACTIVITY_KIND_RUNTIME', "
		"'TARGET_INFO_GPU', 'TARGET_INFO_SESSION_START_TIME')",
		-1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		yes = sqlite3_column_int(st, 0) > 0;
	sqlite3_finalize(st);
	sqlite3_close(db);
	return yes;
}

/* ---------------------------------------------------------------- writer */

struct writer {
	sqlite3 *db;
	char *err;
	int64_t base;
	long rows;
};

static int wfail(struct writer *w, const char *what)
{
	return error_set(w->err, "cannot write trace database: %s: %s", what,
			 sqlite3_errmsg(w->db));
}

static int exec(struct writer *w, const char *sql)
{
	char *msg = NULL;
	if (sqlite3_exec(w->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		error_set(w->err, "cannot write trace database: %s", msg ? msg : "unknown error");
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

static int prepare(struct writer *w, sqlite3_stmt **st, const char *sql)
{
	if (sqlite3_prepare_v3(w->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) != SQLITE_OK)
		return wfail(w, "prepare");
	return 0;
}

/* Steps a bound insert and starts a new transaction every BATCH_ROWS rows. */
static int step(struct writer *w, sqlite3_stmt *st)
{
	if (sqlite3_step(st) != SQLITE_DONE) {
		wfail(w, "insert");
		sqlite3_reset(st);
		return -1;
	}
	sqlite3_reset(st);
	if (++w->rows % BATCH_ROWS == 0)
		return exec(w, "COMMIT; BEGIN");
	return 0;
}

/* Launch configurations seen so far: config number -> its first kernel. */
struct configs_seen {
	struct hindex index;
	uint32_t *first; /* kernel index of each config */
	size_t n, cap;
	const struct trace_kernel *kernels;
	const struct trace_kernel *probe;
};

static int config_eq(const void *ctx, uint32_t cfg)
{
	const struct configs_seen *c = ctx;
	const struct ttable *tt = &trace_tables[TT_LAUNCH_CONFIGS];
	const char *a = (const char *)&c->kernels[c->first[cfg]], *b = (const char *)c->probe;
	for (size_t i = 0; i < tt->n_cols; i++)
		if (tt->cols[i].kind == TC_U32 &&
		    memcmp(a + tt->cols[i].off, b + tt->cols[i].off, sizeof(uint32_t)) != 0)
			return 0;
	return 1;
}

static uint64_t config_hash(const struct trace_kernel *k)
{
	const struct ttable *tt = &trace_tables[TT_LAUNCH_CONFIGS];
	uint32_t key[16];
	size_t n = 0;
	for (size_t i = 0; i < tt->n_cols && n < 16; i++)
		if (tt->cols[i].kind == TC_U32)
			memcpy(&key[n++], (const char *)k + tt->cols[i].off, sizeof(uint32_t));
	return hash_bytes(key, n * sizeof(uint32_t));
}

/* The config id (from 1) of kernel i, setting *is_new; 0 when out of memory. */
static uint32_t config_id(struct configs_seen *c, size_t i, int *is_new)
{
	c->probe = &c->kernels[i];
	uint64_t h = config_hash(c->probe);
	int64_t found = hindex_find(&c->index, h, config_eq, c);
	*is_new = found < 0;
	if (found >= 0)
		return (uint32_t)found + 1;
	if (c->n >= UINT32_MAX - 1 ||
	    vec_reserve((void **)&c->first, &c->cap, c->n + 1, sizeof(*c->first)) < 0 ||
	    hindex_add(&c->index, h, (uint32_t)c->n) < 0)
		return 0;
	c->first[c->n++] = (uint32_t)i;
	return (uint32_t)c->n;
}

/* "INSERT [OR REPLACE] INTO name(stored columns) VALUES (?, ...)" */
static int insert_sql(char *buf, size_t cap, const struct ttable *tt)
{
	size_t at = (size_t)snprintf(buf, cap, "INSERT %sINTO %s(",
				     tt->replace ? "OR REPLACE " : "", tt->name);
	size_t n = 0;
	for (size_t i = 0; i < tt->n_cols && at < cap; i++) {
		const struct tcol *c = &tt->cols[i];
		if (!c->name || c->kind == TC_ROWID)
			continue;
		at += (size_t)snprintf(buf + at, cap - at, "%s%s", n++ ? ", " : "", c->name);
	}
	for (size_t i = 0; i < n && at < cap; i++)
		at += (size_t)snprintf(buf + at, cap - at, "%s", i ? ", ?" : ") VALUES (?");
	if (at < cap)
		at += (size_t)snprintf(buf + at, cap - at, ")");
	return at < cap ? 0 : -1;
}

/* Binds one row of tt (row points at its struct) to st. */
static void bind_row(struct writer *w, sqlite3_stmt *st, const struct ttable *tt, const void *row,
		     uint32_t config)
{
	const char *p = row;
	int at = 1;
	for (size_t i = 0; i < tt->n_cols; i++) {
		const struct tcol *c = &tt->cols[i];
		if (!c->name || c->kind == TC_ROWID)
			continue;
		const char *f = p + c->off;
		int64_t v = 0;
		switch (c->kind) {
		case TC_U8:
			v = *(const uint8_t *)f;
			break;
		case TC_U32:
			v = *(const uint32_t *)f;
			break;
		case TC_I32:
			v = *(const int32_t *)f;
			break;
		case TC_U64:
			v = (int64_t) * (const uint64_t *)f;
			break;
		case TC_I64:
		case TC_TIME:
			v = *(const int64_t *)f;
			break;
		case TC_F64:
			sqlite3_bind_double(st, at++, *(const double *)f);
			continue;
		case TC_START:
		case TC_TS:
			v = *(const int64_t *)f - w->base;
			break;
		case TC_DUR:
			v = *(const int64_t *)f - *(const int64_t *)p;
			break;
		case TC_CONFIG:
			v = config;
			break;
		}
		sqlite3_bind_int64(st, at++, v);
	}
}

/* Writes every row of table tt from t (launch configurations with the
 * kernels). */
static int write_table(struct writer *w, const struct trace *t, const struct ttable *tt)
{
	char sql[1024];
	sqlite3_stmt *st = NULL, *cst = NULL;
	struct configs_seen seen = {.kernels = t->kernels};
	const struct ttable *ct = &trace_tables[TT_LAUNCH_CONFIGS];
	int kernels = tt == &trace_tables[TT_KERNELS];
	int rc = -1;
	if (insert_sql(sql, sizeof(sql), tt) < 0 || prepare(w, &st, sql) < 0)
		goto out;
	if (kernels && (insert_sql(sql, sizeof(sql), ct) < 0 || prepare(w, &cst, sql) < 0))
		goto out;
	const char *rows = *(char *const *)((const char *)t + tt->arr_off);
	size_t n = *(const size_t *)((const char *)t + tt->n_off);
	for (size_t i = 0; i < n; i++) {
		const void *row = rows + i * tt->elem_size;
		uint32_t cid = 0;
		if (kernels) {
			int is_new = 0;
			cid = config_id(&seen, i, &is_new);
			if (!cid) {
				error_set(w->err, "cannot write trace database: out of memory");
				goto out;
			}
			if (is_new) {
				bind_row(w, cst, ct, row, cid);
				if (step(w, cst) < 0)
					goto out;
			}
		}
		bind_row(w, st, tt, row, cid);
		if (step(w, st) < 0)
			goto out;
	}
	rc = 0;
out:
	hindex_release(&seen.index);
	free(seen.first);
	sqlite3_finalize(st);
	sqlite3_finalize(cst);
	return rc;
}

static int write_strings_meta(struct writer *w, const struct trace *t)
{
	sqlite3_stmt *st = NULL;
	int rc = -1;
	if (prepare(w, &st, "INSERT INTO strings(id, value) VALUES (?, ?)") < 0)
		return -1;
	for (size_t i = 0; i < t->n_strings; i++) {
		sqlite3_bind_int64(st, 1, (int64_t)i);
		sqlite3_bind_text(st, 2, t->strings[i], -1, SQLITE_STATIC);
		if (step(w, st) < 0)
			goto out;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (prepare(w, &st, "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)") < 0)
		return -1;
	for (size_t i = 0; i < t->n_meta; i++) {
		sqlite3_bind_text(st, 1, trace_str(t, t->meta[i].key_id), -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, trace_str(t, t->meta[i].value_id), -1, SQLITE_STATIC);
		if (step(w, st) < 0)
			goto out;
	}
	char num[32];
	const char *fixed[][2] = {
	    {"schema_version", SCHEMA_VERSION_STR},
	    {"gpuscope_version", GPUSCOPE_VERSION},
	    {"source", trace_source_name(t->source)},
	    {"base_ns", num},
	};
	snprintf(num, sizeof(num), "%" PRId64, w->base);
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		sqlite3_bind_text(st, 1, fixed[i][0], -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, fixed[i][1], -1, SQLITE_STATIC);
		if (step(w, st) < 0)
			goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}

static int write_all(struct writer *w, const struct trace *t)
{
	char *schema = schema_sql();
	if (!schema)
		return error_set(w->err, "out of memory");
	int rc = exec(w, schema);
	free(schema);
	if (rc < 0 || write_strings_meta(w, t) < 0)
		return -1;
	for (int i = 0; i < TT_COUNT; i++)
		if (i != TT_LAUNCH_CONFIGS && write_table(w, t, &trace_tables[i]) < 0)
			return -1;
	return 0;
}

struct outfile_rule trace_db_rule(int force, const char *const *inputs)
{
	struct outfile_rule r = {"a gpuscope trace database", trace_db_is_gpuscope, inputs, force,
				 0};
	return r;
}

int trace_db_save(const char *path, const struct trace *t, char *err)
{
	struct outfile_rule r = trace_db_rule(0, NULL);
	return trace_db_save_as(path, t, &r, err);
}

int trace_db_save_as(const char *path, const struct trace *t, const struct outfile_rule *r,
		     char *err)
{
	char real[4096];
	if (outfile_check(path, r, real, sizeof(real), err) < 0)
		return -1;
	path = real;
	char *tmp = outfile_tmp_name(path);
	if (!tmp)
		return error_set(err, "out of memory");
	unlink(tmp);
	outfile_pending_add(tmp, 0);

	struct writer w = {.err = err, .base = trace_first_ns(t)};
	int rc = -1;
	if (sqlite3_open_v2(tmp, &w.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
	    SQLITE_OK) {
		error_set(err, "cannot create '%s': %s", tmp, w.db ? sqlite3_errmsg(w.db) : "");
		goto out;
	}
	char pragmas[256];
	snprintf(pragmas, sizeof(pragmas),
		 "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA locking_mode=EXCLUSIVE;"
		 " PRAGMA cache_size=-65536; PRAGMA application_id=%d; PRAGMA user_version=%d;",
		 TRACE_DB_APPLICATION_ID, TRACE_DB_SCHEMA_VERSION);
	if (exec(&w, pragmas) < 0 || exec(&w, "BEGIN") < 0 || write_all(&w, t) < 0 ||
	    exec(&w, "COMMIT") < 0)
		goto out;
	if (sqlite3_close(w.db) != SQLITE_OK) {
		error_set(err, "cannot finish '%s': %s", tmp, sqlite3_errmsg(w.db));
		goto out;
	}
	w.db = NULL;
	if (outfile_rename(tmp, path, err) < 0)
		goto out;
	rc = 0;
out:
	if (w.db)
		sqlite3_close(w.db);
	if (rc < 0)
		unlink(tmp);
	outfile_pending_del(tmp);
	free(tmp);
	return rc;
}
