/*
 * phases.h - the phases of a run (issue #16 item 5): startup (before the
 * first GPU work), JIT compilation (Triton, torch.compile, XLA, NVRTC: a
 * long host stretch with the GPU idle that ends in module or library loads
 * before the first launches of kernels never run before), the warm-up the
 * analysis left out, the steady state it analysed and a final phase after
 * it. A compilation inside the analysed window is taken out of the host
 * idle (it is no input pipeline and no per-step overhead) and counted as
 * idle.jit_ns.
 *
 * Invariants:
 *  1. JIT stretches are disjoint GPU-idle gaps of the whole trace, in time
 *     order; each ends in at least one module load and is followed by a
 *     kernel whose name was not seen before it.
 */
#ifndef GPUSCOPE_PHASES_H
#define GPUSCOPE_PHASES_H

#include <stddef.h>
#include <stdint.h>

struct analysis;
struct trace;

struct an_jit {
	int64_t start_ns, end_ns; /* the GPU-idle stretch */
	uint64_t module_loads;	  /* module / library loads inside it */
	uint32_t first_kernel_id; /* the new kernel launched after it */
	uint8_t in_window;	  /* inside the analysed window */
};

#define AN_MAX_JIT 64

struct an_phases {
	struct an_jit jit[AN_MAX_JIT];
	size_t n_jit;	       /* at most AN_MAX_JIT (the longest kept) */
	uint64_t jit_total;    /* stretches found, kept or not */
	int64_t jit_ns;	       /* their summed length */
	int64_t jit_warmup_ns; /* of it before the analysed window */
	int64_t jit_window_ns; /* of it inside */
	uint64_t module_loads; /* in the whole trace */
	/* the whole trace around the analysed window */
	int64_t startup_ns; /* before the first GPU work */
	int64_t warmup_ns;  /* from it to the window */
	int64_t final_ns;   /* after the window */
};

/* Finds the JIT stretches of the whole trace, then moves the host idle of
 * those inside the window into idle.jit_ns. Needs the timeline and the
 * idle breakdown. 0, or -1 with err (out of memory). */
int an_phases(struct analysis *a, const struct trace *whole, char *err);
/* 1 when an API call name loads compiled code (cuModuleLoadData,
 * cuModuleLoadDataEx, cuLinkComplete: what a JIT loads). */
int phases_is_module_load(const char *name);

/* The end of the last JIT stretch of trace t (the start of the GPU work
 * after it) in *end: 1, 0 when t has none, -1 when out of memory. */
int phases_last_jit_end(const struct trace *t, int64_t *end);

/* The JIT stretches of trace t starting at or after from whose first
 * kernel a stretch before them compiled already (the same kernel compiled
 * again: a new shape, a guard failure): their number, -1 when out of
 * memory (issue #36 item 2). */
long phases_recompiles_from(const struct trace *t, int64_t from);

#endif
