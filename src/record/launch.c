/*
 * launch.c - record's phase 1 (record.h): the injected libraries and CMD's
 * environment, fork/exec, and the wait for CMD with signal forwarding after
 * the flush handshake (trace/spool.h).
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hostsample/hostsampler.h"
#include "util/knobs.h"
#include "record/pycmd.h"
#include "record/record_int.h"
#include "trace/spool.h"
#include "util/i18n.h"

static int dir_of_self(char *out, size_t cap)
{
	ssize_t n = readlink("/proc/self/exe", out, cap - 1);
	if (n <= 0)
		return -1;
	out[n] = '\0';
	char *slash = strrchr(out, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	return 0;
}

static int has_libs(const char *dir)
{
	char p[PATH_MAX + 32];
	if (snprintf(p, sizeof(p), "%s/libgpuscope-inject.so", dir) >= (int)sizeof(p))
		return 0;
	if (access(p, R_OK) == 0)
		return 1;
	if (snprintf(p, sizeof(p), "%s/libgpuscope-preload.so", dir) >= (int)sizeof(p))
		return 0;
	return access(p, R_OK) == 0;
}

/* The directories the libraries are looked up in, in order: beside the
 * running binary (the build directory, the wheel's layout), ../lib/gpuscope
 * from it (an installed tree, wherever it was moved), then the install
 * prefix this binary was built for. Returns how many (at most 3). */
static int lib_candidates(char dirs[3][PATH_MAX + 32])
{
	char self[PATH_MAX];
	int n = 0;
	if (dir_of_self(self, sizeof(self)) == 0) {
		snprintf(dirs[n++], PATH_MAX + 32, "%s", self);
		snprintf(dirs[n], PATH_MAX + 32, "%s/../lib/gpuscope", self);
		char *canon = realpath(dirs[n], NULL);
		if (canon) {
			snprintf(dirs[n], PATH_MAX + 32, "%s", canon);
			free(canon);
		}
		n++;
	}
#ifdef GPUSCOPE_LIBDIR
	if (n == 0 || strcmp(dirs[n - 1], GPUSCOPE_LIBDIR) != 0)
		snprintf(dirs[n++], PATH_MAX + 32, "%s", GPUSCOPE_LIBDIR);
#endif
	return n;
}

int record_lib_dir(char *out, size_t cap)
{
	char dirs[3][PATH_MAX + 32];
	int n = lib_candidates(dirs);
	if (n == 0)
		return -1;
	int pick = 0;
	for (int i = 0; i < n; i++)
		if (has_libs(dirs[i])) {
			pick = i;
			break;
		}
	if ((size_t)snprintf(out, cap, "%s", dirs[pick]) >= cap)
		return -1;
	return 0;
}

int record_lib_search(char *out, size_t cap)
{
	char dirs[3][PATH_MAX + 32];
	int n = lib_candidates(dirs);
	size_t len = 0;
	out[0] = '\0';
	for (int i = 0; i < n && len < cap; i++)
		len += (size_t)snprintf(out + len, cap - len, "%s%s", i ? ", " : "", dirs[i]);
	return n;
}

int rec_find_libs(struct rec_state *s, char *err)
{
	char dir[PATH_MAX];
	s->inject[0] = '\0';
	s->preload = NULL;
	s->untraced[0] = '\0';
	if (record_lib_dir(dir, sizeof(dir)) == 0)
		snprintf(s->inject, sizeof(s->inject), "%s/libgpuscope-inject.so", dir);
	if (!s->inject[0] || access(s->inject, R_OK) != 0) {
		char looked[3 * (PATH_MAX + 34)];
		record_lib_search(looked, sizeof(looked));
		s->inject[0] = '\0';
#ifdef GPUSCOPE_HAVE_INJECT
		snprintf(s->untraced, sizeof(s->untraced),
			 "libgpuscope-inject.so not found (looked in %s)", looked);
#else
		snprintf(s->untraced, sizeof(s->untraced),
			 "this gpuscope was built without CUPTI, so it has no "
			 "libgpuscope-inject.so");
#endif
		if (!s->o->allow_untraced)
			return error_set(
			    err,
			    "%s: CUDA would not be traced, so '%s' was not started; "
			    "install gpuscope (make install, its .deb or its wheel) or keep "
			    "the libraries beside the binary, or pass --allow-untraced to "
			    "run it untraced",
			    s->untraced, s->o->cmd[0]);
		rec_say(s->o, RECORD_WARNING, "%s; CUDA is not traced (--allow-untraced)",
			s->untraced);
		return 0;
	}
	/* the _exit/_Exit shim (src/preload/preload.c), first in LD_PRELOAD;
	 * GPUSCOPE_PRELOAD=0 leaves LD_PRELOAD alone */
	const char *pe = getenv(KNOB(PRELOAD));
	if (pe && strcmp(pe, "0") == 0)
		return 0;
	char shim[PATH_MAX + 32];
	snprintf(shim, sizeof(shim), "%s/libgpuscope-preload.so", dir);
	const char *cur = getenv("LD_PRELOAD");
	if (access(shim, R_OK) != 0)
		rec_say(s->o, RECORD_WARNING,
			"'%s' not found; a process ending with _exit loses its records since the "
			"last flush",
			shim);
	else if (asprintf(&s->preload, "%s%s%s", shim, cur && *cur ? ":" : "", cur ? cur : "") < 0)
		s->preload = NULL;
	return 0;
}

