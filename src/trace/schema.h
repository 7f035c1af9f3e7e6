/*
 * schema.h - the trace database's tables, described once (schema v5,
 * docs/trace-format.md). Each table is an array of column descriptions,
 * one line per column: its SQL name, how its value maps to a field of the
 * in-memory row (trace/trace.h) and, where the column is exported, its
 * place and format in the CSV file. From these come the CREATE TABLE, the
 * insert binder and the reader (named columns, trace_db.c) and the CSV
 * header and rows (render/csv.c): adding a column is one line here.
 *
 * Design notes:
 *  1. Times are stored relative to meta 'base_ns' (the earliest timestamp of
 *     the trace) with a duration instead of an end: both fit in a few bytes
 *     of SQLite's varint encoding, which is what keeps a kernel row small.
 *  2. A kernel's name, grid, block, registers and shared memory live in one
 *     shared launch_configs row: a run launches the same configuration
 *     thousands of times. Those columns describe fields of struct
 *     trace_kernel too (kernels.config_id joins them).
 *  3. Views (kernel_v, copy_v, ...) give the flat, absolute-time tables back
 *     for people with `sqlite3`; gpuscope itself reads the tables.
 *  4. No indexes: readers load whole tables in one scan.
 *  5. A column that an older file lacks reads as 0 (the reader asks the
 *     file which columns it has), so a column can be added without a new
 *     schema version when 0 means "unknown" for it.
 */
#ifndef GPUSCOPE_SCHEMA_H
#define GPUSCOPE_SCHEMA_H

#include <stddef.h>
#include <stdint.h>

/* How a column's value relates to its field. */
enum tcol_kind {
	TC_U8,	  /* uint8_t */
	TC_U32,	  /* uint32_t */
	TC_I32,	  /* int32_t */
	TC_U64,	  /* uint64_t, stored as its int64 bits */
	TC_I64,	  /* int64_t */
	TC_TIME,  /* int64_t absolute time (ns), range-checked on read */
	TC_F64,	  /* double (REAL) */
	TC_START, /* int64_t start_ns, stored relative to base_ns */
	TC_TS,	  /* int64_t timestamp, stored relative to base_ns */
	TC_DUR,	  /* int64_t end_ns at off, stored as end - start (start at offset 0) */
	TC_END,	  /* CSV only: end_ns at off */
	TC_ROWID, /* id INTEGER PRIMARY KEY, written as NULL, not read */
	TC_CONFIG /* launch_configs.id and kernels.config_id (trace_db.c) */
};

/* How a CSV column prints. */
enum tcol_csv {
	CSV_NUM = 0,   /* the number, by its kind */
	CSV_STR,       /* a string id, printed as the string (quoted as needed) */
	CSV_COPY,      /* enum copy_kind name */
	CSV_MEM,       /* enum mem_kind name */
	CSV_API,       /* enum api_kind name */
	CSV_SYNC,      /* enum sync_kind name */
	CSV_RANGE,     /* enum range_kind name */
	CSV_DOMAIN,    /* enum api_domain: "runtime" or "driver" */
	CSV_DEMANGLED, /* a string id, printed demangled (a kernel's name, #16 item 10) */
	CSV_APINAME,   /* a string id, printed without CUPTI's version suffix */
};

struct tcol {
	const char *name; /* SQL column; NULL: not stored (CSV only) */
	uint8_t kind;	  /* enum tcol_kind */
	uint8_t pk;	  /* INTEGER PRIMARY KEY */
	uint16_t off;	  /* offset of the field in the row struct */
	uint8_t csv_pos;  /* 1-based place in the CSV file, 0 = not exported */
	uint8_t csv;	  /* enum tcol_csv */
	const char *csv_name;
};

struct ttable {
	const char *name;
	const struct tcol *cols;
	size_t n_cols;
	/* the rows in struct trace: array, count and capacity fields */
	size_t arr_off, n_off, cap_off, elem_size;
	const char *order; /* reader's ORDER BY, or NULL */
	int replace;	   /* INSERT OR REPLACE (tables keyed by a real id) */
	const char *csv_file;
	int since; /* the schema version that added the table (0 = 1): an older file lacks it */
};

/* Every described table, in writing order (launch_configs before kernels). */
enum {
	TT_PROCESSES,
	TT_DEVICES,
	TT_LAUNCH_CONFIGS,
	TT_KERNELS,
	TT_COPIES,
	TT_MEMSETS,
	TT_API,
	TT_SYNCS,
	TT_RANGES,
	TT_ALLOCS,
	TT_SAMPLES,
	TT_COUNTERS,
	TT_HOST_FRAMES, /* v2: host sampling (docs/host-sampling.md) */
	TT_HOST_STACKS,
	TT_HOST_SAMPLES,
	TT_HOST_SAMPLING,
	TT_FRAMEWORKS,
	TT_CAPTURE_WINDOWS, /* v3: record's capture ranges (trace/capture.h) */
	TT_HOST_SCHED,	    /* v4: threads' scheduler statistics (docs/host-sampling.md) */
	TT_UVM,		    /* v5: unified-memory events (CUPTI's unified-memory counters) */
	TT_COUNT
};
extern const struct ttable trace_tables[TT_COUNT];

/* The tables that are not rows of one struct (written by trace_db.c). */
#define SCHEMA_META                                                                                \
	"CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;\n"            \
	"CREATE TABLE strings(id INTEGER PRIMARY KEY, value TEXT NOT NULL);\n"

extern const char SCHEMA_VIEWS[];

/* "CREATE TABLE name(col TYPE, ...);" for table tt into buf; the length, or
 * -1 when it does not fit. */
int schema_create_sql(char *buf, size_t cap, const struct ttable *tt);

/* The whole schema v1 (SCHEMA_META, every table, SCHEMA_VIEWS) in a new
 * string (free it), or NULL when out of memory. */
char *schema_sql(void);

#endif
