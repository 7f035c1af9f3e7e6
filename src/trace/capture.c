/*
 * capture.c - keeps what lies inside record's capture windows (capture.h
 * has the rules).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/vec.h"
#include "trace/capture.h"
#include "util/error.h"
#include "util/hmap.h"

#define WEEK_S (7.0 * 24 * 3600)

int capture_active(const struct capture_spec *spec)
{
	return spec->mode != CAPTURE_NONE || spec->delay_ns > 0 || spec->duration_ns > 0;
}

int capture_parse_range(struct capture_spec *spec, const char *arg, char *err)
{
	if (strcmp(arg, "cudaProfilerApi") == 0) {
		spec->mode = CAPTURE_PROFILER_API;
		return 0;
	}
	if (strncmp(arg, "nvtx:", 5) == 0 && arg[5]) {
		const char *name = arg + 5, *at = strrchr(name, '@');
		size_t n = at ? (size_t)(at - name) : strlen(name);
		size_t dn = at ? strlen(at + 1) : 0;
		if (n == 0 || (at && dn == 0))
			return error_set(err,
					 "--capture-range nvtx:NAME[@DOMAIN]: empty %s in '%s'",
					 n == 0 ? "name" : "domain", arg);
		if (n >= CAPTURE_NAME_MAX || dn >= CAPTURE_NAME_MAX)
			return error_set(err,
					 "--capture-range: the NVTX name is longer than %d bytes",
					 CAPTURE_NAME_MAX - 1);
		memcpy(spec->nvtx_name, name, n);
		spec->nvtx_name[n] = '\0';
		memcpy(spec->nvtx_domain, at ? at + 1 : "", dn + 1);
		spec->mode = CAPTURE_NVTX;
		return 0;
	}
	return error_set(
	    err, "--capture-range takes cudaProfilerApi or nvtx:NAME[@DOMAIN], not '%s'", arg);
}

int capture_parse_seconds(int64_t *ns, const char *opt, int positive, const char *arg, char *err)
{
	char *end;
	double v = strtod(arg, &end);
	int64_t n = isfinite(v) ? (int64_t)llround(v * 1e9) : -1;
	if (end == arg || *end || !isfinite(v) || v < 0 || v > WEEK_S || (positive && n <= 0))
		return error_set(err, "%s takes seconds (%s, up to %g), not '%s'", opt,
				 positive ? "more than 0" : "0 or more", WEEK_S, arg);
	*ns = n;
	return 0;
}

/* ---- windows ---- */

struct cwin {
	int64_t start, end;
	uint32_t pid;
	const char *opened, *closed;
	uint64_t kernels;
};

struct wins {
	struct cwin *w;
	size_t n, cap;
};

static int add_win(struct wins *ws, int64_t start, int64_t end, uint32_t pid, const char *opened,
		   const char *closed)
{
	if (end < start)
		end = start;
	struct cwin *w = VEC_PUSH(ws->w, ws->n, ws->cap);
	if (!w)
		return -1;
	*w = (struct cwin){start, end, pid, opened, closed, 0};
	return 0;
}

static int cmp_win(const void *a, const void *b)
{
	const struct cwin *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start ? 1 : 0;
}

/* name is fn or fn_vNNNN (CUPTI's versioned names) */
static int is_call(const char *name, const char *fn)
{
	size_t n = strlen(fn);
	return strncmp(name, fn, n) == 0 && (name[n] == '\0' || name[n] == '_');
}

struct pcall {
	int64_t start, end;
	uint32_t pid;
	int start_call; /* 1 Start, 0 Stop */
};

static int cmp_pcall(const void *a, const void *b)
{
	const struct pcall *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start ? 1 : 0;
}

