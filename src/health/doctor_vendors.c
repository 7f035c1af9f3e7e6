/*
 * doctor_vendors.c - doctor's chain for AMD and Intel GPUs, in their own
 * terms (doctor_int.h): the kernel module (amdgpu; i915 or xe), the device
 * nodes and their permissions (/dev/kfd for ROCm, /dev/dri/renderD* for
 * both: the render and video groups), the runtime (ROCm's version in
 * /opt/rocm/.info/version; Level Zero's loader and Intel's compute runtime),
 * the framework's build (torch.version.hip and its gfx targets against the
 * GPU's, HSA_OVERRIDE_GFX_VERSION; torch.xpu), then each GPU's health from
 * the GPU layer. Everything is read under the root prefix (tests: fixture
 * trees); the framework probe under a root is ROOT/.gpuscope-framework-probe
 * (one line as the python probe prints it) instead of running python3.
 */
#include <dirent.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpu/sysfs.h"
#include "health/doctor_int.h"
#include "util/i18n.h"

#define check doctor_check

/* The AMD edge temperature margin below its crit that warns: doctor.c's
 * TEMP_MARGIN_C (DCGM's "approaching" margin) */
#define VENDOR_TEMP_MARGIN_C 5

/* What the framework probe printed: torch's version, torch.version.cuda,
 * torch.version.hip, torch.cuda.is_available(), torch.xpu.is_available(),
 * torch.cuda.get_arch_list() joined by commas ("-" when empty). */
struct fw_probe {
	char version[64], cuda[32], hip[32], cuda_avail[8], xpu_avail[8], archs[512];
	int ok;
};

static void probe_framework(const struct doctor_opts *o, struct fw_probe *p)
{
	char line[1024] = "";
	memset(p, 0, sizeof(*p));
	if (o->root) {
		if (!sysfs_str(o->root, "/.gpuscope-framework-probe", line, sizeof(line)))
			return;
	} else {
		if (o->no_python ||
		    (access("/usr/bin/python3", X_OK) && access("/usr/local/bin/python3", X_OK)))
			return;
		FILE *f = popen(
		    "timeout 30 python3 -c 'import torch; x = getattr(torch, \"xpu\", None); "
		    "a = \",\".join(torch.cuda.get_arch_list()) if torch.cuda.is_available() else "
		    "\"\"; print(torch.__version__, torch.version.cuda, getattr(torch.version, "
		    "\"hip\", None), torch.cuda.is_available(), bool(x and x.is_available()), a or "
		    "\"-\")' 2>/dev/null",
		    "r");
		if (!f)
			return;
		if (!fgets(line, sizeof(line), f))
			line[0] = 0;
		if (pclose(f) != 0)
			return;
	}
	p->ok = sscanf(line, "%63s %31s %31s %7s %7s %511s", p->version, p->cuda, p->hip,
		       p->cuda_avail, p->xpu_avail, p->archs) == 6;
}

/* Whether this process may open a device node read-write: root, the mode's
 * "other" bits, or the node's group among ours (render, video). */
static int node_usable(const char *root, const char *node, char *why, size_t cap)
{
	char p[SYSFS_PATH];
	struct stat st;
	if (sysfs_path(p, sizeof(p), root, node) < 0 || stat(p, &st) < 0) {
		snprintf(why, cap, "%s", _("absent"));
		return 0;
	}
	if (geteuid() == 0 || (st.st_mode & 06) == 06 ||
	    (st.st_uid == geteuid() && (st.st_mode & 0600) == 0600))
		return 1;
	gid_t groups[256];
	int n = getgroups(256, groups);
	for (int i = 0; i < n; i++)
		if (groups[i] == st.st_gid && (st.st_mode & 060) == 060)
			return 1;
	struct group *g = getgrgid(st.st_gid);
	snprintf(why, cap, _("owned by group %s, which this user is not in"), g ? g->gr_name : "?");
	return 0;
}

