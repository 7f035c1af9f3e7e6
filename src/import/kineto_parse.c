/*
 * kineto_parse.c - the PyTorch importer's parser state machine: yajl
 * callbacks that keep only the fields of the event being parsed (struct kev)
 * and hand it to event mapping (kineto_emit) when its object closes, and
 * read deviceProperties, distributedInfo, baseTimeNanoseconds and the other
 * top-level scalars (meta kineto.*).
 *
 * Invariant: nothing in the input sizes an allocation here: strings are cut
 * at KEV_NAME_MAX (or the field's buffer), nesting is refused past MAX_DEPTH.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/kineto_int.h"

#define CAT(s, c)                                                                                  \
	{                                                                                          \
		s, sizeof(s) - 1, c                                                                \
	}
static const struct {
	const char *name;
	size_t len;
	enum cat cat;
} cat_table[] = {
    CAT("kernel", CAT_KERNEL),
    CAT("gpu_memcpy", CAT_MEMCPY),
    CAT("gpu_memset", CAT_MEMSET),
    CAT("cuda_runtime", CAT_RUNTIME),
    /* PyTorch on ROCm 6.x with rocprofiler-sdk names HIP's calls so */
    CAT("hip_runtime", CAT_RUNTIME),
    CAT("cuda_driver", CAT_DRIVER),
    CAT("cuda_sync", CAT_SYNC),
    CAT("cpu_op", CAT_CPU_OP),
    CAT("user_annotation", CAT_USER_ANN),
    CAT("gpu_user_annotation", CAT_GPU_USER_ANN),
    CAT("python_function", CAT_PYTHON),
    CAT("ac2g", CAT_AC2G),
    CAT("cuda_profiler_range", CAT_PROFILER_RANGE),
    /* the names older kineto versions wrote (PyTorch 1.8-era traces,
     * torch-tb-profiler's test traces): the same events */
    CAT("Kernel", CAT_KERNEL),
    CAT("Memcpy", CAT_MEMCPY),
    CAT("Memset", CAT_MEMSET),
    CAT("Runtime", CAT_RUNTIME),
    CAT("Operator", CAT_CPU_OP),
};
#undef CAT

static int keyeq_n(const unsigned char *k, size_t len, const char *lit, size_t n)
{
	return n == len && memcmp(k, lit, n) == 0;
}

/* lit is a string literal: its length is known at compile time */
#define keyeq(k, len, lit) keyeq_n(k, len, lit, sizeof(lit) - 1)

/* ---- one event's fields (shared with the direct decoder, kineto_direct.c) ---- */

void kineto_ev_reset(struct kev *e)
{
	char *name = e->name;
	memset(e, 0, offsetof(struct kev, cargs));
	e->n_cargs = 0;
	e->n_rargs = 0;
	e->name = name;
	e->name_len = 0;
}

