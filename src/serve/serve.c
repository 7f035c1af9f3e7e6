/*
 * serve.c - gpuscope serve (serve.h): libmicrohttpd's internal thread
 * answers; the producer (the GPU sampler's thread, or the replay thread)
 * renders /metrics once per round into a reference-counted page; a scrape
 * takes a reference and sends it without a copy, so memory is the pages of
 * the rounds still being read, never connections x page size. A watchdog
 * thread shuts down connections past their deadline (libmicrohttpd's own
 * timeout is an idle timeout, which a client that trickles one byte at a
 * time never trips), and a connection over --max-connections takes the slot
 * of the oldest one that has no request in progress (a slowloris cannot
 * keep scrapes out by re-opening its connections as they are cut).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "gpu/sampler.h"
#include "monitor/log.h"
#include "monitor/procinfo.h"
#include "serve/prom.h"
#include "serve/serve.h"
#include "util/error.h"

#define SERVE_HEADER_LIMIT (16 * 1024)
/* connections libmicrohttpd accepts beyond --max-connections: the room a
 * newcomer needs while it takes an idle connection's slot */
#define SERVE_SPARE_CONN 16

struct conn_slot {
	int fd; /* -1: free */
	double deadline;
	double since; /* accepted, or its last request answered */
	int shut;
	int busy; /* a request is being answered */
};

/* One round's /metrics text, shared by the scrapes sending it. */
struct page {
	int refs; /* atomic */
	size_t len;
	char *text;
};

static void page_unref(void *arg)
{
	struct page *p = arg;
	if (p && __atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		free(p->text);
		free(p);
	}
}

struct server {
	const struct serve_opts *o;
	char host[256];
	struct proc_cache pcache; /* the processes' facts, looked up once (live) */
	uint64_t proc_dropped;	  /* per-process series left out (--max-process-series) */
	unsigned n_dev;
	struct gpu_static st[GPU_MAX_DEVICES];
	struct mon_procs *procs; /* n_dev, the producer's */
	struct gpu_migs *migs;	 /* n_dev, the producer's */
	pthread_mutex_t lock;	 /* guards page, published, slots */
	struct page *page;	 /* the latest round's; NULL before the first */
	double published;	 /* monotonic seconds of the last round; 0: none */
	uint64_t rounds;
	struct conn_slot *slots;
	unsigned n_slots;
	int replay_done;
	char down[GS_ERR_LEN]; /* why no GPU is read; "" while they are */
	volatile int quit;
};

static double mono_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* Renders a round and makes it the one scrapes get. */
static void publish(struct server *sv, int64_t ts, const struct gpu_sample *s,
		    const struct mon_procs *procs, const struct gpu_migs *migs)
{
	struct prom_round r = {sv->host,
			       sv->n_dev,
			       sv->st,
			       s,
			       procs,
			       ts,
			       migs,
			       sv->o->dcgm_labels,
			       sv->o->compat_dcgm,
			       sv->o->max_proc_series,
			       &sv->proc_dropped};
	struct page *p = malloc(sizeof(*p)), *old;
	if (!p || prom_render(&p->text, &p->len, &r) < 0) {
		free(p);
		return;
	}
	p->refs = 1; /* the server's */
	pthread_mutex_lock(&sv->lock);
	old = sv->page;
	sv->page = p;
	sv->published = mono_s();
	sv->rounds++;
	pthread_mutex_unlock(&sv->lock);
	page_unref(old);
}

/* live: the sampler's subscriber (on its thread) */
static void on_tick(void *arg, const struct gpu_tick *t)
{
	struct server *sv = arg;
	for (unsigned d = 0; d < sv->n_dev; d++) {
		memset(&sv->procs[d].g, 0, sizeof(sv->procs[d].g));
		if (t->procs)
			sv->procs[d].g = t->procs[d];
	}
	proc_cache_annotate(&sv->pcache, sv->procs, sv->n_dev);
	if (t->migs)
		memcpy(sv->migs, t->migs, sv->n_dev * sizeof(*sv->migs));
	publish(sv, t->real_ns, t->s, sv->procs, t->migs ? sv->migs : NULL);
}

