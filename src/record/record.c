/*
 * record.c - record_run (record.h): the phases in order, and what is left
 * to clean up after each.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hostsample/hostsampler.h"
#include "record/record_int.h"

void rec_say(const struct record_opts *o, enum record_say kind, const char *fmt, ...)
{
	if (!o->say)
		return;
	char msg[GS_ERR_LEN * 2];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	o->say(o->ctx, kind, msg);
}

int64_t rec_real_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

int64_t rec_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

long long rec_mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void rec_sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

int record_run(struct record_result *r, const struct record_opts *o, char *err)
{
	memset(r, 0, sizeof(*r));
	int is_db;
	if (rec_check_output(o->output, o->force, &is_db, err) < 0)
		return -1;
	struct rec_state *s = calloc(1, sizeof(*s));
	if (!s)
		return error_set(err, "out of memory");
	s->o = o;
	int rc = -1;
	/* from here on a signal is record's to decide (and never leaves the
	 * spool directory behind) */
	rec_signals_install();
	if (rec_find_libs(s, err) < 0)
		goto out_restore;
	if ((size_t)snprintf(s->spool, sizeof(s->spool), "%s.spool-%d", o->output, (int)getpid()) >=
	    sizeof(s->spool)) {
		error_set(err, "output path too long");
		goto out_restore;
	}
	if (mkdir(s->spool, 0700) < 0) {
		error_set(err, "cannot create '%s': %s", s->spool, strerror(errno));
		goto out_restore;
	}
	if (strcmp(o->metrics, "none") != 0) {
		char e[GS_ERR_LEN];
		if (sampler_start(&s->smp, o->sample_hz, e) == 0)
			s->sampling = 1;
		else
			rec_say(o, RECORD_NOTE, "no GPU sampling: %s", e);
	}
	/* a signal while the libraries and the GPUs were opened (libcupti's
	 * load and NVML's init can take a second): the program is not started */
	if ((r->abandoned_by = rec_signals_last())) {
		error_set(err, "interrupted (signal %d) before '%s' started; nothing recorded",
			  r->abandoned_by, o->cmd[0]);
		goto out_signals;
	}
	if (rec_run_child(s, r, err) < 0)
		goto out_signals;
	/* CMD has ended: stop sampling now, then finish (phase 2) */
	rec_signals_finishing();
	if (s->sampling)
		sampler_stop(&s->smp);
	host_sampler_stop(s->hs);
	rc = rec_finish(s, r, err);
out_signals:
	if (s->sampling)
		sampler_release(&s->smp);
	host_sampler_free(s->hs);
	rec_remove_spool_dir(s->spool);
out_restore:
	rec_signals_restore();
	free(s->preload);
	free(s);
	return rc;
}
