/*
 * kineto_event.c - event mapping for the PyTorch importer: one parsed event
 * (struct kev) into trace rows, and the number rules it uses (kineto_int.h).
 *
 * Times: kineto writes "ts" and "dur" as microseconds with three decimals;
 * the text is parsed in integers into exact nanoseconds (no double
 * rounding), exponent forms through long double.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/kineto_int.h"
#include "util/vec.h"

int kineto_fail(struct ksink *k, const char *fmt, ...)
{
	if (!k->failed) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(k->err, GS_ERR_LEN, fmt, ap);
		va_end(ap);
		k->failed = 1;
	}
	return 0;
}

/* ---- number parsing ---- */

/* Parses JSON number text as microseconds into exact nanoseconds. The
 * common form (digits, optional three decimals) is done in integers so no
 * double rounding happens; exponent forms go through long double. */
int kineto_parse_us_ns(const char *s, size_t len, int64_t *out)
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
int kineto_parse_i64(const char *s, size_t len, int64_t *out)
{
	/* the common form: up to 18 digits, an optional '-' */
	if (len > 0 && len < 19) {
		size_t i = s[0] == '-';
		uint64_t v = 0;
		size_t j = i;
		for (; j < len && s[j] >= '0' && s[j] <= '9'; j++)
			v = v * 10 + (uint64_t)(s[j] - '0');
		if (j == len && j > i) {
			*out = i ? -(int64_t)v : (int64_t)v;
			return 0;
		}
	}
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
int kineto_to_u32(int64_t v, uint32_t *out)
{
	if (v < INT32_MIN || v > (int64_t)UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* ---- unknown kinds ---- */

void kineto_count_unknown(struct ksink *p, const char *prefix, const char *what)
{
	char key[64];
	snprintf(key, sizeof(key), "%s=%s", prefix, what);
	kineto_add_unknown(p, key, 1);
}

void kineto_add_unknown(struct ksink *p, const char *key, uint64_t n)
{
	for (size_t i = 0; i < p->n_unknown; i++) {
		if (strcmp(p->unknown[i].what, key) == 0) {
			p->unknown[i].n += n;
			return;
		}
	}
	struct unknown_count *u = p->n_unknown < MAX_UNKNOWN_SEEN
				      ? VEC_PUSH(p->unknown, p->n_unknown, p->cap_unknown)
				      : NULL;
	if (!u) {
		p->unknown_other += n;
		return;
	}
	snprintf(u->what, sizeof(u->what), "%s", key);
	u->n = n;
}

/* ---- emitting one event ---- */

/* An event name only the JAX/TensorFlow (XLA) profiler writes, in its trace
 * viewer JSON (jax.profiler's perfetto_trace.json.gz, TensorBoard's
 * HOST.trace.json.gz): an XLA client call or executable ("PjitFunction(f)",
 * "CommonPjRtLoadedExecutable::ExecuteHelper"), an XLA module or thunk
 * ("XlaModule:#hlo_module=...", "Thunk:#hlo_op=..."), or its Python
 * tracer's frames ("$train.py:12 step"). Such events carry no "cat", which
 * kineto writes on every event it maps (kineto_post.c names the file). */
static int xla_name(const char *n)
{
	if (!strncmp(n, "PjitFunction(", 13) || !strncmp(n, "XlaModule:", 10) ||
	    !strncmp(n, "Thunk:", 6) || !strncmp(n, "ThunkExecutor::", 15) || strstr(n, "PjRt"))
		return 1;
	const char *py = n[0] == '$' ? strstr(n, ".py:") : NULL;
	return py && py[4] >= '0' && py[4] <= '9';
}

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

/* the first and last eight bytes of s (fewer when it is shorter), its
 * length: kineto_intern_name's slot */
static size_t name_slot(const char *s, size_t len)
{
	uint64_t a = 0, b = 0;
	memcpy(&a, s, len < 8 ? len : 8);
	if (len > 8)
		memcpy(&b, s + (len < 16 ? 8 : len - 8), len < 16 ? len - 8 : 8);
	uint64_t h = (a * 0x9E3779B97F4A7C15ULL) ^ (b * 0xC2B2AE3D27D4EB4FULL) ^ len;
	h ^= h >> 29;
	h *= 0xBF58476D1CE4E5B9ULL;
	return (size_t)(h >> 32) & (KNAME_CACHE - 1);
}

uint32_t kineto_intern_name(struct ksink *k, const char *s, size_t len)
{
	struct trace *t = k->t;
	if (!len || len > UINT32_MAX)
		return trace_intern_n(t, s, len);
	struct kname *c = &k->names[name_slot(s, len)];
	/* the cached name has this length (it was interned with it): compared
	 * whole, within both */
	if (c->id1 && c->len == len && c->id1 - 1 < t->n_strings &&
	    memcmp(t->strings[c->id1 - 1], s, len) == 0)
		return c->id1 - 1;
	uint32_t id = trace_intern_n(t, s, len);
	if (id != UINT32_MAX && strlen(t->strings[id]) == len)
		*c = (struct kname){id + 1, (uint32_t)len};
	return id;
}

static int add_flow(struct ksink *p, const struct kev *e)
{
	struct kflow *f = VEC_PUSH(p->flows, p->n_flows, p->cap_flows);
	if (!f)
		return kineto_fail(p, "out of memory%s", "");
	f->id = e->id;
	f->ts = e->ts;
	f->pid = e->pid;
	f->tid = e->tid;
	f->ph = e->ph;
	return 1;
}

static void note_ts(struct ksink *p, int64_t ts)
{
	if (!p->has_min_ts || ts < p->min_ts) {
		p->min_ts = ts;
		p->has_min_ts = 1;
	}
}

static void note_cpu_pid(struct ksink *p, int64_t pid)
{
	if (!p->has_proc_pid) {
		p->proc_pid = pid;
		p->has_proc_pid = 1;
	}
}

#define OOM_CHECK(x)                                                                               \
	do {                                                                                       \
		if (!(x))                                                                          \
			return kineto_fail(p, "out of memory%s", "");                              \
	} while (0)

static int emit_samples(struct ksink *p, const struct kev *e)
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

/* A profile_memory=True allocator event ("[memory]", an instant event;
 * args "Device Type" 1 = CUDA, "Device Id", "Addr", "Bytes" negative for a
 * free) as an allocation row, so report's memory section reads a PyTorch
 * trace as it reads a recording (#16 item 8). CPU memory is not kept. */
static int emit_memory(struct ksink *p, const struct kev *e)
{
	double type = -1, dev = 0, addr = 0, bytes = 0;
	int have_bytes = 0;
	for (int i = 0; i < e->n_cargs; i++) {
		const char *k = e->cargs[i].key;
		double v = e->cargs[i].v;
		if (strcmp(k, "Device Type") == 0)
			type = v;
		else if (strcmp(k, "Device Id") == 0)
			dev = v;
		else if (strcmp(k, "Addr") == 0)
			addr = v;
		else if (strcmp(k, "Bytes") == 0)
			bytes = v, have_bytes = 1;
	}
	if (type != 1 || !have_bytes || !(fabs(bytes) < 9.0e18) || !(dev >= 0 && dev < 65536) ||
	    !(addr >= 0 && addr < 1.8e19))
		return 1;
	uint32_t pid = 0;
	if (e->has & H_PID)
		(void)kineto_to_u32(e->pid, &pid);
	struct trace_alloc *a = trace_add_alloc(p->t);
	if (!a)
		return kineto_fail(p, "out of memory%s", "");
	note_ts(p, e->ts);
	a->ts_ns = e->ts;
	a->pid = pid;
	a->device = (uint32_t)dev;
	a->address = (uint64_t)addr;
	a->bytes = (int64_t)bytes;
	a->mem_kind = MEM_DEVICE;
	return 1;
}

/* torch.profiler's CUPTI range counters (experimental_config with
 * profiler_metrics): one event per profiled kernel, its metric values in
 * args. Its values become counter rows keyed by the range's index in the
 * file for now: kineto_ranges.c pairs the ranges with their launches once
 * every row is in. */
static int emit_profiler_range(struct ksink *p, const struct kev *e, struct trace_gpu_head gh)
{
	struct trace *t = p->t;
	if (p->n_pranges >= UINT32_MAX)
		return kineto_fail(p, "too many cuda_profiler_range events%s", "");
	struct kprange *r = VEC_PUSH(p->pranges, p->n_pranges, p->cap_pranges);
	OOM_CHECK(r);
	uint32_t idx = (uint32_t)(p->n_pranges - 1);
	r->start = gh.start_ns;
	r->end = gh.end_ns;
	r->device = gh.device;
	r->stream = gh.stream;
	r->name_id = kineto_intern_name(p, e->name, e->name_len);
	OOM_CHECK(r->name_id != UINT32_MAX);
	for (int i = 0; i < e->n_rargs; i++) {
		struct trace_counter *c = trace_add_counter(t);
		OOM_CHECK(c);
		c->correlation = idx;
		c->metric_id = trace_intern(t, e->rargs[i].key);
		OOM_CHECK(c->metric_id != UINT32_MAX);
		c->value = e->rargs[i].v;
	}
	return 1;
}

int kineto_emit(struct ksink *p, struct kev *e)
{
	struct trace *t = p->t;
	if (++p->n_events > p->max_events && p->max_events)
		return kineto_fail(p, "more than %llu events (--max-events)",
				   (unsigned long long)p->max_events);
	e->name[e->name_len] = '\0';
	if (e->ph == 's' || e->ph == 'f') {
		if (e->cat == CAT_AC2G && (e->has & H_ID) && (e->has & H_TS))
			return add_flow(p, e);
		kineto_count_unknown(p, "cat", e->cat_str[0] ? e->cat_str : "(none)");
		return 1;
	}
	if (e->ph == 'C' && (e->has & H_TS))
		return emit_samples(p, e);
	if (e->ph == 'i' && (e->has & H_TS) && strcmp(e->name, "[memory]") == 0)
		return emit_memory(p, e);
	if (e->ph != 'X') {
		char ph[2] = {e->ph ? e->ph : '?', 0};
		kineto_count_unknown(p, "ph", ph);
		return 1;
	}
	if (e->cat == CAT_OTHER) {
		if (!e->cat_str[0] && xla_name(e->name))
			p->xla_events++;
		kineto_count_unknown(p, "cat", e->cat_str[0] ? e->cat_str : "(none)");
		return 1;
	}
	if (!(e->has & H_TS))
		return kineto_fail(p, "event without ts in category '%s'", e->cat_str);
	/* docs/import-export.md: numbers out of range for their field are errors;
	 * a tid may be -1 (kineto's unknown stream) */
	if ((e->has & H_PID_BAD) || ((e->has & H_PID) && (e->pid < 0 || e->pid > UINT32_MAX)))
		return kineto_fail(p, "pid out of range in category '%s'", e->cat_str);
	if ((e->has & H_TID_BAD) ||
	    ((e->has & H_TID) && (e->tid < INT32_MIN || e->tid > UINT32_MAX)))
		return kineto_fail(p, "tid out of range in category '%s'", e->cat_str);
	if (e->has & H_DUR_BAD)
		return kineto_fail(p, "dur is not a number in category '%s'", e->cat_str);
	if ((e->has & H_DUR) && e->dur < 0)
		return kineto_fail(p, "negative dur in category '%s'", e->cat_str);
	if (e->regs < 0 || e->smem < 0)
		return kineto_fail(p, "negative %s in category '%s'",
				   e->regs < 0 ? "registers per thread" : "shared memory",
				   e->cat_str);
	int64_t start = e->ts, end;
	if (trace_span_dur(start, e->dur, &end) < 0)
		return kineto_fail(p, "event time out of range in category '%s'", e->cat_str);
	note_ts(p, start);
	uint32_t device = 0, stream = 0, corr = 0, ctx = 0;
	(void)kineto_to_u32((e->has & H_DEVICE) ? e->device : ((e->has & H_PID) ? e->pid : 0),
			    &device);
	if (e->has & H_IN_DEVICE)
		(void)kineto_to_u32(e->in_device, &device);
	(void)kineto_to_u32((e->has & H_STREAM) ? e->stream : ((e->has & H_TID) ? e->tid : 0),
			    &stream);
	if (e->has & H_CORR)
		(void)kineto_to_u32(e->correlation, &corr);
	if (e->has & H_CONTEXT)
		(void)kineto_to_u32(e->context, &ctx);
	uint32_t pid = 0, tid = 0;
	if (e->has & H_PID)
		(void)kineto_to_u32(e->pid, &pid);
	if (e->has & H_TID)
		(void)kineto_to_u32(e->tid, &tid);
	/* GPU rows get their pid in the post passes */
	const struct trace_gpu_head gh = {start, end, 0, device, ctx, stream, corr};
	const struct trace_host_head hh = {start, end, pid, tid};

	switch (e->cat) {
	case CAT_KERNEL: {
		struct trace_kernel *k = trace_add_kernel(t);
		OOM_CHECK(k);
		(void)trace_fill_gpu(k, gh);
		k->name_id = kineto_intern_name(p, e->name, e->name_len);
		memcpy(k->grid, e->grid, sizeof(k->grid));
		memcpy(k->block, e->block, sizeof(k->block));
		(void)kineto_to_u32(e->regs, &k->regs);
		(void)kineto_to_u32(e->smem, &k->dyn_smem); /* kineto gives static + dynamic */
		(void)kineto_to_u32(e->graph, &k->graph_id);
		OOM_CHECK(k->name_id != UINT32_MAX);
		break;
	}
	case CAT_MEMCPY: {
		struct trace_copy *c = trace_add_copy(t);
		OOM_CHECK(c);
		(void)trace_fill_gpu(c, gh);
		c->bytes = e->bytes > 0 ? (uint64_t)e->bytes : 0;
		(void)kineto_to_u32(e->graph, &c->graph_id);
		parse_memcpy_name(e->name, c);
		break;
	}
	case CAT_MEMSET: {
		struct trace_memset *m = trace_add_memset(t);
		OOM_CHECK(m);
		(void)trace_fill_gpu(m, gh);
		m->bytes = e->bytes > 0 ? (uint64_t)e->bytes : 0;
		const char *lp = strchr(e->name, '(');
		m->mem_kind = (uint8_t)(lp ? parse_mem_kind(lp + 1, strlen(lp + 1)) : MEM_UNKNOWN);
		break;
	}
	case CAT_RUNTIME:
	case CAT_DRIVER: {
		struct trace_api *a = trace_add_api(t);
		OOM_CHECK(a);
		(void)trace_fill_host(a, hh);
		a->correlation = corr;
		a->name_id = kineto_intern_name(p, e->name, e->name_len);
		OOM_CHECK(a->name_id != UINT32_MAX);
		a->domain = e->cat == CAT_DRIVER ? DOMAIN_DRIVER : DOMAIN_RUNTIME;
		a->kind = (uint8_t)api_kind_from_name(e->name);
		note_cpu_pid(p, e->pid);
		int sk = a->kind == API_SYNC ? sync_kind_from_name(e->name) : SYNC_UNKNOWN;
		if (sk != SYNC_UNKNOWN) {
			struct trace_sync *s =
			    VEC_PUSH(p->api_syncs, p->n_api_syncs, p->cap_api_syncs);
			OOM_CHECK(s);
			(void)trace_fill_gpu(
			    s, (struct trace_gpu_head){start, end, pid, 0, 0, 0, corr});
			s->kind = (uint8_t)sk;
		}
		break;
	}
	case CAT_SYNC: {
		struct trace_sync *s = trace_add_sync(t);
		OOM_CHECK(s);
		(void)trace_fill_gpu(s, gh);
		s->kind = (uint8_t)sync_kind_from_name(e->sync_kind[0] ? e->sync_kind : e->name);
		break;
	}
	case CAT_CPU_OP:
	case CAT_USER_ANN:
	case CAT_GPU_USER_ANN:
	case CAT_PYTHON: {
		struct trace_range *r = trace_add_range(t);
		OOM_CHECK(r);
		(void)trace_fill_host(r, hh);
		r->name_id = kineto_intern_name(p, e->name, e->name_len);
		OOM_CHECK(r->name_id != UINT32_MAX);
		r->kind = e->cat == CAT_CPU_OP	 ? RANGE_CPU_OP
			  : e->cat == CAT_PYTHON ? RANGE_PYTHON
						 : RANGE_ANNOTATION;
		if (e->shape_op)
			kineto_shapes_add(&p->shapes, e);
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
	case CAT_PROFILER_RANGE:
		return emit_profiler_range(p, e, gh);
	default:
		kineto_count_unknown(p, "cat", e->cat_str);
		break;
	}
	return 1;
}
