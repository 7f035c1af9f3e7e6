/*
 * test_record_signals.c - `gpuscope record` while it writes the database
 * (#21 item 3): the first signal only says that a second one abandons the
 * write, the second abandons it at once (exit 128+signal, no output, no
 * spool directory, no temporary file), and a single signal lets the write
 * finish. The program recorded is a stand-in that leaves one large spool
 * file (built here with the writer's own spool_put) in the spool directory,
 * as a traced process would, so that the write takes a while.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "trace/spool.h"

#define N_KERNELS 400000

static char dir[64], big[128];

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* a spool file of N_KERNELS kernels of 20 names, 1 us apart */
static void write_big_spool(const char *path)
{
	size_t cap = 64u << 20, pos = 0;
	char *buf = malloc(cap);
	assert_non_null(buf);
	struct spool_file_header h;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, SPOOL_MAGIC, 8);
	h.version = SPOOL_VERSION;
	h.header_len = sizeof(h);
	h.pid = 4242;
	h.ppid = 1;
	h.cmdline_len = 5;
	h.clock_cupti_ns = 1000;
	h.clock_real_ns = 1000;
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), "prog", 5);
	pos = sizeof(h) + 5;
	for (uint32_t i = 1; i <= 20; i++) {
		char name[32];
		struct spool_string ss = {i};
		snprintf(name, sizeof(name), "kernel_%u", i);
		assert_int_equal(spool_put(buf, cap, &pos, SPOOL_STRING, &ss, sizeof(ss), name,
					   (uint32_t)strlen(name)),
				 0);
	}
	for (uint32_t i = 0; i < N_KERNELS; i++) {
		struct spool_kernel k = {.start = 1000000ull + i * 1000ull,
					 .end = 1000000ull + i * 1000ull + 600,
					 .stream = 7,
					 .correlation = i + 1,
					 .name_id = 1 + i % 20,
					 .grid = {64, 1, 1},
					 .block = {256, 1, 1},
					 .regs = 32};
		assert_int_equal(spool_put(buf, cap, &pos, SPOOL_KERNEL, &k, sizeof(k), NULL, 0),
				 0);
	}
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, pos, f), pos);
	assert_int_equal(fclose(f), 0);
	free(buf);
}

struct run {
	pid_t pid;
	int err; /* read end of record's stderr */
	char text[8192];
	size_t len;
};

/* starts record in its own process group, stderr to a pipe */
static void start(struct run *r, const char *out)
{
	int p[2];
	assert_int_equal(pipe(p), 0);
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "cp '%s' \"$GPUSCOPE_SPOOL_DIR/spool-$$.bin\"", big);
	r->pid = fork();
	assert_true(r->pid >= 0);
	if (r->pid == 0) {
		setpgid(0, 0);
		dup2(p[1], 2);
		close(p[0]);
		close(p[1]);
		execl(GPUSCOPE_BIN, "gpuscope", "record", "--progress", "--metrics", "none", "-o",
		      out, "--", "sh", "-c", cmd, (char *)NULL);
		_exit(126);
	}
	close(p[1]);
	r->err = p[0];
	fcntl(r->err, F_SETFL, O_NONBLOCK);
	r->len = 0;
	r->text[0] = '\0';
}

/* reads stderr until it contains what (or 20 s pass); 1 when it does */
static int wait_for(struct run *r, const char *what)
{
	long long until = now_ms() + 20000;
	while (now_ms() < until) {
		if (strstr(r->text, what))
			return 1;
		ssize_t n = read(r->err, r->text + r->len, sizeof(r->text) - 1 - r->len);
		if (n > 0) {
			r->len += (size_t)n;
			r->text[r->len] = '\0';
			continue;
		}
		if (n == 0)
			return strstr(r->text, what) != NULL;
		struct timespec ts = {0, 2000000};
		nanosleep(&ts, NULL);
	}
	return 0;
}

static int finish(struct run *r)
{
	int st;
	wait_for(r, "\x01never");
	assert_int_equal(waitpid(r->pid, &st, 0), r->pid);
	close(r->err);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1000 + WTERMSIG(st);
}

/* names in dir other than the keep */
static int leftovers(const char *keep)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && strcmp(e->d_name, "big.bin") &&
		    (!keep || strcmp(e->d_name, keep))) {
			fprintf(stderr, "left behind: %s\n", e->d_name);
			n++;
		}
	closedir(d);
	return n;
}

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/gs-recsig-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(big, sizeof(big), "%s/big.bin", dir);
	write_big_spool(big);
	(void)state;
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	(void)state;
	return 0;
}

/* one Ctrl-C to the process group while writing: said, then written */
static void test_one_signal_finishes(void **state)
{
	char out[128];
	struct run r;
	snprintf(out, sizeof(out), "%s/one.db", dir);
	start(&r, out);
	assert_true(wait_for(&r, "reading the recordings"));
	kill(-r.pid, SIGINT);
	assert_true(wait_for(&r, "a second signal abandons it"));
	int rc = finish(&r);
	if (rc != 0)
		fprintf(stderr, "%s", r.text);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(r.text, "400000 kernels"));
	assert_int_equal(access(out, F_OK), 0);
	assert_int_equal(leftovers("one.db"), 0);
	unlink(out);
	(void)state;
}

/* a second signal abandons the write at once and cleans up */
static void test_second_signal_abandons(void **state)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		char out[128];
		struct run r;
		snprintf(out, sizeof(out), "%s/two.db", dir);
		start(&r, out);
		assert_true(wait_for(&r, "reading the recordings"));
		/* Ctrl-C reaches the whole group (the writer too); kill(1) only record */
		kill(sigs[i] == SIGINT ? -r.pid : r.pid, sigs[i]);
		assert_true(wait_for(&r, "a second signal abandons it"));
		long long t0 = now_ms();
		kill(sigs[i] == SIGINT ? -r.pid : r.pid, sigs[i]);
		int rc = finish(&r);
		long long ms = now_ms() - t0;
		if (rc != 128 + sigs[i])
			fprintf(stderr, "%s", r.text);
		assert_int_equal(rc, 128 + sigs[i]);
		assert_true(ms < 1000);
		assert_non_null(strstr(r.text, "was not written"));
		assert_int_equal(access(out, F_OK), -1);
		assert_int_equal(leftovers(NULL), 0);
	}
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_one_signal_finishes),
	    cmocka_unit_test(test_second_signal_abandons),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
