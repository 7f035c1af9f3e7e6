/*
 * pageable_copies - 2 GiB host-to-device in 32 cudaMemcpy calls from
 * malloc()ed memory: the driver stages every byte through a bounce buffer,
 * so the copies run well under the PCIe/C2C link rate and block the host.
 * Expected finding: transfer (pageable). Compare with pinned_copies.
 * Counts: kernels=32 memcpy=33 memset=1 sync=1.
 */
#include "copies.h"

int main(void)
{
	return run_copies("pageable_copies", 0);
}
