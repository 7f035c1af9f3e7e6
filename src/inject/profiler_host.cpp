/*
 * profiler_host.cpp - the config image sequence both CUPTI profilers share
 * (profiler_host.h says which calls, in which order). C in style, like
 * counters.cpp: no exceptions, no allocation that can throw, no C++
 * runtime.
 */
#include "inject/profiler_host.h"

#include <stdlib.h>
#include <string.h>

namespace
{

void told(const struct gs_host_config *c, enum gs_host_step s, CUptiResult r)
{
	if (c->step)
		c->step(c->ud, s, r);
}

} // namespace

extern "C" const char *gs_host_step_call(enum gs_host_step s)
{
	static const char *const calls[GS_HOST_STEPS] = {
	    "cuptiProfilerHostInitialize",	   "cuptiProfilerHostConfigAddMetrics",
	    "cuptiProfilerHostGetConfigImageSize", "allocating the config image",
	    "cuptiProfilerHostGetConfigImage",	   "cuptiProfilerHostGetNumOfPasses",
	};
	return s >= 0 && s < GS_HOST_STEPS ? calls[s] : "?";
}

/* Runs one step: the result told, a failure returned with its step. */
#define STEP(s, call)                                                                              \
	do {                                                                                       \
		*failed = (s);                                                                     \
		r = (call);                                                                        \
		told(c, (s), r);                                                                   \
		if (r != CUPTI_SUCCESS)                                                            \
			return r;                                                                  \
	} while (0)

extern "C" CUptiResult gs_host_config_build(struct gs_host_config *c, enum gs_host_step *failed)
{
	CUptiResult r;
	CUpti_Profiler_Host_Initialize_Params hi = {
	    CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
	hi.profilerType = c->type;
	hi.pChipName = c->chip;
	hi.pCounterAvailabilityImage = c->avail;
	*failed = GS_HOST_INIT;
	r = cuptiProfilerHostInitialize(&hi);
	c->host = hi.pHostObject;
	told(c, GS_HOST_INIT, r);
	if (r != CUPTI_SUCCESS)
		return r;
	c->n_kept = 0;
	for (size_t i = 0; i < c->n_want; i++) {
		CUpti_Profiler_Host_GetMetricProperties_Params p = {
		    CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE};
		p.pHostObject = c->host;
		p.pMetricName = c->want[i];
		if (cuptiProfilerHostGetMetricProperties(&p) != CUPTI_SUCCESS)
			continue;
		if (c->kept_from)
			c->kept_from[c->n_kept] = i;
		c->kept[c->n_kept++] = c->want[i];
	}
	if (!c->n_kept)
		return CUPTI_SUCCESS;
	CUpti_Profiler_Host_ConfigAddMetrics_Params am = {
	    CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
	am.pHostObject = c->host;
	am.ppMetricNames = c->kept;
	am.numMetrics = c->n_kept;
	STEP(GS_HOST_ADD_METRICS, cuptiProfilerHostConfigAddMetrics(&am));
	CUpti_Profiler_Host_GetConfigImageSize_Params cs = {
	    CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
	cs.pHostObject = c->host;
	STEP(GS_HOST_IMAGE_SIZE, cuptiProfilerHostGetConfigImageSize(&cs));
	*failed = GS_HOST_ALLOC;
	c->image = (uint8_t *)calloc(1, cs.configImageSize ? cs.configImageSize : 1);
	if (!c->image)
		return CUPTI_ERROR_OUT_OF_MEMORY;
	c->image_size = cs.configImageSize;
	CUpti_Profiler_Host_GetConfigImage_Params ci = {
	    CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
	ci.pHostObject = c->host;
	ci.configImageSize = c->image_size;
	ci.pConfigImage = c->image;
	STEP(GS_HOST_IMAGE, cuptiProfilerHostGetConfigImage(&ci));
	CUpti_Profiler_Host_GetNumOfPasses_Params np = {
	    CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
	np.configImageSize = c->image_size;
	np.pConfigImage = c->image;
	r = cuptiProfilerHostGetNumOfPasses(&np);
	told(c, GS_HOST_PASSES, r);
	c->passes = r == CUPTI_SUCCESS ? np.numOfPasses : 0;
	return CUPTI_SUCCESS;
}

#undef STEP

extern "C" void gs_host_config_release(struct gs_host_config *c)
{
	if (c->host) {
		CUpti_Profiler_Host_Deinitialize_Params hd = {
		    CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
		hd.pHostObject = c->host;
		cuptiProfilerHostDeinitialize(&hd);
	}
	free(c->image);
	c->host = NULL;
	c->image = NULL;
	c->image_size = 0;
	c->n_kept = 0;
	c->passes = 0;
}
