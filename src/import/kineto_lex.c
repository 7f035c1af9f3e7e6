/*
 * kineto_lex.c - a fast JSON tokenizer over complete text, calling the same
 * yajl callbacks as yajl would (kineto_parse.c's state machine), so that
 * what an event means is decided in one place whichever parser read it.
 *
 * It is at least as strict as yajl (kineto_int.h, invariant of the fast
 * path): anything yajl would reject is rejected here too, and what this
 * does not handle (a \u escape it cannot decode exactly as yajl does, a
 * number form it is unsure of) is refused, so the caller falls back to
 * yajl, which then gives the canonical answer or error. Strings are
 * scanned 16 bytes a step (SSE2) for the quote, the backslash, control
 * characters and bytes above 0x7f; only strings with the last two go
 * through the slow path (escapes, UTF-8 validation).
 */
#include <stdint.h>
#include <string.h>

#include "import/kineto_int.h"
#include "import/kineto_lex.h"
#include "util/utf8.h"

#define LEX_MAX_DEPTH 128

static int hex4(const char *p, unsigned *v)
{
	unsigned x = 0;
	for (int i = 0; i < 4; i++) {
		char c = p[i];
		x <<= 4;
		if (c >= '0' && c <= '9')
			x |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			x |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			x |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	*v = x;
	return 0;
}

/* Reads the string at l->p (at its opening quote); *s and *n get its
 * bytes, unescaped. 0, or -1 when it is not one this lexer takes. */
int kineto_lex_string(struct klex *l, const char **s, size_t *n)
{
	const char *p = l->p + 1, *end = l->end;
	const char *stop = klex_string_stop(p, end);
	if (stop < end && *stop == '"') {
		*s = p;
		*n = (size_t)(stop - p);
		l->p = stop + 1;
		return 0;
	}
	/* the slow way: escapes and UTF-8 into l->buf */
	size_t o = 0;
	while (p < end) {
		unsigned char c = (unsigned char)*p;
		if (o + 8 > l->cap)
			return -1; /* longer than any field keeps: yajl's turn */
		if (c == '"') {
			*s = l->buf;
			*n = o;
			l->p = p + 1;
			return 0;
		}
		if (c < 0x20)
			return -1;
		if (c < 0x80 && c != '\\') {
			l->buf[o++] = (char)c;
			p++;
			continue;
		}
		if (c >= 0x80) {
			int k = utf8_seq((const unsigned char *)p, (size_t)(end - p));
			if (!k)
				return -1;
			memcpy(l->buf + o, p, (size_t)k);
			o += (size_t)k;
			p += k;
			continue;
		}
		if (end - p < 2)
			return -1;
		char e = p[1];
		const char *map = strchr("\"\\/bfnrt", e);
		if (e && map) {
			static const char out[] = "\"\\/\b\f\n\r\t";
			l->buf[o++] = out[map - "\"\\/bfnrt"];
			p += 2;
			continue;
		}
		unsigned u;
		if (e != 'u' || end - p < 6 || hex4(p + 2, &u) < 0)
			return -1;
		/* only what yajl decodes the same way: no surrogates, no NUL */
		if (u == 0 || (u >= 0xd800 && u <= 0xdfff))
			return -1;
		if (u < 0x80) {
			l->buf[o++] = (char)u;
		} else if (u < 0x800) {
			l->buf[o++] = (char)(0xc0 | (u >> 6));
			l->buf[o++] = (char)(0x80 | (u & 0x3f));
		} else {
			l->buf[o++] = (char)(0xe0 | (u >> 12));
			l->buf[o++] = (char)(0x80 | ((u >> 6) & 0x3f));
			l->buf[o++] = (char)(0x80 | (u & 0x3f));
		}
		p += 6;
	}
	return -1;
}

/* A JSON number at l->p (RFC 8259 grammar); its text in *s, *n. */
int kineto_lex_number(struct klex *l, const char **s, size_t *n)
{
	const char *p = l->p, *end = l->end;
	if (p < end && *p == '-')
		p++;
	if (p >= end)
		return -1;
	if (*p == '0') {
		p++;
	} else if (*p >= '1' && *p <= '9') {
		while (p < end && *p >= '0' && *p <= '9')
			p++;
	} else {
		return -1;
	}
	if (p < end && *p == '.') {
		p++;
		const char *d = p;
		while (p < end && *p >= '0' && *p <= '9')
			p++;
		if (p == d)
			return -1;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		const char *d = p;
		while (p < end && *p >= '0' && *p <= '9')
			p++;
		if (p == d)
			return -1;
	}
	if (p < end && !klex_is_ws((unsigned char)*p) && *p != ',' && *p != '}' && *p != ']')
		return -1;
	*s = l->p;
	*n = (size_t)(p - l->p);
	l->p = p;
	return 0;
}

int kineto_lex(const char *text, size_t len, int mode, const yajl_callbacks *cb, void *ctx,
	       char *buf, size_t cap, size_t *stop)
{
	struct klex l = {text, text + len, buf, cap};
	/* stack of open containers: 1 object, 2 array; mode 2 starts inside an
	 * object whose braces the text does not hold */
	unsigned char stack[LEX_MAX_DEPTH];
	int direct = (mode & KLEX_DIRECT) != 0;
	mode &= ~KLEX_DIRECT;
	int sp = 0, base = 0, list = mode == KLEX_LIST;
	/* expect: 0 a value, 1 a key or '}' (object just opened), 2 ',' or the
	 * container's end, 3 a key (after ','), 4 ':' */
	int expect = 0, values = 0;
	if (stop)
		*stop = SIZE_MAX;
	if (mode == KLEX_MEMBERS) {
		stack[sp++] = 1;
		base = 1;
		expect = 3;
	}
	for (;;) {
		l.p = klex_skip_ws(l.p, l.end);
		if (l.p >= l.end)
			break;
		char c = *l.p;
		const char *s;
		size_t n;
		if (expect == 2) {
			if (c == ',') {
				l.p++;
				expect = sp == 0 ? 0 : stack[sp - 1] == 1 ? 3 : 0;
				if (sp == 0 && !list)
					return -1;
				continue;
			}
			if (sp == 0 && c == ']' && stop) {
				/* the end of the array the list is in: the caller goes on */
				*stop = (size_t)(l.p - text);
				return 0;
			}
			if (sp > base && c == (stack[sp - 1] == 1 ? '}' : ']')) {
				l.p++;
				if (!(stack[--sp] == 1 ? cb->yajl_end_map(ctx)
						       : cb->yajl_end_array(ctx)))
					return -1;
				expect = 2;
				continue;
			}
			return -1;
		}
		if (expect == 1 || expect == 3) {
			if (expect == 1 && c == '}') {
				l.p++;
				sp--;
				if (!cb->yajl_end_map(ctx))
					return -1;
				expect = 2;
				continue;
			}
			if (c != '"' || kineto_lex_string(&l, &s, &n) < 0 ||
			    !cb->yajl_map_key(ctx, (const unsigned char *)s, n))
				return -1;
			expect = 4;
			continue;
		}
		if (expect == 4) {
			if (c != ':')
				return -1;
			l.p++;
			expect = 0;
			continue;
		}
		/* a value */
		if (sp == 0 && values++ && !list)
			return -1;
		if (direct && sp == 0 && c == '{') {
			/* a traceEvents element: straight into the event when it can */
			int r = kineto_direct(ctx, &l);
			if (r < 0)
				return -1;
			if (r > 0) {
				expect = 2;
				continue;
			}
		}
		switch (c) {
		case '{':
		case '[':
			if (sp == LEX_MAX_DEPTH)
				return -1;
			stack[sp++] = c == '{' ? 1 : 2;
			l.p++;
			if (!(c == '{' ? cb->yajl_start_map(ctx) : cb->yajl_start_array(ctx)))
				return -1;
			expect = c == '{' ? 1 : 0;
			if (c == '[') {
				/* an empty array */
				const char *q = klex_skip_ws(l.p, l.end);
				if (q < l.end && *q == ']') {
					l.p = q + 1;
					sp--;
					if (!cb->yajl_end_array(ctx))
						return -1;
					expect = 2;
				}
			}
			continue;
		case '"':
			if (kineto_lex_string(&l, &s, &n) < 0 ||
			    !cb->yajl_string(ctx, (const unsigned char *)s, n))
				return -1;
			break;
		case 't':
		case 'f':
		case 'n': {
			const char *w = c == 't' ? "true" : c == 'f' ? "false" : "null";
			size_t wl = strlen(w);
			if ((size_t)(l.end - l.p) < wl || memcmp(l.p, w, wl) != 0)
				return -1;
			l.p += wl;
			if (!(c == 'n' ? cb->yajl_null(ctx) : cb->yajl_boolean(ctx, c == 't')))
				return -1;
			break;
		}
		default:
			if (kineto_lex_number(&l, &s, &n) < 0 || !cb->yajl_number(ctx, s, n))
				return -1;
			break;
		}
		expect = 2;
	}
	return sp == base && expect == 2 ? 0 : -1;
}
