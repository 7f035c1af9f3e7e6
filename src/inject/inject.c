/*
 * inject.c - libgpuscope-inject.so, loaded into the profiled program by CUDA
 * through CUDA_INJECTION64_PATH (InitializeInjection). It enables CUPTI
 * activity kinds, converts each completed CUPTI buffer into spool records
 * (trace/spool.h) and appends them with write(2) to
 * $GPUSCOPE_SPOOL_DIR/spool-<pid>.bin. No SQLite, no exit(), no abort: on
 * any CUPTI failure it writes a status record and goes quiet.
 *
 * Invariants:
 *  1. No lock is held across write(2); the string table lock is held only
 *     while looking up or adding one name.
 *  2. A forked child (no exec) writes nothing: its pid differs from g.pid.
 *     A child that execs is a new process with its own injection and file.
 *  3. A periodic thread flushes every GPUSCOPE_FLUSH_MS (default 1000), so a
 *     killed program loses at most about that much; when record asks before
 *     it forwards a signal (spool.h, flush handshake) the thread flushes
 *     within SPOOL_FLUSH_POLL_MS and answers. SIGINT, SIGTERM and SIGHUP,
 *     where they would kill the program outright (no handler of its own),
 *     are caught for the time of one last forced flush and then let
 *     through (catch_signals): whoever sends them, nothing launched before
 *     them is lost.
 *  4. Query calls that neither enqueue nor wait for GPU work (cudaGetDevice,
 *     cudaGetLastError, cudaStreamIsCapturing, cuKernelGetName, ...) get no
 *     activity record: PyTorch makes several per op and they explain no
 *     time; nor do driver calls with "Get" in their name (driver_query).
 *     Each other call is enabled on its own (enable_api), so the queries are
 *     not even intercepted (unless the sync kind is on: kinds[]).
 *     GPUSCOPE_API=all records every call; GPUSCOPE_API=work only those that
 *     enqueue, wait, allocate or load (api_work).
 *  5. CUPTI buffers reach the program's threads zeroed and faulted in
 *     (buffer pool); no allocation or memset of 4 MiB happens there unless
 *     the pool ran dry.
 *  6. The program may pause and resume recording (gpuscope_capture, the one
 *     export besides InitializeInjection); every pause is reported.
 */
#include <cupti.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "inject/counters.h"
#include "trace/spool.h"

#define EXPORT __attribute__((visibility("default")))
#define CUPTI_BUF_SIZE (4u * 1024 * 1024)
#define MAX_CBID 4096
#define TAKEOVER_TICKS 2
#define POOL_READY 2
#define POOL_MAX 8
#define SIG_SETTLE_MS 20 /* caught signal: wait for queued GPU work, then flush */
#define SIG_MAX_MS 1000	 /* caught signal: let through after this at the latest */

struct str_slot {
	uint64_t hash;
	char *s;
	uint32_t id;
};

static struct {
	int fd;
	pid_t pid;
	int debug;
	atomic_int quiet;
	atomic_int stopping;
	unsigned flush_ms;
	CUpti_SubscriberHandle sub;
	pthread_mutex_t str_lock;
	struct str_slot *slots;
	size_t n_slots, used;
	uint32_t next_id;
	_Atomic uint32_t api_ids[2][MAX_CBID];
	atomic_ullong dropped, overhead_ns, buffers, records, launches, kernel_records,
	    bytes_written, incomplete;
	atomic_llong last_record_ts;
	atomic_int takeover_reported;
	atomic_ullong foreign_records; /* records of kinds we never enabled */
	atomic_int foreign_kind, foreign_reported;
	/* heartbeat: the flush thread calls cuDriverGetVersion each tick and
	 * expects its activity record back (check_heartbeat) */
	atomic_int beat_tid, exit_tid;
	atomic_ullong beats_sent, beats_seen;
	int (*drv_version)(int *);
	/* buffer pool (invariant 5) */
	int pool_on;
	pthread_mutex_t pool_lock;
	uint8_t *pool[POOL_MAX];
	int pool_n;
	atomic_ullong pool_misses;
	/* flush handshake with record (spool.h) */
	char request_path[4096], answer_path[4096];
	/* _exit / _Exit seen by the preload shim: the flush thread does the
	 * last flush (quick_exit_hook); final_done: final_flush ran */
	atomic_int exit_req, exit_status, flush_alive, final_done;
	/* a killing signal caught for a last flush (catch_signals) */
	atomic_int sig_caught;
	_Atomic uint64_t sig_caught_ns;
	timer_t sig_timer[3];
	int sig_timer_ok[3];
	/* what is recorded (GPUSCOPE_KINDS, GPUSCOPE_API) and whether it is
	 * now (gpuscope_capture) */
	const char *kinds_want;
	int kinds_none, api_mode, started;
	int discard; /* GPUSCOPE_DISCARD=1 (bench only): buffers dropped unread */
	atomic_int capturing;
	pthread_mutex_t capture_lock;
	uint64_t paused_at, paused_ns;
	unsigned long pauses;
	int counters_on; /* GPUSCOPE_METRICS=kernels: launch callbacks profile kernels */
	/* GPUSCOPE_COUNTERS_MODE: 0 the outermost launch call (default), 1 driver
	 * launches only, 2 also set the profiler up when a context is created */
	int counters_mode;
} g = {.fd = -1,
       .str_lock = PTHREAD_MUTEX_INITIALIZER,
       .pool_lock = PTHREAD_MUTEX_INITIALIZER,
       .capture_lock = PTHREAD_MUTEX_INITIALIZER};

static _Thread_local int tls_in_runtime_launch;
/* this thread's launch in flight is being profiled (counters.h), since */
static _Thread_local int tls_profiling;
static _Thread_local int64_t tls_profile_begin;

static void dbg(const char *fmt, ...)
{
	if (!g.debug)
		return;
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "gpuscope-inject: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int64_t cupti_now(void)
{
	uint64_t ts = 0;
	if (cuptiGetTimestamp(&ts) != CUPTI_SUCCESS)
		return 0;
	return (int64_t)ts;
}

static int mine(void)
{
	return g.fd >= 0 && getpid() == g.pid;
}

static void write_all(const void *buf, size_t len)
{
	const char *p = buf;
	while (len > 0) {
		ssize_t w = write(g.fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			dbg("write to spool failed: %s; stopping", strerror(errno));
			atomic_store(&g.quiet, 1);
			return;
		}
		p += w;
		len -= (size_t)w;
		atomic_fetch_add(&g.bytes_written, (unsigned long long)w);
	}
}

static void status(int fatal, int code, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(msg))
		n = sizeof(msg) - 1;
	dbg("%s", msg);
	if (!mine())
		return;
	struct spool_status st = {cupti_now(), code, (uint32_t)fatal};
	char buf[sizeof(struct spool_frame) + sizeof(st) + sizeof(msg)];
	size_t pos = 0;
	if (spool_put(buf, sizeof(buf), &pos, SPOOL_STATUS, &st, sizeof(st), msg, (uint32_t)n) == 0)
		write_all(buf, pos);
	if (fatal)
		atomic_store(&g.quiet, 1);
}

static const char *cupti_err(CUptiResult r)
{
	const char *s = NULL;
	if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s)
		return "unknown cupti error";
	return s;
}

/* --- output buffer: grows by flushing to the file when full --- */
struct out {
	char *buf;
	size_t cap, pos;
};

static void out_flush(struct out *o)
{
	if (o->pos && !atomic_load(&g.quiet))
		write_all(o->buf, o->pos);
	o->pos = 0;
}

static void put(struct out *o, uint16_t type, const void *p, uint32_t len, const void *x,
		uint32_t xl)
{
	if (spool_put(o->buf, o->cap, &o->pos, type, p, len, x, xl) == 0)
		return;
	out_flush(o);
	spool_put(o->buf, o->cap, &o->pos, type, p, len, x, xl);
}

