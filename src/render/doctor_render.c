/*
 * doctor_render.c - doctor's text and JSON (gpuscope.doctor.v1,
 * docs/doctor.md) forms of a struct doctor_report (health/doctor.h).
 */
#include <stdio.h>

#include "render/doctor_render.h"
#include "render/findings_render.h"
#include "util/json_out.h"

void doctor_print_text(FILE *f, const struct doctor_report *r)
{
	fprintf(f, "checks:\n");
	for (int i = 0; i < r->n_checks; i++)
		fprintf(f, "  %-8s %-22s %s\n", check_status_name(r->checks[i].status),
			r->checks[i].name, r->checks[i].detail);
	fprintf(f, "\nfindings:\n");
	if (r->findings.n == 0)
		fprintf(f, "  none\n");
	else
		finding_list_text(f, &r->findings);
}

void doctor_print_json(FILE *f, const struct doctor_report *r)
{
	struct json_out j;
	json_out_init(&j, f, 1);
	json_begin_object(&j);
	json_kv_string(&j, "schema", "gpuscope.doctor.v1");
	json_key(&j, "checks");
	json_begin_array(&j);
	for (int i = 0; i < r->n_checks; i++) {
		json_begin_object(&j);
		json_kv_string(&j, "name", r->checks[i].name);
		json_kv_string(&j, "status", check_status_name(r->checks[i].status));
		json_kv_string(&j, "detail", r->checks[i].detail);
		json_end_object(&j);
	}
	json_end_array(&j);
	json_key(&j, "findings");
	finding_list_json(&j, &r->findings);
	json_end_object(&j);
	fputc('\n', f);
}
