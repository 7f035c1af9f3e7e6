/*
 * db_read.h - the trace database reader's parts shared by db_read.c (SQLite)
 * and db_read_pages.c (the big tables from the file's pages); private to
 * src/trace/.
 */
#ifndef GPUSCOPE_DB_READ_H
#define GPUSCOPE_DB_READ_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/db_pages.h"
#include "trace/schema.h"
#include "trace/trace.h"

/* columns of the widest table (devices: 15) */
#define MAX_COLS 32

struct reader {
	sqlite3 *db;
	char *err;
	const char *path;
	int64_t base;
	int version;		  /* the file's schema version */
	struct trace_kernel *cfg; /* launch configurations, id - 1 */
	size_t n_cfg, cap_cfg;
	int wal;
	struct dbp_file pages; /* the file for page reads (db_pages.h), when has_pages */
	int has_pages;
	unsigned long page_tables; /* read from the pages so far */
	size_t cfg_at, cfg_len;	   /* a config's fields in struct trace_kernel, when adjacent */
	/* the stored columns of plan_tt (db_fill_row's, made on its first row) */
	const struct ttable *plan_tt;
	int plan_n;
	uint8_t plan_kind[MAX_COLS];
	uint16_t plan_off[MAX_COLS];
};

/* Fills row (a struct of table tt) from val, the values of tt's stored
 * columns in order (from SQLite or from the pages): 0, or -1 with the
 * message in r->err (a time out of range, a missing launch configuration). */
int db_fill_row(struct reader *r, const struct ttable *tt, char *row, const struct dbp_value *val);

/* An API call's kind, derived from its name once per name: kinds has one
 * byte per string of t, 0xff where not known yet (db_new_api_kinds; free it). */
uint8_t *db_new_api_kinds(const struct trace *t);
void db_set_api_kind(const struct trace *t, uint8_t *kinds, struct trace_api *a);

/* 1 when tt can be read from the pages (db_read_pages.c). */
int db_pages_table(const struct ttable *tt);
/* Reads table tt from r->pages into t: 0, or DBP_UNSURE with t as it was
 * (the caller then reads it through SQLite, which gives the rows or the
 * message). */
int db_read_table_pages(struct reader *r, struct trace *t, const struct ttable *tt);

#endif
