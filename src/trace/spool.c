/*
 * spool.c - reads the injection library's spool files (spool.h) into a
 * struct trace, for `gpuscope record`.
 *
 * A spool file is read whole, in two passes: the first checks the framing
 * and collects the STRING records (writers emit a string when first seen,
 * from whichever thread, so a name may follow its first use); the second
 * converts every other record, re-interning names into the trace. Bounded
 * everywhere: frames by SPOOL_MAX_FRAME, files by SPOOL_MAX_FILE, string ids
 * by SPOOL_MAX_IDS; a truncated last frame is dropped silently.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "trace/spool.h"
#include "trace/trace.h"
#include "util/error.h"
#include "util/vec.h"

#define SPOOL_MAX_FILE (64ull * 1024 * 1024 * 1024)
#define SPOOL_MAX_IDS (16u * 1024 * 1024)
/* no END frame (spool.h, invariant 6) */
#define NO_END_STATUS                                                                              \
	"ended without gpuscope's last flush (SIGKILL, a crash, an exit the preload shim did not " \
	"see, or still running when record finished): what it did after its last periodic "        \
	"flush (GPUSCOPE_FLUSH_MS, 1 s by default) is missing"
#define NO_END_EMPTY_STATUS                                                                        \
	"initialised CUDA but ended before gpuscope's first flush (SIGKILL, a crash, an exit the " \
	"preload shim did not see, or still running when record finished): its GPU work, if any, " \
	"is not in the trace"

struct open_marker {
	uint32_t id, tid, name_id, domain_id, push_pop, depth;
	int64_t start;
};

struct tid_depth {
	uint32_t tid, depth;
};

struct ctx_dev {
	uint32_t context, device;
};

struct reader {
	struct trace *t;
	uint32_t pid;
	uint32_t *ids; /* writer string id -> trace string id */
	size_t n_ids;
	struct open_marker *open;
	size_t n_open, cap_open;
	struct tid_depth *depths;
	size_t n_depths, cap_depths;
	struct ctx_dev *ctx;
	size_t n_ctx, cap_ctx;
	int64_t first_ts, last_ts;
	char status[1024];
	int fatal;
	int saw_activity, saw_end;
	uint64_t bad_times; /* rows left out: a time beyond TRACE_NS_MAX */
	struct spool_stats stats;
	struct spool_clock clock;
};

static int grow(void **arr, size_t *cap, size_t n, size_t elem)
{
	return vec_reserve(arr, cap, n + 1, elem);
}

static int map_id(struct reader *r, uint32_t wid, uint32_t *out, char *err)
{
	if (wid == 0) {
		*out = 0;
		return 0;
	}
	/* a name written by another thread's buffer that never reached the
	 * file (the program was killed in between): keep the row, unnamed */
	if (wid >= r->n_ids || r->ids[wid] == UINT32_MAX) {
		*out = 0;
		return 0;
	}
	*out = r->ids[wid];
	return 0;
}

static void span(struct reader *r, int64_t a, int64_t b)
{
	if (a > 0 && (r->first_ts == 0 || a < r->first_ts))
		r->first_ts = a;
	if (b > r->last_ts)
		r->last_ts = b;
	r->saw_activity = 1;
}

/* A time CUPTI gave (uint64) as a trace time; UINT64 beyond INT64_MAX
 * becomes a negative number that trace_span_check refuses. */
static int64_t ts_of(uint64_t v)
{
	return v > (uint64_t)INT64_MAX ? INT64_MIN : (int64_t)v;
}

/* The leading fields of a GPU row (trace.h); -1 when a time is out of range:
 * the row is left out and counted (finish_status says so). */
static int fill_gpu(struct reader *r, void *row, uint64_t start, uint64_t end, uint32_t device,
		    uint32_t context, uint32_t stream, uint32_t correlation)
{
	struct trace_gpu_head h = {ts_of(start), ts_of(end), r->pid,	 device,
				   context,	 stream,     correlation};
	if (trace_fill_gpu(row, h) < 0) {
		r->bad_times++;
		return -1;
	}
	int64_t se[2];
	memcpy(se, row, sizeof(se)); /* start_ns, end_ns as clamped */
	span(r, se[0], se[1]);
	return 0;
}

