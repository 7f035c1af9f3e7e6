/*
 * perfetto.c - a trace as Chrome trace-event JSON (JSON object format), the
 * format ui.perfetto.dev and chrome://tracing open.
 *
 * Layout: each CPU process keeps its pid and thread ids (API calls, NVTX
 * and PyTorch ranges on their threads, syncs on a "cuda sync" track); each
 * GPU is a pseudo-process (pid GPU_PID_BASE + device) with one thread per
 * CUDA stream. A rank of a distributed job (meta rank.PID) is its process,
 * named "rank R (process PID)" and sorted by rank. Flow events (ph s / f, bp "e") join each API
 * call to the GPU work with its correlation id; NVML/GPM samples are counter tracks (ph C).
 *
 * Invariants:
 *  1. Slices on one track nest: the viewers reject partially overlapping
 *     complete events. A slice that would overlap its track partially goes
 *     to the first overflow lane where it nests ("... (overlap N)"); past
 *     MAX_LANES lanes it is dropped and counted (the caller says so).
 *  2. Times are microseconds relative to the earliest event with exactly
 *     three decimals (ns precision, no floating point), so the doubles a
 *     viewer parses stay exact; otherData.base_ns holds the offset.
 */
#include "render/perfetto.h"
#include "render/perfetto_host.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/apiname.h"
#include "util/demangle.h"
#include "util/error.h"
#include "util/hmap.h"
#include "util/json_out.h"
#include "util/vec.h"

#define GPU_PID_BASE 1000000000u
#define LANE_TID_BASE 2000000000u
#define MAX_LANES PERFETTO_MAX_LANES

enum skind { S_KERNEL, S_COPY, S_MEMSET, S_API, S_RANGE, S_SYNC };

struct slice {
	int64_t start, end;
	uint32_t pid, tid; /* the track before lane assignment */
	uint32_t out_tid;  /* the track written */
	uint8_t kind;
	size_t idx;
};

struct lane_map {
	uint32_t pid, tid, lane, out_tid;
};

struct pexp {
	const struct trace *t;
	FILE *f;
	int64_t base;
	struct slice *s;
	size_t n;
	struct lane_map *lanes;
	size_t n_lanes, cap_lanes;
	uint32_t next_lane_tid;
	uint64_t dropped;
};

static void put_ts(FILE *f, int64_t ns)
{
	if (ns < 0) {
		fputc('-', f);
		ns = -ns;
	}
	fprintf(f, "%" PRId64 ".%03d", ns / 1000, (int)(ns % 1000));
}

static int cmp_slice(const void *a, const void *b)
{
	const struct slice *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	return x->kind < y->kind ? -1 : x->kind > y->kind;
}

static uint32_t gpu_pid(uint32_t device)
{
	return GPU_PID_BASE + (device % 1000000u);
}

static int add_slice(struct pexp *e, size_t *cap, int64_t start, int64_t end, uint32_t pid,
		     uint32_t tid, int kind, size_t idx)
{
	struct slice *s = VEC_PUSH(e->s, e->n, *cap);
	if (!s)
		return -1;
	s->start = start;
	s->end = end < start ? start : end;
	s->pid = pid;
	s->tid = tid;
	s->out_tid = tid;
	s->kind = (uint8_t)kind;
	s->idx = idx;
	return 0;
}

static uint32_t lane_tid(struct pexp *e, uint32_t pid, uint32_t tid, uint32_t lane)
{
	for (size_t i = 0; i < e->n_lanes; i++)
		if (e->lanes[i].pid == pid && e->lanes[i].tid == tid && e->lanes[i].lane == lane)
			return e->lanes[i].out_tid;
	struct lane_map *l = VEC_PUSH(e->lanes, e->n_lanes, e->cap_lanes);
	if (!l)
		return tid;
	l->pid = pid;
	l->tid = tid;
	l->lane = lane;
	l->out_tid = e->next_lane_tid++;
	return l->out_tid;
}

