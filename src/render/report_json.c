/*
 * report_json.c - `gpuscope report --format json`: schema gpuscope.report.v1
 * (docs/report-json.md). Times are integer nanoseconds (`*_ns`), shares are
 * percentages of span_ns (`*_pct`); keys are only ever added within v1.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/metrics.h"
#include "render/findings_render.h"
#include "render/report_render.h"
#include "trace/trace.h"
#include "util/demangle.h"

static void summary(struct json_out *j, const struct analysis *a)
{
	json_key(j, "summary");
	json_begin_object(j);
	json_kv_double(j, "gpu_busy_pct", an_pct(a, (double)a->busy_ns));
	json_kv_double(j, "gpu_idle_pct", an_pct(a, (double)a->idle.total_ns));
	json_kv_int(j, "kernels", (int64_t)a->n_kernels);
	json_kv_int(j, "copies", (int64_t)a->n_copies);
	json_kv_int(j, "memsets", (int64_t)a->n_memsets);
	json_kv_int(j, "api_calls", (int64_t)a->n_apis);
	json_kv_int(j, "devices", (int64_t)a->n_devices);
	json_kv_int(j, "streams", (int64_t)a->n_streams);
	json_kv_int(j, "gpu_busy_ns", a->busy_ns);
	json_kv_int(j, "kernel_sum_ns", a->kernel_sum_ns);
	json_kv_int(j, "dropped_records", (int64_t)a->dropped_records);
	json_kv_int(j, "overhead_ns", a->overhead_ns);
	json_end_object(j);

	json_key(j, "time_by_category");
	json_begin_object(j);
	json_kv_int(j, "kernels_ns", a->kernel_ns);
	json_kv_int(j, "copies_ns", a->copy_ns);
	json_key(j, "copies_by_kind_ns");
	json_begin_object(j);
	for (int k = 0; k < 6; k++)
		if (a->copy_kind_ns[k])
			json_kv_int(j, copy_kind_name(k), a->copy_kind_ns[k]);
	json_end_object(j);
	json_kv_int(j, "memsets_ns", a->memset_ns);
	json_kv_int(j, "idle_ns", a->idle.total_ns);
	json_end_object(j);
}

static void devices_streams(struct json_out *j, const struct analysis *a)
{
	json_key(j, "devices");
	json_begin_array(j);
	for (size_t i = 0; i < a->n_devices; i++) {
		json_begin_object(j);
		json_kv_int(j, "id", a->devices[i].id);
		json_kv_int(j, "sm_count", a->devices[i].sm_count);
		json_kv_int(j, "busy_ns", a->devices[i].busy_ns);
		json_kv_double(j, "busy_pct", an_pct(a, (double)a->devices[i].busy_ns));
		json_end_object(j);
	}
	json_end_array(j);
	json_key(j, "streams");
	json_begin_array(j);
	for (size_t i = 0; i < a->n_streams; i++) {
		json_begin_object(j);
		json_kv_int(j, "device", a->streams[i].device);
		json_kv_int(j, "stream", a->streams[i].stream);
		json_kv_int(j, "ops", (int64_t)a->streams[i].ops);
		json_kv_int(j, "busy_ns", a->streams[i].busy_ns);
		json_end_object(j);
	}
	json_end_array(j);
}

static void idle_launch(struct json_out *j, const struct analysis *a)
{
	const struct an_idle *d = &a->idle;
	json_key(j, "idle");
	json_begin_object(j);
	json_kv_int(j, "total_ns", d->total_ns);
	json_kv_int(j, "host_ns", d->host_ns);
	json_kv_int(j, "dispatch_ns", d->dispatch_ns);
	json_kv_int(j, "launch_ns", d->launch_ns);
	json_kv_int(j, "sync_ns", d->sync_ns);
	json_kv_int(j, "copy_ns", d->copy_ns);
	json_kv_int(j, "cuda_api_ns", d->api_ns);
	json_kv_int(j, "gaps", (int64_t)d->gaps);
	json_kv_int(j, "gaps_ge_500ms", (int64_t)d->gaps_ge_500ms);
	json_kv_int(j, "longest_gap_ns", d->longest_gap_ns);
	json_kv_int(j, "low_util_chunks", a->low_chunks);
	json_kv_int(j, "chunks", a->n_chunks);
	json_end_object(j);

	const struct an_launch *l = &a->launch;
	json_key(j, "launch");
	json_begin_object(j);
	json_kv_int(j, "launches", (int64_t)l->launches);
	json_kv_int(j, "correlated", (int64_t)l->correlated);
	json_kv_int(j, "api_sum_ns", l->api_sum_ns);
	json_kv_int(j, "api_median_ns", l->api_median_ns);
	json_kv_int(j, "delay_mean_ns", l->delay_mean_ns);
	json_kv_int(j, "delay_median_ns", l->delay_median_ns);
	json_kv_double(j, "queue_depth_mean", l->queue_depth_mean);
	json_kv_double(j, "queue_empty_pct", 100.0 * l->queue_empty_share);
	json_kv_int(j, "short_kernels", (int64_t)l->short_kernels);
	json_kv_int(j, "short_kernel_sum_ns", l->short_kernel_sum_ns);
	json_end_object(j);
}

static void kernels(struct json_out *j, const struct analysis *a)
{
	json_key(j, "top_kernels");
	json_begin_array(j);
	for (size_t i = 0; i < a->n_kgroups && i < REPORT_JSON_TOP_KERNELS; i++) {
		const struct an_kernel_group *g = &a->kgroups[i];
		json_begin_object(j);
		const char *name = trace_str(a->t, g->name_id);
		char dm[4096];
		json_kv_string(j, "name", name);
		json_kv_string(j, "demangled", gs_demangle(name, dm, sizeof(dm)));
		json_kv_int(j, "count", (int64_t)g->count);
		json_kv_int(j, "total_ns", g->sum_ns);
		json_kv_double(j, "mean_ns", (double)g->sum_ns / (double)g->count);
		json_kv_int(j, "median_ns", g->median_ns);
		json_kv_int(j, "min_ns", g->min_ns);
		json_kv_int(j, "max_ns", g->max_ns);
		json_key(j, "grid");
		json_begin_array(j);
		for (int k = 0; k < 3; k++)
			json_int(j, g->grid[k]);
		json_end_array(j);
		json_key(j, "block");
		json_begin_array(j);
		for (int k = 0; k < 3; k++)
			json_int(j, g->block[k]);
		json_end_array(j);
		json_kv_int(j, "registers_per_thread", g->regs);
		json_kv_int(j, "smem_per_block", g->smem);
		json_key(j, "theoretical_occupancy_pct");
		if (g->occupancy >= 0)
			json_double(j, 100.0 * g->occupancy);
		else
			json_null(j);
		json_kv_string(j, "limiter", g->limiter ? g->limiter : "");
		json_kv_double(j, "waves", g->waves);
		json_kv_double(j, "share_pct", g->share_pct);
		json_end_object(j);
	}
	json_end_array(j);
}

static void copies_syncs(struct json_out *j, const struct analysis *a)
{
	const struct an_copy_stats *c = &a->copy;
	json_key(j, "copies");
	json_begin_object(j);
	json_kv_int(j, "count", (int64_t)c->count);
	json_kv_int(j, "bytes", (int64_t)c->bytes);
	json_kv_int(j, "pageable_bytes", (int64_t)c->pageable_bytes);
	json_kv_int(j, "sum_ns", c->sum_ns);
	json_kv_int(j, "union_ns", c->union_ns);
	json_kv_int(j, "not_overlapped_ns", c->not_overlapped_ns);
	json_kv_double(j, "overlap_pct", c->overlap_pct);
	json_kv_double(j, "htod_gbps", c->htod_gbps);
	json_kv_double(j, "dtoh_gbps", c->dtoh_gbps);
	json_kv_double(j, "link_gbps", c->link_gbps);
	json_key(j, "by_kind");
	json_begin_array(j);
	for (size_t i = 0; i < a->n_cgroups; i++) {
		const struct an_copy_group *g = &a->cgroups[i];
		json_begin_object(j);
		json_kv_string(j, "kind", copy_kind_name(g->kind));
		json_kv_string(j, "src", mem_kind_name(g->src_kind));
		json_kv_string(j, "dst", mem_kind_name(g->dst_kind));
		json_kv_int(j, "count", (int64_t)g->count);
		json_kv_int(j, "bytes", (int64_t)g->bytes);
		json_kv_int(j, "sum_ns", g->sum_ns);
		json_kv_double(j, "gbps", g->gbps);
		json_end_object(j);
	}
	json_end_array(j);
	json_end_object(j);

	json_key(j, "syncs");
	json_begin_object(j);
	json_kv_int(j, "count", (int64_t)a->sync.count);
	json_kv_int(j, "sum_ns", a->sync.sum_ns);
	json_kv_int(j, "gpu_idle_after_ns", a->sync.idle_after_ns);
	json_end_object(j);
}

static void nvtx_samples_procs(struct json_out *j, const struct analysis *a)
{
	json_key(j, "nvtx");
	json_begin_array(j);
	for (size_t i = 0; i < a->n_ranges; i++) {
		const struct an_range_group *r = &a->ranges[i];
		json_begin_object(j);
		json_kv_string(j, "name", trace_str(a->t, r->name_id));
		json_kv_string(j, "kind", range_kind_name(r->kind));
		json_kv_int(j, "count", (int64_t)r->count);
		json_kv_int(j, "cpu_ns", r->cpu_sum_ns);
		json_kv_int(j, "gpu_ns", r->gpu_sum_ns);
		json_kv_int(j, "gpu_ops", (int64_t)r->gpu_ops);
		json_end_object(j);
	}
	json_end_array(j);

	json_key(j, "samples");
	json_begin_object(j);
	for (int m = 0; m < AM_COUNT; m++) {
		const struct an_metric *x = &a->metrics[m];
		if (!x->valid)
			continue;
		json_key(j, x->name);
		json_begin_object(j);
		json_kv_int(j, "n", (int64_t)x->n);
		json_kv_double(j, "mean", x->mean);
		json_kv_int(j, "n_busy", (int64_t)x->n_busy);
		json_key(j, "mean_busy");
		if (x->n_busy)
			json_double(j, x->mean_busy);
		else
			json_null(j);
		json_end_object(j);
	}
	json_end_object(j);
	json_key(j, "speed_of_light");
	if (a->sol.valid) {
		json_begin_object(j);
		json_kv_double(j, "dram_pct", a->sol.dram);
		json_kv_double(j, "pipe_pct", a->sol.pipe);
		json_kv_double(j, "memory_bound_share", a->sol.mem);
		json_kv_double(j, "compute_bound_share", a->sol.compute);
		json_kv_double(j, "latency_bound_share", a->sol.latency);
		json_kv_int(j, "sampled_busy_ns", a->sol.sampled_ns);
		json_kv_int(j, "sample_clock_shift_ns", a->sol.lag_ns);
		json_kv_double(j, "sample_clock_corr", a->sol.lag_corr);
		json_end_object(j);
	} else {
		json_null(j);
	}
	json_key(j, "phases");
	json_begin_array(j);
	for (int c = 0; c < a->n_chunks; c++) {
		const struct an_chunk *k = &a->chunks[c];
		json_begin_object(j);
		json_kv_int(j, "start_ns", k->start);
		json_kv_int(j, "end_ns", k->end);
		json_kv_double(j, "gpu_busy_pct", k->busy_pct);
		const char *names[3] = {gpu_metrics[GPU_M_GPM_SM].trace_name,
					gpu_metrics[GPU_M_GPM_DRAM].trace_name,
					gpu_metrics[GPU_M_GPM_TENSOR].trace_name};
		double v[3] = {k->sm, k->dram, k->tensor};
		for (int i = 0; i < 3; i++) {
			json_key(j, names[i]);
			if (v[i] >= 0)
				json_double(j, v[i]);
			else
				json_null(j);
		}
		json_end_object(j);
	}
	json_end_array(j);

	json_key(j, "processes");
	json_begin_array(j);
	for (size_t i = 0; i < a->n_processes; i++) {
		const struct an_process *p = &a->processes[i];
		json_begin_object(j);
		json_kv_int(j, "pid", p->pid);
		json_kv_int(j, "parent_pid", p->parent_pid);
		json_kv_string(j, "cmdline", trace_str(a->t, p->cmdline_id));
		json_kv_string(j, "status", trace_str(a->t, p->status_id));
		json_kv_int(j, "kernels", (int64_t)p->kernels);
		json_kv_int(j, "copies", (int64_t)p->copies);
		json_kv_int(j, "api_calls", (int64_t)p->apis);
		json_kv_int(j, "kernel_sum_ns", p->kernel_sum_ns);
		json_kv_int(j, "dropped_records", (int64_t)p->dropped_records);
		json_kv_int(j, "overhead_ns", p->overhead_ns);
		json_end_object(j);
	}
	json_end_array(j);
}

/* a number, or null when NAN (not collected) */
static void kv_num(struct json_out *j, const char *k, double v)
{
	json_key(j, k);
	if (isnan(v))
		json_null(j);
	else
		json_double(j, v);
}

