/*
 * rules_fill.c - deterministic_fill (docs/findings.md): deterministic mode
 * fills every torch.empty with NaN before its first write (docs/causes.md
 * row 21). torch.use_deterministic_algorithms(True) turns on
 * torch.utils.deterministic.fill_uninitialized_memory with it (PyTorch 2.1
 * and later): a fill kernel for each empty op, which reproducibility does
 * not need as long as no op reads memory it did not write; the setting
 * can be turned off on its own, keeping the deterministic algorithms.
 *
 * What it reads is analyze/torchmodes.c's count of the window's empty ops
 * holding an aten::fill_ (a torch.profiler trace: op events), their
 * kernels' GPU time and the fills' host time. A gpuscope recording has no
 * op events and cannot tell a NaN fill from a torch.zeros: no finding.
 * The impact is the fills' kernels' share of the span: what the GPU spends
 * filling, saved when the setting is off.
 */
#include "diagnose/rules_int.h"
#include "util/error.h"
#include "util/i18n.h"

int rule_deterministic_fill(struct rule_ctx *c, const struct rule *r, char *err)
{
	struct analysis *a = c->a;
	const struct an_op_modes *m = &a->ops.modes;
	if (m->empty_filled < TH_FILL_MIN_CALLS ||
	    (double)m->empty_filled < TH_FILL_SHARE * (double)m->empty_calls)
		return 0;
	double gpu = an_pct(a, (double)m->fill_gpu_ns);
	double host = an_pct(a, (double)m->fill_host_ns);
	struct finding *f = finding_add(
	    &a->findings, r->id, rule_sev(gpu),
	    N_("deterministic mode fills every new tensor with NaN before its first write: "
	       "%llu of %llu torch.empty calls filled their memory, with %llu kernels, %.1f%% of "
	       "the run's time on the GPU"),
	    (unsigned long long)m->empty_filled, (unsigned long long)m->empty_calls,
	    (unsigned long long)m->fill_launches, gpu);
	if (!f)
		return error_set(err, "out of memory");
	f->impact_pct = gpu;
	finding_num(f, "filled_empty_calls", (double)m->empty_filled);
	finding_num(f, "empty_calls", (double)m->empty_calls);
	finding_num(f, "fill_kernels", (double)m->fill_launches);
	finding_num(f, "fill_gpu_pct", gpu);
	finding_num(f, "fill_gpu_ms", (double)m->fill_gpu_ns / 1e6);
	finding_num(f, "fill_host_pct", host);
	finding_action(f,
		       N_("set torch.utils.deterministic.fill_uninitialized_memory = False after "
			  "torch.use_deterministic_algorithms(True): the algorithms stay "
			  "deterministic and the results reproducible; the fill only makes "
			  "reads of memory no op wrote repeatable (keep it on while hunting "
			  "such a read)"));
	finding_action(f, N_("where this run need not be reproducible, leave deterministic mode "
			     "off (torch.use_deterministic_algorithms(False); Lightning's "
			     "Trainer(deterministic=False)): its deterministic kernels for "
			     "index_add, scatter and cuDNN's convolutions cost time too"));
	return 0;
}
