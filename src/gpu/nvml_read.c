/*
 * nvml_read.c - the NVML backend's readings: performance samples (with
 * GPM), health counters (with XID events) and processes (gpu.h; the
 * context is in nvml_ctx.h).
 */
#include <stdlib.h>
#include <string.h>

#include "gpu/nvml_ctx.h"

static struct nvmlDevice_st *handle(struct nvml_ctx *c, unsigned dev)
{
	return dev < c->n_dev ? c->dev[dev].h : NULL;
}

/* The GPM metrics we read and where they go. */
static const struct {
	unsigned id;
	enum gpu_metric m;
} gpm_map[] = {
    {GS_NVML_GPM_METRIC_SM_UTIL, GPU_M_GPM_SM},
    {GS_NVML_GPM_METRIC_SM_OCCUPANCY, GPU_M_GPM_OCC},
    {GS_NVML_GPM_METRIC_DRAM_BW_UTIL, GPU_M_GPM_DRAM},
    {GS_NVML_GPM_METRIC_ANY_TENSOR_UTIL, GPU_M_GPM_TENSOR},
    {GS_NVML_GPM_METRIC_FP32_UTIL, GPU_M_GPM_FP32},
    {GS_NVML_GPM_METRIC_FP16_UTIL, GPU_M_GPM_FP16},
    {GS_NVML_GPM_METRIC_FP64_UTIL, GPU_M_GPM_FP64},
};
#define N_GPM (sizeof(gpm_map) / sizeof(gpm_map[0]))

/* GPM's PCIe throughput (MiB/s over the whole window): the legacy query
 * (nvmlDeviceGetPcieThroughput) samples 20 ms per direction and made most of
 * a round's 45 ms on the H200 */
#define GPM_PCIE_TX N_GPM
#define GPM_PCIE_RX (N_GPM + 1)
#define MIB_TO_MB (1048576.0 / 1e6)

int nvml_gpm_ready(struct nvml_ctx *c, struct nvml_dev *nd)
{
	const struct gs_nvml_ops *o = &c->ops;
	if (!o->gpm_sample_alloc || !o->gpm_sample_get || !o->gpm_metrics_get)
		return 0;
	if (!nd->gpm_checked) {
		nd->gpm_checked = 1;
		nd->gpm_ok = 1;
		if (o->gpm_query_device_support) {
			struct gs_nvml_gpm_support s = {GS_NVML_GPM_SUPPORT_VERSION, 0};
			if (!NVML_OK(o->gpm_query_device_support(nd->h, &s)) ||
			    !s.is_supported_device)
				nd->gpm_ok = 0;
		}
		if (nd->gpm_ok && (!NVML_OK(o->gpm_sample_alloc(&nd->gpm_prev)) ||
				   !NVML_OK(o->gpm_sample_alloc(&nd->gpm_cur))))
			nd->gpm_ok = 0;
	}
	return nd->gpm_ok;
}

int nvml_gpm_window(struct nvml_ctx *c, struct nvmlGpmSample_st *prev, struct nvmlGpmSample_st *cur,
		    int pcie, struct gpu_sample *out)
{
	struct gs_nvml_gpm_metrics_get *mg = calloc(1, sizeof(*mg));
	int got_pcie = -1;
	if (!mg)
		return -1;
	mg->version = GS_NVML_GPM_METRICS_GET_VERSION;
	mg->num_metrics = N_GPM + (pcie ? 2 : 0);
	mg->sample1 = prev;
	mg->sample2 = cur;
	for (unsigned i = 0; i < N_GPM; i++)
		mg->metrics[i].metric_id = gpm_map[i].id;
	mg->metrics[GPM_PCIE_TX].metric_id = GS_NVML_GPM_METRIC_PCIE_TX_PER_SEC;
	mg->metrics[GPM_PCIE_RX].metric_id = GS_NVML_GPM_METRIC_PCIE_RX_PER_SEC;
	if (NVML_OK(c->ops.gpm_metrics_get(mg))) {
		got_pcie = 0;
		for (unsigned i = 0; i < N_GPM; i++)
			if (mg->metrics[i].nvml_return == GS_NVML_SUCCESS)
				gpu_sample_set(out, gpm_map[i].m, mg->metrics[i].value);
		if (pcie && mg->metrics[GPM_PCIE_TX].nvml_return == GS_NVML_SUCCESS &&
		    mg->metrics[GPM_PCIE_RX].nvml_return == GS_NVML_SUCCESS) {
			gpu_sample_set(out, GPU_M_PCIE_TX,
				       mg->metrics[GPM_PCIE_TX].value * MIB_TO_MB);
			gpu_sample_set(out, GPU_M_PCIE_RX,
				       mg->metrics[GPM_PCIE_RX].value * MIB_TO_MB);
			got_pcie = 1;
		}
	}
	free(mg);
	return got_pcie;
}

