/*
 * rules_host.c - the host-side rules: the GPU idles because the host
 * prepares data (input_pipeline) or does other per-step work
 * (host_overhead), issues work slower than it runs (launch_overhead),
 * copies in its way (transfer), waits on it (sync_stall) or sits in other
 * CUDA calls (cuda_calls_idle). Each charges its own piece of the idle breakdown
 * (idle.c), so their impacts never double count; thresholds.h says where
 * each number comes from, docs/findings.md what each finding means.
 */
#include <stdio.h>
#include <string.h>

#include "analyze/hostidle.h"
#include "diagnose/advice.h"
#include "diagnose/preproc.h"
#include "diagnose/rules_int.h"
#include "diagnose/smallcopies.h"
#include "diagnose/switches.h"
#include "diagnose/verdict.h"
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

/* What the host ran while the GPU waited in idle class cls (hostwait.h):
 * the main thread's top function, and the busiest other thread's (a
 * DataLoader worker) when it was on the CPU at least 10% of that idle. */
static void host_wait_evidence(struct finding *f, const struct analysis *a, int cls)
{
	const struct an_hostwait *h = &a->hostwait;
	const struct trace *w = a->whole ? a->whole : a->t;
	const struct an_hw_thread *m = an_hw_thread_of(h, cls, 1);
	const struct an_hw_thread *o = an_hw_thread_of(h, cls, 0);
	char buf[1024];
	if (m) {
		finding_str(f, "host_function", "%s",
			    an_hw_fn_name(w, &m->top[0], buf, sizeof(buf)));
		finding_num(f, "host_function_pct", an_hw_share(&h->c[cls], m->top[0].ns));
	}
	if (o && an_hw_share(&h->c[cls], o->cpu_ns) >= TH_WORKER_FUNCTION_PCT) {
		finding_str(f, "worker_function", "%s",
			    an_hw_fn_name(w, &o->top[0], buf, sizeof(buf)));
		finding_num(f, "worker_function_pct", an_hw_share(&h->c[cls], o->top[0].ns));
		finding_num(f, "worker_pid", (double)o->pid);
	}
}

/* The host idle's evidence (hostside.c) as a finding's values. */
static void host_evidence(struct finding *f, const struct analysis *a)
{
	const struct an_hostside *h = &a->hostside;
	finding_num(f, "gpu_idle_pct", an_pct(a, (double)a->idle.total_ns));
	finding_num(f, "host_idle_pct", an_pct(a, (double)a->idle.host_ns));
	finding_str(f, "evidence", "%s", *h->how ? h->how : "none either way");
	if (h->input_share >= 0)
		finding_num(f, "data_loading_share_pct", 100.0 * h->input_share);
	if (h->overhead_share >= 0)
		finding_num(f, "other_host_work_share_pct", 100.0 * h->overhead_share);
	if (a->ops.dataload_name_id)
		finding_str(f, "data_loading_range", "%s",
			    trace_str(a->t, a->ops.dataload_name_id));
	if (h->input_gaps) {
		finding_num(f, "stretches_ending_in_input_copy", (double)h->input_gaps);
		finding_num(f, "long_host_stretches", (double)h->long_gaps);
		finding_num(f, "input_copy_mib", h->input_bytes_mean / (1024.0 * 1024.0));
	}
	finding_num(f, "idle_gaps", (double)a->idle.gaps);
	finding_num(f, "longest_gap_ms", rule_ms(a->idle.longest_gap_ns));
	finding_num(f, "gaps_ge_500ms", (double)a->idle.gaps_ge_500ms);
	finding_num(f, "low_util_chunks_of_30", (double)a->low_chunks);
	host_wait_evidence(f, a, AN_IDLE_HOST);
}

/* The preprocessing op (preproc.h: aten::stft, ...) that held the most GPU
 * idle, when it holds TH_MIN_IMPACT_PCT of the run or more: a trace without
 * Python stacks names the host's work by its CPU ops, and the op holding the
 * most idle may be a plain one on its output (aten::abs of the STFT's
 * complex result in torch_stft_preproc) */
