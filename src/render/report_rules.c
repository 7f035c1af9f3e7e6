/*
 * report_rules.c - `gpuscope report --list-rules`: the rule table and the
 * thresholds its rules compare against (the model of report.h's
 * report_build_rules), as a table for people or JSON for tools
 * (tests/analyze/findings_doc.sh checks docs/findings.md against it).
 */
#include <stdio.h>

#include "report/report.h"
#include "render/report_render.h"
#include "util/json_out.h"

/* The table of section id (report_build_rules gives both). */
static const struct rm_table *table(const struct report *r, const char *id)
{
	const struct rm_section *s = report_section(r, id);
	return s ? rm_section_table(s) : NULL;
}

/* The text of cell (row, the column with key). */
static const char *str(const struct rm_table *t, size_t row, const char *key)
{
	int c = rm_table_col(t, key);
	return c >= 0 && rm_table_cell(t, row, (size_t)c)->valid
		   ? rm_table_cell(t, row, (size_t)c)->v.s
		   : "";
}

/* A threshold's value as templates show it (durations with their unit). */
static const char *th_text(char *buf, size_t n, const char *name)
{
	struct rm_cell c;
	if (report_threshold(name, &c) < 0)
		c = rm_cell_unknown(RM_NUMBER);
	return report_cell_text(buf, n, &c, -1, 0);
}

void report_rules_text(FILE *f, const struct report *r)
{
	char v[64];
	const struct rm_table *t = table(r, "rules"), *th = table(r, "thresholds");
	fprintf(f, "%-16s %-6s %-7s %-11s %s\n", "id", "scope", "side", "status", "doc");
	for (size_t i = 0; t && i < t->n_rows; i++) {
		fprintf(f, "%-16s %-6s %-7s %-11s %s\n", str(t, i, "id"), str(t, i, "scope"),
			str(t, i, "side"), str(t, i, "status"), str(t, i, "doc"));
		char line[1024];
		report_wrap(
		    f, "  fires:", "    ",
		    report_expand(line, sizeof(line), report_tr(str(t, i, "fires")), NULL, NULL));
	}
	fprintf(f, "\n%-20s %-26s %s\n", "threshold", "macro", "value");
	for (size_t i = 0; th && i < th->n_rows; i++)
		fprintf(f, "%-20s %-26s %s\n", str(th, i, "name"), str(th, i, "macro"),
			th_text(v, sizeof(v), str(th, i, "name")));
}

void report_rules_json(FILE *f, const struct report *r)
{
	char v[64];
	const struct rm_table *t = table(r, "rules"), *th = table(r, "thresholds");
	struct json_out j;
	json_out_init(&j, f, 1);
	json_begin_object(&j);
	json_kv_string(&j, "schema", "gpuscope.rules.v1");
	json_key(&j, "rules");
	json_begin_array(&j);
	int ev = t ? rm_table_col(t, "evidence") : -1;
	for (size_t i = 0; t && i < t->n_rows; i++) {
		json_begin_object(&j);
		static const char *const keys[] = {"id",     "scope", "side",
						   "status", "doc",   "charges"};
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			json_kv_string(&j, keys[k], str(t, i, keys[k]));
		char line[1024];
		json_kv_string(&j, "fires",
			       report_expand(line, sizeof(line), str(t, i, "fires"), NULL, NULL));
		json_key(&j, "evidence");
		json_begin_array(&j);
		const struct rm_cell *e = ev >= 0 ? rm_table_cell(t, i, (size_t)ev) : NULL;
		for (size_t k = 0; e && e->valid && k < e->v.t->n_rows; k++) {
			json_begin_object(&j);
			json_kv_string(&j, "key", str(e->v.t, k, "key"));
			json_kv_string(&j, "unit", str(e->v.t, k, "unit"));
			json_kv_string(&j, "label", str(e->v.t, k, "label"));
			json_end_object(&j);
		}
		json_end_array(&j);
		json_end_object(&j);
	}
	json_end_array(&j);
	json_key(&j, "thresholds");
	json_begin_array(&j);
	int val = th ? rm_table_col(th, "value") : -1;
	for (size_t i = 0; th && i < th->n_rows; i++) {
		json_begin_object(&j);
		json_kv_string(&j, "name", str(th, i, "name"));
		json_kv_string(&j, "macro", str(th, i, "macro"));
		json_kv_double(&j, "value", val >= 0 ? rm_table_cell(th, i, (size_t)val)->v.d : 0);
		json_kv_string(&j, "text", th_text(v, sizeof(v), str(th, i, "name")));
		json_end_object(&j);
	}
	json_end_array(&j);
	json_end_object(&j);
	fputc('\n', f);
}