static int fill_host(struct reader *r, void *row, uint64_t start, uint64_t end, uint32_t tid)
{
	struct trace_host_head h = {ts_of(start), ts_of(end), r->pid, tid};
	if (trace_fill_host(row, h) < 0) {
		r->bad_times++;
		return -1;
	}
	int64_t se[2];
	memcpy(se, row, sizeof(se));
	span(r, se[0], se[1]);
	return 0;
}

static uint8_t copy_kind(uint8_t k)
{
	/* CUpti_ActivityMemcpyKind: 1 HtoD 2 DtoH 3 HtoA 4 AtoH 5 AtoA 6 AtoD
	 * 7 DtoA 8 DtoD 9 HtoH 10 PtoP */
	static const uint8_t map[] = {COPY_OTHER, COPY_HTOD, COPY_DTOH, COPY_HTOD,
				      COPY_DTOH,  COPY_DTOD, COPY_DTOD, COPY_DTOD,
				      COPY_DTOD,  COPY_HTOH, COPY_PTOP};
	return k < sizeof(map) ? map[k] : COPY_OTHER;
}

static uint8_t mem_kind(uint32_t k)
{
	/* CUpti_ActivityMemoryKind: 1 pageable 2 pinned 3 device 4 array
	 * 5 managed 6 device static 7 managed static */
	static const uint8_t map[] = {MEM_UNKNOWN, MEM_PAGEABLE, MEM_PINNED, MEM_DEVICE,
				      MEM_ARRAY,   MEM_MANAGED,	 MEM_DEVICE, MEM_MANAGED};
	return k < sizeof(map) ? map[k] : MEM_UNKNOWN;
}

static uint32_t ctx_device(struct reader *r, uint32_t context)
{
	for (size_t i = 0; i < r->n_ctx; i++)
		if (r->ctx[i].context == context)
			return r->ctx[i].device;
	return 0;
}

static uint32_t *tid_depth(struct reader *r, uint32_t tid)
{
	for (size_t i = 0; i < r->n_depths; i++)
		if (r->depths[i].tid == tid)
			return &r->depths[i].depth;
	if (grow((void **)&r->depths, &r->cap_depths, r->n_depths, sizeof(*r->depths)) < 0)
		return NULL;
	r->depths[r->n_depths] = (struct tid_depth){tid, 0};
	return &r->depths[r->n_depths++].depth;
}

static void note_status(struct reader *r, const char *msg, size_t len, int fatal)
{
	size_t have = strlen(r->status);
	if (fatal && !r->fatal) {
		/* the reason collection stopped goes first */
		char old[sizeof(r->status)];
		memcpy(old, r->status, have + 1);
		int n = snprintf(r->status, sizeof(r->status), "%.*s", (int)len, msg);
		if (have && n >= 0 && (size_t)n + 2 + have < sizeof(r->status))
			memcpy(r->status + n, "; ", 2), memcpy(r->status + n + 2, old, have + 1);
		r->fatal = 1;
		return;
	}
	if (have + 3 + len >= sizeof(r->status))
		return;
	snprintf(r->status + have, sizeof(r->status) - have, "%s%.*s", have ? "; " : "", (int)len,
		 msg);
}

/* The first of names set in a SPOOL_ENV payload ("NAME=value\0"...), as a
 * decimal number; -1 when none is. */
