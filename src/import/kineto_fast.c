/*
 * kineto_fast.c - the PyTorch importer's fast path (issue #25): a streaming
 * splitter finds the top-level members and the traceEvents elements; the
 * elements go, in chunks of about CHUNK_TEXT bytes, to worker threads that
 * tokenize them with kineto_lex.c into a trace of their own through the
 * same state machine and event mapping as the yajl path; the chunks are
 * merged in file order, so the trace is the one the sequential parse makes
 * (rows in the same order, strings interned in the same order). Elements
 * of the usual shape skip the tokens and callbacks: kineto_direct.c
 * decodes them straight into the event.
 *
 * Invariants:
 *  1. Any doubt means the fast path gives up (returns 1) and the caller
 *     parses the whole input again with yajl, which then gives the
 *     canonical result or error: malformed structure, a token kineto_lex.c
 *     does not take, a failing event (timestamp out of range, ...).
 *  2. Memory: the text in flight is bounded by a few chunks per worker
 *     (inflight); a chunk's rows are merged and freed as soon as the
 *     chunks before it are.
 *  3. The splitter scans strings 16 bytes a step and tracks only quotes,
 *     backslashes and brackets: a newline never occurs inside a JSON string.
 *  4. A regular file (or memory) is not read by the splitter past the
 *     events array's start (issue 38: one thread's read(2) of 1 GB was a
 *     quarter of the parse's wall time on 8 CPUs): it reads a small window
 *     at each place it cuts, and each worker reads its own chunk's text
 *     (kineto_src_pread) into a buffer it keeps from chunk to chunk. A gzip
 *     stream or a pipe is read by the splitter.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "import/kineto_int.h"
#include "util/vec.h"

#define CHUNK_TEXT (2u << 20)
#define READ_BLOCK (256u << 10)
#define LOOKAHEAD (64u << 10)
#define RING 64	       /* chunks in flight at most (the ring's size) */
#define MIN_INFLIGHT 8 /* chunks in flight: the workers plus this many, at least this many */
#define LEX_BUF (KEV_NAME_MAX + 64)
#define MAX_PENDING (64u << 20)
#define MAX_CHUNK (16u << 20)

long kineto_src_read(struct ksrc *s, unsigned char *buf, size_t cap, char *err);

/* ---- chunks and workers ---- */

struct chunk {
	char *text; /* NULL: the worker reads it (invariant 4) */
	size_t len;
	uint64_t off; /* where the text is in the input, when the worker reads it */
	int to_end;   /* the last chunk: len is at most, the input may end before */
	size_t stop;  /* where the events array ended in text, SIZE_MAX: it goes on */
	struct trace t;
	struct ksink k;
	char err[GS_ERR_LEN];
	int failed;
	int done; /* parsed (by a worker) */
};

struct pool {
	pthread_mutex_t lock;
	pthread_cond_t work, finished;
	struct chunk *ring[RING];
	size_t head, tail; /* chunks [head, tail) are in flight, next_job the first unclaimed */
	size_t next_job;
	size_t inflight; /* chunks in flight at most */
	int stop;
	int top; /* the state the workers' parsers start in: 1 object, 2 array */
	int lex_mode;
	const struct ksrc *src; /* for chunks the workers read */
	int nthreads;
	pthread_t th[KINETO_MAX_WORKERS];
};

static void parser_init(struct kparse *w, struct ksink *k, int top)
{
	memset(w, 0, sizeof(*w));
	w->k = k;
	if (top == 1) { /* inside {"traceEvents": [ */
		w->top = 1;
		w->top_key = TK_EVENTS;
		w->depth = 2;
		w->events_depth = 2;
	} else { /* inside [ */
		w->top = 2;
		w->depth = 1;
		w->events_depth = 1;
	}
	w->saw_events = 1;
}

/* Reads a chunk's text (invariant 4): 0, or -1 (a read error, or the
 * input shorter than when its window was read: yajl's turn). */
static int read_chunk(struct chunk *c, const struct ksrc *src)
{
	c->text = malloc(c->len ? c->len : 1);
	if (!c->text)
		return -1;
	long n = kineto_src_pread(src, (unsigned char *)c->text, c->len, c->off);
	if (n < 0 || (!c->to_end && (size_t)n != c->len))
		return -1;
	c->len = (size_t)n;
	return 0;
}

