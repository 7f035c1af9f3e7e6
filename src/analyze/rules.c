/*
 * rules.c - from analysis numbers to findings (PRODUCT.md vocabulary).
 *
 * Each rule states its impact as a share of the analysed wall time that the
 * finding explains or could win back (docs/report-rules.md gives each
 * estimate). Host-side rules (input_pipeline, launch_overhead, transfer,
 * sync_stall) charge idle GPU time from the idle breakdown, so they never
 * double count; kernel-side rules charge kernel time; gpu_busy is what is
 * left when the GPU is kept busy. Thresholds come from thresholds.h.
 */
#include <stdio.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/thresholds.h"
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

static double ms(int64_t ns)
{
	return (double)ns / 1e6;
}

/* The kernel's full demangled name, for the finding's values; a ring of
 * buffers so that one finding_add can use several. */
static const char *kname_full(const struct analysis *a, const struct an_kernel_group *g)
{
	static char ring[8][512];
	static unsigned next;
	const char *s = trace_str(a->t, g->name_id);
	if (!*s)
		return "(unnamed kernel)";
	return gs_demangle(s, ring[next++ % 8], sizeof(ring[0]));
}

/* The kernel's name for messages and actions: demangled and cut to one
 * readable line (a PyTorch kernel's full name runs to 400 characters) */
static const char *kname(const struct analysis *a, const struct an_kernel_group *g)
{
	static char ring[8][TH_NAME_COLS + 4];
	static unsigned next;
	return gs_one_line_name(kname_full(a, g), ring[next++ % 8], sizeof(ring[0]), TH_NAME_COLS);
}

static const char *kname_raw(const struct analysis *a, const struct an_kernel_group *g)
{
	const char *s = trace_str(a->t, g->name_id);
	return *s ? s : "(unnamed kernel)";
}

static int oom(char *err)
{
	return error_set(err, "out of memory");
}

static int host_side(const char *id)
{
	return !strcmp(id, "input_pipeline") || !strcmp(id, "launch_overhead") ||
	       !strcmp(id, "transfer") || !strcmp(id, "sync_stall");
}

static int rule_input_pipeline(struct analysis *a, char *err)
{
	double impact = an_pct(a, (double)a->idle.host_ns);
	if (impact < TH_MIN_IMPACT_PCT)
		return 0;
	struct finding *f =
	    finding_add(&a->findings, "input_pipeline", sev_for(impact),
			_("the GPU waits for the host: %.0f%% of the run it is idle "
			  "with no CUDA call in flight"),
			impact);
	if (!f)
		return oom(err);
	f->impact_pct = impact;
	finding_num(f, "gpu_idle_pct", an_pct(a, (double)a->idle.total_ns));
	finding_num(f, "host_idle_pct", impact);
	finding_num(f, "idle_gaps", (double)a->idle.gaps);
	finding_num(f, "longest_gap_ms", ms(a->idle.longest_gap_ns));
	finding_num(f, "gaps_ge_500ms", (double)a->idle.gaps_ge_500ms);
	finding_num(f, "low_util_chunks_of_30", (double)a->low_chunks);
	finding_action(f, _("load data in the background: DataLoader(num_workers=4..8, "
			    "persistent_workers=True)"));
	finding_action(f, _("pin host memory (pin_memory=True) and prefetch batches "
			    "(prefetch_factor=2..4)"));
	finding_action(f, _("move preprocessing (decode, augment, normalize) to the GPU "
			    "(e.g. DALI, torchvision.transforms.v2 on CUDA tensors)"));
	return 0;
}

static const struct an_kernel_group *top_short_group(const struct analysis *a)
{
	const struct an_kernel_group *best = NULL;
	for (size_t i = 0; i < a->n_kgroups; i++) {
		const struct an_kernel_group *g = &a->kgroups[i];
		if (g->median_ns < TH_SHORT_KERNEL_NS && (!best || g->count > best->count))
			best = g;
	}
	return best;
}