static long env_number(const char *p, uint32_t len, const char *const *names, size_t n_names)
{
	for (size_t i = 0; i < n_names; i++) {
		size_t nl = strlen(names[i]);
		for (uint32_t at = 0; at < len;) {
			const char *e = memchr(p + at, '\0', len - at);
			size_t l = e ? (size_t)(e - (p + at)) : len - at;
			if (l > nl + 1 && l < nl + 12 && memcmp(p + at, names[i], nl) == 0 &&
			    p[at + nl] == '=') {
				char num[16];
				memcpy(num, p + at + nl + 1, l - nl - 1);
				num[l - nl - 1] = '\0';
				char *end;
				long v = strtol(num, &end, 10);
				if (!*end && end != num && v >= 0 && v <= 10000000)
					return v;
			}
			at += (uint32_t)l + 1;
		}
	}
	return -1;
}

/* Stores the process's rank, local rank and world size as meta
 * "rank.PID", "local_rank.PID", "world_size.PID" (comm.h reads them). */
static int note_env(struct reader *r, const char *p, uint32_t len, char *err)
{
	static const char *const rank[] = {SPOOL_ENV_RANK}, *const local[] = {SPOOL_ENV_LOCAL_RANK},
				 *const world[] = {SPOOL_ENV_WORLD_SIZE};
	const struct {
		const char *key;
		const char *const *names;
		size_t n;
	} want[] = {{"rank", rank, sizeof(rank) / sizeof(*rank)},
		    {"local_rank", local, sizeof(local) / sizeof(*local)},
		    {"world_size", world, sizeof(world) / sizeof(*world)}};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		long v = env_number(p, len, want[i].names, want[i].n);
		if (v < 0)
			continue;
		char key[48], val[24];
		snprintf(key, sizeof(key), "%s.%u", want[i].key, r->pid);
		snprintf(val, sizeof(val), "%ld", v);
		if (trace_set_meta(r->t, key, val) < 0)
			return error_set(err, "out of memory");
	}
	return 0;
}

/* The GPU a unified-memory event concerns (trace.h, struct trace_uvm). */
static uint32_t uvm_device(const struct spool_uvm *u)
{
	switch (u->kind) {
	case UVM_HTOD:
	case UVM_DTOD:
		return u->dst;
	case UVM_DTOH:
	case UVM_GPU_FAULT:
	case UVM_THROTTLING:
		return u->src;
	case UVM_REMOTE_MAP:
		return u->dst != UVM_CPU ? u->dst : u->src;
	case UVM_THRASHING: /* src: a mask of the devices fighting over it */
		return u->src && u->src != UVM_CPU ? (uint32_t)__builtin_ctz(u->src) : UVM_CPU;
	default:
		return UVM_CPU;
	}
}

static int add_uvm(struct reader *r, const struct spool_uvm *u, char *err)
{
	if (u->kind == 0 || u->kind > UVM_KIND_MAX)
		return 0; /* a counter this reader does not know */
	int instant =
	    u->kind == UVM_CPU_FAULT || u->kind == UVM_THRASHING || u->kind == UVM_REMOTE_MAP;
	int64_t s = ts_of(u->start), e = instant ? s : ts_of(u->end);
	if (trace_span_check(&s, &e) < 0) {
		r->bad_times++;
		return 0;
	}
	struct trace_uvm *x = trace_add_uvm(r->t);
	if (!x)
		return error_set(err, "out of memory");
	*x = (struct trace_uvm){.start_ns = s,
				.end_ns = e,
				.pid = r->pid,
				.device = uvm_device(u),
				.src = u->src,
				.dst = u->dst,
				.value = u->value,
				.address = u->address,
				.flags = u->flags,
				.kind = (uint8_t)u->kind};
	span(r, s, e);
	return 0;
}

/* A SPOOL_NOTE ("KEY\0VALUE") into the trace's meta (spool.h): only keys
 * this reader knows. Unified memory: a refusal replaces "recorded", the
 * first refusal stays. CUDA_LAUNCH_BLOCKING: the first process's value. */
