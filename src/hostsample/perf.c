/*
 * perf.c - the perf_event_open sampler (perf.h): per-CPU inherited
 * software-clock events, ring buffers drained by the launcher.
 */
#include "hostsample/perf.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "util/error.h"
#include "util/knobs.h"

#define SAMPLE_TYPE                                                                                \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |                   \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)

static long perf_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static int read_int_file(const char *path, int *v)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	int ok = fscanf(f, "%d", v) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

const char *perf_refusal_reason(int e, char *buf, size_t cap)
{
	int paranoid = 99;
	int have = read_int_file("/proc/sys/kernel/perf_event_paranoid", &paranoid) == 0;
	switch (e) {
	case ENOSYS:
		snprintf(buf, cap,
			 "perf_event_open is not available (ENOSYS: a kernel without "
			 "CONFIG_PERF_EVENTS, or a seccomp filter)");
		break;
	case EACCES:
	case EPERM:
		if (have && paranoid > 2)
			snprintf(buf, cap,
				 "perf_event_open refused (%s): kernel.perf_event_paranoid is %d; "
				 "2 or lower allows sampling one's own processes",
				 e == EACCES ? "EACCES" : "EPERM", paranoid);
		else if (have)
			snprintf(buf, cap,
				 "perf_event_open refused (%s) with kernel.perf_event_paranoid %d: "
				 "a seccomp filter or a container without CAP_PERFMON (docker's "
				 "default profile refuses it)",
				 e == EACCES ? "EACCES" : "EPERM", paranoid);
		else
			snprintf(buf, cap,
				 "perf_event_open refused (%s) and /proc/sys/kernel/"
				 "perf_event_paranoid is unreadable (a container?)",
				 e == EACCES ? "EACCES" : "EPERM");
		break;
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		snprintf(buf, cap,
			 "perf_event_open: the software CPU clock event is not supported "
			 "here (%s)",
			 strerror(e));
		break;
	case ESRCH:
		snprintf(buf, cap, "perf_event_open: the process ended before sampling started");
		break;
	case EMFILE:
	case ENFILE:
		snprintf(buf, cap, "perf_event_open: out of file descriptors (one per CPU needed)");
		break;
	default:
		snprintf(buf, cap, "perf_event_open failed: %s", strerror(e));
		break;
	}
	return buf;
}

/* system_wide: one CPU clock per CPU for every task (pid -1), no per-task
 * context; else a task clock per CPU that follows pid and its children */
static void attr_init(struct perf_event_attr *a, uint64_t period, int enable_on_exec,
		      int exclude_kernel, int max_stack, int system_wide)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = system_wide ? PERF_COUNT_SW_CPU_CLOCK : PERF_COUNT_SW_TASK_CLOCK;
	a->sample_period = period;
	a->sample_type = SAMPLE_TYPE;
	a->disabled = enable_on_exec && !system_wide ? 1 : 0;
	a->enable_on_exec = enable_on_exec && !system_wide ? 1 : 0;
	a->inherit = system_wide ? 0 : 1;
	a->exclude_idle = system_wide ? 1 : 0; /* the idle task is nobody's */
	a->exclude_kernel = exclude_kernel ? 1 : 0;
	a->exclude_hv = 1;
	a->exclude_callchain_kernel = 1; /* only the user stack is walked */
	a->mmap = 1;
	a->mmap2 = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->sample_max_stack = (uint16_t)max_stack;
	a->wakeup_events = 0; /* drained by polling, never woken */
}

static void close_all(struct perf_sampler *s)
{
	for (int i = 0; s->fds && i < s->n_cpus; i++) {
		if (s->rings && s->rings[i])
			munmap(s->rings[i], s->ring_bytes);
		if (s->fds[i] >= 0)
			close(s->fds[i]);
	}
	free(s->fds);
	free(s->rings);
	free(s->heads);
	free(s->scratch);
	s->fds = NULL;
	s->rings = NULL;
	s->heads = NULL;
	s->scratch = NULL;
	s->n_cpus = 0;
}

