/*
 * advice.c - the actions of each finding for the kind of program it is
 * (advice.h). The texts name the framework's own mechanism (PyTorch:
 * DataLoader, pin_memory, torch.compile, torch.cuda.graphs, SDPA, AMP; JAX:
 * jit, lax.scan, device_get, donation; CuPy: cupy.fuse, ElementwiseKernel,
 * cupy.cuda.Graph; CUDA C: graphs, streams, launch configuration) and the
 * owner of the kernels (library kernels: shapes, precision, batch, fused
 * library ops; own kernels: access pattern, occupancy, launch bounds).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diagnose/advice.h"
#include "analyze/analysis.h"
#include "diagnose/attention.h"
#include "diagnose/precision.h"
#include "diagnose/preproc.h"
#include "diagnose/thresholds.h"
#include "diagnose/verdict.h"
#include "util/i18n.h"

static enum prog_kind kind(const struct analysis *a)
{
	return a->prog.kind;
}

int adv_graphs_used(const struct analysis *a)
{
	return a->prog.graph_kernel_share >= TH_GRAPH_SHARE;
}

int adv_compiled(const struct analysis *a)
{
	return prog_has(&a->prog, PL_INDUCTOR) || kind(a) == PK_JAX;
}

static int has_word(const struct trace *t, uint32_t id, const char *const *w)
{
	const char *s = trace_str(t, id);
	for (; *w; w++)
		if (strstr(s, *w))
			return 1;
	return 0;
}

/* The step itself synchronizes with the host, so CUDA graphs cannot capture
 * it: blocking syncs or read-backs at least once per TH_SYNC_LAUNCHES
 * kernels, a burst with no kernel between its syncs counted once. Fewer are
 * occasional (a Lightning loop's 43 in 21564 launches, H200; a torch.save
 * every 50 steps: 1347 copies and syncs in 8 bursts, torch_ckpt_every,
 * H100): they stay outside a captured step. */
static int syncing(const struct analysis *a)
{
	uint64_t n = a->sync.spread;
	return n >= 2 && n * TH_SYNC_LAUNCHES >= a->n_kernels;
}

/* Flags of each distinct name of t by FN, made once (a name is tested once,
 * not once per range that bears it: a 300k-kernel profile has millions of
 * ranges and a few thousand names); NULL when out of memory (the caller
 * then tests each range's name) */
static unsigned char *name_flags(const struct trace *t, unsigned (*fn)(const char *))
{
	unsigned char *f = malloc(t->n_strings ? t->n_strings : 1);
	for (size_t i = 0; f && i < t->n_strings; i++)
		f[i] = (unsigned char)fn(t->strings[i]);
	return f;
}

static unsigned name_flag(const struct trace *t, const unsigned char *f, uint32_t id,
			  unsigned (*fn)(const char *))
{
	if (f)
		return id < t->n_strings ? f[id] : 0;
	return fn(trace_str(t, id));
}

enum { DEC_WORD = 1, DEC_ISIN = 2, DEC_PICK = 4 };

/* a decoding loop's names: generate's own (DEC_WORD); its stopping
 * criteria's aten::isin; the choice of the next token (aten::argmax greedy,
 * aten::multinomial sampling) */
static unsigned decode_flags(const char *s)
{
	static const char *const w[] = {"generate",	      "greedy_search", "_sample",
					"prepare_inputs_for", "cache_utils",   NULL};
	unsigned f = 0;
	for (const char *const *p = w; *p; p++)
		if (strstr(s, *p)) {
			f |= DEC_WORD;
			break;
		}
	if (strncmp(s, "aten::", 6) == 0) {
		s += 6;
		f |= !strcmp(s, "isin") ? DEC_ISIN : 0;
		f |= !strcmp(s, "argmax") || !strcmp(s, "multinomial") ? DEC_PICK : 0;
	}
	return f;
}

int adv_decode_loop(const struct analysis *a)
{
	const struct trace *t = a->whole ? a->whole : a->t;
	/* host frames: transformers' own (generation/utils.py, cache_utils.py);
	 * a compiler's codegen has "generate" functions too (jinja2's, under
	 * torch.compile) */
	for (size_t i = 0; i < t->n_host_frames; i++)
		if ((decode_flags(trace_str(t, t->host_frames[i].name_id)) & DEC_WORD) &&
		    strstr(trace_str(t, t->host_frames[i].file_id), "/transformers/"))
			return 1;
	/* generate's Python functions or annotations; in a torch.profiler trace
	 * without Python stacks, generate's per-token ops: its stopping
	 * criteria's aten::isin beside the choice of the next token, each at
	 * least once a token (hf_decode's trace: 49 and 16 for 16 tokens) */
	unsigned char *f = name_flags(t, decode_flags);
	size_t isin = 0, pick = 0;
	int named = 0;
	for (size_t i = 0; i < t->n_ranges && !named; i++) {
		const struct trace_range *r = trace_range_row(t, i);
		if (r->kind == RANGE_PYTHON || r->kind == RANGE_ANNOTATION) {
			named = (name_flag(t, f, r->name_id, decode_flags) & DEC_WORD) != 0;
		} else if (r->kind == RANGE_CPU_OP) {
			unsigned x = name_flag(t, f, r->name_id, decode_flags);
			isin += (x & DEC_ISIN) != 0;
			pick += (x & DEC_PICK) != 0;
		}
	}
	free(f);
	return named || (isin >= TH_DECODE_TOKENS && pick >= TH_DECODE_TOKENS);
}

static unsigned pyg_flags(const char *s)
{
	return strstr(s, "torch_geometric/") != NULL;
}

