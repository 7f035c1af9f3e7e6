/*
 * gpu.h - the vendor-neutral GPU layer (nvtop's struct gpu_vendor model).
 *
 * A vendor backend is one ops table (struct gpu_vendor) over its own
 * context; it is registered once (gpu_register_vendor) and opened per user
 * (struct gpu_sys), so two users (serve's sampler and a doctor run, two
 * tests on two threads) never share mutable state. NVML + GPM is the first
 * vendor (src/gpu/nvml.c); its raw NVML function table stays private to it
 * (nvml_abi.h, which only the backend and its tests include).
 *
 * Consumers (record's sampler, doctor, monitor, serve) see only what is
 * declared here: static info, dynamic samples (values indexed by the metric
 * registry, metrics.h), health counters, processes.
 *
 * Invariants:
 *  1. every value has a validity bit; a clear bit means unknown, and an
 *     unknown value is shown as unknown, never as 0;
 *  2. backends only query: nothing changes clocks, power limits,
 *     persistence, compute mode, MIG layout or ECC state;
 *  3. functions return 0 or -1; on -1 err (GS_ERR_LEN bytes, may be NULL)
 *     holds a lowercase one-line message;
 *  4. at most GPU_MAX_DEVICES devices are used, whatever a driver reports.
 */
#ifndef GPUSCOPE_GPU_H
#define GPUSCOPE_GPU_H

#include <stdint.h>

#include "gpu/metrics.h"

#define GPU_MAX_DEVICES 64
#define GPU_MAX_VENDORS 4
#define GPU_MAX_PROCS 64

/* Validity bits of struct gpu_static */
#define GPU_S_NAME (1u << 0)
#define GPU_S_UUID (1u << 1)
#define GPU_S_PCI (1u << 2)
#define GPU_S_DRIVER (1u << 3)
#define GPU_S_CUDA_DRIVER (1u << 4)
#define GPU_S_CC (1u << 5)
#define GPU_S_SM_COUNT (1u << 6)
#define GPU_S_MEM_TOTAL (1u << 7)
#define GPU_S_PCIE_MAX (1u << 8)
#define GPU_S_PCIE_CUR (1u << 9)
#define GPU_S_MIG (1u << 10)
#define GPU_S_PERSISTENCE (1u << 11)
#define GPU_S_SLOWDOWN_TEMP (1u << 12)
#define GPU_S_MEM_BUS_WIDTH (1u << 13)
#define GPU_S_MAX_MEM_CLOCK (1u << 14)
#define GPU_S_MAX_SM_CLOCK (1u << 15)
#define GPU_S_SHUTDOWN_TEMP (1u << 16)
#define GPU_S_ECC_MODE (1u << 17)
#define GPU_S_ARCH (1u << 18)		  /* arch: AMD's gfx target ("gfx90a") */
#define GPU_S_HOTSPOT_SLOWDOWN (1u << 19) /* AMD: the junction temperature it throttles at */

/* What does not change while a program runs (PCIe cur: at open time). */
struct gpu_static {
	char vendor[16]; /* "nvidia", "amd", "intel" */
	char name[96], uuid[96], pci_bus_id[32], driver_version[32];
	int cuda_driver_version; /* 1000 * major + 10 * minor, e.g. 13000 */
	int cc_major, cc_minor;
	unsigned sm_count;
	unsigned long long mem_total; /* bytes */
	unsigned pcie_max_gen, pcie_max_width, pcie_cur_gen, pcie_cur_width;
	int mig_mode;	 /* current mode: 1 enabled, 0 disabled */
	int persistence; /* 1 enabled, 0 disabled */
	int ecc_enabled;
	unsigned slowdown_temp_c, shutdown_temp_c;
	unsigned long long mem_bus_width_bits, max_mem_clock_mhz, max_sm_clock_mhz;
	char arch[32];		     /* GPU_S_ARCH */
	unsigned hotspot_slowdown_c; /* GPU_S_HOTSPOT_SLOWDOWN */
	unsigned valid;		     /* GPU_S_* */
};

/* One reading of one device: values by metric id; bit m of valid = metric m known. */
struct gpu_sample {
	int64_t real_ns; /* CLOCK_REALTIME when it was read (set by the sampler) */
	double v[GPU_M_COUNT];
	uint64_t valid;
};

static inline int gpu_sample_has(const struct gpu_sample *s, enum gpu_metric m)
{
	return (s->valid >> m) & 1;
}
static inline void gpu_sample_set(struct gpu_sample *s, enum gpu_metric m, double v)
{
	s->v[m] = v;
	s->valid |= 1ull << m;
}

/* What gpu_sample() reads (the slow groups can be left out). */
#define GPU_WANT_BASIC 1u  /* utilization, clocks, power, temperature, memory, reasons */
#define GPU_WANT_PCIE 2u   /* PCIe throughput: ~20 ms per direction on NVML */
#define GPU_WANT_GPM 4u	   /* GPM SM/DRAM/pipe activity (two samples make one value) */
#define GPU_WANT_ENERGY 8u /* the energy counter: ~3 ms a read on the H200 */
#define GPU_WANT_ALL (GPU_WANT_BASIC | GPU_WANT_PCIE | GPU_WANT_GPM | GPU_WANT_ENERGY)

/* Validity bits of struct gpu_proc */
#define GPU_P_MEM (1u << 0)
#define GPU_P_SM (1u << 1)
#define GPU_P_MEMBW (1u << 2)
#define GPU_P_GI (1u << 3) /* MIG GPU instance id */

struct gpu_proc {
	uint32_t pid;
	unsigned long long mem_bytes;
	double sm_util, mem_util; /* percent, over the last sampling period */
	unsigned gpu_instance_id;
	unsigned valid; /* GPU_P_* */
};

