/*
 * report_series.c - the analysis's chart series (series.h) as report
 * sections for pictures: "timeline" (the span's bins: busy, blocking
 * syncs, idle by cause), one "timeline_lane" per device/stream lane (its
 * kernel, copy and memset time in the bins where it ran), "idle_gaps" (the
 * gap-length histogram by cause), one "series" per sampled metric and
 * device, one "memory_live" per device with cudaMalloc'd memory. They are
 * neither in the text nor in the JSON (RM_SJ_NONE): the HTML page draws
 * them, so their size is bounded by series.h, not by the trace.
 */
#include "report/report_int.h"
#include "gpu/pm_metrics.h"
#include "gpu/metrics.h"
#include "gpu/pm_metrics.h"

#define COL(k, kd)                                                                                 \
	{                                                                                          \
		.key = k, .kind = kd                                                               \
	}

/* A section of pictures: no text, no JSON. */
static struct rm_section *pic_section(struct report *r, const char *id)
{
	struct rm_section *s = rm_section_add(r, id, NULL, RM_SJ_NONE, NULL, JP_NONE);
	if (s)
		s->text = 0;
	return s;
}

/* The span's bins (the series; row i: bin i). */
static struct rm_cell idle_at(const struct rm_row *w, enum an_idle_cause c)
{
	const struct an_series *x = w->row;
	return rm_dur((int64_t)(x->idle[w->i * AN_IDLE_CAUSES + (size_t)c] + 0.5));
}
RM_FILL(tl_bin, struct an_series, rm_count(w->i))
RM_FILL(tl_busy, struct an_series, rm_dur(x->busy[w->i]))
RM_FILL(tl_sync, struct an_series, rm_dur(x->sync[w->i]))
RM_FILL(tl_host, struct an_series, idle_at(w, AN_IDLE_HOST))
RM_FILL(tl_dispatch, struct an_series, idle_at(w, AN_IDLE_DISPATCH))
RM_FILL(tl_launch, struct an_series, idle_at(w, AN_IDLE_LAUNCH))
RM_FILL(tl_wait_sync, struct an_series, idle_at(w, AN_IDLE_SYNC))
RM_FILL(tl_copy, struct an_series, idle_at(w, AN_IDLE_COPY))
RM_FILL(tl_api, struct an_series, idle_at(w, AN_IDLE_API))

static int timeline(struct report *r, const struct an_series *x, const struct analysis *a)
{
	static const struct rm_entry cols[] = {
	    {COL("bin", RM_COUNT), tl_bin},
	    {COL("busy_ns", RM_DURATION), tl_busy},
	    {COL("sync_ns", RM_DURATION), tl_sync},
	    {COL("idle_host_ns", RM_DURATION), tl_host},
	    {COL("idle_dispatch_ns", RM_DURATION), tl_dispatch},
	    {COL("idle_launch_ns", RM_DURATION), tl_launch},
	    {COL("idle_sync_ns", RM_DURATION), tl_wait_sync},
	    {COL("idle_copy_ns", RM_DURATION), tl_copy},
	    {COL("idle_api_ns", RM_DURATION), tl_api},
	};
	struct rm_section *s = pic_section(r, "timeline");
	TRYP(s);
	TRY(rm_field_add(s, "start_ns", 0, rm_cell_int(RM_TIMESTAMP, a->start_ns)));
	TRY(rm_field_add(s, "end_ns", 0, rm_cell_int(RM_TIMESTAMP, a->end_ns)));
	TRY(rm_field_add(s, "bin_ns", 0, rm_dur(x->bin_ns)));
	TRY(rm_field_add(s, "bins", 0, rm_count((uint64_t)x->n_bins)));
	TRY(rm_field_add(s, "lanes", 0, rm_count(x->n_lanes)));
	TRYP(rm_table_fill(r, s, "bins", RM_TJ_ARRAY, cols, NCOLS(cols), x, 0, (size_t)x->n_bins,
			   NULL));
	return 0;
}

/* The bins of a lane it ran in (a row: the bin; ctx: the lane). */
static struct rm_cell lane_ns(const struct rm_row *w, enum an_lane_kind k)
{
	const struct an_lane *l = w->ctx;
	return rm_dur(l->ns[(size_t) * (const int *)w->row * AN_LANE_KINDS + k]);
}
RM_FILL(ln_bin, int, rm_count((uint64_t)*x))
RM_FILL(ln_kernel, int, lane_ns(w, AN_LANE_KERNEL))
RM_FILL(ln_copy, int, lane_ns(w, AN_LANE_COPY))
RM_FILL(ln_memset, int, lane_ns(w, AN_LANE_MEMSET))

