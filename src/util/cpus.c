/*
 * cpus.c - the usable CPU count (cpus.h).
 */
#include "util/cpus.h"

#include <sched.h>
#include <unistd.h>

int gs_cpu_count(void)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) == 0) {
		int n = CPU_COUNT(&set);
		if (n >= 1)
			return n;
	}
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 4096 ? 4096 : (int)n;
}
