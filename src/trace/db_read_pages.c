/*
 * db_read_pages.c - the trace database's big tables read from the file's
 * b-tree pages (db_pages.h) instead of SQLite's row stepping (issue #25:
 * 10M kernels took 4-5 CPU-s in sqlite3_step and sqlite3_column_int64):
 * the table's leaves are split among the CPUs by their rows, each thread
 * decodes its leaves into their final place in one array, and the values
 * go through the same db_fill_row as SQLite's. Whatever the page reader is
 * unsure of (db_pages.h) sends the whole table back to SQLite.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "trace/db_read.h"
#include "trace/trace_db.h"
#include "util/cpus.h"
#include "util/error.h"

/* 1 when tt is read from the pages: a table scanned in rowid order whose
 * stored columns are all read as values (a real key column is not). */
int db_pages_table(const struct ttable *tt)
{
	if (tt->order || tt == &trace_tables[TT_LAUNCH_CONFIGS] || tt->n_cols > MAX_COLS)
		return 0;
	for (size_t i = 0; i < tt->n_cols; i++)
		if (tt->cols[i].pk && tt->cols[i].kind != TC_ROWID)
			return 0;
	return 1;
}

/* The root page of table tt and, in slot, the place of each record field
 * among tt's stored columns (-1: not read); DBP_UNSURE for a table with an
 * index (SQLite could scan it in the index's order), a hidden or generated
 * column (not a record field) or a default value (what a record without
 * the field reads as). */
