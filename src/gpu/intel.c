/*
 * intel.c - the Intel vendor backend for both kernel drivers: i915
 * (cardN/gt_act_freq_mhz, gt_RP0_freq_mhz, gt/gtN/throttle_reason_*;
 * Documentation/ABI/testing/sysfs-driver-intel-i915-hwmon) and xe
 * (device/tileN/gtN/freq0/{act_freq,rp0_freq,throttle/reason_*},
 * tileN/physical_vram_size_bytes; sysfs-driver-intel-xe-hwmon), hwmon
 * energy (power is its change between two rounds) and power limit, and the
 * DRM fdinfo clients (per-process memory and engine time: i915 in ns, xe in
 * GPU cycles over its total cycles); the device memory in use from Level
 * Zero Sysman when it is installed (levelzero.c). Only reads, never writes.
 *
 * Intel has no NVML-like "GPU-Util": the engines' busy shares (render,
 * compute, copy, video) stand for it, and the GT frequency's throttle
 * reasons are their own mask (THROTTLE), not NVML's clock-event bits.
 */
#include <stdio.h>
#include <string.h>

#include "gpu/levelzero.h"
#include "gpu/sysfs.h"

static const char *const intel_drivers[] = {"i915", "xe", NULL};

static int intel_init_root(void **ctx, const char *root, char *err)
{
	if (kctx_open(ctx, root, intel_drivers, err) < 0)
		return -1;
	levelzero_attach(*ctx); /* optional: sysfs alone when it is not installed */
	return 0;
}

static int intel_init(void **ctx, char *err)
{
	return intel_init_root(ctx, "/", err);
}

static int is_xe(const struct kdev *d)
{
	return !strcmp(d->card.driver, "xe");
}

/* One GT frequency file in MHz: i915 names it on the card, xe per GT. */
static int freq(struct kctx *c, struct kdev *d, const char *i915_name, const char *xe_name,
		unsigned long long *mhz)
{
	char p[SYSFS_PATH];
	if (is_xe(d))
		snprintf(p, sizeof(p), "%s/tile0/gt0/freq0/%s", d->dev, xe_name);
	else
		snprintf(p, sizeof(p), "%s/%s", d->card.dir, i915_name);
	return sysfs_u64(c->root, p, mhz) && *mhz > 0 && *mhz < 100000;
}

/* xe: the VRAM of every tile, bytes; 0 unknown (i915 says nothing in sysfs) */
static unsigned long long vram_total(struct kctx *c, struct kdev *d)
{
	char p[SYSFS_PATH];
	unsigned long long x, total = 0;
	for (int t = 0; is_xe(d) && t < 4; t++) {
		snprintf(p, sizeof(p), "%s/tile%d/physical_vram_size_bytes", d->dev, t);
		if (!sysfs_u64(c->root, p, &x))
			break;
		total += x;
	}
	return total;
}

static int intel_static_info(void *ctx, unsigned dev, struct gpu_static *out)
{
	struct kctx *c = ctx;
	struct kdev *d = kctx_dev(c, dev, out, sizeof(*out));
	char v[32];
	unsigned long long x, total = 0;
	if (!d)
		return -1;
	snprintf(out->vendor, sizeof(out->vendor), "intel");
	if (d->card.device_id) {
		snprintf(out->name, sizeof(out->name), "Intel GPU %04x:%04x (%s)",
			 d->card.vendor_id, d->card.device_id, d->card.driver);
		out->valid |= GPU_S_NAME;
	}
	if (d->card.slot[0]) {
		snprintf(out->pci_bus_id, sizeof(out->pci_bus_id), "%s", d->card.slot);
		out->valid |= GPU_S_PCI;
	}
	if (sysfs_str(c->root, "/proc/sys/kernel/osrelease", v, sizeof(v))) {
		snprintf(out->driver_version, sizeof(out->driver_version), "kernel %.24s", v);
		out->valid |= GPU_S_DRIVER;
	}
	if ((total = vram_total(c, d)) > 0) {
		out->mem_total = total;
		out->valid |= GPU_S_MEM_TOTAL;
	}
	if (freq(c, d, "gt_RP0_freq_mhz", "rp0_freq", &x)) {
		out->max_sm_clock_mhz = x;
		out->valid |= GPU_S_MAX_SM_CLOCK;
	}
	sysfs_pcie_link(c->root, d->dev, out);
	return 0;
}

