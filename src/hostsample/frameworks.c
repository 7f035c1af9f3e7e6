/*
 * frameworks.c - GPU-relevant libraries from mapped file paths
 * (frameworks.h). One table of rules; versions looked up as that header
 * orders them.
 */
#include "hostsample/frameworks.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How a framework shows in a path: the file's name starts with lib (or
 * the path contains dir), pkg is its Python package directory (the
 * dist-info lookup starts there), dist the wheel's name: "torch-" that name
 * exactly (not torch_geometric), "nvidia_cublas" a prefix (nvidia_cublas_cu12). */
struct fw_rule {
	const char *name;
	const char *lib;  /* basename prefix, or NULL */
	const char *dir;  /* path substring, or NULL */
	const char *pkg;  /* "torch", "nvidia/cublas" */
	const char *dist; /* dist-info prefix: "torch", "nvidia_cublas" */
};

static const struct fw_rule rules[] = {
    {"PyTorch", "libtorch_cpu.so", NULL, "torch", "torch-"},
    {"PyTorch", "libc10.so", NULL, "torch", "torch-"},
    {"JAX/XLA", NULL, "/jaxlib/", "jaxlib", "jaxlib-"},
    {"JAX/XLA", "xla_cuda_plugin.so", NULL, "jax_plugins", "jax_cuda"},
    {"CuPy", NULL, "/cupy/_core/", "cupy", "cupy"},
    {"CuPy", NULL, "/cupy_backends/", "cupy_backends", "cupy"},
    {"Triton", "libtriton.so", NULL, "triton", "triton-"},
    {"Numba", NULL, "/numba/", "numba", "numba-"},
    {"TensorFlow", "libtensorflow_framework.so", NULL, "tensorflow", "tensorflow-"},
    {"TensorFlow", "libtensorflow_cc.so", NULL, "tensorflow", "tensorflow-"},
    {"ONNX Runtime", "onnxruntime_pybind11_state", NULL, "onnxruntime", "onnxruntime"},
    {"ONNX Runtime", "libonnxruntime.so", NULL, "onnxruntime", "onnxruntime"},
    {"TensorRT", "libnvinfer.so", NULL, "tensorrt_libs", "tensorrt"},
    {"cuBLAS", "libcublas.so", NULL, "nvidia/cublas", "nvidia_cublas"},
    {"cuDNN", "libcudnn.so", NULL, "nvidia/cudnn", "nvidia_cudnn"},
    {"NCCL", "libnccl.so", NULL, "nvidia/nccl", "nvidia_nccl"},
    {"CUDA runtime", "libcudart.so", NULL, "nvidia/cuda_runtime", "nvidia_cuda_runtime"},
};

const char *fw_source_name(enum fw_source s)
{
	switch (s) {
	case FW_SRC_FILENAME:
		return "file name";
	case FW_SRC_DIST_INFO:
		return "dist-info";
	case FW_SRC_VERSION_FILE:
		return "version file";
	case FW_SRC_SONAME:
		return "soname";
	default:
		return "";
	}
}

static const struct fw_rule *match(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		const struct fw_rule *r = &rules[i];
		if (r->lib && strncmp(base, r->lib, strlen(r->lib)) == 0)
			return r;
		/* a shared object inside the package directory */
		if (r->dir && strstr(path, r->dir) && strstr(base, ".so"))
			return r;
	}
	return NULL;
}

/* "libcublas.so.13.1.0.3" -> "13.1.0.3" (needs two dots: a full version,
 * not the SONAME's major); soname_major gets "13" either way. */
static int version_from_name(const char *base, char *full, size_t cap, char *major, size_t mcap)
{
	full[0] = major[0] = '\0';
	const char *so = strstr(base, ".so.");
	if (!so)
		return 0;
	const char *v = so + 4;
	size_t n = strspn(v, "0123456789.");
	if (n == 0 || v[n] != '\0')
		return 0;
	size_t m = strspn(v, "0123456789");
	snprintf(major, mcap, "%.*s", (int)m, v);
	int dots = 0;
	for (size_t i = 0; i < n; i++)
		dots += v[i] == '.';
	if (dots >= 2 && v[n - 1] != '.')
		snprintf(full, cap, "%.*s", (int)n, v);
	return full[0] != '\0';
}

/* The directory holding the package: ".../site-packages" for
 * ".../site-packages/torch/lib/libtorch_cpu.so" and pkg "torch". */
static int site_dir(const char *path, const char *pkg, char *out, size_t cap)
{
	char needle[128];
	snprintf(needle, sizeof(needle), "/%s/", pkg);
	const char *at = NULL, *p = path;
	while ((p = strstr(p, needle))) {
		at = p;
		p++;
	}
	/* CUDA 13's wheels share one directory: nvidia/cu13/lib/libcublas.so.13
	 * beside nvidia_cublas-13.1.0.3.dist-info */
	const char *slash = strchr(pkg, '/');
	if (!at && slash && (size_t)(slash - pkg) + 3 < sizeof(needle)) {
		snprintf(needle, sizeof(needle), "/%.*s/", (int)(slash - pkg), pkg);
		for (p = path; (p = strstr(p, needle)); p++)
			at = p;
	}
	if (!at || (size_t)(at - path) >= cap)
		return -1;
	snprintf(out, cap, "%.*s", (int)(at - path), path);
	return 0;
}

