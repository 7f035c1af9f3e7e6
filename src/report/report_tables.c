/*
 * report_tables.c - the report's evidence sections: devices and streams,
 * top kernels, launches, the idle breakdown, copies, synchronization,
 * NVTX ranges, sampled metrics with the speed of light, GPU-busy phases
 * and processes. Each column says its JSON key, its text header and width;
 * what is unknown is marked so (an occupancy the calculator could not
 * compute, a rate with no copies of that direction, a median of nothing).
 */
#include <stdio.h>

#include "report/report_int.h"
#include "gpu/metrics.h"
#include "diagnose/thresholds.h"

/* A JSON-only column, a text-only one, and one in both. */
#define JCOL(k, kd)                                                                                \
	{                                                                                          \
		.key = k, .kind = kd, .json = 1                                                    \
	}
#define TCOL(h, kd, w, l)                                                                          \
	{                                                                                          \
		.header = h, .kind = kd, .width = w, .left = l                                     \
	}
#define BCOL(k, h, kd, w, l)                                                                       \
	{                                                                                          \
		.key = k, .header = h, .kind = kd, .json = 1, .width = w, .left = l                \
	}

/* devices, streams and the span's chunks (ctx: the analysis) */
RM_FILL(dev_id, struct an_device, rm_count(x->id))
RM_FILL(dev_sms, struct an_device, rm_if(x->sm_count > 0, rm_count(x->sm_count)))
RM_FILL(dev_busy_ns, struct an_device, rm_dur(x->busy_ns))
RM_FILL(dev_busy_pct, struct an_device, rm_pct(an_pct(w->ctx, (double)x->busy_ns), 1))
RM_FILL(st_device, struct an_stream, rm_count(x->device))
RM_FILL(st_stream, struct an_stream, rm_count(x->stream))
RM_FILL(st_ops, struct an_stream, rm_count(x->ops))
RM_FILL(st_busy_ns, struct an_stream, rm_dur(x->busy_ns))
RM_FILL(ch_start, struct an_chunk, rm_cell_int(RM_TIMESTAMP, x->start))
RM_FILL(ch_end, struct an_chunk, rm_cell_int(RM_TIMESTAMP, x->end))
RM_FILL(ch_busy, struct an_chunk, rm_pct(x->busy_pct, 1))
RM_FILL(ch_sm, struct an_chunk, rm_if(x->sm >= 0, rm_pct(x->sm, 1)))
RM_FILL(ch_dram, struct an_chunk, rm_if(x->dram >= 0, rm_pct(x->dram, 1)))
RM_FILL(ch_tensor, struct an_chunk, rm_if(x->tensor >= 0, rm_pct(x->tensor, 1)))

int rm_build_devices_phases(struct report *r, const struct analysis *a)
{
	static const struct rm_entry dcols[] = {
	    {JCOL("id", RM_COUNT), dev_id},
	    {JCOL("sm_count", RM_COUNT), dev_sms},
	    {JCOL("busy_ns", RM_DURATION), dev_busy_ns},
	    {JCOL("busy_pct", RM_PERCENT), dev_busy_pct},
	};
	static const struct rm_entry scols[] = {
	    {JCOL("device", RM_COUNT), st_device},
	    {JCOL("stream", RM_COUNT), st_stream},
	    {JCOL("ops", RM_COUNT), st_ops},
	    {JCOL("busy_ns", RM_DURATION), st_busy_ns},
	};
	/* the GPM columns are named by the metric registry (gpu/metrics.h) */
	struct rm_entry pcols[] = {
	    {JCOL("start_ns", RM_TIMESTAMP), ch_start},
	    {JCOL("end_ns", RM_TIMESTAMP), ch_end},
	    {JCOL("gpu_busy_pct", RM_PERCENT), ch_busy},
	    {JCOL(gpu_metrics[GPU_M_GPM_SM].trace_name, RM_PERCENT), ch_sm},
	    {JCOL(gpu_metrics[GPU_M_GPM_DRAM].trace_name, RM_PERCENT), ch_dram},
	    {JCOL(gpu_metrics[GPU_M_GPM_TENSOR].trace_name, RM_PERCENT), ch_tensor},
	};
	struct rm_section *s = rm_section_add(r, "devices", NULL, RM_SJ_INLINE, NULL, JP_DEVICES);
	TRYP(s);
	s->text = 0;
	TRYP(rm_table_fill(r, s, "devices", RM_TJ_ARRAY, dcols, NCOLS(dcols), a->devices,
			   sizeof(*a->devices), a->n_devices, a));
	TRYP(s = rm_section_add(r, "streams", NULL, RM_SJ_INLINE, NULL, JP_STREAMS));
	s->text = 0;
	TRYP(rm_table_fill(r, s, "streams", RM_TJ_ARRAY, scols, NCOLS(scols), a->streams,
			   sizeof(*a->streams), a->n_streams, a));
	/* the span in TH_UTIL_CHUNKS chunks: a series (busy and GPM over time) */
	TRYP(s = rm_section_add(r, "phases", NULL, RM_SJ_INLINE, NULL, JP_PHASES));
	s->text = 0;
	TRYP(rm_table_fill(r, s, "phases", RM_TJ_ARRAY, pcols, NCOLS(pcols), a->chunks,
			   sizeof(*a->chunks), (size_t)a->n_chunks, a));
	return 0;
}

