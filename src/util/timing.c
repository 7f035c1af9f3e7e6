/*
 * timing.c - the per-phase timing line (timing.h).
 */
#include "util/timing.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/knobs.h"

#define MAX_PHASES 16
/* the pass lines kept for timing_print (timing_pass_line), in bytes */
#define PASS_LINES_MAX 65536

static struct {
	pthread_mutex_t lock;
	pthread_once_t once;
	int on, passes;
	struct timing_mark start;
	size_t n;
	struct {
		const char *name;
		double wall, cpu;
		int thread;
		long hwm_kib; /* the peak RSS so far at the phase's (last) end */
	} p[MAX_PHASES];
	size_t pass_len;
	char pass_lines[PASS_LINES_MAX]; /* whole lines, NUL-terminated */
} g = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_ONCE_INIT, 0, 0, {0, 0}, 0, {{0}}, 0, {0}};

static double clock_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void timing_now(struct timing_mark *m, int thread)
{
	m->wall = clock_s(CLOCK_MONOTONIC);
	m->cpu = clock_s(thread ? CLOCK_THREAD_CPUTIME_ID : CLOCK_PROCESS_CPUTIME_ID);
}

static void from_env(void)
{
	/* the start: the first question (wall), the program's start (CPU) */
	timing_now(&g.start, 0);
	g.start.cpu = 0;
	const char *v = getenv(KNOB(TIMING));
	if (v && *v && strcmp(v, "0") != 0)
		__atomic_store_n(&g.on, 1, __ATOMIC_RELAXED);
	g.passes = v && strcmp(v, "passes") == 0;
}

int timing_on(void)
{
	pthread_once(&g.once, from_env);
	return __atomic_load_n(&g.on, __ATOMIC_RELAXED);
}

int timing_passes(void)
{
	pthread_once(&g.once, from_env);
	return g.passes;
}

void timing_pass_line(const char *const *names, const double (*span)[3], size_t n)
{
	if (!timing_passes())
		return;
	pthread_mutex_lock(&g.lock);
	char *b = g.pass_lines;
	size_t cap = sizeof(g.pass_lines), at = g.pass_len;
	int k = snprintf(b + at, cap - at, "gpuscope passes (start-end/CPU s):");
	for (size_t i = 0; k >= 0 && at + (size_t)k < cap && i < n; i++) {
		at += (size_t)k;
		k = snprintf(b + at, cap - at, "%s %s %.3f-%.3f/%.3f", i ? "," : "", names[i],
			     span[i][0], span[i][1], span[i][2]);
	}
	if (k >= 0 && at + (size_t)k + 1 < cap) { /* whole lines only */
		at += (size_t)k;
		b[at++] = '\n';
		b[at] = 0;
		g.pass_len = at;
	} else {
		b[g.pass_len] = 0;
	}
	pthread_mutex_unlock(&g.lock);
}

void timing_enable(void)
{
	pthread_once(&g.once, from_env);
	__atomic_store_n(&g.on, 1, __ATOMIC_RELAXED);
}

/* the peak resident set of this program's image (VmHWM: what it touched
 * since exec, not the parent's pages ru_maxrss would count) in KiB */
static long peak_rss_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kib = -1;
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "VmHWM:", 6) == 0) {
			kib = strtol(line + 6, NULL, 10);
			break;
		}
	if (f)
		fclose(f);
	return kib;
}

void timing_add(const char *phase, const struct timing_mark *since, int thread)
{
	if (!timing_on())
		return;
	struct timing_mark now;
	timing_now(&now, thread);
	long hwm = thread ? -1 : peak_rss_kib();
	pthread_mutex_lock(&g.lock);
	size_t i = 0;
	while (i < g.n && strcmp(g.p[i].name, phase) != 0)
		i++;
	if (i == g.n && g.n < MAX_PHASES) {
		g.p[i].name = phase;
		g.p[i].thread = thread;
		g.n++;
	}
	if (i < g.n) {
		g.p[i].wall += now.wall - since->wall;
		g.p[i].cpu += now.cpu - since->cpu;
		g.p[i].hwm_kib = hwm;
	}
	pthread_mutex_unlock(&g.lock);
}

void timing_print(FILE *f)
{
	if (!timing_on())
		return;
	struct timing_mark now;
	timing_now(&now, 0);
	pthread_mutex_lock(&g.lock);
	fputs(g.pass_lines, f);
	fputs("gpuscope timing (wall/CPU s, peak RSS at the phase's end):", f);
	for (size_t i = 0; i < g.n; i++) {
		fprintf(f, "%s %s %.3f/%.3f", i ? "," : "", g.p[i].name, g.p[i].wall, g.p[i].cpu);
		if (g.p[i].thread)
			fputs(" (one thread, inside the parse)", f);
		else if (g.p[i].hwm_kib >= 0)
			fprintf(f, " (peak %ld MiB)", g.p[i].hwm_kib / 1024);
	}
	fprintf(f, "; total %.3f s wall, %.3f s CPU; peak RSS %ld MiB\n", now.wall - g.start.wall,
		now.cpu - g.start.cpu, peak_rss_kib() / 1024);
	pthread_mutex_unlock(&g.lock);
}
