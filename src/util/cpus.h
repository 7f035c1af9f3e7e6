/*
 * cpus.h - how many CPUs this process may run on: the affinity mask's count
 * (taskset, a container's cpuset), not the machine's online count, so that
 * worker threads fit the CPUs actually given (16 threads on 2 allowed CPUs
 * only contend).
 */
#ifndef GPUSCOPE_CPUS_H
#define GPUSCOPE_CPUS_H

/* >= 1: CPUs in the affinity mask, else the online count */
int gs_cpu_count(void);

#endif
