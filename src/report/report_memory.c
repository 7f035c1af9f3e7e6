/*
 * report_memory.c - the report's MEMORY section (memory.h): the peak of
 * allocated device memory, whose it was, when (the phase) and against the
 * card, NVML's used memory beside it, each process's peak, and live bytes
 * over time (a series for charts).
 */
#include <stdio.h>

#include "report/report_int.h"

/* bytes in the binary unit that suits them ("14.00 GiB", "512.0 MiB") */
static const char *gib(struct report *r, double bytes)
{
	double k = 1024.0;
	if (bytes >= k * k * k)
		return rm_printf(r, "%.2f GiB", bytes / (k * k * k));
	if (bytes >= k * k)
		return rm_printf(r, "%.1f MiB", bytes / (k * k));
	return rm_printf(r, "%.0f KiB", bytes / k);
}

/* each process's peak */
RM_FILL(mp_pid, struct an_mem_proc, rm_count(x->pid))
RM_FILL(mp_device, struct an_mem_proc, rm_count(x->device))
RM_FILL(mp_peak, struct an_mem_proc, rm_cell_int(RM_BYTES, x->peak_bytes))
RM_FILL(mp_peak_ns, struct an_mem_proc, rm_cell_int(RM_TIMESTAMP, x->peak_ns))
RM_FILL(mp_phase, struct an_mem_proc, rm_text(mem_phase_name(x->phase)))
RM_FILL(mp_allocs, struct an_mem_proc, rm_count(x->allocs))
RM_FILL(mp_frees, struct an_mem_proc, rm_count(x->frees))
RM_FILL(mp_end, struct an_mem_proc, rm_cell_int(RM_BYTES, x->end_bytes))
/* live bytes over time (row i: point i of the memory) */
RM_FILL(mt_ts, struct an_memory, rm_cell_int(RM_TIMESTAMP, x->point_ns[w->i]))
RM_FILL(mt_bytes, struct an_memory, rm_cell_int(RM_BYTES, x->point_bytes[w->i]))

int rm_build_memory(struct report *r, const struct analysis *a)
{
	static const struct rm_entry pcols[] = {
	    {{.key = "pid", .kind = RM_COUNT, .json = 1}, mp_pid},
	    {{.key = "device", .kind = RM_COUNT, .json = 1}, mp_device},
	    {{.key = "peak_bytes", .kind = RM_BYTES, .json = 1}, mp_peak},
	    {{.key = "peak_ns", .kind = RM_TIMESTAMP, .json = 1}, mp_peak_ns},
	    {{.key = "phase", .kind = RM_TEXT, .json = 1}, mp_phase},
	    {{.key = "allocations", .kind = RM_COUNT, .json = 1}, mp_allocs},
	    {{.key = "frees", .kind = RM_COUNT, .json = 1}, mp_frees},
	    {{.key = "end_bytes", .kind = RM_BYTES, .json = 1}, mp_end},
	};
	static const struct rm_entry tcols[] = {
	    {{.key = "ts_ns", .kind = RM_TIMESTAMP, .json = 1}, mt_ts},
	    {{.key = "bytes", .kind = RM_BYTES, .json = 1}, mt_bytes},
	};
	const struct an_memory *m = &a->mem;
	struct rm_section *s =
	    rm_section_add(r, "memory", RM_T("MEMORY"), RM_SJ_OBJECT, "memory", JP_MEMORY);
	TRYP(s);
	s->valid = m->have_allocs || m->have_used;
	s->text = s->valid;
	int card = m->card_bytes > 0;
	TRY(rm_field_add(s, "peak_bytes", 1,
			 rm_if(m->have_allocs, rm_cell_int(RM_BYTES, m->peak_bytes))));
	TRY(rm_field_add(s, "peak_pid", 1, rm_if(m->have_allocs, rm_count(m->peak_pid))));
	TRY(rm_field_add(s, "peak_device", 1, rm_if(m->have_allocs, rm_count(m->peak_device))));
	TRY(rm_field_add(s, "peak_phase", 1,
			 rm_if(m->have_allocs, rm_text(mem_phase_name(m->peak_phase)))));
	TRY(rm_field_add(s, "peak_ns", 1,
			 rm_if(m->have_allocs, rm_cell_int(RM_TIMESTAMP, m->peak_ns))));
	TRY(rm_field_add(s, "card_bytes", 1,
			 rm_if(card, rm_cell_int(RM_BYTES, (int64_t)m->card_bytes))));
	TRY(rm_field_add(s, "peak_card_pct", 1,
			 rm_if(m->peak_card_share >= 0, rm_pct(100.0 * m->peak_card_share, 1))));
	TRY(rm_field_add(s, "used_peak_bytes", 1,
			 rm_if(m->have_used, rm_cell_int(RM_BYTES, (int64_t)m->used_peak_bytes))));
	TRY(rm_field_add(s, "used_card_pct", 1,
			 rm_if(m->used_card_share >= 0, rm_pct(100.0 * m->used_card_share, 1))));
	TRY(rm_field_add(s, "steady_allocations", 1, rm_count(m->steady_allocs)));
	TRY(rm_field_add(s, "steady_frees", 1, rm_count(m->steady_frees)));
	if (m->have_allocs) {
		const char *pk = gib(r, (double)m->peak_bytes);
		const char *cd = card ? gib(r, (double)m->card_bytes) : "?";
		TRYP(pk && cd);
		struct rm_line *l = rm_line_add(
		    s, " ", "    ",
		    RM_T("peak {peak} allocated by process {pid}, {pct} of GPU {dev}'s"));
		TRYP(l);
		rm_line_arg(l, "peak", rm_text(pk));
		rm_line_arg(l, "pid", rm_count(m->peak_pid));
		rm_line_arg(l, "pct",
			    rm_if(m->peak_card_share >= 0, rm_pct(100.0 * m->peak_card_share, 1)));
		rm_line_arg(l, "dev", rm_count(m->peak_device));
		TRYP(l = rm_line_add(s, "", NULL, RM_T(" {card}, in the {phase}")));
		l->join = 1;
		rm_line_arg(l, "card", rm_text(cd));
		rm_line_arg(l, "phase", rm_text(mem_phase_name(m->peak_phase)));
		TRYP(
		    l = rm_line_add(s, "", NULL,
				    RM_T("; {allocs} allocations and {frees} frees in the analysed "
					 "window")));
		l->join = 1;
		rm_line_arg(l, "allocs", rm_count(m->steady_allocs));
		rm_line_arg(l, "frees", rm_count(m->steady_frees));
	}
	if (m->have_used) {
		const char *u = gib(r, m->used_peak_bytes);
		TRYP(u);
		struct rm_line *l = rm_line_add(
		    s, " ", "    ", RM_T("NVML: GPU {dev} used at most {used} ({pct})"));
		TRYP(l);
		rm_line_arg(l, "dev", rm_count(m->used_device));
		rm_line_arg(l, "used", rm_text(u));
		rm_line_arg(l, "pct",
			    rm_if(m->used_card_share >= 0, rm_pct(100.0 * m->used_card_share, 1)));
	}
	struct rm_table *t = rm_table_fill(r, s, "processes", RM_TJ_ARRAY, pcols, NCOLS(pcols),
					   m->procs, sizeof(*m->procs), m->n_procs, a);
	TRYP(t);
	t->text_rows = 0;
	TRYP(t = rm_table_fill(r, s, "timeline", RM_TJ_ARRAY, tcols, NCOLS(tcols), m, 0,
			       (size_t)m->n_points, a));
	t->text_rows = 0;
	return 0;
}
