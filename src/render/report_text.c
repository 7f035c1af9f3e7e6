/*
 * report_text.c - `gpuscope report --format text`: the verdict (primary
 * finding in one sentence, its numbers and first fix), then the summary,
 * all findings, and the evidence tables. Fits a 100-column terminal: long
 * kernel names are cut in the middle so both ends stay readable.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/report_render.h"
#include "trace/trace.h"
#include "util/demangle.h"

const char *report_fmt_ns(char *buf, size_t n, double ns)
{
	double a = ns < 0 ? -ns : ns;
	if (a >= 1e9)
		snprintf(buf, n, "%.3f s", ns / 1e9);
	else if (a >= 1e6)
		snprintf(buf, n, "%.2f ms", ns / 1e6);
	else if (a >= 1e3)
		snprintf(buf, n, "%.1f us", ns / 1e3);
	else
		snprintf(buf, n, "%.0f ns", ns);
	return buf;
}

/* Fits s into w columns, eliding the middle. */
static const char *fit(char *buf, size_t n, const char *s, size_t w)
{
	size_t len = strlen(s);
	if (w >= n)
		w = n - 1;
	if (len <= w) {
		snprintf(buf, n, "%s", s);
		return buf;
	}
	size_t head = (w - 3) * 2 / 3, tail = w - 3 - head;
	snprintf(buf, n, "%.*s...%s", (int)head, s, s + len - tail);
	return buf;
}

/* An evidence number for reading: counts as counts (20000, not 2e+04),
 * other values to 4 significant digits (89.5, 0.0627). */
static const char *ev_num(char *b, size_t n, double v)
{
	int whole = v == (double)(long long)v && v > -1e15 && v < 1e15;
	snprintf(b, n, whole ? "%.0f" : "%.4g", v);
	return b;
}

int report_warnings(FILE *f, const struct analysis *a, const char *prefix)
{
	int n = 0;
	char b[32];
	if (a->dropped_records) {
		fprintf(f,
			"%s%llu CUPTI records were dropped: the timeline is incomplete and GPU "
			"busy time is underestimated\n",
			prefix, (unsigned long long)a->dropped_records);
		n++;
	}
	/* overhead_ns covers whole processes (startup and exit flush too): it is
	 * weighed against their lifetimes, or the span when those are unknown */
	double run = a->process_ns > 0 ? (double)a->process_ns : (double)a->span_ns;
	if (a->overhead_ns > 0 && run > 0 && (double)a->overhead_ns > 0.01 * run) {
		/* overhead_ns is measured in CUPTI's completion thread, the flush
		 * thread and the exit flush (inject/flush.c); in the program's calls only
		 * the buffer requests, a pop from a pool */
		fprintf(
		    f,
		    "%sgpuscope spent %s on CUPTI buffers (%.1f%% of the run), off the program's "
		    "CUDA calls\n",
		    prefix, report_fmt_ns(b, sizeof(b), (double)a->overhead_ns),
		    100.0 * (double)a->overhead_ns / run);
		n++;
	}
	for (size_t i = 0; i < a->n_processes; i++) {
		const char *st = trace_str(a->t, a->processes[i].status_id);
		if (*st) {
			fprintf(f, "%sprocess %u: %s\n", prefix, a->processes[i].pid, st);
			n++;
		}
	}
	if (a->n_kernels == 0 && a->n_copies == 0 && a->n_memsets == 0) {
		fprintf(f, "%sthe trace holds no GPU work\n", prefix);
		n++;
	}
	return n;
}

