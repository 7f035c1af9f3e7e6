/*
 * rules.c - the rule table (rules.h) and an_rules, which runs a device's
 * rules in table order and picks the primary finding.
 *
 * Each rule states its impact as a share of the analysed wall time that the
 * finding explains or could win back (docs/report-rules.md gives each
 * estimate, docs/findings.md each finding's meaning and evidence). Order
 * matters once: gpu_busy comes after the kernel-side rules, whose largest
 * impact it needs.
 */
#include <string.h>

#include "diagnose/advice.h"
#include "diagnose/nowork.h"
#include "diagnose/rules_int.h"
#include "diagnose/verdict.h"

#define DOC(id) "docs/findings.md#" id
#define EV(k, u, l)                                                                                \
	{                                                                                          \
		k, u, l                                                                            \
	}
/* what a bound found on per-kernel counters adds (rules_counters.c) */
#define COUNTER_BOUND_EVIDENCE                                                                     \
	EV("kernel", "name", "kernel"), EV("evidence_source", "text", "measured by"),              \
	    EV("kernel_time_pct", "%", "its time"), EV("kernels_affected", "count", "kernels"),    \
	    EV("sm_throughput_pct", "%", "SM throughput"),                                         \
	    EV("memory_throughput_pct", "%", "memory throughput"),                                 \
	    EV("achieved_occupancy_pct", "%", "achieved occupancy"),                               \
	    EV("unit", "text", "busiest unit"), EV("unit_throughput_pct", "%", "its throughput"),  \
	    EV("dram_gbps", "GB/s", "DRAM rate"), EV("dram_roof_gbps", "GB/s", "DRAM roof"),       \
	    EV("tflops", "x", "TFLOP/s"), EV("tflops_roof", "x", "TFLOP/s roof"),                  \
	    EV("stall_*_pct", "%", "stall reason share")
/* what the kernel findings' first actions rest on (adv_kernels): fp32 GEMMs
 * without tensor cores (precision.c), attention run unfused (attention.c),
 * work by index (advice.c) */
#define KERNEL_ADVICE_EVIDENCE                                                                     \
	EV("fp32_simt_gemm_pct", "%", "kernel time in fp32 GEMMs on the SIMT pipes"),              \
	    EV("tensor_core_gain_x", "x", "TF32 tensor peak over fp32 peak"),                      \
	    EV("attention_softmax_pct", "%", "kernel time in attention's own softmax"),            \
	    EV("fused_attention_pct", "%", "kernel time in fused attention"),                      \
	    EV("by_index_kernel_pct", "%", "kernel time gathering or scattering by index")
/* what the host ran while the GPU waited (hostwait.h) */
#define HOST_WAIT_EVIDENCE                                                                         \
	EV("host_function", "text", "the main thread's function"),                                 \
	    EV("host_function_pct", "%", "its share of that idle"),                                \
	    EV("worker_function", "text", "the busiest other thread's function"),                  \
	    EV("worker_function_pct", "%", "its share of that idle"),                              \
	    EV("worker_pid", "count", "its process")
/* what input_pipeline and host_overhead carry (rules_host.c, hostside.c) */
#define HOST_EVIDENCE                                                                              \
	EV("gpu_idle_pct", "%", "GPU idle"), EV("host_idle_pct", "%", "idle during host work"),    \
	    EV("evidence", "text", "what the host was doing, and how gpuscope knows"),             \
	    EV("data_loading_share_pct", "%", "of the host idle in data loading"),                 \
	    EV("other_host_work_share_pct", "%", "of the host idle in other host work"),           \
	    EV("data_loading_range", "name", "the data-loading range"),                            \
	    EV("stretches_ending_in_input_copy", "count",                                          \
	       "host stretches ending in a batch copy"),                                           \
	    EV("long_host_stretches", "count", "host stretches"),                                  \
	    EV("input_copy_mib", "MiB", "batch copy size"), EV("idle_gaps", "count", "idle gaps"), \
	    EV("one_time_stretch_ms", "ms", "one stretch holding most of it (work done once)"),    \
	    EV("longest_gap_ms", "ms", "longest gap"),                                             \
	    EV("gaps_ge_500ms", "count", "gaps of 500 ms or more"),                                \
	    EV("low_util_chunks_of_30", "count", "chunks of 30 under 50% busy"),                   \
	    HOST_WAIT_EVIDENCE
