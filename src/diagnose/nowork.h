/*
 * nowork.h - when there is nothing to diagnose (issue #16 item 11): a
 * trace with no GPU work, or too little to say anything about (less than
 * TH_MIN_GPU_WORK_NS of GPU time: one kernel of a few microseconds), gets
 * a verdict that says so and no findings and no warning; a trace from
 * another accelerator (an MTIA profile) or of the CPU only says which.
 */
#ifndef GPUSCOPE_NOWORK_H
#define GPUSCOPE_NOWORK_H

#include "analyze/analysis.h" /* enum an_nowork */

/* Decides a->nowork (and a->nowork_accel). */
void an_nowork(struct analysis *a);

#endif
