/*
 * metrics.c - the metric registry's tables (metrics.h).
 */
#include <stdio.h>
#include <string.h>

#include "gpu/metrics.h"

const struct gpu_metric_info gpu_metrics[GPU_M_COUNT] = {
#define GPU_METRIC_ROW(id, trace, prom, kind, scale, unit, flags, dcgm, help)                      \
	[GPU_M_##id] = {trace, prom, kind, scale, unit, dcgm, help, flags},
    GPU_METRICS(GPU_METRIC_ROW)
#undef GPU_METRIC_ROW
};

const struct gpu_proc_metric_info gpu_proc_metrics[GPU_PM_COUNT] = {
#define GPU_PROC_ROW(id, key, prom, scale, unit, help)                                             \
	[GPU_PM_##id] = {key, prom, unit, help, scale},
    GPU_PROC_METRICS(GPU_PROC_ROW)
#undef GPU_PROC_ROW
};

const struct gpu_clock_reason gpu_clock_reasons[] = {
#define GPU_REASON_ROW(bit, key, text) {bit, key, text},
    GPU_CLOCK_REASONS(GPU_REASON_ROW)
#undef GPU_REASON_ROW
};
const unsigned gpu_n_clock_reasons = sizeof(gpu_clock_reasons) / sizeof(gpu_clock_reasons[0]);

const struct gpu_clock_reason gpu_intel_throttle[] = {
#define GPU_REASON_ROW(bit, key, text) {bit, key, text},
    GPU_INTEL_THROTTLE(GPU_REASON_ROW)
#undef GPU_REASON_ROW
};
const unsigned gpu_n_intel_throttle = sizeof(gpu_intel_throttle) / sizeof(gpu_intel_throttle[0]);

int gpu_metric_by_trace_name(const char *name)
{
	for (int m = 0; m < GPU_M_COUNT; m++)
		if (strcmp(gpu_metrics[m].trace_name, name) == 0)
			return m;
	return -1;
}

static const char *reasons_str(const struct gpu_clock_reason *t, unsigned nt,
			       unsigned long long mask, char *buf, unsigned len)
{
	size_t n = 0;
	unsigned long long known = 0;
	buf[0] = 0;
	for (unsigned i = 0; i < nt; i++) {
		known |= t[i].bit;
		if ((mask & t[i].bit) && n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "," : "", t[i].key);
	}
	if ((mask & ~known) && n < len)
		n += (size_t)snprintf(buf + n, len - n, "%s0x%llx", n ? "," : "", mask & ~known);
	if (!mask)
		snprintf(buf, len, "none");
	return buf;
}

const char *gpu_clock_reasons_str(unsigned long long mask, char *buf, unsigned len)
{
	return reasons_str(gpu_clock_reasons, gpu_n_clock_reasons, mask, buf, len);
}

const char *gpu_intel_throttle_str(unsigned long long mask, char *buf, unsigned len)
{
	return reasons_str(gpu_intel_throttle, gpu_n_intel_throttle, mask, buf, len);
}
