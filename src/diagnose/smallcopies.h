/*
 * smallcopies.h - many small copies (issue #36 item 5): thousands of
 * host-device copies of a few KiB each cost their fixed latency, not the
 * link's bandwidth; what helps is one large copy, not pinned memory or
 * overlap first.
 */
#ifndef GPUSCOPE_SMALLCOPIES_H
#define GPUSCOPE_SMALLCOPIES_H

#include <stdint.h>

struct analysis;
struct finding;

struct an_small_copies {
	uint64_t count;	       /* host-to-device copies of TH_SMALL_COPY_BYTES or less */
	uint64_t all;	       /* host-to-device copies */
	uint64_t median_bytes; /* of those small ones */
	int64_t ns;	       /* their summed time */
	double gbps;	       /* their bytes over their time */
	double share;	       /* of the host-to-device copy time (0..1) */
};

/* The host-to-device copies of the analysed window, summed (0 when
 * none): small device-to-host ones are read-backs, sync_stall's. */
void an_small_copies(const struct analysis *a, struct an_small_copies *s);

/* transfer's first action when TH_SMALL_COPIES_MIN or more small copies
 * hold TH_SMALL_COPY_SHARE of the copy time: count, median size and rate
 * against the link as evidence, and "batch them into one" in the program's
 * terms. 1 when added. */
int adv_small_copies(struct finding *f, const struct analysis *a);

#endif
