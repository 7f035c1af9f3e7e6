/*
 * test_report_fixtures.c - accuracy on real traces: for every zoo program
 * recorded on the H200 (tests/fixtures/zoo/NAME.db), every PyTorch workload
 * recorded there (tests/fixtures/pytorch/NAME.db) and its PyTorch profiler
 * trace (tests/fixtures/pytorch/NAME.json.gz), the designed bottleneck
 * (workloads/README.md) must be `primary`, and the listed ids must not be
 * critical (or, for healthy programs, above info). The test fails when
 * fewer than MIN_FIXTURES rows found their file, so the real recordings
 * cannot silently go missing.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "diagnose/diagnose.h"
#include "diagnose/finding.h"
#include "render/findings_render.h"
#include "render/report_render.h"
#include "fixture_file.h"

/* the 14 zoo recordings (and one by today's recorder), 6 PyTorch recordings,
 * 6 kineto traces, 5 recordings with per-kernel counters, and the 13 real
 * recordings and 9 real traces; the fourth set's 17 recordings and 5
 * traces (fourthc, fourtht) and recomp's 2 recordings and 1 trace; the
 * H100's 8 recordings and 3 traces of 2026-12-06 */
#define MIN_FIXTURES 90

#define HOST_SIDE "input_pipeline,launch_overhead,transfer,sync_stall"
/* A healthy program keeps the GPU busy: its primary is gpu_busy or the
 * speed-of-light class of its kernels, and no host-side finding reaches
 * warning. */
#define GPU_SIDE "gpu_busy|compute_bound|memory_bound|latency_bound"
#define GPU_SIDE_IDS "gpu_busy,compute_bound,memory_bound,latency_bound"

struct row {
	const char *file;    /* under FIXTURES_DIR; without extension: first of exts[] */
	const char *primary; /* accepted primaries, '|'-separated; NULL = any */
	const char *no_crit; /* ids that must not be critical, ','-separated */
	const char *no_warn; /* ids that must stay info (or absent), ','-separated */
	/* #16's real programs (tests/fixtures/real/README.md): */
	const char *absent;	/* ids that must not be found, ','-separated */
	const char *present;	/* ids that must be found, ','-separated */
	const char *no_advice;	/* '|'-separated words no finding's title or action may hold */
	const char *no_first;	/* words the primary's first action must not hold */
	const char *warn;	/* a warning id that must be given */
	const char *advice;	/* '|'-separated words some finding's action must hold */
	const char *first;	/* '|'-separated words the primary's first action must hold */
	const char *no_warning; /* a warning id that must not be given */
};

/* Expected primaries: workloads/README.md (each program's designed problem,
 * as the H200 measured it). */