/* ---- HTTP ---- */

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *type,
			     const char *body, size_t len, int copy)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(
	    len, (void *)body, copy ? MHD_RESPMEM_MUST_COPY : MHD_RESPMEM_PERSISTENT);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	enum MHD_Result ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

/* The page, without a copy: the response holds a reference until sent. */
static enum MHD_Result reply_page(struct MHD_Connection *c, struct page *p)
{
	struct MHD_Response *r =
	    MHD_create_response_from_buffer_with_free_callback_cls(p->len, p->text, page_unref, p);
	if (!r) {
		page_unref(p);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				"text/plain; version=0.0.4; charset=utf-8");
	enum MHD_Result ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

/* Request headers RFC 9112 rejects: Content-Length given twice (a body
 * smuggled past the first), HTTP/1.1 without Host. */
struct header_count {
	unsigned content_length;
};

static enum MHD_Result count_header(void *cls, enum MHD_ValueKind kind, const char *key,
				    const char *value)
{
	struct header_count *h = cls;
	(void)kind;
	(void)value;
	if (strcasecmp(key, "Content-Length") == 0)
		h->content_length++;
	return MHD_YES;
}

#define TEXT "text/plain; charset=utf-8"
#define REPLY(c, st, s) reply(c, st, TEXT, s, strlen(s), 0)

static enum MHD_Result health(struct server *sv, struct MHD_Connection *c)
{
	char body[GS_ERR_LEN + 64];
	pthread_mutex_lock(&sv->lock);
	double age = sv->published ? mono_s() - sv->published : -1;
	int replay_done = sv->replay_done;
	if (sv->down[0])
		snprintf(body, sizeof(body), "no GPU: %s\n", sv->down);
	else
		body[0] = '\0';
	pthread_mutex_unlock(&sv->lock);
	/* stale: three periods without a round (a hung driver call) */
	double limit = 3 * sv->o->interval_s + 2;
	if (body[0])
		return reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, TEXT, body, strlen(body), 1);
	if (age < 0)
		return REPLY(c, MHD_HTTP_SERVICE_UNAVAILABLE, "no reading yet\n");
	if (!replay_done && age > limit) {
		snprintf(body, sizeof(body), "stale: the last reading is %.0f s old\n", age);
		return reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, TEXT, body, strlen(body), 1);
	}
	snprintf(body, sizeof(body), "ok%s\n",
		 replay_done ? " (replay finished; last round held)" : "");
	return reply(c, MHD_HTTP_OK, TEXT, body, strlen(body), 1);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload_data,
			      size_t *upload_data_size, void **con_cls)
{
	struct server *sv = cls;
	(void)upload_data;
	(void)con_cls;
	const union MHD_ConnectionInfo *ci =
	    MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	if (ci && ci->socket_context) {
		pthread_mutex_lock(&sv->lock);
		((struct conn_slot *)ci->socket_context)->busy = 1;
		pthread_mutex_unlock(&sv->lock);
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return REPLY(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n");
	struct header_count hc = {0};
	MHD_get_connection_values(c, MHD_HEADER_KIND, count_header, &hc);
	const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
	if (*upload_data_size || hc.content_length > 1 || (cl && strcmp(cl, "0") != 0) ||
	    MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Transfer-Encoding"))
		return REPLY(c, MHD_HTTP_BAD_REQUEST, "a GET has no body\n");
	if (strcmp(version, MHD_HTTP_VERSION_1_1) == 0 &&
	    !MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST))
		return REPLY(c, MHD_HTTP_BAD_REQUEST, "an HTTP/1.1 request needs a Host header\n");
	if (strcmp(url, "/metrics") == 0) {
		pthread_mutex_lock(&sv->lock);
		struct page *p = sv->page;
		if (p)
			__atomic_add_fetch(&p->refs, 1, __ATOMIC_ACQ_REL);
		pthread_mutex_unlock(&sv->lock);
		return p ? reply_page(c, p)
			 : REPLY(c, MHD_HTTP_SERVICE_UNAVAILABLE, "no reading yet\n");
	}
	if (strcmp(url, "/health") == 0)
		return health(sv, c);
	if (strcmp(url, "/") == 0)
		return REPLY(c, MHD_HTTP_OK,
			     "gpuscope serve: GET /metrics (Prometheus text), GET /health\n");
	return REPLY(c, MHD_HTTP_NOT_FOUND, "not found: GET /metrics or /health\n");
}

/* ---- per-connection deadlines ---- */

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
			  enum MHD_ConnectionNotificationCode code)
{
	struct server *sv = cls;
	pthread_mutex_lock(&sv->lock);
	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci =
		    MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		double now = mono_s();
		for (unsigned i = 0; ci && i < sv->n_slots; i++)
			if (sv->slots[i].fd < 0) {
				sv->slots[i].fd = ci->connect_fd;
				sv->slots[i].deadline = now + sv->o->timeout_s;
				sv->slots[i].since = now;
				sv->slots[i].shut = 0;
				sv->slots[i].busy = 0;
				*socket_context = &sv->slots[i];
				break;
			}
		/* over the limit: the oldest connection with no request in progress
		 * (trickling headers, or idle between requests) gives its slot up */
		unsigned open = 0;
		struct conn_slot *oldest = NULL;
		for (unsigned i = 0; i < sv->n_slots; i++) {
			struct conn_slot *sl = &sv->slots[i];
			if (sl->fd < 0 || sl->shut)
				continue;
			open++;
			if (!sl->busy && sl != *socket_context &&
			    (!oldest || sl->since < oldest->since))
				oldest = sl;
		}
		if (open > sv->o->max_conn && oldest) {
			shutdown(oldest->fd, SHUT_RDWR);
			oldest->shut = 1;
		}
	} else if (*socket_context) {
		((struct conn_slot *)*socket_context)->fd = -1;
		*socket_context = NULL;
	}
	pthread_mutex_unlock(&sv->lock);
}

