/*
 * test_hostsampler.c - record's host sampler end to end on a real Python
 * program: it waits at an exec gate as under record, runs gamma <- beta <-
 * alpha for about a second, and its samples must come back as host_samples
 * rows whose stacks walk to those functions, survive the database round
 * trip, and carry a host_sampling row. The program is a file, as users run
 * them: its functions are compiled after the start-up imports freed their
 * <module> code objects, at the same addresses (a reader that trusted
 * addresses named gamma "<module>"). Under a seccomp filter that refuses
 * perf_event_open and process_vm_readv (what docker's default profile
 * does) the program must run to its normal end and the row must say why
 * sampling is off (#17.6).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hostsample/hostdata.h"
#include "hostsample/hostsampler.h"
#include "trace/trace_db.h"
#include "util/error.h"

static const char PROG[] = "import time\n"
			   "def gamma(end):\n"
			   "    while time.time() < end:\n"
			   "        for _ in range(20000):\n"
			   "            pass\n"
			   "def beta(end):\n"
			   "    gamma(end)\n"
			   "def alpha():\n"
			   "    beta(time.time() + 1.0)\n"
			   "alpha()\n";

/* a main thread that mostly sleeps, a thread that spins in Python (it
 * holds the GIL and a CPU), and one that waits on an event all along */
static const char THREADS_PROG[] = "import threading, time\n"
				   "stop = threading.Event()\n"
				   "def hog():\n"
				   "    while not stop.is_set():\n"
				   "        for _ in range(20000):\n"
				   "            pass\n"
				   "def idle():\n"
				   "    stop.wait()\n"
				   "a = threading.Thread(target=hog)\n"
				   "b = threading.Thread(target=idle)\n"
				   "a.start(); b.start()\n"
				   "end = time.time() + 1.0\n"
				   "while time.time() < end:\n"
				   "    time.sleep(0.01)\n"
				   "stop.set(); a.join(); b.join()\n";

/* a process tree: the program starts a second Python process that spins
 * in child_spin while it spins in gamma */
static const char TREE_PROG[] = "import subprocess, sys, time\n"
				"c = subprocess.Popen(['/usr/bin/python3', '-c', 'import time\\n'\n"
				"    'def child_spin(end):\\n'\n"
				"    '    while time.time() < end:\\n'\n"
				"    '        pass\\n'\n"
				"    'child_spin(time.time() + 0.8)\\n'])\n"
				"def gamma(end):\n"
				"    while time.time() < end:\n"
				"        pass\n"
				"gamma(time.time() + 0.8)\n"
				"c.wait()\n";

/* a forked worker that never execs (as a DataLoader worker): both
 * processes spin in Python */
static const char FORK_PROG[] = "import os, time\n"
				"def spin(end):\n"
				"    while time.time() < end:\n"
				"        pass\n"
				"pid = os.fork()\n"
				"if pid == 0:\n"
				"    spin(time.time() + 0.8)\n"
				"    os._exit(0)\n"
				"spin(time.time() + 0.8)\n"
				"os.waitpid(pid, 0)\n";

static const char *prog_text = PROG;
static int system_wide; /* sample_run's sampler used per-CPU events of every task */
static pid_t last_pid;	/* the program sample_run started */
static int sched_ms;	/* the sampler's option in sample_run */

static const char *python(void)
{
	return access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : NULL;
}

static char prog_path[64];

/* forks python PROG-FILE stopped at a gate; *gate is the write end */
static pid_t spawn(int *gate)
{
	int fd[2];
	snprintf(prog_path, sizeof(prog_path), "/tmp/gpuscope-hs-%d.py", (int)getpid());
	FILE *f = fopen(prog_path, "w");
	if (!f || fputs(prog_text, f) < 0 || fclose(f) != 0 || pipe(fd) < 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		char c;
		close(fd[1]);
		if (read(fd[0], &c, 1) != 1)
			_exit(126);
		execl(python(), "python3", prog_path, (char *)NULL);
		_exit(127);
	}
	close(fd[0]);
	*gate = fd[1];
	return pid;
}

