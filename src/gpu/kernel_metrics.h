/*
 * kernel_metrics.h - the per-kernel hardware counters `record --metrics
 * kernels` collects, one X-macro list shared by the injected library (which
 * asks CUPTI's range profiler for them) and analysis (which reads them back
 * from the trace database's counters table by name).
 *
 * The names are Nsight Compute's (ncu --query-metrics on GH100, CUDA 13.0),
 * so that a value here and the same row of `ncu --metrics NAME` mean the
 * same thing; docs/counters.md gives the comparison on the H200. A metric
 * the chip does not know is left out at run time and the database says so.
 *
 * X(id, ncu name, unit, what it says)
 */
#ifndef GPUSCOPE_KERNEL_METRICS_H
#define GPUSCOPE_KERNEL_METRICS_H

#define GS_KERNEL_METRICS(X)                                                                       \
	X(KM_DURATION, "gpu__time_duration.sum", "ns", "kernel duration under replay")             \
	X(KM_SM_SOL, "sm__throughput.avg.pct_of_peak_sustained_elapsed", "%",                      \
	  "SM speed of light: the busiest SM sub-unit against its peak")                           \
	X(KM_MEM_SOL, "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "%",     \
	  "memory speed of light: the busiest memory unit against its peak")                       \
	X(KM_DRAM_PCT, "dram__throughput.avg.pct_of_peak_sustained_elapsed", "%",                  \
	  "DRAM throughput against its peak")                                                      \
	X(KM_L2_PCT, "lts__throughput.avg.pct_of_peak_sustained_elapsed", "%",                     \
	  "L2 throughput against its peak")                                                        \
	X(KM_L1_PCT, "l1tex__throughput.avg.pct_of_peak_sustained_active", "%",                    \
	  "L1/TEX (and shared memory) throughput against its peak")                                \
	X(KM_DRAM_READ, "dram__bytes_read.sum", "bytes", "bytes read from DRAM")                   \
	X(KM_DRAM_WRITE, "dram__bytes_write.sum", "bytes", "bytes written to DRAM")                \
	X(KM_L1_HIT, "l1tex__t_sector_hit_rate.pct", "%", "L1/TEX sector hit rate")                \
	X(KM_L2_HIT, "lts__t_sector_hit_rate.pct", "%", "L2 sector hit rate")                      \
	X(KM_ACHIEVED_OCC, "sm__warps_active.avg.pct_of_peak_sustained_active", "%",               \
	  "achieved occupancy: resident warps against the SM's maximum")                           \
	X(KM_THREADS_PER_INST, "smsp__average_thread_inst_executed_per_inst_executed.ratio",       \
	  "threads", "active threads per executed warp instruction (32 = no divergence)")          \
	X(KM_SHARED_LD_CONFLICTS, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",      \
	  "count", "shared-memory load bank conflicts")                                            \
	X(KM_SHARED_ST_CONFLICTS, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",      \
	  "count", "shared-memory store bank conflicts")                                           \
	X(KM_SHARED_LD_WAVEFRONTS, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",         \
	  "count", "shared-memory load wavefronts")                                                \
	X(KM_SHARED_ST_WAVEFRONTS, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",         \
	  "count", "shared-memory store wavefronts")                                               \
	X(KM_SHARED_LD_INST, "smsp__inst_executed_op_shared_ld.sum", "count",                      \
	  "shared-memory load instructions (warp level)")                                          \
	X(KM_SHARED_ST_INST, "smsp__inst_executed_op_shared_st.sum", "count",                      \
	  "shared-memory store instructions (warp level)")                                         \
	X(KM_GLD_SECTORS, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "count",               \
	  "global-load sectors (32 bytes each)")                                                   \
	X(KM_GLD_REQUESTS, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "count",             \
	  "global-load requests (one per warp instruction)")                                       \
	X(KM_GST_SECTORS, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "count",               \
	  "global-store sectors")                                                                  \
	X(KM_GST_REQUESTS, "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "count",             \
	  "global-store requests")                                                                 \
	X(KM_PIPE_TENSOR,                                                                          \
	  "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", "%",           \
	  "tensor pipe active cycles (HMMA, HGMMA, QGMMA)")                                        \
	X(KM_PIPE_FMA, "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active", "%",         \
	  "FMA pipe active cycles")                                                                \
	X(KM_PIPE_FP64, "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active", "%",       \
	  "FP64 pipe active cycles")                                                               \
	X(KM_PIPE_ALU, "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active", "%",         \
	  "ALU pipe active cycles")                                                                \
	X(KM_PIPE_LSU, "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active", "%",         \
	  "load/store unit instruction issue")                                                     \
	X(KM_SM_CLOCK, "sm__cycles_elapsed.avg.per_second", "Hz", "SM clock while the kernel ran") \
	X(KM_IPC, "sm__inst_executed.avg.per_cycle_active", "inst/cycle",                          \
	  "warp instructions issued per active SM cycle")                                          \
	X(KM_INST, "smsp__inst_executed.sum", "count", "warp instructions executed")               \
	X(KM_FFMA, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "count",                 \
	  "fp32 FMA thread instructions (2 FLOP each)")                                            \
	X(KM_FADD, "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", "count",                 \
	  "fp32 add thread instructions")                                                          \
	X(KM_FMUL, "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", "count",                 \
	  "fp32 multiply thread instructions")                                                     \
	X(KM_DFMA, "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum", "count",                 \
	  "fp64 FMA thread instructions (2 FLOP each)")                                            \
	X(KM_DADD, "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum", "count",                 \
	  "fp64 add thread instructions")                                                          \
	X(KM_DMUL, "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum", "count",                 \
	  "fp64 multiply thread instructions")                                                     \
	X(KM_HFMA, "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum", "count",                 \
	  "fp16 FMA thread instructions (2 FLOP each, x2 when packed)")                            \
	X(KM_TENSOR_HMMA_F16, "sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32.sum", "ops",          \
	  "tensor math ops, HMMA fp16 -> fp32")                                                    \
	X(KM_TENSOR_HGMMA_BF16, "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum", "ops",       \
	  "tensor math ops, HGMMA bf16 -> fp32")                                                   \
	X(KM_GLD_INST, "smsp__sass_inst_executed_op_global_ld.sum", "count",                       \
	  "global-load warp instructions")                                                         \
	X(KM_STALL_LONG_SB,                                                                        \
	  "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio", "ratio",     \
	  "stalled waiting on L1TEX (global, local, texture) data")                                \
	X(KM_STALL_SHORT_SB,                                                                       \
	  "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio", "ratio",    \
	  "stalled waiting on MIO data (shared memory, special functions)")                        \
	X(KM_STALL_BARRIER, "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio",    \
	  "ratio", "stalled at a block barrier")                                                   \
	X(KM_STALL_MIO, "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio",   \
	  "ratio", "stalled on a full MIO queue (shared memory instructions)")                     \
	X(KM_STALL_LG, "smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio",     \
	  "ratio", "stalled on a full local/global memory queue")                                  \
	X(KM_STALL_MATH,                                                                           \
	  "smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio", "ratio",  \
	  "stalled on a busy math pipe")                                                           \
	X(KM_STALL_WAIT, "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio", "ratio", \
	  "stalled on a fixed-latency dependency")                                                 \
	X(KM_STALL_NOT_SELECTED,                                                                   \
	  "smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio", "ratio",        \
	  "eligible but another warp was selected")

enum gs_kernel_metric {
#define GS_KM_ENUM(id, name, unit, what) id,
	GS_KERNEL_METRICS(GS_KM_ENUM)
#undef GS_KM_ENUM
	    KM_COUNT
};

#endif
