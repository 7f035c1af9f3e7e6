/*
 * uncoalesced - out[i] = 2 * in[p(i)] with lanes 2 MiB apart: every lane
 * costs its own 32-byte sector; the kernel runs several times slower than
 * coalesced for the same useful bytes. Expected finding: memory_bound (high
 * DRAM traffic per useful byte) or latency_bound; the evidence (bytes moved vs
 * bytes asked) is what tells it from coalesced.
 * Counts: kernels=1001 memcpy=1 memset=0 sync=1.
 */
#include "access.h"

int main(void)
{
	return run_access("uncoalesced", 1);
}