static uint64_t fnv(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h | 1;
}

static int grow_slots(void)
{
	size_t n = g.n_slots ? g.n_slots * 2 : 4096;
	struct str_slot *s = calloc(n, sizeof(*s));
	if (!s)
		return -1;
	for (size_t i = 0; i < g.n_slots; i++) {
		if (!g.slots[i].s)
			continue;
		size_t j = g.slots[i].hash & (n - 1);
		while (s[j].s)
			j = (j + 1) & (n - 1);
		s[j] = g.slots[i];
	}
	free(g.slots);
	g.slots = s;
	g.n_slots = n;
	return 0;
}

/* The spool id of s; emits a STRING record into o the first time. */
static uint32_t intern(struct out *o, const char *s)
{
	if (!s || !*s)
		return 0;
	size_t n = strnlen(s, SPOOL_MAX_STRING);
	uint64_t h = fnv(s, n);
	uint32_t id = 0;
	int fresh = 0;
	pthread_mutex_lock(&g.str_lock);
	if ((g.used + 1) * 2 > g.n_slots && grow_slots() < 0)
		goto out_unlock;
	size_t j = h & (g.n_slots - 1);
	while (g.slots[j].s) {
		if (g.slots[j].hash == h && strncmp(g.slots[j].s, s, n) == 0 &&
		    g.slots[j].s[n] == '\0') {
			id = g.slots[j].id;
			goto out_unlock;
		}
		j = (j + 1) & (g.n_slots - 1);
	}
	char *copy = strndup(s, n);
	if (!copy)
		goto out_unlock;
	g.slots[j] = (struct str_slot){h, copy, ++g.next_id};
	g.used++;
	id = g.next_id;
	fresh = 1;
out_unlock:
	pthread_mutex_unlock(&g.str_lock);
	if (fresh) {
		struct spool_string ss = {id};
		put(o, SPOOL_STRING, &ss, sizeof(ss), s, (uint32_t)n);
	}
	return id;
}

static uint32_t api_name(struct out *o, int driver, uint32_t cbid)
{
	if (cbid < MAX_CBID) {
		uint32_t id = atomic_load(&g.api_ids[driver][cbid]);
		if (id)
			return id;
	}
	const char *name = NULL;
	char tmp[32];
	CUpti_CallbackDomain d = driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API;
	if (cuptiGetCallbackName(d, cbid, &name) != CUPTI_SUCCESS || !name) {
		snprintf(tmp, sizeof(tmp), "%s_cbid_%u", driver ? "cu" : "cuda", cbid);
		name = tmp;
	}
	uint32_t id = intern(o, name);
	if (cbid < MAX_CBID)
		atomic_store(&g.api_ids[driver][cbid], id);
	return id;
}

#include "inject/convert.inc"

/* --- CUPTI buffer callbacks --- */
/* Buffer pool (invariant 5): CUPTI asks for a buffer in the program's own
 * thread when the current one fills, and by default zeroes it there; a fresh
 * 4 MiB allocation also page-faults in there as CUPTI fills it. So buffers
 * are zeroed and faulted in off the program's threads (at start, by the flush
 * thread, and on return in buffer_completed) and handed out from a pool;
 * CUPTI is told they come zeroed (CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_
 * BUFFER). GPUSCOPE_BUFPOOL=0: one fresh buffer per request, zeroed by CUPTI. */
static uint8_t *new_buffer(void)
{
	uint8_t *b = aligned_alloc(8, CUPTI_BUF_SIZE);
	if (b && g.pool_on)
		memset(b, 0, CUPTI_BUF_SIZE);
	return b;
}

static int pool_count(void)
{
	pthread_mutex_lock(&g.pool_lock);
	int n = g.pool_n;
	pthread_mutex_unlock(&g.pool_lock);
	return n;
}

/* 1 if the pool took the zeroed buffer b */
static int pool_put(uint8_t *b)
{
	pthread_mutex_lock(&g.pool_lock);
	int room = g.pool_n < POOL_MAX;
	if (room)
		g.pool[g.pool_n++] = b;
	pthread_mutex_unlock(&g.pool_lock);
	return room;
}

/* keeps POOL_READY zeroed buffers ready; called outside the program's threads */
static void pool_fill(void)
{
	while (pool_count() < POOL_READY) {
		uint8_t *b = new_buffer();
		if (!b)
			return;
		if (!pool_put(b)) {
			free(b);
			return;
		}
	}
}

/* a buffer CUPTI handed back: zeroed and kept while the pool has room */
static void pool_return(uint8_t *b)
{
	if (g.pool_on && pool_count() < POOL_MAX) {
		memset(b, 0, CUPTI_BUF_SIZE);
		if (pool_put(b))
			return;
	}
	free(b);
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	uint64_t t0 = mono_ns();
	*max_records = 0;
	uint8_t *b = NULL;
	if (g.pool_on) {
		pthread_mutex_lock(&g.pool_lock);
		if (g.pool_n > 0)
			b = g.pool[--g.pool_n];
		pthread_mutex_unlock(&g.pool_lock);
		if (!b)
			atomic_fetch_add(&g.pool_misses, 1);
	}
	if (!b)
		b = new_buffer();
	*buffer = b;
	*size = b ? CUPTI_BUF_SIZE : 0;
	atomic_fetch_add(&g.overhead_ns, mono_ns() - t0);
}

static void write_stats(struct out *o)
{
	struct spool_stats s = {atomic_load(&g.dropped),       atomic_load(&g.overhead_ns),
				atomic_load(&g.buffers),       atomic_load(&g.records),
				atomic_load(&g.launches),      atomic_load(&g.kernel_records),
				atomic_load(&g.bytes_written), cupti_now()};
	put(o, SPOOL_STATS, &s, sizeof(s), NULL, 0);
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
				      size_t valid)
{
	uint64_t t0 = mono_ns();
	if (!mine() || atomic_load(&g.quiet) || g.discard) {
		pool_return(buffer);
		return;
	}
	struct out o = {NULL, valid + valid / 2 + 256 * 1024, 0};
	o.buf = malloc(o.cap);
	if (!o.buf) {
		status(0, 0, "out of memory converting a cupti buffer; %zu bytes of records lost",
		       valid);
		pool_return(buffer);
		return;
	}
	CUpti_Activity *rec = NULL;
	uint64_t n = 0;
	for (;;) {
		CUptiResult r = cuptiActivityGetNextRecord(buffer, valid, &rec);
		if (r != CUPTI_SUCCESS)
			break;
		convert(&o, rec);
		n++;
	}
	size_t dropped = 0;
	if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS && dropped)
		atomic_fetch_add(&g.dropped, dropped);
	atomic_fetch_add(&g.buffers, 1);
	atomic_fetch_add(&g.records, n);
	if (n)
		atomic_store(&g.last_record_ts, cupti_now());
	atomic_fetch_add(&g.overhead_ns, mono_ns() - t0);
	write_stats(&o);
	out_flush(&o);
	free(o.buf);
	pool_return(buffer);
}

/* Counts kernel and graph launches independently of the activity buffers,
 * to notice another CUPTI client taking the buffers over. */
static void emit_counter(void *ud, uint32_t correlation, const char *metric, double value)
{
	struct out *o = ud;
	struct spool_counter c = {correlation, intern(o, metric), value};
	put(o, SPOOL_COUNTER, &c, sizeof(c), NULL, 0);
}

static int is_graph_launch(CUpti_CallbackDomain dom, CUpti_CallbackId cbid)
{
	return dom == CUPTI_CB_DOMAIN_RUNTIME_API
		   ? cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000 ||
			 cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000
		   : cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch ||
			 cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz;
}

/* record --metrics kernels: the outermost launch call of a thread (a runtime
 * launch, or a driver launch outside one) starts the range profiler at
 * ENTER and reads the launch's counters at EXIT; the values go to the spool
 * from this thread (a profiled launch is replayed and slow anyway). */
