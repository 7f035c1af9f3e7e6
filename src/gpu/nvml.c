/*
 * nvml.c - the dlopen'd NVML backend (see nvml.h for the contract).
 *
 * Symbols are resolved newest first (nvtop does the same): an old driver
 * lacks the _v3 names, a new one may drop the unsuffixed ones. A missing
 * symbol only leaves its fields invalid. Only query functions are resolved,
 * so this file cannot change the GPU's state.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu/nvml.h"
#include "util/error.h"

#define GS_NVML_MAX_DEVICES 64

struct gs_nvml {
	void *lib; /* NULL for a caller's ops table */
	struct gs_nvml_ops ops;
	int gpm_checked[GS_NVML_MAX_DEVICES];
	int gpm_ok[GS_NVML_MAX_DEVICES];
	struct nvmlGpmSample_st *gpm_prev[GS_NVML_MAX_DEVICES];
	struct nvmlGpmSample_st *gpm_cur[GS_NVML_MAX_DEVICES];
	int gpm_have_prev[GS_NVML_MAX_DEVICES];
};

/* First symbol of a NULL-terminated list of names that the library has. */
static void *sym_first(void *lib, const char *const *names)
{
	for (; *names; names++) {
		void *p = dlsym(lib, *names);
		if (p)
			return p;
	}
	return NULL;
}

#define SYM(field, ...)                                                                            \
	do {                                                                                       \
		static const char *const names_[] = {__VA_ARGS__, NULL};                           \
		void *p_ = sym_first(lib, names_);                                                 \
		memcpy(&ops->field, &p_, sizeof(p_));                                              \
	} while (0)

