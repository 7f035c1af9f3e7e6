/*
 * vm_read_cost.c - what one process_vm_readv(2) costs the reader, the call
 * record's CPython reader makes (src/hostsample/pyframes.c): by size, and
 * with many remote iovecs on many pages or on two. Reads a child process's
 * memory (a sleeping fork of this one) and prints us per call.
 *
 *   bench_vm_read_cost [CALLS]      (default 100000)
 *
 * docs/host-sampling.md "Overhead" has the figures this gave.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DATA (1 << 20)
#define IOVS 80

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static char data[DATA];

/* us per call of n calls reading the remote iovecs rv (nr of them) */
static double per_call(pid_t pid, struct iovec *rv, int nr, int n)
{
	static char buf[IOVS * 8192];
	size_t want = 0;
	for (int k = 0; k < nr; k++)
		want += rv[k].iov_len;
	struct iovec l = {buf, want};
	double t0 = now();
	for (int i = 0; i < n; i++)
		if (process_vm_readv(pid, &l, 1, rv, (unsigned long)nr, 0) != (ssize_t)want)
			return -1;
	return (now() - t0) / n * 1e6;
}

int main(int argc, char **argv)
{
	int calls = argc > 1 ? atoi(argv[1]) : 100000;
	if (calls < 10)
		calls = 10;
	for (int i = 0; i < DATA; i++)
		data[i] = (char)i;
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		for (;;)
			pause();
	}
	struct iovec rv[IOVS];
	for (size_t sz = 8; sz <= 8192; sz *= 32) {
		rv[0] = (struct iovec){data + 4096 * 3, sz};
		printf("one iovec of %5zu bytes:       %6.2f us a call\n", sz,
		       per_call(pid, rv, 1, calls));
	}
	for (int k = 0; k < IOVS; k++)
		rv[k] = (struct iovec){data + 4096 * (k % 250) + 100, 64};
	printf("%d iovecs of 64 bytes, %d pages: %6.2f us a call\n", IOVS, IOVS,
	       per_call(pid, rv, IOVS, calls / 10));
	for (int k = 0; k < IOVS; k++)
		rv[k] = (struct iovec){data + 100 + 64 * k, 64};
	printf("%d iovecs of 64 bytes, 2 pages:  %6.2f us a call\n", IOVS,
	       per_call(pid, rv, IOVS, calls / 10));
	rv[0] = (struct iovec){data + 100, IOVS * 64};
	printf("one iovec over the same 2 pages:  %6.2f us a call\n", per_call(pid, rv, 1, calls));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return 0;
}
