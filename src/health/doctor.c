/*
 * doctor.c - the environment chain and health checks (see doctor.h).
 *
 * Order follows the environment chain (docs/method.md §6): kernel module -> NVML ->
 * visible devices -> CUDA runtime vs driver -> framework build -> the
 * binary's SM list vs each GPU -> hardware health -> kernel-log XIDs.
 * Each step adds a check; a broken step also adds a finding (docs/findings.md ids).
 */
#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diagnose/thresholds.h"
#include "health/doctor.h"
#include "health/fatbin.h"
#include "health/xid.h"
#include "health/doctor_int.h"
#include "util/error.h"
#include "util/i18n.h"

/*
 * CUDA Toolkit Release Notes, Table 3 ("CUDA Toolkit and Minimum Required Driver Version
 * for CUDA Minor Version Compatibility") and Table 2 (toolkit GA drivers), Linux x86_64.
 */
static const struct {
	int cuda;
	const char *min_driver;
} compat_table[] = {
    {11000, "450.80.02"}, {12000, "525.60.13"}, {12010, "530.30.02"}, {12020, "535.54.03"},
    {12030, "545.23.06"}, {12040, "550.54.14"}, {12050, "555.42.02"}, {12060, "560.28.03"},
    {12080, "570.26"},	  {12090, "575.51.03"}, {13000, "580.65.06"},
};

const char *doctor_min_driver(int runtime_cuda)
{
	const char *best = NULL;
	for (size_t i = 0; i < sizeof(compat_table) / sizeof(compat_table[0]); i++)
		if (compat_table[i].cuda <= runtime_cuda &&
		    compat_table[i].cuda / 1000 == runtime_cuda / 1000)
			best = compat_table[i].min_driver;
	return best;
}

int doctor_cuda_compat(int driver_cuda, int runtime_cuda)
{
	if (runtime_cuda / 1000 > driver_cuda / 1000)
		return 2;
	if (runtime_cuda > driver_cuda)
		return 1;
	return 0;
}

void doctor_report_init(struct doctor_report *r)
{
	memset(r, 0, sizeof(*r));
	finding_list_init(&r->findings);
}

void doctor_report_release(struct doctor_report *r)
{
	finding_list_release(&r->findings);
}

const char *check_status_name(enum check_status s)
{
	switch (s) {
	case CHECK_OK:
		return "ok";
	case CHECK_WARNING:
		return "warning";
	case CHECK_FAIL:
		return "fail";
	default:
		return "skipped";
	}
}

void doctor_check(struct doctor_report *r, const char *name, enum check_status st, const char *fmt,
		  ...)
{
	va_list ap;
	if (r->n_checks >= DOCTOR_MAX_CHECKS)
		return;
	struct doctor_check *c = &r->checks[r->n_checks++];
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->status = st;
	va_start(ap, fmt);
	vsnprintf(c->detail, sizeof(c->detail), fmt, ap);
	va_end(ap);
}

void doctor_explain_action(struct finding *f, const char *id)
{
	finding_action(f, _("for what it means and what to check: gpuscope explain %s"), id);
}

#define check doctor_check

static void fmt_cuda(int v, char *buf, size_t cap)
{
	snprintf(buf, cap, "%d.%d", v / 1000, (v % 1000) / 10);
}