/* A worker's own buffer for the chunks it reads (invariant 4): read into
 * the same pages each time, not into fresh ones (a fresh 2 MiB buffer a
 * chunk faulted in about a fifth of the 1 GB read). */
struct wbuf {
	char *p;
	size_t cap;
	/* the rows of its last chunk: the next one's arrays are made that
	 * size (plus an eighth) at once, not grown from 16 by doubling (nine
	 * copies of a chunk's 8k ranges) */
	size_t ranges, apis, kernels, flows;
};

/* Reads a chunk's text into the worker's buffer: the text, or NULL (a read
 * error, the input shorter than when its window was read, no memory). */
static char *read_chunk_into(struct chunk *c, const struct ksrc *src, struct wbuf *b)
{
	size_t want = c->len ? c->len : 1;
	if (want > b->cap) {
		char *p = realloc(b->p, want);
		if (!p)
			return NULL;
		b->p = p;
		b->cap = want;
	}
	long n = kineto_src_pread(src, (unsigned char *)b->p, c->len, c->off);
	if (n < 0 || (!c->to_end && (size_t)n != c->len))
		return NULL;
	c->len = (size_t)n;
	return b->p;
}

/* Parses one chunk into its own trace (any thread); b: the worker's buffer
 * for a chunk it reads, NULL to read it into a buffer of its own. A chunk
 * read into b keeps a copy of its text only when it holds the events
 * array's end (drain reads what follows it); drain reads again the text of
 * one it needs otherwise. */
static void parse_chunk(struct chunk *c, const struct pool *pl, char *name, char *lexbuf,
			struct wbuf *b)
{
	struct kparse w;
	int top = pl->top, mode = pl->lex_mode;
	trace_init(&c->t);
	c->t.source = TRACE_SRC_PYTORCH;
	memset(&c->k, 0, sizeof(c->k));
	c->k.t = &c->t;
	c->k.err = c->err;
	const char *text = c->text;
	int own = !text && b;
	if (own)
		text = read_chunk_into(c, pl->src, b);
	else if (!text && read_chunk(c, pl->src) == 0)
		text = c->text;
	if (!text) {
		c->failed = 1;
		return;
	}
	if (own) {
		/* (a failed reservation: the arrays grow as they go) */
		struct trace *t = &c->t;
		(void)(vec_reserve((void **)&t->ranges, &t->cap_ranges, b->ranges + b->ranges / 8,
				   sizeof(*t->ranges)) < 0 ||
		       vec_reserve((void **)&t->apis, &t->cap_apis, b->apis + b->apis / 8,
				   sizeof(*t->apis)) < 0 ||
		       vec_reserve((void **)&t->kernels, &t->cap_kernels,
				   b->kernels + b->kernels / 8, sizeof(*t->kernels)) < 0 ||
		       vec_reserve((void **)&c->k.flows, &c->k.cap_flows, b->flows + b->flows / 8,
				   sizeof(*c->k.flows)) < 0);
	}
	parser_init(&w, &c->k, top);
	w.ev.name = name;
	int depth = w.depth;
	if (kineto_lex(text, c->len, mode, &kineto_callbacks, &w, lexbuf, LEX_BUF, &c->stop) < 0 ||
	    c->k.failed || w.depth != depth)
		c->failed = 1;
	if (own) {
		b->ranges = c->t.n_ranges, b->apis = c->t.n_apis;
		b->kernels = c->t.n_kernels, b->flows = c->k.n_flows;
	}
	if (own && !c->failed && c->stop != SIZE_MAX) {
		c->text = malloc(c->len ? c->len : 1);
		if (!c->text) {
			c->failed = 1;
			return;
		}
		memcpy(c->text, text, c->len);
	}
}