static void node_finding(struct doctor_report *r, const char *node, const char *why, int amd);

/* The render node of a card (gpu index i in the GPU layer): present and ours to open. */
static void render_node(struct doctor_report *r, const struct doctor_opts *o,
			const struct sysfs_card *c, unsigned i, int amd)
{
	char cname[48], node[64], why[160];
	snprintf(cname, sizeof(cname), "gpu%u_render_node", i);
	if (c->render_minor < 0) {
		check(r, cname, CHECK_SKIPPED, "%s", _("no render node in sysfs"));
		return;
	}
	snprintf(node, sizeof(node), "/dev/dri/renderD%d", c->render_minor);
	if (node_usable(o->root, node, why, sizeof(why))) {
		check(r, cname, CHECK_OK, _("%s can be opened"), node);
	} else {
		check(r, cname, CHECK_FAIL, "%s: %s", node, why);
		node_finding(r, node, why, amd);
	}
}

static void node_finding(struct doctor_report *r, const char *node, const char *why, int amd)
{
	struct finding *f = finding_add(&r->findings, "gpu_node_permission", SEV_CRITICAL,
					_("%s cannot be opened: %s"), node, why);
	if (!f)
		return;
	finding_str(f, "node", "%s", node);
	finding_action(f, "%s",
		       _("add the user to the render and video groups: sudo usermod -aG "
			 "render,video $USER, then log in again"));
	finding_action(f, "%s",
		       amd ? _("in a container: --device=/dev/kfd --device=/dev/dri --group-add "
			       "video --group-add render")
			   : _("in a container: --device=/dev/dri --group-add render"));
	doctor_explain_action(f, "gpu_node_permission");
}

/* "HSA_OVERRIDE_GFX_VERSION=10.3.0" -> "gfx1030"; 0 when not of that shape */
static int override_target(const char *v, char *out, size_t cap)
{
	unsigned a, b, c;
	if (!v || sscanf(v, "%u.%u.%u", &a, &b, &c) != 3 || b > 9 || c > 15)
		return 0;
	snprintf(out, cap, "gfx%u%u%x", a, b, c);
	return 1;
}

/* 1 when target is in the comma list (a "gfx90a:xnack-" feature suffix ignored) */
static int in_list(const char *list, const char *target)
{
	size_t n = strlen(target);
	for (const char *s = list; s && *s;) {
		if (!strncmp(s, target, n) && (s[n] == 0 || s[n] == ',' || s[n] == ':'))
			return 1;
		s = strchr(s, ',');
		s = s ? s + 1 : NULL;
	}
	return 0;
}