static void counters_hook(CUpti_CallbackDomain dom, CUpti_CallbackId cbid,
			  const CUpti_CallbackData *cb)
{
	int outermost = g.counters_mode == 1		     ? dom == CUPTI_CB_DOMAIN_DRIVER_API
			: dom == CUPTI_CB_DOMAIN_RUNTIME_API ? tls_in_runtime_launch == 1
							     : tls_in_runtime_launch == 0;
	if (!outermost)
		return;
	if (cb->callbackSite == CUPTI_API_ENTER) {
		if (is_graph_launch(dom, cbid))
			gs_counters_graph_launch();
		else if (mine() && atomic_load(&g.capturing)) {
			tls_profile_begin = cupti_now();
			tls_profiling = gs_counters_launch_enter(cb->context, cb->symbolName,
								 cb->correlationId);
		}
		return;
	}
	if (!tls_profiling)
		return;
	tls_profiling = 0;
	uint32_t corr = cb->correlationId;
	struct out o = {NULL, 64 * 1024, 0};
	o.buf = malloc(o.cap);
	if (!o.buf) {
		gs_counters_launch_exit(NULL, NULL);
		return;
	}
	gs_counters_launch_exit(emit_counter, &o);
	/* where the profiler's work on this launch began and ended (set-up,
	 * replay, decoding): record takes it out of the timeline (replay.c) */
	emit_counter(&o, corr, "gpuscope__profile_begin_ns", (double)tls_profile_begin);
	emit_counter(&o, corr, "gpuscope__profile_end_ns", (double)cupti_now());
	out_flush(&o);
	free(o.buf);
}

static void CUPTIAPI on_api(void *ud, CUpti_CallbackDomain dom, CUpti_CallbackId cbid,
			    const void *data)
{
	const CUpti_CallbackData *cb = data;
	if (dom == CUPTI_CB_DOMAIN_RESOURCE) {
		const CUpti_ResourceData *rd = data;
		if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED && g.counters_on)
			gs_counters_context(rd->context);
		return;
	}
	if (g.counters_on) {
		/* the runtime depth is counted before ENTER's hook and after EXIT's */
		if (dom == CUPTI_CB_DOMAIN_RUNTIME_API && cb->callbackSite == CUPTI_API_ENTER)
			tls_in_runtime_launch++;
		counters_hook(dom, cbid, cb);
		if (dom == CUPTI_CB_DOMAIN_RUNTIME_API) {
			if (cb->callbackSite == CUPTI_API_EXIT) {
				tls_in_runtime_launch--;
				atomic_fetch_add(&g.launches, 1);
			}
		} else if (cb->callbackSite == CUPTI_API_EXIT && tls_in_runtime_launch == 0) {
			atomic_fetch_add(&g.launches, 1);
		}
		return;
	}
	if (dom == CUPTI_CB_DOMAIN_RUNTIME_API) {
		if (cb->callbackSite == CUPTI_API_ENTER) {
			tls_in_runtime_launch++;
		} else {
			tls_in_runtime_launch--;
			atomic_fetch_add(&g.launches, 1);
		}
	} else if (dom == CUPTI_CB_DOMAIN_DRIVER_API && cb->callbackSite == CUPTI_API_EXIT &&
		   tls_in_runtime_launch == 0) {
		atomic_fetch_add(&g.launches, 1);
	}
}

static void check_takeover(unsigned long long *last_launches, unsigned long long *last_records,
			   int *ticks)
{
	unsigned long long l = atomic_load(&g.launches), r = atomic_load(&g.records);
	if (l > *last_launches && r == *last_records)
		(*ticks)++;
	else if (r != *last_records)
		*ticks = 0;
	if (r != *last_records)
		*last_records = r;
	*last_launches = l;
	if (*ticks >= TAKEOVER_TICKS && !atomic_exchange(&g.takeover_reported, 1))
		status(0, 0,
		       "another CUPTI client (torch.profiler / nsys / ncu?) took over activity "
		       "collection; records after %lld are lost",
		       (long long)atomic_load(&g.last_record_ts));
}

/* Without the CUPTI subscription another client (torch.profiler) can take
 * the activity buffers over, or disable our kinds when it stops. The flush
 * thread sends a heartbeat each tick (a cuDriverGetVersion call, whose
 * DRIVER record convert.inc recognises by thread and drops); when records
 * arrive no more and TAKEOVER_TICKS heartbeats in a row are missing, the
 * loss is reported instead of being silent. */
static void heartbeat(unsigned long long *missed)
{
	if (!g.drv_version)
		return;
	unsigned long long sent = atomic_load(&g.beats_sent), seen = atomic_load(&g.beats_seen);
	if (sent > seen + 1)
		(*missed)++;
	else
		*missed = 0;
	if (*missed >= TAKEOVER_TICKS && !atomic_exchange(&g.takeover_reported, 1))
		status(0, 0,
		       "activity records stopped arriving while the program ran: another CUPTI "
		       "client (torch.profiler / nsys / ncu?) took collection over or disabled "
		       "it; records after %lld are lost (record with GPUSCOPE_GUARD_CUPTI=1 to "
		       "keep them; that client then gets none)",
		       (long long)atomic_load(&g.last_record_ts));
	int v;
	g.drv_version(&v);
	atomic_fetch_add(&g.beats_sent, 1);
}

/* Records of kinds gpuscope never enables mean another CUPTI client in the
 * process enabled them (torch.profiler enables EXTERNAL_CORRELATION and
 * OVERHEAD, for one): say so once. */
static void check_foreign(void)
{
	unsigned long long n = atomic_load(&g.foreign_records);
	if (n && !atomic_exchange(&g.foreign_reported, 1))
		status(0, 0,
		       "another CUPTI client (torch.profiler / nsys / ncu?) is active in this "
		       "process: %llu records of activity kind %d that gpuscope did not enable; "
		       "it cannot collect while gpuscope records (CUPTI has one subscriber), and "
		       "gpuscope's records may be incomplete if it took the buffers over",
		       n, atomic_load(&g.foreign_kind));
}

static int request_pending(int answered)
{
	return !answered && g.request_path[0] && access(g.request_path, F_OK) == 0;
}

/* Sleeps one flush period in SPOOL_FLUSH_POLL_MS slices; returns early, once,
 * when record asks for a flush before it forwards a signal (spool.h). */
static void wait_tick(int *answered)
{
	struct timespec ts = {0, SPOOL_FLUSH_POLL_MS * 1000000L};
	for (unsigned slept = 0; slept < g.flush_ms; slept += SPOOL_FLUSH_POLL_MS) {
		nanosleep(&ts, NULL);
		if (request_pending(*answered) || atomic_load(&g.sig_caught) ||
		    atomic_load(&g.exit_req))
			return;
		if (atomic_load(&g.stopping))
			return;
	}
}

/* Signals that would kill the program outright (SIGINT, SIGTERM, SIGHUP
 * with their default action when recording starts) are caught, so that
 * their records are flushed first: the handler notes the signal and
 * returns; the flush thread lets the GPU finish what was queued
 * (SIG_SETTLE_MS), forces the flush and sends the signal again with
 * its default action, so the program dies of it as it would have, some
 * milliseconds later, with everything done before it on record. A timer
 * sends it again after SIG_MAX_MS, should the flush thread be stuck;
 * the handler then lets it through. A program that sets its own handler
 * replaces ours; a forked child (no exec) gets the default action at once,
 * and exec restores it. SIGQUIT is left alone (its core dump). */
static const int caught_sigs[3] = {SIGINT, SIGTERM, SIGHUP};

static void restore_default(int sig)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigaction(sig, &sa, NULL);
}

