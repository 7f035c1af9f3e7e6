/*
 * fake_spool.c - a stand-in for a program traced with `record --metrics
 * kernels`, for the CPU tests: it writes into $GPUSCOPE_SPOOL_DIR the spool
 * file the injected library would (trace/spool.h): three launches of
 * kernel "k", the second profiled (its call lasts 250 ms of replay, its
 * kernel has no timestamps, its counters include gpu__time_duration.sum =
 * 100 us and the profiler's begin/end stamps), and an END frame. record
 * then merges it like any process's spool (tests/record/replay_cli.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "trace/spool.h"

#define MS 1000000LL
#define US 1000LL

static char buf[65536];
static size_t pos;

static void put(uint16_t type, const void *p, uint32_t len, const char *x)
{
	if (spool_put(buf, sizeof(buf), &pos, type, p, len, x, x ? (uint32_t)strlen(x) : 0) < 0) {
		fprintf(stderr, "fake_spool: buffer full\n");
		exit(1);
	}
}

static void str(uint32_t id, const char *s)
{
	struct spool_string ss = {id};
	put(SPOOL_STRING, &ss, sizeof(ss), s);
}

static void launch(int64_t t0, int64_t s, int64_t e, uint32_t corr)
{
	struct spool_api a = {
	    (uint64_t)(t0 + s), (uint64_t)(t0 + e), 1, corr, 1, 0, SPOOL_API_RUNTIME, 211};
	put(SPOOL_API, &a, sizeof(a), NULL);
}

static void kernel(int64_t t0, int64_t s, int64_t e, uint32_t corr)
{
	struct spool_kernel k = {0};
	k.start = s ? (uint64_t)(t0 + s) : 0;
	k.end = e ? (uint64_t)(t0 + e) : 0;
	k.correlation = corr;
	k.name_id = 2;
	k.grid[0] = k.grid[1] = k.grid[2] = 1;
	k.block[0] = 128;
	k.block[1] = k.block[2] = 1;
	put(SPOOL_KERNEL, &k, sizeof(k), NULL);
}

static void counter(uint32_t corr, uint32_t metric, double v)
{
	struct spool_counter c = {corr, metric, v};
	put(SPOOL_COUNTER, &c, sizeof(c), NULL);
}

int main(void)
{
	const char *dir = getenv("GPUSCOPE_SPOOL_DIR");
	if (!dir) {
		fprintf(stderr, "fake_spool: GPUSCOPE_SPOOL_DIR is not set\n");
		return 1;
	}
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	int64_t now = (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec, t0 = now - 400 * MS;
	struct spool_file_header h;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, SPOOL_MAGIC, 8);
	h.version = SPOOL_VERSION;
	h.header_len = sizeof(h);
	h.pid = (uint32_t)getpid();
	h.ppid = (uint32_t)getppid();
	h.cmdline_len = 10;
	h.clock_cupti_ns = now;
	h.clock_real_ns = now;
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), "fake_spool", 10);
	pos = sizeof(h) + 10;
	str(1, "cudaLaunchKernel");
	str(2, "k");
	str(3, "gpu__time_duration.sum");
	str(4, "gpuscope__profile_begin_ns");
	str(5, "gpuscope__profile_end_ns");
	launch(t0, 1 * MS, 1 * MS + 5 * US, 1);
	kernel(t0, 2 * MS, 3 * MS, 1);
	launch(t0, 10 * MS, 260 * MS, 2);
	kernel(t0, 0, 0, 2);
	counter(2, 3, 100 * US);
	counter(2, 4, (double)(t0 + 10 * MS));
	counter(2, 5, (double)(t0 + 260 * MS));
	launch(t0, 300 * MS, 300 * MS + 5 * US, 3);
	kernel(t0, 301 * MS, 302 * MS, 3);
	struct spool_end e = {t0 + 310 * MS, SPOOL_END_EXIT, 0};
	put(SPOOL_END, &e, sizeof(e), NULL);
	char path[4096];
	snprintf(path, sizeof(path), "%s/spool-%d.bin", dir, (int)getpid());
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, pos, f) != pos || fclose(f) != 0) {
		fprintf(stderr, "fake_spool: cannot write '%s'\n", path);
		return 1;
	}
	return 0;
}
