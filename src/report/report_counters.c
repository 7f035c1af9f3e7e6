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
#include "util/demangle.h"

#define NCOLS(c) (sizeof(c) / sizeof((c)[0]))

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

/* metrics: {ncu name: mean}, every metric of the list */
static const struct rm_table *metrics(struct report *r, const struct kc_group *g)
{
	static const struct rm_column cols[] = {
	    {.key = "metric", .kind = RM_TEXT, .json = 1},
	    {.key = "value", .kind = RM_NUMBER, .json = 1},
	};
	struct rm_table *t = rm_table_detached(r, RM_TJ_KEYED_ONE, cols, 2, KM_COUNT);
	for (int m = 0; t && m < KM_COUNT; m++) {
		rm_set(t, (size_t)m, 0, rm_text(kc_metric_name(m)));
		rm_set(t, (size_t)m, 1, nan_num(g->has[m] ? g->v[m] : NAN, 2));
	}
	return t;
}

static const struct rm_table *roofline(struct report *r, const struct kc_group *g)
{
	static const struct rm_column cols[] = {
	    {.key = "key", .kind = RM_TEXT, .json = 1},
	    {.key = "value", .kind = RM_NUMBER, .json = 1},
	};
	const char *keys[8] = {
	    "flop",	  "tensor_flop",      "dram_bytes",	 "intensity_flop_per_byte",
	    "flop_per_s", "dram_bytes_per_s", "roof_flop_per_s", "roof_dram_bytes_per_s"};
	const double v[8] = {
	    g->flop,	   g->tensor_flop,	g->dram_bytes,	    g->intensity,
	    g->flop_per_s, g->dram_bytes_per_s, g->roof_flop_per_s, g->roof_bytes_per_s};
	struct rm_table *t = rm_table_detached(r, RM_TJ_KEYED_ONE, cols, 2, 8);
	for (size_t i = 0; t && i < 8; i++) {
		rm_set(t, i, 0, rm_text(keys[i]));
		rm_set(t, i, 1, nan_num(v[i], 3));
	}
	return t;
}

static const struct rm_table *stalls(struct report *r, const struct kc_group *g)
{
	static const struct rm_column cols[] = {
	    {.key = "metric", .kind = RM_TEXT, .json = 1},
	    {.key = "share_pct", .kind = RM_PERCENT, .json = 1},
	};
	size_t n = 0;
	while (n < KC_TOP_STALLS && g->stall[n] >= 0)
		n++;
	struct rm_table *t = rm_table_detached(r, RM_TJ_ARRAY, cols, 2, n);
	for (size_t i = 0; t && i < n; i++) {
		rm_set(t, i, 0, rm_text(kc_metric_name(g->stall[i])));
		rm_set(t, i, 1, rm_pct(100.0 * g->stall_share[i], 1));
	}
	return t;
}

