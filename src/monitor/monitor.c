/*
 * monitor.c - gpuscope monitor's loop (monitor.h): live rounds from the
 * GPU sampler, or rounds read back from a log, drawn by one of the views.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "monitor/monitor.h"
#include "monitor/procinfo.h"
#include "util/error.h"
#include "util/version.h"

/* history the ncurses view can draw (one column per round) */
#define MON_RING 512

struct mon_state {
	const struct monitor_opts *o;
	FILE *out;
	enum mon_format fmt;
	int tui;
	struct monlog_writer log;
	int logging;
	struct gpu_sampler hist;
	struct gpu_static st[GPU_MAX_DEVICES];
	unsigned n_dev, first, count;
	struct mon_procs *procs; /* n_dev */
	struct gpu_migs *migs;	 /* n_dev: MIG instances (valid 0: none) */
	char host[256];
	struct proc_cache pcache; /* each process's facts, looked up once */
	char err[GS_ERR_LEN];
	int failed;
};

static int64_t real_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int emit_line(struct mon_state *m, char *line, size_t len, int sync)
{
	int rc = 0;
	if (!line)
		return error_set(m->err, "out of memory");
	if (m->logging && monlog_append(&m->log, line, len, sync, m->err) < 0)
		rc = -1;
	if (m->fmt == MON_JSONL && fwrite(line, 1, len, m->out) != len)
		rc = error_set(m->err, "cannot write the output: %s", strerror(errno));
	free(line);
	return rc;
}

/* The header and static lines, to the log and to a jsonl stream. */
static int emit_start(struct mon_state *m, int64_t start_ns, double interval_s)
{
	char *line;
	size_t len;
	if (!m->logging && m->fmt != MON_JSONL)
		return 0;
	if (monlog_fmt_header(&line, &len, m->o->version ? m->o->version : GPUSCOPE_VERSION,
			      m->host, start_ns, interval_s, m->count) < 0 ||
	    emit_line(m, line, len, 0) < 0)
		return -1;
	for (unsigned d = m->first; d < m->first + m->count; d++)
		if (monlog_fmt_gpu(&line, &len, d, &m->st[d]) < 0 || emit_line(m, line, len, 0) < 0)
			return -1;
	return 0;
}

/* One round: log and jsonl lines, then the view. 1: q pressed. */
static int show(struct mon_state *m, int64_t ts, const struct gpu_sample *s, int wait_ms)
{
	struct mon_frame fr = {m->n_dev, m->first, m->count, m->st,   ts,
			       s,	 m->procs, &m->hist, m->host, m->o->replay != NULL,
			       m->migs};
	if (m->logging || m->fmt == MON_JSONL)
		for (unsigned d = m->first; d < m->first + m->count; d++) {
			char *line;
			size_t len;
			monlog_fmt_sample(&line, &len, ts, d, &s[d], &m->procs[d], &m->migs[d]);
			/* synced after the round's last line: readable after a crash */
			if (emit_line(m, line, len, d + 1 == m->first + m->count) < 0) {
				m->failed = 1;
				return 1;
			}
		}
	if (m->tui) {
		tui_draw(&fr);
		return wait_ms > 0 ? tui_wait(wait_ms) : 0;
	}
	if (m->fmt == MON_TABLE)
		mon_table_round(m->out, &fr);
	else if (m->fmt == MON_CSV)
		mon_csv_round(m->out, &fr);
	if (ferror(m->out)) {
		m->failed = 1;
		error_set(m->err, "cannot write the output");
		return 1;
	}
	if (wait_ms > 0) {
		struct timespec t = {wait_ms / 1000, (wait_ms % 1000) * 1000000L};
		while (nanosleep(&t, &t) < 0 && errno == EINTR && !(m->o->stop && *m->o->stop))
			;
	}
	return 0;
}

