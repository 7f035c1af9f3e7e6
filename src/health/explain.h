/*
 * explain.h - `gpuscope explain`: any pasted text (an XID number, a dmesg
 * line, a Python traceback, an nvidia-smi message, English or Chinese or both)
 * -> the catalogue entries it is about: meaning, causes (most likely first),
 * checks to run, fixes and the gpuscope command that helps.
 *
 * Two catalogues, both data: the XIDs (xid.h, every code of NVIDIA's Xid
 * Catalog) and the error texts users meet at each layer of the environment chain (docs/method.md
 * §6, §7) (explain_catalogue_*.c). Matching (explain_match.c) is by words, never by bare
 * substrings: the query and each entry's signatures are cut into tokens (ASCII words, numbers, runs
 * of CJK characters), a signature matches where its tokens appear in order (or close together, for
 * less), and each token weighs by how rare it is in the catalogue. XIDs are found by number
 * anywhere in the text ("Xid 79", an NVRM line, "xid79", a bare "79").
 */
#ifndef GPUSCOPE_EXPLAIN_H
#define GPUSCOPE_EXPLAIN_H

#include <stddef.h>
#include <stdio.h>

#include "health/catalogue.h"
#include "health/xid.h"

/* The layer of that chain an entry belongs to (its heading in --list). */
enum explain_layer {
	EL_HARDWARE = 0,
	EL_DRIVER,
	EL_RUNTIME,
	EL_FRAMEWORK,
	EL_CONTAINER,
	EL_WINDOWS,
	EL_DESKTOP,
	EL_LAPTOP,
	EL_COUNT
};

#define EXPLAIN_MAX_SIGS 16

struct explain_entry {
	const char *id; /* stable; doctor's finding ids are entries too */
	enum explain_layer layer;
	enum severity sev;
	/* phrases that identify it, English and Chinese; matched by words */
	const char *sigs[EXPLAIN_MAX_SIGS];
	struct cat_text text;
	struct cat_check gpuscope; /* the gpuscope command that helps */
	const char *source;	   /* where the knowledge comes from (not translated) */
};

/* The text entries, layer by layer: how many, and entry i (NULL past the
 * end); each catalogue file's table in place, nothing copied. */
size_t explain_n_entries(void);
const struct explain_entry *explain_entry(size_t i);
/* The text entry with this id, or NULL. */
const struct explain_entry *explain_find_id(const char *id);
/* Layer heading, N_()-marked English. */
const char *explain_layer_name(enum explain_layer l);

#define EXPLAIN_MAX_MATCHES 8
/* Queries longer than this are refused with an error, never cut silently. */
#define EXPLAIN_MAX_QUERY (4u << 20)

/* One match: an XID (entry NULL, xid >= 0; xid_lookup(xid) may be NULL for an
 * uncatalogued code) or a text entry (xid -1). */
struct explain_match {
	const struct explain_entry *entry;
	int xid;
	double score;
};

struct explain_result {
	struct explain_match m[EXPLAIN_MAX_MATCHES];
	int n;		    /* best first */
	long tokens;	    /* tokens read from the query */
	int xid_mentions;   /* XID numbers found in the query */
	size_t query_bytes; /* the query's length, NUL bytes and all */
};

/*
 * Matches query (len bytes, need not be NUL-terminated). Fills r, best first:
 * XIDs found by number in the order they appear, then text entries by score;
 * candidates far below the best are dropped (explain_match.c says how far).
 * Returns 0, or -1 with err when the query is empty or longer than
 * EXPLAIN_MAX_QUERY, or memory runs out. It indexes the catalogue for the
 * one query; explain_match_in matches in an index made once.
 */
int explain_match(const char *query, size_t len, struct explain_result *r, char *err);

/* The catalogue's signatures tokenised and weighed for matching: made by
 * explain_index_new (NULL with err when out of memory), read-only after,
 * so matches may run side by side in one. */
struct explain_index;
struct explain_index *explain_index_new(char *err);
void explain_index_free(struct explain_index *x);
/* explain_match in x (NULL only with a query over EXPLAIN_MAX_QUERY). */
int explain_match_in(const struct explain_index *x, const char *query, size_t len,
		     struct explain_result *r, char *err);

/*
 * Renders a result. Text: the best match in full, then one line for each
 * other candidate; every line within 100 columns. JSON: schema
 * gpuscope.explain.v2, {"matches": [...]} (an empty array on a miss).
 */
/* query (NUL-terminated, or NULL): a "CUDA out of memory" message's own
 * figures are read from it and said first (oom.h). */
void explain_print_text(FILE *f, const struct explain_result *r, const char *query);
void explain_print_json(FILE *f, const struct explain_result *r, const char *query);
/* The whole catalogue, layer by layer (text) or as JSON. */
void explain_print_list(FILE *f, int json);

#endif
