/*
 * thresholds.h - every number the report's rules compare against, in one
 * table, each with where it comes from (a section of docs/method.md, an Nsight Systems /
 * Nsight Compute / HTA rule, or a measurement on the H200).
 * docs/report-rules.md explains how each is used.
 */
#ifndef GPUSCOPE_THRESHOLDS_H
#define GPUSCOPE_THRESHOLDS_H

/* HTA launch statistics: a kernel shorter than 10 us is a "short kernel". */
#define TH_SHORT_KERNEL_NS 10000LL
/* Measurement (H200, 2026-12-02): CUPTI-traced launch floor 4.0-4.8 us per
 * launch. A GPU gap shorter than ~10 launches (50 us) between two pieces of
 * work is launch/queue latency, not host work (HTA's "kernel wait"). */
#define TH_LAUNCH_GAP_NS 50000LL
/* Host time between two CUDA calls: PyTorch's per-op dispatch costs 10-50 us
 * between launches (our small_ops/transformer kineto traces on the H200);
 * a stretch of >= 500 us with no CUDA call at all is host work (data
 * loading, preprocessing, Python outside the framework): input_pipeline.
 * Shorter stretches are dispatch overhead: launch_overhead. */
#define TH_HOST_WORK_NS 500000LL
/* After a blocking sync returns the host must relaunch; docs/method.md §4.1: the
 * relaunch costs a few launches. Idle up to 100 us after the sync returns is
 * charged to the sync, the rest to whatever the host does next. */
#define TH_SYNC_RELAUNCH_NS 100000LL
/* Measurement (H200, zoo graph_storm): a 1-block kernel replayed from a CUDA
 * Graph takes 0.9 us on the GPU: the fixed cost of one kernel that fusing
 * short kernels wins back, added to launch_overhead per short kernel. Short
 * kernels get no grid-shape findings (small_grid, occupancy, tail): their
 * time is launch cost, not parallelism. */
#define TH_KERNEL_FLOOR_NS 1000LL
/* GPM samples (gpm.c): a window counts as busy when the GPU was busy for at
 * least half of it (below that the rescaled value is mostly noise). */
#define TH_SAMPLE_BUSY_FRAC 0.5
/* Sample clock alignment (gpm.c): search +-250 ms in 5 ms steps (H200: the
 * GPM windows trailed CUPTI's kernels by 30-80 ms); take a shift only when
 * it correlates SM activity with busy share at >= 0.5 and beats no shift
 * by >= 0.05. */
#define TH_LAG_MAX_NS 250000000LL
#define TH_LAG_STEP_NS 5000000LL
#define TH_LAG_MIN_CORR 0.5
#define TH_LAG_MIN_GAIN 0.05
/* At most this many windows (evenly spaced) enter the alignment: 2000
 * windows are 3-5 minutes of 10 Hz samples; the search stays < 0.1 s on
 * hour-long recordings. Our choice. */
#define TH_LAG_MAX_WINDOWS 2000
/* Warm-up of a recorded process (analysis.c): at least 50 launches; the
 * steady state is the longest run of launches of kernels already seen; the
 * dropped prefix must be warm-up-like (>= 1% of its launches first-of-name,
 * >= 5% of the time from the first kernel to the last) and the cut must keep
 * at least half of all launches. Our choice; on the
 * H200 PyTorch recordings the cut lands at the first warm training step, on
 * the CUDA zoo it drops at most the first few launches. */
#define TH_WARM_MIN_LAUNCHES 50
#define TH_WARM_PREFIX_COLD 0.01
#define TH_WARM_MIN_PREFIX_SHARE 0.05
#define TH_WARM_MIN_KEEP 0.5
/* Nsight Systems gpu_gaps rule: a GPU gap of >= 500 ms is reported. */
#define TH_GPU_GAP_NS 500000000LL
/* Nsight Systems gpu_time_util rule: 30 chunks, a chunk < 50% busy flagged. */
#define TH_UTIL_CHUNKS 30
#define TH_UTIL_CHUNK_LOW_PCT 50.0
/* docs/method.md §3.1 (GPU-Util >= 80% is healthy) -> gpu_busy. */
#define TH_GPU_BUSY_PCT 80.0
/* Findings: impact below this is not reported (noise floor, our choice). */
#define TH_MIN_IMPACT_PCT 5.0
/* Severity from impact: warning at >= 10%, critical at >= 30% of wall time
 * (a third of the run: the size launch overhead reaches in a program of many
 * short kernels, docs/method.md §3.2). */