static int lanes(struct report *r, const struct an_series *x)
{
	static const struct rm_entry cols[] = {
	    {COL("bin", RM_COUNT), ln_bin},
	    {COL("kernel_ns", RM_DURATION), ln_kernel},
	    {COL("copy_ns", RM_DURATION), ln_copy},
	    {COL("memset_ns", RM_DURATION), ln_memset},
	};
	int *bins = rm_alloc(r, ((size_t)x->n_bins + 1) * sizeof(*bins));
	TRYP(bins);
	for (size_t k = 0; k < x->n_lanes; k++) {
		const struct an_lane *l = &x->lanes[k];
		struct rm_section *s = pic_section(r, "timeline_lane");
		TRYP(s);
		TRY(rm_field_add(s, "device", 0,
				 rm_if(l->device != UINT32_MAX, rm_count(l->device))));
		/* unknown: the other streams, merged */
		TRY(rm_field_add(s, "stream", 0,
				 rm_if(l->stream != UINT32_MAX, rm_count(l->stream))));
		TRY(rm_field_add(s, "streams", 0, rm_count(l->streams)));
		TRY(rm_field_add(s, "ops", 0, rm_count(l->ops)));
		TRY(rm_field_add(s, "busy_ns", 0, rm_dur(l->busy_ns)));
		size_t n = 0;
		for (int b = 0; b < x->n_bins; b++) {
			const int64_t *v = l->ns + (size_t)b * AN_LANE_KINDS;
			if (v[0] || v[1] || v[2])
				bins[n++] = b;
		}
		TRYP(rm_table_fill(r, s, "bins", RM_TJ_ARRAY, cols, NCOLS(cols), bins,
				   sizeof(*bins), n, l));
	}
	return 0;
}

/* The gap-length histogram (a row: the histogram's bin; ctx: the series). */
static int64_t gap_ns(const struct rm_row *w, int k, enum an_idle_cause c)
{
	return ((const struct an_series *)w->ctx)->gap_ns[k][c];
}
static struct rm_cell gap_sum(const struct rm_row *w, int k)
{
	int64_t sum = 0;
	for (int c = 0; c < AN_IDLE_CAUSES; c++)
		sum += gap_ns(w, k, (enum an_idle_cause)c);
	return rm_dur(sum);
}
RM_FILL(gp_lo, int, rm_dur(an_gap_bin_lo(*x)))
RM_FILL(gp_hi, int, rm_if(*x + 1 < AN_GAP_BINS, rm_dur(an_gap_bin_lo(*x + 1))))
RM_FILL(gp_gaps, int, rm_count(((const struct an_series *)w->ctx)->gap_count[*x]))
RM_FILL(gp_ns, int, gap_sum(w, *x))
RM_FILL(gp_host, int, rm_dur(gap_ns(w, *x, AN_IDLE_HOST)))
RM_FILL(gp_dispatch, int, rm_dur(gap_ns(w, *x, AN_IDLE_DISPATCH)))
RM_FILL(gp_launch, int, rm_dur(gap_ns(w, *x, AN_IDLE_LAUNCH)))
RM_FILL(gp_sync, int, rm_dur(gap_ns(w, *x, AN_IDLE_SYNC)))
RM_FILL(gp_copy, int, rm_dur(gap_ns(w, *x, AN_IDLE_COPY)))
RM_FILL(gp_api, int, rm_dur(gap_ns(w, *x, AN_IDLE_API)))

static int idle_gaps(struct report *r, const struct an_series *x)
{
	static const struct rm_entry cols[] = {
	    {COL("lo_ns", RM_DURATION), gp_lo},
	    {COL("hi_ns", RM_DURATION), gp_hi},
	    {COL("gaps", RM_COUNT), gp_gaps},
	    {COL("ns", RM_DURATION), gp_ns},
	    {COL("host_ns", RM_DURATION), gp_host},
	    {COL("dispatch_ns", RM_DURATION), gp_dispatch},
	    {COL("launch_ns", RM_DURATION), gp_launch},
	    {COL("sync_ns", RM_DURATION), gp_sync},
	    {COL("copy_ns", RM_DURATION), gp_copy},
	    {COL("api_ns", RM_DURATION), gp_api},
	};
	int first = AN_GAP_BINS, last = -1;
	uint64_t gaps = 0;
	for (int k = 0; k < AN_GAP_BINS; k++) {
		gaps += x->gap_count[k];
		if (x->gap_count[k]) {
			first = k < first ? k : first;
			last = k;
		}
	}
	struct rm_section *s = pic_section(r, "idle_gaps");
	TRYP(s);
	TRY(rm_field_add(s, "gaps", 0, rm_count(gaps)));
	int rows[AN_GAP_BINS];
	size_t n = 0;
	for (int k = first; k <= last; k++)
		rows[n++] = k;
	TRYP(
	    rm_table_fill(r, s, "bins", RM_TJ_ARRAY, cols, NCOLS(cols), rows, sizeof(*rows), n, x));
	return 0;
}