static void *worker(void *arg)
{
	struct pool *pl = arg;
	char *name = malloc(KEV_NAME_MAX + 1), *lexbuf = malloc(LEX_BUF);
	struct wbuf b = {0};
	pthread_mutex_lock(&pl->lock);
	for (;;) {
		while (!pl->stop && pl->next_job == pl->tail)
			pthread_cond_wait(&pl->work, &pl->lock);
		if (pl->stop)
			break;
		struct chunk *c = pl->ring[pl->next_job++ % RING];
		pthread_mutex_unlock(&pl->lock);
		if (name && lexbuf)
			parse_chunk(c, pl, name, lexbuf, &b);
		else
			c->failed = 1;
		pthread_mutex_lock(&pl->lock);
		c->done = 1;
		pthread_cond_broadcast(&pl->finished);
	}
	pthread_mutex_unlock(&pl->lock);
	free(name);
	free(lexbuf);
	free(b.p);
	return NULL;
}

/* ---- merging a chunk into the trace, in file order ---- */

#define APPEND(dst, src, name, FIX)                                                                \
	do {                                                                                       \
		if (vec_reserve((void **)&(dst)->name, &(dst)->cap_##name,                         \
				(dst)->n_##name + (src)->n_##name, sizeof(*(dst)->name)) < 0)      \
			goto oom;                                                                  \
		for (size_t i_ = 0; i_ < (src)->n_##name; i_++) {                                  \
			__typeof__((dst)->name[0]) *x = &(dst)->name[(dst)->n_##name++];           \
			*x = (src)->name[i_];                                                      \
			FIX;                                                                       \
		}                                                                                  \
	} while (0)

static int merge_chunk(struct ksink *g, struct chunk *c)
{
	struct trace *t = g->t, *u = &c->t;
	uint32_t *map = malloc((u->n_strings + 1) * sizeof(*map));
	if (!map)
		return -1;
	for (size_t i = 0; i < u->n_strings; i++)
		if ((map[i] = trace_intern(t, u->strings[i])) == UINT32_MAX)
			goto oom;
#define M(id) ((id) < u->n_strings ? map[id] : 0)
	APPEND(t, u, kernels, x->name_id = M(x->name_id));
	APPEND(t, u, copies, (void)0);
	APPEND(t, u, memsets, (void)0);
	APPEND(t, u, apis, x->name_id = M(x->name_id));
	APPEND(t, u, syncs, (void)0);
	APPEND(t, u, ranges, (x->name_id = M(x->name_id), x->domain_id = M(x->domain_id)));
	APPEND(t, u, samples, x->metric_id = M(x->metric_id));
	APPEND(t, u, allocs, (void)0); /* profile_memory's events (kineto_event.c) */
	/* counter ranges: a counter row's correlation is its range's index until
	 * kineto_ranges.c pairs them, so the chunk's indices follow the ranges
	 * merged before it */
	struct ksink *k = &c->k;
	uint32_t base = (uint32_t)g->n_pranges;
	if (k->n_pranges > UINT32_MAX - g->n_pranges)
		goto oom;
	APPEND(t, u, counters, (x->metric_id = M(x->metric_id), x->correlation += base));
	if (vec_reserve((void **)&g->pranges, &g->cap_pranges, g->n_pranges + k->n_pranges,
			sizeof(*g->pranges)) < 0)
		goto oom;
	for (size_t i = 0; i < k->n_pranges; i++) {
		g->pranges[g->n_pranges] = k->pranges[i];
		g->pranges[g->n_pranges++].name_id = M(k->pranges[i].name_id);
	}
#undef M
	g->n_events += k->n_events;
	if (g->max_events && g->n_events > g->max_events) {
		kineto_fail(g, "more than %llu events (--max-events)",
			    (unsigned long long)g->max_events);
		free(map);
		return -1;
	}
	g->n_direct += k->n_direct;
	kineto_shapes_merge(&g->shapes, &k->shapes);
	for (size_t i = 0; i < k->n_unknown; i++)
		kineto_add_unknown(g, k->unknown[i].what, k->unknown[i].n);
	g->unknown_other += k->unknown_other;
	g->xla_events += k->xla_events;
	if (vec_reserve((void **)&g->flows, &g->cap_flows, g->n_flows + k->n_flows,
			sizeof(*g->flows)) < 0 ||
	    vec_reserve((void **)&g->api_syncs, &g->cap_api_syncs, g->n_api_syncs + k->n_api_syncs,
			sizeof(*g->api_syncs)) < 0)
		goto oom;
	if (k->n_flows)
		memcpy(g->flows + g->n_flows, k->flows, k->n_flows * sizeof(*k->flows));
	g->n_flows += k->n_flows;
	if (k->n_api_syncs)
		memcpy(g->api_syncs + g->n_api_syncs, k->api_syncs,
		       k->n_api_syncs * sizeof(*k->api_syncs));
	g->n_api_syncs += k->n_api_syncs;
	if (k->has_min_ts && (!g->has_min_ts || k->min_ts < g->min_ts)) {
		g->min_ts = k->min_ts;
		g->has_min_ts = 1;
	}
	if (k->has_proc_pid && !g->has_proc_pid) {
		g->proc_pid = k->proc_pid;
		g->has_proc_pid = 1;
	}
	free(map);
	return 0;
oom:
	free(map);
	return -1;
}

static void chunk_free(struct chunk *c)
{
	free(c->text);
	trace_release(&c->t);
	kineto_sink_release(&c->k);
	free(c);
}

/* ---- the splitter ---- */

struct split {
	struct kparse *p;
	struct ksrc *src;
	struct pool *pl;
	char *buf; /* text read and not yet consumed: [0, len) */
	size_t len, cap, pos;
	int eof;
	char name[KEV_NAME_MAX + 1], lexbuf[LEX_BUF];
	size_t chunk;	 /* events text per chunk */
	double t0, last; /* progress (kineto_progress_tick) */
	int ended;	 /* a merged chunk held the events array's ']' */
	char *rest;	 /* the text from that ']' on */
	size_t n_rest, cap_rest;
};

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void progress(struct split *s)
{
	kineto_progress_tick(s->p, s->src, s->t0, &s->last);
}

/* Reads more text; 0 at the end, -1 on a read error (err set). */
static int more(struct split *s)
{
	if (s->eof)
		return 0;
	if (s->len > MAX_PENDING)
		return -1; /* one huge top-level value: yajl streams it (invariant 2) */
	if (s->len + READ_BLOCK > s->cap &&
	    vec_reserve((void **)&s->buf, &s->cap, s->len + READ_BLOCK, 1) < 0)
		return error_set(s->p->k->err, "out of memory");
	long n =
	    kineto_src_read(s->src, (unsigned char *)s->buf + s->len, READ_BLOCK, s->p->k->err);
	if (n < 0)
		return -1;
	if (n == 0)
		s->eof = 1;
	s->len += (size_t)n;
	s->p->bytes_fed += (uint64_t)n;
	progress(s);
	return n > 0;
}

/* Drops the consumed text before keep. */
static void compact(struct split *s, size_t keep)
{
	memmove(s->buf, s->buf + keep, s->len - keep);
	s->len -= keep;
	s->pos -= keep;
}

/* The first '"' or '\\' at or after p, or end. */
static const char *quote_or_escape(const char *p, const char *end)
{
#if defined(__SSE2__)
	const __m128i q = _mm_set1_epi8('"'), b = _mm_set1_epi8('\\');
	while (end - p >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		int mask =
		    _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, b)));
		if (mask)
			return p + __builtin_ctz((unsigned)mask);
		p += 16;
	}
#endif
	while (p < end && *p != '"' && *p != '\\')
		p++;
	return p;
}

