/*
 * switches.c - anomaly detection, DDP's search for unused parameters and
 * cuDNN's per-shape autotuning named
 * (switches.h) from what analyze/torchmodes.c read in the op events and
 * the host samples.
 */
#include <string.h>

#include "analyze/analysis.h"
#include "diagnose/finding.h"
#include "diagnose/switches.h"
#include "diagnose/thresholds.h"
#include "util/i18n.h"

static double share(int64_t part, int64_t all)
{
	return all > 0 ? (double)part / (double)all : -1;
}

int sw_anomaly(const struct analysis *a, double *sample_pct)
{
	const struct an_op_modes *o = &a->ops.modes;
	const struct an_sample_modes *s = &a->hostidle.modes;
	double py = share(s->py_anomaly_ns, s->py_ns), perf = share(s->perf_anomaly_ns, s->perf_ns);
	double best = py > perf ? py : perf;
	if (sample_pct)
		*sample_pct = best >= 0 ? 100.0 * best : -1;
	int ops = o->nan_checked >= TH_ANOMALY_MIN_NODES &&
		  (double)o->nan_checked >= TH_ANOMALY_NODE_SHARE * (double)o->backward_nodes;
	return ops || best >= TH_ANOMALY_SAMPLE_SHARE;
}

int adv_anomaly(struct finding *f, const struct analysis *a)
{
	double pct;
	if (a->prog.kind != PK_PYTORCH || !sw_anomaly(a, &pct))
		return 0;
	const struct an_op_modes *o = &a->ops.modes;
	if (o->backward_nodes) {
		finding_num(f, "anomaly_checked_nodes", (double)o->nan_checked);
		finding_num(f, "backward_nodes", (double)o->backward_nodes);
	}
	if (pct >= 0)
		finding_num(f, "anomaly_host_pct", pct);
	/* say only what was seen: a CUPTI recording has no op events (no
	 * node count), a torch.profiler trace no host samples */
	int nodes = o->nan_checked >= TH_ANOMALY_MIN_NODES, samples = pct >= 0;
	if (nodes && samples)
		finding_action(
		    f,
		    N_("autograd's anomaly detection is on: a NaN check with a host sync in "
		       "%llu of %llu backward nodes, a Python traceback stored per forward op "
		       "(%.0f%% of host samples): turn it off outside debugging "
		       "(torch.autograd.set_detect_anomaly(False); Lightning: "
		       "Trainer(detect_anomaly=False))"),
		    (unsigned long long)o->nan_checked, (unsigned long long)o->backward_nodes, pct);
	else if (nodes)
		finding_action(
		    f,
		    N_("autograd's anomaly detection is on: a NaN check with a host sync in "
		       "%llu of %llu backward nodes, and a Python traceback stored per "
		       "forward op: turn it off outside debugging "
		       "(torch.autograd.set_detect_anomaly(False); Lightning: "
		       "Trainer(detect_anomaly=False))"),
		    (unsigned long long)o->nan_checked, (unsigned long long)o->backward_nodes);
	else
		finding_action(
		    f,
		    N_("autograd's anomaly detection is on: storing a Python traceback per "
		       "forward op and checking each backward node's outputs for NaN with a "
		       "host sync take %.0f%% of the host samples: turn it off outside "
		       "debugging (torch.autograd.set_detect_anomaly(False); Lightning: "
		       "Trainer(detect_anomaly=False))"),
		    pct);
	return 1;
}

int sw_ddp_unused(const struct analysis *a, double *pct)
{
	const struct an_op_modes *o = &a->ops.modes;
	const struct an_sample_modes *s = &a->hostidle.modes;
	double ops =
	    o->ddp_forwards >= TH_DDP_MIN_FORWARDS ? share(o->ddp_tail_ns, a->span_ns) : -1;
	double py = share(s->py_ddp_ns, s->py_ns), perf = share(s->perf_ddp_ns, s->perf_ns);
	double best = ops > py ? ops : py;
	best = perf > best ? perf : best;
	best = best > 1 ? 1 : best;
	if (pct)
		*pct = best >= 0 ? 100.0 * best : 0;
	return a->prog.kind == PK_PYTORCH && best >= TH_DDP_SEARCH_SHARE;
}

int adv_ddp_unused(struct finding *f, const struct analysis *a)
{
	double pct;
	if (!sw_ddp_unused(a, &pct))
		return 0;
	const struct an_op_modes *o = &a->ops.modes;
	if (o->ddp_forwards) {
		finding_num(f, "ddp_forwards", (double)o->ddp_forwards);
		finding_num(f, "ddp_post_forward_ms", (double)o->ddp_tail_ns / 1e6);
	}
	finding_num(f, "ddp_unused_search_pct", pct);
	finding_action(
	    f,
	    N_("DistributedDataParallel walks the autograd graph after every forward to find "
	       "unused parameters (find_unused_parameters=True): %.0f%% of the time; set "
	       "find_unused_parameters=False when every parameter gets a gradient each step "
	       "(DDP then names any that do not), or static_graph=True when the unused ones "
	       "are the same every step"),
	    pct);
	return 1;
}

