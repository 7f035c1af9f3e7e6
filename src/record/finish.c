/*
 * finish.c - record's phase 2 (record.h): merge the spool files, map the
 * samples onto CUPTI's clock, write the database in a child process (so
 * that a second signal can abandon it at any point), and put it in place.
 *
 * The writer is a fork of record after the sampler thread has stopped: it
 * sees the samples and the spool directory as they are, writes
 * SPOOL/record.db (trace_db_save: under a temporary name, renamed when
 * complete) and exits; its error message comes back through a pipe. The
 * parent renames SPOOL/record.db onto the output only when the writer
 * succeeded, so an abandoned or failed write leaves the output untouched.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hostsample/hostsampler.h"
#include "util/knobs.h"
#include "record/record_int.h"
#include "trace/capture.h"
#include "trace/spool.h"
#include "trace/trace.h"
#include "trace/trace_db.h"

#define WRITER_DB "record.db"

int rec_check_output(const char *path, int force, int *is_db, char *err)
{
	/* the one rule of every writer (util/outfile.h) */
	struct outfile_rule rule = trace_db_rule(force, NULL);
	int t = outfile_check(path, &rule, NULL, 0, err);
	if (t < 0)
		return -1;
	*is_db = t == OUTFILE_REPLACE && trace_db_is_gpuscope(path);
	return 0;
}

void rec_remove_spool_dir(const char *dir)
{
	/* the directory is ours (made 0700 for this run): whatever is in it
	 * goes, spool files, handshake files, the writer's database, and files
	 * the program put there */
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d))) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			char p[PATH_MAX];
			if (snprintf(p, sizeof(p), "%s/%s", dir, e->d_name) >= (int)sizeof(p))
				continue;
			unlink(p);
		}
		closedir(d);
	}
	rmdir(dir);
}

/* Merges every spool file of dir into t; returns the clock pair of the
 * first readable one (have_clock set) for the samples. */
static void merge_spools(const struct record_opts *o, struct trace *t, const char *dir,
			 struct spool_clock *clock, int *have_clock)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "spool-", 6) != 0)
			continue;
		char p[PATH_MAX], err[GS_ERR_LEN];
		if (snprintf(p, sizeof(p), "%s/%s", dir, e->d_name) >= (int)sizeof(p))
			continue;
		struct spool_clock c = {0, 0};
		if (spool_read_file(t, p, &c, err) < 0) {
			rec_say(o, RECORD_WARNING, "%s: %s", e->d_name, err);
			continue;
		}
		if (!*have_clock && c.real_ns) {
			*clock = c;
			*have_clock = 1;
		}
	}
	closedir(d);
}

static void set_meta(struct trace *t, const struct record_opts *o, int64_t start_real)
{
	char cmd[4096] = "";
	size_t n = 0;
	for (char *const *a = o->cmd; *a && n + 2 < sizeof(cmd); a++)
		n += (size_t)snprintf(cmd + n, sizeof(cmd) - n, "%s%s", n ? " " : "", *a);
	trace_set_meta(t, "command", cmd);
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	trace_set_meta(t, "host", host);
	char v[64];
	snprintf(v, sizeof(v), "%lld", (long long)start_real);
	trace_set_meta(t, "start_realtime_ns", v);
	trace_set_meta(t, "clock_domain", "cupti");
	trace_set_meta(t, "recorder", o->recorder ? o->recorder : "gpuscope record");
	t->source = TRACE_SRC_RECORD;
}

static void summary(const struct record_opts *o, const struct trace *t)
{
	unsigned long long dropped = 0, over = 0;
	for (size_t i = 0; i < t->n_processes; i++) {
		dropped += t->processes[i].dropped_records;
		over += t->processes[i].overhead_ns;
	}
	rec_say(o, RECORD_NOTE,
		"recorded %zu process(es): %zu kernels, %zu copies, %zu memsets, %zu API "
		"calls, %zu syncs, %zu NVTX ranges, %zu samples; %llu dropped records; overhead "
		"%.1f ms",
		t->n_processes, t->n_kernels, t->n_copies, t->n_memsets, t->n_apis, t->n_syncs,
		t->n_ranges, t->n_samples, dropped, over / 1e6);
	for (size_t i = 0; i < t->n_processes; i++) {
		const char *st = trace_str(t, t->processes[i].status_id);
		if (*st)
			rec_say(o, RECORD_WARNING, "pid %u: %s", t->processes[i].pid, st);
	}
	if (dropped)
		rec_say(o, RECORD_WARNING, "CUPTI dropped %llu records", dropped);
	for (size_t i = 0; i < t->n_host_sampling; i++) {
		const struct trace_host_sampling *h = &t->host_sampling[i];
		const char *st = trace_str(t, h->status_id);
		if (h->pid != t->host_sampling[0].pid && !*st)
			continue; /* one line for the program, more only for trouble */
		rec_say(o, *st ? RECORD_WARNING : RECORD_NOTE,
			"host sampling, pid %u: %llu samples (%s at %g Hz)%s%s", h->pid,
			(unsigned long long)h->samples,
			*trace_str(t, h->mechanism_id) ? trace_str(t, h->mechanism_id) : "off",
			h->hz, *st ? "; " : "", st);
	}
}