/* A request answered: the connection gets a new deadline for the next one. */
static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct server *sv = cls;
	const union MHD_ConnectionInfo *ci =
	    MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	(void)con_cls;
	(void)toe;
	pthread_mutex_lock(&sv->lock);
	if (ci && ci->socket_context) {
		struct conn_slot *sl = ci->socket_context;
		sl->since = mono_s();
		sl->deadline = sl->since + sv->o->timeout_s;
		sl->busy = 0;
	}
	pthread_mutex_unlock(&sv->lock);
}

static void *watchdog(void *arg)
{
	struct server *sv = arg;
	pthread_setname_np(pthread_self(), "gs-watchdog");
	while (!sv->quit) {
		struct timespec t = {0, 250000000L};
		nanosleep(&t, NULL);
		double now = mono_s();
		pthread_mutex_lock(&sv->lock);
		for (unsigned i = 0; i < sv->n_slots; i++)
			if (sv->slots[i].fd >= 0 && !sv->slots[i].shut &&
			    now > sv->slots[i].deadline) {
				/* the server's thread sees the end and closes it */
				shutdown(sv->slots[i].fd, SHUT_RDWR);
				sv->slots[i].shut = 1;
			}
		pthread_mutex_unlock(&sv->lock);
	}
	return NULL;
}

