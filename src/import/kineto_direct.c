/*
 * kineto_direct.c - the fast path's direct decoder (issue #25): a
 * traceEvents element of the usual shape ({"ph": "X", "cat": "kernel",
 * "name": "...", "pid": N, "tid": N, "ts": 1.5, "dur": 2, "args": {...}})
 * is read from its bytes straight into struct kev, without the lexer's
 * generic tokens and the callbacks' state machine (depth checks, the key
 * compared again at each value). It cut the parse's CPU time by about a
 * third on the 1.09 GB trace (bench/README-report-speed.md, section 6).
 *
 * Invariants:
 *  1. The struct kev handed to kineto_emit is the one the lexer and the
 *     callbacks (kineto_parse.c) would build from the same bytes: strings
 *     and numbers are read by the lexer's own functions (kineto_lex.h), the
 *     fields set by the callbacks' own setters and number rules, members
 *     taken in text order (a repeated key, "ph" after "args": the same
 *     outcome as theirs).
 *  2. Whatever it is not sure of is left to them: it returns 0 and the
 *     lexer drives the callbacks over the element from its '{'. That is a
 *     value of a type the callbacks treat specially or ignore for a known
 *     key (a string pid, a null ts), a number the callbacks would refuse
 *     (they then fail the parse with their message), a counter ('C'), an
 *     instant's numeric args and cuda_profiler_range metrics, nesting
 *     deeper than SKIP_DEPTH below args, and anything malformed.
 *  3. Nothing here allocates or keeps state between elements: a 0 return
 *     leaves p->ev half-filled, which the callbacks reset at the '{'.
 */
#include <stdint.h>
#include <string.h>

#include "import/kineto_int.h"
#include "import/kineto_lex.h"

/* levels of a value skipped below args (the callbacks allow 64 in all) */
#define SKIP_DEPTH 16

/* The byte at the next non-white-space position (l->p moved there), 0 at
 * the end of the text (a NUL byte reads the same: both are refused). */
static inline char peek(struct klex *l)
{
	l->p = klex_skip_ws(l->p, l->end);
	return l->p < l->end ? *l->p : 0;
}

static inline int is_num_start(char c)
{
	return c == '-' || (c >= '0' && c <= '9');
}

/* The string at l->p: without escapes (the common case) in place, else
 * through the lexer (unescaped into l->buf, valid until the next one). */
static inline int str(struct klex *l, const char **s, size_t *n)
{
	const char *p = l->p + 1;
	const char *stop = klex_string_stop(p, l->end);
	if (stop < l->end && *stop == '"') {
		*s = p;
		*n = (size_t)(stop - p);
		l->p = stop + 1;
		return 0;
	}
	return kineto_lex_string(l, s, n);
}

/* "key": with l->p at the value; -1 when the text is not that (or ends
 * there, so that the value's first byte can be read) */
static inline int key(struct klex *l, const char **k, size_t *n)
{
	if (peek(l) != '"' || str(l, k, n) < 0 || peek(l) != ':')
		return -1;
	l->p++;
	return peek(l) ? 0 : -1;
}

/* After a member or element: 1 at the container's close (consumed), 0 at
 * a ',' (consumed), -1 otherwise. */
static inline int next(struct klex *l, char close)
{
	char c = peek(l);
	l->p++;
	return c == close ? 1 : c == ',' ? 0 : -1;
}

static int skip_value(struct klex *l, int depth);

/* An object or array at l->p, validated and ignored. */
static int skip_container(struct klex *l, int depth)
{
	char close = *l->p == '{' ? '}' : ']';
	const char *k;
	size_t n;
	l->p++;
	if (peek(l) == close) {
		l->p++;
		return 0;
	}
	for (;;) {
		if (close == '}' && key(l, &k, &n) < 0)
			return -1;
		if (skip_value(l, depth) < 0)
			return -1;
		int r = next(l, close);
		if (r)
			return r > 0 ? 0 : -1;
	}
}

/* Any JSON value at l->p (the callbacks ignore it), validated. */
static int skip_value(struct klex *l, int depth)
{
	const char *s;
	size_t n;
	char c = peek(l);
	switch (c) {
	case '"':
		return str(l, &s, &n);
	case '{':
	case '[':
		return depth < SKIP_DEPTH ? skip_container(l, depth + 1) : -1;
	case 't':
	case 'f':
	case 'n': {
		const char *w = c == 't' ? "true" : c == 'f' ? "false" : "null";
		size_t wl = strlen(w);
		if ((size_t)(l->end - l->p) < wl || memcmp(l->p, w, wl) != 0)
			return -1;
		l->p += wl;
		return 0;
	}
	default:
		return is_num_start(c) ? kineto_lex_number(l, &s, &n) : -1;
	}
}

/* "grid" or "block": an array of numbers (the callbacks' dims rule) */
static int dims(struct klex *l, uint32_t d[3])
{
	l->p++;
	if (peek(l) == ']') {
		l->p++;
		return 0;
	}
	for (size_t i = 0;; i++) {
		const char *s;
		size_t n;
		int64_t v;
		uint32_t u;
		if (!is_num_start(peek(l)) || kineto_lex_number(l, &s, &n) < 0 ||
		    kineto_parse_i64(s, n, &v) < 0 || v < 0 || kineto_to_u32(v, &u) < 0)
			return -1;
		if (i < 3)
			d[i] = u;
		int r = next(l, ']');
		if (r)
			return r > 0 ? 0 : -1;
	}
}

