/*
 * test_preload.c - record's LD_PRELOAD shim (src/preload/preload.c): the
 * test runs itself again with the shim preloaded, in a mode that registers a
 * hook the way the injection library does and then ends with _exit or
 * _Exit, from the process itself, a fork child or a vfork child. The hook
 * writes "hook STATUS PID" to a pipe; the parent checks what came through
 * and the exit status.
 */
#include <dlfcn.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

static int hook_fd = -1;

static void hook(int status)
{
	char line[64];
	int n = snprintf(line, sizeof(line), "hook %d %d\n", status, (int)getpid());
	if (write(hook_fd, line, (size_t)n) < 0)
		abort();
}

static int do_register(void)
{
	void (*reg)(void (*)(int)) = NULL;
	*(void **)&reg = dlsym(RTLD_DEFAULT, "gpuscope_preload_register");
	if (!reg)
		return -1;
	reg(hook);
	return 0;
}

/* the child side: argv[1] = "--mode", argv[2] = MODE, fd 3 = the pipe */
static int child_main(const char *mode)
{
	hook_fd = 3;
	if (strcmp(mode, "noreg") == 0)
		_exit(4);
	if (do_register() < 0)
		return 99; /* the shim is not loaded */
	if (strcmp(mode, "exit") == 0)
		_exit(7);
	if (strcmp(mode, "Exit") == 0)
		_Exit(9);
	if (strcmp(mode, "fork") == 0) {
		pid_t p = fork();
		if (p == 0)
			_exit(3);
		int st;
		waitpid(p, &st, 0);
		_exit(WIFEXITED(st) ? 10 + WEXITSTATUS(st) : 1);
	}
	if (strcmp(mode, "vfork") == 0) {
		pid_t p = vfork();
		if (p == 0)
			_exit(5);
		int st;
		waitpid(p, &st, 0);
		_exit(WIFEXITED(st) ? 20 + WEXITSTATUS(st) : 1);
	}
	return 98;
}

/* runs this test binary in MODE with the shim preloaded; returns its exit
 * status and what the hook wrote (NUL-terminated) */
static int run_mode(const char *mode, char *got, size_t cap)
{
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid_t p = fork();
	assert_true(p >= 0);
	if (p == 0) {
		dup2(fds[1], 3);
		setenv("LD_PRELOAD", PRELOAD_LIB, 1);
		/* a sanitized test binary: the shim (not sanitized) comes first */
		setenv("ASAN_OPTIONS", "verify_asan_link_order=0:detect_leaks=0", 1);
		execl("/proc/self/exe", "test_preload", "--mode", mode, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	size_t n = 0;
	ssize_t r;
	while (n + 1 < cap && (r = read(fds[0], got + n, cap - 1 - n)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		assert_true(r > 0);
		n += (size_t)r;
	}
	got[n] = '\0';
	close(fds[0]);
	int st;
	assert_int_equal(waitpid(p, &st, 0), p);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static int count_lines(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void test_exit_calls_hook(void **state)
{
	char got[256];
	assert_int_equal(run_mode("exit", got, sizeof(got)), 7);
	assert_int_equal(strncmp(got, "hook 7 ", 7), 0);
	assert_int_equal(count_lines(got), 1);
	assert_int_equal(run_mode("Exit", got, sizeof(got)), 9);
	assert_int_equal(strncmp(got, "hook 9 ", 7), 0);
	assert_int_equal(count_lines(got), 1);
}

static void test_no_hook_is_plain_exit(void **state)
{
	char got[256];
	assert_int_equal(run_mode("noreg", got, sizeof(got)), 4);
	assert_string_equal(got, "");
}

/* a fork or vfork child's _exit must not run the parent's hook; the parent's
 * own _exit runs it once, with its own status */
static void test_children_skip_hook(void **state)
{
	char got[256];
	assert_int_equal(run_mode("fork", got, sizeof(got)), 13);
	assert_int_equal(strncmp(got, "hook 13 ", 8), 0);
	assert_int_equal(count_lines(got), 1);
	assert_int_equal(run_mode("vfork", got, sizeof(got)), 25);
	assert_int_equal(strncmp(got, "hook 25 ", 8), 0);
	assert_int_equal(count_lines(got), 1);
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--mode") == 0)
		return child_main(argv[2]);
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_exit_calls_hook),
	    cmocka_unit_test(test_no_hook_is_plain_exit),
	    cmocka_unit_test(test_children_skip_hook),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
