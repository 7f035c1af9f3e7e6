/*
 * db_pages.h - a table's rows read straight from the b-tree pages of an
 * SQLite file (the file format: sqlite.org/fileformat2.html), for the
 * trace database's big tables (issue #25: 10M kernels spent most of their
 * load in SQLite's row stepping, ~45 ns per column and row).
 *
 * Only what our own writer produces is read here: a rowid table whose rows
 * fit on their page (no overflow pages), integer, real and NULL values.
 * Anything else (an index b-tree, an overflow, a text value where a number
 * is read, a page that does not parse) makes a call return DBP_UNSURE, and
 * the caller reads the table through SQLite instead, which gives the
 * canonical rows or message. The file is read with pread(2) (no mapping:
 * a file truncated under us is a short read, not a SIGBUS); the caller holds
 * an SQLite read transaction on it meanwhile, so no writer changes it.
 *
 * Design notes:
 *  1. Rows come in rowid order (the b-tree's order), as SQLite's full scan
 *     gives them.
 *  2. A table's leaves are listed first (the interior pages only), with
 *     the number of cells of each: estimated from the interior pages' keys
 *     (rowids are dense in our files), verified when each leaf is read
 *     (DBP_MISCOUNT), or counted exactly from every leaf's header
 *     (dbp_count_cells). So each thread can write its leaves' rows straight
 *     into their final place in one array.
 */
#ifndef GPUSCOPE_DB_PAGES_H
#define GPUSCOPE_DB_PAGES_H

#include <stddef.h>
#include <stdint.h>

enum {
	DBP_UNSURE = -1,   /* not for this reader: read the table through SQLite */
	DBP_MISCOUNT = -2, /* a leaf's cell count differs from its estimate */
};

struct dbp_file {
	int fd;
	uint32_t page_size, usable; /* usable: the page less its reserved bytes */
	uint32_t n_pages;
};

/* Opens path for page reads: 0, or DBP_UNSURE (unreadable, odd header). */
int dbp_open(struct dbp_file *f, const char *path);
void dbp_close(struct dbp_file *f);

/* The leaves of one table b-tree, in key order. */
struct dbp_table {
	uint32_t *leaves;
	uint32_t *cells; /* cells of each leaf (an estimate until verified) */
	size_t n_leaves;
	uint64_t n_rows; /* sum of cells */
};

/* Lists the leaves of the table b-tree rooted at page root: 0 or
 * DBP_UNSURE (not a table b-tree, a page that does not parse, a page
 * visited twice, out of memory). */
int dbp_table_open(struct dbp_table *tb, const struct dbp_file *f, uint32_t root);
/* Replaces the estimates by each leaf's header count: 0 or DBP_UNSURE. */
int dbp_count_cells(struct dbp_table *tb, const struct dbp_file *f);
void dbp_table_release(struct dbp_table *tb);

/* A scan over leaves [from, to) of a table. */
struct dbp_scan {
	const struct dbp_file *f;
	const struct dbp_table *tb;
	size_t leaf, end;
	unsigned char *buf; /* pages p0 .. p0 + n_buf - 1 */
	uint32_t p0, n_buf, cap_pages;
	const unsigned char *page; /* the current leaf */
	uint32_t cell, n_cells;
};

int dbp_scan_init(struct dbp_scan *s, const struct dbp_file *f, const struct dbp_table *tb,
		  size_t from, size_t to);
void dbp_scan_release(struct dbp_scan *s);
/* The next row's record: 1 with *rec and *len, 0 at the end, DBP_UNSURE
 * or DBP_MISCOUNT. */
int dbp_next(struct dbp_scan *s, const unsigned char **rec, uint32_t *len);

/* One value of a record. */
struct dbp_value {
	int64_t i;
	double d;
	int real; /* 1: d holds a REAL, 0: i holds an integer (NULL reads as 0) */
};

/* Decodes record rec into out (8 bytes past rec + len are read: the
 * records of dbp_next have them): field f goes to out[slot[f]] when
 * f < n_slot and slot[f] >= 0, *reals counts the REAL values among them;
 * fields the record lacks are left as they are (the caller zeroes them:
 * NULL). The number of fields, or DBP_UNSURE for a text or blob in a
 * wanted field, a reserved type, or a record that does not parse. */
int dbp_record(const unsigned char *rec, uint32_t len, const int8_t *slot, int n_slot,
	       struct dbp_value *out, int *reals);

#endif