#define TH_WARN_IMPACT_PCT 10.0
#define TH_CRIT_IMPACT_PCT 30.0
/* The primary's refinement (verdict.c): a critical GPU-side finding that
 * explains this many times a host-side finding's impact stays primary (a
 * 2-block kernel at 68% of the run against 25% of one host setup stretch:
 * issue #36); our choice. */
#define TH_REFINE_RATIO 2.0
/* One host stretch holding this share of the host idle is work done once
 * (setup, data made before the loop), not per-step work; our choice. */
#define TH_ONE_TIME_SHARE 0.5
/* Periodic host work (an_periodic_stall): a quiet stretch (below) of 20 ms
 * or more that is 10 times the window's median gap or more, at least 3 of them, at a
 * pace whose intervals keep within 25% of their median (two thirds of
 * them: a checkpoint or a log every N steps of a steady loop); our choice.
 * 20 ms: a torch.save of a small model to a local disk (docs/causes.md
 * row 37); the ratio keeps a loop whose every step waits on the host out. */
#define TH_PERIODIC_STALL_NS 20000000LL
#define TH_PERIODIC_RATIO 10.0
#define TH_PERIODIC_MIN 3
#define TH_PERIODIC_JITTER 0.25
/* ... and, where the host waits nowhere else (a loop that queues its steps
 * ahead), stalls at least 3 times their length apart (the GPU works twice
 * as long as one lasts between two): a wait that takes a third of every
 * step or more is the step's own host work; our choice. */
#define TH_PERIODIC_SPACING 3.0
/* ... a stall being a quiet stretch: GPU gaps of 200 us or more (a launch-
 * bound step's gaps are tens of us) merged while the GPU work between them
 * stays within 20% of the stretch: torch.save of GPU tensors copies them
 * one by one (torch_ckpt_every on the H100: 140-240 ms stretches of
 * copies and syncs, no gap over 15 ms, split in two at 10% under
 * torch.profiler); our choice. */
#define TH_QUIET_GAP_NS 200000LL
#define TH_QUIET_BUSY 0.2
/* unprofiled.c (issue #36 item 8): torch.profiler's own host cost for each
 * record it takes (a CPU op, a Python function, an annotation, a CUDA
 * call). Fitted on the paired fixtures (the same program recorded by
 * gpuscope and profiled, H200): the cost per record that makes the
 * profile's estimated GPU busy share the recording's was 2.4 us
 * (pytorch/transformer_step), 2.9 us (real/hf_bert_syncs), 5.8 us
 * (pytorch/small_ops) and 6.3 us (real/tv_resnet_loader), the four where
 * both are host-bound; 3 us is the low half, so the estimate errs toward
 * the trace's own verdict. The README's "+25 us per launch" on
 * hf_llama_train is ~6 records a launch at ~4 us. */
#define TH_PROFILER_EVENT_NS 3000LL
/* host_contention (analyze/contention.c, rules_host.c; issue 36 item 4):
 * a thread on a CPU 10% of the window is busy (as record keeps its
 * samples: hostsample/hostsampler.h); the launching thread waiting for a
 * CPU 10% of its time, or asleep outside CUDA calls (less known waits)
 * 20% of it while another thread of its process ran Python on a CPU 30%
 * of it, is contention (our choices: a launch-bound step gives up a few
 * percent to the scheduler on a quiet host; torch_gil_thread's launching
 * thread waits for most of it). A contention finding that explains half
 * of the host-side primary's impact or more is the primary: the waiting
 * is why the host is slow. */
