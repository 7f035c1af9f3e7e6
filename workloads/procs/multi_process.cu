/*
 * multi_process - a CUDA C program that runs as a tree of processes, to check
 * that `gpuscope record` traces every process that uses CUDA, each under its
 * own pid, without collisions (issue 3, item 4).
 *
 *   multi_process             the root: 1000 launches, a forked child that
 *                             uses no CUDA (fork without exec: records
 *                             nothing), then 3 children started with
 *                             fork + exec running at the same time as it
 *                             (child 3 starts a grandchild of its own), then
 *                             1000 more launches
 *   multi_process --child I   child I: 700 * I launches, I copies, 1 memset
 *
 * Every process that used CUDA prints one line
 *   PROC pid=P ppid=Q kernels=K memcpy=C memset=S sync=Y
 * with exact counts, which workloads/procs/check_procs.py compares with the
 * database's rows of that pid; the root's comes last, after its children
 * have exited. A wrong result or a failed child exits 1.
 */
#include "../cuda/zoo.h"
#include <errno.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define ROOT_LAUNCHES 1000
#define CHILD_LAUNCHES 700 /* times the child's number */
#define N 256

__global__ void add_one(float *x)
{
	x[blockIdx.x * blockDim.x + threadIdx.x] += 1.0f;
}

/* launches kernels and copies; returns after checking the result */
static void work(int launches, int copies, const char *who)
{
	float h[N], *d;
	for (int i = 0; i < N; i++)
		h[i] = zoo_val(i);
	CK(cudaMalloc(&d, sizeof(h)));
	MEMSET(d, 0, sizeof(h));
	for (int c = 0; c < copies; c++)
		MEMCPY(d, h, sizeof(h), cudaMemcpyHostToDevice);
	for (int k = 0; k < launches; k++)
		LAUNCH(add_one, N / 64, 64, 0, 0, d);
	DSYNC();
	float out[N];
	if (copies > 0) {
		MEMCPY(out, d, sizeof(out), cudaMemcpyDeviceToHost);
		for (int i = 0; i < N; i++)
			if (out[i] != zoo_val(i) + launches)
				zoo_fail(who, "x[i] != x0 + launches");
	}
	CK(cudaFree(d));
}

static void print_proc(void)
{
	printf("PROC pid=%d ppid=%d kernels=%ld memcpy=%ld memset=%ld sync=%ld\n", (int)getpid(),
	       (int)getppid(), zoo_kernels, zoo_memcpy, zoo_memset, zoo_sync);
	fflush(stdout);
}

/* fork + exec this program as child I; returns its pid */
static pid_t start_child(const char *self, int i)
{
	char arg[16];
	snprintf(arg, sizeof(arg), "%d", i);
	fflush(stdout);
	pid_t p = fork();
	if (p < 0) {
		perror("fork");
		exit(1);
	}
	if (p == 0) {
		execl(self, self, "--child", arg, (char *)NULL);
		fprintf(stderr, "multi_process: exec '%s': %s\n", self, strerror(errno));
		_exit(127);
	}
	return p;
}

/* waits for P; exits 1 unless it exited 0 */
static void wait_ok(pid_t p, const char *what)
{
	int st;
	while (waitpid(p, &st, 0) < 0)
		if (errno != EINTR) {
			perror("waitpid");
			exit(1);
		}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "multi_process: %s failed (status %d)\n", what, st);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	const char *self = "/proc/self/exe";
	char path[4096];
	ssize_t n = readlink(self, path, sizeof(path) - 1);
	if (n > 0) {
		path[n] = 0;
		self = path;
	}
	if (argc == 3 && strcmp(argv[1], "--child") == 0) {
		int i = atoi(argv[2]);
		if (i < 1 || i > 4)
			return 2;
		zoo_begin();
		pid_t g = 0;
		if (i == 3) /* a grandchild, running while this child works */
			g = start_child(self, 4);
		char who[32];
		snprintf(who, sizeof(who), "multi_process child %d", i);
		work(CHILD_LAUNCHES * i, i, who);
		if (g)
			wait_ok(g, "grandchild 4");
		print_proc();
		return 0;
	}
	zoo_begin();
	work(ROOT_LAUNCHES, 1, "multi_process");
	/* fork without exec after CUDA is up: the child must not use CUDA (it
	 * cannot) and must leave no trace; its exit runs the atexit handlers */
	fflush(stdout);
	pid_t f = fork();
	if (f < 0) {
		perror("fork");
		return 1;
	}
	if (f == 0) {
		usleep(50 * 1000);
		exit(0);
	}
	pid_t kids[3];
	for (int i = 1; i <= 3; i++)
		kids[i - 1] = start_child(self, i);
	work(ROOT_LAUNCHES, 0, "multi_process");
	wait_ok(f, "forked child");
	for (int i = 1; i <= 3; i++)
		wait_ok(kids[i - 1], "child");
	printf("TIME name=multi_process loop_s=%.6f\n", zoo_now() - zoo_t0);
	print_proc();
	return 0;
}
