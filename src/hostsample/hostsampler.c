/*
 * hostsampler.c - the launcher's host sampling thread and the conversion of
 * its samples into trace rows (hostsampler.h).
 */
#include "hostsample/hostsampler.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "hostsample/frameworks.h"
#include "hostsample/hostdata.h"
#include "hostsample/perf.h"
#include "hostsample/pyframes.h"
#include "hostsample/schedstat.h"
#include "hostsample/symbolize.h"
#include "util/error.h"
#include "util/hmap.h"
#include "util/vec.h"

#define MAX_PROCS 4096
#define DRAIN_NS 10000000ull  /* perf rings drained every 10 ms */
#define MAPS_NS 1000000000ull /* frameworks re-read each second */
#define SCAN_NS 500000000ull  /* new processes looked for (no perf records) */
/* a process that was not CPython may exec one (a shell, pyenv's shim):
 * tried again after 20 ms, then twice as long each time, at most 1 s apart,
 * so that an exec read half-way (the old image's maps) costs little time */
#define RETRY_FIRST_NS 20000000ull
#define RETRY_MAX_NS 1000000000ull

struct raw {
	int64_t ts;
	uint32_t pid, tid;
	uint32_t off, n; /* into ips (perf) or codes (pyread) */
	uint32_t weight;
	uint8_t source;
	uint16_t proc; /* index into procs */
};

struct proc {
	uint32_t pid;
	int exited;
	struct py_reader *py;
	int py_state; /* 0 untried, 1 reading, -1 not CPython (retried), -2 refused */
	char py_why[GS_ERR_LEN];
	uint64_t py_next_try, py_backoff, maps_next;
	uint64_t perf_samples, py_samples;
	struct fw_list fw;
};

struct host_sampler {
	struct host_sampler_opts o;
	pid_t root;
	struct perf_sampler perf;
	int perf_on;
	char perf_why[GS_ERR_LEN];
	struct symbolizer z;
	struct proc *procs;
	size_t n_procs, cap_procs;
	struct raw *raws;
	size_t n_raws, cap_raws;
	uint64_t *vals; /* perf ips, or pyread code addresses */
	size_t n_vals, cap_vals;
	uint64_t dropped; /* invariant 2 */
	pthread_t thread;
	volatile int stop;
	int started;
	uint64_t next_scan;
	struct py_thread_stack *pystacks;
	struct sched_sampler sched; /* the threads' scheduler statistics */
	int sched_on;
	uint64_t sched_next, sched_scan_next;
	volatile unsigned char *ctl; /* the control file's page (opts.control), or NULL */
	int perf_paused, py_paused;  /* bench only (control_tick) */
};

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct proc *proc_of(struct host_sampler *s, uint32_t pid, int add)
{
	for (size_t i = s->n_procs; i-- > 0;)
		if (s->procs[i].pid == pid)
			return &s->procs[i];
	if (!add || s->n_procs >= MAX_PROCS)
		return NULL;
	struct proc *p = VEC_PUSH(s->procs, s->n_procs, s->cap_procs);
	if (p)
		p->pid = pid;
	return p;
}

/* one raw sample of n values; 0, or -1 when past the bounds (counted) */
static int store(struct host_sampler *s, struct proc *p, int64_t ts, uint32_t tid, uint8_t source,
		 uint32_t weight, const uint64_t *v, uint32_t n)
{
	if (s->n_raws >= HOST_MAX_SAMPLES || s->n_vals + n > HOST_MAX_FRAMES ||
	    vec_reserve((void **)&s->vals, &s->cap_vals, s->n_vals + n, sizeof(uint64_t)) < 0) {
		s->dropped++;
		return -1;
	}
	struct raw *r = VEC_PUSH(s->raws, s->n_raws, s->cap_raws);
	if (!r) {
		s->dropped++;
		return -1;
	}
	*r = (struct raw){ts, p->pid, tid,    (uint32_t)s->n_vals,
			  n,  weight, source, (uint16_t)(p - s->procs)};
	memcpy(s->vals + s->n_vals, v, sizeof(uint64_t) * n);
	s->n_vals += n;
	return 0;
}

/* --- perf records --------------------------------------------------------- */