static int rule_launch_overhead(struct analysis *a, char *err)
{
	const struct an_launch *l = &a->launch;
	/* the idle time launch latency explains, plus the fixed GPU cost of
	 * each short kernel that fusion or a bigger launch wins back */
	double impact =
	    an_pct(a, (double)(a->idle.launch_ns + a->idle.dispatch_ns + a->short_floor_ns));
	double share = a->n_kernels ? (double)l->short_kernels / (double)a->n_kernels : 0;
	double disp = an_pct(a, (double)a->idle.dispatch_ns);
	if (impact < TH_MIN_IMPACT_PCT ||
	    (share < TH_SHORT_KERNEL_SHARE && disp < TH_MIN_IMPACT_PCT))
		return 0;
	const struct an_kernel_group *g = top_short_group(a);
	struct finding *f =
	    disp >= an_pct(a, (double)(a->idle.launch_ns + a->short_floor_ns))
		? finding_add(&a->findings, "launch_overhead", sev_for(impact),
			      _("the host issues work slower than the GPU runs it: the GPU waits "
				"on launches for %.0f%% of the run"),
			      impact)
		: finding_add(&a->findings, "launch_overhead", sev_for(impact),
			      _("%llu short kernels leave the GPU idle between launches for "
				"%.0f%% of the run"),
			      (unsigned long long)l->short_kernels, impact);
	if (!f)
		return oom(err);
	f->impact_pct = impact;
	finding_num(f, "kernels", (double)a->n_kernels);
	finding_num(f, "short_kernels", (double)l->short_kernels);
	finding_num(f, "short_kernel_share_pct", 100.0 * share);
	finding_num(f, "launch_idle_pct", an_pct(a, (double)a->idle.launch_ns));
	finding_num(f, "host_dispatch_idle_pct", disp);
	finding_num(f, "short_kernel_fixed_cost_pct", an_pct(a, (double)a->short_floor_ns));
	finding_num(f, "kernel_time_ms", ms(a->kernel_sum_ns));
	finding_num(f, "launch_api_time_ms", ms(l->api_sum_ns));
	finding_num_if(f, "launch_api_median_us", l->launches > 0, (double)l->api_median_ns / 1e3);
	finding_num_if(f, "launch_delay_median_us", l->correlated > 0,
		       (double)l->delay_median_ns / 1e3);
	finding_num_if(f, "queue_empty_pct", l->correlated > 0, 100.0 * l->queue_empty_share);
	if (g) {
		finding_str(f, "top_short_kernel", "%s", kname_full(a, g));
		finding_num(f, "top_short_kernel_count", (double)g->count);
		finding_num(f, "top_short_kernel_median_us", (double)g->median_ns / 1e3);
		finding_action(
		    f, _("use CUDA Graphs or torch.compile to fuse the %llu launches of %s"),
		    (unsigned long long)g->count, kname(a, g));
	} else {
		finding_action(f, _("capture the loop in a CUDA Graph or use torch.compile to fuse "
				    "short kernels"));
	}
	finding_action(f, _("fuse chains of elementwise operations into one kernel"));
	finding_action(f, _("do more work per launch: larger batches, fewer, bigger tensors"));
	return 0;
}

static int rule_transfer(struct analysis *a, char *err)
{
	const struct an_copy_stats *c = &a->copy;
	double impact = an_pct(a, (double)(c->not_overlapped_ns + a->idle.copy_ns));
	if (!c->count || impact < TH_MIN_IMPACT_PCT)
		return 0;
	double pageable = c->bytes ? (double)c->pageable_bytes / (double)c->bytes : 0;
	struct finding *f = finding_add(&a->findings, "transfer", sev_for(impact),
					_("host-device copies block compute for %.0f%% of the run "
					  "(%.0f%% of copied bytes pageable)"),
					impact, 100.0 * pageable);
	if (!f)
		return oom(err);
	f->impact_pct = impact;
	finding_num(f, "copy_time_pct", an_pct(a, (double)c->union_ns));
	finding_num(f, "copy_not_overlapped_pct", an_pct(a, (double)c->not_overlapped_ns));
	finding_num(f, "copy_call_idle_pct", an_pct(a, (double)a->idle.copy_ns));
	finding_num(f, "copies", (double)c->count);
	finding_num(f, "bytes", (double)c->bytes);
	finding_num(f, "pageable_pct", 100.0 * pageable);
	finding_num_if(f, "htod_gbps", c->htod_ns > 0, c->htod_gbps);
	finding_num_if(f, "dtoh_gbps", c->dtoh_ns > 0, c->dtoh_gbps);
	finding_num(f, "link_gbps", c->link_gbps);
	finding_num_if(f, "overlap_with_kernels_pct", c->union_ns > 0, c->overlap_pct);
	if (pageable >= TH_PAGEABLE_SHARE)
		finding_action(
		    f,
		    _("use pinned host memory (pin_memory=True, cudaHostAlloc): %.0f%% of "
		      "the bytes go through pageable staging"),
		    100.0 * pageable);
	finding_action(f, _("issue copies with non_blocking=True / cudaMemcpyAsync on a side "
			    "stream so they overlap with kernels"));
	finding_action(f, _("keep data on the device and batch small copies into fewer, "
			    "larger ones"));
	if (pageable < TH_PAGEABLE_SHARE)
		finding_action(f, _("use pinned host memory for the remaining pageable copies"));
	return 0;
}

