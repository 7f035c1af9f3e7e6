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
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "trace/schema.h"
#include "util/error.h"

#define BATCH_ROWS 65536

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

static void bind_i(sqlite3_stmt *st, int col, int64_t v)
{
	sqlite3_bind_int64(st, col, v);
}

/* Hash of launch configurations -> config id, so equal launches share a row. */
struct config_key {
	uint32_t name_id, grid[3], block[3], regs, static_smem, dyn_smem;
};

struct config_map {
	struct config_key *keys;
	uint32_t *ids; /* id + 1, 0 = empty */
	size_t cap, n;
};

static uint64_t config_hash(const struct config_key *k)
{
	const uint32_t *p = (const uint32_t *)k;
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < sizeof(*k) / 4; i++) {
		h ^= p[i];
		h *= 1099511628211ULL;
	}
	return h ^ (h >> 29);
}

static int config_map_grow(struct config_map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 1024;
	struct config_key *keys = calloc(cap, sizeof(*keys));
	uint32_t *ids = calloc(cap, sizeof(*ids));
	if (!keys || !ids) {
		free(keys);
		free(ids);
		return -1;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->ids[i])
			continue;
		size_t j = config_hash(&m->keys[i]) & (cap - 1);
		while (ids[j])
			j = (j + 1) & (cap - 1);
		keys[j] = m->keys[i];
		ids[j] = m->ids[i];
	}
	free(m->keys);
	free(m->ids);
	m->keys = keys;
	m->ids = ids;
	m->cap = cap;
	return 0;
}

/* Returns the id for k (new ids count from 1), setting *is_new. 0 = OOM. */
static uint32_t config_map_get(struct config_map *m, const struct config_key *k, int *is_new)
{
	if ((m->n + 1) * 2 > m->cap && config_map_grow(m) < 0)
		return 0;
	size_t j = config_hash(k) & (m->cap - 1);
	while (m->ids[j]) {
		if (memcmp(&m->keys[j], k, sizeof(*k)) == 0) {
			*is_new = 0;
			return m->ids[j];
		}
		j = (j + 1) & (m->cap - 1);
	}
	m->keys[j] = *k;
	m->ids[j] = (uint32_t)++m->n;
	*is_new = 1;
	return m->ids[j];
}