/* Invariant 1: per track, lanes of stacks of open slice ends. */
static int assign_lanes(struct pexp *e)
{
	int64_t *stack[MAX_LANES] = {0};
	size_t sp[MAX_LANES] = {0}, cap[MAX_LANES] = {0};
	int rc = 0;
	for (size_t i = 0; i < e->n; i++) {
		struct slice *s = &e->s[i];
		if (i == 0 || s->pid != e->s[i - 1].pid || s->tid != e->s[i - 1].tid)
			memset(sp, 0, sizeof(sp));
		int placed = -1;
		for (int l = 0; l < MAX_LANES; l++) {
			while (sp[l] && stack[l][sp[l] - 1] <= s->start)
				sp[l]--;
			if (sp[l] == 0 || stack[l][sp[l] - 1] >= s->end) {
				placed = l;
				break;
			}
		}
		if (placed < 0) {
			s->kind = 0xff; /* dropped */
			e->dropped++;
			continue;
		}
		if (vec_reserve((void **)&stack[placed], &cap[placed], sp[placed] + 1,
				sizeof(*stack[placed])) < 0) {
			rc = -1;
			break;
		}
		stack[placed][sp[placed]++] = s->end;
		s->out_tid = placed ? lane_tid(e, s->pid, s->tid, (uint32_t)placed) : s->tid;
	}
	for (int l = 0; l < MAX_LANES; l++)
		free(stack[l]);
	return rc;
}

static void meta_event(FILE *f, const char *what, uint32_t pid, uint32_t tid, const char *name)
{
	fprintf(f, "{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%u,\"tid\":%u,\"args\":{\"name\":\"",
		what, pid, tid);
	json_escape(f, name);
	fputs("\"}},\n", f);
}

static void sort_index(FILE *f, uint32_t pid, int64_t idx)
{
	fprintf(f,
		"{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%u,\"tid\":0,"
		"\"args\":{\"sort_index\":%" PRId64 "}},\n",
		pid, idx);
}

static const char *slice_name(const struct trace *t, const struct slice *s, char *buf, size_t len)
{
	switch (s->kind) {
	case S_KERNEL: /* demangled; the recorded name is in args (#16 item 10) */
		return gs_demangle(trace_str(t, t->kernels[s->idx].name_id), buf, len);
	case S_COPY: {
		const struct trace_copy *c = &t->copies[s->idx];
		snprintf(buf, len, "Memcpy %s (%s -> %s)", copy_kind_name(c->kind),
			 mem_kind_name(c->src_kind), mem_kind_name(c->dst_kind));
		return buf;
	}
	case S_MEMSET:
		snprintf(buf, len, "Memset (%s)", mem_kind_name(t->memsets[s->idx].mem_kind));
		return buf;
	case S_API: /* cudaFree, not cudaFree_v3020 */
		return gs_api_name(trace_str(t, t->apis[s->idx].name_id), buf, len);
	case S_RANGE:
		return trace_str(t, t->ranges[s->idx].name_id);
	case S_SYNC:
		snprintf(buf, len, "sync (%s)", sync_kind_name(t->syncs[s->idx].kind));
		return buf;
	}
	return "";
}

static const char *slice_cat(const struct trace *t, const struct slice *s)
{
	static const char *c[] = {"kernel", "memcpy", "memset", "cuda_api", "range", "sync"};
	if (s->kind == S_RANGE)
		return range_kind_name(t->ranges[s->idx].kind);
	return s->kind < 6 ? c[s->kind] : "other";
}

static void slice_args(FILE *f, const struct trace *t, const struct slice *s)
{
	switch (s->kind) {
	case S_KERNEL: {
		const struct trace_kernel *k = &t->kernels[s->idx];
		fprintf(f,
			"\"correlation\":%u,\"grid\":[%u,%u,%u],\"block\":[%u,%u,%u],"
			"\"registers per thread\":%u,\"static smem\":%u,\"dynamic smem\":%u,"
			"\"name\":\"",
			k->correlation, k->grid[0], k->grid[1], k->grid[2], k->block[0],
			k->block[1], k->block[2], k->regs, k->static_smem, k->dyn_smem);
		json_escape(f, trace_str(t, k->name_id)); /* the recorded (mangled) name */
		fputc('"', f);
		break;
	}
	case S_COPY:
		fprintf(f, "\"correlation\":%u,\"bytes\":%" PRIu64, t->copies[s->idx].correlation,
			t->copies[s->idx].bytes);
		break;
	case S_MEMSET:
		fprintf(f, "\"correlation\":%u,\"bytes\":%" PRIu64, t->memsets[s->idx].correlation,
			t->memsets[s->idx].bytes);
		break;
	case S_API:
		fprintf(f, "\"correlation\":%u,\"kind\":\"%s\",\"ret\":%d",
			t->apis[s->idx].correlation, api_kind_name(t->apis[s->idx].kind),
			t->apis[s->idx].ret);
		break;
	case S_RANGE:
		fprintf(f, "\"depth\":%u", t->ranges[s->idx].depth);
		break;
	case S_SYNC:
		fprintf(f, "\"correlation\":%u", t->syncs[s->idx].correlation);
		if (t->syncs[s->idx].stream != UINT32_MAX) /* known: CUPTI's own sync record */
			fprintf(f, ",\"stream\":%u", t->syncs[s->idx].stream);
		break;
	}
}