static void amd_framework(struct doctor_report *r, const struct fw_probe *p,
			  const struct gpu_static *st, unsigned n, unsigned base)
{
	char ovr[32] = "";
	const char *env = getenv("HSA_OVERRIDE_GFX_VERSION");
	int have_ovr = override_target(env, ovr, sizeof(ovr));
	if (env)
		check(r, "hsa_override_gfx_version", have_ovr ? CHECK_WARNING : CHECK_FAIL,
		      have_ovr ? _("HSA_OVERRIDE_GFX_VERSION=%s: ROCm treats every GPU as %s")
			       : _("HSA_OVERRIDE_GFX_VERSION=%s is not MAJOR.MINOR.STEPPING"),
		      env, ovr);
	if (!p->ok) {
		check(r, "pytorch", CHECK_SKIPPED, "%s", _("torch not importable with python3"));
		return;
	}
	if (!strcmp(p->hip, "None")) {
		check(r, "pytorch", CHECK_FAIL,
		      _("torch %s is not a ROCm build (torch.version.hip is None, "
			"torch.version.cuda=%s)"),
		      p->version, p->cuda);
		struct finding *f = finding_add(
		    &r->findings, "framework_not_rocm", SEV_CRITICAL,
		    _("PyTorch %s has no ROCm support, so it cannot use the AMD GPU"), p->version);
		if (f) {
			finding_str(f, "torch_version_hip", "None");
			finding_action(f, "%s",
				       _("pip install torch --index-url "
					 "https://download.pytorch.org/whl/rocm6.2 (pick the ROCm "
					 "version installed, or the one the wheel bundles)"));
			doctor_explain_action(f, "framework_not_rocm");
		}
		return;
	}
	check(r, "pytorch", strcmp(p->cuda_avail, "True") ? CHECK_WARNING : CHECK_OK,
	      "torch %s torch.version.hip=%s torch.cuda.is_available()=%s", p->version, p->hip,
	      p->cuda_avail);
	if (!strcmp(p->archs, "-"))
		return;
	for (unsigned i = 0; i < n; i++) {
		char name[48];
		const char *want = have_ovr ? ovr : st[i].arch;
		if (!(st[i].valid & GPU_S_ARCH))
			continue;
		snprintf(name, sizeof(name), "gpu%u_gfx_target", base + i);
		if (in_list(p->archs, want)) {
			check(r, name, CHECK_OK, _("%s%s%s is among torch's targets (%s)"),
			      st[i].arch, have_ovr ? " as " : "", have_ovr ? ovr : "", p->archs);
			continue;
		}
		check(r, name, CHECK_FAIL, _("torch carries no code for %s (its targets: %s)"),
		      want, p->archs);
		struct finding *f =
		    finding_add(&r->findings, "hip_no_binary", SEV_CRITICAL,
				_("PyTorch carries no code for GPU %u's %s"), base + i, want);
		if (!f)
			continue;
		finding_str(f, "gpu_arch", "%s", st[i].arch);
		finding_str(f, "archs", "%s", p->archs);
		finding_action(f, "%s",
			       _("install a ROCm build of PyTorch whose targets include this GPU "
				 "(newer ROCm wheels add newer gfx targets)"));
		/* RDNA2/RDNA3 consumer parts only: a data-center gfx9 part has no sibling */
		if (!have_ovr &&
		    (!strncmp(st[i].arch, "gfx10", 5) || !strncmp(st[i].arch, "gfx11", 5)))
			finding_action(
			    f, "%s",
			    _("a consumer GPU of a supported family may run as its sibling: "
			      "HSA_OVERRIDE_GFX_VERSION=10.3.0 for RDNA2, 11.0.0 for RDNA3 (only "
			      "between ISA-compatible targets)"));
		doctor_explain_action(f, "hip_no_binary");
	}
}

static void amd_chain(struct doctor_report *r, const struct doctor_opts *o,
		      const struct gpu_static *st, unsigned n, const struct sysfs_card *cards,
		      unsigned base)
{
	char v[64], why[160];
	if (sysfs_str(o->root, "/sys/module/amdgpu/version", v, sizeof(v)))
		check(r, "amdgpu_module", CHECK_OK, _("amdgpu loaded, version %s"), v);
	else if (sysfs_exists(o->root, "/sys/module/amdgpu"))
		check(r, "amdgpu_module", CHECK_OK, "%s", _("amdgpu loaded (the kernel's own)"));
	else
		check(r, "amdgpu_module", CHECK_OK, "%s", _("amdgpu drives the GPUs"));
	if (node_usable(o->root, "/dev/kfd", why, sizeof(why))) {
		check(r, "rocm_kfd", CHECK_OK, "%s", _("/dev/kfd can be opened read-write"));
	} else {
		check(r, "rocm_kfd", CHECK_FAIL, "/dev/kfd: %s", why);
		if (!strcmp(why, _("absent"))) {
			struct finding *f =
			    finding_add(&r->findings, "rocm_no_kfd", SEV_CRITICAL, "%s",
					_("No /dev/kfd: ROCm programs cannot reach the AMD GPU"));
			if (f) {
				finding_action(f, "%s",
					       _("in a container: --device=/dev/kfd "
						 "--device=/dev/dri"));
				finding_action(f, "%s",
					       _("on the host: amdgpu must be loaded with its "
						 "compute driver (dmesg | grep -i kfd)"));
				doctor_explain_action(f, "rocm_no_kfd");
			}
		} else {
			node_finding(r, "/dev/kfd", why, 1);
		}
	}
	for (unsigned i = 0; i < n; i++)
		render_node(r, o, &cards[i], base + i, 1);
	if (sysfs_str(o->root, "/opt/rocm/.info/version", v, sizeof(v)))
		check(r, "rocm_runtime", CHECK_OK, _("ROCm %s in /opt/rocm"), v);
	else
		check(r, "rocm_runtime", CHECK_SKIPPED, "%s",
		      _("no /opt/rocm/.info/version (PyTorch's ROCm wheels carry their own "
			"runtime)"));
	struct fw_probe p;
	probe_framework(o, &p);
	amd_framework(r, &p, st, n, base);
}