/* PyTorch Geometric's message passing: its files in the host frames or in
 * a with_stack trace's Python ranges (torch_geometric/nn/conv/...) */
static int pyg_program(const struct analysis *a)
{
	const struct trace *t = a->whole ? a->whole : a->t;
	for (size_t i = 0; i < t->n_host_frames; i++)
		if (pyg_flags(trace_str(t, t->host_frames[i].file_id)))
			return 1;
	unsigned char *f = name_flags(t, pyg_flags);
	int found = 0;
	for (size_t i = 0; i < t->n_ranges && !found; i++) {
		const struct trace_range *r = trace_range_row(t, i);
		found = r->kind == RANGE_PYTHON && name_flag(t, f, r->name_id, pyg_flags);
	}
	free(f);
	return found;
}

/* kernels that gather or scatter by index (message passing, embedding
 * bags, experts' dispatch): PyTorch's indexFuncLargeIndex,
 * _scatter_gather_elementwise_kernel, index_add / index_select */
static const char *const scatter_words[] = {"indexFunc",    "scatter", "index_add",
					    "index_select", "gather",  NULL};

static int top_is_scatter(const struct analysis *a)
{
	return a->n_kgroups && has_word(a->t, a->kgroups[0].name_id, scatter_words);
}

/* their share (0..1) of the kernel time */
static double scatter_share(const struct analysis *a)
{
	int64_t in = 0, all = 0;
	for (size_t i = 0; i < a->n_kgroups; i++) {
		all += a->kgroups[i].sum_ns;
		in +=
		    has_word(a->t, a->kgroups[i].name_id, scatter_words) ? a->kgroups[i].sum_ns : 0;
	}
	return all > 0 ? (double)in / (double)all : 0;
}

void adv_launch(struct finding *f, const struct analysis *a, const char *kname, uint64_t count)
{
	int graphs = adv_graphs_used(a);
	switch (kind(a)) {
	case PK_PYTORCH:
		if (graphs)
			finding_action(
			    f, N_("the step already replays a CUDA graph: launch fewer, "
				  "larger kernels inside it (fuse elementwise chains, larger "
				  "batches)"));
		else if (adv_decode_loop(a))
			/* generate's own per-token checks synchronize: the fix is
			 * a static cache that lets the token step be captured */
			finding_action(f,
				       N_("decoding: each token is many tiny launches; a "
					  "static KV cache (generate(..., "
					  "cache_implementation=\"static\")) with torch.compile "
					  "(mode=\"reduce-overhead\") captures the token step in a "
					  "CUDA graph; batch requests"));
		else if (syncing(a))
			/* a step that synchronizes cannot be captured */
			finding_action(
			    f,
			    N_("the step synchronizes (%llu blocking syncs or read-backs "
			       "in the window), so no CUDA graph can capture it yet: take "
			       "the .item()/.cpu() reads out of the step, then capture it "
			       "(torch.cuda.graphs)"),
			    (unsigned long long)(a->sync.count + a->sync.readbacks));
		else if (kname)
			finding_action(f,
				       N_("capture the step in a CUDA graph (torch.cuda.graphs, or "
					  "torch.compile(mode=\"reduce-overhead\")) so the %llu "
					  "launches of %s are replayed, not issued one by one"),
				       (unsigned long long)count, kname);
		if (!prog_has(&a->prog, PL_INDUCTOR))
			finding_action(f, N_("torch.compile the model: inductor fuses chains of "
					     "elementwise and reduction ops into fewer kernels"));
		finding_action(f, N_("do more work per launch: a larger batch, fewer and bigger "
				     "tensors (torch._foreach_* / fused optimizers)"));
		break;
	case PK_CUPY:
		/* CuPy's own kernels are cupy_<ufunc>__<types>; a kernel of
		 * another name is the program's (cupy.fuse names it after the
		 * function, ElementwiseKernel and RawKernel after their names):
		 * the step is fused already (cupy_small_ops --fixed, H200: 403
		 * launches of "body", still launch-bound) */
		if (!kname || !strncmp(kname, "cupy_", 5)) {
			finding_action(f, N_("fuse the step's elementwise kernels into one: "
					     "cupy.fuse, or a cupy.ElementwiseKernel / RawKernel"));
			if (!graphs)
				finding_action(f,
					       N_("capture the step once with cupy.cuda.Graph "
						  "(stream.begin_capture / end_capture) and launch "
						  "the graph"));
		} else {
			finding_action(
			    f,
			    N_("%s is one kernel of the program's own already (cupy.fuse, "
			       "an ElementwiseKernel or a RawKernel), launched %llu "
			       "times: what is left is the launch itself: do several "
			       "steps per launch (their arrays as one larger array, or a "
			       "loop inside the kernel)"),
			    kname, (unsigned long long)count);
			if (!graphs)
				finding_action(f,
					       N_("capture a run of steps, not one, with "
						  "cupy.cuda.Graph and launch the graph once for "
						  "them"));
		}
		finding_action(f, N_("work on larger arrays per call: batch several steps or "
				     "problems into one array"));
		break;
	case PK_NUMBA:
		finding_action(f,
			       N_("fuse consecutive @cuda.jit kernels into one, or give each "
				  "launch more work (a grid-stride loop over more elements): each "
				  "call costs Python dispatch"));
		finding_action(f, N_("pass device arrays (cuda.to_device): a NumPy argument adds "
				     "two copies and a wait to every call"));
		break;
	case PK_JAX:
		finding_action(f, N_("put more of the loop inside one jax.jit (lax.scan or "
				     "lax.fori_loop over steps) so XLA fuses and dispatches it "
				     "once"));
		finding_action(f, N_("do more work per step: a larger batch per call"));
		break;
	default:
		if (graphs)
			finding_action(f,
				       N_("the program already launches CUDA graphs: put fewer, "
					  "larger kernels in them (fusion, more work per kernel)"));
		else if (kname)
			finding_action(f,
				       N_("capture the launch sequence in a CUDA graph "
					  "(cudaStreamBeginCapture / cudaGraphLaunch): the %llu "
					  "launches of %s then cost one launch"),
				       (unsigned long long)count, kname);
		finding_action(f, N_("fuse consecutive kernels into one, or do more work per "
				     "kernel (a grid-stride loop over more elements)"));
		finding_action(f, N_("launch independent work on several streams so launches "
				     "overlap kernels"));
	}
}