static void on_killing_signal(int sig)
{
	int saved = errno;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	uint64_t first = atomic_load(&g.sig_caught_ns);
	if (getpid() != g.pid || atomic_load(&g.quiet) ||
	    (first && now - first >= SIG_MAX_MS * 1000000ull)) {
		/* a forked child, not recording, or no flush in time */
		restore_default(sig);
		raise(sig); /* delivered when the handler returns */
	} else if (!first) {
		atomic_store(&g.sig_caught_ns, now);
		atomic_store(&g.sig_caught, sig);
		for (int i = 0; i < 3; i++)
			if (caught_sigs[i] == sig && g.sig_timer_ok[i]) {
				struct itimerspec it = {
				    {0, 0}, {SIG_MAX_MS / 1000, (SIG_MAX_MS % 1000) * 1000000L}};
				timer_settime(g.sig_timer[i], 0, &it, NULL);
			}
	}
	errno = saved;
}

static void catch_signals(void)
{
	for (int i = 0; i < 3; i++) {
		int sig = caught_sigs[i];
		struct sigaction cur;
		if (sigaction(sig, NULL, &cur) != 0 || (cur.sa_flags & SA_SIGINFO) ||
		    cur.sa_handler != SIG_DFL)
			continue; /* the program's handler, or ignored */
		struct sigevent ev;
		memset(&ev, 0, sizeof(ev));
		ev.sigev_notify = SIGEV_SIGNAL;
		ev.sigev_signo = sig;
		g.sig_timer_ok[i] = timer_create(CLOCK_MONOTONIC, &ev, &g.sig_timer[i]) == 0;
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_killing_signal;
		sa.sa_flags = SA_RESTART;
		sigfillset(&sa.sa_mask);
		if (sigaction(sig, &sa, NULL) == 0)
			dbg("signal %d caught until a last flush", sig);
	}
}

/* after a forced flush: the GPU work left out for want of timestamps */
static void report_incomplete(const char *when)
{
	unsigned long long n = atomic_exchange(&g.incomplete, 0);
	if (n)
		status(0, 0,
		       "%llu kernels, copies or memsets had no GPU timestamps yet %s (still "
		       "queued, or not timed since its last synchronization); they are left "
		       "out",
		       n, when);
}

static void report_paused(void);

/* the flush thread ends: the signals still caught get their default back */
static void uncatch_signals(void)
{
	for (int i = 0; i < 3; i++) {
		struct sigaction cur;
		if (sigaction(caught_sigs[i], NULL, &cur) == 0 &&
		    cur.sa_handler == on_killing_signal)
			restore_default(caught_sigs[i]);
	}
}

static void final_flush(uint32_t how, uint32_t detail);
static void counters_report(void);

/* In the flush thread, once a signal was caught: flush, then let it through */
static void flush_on_signal(void)
{
	int sig = atomic_load(&g.sig_caught);
	uint64_t t0 = mono_ns();
	struct timespec settle = {0, SIG_SETTLE_MS * 1000000L};
	nanosleep(&settle, NULL);
	final_flush(SPOOL_END_SIGNAL, (uint32_t)sig);
	dbg("signal %d: flushed in %.1f ms, now let through", sig, (double)(mono_ns() - t0) / 1e6);
	restore_default(sig);
	kill(getpid(), sig);
}

/* after the flush that answers a request: the empty answer file */
static void answer_request(void)
{
	int fd = open(g.answer_path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
	dbg("flushed on record's request (a signal is coming)");
}

static void *flush_thread(void *arg)
{
	unsigned long long ll = 0, lr = 0, missed = 0;
	int ticks = 0, answered = 0;
	atomic_store(&g.beat_tid, (int)syscall(SYS_gettid));
	while (!atomic_load(&g.stopping) && !atomic_load(&g.quiet)) {
		wait_tick(&answered);
		if (atomic_load(&g.stopping) || !mine())
			break;
		/* time spent here is counted inside buffer_completed */
		if (atomic_load(&g.sig_caught)) {
			flush_on_signal();
			break;
		}
		if (atomic_load(&g.exit_req)) {
			final_flush(SPOOL_END_QUICK_EXIT, (uint32_t)atomic_load(&g.exit_status));
			break;
		}
		cuptiActivityFlushAll(0);
		if (request_pending(answered)) {
			answered = 1;
			answer_request();
		}
		if (g.pool_on)
			pool_fill();
		if (atomic_load(&g.capturing))
			check_takeover(&ll, &lr, &ticks);
		else
			ticks = 0;
		check_foreign();
		heartbeat(&missed);
	}
	if (mine())
		uncatch_signals();
	atomic_store(&g.flush_alive, 0);
	return NULL;
}

/*
 * _exit and _Exit (os._exit in Python: multiprocessing's fork-started
 * workers end that way, and so do programs that skip their exit handlers)
 * run no atexit handler, so the records since the last periodic flush
 * would be lost: all of them, for a worker that lives less than a flush
 * period. record preloads a shim (src/preload/preload.c) that calls this
 * hook first, in the recorded process only (the shim checks the pid, so a
 * vfork or fork child never gets here). _exit may be called from a signal
 * handler, where CUPTI cannot be entered safely, so the hook only asks
 * the flush thread for the last flush and waits for it, SIG_MAX_MS at
 * most: the program exits, late by that much at worst, never hangs.
 */
static void quick_exit_hook(int status)
{
	if (!mine() || atomic_load(&g.quiet) || atomic_load(&g.final_done) ||
	    !atomic_load(&g.flush_alive) || atomic_load(&g.sig_caught))
		return;
	if (!atomic_exchange(&g.exit_req, 1))
		atomic_store(&g.exit_status, status);
	struct timespec ts = {0, 1000000L};
	for (unsigned ms = 0; ms < SIG_MAX_MS && atomic_load(&g.flush_alive); ms++)
		nanosleep(&ts, NULL);
}

/* tells the preload shim, when record loaded it, which hook to call */
static void register_quick_exit(void)
{
	void (*reg)(void (*)(int)) = NULL;
	*(void **)&reg = dlsym(RTLD_DEFAULT, "gpuscope_preload_register");
	if (reg)
		reg(quick_exit_hook);
	dbg("_exit/_Exit: %s", reg ? "the preload shim flushes first"
				   : "no preload shim (records since the last flush are lost)");
}

/* GPUSCOPE_DEBUG: each thread's name and context switches at exit, to see
 * which threads CUPTI wakes how often (bench/record-overhead.sh logs it) */
static void dbg_threads(void)
{
	if (!g.debug)
		return;
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	while (d && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		char path[300], line[256], comm[64] = "?";
		unsigned long vol = 0, invol = 0;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		FILE *f = fopen(path, "r");
		if (f) {
			if (fgets(comm, sizeof(comm), f))
				comm[strcspn(comm, "\n")] = '\0';
			fclose(f);
		}
		snprintf(path, sizeof(path), "/proc/self/task/%s/status", e->d_name);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f)) {
			sscanf(line, "voluntary_ctxt_switches: %lu", &vol);
			sscanf(line, "nonvoluntary_ctxt_switches: %lu", &invol);
		}
		if (f)
			fclose(f);
		/* utime and stime: fields 14 and 15 of stat, counted after the ')' of comm */
		unsigned long ut = 0, st = 0;
		snprintf(path, sizeof(path), "/proc/self/task/%s/stat", e->d_name);
		f = fopen(path, "r");
		if (f && fgets(line, sizeof(line), f)) {
			char *p = strrchr(line, ')');
			if (p &&
			    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
				   &ut, &st) != 2)
				ut = st = 0;
		}
		if (f)
			fclose(f);
		long hz = sysconf(_SC_CLK_TCK);
		dbg("thread %s '%s': %lu voluntary, %lu involuntary context switches, user %.2f s, "
		    "system %.2f s",
		    e->d_name, comm, vol, invol, (double)ut / (double)hz, (double)st / (double)hz);
	}
	if (d)
		closedir(d);
}