/* ---- step 1: kernel module and NVML ---- */
static void check_driver(struct doctor_report *r, const struct doctor_opts *o, struct gpu_sys *gpus,
			 int *have)
{
	const char *path = o->proc_version ? o->proc_version : "/proc/driver/nvidia/version";
	char line[256] = "", err[GS_ERR_LEN];
	FILE *f = fopen(path, "r");
	int have_module = 0;

	if (f) {
		if (fgets(line, sizeof(line), f))
			line[strcspn(line, "\n")] = 0;
		fclose(f);
		have_module = 1;
		check(r, "kernel_module", CHECK_OK, "%s", line);
	} else {
		check(r, "kernel_module", CHECK_FAIL,
		      _("%s not found: the nvidia kernel module is not loaded"), path);
	}
	*have = 0;
	if (o->gpus) {
		*gpus = *o->gpus;
		*have = 1;
	} else if (gpu_sys_open(gpus, err) == 0) {
		*have = 1;
	}
	if (*have) {
		check(r, "nvml", CHECK_OK, "%s", _("nvml loaded"));
		return;
	}
	check(r, "nvml", CHECK_FAIL, "%s", err);
	struct finding *fd =
	    finding_add(&r->findings, "no_driver", SEV_CRITICAL, _("No NVIDIA driver: %s"),
			have_module ? _("NVML cannot be initialised")
				    : _("no nvidia kernel module and no NVML library"));
	if (!fd)
		return;
	finding_str(fd, "proc_version", "%s", have_module ? line : _("absent"));
	finding_str(fd, "nvml", "%s", err);
	finding_action(
	    fd, "%s",
	    _("install the NVIDIA driver (e.g. apt install nvidia-driver-580 or the .run "
	      "installer) and reboot, or load it with modprobe nvidia"));
	finding_action(fd, "%s",
		       _("in a container: run with --gpus all (docker) or the NVIDIA device plugin "
			 "(kubernetes) so the driver libraries are mounted"));
	finding_action(fd, "%s",
		       _("check the driver is not blacklisted and Secure Boot is not blocking the "
			 "unsigned module (dmesg | grep -i nvidia)"));
	doctor_explain_action(fd, "no_driver");
}

/* ---- step 2: visible devices ---- */
static void check_devices(struct doctor_report *r, struct gpu_sys *n, unsigned *count)
{
	const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
	const char *nvd = getenv("NVIDIA_VISIBLE_DEVICES");
	*count = 0;
	if (!n) {
		check(r, "devices", CHECK_SKIPPED, "%s", _("no nvml"));
		return;
	}
	*count = gpu_count(n);
	int hidden =
	    cvd && (cvd[0] == 0 || strcmp(cvd, "-1") == 0 || strcmp(cvd, "NoDevFiles") == 0);
	int nv_void = nvd && (strcmp(nvd, "void") == 0 || strcmp(nvd, "none") == 0 || nvd[0] == 0);
	if (*count == 0 || hidden || nv_void) {
		check(r, "devices", CHECK_FAIL,
		      _("%u gpu(s) visible to nvml; CUDA_VISIBLE_DEVICES=%s"), *count,
		      cvd ? cvd : _("(unset)"));
		struct finding *f = finding_add(
		    &r->findings, "no_gpu_visible", *count == 0 ? SEV_CRITICAL : SEV_WARNING, "%s",
		    *count == 0 ? _("The driver is loaded but no GPU is visible")
				: _("CUDA_VISIBLE_DEVICES hides every GPU from CUDA programs"));
		if (!f)
			return;
		finding_num(f, "nvml_devices", *count);
		finding_str(f, "CUDA_VISIBLE_DEVICES", "%s", cvd ? cvd : _("(unset)"));
		finding_str(f, "NVIDIA_VISIBLE_DEVICES", "%s", nvd ? nvd : _("(unset)"));
		finding_action(f, "%s",
			       _("unset CUDA_VISIBLE_DEVICES or set it to the GPU indices/UUIDs to "
				 "use"));
		finding_action(f, "%s",
			       _("in a container: --gpus all / NVIDIA_VISIBLE_DEVICES=all with the "
				 "NVIDIA container toolkit; kubernetes: request nvidia.com/gpu"));
		doctor_explain_action(f, "no_gpu_visible");
		return;
	}
	check(r, "devices", CHECK_OK, _("%u gpu(s); CUDA_VISIBLE_DEVICES=%s"), *count,
	      cvd ? cvd : _("(unset)"));
}

/* ---- step 3: CUDA runtimes ---- */
static void driver_too_old(struct doctor_report *r, const char *what, int drv, int rt, int level)
{
	char d[16], v[16];
	const char *min = doctor_min_driver(rt);
	fmt_cuda(drv, d, sizeof(d));
	fmt_cuda(rt, v, sizeof(v));
	struct finding *f = finding_add(
	    &r->findings, "driver_too_old", level == 2 ? SEV_CRITICAL : SEV_WARNING,
	    level == 2 ? _("%s needs CUDA %s but the driver supports CUDA %s")
		       : _("%s needs CUDA %s but the driver supports CUDA %s (runs only "
			   "through minor-version compatibility)"),
	    what, v, d);
	if (!f)
		return;
	finding_str(f, "driver_cuda", "%s", d);
	finding_str(f, "runtime_cuda", "%s", v);
	finding_str(f, "runtime", "%s", what);
	if (min)
		finding_str(f, "min_driver", "%s", min);
	finding_str(f, "source", "CUDA Toolkit Release Notes, Tables 2-3");
	if (min)
		finding_action(f, _("upgrade the NVIDIA driver to %s or newer"), min);
	else
		finding_action(f, "%s", _("upgrade the NVIDIA driver to a newer release"));
	finding_action(f, _("or use a build for CUDA %s (e.g. the matching PyTorch wheel index)"),
		       d);
	finding_action(
	    f, "%s", _("datacenter GPUs: the cuda-compat package provides forward compatibility"));
	doctor_explain_action(f, "driver_too_old");
}

