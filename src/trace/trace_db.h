/*
 * trace_db.h - the gpuscope trace database (SQLite), schema v5 (v1 to v4
 * files are read too: they lack the tables a later version added, which
 * then read as empty: v2 host sampling, v3 capture windows, v4 threads'
 * scheduler statistics, v5 unified-memory events).
 *
 * The format is documented in docs/trace-format.md; all SQL lives in
 * src/trace/. A database is written whole from a `struct trace`
 * (trace_db_save) and read whole into one (trace_db_load). Kernel rows are
 * normalized (launch configurations and names are shared rows) so a kernel
 * costs under 48 bytes on disk; views give the flat tables back.
 *
 * Error contract: every function returns 0 on success or -1 with a one-line
 * message in err (GS_ERR_LEN bytes). On error trace_db_load leaves *t
 * released and empty; trace_db_save leaves no file behind (it writes to
 * PATH.tmp-PID and renames over PATH only when complete).
 */
#ifndef GPUSCOPE_TRACE_DB_H
#define GPUSCOPE_TRACE_DB_H

#include "trace/trace.h"
#include "util/outfile.h"

#define TRACE_DB_SCHEMA_VERSION 5
/* SQLite application_id: "GPUS" */
#define TRACE_DB_APPLICATION_ID 0x47505553

/* Writes t to path. Refuses to replace an existing file that is not a
 * gpuscope database. Meta keys set in t are written; schema_version and
 * gpuscope_version are always set by the writer. */
int trace_db_save(const char *path, const struct trace *t, char *err);
/* The same under an output rule (util/outfile.h: --force, the inputs). */
int trace_db_save_as(const char *path, const struct trace *t, const struct outfile_rule *r,
		     char *err);
/* The output rule of commands that write a database: replaces a gpuscope
 * database (or anything with force), never one of inputs (NULL-terminated
 * or NULL), never stdout. */
struct outfile_rule trace_db_rule(int force, const char *const *inputs);

/* Loads path into t (t is initialised here). Fails on a file that is not
 * a gpuscope database, on a newer schema, and on corrupt content. */
int trace_db_load(struct trace *t, const char *path, char *err);

/* How trace_db_load_opt reads. By default the big tables come straight
 * from the file's pages (db_pages.h) where it can, SQLite the rest; the
 * rows are the same either way (tests compare the two). */
struct trace_db_load_opts {
	int sqlite_only;	   /* 1: every table through SQLite */
	unsigned long page_tables; /* out: the tables the pages gave */
};
/* trace_db_load with o (NULL: the defaults). */
int trace_db_load_opt(struct trace *t, const char *path, struct trace_db_load_opts *o, char *err);

/* 1 when path looks like a gpuscope database (SQLite header and our
 * application_id), 0 otherwise (missing, unreadable, other content). */
int trace_db_is_gpuscope(const char *path);

/* 1 when the SQLite database at path has the tables of an Nsight Systems
 * SQLite export (nsys export --type sqlite: CUPTI_ACTIVITY_KIND_KERNEL,
 * TARGET_INFO_GPU, ...), for the message that refuses it; 0 otherwise. */
int trace_db_is_nsys_export(const char *path);

#endif
