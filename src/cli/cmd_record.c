/*
 * cmd_record.c - `gpuscope record [-o FILE] [--metrics SET] [--sample-hz N]
 * -- CMD ARGS...`: runs CMD with libgpuscope-inject.so injected through
 * CUDA_INJECTION64_PATH, samples NVML/GPM alongside, then merges the
 * per-process spool files (trace/spool.h) into one trace database.
 *
 * Exit code: CMD's (128+signal when it was killed); 127 when CMD could not
 * run; 2 for a bad command line; 1 when the database could not be written.
 * Nothing is written outside FILE and its temporary spool directory
 * FILE.spool-PID/, which is removed at the end.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "inject/knobs.h"
#include "record/sampler.h"
#include "trace/spool.h"
#include "trace/trace.h"
#include "trace/trace_db.h"

/* --sample-hz: below 0.1 Hz a GPM window (the difference of two samples)
 * spans 10 s and more, so the busy/idle phases the report reads from it
 * blur into one; above 1000 Hz NVML's own counters do not update (their
 * period is 1-20 ms) and a round of queries takes longer than the period */
#define RECORD_MIN_HZ 0.1
#define RECORD_MAX_HZ 1000

#define NO_CUDA_STATUS                                                                             \
	"no CUDA activity (the program never initialised CUDA, or CUPTI could not attach)"

struct record_opts {
	const char *output;
	const char *metrics;
	const char *kernel_regex;	     /* --metrics kernels */
	long long launch_skip, launch_count; /* -1: not given */
	double sample_hz;
	int force, progress;
	char **cmd;
};

/* checked here as the injected library will compile it (POSIX extended),
 * so that a typo is a usage error */
static int check_regex(void *field, const char *arg, char *err)
{
	regex_t re;
	if (regcomp(&re, arg, REG_EXTENDED | REG_NOSUB) != 0)
		return error_set(err, "bad --kernel-regex '%s' (POSIX extended regex)", arg);
	regfree(&re);
	*(const char **)field = arg;
	return 0;
}

static const struct cli_option record_options[] = {
    OPT_OUTPUT(struct record_opts, output,
	       "output database (default gpuscope.db; an existing non-gpuscope\n"
	       "file is refused)"),
    OPT_CHOICE(0, "metrics", struct record_opts, metrics, "nvml|none|kernels",
	       "nvml (default): NVML/GPM samples; none; kernels: NVML/GPM samples\n"
	       "and per-kernel hardware counters (kernel replay, ~14 passes;\n"
	       "docs/counters.md)"),
    OPT_CALLBACK(0, "kernel-regex", struct record_opts, kernel_regex, const char *, "RE",
		 check_regex,
		 "counters for kernels matching RE (mangled, demangled or function\n"
		 "name; default: every kernel's first launch)"),
    OPT_LLONG(0, "launch-skip", struct record_opts, launch_skip, "N", 0, 1e15,
	      "matching launches to pass over first (default 0)"),
    OPT_LLONG(0, "launch-count", struct record_opts, launch_count, "N", 0, 1e15,
	      "matching launches to profile (default: first of each kernel)"),
    OPT_DOUBLE(0, "sample-hz", struct record_opts, sample_hz, "HZ", RECORD_MIN_HZ, RECORD_MAX_HZ,
	       "NVML/GPM sampling rate (default 10)"),
    OPT_FORCE(struct record_opts, force),
    OPT_PROGRESS(struct record_opts, progress),
    OPT_END(),
};

/* one line of record --help per GPUSCOPE_* variable */
#define RECORD_KNOB_LINE(id, def, doc) "  GPUSCOPE_" #id " [" def "]: " doc "\n"

const struct cli_spec cli_spec_record = {
    .name = "record",
    .flags = CLI_COMMAND_AFTER_DASHDASH,
    .options = record_options,
    .description =
	"runs CMD with CUPTI injected (kernels, copies, memsets, runtime and driver API,\n"
	"synchronization, NVTX, allocations) and NVML/GPM sampled alongside; writes one\n"
	"trace database (default gpuscope.db)\n",
    .footer =
	"exit code: CMD's (128+signal if killed), 127 if CMD could not run\n"
	"environment (src/inject/knobs.h, docs/record.md), default in brackets:\n" GPUSCOPE_KNOBS(
	    RECORD_KNOB_LINE),
};

static volatile sig_atomic_t child_pid;

/* A terminating signal for record is held (pending_sig) until the traced
 * processes have flushed (flush_then_forward); a second one goes through
 * at once. */
