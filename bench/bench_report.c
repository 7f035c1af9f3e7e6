/*
 * bench_report.c - times the analysis report runs (analysis_run_range, the
 * whole report minus loading and rendering) on
 * a synthetic trace built in memory: N kernels (default 10M) on 4 streams
 * with their launch calls, a copy and a sync every 100 kernels, NVTX step
 * ranges, GPM samples. Target (issue 4): 10M kernels in < 15 s.
 *
 * With DB, the trace is also saved as a gpuscope database and the whole
 * report path is timed: analysis_load + analysis + text rendering.
 *
 * usage: bench_report [N_KERNELS [DB]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "diagnose/diagnose.h"
#include "render/report_render.h"
#include "trace/trace_db.h"
#include "trace/trace.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000000L;
	struct trace t;
	trace_init(&t);
	struct trace_device *d = trace_add_device(&t);
	d->cc_major = 9;
	d->sm_count = 132;
	uint32_t names[8], launch = trace_intern(&t, "cudaLaunchKernel");
	char buf[64];
	for (int i = 0; i < 8; i++) {
		snprintf(buf, sizeof(buf), "kernel_%d", i);
		names[i] = trace_intern(&t, buf);
	}
	uint32_t gpm = trace_intern(&t, "gpm_sm_util"), step = trace_intern(&t, "step");
	double t0 = now();
	int64_t host = 0;
	uint32_t corr = 1;
	for (long i = 0; i < n; i++) {
		struct trace_api *a = trace_add_api(&t);
		struct trace_kernel *k = trace_add_kernel(&t);
		if (!a || !k) {
			fprintf(stderr, "bench_report: out of memory at %ld kernels\n", i);
			return 1;
		}
		a->start_ns = host;
		a->end_ns = host + 2500;
		a->pid = 1;
		a->tid = 1;
		a->kind = API_LAUNCH;
		a->name_id = launch;
		a->correlation = corr;
		k->start_ns = host + 4000 + (i % 4) * 500;
		k->end_ns = k->start_ns + 2000 + (i % 7) * 1000;
		k->pid = 1;
		k->stream = (uint32_t)(i % 4);
		k->correlation = corr++;
		k->name_id = names[i % 8];
		k->grid[0] = (uint32_t)(64 + (i % 5) * 100);
		k->grid[1] = k->grid[2] = 1;
		k->block[0] = 256;
		k->block[1] = k->block[2] = 1;
		k->regs = 32 + (uint32_t)(i % 8) * 16;
		if (i % 100 == 0) {
			struct trace_api *y = trace_add_api(&t);
			y->start_ns = host + 2600;
			y->end_ns = host + 2900;
			y->pid = 1;
			y->tid = 1;
			y->kind = API_SYNC;
			y->correlation = corr++;
			struct trace_range *r = trace_add_range(&t);
			r->start_ns = host;
			r->end_ns = host + 300000;
			r->pid = 1;
			r->tid = 1;
			r->name_id = step;
			struct trace_sample *s = trace_add_sample(&t);
			s->ts_ns = host;
			s->metric_id = gpm;
			s->value = 50;
		}
		host += 3000;
	}
	trace_sort(&t);
	double t1 = now();
	struct analysis an;
	char err[512];
	if (analysis_run_range(&an, &t, NULL, err) < 0) {
		fprintf(stderr, "bench_report: %s\n", err);
		return 1;
	}
	double t2 = now();
	printf("bench_report: %ld kernels, %zu api calls: build+sort %.2f s, analysis_run %.2f s "
	       "(%.0f ns/kernel); primary %s, busy %.1f%%\n",
	       n, t.n_apis, t1 - t0, t2 - t1, (t2 - t1) * 1e9 / (double)(n ? n : 1),
	       an.primary ? an.primary->id : "none", an_pct(&an, (double)an.busy_ns));
	analysis_release(&an);
	if (argc > 2) {
		remove(argv[2]);
		double s0 = now();
		if (trace_db_save(argv[2], &t, err) < 0) {
			fprintf(stderr, "bench_report: save: %s\n", err);
			return 1;
		}
		trace_release(&t);
		double s1 = now();
		struct trace u;
		if (analysis_load(&u, argv[2], err) < 0) {
			fprintf(stderr, "bench_report: load: %s\n", err);
			return 1;
		}
		double s2 = now();
		struct analysis_result res;
		struct analysis_opts o = {.device = -1};
		if (analysis_result_run(&res, &u, &o, err) < 0) {
			fprintf(stderr, "bench_report: %s\n", err);
			return 1;
		}
		struct report rep;
		if (report_build(&rep, &res, argv[2], err) < 0) {
			fprintf(stderr, "bench_report: %s\n", err);
			return 1;
		}
		FILE *null = fopen("/dev/null", "w");
		report_text(null ? null : stdout, &rep);
		if (null)
			fclose(null);
		report_release(&rep);
		double s3 = now();
		printf("bench_report: database: save %.2f s; report = load %.2f s + analyse and "
		       "render %.2f s = %.2f s\n",
		       s1 - s0, s2 - s1, s3 - s2, s3 - s1);
		analysis_result_release(&res);
		trace_release(&u);
		return 0;
	}
	trace_release(&t);
	return 0;
}
