/*
 * rules_kernel.c - the kernel-side rules: how the GPU's busy time is spent.
 * Shape rules (small_grid, low_occupancy, tail_effect) charge the kernel
 * time a better launch shape would win back; the speed-of-light rules
 * (memory_bound, compute_bound, latency_bound) class the busy time by the
 * GPM windows (gpm.c); gpu_busy is what they leave when the GPU is kept
 * busy. Short kernels get no shape cost: their time is launch cost
 * (launch_overhead's). A device rule reads one device: devices[0] is it.
 */
#include <string.h>

#include "analyze/rules_int.h"
#include "util/error.h"
#include "util/i18n.h"

static int oom(char *err)
{
	return error_set(err, "out of memory");
}

static uint32_t sm_count(const struct analysis *a)
{
	return a->n_devices ? a->devices[0].sm_count : 0;
}

static void keep_max(struct rule_ctx *c, double impact)
{
	c->kernel_max = impact > c->kernel_max ? impact : c->kernel_max;
}

/* The costliest kernel (kgroups are by time) with a small grid (small = 1)
 * or with low occupancy on a full grid (small = 0); NULL when none. */
static const struct an_kernel_group *top_group_where(const struct analysis *a, int small)
{
	uint32_t sms = sm_count(a);
	for (size_t i = 0; i < a->n_kgroups; i++) {
		const struct an_kernel_group *g = &a->kgroups[i];
		if (g->median_ns < TH_SHORT_KERNEL_NS)
			continue; /* launch cost, not shape (kernels.c) */
		if (small == 1 && sms && g->grid_blocks > 0 && g->grid_blocks < sms)
			return g;
		if (small == 0 && g->occupancy >= 0 && g->occupancy < TH_OCCUPANCY && !g->tuned &&
		    !(sms && g->grid_blocks < sms))
			return g;
	}
	return NULL;
}

int rule_small_grid(struct rule_ctx *c, const struct rule *r, char *err)
{
	struct analysis *a = c->a;
	uint32_t sms = sm_count(a);
	const struct an_metric *sm = &a->metrics[AM_SM];
	double impact = an_pct(a, a->small_grid_waste_ns);
	const struct an_kernel_group *g = top_group_where(a, 1);
	if (impact < TH_MIN_IMPACT_PCT || !g)
		return 0;
	struct rule_kname n;
	rule_kname(&n, a, g);
	struct finding *f =
	    finding_add(&a->findings, r->id, rule_sev(impact),
			_("%s runs %lld blocks on %u SMs: most SMs idle for %.0f%% of the run"),
			n.line, g->grid_blocks, sms, impact);
	if (!f)
		return oom(err);
	f->impact_pct = impact;
	finding_str(f, "kernel", "%s", n.full);
	finding_num(f, "grid_blocks", (double)g->grid_blocks);
	finding_num(f, "sm_count", sms);
	finding_num(f, "small_grid_time_pct", an_pct(a, (double)a->small_grid_ns));
	if (sm->valid && sm->n_busy)
		finding_num(f, "gpm_sm_util_busy_pct", sm->mean_busy);
	finding_action(f,
		       _("launch at least one block per SM (%u): more parallelism per "
			 "launch, a grid-stride loop over more, smaller blocks"),
		       sms);
	finding_action(f, _("split the work (split-K, per-row blocks) or batch several "
			    "problems into one launch"));
	finding_action(f, _("run independent small kernels concurrently on separate streams"));
	keep_max(c, impact);
	return 0;
}

double rule_occ_gain(const struct analysis *a)
{
	return a->sol.valid ? a->low_occ_gain_full_ns : a->low_occ_gain_ns;
}

/* More occupancy does not help a kernel already at a roof; a kernel that is
 * latency-bound speeds up about in proportion to its resident warps (up to
 * TH_OCCUPANCY). With GPM the uncapped gain counts on the busy time not at
 * a roof; without, the capped estimate counts. */