/* 1 when every traced process (a spool-<pid>.bin) answered the request */
static int all_answered(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return 1;
	int all = 1;
	struct dirent *e;
	while (all && (e = readdir(d))) {
		int pid;
		if (sscanf(e->d_name, "spool-%d.bin", &pid) != 1)
			continue;
		char p[PATH_MAX];
		if (snprintf(p, sizeof(p), "%s/%s%d", dir, SPOOL_FLUSHED_PREFIX, pid) >=
		    (int)sizeof(p))
			continue;
		/* a process that already ended flushed at exit */
		all = access(p, F_OK) == 0 || (kill(pid, 0) < 0 && errno == ESRCH);
	}
	closedir(d);
	return all;
}

/* Asks the traced processes to flush (spool.h handshake), waits for their
 * answers up to SPOOL_FLUSH_WAIT_MS, then forwards sig to the child: a
 * program that the signal kills outright (no atexit) keeps its records. */
static void flush_then_forward(const char *spool, pid_t pid, int sig)
{
	char req[PATH_MAX];
	if (snprintf(req, sizeof(req), "%s/%s", spool, SPOOL_FLUSH_REQUEST) < (int)sizeof(req)) {
		int fd = open(req, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
		if (fd >= 0) {
			close(fd);
			long long until = rec_mono_ms() + SPOOL_FLUSH_WAIT_MS;
			siginfo_t si;
			while (rec_mono_ms() < until && !all_answered(spool)) {
				memset(&si, 0, sizeof(si));
				/* the child ended meanwhile: nothing to forward to */
				if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) ==
					0 &&
				    si.si_pid == pid)
					break;
				rec_sleep_ms(10);
			}
		}
	}
	rec_signals_handshake_done();
	kill(pid, sig);
}

/* In the forked child: CMD's environment, then exec; errno to the pipe.
 * With host sampling the child first waits at gatefd until the launcher
 * armed the perf events for its exec: 'p' (perf events without the
 * CPython reader: CPython 3.12+ is asked for its perf trampolines,
 * PYTHONPERFSUPPORT=1, unless the user set it) or 'n'. With the reader
 * on (the default) the trampolines are not asked for: they cost the
 * program 21% on a deep pure-Python loop and give report nothing the
 * reader does not (docs/host-sampling.md "Overhead"). */
static void exec_child(const struct rec_state *s, int errfd, int gatefd)
{
	const struct record_opts *o = s->o;
	rec_signals_child_default();
	if (gatefd >= 0) {
		char c = 'n';
		ssize_t k;
		do
			k = read(gatefd, &c, 1);
		while (k < 0 && errno == EINTR);
		close(gatefd);
		if (k == 1 && c == 'p')
			setenv("PYTHONPERFSUPPORT", "1", 0);
	}
	setenv(KNOB(SPOOL_DIR), s->spool, 1);
	if (s->inject[0])
		setenv("CUDA_INJECTION64_PATH", s->inject, 1);
	/* NVTX too goes through the inject library, which hands it to the
	 * libcupti it resolved in this process (src/inject/nvtx.c) */
	if (s->inject[0])
		setenv("NVTX_INJECTION64_PATH", s->inject, 1);
	if (s->preload)
		setenv("LD_PRELOAD", s->preload, 1);
	if (strcmp(o->metrics, "pm") == 0)
		setenv(KNOB(METRICS), "pm", 1);
	if (strcmp(o->metrics, "kernels") == 0) {
		char v[32];
		setenv(KNOB(METRICS), "kernels", 1);
		if (o->kernel_regex)
			setenv(KNOB(KERNEL_REGEX), o->kernel_regex, 1);
		if (o->launch_skip >= 0) {
			snprintf(v, sizeof(v), "%lld", o->launch_skip);
			setenv(KNOB(LAUNCH_SKIP), v, 1);
		}
		if (o->launch_count >= 0) {
			snprintf(v, sizeof(v), "%lld", o->launch_count);
			setenv(KNOB(LAUNCH_COUNT), v, 1);
		}
	}
	i18n_child_env(); /* the program gets the user's LANGUAGE, not gpuscope's zh switch */
	execvp(o->cmd[0], o->cmd);
	int e = errno;
	if (write(errfd, &e, sizeof(e)) < 0) {
		/* nothing more to say */
	}
	_exit(127);
}