static int write_json(struct pexp *e)
{
	const struct trace *t = e->t;
	FILE *f = e->f;
	char buf[4096]; /* a demangled kernel name */
	fputs(
	    "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"gpuscope\",\"base_ns\":\"",
	    f);
	fprintf(f, "%" PRId64 "\",\"source\":\"", e->base);
	json_escape(f, trace_source_name(t->source));
	fputs("\"},\n\"traceEvents\":[\n", f);

	/* process and thread names */
	for (size_t i = 0; i < e->n; i++) {
		const struct slice *s = &e->s[i];
		if (s->kind == 0xff)
			continue;
		int new_pid = i == 0 || s->pid != e->s[i - 1].pid;
		if (new_pid) {
			if (s->pid >= GPU_PID_BASE) {
				uint32_t dev = s->pid - GPU_PID_BASE;
				const char *dn = "";
				for (size_t d = 0; d < t->n_devices; d++)
					if (t->devices[d].id == dev)
						dn = trace_str(t, t->devices[d].name_id);
				snprintf(buf, sizeof(buf), "GPU %u%s%s", dev, *dn ? " " : "", dn);
				meta_event(f, "process_name", s->pid, 0, buf);
				sort_index(f, s->pid, (int64_t)s->pid);
			} else {
				/* the command line tells ranks and workers apart */
				const char *cmd = "";
				for (size_t p = 0; p < t->n_processes; p++)
					if (t->processes[p].pid == s->pid)
						cmd = trace_str(t, t->processes[p].cmdline_id);
				/* at most 96 bytes, cut between UTF-8 characters */
				int n = (int)strnlen(cmd, 96);
				while (n > 0 && cmd[n] && ((unsigned char)cmd[n] & 0xC0) == 0x80)
					n--;
				/* a distributed job's rank (meta rank.PID): named and
				 * ordered by it, one process track per rank */
				char key[32];
				snprintf(key, sizeof(key), "rank.%u", s->pid);
				const char *rank = trace_get_meta(t, key);
				char *end = NULL;
				long rk = rank ? strtol(rank, &end, 10) : -1;
				if (rank && *end == '\0' && rk >= 0)
					snprintf(buf, sizeof(buf), "rank %ld (process %u)%s%.*s",
						 rk, s->pid, *cmd ? ": " : "", n, cmd);
				else
					snprintf(buf, sizeof(buf), "process %u%s%.*s", s->pid,
						 *cmd ? ": " : "", n, cmd);
				meta_event(f, "process_name", s->pid, 0, buf);
				sort_index(f, s->pid,
					   rank && *end == '\0' && rk >= 0 ? rk : (int64_t)s->pid);
			}
		}
		if (new_pid || s->tid != e->s[i - 1].tid) {
			if (s->pid >= GPU_PID_BASE)
				snprintf(buf, sizeof(buf), "stream %u", s->tid);
			else if (s->tid == UINT32_MAX)
				snprintf(buf, sizeof(buf), "cuda sync");
			else
				snprintf(buf, sizeof(buf), "thread %u", s->tid);
			meta_event(f, "thread_name", s->pid, s->tid, buf);
		}
	}
	for (size_t i = 0; i < e->n_lanes; i++) {
		const struct lane_map *l = &e->lanes[i];
		if (l->pid >= GPU_PID_BASE)
			snprintf(buf, sizeof(buf), "stream %u (overlap %u)", l->tid, l->lane);
		else
			snprintf(buf, sizeof(buf), "thread %u (overlap %u)", l->tid, l->lane);
		meta_event(f, "thread_name", l->pid, l->out_tid, buf);
	}

	/* slices */
	for (size_t i = 0; i < e->n; i++) {
		const struct slice *s = &e->s[i];
		if (s->kind == 0xff)
			continue;
		fputs("{\"ph\":\"X\",\"cat\":\"", f);
		fputs(slice_cat(t, s), f);
		fputs("\",\"name\":\"", f);
		json_escape(f, slice_name(t, s, buf, sizeof(buf)));
		fprintf(f, "\",\"pid\":%u,\"tid\":%u,\"ts\":", s->pid, s->out_tid);
		put_ts(f, s->start - e->base);
		fputs(",\"dur\":", f);
		put_ts(f, s->end - s->start);
		fputs(",\"args\":{", f);
		slice_args(f, t, s);
		fputs("}},\n", f);
	}

	/* flows: API call -> first GPU work with its (pid, correlation) */
	/* GPU work by (pid, correlation): its first slice */
	struct u64map g;
	if (u64map_init(&g, e->n) < 0)
		return -1;
	for (size_t i = 0; i < e->n; i++) {
		const struct slice *s = &e->s[i];
		uint32_t corr = s->kind == S_KERNEL   ? t->kernels[s->idx].correlation
				: s->kind == S_COPY   ? t->copies[s->idx].correlation
				: s->kind == S_MEMSET ? t->memsets[s->idx].correlation
						      : 0;
		if (!corr)
			continue;
		uint32_t pid = s->kind == S_KERNEL ? t->kernels[s->idx].pid
			       : s->kind == S_COPY ? t->copies[s->idx].pid
						   : t->memsets[s->idx].pid;
		uint64_t k = (uint64_t)pid << 32 | corr, have;
		if (!u64map_get(&g, k, &have) && u64map_put(&g, k, i) < 0) {
			u64map_release(&g);
			return -1;
		}
	}
	uint64_t flow_id = 1;
	for (size_t i = 0; i < e->n; i++) {
		const struct slice *s = &e->s[i];
		if (s->kind != S_API || !t->apis[s->idx].correlation)
			continue;
		const struct trace_api *a = &t->apis[s->idx];
		uint64_t at;
		if (!u64map_get(&g, (uint64_t)a->pid << 32 | a->correlation, &at))
			continue;
		const struct slice *d = &e->s[at];
		fprintf(f,
			"{\"ph\":\"s\",\"cat\":\"launch\",\"name\":\"launch\",\"id\":%" PRIu64
			",\"pid\":%u,\"tid\":%u,\"ts\":",
			flow_id, s->pid, s->out_tid);
		put_ts(f, s->start - e->base);
		fprintf(f,
			"},\n{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"launch\",\"name\":\"launch\","
			"\"id\":%" PRIu64 ",\"pid\":%u,\"tid\":%u,\"ts\":",
			flow_id, d->pid, d->out_tid);
		put_ts(f, d->start - e->base);
		fputs("},\n", f);
		flow_id++;
	}
	u64map_release(&g);

	/* counters */
	for (size_t i = 0; i < t->n_samples; i++) {
		const struct trace_sample *sm = &t->samples[i];
		fprintf(f, "{\"ph\":\"C\",\"name\":\"");
		json_escape(f, trace_str(t, sm->metric_id));
		fprintf(f, "\",\"pid\":%u,\"tid\":0,\"ts\":", gpu_pid(sm->device));
		put_ts(f, sm->ts_ns - e->base);
		if (sm->value == sm->value && sm->value < 1e300 && sm->value > -1e300)
			fprintf(f, ",\"args\":{\"value\":%.17g}},\n", sm->value);
		else
			fputs(",\"args\":{\"value\":0}},\n", f);
	}
	/* host stacks (record --host-sampling) */
	perfetto_host_samples(f, t, e->base);
	/* the last element carries no comma */
	fputs("{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":0,\"tid\":0,"
	      "\"args\":{\"labels\":\"gpuscope\"}}\n]}\n",
	      f);
	return 0;
}