/* Takes a GPM sample and, when a previous one exists, fills the metrics
 * over the window between the two. 1: PCIe throughput is GPM's to give
 * this round (filled, or unknown in the first round: no window yet). */
static int sample_gpm(struct nvml_ctx *c, struct nvml_dev *nd, int pcie, struct gpu_sample *out)
{
	struct nvmlGpmSample_st *tmp;
	int pcie_gpm = pcie && !nd->gpm_pcie_bad;

	if (!nvml_gpm_ready(c, nd))
		return 0;
	if (!NVML_OK(c->ops.gpm_sample_get(nd->h, nd->gpm_cur))) {
		nd->gpm_have_prev = 0;
		return 0;
	}
	if (nd->gpm_have_prev) {
		int got = nvml_gpm_window(c, nd->gpm_prev, nd->gpm_cur, pcie_gpm, out);
		if (pcie_gpm && got == 0)
			nd->gpm_pcie_bad =
			    1; /* GPM has no PCIe here: the legacy query from now on */
		if (pcie_gpm && got <= 0)
			pcie_gpm = 0;
	}
	/* the current sample becomes the baseline of the next call */
	tmp = nd->gpm_prev;
	nd->gpm_prev = nd->gpm_cur;
	nd->gpm_cur = tmp;
	nd->gpm_have_prev = 1;
	return pcie_gpm;
}

static void sample_basic(const struct gs_nvml_ops *o, struct nvmlDevice_st *d,
			 struct gpu_sample *out)
{
	unsigned int u;
	unsigned long long ull;
	if (o->device_get_utilization_rates) {
		struct gs_nvml_utilization ut;
		if (NVML_OK(o->device_get_utilization_rates(d, &ut))) {
			gpu_sample_set(out, GPU_M_GPU_UTIL, ut.gpu);
			gpu_sample_set(out, GPU_M_MEM_UTIL, ut.memory);
		}
	}
	if (o->device_get_clock_info) {
		if (NVML_OK(o->device_get_clock_info(d, GS_NVML_CLOCK_SM, &u)))
			gpu_sample_set(out, GPU_M_SM_CLOCK, u);
		if (NVML_OK(o->device_get_clock_info(d, GS_NVML_CLOCK_MEM, &u)))
			gpu_sample_set(out, GPU_M_MEM_CLOCK, u);
	}
	if (o->device_get_power_usage && NVML_OK(o->device_get_power_usage(d, &u)))
		gpu_sample_set(out, GPU_M_POWER, u / 1000.0);
	if (o->device_get_temperature &&
	    NVML_OK(o->device_get_temperature(d, GS_NVML_TEMPERATURE_GPU, &u)))
		gpu_sample_set(out, GPU_M_TEMP, u);
	if (o->device_get_memory_info) {
		struct gs_nvml_memory m;
		if (NVML_OK(o->device_get_memory_info(d, &m))) {
			gpu_sample_set(out, GPU_M_MEM_USED, (double)m.used);
			gpu_sample_set(out, GPU_M_MEM_TOTAL, (double)m.total);
		}
	}
	if (o->device_get_clocks_event_reasons &&
	    NVML_OK(o->device_get_clocks_event_reasons(d, &ull)))
		gpu_sample_set(out, GPU_M_CLOCK_EVENTS, (double)ull);
	if (o->device_get_enforced_power_limit &&
	    NVML_OK(o->device_get_enforced_power_limit(d, &u)))
		gpu_sample_set(out, GPU_M_POWER_LIMIT, u / 1000.0);
}

