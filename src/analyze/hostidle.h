/*
 * hostidle.h - what the host ran while the GPU idled, from record's host
 * samples (docs/host-sampling.md): the samples taken in GPU-idle time of
 * the analysed window, split into data loading (a DataLoader, a dataset's
 * __getitem__, decoders, transforms: input_pipeline's evidence), JIT
 * compilation (torch._inductor/_dynamo, Triton's compiler, XLA, NVRTC) and
 * the rest (host_overhead's), with the program's own functions that held
 * the most of it.
 *
 * Invariants:
 *  1. Times are sums of sample weights (the time a sample stands for) of
 *     one source: the CPython reader's wall-clock samples when the trace has
 *     them (they see a thread that waits), else perf's on-CPU samples.
 *  2. dataload_ns + compile_ns <= idle_ns.
 *  3. Only the samples of each process's main thread and of the threads
 *     that made CUDA calls count (record keeps busy threads' samples too,
 *     for host_contention: contention.h).
 */
#ifndef GPUSCOPE_HOSTIDLE_H
#define GPUSCOPE_HOSTIDLE_H

#include <stdint.h>

struct analysis;
struct trace;

#define AN_HOST_TOP 5

struct an_host_fn {
	uint32_t name_id, file_id; /* a Python function (file "" for native) */
	int64_t ns;
};

/* The same two switches in host samples (torchmodes.c): the samples of the
 * threads that feed the GPU inside the analysed window, busy or idle, by
 * source (the CPython reader's wall-clock samples, perf's on-CPU ones). */
struct an_sample_modes {
	int64_t py_ns, py_anomaly_ns;	  /* the reader's; in anomaly's traceback capture */
	int64_t perf_ns, perf_anomaly_ns; /* perf's; in the capture or the engine's NaN check */
	int64_t find_ns, find_late_ns; /* perf's in cuDNN's autotuning; in the window's 2nd half */
	/* DDP's search for unused parameters after each forward
	 * (find_unused_parameters=True): the reader's samples in
	 * DistributedDataParallel._post_forward, perf's in the reducer's
	 * prepare_for_backward / search_unused_parameters */
	int64_t py_ddp_ns, perf_ddp_ns;
	/* torch.optim's per-parameter path (row 9): the reader's samples in a
	 * torch/optim function named _single_tensor_* (what foreach=False
	 * runs: a Python loop over the parameters), and the first such
	 * function's name id (whole trace; 0: none) */
	int64_t py_optim_ns;
	uint32_t optim_fn;
};

struct an_hostidle {
	int have_samples; /* the trace has host samples in the window */
	int source;	  /* enum host_sample_source of the samples used */
	int64_t idle_ns;  /* samples in GPU-idle time */
	int64_t dataload_ns;
	int64_t compile_ns;
	/* perf's on-CPU samples in GPU-idle time, and those in native code that
	 * makes or decodes data (NumPy, BLAS, codecs, tokenizers) */
	int64_t perf_idle_ns, datamake_ns;
	/* #36 item 2: compiling that keeps coming, outside the JIT stretches
	 * (XLA's autotuner runs kernels between its compilations, so no
	 * stretch ends in a module load): the samples in a compiler in GPU-idle
	 * time outside the window's stretches, their share in the window's
	 * second half, and the host idle moved from idle.host_ns to
	 * idle.jit_ns for them (0: the compiling stopped, nothing moved). In a
	 * trace without host samples, torch.compile's compile ranges instead. */
	int64_t compile_out_ns, compile_late_ns, late_idle_ns;
	int64_t recompile_ns;
	uint64_t late_gaps; /* GPU-idle gaps of the second half with compile samples */
	/* compilations seen in the analysed window's host samples: runs of a
	 * feeding thread's samples in a compiler (TH_COMPILE_SPLIT_SAMPLES),
	 * GPU busy or idle (XLA's autotuner runs kernels inside one), the
	 * most of one thread */
	uint64_t compile_runs;
	/* samples in PyTorch's DataLoader (torch/utils/data/), GPU busy or idle */
	uint64_t loader_samples;
	uint32_t compile_entry, compile_own; /* frames: the compiler's outermost, own caller */
	int64_t compile_entry_ns;
	/* without host samples: torch.compile's compile op (name id of a->t)
	 * that moved the idle, and its calls in the window */
	uint32_t compile_op;
	uint64_t compile_op_calls;
	int64_t compile_op_ns;		    /* their summed duration */
	struct an_host_fn top[AN_HOST_TOP]; /* the program's own functions, most first */
	int n_top;
	struct an_sample_modes modes;
};

/* 1 when a host stack (a trace_host_stack id) is in a compiler:
 * torch._inductor/_dynamo, Triton's compiler, XLA, NVRTC, ptxas. memo: NULL,
 * or t->n_host_stacks + 1 zeroed bytes that one pass (one thread) keeps
 * for all its calls: each stack node is then looked at once (a frame in a
 * compiler makes every stack under it compile). */
int an_host_stack_compiles(const struct trace *t, uint32_t stack, uint8_t *memo);

/* 1 when a torch.profiler op is torch.compile's compile of a frame (the
 * outermost range of each: "dynamo", "entire_frame_compile", ...). */
int an_op_compiles(const char *name);

/* 1 when a Python file is the program's own (not the standard library, an
 * installed package or frozen code). */
int an_host_user_file(const char *file);
/* 1 when a native module makes data (NumPy, BLAS, image and audio codecs,
 * tokenizers): its samples in the idle are the host making a batch */
int an_host_datamake_module(const char *module);

/* The share (0..1) of the on-CPU (perf) host samples in [t0, t1), by
 * weight, whose stacks are in a compiler (NVRTC, ptxas, nvJitLink, Triton,
 * inductor, XLA); *sampled_ns their summed weight (0: none, share 0).
 * memo: NULL, or an_host_stack_compiles' memo, kept across calls. */
double an_host_compile_share(const struct trace *t, int64_t t0, int64_t t1, int64_t *sampled_ns,
			     uint8_t *memo);

struct u64map;
struct trace_host_sample;
/* Invariant 3's threads, those that feed the GPU: every (pid, tid) that
 * made a CUDA call, into *m (initialised here; the caller releases it).
 * -1 when out of memory, nothing left to release. */
int an_cuda_threads(const struct trace *w, struct u64map *m);
/* Whether sample s is one of them: a process's main thread or a thread in
 * m. */
int an_feeds_gpu(const struct u64map *m, const struct trace_host_sample *s);

/* Fills a->hostidle.modes (torchmodes.c). 0, or -1 with err (out of memory). */
int an_sample_modes(struct analysis *a, const struct trace *whole, char *err);

/* Fills a->hostidle. 0, or -1 with err (out of memory). */
int an_hostidle(struct analysis *a, const struct trace *whole, char *err);

#endif
