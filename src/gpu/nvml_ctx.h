/*
 * nvml_ctx.h - the NVML backend's context, shared by its two files
 * (nvml.c: loading, devices, static info; nvml_read.c: samples, health,
 * processes). Private to them.
 *
 * Every piece of state the backend keeps (GPM sample pairs, the process
 * utilization high-water mark, the XID event set and counts, the last
 * error) lives here, one context per opener: the library is reentrant.
 */
#ifndef GPUSCOPE_NVML_CTX_H
#define GPUSCOPE_NVML_CTX_H

#include "gpu/gpu.h"
#include "gpu/nvml_abi.h"
#include "util/error.h"

/* the GPM sample pair of one MIG GPU instance */
struct nvml_mig_gpm {
	int used, have_prev;
	unsigned gi;
	struct nvmlGpmSample_st *prev, *cur;
};

struct nvml_dev {
	struct nvmlDevice_st *h; /* NULL: the handle could not be had */
	int gpm_checked, gpm_ok, gpm_have_prev;
	int gpm_pcie_bad; /* GPM gave no PCIe throughput: nvmlDeviceGetPcieThroughput */
	struct nvmlGpmSample_st *gpm_prev, *gpm_cur;
	unsigned long long proc_last_seen_us;
	struct nvml_mig_gpm mig_gpm[GPU_MAX_MIG];
	int xid_registered;
	unsigned long long xid_count, xid_last;
};

struct nvml_ctx {
	void *lib; /* NULL for a caller's ops table */
	struct gs_nvml_ops ops;
	unsigned n_dev;
	struct nvml_dev dev[GPU_MAX_DEVICES];
	int events_tried;
	struct nvmlEventSet_st *events;
	int cuda_ver, cuda_ver_read; /* the CUDA driver's version; read once */
	char note[GS_ERR_LEN];	     /* last error or note, "" if none */
	char strerr[48];
};

/* NVML's message for ret, or "nvml error N" (kept in c->strerr). */
const char *nvml_strerror(struct nvml_ctx *c, int ret);

int nvml_sample(void *ctx, unsigned dev, unsigned want, struct gpu_sample *out);
int nvml_health(void *ctx, unsigned dev, struct gpu_sample *out);
int nvml_processes(void *ctx, unsigned dev, struct gpu_procs *out);
int nvml_mig(void *ctx, unsigned dev, struct gpu_migs *out);

/* GPM (nvml_read.c): the device's sample pair allocated once (0: no GPM
 * here); the metrics over prev..cur (PCIe too when pcie: 1 given, 0 not
 * it, -1 no metrics this time). */
int nvml_gpm_ready(struct nvml_ctx *c, struct nvml_dev *nd);
int nvml_gpm_window(struct nvml_ctx *c, struct nvmlGpmSample_st *prev, struct nvmlGpmSample_st *cur,
		    int pcie, struct gpu_sample *out);

#define NVML_OK(call) ((call) == GS_NVML_SUCCESS)

#endif
