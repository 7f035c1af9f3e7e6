/*
 * nvml.c - the NVML + GPM vendor backend: loading, devices, static info
 * (gpu.h for the contract; nvml_read.c reads samples, health, processes).
 *
 * Symbols are resolved newest first (nvtop does the same): an old driver
 * lacks the _v3 names, a new one may drop the unsuffixed ones. A missing
 * symbol only leaves its fields unknown. Only query functions are resolved,
 * so this backend cannot change the GPU's state.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/nvml_ctx.h"

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
	SYM(device_get_total_energy_consumption, "nvmlDeviceGetTotalEnergyConsumption");
	SYM(device_get_enforced_power_limit, "nvmlDeviceGetEnforcedPowerLimit");
	SYM(device_get_process_utilization, "nvmlDeviceGetProcessUtilization");
	SYM(event_set_create, "nvmlEventSetCreate");
	SYM(device_register_events, "nvmlDeviceRegisterEvents");
	SYM(event_set_wait, "nvmlEventSetWait_v2");
	SYM(event_set_free, "nvmlEventSetFree");
	SYM(device_get_max_mig_device_count, "nvmlDeviceGetMaxMigDeviceCount");
	SYM(device_get_mig_device_handle_by_index, "nvmlDeviceGetMigDeviceHandleByIndex");
	SYM(device_get_gpu_instance_id, "nvmlDeviceGetGpuInstanceId");
	SYM(device_get_compute_instance_id, "nvmlDeviceGetComputeInstanceId");
	SYM(gpm_mig_sample_get, "nvmlGpmMigSampleGet");
}

const char *nvml_strerror(struct nvml_ctx *c, int ret)
{
	if (c->ops.error_string) {
		const char *s = c->ops.error_string(ret);
		if (s)
			return s;
	}
	snprintf(c->strerr, sizeof(c->strerr), "nvml error %d", ret);
	return c->strerr;
}

static void nvml_shutdown(void *ctx)
{
	struct nvml_ctx *c = ctx;
	if (!c)
		return;
	for (unsigned i = 0; i < GPU_MAX_DEVICES; i++) {
		if (!c->ops.gpm_sample_free)
			break;
		if (c->dev[i].gpm_prev)
			c->ops.gpm_sample_free(c->dev[i].gpm_prev);
		if (c->dev[i].gpm_cur)
			c->ops.gpm_sample_free(c->dev[i].gpm_cur);
		for (unsigned k = 0; k < GPU_MAX_MIG; k++)
			if (c->dev[i].mig_gpm[k].used) {
				c->ops.gpm_sample_free(c->dev[i].mig_gpm[k].prev);
				c->ops.gpm_sample_free(c->dev[i].mig_gpm[k].cur);
			}
	}
	if (c->events && c->ops.event_set_free)
		c->ops.event_set_free(c->events);
	if (c->ops.shutdown)
		c->ops.shutdown();
	if (c->lib)
		dlclose(c->lib);
	free(c);
}

/* Counts devices (capped: a driver may report anything) and takes their handles. */
static void open_devices(struct nvml_ctx *c)
{
	unsigned int n = 0;
	if (!c->ops.device_get_count || !NVML_OK(c->ops.device_get_count(&n))) {
		snprintf(c->note, sizeof(c->note), "nvmlDeviceGetCount failed");
		return;
	}
	if (n > GPU_MAX_DEVICES) {
		snprintf(c->note, sizeof(c->note), "nvml reports %u gpus; using the first %d", n,
			 GPU_MAX_DEVICES);
		n = GPU_MAX_DEVICES;
	}
	c->n_dev = n;
	unsigned failed = 0, first = 0;
	int first_ret = 0;
	for (unsigned i = 0; i < n; i++) {
		int ret = c->ops.device_get_handle_by_index
			      ? c->ops.device_get_handle_by_index(i, &c->dev[i].h)
			      : GS_NVML_ERROR_FUNCTION_NOT_FOUND;
		if (ret != GS_NVML_SUCCESS) {
			c->dev[i].h = NULL;
			if (!failed++) {
				first = i;
				first_ret = ret;
			}
		}
	}
	if (failed) {
		size_t used = strlen(c->note);
		snprintf(c->note + used, sizeof(c->note) - used,
			 "%scannot open %u gpu(s), first gpu %u: %s", used ? "; " : "", failed,
			 first, nvml_strerror(c, first_ret));
	}
}