struct gpu_procs {
	unsigned n;	/* entries in p[] */
	unsigned total; /* processes the driver reported (may exceed n) */
	int valid;	/* 0: the list could not be read (unknown, not empty) */
	struct gpu_proc p[GPU_MAX_PROCS];
};

/* MIG: the instances of a device in MIG mode, with the labels
 * dcgm-exporter gives them (GPU_I_ID, GPU_I_PROFILE) and the MIG device's
 * own UUID, and what one instance reads on its own. */
#define GPU_MAX_MIG 8 /* Hopper: 7 instances at most */
struct gpu_mig {
	unsigned gi_id;	     /* GPU instance id (GPU_I_ID) */
	int ci_id;	     /* compute instance id; -1 unknown */
	char profile[32];    /* "1g.18gb" (GPU_I_PROFILE); "" unknown */
	char uuid[96];	     /* "MIG-..."; "" unknown */
	struct gpu_sample s; /* GPU_M_MEM_USED/TOTAL and GPU_M_GPM_* of this instance */
};
struct gpu_migs {
	unsigned n;
	int valid; /* 1: the device is in MIG mode and its instances were listed */
	struct gpu_mig m[GPU_MAX_MIG];
};

/*
 * A vendor backend. ctx is the backend's own state, made by init and
 * passed to every other op; ops may be called from one thread at a time
 * per ctx. Any op but init, shutdown and device_count may be NULL (its
 * values stay unknown).
 */
struct gpu_vendor {
	const char *name;
	/* Opens the vendor library. On error *ctx is NULL, err says why; an
	 * empty err means "no such device here" and is not reported. */
	int (*init)(void **ctx, char *err);
	/* init over kernel files under root instead of "/" (the sysfs vendors;
	 * tests point it at a fixture tree); NULL: the vendor has no files. */
	int (*init_root)(void **ctx, const char *root, char *err);
	void (*shutdown)(void *ctx);
	/* Devices the backend can use (capped at GPU_MAX_DEVICES). */
	int (*device_count)(void *ctx, unsigned *n);
	int (*static_info)(void *ctx, unsigned dev, struct gpu_static *out);
	/* Performance metrics of the GPU_WANT_* groups in want. */
	int (*sample)(void *ctx, unsigned dev, unsigned want, struct gpu_sample *out);
	/* Health counters: ECC, remapped rows, PCIe link and replays, throttle
	 * time, XIDs seen since init (sets their metrics in out). */
	int (*health)(void *ctx, unsigned dev, struct gpu_sample *out);
	int (*processes)(void *ctx, unsigned dev, struct gpu_procs *out);
	/* MIG instances (out->valid 0 when the device is not in MIG mode); GPM
	 * values need two calls, like sample's */
	int (*mig)(void *ctx, unsigned dev, struct gpu_migs *out);
	/* The backend's last error or note (e.g. a capped device count), "" if none. */
	const char *(*last_error)(void *ctx);
};

/* Adds v to the process's vendor list (the built-in ones are added on
 * first use). Call before opening; returns -1 when the list is full. */
int gpu_register_vendor(const struct gpu_vendor *v);

/* The NVML + GPM backend (src/gpu/nvml.c). */
extern const struct gpu_vendor gpu_vendor_nvml;
/* amdgpu over sysfs, hwmon and DRM fdinfo (src/gpu/amdgpu.c). */
extern const struct gpu_vendor gpu_vendor_amdgpu;
/* Intel i915 and xe over sysfs, hwmon and DRM fdinfo (src/gpu/intel.c). */
extern const struct gpu_vendor gpu_vendor_intel;

/* The opened vendors of one user and their devices, numbered 0..n-1 in
 * vendor order. */
struct gpu_sys {
	unsigned n_vendors, n_devices;
	struct {
		const struct gpu_vendor *v;
		void *ctx;
		unsigned first, count;
	} vend[GPU_MAX_VENDORS];
};

/*
 * Opens every registered vendor. Returns 0 when at least one opened (even
 * with no device); -1 with err holding each vendor's reason otherwise.
 * gpu_sys_close() is safe after either.
 */
int gpu_sys_open(struct gpu_sys *s, char *err);
/* The same with the kernel files read under root (NULL: gpu_sys_open); with
 * a root only the vendors that read kernel files are opened. */
int gpu_sys_open_root(struct gpu_sys *s, const char *root, char *err);
/* An empty system (then gpu_sys_add). */
void gpu_sys_init(struct gpu_sys *s);
/* Adds an opened backend context (tests: NVML over a fake table); s owns ctx. */
int gpu_sys_add(struct gpu_sys *s, const struct gpu_vendor *v, void *ctx, char *err);
void gpu_sys_close(struct gpu_sys *s);

static inline unsigned gpu_count(const struct gpu_sys *s)
{
	return s->n_devices;
}
/* -1 for a bad device index; otherwise 0 with unknown fields' bits clear. */
int gpu_static_info(struct gpu_sys *s, unsigned dev, struct gpu_static *out);
int gpu_sample(struct gpu_sys *s, unsigned dev, unsigned want, struct gpu_sample *out);
int gpu_health(struct gpu_sys *s, unsigned dev, struct gpu_sample *out);
int gpu_processes(struct gpu_sys *s, unsigned dev, struct gpu_procs *out);
int gpu_mig(struct gpu_sys *s, unsigned dev, struct gpu_migs *out);
/* The notes of every vendor ("" if none); buf of len bytes. */
const char *gpu_last_error(struct gpu_sys *s, char *buf, unsigned len);

/* Copies the static values that are metrics (GPU_MF_STATIC) into out. */
void gpu_static_to_sample(const struct gpu_static *st, struct gpu_sample *out);

#endif
