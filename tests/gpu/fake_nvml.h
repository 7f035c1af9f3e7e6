/*
 * fake_nvml.h - a fake NVML for unit tests (header-only; one per test
 * program): fake_gpus[] describes each device, fake_nvml_ops() returns a
 * raw table over it, fake_nvml_sys() opens it as a struct gpu_sys. Every
 * reading is a pure function of fake_gpus[] (and of a GPM sample's serial
 * number), so two threads can read it at once.
 */
#ifndef GPUSCOPE_TESTS_FAKE_NVML_H
#define GPUSCOPE_TESTS_FAKE_NVML_H

#include <stdio.h>
#include <string.h>

#include "gpu/gpu.h"
#include "gpu/nvml_abi.h"
#include "util/error.h"

#define FAKE_MAX 8
struct fake_gpu {
	const char *name, *uuid, *bus;
	unsigned util, mem_util, sm_mhz, mem_mhz, power_mw, temp, pcie_tx_kbps, pcie_rx_kbps;
	unsigned long long mem_total, mem_used, reasons, energy_mj;
	double gpm_sm, gpm_dram, gpm_tensor; /* percent */
	double gpm_pcie_tx, gpm_pcie_rx;     /* MiB/s */
	int gpm_no_pcie;		     /* GPM answers NOT_SUPPORTED for PCIe */
	unsigned pcie_calls;		     /* legacy PCIe throughput queries */
	unsigned energy_calls, viol_calls;   /* the slow counters' queries */
	unsigned n_procs;
	unsigned pids[4];
	unsigned long long proc_mem[4];
	unsigned proc_sm[4];
	unsigned proc_gi[4];	  /* GPU instance of each process (MIG) */
	unsigned xids[4], n_xids; /* delivered on the first event wait */
	int mig;		  /* MIG mode (asked only with fake_mig_ops) */
	struct fake_gpu *parent;  /* a MIG device's GPU (fake_migs) */
	unsigned gi, ci;	  /* a MIG device's GPU and compute instance ids */
};

static struct fake_gpu fake_gpus[FAKE_MAX];
static unsigned fake_count = 1;
static unsigned fake_reported_count; /* 0: fake_count */
static int fake_gpm_serial;
/* MIG devices: fake_migs[i] is MIG index i of its parent (a gap answers
 * NOT_FOUND); name, uuid, memory and GPM values as a GPU's */
static struct fake_gpu fake_migs[FAKE_MAX];
static int fake_mig_ops; /* 1: the table has the MIG queries */