static int build(struct pexp *e)
{
	const struct trace *t = e->t;
	size_t cap = 0;
	int rc = 0;
	for (size_t i = 0; i < t->n_kernels && !rc; i++) {
		const struct trace_kernel *k = &t->kernels[i];
		rc = add_slice(e, &cap, k->start_ns, k->end_ns, gpu_pid(k->device), k->stream,
			       S_KERNEL, i);
	}
	for (size_t i = 0; i < t->n_copies && !rc; i++) {
		const struct trace_copy *c = &t->copies[i];
		rc = add_slice(e, &cap, c->start_ns, c->end_ns, gpu_pid(c->device), c->stream,
			       S_COPY, i);
	}
	for (size_t i = 0; i < t->n_memsets && !rc; i++) {
		const struct trace_memset *m = &t->memsets[i];
		rc = add_slice(e, &cap, m->start_ns, m->end_ns, gpu_pid(m->device), m->stream,
			       S_MEMSET, i);
	}
	for (size_t i = 0; i < t->n_apis && !rc; i++) {
		const struct trace_api *a = &t->apis[i];
		rc = add_slice(e, &cap, a->start_ns, a->end_ns, a->pid, a->tid, S_API, i);
	}
	uint32_t gpu_domain = 0;
	for (size_t i = 0; i < t->n_strings; i++)
		if (strcmp(t->strings[i], "gpu") == 0)
			gpu_domain = (uint32_t)i;
	for (size_t i = 0; i < t->n_ranges && !rc; i++) {
		const struct trace_range *r = &t->ranges[i];
		/* GPU-side annotations (kineto gpu_user_annotation) sit on their stream */
		int on_gpu = gpu_domain && r->domain_id == gpu_domain;
		rc = add_slice(e, &cap, r->start_ns, r->end_ns, on_gpu ? gpu_pid(0) : r->pid,
			       r->tid, S_RANGE, i);
	}
	for (size_t i = 0; i < t->n_syncs && !rc; i++) {
		const struct trace_sync *s = &t->syncs[i];
		rc = add_slice(e, &cap, s->start_ns, s->end_ns, s->pid, UINT32_MAX, S_SYNC, i);
	}
	if (rc)
		return -1;
	e->base = INT64_MAX;
	for (size_t i = 0; i < e->n; i++)
		if (e->s[i].start < e->base)
			e->base = e->s[i].start;
	for (size_t i = 0; i < t->n_samples; i++)
		if (t->samples[i].ts_ns < e->base)
			e->base = t->samples[i].ts_ns;
	for (size_t i = 0; i < t->n_host_samples; i++)
		if (t->host_samples[i].ts_ns < e->base)
			e->base = t->host_samples[i].ts_ns;
	if (e->base == INT64_MAX)
		e->base = 0;
	if (e->n) /* a recording with no CUDA activity has no slice */
		qsort(e->s, e->n, sizeof(*e->s), cmp_slice);
	return assign_lanes(e);
}