int nvml_sample(void *ctx, unsigned dev, unsigned want, struct gpu_sample *out)
{
	struct nvml_ctx *c = ctx;
	const struct gs_nvml_ops *o = &c->ops;
	struct nvmlDevice_st *d = handle(c, dev);
	unsigned int u;

	memset(out, 0, sizeof(*out));
	if (!d)
		return -1;
	if (want & GPU_WANT_BASIC)
		sample_basic(o, d, out);
	unsigned long long mj;
	if ((want & GPU_WANT_ENERGY) && o->device_get_total_energy_consumption &&
	    NVML_OK(o->device_get_total_energy_consumption(d, &mj)))
		gpu_sample_set(out, GPU_M_ENERGY, mj / 1000.0);
	int pcie_done = 0;
	if (want & GPU_WANT_GPM)
		pcie_done = sample_gpm(c, &c->dev[dev], (want & GPU_WANT_PCIE) != 0, out);
	if ((want & GPU_WANT_PCIE) && !pcie_done && o->device_get_pcie_throughput) {
		/* NVML reports KB/s over a 20 ms window */
		if (NVML_OK(o->device_get_pcie_throughput(d, GS_NVML_PCIE_UTIL_TX_BYTES, &u)))
			gpu_sample_set(out, GPU_M_PCIE_TX, u / 1000.0);
		if (NVML_OK(o->device_get_pcie_throughput(d, GS_NVML_PCIE_UTIL_RX_BYTES, &u)))
			gpu_sample_set(out, GPU_M_PCIE_RX, u / 1000.0);
	}
	return 0;
}

/* Registers every device for XID events once; a driver without events
 * (or a device that refuses) leaves that device's XID count unknown. */
static void events_open(struct nvml_ctx *c)
{
	const struct gs_nvml_ops *o = &c->ops;
	c->events_tried = 1;
	if (!o->event_set_create || !o->device_register_events || !o->event_set_wait ||
	    !NVML_OK(o->event_set_create(&c->events))) {
		c->events = NULL;
		return;
	}
	for (unsigned i = 0; i < c->n_dev; i++)
		if (c->dev[i].h && NVML_OK(o->device_register_events(
				       c->dev[i].h, GS_NVML_EVENT_XID_CRITICAL, c->events)))
			c->dev[i].xid_registered = 1;
}

/* Drains pending events without waiting (at most 256 a call). */
static void events_drain(struct nvml_ctx *c)
{
	struct gs_nvml_event_data e;
	for (int k = 0; c->events && k < 256; k++) {
		memset(&e, 0, sizeof(e));
		if (!NVML_OK(c->ops.event_set_wait(c->events, &e, 0)))
			break;
		if (!(e.event_type & GS_NVML_EVENT_XID_CRITICAL))
			continue;
		for (unsigned i = 0; i < c->n_dev; i++)
			if (c->dev[i].h == e.device) {
				c->dev[i].xid_count++;
				c->dev[i].xid_last = e.event_data;
			}
	}
}

static void health_violations(const struct gs_nvml_ops *o, struct nvmlDevice_st *d,
			      struct gpu_sample *out)
{
	static const struct {
		int policy;
		enum gpu_metric m;
	} pol[] = {
	    {GS_NVML_PERF_POLICY_POWER, GPU_M_VIOL_POWER},
	    {GS_NVML_PERF_POLICY_THERMAL, GPU_M_VIOL_THERMAL},
	    {GS_NVML_PERF_POLICY_SYNC_BOOST, GPU_M_VIOL_SYNC_BOOST},
	    {GS_NVML_PERF_POLICY_BOARD_LIMIT, GPU_M_VIOL_BOARD},
	    {GS_NVML_PERF_POLICY_LOW_UTILIZATION, GPU_M_VIOL_LOW_UTIL},
	    {GS_NVML_PERF_POLICY_RELIABILITY, GPU_M_VIOL_RELIABILITY},
	};
	if (!o->device_get_violation_status)
		return;
	for (unsigned i = 0; i < sizeof(pol) / sizeof(pol[0]); i++) {
		struct gs_nvml_violation_time t;
		if (NVML_OK(o->device_get_violation_status(d, pol[i].policy, &t)))
			gpu_sample_set(out, pol[i].m, t.violation_time / 1e9);
	}
}