static int rule_sync_stall(struct analysis *a, char *err)
{
	double impact = an_pct(a, (double)a->idle.sync_ns);
	if (!a->sync.count || impact < TH_MIN_IMPACT_PCT)
		return 0;
	struct finding *f = finding_add(&a->findings, "sync_stall", sev_for(impact),
					_("%llu blocking synchronizations drain the GPU: it idles "
					  "%.0f%% of the run around them"),
					(unsigned long long)a->sync.count, impact);
	if (!f)
		return oom(err);
	f->impact_pct = impact;
	finding_num(f, "syncs", (double)a->sync.count);
	finding_num(f, "sync_time_ms", ms(a->sync.sum_ns));
	finding_num(f, "gpu_idle_after_sync_ms", ms(a->sync.idle_after_ns));
	finding_num(f, "idle_per_sync_us",
		    (double)a->sync.idle_after_ns / 1e3 / (double)a->sync.count);
	finding_action(f, _("remove per-step host reads (.item(), .cpu(), print of tensors) from "
			    "the loop; read values every N steps"));
	finding_action(f, _("use non_blocking copies and CUDA events (cudaEventRecord + query) "
			    "instead of device or stream synchronization"));
	finding_action(f, _("let the host run ahead: queue the next step before waiting on the "
			    "previous one"));
	return 0;
}