int rule_low_occupancy(struct rule_ctx *c, const struct rule *r, char *err)
{
	struct analysis *a = c->a;
	const struct an_sol *sol = &a->sol;
	double at_roof = sol->valid ? sol->mem + sol->compute : 0;
	double impact = an_pct(a, rule_occ_gain(a)) * (1.0 - at_roof);
	const struct an_kernel_group *g = top_group_where(a, 0);
	if (impact < TH_MIN_IMPACT_PCT || !g)
		return 0;
	struct rule_kname n;
	rule_kname(&n, a, g);
	/* the headline's figure is the evidence's: 12.5, not a rounded 12 */
	struct finding *f =
	    finding_add(&a->findings, r->id, rule_cap_warning(rule_sev(impact)),
			_("%s reaches %.4g%% theoretical occupancy (limited by %s)"), n.line,
			100.0 * g->occupancy, g->limiter);
	if (!f)
		return oom(err);
	f->impact_pct = impact;
	finding_str(f, "kernel", "%s", n.full);
	finding_num(f, "occupancy_pct", 100.0 * g->occupancy);
	finding_str(f, "limiter", "%s", g->limiter);
	finding_num_if(f, "registers_per_thread", g->regs > 0, g->regs);
	finding_num(f, "block_size", g->block_threads);
	finding_num(f, "smem_per_block", g->smem);
	finding_num(f, "low_occupancy_time_pct", an_pct(a, (double)a->low_occ_ns));
	/* achieved beside theoretical when the kernel has counters */
	for (size_t i = 0; i < a->kc.n; i++)
		if (a->kc.g[i].name_id == g->name_id && a->kc.g[i].has[KM_ACHIEVED_OCC])
			finding_num(f, "achieved_occupancy_pct", a->kc.g[i].v[KM_ACHIEVED_OCC]);
	if (strcmp(g->limiter, "registers") == 0)
		finding_action(f,
			       _("cut registers: __launch_bounds__(%d, minBlocks) or "
				 "-maxrregcount; %u registers/thread limit the SM"),
			       g->block_threads, g->regs);
	else if (strcmp(g->limiter, "shared_memory") == 0)
		finding_action(f, _("use smaller shared-memory tiles (%u bytes per block now)"),
			       g->smem);
	else
		finding_action(f,
			       _("change the block size (%d threads now) so more blocks "
				 "fit per SM"),
			       g->block_threads);
	finding_action(f,
		       _("check the occupancy calculator: gpuscope occupancy --arch sm_90 "
			 "--block-size %d --regs %u --smem %u"),
		       g->block_threads, g->regs, g->smem);
	keep_max(c, impact);
	return 0;
}

int rule_tail_effect(struct rule_ctx *c, const struct rule *r, char *err)
{
	struct analysis *a = c->a;
	double impact = an_pct(a, a->tail_waste_ns);
	if (impact < TH_MIN_IMPACT_PCT)
		return 0;
	struct finding *f =
	    finding_add(&a->findings, r->id, rule_cap_warning(rule_sev(impact)),
			_("partial last waves leave SMs idle for %.0f%% of the run"), impact);
	if (!f)
		return oom(err);
	f->impact_pct = impact;
	finding_action(f, _("size grids to a whole number of waves (blocks per SM x %u SMs)"),
		       sm_count(a));
	finding_action(f, _("use a persistent-kernel or grid-stride loop with one wave"));
	keep_max(c, impact);
	return 0;
}

/* The speed-of-light rules: per-kernel counters say the bound of each
 * kernel they cover (rules_counters.c); GPM sample windows (gpm.c) say it
 * of the busy time, and count only when counters cover less than
 * TH_COUNTERS_COVER of the kernel time (the windows mix kernels): the
 * higher roof at >= 60% names the bound, both under 60% is latency.
 * Without either these stay quiet. Returns 1 when the GPM rule applies, 0
 * when not, -1 on error. */