/* the top kernels (ctx: the analysis) */
static struct rm_cell dims(const uint32_t v[3])
{
	struct rm_cell c = rm_cell_int(RM_DIMS, 0);
	for (int k = 0; k < 3; k++)
		c.v.dims[k] = v[k];
	return c;
}

RM_FILL(kg_hash, struct an_kernel_group, rm_row_number(w))
RM_FILL(kg_base, struct an_kernel_group,
	rm_cell_styled(rm_cell_str(RM_NAME, rm_an_str(w, x->name_id)), RM_STYLE_BASE_NAME))
RM_FILL(kg_name, struct an_kernel_group, rm_cell_str(RM_NAME, rm_an_str(w, x->name_id)))
RM_FILL(kg_demangled, struct an_kernel_group, rm_demangled(w, rm_an_str(w, x->name_id)))
RM_FILL(kg_count, struct an_kernel_group, rm_count(x->count))
RM_FILL(kg_total, struct an_kernel_group, rm_dur(x->sum_ns))
RM_FILL(kg_mean, struct an_kernel_group, rm_num((double)x->sum_ns / (double)x->count, 1))
RM_FILL(kg_median, struct an_kernel_group, rm_dur(x->median_ns))
RM_FILL(kg_min, struct an_kernel_group, rm_dur(x->min_ns))
RM_FILL(kg_max, struct an_kernel_group, rm_dur(x->max_ns))
RM_FILL(kg_grid, struct an_kernel_group, dims(x->grid))
RM_FILL(kg_block, struct an_kernel_group, dims(x->block))
/* #36 item 7: the configuration with the most time */
RM_FILL(kg_config, struct an_kernel_group,
	rm_made(w, rm_text(rm_printf(w->r, "%lld/%d", x->grid_blocks, x->block_threads))))
/* trace.h: 0 registers is "not recorded" */
RM_FILL(kg_regs, struct an_kernel_group, rm_if(x->regs > 0, rm_count(x->regs)))
RM_FILL(kg_smem, struct an_kernel_group, rm_cell_int(RM_BYTES, x->smem))
RM_FILL(kg_occ, struct an_kernel_group,
	rm_if(x->occupancy >= 0, rm_cell_styled(rm_pct(100.0 * x->occupancy, 0), RM_STYLE_BARE)))
RM_FILL(kg_limiter, struct an_kernel_group,
	rm_if(x->occupancy >= 0 && x->limiter && *x->limiter, rm_text(x->limiter)))
RM_FILL(kg_waves, struct an_kernel_group,
	rm_if(x->occupancy >= 0, rm_cell_styled(rm_num(x->waves, 2), RM_STYLE_MAGNITUDE)))
RM_FILL(kg_share, struct an_kernel_group, rm_pct(x->share_pct, 1))
RM_FILL(kg_configs, struct an_kernel_group, rm_count(x->configs))
RM_FILL(kg_config_share, struct an_kernel_group, rm_pct(100.0 * x->config_share, 1))