/* --capture-range, --delay, --duration: only the capture windows stay
 * (trace/capture.h); program_start is on CUPTI's clock */
static void cut_to_capture(const struct record_opts *o, struct trace *t, int64_t program_start)
{
	struct capture_result cr;
	if (trace_capture(t, &o->capture, program_start, &cr) < 0) {
		rec_say(o, RECORD_WARNING, "out of memory cutting to the capture range");
		return;
	}
	if (cr.status[0]) {
		rec_say(o, RECORD_WARNING, "%s", cr.status);
		return;
	}
	rec_say(o, RECORD_NOTE,
		"captured %zu window%s, %.3f s of %.3f s: %llu kernels kept, %llu left out "
		"(%llu rows in all)",
		cr.windows, cr.windows == 1 ? "" : "s", (double)cr.captured_ns / 1e9,
		(double)cr.span_ns / 1e9, (unsigned long long)cr.kernels_kept,
		(unsigned long long)cr.kernels_dropped, (unsigned long long)cr.dropped);
}

static int pid_has_work(const struct trace *t, uint32_t pid)
{
	for (size_t i = 0; i < t->n_kernels; i++)
		if (t->kernels[i].pid == pid)
			return 1;
	for (size_t i = 0; i < t->n_copies; i++)
		if (t->copies[i].pid == pid)
			return 1;
	for (size_t i = 0; i < t->n_apis; i++)
		if (t->apis[i].pid == pid)
			return 1;
	return 0;
}

/* A process that did no GPU work beside others that did is a helper (Open
 * MPI's orted, started by an mpi4py import in a Lightning program on the
 * H200, loads CUDA and launches nothing), not a recording that failed: its
 * "no CUDA activity" status is dropped, so no warning is raised for it; its
 * row in the processes table says 0 kernels. A run whose only processes did
 * no GPU work keeps the status. */
static void quiet_helpers(struct trace *t)
{
	uint32_t none = 0;
	for (uint32_t i = 0; i < t->n_strings && !none; i++)
		if (strcmp(t->strings[i], SPOOL_NO_CUDA_STATUS) == 0)
			none = i;
	if (!none)
		return;
	int any = 0;
	for (size_t i = 0; i < t->n_processes && !any; i++)
		any = t->processes[i].status_id != none && pid_has_work(t, t->processes[i].pid);
	for (size_t i = 0; any && i < t->n_processes; i++)
		if (t->processes[i].status_id == none)
			t->processes[i].status_id = 0;
}

/* The writer (in the forked child): the trace from the spools and samples,
 * saved at path. 0 or -1 + err. */
static int write_db(struct rec_state *s, const char *path, char *err)
{
	const struct record_opts *o = s->o;
	struct trace t;
	trace_init(&t);
	struct spool_clock clock = {0, 0};
	int have_clock = 0;
	rec_say(o, RECORD_STEP, "reading the recordings");
	merge_spools(o, &t, s->spool, &clock, &have_clock);
	/* CUPTI's synchronization records are off by default (inject/api_select.c, kinds):
	 * the sync rows come from the synchronizing API calls */
	if (trace_add_api_syncs(&t) < 0)
		rec_say(o, RECORD_WARNING, "out of memory deriving sync rows");
	quiet_helpers(&t);
	if (t.n_processes == 0) {
		struct trace_process *p = trace_add_process(&t);
		if (p) {
			p->pid = (uint32_t)s->pid;
			p->parent_pid = (uint32_t)getppid();
			p->status_id = trace_intern(&t, SPOOL_NO_CUDA_STATUS);
			/* --allow-untraced: the reason, not a guess at one */
			char why[sizeof(s->untraced) + 64];
			snprintf(why, sizeof(why),
				 "CUDA not traced: %s (recorded with --allow-untraced)",
				 s->untraced);
			if (s->untraced[0])
				p->status_id = trace_intern(&t, why);
			p->start_ns = s->start_real;
			p->end_ns = rec_real_now();
		}
	}
	/* map CLOCK_REALTIME samples onto CUPTI's clock; without a clock pair
	 * (no CUDA) the two are taken as equal */
	long long offset = have_clock ? clock.cupti_ns - clock.real_ns : 0;
	if (s->sampling && sampler_to_trace(&s->smp, &t, offset) < 0)
		rec_say(o, RECORD_WARNING, "out of memory storing samples");
	/* host stacks: CLOCK_MONOTONIC -> CLOCK_REALTIME -> CUPTI's clock */
	if (s->hs) {
		rec_say(o, RECORD_STEP, "symbolizing host samples");
		int64_t mono_to_real = rec_real_now() - rec_mono_ns();
		if (host_sampler_to_trace(s->hs, &t, mono_to_real + offset) < 0)
			rec_say(o, RECORD_WARNING, "out of memory storing host samples");
		int cap = 0;
		const struct perf_stats *ps = host_sampler_perf_stats(s->hs, &cap);
		const char *dbg = getenv(KNOB(DEBUG));
		size_t kept = 0; /* per CPU, other programs' samples are read and dropped */
		for (size_t i = 0; i < t.n_host_samples; i++)
			kept += t.host_samples[i].source == HOST_SRC_PERF;
		if (ps && ps->samples && dbg && *dbg && strcmp(dbg, "0") != 0)
			rec_say(
			    o, RECORD_NOTE,
			    "perf (%s): %llu samples read, %zu of the program's kept, %.1f user "
			    "frames each, %llu cut at %d",
			    host_sampler_perf_system_wide(s->hs) ? "per CPU, every task's"
								 : "per task",
			    (unsigned long long)ps->samples, kept,
			    (double)ps->frames / (double)ps->samples,
			    (unsigned long long)ps->truncated, cap);
	}
	set_meta(&t, o, s->start_real);
	if (s->untraced[0])
		trace_set_meta(&t, "untraced", s->untraced);
	trace_sort(&t);
	/* --metrics kernels: the profiled launches' replay is the profiler's
	 * time, not the program's (src/trace/replay.c) */
	int64_t replay_ns = 0;
	uint64_t placed = 0, left_out = 0;
	if (trace_remove_replay(&t, &replay_ns, &placed, &left_out) < 0)
		rec_say(o, RECORD_WARNING, "out of memory removing kernel replay time");
	else if (placed || left_out)
		rec_say(
		    o, RECORD_NOTE,
		    "kernel counters: %llu profiled launches; %.3f s of kernel replay taken out of "
		    "the timeline%s",
		    (unsigned long long)placed, (double)replay_ns / 1e9,
		    left_out ? " (kernels without timestamps that were not profiled left out)"
			     : "");
	if (capture_active(&o->capture))
		cut_to_capture(o, &t, s->start_real + offset);
	rec_say(o, RECORD_STEP, "writing '%s'", o->output);
	int rc = trace_db_save(path, &t, err);
	if (rc == 0)
		summary(o, &t);
	trace_release(&t);
	return rc;
}

