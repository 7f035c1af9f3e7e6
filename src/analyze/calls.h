/*
 * calls.h - what the "other CUDA calls" idle is (issue #16 item 11): the
 * GPU idle time spent while the host was inside a CUDA call that is not a
 * launch, a copy or a synchronization, by call name (without CUPTI's
 * version suffix) and by cause: allocation, free (which waits for the
 * device), module and library loads (lazy loading, JIT), context
 * creation, stream and event creation, device queries, host memory
 * registration, graph capture and instantiation.
 *
 * Invariants:
 *  1. A moment of idle is charged to one call (the earliest of overlapping
 *     calls), and the charges sum to at most the idle breakdown's
 *     "other CUDA calls" time (idle.c), scaled down to it when calls on
 *     other threads made them overlap launches there.
 *  2. The list is sorted by idle, then call time, descending.
 */
#ifndef GPUSCOPE_CALLS_H
#define GPUSCOPE_CALLS_H

#include <stddef.h>
#include <stdint.h>

struct analysis;

enum call_cause {
	CC_ALLOC,
	CC_FREE,
	CC_MODULE,
	CC_CONTEXT,
	CC_STREAM_EVENT,
	CC_QUERY,
	CC_HOST_REGISTER,
	CC_GRAPH,
	CC_OTHER,
	CC_COUNT
};

struct an_call {
	char name[64]; /* "cudaFree" */
	enum call_cause cause;
	uint64_t count;	 /* calls in the analysed window */
	int64_t call_ns; /* time inside them */
	int64_t idle_ns; /* GPU idle charged to them */
};

struct an_calls {
	struct an_call *v;
	size_t n;
	int64_t idle_ns; /* the sum of v[].idle_ns */
	int64_t cause_idle_ns[CC_COUNT];
	uint64_t cause_count[CC_COUNT];
};

/* Fills a->calls. 0, or -1 with err (out of memory). */
int an_calls(struct analysis *a, char *err);
void an_calls_release(struct an_calls *c);
enum call_cause call_cause_of(const char *name);
const char *call_cause_name(enum call_cause c); /* "allocation", "free", ... */

#endif
