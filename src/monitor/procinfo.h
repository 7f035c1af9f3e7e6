/*
 * procinfo.h - what the OS tells about a GPU process: its command name and,
 * from /proc/PID/cgroup, the container id and Kubernetes pod UID (the
 * attribution on a shared GPU that dcgm-exporter lacks). Read-only, bounded
 * reads of /proc; a process that is gone leaves the fields "".
 */
#ifndef GPUSCOPE_MONITOR_PROCINFO_H
#define GPUSCOPE_MONITOR_PROCINFO_H

#include <stdint.h>

#include "monitor/log.h"

/* Fills m from PROC_ROOT/PID/{comm,cgroup} (proc_root NULL: "/proc"). */
void proc_meta_read(struct proc_meta *m, const char *proc_root, uint32_t pid);
/*
 * The container id (64 hex digits: docker, containerd, CRI-O, under cgroup
 * v1 or v2, cgroupfs or systemd naming) and pod UID ("pod" + a UUID, with
 * systemd's '_' turned back into '-') found in a /proc/PID/cgroup text.
 */
void proc_meta_from_cgroup(struct proc_meta *m, const char *text);
/* Annotates every process of procs (meta[i] for p[i]). */
void mon_procs_annotate(struct mon_procs *procs, const char *proc_root);

#endif
