/*
 * rules_memory.c - memory_peak (docs/findings.md): the run came within
 * 10% of the card's memory (memory.c), a risk of running out rather than
 * time lost, so its impact is 0 and its severity a warning: it is listed,
 * and primary only when nothing costs time.
 */
#include "diagnose/advice.h"
#include "diagnose/rules_int.h"
#include "util/error.h"
#include "util/i18n.h"

int rule_memory_peak(struct rule_ctx *c, const struct rule *r, char *err)
{
	struct analysis *a = c->a;
	const struct an_memory *m = &a->mem;
	/* the allocated peak when the trace has allocations, else NVML's used
	 * memory (which counts every process on the card) */
	int from_allocs = m->have_allocs && m->peak_card_share >= 0;
	double share = from_allocs ? m->peak_card_share : m->used_card_share;
	if (share < TH_MEMORY_PEAK_SHARE)
		return 0;
	double peak = from_allocs ? (double)m->peak_bytes : m->used_peak_bytes;
	uint64_t card = from_allocs ? m->card_bytes : 0;
	struct finding *f =
	    from_allocs
		? finding_add(&a->findings, r->id, SEV_WARNING,
			      N_("device memory peaks at %.1f%% of the card (process %u, in the "
				 "%s): close to running out"),
			      100.0 * share, m->peak_pid, mem_phase_name(m->peak_phase))
		: finding_add(&a->findings, r->id, SEV_WARNING,
			      N_("the GPU's used memory peaks at %.1f%% of the card: close to "
				 "running out"),
			      100.0 * share);
	if (!f)
		return error_set(err, "out of memory");
	if (from_allocs) /* a word the title quotes */
		finding_title_tr(f, mem_phase_name(m->peak_phase));
	f->impact_pct = 0;
	finding_num(f, "peak_card_pct", 100.0 * share);
	finding_num(f, "peak_gib", peak / (1024.0 * 1024 * 1024));
	if (card)
		finding_num(f, "card_gib", (double)card / (1024.0 * 1024 * 1024));
	finding_str(f, "measured_by", "%s",
		    from_allocs ? "allocations (live device bytes)" : "NVML used memory");
	if (from_allocs) {
		finding_num(f, "process", m->peak_pid);
		finding_str(f, "phase", "%s", mem_phase_name(m->peak_phase));
	}
	adv_memory_peak(f, a);
	return 0;
}
