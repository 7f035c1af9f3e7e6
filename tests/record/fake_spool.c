/*
 * fake_spool.c - a stand-in for a program traced with `record --metrics
 * kernels`, for the CPU tests: it writes into $GPUSCOPE_SPOOL_DIR the spool
 * file the injected library would (trace/spool.h): three launches of
 * kernel "k", the second profiled (its call lasts 250 ms of replay, its
 * kernel has no timestamps, its counters include gpu__time_duration.sum =
 * 100 us and the profiler's begin/end stamps), and an END frame. record
 * then merges it like any process's spool (tests/record/replay_cli.sh).
 *
 * `fake_spool capture` writes a program with capture ranges instead
 * (tests/record/capture_cli.sh), times from its start (t0):
 *    10, 20 ms   kernels 1, 2 (before anything)
 *    30 ms       cudaProfilerStart (with a nested cuProfilerStart)
 *    40-80 ms    NVTX range "step": kernels 4, 5 (5 runs at 90 ms)
 *    100 ms      kernel 6 (profiler window, outside "step")
 *    110 ms      cudaProfilerStop; 112 ms a second stop (no effect)
 *    120 ms      kernel 8 (after)
 *    1000 ms     cudaProfilerStart (never stopped: window to the end)
 *    1010 ms     kernel 10
 *    1020-1060   "step", with a nested "step" 1025-1035 (one window):
 *                kernels 11 (1030 ms), 12 (1050 ms)
 *    1070 ms     kernel 13; the trace ends at 1080 ms
 * cudaProfilerApi keeps 4 5 6 10 11 12 13; nvtx:step 4 5 11 12.
 *
 * `fake_spool helper` writes the default program and beside it the spool
 * of a child that loaded CUDA and did nothing (a header and an END frame:
 * Open MPI's orted in a Lightning run); `fake_spool empty` only such a
 * spool, for itself (tests/record/helper_cli.sh).
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

static void api(int64_t t0, int64_t s, int64_t e, uint32_t corr, uint32_t name, uint32_t dom)
{
	struct spool_api a = {(uint64_t)(t0 + s), (uint64_t)(t0 + e), 1, corr, name, 0, dom, 0};
	put(SPOOL_API, &a, sizeof(a), NULL);
}

static void marker(int64_t t0, int64_t at, uint32_t id, uint32_t flags, uint32_t name)
{
	struct spool_marker m = {(uint64_t)(t0 + at), id, flags, name, 0, 1, 1};
	put(SPOOL_MARKER, &m, sizeof(m), NULL);
}

static void launch_run(int64_t t0, int64_t at, int64_t run, uint32_t corr)
{
	launch(t0, at, at + 5 * US, corr);
	kernel(t0, run, run + 2 * US, corr);
}

/* the capture-range program (see the top) */
static int64_t capture_program(int64_t t0)
{
	str(1, "cudaLaunchKernel");
	str(2, "k");
	str(6, "cudaProfilerStart_v4000");
	str(7, "cudaProfilerStop_v4000");
	str(8, "step");
	str(9, "cuProfilerStart");
	launch_run(t0, 10 * MS, 10 * MS + 10 * US, 1);
	launch_run(t0, 20 * MS, 20 * MS + 10 * US, 2);
	api(t0, 30 * MS, 31 * MS, 3, 6, SPOOL_API_RUNTIME);
	api(t0, 30 * MS + 10 * US, 30 * MS + 20 * US, 100, 9, SPOOL_API_DRIVER);
	marker(t0, 40 * MS, 1, SPOOL_MARKER_START, 8);
	launch_run(t0, 50 * MS, 50 * MS + 10 * US, 4);
	launch_run(t0, 60 * MS, 90 * MS, 5);
	marker(t0, 80 * MS, 1, SPOOL_MARKER_END, 0);
	launch_run(t0, 100 * MS, 100 * MS + 10 * US, 6);
	api(t0, 110 * MS, 111 * MS, 7, 7, SPOOL_API_RUNTIME);
	api(t0, 112 * MS, 113 * MS, 9, 7, SPOOL_API_RUNTIME);
	launch_run(t0, 120 * MS, 120 * MS + 10 * US, 8);
	api(t0, 1000 * MS, 1001 * MS, 20, 6, SPOOL_API_RUNTIME);
	launch_run(t0, 1010 * MS, 1010 * MS + 10 * US, 10);
	marker(t0, 1020 * MS, 2, SPOOL_MARKER_START, 8);
	marker(t0, 1025 * MS, 3, SPOOL_MARKER_START, 8);
	launch_run(t0, 1030 * MS, 1030 * MS + 10 * US, 11);
	marker(t0, 1035 * MS, 3, SPOOL_MARKER_END, 0);
	launch_run(t0, 1050 * MS, 1050 * MS + 10 * US, 12);
	marker(t0, 1060 * MS, 2, SPOOL_MARKER_END, 0);
	launch_run(t0, 1070 * MS, 1070 * MS + 10 * US, 13);
	return t0 + 1080 * MS;
}

