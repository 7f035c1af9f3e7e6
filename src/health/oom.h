/*
 * oom.h - the numbers in a pasted PyTorch "CUDA out of memory" message, and
 * what they say (explain prints them above the cuda_oom entry).
 *
 * PyTorch's caching allocator (c10/cuda/CUDACachingAllocator.cpp) has
 * written three shapes of the message:
 *   2.1 and later: "Tried to allocate 2.00 GiB. GPU 0 has a total capacity
 *     of 79.15 GiB of which 1.25 GiB is free. [Process 4242 has 1.00 GiB
 *     memory in use.] Including non-PyTorch memory, this process has 77.89
 *     GiB memory in use. Of the allocated memory 75.31 GiB is allocated by
 *     PyTorch, and 1.91 GiB is reserved by PyTorch but unallocated."
 *     (2.1 wrote "capacty"; some builds leave the process lines out);
 *   1.x-2.0: "Tried to allocate 128.00 MiB (GPU 0; 11.17 GiB total
 *     capacity; 10.85 GiB already allocated; 24.81 MiB free; 10.86 GiB
 *     reserved in total by PyTorch)";
 *   1.0: the same with "4.68 MiB cached" for the reserve beyond allocated.
 * Sizes are in B, bytes, KiB, MiB, GiB or TiB. Anything missing stays
 * unknown (its bit in have is clear); nothing is guessed.
 *
 * The allocator frees its cached blocks and retries before it raises, so
 * "reserved but unallocated" is memory it could not give back: blocks split
 * by live tensors. That is what makes fragmentation tellable from the text.
 */
#ifndef GPUSCOPE_OOM_H
#define GPUSCOPE_OOM_H

#include <stddef.h>

enum {
	OOM_REQ = 1 << 0,	 /* the request */
	OOM_TOTAL = 1 << 1,	 /* the GPU's capacity */
	OOM_FREE = 1 << 2,	 /* free on the GPU */
	OOM_PROC = 1 << 3,	 /* this process, PyTorch's and the rest */
	OOM_ALLOC = 1 << 4,	 /* allocated by PyTorch (tensors) */
	OOM_UNALLOC = 1 << 5,	 /* reserved by PyTorch but unallocated */
	OOM_OTHERS = 1 << 6,	 /* "Process N has ..." lines, summed */
	OOM_GPU = 1 << 7,	 /* the GPU's index */
	OOM_GUESSED = 1 << 8,	 /* process: taken to be one of the listed (a container) */
	OOM_BEFORE_2_1 = 1 << 9, /* the 1.x-2.0 shape: no expandable_segments yet */
};

/* What the numbers show, most specific first (oom_verdict). */
enum oom_verdict {
	OOM_V_UNKNOWN = 0,
	OOM_V_LARGER_THAN_GPU, /* one request larger than the whole GPU */
	OOM_V_OVERSUBSCRIBED,  /* PyTorch holds more than the GPU has */
	OOM_V_FREE_ENOUGH,     /* the GPU said it had the request free */
	OOM_V_FRAGMENTED,      /* free + unallocated reserve would hold it */
	OOM_V_OTHERS,	       /* other processes hold what is missing */
	OOM_V_NON_PYTORCH,     /* this process's own non-PyTorch memory does */
	OOM_V_OUTSIDE,	       /* much held outside PyTorch, by whom not said */
	OOM_V_ONE_TENSOR,      /* one request beyond every live tensor, or >= 1/4 GPU */
	OOM_V_FULL,	       /* the job needs more than the GPU can give */
};

struct oom_numbers {
	unsigned have;
	int gpu;
	/* bytes */
	double request, total, free, process, alloc, unalloc, others;
};

/* Reads the numbers of an OOM message in text (len bytes, need not be NUL
 * terminated). 1 when at least the request and one other figure were
 * found, else 0. */
int oom_parse(const char *text, size_t len, struct oom_numbers *o);

/* What the numbers show, the first that holds of: the request is larger
 * than the GPU; PyTorch holds more than the GPU (WDDM's shared memory);
 * the GPU had the request free with room to spare (slack: 1% of the GPU,
 * at least 64 MiB); free plus the reserve PyTorch could not give back
 * would hold it and that reserve is >= 5% of the GPU (fragmentation);
 * other processes hold at least the request; this process holds more
 * than the request and 1 GiB outside PyTorch's allocator; with no word
 * of who holds it, a quarter of the GPU is outside PyTorch's allocator
 * (beyond a 0.5 GiB context); one request of >= 10% of the GPU larger
 * than every live tensor (or >= 25%); else the job fills the GPU.
 * short_by (may be NULL): request - free - unused reserve, when > 0. */
enum oom_verdict oom_verdict(const struct oom_numbers *o, double *short_by);

/* total - free - PyTorch's reserve: other processes and this one's
 * memory outside PyTorch's allocator together (0 when negative). */
double oom_outside(const struct oom_numbers *o);

/* The verdict's JSON id: "fragmented", "other_processes", ... */
const char *oom_verdict_id(enum oom_verdict v);

/* ---- JAX / XLA: "RESOURCE_EXHAUSTED: Out of memory while trying to
 * allocate N bytes." with XLA's BufferAssignment report (the compiled
 * program's parameters, outputs, temporaries and total at its peak, and
 * its peak buffers, largest first), or the BFC allocator's "ran out of
 * memory trying to allocate 27.93GiB". ---- */
enum {
	XLA_REQ = 1 << 0,
	XLA_PARAM = 1 << 1, /* parameter allocation */
	XLA_OUT = 1 << 2,   /* maybe_live_out allocation: the outputs */
	XLA_TEMP = 1 << 3,  /* preallocated temp allocation */
	XLA_TOTAL = 1 << 4, /* total allocation */
	XLA_FRAG = 1 << 5,  /* total fragmentation */
};

#define XLA_PEAK_BUFFERS 3

struct xla_buffer {
	double size;
	char shape[64]; /* f32[4096,128,3] */
	char op[96];	/* the op_name's last part (dot_general), or "parameter" */
	char where[96]; /* source file's name:line */
};

struct xla_oom {
	unsigned have;
	double request, param, out, temp, total, frag;
	int n_buf;
	struct xla_buffer buf[XLA_PEAK_BUFFERS];
};

enum xla_verdict {
	XLA_V_UNKNOWN = 0,
	XLA_V_ELSEWHERE, /* the program needs < 1 GiB: the memory is held elsewhere */
	XLA_V_OUTPUTS,	 /* outputs are >= half of the program's peak */
	XLA_V_TEMPS,	 /* temporaries are */
	XLA_V_PARAMS,	 /* parameters (inputs) are */
	XLA_V_PROGRAM,	 /* none dominates */
};

/* 1 when text has XLA's request or its BufferAssignment figures. */
int xla_oom_parse(const char *text, size_t len, struct xla_oom *x);
enum xla_verdict xla_oom_verdict(const struct xla_oom *x);
const char *xla_verdict_id(enum xla_verdict v);

#endif