/* runs the program under the sampler into t; returns its exit status */
static int sample_run(struct trace *t, int use_perf, int *perf_on)
{
	int gate;
	pid_t pid = spawn(&gate);
	if (pid < 0)
		return -1;
	struct host_sampler *s;
	char err[GS_ERR_LEN];
	struct host_sampler_opts o = {
	    .hz = 500, .use_perf = use_perf, .use_pyread = 1, .sched_ms = sched_ms};
	if (host_sampler_start(&s, pid, &o, err) < 0)
		return -1;
	*perf_on = host_sampler_perf_on(s);
	last_pid = pid;
	system_wide = host_sampler_perf_system_wide(s);
	if (write(gate, "g", 1) != 1)
		return -1;
	close(gate);
	int status = 0;
	waitpid(pid, &status, 0);
	unlink(prog_path);
	host_sampler_stop(s);
	trace_init(t);
	long n = host_sampler_to_trace(s, t, 0);
	host_sampler_free(s);
	if (n < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static const char *fname(const struct trace *t, uint32_t f)
{
	const struct trace_host_frame *r = host_frame_row(t, f);
	return r ? trace_str(t, r->name_id) : "";
}

/* samples whose stack holds gamma <- beta <- alpha, innermost Python first */
static size_t count_chain(const struct trace *t, int source, int *native_below)
{
	size_t hits = 0;
	for (size_t i = 0; i < t->n_host_samples; i++) {
		const struct trace_host_sample *x = &t->host_samples[i];
		if (x->source != source)
			continue;
		uint32_t fr[256];
		size_t n = host_stack_frames(t, x->stack_id, fr, 256);
		for (size_t k = 0; k + 2 < n; k++) {
			const struct trace_host_frame *a = host_frame_row(t, fr[k]);
			if (a && a->kind == HOST_FRAME_PYTHON &&
			    strcmp(fname(t, fr[k]), "gamma") == 0 &&
			    strcmp(fname(t, fr[k + 1]), "beta") == 0 &&
			    strcmp(fname(t, fr[k + 2]), "alpha") == 0) {
				hits++;
				break;
			}
		}
		/* the leaf in a mapped file (the interpreter, libc), its module known */
		if (native_below && n && host_frame_row(t, fr[0])->kind == HOST_FRAME_NATIVE &&
		    trace_str(t, host_frame_row(t, fr[0])->module_id)[0] == '/')
			(*native_below)++;
	}
	return hits;
}

/* perf samples whose stack has an interpreter frame (its module the
 * python executable or libpython) anywhere but outermost: record cuts a
 * chain at its innermost interpreter frame where the reader sampled the
 * process (hostsampler.h invariant 4) */
static size_t interp_not_outermost(const struct trace *t, size_t *with_interp)
{
	size_t bad = 0;
	*with_interp = 0;
	for (size_t i = 0; i < t->n_host_samples; i++) {
		const struct trace_host_sample *x = &t->host_samples[i];
		if (x->source != HOST_SRC_PERF)
			continue;
		uint32_t fr[256];
		size_t n = host_stack_frames(t, x->stack_id, fr, 256), seen = 0;
		for (size_t k = 0; k < n; k++) {
			const char *m = trace_str(t, host_frame_row(t, fr[k])->module_id);
			const char *b = strrchr(m, '/');
			b = b ? b + 1 : m;
			if (strncmp(b, "python3", 7) == 0 || strncmp(b, "libpython3", 10) == 0) {
				seen++;
				bad += k + 1 != n;
			}
		}
		*with_interp += seen > 0;
	}
	return bad;
}

static void test_python_program(void **state)
{
	(void)state;
	if (!python())
		skip();
	struct trace t;
	int perf_on = 0;
	assert_int_equal(sample_run(&t, 1, &perf_on), 0);
	size_t py = 0, perf = 0;
	for (size_t i = 0; i < t.n_host_samples; i++) {
		py += t.host_samples[i].source == HOST_SRC_PYREAD;
		perf += t.host_samples[i].source == HOST_SRC_PERF;
		assert_int_equal(t.host_samples[i].tid, t.host_samples[i].pid); /* main thread */
	}
	int native = 0;
	size_t chain = count_chain(&t, HOST_SRC_PYREAD, NULL);
	count_chain(&t, HOST_SRC_PERF, &native);
	print_message(
	    "  %zu pyread samples (%zu in gamma<-beta<-alpha), %zu perf samples (%d with a native "
	    "leaf in a file), %zu frames, %zu stack nodes\n",
	    py, chain, perf, native, t.n_host_frames, t.n_host_stacks);
	/* ~1 s at 500 Hz, most of it in gamma; the rate itself is the bench's
	 * business (2 shared cores here: the sampler may get half a core) */
	assert_true(py >= 100);
	assert_true(chain >= py * 7 / 10);
	if (perf_on) {
		assert_true(perf >= 50);
		assert_true(native >= (int)perf * 9 / 10);
		size_t with_interp, bad = interp_not_outermost(&t, &with_interp);
		print_message("  %zu perf samples with an interpreter frame, %zu not outermost\n",
			      with_interp, bad);
		assert_true(with_interp > 0);
		assert_int_equal(bad, 0);
	}
	assert_int_equal(t.n_host_sampling, 1);
	const struct trace_host_sampling *h = &t.host_sampling[0];
	assert_string_equal(trace_str(&t, h->mechanism_id), perf_on ? "perf+pyread" : "pyread");
	assert_string_equal(trace_str(&t, h->status_id),
			    perf_on ? "" : trace_str(&t, h->status_id));
	assert_int_equal(h->samples, t.n_host_samples);
	assert_true(h->hz == 500);

	/* the database keeps it all (schema v2) */
	char path[128], err[GS_ERR_LEN];
	snprintf(path, sizeof(path), "/tmp/gpuscope-hostsampler-%d.db", (int)getpid());
	struct trace_process *p = trace_add_process(&t);
	p->pid = t.host_samples[0].pid;
	assert_int_equal(trace_db_save(path, &t, err), 0);
	struct trace u;
	assert_int_equal(trace_db_load(&u, path, err), 0);
	unlink(path);
	assert_int_equal(u.n_host_samples, t.n_host_samples);
	assert_int_equal(u.n_host_frames, t.n_host_frames);
	assert_int_equal(u.n_host_stacks, t.n_host_stacks);
	assert_int_equal(count_chain(&u, HOST_SRC_PYREAD, NULL), chain);
	assert_string_equal(host_sampling_status(&u, p->pid), trace_str(&t, h->status_id));
	assert_null(host_sampling_status(&u, 1));
	trace_release(&u);
	trace_release(&t);
}

/* issue 36 item 4: the threads' scheduler statistics while the program
 * runs (host_sched rows), and the samples of a thread that made no CUDA
 * call kept because it was busy (hostsampler.h invariant 3), those of one
 * that waited all along not */
static void test_threads_sched(void **state)
{
	(void)state;
	if (!python())
		skip();
	struct trace t;
	int perf_on = 0;
	prog_text = THREADS_PROG;
	sched_ms = 10;
	int rc = sample_run(&t, 1, &perf_on);
	prog_text = PROG;
	sched_ms = 0;
	assert_int_equal(rc, 0);
	assert_true(t.n_host_sched > 0);
	uint32_t pid = t.host_sched[0].pid;
	/* per thread: its CPU time over the run, from its rows */
	struct {
		uint32_t tid;
		uint64_t cpu0, cpu1, rows;
	} th[16];
	size_t n = 0;
	for (size_t i = 0; i < t.n_host_sched; i++) {
		const struct trace_host_sched *h = &t.host_sched[i];
		assert_int_equal(h->pid, pid);
		size_t k;
		for (k = 0; k < n && th[k].tid != h->tid; k++)
			;
		if (k == n) {
			assert_true(n < 16);
			th[n].tid = h->tid;
			th[n].cpu0 = h->cpu_ns;
			th[n].rows = 0;
			n++;
		}
		assert_true(h->cpu_ns >= th[k].cpu0); /* cumulative */
		th[k].cpu1 = h->cpu_ns;
		th[k].rows++;
	}
	/* the hog: the other thread longest on a CPU (most of the second on an
	 * idle machine, less on 2 shared cores), a row nearly every read; the
	 * event waiter: a row or two (rows only when the values change) */
	size_t hog = n, waiter = n;
	for (size_t k = 0; k < n; k++) {
		print_message("  thread %u: %.0f ms on a CPU, %llu rows\n", th[k].tid,
			      (double)(th[k].cpu1 - th[k].cpu0) / 1e6,
			      (unsigned long long)th[k].rows);
		if (th[k].tid == pid)
			continue;
		if (th[k].rows <= 3)
			waiter = k;
		else if (hog == n || th[k].cpu1 - th[k].cpu0 > th[hog].cpu1 - th[hog].cpu0)
			hog = k;
	}
	assert_true(hog < n);
	assert_true(waiter < n);
	assert_true(th[hog].rows >= 20);
	/* busy enough to be kept: 10% of the second (hostsampler.h) */
	assert_true(th[hog].cpu1 - th[hog].cpu0 >= 100000000ull);
	size_t hog_samples = 0, waiter_samples = 0;
	for (size_t i = 0; i < t.n_host_samples; i++) {
		hog_samples += t.host_samples[i].tid == th[hog].tid;
		waiter_samples += t.host_samples[i].tid == th[waiter].tid;
	}
	print_message("  %zu samples of the hog kept, %zu of the waiter\n", hog_samples,
		      waiter_samples);
	assert_true(hog_samples >= 100);
	assert_int_equal(waiter_samples, 0);
	const char *cpus = trace_get_meta(&t, "host_cpus");
	assert_non_null(cpus);
	assert_true(atoi(cpus) >= 1);
	assert_non_null(trace_get_meta(&t, "host_cpus_online"));
	trace_release(&t);
}

/* runs prog under the sampler into t with GPUSCOPE_HOST_PERF_SCOPE=scope
 * (NULL: the default); skips where perf events are refused */
static void scoped_run(struct trace *t, const char *prog, const char *scope)
{
	if (scope)
		setenv("GPUSCOPE_HOST_PERF_SCOPE", scope, 1);
	int perf_on = 0;
	prog_text = prog;
	int rc = sample_run(t, 1, &perf_on);
	prog_text = PROG;
	unsetenv("GPUSCOPE_HOST_PERF_SCOPE");
	assert_int_equal(rc, 0);
	if (!perf_on) {
		trace_release(t);
		skip();
	}
	if (scope)
		assert_int_equal(system_wide, 0);
}

/* a sample's innermost frame resolved: in a mapped file or the vdso */
static int leaf_resolved(const struct trace *t, uint32_t stack)
{
	uint32_t fr[256];
	size_t n = host_stack_frames(t, stack, fr, 256);
	const char *m = n ? trace_str(t, host_frame_row(t, fr[0])->module_id) : "";
	return m[0] == '/' || strcmp(m, "[vdso]") == 0;
}

/* Only the program's processes are sampled, its children included, in
 * both of perf's scopes: a busy process beside it (forked by the test, not
 * by the program) gives no sample; the program's child gives perf samples
 * whose innermost frames resolve in its mappings (its exec's MMAP2
 * records were kept although they may come in a ring drained before the
 * one that holds the FORK naming it). */
static void tree_run(const char *scope)
{
	if (!python())
		skip();
	pid_t busy = fork();
	if (busy == 0) {
		struct timespec a, b;
		clock_gettime(CLOCK_MONOTONIC, &a);
		do {
			for (volatile int i = 0; i < 100000; i++)
				;
			clock_gettime(CLOCK_MONOTONIC, &b);
		} while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) <
			 1500000000L);
		_exit(0);
	}
	assert_true(busy > 0);
	struct trace t;
	scoped_run(&t, TREE_PROG, scope);
	kill(busy, SIGKILL);
	waitpid(busy, NULL, 0);
	uint32_t root = (uint32_t)last_pid;
	/* the program's other processes: the one with the most perf samples
	 * is the child (a fork that has not exec'd yet has no mappings of its
	 * own: its few samples do not resolve, in either scope) */
	struct {
		uint32_t pid;
		size_t n, resolved;
	} pp[64];
	size_t n_pp = 0, of_busy = 0, of_root = 0;
	for (size_t i = 0; i < t.n_host_samples; i++) {
		const struct trace_host_sample *x = &t.host_samples[i];
		if (x->pid == (uint32_t)busy) {
			of_busy++;
			continue;
		}
		if (x->source != HOST_SRC_PERF)
			continue;
		if (x->pid == root) {
			of_root++;
			continue;
		}
		size_t k;
		for (k = 0; k < n_pp && pp[k].pid != x->pid; k++)
			;
		if (k == n_pp) {
			if (n_pp == 64)
				continue;
			pp[n_pp++] = (typeof(pp[0])){x->pid, 0, 0};
		}
		pp[k].n++;
		pp[k].resolved += leaf_resolved(&t, x->stack_id);
	}
	size_t c = 0, others = 0;
	for (size_t k = 1; k < n_pp; k++)
		if (pp[k].n > pp[c].n)
			c = k;
	for (size_t k = 0; k < n_pp; k++)
		others += k != c ? pp[k].n : 0;
	size_t of_child = n_pp ? pp[c].n : 0, child_resolved = n_pp ? pp[c].resolved : 0;
	print_message("  %s: perf samples: %zu of the program, %zu of its child %u (%zu with the "
		      "innermost frame in a file or the vdso), %zu of %zu other processes of the "
		      "program, %zu of the process beside it\n",
		      system_wide ? "every task per CPU" : "per task", of_root, of_child,
		      n_pp ? pp[c].pid : 0, child_resolved, others, n_pp ? n_pp - 1 : 0, of_busy);
	assert_int_equal(of_busy, 0);
	assert_true(of_root >= 50);
	assert_true(of_child >= 50);
	/* most resolve (about 3 in 4 here in both scopes; the rest do not in
	 * per-task sampling either): with its mappings dropped none would */
	assert_true(child_resolved >= of_child / 2);
	trace_release(&t);
}

