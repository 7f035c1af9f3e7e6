/*
 * report_counters.c - the report's per-kernel hardware counters section
 * (`record --metrics kernels`, analyze/kcounters.h): each kernel's speed of
 * light, bound and the access numbers behind the counter findings, then its
 * roofline point; in JSON every metric by its Nsight Compute name, nested
 * tables for the metrics, the roofline and the top stalls. A value not
 * collected is unknown (kcounters.c: NAN).
 */
#include <math.h>

#include "report/report_int.h"

static struct rm_cell nan_num(double v, int prec)
{
	return rm_if(!isnan(v), rm_num(isnan(v) ? 0 : v, prec));
}

static struct rm_cell sig(double v, int digits)
{
	return rm_cell_styled(nan_num(v, digits), RM_STYLE_SIG);
}

static struct rm_cell bare_pct(const struct kc_group *g, int id)
{
	return rm_if(g->has[id],
		     rm_cell_styled(rm_pct(g->has[id] ? g->v[id] : 0, 0), RM_STYLE_BARE));
}

/* metrics: {ncu name: mean}, every metric of the list (row i: metric i of
 * the group) */
RM_FILL(km_name, struct kc_group, rm_text(kc_metric_name((int)w->i)))
RM_FILL(km_value, struct kc_group, nan_num(x->has[w->i] ? x->v[w->i] : NAN, 2))

static const struct rm_table *metrics(struct report *r, const struct kc_group *g)
{
	static const struct rm_entry cols[] = {
	    {{.key = "metric", .kind = RM_TEXT, .json = 1}, km_name},
	    {{.key = "value", .kind = RM_NUMBER, .json = 1}, km_value},
	};
	return rm_table_fill_detached(r, RM_TJ_KEYED_ONE, cols, NCOLS(cols), g, 0, KM_COUNT, NULL);
}

struct key_value {
	const char *key;
	double v;
};
RM_FILL(kv_key, struct key_value, rm_text(x->key))
RM_FILL(kv_value, struct key_value, nan_num(x->v, 3))

static const struct rm_table *roofline(struct report *r, const struct kc_group *g)
{
	static const struct rm_entry cols[] = {
	    {{.key = "key", .kind = RM_TEXT, .json = 1}, kv_key},
	    {{.key = "value", .kind = RM_NUMBER, .json = 1}, kv_value},
	};
	const struct key_value rows[] = {
	    {"flop", g->flop},
	    {"tensor_flop", g->tensor_flop},
	    {"dram_bytes", g->dram_bytes},
	    {"intensity_flop_per_byte", g->intensity},
	    {"flop_per_s", g->flop_per_s},
	    {"dram_bytes_per_s", g->dram_bytes_per_s},
	    {"roof_flop_per_s", g->roof_flop_per_s},
	    {"roof_dram_bytes_per_s", g->roof_bytes_per_s},
	};
	return rm_table_fill_detached(r, RM_TJ_KEYED_ONE, cols, NCOLS(cols), rows, sizeof(*rows),
				      NCOLS(rows), NULL);
}

/* the top stalls (row i: the group's i-th) */
RM_FILL(ks_name, struct kc_group, rm_text(kc_metric_name(x->stall[w->i])))
RM_FILL(ks_share, struct kc_group, rm_pct(100.0 * x->stall_share[w->i], 1))

static const struct rm_table *stalls(struct report *r, const struct kc_group *g)
{
	static const struct rm_entry cols[] = {
	    {{.key = "metric", .kind = RM_TEXT, .json = 1}, ks_name},
	    {{.key = "share_pct", .kind = RM_PERCENT, .json = 1}, ks_share},
	};
	size_t n = 0;
	while (n < KC_TOP_STALLS && g->stall[n] >= 0)
		n++;
	return rm_table_fill_detached(r, RM_TJ_ARRAY, cols, NCOLS(cols), g, 0, n, NULL);
}