int rm_build_kernels(struct report *r, const struct analysis *a)
{
	static const struct rm_entry cols[] = {
	    {TCOL("#", RM_TEXT, 3, 1), kg_hash},
	    {TCOL("kernel", RM_NAME, 20, 1), kg_base},
	    {JCOL("name", RM_NAME), kg_name},
	    {JCOL("demangled", RM_TEXT), kg_demangled},
	    {BCOL("count", "count", RM_COUNT, 7, 0), kg_count},
	    {BCOL("total_ns", "total", RM_DURATION, 10, 0), kg_total},
	    {{.key = "mean_ns", .unit = "ns", .kind = RM_NUMBER, .json = 1}, kg_mean},
	    {BCOL("median_ns", "median", RM_DURATION, 9, 0), kg_median},
	    {JCOL("min_ns", RM_DURATION), kg_min},
	    {JCOL("max_ns", RM_DURATION), kg_max},
	    {JCOL("grid", RM_DIMS), kg_grid},
	    {JCOL("block", RM_DIMS), kg_block},
	    {TCOL("grid/block", RM_TEXT, 11, 0), kg_config},
	    {BCOL("registers_per_thread", "regs", RM_COUNT, 4, 0), kg_regs},
	    {JCOL("smem_per_block", RM_BYTES), kg_smem},
	    {BCOL("theoretical_occupancy_pct", "occ%", RM_PERCENT, 4, 0), kg_occ},
	    {{.key = "limiter",
	      .header = RM_T("limiter"),
	      .kind = RM_TEXT,
	      .json = 1,
	      .width = 9,
	      .left = 1,
	      .trunc = 1},
	     kg_limiter},
	    {BCOL("waves", "waves", RM_NUMBER, 5, 0), kg_waves},
	    {BCOL("share_pct", "share", RM_PERCENT, 6, 0), kg_share},
	    {JCOL("launch_configs", RM_COUNT), kg_configs},
	    {JCOL("config_share_pct", RM_PERCENT), kg_config_share},
	};
	struct rm_section *s =
	    rm_section_add(r, "top_kernels", RM_T("TOP KERNELS (by total GPU time)"), RM_SJ_INLINE,
			   NULL, JP_TOP_KERNELS);
	TRYP(s);
	s->heading_cut = RM_T("TOP KERNELS (by total GPU time; #N: full names below)");
	s->text = a->n_kgroups > 0;
	size_t n = a->n_kgroups < RM_JSON_TOP_KERNELS ? a->n_kgroups : RM_JSON_TOP_KERNELS;
	struct rm_table *t = rm_table_fill(r, s, "top_kernels", RM_TJ_ARRAY, cols, NCOLS(cols),
					   a->kgroups, sizeof(*a->kgroups), n, a);
	TRYP(t);
	t->text_rows = n < RM_TEXT_TOP_ROWS ? n : RM_TEXT_TOP_ROWS;
	t->name_notes = 1;
	/* #36 item 7: the rows whose launches had other configurations than
	 * the one shown are listed below the table */
	char vrows[160] = "";
	size_t vn = 0;
	for (size_t i = 0; i < t->text_rows; i++)
		if (a->kgroups[i].configs > 1 && vn + 8 < sizeof(vrows))
			vn += (size_t)snprintf(vrows + vn, sizeof(vrows) - vn, "%s#%zu",
					       vn ? ", " : "", i + 1);
	if (vn) {
		struct rm_line *l = rm_line_add(
		    s, "  ", "    ",
		    RM_T("{rows} launched with several grid/block configurations: shown "
			 "is the one holding the most of each kernel's time"));
		TRYP(l);
		const char *rows = rm_strdup(r, vrows);
		TRYP(rows);
		rm_line_arg(l, "rows", rm_text(rows));
	}
	return 0;
}

/* the idle breakdown's rows: a cause (a template) and its time */
struct idle_row {
	const char *cause;
	int64_t ns;
};
RM_FILL(idle_cause, struct idle_row, rm_cell_styled(rm_text(x->cause), RM_STYLE_TEMPLATE))
RM_FILL(idle_ns, struct idle_row, rm_dur(x->ns))
RM_FILL(idle_pct, struct idle_row, rm_pct(an_pct(w->ctx, (double)x->ns), 1))

