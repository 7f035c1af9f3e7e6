/*
 * log.h - the monitor log: JSON lines, append-only, one line per record,
 * each line written with one write(2) and the file synced after each
 * round, so a reader gets every round up to the last one written even
 * after SIGKILL or a power loss (a cut last line is named and skipped).
 *
 * Format (docs/monitor.md), gpuscope.monitor.v1:
 *   {"t":"header","schema":"gpuscope.monitor.v1","version":V,"host":H,"start_ns":N,
 *    "interval_s":S,"gpus":N}
 *   {"t":"gpu","gpu":I,"vendor":"nvidia"|"amd"|"intel","name":...,"uuid":...,...}
 *                                                       one per device (static info)
 *   {"t":"s","ts":N,"gpu":I,"v":{"gpu_util":100,...},"procs":[{"pid":P,...}],
 *    "mig":[{"gi":1,"ci":0,"profile":"1g.18gb","mig_uuid":"MIG-...","v":{...}}]}
 * "v" keys are the registry's trace names (gpu/metrics.h); an unknown value
 * is absent, never 0. A process: "pid", "mem", "sm", "memu", "gi", "comm",
 * "container" (its container id), "pod" (its pod UID) and its pod's names
 * "k8s_ns", "k8s_pod", "k8s_container", each absent when unknown. "procs" is absent when the list
 * was not read, [] when it is known to be empty. "mig" (the GPU's MIG instances, each with its own
 * "v") is absent when the GPU is not in MIG mode, so a log without it (an
 * older one) reads as one without MIG, and an older reader skips the key.
 * `monitor --format jsonl` prints the same lines.
 */
#ifndef GPUSCOPE_MONITOR_LOG_H
#define GPUSCOPE_MONITOR_LOG_H

#include <stdint.h>
#include <stdio.h>

#include "gpu/gpu.h"
#include "util/hmap.h"

#define MONLOG_SCHEMA "gpuscope.monitor.v1"
#define MONLOG_MAX_LINE (1u << 20)
#define MONLOG_MAX_SAMPLES 500000u /* sample lines a reader keeps (~200 MiB) */
#define MONLOG_MAX_MIGS 500000u	   /* MIG instance readings a reader keeps (~250 MiB) */
#define MONLOG_MAX_NAMES 65536u	   /* distinct pods' names a reader keeps (~24 MiB) */

/* A Kubernetes pod's names, as the kubelet names its log directories
 * (monitor/k8s.h); each "" when unknown. The sizes are the API's limits: a
 * namespace and a container name are DNS-1123 labels, a pod name a
 * DNS-1123 subdomain. */
#define K8S_LABEL_MAX 63
#define K8S_SUBDOMAIN_MAX 253
struct k8s_names {
	char ns[K8S_LABEL_MAX + 1];
	char pod[K8S_SUBDOMAIN_MAX + 1];
	char container[K8S_LABEL_MAX + 1];
};

/* Extra facts about a process that the OS tells, not the GPU vendor. */
struct proc_meta {
	char comm[32];
	char container_id[72]; /* "" when not in a container */
	char pod_uid[40];      /* "" when not in a Kubernetes pod */
	struct k8s_names k8s;  /* its pod's names; "" when not in a pod or unknown */
};

/* A process list with its per-process facts. */
struct mon_procs {
	struct gpu_procs g;
	struct proc_meta meta[GPU_MAX_PROCS];
};

/* ---- writing ---- */

/* One log line for each call, into a malloc'd string (*out, *len). */
int monlog_fmt_header(char **out, size_t *len, const char *version, const char *host,
		      int64_t start_ns, double interval_s, unsigned n_dev);
int monlog_fmt_gpu(char **out, size_t *len, unsigned dev, const struct gpu_static *st);
/* procs, migs: NULL (or not valid) when not read; migs is written only
 * when valid (the GPU is in MIG mode). */
int monlog_fmt_sample(char **out, size_t *len, int64_t ts, unsigned dev, const struct gpu_sample *s,
		      const struct mon_procs *procs, const struct gpu_migs *migs);

