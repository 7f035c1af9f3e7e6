/*
 * nvml.h - NVML loaded at run time (dlopen, nvtop-style), read-only.
 *
 * gpuscope must run, and say what is wrong, on machines with no NVIDIA
 * driver, so it never links libnvidia-ml: gs_nvml_open() dlopens
 * "libnvidia-ml.so.1", resolves versioned symbols with fallbacks
 * (nvmlInit_v2 -> nvmlInit, ..._v2/_v3 -> older) and keeps them in an ops
 * table. Unit tests pass their own table to gs_nvml_open_with().
 *
 * Invariants:
 *  1. every value has a validity bit (GS_NVML_S_*, GS_NVML_V_*); a value whose
 *     bit is clear is unknown and must be shown as unknown, never as 0;
 *  2. only query calls are made: nothing here changes clocks, power limits,
 *     persistence, compute mode, MIG layout or ECC state;
 *  3. functions return 0 or -1; on -1 err (GS_ERR_LEN bytes, may be NULL)
 *     holds a lowercase one-line message.
 */
#ifndef GPUSCOPE_NVML_H
#define GPUSCOPE_NVML_H

#include <stddef.h>

/*
 * The subset of NVML's ABI we call, declared here because no nvml.h is
 * installed on build machines. Values follow NVIDIA's nvml.h (CUDA 12.x/13.0)
 * and the NVML API reference (docs.nvidia.com/deploy/nvml-api).
 */
#define GS_NVML_SUCCESS 0
#define GS_NVML_ERROR_NOT_SUPPORTED 3
#define GS_NVML_ERROR_NO_PERMISSION 4
#define GS_NVML_ERROR_NOT_FOUND 6
#define GS_NVML_ERROR_INSUFFICIENT_SIZE 7
#define GS_NVML_ERROR_FUNCTION_NOT_FOUND 13
#define GS_NVML_ERROR_UNKNOWN 999

struct nvmlDevice_st;
struct nvmlGpmSample_st;

/* nvmlUtilization_t */
struct gs_nvml_utilization {
	unsigned int gpu, memory;
};

/* nvmlMemory_t (v1) */
struct gs_nvml_memory {
	unsigned long long total, free, used;
};

/* nvmlPciInfo_t (v2/v3 layout) */
struct gs_nvml_pci_info {
	char bus_id_legacy[16];
	unsigned int domain, bus, device, pci_device_id, pci_subsystem_id;
	char bus_id[32];
};

/* nvmlProcessInfo_t as used by the _v2/_v3 process queries */
struct gs_nvml_process_info {
	unsigned int pid;
	unsigned long long used_gpu_memory;
	unsigned int gpu_instance_id, compute_instance_id;
};

/* nvmlProcessInfo_v1_t (nvmlDeviceGetComputeRunningProcesses without suffix) */
struct gs_nvml_process_info_v1 {
	unsigned int pid;
	unsigned long long used_gpu_memory;
};

/* nvmlViolationTime_t: both in ns */
struct gs_nvml_violation_time {
	unsigned long long reference_time, violation_time;
};

/* nvmlDeviceAttributes_t (nvmlDeviceGetAttributes_v2) */
struct gs_nvml_device_attributes {
	unsigned int multiprocessor_count, shared_copy_engine_count, shared_decoder_count,
	    shared_encoder_count, shared_jpeg_count, shared_ofa_count, gpu_instance_slice_count,
	    compute_instance_slice_count;
	unsigned long long memory_size_mb;
};

/* nvmlGpmSupport_t */
#define GS_NVML_GPM_SUPPORT_VERSION 1
struct gs_nvml_gpm_support {
	unsigned int version, is_supported_device;
};