int perf_sampler_open(struct perf_sampler *s, pid_t pid, double hz, int enable_on_exec,
		      unsigned ring_pages, char *err)
{
	memset(s, 0, sizeof(*s));
	if (!(hz > 0 && hz <= 10000))
		return error_set(err, "host sampling rate %g Hz out of range (0, 10000]", hz);
	if (ring_pages == 0)
		ring_pages = 64;
	if (ring_pages & (ring_pages - 1))
		return error_set(err, "ring pages %u is not a power of two", ring_pages);
	long conf = sysconf(_SC_NPROCESSORS_CONF);
	long page = sysconf(_SC_PAGESIZE);
	if (conf < 1)
		conf = 1;
	s->n_cpus = (int)conf;
	s->period_ns = (uint64_t)(1e9 / hz);
	s->max_stack = PERF_MAX_STACK;
	const char *ms = getenv(KNOB(HOST_STACK));
	if (ms && *ms) {
		char *end;
		long v = strtol(ms, &end, 10);
		if (*end || v < 1 || v > PERF_MAX_STACK)
			return error_set(err, "%s=%s: not a frame count in 1..%d", KNOB(HOST_STACK),
					 ms, PERF_MAX_STACK);
		s->max_stack = (int)v;
	}
	s->ring_bytes = (size_t)(ring_pages + 1) * (size_t)page;
	s->fds = malloc(sizeof(int) * (size_t)conf);
	s->rings = calloc((size_t)conf, sizeof(void *));
	s->heads = calloc((size_t)conf, sizeof(uint64_t));
	s->scratch_cap = 64 * 1024;
	s->scratch = malloc(s->scratch_cap);
	if (!s->fds || !s->rings || !s->heads || !s->scratch) {
		close_all(s);
		return error_set(err, "out of memory");
	}
	for (int i = 0; i < s->n_cpus; i++)
		s->fds[i] = -1;
	/* kernel-mode samples (time in system calls, the CUDA driver's ioctls)
	 * need perf_event_paranoid <= 1 or CAP_PERFMON; else user mode only */
	s->kernel_ip = 1;
	/* Per-CPU events of every task where allowed (paranoid <= 0, or
	 * CAP_PERFMON / root), filtered to the program's processes by the
	 * caller: a per-task event is switched in and out with each of the
	 * program's context switches (the task clock's timer is armed and
	 * cancelled each time, a VM exit in a guest; bench/perf-switch-cost.c:
	 * +4.7-4.9 us a thread ping-pong round trip on the build VM, none
	 * system-wide), which a program of many threads handing work to each
	 * other (XLA: ~60 switches a step) pays on its critical path.
	 * GPUSCOPE_HOST_PERF_SCOPE=task keeps the per-task events. */
	const char *scope = getenv(KNOB(HOST_PERF_SCOPE));
	s->system_wide = !(scope && strcmp(scope, "task") == 0);
	int opened = 0, first_errno = 0;
	for (int i = 0; i < s->n_cpus; i++) {
		struct perf_event_attr a;
		attr_init(&a, s->period_ns, enable_on_exec, !s->kernel_ip, s->max_stack,
			  s->system_wide);
		long fd = perf_open(&a, s->system_wide ? -1 : pid, i);
		if (fd < 0 && s->system_wide && opened == 0 && errno != ENODEV) {
			/* not allowed system-wide: the program's own events */
			s->system_wide = 0;
			attr_init(&a, s->period_ns, enable_on_exec, !s->kernel_ip, s->max_stack, 0);
			fd = perf_open(&a, pid, i);
		}
		if (fd < 0 && (errno == EACCES || errno == EPERM) && s->kernel_ip && opened == 0) {
			s->kernel_ip = 0;
			attr_init(&a, s->period_ns, enable_on_exec, 1, s->max_stack, 0);
			fd = perf_open(&a, pid, i);
		}
		if (fd < 0) {
			/* an offline CPU: the others still sample */
			if (errno == ENODEV || errno == EINVAL) {
				if (!first_errno)
					first_errno = errno;
				continue;
			}
			int e = errno;
			char why[GS_ERR_LEN];
			close_all(s);
			return error_set(err, "%s", perf_refusal_reason(e, why, sizeof(why)));
		}
		s->fds[i] = (int)fd;
		void *ring =
		    mmap(NULL, s->ring_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd, 0);
		if (ring == MAP_FAILED) {
			int e = errno;
			close_all(s);
			return error_set(err,
					 "cannot map the perf ring buffer: %s (perf_event_mlock_kb "
					 "too small?)",
					 strerror(e));
		}
		s->rings[i] = ring;
		opened++;
	}
	if (!opened) {
		char why[GS_ERR_LEN];
		close_all(s);
		return error_set(
		    err, "%s",
		    perf_refusal_reason(first_errno ? first_errno : ENODEV, why, sizeof(why)));
	}
	return 0;
}