/* The last flush of the process, in the thread that calls it (the one that
 * exits, or the flush thread for _exit): a last heartbeat, the forced flush,
 * the final status and stats, and the END frame (spool.h, invariant 6) that
 * tells record the process ended through it. */
static void final_flush(uint32_t how, uint32_t detail)
{
	if (!mine() || atomic_load(&g.quiet) || atomic_exchange(&g.final_done, 1))
		return;
	atomic_store(&g.stopping, 1);
	uint64_t t0 = mono_ns();
	/* a last heartbeat: its record comes back in the forced flush unless
	 * another client holds or has disabled collection */
	if (g.drv_version) {
		int v;
		atomic_store(&g.exit_tid, (int)syscall(SYS_gettid));
		g.drv_version(&v);
		atomic_fetch_add(&g.beats_sent, 1);
	}
	unsigned long long sent = atomic_load(&g.beats_sent);
	CUptiResult r = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	if (r != CUPTI_SUCCESS)
		dbg("final flush failed: %s", cupti_err(r));
	atomic_fetch_add(&g.overhead_ns, mono_ns() - t0);
	char when[64];
	if (how == SPOOL_END_SIGNAL)
		snprintf(when, sizeof(when), "when signal %u ended the program", detail);
	else
		snprintf(when, sizeof(when), "at exit");
	report_incomplete(when);
	report_paused();
	counters_report();
	check_foreign();
	/* after the forced flush every heartbeat sent before it is back, unless
	 * another client held the buffers for a while (even too briefly for the
	 * tick check) or disabled our kinds when it stopped */
	unsigned long long seen = atomic_load(&g.beats_seen);
	if (g.drv_version && sent > seen && !atomic_exchange(&g.takeover_reported, 1))
		status(0, 0,
		       "%llu of %llu heartbeats did not come back: another CUPTI client "
		       "(torch.profiler / nsys / ncu?) held activity collection for about %llu s; "
		       "the records of that time are lost (GPUSCOPE_GUARD_CUPTI=1 keeps them; that "
		       "client then gets none)",
		       sent - seen, sent, (sent - seen) * g.flush_ms / 1000);
	if (atomic_load(&g.launches) > 0 && atomic_load(&g.kernel_records) == 0 && !g.pauses &&
	    !atomic_exchange(&g.takeover_reported, 1))
		status(0, 0,
		       "%llu kernel launches seen but no kernel records received: another CUPTI "
		       "client (torch.profiler / nsys / ncu?) took over activity collection",
		       (unsigned long long)atomic_load(&g.launches));
	char buf[256];
	struct out o = {buf, sizeof(buf), 0};
	write_stats(&o);
	struct spool_end e = {cupti_now(), how, detail};
	put(&o, SPOOL_END, &e, sizeof(e), NULL, 0);
	out_flush(&o);
	dbg_threads();
	dbg("done: %llu records, %llu buffers (%llu not from the pool), %llu dropped, %llu "
	    "launches",
	    (unsigned long long)atomic_load(&g.records),
	    (unsigned long long)atomic_load(&g.buffers),
	    (unsigned long long)atomic_load(&g.pool_misses),
	    (unsigned long long)atomic_load(&g.dropped),
	    (unsigned long long)atomic_load(&g.launches));
}

static void at_exit(void)
{
	final_flush(SPOOL_END_EXIT, 0);
}

static int open_spool(void)
{
	const char *dir = getenv("GPUSCOPE_SPOOL_DIR");
	if (!dir || !*dir) {
		dbg("GPUSCOPE_SPOOL_DIR is not set; not recording");
		return -1;
	}
	char path[4096];
	snprintf(path, sizeof(path), "%s/spool-%d.bin", dir, (int)getpid());
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600);
	if (fd < 0) {
		dbg("cannot create '%s': %s", path, strerror(errno));
		return -1;
	}
	char cmd[SPOOL_MAX_CMDLINE];
	ssize_t n = 0;
	int cf = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (cf >= 0) {
		n = read(cf, cmd, sizeof(cmd));
		close(cf);
	}
	if (n < 0)
		n = 0;
	struct spool_file_header h;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, SPOOL_MAGIC, sizeof(h.magic));
	h.version = SPOOL_VERSION;
	h.header_len = sizeof(h);
	h.pid = (uint32_t)getpid();
	h.ppid = (uint32_t)getppid();
	h.cmdline_len = (uint32_t)n;
	h.clock_cupti_ns = cupti_now();
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	h.clock_real_ns = (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
	g.fd = fd;
	g.pid = getpid();
	if ((size_t)snprintf(g.request_path, sizeof(g.request_path), "%s/%s", dir,
			     SPOOL_FLUSH_REQUEST) >= sizeof(g.request_path) ||
	    (size_t)snprintf(g.answer_path, sizeof(g.answer_path), "%s/%s%d", dir,
			     SPOOL_FLUSHED_PREFIX, (int)getpid()) >= sizeof(g.answer_path))
		g.request_path[0] = 0; /* too long: no handshake, the periodic flush only */
	write_all(&h, sizeof(h));
	write_all(cmd, (size_t)n);
	return 0;
}

static void on_fork_child(void)
{
	/* invariant 2: mine() is false from now on in the child */
}

/* The activity kinds, by the names GPUSCOPE_KINDS takes (a comma list, or
 * "none"). Leaving kinds out is for measuring what each costs
 * (bench/record-overhead.sh); report then lacks what they would show.
 * on: enabled when GPUSCOPE_KINDS is unset. "sync" (CUPTI's synchronization
 * records) is off: with it on, CUPTI intercepts every CUDA call, queries
 * included, at 150-450 ns each (bench/api-cost.sh on the H200: cuCtxGetCurrent
 * 9 -> 156 ns, cudaStreamIsCapturing 70 -> 527 ns; PyTorch makes several per
 * op). record derives the sync rows from the synchronizing API calls instead
 * (trace_add_api_syncs); GPUSCOPE_KINDS naming sync brings CUPTI's back. */
static const struct {
	const char *name;
	CUpti_ActivityKind kind;
	int on;
} kinds[] = {
    {"device", CUPTI_ACTIVITY_KIND_DEVICE, 1},
    {"context", CUPTI_ACTIVITY_KIND_CONTEXT, 1},
    {"kernel", CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 1},
    {"memcpy", CUPTI_ACTIVITY_KIND_MEMCPY, 1},
    {"memcpy", CUPTI_ACTIVITY_KIND_MEMCPY2, 1},
    {"memset", CUPTI_ACTIVITY_KIND_MEMSET, 1},
    {"runtime", CUPTI_ACTIVITY_KIND_RUNTIME, 1},
    {"driver", CUPTI_ACTIVITY_KIND_DRIVER, 1},
    {"sync", CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, 0},
    {"memory", CUPTI_ACTIVITY_KIND_MEMORY2, 1},
    {"marker", CUPTI_ACTIVITY_KIND_MARKER, 1},
};

/* 1 if kind NAME is in the comma list LIST (NULL: the kind's default, on) */
static int kind_wanted(const char *list, const char *name, int on)
{
	if (!list)
		return on;
	size_t n = strlen(name);
	for (const char *p = list; *p;) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		if (l == n && strncmp(p, name, n) == 0)
			return 1;
		p += l + (e != NULL);
	}
	return 0;
}

/* GPUSCOPE_API=work: API records only for calls that enqueue, wait for,
 * allocate or load GPU work, matched on CUPTI's own names of the calls
 * (cuptiGetCallbackName), so new versions of a call are covered */
