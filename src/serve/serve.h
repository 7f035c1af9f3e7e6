/*
 * serve.h - gpuscope serve: a Prometheus exporter. GET /metrics (prom.h),
 * GET /health, GET / (a short index); GET and HEAD only. Readings come
 * from the GPU sampler's thread (one round per interval; each scrape
 * copies the text rendered once per round) or from a monitor log played
 * at its own pace (--replay). Without a GPU: gpuscope_up 0 and the reason
 * (prom.h), /health 503, until a retry finds one.
 *
 * Bounds (docs/serve.md): loopback unless --listen says otherwise; at most
 * max_conn connections (more are refused by the server, the rest keep
 * being served); a request's headers at most 16 KiB; a connection idle or
 * slow for timeout_s seconds is closed, including one that trickles its
 * headers (slowloris); no request body is read.
 */
#ifndef GPUSCOPE_SERVE_H
#define GPUSCOPE_SERVE_H

#include "gpu/gpu.h"

#define SERVE_DEFAULT_LISTEN "127.0.0.1:9401"
/* per-process series in one reading: 8 GPUs each shared by 42 processes
 * with their 3 series (docs/serve.md) */
#define SERVE_DEFAULT_MAX_PROC_SERIES 1024

struct serve_opts {
	const char *listen;    /* "ADDR:PORT" or "[V6ADDR]:PORT"; PORT 0: any free port */
	double interval_s;     /* live sampling period */
	const char *replay;    /* serve a monitor log instead of the GPUs */
	double replay_speed;   /* X times as fast as recorded */
	unsigned max_conn;     /* connections at once */
	unsigned timeout_s;    /* per request (and idle keep-alive) */
	struct gpu_sys *sys;   /* opened GPUs (tests); NULL: open them */
	const char *proc_root; /* NULL: /proc (or ROOT/proc with root); the kubelet's
				* log directories (pod names) are under root */
	volatile int *stop;    /* set by a signal handler */
	void (*on_ready)(void *arg, const char *url); /* called once listening */
	void *ready_arg;
	/* what it has to say as it goes (a replayed log's note; no GPU, and
	 * retrying; the GPUs found later), one sentence, with ready_arg;
	 * NULL: nothing (serve prints nothing itself) */
	void (*on_note)(void *arg, const char *msg);
	double counters_s;	  /* energy and health counters at most this often; 0: each round */
	int dcgm_labels;	  /* dcgm-exporter's exact label names (prom.h) */
	int compat_dcgm;	  /* dcgm-exporter's metric names and units (prom.h) */
	double retry_s;		  /* no GPU: first retry after this, doubling to 300 s; 0: 5 s */
	const char *hostname;	  /* the hostname label; NULL: gethostname (or the log's) */
	const char *root;	  /* kernel files under ROOT (tests); NULL: / */
	unsigned max_proc_series; /* per-process series in one reading at most; 0: no limit */
};

/* Serves until *stop. 0, or -1 with err (cannot listen, bad log). Live
 * without a GPU (no driver, no device) it keeps serving gpuscope_up 0 with
 * the reason, /health 503, and retries with a growing delay until one can
 * be read. */
int serve_run(const struct serve_opts *o, char *err);

/* Parses "ADDR:PORT" / "[V6]:PORT" into a socket address; -1 with err. */
struct sockaddr_storage;
int serve_parse_listen(const char *s, struct sockaddr_storage *ss, unsigned *len, char *err);

#endif
