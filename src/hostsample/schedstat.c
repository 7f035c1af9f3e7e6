/*
 * schedstat.c - the program's threads' scheduler statistics (schedstat.h).
 */
#include "hostsample/schedstat.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/vec.h"

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int sched_parse(const char *buf, uint64_t *cpu_ns, uint64_t *wait_ns, uint64_t *slices)
{
	unsigned long long a, b, c;
	char end;
	if (sscanf(buf, "%llu %llu %llu%c", &a, &b, &c, &end) != 4 || end != '\n')
		return -1;
	*cpu_ns = a;
	*wait_ns = b;
	*slices = c;
	return 0;
}

int sched_init(struct sched_sampler *s)
{
	memset(s, 0, sizeof(*s));
	return u64map_init(&s->by_tid, 64);
}

/* the quota of one cgroup v2 directory in CPUs (ceiling), 0 when none */
static int quota_of(const char *dir)
{
	char path[4200], buf[64];
	snprintf(path, sizeof(path), "/sys/fs/cgroup%s/cpu.max", dir);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	long long q = 0, p = 0;
	int n = fgets(buf, sizeof(buf), f) ? sscanf(buf, "%lld %lld", &q, &p) : 0;
	fclose(f);
	return n == 2 && q > 0 && p > 0 ? (int)((q + p - 1) / p) : 0;
}

int sched_cpus_of(uint32_t pid, char *source, size_t n)
{
	cpu_set_t set;
	int cpus = 0;
	snprintf(source, n, "%s", "");
	if (sched_getaffinity((pid_t)pid, sizeof(set), &set) == 0) {
		cpus = CPU_COUNT(&set);
		snprintf(source, n, "affinity");
	}
	char path[64], line[4096];
	snprintf(path, sizeof(path), "/proc/%u/cgroup", pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return cpus;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3) != 0)
			continue; /* cgroup v2's unified line */
		char *dir = line + 3;
		dir[strcspn(dir, "\n")] = '\0';
		/* the smallest quota of the cgroup and its ancestors */
		for (;;) {
			int q = quota_of(dir);
			if (q > 0 && (cpus == 0 || q < cpus)) {
				cpus = q;
				snprintf(source, n, "cgroup quota");
			}
			char *slash = strrchr(dir, '/');
			if (!slash || slash == dir)
				break;
			*slash = '\0';
		}
	}
	fclose(f);
	return cpus;
}

static void open_thread(struct sched_sampler *s, uint32_t pid, uint32_t tid)
{
	uint64_t key = (uint64_t)pid << 32 | tid, i;
	if (u64map_get(&s->by_tid, key, &i))
		return;
	if (s->n_th >= SCHED_MAX_THREADS) {
		s->dropped++;
		return;
	}
	char path[64];
	snprintf(path, sizeof(path), "/proc/%u/task/%u/schedstat", pid, tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	struct sched_thread *t = VEC_PUSH(s->th, s->n_th, s->cap_th);
	if (!t || u64map_put(&s->by_tid, key, s->n_th - 1) < 0) {
		if (t)
			s->n_th--;
		close(fd);
		s->dropped++;
		return;
	}
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	t->fd = fd;
}

int sched_scan(struct sched_sampler *s, uint32_t pid)
{
	if (!s->cpus_online) {
		long on = sysconf(_SC_NPROCESSORS_ONLN);
		s->cpus_online = on > 0 ? (int)on : -1;
		s->cpus = sched_cpus_of(pid, s->cpus_source, sizeof(s->cpus_source));
	}
	char path[64];
	snprintf(path, sizeof(path), "/proc/%u/task", pid);
	DIR *d = opendir(path);
	if (!d)
		return 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		char *end;
		unsigned long tid = strtoul(e->d_name, &end, 10);
		if (*end || !tid || tid > UINT32_MAX)
			continue;
		open_thread(s, pid, (uint32_t)tid);
	}
	closedir(d);
	return 0;
}

static void row(struct sched_sampler *s, const struct sched_thread *t, int64_t ts)
{
	if (s->n_rows >= SCHED_MAX_ROWS) {
		s->dropped++;
		return;
	}
	struct sched_row *r = VEC_PUSH(s->rows, s->n_rows, s->cap_rows);
	if (!r) {
		s->dropped++;
		return;
	}
	*r = (struct sched_row){ts, t->pid, t->tid, t->cpu_ns, t->wait_ns, t->slices};
}

void sched_read(struct sched_sampler *s, int64_t ts)
{
	int64_t t0 = mono_ns();
	if (!s->ts_first)
		s->ts_first = ts;
	s->ts_last = ts;
	for (size_t i = 0; i < s->n_th; i++) {
		struct sched_thread *t = &s->th[i];
		if (t->fd < 0)
			continue;
		char buf[96];
		ssize_t n = pread(t->fd, buf, sizeof(buf) - 1, 0);
		s->reads++;
		uint64_t cpu, wait, slices;
		if (n <= 0) {
			close(t->fd); /* the thread is gone (ESRCH) */
			t->fd = -1;
			continue;
		}
		buf[n] = '\0';
		if (sched_parse(buf, &cpu, &wait, &slices) < 0)
			continue;
		if (t->have && cpu == t->cpu_ns && wait == t->wait_ns && slices == t->slices)
			continue; /* invariant 1 */
		if (!t->have) {
			t->cpu0_ns = cpu;
			t->wait0_ns = wait;
			t->ts0 = ts;
		}
		t->have = 1;
		t->cpu_ns = cpu;
		t->wait_ns = wait;
		t->slices = slices;
		t->ts = ts;
		row(s, t, ts);
	}
	s->read_ns += (uint64_t)(mono_ns() - t0);
}

void sched_release(struct sched_sampler *s)
{
	for (size_t i = 0; i < s->n_th; i++)
		if (s->th[i].fd >= 0)
			close(s->th[i].fd);
	free(s->th);
	free(s->rows);
	u64map_release(&s->by_tid);
	memset(s, 0, sizeof(*s));
}