static volatile sig_atomic_t pending_sig, handshake_done;

static void forward(int sig, siginfo_t *info, void *ctx)
{
	(void)ctx;
	/* from the terminal (Ctrl-C, hangup) the whole foreground process group,
	 * the child too, already got it: a second copy would interrupt the
	 * program's own clean-up */
	if (info && info->si_code == SI_KERNEL)
		return;
	if (child_pid > 0 && handshake_done)
		kill(child_pid, sig);
	else
		pending_sig = sig;
}

static long long mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
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
			long long until = mono_ms() + SPOOL_FLUSH_WAIT_MS;
			siginfo_t si;
			while (mono_ms() < until && !all_answered(spool)) {
				memset(&si, 0, sizeof(si));
				/* the child ended meanwhile: nothing to forward to */
				if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) ==
					0 &&
				    si.si_pid == pid)
					break;
				struct timespec ts = {0, 10 * 1000000L};
				nanosleep(&ts, NULL);
			}
		}
	}
	handshake_done = 1;
	kill(pid, sig);
}

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

/* libcupti for NVTX_INJECTION64_PATH: the one the inject library resolves. */
static void find_cupti(const char *inject, char *out, size_t cap)
{
	out[0] = '\0';
	void *h = dlopen(inject, RTLD_LAZY | RTLD_LOCAL);
	if (h) {
		void *sym = dlsym(h, "cuptiGetVersion");
		Dl_info info;
		if (sym && dladdr(sym, &info) && info.dli_fname) {
			char *real = realpath(info.dli_fname, NULL);
			snprintf(out, cap, "%s", real ? real : info.dli_fname);
			free(real);
		}
		/* keep h loaded: unloading CUPTI is not worth the risk */
	}
	if (out[0])
		return;
	static const char *const dirs[] = {
	    "/usr/local/cuda/targets/x86_64-linux/lib/libcupti.so",
	    "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so",
	    "/usr/local/cuda/lib64/libcupti.so",
	    "/usr/local/cuda/lib/libcupti.so",
	};
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (access(dirs[i], R_OK) == 0) {
			snprintf(out, cap, "%s", dirs[i]);
			return;
		}
}

static int parse(struct record_opts *o, int argc, char **argv)
{
	memset(o, 0, sizeof(*o));
	o->output = "gpuscope.db";
	o->metrics = "nvml";
	o->sample_hz = 10;
	o->launch_skip = o->launch_count = -1;
	o->progress = -1;
	int n = cli_parse(&cli_spec_record, o, argc, argv);
	if (n < 0)
		return cli_exit(n);
	if ((o->kernel_regex || o->launch_skip >= 0 || o->launch_count >= 0) &&
	    strcmp(o->metrics, "kernels") != 0)
		return cli_usage_error(&cli_spec_record,
				       "--kernel-regex, --launch-skip and --launch-count go with "
				       "--metrics kernels");
	if (cli_output_is_stdout(o->output))
		return cli_usage_error(&cli_spec_record, "a database cannot be written to stdout");
	argv[n] = NULL;
	o->cmd = argv;
	return 0;
}

static int64_t real_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static void remove_spool_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d))) {
			if (strncmp(e->d_name, "spool-", 6) != 0 &&
			    strncmp(e->d_name, SPOOL_FLUSHED_PREFIX,
				    strlen(SPOOL_FLUSHED_PREFIX)) != 0 &&
			    strcmp(e->d_name, SPOOL_FLUSH_REQUEST) != 0)
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
static void merge_spools(struct trace *t, const char *dir, struct spool_clock *clock,
			 int *have_clock, int *warnings)
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
			fprintf(stderr, "gpuscope: warning: %s: %s\n", e->d_name, err);
			(*warnings)++;
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
	for (char **a = o->cmd; *a && n + 2 < sizeof(cmd); a++)
		n += (size_t)snprintf(cmd + n, sizeof(cmd) - n, "%s%s", n ? " " : "", *a);
	trace_set_meta(t, "command", cmd);
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	trace_set_meta(t, "host", host);
	char v[64];
	snprintf(v, sizeof(v), "%lld", (long long)start_real);
	trace_set_meta(t, "start_realtime_ns", v);
	trace_set_meta(t, "clock_domain", "cupti");
	trace_set_meta(t, "recorder", "gpuscope record " GPUSCOPE_VERSION);
	t->source = "cupti";
}

