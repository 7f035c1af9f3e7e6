/*
 * test_schedstat.c - the threads' scheduler statistics record reads
 * (hostsample/schedstat.h, issue 36 item 4): the kernel's line parsed, and
 * on this process's own threads: three spinning threads held to one CPU
 * each wait on its run queue most of the time (an oversubscribed CPU),
 * a sleeping thread neither runs nor waits and costs no rows, and what a
 * read costs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "hostsample/schedstat.h"

static void test_parse(void **state)
{
	(void)state;
	uint64_t c, w, n;
	assert_int_equal(sched_parse("123 456 7\n", &c, &w, &n), 0);
	assert_true(c == 123 && w == 456 && n == 7);
	assert_int_equal(sched_parse("18446744073709551615 0 0\n", &c, &w, &n), 0);
	assert_true(c == UINT64_MAX);
	assert_int_equal(sched_parse("123 456\n", &c, &w, &n), -1);
	assert_int_equal(sched_parse("123 456 7", &c, &w, &n), -1); /* cut short */
	assert_int_equal(sched_parse("a b c\n", &c, &w, &n), -1);
}

static volatile int stop;
static pid_t tids[4];

static void *spin(void *arg)
{
	tids[(long)arg] = (pid_t)syscall(SYS_gettid);
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	sched_setaffinity(0, sizeof(one), &one);
	volatile unsigned long x = 0;
	while (!stop)
		x++;
	return NULL;
}

static void *sleeper(void *arg)
{
	tids[(long)arg] = (pid_t)syscall(SYS_gettid);
	while (!stop)
		usleep(1000000);
	return NULL;
}

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void test_own_threads(void **state)
{
	(void)state;
	pthread_t th[4];
	stop = 0;
	for (long i = 0; i < 3; i++)
		assert_int_equal(pthread_create(&th[i], NULL, spin, (void *)i), 0);
	assert_int_equal(pthread_create(&th[3], NULL, sleeper, (void *)3L), 0);
	usleep(50000);
	struct sched_sampler s;
	assert_int_equal(sched_init(&s), 0);
	assert_int_equal(sched_scan(&s, (uint32_t)getpid()), 0);
	assert_true(s.n_th >= 5);
	assert_true(s.cpus >= 1);
	int64_t t0 = now_ns();
	while (now_ns() - t0 < 600000000LL) {
		sched_read(&s, now_ns());
		usleep(20000);
	}
	stop = 1;
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	int64_t wall = s.ts_last - s.ts_first;
	assert_true(wall > 400000000LL);
	for (size_t i = 0; i < s.n_th; i++) {
		const struct sched_thread *x = &s.th[i];
		int which = -1;
		for (int k = 0; k < 4; k++)
			if (x->tid == (uint32_t)tids[k])
				which = k;
		if (which < 0)
			continue;
		size_t rows = 0;
		for (size_t r = 0; r < s.n_rows; r++)
			rows += s.rows[r].tid == x->tid;
		double run = (double)(x->cpu_ns - x->cpu0_ns) / (double)wall;
		double wait = (double)(x->wait_ns - x->wait0_ns) / (double)wall;
		print_message(
		    "  thread %u (%s): on a CPU %.0f%%, waiting for one %.0f%%, %zu rows\n", x->tid,
		    which < 3 ? "spinning" : "sleeping", 100 * run, 100 * wait, rows);
		if (which < 3) {
			/* three on one CPU: a third each at most, the rest waiting */
			assert_true(run < 0.5);
			assert_true(wait > 0.3);
		} else {
			assert_true(run < 0.01 && wait < 0.01);
			assert_true(rows <= 2); /* schedstat.h invariant 1 */
		}
	}
	print_message("  %llu reads, %.2f us each\n", (unsigned long long)s.reads,
		      (double)s.read_ns / 1e3 / (double)(s.reads ? s.reads : 1));
	sched_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_own_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