static int fk_init(void)
{
	return 0;
}
static int fk_count(unsigned int *c)
{
	*c = fake_reported_count ? fake_reported_count : fake_count;
	return 0;
}
static int fk_handle(unsigned int i, struct nvmlDevice_st **d)
{
	if (i >= FAKE_MAX)
		return 2;
	*d = (struct nvmlDevice_st *)&fake_gpus[i];
	return 0;
}
#define FK(d) ((struct fake_gpu *)(d))
static int fk_name(struct nvmlDevice_st *d, char *b, unsigned int len)
{
	snprintf(b, len, "%s", FK(d)->name ? FK(d)->name : "NVIDIA H200");
	return 0;
}
static int fk_uuid(struct nvmlDevice_st *d, char *b, unsigned int len)
{
	snprintf(b, len, "%s", FK(d)->uuid ? FK(d)->uuid : "GPU-00000000-fake");
	return 0;
}
static int fk_pci(struct nvmlDevice_st *d, struct gs_nvml_pci_info *p)
{
	snprintf(p->bus_id, sizeof(p->bus_id), "%s", FK(d)->bus ? FK(d)->bus : "00000000:19:00.0");
	return 0;
}
static int fk_driver(char *b, unsigned int len)
{
	snprintf(b, len, "580.159.04");
	return 0;
}
static unsigned fake_cuda_calls; /* nvmlSystemGetCudaDriverVersion: loads libcuda */
static int fk_cuda(int *v)
{
	fake_cuda_calls++;
	*v = 13000;
	return 0;
}
static int fk_cc(struct nvmlDevice_st *d, int *ma, int *mi)
{
	*ma = 9;
	*mi = 0;
	return 0;
}
static int fk_mem(struct nvmlDevice_st *d, struct gs_nvml_memory *m)
{
	m->total = FK(d)->mem_total;
	m->used = FK(d)->mem_used;
	m->free = m->total - m->used;
	return 0;
}
static int fk_util(struct nvmlDevice_st *d, struct gs_nvml_utilization *u)
{
	u->gpu = FK(d)->util;
	u->memory = FK(d)->mem_util;
	return 0;
}
static int fk_clock(struct nvmlDevice_st *d, int type, unsigned int *mhz)
{
	*mhz = type == GS_NVML_CLOCK_SM ? FK(d)->sm_mhz : FK(d)->mem_mhz;
	return 0;
}
static int fk_max_clock(struct nvmlDevice_st *d, int type, unsigned int *mhz)
{
	*mhz = type == GS_NVML_CLOCK_SM ? 1980 : 3201;
	return 0;
}
static int fk_power(struct nvmlDevice_st *d, unsigned int *mw)
{
	*mw = FK(d)->power_mw;
	return 0;
}
static int fk_limit(struct nvmlDevice_st *d, unsigned int *mw)
{
	*mw = 700000;
	return 0;
}
static int fk_energy(struct nvmlDevice_st *d, unsigned long long *mj)
{
	*mj = FK(d)->energy_mj;
	FK(d)->energy_calls++;
	return 0;
}
static int fk_temp(struct nvmlDevice_st *d, int sensor, unsigned int *c)
{
	*c = FK(d)->temp;
	return 0;
}
static int fk_threshold(struct nvmlDevice_st *d, int type, unsigned int *c)
{
	*c = type == GS_NVML_TEMPERATURE_THRESHOLD_SLOWDOWN ? 87 : 92;
	return 0;
}
static int fk_pcie(struct nvmlDevice_st *d, int counter, unsigned int *kbps)
{
	*kbps = counter == GS_NVML_PCIE_UTIL_TX_BYTES ? FK(d)->pcie_tx_kbps : FK(d)->pcie_rx_kbps;
	FK(d)->pcie_calls++;
	return 0;
}
static int fk_gen_max(struct nvmlDevice_st *d, unsigned int *v)
{
	*v = 5;
	return 0;
}
static int fk_width_max(struct nvmlDevice_st *d, unsigned int *v)
{
	*v = 16;
	return 0;
}
static int fk_reasons(struct nvmlDevice_st *d, unsigned long long *r)
{
	*r = FK(d)->reasons;
	return 0;
}
static int fk_ecc(struct nvmlDevice_st *d, int t, int c, unsigned long long *n)
{
	*n = t == GS_NVML_MEMORY_ERROR_UNCORRECTED ? 0 : 3;
	return 0;
}
static int fk_remap(struct nvmlDevice_st *d, unsigned *a, unsigned *b, unsigned *c, unsigned *e)
{
	*a = 0;
	*b = 0;
	*c = 0;
	*e = 0;
	return 0;
}
static int fk_viol(struct nvmlDevice_st *d, int policy, struct gs_nvml_violation_time *t)
{
	FK(d)->viol_calls++;
	t->reference_time = 0;
	t->violation_time = policy == GS_NVML_PERF_POLICY_POWER ? 1500000000ULL : 0;
	return 0;
}
static int fk_procs(struct nvmlDevice_st *d, unsigned *n, struct gs_nvml_process_info *p)
{
	unsigned k = FK(d)->n_procs;
	if (*n < k) {
		*n = k;
		return GS_NVML_ERROR_INSUFFICIENT_SIZE;
	}
	for (unsigned i = 0; i < k; i++) {
		p[i].pid = FK(d)->pids[i];
		p[i].used_gpu_memory = FK(d)->proc_mem[i];
		p[i].gpu_instance_id = FK(d)->proc_gi[i];
	}
	*n = k;
	return 0;
}
static int fk_proc_util(struct nvmlDevice_st *d, struct gs_nvml_process_util *u, unsigned *n,
			unsigned long long last)
{
	unsigned k = FK(d)->n_procs;
	if (!k)
		return GS_NVML_ERROR_NOT_FOUND;
	if (!u || *n < k) {
		*n = k;
		return GS_NVML_ERROR_INSUFFICIENT_SIZE;
	}
	for (unsigned i = 0; i < k; i++) {
		u[i].pid = FK(d)->pids[i];
		u[i].time_stamp = last + 1000;
		u[i].sm_util = FK(d)->proc_sm[i];
		u[i].mem_util = FK(d)->proc_sm[i] / 2;
	}
	*n = k;
	return 0;
}
/* GPM: a sample holds its serial; metrics are the device's fixed values */
static int fk_gpm_alloc(struct nvmlGpmSample_st **s)
{
	*s = (struct nvmlGpmSample_st *)(intptr_t)(__atomic_add_fetch(&fake_gpm_serial, 1,
								      __ATOMIC_RELAXED) *
						   16);
	return 0;
}
static int fk_gpm_free(struct nvmlGpmSample_st *s)
{
	return 0;
}
static int fk_gpm_get(struct nvmlDevice_st *d, struct nvmlGpmSample_st *s)
{
	return 0;
}
static __thread struct fake_gpu *fk_gpm_last_dev;
static int fk_gpm_get_dev(struct nvmlDevice_st *d, struct nvmlGpmSample_st *s)
{
	fk_gpm_last_dev = FK(d);
	return 0;
}
static int fk_gpm_metrics(struct gs_nvml_gpm_metrics_get *m)
{
	const struct fake_gpu *g = fk_gpm_last_dev;
	if (m->sample1 == m->sample2 || !g)
		return 2;
	for (unsigned i = 0; i < m->num_metrics; i++) {
		unsigned id = m->metrics[i].metric_id;
		int pcie = id == GS_NVML_GPM_METRIC_PCIE_TX_PER_SEC ||
			   id == GS_NVML_GPM_METRIC_PCIE_RX_PER_SEC;
		m->metrics[i].nvml_return =
		    pcie && g->gpm_no_pcie ? GS_NVML_ERROR_NOT_SUPPORTED : 0;
		m->metrics[i].value = id == GS_NVML_GPM_METRIC_SM_UTIL		 ? g->gpm_sm
				      : id == GS_NVML_GPM_METRIC_DRAM_BW_UTIL	 ? g->gpm_dram
				      : id == GS_NVML_GPM_METRIC_ANY_TENSOR_UTIL ? g->gpm_tensor
				      : id == GS_NVML_GPM_METRIC_PCIE_TX_PER_SEC ? g->gpm_pcie_tx
				      : id == GS_NVML_GPM_METRIC_PCIE_RX_PER_SEC ? g->gpm_pcie_rx
										 : 1.0;
	}
	return 0;
}
static int fk_mig_mode(struct nvmlDevice_st *d, unsigned int *cur, unsigned int *pending)
{
	*cur = *pending = FK(d)->mig ? 1 : 0;
	return 0;
}
static int fk_mig_max(struct nvmlDevice_st *d, unsigned int *n)
{
	*n = FK(d)->mig ? 7 : 0;
	return 0;
}
static int fk_mig_handle(struct nvmlDevice_st *d, unsigned int i, struct nvmlDevice_st **m)
{
	if (i >= FAKE_MAX || fake_migs[i].parent != FK(d))
		return GS_NVML_ERROR_NOT_FOUND;
	*m = (struct nvmlDevice_st *)&fake_migs[i];
	return 0;
}
static int fk_gi(struct nvmlDevice_st *m, unsigned int *id)
{
	*id = FK(m)->gi;
	return FK(m)->parent ? 0 : 2 /* INVALID_ARGUMENT */;
}
static int fk_ci(struct nvmlDevice_st *m, unsigned int *id)
{
	*id = FK(m)->ci;
	return FK(m)->parent ? 0 : 2 /* INVALID_ARGUMENT */;
}
static int fk_gpm_mig_get(struct nvmlDevice_st *d, unsigned int gi, struct nvmlGpmSample_st *s)
{
	for (unsigned i = 0; i < FAKE_MAX; i++)
		if (fake_migs[i].parent == FK(d) && fake_migs[i].gi == gi) {
			fk_gpm_last_dev = &fake_migs[i];
			return 0;
		}
	return GS_NVML_ERROR_NOT_FOUND;
}
/* events: each registered device's XIDs once, then timeouts */
static __thread int fk_event_pos[FAKE_MAX];
static int fk_event_create(struct nvmlEventSet_st **s)
{
	*s = (struct nvmlEventSet_st *)0x10;
	memset(fk_event_pos, 0, sizeof(fk_event_pos));
	return 0;
}
static int fk_event_register(struct nvmlDevice_st *d, unsigned long long t,
			     struct nvmlEventSet_st *s)
{
	return 0;
}
static int fk_event_wait(struct nvmlEventSet_st *s, struct gs_nvml_event_data *e, unsigned ms)
{
	for (unsigned i = 0; i < fake_count; i++)
		if (fk_event_pos[i] < (int)fake_gpus[i].n_xids) {
			e->device = (struct nvmlDevice_st *)&fake_gpus[i];
			e->event_type = GS_NVML_EVENT_XID_CRITICAL;
			e->event_data = fake_gpus[i].xids[fk_event_pos[i]++];
			return 0;
		}
	return GS_NVML_ERROR_TIMEOUT;
}
static int fk_event_free(struct nvmlEventSet_st *s)
{
	return 0;
}

