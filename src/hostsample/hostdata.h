/*
 * hostdata.h - host stacks and frameworks in a struct trace: interning
 * frames and stacks (the prefix tree of trace.h), walking a stack, and the
 * small API report reads (docs/host-sampling.md, "For report").
 *
 * Invariants:
 *  1. host_frames[i].id == i + 1 and host_stacks[i].id == i + 1 for rows
 *     made here; a stack's parent has a smaller id, so walks end (a
 *     database that breaks this is walked up to where it breaks).
 *  2. Equal frames (kind, name, module, file, line) share one id, equal
 *     (parent, frame) nodes one stack id.
 */
#ifndef GPUSCOPE_HOSTSAMPLE_HOSTDATA_H
#define GPUSCOPE_HOSTSAMPLE_HOSTDATA_H

#include <stddef.h>
#include <stdint.h>

#include "trace/trace.h"
#include "util/hmap.h"

struct host_intern {
	struct trace *t;
	struct hindex frames; /* over t->host_frames */
	struct u64map nodes;  /* parent_id << 32 | frame_id -> stack id */
};

/* Indexes the frames and stacks t already has. 0 or -1 (out of memory). */
int host_intern_init(struct host_intern *h, struct trace *t);
void host_intern_release(struct host_intern *h);

/* The id of a frame (added when new); 0 when out of memory. NULL strings
 * are "". */
uint32_t host_frame(struct host_intern *h, enum host_frame_kind kind, const char *name,
		    const char *module, const char *file, uint32_t line);

/* The id of the stack of n frame ids, innermost first (added when new);
 * 0 for n == 0 or when out of memory. */
uint32_t host_stack(struct host_intern *h, const uint32_t *frames, size_t n);

/* The frame ids of a stack, innermost first, at most cap; returns how many
 * were written (the walk stops at a broken link, invariant 1). */
size_t host_stack_frames(const struct trace *t, uint32_t stack_id, uint32_t *frames, size_t cap);

/* The frame row for an id, or NULL. */
const struct trace_host_frame *host_frame_row(const struct trace *t, uint32_t frame_id);

/* For report: the version (maybe "") of framework name ("PyTorch", "JAX/XLA",
 * "cuDNN", ...) loaded by process pid, or by any process when pid is 0;
 * NULL when it was not loaded (or the trace has no frameworks table). */
const char *host_framework_version(const struct trace *t, uint32_t pid, const char *name);

/* For report: why host sampling is off or partial for process pid ("" when
 * it sampled as asked, NULL when the trace has no row for pid). */
const char *host_sampling_status(const struct trace *t, uint32_t pid);

#endif
