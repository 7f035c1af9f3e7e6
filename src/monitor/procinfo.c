/*
 * procinfo.c - a GPU process's command name, container id, pod UID and its
 * pod's names (procinfo.h), and the cache that looks each process up once.
 * The /proc/PID/cgroup forms read, with a real line of each in
 * tests/fixtures/cgroup/lines.tsv:
 *   v1, cgroupfs:        11:memory:/kubepods/burstable/pod<uuid>/<64 hex>
 *   v1 or v2, systemd:   0::/kubepods.slice/kubepods-besteffort.slice/
 *                        kubepods-besteffort-pod<uuid with _>.slice/cri-containerd-<64 hex>.scope
 *   containerd, systemd: .../kubepods-besteffort-pod<uuid with _>.slice:cri-containerd:<64 hex>
 *   Guaranteed QoS:      kubepods-pod<uuid with _>.slice, /kubepods/pod<uuid>/
 *   a static pod:        kubepods-burstable-pod<32 hex>.slice (its manifest's hash)
 *   CRI-O, docker:       .../crio-<64 hex>.scope, .../docker-<64 hex>.scope
 *   kind (nested):       /kubelet.slice/kubelet-kubepods.slice/...
 *   cgroup namespace:    0::/../../kubepods-besteffort-pod<...>.slice/...
 *   docker, no k8s:      0::/system.slice/docker-<64 hex>.scope, or /docker/<64 hex>
 */
#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "monitor/k8s.h"
#include "monitor/procinfo.h"
#include "util/vec.h"

/* the longest /proc/PID/cgroup line considered (cgroup v1 paths of nested
 * containers are a few hundred bytes) */
#define CGROUP_LINE_MAX 4096
#define UUID_LEN 36
#define STATIC_POD_UID_LEN 32 /* the kubelet's hash of a static pod's manifest */
#define CONTAINER_ID_LEN 64
/* /proc/PID/stat (proc(5)): starttime is field 22; fields 3 to 21 come
 * between it and "(comm)" */
#define STAT_FIELDS_BEFORE_STARTTIME 19

static int is_hex(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* The last run of exactly 64 hex digits in s, or NULL. */
static const char *last_hex64(const char *s)
{
	const char *found = NULL;
	for (const char *p = s; *p;) {
		if (!is_hex(*p)) {
			p++;
			continue;
		}
		const char *q = p;
		while (is_hex(*q))
			q++;
		if (q - p == CONTAINER_ID_LEN)
			found = p;
		p = q;
	}
	return found;
}

/* the end of a path element's pod part: ".slice", '/', ':' or the end */
static int pod_end(int c)
{
	return c == '.' || c == '/' || c == ':' || c == 0;
}

/* A pod UID right after "pod": a UUID (8-4-4-4-12, '-' or '_') or 32 hex
 * digits, ending the element; into dst ('_' turned into '-'). */
static int pod_uid_at(const char *p, char *dst)
{
	static const int dash[] = {8, 13, 18, 23};
	char out[UUID_LEN + 1];
	int i;
	for (i = 0; i < STATIC_POD_UID_LEN && is_hex(p[i]); i++)
		;
	if (i == STATIC_POD_UID_LEN && pod_end(p[i])) {
		memcpy(dst, p, STATIC_POD_UID_LEN);
		dst[STATIC_POD_UID_LEN] = 0;
		return 1;
	}
	for (i = 0; i < UUID_LEN; i++) {
		int want_dash = i == dash[0] || i == dash[1] || i == dash[2] || i == dash[3];
		char c = p[i];
		if (want_dash ? (c != '-' && c != '_') : !is_hex(c))
			return 0;
		out[i] = want_dash ? '-' : c;
	}
	if (!pod_end(p[UUID_LEN]))
		return 0;
	out[UUID_LEN] = 0;
	memcpy(dst, out, sizeof(out));
	return 1;
}

/* One cgroup line's container id and (under "kubepods") pod UID. */
static void from_line(const char *line, char *cid, char *uid)
{
	const char *h = last_hex64(line);
	cid[0] = uid[0] = 0;
	if (h) {
		memcpy(cid, h, CONTAINER_ID_LEN);
		cid[CONTAINER_ID_LEN] = 0;
	}
	if (!strstr(line, "kubepods"))
		return;
	for (const char *p = strstr(line, "pod"); p; p = strstr(p + 3, "pod"))
		if (pod_uid_at(p + 3, uid))
			return;
}

void proc_meta_from_cgroup(struct proc_meta *m, const char *text)
{
	char line[CGROUP_LINE_MAX], cid[CONTAINER_ID_LEN + 1], uid[UUID_LEN + 1];
	int have_cid = 0;
	m->container_id[0] = 0;
	m->pod_uid[0] = 0;
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");
		if (n < sizeof(line)) {
			memcpy(line, p, n);
			line[n] = 0;
			from_line(line, cid, uid);
			if (uid[0]) {
				snprintf(m->pod_uid, sizeof(m->pod_uid), "%s", uid);
				snprintf(m->container_id, sizeof(m->container_id), "%s", cid);
				return;
			}
			if (cid[0] && !have_cid) {
				snprintf(m->container_id, sizeof(m->container_id), "%s", cid);
				have_cid = 1;
			}
		}
		p += n;
		if (*p)
			p++;
	}
}

/* Reads at most cap-1 bytes of a small /proc file; "" when it cannot. */
static void read_small(const char *path, char *buf, size_t cap)
{
	ssize_t n = -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	buf[0] = 0;
	if (fd < 0)
		return;
	size_t off = 0;
	while (off + 1 < cap && (n = read(fd, buf + off, cap - 1 - off)) > 0)
		off += (size_t)n;
	buf[off] = 0;
	close(fd);
}

