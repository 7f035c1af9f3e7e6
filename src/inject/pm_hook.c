/*
 * pm_hook.c - record --metrics pm in the injected library: starts CUPTI PM
 * sampling (pmsampling.cpp) when GPUSCOPE_METRICS is "pm", writes its
 * windows as SPOOL_SAMPLE frames (one samples row each, beside NVML/GPM's)
 * and, at the end, stops it and says in the process status why there are
 * no samples when there are none: the CUPTI call that failed, or how far
 * the thread got with its counts (pm_explain_none). GPUSCOPE_DEBUG=1 logs
 * every step (pmsampling.cpp).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inject/inject_int.h"
#include "inject/pmsampling.h"
#include "util/knobs.h"

/* written by the PM thread only, until gs_pm_stop has joined it */
static char pm_buf[64 * 1024];
static struct out pm_out = {pm_buf, sizeof(pm_buf), 0};
static int pm_on;

static void pm_emit(uint32_t device, uint64_t ts, const char *metric, double value)
{
	if (!metric) { /* the end of a decode */
		out_flush(&pm_out);
		return;
	}
	struct spool_sample s = {ts, device, intern(&pm_out, metric), value};
	put(&pm_out, SPOOL_SAMPLE, &s, sizeof(s), NULL, 0);
}

static void pm_log(const char *msg)
{
	dbg("%s", msg);
}

/* registered by the PM thread once sampling runs (gs_pm_opts.started): at
 * exit it stops PM sampling before the CUDA runtime's own atexit handler,
 * registered earlier, tears the contexts down (inject.c's at_exit was
 * registered at CUDA's initialisation, before the runtime's: it runs after
 * it, too late for CUPTI's PM calls). pm_report runs once. */
static void pm_at_exit(void)
{
	pm_report(1);
}

static void pm_started(void)
{
	atexit(pm_at_exit);
}

void pm_setup(void)
{
	const char *m = getenv(KNOB(METRICS));
	if (!m || strcmp(m, "pm") != 0)
		return;
	const char *iv = getenv(KNOB(PM_INTERVAL_US));
	long long us = iv && *iv ? strtoll(iv, NULL, 10) : 1000;
	struct gs_pm_opts o = {(uint64_t)(us > 0 ? us : 0) * 1000u, pm_emit, pm_log, pm_started};
	char why[256] = "";
	if (gs_pm_start(&o, why, sizeof(why)) < 0) {
		status(0, 0, "%s", why);
		return;
	}
	pm_on = 1;
}

void pm_report(int wait)
{
	if (!pm_on)
		return;
	pm_on = 0;
	if (!gs_pm_stop(wait)) {
		/* the thread may still be writing: leave its buffer alone */
		if (wait)
			status(0, 0, "%s", gs_pm_status());
		return;
	}
	out_flush(&pm_out);
	struct pm_counts n;
	gs_pm_counts(&n);
	const char *why = gs_pm_status();
	char msg[480];
	if (*why) {
		status(0, 0, "%s (%llu windows recorded)", why, (unsigned long long)n.windows);
	} else if (!n.windows) {
		pm_explain_none(msg, sizeof(msg), &n);
		status(0, 0, "%s", msg);
	}
	if (n.overflows)
		status(
		    0, 0,
		    "PM sampling: the hardware buffer overflowed %llu time(s): windows were lost "
		    "(a longer GPUSCOPE_PM_INTERVAL_US helps)",
		    (unsigned long long)n.overflows);
	if (n.off_clock)
		status(0, 0,
		       "PM sampling: %llu windows carry timestamps on none of the clocks known "
		       "(CUPTI's, CLOCK_REALTIME, CLOCK_MONOTONIC): they may not line up with the "
		       "timeline",
		       (unsigned long long)n.off_clock);
}
