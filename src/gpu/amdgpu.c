/*
 * amdgpu.c - the AMD vendor backend: the amdgpu kernel driver's sysfs and
 * hwmon files (Documentation/gpu/amdgpu/thermal.rst and driver-misc.rst:
 * gpu_busy_percent, mem_busy_percent, mem_info_*, pp_dpm_*, hwmon power,
 * temperatures and clocks, the ras directory's error counts), the PCI link files, the KFD
 * topology (the gfx target and compute units) and the DRM fdinfo clients
 * (per-process VRAM and engine time). What sysfs lacks (the energy
 * counter, the activity where gpu_busy_percent is absent) comes from
 * libamd_smi when it is installed (amdsmi.c). Only reads, never writes.
 *
 * What the numbers mean differs from NVIDIA's: gpu_busy_percent is the
 * firmware's average activity of the graphics/compute engine (GFX_BUSY),
 * not NVML's "a kernel ran" share, so GPU_UTIL stays unknown; there is no
 * GPM. A value whose file is absent stays unknown.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/amdsmi.h"
#include "gpu/sysfs.h"

static const char *const amd_drivers[] = {"amdgpu", NULL};

static int amd_init_root(void **ctx, const char *root, char *err)
{
	if (kctx_open(ctx, root, amd_drivers, err) < 0)
		return -1;
	amdsmi_attach(*ctx); /* optional: sysfs alone when it is not installed */
	return 0;
}

static int amd_init(void **ctx, char *err)
{
	return amd_init_root(ctx, "/", err);
}

/* A device file of d as an integer. */
static int dev_u64(struct kctx *c, struct kdev *d, const char *name, unsigned long long *v)
{
	char p[SYSFS_PATH];
	snprintf(p, sizeof(p), "%s/%s", d->dev, name);
	return sysfs_u64(c->root, p, v);
}

/*
 * pp_dpm_sclk / pp_dpm_mclk: "0: 500Mhz\n1: 800Mhz *\n2: 1700Mhz\n" (the
 * current level marked with '*'). *cur: the marked level, *max: the highest.
 */
static void dpm_levels(struct kctx *c, struct kdev *d, const char *name, double *cur, double *max)
{
	char p[SYSFS_PATH], text[1024];
	*cur = *max = -1;
	snprintf(p, sizeof(p), "%s/%s", d->dev, name);
	if (sysfs_text(c->root, p, text, sizeof(text)) <= 0)
		return;
	for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n")) {
		char *colon = strchr(l, ':');
		if (!colon || !isdigit((unsigned char)l[0]))
			continue;
		double mhz = strtod(colon + 1, NULL);
		if (mhz <= 0)
			continue;
		if (mhz > *max)
			*max = mhz;
		if (strchr(colon, '*'))
			*cur = mhz;
	}
}

/* The KFD topology node of d (its drm_render_minor), into rel; 0 none. */
static int kfd_node(struct kctx *c, struct kdev *d, char *rel, size_t cap)
{
	char p[SYSFS_PATH], text[4096], key[64];
	if (d->card.render_minor < 0 ||
	    sysfs_path(p, sizeof(p), c->root, "/sys/class/kfd/kfd/topology/nodes") < 0)
		return 0;
	DIR *dir = opendir(p);
	struct dirent *de;
	int found = 0;
	while (dir && !found && (de = readdir(dir))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		if (snprintf(rel, cap, "/sys/class/kfd/kfd/topology/nodes/%s", de->d_name) >=
			(int)cap ||
		    snprintf(p, sizeof(p), "%s/properties", rel) >= (int)sizeof(p) ||
		    sysfs_text(c->root, p, text, sizeof(text)) <= 0)
			continue;
		for (char *l = strtok(text, "\n"); l && !found; l = strtok(NULL, "\n")) {
			long long v;
			if (sscanf(l, "%63s %lld", key, &v) == 2 &&
			    !strcmp(key, "drm_render_minor") && v == d->card.render_minor)
				found = 1;
		}
	}
	if (dir)
		closedir(dir);
	return found;
}

/* A "key value" line of a KFD properties text. */
static int kfd_prop(const char *text, const char *key, long long *v)
{
	size_t kl = strlen(key);
	for (const char *l = text; l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, key, kl) && l[kl] == ' ')
			return sscanf(l + kl, "%lld", v) == 1;
	return 0;
}