static int add_note(struct reader *r, const char *p, uint32_t len, char *err)
{
	const char *nul = memchr(p, '\0', len);
	if (!nul)
		return 0;
	size_t kl = (size_t)(nul - p);
	int uvm = kl == strlen(SPOOL_NOTE_UVM) && !memcmp(p, SPOOL_NOTE_UVM, kl);
	int blocking =
	    kl == strlen(SPOOL_NOTE_LAUNCH_BLOCKING) && !memcmp(p, SPOOL_NOTE_LAUNCH_BLOCKING, kl);
	if (!uvm && !blocking)
		return 0;
	const char *key = uvm ? SPOOL_NOTE_UVM : SPOOL_NOTE_LAUNCH_BLOCKING;
	char val[512];
	size_t vl = len - (kl + 1);
	vl = vl < sizeof(val) - 1 ? vl : sizeof(val) - 1;
	memcpy(val, nul + 1, vl);
	val[vl] = '\0';
	const char *have = trace_get_meta(r->t, key);
	if (have && *have && (blocking || strcmp(have, SPOOL_NOTE_UVM_ON) != 0))
		return 0;
	return trace_set_meta(r->t, key, val) < 0 ? error_set(err, "out of memory") : 0;
}

static int add_marker(struct reader *r, const struct spool_marker *m, char *err)
{
	uint32_t name, domain;
	if (map_id(r, m->name_id, &name, err) < 0 || map_id(r, m->domain_id, &domain, err) < 0)
		return -1;
	int64_t ts = ts_of(m->ts), e = ts;
	if (trace_span_check(&ts, &e) < 0) {
		r->bad_times++;
		return 0;
	}
	span(r, ts, ts);
	if (m->flags & SPOOL_MARKER_INSTANT) {
		struct trace_range *g = trace_add_range(r->t);
		if (!g)
			return error_set(err, "out of memory");
		*g = (struct trace_range){ts, ts, r->pid, m->tid, name, domain, RANGE_NVTX, 0};
		return 0;
	}
	if (m->flags & SPOOL_MARKER_START) {
		if (grow((void **)&r->open, &r->cap_open, r->n_open, sizeof(*r->open)) < 0)
			return error_set(err, "out of memory");
		uint32_t depth = 0;
		if (m->push_pop) {
			uint32_t *d = tid_depth(r, m->tid);
			if (!d)
				return error_set(err, "out of memory");
			depth = (*d)++;
		}
		r->open[r->n_open++] =
		    (struct open_marker){m->id, m->tid, name, domain, m->push_pop, depth, ts};
		return 0;
	}
	if (m->flags & SPOOL_MARKER_END) {
		/* ranges mostly close in LIFO order: search from the top */
		for (size_t i = r->n_open; i-- > 0;) {
			struct open_marker *o = &r->open[i];
			if (o->id != m->id)
				continue;
			struct trace_range *g = trace_add_range(r->t);
			if (!g)
				return error_set(err, "out of memory");
			*g = (struct trace_range){o->start,
						  ts >= o->start ? ts : o->start,
						  r->pid,
						  o->tid,
						  o->name_id ? o->name_id : name,
						  o->domain_id ? o->domain_id : domain,
						  RANGE_NVTX,
						  o->depth};
			if (o->push_pop) {
				uint32_t *d = tid_depth(r, o->tid);
				if (d && *d)
					(*d)--;
			}
			r->open[i] = r->open[--r->n_open];
			break;
		}
	}
	return 0;
}

static int add_device(struct reader *r, const struct spool_device *d, char *err)
{
	for (size_t i = 0; i < r->t->n_devices; i++)
		if (r->t->devices[i].id == d->id)
			return 0; /* the same GPU, seen by another process */
	uint32_t name;
	if (map_id(r, d->name_id, &name, err) < 0)
		return -1;
	struct trace_device *v = trace_add_device(r->t);
	if (!v)
		return error_set(err, "out of memory");
	v->id = d->id;
	v->name_id = name;
	v->cc_major = d->cc_major;
	v->cc_minor = d->cc_minor;
	v->sm_count = d->sm_count;
	v->mem_bytes = d->mem_bytes;
	v->mem_bandwidth_bps = d->mem_bandwidth_kbps * 1024;
	v->max_threads_per_sm = d->max_warps_per_sm * d->warp_size;
	v->max_blocks_per_sm = d->max_blocks_per_sm;
	v->regs_per_sm = d->regs_per_sm;
	v->smem_per_sm = d->smem_per_sm;
	v->max_smem_per_block = d->max_smem_per_block;
	v->warp_size = d->warp_size;
	return 0;
}