/* Host overhead with a real share of data loading in it (host samples or
 * ops: DataLoader's iterator, a dataset's __getitem__, collate) that did not
 * make it the primary: say how much and how to move it off (a Lightning loop
 * with num_workers=0: 14% of all idle-time samples in collate and
 * __getitem__, 32% of the host-work class). */
static void adv_loader_share(struct finding *f, const struct analysis *a)
{
	double in = a->hostside.input_share;
	if (in < TH_LOADER_SHARE)
		return;
	finding_action(f,
		       N_("%.0f%% of the host's time while the GPU idled is the DataLoader's own "
			  "work (the dataset's __getitem__, collate): more DataLoader workers "
			  "(num_workers, persistent_workers=True) take it off the training thread"),
		       100.0 * in);
}

/* One long host stretch (verdict.h): work done once is measured out, not
 * made faster per step; 1 when it said so (the per-step advice then does
 * not apply). */
static int adv_one_time(struct finding *f, const struct analysis *a)
{
	int64_t ns;
	double share;
	if (!an_one_time_host(a, &ns, &share))
		return 0;
	finding_action(f,
		       N_("one stretch of %.0f ms holds %.0f%% of the host's idle: work done once "
			  "(setup, data made before the loop), not per step: measure the loop "
			  "alone (gpuscope record --capture-range or --delay, or a profiler "
			  "schedule that starts after it), or overlap that work with GPU work"),
		       (double)ns / 1e6, 100.0 * share);
	return 1;
}

/* Host work done every so often (per: an_periodic_stall's, when they hold
 * half of the host's idle or more; NULL otherwise): a checkpoint, an
 * evaluation or logging every N steps. It is moved off the loop's thread
 * or done less often; CUDA graphs and bigger batches do not touch it
 * (docs/causes.md row 37). 1 when advised. */
static int adv_periodic(struct finding *f, const struct analysis *a, const struct an_periodic *per)
{
	if (!per)
		return 0;
	finding_action(f,
		       N_("every %.2f s the GPU waits %.0f ms for the host (%llu times): work done "
			  "every few steps, not in each (a checkpoint, an evaluation, logging, a "
			  "garbage collection)"),
		       (double)per->every_ns / 1e9, (double)per->median_ns / 1e6,
		       (unsigned long long)per->stalls);
	switch (kind(a)) {
	case PK_PYTORCH:
		finding_action(f,
			       N_("save checkpoints without stopping the loop: "
				  "torch.distributed.checkpoint.async_save, or copy the "
				  "state_dict to CPU tensors and torch.save them from a background "
				  "thread"));
		finding_action(f,
			       N_("log and evaluate less often, and keep the logged values on "
				  "the GPU until then (one .item() or .cpu() per log, not per "
				  "value); if it is Python's garbage collector, gc.freeze() after "
				  "the setup"));
		break;
	case PK_JAX:
		finding_action(f, N_("save checkpoints in the background: orbax.checkpoint's "
				     "CheckpointManager with enable_async_checkpointing=True"));
		finding_action(f, N_("log less often, with one jax.device_get of all the metrics "
				     "per log"));
		break;
	default:
		finding_action(f, N_("do that work on another thread (copy what it needs first), "
				     "or less often"));
		break;
	}
	return 1;
}

void adv_host_overhead(struct finding *f, const struct analysis *a, int known,
		       const struct an_periodic *per)
{
	if (adv_one_time(f, a) || adv_periodic(f, a, per))
		return;
	/* a trace whose launching thread pauses at the GIL's hand-over
	 * (torch_gil_thread's: 79 of 93 pauses): the holder first, since
	 * no per-step saving reaches a thread that waits for the GIL */
	if (adv_trace_gil_pct(a) > 0)
		finding_action(f,
			       N_("%d of the launching thread's %d long pauses between ops are "
				  "the GIL's hand-over (host_contention): another thread of the "
				  "process holds the GIL; find it (py-spy dump --pid PID) and move "
				  "its work out of the process first"),
			       a->contention.gil_pauses, a->contention.pauses);
	/* with host samples the evidence names the host's functions already */
	if (!known && !a->hostidle.have_samples)
		finding_action(
		    f, kind(a) == PK_PYTORCH
			   ? N_("tell data loading from per-step overhead: record with "
				"host sampling (gpuscope record samples host stacks by "
				"default) or profile with torch.profiler(with_stack=True); "
				"the report then names the host functions the GPU waits for")
			   : N_("tell data loading from per-step overhead: record with "
				"host sampling (gpuscope record samples host stacks by "
				"default); the report then names the host functions the GPU "
				"waits for"));
	/* #36 item 6: preprocessing named by the evidence is moved, not
	 * replayed: CUDA graphs do not shorten host work outside CUDA */
	int pre = adv_preprocessing(f, a);
	/* compiling is stopped, not made cheaper per step */
	if (!pre && adv_compiling(f, a))
		return;
	int graphs = adv_graphs_used(a) || pre;
	switch (kind(a)) {
	case PK_PYTORCH:
		if (adv_decode_loop(a))
			finding_action(f,
				       N_("decoding: a static KV cache "
					  "(generate(..., cache_implementation=\"static\")) with "
					  "torch.compile, so each token is one compiled graph; "
					  "batch requests"));
		if (!graphs)
			finding_action(f, N_("cut the host's per-step cost: CUDA graphs "
					     "(torch.cuda.graphs, torch.compile(mode=\"reduce-"
					     "overhead\")) replay the step's launches at once"));
		finding_action(f, N_("do more work per step (a larger batch) so the same host "
				     "work feeds more GPU work"));
		adv_loader_share(f, a);
		finding_action(f, N_("move logging, metrics and bookkeeping off the critical "
				     "path: every N steps, or on a background thread"));
		break;
	case PK_JAX:
		finding_action(f, N_("jit the whole step, and the loop with lax.scan / fori_loop, "
				     "so Python runs once per many steps"));
		finding_action(f, N_("move Python work between steps (logging, metrics) to every "
				     "N steps"));
		break;
	case PK_CUPY:
		if (!pre)
			finding_action(f,
				       N_("cut Python work per step: cupy.fuse the step, capture "
					  "it with cupy.cuda.Graph"));
		break;
	default:
		if (!graphs)
			finding_action(f,
				       N_("capture the step's launches in a CUDA graph and replay "
					  "it"));
		finding_action(f, N_("move host work out of the loop or onto another thread so "
				     "it overlaps the GPU"));
	}
}

