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

/* Writes t as a Chrome trace-event JSON file at path. */
int perfetto_export(const struct trace *t, const char *path, char *err);

/* Writes kernels.csv, copies.csv, memsets.csv, api.csv, syncs.csv,
 * ranges.csv and samples.csv into dir (created when missing). */
int csv_export(const struct trace *t, const char *dir, char *err);

#endif
