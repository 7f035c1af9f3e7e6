/*
 * report_memory.c - the report's MEMORY section (memory.h): the peak of
 * allocated device memory, whose it was, when (the phase) and against the
 * card, NVML's used memory beside it, each process's peak, and live bytes
 * over time (a series for charts).
 */
#include <stdio.h>

#include "report/report_int.h"

#define NCOLS(c) (sizeof(c) / sizeof((c)[0]))

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

int rm_build_memory(struct report *r, const struct analysis *a)
{
	static const struct rm_column pcols[] = {
	    {.key = "pid", .kind = RM_COUNT, .json = 1},
	    {.key = "device", .kind = RM_COUNT, .json = 1},
	    {.key = "peak_bytes", .kind = RM_BYTES, .json = 1},
	    {.key = "peak_ns", .kind = RM_TIMESTAMP, .json = 1},
	    {.key = "phase", .kind = RM_TEXT, .json = 1},
	    {.key = "allocations", .kind = RM_COUNT, .json = 1},
	    {.key = "frees", .kind = RM_COUNT, .json = 1},
	    {.key = "end_bytes", .kind = RM_BYTES, .json = 1},
	};
	static const struct rm_column tcols[] = {
	    {.key = "ts_ns", .kind = RM_TIMESTAMP, .json = 1},
	    {.key = "bytes", .kind = RM_BYTES, .json = 1},
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
	struct rm_table *t =
	    rm_table_add(r, s, "processes", RM_TJ_ARRAY, pcols, NCOLS(pcols), m->n_procs);
	TRYP(t);
	t->text_rows = 0;
	for (size_t i = 0; i < m->n_procs; i++) {
		const struct an_mem_proc *p = &m->procs[i];
		rm_set(t, i, 0, rm_count(p->pid));
		rm_set(t, i, 1, rm_count(p->device));
		rm_set(t, i, 2, rm_cell_int(RM_BYTES, p->peak_bytes));
		rm_set(t, i, 3, rm_cell_int(RM_TIMESTAMP, p->peak_ns));
		rm_set(t, i, 4, rm_text(mem_phase_name(p->phase)));
		rm_set(t, i, 5, rm_count(p->allocs));
		rm_set(t, i, 6, rm_count(p->frees));
		rm_set(t, i, 7, rm_cell_int(RM_BYTES, p->end_bytes));
	}
	TRYP(t = rm_table_add(r, s, "timeline", RM_TJ_ARRAY, tcols, NCOLS(tcols),
			      (size_t)m->n_points));
	t->text_rows = 0;
	for (int k = 0; k < m->n_points; k++) {
		rm_set(t, (size_t)k, 0, rm_cell_int(RM_TIMESTAMP, m->point_ns[k]));
		rm_set(t, (size_t)k, 1, rm_cell_int(RM_BYTES, m->point_bytes[k]));
	}
	return 0;
}
