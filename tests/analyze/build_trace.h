/*
 * build_trace.h - helpers that build traces in memory for the analysis
 * tests: one H200-like device (132 SMs, cc 9.0), kernels with their launch
 * calls, copies, syncs and ranges. Times are in microseconds here.
 */
#ifndef GPUSCOPE_TEST_BUILD_TRACE_H
#define GPUSCOPE_TEST_BUILD_TRACE_H

#include <string.h>

#include "trace/trace.h"

#define US 1000LL

static inline void bt_init(struct trace *t)
{
	trace_init(t);
	struct trace_device *d = trace_add_device(t);
	d->id = 0;
	d->name_id = trace_intern(t, "NVIDIA H200");
	d->cc_major = 9;
	d->cc_minor = 0;
	d->sm_count = 132;
	d->max_threads_per_sm = 2048;
	d->max_blocks_per_sm = 32;
	d->regs_per_sm = 65536;
	d->smem_per_sm = 233472;
	d->max_smem_per_block = 232448;
	d->warp_size = 32;
	t->source = TRACE_SRC_RECORD;
}

static inline struct trace_api *bt_api(struct trace *t, double s_us, double e_us, int kind,
				       uint32_t corr, const char *name)
{
	struct trace_api *a = trace_add_api(t);
	a->start_ns = (int64_t)(s_us * US);
	a->end_ns = (int64_t)(e_us * US);
	a->pid = 100;
	a->tid = 1;
	a->correlation = corr;
	a->kind = (uint8_t)kind;
	a->name_id = trace_intern(t, name);
	return a;
}

static inline struct trace_kernel *bt_kernel(struct trace *t, double s_us, double e_us,
					     uint32_t stream, uint32_t corr, const char *name,
					     uint32_t grid, uint32_t block, uint32_t regs)
{
	struct trace_kernel *k = trace_add_kernel(t);
	k->start_ns = (int64_t)(s_us * US);
	k->end_ns = (int64_t)(e_us * US);
	k->pid = 100;
	k->stream = stream;
	k->correlation = corr;
	k->name_id = trace_intern(t, name);
	k->grid[0] = grid;
	k->grid[1] = k->grid[2] = 1;
	k->block[0] = block;
	k->block[1] = k->block[2] = 1;
	k->regs = regs;
	return k;
}

/* A kernel plus its cudaLaunchKernel call ending `lead_us` before it. */
static inline void bt_launched(struct trace *t, double s_us, double e_us, uint32_t stream,
			       uint32_t corr, const char *name, uint32_t grid, uint32_t block,
			       double api_s_us, double api_e_us)
{
	bt_api(t, api_s_us, api_e_us, API_LAUNCH, corr, "cudaLaunchKernel");
	bt_kernel(t, s_us, e_us, stream, corr, name, grid, block, 32);
}

static inline struct trace_copy *bt_copy(struct trace *t, double s_us, double e_us, uint32_t stream,
					 uint32_t corr, int kind, int src, int dst, uint64_t bytes)
{
	struct trace_copy *c = trace_add_copy(t);
	c->start_ns = (int64_t)(s_us * US);
	c->end_ns = (int64_t)(e_us * US);
	c->pid = 100;
	c->stream = stream;
	c->correlation = corr;
	c->kind = (uint8_t)kind;
	c->src_kind = (uint8_t)src;
	c->dst_kind = (uint8_t)dst;
	c->bytes = bytes;
	return c;
}

/* A counter value of the kernel launched with corr (metric: an ncu name). */
static inline void bt_counter(struct trace *t, uint32_t corr, const char *metric, double v)
{
	struct trace_counter *c = trace_add_counter(t);
	c->pid = 100;
	c->correlation = corr;
	c->metric_id = trace_intern(t, metric);
	c->value = v;
}

static inline struct trace_range *bt_range(struct trace *t, double s_us, double e_us, uint32_t tid,
					   const char *name)
{
	struct trace_range *r = trace_add_range(t);
	r->start_ns = (int64_t)(s_us * US);
	r->end_ns = (int64_t)(e_us * US);
	r->pid = 100;
	r->tid = tid;
	r->name_id = trace_intern(t, name);
	r->kind = RANGE_NVTX;
	return r;
}

#endif
