/*
 * kineto.c - streaming importer for PyTorch profiler (kineto) Chrome traces.
 *
 * The file is read in 256 KiB chunks through zlib (gzread reads .json and
 * .json.gz alike) and fed to yajl's event parser. The callbacks keep only
 * the fields of the event being parsed (struct kev) and append it to the
 * trace when its object closes, so memory is the size of the trace model,
 * not of the JSON. After the stream: flow events fill missing correlation
 * ids, GPU rows get the process pid, synchronizing API calls become sync
 * rows where kineto recorded no cuda_sync event, ranges get their depth, and
 * baseTimeNanoseconds is added (see kineto.h).
 *
 * Invariants:
 *  1. Nothing in the input sizes an allocation: strings are truncated at
 *     KEV_NAME_MAX, nesting is refused past MAX_DEPTH, and yajl's own
 *     buffers go through a capped allocator (yalloc_*) that aborts the parse
 *     when one token would exceed YAJL_MEM_MAX.
 *  2. Unknown phases and categories are counted (meta import.unknown).
 */
#include "import/kineto.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <yajl/yajl_parse.h>
#include <zlib.h>

#include "util/error.h"

#define CHUNK (256 * 1024)
#define MAX_DEPTH 64
#define KEV_NAME_MAX 65536
#define YAJL_MEM_MAX (64u << 20)
#define MAX_UNKNOWN 32
#define MAX_CARGS 8
/* Timestamps below this (us) are relative to baseTimeNanoseconds. */
#define RELATIVE_TS_LIMIT_NS 100000000000000000LL

static int progress_mode = -1;

void kineto_set_progress(int mode)
{
	progress_mode = mode;
}

enum cat {
	CAT_OTHER = 0,
	CAT_KERNEL,
	CAT_MEMCPY,
	CAT_MEMSET,
	CAT_RUNTIME,
	CAT_DRIVER,
	CAT_SYNC,
	CAT_CPU_OP,
	CAT_USER_ANN,
	CAT_GPU_USER_ANN,
	CAT_PYTHON,
	CAT_AC2G,
};

static const struct {
	const char *name;
	enum cat cat;
} cat_table[] = {
    {"kernel", CAT_KERNEL},
    {"gpu_memcpy", CAT_MEMCPY},
    {"gpu_memset", CAT_MEMSET},
    {"cuda_runtime", CAT_RUNTIME},
    {"cuda_driver", CAT_DRIVER},
    {"cuda_sync", CAT_SYNC},
    {"cpu_op", CAT_CPU_OP},
    {"user_annotation", CAT_USER_ANN},
    {"gpu_user_annotation", CAT_GPU_USER_ANN},
    {"python_function", CAT_PYTHON},
    {"ac2g", CAT_AC2G},
};

/* event-level keys */
enum ekey { EK_NONE, EK_PH, EK_CAT, EK_NAME, EK_PID, EK_TID, EK_TS, EK_DUR, EK_ID, EK_ARGS };
/* args-level keys */
enum akey {
	AK_NONE,
	AK_DEVICE,
	AK_STREAM,
	AK_CORRELATION,
	AK_GRID,
	AK_BLOCK,
	AK_REGS,
	AK_SMEM,
	AK_GRAPH,
	AK_BYTES,
	AK_CONTEXT,
	AK_IN_DEVICE,
	AK_SYNC_KIND,
	AK_OTHER,
};
/* has-bits */
enum {
	H_PID = 1 << 0,
	H_TID = 1 << 1,
	H_TS = 1 << 2,
	H_DUR = 1 << 3,
	H_ID = 1 << 4,
	H_DEVICE = 1 << 5,
	H_STREAM = 1 << 6,
	H_CORR = 1 << 7,
	H_CONTEXT = 1 << 8,
	H_IN_DEVICE = 1 << 9,
};

struct kev {
	char ph;
	enum cat cat;
	char cat_str[48];
	char *name; /* parser-owned buffer, KEV_NAME_MAX + 1 */
	size_t name_len;
	unsigned has;
	int64_t pid, tid, ts, dur, id;
	int64_t device, stream, correlation, regs, smem, graph, bytes, context, in_device;
	uint32_t grid[3], block[3];
	char sync_kind[32];
	struct {
		char key[48];
		double v;
	} cargs[MAX_CARGS];
	int n_cargs;
};

struct kflow {
	int64_t id, ts;
	int64_t pid, tid;
	char ph;
};

struct unknown_count {
	char what[64];
	uint64_t n;
};

/* Capped allocator handed to yajl (invariant 1). */
union yblock {
	struct {
		union yblock *prev, *next;
		size_t size;
	} h;
	max_align_t align;
};

struct yalloc {
	union yblock *head;
	size_t total;
	jmp_buf jb;
};

struct kparse {
	struct trace *t;
	char *err;
	int failed;
	int depth;
	int top; /* 0 none, 1 map, 2 array */
	int top_key;
	int events_depth; /* depth of the traceEvents array, 0 = not inside */
	int ev_depth;	  /* depth of the current event object, 0 = none */
	int args_depth;
	int dims_depth, dims_which, dims_idx;
	int dp_depth, dev_depth; /* deviceProperties array / element */
	int dist_depth;
	int saw_events;
	enum ekey ek;
	enum akey ak;
	char carg_key[48];
	int dev_key;
	int dist_key;
	struct kev ev;
	struct trace_device dev;
	uint64_t n_events;
	struct unknown_count unknown[MAX_UNKNOWN];
	int n_unknown;
	uint64_t unknown_other;
	struct kflow *flows;
	size_t n_flows, cap_flows;
	struct trace_sync *api_syncs;
	size_t n_api_syncs, cap_api_syncs;
	int64_t base_ns;
	int has_base;
	int64_t min_ts;
	int has_min_ts;
	int64_t proc_pid;
	int has_proc_pid;
	uint64_t bytes_fed;
	struct yalloc ya;
};

enum { TK_NONE, TK_EVENTS, TK_DEVPROPS, TK_DIST, TK_BASE, TK_OTHER };

static int fail(struct kparse *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Records the first error and returns 0, which makes yajl stop. */
static int fail(struct kparse *p, const char *fmt, ...)
{
	if (!p->failed) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(p->err, GS_ERR_LEN, fmt, ap);
		va_end(ap);
		p->failed = 1;
	}
	return 0;
}

static int keyeq(const unsigned char *k, size_t len, const char *lit)
{
	size_t n = strlen(lit);
	return n == len && memcmp(k, lit, n) == 0;
}

/* ---- number parsing ---- */

/* Parses JSON number text as microseconds into exact nanoseconds. The
 * common form (digits, optional three decimals) is done in integers so no
 * double rounding happens; exponent forms go through long double. */
