/*
 * thresholds.c - the threshold table (thresholds.h) by name. Values come
 * from the TH_ macros the rules compare against, so text that quotes one
 * ({th.NAME}) and `report --list-rules` cannot drift from the code.
 * Shares (0..1) are listed as percentages.
 */
#include <string.h>

#include "report/report.h"
#include "diagnose/thresholds.h"

#define TH(name, macro, kind, value)                                                               \
	{                                                                                          \
		name, #macro, kind, (double)(value)                                                \
	}

const struct threshold gs_thresholds[] = {
    TH("short_kernel", TH_SHORT_KERNEL_NS, RM_DURATION, TH_SHORT_KERNEL_NS),
    TH("launch_gap", TH_LAUNCH_GAP_NS, RM_DURATION, TH_LAUNCH_GAP_NS),
    TH("host_work", TH_HOST_WORK_NS, RM_DURATION, TH_HOST_WORK_NS),
    TH("sync_relaunch", TH_SYNC_RELAUNCH_NS, RM_DURATION, TH_SYNC_RELAUNCH_NS),
    TH("kernel_floor", TH_KERNEL_FLOOR_NS, RM_DURATION, TH_KERNEL_FLOOR_NS),
    TH("sample_busy", TH_SAMPLE_BUSY_FRAC, RM_PERCENT, 100 * TH_SAMPLE_BUSY_FRAC),
    TH("lag_max", TH_LAG_MAX_NS, RM_DURATION, TH_LAG_MAX_NS),
    TH("lag_step", TH_LAG_STEP_NS, RM_DURATION, TH_LAG_STEP_NS),
    TH("lag_min_corr", TH_LAG_MIN_CORR, RM_NUMBER, TH_LAG_MIN_CORR),
    TH("lag_min_gain", TH_LAG_MIN_GAIN, RM_NUMBER, TH_LAG_MIN_GAIN),
    TH("lag_max_windows", TH_LAG_MAX_WINDOWS, RM_COUNT, TH_LAG_MAX_WINDOWS),
    TH("warm_min_launches", TH_WARM_MIN_LAUNCHES, RM_COUNT, TH_WARM_MIN_LAUNCHES),
    TH("warm_prefix_cold", TH_WARM_PREFIX_COLD, RM_PERCENT, 100 * TH_WARM_PREFIX_COLD),
    TH("warm_min_prefix", TH_WARM_MIN_PREFIX_SHARE, RM_PERCENT, 100 * TH_WARM_MIN_PREFIX_SHARE),
    TH("warm_min_keep", TH_WARM_MIN_KEEP, RM_PERCENT, 100 * TH_WARM_MIN_KEEP),
    TH("gpu_gap", TH_GPU_GAP_NS, RM_DURATION, TH_GPU_GAP_NS),
    TH("util_chunks", TH_UTIL_CHUNKS, RM_COUNT, TH_UTIL_CHUNKS),
    TH("util_chunk_low", TH_UTIL_CHUNK_LOW_PCT, RM_PERCENT, TH_UTIL_CHUNK_LOW_PCT),
    TH("gpu_busy", TH_GPU_BUSY_PCT, RM_PERCENT, TH_GPU_BUSY_PCT),
    TH("min_impact", TH_MIN_IMPACT_PCT, RM_PERCENT, TH_MIN_IMPACT_PCT),
    TH("warn_impact", TH_WARN_IMPACT_PCT, RM_PERCENT, TH_WARN_IMPACT_PCT),
    TH("crit_impact", TH_CRIT_IMPACT_PCT, RM_PERCENT, TH_CRIT_IMPACT_PCT),
    TH("refine_ratio", TH_REFINE_RATIO, RM_NUMBER, TH_REFINE_RATIO),
    TH("one_time_share", TH_ONE_TIME_SHARE, RM_PERCENT, 100 * TH_ONE_TIME_SHARE),
    TH("profiler_event", TH_PROFILER_EVENT_NS, RM_DURATION, TH_PROFILER_EVENT_NS),
    TH("contention_busy", TH_CONTENTION_BUSY_SHARE, RM_PERCENT, 100 * TH_CONTENTION_BUSY_SHARE),
    TH("contention_wait", TH_CONTENTION_WAIT_SHARE, RM_PERCENT, 100 * TH_CONTENTION_WAIT_SHARE),
    TH("contention_sleep", TH_CONTENTION_SLEEP_SHARE, RM_PERCENT, 100 * TH_CONTENTION_SLEEP_SHARE),
    TH("contention_other", TH_CONTENTION_OTHER_SHARE, RM_PERCENT, 100 * TH_CONTENTION_OTHER_SHARE),
    TH("contention_primary", TH_CONTENTION_PRIMARY_SHARE, RM_PERCENT,
       100 * TH_CONTENTION_PRIMARY_SHARE),
    TH("contention_own", TH_CONTENTION_OWN_SHARE, RM_PERCENT, 100 * TH_CONTENTION_OWN_SHARE),
    TH("gil_pause_min", TH_GIL_PAUSE_MIN_NS, RM_DURATION, TH_GIL_PAUSE_MIN_NS),
    TH("gil_quantum_min", TH_GIL_QUANTUM_MIN_NS, RM_DURATION, TH_GIL_QUANTUM_MIN_NS),
    TH("gil_quantum_max", TH_GIL_QUANTUM_MAX_NS, RM_DURATION, TH_GIL_QUANTUM_MAX_NS),
    TH("gil_pauses_min", TH_GIL_PAUSES_MIN, RM_COUNT, TH_GIL_PAUSES_MIN),
    TH("gil_pause_share", TH_GIL_PAUSE_SHARE, RM_PERCENT, 100 * TH_GIL_PAUSE_SHARE),
    TH("gil_distinct_ops", TH_GIL_DISTINCT_OPS, RM_COUNT, TH_GIL_DISTINCT_OPS),
    TH("contention_other_launches", TH_CONTENTION_OTHER_LAUNCHES, RM_PERCENT,
       100 * TH_CONTENTION_OTHER_LAUNCHES),
    TH("recompile_min", TH_RECOMPILE_MIN, RM_COUNT, TH_RECOMPILE_MIN),
    TH("recompile_late_share", TH_RECOMPILE_LATE_SHARE, RM_PERCENT, 100 * TH_RECOMPILE_LATE_SHARE),
    TH("compile_split_samples", TH_COMPILE_SPLIT_SAMPLES, RM_COUNT, TH_COMPILE_SPLIT_SAMPLES),
    TH("compile_min", TH_COMPILE_MIN_NS, RM_DURATION, TH_COMPILE_MIN_NS),
    TH("window_min_share", TH_WINDOW_MIN_SHARE, RM_PERCENT, 100 * TH_WINDOW_MIN_SHARE),
    TH("fp32_simt_share", TH_FP32_SIMT_SHARE, RM_PERCENT, 100 * TH_FP32_SIMT_SHARE),
    TH("attn_softmax_share", TH_ATTN_SOFTMAX_SHARE, RM_PERCENT, 100 * TH_ATTN_SOFTMAX_SHARE),
    TH("scatter_share", TH_SCATTER_SHARE, RM_PERCENT, 100 * TH_SCATTER_SHARE),
    TH("decode_tokens", TH_DECODE_TOKENS, RM_COUNT, TH_DECODE_TOKENS),
    TH("small_copy_bytes", TH_SMALL_COPY_BYTES, RM_BYTES, TH_SMALL_COPY_BYTES),
    TH("small_copies_min", TH_SMALL_COPIES_MIN, RM_COUNT, TH_SMALL_COPIES_MIN),
    TH("small_copy_share", TH_SMALL_COPY_SHARE, RM_PERCENT, 100 * TH_SMALL_COPY_SHARE),
    TH("sync_upload_share", TH_SYNC_UPLOAD_SHARE, RM_PERCENT, 100 * TH_SYNC_UPLOAD_SHARE),
    TH("uvm_named_kernels", TH_UVM_NAMED_KERNELS, RM_COUNT, TH_UVM_NAMED_KERNELS),
    TH("uvm_fault_chain", TH_UVM_FAULT_CHAIN_NS, RM_DURATION, TH_UVM_FAULT_CHAIN_NS),
    TH("periodic_stall", TH_PERIODIC_STALL_NS, RM_DURATION, TH_PERIODIC_STALL_NS),
    TH("periodic_ratio", TH_PERIODIC_RATIO, RM_NUMBER, TH_PERIODIC_RATIO),
    TH("periodic_min", TH_PERIODIC_MIN, RM_COUNT, TH_PERIODIC_MIN),
    TH("periodic_jitter", TH_PERIODIC_JITTER, RM_PERCENT, 100 * TH_PERIODIC_JITTER),
    TH("periodic_spacing", TH_PERIODIC_SPACING, RM_NUMBER, TH_PERIODIC_SPACING),
    TH("quiet_gap", TH_QUIET_GAP_NS, RM_DURATION, TH_QUIET_GAP_NS),
    TH("quiet_busy", TH_QUIET_BUSY, RM_PERCENT, 100 * TH_QUIET_BUSY),
    TH("short_kernel_share", TH_SHORT_KERNEL_SHARE, RM_PERCENT, 100 * TH_SHORT_KERNEL_SHARE),
    TH("occupancy", TH_OCCUPANCY, RM_PERCENT, 100 * TH_OCCUPANCY),
    TH("occ_gain_cap", TH_OCC_GAIN_CAP, RM_PERCENT, 100 * TH_OCC_GAIN_CAP),
    TH("sol_high", TH_SOL_HIGH_PCT, RM_PERCENT, TH_SOL_HIGH_PCT),
    TH("sol_low", TH_SOL_LOW_PCT, RM_PERCENT, TH_SOL_LOW_PCT),
    TH("divergence_threads", TH_DIVERGENCE_THREADS, RM_NUMBER, TH_DIVERGENCE_THREADS),
    TH("bank_ways", TH_BANK_WAYS, RM_NUMBER, TH_BANK_WAYS),
    TH("sectors_per_thread", TH_SECTORS_PER_THREAD, RM_NUMBER, TH_SECTORS_PER_THREAD),
    TH("counters_cover", TH_COUNTERS_COVER, RM_PERCENT, 100 * TH_COUNTERS_COVER),
    TH("tail_max_waves", TH_TAIL_MAX_WAVES, RM_NUMBER, TH_TAIL_MAX_WAVES),
    TH("pcie_gen5_x16", TH_PCIE_GEN5_X16_GBPS, RM_RATE, TH_PCIE_GEN5_X16_GBPS),
    TH("pcie_measured", TH_PCIE_MEASURED_GBPS, RM_RATE, TH_PCIE_MEASURED_GBPS),
    TH("pageable_share", TH_PAGEABLE_SHARE, RM_PERCENT, 100 * TH_PAGEABLE_SHARE),
    TH("overhead_warn", TH_OVERHEAD_WARN_SHARE, RM_PERCENT, 100 * TH_OVERHEAD_WARN_SHARE),
    TH("blocking_kernel", TH_BLOCKING_KERNEL_NS, RM_DURATION, TH_BLOCKING_KERNEL_NS),
    TH("blocking_share", TH_BLOCKING_SHARE, RM_PERCENT, 100 * TH_BLOCKING_SHARE),
    TH("blocking_min_launches", TH_BLOCKING_MIN_LAUNCHES, RM_COUNT, TH_BLOCKING_MIN_LAUNCHES),
    TH("anomaly_min_nodes", TH_ANOMALY_MIN_NODES, RM_COUNT, TH_ANOMALY_MIN_NODES),
    TH("anomaly_node_share", TH_ANOMALY_NODE_SHARE, RM_PERCENT, 100 * TH_ANOMALY_NODE_SHARE),
    TH("anomaly_sample_share", TH_ANOMALY_SAMPLE_SHARE, RM_PERCENT, 100 * TH_ANOMALY_SAMPLE_SHARE),
    TH("ddp_min_forwards", TH_DDP_MIN_FORWARDS, RM_COUNT, TH_DDP_MIN_FORWARDS),
    TH("ddp_search_share", TH_DDP_SEARCH_SHARE, RM_PERCENT, 100 * TH_DDP_SEARCH_SHARE),
    TH("optim_loop_share", TH_OPTIM_LOOP_SHARE, RM_PERCENT, 100 * TH_OPTIM_LOOP_SHARE),
    TH("optim_loop_launches", TH_OPTIM_LOOP_LAUNCHES, RM_COUNT, TH_OPTIM_LOOP_LAUNCHES),
    TH("autotune_launches", TH_AUTOTUNE_LAUNCHES, RM_COUNT, TH_AUTOTUNE_LAUNCHES),
    TH("cudnn_build", TH_CUDNN_BUILD_NS, RM_DURATION, TH_CUDNN_BUILD_NS),
    TH("autotune_late_min", TH_AUTOTUNE_LATE_MIN, RM_COUNT, TH_AUTOTUNE_LATE_MIN),
    TH("jit_host", TH_JIT_HOST_NS, RM_DURATION, TH_JIT_HOST_NS),
    TH("jit_new_within", TH_JIT_NEW_WITHIN, RM_COUNT, TH_JIT_NEW_WITHIN),
    TH("jit_min_keep", TH_JIT_MIN_KEEP, RM_PERCENT, 100 * TH_JIT_MIN_KEEP),
    TH("calls_one_time", TH_CALLS_ONE_TIME, RM_COUNT, TH_CALLS_ONE_TIME),
    TH("input_copy_bytes", TH_INPUT_COPY_BYTES, RM_NUMBER, TH_INPUT_COPY_BYTES),
    TH("evidence_share", TH_EVIDENCE_SHARE, RM_PERCENT, 100 * TH_EVIDENCE_SHARE),
    TH("memory_peak", TH_MEMORY_PEAK_SHARE, RM_PERCENT, 100 * TH_MEMORY_PEAK_SHARE),
    TH("pad_min_batch", TH_PAD_MIN_BATCH, RM_COUNT, TH_PAD_MIN_BATCH),
    TH("pad_min_len", TH_PAD_MIN_LEN, RM_COUNT, TH_PAD_MIN_LEN),
    TH("pad_min_steps", TH_PAD_MIN_STEPS, RM_COUNT, TH_PAD_MIN_STEPS),
    TH("pad_masked_share", TH_PAD_MASKED_SHARE, RM_PERCENT, 100 * TH_PAD_MASKED_SHARE),
    TH("healthy_busy", TH_HEALTHY_BUSY_PCT, RM_PERCENT, TH_HEALTHY_BUSY_PCT),
    TH("family_dominant", TH_FAMILY_DOMINANT, RM_PERCENT, 100 * TH_FAMILY_DOMINANT),
    TH("graph_share", TH_GRAPH_SHARE, RM_PERCENT, 100 * TH_GRAPH_SHARE),
    TH("min_gpu_work", TH_MIN_GPU_WORK_NS, RM_DURATION, TH_MIN_GPU_WORK_NS),
    TH("floor_title", TH_FLOOR_TITLE_PCT, RM_PERCENT, TH_FLOOR_TITLE_PCT),
    TH("straggler_compute_excess", TH_STRAGGLER_COMPUTE_EXCESS, RM_NUMBER,
       TH_STRAGGLER_COMPUTE_EXCESS),
    TH("worker_function", TH_WORKER_FUNCTION_PCT, RM_PERCENT, TH_WORKER_FUNCTION_PCT),
    TH("compile_function", TH_COMPILE_FUNCTION_PCT, RM_PERCENT, TH_COMPILE_FUNCTION_PCT),
    TH("roof_share", TH_ROOF_SHARE, RM_PERCENT, 100 * TH_ROOF_SHARE),
    TH("primary_yield", TH_PRIMARY_YIELD, RM_NUMBER, TH_PRIMARY_YIELD),
    TH("diff_unmoved_abs", TH_DIFF_UNMOVED_ABS, RM_NUMBER, TH_DIFF_UNMOVED_ABS),
    TH("diff_unmoved_rel", TH_DIFF_UNMOVED_REL, RM_PERCENT, 100 * TH_DIFF_UNMOVED_REL),
    TH("temp_margin", TH_TEMP_MARGIN_C, RM_NUMBER, TH_TEMP_MARGIN_C),
    TH("pcie_busy_util", TH_PCIE_BUSY_UTIL_PCT, RM_PERCENT, TH_PCIE_BUSY_UTIL_PCT),
};

const unsigned gs_n_thresholds = sizeof(gs_thresholds) / sizeof(gs_thresholds[0]);

const struct threshold *threshold_find(const char *name)
{
	for (unsigned i = 0; i < gs_n_thresholds; i++)
		if (strcmp(gs_thresholds[i].name, name) == 0)
			return &gs_thresholds[i];
	return NULL;
}
