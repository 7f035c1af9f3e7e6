/*
 * kinds.h - which CUPTI activity kinds GPUSCOPE_KINDS selects (a comma list
 * of api_select.c's names; NULL: each kind's default). One rule on top of
 * the list: copies are never recorded without kernels. With CUPTI's memcpy
 * kinds on and its concurrent-kernel kind off, a JAX program that autotunes
 * (workloads/real/jax_shapes.py: XLA's Triton GEMM autotuner, its redzone
 * memsets) fails at once with CUDA_ERROR_LAUNCH_FAILED ("Failed to enqueue
 * async memset operation"), 8 runs of 8 on an H100 (driver 580.159.04, JAX
 * 0.11.2, CUDA 13, 2026-12-06: memcpy alone, with memset, with runtime and
 * driver, with memory, without the preload shim; the host-free guard and
 * autotune level 3 changed nothing), while memcpy with kernel, and record's
 * defaults, passed every time: CUPTI's behaviour, not the program's or ours.
 * Header only, no CUPTI: tests/record/test_kinds.c includes it.
 */
#ifndef GPUSCOPE_INJECT_KINDS_H
#define GPUSCOPE_INJECT_KINDS_H

#include <string.h>

/* 1 if kind NAME is in the comma list LIST (NULL: the kind's default, on) */
static inline int gs_kind_listed(const char *list, const char *name, int on)
{
	if (!list)
		return on;
	size_t n = strlen(name);
	for (const char *p = list; *p;) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		if (l == n && strncmp(p, name, n) == 0)
			return 1;
		p += l + (e != NULL);
	}
	return 0;
}

/* 1 when LIST names memcpy and not kernel: kernel records are turned on too */
static inline int gs_kinds_kernel_forced(const char *list)
{
	return list && gs_kind_listed(list, "memcpy", 0) && !gs_kind_listed(list, "kernel", 0);
}

/* whether kind NAME (default ON) is recorded under LIST */
static inline int gs_kind_wanted(const char *list, const char *name, int on)
{
	if (gs_kind_listed(list, name, on))
		return 1;
	return strcmp(name, "kernel") == 0 && gs_kinds_kernel_forced(list);
}

#endif