/* rows name only the fields they check (the rest are NULL) */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
static const struct row rows[] = {
    {"zoo/tiny_kernel_storm", "launch_overhead", "input_pipeline,sync_stall,transfer", ""},
    {"zoo/graph_storm", "launch_overhead", "input_pipeline,sync_stall,transfer", ""},
    {"zoo/pageable_copies", "transfer", "input_pipeline,launch_overhead,sync_stall", ""},
    {"zoo/pinned_copies", "transfer", "input_pipeline,launch_overhead,sync_stall", ""},
    {"zoo/sync_every_step", "sync_stall", "input_pipeline,transfer", ""},
    /* recorded without CUPTI's sync records: sync rows from the API calls */
    {"zoo/sync_every_step.apisync.db", "sync_stall", "input_pipeline,transfer", ""},
    {"zoo/small_grid", "small_grid", HOST_SIDE, HOST_SIDE},
    {"zoo/register_pressure", "low_occupancy", HOST_SIDE, HOST_SIDE},
    {"zoo/uncoalesced", "latency_bound|memory_bound", HOST_SIDE, HOST_SIDE},
    {"zoo/coalesced", "latency_bound", HOST_SIDE, HOST_SIDE},
    {"zoo/divergent_warps", "divergence|latency_bound", HOST_SIDE, HOST_SIDE},
    {"zoo/bank_conflicts", "latency_bound", HOST_SIDE, HOST_SIDE},
    {"zoo/bandwidth_stream", "memory_bound", HOST_SIDE, HOST_SIDE},
    {"zoo/fma_bound", "compute_bound", HOST_SIDE, HOST_SIDE},
    {"zoo/healthy_pipeline", "gpu_busy|compute_bound", HOST_SIDE, HOST_SIDE},
    /* PyTorch workloads recorded by gpuscope record (.db) */
    /* a DataLoader with too few workers: more of them, never "no DataLoader" */
    {"pytorch/dataloader_starved.db", "input_pipeline", "launch_overhead,sync_stall,transfer", "",
     NULL, NULL, "no DataLoader was seen"},
    {"pytorch/small_ops.db", "launch_overhead", "input_pipeline,transfer", ""},
    /* #36 item 1: 92% of its kernel time is fp32 GEMMs on the SIMT pipes
     * (GPM: fp32 pipe 66%, tensor 0%): the TF32 switch in PyTorch's terms */
    {"pytorch/item_every_step.db", "sync_stall", "input_pipeline,transfer", "", NULL,
     "compute_bound", "CUBLAS_TF32|jax.", NULL, NULL, "set_float32_matmul_precision(\"high\")"},
    {"pytorch/bf16_gemm.db", "compute_bound|gpu_busy", HOST_SIDE, HOST_SIDE},
    {"pytorch/healthy_train.db", GPU_SIDE, HOST_SIDE, HOST_SIDE},
    {"pytorch/transformer_step.db", "launch_overhead", "input_pipeline,transfer,sync_stall", ""},
    /* the same workloads under torch.profiler (kineto traces) */
    {"pytorch/dataloader_starved.json.gz", "input_pipeline", "launch_overhead,sync_stall,transfer",
     "", NULL, NULL, "no DataLoader was seen"},
    /* its two syncs come together after the loop */
    {"pytorch/small_ops.json.gz", "launch_overhead", "input_pipeline,transfer", "", NULL, NULL,
     NULL, "step synchronizes"},
    {"pytorch/item_every_step.json.gz", "sync_stall", "input_pipeline,transfer", ""},
    {"pytorch/bf16_gemm.json.gz", "gpu_busy|compute_bound", HOST_SIDE, HOST_SIDE},
    {"pytorch/healthy_train.json.gz", GPU_SIDE, HOST_SIDE, HOST_SIDE},
    {"pytorch/transformer_step.json.gz", "launch_overhead", "input_pipeline,transfer,sync_stall",
     ""},
    /* record --metrics kernels on the H200 (tests/fixtures/counters): the
     * per-kernel counters name the designed cause */
    {"counters/divergent_warps", "divergence", HOST_SIDE, HOST_SIDE},
    {"counters/bank_conflicts", "bank_conflicts", HOST_SIDE, HOST_SIDE},
    {"counters/uncoalesced", "uncoalesced", HOST_SIDE, HOST_SIDE},
    {"counters/bandwidth_stream", "memory_bound", HOST_SIDE, HOST_SIDE},
    {"counters/fma_bound", "compute_bound", HOST_SIDE, HOST_SIDE},
    {"kineto-synthetic/small", NULL, "", ""},
    /* #16: programs on other people's libraries (tests/fixtures/real/README.md;
     * each row: workloads/real/README.md's verdict and the advice that must
     * not appear, or the measurement where it disagreed, with the reason) */
    {"real/hf_llama_train.db", "gpu_busy", HOST_SIDE, HOST_SIDE, "input_pipeline,host_overhead", "",
     "float4|__launch_bounds__|DataLoader|num_workers|occupancy calculator"},
    /* under the profiler the same step is host-bound: +25 us of host time per
     * launch (65 vs 40); without the profiler's own cost (#36 item 8: ~3 us
     * for each of its 16,506 records) the estimate is GPU-bound like the
     * recording, and the report says so */
    /* fixed-length blocks with no mask: no padding */
    {"real/hf_llama_train.json.gz", "gpu_busy", "", "", "input_pipeline,host_overhead,padding",
     "launch_overhead", "float4|__launch_bounds__|DataLoader|num_workers", NULL,
     "profiler_estimate"},
    /* its syncs wait 8.6 us each: the host paces the GPU, not the syncs; a
     * step that syncs is not told to capture a CUDA graph first */
    {"real/hf_bert_syncs.db", "launch_overhead", "input_pipeline", "", "input_pipeline", "",
     "DataLoader|num_workers|pin_memory", "capture the step in a CUDA graph"},
    /* its batches padded to 128 tokens with a mask (docs/causes.md row 33) */
    {"real/hf_bert_syncs.json.gz", "launch_overhead", "input_pipeline", "", "input_pipeline",
     "padding", "DataLoader|num_workers|pin_memory", "capture the step in a CUDA graph",
     "profiler_overhead"},
    /* per token ~164 launches of a few us at host pace (the first call, new
     * shapes each token, is warm-up) */
    {"real/hf_decode.db", "launch_overhead", "sync_stall", "", "input_pipeline", "",
     "DataLoader|num_workers|__launch_bounds__|occupancy calculator"},
    /* the trace has no stacks: generate's per-token ops (aten::isin, 49,
     * and aten::argmax, 16) say it decodes: the static cache first, as the
     * recording with host samples (real/host/hf_decode) */
    {"real/hf_decode.json.gz", "launch_overhead", "sync_stall", "", "input_pipeline,padding", "",
     "DataLoader|num_workers|__launch_bounds__|occupancy calculator", NULL, NULL, NULL,
     "cache_implementation=\"static\""},
    /* #36 item 2: with host samples, the warm-up call's 14 compilations of
     * cuDNN's SDPA kernel for each new sequence length are recompilation
     * (one more in the window); the short window is said, and the advice
     * is cuDNN's, not torch.compile's */
    {"real/host/hf_decode.db.xz", "launch_overhead", "sync_stall", "", "input_pipeline",
     "recompilation", "DataLoader|num_workers|mark_dynamic|jax.", NULL, "short_window",
     "cache_implementation=\"static\""},
    /* pin_memory is on: the batches are pinned; DataLoader evidence from the
     * batch copies (recording) and DataLoader's ranges (trace) */
    {"real/tv_resnet_loader.db", "input_pipeline", "sync_stall", "", "host_overhead", "",
     "pin_memory=True|pin the batches", "torch.compile"},
    {"real/tv_resnet_loader.json.gz", "input_pipeline", "sync_stall", "", "host_overhead", "",
     "pin_memory=True|pin the batches", "torch.compile"},
    {"real/jax_train.db", "gpu_busy", HOST_SIDE, HOST_SIDE,
     "input_pipeline,host_overhead,memory_peak", "",
     "DataLoader|torch.compile|torch.cuda|pin_memory|float4|__launch_bounds__"},
    /* the read-backs cost about as much as the host's own time per step:
     * launch_overhead, sync_stall next; advice in JAX terms */
    {"real/jax_roundtrip.db", "launch_overhead", "", "", "input_pipeline", "sync_stall",
     "DataLoader|pin_memory|.item()|torch.compile|torch.cuda"},
    {"real/cupy_small_ops.db", "launch_overhead", "input_pipeline", "", "input_pipeline", "",
     "torch.compile|torch.cuda|DataLoader", NULL, NULL, NULL, "cupy.fuse"},
    /* --fixed: the step is one cupy.fuse kernel ("body") already, still
     * launch-bound: never "fuse the step", but more steps per launch */
    {"real/cupy_small_ops_fused.db", "launch_overhead", "input_pipeline", "", "input_pipeline", "",
     "torch.compile|torch.cuda|DataLoader|fuse the step's", NULL, NULL, NULL,
     "do several steps per launch"},
    /* the user's own Triton kernel at the DRAM roof: healthy; a profiler
     * trace has no GPM samples to see the roof */
    {"real/triton_fused.db", "memory_bound", HOST_SIDE, HOST_SIDE "," GPU_SIDE_IDS,
     "input_pipeline", "", "cuBLAS|float4|CUDA graph"},
    {"real/triton_fused.json.gz", "gpu_busy", HOST_SIDE, HOST_SIDE, "input_pipeline", "",
     "cuBLAS|float4|CUDA graph"},
    /* 100% of the kernel time from graph replays: never "use CUDA graphs";
     * the recording's 80.0% busy is the edge of gpu_busy (79.99) */
    {"real/torch_cuda_graphs.db", "launch_overhead", HOST_SIDE, "", "input_pipeline,sync_stall", "",
     "capture the step in a CUDA graph|reduce-overhead|cudaStreamBeginCapture"},
    {"real/torch_cuda_graphs.json.gz", "gpu_busy", HOST_SIDE, "", "input_pipeline,sync_stall", "",
     "capture the step in a CUDA graph|reduce-overhead|cudaStreamBeginCapture"},
    /* its GEMMs are half precision on tensor cores (nvjet ..._h_...): no
     * precision switch */
    {"real/cublas_gemm.db", "compute_bound", HOST_SIDE, HOST_SIDE, "low_occupancy,input_pipeline",
     "", "float4|__launch_bounds__|torch.compile|DataLoader|occupancy calculator|TF32"},
    {"real/torch_empty_cache.db", "cuda_calls_idle", "", "", "input_pipeline", "", "DataLoader",
     NULL},
    /* the profiler's dispatch puts launch_overhead just ahead (17.9 vs 17.4);
     * without its own cost the allocator's calls are first, as recorded */
    {"real/torch_empty_cache.json.gz", "cuda_calls_idle", "", "", "input_pipeline",
     "launch_overhead", "DataLoader", NULL, "profiler_estimate"},
    {"real/torch_h2d_pageable.db", "transfer", "sync_stall,input_pipeline", "", "input_pipeline",
     "", ""},
    {"real/torch_h2d_pageable.json.gz", "transfer", "sync_stall,input_pipeline", "",
     "input_pipeline", "", ""},
    {"real/torch_h2d_pinned.db", "transfer", "sync_stall,input_pipeline", "", "input_pipeline", "",
     "pin the host batches|pinned host memory|pin_memory"},
    {"real/torch_h2d_pinned.json.gz", "transfer", "sync_stall,input_pipeline", "", "input_pipeline",
     "", "pin the host batches|pinned host memory|pin_memory"},
    /* the second set (2026-12-04, record with host samples): a timm ViT
     * trained on device batches is healthy; under the profiler its host
     * side doubles, and without the profiler's own cost it is healthy again
     * (the warning says so) */
    {"real/timm_vit_train.db.xz", "gpu_busy", HOST_SIDE, HOST_SIDE, "input_pipeline,host_overhead",
     "", "float4|__launch_bounds__|DataLoader|num_workers|occupancy calculator"},
    {"real/timm_vit_train.json.gz", "gpu_busy", "", "", "input_pipeline", "",
     "float4|__launch_bounds__|DataLoader|num_workers", NULL, "profiler_estimate"},
    /* NumPy makes each batch in the program's own function, no data-loading
     * name anywhere: the 32 MiB copy ending 53 of 56 host stretches makes it
     * input_pipeline; JAX's words only, and NumPy's generator named, to be
     * made on the device instead */
    {"real/jax_numpy_feed.db.xz", "input_pipeline", "", "", "host_overhead", "",
     "DataLoader|num_workers|pin_memory|torch.compile|torch.cuda|.item()|torch counterpart", NULL,
     NULL, "in random_standard_normal_f (", "jax.device_put"},
    /* Lightning, num_workers=0: host-bound; 43 syncs in 21564 launches are
     * occasional, so the first fix is not "take the .item() out"; Open MPI's
     * orted (an mpi4py import) lost no records */
    {"real/lightning_mlp.db.xz", "launch_overhead|host_overhead", "", "", "input_pipeline", "",
     "float4|__launch_bounds__|occupancy calculator", "item()"},
    /* Numba copies each NumPy argument in and back around every call:
     * transfer, in Numba's words (device arrays, cuda.pinned_array) */
    {"real/numba_roundtrip.db.xz", "transfer", "", "", "input_pipeline", "",
     "cudaHostAlloc|cudaMallocHost|cudaMemcpyAsync|pin_memory|DataLoader|torch.|cupy", NULL, NULL,
     "cuda.to_device"},
    /* cuFFT's kernels are a library's: no launch bounds or registers advice */
    {"real/cupy_fft.db.xz", "gpu_busy|memory_bound", HOST_SIDE, HOST_SIDE, "low_occupancy", "",
     "__launch_bounds__|maxrregcount|float4|occupancy calculator|torch."},
    /* PyG's scatter/gather kernels are PyTorch's: no loader or CUDA C advice;
     * the recording names PyG (its frames), the profiler's trace nothing but
     * the kernels: 63% of their time by index, whose first advice is the
     * sparse product, for graphs or experts, before torch.compile's */
    {"real/pyg_gcn.db.xz", "latency_bound|memory_bound|gpu_busy", HOST_SIDE, HOST_SIDE,
     "input_pipeline", "",
     "DataLoader|num_workers|pin_memory|float4|__launch_bounds__|grouped GEMMs", NULL, NULL,
     "GCNConv(cached=True)"},
    {"real/pyg_gcn.json.gz", "gpu_busy|latency_bound|memory_bound", HOST_SIDE, HOST_SIDE,
     "input_pipeline", "", "DataLoader|num_workers|pin_memory|float4|__launch_bounds__", NULL, NULL,
     NULL, "torch.sparse.mm"},
    /* 2026-12-06 H200: fourth set, cupy and switches (fourthc) */
    /* anomaly detection left on (causes.md row 18): the launch-bound step's
     * first action turns it off, from the host samples (no op events in a
     * recording) and from the NaN checks in 66 of 66 backward nodes (the
     * trace); the checks' kernels inside ConvolutionBackward0 are not
     * cuDNN autotuning (no recompilation) */
    {"real/torch_detect_anomaly.db.xz", "launch_overhead", "", "", "recompilation", "", "cupy|jax.",
     NULL, NULL, NULL, "set_detect_anomaly(False)"},
    {"real/torch_detect_anomaly.json.gz", "launch_overhead", "", "", "recompilation", "",
     "cupy|jax.", NULL, "profiler_overhead", NULL, "set_detect_anomaly(False)"},
    {"real/torch_detect_anomaly_fixed.db.xz", "launch_overhead", "", "", "recompilation", "",
     "detect_anomaly|anomaly detection"},
    /* torch.optim's per-parameter path (row 9; H100, 2026-12-07): AdamW(foreach=False)
     * over 194 tensors, launch-bound; the first action passes foreach=True
     * (recording: _single_tensor_adam in 50% of the samples; trace: 776
     * launches a step inside Optimizer.step#AdamW.step, 64% of them); with
     * fused=True the step is still launch-bound, the optimizer not named */
    {"real/torch_optim_loop.db.xz", "launch_overhead", "", "", "", "", "cupy|jax.", "CUDA graph",
     NULL, NULL, "pass foreach=True"},
    {"real/torch_optim_loop.json.gz", "launch_overhead", "", "", "", "", "cupy|jax.", "CUDA graph",
     NULL, NULL, "pass foreach=True"},
    {"real/torch_optim_loop_fixed.db.xz", "launch_overhead", "", "", "", "",
     "pass foreach=True|one tensor at a time"},
    /* unified memory recorded (H100, 2026-12-07, the counters asked for
     * at each of the flush thread's polls: all 10 steps' faults): the
     * zoo's managed_faults, 2302 MiB pulled back to the host, 7661 CPU
     * faults; unified_memory primary (68.9%), the host's pulls first (the
     * GPU idles 55.9% while the host faults pages back, against 12.9% of
     * kernels stalled), the prefetch after; host_overhead and sync_stall
     * give that host time up */
    {"real/managed_faults.db.xz", "unified_memory", "", "", "host_overhead,sync_stall",
     "unified_memory", "torch.|cupy.|jax.", NULL, NULL, "cudaMemPrefetchAsync",
     "the host's own accesses pull", "uvm_not_recorded"},
    /* a checkpoint every 50 steps (docs/causes.md row 37, H100): resnet18
     * is launch-bound (primary launch_overhead); host_overhead names the
     * 4 periodic stalls of torch.save and advises an asynchronous save;
     * --fixed (the save on a background thread): no periodic stall */
    /* docs/causes.md row 33: texts of 16-96 tokens padded to 256 (H200).
     * The trace names the padding (its op shapes), the recording cannot (it
     * has none). Padded per batch instead (--fixed), every new length
     * makes cuDNN build its attention kernel again (8 builds of ~56 ms in
     * the trace's 4 steps, 47 JIT recompilations in the recording): both
     * sources say recompilation and bucketing, not CUDA graphs */
    {"real/hf_bert_padded.json.gz", "launch_overhead", "", "", "recompilation", "padding",
     "jax.|cupy."},
    {"real/hf_bert_padded.db.xz", "launch_overhead", "", "", "padding,recompilation", ""},
    {"real/hf_bert_padded_fixed.json.gz", "recompilation", "", "", "padding", "", "jax.|cupy.",
     "CUDA graph", NULL, NULL, "pad or bucket"},
    {"real/hf_bert_padded_fixed.db.xz", "recompilation", "", "", "padding", "", "jax.|cupy.",
     "CUDA graph", NULL, NULL, "pad or bucket"},
    /* the save's 1347 copies and syncs come in bursts with no kernel
     * between them: the step itself does not synchronize */
    {"real/torch_ckpt_every.db.xz", "launch_overhead", "", "", "", "host_overhead", "jax.|cupy.",
     "step synchronizes", NULL, "async_save|every 0.75 s the GPU waits"},
    {"real/torch_ckpt_every_fixed.db.xz", "launch_overhead", "", "", "", "", "async_save|jax.",
     NULL},
    /* cudnn.benchmark with changing sizes (row 13): recompilation, bucketing
     * first; the recording by its JIT stretches (60 compilations of cuDNN's
     * kernels again) and cuDNN's find in the samples, the trace by its 4
     * autotuning convolution calls (71-197 launches), 1 in its second half */
    {"real/torch_cudnn_shapes.db.xz", "recompilation", "", "", "", "recompilation", "jax.|cupy",
     NULL, NULL, NULL, "bucket or pad"},
    {"real/torch_cudnn_shapes.json.gz", "recompilation", "", "", "", "recompilation", "jax.|cupy",
     NULL, NULL, NULL, "bucket or pad"},
    /* 4 size buckets: the steady state has no compilation (recompilation
     * stays info, 0% of the window: the 8 compilations of the 4 buckets'
     * first steps are 19% of the run's GPU work, before it, said as such),
     * and autotuning is not named; small_grid (batch norm's 64 blocks) is
     * what is left */
    {"real/torch_cudnn_shapes_fixed.db.xz", "small_grid", "", "recompilation", "", "",
     "autotunes each new input shape"},
    /* CuPy's float32 matmul: TF32 in CuPy's words first; --fixed (CUPY_TF32=1)
     * runs its 20 GEMMs so fast that the setup's two cudaHostAlloc calls
     * (43% of the run) lead: measured, not the expected compute_bound, which
     * is found, at the roof, without TF32 advice */
    {"real/cupy_sgemm.db.xz", "compute_bound", "", "", "", "", "torch.|jax.", NULL, NULL, NULL,
     "CUPY_TF32=1"},
    {"real/cupy_sgemm_fixed.db.xz", "cuda_calls_idle", "", "", "", "compute_bound",
     "CUPY_TF32|torch.|jax."},
    /* a RawKernel on 2 blocks: small_grid with no torch, loader or graph
     * advice (the NumPy setup comes before the first GPU work, outside the
     * run); --fixed: a full grid */
    {"real/cupy_setup_small_grid.db.xz", "small_grid", HOST_SIDE, HOST_SIDE, "", "",
     "torch.|DataLoader|num_workers|jax.|CUDA graph"},
    {"real/cupy_setup_small_grid_fixed.db.xz", "gpu_busy", HOST_SIDE, HOST_SIDE, "small_grid"},
    /* managed memory on a driver that refused the unified-memory counters
     * (CUPTI_ERROR_NOT_READY): unified_memory cannot fire (expected: it),
     * the warning says why, and the host-side verdict's first action names
     * managed memory's faults as the likely host time */
    {"real/cupy_managed.db.xz", "host_overhead", "", "", "unified_memory", "",
     "torch.|jax.|DataLoader", NULL, "uvm_not_recorded", NULL, "memPrefetchAsync"},
    /* Flax: host-bound, in JAX's words */
    {"real/flax_small.db.xz", "launch_overhead", "", "", "", "", "torch.|cupy|DataLoader", NULL,
     NULL, "jax.jit"},
    /* bandwidth_stream with CUDA_LAUNCH_BLOCKING=1 and without (row 19):
     * memory_bound both, the warning on the first only */
    {"real/launch_blocking.db.xz", "memory_bound", HOST_SIDE, HOST_SIDE, "", "", NULL, NULL,
     "blocking_launches"},
    {"real/launch_async.db.xz", "memory_bound", HOST_SIDE, HOST_SIDE, "", "", NULL, NULL, NULL,
     NULL, NULL, "blocking_launches"},
    /* 2026-12-06 H200: fourth set, torch (fourtht) */
    /* #36 item 1: an MLP in fp32 at the default "highest" precision: 98% of
     * the kernel time is SIMT SGEMM (cutlass simt_sgemm, xmma ..._ffma), GPM
     * fp32 pipe 76%, tensor 0%: the TF32/bf16 switch comes first, on both
     * sources (the trace has no GPM: gpu_busy, from the kernel names) */
    {"real/torch_fp32_matmul.db.xz", "compute_bound", HOST_SIDE, HOST_SIDE,
     "input_pipeline,host_overhead", "",
     "float4|__launch_bounds__|DataLoader|num_workers|CUBLAS_TF32|jax.", "give them larger", NULL,
     "set_float32_matmul_precision(\"high\")"},
    {"real/torch_fp32_matmul.json.gz", "gpu_busy|compute_bound", HOST_SIDE, HOST_SIDE,
     "input_pipeline,host_overhead", "",
     "float4|__launch_bounds__|DataLoader|num_workers|CUBLAS_TF32|jax.", "give them larger", NULL,
     "set_float32_matmul_precision(\"high\")"},
    /* --fixed (TF32): the program expects gpu_busy; measured, the TF32
     * kernels (sm90 xmma ..._tf32f32_...) hold GPM tensor activity at 65%
     * while busy, so compute_bound at the tensor roof; no precision action */
    {"real/torch_fp32_matmul_fixed.db.xz", "compute_bound|gpu_busy", HOST_SIDE, HOST_SIDE,
     "input_pipeline,host_overhead", "",
     "set_float32_matmul_precision|allow_tf32|float4|__launch_bounds__|DataLoader|num_workers"},
    /* #36 item 5: 4096 pageable 4 KiB row.to("cuda") a step: the program
     * expects transfer, but each copy is a copy call and a stream synchronize
     * (40960 of the 40963 syncs come right after a host-to-device copy call),
     * and the GPU idles 84% (trace 90%) around the syncs against 5.6% of copy
     * time: sync_stall, whose actions are the uploads' (batch them into one
     * first), never the read-backs' */
    {"real/torch_small_copies.db.xz", "sync_stall", "", "", "input_pipeline", "",
     "num_workers|DataLoader workers|.item()|keep the values on the GPU", "pin the host batches",
     NULL,
     "of 4 KiB (median) at 4.36 GB/s: each pays the copy's fixed latency; batch them into one "
     "(torch.stack"},
    {"real/torch_small_copies.json.gz", "sync_stall", "", "", "input_pipeline", "",
     "num_workers|DataLoader workers|.item()|keep the values on the GPU", "pin the host batches",
     NULL, "batch them into one (torch.stack"},
    /* #36 item 6: torch.stft on the training thread's CPU. The recording's
     * launching thread is autograd's, asleep while the main thread (which
     * launches the forward) makes the batch: no GIL contention; the host
     * samples put most of it in NumPy's random waveforms (the program's own
     * step), so no preprocessing name; no DataLoader in its samples: the
     * first action makes one. The trace names aten::stft (11% of
     * the run's idle, behind aten::abs of its output) and moves it; no CUDA
     * graphs first */
    {"real/torch_stft_preproc.db.xz", "input_pipeline", "", "", "host_contention", "",
     "multiprocessing.Process|setswitchinterval|more DataLoader workers|decoding and augmentation",
     "CUDA graph", NULL, "in random_standard_normal_f (",
     "no DataLoader was seen: the batches are made on the training thread"},
    {"real/torch_stft_preproc.json.gz", "host_overhead|input_pipeline", "", "", "", "",
     "multiprocessing.Process|setswitchinterval", "CUDA graph", NULL,
     "(aten::stft): run it on the GPU (torch.stft"},
    /* --fixed: the STFT on the GPU; the program expects gpu_busy, but the
     * waveforms are still drawn by NumPy on the host each step (99% of the
     * idle's samples in step): input_pipeline, with no STFT to move */
    {"real/torch_stft_preproc_fixed.db.xz", "input_pipeline", "", "", "host_contention", "",
     "aten::stft|multiprocessing.Process|setswitchinterval|more DataLoader workers|decoding and "
     "augmentation",
     "CUDA graph", NULL, "in random_standard_normal_f (", "no DataLoader was seen"},
    /* 2026-12-06 H200: recompilation (recomp) */
    /* a new batch size every step: XLA compiles and autotunes again all run
     * long (host samples in its compiler), JAX's words; the compiling is
     * no host_overhead's */
    {"real/jax_shapes.db.xz", "recompilation", "", "", "host_overhead,input_pipeline", "",
     "torch.|DataLoader|CUDA graph|lax.scan|cuDNN builds", NULL, NULL,
     "pad or bucket|static_argnums"},
    /* torch.compile recompiles for each new shape: dynamo/inductor in the
     * host samples; torch.compile's advice, not cuDNN's (a cuDNN kernel is
     * the one the JIT stretches saw compiled again most) */
    {"real/torch_compile_shapes.db.xz", "recompilation", "", "", "host_overhead,input_pipeline", "",
     "jax.|cuDNN builds|cudnn.benchmark", NULL, NULL, "mark_dynamic"},
    /* the trace has no host samples: torch.compile's dynamo ranges inside
     * the profiled steps; the host work left is the compiled backward */
    {"real/torch_compile_shapes.json.gz", "recompilation", "host_overhead", "", "input_pipeline",
     "", "jax.|cuDNN builds", NULL, NULL, "mark_dynamic"},
    /* 2026-12-06 H100: the fifth set (docs/causes.md row 34) and issue 36
     * item 4's recordings */
    /* eager attention in a Llama trained on 2048 tokens: softmax over the
     * scores 14% of the kernel time (the mask's add and the casts around it
     * more), no fused kernel: the fused attention first, in PyTorch's and
     * Hugging Face's words, from both sources */
    {"real/hf_eager_attention.db.xz", "memory_bound|gpu_busy", "", "",
     "input_pipeline,host_overhead,launch_overhead", "", "jax.|cupy|DataLoader", NULL, NULL, NULL,
     "attention runs unfused: softmax kernels over the materialised scores|"
     "attn_implementation=\"sdpa\""},
    {"real/hf_eager_attention.json.gz", "gpu_busy|memory_bound", "", "",
     "input_pipeline,host_overhead,launch_overhead", "", "jax.|cupy|DataLoader", NULL, NULL, NULL,
     "attention runs unfused: softmax kernels over the materialised scores|"
     "scaled_dot_product_attention"},
    /* --fixed: SDPA's flash kernels, 2.8x faster: nothing unfused */
    {"real/hf_eager_attention_fixed.db.xz", GPU_SIDE, HOST_SIDE, "", "", "",
     "attention runs unfused"},
    /* a metrics thread JSON-encoding under the GIL beside a launch-bound
     * step: the launching thread asleep 99% of its time outside CUDA */
    {"real/torch_gil_thread.db.xz", "host_contention", "", "", "input_pipeline", "",
     "DataLoader|use fewer threads than CPUs", NULL, NULL, NULL,
     "move metrics_loop (torch_gil_thread.py:28) out of the launching process"},
    /* 32 hashing threads on 16 CPUs: GIL turns (65% of the idle) and CPU
     * waits (17%): the thread named, and fewer threads */
    {"real/torch_cpu_oversub.db.xz", "host_contention", "", "", "input_pipeline", "",
     "more DataLoader workers|jax.", NULL, NULL,
     "use fewer threads than CPUs: torch.set_num_threads",
     "move hash_loop (torch_cpu_oversub.py:32)"},
    /* the traces hold no host samples or scheduler statistics: the host
     * side is all they can say, never a kernel-side verdict; the GIL's
     * trace shows its hand-overs in the main thread's pauses between ops
     * (79 of 93 at multiples of 6.0 ms): host_contention, with how to find
     * the thread */
    {"real/torch_gil_thread.json.gz", "host_overhead|launch_overhead", "", "", "input_pipeline",
     "host_contention", "jax.|cupy", NULL, NULL, "py-spy dump", "the GIL's hand-over"},
    {"real/torch_cpu_oversub.json.gz", "host_overhead|launch_overhead", "", "", "input_pipeline",
     "", "jax.|cupy"},
    /* --fixed (no other thread): the launch-bound step alone */
    {"real/torch_gil_thread_fixed.db.xz", "launch_overhead", "", "", "host_contention", ""},
    {"real/torch_cpu_oversub_fixed.db.xz", "launch_overhead", "", "", "host_contention", ""},
    /* --fixed copies each step's batch at once; the host's time is the
     * batch's torch.stack at one line of step (libtorch_cpu), each stretch
     * ending in its 16 MiB copy: input_pipeline, never the small copies, and
     * not CUDA graphs first (they do not remove a CPU op) */
    {"real/torch_small_copies_fixed.db.xz", "input_pipeline", "", "", "", "",
     "batch them into one|decoding and augmentation", "CUDA graphs", NULL,
     "gather each batch there", "DataLoader"},
    /* a prefetch before the kernels: the unseen-faults advice stays (the
     * host's writes pull the pages back each step), and says that it
     * prefetches already (22 calls), never to prefetch */
    {"real/cupy_managed_fixed.db.xz", "host_overhead", "", "", "", "",
     "torch.|prefetch them to the GPU", NULL, NULL, NULL, "prefetches it already (22 prefetch"},
};
#pragma GCC diagnostic pop