int nvml_health(void *ctx, unsigned dev, struct gpu_sample *out)
{
	struct nvml_ctx *c = ctx;
	const struct gs_nvml_ops *o = &c->ops;
	struct nvmlDevice_st *d = handle(c, dev);
	unsigned long long ull;
	unsigned int a, b, e, f;

	if (!d)
		return -1;
	if (o->device_get_total_ecc_errors) {
		if (NVML_OK(o->device_get_total_ecc_errors(d, GS_NVML_MEMORY_ERROR_CORRECTED,
							   GS_NVML_VOLATILE_ECC, &ull)))
			gpu_sample_set(out, GPU_M_ECC_CORR, (double)ull);
		if (NVML_OK(o->device_get_total_ecc_errors(d, GS_NVML_MEMORY_ERROR_UNCORRECTED,
							   GS_NVML_VOLATILE_ECC, &ull)))
			gpu_sample_set(out, GPU_M_ECC_UNCORR, (double)ull);
	}
	if (o->device_get_remapped_rows &&
	    NVML_OK(o->device_get_remapped_rows(d, &a, &b, &e, &f))) {
		gpu_sample_set(out, GPU_M_REMAP_CORR, a);
		gpu_sample_set(out, GPU_M_REMAP_UNC, b);
		gpu_sample_set(out, GPU_M_REMAP_PENDING, e ? 1 : 0);
		gpu_sample_set(out, GPU_M_REMAP_FAILURE, f ? 1 : 0);
	}
	if (o->device_get_pcie_replay_counter && NVML_OK(o->device_get_pcie_replay_counter(d, &a)))
		gpu_sample_set(out, GPU_M_PCIE_REPLAY, a);
	if (o->device_get_curr_pcie_link_generation && o->device_get_curr_pcie_link_width &&
	    NVML_OK(o->device_get_curr_pcie_link_generation(d, &a)) &&
	    NVML_OK(o->device_get_curr_pcie_link_width(d, &b))) {
		gpu_sample_set(out, GPU_M_PCIE_GEN, a);
		gpu_sample_set(out, GPU_M_PCIE_WIDTH, b);
	}
	health_violations(o, d, out);
	if (!c->events_tried)
		events_open(c);
	events_drain(c);
	if (c->dev[dev].xid_registered) {
		gpu_sample_set(out, GPU_M_XID_COUNT, (double)c->dev[dev].xid_count);
		if (c->dev[dev].xid_count)
			gpu_sample_set(out, GPU_M_XID_LAST, (double)c->dev[dev].xid_last);
	}
	return 0;
}

/* Per-process SM and memory utilization since the last call; 0 when the
 * query is not supported (the processes' values stay unknown). */