static int start_view(struct mon_state *m)
{
	m->fmt = m->o->format;
	if (m->fmt == MON_AUTO)
		m->fmt = isatty(fileno(m->out)) && m->out == stdout ? MON_TUI : MON_TABLE;
	if (m->fmt == MON_TUI) {
		if (tui_open() < 0)
			return error_set(m->err,
					 "the ncurses view needs a terminal; use --format table");
		m->tui = 1;
	}
	struct mon_frame fr = {m->n_dev, m->first, m->count, m->st, 0,	 NULL,
			       NULL,	 NULL,	   m->host,  0,	    NULL};
	if (m->fmt == MON_TABLE)
		mon_table_header(m->out, &fr);
	else if (m->fmt == MON_CSV)
		mon_csv_header(m->out, &fr);
	return 0;
}

static int pick_gpus(struct mon_state *m, unsigned n_dev)
{
	m->n_dev = n_dev;
	if (m->o->gpu >= 0 && (unsigned)m->o->gpu >= n_dev)
		return error_set(m->err, "no gpu %d (%u gpu(s))", m->o->gpu, n_dev);
	m->first = m->o->gpu >= 0 ? (unsigned)m->o->gpu : 0;
	m->count = m->o->gpu >= 0 ? 1 : n_dev;
	m->procs = calloc(n_dev, sizeof(*m->procs));
	m->migs = calloc(n_dev, sizeof(*m->migs));
	if (!m->procs || !m->migs || gpu_sampler_init(&m->hist, n_dev, MON_RING, m->err) < 0)
		return error_set(m->err, "out of memory");
	return 0;
}

