/*
 * finding.h - making findings (the vocabulary: report/finding.h): a list
 * that rules, doctor's checks and explain append to, evidence and actions,
 * the order findings are shown in and look-ups.
 *
 * Invariants: strings are NUL-terminated and truncated, never overflowed;
 * evidence keys are unique within a finding (finding_num/finding_str replace).
 */
#ifndef GPUSCOPE_FINDING_H
#define GPUSCOPE_FINDING_H

#include "report/finding.h"

/* An empty list; set msgids when the formats given to finding_add and
 * finding_action are message ids (English: shown translated). */
void finding_list_init(struct finding_list *l);
/* Frees the findings; the list stays usable, msgids kept. */
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
/* Marks the word s (a message id) that f's title, or action k, quotes as
 * an argument: shown translated ("context creation"). */
void finding_title_tr(struct finding *f, const char *s);
void finding_action_tr(struct finding *f, int k, const char *s);
/* The title (k -1) or action k in the reader's language (util/i18n.h)
 * into buf: the English as it stands, or, in another language, the
 * message translated and formatted again with its arguments, ROCm's names
 * put in where the English has them (advice.h). Returns buf. The
 * renderers reach it through report/finding.h. */
const char *finding_shown(char *buf, size_t cap, const struct finding *f, int k);
/* Action k (< n_actions) made again from fmt. */
void finding_action_set(struct finding *f, int k, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Looks up evidence by key; NULL when absent. */
const struct evidence *finding_get(const struct finding *f, const char *key);
/* Orders by severity (critical first), then impact_pct descending. */
void finding_list_sort(struct finding_list *l);
/* The finding with the highest impact (ties: higher severity); NULL if none. */
const struct finding *finding_primary(const struct finding_list *l);
/* Finds by id; NULL when absent. */
const struct finding *finding_find(const struct finding_list *l, const char *id);

#endif