static void resolve(void *lib, struct gs_nvml_ops *ops)
{
	memset(ops, 0, sizeof(*ops));
	SYM(init, "nvmlInit_v2", "nvmlInit");
	SYM(shutdown, "nvmlShutdown");
	SYM(error_string, "nvmlErrorString");
	SYM(device_get_count, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount");
	SYM(device_get_handle_by_index, "nvmlDeviceGetHandleByIndex_v2",
	    "nvmlDeviceGetHandleByIndex");
	SYM(system_get_driver_version, "nvmlSystemGetDriverVersion");
	SYM(system_get_cuda_driver_version, "nvmlSystemGetCudaDriverVersion_v2",
	    "nvmlSystemGetCudaDriverVersion");
	SYM(device_get_name, "nvmlDeviceGetName");
	SYM(device_get_uuid, "nvmlDeviceGetUUID");
	SYM(device_get_pci_info, "nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2");
	SYM(device_get_cuda_compute_capability, "nvmlDeviceGetCudaComputeCapability");
	SYM(device_get_attributes, "nvmlDeviceGetAttributes_v2");
	SYM(device_get_memory_info, "nvmlDeviceGetMemoryInfo");
	SYM(device_get_max_pcie_link_generation, "nvmlDeviceGetMaxPcieLinkGeneration");
	SYM(device_get_max_pcie_link_width, "nvmlDeviceGetMaxPcieLinkWidth");
	SYM(device_get_curr_pcie_link_generation, "nvmlDeviceGetCurrPcieLinkGeneration");
	SYM(device_get_curr_pcie_link_width, "nvmlDeviceGetCurrPcieLinkWidth");
	SYM(device_get_pcie_replay_counter, "nvmlDeviceGetPcieReplayCounter");
	SYM(device_get_mig_mode, "nvmlDeviceGetMigMode");
	SYM(device_get_persistence_mode, "nvmlDeviceGetPersistenceMode");
	SYM(device_get_temperature_threshold, "nvmlDeviceGetTemperatureThreshold");
	SYM(device_get_memory_bus_width, "nvmlDeviceGetMemoryBusWidth");
	SYM(device_get_max_clock_info, "nvmlDeviceGetMaxClockInfo");
	SYM(device_get_utilization_rates, "nvmlDeviceGetUtilizationRates");
	SYM(device_get_clock_info, "nvmlDeviceGetClockInfo");
	SYM(device_get_power_usage, "nvmlDeviceGetPowerUsage");
	SYM(device_get_temperature, "nvmlDeviceGetTemperature");
	SYM(device_get_pcie_throughput, "nvmlDeviceGetPcieThroughput");
	SYM(device_get_clocks_event_reasons, "nvmlDeviceGetCurrentClocksEventReasons",
	    "nvmlDeviceGetCurrentClocksThrottleReasons");
	SYM(device_get_violation_status, "nvmlDeviceGetViolationStatus");
	SYM(device_get_total_ecc_errors, "nvmlDeviceGetTotalEccErrors");
	SYM(device_get_ecc_mode, "nvmlDeviceGetEccMode");
	SYM(device_get_remapped_rows, "nvmlDeviceGetRemappedRows");
	SYM(device_get_compute_running_processes, "nvmlDeviceGetComputeRunningProcesses_v3",
	    "nvmlDeviceGetComputeRunningProcesses_v2");
	SYM(device_get_compute_running_processes_v1, "nvmlDeviceGetComputeRunningProcesses");
	SYM(gpm_query_device_support, "nvmlGpmQueryDeviceSupport");
	SYM(gpm_sample_alloc, "nvmlGpmSampleAlloc");
	SYM(gpm_sample_free, "nvmlGpmSampleFree");
	SYM(gpm_sample_get, "nvmlGpmSampleGet");
	SYM(gpm_metrics_get, "nvmlGpmMetricsGet");
}

const char *gs_nvml_strerror(struct gs_nvml *n, int ret)
{
	static char buf[32];
	if (n && n->ops.error_string) {
		const char *s = n->ops.error_string(ret);
		if (s)
			return s;
	}
	snprintf(buf, sizeof(buf), "nvml error %d", ret);
	return buf;
}

int gs_nvml_open_with(struct gs_nvml **out, const struct gs_nvml_ops *ops, char *err)
{
	struct gs_nvml *n;
	int ret;

	*out = NULL;
	n = calloc(1, sizeof(*n));
	if (!n)
		return error_set(err, "out of memory");
	n->ops = *ops;
	if (n->ops.init) {
		ret = n->ops.init();
		if (ret != GS_NVML_SUCCESS) {
			error_set(err, "nvml init failed: %s (is the nvidia kernel module loaded?)",
				  gs_nvml_strerror(n, ret));
			free(n);
			return -1;
		}
	}
	*out = n;
	return 0;
}

int gs_nvml_open(struct gs_nvml **out, char *err)
{
	struct gs_nvml_ops ops;
	void *lib;
	int rc;

	*out = NULL;
	lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		const char *e = dlerror();
		return error_set(err, "no NVIDIA driver: libnvidia-ml.so.1 not found (%s)",
				 e ? e : "dlopen failed");
	}
	resolve(lib, &ops);
	if (!ops.init || !ops.device_get_count || !ops.device_get_handle_by_index) {
		dlclose(lib);
		return error_set(err, "libnvidia-ml.so.1 lacks nvmlInit or nvmlDeviceGetCount");
	}
	rc = gs_nvml_open_with(out, &ops, err);
	if (rc) {
		dlclose(lib);
		return rc;
	}
	(*out)->lib = lib;
	return 0;
}

void gs_nvml_close(struct gs_nvml *n)
{
	if (!n)
		return;
	for (int i = 0; i < GS_NVML_MAX_DEVICES; i++) {
		if (n->ops.gpm_sample_free) {
			if (n->gpm_prev[i])
				n->ops.gpm_sample_free(n->gpm_prev[i]);
			if (n->gpm_cur[i])
				n->ops.gpm_sample_free(n->gpm_cur[i]);
		}
	}
	if (n->ops.shutdown)
		n->ops.shutdown();
	if (n->lib)
		dlclose(n->lib);
	free(n);
}

const struct gs_nvml_ops *gs_nvml_get_ops(const struct gs_nvml *n)
{
	return &n->ops;
}

int gs_nvml_device_count(struct gs_nvml *n, unsigned *count)
{
	unsigned int c = 0;
	*count = 0;
	if (!n->ops.device_get_count || n->ops.device_get_count(&c) != GS_NVML_SUCCESS)
		return -1;
	*count = c;
	return 0;
}