/* 1 when the trace can show PyTorch's DataLoader (host samples or op
 * events) and shows none: no sample in torch/utils/data/, no data-loading
 * range (torch.profiler's "enumerate(DataLoader)#...", a dataset's
 * __getitem__, collate) */
static int no_loader(const struct analysis *a)
{
	if (a->hostidle.loader_samples || (!a->hostidle.have_samples && !a->ops.have_ops))
		return 0;
	return !a->ops.dataload_name_id;
}

/* When native code that makes data (hostside.h HB_NATIVE: NumPy's random
 * numbers, a BLAS call, a codec) makes each batch: the main thread's
 * heaviest native frame in such a module (the evidence's own test,
 * hostidle.c; never libc's memcpy beside it), named into buf, and its share
 * of the idle as HOST WHILE THE GPU WAITED gives it (report_hostwait.c).
 * NULL: another evidence, or no such frame. */
static const char *batch_native(const struct analysis *a, char *buf, size_t cap, double *pct)
{
	const struct an_hw_thread *m = an_hw_thread_of(&a->hostwait, AN_IDLE_HOST, 1);
	const struct trace *w = a->whole ? a->whole : a->t;
	if (a->hostside.makes_batch != HB_NATIVE)
		return NULL;
	for (int i = 0; m && i < m->n_native; i++) {
		uint32_t fr = m->native[i].frame;
		if (fr && !(fr & HW_RANGE_FRAME) && fr <= w->n_host_frames &&
		    an_host_datamake_module(trace_str(w, w->host_frames[fr - 1].module_id))) {
			*pct = an_hw_share(&a->hostwait.c[AN_IDLE_HOST], m->native[i].ns);
			return an_hw_frame_name(w, fr, buf, cap);
		}
	}
	return NULL;
}

/* The program makes each batch on the CPU itself (hostside.h), with no
 * decoding or augmentation seen: with one op or one line of its own, what
 * removes the host's work and the copy from the step is the data kept on
 * the GPU; in native code that makes data, that step has a counterpart on
 * CUDA tensors. 0: nothing to name. */
static int adv_batch_on_gpu(struct finding *f, const struct analysis *a)
{
	char buf[1024];
	const char *what = NULL;
	const struct an_hw_thread *m = an_hw_thread_of(&a->hostwait, AN_IDLE_HOST, 1);
	double pct = 0;
	if (a->hostside.makes_batch == HB_NATIVE) {
		if (!(what = batch_native(a, buf, sizeof(buf), &pct)))
			return 0;
		finding_action(
		    f,
		    N_("%.0f%% of this idle the main thread is in %s, native code making the "
		       "batch on the CPU: do that step on the GPU instead, with its torch "
		       "counterpart on CUDA tensors, and copy less"),
		    pct, what);
		return 1;
	}
	if (a->hostside.makes_batch == HB_OP && a->hostside.batch_op_id)
		what = trace_str(a->t, a->hostside.batch_op_id);
	else if (m)
		what = an_hw_fn_name(a->whole ? a->whole : a->t, &m->top[0], buf, sizeof(buf));
	if (!what || !*what)
		return 0;
	finding_action(f,
		       N_("each batch is gathered on the CPU by %s and then copied: when the data "
			  "fits in GPU memory, move it to the GPU once and gather each batch there "
			  "(index the GPU tensor with the batch's indices), so neither the gather "
			  "nor the copy is left in the step"),
		       what);
	return 1;
}

