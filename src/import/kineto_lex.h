/*
 * kineto_lex.h - the JSON lexer's pieces that the direct decoder
 * (kineto_direct.c) shares with kineto_lex.c, so that both read a string or
 * a number the same way: the white space and string scans inline (they are
 * the hot loops), the rest in kineto_lex.c.
 */
#ifndef GPUSCOPE_KINETO_LEX_H
#define GPUSCOPE_KINETO_LEX_H

#include <stddef.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

struct klex {
	const char *p, *end;
	char *buf; /* unescaped strings (KEV_NAME_MAX + 16 bytes) */
	size_t cap;
};

static inline int klex_is_ws(unsigned char c)
{
	return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

static inline const char *klex_skip_ws(const char *p, const char *end)
{
	if (p < end && !klex_is_ws((unsigned char)*p))
		return p;
#if defined(__SSE2__)
	/* pretty-printed traces indent every line: runs of spaces */
	const __m128i sp = _mm_set1_epi8(' '), nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'),
		      tb = _mm_set1_epi8('\t');
	while (end - p >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i w =
		    _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(v, nl)),
				 _mm_or_si128(_mm_cmpeq_epi8(v, cr), _mm_cmpeq_epi8(v, tb)));
		unsigned mask = (unsigned)_mm_movemask_epi8(w) ^ 0xffffu;
		if (mask)
			return p + __builtin_ctz(mask);
		p += 16;
	}
#endif
	while (p < end && klex_is_ws((unsigned char)*p))
		p++;
	return p;
}

/* The first byte at or after p that is '"', '\\', a control character or
 * above 0x7f, or end. */
static inline const char *klex_string_stop(const char *p, const char *end)
{
#if defined(__SSE2__)
	const __m128i q = _mm_set1_epi8('"'), b = _mm_set1_epi8('\\'), c = _mm_set1_epi8(0x1f);
	while (end - p >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		/* signed compare: bytes >= 0x80 are negative, so <= 0x1f catches them */
		__m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, b)),
					 _mm_cmpgt_epi8(_mm_add_epi8(c, _mm_set1_epi8(1)), v));
		int mask = _mm_movemask_epi8(m);
		if (mask)
			return p + __builtin_ctz((unsigned)mask);
		p += 16;
	}
#endif
	while (p < end) {
		unsigned char ch = (unsigned char)*p;
		if (ch == '"' || ch == '\\' || ch < 0x20 || ch >= 0x80)
			return p;
		p++;
	}
	return end;
}

/* Reads the string at l->p (at its opening quote); *s and *n get its
 * bytes, unescaped (in l->buf when it had escapes). 0, or -1 when it is not
 * one the lexer takes. */
int kineto_lex_string(struct klex *l, const char **s, size_t *n);
/* A JSON number at l->p (RFC 8259 grammar, followed by white space, ',',
 * '}' or ']'); its text in *s, *n. 0 or -1. */
int kineto_lex_number(struct klex *l, const char **s, size_t *n);

#endif
