/*
 * vendor_text.h - pasted AMD and Intel tool output read back into numbers
 * (explain prints what they mean, as it does for an nvidia-smi table):
 * `rocm-smi`'s concise table (the ROCm 1.x-5.x layout "GPU Temp AvgPwr SCLK
 * MCLK Fan Perf PwrCap VRAM% GPU%" and ROCm 6's "Device Node IDs Temp Power
 * Partitions ..."), `amd-smi metric` (its "KEY: value unit" sections),
 * `xpu-smi dump` CSV (columns by their names) and `intel_gpu_top -J` (one
 * JSON sample). Cells are read by shape ("47.0c", "60.0°C", "91.0W",
 * "800Mhz", "0%"); N/A stays unknown (-1), never 0.
 */
#ifndef GPUSCOPE_VENDOR_TEXT_H
#define GPUSCOPE_VENDOR_TEXT_H

#include <stddef.h>

#define VTEXT_MAX_GPUS 16

enum vtext_tool { VT_ROCM_SMI, VT_AMD_SMI, VT_XPU_SMI, VT_INTEL_GPU_TOP };

/* One GPU's readings; -1 unknown. */
struct vtext_gpu {
	int index;
	double busy_pct;     /* rocm-smi GPU%, amd-smi GFX_ACTIVITY, xpu-smi GPU Utilization */
	double mem_busy_pct; /* amd-smi UMC_ACTIVITY, xpu-smi GPU Memory Utilization */
	double vram_pct;     /* rocm-smi VRAM% (share of VRAM allocated) */
	double vram_used_mib, vram_total_mib;
	double power_w, power_cap_w;
	double temp_c, hotspot_c, mem_temp_c;
	double sclk_mhz, mclk_mhz;
	double render_pct, copy_pct, video_pct, video_enh_pct, compute_pct; /* intel_gpu_top */
	double freq_req_mhz, rc6_pct;					    /* intel_gpu_top */
	char throttle[32]; /* amd-smi THROTTLE_STATUS; "" unknown */
	int busy_na;	   /* the busy column is there and reads N/A */
};

struct vtext {
	enum vtext_tool tool;
	int n;
	int power_na;	/* rocm-smi rows whose power read N/A */
	int partitions; /* rocm-smi's ROCm 6 table: GPUs split into partitions (a row each) */
	struct vtext_gpu g[VTEXT_MAX_GPUS];
};

/* The tool's name as users type it ("rocm-smi"). */
const char *vtext_tool_name(enum vtext_tool t);

/* 1 when text holds one of the outputs above (the first found is read). */
int vendor_text_parse(const char *text, size_t len, struct vtext *out);

#endif