int perf_sampler_enable(struct perf_sampler *s, int on)
{
	int rc = 0;
	for (int i = 0; i < s->n_cpus; i++)
		if (s->fds[i] >= 0 &&
		    ioctl(s->fds[i], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0) < 0)
			rc = -1;
	return rc;
}

/* sample_id_all trailer of non-sample records: pid/tid, time, cpu */
struct id_trailer {
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
};

static uint64_t trailer_time(const unsigned char *end, size_t avail)
{
	struct id_trailer t;
	if (avail < sizeof(t))
		return 0;
	memcpy(&t, end - sizeof(t), sizeof(t));
	return t.time;
}

static int parse_sample(struct perf_sampler *s, const unsigned char *p, size_t n,
			const struct perf_event_header *h, const struct perf_handlers *hd)
{
	struct {
		uint64_t ip;
		uint32_t pid, tid;
		uint64_t time;
		uint32_t cpu, res;
		uint64_t period;
		uint64_t nr;
	} f;
	if (n < sizeof(f))
		return -1;
	memcpy(&f, p, sizeof(f));
	if (f.nr > (n - sizeof(f)) / 8)
		return -1;
	uint64_t ips[PERF_MAX_STACK + 8];
	uint32_t k = 0;
	int user = 0;
	for (uint64_t i = 0; i < f.nr; i++) {
		uint64_t ip;
		memcpy(&ip, p + sizeof(f) + i * 8, 8);
		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			user = ip == (uint64_t)PERF_CONTEXT_USER;
			continue;
		}
		if (user && k < PERF_MAX_STACK)
			ips[k++] = ip;
	}
	if (k >= (uint32_t)s->max_stack)
		s->stats.truncated++;
	s->stats.frames += k;
	struct perf_sample_rec r = {
	    .pid = f.pid,
	    .tid = f.tid,
	    .cpu = f.cpu,
	    .time_ns = f.time,
	    .period = f.period,
	    .in_kernel = (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL,
	    .n_ips = k,
	    .ips = ips,
	};
	s->stats.samples++;
	if (hd && hd->sample)
		hd->sample(hd->ctx, &r);
	return 1;
}