/* nvmlGpmMetricId_t: the ids we use */
enum gs_nvml_gpm_metric_id {
	GS_NVML_GPM_METRIC_GRAPHICS_UTIL = 1,
	GS_NVML_GPM_METRIC_SM_UTIL = 2,
	GS_NVML_GPM_METRIC_SM_OCCUPANCY = 3,
	GS_NVML_GPM_METRIC_INTEGER_UTIL = 4,
	GS_NVML_GPM_METRIC_ANY_TENSOR_UTIL = 5,
	GS_NVML_GPM_METRIC_DFMA_TENSOR_UTIL = 6,
	GS_NVML_GPM_METRIC_HMMA_TENSOR_UTIL = 7,
	GS_NVML_GPM_METRIC_IMMA_TENSOR_UTIL = 9,
	GS_NVML_GPM_METRIC_DRAM_BW_UTIL = 10,
	GS_NVML_GPM_METRIC_FP64_UTIL = 11,
	GS_NVML_GPM_METRIC_FP32_UTIL = 12,
	GS_NVML_GPM_METRIC_FP16_UTIL = 13,
	GS_NVML_GPM_METRIC_PCIE_TX_PER_SEC = 20,
	GS_NVML_GPM_METRIC_PCIE_RX_PER_SEC = 21,
};

/* nvmlGpmMetric_t */
struct gs_nvml_gpm_metric {
	unsigned int metric_id;
	int nvml_return;
	double value;
	struct {
		char *short_name, *long_name, *unit;
	} metric_info;
};

/*
 * nvmlGpmMetricsGet_t. NVML reads num_metrics entries; our array is at least
 * as long as the ones we ask for, so the header's NVML_GPM_METRIC_MAX (which
 * grows between releases) does not matter.
 */
#define GS_NVML_GPM_METRICS_GET_VERSION 1
#define GS_NVML_GPM_METRICS_MAX 98
struct gs_nvml_gpm_metrics_get {
	unsigned int version, num_metrics;
	struct nvmlGpmSample_st *sample1, *sample2;
	struct gs_nvml_gpm_metric metrics[GS_NVML_GPM_METRICS_MAX];
};

/* nvmlClockType_t */
#define GS_NVML_CLOCK_GRAPHICS 0
#define GS_NVML_CLOCK_SM 1
#define GS_NVML_CLOCK_MEM 2
/* nvmlTemperatureSensors_t / nvmlTemperatureThresholds_t */
#define GS_NVML_TEMPERATURE_GPU 0
#define GS_NVML_TEMPERATURE_THRESHOLD_SHUTDOWN 0
#define GS_NVML_TEMPERATURE_THRESHOLD_SLOWDOWN 1
/* nvmlPcieUtilCounter_t */
#define GS_NVML_PCIE_UTIL_TX_BYTES 0
#define GS_NVML_PCIE_UTIL_RX_BYTES 1
/* nvmlMemoryErrorType_t / nvmlEccCounterType_t */
#define GS_NVML_MEMORY_ERROR_CORRECTED 0
#define GS_NVML_MEMORY_ERROR_UNCORRECTED 1
#define GS_NVML_VOLATILE_ECC 0
#define GS_NVML_AGGREGATE_ECC 1
/* nvmlPerfPolicyType_t */
#define GS_NVML_PERF_POLICY_POWER 0
#define GS_NVML_PERF_POLICY_THERMAL 1
#define GS_NVML_PERF_POLICY_SYNC_BOOST 2
#define GS_NVML_PERF_POLICY_BOARD_LIMIT 3
#define GS_NVML_PERF_POLICY_LOW_UTILIZATION 4
#define GS_NVML_PERF_POLICY_RELIABILITY 5

/* nvmlClocksEventReasons (formerly ClocksThrottleReasons) bits */
#define GS_NVML_CLOCKS_EVENT_GPU_IDLE 0x1ULL
#define GS_NVML_CLOCKS_EVENT_APPLICATIONS_CLOCKS_SETTING 0x2ULL
#define GS_NVML_CLOCKS_EVENT_SW_POWER_CAP 0x4ULL
#define GS_NVML_CLOCKS_EVENT_HW_SLOWDOWN 0x8ULL
#define GS_NVML_CLOCKS_EVENT_SYNC_BOOST 0x10ULL
#define GS_NVML_CLOCKS_EVENT_SW_THERMAL_SLOWDOWN 0x20ULL
#define GS_NVML_CLOCKS_EVENT_HW_THERMAL_SLOWDOWN 0x40ULL
#define GS_NVML_CLOCKS_EVENT_HW_POWER_BRAKE_SLOWDOWN 0x80ULL
#define GS_NVML_CLOCKS_EVENT_DISPLAY_CLOCK_SETTING 0x100ULL