static const char *const api_work[] = {
    "Launch",
    "GraphLaunch",
    "GraphInstantiate",
    "GraphUpload",
    "Memcpy",
    "Memset",
    "Malloc",
    "MemAlloc",
    "Free",
    "MemFree",
    "MemHostAlloc",
    "HostAlloc",
    "HostRegister",
    "HostUnregister",
    "MemCreate",
    "MemMap",
    "MemUnmap",
    "MemRelease",
    "MemPrefetch",
    "DeviceSynchronize",
    "StreamSynchronize",
    "EventSynchronize",
    "CtxSynchronize",
    "ThreadSynchronize",
    "StreamWaitEvent",
    "StreamWaitValue",
    "StreamWriteValue",
    "StreamBatchMemOp",
    "StreamQuery",
    "EventQuery",
    "EventRecord",
    "StreamBeginCapture",
    "StreamEndCapture",
    "StreamCreate",
    "StreamDestroy",
    "ModuleLoad",
    "LibraryLoad",
    "CtxCreate",
    "DevicePrimaryCtxRetain",
    "DeviceReset",
    "Init",
    "DriverGetVersion",
};

static int api_is_work(const char *name)
{
	/* skip the domain prefix: "cuda" (runtime) or "cu" (driver) */
	if (strncmp(name, "cu", 2) != 0)
		return 0;
	const char *p = strncmp(name, "cuda", 4) == 0 ? name + 4 : name + 2;
	for (size_t i = 0; i < sizeof(api_work) / sizeof(api_work[0]); i++)
		if (strncmp(p, api_work[i], strlen(api_work[i])) == 0)
			return 1;
	return 0;
}

static const struct {
	CUpti_CallbackDomain dom;
	CUpti_CallbackId cbid;
} launch_cbids[] = {
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz},
};

/* Query calls left out of the activity records (invariant 4). */
static const CUpti_CallbackId quiet_runtime[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaPeekAtLastError_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDeviceCount_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaSetDevice_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamIsCapturing_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetCaptureInfo_v10010,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetCaptureInfo_v2_v11030,
    CUPTI_RUNTIME_TRACE_CBID_cudaThreadExchangeStreamCaptureMode_v10010,
    CUPTI_RUNTIME_TRACE_CBID_cudaDeviceGetAttribute_v5000,
    CUPTI_RUNTIME_TRACE_CBID_cudaPointerGetAttributes_v4000,
    CUPTI_RUNTIME_TRACE_CBID_cudaFuncGetAttributes_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDriverEntryPoint_v11030,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDriverEntryPointByVersion_v12050,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetPriority_v5050,
    CUPTI_RUNTIME_TRACE_CBID_cudaDeviceGetStreamPriorityRange_v5050,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetFuncBySymbol_v11000,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetId_v12000,
    CUPTI_RUNTIME_TRACE_CBID_cudaRuntimeGetVersion_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaDriverGetVersion_v3020,
};
static const CUpti_CallbackId quiet_driver[] = {
    CUPTI_DRIVER_TRACE_CBID_cuKernelGetName,
    CUPTI_DRIVER_TRACE_CBID_cuFuncGetName,
    CUPTI_DRIVER_TRACE_CBID_cuDeviceGetAttribute,
    CUPTI_DRIVER_TRACE_CBID_cuDeviceGet,
    CUPTI_DRIVER_TRACE_CBID_cuDeviceGetCount,
    CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent,
    CUPTI_DRIVER_TRACE_CBID_cuCtxSetCurrent,
    CUPTI_DRIVER_TRACE_CBID_cuCtxGetDevice,
    CUPTI_DRIVER_TRACE_CBID_cuCtxGetId,
    CUPTI_DRIVER_TRACE_CBID_cuCtxPushCurrent_v2,
    CUPTI_DRIVER_TRACE_CBID_cuCtxPopCurrent_v2,
    CUPTI_DRIVER_TRACE_CBID_cuPointerGetAttribute,
    CUPTI_DRIVER_TRACE_CBID_cuPointerGetAttributes,
    CUPTI_DRIVER_TRACE_CBID_cuGetProcAddress,
    CUPTI_DRIVER_TRACE_CBID_cuGetProcAddress_v2,
    CUPTI_DRIVER_TRACE_CBID_cuFuncGetAttribute,
    CUPTI_DRIVER_TRACE_CBID_cuKernelGetAttribute,
    CUPTI_DRIVER_TRACE_CBID_cuKernelGetFunction,
    CUPTI_DRIVER_TRACE_CBID_cuLibraryGetKernel,
    CUPTI_DRIVER_TRACE_CBID_cuGetErrorString,
    CUPTI_DRIVER_TRACE_CBID_cuGetErrorName,
    CUPTI_DRIVER_TRACE_CBID_cuStreamGetId,
    CUPTI_DRIVER_TRACE_CBID_cuStreamIsCapturing,
    CUPTI_DRIVER_TRACE_CBID_cuStreamGetCaptureInfo_v2,
    CUPTI_DRIVER_TRACE_CBID_cuStreamGetCaptureInfo_v3,
    CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxGetState,
    CUPTI_DRIVER_TRACE_CBID_cuOccupancyMaxActiveBlocksPerMultiprocessor,
    CUPTI_DRIVER_TRACE_CBID_cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags,
    CUPTI_DRIVER_TRACE_CBID_cuCtxGetFlags,
    CUPTI_DRIVER_TRACE_CBID_cuCtxGetStreamPriorityRange,
};

static int env_is(const char *name, const char *value)
{
	const char *v = getenv(name);
	return v && strcmp(v, value) == 0;
}

/* How API calls get activity records (GPUSCOPE_API):
 *  calls (default): each call of interest enabled on its own
 *    (cuptiActivityEnable{Runtime,Driver}Api), every call but the queries
 *    (invariant 4), so that a call left out is not intercepted at all; on
 *    the H200 this was clearly cheaper than whole kinds on PyTorch's small
 *    ops (1.48x vs 1.97x) and within the noise elsewhere (workloads/README.md)
 *  work: the same, only the calls that enqueue, wait, allocate or load
 *  kind: the whole kind enabled, the queries then switched off
 *  all: the whole kind, every call */
enum api_mode { API_CALLS, API_WORK, API_KIND, API_ALL };

/* the query calls of one domain (invariant 4) */
static const CUpti_CallbackId *quiet_calls(int driver, size_t *n)
{
	*n = driver ? sizeof(quiet_driver) / sizeof(quiet_driver[0])
		    : sizeof(quiet_runtime) / sizeof(quiet_runtime[0]);
	return driver ? quiet_driver : quiet_runtime;
}

static int is_quiet(int driver, CUpti_CallbackId cbid)
{
	size_t n;
	const CUpti_CallbackId *q = quiet_calls(driver, &n);
	for (size_t i = 0; i < n; i++)
		if (q[i] == cbid)
			return 1;
	return 0;
}

/* Driver calls whose name has "Get" (cuCtxGetDevice_v2, cuGetExportTable,
 * cuModuleGetFunction, cuMemGetInfo, ...) only look things up; they get no
 * record either (invariant 4). Enabling every driver call but the listed
 * queries made cudaGetDevice cost 40 -> 300 ns on the H200 (the runtime goes
 * through such driver calls inside), GPUSCOPE_API=work did not. */
static int driver_query(const char *name)
{
	return strncmp(name, "cuda", 4) != 0 && strstr(name, "Get") != NULL;
}

/* Enables (on) or disables the API records of one domain (kind RUNTIME or
 * DRIVER) as mode says; returns the number of calls switched, or 1 for a
 * whole kind. Disabling switches off the same calls enabling switched on, so
 * the heartbeat's cuDriverGetVersion (a query, never among them) stays. */