static void scan_runtimes(struct doctor_report *r, int drv)
{
	static const char *const dirs[] = {"/usr/local/cuda/lib64",
					   "/usr/local/cuda/targets/x86_64-linux/lib",
					   "/usr/lib/x86_64-linux-gnu", "/usr/lib64", NULL};
	char paths[8][512], seen[4][PATH_MAX];
	int np = 0, found = 0;
	const char *ld = getenv("LD_LIBRARY_PATH");
	char ldbuf[1024];

	if (ld) {
		snprintf(ldbuf, sizeof(ldbuf), "%s", ld);
		for (char *s = strtok(ldbuf, ":"); s && np < 4; s = strtok(NULL, ":"))
			if (*s)
				snprintf(paths[np++], sizeof(paths[0]), "%s", s);
	}
	for (int i = 0; dirs[i] && np < 8; i++)
		snprintf(paths[np++], sizeof(paths[0]), "%s", dirs[i]);
	for (int i = 0; i < np && found < 4; i++) {
		DIR *d = opendir(paths[i]);
		struct dirent *de;
		if (!d)
			continue;
		while ((de = readdir(d)) && found < 4) {
			char full[1024];
			if (strncmp(de->d_name, "libcudart.so.", 13) != 0)
				continue;
			/* one per directory: the soname link (libcudart.so.N) */
			if (strchr(de->d_name + 13, '.'))
				continue;
			if (snprintf(full, sizeof(full), "%s/%s", paths[i], de->d_name) >=
			    (int)sizeof(full))
				continue;
			char real[PATH_MAX];
			int dup = 0;
			if (!realpath(full, real))
				continue;
			for (int k = 0; k < found; k++)
				dup |= strcmp(seen[k], real) == 0;
			if (dup)
				continue;
			void *h = dlopen(full, RTLD_NOW | RTLD_LOCAL);
			if (!h)
				continue;
			int (*get)(int *) = NULL;
			void *p = dlsym(h, "cudaRuntimeGetVersion");
			memcpy(&get, &p, sizeof(get));
			int v = 0;
			if (get && get(&v) == 0 && v > 0) {
				char vs[16], ds[16];
				fmt_cuda(v, vs, sizeof(vs));
				snprintf(seen[found], sizeof(seen[0]), "%s", real);
				found++;
				int c = drv > 0 ? doctor_cuda_compat(drv, v) : 0;
				fmt_cuda(drv, ds, sizeof(ds));
				check(r, "cuda_runtime",
				      c == 2 ? CHECK_FAIL
				      : c    ? CHECK_WARNING
					     : CHECK_OK,
				      drv > 0 ? _("%s: CUDA runtime %s, driver supports %s")
					      : _("%s: CUDA runtime %s"),
				      full, vs, ds);
				if (c)
					driver_too_old(r, full, drv, v, c);
			}
			dlclose(h);
		}
		closedir(d);
	}
	if (!found)
		check(r, "cuda_runtime", CHECK_SKIPPED, "%s",
		      _("no libcudart.so.N found on LD_LIBRARY_PATH or in /usr/local/cuda"));
}

/* ---- step 4: framework ---- */
/* python3 as found on PATH, but only in absolute directories (an empty or
 * relative entry would be the current directory); -1 when none, or when
 * its path holds a quote. */
static int find_python3(char *out, size_t cap)
{
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (const char *p = path; *p;) {
		const char *e = strchr(p, ':');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n && p[0] == '/' &&
		    (size_t)snprintf(out, cap, "%.*s/python3", (int)n, p) < cap &&
		    !strchr(out, '\'') && access(out, X_OK) == 0)
			return 0;
		p += n + (e ? 1 : 0);
	}
	return -1;
}

