/*
 * calls.c - the GPU idle inside other CUDA calls, by call (calls.h).
 *
 * The calls idle.c counts as "other CUDA calls" (not launches, copies,
 * memsets or synchronizations) are walked in start order with a frontier,
 * so that a moment covered by two calls is charged once; the GPU busy
 * union (timeline.c) takes out the part during which the GPU worked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis_int.h"
#include "analyze/calls.h"
#include "util/apiname.h"
#include "util/error.h"
#include "util/i18n.h"
#include "util/hmap.h"
#include "util/vec.h"

static int has(const char *s, const char *p)
{
	return strstr(s, p) != NULL;
}

enum call_cause call_cause_of(const char *n)
{
	if (has(n, "CtxCreate") || has(n, "PrimaryCtxRetain") || !strcmp(n, "cuInit") ||
	    has(n, "CtxDestroy") || has(n, "PrimaryCtxRelease") || has(n, "PrimaryCtxReset") ||
	    has(n, "DeviceReset") || has(n, "SetDevice"))
		return CC_CONTEXT;
	if (has(n, "Get") || has(n, "Query") || has(n, "Occupancy") || has(n, "Peek") ||
	    has(n, "TotalMem") || has(n, "DriverVersion") || has(n, "RuntimeVersion") ||
	    has(n, "IsCapturing"))
		return CC_QUERY;
	/* pinned host memory (cudaHostAlloc, cudaMallocHost, cuMemHostAlloc)
	 * is host memory registration, not a device allocation */
	if (has(n, "HostAlloc") || has(n, "MallocHost") || has(n, "FreeHost"))
		return CC_HOST_REGISTER;
	if (has(n, "Free"))
		return CC_FREE;
	if (has(n, "Malloc") || has(n, "MemAlloc") || has(n, "HostAlloc") || has(n, "MemCreate") ||
	    has(n, "MemMap") || has(n, "MemAddressReserve") || has(n, "MemPool"))
		return CC_ALLOC;
	if (has(n, "ModuleLoad") || has(n, "LibraryLoad") || has(n, "Link") ||
	    has(n, "ModuleUnload") || has(n, "LibraryUnload"))
		return CC_MODULE;
	if (has(n, "StreamCreate") || has(n, "StreamDestroy") || has(n, "EventCreate") ||
	    has(n, "EventDestroy"))
		return CC_STREAM_EVENT;
	if (has(n, "HostRegister") || has(n, "HostUnregister"))
		return CC_HOST_REGISTER;
	if (has(n, "Graph") || has(n, "StreamBeginCapture") || has(n, "StreamEndCapture"))
		return CC_GRAPH;
	return CC_OTHER;
}

const char *call_cause_name(enum call_cause c)
{
	static const char *const n[CC_COUNT] = {N_("allocation"),
						N_("free"),
						N_("module load"),
						N_("context creation"),
						N_("stream/event creation"),
						N_("device query"),
						N_("host memory registration"),
						N_("graph capture"),
						N_("other")};
	return c < CC_COUNT ? n[c] : "other";
}

static int other_call(const struct trace_api *p)
{
	return p->kind == API_OTHER || p->kind == API_ALLOC || p->kind == API_FREE;
}

