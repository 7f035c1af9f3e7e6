/*
 * advice.h - actions that fit the program in front of the report (issue
 * #16 items 1-2): its framework (program.h: PyTorch, JAX, CuPy, Triton,
 * CUDA C), what it already does (CUDA graphs, pinned memory, torch.compile,
 * a DataLoader) and whose kernels hold the time (a library's, the
 * framework's, a compiler's or its own). The rules (rules_host.c,
 * rules_kernel.c) decide that a finding fires and what it charges; these
 * functions only add its actions, most effective first, and never one for
 * something the program already does.
 */
#ifndef GPUSCOPE_ADVICE_H
#define GPUSCOPE_ADVICE_H

#include <stdint.h>

#include "analyze/calls.h"
#include "diagnose/finding.h"

struct analysis;
struct finding;

/* The program replays CUDA graphs for most of its kernel time. */
int adv_graphs_used(const struct analysis *a);
/* The program is compiled (torch.compile's kernels, or XLA: JAX jits). */
int adv_compiled(const struct analysis *a);
/* The program decodes tokens (transformers' generate in its op names,
 * Python frames or host samples). */
int adv_decode_loop(const struct analysis *a);
/* The GPU's idle while a trace's launching thread paused at the GIL's
 * hand-over (host_contention from op events, rules_contention.c), as a
 * share of the span; 0 when that finding does not fire. */
double adv_trace_gil_pct(const struct analysis *a);

/* launch_overhead: many short launches; kname/count: the most launched
 * short kernel (NULL: none). */
void adv_launch(struct finding *f, const struct analysis *a, const char *kname, uint64_t count);
/* host_overhead: per-step host work; known: the evidence said so (else the
 * first action says how to tell data loading and overhead apart). */
struct an_periodic;
/* per: the periodic stalls when they hold half of the host's idle or more
 * (rule_host_overhead), else NULL */
void adv_host_overhead(struct finding *f, const struct analysis *a, int known,
		       const struct an_periodic *per);
/* input_pipeline: the host prepares data. */
void adv_input(struct finding *f, const struct analysis *a);
/* transfer: copies in the way; pageable: share of bytes (0..1). */
void adv_transfer(struct finding *f, const struct analysis *a, double pageable);
/* sync_stall: blocking reads and waits; op: the op the syncs come from
 * ("" when unknown; NULL when anomaly detection's checks are, named
 * already: no read of the program's to remove). */
void adv_sync(struct finding *f, const struct analysis *a, const char *op);
/* sync_stall's actions when the syncs wait for the host-to-device copies
 * just issued: upload without waiting, in the program's terms. */
void adv_sync_uploads(struct finding *f, const struct analysis *a);
/* cuda_calls_idle: the cause holding the most idle. */
void adv_calls(struct finding *f, const struct analysis *a, enum call_cause top);
/* host_contention: by_gil the launching thread waits for the GIL (other:
 * the other thread's function, NULL unknown), else for a CPU. */
void adv_contention(struct finding *f, const struct analysis *a, int by_gil, const char *other);
/* memory_peak. */
void adv_memory_peak(struct finding *f, const struct analysis *a);
/* The speed-of-light findings and gpu_busy: bound 0 memory, 1 compute,
 * 2 latency, 3 busy (healthy or not); owner: enum kown holding most of
 * the kernel time concerned; at_roof: the kernels run at >= TH_SOL_HIGH_PCT
 * of a roof (what is left, not a fix). */
void adv_kernels(struct finding *f, const struct analysis *a, int bound, int owner, int at_roof);

/* On ROCm (a->prog.rocm, issue 40): every finding's title and actions in
 * ROCm's terms: HIP graphs, events and calls, rocBLAS/hipBLASLt and MIOpen,
 * rocprofv3 and rocprofiler-compute for the kernel view, amd-smi; an action
 * that only a CUDA tool can take (ncu, gpuscope record) is replaced by
 * ROCm's. PyTorch's own API names (torch.cuda.*) stay: ROCm builds keep them. */
void adv_rocm_terms(struct analysis *a);
/* s (cap bytes) with ROCm's names for CUDA's (cuBLAS -> rocBLAS, CUDA ->
 * HIP, ...), in place; a finding's text in any language (report/finding.c). */
void adv_rocm_text(char *s, size_t cap);

#endif