static struct gs_nvml_ops fake_nvml_ops(void)
{
	struct gs_nvml_ops o;
	memset(&o, 0, sizeof(o));
	o.init = fk_init;
	o.device_get_count = fk_count;
	o.device_get_handle_by_index = fk_handle;
	o.device_get_name = fk_name;
	o.device_get_uuid = fk_uuid;
	o.device_get_pci_info = fk_pci;
	o.system_get_driver_version = fk_driver;
	o.system_get_cuda_driver_version = fk_cuda;
	o.device_get_cuda_compute_capability = fk_cc;
	o.device_get_memory_info = fk_mem;
	o.device_get_utilization_rates = fk_util;
	o.device_get_clock_info = fk_clock;
	o.device_get_max_clock_info = fk_max_clock;
	o.device_get_power_usage = fk_power;
	o.device_get_enforced_power_limit = fk_limit;
	o.device_get_total_energy_consumption = fk_energy;
	o.device_get_temperature = fk_temp;
	o.device_get_temperature_threshold = fk_threshold;
	o.device_get_pcie_throughput = fk_pcie;
	o.device_get_max_pcie_link_generation = fk_gen_max;
	o.device_get_max_pcie_link_width = fk_width_max;
	o.device_get_curr_pcie_link_generation = fk_gen_max;
	o.device_get_curr_pcie_link_width = fk_width_max;
	o.device_get_clocks_event_reasons = fk_reasons;
	o.device_get_total_ecc_errors = fk_ecc;
	o.device_get_remapped_rows = fk_remap;
	o.device_get_violation_status = fk_viol;
	o.device_get_compute_running_processes = fk_procs;
	o.device_get_process_utilization = fk_proc_util;
	o.gpm_sample_alloc = fk_gpm_alloc;
	o.gpm_sample_free = fk_gpm_free;
	o.gpm_sample_get = fk_gpm_get_dev;
	o.gpm_metrics_get = fk_gpm_metrics;
	o.event_set_create = fk_event_create;
	o.device_register_events = fk_event_register;
	o.event_set_wait = fk_event_wait;
	o.event_set_free = fk_event_free;
	if (fake_mig_ops) {
		o.device_get_mig_mode = fk_mig_mode;
		o.device_get_max_mig_device_count = fk_mig_max;
		o.device_get_mig_device_handle_by_index = fk_mig_handle;
		o.device_get_gpu_instance_id = fk_gi;
		o.device_get_compute_instance_id = fk_ci;
		o.gpm_mig_sample_get = fk_gpm_mig_get;
	}
	(void)fk_gpm_get;
	return o;
}

