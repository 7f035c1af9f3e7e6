/*
 * rules_counters.c - findings from per-kernel hardware counters
 * (kcounters.h): the specific causes first (divergence, bank_conflicts,
 * uncoalesced), then each remaining kernel's bound from its own speed of
 * light (memory_bound, compute_bound, latency_bound). docs/method.md §4.3 and
 * §6.1 give the mapping from signature to action; Nsight Compute's rules
 * give the thresholds (thresholds.h). Counter evidence is per launch, so
 * when the kernels it covers hold at least TH_COUNTERS_COVER of the kernel
 * time, rules.c leaves out the GPM-window verdicts, which mix kernels.
 *
 * Impacts (share of the analysed wall time; docs/report-rules.md):
 *  - divergence: kernel time x (1 - threads per instruction / 32), the
 *    share of issue slots that ran with lanes masked off;
 *  - bank_conflicts: kernel time x (1 - 1 / wavefronts per shared
 *    instruction) x the L1/shared throughput share: the serialised
 *    wavefronts' part of a kernel that is busy in shared memory;
 *  - uncoalesced: kernel time x (1 - 0.5 / sectors per thread access): at
 *    most 16 of the 32 bytes of each fetched sector are used when each
 *    thread access takes a sector or more (a lower bound of the waste: with
 *    4-byte accesses it is 7/8);
 *  - memory_bound / compute_bound: the time of the kernels at that roof;
 *  - latency_bound: kernel time x (1 - the higher throughput / the 80% roof).
 * A kernel with a specific cause is not counted again in its bound.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diagnose/rules_int.h"
#include "analyze/kcounters.h"
#include "diagnose/thresholds.h"
#include "util/demangle.h"
#include "util/error.h"
#include "util/i18n.h"

static enum severity sev_for(double impact)
{
	return impact >= TH_CRIT_IMPACT_PCT   ? SEV_CRITICAL
	       : impact >= TH_WARN_IMPACT_PCT ? SEV_WARNING
					      : SEV_INFO;
}

static enum severity cap_warning(enum severity s)
{
	return s > SEV_WARNING ? SEV_WARNING : s;
}

/* The kernel's demangled name, one line. */
static const char *kname(const struct analysis *a, const struct kc_group *g, char *buf, size_t n)
{
	char dm[1024];
	const char *s = trace_str(a->t, g->name_id);
	if (!*s)
		return "(unnamed kernel)";
	return gs_one_line_name(gs_demangle(s, dm, sizeof(dm)), buf, n, TH_NAME_COLS);
}

static const char *kfull(const struct analysis *a, const struct kc_group *g, char *buf, size_t n)
{
	const char *s = trace_str(a->t, g->name_id);
	return *s ? gs_demangle(s, buf, n) : "(unnamed kernel)";
}

static double v(const struct kc_group *g, int id)
{
	return g->has[id] ? g->v[id] : NAN;
}

/* The busiest memory unit's throughput %; memory speed of light when no
 * unit was measured (a torch.profiler trace with a few metrics). */
static double unit_pct(const struct kc_group *g)
{
	if (g->unit && !strcmp(g->unit, "DRAM"))
		return v(g, KM_DRAM_PCT);
	if (g->unit && !strcmp(g->unit, "L2"))
		return v(g, KM_L2_PCT);
	if (g->unit && !strcmp(g->unit, "L1/shared"))
		return v(g, KM_L1_PCT);
	return v(g, KM_MEM_SOL);
}

static double pct01(double p)
{
	return isnan(p) ? 1.0 : p < 0 ? 0 : p > 100 ? 1.0 : p / 100.0;
}

enum cause { C_NONE, C_DIVERGENCE, C_BANK, C_UNCOALESCED };

static enum cause cause_of(const struct kc_group *g)
{
	if (!isnan(v(g, KM_THREADS_PER_INST)) && v(g, KM_THREADS_PER_INST) < TH_DIVERGENCE_THREADS)
		return C_DIVERGENCE;
	if (!isnan(g->shared_ways) && g->shared_ways >= TH_BANK_WAYS)
		return C_BANK;
	if (!isnan(g->sectors_per_thread) && g->sectors_per_thread >= TH_SECTORS_PER_THREAD)
		return C_UNCOALESCED;
	return C_NONE;
}