int sw_optim_loop(const struct analysis *a, double *pct)
{
	const struct an_op_modes *o = &a->ops.modes;
	const struct an_sample_modes *s = &a->hostidle.modes;
	double ops = -1;
	if (o->optim_steps && !o->optim_multi_ops &&
	    o->optim_launches >= TH_OPTIM_LOOP_LAUNCHES * o->optim_steps)
		ops = share((int64_t)o->optim_launches, (int64_t)a->launch.launches);
	double py = share(s->py_optim_ns, s->py_ns);
	double best = ops > py ? ops : py;
	best = best > 1 ? 1 : best;
	if (pct)
		*pct = best >= 0 ? 100.0 * best : 0;
	return a->prog.kind == PK_PYTORCH && best >= TH_OPTIM_LOOP_SHARE;
}

/* 1 when the step range "Optimizer.step#CLASS.step" names one of
 * torch.optim's own optimizers (they take foreach=True; a subclass of the
 * program's or another library's may not) */
static int optim_builtin(const char *range)
{
	static const char *const cls[] = {"Adam",     "AdamW",	   "SGD",   "RMSprop", "Adagrad",
					  "Adadelta", "Adamax",	   "NAdam", "RAdam",   "ASGD",
					  "Rprop",    "Adafactor", NULL};
	const char *c = strchr(range, '#');
	if (!c)
		return 0;
	c++;
	size_t n = strcspn(c, ".");
	for (const char *const *p = cls; *p; p++)
		if (strlen(*p) == n && !strncmp(c, *p, n))
			return 1;
	return 0;
}

int adv_optim_loop(struct finding *f, const struct analysis *a)
{
	double pct;
	if (!sw_optim_loop(a, &pct))
		return 0;
	const struct an_op_modes *o = &a->ops.modes;
	const struct an_sample_modes *s = &a->hostidle.modes;
	const struct trace *w = a->whole ? a->whole : a->t;
	if (o->optim_steps) {
		finding_num(f, "optimizer_steps", (double)o->optim_steps);
		finding_num(f, "optimizer_launches_per_step",
			    (double)o->optim_launches / (double)o->optim_steps);
	}
	finding_num(f, "optimizer_loop_pct", pct);
	/* torch.optim's own when its function was sampled or the step's
	 * range names one of its classes */
	const char *range = o->optim_name ? trace_str(w, o->optim_name) : "";
	int builtin = s->optim_fn || optim_builtin(range);
	if (s->optim_fn)
		finding_str(f, "optimizer_function", "%s", trace_str(w, s->optim_fn));
	else if (o->optim_name)
		finding_str(f, "optimizer_function", "%s", range);
	if (builtin)
		finding_action(f,
			       N_("the optimizer updates the parameters one tensor at a time "
				  "(torch.optim's per-parameter path, optimizer_function: %.0f%% "
				  "of the launches or host time): pass foreach=True, or "
				  "fused=True (Adam, AdamW, SGD), to it so that it updates all of "
				  "them with a few multi-tensor kernels"),
			       pct);
	else
		finding_action(
		    f,
		    N_("the optimizer (optimizer_function, not one of torch.optim's "
		       "own) updates the parameters one tensor at a time: %.0f%% of the "
		       "launches or host time; write its update over the parameter "
		       "lists with torch._foreach_* ops (as torch.optim's foreach path "
		       "does), or use a fused optimizer (torch.optim.AdamW(fused=True))"),
		    pct);
	return 1;
}

int sw_autotuning(const struct analysis *a, double *pct)
{
	const struct an_op_modes *o = &a->ops.modes;
	const struct an_sample_modes *s = &a->hostidle.modes;
	double ops = 100.0 * share(o->autotune_window_ns, a->span_ns);
	double smp = 100.0 * share(s->find_ns, a->span_ns);
	ops = ops > 100 ? 100 : ops;
	smp = smp > 100 ? 100 : smp;
	int by_ops = o->autotune_late >= TH_AUTOTUNE_LATE_MIN;
	int by_samples = s->find_late_ns > 0 && smp >= TH_MIN_IMPACT_PCT;
	if (pct)
		*pct = by_ops ? ops : by_samples ? smp : 0;
	return a->prog.kind == PK_PYTORCH && (by_ops || by_samples);
}

int adv_autotuning(struct finding *f, const struct analysis *a)
{
	double pct;
	if (!sw_autotuning(a, &pct))
		return 0;
	const struct an_op_modes *o = &a->ops.modes;
	const struct trace *w = a->whole ? a->whole : a->t;
	if (o->autotune_calls) {
		finding_num(f, "autotune_calls", (double)o->autotune_calls);
		finding_num(f, "autotune_late_calls", (double)o->autotune_late);
		finding_num(f, "autotune_ms", (double)o->autotune_ns / 1e6);
		finding_str(f, "autotune_op", "%s", trace_str(w, o->autotune_op));
	}
	finding_num(f, "autotune_pct", pct);
	finding_action(f,
		       N_("cudnn.benchmark=True autotunes each new input shape and the shapes "
			  "keep changing: bucket or pad the changing sizes to a few (image sizes, "
			  "DataLoader(drop_last=True)), or set torch.backends.cudnn.benchmark="
			  "False when they cannot be bucketed"));
	return 1;
}