/* One member of args, l->p at its value. */
static int arg(struct kev *e, struct klex *l, enum akey ak)
{
	const char *s;
	size_t n;
	char c = *l->p;
	if (ak == AK_OTHER && e->cat == CAT_PROFILER_RANGE)
		return -1; /* its metric values: the callbacks' (invariant 2) */
	if (is_num_start(c)) {
		int64_t v;
		if (kineto_lex_number(l, &s, &n) < 0)
			return -1;
		if (ak == AK_OTHER) /* counter and [memory] values: the callbacks' */
			return e->ph == 'C' || e->ph == 'i' ? -1 : 0;
		if (ak == AK_GRID || ak == AK_BLOCK)
			return 0;
		return kineto_parse_i64(s, n, &v) < 0 || kineto_set_arg(e, ak, v) < 0 ? -1 : 0;
	}
	if (c == '"') {
		if (str(l, &s, &n) < 0)
			return -1;
		if (ak == AK_SYNC_KIND)
			kineto_set_sync_kind(e, s, n);
		return 0;
	}
	if (c == '[' && (ak == AK_GRID || ak == AK_BLOCK))
		return dims(l, ak == AK_GRID ? e->grid : e->block);
	return skip_value(l, 0);
}

static int args(struct kev *e, struct klex *l)
{
	l->p++;
	if (peek(l) == '}') {
		l->p++;
		return 0;
	}
	for (;;) {
		const char *k;
		size_t n;
		if (key(l, &k, &n) < 0 ||
		    arg(e, l, kineto_args_key((const unsigned char *)k, n)) < 0)
			return -1;
		int r = next(l, '}');
		if (r)
			return r > 0 ? 0 : -1;
	}
}

/* cb_map_key's event-level keys */
static enum ekey event_key(const char *k, size_t n)
{
	switch (n) {
	case 2:
		return memcmp(k, "ph", 2) == 0	 ? EK_PH
		       : memcmp(k, "ts", 2) == 0 ? EK_TS
		       : memcmp(k, "id", 2) == 0 ? EK_ID
						 : EK_NONE;
	case 3:
		return memcmp(k, "cat", 3) == 0	  ? EK_CAT
		       : memcmp(k, "pid", 3) == 0 ? EK_PID
		       : memcmp(k, "tid", 3) == 0 ? EK_TID
		       : memcmp(k, "dur", 3) == 0 ? EK_DUR
						  : EK_NONE;
	case 4:
		return memcmp(k, "name", 4) == 0   ? EK_NAME
		       : memcmp(k, "args", 4) == 0 ? EK_ARGS
						   : EK_NONE;
	}
	return EK_NONE;
}

/* One member of the event, l->p at its value (scalar()'s event level). */
static int member(struct kev *e, struct klex *l, enum ekey ek)
{
	const char *s;
	size_t n;
	int64_t v;
	char c = *l->p;
	switch (ek) {
	case EK_PH:
	case EK_CAT:
	case EK_NAME:
		if (c != '"' || str(l, &s, &n) < 0)
			return -1;
		if (ek == EK_PH)
			e->ph = n == 1 ? s[0] : '?';
		else if (ek == EK_CAT)
			kineto_set_cat(e, s, n);
		else
			kineto_set_name(e, s, n);
		return 0;
	case EK_PID:
	case EK_TID:
		if (!is_num_start(c) || kineto_lex_number(l, &s, &n) < 0)
			return -1;
		if (kineto_parse_i64(s, n, &v) < 0)
			e->has |= ek == EK_PID ? H_PID_BAD : H_TID_BAD;
		else if (ek == EK_PID)
			e->pid = v, e->has |= H_PID;
		else
			e->tid = v, e->has |= H_TID;
		return 0;
	case EK_TS:
	case EK_DUR:
		if (!is_num_start(c) || kineto_lex_number(l, &s, &n) < 0 ||
		    kineto_parse_us_ns(s, n, &v) < 0)
			return -1;
		if (ek == EK_TS)
			e->ts = v, e->has |= H_TS;
		else
			e->dur = v, e->has |= H_DUR;
		return 0;
	case EK_ID:
		if (!is_num_start(c) || kineto_lex_number(l, &s, &n) < 0)
			return -1;
		if (kineto_parse_i64(s, n, &v) == 0)
			e->id = v, e->has |= H_ID;
		return 0;
	case EK_ARGS:
		return c == '{' ? args(e, l) : -1;
	default:
		return skip_value(l, 0);
	}
}

static int event(struct kev *e, struct klex *l)
{
	l->p++;
	if (peek(l) == '}') {
		l->p++;
		return 0;
	}
	for (;;) {
		const char *k;
		size_t n;
		if (key(l, &k, &n) < 0 || member(e, l, event_key(k, n)) < 0)
			return -1;
		int r = next(l, '}');
		if (r)
			return r > 0 ? 0 : -1;
	}
}

int kineto_direct(struct kparse *p, struct klex *l)
{
	const char *start = l->p;
	kineto_ev_reset(&p->ev);
	if (event(&p->ev, l) < 0) {
		l->p = start;
		return 0;
	}
	p->k->n_direct++;
	return kineto_emit(p->k, &p->ev) ? 1 : -1;
}