static const char *const exts[] = {".db",   ".gpuscope",      ".json.gz",
				   ".json", ".pt.trace.json", ".pt.trace.json.gz"};

static int find_file(const char *base, char *path, size_t n)
{
	if (strchr(strrchr(base, '/') ? strrchr(base, '/') : base, '.')) {
		snprintf(path, n, "%s/%s", FIXTURES_DIR, base);
		return access(path, R_OK);
	}
	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
		snprintf(path, n, "%s/%s%s", FIXTURES_DIR, base, exts[i]);
		if (access(path, R_OK) == 0)
			return 0;
	}
	return -1;
}

/* The text report's layout on real names (PyTorch's run to 400
 * characters): every line fits in TEXT_COLS columns and every row of the
 * top-kernel table and of its name list has a name. Returns problems found. */
#define TEXT_COLS 100
static int check_text(const char *file, const struct analysis_result *a)
{
	char *buf = NULL, err[512];
	size_t len = 0;
	struct report r;
	FILE *f = open_memstream(&buf, &len);
	if (!f || report_build(&r, a, file, err) < 0)
		return 1;
	report_text(f, &r);
	fclose(f);
	report_release(&r);
	int bad = 0, lineno = 0;
	for (char *line = buf, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		size_t n = next ? (size_t)(next - line) : strlen(line);
		next = next ? next + 1 : NULL;
		lineno++;
		if (n > TEXT_COLS) {
			print_error("%s: text line %d has %zu columns: %.*s\n", file, lineno, n,
				    (int)n, line);
			bad++;
		}
		/* "  #12 name ..." : a name must follow the row number */
		if (n > 6 && !strncmp(line, "  #", 3) && line[3] >= '1' && line[3] <= '9') {
			const char *q = line + 3;
			while (*q >= '0' && *q <= '9')
				q++;
			const char *name = q;
			while (*name == ' ' && name < line + n)
				name++;
			/* the name column starts at most two spaces after "#N" */
			if (name >= line + n || name - q > 2) {
				print_error("%s: text line %d has no kernel name: %.*s\n", file,
					    lineno, (int)n, line);
				bad++;
			}
		}
	}
	free(buf);
	return bad;
}