int serve_parse_listen(const char *s, struct sockaddr_storage *ss, unsigned *len, char *err)
{
	char host[128];
	const char *colon;
	memset(ss, 0, sizeof(*ss));
	if (s[0] == '[') {
		const char *end = strchr(s, ']');
		if (!end || end[1] != ':' || (size_t)(end - s - 1) >= sizeof(host))
			return error_set(err, "bad --listen '%s' (want [ADDR]:PORT)", s);
		memcpy(host, s + 1, (size_t)(end - s - 1));
		host[end - s - 1] = 0;
		colon = end + 1;
	} else {
		colon = strrchr(s, ':');
		if (!colon || (size_t)(colon - s) >= sizeof(host))
			return error_set(err, "bad --listen '%s' (want ADDR:PORT)", s);
		memcpy(host, s, (size_t)(colon - s));
		host[colon - s] = 0;
	}
	char *endp;
	errno = 0;
	long port = strtol(colon + 1, &endp, 10);
	/* digits only: strtol would take " 80" and "+80" */
	if (!colon[1] || strspn(colon + 1, "0123456789") != strlen(colon + 1) || *endp || errno ||
	    port < 0 || port > 65535)
		return error_set(err, "bad port in --listen '%s' (0-65535)", s);
	struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
	if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		v4->sin_port = htons((uint16_t)port);
		*len = sizeof(*v4);
	} else if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*v6);
	} else {
		return error_set(
		    err, "bad address in --listen '%s' (a numeric IPv4 or IPv6 address)", s);
	}
	return 0;
}

/* ---- producers ---- */

struct replay_ctx {
	struct server *sv;
	struct monlog *log;
};

static void sleep_s(double s, volatile int *quit)
{
	while (s > 0 && !*quit) {
		double step = s < 0.2 ? s : 0.2;
		struct timespec t = {(time_t)step, (long)((step - (time_t)step) * 1e9)};
		nanosleep(&t, NULL);
		s -= step;
	}
}

static void *replay_thread(void *arg)
{
	struct replay_ctx *rc = arg;
	struct server *sv = rc->sv;
	double speed = sv->o->replay_speed > 0 ? sv->o->replay_speed : 1;
	for (size_t r = 0; r < rc->log->n_rounds && !sv->quit; r++) {
		for (unsigned d = 0; d < sv->n_dev; d++) {
			monlog_round_procs(rc->log, r, d, &sv->procs[d]);
			monlog_round_migs(rc->log, r, d, &sv->migs[d]);
		}
		publish(sv, rc->log->rounds[r].ts, rc->log->rounds[r].s, sv->procs, sv->migs);
		/* a gap in the log (a stopped monitor, a hostile timestamp): 10 s at most */
		if (r + 1 < rc->log->n_rounds) {
			double gap =
			    ((double)rc->log->rounds[r + 1].ts - (double)rc->log->rounds[r].ts) /
			    1e9 / speed;
			sleep_s(gap < 10 ? gap : 10, &sv->quit);
		}
	}
	pthread_mutex_lock(&sv->lock);
	sv->replay_done = 1;
	pthread_mutex_unlock(&sv->lock);
	return NULL;
}

static struct MHD_Daemon *listen_on(struct server *sv, char *err, char *url, size_t url_len)
{
	struct sockaddr_storage ss;
	unsigned len;
	const struct serve_opts *o = sv->o;
	if (serve_parse_listen(o->listen ? o->listen : SERVE_DEFAULT_LISTEN, &ss, &len, err) < 0)
		return NULL;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL;
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	struct MHD_Daemon *d = MHD_start_daemon(
	    flags, 0, NULL, NULL, handle, sv, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned)o->max_conn + SERVE_SPARE_CONN,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)o->timeout_s,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)SERVE_HEADER_LIMIT,
	    MHD_OPTION_NOTIFY_CONNECTION, on_connection, sv, MHD_OPTION_NOTIFY_COMPLETED,
	    on_completed, sv, MHD_OPTION_LISTEN_BACKLOG_SIZE, 128u, MHD_OPTION_END);
	if (!d) {
		error_set(err, "cannot listen on %s: %s",
			  o->listen ? o->listen : SERVE_DEFAULT_LISTEN,
			  errno ? strerror(errno) : "libmicrohttpd refused");
		return NULL;
	}
	const union MHD_DaemonInfo *di = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	char host[INET6_ADDRSTRLEN] = "?";
	if (ss.ss_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, host, sizeof(host));
	else
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, host, sizeof(host));
	snprintf(url, url_len,
		 ss.ss_family == AF_INET6 ? "http://[%s]:%u/metrics" : "http://%s:%u/metrics", host,
		 di ? di->port : 0);
	return d;
}

