/*
 * knobs.h - every GPUSCOPE_* environment variable, in one table: its name,
 * its default and what it does. The injected library reads them (by
 * KNOB(ID), so that a variable missing here does not compile), record sets
 * the first group for the program it starts, `record --help-env` prints the
 * table and docs/record.md documents each (tests/record/knobs.sh checks
 * both ways). Header only: record includes it too.
 */
#ifndef GPUSCOPE_KNOBS_H
#define GPUSCOPE_KNOBS_H

/* X(ID, default, what it does) */
#define GPUSCOPE_KNOBS(X)                                                                          \
	X(SPOOL_DIR, "(set by record)", "where the spool files go; unset: nothing is recorded")    \
	X(FLUSH_MS, "1000",                                                                        \
	  "periodic flush period in ms (10..60000): what SIGKILL or a crash "                      \
	  "can lose")                                                                              \
	X(KINDS, "all but sync",                                                                   \
	  "comma list of activity kinds recorded: device, context, kernel, memcpy, memset, "       \
	  "runtime, driver, sync, memory, marker, uvm; none records nothing")                      \
	X(API, "lean",                                                                             \
	  "which API calls get records: lean (each but the queries and the driver's "              \
	  "stream-ordering calls: cuEventRecord, cuStreamWaitEvent, cuGraphExec*NodeSet*), "       \
	  "calls (each but the queries), work (those that enqueue, wait, allocate or load), kind " \
	  "(whole kinds, queries off), all")                                                       \
	X(CAPTURE, "on", "off: start paused until the program calls gpuscope_capture(1)")          \
	X(METRICS, "",                                                                             \
	  "kernels: per-kernel counters (record --metrics kernels); pm: PM sampling (record "      \
	  "--metrics pm)")                                                                         \
	X(PM_INTERVAL_US, "1000",                                                                  \
	  "PM sampling: the window, in microseconds (record --metrics pm)")                        \
	X(KERNEL_REGEX, "",                                                                        \
	  "counters only for kernels whose name matches (record --kernel-regex)")                  \
	X(LAUNCH_SKIP, "0", "counters: matching launches skipped first (record --launch-skip)")    \
	X(LAUNCH_COUNT, "0",                                                                       \
	  "counters: matching launches profiled at most, 0 all "                                   \
	  "(record --launch-count)")                                                               \
	X(COUNTERS_MODE, "launch",                                                                 \
	  "where the range profiler starts: launch (the outermost launch call), driver (driver "   \
	  "launches only), eager (also set up when a context is created)")                         \
	X(COUNTERS_AVAIL, "0",                                                                     \
	  "1: hand CUPTI's profiler host the counter availability image (it crashed in "           \
	  "libnvperf_host on the H200; needed only for chips newer than CUPTI)")                   \
	X(GUARD_CUPTI, "0",                                                                        \
	  "1: hold CUPTI's one subscriber slot, so that no other profiler in the program can "     \
	  "take the records over (costs 20-40% on small ops)")                                     \
	X(HOST_FREE_GUARD, "0",                                                                    \
	  "1: wait for the device before the program frees or unpins host memory, so that a "      \
	  "memset or copy into it still queued cannot write to freed memory (XLA's redzone "       \
	  "checker, openxla/xla 46093); holds CUPTI's subscriber slot like GUARD_CUPTI")           \
	X(PRELOAD, "1", "0: record does not preload the _exit/_Exit shim (libgpuscope-preload)")   \
	X(DEBUG, "0", "1: the library logs to stderr, prefixed gpuscope-inject:")                  \
	X(CRASH_TRACE, "0",                                                                        \
	  "with GPUSCOPE_DEBUG=1: a backtrace on stderr when the program "                         \
	  "crashes")                                                                               \
	X(CRASH_REPORT, "1",                                                                       \
	  "0: gpuscope itself installs no crash report (signal, thread, frames on stderr)")        \
	X(BUFPOOL, "1",                                                                            \
	  "0: no pool of zeroed CUPTI buffers (CUPTI zeroes each in the program's "                \
	  "thread)")                                                                               \
	X(LAUNCH_CB, "0", "1: also count launches by callback (subscribes to CUPTI)")              \
	X(DISCARD, "0",                                                                            \
	  "bench only, 1: CUPTI's buffers are handed back unread (CUPTI's own cost)")              \
	X(CUPTI_PER_THREAD, "1", "bench only, 0: one activity buffer shared by all threads")       \
	X(CUPTI_PINNED, "0", "bench only, 1: GPU timestamp buffers in pinned host memory")         \
	X(CUPTI_FLUSH_PERIOD_MS, "0",                                                              \
	  "bench only: wake CUPTI's worker thread every N ms (0: its "                             \
	  "own heuristics)")                                                                       \
	X(HOST_SWITCH, "",                                                                         \
	  "bench only: a file (made by record) whose first byte says what record's host sampler "  \
	  "does while the program runs: 1 both mechanisms, p perf only, y the CPython reader "     \
	  "only, 0 nothing; the second byte says the state reached")                               \
	X(HOST_MECH, "perf+pyread",                                                                \
	  "bench only: record's host sampling mechanisms: perf+pyread, perf (no CPython "          \
	  "reader) or pyread (no perf events, no perf trampolines)")                               \
	X(HOST_PERF_DIV, "4",                                                                      \
	  "record's perf events sample a Python program (python*, a #! script naming python) "     \
	  "at the host rate / N; the CPython reader keeps the full rate (1: perf's too)")          \
	X(HOST_PERF_SCOPE, "cpu",                                                                  \
	  "record's perf events: cpu, one per CPU for every task, the program's processes kept "   \
	  "(where allowed: perf_event_paranoid <= 0 or CAP_PERFMON), else per task; task, per "    \
	  "task always (each of the program's context switches then pays for them)")               \
	X(HOST_SCHED_MS, "50",                                                                     \
	  "record reads the program's threads' scheduler statistics (CPU time, run-queue wait) "   \
	  "every N ms while host sampling is on (0: not at all)")                                  \
	X(HOST_STACK, "127",                                                                       \
	  "bench only: the most user frames perf's kernel walk copies per sample (1-127)")         \
	X(PYREAD_BATCH, "1",                                                                       \
	  "bench only, 0: record's CPython reader reads each frame and code object on its own "    \
	  "(two reads a frame) instead of in blocks and one batch")                                \
	X(ZLIB, "0",                                                                               \
	  "readers, bench only, 1: inflate .json.gz with zlib where ISA-L is installed")           \
	X(TIMING, "0",                                                                             \
	  "report: 1 prints a line of wall/CPU seconds per phase (read, parse, post "              \
	  "passes, sort, analysis, render) and the peak RSS on stderr")

enum gs_knob {
#define GS_KNOB_ENUM(id, def, doc) KNOB_##id,
	GPUSCOPE_KNOBS(GS_KNOB_ENUM)
#undef GS_KNOB_ENUM
	    KNOB_COUNT
};

struct gs_knob_info {
	const char *name, *def, *doc;
};

static const struct gs_knob_info gs_knobs[KNOB_COUNT] = {
#define GS_KNOB_INFO(id, def, doc) {"GPUSCOPE_" #id, def, doc},
    GPUSCOPE_KNOBS(GS_KNOB_INFO)
#undef GS_KNOB_INFO
};

/* The variable's name, checked at compile time: KNOB(FLUSH_MS). */
#define KNOB(id) (gs_knobs[KNOB_##id].name)

#endif