void kineto_set_cat(struct kev *e, const char *s, size_t len)
{
	/* a known category (nearly every event; the names differ: one match
	 * at most): its name is the text as is, nothing to replace in it */
	for (size_t i = 0; i < sizeof(cat_table) / sizeof(cat_table[0]); i++)
		if (cat_table[i].len == len && cat_table[i].name[0] == s[0] &&
		    memcmp(s, cat_table[i].name, len) == 0) {
			memcpy(e->cat_str, cat_table[i].name, len + 1);
			e->cat = cat_table[i].cat;
			return;
		}
	size_t n = len < sizeof(e->cat_str) - 1 ? len : sizeof(e->cat_str) - 1;
	memcpy(e->cat_str, s, n);
	e->cat_str[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if (!e->cat_str[i] || e->cat_str[i] == ',' || e->cat_str[i] == ':')
			e->cat_str[i] = '_';
	e->cat = CAT_OTHER;
}

void kineto_set_name(struct kev *e, const char *s, size_t len)
{
	size_t n = len < KEV_NAME_MAX ? len : KEV_NAME_MAX;
	const char *nul = memchr(s, '\0', n);
	if (nul)
		n = (size_t)(nul - s);
	memcpy(e->name, s, n);
	e->name_len = n;
}

void kineto_set_sync_kind(struct kev *e, const char *s, size_t len)
{
	size_t n = len < sizeof(e->sync_kind) - 1 ? len : sizeof(e->sync_kind) - 1;
	memcpy(e->sync_kind, s, n);
	e->sync_kind[n] = '\0';
}

enum akey kineto_args_key(const unsigned char *k, size_t len)
{
	/* most keys are none of these ("External id", "Ev Idx", ...): their
	 * first byte says so without a compare */
	switch (len ? k[0] : 0) {
	case 'b':
	case 'c':
	case 'd':
	case 'g':
	case 'i':
	case 'r':
	case 's':
		break;
	case 'I':
		return keyeq(k, len, "Input Dims") ? AK_IN_DIMS : AK_OTHER;
	default:
		return AK_OTHER;
	}
	return keyeq(k, len, "device")		       ? AK_DEVICE
	       : keyeq(k, len, "stream")	       ? AK_STREAM
	       : keyeq(k, len, "correlation")	       ? AK_CORRELATION
	       : keyeq(k, len, "grid")		       ? AK_GRID
	       : keyeq(k, len, "block")		       ? AK_BLOCK
	       : keyeq(k, len, "registers per thread") ? AK_REGS
	       : keyeq(k, len, "shared memory")	       ? AK_SMEM
	       : keyeq(k, len, "graph id")	       ? AK_GRAPH
	       : keyeq(k, len, "bytes")		       ? AK_BYTES
	       : keyeq(k, len, "context")	       ? AK_CONTEXT
	       : keyeq(k, len, "inDevice")	       ? AK_IN_DEVICE
	       : keyeq(k, len, "cuda_sync_kind")       ? AK_SYNC_KIND
						       : AK_OTHER;
}

int kineto_set_arg(struct kev *e, enum akey ak, int64_t v)
{
	uint32_t u;
	int range_ok = kineto_to_u32(v, &u) == 0 || ak == AK_BYTES;
	if (!range_ok && ak != AK_CORRELATION)
		return -1;
	switch (ak) {
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
	return 0;
}

/* ---- yajl callbacks ---- */

static int cb_start_map(void *ctx)
{
	struct kparse *p = ctx;
	p->depth++;
	if (p->depth > MAX_DEPTH)
		return kineto_fail(p->k, "json nested deeper than %s levels", "64");
	if (p->depth == 1) {
		p->top = 1;
		return 1;
	}
	if (p->events_depth && p->depth == p->events_depth + 1) {
		p->ev_depth = p->depth;
		p->ek = EK_NONE;
		kineto_ev_reset(&p->ev);
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
		p->dev.id = (uint32_t)p->k->t->n_devices;
		p->dev.warp_size = 32;
		return 1;
	}
	if (p->depth == 2 && p->top == 1 && p->top_key == TK_DIST)
		p->dist_depth = 2;
	if (p->depth == 2 && p->top == 1 && p->top_key == TK_OTHERDATA)
		p->od_depth = 2;
	return 1;
}

static int cb_end_map(void *ctx)
{
	struct kparse *p = ctx;
	int ok = 1;
	if (p->depth == p->ev_depth) {
		ok = kineto_emit(p->k, &p->ev);
		p->ev_depth = 0;
	} else if (p->depth == p->args_depth) {
		p->args_depth = 0;
		p->ek = EK_NONE;
	} else if (p->depth == p->dev_depth) {
		struct trace_device *d = trace_add_device(p->k->t);
		if (!d)
			return kineto_fail(p->k, "out of memory%s", "");
		*d = p->dev;
		p->dev_depth = 0;
	} else if (p->depth == p->dist_depth) {
		p->dist_depth = 0;
	} else if (p->depth == p->od_depth) {
		p->od_depth = 0;
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
		return kineto_fail(p->k, "json nested deeper than %s levels", "64");
	if (p->depth == 1) {
		p->top = 2;
		p->events_depth = 1;
		p->saw_events = 1;
	} else if (p->depth == 2 && p->top == 1 && p->top_key == TK_EVENTS) {
		p->events_depth = 2;
		p->saw_events = 1;
	} else if (p->depth == 2 && p->top == 1 && p->top_key == TK_DEVPROPS) {
		p->dp_depth = 2;
	} else if (p->depth == 2 && p->top == 1 && p->top_key == TK_OTHER &&
		   !strcmp(p->carg_key, "nodes")) {
		p->saw_nodes = 1; /* an execution trace's (kineto.c names it) */
	} else if (p->args_depth && p->depth == p->args_depth + 1 &&
		   (p->ak == AK_GRID || p->ak == AK_BLOCK)) {
		p->dims_depth = p->depth;
		p->dims_which = p->ak;
		p->dims_idx = 0;
	} else if (p->args_depth && p->depth == p->args_depth + 1 && p->ak == AK_IN_DIMS &&
		   !p->in_depth && (p->ev.shape_op = (uint8_t)kineto_shape_op(&p->ev))) {
		/* the inputs' dimensions: [[V, D], [B, L], [], ...] */
		p->in_depth = p->depth;
		p->ev.n_in = 0;
	} else if (p->in_depth && p->depth == p->in_depth + 1) {
		if (p->ev.n_in < KEV_IN_MAX)
			p->ev.in_ndims[p->ev.n_in] = 0;
	} else if (p->in_depth && p->depth > p->in_depth + 1) {
		/* a list of tensors' dimensions: not one tensor's */
		if (p->ev.n_in < KEV_IN_MAX)
			p->ev.in_ndims[p->ev.n_in] = KEV_DIMS_LIST;
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
	else if (p->in_depth && p->depth == p->in_depth)
		p->in_depth = 0;
	else if (p->in_depth && p->depth == p->in_depth + 1 && p->ev.n_in < KEV_IN_MAX)
		p->ev.n_in++;
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
			     : keyeq(k, len, "otherData")	    ? TK_OTHERDATA
								    : TK_OTHER;
		if (p->top_key == TK_EVENTS && p->seen_events++)
			return kineto_fail(p->k, "two traceEvents arrays in one trace%s", "");
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
		p->ak = kineto_args_key(k, len);
		if (p->ak == AK_OTHER || p->ak == AK_IN_DIMS) {
			size_t n = len < sizeof(p->carg_key) - 1 ? len : sizeof(p->carg_key) - 1;
			memcpy(p->carg_key, k, n);
			p->carg_key[n] = '\0';
			if (p->ev.cat == CAT_PROFILER_RANGE) {
				/* a longer name is no metric of ours: cut, it stays apart */
				n = len < sizeof(p->range_key) - 1 ? len : sizeof(p->range_key) - 1;
				memcpy(p->range_key, k, n);
				p->range_key[n] = '\0';
			}
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
			if (keyeq_n(k, len, dk[i], strlen(dk[i])))
				p->dev_key = i;
		return 1;
	}
	if (p->od_depth && p->depth == p->od_depth) {
		p->od_key = keyeq(k, len, "generator");
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

/* A metric value of a cuda_profiler_range event: kineto writes numbers, a
 * string holding one is taken too; anything else is left out. */
static void range_value(struct kev *e, const char *key, const char *s, size_t len)
{
	char tmp[64];
	if (len == 0 || len >= sizeof(tmp))
		return;
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	char *end;
	double d = strtod(tmp, &end);
	if (*end || !isfinite(d))
		return;
	for (int i = 0; i < e->n_rargs; i++)
		if (strcmp(e->rargs[i].key, key) == 0)
			return; /* a repeated key: the first value stands */
	snprintf(e->rargs[e->n_rargs].key, sizeof(e->rargs[0].key), "%s", key);
	e->rargs[e->n_rargs++].v = d;
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
				kineto_set_cat(e, s, len);
			}
			break;
		case EK_NAME:
			if (is_str) {
				kineto_set_name(e, s, len);
			}
			break;
		case EK_PID:
		case EK_TID:
			if (!is_num && !is_str)
				break;
			if (kineto_parse_i64(s, len, &v) < 0) {
				/* a number beyond int64 is out of range; a string pid
				 * ("Traces") names no process */
				if (is_num)
					e->has |= p->ek == EK_PID ? H_PID_BAD : H_TID_BAD;
				break;
			}
			{
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
			if (is_str && p->ek == EK_DUR)
				e->has |= H_DUR_BAD; /* a string ts: an event without ts */
			if (!is_num)
				break;
			if (kineto_parse_us_ns(s, len, &v) < 0)
				return kineto_fail(p->k, "timestamp out of range in event %s",
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
			if (is_num && kineto_parse_i64(s, len, &v) == 0) {
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
		/* "Input Dims" that is no array: an arg like any other */
		if (p->ak == AK_IN_DIMS)
			p->ak = AK_OTHER;
		if (p->ak == AK_SYNC_KIND && is_str) {
			kineto_set_sync_kind(e, s, len);
			return 1;
		}
		if (p->ak == AK_OTHER && e->cat == CAT_PROFILER_RANGE) {
			/* a CUPTI metric name has "__" ("dram__bytes_read.sum");
			 * "External id" and the like are not metrics */
			if (e->n_rargs < MAX_RANGE_METRICS && strstr(p->range_key, "__"))
				range_value(e, p->range_key, s, len);
			return 1;
		}
		if (!is_num)
			return 1;
		if (p->ak == AK_OTHER) {
			/* counter values, and an instant event's ([memory]) */
			if ((e->ph == 'C' || e->ph == 'i') && e->n_cargs < MAX_CARGS) {
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
		if (kineto_parse_i64(s, len, &v) < 0 || kineto_set_arg(e, p->ak, v) < 0)
			return kineto_fail(p->k, "number out of range in event args%s", "");
		return 1;
	}
	if (p->in_depth && p->depth == p->in_depth + 1) {
		/* one dimension of a kept input; anything else marks it a list */
		struct kev *e = &p->ev;
		if (e->n_in >= KEV_IN_MAX || e->in_ndims[e->n_in] == KEV_DIMS_LIST)
			return 1;
		if (!is_num || kineto_parse_i64(s, len, &v) < 0 || v < 0 ||
		    e->in_ndims[e->n_in] >= KEV_DIMS_MAX)
			e->in_ndims[e->n_in] = KEV_DIMS_LIST;
		else
			e->in_dims[e->n_in][e->in_ndims[e->n_in]++] = v;
		return 1;
	}
	if (p->dims_depth && p->depth == p->dims_depth) {
		if (!is_num)
			return 1;
		uint32_t u;
		if (kineto_parse_i64(s, len, &v) < 0 || v < 0 || kineto_to_u32(v, &u) < 0)
			return kineto_fail(p->k, "grid or block dimension out of range%s", "");
		/* three whole numbers at most (x, y, z): [1.5, 2.5] or five
		 * dimensions are no launch configuration */
		if (p->dims_idx >= 3 || memchr(s, '.', len) || memchr(s, 'e', len) ||
		    memchr(s, 'E', len))
			return kineto_fail(p->k, "grid or block is not 1 to 3 whole numbers%s", "");
		(p->dims_which == AK_GRID ? p->ev.grid : p->ev.block)[p->dims_idx] = u;
		p->dims_idx++;
		return 1;
	}
	if (p->dev_depth && p->depth == p->dev_depth) {
		struct trace_device *d = &p->dev;
		if (p->dev_key == 1 && is_str) {
			size_t n = strnlen(s, len);
			d->name_id = trace_intern_n(p->k->t, s, n);
			return 1;
		}
		if (!is_num || p->dev_key < 0 || kineto_parse_i64(s, len, &v) < 0 || v < 0)
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
	if (p->od_depth && p->depth == p->od_depth && p->od_key && is_str) {
		/* the program that wrote the file: gpuscope's export is refused
		 * (kineto_post.c) */
		char val[64];
		size_t n = len < sizeof(val) - 1 ? len : sizeof(val) - 1;
		memcpy(val, s, n);
		val[n] = '\0';
		val[strnlen(val, n)] = '\0';
		if (trace_set_meta(p->k->t, "kineto.otherData.generator", val) < 0)
			return kineto_fail(p->k, "out of memory%s", "");
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
		if (trace_set_meta(p->k->t, key, val) < 0)
			return kineto_fail(p->k, "out of memory%s", "");
		return 1;
	}
	if (p->depth == 1 && p->top == 1) {
		if (p->top_key == TK_BASE && !is_num)
			return kineto_fail(p->k, "baseTimeNanoseconds is not a number%s", "");
		if (p->top_key == TK_BASE && is_num) {
			if (kineto_parse_i64(s, len, &v) < 0)
				return kineto_fail(p->k, "baseTimeNanoseconds out of range%s", "");
			p->base_ns = v;
			p->has_base = 1;
		} else if (p->top_key == TK_OTHER && (is_num || is_str) && len < 256 &&
			   p->k->t->n_meta < 64) {
			char key[64], val[256];
			snprintf(key, sizeof(key), "kineto.%s", p->carg_key);
			memcpy(val, s, len);
			val[len] = '\0';
			if (trace_set_meta(p->k->t, key, val) < 0)
				return kineto_fail(p->k, "out of memory%s", "");
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

const yajl_callbacks kineto_callbacks = {
    cb_null,	  cb_bool,    NULL,	  NULL,		  cb_number,	cb_string,
    cb_start_map, cb_map_key, cb_end_map, cb_start_array, cb_end_array,
};
