/*
 * textsafe.c - control characters out of printed data (textsafe.h).
 */
#include "util/textsafe.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int is_c0(unsigned char c, int keep_lines)
{
	if (keep_lines && (c == '\n' || c == '\t'))
		return 0;
	return c < 0x20 || c == 0x7f;
}

void textsafe_str(char *s)
{
	for (unsigned char *p = (unsigned char *)s; *p; p++) {
		if (is_c0(*p, 0))
			*p = '?';
		else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
			p[0] = p[1] = '?', p++;
	}
}

struct filter {
	int pending_c2; /* the last byte written was 0xc2 (a C1 may follow) */
};

static int write_all(const char *b, size_t n)
{
	while (n) {
		ssize_t w = write(STDOUT_FILENO, b, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

static ssize_t filter_write(void *cookie, const char *buf, size_t n)
{
	struct filter *f = cookie;
	char out[1 << 16];
	size_t o = 0, i = 0;
	if (f->pending_c2 && n) {
		unsigned char c = (unsigned char)buf[0];
		if (c >= 0x80 && c <= 0x9f) { /* a C1 split across two writes */
			out[o++] = '?';
			out[o++] = '?';
			i = 1;
		} else {
			out[o++] = (char)0xc2;
		}
		f->pending_c2 = 0;
	}
	for (; i < n; i++) {
		unsigned char c = (unsigned char)buf[i];
		if (o + 2 > sizeof(out)) {
			if (write_all(out, o) < 0)
				return -1;
			o = 0;
		}
		if (c == 0xc2 && i + 1 == n) {
			f->pending_c2 = 1; /* decided with the next write */
			continue;
		}
		if (c == 0xc2 && (unsigned char)buf[i + 1] >= 0x80 &&
		    (unsigned char)buf[i + 1] <= 0x9f) {
			out[o++] = '?';
			out[o++] = '?';
			i++;
			continue;
		}
		out[o++] = is_c0(c, 1) ? '?' : (char)c;
	}
	if (o && write_all(out, o) < 0)
		return -1;
	return (ssize_t)n;
}

static int filter_close(void *cookie)
{
	struct filter *f = cookie;
	if (f->pending_c2 && write_all("\xc2", 1) < 0)
		return EOF;
	return 0;
}

int textsafe_stdout(void)
{
	/* the filter lives as long as stdout: reachable through it, never freed */
	struct filter *state = calloc(1, sizeof(*state));
	FILE *f =
	    state
		? fopencookie(state, "w",
			      (cookie_io_functions_t){.write = filter_write, .close = filter_close})
		: NULL;
	if (!f) {
		free(state);
		return -1;
	}
	setvbuf(f, NULL, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, 1 << 16);
	stdout = f;
	return 0;
}