/* The throttle reasons: one 0/1 file per reason; unknown when none exists. */
static void throttle(struct kctx *c, struct kdev *d, struct gpu_sample *out)
{
	char p[SYSFS_PATH];
	unsigned long long mask = 0, v;
	int any = 0;
	for (unsigned i = 0; i < gpu_n_intel_throttle; i++) {
		if (is_xe(d))
			snprintf(p, sizeof(p), "%s/tile0/gt0/freq0/throttle/reason_%s", d->dev,
				 gpu_intel_throttle[i].key);
		else
			snprintf(p, sizeof(p), "%s/gt/gt0/throttle_reason_%s", d->card.dir,
				 gpu_intel_throttle[i].key);
		if (!sysfs_u64(c->root, p, &v))
			continue;
		any = 1;
		if (v)
			mask |= gpu_intel_throttle[i].bit;
	}
	if (any)
		gpu_sample_set(out, GPU_M_THROTTLE, (double)mask);
}

static int intel_sample(void *ctx, unsigned dev, unsigned want, struct gpu_sample *out)
{
	struct kctx *c = ctx;
	struct kdev *d = kctx_dev(c, dev, out, sizeof(*out));
	unsigned long long v;
	char name[32];
	if (!d)
		return -1;
	if (!(want & GPU_WANT_BASIC))
		return 0;
	if (freq(c, d, "gt_act_freq_mhz", "act_freq", &v))
		gpu_sample_set(out, GPU_M_SM_CLOCK, (double)v);
	throttle(c, d, out);
	/* power1_max: PL1, microwatts (0: no limit set) */
	if (kctx_hwmon(c, d, "power1_max", &v) && v > 0)
		gpu_sample_set(out, GPU_M_POWER_LIMIT, v / 1e6);
	/* xe's hwmon: temp2 the package, temp3 the VRAM (labels "pkg", "vram") */
	int ch = kctx_temp_channel(c, d, "pkg", NULL);
	snprintf(name, sizeof(name), "temp%d_input", ch);
	if (ch && kctx_hwmon(c, d, name, &v) && v < 200000)
		gpu_sample_set(out, GPU_M_TEMP, v / 1000.0);
	ch = kctx_temp_channel(c, d, "vram", NULL);
	snprintf(name, sizeof(name), "temp%d_input", ch);
	if (ch && kctx_hwmon(c, d, name, &v) && v < 200000)
		gpu_sample_set(out, GPU_M_TEMP_MEM, v / 1000.0);
	kctx_pcie_now(c, d, out);
	/* the memory i915's sysfs does not tell, from Level Zero Sysman */
	double used, total;
	if (levelzero_memory(c, dev, &used, &total)) {
		gpu_sample_set(out, GPU_M_MEM_USED, used);
		gpu_sample_set(out, GPU_M_MEM_TOTAL, total);
	} else if ((total = (double)vram_total(c, d)) > 0) {
		gpu_sample_set(out, GPU_M_MEM_TOTAL, total);
	}
	/* power from the energy counter, whatever want says: it is a file read */
	kctx_energy(c, d, kctx_now_ns(), out);
	kctx_engines(c, d, out);
	return 0;
}

const struct gpu_vendor gpu_vendor_intel = {
    .name = "intel",
    .init = intel_init,
    .init_root = intel_init_root,
    .shutdown = kctx_close,
    .device_count = kctx_count,
    .static_info = intel_static_info,
    .sample = intel_sample,
    .processes = kctx_processes,
    .last_error = kctx_note,
};