static void check_torch(struct doctor_report *r, int drv, unsigned ngpu, char *torch_lib,
			size_t cap)
{
	char out[1024] = "", ver[64] = "", avail[16] = "", dir[768] = "";
	FILE *p;

	char py[PATH_MAX], cmd[PATH_MAX + 512];
	if (find_python3(py, sizeof(py)) < 0) {
		check(r, "pytorch", CHECK_SKIPPED, "%s", _("python3 not found"));
		return;
	}
	/* Run from "/" with the script's directory ('' with -c: the current
	 * one) taken off sys.path: a torch.py where doctor is run (a cloned
	 * repository, /tmp) is never imported, least of all as root. PYTHONPATH
	 * and the user's site stay: they say which torch the user's programs get. */
	snprintf(cmd, sizeof(cmd),
		 "cd / && exec /usr/bin/timeout 30 '%s' -c 'import sys; sys.path.pop(0); "
		 "import os, torch; print(torch.version.cuda, torch.cuda.is_available(), "
		 "os.path.dirname(torch.__file__))' 2>/dev/null",
		 py);
	p = popen(cmd, "r");
	if (!p) {
		check(r, "pytorch", CHECK_SKIPPED, "%s", _("cannot run python3"));
		return;
	}
	if (!fgets(out, sizeof(out), p))
		out[0] = 0;
	int rc = pclose(p);
	if (rc != 0 || sscanf(out, "%63s %15s %767s", ver, avail, dir) < 2) {
		check(r, "pytorch", CHECK_SKIPPED, "%s", _("torch not importable with python3"));
		return;
	}
	if (dir[0])
		snprintf(torch_lib, cap, "%s/lib/libtorch_cuda.so", dir);
	if (strcmp(ver, "None") == 0) {
		check(r, "pytorch", CHECK_FAIL, "%s",
		      _("torch is a CPU-only build (torch.version.cuda is None)"));
		struct finding *f =
		    finding_add(&r->findings, "cpu_only_framework", SEV_CRITICAL, "%s",
				_("PyTorch is a CPU-only build, so it can never use the GPU"));
		if (f) {
			finding_str(f, "torch_version_cuda", "None");
			finding_action(f, "%s",
				       _("pip install torch --index-url "
					 "https://download.pytorch.org/whl/cu130 (pick the CUDA "
					 "version the driver supports)"));
			finding_action(
			    f, "%s",
			    _("check pip did not pull the CPU wheel: pip show torch, "
			      "python -c 'import torch; print(torch.__version__)' (+cpu)"));
			doctor_explain_action(f, "cpu_only_framework");
		}
		return;
	}
	int maj = 0, min = 0;
	sscanf(ver, "%d.%d", &maj, &min);
	int v = maj * 1000 + min * 10;
	int c = drv > 0 ? doctor_cuda_compat(drv, v) : 0;
	check(r, "pytorch",
	      c == 2		      ? CHECK_FAIL
	      : strcmp(avail, "True") ? CHECK_WARNING
				      : CHECK_OK,
	      "torch.version.cuda=%s torch.cuda.is_available()=%s", ver, avail);
	if (c)
		driver_too_old(r, "PyTorch", drv, v, c);
}

