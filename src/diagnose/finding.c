/* finding.c - making findings (finding.h): the list, its order, evidence and actions, each with its
 * message id, and the text a reader sees (finding_shown). */
#include "util/vec.h"
#include "diagnose/advice.h"
#include "diagnose/finding.h"
#include "util/i18n.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void finding_list_init(struct finding_list *l)
{
	memset(l, 0, sizeof(*l));
}

void finding_list_release(struct finding_list *l)
{
	int msgids = l->msgids;
	free(l->v);
	memset(l, 0, sizeof(*l));
	l->msgids = msgids; /* what the list is for stays */
}

struct finding *finding_add(struct finding_list *l, const char *id, enum severity sev,
			    const char *fmt, ...)
{
	struct finding *f = VEC_PUSH(l->v, l->n, l->cap);
	if (!f)
		return NULL;
	snprintf(f->id, sizeof(f->id), "%s", id);
	f->severity = sev;
	f->device = -1;
	f->msgid = l->msgids;
	va_list ap;
	va_start(ap, fmt);
	msg_capture(&f->title_msg, fmt, ap);
	vsnprintf(f->title, sizeof(f->title), fmt, ap);
	va_end(ap);
	return f;
}

static struct evidence *ev_slot(struct finding *f, const char *key)
{
	for (int i = 0; i < f->n_ev; i++)
		if (strcmp(f->ev[i].key, key) == 0)
			return &f->ev[i];
	if (f->n_ev == FINDING_MAX_EVIDENCE)
		return NULL;
	struct evidence *e = &f->ev[f->n_ev++];
	memset(e, 0, sizeof(*e));
	snprintf(e->key, sizeof(e->key), "%s", key);
	return e;
}

void finding_num(struct finding *f, const char *key, double v)
{
	struct evidence *e = ev_slot(f, key);
	if (!e)
		return;
	e->is_num = 1;
	e->unknown = 0;
	e->num = v;
}

void finding_num_if(struct finding *f, const char *key, int known, double v)
{
	finding_num(f, key, known ? v : 0);
	struct evidence *e = ev_slot(f, key);
	if (e)
		e->unknown = !known;
}

void finding_str(struct finding *f, const char *key, const char *fmt, ...)
{
	struct evidence *e = ev_slot(f, key);
	if (!e)
		return;
	e->is_num = 0;
	e->unknown = 0;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->str, sizeof(e->str), fmt, ap);
	va_end(ap);
}

void finding_action(struct finding *f, const char *fmt, ...)
{
	if (f->n_actions == FINDING_MAX_ACTIONS)
		return;
	va_list ap;
	va_start(ap, fmt);
	msg_capture(&f->action_msg[f->n_actions], fmt, ap);
	vsnprintf(f->actions[f->n_actions++], sizeof(f->actions[0]), fmt, ap);
	va_end(ap);
}

/* m: fmt with the one argument s (a title to show within it) */
static void wrap_msg(struct msg *m, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	msg_capture(m, fmt, ap);
	va_end(ap);
}

const char *finding_shown(char *buf, size_t cap, const struct finding *f, int k)
{
	const struct msg *m = k < 0 ? &f->title_msg : &f->action_msg[k];
	if (!f->msgid || !m->ok || !i18n_zh()) {
		snprintf(buf, cap, "%s", k < 0 ? f->title : f->actions[k]);
		return buf;
	}
	msg_format(buf, cap, i18n_gettext(m->fmt), m, i18n_gettext); /* shown: now */
	if (f->rocm >> (k + 1) & 1u)
		adv_rocm_text(buf, cap);
	if (k < 0 && f->title_wrap) {
		struct msg *w = malloc(sizeof(*w));
		if (w) {
			wrap_msg(w, f->title_wrap, buf);
			msg_format(buf, cap, i18n_gettext(w->fmt), w, NULL);
			free(w);
		}
	}
	return buf;
}

void finding_title_tr(struct finding *f, const char *s)
{
	msg_mark(&f->title_msg, s);
}

void finding_action_tr(struct finding *f, int k, const char *s)
{
	if (k >= 0 && k < f->n_actions)
		msg_mark(&f->action_msg[k], s);
}

void finding_action_set(struct finding *f, int k, const char *fmt, ...)
{
	if (k < 0 || k >= f->n_actions)
		return;
	va_list ap;
	va_start(ap, fmt);
	msg_capture(&f->action_msg[k], fmt, ap);
	vsnprintf(f->actions[k], sizeof(f->actions[0]), fmt, ap);
	va_end(ap);
}

const struct evidence *finding_get(const struct finding *f, const char *key)
{
	for (int i = 0; i < f->n_ev; i++)
		if (strcmp(f->ev[i].key, key) == 0)
			return &f->ev[i];
	return NULL;
}

static int cmp_finding(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;
	if (x->severity != y->severity)
		return x->severity > y->severity ? -1 : 1;
	if (x->impact_pct != y->impact_pct)
		return x->impact_pct > y->impact_pct ? -1 : 1;
	return strcmp(x->id, y->id);
}

void finding_list_sort(struct finding_list *l)
{
	if (l->n)
		qsort(l->v, l->n, sizeof(*l->v), cmp_finding);
}

const struct finding *finding_primary(const struct finding_list *l)
{
	const struct finding *best = NULL;
	for (size_t i = 0; i < l->n; i++) {
		const struct finding *f = &l->v[i];
		if (!best || f->impact_pct > best->impact_pct ||
		    (f->impact_pct == best->impact_pct && f->severity > best->severity))
			best = f;
	}
	return best;
}

const struct finding *finding_find(const struct finding_list *l, const char *id)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i].id, id) == 0)
			return &l->v[i];
	return NULL;
}
