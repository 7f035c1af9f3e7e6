/*
 * frameworks.h - which GPU-relevant libraries a process loaded (PyTorch,
 * JAX/XLA, CuPy, Triton, TensorFlow, ONNX Runtime, TensorRT, cuBLAS,
 * cuDNN, NCCL, the CUDA runtime) and their versions, from the files it
 * mapped (/proc/PID/maps, or perf's MMAP2 records of a process that has
 * exited). report's advice reads them (docs/host-sampling.md, table
 * `frameworks`): "torch.compile" is advice for PyTorch, not for JAX.
 *
 * Versions, cheapest first, each result saying where it came from:
 *  1. the file name: libcublas.so.13.1.0.3, libnccl.so.2.27.3 (two dots or
 *     more after ".so");
 *  2. the wheel's metadata directory beside the package:
 *     site-packages/torch-2.11.0+cu130.dist-info, nvidia_nccl_cu13-2.28.3...;
 *  3. torch/version.py's __version__ (source trees, conda builds);
 *  4. the SONAME's major number (libcudnn.so.9 -> "9").
 * Nothing is executed and no Python is imported: only directory listings
 * and one small file read per package.
 */
#ifndef GPUSCOPE_HOSTSAMPLE_FRAMEWORKS_H
#define GPUSCOPE_HOSTSAMPLE_FRAMEWORKS_H

#include <stddef.h>

#define FW_MAX 16

enum fw_source {
	FW_SRC_NONE = 0, /* version unknown */
	FW_SRC_FILENAME = 1,
	FW_SRC_DIST_INFO = 2,
	FW_SRC_VERSION_FILE = 3,
	FW_SRC_SONAME = 4,
};

struct framework {
	const char *name; /* "PyTorch", "cuBLAS", ... (static) */
	char version[64]; /* "" when unknown */
	enum fw_source source;
	char path[512]; /* the mapped file that showed it (cut when longer) */
};

struct fw_list {
	struct framework fw[FW_MAX];
	size_t n;
};

/* Adds the frameworks that the mapped file paths show to out (one entry
 * per framework; the first path that gives a version wins). Paths that are
 * not files ("[vdso]", "") are ignored. Returns the number of entries. */
size_t frameworks_from_paths(struct fw_list *out, const char *const *paths, size_t n);

/* Same, from a maps file ("/proc/PID/maps" or a saved copy). Returns the
 * number of entries, or -1 when the file cannot be read. */
long frameworks_from_maps(struct fw_list *out, const char *maps_path);

/* "file name", "dist-info", "version file", "soname", "" */
const char *fw_source_name(enum fw_source s);

#endif
