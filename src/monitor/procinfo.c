/*
 * procinfo.c - a GPU process's command name, container id and pod UID
 * (procinfo.h). Formats seen in /proc/PID/cgroup:
 *   cgroup v1, cgroupfs:  11:memory:/kubepods/burstable/pod<uuid>/<64 hex>
 *   cgroup v2, systemd:   0::/kubepods.slice/kubepods-besteffort.slice/
 *                         kubepods-besteffort-pod<uuid with _>.slice/cri-containerd-<64 hex>.scope
 *   docker, no k8s:       0::/system.slice/docker-<64 hex>.scope, or /docker/<64 hex>
 *   CRI-O:                .../crio-<64 hex>.scope
 */
#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "monitor/procinfo.h"

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
		if (q - p == 64)
			found = p;
		p = q;
	}
	return found;
}

/* "pod" followed by a 36-character UUID (8-4-4-4-12, '-' or '_'). */
static int pod_uuid_at(const char *p, char *dst)
{
	static const int dash[] = {8, 13, 18, 23};
	char out[37];
	for (int i = 0; i < 36; i++) {
		int want_dash = i == dash[0] || i == dash[1] || i == dash[2] || i == dash[3];
		char c = p[i];
		if (want_dash ? (c != '-' && c != '_') : !is_hex(c))
			return 0;
		out[i] = want_dash ? '-' : c;
	}
	out[36] = 0;
	memcpy(dst, out, sizeof(out));
	return 1;
}

void proc_meta_from_cgroup(struct proc_meta *m, const char *text)
{
	const char *h = last_hex64(text);
	m->container_id[0] = 0;
	m->pod_uid[0] = 0;
	if (h) {
		memcpy(m->container_id, h, 64);
		m->container_id[64] = 0;
	}
	for (const char *p = strstr(text, "pod"); p; p = strstr(p + 3, "pod"))
		if (pod_uuid_at(p + 3, m->pod_uid))
			break;
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

void proc_meta_read(struct proc_meta *m, const char *proc_root, uint32_t pid)
{
	char path[256], buf[8192];
	const char *root = proc_root ? proc_root : "/proc";
	memset(m, 0, sizeof(*m));
	snprintf(path, sizeof(path), "%s/%u/comm", root, pid);
	read_small(path, buf, sizeof(m->comm));
	buf[strcspn(buf, "\n")] = 0;
	for (char *c = buf; *c; c++)
		if (!isprint((unsigned char)*c))
			*c = '?';
	snprintf(m->comm, sizeof(m->comm), "%.31s", buf);
	snprintf(path, sizeof(path), "%s/%u/cgroup", root, pid);
	read_small(path, buf, sizeof(buf));
	proc_meta_from_cgroup(m, buf);
}

void mon_procs_annotate(struct mon_procs *procs, const char *proc_root)
{
	for (unsigned i = 0; i < procs->g.n; i++)
		proc_meta_read(&procs->meta[i], proc_root, procs->g.p[i].pid);
}
