/*
 * sysfs.h - what the kernel-file vendors (amdgpu.c, intel.c) share: reading
 * one value from a sysfs, hwmon or procfs file under a root prefix (tests
 * point it at a fixture tree; "/" otherwise), finding a card's hwmon
 * directory, the PCIe link files every PCI device has, and the DRM fdinfo
 * clients of one device (the kernel's drm-usage-stats keys: per-process
 * engine busy time and memory, Documentation/gpu/drm-usage-stats.rst).
 *
 * Every reader returns 1 with the value, 0 when the file is absent or does
 * not hold a value of that shape (the value stays unknown, never 0).
 */
#ifndef GPUSCOPE_GPU_SYSFS_H
#define GPUSCOPE_GPU_SYSFS_H

#include <stddef.h>
#include <stdint.h>

#include "gpu/gpu.h"
#include "util/error.h"

#define SYSFS_PATH 1024

/* root + path into out ("/" or NULL root: path itself). 0, or -1 when too long. */
int sysfs_path(char *out, size_t cap, const char *root, const char *path);

/* The first line of root/path (newline removed), at most cap-1 bytes. */
int sysfs_str(const char *root, const char *path, char *out, size_t cap);
/* An unsigned decimal (or 0x hex) integer, the whole first token. */
int sysfs_u64(const char *root, const char *path, unsigned long long *out);
/* A file's whole text (at most cap-1 bytes, NUL-terminated); -1 absent. */
long sysfs_text(const char *root, const char *path, char *out, size_t cap);
/* Whether root/path exists. */
int sysfs_exists(const char *root, const char *path);

/* "KEY=value" of a uevent-style text, into out. */
int sysfs_kv(const char *text, const char *key, char *out, size_t cap);

/* dir/hwmon/hwmonN (relative to root) of a device directory, into out. */
int sysfs_hwmon(const char *root, const char *dev_dir, char *out, size_t cap);

/* PCIe generation of a link speed text ("16.0 GT/s PCIe", "8 GT/s"); 0 unknown. */
unsigned sysfs_pcie_gen(const char *speed);
/* The current and maximum PCIe link of dev_dir into st (GPU_S_PCIE_CUR/MAX). */
void sysfs_pcie_link(const char *root, const char *dev_dir, struct gpu_static *st);

/* ---- the DRM cards of a driver ---- */

/* One /sys/class/drm/cardN of a PCI device, from its device/uevent. */
struct sysfs_card {
	unsigned index;	 /* N of cardN */
	char dir[64];	 /* "/sys/class/drm/card0" */
	char driver[16]; /* "amdgpu", "i915", "xe" */
	char slot[32];	 /* PCI_SLOT_NAME "0000:08:00.0" */
	unsigned vendor_id, device_id;
	int render_minor; /* N of device/drm/renderDN; -1 none */
};

/* The cards whose driver is one of drivers (NULL-terminated), by card
 * number, at most max. Returns how many (0 when root/sys/class/drm has none). */
unsigned sysfs_drm_cards(const char *root, const char *const *drivers, struct sysfs_card *out,
			 unsigned max);

/* ---- DRM fdinfo clients ---- */

#define DRM_ENGINE_CLASSES 4
enum drm_engine_class { DRM_EC_RENDER, DRM_EC_COMPUTE, DRM_EC_COPY, DRM_EC_VIDEO };

/* One client (one struct drm_file) as read from an fdinfo file. */
struct drm_client {
	uint32_t pid;
	unsigned long long id;			      /* drm-client-id */
	unsigned long long busy[DRM_ENGINE_CLASSES];  /* ns (drm-engine-*) or cycles */
	unsigned long long total[DRM_ENGINE_CLASSES]; /* xe: drm-total-cycles-*; 0 none */
	unsigned capacity[DRM_ENGINE_CLASSES];	      /* drm-engine-capacity-*, 1 default */
	unsigned have;				      /* bit c: class c has a counter */
	unsigned long long mem_local, mem_system;     /* bytes: VRAM / system (GTT) */
	int have_mem, have_local; /* have_local: the device has its own memory regions */
};

#define DRM_MAX_CLIENTS 256

/* The engine class of an fdinfo engine name (amdgpu gfx/compute/dma/dec/enc,
 * i915 render/compute/copy/video/video-enhance, xe rcs/ccs/bcs/vcs/vecs); -1. */
