/*
 * load.h - opening any trace gpuscope reads: the reader table (one line per
 * format: its name, file suffixes, how its first bytes look, its loader and
 * what its traces imply), trace_load_any (by content) and trace_load_many
 * (several files or directories at once). A new format is one file with
 * its sniff and load functions and one line in load_any.c's table.
 */
#ifndef GPUSCOPE_LOAD_H
#define GPUSCOPE_LOAD_H

#include <stddef.h>

#include "trace/merge.h"
#include "trace/trace.h"

struct infile;
struct kineto_options;

struct trace_reader {
	const char *name; /* in messages: "gpuscope trace database" */
	/* what a directory's trace files end with, ' '-separated ("" none);
	 * shown in messages as the reader's suffixes */
	const char *suffixes;
	/* 1 when head (the first n bytes of path) is this format, else 0 */
	int (*sniff)(const char *path, const unsigned char *head, size_t n);
	/* Loads the opened input (its head not consumed) into t, initialised
	 * and empty: 0, or -1 with err and t empty. */
	int (*load)(struct trace *t, struct infile *in, const char *path,
		    const struct kineto_options *ko, char *err);
	enum trace_source source; /* what its traces are (their capability bits) */
};

/* The formats gpuscope reads, tried in order. */
extern const struct trace_reader trace_readers[];
extern const size_t trace_n_readers;

/* Loads a trace of any reader of trace_readers, chosen by content. */
int trace_load_any(struct trace *t, const char *path, char *err);
/* The same with the PyTorch importer's options (import/kineto.h; NULL:
 * the defaults). */
int trace_load_any_opt(struct trace *t, const char *path, const struct kineto_options *ko,
		       char *err);
/* The same over a table of readers of one's own (the tests' test reader). */
int trace_load_with(const struct trace_reader *readers, size_t n, struct trace *t, const char *path,
		    const struct kineto_options *ko, char *err);
/* The formats of readers[0..n) as the commands' help lists them, a line
 * each: "  NAME  SUFFIXES" (names padded to the longest), into buf (cut to
 * cap). Returns buf. */
const char *trace_readers_help(char *buf, size_t cap, const struct trace_reader *readers, size_t n);
/* 1 when name ends with a suffix of one of the readers. */
int trace_reader_suffix(const struct trace_reader *readers, size_t n, const char *name);

/* Several traces (import/load_many.c): paths[i] a trace file or a directory
 * of them (any reader's suffixes, sorted by name), loaded in parallel, at
 * most jobs at a time (0: the cores). traces[i] is the trace of paths[i]
 * (paths as expanded). -1 with err naming the first file that failed, the
 * set then empty. struct trace_set: trace/merge.h. */
int trace_load_many(struct trace_set *set, const char *const *paths, size_t n, int jobs, char *err);
void trace_set_release(struct trace_set *set);

#endif