/* Waits for the writer, abandoning it on a second signal. Returns its wait
 * status, or -1 when abandoned. */
static int wait_writer(struct rec_state *s, pid_t w)
{
	int warned = 0, status = 0;
	for (;;) {
		if (rec_signals_abandon()) {
			kill(w, SIGKILL);
			while (waitpid(w, &status, 0) < 0 && errno == EINTR)
				;
			return -1;
		}
		if (rec_signals_since_finishing() > 0 && !warned) {
			rec_say(s->o, RECORD_WARNING,
				"writing '%s'; a second signal abandons it (nothing is written)",
				s->o->output);
			warned = 1;
		}
		pid_t x = waitpid(w, &status, WNOHANG);
		if (x == w || (x < 0 && errno != EINTR))
			return status;
		rec_sleep_ms(10);
	}
}

int rec_finish(struct rec_state *s, struct record_result *r, char *err)
{
	char db[PATH_MAX + 16];
	if ((size_t)snprintf(db, sizeof(db), "%s/%s", s->spool, WRITER_DB) >= sizeof(db))
		return error_set(err, "output path too long");
	int efd[2];
	if (pipe2(efd, O_CLOEXEC) < 0)
		return error_set(err, "pipe: %s", strerror(errno));
	fflush(NULL);
	pid_t w = fork();
	if (w < 0) {
		close(efd[0]);
		close(efd[1]);
		return error_set(err, "fork: %s", strerror(errno));
	}
	if (w == 0) {
		/* Ctrl-C reaches the whole process group: only the parent decides */
		rec_signals_child_ignore();
		close(efd[0]);
		char e[GS_ERR_LEN] = "";
		int rc = write_db(s, db, e);
		if (rc < 0 && write(efd[1], e, strlen(e)) < 0) {
			/* the parent says the writer failed */
		}
		fflush(NULL);
		_exit(rc < 0 ? 1 : 0);
	}
	close(efd[1]);
	int status = wait_writer(s, w);
	char e[GS_ERR_LEN] = "";
	ssize_t n = read(efd[0], e, sizeof(e) - 1);
	close(efd[0]);
	e[n > 0 ? n : 0] = '\0';
	if (status < 0) {
		r->abandoned_by = rec_signals_abandon();
		return error_set(err, "interrupted (signal %d) while writing: '%s' was not written",
				 r->abandoned_by, s->o->output);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return error_set(err, "%s", e[0] ? e : "the database writer died");
	int is_db;
	if (rec_check_output(s->o->output, s->o->force, &is_db, err) < 0)
		return -1;
	/* a link to the output: its target is replaced (util/outfile.h) */
	struct outfile_rule rule = trace_db_rule(s->o->force, NULL);
	char real[PATH_MAX];
	if (outfile_check(s->o->output, &rule, real, sizeof(real), err) < 0 ||
	    outfile_rename(db, real, err) < 0)
		return -1;
	r->replaced = is_db;
	return 0;
}
