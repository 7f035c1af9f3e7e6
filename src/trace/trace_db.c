/*
 * trace_db.c - writing and reading the trace database (schema in schema.h).
 *
 * The writer is built for rate: one private temporary file, prepared
 * statements, one transaction per 64k rows, journal and fsync off while
 * writing (the file is not visible under its name until it is complete:
 * crash safety comes from the final rename, not from a journal), then an
 * fsync and rename(2) over the destination.
 *
 * The reader opens read-only, checks the SQLite header, our application_id
 * and the schema version, then loads every table in one scan each.
 */
#include "trace/trace_db.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
	    {"source", t->source ? t->source : "cupti"},
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
	free(tmp);
	return rc;
}

/* ---------------------------------------------------------------- reader */

struct reader {
	sqlite3 *db;
	char *err;
	const char *path;
	int64_t base;
	int version;		  /* the file's schema version */
	struct trace_kernel *cfg; /* launch configurations, id - 1 */
	size_t n_cfg, cap_cfg;
	int wal;
};

#define BUSY_TIMEOUT_MS 5000

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int exists(const char *path, const char *suffix)
{
	char p[4096];
	struct stat st;
	snprintf(p, sizeof(p), "%s%s", path, suffix);
	return stat(p, &st) == 0 && st.st_size > 0;
}

/* The SQLite header of path: file size, size its header says (0 when it
 * does not say), and whether it is in WAL mode. -1 when unreadable. */
static int db_header(const char *path, int64_t *have, int64_t *want, int *wal)
{
	unsigned char h[100];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	struct stat st;
	ssize_t n = fstat(fd, &st) == 0 ? read(fd, h, sizeof(h)) : -1;
	close(fd);
	if (n < (ssize_t)sizeof(h))
		return -1;
	uint32_t page = (uint32_t)h[16] << 8 | h[17];
	if (page == 1)
		page = 65536;
	*have = st.st_size;
	/* the in-header size is valid when "version-valid-for" matches the change counter */
	*want = be32(h + 24) == be32(h + 92) ? (int64_t)be32(h + 28) * page : 0;
	*wal = h[18] == 2 || h[19] == 2;
	return 0;
}

/* "file:PATH?immutable=1" with the URI's own characters escaped */
static char *immutable_uri(const char *path)
{
	size_t n = strlen(path);
	char *u = sqlite3_malloc64(n * 3 + 32);
	if (!u)
		return NULL;
	size_t at = (size_t)sprintf(u, "file:");
	for (const char *c = path; *c; c++)
		at += *c == '%' || *c == '?' || *c == '#'
			  ? (size_t)sprintf(u + at, "%%%02x", (unsigned char)*c)
			  : (size_t)sprintf(u + at, "%c", *c);
	strcpy(u + at, "?immutable=1");
	return u;
}

/* issue #21 item 6: what is wrong, in words, when SQLite will not read a
 * file that has gpuscope's header. */
static int rfail(struct reader *r, const char *what)
{
	int code = sqlite3_extended_errcode(r->db), base = code & 0xff;
	int64_t have = 0, want = 0;
	int wal = 0;
	if (base == SQLITE_BUSY || base == SQLITE_LOCKED)
		return error_set(r->err,
				 "'%s' is locked by a process writing it (waited %d s): try again "
				 "when it is done",
				 r->path, BUSY_TIMEOUT_MS / 1000);
	if (code == SQLITE_READONLY_ROLLBACK ||
	    (base == SQLITE_READONLY && exists(r->path, "-journal")))
		return error_set(
		    r->err,
		    "'%s' has a hot journal ('%s-journal') left by an interrupted "
		    "write: SQLite must roll it back before the file can be read; open "
		    "it once with write access (sqlite3 '%s' 'PRAGMA quick_check')",
		    r->path, r->path, r->path);
	if ((base == SQLITE_CANTOPEN || base == SQLITE_READONLY) &&
	    db_header(r->path, &have, &want, &wal) == 0 && wal)
		return error_set(
		    r->err,
		    "'%s' is in WAL mode and SQLite cannot read its write-ahead log "
		    "here (read-only storage?): copy it with its -wal and -shm files "
		    "somewhere writable, or run sqlite3 '%s' 'PRAGMA journal_mode=DELETE' "
		    "where it is",
		    r->path, r->path);
	if ((base == SQLITE_CORRUPT || base == SQLITE_NOTADB || base == SQLITE_IOERR) &&
	    db_header(r->path, &have, &want, &wal) == 0 && want > have)
		return error_set(r->err,
				 "'%s' is truncated: %lld of the %lld bytes its header says (an "
				 "interrupted copy or download?)",
				 r->path, (long long)have, (long long)want);
	if (base == SQLITE_IOERR)
		return error_set(r->err, "cannot read '%s': %s", r->path, sqlite3_errmsg(r->db));
	if (base == SQLITE_CORRUPT || base == SQLITE_NOTADB)
		return error_set(r->err, "'%s' is corrupt: %s", r->path, sqlite3_errmsg(r->db));
	return error_set(r->err, "'%s': %s: %s", r->path, what, sqlite3_errmsg(r->db));
}