/* autograd's anomaly detection, when it was on (switches.h) */
#define ANOMALY_EVIDENCE                                                                           \
	EV("anomaly_checked_nodes", "count",                                                       \
	   "backward nodes checked for NaN (anomaly detection)"),                                  \
	    EV("backward_nodes", "count", "backward nodes"),                                       \
	    EV("anomaly_host_pct", "%", "host samples in anomaly detection's work"), DDP_EVIDENCE
/* DDP's search for unused parameters, when it cost time (switches.h) */
#define DDP_EVIDENCE                                                                               \
	EV("ddp_forwards", "count", "DistributedDataParallel.forward ranges"),                     \
	    EV("ddp_post_forward_ms", "ms", "their time after their last op"),                     \
	    EV("ddp_unused_search_pct", "%", "DDP's search for unused parameters")
/* torch.optim's per-parameter path, when it held the launches (switches.h) */
#define OPTIM_EVIDENCE                                                                             \
	EV("optimizer_steps", "count", "optimizer steps (Optimizer.step# ranges)"),                \
	    EV("optimizer_launches_per_step", "count", "kernels launched in each"),                \
	    EV("optimizer_loop_pct", "%", "the per-parameter path's launches or host time"),       \
	    EV("optimizer_function", "name", "the optimizer's per-parameter function")
/* what every host-side finding of a profiler trace carries (unprofiled.c) */
#define UNPROF_EVIDENCE                                                                            \
	EV("without_profiler_pct", "%", "its impact without torch.profiler's own cost (estimated)")
/* what every specific cause from counters carries */
#define COUNTER_CAUSE_EVIDENCE                                                                     \
	EV("kernel", "name", "kernel"), EV("kernel_time_pct", "%", "its time"),                    \
	    EV("kernels_affected", "count", "kernels"),                                            \
	    EV("profiled_launches", "count", "launches with counters")

