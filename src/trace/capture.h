/*
 * capture.h - capture ranges, as Nsight Systems users know them (`record
 * --capture-range cudaProfilerApi|nvtx:NAME[@DOMAIN]`, `--delay S`,
 * `--duration S`; docs/record.md, "Capture ranges").
 *
 * How: the injected library records the whole run as usual, and record,
 * before it writes the database, keeps only what lies inside the capture
 * windows (trace_capture). Doing it afterwards rather than by switching
 * CUPTI's activity kinds on and off in the program:
 *  - is exact: a kernel belongs to a window when the API call that
 *    launched it started inside it, however late the GPU ran it (switching
 *    kinds off loses the records of work still in flight);
 *  - needs no CUPTI subscription to see cudaProfilerStart/Stop or NVTX
 *    pushes as they happen (a subscriber alone costs 20-40% on PyTorch's
 *    small ops, inject.c), since their API and NVTX records are there;
 *  - costs the same recording overhead outside the windows as inside
 *    (documented; the trace's size is the windows').
 *
 * Windows:
 *  - cudaProfilerApi: per process, a window opens at the end of the first
 *    cudaProfilerStart / cuProfilerStart call and closes at the start of
 *    the next cudaProfilerStop / cuProfilerStop call (nested calls, a start
 *    while open or a stop while closed, change nothing, as in CUDA); one
 *    still open when the program ends closes at the trace's end. Every
 *    start/stop pair is a window.
 *  - nvtx:NAME[@DOMAIN]: every NVTX range named NAME (push/pop or
 *    start/end, any thread, domain DOMAIN or the default one) is a window;
 *    nested or overlapping ones merge (their union), so a range repeated
 *    inside itself is one window and every repeat after the first is kept
 *    too (nsys's --capture-range-end=repeat; nsys stops after the first by
 *    default).
 *  - no range: one window from the program's start to the trace's end.
 *  Then --delay S drops what lies before program start + S, and --duration
 *  S cuts each window S after its (delayed) start. Windows of several
 *  processes merge into one timeline.
 *
 * What is kept: API calls that start inside a window; kernels, copies,
 * memsets, syncs and counters whose API call (pid + correlation) was kept
 * (those without one: by their own start); NVTX and other ranges that
 * overlap a window; unified-memory events that overlap one; allocations,
 * NVML samples and host samples inside one.
 * Devices, processes, frameworks and host-sampling rows stay.
 *
 * The database says what was done: the capture_windows table (schema v3)
 * and meta keys capture_range, capture_delay_ns, capture_duration_ns,
 * capture_span_ns (program start to trace end), capture_captured_ns,
 * capture_dropped (rows left out) and capture_status ("" or why nothing
 * was captured).
 */
#ifndef GPUSCOPE_TRACE_CAPTURE_H
#define GPUSCOPE_TRACE_CAPTURE_H

#include <stdint.h>

#include "trace/trace.h"

enum capture_mode {
	CAPTURE_NONE = 0,     /* no --capture-range (--delay/--duration may still cut) */
	CAPTURE_PROFILER_API, /* cudaProfilerStart/Stop */
	CAPTURE_NVTX,	      /* an NVTX range by name */
};

#define CAPTURE_NAME_MAX 256

struct capture_spec {
	enum capture_mode mode;
	char nvtx_name[CAPTURE_NAME_MAX];   /* CAPTURE_NVTX */
	char nvtx_domain[CAPTURE_NAME_MAX]; /* "" = the default domain */
	int64_t delay_ns;		    /* 0: none */
	int64_t duration_ns;		    /* 0: none */
};

/* A zeroed spec (no capture range, no delay, no duration) keeps everything. */

/* 1 when spec asks for anything to be cut. */
int capture_active(const struct capture_spec *spec);

/* Parses --capture-range's value ("cudaProfilerApi", "nvtx:NAME",
 * "nvtx:NAME@DOMAIN") into spec. 0, or -1 with a one-line message. */
int capture_parse_range(struct capture_spec *spec, const char *arg, char *err);

/* Parses a --delay/--duration value in seconds (a number >= 0, or > 0
 * when positive is set; at most a week) into *ns. 0, or -1 with a message
 * naming opt. */
int capture_parse_seconds(int64_t *ns, const char *opt, int positive, const char *arg, char *err);

/* What trace_capture did. */
struct capture_result {
	size_t windows;
	int64_t captured_ns, span_ns;
	uint64_t dropped; /* rows left out, all tables */
	uint64_t kernels_kept, kernels_dropped;
	char status[3 * CAPTURE_NAME_MAX]; /* "" or why nothing was captured */
};

/* Cuts t (sorted or not) to the windows of spec; program_start_ns is when
 * the program started, on the trace's clock. Adds the capture_windows rows
 * and the meta keys. 0, or -1 when out of memory (t then holds what it
 * had, maybe without the meta). */
int trace_capture(struct trace *t, const struct capture_spec *spec, int64_t program_start_ns,
		  struct capture_result *r);

/* For the analysis: of [s, e), the time outside t's capture windows (0
 * when the trace has none: nothing was cut). */
int64_t trace_capture_outside(const struct trace *t, int64_t s, int64_t e);
/* The index of the first capture window of t ending after ts (the windows
 * are sorted and apart), n_capture_windows when none does. */
size_t trace_capture_first(const struct trace *t, int64_t ts);

#endif
