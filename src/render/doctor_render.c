/*
 * doctor_render.c - doctor's text and JSON (gpuscope.doctor.v1,
 * docs/doctor.md) forms of a struct doctor_report (health/doctor.h).
 */
#include <stdio.h>
#include <string.h>

#include "render/doctor_render.h"
#include "render/findings_render.h"
#include "util/i18n.h"
#include "util/json_out.h"
#include "util/wrap.h"

static const char *status_label(enum check_status st)
{
	switch (st) {
	case CHECK_OK:
		return _("ok");
	case CHECK_WARNING:
		return _("warning");
	case CHECK_FAIL:
		return _("fail");
	default:
		return _("skipped");
	}
}

#define DOCTOR_COLS 100

/* The evidence keys doctor's findings carry, marked for translation (finding.c
 * prints C_("evidence", key)); JSON keeps the keys themselves. */
static const char *const evidence_keys[] __attribute__((unused)) = {
    NC_("evidence", "proc_version"),
    NC_("evidence", "nvml"),
    NC_("evidence", "nvml_devices"),
    NC_("evidence", "CUDA_VISIBLE_DEVICES"),
    NC_("evidence", "NVIDIA_VISIBLE_DEVICES"),
    NC_("evidence", "driver_cuda"),
    NC_("evidence", "runtime_cuda"),
    NC_("evidence", "runtime"),
    NC_("evidence", "min_driver"),
    NC_("evidence", "source"),
    NC_("evidence", "torch_version_cuda"),
    NC_("evidence", "binary"),
    NC_("evidence", "archs"),
    NC_("evidence", "gpu_arch"),
    NC_("evidence", "reasons"),
    NC_("evidence", "thermal_violation_ms"),
    NC_("evidence", "temp_c"),
    NC_("evidence", "power_violation_ms"),
    NC_("evidence", "cur_gen"),
    NC_("evidence", "max_gen"),
    NC_("evidence", "cur_width"),
    NC_("evidence", "max_width"),
    NC_("evidence", "replay_counter"),
    NC_("evidence", "corrected"),
    NC_("evidence", "uncorrected"),
    NC_("evidence", "uncorrectable_rows"),
    NC_("evidence", "pending"),
    NC_("evidence", "failure"),
    NC_("evidence", "processes"),
    NC_("evidence", "first_pid"),
    NC_("evidence", "code"),
    NC_("evidence", "pci"),
    NC_("evidence", "count"),
    NC_("evidence", "first"),
    NC_("evidence", "last"),
    NC_("evidence", "process"),
    NC_("evidence", "mig"),
    NC_("evidence", "line"),
    NC_("evidence", "mnemonic"),
    NC_("evidence", "meaning"),
    NC_("evidence", "cause"),
    NC_("evidence", "nvidia_action"),
};

void doctor_print_text(FILE *f, const struct doctor_report *r)
{
	char first[128];
	fprintf(f, "%s\n", _("checks:"));
	for (int i = 0; i < r->n_checks; i++) {
		const char *st = status_label(r->checks[i].status);
		/* pad by display columns: Chinese labels are two columns a character */
		size_t w = wrap_width(st, strlen(st));
		snprintf(first, sizeof(first), "  %s%*s %-22s ", st, w < 8 ? (int)(8 - w) : 0, "",
			 r->checks[i].name);
		wrap_print(f, first, "                                  ", r->checks[i].detail,
			   DOCTOR_COLS);
	}
	fprintf(f, "\n%s\n", _("findings:"));
	if (r->findings.n == 0)
		fprintf(f, "  %s\n", _("none"));
	else
		finding_list_text_cols(f, &r->findings, DOCTOR_COLS);
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