/* 1 when id is an item of the separated list. */
static int in_list(const char *list, const char *id, char sep)
{
	size_t n = strlen(id);
	for (const char *p = list; p && *p;) {
		const char *e = strchr(p, sep);
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len == n && strncmp(p, id, n) == 0)
			return 1;
		p = e ? e + 1 : NULL;
	}
	return 0;
}

/* 1 when any '|'-separated word of list is in s */
static const char *has_word(const char *s, const char *list)
{
	static char w[256];
	for (const char *p = list; p && *p;) {
		const char *e = strchr(p, '|');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		snprintf(w, sizeof(w), "%.*s", (int)len, p);
		if (len && strstr(s, w))
			return w;
		p = e ? e + 1 : NULL;
	}
	return NULL;
}

/* the rows' #16 fields: ids absent and present, advice that must not
 * appear, the first action, a warning */
static int check_real(const struct row *r, const struct analysis *a)
{
	int bad = 0, advised = 0;
	for (size_t k = 0; k < a->findings.n; k++) {
		const struct finding *f = &a->findings.v[k];
		const char *w;
		/* a text that fills its buffer was cut (finding.h) */
		for (int i = -1; i < f->n_actions; i++) {
			const char *s = i < 0 ? f->title : f->actions[i];
			if (strlen(s) + 1 >= FINDING_TEXT_MAX) {
				print_error("%s: %s's text is cut: %s\n", r->file, f->id, s);
				bad++;
			}
		}
		if (r->absent && in_list(r->absent, f->id, ',')) {
			print_error("%s: %s must not be found\n", r->file, f->id);
			bad++;
		}
		if (r->no_advice && (w = has_word(f->title, r->no_advice))) {
			print_error("%s: %s's title says '%s'\n", r->file, f->id, w);
			bad++;
		}
		for (int i = 0; r->no_advice && i < f->n_actions; i++)
			if ((w = has_word(f->actions[i], r->no_advice))) {
				print_error("%s: %s advises '%s': %s\n", r->file, f->id, w,
					    f->actions[i]);
				bad++;
			}
		for (int i = 0; r->advice && i < f->n_actions; i++)
			advised |= has_word(f->actions[i], r->advice) != NULL;
	}
	if (r->advice && !advised) {
		print_error("%s: no action holds '%s'\n", r->file, r->advice);
		bad++;
	}
	for (const char *p = r->present; p && *p;) {
		const char *e = strchr(p, ',');
		char id[64];
		snprintf(id, sizeof(id), "%.*s", (int)(e ? (size_t)(e - p) : strlen(p)), p);
		if (!finding_find(&a->findings, id)) {
			print_error("%s: %s must be found\n", r->file, id);
			bad++;
		}
		p = e ? e + 1 : NULL;
	}
	const char *w;
	if (r->no_first && a->primary && a->primary->n_actions &&
	    (w = has_word(a->primary->actions[0], r->no_first))) {
		print_error("%s: the first action says '%s': %s\n", r->file, w,
			    a->primary->actions[0]);
		bad++;
	}
	if (r->first && (!a->primary || !a->primary->n_actions ||
			 !has_word(a->primary->actions[0], r->first))) {
		print_error("%s: the first action holds none of '%s': %s\n", r->file, r->first,
			    a->primary && a->primary->n_actions ? a->primary->actions[0]
								: "(none)");
		bad++;
	}
	for (size_t i = 0; r->no_warning && i < a->n_warnings; i++)
		if (a->warnings[i].id && !strcmp(a->warnings[i].id, r->no_warning)) {
			print_error("%s: warning %s must not be given\n", r->file, r->no_warning);
			bad++;
		}
	if (r->warn) {
		int found = 0;
		for (size_t i = 0; i < a->n_warnings; i++)
			found |= a->warnings[i].id && !strcmp(a->warnings[i].id, r->warn);
		if (!found) {
			print_error("%s: warning %s missing\n", r->file, r->warn);
			bad++;
		}
	}
	return bad;
}