/* a command name with nothing a terminal or a label would obey */
static void set_comm(char *dst, size_t cap, char *s)
{
	for (char *c = s; *c; c++)
		if (!isprint((unsigned char)*c))
			*c = '?';
	snprintf(dst, cap, "%.31s", s);
}

void proc_meta_read(struct proc_meta *m, const char *proc_root, uint32_t pid)
{
	char path[256], buf[8192];
	const char *root = proc_root ? proc_root : "/proc";
	memset(m, 0, sizeof(*m));
	snprintf(path, sizeof(path), "%s/%u/comm", root, pid);
	read_small(path, buf, sizeof(m->comm));
	buf[strcspn(buf, "\n")] = 0;
	set_comm(m->comm, sizeof(m->comm), buf);
	snprintf(path, sizeof(path), "%s/%u/cgroup", root, pid);
	read_small(path, buf, sizeof(buf));
	proc_meta_from_cgroup(m, buf);
}

/* The command and start time from PROC/PID/stat; 0 when it cannot be read
 * (the process is gone). The command is between the first '(' and the
 * last ')': it may hold both. */
static int read_stat(const char *proc_root, uint32_t pid, char *comm, size_t cap,
		     unsigned long long *start)
{
	char path[4200], buf[1024];
	snprintf(path, sizeof(path), "%s/%u/stat", proc_root, pid);
	read_small(path, buf, sizeof(buf));
	char *l = strchr(buf, '('), *r = strrchr(buf, ')');
	if (!l || !r || r < l)
		return 0;
	*r = 0;
	set_comm(comm, cap, l + 1);
	char *p = r + 1;
	for (int f = 0; f < STAT_FIELDS_BEFORE_STARTTIME; f++) {
		p += strspn(p, " ");
		p += strcspn(p, " ");
	}
	char *end;
	*start = strtoull(p, &end, 10);
	return end != p;
}

void proc_cache_init(struct proc_cache *c, const char *proc_root, const char *root)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->root, sizeof(c->root), "%s", root ? root : "");
	if (proc_root)
		snprintf(c->proc_root, sizeof(c->proc_root), "%s", proc_root);
	else
		snprintf(c->proc_root, sizeof(c->proc_root), "%.4090s/proc", c->root);
}

void proc_cache_release(struct proc_cache *c)
{
	free(c->e);
	u64map_release(&c->idx);
	memset(c, 0, sizeof(*c));
}

/* A new process's facts: cgroup, then its pod's names. */
static void look_up(struct proc_cache *c, struct proc_meta *m, uint32_t pid, const char *comm)
{
	char path[4200], buf[8192];
	memset(m, 0, sizeof(*m));
	snprintf(m->comm, sizeof(m->comm), "%s", comm);
	snprintf(path, sizeof(path), "%s/%u/cgroup", c->proc_root, pid);
	read_small(path, buf, sizeof(buf));
	proc_meta_from_cgroup(m, buf);
	if (m->pod_uid[0] || m->container_id[0])
		k8s_names_find(&m->k8s, c->root[0] ? c->root : NULL, m->pod_uid, m->container_id);
	c->lookups++;
}

static void annotate_one(struct proc_cache *c, struct proc_meta *m, uint32_t pid)
{
	char comm[32];
	unsigned long long start;
	uint64_t i;
	if (!read_stat(c->proc_root, pid, comm, sizeof(comm), &start)) {
		/* gone (then nothing is read), or a tree without stat files:
		 * looked up, not kept */
		proc_meta_read(m, c->proc_root, pid);
		if (m->comm[0]) {
			snprintf(comm, sizeof(comm), "%s", m->comm);
			look_up(c, m, pid, comm);
		}
		return;
	}
	if (u64map_get(&c->idx, pid, &i) && c->e[i].start == start) {
		struct proc_cache_entry *e = &c->e[i];
		e->seen = c->round;
		snprintf(e->m.comm, sizeof(e->m.comm), "%s", comm);
		*m = e->m;
		return;
	}
	look_up(c, m, pid, comm);
	if (u64map_get(&c->idx, pid, &i)) { /* the pid of a new process */
		c->e[i].start = start;
		c->e[i].seen = c->round;
		c->e[i].m = *m;
		return;
	}
	struct proc_cache_entry *e = VEC_PUSH(c->e, c->n, c->cap);
	if (!e)
		return;
	if (u64map_put(&c->idx, pid, c->n - 1) < 0) {
		c->n--;
		return;
	}
	e->pid = pid;
	e->start = start;
	e->seen = c->round;
	e->m = *m;
}

/* Drops the entries unseen for PROC_CACHE_KEEP_ROUNDS rounds. */
static void forget(struct proc_cache *c)
{
	size_t k = 0;
	if (c->round < PROC_CACHE_KEEP_ROUNDS)
		return;
	for (size_t i = 0; i < c->n; i++)
		if (c->e[i].seen + PROC_CACHE_KEEP_ROUNDS > c->round)
			c->e[k++] = c->e[i];
	if (k == c->n)
		return;
	c->n = k;
	u64map_release(&c->idx);
	if (u64map_init(&c->idx, k) < 0)
		goto lost;
	for (size_t i = 0; i < k; i++)
		if (u64map_put(&c->idx, c->e[i].pid, i) < 0)
			goto lost;
	return;
lost: /* out of memory: start again empty */
	u64map_release(&c->idx);
	c->n = 0;
}

void proc_cache_annotate(struct proc_cache *c, struct mon_procs *procs, unsigned n)
{
	c->round++;
	for (unsigned d = 0; d < n; d++)
		for (unsigned i = 0; procs[d].g.valid && i < procs[d].g.n; i++)
			annotate_one(c, &procs[d].meta[i], procs[d].g.p[i].pid);
	forget(c);
}