/* ---- step 5: the binary's SM list ---- */
static void check_binary(struct doctor_report *r, const char *path, struct gpu_sys *n,
			 unsigned ngpu, int automatic)
{
	struct fatbin_archs a;
	char err[GS_ERR_LEN], list[512];

	if (fatbin_read(path, &a, err)) {
		/* the automatic libtorch_cuda.so check must not fail a healthy machine */
		check(r, "binary_arch", automatic ? CHECK_SKIPPED : CHECK_FAIL, "%s", err);
		return;
	}
	fatbin_list(&a, list, sizeof(list));
	if (!a.sections) {
		check(r, "binary_arch", automatic ? CHECK_SKIPPED : CHECK_WARNING,
		      _("%s: no CUDA fatbinary section"), path);
		return;
	}
	if (!a.n) {
		check(r, "binary_arch", automatic ? CHECK_SKIPPED : CHECK_WARNING,
		      _("%s: the fatbinary holds no cubin and no PTX"), path);
		return;
	}
	if (!n || ngpu == 0) {
		check(r, "binary_arch", CHECK_OK, _("%s: %s (no gpu to compare with)"), path, list);
		return;
	}
	for (unsigned i = 0; i < ngpu; i++) {
		struct gpu_static s;
		if (gpu_static_info(n, i, &s) || !(s.valid & GPU_S_CC))
			continue;
		if (fatbin_runs_on(&a, s.cc_major, s.cc_minor)) {
			check(r, "binary_arch", CHECK_OK, _("%s: %s runs on gpu %u (sm_%d%d)"),
			      path, list, i, s.cc_major, s.cc_minor);
			continue;
		}
		check(r, "binary_arch", CHECK_FAIL, _("%s: %s has no code for gpu %u (sm_%d%d)"),
		      path, list, i, s.cc_major, s.cc_minor);
		struct finding *f = finding_add(&r->findings, "arch_unsupported", SEV_CRITICAL,
						_("%s carries no code for this GPU's sm_%d%d"),
						path, s.cc_major, s.cc_minor);
		if (!f)
			continue;
		finding_str(f, "binary", "%s", path);
		finding_str(f, "archs", "%s", list);
		finding_str(f, "gpu_arch", "sm_%d%d", s.cc_major, s.cc_minor);
		finding_action(
		    f,
		    _("install a build compiled for sm_%d%d (PyTorch: a wheel for a newer "
		      "CUDA, e.g. cu128+ for sm_120)"),
		    s.cc_major, s.cc_minor);
		finding_action(
		    f,
		    _("rebuild with -gencode arch=compute_%d%d,code=sm_%d%d, or embed PTX "
		      "(code=compute_XX) so the driver can JIT"),
		    s.cc_major, s.cc_minor, s.cc_major, s.cc_minor);
		doctor_explain_action(f, "arch_unsupported");
	}
}

/* "%u" of metric m, or "?" when unknown (never 0 for unknown). */
static const char *num_or_q(const struct gpu_sample *x, enum gpu_metric m, char *buf, size_t n)
{
	if (gpu_sample_has(x, m))
		snprintf(buf, n, "%.0f", x->v[m]);
	else
		snprintf(buf, n, "?");
	return buf;
}

/* clock event reasons: NVML nvmlClocksEventReasons; counters from
 * nvmlDeviceGetViolationStatus */
static void check_clocks(struct doctor_report *r, unsigned i, const struct gpu_sample *h)
{
	char name[64];
	struct finding *f;
	snprintf(name, sizeof(name), "gpu%u_clocks", i);
	if (!gpu_sample_has(h, GPU_M_CLOCK_EVENTS)) {
		check(r, name, CHECK_SKIPPED, "%s", _("clock event reasons not available"));
		return;
	}
	unsigned long long rs = gpu_reasons_mask(h->v[GPU_M_CLOCK_EVENTS]);
	check(r, name, (rs & (GPU_REASONS_THERMAL | GPU_REASONS_POWER)) ? CHECK_WARNING : CHECK_OK,
	      _("clock event reasons 0x%llx"), rs);
	if (rs & GPU_REASONS_THERMAL) {
		f = finding_add(&r->findings, "thermal_throttle", SEV_WARNING,
				_("GPU %u is slowing its clocks for temperature"), i);
		if (f) {
			finding_str(f, "reasons", "0x%llx", rs);
			if (gpu_sample_has(h, GPU_M_VIOL_THERMAL))
				finding_num(f, "thermal_violation_ms",
					    h->v[GPU_M_VIOL_THERMAL] * 1e3);
			if (gpu_sample_has(h, GPU_M_TEMP))
				finding_num(f, "temp_c", h->v[GPU_M_TEMP]);
			finding_action(f, "%s", _("check airflow, fans and inlet temperature"));
			doctor_explain_action(f, "thermal_throttle");
		}
	}
	if (rs & GPU_REASONS_POWER) {
		f = finding_add(&r->findings, "power_throttle", SEV_WARNING,
				_("GPU %u is slowing its clocks for power"), i);
		if (f) {
			finding_str(f, "reasons", "0x%llx", rs);
			if (gpu_sample_has(h, GPU_M_VIOL_POWER))
				finding_num(f, "power_violation_ms", h->v[GPU_M_VIOL_POWER] * 1e3);
			finding_action(
			    f, "%s",
			    _("check the power limit (nvidia-smi -q -d POWER) and the PSU / "
			      "power brake signal"));
			doctor_explain_action(f, "power_throttle");
		}
	}
}

