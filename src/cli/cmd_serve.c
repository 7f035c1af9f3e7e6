/*
 * cmd_serve.c - `gpuscope serve`: parse options, run src/serve
 * (docs/serve.md).
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/signals.h"
#include "serve/serve.h"

struct serve_cli_opts {
	const char *listen, *replay, *root;
	double interval, counters, speed, retry;
	const char *labels, *compat, *hostname;
	int max_conn, timeout, progress, max_proc_series;
};

static const struct cli_option serve_options[] = {
    OPT_STRING(0, "listen", struct serve_cli_opts, listen, "ADDR:PORT",
	       "where to listen (default " SERVE_DEFAULT_LISTEN ", loopback only; [::1]:PORT\n"
	       "for IPv6; 0.0.0.0:PORT exposes it to the network)"),
    OPT_DOUBLE(0, "interval", struct serve_cli_opts, interval, "S", 0.1, 3600,
	       "seconds between readings of the GPUs (default 1)"),
    OPT_DOUBLE(0, "counters-interval", struct serve_cli_opts, counters, "S", 0, 3600,
	       "seconds between readings of the slow counters: energy, ECC, remapped rows,\n"
	       "PCIe replays, throttle time, XIDs (default 5; 0: every reading); on the\n"
	       "H200 they cost 9.5 ms of CPU per GPU, the rest of a reading 1.5 ms"),
    OPT_CHOICE(0, "labels", struct serve_cli_opts, labels, "gpuscope|dcgm",
	       "label names: gpuscope (default: model_name, hostname, driver_version,\n"
	       "promtool-lint clean) or dcgm (dcgm-exporter's modelName, Hostname,\n"
	       "DCGM_FI_DRIVER_VERSION; the metrics keep their gpuscope_ names)"),
    OPT_CHOICE(0, "compat", struct serve_cli_opts, compat, "dcgm",
	       "dcgm: dcgm-exporter's metric names, units and labels (DCGM_FI_DEV_GPU_UTIL\n"
	       "in %, DCGM_FI_DEV_FB_USED in MiB, DCGM_FI_PROF_SM_ACTIVE as a ratio, ...)\n"
	       "instead of gpuscope_* for every field DCGM has, so NVIDIA's dcgm-exporter\n"
	       "dashboards work unchanged; the others keep their gpuscope_ names"),
    OPT_DOUBLE(0, "retry", struct serve_cli_opts, retry, "S", 0.1, 300,
	       "without a GPU: seconds to the first retry (default 5), twice as long\n"
	       "after each failure, 300 at most"),
    OPT_STRING(0, "hostname", struct serve_cli_opts, hostname, "NAME",
	       "the hostname (Hostname) label's value (default: this host's name; in a\n"
	       "pod, pass the node's name: deploy/kubernetes/daemonset.yaml)"),
    OPT_STRING(0, "replay", struct serve_cli_opts, replay, "FILE",
	       "serve the rounds of a monitor log (at their own pace) instead of the GPUs"),
    OPT_DOUBLE(0, "replay-speed", struct serve_cli_opts, speed, "X", 0.01, 1000,
	       "with --replay: X times as fast as recorded (default 1)"),
    OPT_INT(0, "max-connections", struct serve_cli_opts, max_conn, "N", 1, 4096,
	    "connections served at once (default 256); more are refused"),
    OPT_INT(0, "timeout", struct serve_cli_opts, timeout, "S", 1, 600,
	    "seconds a request (or an idle connection) may take (default 10)"),
    OPT_INT(0, "max-process-series", struct serve_cli_opts, max_proc_series, "N", 1, 1000000,
	    "per-process series in one reading at most (default 1024; the first in GPU\n"
	    "order); the rest are counted in gpuscope_process_series_dropped_total"),
    OPT_STRING(0, "root", struct serve_cli_opts, root, "DIR",
	       "read the kernel's GPU files (sys, proc, dev) under DIR instead of /\n(tests: AMD "
	       "and Intel fixture trees)",
	       .flags = CLI_HIDDEN),
    OPT_PROGRESS(struct serve_cli_opts, progress),
    OPT_END(),
};

const struct cli_spec cli_spec_serve = {
    .name = "serve",
    .max_args = 0,
    .options = serve_options,
    .description = "A Prometheus exporter: GET /metrics (the text format; gpuscope_* metrics with\n"
		   "dcgm-exporter's labels, per-process series with pid, container and pod, and\n"
		   "the pod's namespace and name from the kubelet's log directories) and\n"
		   "GET /health. GET and HEAD only; no request body is read; connections, header\n"
		   "size and request time are bounded. Read-only. Without a GPU it keeps serving:\n"
		   "gpuscope_up 0 with the reason, /health 503, and it retries (--retry, doubling\n"
		   "to 5 min) until the driver sees one.\n",
    .footer = "exit status: 0 stopped by a signal, 1 error (cannot listen, bad log), 2 usage\n",
};

static void ready(void *arg, const char *url)
{
	(void)arg;
	fprintf(stderr, "gpuscope: serving %s\n", url);
}

static void note(void *arg, const char *msg)
{
	(void)arg;
	fprintf(stderr, "gpuscope: %s\n", msg);
}

int cmd_serve(int argc, char **argv)
{
	struct serve_cli_opts c = {.interval = 1,
				   .counters = 5,
				   .speed = 1,
				   .retry = 5,
				   .max_conn = 256,
				   .timeout = 10,
				   .max_proc_series = SERVE_DEFAULT_MAX_PROC_SERIES,
				   .progress = -1};
	int n = cli_parse(&cli_spec_serve, &c, argc, argv);
	if (n < 0)
		return cli_exit(n);
	struct serve_opts o;
	memset(&o, 0, sizeof(o));
	o.listen = c.listen;
	o.interval_s = c.interval;
	o.counters_s = c.counters;
	o.dcgm_labels = c.labels && strcmp(c.labels, "dcgm") == 0;
	o.compat_dcgm = c.compat != NULL;
	o.retry_s = c.retry;
	o.hostname = c.hostname;
	o.replay = c.replay;
	o.replay_speed = c.speed;
	o.root = c.root;
	o.max_conn = (unsigned)c.max_conn;
	o.timeout_s = (unsigned)c.timeout;
	o.max_proc_series = (unsigned)c.max_proc_series;
	o.stop = cli_stop_on_signals();
	o.on_ready = ready;
	o.on_note = note;
	char err[GS_ERR_LEN];
	if (serve_run(&o, err) < 0)
		return error_print("%s", err);
	return GS_EXIT_OK;
}
