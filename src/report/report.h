/*
 * report.h - the report model: everything `gpuscope report` says, as data,
 * between analysis and the renderers (src/render/report_*.c: text, JSON,
 * HTML). Analysis decides what is said (values, what is unknown, warnings,
 * findings); a renderer only chooses how it looks.
 *
 * A report is an ordered list of sections (text order). A section has a
 * stable id ("summary", "top_kernels", ...: docs/report-json.md lists
 * them), an optional heading and items: fields (named typed values),
 * lines (sentences of text: a template whose {key} placeholders name
 * fields) and tables (typed columns with units, rows of cells). Every cell
 * carries a validity bit: an unknown value is never 0, it prints as `?` in
 * text and `null` in JSON. Findings and the verdict are sections over the
 * analysis's finding list (report/finding.h).
 *
 * Templates are English literals marked RM_T() (xgettext --keyword=RM_T):
 * the msgids a translation (docs/findings.md, #22) replaces at render time;
 * values are substituted after translation, so numbers, ids and JSON keys
 * never change with the language. A placeholder is {key} (a field of the
 * line, then of its section), {key:SPEC} (SPEC: '+' for a sign, digits for
 * the decimals) or {th.NAME} (a threshold of analyze/thresholds.h, so text
 * that quotes one cannot go stale).
 *
 * Tables with timestamp or duration columns (phases, later timelines) are
 * the series charts draw; column units say what an axis is.
 *
 * Invariants:
 *  1. A report is built once (report_build) and read-only after; it owns
 *     all its memory (report_release frees it) except strings of the trace
 *     it was built from (kernel names), which must outlive it.
 *  2. Field keys are unique within a section; a JSON key is written once.
 *  3. A table's cells are row-major, n_rows x n_cols, each with its
 *     column's kind.
 */
#ifndef GPUSCOPE_REPORT_H
#define GPUSCOPE_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "report/finding.h"

/* Marks a template (an msgid) for extraction; it is the English text. */
#define RM_T(s) (s)

enum rm_kind {
	RM_DURATION,  /* v.i nanoseconds */
	RM_TIMESTAMP, /* v.i nanoseconds on the trace's clock */
	RM_PERCENT,   /* v.d percent */
	RM_COUNT,     /* v.i */
	RM_BYTES,     /* v.i */
	RM_RATE,      /* v.d GB/s */
	RM_NUMBER,    /* v.d; its unit is the field's or column's */
	RM_NAME,      /* v.s a kernel or range name as recorded (mangled) */
	RM_TEXT,      /* v.s */
	RM_DIMS,      /* v.dims x, y, z of a grid or block */
	RM_TABLE,     /* v.t a nested table (JSON only: an object or array in a row) */
};

/* How text shows a cell (a hint: HTML may choose otherwise). */
enum rm_style {
	RM_STYLE_DEFAULT = 0,
	RM_STYLE_BARE,	    /* PERCENT without its % sign (the header says it) */
	RM_STYLE_MAGNITUDE, /* NUMBER: 2 decimals below 10, 1 below 100, else 0 */
	RM_STYLE_SHORT,	    /* DURATION: fewest digits ("10 us": thresholds) */
	RM_STYLE_SECONDS,   /* DURATION: seconds, prec decimals */
	RM_STYLE_SIGNED,    /* NUMBER: always with a sign */
	RM_STYLE_BASE_NAME, /* NAME: demangled, without scopes and arguments */
	RM_STYLE_TEMPLATE,  /* TEXT: a translatable template ({th.NAME} only) */
	RM_STYLE_SIG,	    /* NUMBER: prec significant digits */
};

struct rm_table;

struct rm_cell {
	uint8_t kind;  /* enum rm_kind */
	uint8_t valid; /* 0: unknown */
	uint8_t style; /* enum rm_style */
	int8_t prec;   /* decimals shown (PERCENT, RATE, NUMBER, SECONDS) */
	union {
		int64_t i;
		double d;
		const char *s;
		uint32_t dims[3];
		const struct rm_table *t;
	} v;
};

/* A named value: a JSON key, and a placeholder for the section's lines. */
struct rm_field {
	const char *key;
	const char *unit; /* "ns", "%", "GB/s", ...; NULL: the kind says it */
	uint8_t json;	  /* written in JSON (else text only) */
	struct rm_cell c;
};

#define RM_LINE_ARGS 4

/* One line of text. Not written in JSON except in a section of lines
 * (warnings), where each line is one string, expanded without prefix. */
struct rm_line {
	const char *id;	    /* stable id of a warning; NULL otherwise */
	const char *tmpl;   /* RM_T() template */
	const char *prefix; /* printed before it, not translated ("  ") */
	const char *cont;   /* continuation indent when wrapped; NULL: one line */
	uint8_t join;	    /* printed right after the previous line, no newline */
	int n_args;
	struct rm_field args[RM_LINE_ARGS]; /* the line's own values */
};

struct rm_column {
	const char *key;    /* JSON key; the column's stable id */
	const char *header; /* text header; NULL: not in text */
	const char *unit;   /* for charts and HTML; NULL: the kind says it */
	uint8_t kind;	    /* enum rm_kind of its cells */
	uint8_t json;	    /* written in JSON */
	int8_t width;	    /* text width; 0: the value's own width (last column) */
	uint8_t left;	    /* text: left-aligned */
	uint8_t trunc;	    /* text: values cut to width */
	uint8_t gap;	    /* text: spaces before it (first column: none); 0 = 1 */
};