int rm_build_counters(struct report *r, const struct analysis *a)
{
	static const struct rm_column cols[] = {
	    {.header = RM_T("#"), .kind = RM_TEXT, .width = 3, .left = 1},
	    {.header = RM_T("kernel"), .kind = RM_NAME, .width = 20, .left = 1},
	    {.key = "name", .kind = RM_NAME, .json = 1},
	    {.key = "demangled", .kind = RM_TEXT, .json = 1},
	    {.key = "launches", .kind = RM_COUNT, .json = 1},
	    {.key = "profiled_launches",
	     .header = RM_T("runs"),
	     .kind = RM_COUNT,
	     .json = 1,
	     .width = 4},
	    {.key = "total_ns", .kind = RM_DURATION, .json = 1},
	    {.header = RM_T("SM%"), .kind = RM_PERCENT, .width = 5},
	    {.header = RM_T("mem%"), .kind = RM_PERCENT, .width = 5},
	    {.header = RM_T("DRAM%"), .kind = RM_PERCENT, .width = 5},
	    {.header = RM_T("occ%"), .kind = RM_PERCENT, .width = 5},
	    {.header = RM_T("thr/in"), .kind = RM_NUMBER, .width = 6},
	    {.key = "bound", .kind = RM_TEXT, .json = 1},
	    {.key = "unit", .kind = RM_TEXT, .json = 1},
	    {.key = "metrics", .kind = RM_TABLE, .json = 1},
	    {.key = "sectors_per_request",
	     .header = RM_T("sec/rq"),
	     .kind = RM_NUMBER,
	     .json = 1,
	     .width = 6},
	    {.key = "sectors_per_thread_access", .kind = RM_NUMBER, .json = 1},
	    {.key = "shared_wavefronts_per_instruction",
	     .header = RM_T("ways"),
	     .kind = RM_NUMBER,
	     .json = 1,
	     .width = 5},
	    {.key = "bank_conflict_share", .kind = RM_NUMBER, .json = 1},
	    {.key = "roofline", .kind = RM_TABLE, .json = 1},
	    {.key = "top_stalls", .kind = RM_TABLE, .json = 1},
	    {.header = RM_T("bound"), .kind = RM_TEXT, .width = 16, .left = 1},
	};
	static const struct rm_column rcols[] = {
	    {.header = RM_T("#"), .kind = RM_TEXT, .width = 3, .left = 1},
	    {.header = RM_T("kernel"), .kind = RM_NAME, .width = 20, .left = 1},
	    {.header = RM_T("FLOP/byte"), .kind = RM_NUMBER, .width = 10},
	    {.header = RM_T("TFLOP/s"), .kind = RM_NUMBER, .width = 10},
	    {.header = RM_T("roof"), .kind = RM_NUMBER, .width = 10},
	    {.header = RM_T("GB/s"), .kind = RM_NUMBER, .width = 10},
	    {.header = RM_T("roof"), .kind = RM_NUMBER, .width = 10},
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
	struct rm_table *t =
	    rm_table_add(r, s, "kernel_counters", RM_TJ_ARRAY, cols, NCOLS(cols), n);
	TRYP(t);
	t->text_rows = tn;
	for (size_t i = 0; i < n; i++) {
		const struct kc_group *g = &k->g[i];
		const char *name = trace_str(a->t, g->name_id);
		char dm[4096];
		const char *hash = rm_printf(r, "#%zu", i + 1);
		const char *dem = rm_strdup(r, gs_demangle(name, dm, sizeof(dm)));
		const char *bound = rm_printf(r, "%s%s%s", kc_bound_name(g->bound),
					      g->unit ? ": " : "", g->unit ? g->unit : "");
		const struct rm_table *mt = metrics(r, g), *rt = roofline(r, g), *st = stalls(r, g);
		TRYP(hash && dem && bound && mt && rt && st);
		rm_set(t, i, 0, rm_text(hash));
		rm_set(t, i, 1, rm_cell_styled(rm_cell_str(RM_NAME, name), RM_STYLE_BASE_NAME));
		rm_set(t, i, 2, rm_cell_str(RM_NAME, name));
		rm_set(t, i, 3, rm_text(dem));
		rm_set(t, i, 4, rm_count(g->launches));
		rm_set(t, i, 5, rm_count(g->profiled));
		rm_set(t, i, 6, rm_dur(g->sum_ns));
		rm_set(t, i, 7, bare_pct(g, KM_SM_SOL));
		rm_set(t, i, 8, bare_pct(g, KM_MEM_SOL));
		rm_set(t, i, 9, bare_pct(g, KM_DRAM_PCT));
		rm_set(t, i, 10, bare_pct(g, KM_ACHIEVED_OCC));
		rm_set(t, i, 11,
		       nan_num(g->has[KM_THREADS_PER_INST] ? g->v[KM_THREADS_PER_INST] : NAN, 1));
		rm_set(t, i, 12, rm_text(kc_bound_name(g->bound)));
		rm_set(t, i, 13, rm_if(g->unit != NULL, rm_text(g->unit)));
		rm_set(t, i, 14, rm_sub(mt));
		rm_set(t, i, 15, nan_num(g->sectors_per_request, 1));
		rm_set(t, i, 16, nan_num(g->sectors_per_thread, 2));
		rm_set(t, i, 17, nan_num(g->shared_ways, 1));
		rm_set(t, i, 18, nan_num(g->bank_conflict_share, 2));
		rm_set(t, i, 19, rm_sub(rt));
		rm_set(t, i, 20, rm_sub(st));
		rm_set(t, i, 21, rm_text(bound));
	}
	TRYP(rm_line_add(s, "  ", NULL, RM_T("roofline (per launch):")));
	TRYP(t = rm_table_add(r, s, NULL, RM_TJ_ARRAY, rcols, NCOLS(rcols), tn));
	for (size_t i = 0; i < tn; i++) {
		const struct kc_group *g = &k->g[i];
		const char *hash = rm_printf(r, "#%zu", i + 1);
		TRYP(hash);
		rm_set(t, i, 0, rm_text(hash));
		rm_set(t, i, 1,
		       rm_cell_styled(rm_cell_str(RM_NAME, trace_str(a->t, g->name_id)),
				      RM_STYLE_BASE_NAME));
		rm_set(t, i, 2, sig(g->intensity, 3));
		rm_set(t, i, 3, sig(g->flop_per_s / 1e12, 3));
		rm_set(t, i, 4, sig(g->roof_flop_per_s / 1e12, 3));
		rm_set(t, i, 5, sig(g->dram_bytes_per_s / 1e9, 4));
		rm_set(t, i, 6, sig(g->roof_bytes_per_s / 1e9, 4));
	}
	return 0;
}
