/*
 * report.c - the report model's memory (one arena per report), its
 * look-ups and the builders' helpers (report_int.h). What goes into a
 * report is report_build.c's and report_tables.c's.
 */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagnose/thresholds.h"
#include "util/demangle.h"
#include "util/vec.h"
#include "report/report.h"
#include "report/report_int.h"

struct rm_block {
	struct rm_block *next;
	size_t used, cap;
	max_align_t data[];
};

#define RM_BLOCK_BYTES (64 * 1024)

void *rm_alloc(struct report *r, size_t n)
{
	n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
	struct rm_block *b = r->arena;
	if (!b || b->cap - b->used < n) {
		size_t cap = n > RM_BLOCK_BYTES ? n : RM_BLOCK_BYTES;
		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->next = r->arena;
		b->used = 0;
		b->cap = cap;
		r->arena = b;
	}
	void *p = (char *)b->data + b->used;
	b->used += n;
	memset(p, 0, n);
	return p;
}

const char *rm_strdup(struct report *r, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = rm_alloc(r, n);
	if (p)
		memcpy(p, s, n);
	return p;
}

const char *rm_printf(struct report *r, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return rm_strdup(r, buf);
}

void report_release(struct report *r)
{
	for (size_t i = 0; i < r->n_secs; i++)
		free(r->secs[i].items);
	free(r->secs);
	for (struct rm_block *b = r->arena, *n; b; b = n) {
		n = b->next;
		free(b);
	}
	memset(r, 0, sizeof(*r));
}

/* Room for one more element of *v (n used of *cap); -1 when out of memory. */
static int grow(void *v, size_t *cap, size_t n, size_t size, size_t first)
{
	(void)first;
	return vec_reserve((void **)v, cap, n + 1, size);
}

struct rm_section *rm_section_add(struct report *r, const char *id, const char *heading,
				  enum rm_section_json json, const char *json_key, int json_pos)
{
	if (grow(&r->secs, &r->cap_secs, r->n_secs, sizeof(*r->secs), 32) < 0)
		return NULL;
	struct rm_section *s = &r->secs[r->n_secs++];
	memset(s, 0, sizeof(*s));
	s->id = id;
	s->heading = heading;
	s->text = 1;
	s->json = (uint8_t)json;
	s->valid = 1;
	s->json_key = json_key;
	s->json_pos = json_pos;
	return s;
}

static struct rm_item *item_add(struct rm_section *s, enum rm_item_kind kind)
{
	if (grow(&s->items, &s->cap_items, s->n_items, sizeof(*s->items), 16) < 0)
		return NULL;
	struct rm_item *it = &s->items[s->n_items++];
	memset(it, 0, sizeof(*it));
	it->kind = (uint8_t)kind;
	return it;
}

int rm_field_add(struct rm_section *s, const char *key, int json, struct rm_cell c)
{
	struct rm_item *it = item_add(s, RM_ITEM_FIELD);
	if (!it)
		return -1;
	it->u.f.key = key;
	it->u.f.json = (uint8_t)json;
	it->u.f.c = c;
	return 0;
}

struct rm_line *rm_line_add(struct rm_section *s, const char *prefix, const char *cont,
			    const char *tmpl)
{
	struct rm_item *it = item_add(s, RM_ITEM_LINE);
	if (!it)
		return NULL;
	it->u.l.tmpl = tmpl;
	it->u.l.prefix = prefix;
	it->u.l.cont = cont;
	return &it->u.l;
}

void rm_line_arg(struct rm_line *l, const char *key, struct rm_cell c)
{
	if (!l || l->n_args == RM_LINE_ARGS)
		return;
	l->args[l->n_args].key = key;
	l->args[l->n_args].c = c;
	l->n_args++;
}

/* report.h's invariant 3, asserted where assertions are on (Debug builds:
 * the ASan test build); tests/report/test_cells.c checks built reports. */
static void set(struct rm_table *t, size_t row, size_t col, struct rm_cell c)
{
	assert(row < t->n_rows && col < t->n_cols);
	assert(c.kind == t->cols[col].kind);
	t->cells[row * t->n_cols + col] = c;
}

/* A table of n rows of entries e, in s (NULL: in no section, a cell's
 * nested table), every cell its entry's fill; the columns and cells are in
 * the report's memory. A fill may make nested tables, never add to a
 * section (that could move t). */
