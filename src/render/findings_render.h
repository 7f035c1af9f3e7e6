/*
 * findings_render.h - the two forms of a finding list (report/finding.h):
 * text blocks ("[CRITICAL] id: title (impact N%)", evidence, actions) and
 * the JSON array (id, severity, title, impact_pct, evidence, actions).
 * Rendering cannot fail except on write errors (ferror).
 */
#ifndef GPUSCOPE_FINDINGS_RENDER_H
#define GPUSCOPE_FINDINGS_RENDER_H

#include <stdio.h>

#include "report/finding.h"
#include "util/json_out.h"

/* Writes the JSON array of findings (docs/findings.md shape; "device" only in a run of several
 * devices). */
void finding_list_json(struct json_out *j, const struct finding_list *l);
/* Writes findings as text blocks: "[CRITICAL] title (impact N%)", evidence, actions. */
void finding_list_text(FILE *f, const struct finding_list *l);
/* The same, each line wrapped within cols display columns (0: no wrapping); severity and
 * evidence labels are translated (util/i18n.h), English is unchanged. */
void finding_list_text_cols(FILE *f, const struct finding_list *l, size_t cols);
/* Action k of finding i as a text block shows it, into buf (cap: sizeof(title) + 64): its
 * text, or, when an earlier finding has the same action, "as under ID above: " and its first
 * clause (a switch that explains several findings is one paragraph, not one a finding). */
const char *finding_action_block(char *buf, size_t cap, const struct finding_list *l, size_t i,
				 int k);

#endif
