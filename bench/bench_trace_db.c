/*
 * bench_trace_db.c - trace database writer rate and bytes per kernel row.
 *
 * Builds an in-memory trace of N kernels shaped like a real run (launches
 * every ~4 us, durations 2-200 us, 64 kernel names and configurations,
 * 4 streams, increasing correlation ids, one pid), writes it with
 * trace_db_save and reads it back with trace_db_load. Prints rows/s for
 * both and the file size divided by N. Usage: bench_trace_db [N] [runs].
 * Target (issue 2): >= 1M rows/s written, <= 48 bytes per kernel row.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "trace/trace_db.h"
#include "util/error.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	int runs = argc > 2 ? atoi(argv[2]) : 5;
	if (n <= 0 || runs <= 0 || runs > 99)
		return 2;
	struct trace t;
	trace_init(&t);
	uint32_t names[64];
	char buf[96];
	for (int i = 0; i < 64; i++) {
		snprintf(buf, sizeof(buf),
			 "void at::native::elementwise_kernel<128, 4, %d>(int, F)", i);
		names[i] = trace_intern(&t, buf);
	}
	unsigned seed = 12345;
	int64_t ts = 1764670000000000000LL;
	for (long i = 0; i < n; i++) {
		struct trace_kernel *k = trace_add_kernel(&t);
		seed = seed * 1103515245u + 12345u;
		int which = (seed >> 16) % 64;
		ts += 2000 + (seed >> 8) % 4000;
		k->start_ns = ts;
		k->end_ns = ts + 2000 + (int64_t)((seed >> 4) % 198000);
		k->pid = 31337;
		k->device = 0;
		k->context = 1;
		k->stream = 7 + which % 4;
		k->correlation = (uint32_t)(i * 3 + 11);
		k->name_id = names[which];
		k->grid[0] = 1u << (which % 12);
		k->grid[1] = k->grid[2] = 1;
		k->block[0] = 128u << (which % 3);
		k->block[1] = k->block[2] = 1;
		k->regs = 16 + which % 48;
		k->static_smem = (which % 5) * 1024;
	}
	char path[] = "/tmp/gpuscope-bench-XXXXXX";
	if (!mkdtemp(path))
		return 1;
	char db[300];
	snprintf(db, sizeof(db), "%s/bench.db", path);
	double w[99], r[99];
	char err[GS_ERR_LEN];
	struct stat sb = {0};
	for (int i = 0; i < runs; i++) {
		unlink(db);
		double t0 = now();
		if (trace_db_save(db, &t, err) < 0) {
			fprintf(stderr, "%s\n", err);
			return 1;
		}
		w[i] = now() - t0;
		stat(db, &sb);
		struct trace u;
		t0 = now();
		if (trace_db_load(&u, db, err) < 0) {
			fprintf(stderr, "%s\n", err);
			return 1;
		}
		r[i] = now() - t0;
		if ((long)u.n_kernels != n)
			return 1;
		trace_release(&u);
	}
	qsort(w, runs, sizeof(double), cmp_double);
	qsort(r, runs, sizeof(double), cmp_double);
	printf("kernels            %ld\n", n);
	printf("write rows/s       %.0f (median of %d, %.3f s)\n", n / w[runs / 2], runs,
	       w[runs / 2]);
	printf("load rows/s        %.0f (median of %d, %.3f s)\n", n / r[runs / 2], runs,
	       r[runs / 2]);
	printf("file bytes         %lld\n", (long long)sb.st_size);
	printf("bytes per kernel   %.1f\n", (double)sb.st_size / n);
	unlink(db);
	rmdir(path);
	trace_release(&t);
	return 0;
}
