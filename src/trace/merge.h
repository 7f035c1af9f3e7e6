/*
 * merge.h - several traces as one job (issue 24): the ranks of a
 * distributed run, one trace file each (torch.profiler writes one per
 * rank; `gpuscope record` one per launch), put into one trace that the
 * analysis reads like a multi-GPU recording.
 *
 * Rules:
 *  1. Strings are re-interned; every row keeps its times (the files must
 *     share a clock: torch.profiler's baseTimeNanoseconds and record's
 *     CUPTI times are the host's clock, so files of one machine do; files of
 *     several machines are as far apart as their clocks).
 *  2. A pid already taken by an earlier file is moved to a free one (ranks
 *     of several machines can share pids); "pid_origin.NEW" = "FILE PID".
 *  3. Devices keep their numbers unless two files use the same one (ranks of
 *     several machines, or several processes sharing one GPU); then every
 *     file's devices are numbered anew in file order, and meta
 *     "device_origin.N" = "FILE device D" says which each was.
 *  4. Ranks: a file's "rank.PID" meta (record: from the environment) moves
 *     with its pid; a file's "rank" meta (a PyTorch trace's distributedInfo)
 *     becomes "rank.PID" of every process of that file. world_size and
 *     dist_backend come from the first file that has them; the other meta
 *     of the first file is kept, "merged_files" says how many were merged.
 *  5. Host samples, stacks and frames keep their links (ids offset).
 * Memory: each source is released as soon as it is merged (the set's
 * traces are consumed), so the peak is about one trace more than the job.
 */
#ifndef GPUSCOPE_MERGE_H
#define GPUSCOPE_MERGE_H

#include "trace/trace.h"

/* Traces loaded together (import/load.h: trace_load_many): traces[i] from
 * paths[i]. */
struct trace_set {
	struct trace *traces;
	char **paths;
	size_t n;
};

/* Merges set's traces into out (initialised here; not sorted), releasing each
 * of set's traces; 0, or -1 with err (out released). */
int trace_merge_set(struct trace *out, struct trace_set *set, char *err);

#endif