/* A number as printed ("58.7", "20000"; NULL: not one) in a token that is
 * a number alone, with a trailing %, ',', ':' or ')' and a leading '('. */
static int token_number(const char *tok, size_t len, double *v, int *pct, int *decimals)
{
	while (len && strchr("(", *tok))
		tok++, len--;
	while (len && strchr(",.:;)", tok[len - 1]))
		len--;
	*pct = len && tok[len - 1] == '%';
	if (*pct)
		len--;
	if (!len || len > 30)
		return 0;
	int dots = 0;
	*decimals = 0;
	for (size_t i = 0; i < len; i++) {
		if (tok[i] == '.')
			dots++;
		else if (tok[i] < '0' || tok[i] > '9')
			return 0;
		else if (dots)
			(*decimals)++;
	}
	if (dots > 1 || tok[0] == '.')
		return 0;
	char b[32];
	snprintf(b, sizeof(b), "%.*s", (int)len, tok);
	*v = strtod(b, NULL);
	return 1;
}

/* 1 when some numeric evidence of f prints as v (at its decimals) */
static int in_evidence(const struct finding *f, double v, int decimals)
{
	double half = 0.5 * pow(10.0, -decimals) + 1e-9;
	for (int i = 0; i < f->n_ev; i++)
		if (f->ev[i].is_num && !f->ev[i].unknown && fabs(f->ev[i].num - v) <= half)
			return 1;
	return 0;
}

