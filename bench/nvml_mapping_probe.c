/*
 * nvml_mapping_probe.c - which of the GPU layer's readings map libcuda into
 * the process and what each costs (serve's resident memory and CPU, issue
 * 19). Opens the GPUs as serve does, then runs each reading of device 0 in turn, REPS times, and
 * after each says whether libcuda is mapped, the resident anonymous memory, and the CPU time per
 * call: bench_nvml_mapping_probe [REPS]        (default 5; needs a GPU) Prints one line per step;
 * exit 1 when no GPU can be opened.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu/gpu.h"
#include "util/error.h"

static int libcuda_mapped(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	int found = 0;
	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, "libcuda.so") != NULL;
	fclose(f);
	return found;
}

static long status_kb(const char *key)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long v = -1;
	size_t n = strlen(key);
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, key, n) == 0 && line[n] == ':')
			v = strtol(line + n + 1, NULL, 10);
	fclose(f);
	return v;
}

static double cpu_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

enum step { S_STATIC, S_BASIC, S_PCIE, S_GPM, S_ENERGY, S_HEALTH, S_PROCS, S_MIG, S_COUNT };
static const char *const step_name[S_COUNT] = {
    "static_info",   "sample basic", "sample pcie", "sample gpm",
    "sample energy", "health",	     "processes",   "mig",
};

static void run_step(struct gpu_sys *sys, enum step s)
{
	struct gpu_sample x;
	static struct gpu_procs p;
	static struct gpu_migs m;
	struct gpu_static st;
	memset(&x, 0, sizeof(x));
	switch (s) {
	case S_STATIC:
		gpu_static_info(sys, 0, &st);
		break;
	case S_BASIC:
		gpu_sample(sys, 0, GPU_WANT_BASIC, &x);
		break;
	case S_PCIE:
		gpu_sample(sys, 0, GPU_WANT_PCIE, &x);
		break;
	case S_GPM:
		gpu_sample(sys, 0, GPU_WANT_GPM, &x);
		break;
	case S_ENERGY:
		gpu_sample(sys, 0, GPU_WANT_ENERGY, &x);
		break;
	case S_HEALTH:
		gpu_health(sys, 0, &x);
		break;
	case S_PROCS:
		gpu_processes(sys, 0, &p);
		break;
	case S_MIG:
		gpu_mig(sys, 0, &m);
		break;
	case S_COUNT:
		break;
	}
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 5;
	struct gpu_sys sys;
	char err[GS_ERR_LEN];
	if (reps < 1)
		reps = 1;
	long anon0 = status_kb("RssAnon");
	double c0 = cpu_us();
	if (gpu_sys_open(&sys, err) < 0 || gpu_count(&sys) == 0) {
		fprintf(stderr, "nvml_mapping_probe: no GPU: %s\n", err);
		return 1;
	}
	printf("%-14s %10s %8s %10s\n", "step", "cpu_us", "libcuda", "anon_kB");
	printf("%-14s %10.0f %8d %10ld\n", "open", cpu_us() - c0, libcuda_mapped(),
	       status_kb("RssAnon") - anon0);
	for (int s = 0; s < S_COUNT; s++) {
		double t = cpu_us();
		for (int r = 0; r < reps; r++)
			run_step(&sys, (enum step)s);
		printf("%-14s %10.0f %8d %10ld\n", step_name[s], (cpu_us() - t) / reps,
		       libcuda_mapped(), status_kb("RssAnon") - anon0);
	}
	gpu_sys_close(&sys);
	return 0;
}
