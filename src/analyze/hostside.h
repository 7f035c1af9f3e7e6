/*
 * hostside.h - which host-bound finding the host idle is (issue #16 item
 * 3): the evidence that the host was loading or preparing data
 * (input_pipeline) or doing other per-step work (host_overhead), gathered
 * from what the trace has:
 *  - PyTorch op events (ops.h): GPU idle inside DataLoader's iterator and
 *    other data-loading ranges, or inside other ops and Python functions;
 *  - host samples (hostidle.h): idle-time samples in data-loading frames,
 *    or in others;
 *  - the copies (a recording has neither of the above without host
 *    sampling): long host stretches that end in a host-to-device copy of
 *    at least TH_INPUT_COPY_BYTES are the host producing a batch.
 * Each source's share is of the host idle it can see; TH_EVIDENCE_SHARE
 * of it makes evidence. With none either way the verdict is unknown: the
 * host is the bottleneck, and record --host-sampling or torch.profiler
 * with_stack would tell which.
 */
#ifndef GPUSCOPE_HOSTSIDE_H
#define GPUSCOPE_HOSTSIDE_H

#include <stdint.h>

struct analysis;

enum host_kind { HK_UNKNOWN, HK_INPUT, HK_OVERHEAD };

struct an_hostside {
	enum host_kind kind;
	const char *how;       /* the evidence that decided, a static phrase; "" for unknown */
	double input_share;    /* 0..1 of the host idle the source saw; < 0: no such source */
	double overhead_share; /* likewise */
	/* the copies: long host stretches (>= TH_HOST_WORK_NS) and those that
	 * end in an input copy */
	int64_t long_gap_ns, input_gap_ns;
	uint64_t long_gaps, input_gaps;
	double input_bytes_mean; /* of those copies */
	/* the program makes each batch itself, beside the copies: HB_OP a CPU
	 * op (batch_op_id: aten::stack, index_select on a CPU tensor), HB_LINE
	 * one line of its own code (hostwait's main-thread function), HB_NATIVE
	 * native code that makes data (NumPy, BLAS, codecs: hostwait's
	 * main-thread native frame) */
	enum { HB_NONE, HB_OP, HB_LINE, HB_NATIVE } makes_batch;
	uint32_t batch_op_id; /* a string id of the trace; 0 unless HB_OP */
};

/* Fills a->hostside from ops, host samples and copies (run after them). */
void an_hostside(struct analysis *a);
const char *host_kind_name(enum host_kind k); /* "unknown", "input", "overhead" */

#endif