/*
 * #16 item 4, honest headlines: every number in a finding's title (the
 * verdict's line too) is one of its evidence values as printed, and every
 * percentage in the fix-first action is; and an evidence value that names a
 * summary figure (GPU busy, idle and its classes, kernels, syncs) equals it.
 * The old launch_overhead title ("idle between launches for 96%" where the
 * summary says 49.8% idle) fails this. A primary taken from the estimate
 * without torch.profiler's own cost (#36 item 8) has the estimate's
 * figures: its GPU busy is the estimate's, the rest the trace never shows.
 */
static int check_headlines(const char *file, const struct analysis *a)
{
	const struct {
		const char *key;
		double want;
	} summary[] = {
	    {"gpu_busy_pct", an_pct(a, (double)a->busy_ns)},
	    {"gpu_idle_pct", an_pct(a, (double)a->idle.total_ns)},
	    {"host_idle_pct", an_pct(a, (double)a->idle.host_ns)},
	    {"launch_idle_pct", an_pct(a, (double)a->idle.launch_ns)},
	    {"host_dispatch_idle_pct", an_pct(a, (double)a->idle.dispatch_ns)},
	    {"launch_wait_pct", an_pct(a, (double)(a->idle.launch_ns + a->idle.dispatch_ns))},
	    {"sync_idle_pct", an_pct(a, (double)a->idle.sync_ns)},
	    {"copy_call_idle_pct", an_pct(a, (double)a->idle.copy_ns)},
	    {"cuda_calls_idle_pct", an_pct(a, (double)a->idle.api_ns)},
	    {"kernels", (double)a->n_kernels},
	    {"syncs", (double)a->sync.count},
	};
	int bad = 0;
	for (size_t k = 0; k < a->findings.n; k++) {
		const struct finding *f = &a->findings.v[k];
		int est = a->unprof.changed && f == a->primary;
		for (size_t i = 0; i < sizeof(summary) / sizeof(summary[0]); i++) {
			const struct evidence *e = finding_get(f, summary[i].key);
			double want = summary[i].want;
			if (est && i > 0)
				continue;
			if (est)
				want = a->unprof.busy_pct;
			if (e && e->is_num && fabs(e->num - want) > 1e-6) {
				print_error("%s: %s's %s is %g, the summary's %g\n", file, f->id,
					    summary[i].key, e->num, want);
				bad++;
			}
		}
		const char *texts[2] = {f->title,
					f == a->primary && f->n_actions ? f->actions[0] : NULL};
		for (int t = 0; t < 2; t++) {
			for (const char *p = texts[t]; p && *p;) {
				while (*p == ' ')
					p++;
				const char *e = strchr(p, ' ');
				size_t len = e ? (size_t)(e - p) : strlen(p);
				double v;
				int pct, dec;
				if (token_number(p, len, &v, &pct, &dec) && (t == 0 || pct) &&
				    !in_evidence(f, v, dec)) {
					print_error("%s: %s says %.*s, no evidence of it: %s\n",
						    file, f->id, (int)len, p, texts[t]);
					bad++;
				}
				p += len;
			}
		}
	}
	return bad;
}

