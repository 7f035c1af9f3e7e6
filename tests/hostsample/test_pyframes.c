/*
 * test_pyframes.c - the out-of-process CPython reader on real interpreters:
 * every python3.X found (the system's, and pyenv's 3.6-3.13 where they are
 * installed) runs a known program; its main thread must read back as
 * gamma <- rec <- rec <- rec <- beta <- alpha <- <module>, a second thread as Worker.spin (its
 * qualified name from 3.11 on) with its own OS thread id, and versions
 * before 3.9 and non-Python processes must be refused with their reason.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hostsample/pyframes.h"
#include "util/error.h"

static const char PROG[] =
    "import sys, threading, time\n"
    "class Worker:\n"
    "    def spin(self, ev):\n"
    "        ev.set()\n"
    "        while True:\n"
    "            time.sleep(0.001)\n"
    "def gamma():\n"
    "    print('ready', flush=True)\n"
    "    while True:\n"
    "        pass\n"
    "def rec(n):\n"
    "    gamma() if n == 0 else rec(n - 1)\n"
    "def beta():\n"
    "    rec(2)\n"
    "def alpha():\n"
    "    beta()\n"
    "ev = threading.Event()\n"
    "threading.Thread(target=Worker().spin, args=(ev,), daemon=True).start()\n"
    "ev.wait()\n"
    "alpha()\n";

static int out_fd = -1; /* the program's stdout, open until stop() */
static pid_t running;	/* killed at exit should an assertion end the test early */

static void kill_running(void)
{
	if (running > 0)
		kill(running, SIGKILL);
}

static int teardown(void **state)
{
	(void)state;
	kill_running();
	return 0;
}