/* Per-kernel hardware counters (docs/report-json.md: kernel_counters). */
static void kernel_counters(struct json_out *j, const struct analysis *a)
{
	json_key(j, "kernel_counters");
	json_begin_array(j);
	for (size_t i = 0; i < a->kc.n && i < REPORT_JSON_TOP_KERNELS; i++) {
		const struct kc_group *g = &a->kc.g[i];
		const char *name = trace_str(a->t, g->name_id);
		char dm[4096];
		json_begin_object(j);
		json_kv_string(j, "name", name);
		json_kv_string(j, "demangled", gs_demangle(name, dm, sizeof(dm)));
		json_kv_int(j, "launches", (int64_t)g->launches);
		json_kv_int(j, "profiled_launches", (int64_t)g->profiled);
		json_kv_int(j, "total_ns", g->sum_ns);
		json_kv_string(j, "bound", kc_bound_name(g->bound));
		json_key(j, "unit");
		if (g->unit)
			json_string(j, g->unit);
		else
			json_null(j);
		json_key(j, "metrics");
		json_begin_object(j);
		for (int m = 0; m < KM_COUNT; m++)
			kv_num(j, kc_metric_name(m), g->has[m] ? g->v[m] : NAN);
		json_end_object(j);
		kv_num(j, "sectors_per_request", g->sectors_per_request);
		kv_num(j, "sectors_per_thread_access", g->sectors_per_thread);
		kv_num(j, "shared_wavefronts_per_instruction", g->shared_ways);
		kv_num(j, "bank_conflict_share", g->bank_conflict_share);
		json_key(j, "roofline");
		json_begin_object(j);
		kv_num(j, "flop", g->flop);
		kv_num(j, "tensor_flop", g->tensor_flop);
		kv_num(j, "dram_bytes", g->dram_bytes);
		kv_num(j, "intensity_flop_per_byte", g->intensity);
		kv_num(j, "flop_per_s", g->flop_per_s);
		kv_num(j, "dram_bytes_per_s", g->dram_bytes_per_s);
		kv_num(j, "roof_flop_per_s", g->roof_flop_per_s);
		kv_num(j, "roof_dram_bytes_per_s", g->roof_bytes_per_s);
		json_end_object(j);
		json_key(j, "top_stalls");
		json_begin_array(j);
		for (int s = 0; s < KC_TOP_STALLS && g->stall[s] >= 0; s++) {
			json_begin_object(j);
			json_kv_string(j, "metric", kc_metric_name(g->stall[s]));
			kv_num(j, "share_pct", 100.0 * g->stall_share[s]);
			json_end_object(j);
		}
		json_end_array(j);
		json_end_object(j);
	}
	json_end_array(j);
}