void adv_input(struct finding *f, const struct analysis *a)
{
	if (adv_one_time(f, a))
		return;
	adv_preprocessing(f, a); /* #36 item 6: the function named first */
	/* pin_memory only when the batches still come from pageable memory */
	double pageable =
	    a->copy.bytes ? (double)a->copy.pageable_bytes / (double)a->copy.bytes : 0;
	switch (kind(a)) {
	case PK_PYTORCH:
		if (no_loader(a))
			finding_action(
			    f,
			    N_("no DataLoader was seen: the batches are made on the training "
			       "thread; make them in a torch.utils.data.Dataset's __getitem__ "
			       "and iterate a DataLoader(num_workers=N, persistent_workers=True, "
			       "pin_memory=True), so workers prepare the next batches while the "
			       "GPU computes"));
		else
			finding_action(
			    f, N_("prepare batches in parallel: more DataLoader workers "
				  "(num_workers up to the free cores), persistent_workers=True, "
				  "prefetch_factor=2..4"));
		if (a->hostside.makes_batch == HB_NONE || !adv_batch_on_gpu(f, a))
			finding_action(
			    f, N_("move decoding and augmentation to the GPU (NVIDIA DALI, "
				  "torchvision.transforms.v2 on CUDA tensors), or make the CPU "
				  "transforms lighter (decode once and cache, smaller crops)"));
		if (pageable >= TH_PAGEABLE_SHARE)
			finding_action(f,
				       N_("pin the batches (DataLoader(pin_memory=True)) and copy "
					  "them with non_blocking=True"));
		break;
	case PK_JAX: {
		finding_action(f, N_("prefetch batches to the device in the background (a "
				     "producer thread with jax.device_put, or grain / tf.data "
				     "prefetch)"));
		char buf[1024];
		double pct = 0;
		const char *nat = batch_native(a, buf, sizeof(buf), &pct);
		if (nat)
			finding_action(
			    f,
			    N_("%.0f%% of this idle the main thread is in %s, native code "
			       "making the batch on the CPU: make that data on the device "
			       "inside the jitted step instead (jax.random, jax.numpy), so "
			       "there is nothing to copy"),
			    pct, nat);
		else
			finding_action(f, N_("do the preprocessing on the device inside the jitted "
					     "step"));
		break;
	}
	default:
		finding_action(f, N_("produce the next batch on another host thread while the GPU "
				     "works (double buffering)"));
		finding_action(f, N_("do the preprocessing on the GPU"));
		if (pageable >= TH_PAGEABLE_SHARE)
			finding_action(f, N_("use pinned buffers (cudaHostAlloc) and "
					     "cudaMemcpyAsync"));
	}
}

/* Numba copies every NumPy array argument of a kernel call to the device
 * and back around the call, synchronously (its "auto transfer") */
static void adv_transfer_numba(struct finding *f, double pageable)
{
	finding_action(f, N_("keep the arrays on the device: cuda.to_device once before the "
			     "loop and pass the device arrays to the kernel (a NumPy argument is "
			     "copied in and back around every call), copy_to_host at the end"));
	if (pageable >= TH_PAGEABLE_SHARE)
		finding_action(f,
			       N_("what must move: from cuda.pinned_array buffers, with "
				  "to_device(..., stream=s) / copy_to_host(stream=s) on a "
				  "cuda.stream() so copies overlap kernels: %.0f%% of the bytes go "
				  "through pageable staging"),
			       100.0 * pageable);
}

void adv_transfer(struct finding *f, const struct analysis *a, double pageable)
{
	int torch = kind(a) == PK_PYTORCH;
	if (kind(a) == PK_NUMBA) {
		adv_transfer_numba(f, pageable);
		return;
	}
	if (pageable >= TH_PAGEABLE_SHARE)
		finding_action(
		    f,
		    torch ? N_("pin the host batches (tensor.pin_memory(), "
			       "DataLoader(pin_memory=True)) and copy with "
			       "non_blocking=True: %.0f%% of the bytes go through pageable "
			       "staging")
			  : N_("use pinned host memory (cudaHostAlloc / cudaMallocHost): "
			       "%.0f%% of the bytes go through pageable staging"),
		    100.0 * pageable);
	if (torch)
		finding_action(f, N_("overlap the copy with compute: copy the next batch on a side "
				     "stream (torch.cuda.Stream) while this step runs, and wait on "
				     "an event"));
	else if (kind(a) == PK_JAX)
		finding_action(f, N_("prefetch: jax.device_put the next batch before this step's "
				     "result is needed"));
	else
		finding_action(f, N_("overlap copies with kernels: cudaMemcpyAsync on a second "
				     "stream, double-buffered"));
	finding_action(f, N_("keep the data on the device across steps, and batch small copies "
			     "into fewer, larger ones"));
}

void adv_sync(struct finding *f, const struct analysis *a, const char *op)
{
	switch (kind(a)) {
	case PK_PYTORCH:
		if (op && *op)
			finding_action(
			    f,
			    N_("the syncs come from %s: keep the values on the GPU "
			       "(accumulate losses and metrics in tensors) and read them "
			       "every N steps"),
			    op);
		else if (op) /* NULL: anomaly detection's checks, named already */
			finding_action(f,
				       N_("remove per-step host reads (.item(), .cpu(), "
					  ".tolist(), if on a tensor, print of tensors) from the "
					  "loop; read values every N steps"));
		finding_action(f, N_("copy results back with non_blocking=True and wait on a CUDA "
				     "event only where the value is needed"));
		break;
	case PK_JAX:
		finding_action(f, N_("keep metrics on the device (no float(), jax.device_get or "
				     "block_until_ready in the loop) and read them every N steps"));
		finding_action(f, N_("run several steps per call with lax.scan / lax.fori_loop "
				     "inside jit"));
		break;
	case PK_CUPY:
		finding_action(f, N_("avoid per-step .get() / cupy.asnumpy and stream "
				     "synchronize calls; read results every N steps"));
		break;
	case PK_NUMBA:
		finding_action(f,
			       N_("pass device arrays (cuda.to_device) so kernel calls do not "
				  "copy back and wait; avoid copy_to_host and cuda.synchronize() "
				  "in the loop"));
		break;
	default:
		finding_action(f,
			       N_("replace cudaDeviceSynchronize / cudaStreamSynchronize in the "
				  "loop with CUDA events (cudaEventRecord + cudaStreamWaitEvent) "
				  "where the host need not wait"));
	}
	finding_action(f, N_("let the host run ahead: queue the next step before waiting on the "
			     "previous one"));
}

