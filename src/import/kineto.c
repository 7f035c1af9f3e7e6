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
 * This file is the driver (input sources, yajl, progress); the parser
 * state machine, event mapping and post passes have a file each
 * (kineto_int.h).
 *
 * Invariants:
 *  1. Nothing in the input sizes an allocation: strings are truncated at
 *     KEV_NAME_MAX, nesting is refused past MAX_DEPTH, and yajl's own
 *     buffers go through a capped allocator (yalloc_*) that aborts the parse
 *     when one token would exceed YAJL_MEM_MAX.
 *  2. Unknown phases and categories are counted (meta import.unknown).
 *  3. No static mutable state: options come in a struct kineto_options.
 */
#include "import/kineto.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#if GPUSCOPE_HAVE_ISAL
#include <dlfcn.h>
#include <isa-l/igzip_lib.h>
#include <pthread.h>

/* ISA-L, loaded when present (CMakeLists.txt) */
static struct {
	void (*init)(struct inflate_state *);
	void (*reset)(struct inflate_state *);
	int (*inflate)(struct inflate_state *);
} isal;
static pthread_once_t isal_once = PTHREAD_ONCE_INIT;

static void isal_load(void)
{
	void *h = dlopen("libisal.so.2", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return;
	*(void **)&isal.init = dlsym(h, "isal_inflate_init");
	*(void **)&isal.reset = dlsym(h, "isal_inflate_reset");
	*(void **)&isal.inflate = dlsym(h, "isal_inflate");
	if (!isal.init || !isal.reset || !isal.inflate)
		isal.inflate = NULL;
}

static int have_isal(void)
{
	pthread_once(&isal_once, isal_load);
	return isal.inflate != NULL;
}
#endif

#include "import/kineto_int.h"
#include "util/cpus.h"
#include "util/knobs.h"
#include "util/timing.h"
#include "util/infile.h"

#define CHUNK (256 * 1024)
#define YAJL_MEM_MAX (64u << 20)

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

/* The bytes of the trace: a file or pipe (util/infile.h) or memory, and,
 * for gzip, inflated here with every member's CRC and length checked
 * (issue #21 item 8): a stream cut short, even by its 8-byte trailer, and
 * bytes after the last member are errors, not silently accepted. */
struct ksrc {
	struct infile *in;
	const unsigned char *mem;
	size_t mem_len, mem_pos;
	int gz;
	z_stream zs; /* zlib's state; with ISA-L only its next_in/avail_in are used */
	int zs_init, zs_done;
#if GPUSCOPE_HAVE_ISAL
	struct inflate_state *is;
#endif
	unsigned char *raw; /* compressed bytes waiting for inflate */
	uint64_t raw_total; /* compressed bytes read */
	const char *label;
	int64_t size; /* the input's size when known, else -1 */
};

static long raw_read(struct ksrc *s, unsigned char *buf, size_t cap, char *err)
{
	if (s->in)
		return (long)infile_read(s->in, buf, cap, err);
	size_t n = s->mem_len - s->mem_pos < cap ? s->mem_len - s->mem_pos : cap;
	memcpy(buf, s->mem + s->mem_pos, n);
	s->mem_pos += n;
	return (long)n;
}

/* Refills the inflate input so that at least want bytes wait (fewer at the
 * end). -1 on a read error. */
static int raw_fill(struct ksrc *s, size_t want, char *err)
{
	if (s->zs.avail_in >= want)
		return 0;
	memmove(s->raw, s->zs.next_in, s->zs.avail_in);
	s->zs.next_in = s->raw;
	while (s->zs.avail_in < want) {
		long n = raw_read(s, s->raw + s->zs.avail_in, CHUNK - s->zs.avail_in, err);
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		s->zs.avail_in += (uInt)n;
		s->raw_total += (uint64_t)n;
	}
	return 0;
}

/* One inflate step over s->zs's buffers, as zlib's inflate() answers:
 * Z_OK, Z_STREAM_END at a member's end, Z_BUF_ERROR without progress,
 * Z_DATA_ERROR with zs.msg. */
static int gz_inflate(struct ksrc *s)
{
#if GPUSCOPE_HAVE_ISAL
	if (!s->is)
		return inflate(&s->zs, Z_NO_FLUSH);
	struct inflate_state *st = s->is;
	st->next_in = s->zs.next_in;
	st->avail_in = s->zs.avail_in;
	st->next_out = s->zs.next_out;
	st->avail_out = s->zs.avail_out;
	uInt before_in = s->zs.avail_in, before_out = s->zs.avail_out;
	const Bytef *in0 = s->zs.next_in;
	Bytef *out0 = s->zs.next_out;
	int rc = isal.inflate(st);
	/* ISA-L 2.30 can come back from a corrupt gzip header split across two
	 * calls as if it had read more than it was given: avail_in wrapped
	 * past zero, rc "OK" (fuzz_kineto; the next call read 4 GiB past the
	 * buffer). A state that does not add up is corrupt data, and ISA-L is
	 * not called again on it. */
	if (st->avail_in > before_in || st->next_in < in0 ||
	    (size_t)(st->next_in - in0) != (size_t)(before_in - st->avail_in) ||
	    st->avail_out > before_out || st->next_out < out0 ||
	    (size_t)(st->next_out - out0) != (size_t)(before_out - st->avail_out)) {
		s->zs.avail_in = 0;
		s->zs.avail_out = before_out;
		s->zs.msg = (char *)"inconsistent inflate state";
		return Z_DATA_ERROR;
	}
	s->zs.next_in = st->next_in;
	s->zs.avail_in = st->avail_in;
	s->zs.next_out = st->next_out;
	s->zs.avail_out = st->avail_out;
	if (rc == ISAL_INCORRECT_CHECKSUM) {
		s->zs.msg = (char *)"incorrect data check";
		return Z_DATA_ERROR;
	}
	if (rc != ISAL_DECOMP_OK) {
		s->zs.msg = (char *)"invalid deflate data";
		return Z_DATA_ERROR;
	}
	if (st->block_state == ISAL_BLOCK_FINISH)
		return Z_STREAM_END;
	return s->zs.avail_in == before_in && s->zs.avail_out == before_out ? Z_BUF_ERROR : Z_OK;
#else
	return inflate(&s->zs, Z_NO_FLUSH);
#endif
}

static int gz_reset(struct ksrc *s)
{
#if GPUSCOPE_HAVE_ISAL
	if (s->is) {
		isal.reset(s->is);
		s->is->crc_flag = ISAL_GZIP;
		return Z_OK;
	}
#endif
	return inflateReset(&s->zs);
}

/* Reads up to cap bytes of JSON; returns the count, 0 at the end, -1 on error. */
long kineto_src_read(struct ksrc *s, unsigned char *buf, size_t cap, char *err);
static long src_read_untimed(struct ksrc *s, unsigned char *buf, size_t cap, char *err)
{
	if (!s->gz) {
		long n = raw_read(s, buf, cap, err);
		if (n > 0)
			s->raw_total += (uint64_t)n;
		return n;
	}
	if (s->zs_done)
		return 0;
	s->zs.next_out = buf;
	s->zs.avail_out = (uInt)cap;
	while (s->zs.avail_out == cap) {
		if (raw_fill(s, 1, err) < 0)
			return -1;
		if (s->zs.avail_in == 0)
			return error_set(err,
					 "'%s' is a truncated gzip file (it ends before the end of "
					 "its stream or its CRC)",
					 s->label);
		int rc = gz_inflate(s);
		if (rc == Z_STREAM_END) {
			/* another member, the end, or garbage */
			if (raw_fill(s, 2, err) < 0)
				return -1;
			if (s->zs.avail_in == 0) {
				s->zs_done = 1;
				break;
			}
			if (s->zs.avail_in < 2 || s->zs.next_in[0] != 0x1f ||
			    s->zs.next_in[1] != 0x8b)
				return error_set(
				    err, "'%s': garbage after the gzip data (at byte %llu)",
				    s->label, (unsigned long long)(s->raw_total - s->zs.avail_in));
			if (gz_reset(s) != Z_OK)
				return error_set(err, "cannot read '%s': bad gzip member",
						 s->label);
		} else if (rc == Z_BUF_ERROR && s->zs.avail_in > 0) {
			return error_set(err, "cannot read '%s': corrupt gzip data", s->label);
		} else if (rc != Z_OK && rc != Z_BUF_ERROR) {
			return error_set(err, "'%s': corrupt gzip data (%s)", s->label,
					 s->zs.msg ? s->zs.msg : "inflate failed");
		}
	}
	return (long)(cap - s->zs.avail_out);
}

/* read(2) and inflate: the timing line's "read", on this thread's clock */
static long src_read(struct ksrc *s, unsigned char *buf, size_t cap, char *err)
{
	if (!timing_on())
		return src_read_untimed(s, buf, cap, err);
	struct timing_mark m;
	timing_now(&m, 1);
	long n = src_read_untimed(s, buf, cap, err);
	timing_add("read", &m, 1);
	return n;
}

long kineto_src_read(struct ksrc *s, unsigned char *buf, size_t cap, char *err)
{
	return src_read(s, buf, cap, err);
}

int kineto_src_random(const struct ksrc *s, uint64_t *done)
{
	if (s->gz)
		return 0;
	if (s->in) {
		if (s->in->is_pipe || s->in->fd < 0 || s->in->size < 0)
			return 0;
		*done = s->in->done;
		return 1;
	}
	*done = s->mem_pos;
	return 1;
}

long kineto_src_pread(const struct ksrc *s, unsigned char *buf, size_t len, uint64_t off)
{
	struct timing_mark m;
	int timed = timing_on();
	if (timed)
		timing_now(&m, 1);
	size_t got = 0;
	if (s->in) {
		while (got < len) {
			ssize_t n = pread(s->in->fd, buf + got, len - got, (off_t)(off + got));
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				got = (size_t)-1;
				break;
			}
			if (n == 0)
				break;
			got += (size_t)n;
		}
	} else if (off < s->mem_len) {
		got = s->mem_len - off < len ? s->mem_len - off : len;
		memcpy(buf, s->mem + off, got);
	}
	if (timed)
		timing_add("read", &m, 1);
	return got == (size_t)-1 ? -1 : (long)got;
}

