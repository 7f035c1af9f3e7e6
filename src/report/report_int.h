/*
 * report_int.h - helpers the report builders share (report.c); not for
 * renderers, which only read the model (report.h).
 *
 * Error contract: every constructor returns NULL (or -1) only when out of
 * memory; builders then fail the whole report_build.
 */
#ifndef GPUSCOPE_REPORT_INT_H
#define GPUSCOPE_REPORT_INT_H

#include "analyze/analysis.h"
#include "report/report.h"

/* Builders return -1 as soon as something is out of memory. */
#define TRY(x)                                                                                     \
	do {                                                                                       \
		if ((x) < 0)                                                                       \
			return -1;                                                                 \
	} while (0)
#define TRYP(p)                                                                                    \
	do {                                                                                       \
		if (!(p))                                                                          \
			return -1;                                                                 \
	} while (0)

/* JSON order of the v1 schema's top-level keys (docs/report-json.md). */
enum rm_json_pos {
	JP_RUN,
	JP_SUMMARY,
	JP_TIME_BY_CATEGORY,
	JP_PRIMARY,
	JP_FINDINGS,
	JP_WARNINGS,
	JP_DEVICES,
	JP_STREAMS,
	JP_IDLE,
	JP_LAUNCH,
	JP_TOP_KERNELS,
	JP_COPIES,
	JP_SYNCS,
	JP_NVTX,
	JP_SAMPLES,
	JP_SPEED_OF_LIGHT,
	JP_PHASES,
	JP_PROCESSES,
	JP_KERNEL_COUNTERS,
	JP_PER_DEVICE,
	JP_PROGRAM, /* report v2's sections (#16), after v1's keys */
	JP_OPS,
	JP_MEMORY,
	JP_FAMILIES,
	JP_CALLS,
	JP_RUN_PHASES,
	JP_HOST_WAIT,
	JP_RANKS,	   /* several ranks (#24) */
	JP_RANK_SUMMARIES, /* a job from summaries (#38) */
	JP_NONE = 1000,
};

/* How many kernel groups and ranges text lists (the JSON lists more). */
#define RM_TEXT_TOP_ROWS 15
#define RM_JSON_TOP_KERNELS 50

struct summary_job;
/* The RANK SUMMARIES section of a job read from summaries (report_comm.c). */
int rm_build_rank_summaries(struct report *r, const struct summary_job *j);