struct monlog_writer {
	int fd;
	char path[4096];
};

/*
 * Opens path for appending. A new or empty file is ours; an existing one
 * must be a regular file that starts with a gpuscope monitor header
 * (anything else is refused: we never append to a file that is not a
 * monitor log). On error -1 and err.
 */
int monlog_open(struct monlog_writer *w, const char *path, char *err);
/* Appends the line (one write) ; sync: fdatasync after it. -1 and err on a write error. */
int monlog_append(struct monlog_writer *w, const char *line, size_t len, int sync, char *err);
void monlog_close(struct monlog_writer *w);

/* ---- reading ---- */

/* A process's facts as the reader keeps them: its pod's names, the same
 * for every process of a pod in every round, once in the log (names). */
struct monlog_meta {
	char comm[32];
	char container_id[72];
	char pod_uid[40];
	uint32_t k8s; /* 1 + its index in struct monlog's names; 0: none */
};

/* A process list as read: n entries, or valid 0 when it was not read. */
struct monlog_procs {
	unsigned n, total;
	int valid;
	struct gpu_proc *p;
	struct monlog_meta *meta;
};

/* MIG instances as read: n entries (at most GPU_MAX_MIG), or valid 0 when
 * the line had none (not in MIG mode, or an older log). */
struct monlog_migs {
	unsigned n;
	int valid;
	struct gpu_mig *m;
};

struct monlog_round {
	int64_t ts;
	unsigned n_alloc;	    /* >= the log's n_dev once read */
	uint64_t seen;		    /* bit d: device d has its line in this round */
	struct gpu_sample *s;	    /* n_dev entries (valid 0: the device was not in it) */
	struct monlog_procs *procs; /* n_dev entries */
	struct monlog_migs *migs;   /* n_dev entries */
};

struct monlog {
	char host[256];
	double interval_s; /* of the first session; 0 if unknown */
	int64_t start_ns;  /* of the first session */
	unsigned n_dev;
	struct gpu_static st[GPU_MAX_DEVICES];
	int have_st[GPU_MAX_DEVICES];
	struct monlog_round *rounds;
	size_t n_rounds, cap_rounds;
	/* what could not be used, for the one-line note */
	size_t lines, bad_lines, first_bad_line, dropped_samples;
	/* MIG entries refused (a wrong type, a string too long for its field, a
	 * duplicate, past GPU_MAX_MIG) while the line's GPU values were used;
	 * instance readings past MONLOG_MAX_MIGS not read; readings kept */
	size_t bad_migs, dropped_migs, n_migs;
	int cut_last_line; /* the last line had no newline or did not parse */
	int sessions;
	/* the pods' names the processes carry, each once; past MONLOG_MAX_NAMES
	 * distinct ones a process keeps its ids without names (dropped_names) */
	struct k8s_names *names;
	size_t n_names, cap_names, dropped_names;
	struct hindex names_idx;
};

/*
 * Reads a monitor log. Unreadable lines are skipped and counted; the
 * readable part is kept. -1 with err when the file cannot be opened, is
 * not a regular file, or holds no readable round at all.
 */
int monlog_read(struct monlog *l, const char *path, char *err);
void monlog_release(struct monlog *l);
/* "" when every line was used, else one line naming what was not. */
const char *monlog_note(const struct monlog *l, char *buf, size_t len);
/* Device dev's process list of round r as a full list (out->g.valid 0: not read). */
void monlog_round_procs(const struct monlog *l, size_t r, unsigned dev, struct mon_procs *out);
/* Device dev's MIG instances of round r (out->valid 0: none in the log). */
void monlog_round_migs(const struct monlog *l, size_t r, unsigned dev, struct gpu_migs *out);

/* A value as the log and monitor's CSV write it: integers exactly (bytes,
 * counters up to 2^53), others to 10 significant digits. */
void monlog_num(FILE *f, double v);

#endif