/* NAME-VERSION.dist-info where NAME starts with dist (then '-' or '_') */
static int version_from_dist_info(const char *site, const char *dist, char *out, size_t cap)
{
	DIR *d = opendir(site);
	if (!d)
		return 0;
	size_t dl = strlen(dist);
	struct dirent *e;
	int found = 0;
	while (!found && (e = readdir(d))) {
		const char *n = e->d_name;
		size_t len = strlen(n);
		int exact = dist[dl - 1] == '-';
		if (len < dl + 11 || strncasecmp(n, dist, dl) != 0 ||
		    (!exact && n[dl] != '-' && n[dl] != '_' && !isdigit((unsigned char)n[dl])) ||
		    strcmp(n + len - 10, ".dist-info") != 0)
			continue;
		const char *dash = NULL;
		for (const char *c = n; c < n + len - 10; c++)
			if (*c == '-')
				dash = c;
		if (!dash || !isdigit((unsigned char)dash[1]))
			continue;
		snprintf(out, cap, "%.*s", (int)(n + len - 10 - dash - 1), dash + 1);
		found = 1;
	}
	closedir(d);
	return found;
}

/* torch/version.py: __version__ = '2.11.0+cu130' */
static int version_from_file(const char *site, const char *pkg, char *out, size_t cap)
{
	char p[1024];
	if (strcmp(pkg, "torch") != 0 ||
	    snprintf(p, sizeof(p), "%s/torch/version.py", site) >= (int)sizeof(p))
		return 0;
	FILE *f = fopen(p, "re");
	if (!f)
		return 0;
	char line[512];
	int found = 0;
	while (!found && fgets(line, sizeof(line), f)) {
		const char *v = strstr(line, "__version__");
		const char *q = v ? strpbrk(v, "'\"") : NULL;
		if (!q)
			continue;
		const char *end = strchr(q + 1, *q);
		if (end && end > q + 1) {
			snprintf(out, cap, "%.*s", (int)(end - q - 1), q + 1);
			found = 1;
		}
	}
	fclose(f);
	return found;
}

static void find_version(const struct fw_rule *r, const char *path, struct framework *fw)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	char major[32], site[1024];
	if (version_from_name(base, fw->version, sizeof(fw->version), major, sizeof(major))) {
		fw->source = FW_SRC_FILENAME;
		return;
	}
	if (site_dir(path, r->pkg, site, sizeof(site)) == 0) {
		if (version_from_dist_info(site, r->dist, fw->version, sizeof(fw->version))) {
			fw->source = FW_SRC_DIST_INFO;
			return;
		}
		if (version_from_file(site, r->pkg, fw->version, sizeof(fw->version))) {
			fw->source = FW_SRC_VERSION_FILE;
			return;
		}
	}
	if (major[0]) {
		snprintf(fw->version, sizeof(fw->version), "%s", major);
		fw->source = FW_SRC_SONAME;
	}
}

size_t frameworks_from_paths(struct fw_list *out, const char *const *paths, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *path = paths[i];
		if (!path || path[0] != '/')
			continue;
		const struct fw_rule *r = match(path);
		if (!r)
			continue;
		struct framework *have = NULL;
		for (size_t k = 0; k < out->n; k++)
			if (strcmp(out->fw[k].name, r->name) == 0)
				have = &out->fw[k];
		/* known already, with a version at least as good */
		if (have && have->source != FW_SRC_NONE && have->source != FW_SRC_SONAME)
			continue;
		struct framework fw;
		memset(&fw, 0, sizeof(fw));
		fw.name = r->name;
		snprintf(fw.path, sizeof(fw.path), "%s", path);
		find_version(r, path, &fw);
		if (have) {
			if (fw.source != FW_SRC_NONE && fw.source != FW_SRC_SONAME)
				*have = fw;
			continue;
		}
		if (out->n < FW_MAX)
			out->fw[out->n++] = fw;
	}
	return out->n;
}

long frameworks_from_maps(struct fw_list *out, const char *maps_path)
{
	FILE *f = fopen(maps_path, "re");
	if (!f)
		return -1;
	char line[4096 + 256], last[4096 + 256] = "";
	while (fgets(line, sizeof(line), f)) {
		int pos = 0;
		if (sscanf(line, "%*s %*s %*s %*s %*s %n", &pos) < 0 || !pos)
			continue;
		char *name = line + pos;
		name[strcspn(name, "\n")] = '\0';
		if (name[0] != '/' || strcmp(name, last) == 0)
			continue;
		snprintf(last, sizeof(last), "%s", name);
		const char *p = name;
		frameworks_from_paths(out, &p, 1);
	}
	fclose(f);
	return (long)out->n;
}