static int sol_rule(struct rule_ctx *c, int which, char *err)
{
	struct analysis *a = c->a;
	if (an_counter_bound(a, which, &c->kernel_max, err) < 0)
		return -1;
	return a->sol.valid && an_counters_cover(a) < TH_COUNTERS_COVER;
}

int rule_memory_bound(struct rule_ctx *c, const struct rule *r, char *err)
{
	struct analysis *a = c->a;
	const struct an_sol *sol = &a->sol;
	int gpm = sol_rule(c, 0, err);
	if (gpm <= 0)
		return gpm;
	double impact = an_pct(a, (double)a->kernel_ns) * sol->mem;
	if (impact < TH_MIN_IMPACT_PCT)
		return 0;
	struct finding *f =
	    finding_add(&a->findings, r->id, rule_cap_warning(rule_sev(impact)),
			_("kernels are bound by DRAM bandwidth (%.0f%% of peak while "
			  "busy)"),
			sol->dram);
	if (!f)
		return oom(err);
	f->impact_pct = impact;
	finding_num(f, "gpm_dram_bw_util_busy_pct", sol->dram);
	finding_num(f, "gpm_pipe_util_busy_pct", sol->pipe);
	finding_num(f, "busy_time_memory_bound_pct", 100.0 * sol->mem);
	finding_action(f, _("cut DRAM passes: fuse consecutive kernels, reuse data in "
			    "shared memory"));
	finding_action(f, _("use lower precision (bf16/fp8) to move fewer bytes"));
	keep_max(c, impact);
	return 0;
}

int rule_compute_bound(struct rule_ctx *c, const struct rule *r, char *err)
{
	struct analysis *a = c->a;
	const struct an_sol *sol = &a->sol;
	const struct an_metric *sm = &a->metrics[AM_SM], *ten = &a->metrics[AM_TENSOR],
			       *fp = &a->metrics[AM_FP32];
	int gpm = sol_rule(c, 1, err);
	if (gpm <= 0)
		return gpm;
	double impact = an_pct(a, (double)a->kernel_ns) * sol->compute;
	if (impact < TH_MIN_IMPACT_PCT)
		return 0;
	struct finding *f =
	    finding_add(&a->findings, r->id, rule_cap_warning(rule_sev(impact)),
			_("kernels are bound by the SM pipes (fp32/tensor %.0f%% of "
			  "peak while busy)"),
			sol->pipe);
	if (!f)
		return oom(err);
	f->impact_pct = impact;
	if (sm->valid)
		finding_num(f, "gpm_sm_util_busy_pct", sm->mean_busy);
	if (fp->valid)
		finding_num(f, "gpm_fp32_util_busy_pct", fp->mean_busy);
	if (ten->valid)
		finding_num(f, "gpm_tensor_util_busy_pct", ten->mean_busy);
	finding_num(f, "busy_time_compute_bound_pct", 100.0 * sol->compute);
	if (!ten->valid || ten->mean_busy < TH_SOL_LOW_PCT)
		finding_action(f, _("use tensor cores (bf16/tf32/fp8 matmuls) where "
				    "fp32 runs"));
	finding_action(f, _("look for algorithmic savings in the top kernels"));
	finding_action(f, _("use lower precision where accuracy allows (fp8, "
			    "bf16)"));
	keep_max(c, impact);
	return 0;
}

