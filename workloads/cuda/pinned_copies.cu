/*
 * pinned_copies - the same bytes and kernels as pageable_copies, from
 * cudaMallocHost() memory: DMA straight from host memory at link rate.
 * Still copy-dominated (the kernel is tiny), but faster; expected finding:
 * transfer at a lower impact, with pinned copies in the evidence.
 * Counts: kernels=32 memcpy=33 memset=1 sync=1.
 */
#include "copies.h"

int main(void)
{
	return run_copies("pinned_copies", 1);
}