/* System-wide events (perf.h) bring every process's records: only the
 * program's processes (the root and the children their FORK records name)
 * are kept. Per-task events bring only theirs. */
static void on_sample(void *ctx, const struct perf_sample_rec *r)
{
	struct host_sampler *s = ctx;
	struct proc *p = proc_of(s, r->pid, !s->perf.system_wide);
	if (!p || !r->n_ips)
		return; /* not the program's, or no user frame (a thread exiting) */
	p->perf_samples++;
	store(s, p, (int64_t)r->time_ns, r->tid, HOST_SRC_PERF, (uint32_t)r->period, r->ips,
	      r->n_ips);
}

static void on_mmap(void *ctx, const struct perf_mmap_rec *m)
{
	struct host_sampler *s = ctx;
	if (s->perf.system_wide && !proc_of(s, m->pid, 0))
		return;
	symbolizer_add_map(&s->z, m->pid, m->start, m->len, m->pgoff, m->filename);
}

static void on_task(void *ctx, const struct perf_task_rec *t)
{
	struct host_sampler *s = ctx;
	if (t->kind == PERF_TASK_EXIT && t->pid != t->tid)
		return; /* a thread, not the process */
	int adopt = !s->perf.system_wide;
	if (s->perf.system_wide && t->kind == PERF_TASK_FORK && t->pid != t->ppid) {
		/* a new process: the program's when its parent is */
		const struct proc *parent = proc_of(s, t->ppid, 0);
		adopt = parent && !parent->exited;
	}
	struct proc *p = proc_of(s, t->pid, adopt);
	if (!p)
		return;
	/* a forked process runs its parent's mappings until it execs */
	if (t->kind == PERF_TASK_FORK && t->pid != t->ppid)
		symbolizer_fork(&s->z, t->pid, t->ppid);
	else if (t->kind == PERF_TASK_EXEC)
		symbolizer_exec(&s->z, t->pid);
	if (t->kind == PERF_TASK_EXIT)
		p->exited = 1;
	if (t->kind == PERF_TASK_EXEC && p->py_state != 1) {
		/* a new program: CPython now? */
		p->py_state = 0;
		p->py_next_try = p->py_backoff = 0;
	}
}

/* --- without perf: find new processes under /proc ------------------------ */

static void scan_children(struct host_sampler *s)
{
	DIR *d = opendir("/proc");
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (*end || pid <= 0 || proc_of(s, (uint32_t)pid, 0))
			continue;
		char path[64], buf[512];
		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
		FILE *f = fopen(path, "re");
		if (!f)
			continue;
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = '\0';
		const char *rp = strrchr(buf, ')');
		int ppid = 0;
		if (rp && sscanf(rp + 1, " %*c %d", &ppid) == 1 && ppid > 0 &&
		    proc_of(s, (uint32_t)ppid, 0))
			proc_of(s, (uint32_t)pid, 1);
	}
	closedir(d);
}

/* --- the thread ---------------------------------------------------------- */

static void py_tick(struct host_sampler *s, struct proc *p, uint64_t now)
{
	if (p->py_state == 0 || (p->py_state == -1 && now >= p->py_next_try)) {
		if (!p->py && !(p->py = calloc(1, sizeof(*p->py))))
			return;
		if (py_reader_open(p->py, (pid_t)p->pid, p->py_why) == 0) {
			p->py_state = 1;
		} else {
			int refused = strstr(p->py_why, "refused") ||
				      strstr(p->py_why, "not supported") ||
				      strstr(p->py_why, "not available");
			p->py_state = refused ? -2 : -1;
			p->py_backoff = p->py_backoff ? p->py_backoff * 2 : RETRY_FIRST_NS;
			if (p->py_backoff > RETRY_MAX_NS)
				p->py_backoff = RETRY_MAX_NS;
			p->py_next_try = now + p->py_backoff;
			if (strstr(p->py_why, "cannot read /proc"))
				p->exited = 1;
		}
	}
	if (p->py_state != 1)
		return;
	int n = py_reader_sample(p->py, s->pystacks, PY_MAX_THREADS);
	if (n == -1) {
		p->exited = 1;
		return;
	}
	int64_t ts = (int64_t)mono_ns();
	uint32_t w = (uint32_t)(1e9 / s->o.hz);
	if (n > 0)
		p->py_samples++;
	for (int i = 0; i < n; i++) {
		const struct py_thread_stack *st = &s->pystacks[i];
		if (!st->n)
			continue;
		/* code ids: described while the process was there (pyframes.h) */
		store(s, p, ts, st->tid, HOST_SRC_PYREAD, w, st->code, st->n);
	}
}