/* Back to the first byte, for the yajl parse after the fast path gave up;
 * -1 when the input cannot be read again (a pipe). */
static int src_rewind(struct ksrc *s)
{
	if (s->in) {
		if (s->in->is_pipe || lseek(s->in->fd, (off_t)s->in->n_head, SEEK_SET) < 0)
			return -1;
		s->in->at_head = 0;
		s->in->done = 0;
	} else {
		s->mem_pos = 0;
	}
	s->raw_total = 0;
	if (s->gz) {
		if (gz_reset(s) != Z_OK)
			return -1;
		s->zs.next_in = s->raw;
		s->zs.avail_in = 0;
		s->zs_done = 0;
	}
	return 0;
}

/* Sets up gzip when the first bytes say so. */
static int src_init(struct ksrc *s, const unsigned char *head, size_t n, char *err)
{
	s->gz = n >= 2 && head[0] == 0x1f && head[1] == 0x8b;
	if (!s->gz)
		return 0;
	s->raw = malloc(CHUNK);
	if (!s->raw)
		return error_set(err, "out of memory");
#if GPUSCOPE_HAVE_ISAL
	if (have_isal() && !getenv(KNOB(ZLIB)) && (s->is = malloc(sizeof(*s->is)))) {
		isal.init(s->is);
		s->is->crc_flag = ISAL_GZIP;
		s->zs.next_in = s->raw;
		s->zs.avail_in = 0;
		return 0;
	}
#endif
	if (inflateInit2(&s->zs, 15 + 16) != Z_OK) {
		free(s->raw);
		s->raw = NULL;
		return error_set(err, "out of memory");
	}
	s->zs_init = 1;
	s->zs.next_in = s->raw;
	s->zs.avail_in = 0;
	return 0;
}