static long long mono_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static double mono_ms_f(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int run_live(struct mon_state *m)
{
	const struct monitor_opts *o = m->o;
	struct gpu_sys own, *sys = o->sys;
	struct gpu_sampler_opts so = {0, GPU_WANT_ALL, 1, 1, 1, 0, 0};
	int rc = -1;
	/* --progress: the start's phases (the H200 script's first-row figure) */
	double tm[4] = {mono_ms_f(), 0, 0, 0};
	if (!sys) {
		if (gpu_sys_open_root(&own, o->root, m->err) < 0)
			return -1;
		sys = &own;
	}
	if (gpu_count(sys) == 0) {
		error_set(m->err, "no gpu visible");
		goto out;
	}
	if (pick_gpus(m, gpu_count(sys)) < 0)
		goto out;
	tm[1] = mono_ms_f();
	for (unsigned d = 0; d < m->n_dev; d++)
		gpu_static_info(sys, d, &m->st[d]);
	tm[2] = mono_ms_f();
	if (o->log && monlog_open(&m->log, o->log, m->err) < 0)
		goto out;
	m->logging = o->log != NULL;
	if (start_view(m) < 0 || emit_start(m, real_now(), o->interval_s) < 0)
		goto out;
	/* no GPM prime before the first round: its GPM sample is the baseline of
	 * the second round's window, and the first row shows GPM unknown
	 * (a prime + 50 ms wait put the first row 206 ms after start on the H200) */
	long long period = (long long)(o->interval_s * 1000), t0 = mono_ms();
	for (long k = 1; !(o->stop && *o->stop); k++) {
		/* a round reads every device: the history and hints need them all */
		struct gpu_sample cur[GPU_MAX_DEVICES];
		struct gpu_procs *gp = calloc(m->n_dev, sizeof(*gp));
		if (!gp)
			break;
		for (unsigned d = 0; d < m->n_dev; d++) {
			if (d < m->first || d >= m->first + m->count) {
				memset(&cur[d], 0, sizeof(cur[d]));
				continue;
			}
			gpu_sample(sys, d, so.want, &cur[d]);
			cur[d].real_ns = real_now();
			gpu_health(sys, d, &cur[d]);
			gpu_processes(sys, d, &gp[d]);
			if (gp[d].valid)
				gpu_sample_set(&cur[d], GPU_M_PROCESSES, gp[d].total);
			gpu_static_to_sample(&m->st[d], &cur[d]);
			/* MIG instances where the GPU is partitioned (the table shows them) */
			if ((m->st[d].valid & GPU_S_MIG) && m->st[d].mig_mode)
				gpu_mig(sys, d, &m->migs[d]);
			m->procs[d].g = gp[d];
		}
		free(gp);
		proc_cache_annotate(&m->pcache, m->procs, m->n_dev);
		int64_t ts = real_now();
		if (k == 1 && o->timing) {
			tm[3] = mono_ms_f();
			fprintf(stderr,
				"gpuscope: monitor start: gpu open %.1f ms, static info %.1f ms, "
				"first round %.1f ms\n",
				tm[1] - tm[0], tm[2] - tm[1], tm[3] - tm[2]);
		}
		gpu_sampler_push(&m->hist, ts, cur, NULL);
		int last = o->count > 0 && k >= o->count;
		long long wait = last ? 0 : t0 + k * period - mono_ms();
		if (show(m, ts, cur, wait > 0 ? (int)wait : (last ? 0 : 1)) || last)
			break;
	}
	rc = m->failed ? -1 : 0;
out:
	if (!o->sys)
		gpu_sys_close(&own);
	return rc;
}

/* The wait between two logged rounds, paced by speed; a gap in the log (a
 * stopped monitor, a hostile timestamp) is shown as 2 s at most. */
static int replay_gap_ms(int64_t a, int64_t b, double speed)
{
	double ms = ((double)b - (double)a) / 1e6 / speed;
	return ms > 0 ? (int)(ms < 2000 ? ms : 2000) : 0;
}

static int run_replay(struct mon_state *m)
{
	const struct monitor_opts *o = m->o;
	struct monlog *l = calloc(1, sizeof(*l));
	char note[GS_ERR_LEN];
	int rc = -1;
	if (!l)
		return error_set(m->err, "out of memory");
	if (o->log) {
		error_set(m->err, "--log and --replay do not go together");
		goto out;
	}
	if (monlog_read(l, o->replay, m->err) < 0)
		goto out;
	if (monlog_note(l, note, sizeof(note))[0])
		fprintf(stderr, "gpuscope: %s: %s\n", o->replay, note);
	snprintf(m->host, sizeof(m->host), "%s", l->host);
	if (pick_gpus(m, l->n_dev) < 0)
		goto out;
	memcpy(m->st, l->st, sizeof(m->st));
	if (start_view(m) < 0 || emit_start(m, l->start_ns, l->interval_s) < 0)
		goto out;
	double speed = o->replay_speed > 0 ? o->replay_speed : 1;
	size_t n = l->n_rounds;
	if (o->count > 0 && (size_t)o->count < n)
		n = (size_t)o->count;
	int quit = 0;
	for (size_t r = 0; r < n && !quit && !(o->stop && *o->stop); r++) {
		for (unsigned d = 0; d < m->n_dev; d++) {
			monlog_round_procs(l, r, d, &m->procs[d]);
			monlog_round_migs(l, r, d, &m->migs[d]);
		}
		gpu_sampler_push(&m->hist, l->rounds[r].ts, l->rounds[r].s, NULL);
		int wait = 0;
		if (m->tui && r + 1 < n)
			wait = replay_gap_ms(l->rounds[r].ts, l->rounds[r + 1].ts, speed);
		quit = show(m, l->rounds[r].ts, l->rounds[r].s, wait > 0 ? wait : 0);
	}
	/* the ncurses view stays on the last frame until q */
	while (m->tui && !quit && !(o->stop && *o->stop))
		quit = tui_wait(1000);
	rc = m->failed ? -1 : 0;
out:
	monlog_release(l);
	free(l);
	return rc;
}

int monitor_run(const struct monitor_opts *o, char *err)
{
	struct mon_state *m = calloc(1, sizeof(*m));
	int rc;
	if (!m)
		return error_set(err, "out of memory");
	m->o = o;
	m->out = o->out ? o->out : stdout;
	m->log.fd = -1;
	if (gethostname(m->host, sizeof(m->host) - 1) < 0)
		snprintf(m->host, sizeof(m->host), "?");
	proc_cache_init(&m->pcache, o->proc_root, o->root);
	rc = o->replay ? run_replay(m) : run_live(m);
	if (m->tui)
		tui_close();
	if (rc < 0 || m->failed)
		error_set(err, "%s", m->err);
	if (fflush(m->out) != 0 && rc == 0)
		rc = error_set(err, "cannot write the output: %s", strerror(errno));
	monlog_close(&m->log);
	gpu_sampler_release(&m->hist);
	proc_cache_release(&m->pcache);
	free(m->procs);
	free(m->migs);
	free(m);
	return rc;
}
