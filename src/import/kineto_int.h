/*
 * kineto_int.h - the PyTorch importer's private parts, one job per file:
 *
 *   kineto.c        the driver: input sources (gzip or plain, file or
 *                   memory), yajl with its capped allocator, progress
 *   kineto_parse.c  the parser state machine: yajl callbacks that fill one
 *                   struct kev per traceEvents element, deviceProperties,
 *                   distributedInfo and baseTimeNanoseconds
 *   kineto_event.c  event mapping: one struct kev into trace rows (the
 *                   sink), plus the number rules (µs text to exact ns)
 *   kineto_post.c   post passes once the stream is done (flows, pids, API
 *                   syncs, range depths, the base time, meta)
 *   kineto_ranges.c torch.profiler's CUPTI counter ranges (cuda_profiler_range
 *                   events) paired with their launches into counter rows
 *
 * A struct kparse is the state of one parse and a struct ksink what event
 * mapping has collected; neither is shared, nothing here is static and
 * mutable (the importer is reentrant).
 */
#ifndef GPUSCOPE_KINETO_INT_H
#define GPUSCOPE_KINETO_INT_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <yajl/yajl_parse.h>

#include "trace/trace.h"
#include "util/error.h"
#include "util/timing.h"

struct kineto_progress;

#define MAX_DEPTH 64
#define KEV_NAME_MAX 65536
#define MAX_UNKNOWN 32	     /* kinds named in meta import.unknown, the rest are "other" */
#define MAX_UNKNOWN_SEEN 256 /* kinds counted apiece while parsing (per chunk) */
#define MAX_CARGS 8
#define MAX_RANGE_METRICS 64 /* metric values kept per cuda_profiler_range event */
#define RANGE_METRIC_KEY 128
#define KNAME_CACHE 512 /* kineto_intern_name's cache (a power of two) */
/* Timestamps below this (ns) are relative to baseTimeNanoseconds. */
#define RELATIVE_TS_LIMIT_NS 100000000000000000LL

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
	CAT_PROFILER_RANGE, /* "cuda_profiler_range": one kernel's CUPTI counters */
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
	AK_IN_DIMS, /* "Input Dims" (record_shapes) */
	AK_OTHER,
};
/* The ops whose input shapes are kept (kineto_shape_op): the token ids an
 * embedding looks up, and the attention's mask (a padded batch's). */
enum shape_op {
	SHAPE_NONE,
	SHAPE_EMBEDDING,
	SHAPE_SDPA,
};
#define KEV_IN_MAX 4		/* inputs whose dimensions are kept */
#define KEV_DIMS_MAX 4		/* dimensions kept of each */
#define KEV_DIMS_LIST UINT8_MAX /* in_ndims: more dimensions, or a list of tensors */
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
	H_PID_BAD = 1 << 10, /* a number too large for int64 */
	H_TID_BAD = 1 << 11,
	H_DUR_BAD = 1 << 12, /* a dur that is not a number */
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
	uint8_t shape_op; /* enum shape_op: "Input Dims" read into in_* below */
	uint8_t n_in;	  /* inputs read (at most KEV_IN_MAX) */
	struct {
		char key[48];
		double v;
	} cargs[MAX_CARGS];
	int n_cargs;
	/* a cuda_profiler_range event's metric values (args whose key is a CUPTI
	 * metric name, "unit__counter..."; "cat" precedes "args" in kineto's
	 * output, which is when they are kept) */
	struct {
		char key[RANGE_METRIC_KEY];
		double v;
	} rargs[MAX_RANGE_METRICS];
	int n_rargs;
	/* the first n_in inputs' dimensions (not reset: n_in says how many) */
	uint8_t in_ndims[KEV_IN_MAX];
	int64_t in_dims[KEV_IN_MAX][KEV_DIMS_MAX];
};

/* One cuda_profiler_range event; its values are counter rows whose
 * correlation is the range's index in the file until kineto_ranges.c
 * pairs it with a launch. */