const struct rule gs_rules[] = {
    {"input_pipeline",
     RULE_DEVICE,
     RULE_HOST,
     rule_input_pipeline,
     DOC("input_pipeline"),
     "idle_host",
     "GPU idle in host stretches of {th.host_work} or more with no CUDA call in flight >= "
     "{th.min_impact} of the span, with evidence of data loading (DataLoader ranges, "
     "data-loading host samples, or stretches ending in a host-to-device batch copy: "
     "{th.evidence_share} of that idle)",
     {HOST_EVIDENCE, EV("preproc_op", "name", "preprocessing op the host was in most"),
      EV("preproc_op_idle_pct", "%", "GPU idle inside it"), UNPROF_EVIDENCE}},
    {"host_overhead",
     RULE_DEVICE,
     RULE_HOST,
     rule_host_overhead,
     DOC("host_overhead"),
     "idle_host",
     "GPU idle in host stretches of {th.host_work} or more with no CUDA call in flight >= "
     "{th.min_impact} of the span, without evidence of data loading",
     {HOST_EVIDENCE, EV("top_op", "name", "op the host was in most"),
      EV("top_op_idle_pct", "%", "GPU idle inside it"),
      EV("top_function", "text", "own function the host ran most"),
      EV("top_function_share_pct", "%", "its share of the idle samples"),
      EV("preproc_op", "name", "preprocessing op the host was in most"),
      EV("preproc_op_idle_pct", "%", "GPU idle inside it"),
      EV("unified_memory_host_pct", "%",
	 "of the host idle: the host faulting managed pages back (unified_memory's, left out "
	 "of the impact)"),
      EV("periodic_stalls", "count", "GPU waits for host work done every so often"),
      EV("periodic_stall_ms", "ms", "their median length"),
      EV("periodic_every_s", "s", "the median time from one to the next"),
      EV("periodic_stall_pct", "%", "their summed length"), ANOMALY_EVIDENCE, OPTIM_EVIDENCE,
      UNPROF_EVIDENCE}},
    {"cuda_calls_idle",
     RULE_DEVICE,
     RULE_HOST,
     rule_cuda_calls_idle,
     DOC("cuda_calls_idle"),
     "idle_api",
     "GPU idle while the host is inside CUDA calls other than launches, copies and "
     "synchronizations >= {th.min_impact} of the span",
     {EV("cuda_calls_idle_pct", "%", "GPU idle inside other CUDA calls"),
      EV("top_call", "text", "the call holding the most"),
      EV("top_call_cause", "text", "its cause"), EV("top_call_count", "count", "its calls"),
      EV("top_call_time_ms", "ms", "time inside them"),
      EV("top_call_idle_ms", "ms", "GPU idle inside them"),
      EV("second_call", "text", "the next call"),
      EV("second_call_idle_ms", "ms", "GPU idle inside it"),
      EV("allocation_idle_pct", "%", "inside allocations"),
      EV("free_idle_pct", "%", "inside frees"),
      EV("module_load_idle_pct", "%", "inside module loads"),
      EV("context_creation_idle_pct", "%", "inside context creation"), UNPROF_EVIDENCE}},
    {"host_contention",
     RULE_DEVICE,
     RULE_HOST,
     rule_host_contention,
     DOC("host_contention"),
     "",
     "the launching thread waits for a CPU {th.contention_wait} of its time, or sleeps outside "
     "CUDA calls {th.contention_sleep} of it while another thread of its process runs Python on "
     "a CPU {th.contention_other} of it (record's scheduler statistics); or, in a trace without "
     "them, the launching thread pauses between its ops at 1 to 4 times the GIL's hand-over "
     "({th.gil_quantum_min} to {th.gil_quantum_max}), {th.gil_pauses_min} times or more and in "
     "{th.gil_pause_share} of its pauses of {th.gil_pause_min} or more, after "
     "{th.gil_distinct_ops} different ops or more; and the GPU's idle meanwhile >= "
     "{th.min_impact}",
     {EV("kind", "text", "what it waits for: gil or cpu"),
      EV("contention_idle_pct", "%", "GPU idle while it waited (the impact)"),
      EV("launch_thread", "count", "the launching thread"),
      EV("launch_thread_on_cpu_pct", "%", "its time on a CPU"),
      EV("launch_thread_cpu_wait_pct", "%", "its time waiting for a CPU"),
      EV("launch_thread_cuda_pct", "%", "its time inside CUDA calls"),
      EV("launch_thread_sleep_pct", "%", "its time asleep outside CUDA calls and known waits"),
      EV("launch_thread_function", "text", "its own function while the GPU idled"),
      EV("gil_idle_pct", "%", "GPU idle while it slept"),
      EV("cpu_wait_idle_pct", "%", "GPU idle while it waited for a CPU"),
      EV("other_thread", "count", "the other thread longest on a CPU"),
      EV("other_thread_cpu_pct", "%", "its time on a CPU"),
      EV("other_thread_function", "text", "its function"),
      EV("other_thread_call", "text", "the innermost Python function it was in"),
      EV("threads", "count", "threads of the process"),
      EV("busy_threads", "count", "threads on a CPU 10% of the time or more"),
      EV("process_cpus_used", "x", "CPUs the process used, on average"),
      EV("process_runq_threads", "x", "its threads waiting for a CPU, on average"),
      EV("cpus", "count", "CPUs it may use"),
      EV("gil_handover_ms", "ms", "the GIL's hand-over seen in the trace's pauses"),
      EV("gil_pauses", "count", "pauses at 1 to 4 hand-overs"),
      EV("op_pauses", "count", "the launching thread's long pauses between ops"),
      EV("gil_pause_ms", "ms", "the hand-over pauses' time"),
      UNPROF_EVIDENCE}},
    {"recompilation",
     RULE_DEVICE,
     RULE_HOST,
     rule_recompilation,
     DOC("recompilation"),
     "idle_jit",
     "one kernel compiled again {th.recompile_min} times or more after its first JIT "
     "compilation (phases.c), and the compilations' GPU idle in the window or their time in "
     "the run >= {th.min_impact}; or host samples still {th.recompile_late_share} in a compiler in "
     "the window's second half, or torch.compile's compile ranges {th.recompile_min} times or "
     "more in the window; or cuDNN autotuning convolutions ({th.autotune_launches} "
     "launches or more in one call) {th.autotune_late_min} times or more in the second half "
     "of the run, for >= {th.min_impact} of the window; or, in a trace, cuDNN's attention "
     "calls of {th.cudnn_build} or more (a kernel built for a new shape) {th.recompile_min} "
     "times or more, one in the second half of its calls",
     {EV("compilations", "count", "JIT compilations in the run"),
      EV("recompilations", "count", "compilations of a kernel compiled before"),
      EV("recompile_ms", "ms", "their time"),
      EV("run_share_pct", "%", "their share of the run's GPU work (first to last)"),
      EV("jit_idle_pct", "%", "GPU idle in compilation in the window (the impact)"),
      EV("kernel", "name", "the kernel compiled again most"),
      EV("kernel_recompilations", "count", "its compilations after the first"),
      EV("window_share_pct", "%", "the analysed window's share of the run's GPU work"),
      EV("window", "text", "why the window is the whole run"),
      EV("compile_idle_pct", "%",
	 "GPU idle while the host compiles outside the JIT stretches (host samples or "
	 "torch.compile's ranges)"),
      EV("compile_late_share_pct", "%",
	 "of the GPU-idle host samples in the window's second half, those in a compiler"),
      EV("compile_function", "text", "the compiler's entry the samples were in, and its caller"),
      EV("compile_op", "name", "torch.compile's compile range (a trace without host samples)"),
      EV("autotune_calls", "count", "convolution calls that autotuned (cuDNN)"),
      EV("autotune_late_calls", "count", "of them, in the second half of the run"),
      EV("autotune_ms", "ms", "their time"),
      EV("autotune_pct", "%", "their share of the window"),
      EV("autotune_op", "name", "the op autotuned most"),
      EV("cudnn_builds", "count", "cuDNN attention calls that built the kernel (a new shape)"),
      EV("cudnn_build_ms", "ms", "their median"),
      EV("cudnn_build_late", "count", "of them, in the second half of the attention's calls"),
      EV("cudnn_attention_calls", "count", "cuDNN attention calls"),
      UNPROF_EVIDENCE}},
    {"launch_overhead",
     RULE_DEVICE,
     RULE_HOST,
     rule_launch_overhead,
     DOC("launch_overhead"),
     "idle_launch,idle_dispatch",
     "launch and dispatch idle plus {th.kernel_floor} per kernel under {th.short_kernel} >= "
     "{th.min_impact}, and {th.short_kernel_share} of kernels short or dispatch idle >= "
     "{th.min_impact}",
     {EV("kernels", "count", "kernels"),
      EV("short_kernels", "count", "short kernels"),
      EV("short_kernel_share_pct", "%", "short kernels of all"),
      EV("launch_wait_pct", "%", "idle waiting on launches and dispatch"),
      EV("launch_idle_pct", "%", "idle waiting on launches"),
      EV("host_dispatch_idle_pct", "%", "idle during host dispatch"),
      EV("short_kernel_fixed_cost_pct", "%", "short kernels' fixed cost"),
      EV("kernel_time_ms", "ms", "kernel time"),
      EV("launch_api_time_ms", "ms", "time in launch calls"),
      EV("launch_api_median_us", "us", "launch call median"),
      EV("launch_delay_median_us", "us", "launch-to-start delay median"),
      EV("queue_empty_pct", "%", "launches finding the queue empty"),
      EV("top_short_kernel", "name", "most launched short kernel"),
      EV("top_short_kernel_count", "count", "its launches"),
      EV("top_short_kernel_median_us", "us", "its median duration"),
      EV("graph_kernel_pct", "%", "kernel time launched from CUDA graphs"),
      EV("step_syncs", "count", "blocking syncs and read-backs (no graph captures them)"),
      HOST_WAIT_EVIDENCE,
      ANOMALY_EVIDENCE,
      OPTIM_EVIDENCE,
      UNPROF_EVIDENCE}},
    {"transfer",
     RULE_DEVICE,
     RULE_HOST,
     rule_transfer,
     DOC("transfer"),
     "idle_copy,HtoD,DtoH,DtoD,HtoH,PtoP",
     "copy time with no kernel running plus copy-call idle >= {th.min_impact}",
     {EV("copy_blocking_pct", "%", "copies blocking compute"),
      EV("copy_time_pct", "%", "copy time"),
      EV("copy_not_overlapped_pct", "%", "copy time with no kernel running"),
      EV("copy_call_idle_pct", "%", "idle inside copy calls"), EV("copies", "count", "copies"),
      EV("bytes", "bytes", "bytes copied"), EV("pageable_pct", "%", "pageable bytes"),
      EV("htod_gbps", "GB/s", "host-to-device rate"),
      EV("dtoh_gbps", "GB/s", "device-to-host rate"), EV("link_gbps", "GB/s", "link rate"),
      EV("overlap_with_kernels_pct", "%", "copy time overlapping kernels"),
      EV("small_copies", "count", "host-to-device copies of 64 KiB or less"),
      EV("median_copy_bytes", "bytes", "their median size"),
      EV("small_copy_gbps", "GB/s", "their rate"), UNPROF_EVIDENCE}},
    {"sync_stall",
     RULE_DEVICE,
     RULE_HOST,
     rule_sync_stall,
     DOC("sync_stall"),
     "idle_sync",
     "GPU idle around blocking synchronizations (and {th.sync_relaunch} after) >= "
     "{th.min_impact}",
     {EV("syncs", "count", "blocking synchronizations"),
      EV("sync_idle_pct", "%", "GPU idle around them"),
      EV("readbacks", "count", "device-to-host copies the host waited for"),
      EV("sync_op", "name", "op most of them came from"), EV("sync_op_calls", "count", "its calls"),
      EV("sync_op_syncs", "count", "its synchronizations"),
      EV("sync_inner_op", "name", "the op inside it that waited"),
      EV("sync_site", "text", "its Python call site"), EV("sync_time_ms", "ms", "time inside them"),
      EV("gpu_idle_after_sync_ms", "ms", "GPU idle around them"),
      EV("idle_per_sync_us", "us", "idle per synchronization"),
      EV("syncs_after_upload", "count", "of them right after a host-to-device copy call"),
      EV("small_copies", "count", "host-to-device copies of 64 KiB or less"),
      EV("median_copy_bytes", "bytes", "their median size"),
      EV("small_copy_gbps", "GB/s", "their rate"),
      EV("unified_memory_host_pct", "%",
	 "of the sync idle: the host faulting managed pages back after the waits "
	 "(unified_memory's, left out of the impact)"),
      HOST_WAIT_EVIDENCE, ANOMALY_EVIDENCE, UNPROF_EVIDENCE}},
    {"unified_memory",
     RULE_DEVICE,
     RULE_HOST,
     rule_unified_memory,
     DOC("unified_memory"),
     "",
     "managed memory's GPU page faults, on-demand migrations and throttling (CUPTI's "
     "unified-memory counters) overlap the device's kernels or its idle time, or the host's "
     "CPU page faults its idle time, for >= {th.min_impact} of the span",
     {EV("unified_memory_pct", "%",
	 "stalled kernel time plus idle while pages migrate or the host faults them back "
	 "(the impact)"),
      EV("stalled_kernel_pct", "%", "kernel time with page faults being serviced"),
      EV("stalled_kernel_ms", "ms", "that time"),
      EV("idle_migrating_pct", "%",
	 "GPU idle while pages migrate on demand or the host faults them back"),
      EV("idle_host_faulting_pct", "%",
	 "of which: GPU idle while the host faults managed pages back (its CPU page faults "
	 "in a row)"),
      EV("kernel", "name", "the kernel stalled most"),
      EV("kernel_stalled_pct", "%", "its time with faults being serviced"),
      EV("other_kernels", "text", "the next kernels stalled"),
      EV("kernels_stalled", "count", "kernels stalled"),
      EV("gpu_page_faults", "count", "GPU page fault groups"),
      EV("cpu_page_faults", "count", "CPU page faults"),
      EV("htod_mib", "MiB", "migrated host to device"),
      EV("dtoh_mib", "MiB", "migrated device to host"),
      EV("htod_ms", "ms", "host-to-device migration time"),
      EV("dtoh_ms", "ms", "device-to-host migration time"),
      EV("on_demand_mib", "MiB", "migrated on demand (faults, the driver's prefetch, eviction)"),
      EV("prefetched_mib", "MiB", "migrated by the program's prefetches"),
      EV("on_demand_gbps", "GB/s", "on-demand migration rate"),
      EV("dtod_mib", "MiB", "migrated between devices"),
      EV("evicted_mib", "MiB", "evicted to the host"),
      EV("thrashing", "count", "thrashing events"),
      EV("throttling", "count", "throttling events"),
      EV("remote_maps", "count", "remote mappings"),
      UNPROF_EVIDENCE}},
    {"small_grid",
     RULE_DEVICE,
     RULE_KERNEL,
     rule_small_grid,
     DOC("small_grid"),
     "kernels",
     "SM time left idle by kernels of {th.short_kernel} or more with fewer blocks than SMs "
     ">= {th.min_impact}",
     {EV("sm_idle_pct", "%", "SM time idle (the impact)"), EV("kernel", "name", "kernel"),
      EV("grid_blocks", "count", "blocks"), EV("sm_count", "count", "SMs"),
      EV("small_grid_time_pct", "%", "small-grid kernel time"),
      EV("kernel_owner", "text", "whose kernel"),
      EV("gpm_sm_util_busy_pct", "%", "GPM SM activity while busy")}},
    {"low_occupancy",
     RULE_DEVICE,
     RULE_KERNEL,
     rule_low_occupancy,
     DOC("low_occupancy"),
     "kernels",
     "kernel time more resident warps would win, on full-grid kernels under {th.occupancy} "
     "theoretical occupancy that are not library GEMM/attention/convolution, >= "
     "{th.min_impact}",
     {EV("kernel", "name", "kernel"), EV("occupancy_pct", "%", "theoretical occupancy"),
      EV("limiter", "text", "limited by"),
      EV("registers_per_thread", "count", "registers per thread"),
      EV("block_size", "count", "threads per block"),
      EV("smem_per_block", "bytes", "shared memory per block"),
      EV("low_occupancy_time_pct", "%", "low-occupancy kernel time"),
      EV("achieved_occupancy_pct", "%", "achieved occupancy")}},
    {"tail_effect",
     RULE_DEVICE,
     RULE_KERNEL,
     rule_tail_effect,
     DOC("tail_effect"),
     "kernels",
     "SM time left idle by partial last waves of grids of 1 to {th.tail_max_waves} waves >= "
     "{th.min_impact}",
     {EV("tail_idle_pct", "%", "SM time idle in partial last waves (the impact)")}},
    {"divergence",
     RULE_DEVICE,
     RULE_KERNEL,
     rule_divergence,
     DOC("divergence"),
     "kernels",
     "per-kernel counters: fewer than {th.divergence_threads} active threads per instruction",
     {COUNTER_CAUSE_EVIDENCE, EV("threads_per_instruction", "x", "active threads per instruction"),
      EV("divergence_threshold_threads", "x", "the threshold"),
      EV("threads_per_warp", "x", "threads per warp")}},
    {"bank_conflicts",
     RULE_DEVICE,
     RULE_KERNEL,
     rule_bank_conflicts,
     DOC("bank_conflicts"),
     "kernels",
     "per-kernel counters: {th.bank_ways} or more shared-memory wavefronts per instruction",
     {COUNTER_CAUSE_EVIDENCE,
      EV("shared_wavefronts_per_instruction", "x", "wavefronts per shared instruction"),
      EV("bank_conflict_pct", "%", "conflicts of the wavefronts"),
      EV("l1_shared_throughput_pct", "%", "L1/shared throughput")}},
    {"uncoalesced",
     RULE_DEVICE,
     RULE_KERNEL,
     rule_uncoalesced,
     DOC("uncoalesced"),
     "kernels",
     "per-kernel counters: {th.sectors_per_thread} or more sectors fetched per thread access "
     "of global loads",
     {COUNTER_CAUSE_EVIDENCE, EV("sectors_per_request", "x", "sectors per request"),
      EV("sectors_per_thread_access", "x", "sectors per thread access"),
      EV("max_bytes_used_pct", "%", "fetched bytes used at most"),
      EV("memory_throughput_pct", "%", "memory throughput"),
      EV("dram_throughput_pct", "%", "DRAM throughput")}},
    {"memory_bound",
     RULE_DEVICE,
     RULE_KERNEL,
     rule_memory_bound,
     DOC("memory_bound"),
     "kernels",
     "per-kernel counters (covering {th.counters_cover} of kernel time): kernels at the memory "
     "roof; else GPM: kernel time x the memory-bound "
     "share of busy windows >= {th.min_impact}",
     {EV("gpm_dram_bw_util_busy_pct", "%", "DRAM bandwidth while busy"),
      EV("gpm_pipe_util_busy_pct", "%", "busiest pipe while busy"),
      EV("busy_time_memory_bound_pct", "%", "busy time memory-bound"),
      EV("kernel_family", "text", "kernel family"), EV("kernel_owner", "text", "whose kernels"),
      COUNTER_BOUND_EVIDENCE, KERNEL_ADVICE_EVIDENCE}},
    {"compute_bound",
     RULE_DEVICE,
     RULE_KERNEL,
     rule_compute_bound,
     DOC("compute_bound"),
     "kernels",
     "per-kernel counters: kernels at the SM roof; else GPM: kernel time x the compute-bound "
     "share of busy windows >= {th.min_impact}",
     {EV("gpm_pipe_util_busy_pct", "%", "busiest pipe while busy"),
      EV("gpm_sm_util_busy_pct", "%", "GPM SM activity while busy"),
      EV("gpm_fp32_util_busy_pct", "%", "FP32 pipe while busy"),
      EV("gpm_tensor_util_busy_pct", "%", "tensor pipe while busy"),
      EV("busy_time_compute_bound_pct", "%", "busy time compute-bound"),
      EV("kernel_family", "text", "kernel family"), EV("kernel_owner", "text", "whose kernels"),
      COUNTER_BOUND_EVIDENCE, KERNEL_ADVICE_EVIDENCE}},
    {"latency_bound",
     RULE_DEVICE,
     RULE_KERNEL,
     rule_latency_bound,
     DOC("latency_bound"),
     "kernels",
     "per-kernel counters: kernels at neither roof; else GPM: kernel time the shape rules "
     "leave "
     "x the latency-bound share >= {th.min_impact}",
     {EV("gpm_dram_bw_util_busy_pct", "%", "DRAM bandwidth while busy"),
      EV("gpm_pipe_util_busy_pct", "%", "busiest pipe while busy"),
      EV("gpm_sm_util_busy_pct", "%", "GPM SM activity while busy"),
      EV("busy_time_latency_bound_pct", "%", "busy time latency-bound"),
      EV("kernel_family", "text", "kernel family"), EV("kernel_owner", "text", "whose kernels"),
      COUNTER_BOUND_EVIDENCE, KERNEL_ADVICE_EVIDENCE}},
    {"gpu_busy",
     RULE_DEVICE,
     RULE_OVERALL,
     rule_gpu_busy,
     DOC("gpu_busy"),
     "",
     "GPU busy >= {th.gpu_busy} of the span",
     {EV("gpu_busy_pct", "%", "GPU busy"), EV("kernel_time_pct", "%", "kernel time"),
      EV("top_kernel", "name", "top kernel"),
      EV("top_kernel_share_pct", "%", "its share of GPU time"),
      EV("top_kernel_owner", "text", "whose kernel"), KERNEL_ADVICE_EVIDENCE}},
    {"padding",
     RULE_DEVICE,
     RULE_OVERALL,
     rule_padding,
     DOC("padding"),
     "",
     "the token ids every aten::embedding looks up in batches of {th.pad_min_batch} or more "
     "have one length of {th.pad_min_len} or more in {th.pad_min_steps} steps or more, and "
     "scaled_dot_product_attention gets a mask over those positions in {th.pad_masked_share} "
     "of its calls or more (a torch.profiler trace with record_shapes)",
     {EV("token_batch", "count", "sequences a batch"),
      EV("token_length", "count", "tokens a sequence, the same in every batch"),
      EV("token_lookups", "count", "embedding lookups of such batches"),
      EV("steps", "count", "profiler steps"),
      EV("masked_attention_calls", "count", "attention calls given a mask over them"),
      EV("attention_calls", "count", "attention calls")}},
    {"deterministic_fill",
     RULE_DEVICE,
     RULE_OVERALL,
     rule_deterministic_fill,
     DOC("deterministic_fill"),
     "",
     "{th.fill_min_calls} or more of the window's torch.empty ops (aten::empty, empty_like, "
     "empty_strided, empty_permuted) hold an aten::fill_, and {th.fill_share} of them or more "
     "(deterministic mode's fill_uninitialized_memory; a torch.profiler trace)",
     {EV("filled_empty_calls", "count", "torch.empty calls that filled their memory"),
      EV("empty_calls", "count", "torch.empty calls"),
      EV("fill_kernels", "count", "kernels the fills launched"),
      EV("fill_gpu_pct", "%", "their GPU time, share of the span"),
      EV("fill_gpu_ms", "ms", "their GPU time"),
      EV("fill_host_pct", "%", "the fills' host time, share of the span")}},
    /* memory; then the job rules across ranks (rules_comm.c) */
    {"memory_peak",
     RULE_DEVICE,
     RULE_OVERALL,
     rule_memory_peak,
     DOC("memory_peak"),
     "",
     "live device memory (or NVML's used memory) >= {th.memory_peak} of the card's",
     {EV("peak_card_pct", "%", "peak share of the card"), EV("peak_gib", "GiB", "peak"),
      EV("card_gib", "GiB", "the card's memory"), EV("measured_by", "text", "measured by"),
      EV("process", "count", "process"), EV("phase", "text", "phase of the peak")}},
    {"comm_exposed",
     RULE_JOB,
     RULE_OVERALL,
     rule_comm_exposed,
     DOC("comm_exposed"),
     "",
     "the ranks' communication no computation hides, averaged, >= {th.min_impact} of the span",
     {EV("exposed_pct", "%", "exposed communication, mean rank"), EV("ranks", "count", "ranks"),
      EV("rank", "count", "rank with the most"),
      EV("rank_exposed_pct", "%", "its exposed communication"),
      EV("comm_ms", "ms", "its communication"), EV("exposed_ms", "ms", "its exposed part"),
      EV("overlap_pct", "%", "its communication overlapped by compute"),
      EV("wait_ms", "ms", "its wait for later ranks"),
      EV("collectives", "count", "its collectives"),
      EV("collective", "text", "the collective with the most time"),
      EV("backend", "text", "where the collectives run")}},
    {"straggler",
     RULE_JOB,
     RULE_OVERALL,
     rule_straggler,
     DOC("straggler"),
     "",
     "one rank arrives last in at least half the collectives and the others' mean wait for it "
     ">= {th.min_impact} of the span",
     {EV("wait_pct", "%", "the others' wait, mean"), EV("straggler_rank", "count", "straggler"),
      EV("straggler_pid", "count", "its process"),
      EV("last_to_arrive", "count", "collectives it arrived last in"),
      EV("collectives", "count", "collectives matched on every rank"),
      EV("others_wait_ms", "ms", "the others' wait for it, mean"),
      EV("straggler_compute_ms", "ms", "its compute"),
      EV("others_compute_ms", "ms", "the others' compute, mean"),
      EV("imbalance_pct", "%", "compute imbalance (max - min) / mean")}},
};