/* The first '"', '{', '}', '[' or ']' at or after p, or end. */
static const char *structural(const char *p, const char *end)
{
#if defined(__SSE2__)
	const __m128i q = _mm_set1_epi8('"'), o = _mm_set1_epi8('{'), c = _mm_set1_epi8('}'),
		      ao = _mm_set1_epi8('['), ac = _mm_set1_epi8(']');
	while (end - p >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i m = _mm_or_si128(
		    _mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, o)),
		    _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, c), _mm_cmpeq_epi8(v, ao)),
				 _mm_cmpeq_epi8(v, ac)));
		int mask = _mm_movemask_epi8(m);
		if (mask)
			return p + __builtin_ctz((unsigned)mask);
		p += 16;
	}
#endif
	while (p < end && *p != '"' && *p != '{' && *p != '}' && *p != '[' && *p != ']')
		p++;
	return p;
}

/* Skips white space; -1 on a read error, 0 at the end of the input, 1. */
static int skip_space(struct split *s)
{
	for (;;) {
		while (s->pos < s->len) {
			char c = s->buf[s->pos];
			if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
				return 1;
			s->pos++;
		}
		int m = more(s);
		if (m <= 0)
			return m;
	}
}

/* The end of the value starting at s->pos (reading more as needed): 1 with
 * s->pos just past it, 0 when the input ends first, -1 on a read error. */
