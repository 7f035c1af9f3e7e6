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

#include "diagnose/advice.h"
#include "diagnose/rules_int.h"
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
		/* occupancy is advice for the program's own kernels: a library's,
		 * the framework's or a compiler's are not the user's to change */
		if (small == 0 && g->occupancy >= 0 && g->occupancy < TH_OCCUPANCY && !g->tuned &&
		    g->owner == KO_USER && !(sms && g->grid_blocks < sms))
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
			N_("%s runs %lld blocks on %u SMs: most SMs idle for %.1f%% of the run"),
			n.line, g->grid_blocks, sms, impact);
	if (!f)
		return oom(err);
	f->impact_pct = impact;
	finding_str(f, "kernel", "%s", n.full);
	finding_num(f, "sm_idle_pct", impact);
	finding_num(f, "grid_blocks", (double)g->grid_blocks);
	finding_num(f, "sm_count", sms);
	finding_num(f, "small_grid_time_pct", an_pct(a, (double)a->small_grid_ns));
	if (sm->valid && sm->n_busy)
		finding_num(f, "gpm_sm_util_busy_pct", sm->mean_busy);
	finding_str(f, "kernel_owner", "%s", kown_name((enum kown)g->owner));
	if (g->owner == KO_USER) {
		finding_action(f,
			       N_("launch at least one block per SM (%u): more parallelism per "
				  "launch, a grid-stride loop over more, smaller blocks"),
			       sms);
		finding_action(f, N_("split the work (split-K, per-row blocks) or batch several "
				     "problems into one launch"));
	} else {
		/* not the user's kernel: the shape of the work it is given is */
		finding_action(f,
			       N_("the kernel is a library's or the framework's: give each call "
				  "more work (a larger batch or problem), or batch several small "
				  "calls into one"));
	}
	finding_action(f, N_("run independent small kernels concurrently on separate streams"));
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
			N_("%s reaches %.4g%% theoretical occupancy (limited by %s)"), n.line,
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
			       N_("cut registers: __launch_bounds__(%d, minBlocks) or "
				  "-maxrregcount; %u registers/thread limit the SM"),
			       g->block_threads, g->regs);
	else if (strcmp(g->limiter, "shared_memory") == 0)
		finding_action(f, N_("use smaller shared-memory tiles (%u bytes per block now)"),
			       g->smem);
	else
		finding_action(f,
			       N_("change the block size (%d threads now) so more blocks "
				  "fit per SM"),
			       g->block_threads);
	finding_action(f,
		       N_("check the occupancy calculator: gpuscope occupancy --arch sm_90 "
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
			N_("partial last waves leave SMs idle for %.1f%% of the run"), impact);
	if (!f)
		return oom(err);
	f->impact_pct = impact;
	finding_num(f, "tail_idle_pct", impact);
	finding_action(f, N_("size grids to a whole number of waves (blocks per SM x %u SMs)"),
		       sm_count(a));
	finding_action(f, N_("use a persistent-kernel or grid-stride loop with one wave"));
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

/* The family holding the most busy time of class cls (0 memory, 1
 * compute, 2 latency) in the windows it dominates (families.c), -1 when
 * none. */
static int family_of_class(const struct analysis *a, int cls)
{
	int best = -1;
	double bt = 0;
	for (int f = 0; f < KF_COUNT; f++) {
		const struct an_family *x = &a->fam.f[f];
		double share = cls == 0 ? x->mem : cls == 1 ? x->compute : x->latency;
		double t = share * (double)x->sampled_ns;
		if (t > bt) {
			bt = t;
			best = f;
		}
	}
	return best;
}

/* whose kernels a family's top kernel is: enum kown (KO_USER unknown) */
static int family_owner(const struct analysis *a, int fam)
{
	if (fam < 0)
		return KO_USER;
	uint32_t id = a->fam.f[fam].top_name_id;
	for (size_t i = 0; i < a->n_kgroups; i++)
		if (a->kgroups[i].name_id == id)
			return a->kgroups[i].owner;
	return KO_USER;
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
	int fam = family_of_class(a, 0);
	double dram = fam >= 0 ? a->fam.f[fam].dram : sol->dram;
	/* #16 item 2: a roof already reached is a healthy verdict with what is
	 * left, not a warning with a fix */
	int roof = dram >= TH_SOL_HIGH_PCT;
	struct finding *f =
	    roof ? finding_add(&a->findings, r->id, SEV_INFO,
			       N_("healthy: the kernels run at the DRAM roof (%.1f%% of peak "
				  "bandwidth while busy); what is left is moving fewer bytes"),
			       dram)
		 : finding_add(&a->findings, r->id, rule_cap_warning(rule_sev(impact)),
			       N_("kernels are bound by DRAM bandwidth (%.1f%% of peak while "
				  "busy)"),
			       dram);
	if (!f)
		return oom(err);
	f->impact_pct = impact;
	finding_num(f, "gpm_dram_bw_util_busy_pct", dram);
	finding_num(f, "gpm_pipe_util_busy_pct", fam >= 0 ? a->fam.f[fam].pipe : sol->pipe);
	finding_num(f, "busy_time_memory_bound_pct", 100.0 * sol->mem);
	if (fam >= 0)
		finding_str(f, "kernel_family", "%s", kfam_name((enum kfam)fam));
	finding_str(f, "kernel_owner", "%s", kown_name((enum kown)family_owner(a, fam)));
	adv_kernels(f, a, 0, family_owner(a, fam), roof);
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
	int fam = family_of_class(a, 1);
	double pipe = fam >= 0 ? a->fam.f[fam].pipe : sol->pipe;
	int roof = pipe >= TH_SOL_HIGH_PCT;
	struct finding *f =
	    roof ? finding_add(&a->findings, r->id, SEV_INFO,
			       N_("healthy: the kernels run at the SM pipes' roof (fp32/tensor "
				  "%.1f%% of peak while busy); what is left is less work"),
			       pipe)
		 : finding_add(&a->findings, r->id, rule_cap_warning(rule_sev(impact)),
			       N_("kernels are bound by the SM pipes (fp32/tensor %.1f%% of peak "
				  "while busy)"),
			       pipe);
	if (!f)
		return oom(err);
	finding_num(f, "gpm_pipe_util_busy_pct", pipe);
	if (fam >= 0)
		finding_str(f, "kernel_family", "%s", kfam_name((enum kfam)fam));
	finding_str(f, "kernel_owner", "%s", kown_name((enum kown)family_owner(a, fam)));
	f->impact_pct = impact;
	if (sm->valid)
		finding_num(f, "gpm_sm_util_busy_pct", sm->mean_busy);
	if (fp->valid)
		finding_num(f, "gpm_fp32_util_busy_pct", fp->mean_busy);
	if (ten->valid)
		finding_num(f, "gpm_tensor_util_busy_pct", ten->mean_busy);
	finding_num(f, "busy_time_compute_bound_pct", 100.0 * sol->compute);
	int owner = family_owner(a, fam);
	if ((!ten->valid || ten->mean_busy < TH_SOL_LOW_PCT) && owner == KO_USER)
		finding_action(f, N_("use tensor cores (bf16/tf32/fp8 matmuls) where "
				     "fp32 runs"));
	adv_kernels(f, a, 1, owner, roof);
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
	int fam = family_of_class(a, 2);
	double dram = fam >= 0 ? a->fam.f[fam].dram : sol->dram;
	double pipe = fam >= 0 ? a->fam.f[fam].pipe : sol->pipe;
	int owner = family_owner(a, fam);
	struct finding *f =
	    fam >= 0 && fam != KF_OTHER
		? finding_add(&a->findings, r->id, rule_cap_warning(rule_sev(impact)),
			      N_("%s kernels reach neither roof: DRAM %.1f%%, pipes %.1f%% of peak "
				 "while busy"),
			      kfam_label((enum kfam)fam), dram, pipe)
		: finding_add(&a->findings, r->id, rule_cap_warning(rule_sev(impact)),
			      N_("kernels reach neither roof: DRAM %.1f%%, pipes %.1f%% of peak "
				 "while busy"),
			      dram, pipe);
	if (!f)
		return oom(err);
	if (fam >= 0)
		finding_title_tr(f, kfam_label((enum kfam)fam)); /* a word the title quotes */
	f->impact_pct = impact;
	finding_num(f, "gpm_dram_bw_util_busy_pct", dram);
	finding_num(f, "gpm_pipe_util_busy_pct", pipe);
	if (sm->valid)
		finding_num(f, "gpm_sm_util_busy_pct", sm->mean_busy);
	finding_num(f, "busy_time_latency_bound_pct", 100.0 * sol->latency);
	if (fam >= 0)
		finding_str(f, "kernel_family", "%s", kfam_name((enum kfam)fam));
	finding_str(f, "kernel_owner", "%s", kown_name((enum kown)owner));
	adv_kernels(f, a, 2, owner, 0);
	if (owner == KO_USER)
		finding_action(f, N_("profile the top kernel with ncu (WarpState, "
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
/* The command line of the process with the most kernel time, "" when the
 * trace does not have it (a PyTorch profiler trace). */
static const char *program_cmdline(const struct analysis *a)
{
	const struct an_prog_proc *best = NULL;
	for (size_t i = 0; i < a->prog.n_procs; i++)
		if (!best || a->prog.procs[i].kernel_ns > best->kernel_ns)
			best = &a->prog.procs[i];
	const struct trace *w = a->whole ? a->whole : a->t;
	for (size_t i = 0; best && i < w->n_processes; i++)
		if (w->processes[i].pid == best->pid)
			return trace_str(w, w->processes[i].cmdline_id);
	return "";
}

/* launches of kernel name_id before the analysed window (warm-up), for
 * ncu --launch-skip */
static uint64_t launches_before(const struct analysis *a, uint32_t name_id)
{
	const struct trace *w = a->whole ? a->whole : a->t;
	uint64_t n = 0;
	for (size_t i = 0; i < w->n_kernels && w->kernels[i].start_ns < a->start_ns; i++)
		n += w->kernels[i].name_id == name_id;
	return n;
}

/* The top kernels are near a roof: the family of the top kernel group was
 * classed memory or compute in the windows it dominates, at >=
 * TH_SOL_HIGH_PCT (families.c). */
static int top_at_roof(const struct analysis *a)
{
	if (!a->n_kgroups)
		return 0;
	const struct an_family *x = &a->fam.f[a->kgroups[0].family];
	if (x->sampled_ns <= 0)
		return 0;
	return (x->mem >= TH_ROOF_SHARE && x->dram >= TH_SOL_HIGH_PCT) ||
	       (x->compute >= TH_ROOF_SHARE && x->pipe >= TH_SOL_HIGH_PCT);
}

int rule_gpu_busy(struct rule_ctx *c, const struct rule *r, char *err)
{
	struct analysis *a = c->a;
	double busy = an_pct(a, (double)a->busy_ns);
	if (busy < TH_GPU_BUSY_PCT)
		return 0;
	double kernel_max = c->kernel_max;
	double impact = an_pct(a, (double)a->kernel_ns) - kernel_max;
	if (kernel_max >= TH_CRIT_IMPACT_PCT && impact >= kernel_max)
		impact = TH_PRIMARY_YIELD * kernel_max;
	/* #16 item 2: busy >= 90% with the top kernels near a roof is healthy */
	int healthy = busy >= TH_HEALTHY_BUSY_PCT && top_at_roof(a);
	struct finding *f =
	    healthy
		? finding_add(&a->findings, r->id, SEV_INFO,
			      N_("healthy: the GPU is busy %.1f%% of the run and its top kernels "
				 "run near a roof; what is left is less work per result"),
			      busy)
		: finding_add(&a->findings, r->id, SEV_INFO,
			      N_("the GPU is busy %.1f%% of the run: the host side is not the "
				 "problem; what is left is inside the kernels"),
			      busy);
	if (!f)
		return oom(err);
	f->impact_pct = impact > 0 ? impact : 0;
	finding_num(f, "gpu_busy_pct", busy);
	finding_num(f, "kernel_time_pct", an_pct(a, (double)a->kernel_ns));
	if (a->n_kgroups) {
		const struct an_kernel_group *g = &a->kgroups[0];
		struct rule_kname n;
		rule_kname(&n, a, g);
		finding_str(f, "top_kernel", "%s", n.full);
		finding_num(f, "top_kernel_share_pct", g->share_pct);
		finding_str(f, "top_kernel_owner", "%s", kown_name((enum kown)g->owner));
		if (g->owner == KO_USER) {
			/* #16 item 12: the whole command, ready to run */
			const char *cmd = program_cmdline(a);
			finding_action(f,
				       N_("look inside the top kernel, %s (%.1f%% of GPU time): "
					  "ncu --set full "
					  "--kernel-name-base mangled -k regex:'%.60s' "
					  "--launch-skip %llu -c 1 "
					  "-- %s"),
				       n.line, g->share_pct, n.raw,
				       (unsigned long long)launches_before(a, g->name_id),
				       *cmd ? cmd : N_("PROGRAM ARGS"));
			if (!*cmd) /* the placeholder, in the reader's words */
				finding_action_tr(f, f->n_actions - 1, "PROGRAM ARGS");
		}
		adv_kernels(f, a, 3, g->owner, healthy);
	}
	finding_action(f, N_("compare against a saved baseline with gpuscope diff after each "
			     "change"));
	return 0;
}