/* Starts python -c PROG and waits for its "ready" line; 0 on failure. */
static pid_t start_python(const char *python)
{
	int fd[2];
	if (pipe(fd) < 0)
		return 0;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execl(python, python, "-c", PROG, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	char buf[16] = "";
	ssize_t n = read(fd[0], buf, sizeof(buf) - 1);
	out_fd = fd[0];
	if (n < 5 || strncmp(buf, "ready", 5) != 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return 0;
	}
	running = pid;
	return pid;
}

static void stop(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	running = 0;
	if (out_fd >= 0)
		close(out_fd);
	out_fd = -1;
}

static unsigned version_of(const char *python)
{
	char cmd[4200];
	snprintf(cmd, sizeof(cmd),
		 "%s -c 'import sys; print(sys.version_info[0] * 256 + sys.version_info[1])'",
		 python);
	FILE *p = popen(cmd, "r");
	unsigned v = 0;
	if (p) {
		if (fscanf(p, "%u", &v) != 1)
			v = 0;
		pclose(p);
	}
	return v;
}

/* every interpreter to try, deduplicated by version */
static int pythons(char out[][4096], int cap)
{
	int n = 0;
	unsigned seen[32];
	int n_seen = 0;
	glob_t g;
	const char *pats[] = {"/usr/bin/python3.[0-9]*", "/usr/local/bin/python3.[0-9]*",
			      "/root/.pyenv/versions/3.*/bin/python3.[0-9]*"};
	for (size_t p = 0; p < sizeof(pats) / sizeof(pats[0]); p++) {
		if (glob(pats[p], 0, NULL, &g) != 0)
			continue;
		for (size_t i = 0; i < g.gl_pathc && n < cap; i++) {
			const char *path = g.gl_pathv[i];
			if (strchr(strrchr(path, '/'), '-') || strchr(strrchr(path, '/'), 'm') ||
			    access(path, X_OK) != 0)
				continue;
			unsigned v = version_of(path);
			int dup = 0;
			for (int k = 0; k < n_seen; k++)
				dup |= seen[k] == v;
			if (!v || dup || n_seen >= 32)
				continue;
			seen[n_seen++] = v;
			snprintf(out[n++], 4096, "%s", path);
		}
		globfree(&g);
	}
	return n;
}

static const char *name_of(struct py_reader *r, uint64_t code)
{
	struct py_code_info ci;
	assert_int_equal(py_reader_code(r, code, &ci), 0);
	return ci.name;
}

static void check_one(const char *python)
{
	unsigned v = version_of(python);
	pid_t pid = start_python(python);
	assert_true(pid > 0);
	struct py_reader r;
	char err[GS_ERR_LEN] = "";
	int rc = py_reader_open(&r, pid, err);
	if (v < 0x0309) {
		/* 3.6 has no _PyRuntime; 3.7 and 3.8 are named as unsupported */
		assert_int_equal(rc, -1);
		assert_true(strstr(err, "not supported") || strstr(err, "not a CPython"));
		print_message("  %s (%u.%u): refused: %s\n", python, v >> 8, v & 0xff, err);
		stop(pid);
		return;
	}
	if (rc != 0)
		fail_msg("%s: %s", python, err);
	assert_int_equal(r.off.version, v);
	int good = 0;
	for (int s = 0; s < 50; s++) {
		struct py_thread_stack st[8];
		int n = py_reader_sample(&r, st, 8);
		if (n == -2)
			continue; /* torn while the worker thread moved: allowed, counted */
		assert_int_equal(n, 2);
		const struct py_thread_stack *m = st[0].is_main ? &st[0] : &st[1];
		const struct py_thread_stack *w = st[0].is_main ? &st[1] : &st[0];
		assert_true(m->is_main && !w->is_main);
		assert_int_equal(m->tid, (uint32_t)pid);
		/* rec's code object three times on the stack: its head is read
		 * once (heads_read), every frame still gets it */
		static const char *const want[] = {"gamma", "rec",   "rec",	"rec",
						   "beta",  "alpha", "<module>"};
		assert_int_equal(m->n, 7);
		for (int k = 0; k < 7; k++)
			assert_string_equal(name_of(&r, m->code[k]), want[k]);
		assert_true(m->code[1] == m->code[2] && m->code[2] == m->code[3]);
		struct py_code_info ci;
		assert_int_equal(py_reader_code(&r, m->code[0], &ci), 0);
		assert_string_equal(ci.file, "<string>");
		assert_int_equal(ci.first_line, 7);
		/* the worker: Worker.spin innermost, threading's frames below */
		assert_true(w->n >= 2);
		assert_string_equal(name_of(&r, w->code[0]), v >= 0x030b ? "Worker.spin" : "spin");
		if (v >= 0x030b) {
			char task[64];
			assert_true(w->tid != 0 && w->tid != (uint32_t)pid);
			snprintf(task, sizeof(task), "/proc/%d/task/%u", (int)pid, w->tid);
			assert_int_equal(access(task, F_OK), 0);
		}
		good++;
	}
	assert_true(good >= 40);
	/* the stacks did not move: from the second sample on, the reads of
	 * the one before come back in one call (pyframes.c "prefetch") and
	 * serve the sample, which the names above checked */
	if (r.pf_buf) { /* not with GPUSCOPE_PYREAD_BATCH=0 */
		assert_true(r.stats.prefetched >= 40);
		assert_true(r.stats.reads < 5 * r.stats.samples);
	}
	print_message("  %s (%u.%u): %d/50 samples, %llu torn, %.1f us/sample, %.1f reads/sample, "
		      "%s\n",
		      python, v >> 8, v & 0xff, good, (unsigned long long)r.stats.torn,
		      r.stats.ns / 1e3 / (double)r.stats.samples,
		      (double)r.stats.reads / (double)r.stats.samples, r.elf);
	py_reader_close(&r);
	stop(pid);
	/* gone: an error, not a crash or a stale stack */
	struct py_thread_stack st[2];
	assert_true(py_reader_sample(&r, st, 2) == -1);
}

static void test_interpreters(void **state)
{
	(void)state;
	static char found[16][4096];
	int n = pythons(found, 16);
	int tested = 0;
	for (int i = 0; i < n; i++) {
		check_one(found[i]);
		tested += version_of(found[i]) >= 0x0309;
	}
	if (!tested)
		skip(); /* no python3 on this machine: nothing to read */
}

static void test_not_python(void **state)
{
	(void)state;
	pid_t pid = fork();
	if (pid == 0) {
		execl("/bin/sleep", "sleep", "30", (char *)NULL);
		_exit(127);
	}
	usleep(50000);
	struct py_reader r;
	char err[GS_ERR_LEN] = "";
	assert_int_equal(py_reader_open(&r, pid, err), -1);
	assert_non_null(strstr(err, "not a CPython process"));
	stop(pid);
	assert_int_equal(py_reader_open(&r, pid, err), -1);
	assert_non_null(strstr(err, "cannot read /proc"));
}

static void test_version_from_path(void **state)
{
	(void)state;
	assert_int_equal(py_version_from_path("/usr/lib/x86_64-linux-gnu/libpython3.12.so.1.0"),
			 0x030c);
	assert_int_equal(py_version_from_path("/usr/bin/python3.9"), 0x0309);
	assert_int_equal(py_version_from_path("/opt/bin/python3.13t"), 0x030d);
	assert_int_equal(py_version_from_path("/usr/bin/python3"), 0);
	assert_int_equal(py_version_from_path("/usr/bin/python2.7"), 0);
	assert_int_equal(py_version_from_path("/usr/lib/libpythonista.so"), 0);
	assert_non_null(py_offsets_for(0x0309));
	assert_non_null(py_offsets_for(0x030d));
	assert_null(py_offsets_for(0x0308));
	assert_null(py_offsets_for(0x030e));
}

/* The batched frame reads (py_block_read) on this process's own memory: a
 * frame inside a block comes from the block; a pointer from a torn frame
 * is refused before any arithmetic on it. On the H200 a back pointer near
 * 2^64 passed the block bounds (addr + n wrapped) and the memcpy from
 * blocks + (addr - base) crashed record's launcher (issue 17, hf_decode
 * and torchrun every run). */
static void test_block_read_bounds(void **state)
{
	(void)state;
	static unsigned char stack[3 * 8192] __attribute__((aligned(4096)));
	for (size_t i = 0; i < sizeof(stack); i++)
		stack[i] = (unsigned char)(i * 7);
	struct py_reader r;
	memset(&r, 0, sizeof(r));
	r.pid = getpid();
	r.blocks = malloc(4 * 8192);
	assert_non_null(r.blocks);
	unsigned char buf[64];
	uint64_t frame = (uint64_t)(uintptr_t)(stack + 2 * 8192 + 100);
	assert_int_equal(py_block_read(&r, frame, buf, sizeof(buf)), 0);
	assert_memory_equal(buf, stack + 2 * 8192 + 100, sizeof(buf));
	uint64_t reads = r.stats.reads;
	/* the next frame below, from the same block: no new read */
	assert_int_equal(py_block_read(&r, frame - 1000, buf, sizeof(buf)), 0);
	assert_memory_equal(buf, stack + 2 * 8192 + 100 - 1000, sizeof(buf));
	assert_int_equal(r.stats.reads, reads);
	/* torn pointers: refused, counted, no crash */
	static const uint64_t bad[] = {
	    0xffffffffffffffc0ull, /* addr + 64 wraps to 0 */
	    0xffffffb8f756827full, /* the H200's */
	    0x00ffffffffffffe0ull, /* past user space */
	    0,
	    8,
	    4095,
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t errors = r.stats.read_errors;
		assert_int_equal(py_block_read(&r, bad[i], buf, sizeof(buf)), -1);
		assert_true(r.stats.read_errors > errors);
	}
	/* more than a block at once */
	assert_int_equal(py_block_read(&r, frame, r.blocks, 8193), -1);
	free(r.blocks);
}

int main(void)
{
	atexit(kill_running);
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_version_from_path),
	    cmocka_unit_test(test_block_read_bounds),
	    cmocka_unit_test_teardown(test_not_python, teardown),
	    cmocka_unit_test_teardown(test_interpreters, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