static void intel_chain(struct doctor_report *r, const struct doctor_opts *o,
			const struct sysfs_card *cards, unsigned n, unsigned first)
{
	static const char *const zes[] = {
	    "/usr/lib/x86_64-linux-gnu/libze_loader.so.1", "/usr/lib64/libze_loader.so.1",
	    "/opt/intel/oneapi/compiler/latest/lib/libze_loader.so.1", NULL};
	static const char *const gpu_rt[] = {"/usr/lib/x86_64-linux-gnu/libze_intel_gpu.so.1",
					     "/usr/lib64/libze_intel_gpu.so.1", NULL};
	const char *loader = NULL, *rt = NULL;
	for (unsigned i = 0; i < n; i++) {
		char cname[48], mod[48];
		snprintf(mod, sizeof(mod), "/sys/module/%s", cards[i].driver);
		snprintf(cname, sizeof(cname), "gpu%u_kernel_module", first + i);
		check(r, cname, CHECK_OK, _("%s drives gpu %u (%s)"), cards[i].driver, first + i,
		      sysfs_exists(o->root, mod) ? _("module loaded") : _("built in"));
		render_node(r, o, &cards[i], first + i, 0);
	}
	for (int i = 0; zes[i] && !loader; i++)
		if (sysfs_exists(o->root, zes[i]))
			loader = zes[i];
	for (int i = 0; gpu_rt[i] && !rt; i++)
		if (sysfs_exists(o->root, gpu_rt[i]))
			rt = gpu_rt[i];
	if (loader && rt)
		check(r, "level_zero", CHECK_OK, _("Level Zero loader %s, GPU driver %s"), loader,
		      rt);
	else
		check(r, "level_zero", CHECK_WARNING, "%s",
		      !loader ? _("no Level Zero loader (libze_loader.so.1): SYCL and PyTorch XPU "
				  "cannot reach the GPU (apt install libze1)")
			      : _("no Intel compute runtime (libze_intel_gpu.so.1): apt install "
				  "intel-opencl-icd libze-intel-gpu1"));
	struct fw_probe p;
	probe_framework(o, &p);
	if (!p.ok)
		check(r, "pytorch", CHECK_SKIPPED, "%s", _("torch not importable with python3"));
	else
		check(r, "pytorch", strcmp(p.xpu_avail, "True") ? CHECK_WARNING : CHECK_OK,
		      "torch %s torch.xpu.is_available()=%s", p.version, p.xpu_avail);
}