static int write_strings_meta(struct writer *w, const struct trace *t)
{
	sqlite3_stmt *st = NULL;
	int rc = -1;
	if (prepare(w, &st, "INSERT INTO strings(id, value) VALUES (?, ?)") < 0)
		return -1;
	for (size_t i = 0; i < t->n_strings; i++) {
		bind_i(st, 1, (int64_t)i);
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
	    {"schema_version", "1"},
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

static int write_devices_processes(struct writer *w, const struct trace *t)
{
	sqlite3_stmt *st = NULL;
	int rc = -1;
	if (prepare(w, &st,
		    "INSERT OR REPLACE INTO devices VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)") < 0)
		return -1;
	for (size_t i = 0; i < t->n_devices; i++) {
		const struct trace_device *d = &t->devices[i];
		int64_t v[] = {d->id,
			       d->name_id,
			       d->cc_major,
			       d->cc_minor,
			       d->sm_count,
			       (int64_t)d->mem_bytes,
			       (int64_t)d->mem_bandwidth_bps,
			       d->max_threads_per_sm,
			       d->max_blocks_per_sm,
			       d->regs_per_sm,
			       d->smem_per_sm,
			       d->max_smem_per_block,
			       d->warp_size,
			       d->pcie_gen,
			       d->pcie_width};
		for (int c = 0; c < 15; c++)
			bind_i(st, c + 1, v[c]);
		if (step(w, st) < 0)
			goto out;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (prepare(w, &st, "INSERT OR REPLACE INTO processes VALUES (?,?,?,?,?,?,?,?)") < 0)
		return -1;
	for (size_t i = 0; i < t->n_processes; i++) {
		const struct trace_process *p = &t->processes[i];
		int64_t v[] = {p->pid,
			       p->parent_pid,
			       p->cmdline_id,
			       p->start_ns,
			       p->end_ns,
			       (int64_t)p->dropped_records,
			       (int64_t)p->overhead_ns,
			       p->status_id};
		for (int c = 0; c < 8; c++)
			bind_i(st, c + 1, v[c]);
		if (step(w, st) < 0)
			goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}

static int write_kernels(struct writer *w, const struct trace *t)
{
	sqlite3_stmt *kst = NULL, *cst = NULL;
	struct config_map map = {0};
	int rc = -1;
	if (prepare(w, &kst, "INSERT INTO kernels VALUES (NULL,?,?,?,?,?,?,?,?,?)") < 0 ||
	    prepare(w, &cst, "INSERT INTO launch_configs VALUES (?,?,?,?,?,?,?,?,?,?,?)") < 0)
		goto out;
	for (size_t i = 0; i < t->n_kernels; i++) {
		const struct trace_kernel *k = &t->kernels[i];
		struct config_key key = {k->name_id,
					 {k->grid[0], k->grid[1], k->grid[2]},
					 {k->block[0], k->block[1], k->block[2]},
					 k->regs,
					 k->static_smem,
					 k->dyn_smem};
		int is_new = 0;
		uint32_t cid = config_map_get(&map, &key, &is_new);
		if (!cid) {
			error_set(w->err, "cannot write trace database: out of memory");
			goto out;
		}
		if (is_new) {
			int64_t v[] = {cid,	    key.name_id,     key.grid[0],  key.grid[1],
				       key.grid[2], key.block[0],    key.block[1], key.block[2],
				       key.regs,    key.static_smem, key.dyn_smem};
			for (int c = 0; c < 11; c++)
				bind_i(cst, c + 1, v[c]);
			if (step(w, cst) < 0)
				goto out;
		}
		int64_t v[] = {k->start_ns - w->base,
			       k->end_ns - k->start_ns,
			       cid,
			       k->correlation,
			       k->stream,
			       k->pid,
			       k->device,
			       k->context,
			       k->graph_id};
		for (int c = 0; c < 9; c++)
			bind_i(kst, c + 1, v[c]);
		if (step(w, kst) < 0)
			goto out;
	}
	rc = 0;
out:
	free(map.keys);
	free(map.ids);
	sqlite3_finalize(kst);
	sqlite3_finalize(cst);
	return rc;
}

static int write_events(struct writer *w, const struct trace *t)
{
	sqlite3_stmt *st = NULL;
	int64_t b = w->base;
#define INSERT_ALL(sql, arr, n, ncols, ...)                                                        \
	do {                                                                                       \
		if (prepare(w, &st, sql) < 0)                                                      \
			return -1;                                                                 \
		for (size_t i = 0; i < (n); i++) {                                                 \
			const __typeof__((arr)[0]) *e = &(arr)[i];                                 \
			int64_t v[] = {__VA_ARGS__};                                               \
			for (int c = 0; c < (ncols); c++)                                          \
				bind_i(st, c + 1, v[c]);                                           \
			if (step(w, st) < 0) {                                                     \
				sqlite3_finalize(st);                                              \
				return -1;                                                         \
			}                                                                          \
		}                                                                                  \
		sqlite3_finalize(st);                                                              \
		st = NULL;                                                                         \
	} while (0)

	INSERT_ALL("INSERT INTO copies VALUES (NULL,?,?,?,?,?,?,?,?,?,?,?,?)", t->copies,
		   t->n_copies, 12, e->start_ns - b, e->end_ns - e->start_ns, e->kind, e->src_kind,
		   e->dst_kind, (int64_t)e->bytes, e->correlation, e->stream, e->pid, e->device,
		   e->context, e->graph_id);
	INSERT_ALL("INSERT INTO memsets VALUES (NULL,?,?,?,?,?,?,?,?,?,?)", t->memsets,
		   t->n_memsets, 10, e->start_ns - b, e->end_ns - e->start_ns, e->mem_kind,
		   (int64_t)e->bytes, e->value, e->correlation, e->stream, e->pid, e->device,
		   e->context);
	INSERT_ALL("INSERT INTO api_calls VALUES (NULL,?,?,?,?,?,?,?,?)", t->apis, t->n_apis, 8,
		   e->start_ns - b, e->end_ns - e->start_ns, e->name_id, e->domain, e->correlation,
		   e->ret, e->pid, e->tid);
	INSERT_ALL("INSERT INTO syncs VALUES (NULL,?,?,?,?,?,?,?,?)", t->syncs, t->n_syncs, 8,
		   e->start_ns - b, e->end_ns - e->start_ns, e->kind, e->correlation, e->stream,
		   e->pid, e->device, e->context);
	INSERT_ALL("INSERT INTO ranges VALUES (NULL,?,?,?,?,?,?,?,?)", t->ranges, t->n_ranges, 8,
		   e->start_ns - b, e->end_ns - e->start_ns, e->kind, e->name_id, e->domain_id,
		   e->depth, e->pid, e->tid);
	INSERT_ALL("INSERT INTO allocations VALUES (NULL,?,?,?,?,?,?)", t->allocs, t->n_allocs, 6,
		   e->ts_ns - b, (int64_t)e->address, e->bytes, e->mem_kind, e->pid, e->device);
#undef INSERT_ALL

	if (prepare(w, &st, "INSERT INTO samples VALUES (?,?,?,?)") < 0)
		return -1;
	for (size_t i = 0; i < t->n_samples; i++) {
		const struct trace_sample *s = &t->samples[i];
		bind_i(st, 1, s->ts_ns - b);
		bind_i(st, 2, s->device);
		bind_i(st, 3, s->metric_id);
		sqlite3_bind_double(st, 4, s->value);
		if (step(w, st) < 0) {
			sqlite3_finalize(st);
			return -1;
		}
	}
	sqlite3_finalize(st);
	if (prepare(w, &st, "INSERT INTO counters VALUES (?,?,?,?)") < 0)
		return -1;
	for (size_t i = 0; i < t->n_counters; i++) {
		const struct trace_counter *c = &t->counters[i];
		bind_i(st, 1, c->pid);
		bind_i(st, 2, c->correlation);
		bind_i(st, 3, c->metric_id);
		sqlite3_bind_double(st, 4, c->value);
		if (step(w, st) < 0) {
			sqlite3_finalize(st);
			return -1;
		}
	}
	sqlite3_finalize(st);
	return 0;
}

int trace_db_save(const char *path, const struct trace *t, char *err)
{
	struct stat sb;
	if (stat(path, &sb) == 0 && !trace_db_is_gpuscope(path))
		return error_set(
		    err, "refusing to overwrite '%s': it is not a gpuscope trace database", path);
	size_t len = strlen(path) + 32;
	char *tmp = malloc(len);
	if (!tmp)
		return error_set(err, "out of memory");
	snprintf(tmp, len, "%s.tmp-%d", path, (int)getpid());
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
	if (exec(&w, pragmas) < 0 || exec(&w, "BEGIN") < 0 || exec(&w, SCHEMA_V1) < 0 ||
	    write_strings_meta(&w, t) < 0 || write_devices_processes(&w, t) < 0 ||
	    write_kernels(&w, t) < 0 || write_events(&w, t) < 0 || exec(&w, "COMMIT") < 0)
		goto out;
	if (sqlite3_close(w.db) != SQLITE_OK) {
		error_set(err, "cannot finish '%s': %s", tmp, sqlite3_errmsg(w.db));
		goto out;
	}
	w.db = NULL;
	int fd = open(tmp, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	if (rename(tmp, path) < 0) {
		error_set(err, "cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
		goto out;
	}
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
};

static int rfail(struct reader *r, const char *what)
{
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
#define U32(c) ((uint32_t)sqlite3_column_int64(st, c))
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

static int row_device(struct reader *r, struct trace *t, sqlite3_stmt *st)
{
	struct trace_device *d = trace_add_device(t);
	if (!d)
		return OOM();
	d->id = U32(0);
	d->name_id = U32(1);
	d->cc_major = U32(2);
	d->cc_minor = U32(3);
	d->sm_count = U32(4);
	d->mem_bytes = (uint64_t)COL(5);
	d->mem_bandwidth_bps = (uint64_t)COL(6);
	d->max_threads_per_sm = U32(7);
	d->max_blocks_per_sm = U32(8);
	d->regs_per_sm = U32(9);
	d->smem_per_sm = U32(10);
	d->max_smem_per_block = U32(11);
	d->warp_size = U32(12);
	d->pcie_gen = U32(13);
	d->pcie_width = U32(14);
	return 0;
}

static int row_process(struct reader *r, struct trace *t, sqlite3_stmt *st)
{
	struct trace_process *p = trace_add_process(t);
	if (!p)
		return OOM();
	p->pid = U32(0);
	p->parent_pid = U32(1);
	p->cmdline_id = U32(2);
	p->start_ns = COL(3);
	p->end_ns = COL(4);
	p->dropped_records = (uint64_t)COL(5);
	p->overhead_ns = (uint64_t)COL(6);
	p->status_id = U32(7);
	return 0;
}

/* Launch configurations, loaded before kernels; id -> index. */
struct configs {
	struct config_key *v;
	size_t n;
};

static int load_configs(struct reader *r, struct configs *c)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(r->db, "SELECT * FROM launch_configs ORDER BY id", -1, &st, NULL) !=
	    SQLITE_OK)
		return rfail(r, "not a valid gpuscope trace database");
	size_t cap = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = COL(0);
		if (id != (int64_t)c->n + 1) {
			sqlite3_finalize(st);
			return error_set(r->err, "'%s': corrupt launch configuration table",
					 r->path);
		}
		if (c->n == cap) {
			cap = cap ? cap * 2 : 256;
			struct config_key *v = realloc(c->v, cap * sizeof(*v));
			if (!v) {
				sqlite3_finalize(st);
				return OOM();
			}
			c->v = v;
		}
		struct config_key *k = &c->v[c->n++];
		k->name_id = U32(1);
		for (int i = 0; i < 3; i++) {
			k->grid[i] = U32(2 + i);
			k->block[i] = U32(5 + i);
		}
		k->regs = U32(8);
		k->static_smem = U32(9);
		k->dyn_smem = U32(10);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return rfail(r, "corrupt trace database");
	return 0;
}

static struct configs *g_cfg; /* valid only inside load_kernels */

static int row_kernel(struct reader *r, struct trace *t, sqlite3_stmt *st)
{
	int64_t cid = COL(3);
	if (cid < 1 || (uint64_t)cid > g_cfg->n)
		return error_set(r->err, "'%s': kernel row names a missing launch configuration",
				 r->path);
	struct trace_kernel *k = trace_add_kernel(t);
	if (!k)
		return OOM();
	const struct config_key *c = &g_cfg->v[cid - 1];
	k->start_ns = COL(1) + r->base;
	k->end_ns = k->start_ns + (COL(2) > 0 ? COL(2) : 0);
	k->name_id = c->name_id;
	memcpy(k->grid, c->grid, sizeof(k->grid));
	memcpy(k->block, c->block, sizeof(k->block));
	k->regs = c->regs;
	k->static_smem = c->static_smem;
	k->dyn_smem = c->dyn_smem;
	k->correlation = U32(4);
	k->stream = U32(5);
	k->pid = U32(6);
	k->device = U32(7);
	k->context = U32(8);
	k->graph_id = U32(9);
	return 0;
}

#define SPAN(e, s, d)                                                                              \
	do {                                                                                       \
		(e)->start_ns = COL(s) + r->base;                                                  \
		(e)->end_ns = (e)->start_ns + (COL(d) > 0 ? COL(d) : 0);                           \
	} while (0)

static int row_copy(struct reader *r, struct trace *t, sqlite3_stmt *st)
{
	struct trace_copy *e = trace_add_copy(t);
	if (!e)
		return OOM();
	SPAN(e, 1, 2);
	e->kind = (uint8_t)COL(3);
	e->src_kind = (uint8_t)COL(4);
	e->dst_kind = (uint8_t)COL(5);
	e->bytes = (uint64_t)COL(6);
	e->correlation = U32(7);
	e->stream = U32(8);
	e->pid = U32(9);
	e->device = U32(10);
	e->context = U32(11);
	e->graph_id = U32(12);
	return 0;
}

static int row_memset(struct reader *r, struct trace *t, sqlite3_stmt *st)
{
	struct trace_memset *e = trace_add_memset(t);
	if (!e)
		return OOM();
	SPAN(e, 1, 2);
	e->mem_kind = (uint8_t)COL(3);
	e->bytes = (uint64_t)COL(4);
	e->value = U32(5);
	e->correlation = U32(6);
	e->stream = U32(7);
	e->pid = U32(8);
	e->device = U32(9);
	e->context = U32(10);
	return 0;
}

static int row_api(struct reader *r, struct trace *t, sqlite3_stmt *st)
{
	struct trace_api *e = trace_add_api(t);
	if (!e)
		return OOM();
	SPAN(e, 1, 2);
	e->name_id = U32(3);
	e->domain = (uint8_t)COL(4);
	e->correlation = U32(5);
	e->ret = (int32_t)COL(6);
	e->pid = U32(7);
	e->tid = U32(8);
	e->kind = (uint8_t)api_kind_from_name(trace_str(t, e->name_id));
	return 0;
}

static int row_sync(struct reader *r, struct trace *t, sqlite3_stmt *st)
{
	struct trace_sync *e = trace_add_sync(t);
	if (!e)
		return OOM();
	SPAN(e, 1, 2);
	e->kind = (uint8_t)COL(3);
	e->correlation = U32(4);
	e->stream = U32(5);
	e->pid = U32(6);
	e->device = U32(7);
	e->context = U32(8);
	return 0;
}

static int row_range(struct reader *r, struct trace *t, sqlite3_stmt *st)
{
	struct trace_range *e = trace_add_range(t);
	if (!e)
		return OOM();
	SPAN(e, 1, 2);
	e->kind = (uint8_t)COL(3);
	e->name_id = U32(4);
	e->domain_id = U32(5);
	e->depth = U32(6);
	e->pid = U32(7);
	e->tid = U32(8);
	return 0;
}

static int row_alloc(struct reader *r, struct trace *t, sqlite3_stmt *st)
{
	struct trace_alloc *e = trace_add_alloc(t);
	if (!e)
		return OOM();
	e->ts_ns = COL(1) + r->base;
	e->address = (uint64_t)COL(2);
	e->bytes = COL(3);
	e->mem_kind = (uint8_t)COL(4);
	e->pid = U32(5);
	e->device = U32(6);
	return 0;
}

static int row_sample(struct reader *r, struct trace *t, sqlite3_stmt *st)
{
	struct trace_sample *e = trace_add_sample(t);
	if (!e)
		return OOM();
	e->ts_ns = COL(0) + r->base;
	e->device = U32(1);
	e->metric_id = U32(2);
	e->value = sqlite3_column_double(st, 3);
	return 0;
}

static int row_counter(struct reader *r, struct trace *t, sqlite3_stmt *st)
{
	struct trace_counter *e = trace_add_counter(t);
	if (!e)
		return OOM();
	e->pid = U32(0);
	e->correlation = U32(1);
	e->metric_id = U32(2);
	e->value = sqlite3_column_double(st, 3);
	return 0;
}

static int check_header(struct reader *r)
{
	sqlite3_stmt *st = NULL;
	int app = 0, ver = 0;
	if (sqlite3_prepare_v2(r->db, "PRAGMA application_id", -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return error_set(r->err, "'%s' is not a gpuscope trace database", r->path);
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
	return 0;
}

int trace_db_load(struct trace *t, const char *path, char *err)
{
	trace_init(t);
	struct reader r = {.err = err, .path = path};
	struct configs cfg = {0};
	int rc = -1;
	if (!trace_db_is_gpuscope(path)) {
		if (access(path, R_OK) < 0)
			error_set(err, "cannot open '%s': %s", path, strerror(errno));
		else
			error_set(err, "'%s' is not a gpuscope trace database", path);
		goto out;
	}
	if (sqlite3_open_v2(path, &r.db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		error_set(err, "cannot open '%s': %s", path, r.db ? sqlite3_errmsg(r.db) : "");
		goto out;
	}
	if (check_header(&r) < 0)
		goto out;
	if (each_row(&r, t, "SELECT id, value FROM strings ORDER BY id", row_string) < 0 ||
	    each_row(&r, t, "SELECT key, value FROM meta", row_meta) < 0 ||
	    each_row(&r, t, "SELECT * FROM devices ORDER BY id", row_device) < 0 ||
	    each_row(&r, t, "SELECT * FROM processes", row_process) < 0 ||
	    load_configs(&r, &cfg) < 0)
		goto out;
	g_cfg = &cfg;
	if (each_row(&r, t, "SELECT * FROM kernels", row_kernel) < 0 ||
	    each_row(&r, t, "SELECT * FROM copies", row_copy) < 0 ||
	    each_row(&r, t, "SELECT * FROM memsets", row_memset) < 0 ||
	    each_row(&r, t, "SELECT * FROM api_calls", row_api) < 0 ||
	    each_row(&r, t, "SELECT * FROM syncs", row_sync) < 0 ||
	    each_row(&r, t, "SELECT * FROM ranges", row_range) < 0 ||
	    each_row(&r, t, "SELECT * FROM allocations", row_alloc) < 0 ||
	    each_row(&r, t, "SELECT * FROM samples", row_sample) < 0 ||
	    each_row(&r, t, "SELECT * FROM counters", row_counter) < 0)
		goto out;
	const char *src = trace_get_meta(t, "source");
	t->source = src && strcmp(src, "pytorch") == 0 ? "pytorch" : "cupti";
	rc = 0;
out:
	g_cfg = NULL;
	free(cfg.v);
	if (r.db)
		sqlite3_close(r.db);
	if (rc < 0)
		trace_release(t);
	return rc;
}