/*
 * The raw NVML entry points (NVML's signatures; return nvmlReturn_t). Any
 * pointer may be NULL: the symbol is absent and the value stays invalid.
 */
struct gs_nvml_ops {
	int (*init)(void);
	int (*shutdown)(void);
	const char *(*error_string)(int ret);
	int (*device_get_count)(unsigned int *count);
	int (*device_get_handle_by_index)(unsigned int index, struct nvmlDevice_st **dev);
	int (*system_get_driver_version)(char *buf, unsigned int len);
	int (*system_get_cuda_driver_version)(int *ver);
	int (*device_get_name)(struct nvmlDevice_st *dev, char *buf, unsigned int len);
	int (*device_get_uuid)(struct nvmlDevice_st *dev, char *buf, unsigned int len);
	int (*device_get_pci_info)(struct nvmlDevice_st *dev, struct gs_nvml_pci_info *pci);
	int (*device_get_cuda_compute_capability)(struct nvmlDevice_st *dev, int *major,
						  int *minor);
	int (*device_get_attributes)(struct nvmlDevice_st *dev,
				     struct gs_nvml_device_attributes *a);
	int (*device_get_memory_info)(struct nvmlDevice_st *dev, struct gs_nvml_memory *m);
	int (*device_get_max_pcie_link_generation)(struct nvmlDevice_st *dev, unsigned int *v);
	int (*device_get_max_pcie_link_width)(struct nvmlDevice_st *dev, unsigned int *v);
	int (*device_get_curr_pcie_link_generation)(struct nvmlDevice_st *dev, unsigned int *v);
	int (*device_get_curr_pcie_link_width)(struct nvmlDevice_st *dev, unsigned int *v);
	int (*device_get_pcie_replay_counter)(struct nvmlDevice_st *dev, unsigned int *v);
	int (*device_get_mig_mode)(struct nvmlDevice_st *dev, unsigned int *cur,
				   unsigned int *pending);
	int (*device_get_persistence_mode)(struct nvmlDevice_st *dev, int *state);
	int (*device_get_temperature_threshold)(struct nvmlDevice_st *dev, int type,
						unsigned int *v);
	int (*device_get_memory_bus_width)(struct nvmlDevice_st *dev, unsigned int *v);
	int (*device_get_max_clock_info)(struct nvmlDevice_st *dev, int type, unsigned int *mhz);
	int (*device_get_utilization_rates)(struct nvmlDevice_st *dev,
					    struct gs_nvml_utilization *u);
	int (*device_get_clock_info)(struct nvmlDevice_st *dev, int type, unsigned int *mhz);
	int (*device_get_power_usage)(struct nvmlDevice_st *dev, unsigned int *mw);
	int (*device_get_temperature)(struct nvmlDevice_st *dev, int sensor, unsigned int *c);
	int (*device_get_pcie_throughput)(struct nvmlDevice_st *dev, int counter,
					  unsigned int *kbps);
	int (*device_get_clocks_event_reasons)(struct nvmlDevice_st *dev, unsigned long long *r);
	int (*device_get_violation_status)(struct nvmlDevice_st *dev, int policy,
					   struct gs_nvml_violation_time *t);
	int (*device_get_total_ecc_errors)(struct nvmlDevice_st *dev, int err_type,
					   int counter_type, unsigned long long *count);
	int (*device_get_ecc_mode)(struct nvmlDevice_st *dev, int *current, int *pending);
	int (*device_get_remapped_rows)(struct nvmlDevice_st *dev, unsigned int *corr,
					unsigned int *unc, unsigned int *pending,
					unsigned int *failure);
	/* _v3/_v2 layout (struct gs_nvml_process_info) */
	int (*device_get_compute_running_processes)(struct nvmlDevice_st *dev, unsigned int *count,
						    struct gs_nvml_process_info *infos);
	/* v1 layout, used only when the _v2/_v3 symbol is absent */
	int (*device_get_compute_running_processes_v1)(struct nvmlDevice_st *dev,
						       unsigned int *count,
						       struct gs_nvml_process_info_v1 *infos);
	int (*gpm_query_device_support)(struct nvmlDevice_st *dev, struct gs_nvml_gpm_support *s);
	int (*gpm_sample_alloc)(struct nvmlGpmSample_st **s);
	int (*gpm_sample_free)(struct nvmlGpmSample_st *s);
	int (*gpm_sample_get)(struct nvmlDevice_st *dev, struct nvmlGpmSample_st *s);
	int (*gpm_metrics_get)(struct gs_nvml_gpm_metrics_get *m);
};

