/* wrap.c - column-limited printing of UTF-8 prose (see wrap.h). */
#include <string.h>

#include "util/wrap.h"

/* Decodes one UTF-8 sequence at s; sets *n to its length (1 on bad bytes). */
static unsigned decode(const unsigned char *s, size_t left, size_t *n)
{
	unsigned c = s[0];
	size_t k = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
	if (k > left)
		k = 1;
	if (k == 1) {
		*n = 1;
		return c;
	}
	unsigned v = c & (0x7fu >> k);
	for (size_t i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80) {
			*n = 1;
			return c;
		}
		v = (v << 6) | (s[i] & 0x3f);
	}
	*n = k;
	return v;
}

/* East Asian wide and full-width ranges (Unicode UAX #11, the common blocks). */
static int is_wide(unsigned c)
{
	return (c >= 0x1100 && c <= 0x115f) || (c >= 0x2e80 && c <= 0xa4cf) ||
	       (c >= 0xac00 && c <= 0xd7a3) || (c >= 0xf900 && c <= 0xfaff) ||
	       (c >= 0xfe30 && c <= 0xfe4f) || (c >= 0xff00 && c <= 0xff60) ||
	       (c >= 0xffe0 && c <= 0xffe6) || (c >= 0x20000 && c <= 0x3fffd);
}

size_t wrap_width(const char *s, size_t len)
{
	size_t w = 0, n;
	for (size_t i = 0; i < len; i += n)
		w += is_wide(decode((const unsigned char *)s + i, len - i, &n)) ? 2 : 1;
	return w;
}

/* The next unit to place at s: a run of non-space narrow characters, or one wide
 * character (with any narrow punctuation glued to it); returns its byte length. */
static size_t unit_len(const char *s, size_t left)
{
	size_t i = 0, n;
	unsigned c = decode((const unsigned char *)s, left, &n);
	if (is_wide(c))
		return n;
	while (i < left && s[i] != ' ') {
		c = decode((const unsigned char *)s + i, left - i, &n);
		if (is_wide(c))
			break;
		i += n;
	}
	return i ? i : n;
}

void wrap_print(FILE *f, const char *first, const char *indent, const char *text, size_t cols)
{
	size_t col = wrap_width(first, strlen(first)), ind = wrap_width(indent, strlen(indent));
	size_t left = strlen(text), spaces = 0;
	const char *s = text;
	int line_empty = 1;

	fputs(first, f);
	while (left) {
		if (*s == ' ') {
			spaces++;
			s++;
			left--;
			continue;
		}
		size_t u = unit_len(s, left), w = wrap_width(s, u);
		if (!line_empty && col + spaces + w > cols) {
			fputc('\n', f);
			fputs(indent, f);
			col = ind;
			spaces = 0;
		}
		/* the spaces between two units are kept as written (aligned columns) */
		if (!line_empty || spaces) {
			for (size_t i = 0; i < spaces; i++)
				fputc(' ', f);
			col += spaces;
		}
		spaces = 0;
		fwrite(s, 1, u, f);
		col += w;
		line_empty = 0;
		s += u;
		left -= u;
	}
	fputc('\n', f);
}