static void test_tree(void **state)
{
	(void)state;
	tree_run(NULL);
}

static void test_tree_task(void **state)
{
	(void)state;
	tree_run("task");
}

/* A forked process that never execs has no mapping records of its own:
 * its perf frames resolve in its parent's mappings (symbolizer_fork), as
 * well as the parent's own do, in both scopes (none did before). */
static void fork_run(const char *scope)
{
	if (!python())
		skip();
	struct trace t;
	scoped_run(&t, FORK_PROG, scope);
	uint32_t root = (uint32_t)last_pid, child = 0;
	size_t n[2] = {0, 0}, resolved[2] = {0, 0};
	for (size_t i = 0; i < t.n_host_samples; i++) {
		const struct trace_host_sample *x = &t.host_samples[i];
		if (x->source != HOST_SRC_PERF)
			continue;
		int c = x->pid != root;
		if (c && !child)
			child = x->pid;
		if (c && x->pid != child)
			continue;
		n[c]++;
		resolved[c] += leaf_resolved(&t, x->stack_id);
	}
	print_message(
	    "  %s: perf samples resolved in a file or the vdso: the program %zu of %zu, its forked "
	    "child %u %zu of %zu\n",
	    system_wide ? "every task per CPU" : "per task", resolved[0], n[0], child, resolved[1],
	    n[1]);
	assert_true(n[0] >= 50);
	assert_true(n[1] >= 50);
	/* most resolve, as the program's do (about 3 in 4 here; a leaf in
	 * anonymous memory does not): without its parent's mappings none
	 * would. Half or more each, as tree_run asks: the two shares differ
	 * by up to 0.10 from run to run on a correct build under load (0.818
	 * against 0.718 in CI, 2026-12-08; 0.798 against 0.695 on the build
	 * machine), more than their sampling error, so comparing them flaked
	 * while telling nothing a broken build would not fail by far */
	double own = (double)resolved[0] / (double)n[0],
	       forked = (double)resolved[1] / (double)n[1];
	assert_true(own >= 0.5);
	assert_true(forked >= 0.5);
	trace_release(&t);
}