/* PCIe: width drop always counts; generation only under load (see TH_PCIE_BUSY_UTIL_PCT) */
static void check_pcie(struct doctor_report *r, unsigned i, const struct gpu_static *s,
		       const struct gpu_sample *h)
{
	char name[64], rep[32];
	struct finding *f;
	snprintf(name, sizeof(name), "gpu%u_pcie", i);
	if (!(s->valid & GPU_S_PCIE_MAX) || !(s->valid & GPU_S_PCIE_CUR)) {
		check(r, name, CHECK_SKIPPED, "%s", _("pcie link state not available"));
		return;
	}
	int busy =
	    gpu_sample_has(h, GPU_M_GPU_UTIL) && h->v[GPU_M_GPU_UTIL] >= TH_PCIE_BUSY_UTIL_PCT;
	int bad_w = s->pcie_cur_width < s->pcie_max_width;
	int bad_g = busy && s->pcie_cur_gen < s->pcie_max_gen;
	check(r, name, (bad_w || bad_g) ? CHECK_WARNING : CHECK_OK,
	      _("gen %u/%u width x%u/x%u%s, replays %s"), s->pcie_cur_gen, s->pcie_max_gen,
	      s->pcie_cur_width, s->pcie_max_width,
	      (!busy && s->pcie_cur_gen < s->pcie_max_gen) ? _(" (idle: lower gen is normal)") : "",
	      num_or_q(h, GPU_M_PCIE_REPLAY, rep, sizeof(rep)));
	if (!bad_w && !bad_g)
		return;
	f = finding_add(&r->findings, "pcie_degraded", SEV_WARNING,
			_("GPU %u's PCIe link runs at gen %u x%u, below its gen %u x%u"), i,
			s->pcie_cur_gen, s->pcie_cur_width, s->pcie_max_gen, s->pcie_max_width);
	if (!f)
		return;
	finding_num(f, "cur_gen", s->pcie_cur_gen);
	finding_num(f, "max_gen", s->pcie_max_gen);
	finding_num(f, "cur_width", s->pcie_cur_width);
	finding_num(f, "max_width", s->pcie_max_width);
	if (gpu_sample_has(h, GPU_M_PCIE_REPLAY))
		finding_num(f, "replay_counter", h->v[GPU_M_PCIE_REPLAY]);
	finding_action(f, "%s",
		       _("reseat the card / riser; check the slot's wiring and BIOS PCIe settings; "
			 "lspci -vv shows LnkSta vs LnkCap"));
	doctor_explain_action(f, "pcie_degraded");
}

static void check_memory(struct doctor_report *r, unsigned i, const struct gpu_sample *h)
{
	char name[64], a[32], b[32];
	struct finding *f;
	snprintf(name, sizeof(name), "gpu%u_ecc", i);
	if (gpu_sample_has(h, GPU_M_ECC_CORR) || gpu_sample_has(h, GPU_M_ECC_UNCORR)) {
		int bad = gpu_sample_has(h, GPU_M_ECC_UNCORR) && h->v[GPU_M_ECC_UNCORR] > 0;
		check(r, name, bad ? CHECK_WARNING : CHECK_OK,
		      _("volatile ecc corrected %s, uncorrected %s"),
		      num_or_q(h, GPU_M_ECC_CORR, a, sizeof(a)),
		      num_or_q(h, GPU_M_ECC_UNCORR, b, sizeof(b)));
		if (bad) {
			f = finding_add(&r->findings, "ecc_errors", SEV_CRITICAL,
					_("GPU %u has %.0f uncorrected ECC errors since boot"), i,
					h->v[GPU_M_ECC_UNCORR]);
			if (f) {
				if (gpu_sample_has(h, GPU_M_ECC_CORR))
					finding_num(f, "corrected", h->v[GPU_M_ECC_CORR]);
				finding_num(f, "uncorrected", h->v[GPU_M_ECC_UNCORR]);
				finding_action(
				    f, "%s",
				    _("drain and reset the GPU; replace it if it repeats"));
				doctor_explain_action(f, "ecc_errors");
			}
		}
	} else {
		check(r, name, CHECK_SKIPPED, "%s", _("ecc disabled or not supported"));
	}

	snprintf(name, sizeof(name), "gpu%u_row_remap", i);
	if (!gpu_sample_has(h, GPU_M_REMAP_CORR)) {
		check(r, name, CHECK_SKIPPED, "%s", _("row remapping not supported"));
		return;
	}
	unsigned corr = (unsigned)h->v[GPU_M_REMAP_CORR], unc = (unsigned)h->v[GPU_M_REMAP_UNC];
	unsigned pending = (unsigned)h->v[GPU_M_REMAP_PENDING];
	unsigned failure = (unsigned)h->v[GPU_M_REMAP_FAILURE];
	int bad = pending || failure || unc;
	check(r, name, bad ? CHECK_WARNING : CHECK_OK,
	      _("remapped rows corr %u unc %u, pending %u, failure %u"), corr, unc, pending,
	      failure);
	if (!bad)
		return;
	f = finding_add(&r->findings, "row_remap", failure ? SEV_CRITICAL : SEV_WARNING,
			failure	  ? _("GPU %u has a row-remapping failure")
			: pending ? _("GPU %u has a row remap pending until the next reset")
				  : _("GPU %u has rows remapped for uncorrectable errors"),
			i);
	if (!f)
		return;
	finding_num(f, "uncorrectable_rows", unc);
	finding_num(f, "pending", pending);
	finding_num(f, "failure", failure);
	finding_action(f, "%s",
		       failure ? _("replace the GPU (NVIDIA memory error management guide)")
			       : _("reset the GPU when idle so the remap takes effect"));
	doctor_explain_action(f, "row_remap");
}