static void preproc_op_evidence(struct finding *f, const struct analysis *a)
{
	const struct an_op *pre = NULL;
	for (size_t i = 0; i < a->ops.n; i++) {
		const struct an_op *o = &a->ops.v[i];
		if (o->idle_ns > 0 && (!pre || o->idle_ns > pre->idle_ns) &&
		    preproc_word(trace_str(a->t, o->name_id)))
			pre = o;
	}
	if (!pre || an_pct(a, (double)pre->idle_ns) < TH_MIN_IMPACT_PCT)
		return;
	finding_str(f, "preproc_op", "%s", trace_str(a->t, pre->name_id));
	finding_num(f, "preproc_op_idle_pct", an_pct(a, (double)pre->idle_ns));
}

/* input_pipeline only with evidence of data loading (hostside.c): a host
 * that is busy with anything else is host_overhead's. */
int rule_input_pipeline(struct rule_ctx *c, const struct rule *r, char *err)
{
	struct analysis *a = c->a;
	double impact = an_pct(a, (double)a->idle.host_ns);
	if (impact < TH_MIN_IMPACT_PCT || a->hostside.kind != HK_INPUT)
		return 0;
	struct finding *f = finding_add(&a->findings, r->id, rule_sev(impact),
					N_("the GPU waits while the host prepares data: it idles "
					   "%.1f%% of the run with no CUDA call in flight"),
					impact);
	if (!f)
		return oom(err);
	f->impact_pct = impact;
	host_evidence(f, a);
	preproc_op_evidence(f, a);
	adv_input(f, a);
	return 0;
}

/* host_overhead: the host idle without evidence of data loading; with
 * evidence of other per-step work it says so, with none either way it
 * says the host is the bottleneck and how to tell which. */
/* A host-side finding whose idle holds the host faulting managed pages
 * back (rule_uvm_host_ns): that share, left out of its impact, and where
 * its fix is */
static void adv_uvm_host(struct finding *f, double uvm)
{
	if (uvm <= 0)
		return;
	finding_num(f, "unified_memory_host_pct", uvm);
	finding_action(f,
		       N_("%.1f%% of the run the host spends faulting managed memory's pages back "
			  "from the GPU (its CPU page faults in a row): that part is "
			  "unified_memory's, and its fix (prefetching, the host's own copy) comes "
			  "first"),
		       uvm);
}