/* gfx_target_version 90010 -> "gfx90a": major, minor, stepping in hex */
static void kfd_static(struct kctx *c, struct kdev *d, struct gpu_static *out)
{
	char rel[SYSFS_PATH], p[SYSFS_PATH], text[4096];
	long long gfx, simd, per_cu;
	if (!kfd_node(c, d, rel, sizeof(rel)) ||
	    snprintf(p, sizeof(p), "%s/properties", rel) >= (int)sizeof(p) ||
	    sysfs_text(c->root, p, text, sizeof(text)) <= 0)
		return;
	if (kfd_prop(text, "gfx_target_version", &gfx) && gfx > 0 && gfx < 1000000) {
		snprintf(out->arch, sizeof(out->arch), "gfx%lld%lld%llx", gfx / 10000,
			 (gfx / 100) % 100, gfx % 100);
		out->valid |= GPU_S_ARCH;
	}
	if (kfd_prop(text, "simd_count", &simd) && kfd_prop(text, "simd_per_cu", &per_cu) &&
	    simd > 0 && per_cu > 0 && simd / per_cu < 100000) {
		out->sm_count = (unsigned)(simd / per_cu);
		out->valid |= GPU_S_SM_COUNT;
	}
}

/* The driver's version: the DKMS module's own, else the kernel's. */
static void driver_version(struct kctx *c, struct gpu_static *out)
{
	char v[32];
	if (sysfs_str(c->root, "/sys/module/amdgpu/version", v, sizeof(v)))
		snprintf(out->driver_version, sizeof(out->driver_version), "%s", v);
	else if (sysfs_str(c->root, "/proc/sys/kernel/osrelease", v, sizeof(v)))
		snprintf(out->driver_version, sizeof(out->driver_version), "kernel %.24s", v);
	else
		return;
	out->valid |= GPU_S_DRIVER;
}

/* temperature limits: the edge sensor's crit (throttling) and emergency
 * (shutdown), the junction's crit; millidegrees */
static void temp_limits(struct kctx *c, struct kdev *d, struct gpu_static *out)
{
	char name[32];
	unsigned long long v;
	int ch = kctx_temp_channel(c, d, "edge", "edge");
	if (ch) {
		snprintf(name, sizeof(name), "temp%d_crit", ch);
		if (kctx_hwmon(c, d, name, &v) && v > 0 && v < 200000) {
			out->slowdown_temp_c = (unsigned)(v / 1000);
			out->valid |= GPU_S_SLOWDOWN_TEMP;
		}
		snprintf(name, sizeof(name), "temp%d_emergency", ch);
		if (kctx_hwmon(c, d, name, &v) && v > 0 && v < 200000) {
			out->shutdown_temp_c = (unsigned)(v / 1000);
			out->valid |= GPU_S_SHUTDOWN_TEMP;
		}
	}
	if ((ch = kctx_temp_channel(c, d, "junction", NULL))) {
		snprintf(name, sizeof(name), "temp%d_crit", ch);
		if (kctx_hwmon(c, d, name, &v) && v > 0 && v < 200000) {
			out->hotspot_slowdown_c = (unsigned)(v / 1000);
			out->valid |= GPU_S_HOTSPOT_SLOWDOWN;
		}
	}
}