static void test_fixtures(void **state)
{
	int ran = 0, bad = 0;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		char path[1024], err[512] = "";
		if (find_file(r->file, path, sizeof(path)) < 0)
			continue;
		struct trace t;
		struct analysis_result res;
		struct analysis_opts ao = {.device = -1};
		char tmp[64] = "";
		if (fixture_unxz(path, tmp, sizeof(tmp)) < 0) {
			print_error("%s: cannot decompress\n", path);
			bad++;
			continue;
		}
		int loaded = analysis_load(&t, *tmp ? tmp : path, err);
		if (*tmp)
			unlink(tmp);
		if (loaded < 0) {
			/* a kineto trace without the importer linked in is not a failure */
			if (strstr(path, ".json")) {
				trace_release(&t);
				continue;
			}
			print_error("%s: load: %s\n", path, err);
			trace_release(&t);
			bad++;
			continue;
		}
		if (analysis_result_run(&res, &t, &ao, err) < 0) { /* as report does */
			print_error("%s: analysis: %s\n", path, err);
			trace_release(&t);
			bad++;
			continue;
		}
		ran++;
		const char *p = res.all.primary ? res.all.primary->id : "(none)";
		if (r->primary && !in_list(r->primary, p, '|')) {
			print_error("%s: primary %s, expected %s\n", r->file, p, r->primary);
			finding_list_text(stderr, &res.all.findings);
			bad++;
		}
		for (size_t k = 0; k < res.all.findings.n; k++) {
			const struct finding *f = &res.all.findings.v[k];
			if (f->severity == SEV_CRITICAL && in_list(r->no_crit, f->id, ',')) {
				print_error("%s: %s must not be critical\n", r->file, f->id);
				bad++;
			}
			if (f->severity != SEV_INFO && in_list(r->no_warn, f->id, ',')) {
				print_error("%s: %s must stay info (healthy), is %s\n", r->file,
					    f->id,
					    f->severity == SEV_CRITICAL ? "critical" : "warning");
				bad++;
			}
		}
		bad += check_real(r, &res.all);
		bad += check_headlines(r->file, &res.all);
		bad += check_text(r->file, &res);
		print_message("%-32s primary %-16s (%.1f%%)\n", r->file, p,
			      res.all.primary ? res.all.primary->impact_pct : 0.0);
		analysis_result_release(&res);
		trace_release(&t);
	}
	print_message("%d fixture(s) checked\n", ran);
	assert_int_equal(bad, 0);
	assert_true(ran >= MIN_FIXTURES);
}

