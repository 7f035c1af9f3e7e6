/*
 * bench_load_many.c - several traces at once (issue #25 item 4): loads the
 * files (or directories) with trace_load_many, JOBS at a time, then
 * analyses each (analysis_run, as report does), and prints one line per
 * phase with its wall time, and the peak RSS. bench/report-vs-hta.sh runs
 * it on 8 copies of the 1.09 GB trace.
 *
 * usage: bench_load_many JOBS FILE|DIR...   (JOBS 0: the cores)
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "diagnose/diagnose.h"
#include "trace/trace_db.h"
#include "util/error.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: bench_load_many JOBS FILE|DIR...\n");
		return 2;
	}
	char err[GS_ERR_LEN];
	struct trace_set set;
	double t0 = now();
	if (trace_load_many(&set, (const char *const *)argv + 2, (size_t)(argc - 2), atoi(argv[1]),
			    err) < 0) {
		fprintf(stderr, "bench_load_many: %s\n", err);
		return 1;
	}
	double t1 = now();
	size_t kernels = 0;
	for (size_t i = 0; i < set.n; i++) {
		struct analysis an;
		kernels += set.traces[i].n_kernels;
		analysis_sort(&set.traces[i]);
		if (analysis_run(&an, &set.traces[i], err) < 0) {
			fprintf(stderr, "bench_load_many: %s: %s\n", set.paths[i], err);
			return 1;
		}
		analysis_release(&an);
	}
	double t2 = now();
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf(
	    "bench_load_many: %zu files, %zu kernels: load %.2f s, analyse %.2f s, total %.2f s, "
	    "peak RSS %ld MiB\n",
	    set.n, kernels, t1 - t0, t2 - t1, t2 - t0, ru.ru_maxrss / 1024);
	trace_set_release(&set);
	return 0;
}
