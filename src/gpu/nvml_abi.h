/*
 * nvml_abi.h - the part of NVML's ABI the NVML backend calls, and its raw
 * function table. Private to the backend (src/gpu/nvml*.c) and its tests:
 * everything else goes through the vendor-neutral gpu.h.
 *
 * NVML is loaded at run time (dlopen, nvtop-style) because gpuscope must
 * run, and say what is wrong, on machines with no NVIDIA driver; no nvml.h
 * is installed on build machines, so the types are declared here. Values
 * follow NVIDIA's nvml.h (CUDA 12.x/13.0) and the NVML API reference
 * (docs.nvidia.com/deploy/nvml-api). Only query calls are declared.
 */
#ifndef GPUSCOPE_NVML_ABI_H
#define GPUSCOPE_NVML_ABI_H

#include <stddef.h>

#define GS_NVML_SUCCESS 0
#define GS_NVML_ERROR_NOT_SUPPORTED 3
#define GS_NVML_ERROR_NO_PERMISSION 4
#define GS_NVML_ERROR_NOT_FOUND 6
#define GS_NVML_ERROR_INSUFFICIENT_SIZE 7
#define GS_NVML_ERROR_TIMEOUT 10
#define GS_NVML_ERROR_FUNCTION_NOT_FOUND 13
#define GS_NVML_ERROR_UNKNOWN 999

struct nvmlDevice_st;
struct nvmlGpmSample_st;
struct nvmlEventSet_st;

/* nvmlEventData_t; nvmlEventTypeXidCriticalError */
#define GS_NVML_EVENT_XID_CRITICAL 0x8ULL
struct gs_nvml_event_data {
	struct nvmlDevice_st *device;
	unsigned long long event_type, event_data;
	unsigned int gpu_instance_id, compute_instance_id;
};

/* nvmlProcessUtilizationSample_t (timestamps in us) */
struct gs_nvml_process_util {
	unsigned int pid;
	unsigned long long time_stamp;
	unsigned int sm_util, mem_util, enc_util, dec_util;
};

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
#define GS_NVML_CLOCK_VIDEO 3
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
#define GS_NVML_PERF_POLICY_TOTAL_APP_CLOCKS 10
#define GS_NVML_PERF_POLICY_TOTAL_BASE_CLOCKS 11

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
	int (*device_get_total_energy_consumption)(struct nvmlDevice_st *dev,
						   unsigned long long *mj);
	int (*device_get_enforced_power_limit)(struct nvmlDevice_st *dev, unsigned int *mw);
	/* utilization NULL asks for the count (INSUFFICIENT_SIZE); last_seen in us */
	int (*device_get_process_utilization)(struct nvmlDevice_st *dev,
					      struct gs_nvml_process_util *utilization,
					      unsigned int *count, unsigned long long last_seen);
	int (*event_set_create)(struct nvmlEventSet_st **set);
	int (*device_register_events)(struct nvmlDevice_st *dev, unsigned long long types,
				      struct nvmlEventSet_st *set);
	int (*event_set_wait)(struct nvmlEventSet_st *set, struct gs_nvml_event_data *data,
			      unsigned int timeout_ms);
	int (*event_set_free)(struct nvmlEventSet_st *set);
	/* MIG (queries only) */
	int (*device_get_max_mig_device_count)(struct nvmlDevice_st *dev, unsigned int *count);
	int (*device_get_mig_device_handle_by_index)(struct nvmlDevice_st *dev, unsigned int index,
						     struct nvmlDevice_st **mig);
	int (*device_get_gpu_instance_id)(struct nvmlDevice_st *mig, unsigned int *id);
	int (*device_get_compute_instance_id)(struct nvmlDevice_st *mig, unsigned int *id);
	int (*gpm_mig_sample_get)(struct nvmlDevice_st *dev, unsigned int gpu_instance_id,
				  struct nvmlGpmSample_st *s);
};

/*
 * The NVML backend over a caller's raw table (tests): ops is copied, its
 * init (if set) is called. The context is then handed to gpu_sys_add()
 * with &gpu_vendor_nvml. On error *ctx is NULL and err says why.
 */
int gpu_nvml_open_ops(void **ctx, const struct gs_nvml_ops *ops, char *err);

#endif
