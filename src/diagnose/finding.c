/* finding.c - the finding list, its sort order and its JSON and text forms. */
#include "util/vec.h"
#include "diagnose/finding.h"

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
	free(l->v);
	memset(l, 0, sizeof(*l));
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