/* cudaProfilerStart/Stop pairs, per process */
static int profiler_windows(const struct trace *t, struct wins *ws, int64_t trace_end)
{
	struct pcall *c = NULL;
	size_t n = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < t->n_apis; i++) {
			const struct trace_api *a = &t->apis[i];
			const char *name = trace_str(t, a->name_id);
			int st =
			    is_call(name, "cudaProfilerStart") || is_call(name, "cuProfilerStart");
			if (!st && !is_call(name, "cudaProfilerStop") &&
			    !is_call(name, "cuProfilerStop"))
				continue;
			if (pass == 1)
				c[n] = (struct pcall){a->start_ns, a->end_ns, a->pid, st};
			n++;
		}
		if (pass == 0) {
			if (!n)
				return 0;
			c = malloc(n * sizeof(*c));
			if (!c)
				return -1;
			n = 0;
		}
	}
	qsort(c, n, sizeof(*c), cmp_pcall);
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0;) {
		uint32_t pid = c[i].pid;
		int open = 0;
		int64_t from = 0;
		for (; i < n && c[i].pid == pid; i++) {
			if (c[i].start_call && !open) {
				open = 1;
				from = c[i].end;
			} else if (!c[i].start_call && open) {
				open = 0;
				rc |= add_win(ws, from, c[i].start, pid, "cudaProfilerStart",
					      "cudaProfilerStop");
			}
		}
		if (open && rc == 0)
			rc = add_win(ws, from, trace_end, pid, "cudaProfilerStart", "program end");
	}
	free(c);
	return rc;
}

static int nvtx_windows(struct trace *t, const struct capture_spec *spec, struct wins *ws,
			const char *label)
{
	for (size_t i = 0; i < t->n_ranges; i++) {
		const struct trace_range *r = &t->ranges[i];
		if (r->kind != RANGE_NVTX ||
		    strcmp(trace_str(t, r->name_id), spec->nvtx_name) != 0 ||
		    strcmp(trace_str(t, r->domain_id), spec->nvtx_domain) != 0)
			continue;
		if (add_win(ws, r->start_ns, r->end_ns, r->pid, label, "range end") < 0)
			return -1;
	}
	return 0;
}

/* sorts, applies delay and duration, merges overlaps */
static void shape_windows(struct wins *ws, const struct capture_spec *spec, int64_t prog_start)
{
	int64_t from = spec->delay_ns > 0 ? prog_start + spec->delay_ns : INT64_MIN;
	size_t o = 0;
	if (ws->n > 1)
		qsort(ws->w, ws->n, sizeof(*ws->w), cmp_win);
	for (size_t i = 0; i < ws->n; i++) {
		struct cwin w = ws->w[i];
		if (w.end <= from)
			continue; /* all of it before the delay */
		if (w.start < from) {
			w.start = from;
			if (w.end < from)
				w.end = from;
			w.opened = "delay";
		}
		if (spec->duration_ns > 0 && w.end - w.start > spec->duration_ns) {
			w.end = w.start + spec->duration_ns;
			w.closed = "duration";
		}
		if (o && w.start <= ws->w[o - 1].end) {
			struct cwin *p = &ws->w[o - 1];
			if (w.end > p->end) {
				p->end = w.end;
				p->closed = w.closed;
			}
			continue;
		}
		ws->w[o++] = w;
	}
	ws->n = o;
}