#define NEED(type)                                                                                 \
	do {                                                                                       \
		if (len < sizeof(type))                                                            \
			return error_set(err, "spool: record type %u too short (%u bytes)",        \
					 (unsigned)ft, (unsigned)len);                             \
		memcpy(&u, p, sizeof(type));                                                       \
	} while (0)

static int record(struct reader *r, uint16_t ft, const char *p, uint32_t len, char *err)
{
	union {
		struct spool_kernel k;
		struct spool_copy c;
		struct spool_memset m;
		struct spool_api a;
		struct spool_sync s;
		struct spool_marker mk;
		struct spool_alloc al;
		struct spool_device d;
		struct spool_context cx;
		struct spool_status st;
		struct spool_stats ss;
		struct spool_clock cl;
		struct spool_end e;
		struct spool_counter ct;
		struct spool_sample sa;
		struct spool_uvm uv;
	} u;
	struct trace *t = r->t;
	switch (ft) {
	case SPOOL_STRING:
		return 0;
	case SPOOL_KERNEL: {
		NEED(struct spool_kernel);
		uint32_t name;
		if (map_id(r, u.k.name_id, &name, err) < 0)
			return -1;
		struct trace_kernel *k = trace_add_kernel(t);
		if (!k)
			return error_set(err, "out of memory");
		if (fill_gpu(r, k, u.k.start, u.k.end, u.k.device, u.k.context, u.k.stream,
			     u.k.correlation) < 0) {
			t->n_kernels--;
			return 0;
		}
		k->name_id = name;
		memcpy(k->grid, u.k.grid, sizeof(k->grid));
		memcpy(k->block, u.k.block, sizeof(k->block));
		k->regs = u.k.regs;
		k->static_smem = u.k.static_smem;
		k->dyn_smem = u.k.dyn_smem;
		k->graph_id = u.k.graph_id;
		return 0;
	}
	case SPOOL_COPY: {
		NEED(struct spool_copy);
		struct trace_copy *c = trace_add_copy(t);
		if (!c)
			return error_set(err, "out of memory");
		if (fill_gpu(r, c, u.c.start, u.c.end, u.c.device, u.c.context, u.c.stream,
			     u.c.correlation) < 0) {
			t->n_copies--;
			return 0;
		}
		c->kind = copy_kind(u.c.cupti_kind);
		c->src_kind = mem_kind(u.c.src_kind);
		c->dst_kind = mem_kind(u.c.dst_kind);
		c->bytes = u.c.bytes;
		c->graph_id = u.c.graph_id;
		return 0;
	}
	case SPOOL_MEMSET: {
		NEED(struct spool_memset);
		struct trace_memset *m = trace_add_memset(t);
		if (!m)
			return error_set(err, "out of memory");
		if (fill_gpu(r, m, u.m.start, u.m.end, u.m.device, u.m.context, u.m.stream,
			     u.m.correlation) < 0) {
			t->n_memsets--;
			return 0;
		}
		m->mem_kind = mem_kind(u.m.mem_kind);
		m->bytes = u.m.bytes;
		m->value = u.m.value;
		return 0;
	}
	case SPOOL_API: {
		NEED(struct spool_api);
		uint32_t name;
		if (map_id(r, u.a.name_id, &name, err) < 0)
			return -1;
		struct trace_api *a = trace_add_api(t);
		if (!a)
			return error_set(err, "out of memory");
		if (fill_host(r, a, u.a.start, u.a.end, u.a.tid) < 0) {
			t->n_apis--;
			return 0;
		}
		a->correlation = u.a.correlation;
		a->name_id = name;
		a->domain = u.a.domain == SPOOL_API_DRIVER ? DOMAIN_DRIVER : DOMAIN_RUNTIME;
		a->kind = (uint8_t)api_kind_from_name(trace_str(t, name));
		a->ret = u.a.ret;
		return 0;
	}
	case SPOOL_SYNC: {
		NEED(struct spool_sync);
		struct trace_sync *s = trace_add_sync(t);
		if (!s)
			return error_set(err, "out of memory");
		if (fill_gpu(r, s, u.s.start, u.s.end, ctx_device(r, u.s.context), u.s.context,
			     u.s.stream, u.s.correlation) < 0) {
			t->n_syncs--;
			return 0;
		}
		s->kind = u.s.type <= SYNC_CONTEXT ? (uint8_t)u.s.type : SYNC_UNKNOWN;
		return 0;
	}
	case SPOOL_MARKER:
		NEED(struct spool_marker);
		return add_marker(r, &u.mk, err);
	case SPOOL_ALLOC: {
		NEED(struct spool_alloc);
		int64_t ts = ts_of(u.al.ts), e = ts;
		if (trace_span_check(&ts, &e) < 0) {
			r->bad_times++;
			return 0;
		}
		struct trace_alloc *a = trace_add_alloc(t);
		if (!a)
			return error_set(err, "out of memory");
		a->ts_ns = ts;
		a->pid = r->pid;
		a->device = u.al.device;
		a->address = u.al.address;
		a->bytes = u.al.is_free ? -(int64_t)u.al.bytes : (int64_t)u.al.bytes;
		a->mem_kind = mem_kind(u.al.mem_kind);
		span(r, a->ts_ns, a->ts_ns);
		return 0;
	}
	case SPOOL_DEVICE:
		NEED(struct spool_device);
		return add_device(r, &u.d, err);
	case SPOOL_CONTEXT:
		NEED(struct spool_context);
		if (ctx_device(r, u.cx.context) == 0) {
			if (grow((void **)&r->ctx, &r->cap_ctx, r->n_ctx, sizeof(*r->ctx)) < 0)
				return error_set(err, "out of memory");
			r->ctx[r->n_ctx++] = (struct ctx_dev){u.cx.context, u.cx.device};
		}
		return 0;
	case SPOOL_STATUS:
		NEED(struct spool_status);
		note_status(r, p + sizeof(struct spool_status), len - sizeof(struct spool_status),
			    u.st.fatal != 0);
		return 0;
	case SPOOL_STATS:
		NEED(struct spool_stats);
		/* cumulative: the last one wins */
		r->stats = u.ss;
		if (u.ss.last_ts > r->last_ts)
			r->last_ts = u.ss.last_ts;
		return 0;
	case SPOOL_CLOCK:
		NEED(struct spool_clock);
		r->clock = u.cl;
		return 0;
	case SPOOL_COUNTER: {
		NEED(struct spool_counter);
		uint32_t metric;
		if (map_id(r, u.ct.metric_id, &metric, err) < 0)
			return -1;
		struct trace_counter *c = trace_add_counter(t);
		if (!c)
			return error_set(err, "out of memory");
		c->pid = r->pid;
		c->correlation = u.ct.correlation;
		c->metric_id = metric;
		c->value = u.ct.value;
		return 0;
	}
	case SPOOL_ENV:
		return note_env(r, p, len, err);
	case SPOOL_SAMPLE: {
		NEED(struct spool_sample);
		uint32_t metric;
		if (map_id(r, u.sa.metric_id, &metric, err) < 0)
			return -1;
		int64_t ts = ts_of(u.sa.ts);
		if (u.sa.ts > (uint64_t)TRACE_NS_MAX || !isfinite(u.sa.value)) {
			r->bad_times += u.sa.ts > (uint64_t)TRACE_NS_MAX;
			return 0;
		}
		struct trace_sample *x = trace_add_sample(t);
		if (!x)
			return error_set(err, "out of memory");
		x->ts_ns = ts;
		x->device = u.sa.device;
		x->metric_id = metric;
		x->value = u.sa.value;
		return 0;
	}
	case SPOOL_UVM:
		NEED(struct spool_uvm);
		return add_uvm(r, &u.uv, err);
	case SPOOL_NOTE:
		return add_note(r, p, len, err);
	case SPOOL_END:
		NEED(struct spool_end);
		r->saw_end = 1;
		if (u.e.ts > r->last_ts)
			r->last_ts = u.e.ts;
		return 0;
	default:
		return 0; /* a newer writer's record: skip */
	}
}

