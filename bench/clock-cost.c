/*
 * clock-cost.c - what one timestamp costs on this machine, for reading the
 * overhead of `gpuscope record` (bench/record-overhead.sh). CUPTI stamps
 * every API record (enter and exit) and every GPU record's conversion with
 * clock_gettime(CLOCK_REALTIME) (cupti_activity.h,
 * cuptiActivityRegisterTimestampCallback). On a virtual machine whose clock
 * source has no vDSO fast path each of those is a system call.
 *
 * Prints the clock source, the TSC flags, and ns per call of: each clock
 * through libc (vDSO when it can), the same through syscall(2), rdtsc, and
 * cuptiGetTimestamp when libcupti loads (argv[1], or the usual names).
 *
 *   cc -O2 -o clock-cost bench/clock-cost.c -ldl && ./clock-cost [libcupti.so]
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void show_file(const char *label, const char *path)
{
	char buf[512] = "";
	FILE *f = fopen(path, "r");
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
	printf("%-28s %s\n", label, buf[0] ? buf : "(unreadable)");
}

/* the TSC-related flags of the first CPU in /proc/cpuinfo */
static void show_tsc_flags(void)
{
	static const char *want[] = {"tsc",    "constant_tsc", "nonstop_tsc", "tsc_known_freq",
				     "rdtscp", "tsc_reliable"};
	char line[8192];
	FILE *f = fopen("/proc/cpuinfo", "r");
	printf("%-28s", "tsc flags");
	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5) != 0)
			continue;
		for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
			char pat[64];
			snprintf(pat, sizeof(pat), " %s ", want[i]);
			line[strcspn(line, "\n")] = ' ';
			printf(" %s=%s", want[i], strstr(line, pat) ? "yes" : "no");
		}
		break;
	}
	printf("\n");
	if (f)
		fclose(f);
}

#define TIME_LOOP(label, body)                                                                     \
	do {                                                                                       \
		unsigned long n = 0;                                                               \
		double t0 = now_s(), t1;                                                           \
		do {                                                                               \
			for (int k_ = 0; k_ < 1000; k_++) {                                        \
				body;                                                              \
			}                                                                          \
			n += 1000;                                                                 \
			t1 = now_s();                                                              \
		} while (t1 - t0 < 0.2);                                                           \
		printf("%-28s %8.1f ns/call\n", label, (t1 - t0) * 1e9 / (double)n);               \
	} while (0)

int main(int argc, char **argv)
{
	show_file("clocksource",
		  "/sys/devices/system/clocksource/clocksource0/current_clocksource");
	show_file("available clocksources",
		  "/sys/devices/system/clocksource/clocksource0/available_clocksource");
	show_tsc_flags();
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	printf("%-28s %ld\n", "online cpus", ncpu);
	for (long c = 0; c < ncpu && c < 64; c++) {
		char p[128], l[64];
		snprintf(p, sizeof(p),
			 "/sys/devices/system/cpu/cpu%ld/topology/thread_siblings_list", c);
		snprintf(l, sizeof(l), "cpu%ld siblings", c);
		show_file(l, p);
	}
	struct timespec ts;
	volatile uint64_t sink = 0;
	TIME_LOOP("clock_gettime REALTIME", clock_gettime(CLOCK_REALTIME, &ts); sink += ts.tv_nsec);
	TIME_LOOP("clock_gettime MONOTONIC", clock_gettime(CLOCK_MONOTONIC, &ts);
		  sink += ts.tv_nsec);
	TIME_LOOP("clock_gettime MONO_RAW", clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
		  sink += ts.tv_nsec);
	TIME_LOOP("syscall clock_gettime RT", syscall(SYS_clock_gettime, CLOCK_REALTIME, &ts);
		  sink += ts.tv_nsec);
	TIME_LOOP("syscall getppid", sink += (uint64_t)syscall(SYS_getppid));
	TIME_LOOP("rdtsc", sink += __rdtsc());
	const char *names[] = {argc > 1 ? argv[1] : "libcupti.so", "libcupti.so.13",
			       "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so",
			       "/usr/local/cuda/targets/x86_64-linux/lib/libcupti.so"};
	void *h = NULL;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !h; i++)
		h = dlopen(names[i], RTLD_NOW);
	int (*get_ts)(uint64_t *) = h ? (int (*)(uint64_t *))dlsym(h, "cuptiGetTimestamp") : NULL;
	if (get_ts) {
		uint64_t v;
		TIME_LOOP("cuptiGetTimestamp", get_ts(&v); sink += v);
	} else {
		printf("%-28s (libcupti not loaded: %s)\n", "cuptiGetTimestamp", dlerror());
	}
	return sink == 42; /* keeps the loops */
}