/* the number of windows starting at or before ts */
static size_t starting_by(const struct wins *ws, int64_t ts)
{
	size_t lo = 0, hi = ws->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ws->w[mid].start <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* the window holding ts ([start, end), or [start, start] for an empty
 * one), or -1 */
static long find_win(const struct wins *ws, int64_t ts)
{
	size_t k = starting_by(ws, ts);
	if (k == 0)
		return -1;
	const struct cwin *w = &ws->w[k - 1];
	return ts < w->end || ts == w->start ? (long)(k - 1) : -1;
}

/* [s, e] meets a window */
static int overlaps(const struct wins *ws, int64_t s, int64_t e)
{
	if (find_win(ws, s) >= 0)
		return 1;
	size_t k = starting_by(ws, s); /* the first window starting after s */
	return k < ws->n && ws->w[k].start <= e;
}

static int64_t trace_last(const struct trace *t, int64_t from)
{
	int64_t e = from;
#define LAST(arr, field)                                                                           \
	for (size_t i = 0; i < t->n_##arr; i++)                                                    \
		if (t->arr[i].field > e)                                                           \
			e = t->arr[i].field;
	LAST(kernels, end_ns)
	LAST(copies, end_ns)
	LAST(memsets, end_ns)
	LAST(apis, end_ns)
	LAST(syncs, end_ns)
	LAST(ranges, end_ns)
	LAST(allocs, ts_ns)
	LAST(uvm, end_ns)
	LAST(host_samples, ts_ns)
	LAST(host_sched, ts_ns)
#undef LAST
	return e;
}

static uint64_t corr_key(uint32_t pid, uint32_t corr)
{
	return (uint64_t)pid << 32 | corr;
}

/* the window of a GPU row: its launching call's (map value = window + 1,
 * 0 = outside), or by its own start when no call was recorded */
static long gpu_win(const struct u64map *calls, const struct wins *ws, uint32_t pid, uint32_t corr,
		    int64_t start)
{
	uint64_t v;
	if (corr && u64map_get(calls, corr_key(pid, corr), &v))
		return (long)v - 1;
	return find_win(ws, start);
}

#define CUT(t, arr, KEEP, dropped)                                                                 \
	do {                                                                                       \
		size_t before_ = (t)->n_##arr;                                                     \
		TRACE_KEEP_ROWS(t, arr, KEEP);                                                     \
		*(dropped) += before_ - (t)->n_##arr;                                              \
	} while (0)

#define TRACE_KEEP_ROWS(t, name, KEEP)                                                             \
	do {                                                                                       \
		size_t o_ = 0;                                                                     \
		for (size_t i_ = 0; i_ < (t)->n_##name; i_++) {                                    \
			__typeof__((t)->name[0]) *x = &(t)->name[i_];                              \
			if (KEEP)                                                                  \
				(t)->name[o_++] = *x;                                              \
		}                                                                                  \
		(t)->n_##name = o_;                                                                \
	} while (0)

static int cut(struct trace *t, struct wins *ws, struct capture_result *r)
{
	struct u64map calls;
	if (u64map_init(&calls, t->n_apis) < 0)
		return -1;
	for (size_t i = 0; i < t->n_apis; i++) {
		const struct trace_api *a = &t->apis[i];
		if (a->correlation && u64map_put(&calls, corr_key(a->pid, a->correlation),
						 (uint64_t)(find_win(ws, a->start_ns) + 1)) < 0) {
			u64map_release(&calls);
			return -1;
		}
	}
	uint64_t *d = &r->dropped;
	size_t nk = t->n_kernels, o = 0;
	for (size_t i = 0; i < nk; i++) {
		const struct trace_kernel *k = &t->kernels[i];
		long w = gpu_win(&calls, ws, k->pid, k->correlation, k->start_ns);
		if (w < 0)
			continue;
		ws->w[w].kernels++;
		t->kernels[o++] = *k;
	}
	t->n_kernels = o;
	r->kernels_kept = o;
	r->kernels_dropped = nk - o;
	*d += r->kernels_dropped;
	CUT(t, copies, gpu_win(&calls, ws, x->pid, x->correlation, x->start_ns) >= 0, d);
	CUT(t, memsets, gpu_win(&calls, ws, x->pid, x->correlation, x->start_ns) >= 0, d);
	CUT(t, syncs, gpu_win(&calls, ws, x->pid, x->correlation, x->start_ns) >= 0, d);
	/* counters: correlation 0 holds the counters' own statistics */
	CUT(t, counters, x->correlation == 0 || gpu_win(&calls, ws, x->pid, x->correlation, 0) >= 0,
	    d);
	CUT(t, apis, find_win(ws, x->start_ns) >= 0, d);
	CUT(t, ranges, overlaps(ws, x->start_ns, x->end_ns), d);
	CUT(t, allocs, find_win(ws, x->ts_ns) >= 0, d);
	/* a migration or fault has no launch to follow: by its own time */
	CUT(t, uvm, overlaps(ws, x->start_ns, x->end_ns), d);
	CUT(t, samples, find_win(ws, x->ts_ns) >= 0, d);
	CUT(t, host_samples, find_win(ws, x->ts_ns) >= 0, d);
	CUT(t, host_sched, find_win(ws, x->ts_ns) >= 0, d);
	u64map_release(&calls);
	return 0;
}

size_t trace_capture_first(const struct trace *t, int64_t ts)
{
	size_t lo = 0, hi = t->n_capture_windows;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->capture_windows[mid].end_ns <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int64_t trace_capture_outside(const struct trace *t, int64_t s, int64_t e)
{
	if (!t->n_capture_windows || e <= s)
		return 0;
	int64_t in = 0;
	for (size_t i = trace_capture_first(t, s); i < t->n_capture_windows; i++) {
		const struct trace_capture_window *w = &t->capture_windows[i];
		if (w->start_ns >= e)
			break;
		int64_t a = w->start_ns > s ? w->start_ns : s, b = w->end_ns < e ? w->end_ns : e;
		if (b > a)
			in += b - a;
	}
	return (e - s) - in;
}

static const char *range_label(const struct capture_spec *spec, char *buf, size_t cap)
{
	switch (spec->mode) {
	case CAPTURE_PROFILER_API:
		return "cudaProfilerApi";
	case CAPTURE_NVTX:
		snprintf(buf, cap, "nvtx:%s%s%s", spec->nvtx_name, *spec->nvtx_domain ? "@" : "",
			 spec->nvtx_domain);
		return buf;
	default:
		return "";
	}
}

static void why_nothing(const struct capture_spec *spec, size_t raw, char *out, size_t cap)
{
	if (raw == 0 && spec->mode == CAPTURE_PROFILER_API)
		snprintf(out, cap,
			 "nothing was captured: the program never called cudaProfilerStart "
			 "(--capture-range cudaProfilerApi)");
	else if (raw == 0 && spec->mode == CAPTURE_NVTX)
		snprintf(out, cap,
			 "nothing was captured: no NVTX range named '%s'%s%s was recorded "
			 "(--capture-range nvtx:NAME)",
			 spec->nvtx_name, *spec->nvtx_domain ? " in domain " : "",
			 spec->nvtx_domain);
	else
		snprintf(out, cap,
			 "nothing was captured: every capture window ended before --delay %.9g s",
			 (double)spec->delay_ns / 1e9);
}

static int set_meta_i64(struct trace *t, const char *key, int64_t v)
{
	char b[32];
	snprintf(b, sizeof(b), "%lld", (long long)v);
	return trace_set_meta(t, key, b);
}

static int store(struct trace *t, const struct capture_spec *spec, const struct wins *ws,
		 const struct capture_result *r)
{
	for (size_t i = 0; i < ws->n; i++) {
		struct trace_capture_window *w = trace_add_capture_window(t);
		if (!w)
			return -1;
		w->start_ns = ws->w[i].start;
		w->end_ns = ws->w[i].end;
		w->pid = ws->w[i].pid;
		w->opened_id = trace_intern(t, ws->w[i].opened);
		w->closed_id = trace_intern(t, ws->w[i].closed);
		w->kernels = ws->w[i].kernels;
	}
	char lb[CAPTURE_NAME_MAX * 2 + 8];
	int rc = trace_set_meta(t, "capture_range", range_label(spec, lb, sizeof(lb)));
	rc |= set_meta_i64(t, "capture_delay_ns", spec->delay_ns);
	rc |= set_meta_i64(t, "capture_duration_ns", spec->duration_ns);
	rc |= set_meta_i64(t, "capture_span_ns", r->span_ns);
	rc |= set_meta_i64(t, "capture_captured_ns", r->captured_ns);
	rc |= set_meta_i64(t, "capture_dropped", (int64_t)r->dropped);
	rc |= trace_set_meta(t, "capture_status", r->status);
	return rc ? -1 : 0;
}

int trace_capture(struct trace *t, const struct capture_spec *spec, int64_t program_start_ns,
		  struct capture_result *r)
{
	memset(r, 0, sizeof(*r));
	int64_t end = trace_last(t, program_start_ns);
	struct wins ws = {NULL, 0, 0};
	char label[CAPTURE_NAME_MAX + 8];
	snprintf(label, sizeof(label), "nvtx:%s", spec->nvtx_name);
	int rc = spec->mode == CAPTURE_PROFILER_API ? profiler_windows(t, &ws, end)
		 : spec->mode == CAPTURE_NVTX
		     ? nvtx_windows(t, spec, &ws, label)
		     : add_win(&ws, program_start_ns, end, 0, "program start", "program end");
	size_t raw = ws.n;
	if (rc == 0) {
		shape_windows(&ws, spec, program_start_ns);
		rc = cut(t, &ws, r);
	}
	if (rc == 0) {
		r->windows = ws.n;
		r->span_ns = end - program_start_ns;
		for (size_t i = 0; i < ws.n; i++)
			r->captured_ns += ws.w[i].end - ws.w[i].start;
		if (!ws.n)
			why_nothing(spec, raw, r->status, sizeof(r->status));
		rc = store(t, spec, &ws, r);
	}
	free(ws.w);
	return rc;
}