static void test_fork(void **state)
{
	(void)state;
	fork_run(NULL);
}

static void test_fork_task(void **state)
{
	(void)state;
	fork_run("task");
}

/* EACCES for perf_event_open and process_vm_readv, as a container would */
static int refuse_syscalls(void)
{
	struct sock_filter f[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_perf_event_open, 2, 0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_process_vm_readv, 1, 0),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA)),
	};
	struct sock_fprog prog = {sizeof(f) / sizeof(f[0]), f};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

static void test_refused(void **state)
{
	(void)state;
	if (!python())
		skip();
	pid_t helper = fork();
	if (helper == 0) {
		/* everything below runs under the filter; exit code = verdict */
		if (refuse_syscalls() < 0)
			_exit(77);
		struct trace t;
		int perf_on = 1;
		int rc = sample_run(&t, 1, &perf_on);
		if (rc != 0)
			_exit(10); /* the program did not run as before */
		if (perf_on || t.n_host_samples != 0 || t.n_host_sampling != 1)
			_exit(11);
		const char *st = trace_str(&t, t.host_sampling[0].status_id);
		fprintf(stderr, "  status: %s\n", st);
		if (!strstr(st, "perf events: perf_event_open refused (EACCES)"))
			_exit(12);
		if (!strstr(st, "Python frames: process_vm_readv refused (EACCES)"))
			_exit(13);
		if (strcmp(trace_str(&t, t.host_sampling[0].mechanism_id), "") != 0)
			_exit(14);
		trace_release(&t);
		_exit(0);
	}
	int status;
	assert_int_equal(waitpid(helper, &status, 0), helper);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		skip(); /* no seccomp here */
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_intern(void **state)
{
	(void)state;
	struct trace t;
	trace_init(&t);
	struct host_intern h;
	assert_int_equal(host_intern_init(&h, &t), 0);
	uint32_t a = host_frame(&h, HOST_FRAME_PYTHON, "step", "", "train.py", 10);
	uint32_t b = host_frame(&h, HOST_FRAME_PYTHON, "main", "", "train.py", 1);
	uint32_t c = host_frame(&h, HOST_FRAME_NATIVE, "memcpy", "/lib/libc.so.6", NULL, 0);
	assert_int_equal(host_frame(&h, HOST_FRAME_PYTHON, "step", "", "train.py", 10), a);
	assert_int_not_equal(host_frame(&h, HOST_FRAME_PYTHON, "step", "", "train.py", 11), a);
	uint32_t s1[] = {c, a, b}, s2[] = {a, b}, s3[] = {c, b};
	uint32_t x = host_stack(&h, s1, 3), y = host_stack(&h, s2, 2), z = host_stack(&h, s3, 2);
	assert_int_equal(host_stack(&h, s1, 3), x);
	assert_int_equal(host_stack(&h, NULL, 0), 0);
	/* main, main<-step, main<-step<-memcpy, main<-memcpy: 4 nodes */
	assert_int_equal(t.n_host_stacks, 4);
	uint32_t out[8];
	assert_int_equal(host_stack_frames(&t, x, out, 8), 3);
	assert_int_equal(out[0], c);
	assert_int_equal(out[2], b);
	assert_int_equal(host_stack_frames(&t, y, out, 8), 2);
	assert_int_equal(host_stack_frames(&t, z, out, 1), 1);
	assert_int_equal(host_stack_frames(&t, 99, out, 8), 0);
	/* a broken link (a cycle in a hostile file) ends the walk */
	t.host_stacks[0].parent_id = 3;
	assert_true(host_stack_frames(&t, 3, out, 8) <= 3);
	host_intern_release(&h);
	/* frameworks for report */
	struct trace_framework *f = trace_add_framework(&t);
	*f = (struct trace_framework){42, trace_intern(&t, "PyTorch"), trace_intern(&t, "2.11.0"),
				      trace_intern(&t, "dist-info"), 0};
	assert_string_equal(host_framework_version(&t, 42, "PyTorch"), "2.11.0");
	assert_string_equal(host_framework_version(&t, 0, "PyTorch"), "2.11.0");
	assert_null(host_framework_version(&t, 7, "PyTorch"));
	assert_null(host_framework_version(&t, 0, "JAX/XLA"));
	trace_release(&t);
}

static void test_v1_file(void **state)
{
	(void)state;
	/* a committed schema v1 recording: read, with no host rows */
	struct trace t;
	char err[GS_ERR_LEN];
	assert_int_equal(
	    trace_db_load(&t, FIXTURES_DIR "/../../examples/tiny-kernel-storm.db", err), 0);
	assert_string_equal(trace_get_meta(&t, "schema_version"), "1");
	assert_true(t.n_kernels > 0);
	assert_int_equal(t.n_host_samples + t.n_host_frames + t.n_frameworks, 0);
	trace_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_intern),	   cmocka_unit_test(test_v1_file),
	    cmocka_unit_test(test_python_program), cmocka_unit_test(test_threads_sched),
	    cmocka_unit_test(test_refused),	   cmocka_unit_test(test_tree),
	    cmocka_unit_test(test_tree_task),	   cmocka_unit_test(test_fork),
	    cmocka_unit_test(test_fork_task),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