static struct rm_table *table_fill(struct report *r, struct rm_section *s, const char *key,
				   enum rm_table_json json, const struct rm_entry *e, size_t n_e,
				   const void *rows, size_t size, size_t n, const void *ctx)
{
	struct rm_column *cols = rm_alloc(r, n_e * sizeof(*cols));
	struct rm_cell *cells = cols ? rm_alloc(r, (n ? n : 1) * n_e * sizeof(*cells)) : NULL;
	if (!cells)
		return NULL;
	struct rm_item *it = s ? item_add(s, RM_ITEM_TABLE) : NULL;
	struct rm_table *t = s ? (it ? &it->u.t : NULL) : rm_alloc(r, sizeof(*t));
	if (!t)
		return NULL;
	for (size_t j = 0; j < n_e; j++)
		cols[j] = e[j].col;
	*t = (struct rm_table){.key = key,
			       .json = (uint8_t)json,
			       .cols = cols,
			       .n_cols = n_e,
			       .cells = cells,
			       .n_rows = n,
			       .text_rows = n};
	for (size_t i = 0; i < n; i++) {
		struct rm_row w = {
		    .r = r, .row = (const char *)rows + i * size, .i = i, .ctx = ctx};
		for (size_t j = 0; j < n_e; j++)
			set(t, i, j, e[j].fill(&w));
		if (w.oom)
			return NULL;
	}
	return t;
}

struct rm_table *rm_table_fill(struct report *r, struct rm_section *s, const char *key,
			       enum rm_table_json json, const struct rm_entry *e, size_t n_e,
			       const void *rows, size_t size, size_t n, const void *ctx)
{
	return table_fill(r, s, key, json, e, n_e, rows, size, n, ctx);
}

struct rm_table *rm_table_fill_detached(struct report *r, enum rm_table_json json,
					const struct rm_entry *e, size_t n_e, const void *rows,
					size_t size, size_t n, const void *ctx)
{
	return table_fill(r, NULL, NULL, json, e, n_e, rows, size, n, ctx);
}

struct rm_cell rm_row_number(struct rm_row *w)
{
	return rm_made(w, rm_text(rm_printf(w->r, "#%zu", w->i + 1)));
}

struct rm_cell rm_demangled(struct rm_row *w, const char *name)
{
	char dm[4096];
	return rm_made(w, rm_text(rm_strdup(w->r, gs_demangle(name, dm, sizeof(dm)))));
}

struct rm_cell rm_cell_styled(struct rm_cell c, enum rm_style style)
{
	c.style = (uint8_t)style;
	return c;
}

int report_threshold(const char *name, struct rm_cell *c)
{
	const struct threshold *th = threshold_find(name);
	if (!th)
		return -1;
	if (th->kind == RM_DURATION) {
		*c = rm_cell_int(RM_DURATION, (int64_t)th->value);
		c->style = RM_STYLE_SHORT;
	} else if (th->kind == RM_COUNT)
		*c = rm_cell_int(RM_COUNT, (int64_t)th->value);
	else
		*c = rm_cell_num((enum rm_kind)th->kind, th->value,
				 th->value == (double)(int64_t)th->value ? 0 : 2);
	return 0;
}

const struct rm_section *report_section(const struct report *r, const char *id)
{
	for (size_t i = 0; i < r->n_secs; i++)
		if (strcmp(r->secs[i].id, id) == 0)
			return &r->secs[i];
	return NULL;
}

const struct rm_field *rm_section_field(const struct rm_section *s, const char *key)
{
	for (size_t i = 0; i < s->n_items; i++)
		if (s->items[i].kind == RM_ITEM_FIELD && strcmp(s->items[i].u.f.key, key) == 0)
			return &s->items[i].u.f;
	return NULL;
}

int rm_table_col(const struct rm_table *t, const char *key)
{
	for (size_t j = 0; j < t->n_cols; j++)
		if (t->cols[j].key && strcmp(t->cols[j].key, key) == 0)
			return (int)j;
	return -1;
}

const struct rm_table *rm_section_table(const struct rm_section *s)
{
	for (size_t i = 0; i < s->n_items; i++)
		if (s->items[i].kind == RM_ITEM_TABLE)
			return &s->items[i].u.t;
	return NULL;
}