/* One AMD or Intel GPU's health, from the GPU layer. */
static void vendor_gpu(struct doctor_report *r, struct gpu_sys *sys, unsigned i,
		       const struct gpu_static *st, unsigned base)
{
	char name[48];
	struct gpu_sample s;
	gpu_sample(sys, i, GPU_WANT_BASIC, &s);
	gpu_health(sys, i, &s);
	unsigned g = base + i; /* its number after NVIDIA's on a machine with both */
	snprintf(name, sizeof(name), "gpu%u", g);
	check(r, name, CHECK_OK, "%s %s, %s%s%s", st->vendor,
	      (st->valid & GPU_S_NAME) ? st->name : _("unknown"),
	      (st->valid & GPU_S_PCI) ? st->pci_bus_id : _("pci unknown"),
	      (st->valid & GPU_S_ARCH) ? ", " : "", (st->valid & GPU_S_ARCH) ? st->arch : "");
	snprintf(name, sizeof(name), "gpu%u_temperature", g);
	if (gpu_sample_has(&s, GPU_M_TEMP_HOTSPOT) && (st->valid & GPU_S_HOTSPOT_SLOWDOWN))
		check(r, name,
		      s.v[GPU_M_TEMP_HOTSPOT] + VENDOR_TEMP_MARGIN_C >= st->hotspot_slowdown_c
			  ? CHECK_WARNING
			  : CHECK_OK,
		      _("junction %.0f C, throttling at %u C"), s.v[GPU_M_TEMP_HOTSPOT],
		      st->hotspot_slowdown_c);
	else if (gpu_sample_has(&s, GPU_M_TEMP) && (st->valid & GPU_S_SLOWDOWN_TEMP))
		check(r, name,
		      s.v[GPU_M_TEMP] + VENDOR_TEMP_MARGIN_C >= st->slowdown_temp_c ? CHECK_WARNING
										    : CHECK_OK,
		      _("%.0f C, throttling at %u C"), s.v[GPU_M_TEMP], st->slowdown_temp_c);
	else if (gpu_sample_has(&s, GPU_M_TEMP_HOTSPOT) || gpu_sample_has(&s, GPU_M_TEMP))
		check(r, name, CHECK_OK, "%.0f C",
		      s.v[gpu_sample_has(&s, GPU_M_TEMP) ? GPU_M_TEMP : GPU_M_TEMP_HOTSPOT]);
	else
		check(r, name, CHECK_SKIPPED, "%s", _("temperature not available"));
	snprintf(name, sizeof(name), "gpu%u_ras", g);
	if (gpu_sample_has(&s, GPU_M_RAS_UNCORR)) {
		int bad = s.v[GPU_M_RAS_UNCORR] > 0;
		check(r, name, bad ? CHECK_WARNING : CHECK_OK,
		      _("RAS errors corrected %.0f, uncorrected %.0f (memory ECC: %.0f/%.0f)"),
		      s.v[GPU_M_RAS_CORR], s.v[GPU_M_RAS_UNCORR],
		      gpu_sample_has(&s, GPU_M_ECC_CORR) ? s.v[GPU_M_ECC_CORR] : 0,
		      gpu_sample_has(&s, GPU_M_ECC_UNCORR) ? s.v[GPU_M_ECC_UNCORR] : 0);
		struct finding *f = bad ? finding_add(&r->findings, "ecc_errors", SEV_CRITICAL,
						      _("GPU %u has %.0f uncorrected RAS errors"),
						      g, s.v[GPU_M_RAS_UNCORR])
					: NULL;
		if (f) {
			finding_num(f, "uncorrected", s.v[GPU_M_RAS_UNCORR]);
			finding_action(f, "%s",
				       _("drain and reset the GPU; replace it if it repeats (sudo "
					 "dmesg | grep -i amdgpu shows the blocks)"));
			doctor_explain_action(f, "ecc_errors");
		}
	} else if (!strcmp(st->vendor, "amd")) {
		check(r, name, CHECK_SKIPPED, "%s", _("RAS not enabled on this GPU"));
	}
	if (gpu_sample_has(&s, GPU_M_THROTTLE)) {
		char why[128];
		unsigned long long m = gpu_reasons_mask(s.v[GPU_M_THROTTLE]);
		snprintf(name, sizeof(name), "gpu%u_throttle", g);
		check(r, name, m ? CHECK_WARNING : CHECK_OK, _("GT throttle reasons: %s"),
		      gpu_intel_throttle_str(m, why, sizeof(why)));
		struct finding *f =
		    (m & GPU_INTEL_THROTTLE_THERMAL)
			? finding_add(&r->findings, "thermal_throttle", SEV_WARNING,
				      _("GPU %u is slowing its clocks for temperature"), g)
		    : (m & GPU_INTEL_THROTTLE_POWER)
			? finding_add(&r->findings, "power_throttle", SEV_WARNING,
				      _("GPU %u is slowing its clocks for power (%s)"), g, why)
			: NULL;
		if (f) {
			finding_str(f, "reasons", "%s", why);
			finding_action(f, "%s",
				       (m & GPU_INTEL_THROTTLE_THERMAL)
					   ? _("check airflow, fans and inlet temperature")
					   : _("check the power limit (power1_max in the GPU's "
					       "hwmon directory) and the PSU"));
			doctor_explain_action(f, (m & GPU_INTEL_THROTTLE_THERMAL)
						     ? "thermal_throttle"
						     : "power_throttle");
		}
	}
}