void adv_sync_uploads(struct finding *f, const struct analysis *a)
{
	switch (kind(a)) {
	case PK_PYTORCH:
		finding_action(f,
			       N_("upload without waiting: a .to(\"cuda\") from pageable memory "
				  "copies and then waits for the copy; copy from pinned memory "
				  "(tensor.pin_memory()) with .to(\"cuda\", non_blocking=True)"));
		break;
	case PK_JAX:
		finding_action(f, N_("upload without waiting: jax.device_put is asynchronous, so "
				     "no block_until_ready after each one"));
		break;
	case PK_CUPY:
		finding_action(f, N_("upload without waiting: copy from pinned memory "
				     "(cupyx.empty_pinned) with ndarray.set(..., stream=) on a "
				     "non-default stream, and synchronize once"));
		break;
	case PK_NUMBA:
		finding_action(f,
			       N_("upload without waiting: cuda.to_device(..., stream=) from "
				  "pinned memory (cuda.pinned_array), and synchronize the stream "
				  "once"));
		break;
	default:
		finding_action(f,
			       N_("upload without waiting: cudaMemcpyAsync from pinned memory "
				  "(cudaHostAlloc), with no stream synchronize after each copy"));
	}
	finding_action(f, N_("let the host run ahead: queue the next step before waiting on the "
			     "previous one"));
}

void adv_calls(struct finding *f, const struct analysis *a, enum call_cause top)
{
	int torch = kind(a) == PK_PYTORCH;
	switch (top) {
	case CC_FREE:
	case CC_ALLOC:
		if (torch) {
			finding_action(f, N_("stop releasing the caching allocator's memory in the "
					     "loop (torch.cuda.empty_cache()): let it reuse its "
					     "blocks"));
			finding_action(f, N_("against fragmentation rather than empty_cache: "
					     "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"));
		} else if (kind(a) == PK_CUPY) {
			finding_action(f, N_("keep CuPy's memory pool (no free_all_blocks in the "
					     "loop)"));
		} else {
			finding_action(f,
				       N_("allocate once before the loop and reuse the buffers "
					  "(or cudaMallocAsync from a memory pool): cudaFree waits "
					  "for the device"));
		}
		break;
	case CC_MODULE:
		finding_action(f, N_("load or compile kernels before the measured loop: warm up "
				     "every shape first, CUDA_MODULE_LOADING=EAGER, and keep "
				     "compiler caches (TRITON_CACHE_DIR, the inductor cache)"));
		break;
	case CC_CONTEXT:
		finding_action(f, N_("each process creates its own CUDA context (hundreds of ms): "
				     "start worker processes once and reuse them (persistent "
				     "workers, a process pool); initialise CUDA only where it is "
				     "used"));
		break;
	case CC_GRAPH:
		finding_action(f, N_("capture and instantiate the CUDA graph once, then only "
				     "replay it"));
		break;
	case CC_STREAM_EVENT:
		finding_action(f, N_("create streams and events once, outside the loop"));
		break;
	case CC_HOST_REGISTER:
		finding_action(f, N_("register (pin) host buffers once and reuse them"));
		break;
	case CC_QUERY:
		finding_action(f, N_("query device properties once and keep the answers"));
		break;
	default:
		finding_action(f, N_("move setup calls out of the loop"));
	}
	if (prog_has(&a->prog, PL_CUDNN) && top != CC_CONTEXT && torch)
		finding_action(f, N_("with cuDNN: set torch.backends.cudnn.benchmark=True and run "
				     "its autotuning in a warm-up step, not in the measured loop"));
}

void adv_memory_peak(struct finding *f, const struct analysis *a)
{
	switch (kind(a)) {
	case PK_PYTORCH:
		finding_action(f, N_("lower the activations' memory: bf16 autocast "
				     "(torch.autocast), activation checkpointing "
				     "(torch.utils.checkpoint)"));
		finding_action(f, N_("a smaller micro-batch with gradient accumulation keeps the "
				     "effective batch"));
		finding_action(f, N_("against fragmentation: "
				     "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True; plan with "
				     "gpuscope vram MODEL"));
		break;
	case PK_JAX:
		finding_action(f, N_("rematerialize activations (jax.checkpoint), donate buffers "
				     "(donate_argnums), or a smaller batch"));
		finding_action(f, N_("XLA preallocates 75%% of the card by default: "
				     "XLA_PYTHON_CLIENT_MEM_FRACTION / PREALLOCATE=false if other "
				     "processes need memory"));
		break;
	default:
		finding_action(f, N_("free or reuse buffers between phases, or process the data "
				     "in smaller chunks"));
	}
}

