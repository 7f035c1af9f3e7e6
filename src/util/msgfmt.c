/*
 * msgfmt.c - printf calls kept for later (msgfmt.h): a format's conversions
 * parsed once to capture the arguments by type, and again, in the format
 * to show (a translation), to make each conversion with snprintf from the
 * argument it names.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "util/msgfmt.h"

/* One conversion: %[n$][flags][width][.prec][length]conv. */
struct spec {
	int pos; /* n$, 1-based; 0: the next argument */
	char flags[8];
	int width, width_star, width_pos; /* width_star: from an argument (its n$: width_pos) */
	int has_prec, prec, prec_star, prec_pos;
	char len[3];
	char conv;
	size_t n; /* the spec's length after '%' */
};

static int digits(const char **p)
{
	int v = 0;
	while (**p >= '0' && **p <= '9' && v < 100000)
		v = v * 10 + (*(*p)++ - '0');
	return v;
}

/* "n$" at *p: n (advancing past it), else 0 (*p unmoved). */
static int position(const char **p)
{
	const char *q = *p;
	if (*q < '1' || *q > '9')
		return 0;
	int v = digits(&q);
	if (*q != '$')
		return 0;
	*p = q + 1;
	return v;
}

/* Parses the spec after a '%' at p; 0, or -1 when it is none printf knows. */
static int parse(const char *p, struct spec *s)
{
	const char *start = p;
	memset(s, 0, sizeof(*s));
	s->pos = position(&p);
	size_t nf = 0;
	while (*p && strchr("-+ #0'", *p) && nf + 1 < sizeof(s->flags))
		s->flags[nf++] = *p++;
	if (*p == '*') {
		p++;
		s->width_star = 1;
		s->width_pos = position(&p);
	} else {
		s->width = digits(&p);
	}
	if (*p == '.') {
		p++;
		s->has_prec = 1;
		if (*p == '*') {
			p++;
			s->prec_star = 1;
			s->prec_pos = position(&p);
		} else {
			s->prec = digits(&p);
		}
	}
	size_t nl = 0;
	while (*p && strchr("hlLqjzt", *p) && nl + 1 < sizeof(s->len))
		s->len[nl++] = *p++;
	if (!*p || !strchr("diouxXfFeEgGaAscpn", *p))
		return -1;
	s->conv = *p++;
	s->n = (size_t)(p - start);
	return 0;
}

static char kind(const struct spec *s)
{
	switch (s->conv) {
	case 'd':
	case 'i':
		return 'i';
	case 'o':
	case 'u':
	case 'x':
	case 'X':
		return 'u';
	case 's':
		return 's';
	case 'c':
		return 'c';
	case 'p':
		return 'p';
	case 'n':
		return 0;
	default:
		return 'f';
	}
}

static int add(struct msg *m, struct msg_arg a)
{
	if (m->n == MSG_MAX_ARGS)
		return -1;
	m->a[m->n++] = a;
	return 0;
}

/* The next argument of ap for spec s (its length modifier), appended to m. */
static int take(struct msg *m, const struct spec *s, va_list *ap)
{
	struct msg_arg a = {.type = kind(s)};
	const char *l = s->len;
	switch (a.type) {
	case 'i':
		a.v.i = !strcmp(l, "l")			      ? va_arg(*ap, long)
			: !strcmp(l, "ll") || !strcmp(l, "q") ? va_arg(*ap, long long)
			: !strcmp(l, "z")		      ? (long long)va_arg(*ap, ssize_t)
			: !strcmp(l, "j")		      ? (long long)va_arg(*ap, intmax_t)
			: !strcmp(l, "t")		      ? (long long)va_arg(*ap, ptrdiff_t)
							      : va_arg(*ap, int);
		break;
	case 'u':
		a.v.u = !strcmp(l, "l")			      ? va_arg(*ap, unsigned long)
			: !strcmp(l, "ll") || !strcmp(l, "q") ? va_arg(*ap, unsigned long long)
			: !strcmp(l, "z") ? (unsigned long long)va_arg(*ap, size_t)
			: !strcmp(l, "j") ? (unsigned long long)va_arg(*ap, uintmax_t)
			: !strcmp(l, "t") ? (unsigned long long)va_arg(*ap, ptrdiff_t)
					  : va_arg(*ap, unsigned int);
		break;
	case 'f':
		if (!strcmp(l, "L"))
			return -1; /* a long double would lose digits */
		a.v.f = va_arg(*ap, double);
		break;
	case 'c':
		a.v.i = va_arg(*ap, int);
		break;
	case 'p':
		a.v.p = va_arg(*ap, void *);
		break;
	case 's': {
		if (l[0])
			return -1; /* %ls */
		const char *str = va_arg(*ap, const char *);
		if (!str)
			str = "(null)";
		size_t n = strlen(str) + 1;
		if (m->used + n > sizeof(m->pool))
			return -1;
		memcpy(m->pool + m->used, str, n);
		a.v.s = m->used;
		m->used = (uint16_t)(m->used + n);
		break;
	}
	default:
		return -1;
	}
	return add(m, a);
}