int doctor_nvidia_present(const struct doctor_opts *o)
{
	char p[SYSFS_PATH], rel[SYSFS_PATH], v[32];
	if (o->proc_version ? access(o->proc_version, F_OK) == 0
			    : sysfs_exists(o->root, "/proc/driver/nvidia/version"))
		return 1;
	if (sysfs_path(p, sizeof(p), o->root, "/sys/bus/pci/devices") < 0)
		return 0;
	DIR *d = opendir(p);
	struct dirent *de;
	int found = 0;
	while (d && !found && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		/* vendor 0x10de, class 0x03xxxx (display: VGA or 3D controller) */
		snprintf(rel, sizeof(rel), "/sys/bus/pci/devices/%.64s/vendor", de->d_name);
		if (!sysfs_str(o->root, rel, v, sizeof(v)) || strcasecmp(v, "0x10de"))
			continue;
		snprintf(rel, sizeof(rel), "/sys/bus/pci/devices/%.64s/class", de->d_name);
		found = sysfs_str(o->root, rel, v, sizeof(v)) && !strncasecmp(v, "0x03", 4);
	}
	if (d)
		closedir(d);
	return found;
}

int doctor_other_vendors(struct doctor_report *r, const struct doctor_opts *o, unsigned base)
{
	static const char *const amd[] = {"amdgpu", NULL}, *const intel[] = {"i915", "xe", NULL};
	struct sysfs_card ac[GPU_MAX_DEVICES], ic[GPU_MAX_DEVICES];
	unsigned na = sysfs_drm_cards(o->root, amd, ac, GPU_MAX_DEVICES);
	unsigned ni = sysfs_drm_cards(o->root, intel, ic, GPU_MAX_DEVICES);
	if (!na && !ni)
		return 0;
	struct gpu_sys sys;
	char err[GS_ERR_LEN];
	int have = gpu_sys_open_root(&sys, o->root ? o->root : "/", err) == 0;
	struct gpu_static *st = calloc(GPU_MAX_DEVICES, sizeof(*st));
	unsigned n = have ? gpu_count(&sys) : 0;
	for (unsigned i = 0; st && i < n; i++)
		gpu_static_info(&sys, i, &st[i]);
	/* the GPU layer numbers AMD's first, then Intel's, as listed here */
	if (na && st) {
		check(r, "amd_devices", CHECK_OK, _("%u AMD gpu(s) (amdgpu)"), na);
		amd_chain(r, o, st, na, ac, base);
	}
	if (ni && st) {
		check(r, "intel_devices", CHECK_OK, _("%u Intel gpu(s) (%s)"), ni, ic[0].driver);
		intel_chain(r, o, ic, ni, base + na);
	}
	for (unsigned i = 0; st && i < n; i++)
		vendor_gpu(r, &sys, i, &st[i], base);
	free(st);
	if (have)
		gpu_sys_close(&sys);
	return (na ? 1 : 0) | (ni ? 2 : 0);
}