void *rm_alloc(struct report *r, size_t n);
const char *rm_strdup(struct report *r, const char *s);
const char *rm_printf(struct report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

struct rm_section *rm_section_add(struct report *r, const char *id, const char *heading,
				  enum rm_section_json json, const char *json_key, int json_pos);
/* Appends a field (json: written in JSON). -1 when out of memory. */
int rm_field_add(struct rm_section *s, const char *key, int json, struct rm_cell c);
struct rm_line *rm_line_add(struct rm_section *s, const char *prefix, const char *cont,
			    const char *tmpl);
void rm_line_arg(struct rm_line *l, const char *key, struct rm_cell c);

/* The number of entries of an array of columns. */
#define NCOLS(c) (sizeof(c) / sizeof((c)[0]))

/* A column that carries its values (perf's sort_entry): the column and the
 * function that makes its cell from one row. A table built from entries is
 * filled by rm_table_fill's loop, so inserting a column is one entry and no
 * builder writes a column index. */
struct rm_row {
	struct report *r; /* for the strings a fill makes (rm_made) */
	const void *row;  /* the row's element: rows + i * size */
	size_t i;	  /* its index */
	const void *ctx;  /* the builder's (most often the analysis) */
	int oom;	  /* set by a fill that ran out of memory */
};
struct rm_entry {
	struct rm_column col;
	struct rm_cell (*fill)(struct rm_row *w); /* of the column's kind */
};
/* Defines the fill NAME of a column over rows of type T: EXPR is the cell,
 * with x the row (const T *) and w the struct rm_row. */
#define RM_FILL(name, T, expr)                                                                     \
	static struct rm_cell name(struct rm_row *w)                                               \
	{                                                                                          \
		const T *x = w->row;                                                               \
		(void)x;                                                                           \
		return (expr);                                                                     \
	}
/* A table in s of n rows, row i from rows + i * size (size 0: every row
 * is rows itself, a struct of parallel arrays its fills index by w->i),
 * one column per entry of e[0..n_e), every cell its entry's fill. NULL
 * when out of memory. */
struct rm_table *rm_table_fill(struct report *r, struct rm_section *s, const char *key,
			       enum rm_table_json json, const struct rm_entry *e, size_t n_e,
			       const void *rows, size_t size, size_t n, const void *ctx);
/* The same in no section: a cell's nested table (RM_TABLE). */
struct rm_table *rm_table_fill_detached(struct report *r, enum rm_table_json json,
					const struct rm_entry *e, size_t n_e, const void *rows,
					size_t size, size_t n, const void *ctx);
/* A fill's cell of a string it made in the report (rm_printf, rm_strdup, a
 * nested table): NULL, out of memory, marks the row. */
static inline struct rm_cell rm_made(struct rm_row *w, struct rm_cell c)
{
	if (!c.valid)
		w->oom = 1;
	return c;
}
struct rm_cell rm_cell_styled(struct rm_cell c, enum rm_style style);

/* For fills whose ctx is the analysis: string id of its trace. */
static inline const char *rm_an_str(const struct rm_row *w, uint32_t id)
{
	return trace_str(((const struct analysis *)w->ctx)->t, id);
}
/* "#N", N the row's index + 1 (a row's label in text). */
struct rm_cell rm_row_number(struct rm_row *w);
/* The demangled form of a kernel name (RM_TEXT). */
struct rm_cell rm_demangled(struct rm_row *w, const char *name);

/* Shorthands for the common cells. */
static inline struct rm_cell rm_dur(int64_t ns)
{
	return rm_cell_int(RM_DURATION, ns);
}
static inline struct rm_cell rm_count(uint64_t n)
{
	return rm_cell_int(RM_COUNT, (int64_t)n);
}
static inline struct rm_cell rm_pct(double v, int prec)
{
	return rm_cell_num(RM_PERCENT, v, prec);
}
static inline struct rm_cell rm_num(double v, int prec)
{
	return rm_cell_num(RM_NUMBER, v, prec);
}
static inline struct rm_cell rm_text(const char *s)
{
	return rm_cell_str(RM_TEXT, s);
}
/* A cell holding a nested table (RM_TABLE; unknown when t is NULL). */
static inline struct rm_cell rm_sub(const struct rm_table *t)
{
	struct rm_cell c = {.kind = RM_TABLE, .valid = t != NULL};
	c.v.t = t;
	return c;
}
/* v when known, else unknown. */
static inline struct rm_cell rm_if(int known, struct rm_cell c)
{
	c.valid = (uint8_t)(known && c.valid);
	return c;
}

/* The section builders (report_build.c, report_tables.c); each returns 0
 * or -1 when out of memory. */
int rm_build_kernels(struct report *r, const struct analysis *a);
int rm_build_launch_idle(struct report *r, const struct analysis *a);
int rm_build_copies_syncs(struct report *r, const struct analysis *a);
int rm_build_nvtx_samples(struct report *r, const struct analysis *a);
int rm_build_processes(struct report *r, const struct analysis *a);
int rm_build_counters(struct report *r, const struct analysis *a);
int rm_build_devices_phases(struct report *r, const struct analysis *a);
/* report v2 (#16): report_program.c */
int rm_build_program(struct report *r, const struct analysis *a);
int rm_build_ops(struct report *r, const struct analysis *a);		 /* report_ops.c */
int rm_build_memory(struct report *r, const struct analysis *a);	 /* report_memory.c */
int rm_build_calls(struct report *r, const struct analysis *a);		 /* report_calls.c */
int rm_build_run_phases(struct report *r, const struct analysis *a);	 /* report_phases.c */
int rm_build_families(struct report *r, const struct analysis *a);	 /* report_families.c */
int rm_build_hostwait(struct report *r, const struct analysis *a);	 /* report_hostwait.c */
int rm_build_ranks(struct report *r, const struct analysis_result *res); /* report_comm.c */
/* The pictures' series (report_series.c): sections no text or JSON shows. */
int rm_build_series(struct report *r, const struct analysis *a);

#endif
