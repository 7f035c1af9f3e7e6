/*
 * hostsample_probe.c - which host sampling mechanism works on this machine
 * and what it costs (workloads/hostsample-probe.sh runs it on the H200).
 *
 *   bench_hostsample_probe MODE HZ [-o DIR] -- CMD ARGS...
 *
 * MODE: none (just run CMD), perf (perf_event_open software clock with
 * frame-pointer call chains; symbolized after the run with libdwfl and the
 * perf map files CPython 3.12+ writes under PYTHONPERFSUPPORT=1), pyread
 * (the out-of-process CPython reader at HZ), both. Prints one line
 * "RESULT mode=... key=value ..." last; with -o DIR also DIR/stacks-MODE.txt
 * (the first 50 symbolized stacks), DIR/maps-PID.txt (each sampled
 * process's /proc/PID/maps, read while it ran) and its frameworks.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hostsample/frameworks.h"
#include "hostsample/perf.h"
#include "hostsample/pyframes.h"
#include "hostsample/symbolize.h"
#include "util/error.h"

#define MAX_SAMPLES 100000
#define MAX_PIDS 64

struct stack_rec {
	uint32_t pid, tid;
	uint32_t n;
	uint64_t ips[PERF_MAX_STACK];
};

struct probe {
	const char *dir;
	struct stack_rec *recs;
	size_t n_recs;
	uint32_t pids[MAX_PIDS];
	int n_pids;
	struct symbolizer z;
	uint64_t py_samples, py_main_frames, py_empty;
	uint64_t py_top_hits;
	const char *py_want; /* a function the program says it spends its time in */
};

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void add_pid(struct probe *p, uint32_t pid)
{
	for (int i = 0; i < p->n_pids; i++)
		if (p->pids[i] == pid)
			return;
	if (p->n_pids < MAX_PIDS)
		p->pids[p->n_pids++] = pid;
}

static void on_sample(void *ctx, const struct perf_sample_rec *s)
{
	struct probe *p = ctx;
	add_pid(p, s->pid);
	if (p->n_recs >= MAX_SAMPLES)
		return;
	struct stack_rec *r = &p->recs[p->n_recs++];
	r->pid = s->pid;
	r->tid = s->tid;
	r->n = s->n_ips;
	memcpy(r->ips, s->ips, sizeof(uint64_t) * s->n_ips);
}

/* every process the program started, for its perf map file */
static void on_task(void *ctx, const struct perf_task_rec *t)
{
	add_pid(ctx, t->pid);
}

static void on_mmap(void *ctx, const struct perf_mmap_rec *m)
{
	struct probe *p = ctx;
	symbolizer_add_map(&p->z, m->pid, m->start, m->len, m->pgoff, m->filename);
}

/* Keeps the latest /proc/PID/maps of the program (DIR/maps-PID.txt) and
 * the frameworks seen in any of them (a library loaded late counts). */
