/*
 * metrics.h - the one list of GPU metrics: every consumer (record's sampler
 * and its trace rows, analysis, report JSON, monitor and its log, serve's
 * Prometheus text) names a metric through this registry, so a name cannot
 * drift between them.
 *
 * GPU_METRICS(X) expands X(ID, TRACE, PROM, KIND, SCALE, UNIT, FLAGS, DCGM, HELP):
 *   ID     enum gpu_metric is GPU_M_<ID>; bit GPU_M_<ID> of a sample's valid mask
 *   TRACE  the name in a trace's samples table and a monitor log's "v" object
 *   PROM   the Prometheus name without the "gpuscope_" prefix, in base units
 *   KIND   GPU_GAUGE, or GPU_COUNTER where the value only grows (PROM ends in _total)
 *   SCALE  PROM value = value * SCALE (percent -> ratio, MHz -> Hz, MB/s -> B/s)
 *   UNIT   the unit of the value itself, as monitor prints it
 *   FLAGS  GPU_MF_RECORD: record writes it into the trace (the first 15, in this
 *          order: their string ids and row order in a trace depend on it);
 *          GPU_MF_STATIC: copied from the device's static info into each sample
 *   DCGM   the dcgm-exporter field that carries the same reading (docs/serve.md
 *          has the table with its unit and scale), "" when DCGM has none
 *   HELP   the Prometheus HELP text (one line, no backslash or newline)
 *
 * Invariant: a value whose bit is clear in the valid mask is unknown; it is
 * printed as unknown and left out of Prometheus output, never shown as 0.
 */
#ifndef GPUSCOPE_GPU_METRICS_H
#define GPUSCOPE_GPU_METRICS_H

#include <stdint.h>

#define GPU_MF_RECORD 1u
#define GPU_MF_STATIC 2u