static int value_end(struct split *s)
{
	int depth = 0, in_str = 0;
	char first = s->buf[s->pos];
	if (first != '{' && first != '[' && first != '"') {
		/* a scalar: up to the next separator */
		for (;;) {
			while (s->pos < s->len) {
				char c = s->buf[s->pos];
				if (c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' ||
				    c == '\r' || c == '\t')
					return 1;
				s->pos++;
			}
			int m = more(s);
			if (m <= 0)
				return m < 0 ? -1 : 1;
		}
	}
	for (;;) {
		while (s->pos < s->len) {
			const char *b = s->buf, *e = b + s->len;
			if (in_str) {
				const char *q = quote_or_escape(b + s->pos, e);
				s->pos = (size_t)(q - b);
				if (q == e)
					break;
				if (*q == '\\') {
					if (s->pos + 1 >= s->len)
						break; /* the escaped byte is in the next block */
					s->pos += 2;
					continue;
				}
				in_str = 0;
				s->pos++;
				if (depth == 0)
					return 1;
				continue;
			}
			s->pos = (size_t)(structural(b + s->pos, e) - b);
			if (s->pos == s->len)
				break;
			char c = b[s->pos++];
			if (c == '"')
				in_str = 1;
			else if (c == '{' || c == '[')
				depth++;
			else if ((c == '}' || c == ']') && --depth == 0)
				return 1;
		}
		int m = more(s);
		if (m <= 0)
			return m;
	}
}

static int pool_start(struct pool *pl, int threads, int top, int direct, const struct ksrc *src)
{
	memset(pl, 0, sizeof(*pl));
	pthread_mutex_init(&pl->lock, NULL);
	pthread_cond_init(&pl->work, NULL);
	pthread_cond_init(&pl->finished, NULL);
	pl->top = top;
	pl->lex_mode = KLEX_LIST | (direct ? KLEX_DIRECT : 0);
	pl->src = src;
	for (int i = 0; i < threads && i < KINETO_MAX_WORKERS; i++)
		if (pthread_create(&pl->th[pl->nthreads], NULL, worker, pl) == 0)
			pl->nthreads++;
	pl->inflight = (size_t)pl->nthreads + MIN_INFLIGHT / 2;
	if (pl->inflight < MIN_INFLIGHT)
		pl->inflight = MIN_INFLIGHT;
	return 0;
}

static void pool_stop(struct pool *pl)
{
	pthread_mutex_lock(&pl->lock);
	pl->stop = 1;
	pthread_cond_broadcast(&pl->work);
	pthread_mutex_unlock(&pl->lock);
	for (int i = 0; i < pl->nthreads; i++)
		pthread_join(pl->th[i], NULL);
	while (pl->head < pl->tail)
		chunk_free(pl->ring[pl->head++ % RING]);
	pthread_mutex_destroy(&pl->lock);
	pthread_cond_destroy(&pl->work);
	pthread_cond_destroy(&pl->finished);
}

/* Merges the finished chunks at the head, in order; all when wait_all. -1
 * when a chunk failed or memory ran out. */
static int rest_add(struct split *s, const char *text, size_t n)
{
	if (s->n_rest + n > MAX_PENDING ||
	    vec_reserve((void **)&s->rest, &s->cap_rest, s->n_rest + n, 1) < 0)
		return -1;
	memcpy(s->rest + s->n_rest, text, n);
	s->n_rest += n;
	return 0;
}

