/*
 * sanitizer_text.c - a pasted compute-sanitizer report (sanitizer_text.h).
 */
#include "health/sanitizer_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the error lines' kinds, as compute-sanitizer's tools print them */
static const char *const kinds[] = {
    "Invalid __global__ read",
    "Invalid __global__ write",
    "Invalid __global__ atomic",
    "Invalid __shared__ read",
    "Invalid __shared__ write",
    "Invalid __shared__ atomic",
    "Invalid __local__ read",
    "Invalid __local__ write",
    "Uninitialized __global__ memory read",
    "Race reported between",
    "Barrier error detected",
    "Misaligned Shared or Local Address",
    "Invalid __global__ address",
    "Out-of-range Shared or Local Address",
};

static const char *find_in(const char *s, const char *e, const char *w)
{
	size_t n = strlen(w);
	return s < e && (size_t)(e - s) >= n ? memmem(s, (size_t)(e - s), w, n) : NULL;
}

/* A decimal with thousands separators ("593,361,581,569") at p. */
static double number_at(const char *p, const char *e)
{
	double v = 0;
	int n = 0;
	for (; p < e && ((*p >= '0' && *p <= '9') || (*p == ',' && n)); p++)
		if (*p != ',' && n < 18) {
			v = v * 10 + (*p - '0');
			n++;
		}
	return n ? v : -1;
}

/* "at KERNEL(params)+0x490 in file.cu:12" or "at 0x3b0 in KERNEL(params)":
 * the function without its parameters, and the file:line after " in ". */
static void location(const char *p, const char *e, struct san_group *g)
{
	const char *at = find_in(p, e, "at ");
	if (!at)
		return;
	at += 3;
	const char *in = NULL;
	for (const char *q = e - 4; q >= at; q--)
		if (!memcmp(q, " in ", 4)) {
			in = q;
			break;
		}
	const char *fs = at, *fe = in ? in : e;
	if (fs + 2 < fe && fs[0] == '0' && fs[1] == 'x' && in) {
		/* "at 0x3b0 in void kern<...>(args)": the function is after " in " */
		fs = in + 4;
		fe = e;
		in = NULL;
	}
	/* drop "(params)" and "+0x..." and a leading return type: the last
	 * identifier-ish run before the first '(' at depth 0 */
	int depth = 0;
	const char *paren = NULL;
	for (const char *q = fs; q < fe; q++) {
		if (*q == '<')
			depth++;
		else if (*q == '>' && depth)
			depth--;
		else if (*q == '(' && !depth) {
			paren = q;
			break;
		}
	}
	const char *ne = paren ? paren : fe;
	while (ne > fs && (ne[-1] == ' ' || ne[-1] == '\r'))
		ne--;
	const char *nb = ne;
	depth = 0;
	while (nb > fs && (depth || nb[-1] != ' ')) {
		if (nb[-1] == '>')
			depth++;
		else if (nb[-1] == '<' && depth)
			depth--;
		nb--;
	}
	const char *plus = find_in(nb, ne, "+0x");
	if (plus)
		ne = plus;
	snprintf(g->func, sizeof(g->func), "%.*s", (int)(ne - nb < 159 ? ne - nb : 159), nb);
	if (in) {
		const char *ws = in + 4, *we = ws;
		while (we < e && *we != ' ' && *we != '\r')
			we++;
		const char *base = ws;
		for (const char *q = ws; q < we; q++)
			if (*q == '/' || *q == '\\')
				base = q + 1;
		snprintf(g->where, sizeof(g->where), "%.*s",
			 (int)(we - base < 127 ? we - base : 127), base);
	}
}

/* number_at as an int: -1 when none, saturated at 1e9 */
static int int_at(const char *p, const char *e)
{
	double v = number_at(p, e);
	return v < 0 ? -1 : v > 1e9 ? 1000000000 : (int)v;
}