#define TH_CONTENTION_BUSY_SHARE 0.1
#define TH_CONTENTION_WAIT_SHARE 0.1
#define TH_CONTENTION_SLEEP_SHARE 0.2
#define TH_CONTENTION_OTHER_SHARE 0.3
#define TH_CONTENTION_PRIMARY_SHARE 0.5
/* its advice: a process whose threads use 90% of its CPUs fills them
 * itself (fewer threads), else other processes take them; our choice */
#define TH_CONTENTION_OWN_SHARE 0.9
/* the GIL case wants an other thread that does not feed the GPU itself: one
 * making a tenth as many launch calls as the launching thread, or more, is
 * a launcher too (PyTorch's autograd engine launches the backward on its
 * own thread, asleep while the main thread runs the step's Python:
 * torch_stft_preproc on the H200, 2026-12-06), so the GPU waits on that
 * thread's work (input_pipeline, host_overhead), not on a lock; our choice. */
#define TH_CONTENTION_OTHER_LAUNCHES 0.1
/* The GIL from a trace's op events (contention.c op_pauses): a launching
 * thread's pauses of TH_GIL_PAUSE_MIN_NS or more between its ops; those of
 * one hand-over lie within [TH_GIL_QUANTUM_MIN_NS, TH_GIL_QUANTUM_MAX_NS]
 * (CPython's default switch interval is 5 ms; the holder lets go at its
 * next check, and the waiter takes a moment to run: torch_gil_thread's
 * trace, H100: 68 pauses of 5.2-6.3 ms, 9 of 12.0-12.4, 3 of 18.4, 14
 * longer, none below 5 ms). With at least TH_GIL_PAUSES_MIN of one
 * hand-over, the pauses within 10% of 1 to 4 times their median, holding
 * TH_GIL_PAUSE_SHARE of the thread's pauses or more, are the GIL's. The
 * other 26 traces of the fixtures have at most 3 pauses of 4.5-7 ms on
 * any thread. Our choices: 2 ms is above an op's dispatch by far; 20
 * hand-overs are a pattern, not chance; half, since the hand-overs are
 * then the thread's usual pause. */
#define TH_GIL_PAUSE_MIN_NS 2000000
#define TH_GIL_QUANTUM_MIN_NS 4500000
#define TH_GIL_QUANTUM_MAX_NS 8000000
#define TH_GIL_PAUSES_MIN 20
#define TH_GIL_PAUSE_SHARE 0.5
/* ... after TH_GIL_DISTINCT_OPS different ops or more: work the program
 * does once a step (a batch made on the main thread between steps) pauses
 * after the same op each time, the GIL's hand-overs wherever the thread
 * asks for it back (torch_gil_thread's trace: after 5 ops: linear, gelu,
 * to, cross_entropy_loss, _foreach_add_). Our choice. */
#define TH_GIL_DISTINCT_OPS 3
/* recompilation (rules_compile.c): this many JIT stretches compiling a
 * kernel compiled before make a recompiling program; and an analysed window
 * under TH_WINDOW_MIN_SHARE of the run (first to last GPU work) is said, not
 * silently analysed (issue #36 item 2); our choices. */
#define TH_RECOMPILE_MIN 2
#define TH_WINDOW_MIN_SHARE 0.25
/* precision.c: fp32 GEMMs on the SIMT pipes holding this share of the
 * kernel time get the TF32/bf16 action (item_every_step, H200: 90%); our
 * choice. */
#define TH_FP32_SIMT_SHARE 0.3
/* attention.c: softmax kernels (not a loss's log softmax) holding this share
 * of the kernel time, with fused attention kernels holding less, get the
 * fused-attention action; our choice: a softmax that large is over
 * attention's scores (rows as long as the sequence), and 5% is what the
 * fused kernel saves at the least */
#define TH_ATTN_SOFTMAX_SHARE 0.05
/* smallcopies.c: copies of 64 KiB or less are small (a copy's fixed cost,
 * ~5-10 us, is then more than its bytes' time on a 25-50 GB/s link); a
 * thousand of them holding half the host-device copy time make transfer's
 * first action "batch them into one"; our choices. */
