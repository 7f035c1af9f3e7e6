/*
 * findings.c - findings as text blocks and as the JSON array of PRODUCT.md's
 * shape (render/findings_render.h), for report, diff and doctor alike.
 */
#include <stdio.h>
#include <string.h>

#include "render/findings_render.h"
#include "util/i18n.h"
#include "util/wrap.h"

void finding_list_json(struct json_out *j, const struct finding_list *l)
{
	json_begin_array(j);
	for (size_t i = 0; i < l->n; i++) {
		const struct finding *f = &l->v[i];
		json_begin_object(j);
		json_kv_string(j, "id", f->id);
		json_kv_string(j, "severity", severity_name(f->severity));
		json_kv_string(j, "title", f->title);
		json_kv_double(j, "impact_pct", f->impact_pct);
		json_key(j, "evidence");
		json_begin_object(j);
		for (int e = 0; e < f->n_ev; e++) {
			json_key(j, f->ev[e].key);
			if (f->ev[e].is_num && f->ev[e].unknown)
				json_null(j);
			else if (f->ev[e].is_num)
				json_double(j, f->ev[e].num);
			else
				json_string(j, f->ev[e].str);
		}
		json_end_object(j);
		json_key(j, "actions");
		json_begin_array(j);
		for (int a = 0; a < f->n_actions; a++)
			json_string(j, f->actions[a]);
		json_end_array(j);
		json_end_object(j);
	}
	json_end_array(j);
}

/* "    LABEL<spaces> ": the label padded to width display columns (it may be Chinese). */
static void padded(char *buf, size_t cap, const char *label, size_t width)
{
	size_t w = wrap_width(label, strlen(label)), n;
	snprintf(buf, cap, "    %s", label);
	n = strlen(buf);
	for (; w < width && n + 2 < cap; w++)
		buf[n++] = ' ';
	if (n + 2 <= cap)
		buf[n++] = ' ';
	buf[n] = 0;
}

void finding_list_text_cols(FILE *out, const struct finding_list *l, size_t cols)
{
	char head[512], val[320], label[160];
	for (size_t i = 0; i < l->n; i++) {
		const struct finding *f = &l->v[i];
		const char *sev = f->severity == SEV_CRITICAL  ? _("CRITICAL")
				  : f->severity == SEV_WARNING ? _("WARNING")
							       : _("INFO");
		int n = snprintf(head, sizeof(head), "[%s] %s: %s", sev, f->id, f->title);
		if (f->impact_pct > 0 && n > 0 && (size_t)n < sizeof(head))
			snprintf(head + n, sizeof(head) - (size_t)n, _(" (impact %.1f%%)"),
				 f->impact_pct);
		if (cols)
			wrap_print(out, "", "    ", head, cols);
		else
			fprintf(out, "%s\n", head);
		for (int e = 0; e < f->n_ev; e++) {
			/* evidence keys are JSON keys; text shows them translated */
			padded(label, sizeof(label), C_("evidence", f->ev[e].key), 28);
			if (f->ev[e].is_num && f->ev[e].unknown)
				snprintf(val, sizeof(val), "?");
			else if (f->ev[e].is_num)
				snprintf(val, sizeof(val), "%.6g", f->ev[e].num);
			else
				snprintf(val, sizeof(val), "%s", f->ev[e].str);
			if (cols)
				wrap_print(out, label, "                                 ", val,
					   cols);
			else
				fprintf(out, "%s%s\n", label, val);
		}
		for (int a = 0; a < f->n_actions; a++) {
			if (cols)
				wrap_print(out, "  -> ", "     ", f->actions[a], cols);
			else
				fprintf(out, "  -> %s\n", f->actions[a]);
		}
		fputc('\n', out);
	}
}

void finding_list_text(FILE *out, const struct finding_list *l)
{
	finding_list_text_cols(out, l, 0);
}