static void paren_after(const char *p, const char *e, const char *word, char *out, size_t cap)
{
	const char *q = find_in(p, e, word);
	out[0] = '\0';
	if (!q)
		return;
	q += strlen(word);
	const char *c = memchr(q, ')', (size_t)(e - q));
	if (c && c - q < (long)cap - 1)
		snprintf(out, cap, "%.*s", (int)(c - q + 1), q);
}

int san_text_parse(const char *text, size_t len, struct san_text *s)
{
	const char *end = text + len;
	memset(s, 0, sizeof(*s));
	s->summary = -1;
	const char *sum = find_in(text, end, "ERROR SUMMARY: ");
	if (sum)
		s->summary = int_at(sum + 15, end);
	for (const char *p = text; p < end;) {
		const char *le = memchr(p, '\n', (size_t)(end - p));
		if (!le)
			le = end;
		if (find_in(p, le, "Leaked ") && find_in(p, le, " bytes"))
			s->leaks++;
		int k = -1;
		const char *kp = NULL;
		for (int i = 0; i < (int)(sizeof(kinds) / sizeof(kinds[0])) && k < 0; i++)
			if ((kp = find_in(p, le, kinds[i])))
				k = i;
		if (k < 0) {
			p = le < end ? le + 1 : end;
			continue;
		}
		/* the error's block: up to the next "=========" line that starts
		 * another error, or 12 lines */
		struct san_group g;
		memset(&g, 0, sizeof(g));
		g.distance = g.alloc = -1;
		snprintf(g.kind, sizeof(g.kind), "%s", kinds[k]);
		const char *sz = find_in(kp, le, "of size ");
		if (sz)
			g.size = int_at(sz + 8, le);
		const char *bp = le < end ? le + 1 : end;
		for (int line = 0; line < 12 && bp < end; line++) {
			const char *be = memchr(bp, '\n', (size_t)(end - bp));
			if (!be)
				be = end;
			int other = 0;
			for (int i = 0; i < (int)(sizeof(kinds) / sizeof(kinds[0])); i++)
				other |= find_in(bp, be, kinds[i]) != NULL;
			if (other)
				break;
			const char *x;
			if (!*g.func && find_in(bp, be, "=========     at "))
				location(find_in(bp, be, "at "), be, &g);
			else if ((x = find_in(bp, be, "by thread ")))
				paren_after(x, be, "thread ", g.thread, sizeof(g.thread)),
				    paren_after(x, be, "block ", g.block, sizeof(g.block));
			if (find_in(bp, be, "is misaligned"))
				g.at = SAN_W_MISALIGNED;
			else if (find_in(bp, be, "is out of bounds") && g.at == SAN_W_UNKNOWN)
				g.at = SAN_W_OOB;
			if ((x = find_in(bp, be, "bytes after the nearest allocation")) ||
			    (x = find_in(bp, be, "bytes before the nearest allocation"))) {
				const char *n = find_in(bp, be, "and is ");
				if (n)
					g.distance = number_at(n + 7, be);
				g.at = x[6] == 'a' ? SAN_W_AFTER : SAN_W_BEFORE;
			} else if (find_in(bp, be, "is inside the nearest allocation")) {
				g.at = SAN_W_INSIDE;
			}
			if ((x = find_in(bp, be, "nearest allocation at ")) &&
			    (x = find_in(x, be, " of size ")))
				g.alloc = number_at(x + 9, be);
			bp = be < end ? be + 1 : end;
		}
		s->errors++;
		int i = 0;
		while (i < s->n && (strcmp(s->g[i].kind, g.kind) || strcmp(s->g[i].func, g.func) ||
				    strcmp(s->g[i].where, g.where)))
			i++;
		if (i == s->n && s->n < SAN_GROUPS) {
			g.count = 1;
			s->g[s->n++] = g;
		} else if (i < s->n) {
			struct san_group *o = &s->g[i];
			o->count++;
			if (g.distance > o->distance)
				o->distance = g.distance;
		}
		p = le < end ? le + 1 : end;
	}
	return s->errors > 0 || s->leaks > 0;
}