void adv_kernels(struct finding *f, const struct analysis *a, int bound, int owner, int at_roof)
{
	/* #36 item 1: fp32 GEMMs without tensor cores: the precision switch
	 * comes before any other kernel advice */
	adv_precision(f, a);
	/* attention as GEMM, softmax, GEMM: the fused kernel first */
	adv_attention(f, a);
	int lib = owner == KO_LIBRARY, fw = owner == KO_FRAMEWORK || owner == KO_GENERATED;
	int triton = prog_has(&a->prog, PL_TRITON) && owner == KO_USER && kind(a) != PK_CUDA;
	/* the top kernel a library's but no GEMM or attention (cuFFT, cuRAND,
	 * CUB): shapes in multiples of 128 and fp8 tensor cores say nothing to it
	 * (CuPy's fft2, H200) */
	int lib_gemm = a->n_kgroups &&
		       (a->kgroups[0].family == KF_GEMM || a->kgroups[0].family == KF_ATTENTION);
	if (lib && !lib_gemm) {
		finding_action(f, N_("the time is in library kernels that are not GEMMs (FFT, "
				     "random numbers, sorts, reductions): fewer, larger calls (a "
				     "batched plan or one call over many arrays) and fewer passes "
				     "over the data (a real-to-complex FFT for real input)"));
		return;
	}
	if (lib) {
		if (at_roof)
			finding_action(f,
				       N_("the time is in library kernels (cuBLAS/cuDNN/flash) at "
					  "their roof: what is left is less work: lower precision "
					  "(fp8 on Hopper's tensor cores), shapes in multiples of "
					  "128, batching small GEMMs (batched/grouped GEMM)"));
		else
			finding_action(
			    f, N_("the time is in library kernels: give them larger, "
				  "better-shaped work (batch, sequence length, multiples of "
				  "128) or a fused library op"));
		if (kind(a) == PK_CUDA)
			finding_action(f,
				       N_("fuse the epilogue into the library call (cuBLASLt "
					  "epilogues: bias, ReLU/GELU) instead of a kernel after "
					  "it"));
		return;
	}
	if (fw) {
		/* PyG on PyTorch's gather/scatter kernels (pyg_gcn, H200: index_add
		 * and scatter 38% of the busy time at 43% of DRAM) */
		int pyg = kind(a) == PK_PYTORCH && top_is_scatter(a) && pyg_program(a);
		double by_index = kind(a) == PK_PYTORCH && top_is_scatter(a) ? scatter_share(a) : 0;
		if (pyg)
			finding_action(f,
				       N_("PyTorch Geometric's message passing (gather, then "
					  "scatter-add by index) is the time: for a fixed graph "
					  "cache the normalised adjacency (GCNConv(cached=True)); "
					  "a sparse adjacency (torch_sparse.SparseTensor or a "
					  "torch.sparse CSR matrix as edge_index) makes each "
					  "layer one SpMM"));
		else if (by_index >= TH_SCATTER_SHARE) {
			/* nothing names the library (a torch.profiler trace without
			 * stacks): the two programs that run this way */
			finding_num(f, "by_index_kernel_pct", 100.0 * by_index);
			finding_action(
			    f,
			    N_("%.0f%% of the kernel time gathers and scatter-adds rows by "
			       "index: for graph message passing, a sparse matrix product "
			       "does it in one kernel (torch.sparse.mm on a CSR adjacency; "
			       "PyTorch Geometric: a SparseTensor as edge_index); for a "
			       "mixture of experts, group the tokens by expert for grouped "
			       "GEMMs"),
			    100.0 * by_index);
		}
		if (kind(a) == PK_PYTORCH && !prog_has(&a->prog, PL_INDUCTOR))
			finding_action(f,
				       N_("the time is in PyTorch's own kernels: torch.compile "
					  "fuses chains of elementwise and reduction ops, so they "
					  "pass over memory once"));
		else if (kind(a) == PK_JAX)
			finding_action(f, N_("the time is in XLA's fusions: larger batches, bf16, "
					     "and fewer passes over the data in the model"));
		else
			finding_action(f,
				       N_("the time is in framework or generated kernels: fewer "
					  "passes over the data (fusion), lower precision, larger "
					  "work per kernel"));
		return;
	}
	/* the program's own kernels */
	if (bound == 0) {
		if (at_roof)
			finding_action(f, triton
					      ? N_("the kernel is at the DRAM roof: BLOCK_SIZE "
						   "and num_warps cannot take it further; fuse "
						   "more of the chain into this @triton.jit "
						   "kernel so it moves fewer bytes")
					      : N_("the kernels are at the DRAM roof: move fewer "
						   "bytes (fuse consecutive kernels, reuse data "
						   "in shared memory)"));
		else
			finding_action(f,
				       N_("cut DRAM passes: fuse consecutive kernels, reuse data "
					  "in shared memory"));
		finding_action(f, N_("use lower precision (bf16/fp8) to move fewer bytes"));
	} else if (bound == 1) {
		finding_action(f, N_("look for algorithmic savings in the top kernels"));
		finding_action(f, N_("use lower precision where accuracy allows (tensor cores: "
				     "bf16, fp8)"));
	} else if (bound == 2) {
		if (triton)
			finding_action(f,
				       N_("put more work in flight: a larger BLOCK_SIZE, more "
					  "num_warps or num_stages (triton.autotune over them)"));
		else
			finding_action(f, N_("put more work in flight: wider loads (float4), more "
					     "independent loads or instructions per thread, higher "
					     "occupancy"));
		finding_action(f, N_("check access patterns: coalesced global loads, no "
				     "shared-memory bank conflicts, little warp divergence"));
	}
}

/* ---- ROCm (issue 40) ---- */

/* s with every "from" replaced by "to", in place (cap bytes; cut, never overrun) */
static void replace_all(char *s, size_t cap, const char *from, const char *to)
{
	char out[512];
	size_t o = 0, fl = strlen(from), tl = strlen(to);
	for (const char *p = s; *p && o + 1 < sizeof(out);) {
		if (!strncmp(p, from, fl)) {
			size_t k = tl < sizeof(out) - 1 - o ? tl : sizeof(out) - 1 - o;
			memcpy(out + o, to, k);
			o += k;
			p += fl;
		} else {
			out[o++] = *p++;
		}
	}
	out[o] = 0;
	if (o >= cap)
		o = cap - 1; /* cut at the action's size */
	memcpy(s, out, o);
	s[o] = 0;
}

