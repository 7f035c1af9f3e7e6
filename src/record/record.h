/*
 * record.h - what `gpuscope record -- CMD` does, as a library: find the
 * injected libraries, start the NVML/GPM sampler (sampler.h), run CMD with
 * CUDA_INJECTION64_PATH and the _exit shim in its environment, forward
 * terminating signals after the flush handshake (trace/spool.h), then merge
 * the per-process spool files, map the samples onto CUPTI's clock and write
 * one trace database. docs/record.md has the whole story.
 *
 * Phases and signals (SIGINT, SIGTERM, SIGHUP, SIGQUIT), all caught from
 * record_run's first step:
 *  0. starting (the libraries and the GPUs opened: libcupti's load and
 *     NVML's init can take a second): a signal here means CMD is not
 *     started; record_run fails with r->abandoned_by set, nothing written.
 *  1. running CMD: the first signal asks the traced processes to flush,
 *     waits for them up to SPOOL_FLUSH_WAIT_MS, then goes to CMD; later ones
 *     go at once. One from the terminal already reached CMD's process group
 *     and is not sent again.
 *  2. finishing (CMD has ended: sampler stopped at once, spools merged,
 *     database written by a child process into the spool directory, renamed
 *     onto the output when whole): a signal here abandons the write when
 *     one came before it (the second Ctrl-C); the first one only says so.
 *     Abandoning kills the writer, removes the spool directory, leaves the
 *     output as it was, and record_run fails with r->abandoned_by set.
 *
 * Invariants: nothing is written outside o->output and its spool directory
 * OUTPUT.spool-PID/, which is gone when record_run returns; the output is
 * replaced only by a complete database (rename), never by a partial one,
 * and only when it is a gpuscope database or o->force is set.
 */
#ifndef GPUSCOPE_RECORD_H
#define GPUSCOPE_RECORD_H

#include <stddef.h>

#include "trace/capture.h"

/* --sample-hz: below 0.1 Hz a GPM window (the difference of two samples)
 * spans 10 s and more, so the busy and idle phases the report reads from it
 * blur into one; above 1000 Hz NVML's own counters no longer change between
 * samples (they update every 1-20 ms) and a round of queries (~45 ms on the
 * H200) is longer than the period anyway. */
#define RECORD_MIN_HZ 0.1
#define RECORD_MAX_HZ 1000.0

/* --host-sampling: host stacks at about 1 kHz by default (issue 17); up to
 * 10 kHz (the kernel's perf_event_max_sample_rate is 100 kHz over all
 * events; the CPython reader costs ~10-40 us a sample in the launcher) */
#define RECORD_HOST_HZ 1000.0
#define RECORD_HOST_MAX_HZ 10000.0
/* perf's events sample at the host rate / 4 once the CPython reader samples
 * the traced process: a perf sample costs the program's own thread (on the
 * H200, record's whole overhead on a host-bound step went from 1.10 to 1.07
 * between 1000 and 250 Hz), the reader's read costs record's thread
 * (docs/host-sampling.md) */
#define RECORD_HOST_PERF_DIV 4
/* the threads' scheduler statistics every 50 ms (issue 36 item 4): one
 * pread a thread, ~5 us each on the loaded build machine, on record's
 * thread: 100 threads cost it ~1% of a CPU (docs/host-sampling.md
 * "Scheduler statistics") */
#define RECORD_HOST_SCHED_MS 50

enum record_say {
	RECORD_STEP,	/* what it is doing now (progress) */
	RECORD_NOTE,	/* a result line ("recorded 2 process(es): ...") */
	RECORD_WARNING, /* something the user must not miss */
};

struct record_opts {
	const char *output;	  /* the database to write */
	const char *metrics;	  /* "nvml", "none", "kernels" or "pm" */
	const char *kernel_regex; /* --metrics kernels: which kernels (NULL: all) */
	long long launch_skip;	  /* -1: not given */
	long long launch_count;	  /* -1: not given */
	double sample_hz;	  /* RECORD_MIN_HZ..RECORD_MAX_HZ */
	double host_hz;		  /* host stack sampling rate; 0 = off (docs/host-sampling.md) */
	int force;		  /* replace an output that is not a gpuscope database */
	int allow_untraced;	  /* run CMD even without libgpuscope-inject.so */
	/* --capture-range, --delay, --duration (trace/capture.h); zeroed:
	 * everything is kept */
	struct capture_spec capture;
	char *const *cmd;     /* NULL-terminated command line */
	const char *recorder; /* meta "recorder" ("gpuscope record 0.1.0") */
	/* messages (may be NULL: none); called from the finishing child too */
	void (*say)(void *ctx, enum record_say kind, const char *msg);
	void *ctx;
};

struct record_result {
	int child_rc;	  /* CMD's exit code, 128+signal when killed, 127 when it could not run */
	int exec_failed;  /* CMD could not be started (err says why) */
	int abandoned_by; /* the signal that abandoned the write, 0 if none */
	int replaced;	  /* an existing gpuscope database was replaced */
};

/*
 * Runs o->cmd under recording and writes o->output. Returns 0 when the
 * database was written (r->child_rc is CMD's code), or -1 with a message in
 * err: CMD could not run (exec_failed), the write was abandoned
 * (abandoned_by), or the database could not be written.
 */
int record_run(struct record_result *r, const struct record_opts *o, char *err);

/* The directory libgpuscope-inject.so and libgpuscope-preload.so are looked
 * up in: the first of beside the running binary, ../lib/gpuscope from it (an
 * installed gpuscope, moved or not) and the install prefix's lib/gpuscope
 * that has them (beside the binary when none has). 0 and the directory in
 * out, or -1. */
int record_lib_dir(char *out, size_t cap);
/* Those directories, comma-separated, into out; returns how many. */
int record_lib_search(char *out, size_t cap);

#endif
