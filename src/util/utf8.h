/*
 * utf8.h - UTF-8 validation (RFC 3629: no overlong forms, no surrogates,
 * nothing above U+10FFFF), shared by the JSON writer (bytes that are not
 * UTF-8 become U+FFFD) and the PyTorch trace lexer (they are an error).
 */
#ifndef GPUSCOPE_UTF8_H
#define GPUSCOPE_UTF8_H

#include <stddef.h>

/* The length (2-4) of the valid multi-byte sequence at p, whose lead byte
 * is >= 0x80, with at most left bytes readable (a NUL-terminated string
 * may pass SIZE_MAX: its NUL fails as a continuation byte); 0 when it is
 * not one. */
static inline int utf8_seq(const unsigned char *p, size_t left)
{
	unsigned c = p[0];
	int n = c >= 0xc2 && c <= 0xdf	 ? 2
		: c >= 0xe0 && c <= 0xef ? 3
		: c >= 0xf0 && c <= 0xf4 ? 4
					 : 0;
	if (!n || left < (size_t)n)
		return 0;
	for (int i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] > 0x9f) ||
	    (c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] > 0x8f))
		return 0;
	return n;
}

#endif