static int cmp_call(const void *x, const void *y)
{
	const struct an_call *a = x, *b = y;
	if (a->idle_ns != b->idle_ns)
		return a->idle_ns > b->idle_ns ? -1 : 1;
	if (a->call_ns != b->call_ns)
		return a->call_ns > b->call_ns ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* The start of each process's first CUDA call in the whole trace: CUDA
 * creates a process's context lazily, inside its first call that is not a
 * query, whatever the call is (cudaFree(0) is the idiom): that call's time
 * is context creation. */
static int first_calls(struct u64map *m, const struct trace *w)
{
	if (u64map_init(m, 16) < 0)
		return -1;
	/* per string id: 0 not yet classified, 1 a query, 2 not (a name once) */
	uint8_t *q = calloc(w->n_strings ? w->n_strings : 1, 1);
	if (!q)
		return -1;
	for (size_t i = 0; i < w->n_apis; i++) {
		uint64_t v;
		const struct trace_api *p = &w->apis[i];
		uint8_t c = p->name_id < w->n_strings ? q[p->name_id] : 0;
		if (!c) {
			c = call_cause_of(trace_str(w, p->name_id)) == CC_QUERY ? 1 : 2;
			if (p->name_id < w->n_strings)
				q[p->name_id] = c;
		}
		/* queries (cudaGetDeviceCount, cudaGetDevice) come before a context */
		if (c == 1)
			continue;
		if (!u64map_get(m, p->pid, &v) &&
		    u64map_put(m, p->pid, (uint64_t)p->start_ns) < 0) {
			free(q);
			return -1;
		}
	}
	free(q);
	return 0;
}

static struct an_call *entry(struct an_calls *c, size_t *cap, const char *nm, enum call_cause cause)
{
	for (size_t k = 0; k < c->n; k++)
		if (c->v[k].cause == cause &&
		    strncmp(c->v[k].name, nm, sizeof(c->v[k].name) - 1) == 0)
			return &c->v[k];
	struct an_call *x = VEC_PUSH(c->v, c->n, *cap);
	if (x) {
		memset(x, 0, sizeof(*x));
		snprintf(x->name, sizeof(x->name), "%s", nm);
		x->cause = cause;
	}
	return x;
}

int an_calls(struct analysis *a, char *err)
{
	const struct trace *t = a->t;
	struct an_calls *c = &a->calls;
	size_t cap = 0;
	struct u64map first = {0};
	if (first_calls(&first, a->whole ? a->whole : t) < 0) {
		u64map_release(&first);
		return error_set(err, "out of memory");
	}
	/* one entry per (stripped) name: few distinct names, a short list */
	uint32_t *slot = calloc(t->n_strings ? t->n_strings : 1, sizeof(*slot));
	if (!slot) {
		u64map_release(&first);
		return error_set(err, "out of memory");
	}
	int64_t frontier = INT64_MIN;
	for (size_t i = 0; i < t->n_apis; i++) {
		const struct trace_api *p = &t->apis[i];
		if (!other_call(p))
			continue;
		uint32_t id = p->name_id < t->n_strings ? p->name_id : 0;
		uint64_t f0;
		int ctx = u64map_get(&first, p->pid, &f0) && (int64_t)f0 == p->start_ns;
		struct an_call *x = NULL;
		if (ctx || !slot[id]) {
			char buf[64];
			const char *nm = gs_api_name(trace_str(t, id), buf, sizeof(buf));
			x = entry(c, &cap, nm, ctx ? CC_CONTEXT : call_cause_of(nm));
			if (!x) {
				free(slot);
				u64map_release(&first);
				an_calls_release(c);
				return error_set(err, "out of memory");
			}
			if (!ctx)
				slot[id] = (uint32_t)(x - c->v) + 1;
		} else {
			x = &c->v[slot[id] - 1];
		}
		x->count++;
		x->call_ns += p->end_ns - p->start_ns;
		int64_t s = p->start_ns > frontier ? p->start_ns : frontier, e = p->end_ns;
		if (e > frontier)
			frontier = e;
		s = s < a->start_ns ? a->start_ns : s;
		e = e > a->end_ns ? a->end_ns : e;
		if (e > s)
			x->idle_ns += (e - s) - an_busy_between(a, s, e);
	}
	free(slot);
	u64map_release(&first);
	int64_t sum = 0;
	for (size_t k = 0; k < c->n; k++)
		sum += c->v[k].idle_ns;
	/* invariant 1: never more than the idle breakdown says */
	if (sum > a->idle.api_ns && sum > 0) {
		double f = (double)a->idle.api_ns / (double)sum;
		for (size_t k = 0; k < c->n; k++)
			c->v[k].idle_ns = (int64_t)((double)c->v[k].idle_ns * f);
	}
	for (size_t k = 0; k < c->n; k++) {
		c->idle_ns += c->v[k].idle_ns;
		c->cause_idle_ns[c->v[k].cause] += c->v[k].idle_ns;
		c->cause_count[c->v[k].cause] += c->v[k].count;
	}
	if (c->n)
		qsort(c->v, c->n, sizeof(*c->v), cmp_call);
	return 0;
}

void an_calls_release(struct an_calls *c)
{
	free(c->v);
	memset(c, 0, sizeof(*c));
}