#define PERFETTO_MAGIC "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"gpuscope\""

int perfetto_is_ours(const char *path)
{
	char head[sizeof(PERFETTO_MAGIC)];
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	size_t n = fread(head, 1, sizeof(head) - 1, f);
	fclose(f);
	return n == sizeof(head) - 1 && memcmp(head, PERFETTO_MAGIC, n) == 0;
}

struct outfile_rule perfetto_rule(int force, const char *const *inputs)
{
	struct outfile_rule r = {"a gpuscope Perfetto trace", perfetto_is_ours, inputs, force, 1};
	return r;
}

int perfetto_export(const struct trace *t, const char *path, const struct outfile_rule *rule,
		    uint64_t *dropped, char *err)
{
	struct outfile_rule def = perfetto_rule(0, NULL);
	struct pexp e;
	memset(&e, 0, sizeof(e));
	e.t = t;
	e.next_lane_tid = LANE_TID_BASE;
	struct outfile out;
	if (outfile_open(&out, path, rule ? rule : &def, err) < 0)
		return -1;
	int rc = -1;
	if (build(&e) < 0) {
		error_set(err, "out of memory");
		outfile_abort(&out);
		goto out;
	}
	e.f = out.f;
	if (write_json(&e) < 0) {
		error_set(err, "out of memory");
		outfile_abort(&out);
		goto out;
	}
	if (outfile_commit(&out, err) < 0)
		goto out;
	if (dropped)
		*dropped = e.dropped;
	rc = 0;
out:
	free(e.s);
	free(e.lanes);
	return rc;
}