int rm_build_launch_idle(struct report *r, const struct analysis *a)
{
	static const struct rm_entry icols[] = {
	    {TCOL("cause", RM_TEXT, 34, 1), idle_cause},
	    {TCOL("time", RM_DURATION, 10, 0), idle_ns},
	    {TCOL("of span", RM_PERCENT, 7, 0), idle_pct},
	};
	const struct an_launch *l = &a->launch;
	struct rm_section *s =
	    rm_section_add(r, "launch", RM_T("LAUNCHES"), RM_SJ_OBJECT, "launch", JP_LAUNCH);
	TRYP(s);
	s->text = l->launches || a->n_kernels;
	int corr = l->correlated > 0;
	TRY(rm_field_add(s, "launches", 1, rm_count(l->launches)));
	TRY(rm_field_add(s, "correlated", 1, rm_count(l->correlated)));
	TRY(rm_field_add(s, "api_sum_ns", 1, rm_dur(l->api_sum_ns)));
	TRY(rm_field_add(s, "api_median_ns", 1, rm_if(l->launches > 0, rm_dur(l->api_median_ns))));
	TRY(rm_field_add(s, "delay_mean_ns", 1, rm_if(corr, rm_dur(l->delay_mean_ns))));
	TRY(rm_field_add(s, "delay_median_ns", 1, rm_if(corr, rm_dur(l->delay_median_ns))));
	TRY(rm_field_add(s, "queue_depth_mean", 1, rm_if(corr, rm_num(l->queue_depth_mean, 1))));
	TRY(rm_field_add(s, "queue_empty_pct", 1,
			 rm_if(corr, rm_pct(100.0 * l->queue_empty_share, 0))));
	TRY(rm_field_add(s, "short_kernels", 1, rm_count(l->short_kernels)));
	TRY(rm_field_add(s, "short_kernel_sum_ns", 1, rm_dur(l->short_kernel_sum_ns)));
	TRYP(rm_line_add(s, "  ", NULL,
			 RM_T("{launches} launch calls, {api_sum_ns} inside them (median "
			      "{api_median_ns}); launch-to-start delay median {delay_median_ns}")));
	TRYP(rm_line_add(s, "  ", NULL,
			 RM_T("queue depth at launch {queue_depth_mean} (empty {queue_empty_pct} "
			      "of launches); {short_kernels} short kernels (< {th.short_kernel}) = "
			      "{short_kernel_sum_ns}")));

	const struct an_idle *d = &a->idle;
	TRYP(s = rm_section_add(r, "idle",
				RM_T("IDLE BREAKDOWN ({gaps} gaps, longest {longest_gap_ns}, "
				     "{gaps_ge_500ms} >= {th.gpu_gap})"),
				RM_SJ_OBJECT, "idle", JP_IDLE));
	s->text = d->gaps > 0;
	TRY(rm_field_add(s, "total_ns", 1, rm_dur(d->total_ns)));
	TRY(rm_field_add(s, "host_ns", 1, rm_dur(d->host_ns)));
	TRY(rm_field_add(s, "dispatch_ns", 1, rm_dur(d->dispatch_ns)));
	TRY(rm_field_add(s, "launch_ns", 1, rm_dur(d->launch_ns)));
	TRY(rm_field_add(s, "sync_ns", 1, rm_dur(d->sync_ns)));
	TRY(rm_field_add(s, "copy_ns", 1, rm_dur(d->copy_ns)));
	TRY(rm_field_add(s, "cuda_api_ns", 1, rm_dur(d->api_ns)));
	TRY(rm_field_add(s, "jit_ns", 1, rm_dur(d->jit_ns)));
	TRY(rm_field_add(s, "gaps", 1, rm_count(d->gaps)));
	TRY(rm_field_add(s, "gaps_ge_500ms", 1, rm_count(d->gaps_ge_500ms)));
	TRY(rm_field_add(s, "longest_gap_ns", 1, rm_dur(d->longest_gap_ns)));
	TRY(rm_field_add(s, "low_util_chunks", 1, rm_count((uint64_t)a->low_chunks)));
	TRY(rm_field_add(s, "chunks", 1, rm_count((uint64_t)a->n_chunks)));
	static const char *const causes[7] = {
	    RM_T("host work outside CUDA (>= {th.host_work})"),
	    RM_T("host dispatch between CUDA calls"),
	    RM_T("launch latency / queue"),
	    RM_T("waiting on a synchronization"),
	    RM_T("waiting on a copy call"),
	    RM_T("inside other CUDA calls (alloc...)"),
	    RM_T("JIT compilation (host, then module loads)"),
	};
	/* a ROCm program's calls are HIP's (issue 40) */
	static const char *const hip_causes[7] = {
	    RM_T("host work outside HIP (>= {th.host_work})"),
	    RM_T("host dispatch between HIP calls"),
	    RM_T("launch latency / queue"),
	    RM_T("waiting on a synchronization"),
	    RM_T("waiting on a copy call"),
	    RM_T("inside other HIP calls (alloc...)"),
	    RM_T("JIT compilation (host, then module loads)"),
	};
	const char *const *c = a->prog.rocm ? hip_causes : causes;
	const struct idle_row rows[7] = {
	    {c[0], d->host_ns}, {c[1], d->dispatch_ns}, {c[2], d->launch_ns}, {c[3], d->sync_ns},
	    {c[4], d->copy_ns}, {c[5], d->api_ns},	{c[6], d->jit_ns},
	};
	/* the JIT row only when there was one */
	TRYP(rm_table_fill(r, s, NULL, RM_TJ_ARRAY, icols, NCOLS(icols), rows, sizeof(*rows),
			   d->jit_ns > 0 ? 7 : 6, a));
	if (a->n_chunks)
		TRYP(rm_line_add(
		    s, "  ", NULL,
		    a->prog.rocm ? RM_T("{low_util_chunks} of {chunks} time chunks below "
					"{th.util_chunk_low} GPU busy")
				 : RM_T("{low_util_chunks} of {chunks} time chunks below "
					"{th.util_chunk_low} GPU busy (Nsight gpu_time_util)")));
	return 0;
}