static int parse_us_ns(const char *s, size_t len, int64_t *out)
{
	size_t i = 0;
	int neg = 0;
	if (i < len && s[i] == '-') {
		neg = 1;
		i++;
	}
	uint64_t ip = 0;
	size_t digits = 0;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
		if (ip > 9000000000000000ULL)
			return -1;
		ip = ip * 10 + (uint64_t)(s[i] - '0');
	}
	if (!digits || ip > 9000000000000000ULL)
		return -1;
	uint64_t frac = 0;
	int nf = 0, round_up = 0;
	if (i < len && s[i] == '.') {
		i++;
		for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
			if (nf < 3)
				frac = frac * 10 + (uint64_t)(s[i] - '0');
			else if (nf == 3)
				round_up = s[i] >= '5';
			nf++;
		}
	}
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		char tmp[64];
		if (len >= sizeof(tmp))
			return -1;
		memcpy(tmp, s, len);
		tmp[len] = '\0';
		long double v = strtold(tmp, NULL) * 1000.0L;
		if (!isfinite(v) || fabsl(v) > 9.0e18L)
			return -1;
		*out = (int64_t)llroundl(v);
		return 0;
	}
	for (int k = nf; k < 3; k++)
		frac *= 10;
	int64_t ns = (int64_t)(ip * 1000 + frac + (uint64_t)round_up);
	*out = neg ? -ns : ns;
	return 0;
}

/* Parses an integer (or a number with a fraction, truncated). */
static int parse_i64(const char *s, size_t len, int64_t *out)
{
	char tmp[64];
	if (len == 0 || len >= sizeof(tmp))
		return -1;
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	if (!memchr(tmp, '.', len) && !memchr(tmp, 'e', len) && !memchr(tmp, 'E', len)) {
		char *end;
		errno = 0;
		long long v = strtoll(tmp, &end, 10);
		if (errno || *end)
			return -1;
		*out = v;
		return 0;
	}
	double d = strtod(tmp, NULL);
	if (!isfinite(d) || fabs(d) > 9.0e18)
		return -1;
	*out = (int64_t)d;
	return 0;
}

/* A uint32 field: negative int32 values keep their two's complement
 * (kineto writes an invalid stream as -1). */