/* Prints text wrapped at 98 columns; continuation lines get `indent`. */
static void wrap(FILE *f, const char *first, const char *indent, const char *text)
{
	size_t col = strlen(first), ind = strlen(indent);
	fputs(first, f);
	for (const char *p = text; *p;) {
		const char *e = strchr(p, ' ');
		size_t w = e ? (size_t)(e - p) : strlen(p), shown = w;
		size_t room = 98 - ind - 1;
		if (shown > room) /* a word longer than a line (a C++ name): cut its middle */
			shown = room;
		if (col > ind && col + 1 + shown > 98) {
			fprintf(f, "\n%s", indent);
			col = ind;
		} else {
			fputc(' ', f);
			col++;
		}
		if (shown < w) {
			size_t head = (shown - 3) * 2 / 3, tail = shown - 3 - head;
			fprintf(f, "%.*s...%.*s", (int)head, p, (int)tail, p + w - tail);
		} else {
			fwrite(p, 1, w, f);
		}
		col += shown;
		p += w;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}

static void verdict(FILE *f, const struct analysis *a)
{
	const struct finding *p = a->primary;
	fprintf(f, "VERDICT\n");
	if (!p) {
		fprintf(f, "  no bottleneck found: GPU busy %.1f%% of %.3f s, no rule fired\n\n",
			an_pct(a, (double)a->busy_ns), (double)a->span_ns / 1e9);
		return;
	}
	fprintf(f, "  %s (%s, explains %.1f%% of the run)\n", p->id, severity_name(p->severity),
		p->impact_pct);
	char line[400];
	snprintf(line, sizeof(line), "%s.", p->title);
	wrap(f, " ", "  ", line);
	int shown = 0;
	size_t at = (size_t)snprintf(line, sizeof(line), "evidence");
	for (int i = 0; i < p->n_ev && shown < 3 && at < sizeof(line); i++) {
		if (!p->ev[i].is_num || strstr(p->ev[i].key, "impact"))
			continue;
		char nb[32];
		at += (size_t)snprintf(line + at, sizeof(line) - at, "%s %s %s", shown ? "," : ":",
				       p->ev[i].key, ev_num(nb, sizeof(nb), p->ev[i].num));
		shown++;
	}
	wrap(f, " ", "    ", line);
	if (p->n_actions)
		wrap(f, "  fix first:", "    ", p->actions[0]);
	fprintf(f, "\n");
}

/* Findings as blocks that stay within 100 columns (finding_list_text's
 * layout, wrapped). */
static void findings(FILE *f, const struct analysis *a)
{
	fprintf(f, "FINDINGS\n");
	for (size_t i = 0; i < a->findings.n; i++) {
		const struct finding *x = &a->findings.v[i];
		char sev[16];
		snprintf(sev, sizeof(sev), "%s", severity_name(x->severity));
		for (char *c = sev; *c; c++)
			*c = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
		fprintf(f, "[%s] %s (impact %.1f%%)\n", sev, x->id, x->impact_pct);
		wrap(f, "   ", "    ", x->title);
		for (int e = 0; e < x->n_ev; e++) {
			char nb[32], kb[512];
			const char *v = x->ev[e].str;
			if (x->ev[e].is_num)
				v = ev_num(nb, sizeof(nb), x->ev[e].num);
			else if (strstr(x->ev[e].key, "kernel"))
				v = gs_one_line_name(v, kb, sizeof(kb), 64);
			fprintf(f, "    %-28s %.64s\n", x->ev[e].key, v);
		}
		for (int k = 0; k < x->n_actions; k++)
			wrap(f, "  ->", "     ", x->actions[k]);
		fputc('\n', f);
	}
}

static void summary(FILE *f, const struct analysis *a)
{
	char b1[32], b2[32], b3[32];
	fprintf(f, "SUMMARY\n");
	fprintf(f, "  span %s, GPU busy %s (%.1f%%), idle %s (%.1f%%)\n",
		report_fmt_ns(b1, sizeof(b1), (double)a->span_ns),
		report_fmt_ns(b2, sizeof(b2), (double)a->busy_ns), an_pct(a, (double)a->busy_ns),
		report_fmt_ns(b3, sizeof(b3), (double)a->idle.total_ns),
		an_pct(a, (double)a->idle.total_ns));
	char line[512];
	if (a->warmup_ns > 0) {
		snprintf(
		    line, sizeof(line),
		    "(steady state: left out %s of warm-up, the first launches of each kernel, "
		    "and %s of a final phase with new kernels; --whole keeps them)",
		    report_fmt_ns(b1, sizeof(b1), (double)a->warmup_ns),
		    report_fmt_ns(b2, sizeof(b2), (double)a->cooldown_ns));
		wrap(f, " ", "   ", line);
	}
	const char *rp = trace_get_meta(a->t, "kernel_replay_removed_ns");
	if (rp) {
		snprintf(
		    line, sizeof(line),
		    "(per-kernel counters: %s profiled launches; %s of kernel replay taken out "
		    "of the timeline)",
		    trace_get_meta(a->t, "kernel_replay_launches") ?: "?",
		    report_fmt_ns(b1, sizeof(b1), strtod(rp, NULL)));
		wrap(f, " ", "   ", line);
	}
	if (a->startup_ns > 0 || a->teardown_ns > 0)
		fprintf(f,
			"  (first to last GPU work; not analysed: %s of startup before it, %s "
			"after it)\n",
			report_fmt_ns(b1, sizeof(b1), (double)a->startup_ns),
			report_fmt_ns(b2, sizeof(b2), (double)a->teardown_ns));
	fprintf(f,
		"  %llu kernels, %llu copies, %llu memsets, %llu API calls on %zu device(s), "
		"%zu stream(s)\n",
		(unsigned long long)a->n_kernels, (unsigned long long)a->n_copies,
		(unsigned long long)a->n_memsets, (unsigned long long)a->n_apis, a->n_devices,
		a->n_streams);
	int n = snprintf(line, sizeof(line), "time by category: kernels %.1f%%, copies %.1f%%",
			 an_pct(a, (double)a->kernel_ns), an_pct(a, (double)a->copy_ns));
	for (int k = 1; k < 6; k++)
		if (a->copy_kind_ns[k] && n > 0 && (size_t)n < sizeof(line))
			n += snprintf(line + n, sizeof(line) - (size_t)n, " (%s %.1f%%)",
				      copy_kind_name(k), an_pct(a, (double)a->copy_kind_ns[k]));
	if (n > 0 && (size_t)n < sizeof(line))
		snprintf(line + n, sizeof(line) - (size_t)n, ", memsets %.1f%%, idle %.1f%%",
			 an_pct(a, (double)a->memset_ns), an_pct(a, (double)a->idle.total_ns));
	wrap(f, " ", "    ", line);
	snprintf(line, sizeof(line),
		 "GPU idle because: host work outside CUDA %.1f%%, host dispatch %.1f%%, launch "
		 "latency %.1f%%, sync %.1f%%, copy calls %.1f%%, other CUDA calls %.1f%%",
		 an_pct(a, (double)a->idle.host_ns), an_pct(a, (double)a->idle.dispatch_ns),
		 an_pct(a, (double)a->idle.launch_ns), an_pct(a, (double)a->idle.sync_ns),
		 an_pct(a, (double)a->idle.copy_ns), an_pct(a, (double)a->idle.api_ns));
	wrap(f, " ", "    ", line);
	if (a->n_devices > 1 || a->n_streams > 1) {
		for (size_t i = 0; i < a->n_devices; i++)
			fprintf(f, "  device %u: busy %.1f%%\n", a->devices[i].id,
				an_pct(a, (double)a->devices[i].busy_ns));
	}
	if (a->n_devices > 1)
		fprintf(f, "  (the devices are analysed together: GPU busy is their union; "
			   "--device N for one)\n");
	fprintf(f, "\n");
}

/* 1 when the table's 20 columns show less of the kernel's name than one
 * line of it would */
static int name_cut(const struct analysis *a, const struct an_kernel_group *g)
{
	char dm[512], bn[512], one[512], nm[64];
	const char *full = gs_demangle(trace_str(a->t, g->name_id), dm, sizeof(dm));
	fit(nm, sizeof(nm), gs_base_name(full, bn, sizeof(bn)), 20);
	return strcmp(nm, gs_one_line_name(full, one, sizeof(one), 92)) != 0;
}

static void top_kernels(FILE *f, const struct analysis *a)
{
	if (!a->n_kgroups)
		return;
	char nm[64], t1[32], t3[32], gb[40], occ[16], dm[512], bn[512], wv[16], id[8];
	/* the names the table had to shorten are listed under it */
	char cut[REPORT_TOP_KERNELS];
	int listed = 0;
	for (size_t i = 0; i < a->n_kgroups && i < REPORT_TOP_KERNELS; i++)
		listed += cut[i] = (char)name_cut(a, &a->kgroups[i]);
	fprintf(f, "TOP KERNELS (by total GPU time%s)\n", listed ? "; #N: full names below" : "");
	fprintf(f, "  %-3s %-20s %7s %10s %9s %11s %4s %4s %-9s %5s %6s\n", "#", "kernel", "count",
		"total", "median", "grid/block", "regs", "occ%", "limiter", "waves", "share");
	size_t shown = 0;
	for (size_t i = 0; i < a->n_kgroups && i < REPORT_TOP_KERNELS; i++, shown++) {
		const struct an_kernel_group *g = &a->kgroups[i];
		snprintf(gb, sizeof(gb), "%lld/%d", g->grid_blocks, g->block_threads);
		if (g->occupancy >= 0)
			snprintf(occ, sizeof(occ), "%.0f", 100.0 * g->occupancy);
		else
			snprintf(occ, sizeof(occ), "?");
		snprintf(wv, sizeof(wv),
			 g->waves >= 100  ? "%.0f"
			 : g->waves >= 10 ? "%.1f"
					  : "%.2f",
			 g->waves);
		snprintf(id, sizeof(id), "#%zu", i + 1);
		const char *full = gs_demangle(trace_str(a->t, g->name_id), dm, sizeof(dm));
		fprintf(f, "  %-3s %-20s %7llu %10s %9s %11s %4u %4s %-9.9s %5s %5.1f%%\n", id,
			fit(nm, sizeof(nm), gs_base_name(full, bn, sizeof(bn)), 20),
			(unsigned long long)g->count,
			report_fmt_ns(t1, sizeof(t1), (double)g->sum_ns),
			report_fmt_ns(t3, sizeof(t3), (double)g->median_ns), gb, g->regs, occ,
			g->limiter ? g->limiter : "", wv, g->share_pct);
	}
	/* the demangled names, one line each (C++ templates cut in the middle) */
	for (size_t i = 0; i < shown; i++) {
		if (!cut[i])
			continue;
		const char *full =
		    gs_demangle(trace_str(a->t, a->kgroups[i].name_id), dm, sizeof(dm));
		snprintf(id, sizeof(id), "#%zu", i + 1);
		fprintf(f, "  %-3s %s\n", id, gs_one_line_name(full, bn, sizeof(bn), 92));
	}
	fprintf(f, "\n");
}

static void launches(FILE *f, const struct analysis *a)
{
	const struct an_launch *l = &a->launch;
	char b1[32], b2[32], b3[32];
	if (!l->launches && !a->n_kernels)
		return;
	fprintf(f, "LAUNCHES\n");
	fprintf(f,
		"  %llu launch calls, %s inside them (median %s); launch-to-start delay median "
		"%s\n",
		(unsigned long long)l->launches,
		report_fmt_ns(b1, sizeof(b1), (double)l->api_sum_ns),
		report_fmt_ns(b2, sizeof(b2), (double)l->api_median_ns),
		report_fmt_ns(b3, sizeof(b3), (double)l->delay_median_ns));
	fprintf(f,
		"  queue depth at launch %.1f (empty %.0f%% of launches); %llu short kernels "
		"(< 10 us) = %s\n\n",
		l->queue_depth_mean, 100.0 * l->queue_empty_share,
		(unsigned long long)l->short_kernels,
		report_fmt_ns(b1, sizeof(b1), (double)l->short_kernel_sum_ns));
}

static void copies(FILE *f, const struct analysis *a)
{
	const struct an_copy_stats *c = &a->copy;
	char b1[32];
	if (!c->count)
		return;
	fprintf(f, "COPIES (link %.0f GB/s theoretical)\n", c->link_gbps);
	fprintf(f, "  %-6s %-9s %-9s %9s %14s %10s %8s\n", "kind", "src", "dst", "count", "bytes",
		"time", "GB/s");
	for (size_t i = 0; i < a->n_cgroups; i++) {
		const struct an_copy_group *g = &a->cgroups[i];
		fprintf(f, "  %-6s %-9s %-9s %9llu %14llu %10s %8.2f\n", copy_kind_name(g->kind),
			mem_kind_name(g->src_kind), mem_kind_name(g->dst_kind),
			(unsigned long long)g->count, (unsigned long long)g->bytes,
			report_fmt_ns(b1, sizeof(b1), (double)g->sum_ns), g->gbps);
	}
	fprintf(f,
		"  pageable %.0f%% of bytes; %.0f%% of copy time overlaps kernels; %s with no "
		"kernel running\n\n",
		c->bytes ? 100.0 * (double)c->pageable_bytes / (double)c->bytes : 0, c->overlap_pct,
		report_fmt_ns(b1, sizeof(b1), (double)c->not_overlapped_ns));
}

static void syncs(FILE *f, const struct analysis *a)
{
	char b1[32], b2[32];
	if (!a->sync.count)
		return;
	fprintf(f,
		"SYNCHRONIZATION\n  %llu blocking calls, %s inside them, GPU idle around them "
		"%s (%.1f%%)\n\n",
		(unsigned long long)a->sync.count,
		report_fmt_ns(b1, sizeof(b1), (double)a->sync.sum_ns),
		report_fmt_ns(b2, sizeof(b2), (double)a->sync.idle_after_ns),
		an_pct(a, (double)a->sync.idle_after_ns));
}

static void idle(FILE *f, const struct analysis *a)
{
	const struct an_idle *d = &a->idle;
	char b[8][32];
	if (!d->gaps)
		return;
	fprintf(f, "IDLE BREAKDOWN (%llu gaps, longest %s, %llu >= 500 ms)\n",
		(unsigned long long)d->gaps, report_fmt_ns(b[0], 32, (double)d->longest_gap_ns),
		(unsigned long long)d->gaps_ge_500ms);
	fprintf(f, "  %-34s %10s %7s\n", "cause", "time", "of span");
	const char *names[6] = {"host work outside CUDA (>= 500 us)",
				"host dispatch between CUDA calls",
				"launch latency / queue",
				"waiting on a synchronization",
				"waiting on a copy call",
				"inside other CUDA calls (alloc...)"};
	int64_t v[6] = {d->host_ns, d->dispatch_ns, d->launch_ns,
			d->sync_ns, d->copy_ns,	    d->api_ns};
	for (int i = 0; i < 6; i++)
		fprintf(f, "  %-34s %10s %6.1f%%\n", names[i],
			report_fmt_ns(b[i + 1], 32, (double)v[i]), an_pct(a, (double)v[i]));
	if (a->n_chunks)
		fprintf(f, "  %d of %d time chunks below 50%% GPU busy (Nsight gpu_time_util)\n",
			a->low_chunks, a->n_chunks);
	fprintf(f, "\n");
}

static void nvtx(FILE *f, const struct analysis *a)
{
	char nm[64], b1[32], b2[32];
	if (!a->n_ranges)
		return;
	fprintf(f, "NVTX / ANNOTATIONS (GPU time of the work their launches caused)\n");
	fprintf(f, "  %-44s %8s %11s %11s %9s\n", "range", "count", "cpu time", "gpu time",
		"gpu ops");
	for (size_t i = 0; i < a->n_ranges && i < REPORT_TOP_KERNELS; i++) {
		const struct an_range_group *r = &a->ranges[i];
		fprintf(f, "  %-44s %8llu %11s %11s %9llu\n",
			fit(nm, sizeof(nm), trace_str(a->t, r->name_id), 44),
			(unsigned long long)r->count, report_fmt_ns(b1, 32, (double)r->cpu_sum_ns),
			report_fmt_ns(b2, 32, (double)r->gpu_sum_ns),
			(unsigned long long)r->gpu_ops);
	}
	fprintf(f, "\n");
}

static void samples(FILE *f, const struct analysis *a)
{
	int any = 0;
	for (int m = 0; m < AM_COUNT; m++)
		any |= a->metrics[m].valid;
	if (!any)
		return;
	fprintf(f, "SAMPLED METRICS (NVML / GPM)\n  %-20s %8s %10s %12s\n", "metric", "samples",
		"mean", "while busy");
	for (int m = 0; m < AM_COUNT; m++) {
		const struct an_metric *x = &a->metrics[m];
		if (!x->valid)
			continue;
		fprintf(f, "  %-20s %8llu %10.1f %12.1f\n", x->name, (unsigned long long)x->n,
			x->mean, x->n_busy ? x->mean_busy : 0.0);
	}
	const struct an_sol *o = &a->sol;
	char line[400];
	if (o->valid) {
		snprintf(line, sizeof(line),
			 "speed of light while busy: DRAM %.0f%%, fp32/tensor pipes %.0f%% -> "
			 "memory-bound %.0f%%, compute-bound %.0f%%, latency-bound %.0f%% of the "
			 "sampled busy time (sample clock shifted %+.0f ms, r=%.2f)",
			 o->dram, o->pipe, 100 * o->mem, 100 * o->compute, 100 * o->latency,
			 (double)o->lag_ns / 1e6, o->lag_corr);
		wrap(f, " ", "    ", line);
	}
	fprintf(f, "\n");
}

/* A counter value for the table with prec decimals (g: significant
 * digits), "?" when it was not collected. */
static const char *kc_cell(char *b, size_t n, double v, int prec, int g)
{
	if (isnan(v))
		snprintf(b, n, "?");
	else if (g)
		snprintf(b, n, "%.*g", prec, v);
	else
		snprintf(b, n, "%.*f", prec, v);
	return b;
}

/* Per-kernel hardware counters (record --metrics kernels): each kernel's
 * speed of light, bound, and the access numbers behind the specific
 * findings, then its roofline point. */
static void kernel_counters(FILE *f, const struct analysis *a)
{
	if (!a->kc.n)
		return;
	fprintf(f, "KERNEL COUNTERS (per launch, means of the profiled launches)\n");
	fprintf(f, "  %-3s %-20s %4s %5s %5s %5s %5s %6s %6s %5s %-16s\n", "#", "kernel", "runs",
		"SM%", "mem%", "DRAM%", "occ%", "thr/in", "sec/rq", "ways", "bound");
	char nm[64], dm[1024], bn[512], c[8][16], bound[40];
	for (size_t i = 0; i < a->kc.n && i < REPORT_TOP_KERNELS; i++) {
		const struct kc_group *g = &a->kc.g[i];
		const double *v = g->v;
		const char *full = gs_demangle(trace_str(a->t, g->name_id), dm, sizeof(dm));
		snprintf(bound, sizeof(bound), "%s%s%s", kc_bound_name(g->bound),
			 g->unit ? ": " : "", g->unit ? g->unit : "");
		fprintf(f, "  %-3zu %-20s %4llu %5s %5s %5s %5s %6s %6s %5s %-.24s\n", i + 1,
			fit(nm, sizeof(nm), gs_base_name(full, bn, sizeof(bn)), 20),
			(unsigned long long)g->profiled,
			kc_cell(c[0], 16, g->has[KM_SM_SOL] ? v[KM_SM_SOL] : NAN, 0, 0),
			kc_cell(c[1], 16, g->has[KM_MEM_SOL] ? v[KM_MEM_SOL] : NAN, 0, 0),
			kc_cell(c[2], 16, g->has[KM_DRAM_PCT] ? v[KM_DRAM_PCT] : NAN, 0, 0),
			kc_cell(c[3], 16, g->has[KM_ACHIEVED_OCC] ? v[KM_ACHIEVED_OCC] : NAN, 0, 0),
			kc_cell(c[4], 16,
				g->has[KM_THREADS_PER_INST] ? v[KM_THREADS_PER_INST] : NAN, 1, 0),
			kc_cell(c[5], 16, g->sectors_per_request, 1, 0),
			kc_cell(c[6], 16, g->shared_ways, 1, 0), bound);
	}
	fprintf(f, "  roofline (per launch): %-20s %10s %10s %10s %10s %10s\n", "kernel",
		"FLOP/byte", "TFLOP/s", "roof", "GB/s", "roof");
	for (size_t i = 0; i < a->kc.n && i < REPORT_TOP_KERNELS; i++) {
		const struct kc_group *g = &a->kc.g[i];
		const char *full = gs_demangle(trace_str(a->t, g->name_id), dm, sizeof(dm));
		fprintf(f, "  %-3zu %-20s %10s %10s %10s %10s %10s\n", i + 1,
			fit(nm, sizeof(nm), gs_base_name(full, bn, sizeof(bn)), 20),
			kc_cell(c[0], 16, g->intensity, 3, 1),
			kc_cell(c[1], 16, g->flop_per_s / 1e12, 3, 1),
			kc_cell(c[2], 16, g->roof_flop_per_s / 1e12, 3, 1),
			kc_cell(c[3], 16, g->dram_bytes_per_s / 1e9, 4, 1),
			kc_cell(c[4], 16, g->roof_bytes_per_s / 1e9, 4, 1));
	}
	fprintf(f, "\n");
}

static void processes(FILE *f, const struct analysis *a)
{
	char b1[32], b2[32];
	if (a->n_processes < 1)
		return;
	fprintf(f, "PROCESSES\n  %-8s %-8s %10s %10s %10s %11s %9s %10s  %s\n", "pid", "parent",
		"kernels", "copies", "api calls", "kernel time", "dropped", "overhead", "status");
	for (size_t i = 0; i < a->n_processes; i++) {
		const struct an_process *p = &a->processes[i];
		const char *st = trace_str(a->t, p->status_id);
		char parent[16] = "-";
		if (p->parent_pid)
			snprintf(parent, sizeof(parent), "%u", p->parent_pid);
		fprintf(f, "  %-8u %-8s %10llu %10llu %10llu %11s %9llu %10s  %s\n", p->pid, parent,
			(unsigned long long)p->kernels, (unsigned long long)p->copies,
			(unsigned long long)p->apis,
			report_fmt_ns(b1, 32, (double)p->kernel_sum_ns),
			(unsigned long long)p->dropped_records,
			report_fmt_ns(b2, 32, (double)p->overhead_ns), *st ? st : "traced");
	}
	fprintf(f, "\n");
}

void report_text(FILE *f, const struct analysis *a, const char *path)
{
	fprintf(f, "gpuscope report: %s (source %s)", path ? path : "-", a->source);
	if (a->range[0])
		fprintf(f, ", span bounded by range '%s'", a->range);
	const char *dev = trace_get_meta(a->t, "report_device");
	if (dev)
		fprintf(f, ", device %s only", dev);
	fprintf(f, "\n\n");
	if (report_warnings(f, a, "WARNING: "))
		fprintf(f, "\n");
	verdict(f, a);
	summary(f, a);
	if (a->findings.n)
		findings(f, a);
	top_kernels(f, a);
	launches(f, a);
	idle(f, a);
	copies(f, a);
	syncs(f, a);
	nvtx(f, a);
	samples(f, a);
	kernel_counters(f, a);
	processes(f, a);
}