/* A real recording made with CUPTI's synchronization records off (record's
 * default since the fourth session): its 4000 cudaDeviceSynchronize calls
 * are its 4000 sync rows, of kind context, stream unknown. */
static void test_api_syncs_fixture(void **state)
{
	char path[1024], err[512] = "";
	if (find_file("zoo/sync_every_step.apisync.db", path, sizeof(path)) < 0)
		fail_msg("zoo/sync_every_step.apisync.db missing");
	struct trace t;
	assert_int_equal(analysis_load(&t, path, err), 0);
	size_t derived = 0;
	for (size_t i = 0; i < t.n_syncs; i++)
		derived += t.syncs[i].stream == UINT32_MAX && t.syncs[i].kind == SYNC_CONTEXT;
	assert_int_equal(t.n_syncs, 4000);
	assert_int_equal(derived, 4000);
	struct analysis a;
	assert_int_equal(analysis_run_range(&a, &t, NULL, err), 0);
	assert_int_equal(a.sync.count, 4000);
	assert_int_equal(a.sync.by_kind[SYNC_CONTEXT], 4000);
	analysis_release(&a);
	trace_release(&t);
}

/* The primary of one file as report gives it (0: not loadable); fills
 * busy and which profiler warning was given (0 none, 1 profiler_overhead:
 * the estimate without the profiler's cost kept the verdict, 2
 * profiler_estimate: the primary is that estimate's). */
static int primary_of(const char *base, const char *ext, char *id, size_t n, double *busy,
		      int *profiler_warned)
{
	char path[1024], tmp[64] = "", err[512];
	snprintf(path, sizeof(path), "%s/%s%s", FIXTURES_DIR, base, ext);
	if (access(path, R_OK) != 0 || fixture_unxz(path, tmp, sizeof(tmp)) < 0)
		return 0;
	struct trace t;
	struct analysis_result res;
	struct analysis_opts ao = {.device = -1};
	int loaded = analysis_load(&t, *tmp ? tmp : path, err);
	if (*tmp)
		unlink(tmp);
	if (loaded < 0) {
		trace_release(&t);
		return 0;
	}
	if (analysis_result_run(&res, &t, &ao, err) < 0) {
		trace_release(&t);
		return 0;
	}
	snprintf(id, n, "%s", res.all.primary ? res.all.primary->id : "(none)");
	*busy = an_pct(&res.all, (double)res.all.busy_ns);
	*profiler_warned = 0;
	for (size_t i = 0; i < res.all.n_warnings; i++) {
		const char *w = res.all.warnings[i].id ? res.all.warnings[i].id : "";
		if (!strcmp(w, "profiler_overhead"))
			*profiler_warned = 1;
		else if (!strcmp(w, "profiler_estimate"))
			*profiler_warned = 2;
	}
	analysis_result_release(&res);
	trace_release(&t);
	return 1;
}

/*
 * #16 item 5, #36 item 8: one program, recorded by gpuscope (NAME.db or
 * NAME.db.xz) and profiled by torch.profiler (NAME.json.gz), gets the same
 * primary. Where it cannot, the row says why, and the test holds the
 * reason to the data:
 *   gpm      - a profiler trace has no GPM samples: the recording's primary
 *              is a roof verdict (memory_bound/compute_bound), the trace's
 *              gpu_busy;
 *   edge     - the recording sits within a point of gpu_busy's 80%.
 * And where the two agree only because the trace's verdict is its estimate
 * without torch.profiler's own cost (its primary as traced was host-side:
 * launch_overhead), the row says "estimate" and the test holds that the
 * estimate decided (the profiler_estimate warning); a row without a reason
 * must agree without it.
 */
static void test_report_pairs(void **state)
{
	static const struct {
		const char *base, *why;
	} pairs[] = {
	    {"pytorch/dataloader_starved", NULL},
	    {"pytorch/small_ops", NULL},
	    {"pytorch/item_every_step", NULL},
	    {"pytorch/bf16_gemm", "gpm"},
	    {"pytorch/healthy_train", NULL},
	    {"pytorch/transformer_step", NULL},
	    {"real/hf_llama_train", "estimate"},
	    {"real/hf_bert_syncs", NULL},
	    {"real/hf_decode", NULL},
	    {"real/tv_resnet_loader", NULL},
	    {"real/triton_fused", "gpm"},
	    {"real/torch_cuda_graphs", "edge"},
	    {"real/torch_empty_cache", "estimate"},
	    {"real/torch_h2d_pageable", NULL},
	    {"real/torch_h2d_pinned", NULL},
	    {"real/timm_vit_train", "estimate"},
	    {"real/pyg_gcn", "gpm"},
	};
	int ran = 0, same = 0, bad = 0;
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		char a[64], b[64];
		double busy_a, busy_b;
		int wa, wb;
		if ((!primary_of(pairs[i].base, ".db", a, sizeof(a), &busy_a, &wa) &&
		     !primary_of(pairs[i].base, ".db.xz", a, sizeof(a), &busy_a, &wa)) ||
		    !primary_of(pairs[i].base, ".json.gz", b, sizeof(b), &busy_b, &wb))
			continue;
		ran++;
		const char *why = pairs[i].why;
		int ok = why == NULL ? !strcmp(a, b) && wb != 2 : 0;
		if (why && !strcmp(why, "gpm"))
			ok = (!strcmp(a, "memory_bound") || !strcmp(a, "compute_bound") ||
			      !strcmp(a, "latency_bound")) &&
			     !strcmp(b, "gpu_busy");
		else if (why && !strcmp(why, "estimate"))
			ok = !strcmp(a, b) && wb == 2 && wa == 0;
		else if (why && !strcmp(why, "edge"))
			ok = fabs(busy_a - 80.0) < 1.0 && strcmp(a, b) != 0;
		same += !strcmp(a, b);
		print_message("%-28s recording %-16s trace %-16s %s\n", pairs[i].base, a, b,
			      why ? why : "same");
		if (!ok) {
			print_error("%s: recording %s, trace %s (%s)\n", pairs[i].base, a, b,
				    why ? why : "must be the same");
			bad++;
		}
	}
	print_message("%d pair(s), %d with the same primary\n", ran, same);
	assert_int_equal(bad, 0);
	assert_true(ran >= 17);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fixtures),
	    cmocka_unit_test(test_report_pairs),
	    cmocka_unit_test(test_api_syncs_fixture),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