/* Pass 1: framing and strings. Sets *end to where complete frames stop. */
static int scan_strings(struct reader *r, const char *data, size_t len, size_t pos, size_t *end,
			char *err)
{
	while (len - pos >= sizeof(struct spool_frame)) {
		struct spool_frame f;
		memcpy(&f, data + pos, sizeof(f));
		if (f.len > SPOOL_MAX_FRAME)
			return error_set(err, "spool: corrupt frame at offset %zu (length %u)", pos,
					 f.len);
		if (f.type == 0)
			return error_set(err, "spool: corrupt frame at offset %zu (type 0)", pos);
		if (len - pos - sizeof(f) < f.len)
			break; /* truncated tail */
		const char *p = data + pos + sizeof(f);
		if (f.type == SPOOL_STRING) {
			struct spool_string s;
			if (f.len < sizeof(s))
				return error_set(err, "spool: corrupt string at offset %zu", pos);
			memcpy(&s, p, sizeof(s));
			if (s.id == 0 || s.id >= SPOOL_MAX_IDS)
				return error_set(err, "spool: string id %u out of range", s.id);
			if (s.id >= r->n_ids) {
				size_t n = r->n_ids ? r->n_ids : 256;
				while (n <= s.id)
					n *= 2;
				uint32_t *ids = realloc(r->ids, n * sizeof(*ids));
				if (!ids)
					return error_set(err, "out of memory");
				for (size_t i = r->n_ids; i < n; i++)
					ids[i] = UINT32_MAX;
				r->ids = ids;
				r->n_ids = n;
			}
			uint32_t id = trace_intern_n(r->t, p + sizeof(s), f.len - sizeof(s));
			if (id == UINT32_MAX)
				return error_set(err, "out of memory");
			r->ids[s.id] = id;
		}
		pos += sizeof(f) + f.len;
	}
	*end = pos;
	return 0;
}