struct gs_nvml;

/*
 * Loads libnvidia-ml.so.1 and calls nvmlInit. On error *out is NULL, err
 * says why ("no NVIDIA driver: libnvidia-ml.so.1 not found (...)", "nvml init
 * failed: ...") and -1 is returned.
 */
int gs_nvml_open(struct gs_nvml **out, char *err);
/* Same over a caller's ops table (tests); ops is copied, init is called if set. */
int gs_nvml_open_with(struct gs_nvml **out, const struct gs_nvml_ops *ops, char *err);
/* Shuts NVML down, frees GPM samples, unloads. NULL is fine. */
void gs_nvml_close(struct gs_nvml *n);
/* The ops table in use (never NULL for an open handle). */
const struct gs_nvml_ops *gs_nvml_get_ops(const struct gs_nvml *n);

int gs_nvml_device_count(struct gs_nvml *n, unsigned *count);
/* The NVML handle of device dev; -1 with err when it cannot be had. */
int gs_nvml_device_handle(struct gs_nvml *n, unsigned dev, struct nvmlDevice_st **out, char *err);

/* Validity bits of struct gs_nvml_static */
#define GS_NVML_S_NAME (1u << 0)
#define GS_NVML_S_UUID (1u << 1)
#define GS_NVML_S_PCI (1u << 2)
#define GS_NVML_S_DRIVER (1u << 3)
#define GS_NVML_S_CUDA_DRIVER (1u << 4)
#define GS_NVML_S_CC (1u << 5)
#define GS_NVML_S_SM_COUNT (1u << 6)
#define GS_NVML_S_MEM_TOTAL (1u << 7)
#define GS_NVML_S_PCIE_MAX (1u << 8)
#define GS_NVML_S_PCIE_CUR (1u << 9)
#define GS_NVML_S_MIG (1u << 10)
#define GS_NVML_S_PERSISTENCE (1u << 11)
#define GS_NVML_S_SLOWDOWN_TEMP (1u << 12)
#define GS_NVML_S_MEM_BUS_WIDTH (1u << 13)
#define GS_NVML_S_MAX_MEM_CLOCK (1u << 14)

struct gs_nvml_static {
	char name[96], uuid[96], pci_bus_id[32], driver_version[32];
	int cuda_driver_version; /* 1000 * major + 10 * minor, e.g. 13000 */
	int cc_major, cc_minor;
	unsigned sm_count;
	unsigned long long mem_total; /* bytes */
	unsigned pcie_max_gen, pcie_max_width, pcie_cur_gen, pcie_cur_width;
	int mig_mode;	 /* current mode: 1 enabled, 0 disabled */
	int persistence; /* 1 enabled, 0 disabled */
	unsigned slowdown_temp_c;
	unsigned long long mem_bus_width_bits, max_mem_clock_mhz;
	unsigned valid; /* GS_NVML_S_* */
};