#define TH_SMALL_COPY_BYTES 65536
#define TH_SMALL_COPIES_MIN 1000
#define TH_SMALL_COPY_SHARE 0.5
/* sync_stall: when half of the blocking synchronizations or more come right
 * after a host-to-device copy call on the same thread, the host waits for
 * its own uploads (a pageable tensor.to("cuda") copies, then synchronizes
 * the stream), not for results: the advice is the uploads' (batch them,
 * upload without waiting), not the read-backs'; our choice (a majority). */
#define TH_SYNC_UPLOAD_SHARE 0.5
/* unified_memory (rules_uvm.c): how many of the kernels that ran with
 * page faults being serviced the finding names (the others are counted);
 * our choice. Its impact is measured, not estimated: the time the driver's
 * own records (GPU faults, the migrations it made on demand, throttling)
 * overlap kernels or GPU idle, against TH_MIN_IMPACT_PCT like the others. */
#define TH_UVM_NAMED_KERNELS 3
/* unified_memory: the host's CPU page faults chain into one stretch of
 * faulting while each follows the last within this; a longer wait between
 * two is host work of its own (TH_HOST_WORK_NS, the host-work threshold).
 * managed_faults on the H100: 82 us apart at the median, 298 us at the
 * 99th percentile, inside a step's loop. */
#define TH_UVM_FAULT_CHAIN_NS TH_HOST_WORK_NS
/* launch_overhead needs short kernels to be common: half of all kernels
 * (docs/method.md §3.2: many kernels, each short), or a median under 10 us. */
#define TH_SHORT_KERNEL_SHARE 0.5
/* Nsight Compute LaunchStatistics: grid < number of SMs -> small grid. */
/* Nsight Compute Occupancy rule: theoretical occupancy < 80% flagged. */
#define TH_OCCUPANCY 0.80
/* docs/method.md §4.3: occupancy 50% -> 80% cut kernel time 35%; the linear estimate
 * gain = (0.8 - occ) / 0.8 gives 37.5% there. Capped at 50%. */
#define TH_OCC_GAIN_CAP 0.50
/* Nsight Compute SpeedOfLight: >= 80% of peak is high throughput (roof);
 * SM% and memory% both < 60% -> latency (or small grid when waves < 1). */
#define TH_SOL_HIGH_PCT 80.0
#define TH_SOL_LOW_PCT 60.0
/* Nsight Compute ThreadDivergence: < 24 active threads per instruction. */
#define TH_DIVERGENCE_THREADS 24.0
/* Per-kernel counters (rules_counters.c). Nsight Compute's shared-memory
 * table counts wavefronts per request, 1 being ideal for 4-byte accesses:
 * at 2 or more per instruction on average a kernel is bank-conflicted
 * (2-way or worse). */
#define TH_BANK_WAYS 2.0
/* A thread access moves at most 16 bytes (a 128-bit load) and a sector is
 * 32: one sector or more per thread access means at most half of the
 * fetched bytes are used (for 4-byte loads an eighth): uncoalesced. */
#define TH_SECTORS_PER_THREAD 1.0
/* Counter evidence replaces the GPM-window verdicts (memory/compute/latency
 * bound) when the kernels it covers hold this share of the kernel time. */
#define TH_COUNTERS_COVER 0.5
/* tail_effect: only grids with few waves have a tail worth fixing (Nsight
 * LaunchStatistics "tail effect"); beyond 8 waves the waste is < 1/8. */
#define TH_TAIL_MAX_WAVES 8.0
/* transfer: pageable copies. PCIe Gen5 x16 is 64 GB/s theoretical (PCI-SIG,
 * 32 GT/s x 16 lanes, 128b/130b); pinned copies reach ~50 GB/s on H200 hosts
 * (commonly measured; our zoo pinned_copies fixture checks it). */
#define TH_PCIE_GEN5_X16_GBPS 64.0
#define TH_PCIE_MEASURED_GBPS 50.0
/* Pageable share above which "use pinned memory" is the first action
 * (docs/method.md §8: pin_memory). */
#define TH_PAGEABLE_SHARE 0.25

/* Columns of a kernel name inside a finding's message or action (the
 * finding's "kernel" value keeps the whole demangled name). */
