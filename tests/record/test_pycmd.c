/*
 * test_pycmd.c - cmd_runs_python (record/pycmd.h) on command lines built
 * over a directory of stand-ins: an interpreter named python3, a #! python
 * launcher (torchrun), shell scripts that start it or not, a script without
 * "#!", an ELF program, a data file and a FIFO that name python but are no
 * program. Each rule must say yes where it applies and nothing else may:
 * a wrong rule either slows a Python program's sampling or lowers a native
 * program's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/pycmd.h"

static char dir[64];

static const char *in_dir(const char *name)
{
	static char bufs[8][128];
	static int k;
	char *b = bufs[k++ % 8];
	snprintf(b, sizeof(bufs[0]), "%.63s/%.63s", dir, name);
	return b;
}

static void put(const char *name, const char *text, size_t n, mode_t mode)
{
	FILE *f = fopen(in_dir(name), "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(in_dir(name), mode), 0);
}
#define PUT(name, text, mode) put(name, text, sizeof(text) - 1, mode)

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/gpuscope-pycmd-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	PUT("python3", "\177ELF\2\1\1\0stand-in", 0755);
	char torchrun[128];
	int n = snprintf(torchrun, sizeof(torchrun), "#!%s/python3\nimport sys\n", dir);
	put("torchrun", torchrun, (size_t)n, 0755);
	PUT("run.sh",
	    "#!/bin/bash -e\n# start the job\ncd /tmp\nNCCL_DEBUG=INFO exec torchrun "
	    "--nproc-per-node 2 job\n",
	    0755);
	PUT("env-bash.sh",
	    "#!/usr/bin/env bash\nfor i in 1 2; do\n  nohup python3 -u t $i &\ndone\n", 0755);
	PUT("plain.sh", "#!/bin/sh\necho hello\n./build/app --fast\n", 0755);
	PUT("comment.sh", "#!/bin/sh\n# no python here: see train.py for that one\necho hi\n",
	    0755);
	PUT("noshebang", "torchrun a b\n", 0755);
	PUT("app", "\177ELF\2\1\1\0\0\0python", 0755);
	PUT("notes.txt", "python train.py\n", 0644);
	PUT("data.sh", "python3 x\n", 0644); /* a script, but not executable */
	assert_int_equal(mkfifo(in_dir("fifo"), 0755), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	const char *names[] = {"python3",   "torchrun",	  "run.sh",    "env-bash.sh",
			       "plain.sh",  "comment.sh", "noshebang", "app",
			       "notes.txt", "data.sh",	  "fifo"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		unlink(in_dir(names[i]));
	return rmdir(dir);
}

#define RUNS(expect, ...)                                                                          \
	do {                                                                                       \
		char *const argv_[] = {__VA_ARGS__, NULL};                                         \
		assert_int_equal(cmd_runs_python(argv_, dir), expect);                             \
	} while (0)

/* rule 1: the interpreter, found on the path or named with its directory,
 * and a #! script naming python */
static void interpreter_and_launchers(void **state)
{
	(void)state;
	RUNS(1, "python3", "train.py");
	RUNS(1, (char *)in_dir("python3"), "-c", "pass");
	RUNS(1, "torchrun", "--nproc-per-node", "8", "t");
	RUNS(1, (char *)in_dir("torchrun"));
	RUNS(0, "awk", "BEGIN { print 1 }"); /* not on this path */
	RUNS(0, (char *)in_dir("app"), "--steps", "10");
	assert_int_equal(cmd_runs_python(NULL, dir), 0);
	char *const empty[] = {NULL};
	assert_int_equal(cmd_runs_python(empty, dir), 0);
}

/* rule 2: a wrapper's arguments */
static void wrappers(void **state)
{
	(void)state;
	RUNS(1, "nohup", "python3", "train.py");
	RUNS(1, "taskset", "-c", "2-9", "python3", "-u", "t");
	RUNS(1, "env", "PYTHONPATH=src", "/opt/conda/bin/python3.12", "t");
	RUNS(1, "uv", "run", "train.py");
	RUNS(1, "srun", "-n", "2", "torchrun", "t");
	RUNS(1, "nohup", (char *)in_dir("run.sh"));
	RUNS(1, "time", "sh", "-c", "exec torchrun t");
	/* data that names python is no program: a text file, a FIFO (never
	 * opened: it would block), a script without the execute bit */
	RUNS(0, (char *)in_dir("app"), (char *)in_dir("notes.txt"));
	RUNS(0, (char *)in_dir("app"), (char *)in_dir("fifo"));
	RUNS(0, (char *)in_dir("app"), (char *)in_dir("data.sh"));
	RUNS(0, "nohup", (char *)in_dir("plain.sh"));
}

/* rule 3: what a shell runs */
static void shells(void **state)
{
	(void)state;
	RUNS(1, "bash", (char *)in_dir("run.sh"));
	RUNS(1, (char *)in_dir("run.sh"));
	RUNS(1, (char *)in_dir("env-bash.sh"));
	RUNS(1, "sh", "-c", "cd /x && exec torchrun --standalone t");
	RUNS(1, "bash", "-lc", "cd /x; NCCL_DEBUG=INFO torchrun t");
	RUNS(1, "sh", "-c", "VAR=1 ./t.py");
	RUNS(1, "sh", "-e", (char *)in_dir("data.sh")); /* a shell reads it: no x bit needed */
	RUNS(1, (char *)in_dir("noshebang"));		/* execvp gives it to /bin/sh */
	RUNS(0, "sh", "-c", "echo hi; ./build/app");
	RUNS(0, (char *)in_dir("plain.sh"));
	RUNS(0, (char *)in_dir("comment.sh")); /* python only in a comment */
	RUNS(0, "bash", (char *)in_dir("fifo"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(interpreter_and_launchers),
	    cmocka_unit_test(wrappers),
	    cmocka_unit_test(shells),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