static int drain(struct split *s, int wait_all)
{
	struct pool *pl = s->pl;
	pthread_mutex_lock(&pl->lock);
	while (pl->head < pl->tail) {
		struct chunk *c = pl->ring[pl->head % RING];
		if (!c->done) {
			if (pl->nthreads == 0 && pl->next_job == pl->head) {
				/* no workers: parse it here */
				pl->next_job++;
				pthread_mutex_unlock(&pl->lock);
				parse_chunk(c, pl, s->name, s->lexbuf, NULL);
				pthread_mutex_lock(&pl->lock);
				c->done = 1;
				continue;
			}
			if (!wait_all && pl->tail - pl->head < pl->inflight)
				break;
			pthread_cond_wait(&pl->finished, &pl->lock);
			continue;
		}
		pl->head++;
		pthread_mutex_unlock(&pl->lock);
		int rc = 0;
		if (s->ended) {
			/* past the events array: the text goes back to the top level */
			if (!c->text && read_chunk(c, pl->src) < 0)
				rc = -1;
			else
				rc = rest_add(s, ",", 1) < 0 || rest_add(s, c->text, c->len) < 0
					 ? -1
					 : 0;
		} else if (c->failed) {
			rc = -1;
		} else {
			rc = merge_chunk(s->p->k, c);
			if (rc == 0 && c->stop != SIZE_MAX) {
				s->ended = 1;
				rc = rest_add(s, c->text + c->stop, c->len - c->stop);
			}
		}
		chunk_free(c);
		if (rc < 0)
			return -1;
		pthread_mutex_lock(&pl->lock);
	}
	pthread_mutex_unlock(&pl->lock);
	return 0;
}

static int enqueue(struct split *s, struct chunk *c)
{
	struct pool *pl = s->pl;
	pthread_mutex_lock(&pl->lock);
	pl->ring[pl->tail++ % RING] = c;
	pthread_cond_signal(&pl->work);
	pthread_mutex_unlock(&pl->lock);
	return 0;
}

/* Hands s->buf up to cut to the workers (the buffer itself: no copy) and
 * keeps what follows cut + 1 (past the ',' there) as the new s->buf. */
static int dispatch(struct split *s, size_t cut)
{
	struct chunk *c = calloc(1, sizeof(*c));
	size_t tail = cut < s->len ? s->len - cut - 1 : 0, cap = s->cap;
	char *nb = malloc(cap);
	if (!c || !nb) {
		free(c);
		free(nb);
		return -1;
	}
	memcpy(nb, s->buf + s->len - tail, tail);
	c->text = s->buf;
	c->len = cut;
	c->stop = SIZE_MAX;
	s->buf = nb;
	s->len = tail;
	s->pos = 0;
	if (drain(s, 0) < 0) {
		chunk_free(c);
		return -1;
	}
	return enqueue(s, c);
}

/* Hands the input's text [off, off + len) to a worker, which reads it
 * (invariant 4); to_end: the last chunk, len at most. */
static int dispatch_at(struct split *s, uint64_t off, size_t len, int to_end)
{
	struct chunk *c = calloc(1, sizeof(*c));
	if (!c)
		return -1;
	c->off = off;
	c->len = len;
	c->to_end = to_end;
	c->stop = SIZE_MAX;
	s->p->bytes_fed += len;
	progress(s);
	if (drain(s, 0) < 0) {
		chunk_free(c);
		return -1;
	}
	return enqueue(s, c);
}

/* A place to cut the events array after at: a newline between "}," and
 * the indentation of the first element followed by '{' (a newline is never
 * inside a string). Returns the offset of the ',' (the next chunk starts
 * after it), or 0 when there is none in [at, s->len). A wrong guess (the
 * pattern inside an element) leaves the earlier chunk unbalanced, which
 * its lexer refuses (invariant 1). */
static size_t cut_in(const char *b, size_t len, size_t at, const char *indent, size_t n_indent)
{
	const char *end = b + len;
	for (const char *p = b + at; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl || (size_t)(end - nl) < n_indent + 2)
			return 0;
		const char *q = nl;
		while (q > b + at && (q[-1] == ' ' || q[-1] == '\r' || q[-1] == '\t'))
			q--;
		if (q - 2 >= b + at && q[-1] == ',' && q[-2] == '}' &&
		    memcmp(nl + 1, indent, n_indent) == 0 && nl[1 + n_indent] == '{')
			return (size_t)(q - 1 - b);
		p = nl + 1;
	}
	return 0;
}