static void cmdline_text(char *dst, size_t cap, const char *src, size_t len)
{
	size_t n = len < cap - 1 ? len : cap - 1;
	memcpy(dst, src, n);
	while (n > 0 && dst[n - 1] == '\0')
		n--;
	for (size_t i = 0; i < n; i++)
		if (dst[i] == '\0')
			dst[i] = ' ';
	dst[n] = '\0';
}

int spool_read_buffer(struct trace *t, const void *data, size_t len, struct spool_clock *clock,
		      char *err)
{
	const char *d = data;
	struct spool_file_header h;
	if (len < sizeof(h))
		return error_set(err, "spool: file too short for its header (%zu bytes)", len);
	memcpy(&h, d, sizeof(h));
	if (memcmp(h.magic, SPOOL_MAGIC, sizeof(h.magic)) != 0)
		return error_set(err, "spool: not a gpuscope spool file (bad magic)");
	if (h.version != SPOOL_VERSION)
		return error_set(err, "spool: unsupported version %u", h.version);
	if (h.header_len < sizeof(h) || h.header_len > 4096 || h.cmdline_len > SPOOL_MAX_CMDLINE)
		return error_set(err, "spool: corrupt header");
	size_t body = (size_t)h.header_len + h.cmdline_len;
	if (len < body)
		return error_set(err, "spool: file too short for its command line");

	struct reader r;
	memset(&r, 0, sizeof(r));
	r.t = t;
	r.pid = h.pid;
	r.clock.cupti_ns = h.clock_cupti_ns;
	r.clock.real_ns = h.clock_real_ns;

	int rc = -1;
	size_t end = 0;
	if (scan_strings(&r, d, len, body, &end, err) < 0)
		goto out_free;
	for (size_t pos = body; pos < end;) {
		struct spool_frame f;
		memcpy(&f, d + pos, sizeof(f));
		if (record(&r, f.type, d + pos + sizeof(f), f.len, err) < 0)
			goto out_free;
		pos += sizeof(f) + f.len;
	}
	/* ranges still open when the program ended: close at the last event */
	for (size_t i = 0; i < r.n_open; i++) {
		struct trace_range *g = trace_add_range(t);
		if (!g) {
			error_set(err, "out of memory");
			goto out_free;
		}
		struct open_marker *o = &r.open[i];
		*g = (struct trace_range){o->start,   r.last_ts > o->start ? r.last_ts : o->start,
					  r.pid,      o->tid,
					  o->name_id, o->domain_id,
					  RANGE_NVTX, o->depth};
	}

	char cmd[4096];
	cmdline_text(cmd, sizeof(cmd), d + h.header_len, h.cmdline_len);
	/* a fatal status already says why recording stopped (no END follows it) */
	if (!r.saw_end && !r.fatal) {
		const char *s = r.saw_activity ? NO_END_STATUS : NO_END_EMPTY_STATUS;
		note_status(&r, s, strlen(s), 0);
	}
	if (!r.saw_activity && !r.status[0])
		note_status(&r, SPOOL_NO_CUDA_STATUS, strlen(SPOOL_NO_CUDA_STATUS), 0);
	if (r.bad_times) {
		char msg[128];
		int n = snprintf(msg, sizeof(msg), "%llu records with a time out of range left out",
				 (unsigned long long)r.bad_times);
		note_status(&r, msg, (size_t)n, 0);
	}
	struct trace_process *pr = trace_add_process(t);
	if (!pr) {
		error_set(err, "out of memory");
		goto out_free;
	}
	pr->pid = h.pid;
	pr->parent_pid = h.ppid;
	pr->cmdline_id = trace_intern(t, cmd);
	pr->start_ns = r.first_ts && r.first_ts < h.clock_cupti_ns ? r.first_ts : h.clock_cupti_ns;
	pr->end_ns = r.last_ts > pr->start_ns ? r.last_ts : pr->start_ns;
	pr->dropped_records = r.stats.dropped;
	pr->overhead_ns = r.stats.overhead_ns;
	pr->status_id = trace_intern(t, r.status);
	if (clock)
		*clock = r.clock;
	rc = 0;
out_free:
	free(r.ids);
	free(r.open);
	free(r.depths);
	free(r.ctx);
	return rc;
}

int spool_read_file(struct trace *t, const char *path, struct spool_clock *clock, char *err)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return error_set(err, "cannot open '%s': %s", path, strerror(errno));
	struct stat st;
	if (fstat(fileno(f), &st) < 0 || !S_ISREG(st.st_mode)) {
		fclose(f);
		return error_set(err, "'%s' is not a regular file", path);
	}
	if ((unsigned long long)st.st_size > SPOOL_MAX_FILE) {
		fclose(f);
		return error_set(err, "'%s' is too large (%lld bytes)", path,
				 (long long)st.st_size);
	}
	size_t n = (size_t)st.st_size;
	char *buf = malloc(n ? n : 1);
	if (!buf) {
		fclose(f);
		return error_set(err, "out of memory reading '%s'", path);
	}
	size_t got = fread(buf, 1, n, f);
	fclose(f);
	int rc = spool_read_buffer(t, buf, got, clock, err);
	free(buf);
	return rc;
}