#define TH_NAME_COLS 72
/* Warnings: gpuscope's own buffer handling above 1% of the traced
 * processes' lifetimes is said (our choice: below it the run is not
 * distorted more than its own run-to-run noise on the H200 zoo). */
#define TH_OVERHEAD_WARN_SHARE 0.01
/* Blocking launches (warnings.c "blocking_launches"): a launch call returns
 * in a few microseconds, long before a kernel of 20 us or more ends, even
 * on an idle GPU; one that returns after its kernel ended waited for it.
 * When at least 90% of at least 20 such launches did, launches are
 * synchronous (CUDA_LAUNCH_BLOCKING=1). A full launch queue does not do
 * this: the call then waits for an earlier kernel, not its own. */
#define TH_BLOCKING_KERNEL_NS 20000LL
#define TH_BLOCKING_SHARE 0.9
#define TH_BLOCKING_MIN_LAUNCHES 20
/* Anomaly detection left on (torchmodes.c, advice.c; docs/causes.md row
 * 18): autograd's engine checks every backward node's outputs for NaN
 * (engine.cpp: isnan(output)._is_any_true().item()), so all nodes with a
 * defined output hold a check; a program that checks a tensor of its own
 * (the loss once a step, a gradient hook inside AccumulateGrad) holds none
 * inside a node. At least 20 checked nodes, half of the window's backward
 * nodes or more, name it from op events; from host samples, the traceback
 * every forward op stores (torch.fx.traceback.format_stack) or the check in
 * 10% of the GPU-feeding threads' sampled time or more. Our choices: a
 * one-layer model's backward has a few nodes a step, a transformer's
 * thousands. */
#define TH_ANOMALY_MIN_NODES 20
#define TH_ANOMALY_NODE_SHARE 0.5
#define TH_ANOMALY_SAMPLE_SHARE 0.1
/* DDP's find_unused_parameters=True (torchmodes.c, switches.c; row 20):
 * the tails of the window's DistributedDataParallel.forward ranges after
 * their last op (at least TH_DDP_MIN_FORWARDS of them), as a share of the
 * window, or DDP's _post_forward / the reducer's graph walk as a share of
 * the GPU-feeding threads' sampled time: TH_DDP_SEARCH_SHARE or more. With
 * find_unused_parameters=False the tail is the reducer's reset, a few
 * microseconds a step. Our choice: 5%, what a finding's smallest named
 * part is worth (TH_MIN_IMPACT_PCT). */
#define TH_DDP_MIN_FORWARDS 3
#define TH_DDP_SEARCH_SHARE 0.05
/* torch.optim's per-parameter path (torchmodes.c, switches.c; row 9): the
 * kernels launched inside the window's optimizer steps, none of them a
 * multi-tensor op's, at least TH_OPTIM_LOOP_SHARE of the window's launches
 * and TH_OPTIM_LOOP_LAUNCHES a step; or the reader's samples in a
 * _single_tensor_* function at least TH_OPTIM_LOOP_SHARE of the
 * GPU-feeding threads' samples. A foreach or fused step launches a few
 * multi-tensor kernels per group of up to ~100 tensors (tens a step even
 * for large models), the per-parameter path several per tensor; our choice:
 * a quarter of the launches or host time, which makes it the biggest
 * single source of them in a training step of forward, backward and
 * update, and 100 launches a step, above what a multi-tensor step makes. */
#define TH_OPTIM_LOOP_SHARE 0.25
#define TH_OPTIM_LOOP_LAUNCHES 100
/* Kernels that gather or scatter rows by index (advice.c's scatter words:
 * index_add, gather, scatter, index_select) holding TH_SCATTER_SHARE or
 * more of the kernel time, with nothing naming the library that launches
 * them: the by-index advice (sparse products, grouped experts) comes
 * before torch.compile's. pyg_gcn's torch.profiler trace (H200): 63% (the
 * recording names PyTorch Geometric and gets its own advice). Our choice:
 * a third, where these kernels hold more than any other kind in a model
 * that also has GEMMs and elementwise chains. */