int gpu_nvml_open_ops(void **ctx, const struct gs_nvml_ops *ops, char *err)
{
	struct nvml_ctx *c;
	*ctx = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return error_set(err, "out of memory");
	c->ops = *ops;
	if (c->ops.init) {
		int ret = c->ops.init();
		if (ret != GS_NVML_SUCCESS) {
			error_set(err, "nvml init failed: %s (is the nvidia kernel module loaded?)",
				  nvml_strerror(c, ret));
			free(c);
			return -1;
		}
	}
	open_devices(c);
	*ctx = c;
	return 0;
}

static int nvml_init(void **ctx, char *err)
{
	struct gs_nvml_ops ops;
	void *lib;

	*ctx = NULL;
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
	if (gpu_nvml_open_ops(ctx, &ops, err) < 0) {
		dlclose(lib);
		return -1;
	}
	((struct nvml_ctx *)*ctx)->lib = lib;
	return 0;
}

static int nvml_device_count(void *ctx, unsigned *n)
{
	*n = ((struct nvml_ctx *)ctx)->n_dev;
	return 0;
}

static const char *nvml_last_error(void *ctx)
{
	return ((struct nvml_ctx *)ctx)->note;
}

/* Both values of a pair query, or neither. */
static int pair(int (*f)(struct nvmlDevice_st *, unsigned int *),
		int (*g)(struct nvmlDevice_st *, unsigned int *), struct nvmlDevice_st *d,
		unsigned *a, unsigned *b)
{
	unsigned int x, y;
	if (!f || !g || !NVML_OK(f(d, &x)) || !NVML_OK(g(d, &y)))
		return 0;
	*a = x;
	*b = y;
	return 1;
}

static void static_ids(const struct gs_nvml_ops *o, struct nvmlDevice_st *d, struct gpu_static *out)
{
	if (o->device_get_name && NVML_OK(o->device_get_name(d, out->name, sizeof(out->name)))) {
		out->name[sizeof(out->name) - 1] = 0;
		out->valid |= GPU_S_NAME;
	}
	if (o->device_get_uuid && NVML_OK(o->device_get_uuid(d, out->uuid, sizeof(out->uuid)))) {
		out->uuid[sizeof(out->uuid) - 1] = 0;
		out->valid |= GPU_S_UUID;
	}
	if (o->device_get_pci_info) {
		struct gs_nvml_pci_info pci;
		memset(&pci, 0, sizeof(pci));
		if (NVML_OK(o->device_get_pci_info(d, &pci))) {
			pci.bus_id[sizeof(pci.bus_id) - 1] = 0;
			snprintf(out->pci_bus_id, sizeof(out->pci_bus_id), "%s", pci.bus_id);
			out->valid |= GPU_S_PCI;
		}
	}
	if (o->system_get_driver_version &&
	    NVML_OK(
		o->system_get_driver_version(out->driver_version, sizeof(out->driver_version)))) {
		out->driver_version[sizeof(out->driver_version) - 1] = 0;
		out->valid |= GPU_S_DRIVER;
	}
}

/* The CUDA driver's version, once per context (it is the system's). */
static void static_cuda_version(struct nvml_ctx *c, struct gpu_static *out)
{
	int i = 0;
	if (!c->cuda_ver_read) {
		c->cuda_ver_read = 1;
		if (c->ops.system_get_cuda_driver_version &&
		    NVML_OK(c->ops.system_get_cuda_driver_version(&i)) && i > 0)
			c->cuda_ver = i;
	}
	if (c->cuda_ver > 0) {
		out->cuda_driver_version = c->cuda_ver;
		out->valid |= GPU_S_CUDA_DRIVER;
	}
}