int perf_parse_record(struct perf_sampler *s, const void *rec, size_t len,
		      const struct perf_handlers *hd)
{
	struct perf_event_header h;
	if (len < sizeof(h))
		return -1;
	memcpy(&h, rec, sizeof(h));
	if (h.size < sizeof(h) || h.size > len)
		return -1;
	const unsigned char *p = (const unsigned char *)rec + sizeof(h);
	size_t n = h.size - sizeof(h);
	switch (h.type) {
	case PERF_RECORD_SAMPLE:
		return parse_sample(s, p, n, &h, hd);
	case PERF_RECORD_MMAP2: {
		struct {
			uint32_t pid, tid;
			uint64_t addr, len, pgoff;
			uint32_t maj, min;
			uint64_t ino, ino_generation;
			uint32_t prot, flags;
		} m;
		if (n < sizeof(m) + sizeof(struct id_trailer))
			return -1;
		memcpy(&m, p, sizeof(m));
		size_t fn_cap = n - sizeof(m) - sizeof(struct id_trailer);
		const char *fn = (const char *)p + sizeof(m);
		if (!memchr(fn, '\0', fn_cap))
			return -1;
		struct perf_mmap_rec r = {
		    m.pid, m.tid, m.addr, m.len, m.pgoff, trailer_time(p + n, n), fn};
		if (hd && hd->mmap)
			hd->mmap(hd->ctx, &r);
		return 0;
	}
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: {
		struct {
			uint32_t pid, ppid, tid, ptid;
			uint64_t time;
		} t;
		if (n < sizeof(t))
			return -1;
		memcpy(&t, p, sizeof(t));
		struct perf_task_rec r = {h.type == PERF_RECORD_FORK ? PERF_TASK_FORK
								     : PERF_TASK_EXIT,
					  t.pid,
					  t.ppid,
					  t.tid,
					  t.ptid,
					  t.time,
					  NULL};
		if (hd && hd->task)
			hd->task(hd->ctx, &r);
		return 0;
	}
	case PERF_RECORD_COMM: {
		if (!(h.misc & PERF_RECORD_MISC_COMM_EXEC))
			return 0;
		if (n < 8 + sizeof(struct id_trailer))
			return -1;
		uint32_t ids[2];
		memcpy(ids, p, 8);
		const char *comm = (const char *)p + 8;
		if (!memchr(comm, '\0', n - 8 - sizeof(struct id_trailer)))
			return -1;
		struct perf_task_rec r = {PERF_TASK_EXEC,	  ids[0], 0, ids[1], 0,
					  trailer_time(p + n, n), comm};
		if (hd && hd->task)
			hd->task(hd->ctx, &r);
		return 0;
	}
	case PERF_RECORD_LOST: {
		uint64_t v[2];
		if (n < sizeof(v))
			return -1;
		memcpy(v, p, sizeof(v));
		s->stats.lost += v[1];
		return 0;
	}
	case PERF_RECORD_THROTTLE:
		s->stats.throttled++;
		return 0;
	default:
		return 0;
	}
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* What a walk of a ring hands on: every record; the FORK records alone,
 * leaving the tail (a system-wide drain's first pass); all but them (its
 * second: each record is handed on once) */
enum walk { WALK_ALL, WALK_FORKS, WALK_NO_FORKS };

/* Walks ring i from its tail to head. */
static void walk_ring(struct perf_sampler *s, int i, uint64_t head, enum walk what,
		      const struct perf_handlers *hd)
{
	int forks_only = what == WALK_FORKS;
	struct perf_event_mmap_page *mp = s->rings[i];
	unsigned char *data = (unsigned char *)mp + mp->data_offset;
	uint64_t size = mp->data_size;
	uint64_t tail = mp->data_tail;
	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		uint64_t off = tail % size;
		for (size_t b = 0; b < sizeof(h); b++)
			((unsigned char *)&h)[b] = data[(off + b) % size];
		if (h.size < sizeof(h) || tail + h.size > head) {
			if (!forks_only)
				s->stats.bad++;
			tail = head; /* cannot resynchronise: skip what is there */
			break;
		}
		if ((forks_only && h.type != PERF_RECORD_FORK) ||
		    (what == WALK_NO_FORKS && h.type == PERF_RECORD_FORK)) {
			tail += h.size;
			continue;
		}
		const unsigned char *rec = data + off;
		if (off + h.size > size) {
			/* wraps around the ring end: copy it out */
			if (h.size > s->scratch_cap) {
				tail += h.size;
				s->stats.bad++; /* (a FORK's once: the second pass skips it) */
				continue;
			}
			size_t first = (size_t)(size - off);
			memcpy(s->scratch, data + off, first);
			memcpy(s->scratch + first, data, h.size - first);
			rec = s->scratch;
		}
		if (perf_parse_record(s, rec, h.size, hd) < 0)
			s->stats.bad++;
		tail += h.size;
	}
	if (!forks_only)
		__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
}

long perf_sampler_drain(struct perf_sampler *s, const struct perf_handlers *hd)
{
	uint64_t t0 = mono_ns();
	uint64_t before = s->stats.samples;
	if (!s->rings)
		return 0;
	/* every ring's head first: the passes below stop at the same records */
	for (int i = 0; i < s->n_cpus; i++)
		s->heads[i] =
		    s->rings[i]
			? __atomic_load_n(&((struct perf_event_mmap_page *)s->rings[i])->data_head,
					  __ATOMIC_ACQUIRE)
			: 0;
	/* System-wide, a child's first records (its exec's mappings, its
	 * samples) can be in a ring drained before the one holding its FORK:
	 * the forks of every ring up to the same heads are handed on first, so
	 * that the caller knows the child when its other records come. */
	for (int i = 0; s->system_wide && i < s->n_cpus; i++)
		if (s->rings[i])
			walk_ring(s, i, s->heads[i], WALK_FORKS, hd);
	for (int i = 0; i < s->n_cpus; i++)
		if (s->rings[i])
			walk_ring(s, i, s->heads[i], s->system_wide ? WALK_NO_FORKS : WALK_ALL, hd);
	s->stats.drain_ns += mono_ns() - t0;
	return (long)(s->stats.samples - before);
}

void perf_sampler_close(struct perf_sampler *s)
{
	close_all(s);
}
