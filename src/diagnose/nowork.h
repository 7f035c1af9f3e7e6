/*
 * nowork.h - when there is nothing to diagnose (issue #16 item 11): a
 * trace with no GPU work, or too little to say anything about (less than
 * TH_MIN_GPU_WORK_NS of GPU time: one kernel of a few microseconds), gets
 * a verdict that says so and no findings and no warning; a trace from
 * another accelerator (an MTIA profile) or of the CPU only says which.
 */
#ifndef GPUSCOPE_NOWORK_H
#define GPUSCOPE_NOWORK_H

struct analysis;

enum an_nowork {
	NW_NONE = 0,	/* enough GPU work: the rules run */
	NW_NO_GPU_WORK, /* a recording or trace without GPU work */
	NW_TOO_LITTLE,	/* under TH_MIN_GPU_WORK_NS of it */
	NW_OTHER_ACCEL, /* a profile of another accelerator (nowork_accel) */
	NW_CPU_ONLY,	/* a PyTorch profile of the CPU only */
};

/* Decides a->nowork (and a->nowork_accel). */
void an_nowork(struct analysis *a);

#endif