int gs_nvml_device_handle(struct gs_nvml *n, unsigned dev, struct nvmlDevice_st **out, char *err)
{
	int ret;
	*out = NULL;
	if (!n->ops.device_get_handle_by_index)
		return error_set(err, "nvml has no nvmlDeviceGetHandleByIndex");
	ret = n->ops.device_get_handle_by_index(dev, out);
	if (ret != GS_NVML_SUCCESS)
		return error_set(err, "cannot open gpu %u: %s", dev, gs_nvml_strerror(n, ret));
	return 0;
}

#define OK(call) ((call) == GS_NVML_SUCCESS)

int gs_nvml_device_static(struct gs_nvml *n, unsigned dev, struct gs_nvml_static *out)
{
	const struct gs_nvml_ops *o = &n->ops;
	struct nvmlDevice_st *d;
	unsigned int u, u2;
	int i, i2;

	memset(out, 0, sizeof(*out));
	if (gs_nvml_device_handle(n, dev, &d, NULL))
		return -1;
	if (o->device_get_name && OK(o->device_get_name(d, out->name, sizeof(out->name)))) {
		out->name[sizeof(out->name) - 1] = 0;
		out->valid |= GS_NVML_S_NAME;
	}
	if (o->device_get_uuid && OK(o->device_get_uuid(d, out->uuid, sizeof(out->uuid)))) {
		out->uuid[sizeof(out->uuid) - 1] = 0;
		out->valid |= GS_NVML_S_UUID;
	}
	if (o->device_get_pci_info) {
		struct gs_nvml_pci_info pci;
		memset(&pci, 0, sizeof(pci));
		if (OK(o->device_get_pci_info(d, &pci))) {
			pci.bus_id[sizeof(pci.bus_id) - 1] = 0;
			snprintf(out->pci_bus_id, sizeof(out->pci_bus_id), "%s", pci.bus_id);
			out->valid |= GS_NVML_S_PCI;
		}
	}
	if (o->system_get_driver_version &&
	    OK(o->system_get_driver_version(out->driver_version, sizeof(out->driver_version)))) {
		out->driver_version[sizeof(out->driver_version) - 1] = 0;
		out->valid |= GS_NVML_S_DRIVER;
	}
	if (o->system_get_cuda_driver_version && OK(o->system_get_cuda_driver_version(&i)) &&
	    i > 0) {
		out->cuda_driver_version = i;
		out->valid |= GS_NVML_S_CUDA_DRIVER;
	}
	if (o->device_get_cuda_compute_capability &&
	    OK(o->device_get_cuda_compute_capability(d, &i, &i2))) {
		out->cc_major = i;
		out->cc_minor = i2;
		out->valid |= GS_NVML_S_CC;
	}
	if (o->device_get_attributes) {
		struct gs_nvml_device_attributes a;
		memset(&a, 0, sizeof(a));
		if (OK(o->device_get_attributes(d, &a)) && a.multiprocessor_count > 0) {
			out->sm_count = a.multiprocessor_count;
			out->valid |= GS_NVML_S_SM_COUNT;
		}
	}
	if (o->device_get_memory_info) {
		struct gs_nvml_memory m;
		if (OK(o->device_get_memory_info(d, &m))) {
			out->mem_total = m.total;
			out->valid |= GS_NVML_S_MEM_TOTAL;
		}
	}
	if (o->device_get_max_pcie_link_generation && o->device_get_max_pcie_link_width &&
	    OK(o->device_get_max_pcie_link_generation(d, &u)) &&
	    OK(o->device_get_max_pcie_link_width(d, &u2))) {
		out->pcie_max_gen = u;
		out->pcie_max_width = u2;
		out->valid |= GS_NVML_S_PCIE_MAX;
	}
	if (o->device_get_curr_pcie_link_generation && o->device_get_curr_pcie_link_width &&
	    OK(o->device_get_curr_pcie_link_generation(d, &u)) &&
	    OK(o->device_get_curr_pcie_link_width(d, &u2))) {
		out->pcie_cur_gen = u;
		out->pcie_cur_width = u2;
		out->valid |= GS_NVML_S_PCIE_CUR;
	}
	if (o->device_get_mig_mode && OK(o->device_get_mig_mode(d, &u, &u2))) {
		out->mig_mode = u ? 1 : 0;
		out->valid |= GS_NVML_S_MIG;
	}
	if (o->device_get_persistence_mode && OK(o->device_get_persistence_mode(d, &i))) {
		out->persistence = i ? 1 : 0;
		out->valid |= GS_NVML_S_PERSISTENCE;
	}
	if (o->device_get_temperature_threshold &&
	    OK(o->device_get_temperature_threshold(d, GS_NVML_TEMPERATURE_THRESHOLD_SLOWDOWN,
						   &u)) &&
	    u > 0) {
		out->slowdown_temp_c = u;
		out->valid |= GS_NVML_S_SLOWDOWN_TEMP;
	}
	if (o->device_get_memory_bus_width && OK(o->device_get_memory_bus_width(d, &u)) && u > 0) {
		out->mem_bus_width_bits = u;
		out->valid |= GS_NVML_S_MEM_BUS_WIDTH;
	}
	if (o->device_get_max_clock_info &&
	    OK(o->device_get_max_clock_info(d, GS_NVML_CLOCK_MEM, &u)) && u > 0) {
		out->max_mem_clock_mhz = u;
		out->valid |= GS_NVML_S_MAX_MEM_CLOCK;
	}
	return 0;
}

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Takes a GPM sample and, when a previous one exists, fills the metrics. */
static void sample_gpm(struct gs_nvml *n, unsigned dev, struct nvmlDevice_st *d,
		       struct gs_nvml_sample *out)
{
	const struct gs_nvml_ops *o = &n->ops;
	struct gs_nvml_gpm_metrics_get *mg;
	struct nvmlGpmSample_st *tmp;
	static const unsigned ids[5] = {GS_NVML_GPM_METRIC_SM_UTIL, GS_NVML_GPM_METRIC_SM_OCCUPANCY,
					GS_NVML_GPM_METRIC_DRAM_BW_UTIL,
					GS_NVML_GPM_METRIC_ANY_TENSOR_UTIL,
					GS_NVML_GPM_METRIC_FP32_UTIL};
	static const unsigned long long bits[5] = {
	    GS_NVML_V_GPM_SM_UTIL, GS_NVML_V_GPM_SM_OCCUPANCY, GS_NVML_V_GPM_DRAM_BW,
	    GS_NVML_V_GPM_TENSOR, GS_NVML_V_GPM_FP32};
	double *dst[5];