const size_t gs_n_rules = sizeof(gs_rules) / sizeof(gs_rules[0]);

const struct rule *rule_find(const char *id)
{
	for (size_t i = 0; i < gs_n_rules; i++)
		if (strcmp(gs_rules[i].id, id) == 0)
			return &gs_rules[i];
	return NULL;
}

const struct rule *rule_for_category(const char *category)
{
	size_t n = strlen(category);
	for (size_t i = 0; i < gs_n_rules; i++) {
		if (!gs_rules[i].run)
			continue;
		for (const char *p = gs_rules[i].charges; p && *p;) {
			const char *e = strchr(p, ',');
			size_t len = e ? (size_t)(e - p) : strlen(p);
			if (len == n && strncmp(p, category, n) == 0)
				return &gs_rules[i];
			p = e ? e + 1 : NULL;
		}
	}
	return NULL;
}

int rule_host_side(const char *id)
{
	const struct rule *r = rule_find(id);
	return r && r->side == RULE_HOST;
}

/* 1 when key matches pattern: literal, or one '*' standing for a word */
static int key_match(const char *pattern, const char *key)
{
	const char *star = strchr(pattern, '*');
	if (!star)
		return strcmp(pattern, key) == 0;
	size_t head = (size_t)(star - pattern), tail = strlen(star + 1), n = strlen(key);
	return n > head + tail && strncmp(pattern, key, head) == 0 &&
	       strcmp(key + n - tail, star + 1) == 0;
}