/* The file header and command line into b; returns the bytes used. */
static size_t header(char *b, uint32_t pid, uint32_t ppid, const char *cmd, int64_t now)
{
	struct spool_file_header h;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, SPOOL_MAGIC, 8);
	h.version = SPOOL_VERSION;
	h.header_len = sizeof(h);
	h.pid = pid;
	h.ppid = ppid;
	h.cmdline_len = (uint32_t)strlen(cmd);
	h.clock_cupti_ns = now;
	h.clock_real_ns = now;
	memcpy(b, &h, sizeof(h));
	memcpy(b + sizeof(h), cmd, h.cmdline_len);
	return sizeof(h) + h.cmdline_len;
}

/* a spool with no activity: the header, the command line, an END frame */
static int write_empty(const char *dir, uint32_t pid, uint32_t ppid, int64_t now)
{
	char b[512];
	size_t at = header(b, pid, ppid, "orted", now);
	struct spool_end e = {(uint64_t)now, SPOOL_END_EXIT, 0};
	if (spool_put(b, sizeof(b), &at, SPOOL_END, &e, sizeof(e), NULL, 0) < 0)
		return -1;
	char path[4096];
	snprintf(path, sizeof(path), "%s/spool-%u.bin", dir, pid);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(b, 1, at, f) != at || fclose(f) != 0) {
		fprintf(stderr, "fake_spool: cannot write '%s'\n", path);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *dir = getenv("GPUSCOPE_SPOOL_DIR");
	if (!dir) {
		fprintf(stderr, "fake_spool: GPUSCOPE_SPOOL_DIR is not set\n");
		return 1;
	}
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	int64_t now = (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec, t0 = now - 400 * MS;
	int capture = argc > 1 && strcmp(argv[1], "capture") == 0;
	if (argc > 1 && strcmp(argv[1], "empty") == 0)
		return write_empty(dir, (uint32_t)getpid(), (uint32_t)getppid(), now) < 0;
	if (argc > 1 && strcmp(argv[1], "helper") == 0 &&
	    write_empty(dir, (uint32_t)getpid() + 1000000u, (uint32_t)getpid(), now) < 0)
		return 1;
	if (capture)
		t0 = now;
	pos = header(buf, (uint32_t)getpid(), (uint32_t)getppid(), "fake_spool", now);
	if (capture) {
		struct spool_end e = {capture_program(t0), SPOOL_END_EXIT, 0};
		put(SPOOL_END, &e, sizeof(e), NULL);
	} else {
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
	}
	char path[4096];
	snprintf(path, sizeof(path), "%s/spool-%d.bin", dir, (int)getpid());
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, pos, f) != pos || fclose(f) != 0) {
		fprintf(stderr, "fake_spool: cannot write '%s'\n", path);
		return 1;
	}
	return 0;
}
