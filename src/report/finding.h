/*
 * finding.h - one vocabulary of findings for report, diff and doctor: what
 * a finding is, as the report model carries it and the renderers show it
 * (the report layer's, so that render/ reads only report/; diagnose and
 * health make findings through diagnose/finding.h).
 *
 * A finding is what docs/findings.md defines: a stable id from its list, a
 * severity, one plain-sentence title, impact_pct (the share of analysed wall
 * time it explains or could win back; each rule documents its estimate),
 * evidence (named numbers or strings) and actions (most effective first).
 *
 * Invariants: strings are NUL-terminated and truncated, never overflowed;
 * evidence keys are unique within a finding (finding_num/finding_str replace).
 */
#ifndef GPUSCOPE_REPORT_FINDING_H
#define GPUSCOPE_REPORT_FINDING_H

#include <stddef.h>

#include "util/msgfmt.h"

enum severity {
	SEV_INFO = 0,
	SEV_WARNING = 1,
	SEV_CRITICAL = 2,
};

#define FINDING_MAX_EVIDENCE 24
#define FINDING_MAX_ACTIONS 6
/* a title's or an action's bytes with its NUL: the longest English action
 * is ~380 bytes with its arguments, a Chinese one up to twice that in
 * UTF-8 (320 cut five actions short until 2026-12-07) */
#define FINDING_TEXT_MAX 1024

struct evidence {
	char key[48];
	int is_num;
	int unknown; /* a number that could not be measured: null in JSON, ? in text */
	double num;
	char str[256];
};

struct finding {
	char id[32];
	enum severity severity;
	char title[FINDING_TEXT_MAX];
	double impact_pct;
	struct evidence ev[FINDING_MAX_EVIDENCE];
	int n_ev;
	char actions[FINDING_MAX_ACTIONS][FINDING_TEXT_MAX];
	int n_actions;
	int device; /* the device it was found on in a run of several; -1 otherwise */
	/* msgid: the title and actions were made from message ids (English
	 * formats) kept with their arguments, so they are shown in the reader's
	 * language (finding_title); title and actions hold the English. Else
	 * (doctor's, a summary's) they are shown as they stand. */
	int msgid;
	struct msg title_msg, action_msg[FINDING_MAX_ACTIONS];
	/* shown with ROCm's names for CUDA's (advice.c): the title (bit 0),
	 * action k (bit 1 + k) */
	unsigned rocm;
	/* a message id ("%s (estimated ...)") the title is shown within; NULL: none */
	const char *title_wrap;
};

struct finding_list {
	struct finding *v;
	size_t n, cap;
	int msgids; /* the findings added are made from message ids (finding.msgid) */
};

/* "critical", "warning", "info": the JSON's severity. */
static inline const char *severity_name(enum severity s)
{
	return s == SEV_CRITICAL ? "critical" : s == SEV_WARNING ? "warning" : "info";
}
/* The title, and action k, in the reader's language (util/i18n.h), into
 * buf (cap: sizeof(f->title)); returns buf. */
const char *finding_title(char *buf, size_t cap, const struct finding *f);
const char *finding_action_text(char *buf, size_t cap, const struct finding *f, int k);
/* Making findings: diagnose/finding.h; their text and JSON forms:
 * render/findings_render.h. */

#endif
