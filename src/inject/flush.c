/*
 * flush.c - getting the records out: the periodic flush thread (invariant 3
 * of inject.c) with record's flush handshake and the checks that another
 * CUPTI client took collection over (heartbeat, takeover, foreign kinds);
 * killing signals caught for one last flush; _exit and _Exit through the
 * preload shim; the final flush at exit with its END frame.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "inject/inject_int.h"

static void check_takeover(unsigned long long *last_launches, unsigned long long *last_records,
			   int *ticks)
{
	unsigned long long l = atomic_load(&inj.launches), r = atomic_load(&inj.records);
	if (l > *last_launches && r == *last_records)
		(*ticks)++;
	else if (r != *last_records)
		*ticks = 0;
	if (r != *last_records)
		*last_records = r;
	*last_launches = l;
	if (*ticks >= TAKEOVER_TICKS && !atomic_exchange(&inj.takeover_reported, 1))
		status(0, 0,
		       "another CUPTI client (torch.profiler / nsys / ncu?) took over activity "
		       "collection; records after %lld are lost",
		       (long long)atomic_load(&inj.last_record_ts));
}

/* A process whose CUPTI never delivered a record and that launched
 * nothing has no collection to lose: a helper that only initialised CUDA
 * (Open MPI's orted, started by an mpi4py import in a Lightning program on
 * the H200) sends heartbeats that never come back, and no client took
 * anything from it. */
static int nothing_to_lose(void)
{
	return atomic_load(&inj.beats_seen) == 0 && atomic_load(&inj.launches) == 0 &&
	       atomic_load(&inj.kernel_records) == 0;
}

/* Whether the heartbeats missing at exit mean another client held
 * collection: not with nothing_to_lose(), nor for one beat alone (the last
 * tick's can be in flight at exit: that Lightning run's main process, 1 of
 * 4, its kernel records complete). */
static int heartbeats_lost(unsigned long long sent, unsigned long long seen)
{
	return !nothing_to_lose() && sent >= seen + 2;
}

/* Without the CUPTI subscription another client (torch.profiler) can take
 * the activity buffers over, or disable our kinds when it stops. The flush
 * thread sends a heartbeat each tick (a cuDriverGetVersion call, whose
 * DRIVER record convert.c recognises by thread and drops); when records
 * arrive no more and TAKEOVER_TICKS heartbeats in a row are missing, the
 * loss is reported instead of being silent. */
static void heartbeat(unsigned long long *missed)
{
	if (!inj.drv_version)
		return;
	unsigned long long sent = atomic_load(&inj.beats_sent), seen = atomic_load(&inj.beats_seen);
	if (sent > seen + 1)
		(*missed)++;
	else
		*missed = 0;
	if (*missed >= TAKEOVER_TICKS && !nothing_to_lose() &&
	    !atomic_exchange(&inj.takeover_reported, 1))
		status(0, 0,
		       "activity records stopped arriving while the program ran: another CUPTI "
		       "client (torch.profiler / nsys / ncu?) took collection over or disabled "
		       "it; records after %lld are lost (record with GPUSCOPE_GUARD_CUPTI=1 to "
		       "keep them; that client then gets none)",
		       (long long)atomic_load(&inj.last_record_ts));
	int v;
	inj.drv_version(&v);
	atomic_fetch_add(&inj.beats_sent, 1);
}

/* Records of kinds gpuscope never enables mean another CUPTI client in the
 * process enabled them (torch.profiler enables EXTERNAL_CORRELATION and
 * OVERHEAD, for one): say so once. */
void check_foreign(void)
{
	unsigned long long n = atomic_load(&inj.foreign_records);
	if (n && !atomic_exchange(&inj.foreign_reported, 1))
		status(0, 0,
		       "another CUPTI client (torch.profiler / nsys / ncu?) is active in this "
		       "process: %llu records of activity kind %d that gpuscope did not enable; "
		       "it cannot collect while gpuscope records (CUPTI has one subscriber), and "
		       "gpuscope's records may be incomplete if it took the buffers over",
		       n, atomic_load(&inj.foreign_kind));
}

