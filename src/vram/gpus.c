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
	const char *name, *aliases; /* aliases: '|'-separated, normalised */
	double mib;
	int cc_major, bf16, fp8;
	int common; /* in the fit table shown without a GPU */
	const char *source;
};

static const struct entry table[] = {
    {"H200", "h200|h200sxm|h200141gb", 143771, 9, 1, 1, 1,
     "nvidia-smi on this project's H200 (2026-12-02)"},
    {"H100 80GB", "h100|h100sxm|h100pcie|h10080gb|h100sxm80gb", 81559, 9, 1, 1, 1,
     "nvidia-smi memory.total of an H100 80GB (SXM and PCIe)"},
    {"A100 80GB", "a10080gb|a10080|a100sxm80gb", 81920, 8, 1, 0, 1,
     "nvidia-smi memory.total of an A100 80GB"},
    {"A100 40GB", "a100|a10040gb|a10040|a100sxm40gb", 40960, 8, 1, 0, 1,
     "nvidia-smi memory.total of an A100 40GB"},
    {"L40S", "l40s|l40", 46068, 8, 1, 1, 0, "nvidia-smi memory.total of an L40S (48 GB GDDR6)"},
    {"L4", "l4", 23034, 8, 1, 1, 1, "nvidia-smi memory.total of an L4 (24 GB)"},
    {"A10", "a10|a10g", 23028, 8, 1, 0, 1, "nvidia-smi memory.total of an A10 (24 GB)"},
    {"T4", "t4", 15360, 7, 0, 0, 1, "nvidia-smi memory.total of a T4 (16 GB)"},
    {"RTX 4090", "rtx4090|4090|geforcertx4090", 24564, 8, 1, 1, 1,
     "nvidia-smi memory.total of a GeForce RTX 4090 (24 GB)"},
    {"RTX 3090", "rtx3090|3090|geforcertx3090", 24576, 8, 1, 0, 0,
     "nvidia-smi memory.total of a GeForce RTX 3090 (24 GB)"},
    {"RTX 4060 Laptop", "rtx4060laptop|4060laptop|rtx4060laptopgpu|rtx4060mobile", 8188, 8, 1, 1, 0,
     "nvidia-smi memory.total of a GeForce RTX 4060 Laptop GPU (8 GB; seed 004 section 1.1)"},
    {"B200", "b200|b200sxm|b200180gb", 183359, 10, 1, 1, 1,
     "nvidia-smi memory.total of a B200 (driver 580.95.05; NVIDIA/TensorRT-LLM issue 10278)"},
    {"MI300X", "mi300x|instinctmi300x|amdmi300x", 196592, 9, 1, 1, 1,
     "rocm-smi VRAM Total Memory of an AMD Instinct MI300X, 206141652992 bytes "
     "(ROCm/legacy-rocm-build issue 4750); CUDA context and workspace are the H200's"},
};

#define N_TABLE ((int)(sizeof(table) / sizeof(table[0])))

static struct vram_gpu built[N_TABLE];
static int built_done;

static void build(void)
{
	if (built_done)
		return;
	for (int i = 0; i < N_TABLE; i++) {
		snprintf(built[i].name, sizeof(built[i].name), "%s", table[i].name);
		built[i].bytes = table[i].mib * MIB;
		built[i].cc_major = table[i].cc_major;
		built[i].bf16 = table[i].bf16;
		built[i].fp8 = table[i].fp8;
		built[i].source = table[i].source;
	}
	built_done = 1;
}

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
	build();
	normalise(key, sizeof(key), name);
	if (!key[0])
		return -1;
	for (int i = 0; i < N_TABLE; i++) {
		normalise(own, sizeof(own), table[i].name);
		if (!strcmp(own, key) || alias_match(table[i].aliases, key)) {
			*out = built[i];
			return 0;
		}
	}
	return -1;
}

const struct vram_gpu *vram_gpu_at(int i)
{
	build();
	return i >= 0 && i < N_TABLE ? &built[i] : NULL;
}

const struct vram_gpu *vram_gpu_common_at(int i)
{
	/* smallest first */
	static int order[N_TABLE], n_order = -1;
	build();
	if (n_order < 0) {
		n_order = 0;
		for (int k = 0; k < N_TABLE; k++)
			if (table[k].common)
				order[n_order++] = k;
		for (int a = 1; a < n_order; a++)
			for (int b = a; b > 0 && table[order[b]].mib < table[order[b - 1]].mib;
			     b--) {
				int t = order[b];
				order[b] = order[b - 1];
				order[b - 1] = t;
			}
	}
	return i >= 0 && i < n_order ? &built[order[i]] : NULL;
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