void report_json(FILE *f, const struct analysis *a, const char *path)
{
	struct json_out j;
	json_out_init(&j, f, 1);
	json_begin_object(&j);
	json_kv_string(&j, "schema", "gpuscope.report.v1");
	json_kv_string(&j, "source", a->source);
	json_kv_string(&j, "file", path ? path : "");
	json_key(&j, "range");
	if (a->range[0])
		json_string(&j, a->range);
	else
		json_null(&j);
	json_key(&j, "device");
	const char *dev = trace_get_meta(a->t, "report_device");
	if (dev)
		json_int(&j, strtoll(dev, NULL, 10));
	else
		json_null(&j);
	json_kv_int(&j, "span_ns", a->span_ns);
	const char *rp = trace_get_meta(a->t, "kernel_replay_removed_ns");
	if (rp)
		json_kv_int(&j, "kernel_replay_removed_ns", strtoll(rp, NULL, 10));
	json_kv_int(&j, "warmup_ns", a->warmup_ns);
	json_kv_int(&j, "cooldown_ns", a->cooldown_ns);
	json_kv_int(&j, "startup_ns", a->startup_ns);
	json_kv_int(&j, "teardown_ns", a->teardown_ns);
	json_kv_int(&j, "start_ns", a->start_ns);
	json_kv_int(&j, "end_ns", a->end_ns);
	summary(&j, a);
	json_key(&j, "primary");
	if (a->primary)
		json_string(&j, a->primary->id);
	else
		json_null(&j);
	json_key(&j, "findings");
	finding_list_json(&j, &a->findings);
	json_key(&j, "warnings");
	json_begin_array(&j);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (m) {
		report_warnings(m, a, "");
		fclose(m);
		for (char *line = buf, *nl; line && *line; line = nl + 1) {
			nl = strchr(line, '\n');
			if (!nl)
				break;
			*nl = 0;
			json_string(&j, line);
		}
		free(buf);
	}
	json_end_array(&j);
	devices_streams(&j, a);
	idle_launch(&j, a);
	kernels(&j, a);
	copies_syncs(&j, a);
	nvtx_samples_procs(&j, a);
	kernel_counters(&j, a);
	json_end_object(&j);
	fputc('\n', f);
}