static int request_pending(int answered)
{
	return !answered && inj.request_path[0] && access(inj.request_path, F_OK) == 0;
}

/* Sleeps one flush period in SPOOL_FLUSH_POLL_MS slices; returns early, once,
 * when record asks for a flush before it forwards a signal (spool.h). */
static void wait_tick(int *answered)
{
	struct timespec ts = {0, SPOOL_FLUSH_POLL_MS * 1000000L};
	for (unsigned slept = 0; slept < inj.flush_ms; slept += SPOOL_FLUSH_POLL_MS) {
		nanosleep(&ts, NULL);
		uvm_poll(); /* the counters, as soon as CUPTI is ready for them */
		if (request_pending(*answered) || atomic_load(&inj.sig_caught) ||
		    atomic_load(&inj.exit_req))
			return;
		if (atomic_load(&inj.stopping))
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
	uint64_t first = atomic_load(&inj.sig_caught_ns);
	if (getpid() != inj.pid || atomic_load(&inj.quiet) ||
	    (first && now - first >= SIG_MAX_MS * 1000000ull)) {
		/* a forked child, not recording, or no flush in time */
		restore_default(sig);
		raise(sig); /* delivered when the handler returns */
	} else if (!first) {
		atomic_store(&inj.sig_caught_ns, now);
		atomic_store(&inj.sig_caught, sig);
		for (int i = 0; i < 3; i++)
			if (caught_sigs[i] == sig && inj.sig_timer_ok[i]) {
				struct itimerspec it = {
				    {0, 0}, {SIG_MAX_MS / 1000, (SIG_MAX_MS % 1000) * 1000000L}};
				timer_settime(inj.sig_timer[i], 0, &it, NULL);
			}
	}
	errno = saved;
}

void catch_signals(void)
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
		inj.sig_timer_ok[i] = timer_create(CLOCK_MONOTONIC, &ev, &inj.sig_timer[i]) == 0;
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
	unsigned long long n = atomic_exchange(&inj.incomplete, 0);
	if (n)
		status(0, 0,
		       "%llu kernels, copies or memsets had no GPU timestamps yet %s (still "
		       "queued, or not timed since its last synchronization); they are left "
		       "out",
		       n, when);
}

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