static int amd_static_info(void *ctx, unsigned dev, struct gpu_static *out)
{
	struct kctx *c = ctx;
	struct kdev *d = kctx_dev(c, dev, out, sizeof(*out));
	char p[SYSFS_PATH];
	unsigned long long v;
	double cur, max;
	if (!d)
		return -1;
	snprintf(out->vendor, sizeof(out->vendor), "amd");
	snprintf(p, sizeof(p), "%s/product_name", d->dev);
	if (sysfs_str(c->root, p, out->name, sizeof(out->name)) ||
	    (d->card.device_id && snprintf(out->name, sizeof(out->name), "AMD GPU %04x:%04x",
					   d->card.vendor_id, d->card.device_id) > 0))
		out->valid |= GPU_S_NAME;
	snprintf(p, sizeof(p), "%s/unique_id", d->dev);
	if (sysfs_str(c->root, p, out->uuid, sizeof(out->uuid)))
		out->valid |= GPU_S_UUID;
	if (d->card.slot[0]) {
		snprintf(out->pci_bus_id, sizeof(out->pci_bus_id), "%s", d->card.slot);
		out->valid |= GPU_S_PCI;
	}
	driver_version(c, out);
	if (dev_u64(c, d, "mem_info_vram_total", &v) && v > 0) {
		out->mem_total = v;
		out->valid |= GPU_S_MEM_TOTAL;
	}
	sysfs_pcie_link(c->root, d->dev, out);
	dpm_levels(c, d, "pp_dpm_sclk", &cur, &max);
	if (max > 0) {
		out->max_sm_clock_mhz = (unsigned long long)max;
		out->valid |= GPU_S_MAX_SM_CLOCK;
	}
	dpm_levels(c, d, "pp_dpm_mclk", &cur, &max);
	if (max > 0) {
		out->max_mem_clock_mhz = (unsigned long long)max;
		out->valid |= GPU_S_MAX_MEM_CLOCK;
	}
	temp_limits(c, d, out);
	kfd_static(c, d, out);
	return 0;
}

/* hwmon freqN_input (Hz) whose freqN_label is label, in MHz; -1 none */
static double hwmon_freq(struct kctx *c, struct kdev *d, const char *label)
{
	char p[SYSFS_PATH], l[16], name[32];
	unsigned long long hz;
	for (int ch = 1; d->hwmon[0] && ch <= 4; ch++) {
		snprintf(p, sizeof(p), "%s/freq%d_label", d->hwmon, ch);
		if (!sysfs_str(c->root, p, l, sizeof(l)) || strcasecmp(l, label))
			continue;
		snprintf(name, sizeof(name), "freq%d_input", ch);
		if (kctx_hwmon(c, d, name, &hz))
			return hz / 1e6;
	}
	return -1;
}

static void temps(struct kctx *c, struct kdev *d, struct gpu_sample *out)
{
	static const struct {
		const char *label;
		enum gpu_metric m;
	} t[] = {{"edge", GPU_M_TEMP}, {"junction", GPU_M_TEMP_HOTSPOT}, {"mem", GPU_M_TEMP_MEM}};
	char name[32];
	unsigned long long v;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int ch = kctx_temp_channel(c, d, t[i].label, "edge");
		snprintf(name, sizeof(name), "temp%d_input", ch);
		if (ch && kctx_hwmon(c, d, name, &v) && v < 200000)
			gpu_sample_set(out, t[i].m, v / 1000.0);
	}
}

static int amd_sample(void *ctx, unsigned dev, unsigned want, struct gpu_sample *out)
{
	struct kctx *c = ctx;
	struct kdev *d = kctx_dev(c, dev, out, sizeof(*out));
	unsigned long long v;
	double cur, max;
	if (!d)
		return -1;
	if (!(want & GPU_WANT_BASIC))
		return 0;
	if (dev_u64(c, d, "gpu_busy_percent", &v) && v <= 100)
		gpu_sample_set(out, GPU_M_GFX_BUSY, (double)v);
	if (dev_u64(c, d, "mem_busy_percent", &v) && v <= 100)
		gpu_sample_set(out, GPU_M_MEM_BUSY, (double)v);
	if (dev_u64(c, d, "mem_info_vram_used", &v))
		gpu_sample_set(out, GPU_M_MEM_USED, (double)v);
	if (dev_u64(c, d, "mem_info_vram_total", &v) && v > 0)
		gpu_sample_set(out, GPU_M_MEM_TOTAL, (double)v);
	if (dev_u64(c, d, "mem_info_gtt_used", &v))
		gpu_sample_set(out, GPU_M_GTT_USED, (double)v);
	if (dev_u64(c, d, "mem_info_gtt_total", &v) && v > 0)
		gpu_sample_set(out, GPU_M_GTT_TOTAL, (double)v);
	/* clocks: hwmon's sclk/mclk, else the dpm level marked current */
	double mhz = hwmon_freq(c, d, "sclk");
	dpm_levels(c, d, "pp_dpm_sclk", &cur, &max);
	if (mhz > 0 || cur > 0)
		gpu_sample_set(out, GPU_M_SM_CLOCK, mhz > 0 ? mhz : cur);
	mhz = hwmon_freq(c, d, "mclk");
	dpm_levels(c, d, "pp_dpm_mclk", &cur, &max);
	if (mhz > 0 || cur > 0)
		gpu_sample_set(out, GPU_M_MEM_CLOCK, mhz > 0 ? mhz : cur);
	/* power: microwatts; power1_average (older ASICs) or power1_input */
	if (kctx_hwmon(c, d, "power1_average", &v) || kctx_hwmon(c, d, "power1_input", &v))
		gpu_sample_set(out, GPU_M_POWER, v / 1e6);
	if (kctx_hwmon(c, d, "power1_cap", &v) && v > 0)
		gpu_sample_set(out, GPU_M_POWER_LIMIT, v / 1e6);
	temps(c, d, out);
	kctx_pcie_now(c, d, out);
	/* what sysfs lacks, from libamd_smi: the energy counter, the activity */
	double j, gfx, umc;
	if (want & GPU_WANT_ENERGY)
		kctx_energy(c, d, kctx_now_ns(), out);
	if ((want & GPU_WANT_ENERGY) && !gpu_sample_has(out, GPU_M_ENERGY) &&
	    amdsmi_energy_j(c, dev, &j))
		kctx_energy_value(d, j, kctx_now_ns(), out);
	if (!gpu_sample_has(out, GPU_M_GFX_BUSY) && amdsmi_activity_pct(c, dev, &gfx, &umc)) {
		gpu_sample_set(out, GPU_M_GFX_BUSY, gfx);
		if (!gpu_sample_has(out, GPU_M_MEM_BUSY))
			gpu_sample_set(out, GPU_M_MEM_BUSY, umc);
	}
	kctx_engines(c, d, out);
	return 0;
}