static int enable_api(CUpti_ActivityKind kind, enum api_mode mode, int on)
{
	int driver = kind == CUPTI_ACTIVITY_KIND_DRIVER;
	if (mode == API_KIND || mode == API_ALL) {
		CUptiResult r = on ? cuptiActivityEnable(kind) : cuptiActivityDisable(kind);
		if (r != CUPTI_SUCCESS) {
			status(0, r, "cupti activity kind %d not %s: %s", (int)kind,
			       on ? "enabled" : "disabled", cupti_err(r));
			return 0;
		}
		if (!on) {
			/* the whole kind off took the heartbeat's record with it */
			if (driver && g.drv_version)
				cuptiActivityEnableDriverApi(
				    CUPTI_DRIVER_TRACE_CBID_cuDriverGetVersion, 1);
			return 1;
		}
		size_t nq;
		const CUpti_CallbackId *q = quiet_calls(driver, &nq);
		int n = 0;
		for (size_t i = 0; mode == API_KIND && i < nq; i++)
			n += (driver ? cuptiActivityEnableDriverApi(q[i], 0)
				     : cuptiActivityEnableRuntimeApi(q[i], 0)) == CUPTI_SUCCESS;
		dbg("%s: whole kind, %d query calls left out", driver ? "driver" : "runtime", n);
		return 1;
	}
	CUpti_CallbackDomain dom =
	    driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API;
	int n = 0;
	/* up to MAX_CBID, not this header's CBID_SIZE: a newer libcupti knows
	 * newer calls */
	for (uint32_t c = 1; c < MAX_CBID; c++) {
		const char *name = NULL;
		if (cuptiGetCallbackName(dom, c, &name) != CUPTI_SUCCESS || !name)
			continue; /* a retired or unknown call id */
		if (mode == API_WORK ? !api_is_work(name)
				     : is_quiet(driver, c) || driver_query(name))
			continue;
		n += (driver ? cuptiActivityEnableDriverApi(c, (uint8_t)on)
			     : cuptiActivityEnableRuntimeApi(c, (uint8_t)on)) == CUPTI_SUCCESS;
	}
	if (on)
		dbg("%s: %d calls get records (GPUSCOPE_API=%s)", driver ? "driver" : "runtime", n,
		    mode == API_WORK ? "work" : "calls");
	/* a libcupti that takes no call on its own still gets the whole kind */
	if (n == 0 && mode == API_CALLS)
		return enable_api(kind, API_KIND, on);
	return n > 0;
}

/* Switches the recorded activity kinds (GPUSCOPE_KINDS, GPUSCOPE_API) on or
 * off; device and context records stay on (they come once per device and
 * context, and report needs them). Returns the number of kinds switched;
 * *last gets the last failure. */
static int set_kinds(int on, CUptiResult *last)
{
	int n = 0;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (g.kinds_none || !kind_wanted(g.kinds_want, kinds[i].name, kinds[i].on))
			continue;
		if (!on && (kinds[i].kind == CUPTI_ACTIVITY_KIND_DEVICE ||
			    kinds[i].kind == CUPTI_ACTIVITY_KIND_CONTEXT))
			continue;
		if (kinds[i].kind == CUPTI_ACTIVITY_KIND_RUNTIME ||
		    kinds[i].kind == CUPTI_ACTIVITY_KIND_DRIVER) {
			n += enable_api(kinds[i].kind, g.api_mode, on);
			continue;
		}
		CUptiResult r =
		    on ? cuptiActivityEnable(kinds[i].kind) : cuptiActivityDisable(kinds[i].kind);
		if (r == CUPTI_SUCCESS)
			n++;
		else {
			*last = r;
			status(0, r, "cupti activity kind %d not %s: %s", (int)kinds[i].kind,
			       on ? "enabled" : "disabled", cupti_err(r));
		}
	}
	return n;
}

/* gpuscope_capture(0) pauses recording, gpuscope_capture(1) resumes it; for
 * code that wants only a region recorded (GPUSCOPE_CAPTURE=off starts
 * paused) and for the overhead bench, which times the same loop traced and
 * untraced in one process (bench/record-overhead.sh, INPROC). Found with
 * dlsym / ctypes on the library CUDA_INJECTION64_PATH names. GPU work still
 * running when recording pauses may lack its records: synchronize first.
 * Pauses are counted and reported at exit (report_paused), never silent.
 * Returns 0, or -1 when this process is not being recorded. */
EXPORT int gpuscope_capture(int on)
{
	if (!g.started || !mine() || atomic_load(&g.quiet) || atomic_load(&g.stopping))
		return -1;
	on = on != 0;
	pthread_mutex_lock(&g.capture_lock);
	if (on != atomic_load(&g.capturing)) {
		CUptiResult r = CUPTI_SUCCESS;
		if (!on) {
			set_kinds(0, &r);
			g.paused_at = mono_ns();
			g.pauses++;
		} else {
			set_kinds(1, &r);
			g.paused_ns += mono_ns() - g.paused_at;
		}
		atomic_store(&g.capturing, on);
		dbg("recording %s (gpuscope_capture)", on ? "resumed" : "paused");
	}
	pthread_mutex_unlock(&g.capture_lock);
	return 0;
}

/* at exit: how long recording was paused, so that report can say the trace
 * has holes */
static void report_paused(void)
{
	pthread_mutex_lock(&g.capture_lock);
	uint64_t ns = g.paused_ns;
	if (!atomic_load(&g.capturing))
		ns += mono_ns() - g.paused_at;
	unsigned long pauses = g.pauses;
	pthread_mutex_unlock(&g.capture_lock);
	if (pauses)
		status(
		    0, 0,
		    "recording was paused %lu time%s by the program (gpuscope_capture or "
		    "GPUSCOPE_CAPTURE=off), %.3f s in all; GPU work of those times is not in the "
		    "trace",
		    pauses, pauses == 1 ? "" : "s", (double)ns / 1e9);
}