int rule_host_overhead(struct rule_ctx *c, const struct rule *r, char *err)
{
	struct analysis *a = c->a;
	/* the title's figure: all of the host-work idle; the impact leaves out
	 * what unified_memory explains (the host faulting managed pages back) */
	double idle = an_pct(a, (double)a->idle.host_ns);
	int64_t uvm_ns = 0, synced_ns = 0;
	if (idle >= TH_MIN_IMPACT_PCT && rule_uvm_host_ns(c, &uvm_ns, &synced_ns) < 0)
		return oom(err);
	double uvm = an_pct(a, (double)uvm_ns);
	double impact = idle - uvm;
	if (a->hostside.kind == HK_INPUT)
		return 0;
	/* work done every so often: its stalls' time, whatever the idle
	 * breakdown calls it (a torch.save of GPU tensors is copies and syncs
	 * as much as host work: torch_ckpt_every, H100) */
	struct an_periodic per;
	int periodic = an_periodic_stall(a, &per) && 2 * per.total_ns >= a->idle.host_ns;
	double stalls = periodic ? an_pct(a, (double)per.total_ns) : 0;
	if (stalls > impact)
		impact = stalls;
	if (impact < TH_MIN_IMPACT_PCT)
		return 0;
	int known = a->hostside.kind == HK_OVERHEAD;
	int64_t once_ns = 0;
	struct finding *f;
	/* #36 item 9: one long stretch is work done once, not per step; and
	 * host samples that name the host's work are not "nothing" */
	if (an_one_time_host(a, &once_ns, NULL))
		f = finding_add(&a->findings, r->id, rule_sev(impact),
				N_("the GPU waits through host work done once: it idles %.1f%% "
				   "of the run with no CUDA call in flight, most of it in one "
				   "stretch of %.0f ms"),
				idle, rule_ms(once_ns));
	else if (periodic)
		/* docs/causes.md row 37: a checkpoint or a log every N steps */
		f = finding_add(&a->findings, r->id, rule_sev(impact),
				N_("the GPU waits through host work done every %.2f s: %llu stalls "
				   "of %.0f ms (the median), %.1f%% of the run"),
				(double)per.every_ns / 1e9, (unsigned long long)per.stalls,
				(double)per.median_ns / 1e6, stalls);
	else if (known)
		f = finding_add(&a->findings, r->id, rule_sev(impact),
				N_("the GPU waits on the host's per-step work (Python, framework, "
				   "bookkeeping): it idles %.1f%% of the run with no CUDA call in "
				   "flight"),
				idle);
	else if (a->hostidle.have_samples)
		f = finding_add(&a->findings, r->id, rule_sev(impact),
				N_("the host is the bottleneck: the GPU idles %.1f%% of the run "
				   "with no CUDA call in flight; the host's samples there are "
				   "mostly neither data loading nor per-step work (host_function "
				   "names what they are)"),
				idle);
	else
		f = finding_add(&a->findings, r->id, rule_sev(impact),
				N_("the host is the bottleneck: the GPU idles %.1f%% of the run "
				   "with no CUDA call in flight, and nothing in the trace says "
				   "whether the host loads data or does other work"),
				idle);
	if (!f)
		return oom(err);
	f->impact_pct = impact;
	host_evidence(f, a);
	if (once_ns > 0 && an_one_time_host(a, NULL, NULL))
		finding_num(f, "one_time_stretch_ms", rule_ms(once_ns));
	if (periodic) {
		finding_num(f, "periodic_stalls", (double)per.stalls);
		finding_num(f, "periodic_stall_ms", rule_ms(per.median_ns));
		finding_num(f, "periodic_every_s", (double)per.every_ns / 1e9);
		finding_num(f, "periodic_stall_pct", an_pct(a, (double)per.total_ns));
	}
	/* what the host ran: the op or own function that held the most idle */
	const struct an_op *top = NULL;
	for (size_t i = 0; i < a->ops.n; i++)
		if ((!top || a->ops.v[i].idle_ns > top->idle_ns) &&
		    !(a->hostidle.recompile_ns > 0 &&
		      an_op_compiles(trace_str(a->t, a->ops.v[i].name_id))))
			top = &a->ops.v[i];
	if (top && top->idle_ns > 0) {
		finding_str(f, "top_op", "%s", trace_str(a->t, top->name_id));
		finding_num(f, "top_op_idle_pct", an_pct(a, (double)top->idle_ns));
	}
	const struct an_hostidle *h = &a->hostidle;
	if (h->n_top && h->idle_ns > 0) {
		const struct trace *w = a->whole ? a->whole : a->t;
		finding_str(f, "top_function", "%s (%s)", trace_str(w, h->top[0].name_id),
			    trace_str(w, h->top[0].file_id));
		finding_num(f, "top_function_share_pct",
			    100.0 * (double)h->top[0].ns / (double)h->idle_ns);
	}
	preproc_op_evidence(f, a);
	adv_uvm_host(f, uvm);
	adv_managed_unseen(f, a);
	adv_anomaly(f, a);
	adv_ddp_unused(f, a);
	adv_optim_loop(f, a);
	adv_host_overhead(f, a, known, periodic ? &per : NULL);
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
	double wait = an_pct(a, (double)(a->idle.launch_ns + a->idle.dispatch_ns));
	double floor = an_pct(a, (double)a->short_floor_ns);
	double impact = wait + floor;
	double share = a->n_kernels ? (double)l->short_kernels / (double)a->n_kernels : 0;
	double disp = an_pct(a, (double)a->idle.dispatch_ns);
	if (impact < TH_MIN_IMPACT_PCT ||
	    (share < TH_SHORT_KERNEL_SHARE && disp < TH_MIN_IMPACT_PCT))
		return 0;
	const struct an_kernel_group *g = top_short_group(a);
	/* #16 item 4: the title's figures are the evidence's (and the
	 * summary's): the wait is idle time, the fixed cost is not */
	struct finding *f;
	if (disp >= an_pct(a, (double)(a->idle.launch_ns + a->short_floor_ns)))
		f = finding_add(
		    &a->findings, r->id, rule_sev(impact),
		    N_("the host issues work slower than the GPU runs it: the GPU waits "
		       "on launches %.1f%% of the run"),
		    wait);
	else if (floor >= TH_FLOOR_TITLE_PCT)
		f = finding_add(
		    &a->findings, r->id, rule_sev(impact),
		    N_("%llu short kernels: the GPU idles between launches %.1f%% of the "
		       "run, and their fixed cost takes %.1f%% more"),
		    (unsigned long long)l->short_kernels, wait, floor);
	else
		f = finding_add(
		    &a->findings, r->id, rule_sev(impact),
		    N_("%llu short kernels: the GPU idles between launches %.1f%% of the "
		       "run"),
		    (unsigned long long)l->short_kernels, wait);
	if (!f)
		return oom(err);
	f->impact_pct = impact;
	finding_num(f, "kernels", (double)a->n_kernels);
	finding_num(f, "short_kernels", (double)l->short_kernels);
	finding_num(f, "short_kernel_share_pct", 100.0 * share);
	finding_num(f, "launch_wait_pct", wait);
	finding_num(f, "launch_idle_pct", an_pct(a, (double)a->idle.launch_ns));
	finding_num(f, "host_dispatch_idle_pct", disp);
	finding_num(f, "short_kernel_fixed_cost_pct", floor);
	finding_num(f, "kernel_time_ms", rule_ms(a->kernel_sum_ns));
	finding_num(f, "launch_api_time_ms", rule_ms(l->api_sum_ns));
	finding_num_if(f, "launch_api_median_us", l->launches > 0, (double)l->api_median_ns / 1e3);
	finding_num_if(f, "launch_delay_median_us", l->correlated > 0,
		       (double)l->delay_median_ns / 1e3);
	finding_num_if(f, "queue_empty_pct", l->correlated > 0, 100.0 * l->queue_empty_share);
	finding_num(f, "graph_kernel_pct", 100.0 * a->prog.graph_kernel_share);
	finding_num(f, "step_syncs", (double)(a->sync.count + a->sync.readbacks));
	struct rule_kname n;
	if (g) {
		rule_kname(&n, a, g);
		finding_str(f, "top_short_kernel", "%s", n.full);
		finding_num(f, "top_short_kernel_count", (double)g->count);
		finding_num(f, "top_short_kernel_median_us", (double)g->median_ns / 1e3);
	}
	host_wait_evidence(
	    f, a, a->idle.dispatch_ns > a->idle.launch_ns ? AN_IDLE_DISPATCH : AN_IDLE_LAUNCH);
	adv_anomaly(f, a);
	adv_ddp_unused(f, a);
	adv_optim_loop(f, a);
	adv_launch(f, a, g ? n.line : NULL, g ? g->count : 0);
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
					N_("host-device copies block compute for %.1f%% of the run "
					   "(%.1f%% of copied bytes pageable)"),
					impact, 100.0 * pageable);
	if (!f)
		return oom(err);
	f->impact_pct = impact;
	finding_num(f, "copy_blocking_pct", impact);
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
	adv_small_copies(f, a); /* #36 item 5: batching comes first */
	adv_transfer(f, a, pageable);
	return 0;
}