/* The threads' scheduler statistics every sched_ms (schedstat.h), their
 * lists again every SCHED_SCAN_NS. */
static void sched_tick(struct host_sampler *s, uint64_t now)
{
	if (now >= s->sched_scan_next) {
		for (size_t i = 0; i < s->n_procs; i++)
			if (!s->procs[i].exited)
				sched_scan(&s->sched, s->procs[i].pid);
		s->sched_scan_next = now + SCHED_SCAN_NS;
	}
	sched_read(&s->sched, (int64_t)now);
	s->sched_next = now + (uint64_t)s->o.sched_ms * 1000000ull;
}

/* bench only: the control file's first byte says what samples: '1' (both
 * mechanisms), 'p' (perf events only), 'y' (the CPython reader only) or '0'
 * (nothing: perf's events disabled, inherited ones too, and no reader or
 * frameworks scan). The state reached is written into the second byte. */
static void control_tick(struct host_sampler *s)
{
	if (!s->ctl)
		return;
	unsigned char want = s->ctl[0];
	if (want != '0' && want != 'p' && want != 'y')
		want = '1';
	int perf = want == '1' || want == 'p', py = want == '1' || want == 'y';
	if (s->perf_on && perf != !s->perf_paused)
		perf_sampler_enable(&s->perf, perf);
	s->perf_paused = !perf;
	s->py_paused = !py;
	s->ctl[1] = want;
}