int rule_latency_bound(struct rule_ctx *c, const struct rule *r, char *err)
{
	struct analysis *a = c->a;
	const struct an_sol *sol = &a->sol;
	const struct an_metric *sm = &a->metrics[AM_SM];
	int gpm = sol_rule(c, 2, err);
	if (gpm <= 0)
		return gpm;
	/* what the shape findings do not already explain */
	double rest = (double)a->kernel_ns - a->small_grid_waste_ns - rule_occ_gain(a) -
		      (double)a->short_floor_ns;
	double impact = rest > 0 ? an_pct(a, rest) * sol->latency : 0;
	if (impact < TH_MIN_IMPACT_PCT)
		return 0;
	struct finding *f =
	    finding_add(&a->findings, r->id, rule_cap_warning(rule_sev(impact)),
			_("kernels reach neither roof: DRAM %.0f%%, pipes %.0f%% of "
			  "peak while busy"),
			sol->dram, sol->pipe);
	if (!f)
		return oom(err);
	f->impact_pct = impact;
	finding_num(f, "gpm_dram_bw_util_busy_pct", sol->dram);
	finding_num(f, "gpm_pipe_util_busy_pct", sol->pipe);
	if (sm->valid)
		finding_num(f, "gpm_sm_util_busy_pct", sm->mean_busy);
	finding_num(f, "busy_time_latency_bound_pct", 100.0 * sol->latency);
	if (sol->dram > sol->pipe)
		finding_action(f,
			       _("memory-side: keep more bytes in flight to reach the "
				 "DRAM roof (%.0f%% now): wider loads (float4), more "
				 "independent loads per thread, higher occupancy"),
			       sol->dram);
	else
		finding_action(f, _("put more work in flight: higher occupancy, "
				    "more independent instructions per thread (ILP)"));
	finding_action(f, _("check access patterns: coalesced global loads, no "
			    "shared-memory bank conflicts, little warp divergence"));
	finding_action(f, _("profile the top kernel with ncu (WarpState, "
			    "MemoryWorkloadAnalysis) for its stall reasons"));
	keep_max(c, impact);
	return 0;
}

/* The specific causes per-kernel counters find (rules_counters.c). */
int rule_divergence(struct rule_ctx *c, const struct rule *r, char *err)
{
	return an_counter_cause(c->a, 0, &c->kernel_max, err);
}

int rule_bank_conflicts(struct rule_ctx *c, const struct rule *r, char *err)
{
	return an_counter_cause(c->a, 1, &c->kernel_max, err);
}

int rule_uncoalesced(struct rule_ctx *c, const struct rule *r, char *err)
{
	return an_counter_cause(c->a, 2, &c->kernel_max, err);
}

/* At >= TH_GPU_BUSY_PCT busy, host-side findings can explain at most the
 * idle rest: they stay listed, below this one. Its impact is the kernel
 * time the kernel-side findings leave unexplained (copies keep the GPU
 * "busy" too, but they are transfer's business); when one of those
 * explains a third of the run it is the more specific answer, so gpu_busy
 * stays just below it. */
int rule_gpu_busy(struct rule_ctx *c, const struct rule *r, char *err)
{
	struct analysis *a = c->a;
	double busy = an_pct(a, (double)a->busy_ns);
	if (busy < TH_GPU_BUSY_PCT)
		return 0;
	double kernel_max = c->kernel_max;
	double impact = an_pct(a, (double)a->kernel_ns) - kernel_max;
	if (kernel_max >= TH_CRIT_IMPACT_PCT && impact >= kernel_max)
		impact = 0.99 * kernel_max;
	struct finding *f =
	    finding_add(&a->findings, r->id, SEV_INFO,
			_("the GPU is busy %.0f%% of the run: look inside the kernels "
			  "first, the host side is not the main problem"),
			busy);
	if (!f)
		return oom(err);
	f->impact_pct = impact > 0 ? impact : 0;
	finding_num(f, "gpu_busy_pct", busy);
	finding_num(f, "kernel_time_pct", an_pct(a, (double)a->kernel_ns));
	if (a->n_kgroups) {
		struct rule_kname n;
		rule_kname(&n, a, &a->kgroups[0]);
		finding_str(f, "top_kernel", "%s", n.full);
		finding_num(f, "top_kernel_share_pct", a->kgroups[0].share_pct);
		finding_action(
		    f,
		    _("look inside the top kernels, starting with %s (%.0f%% of GPU "
		      "time): ncu --set full --kernel-name-base mangled -k regex:'%.60s'"),
		    n.line, a->kgroups[0].share_pct, n.raw);
	}
	finding_action(f, _("compare against a saved baseline with gpuscope diff after each "
			    "change"));
	return 0;
}