/* The op most of the syncs came from (ops.c), NULL when unknown. */
static const struct an_op *sync_op(const struct analysis *a)
{
	const struct an_op *best = NULL;
	for (size_t i = 0; i < a->ops.n; i++)
		if (a->ops.v[i].syncs && (!best || a->ops.v[i].sync_ns > best->sync_ns))
			best = &a->ops.v[i];
	return best;
}

int rule_sync_stall(struct rule_ctx *c, const struct rule *r, char *err)
{
	struct analysis *a = c->a;
	/* the title's figure: all of the sync idle; the impact leaves out the
	 * host work charged to the syncs that unified_memory explains (the
	 * host faulting managed pages back after each wait) */
	double idle = an_pct(a, (double)a->idle.sync_ns);
	uint64_t rb = a->sync.readbacks;
	if ((!a->sync.count && !rb) || idle < TH_MIN_IMPACT_PCT)
		return 0;
	int64_t host_ns = 0, uvm_ns = 0;
	if (rule_uvm_host_ns(c, &host_ns, &uvm_ns) < 0)
		return oom(err);
	double uvm = an_pct(a, (double)uvm_ns);
	double impact = idle - uvm;
	if (impact < TH_MIN_IMPACT_PCT)
		return 0;
	const struct an_op *op = sync_op(a);
	const char *opname = op ? trace_str(a->t, op->name_id) : "";
	/* the host waits for its own uploads: their advice, not read-backs' */
	uint64_t up = a->sync.after_htod;
	int uploads = a->sync.count && (double)up >= TH_SYNC_UPLOAD_SHARE * (double)a->sync.count;
	struct finding *f;
	if (uploads)
		f = finding_add(
		    &a->findings, r->id, rule_sev(impact),
		    N_("%llu blocking synchronizations drain the GPU: it idles %.1f%% of "
		       "the run around them, %llu of them waiting for the host-to-device "
		       "copy just issued"),
		    (unsigned long long)a->sync.count, idle, (unsigned long long)up);
	else if (op)
		f = finding_add(
		    &a->findings, r->id, rule_sev(impact),
		    N_("%llu blocking synchronizations drain the GPU: it idles %.1f%% of "
		       "the run around them, most of them in %s"),
		    (unsigned long long)a->sync.count, idle, opname);
	else if (rb)
		/* read-backs: the host waits for a device-to-host copy's data
		 * outside any CUDA call (JAX's float() / device_get) */
		f = finding_add(
		    &a->findings, r->id, rule_sev(impact),
		    N_("%llu device-to-host read-backs the host waits for, and %llu "
		       "blocking synchronizations, drain the GPU: it idles %.1f%% of the "
		       "run around them"),
		    (unsigned long long)rb, (unsigned long long)a->sync.count, idle);
	else
		f = finding_add(
		    &a->findings, r->id, rule_sev(impact),
		    N_("%llu blocking synchronizations drain the GPU: it idles %.1f%% of "
		       "the run around them"),
		    (unsigned long long)a->sync.count, idle);
	if (!f)
		return oom(err);
	f->impact_pct = impact;
	finding_num(f, "syncs", (double)a->sync.count);
	finding_num(f, "readbacks", (double)rb);
	finding_num(f, "sync_idle_pct", idle);
	finding_num(f, "sync_time_ms", rule_ms(a->sync.sum_ns));
	finding_num(f, "gpu_idle_after_sync_ms", rule_ms(a->sync.idle_after_ns));
	finding_num(f, "idle_per_sync_us",
		    (double)a->sync.idle_after_ns / 1e3 / (double)(a->sync.count + rb));
	char what[320] = "";
	if (op) {
		finding_str(f, "sync_op", "%s", opname);
		finding_num(f, "sync_op_calls", (double)op->calls);
		finding_num(f, "sync_op_syncs", (double)op->syncs);
		if (op->inner_id)
			finding_str(f, "sync_inner_op", "%s", trace_str(a->t, op->inner_id));
		if (op->site_id)
			finding_str(f, "sync_site", "%s", trace_str(a->t, op->site_id));
		snprintf(what, sizeof(what), "%s (%llu calls%s%s)", opname,
			 (unsigned long long)op->calls, op->site_id ? ", at " : "",
			 op->site_id ? trace_str(a->t, op->site_id) : "");
	}
	if (up) /* absent, not unknown, when none */
		finding_num(f, "syncs_after_upload", (double)up);
	host_wait_evidence(f, a, AN_IDLE_SYNC);
	if (uploads) {
		adv_small_copies(f, a); /* #36 item 5: one copy, not thousands */
		adv_sync_uploads(f, a);
		return 0;
	}
	/* anomaly detection's checks are the syncs: the op they come from is
	 * autograd's node, not the program's read */
	adv_uvm_host(f, uvm);
	adv_managed_unseen(f, a);
	int anomaly = adv_anomaly(f, a);
	adv_ddp_unused(f, a);
	adv_sync(f, a, anomaly ? NULL : what);
	return 0;
}

