/*
 * test_frameworks.c - frameworks from mapped paths, on a site-packages tree
 * laid out as pip lays out torch, the nvidia-* wheels, cupy, triton and jax
 * (made in a temporary directory), system libraries with full versions in
 * their names, and a maps file: each framework once, its version from the
 * best source, look-alikes (torch_geometric, libcublasLt) not taken for it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hostsample/frameworks.h"

static char root[256];

static void mk(const char *rel)
{
	char p[1024];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	for (char *s = p + strlen(root) + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	if (p[strlen(p) - 1] == '/')
		return;
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fclose(f);
}

static void write_file(const char *rel, const char *text)
{
	char p[1024];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/gpuscope-fw-%d", (int)getpid());
	mkdir(root, 0700);
	const char *sp = "venv/lib/python3.12/site-packages/";
	const char *files[] = {
	    "torch/lib/libtorch_cpu.so",
	    "torch/lib/libc10.so",
	    "torch-2.11.0+cu130.dist-info/",
	    "torch_geometric-2.8.0.post1.dist-info/",
	    "nvidia/cublas/lib/libcublas.so.13",
	    "nvidia/cublas/lib/libcublasLt.so.13",
	    "nvidia_cublas-13.1.0.3.dist-info/",
	    "nvidia/nccl/lib/libnccl.so.2",
	    "nvidia_nccl_cu13-2.28.3.dist-info/",
	    "nvidia/cudnn/lib/libcudnn.so.9",
	    "cupy/_core/core.cpython-312-x86_64-linux-gnu.so",
	    "cupy_cuda13x-14.2.0.dist-info/",
	    "triton/_C/libtriton.so",
	    "triton-3.6.0.dist-info/",
	    "jaxlib/_jax.so",
	    "jaxlib-0.11.2.dist-info/",
	    "jax-0.11.2.dist-info/",
	    "nvidia/cu13/lib/libcudart.so.13",
	    "nvidia_cuda_runtime-13.0.96.dist-info/",
	};
	char rel[512];
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(rel, sizeof(rel), "%s%s", sp, files[i]);
		mk(rel);
	}
	/* a source build: no dist-info, torch/version.py only */
	mk("src/torch/lib/libtorch_cpu.so");
	write_file("src/torch/version.py", "from typing import Optional\n"
					   "__version__ = '2.12.0a0+git1234'\n");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static const struct framework *get(const struct fw_list *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->fw[i].name, name) == 0)
			return &l->fw[i];
	return NULL;
}

static void expect(const struct fw_list *l, const char *name, const char *version,
		   enum fw_source src)
{
	const struct framework *f = get(l, name);
	if (!f)
		fail_msg("%s not found", name);
	assert_string_equal(f->version, version);
	assert_int_equal(f->source, src);
}

static void test_site_packages(void **state)
{
	(void)state;
	char sp[512], paths[12][768];
	snprintf(sp, sizeof(sp), "%s/venv/lib/python3.12/site-packages", root);
	const char *rel[] = {
	    "torch/lib/libc10.so",
	    "torch/lib/libtorch_cpu.so",
	    "nvidia/cublas/lib/libcublasLt.so.13",
	    "nvidia/cublas/lib/libcublas.so.13",
	    "nvidia/nccl/lib/libnccl.so.2",
	    "nvidia/cudnn/lib/libcudnn.so.9",
	    "cupy/_core/core.cpython-312-x86_64-linux-gnu.so",
	    "triton/_C/libtriton.so",
	    "jaxlib/_jax.so",
	};
	const char *p[12];
	size_t n = sizeof(rel) / sizeof(rel[0]);
	for (size_t i = 0; i < n; i++) {
		snprintf(paths[i], sizeof(paths[i]), "%s/%s", sp, rel[i]);
		p[i] = paths[i];
	}
	p[n++] = "[vdso]";
	/* CUDA 13's wheels: nvidia/cu13/lib, the dist-info under its own name */
	snprintf(paths[n], sizeof(paths[n]), "%s/nvidia/cu13/lib/libcudart.so.13", sp);
	p[n] = paths[n];
	n++;
	struct fw_list l;
	memset(&l, 0, sizeof(l));
	assert_int_equal(frameworks_from_paths(&l, p, n), 8);
	expect(&l, "PyTorch", "2.11.0+cu130", FW_SRC_DIST_INFO);
	expect(&l, "cuBLAS", "13.1.0.3", FW_SRC_DIST_INFO);
	expect(&l, "NCCL", "2.28.3", FW_SRC_DIST_INFO);
	expect(&l, "cuDNN", "9", FW_SRC_SONAME); /* no nvidia_cudnn dist-info here */
	expect(&l, "CuPy", "14.2.0", FW_SRC_DIST_INFO);
	expect(&l, "Triton", "3.6.0", FW_SRC_DIST_INFO);
	expect(&l, "JAX/XLA", "0.11.2", FW_SRC_DIST_INFO);
	expect(&l, "CUDA runtime", "13.0.96", FW_SRC_DIST_INFO);
	assert_null(get(&l, "TensorFlow"));
	/* the path that showed it is kept */
	assert_non_null(strstr(get(&l, "PyTorch")->path, "/torch/lib/libc10.so"));
	/* the same paths again: nothing new */
	assert_int_equal(frameworks_from_paths(&l, p, n), 8);
}