/* A sampled metric's points (the series; row i: point i). */
RM_FILL(pt_from, struct an_sample_series, rm_cell_int(RM_TIMESTAMP, x->from[w->i]))
RM_FILL(pt_to, struct an_sample_series, rm_cell_int(RM_TIMESTAMP, x->to[w->i]))
RM_FILL(pt_value, struct an_sample_series, rm_num(x->value[w->i], 1))

static int samples(struct report *r, const struct an_series *x)
{
	static const struct rm_entry cols[] = {
	    {COL("from_ns", RM_TIMESTAMP), pt_from},
	    {COL("to_ns", RM_TIMESTAMP), pt_to},
	    {COL("value", RM_NUMBER), pt_value},
	};
	for (size_t k = 0; k < x->n_samples; k++) {
		const struct an_sample_series *p = &x->samples[k];
		int m = gpu_metric_by_trace_name(p->metric),
		    pm = pm_metric_by_trace_name(p->metric);
		struct rm_section *s = pic_section(r, "series");
		TRYP(s);
		TRY(rm_field_add(s, "metric", 0, rm_text(p->metric)));
		TRY(rm_field_add(s, "device", 0, rm_count(p->device)));
		TRY(rm_field_add(s, "unit", 0,
				 rm_text(m >= 0	   ? gpu_metrics[m].unit
					 : pm >= 0 ? pm_unit(pm)
						   : "")));
		TRY(rm_field_add(s, "windowed", 0, rm_count((uint64_t)p->windowed)));
		TRY(rm_field_add(s, "shift_ns", 0, rm_dur(x->sample_shift_ns)));
		TRYP(rm_table_fill(r, s, "points", RM_TJ_ARRAY, cols, NCOLS(cols), p, 0, p->n,
				   NULL));
	}
	return 0;
}

/* Live memory as a step function: a row where it changes (a row: the bin;
 * ctx: the device's memory). */
RM_FILL(mm_bin, int, rm_count((uint64_t)*x))
RM_FILL(mm_bytes, int, rm_cell_int(RM_BYTES, ((const struct an_mem_series *)w->ctx)->max[*x]))

static int memory(struct report *r, const struct an_series *x)
{
	static const struct rm_entry cols[] = {
	    {COL("bin", RM_COUNT), mm_bin},
	    {COL("bytes", RM_BYTES), mm_bytes},
	};
	int *bins = rm_alloc(r, ((size_t)x->n_bins + 1) * sizeof(*bins));
	TRYP(bins);
	for (size_t k = 0; k < x->n_mem; k++) {
		const struct an_mem_series *m = &x->mem[k];
		struct rm_section *s = pic_section(r, "memory_live");
		TRYP(s);
		TRY(rm_field_add(s, "device", 0, rm_count(m->device)));
		TRY(rm_field_add(s, "start_bytes", 0, rm_cell_int(RM_BYTES, m->start_bytes)));
		TRY(rm_field_add(s, "peak_bytes", 0, rm_cell_int(RM_BYTES, m->peak_bytes)));
		size_t n = 0;
		for (int b = 0; b < x->n_bins; b++)
			if (!b || m->max[b] != m->max[b - 1])
				bins[n++] = b;
		TRYP(rm_table_fill(r, s, "steps", RM_TJ_ARRAY, cols, NCOLS(cols), bins,
				   sizeof(*bins), n, m));
	}
	return 0;
}

int rm_build_series(struct report *r, const struct analysis *a)
{
	const struct an_series *x = &a->series;
	if (x->n_bins <= 0 || !x->busy)
		return 0;
	TRY(timeline(r, x, a));
	TRY(lanes(r, x));
	TRY(idle_gaps(r, x));
	TRY(samples(r, x));
	return memory(r, x);
}