int rule_cuda_calls_idle(struct rule_ctx *c, const struct rule *r, char *err)
{
	struct analysis *a = c->a;
	const struct an_calls *k = &a->calls;
	double impact = an_pct(a, (double)a->idle.api_ns);
	if (impact < TH_MIN_IMPACT_PCT || !k->n)
		return 0;
	const struct an_call *top = &k->v[0];
	/* a call made once or twice in the window (the first steps after a
	 * warm-up growing a pool) is a one-time cost, not the loop's */
	int once = top->count <= TH_CALLS_ONE_TIME;
	struct finding *f =
	    once ? finding_add(&a->findings, r->id, SEV_INFO,
			       N_("the GPU idles %.1f%% of the run while the host is inside other "
				  "CUDA calls, most of it in %s (%s, %llu calls: a one-time cost "
				  "that a longer run spreads thin)"),
			       impact, top->name, N_(call_cause_name(top->cause)),
			       (unsigned long long)top->count)
		 : finding_add(&a->findings, r->id, rule_sev(impact),
			       N_("the GPU idles %.1f%% of the run while the host is inside other "
				  "CUDA calls, most of it in %s (%s, %llu calls)"),
			       impact, top->name, N_(call_cause_name(top->cause)),
			       (unsigned long long)top->count);
	if (!f)
		return oom(err);
	finding_title_tr(f, call_cause_name(top->cause)); /* a word the title quotes */
	f->impact_pct = impact;
	finding_num(f, "cuda_calls_idle_pct", impact);
	finding_str(f, "top_call", "%s", top->name);
	finding_str(f, "top_call_cause", "%s", call_cause_name(top->cause));
	finding_num(f, "top_call_count", (double)top->count);
	finding_num(f, "top_call_time_ms", rule_ms(top->call_ns));
	finding_num(f, "top_call_idle_ms", rule_ms(top->idle_ns));
	if (k->n > 1) {
		finding_str(f, "second_call", "%s", k->v[1].name);
		finding_num(f, "second_call_idle_ms", rule_ms(k->v[1].idle_ns));
	}
	static const struct {
		enum call_cause cause;
		const char *key;
	} keys[] = {{CC_ALLOC, "allocation_idle_pct"},
		    {CC_FREE, "free_idle_pct"},
		    {CC_MODULE, "module_load_idle_pct"},
		    {CC_CONTEXT, "context_creation_idle_pct"}};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (k->cause_count[keys[i].cause])
			finding_num(f, keys[i].key,
				    an_pct(a, (double)k->cause_idle_ns[keys[i].cause]));
	if (once)
		finding_action(f,
			       N_("these calls come once: measure a longer steady state (more "
				  "steps) or a later window (--range) before changing the code"));
	adv_calls(f, a, top->cause);
	return 0;
}