static double cause_impact(const struct analysis *a, const struct kc_group *g, enum cause c)
{
	double share = an_pct(a, (double)g->sum_ns);
	switch (c) {
	case C_DIVERGENCE:
		return share * (1.0 - v(g, KM_THREADS_PER_INST) / 32.0);
	case C_BANK:
		return share * (1.0 - 1.0 / g->shared_ways) * pct01(v(g, KM_L1_PCT));
	case C_UNCOALESCED:
		/* not weighted by memory throughput: scattered sectors cost
		 * transactions and latency even where bandwidth is not the roof
		 * (H200: the zoo's uncoalesced ran 3.2x slower than coalesced at
		 * 45% memory throughput) */
		return share * (1.0 - 0.5 / g->sectors_per_thread);
	default:
		return 0;
	}
}

/* The group's findings for one cause: the kernels that have it, the
 * largest-impact one named; 0 or -1 (out of memory). */
static int cause_finding(struct analysis *a, const struct kc_table *k, enum cause c,
			 double *max_impact, char *err)
{
	const struct kc_group *top = NULL;
	double impact = 0, top_impact = 0;
	int n = 0;
	for (size_t i = 0; i < k->n; i++) {
		const struct kc_group *g = &k->g[i];
		if (cause_of(g) != c)
			continue;
		double x = cause_impact(a, g, c);
		impact += x;
		n++;
		if (!top || x > top_impact) {
			top = g;
			top_impact = x;
		}
	}
	if (!top || impact < TH_MIN_IMPACT_PCT)
		return 0;
	char nm[TH_NAME_COLS + 8], full[1024];
	kname(a, top, nm, sizeof(nm));
	struct finding *f = NULL;
	if (c == C_DIVERGENCE)
		f = finding_add(&a->findings, "divergence", cap_warning(sev_for(impact)),
				N_("%s runs %.1f of 32 threads per instruction: warps diverge"), nm,
				v(top, KM_THREADS_PER_INST));
	else if (c == C_BANK)
		f = finding_add(&a->findings, "bank_conflicts", cap_warning(sev_for(impact)),
				N_("%s takes %.1f shared-memory wavefronts per instruction: bank "
				   "conflicts serialise its shared-memory accesses"),
				nm, top->shared_ways);
	else
		f = finding_add(
		    &a->findings, "uncoalesced", cap_warning(sev_for(impact)),
		    N_("%s fetches %.1f sectors per global-load request (%.2f per thread "
		       "access): most fetched bytes go unused"),
		    nm, top->sectors_per_request, top->sectors_per_thread);
	if (!f)
		return error_set(err, "out of memory");
	f->impact_pct = impact;
	finding_str(f, "kernel", "%s", kfull(a, top, full, sizeof(full)));
	finding_num(f, "kernel_time_pct", an_pct(a, (double)top->sum_ns));
	finding_num(f, "kernels_affected", n);
	finding_num(f, "profiled_launches", (double)top->profiled);
	if (c == C_DIVERGENCE) {
		finding_num(f, "threads_per_instruction", v(top, KM_THREADS_PER_INST));
		finding_num(f, "threads_per_warp", 32); /* the title's "of 32" */
		finding_num(f, "divergence_threshold_threads", TH_DIVERGENCE_THREADS);
		finding_action(f,
			       N_("reorder the data (sort or bucket by branch condition) so that "
				  "the lanes of a warp take the same path"));
		finding_action(f, N_("replace short branches with arithmetic or selects; hoist "
				     "per-lane loops whose trip count differs out of the warp"));
		finding_action(f,
			       N_("check with ncu's Source page (ncu --set full -k "
				  "regex:'%.40s') which branch diverges"),
			       nm);
	} else if (c == C_BANK) {
		finding_num(f, "shared_wavefronts_per_instruction", top->shared_ways);
		finding_num(f, "bank_conflict_pct", 100.0 * top->bank_conflict_share);
		finding_num(f, "l1_shared_throughput_pct", v(top, KM_L1_PCT));
		finding_action(f,
			       N_("pad shared-memory tiles by one word per row (tile[32][33]) so "
				  "that a warp's column accesses fall in 32 different banks"));
		finding_action(f, N_("use a swizzled (XOR) layout, or have consecutive lanes touch "
				     "consecutive 4-byte words"));
	} else {
		finding_num(f, "sectors_per_request", top->sectors_per_request);
		finding_num(f, "sectors_per_thread_access", top->sectors_per_thread);
		finding_num(f, "max_bytes_used_pct",
			    100.0 * fmin(1.0, 0.5 / top->sectors_per_thread));
		finding_num(f, "memory_throughput_pct", v(top, KM_MEM_SOL));
		finding_num(f, "dram_throughput_pct", v(top, KM_DRAM_PCT));
		finding_action(f,
			       N_("have consecutive lanes read consecutive addresses (index with "
				  "threadIdx.x in the fastest-moving dimension)"));
		finding_action(f,
			       N_("change the layout (structure of arrays instead of array of "
				  "structures, or transpose through shared memory) so that a warp "
				  "reads whole 32-byte sectors"));
		finding_action(f, N_("load wider (float4) once the accesses are contiguous"));
	}
	*max_impact = fmax(*max_impact, impact);
	return 0;
}