static int pages_layout(struct reader *r, const struct ttable *tt, uint32_t *root, int8_t *slot,
			int *n_slot)
{
	sqlite3_stmt *st = NULL;
	int rc = DBP_UNSURE;
	*n_slot = 0;
	if (sqlite3_prepare_v2(r->db,
			       "SELECT rootpage, (SELECT count(*) FROM sqlite_master WHERE "
			       "type = 'index' AND tbl_name = ?1) FROM sqlite_master WHERE "
			       "type = 'table' AND name = ?1",
			       -1, &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(st, 1, tt->name, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_ROW || sqlite3_column_int64(st, 1) != 0 ||
	    sqlite3_column_int64(st, 0) < 1 || sqlite3_column_int64(st, 0) > UINT32_MAX)
		goto out;
	*root = (uint32_t)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(r->db,
			       "SELECT cid, name, dflt_value IS NULL, hidden FROM "
			       "pragma_table_xinfo(?1) ORDER BY cid",
			       -1, &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(st, 1, tt->name, -1, SQLITE_STATIC);
	int step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t cid = sqlite3_column_int64(st, 0);
		const char *name = (const char *)sqlite3_column_text(st, 1);
		if (cid != *n_slot || cid >= INT8_MAX || !name || !sqlite3_column_int(st, 2) ||
		    sqlite3_column_int(st, 3) != 0)
			goto out;
		slot[(*n_slot)++] = -1;
		int at = 0;
		for (size_t i = 0; i < tt->n_cols; i++) {
			const struct tcol *c = &tt->cols[i];
			if (!c->name || c->kind == TC_ROWID)
				continue;
			if (strcmp(c->name, name) == 0) /* as has_column compares */
				slot[cid] = (int8_t)at;
			at++;
		}
	}
	rc = step == SQLITE_DONE ? 0 : DBP_UNSURE;
out:
	sqlite3_finalize(st);
	return rc;
}

/* One thread's leaves [from, to) of a table, decoded into rows. */
struct page_job {
	pthread_t th;
	struct reader r; /* the reader's settings, with an error buffer of its own */
	char err[GS_ERR_LEN];
	const struct trace *t;
	const struct ttable *tt;
	const struct dbp_table *tb;
	const int8_t *slot;
	int n_slot, n_vals;
	size_t from, to;
	char *rows;
	int rc;
};

static void *page_rows(void *arg)
{
	struct page_job *j = arg;
	const struct ttable *tt = j->tt;
	int real_ok[MAX_COLS] = {0}, at = 0;
	for (size_t i = 0; i < tt->n_cols; i++)
		if (tt->cols[i].name && tt->cols[i].kind != TC_ROWID)
			real_ok[at++] = tt->cols[i].kind == TC_F64;
	uint8_t *kinds = NULL;
	struct dbp_scan s;
	int rc = dbp_scan_init(&s, &j->r.pages, j->tb, j->from, j->to);
	if (rc == 0 && tt == &trace_tables[TT_API] && !(kinds = db_new_api_kinds(j->t)))
		rc = DBP_UNSURE;
	char *row = j->rows; /* zeroed */
	const unsigned char *rec;
	uint32_t len;
	/* a value no field of the file gives stays 0 */
	struct dbp_value val[MAX_COLS];
	memset(val, 0, sizeof(val));
	while (rc == 0 && (rc = dbp_next(&s, &rec, &len)) == 1) {
		int reals = 0, nf = dbp_record(rec, len, j->slot, j->n_slot, val, &reals);
		rc = nf < 0 ? nf : 0;
		/* the fields a record written before a column was added lacks */
		for (int f = nf; rc == 0 && f < j->n_slot; f++)
			if (j->slot[f] >= 0)
				memset(&val[j->slot[f]], 0, sizeof(val[0]));
		for (int k = 0; rc == 0 && reals && k < j->n_vals; k++)
			if (val[k].real && !real_ok[k]) /* SQLite would round it */
				rc = DBP_UNSURE;
		if (rc == 0 && db_fill_row(&j->r, tt, row, val) < 0)
			rc = DBP_UNSURE; /* SQLite's pass gives the message */
		if (kinds)
			db_set_api_kind(j->t, kinds, (struct trace_api *)row);
		row += tt->elem_size;
	}
	dbp_scan_release(&s);
	free(kinds);
	j->rc = rc;
	return NULL;
}

/* Decodes every leaf of tb into rows, on up to `threads` threads with
 * about as many rows each: 0, DBP_MISCOUNT or DBP_UNSURE. */
static int page_jobs(struct reader *r, const struct trace *t, const struct ttable *tt,
		     const struct dbp_table *tb, const int8_t *slot, int n_slot, char *rows,
		     int threads)
{
	struct page_job job[8];
	int n_vals = 0, nj = 0, rc = 0;
	for (size_t i = 0; i < tt->n_cols; i++)
		n_vals += tt->cols[i].name && tt->cols[i].kind != TC_ROWID;
	size_t leaf = 0;
	uint64_t done = 0;
	for (int k = 0; k < threads && leaf < tb->n_leaves; k++) {
		uint64_t until = tb->n_rows * (uint64_t)(k + 1) / (uint64_t)threads;
		struct page_job *j = &job[nj++];
		*j = (struct page_job){.r = *r,
				       .t = t,
				       .tt = tt,
				       .tb = tb,
				       .slot = slot,
				       .n_slot = n_slot,
				       .n_vals = n_vals,
				       .from = leaf,
				       .rows = rows ? rows + done * tt->elem_size : NULL};
		j->r.err = j->err;
		while (leaf < tb->n_leaves && (done < until || k == threads - 1))
			done += tb->cells[leaf++];
		j->to = leaf;
	}
	int started[8] = {0};
	for (int k = 1; k < nj; k++)
		started[k] = pthread_create(&job[k].th, NULL, page_rows, &job[k]) == 0;
	for (int k = 0; k < nj; k++)
		if (k == 0 || !started[k])
			page_rows(&job[k]);
	for (int k = 0; k < nj; k++) {
		if (started[k])
			pthread_join(job[k].th, NULL);
		if (job[k].rc < 0 && rc != DBP_UNSURE)
			rc = job[k].rc;
	}
	return rc;
}

/* Reads table tt from the file's pages into t: 0, or DBP_UNSURE with t as
 * it was (the caller then asks SQLite). */
int db_read_table_pages(struct reader *r, struct trace *t, const struct ttable *tt)
{
	void **arr = (void **)((char *)t + tt->arr_off);
	size_t *n = (size_t *)((char *)t + tt->n_off);
	size_t *cap = (size_t *)((char *)t + tt->cap_off);
	int8_t slot[INT8_MAX];
	int n_slot;
	uint32_t root;
	struct dbp_table tb;
	if (*n || pages_layout(r, tt, &root, slot, &n_slot) < 0 ||
	    dbp_table_open(&tb, &r->pages, root) < 0)
		return DBP_UNSURE;
	int rc = DBP_UNSURE;
	char *rows = NULL;
	for (int pass = 0; pass < 2; pass++) {
		if (tb.n_rows > SIZE_MAX / 2 / tt->elem_size)
			break;
		size_t bytes = (size_t)tb.n_rows * tt->elem_size;
		rows = bytes ? calloc(1, bytes) : NULL; /* zeroed by the kernel's fresh pages */
		if (bytes && !rows)
			break;
		int cpus = gs_cpu_count();
		int threads = tb.n_rows < 65536 ? 1 : cpus < 8 ? cpus : 8;
		rc = page_jobs(r, t, tt, &tb, slot, n_slot, rows, threads);
		if (rc != DBP_MISCOUNT)
			break;
		/* note 2 of db_pages.h: the estimates were wrong, count */
		free(rows);
		rows = NULL;
		rc = DBP_UNSURE;
		if (dbp_count_cells(&tb, &r->pages) < 0)
			break;
	}
	if (rc == 0) {
		*arr = rows;
		*n = *cap = (size_t)tb.n_rows;
		r->page_tables++;
	} else {
		free(rows);
	}
	dbp_table_release(&tb);
	return rc;
}