struct live {
	struct server *sv;
	struct gpu_sys *sys, own;
	struct gpu_sampler smp;
	int started;
};

/* Opens the GPUs and starts the sampler; on failure whatever it opened is
 * closed again, so that it can be tried again. */
static int init_live(struct live *lv, char *err)
{
	struct server *sv = lv->sv;
	const struct serve_opts *o = sv->o;
	struct gpu_sampler_opts so = {1 / o->interval_s, GPU_WANT_ALL, 1, 1, 1, 1, o->counters_s};
	lv->sys = o->sys;
	if (!lv->sys) {
		if (gpu_sys_open_root(&lv->own, o->root, err) < 0)
			return -1;
		lv->sys = &lv->own;
	}
	unsigned n = gpu_count(lv->sys);
	if (n == 0) {
		error_set(err, "the driver sees no GPU");
		goto fail;
	}
	sv->n_dev = n;
	for (unsigned d = 0; d < n; d++)
		gpu_static_info(lv->sys, d, &sv->st[d]);
	sv->procs = calloc(n, sizeof(*sv->procs));
	sv->migs = calloc(n, sizeof(*sv->migs));
	if (!sv->procs || !sv->migs || gpu_sampler_init(&lv->smp, n, 8, err) < 0 ||
	    gpu_sampler_subscribe(&lv->smp, on_tick, sv) < 0) {
		error_set(err, "out of memory");
		goto fail;
	}
	if (gpu_sampler_start(&lv->smp, lv->sys, &so, err) < 0)
		goto fail;
	lv->started = 1;
	return 0;
fail:
	gpu_sampler_release(&lv->smp);
	memset(&lv->smp, 0, sizeof(lv->smp));
	free(sv->procs);
	free(sv->migs);
	sv->procs = NULL;
	sv->migs = NULL;
	sv->n_dev = 0;
	if (lv->sys == &lv->own)
		gpu_sys_close(&lv->own);
	lv->sys = NULL;
	return -1;
}

/* No GPU: gpuscope_up 0 and the reason are what scrapes get. */
static void set_down(struct server *sv, const char *why)
{
	char *text = NULL;
	size_t len = 0;
	prom_render_down(&text, &len, sv->host, why);
	struct page *p = text ? malloc(sizeof(*p)) : NULL, *old = NULL;
	if (p) {
		p->refs = 1;
		p->text = text;
		p->len = len;
	} else {
		free(text);
	}
	pthread_mutex_lock(&sv->lock);
	snprintf(sv->down, sizeof(sv->down), "%s", why);
	if (p) {
		old = sv->page;
		sv->page = p;
		sv->published = mono_s();
	}
	pthread_mutex_unlock(&sv->lock);
	page_unref(old);
}