static void test_version_file_and_names(void **state)
{
	(void)state;
	char p1[512];
	snprintf(p1, sizeof(p1), "%s/src/torch/lib/libtorch_cpu.so", root);
	const char *p[] = {
	    p1,
	    "/usr/lib/x86_64-linux-gnu/libcudnn.so.9",
	    "/usr/lib/x86_64-linux-gnu/libcudnn.so.9.13.0", /* a better version later */
	    "/opt/trt/lib/libnvinfer.so.10.3.0",
	    "/usr/lib/libtensorflow_framework.so.2",
	    "/opt/ort/lib/libonnxruntime.so.1.20.1",
	    "/usr/lib/x86_64-linux-gnu/libcublasLt.so.12.4.5.8", /* not cuBLAS itself */
	    "/usr/lib/x86_64-linux-gnu/libtorchaudio.so",
	    "/usr/local/cuda-13.0/targets/x86_64-linux/lib/libcudart.so.13.0.96",
	};
	struct fw_list l;
	memset(&l, 0, sizeof(l));
	frameworks_from_paths(&l, p, sizeof(p) / sizeof(p[0]));
	expect(&l, "PyTorch", "2.12.0a0+git1234", FW_SRC_VERSION_FILE);
	expect(&l, "cuDNN", "9.13.0", FW_SRC_FILENAME);
	expect(&l, "TensorRT", "10.3.0", FW_SRC_FILENAME);
	expect(&l, "TensorFlow", "2", FW_SRC_SONAME);
	expect(&l, "ONNX Runtime", "1.20.1", FW_SRC_FILENAME);
	expect(&l, "CUDA runtime", "13.0.96", FW_SRC_FILENAME);
	assert_null(get(&l, "cuBLAS"));
	assert_int_equal(l.n, 6);
	assert_string_equal(fw_source_name(FW_SRC_DIST_INFO), "dist-info");
}

static void test_maps_file(void **state)
{
	(void)state;
	char maps[512];
	snprintf(maps, sizeof(maps), "%s/maps", root);
	FILE *f = fopen(maps, "w");
	assert_non_null(f);
	fprintf(f, "7f0000000000-7f0000001000 r--p 00000000 fd:01 123 "
		   "/usr/lib/x86_64-linux-gnu/libnccl.so.2.27.3\n"
		   "7f0000001000-7f0000002000 r-xp 00001000 fd:01 123 "
		   "/usr/lib/x86_64-linux-gnu/libnccl.so.2.27.3\n"
		   "7f0000003000-7f0000004000 rw-p 00000000 00:00 0 \n"
		   "7ffd00000000-7ffd00001000 r-xp 00000000 00:00 0 [vdso]\n"
		   "garbage line\n");
	fclose(f);
	struct fw_list l;
	memset(&l, 0, sizeof(l));
	assert_int_equal(frameworks_from_maps(&l, maps), 1);
	expect(&l, "NCCL", "2.27.3", FW_SRC_FILENAME);
	assert_int_equal(frameworks_from_maps(&l, "/nonexistent/maps"), -1);
	/* this test program maps no GPU library */
	memset(&l, 0, sizeof(l));
	assert_int_equal(frameworks_from_maps(&l, "/proc/self/maps"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_site_packages),
	    cmocka_unit_test(test_version_file_and_names),
	    cmocka_unit_test(test_maps_file),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
