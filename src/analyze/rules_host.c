/*
 * rules_host.c - the host-side rules: the GPU idles because the host does
 * not feed it (input_pipeline), issues work slower than it runs
 * (launch_overhead), copies in its way (transfer) or waits on it
 * (sync_stall). Each charges its own piece of the idle breakdown
 * (idle.c), so their impacts never double count; thresholds.h says where
 * each number comes from, docs/findings.md what each finding means.
 */
#include <stdio.h>
#include <string.h>

#include "analyze/rules_int.h"
#include "util/demangle.h"
#include "util/error.h"
#include "util/i18n.h"

static int oom(char *err)
{
	return error_set(err, "out of memory");
}

void rule_kname(struct rule_kname *n, const struct analysis *a, const struct an_kernel_group *g)
{
	const char *s = trace_str(a->t, g->name_id);
	n->raw = *s ? s : "(unnamed kernel)";
	n->full = *s ? gs_demangle(s, n->buf, sizeof(n->buf)) : n->raw;
	gs_one_line_name(n->full, n->line, sizeof(n->line), TH_NAME_COLS);
}

int rule_input_pipeline(struct rule_ctx *c, const struct rule *r, char *err)
{
	struct analysis *a = c->a;
	double impact = an_pct(a, (double)a->idle.host_ns);
	if (impact < TH_MIN_IMPACT_PCT)
		return 0;
	struct finding *f =
	    finding_add(&a->findings, r->id, rule_sev(impact),
			_("the GPU waits for the host: %.0f%% of the run it is idle "
			  "with no CUDA call in flight"),
			impact);
	if (!f)
		return oom(err);
	f->impact_pct = impact;
	finding_num(f, "gpu_idle_pct", an_pct(a, (double)a->idle.total_ns));
	finding_num(f, "host_idle_pct", impact);
	finding_num(f, "idle_gaps", (double)a->idle.gaps);
	finding_num(f, "longest_gap_ms", rule_ms(a->idle.longest_gap_ns));
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

int rule_launch_overhead(struct rule_ctx *c, const struct rule *r, char *err)
{
	struct analysis *a = c->a;
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
		? finding_add(&a->findings, r->id, rule_sev(impact),
			      _("the host issues work slower than the GPU runs it: the GPU waits "
				"on launches for %.0f%% of the run"),
			      impact)
		: finding_add(&a->findings, r->id, rule_sev(impact),
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
	finding_num(f, "kernel_time_ms", rule_ms(a->kernel_sum_ns));
	finding_num(f, "launch_api_time_ms", rule_ms(l->api_sum_ns));
	finding_num_if(f, "launch_api_median_us", l->launches > 0, (double)l->api_median_ns / 1e3);
	finding_num_if(f, "launch_delay_median_us", l->correlated > 0,
		       (double)l->delay_median_ns / 1e3);
	finding_num_if(f, "queue_empty_pct", l->correlated > 0, 100.0 * l->queue_empty_share);
	if (g) {
		struct rule_kname n;
		rule_kname(&n, a, g);
		finding_str(f, "top_short_kernel", "%s", n.full);
		finding_num(f, "top_short_kernel_count", (double)g->count);
		finding_num(f, "top_short_kernel_median_us", (double)g->median_ns / 1e3);
		finding_action(
		    f, _("use CUDA Graphs or torch.compile to fuse the %llu launches of %s"),
		    (unsigned long long)g->count, n.line);
	} else {
		finding_action(f, _("capture the loop in a CUDA Graph or use torch.compile to fuse "
				    "short kernels"));
	}
	finding_action(f, _("fuse chains of elementwise operations into one kernel"));
	finding_action(f, _("do more work per launch: larger batches, fewer, bigger tensors"));
	return 0;
}

int rule_transfer(struct rule_ctx *ctx, const struct rule *r, char *err)
{
	struct analysis *a = ctx->a;
	const struct an_copy_stats *c = &a->copy;
	double impact = an_pct(a, (double)(c->not_overlapped_ns + a->idle.copy_ns));
	if (!c->count || impact < TH_MIN_IMPACT_PCT)
		return 0;
	double pageable = c->bytes ? (double)c->pageable_bytes / (double)c->bytes : 0;
	struct finding *f = finding_add(&a->findings, r->id, rule_sev(impact),
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

int rule_sync_stall(struct rule_ctx *c, const struct rule *r, char *err)
{
	struct analysis *a = c->a;
	double impact = an_pct(a, (double)a->idle.sync_ns);
	if (!a->sync.count || impact < TH_MIN_IMPACT_PCT)
		return 0;
	struct finding *f = finding_add(&a->findings, r->id, rule_sev(impact),
					_("%llu blocking synchronizations drain the GPU: it idles "
					  "%.0f%% of the run around them"),
					(unsigned long long)a->sync.count, impact);
	if (!f)
		return oom(err);
	f->impact_pct = impact;
	finding_num(f, "syncs", (double)a->sync.count);
	finding_num(f, "sync_time_ms", rule_ms(a->sync.sum_ns));
	finding_num(f, "gpu_idle_after_sync_ms", rule_ms(a->sync.idle_after_ns));
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