const struct rule_evidence *rule_evidence_of(const struct rule *r, const char *key)
{
	for (int i = 0; i < RULE_MAX_EVIDENCE && r->evidence[i].key; i++)
		if (key_match(r->evidence[i].key, key))
			return &r->evidence[i];
	return NULL;
}

const char *rule_scope_name(enum rule_scope s)
{
	return s == RULE_JOB ? "job" : "device";
}

const char *rule_side_name(enum rule_side s)
{
	return s == RULE_HOST ? "host" : s == RULE_KERNEL ? "kernel" : "overall";
}

int an_rules(struct analysis *a, char *err)
{
	struct rule_ctx c = {.a = a};
	/* #16 item 11: nothing (or too little) to diagnose is a verdict of its
	 * own, with no findings */
	an_nowork(a);
	if (a->nowork != NW_NONE)
		return 0;
	for (size_t i = 0; i < gs_n_rules; i++)
		if (gs_rules[i].run && gs_rules[i].scope == RULE_DEVICE &&
		    gs_rules[i].run(&c, &gs_rules[i], err) < 0)
			return -1;
	adv_rocm_terms(a);
	finding_list_sort(&a->findings);
	a->primary = finding_primary(&a->findings);
	an_refine_primary(a);	  /* verdict.c */
	an_contention_primary(a); /* rules_contention.c */
	return 0;
}
