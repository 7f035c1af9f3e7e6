/*
 * finding.h - one vocabulary of findings for report, diff and doctor.
 *
 * A finding is what docs/findings.md defines: a stable id from its list, a
 * severity, one plain-sentence title, impact_pct (the share of analysed wall
 * time it explains or could win back; each rule documents its estimate),
 * evidence (named numbers or strings) and actions (most effective first).
 *
 * Invariants: strings are NUL-terminated and truncated, never overflowed;
 * evidence keys are unique within a finding (finding_num/finding_str replace).
 */
#ifndef GPUSCOPE_FINDING_H
#define GPUSCOPE_FINDING_H

#include <stddef.h>

#include "util/json_out.h"

enum severity {
	SEV_INFO = 0,
	SEV_WARNING = 1,
	SEV_CRITICAL = 2,
};

#define FINDING_MAX_EVIDENCE 24
#define FINDING_MAX_ACTIONS 6

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
	char title[320];
	double impact_pct;
	struct evidence ev[FINDING_MAX_EVIDENCE];
	int n_ev;
	char actions[FINDING_MAX_ACTIONS][320];
	int n_actions;
	int device; /* the device it was found on in a run of several; -1 otherwise */
};

struct finding_list {
	struct finding *v;
	size_t n, cap;
};

void finding_list_init(struct finding_list *l);
void finding_list_release(struct finding_list *l);
/* Appends a finding with id, severity and a printf title; NULL when out of memory. */
struct finding *finding_add(struct finding_list *l, const char *id, enum severity sev,
			    const char *title_fmt, ...) __attribute__((format(printf, 4, 5)));
void finding_num(struct finding *f, const char *key, double v);
/* finding_num when known, else the key with an unknown value. */
void finding_num_if(struct finding *f, const char *key, int known, double v);
void finding_str(struct finding *f, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void finding_action(struct finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Looks up evidence by key; NULL when absent. */
const struct evidence *finding_get(const struct finding *f, const char *key);
/* Orders by severity (critical first), then impact_pct descending. */
void finding_list_sort(struct finding_list *l);
/* The finding with the highest impact (ties: higher severity); NULL if none. */
const struct finding *finding_primary(const struct finding_list *l);
/* Finds by id; NULL when absent. */
const struct finding *finding_find(const struct finding_list *l, const char *id);

const char *severity_name(enum severity s);
/* Their text and JSON forms: render/findings_render.h. */

#endif