/* Opens the fake as a system; 0 or -1 (err). */
static int fake_nvml_sys(struct gpu_sys *sys, char *err)
{
	struct gs_nvml_ops o = fake_nvml_ops();
	void *ctx;
	gpu_sys_init(sys);
	if (gpu_nvml_open_ops(&ctx, &o, err) < 0)
		return -1;
	return gpu_sys_add(sys, &gpu_vendor_nvml, ctx, err);
}

/* GPU 0 in MIG mode with two instances at MIG indices 0 and 2 (1 is a gap):
 * GPU instance 1 (3g.71gb, busy: SM 40%, DRAM 85%) and 5 (1g.18gb, SM 3%),
 * pid 4242 running on instance 5. */
static inline void fake_mig_setup(void)
{
	memset(fake_migs, 0, sizeof(fake_migs));
	fake_mig_ops = 1;
	fake_gpus[0].mig = 1;
	fake_gpus[0].proc_gi[0] = 5;
	fake_migs[0] = (struct fake_gpu){.name = "NVIDIA H200 MIG 3g.71gb",
					 .uuid = "MIG-aaaaaaaa-fake",
					 .mem_total = 71ULL << 30,
					 .mem_used = 1ULL << 30,
					 .gpm_sm = 40,
					 .gpm_dram = 85,
					 .parent = &fake_gpus[0],
					 .gi = 1,
					 .ci = 0};
	fake_migs[2] = (struct fake_gpu){.name = "NVIDIA H200 MIG 1g.18gb",
					 .uuid = "MIG-bbbbbbbb-fake",
					 .mem_total = 18ULL << 30,
					 .mem_used = 512ULL << 20,
					 .gpm_sm = 3,
					 .gpm_dram = 1,
					 .parent = &fake_gpus[0],
					 .gi = 5,
					 .ci = 0};
}

/* A plausible H200 running a 4-block kernel (the seed's contrast). */
static void fake_small_grid(struct fake_gpu *g)
{
	memset(g, 0, sizeof(*g));
	g->util = 100;
	g->mem_util = 1;
	g->sm_mhz = 1980;
	g->mem_mhz = 3201;
	g->power_mw = 151000;
	g->temp = 41;
	g->mem_total = 150ULL << 30;
	g->mem_used = 1ULL << 30;
	g->energy_mj = 123456789;
	g->gpm_sm = 2.5;
	g->gpm_dram = 0.1;
	g->gpm_tensor = 0;
	g->n_procs = 1;
	g->pids[0] = 4242;
	g->proc_mem[0] = 512ULL << 20;
	g->proc_sm[0] = 100;
}

#endif
