/*
 * bench_kineto_parse.c - the kineto import alone (parse and post passes),
 * with and without the direct decoder (kineto_direct.c) in the same binary,
 * so that the two can be compared run for run on a loaded machine: each
 * round loads FILE once each way, alternating which goes first, and prints
 * wall and CPU (user + sys) seconds; medians come last.
 *
 * usage: bench_kineto_parse FILE [ROUNDS] [THREADS]   (default 5 rounds, 0: the cores)
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "import/kineto.h"
#include "util/error.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench_kineto_parse FILE [ROUNDS] [THREADS]\n");
		return 2;
	}
	int rounds = argc > 2 ? atoi(argv[2]) : 5;
	if (rounds < 1 || rounds > 100)
		rounds = 5;
	double wall[2][100], cpus[2][100];
	for (int r = 0; r < rounds; r++) {
		for (int k = 0; k < 2; k++) {
			int direct = (r + k) % 2 == 0; /* alternate the order */
			uint64_t n_direct = 0;
			struct kineto_options o = {.threads = argc > 3 ? atoi(argv[3]) : 0,
						   .no_direct = !direct,
						   .direct_events = &n_direct};
			struct trace t;
			char err[GS_ERR_LEN];
			double w0 = now(), c0 = cpu();
			if (kineto_load_opt(&t, argv[1], &o, err) < 0) {
				fprintf(stderr, "bench_kineto_parse: %s\n", err);
				return 1;
			}
			double w = now() - w0, c = cpu() - c0;
			wall[direct][r] = w;
			cpus[direct][r] = c;
			printf("round %d direct %s: %.3f s wall, %.3f s CPU, %zu kernels, %llu "
			       "events decoded directly\n",
			       r + 1, direct ? "on " : "off", w, c, t.n_kernels,
			       (unsigned long long)n_direct);
			trace_release(&t);
		}
	}
	for (int d = 0; d < 2; d++) {
		qsort(wall[d], (size_t)rounds, sizeof(double), cmp_d);
		qsort(cpus[d], (size_t)rounds, sizeof(double), cmp_d);
		printf("median direct %s: %.3f s wall, %.3f s CPU (%d rounds)\n", d ? "on " : "off",
		       wall[d][rounds / 2], cpus[d][rounds / 2], rounds);
	}
	return 0;
}
