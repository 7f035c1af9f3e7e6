/*
 * report_json.c - `gpuscope report --format json`: the report model as
 * schema gpuscope.report.v1 (docs/report-json.md). Sections are written in
 * the schema's key order (json_pos); times are integer nanoseconds
 * (`*_ns`), shares percentages (`*_pct`); an unknown value is null. Keys
 * are only ever added within v1.
 */
#include "render/findings_render.h"
#include "render/report_render.h"
#include "util/json_out.h"

static void table_value(struct json_out *j, const struct rm_table *t);

static void cell(struct json_out *j, const struct rm_cell *c)
{
	if (!c->valid) {
		json_null(j);
		return;
	}
	switch (c->kind) {
	case RM_DURATION:
	case RM_TIMESTAMP:
	case RM_COUNT:
	case RM_BYTES:
		json_int(j, c->v.i);
		break;
	case RM_PERCENT:
	case RM_RATE:
	case RM_NUMBER:
		json_double(j, c->v.d);
		break;
	case RM_DIMS:
		json_begin_array(j);
		for (int k = 0; k < 3; k++)
			json_int(j, c->v.dims[k]);
		json_end_array(j);
		break;
	case RM_TABLE:
		table_value(j, c->v.t);
		break;
	default:
		json_string(j, c->v.s ? c->v.s : "");
	}
}

/* The JSON columns of row r from column `from` on, as keys and values. */
static void row(struct json_out *j, const struct rm_table *t, size_t r, size_t from)
{
	for (size_t c = from; c < t->n_cols; c++) {
		if (!t->cols[c].json)
			continue;
		json_key(j, t->cols[c].key);
		cell(j, rm_table_cell(t, r, c));
	}
}

static void table_value(struct json_out *j, const struct rm_table *t)
{
	char k[512];
	if (t->json == RM_TJ_ARRAY) {
		json_begin_array(j);
		for (size_t r = 0; r < t->n_rows; r++) {
			json_begin_object(j);
			row(j, t, r, 0);
			json_end_object(j);
		}
		json_end_array(j);
		return;
	}
	json_begin_object(j);
	for (size_t r = 0; r < t->n_rows; r++) {
		json_key(j, report_cell_text(k, sizeof(k), rm_table_cell(t, r, 0), -1, 0));
		if (t->json == RM_TJ_KEYED_ONE) {
			cell(j, rm_table_cell(t, r, 1));
			continue;
		}
		json_begin_object(j);
		row(j, t, r, 1);
		json_end_object(j);
	}
	json_end_object(j);
}

static void table(struct json_out *j, const struct rm_table *t)
{
	json_key(j, t->key);
	table_value(j, t);
}

static void items(struct json_out *j, const struct rm_section *s)
{
	for (size_t i = 0; i < s->n_items; i++) {
		const struct rm_item *it = &s->items[i];
		if (it->kind == RM_ITEM_FIELD && it->u.f.json) {
			json_key(j, it->u.f.key);
			cell(j, &it->u.f.c);
		} else if (it->kind == RM_ITEM_TABLE && it->u.t.key) {
			table(j, &it->u.t);
		}
	}
}

static void section(struct json_out *j, const struct rm_section *s)
{
	char text[2048];
	switch (s->json) {
	case RM_SJ_INLINE:
		items(j, s);
		break;
	case RM_SJ_OBJECT:
		json_key(j, s->json_key);
		if (!s->valid) {
			json_null(j);
			break;
		}
		json_begin_object(j);
		items(j, s);
		json_end_object(j);
		break;
	case RM_SJ_LINES:
		json_key(j, s->json_key);
		json_begin_array(j);
		for (size_t i = 0; i < s->n_items; i++)
			if (s->items[i].kind == RM_ITEM_LINE)
				json_string(j,
					    report_expand(text, sizeof(text), s->items[i].u.l.tmpl,
							  &s->items[i].u.l, s));
		json_end_array(j);
		break;
	case RM_SJ_FINDINGS:
		json_key(j, s->json_key);
		finding_list_json(j, s->findings);
		break;
	default:
		break;
	}
}

void report_json(FILE *f, const struct report *r)
{
	struct json_out j;
	json_out_init(&j, f, 1);
	json_begin_object(&j);
	/* sections in the schema's order; a stable pass over the few there are */
	int pos = -1;
	for (;;) {
		int next = -1;
		for (size_t i = 0; i < r->n_secs; i++)
			if (r->secs[i].json_pos > pos && (next < 0 || r->secs[i].json_pos < next))
				next = r->secs[i].json_pos;
		if (next < 0)
			break;
		for (size_t i = 0; i < r->n_secs; i++)
			if (r->secs[i].json_pos == next && r->secs[i].json != RM_SJ_NONE)
				section(&j, &r->secs[i]);
		pos = next;
	}
	json_end_object(&j);
	fputc('\n', f);
}