static const char *stall_name(int id)
{
	switch (id) {
	case KM_STALL_LONG_SB:
		return "long_scoreboard";
	case KM_STALL_SHORT_SB:
		return "short_scoreboard";
	case KM_STALL_BARRIER:
		return "barrier";
	case KM_STALL_MIO:
		return "mio_throttle";
	case KM_STALL_LG:
		return "lg_throttle";
	case KM_STALL_MATH:
		return "math_pipe_throttle";
	case KM_STALL_WAIT:
		return "wait";
	case KM_STALL_NOT_SELECTED:
		return "not_selected";
	default:
		return "";
	}
}

static void roofline_evidence(struct finding *f, const struct kc_group *g)
{
	if (!isnan(g->dram_bytes_per_s))
		finding_num(f, "dram_gbps", g->dram_bytes_per_s / 1e9);
	if (!isnan(g->roof_bytes_per_s))
		finding_num(f, "dram_roof_gbps", g->roof_bytes_per_s / 1e9);
	if (!isnan(g->flop_per_s))
		finding_num(f, "tflops", g->flop_per_s / 1e12);
	if (!isnan(g->roof_flop_per_s))
		finding_num(f, "tflops_roof", g->roof_flop_per_s / 1e12);
}

/* memory_bound, compute_bound and latency_bound from each kernel's own
 * speed of light, for the kernels no specific cause explains. */