/* copies by kind and direction */
RM_FILL(cg_kind, struct an_copy_group, rm_text(copy_kind_name(x->kind)))
RM_FILL(cg_src, struct an_copy_group, rm_text(mem_kind_name(x->src_kind)))
RM_FILL(cg_dst, struct an_copy_group, rm_text(mem_kind_name(x->dst_kind)))
RM_FILL(cg_count, struct an_copy_group, rm_count(x->count))
RM_FILL(cg_bytes, struct an_copy_group, rm_cell_int(RM_BYTES, (int64_t)x->bytes))
RM_FILL(cg_sum, struct an_copy_group, rm_dur(x->sum_ns))
RM_FILL(cg_gbps, struct an_copy_group, rm_if(x->sum_ns > 0, rm_cell_num(RM_RATE, x->gbps, 2)))

int rm_build_copies_syncs(struct report *r, const struct analysis *a)
{
	static const struct rm_entry cols[] = {
	    {BCOL("kind", "kind", RM_TEXT, 6, 1), cg_kind},
	    {BCOL("src", "src", RM_TEXT, 9, 1), cg_src},
	    {BCOL("dst", "dst", RM_TEXT, 9, 1), cg_dst},
	    {BCOL("count", "count", RM_COUNT, 9, 0), cg_count},
	    {BCOL("bytes", "bytes", RM_BYTES, 14, 0), cg_bytes},
	    {BCOL("sum_ns", "time", RM_DURATION, 10, 0), cg_sum},
	    {BCOL("gbps", "GB/s", RM_RATE, 8, 0), cg_gbps},
	};
	const struct an_copy_stats *c = &a->copy;
	struct rm_section *s =
	    rm_section_add(r, "copies", RM_T("COPIES (link {link_gbps} GB/s theoretical)"),
			   RM_SJ_OBJECT, "copies", JP_COPIES);
	TRYP(s);
	s->text = c->count > 0;
	TRY(rm_field_add(s, "count", 1, rm_count(c->count)));
	TRY(rm_field_add(s, "bytes", 1, rm_cell_int(RM_BYTES, (int64_t)c->bytes)));
	TRY(rm_field_add(s, "pageable_bytes", 1,
			 rm_cell_int(RM_BYTES, (int64_t)c->pageable_bytes)));
	TRY(rm_field_add(s, "sum_ns", 1, rm_dur(c->sum_ns)));
	TRY(rm_field_add(s, "union_ns", 1, rm_dur(c->union_ns)));
	TRY(rm_field_add(s, "not_overlapped_ns", 1, rm_dur(c->not_overlapped_ns)));
	TRY(rm_field_add(s, "overlap_pct", 1, rm_if(c->union_ns > 0, rm_pct(c->overlap_pct, 0))));
	TRY(rm_field_add(s, "htod_gbps", 1,
			 rm_if(c->htod_ns > 0, rm_cell_num(RM_RATE, c->htod_gbps, 2))));
	TRY(rm_field_add(s, "dtoh_gbps", 1,
			 rm_if(c->dtoh_ns > 0, rm_cell_num(RM_RATE, c->dtoh_gbps, 2))));
	TRY(rm_field_add(s, "link_gbps", 1, rm_cell_num(RM_RATE, c->link_gbps, 0)));
	TRYP(rm_table_fill(r, s, "by_kind", RM_TJ_ARRAY, cols, NCOLS(cols), a->cgroups,
			   sizeof(*a->cgroups), a->n_cgroups, a));
	TRY(rm_field_add(
	    s, "pageable_pct", 0,
	    rm_if(c->bytes > 0,
		  rm_pct(c->bytes ? 100.0 * (double)c->pageable_bytes / (double)c->bytes : 0, 0))));
	TRYP(rm_line_add(s, "  ", NULL,
			 RM_T("pageable {pageable_pct} of bytes; {overlap_pct} of copy time "
			      "overlaps kernels; {not_overlapped_ns} with no kernel running")));

	TRYP(s = rm_section_add(r, "syncs", RM_T("SYNCHRONIZATION"), RM_SJ_OBJECT, "syncs",
				JP_SYNCS));
	s->text = a->sync.count > 0;
	TRY(rm_field_add(s, "count", 1, rm_count(a->sync.count)));
	TRY(rm_field_add(s, "sum_ns", 1, rm_dur(a->sync.sum_ns)));
	TRY(rm_field_add(s, "gpu_idle_after_ns", 1, rm_dur(a->sync.idle_after_ns)));
	TRY(rm_field_add(s, "gpu_idle_after_pct", 0,
			 rm_pct(an_pct(a, (double)a->sync.idle_after_ns), 1)));
	TRYP(rm_line_add(s, "  ", NULL,
			 RM_T("{count} blocking calls, {sum_ns} inside them, GPU idle around them "
			      "{gpu_idle_after_ns} ({gpu_idle_after_pct})")));
	return 0;
}

