/*
 * heap.c - the allocator's policy around a report's analysis (heap.h).
 */
#include "util/heap.h"

#include <stdlib.h> /* defines __GLIBC__ there */
#ifdef __GLIBC__
#include <malloc.h>
#endif

/* a block this large is worth its own mapping (a few page faults) */
#define GS_HEAP_MMAP_BYTES (1 << 20)

void gs_heap_for_analysis(void)
{
#ifdef __GLIBC__
	mallopt(M_MMAP_THRESHOLD, GS_HEAP_MMAP_BYTES);
	malloc_trim(0);
#endif
}