static void save_maps(struct probe *p, pid_t pid, struct fw_list *fw)
{
	char src[64], dst[1024], buf[65536];
	snprintf(src, sizeof(src), "/proc/%d/maps", (int)pid);
	frameworks_from_maps(fw, src);
	if (!p->dir)
		return;
	snprintf(dst, sizeof(dst), "%s/maps-%d.txt", p->dir, (int)pid);
	FILE *in = fopen(src, "re"), *out = in ? fopen(dst, "we") : NULL;
	size_t n;
	while (in && out && (n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, out);
	if (out)
		fclose(out);
	if (in)
		fclose(in);
}

/* Symbolizes every perf sample: how many frames resolved, how many samples
 * reach a Python frame (trampoline), the top leaf and Python functions. */
static void perf_report(struct probe *p, const char *mode, char *res, size_t cap)
{
	for (int i = 0; i < p->n_pids; i++) {
		char path[64];
		snprintf(path, sizeof(path), "/tmp/perf-%u.map", p->pids[i]);
		long n = symbolizer_load_perf_map(&p->z, p->pids[i], path);
		if (n >= 0)
			printf("PERFMAP pid=%u entries=%ld\n", p->pids[i], n);
		if (n >= 0 && getenv("PROBE_KEEP_PERFMAP") == NULL)
			unlink(path); /* ours: the probe set PYTHONPERFSUPPORT */
	}
	FILE *out = NULL;
	if (p->dir) {
		char path[1024];
		snprintf(path, sizeof(path), "%s/stacks-%s.txt", p->dir, mode);
		out = fopen(path, "we");
	}
	uint64_t frames = 0, named = 0, with_py = 0, deep = 0, want_hits = 0;
	uint64_t t0 = mono_ns();
	for (size_t i = 0; i < p->n_recs; i++) {
		const struct stack_rec *r = &p->recs[i];
		int py = 0, hit = 0;
		for (uint32_t k = 0; k < r->n; k++) {
			struct sym_result s;
			symbolizer_lookup(&p->z, r->pid, r->ips[k], k > 0, &s);
			frames++;
			named += s.name[0] != '\0';
			py += s.kind == SYM_PYTHON;
			if (s.kind == SYM_PYTHON && p->py_want && strcmp(s.name, p->py_want) == 0)
				hit = 1;
			if (out && i < 50)
				fprintf(out, "%s%s [%s+0x%llx]%s", k ? "  <- " : "",
					s.name[0] ? s.name : "?",
					strrchr(s.module, '/') ? strrchr(s.module, '/') + 1
							       : s.module,
					(unsigned long long)s.offset, k + 1 == r->n ? "\n" : "");
		}
		with_py += py > 0;
		deep += r->n >= 8;
		want_hits += hit;
	}
	uint64_t sym_ns = mono_ns() - t0;
	if (out)
		fclose(out);
	size_t k = strlen(res);
	snprintf(
	    res + k, cap - k,
	    " perf_samples=%zu frames=%llu named_pct=%.1f with_python_pct=%.1f "
	    "deep8_pct=%.1f want_pct=%.1f sym_ns_per_frame=%.0f",
	    p->n_recs, (unsigned long long)frames, frames ? 100.0 * named / frames : 0,
	    p->n_recs ? 100.0 * with_py / p->n_recs : 0, p->n_recs ? 100.0 * deep / p->n_recs : 0,
	    p->n_recs ? 100.0 * want_hits / p->n_recs : 0, frames ? (double)sym_ns / frames : 0);
}

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: bench_hostsample_probe none|perf|pyread|both HZ [-o DIR] "
				"-- CMD ARGS...\n");
		return 2;
	}
	const char *mode = argv[1];
	double hz = atof(argv[2]);
	struct probe p;
	memset(&p, 0, sizeof(p));
	p.py_want = getenv("PROBE_WANT");
	int i = 3;
	if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
		p.dir = argv[i + 1];
		i += 2;
	}
	if (i >= argc || strcmp(argv[i], "--") != 0)
		return 2;
	char **cmd = &argv[i + 1];
	int use_perf = strcmp(mode, "perf") == 0 || strcmp(mode, "both") == 0;
	int use_py = strcmp(mode, "pyread") == 0 || strcmp(mode, "both") == 0;
	p.recs = use_perf ? calloc(MAX_SAMPLES, sizeof(struct stack_rec)) : NULL;
	symbolizer_init(&p.z);

	int gate[2];
	if (pipe(gate) < 0)
		return 1;
	uint64_t start = mono_ns();
	pid_t pid = fork();
	if (pid == 0) {
		char c;
		close(gate[1]);
		if (read(gate[0], &c, 1) != 1)
			_exit(126);
		execvp(cmd[0], cmd);
		_exit(127);
	}
	close(gate[0]);
	struct perf_sampler ps;
	char err[GS_ERR_LEN] = "", res[2048] = "";
	int perf_ok = 0;
	if (use_perf) {
		perf_ok = perf_sampler_open(&ps, pid, hz, 1, 256, err) == 0;
		if (!perf_ok)
			printf("PERF refused: %s\n", err);
		else
			printf("PERF ok: kernel-mode samples %s\n",
			       ps.kernel_ip ? "kept" : "excluded");
	}
	if (write(gate[1], "g", 1) != 1)
		return 1;
	close(gate[1]);
	struct perf_handlers h = {on_sample, on_mmap, on_task, &p};
	struct py_reader pr;
	int py_state = 0; /* 0 not yet, 1 open, -1 failed */
	char py_err[GS_ERR_LEN] = "";
	uint64_t period = (uint64_t)(1e9 / (hz > 0 ? hz : 1000)), next = mono_ns() + period;
	uint64_t last_drain = 0, attach_deadline = mono_ns() + 10000000000ull;
	int status = 0;
	uint64_t last_maps = start;
	struct fw_list fw;
	memset(&fw, 0, sizeof(fw));
	struct py_thread_stack *st = calloc(PY_MAX_THREADS, sizeof(*st));
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		uint64_t now = mono_ns();
		if (perf_ok && now - last_drain > 10000000) {
			perf_sampler_drain(&ps, &h);
			last_drain = now;
		}
		if (now - last_maps > 1000000000ull) {
			save_maps(&p, pid, &fw);
			last_maps = now;
		}
		if (use_py && py_state == 0) {
			/* the interpreter is mapped once the exec'd loader ran */
			if (py_reader_open(&pr, pid, py_err) == 0)
				py_state = 1;
			else if (now > attach_deadline)
				py_state = -1;
		}
		if (use_py && py_state == 1) {
			int n = py_reader_sample(&pr, st, PY_MAX_THREADS);
			if (n > 0) {
				p.py_samples++;
				for (int t = 0; t < n; t++) {
					if (!st[t].is_main)
						continue;
					p.py_main_frames += st[t].n;
					p.py_empty += st[t].n == 0;
					/* the function the program works in, at any depth */
					for (uint32_t f = 0; p.py_want && f < st[t].n; f++) {
						struct py_code_info ci;
						if (py_reader_code(&pr, st[t].code[f], &ci) == 0 &&
						    strcmp(ci.name, p.py_want) == 0) {
							p.py_top_hits++;
							break;
						}
					}
				}
			}
		}
		/* sleep to the next tick */
		now = mono_ns();
		if (next > now) {
			struct timespec ts = {0, (long)(next - now)};
			nanosleep(&ts, NULL);
		}
		next += period;
		if (next < mono_ns())
			next = mono_ns() + period;
	}
	uint64_t wall = mono_ns() - start;
	int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	snprintf(res, sizeof(res), "RESULT mode=%s hz=%g rc=%d wall_s=%.3f", mode, hz, rc,
		 wall / 1e9);
	if (use_perf && perf_ok) {
		perf_sampler_drain(&ps, &h);
		add_pid(&p, (uint32_t)pid);
		size_t k = strlen(res);
		snprintf(res + k, sizeof(res) - k,
			 " perf_lost=%llu perf_throttled=%llu perf_truncated=%llu "
			 "drain_ns_per_sample=%.0f",
			 (unsigned long long)ps.stats.lost, (unsigned long long)ps.stats.throttled,
			 (unsigned long long)ps.stats.truncated,
			 ps.stats.samples ? (double)ps.stats.drain_ns / ps.stats.samples : 0);
		perf_sampler_close(&ps);
		perf_report(&p, mode, res, sizeof(res));
	} else if (use_perf) {
		strncat(res, " perf=refused", sizeof(res) - strlen(res) - 1);
	}
	if (use_py) {
		size_t k = strlen(res);
		if (py_state == 1) {
			snprintf(
			    res + k, sizeof(res) - k,
			    " py_version=%x py_samples=%llu py_torn=%llu py_us_per_sample=%.1f "
			    "py_reads_per_sample=%.1f py_main_depth=%.1f py_want_pct=%.1f",
			    pr.version_hex, (unsigned long long)p.py_samples,
			    (unsigned long long)pr.stats.torn,
			    pr.stats.samples ? pr.stats.ns / 1e3 / pr.stats.samples : 0,
			    pr.stats.samples ? (double)pr.stats.reads / pr.stats.samples : 0,
			    p.py_samples ? (double)p.py_main_frames / p.py_samples : 0,
			    p.py_samples ? 100.0 * p.py_top_hits / p.py_samples : 0);
			py_reader_close(&pr);
		} else {
			snprintf(res + k, sizeof(res) - k, " py=refused");
			printf("PYREAD refused: %s\n", py_err);
		}
	}
	for (size_t k = 0; k < fw.n; k++)
		printf("FRAMEWORK pid=%d %s %s (%s) %s\n", (int)pid, fw.fw[k].name,
		       fw.fw[k].version[0] ? fw.fw[k].version : "?",
		       fw_source_name(fw.fw[k].source), fw.fw[k].path);
	printf("%s\n", res);
	free(st);
	free(p.recs);
	symbolizer_release(&p.z);
	return rc;
}