	if (dev >= GS_NVML_MAX_DEVICES || !o->gpm_sample_alloc || !o->gpm_sample_get ||
	    !o->gpm_metrics_get)
		return;
	if (!n->gpm_checked[dev]) {
		n->gpm_checked[dev] = 1;
		n->gpm_ok[dev] = 1;
		if (o->gpm_query_device_support) {
			struct gs_nvml_gpm_support s = {GS_NVML_GPM_SUPPORT_VERSION, 0};
			if (!OK(o->gpm_query_device_support(d, &s)) || !s.is_supported_device)
				n->gpm_ok[dev] = 0;
		}
		if (n->gpm_ok[dev] && (!OK(o->gpm_sample_alloc(&n->gpm_prev[dev])) ||
				       !OK(o->gpm_sample_alloc(&n->gpm_cur[dev]))))
			n->gpm_ok[dev] = 0;
	}
	if (!n->gpm_ok[dev])
		return;
	if (!OK(o->gpm_sample_get(d, n->gpm_cur[dev]))) {
		n->gpm_have_prev[dev] = 0;
		return;
	}
	if (n->gpm_have_prev[dev]) {
		mg = calloc(1, sizeof(*mg));
		if (mg) {
			dst[0] = &out->gpm_sm_util;
			dst[1] = &out->gpm_sm_occupancy;
			dst[2] = &out->gpm_dram_bw_util;
			dst[3] = &out->gpm_tensor_util;
			dst[4] = &out->gpm_fp32_util;
			mg->version = GS_NVML_GPM_METRICS_GET_VERSION;
			mg->num_metrics = 5;
			mg->sample1 = n->gpm_prev[dev];
			mg->sample2 = n->gpm_cur[dev];
			for (int i = 0; i < 5; i++)
				mg->metrics[i].metric_id = ids[i];
			if (OK(o->gpm_metrics_get(mg))) {
				for (int i = 0; i < 5; i++) {
					if (mg->metrics[i].nvml_return != GS_NVML_SUCCESS)
						continue;
					*dst[i] = mg->metrics[i].value;
					out->valid |= bits[i];
				}
			}
			free(mg);
		}
	}
	/* the current sample becomes the baseline of the next call */
	tmp = n->gpm_prev[dev];
	n->gpm_prev[dev] = n->gpm_cur[dev];
	n->gpm_cur[dev] = tmp;
	n->gpm_have_prev[dev] = 1;
}

