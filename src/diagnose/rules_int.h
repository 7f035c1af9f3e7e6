/*
 * rules_int.h - what the rule functions share (rules_host.c,
 * rules_kernel.c); the table that names them is rules.c's.
 */
#ifndef GPUSCOPE_RULES_INT_H
#define GPUSCOPE_RULES_INT_H

#include "analyze/analysis_int.h"
#include "diagnose/diagnose.h"
#include "diagnose/rules.h"
#include "diagnose/finding.h"
#include "diagnose/thresholds.h"

static inline enum severity rule_sev(double impact)
{
	return impact >= TH_CRIT_IMPACT_PCT   ? SEV_CRITICAL
	       : impact >= TH_WARN_IMPACT_PCT ? SEV_WARNING
					      : SEV_INFO;
}

static inline enum severity rule_cap_warning(enum severity s)
{
	return s > SEV_WARNING ? SEV_WARNING : s;
}

static inline double rule_ms(int64_t ns)
{
	return (double)ns / 1e6;
}

/* A kernel's names for a finding: full (demangled, for its values) and
 * line (cut to one readable line, for messages and actions: a PyTorch
 * kernel's full name runs to 400 characters); raw as recorded. */
struct rule_kname {
	const char *full, *raw; /* full: into buf or the trace's strings */
	char line[TH_NAME_COLS + 4];
	char buf[512];
};
void rule_kname(struct rule_kname *n, const struct analysis *a, const struct an_kernel_group *g);

/* The kernel-time gain more occupancy could bring (rules_kernel.c), which
 * latency_bound leaves to low_occupancy. */
double rule_occ_gain(const struct analysis *a);

int rule_input_pipeline(struct rule_ctx *c, const struct rule *r, char *err);
int rule_host_overhead(struct rule_ctx *c, const struct rule *r, char *err);
int rule_cuda_calls_idle(struct rule_ctx *c, const struct rule *r, char *err);
/* rules_contention.c: host_contention, and the primary it takes: a
 * host-side primary half of whose impact or more it explains */
int rule_host_contention(struct rule_ctx *c, const struct rule *r, char *err);
void an_contention_primary(struct analysis *a);
/* rules_compile.c */
int rule_recompilation(struct rule_ctx *c, const struct rule *r, char *err);
int rule_memory_peak(struct rule_ctx *c, const struct rule *r, char *err);
/* rules_padding.c: token batches padded to one fixed length (import's
 * kineto.shapes.* meta of a torch.profiler trace with record_shapes) */
struct an_padding {
	int64_t batch, len;	    /* the batches' size (the most common) and length */
	uint64_t lookups, steps;    /* embedding lookups of them; ProfilerStep ranges */
	uint64_t masked, attention; /* attention calls masking them; all */
};
/* Fills p and returns 1 when the batches look padded to a fixed length. */
int an_padding(const struct analysis *a, struct an_padding *p);
int rule_padding(struct rule_ctx *c, const struct rule *r, char *err);
/* rules_fill.c: deterministic mode's fill of every torch.empty */
int rule_deterministic_fill(struct rule_ctx *c, const struct rule *r, char *err);
/* rules_uvm.c */
int rule_unified_memory(struct rule_ctx *c, const struct rule *r, char *err);
/* The host idle that unified_memory explains: the host work in the host's
 * CPU-page-fault stretches (rules_uvm.c), in *host what the idle breakdown
 * counts as host work outside CUDA (host_overhead's), in *synced what it
 * charged to the syncs before (sync_stall's). 0, or -1 when out of memory. */
int rule_uvm_host_ns(struct rule_ctx *c, int64_t *host, int64_t *synced);
/* The bytes of managed memory the program allocated when the recording has
 * no unified-memory counters (*note, never NULL then: record's reason);
 * 0 when it has them, allocated none, or did not say (an older recording,
 * a profiler trace). */
int64_t an_managed_unrecorded(const struct analysis *a, const char **note);
/* A host-side finding's first action when an_managed_unrecorded: its host
 * time or waits may be managed memory's unseen faults; 1 when added. */
int adv_managed_unseen(struct finding *f, const struct analysis *a);
int rule_launch_overhead(struct rule_ctx *c, const struct rule *r, char *err);
int rule_transfer(struct rule_ctx *c, const struct rule *r, char *err);
int rule_sync_stall(struct rule_ctx *c, const struct rule *r, char *err);
int rule_small_grid(struct rule_ctx *c, const struct rule *r, char *err);
int rule_low_occupancy(struct rule_ctx *c, const struct rule *r, char *err);
int rule_tail_effect(struct rule_ctx *c, const struct rule *r, char *err);
int rule_memory_bound(struct rule_ctx *c, const struct rule *r, char *err);
int rule_compute_bound(struct rule_ctx *c, const struct rule *r, char *err);
int rule_latency_bound(struct rule_ctx *c, const struct rule *r, char *err);
int rule_divergence(struct rule_ctx *c, const struct rule *r, char *err);
int rule_bank_conflicts(struct rule_ctx *c, const struct rule *r, char *err);
int rule_uncoalesced(struct rule_ctx *c, const struct rule *r, char *err);
int rule_gpu_busy(struct rule_ctx *c, const struct rule *r, char *err);
/* job rules across ranks (rules_comm.c) */
int rule_comm_exposed(struct rule_ctx *c, const struct rule *r, char *err);
int rule_straggler(struct rule_ctx *c, const struct rule *r, char *err);

/* The diagnosis passes, run after the engine's (diagnose.c; the table's
 * form is analyze/analysis_int.h's). */
extern const struct an_pass diagnose_passes[];
extern const size_t n_diagnose_passes;
int an_rules(struct analysis *a, char *err);
/* Findings from per-kernel counters (rules_counters.c), raising *max_impact:
 * the specific causes (which: 0 divergence, 1 bank_conflicts, 2
 * uncoalesced) and each kernel's bound (0 memory, 1 compute, 2 latency). */
int an_counter_cause(struct analysis *a, int which, double *max_impact, char *err);
int an_counter_bound(struct analysis *a, int which, double *max_impact, char *err);
/* Share of the kernel time held by kernels that have counters (0..1). */
double an_counters_cover(const struct analysis *a);
int an_warnings(struct analysis *a, char *err);
/* unprofiled.c: a profiler trace's host-side verdict against its estimate
 * without the profiler's own cost (issue #36 item 8) */
int an_unprofiled(struct analysis *a, char *err);
/* The estimate started ahead on a thread of its own, once a's window is
 * known (t: the trace the window was cut from), when the trace is big
 * and there is a second CPU; an_unprofiled takes it or cancels it. Makes
 * nothing when it cannot start (an_unprofiled then makes the estimate). */
void an_unprofiled_ahead(struct analysis *a, const struct trace *t);
/* Cancels and joins it, frees what it made (nothing when none) */
void an_unprofiled_ahead_release(struct analysis *a);
/* analysis_run_opts for such an estimate: the analysis makes none of its
 * own (diagnose.c); with cancel (NULL: never), it stops between two passes
 * once *cancel is nonzero, -1 with err "cancelled" (a released) */
int an_run_estimate(struct analysis *a, const struct trace *t, const char *range, int whole,
		    const int *cancel, char *err);

#endif