/* The speed-of-light line under the sampled metrics, and its JSON object. */
static int speed_of_light(struct report *r, struct rm_section *samples, const struct analysis *a)
{
	const struct an_sol *o = &a->sol;
	if (o->valid) {
		TRY(rm_field_add(samples, "sol_dram", 0, rm_pct(o->dram, 0)));
		TRY(rm_field_add(samples, "sol_pipe", 0, rm_pct(o->pipe, 0)));
		TRY(rm_field_add(samples, "sol_memory", 0, rm_pct(100 * o->mem, 0)));
		TRY(rm_field_add(samples, "sol_compute", 0, rm_pct(100 * o->compute, 0)));
		TRY(rm_field_add(samples, "sol_latency", 0, rm_pct(100 * o->latency, 0)));
		TRY(rm_field_add(
		    samples, "sol_shift_ms", 0,
		    rm_cell_styled(rm_num((double)o->lag_ns / 1e6, 0), RM_STYLE_SIGNED)));
		TRY(rm_field_add(samples, "sol_corr", 0, rm_num(o->lag_corr, 2)));
		TRYP(rm_line_add(
		    samples, " ", "    ",
		    RM_T("speed of light while busy: DRAM {sol_dram}, fp32/tensor "
			 "pipes {sol_pipe} -> memory-bound {sol_memory}, compute-bound "
			 "{sol_compute}, latency-bound {sol_latency} of the sampled busy "
			 "time (sample clock shifted {sol_shift_ms} ms, r={sol_corr})")));
	}
	struct rm_section *s = rm_section_add(r, "speed_of_light", NULL, RM_SJ_OBJECT,
					      "speed_of_light", JP_SPEED_OF_LIGHT);
	TRYP(s);
	s->text = 0;
	s->valid = (uint8_t)o->valid;
	TRY(rm_field_add(s, "dram_pct", 1, rm_pct(o->dram, 1)));
	TRY(rm_field_add(s, "pipe_pct", 1, rm_pct(o->pipe, 1)));
	TRY(rm_field_add(s, "memory_bound_share", 1, rm_num(o->mem, 2)));
	TRY(rm_field_add(s, "compute_bound_share", 1, rm_num(o->compute, 2)));
	TRY(rm_field_add(s, "latency_bound_share", 1, rm_num(o->latency, 2)));
	TRY(rm_field_add(s, "sampled_busy_ns", 1, rm_dur(o->sampled_ns)));
	TRY(rm_field_add(s, "sample_clock_shift_ns", 1, rm_dur(o->lag_ns)));
	TRY(rm_field_add(s, "sample_clock_corr", 1, rm_num(o->lag_corr, 2)));
	return 0;
}

