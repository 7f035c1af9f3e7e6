/*
 * db_read.c - reading the trace database (trace_db_load).
 *
 * The reader opens read-only, checks the SQLite header, our application_id
 * and the schema version, then loads every table in one scan each: the big
 * ones from the file's pages where it can (db_read_pages.c, each table on
 * every CPU), the rest, and anything the page reader is unsure of, through
 * SQLite (the API calls on a second connection in a second thread when the
 * pages cannot be read at all).
 */
#include "trace/db_read.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace/trace_db.h"
#include "util/error.h"
#include "util/vec.h"

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
		/* no id in the message: where a damaged table first shows depends
		 * on how its pages are read (fuzz_db compares both ways) */
		return error_set(r->err, "'%s': corrupt string table (ids not 1, 2, 3, ...)",
				 r->path);
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

/* A column 0 cannot stand in for (schema.h note 5 is for the others): a
 * time, a duration, the launch configuration. */
static int required_column(const struct tcol *c)
{
	return c->kind == TC_START || c->kind == TC_TS || c->kind == TC_DUR || c->kind == TC_TIME ||
	       c->kind == TC_CONFIG;
}

/* Every table the file's version has holds its required columns: one
 * renamed or dropped would read as 0 (every kernel at the start, of no
 * length) and give a confident, wrong verdict. */
static int check_required_columns(struct reader *r)
{
	for (int i = 0; i < TT_COUNT; i++) {
		const struct ttable *tt = &trace_tables[i];
		if (tt->since > r->version)
			continue;
		for (size_t k = 0; k < tt->n_cols; k++) {
			const struct tcol *c = &tt->cols[k];
			if (c->name && required_column(c) && !has_column(r, tt->name, c->name))
				return error_set(r->err,
						 "'%s': table %s has no column %s: the file is "
						 "damaged",
						 r->path, tt->name, c->name);
		}
	}
	return 0;
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

/* Where the launch configuration's fields lie in struct trace_kernel: one
 * span when they are adjacent (cfg_len 0 when not). */
static void config_span(struct reader *r)
{
	const struct ttable *ct = &trace_tables[TT_LAUNCH_CONFIGS];
	size_t lo = SIZE_MAX, hi = 0, n = 0;
	for (size_t i = 0; i < ct->n_cols; i++)
		if (ct->cols[i].kind == TC_U32) {
			lo = ct->cols[i].off < lo ? ct->cols[i].off : lo;
			hi = ct->cols[i].off + sizeof(uint32_t) > hi
				 ? ct->cols[i].off + sizeof(uint32_t)
				 : hi;
			n++;
		}
	r->cfg_at = n ? lo : 0;
	r->cfg_len = n && hi - lo == n * sizeof(uint32_t) ? hi - lo : 0;
}

/* Fills row (a struct of table tt) from val, the values of tt's stored
 * columns in order (from SQLite or from the pages). */
/* r->plan: tt's stored columns, kind and offset, in order (what a row is
 * filled by, without looking at the columns that are not stored) */
static void plan_of(struct reader *r, const struct ttable *tt)
{
	r->plan_n = 0;
	for (size_t i = 0; i < tt->n_cols && r->plan_n < MAX_COLS; i++) {
		const struct tcol *c = &tt->cols[i];
		if (!c->name || c->kind == TC_ROWID)
			continue;
		r->plan_kind[r->plan_n] = c->kind;
		r->plan_off[r->plan_n++] = c->off;
	}
	r->plan_tt = tt;
}

int db_fill_row(struct reader *r, const struct ttable *tt, char *row, const struct dbp_value *val)
{
	if (r->plan_tt != tt)
		plan_of(r, tt);
	for (int at = 0; at < r->plan_n; at++) {
		char *f = row + r->plan_off[at];
		int64_t v = val[at].i;
		switch (r->plan_kind[at]) {
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
			*(double *)f = val[at].real ? val[at].d : (double)v;
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
			if (v < 0)
				return error_set(
				    r->err,
				    "'%s': a negative duration in table %s: the file is "
				    "damaged",
				    r->path, tt->name);
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
				if (r->cfg_len) /* the fields side by side: one copy */
					memcpy(row + r->cfg_at, cfg + r->cfg_at, r->cfg_len);
				else
					for (size_t j = 0; j < ct->n_cols; j++)
						if (ct->cols[j].kind == TC_U32)
							memcpy(row + ct->cols[j].off,
							       cfg + ct->cols[j].off,
							       sizeof(uint32_t));
			}
			break;
		}
	}
	return 0;
}