int drm_engine_class_of(const char *name);

/* Parses one fdinfo text; 1 when it is a DRM client of driver (any driver
 * when NULL) on PCI slot pdev (any when NULL or when the file names none). */
int drm_fdinfo_parse(const char *text, const char *driver, const char *pdev,
		     struct drm_client *out);

/* The state one device's process readings keep between two rounds. */
struct drm_procs_state {
	struct drm_client prev[DRM_MAX_CLIENTS];
	unsigned n_prev;
	int64_t prev_ns; /* CLOCK_MONOTONIC of the previous scan; 0 none */
	/* the classes' busy share over the last two scans, percent (-1 unknown) */
	double class_busy[DRM_ENGINE_CLASSES];
};

/*
 * Scans root/proc/PID/fdinfo/FD for the clients of driver on pdev (each
 * client once, by drm-client-id), fills out (memory per process; busy share
 * per process and per class from the previous scan of st) and returns 0;
 * -1 when root/proc cannot be read. now_ns: CLOCK_MONOTONIC (tests pass
 * their own).
 */
int drm_procs_scan(const char *root, const char *driver, const char *pdev,
		   struct drm_procs_state *st, int64_t now_ns, struct gpu_procs *out);

/* ---- the context both kernel-file vendors keep ---- */

struct kdev {
	struct sysfs_card card;
	char dev[96];	 /* card.dir + "/device" */
	char hwmon[192]; /* its hwmon directory; "" none */
	struct drm_procs_state procs;
	struct gpu_procs last; /* the processes of the last engine scan */
	int fresh;	       /* last is this round's (sample scanned, processes not yet read) */
	double energy_prev_j;  /* for power from an energy counter; < 0 none */
	int64_t energy_prev_ns;
};

struct kctx {
	char root[SYSFS_PATH];
	unsigned n;
	struct kdev *dev;
	char note[GS_ERR_LEN];
	void *lib; /* a vendor library's state (amdsmi.c); NULL none */
	void (*lib_close)(void *lib);
};

/* Opens the cards of drivers under root ("/" when NULL); -1 with an empty
 * err when there is none (the vendor is absent, not broken). */
int kctx_open(void **ctx, const char *root, const char *const *drivers, char *err);
void kctx_close(void *ctx);
int kctx_count(void *ctx, unsigned *n);
const char *kctx_note(void *ctx);
/* The device's DRM clients: the list the last sample scanned, else a scan now. */
int kctx_processes(void *ctx, unsigned dev, struct gpu_procs *out);
/* Scans the DRM clients and sets the ENGINE_* metrics known from two scans. */
void kctx_engines(struct kctx *c, struct kdev *d, struct gpu_sample *out);
/* hwmon file name of d ("temp1_input") as an integer. */
int kctx_hwmon(struct kctx *c, struct kdev *d, const char *name, unsigned long long *v);
/* The hwmon channel N (tempN_input) whose tempN_label is label; 0 none.
 * With no label files at all, channel 1 is taken for first_label. */
int kctx_temp_channel(struct kctx *c, struct kdev *d, const char *label, const char *first_label);
/* Sets ENERGY from hwmon energy1_input (microjoules) and POWER from its
 * change since the last call. */
void kctx_energy(struct kctx *c, struct kdev *d, int64_t now_ns, struct gpu_sample *out);
/* ENERGY = joules, and POWER from its change since the last reading when
 * out has none yet. */
void kctx_energy_value(struct kdev *d, double joules, int64_t now_ns, struct gpu_sample *out);
/* Device dev of c with out (size bytes) zeroed; NULL for a bad index. */
struct kdev *kctx_dev(struct kctx *c, unsigned dev, void *out, size_t size);
/* The current PCIe link as the PCIE_GEN and PCIE_WIDTH metrics. */
void kctx_pcie_now(struct kctx *c, struct kdev *d, struct gpu_sample *out);
/* dlopen of a vendor library: the first of names (NULL-terminated) that
 * loads; under a root prefix only the one the root's hook file names (a
 * test's fake library: the machine's devices are not the tree's). */
void *kctx_load_lib(const struct kctx *c, const char *hook, const char *const *names);
/* CLOCK_MONOTONIC in ns. */
int64_t kctx_now_ns(void);

#endif