/* Runs sql and calls row() for each row; stops on the first error. */
static int each_row(struct reader *r, struct trace *t, const char *sql,
		    int (*row)(struct reader *, struct trace *, sqlite3_stmt *))
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return rfail(r, "not a valid gpuscope trace database");
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (row(r, t, st) < 0) {
			sqlite3_finalize(st);
			return -1;
		}
	}
	if (rc != SQLITE_DONE) {
		rfail(r, "corrupt trace database");
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	return 0;
}

#define COL(c) sqlite3_column_int64(st, c)
#define OOM() error_set(r->err, "out of memory loading '%s'", r->path)

static int row_string(struct reader *r, struct trace *t, sqlite3_stmt *st)
{
	int64_t id = COL(0);
	const char *s = (const char *)sqlite3_column_text(st, 1);
	if (id == 0)
		return 0;
	if (id != (int64_t)t->n_strings)
		return error_set(r->err, "'%s': corrupt string table (id %" PRId64 ")", r->path,
				 id);
	uint32_t got = trace_intern(t, s ? s : "");
	if (got == UINT32_MAX)
		return OOM();
	if (got != (uint32_t)id) /* a duplicate value: keep ids stable with a unique copy */
		return error_set(r->err, "'%s': corrupt string table (duplicate value)", r->path);
	return 0;
}

static int row_meta(struct reader *r, struct trace *t, sqlite3_stmt *st)
{
	const char *k = (const char *)sqlite3_column_text(st, 0);
	const char *v = (const char *)sqlite3_column_text(st, 1);
	if (!k)
		return 0;
	if (strcmp(k, "base_ns") == 0 && v)
		r->base = strtoll(v, NULL, 10);
	return trace_set_meta(t, k, v ? v : "") < 0 ? OOM() : 0;
}

/* 1 when table has column col (schema.h, note 5). */
static int has_column(struct reader *r, const char *table, const char *col)
{
	char sql[256];
	snprintf(sql, sizeof(sql), "SELECT 1 FROM pragma_table_info('%s') WHERE name = ?", table);
	sqlite3_stmt *st = NULL;
	int yes = 0;
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, col, -1, SQLITE_STATIC);
		yes = sqlite3_step(st) == SQLITE_ROW;
	}
	sqlite3_finalize(st);
	return yes;
}

/* "SELECT stored columns FROM name [ORDER BY ...]"; a column the file
 * lacks reads as 0. */
static int select_sql(struct reader *r, char *buf, size_t cap, const struct ttable *tt)
{
	size_t at = (size_t)snprintf(buf, cap, "SELECT ");
	size_t n = 0;
	for (size_t i = 0; i < tt->n_cols && at < cap; i++) {
		const struct tcol *c = &tt->cols[i];
		if (!c->name || c->kind == TC_ROWID)
			continue;
		int have = has_column(r, tt->name, c->name);
		at += (size_t)snprintf(buf + at, cap - at, "%s%s%s", n++ ? ", " : "",
				       have ? "" : "0 AS ", c->name);
	}
	if (at < cap)
		at += (size_t)snprintf(buf + at, cap - at, " FROM %s%s%s", tt->name,
				       tt->order ? " ORDER BY " : "", tt->order ? tt->order : "");
	return at < cap ? 0 : -1;
}

/* issue #21 item 5: a time beyond TRACE_NS_MAX would overflow analysis */
static int time_error(struct reader *r, const struct ttable *tt)
{
	return error_set(r->err,
			 "'%s': a time in table %s is out of range (beyond +-%" PRId64
			 " ns after adding base_ns %" PRId64 "): the file is damaged",
			 r->path, tt->name, TRACE_NS_MAX, r->base);
}

