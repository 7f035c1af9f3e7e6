/*
 * explain.h - `gpuscope explain`: an XID number or a well-known error text ->
 * meaning, likely causes (most likely first) and the checks to run. The
 * catalogue is the seeds' troubleshooting knowledge (section 5.x) plus the
 * XID table in xid.c.
 */
#ifndef GPUSCOPE_EXPLAIN_H
#define GPUSCOPE_EXPLAIN_H

#include <stdio.h>

#define EXPLAIN_MAX_ITEMS 6

struct explain_entry {
	const char *id;
	const char *title;
	const char *meaning;
	const char *causes[EXPLAIN_MAX_ITEMS]; /* NULL-terminated, most likely first */
	const char *checks[EXPLAIN_MAX_ITEMS];
	const char *source;
};

/*
 * Explains query (argv joined by spaces: "79", "xid 48", "code 43", text).
 * For an XID fills *xid_code (else -1) and returns NULL; for text returns the
 * entry; returns NULL with *xid_code -1 when nothing matches.
 */
const struct explain_entry *explain_lookup(const char *query, int *xid_code);

void explain_print_text(FILE *f, const struct explain_entry *e, int xid_code);
void explain_print_json(FILE *f, const struct explain_entry *e, int xid_code);

#endif