/* NVTX ranges (ctx: the analysis) and sampled metrics */
RM_FILL(rg_name, struct an_range_group, rm_cell_str(RM_NAME, rm_an_str(w, x->name_id)))
RM_FILL(rg_kind, struct an_range_group, rm_text(range_kind_name(x->kind)))
RM_FILL(rg_count, struct an_range_group, rm_count(x->count))
RM_FILL(rg_cpu, struct an_range_group, rm_dur(x->cpu_sum_ns))
RM_FILL(rg_gpu, struct an_range_group, rm_dur(x->gpu_sum_ns))
RM_FILL(rg_ops, struct an_range_group, rm_count(x->gpu_ops))
RM_FILL(mt_name, struct an_metric, rm_text(x->name))
RM_FILL(mt_n, struct an_metric, rm_count(x->n))
RM_FILL(mt_mean, struct an_metric, rm_num(x->mean, 1))
RM_FILL(mt_n_busy, struct an_metric, rm_count(x->n_busy))
RM_FILL(mt_mean_busy, struct an_metric, rm_if(x->n_busy > 0, rm_num(x->mean_busy, 1)))

int rm_build_nvtx_samples(struct report *r, const struct analysis *a)
{
	static const struct rm_entry ncols[] = {
	    {BCOL("name", "range", RM_NAME, 44, 1), rg_name},
	    {JCOL("kind", RM_TEXT), rg_kind},
	    {BCOL("count", "count", RM_COUNT, 8, 0), rg_count},
	    {BCOL("cpu_ns", "cpu time", RM_DURATION, 11, 0), rg_cpu},
	    {BCOL("gpu_ns", "gpu time", RM_DURATION, 11, 0), rg_gpu},
	    {BCOL("gpu_ops", "gpu ops", RM_COUNT, 9, 0), rg_ops},
	};
	static const struct rm_entry mcols[] = {
	    {BCOL("metric", "metric", RM_TEXT, 20, 1), mt_name},
	    {BCOL("n", "samples", RM_COUNT, 8, 0), mt_n},
	    {BCOL("mean", "mean", RM_NUMBER, 10, 0), mt_mean},
	    {JCOL("n_busy", RM_COUNT), mt_n_busy},
	    {BCOL("mean_busy", "while busy", RM_NUMBER, 12, 0), mt_mean_busy},
	};
	struct rm_section *s = rm_section_add(
	    r, "nvtx", RM_T("NVTX / ANNOTATIONS (GPU time of the work their launches caused)"),
	    RM_SJ_INLINE, NULL, JP_NVTX);
	TRYP(s);
	s->text = a->n_ranges > 0;
	struct rm_table *t = rm_table_fill(r, s, "nvtx", RM_TJ_ARRAY, ncols, NCOLS(ncols),
					   a->ranges, sizeof(*a->ranges), a->n_ranges, a);
	TRYP(t);
	t->text_rows = a->n_ranges < RM_TEXT_TOP_ROWS ? a->n_ranges : RM_TEXT_TOP_ROWS;

	/* GPM's rows, then record --metrics pm's (PM sampling) beside them */
	struct an_metric rows[AM_COUNT + PM_COUNT];
	size_t n = 0, n_pm = 0;
	for (int m = 0; m < AM_COUNT; m++)
		if (a->metrics[m].valid)
			rows[n++] = a->metrics[m];
	for (int m = 0; m < PM_COUNT; m++)
		if (a->pm[m].valid)
			rows[n + n_pm++] = a->pm[m];
	TRYP(s = rm_section_add(r, "samples",
				n_pm ? RM_T("SAMPLED METRICS (NVML / GPM / PM sampling)")
				     : RM_T("SAMPLED METRICS (NVML / GPM)"),
				RM_SJ_INLINE, NULL, JP_SAMPLES));
	s->text = n + n_pm > 0;
	TRYP(rm_table_fill(r, s, "samples", RM_TJ_KEYED, mcols, NCOLS(mcols), rows, sizeof(*rows),
			   n + n_pm, a));
	return speed_of_light(r, s, a);
}