static int to_u32(int64_t v, uint32_t *out)
{
	if (v < INT32_MIN || v > (int64_t)UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* ---- unknown kinds ---- */

static void count_unknown(struct kparse *p, const char *prefix, const char *what)
{
	char key[64];
	snprintf(key, sizeof(key), "%s=%s", prefix, what);
	for (int i = 0; i < p->n_unknown; i++) {
		if (strcmp(p->unknown[i].what, key) == 0) {
			p->unknown[i].n++;
			return;
		}
	}
	if (p->n_unknown == MAX_UNKNOWN) {
		p->unknown_other++;
		return;
	}
	snprintf(p->unknown[p->n_unknown].what, sizeof(p->unknown[0].what), "%s", key);
	p->unknown[p->n_unknown++].n = 1;
}

/* ---- emitting one event ---- */

static int parse_mem_kind(const char *s, size_t n)
{
	if (n >= 8 && strncmp(s, "Pageable", 8) == 0)
		return MEM_PAGEABLE;
	if (n >= 6 && strncmp(s, "Pinned", 6) == 0)
		return MEM_PINNED;
	if (n >= 6 && strncmp(s, "Device", 6) == 0)
		return MEM_DEVICE;
	if (n >= 7 && strncmp(s, "Managed", 7) == 0)
		return MEM_MANAGED;
	if (n >= 5 && strncmp(s, "Array", 5) == 0)
		return MEM_ARRAY;
	return MEM_UNKNOWN;
}

/* "Memcpy HtoD (Pageable -> Device)" */
static void parse_memcpy_name(const char *name, struct trace_copy *c)
{
	static const struct {
		const char *s;
		int kind;
	} dirs[] = {{"HtoD", COPY_HTOD},
		    {"DtoH", COPY_DTOH},
		    {"DtoD", COPY_DTOD},
		    {"HtoH", COPY_HTOH},
		    {"PtoP", COPY_PTOP}};
	const char *d = strstr(name, "Memcpy ");
	c->kind = COPY_OTHER;
	if (d) {
		d += 7;
		for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
			if (strncmp(d, dirs[i].s, 4) == 0)
				c->kind = (uint8_t)dirs[i].kind;
	}
	const char *lp = strchr(name, '(');
	const char *arrow = lp ? strstr(lp, " -> ") : NULL;
	if (lp && arrow) {
		c->src_kind = (uint8_t)parse_mem_kind(lp + 1, (size_t)(arrow - lp - 1));
		c->dst_kind = (uint8_t)parse_mem_kind(arrow + 4, strlen(arrow + 4));
	}
}

static int add_flow(struct kparse *p, const struct kev *e)
{
	if (p->n_flows == p->cap_flows) {
		size_t cap = p->cap_flows ? p->cap_flows * 2 : 1024;
		struct kflow *n = realloc(p->flows, cap * sizeof(*n));
		if (!n)
			return fail(p, "out of memory%s", "");
		p->flows = n;
		p->cap_flows = cap;
	}
	struct kflow *f = &p->flows[p->n_flows++];
	f->id = e->id;
	f->ts = e->ts;
	f->pid = e->pid;
	f->tid = e->tid;
	f->ph = e->ph;
	return 1;
}

static void note_ts(struct kparse *p, int64_t ts)
{
	if (!p->has_min_ts || ts < p->min_ts) {
		p->min_ts = ts;
		p->has_min_ts = 1;
	}
}

static void note_cpu_pid(struct kparse *p, int64_t pid)
{
	if (!p->has_proc_pid) {
		p->proc_pid = pid;
		p->has_proc_pid = 1;
	}
}

#define OOM_CHECK(x)                                                                               \
	do {                                                                                       \
		if (!(x))                                                                          \
			return fail(p, "out of memory%s", "");                                     \
	} while (0)

static int emit_samples(struct kparse *p, const struct kev *e)
{
	struct trace *t = p->t;
	for (int i = 0; i < e->n_cargs; i++) {
		char metric[160];
		if (e->n_cargs == 1)
			snprintf(metric, sizeof(metric), "%s", e->name);
		else
			snprintf(metric, sizeof(metric), "%s.%s", e->name, e->cargs[i].key);
		struct trace_sample *s = trace_add_sample(t);
		OOM_CHECK(s);
		s->ts_ns = e->ts;
		s->device = (e->has & H_PID) ? (uint32_t)e->pid : 0;
		s->metric_id = trace_intern(t, metric);
		s->value = e->cargs[i].v;
	}
	note_ts(p, e->ts);
	return 1;
}

static int emit_event(struct kparse *p)
{
	struct kev *e = &p->ev;
	struct trace *t = p->t;
	p->n_events++;
	e->name[e->name_len] = '\0';
	if (e->ph == 's' || e->ph == 'f') {
		if (e->cat == CAT_AC2G && (e->has & H_ID) && (e->has & H_TS))
			return add_flow(p, e);
		count_unknown(p, "cat", e->cat_str[0] ? e->cat_str : "(none)");
		return 1;
	}
	if (e->ph == 'C' && (e->has & H_TS))
		return emit_samples(p, e);
	if (e->ph != 'X') {
		char ph[2] = {e->ph ? e->ph : '?', 0};
		count_unknown(p, "ph", ph);
		return 1;
	}
	if (e->cat == CAT_OTHER) {
		count_unknown(p, "cat", e->cat_str[0] ? e->cat_str : "(none)");
		return 1;
	}
	if (!(e->has & H_TS))
		return fail(p, "event without ts in category '%s'", e->cat_str);
	if (e->dur < 0)
		e->dur = 0;
	int64_t start = e->ts, end;
	if (__builtin_add_overflow(start, e->dur, &end))
		return fail(p, "event duration out of range in category '%s'", e->cat_str);
	note_ts(p, start);
	uint32_t device = 0, stream = 0, corr = 0, ctx = 0;
	(void)to_u32((e->has & H_DEVICE) ? e->device : ((e->has & H_PID) ? e->pid : 0), &device);
	if (e->has & H_IN_DEVICE)
		(void)to_u32(e->in_device, &device);
	(void)to_u32((e->has & H_STREAM) ? e->stream : ((e->has & H_TID) ? e->tid : 0), &stream);
	if (e->has & H_CORR)
		(void)to_u32(e->correlation, &corr);
	if (e->has & H_CONTEXT)
		(void)to_u32(e->context, &ctx);
	uint32_t pid = 0, tid = 0;
	if (e->has & H_PID)
		(void)to_u32(e->pid, &pid);
	if (e->has & H_TID)
		(void)to_u32(e->tid, &tid);

	switch (e->cat) {
	case CAT_KERNEL: {
		struct trace_kernel *k = trace_add_kernel(t);
		OOM_CHECK(k);
		k->start_ns = start;
		k->end_ns = end;
		k->device = device;
		k->stream = stream;
		k->context = ctx;
		k->correlation = corr;
		k->name_id = trace_intern_n(t, e->name, e->name_len);
		memcpy(k->grid, e->grid, sizeof(k->grid));
		memcpy(k->block, e->block, sizeof(k->block));
		(void)to_u32(e->regs, &k->regs);
		(void)to_u32(e->smem, &k->dyn_smem); /* kineto gives static + dynamic */
		(void)to_u32(e->graph, &k->graph_id);
		OOM_CHECK(k->name_id != UINT32_MAX);
		break;
	}
	case CAT_MEMCPY: {
		struct trace_copy *c = trace_add_copy(t);
		OOM_CHECK(c);
		c->start_ns = start;
		c->end_ns = end;
		c->device = device;
		c->stream = stream;
		c->context = ctx;
		c->correlation = corr;
		c->bytes = e->bytes > 0 ? (uint64_t)e->bytes : 0;
		(void)to_u32(e->graph, &c->graph_id);
		parse_memcpy_name(e->name, c);
		break;
	}
	case CAT_MEMSET: {
		struct trace_memset *m = trace_add_memset(t);
		OOM_CHECK(m);
		m->start_ns = start;
		m->end_ns = end;
		m->device = device;
		m->stream = stream;
		m->context = ctx;
		m->correlation = corr;
		m->bytes = e->bytes > 0 ? (uint64_t)e->bytes : 0;
		const char *lp = strchr(e->name, '(');
		m->mem_kind = (uint8_t)(lp ? parse_mem_kind(lp + 1, strlen(lp + 1)) : MEM_UNKNOWN);
		break;
	}
	case CAT_RUNTIME:
	case CAT_DRIVER: {
		struct trace_api *a = trace_add_api(t);
		OOM_CHECK(a);
		a->start_ns = start;
		a->end_ns = end;
		a->pid = pid;
		a->tid = tid;
		a->correlation = corr;
		a->name_id = trace_intern_n(t, e->name, e->name_len);
		OOM_CHECK(a->name_id != UINT32_MAX);
		a->domain = e->cat == CAT_DRIVER ? DOMAIN_DRIVER : DOMAIN_RUNTIME;
		a->kind = (uint8_t)api_kind_from_name(e->name);
		note_cpu_pid(p, e->pid);
		int sk = a->kind == API_SYNC ? sync_kind_from_name(e->name) : SYNC_UNKNOWN;
		if (sk != SYNC_UNKNOWN) {
			if (p->n_api_syncs == p->cap_api_syncs) {
				size_t cap = p->cap_api_syncs ? p->cap_api_syncs * 2 : 256;
				struct trace_sync *n =
				    realloc(p->api_syncs, cap * sizeof(*p->api_syncs));
				OOM_CHECK(n);
				p->api_syncs = n;
				p->cap_api_syncs = cap;
			}
			struct trace_sync *s = &p->api_syncs[p->n_api_syncs++];
			memset(s, 0, sizeof(*s));
			s->start_ns = start;
			s->end_ns = end;
			s->pid = pid;
			s->correlation = corr;
			s->kind = (uint8_t)sk;
		}
		break;
	}
	case CAT_SYNC: {
		struct trace_sync *s = trace_add_sync(t);
		OOM_CHECK(s);
		s->start_ns = start;
		s->end_ns = end;
		s->device = device;
		s->stream = stream;
		s->context = ctx;
		s->correlation = corr;
		s->kind = (uint8_t)sync_kind_from_name(e->sync_kind[0] ? e->sync_kind : e->name);
		break;
	}
	case CAT_CPU_OP:
	case CAT_USER_ANN:
	case CAT_GPU_USER_ANN:
	case CAT_PYTHON: {
		struct trace_range *r = trace_add_range(t);
		OOM_CHECK(r);
		r->start_ns = start;
		r->end_ns = end;
		r->pid = pid;
		r->tid = tid;
		r->name_id = trace_intern_n(t, e->name, e->name_len);
		OOM_CHECK(r->name_id != UINT32_MAX);
		r->kind = e->cat == CAT_CPU_OP	 ? RANGE_CPU_OP
			  : e->cat == CAT_PYTHON ? RANGE_PYTHON
						 : RANGE_ANNOTATION;
		if (e->cat == CAT_GPU_USER_ANN) {
			/* on a GPU stream: pid is the process (set later), tid the stream */
			r->domain_id = trace_intern(t, "gpu");
			r->pid = UINT32_MAX;
			r->tid = stream;
		} else {
			note_cpu_pid(p, e->pid);
		}
		break;
	}
	default:
		count_unknown(p, "cat", e->cat_str);
		break;
	}
	return 1;
}

/* ---- yajl callbacks ---- */

static void ev_reset(struct kev *e)
{
	char *name = e->name;
	memset(e, 0, offsetof(struct kev, cargs));
	e->n_cargs = 0;
	e->name = name;
	e->name_len = 0;
}

static int cb_start_map(void *ctx)
{
	struct kparse *p = ctx;
	p->depth++;
	if (p->depth > MAX_DEPTH)
		return fail(p, "json nested deeper than %s levels", "64");
	if (p->depth == 1) {
		p->top = 1;
		return 1;
	}
	if (p->events_depth && p->depth == p->events_depth + 1) {
		p->ev_depth = p->depth;
		p->ek = EK_NONE;
		ev_reset(&p->ev);
		return 1;
	}
	if (p->ev_depth && p->depth == p->ev_depth + 1 && p->ek == EK_ARGS) {
		p->args_depth = p->depth;
		p->ak = AK_NONE;
		return 1;
	}
	if (p->dp_depth && p->depth == p->dp_depth + 1) {
		p->dev_depth = p->depth;
		memset(&p->dev, 0, sizeof(p->dev));
		p->dev.id = (uint32_t)p->t->n_devices;
		p->dev.warp_size = 32;
		return 1;
	}
	if (p->depth == 2 && p->top == 1 && p->top_key == TK_DIST)
		p->dist_depth = 2;
	return 1;
}

static int cb_end_map(void *ctx)
{
	struct kparse *p = ctx;
	int ok = 1;
	if (p->depth == p->ev_depth) {
		ok = emit_event(p);
		p->ev_depth = 0;
	} else if (p->depth == p->args_depth) {
		p->args_depth = 0;
		p->ek = EK_NONE;
	} else if (p->depth == p->dev_depth) {
		struct trace_device *d = trace_add_device(p->t);
		if (!d)
			return fail(p, "out of memory%s", "");
		*d = p->dev;
		p->dev_depth = 0;
	} else if (p->depth == p->dist_depth) {
		p->dist_depth = 0;
	}
	if (p->depth == p->ev_depth + 1)
		p->ek = EK_NONE;
	p->depth--;
	return ok;
}

static int cb_start_array(void *ctx)
{
	struct kparse *p = ctx;
	p->depth++;
	if (p->depth > MAX_DEPTH)
		return fail(p, "json nested deeper than %s levels", "64");
	if (p->depth == 1) {
		p->top = 2;
		p->events_depth = 1;
		p->saw_events = 1;
	} else if (p->depth == 2 && p->top == 1 && p->top_key == TK_EVENTS) {
		p->events_depth = 2;
		p->saw_events = 1;
	} else if (p->depth == 2 && p->top == 1 && p->top_key == TK_DEVPROPS) {
		p->dp_depth = 2;
	} else if (p->args_depth && p->depth == p->args_depth + 1 &&
		   (p->ak == AK_GRID || p->ak == AK_BLOCK)) {
		p->dims_depth = p->depth;
		p->dims_which = p->ak;
		p->dims_idx = 0;
	}
	return 1;
}

static int cb_end_array(void *ctx)
{
	struct kparse *p = ctx;
	if (p->depth == p->events_depth)
		p->events_depth = 0;
	else if (p->depth == p->dp_depth)
		p->dp_depth = 0;
	else if (p->depth == p->dims_depth)
		p->dims_depth = 0;
	p->depth--;
	return 1;
}

static int cb_map_key(void *ctx, const unsigned char *k, size_t len)
{
	struct kparse *p = ctx;
	if (p->depth == 1 && p->top == 1) {
		p->top_key = keyeq(k, len, "traceEvents")	    ? TK_EVENTS
			     : keyeq(k, len, "deviceProperties")    ? TK_DEVPROPS
			     : keyeq(k, len, "distributedInfo")	    ? TK_DIST
			     : keyeq(k, len, "baseTimeNanoseconds") ? TK_BASE
								    : TK_OTHER;
		if (p->top_key == TK_OTHER) {
			size_t n = len < sizeof(p->carg_key) - 1 ? len : sizeof(p->carg_key) - 1;
			memcpy(p->carg_key, k, n);
			p->carg_key[n] = '\0';
		}
		return 1;
	}
	if (p->ev_depth && p->depth == p->ev_depth) {
		p->ek = EK_NONE;
		if (len == 0)
			return 1;
		switch (k[0]) {
		case 'p':
			p->ek = keyeq(k, len, "ph")    ? EK_PH
				: keyeq(k, len, "pid") ? EK_PID
						       : EK_NONE;
			break;
		case 'c':
			p->ek = keyeq(k, len, "cat") ? EK_CAT : EK_NONE;
			break;
		case 'n':
			p->ek = keyeq(k, len, "name") ? EK_NAME : EK_NONE;
			break;
		case 't':
			p->ek = keyeq(k, len, "tid")  ? EK_TID
				: keyeq(k, len, "ts") ? EK_TS
						      : EK_NONE;
			break;
		case 'd':
			p->ek = keyeq(k, len, "dur") ? EK_DUR : EK_NONE;
			break;
		case 'i':
			p->ek = keyeq(k, len, "id") ? EK_ID : EK_NONE;
			break;
		case 'a':
			p->ek = keyeq(k, len, "args") ? EK_ARGS : EK_NONE;
			break;
		}
		return 1;
	}
	if (p->args_depth && p->depth == p->args_depth) {
		p->ak = keyeq(k, len, "device")			? AK_DEVICE
			: keyeq(k, len, "stream")		? AK_STREAM
			: keyeq(k, len, "correlation")		? AK_CORRELATION
			: keyeq(k, len, "grid")			? AK_GRID
			: keyeq(k, len, "block")		? AK_BLOCK
			: keyeq(k, len, "registers per thread") ? AK_REGS
			: keyeq(k, len, "shared memory")	? AK_SMEM
			: keyeq(k, len, "graph id")		? AK_GRAPH
			: keyeq(k, len, "bytes")		? AK_BYTES
			: keyeq(k, len, "context")		? AK_CONTEXT
			: keyeq(k, len, "inDevice")		? AK_IN_DEVICE
			: keyeq(k, len, "cuda_sync_kind")	? AK_SYNC_KIND
								: AK_OTHER;
		if (p->ak == AK_OTHER) {
			size_t n = len < sizeof(p->carg_key) - 1 ? len : sizeof(p->carg_key) - 1;
			memcpy(p->carg_key, k, n);
			p->carg_key[n] = '\0';
		}
		return 1;
	}
	if (p->dev_depth && p->depth == p->dev_depth) {
		static const char *dk[] = {"id",
					   "name",
					   "totalGlobalMem",
					   "computeMajor",
					   "computeMinor",
					   "maxThreadsPerMultiprocessor",
					   "regsPerMultiprocessor",
					   "sharedMemPerMultiprocessor",
					   "sharedMemPerBlockOptin",
					   "numSms",
					   "warpSize"};
		p->dev_key = -1;
		for (int i = 0; i < (int)(sizeof(dk) / sizeof(dk[0])); i++)
			if (keyeq(k, len, dk[i]))
				p->dev_key = i;
		return 1;
	}
	if (p->dist_depth && p->depth == p->dist_depth) {
		p->dist_key = keyeq(k, len, "rank")	    ? 1
			      : keyeq(k, len, "world_size") ? 2
			      : keyeq(k, len, "backend")    ? 3
							    : 0;
		return 1;
	}
	return 1;
}

/* A scalar value; `num` is its text (numbers and strings alike). */
static int scalar(struct kparse *p, const char *s, size_t len, int is_num, int is_str)
{
	int64_t v = 0;
	if (p->ev_depth && p->depth == p->ev_depth) {
		struct kev *e = &p->ev;
		switch (p->ek) {
		case EK_PH:
			if (is_str)
				e->ph = len == 1 ? s[0] : '?';
			break;
		case EK_CAT:
			if (is_str) {
				size_t n =
				    len < sizeof(e->cat_str) - 1 ? len : sizeof(e->cat_str) - 1;
				memcpy(e->cat_str, s, n);
				e->cat_str[n] = '\0';
				for (size_t i = 0; i < n; i++)
					if (!e->cat_str[i] || e->cat_str[i] == ',' ||
					    e->cat_str[i] == ':')
						e->cat_str[i] = '_';
				e->cat = CAT_OTHER;
				for (size_t i = 0; i < sizeof(cat_table) / sizeof(cat_table[0]);
				     i++)
					if (keyeq((const unsigned char *)s, len, cat_table[i].name))
						e->cat = cat_table[i].cat;
			}
			break;
		case EK_NAME:
			if (is_str) {
				size_t n = len < KEV_NAME_MAX ? len : KEV_NAME_MAX;
				const char *nul = memchr(s, '\0', n);
				if (nul)
					n = (size_t)(nul - s);
				memcpy(e->name, s, n);
				e->name_len = n;
			}
			break;
		case EK_PID:
		case EK_TID:
			if ((is_num || is_str) && parse_i64(s, len, &v) == 0) {
				if (p->ek == EK_PID) {
					e->pid = v;
					e->has |= H_PID;
				} else {
					e->tid = v;
					e->has |= H_TID;
				}
			}
			break;
		case EK_TS:
		case EK_DUR:
			if (!is_num)
				break;
			if (parse_us_ns(s, len, &v) < 0)
				return fail(p, "timestamp out of range in event %s",
					    p->ek == EK_TS ? "ts" : "dur");
			if (p->ek == EK_TS) {
				e->ts = v;
				e->has |= H_TS;
			} else {
				e->dur = v;
				e->has |= H_DUR;
			}
			break;
		case EK_ID:
			if (is_num && parse_i64(s, len, &v) == 0) {
				e->id = v;
				e->has |= H_ID;
			}
			break;
		default:
			break;
		}
		return 1;
	}
	if (p->args_depth && p->depth == p->args_depth) {
		struct kev *e = &p->ev;
		if (p->ak == AK_SYNC_KIND && is_str) {
			size_t n = len < sizeof(e->sync_kind) - 1 ? len : sizeof(e->sync_kind) - 1;
			memcpy(e->sync_kind, s, n);
			e->sync_kind[n] = '\0';
			return 1;
		}
		if (!is_num)
			return 1;
		if (p->ak == AK_OTHER) {
			if (e->ph == 'C' && e->n_cargs < MAX_CARGS) {
				char tmp[64];
				if (len < sizeof(tmp)) {
					memcpy(tmp, s, len);
					tmp[len] = '\0';
					double d = strtod(tmp, NULL);
					if (isfinite(d)) {
						snprintf(e->cargs[e->n_cargs].key,
							 sizeof(e->cargs[0].key), "%s",
							 p->carg_key);
						e->cargs[e->n_cargs++].v = d;
					}
				}
			}
			return 1;
		}
		if (p->ak == AK_NONE || p->ak == AK_GRID || p->ak == AK_BLOCK)
			return 1;
		if (parse_i64(s, len, &v) < 0)
			return fail(p, "number out of range in event args%s", "");
		uint32_t u;
		int range_ok = to_u32(v, &u) == 0 || p->ak == AK_BYTES;
		if (!range_ok && p->ak != AK_CORRELATION)
			return fail(p, "number out of range in event args%s", "");
		switch (p->ak) {
		case AK_DEVICE:
			e->device = v;
			e->has |= H_DEVICE;
			break;
		case AK_STREAM:
			e->stream = v;
			e->has |= H_STREAM;
			break;
		case AK_CORRELATION:
			e->correlation = v;
			e->has |= H_CORR;
			break;
		case AK_REGS:
			e->regs = v;
			break;
		case AK_SMEM:
			e->smem = v;
			break;
		case AK_GRAPH:
			e->graph = v;
			break;
		case AK_BYTES:
			e->bytes = v;
			break;
		case AK_CONTEXT:
			e->context = v;
			e->has |= H_CONTEXT;
			break;
		case AK_IN_DEVICE:
			e->in_device = v;
			e->has |= H_IN_DEVICE;
			break;
		default:
			break;
		}
		return 1;
	}
	if (p->dims_depth && p->depth == p->dims_depth) {
		if (!is_num)
			return 1;
		uint32_t u;
		if (parse_i64(s, len, &v) < 0 || v < 0 || to_u32(v, &u) < 0)
			return fail(p, "grid or block dimension out of range%s", "");
		if (p->dims_idx < 3)
			(p->dims_which == AK_GRID ? p->ev.grid : p->ev.block)[p->dims_idx] = u;
		p->dims_idx++;
		return 1;
	}
	if (p->dev_depth && p->depth == p->dev_depth) {
		struct trace_device *d = &p->dev;
		if (p->dev_key == 1 && is_str) {
			size_t n = strnlen(s, len);
			d->name_id = trace_intern_n(p->t, s, n);
			return 1;
		}
		if (!is_num || p->dev_key < 0 || parse_i64(s, len, &v) < 0 || v < 0)
			return 1;
		uint32_t u = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
		switch (p->dev_key) {
		case 0:
			d->id = u;
			break;
		case 2:
			d->mem_bytes = (uint64_t)v;
			break;
		case 3:
			d->cc_major = u;
			break;
		case 4:
			d->cc_minor = u;
			break;
		case 5:
			d->max_threads_per_sm = u;
			break;
		case 6:
			d->regs_per_sm = u;
			break;
		case 7:
			d->smem_per_sm = u;
			break;
		case 8:
			d->max_smem_per_block = u;
			break;
		case 9:
			d->sm_count = u;
			break;
		case 10:
			d->warp_size = u;
			break;
		}
		return 1;
	}
	if (p->dist_depth && p->depth == p->dist_depth && p->dist_key) {
		char val[64];
		size_t n = len < sizeof(val) - 1 ? len : sizeof(val) - 1;
		memcpy(val, s, n);
		val[n] = '\0';
		val[strnlen(val, n)] = '\0';
		const char *key = p->dist_key == 1   ? "rank"
				  : p->dist_key == 2 ? "world_size"
						     : "dist_backend";
		if (trace_set_meta(p->t, key, val) < 0)
			return fail(p, "out of memory%s", "");
		return 1;
	}
	if (p->depth == 1 && p->top == 1) {
		if (p->top_key == TK_BASE && is_num) {
			if (parse_i64(s, len, &v) < 0)
				return fail(p, "baseTimeNanoseconds out of range%s", "");
			p->base_ns = v;
			p->has_base = 1;
		} else if (p->top_key == TK_OTHER && (is_num || is_str) && len < 256 &&
			   p->t->n_meta < 64) {
			char key[64], val[256];
			snprintf(key, sizeof(key), "kineto.%s", p->carg_key);
			memcpy(val, s, len);
			val[len] = '\0';
			if (trace_set_meta(p->t, key, val) < 0)
				return fail(p, "out of memory%s", "");
		}
	}
	return 1;
}

static int cb_null(void *ctx)
{
	return 1;
}

static int cb_bool(void *ctx, int b)
{
	return 1;
}

static int cb_number(void *ctx, const char *s, size_t len)
{
	struct kparse *p = ctx;
	return scalar(p, s, len, 1, 0);
}

static int cb_string(void *ctx, const unsigned char *s, size_t len)
{
	struct kparse *p = ctx;
	return scalar(p, (const char *)s, len, 0, 1);
}

static const yajl_callbacks callbacks = {
    cb_null,	  cb_bool,    NULL,	  NULL,		  cb_number,	cb_string,
    cb_start_map, cb_map_key, cb_end_map, cb_start_array, cb_end_array,
};

/* ---- capped allocator for yajl ---- */

static void *ya_malloc(void *ctx, size_t sz)
{
	struct yalloc *a = ctx;
	if (sz > YAJL_MEM_MAX || a->total + sz > YAJL_MEM_MAX)
		longjmp(a->jb, 1);
	union yblock *b = malloc(sizeof(*b) + sz);
	if (!b)
		longjmp(a->jb, 2);
	b->h.size = sz;
	b->h.prev = NULL;
	b->h.next = a->head;
	if (a->head)
		a->head->h.prev = b;
	a->head = b;
	a->total += sz;
	return b + 1;
}

static void ya_unlink(struct yalloc *a, union yblock *b)
{
	if (b->h.prev)
		b->h.prev->h.next = b->h.next;
	else
		a->head = b->h.next;
	if (b->h.next)
		b->h.next->h.prev = b->h.prev;
	a->total -= b->h.size;
}

static void ya_free(void *ctx, void *ptr)
{
	if (!ptr)
		return;
	union yblock *b = (union yblock *)ptr - 1;
	ya_unlink(ctx, b);
	free(b);
}

static void *ya_realloc(void *ctx, void *ptr, size_t sz)
{
	struct yalloc *a = ctx;
	if (!ptr)
		return ya_malloc(ctx, sz);
	union yblock *b = (union yblock *)ptr - 1;
	if (sz > YAJL_MEM_MAX || a->total - b->h.size + sz > YAJL_MEM_MAX)
		longjmp(a->jb, 1);
	ya_unlink(a, b);
	union yblock *n = realloc(b, sizeof(*b) + sz);
	if (!n) {
		free(b);
		longjmp(a->jb, 2);
	}
	n->h.size = sz;
	n->h.prev = NULL;
	n->h.next = a->head;
	if (a->head)
		a->head->h.prev = n;
	a->head = n;
	a->total += sz;
	return n + 1;
}

static void ya_release_all(struct yalloc *a)
{
	while (a->head) {
		union yblock *b = a->head;
		a->head = b->h.next;
		free(b);
	}
	a->total = 0;
}

/* ---- input sources ---- */

struct ksrc {
	gzFile gz;
	const unsigned char *mem;
	size_t mem_len, mem_pos;
	z_stream zs;
	int zs_on, zs_done;
	const char *label;
	off_t file_size;
};

/* Reads up to cap bytes; returns the count, 0 at the end, -1 on error. */
static long src_read(struct ksrc *s, unsigned char *buf, size_t cap, char *err)
{
	if (s->gz) {
		int n = gzread(s->gz, buf, (unsigned)cap);
		if (n < 0) {
			int code;
			const char *m = gzerror(s->gz, &code);
			return error_set(err, "cannot read '%s': %s", s->label,
					 code == Z_ERRNO ? strerror(errno) : m);
		}
		return n;
	}
	if (!s->zs_on) {
		size_t n = s->mem_len - s->mem_pos < cap ? s->mem_len - s->mem_pos : cap;
		memcpy(buf, s->mem + s->mem_pos, n);
		s->mem_pos += n;
		return (long)n;
	}
	if (s->zs_done)
		return 0;
	s->zs.next_out = buf;
	s->zs.avail_out = (uInt)cap;
	while (s->zs.avail_out == cap) {
		if (s->zs.avail_in == 0) {
			if (s->mem_pos >= s->mem_len)
				return error_set(
				    err, "cannot read '%s': unexpected end of gzip data", s->label);
			size_t n =
			    s->mem_len - s->mem_pos < CHUNK ? s->mem_len - s->mem_pos : CHUNK;
			s->zs.next_in = (unsigned char *)s->mem + s->mem_pos;
			s->zs.avail_in = (uInt)n;
			s->mem_pos += n;
		}
		int rc = inflate(&s->zs, Z_NO_FLUSH);
		if (rc == Z_STREAM_END) {
			if (s->zs.avail_in == 0 && s->mem_pos >= s->mem_len) {
				s->zs_done = 1;
				break;
			}
			if (inflateReset(&s->zs) != Z_OK)
				return error_set(err, "cannot read '%s': bad gzip member",
						 s->label);
		} else if (rc != Z_OK) {
			return error_set(err, "cannot read '%s': corrupt gzip data (%s)", s->label,
					 s->zs.msg ? s->zs.msg : "inflate failed");
		}
	}
	return (long)(cap - s->zs.avail_out);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- post-processing ---- */

/* Open-addressing map uint64 key -> int64 value; key 0 is reserved. */
struct u64map {
	uint64_t *keys;
	int64_t *vals;
	size_t cap;
};

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x ? x : 1;
}

static int map_init(struct u64map *m, size_t n)
{
	m->cap = 64;
	while (m->cap < n * 2)
		m->cap *= 2;
	m->keys = calloc(m->cap, sizeof(*m->keys));
	m->vals = calloc(m->cap, sizeof(*m->vals));
	return m->keys && m->vals ? 0 : -1;
}

static void map_free(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
}

static void map_put(struct u64map *m, uint64_t key, int64_t v)
{
	size_t i = key & (m->cap - 1);
	while (m->keys[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	m->keys[i] = key;
	m->vals[i] = v;
}

static int map_get(const struct u64map *m, uint64_t key, int64_t *v)
{
	size_t i = key & (m->cap - 1);
	while (m->keys[i]) {
		if (m->keys[i] == key) {
			*v = m->vals[i];
			return 1;
		}
		i = (i + 1) & (m->cap - 1);
	}
	return 0;
}

static uint64_t flow_key(int64_t pid, int64_t tid, int64_t ts)
{
	return mix((uint64_t)pid * 0x9E3779B97F4A7C15ULL ^ mix((uint64_t)tid) ^
		   mix((uint64_t)ts * 31));
}

/* Fills correlation ids that the events lack from their ac2g flow ends. */
static int fill_from_flows(struct kparse *p)
{
	struct trace *t = p->t;
	if (!p->n_flows)
		return 0;
	struct u64map fs, ff;
	if (map_init(&fs, p->n_flows) < 0 || map_init(&ff, p->n_flows) < 0) {
		map_free(&fs);
		return error_set(p->err, "out of memory");
	}
	for (size_t i = 0; i < p->n_flows; i++) {
		const struct kflow *f = &p->flows[i];
		map_put(f->ph == 's' ? &fs : &ff, flow_key(f->pid, f->tid, f->ts), f->id);
	}
	int64_t id;
	for (size_t i = 0; i < t->n_kernels; i++) {
		struct trace_kernel *k = &t->kernels[i];
		if (!k->correlation &&
		    map_get(&ff, flow_key(k->device, k->stream, k->start_ns), &id))
			k->correlation = (uint32_t)id;
	}
	for (size_t i = 0; i < t->n_copies; i++) {
		struct trace_copy *c = &t->copies[i];
		if (!c->correlation &&
		    map_get(&ff, flow_key(c->device, c->stream, c->start_ns), &id))
			c->correlation = (uint32_t)id;
	}
	for (size_t i = 0; i < t->n_memsets; i++) {
		struct trace_memset *m = &t->memsets[i];
		if (!m->correlation &&
		    map_get(&ff, flow_key(m->device, m->stream, m->start_ns), &id))
			m->correlation = (uint32_t)id;
	}
	for (size_t i = 0; i < t->n_apis; i++) {
		struct trace_api *a = &t->apis[i];
		if (!a->correlation && map_get(&fs, flow_key(a->pid, a->tid, a->start_ns), &id))
			a->correlation = (uint32_t)id;
	}
	map_free(&fs);
	map_free(&ff);
	return 0;
}

/* API-derived sync rows, except where a cuda_sync event has the same
 * correlation (CUPTI's own record is the better one). */
static int merge_api_syncs(struct kparse *p)
{
	struct trace *t = p->t;
	if (!p->n_api_syncs)
		return 0;
	struct u64map seen;
	if (map_init(&seen, t->n_syncs + 1) < 0) {
		map_free(&seen);
		return error_set(p->err, "out of memory");
	}
	for (size_t i = 0; i < t->n_syncs; i++)
		if (t->syncs[i].correlation)
			map_put(&seen, mix(t->syncs[i].correlation), 1);
	int64_t v;
	for (size_t i = 0; i < p->n_api_syncs; i++) {
		const struct trace_sync *s = &p->api_syncs[i];
		if (s->correlation && map_get(&seen, mix(s->correlation), &v))
			continue;
		struct trace_sync *n = trace_add_sync(t);
		if (!n) {
			map_free(&seen);
			return error_set(p->err, "out of memory");
		}
		*n = *s;
		n->stream = UINT32_MAX;
	}
	map_free(&seen);
	return 0;
}

static const struct trace_range *depth_base;

static int cmp_range_idx(const void *a, const void *b)
{
	const struct trace_range *x = &depth_base[*(const size_t *)a];
	const struct trace_range *y = &depth_base[*(const size_t *)b];
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	if (x->end_ns != y->end_ns)
		return x->end_ns > y->end_ns ? -1 : 1;
	return 0;
}

/* Nesting depth per thread: the number of enclosing ranges still open. */
static int compute_depths(struct trace *t, char *err)
{
	if (!t->n_ranges)
		return 0;
	size_t *idx = malloc(t->n_ranges * sizeof(*idx));
	int64_t *stack = malloc(t->n_ranges * sizeof(*stack));
	if (!idx || !stack) {
		free(idx);
		free(stack);
		return error_set(err, "out of memory");
	}
	for (size_t i = 0; i < t->n_ranges; i++)
		idx[i] = i;
	depth_base = t->ranges;
	qsort(idx, t->n_ranges, sizeof(*idx), cmp_range_idx);
	size_t sp = 0;
	for (size_t i = 0; i < t->n_ranges; i++) {
		struct trace_range *r = &t->ranges[idx[i]];
		if (i > 0) {
			const struct trace_range *q = &t->ranges[idx[i - 1]];
			if (q->pid != r->pid || q->tid != r->tid)
				sp = 0;
		}
		while (sp > 0 && stack[sp - 1] <= r->start_ns)
			sp--;
		r->depth = (uint32_t)sp;
		stack[sp++] = r->end_ns;
	}
	free(idx);
	free(stack);
	return 0;
}

static int shift_all(struct trace *t, int64_t off)
{
#define SHIFT(arr, n, a, b)                                                                        \
	for (size_t i = 0; i < t->n; i++)                                                          \
		if (__builtin_add_overflow(t->arr[i].a, off, &t->arr[i].a) ||                      \
		    __builtin_add_overflow(t->arr[i].b, off, &t->arr[i].b))                        \
			return -1;
	SHIFT(kernels, n_kernels, start_ns, end_ns)
	SHIFT(copies, n_copies, start_ns, end_ns)
	SHIFT(memsets, n_memsets, start_ns, end_ns)
	SHIFT(apis, n_apis, start_ns, end_ns)
	SHIFT(syncs, n_syncs, start_ns, end_ns)
	SHIFT(ranges, n_ranges, start_ns, end_ns)
#undef SHIFT
	for (size_t i = 0; i < t->n_samples; i++)
		if (__builtin_add_overflow(t->samples[i].ts_ns, off, &t->samples[i].ts_ns))
			return -1;
	return 0;
}

static int finish(struct kparse *p)
{
	struct trace *t = p->t;
	if (fill_from_flows(p) < 0 || merge_api_syncs(p) < 0)
		return -1;
	uint32_t pid = 0;
	if (p->has_proc_pid)
		(void)to_u32(p->proc_pid, &pid);
	for (size_t i = 0; i < t->n_kernels; i++)
		t->kernels[i].pid = pid;
	for (size_t i = 0; i < t->n_copies; i++)
		t->copies[i].pid = pid;
	for (size_t i = 0; i < t->n_memsets; i++)
		t->memsets[i].pid = pid;
	for (size_t i = 0; i < t->n_syncs; i++)
		if (!t->syncs[i].pid)
			t->syncs[i].pid = pid;
	for (size_t i = 0; i < t->n_ranges; i++)
		if (t->ranges[i].pid == UINT32_MAX)
			t->ranges[i].pid = pid;
	if (compute_depths(t, p->err) < 0)
		return -1;
	int relative = p->has_base && (!p->has_min_ts || p->min_ts < RELATIVE_TS_LIMIT_NS);
	if (relative && shift_all(t, p->base_ns) < 0)
		return error_set(p->err,
				 "timestamps out of range after adding baseTimeNanoseconds");

	int64_t lo = INT64_MAX, hi = INT64_MIN;
#define SPAN(arr, n)                                                                               \
	for (size_t i = 0; i < t->n; i++) {                                                        \
		if (t->arr[i].start_ns < lo)                                                       \
			lo = t->arr[i].start_ns;                                                   \
		if (t->arr[i].end_ns > hi)                                                         \
			hi = t->arr[i].end_ns;                                                     \
	}
	SPAN(kernels, n_kernels)
	SPAN(copies, n_copies)
	SPAN(memsets, n_memsets)
	SPAN(apis, n_apis)
	SPAN(ranges, n_ranges)
#undef SPAN
	if (p->has_proc_pid) {
		struct trace_process *pr = trace_add_process(t);
		if (!pr)
			return error_set(p->err, "out of memory");
		pr->pid = pid;
		pr->start_ns = lo == INT64_MAX ? 0 : lo;
		pr->end_ns = hi == INT64_MIN ? 0 : hi;
	}

	char buf[2048];
	size_t off = 0;
	buf[0] = '\0';
	for (int i = 0; i < p->n_unknown && off < sizeof(buf) - 100; i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s:%" PRIu64,
					off ? "," : "", p->unknown[i].what, p->unknown[i].n);
	if (p->unknown_other && off < sizeof(buf) - 40)
		snprintf(buf + off, sizeof(buf) - off, "%sother:%" PRIu64, off ? "," : "",
			 p->unknown_other);
	char num[32];
	snprintf(num, sizeof(num), "%" PRIu64, p->n_events);
	char flows[32];
	snprintf(flows, sizeof(flows), "%zu", p->n_flows);
	char base[32];
	snprintf(base, sizeof(base), "%" PRId64, p->has_base ? p->base_ns : 0);
	if (trace_set_meta(t, "source", "pytorch") < 0 ||
	    trace_set_meta(t, "clock_domain", "pytorch") < 0 ||
	    trace_set_meta(t, "import.unknown", buf) < 0 ||
	    trace_set_meta(t, "import.events", num) < 0 ||
	    trace_set_meta(t, "import.flows", flows) < 0 ||
	    (p->has_base && trace_set_meta(t, "kineto.base_time_ns", base) < 0))
		return error_set(p->err, "out of memory");
	t->source = "pytorch";
	return 0;
}

/* ---- driver ---- */

static int run_parse(struct kparse *p, struct ksrc *src)
{
	static yajl_alloc_funcs af = {ya_malloc, ya_realloc, ya_free, NULL};
	unsigned char *buf = malloc(CHUNK);
	p->ev.name = malloc(KEV_NAME_MAX + 1);
	if (!buf || !p->ev.name) {
		free(buf);
		return error_set(p->err, "out of memory");
	}
	yajl_alloc_funcs funcs = af;
	funcs.ctx = &p->ya;
	yajl_handle h = NULL;
	int rc = -1;
	int show = progress_mode > 0 || (progress_mode < 0 && isatty(2));
	double t0 = now_s(), last = t0;
	int printed = 0;
	int jr = setjmp(p->ya.jb);
	if (jr) {
		/* a yajl buffer hit the cap (invariant 1); its memory is ours */
		ya_release_all(&p->ya);
		h = NULL;
		if (!p->failed)
			error_set(p->err,
				  jr == 1 ? "'%s': json token longer than 64 MiB"
					  : "'%s': out of memory",
				  src->label);
		goto out;
	}
	h = yajl_alloc(&callbacks, &funcs, p);
	if (!h) {
		error_set(p->err, "out of memory");
		goto out;
	}
	for (;;) {
		long n = src_read(src, buf, CHUNK, p->err);
		if (n < 0)
			goto out;
		if (n == 0)
			break;
		yajl_status st = yajl_parse(h, buf, (size_t)n);
		if (st != yajl_status_ok) {
			if (!p->failed) {
				unsigned char *m = yajl_get_error(h, 0, buf, (size_t)n);
				size_t at = p->bytes_fed + yajl_get_bytes_consumed(h);
				char *nl = m ? strchr((char *)m, '\n') : NULL;
				if (nl)
					*nl = '\0';
				error_set(p->err, "'%s' is not valid json at byte %zu: %s",
					  src->label, at, m ? (char *)m : "parse error");
				if (m)
					yajl_free_error(h, m);
			} else {
				char tmp[GS_ERR_LEN];
				snprintf(tmp, sizeof(tmp), "'%s': %s", src->label, p->err);
				snprintf(p->err, GS_ERR_LEN, "%s", tmp);
			}
			goto out;
		}
		p->bytes_fed += (size_t)n;
		if (show) {
			double now = now_s();
			if (now - last >= 1.0) {
				last = now;
				if (src->gz && src->file_size > 0)
					fprintf(stderr, "\rimporting %s: %.0f%% (%.0f MB/s)",
						src->label,
						100.0 * (double)gzoffset(src->gz) /
						    (double)src->file_size,
						(double)p->bytes_fed / 1e6 / (now - t0));
				else
					fprintf(stderr, "\rimporting %s: %.0f MB", src->label,
						(double)p->bytes_fed / 1e6);
				printed = 1;
			}
		}
	}
	if (p->bytes_fed == 0) {
		error_set(p->err, "'%s' is empty", src->label);
		goto out;
	}
	if (yajl_complete_parse(h) != yajl_status_ok) {
		if (p->failed) {
			char tmp[GS_ERR_LEN];
			snprintf(tmp, sizeof(tmp), "'%s': %s", src->label, p->err);
			snprintf(p->err, GS_ERR_LEN, "%s", tmp);
		} else {
			error_set(p->err, "'%s' is truncated or not valid json", src->label);
		}
		goto out;
	}
	if (!p->saw_events) {
		error_set(p->err, "'%s' has no traceEvents: not a pytorch profiler trace",
			  src->label);
		goto out;
	}
	rc = finish(p);
out:
	if (printed)
		fprintf(stderr, "\r%60s\r", "");
	if (h)
		yajl_free(h);
	free(buf);
	free(p->ev.name);
	p->ev.name = NULL;
	return rc;
}

static int load(struct trace *t, struct ksrc *src, char *err)
{
	struct kparse *p = calloc(1, sizeof(*p));
	if (!p)
		return error_set(err, "out of memory");
	trace_init(t);
	t->source = "pytorch";
	p->t = t;
	p->err = err;
	int rc = run_parse(p, src);
	free(p->flows);
	free(p->api_syncs);
	free(p);
	if (rc < 0)
		trace_release(t);
	return rc;
}

int kineto_load(struct trace *t, const char *path, char *err)
{
	struct ksrc src;
	memset(&src, 0, sizeof(src));
	src.label = path;
	struct stat sb;
	if (stat(path, &sb) == 0) {
		if (S_ISDIR(sb.st_mode)) {
			trace_init(t);
			trace_release(t);
			return error_set(err, "'%s' is a directory", path);
		}
		src.file_size = sb.st_size;
	}
	src.gz = gzopen(path, "rb");
	if (!src.gz) {
		trace_init(t);
		trace_release(t);
		return error_set(err, "cannot open '%s': %s", path,
				 errno ? strerror(errno) : "out of memory");
	}
	gzbuffer(src.gz, 1 << 20);
	int rc = load(t, &src, err);
	gzclose(src.gz);
	return rc;
}

int kineto_load_mem(struct trace *t, const void *buf, size_t len, char *err)
{
	struct ksrc src;
	memset(&src, 0, sizeof(src));
	src.label = "(memory)";
	src.mem = buf;
	src.mem_len = len;
	if (len >= 2 && src.mem[0] == 0x1f && src.mem[1] == 0x8b) {
		if (inflateInit2(&src.zs, 15 + 32) != Z_OK) {
			trace_init(t);
			trace_release(t);
			return error_set(err, "out of memory");
		}
		src.zs_on = 1;
	}
	int rc = load(t, &src, err);
	if (src.zs_on)
		inflateEnd(&src.zs);
	return rc;
}
