/*
 * kcounters.h - per-kernel hardware counters (`record --metrics kernels`,
 * torch.profiler's CUPTI range counters) turned into per-kernel numbers
 * and verdicts: speed of light, the bound (memory, compute and which pipe,
 * latency and its top stalls), divergence, shared-memory bank conflicts,
 * global-load coalescing, and a roofline point against the device's roofs.
 *
 * Input: the trace's counters rows (pid, correlation, metric name, value)
 * joined to kernels by (pid, correlation); metric names are
 * src/gpu/kernel_metrics.h's (Nsight Compute's). Counter evidence is exact
 * per launch, unlike GPM windows, so rules prefer it for the kernels it
 * covers. Every derived value is NAN when its inputs were not collected.
 *
 * Error contract: kc_build returns 0 (an empty table when the trace has no
 * counters) or -1 with a message in err; kc_release frees what it made.
 */
#ifndef GPUSCOPE_KCOUNTERS_H
#define GPUSCOPE_KCOUNTERS_H

#include <stddef.h>
#include <stdint.h>

#include "gpu/kernel_metrics.h"
#include "trace/trace.h"

enum kc_bound {
	KC_BOUND_UNKNOWN = 0,
	KC_BOUND_MEMORY,  /* the memory roof: DRAM, L2 or L1/shared (kc_group.unit) */
	KC_BOUND_COMPUTE, /* the SM roof: a pipe (kc_group.unit) */
	KC_BOUND_LATENCY, /* neither roof: stalls (kc_group.stall) */
};

#define KC_TOP_STALLS 3

struct kc_group {
	uint32_t name_id;
	uint32_t device;
	uint64_t launches;	     /* all launches of the kernel in the trace */
	uint64_t profiled;	     /* launches with counters */
	int64_t sum_ns;		     /* GPU time of all its launches (activity records) */
	double v[KM_COUNT];	     /* mean over the profiled launches */
	unsigned char has[KM_COUNT]; /* collected for at least one of them */
	/* derived; NAN when unknown */
	double sectors_per_request; /* global loads */
	double sectors_per_thread;  /* global-load sectors per thread access */
	double shared_ways;	    /* shared wavefronts per shared instruction */
	double bank_conflict_share; /* conflicts / shared wavefronts */
	double flop;		    /* per launch: fp32 + fp64 + fp16 + tensor */
	double tensor_flop;	    /* the tensor part of it */
	double dram_bytes;	    /* per launch */
	double intensity;	    /* flop / DRAM byte */
	double flop_per_s, dram_bytes_per_s;
	double roof_flop_per_s;	 /* the pipe's peak at the measured clock */
	double roof_bytes_per_s; /* the device's DRAM bandwidth */
	enum kc_bound bound;
	const char *unit;	  /* "DRAM", "L2", "L1/shared", "tensor pipe", "FMA pipe", ... */
	int stall[KC_TOP_STALLS]; /* KM_STALL_* ids, most first; -1 none */
	double stall_share[KC_TOP_STALLS]; /* of all stall cycles counted */
};

struct kc_table {
	struct kc_group *g; /* by sum_ns descending */
	size_t n;
	uint64_t rows, unmatched; /* counter rows, rows whose launch is not in the trace */
	double passes;		  /* replay passes per profiled launch (0: not said) */
	double graph_launches;	  /* graph launches the recorder could not profile */
};

int kc_build(struct kc_table *out, const struct trace *t, char *err);
void kc_release(struct kc_table *k);

/* The metric's id for an Nsight Compute name, -1 when not in the list. */
int kc_metric_id(const char *name);
/* The list's strings for an id (kernel_metrics.h). */
const char *kc_metric_name(int id);
const char *kc_metric_unit(int id);
const char *kc_metric_what(int id);
/* The verdict as a word ("memory", "compute", "latency", "unknown"). */
const char *kc_bound_name(enum kc_bound b);

/* The card's peak FLOP per SM per cycle for its compute capability: which
 * 0 fp32 (FFMA counted as 2), 1 fp64, 2 dense bf16/fp16 on tensor cores
 * (TF32 is half of it); 0 when not in the table. */
struct trace_device;
double kc_peak_per_sm_cycle(const struct trace_device *d, int which);

#endif