int gs_nvml_sample(struct gs_nvml *n, unsigned dev, struct gs_nvml_sample *out)
{
	const struct gs_nvml_ops *o = &n->ops;
	struct nvmlDevice_st *d;
	unsigned int u;

	memset(out, 0, sizeof(*out));
	if (gs_nvml_device_handle(n, dev, &d, NULL))
		return -1;
	out->ts_ns = now_ns();
	if (o->device_get_utilization_rates) {
		struct gs_nvml_utilization ut;
		if (OK(o->device_get_utilization_rates(d, &ut))) {
			out->gpu_util = ut.gpu;
			out->mem_util = ut.memory;
			out->valid |= GS_NVML_V_GPU_UTIL | GS_NVML_V_MEM_UTIL;
		}
	}
	if (o->device_get_clock_info) {
		if (OK(o->device_get_clock_info(d, GS_NVML_CLOCK_SM, &u))) {
			out->sm_clock_mhz = u;
			out->valid |= GS_NVML_V_SM_CLOCK;
		}
		if (OK(o->device_get_clock_info(d, GS_NVML_CLOCK_MEM, &u))) {
			out->mem_clock_mhz = u;
			out->valid |= GS_NVML_V_MEM_CLOCK;
		}
	}
	if (o->device_get_power_usage && OK(o->device_get_power_usage(d, &u))) {
		out->power_w = u / 1000.0;
		out->valid |= GS_NVML_V_POWER;
	}
	if (o->device_get_temperature &&
	    OK(o->device_get_temperature(d, GS_NVML_TEMPERATURE_GPU, &u))) {
		out->temp_c = u;
		out->valid |= GS_NVML_V_TEMP;
	}
	if (o->device_get_pcie_throughput) {
		/* NVML reports KB/s over a 20 ms window */
		if (OK(o->device_get_pcie_throughput(d, GS_NVML_PCIE_UTIL_TX_BYTES, &u))) {
			out->pcie_tx_mbps = u / 1000.0;
			out->valid |= GS_NVML_V_PCIE_TX;
		}
		if (OK(o->device_get_pcie_throughput(d, GS_NVML_PCIE_UTIL_RX_BYTES, &u))) {
			out->pcie_rx_mbps = u / 1000.0;
			out->valid |= GS_NVML_V_PCIE_RX;
		}
	}
	if (o->device_get_memory_info) {
		struct gs_nvml_memory m;
		if (OK(o->device_get_memory_info(d, &m))) {
			out->mem_used_bytes = (double)m.used;
			out->valid |= GS_NVML_V_MEM_USED;
		}
	}
	if (o->device_get_clocks_event_reasons &&
	    OK(o->device_get_clocks_event_reasons(d, &out->clock_event_reasons)))
		out->valid |= GS_NVML_V_CLOCK_EVENTS;
	sample_gpm(n, dev, d, out);
	return 0;
}