/* In the flush thread, once a signal was caught: flush, then let it through */
static void flush_on_signal(void)
{
	int sig = atomic_load(&inj.sig_caught);
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
	int fd = open(inj.answer_path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
	dbg("flushed on record's request (a signal is coming)");
}

void *flush_thread(void *arg)
{
	unsigned long long ll = 0, lr = 0, missed = 0;
	int ticks = 0, answered = 0;
	atomic_store(&inj.beat_tid, (int)syscall(SYS_gettid));
	while (!atomic_load(&inj.stopping) && !atomic_load(&inj.quiet)) {
		wait_tick(&answered);
		if (atomic_load(&inj.stopping) || !mine())
			break;
		/* time spent here is counted inside buffer_completed */
		if (atomic_load(&inj.sig_caught)) {
			flush_on_signal();
			break;
		}
		if (atomic_load(&inj.exit_req)) {
			final_flush(SPOOL_END_QUICK_EXIT, (uint32_t)atomic_load(&inj.exit_status));
			break;
		}
		uvm_retry(); /* CUPTI was not ready for them at the start */
		cuptiActivityFlushAll(0);
		if (request_pending(answered)) {
			answered = 1;
			answer_request();
		}
		if (inj.pool_on)
			pool_fill();
		if (atomic_load(&inj.capturing))
			check_takeover(&ll, &lr, &ticks);
		else
			ticks = 0;
		check_foreign();
		heartbeat(&missed);
	}
	if (mine())
		uncatch_signals();
	atomic_store(&inj.flush_alive, 0);
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
	if (!mine() || atomic_load(&inj.quiet) || atomic_load(&inj.final_done) ||
	    !atomic_load(&inj.flush_alive) || atomic_load(&inj.sig_caught))
		return;
	if (!atomic_exchange(&inj.exit_req, 1))
		atomic_store(&inj.exit_status, status);
	struct timespec ts = {0, 1000000L};
	for (unsigned ms = 0; ms < SIG_MAX_MS && atomic_load(&inj.flush_alive); ms++)
		nanosleep(&ts, NULL);
}

/* tells the preload shim, when record loaded it, which hook to call */
void register_quick_exit(void)
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
	if (!inj.debug)
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
	if (!mine() || atomic_load(&inj.quiet) || atomic_exchange(&inj.final_done, 1))
		return;
	atomic_store(&inj.stopping, 1);
	uint64_t t0 = mono_ns();
	/* a last heartbeat: its record comes back in the forced flush unless
	 * another client holds or has disabled collection */
	if (inj.drv_version) {
		int v;
		atomic_store(&inj.exit_tid, (int)syscall(SYS_gettid));
		inj.drv_version(&v);
		atomic_fetch_add(&inj.beats_sent, 1);
	}
	unsigned long long sent = atomic_load(&inj.beats_sent);
	CUptiResult r = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	if (r != CUPTI_SUCCESS)
		dbg("final flush failed: %s", cupti_err(r));
	atomic_fetch_add(&inj.overhead_ns, mono_ns() - t0);
	char when[64];
	if (how == SPOOL_END_SIGNAL)
		snprintf(when, sizeof(when), "when signal %u ended the program", detail);
	else
		snprintf(when, sizeof(when), "at exit");
	report_incomplete(when);
	if (atomic_load(&inj.graph_records))
		dbg("%llu graph-level records (GPUSCOPE_KINDS graph: counted, not stored)",
		    (unsigned long long)atomic_load(&inj.graph_records));
	report_paused();
	uvm_at_end();
	pm_report(how != SPOOL_END_SIGNAL);
	counters_report();
	check_foreign();
	/* after the forced flush every heartbeat sent before it is back, unless
	 * another client held the buffers for a while (even too briefly for the
	 * tick check) or disabled our kinds when it stopped */
	unsigned long long seen = atomic_load(&inj.beats_seen);
	if (inj.drv_version && heartbeats_lost(sent, seen) &&
	    !atomic_exchange(&inj.takeover_reported, 1))
		status(0, 0,
		       "%llu of %llu heartbeats did not come back: another CUPTI client "
		       "(torch.profiler / nsys / ncu?) held activity collection for about %llu s; "
		       "the records of that time are lost (GPUSCOPE_GUARD_CUPTI=1 keeps them; that "
		       "client then gets none)",
		       sent - seen, sent, (sent - seen) * inj.flush_ms / 1000);
	if (atomic_load(&inj.launches) > 0 && atomic_load(&inj.kernel_records) == 0 &&
	    !inj.pauses && !atomic_exchange(&inj.takeover_reported, 1))
		status(0, 0,
		       "%llu kernel launches seen but no kernel records received: another CUPTI "
		       "client (torch.profiler / nsys / ncu?) took over activity collection",
		       (unsigned long long)atomic_load(&inj.launches));
	char buf[256];
	struct out o = {buf, sizeof(buf), 0};
	write_stats(&o);
	struct spool_end e = {cupti_now(), how, detail};
	put(&o, SPOOL_END, &e, sizeof(e), NULL, 0);
	out_flush(&o);
	dbg_threads();
	dbg("done: %llu records, %llu buffers (%llu not from the pool), %llu dropped, %llu "
	    "launches",
	    (unsigned long long)atomic_load(&inj.records),
	    (unsigned long long)atomic_load(&inj.buffers),
	    (unsigned long long)atomic_load(&inj.pool_misses),
	    (unsigned long long)atomic_load(&inj.dropped),
	    (unsigned long long)atomic_load(&inj.launches));
}

void at_exit(void)
{
	unsigned long long g = atomic_load(&inj.guard_syncs);
	if (g)
		status(0, 0, "GPUSCOPE_HOST_FREE_GUARD=1: waited for the device at %llu host frees",
		       g);
	final_flush(SPOOL_END_EXIT, 0);
}