static void summary(const struct trace *t, int warnings)
{
	unsigned long long dropped = 0, over = 0;
	for (size_t i = 0; i < t->n_processes; i++) {
		dropped += t->processes[i].dropped_records;
		over += t->processes[i].overhead_ns;
	}
	fprintf(stderr,
		"gpuscope: recorded %zu process(es): %zu kernels, %zu copies, %zu memsets, %zu API "
		"calls, %zu syncs, %zu NVTX ranges, %zu samples; %llu dropped records; overhead "
		"%.1f ms\n",
		t->n_processes, t->n_kernels, t->n_copies, t->n_memsets, t->n_apis, t->n_syncs,
		t->n_ranges, t->n_samples, dropped, over / 1e6);
	for (size_t i = 0; i < t->n_processes; i++) {
		const char *st = trace_str(t, t->processes[i].status_id);
		if (*st)
			fprintf(stderr, "gpuscope: warning: pid %u: %s\n", t->processes[i].pid, st);
	}
	if (dropped)
		fprintf(stderr, "gpuscope: warning: CUPTI dropped %llu records\n", dropped);
	(void)warnings;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o;
	int rc = parse(&o, argc, argv);
	if (rc)
		return rc;
	struct stat st;
	if (!o.force && stat(o.output, &st) == 0 && !trace_db_is_gpuscope(o.output))
		return error_print("'%s' exists and is not a gpuscope database; not overwriting",
				   o.output);

	char self[PATH_MAX], inject[PATH_MAX + 32], cupti[PATH_MAX], spool[PATH_MAX];
	inject[0] = cupti[0] = '\0';
	if (dir_of_self(self, sizeof(self)) == 0) {
		snprintf(inject, sizeof(inject), "%s/libgpuscope-inject.so", self);
		if (access(inject, R_OK) != 0) {
			fprintf(stderr, "gpuscope: warning: '%s' not found; CUDA is not traced\n",
				inject);
			inject[0] = '\0';
		}
	}
	if (inject[0])
		find_cupti(inject, cupti, sizeof(cupti));
	if ((size_t)snprintf(spool, sizeof(spool), "%s.spool-%d", o.output, (int)getpid()) >=
	    sizeof(spool))
		return error_print("output path too long");
	if (mkdir(spool, 0700) < 0)
		return error_print("cannot create '%s': %s", spool, strerror(errno));
	/* the _exit/_Exit shim (src/preload/preload.c), first in LD_PRELOAD;
	 * GPUSCOPE_PRELOAD=0 leaves LD_PRELOAD alone */
	char *preload = NULL;
	const char *pe = getenv(KNOB(PRELOAD));
	if (inject[0] && !(pe && strcmp(pe, "0") == 0)) {
		char shim[PATH_MAX + 32];
		snprintf(shim, sizeof(shim), "%s/libgpuscope-preload.so", self);
		const char *cur = getenv("LD_PRELOAD");
		if (access(shim, R_OK) != 0)
			fprintf(stderr,
				"gpuscope: warning: '%s' not found; a process ending with _exit "
				"loses its records since the last flush\n",
				shim);
		else if (asprintf(&preload, "%s%s%s", shim, cur && *cur ? ":" : "",
				  cur ? cur : "") < 0)
			preload = NULL;
	}

	struct sampler smp;
	int sampling = 0;
	memset(&smp, 0, sizeof(smp));
	if (strcmp(o.metrics, "none") != 0) {
		char err[GS_ERR_LEN];
		if (sampler_start(&smp, o.sample_hz, err) == 0)
			sampling = 1;
		else
			fprintf(stderr, "gpuscope: no GPU sampling: %s\n", err);
	}

	int64_t start_real = real_now();
	int pipefd[2];
	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		rc = error_print("pipe: %s", strerror(errno));
		goto out_spool;
	}
	struct sigaction sa, old[4];
	static const int sigs[4] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = forward;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 4; i++)
		sigaction(sigs[i], &sa, &old[i]);
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		rc = error_print("fork: %s", strerror(errno));
		goto out_signals;
	}
	if (pid == 0) {
		for (int i = 0; i < 4; i++)
			sigaction(sigs[i], &old[i], NULL);
		close(pipefd[0]);
		setenv(KNOB(SPOOL_DIR), spool, 1);
		if (inject[0])
			setenv("CUDA_INJECTION64_PATH", inject, 1);
		if (cupti[0])
			setenv("NVTX_INJECTION64_PATH", cupti, 1);
		if (preload)
			setenv("LD_PRELOAD", preload, 1);
		if (strcmp(o.metrics, "kernels") == 0) {
			setenv(KNOB(METRICS), "kernels", 1);
			if (o.kernel_regex)
				setenv(KNOB(KERNEL_REGEX), o.kernel_regex, 1);
			char v[32];
			if (o.launch_skip >= 0) {
				snprintf(v, sizeof(v), "%lld", o.launch_skip);
				setenv(KNOB(LAUNCH_SKIP), v, 1);
			}
			if (o.launch_count >= 0) {
				snprintf(v, sizeof(v), "%lld", o.launch_count);
				setenv(KNOB(LAUNCH_COUNT), v, 1);
			}
		}
		execvp(o.cmd[0], o.cmd);
		int e = errno;
		if (write(pipefd[1], &e, sizeof(e)) < 0) {
			/* nothing more to say */
		}
		_exit(127);
	}
	child_pid = pid;
	close(pipefd[1]);
	int exec_errno = 0;
	ssize_t got;
	do
		got = read(pipefd[0], &exec_errno, sizeof(exec_errno));
	while (got < 0 && errno == EINTR);
	close(pipefd[0]);
	int status = 0;
	/* polled, not a blocking waitpid: a signal that lands between the
	 * pending_sig check and the wait would otherwise wait for the child */
	for (;;) {
		int sig = pending_sig;
		if (sig) {
			pending_sig = 0;
			flush_then_forward(spool, pid, sig);
		}
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid || (w < 0 && errno != EINTR))
			break;
		struct timespec ts = {0, 10 * 1000000L};
		nanosleep(&ts, NULL);
	}
	child_pid = 0;
	if (got == (ssize_t)sizeof(exec_errno)) {
		rc = error_print("cannot run '%s': %s", o.cmd[0], strerror(exec_errno));
		rc = 127;
		goto out_signals;
	}
	int child_rc = WIFEXITED(status)     ? WEXITSTATUS(status)
		       : WIFSIGNALED(status) ? 128 + WTERMSIG(status)
					     : 1;
	if (sampling)
		sampler_stop(&smp);

	struct trace t;
	trace_init(&t);
	struct spool_clock clock = {0, 0};
	int have_clock = 0, warnings = 0;
	merge_spools(&t, spool, &clock, &have_clock, &warnings);
	/* CUPTI's synchronization records are off by default (inject/api_select.c, kinds):
	 * the sync rows come from the synchronizing API calls */
	if (trace_add_api_syncs(&t) < 0)
		fprintf(stderr, "gpuscope: warning: out of memory deriving sync rows\n");
	if (t.n_processes == 0) {
		struct trace_process *p = trace_add_process(&t);
		if (p) {
			p->pid = (uint32_t)pid;
			p->parent_pid = (uint32_t)getpid();
			p->status_id = trace_intern(&t, NO_CUDA_STATUS);
			p->start_ns = start_real;
			p->end_ns = real_now();
		}
	}
	/* map CLOCK_REALTIME samples onto CUPTI's clock; without a clock pair
	 * (no CUDA) the two are taken as equal */
	long long offset = have_clock ? clock.cupti_ns - clock.real_ns : 0;
	if (sampling && sampler_to_trace(&smp, &t, offset) < 0)
		fprintf(stderr, "gpuscope: warning: out of memory storing samples\n");
	set_meta(&t, &o, start_real);
	trace_sort(&t);
	int64_t replay_ns = 0;
	uint64_t placed = 0, left_out = 0;
	if (trace_remove_replay(&t, &replay_ns, &placed, &left_out) < 0)
		fprintf(stderr, "gpuscope: warning: out of memory removing kernel replay time\n");
	else if (placed || left_out)
		fprintf(
		    stderr,
		    "gpuscope: kernel counters: %llu profiled launches; %.3f s of kernel replay "
		    "taken out of the timeline%s\n",
		    (unsigned long long)placed, (double)replay_ns / 1e9,
		    left_out ? " (kernels without timestamps that were not profiled left out)"
			     : "");
	char err[GS_ERR_LEN];
	if (trace_db_save(o.output, &t, err) < 0) {
		rc = error_print("%s", err);
	} else {
		summary(&t, warnings);
		fprintf(stderr, "gpuscope: wrote '%s'\n", o.output);
		rc = child_rc;
	}
	trace_release(&t);
out_signals:
	for (int i = 0; i < 4; i++)
		sigaction(sigs[i], &old[i], NULL);
out_spool:
	if (sampling)
		sampler_release(&smp);
	remove_spool_dir(spool);
	free(preload);
	return rc;
}
