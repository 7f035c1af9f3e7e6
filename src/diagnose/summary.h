/*
 * summary.h - a rank's summary (`report --summary -o RANK.gss`) and the job
 * report from summaries alone (`report A.gss B.gss ...` or a directory of
 * them): the map and reduce steps of a job too big for one process
 * (docs/summary.md has the format and how clusters run the map step).
 *
 * A summary holds what the job view needs of one rank's trace, as its own
 * analysis found it (its warm-up cut): the analysed window and timeline
 * totals, its pids and devices (to number them as a merge of the traces
 * would), its findings with evidence and actions, and per communicating
 * rank (comm.h) its totals and its collectives (sequence number within
 * their kind, kind, start, end, size). The reduce step reads them and runs
 * the cross-rank part of comm.h (comm_cross) and the job rules, so the
 * RANKS section, the straggler and exposed communication are the figures
 * the same ranks' traces give when every rank's window is the job's (ranks
 * in lockstep).
 *
 * Size: a few hundred bytes plus about 60 bytes per collective and about
 * 1 KB per finding; independent of the number of kernels.
 *
 * Error contract: -1 with a one-line message in err naming the file; a
 * summary is written to PATH.tmp and renamed, so no half-written one is left.
 */
#ifndef GPUSCOPE_SUMMARY_H
#define GPUSCOPE_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "diagnose/diagnose.h"

#define SUMMARY_MAGIC "gpuscope-summary"
#define SUMMARY_VERSION 1

/* One summary in a job: the file, its window and totals. */
struct summary_rank {
	char *path;
	int rank;		   /* the first communicating rank's number, -1 when none */
	uint32_t device;	   /* its (first) device, as numbered in the job */
	uint32_t pid, comm_device; /* the first communicating rank's, in the job */
	int64_t start_ns, end_ns;  /* the analysed window */
	int64_t busy_ns;
	uint64_t n_kernels;
	size_t n_findings;
	char primary[32]; /* the primary finding's id, "" when none */
};

/* A job read from summaries: ranks[] by file order (names sorted within a
 * directory); res is the job's result (res.all: the span, the findings;
 * res.comm: the cross-rank figures) over an empty trace t. */
struct summary_job {
	struct summary_rank *ranks;
	size_t n;
	struct trace t;
	struct analysis_result res;
};

/* Writes the summary of one analysed trace to path (res from
 * analysis_result_run on t, source the trace's file name). */
int summary_write(const char *path, const struct analysis_result *res, const char *source,
		  char *err);
/* 1 when path is a summary file (a regular file, by content), or a
 * directory holding one (by name: *.gss). */
int summary_is(const char *path);
/* Reads the summaries (files, or directories of *.gss) into j and builds
 * the job result. */
int summary_job_load(struct summary_job *j, const char *const *paths, size_t n, char *err);
void summary_job_release(struct summary_job *j);

#endif