/* processes (ctx: the analysis) */
RM_FILL(pr_pid, struct an_process, rm_count(x->pid))
/* 0: the parent is not in the processes table */
RM_FILL(pr_parent, struct an_process, rm_if(x->parent_pid != 0, rm_count(x->parent_pid)))
RM_FILL(pr_cmdline, struct an_process, rm_text(rm_an_str(w, x->cmdline_id)))
RM_FILL(pr_status, struct an_process, rm_text(rm_an_str(w, x->status_id)))
RM_FILL(pr_kernels, struct an_process, rm_count(x->kernels))
RM_FILL(pr_copies, struct an_process, rm_count(x->copies))
RM_FILL(pr_apis, struct an_process, rm_count(x->apis))
RM_FILL(pr_kernel_ns, struct an_process, rm_dur(x->kernel_sum_ns))
RM_FILL(pr_dropped, struct an_process, rm_count(x->dropped_records))
RM_FILL(pr_overhead, struct an_process, rm_dur(x->overhead_ns))
/* a status is a sentence, printed whole among the warnings (warnings.c);
 * the table's last column points there, so a line stays within the
 * report's 100 columns */
RM_FILL(pr_see, struct an_process,
	rm_cell_styled(rm_text(*rm_an_str(w, x->status_id) ? RM_T("see WARNING above")
							   : RM_T("traced")),
		       RM_STYLE_TEMPLATE))

int rm_build_processes(struct report *r, const struct analysis *a)
{
	static const struct rm_entry cols[] = {
	    {BCOL("pid", "pid", RM_COUNT, 8, 1), pr_pid},
	    {BCOL("parent_pid", "parent", RM_COUNT, 8, 1), pr_parent},
	    {JCOL("cmdline", RM_TEXT), pr_cmdline},
	    {JCOL("status", RM_TEXT), pr_status},
	    {BCOL("kernels", "kernels", RM_COUNT, 10, 0), pr_kernels},
	    {BCOL("copies", "copies", RM_COUNT, 10, 0), pr_copies},
	    {BCOL("api_calls", "api calls", RM_COUNT, 10, 0), pr_apis},
	    {BCOL("kernel_sum_ns", "kernel time", RM_DURATION, 11, 0), pr_kernel_ns},
	    {BCOL("dropped_records", "dropped", RM_COUNT, 9, 0), pr_dropped},
	    {BCOL("overhead_ns", "overhead", RM_DURATION, 10, 0), pr_overhead},
	    {{.header = RM_T("status"), .kind = RM_TEXT, .left = 1, .gap = 2}, pr_see},
	};
	struct rm_section *s =
	    rm_section_add(r, "processes", RM_T("PROCESSES"), RM_SJ_INLINE, NULL, JP_PROCESSES);
	TRYP(s);
	s->text = a->n_processes > 0;
	TRYP(rm_table_fill(r, s, "processes", RM_TJ_ARRAY, cols, NCOLS(cols), a->processes,
			   sizeof(*a->processes), a->n_processes, a));
	return 0;
}