static int nvml_static_info(void *ctx, unsigned dev, struct gpu_static *out)
{
	struct nvml_ctx *c = ctx;
	const struct gs_nvml_ops *o = &c->ops;
	struct nvmlDevice_st *d;
	unsigned int u, u2;
	int i, i2;

	memset(out, 0, sizeof(*out));
	if (dev >= c->n_dev || !(d = c->dev[dev].h))
		return -1;
	snprintf(out->vendor, sizeof(out->vendor), "nvidia");
	static_ids(o, d, out);
	static_cuda_version(c, out);
	if (o->device_get_cuda_compute_capability &&
	    NVML_OK(o->device_get_cuda_compute_capability(d, &i, &i2))) {
		out->cc_major = i;
		out->cc_minor = i2;
		out->valid |= GPU_S_CC;
	}
	if (o->device_get_attributes) {
		struct gs_nvml_device_attributes a;
		memset(&a, 0, sizeof(a));
		if (NVML_OK(o->device_get_attributes(d, &a)) && a.multiprocessor_count > 0) {
			out->sm_count = a.multiprocessor_count;
			out->valid |= GPU_S_SM_COUNT;
		}
	}
	if (o->device_get_memory_info) {
		struct gs_nvml_memory m;
		if (NVML_OK(o->device_get_memory_info(d, &m))) {
			out->mem_total = m.total;
			out->valid |= GPU_S_MEM_TOTAL;
		}
	}
	if (pair(o->device_get_max_pcie_link_generation, o->device_get_max_pcie_link_width, d,
		 &out->pcie_max_gen, &out->pcie_max_width))
		out->valid |= GPU_S_PCIE_MAX;
	if (pair(o->device_get_curr_pcie_link_generation, o->device_get_curr_pcie_link_width, d,
		 &out->pcie_cur_gen, &out->pcie_cur_width))
		out->valid |= GPU_S_PCIE_CUR;
	if (o->device_get_mig_mode && NVML_OK(o->device_get_mig_mode(d, &u, &u2))) {
		out->mig_mode = u ? 1 : 0;
		out->valid |= GPU_S_MIG;
	}
	if (o->device_get_persistence_mode && NVML_OK(o->device_get_persistence_mode(d, &i))) {
		out->persistence = i ? 1 : 0;
		out->valid |= GPU_S_PERSISTENCE;
	}
	if (o->device_get_ecc_mode && NVML_OK(o->device_get_ecc_mode(d, &i, &i2))) {
		out->ecc_enabled = i ? 1 : 0;
		out->valid |= GPU_S_ECC_MODE;
	}
	if (o->device_get_temperature_threshold) {
		if (NVML_OK(o->device_get_temperature_threshold(
			d, GS_NVML_TEMPERATURE_THRESHOLD_SLOWDOWN, &u)) &&
		    u > 0) {
			out->slowdown_temp_c = u;
			out->valid |= GPU_S_SLOWDOWN_TEMP;
		}
		if (NVML_OK(o->device_get_temperature_threshold(
			d, GS_NVML_TEMPERATURE_THRESHOLD_SHUTDOWN, &u)) &&
		    u > 0) {
			out->shutdown_temp_c = u;
			out->valid |= GPU_S_SHUTDOWN_TEMP;
		}
	}
	if (o->device_get_memory_bus_width && NVML_OK(o->device_get_memory_bus_width(d, &u)) &&
	    u > 0) {
		out->mem_bus_width_bits = u;
		out->valid |= GPU_S_MEM_BUS_WIDTH;
	}
	if (o->device_get_max_clock_info) {
		if (NVML_OK(o->device_get_max_clock_info(d, GS_NVML_CLOCK_MEM, &u)) && u > 0) {
			out->max_mem_clock_mhz = u;
			out->valid |= GPU_S_MAX_MEM_CLOCK;
		}
		if (NVML_OK(o->device_get_max_clock_info(d, GS_NVML_CLOCK_SM, &u)) && u > 0) {
			out->max_sm_clock_mhz = u;
			out->valid |= GPU_S_MAX_SM_CLOCK;
		}
	}
	return 0;
}

const struct gpu_vendor gpu_vendor_nvml = {
    .name = "nvml",
    .init = nvml_init,
    .shutdown = nvml_shutdown,
    .device_count = nvml_device_count,
    .static_info = nvml_static_info,
    .sample = nvml_sample,
    .health = nvml_health,
    .processes = nvml_processes,
    .mig = nvml_mig,
    .last_error = nvml_last_error,
};