void msg_capture(struct msg *m, const char *fmt, va_list ap)
{
	va_list aq;
	va_copy(aq, ap);
	m->fmt = fmt;
	m->n = 0;
	m->used = 0;
	m->ok = fmt != NULL;
	for (const char *p = fmt; m->ok && p && *p; p++) {
		if (*p != '%')
			continue;
		if (p[1] == '%') {
			p++;
			continue;
		}
		struct spec s;
		if (parse(p + 1, &s) < 0 || s.pos || s.width_pos || s.prec_pos) {
			m->ok = 0;
			break;
		}
		struct msg_arg star = {.type = 'i'};
		if (s.width_star) {
			star.v.i = va_arg(aq, int);
			m->ok = add(m, star) == 0;
		}
		if (m->ok && s.prec_star) {
			star.v.i = va_arg(aq, int);
			m->ok = add(m, star) == 0;
		}
		if (m->ok)
			m->ok = take(m, &s, &aq) == 0;
		p += s.n;
	}
	va_end(aq);
}

void msg_mark(struct msg *m, const char *s)
{
	for (int i = 0; s && i < m->n; i++)
		if (m->a[i].type == 's' && strcmp(m->pool + m->a[i].v.s, s) == 0)
			m->a[i].type = 'S';
}

/* The argument at index i of kind k ('S' is an 's'), NULL when there is none. */
static const struct msg_arg *arg(const struct msg *m, int i, char k)
{
	if (i < 0 || i >= m->n)
		return NULL;
	char t = m->a[i].type == 'S' ? 's' : m->a[i].type;
	return t == k ? &m->a[i] : NULL;
}

/* One conversion made with its argument into out (cut to cap); -1 when m
 * has no argument of its kind where the spec looks. */
static int one(char *out, size_t cap, const struct spec *s, const struct msg *m, int *next,
	       const char *(*tr)(const char *))
{
	int width = s->width, prec = s->prec, has_prec = s->has_prec, minus = 0;
	if (s->width_star) {
		const struct msg_arg *w = arg(m, s->width_pos ? s->width_pos - 1 : (*next)++, 'i');
		if (!w)
			return -1;
		width = (int)w->v.i;
		if (width < 0)
			minus = 1, width = -width;
	}
	if (s->prec_star) {
		const struct msg_arg *w = arg(m, s->prec_pos ? s->prec_pos - 1 : (*next)++, 'i');
		if (!w)
			return -1;
		prec = (int)w->v.i;
		has_prec = prec >= 0;
	}
	char k = kind(s);
	const struct msg_arg *a = arg(m, s->pos ? s->pos - 1 : (*next)++, k);
	if (!a)
		return -1;
	char f[48];
	int n = snprintf(f, sizeof(f), "%%%s%s", s->flags, minus ? "-" : "");
	if (width)
		n += snprintf(f + n, sizeof(f) - (size_t)n, "%d", width);
	if (has_prec)
		n += snprintf(f + n, sizeof(f) - (size_t)n, ".%d", prec);
	snprintf(f + n, sizeof(f) - (size_t)n, "%s%c", s->len, s->conv);
	const char *l = s->len;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	switch (k) {
	case 'i':
		if (!strcmp(l, "l"))
			snprintf(out, cap, f, (long)a->v.i);
		else if (!strcmp(l, "ll") || !strcmp(l, "q"))
			snprintf(out, cap, f, a->v.i);
		else if (!strcmp(l, "z"))
			snprintf(out, cap, f, (ssize_t)a->v.i);
		else if (!strcmp(l, "j"))
			snprintf(out, cap, f, (intmax_t)a->v.i);
		else if (!strcmp(l, "t"))
			snprintf(out, cap, f, (ptrdiff_t)a->v.i);
		else
			snprintf(out, cap, f, (int)a->v.i);
		break;
	case 'u':
		if (!strcmp(l, "l"))
			snprintf(out, cap, f, (unsigned long)a->v.u);
		else if (!strcmp(l, "ll") || !strcmp(l, "q"))
			snprintf(out, cap, f, a->v.u);
		else if (!strcmp(l, "z"))
			snprintf(out, cap, f, (size_t)a->v.u);
		else if (!strcmp(l, "j"))
			snprintf(out, cap, f, (uintmax_t)a->v.u);
		else if (!strcmp(l, "t"))
			snprintf(out, cap, f, (ptrdiff_t)a->v.u);
		else
			snprintf(out, cap, f, (unsigned int)a->v.u);
		break;
	case 'f':
		snprintf(out, cap, f, a->v.f);
		break;
	case 's':
		snprintf(out, cap, f,
			 a->type == 'S' && tr ? tr(m->pool + a->v.s) : m->pool + a->v.s);
		break;
	case 'c':
		snprintf(out, cap, f, (int)a->v.i);
		break;
	default:
		snprintf(out, cap, f, a->v.p);
	}
#pragma GCC diagnostic pop
	return 0;
}

const char *msg_format(char *buf, size_t cap, const char *fmt, const struct msg *m,
		       const char *(*tr)(const char *))
{
	size_t o = 0;
	int next = 0;
	if (!cap)
		return buf;
	for (const char *p = fmt; p && *p && o + 1 < cap;) {
		struct spec s;
		if (*p != '%') {
			buf[o++] = *p++;
			continue;
		}
		if (p[1] == '%') {
			buf[o++] = '%';
			p += 2;
			continue;
		}
		char piece[MSG_POOL + 64];
		size_t len;
		if (parse(p + 1, &s) == 0 && one(piece, sizeof(piece), &s, m, &next, tr) == 0) {
			len = strlen(piece);
			p += 1 + s.n;
		} else { /* as it stands: the '%' and what follows it */
			piece[0] = '%';
			piece[1] = 0;
			len = 1;
			p++;
		}
		if (len > cap - 1 - o)
			len = cap - 1 - o;
		memcpy(buf + o, piece, len);
		o += len;
	}
	buf[o] = 0;
	return buf;
}