static int proc_util(struct nvml_ctx *c, unsigned dev, struct gpu_procs *out)
{
	const struct gs_nvml_ops *o = &c->ops;
	struct nvml_dev *nd = &c->dev[dev];
	unsigned int n = 0;
	int ret;
	if (!o->device_get_process_utilization)
		return 0;
	ret = o->device_get_process_utilization(nd->h, NULL, &n, nd->proc_last_seen_us);
	if (ret == GS_NVML_ERROR_NOT_FOUND)
		n = 0; /* no process ran since the last call: all 0 */
	else if (ret != GS_NVML_ERROR_INSUFFICIENT_SIZE && ret != GS_NVML_SUCCESS)
		return 0;
	if (n > 1024)
		n = 1024;
	struct gs_nvml_process_util *u = NULL;
	if (n) {
		u = calloc(n, sizeof(*u));
		if (!u)
			return 0;
		ret = o->device_get_process_utilization(nd->h, u, &n, nd->proc_last_seen_us);
		if (ret != GS_NVML_SUCCESS) {
			free(u);
			return ret == GS_NVML_ERROR_NOT_FOUND;
		}
	}
	for (unsigned k = 0; k < out->n; k++) {
		struct gpu_proc *p = &out->p[k];
		/* several samples of one pid: the newest counts */
		unsigned long long best = 0;
		p->sm_util = p->mem_util = 0;
		for (unsigned i = 0; i < n; i++)
			if (u[i].pid == p->pid && u[i].time_stamp >= best) {
				best = u[i].time_stamp;
				p->sm_util = u[i].sm_util;
				p->mem_util = u[i].mem_util;
			}
		p->valid |= GPU_P_SM | GPU_P_MEMBW;
	}
	for (unsigned i = 0; i < n; i++)
		if (u[i].time_stamp > nd->proc_last_seen_us)
			nd->proc_last_seen_us = u[i].time_stamp;
	free(u);
	return 1;
}

int nvml_processes(void *ctx, unsigned dev, struct gpu_procs *out)
{
	struct nvml_ctx *c = ctx;
	const struct gs_nvml_ops *o = &c->ops;
	struct nvmlDevice_st *d = handle(c, dev);
	unsigned int cnt = GPU_MAX_PROCS;
	int ret, mig;

	memset(out, 0, sizeof(*out));
	if (!d)
		return -1;
	if (o->device_get_compute_running_processes) {
		/* twice the room we announce: a driver with a larger struct cannot overflow us */
		struct gs_nvml_process_info pi[GPU_MAX_PROCS * 2];
		ret = o->device_get_compute_running_processes(d, &cnt, pi);
		if (ret != GS_NVML_SUCCESS && ret != GS_NVML_ERROR_INSUFFICIENT_SIZE)
			return 0;
		unsigned int mc = 0, mp = 0;
		mig = o->device_get_mig_mode && NVML_OK(o->device_get_mig_mode(d, &mc, &mp)) && mc;
		/* on INSUFFICIENT_SIZE cnt is the needed size and pi is unfilled */
		for (unsigned i = 0; ret == GS_NVML_SUCCESS && i < cnt && i < GPU_MAX_PROCS; i++) {
			struct gpu_proc *p = &out->p[out->n++];
			p->pid = pi[i].pid;
			p->mem_bytes = pi[i].used_gpu_memory;
			/* NVML_VALUE_NOT_AVAILABLE: not allowed to see it */
			p->valid = pi[i].used_gpu_memory != ~0ULL ? GPU_P_MEM : 0;
			if (mig) {
				p->gpu_instance_id = pi[i].gpu_instance_id;
				p->valid |= GPU_P_GI;
			}
		}
	} else if (o->device_get_compute_running_processes_v1) {
		struct gs_nvml_process_info_v1 pi[GPU_MAX_PROCS * 2];
		ret = o->device_get_compute_running_processes_v1(d, &cnt, pi);
		if (ret != GS_NVML_SUCCESS && ret != GS_NVML_ERROR_INSUFFICIENT_SIZE)
			return 0;
		for (unsigned i = 0; ret == GS_NVML_SUCCESS && i < cnt && i < GPU_MAX_PROCS; i++) {
			struct gpu_proc *p = &out->p[out->n++];
			p->pid = pi[i].pid;
			p->mem_bytes = pi[i].used_gpu_memory;
			/* NVML_VALUE_NOT_AVAILABLE: not allowed to see it */
			p->valid = pi[i].used_gpu_memory != ~0ULL ? GPU_P_MEM : 0;
		}
	} else {
		return 0;
	}
	out->total = cnt;
	out->valid = 1;
	proc_util(c, dev, out);
	return 0;
}