static size_t cut_after(struct split *s, size_t at, const char *indent, size_t n_indent)
{
	return cut_in(s->buf, s->len, at, indent, n_indent);
}

/* The events array's chunks read by the workers (invariant 4): s->buf[0]
 * is the first element's first byte, at offset base of the input. Each cut
 * is looked for in a window read at the chunk's nominal end (as
 * cut_after looks in the text read); the last chunk runs to the input's
 * end. -1 when the fast path gives up. */
static int split_random(struct split *s, uint64_t base, const char *indent, size_t n_indent)
{
	char *win = NULL;
	size_t cap = 0;
	int rc = -1;
	for (;;) {
		uint64_t at = base + s->chunk;
		size_t want = LOOKAHEAD, cut = 0;
		long got;
		for (;;) {
			if (want > cap) {
				char *w = realloc(win, want);
				if (!w)
					goto out;
				win = w;
				cap = want;
			}
			got = kineto_src_pread(s->src, (unsigned char *)win, want, at);
			if (got < 0)
				goto out;
			cut = cut_in(win, (size_t)got, 0, indent, n_indent);
			if (cut || (size_t)got < want)
				break;
			if (s->chunk + want > MAX_CHUNK)
				goto out; /* no place to cut: yajl's turn */
			want *= 2;
		}
		if (!cut) {
			/* the rest of the input: its lexer stops at the array's end */
			if (dispatch_at(s, base, s->chunk + (size_t)got, 1) < 0)
				goto out;
			break;
		}
		if (dispatch_at(s, base, s->chunk + cut, 0) < 0)
			goto out;
		base += s->chunk + cut + 1; /* past the ',' */
	}
	rc = 0;
out:
	free(win);
	return rc;
}

/* The events array, s->pos just past its '['. Chunks are cut by pattern
 * (cut_after) and lexed by the workers, the last one up to the array's ']'
 * (kineto_lex's stop); the text after it goes back to s->buf for the rest
 * of the top level. */
static int split_events(struct split *s)
{
	if (skip_space(s) <= 0)
		return -1;
	if (s->buf[s->pos] == ']') {
		s->pos++;
		return 0;
	}
	/* the first element's indentation */
	char indent[64];
	size_t n_indent = 0, ls = s->pos;
	while (ls > 0 && (s->buf[ls - 1] == ' ' || s->buf[ls - 1] == '\t'))
		ls--;
	if (ls > 0 && s->buf[ls - 1] == '\n' && s->pos - ls < sizeof(indent)) {
		n_indent = s->pos - ls;
		memcpy(indent, s->buf + ls, n_indent);
	} else {
		n_indent = SIZE_MAX; /* no newline before the first element: no cuts */
	}
	compact(s, s->pos);
	uint64_t done;
	if (n_indent != SIZE_MAX && kineto_src_random(s->src, &done) && done >= s->len) {
		/* the workers read the text from here on; nothing is read in
		 * order any more (what follows the array comes in the chunks) */
		if (split_random(s, done - s->len, indent, n_indent) < 0)
			return -1;
		s->eof = 1;
		s->len = 0;
		goto merged;
	}
	for (;;) {
		while (!s->eof && s->len < s->chunk + LOOKAHEAD)
			if (more(s) < 0)
				return -1;
		size_t cut = 0;
		if (n_indent != SIZE_MAX && s->len > s->chunk)
			cut = cut_after(s, s->chunk, indent, n_indent);
		if (!cut) {
			if (!s->eof) {
				if (s->len > MAX_CHUNK)
					return -1; /* no place to cut: yajl's turn */
				if (more(s) < 0)
					return -1;
				continue;
			}
			/* the rest of the input: its lexer stops at the array's end */
			if (dispatch(s, s->len) < 0)
				return -1;
			break;
		}
		if (dispatch(s, cut) < 0)
			return -1;
	}
merged:
	/* merge in order; the text from the array's ']' on is the top level's */
	if (drain(s, 1) < 0 || !s->ended)
		return -1;
	free(s->buf);
	s->buf = s->rest;
	s->len = s->n_rest;
	s->cap = s->cap_rest;
	s->rest = NULL;
	s->n_rest = s->cap_rest = 0;
	s->pos = 1; /* past the ']' */
	s->ended = 0;
	return 0;
}