enum rm_table_json {
	RM_TJ_ARRAY,	 /* [{col: value, ...}, ...] */
	RM_TJ_KEYED,	 /* {first column: {other columns}} */
	RM_TJ_KEYED_ONE, /* {first column: second column} */
};

struct rm_table {
	const char *key; /* JSON key; NULL: not in JSON */
	uint8_t json;	 /* enum rm_table_json */
	const struct rm_column *cols;
	size_t n_cols;
	struct rm_cell *cells; /* n_rows x n_cols */
	size_t n_rows;
	size_t text_rows; /* rows text shows */
	/* text: a NAME column cut to its width gets the row's full name on a
	 * line under the table (labelled by the first column) */
	int name_notes;
};

enum rm_item_kind { RM_ITEM_FIELD, RM_ITEM_LINE, RM_ITEM_TABLE };

struct rm_item {
	uint8_t kind;
	union {
		struct rm_field f;
		struct rm_line l;
		struct rm_table t;
	} u;
};

enum rm_section_kind {
	RM_SEC_PLAIN,	 /* heading, lines and tables */
	RM_SEC_VERDICT,	 /* the primary finding (or why there is none) */
	RM_SEC_FINDINGS, /* every finding */
};

enum rm_section_json {
	RM_SJ_NONE,	/* text only */
	RM_SJ_INLINE,	/* its fields and tables at the report's top level */
	RM_SJ_OBJECT,	/* "json_key": {fields and tables}, null when !valid */
	RM_SJ_LINES,	/* "json_key": [each line's text] */
	RM_SJ_FINDINGS, /* "json_key": the finding list */
};

struct rm_section {
	const char *id;		 /* stable id */
	uint8_t kind;		 /* enum rm_section_kind */
	const char *heading;	 /* RM_T() template; NULL: none */
	const char *heading_cut; /* heading when a table's names were cut */
	uint8_t text;		 /* shown in text */
	uint8_t json;		 /* enum rm_section_json */
	uint8_t valid;		 /* RM_SJ_OBJECT: 0 writes null */
	const char *json_key;
	int json_pos; /* JSON order (the v1 schema's key order) */
	struct rm_item *items;
	size_t n_items, cap_items;
	/* RM_SEC_VERDICT and RM_SEC_FINDINGS */
	const struct finding_list *findings;
	const struct finding *primary;
};

struct rm_block; /* private: the arena */

struct report {
	struct rm_section *secs;
	size_t n_secs, cap_secs;
	struct rm_block *arena;
};

struct analysis_result;

/* Builds the report of a run (analysis.h: analysis_result_run) into r,
 * initialised here; path is the trace file shown. Returns 0, or -1 with a
 * message in err and r released. */
int report_build(struct report *r, const struct analysis_result *res, const char *path, char *err);
/* The job report from summaries (diagnose/summary.h): the header, the
 * verdict, the findings (each rank's, marked with its device, and the job
 * rules'), RANKS and one row per summary. path names the inputs. */
struct summary_job;
int report_build_job(struct report *r, const struct summary_job *j, const char *path, char *err);
/* `report --list-rules` as a model: section "rules" with table "rules"
 * (id, scope, side, status, doc, charges, fires: a template, evidence: a
 * nested table of key, unit, label) and section "thresholds" with table
 * "thresholds" (name, macro, value; report_threshold gives the cell text
 * shows). 0, or -1 with a message in err and r released. */
int report_build_rules(struct report *r, char *err);
void report_release(struct report *r);

/* The section with id, NULL when absent. */
const struct rm_section *report_section(const struct report *r, const char *id);
/* A field of s by key, NULL when absent. */
const struct rm_field *rm_section_field(const struct rm_section *s, const char *key);
/* The first table of s, NULL when none. */
const struct rm_table *rm_section_table(const struct rm_section *s);
/* The cell a template's {th.NAME} shows: threshold NAME of the one
 * threshold table (diagnose/thresholds.h), a duration in its shortest
 * form, a count, or a number with the decimals it has (0 or 2). 0, or -1
 * when there is no threshold of that name. */
int report_threshold(const char *name, struct rm_cell *c);

/* The index of t's column with key, -1 when none has it. */
int rm_table_col(const struct rm_table *t, const char *key);
/* Cell (row, col) of a table. */
static inline const struct rm_cell *rm_table_cell(const struct rm_table *t, size_t row, size_t col)
{
	return &t->cells[row * t->n_cols + col];
}

/* Constructors for cells (builders, the warnings and the threshold table;
 * inline, so that diagnose/ uses the model's vocabulary without linking
 * the report layer). */
static inline struct rm_cell rm_cell_int(enum rm_kind kind, int64_t v)
{
	struct rm_cell c = {.kind = (uint8_t)kind, .valid = 1, .prec = 1};
	c.v.i = v;
	return c;
}

static inline struct rm_cell rm_cell_num(enum rm_kind kind, double v, int prec)
{
	struct rm_cell c = {.kind = (uint8_t)kind, .valid = 1, .prec = (int8_t)prec};
	c.v.d = v;
	return c;
}

static inline struct rm_cell rm_cell_str(enum rm_kind kind, const char *s)
{
	struct rm_cell c = {.kind = (uint8_t)kind, .valid = s != NULL};
	c.v.s = s;
	return c;
}

static inline struct rm_cell rm_cell_unknown(enum rm_kind kind)
{
	struct rm_cell c = {.kind = (uint8_t)kind, .valid = 0, .prec = 1};
	return c;
}

#endif
