/*
 * report_format.c - text forms of report cells and the template expansion
 * every renderer shares (report_render.h), so a value looks the same in
 * the text report, a warning in the JSON and (next) the HTML page.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "render/report_render.h"
#include "util/i18n.h"

const char *report_tr(const char *msgid)
{
	/* po/zh_CN.po; English is the msgid itself. Prefixes of spaces or
	 * punctuation ("  ", "#") are not messages: nothing to look up */
	for (const char *p = msgid; p && *p; p++)
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))
			return _(msgid);
	return msgid;
}

/* ns in the unit that suits it; shortest: with the fewest digits ("10 us",
 * for thresholds), else with the digits the unit wants ("12.3 ms"). */
static const char *fmt_ns(char *buf, size_t n, double ns, int shortest)
{
	static const struct {
		double scale;
		int prec;
		const char *unit;
	} u[] = {{1e9, 3, "s"}, {1e6, 2, "ms"}, {1e3, 1, "us"}, {1, 0, "ns"}};
	double a = ns < 0 ? -ns : ns;
	size_t i = 0;
	while (i + 1 < sizeof(u) / sizeof(u[0]) && a < u[i].scale)
		i++;
	char v[64];
	if (shortest)
		snprintf(v, sizeof(v), "%g", ns / u[i].scale);
	else
		snprintf(v, sizeof(v), "%.*f", u[i].prec, ns / u[i].scale);
	snprintf(buf, n, "%s %s", v, u[i].unit);
	return buf;
}

const char *report_fmt_ns(char *buf, size_t n, double ns)
{
	return fmt_ns(buf, n, ns, 0);
}

const char *report_cell_text(char *buf, size_t n, const struct rm_cell *c, int prec, int sign)
{
	int p = prec >= 0 ? prec : c->prec;
	if (!c->valid) {
		snprintf(buf, n, "?");
		return buf;
	}
	switch (c->kind) {
	case RM_DURATION:
		if (c->style == RM_STYLE_SHORT)
			return fmt_ns(buf, n, (double)c->v.i, 1);
		if (c->style == RM_STYLE_SECONDS)
			snprintf(buf, n, "%.*f s", p, (double)c->v.i / 1e9);
		else
			report_fmt_ns(buf, n, (double)c->v.i);
		break;
	case RM_TIMESTAMP:
	case RM_COUNT:
	case RM_BYTES:
		snprintf(buf, n, "%" PRId64, c->v.i);
		break;
	case RM_PERCENT:
		snprintf(buf, n, sign ? "%+.*f%s" : "%.*f%s", p, c->v.d,
			 c->style == RM_STYLE_BARE ? "" : "%");
		break;
	case RM_RATE:
	case RM_NUMBER:
		if (c->style == RM_STYLE_MAGNITUDE && prec < 0)
			p = c->v.d >= 100 ? 0 : c->v.d >= 10 ? 1 : 2;
		if (c->style == RM_STYLE_SIG) {
			snprintf(buf, n, "%.*g", p, c->v.d);
			break;
		}
		snprintf(buf, n, sign || c->style == RM_STYLE_SIGNED ? "%+.*f" : "%.*f", p, c->v.d);
		break;
	case RM_DIMS:
		snprintf(buf, n, "%u,%u,%u", c->v.dims[0], c->v.dims[1], c->v.dims[2]);
		break;
	case RM_TABLE:
		snprintf(buf, n, "(table)");
		break;
	case RM_TEXT:
		if (c->style == RM_STYLE_TEMPLATE)
			return report_expand(buf, n, report_tr(c->v.s), NULL, NULL);
		/* fall through */
	default:
		snprintf(buf, n, "%s", c->v.s ? c->v.s : "");
	}
	return buf;
}

/* The cell a placeholder names: the line's, the section's, or a threshold
 * (held in *tmp). */
static const struct rm_cell *lookup(const char *key, size_t len, const struct rm_line *l,
				    const struct rm_section *s, struct rm_cell *tmp)
{
	if (len > 3 && strncmp(key, "th.", 3) == 0) {
		char name[64];
		snprintf(name, sizeof(name), "%.*s", (int)(len - 3), key + 3);
		if (report_threshold(name, tmp) < 0)
			return NULL;
		return tmp;
	}
	for (int i = 0; l && i < l->n_args; i++)
		if (strlen(l->args[i].key) == len && !strncmp(l->args[i].key, key, len))
			return &l->args[i].c;
	for (size_t i = 0; s && i < s->n_items; i++) {
		const struct rm_field *f = &s->items[i].u.f;
		if (s->items[i].kind == RM_ITEM_FIELD && strlen(f->key) == len &&
		    !strncmp(f->key, key, len))
			return &f->c;
	}
	return NULL;
}

const char *report_expand(char *buf, size_t n, const char *tmpl, const struct rm_line *l,
			  const struct rm_section *s)
{
	size_t o = 0;
	if (!n)
		return buf;
	for (const char *p = tmpl; *p && o + 1 < n;) {
		const char *e = *p == '{' ? strchr(p, '}') : NULL;
		if (!e) {
			buf[o++] = *p++;
			continue;
		}
		const char *colon = memchr(p + 1, ':', (size_t)(e - p - 1));
		size_t klen = (size_t)((colon ? colon : e) - p - 1);
		int sign = 0, prec = -1;
		for (const char *q = colon ? colon + 1 : e; q < e; q++) {
			if (*q == '+')
				sign = 1;
			else if (*q >= '0' && *q <= '9')
				prec = (prec < 0 ? 0 : prec * 10) + (*q - '0');
		}
		struct rm_cell tmp;
		const struct rm_cell *c = lookup(p + 1, klen, l, s, &tmp);
		char v[512];
		if (c)
			report_cell_text(v, sizeof(v), c, prec, sign);
		else
			snprintf(v, sizeof(v), "%.*s", (int)(e - p + 1), p);
		size_t vl = strlen(v);
		if (vl > n - 1 - o)
			vl = n - 1 - o;
		memcpy(buf + o, v, vl);
		o += vl;
		p = e + 1;
	}
	buf[o] = 0;
	return buf;
}