/* a kernel's counters (ctx: the analysis) */
RM_FILL(kc_hash, struct kc_group, rm_row_number(w))
RM_FILL(kc_base, struct kc_group,
	rm_cell_styled(rm_cell_str(RM_NAME, rm_an_str(w, x->name_id)), RM_STYLE_BASE_NAME))
RM_FILL(kc_name, struct kc_group, rm_cell_str(RM_NAME, rm_an_str(w, x->name_id)))
RM_FILL(kc_demangled, struct kc_group, rm_demangled(w, rm_an_str(w, x->name_id)))
RM_FILL(kc_launches, struct kc_group, rm_count(x->launches))
RM_FILL(kc_profiled, struct kc_group, rm_count(x->profiled))
RM_FILL(kc_total, struct kc_group, rm_dur(x->sum_ns))
RM_FILL(kc_sm, struct kc_group, bare_pct(x, KM_SM_SOL))
RM_FILL(kc_mem, struct kc_group, bare_pct(x, KM_MEM_SOL))
RM_FILL(kc_dram, struct kc_group, bare_pct(x, KM_DRAM_PCT))
RM_FILL(kc_occ, struct kc_group, bare_pct(x, KM_ACHIEVED_OCC))
RM_FILL(kc_thr, struct kc_group,
	nan_num(x->has[KM_THREADS_PER_INST] ? x->v[KM_THREADS_PER_INST] : NAN, 1))
RM_FILL(kc_bound, struct kc_group, rm_text(kc_bound_name(x->bound)))
RM_FILL(kc_unit, struct kc_group, rm_if(x->unit != NULL, rm_text(x->unit)))
RM_FILL(kc_metrics, struct kc_group, rm_made(w, rm_sub(metrics(w->r, x))))
RM_FILL(kc_sectors, struct kc_group, nan_num(x->sectors_per_request, 1))
RM_FILL(kc_sectors_thread, struct kc_group, nan_num(x->sectors_per_thread, 2))
RM_FILL(kc_ways, struct kc_group, nan_num(x->shared_ways, 1))
RM_FILL(kc_conflicts, struct kc_group, nan_num(x->bank_conflict_share, 2))
RM_FILL(kc_roofline, struct kc_group, rm_made(w, rm_sub(roofline(w->r, x))))
RM_FILL(kc_stalls, struct kc_group, rm_made(w, rm_sub(stalls(w->r, x))))
RM_FILL(kc_bound_unit, struct kc_group,
	rm_made(w, rm_text(rm_printf(w->r, "%s%s%s", kc_bound_name(x->bound), x->unit ? ": " : "",
				     x->unit ? x->unit : ""))))
/* its roofline point */
RM_FILL(kr_intensity, struct kc_group, sig(x->intensity, 3))
RM_FILL(kr_tflops, struct kc_group, sig(x->flop_per_s / 1e12, 3))
RM_FILL(kr_tflops_roof, struct kc_group, sig(x->roof_flop_per_s / 1e12, 3))
RM_FILL(kr_gbps, struct kc_group, sig(x->dram_bytes_per_s / 1e9, 4))
RM_FILL(kr_gbps_roof, struct kc_group, sig(x->roof_bytes_per_s / 1e9, 4))

