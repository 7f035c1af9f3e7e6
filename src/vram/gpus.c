/*
 * gpus.c - the GPU table and the local GPU.
 *
 * Sizes are memory.total as nvidia-smi reports it for the card (MiB): the
 * usable memory after the driver's own reservation, which is what an
 * estimate must fit into. The H200's is read off this project's machine
 * (docs/vram.md); the others are the figures those cards report, noted
 * with each entry. The local GPU is read through the GPU layer (gpu/gpu.h:
 * NVML today), so an unlisted card still works with no --gpu.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "gpu/gpu.h"
#include "util/error.h"
#include "vram/gpus.h"

#define MIB (1024.0 * 1024.0)

struct entry {
	struct vram_gpu g;   /* bytes: the card's memory.total in MiB * MIB */
	const char *aliases; /* '|'-separated, normalised */
	int common;	     /* in the fit table shown without a GPU */
};

static const struct entry table[] = {
    {{"H200", 143771 * MIB, 9, 1, 1, "nvidia-smi on this project's H200 (2026-12-02)"},
     "h200|h200sxm|h200141gb",
     1},
    {{"H100 80GB", 81559 * MIB, 9, 1, 1, "nvidia-smi memory.total of an H100 80GB (SXM and PCIe)"},
     "h100|h100sxm|h100pcie|h10080gb|h100sxm80gb",
     1},
    {{"A100 80GB", 81920 * MIB, 8, 1, 0, "nvidia-smi memory.total of an A100 80GB"},
     "a10080gb|a10080|a100sxm80gb",
     1},
    {{"A100 40GB", 40960 * MIB, 8, 1, 0, "nvidia-smi memory.total of an A100 40GB"},
     "a100|a10040gb|a10040|a100sxm40gb",
     1},
    {{"L40S", 46068 * MIB, 8, 1, 1, "nvidia-smi memory.total of an L40S (48 GB GDDR6)"},
     "l40s|l40",
     0},
    {{"L4", 23034 * MIB, 8, 1, 1, "nvidia-smi memory.total of an L4 (24 GB)"}, "l4", 1},
    {{"A10", 23028 * MIB, 8, 1, 0, "nvidia-smi memory.total of an A10 (24 GB)"}, "a10|a10g", 1},
    {{"T4", 15360 * MIB, 7, 0, 0, "nvidia-smi memory.total of a T4 (16 GB)"}, "t4", 1},
    {{"RTX 4090", 24564 * MIB, 8, 1, 1, "nvidia-smi memory.total of a GeForce RTX 4090 (24 GB)"},
     "rtx4090|4090|geforcertx4090",
     1},
    {{"RTX 3090", 24576 * MIB, 8, 1, 0, "nvidia-smi memory.total of a GeForce RTX 3090 (24 GB)"},
     "rtx3090|3090|geforcertx3090",
     0},
    {{"RTX 4060 Laptop", 8188 * MIB, 8, 1, 1,
      "nvidia-smi memory.total of a GeForce RTX 4060 Laptop GPU (8 GB, NVIDIA's specifications)"},
     "rtx4060laptop|4060laptop|rtx4060laptopgpu|rtx4060mobile",
     0},
    {{"B200", 183359 * MIB, 10, 1, 1,
      "nvidia-smi memory.total of a B200 (driver 580.95.05; NVIDIA/TensorRT-LLM issue 10278)"},
     "b200|b200sxm|b200180gb",
     1},
    {{"MI300X", 196592 * MIB, 9, 1, 1,
      "rocm-smi VRAM Total Memory of an AMD Instinct MI300X, 206141652992 bytes "
      "(ROCm/legacy-rocm-build issue 4750); CUDA context and workspace are the H200's"},
     "mi300x|instinctmi300x|amdmi300x",
     1},
};

#define N_TABLE ((int)(sizeof(table) / sizeof(table[0])))

/* Lowercase alphanumerics only: "RTX-4060 Laptop" -> "rtx4060laptop". */
static void normalise(char *dst, size_t n, const char *s)
{
	size_t k = 0;
	for (; *s && k + 1 < n; s++)
		if (isalnum((unsigned char)*s))
			dst[k++] = (char)tolower((unsigned char)*s);
	dst[k] = '\0';
}

static int alias_match(const char *aliases, const char *key)
{
	size_t n = strlen(key);
	for (const char *a = aliases; *a;) {
		const char *bar = strchr(a, '|');
		size_t len = bar ? (size_t)(bar - a) : strlen(a);
		if (len == n && !strncmp(a, key, n))
			return 1;
		if (!bar)
			break;
		a = bar + 1;
	}
	return 0;
}

int vram_gpu_find(struct vram_gpu *out, const char *name)
{
	char key[96], own[96];
	normalise(key, sizeof(key), name);
	if (!key[0])
		return -1;
	for (int i = 0; i < N_TABLE; i++) {
		normalise(own, sizeof(own), table[i].g.name);
		if (!strcmp(own, key) || alias_match(table[i].aliases, key)) {
			*out = table[i].g;
			return 0;
		}
	}
	return -1;
}

const struct vram_gpu *vram_gpu_at(int i)
{
	return i >= 0 && i < N_TABLE ? &table[i].g : NULL;
}

const struct vram_gpu *vram_gpu_common_at(int i)
{
	/* smallest first (a stable insertion sort of the common entries) */
	int order[N_TABLE], n_order = 0;
	for (int k = 0; k < N_TABLE; k++)
		if (table[k].common)
			order[n_order++] = k;
	for (int a = 1; a < n_order; a++)
		for (int b = a; b > 0 && table[order[b]].g.bytes < table[order[b - 1]].g.bytes;
		     b--) {
			int t = order[b];
			order[b] = order[b - 1];
			order[b - 1] = t;
		}
	return i >= 0 && i < n_order ? &table[order[i]].g : NULL;
}

int vram_gpu_local(struct vram_gpu *out, char *err)
{
	struct gpu_sys sys;
	struct gpu_static st;
	int rc = -1;

	if (gpu_sys_open(&sys, err))
		goto out_close;
	if (gpu_count(&sys) == 0) {
		error_set(err, "no GPU visible");
		goto out_close;
	}
	if (gpu_static_info(&sys, 0, &st) || !(st.valid & GPU_S_MEM_TOTAL)) {
		error_set(err, "the GPU layer gives no memory size for GPU 0");
		goto out_close;
	}
	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "%s", (st.valid & GPU_S_NAME) ? st.name : "GPU 0");
	out->bytes = (double)st.mem_total;
	out->cc_major = (st.valid & GPU_S_CC) ? st.cc_major : 0;
	out->bf16 = out->cc_major == 0 || out->cc_major >= 8;
	out->fp8 =
	    (st.valid & GPU_S_CC) && (st.cc_major > 8 || (st.cc_major == 8 && st.cc_minor >= 9));
	out->source = "the local GPU 0 (gpu layer)";
	rc = 0;
out_close:
	gpu_sys_close(&sys);
	return rc;
}
