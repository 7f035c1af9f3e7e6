/*
 * findings.c - findings as text blocks and as the JSON array of PRODUCT.md's
 * shape (render/findings_render.h), for report, diff and doctor alike.
 */
#include <stdio.h>

#include "render/findings_render.h"

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

void finding_list_text(FILE *out, const struct finding_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct finding *f = &l->v[i];
		char sev[16];
		snprintf(sev, sizeof(sev), "%s", severity_name(f->severity));
		for (char *p = sev; *p; p++)
			*p = (char)(*p - 32 * (*p >= 'a' && *p <= 'z'));
		fprintf(out, "[%s] %s: %s", sev, f->id, f->title);
		if (f->impact_pct > 0)
			fprintf(out, " (impact %.1f%%)", f->impact_pct);
		fputc('\n', out);
		for (int e = 0; e < f->n_ev; e++) {
			if (f->ev[e].is_num && f->ev[e].unknown)
				fprintf(out, "    %-28s ?\n", f->ev[e].key);
			else if (f->ev[e].is_num)
				fprintf(out, "    %-28s %.6g\n", f->ev[e].key, f->ev[e].num);
			else
				fprintf(out, "    %-28s %s\n", f->ev[e].key, f->ev[e].str);
		}
		for (int a = 0; a < f->n_actions; a++)
			fprintf(out, "  -> %s\n", f->actions[a]);
		fputc('\n', out);
	}
}
