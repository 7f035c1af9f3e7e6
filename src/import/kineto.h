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
#include <stdint.h>

#include "trace/trace.h"

/* Where a read is, for a progress line. */
struct kineto_progress {
	const char *label; /* the input as messages name it */
	uint64_t read;	   /* bytes of the input read (compressed, when it is) */
	uint64_t size;	   /* the input's size; 0 when unknown (a pipe) */
	uint64_t fed;	   /* bytes of JSON parsed */
	double secs;	   /* since the read began */
};

struct kineto_options {
	/* called about once a second while reading, NULL: never; the caller
	 * shows it (the commands' progress line): nothing here prints */
	void (*progress)(void *ctx, const struct kineto_progress *p);
	void *progress_ctx;
	/* parser threads (kineto_fast.c) besides the reading one: 0 as many
	 * as usable CPUs (at most 16), N that many, -1 none (the reading
	 * thread parses); with yajl_only, the sequential yajl parse (bench,
	 * tests) */
	int threads;
	int yajl_only;
	/* the fast path's chunk of events text, 0 = 2 MiB (tests make it small) */
	size_t chunk_bytes;
	/* tests: the fast path without its direct decoder (kineto_direct.c),
	 * and, when set, *direct_events gets how many events it decoded */
	int no_direct;
	uint64_t *direct_events;
	/* more events than this (0: no cap) is an error, checked as they are
	 * read: a service reading untrusted uploads bounds its memory with it
	 * (a 2 MB .json.gz can hold 5 million events: probe H7) */
	uint64_t max_events;
};

/* Loads the kineto trace at path (.json or .json.gz, by content) into t
 * (initialised here); o may be NULL (the defaults: no progress). */
int kineto_load_opt(struct trace *t, const char *path, const struct kineto_options *o, char *err);
int kineto_load(struct trace *t, const char *path, char *err);

struct infile;
/* The same from an input already opened (util/infile.h, its head sniffed). */
int kineto_load_infile(struct trace *t, struct infile *in, const struct kineto_options *o,
		       char *err);

/* The same over a buffer (plain or gzip-compressed JSON); for fuzzing. */
int kineto_load_mem(struct trace *t, const void *buf, size_t len, char *err);
/* With options: threads is the fast path's worker threads here (0: the
 * calling thread parses), so that tests and fuzzers can pick. */
int kineto_load_mem_opt(struct trace *t, const void *buf, size_t len,
			const struct kineto_options *o, char *err);

/* 1 when a and b hold the same rows, strings and meta (kineto_same.c). */
int kineto_same_trace(const struct trace *a, const struct trace *b);

#endif
