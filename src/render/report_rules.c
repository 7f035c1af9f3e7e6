/*
 * report_rules.c - `gpuscope report --list-rules`: the rule table
 * (analyze/rules.h) and the thresholds its rules compare against
 * (analyze/thresholds.h), as a table for people or JSON for tools
 * (tests/analyze/findings_doc.sh checks docs/findings.md against it).
 */
#include <stdio.h>

#include "report/report.h"
#include "diagnose/rules.h"
#include "diagnose/thresholds.h"
#include "render/report_render.h"
#include "util/json_out.h"

static const char *status(const struct rule *r)
{
	return r->run ? "implemented" : "planned";
}

/* A threshold's value as text (durations with their unit). */
static const char *th_text(char *buf, size_t n, const struct threshold *t)
{
	struct rm_cell c = t->kind == RM_DURATION || t->kind == RM_COUNT
			       ? rm_cell_int((enum rm_kind)t->kind, (int64_t)t->value)
			       : rm_cell_num((enum rm_kind)t->kind, t->value, 2);
	c.style = t->kind == RM_DURATION ? RM_STYLE_SHORT : RM_STYLE_DEFAULT;
	if (t->kind != RM_DURATION && t->kind != RM_COUNT)
		c.prec = t->value == (double)(int64_t)t->value ? 0 : 2;
	return report_cell_text(buf, n, &c, -1, 0);
}

void report_rules_text(FILE *f)
{
	char v[64];
	fprintf(f, "%-16s %-6s %-7s %-11s %s\n", "id", "scope", "side", "status", "doc");
	for (size_t i = 0; i < gs_n_rules; i++) {
		const struct rule *r = &gs_rules[i];
		fprintf(f, "%-16s %-6s %-7s %-11s %s\n", r->id, rule_scope_name(r->scope),
			rule_side_name(r->side), status(r), r->doc);
		char line[1024];
		report_wrap(f, "  fires:", "    ",
			    report_expand(line, sizeof(line), report_tr(r->fires), NULL, NULL));
	}
	fprintf(f, "\n%-20s %-26s %s\n", "threshold", "macro", "value");
	for (unsigned i = 0; i < gs_n_thresholds; i++)
		fprintf(f, "%-20s %-26s %s\n", gs_thresholds[i].name, gs_thresholds[i].macro,
			th_text(v, sizeof(v), &gs_thresholds[i]));
}

void report_rules_json(FILE *f)
{
	char v[64];
	struct json_out j;
	json_out_init(&j, f, 1);
	json_begin_object(&j);
	json_kv_string(&j, "schema", "gpuscope.rules.v1");
	json_key(&j, "rules");
	json_begin_array(&j);
	for (size_t i = 0; i < gs_n_rules; i++) {
		const struct rule *r = &gs_rules[i];
		json_begin_object(&j);
		json_kv_string(&j, "id", r->id);
		json_kv_string(&j, "scope", rule_scope_name(r->scope));
		json_kv_string(&j, "side", rule_side_name(r->side));
		json_kv_string(&j, "status", status(r));
		json_kv_string(&j, "doc", r->doc);
		json_kv_string(&j, "charges", r->charges);
		char line[1024];
		json_kv_string(&j, "fires",
			       report_expand(line, sizeof(line), r->fires, NULL, NULL));
		json_key(&j, "evidence");
		json_begin_array(&j);
		for (int e = 0; e < RULE_MAX_EVIDENCE && r->evidence[e].key; e++) {
			json_begin_object(&j);
			json_kv_string(&j, "key", r->evidence[e].key);
			json_kv_string(&j, "unit", r->evidence[e].unit);
			json_kv_string(&j, "label", r->evidence[e].label);
			json_end_object(&j);
		}
		json_end_array(&j);
		json_end_object(&j);
	}
	json_end_array(&j);
	json_key(&j, "thresholds");
	json_begin_array(&j);
	for (unsigned i = 0; i < gs_n_thresholds; i++) {
		json_begin_object(&j);
		json_kv_string(&j, "name", gs_thresholds[i].name);
		json_kv_string(&j, "macro", gs_thresholds[i].macro);
		json_kv_double(&j, "value", gs_thresholds[i].value);
		json_kv_string(&j, "text", th_text(v, sizeof(v), &gs_thresholds[i]));
		json_end_object(&j);
	}
	json_end_array(&j);
	json_end_object(&j);
	fputc('\n', f);
}
