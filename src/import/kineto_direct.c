/*
 * kineto_direct.c - the fast path's direct decoder (issue #25): a
 * traceEvents element of the usual shape ({"ph": "X", "cat": "kernel",
 * "name": "...", "pid": N, "tid": N, "ts": 1.5, "dur": 2, "args": {...}})
 * is read from its bytes straight into struct kev, without the lexer's
 * generic tokens and the callbacks' state machine (depth checks, the key
 * compared again at each value). It cut the parse's CPU time by about 40%
 * on the 1.09 GB trace (bench/README-report-speed.md, section 6).
 *
 * Invariants:
 *  1. The struct kev handed to kineto_emit is the one the lexer and the
 *     callbacks (kineto_parse.c) would build from the same bytes: strings
 *     are read by the lexer's own function (kineto_lex.h), numbers by its
 *     grammar (num()) and converted by the callbacks' number rules, or for
 *     their common forms from the digits' values with the same result
 *     (tests/import/test_kineto_fast.c, direct_numbers), the fields set by
 *     the callbacks' own setters, members taken in text order (a repeated
 *     key, "ph" after "args": the same outcome as theirs).
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
 * the end of the text (a NUL byte reads the same: both are refused). No
 * space and one space (after ':' and ',') are the usual cases. */
static inline __attribute__((always_inline)) char peek(struct klex *l)
{
	const char *p = l->p;
	if (l->end - p >= 2) {
		if (!klex_is_ws((unsigned char)p[0]))
			return p[0];
		if (p[0] == ' ' && !klex_is_ws((unsigned char)p[1]))
			return *(l->p = p + 1);
	}
	l->p = klex_skip_ws(p, l->end);
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

/* A number as kineto_lex_number reads it (the same grammar and end), with
 * the values of its parts so that the usual forms need no second pass. */
struct num {
	const char *s;
	size_t n;
	uint64_t ip, frac; /* integer and fraction digits' values (up to 19 digits) */
	int nip, nf, neg, exp;
};

static inline int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* The value of 8 ASCII digits, the first in the low byte (three multiplies
 * instead of eight dependent steps; the known SWAR reduction, as in
 * fast_float's parse_eight_digits_unrolled). */
static inline uint64_t eight_digits(uint64_t w)
{
	w = (w & 0x0F0F0F0F0F0F0F0FULL) * 2561 >> 8;
	w = (w & 0x00FF00FF00FF00FFULL) * 6553601 >> 16;
	return (w & 0x0000FFFF0000FFFFULL) * 42949672960001ULL >> 32;
}
#endif

/* The run of digits at p: *v = *v * 10^k + their value (wrapping past 19
 * digits: the callers use it only below that), *count += k. Returns the
 * first byte after the run. Eight bytes a step where the text allows. */
static inline const char *digits(const char *p, const char *end, uint64_t *v, int *count)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	static const uint64_t pow10[] = {1,	 10,	  100,	    1000,     10000,
					 100000, 1000000, 10000000, 100000000};
	while (end - p >= 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		/* a byte is a digit when it is 0x30..0x39: xor 0x30 leaves 0..9,
		 * whose high nibble stays clear with 6 added; a carry out of a
		 * byte only comes from a non-digit, so only bytes after the first
		 * non-digit can be misread, and they are not used */
		uint64_t x = w ^ 0x3030303030303030ULL;
		uint64_t nd = (x | (x + 0x0606060606060606ULL)) & 0xF0F0F0F0F0F0F0F0ULL;
		int k = nd ? __builtin_ctzll(nd) / 8 : 8;
		if (k == 0)
			return p;
		*v = *v * pow10[k] + eight_digits(k == 8 ? w : w << (8 * (8 - k)));
		*count += k;
		p += k;
		if (k < 8)
			return p;
	}
#endif
	for (; p < end && is_digit(*p); p++, (*count)++)
		*v = *v * 10 + (uint64_t)(*p - '0');
	return p;
}

static inline __attribute__((always_inline)) int num(struct klex *l, struct num *x)
{
	const char *p = l->p, *end = l->end;
	x->s = p;
	x->neg = p < end && *p == '-';
	p += x->neg;
	x->ip = x->frac = 0;
	x->nip = x->nf = x->exp = 0;
	if (p >= end || !is_digit(*p))
		return -1;
	if (*p == '0') {
		p++;
		x->nip = 1;
	} else {
		p = digits(p, end, &x->ip, &x->nip);
	}
	if (p < end && *p == '.') {
		p = digits(p + 1, end, &x->frac, &x->nf);
		if (!x->nf)
			return -1;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		x->exp = 1;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		const char *d = p;
		while (p < end && is_digit(*p))
			p++;
		if (p == d)
			return -1;
	}
	if (p < end && !klex_is_ws((unsigned char)*p) && *p != ',' && *p != '}' && *p != ']')
		return -1;
	x->n = (size_t)(p - x->s);
	l->p = p;
	return 0;
}

/* kineto_parse_i64 of the number: its first case (an integer of fewer than
 * 19 characters) from the parts, the rest by the function itself */
static inline int num_i64(const struct num *x, int64_t *v)
{
	if (!x->nf && !x->exp && x->n < 19) {
		*v = x->neg ? -(int64_t)x->ip : (int64_t)x->ip;
		return 0;
	}
	return kineto_parse_i64(x->s, x->n, v);
}

/* kineto_parse_us_ns of the number: up to 15 integer and 3 fraction digits
 * (no rounding, no overflow) from the parts, the rest by the function */
static inline int num_us_ns(const struct num *x, int64_t *v)
{
	static const uint64_t scale[] = {1000, 100, 10, 1};
	if (!x->exp && x->nip <= 15 && x->nf <= 3) {
		int64_t ns = (int64_t)(x->ip * 1000 + x->frac * scale[x->nf]);
		*v = x->neg ? -ns : ns;
		return 0;
	}
	return kineto_parse_us_ns(x->s, x->n, v);
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
	default: {
		struct num x;
		return num(l, &x);
	}
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
		struct num x;
		int64_t v;
		uint32_t u;
		/* a fraction, an exponent or a fourth dimension: the callbacks'
		 * (they refuse it) */
		if (!peek(l) || num(l, &x) < 0 || x.nf || x.exp || i >= 3 || num_i64(&x, &v) < 0 ||
		    v < 0 || kineto_to_u32(v, &u) < 0)
			return -1;
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
	if (ak == AK_IN_DIMS) {
		if (kineto_shape_op(e))
			return -1; /* the few ops whose shapes are kept: the callbacks' */
		ak = AK_OTHER;	   /* any other op's: an arg like the rest */
	}
	if (ak == AK_OTHER && e->cat == CAT_PROFILER_RANGE)
		return -1; /* its metric values: the callbacks' (invariant 2) */
	if (is_num_start(c)) {
		struct num x;
		int64_t v;
		if (num(l, &x) < 0)
			return -1;
		if (ak == AK_OTHER) /* counter and [memory] values: the callbacks' */
			return e->ph == 'C' || e->ph == 'i' ? -1 : 0;
		if (ak == AK_GRID || ak == AK_BLOCK)
			return 0;
		return num_i64(&x, &v) < 0 || kineto_set_arg(e, ak, v) < 0 ? -1 : 0;
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

/* An event-level key as kineto spells it, `"ph": ` (quotes, colon and one
 * space), matched whole: l->p moved past it and its kind returned; -1 (l->p
 * unchanged) for anything else, which is then read the general way. The
 * same position and kind as key() and event_key() give, in fewer steps. */
static inline int known_key(struct klex *l)
{
	const char *p = l->p;
	if (l->end - p < 8)
		return -1;
#define KNOWN(lit, ek)                                                                             \
	do {                                                                                       \
		if (memcmp(p, lit, sizeof(lit) - 1) == 0) {                                        \
			l->p = p + sizeof(lit) - 1;                                                \
			return ek;                                                                 \
		}                                                                                  \
	} while (0)
	switch (p[1]) {
	case 'p':
		KNOWN("\"ph\": ", EK_PH);
		KNOWN("\"pid\": ", EK_PID);
		break;
	case 't':
		KNOWN("\"ts\": ", EK_TS);
		KNOWN("\"tid\": ", EK_TID);
		break;
	case 'c':
		KNOWN("\"cat\": ", EK_CAT);
		break;
	case 'n':
		KNOWN("\"name\": ", EK_NAME);
		break;
	case 'd':
		KNOWN("\"dur\": ", EK_DUR);
		break;
	case 'a':
		KNOWN("\"args\": ", EK_ARGS);
		break;
	case 'i':
		KNOWN("\"id\": ", EK_ID);
		break;
	}
#undef KNOWN
	return -1;
}

/* One member of the event, l->p at its value (scalar()'s event level). */
static int member(struct kev *e, struct klex *l, enum ekey ek)
{
	const char *s;
	size_t n;
	struct num x;
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
		if (!is_num_start(c) || num(l, &x) < 0)
			return -1;
		if (num_i64(&x, &v) < 0)
			e->has |= ek == EK_PID ? H_PID_BAD : H_TID_BAD;
		else if (ek == EK_PID)
			e->pid = v, e->has |= H_PID;
		else
			e->tid = v, e->has |= H_TID;
		return 0;
	case EK_TS:
	case EK_DUR:
		if (!is_num_start(c) || num(l, &x) < 0 || num_us_ns(&x, &v) < 0)
			return -1;
		if (ek == EK_TS)
			e->ts = v, e->has |= H_TS;
		else
			e->dur = v, e->has |= H_DUR;
		return 0;
	case EK_ID:
		if (!is_num_start(c) || num(l, &x) < 0)
			return -1;
		if (num_i64(&x, &v) == 0)
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
		int ek = peek(l) == '"' ? known_key(l) : -1;
		if (ek >= 0) {
			if (!peek(l))
				return -1;
		} else if (key(l, &k, &n) < 0) {
			return -1;
		} else {
			ek = (int)event_key(k, n);
		}
		if (member(e, l, (enum ekey)ek) < 0)
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