/* ras/BLOCK_err_count: "ue: N\nce: M\n" */
static int ras_counts(const char *text, unsigned long long *ue, unsigned long long *ce)
{
	const char *u = strstr(text, "ue:"), *e = strstr(text, "ce:");
	if (!u || !e)
		return 0;
	*ue = strtoull(u + 3, NULL, 10);
	*ce = strtoull(e + 3, NULL, 10);
	return 1;
}

static int amd_health(void *ctx, unsigned dev, struct gpu_sample *out)
{
	struct kctx *c = ctx;
	char rel[SYSFS_PATH], p[SYSFS_PATH], text[256];
	unsigned long long v, ue, ce, all_ue = 0, all_ce = 0;
	int any = 0;
	if (dev >= c->n)
		return -1;
	struct kdev *d = &c->dev[dev];
	if (dev_u64(c, d, "pcie_replay_count", &v))
		gpu_sample_set(out, GPU_M_PCIE_REPLAY, (double)v);
	snprintf(rel, sizeof(rel), "%s/ras", d->dev);
	if (sysfs_path(p, sizeof(p), c->root, rel) < 0)
		return 0;
	DIR *dir = opendir(p);
	struct dirent *de;
	while (dir && (de = readdir(dir))) {
		size_t n = strlen(de->d_name);
		if (n < 11 || strcmp(de->d_name + n - 10, "_err_count"))
			continue;
		if (snprintf(p, sizeof(p), "%s/%s", rel, de->d_name) >= (int)sizeof(p) ||
		    sysfs_text(c->root, p, text, sizeof(text)) <= 0 || !ras_counts(text, &ue, &ce))
			continue;
		any = 1;
		all_ue += ue;
		all_ce += ce;
		/* umc: the memory controller, i.e. the memory's ECC */
		if (!strcmp(de->d_name, "umc_err_count")) {
			gpu_sample_set(out, GPU_M_ECC_CORR, (double)ce);
			gpu_sample_set(out, GPU_M_ECC_UNCORR, (double)ue);
		}
	}
	if (dir)
		closedir(dir);
	if (any) {
		gpu_sample_set(out, GPU_M_RAS_CORR, (double)all_ce);
		gpu_sample_set(out, GPU_M_RAS_UNCORR, (double)all_ue);
	}
	return 0;
}

const struct gpu_vendor gpu_vendor_amdgpu = {
    .name = "amdgpu",
    .init = amd_init,
    .init_root = amd_init_root,
    .shutdown = kctx_close,
    .device_count = kctx_count,
    .static_info = amd_static_info,
    .sample = amd_sample,
    .health = amd_health,
    .processes = kctx_processes,
    .last_error = kctx_note,
};
