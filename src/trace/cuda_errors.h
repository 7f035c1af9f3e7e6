/*
 * cuda_errors.h - the CUDA calls of a trace that failed (a broken context, a
 * kernel that cannot run) and the pinned-host-memory race behind some of
 * them (cuda_errors.c says which results count and how the race shows).
 */
#ifndef GPUSCOPE_TRACE_CUDA_ERRORS_H
#define GPUSCOPE_TRACE_CUDA_ERRORS_H

#include <stddef.h>
#include <stdint.h>

#include "trace/trace.h"

struct cuda_failures {
	int64_t start_ns; /* the trace's first record: times are said from it (0 when
			     nothing failed and no race: nothing to say) */
	size_t failed;	  /* failed calls the program made (the larger domain's count) */
	size_t failed_driver, failed_runtime;
	const struct trace_api *first; /* the earliest failed call, NULL: none */
	/* memsets into pinned host memory still running when a later
	 * cuMemFreeHost / cuMemHostUnregister of their process began */
	size_t races;
	int64_t race_free_ns, race_memset_end_ns; /* the earliest such free */
	uint32_t race_pid, race_free_name_id;
};

/* Fills F from T's API calls and memsets. Returns 0, or -1 when out of
 * memory (F's failure counts are then still right, its race counts not). */
int cuda_failures_scan(const struct trace *t, struct cuda_failures *f);

/* The name of a failure result in DOMAIN (enum api_domain), NULL when CODE
 * is not one of the failures counted. */
const char *cuda_failure_name(int domain, int32_t code);

#endif