#define TH_SCATTER_SHARE 0.33
/* A decode loop seen from a torch.profiler trace's ops alone (advice.c
 * adv_decode_loop): Hugging Face generate's stopping criteria (aten::isin)
 * and its choice of the next token (aten::argmax, aten::multinomial) each
 * TH_DECODE_TOKENS times or more. hf_decode's trace (H200): 49 and 16 for
 * 16 tokens. Our choice: 8 tokens, a loop, not a one-off argmax in an
 * evaluation step. */
#define TH_DECODE_TOKENS 8
/* cuDNN autotuning per shape (torchmodes.c, rules_compile.c; row 13): a
 * convolution op runs a few kernels (the algorithm's GEMM or FFT kernels,
 * layout conversions, the bias), its autotuning several per candidate
 * algorithm. Measured (torch.profiler, H200, cuDNN 9, the NaN checks' own
 * launches left out): untuned calls launch 5-7 kernels (aten::conv2d) and
 * 6-11 (ConvolutionBackward0), with fixed shapes every step
 * (torch_detect_anomaly); autotuning calls 71-197 (torch_cudnn_shapes).
 * 10, the first choice, took every backward call of a fixed-shape program
 * for autotuning; 32 is 3x the most an untuned call launched and under
 * half the least an autotuning one did. One autotuning call in the second
 * half of the convolutions' run is a shape seen for the first time after
 * the program's first steps: the cudnn_shapes trace (6 steps, a new size
 * every 3) holds 4 autotuning calls at 6%, 13%, 35% and 84% of it, so the
 * first choice of 3 late calls missed it; a fixed-shape program tunes in
 * its first step only. */
#define TH_AUTOTUNE_LAUNCHES 32
/* A call of PyTorch's cuDNN attention of 5 ms or more is cuDNN building its
 * fused kernel for a new shape (hf_bert_padded --fixed, H200: 51-79 ms,
 * against 0.09-0.2 ms for the calls of a shape built before). Our choice,
 * 25x the slowest plain call. */
#define TH_CUDNN_BUILD_NS 5000000LL
#define TH_AUTOTUNE_LATE_MIN 1

/* Report v2 (#16). JIT compilation (phases.c): a GPU-idle stretch with at
 * least 20 ms of host time outside CUDA calls that ends in a module load
 * before a first-ever kernel. A cached Triton/inductor compile takes tens
 * of ms, a cold one 0.1-10 s, XLA seconds (the real zoo, workloads/real);
 * a module load of prebuilt code ~1 ms, inside a CUDA call. */
#define TH_JIT_HOST_NS 20000000LL
/* The compiled kernels of a JIT stretch come among the first launches after
 * it, not always first: torch.compile's autotuning zeroes its buffers with
 * a known fill kernel, then benchmarks the new ones (torch_compile_warmup,
 * H200: the first new kernel is the 2nd to 5th launch after each stretch) */
#define TH_JIT_NEW_WITHIN 64
/* A GPU-idle stretch that ends in a module or library load is also JIT
 * when at least this share of the on-CPU host samples in it (sampling at
 * least a quarter of its host time) are in a compiler: hf_decode on the
 * H200, cuDNN's SDPA kernel rebuilt by NVRTC for each new sequence length,
 * 84% of a 55 ms gap in nvrtcCompileProgram, loaded by cuLibraryLoadData,
 * under a kernel name launched before */
#define TH_JIT_SAMPLED_SHARE 0.5
/* Compiling that keeps coming, from host samples (hostidle.c, #36 item 2):
 * at least this share of the GPU-idle host samples in the analysed
 * window's second half are in a compiler. jax_shapes (H200): 99.7%, XLA
 * compiling and autotuning every step; torch_compile_shapes: 97.9%; a
 * program that compiles once, at its start, has none there. */
#define TH_RECOMPILE_LATE_SHARE 0.5
/* One compilation in the host samples (hostidle.c, #36 item 2): a run of a
 * feeding thread's samples in a compiler, ended by at least this many of its
 * samples in a row outside one (a lone sample between two compile passes of
 * one jit, in its dispatch code, does not split it). jax_shapes (H200, 15
 * calls, each a new shape of the step and of its input's generation): 31
 * runs split by 1 sample, 30 by 3, 23 by 10 */