static int bound_finding(struct analysis *a, const struct kc_table *k, int b, double *max_impact,
			 char *err)
{
	static const enum kc_bound bounds[3] = {KC_BOUND_MEMORY, KC_BOUND_COMPUTE,
						KC_BOUND_LATENCY};
	static const char *const ids[3] = {"memory_bound", "compute_bound", "latency_bound"};
	{
		const struct kc_group *top = NULL;
		double impact = 0;
		int n = 0;
		for (size_t i = 0; i < k->n; i++) {
			const struct kc_group *g = &k->g[i];
			if (g->bound != bounds[b] || cause_of(g) != C_NONE)
				continue;
			double share = an_pct(a, (double)g->sum_ns), x = share;
			if (bounds[b] == KC_BOUND_LATENCY)
				x = share *
				    fmax(0.0, 1.0 - fmax(v(g, KM_SM_SOL), v(g, KM_MEM_SOL)) /
							TH_SOL_HIGH_PCT);
			impact += x;
			n++;
			if (!top)
				top = g; /* the table is by kernel time */
		}
		if (!top || impact < TH_MIN_IMPACT_PCT)
			return 0;
		char nm[TH_NAME_COLS + 8], full[1024];
		kname(a, top, nm, sizeof(nm));
		double sm = v(top, KM_SM_SOL), mem = v(top, KM_MEM_SOL);
		/* at the roof (Nsight Compute: >= 80% is high throughput) the kernel
		 * does what the hardware allows: healthy, info */
		int at_roof = fmax(sm, mem) >= TH_SOL_HIGH_PCT;
		enum severity sev = at_roof ? SEV_INFO : cap_warning(sev_for(impact));
		struct finding *f;
		if (bounds[b] == KC_BOUND_MEMORY)
			f = finding_add(
			    &a->findings, ids[b], sev,
			    N_("%s is memory-bound: %s at %.0f%% of its peak (memory %.0f%%, "
			       "SM %.0f%%)%s"),
			    nm, top->unit ? top->unit : "memory", unit_pct(top), mem, sm,
			    at_roof ? ": at the roof" : "");
		else if (bounds[b] == KC_BOUND_COMPUTE)
			f = finding_add(
			    &a->findings, ids[b], sev,
			    N_("%s is compute-bound on the %s (SM %.0f%%, memory %.0f%%)%s"), nm,
			    top->unit ? top->unit : "SM pipes", sm, mem,
			    at_roof ? ": at the roof" : "");
		else
			f = finding_add(
			    &a->findings, ids[b], sev,
			    N_("%s reaches neither roof (SM %.0f%%, memory %.0f%%): warps "
			       "stall, mostly on %s"),
			    nm, sm, mem,
			    top->stall[0] >= 0 ? stall_name(top->stall[0]) : "unknown");
		if (!f)
			return error_set(err, "out of memory");
		f->impact_pct = impact;
		finding_str(f, "kernel", "%s", kfull(a, top, full, sizeof(full)));
		finding_str(f, "evidence_source", "kernel counters");
		finding_num(f, "kernel_time_pct", an_pct(a, (double)top->sum_ns));
		finding_num(f, "kernels_affected", n);
		finding_num(f, "sm_throughput_pct", sm);
		finding_num(f, "memory_throughput_pct", mem);
		finding_num(f, "achieved_occupancy_pct", v(top, KM_ACHIEVED_OCC));
		if (top->unit)
			finding_str(f, "unit", "%s", top->unit);
		if (bounds[b] == KC_BOUND_MEMORY) /* the title's "at N% of its peak" */
			finding_num(f, "unit_throughput_pct", unit_pct(top));
		roofline_evidence(f, top);
		for (int s = 0; s < KC_TOP_STALLS && top->stall[s] >= 0; s++) {
			char key[48];
			snprintf(key, sizeof(key), "stall_%s_pct", stall_name(top->stall[s]));
			finding_num(f, key, 100.0 * top->stall_share[s]);
		}
		if (bounds[b] == KC_BOUND_MEMORY) {
			if (at_roof)
				finding_action(
				    f,
				    N_("the kernel moves bytes as fast as the %s allows: "
				       "only fewer bytes help (fusion with its neighbours, "
				       "lower precision, reuse in shared memory)"),
				    top->unit ? top->unit : "memory");
			else
				finding_action(f, N_("cut memory passes: fuse with neighbouring "
						     "kernels, reuse data in shared memory"));
			finding_action(f,
				       N_("move fewer bytes: bf16/fp8 data, compressed or packed "
					  "layouts"));
		} else if (bounds[b] == KC_BOUND_COMPUTE) {
			if (top->unit && !strcmp(top->unit, "tensor pipe"))
				finding_action(f,
					       N_("the tensor cores are the limit: lower precision "
						  "(fp8) or less arithmetic (algorithmic savings) "
						  "are what is left"));
			else
				finding_action(f,
					       N_("move the arithmetic to tensor cores (bf16/tf32 "
						  "matmuls) or to lower precision where accuracy "
						  "allows"));
			finding_action(f, N_("look for algorithmic savings in the top kernel"));
		} else {
			if (top->stall[0] == KM_STALL_LONG_SB)
				finding_action(f,
					       N_("hide memory latency: more independent loads per "
						  "thread, higher occupancy (fewer registers), "
						  "prefetch into shared memory"));
			else if (top->stall[0] == KM_STALL_BARRIER)
				finding_action(
				    f, N_("fewer __syncthreads: smaller blocks or less work "
					  "between barriers that waits on the slowest warp"));
			else if (top->stall[0] == KM_STALL_WAIT || top->stall[0] == KM_STALL_MATH)
				finding_action(f,
					       N_("more independent instructions per thread (ILP: "
						  "unroll, several accumulators)"));
			else
				finding_action(f,
					       N_("put more work in flight: higher occupancy, more "
						  "independent instructions per thread"));
			finding_action(f,
				       N_("read the stall reasons per line in ncu's Source page "
					  "(ncu --set full -k regex:'%.40s')"),
				       nm);
		}
		*max_impact = fmax(*max_impact, impact);
	}
	return 0;
}

double an_counters_cover(const struct analysis *a)
{
	int64_t covered = 0;
	for (size_t i = 0; i < a->kc.n; i++)
		covered += a->kc.g[i].sum_ns;
	return a->kernel_sum_ns > 0 ? (double)covered / (double)a->kernel_sum_ns : 0;
}

int an_counter_cause(struct analysis *a, int which, double *max_impact, char *err)
{
	static const enum cause causes[3] = {C_DIVERGENCE, C_BANK, C_UNCOALESCED};
	if (!a->kc.n || which < 0 || which > 2)
		return 0;
	return cause_finding(a, &a->kc, causes[which], max_impact, err);
}

int an_counter_bound(struct analysis *a, int which, double *max_impact, char *err)
{
	if (!a->kc.n || which < 0 || which > 2)
		return 0;
	return bound_finding(a, &a->kc, which, max_impact, err);
}
