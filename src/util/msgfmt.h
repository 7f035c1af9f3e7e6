/*
 * msgfmt.h - a printf call kept for later: the format (a message id, the
 * English text) and its arguments captured by type, so that the text can
 * be made again from the format's translation (gettext: the same
 * conversions, maybe in another order through %n$). Findings are made in
 * English and shown in the reader's language this way (report/finding.h).
 *
 * Invariants:
 *  1. msg_format(buf, cap, m->fmt, m) gives what vsnprintf gave for the
 *     format and arguments msg_capture saw (tests/util/test_msgfmt.c).
 *  2. A struct msg holds no pointer into itself (strings are offsets into
 *     its pool), so it may be copied as it is.
 *  3. A format msg_capture cannot hold (an unknown conversion, positional
 *     arguments, more than MSG_MAX_ARGS, strings past MSG_POOL) leaves
 *     m->ok 0: its text is then only what was formatted at capture.
 */
#ifndef GPUSCOPE_MSGFMT_H
#define GPUSCOPE_MSGFMT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#define MSG_MAX_ARGS 10
#define MSG_POOL 384

struct msg_arg {
	/* 'i' signed, 'u' unsigned, 'f' double, 's' string, 'S' a string that is
	 * a message id itself (msg_mark), 'c' char, 'p' pointer */
	char type;
	union {
		long long i;
		unsigned long long u;
		double f;
		uint16_t s; /* offset into the pool */
		void *p;
	} v;
};

struct msg {
	const char *fmt; /* the format (its message id); NULL: none */
	uint8_t ok;	 /* invariant 3 */
	uint8_t n;
	struct msg_arg a[MSG_MAX_ARGS];
	uint16_t used; /* of the pool */
	char pool[MSG_POOL];
};

/* Captures fmt's arguments from ap (ap itself is left as it was: a copy is
 * read). Sets m->fmt = fmt and m->ok (invariant 3). */
void msg_capture(struct msg *m, const char *fmt, va_list ap);
/* Marks m's string arguments equal to s as message ids themselves (a word
 * the text quotes: "context creation"), shown through msg_format's tr. */
void msg_mark(struct msg *m, const char *s);
/* The text of format fmt (m->fmt or its translation) with m's arguments,
 * into buf (cut to cap, always terminated), the marked strings through tr
 * (NULL: as they are); a conversion m has no argument of its kind for is
 * written as it stands. Returns buf. */
const char *msg_format(char *buf, size_t cap, const char *fmt, const struct msg *m,
		       const char *(*tr)(const char *));

#endif