/* Fills row from the current row of st. */
static int read_row(struct reader *r, sqlite3_stmt *st, const struct ttable *tt, char *row)
{
	struct dbp_value val[MAX_COLS];
	int at = 0;
	for (size_t i = 0; i < tt->n_cols; i++) {
		const struct tcol *c = &tt->cols[i];
		if (!c->name || c->kind == TC_ROWID)
			continue;
		int type = sqlite3_column_type(st, at);
		if (type == SQLITE_TEXT || type == SQLITE_BLOB)
			return error_set(r->err,
					 "'%s': column %s of table %s holds %s where a number "
					 "belongs: the file is damaged",
					 r->path, c->name, tt->name,
					 type == SQLITE_TEXT ? "text" : "a blob");
		val[at].real = c->kind == TC_F64;
		if (val[at].real)
			val[at].d = sqlite3_column_double(st, at);
		else
			val[at].i = COL(at);
		at++;
	}
	return db_fill_row(r, tt, row, val);
}

/* An API call's kind, derived from its name once per name (kinds: one
 * byte per string, 0xff not known yet). */
void db_set_api_kind(const struct trace *t, uint8_t *kinds, struct trace_api *a)
{
	uint32_t id = a->name_id < t->n_strings ? a->name_id : 0;
	if (kinds[id] == 0xff)
		kinds[id] = (uint8_t)api_kind_from_name(trace_str(t, id));
	a->kind = kinds[id];
}

uint8_t *db_new_api_kinds(const struct trace *t)
{
	uint8_t *kinds = malloc(t->n_strings + 1);
	if (kinds)
		memset(kinds, 0xff, t->n_strings + 1);
	return kinds;
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
	if (tt == &trace_tables[TT_API] && !(kinds = db_new_api_kinds(t))) {
		OOM();
		goto out;
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
		if (kinds)
			db_set_api_kind(t, kinds, (struct trace_api *)row);
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

int trace_db_load(struct trace *t, const char *path, char *err)
{
	return trace_db_load_opt(t, path, NULL, err);
}

int trace_db_load_opt(struct trace *t, const char *path, struct trace_db_load_opts *o, char *err)
{
	trace_init(t);
	struct reader r = {.err = err, .path = path};
	int rc = -1;
	config_span(&r);
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
	/* the big tables from the pages (db_pages.h), under a read transaction
	 * that keeps writers out; not a file whose log or journal holds part
	 * of its content */
	r.has_pages = !(o && o->sqlite_only) && !(wal && exists(path, "-wal")) &&
		      !exists(path, "-journal") &&
		      sqlite3_exec(r.db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK &&
		      dbp_open(&r.pages, path) == 0;
	if (check_required_columns(&r) < 0 ||
	    each_row(&r, t, "SELECT id, value FROM strings ORDER BY id", row_string) < 0 ||
	    each_row(&r, t, "SELECT key, value FROM meta", row_meta) < 0)
		goto out;
	/* one table after another, in table order, so that a damaged file gives
	 * the same first error whichever way its tables are read (the API calls
	 * once had a thread of their own without the pages: fuzz_db saw its
	 * errors race the other tables' under load); with the pages each big
	 * table is read by every CPU */
	int failed = 0;
	for (int i = 0; i < TT_COUNT && !failed; i++) {
		const struct ttable *tt = &trace_tables[i];
		if (tt->since > r.version)
			continue;
		if (r.has_pages && db_pages_table(tt) && db_read_table_pages(&r, t, tt) == 0)
			continue;
		failed = read_table(&r, t, tt) < 0;
	}
	if (failed)
		goto out;
	/* no source: a file from before sources were stored, a recording */
	const char *src = trace_get_meta(t, "source");
	if (src && trace_source_parse(src, &t->source) < 0) {
		snprintf(err, GS_ERR_LEN,
			 "'%s' has an unknown source '%.40s' (from a newer gpuscope?)", path, src);
		goto out;
	}
	rc = 0;
out:
	if (o)
		o->page_tables = r.page_tables;
	free(r.cfg);
	if (r.has_pages)
		dbp_close(&r.pages);
	if (r.db)
		sqlite3_close(r.db);
	if (rc < 0)
		trace_release(t);
	return rc;
}