/* Fills what NVML can tell (unknown fields: bit clear). -1 only for a bad device index. */
int gs_nvml_device_static(struct gs_nvml *n, unsigned dev, struct gs_nvml_static *out);

/* Validity bits of struct gs_nvml_sample */
#define GS_NVML_V_GPU_UTIL (1ull << 0)
#define GS_NVML_V_MEM_UTIL (1ull << 1)
#define GS_NVML_V_SM_CLOCK (1ull << 2)
#define GS_NVML_V_MEM_CLOCK (1ull << 3)
#define GS_NVML_V_POWER (1ull << 4)
#define GS_NVML_V_TEMP (1ull << 5)
#define GS_NVML_V_PCIE_TX (1ull << 6)
#define GS_NVML_V_PCIE_RX (1ull << 7)
#define GS_NVML_V_MEM_USED (1ull << 8)
#define GS_NVML_V_CLOCK_EVENTS (1ull << 9)
#define GS_NVML_V_GPM_SM_UTIL (1ull << 10)
#define GS_NVML_V_GPM_SM_OCCUPANCY (1ull << 11)
#define GS_NVML_V_GPM_DRAM_BW (1ull << 12)
#define GS_NVML_V_GPM_TENSOR (1ull << 13)
#define GS_NVML_V_GPM_FP32 (1ull << 14)

struct gs_nvml_sample {
	long long ts_ns;	   /* CLOCK_MONOTONIC */
	double gpu_util, mem_util; /* percent */
	double sm_clock_mhz, mem_clock_mhz, power_w, temp_c;
	double pcie_tx_mbps, pcie_rx_mbps; /* MB/s (NVML reports KB/s) */
	double mem_used_bytes;
	unsigned long long clock_event_reasons; /* GS_NVML_CLOCKS_EVENT_* */
	double gpm_sm_util, gpm_sm_occupancy, gpm_dram_bw_util, gpm_tensor_util,
	    gpm_fp32_util;	  /* percent */
	unsigned long long valid; /* GS_NVML_V_* */
};

/*
 * Samples device dev. GPM metrics are computed between this call and the
 * previous one for the same device; the first call (or a GPU without GPM)
 * leaves them invalid. -1 only for a bad device index.
 */
int gs_nvml_sample(struct gs_nvml *n, unsigned dev, struct gs_nvml_sample *out);

/* Health counters for doctor (all read-only queries). */
#define GS_NVML_H_ECC_MODE (1u << 0)
#define GS_NVML_H_ECC_CORR (1u << 1)
#define GS_NVML_H_ECC_UNCORR (1u << 2)
#define GS_NVML_H_REMAP (1u << 3)
#define GS_NVML_H_REPLAY (1u << 4)
#define GS_NVML_H_VIOL_POWER (1u << 5)
#define GS_NVML_H_VIOL_THERMAL (1u << 6)
#define GS_NVML_H_PROCS (1u << 7)
#define GS_NVML_H_REASONS (1u << 8)
#define GS_NVML_H_TEMP (1u << 9)

#define GS_NVML_MAX_PROCS 64
struct gs_nvml_health {
	int ecc_enabled;
	unsigned long long ecc_corrected, ecc_uncorrected; /* volatile (since boot) */
	unsigned remap_corr, remap_unc, remap_pending, remap_failure;
	unsigned pcie_replay;
	unsigned long long viol_power_ns, viol_thermal_ns;
	unsigned long long clock_event_reasons;
	unsigned temp_c;
	unsigned n_procs; /* may exceed GS_NVML_MAX_PROCS; procs[] holds the first ones */
	unsigned proc_pid[GS_NVML_MAX_PROCS];
	unsigned long long proc_mem[GS_NVML_MAX_PROCS];
	unsigned valid; /* GS_NVML_H_* */
};

int gs_nvml_device_health(struct gs_nvml *n, unsigned dev, struct gs_nvml_health *out);

/* NVML's message for a return code, or "nvml error N". */
const char *gs_nvml_strerror(struct gs_nvml *n, int ret);

#endif
