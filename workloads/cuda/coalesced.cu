/*
 * coalesced - out[i] = 2 * in[i]: each warp reads 128 contiguous bytes, the
 * memory system moves only useful bytes, near the DRAM roof.
 * Expected finding: memory_bound. Compare with uncoalesced.
 * Counts: kernels=1001 memcpy=1 memset=0 sync=1.
 */
#include "access.h"

int main(void)
{
	return run_access("coalesced", 0);
}