void adv_rocm_text(char *s, size_t cap)
{
	/* the longer names first: "cuBLASLt" before "cuBLAS", the calls before "CUDA" */
	static const char *const sub[][2] = {
	    {"cuBLAS/cuDNN", "rocBLAS/MIOpen"},
	    {"cuBLASLt", "hipBLASLt"},
	    {"cuBLAS", "rocBLAS"},
	    {"cuDNN", "MIOpen"},
	    {"cudaStreamBeginCapture", "hipStreamBeginCapture"},
	    {"cudaGraphLaunch", "hipGraphLaunch"},
	    {"cudaHostAlloc", "hipHostMalloc"},
	    {"cudaMallocHost", "hipHostMalloc"},
	    {"cudaMallocAsync", "hipMallocAsync"},
	    {"cudaMemcpyAsync", "hipMemcpyAsync"},
	    {"cudaDeviceSynchronize", "hipDeviceSynchronize"},
	    {"cudaStreamSynchronize", "hipStreamSynchronize"},
	    {"cudaEventRecord", "hipEventRecord"},
	    {"cudaStreamWaitEvent", "hipStreamWaitEvent"},
	    {"cudaFree", "hipFree"},
	    {"PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_HIP_ALLOC_CONF"},
	    {"CUDA_MODULE_LOADING=EAGER, ", ""},
	    {"Nsight Compute", "rocprofiler-compute"},
	    {"Nsight Systems", "rocprofv3 --kernel-trace"},
	    {"nvidia-smi", "amd-smi"},
	    {"CUDA", "HIP"},
	};
	for (size_t i = 0; i < sizeof(sub) / sizeof(sub[0]); i++)
		if (strstr(s, sub[i][0]))
			replace_all(s, cap, sub[i][0], sub[i][1]);
}

void adv_rocm_terms(struct analysis *a)
{
	if (!a->prog.rocm)
		return;
	for (size_t i = 0; i < a->findings.n; i++) {
		struct finding *f = &a->findings.v[i];
		/* the English here, the reader's language when shown (report/finding.c) */
		f->rocm = 1;
		adv_rocm_text(f->title, sizeof(f->title));
		for (int k = 0; k < f->n_actions; k++) {
			char *s = f->actions[k];
			size_t cap = sizeof(f->actions[k]);
			/* what only a CUDA tool does: ROCm's tool for it */
			if (strstr(s, "ncu"))
				finding_action_set(
				    f, k,
				    N_("look inside the top kernel with rocprofiler-compute "
				       "(rocprof-compute profile -n run -- PROGRAM, then "
				       "rocprof-compute "
				       "analyze) or rocprofv3 --pmc: its occupancy, stalls and "
				       "memory "
				       "traffic"));
			else if (strstr(s, "gpuscope record"))
				finding_action_set(
				    f, k,
				    N_("tell data loading from per-step overhead: profile with "
				       "torch.profiler(with_stack=True) (gpuscope record "
				       "traces CUDA "
				       "programs only); the report then names the host "
				       "functions the "
				       "GPU waits for"));
			else {
				f->rocm |= 1u << (1 + k);
				adv_rocm_text(s, cap);
			}
		}
	}
}

/* the process's own threads fill the CPUs it may use */
static void adv_fewer_threads(struct finding *f, const struct analysis *a)
{
	if (kind(a) == PK_PYTORCH)
		finding_action(f, N_("use fewer threads than CPUs: torch.set_num_threads(N) "
				     "and OMP_NUM_THREADS=N with N the CPUs divided by the GPU "
				     "processes on the host, and DataLoader num_workers within "
				     "what is left"));
	else
		finding_action(f, N_("use fewer threads than CPUs: OMP_NUM_THREADS, "
				     "MKL_NUM_THREADS or the library's own thread count at the "
				     "CPUs divided by the GPU processes on the host"));
}

void adv_contention(struct finding *f, const struct analysis *a, int by_gil, const char *other)
{
	const struct an_contention *c = &a->contention;
	/* its own threads fill its CPUs, or other processes take them */
	int own = c->cpus > 0 && (double)c->proc_cpu_ns >=
				     TH_CONTENTION_OWN_SHARE * (double)c->cpus * (double)c->wall_ns;
	if (by_gil) {
		if (other)
			finding_action(
			    f,
			    N_("move %s out of the launching process (a "
			       "multiprocessing.Process, a worker pool or a separate "
			       "service): threads of one Python process take turns on one "
			       "GIL, and each turn of that thread is a pause between launches"),
			    other);
		else
			finding_action(
			    f, N_("move the other thread's Python work out of the "
				  "launching process (a multiprocessing.Process or a worker "
				  "pool): threads of one Python process take turns on one GIL"));
		finding_action(f, N_("make that work cheaper or rarer (every N steps), or do it in "
				     "code that releases the GIL (NumPy, a C extension, I/O)"));
		finding_action(f,
			       N_("sys.setswitchinterval(0.001) hands the GIL back to the "
				  "launching thread sooner than the default 5 ms, at some cost to "
				  "the other thread"));
		/* many threads taking turns on the GIL also fill the CPUs
		 * (torch_cpu_oversub, H100: 34 busy threads on 16 CPUs, the
		 * launching thread waiting for a CPU 17% of its time) */
		if (own)
			adv_fewer_threads(f, a);
		return;
	}
	if (own || c->cpus <= 0) {
		adv_fewer_threads(f, a);
	} else {
		finding_action(f, N_("other processes on the host compete for these CPUs: give "
				     "the job CPUs of its own (taskset, numactl, the container's "
				     "CPU limit) or run fewer jobs on the host"));
	}
	finding_action(f, N_("keep a CPU for the launching thread (os.sched_setaffinity or "
			     "taskset for the process's workers) so it never waits behind them"));
}