static int control_open(struct host_sampler *s, const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	void *m = MAP_FAILED;
	if (ftruncate(fd, 2) == 0 && pwrite(fd, "11", 2, 0) == 2)
		m = mmap(NULL, 2, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -1;
	s->ctl = m;
	return 0;
}

static void *run(void *arg)
{
	struct host_sampler *s = arg;
	struct perf_handlers h = {on_sample, on_mmap, on_task, s};
	uint64_t period = (uint64_t)(1e9 / s->o.hz), next = mono_ns(), last_drain = 0;
	while (!s->stop) {
		uint64_t now = mono_ns();
		if (s->perf_on && now - last_drain >= DRAIN_NS) {
			perf_sampler_drain(&s->perf, &h);
			last_drain = now;
		}
		control_tick(s);
		if (!s->perf_on && now >= s->next_scan) {
			scan_children(s);
			s->next_scan = now + SCAN_NS;
		}
		for (size_t i = 0; i < s->n_procs; i++) {
			struct proc *p = &s->procs[i];
			if (p->exited || (s->perf_paused && s->py_paused))
				continue;
			if (now >= p->maps_next) {
				char maps[64];
				snprintf(maps, sizeof(maps), "/proc/%u/maps", p->pid);
				frameworks_from_maps(&p->fw, maps);
				p->maps_next = now + MAPS_NS;
			}
			if (s->o.use_pyread && !s->py_paused)
				py_tick(s, p, now);
		}
		if (s->sched_on && now >= s->sched_next && !(s->perf_paused && s->py_paused))
			sched_tick(s, now);
		next += period;
		now = mono_ns();
		if (next <= now) {
			next = now + period; /* overran: skip ticks, no burst */
			continue;
		}
		struct timespec ts = {(time_t)((next - now) / 1000000000ull),
				      (long)((next - now) % 1000000000ull)};
		nanosleep(&ts, NULL);
	}
	return NULL;
}

int host_sampler_start(struct host_sampler **out, pid_t pid, const struct host_sampler_opts *o,
		       char *err)
{
	*out = NULL;
	struct host_sampler *s = calloc(1, sizeof(*s));
	if (!s)
		return error_set(err, "out of memory");
	s->o = *o;
	if (!(s->o.hz > 0 && s->o.hz <= 10000))
		s->o.hz = 1000;
	s->root = pid;
	symbolizer_init(&s->z);
	if (s->o.sched_ms > 0 && sched_init(&s->sched) == 0)
		s->sched_on = 1;
	s->pystacks = calloc(PY_MAX_THREADS, sizeof(*s->pystacks));
	if (!s->pystacks || !proc_of(s, (uint32_t)pid, 1)) {
		host_sampler_free(s);
		return error_set(err, "out of memory");
	}
	if (s->o.control && control_open(s, s->o.control) < 0) {
		int e = errno;
		host_sampler_free(s);
		return error_set(err, "cannot open the host sampling switch '%s': %s", o->control,
				 strerror(e));
	}
	if (s->o.use_perf) {
		double perf_hz = s->o.perf_div > 1 ? s->o.hz / s->o.perf_div : s->o.hz;
		if (perf_sampler_open(&s->perf, pid, perf_hz, 1, 0, s->perf_why) == 0)
			s->perf_on = 1;
	} else {
		snprintf(s->perf_why, sizeof(s->perf_why), "perf events not asked for");
	}
	if (pthread_create(&s->thread, NULL, run, s) != 0) {
		host_sampler_free(s);
		return error_set(err, "cannot start the host sampling thread");
	}
	s->started = 1;
	*out = s;
	return 0;
}

int host_sampler_perf_on(const struct host_sampler *s)
{
	return s && s->perf_on;
}

int host_sampler_perf_system_wide(const struct host_sampler *s)
{
	return s && s->perf_on && s->perf.system_wide;
}

const struct perf_stats *host_sampler_perf_stats(const struct host_sampler *s, int *max_stack)
{
	if (!s || !s->perf_on)
		return NULL;
	*max_stack = s->perf.max_stack;
	return &s->perf.stats;
}

const char *host_sampler_perf_status(const struct host_sampler *s)
{
	return s && !s->perf_on ? s->perf_why : "";
}

void host_sampler_stop(struct host_sampler *s)
{
	if (!s || !s->started)
		return;
	s->stop = 1;
	pthread_join(s->thread, NULL);
	s->started = 0;
	if (s->perf_on) {
		struct perf_handlers h = {on_sample, on_mmap, on_task, s};
		perf_sampler_drain(&s->perf, &h);
	}
}

void host_sampler_free(struct host_sampler *s)
{
	if (!s)
		return;
	host_sampler_stop(s);
	if (s->perf_on)
		perf_sampler_close(&s->perf);
	for (size_t i = 0; i < s->n_procs; i++) {
		if (s->procs[i].py) {
			py_reader_close(s->procs[i].py);
			free(s->procs[i].py);
		}
	}
	symbolizer_release(&s->z);
	if (s->sched_on)
		sched_release(&s->sched);
	if (s->ctl)
		munmap((void *)s->ctl, 2);
	free(s->procs);
	free(s->raws);
	free(s->vals);
	free(s->pystacks);
	free(s);
}

/* --- into the trace -------------------------------------------------------- */

static enum host_frame_kind kind_of(enum sym_kind k)
{
	switch (k) {
	case SYM_NATIVE:
		return HOST_FRAME_NATIVE;
	case SYM_PYTHON:
		return HOST_FRAME_PYTHON;
	case SYM_JIT:
		return HOST_FRAME_JIT;
	default:
		return HOST_FRAME_UNKNOWN;
	}
}

/* The frame id of value k of raw r (cached per process and address), 0
 * when out of memory; *interp: the frame lies in the file that holds the
 * process's CPython interpreter (the reader's py->elf). */
#define INTERP_BIT (1ull << 32)
static uint32_t frame_of(struct host_sampler *s, struct host_intern *hi, struct u64map *cache,
			 const struct raw *r, uint32_t k, int *interp)
{
	uint64_t v = s->vals[r->off + k];
	int ret = r->source == HOST_SRC_PERF && k > 0;
	uint64_t key = (v & ((1ull << 47) - 1)) | (uint64_t)r->proc << 47 | (uint64_t)ret << 63;
	uint64_t id;
	*interp = 0;
	if (u64map_get(cache, key, &id)) {
		*interp = (id & INTERP_BIT) != 0;
		return (uint32_t)id;
	}
	uint32_t f;
	const struct proc *p = &s->procs[r->proc];
	if (r->source == HOST_SRC_PERF) {
		struct sym_result y;
		symbolizer_lookup(&s->z, r->pid, v, ret, &y);
		f = host_frame(hi, kind_of(y.kind), y.name, y.module, y.file, 0);
		*interp = p->py_state == 1 && y.module && strcmp(y.module, p->py->elf) == 0;
	} else {
		struct py_code_info ci;
		py_reader_code(p->py, (uint32_t)v, &ci);
		f = host_frame(hi, HOST_FRAME_PYTHON, ci.name, "", ci.file, ci.first_line);
	}
	if (f && u64map_put(cache, key, f | (*interp ? INTERP_BIT : 0)) < 0)
		return 0;
	return f;
}

/* The scheduler statistics into t (host_sched rows, meta host_cpus), and
 * the threads busy enough to matter into keep (invariant 3): on a CPU for
 * HOST_BUSY_PCT of the time they were read or more. */
static int sched_to_trace(struct host_sampler *s, struct trace *t, int64_t mono_to_trace_ns,
			  struct u64map *keep)
{
	const struct sched_sampler *c = &s->sched;
	for (size_t i = 0; i < c->n_rows; i++) {
		const struct sched_row *r = &c->rows[i];
		struct trace_host_sched *h = trace_add_host_sched(t);
		if (!h)
			return -1;
		*h = (struct trace_host_sched){
		    r->ts + mono_to_trace_ns, r->pid, r->tid, r->cpu_ns, r->wait_ns, r->slices};
	}
	int64_t wall = c->ts_last - c->ts_first;
	for (size_t i = 0; wall > 0 && i < c->n_th; i++) {
		const struct sched_thread *x = &c->th[i];
		if (x->have &&
		    100.0 * (double)(x->cpu_ns - x->cpu0_ns) >= HOST_BUSY_PCT * (double)wall &&
		    u64map_put(keep, (uint64_t)x->pid << 32 | x->tid, 1) < 0)
			return -1;
	}
	char v[32];
	if (c->cpus > 0) {
		snprintf(v, sizeof(v), "%d", c->cpus);
		if (trace_set_meta(t, "host_cpus", v) < 0 ||
		    trace_set_meta(t, "host_cpus_source", c->cpus_source) < 0)
			return -1;
	}
	if (c->cpus_online > 0) {
		snprintf(v, sizeof(v), "%d", c->cpus_online);
		if (trace_set_meta(t, "host_cpus_online", v) < 0)
			return -1;
	}
	return 0;
}

static void add_status(char *buf, size_t cap, const char *what, const char *why)
{
	size_t n = strlen(buf);
	snprintf(buf + n, cap - n, "%s%s: %s", n ? "; " : "", what, why);
}

static int proc_rows(struct host_sampler *s, struct trace *t, struct proc *p, uint64_t kept,
		     uint64_t cost)
{
	int root = p->pid == (uint32_t)s->root;
	if (!root && !kept && !p->fw.n)
		return 0;
	char status[2 * GS_ERR_LEN] = "";
	if (!s->perf_on && s->o.use_perf)
		add_status(status, sizeof(status), "perf events", s->perf_why);
	if (p->py_state == -2)
		add_status(status, sizeof(status), "Python frames", p->py_why);
	if (root && s->dropped) {
		char b[96];
		snprintf(b, sizeof(b), "%llu samples beyond gpuscope's bound left out",
			 (unsigned long long)s->dropped);
		add_status(status, sizeof(status), "host sampling", b);
	}
	if (root && s->perf_on && s->perf.stats.lost) {
		char b[96];
		snprintf(b, sizeof(b), "the kernel lost %llu records",
			 (unsigned long long)s->perf.stats.lost);
		add_status(status, sizeof(status), "perf events", b);
	}
	int perf = s->perf_on && p->perf_samples, py = p->py_state == 1;
	struct trace_host_sampling *h = trace_add_host_sampling(t);
	if (!h)
		return -1;
	h->pid = p->pid;
	h->mechanism_id = trace_intern(t, perf && py ? "perf+pyread"
					  : perf     ? "perf"
					  : py	     ? "pyread"
						     : "");
	h->hz = s->o.hz;
	h->samples = kept;
	h->lost = root && s->perf_on ? s->perf.stats.lost : 0;
	h->cost_ns =
	    cost + (p->py ? p->py->stats.ns : 0) + (root && s->sched_on ? s->sched.read_ns : 0);
	h->status_id = trace_intern(t, status);
	for (size_t i = 0; i < p->fw.n; i++) {
		const struct framework *fw = &p->fw.fw[i];
		struct trace_framework *f = trace_add_framework(t);
		if (!f)
			return -1;
		*f = (struct trace_framework){
		    p->pid, trace_intern(t, fw->name), trace_intern(t, fw->version),
		    trace_intern(t, fw_source_name(fw->source)), trace_intern(t, fw->path)};
	}
	return 0;
}

long host_sampler_to_trace(struct host_sampler *s, struct trace *t, int64_t mono_to_trace_ns)
{
	uint64_t t0 = mono_ns();
	for (size_t i = 0; s->perf_on && i < s->n_procs; i++) {
		char path[64];
		snprintf(path, sizeof(path), "/tmp/perf-%u.map", s->procs[i].pid);
		if (symbolizer_load_perf_map(&s->z, s->procs[i].pid, path) >= 0 &&
		    s->o.perf_maps_ours)
			unlink(path);
	}
	struct u64map cuda, cache;
	struct host_intern hi;
	uint64_t *kept = calloc(s->n_procs ? s->n_procs : 1, sizeof(uint64_t));
	long added = 0;
	int ok = kept && u64map_init(&cuda, 0) == 0;
	if (ok && u64map_init(&cache, 0) < 0) {
		u64map_release(&cuda);
		ok = 0;
	}
	if (ok && host_intern_init(&hi, t) < 0) {
		u64map_release(&cuda);
		u64map_release(&cache);
		ok = 0;
	}
	if (!ok) {
		free(kept);
		return -1;
	}
	for (size_t i = 0; i < t->n_apis; i++)
		if (u64map_put(&cuda, (uint64_t)t->apis[i].pid << 32 | t->apis[i].tid, 1) < 0)
			goto oom;
	if (s->sched_on && sched_to_trace(s, t, mono_to_trace_ns, &cuda) < 0)
		goto oom;
	uint32_t frames[PERF_MAX_STACK > PY_MAX_DEPTH ? PERF_MAX_STACK : PY_MAX_DEPTH];
	for (size_t i = 0; i < s->n_raws; i++) {
		const struct raw *r = &s->raws[i];
		uint64_t one;
		if (!s->o.all_threads && r->tid != r->pid &&
		    !u64map_get(&cuda, (uint64_t)r->pid << 32 | r->tid, &one))
			continue; /* invariant 3 */
		uint32_t n = 0;
		for (uint32_t k = 0; k < r->n && n < sizeof(frames) / sizeof(frames[0]); k++) {
			int interp;
			uint32_t f = frame_of(s, &hi, &cache, r, k, &interp);
			if (!f)
				goto oom;
			frames[n++] = f;
			/* invariant 4: the reader holds the Python stack above it */
			if (interp && s->procs[r->proc].py_samples)
				break;
		}
		if (!n)
			continue; /* nothing to place it by */
		uint32_t stack = host_stack(&hi, frames, n);
		struct trace_host_sample *x = trace_add_host_sample(t);
		if (!stack || !x)
			goto oom;
		*x = (struct trace_host_sample){
		    r->ts + mono_to_trace_ns, r->pid, r->tid, stack, r->weight, r->source};
		kept[r->proc]++;
		added++;
	}
	uint64_t cost = (s->perf_on ? s->perf.stats.drain_ns : 0) + (mono_ns() - t0);
	for (size_t i = 0; i < s->n_procs; i++)
		if (proc_rows(s, t, &s->procs[i], kept[i], i == 0 ? cost : 0) < 0)
			goto oom;
	goto out;
oom:
	added = -1;
out:
	host_intern_release(&hi);
	u64map_release(&cuda);
	u64map_release(&cache);
	free(kept);
	return added;
}
