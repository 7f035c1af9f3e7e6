/*
 * perfetto.h - timeline export (Chrome trace-event JSON for ui.perfetto.dev
 * and chrome://tracing) and table export (CSV).
 *
 * Both write under a temporary name and rename only when complete: on
 * error no output (and no partial file) is left behind. 0 or -1 + err.
 */
#ifndef GPUSCOPE_PERFETTO_H
#define GPUSCOPE_PERFETTO_H

#include "trace/trace.h"
#include "util/outfile.h"

/* Writes t as a Chrome trace-event JSON file at path ("-" is stdout) under
 * rule (util/outfile.h); NULL: perfetto_rule(0, NULL). *dropped (when not
 * NULL): the slices left out because more than PERFETTO_MAX_LANES
 * overlapped on their track, for the caller to say. */
#define PERFETTO_MAX_LANES 64
int perfetto_export(const struct trace *t, const char *path, const struct outfile_rule *rule,
		    uint64_t *dropped, char *err);
/* Replaces a Perfetto trace gpuscope wrote (or anything with force), never
 * one of inputs (NULL-terminated or NULL). */
struct outfile_rule perfetto_rule(int force, const char *const *inputs);
int perfetto_is_ours(const char *path);

/* Writes kernels.csv, copies.csv, memsets.csv, api.csv, syncs.csv,
 * ranges.csv and samples.csv into dir (created when missing); an existing
 * file of those names is replaced only when gpuscope wrote it (its header)
 * or with force. */
int csv_export(const struct trace *t, const char *dir, int force, char *err);

#endif
