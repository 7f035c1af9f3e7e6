/*
 * merge.c - several traces as one job (merge.h says the rules). One pass
 * per source: its strings re-interned once into a map, its pids and
 * devices mapped, its rows appended to the job's arrays and fixed up in
 * place; then the source is released.
 */
#include "trace/merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/hmap.h"
#include "util/vec.h"

struct src_map {
	const struct trace *t;
	uint32_t *str; /* source string id -> job's */
	struct u64map pid;
	int64_t dev_base; /* -1: devices keep their numbers */
	uint32_t frame_off, stack_off;
};

/* Appends src's rows at the end of the job's array and points x at the
 * first of them (they may be none); -1 when out of memory. */
#define APPEND(out, s, arr, x)                                                                     \
	(vec_reserve((void **)&(out)->arr, &(out)->cap_##arr, (out)->n_##arr + (s)->n_##arr + 1,   \
		     sizeof(*(out)->arr)) < 0                                                      \
	     ? -1                                                                                  \
	     : ((s)->n_##arr ? (void)memcpy((out)->arr + (out)->n_##arr, (s)->arr,                 \
					    (s)->n_##arr * sizeof(*(s)->arr))                      \
			     : (void)0,                                                            \
		(x) = (out)->arr + (out)->n_##arr, (out)->n_##arr += (s)->n_##arr, 0))

static uint32_t S(const struct src_map *m, uint32_t id)
{
	return id < m->t->n_strings ? m->str[id] : 0;
}

static uint32_t P(const struct src_map *m, uint32_t pid)
{
	uint64_t v;
	return pid != UINT32_MAX && u64map_get(&m->pid, pid, &v) ? (uint32_t)v : pid;
}

static uint32_t D(const struct src_map *m, uint32_t dev, const uint32_t *devs, size_t n_devs)
{
	if (m->dev_base < 0)
		return dev;
	for (size_t i = 0; i < n_devs; i++)
		if (devs[i] == dev)
			return (uint32_t)(m->dev_base + (int64_t)i);
	return dev;
}

/* The device ids a trace uses (rows and properties), sorted, unique. */
static int trace_devices(const struct trace *t, uint32_t **out, size_t *n)
{
	size_t cap = 0;
	*out = NULL;
	*n = 0;
#define ADD(arr, field)                                                                            \
	for (size_t i = 0; i < t->n_##arr; i++) {                                                  \
		uint32_t d = t->arr[i].field;                                                      \
		size_t j = 0;                                                                      \
		while (j < *n && (*out)[j] != d)                                                   \
			j++;                                                                       \
		if (j == *n) {                                                                     \
			uint32_t *p = VEC_PUSH(*out, *n, cap);                                     \
			if (!p)                                                                    \
				return -1;                                                         \
			*p = d;                                                                    \
		}                                                                                  \
	}
	ADD(devices, id)
	ADD(kernels, device)
	ADD(copies, device)
	ADD(memsets, device)
#undef ADD
	for (size_t i = 1; i < *n; i++)
		for (size_t j = i; j > 0 && (*out)[j - 1] > (*out)[j]; j--) {
			uint32_t x = (*out)[j];
			(*out)[j] = (*out)[j - 1];
			(*out)[j - 1] = x;
		}
	return 0;
}

/* The pids a trace uses: processes and GPU/host rows. */
static int each_pid(const struct trace *t, struct u64map *seen)
{
#define ADD(arr)                                                                                   \
	for (size_t i = 0; i < t->n_##arr; i++)                                                    \
		if (t->arr[i].pid != UINT32_MAX && u64map_put(seen, t->arr[i].pid, 1) < 0)         \
			return -1;
	ADD(processes)
	ADD(kernels)
	ADD(copies)
	ADD(memsets)
	ADD(apis)
	ADD(syncs)
	ADD(ranges)
	ADD(allocs)
	ADD(uvm)
	ADD(host_samples)
	ADD(host_sched)
#undef ADD
	return 0;
}

/* Maps the source's pids: kept when free in the job, else the next free. */
static int map_pids(struct src_map *m, struct u64map *taken, uint32_t *next_free, struct trace *out,
		    const char *path)
{
	struct u64map seen;
	if (u64map_init(&seen, 16) < 0 || each_pid(m->t, &seen) < 0)
		return -1;
	/* in the map's order: deterministic for the same files */
	int rc = 0;
	for (size_t i = 0; i < seen.cap && rc == 0; i++) {
		if (!seen.used[i])
			continue;
		uint32_t pid = (uint32_t)seen.keys[i], np = pid;
		uint64_t v;
		if (u64map_get(taken, pid, &v)) {
			while (u64map_get(taken, *next_free, &v))
				(*next_free)++;
			np = (*next_free)++;
			char key[48], val[4200];
			snprintf(key, sizeof(key), "pid_origin.%u", np);
			snprintf(val, sizeof(val), "%s %u", path, pid);
			if (trace_set_meta(out, key, val) < 0)
				rc = -1;
		}
		if (rc == 0 && (u64map_put(taken, np, 1) < 0 || u64map_put(&m->pid, pid, np) < 0))
			rc = -1;
	}
	u64map_release(&seen);
	return rc;
}

static int copy_meta(struct trace *out, const struct src_map *m, size_t file)
{
	const struct trace *t = m->t;
	char key[64], val[24];
	const char *rank = trace_get_meta(t, "rank");
	for (size_t i = 0; i < t->n_meta; i++) {
		const char *k = trace_str(t, t->meta[i].key_id),
			   *v = trace_str(t, t->meta[i].value_id);
		unsigned pid;
		int end = 0;
		char what[16];
		if (sscanf(k, "%15[a-z_].%u%n", what, &pid, &end) == 2 && !k[end] &&
		    (!strcmp(what, "rank") || !strcmp(what, "local_rank") ||
		     !strcmp(what, "world_size"))) {
			snprintf(key, sizeof(key), "%s.%u", what, P(m, pid));
			if (trace_set_meta(out, key, v) < 0)
				return -1;
		} else if ((file == 0 || !strcmp(k, "world_size") || !strcmp(k, "dist_backend")) &&
			   strcmp(k, "rank") && !trace_get_meta(out, k)) {
			if (trace_set_meta(out, k, v) < 0)
				return -1;
		}
	}
	/* a PyTorch trace's distributedInfo.rank: every process of the file */
	for (size_t i = 0; rank && i < t->n_processes; i++) {
		snprintf(key, sizeof(key), "rank.%u", P(m, t->processes[i].pid));
		snprintf(val, sizeof(val), "%s", rank);
		if (trace_set_meta(out, key, val) < 0)
			return -1;
	}
	return 0;
}

static int append_rows(struct trace *out, const struct src_map *m, const uint32_t *devs,
		       size_t n_devs)
{
	const struct trace *t = m->t;
	struct trace_device *dv;
	struct trace_kernel *k;
	struct trace_copy *c;
	struct trace_memset *ms;
	struct trace_api *a;
	struct trace_sync *sy;
	struct trace_range *r;
	struct trace_alloc *al;
	struct trace_uvm *uv;
	struct trace_sample *sa;
	struct trace_counter *ct;
	struct trace_host_frame *hf;
	struct trace_host_stack *hs;
	struct trace_host_sample *hx;
	struct trace_host_sampling *hg;
	struct trace_host_sched *hc;
	struct trace_framework *fw;
	struct trace_process *pr;
	if (APPEND(out, t, devices, dv) < 0 || APPEND(out, t, kernels, k) < 0 ||
	    APPEND(out, t, copies, c) < 0 || APPEND(out, t, memsets, ms) < 0 ||
	    APPEND(out, t, apis, a) < 0 || APPEND(out, t, syncs, sy) < 0 ||
	    APPEND(out, t, ranges, r) < 0 || APPEND(out, t, allocs, al) < 0 ||
	    APPEND(out, t, uvm, uv) < 0 || APPEND(out, t, samples, sa) < 0 ||
	    APPEND(out, t, counters, ct) < 0 || APPEND(out, t, host_frames, hf) < 0 ||
	    APPEND(out, t, host_stacks, hs) < 0 || APPEND(out, t, host_samples, hx) < 0 ||
	    APPEND(out, t, host_sampling, hg) < 0 || APPEND(out, t, host_sched, hc) < 0 ||
	    APPEND(out, t, frameworks, fw) < 0 || APPEND(out, t, processes, pr) < 0)
		return -1;
	for (size_t i = 0; i < t->n_devices; i++) {
		dv[i].id = D(m, dv[i].id, devs, n_devs);
		dv[i].name_id = S(m, dv[i].name_id);
	}
#define GPU(x, n)                                                                                  \
	for (size_t i = 0; i < (n); i++) {                                                         \
		x[i].pid = P(m, x[i].pid);                                                         \
		x[i].device = D(m, x[i].device, devs, n_devs);                                     \
	}
	GPU(k, t->n_kernels)
	GPU(c, t->n_copies)
	GPU(ms, t->n_memsets)
	GPU(sy, t->n_syncs)
	GPU(al, t->n_allocs)
	GPU(uv, t->n_uvm) /* UVM_CPU is no device of the list: it stays */
#undef GPU
	for (size_t i = 0; i < t->n_uvm; i++) {
		uv[i].src = D(m, uv[i].src, devs, n_devs);
		uv[i].dst = D(m, uv[i].dst, devs, n_devs);
	}
	for (size_t i = 0; i < t->n_kernels; i++)
		k[i].name_id = S(m, k[i].name_id);
	for (size_t i = 0; i < t->n_apis; i++) {
		a[i].pid = P(m, a[i].pid);
		a[i].name_id = S(m, a[i].name_id);
	}
	for (size_t i = 0; i < t->n_ranges; i++) {
		r[i].pid = P(m, r[i].pid);
		r[i].name_id = S(m, r[i].name_id);
		r[i].domain_id = S(m, r[i].domain_id);
	}
	for (size_t i = 0; i < t->n_samples; i++) {
		sa[i].device = D(m, sa[i].device, devs, n_devs);
		sa[i].metric_id = S(m, sa[i].metric_id);
	}
	for (size_t i = 0; i < t->n_counters; i++) {
		ct[i].pid = P(m, ct[i].pid);
		ct[i].metric_id = S(m, ct[i].metric_id);
	}
	for (size_t i = 0; i < t->n_host_frames; i++) {
		hf[i].id += m->frame_off;
		hf[i].name_id = S(m, hf[i].name_id);
		hf[i].module_id = S(m, hf[i].module_id);
		hf[i].file_id = S(m, hf[i].file_id);
	}
	for (size_t i = 0; i < t->n_host_stacks; i++) {
		hs[i].id += m->stack_off;
		hs[i].parent_id += hs[i].parent_id ? m->stack_off : 0;
		hs[i].frame_id += hs[i].frame_id ? m->frame_off : 0;
	}
	for (size_t i = 0; i < t->n_host_samples; i++) {
		hx[i].pid = P(m, hx[i].pid);
		hx[i].stack_id += hx[i].stack_id ? m->stack_off : 0;
	}
	for (size_t i = 0; i < t->n_host_sched; i++)
		hc[i].pid = P(m, hc[i].pid);
	for (size_t i = 0; i < t->n_host_sampling; i++) {
		hg[i].pid = P(m, hg[i].pid);
		hg[i].mechanism_id = S(m, hg[i].mechanism_id);
		hg[i].status_id = S(m, hg[i].status_id);
	}
	for (size_t i = 0; i < t->n_frameworks; i++) {
		fw[i].pid = P(m, fw[i].pid);
		fw[i].name_id = S(m, fw[i].name_id);
		fw[i].version_id = S(m, fw[i].version_id);
		fw[i].source_id = S(m, fw[i].source_id);
		fw[i].path_id = S(m, fw[i].path_id);
	}
	for (size_t i = 0; i < t->n_processes; i++) {
		pr[i].pid = P(m, pr[i].pid);
		pr[i].parent_pid = P(m, pr[i].parent_pid);
		pr[i].cmdline_id = S(m, pr[i].cmdline_id);
		pr[i].status_id = S(m, pr[i].status_id);
	}
	return 0;
}

/* The largest id of rows whose first field is a uint32_t id (host frames
 * and stacks). */
static uint32_t max_id(const void *rows, size_t n, size_t elem)
{
	uint32_t m = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t id;
		memcpy(&id, (const char *)rows + i * elem, sizeof(id));
		m = id > m ? id : m;
	}
	return m;
}

/* *collide: 1 when two files use the same device number; 0, or -1 when
 * out of memory. */
static int devices_collide(struct trace_set *set, int *collide)
{
	*collide = 0;
	uint32_t *all = NULL;
	size_t n_all = 0, cap = 0;
	for (size_t f = 0; f < set->n && !*collide; f++) {
		uint32_t *d;
		size_t n;
		if (trace_devices(&set->traces[f], &d, &n) < 0) {
			free(all);
			return -1;
		}
		for (size_t i = 0; i < n && !*collide; i++)
			for (size_t j = 0; j < n_all && !*collide; j++)
				*collide = all[j] == d[i];
		for (size_t i = 0; i < n; i++) {
			uint32_t *p = VEC_PUSH(all, n_all, cap);
			if (!p) {
				free(d);
				free(all);
				return -1;
			}
			*p = d[i];
		}
		free(d);
	}
	free(all);
	return 0;
}

/* Two files of one job that claim the same rank (a copy, a rerun saved
 * beside the first) would read as one rank with twice the work: -1 with
 * err naming both (probe W13). Files with no rank are not compared. */
static int ranks_unique(const struct trace_set *set, char *err)
{
	for (size_t i = 0; i < set->n; i++) {
		const char *a = trace_get_meta(&set->traces[i], "rank");
		for (size_t j = i + 1; a && *a && j < set->n; j++) {
			const char *b = trace_get_meta(&set->traces[j], "rank");
			if (b && strcmp(a, b) == 0)
				return error_set(
				    err,
				    "'%s' and '%s' both say they are rank %s: one job's "
				    "ranks are one file each (report each, or compare "
				    "them with gpuscope diff)",
				    set->paths[i], set->paths[j], a);
		}
	}
	return 0;
}

int trace_merge_set(struct trace *out, struct trace_set *set, char *err)
{
	trace_init(out);
	if (ranks_unique(set, err) < 0)
		return -1;
	struct u64map taken;
	if (u64map_init(&taken, 64) < 0)
		return error_set(err, "out of memory");
	int collide, rc = -1;
	uint32_t next_free = 1 << 22, next_dev = 0; /* above Linux's default pid_max */
	if (devices_collide(set, &collide) < 0)
		goto oom;
	for (size_t f = 0; f < set->n; f++) {
		struct trace *t = &set->traces[f];
		struct src_map m = {
		    t,
		    NULL,
		    {0},
		    -1,
		    max_id(out->host_frames, out->n_host_frames, sizeof(*out->host_frames)),
		    max_id(out->host_stacks, out->n_host_stacks, sizeof(*out->host_stacks))};
		uint32_t *devs = NULL;
		size_t n_devs = 0;
		if (u64map_init(&m.pid, 16) < 0)
			goto oom;
		int ok = (m.str = malloc((t->n_strings + 1) * sizeof(*m.str))) != NULL;
		for (size_t i = 0; ok && i < t->n_strings; i++)
			ok = (m.str[i] = trace_intern(out, t->strings[i])) != UINT32_MAX;
		ok = ok && trace_devices(t, &devs, &n_devs) == 0;
		if (ok && collide) {
			m.dev_base = next_dev;
			for (size_t i = 0; ok && i < n_devs; i++) {
				char key[48], val[4200];
				snprintf(key, sizeof(key), "device_origin.%u",
					 next_dev + (uint32_t)i);
				snprintf(val, sizeof(val), "%s device %u", set->paths[f], devs[i]);
				ok = trace_set_meta(out, key, val) == 0;
			}
			next_dev += (uint32_t)n_devs;
		}
		ok = ok && map_pids(&m, &taken, &next_free, out, set->paths[f]) == 0 &&
		     copy_meta(out, &m, f) == 0 && append_rows(out, &m, devs, n_devs) == 0;
		if (ok && f == 0)
			out->source = t->source;
		free(devs);
		free(m.str);
		u64map_release(&m.pid);
		trace_release(t);
		trace_init(t);
		if (!ok)
			goto oom;
	}
	char n[24];
	snprintf(n, sizeof(n), "%zu", set->n);
	if (trace_set_meta(out, "merged_files", n) < 0)
		goto oom;
	rc = 0;
	goto done;
oom:
	error_set(err, "out of memory");
	trace_release(out);
	trace_init(out);
done:
	u64map_release(&taken);
	return rc;
}