/* GPUSCOPE_DEBUG only: where a crash happened, on stderr */
static void on_crash(int sig)
{
	void *pcs[64];
	int n = backtrace(pcs, 64);
	static const char msg[] = "gpuscope-inject: crash, backtrace:\n";
	if (write(2, msg, sizeof(msg) - 1) < 0)
		n = 0;
	backtrace_symbols_fd(pcs, n, 2);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void counters_log(const char *msg)
{
	dbg("%s", msg);
}

/* GPUSCOPE_METRICS=kernels (record --metrics kernels): per-kernel counters,
 * selected by GPUSCOPE_KERNEL_REGEX, GPUSCOPE_LAUNCH_SKIP and
 * GPUSCOPE_LAUNCH_COUNT (counters.h). A bad regex is reported and the
 * timeline is recorded without counters. */
static void counters_setup(void)
{
	const char *m = getenv("GPUSCOPE_METRICS");
	if (!m || !strstr(m, "kernels"))
		return;
	const char *skip = getenv("GPUSCOPE_LAUNCH_SKIP"), *count = getenv("GPUSCOPE_LAUNCH_COUNT");
	struct gs_counters_opts o = {getenv("GPUSCOPE_KERNEL_REGEX"),
				     skip ? strtol(skip, NULL, 10) : 0,
				     count ? strtol(count, NULL, 10) : 0, counters_log};
	const char *mode = getenv("GPUSCOPE_COUNTERS_MODE");
	g.counters_mode = mode && strcmp(mode, "driver") == 0  ? 1
			  : mode && strcmp(mode, "eager") == 0 ? 2
							       : 0;
	char why[256] = "";
	if (gs_counters_setup(&o, why, sizeof(why)) < 0) {
		status(0, 0, "kernel counters off: %s", why);
		return;
	}
	g.counters_on = 1;
}

/* What the counters did, for the trace (at the last flush). */
static void counters_report(void)
{
	if (!g.counters_on)
		return;
	uint64_t profiled = 0, graphs = 0;
	uint32_t passes = 0;
	gs_counters_stats(&profiled, &graphs, &passes);
	const char *why = gs_counters_status(), *dropped = gs_counters_dropped();
	status(0, 0,
	       "kernel counters: %llu launches profiled, %u passes each, %llu graph launches "
	       "not profiled%s%s%s%s",
	       (unsigned long long)profiled, passes, (unsigned long long)graphs,
	       *why ? "; stopped: " : "", why, *dropped ? "; metrics the chip lacks: " : "",
	       dropped);
}

static void start(void)
{
	const char *d = getenv("GPUSCOPE_DEBUG");
	g.debug = d && *d && strcmp(d, "0") != 0;
	if (g.debug && env_is("GPUSCOPE_CRASH_TRACE", "1")) {
		void *pcs[1];
		backtrace(pcs, 1); /* loads libgcc now, not in the handler */
		signal(SIGSEGV, on_crash);
		signal(SIGBUS, on_crash);
		signal(SIGABRT, on_crash);
	}
	const char *fm = getenv("GPUSCOPE_FLUSH_MS");
	long ms = fm ? strtol(fm, NULL, 10) : 1000;
	g.flush_ms = ms >= 10 && ms <= 60000 ? (unsigned)ms : 1000;
	if (open_spool() < 0)
		return;
	uint32_t ver = 0;
	if (cuptiGetVersion(&ver) != CUPTI_SUCCESS || ver / 10000 != CUPTI_API_VERSION / 10000 ||
	    ver < CUPTI_API_VERSION) {
		status(1, 0,
		       "libcupti version %u does not match the one gpuscope was built with (%u)",
		       ver, (unsigned)CUPTI_API_VERSION);
		return;
	}
	/* A subscription would hold CUPTI's single subscriber slot, so that a
	 * profiler started later in the program cannot take the records over
	 * (torch.profiler then fails: "CUPTI initialization failed", H200). But
	 * being subscribed costs 20-40% on PyTorch's small ops even with no
	 * callback enabled (bench/record-overhead.sh, H200), so it is opt-in:
	 * GPUSCOPE_GUARD_CUPTI=1; without it a takeover is detected and reported
	 * (heartbeat). GPUSCOPE_LAUNCH_CB=1 also counts launches by callback. */
	CUptiResult r;
	counters_setup();
	if (g.counters_on || env_is("GPUSCOPE_GUARD_CUPTI", "1") ||
	    env_is("GPUSCOPE_LAUNCH_CB", "1")) {
		r = cuptiSubscribe(&g.sub, on_api, NULL);
		if (r != CUPTI_SUCCESS) {
			status(1, r, "cupti subscribe failed: %s (another profiler attached?)",
			       cupti_err(r));
			return;
		}
		if (g.counters_on && g.counters_mode == 2)
			cuptiEnableCallback(1, g.sub, CUPTI_CB_DOMAIN_RESOURCE,
					    CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
		if (g.counters_on || env_is("GPUSCOPE_LAUNCH_CB", "1"))
			for (size_t i = 0; i < sizeof(launch_cbids) / sizeof(launch_cbids[0]); i++)
				cuptiEnableCallback(1, g.sub, launch_cbids[i].dom,
						    launch_cbids[i].cbid);
	}
	cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
	/* GPUSCOPE_CUPTI_PER_THREAD=0: one activity buffer shared by all threads
	 * instead of CUPTI's per-thread buffers (its default); set before the
	 * callbacks are registered, as CUPTI asks; for the overhead bench */
	if (env_is("GPUSCOPE_CUPTI_PER_THREAD", "0")) {
		uint8_t per_thread = 0;
		size_t sz = sizeof(per_thread);
		r = cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, &sz,
					      &per_thread);
		dbg("per-thread activity buffers off: %s", cupti_err(r));
	}
	r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
	if (r != CUPTI_SUCCESS) {
		status(1, r, "cupti activity callbacks failed: %s", cupti_err(r));
		return;
	}
	/* GPUSCOPE_DISCARD=1: CUPTI collects as usual, its buffers are handed
	 * back unread (nothing converted or written): for the overhead bench, to
	 * tell CUPTI's own cost from gpuscope's; the trace then holds nothing */
	g.discard = env_is("GPUSCOPE_DISCARD", "1");
	if (g.discard)
		status(0, 0, "GPUSCOPE_DISCARD=1: records are collected and thrown away unread");
	g.pool_on = !env_is("GPUSCOPE_BUFPOOL", "0");
	if (g.pool_on) {
		uint8_t zeroed = 1;
		size_t sz = sizeof(zeroed);
		if (cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &sz,
					      &zeroed) != CUPTI_SUCCESS)
			dbg("cupti does not take zeroed buffers; the pool still saves allocations");
		pool_fill();
	}
	/* GPUSCOPE_CUPTI_PINNED=1: CUPTI's buffers for GPU timestamps in pinned
	 * host memory instead of device memory (its default since CUDA 12.0u1);
	 * set before any context exists, as CUPTI asks; for the overhead bench */
	if (env_is("GPUSCOPE_CUPTI_PINNED", "1")) {
		uint8_t pinned = 1;
		size_t sz = sizeof(pinned);
		r = cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED,
					      &sz, &pinned);
		dbg("GPU timestamp buffers in pinned host memory: %s", cupti_err(r));
	}
	/* GPUSCOPE_CUPTI_FLUSH_PERIOD_MS=N wakes CUPTI's worker thread (GPU
	 * timestamps, buffer delivery) every N ms instead of by its own
	 * heuristics (0: the heuristics); for the overhead bench. Measured on
	 * the H200 (seventh session, in-process transformer step, 3 processes
	 * per cell): 1000 ms gave 1.034 against the heuristics' 1.081 in one
	 * call and 1.098 against 1.067 in the next, with 100 and 10000 ms at
	 * 1.064 and 1.071: no effect beyond the noise, so the default stays
	 * CUPTI's. */
	const char *fp = getenv("GPUSCOPE_CUPTI_FLUSH_PERIOD_MS");
	if (fp && *fp) {
		r = cuptiActivityFlushPeriod((uint32_t)strtoul(fp, NULL, 10));
		dbg("CUPTI worker flush period %s ms: %s", fp, cupti_err(r));
	}
	const char *want = getenv("GPUSCOPE_KINDS");
	if (want && !*want)
		want = NULL;
	g.kinds_want = want;
	g.kinds_none = want && strcmp(want, "none") == 0;
	g.api_mode = env_is("GPUSCOPE_API", "work")   ? API_WORK
		     : env_is("GPUSCOPE_API", "kind") ? API_KIND
		     : env_is("GPUSCOPE_API", "all")  ? API_ALL
						      : API_CALLS;
	int enabled = set_kinds(1, &r);
	if (g.kinds_none)
		status(0, 0, "GPUSCOPE_KINDS=none: CUPTI is loaded but records nothing");
	else if (!enabled) {
		status(1, r, "no cupti activity kind could be enabled: %s", cupti_err(r));
		return;
	}
	atomic_store(&g.capturing, 1);
	g.started = 1;
	/* the heartbeat's record is enabled on its own, whatever the kinds */
	void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	if (cuda && !g.kinds_none &&
	    cuptiActivityEnableDriverApi(CUPTI_DRIVER_TRACE_CBID_cuDriverGetVersion, 1) ==
		CUPTI_SUCCESS)
		*(void **)&g.drv_version = dlsym(cuda, "cuDriverGetVersion");
	if (env_is("GPUSCOPE_CAPTURE", "off") && !g.kinds_none)
		gpuscope_capture(0);
	pthread_atfork(NULL, NULL, on_fork_child);
	atexit(at_exit);
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_t th;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	atomic_store(&g.flush_alive, 1);
	if (pthread_create(&th, &attr, flush_thread, NULL) != 0) {
		atomic_store(&g.flush_alive, 0);
		status(0, 0, "no periodic flush thread; records are flushed at exit only");
	} else {
		catch_signals();
		register_quick_exit();
	}
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	dbg("recording to fd %d, %d activity kinds, flush every %u ms", g.fd, enabled, g.flush_ms);
}

EXPORT int InitializeInjection(void)
{
	static atomic_int once;
	if (atomic_exchange(&once, 1))
		return 1;
	start();
	return 1;
}