#define TH_COMPILE_SPLIT_SAMPLES 3
/* ... and holds at least this much of the thread's samples: 10 ms, ten
 * samples at the recorder's 1 kHz (a lone compile sample is a compile
 * cache's look-up at run time; torch_compile_shapes: 31 runs on its main
 * thread, 13 of them a sample or two) */
#define TH_COMPILE_MIN_NS 10000000
/* A run whose warm-launch rule finds no steady state (late lazy loads and
 * autotuning benchmarks break its warm runs) but which compiled: the steady
 * state starts after the last compilation when that leaves at least this
 * share of the kernels' GPU time (torch_compile_warmup, H200: 61%) */
#define TH_JIT_MIN_KEEP 0.5
/* cuda_calls_idle: a call made at most this many times in the analysed
 * window is a one-time cost (a pool growing in the first steps: three
 * cudaHostAlloc of 80 ms after torch.compile's warm-up, H200), told as such */
#define TH_CALLS_ONE_TIME 3
/* input_pipeline's evidence in a recording: the host stretch ends in a
 * host-to-device copy of at least 256 KiB (a batch: 32 images of 3x64x64
 * float are 1.5 MiB), where per-step control values (a decode loop's
 * position ids, a scalar) are bytes. Our choice. */
#define TH_INPUT_COPY_BYTES (256.0 * 1024)
/* Evidence counts when it covers at least 30% of the host idle it would
 * explain (data-loading ranges, ops, input copies). Our choice. */
#define TH_EVIDENCE_SHARE 0.30
/* The copies outweigh ops or host samples that call the host's work
 * "other" (hostside.c) when at least 60% of the long host stretches' time
 * ends in a batch's copy, over at least 3 stretches: the loop's shape is
 * make-a-batch, copy, compute. Our choice (a JAX step fed from NumPy: 53 of
 * 56 stretches, H200). */
#define TH_INPUT_STRETCH_SHARE 0.60
#define TH_INPUT_MIN_STRETCHES 3
/* host_overhead's advice names the DataLoader when its own work is at
 * least 10% of the host idle (below TH_EVIDENCE_SHARE's half that makes
 * input_pipeline the primary). Our choice. */
#define TH_LOADER_SHARE 0.10
/* launch_overhead: the step synchronizes (no CUDA graph can hold it) when
 * blocking syncs or read-backs come at least once per 200 kernel launches
 * (a decode loop: one per token of ~80 kernels; a training loop that reads
 * its loss each step of a few hundred kernels). Our choice. */
#define TH_SYNC_LAUNCHES 200
/* padding (rules_padding.c): token batches of at least 2 sequences (a
 * [1, L] lookup is the positions'), all of one length of at least 16
 * tokens, in 2 steps or more (or 2 lookups where the trace has no
 * ProfilerStep ranges: one step cannot show a length that never changes),
 * and masked by the attention in half its calls or more (hf_bert_syncs,
 * H200: 24 of 24). Our choices. */
#define TH_PAD_MIN_BATCH 2
#define TH_PAD_MIN_LEN 16
#define TH_PAD_MIN_STEPS 2
#define TH_PAD_MASKED_SHARE 0.5
/* deterministic_fill (rules_fill.c): 10 or more of the window's empty ops
 * hold a fill, and half of them or more (with the setting on, every empty
 * op of a CUDA or CPU tensor fills; without it none does). Our choices. */
#define TH_FILL_MIN_CALLS 10
#define TH_FILL_SHARE 0.5
/* memory_peak: within 10% of the card's memory (issue #16 item 8). */
#define TH_MEMORY_PEAK_SHARE 0.90
/* A healthy run (issue #16 item 2): GPU busy >= 90% of the span and its
 * top kernels near a roof (>= TH_SOL_HIGH_PCT, Nsight's high throughput). */
