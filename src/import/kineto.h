/*
 * kineto.h - the PyTorch profiler (kineto) Chrome-trace importer.
 *
 * kineto_load() streams a .json or .json.gz trace through yajl and zlib and
 * fills a `struct trace` event by event; the JSON text is never held in
 * memory (only the current event's fields). Timestamps: kineto writes "ts"
 * and "dur" in microseconds with three decimals, relative to the top-level
 * "baseTimeNanoseconds" in current versions; the importer parses the number
 * text exactly into nanoseconds and adds baseTimeNanoseconds when the
 * timestamps are relative (first ts below 1e14 us), so times are absolute
 * epoch nanoseconds. displayTimeUnit only affects viewers and is ignored.
 *
 * Error contract: 0 on success; -1 with a one-line message in err
 * (GS_ERR_LEN) on unreadable, truncated or malformed input, in which case
 * *t is released and empty.
 */
#ifndef GPUSCOPE_KINETO_H
#define GPUSCOPE_KINETO_H

#include <stddef.h>

#include "trace/trace.h"

struct kineto_options {
	/* progress on stderr: -1 when stderr is a tty, 0 never, 1 always */
	int progress;
};

/* Loads the kineto trace at path (.json or .json.gz, by content) into t
 * (initialised here); o may be NULL (progress when stderr is a tty). */
int kineto_load_opt(struct trace *t, const char *path, const struct kineto_options *o, char *err);
int kineto_load(struct trace *t, const char *path, char *err);

struct infile;
/* The same from an input already opened (util/infile.h, its head sniffed). */
int kineto_load_infile(struct trace *t, struct infile *in, const struct kineto_options *o,
		       char *err);

/* The same over a buffer (plain or gzip-compressed JSON); for fuzzing. */
int kineto_load_mem(struct trace *t, const void *buf, size_t len, char *err);

#endif
