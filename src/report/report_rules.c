/*
 * report_rules.c - `report --list-rules` as a report model (report.h's
 * report_build_rules): the rule table (diagnose/rules.h), each rule with
 * its scope, side, status, doc anchor, the diff categories it charges,
 * when it fires (a template) and the evidence keys it declares, and the
 * thresholds its rules compare against (diagnose/thresholds.h). The
 * renderer (render/report_rules.c) lays them out.
 */
#include <string.h>

#include "diagnose/rules.h"
#include "diagnose/thresholds.h"
#include "report/report_int.h"
#include "util/error.h"

/* the evidence a rule declares (a row: its struct rule_evidence) */
RM_FILL(ev_key, struct rule_evidence, rm_text(x->key))
RM_FILL(ev_unit, struct rule_evidence, rm_text(x->unit))
RM_FILL(ev_label, struct rule_evidence, rm_text(x->label))

static const struct rm_table *evidence(struct report *r, const struct rule *x)
{
	static const struct rm_entry cols[] = {
	    {{.key = "key", .kind = RM_TEXT, .json = 1}, ev_key},
	    {{.key = "unit", .kind = RM_TEXT, .json = 1}, ev_unit},
	    {{.key = "label", .kind = RM_TEXT, .json = 1}, ev_label},
	};
	size_t n = 0;
	while (n < RULE_MAX_EVIDENCE && x->evidence[n].key)
		n++;
	return rm_table_fill_detached(r, RM_TJ_ARRAY, cols, NCOLS(cols), x->evidence,
				      sizeof(*x->evidence), n, NULL);
}

/* a rule */
RM_FILL(ru_id, struct rule, rm_text(x->id))
RM_FILL(ru_scope, struct rule, rm_text(rule_scope_name(x->scope)))
RM_FILL(ru_side, struct rule, rm_text(rule_side_name(x->side)))
RM_FILL(ru_status, struct rule, rm_text(x->run ? "implemented" : "planned"))
RM_FILL(ru_doc, struct rule, rm_text(x->doc))
RM_FILL(ru_charges, struct rule, rm_text(x->charges))
RM_FILL(ru_fires, struct rule, rm_cell_styled(rm_text(x->fires), RM_STYLE_TEMPLATE))
RM_FILL(ru_evidence, struct rule, rm_made(w, rm_sub(evidence(w->r, x))))

/* a threshold: its value, and its name for the cell templates show
 * (report_threshold) */
RM_FILL(th_name, struct threshold, rm_text(x->name))
RM_FILL(th_macro, struct threshold, rm_text(x->macro))
RM_FILL(th_value, struct threshold, rm_num(x->value, 2))

int report_build_rules(struct report *r, char *err)
{
	static const struct rm_entry rules[] = {
	    {{.key = "id", .kind = RM_TEXT, .json = 1}, ru_id},
	    {{.key = "scope", .kind = RM_TEXT, .json = 1}, ru_scope},
	    {{.key = "side", .kind = RM_TEXT, .json = 1}, ru_side},
	    {{.key = "status", .kind = RM_TEXT, .json = 1}, ru_status},
	    {{.key = "doc", .kind = RM_TEXT, .json = 1}, ru_doc},
	    {{.key = "charges", .kind = RM_TEXT, .json = 1}, ru_charges},
	    {{.key = "fires", .kind = RM_TEXT, .json = 1}, ru_fires},
	    {{.key = "evidence", .kind = RM_TABLE, .json = 1}, ru_evidence},
	};
	static const struct rm_entry thresholds[] = {
	    {{.key = "name", .kind = RM_TEXT, .json = 1}, th_name},
	    {{.key = "macro", .kind = RM_TEXT, .json = 1}, th_macro},
	    {{.key = "value", .kind = RM_NUMBER, .json = 1}, th_value},
	};
	memset(r, 0, sizeof(*r));
	struct rm_section *s = rm_section_add(r, "rules", NULL, RM_SJ_OBJECT, "rules", JP_NONE);
	if (!s || !rm_table_fill(r, s, "rules", RM_TJ_ARRAY, rules, NCOLS(rules), gs_rules,
				 sizeof(*gs_rules), gs_n_rules, NULL))
		goto out_release;
	s = rm_section_add(r, "thresholds", NULL, RM_SJ_OBJECT, "thresholds", JP_NONE);
	if (!s || !rm_table_fill(r, s, "thresholds", RM_TJ_ARRAY, thresholds, NCOLS(thresholds),
				 gs_thresholds, sizeof(*gs_thresholds), gs_n_thresholds, NULL))
		goto out_release;
	return 0;
out_release:
	report_release(r);
	return error_set(err, "out of memory");
}