static void src_release(struct ksrc *s)
{
#if GPUSCOPE_HAVE_ISAL
	free(s->is);
	s->is = NULL;
#endif
	if (s->zs_init)
		inflateEnd(&s->zs);
	free(s->raw);
	s->raw = NULL;
	s->zs_init = 0;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void kineto_progress_tick(struct kparse *p, const struct ksrc *src, double t0, double *last)
{
	if (!p->progress)
		return;
	double now = now_s();
	if (now - *last < 1.0)
		return;
	*last = now;
	struct kineto_progress r = {.label = src->label,
				    .read = src->raw_total,
				    .size = src->size > 0 ? (uint64_t)src->size : 0,
				    .fed = p->bytes_fed,
				    .secs = now - t0};
	p->progress(p->progress_ctx, &r);
}

/* ---- driver ---- */

static int run_parse(struct kparse *p, struct ksrc *src)
{
	const yajl_alloc_funcs af = {ya_malloc, ya_realloc, ya_free, NULL};
	unsigned char *buf = malloc(CHUNK);
	p->ev.name = malloc(KEV_NAME_MAX + 1);
	if (!buf || !p->ev.name) {
		free(buf);
		return error_set(p->k->err, "out of memory");
	}
	yajl_alloc_funcs funcs = af;
	funcs.ctx = &p->ya;
	yajl_handle h = NULL;
	int rc = -1;
	double t0 = now_s(), last = t0;
	int jr = setjmp(p->ya.jb);
	if (jr) {
		/* a yajl buffer hit the cap (invariant 1); its memory is ours */
		ya_release_all(&p->ya);
		h = NULL;
		if (!p->k->failed)
			error_set(p->k->err,
				  jr == 1 ? "'%s': json token longer than 64 MiB"
					  : "'%s': out of memory",
				  src->label);
		goto out;
	}
	h = yajl_alloc(&kineto_callbacks, &funcs, p);
	if (!h) {
		error_set(p->k->err, "out of memory");
		goto out;
	}
	for (;;) {
		long n = src_read(src, buf, CHUNK, p->k->err);
		if (n < 0)
			goto out;
		if (n == 0)
			break;
		/* a UTF-8 byte order mark before the JSON (issue #21 item 12) */
		size_t skip = p->bytes_fed == 0 && n >= 3 && buf[0] == 0xef && buf[1] == 0xbb &&
				      buf[2] == 0xbf
				  ? 3
				  : 0;
		yajl_status st = yajl_parse(h, buf + skip, (size_t)n - skip);
		if (st != yajl_status_ok) {
			if (!p->k->failed) {
				unsigned char *m =
				    yajl_get_error(h, 0, buf + skip, (size_t)n - skip);
				size_t at = p->bytes_fed + yajl_get_bytes_consumed(h);
				char *nl = m ? strchr((char *)m, '\n') : NULL;
				if (nl)
					*nl = '\0';
				error_set(p->k->err, "'%s' is not valid json at byte %zu: %s",
					  src->label, at, m ? (char *)m : "parse error");
				if (m)
					yajl_free_error(h, m);
			} else {
				char tmp[GS_ERR_LEN];
				snprintf(tmp, sizeof(tmp), "'%s': %s", src->label, p->k->err);
				snprintf(p->k->err, GS_ERR_LEN, "%s", tmp);
			}
			goto out;
		}
		p->bytes_fed += (size_t)n;
		kineto_progress_tick(p, src, t0, &last);
	}
	if (p->bytes_fed == 0) {
		error_set(p->k->err, "'%s' is empty", src->label);
		goto out;
	}
	if (yajl_complete_parse(h) != yajl_status_ok) {
		if (p->k->failed) {
			char tmp[GS_ERR_LEN];
			snprintf(tmp, sizeof(tmp), "'%s': %s", src->label, p->k->err);
			snprintf(p->k->err, GS_ERR_LEN, "%s", tmp);
		} else {
			error_set(p->k->err, "'%s' is truncated or not valid json", src->label);
		}
		goto out;
	}
	if (!p->saw_events) {
		if (trace_get_meta(p->k->t, "kineto.schema") && p->saw_nodes)
			error_set(p->k->err,
				  "'%s' is a PyTorch execution trace (ExecutionTraceObserver): "
				  "the operator graph without timings; report reads the "
				  "torch.profiler trace recorded with it",
				  src->label);
		else
			error_set(p->k->err,
				  "'%s' has no traceEvents: not a pytorch profiler trace",
				  src->label);
		goto out;
	}
	timing_add("parse", &p->t_parse, 0);
	struct timing_mark m;
	timing_now(&m, 0);
	rc = kineto_finish(p->k, p->base_ns, p->has_base);
	timing_add("post passes", &m, 0);
out:
	if (h)
		yajl_free(h);
	free(buf);
	free(p->ev.name);
	p->ev.name = NULL;
	return rc;
}

/* One parse into t: the fast path (kineto_fast.c) when threads > 0, else
 * (or when it gives up) yajl's. */
static int load_once(struct trace *t, struct ksrc *src, int threads, size_t chunk,
		     const struct kineto_options *o, int *fast, char *err)
{
	struct kparse *p = calloc(1, sizeof(*p));
	struct ksink *k = calloc(1, sizeof(*k));
	trace_init(t);
	if (!p || !k) {
		free(p);
		free(k);
		trace_release(t);
		return error_set(err, "out of memory");
	}
	t->source = TRACE_SRC_PYTORCH;
	k->t = t;
	k->err = err;
	k->max_events = o ? o->max_events : 0;
	p->k = k;
	p->progress = o ? o->progress : NULL;
	p->progress_ctx = o ? o->progress_ctx : NULL;
	int rc;
	timing_now(&p->t_parse, 0);
	if (*fast) {
		p->no_direct = o && o->no_direct;
		rc = kineto_fast_parse(p, src, threads, chunk);
		if (o && o->direct_events)
			*o->direct_events = rc == 0 ? k->n_direct : 0;
		timing_add("parse", &p->t_parse, 0);
		struct timing_mark m;
		timing_now(&m, 0);
		if (rc == 0 && p->saw_events && p->bytes_fed > 0) {
			rc = kineto_finish(k, p->base_ns, p->has_base);
			timing_add("post passes", &m, 0);
		} else
			rc = 1;
		if (rc == 1)
			*fast = 0; /* the caller reparses with yajl */
	} else {
		rc = run_parse(p, src);
	}
	kineto_sink_release(k);
	free(k);
	free(p);
	if (rc != 0)
		trace_release(t);
	return rc;
}

/* workers: the fast path's parser threads (0: it parses in this thread),
 * -1 the yajl parse only */
static int load(struct trace *t, struct ksrc *src, int workers, size_t chunk,
		const struct kineto_options *o, char *err)
{
	int fast = workers >= 0 && !(src->in && src->in->is_pipe);
	err[0] = '\0';
	if (o && o->direct_events)
		*o->direct_events = 0;
	int rc = load_once(t, src, workers, chunk, o, &fast, err);
	if (rc == 1) {
		/* the fast path gave up (kineto_fast.c, invariant 1) */
		err[0] = '\0';
		if (src_rewind(src) < 0)
			return error_set(err, "cannot read '%s' again", src->label);
		rc = load_once(t, src, 0, chunk, o, &fast, err);
	}
	return rc;
}

static int workers_for(const struct kineto_options *o)
{
	if (o && o->yajl_only)
		return -1;
	if (o && o->threads < 0)
		return 0;
	if (o && o->threads > 0)
		return o->threads > KINETO_MAX_WORKERS ? KINETO_MAX_WORKERS : o->threads;
	int n = gs_cpu_count();
	return n > KINETO_MAX_WORKERS ? KINETO_MAX_WORKERS : n;
}

int kineto_load_infile(struct trace *t, struct infile *in, const struct kineto_options *o,
		       char *err)
{
	struct ksrc src;
	memset(&src, 0, sizeof(src));
	src.label = in->path;
	src.in = in;
	src.size = in->size;
	int rc = src_init(&src, in->head, in->n_head, err);
	if (rc == 0)
		rc = load(t, &src, workers_for(o), o ? o->chunk_bytes : 0, o, err);
	else {
		trace_init(t);
		trace_release(t);
	}
	src_release(&src);
	return rc;
}

int kineto_load_opt(struct trace *t, const char *path, const struct kineto_options *o, char *err)
{
	struct infile in;
	if (infile_open(&in, path, err) < 0) {
		trace_init(t);
		trace_release(t);
		return -1;
	}
	int rc = kineto_load_infile(t, &in, o, err);
	infile_close(&in);
	return rc;
}

int kineto_load(struct trace *t, const char *path, char *err)
{
	return kineto_load_opt(t, path, NULL, err);
}

int kineto_load_mem(struct trace *t, const void *buf, size_t len, char *err)
{
	return kineto_load_mem_opt(t, buf, len, NULL, err);
}

int kineto_load_mem_opt(struct trace *t, const void *buf, size_t len,
			const struct kineto_options *o, char *err)
{
	struct ksrc src;
	memset(&src, 0, sizeof(src));
	src.label = "(memory)";
	src.mem = buf;
	src.mem_len = len;
	src.size = (int64_t)len;
	int rc = src_init(&src, buf, len, err);
	if (rc == 0)
		rc = load(t, &src,
			  o && o->yajl_only ? -1
			  : o		    ? o->threads
					    : 0,
			  o ? o->chunk_bytes : 0, o, err);
	else {
		trace_init(t);
		trace_release(t);
	}
	src_release(&src);
	return rc;
}
