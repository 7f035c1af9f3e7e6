/*
 * pm_hook.c - record --metrics pm in the injected library: starts CUPTI PM
 * sampling (pmsampling.cpp) when GPUSCOPE_METRICS is "pm", writes its
 * windows as SPOOL_SAMPLE frames (one samples row each, beside NVML/GPM's)
 * and, at the end, stops it and says in the process status why there are
 * no samples when there are none.
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

void pm_setup(void)
{
	const char *m = getenv(KNOB(METRICS));
	if (!m || strcmp(m, "pm") != 0)
		return;
	const char *iv = getenv(KNOB(PM_INTERVAL_US));
	long long us = iv && *iv ? strtoll(iv, NULL, 10) : 1000;
	struct gs_pm_opts o = {(uint64_t)(us > 0 ? us : 0) * 1000u, pm_emit, pm_log};
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
	if (!gs_pm_stop(wait))
		return; /* the thread may still be writing: leave its buffer alone */
	out_flush(&pm_out);
	uint64_t samples = 0, overflows = 0;
	uint32_t devices = 0;
	gs_pm_stats(&samples, &devices, &overflows);
	const char *why = gs_pm_status();
	if (*why)
		status(0, 0, "%s (%llu windows recorded)", why, (unsigned long long)samples);
	else if (!samples)
		status(0, 0,
		       "PM sampling: no window recorded on %u device(s) (the program ended "
		       "before the first decode?)",
		       devices);
	if (overflows)
		status(
		    0, 0,
		    "PM sampling: the hardware buffer overflowed %llu time(s): windows were lost "
		    "(a longer GPUSCOPE_PM_INTERVAL_US helps)",
		    (unsigned long long)overflows);
}