int gs_nvml_device_health(struct gs_nvml *n, unsigned dev, struct gs_nvml_health *out)
{
	const struct gs_nvml_ops *o = &n->ops;
	struct nvmlDevice_st *d;
	unsigned long long ull;
	unsigned int a, b, c, e;
	int cur, pend;

	memset(out, 0, sizeof(*out));
	if (gs_nvml_device_handle(n, dev, &d, NULL))
		return -1;
	if (o->device_get_ecc_mode && OK(o->device_get_ecc_mode(d, &cur, &pend))) {
		out->ecc_enabled = cur ? 1 : 0;
		out->valid |= GS_NVML_H_ECC_MODE;
	}
	if (o->device_get_total_ecc_errors) {
		if (OK(o->device_get_total_ecc_errors(d, GS_NVML_MEMORY_ERROR_CORRECTED,
						      GS_NVML_VOLATILE_ECC, &ull))) {
			out->ecc_corrected = ull;
			out->valid |= GS_NVML_H_ECC_CORR;
		}
		if (OK(o->device_get_total_ecc_errors(d, GS_NVML_MEMORY_ERROR_UNCORRECTED,
						      GS_NVML_VOLATILE_ECC, &ull))) {
			out->ecc_uncorrected = ull;
			out->valid |= GS_NVML_H_ECC_UNCORR;
		}
	}
	if (o->device_get_remapped_rows && OK(o->device_get_remapped_rows(d, &a, &b, &c, &e))) {
		out->remap_corr = a;
		out->remap_unc = b;
		out->remap_pending = c;
		out->remap_failure = e;
		out->valid |= GS_NVML_H_REMAP;
	}
	if (o->device_get_pcie_replay_counter && OK(o->device_get_pcie_replay_counter(d, &a))) {
		out->pcie_replay = a;
		out->valid |= GS_NVML_H_REPLAY;
	}
	if (o->device_get_violation_status) {
		struct gs_nvml_violation_time t;
		if (OK(o->device_get_violation_status(d, GS_NVML_PERF_POLICY_POWER, &t))) {
			out->viol_power_ns = t.violation_time;
			out->valid |= GS_NVML_H_VIOL_POWER;
		}
		if (OK(o->device_get_violation_status(d, GS_NVML_PERF_POLICY_THERMAL, &t))) {
			out->viol_thermal_ns = t.violation_time;
			out->valid |= GS_NVML_H_VIOL_THERMAL;
		}
	}
	if (o->device_get_clocks_event_reasons &&
	    OK(o->device_get_clocks_event_reasons(d, &out->clock_event_reasons)))
		out->valid |= GS_NVML_H_REASONS;
	if (o->device_get_temperature &&
	    OK(o->device_get_temperature(d, GS_NVML_TEMPERATURE_GPU, &a))) {
		out->temp_c = a;
		out->valid |= GS_NVML_H_TEMP;
	}
	if (o->device_get_compute_running_processes) {
		/* twice the room we announce: a driver with a larger struct cannot overflow us */
		struct gs_nvml_process_info pi[GS_NVML_MAX_PROCS * 2];
		unsigned int cnt = GS_NVML_MAX_PROCS;
		int ret = o->device_get_compute_running_processes(d, &cnt, pi);
		if (ret == GS_NVML_SUCCESS || ret == GS_NVML_ERROR_INSUFFICIENT_SIZE) {
			out->n_procs = cnt;
			/* on INSUFFICIENT_SIZE cnt is the needed size and pi is unfilled */
			for (unsigned i = 0;
			     ret == GS_NVML_SUCCESS && i < cnt && i < GS_NVML_MAX_PROCS; i++) {
				out->proc_pid[i] = pi[i].pid;
				out->proc_mem[i] = pi[i].used_gpu_memory;
			}
			out->valid |= GS_NVML_H_PROCS;
		}
	} else if (o->device_get_compute_running_processes_v1) {
		struct gs_nvml_process_info_v1 pi[GS_NVML_MAX_PROCS * 2];
		unsigned int cnt = GS_NVML_MAX_PROCS;
		int ret = o->device_get_compute_running_processes_v1(d, &cnt, pi);
		if (ret == GS_NVML_SUCCESS || ret == GS_NVML_ERROR_INSUFFICIENT_SIZE) {
			out->n_procs = cnt;
			/* on INSUFFICIENT_SIZE cnt is the needed size and pi is unfilled */
			for (unsigned i = 0;
			     ret == GS_NVML_SUCCESS && i < cnt && i < GS_NVML_MAX_PROCS; i++) {
				out->proc_pid[i] = pi[i].pid;
				out->proc_mem[i] = pi[i].used_gpu_memory;
			}
			out->valid |= GS_NVML_H_PROCS;
		}
	}
	return 0;
}