static void check_sharing(struct doctor_report *r, unsigned i, const struct gpu_static *s,
			  const struct gpu_procs *p)
{
	char name[64];
	struct finding *f;
	snprintf(name, sizeof(name), "gpu%u_mig", i);
	if (s->valid & GPU_S_MIG) {
		check(r, name, CHECK_OK, "%s", s->mig_mode ? _("mig enabled") : _("mig disabled"));
		if (s->mig_mode) {
			f = finding_add(
			    &r->findings, "mig_enabled", SEV_INFO,
			    _("GPU %u is partitioned with MIG; CUDA sees MIG instances"), i);
			if (f) {
				finding_action(f, "%s",
					       _("nvidia-smi -L lists the MIG devices; set "
						 "CUDA_VISIBLE_DEVICES=MIG-<uuid>"));
				doctor_explain_action(f, "mig_enabled");
			}
		}
	} else {
		check(r, name, CHECK_SKIPPED, "%s", _("mig not supported"));
	}

	snprintf(name, sizeof(name), "gpu%u_processes", i);
	if (!p->valid) {
		check(r, name, CHECK_SKIPPED, "%s", _("process list not available"));
		return;
	}
	unsigned others = 0;
	for (unsigned k = 0; k < p->n; k++)
		if (p->p[k].pid != (unsigned)getpid())
			others++;
	if (p->total > p->n)
		others = p->total;
	check(r, name, others ? CHECK_WARNING : CHECK_OK, _("%u other compute process(es)"),
	      others);
	if (!others)
		return;
	f = finding_add(&r->findings, "gpu_shared", SEV_WARNING,
			_("GPU %u is shared with %u other compute process(es)"), i, others);
	if (!f)
		return;
	finding_num(f, "processes", others);
	if (p->n)
		finding_num(f, "first_pid", p->p[0].pid);
	finding_action(f, "%s",
		       _("nvidia-smi shows who; measurements taken now include their work"));
	doctor_explain_action(f, "gpu_shared");
}