/* Says one sentence through o->on_note, when there is one. */
static void note(const struct serve_opts *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void note(const struct serve_opts *o, const char *fmt, ...)
{
	char msg[2 * GS_ERR_LEN];
	va_list ap;
	if (!o->on_note)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	o->on_note(o->ready_arg, msg);
}

/* Tries the GPUs again after o->retry_s (5 s), then twice as long each time,
 * 300 s at most: a driver installed or loaded later is picked up. */
static void *retry_thread(void *arg)
{
	struct live *lv = arg;
	struct server *sv = lv->sv;
	double delay = sv->o->retry_s > 0 ? sv->o->retry_s : 5;
	pthread_setname_np(pthread_self(), "gs-retry");
	while (!sv->quit) {
		char err[GS_ERR_LEN];
		sleep_s(delay, &sv->quit);
		if (sv->quit)
			break;
		if (init_live(lv, err) == 0) {
			pthread_mutex_lock(&sv->lock);
			sv->down[0] = '\0';
			pthread_mutex_unlock(&sv->lock);
			note(sv->o, "%u GPU(s) found; serving their readings", sv->n_dev);
			break;
		}
		set_down(sv, err);
		delay = delay * 2 < 300 ? delay * 2 : 300;
	}
	return NULL;
}

int serve_run(const struct serve_opts *o, char *err)
{
	struct server *sv = calloc(1, sizeof(*sv));
	struct live *lv = calloc(1, sizeof(*lv));
	struct monlog *log = NULL;
	struct replay_ctx rc;
	pthread_t wd, rt, retry;
	int have_wd = 0, have_rt = 0, have_retry = 0, ret = -1;
	char url[160];

	if (!sv || !lv) {
		free(sv);
		free(lv);
		return error_set(err, "out of memory");
	}
	lv->sv = sv;
	sv->o = o;
	pthread_mutex_init(&sv->lock, NULL);
	proc_cache_init(&sv->pcache, o->proc_root, o->root);
	if (gethostname(sv->host, sizeof(sv->host) - 1) < 0)
		snprintf(sv->host, sizeof(sv->host), "?");
	if (o->hostname && o->hostname[0])
		snprintf(sv->host, sizeof(sv->host), "%s", o->hostname);
	sv->n_slots = o->max_conn + SERVE_SPARE_CONN + 8;
	sv->slots = calloc(sv->n_slots, sizeof(*sv->slots));
	if (!sv->slots) {
		error_set(err, "out of memory");
		goto out;
	}
	for (unsigned i = 0; i < sv->n_slots; i++)
		sv->slots[i].fd = -1;
	if (o->replay) {
		char text[GS_ERR_LEN];
		log = calloc(1, sizeof(*log));
		if (!log || monlog_read(log, o->replay, err) < 0)
			goto out;
		if (monlog_note(log, text, sizeof(text))[0])
			note(o, "%s: %s", o->replay, text);
		sv->n_dev = log->n_dev;
		memcpy(sv->st, log->st, sizeof(sv->st));
		if (log->host[0] && !(o->hostname && o->hostname[0]))
			snprintf(sv->host, sizeof(sv->host), "%s", log->host);
		sv->procs = calloc(sv->n_dev, sizeof(*sv->procs));
		sv->migs = calloc(sv->n_dev, sizeof(*sv->migs));
		if (!sv->procs || !sv->migs) {
			error_set(err, "out of memory");
			goto out;
		}
	} else if (init_live(lv, err) < 0) {
		/* a DaemonSet's pod on a node without a driver stays up and says why */
		note(o, "no GPU: %s; serving gpuscope_up 0 and retrying", err);
		set_down(sv, err);
	}
	struct MHD_Daemon *d = listen_on(sv, err, url, sizeof(url));
	if (!d)
		goto out;
	if (pthread_create(&wd, NULL, watchdog, sv) == 0)
		have_wd = 1;
	if (log) {
		rc.sv = sv;
		rc.log = log;
		if (pthread_create(&rt, NULL, replay_thread, &rc) == 0)
			have_rt = 1;
	} else if (!lv->started && pthread_create(&retry, NULL, retry_thread, lv) == 0) {
		have_retry = 1;
	}
	if (o->on_ready)
		o->on_ready(o->ready_arg, url);
	while (!(o->stop && *o->stop)) {
		struct timespec t = {0, 50000000L};
		nanosleep(&t, NULL);
	}
	sv->quit = 1;
	MHD_stop_daemon(d);
	ret = 0;
out:
	sv->quit = 1;
	if (have_rt)
		pthread_join(rt, NULL);
	if (have_wd)
		pthread_join(wd, NULL);
	if (have_retry)
		pthread_join(retry, NULL);
	gpu_sampler_release(&lv->smp);
	if (lv->sys == &lv->own)
		gpu_sys_close(&lv->own);
	free(lv);
	if (log) {
		monlog_release(log);
		free(log);
	}
	proc_cache_release(&sv->pcache);
	free(sv->procs);
	free(sv->migs);
	free(sv->slots);
	page_unref(sv->page);
	pthread_mutex_destroy(&sv->lock);
	free(sv);
	return ret;
}