/* Lexes the top-level member text [from, s->pos) in the main parser. */
static int member(struct split *s, size_t from)
{
	return kineto_lex(s->buf + from, s->pos - from, KLEX_MEMBERS, &kineto_callbacks, s->p,
			  s->lexbuf, LEX_BUF, NULL) < 0 ||
		       s->p->k->failed
		   ? -1
		   : 0;
}

static int split_top(struct split *s)
{
	if (skip_space(s) <= 0)
		return -1;
	char c = s->buf[s->pos];
	struct kparse *p = s->p;
	if (c == '[') {
		s->pos++;
		if (!kineto_callbacks.yajl_start_array(p))
			return -1;
		if (split_events(s) < 0 || !kineto_callbacks.yajl_end_array(p))
			return -1;
	} else if (c == '{') {
		s->pos++;
		if (!kineto_callbacks.yajl_start_map(p))
			return -1;
		int n = 0;
		for (;;) {
			if (skip_space(s) <= 0)
				return -1;
			c = s->buf[s->pos];
			if (c == '}' && n == 0)
				break;
			if (n && c == '}')
				break;
			if (n) {
				if (c != ',')
					return -1;
				s->pos++;
				if (skip_space(s) <= 0)
					return -1;
			}
			n++;
			size_t from = s->pos;
			if (s->buf[s->pos] != '"' || value_end(s) <= 0)
				return -1;
			size_t key_end = s->pos;
			if (skip_space(s) <= 0 || s->buf[s->pos] != ':')
				return -1;
			s->pos++;
			if (skip_space(s) <= 0)
				return -1;
			static const char ev[] = "\"traceEvents\"";
			if (key_end - from == sizeof(ev) - 1 &&
			    memcmp(s->buf + from, ev, sizeof(ev) - 1) == 0 &&
			    s->buf[s->pos] == '[') {
				if (!kineto_callbacks.yajl_map_key(p, (const unsigned char *)ev + 1,
								   sizeof(ev) - 3) ||
				    !kineto_callbacks.yajl_start_array(p))
					return -1;
				s->pos++;
				if (split_events(s) < 0 || !kineto_callbacks.yajl_end_array(p))
					return -1;
				compact(s, s->pos);
				continue;
			}
			if (value_end(s) <= 0 || member(s, from) < 0)
				return -1;
			compact(s, s->pos);
		}
		s->pos++;
		if (!kineto_callbacks.yajl_end_map(p))
			return -1;
	} else {
		return -1;
	}
	/* nothing but white space may follow */
	int r = skip_space(s);
	return r < 0 || r > 0 ? -1 : 0;
}

int kineto_fast_parse(struct kparse *p, struct ksrc *src, int threads, size_t chunk_bytes)
{
	struct split *s = calloc(1, sizeof(*s));
	if (!s)
		return 1;
	struct pool pl;
	s->p = p;
	s->src = src;
	s->pl = &pl;
	s->chunk = chunk_bytes ? chunk_bytes : CHUNK_TEXT;
	s->t0 = s->last = mono_s();
	p->ev.name = s->name;
	/* the workers start when the events array does: the state they start
	 * in depends on the top level (object or array), known from the first byte */
	int rc = -1;
	if (skip_space(s) > 0 && s->len - s->pos >= 3 &&
	    memcmp(s->buf + s->pos, "\xef\xbb\xbf", 3) == 0)
		s->pos += 3; /* a UTF-8 byte order mark */
	if (skip_space(s) > 0) {
		pool_start(&pl, threads, s->buf[s->pos] == '[' ? 2 : 1, !p->no_direct, src);
		rc = split_top(s);
		pool_stop(&pl);
	}
	p->ev.name = NULL;
	free(s->buf);
	free(s->rest);
	free(s);
	return rc == 0 ? 0 : 1;
}