#define TH_HEALTHY_BUSY_PCT 90.0
/* A GPM window belongs to a kernel family when the family holds >= 80% of
 * the window's kernel time (else it is mixed, issue #16 item 6). Our
 * choice: the higher roof of a window that is 80% one family is that
 * family's within the spread of a GPM sample. */
#define TH_FAMILY_DOMINANT 0.80
/* The program already replays CUDA graphs when they launched half its
 * kernel time: "use CUDA graphs" is not advice then. */
#define TH_GRAPH_SHARE 0.50
/* Too little GPU work to diagnose: less than 100 us of GPU busy time in
 * all (one kernel of a few microseconds: nothing to say about it). The
 * smallest real trace that has a diagnosis, the small_ops profile of 250
 * tiny kernels, has 220 us. */
#define TH_MIN_GPU_WORK_NS 100000LL

/* The table of the thresholds above that text quotes or tools list
 * (thresholds.c): text names one as {th.NAME} (analyze/report.h), so what
 * it says is the value the rules use. kind is an enum rm_kind. */
struct threshold {
	const char *name;  /* "short_kernel" */
	const char *macro; /* "TH_SHORT_KERNEL_NS" */
	int kind;	   /* RM_DURATION (ns), RM_PERCENT, RM_COUNT, RM_NUMBER */
	double value;
};
extern const struct threshold gs_thresholds[];
extern const unsigned gs_n_thresholds;
/* The threshold called name, NULL when none is. */
const struct threshold *threshold_find(const char *name);

/* launch_overhead (rules_host.c): the short kernels' fixed cost is named
 * in the title when it is at least 1% of the run (our choice: under it the
 * figure rounds to nothing worth a clause). */
#define TH_FLOOR_TITLE_PCT 1.0
/* straggler (rules_comm.c): its compute is "more than the others'" and
 * its action names it when it exceeds theirs by over 5% (our choice: the
 * spread of step times between healthy ranks on the H200 runs was ~2%). */
#define TH_STRAGGLER_COMPUTE_EXCESS 1.05
/* straggler (analyze/comm.c): the rank the others waited for longest is
 * the straggler only when it came last in at least this share of the
 * collectives matched on every rank (our choice: half, so that a rank late
 * now and then is not named). */
#define TH_STRAGGLER_LAST_SHARE 0.5
/* input_pipeline/host_overhead (rules_host.c): a worker thread's top
 * function is named when that thread holds >= 10% of the class's host time
 * (our choice: below it the name is noise next to the main thread's). */
#define TH_WORKER_FUNCTION_PCT 10.0
/* host_overhead (preproc.c adv_compiling): the host's time is called
 * compilation when a compiler's function holds at least half of the host's
 * idle (our choice: the function that dominates; jax_shapes on the H100:
 * 83%). */
#define TH_COMPILE_FUNCTION_PCT 50.0
/* gpu_busy (rules_kernel.c): the top kernel family is "at a roof" when at
 * least half of its sampled busy time is in that roof's class (Nsight
 * Compute SpeedOfLight; half: our choice, the class that dominates). */
#define TH_ROOF_SHARE 0.5
/* gpu_busy yields to a kernel-side finding of >= TH_CRIT_IMPACT_PCT: its
 * impact is capped just under that finding's, so the specific one is
 * primary (docs/report-rules.md). */
#define TH_PRIMARY_YIELD 0.99
/* diff (diff.c): an evidence number "moved" when it changed by more than
 * 0.05 in absolute terms (within rounding of a printed figure) and by more
 * than 5% of its size (our choice). */
#define TH_DIFF_UNMOVED_ABS 0.05
#define TH_DIFF_UNMOVED_REL 0.05
/* doctor (health/doctor.c): a temperature this close below NVML's slowdown
 * threshold warns (nvidia-smi -q shows both; 5 C is the margin DCGM's
 * thermal health watch calls "approaching"). */
#define TH_TEMP_MARGIN_C 5
/* doctor: the PCIe generation is judged only while the GPU is this busy:
 * an idle GPU lowers its link speed to save power (PCIe ASPM, NVIDIA's
 * dynamic link speed), so an idle generation drop is normal. */
#define TH_PCIE_BUSY_UTIL_PCT 30.0

#endif
