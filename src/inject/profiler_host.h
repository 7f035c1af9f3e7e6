/*
 * profiler_host.h - the config image that both CUPTI profilers of the
 * injected library build alike (counters.cpp: the range profiler;
 * pmsampling.cpp: PM sampling): a profiler host object for the chip, the
 * metrics of a wanted list the chip knows, and the config image that
 * schedules them, with its pass count. One sequence of CUPTI host calls,
 * in CUPTI's documented order:
 *
 *   cuptiProfilerHostInitialize        (profiler type, chip, availability)
 *   cuptiProfilerHostGetMetricProperties  per wanted metric (unknown: left out)
 *   cuptiProfilerHostConfigAddMetrics  (the known ones)
 *   cuptiProfilerHostGetConfigImageSize, then the image allocated
 *   cuptiProfilerHostGetConfigImage
 *   cuptiProfilerHostGetNumOfPasses
 *
 * For the C++ translation units of src/inject only (CUDA 13's
 * cupti_profiler_host.h includes <string>); C in style, like them.
 */
#ifndef GPUSCOPE_INJECT_PROFILER_HOST_H
#define GPUSCOPE_INJECT_PROFILER_HOST_H

#include <stddef.h>
#include <stdint.h>

#include <cupti_profiler_host.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The steps of gs_host_config_build, in order. */
enum gs_host_step {
	GS_HOST_INIT,	     /* cuptiProfilerHostInitialize */
	GS_HOST_ADD_METRICS, /* cuptiProfilerHostConfigAddMetrics */
	GS_HOST_IMAGE_SIZE,  /* cuptiProfilerHostGetConfigImageSize */
	GS_HOST_ALLOC,	     /* the image's memory (CUPTI_ERROR_OUT_OF_MEMORY) */
	GS_HOST_IMAGE,	     /* cuptiProfilerHostGetConfigImage */
	GS_HOST_PASSES,	     /* cuptiProfilerHostGetNumOfPasses (not a failure) */
	GS_HOST_STEPS
};

struct gs_host_config {
	/* in */
	CUpti_ProfilerType type;
	const char *chip;
	const uint8_t *avail;	 /* counter availability image, or NULL */
	const char *const *want; /* the metrics wanted, n_want of them */
	size_t n_want;
	const char **kept; /* room for n_want: the known ones, in want's order */
	size_t *kept_from; /* NULL, or room for n_want: want[] index of kept[i] */
	void (*step)(void *ud, enum gs_host_step s, CUptiResult r); /* NULL, or told */
	void *ud;
	/* out: owned by the caller from the call on, also on failure
	 * (gs_host_config_release) */
	CUpti_Profiler_Host_Object *host;
	size_t n_kept;
	uint8_t *image;
	size_t image_size;
	size_t passes; /* 0 when CUPTI could not count them */
};

/* Runs the sequence above on c (its in fields set, the out fields zero).
 * When the chip knows none of the wanted metrics it stops after the
 * filtering, with n_kept 0 and CUPTI_SUCCESS. Returns CUPTI_SUCCESS, or the
 * failing step's result with *failed set to that step (GS_HOST_ALLOC:
 * CUPTI_ERROR_OUT_OF_MEMORY). A pass count CUPTI cannot give is no
 * failure: passes stays 0. c->step, when set, is told every step's result
 * but GetMetricProperties'. */
CUptiResult gs_host_config_build(struct gs_host_config *c, enum gs_host_step *failed);

/* The CUPTI function behind a step ("cuptiProfilerHostConfigAddMetrics"). */
const char *gs_host_step_call(enum gs_host_step s);

/* Deinitialises the host object and frees the image; the out fields are
 * zero again. */
void gs_host_config_release(struct gs_host_config *c);

#ifdef __cplusplus
}
#endif

#endif