/* clang-format off */
#define GPU_METRICS(X)                                                                             \
	X(GPU_UTIL, "gpu_util", "gpu_utilization_ratio", GPU_GAUGE, 0.01, "%", GPU_MF_RECORD,       \
	  "DCGM_FI_DEV_GPU_UTIL",                                                                  \
	  "NVML GPU-Util: share of the last period in which a kernel ran (not how much of the GPU it used)") \
	X(MEM_UTIL, "mem_util", "memory_controller_utilization_ratio", GPU_GAUGE, 0.01, "%",       \
	  GPU_MF_RECORD, "DCGM_FI_DEV_MEM_COPY_UTIL",                                              \
	  "share of the last period in which device memory was read or written (NVML)")           \
	X(SM_CLOCK, "sm_clock_mhz", "sm_clock_hertz", GPU_GAUGE, 1e6, "MHz", GPU_MF_RECORD,        \
	  "DCGM_FI_DEV_SM_CLOCK", "current SM clock")                                              \
	X(MEM_CLOCK, "mem_clock_mhz", "memory_clock_hertz", GPU_GAUGE, 1e6, "MHz", GPU_MF_RECORD,  \
	  "DCGM_FI_DEV_MEM_CLOCK", "current memory clock")                                         \
	X(POWER, "power_w", "power_usage_watts", GPU_GAUGE, 1, "W", GPU_MF_RECORD,                 \
	  "DCGM_FI_DEV_POWER_USAGE", "board power draw")                                           \
	X(TEMP, "temp_c", "temperature_celsius", GPU_GAUGE, 1, "C", GPU_MF_RECORD,                 \
	  "DCGM_FI_DEV_GPU_TEMP", "GPU core temperature")                                          \
	X(PCIE_TX, "pcie_tx_mbps", "pcie_tx_bytes_per_second", GPU_GAUGE, 1e6, "MB/s",             \
	  GPU_MF_RECORD, "DCGM_FI_PROF_PCIE_TX_BYTES",                                             \
	  "PCIe bytes sent by the GPU per second (GPM: the sampling window; without GPM NVML's 20 ms)")                          \
	X(PCIE_RX, "pcie_rx_mbps", "pcie_rx_bytes_per_second", GPU_GAUGE, 1e6, "MB/s",             \
	  GPU_MF_RECORD, "DCGM_FI_PROF_PCIE_RX_BYTES",                                             \
	  "PCIe bytes received by the GPU per second (GPM: the sampling window; without GPM NVML's 20 ms)")                      \
	X(MEM_USED, "mem_used_bytes", "memory_used_bytes", GPU_GAUGE, 1, "B", GPU_MF_RECORD,       \
	  "DCGM_FI_DEV_FB_USED", "device memory in use")                                           \
	X(CLOCK_EVENTS, "clock_event_reasons", "clock_event_reasons", GPU_GAUGE, 1, "mask",        \
	  GPU_MF_RECORD, "DCGM_FI_DEV_CLOCKS_EVENT_REASONS",                                       \
	  "bit mask of the reasons the clocks are held down now (NVML clocks event reasons)")      \
	X(GPM_SM, "gpm_sm_util", "sm_active_ratio", GPU_GAUGE, 0.01, "%", GPU_MF_RECORD,           \
	  "DCGM_FI_PROF_SM_ACTIVE",                                                                \
	  "GPM SM activity: share of SM cycles with at least one warp resident, averaged over the SMs") \
	X(GPM_OCC, "gpm_sm_occupancy", "sm_occupancy_ratio", GPU_GAUGE, 0.01, "%", GPU_MF_RECORD,  \
	  "DCGM_FI_PROF_SM_OCCUPANCY", "GPM SM occupancy: resident warps over the maximum")        \
	X(GPM_DRAM, "gpm_dram_bw_util", "dram_active_ratio", GPU_GAUGE, 0.01, "%", GPU_MF_RECORD,  \
	  "DCGM_FI_PROF_DRAM_ACTIVE", "GPM DRAM bandwidth used over the peak")                     \
	X(GPM_TENSOR, "gpm_tensor_util", "tensor_active_ratio", GPU_GAUGE, 0.01, "%",              \
	  GPU_MF_RECORD, "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "GPM tensor pipe activity (any type)") \
	X(GPM_FP32, "gpm_fp32_util", "fp32_active_ratio", GPU_GAUGE, 0.01, "%", GPU_MF_RECORD,     \
	  "DCGM_FI_PROF_PIPE_FP32_ACTIVE", "GPM FP32 pipe activity")                               \
	X(GPM_FP16, "gpm_fp16_util", "fp16_active_ratio", GPU_GAUGE, 0.01, "%", 0,                 \
	  "DCGM_FI_PROF_PIPE_FP16_ACTIVE", "GPM FP16 pipe activity")                               \
	X(GPM_FP64, "gpm_fp64_util", "fp64_active_ratio", GPU_GAUGE, 0.01, "%", 0,                 \
	  "DCGM_FI_PROF_PIPE_FP64_ACTIVE", "GPM FP64 pipe activity")                               \
	X(MEM_TOTAL, "mem_total_bytes", "memory_total_bytes", GPU_GAUGE, 1, "B", 0,                \
	  "DCGM_FI_DEV_FB_TOTAL", "device memory size")                                            \
	X(ENERGY, "energy_j", "energy_joules_total", GPU_COUNTER, 1, "J", 0,                      \
	  "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "energy used since the driver was loaded")       \
	X(POWER_LIMIT, "power_limit_w", "power_limit_watts", GPU_GAUGE, 1, "W", 0,                \
	  "DCGM_FI_DEV_ENFORCED_POWER_LIMIT", "enforced board power limit")                        \
	X(PCIE_GEN, "pcie_link_gen", "pcie_link_generation", GPU_GAUGE, 1, "", 0,                 \
	  "DCGM_FI_DEV_PCIE_LINK_GEN", "current PCIe link generation (lower when idle is normal)") \
	X(PCIE_WIDTH, "pcie_link_width", "pcie_link_width", GPU_GAUGE, 1, "lanes", 0,             \
	  "DCGM_FI_DEV_PCIE_LINK_WIDTH", "current PCIe link width in lanes")                       \
	X(PCIE_REPLAY, "pcie_replays", "pcie_replays_total", GPU_COUNTER, 1, "", 0,               \
	  "DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "PCIe replays (link retransmissions)")                \
	X(VIOL_POWER, "throttle_power_s", "clock_throttle_power_seconds_total", GPU_COUNTER, 1,   \
	  "s", 0, "DCGM_FI_DEV_POWER_VIOLATION", "time the clocks were held down by the power limit") \
	X(VIOL_THERMAL, "throttle_thermal_s", "clock_throttle_thermal_seconds_total",              \
	  GPU_COUNTER, 1, "s", 0, "DCGM_FI_DEV_THERMAL_VIOLATION",                                 \
	  "time the clocks were held down by temperature")                                         \
	X(VIOL_SYNC_BOOST, "throttle_sync_boost_s", "clock_throttle_sync_boost_seconds_total",     \
	  GPU_COUNTER, 1, "s", 0, "DCGM_FI_DEV_SYNC_BOOST_VIOLATION",                              \
	  "time the clocks were held down by sync boost")                                          \
	X(VIOL_BOARD, "throttle_board_limit_s", "clock_throttle_board_limit_seconds_total",        \
	  GPU_COUNTER, 1, "s", 0, "DCGM_FI_DEV_BOARD_LIMIT_VIOLATION",                             \
	  "time the clocks were held down by a board limit")                                       \
	X(VIOL_LOW_UTIL, "throttle_low_util_s", "clock_throttle_low_utilization_seconds_total",    \
	  GPU_COUNTER, 1, "s", 0, "DCGM_FI_DEV_LOW_UTIL_VIOLATION",                                \
	  "time the clocks were held down for low utilization")                                    \
	X(VIOL_RELIABILITY, "throttle_reliability_s", "clock_throttle_reliability_seconds_total", \
	  GPU_COUNTER, 1, "s", 0, "DCGM_FI_DEV_RELIABILITY_VIOLATION",                             \
	  "time the clocks were held down for board reliability")                                  \
	X(ECC_CORR, "ecc_corrected", "ecc_corrected_errors_total", GPU_COUNTER, 1, "", 0,         \
	  "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "corrected ECC errors since the driver was loaded")     \
	X(ECC_UNCORR, "ecc_uncorrected", "ecc_uncorrected_errors_total", GPU_COUNTER, 1, "", 0,   \
	  "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "uncorrected ECC errors since the driver was loaded")   \
	X(REMAP_CORR, "remapped_rows_corr", "remapped_rows_correctable_total", GPU_COUNTER, 1,    \
	  "", 0, "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS",                                          \
	  "memory rows remapped for correctable errors")                                           \
	X(REMAP_UNC, "remapped_rows_unc", "remapped_rows_uncorrectable_total", GPU_COUNTER, 1,    \
	  "", 0, "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS",                                        \
	  "memory rows remapped for uncorrectable errors")                                         \
	X(REMAP_PENDING, "remap_pending", "row_remap_pending", GPU_GAUGE, 1, "", 0,               \
	  "DCGM_FI_DEV_ROW_REMAP_PENDING", "1 when a row remap waits for the next GPU reset")      \
	X(REMAP_FAILURE, "remap_failure", "row_remap_failure", GPU_GAUGE, 1, "", 0,               \
	  "DCGM_FI_DEV_ROW_REMAP_FAILURE", "1 when a row remap failed (replace the GPU)")          \
	X(XID_COUNT, "xid_errors", "xid_errors_total", GPU_COUNTER, 1, "", 0, "",                 \
	  "XID errors reported by the driver (NVML events) since gpuscope started")                \
	X(XID_LAST, "xid_last", "xid_last_code", GPU_GAUGE, 1, "", 0, "DCGM_FI_DEV_XID_ERRORS",   \
	  "code of the last XID error seen since gpuscope started")                                \
	X(PROCESSES, "processes", "compute_processes", GPU_GAUGE, 1, "", 0, "",                   \
	  "compute processes on the GPU")                                                          \
	X(SM_CLOCK_MAX, "sm_clock_max_mhz", "sm_clock_max_hertz", GPU_GAUGE, 1e6, "MHz",          \
	  GPU_MF_STATIC, "DCGM_FI_DEV_MAX_SM_CLOCK", "maximum SM clock")                           \
	X(MEM_CLOCK_MAX, "mem_clock_max_mhz", "memory_clock_max_hertz", GPU_GAUGE, 1e6, "MHz",    \
	  GPU_MF_STATIC, "DCGM_FI_DEV_MAX_MEM_CLOCK", "maximum memory clock")                      \
	X(PCIE_GEN_MAX, "pcie_link_gen_max", "pcie_link_generation_max", GPU_GAUGE, 1, "",        \
	  GPU_MF_STATIC, "DCGM_FI_DEV_PCIE_MAX_LINK_GEN", "PCIe generation the GPU and slot support") \
	X(PCIE_WIDTH_MAX, "pcie_link_width_max", "pcie_link_width_max", GPU_GAUGE, 1, "lanes",    \
	  GPU_MF_STATIC, "DCGM_FI_DEV_PCIE_MAX_LINK_WIDTH", "PCIe width the GPU and slot support") \
	X(TEMP_SLOWDOWN, "temp_slowdown_c", "temperature_slowdown_celsius", GPU_GAUGE, 1, "C",    \
	  GPU_MF_STATIC, "DCGM_FI_DEV_SLOWDOWN_TEMP", "temperature at which the GPU slows down")   \
	X(TEMP_SHUTDOWN, "temp_shutdown_c", "temperature_shutdown_celsius", GPU_GAUGE, 1, "C",    \
	  GPU_MF_STATIC, "DCGM_FI_DEV_SHUTDOWN_TEMP", "temperature at which the GPU shuts down")   \
	X(MIG_MODE, "mig_mode", "mig_mode", GPU_GAUGE, 1, "", GPU_MF_STATIC, "DCGM_FI_DEV_MIG_MODE", \
	  "1 when the GPU is partitioned with MIG")                                                 \
	X(GFX_BUSY, "gfx_busy", "gfx_busy_ratio", GPU_GAUGE, 0.01, "%", 0, "",                      \
	  "amdgpu gpu_busy_percent: the firmware's average share of time the graphics and compute engine was busy (not NVML GPU-Util)") \
	X(MEM_BUSY, "mem_busy", "memory_busy_ratio", GPU_GAUGE, 0.01, "%", 0, "",                   \
	  "amdgpu mem_busy_percent: the firmware's average share of time the memory controller was busy") \
	X(GTT_USED, "gtt_used_bytes", "gtt_used_bytes", GPU_GAUGE, 1, "B", 0, "",                    \
	  "system memory mapped for the GPU (amdgpu GTT) in use")                                    \
	X(GTT_TOTAL, "gtt_total_bytes", "gtt_total_bytes", GPU_GAUGE, 1, "B", 0, "",                 \
	  "system memory the GPU can map (amdgpu GTT)")                                             \
	X(TEMP_HOTSPOT, "temp_hotspot_c", "temperature_hotspot_celsius", GPU_GAUGE, 1, "C", 0, "",  \
	  "hottest point of the die (amdgpu junction), the one AMD throttles on")                   \
	X(TEMP_MEM, "temp_mem_c", "memory_temperature_celsius", GPU_GAUGE, 1, "C", 0,              \
	  "DCGM_FI_DEV_MEMORY_TEMP", "memory (HBM or VRAM) temperature")                            \
	X(RAS_CORR, "ras_corrected", "ras_corrected_errors_total", GPU_COUNTER, 1, "", 0, "",      \
	  "corrected errors over every RAS block (amdgpu ras/*_err_count ce)")                      \
	X(RAS_UNCORR, "ras_uncorrected", "ras_uncorrected_errors_total", GPU_COUNTER, 1, "", 0, "", \
	  "uncorrected errors over every RAS block (amdgpu ras/*_err_count ue)")                    \
	X(ENGINE_RENDER, "engine_render_busy", "engine_render_busy_ratio", GPU_GAUGE, 0.01, "%", 0, \
	  "", "share of the last period the render/graphics engines ran any process's work (DRM fdinfo)") \
	X(ENGINE_COMPUTE, "engine_compute_busy", "engine_compute_busy_ratio", GPU_GAUGE, 0.01, "%", \
	  0, "", "share of the last period the compute engines ran any process's work (DRM fdinfo)") \
	X(ENGINE_COPY, "engine_copy_busy", "engine_copy_busy_ratio", GPU_GAUGE, 0.01, "%", 0, "",  \
	  "share of the last period the copy (DMA, blitter) engines ran any process's work (DRM fdinfo)") \
	X(ENGINE_VIDEO, "engine_video_busy", "engine_video_busy_ratio", GPU_GAUGE, 0.01, "%", 0, "", \
	  "share of the last period the video engines ran any process's work (DRM fdinfo)")         \
	X(THROTTLE, "throttle_reasons", "gt_throttle_reasons", GPU_GAUGE, 1, "mask", 0, "",        \
	  "bit mask of the reasons the Intel GT frequency is held down now (sysfs throttle reasons)")
/* clang-format on */

/* The metrics other vendors' backends add (AMD, Intel): from here on. Monitor's
 * CSV puts their columns last, and only when such a GPU is shown. */
#define GPU_M_VENDOR_FIRST GPU_M_GFX_BUSY

enum gpu_metric {
#define GPU_METRIC_ENUM(id, ...) GPU_M_##id,
	GPU_METRICS(GPU_METRIC_ENUM)
#undef GPU_METRIC_ENUM
	    GPU_M_COUNT
};

enum gpu_metric_kind { GPU_GAUGE, GPU_COUNTER };

struct gpu_metric_info {
	const char *trace_name, *prom_name; /* prom_name lacks the "gpuscope_" prefix */
	enum gpu_metric_kind kind;
	double scale; /* Prometheus value = value * scale */
	const char *unit, *dcgm, *help;
	unsigned flags; /* GPU_MF_* */
};

/* The registry, indexed by enum gpu_metric. */
extern const struct gpu_metric_info gpu_metrics[GPU_M_COUNT];

/* The metric with this trace name, or -1. */
int gpu_metric_by_trace_name(const char *name);

/* Per-process metrics (serve's per-process series; monitor's process list). */
/* clang-format off */
#define GPU_PROC_METRICS(X)                                                                        \
	X(MEM, "mem_bytes", "process_memory_used_bytes", 1, "B",                                  \
	  "device memory a process uses on the GPU")                                               \
	X(SM, "sm_util", "process_sm_utilization_ratio", 0.01, "%",                                \
	  "share of time the process's kernels ran on the GPU (NVML process utilization)")         \
	X(MEMBW, "mem_util", "process_memory_utilization_ratio", 0.01, "%",                        \
	  "share of time the process read or wrote device memory (NVML process utilization)")
/* clang-format on */

enum gpu_proc_metric {
#define GPU_PROC_ENUM(id, ...) GPU_PM_##id,
	GPU_PROC_METRICS(GPU_PROC_ENUM)
#undef GPU_PROC_ENUM
	    GPU_PM_COUNT
};

struct gpu_proc_metric_info {
	const char *key, *prom_name, *unit, *help;
	double scale;
};
extern const struct gpu_proc_metric_info gpu_proc_metrics[GPU_PM_COUNT];

/*
 * Clock-event (throttle) reasons: X(bit, key, text). NVML's
 * nvmlClocksEventReasons bits; the text is what monitor prints.
 */
/* clang-format off */
#define GPU_CLOCK_REASONS(X)                                                                       \
	X(0x1ULL, "gpu_idle", "idle (nothing to run: normal)")                                     \
	X(0x2ULL, "applications_clocks", "application clocks setting")                             \
	X(0x4ULL, "sw_power_cap", "software power cap (power limit reached)")                      \
	X(0x8ULL, "hw_slowdown", "hardware slowdown (power brake or temperature)")                 \
	X(0x10ULL, "sync_boost", "sync boost (held to the slowest GPU of a group)")                \
	X(0x20ULL, "sw_thermal", "software thermal slowdown")                                      \
	X(0x40ULL, "hw_thermal", "hardware thermal slowdown")                                      \
	X(0x80ULL, "hw_power_brake", "hardware power brake (external signal)")                     \
	X(0x100ULL, "display_clocks", "display clock setting")
/* clang-format on */

struct gpu_clock_reason {
	unsigned long long bit;
	const char *key, *text;
};
extern const struct gpu_clock_reason gpu_clock_reasons[];
extern const unsigned gpu_n_clock_reasons;

/*
 * Intel GT throttle reasons: X(bit, key, text), one bit per sysfs file
 * (i915 gt/gtN/throttle_reason_KEY, xe tileN/gtN/freq0/throttle/reason_KEY).
 */
/* clang-format off */
#define GPU_INTEL_THROTTLE(X)                                                                      \
	X(0x1ULL, "pl1", "PL1, the sustained power limit")                                         \
	X(0x2ULL, "pl2", "PL2, the burst power limit")                                             \
	X(0x4ULL, "pl4", "PL4 or Iccmax, the peak current limit")                                  \
	X(0x8ULL, "thermal", "the thermal limit")                                                  \
	X(0x10ULL, "prochot", "PROCHOT, the platform says it is too hot")                          \
	X(0x20ULL, "ratl", "RATL, the running average thermal limit")                              \
	X(0x40ULL, "vr_thermalert", "the voltage regulator is too hot")                            \
	X(0x80ULL, "vr_tdc", "the voltage regulator's current limit")
/* clang-format on */
extern const struct gpu_clock_reason gpu_intel_throttle[];
extern const unsigned gpu_n_intel_throttle;
#define GPU_INTEL_THROTTLE_POWER (0x1ULL | 0x2ULL | 0x4ULL | 0x80ULL)
#define GPU_INTEL_THROTTLE_THERMAL (0x8ULL | 0x10ULL | 0x20ULL | 0x40ULL)
/* Keys of the Intel reasons set in mask ("none" for 0). */
const char *gpu_intel_throttle_str(unsigned long long mask, char *buf, unsigned len);

/* The reasons that mean a workload is slowed (power or thermal). */
#define GPU_REASONS_THERMAL (0x20ULL | 0x40ULL)
#define GPU_REASONS_POWER (0x4ULL | 0x80ULL | 0x8ULL)

/* The reasons mask held in a sample's double (0 for anything out of range:
 * a value read back from a log may be anything). */
static inline unsigned long long gpu_reasons_mask(double v)
{
	return v >= 0 && v < 18446744073709551615.0 ? (unsigned long long)v : 0;
}

/*
 * Writes the keys of the reasons set in mask into buf, separated by ","
 * ("none" for 0; unknown bits as 0x...). Returns buf.
 */
const char *gpu_clock_reasons_str(unsigned long long mask, char *buf, unsigned len);

#endif