static const struct an_kernel_group *top_group_where(const struct analysis *a, int small)
{
	uint32_t sms = a->n_devices ? a->devices[0].sm_count : 0;
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

static int kernel_side_rules(struct analysis *a, double *max_impact, char *err)
{
	uint32_t sms = a->n_devices ? a->devices[0].sm_count : 0;
	const struct an_metric *sm = &a->metrics[AM_SM], *ten = &a->metrics[AM_TENSOR];
	double kshare = an_pct(a, (double)a->kernel_ns);
	struct finding *f;
	double impact = an_pct(a, a->small_grid_waste_ns);
	const struct an_kernel_group *g = top_group_where(a, 1);
	if (impact >= TH_MIN_IMPACT_PCT && g) {
		f = finding_add(
		    &a->findings, "small_grid", sev_for(impact),
		    _("%s runs %lld blocks on %u SMs: most SMs idle for %.0f%% of the run"),
		    kname(a, g), g->grid_blocks, sms, impact);
		if (!f)
			return oom(err);
		f->impact_pct = impact;
		finding_str(f, "kernel", "%s", kname_full(a, g));
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
		finding_action(f,
			       _("run independent small kernels concurrently on separate streams"));
		*max_impact = impact > *max_impact ? impact : *max_impact;
	}
	/* More occupancy does not help a kernel already at a roof; a kernel that
	 * is latency-bound speeds up about in proportion to its resident warps
	 * (up to TH_OCCUPANCY). With GPM the uncapped gain counts on the busy
	 * time not at a roof; without, the capped estimate counts. */
	const struct an_sol *sol = &a->sol;
	double at_roof = sol->valid ? sol->mem + sol->compute : 0;
	double occ_gain = sol->valid ? a->low_occ_gain_full_ns : a->low_occ_gain_ns;
	impact = an_pct(a, occ_gain) * (1.0 - at_roof);
	g = top_group_where(a, 0);
	if (impact >= TH_MIN_IMPACT_PCT && g) {
		f = finding_add(&a->findings, "low_occupancy", cap_warning(sev_for(impact)),
				_("%s reaches %.0f%% theoretical occupancy (limited by %s)"),
				kname(a, g), 100.0 * g->occupancy, g->limiter);
		if (!f)
			return oom(err);
		f->impact_pct = impact;
		finding_str(f, "kernel", "%s", kname_full(a, g));
		finding_num(f, "occupancy_pct", 100.0 * g->occupancy);
		finding_str(f, "limiter", "%s", g->limiter);
		finding_num_if(f, "registers_per_thread", g->regs > 0, g->regs);
		finding_num(f, "block_size", g->block_threads);
		finding_num(f, "smem_per_block", g->smem);
		finding_num(f, "low_occupancy_time_pct", an_pct(a, (double)a->low_occ_ns));
		/* achieved beside theoretical when the kernel has counters */
		for (size_t i = 0; i < a->kc.n; i++)
			if (a->kc.g[i].name_id == g->name_id && a->kc.g[i].has[KM_ACHIEVED_OCC])
				finding_num(f, "achieved_occupancy_pct",
					    a->kc.g[i].v[KM_ACHIEVED_OCC]);
		if (strcmp(g->limiter, "registers") == 0)
			finding_action(f,
				       _("cut registers: __launch_bounds__(%d, minBlocks) or "
					 "-maxrregcount; %u registers/thread limit the SM"),
				       g->block_threads, g->regs);
		else if (strcmp(g->limiter, "shared_memory") == 0)
			finding_action(
			    f, _("use smaller shared-memory tiles (%u bytes per block now)"),
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
		*max_impact = impact > *max_impact ? impact : *max_impact;
	}
	impact = an_pct(a, a->tail_waste_ns);
	if (impact >= TH_MIN_IMPACT_PCT) {
		f = finding_add(&a->findings, "tail_effect", cap_warning(sev_for(impact)),
				_("partial last waves leave SMs idle for %.0f%% of the run"),
				impact);
		if (!f)
			return oom(err);
		f->impact_pct = impact;
		finding_action(
		    f, _("size grids to a whole number of waves (blocks per SM x %u SMs)"), sms);
		finding_action(f, _("use a persistent-kernel or grid-stride loop with one wave"));
		*max_impact = impact > *max_impact ? impact : *max_impact;
	}
	/* GPM speed of light per sample window (gpm.c): the higher roof at
	 * >= 60% names the bound, both under 60% is latency; per-kernel
	 * counters say it per kernel instead (rules_counters.c) */
	if (an_counter_rules(a, max_impact, err) < 0)
		return -1;
	if (sol->valid && an_counters_cover(a) < TH_COUNTERS_COVER) {
		const struct an_metric *fp = &a->metrics[AM_FP32];
		impact = kshare * sol->mem;
		if (impact >= TH_MIN_IMPACT_PCT) {
			f = finding_add(
			    &a->findings, "memory_bound", cap_warning(sev_for(impact)),
			    _("kernels are bound by DRAM bandwidth (%.0f%% of peak while "
			      "busy)"),
			    sol->dram);
			if (!f)
				return oom(err);
			f->impact_pct = impact;
			finding_num(f, "gpm_dram_bw_util_busy_pct", sol->dram);
			finding_num(f, "gpm_pipe_util_busy_pct", sol->pipe);
			finding_num(f, "busy_time_memory_bound_pct", 100.0 * sol->mem);
			finding_action(f,
				       _("cut DRAM passes: fuse consecutive kernels, reuse data in "
					 "shared memory"));
			finding_action(f, _("use lower precision (bf16/fp8) to move fewer bytes"));
			*max_impact = impact > *max_impact ? impact : *max_impact;
		}
		impact = kshare * sol->compute;
		if (impact >= TH_MIN_IMPACT_PCT) {
			f = finding_add(
			    &a->findings, "compute_bound", cap_warning(sev_for(impact)),
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
				finding_action(f,
					       _("use tensor cores (bf16/tf32/fp8 matmuls) where "
						 "fp32 runs"));
			finding_action(f, _("look for algorithmic savings in the top kernels"));
			finding_action(f, _("use lower precision where accuracy allows (fp8, "
					    "bf16)"));
			*max_impact = impact > *max_impact ? impact : *max_impact;
		}
		/* what the shape findings do not already explain */
		double rest = (double)a->kernel_ns - a->small_grid_waste_ns - occ_gain -
			      (double)a->short_floor_ns;
		impact = rest > 0 ? an_pct(a, rest) * sol->latency : 0;
		if (impact >= TH_MIN_IMPACT_PCT) {
			f = finding_add(
			    &a->findings, "latency_bound", cap_warning(sev_for(impact)),
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
				finding_action(
				    f,
				    _("memory-side: keep more bytes in flight to reach the "
				      "DRAM roof (%.0f%% now): wider loads (float4), more "
				      "independent loads per thread, higher occupancy"),
				    sol->dram);
			else
				finding_action(f,
					       _("put more work in flight: higher occupancy, "
						 "more independent instructions per thread (ILP)"));
			finding_action(f,
				       _("check access patterns: coalesced global loads, no "
					 "shared-memory bank conflicts, little warp divergence"));
			finding_action(f, _("profile the top kernel with ncu (WarpState, "
					    "MemoryWorkloadAnalysis) for its stall reasons"));
			*max_impact = impact > *max_impact ? impact : *max_impact;
		}
		finding_list_sort(&a->findings);
	}
	return 0;
}

static int rule_gpu_busy(struct analysis *a, double kernel_max, char *err)
{
	double busy = an_pct(a, (double)a->busy_ns);
	if (busy < TH_GPU_BUSY_PCT)
		return 0;
	/* at >= 80% busy host-side findings can explain at most the idle 20%:
	 * they stay listed, below this one */
	/* what the kernel-side findings leave unexplained; when one explains a
	 * third of the run it is the more specific answer, so gpu_busy stays
	 * just below it */
	/* the kernel time the kernel-side findings leave unexplained (copies
	 * keep the GPU "busy" too, but they are transfer's business) */
	double impact = an_pct(a, (double)a->kernel_ns) - kernel_max;
	if (kernel_max >= TH_CRIT_IMPACT_PCT && impact >= kernel_max)
		impact = 0.99 * kernel_max;
	struct finding *f =
	    finding_add(&a->findings, "gpu_busy", SEV_INFO,
			_("the GPU is busy %.0f%% of the run: look inside the kernels "
			  "first, the host side is not the main problem"),
			busy);
	if (!f)
		return oom(err);
	f->impact_pct = impact > 0 ? impact : 0;
	finding_num(f, "gpu_busy_pct", busy);
	finding_num(f, "kernel_time_pct", an_pct(a, (double)a->kernel_ns));
	if (a->n_kgroups) {
		finding_str(f, "top_kernel", "%s", kname_full(a, &a->kgroups[0]));
		finding_num(f, "top_kernel_share_pct", a->kgroups[0].share_pct);
		finding_action(
		    f,
		    _("look inside the top kernels, starting with %s (%.0f%% of GPU "
		      "time): ncu --set full --kernel-name-base mangled -k regex:'%.60s'"),
		    kname(a, &a->kgroups[0]), a->kgroups[0].share_pct,
		    kname_raw(a, &a->kgroups[0]));
	}
	finding_action(f, _("compare against a saved baseline with gpuscope diff after each "
			    "change"));
	return 0;
}

int an_rules(struct analysis *a, char *err)
{
	double kmax = 0;
	if (rule_input_pipeline(a, err) < 0 || rule_launch_overhead(a, err) < 0 ||
	    rule_transfer(a, err) < 0 || rule_sync_stall(a, err) < 0 ||
	    kernel_side_rules(a, &kmax, err) < 0 || rule_gpu_busy(a, kmax, err) < 0)
		return -1;
	finding_list_sort(&a->findings);
	a->primary = finding_primary(&a->findings);
	/* Seed 1.1 / Nsight Systems before Nsight Compute: while the GPU idles
	 * a fifth of the run or more, feeding it comes first; a host-side
	 * finding that explains at least TH_WARN_IMPACT_PCT is then primary
	 * even when the busy time's kernel-side finding is larger. */
	if (an_pct(a, (double)a->busy_ns) < TH_GPU_BUSY_PCT) {
		for (size_t i = 0; i < a->findings.n; i++) {
			const struct finding *f = &a->findings.v[i];
			if (f->impact_pct >= TH_WARN_IMPACT_PCT && host_side(f->id)) {
				a->primary = f;
				break;
			}
		}
	}
	return 0;
}