struct kprange {
	int64_t start, end;
	uint32_t device, stream;
	uint32_t name_id;
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

/* What the kept input shapes say (kineto_shapes.c): the token batches
 * embeddings looked up and the attention masks that broadcast over the
 * heads (a padding mask, [B, 1, Lq, Lk]), each by distinct (B, L) in
 * first-seen order with its count; the scaled-dot-product attentions. */
#define KSHAPES_MAX 32 /* distinct (B, L) kept of each; more are counted in other */
struct kshape {
	int64_t b, l;
	uint64_t n;
};
struct kshapes {
	struct kshape tok[KSHAPES_MAX], mask[KSHAPES_MAX];
	size_t n_tok, n_mask;
	uint64_t tok_other, mask_other, attn;
};
/* An op's shapes kept when its name and category are one of enum shape_op
 * (SHAPE_NONE otherwise). */
enum shape_op kineto_shape_op(const struct kev *e);
/* Counts e's shapes (its inputs read) into s. */
void kineto_shapes_add(struct kshapes *s, const struct kev *e);
/* Adds a chunk's counts (in file order after s's). */
void kineto_shapes_merge(struct kshapes *s, const struct kshapes *c);
/* Writes s into t's meta (kineto.shapes.*), when it holds any; -1 when out
 * of memory. */
int kineto_shapes_meta(struct trace *t, const struct kshapes *s);

/* What event mapping collects (kineto_event.c) for the post passes. */
struct ksink {
	struct trace *t;
	char *err; /* GS_ERR_LEN */
	int failed;
	uint64_t n_events;
	uint64_t max_events;	       /* 0: no cap (kineto_options.max_events) */
	uint64_t n_direct;	       /* of them, decoded by kineto_direct.c */
	struct unknown_count *unknown; /* in order of first sight */
	size_t n_unknown, cap_unknown;
	uint64_t unknown_other;
	uint64_t xla_events; /* events only XLA's profiler writes (kineto_post.c) */
	struct kflow *flows;
	size_t n_flows, cap_flows;
	struct trace_sync *api_syncs;
	size_t n_api_syncs, cap_api_syncs;
	int64_t min_ts;
	int has_min_ts;
	int64_t proc_pid;
	int has_proc_pid;
	struct kprange *pranges; /* in file order */
	size_t n_pranges, cap_pranges;
	struct kshapes shapes;
	/* kineto_intern_name's cache: names of t seen lately, by a hash of
	 * their length and first and last eight bytes (id + 1, 0: empty) */
	struct kname {
		uint32_t id1, len;
	} names[KNAME_CACHE];
};

/* The id of an event's name in k->t, as trace_intern_n gives it (the
 * same ids in the same order): a name met lately is found by its length
 * and first and last eight bytes and compared whole, not hashed whole and
 * looked up (kineto_event.c); UINT32_MAX when out of memory. */
uint32_t kineto_intern_name(struct ksink *k, const char *s, size_t len);

/* The parser state machine (kineto_parse.c). */
struct kparse {
	struct ksink *k;
	struct timing_mark t_parse; /* the parse's start, for the timing line */
	int depth;
	int top; /* 0 none, 1 map, 2 array */
	int top_key;
	int events_depth; /* depth of the traceEvents array, 0 = not inside */
	int ev_depth;	  /* depth of the current event object, 0 = none */
	int args_depth;
	int dims_depth, dims_which, dims_idx;
	int in_depth;		 /* depth of a kept "Input Dims" array, 0 = none */
	int dp_depth, dev_depth; /* deviceProperties array / element */
	int dist_depth;
	int od_depth; /* the top-level otherData object (its generator) */
	int od_key;
	int saw_events;
	int saw_nodes; /* a top-level "nodes" array: an execution trace */
	enum ekey ek;
	enum akey ak;
	char carg_key[48];
	char range_key[RANGE_METRIC_KEY];
	int dev_key;
	int dist_key;
	struct kev ev;
	struct trace_device dev;
	int64_t base_ns;
	int has_base;
	int seen_events; /* a traceEvents array was read */
	uint64_t bytes_fed;
	/* kineto_options.progress and its ctx (NULL: none) */
	void (*progress)(void *ctx, const struct kineto_progress *p);
	void *progress_ctx;
	int no_direct; /* the fast path without its direct decoder (tests) */
	struct yalloc ya;
};

enum { TK_NONE, TK_EVENTS, TK_DEVPROPS, TK_DIST, TK_BASE, TK_OTHERDATA, TK_OTHER };

/* ---- kineto_event.c ---- */

/* Records the first error in k->err and returns 0 (which stops yajl). */
int kineto_fail(struct ksink *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Maps one complete event into the trace; 1, or 0 after kineto_fail. */
int kineto_emit(struct ksink *k, struct kev *e);
void kineto_count_unknown(struct ksink *k, const char *prefix, const char *what);
/* Adds n to kind key (the first MAX_UNKNOWN_SEEN kinds apiece). */
void kineto_add_unknown(struct ksink *k, const char *key, uint64_t n);
/* JSON number text as microseconds into exact nanoseconds; 0 or -1. */
int kineto_parse_us_ns(const char *s, size_t len, int64_t *out);
/* An integer (a fraction is truncated); 0 or -1 when out of range. */
int kineto_parse_i64(const char *s, size_t len, int64_t *out);
/* A uint32 field; negative int32 values keep their two's complement. */
int kineto_to_u32(int64_t v, uint32_t *out);

/* ---- kineto_parse.c ---- */

extern const yajl_callbacks kineto_callbacks;
/* One event's fields as the callbacks set them; the direct decoder
 * (kineto_direct.c) sets them through the same functions, so both parses
 * give the same struct kev. kineto_set_arg: -1 when v is out of range for
 * the field (the callbacks then fail the parse). */
void kineto_ev_reset(struct kev *e);
void kineto_set_cat(struct kev *e, const char *s, size_t len);
void kineto_set_name(struct kev *e, const char *s, size_t len);
void kineto_set_sync_kind(struct kev *e, const char *s, size_t len);
enum akey kineto_args_key(const unsigned char *k, size_t len);
int kineto_set_arg(struct kev *e, enum akey ak, int64_t v);

/* ---- kineto_lex.c ---- */

enum { KLEX_VALUE = 0, KLEX_LIST = 1, KLEX_MEMBERS = 2, KLEX_DIRECT = 4 };
/* Tokenizes complete JSON text: one value (KLEX_VALUE), values separated by
 * commas (KLEX_LIST) or an object's members without its braces
 * (KLEX_MEMBERS), calling cb as yajl would. buf (cap bytes) holds unescaped
 * strings. With stop (KLEX_LIST only), a ']' closing the array the list is
 * in ends the text: *stop gets its offset (else SIZE_MAX). 0, or -1 on
 * anything yajl would reject, anything this lexer does
 * not take, or a callback stop: the caller then parses with yajl.
 * KLEX_DIRECT (or'd with KLEX_LIST): ctx is a struct kparse inside the
 * traceEvents array, and each element is first offered to the direct
 * decoder (kineto_direct.c). */
int kineto_lex(const char *text, size_t len, int mode, const yajl_callbacks *cb, void *ctx,
	       char *buf, size_t cap, size_t *stop);

/* ---- kineto_direct.c ---- */

struct klex;
/* Decodes the traceEvents element at l->p (its '{') straight into p->ev
 * and maps it (kineto_emit), as the lexer and callbacks would: 1 with l->p
 * past it, 0 when the element is not one it takes (l->p unchanged, p->ev
 * to be reset: the lexer then drives the callbacks over it), -1 when
 * event mapping failed (k->err set). */
int kineto_direct(struct kparse *p, struct klex *l);

/* ---- kineto_fast.c ---- */

struct ksrc;
/* The fast path's parser threads at most (one per usable CPU up to it). */
#define KINETO_MAX_WORKERS 16
/* The fast path (kineto_fast.c): 0 done, -1 failed with k->err set by a
 * read error, 1 the fast path gave up (the caller reparses with yajl). */
int kineto_fast_parse(struct kparse *p, struct ksrc *src, int threads, size_t chunk_bytes);
/* Calls p's progress callback when *last (the previous call's time, on the
 * clock t0 is on) is a second old (kineto.c). */
void kineto_progress_tick(struct kparse *p, const struct ksrc *src, double t0, double *last);
/* 1 when the input's text can be read at any offset from any thread (a
 * regular file or memory, not gzip), with *done the bytes kineto_src_read
 * has handed out (the offset of the next); 0 when it is a stream. */
int kineto_src_random(const struct ksrc *s, uint64_t *done);
/* Up to len bytes of the text at offset off (pread(2) or a copy; the
 * timing line's "read", on the calling thread's clock): the count, fewer
 * at the end, -1 on a read error. */
long kineto_src_pread(const struct ksrc *s, unsigned char *buf, size_t len, uint64_t off);

/* ---- kineto_ranges.c ---- */

/* Pairs the counter ranges with their kernel launches (counter rows get
 * the launch's pid and correlation) and, when the trace has no kernel
 * rows, makes a kernel of each range; pid is the process's. 0 or -1 with
 * k->err set. */
int kineto_pair_ranges(struct ksink *k, uint32_t pid);

/* ---- kineto_post.c ---- */

/* The post passes and meta; 0 or -1 with k->err set. */
int kineto_finish(struct ksink *k, int64_t base_ns, int has_base);
void kineto_sink_release(struct ksink *k);

#endif