/* After the fork: the host sampler armed for the child's exec, then the
 * child let through the gate (exec_child). A sampler that cannot start
 * leaves the program alone and says why. */
static void start_host_sampling(struct rec_state *s, pid_t pid, int gate)
{
	const struct record_opts *o = s->o;
	const char *mech = getenv(KNOB(HOST_MECH));
	const char *div = getenv(KNOB(HOST_PERF_DIV));
	const char *sched = getenv(KNOB(HOST_SCHED_MS));
	struct host_sampler_opts ho = {
	    .perf_div = !cmd_runs_python(o->cmd, getenv("PATH")) ? 1
			: div && *div				 ? atoi(div)
								 : RECORD_HOST_PERF_DIV,
	    .hz = o->host_hz,
	    .use_perf = !mech || strcmp(mech, "pyread") != 0,
	    .use_pyread = !mech || strcmp(mech, "perf") != 0,
	    .perf_maps_ours = getenv("PYTHONPERFSUPPORT") == NULL && mech && !strcmp(mech, "perf"),
	    .control = getenv(KNOB(HOST_SWITCH)),
	    .sched_ms = sched && *sched ? atoi(sched) : RECORD_HOST_SCHED_MS,
	};
	if (ho.control && !*ho.control)
		ho.control = NULL;
	char e[GS_ERR_LEN];
	if (host_sampler_start(&s->hs, pid, &ho, e) < 0)
		rec_say(o, RECORD_WARNING, "no host sampling: %s", e);
	char c = host_sampler_perf_on(s->hs) && !ho.use_pyread ? 'p' : 'n';
	if (write(gate, &c, 1) < 0) {
		/* the child is gone: waitpid will tell */
	}
	close(gate);
}

int rec_run_child(struct rec_state *s, struct record_result *r, char *err)
{
	int pipefd[2], gate[2] = {-1, -1};
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return error_set(err, "pipe: %s", strerror(errno));
	if (s->o->host_hz > 0 && pipe2(gate, O_CLOEXEC) < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return error_set(err, "pipe: %s", strerror(errno));
	}
	s->start_real = rec_real_now();
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		if (gate[0] >= 0) {
			close(gate[0]);
			close(gate[1]);
		}
		return error_set(err, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		close(pipefd[0]);
		if (gate[1] >= 0)
			close(gate[1]);
		exec_child(s, pipefd[1], gate[0]);
	}
	s->pid = pid;
	if (gate[0] >= 0) {
		close(gate[0]);
		start_host_sampling(s, pid, gate[1]);
	}
	rec_signals_set_child(pid);
	close(pipefd[1]);
	int exec_errno = 0;
	ssize_t got;
	do
		got = read(pipefd[0], &exec_errno, sizeof(exec_errno));
	while (got < 0 && errno == EINTR);
	close(pipefd[0]);
	int status = 0;
	/* polled, not a blocking waitpid: a signal that lands between the
	 * pending check and the wait would otherwise wait for the child */
	for (;;) {
		int sig = rec_signals_take_pending();
		if (sig)
			flush_then_forward(s->spool, pid, sig);
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid || (w < 0 && errno != EINTR))
			break;
		rec_sleep_ms(10);
	}
	if (got == (ssize_t)sizeof(exec_errno)) {
		r->exec_failed = 1;
		r->child_rc = 127;
		return error_set(err, "cannot run '%s': %s", s->o->cmd[0], strerror(exec_errno));
	}
	r->child_rc = WIFEXITED(status)	    ? WEXITSTATUS(status)
		      : WIFSIGNALED(status) ? 128 + WTERMSIG(status)
					    : 1;
	return 0;
}