int rm_build_counters(struct report *r, const struct analysis *a)
{
	static const struct rm_entry cols[] = {
	    {{.header = RM_T("#"), .kind = RM_TEXT, .width = 3, .left = 1}, kc_hash},
	    {{.header = RM_T("kernel"), .kind = RM_NAME, .width = 20, .left = 1}, kc_base},
	    {{.key = "name", .kind = RM_NAME, .json = 1}, kc_name},
	    {{.key = "demangled", .kind = RM_TEXT, .json = 1}, kc_demangled},
	    {{.key = "launches", .kind = RM_COUNT, .json = 1}, kc_launches},
	    {{.key = "profiled_launches",
	      .header = RM_T("runs"),
	      .kind = RM_COUNT,
	      .json = 1,
	      .width = 4},
	     kc_profiled},
	    {{.key = "total_ns", .kind = RM_DURATION, .json = 1}, kc_total},
	    {{.header = RM_T("SM%"), .kind = RM_PERCENT, .width = 5}, kc_sm},
	    {{.header = RM_T("mem%"), .kind = RM_PERCENT, .width = 5}, kc_mem},
	    {{.header = RM_T("DRAM%"), .kind = RM_PERCENT, .width = 5}, kc_dram},
	    {{.header = RM_T("occ%"), .kind = RM_PERCENT, .width = 5}, kc_occ},
	    {{.header = RM_T("thr/in"), .kind = RM_NUMBER, .width = 6}, kc_thr},
	    {{.key = "bound", .kind = RM_TEXT, .json = 1}, kc_bound},
	    {{.key = "unit", .kind = RM_TEXT, .json = 1}, kc_unit},
	    {{.key = "metrics", .kind = RM_TABLE, .json = 1}, kc_metrics},
	    {{.key = "sectors_per_request",
	      .header = RM_T("sec/rq"),
	      .kind = RM_NUMBER,
	      .json = 1,
	      .width = 6},
	     kc_sectors},
	    {{.key = "sectors_per_thread_access", .kind = RM_NUMBER, .json = 1}, kc_sectors_thread},
	    {{.key = "shared_wavefronts_per_instruction",
	      .header = RM_T("ways"),
	      .kind = RM_NUMBER,
	      .json = 1,
	      .width = 5},
	     kc_ways},
	    {{.key = "bank_conflict_share", .kind = RM_NUMBER, .json = 1}, kc_conflicts},
	    {{.key = "roofline", .kind = RM_TABLE, .json = 1}, kc_roofline},
	    {{.key = "top_stalls", .kind = RM_TABLE, .json = 1}, kc_stalls},
	    {{.header = RM_T("bound"), .kind = RM_TEXT, .width = 16, .left = 1}, kc_bound_unit},
	};
	static const struct rm_entry rcols[] = {
	    {{.header = RM_T("#"), .kind = RM_TEXT, .width = 3, .left = 1}, kc_hash},
	    {{.header = RM_T("kernel"), .kind = RM_NAME, .width = 20, .left = 1}, kc_base},
	    {{.header = RM_T("FLOP/byte"), .kind = RM_NUMBER, .width = 10}, kr_intensity},
	    {{.header = RM_T("TFLOP/s"), .kind = RM_NUMBER, .width = 10}, kr_tflops},
	    {{.header = RM_T("roof"), .kind = RM_NUMBER, .width = 10}, kr_tflops_roof},
	    {{.header = RM_T("GB/s"), .kind = RM_NUMBER, .width = 10}, kr_gbps},
	    {{.header = RM_T("roof"), .kind = RM_NUMBER, .width = 10}, kr_gbps_roof},
	};
	const struct kc_table *k = &a->kc;
	struct rm_section *s =
	    rm_section_add(r, "kernel_counters",
			   RM_T("KERNEL COUNTERS (per launch, means of the profiled launches)"),
			   RM_SJ_INLINE, NULL, JP_KERNEL_COUNTERS);
	TRYP(s);
	s->text = k->n > 0;
	size_t n = k->n < RM_JSON_TOP_KERNELS ? k->n : RM_JSON_TOP_KERNELS;
	size_t tn = n < RM_TEXT_TOP_ROWS ? n : RM_TEXT_TOP_ROWS;
	struct rm_table *t = rm_table_fill(r, s, "kernel_counters", RM_TJ_ARRAY, cols, NCOLS(cols),
					   k->g, sizeof(*k->g), n, a);
	TRYP(t);
	t->text_rows = tn;
	TRYP(rm_line_add(s, "  ", NULL, RM_T("roofline (per launch):")));
	TRYP(rm_table_fill(r, s, NULL, RM_TJ_ARRAY, rcols, NCOLS(rcols), k->g, sizeof(*k->g), tn,
			   a));
	return 0;
}