/* Fills row (a struct of table tt) from the current row of st. */
static int read_row(struct reader *r, sqlite3_stmt *st, const struct ttable *tt, char *row)
{
	int at = 0;
	for (size_t i = 0; i < tt->n_cols; i++) {
		const struct tcol *c = &tt->cols[i];
		if (!c->name || c->kind == TC_ROWID)
			continue;
		char *f = row + c->off;
		int64_t v = c->kind == TC_F64 ? 0 : COL(at);
		switch (c->kind) {
		case TC_U8:
			*(uint8_t *)f = (uint8_t)v;
			break;
		case TC_U32:
			*(uint32_t *)f = (uint32_t)v;
			break;
		case TC_I32:
			*(int32_t *)f = (int32_t)v;
			break;
		case TC_U64:
			*(uint64_t *)f = (uint64_t)v;
			break;
		case TC_I64:
			*(int64_t *)f = v;
			break;
		case TC_TIME: {
			int64_t y = v;
			if (trace_span_check(&v, &y) < 0)
				return time_error(r, tt);
			*(int64_t *)f = v;
			break;
		}
		case TC_F64:
			*(double *)f = sqlite3_column_double(st, at);
			break;
		case TC_START:
		case TC_TS: {
			int64_t x, y;
			if (__builtin_add_overflow(v, r->base, &x) ||
			    (y = x, trace_span_check(&x, &y)))
				return time_error(r, tt);
			*(int64_t *)f = x;
			break;
		}
		case TC_DUR:
			if (trace_span_dur(*(int64_t *)row, v, (int64_t *)f) < 0)
				return time_error(r, tt);
			break;
		case TC_CONFIG:
			if (tt == &trace_tables[TT_LAUNCH_CONFIGS]) {
				if (v != (int64_t)r->n_cfg)
					return error_set(r->err,
							 "'%s': corrupt launch configuration table",
							 r->path);
			} else {
				if (v < 1 || (uint64_t)v > r->n_cfg)
					return error_set(r->err,
							 "'%s': kernel row names a missing launch "
							 "configuration",
							 r->path);
				const struct ttable *ct = &trace_tables[TT_LAUNCH_CONFIGS];
				const char *cfg = (const char *)&r->cfg[v - 1];
				for (size_t j = 0; j < ct->n_cols; j++)
					if (ct->cols[j].kind == TC_U32)
						memcpy(row + ct->cols[j].off, cfg + ct->cols[j].off,
						       sizeof(uint32_t));
			}
			break;
		}
		at++;
	}
	return 0;
}

/* Loads every row of tt into t (launch configurations into r->cfg). */
static int read_table(struct reader *r, struct trace *t, const struct ttable *tt)
{
	char sql[1024];
	sqlite3_stmt *st = NULL;
	if (select_sql(r, sql, sizeof(sql), tt) < 0 ||
	    sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return rfail(r, "not a valid gpuscope trace database");
	int configs = tt == &trace_tables[TT_LAUNCH_CONFIGS];
	uint8_t *kinds = NULL; /* api_calls: the kind of each name, 0xff not known yet */
	int rc = -1, step;
	if (tt == &trace_tables[TT_API]) {
		if (!(kinds = malloc(t->n_strings + 1))) {
			OOM();
			goto out;
		}
		memset(kinds, 0xff, t->n_strings + 1);
	}
	void **arr = configs ? (void **)&r->cfg : (void **)((char *)t + tt->arr_off);
	size_t *n = configs ? &r->n_cfg : (size_t *)((char *)t + tt->n_off);
	size_t *cap = configs ? &r->cap_cfg : (size_t *)((char *)t + tt->cap_off);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		char *row = vec_push(arr, n, cap, tt->elem_size);
		if (!row) {
			OOM();
			goto out;
		}
		if (read_row(r, st, tt, row) < 0)
			goto out;
		if (kinds) {
			/* derived from the name, once per name */
			struct trace_api *a = (struct trace_api *)row;
			uint32_t id = a->name_id < t->n_strings ? a->name_id : 0;
			if (kinds[id] == 0xff)
				kinds[id] = (uint8_t)api_kind_from_name(trace_str(t, id));
			a->kind = kinds[id];
		}
	}
	rc = step == SQLITE_DONE ? 0 : rfail(r, "corrupt trace database");
out:
	free(kinds);
	sqlite3_finalize(st);
	return rc;
}

