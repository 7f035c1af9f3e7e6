/*
 * apiname.h - CUDA API names as people write them. CUPTI names runtime
 * calls with the version that introduced them (cudaFree_v3020,
 * cudaLaunchKernel_v7000) and the driver API's versioned symbols keep
 * theirs (cuMemAlloc_v2); text, diff, Perfetto and CSV show the name
 * without it (cudaFree, cuMemAlloc). Stored names are never changed.
 */
#ifndef GPUSCOPE_APINAME_H
#define GPUSCOPE_APINAME_H

#include <stddef.h>

/* name without a trailing "_v<digits>" in buf (size n), or name itself when
 * it has none. Never NULL for a non-NULL name. */
const char *gs_api_name(const char *name, char *buf, size_t n);

#endif