/* ---- step 6: per-GPU health ---- */
static void check_gpu(struct doctor_report *r, struct gpu_sys *n, unsigned i)
{
	struct gpu_static s;
	struct gpu_sample h;
	struct gpu_procs *p = malloc(sizeof(*p));
	char name[64], cc[16];

	snprintf(name, sizeof(name), "gpu%u", i);
	if (!p || gpu_static_info(n, i, &s)) {
		check(r, name, CHECK_FAIL, _("cannot open gpu %u"), i);
		free(p);
		return;
	}
	gpu_sample(n, i, GPU_WANT_BASIC, &h);
	gpu_health(n, i, &h);
	gpu_processes(n, i, p);
	if (s.valid & GPU_S_CC)
		snprintf(cc, sizeof(cc), "%d.%d", s.cc_major, s.cc_minor);
	else
		snprintf(cc, sizeof(cc), "?");
	check(r, name, CHECK_OK, _("%s, %s, cc %s, driver %s"),
	      (s.valid & GPU_S_NAME) ? s.name : _("unknown"),
	      (s.valid & GPU_S_PCI) ? s.pci_bus_id : _("pci unknown"), cc,
	      (s.valid & GPU_S_DRIVER) ? s.driver_version : _("unknown"));
	check_clocks(r, i, &h);
	check_pcie(r, i, &s, &h);
	check_memory(r, i, &h);
	check_sharing(r, i, &s, p);
	free(p);

	snprintf(name, sizeof(name), "gpu%u_persistence", i);
	if (s.valid & GPU_S_PERSISTENCE)
		check(r, name, CHECK_OK, "%s",
		      s.persistence ? _("persistence mode on")
				    : _("persistence mode off (first CUDA call may be slower; "
					"nvidia-persistenced)"));
	else
		check(r, name, CHECK_SKIPPED, "%s", _("persistence mode not available"));

	snprintf(name, sizeof(name), "gpu%u_temperature", i);
	if (gpu_sample_has(&h, GPU_M_TEMP) && (s.valid & GPU_S_SLOWDOWN_TEMP)) {
		unsigned t = (unsigned)h.v[GPU_M_TEMP];
		int hot = t + TH_TEMP_MARGIN_C >= s.slowdown_temp_c;
		check(r, name, hot ? CHECK_WARNING : CHECK_OK, _("%u C, slowdown at %u C"), t,
		      s.slowdown_temp_c);
	} else if (gpu_sample_has(&h, GPU_M_TEMP)) {
		check(r, name, CHECK_OK, "%u C", (unsigned)h.v[GPU_M_TEMP]);
	} else {
		check(r, name, CHECK_SKIPPED, "%s", _("temperature not available"));
	}
}

void doctor_run(struct doctor_report *r, const struct doctor_opts *o)
{
	struct gpu_sys sys, *n;
	unsigned ngpu = 0;
	int drv = 0, have = 0;

	/* an AMD or Intel machine without NVIDIA: its own chain only (no
	 * "nvidia module not loaded", no CUDA, no XIDs) */
	if (!o->gpus && !doctor_nvidia_present(o) && doctor_other_vendors(r, o, 0)) {
		finding_list_sort(&r->findings);
		return;
	}

	check_driver(r, o, &sys, &have);
	n = have ? &sys : NULL;
	check_devices(r, n, &ngpu);
	if (n && ngpu > 0) {
		struct gpu_static s;
		if (gpu_static_info(n, 0, &s) == 0 && (s.valid & GPU_S_CUDA_DRIVER))
			drv = s.cuda_driver_version;
	}
	if (drv) {
		char d[16];
		fmt_cuda(drv, d, sizeof(d));
		check(r, "cuda_driver", CHECK_OK, _("driver supports CUDA %s"), d);
	} else {
		check(r, "cuda_driver", CHECK_SKIPPED, "%s", _("no driver CUDA version"));
	}
	if (!o->no_runtime_scan)
		scan_runtimes(r, drv);
	char torch_lib[1024] = "";
	if (!o->no_python)
		check_torch(r, drv, ngpu, torch_lib, sizeof(torch_lib));
	if (o->binary)
		check_binary(r, o->binary, n, ngpu, 0);
	else if (torch_lib[0] && access(torch_lib, R_OK) == 0)
		check_binary(r, torch_lib, n, ngpu, 1);
	for (unsigned i = 0; n && i < ngpu; i++)
		check_gpu(r, n, i);
	doctor_check_kernel_log(r, o->kernel_log);
	if (n)
		gpu_sys_close(n);
	if (!o->gpus)
		doctor_other_vendors(r, o, ngpu); /* a machine with both: after NVIDIA's */
	finding_list_sort(&r->findings);
}

int doctor_found_problem(const struct doctor_report *r)
{
	for (size_t i = 0; i < r->findings.n; i++)
		if (r->findings.v[i].severity >= SEV_WARNING)
			return 1;
	for (int i = 0; i < r->n_checks; i++)
		if (r->checks[i].status == CHECK_WARNING || r->checks[i].status == CHECK_FAIL)
			return 1;
	return 0;
}
