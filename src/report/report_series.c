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

#define NCOLS(c) (sizeof(c) / sizeof((c)[0]))
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

static int timeline(struct report *r, const struct an_series *x, const struct analysis *a)
{
	static const struct rm_column cols[] = {
	    COL("bin", RM_COUNT),
	    COL("busy_ns", RM_DURATION),
	    COL("sync_ns", RM_DURATION),
	    COL("idle_host_ns", RM_DURATION),
	    COL("idle_dispatch_ns", RM_DURATION),
	    COL("idle_launch_ns", RM_DURATION),
	    COL("idle_sync_ns", RM_DURATION),
	    COL("idle_copy_ns", RM_DURATION),
	    COL("idle_api_ns", RM_DURATION),
	};
	struct rm_section *s = pic_section(r, "timeline");
	TRYP(s);
	TRY(rm_field_add(s, "start_ns", 0, rm_cell_int(RM_TIMESTAMP, a->start_ns)));
	TRY(rm_field_add(s, "end_ns", 0, rm_cell_int(RM_TIMESTAMP, a->end_ns)));
	TRY(rm_field_add(s, "bin_ns", 0, rm_dur(x->bin_ns)));
	TRY(rm_field_add(s, "bins", 0, rm_count((uint64_t)x->n_bins)));
	TRY(rm_field_add(s, "lanes", 0, rm_count(x->n_lanes)));
	struct rm_table *t =
	    rm_table_add(r, s, "bins", RM_TJ_ARRAY, cols, NCOLS(cols), (size_t)x->n_bins);
	TRYP(t);
	for (int b = 0; b < x->n_bins; b++) {
		size_t i = (size_t)b;
		rm_set(t, i, 0, rm_count(i));
		rm_set(t, i, 1, rm_dur(x->busy[i]));
		rm_set(t, i, 2, rm_dur(x->sync[i]));
		for (int c = 0; c < AN_IDLE_CAUSES; c++)
			rm_set(t, i, 3 + (size_t)c,
			       rm_dur((int64_t)(x->idle[i * AN_IDLE_CAUSES + (size_t)c] + 0.5)));
	}
	return 0;
}

static int lanes(struct report *r, const struct an_series *x)
{
	static const struct rm_column cols[] = {
	    COL("bin", RM_COUNT),
	    COL("kernel_ns", RM_DURATION),
	    COL("copy_ns", RM_DURATION),
	    COL("memset_ns", RM_DURATION),
	};
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
			n += v[0] || v[1] || v[2];
		}
		struct rm_table *t = rm_table_add(r, s, "bins", RM_TJ_ARRAY, cols, NCOLS(cols), n);
		TRYP(t);
		for (int b = 0, row = 0; b < x->n_bins; b++) {
			const int64_t *v = l->ns + (size_t)b * AN_LANE_KINDS;
			if (!v[0] && !v[1] && !v[2])
				continue;
			rm_set(t, (size_t)row, 0, rm_count((uint64_t)b));
			for (size_t c = 0; c < AN_LANE_KINDS; c++)
				rm_set(t, (size_t)row, 1 + c, rm_dur(v[c]));
			row++;
		}
	}
	return 0;
}

static int idle_gaps(struct report *r, const struct an_series *x)
{
	static const struct rm_column cols[] = {
	    COL("lo_ns", RM_DURATION),	   COL("hi_ns", RM_DURATION),
	    COL("gaps", RM_COUNT),	   COL("ns", RM_DURATION),
	    COL("host_ns", RM_DURATION),   COL("dispatch_ns", RM_DURATION),
	    COL("launch_ns", RM_DURATION), COL("sync_ns", RM_DURATION),
	    COL("copy_ns", RM_DURATION),   COL("api_ns", RM_DURATION),
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
	size_t n = last >= first ? (size_t)(last - first + 1) : 0;
	struct rm_table *t = rm_table_add(r, s, "bins", RM_TJ_ARRAY, cols, NCOLS(cols), n);
	TRYP(t);
	for (size_t i = 0; i < n; i++) {
		int k = first + (int)i;
		int64_t sum = 0;
		rm_set(t, i, 0, rm_dur(an_gap_bin_lo(k)));
		rm_set(t, i, 1, rm_if(k + 1 < AN_GAP_BINS, rm_dur(an_gap_bin_lo(k + 1))));
		rm_set(t, i, 2, rm_count(x->gap_count[k]));
		for (int c = 0; c < AN_IDLE_CAUSES; c++) {
			rm_set(t, i, 4 + (size_t)c, rm_dur(x->gap_ns[k][c]));
			sum += x->gap_ns[k][c];
		}
		rm_set(t, i, 3, rm_dur(sum));
	}
	return 0;
}

static int samples(struct report *r, const struct an_series *x)
{
	static const struct rm_column cols[] = {
	    COL("from_ns", RM_TIMESTAMP),
	    COL("to_ns", RM_TIMESTAMP),
	    COL("value", RM_NUMBER),
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
		struct rm_table *t = rm_table_add(r, s, "points", RM_TJ_ARRAY, cols, 3, p->n);
		TRYP(t);
		for (size_t i = 0; i < p->n; i++) {
			rm_set(t, i, 0, rm_cell_int(RM_TIMESTAMP, p->from[i]));
			rm_set(t, i, 1, rm_cell_int(RM_TIMESTAMP, p->to[i]));
			rm_set(t, i, 2, rm_num(p->value[i], 1));
		}
	}
	return 0;
}

/* Live memory as a step function: a row where it changes. */
static int memory(struct report *r, const struct an_series *x)
{
	static const struct rm_column cols[] = {
	    COL("bin", RM_COUNT),
	    COL("bytes", RM_BYTES),
	};
	for (size_t k = 0; k < x->n_mem; k++) {
		const struct an_mem_series *m = &x->mem[k];
		struct rm_section *s = pic_section(r, "memory_live");
		TRYP(s);
		TRY(rm_field_add(s, "device", 0, rm_count(m->device)));
		TRY(rm_field_add(s, "start_bytes", 0, rm_cell_int(RM_BYTES, m->start_bytes)));
		TRY(rm_field_add(s, "peak_bytes", 0, rm_cell_int(RM_BYTES, m->peak_bytes)));
		size_t n = 0;
		for (int b = 0; b < x->n_bins; b++)
			n += !b || m->max[b] != m->max[b - 1];
		struct rm_table *t = rm_table_add(r, s, "steps", RM_TJ_ARRAY, cols, 2, n);
		TRYP(t);
		for (int b = 0, row = 0; b < x->n_bins; b++) {
			if (b && m->max[b] == m->max[b - 1])
				continue;
			rm_set(t, (size_t)row, 0, rm_count((uint64_t)b));
			rm_set(t, (size_t)row++, 1, rm_cell_int(RM_BYTES, m->max[b]));
		}
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
