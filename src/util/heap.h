/*
 * heap.h - the allocator's policy around a report's analysis (glibc's
 * malloc; elsewhere nothing is changed).
 *
 * glibc serves a block of 128 KiB or more with its own mapping, given back
 * when freed, and raises that threshold to the size of each such block
 * freed (to 32 MiB): after the load has freed its parse buffers, the
 * analysis's arrays of 1-32 MiB (busy lists, the profiler estimate's view
 * and timelines) come from the heap, where a freed one stays resident
 * under the next. Measured on the 1.09 GB / 300k-kernel PyTorch trace
 * (bench/README-report-speed.md section 14): peak RSS 270 -> 257 MiB, the
 * analysis's time unchanged. Not from the start: the parse's workers then
 * map and unmap each chunk's buffers, 0.3 s more of load on 2 CPUs.
 */
#ifndef GPUSCOPE_HEAP_H
#define GPUSCOPE_HEAP_H

/* From now on blocks of 1 MiB or more are mapped and given back when
 * freed, and what the heap holds free is given back now. */
void gs_heap_for_analysis(void);

#endif
