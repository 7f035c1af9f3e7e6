/*
 * procinfo.h - what the OS tells about a GPU process: its command name and,
 * from /proc/PID/cgroup, the container id and Kubernetes pod UID (the
 * attribution on a shared GPU that dcgm-exporter lacks), and its pod's
 * names from the kubelet's log directories (k8s.h). Read-only, bounded
 * reads of /proc; a process that is gone leaves the fields "".
 *
 * A process is looked up once: struct proc_cache keeps each pid's facts
 * while the pid is listed, checked against the process's start time (a
 * pid the kernel gave to a new process is looked up again), so a round
 * costs one read of /proc/PID/stat per process (its command, which a
 * process may change, and its start time).
 */
#ifndef GPUSCOPE_MONITOR_PROCINFO_H
#define GPUSCOPE_MONITOR_PROCINFO_H

#include <stddef.h>
#include <stdint.h>

#include "monitor/log.h"
#include "util/hmap.h"

/* Fills m's command, container id and pod UID from PROC_ROOT/PID/{comm,
 * cgroup} (proc_root NULL: "/proc"); no names. */
void proc_meta_read(struct proc_meta *m, const char *proc_root, uint32_t pid);
/*
 * The container id and pod UID found in a /proc/PID/cgroup text, from the
 * first line under the kubelet's "kubepods" cgroup that names a pod (else
 * the first that names a container): the container id is the line's last
 * run of exactly 64 hex digits (docker, containerd, CRI-O; cgroup v1 or v2;
 * cgroupfs or systemd naming; nested: the innermost), the pod UID "pod" and
 * a UUID (systemd's '_' turned back into '-') or, for a static pod, 32 hex
 * digits. Paths relative to the reader's cgroup namespace ("/../..") read
 * the same. tests/fixtures/cgroup holds the real lines this is tested on.
 */
void proc_meta_from_cgroup(struct proc_meta *m, const char *text);

/* a pid unseen for this many rounds is forgotten (a list read once
 * without it, a process briefly off the GPU, costs no new lookup) */
#define PROC_CACHE_KEEP_ROUNDS 8

struct proc_cache_entry {
	uint32_t pid;
	unsigned long long start; /* /proc/PID/stat's starttime (ticks after boot) */
	uint64_t seen;		  /* the last round that listed it */
	struct proc_meta m;
};

struct proc_cache {
	char proc_root[4096];
	char root[4096]; /* the kubelet's directories under it; "" for / */
	struct proc_cache_entry *e;
	size_t n, cap;
	struct u64map idx; /* pid -> index in e */
	uint64_t round;
	uint64_t lookups; /* processes whose cgroup and names were read */
};

/* proc_root: NULL for ROOT/proc; root: NULL for /. */
void proc_cache_init(struct proc_cache *c, const char *proc_root, const char *root);
void proc_cache_release(struct proc_cache *c);
/*
 * One round: annotates the process lists of n devices (meta[i] for p[i];
 * a process on several GPUs is looked up once) and forgets the pids
 * unseen for PROC_CACHE_KEEP_ROUNDS rounds. Out of memory, a process is
 * looked up without being kept, and so is one whose /proc/PID/stat cannot
 * be read while its comm can (fixture trees without stat files).
 */
void proc_cache_annotate(struct proc_cache *c, struct mon_procs *procs, unsigned n);

#endif
