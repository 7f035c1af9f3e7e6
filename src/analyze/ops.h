/*
 * ops.h - PyTorch op attribution (issue #16 item 7): each CUDA call, and
 * through its correlation id the kernel, copy or memset it launched, is
 * attributed to the op that made it, the outermost PyTorch op (cpu_op
 * range) open on the calling thread when the call started: the op the
 * program called (aten::linear, aten::to, aten::item,
 * autograd::engine::evaluate_function: AddmmBackward0), as torch.profiler's
 * table and HTA attribute them. With Python stacks in the trace
 * (with_stack=True) each op also gets its call site: the innermost Python
 * frame of the program's own code (not the libraries').
 *
 * The same sweep measures what the host did while the GPU idled: the GPU
 * idle time inside data-loading ranges (DataLoader's __next__, collate,
 * decode, transforms: input_pipeline's evidence) and inside any op or
 * Python function (host_overhead's).
 *
 * Invariants:
 *  1. A call is attributed to at most one op; the GPU time of the ops sums
 *     to at most the analysed kernel + copy + memset time.
 *  2. The op table is sorted by GPU time, then host time, descending.
 */
#ifndef GPUSCOPE_OPS_H
#define GPUSCOPE_OPS_H

#include <stddef.h>
#include <stdint.h>

struct analysis;
struct trace;

struct an_op {
	uint32_t name_id;
	uint64_t calls;	   /* outermost ranges of this op in the analysed window */
	int64_t host_ns;   /* their summed duration */
	int64_t gpu_ns;	   /* kernels, copies and memsets its calls launched */
	uint64_t kernels;  /* GPU ops launched (kernels, copies, memsets) */
	uint64_t syncs;	   /* blocking synchronizations inside it */
	int64_t sync_ns;   /* time inside them */
	uint64_t dtoh;	   /* device-to-host copies it made */
	int64_t idle_ns;   /* GPU idle while it ran */
	uint32_t site_id;  /* the Python call site with the most of its time; 0: none */
	uint32_t inner_id; /* the innermost op that synced or copied the most (aten::item ->
			      aten::_local_scalar_dense); 0: none */
};

/* Two PyTorch switches as the op events show them (torchmodes.c; docs/causes.md
 * rows 13 and 18): autograd's anomaly detection, whose engine checks every
 * backward node's outputs for NaN inside the node's evaluate_function range
 * (aten::isnan, aten::_is_any_true, aten::item: a host sync each), and
 * cuDNN's autotuning (cudnn.benchmark), whose first call of a convolution
 * for each new shape launches the candidate algorithms' kernels one after
 * another inside the op. */
struct an_op_modes {
	uint64_t
	    backward_nodes;   /* evaluate_function ranges in the window, AccumulateGrad's aside */
	uint64_t nan_checked; /* of them, those holding a NaN check */
	uint64_t conv_calls;  /* outermost convolution ops, whole trace */
	uint64_t autotune_calls; /* of them, those launching TH_AUTOTUNE_LAUNCHES kernels or more */
	uint64_t autotune_late; /* of those, starting in the second half of the convolutions' run */
	int64_t autotune_ns;	/* the autotuning calls' summed time, whole trace */
	int64_t autotune_window_ns; /* ... inside the analysed window */
	uint32_t autotune_op;	    /* the op autotuned most (its name id in the whole trace) */
	uint64_t autotune_op_calls; /* its autotuning calls */
	/* DistributedDataParallel.forward ranges in the window (row 20): how
	 * many, and the time from the end of the last op inside each to its
	 * end: DDP's _post_forward, where find_unused_parameters=True walks the
	 * autograd graph from the outputs (no op is recorded there) */
	uint64_t ddp_forwards;
	int64_t ddp_tail_ns;
	/* torch.optim's step (row 9): the window's outermost "Optimizer.step#"
	 * ranges (torch.optim's own record_function around every step), the
	 * kernels launched inside them, and the multi-tensor ops inside them
	 * (aten::_foreach_*, aten::_fused_*: foreach=True or fused=True); none
	 * of those beside hundreds of launches a step is the per-parameter path */
	uint64_t optim_steps, optim_launches, optim_multi_ops;
	uint32_t optim_name; /* the first such range's name id (whole trace) */
	/* scaled-dot-product attention on cuDNN's backend (torchmodes.c): its
	 * outermost calls (whole trace), those of TH_CUDNN_BUILD_NS or more
	 * (cuDNN building the fused kernel for a new shape), of them those in
	 * the second half of the calls' run, their summed and median time, the
	 * GPU idle inside them in the window, and the op with the most */
	uint64_t attn_calls, attn_builds, attn_build_late;
	int64_t attn_build_ns, attn_build_median_ns, attn_build_idle_ns;
	uint32_t attn_build_op;
	/* deterministic mode's fill (row 21, torchmodes.c): the window's
	 * outermost torch.empty ops (aten::empty, empty_like, empty_strided,
	 * empty_permuted), those holding an aten::fill_ (with
	 * torch.utils.deterministic.fill_uninitialized_memory, on with
	 * use_deterministic_algorithms(True), every one fills its memory with
	 * NaN), the kernels those fills launched, their GPU time and the fills'
	 * host time */
	uint64_t empty_calls, empty_filled, fill_launches;
	int64_t fill_gpu_ns, fill_host_ns;
};

struct an_ops {
	struct an_op *v; /* sorted: invariant 2 */
	size_t n;
	int have_ops;	      /* the trace has PyTorch op events */
	int have_stacks;      /* ... and Python function events */
	int64_t gpu_ns;	      /* GPU time attributed to an op */
	int64_t gpu_total_ns; /* GPU time of the calls looked at */
	/* GPU idle in the window while the host was inside ... */
	int64_t idle_dataload_ns;  /* a data-loading range (outermost such) */
	uint32_t dataload_name_id; /* the data-loading range with the most idle */
	int64_t idle_in_ops_ns;	   /* any op, annotation or Python function (main thread) */
	/* the same two, of idle.c's "host work outside CUDA" only (the idle
	 * class host_ns counts: hostside.c's shares are of it) */
	int64_t host_idle_dataload_ns, host_idle_in_ops_ns;
	uint64_t steps; /* ProfilerStep#N ranges in the window */
	struct an_op_modes modes;
};

/* Fills a->ops; a trace without op events leaves it empty. 0, or -1 with
 * err (out of memory). */
int an_ops(struct analysis *a, const struct trace *whole, char *err);
void an_ops_release(struct an_ops *o);
/* Fills a->ops.modes (torchmodes.c). 0, or -1 with err (out of memory). */
int an_op_modes(struct analysis *a, const struct trace *whole, char *err);
/* The op with name id, NULL when none. */
const struct an_op *an_op_find(const struct an_ops *o, uint32_t name_id);
/* 1 when a range name is data loading or preparation (DataLoader's
 * iterator, a dataset's __getitem__, collate, decode, augmentation). */
int ops_is_dataload(const char *name);
/* 1 when a Python frame name ("file.py(12): fn") is the program's own code,
 * not a library's or the interpreter's. */
int ops_is_user_frame(const char *name);
/* An op's name for a narrow column: autograd's "autograd::engine::
 * evaluate_function: AddmmBackward0" is "AddmmBackward0" (a pointer into
 * name). */
const char *ops_display_name(const char *name);

#endif