static int check_header(struct reader *r)
{
	sqlite3_stmt *st = NULL;
	int app = 0, ver = 0;
	if (sqlite3_prepare_v2(r->db, "PRAGMA application_id", -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return rfail(r, "not a gpuscope trace database");
	}
	app = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if ((uint32_t)app != TRACE_DB_APPLICATION_ID)
		return error_set(r->err, "'%s' is an SQLite database but not a gpuscope trace",
				 r->path);
	if (sqlite3_prepare_v2(r->db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return rfail(r, "cannot read schema version");
	}
	ver = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (ver > TRACE_DB_SCHEMA_VERSION)
		return error_set(r->err,
				 "'%s' has trace schema v%d, newer than this gpuscope reads (v%d): "
				 "upgrade gpuscope",
				 r->path, ver, TRACE_DB_SCHEMA_VERSION);
	if (ver < 1)
		return error_set(r->err, "'%s' has no trace schema version", r->path);
	r->version = ver;
	return 0;
}

/* Opens r->path read-only for one thread (no SQLite mutex) with a busy
 * timeout; a WAL-mode file whose log is empty holds everything in itself:
 * it is read as immutable, so that no -shm or -wal file appears beside it. */
static int open_reader(struct reader *r)
{
	char *uri = r->wal && !exists(r->path, "-wal") ? immutable_uri(r->path) : NULL;
	int orc = sqlite3_open_v2(
	    uri ? uri : r->path, &r->db,
	    SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | (uri ? SQLITE_OPEN_URI : 0), NULL);
	sqlite3_free(uri);
	if (orc != SQLITE_OK) {
		if (r->db)
			return rfail(r, "cannot open");
		return error_set(r->err, "cannot open '%s': out of memory", r->path);
	}
	sqlite3_busy_timeout(r->db, BUSY_TIMEOUT_MS);
	return 0;
}

struct api_job {
	pthread_t th;
	struct trace *t;
	struct reader r;
	char err[GS_ERR_LEN];
	int rc;
};

/* The api_calls table, in a thread of its own: it writes only t->apis and
 * reads the strings, which are loaded before it starts. */
static void *load_apis(void *arg)
{
	struct api_job *j = arg;
	j->rc = open_reader(&j->r) < 0 ? -1 : read_table(&j->r, j->t, &trace_tables[TT_API]);
	if (j->r.db)
		sqlite3_close(j->r.db);
	return NULL;
}

int trace_db_load(struct trace *t, const char *path, char *err)
{
	trace_init(t);
	struct reader r = {.err = err, .path = path};
	int rc = -1;
	if (!trace_db_is_gpuscope(path)) {
		if (access(path, R_OK) < 0)
			error_set(err, "cannot open '%s': %s", path, strerror(errno));
		else
			error_set(err, "'%s' is not a gpuscope trace database", path);
		goto out;
	}
	int64_t have = 0, want = 0;
	int wal = 0;
	if (db_header(path, &have, &want, &wal) == 0 && want > have && !exists(path, "-wal")) {
		error_set(err,
			  "'%s' is truncated: %lld of the %lld bytes its header says (an "
			  "interrupted copy or download?)",
			  path, (long long)have, (long long)want);
		goto out;
	}
	r.wal = wal;
	if (open_reader(&r) < 0 || check_header(&r) < 0)
		goto out;
	if (each_row(&r, t, "SELECT id, value FROM strings ORDER BY id", row_string) < 0 ||
	    each_row(&r, t, "SELECT key, value FROM meta", row_meta) < 0)
		goto out;
	/* the API calls, as large as the kernels, on a second connection in a
	 * second thread (issue #25: the load is SQLite's row stepping) */
	struct api_job job = {
	    .t = t,
	    .r = {.path = path, .base = r.base, .version = r.version, .wal = wal, .err = job.err}};
	int threaded = pthread_create(&job.th, NULL, load_apis, &job) == 0;
	int failed = 0;
	for (int i = 0; i < TT_COUNT && !failed; i++)
		if ((i != TT_API || !threaded) && trace_tables[i].since <= r.version &&
		    read_table(&r, t, &trace_tables[i]) < 0)
			failed = 1;
	if (threaded) {
		pthread_join(job.th, NULL);
		if (!failed && job.rc < 0) {
			snprintf(err, GS_ERR_LEN, "%s", job.err);
			failed = 1;
		}
	}
	if (failed)
		goto out;
	const char *src = trace_get_meta(t, "source");
	t->source = src && strcmp(src, "pytorch") == 0 ? "pytorch" : "cupti";
	rc = 0;
out:
	free(r.cfg);
	if (r.db)
		sqlite3_close(r.db);
	if (rc < 0)
		trace_release(t);
	return rc;
}
