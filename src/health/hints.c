/*
 * hints.c - the one-line reading hints of a GPU sample (hints.h): monitor's
 * views and explain's reading of a pasted nvidia-smi table. Each threshold
 * says where it comes from.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "diagnose/thresholds.h"
#include "health/hints.h"

/* GPU-Util "high": the seed 004 §1.1 table's healthy line (80% and up),
 * the same as the report's busy threshold */
#define HINT_UTIL_HIGH_PCT TH_GPU_BUSY_PCT
/* SM activity "near 0" beside a high GPU-Util: on the H200 a 2-block kernel
 * read 62% GPU-Util and 0.1% GPM SM activity (PRODUCT.md); 10% is 13 of 132
 * SMs, already a small grid (seed 000 §1.1: a few SMs active, the rest idle) */
#define HINT_SM_LOW_PCT 10.0
/* DRAM "near its roof": Nsight Compute's SpeedOfLight high-throughput line */
#define HINT_DRAM_ROOF_PCT TH_SOL_HIGH_PCT
/* memory "near the limit" in the seed 004 §1.1 table: within 10% of the
 * card, as the report's memory_peak finding */
#define HINT_MEM_FULL_FRAC 0.90
/* a sample in which (almost) no kernel ran: memory bandwidth cannot be
 * what limits it, whatever the memory holds */
#define HINT_UTIL_IDLE_PCT 5.0
/* "over 90 C needs attention" (seed 004 §6.4) */
#define HINT_TEMP_C 90.0
/* PCIe generation below its maximum only counts under load (idle links
 * train down to save power): doctor's PCIE_BUSY_UTIL_PCT */
#define HINT_PCIE_BUSY_PCT 30.0
/* AMD: power "at its cap": within 2% of power1_cap (the SMU holds the
 * average at the cap, so it reads a hair under it) */
#define HINT_POWER_CAP_FRAC 0.98
/* AMD: the junction "near" the temperature it throttles at: the same 5 C
 * margin as NVIDIA's slowdown (doctor's TEMP_MARGIN_C) */
#define HINT_HOTSPOT_MARGIN_C 5.0

struct hints {
	char (*out)[MON_HINT_LEN];
	int n, max;
};

__attribute__((format(printf, 2, 3))) static void add(struct hints *h, const char *fmt, ...)
{
	va_list ap;
	if (h->n >= h->max)
		return;
	va_start(ap, fmt);
	vsnprintf(h->out[h->n++], MON_HINT_LEN, fmt, ap);
	va_end(ap);
}

#define HAS(m) gpu_sample_has(s, GPU_M_##m)
#define V(m) (s->v[GPU_M_##m])

static void utilization(struct hints *h, const struct gpu_sample *s, const struct gpu_procs *p)
{
	int busy_procs = !p || !p->valid || p->total > 0;
	if (HAS(GPU_UTIL) && HAS(GPM_SM) && V(GPU_UTIL) >= HINT_UTIL_HIGH_PCT &&
	    V(GPM_SM) < HINT_SM_LOW_PCT)
		add(h,
		    "GPU-Util %.0f%% but SM activity %.1f%%: a small kernel keeps the GPU 'busy' "
		    "- gpuscope record will show which",
		    V(GPU_UTIL), V(GPM_SM));
	if (HAS(GPM_DRAM) && V(GPM_DRAM) >= HINT_DRAM_ROOF_PCT)
		add(h,
		    "DRAM bandwidth at %.0f%% of its peak: memory-bound - fewer passes over "
		    "memory, "
		    "fusion or lower precision help, more threads do not",
		    V(GPM_DRAM));
	if (!HAS(GPU_UTIL) || !HAS(MEM_USED) || !HAS(MEM_TOTAL) || V(MEM_TOTAL) <= 0 ||
	    V(GPU_UTIL) >= HINT_UTIL_HIGH_PCT || !busy_procs)
		return;
	double frac = V(MEM_USED) / V(MEM_TOTAL);
	if (frac >= HINT_MEM_FULL_FRAC && V(GPU_UTIL) <= HINT_UTIL_IDLE_PCT)
		add(h,
		    "GPU-Util %.0f%% with memory %.0f%% full: the memory is held but almost no "
		    "kernel runs - the job waits (data loading, the host, a stalled step) or "
		    "idles between requests",
		    V(GPU_UTIL), 100 * frac);
	else if (frac >= HINT_MEM_FULL_FRAC)
		add(h,
		    "GPU-Util %.0f%% with memory %.0f%% full: a large model with sparse compute, "
		    "likely bound by memory bandwidth",
		    V(GPU_UTIL), 100 * frac);
	else if (p && p->valid && p->total > 0)
		add(h,
		    "GPU-Util %.0f%% with memory %.0f%% used: the GPU waits - data loading, copies "
		    "or launch overhead (check the DataLoader and op fusion); gpuscope record "
		    "shows "
		    "which",
		    V(GPU_UTIL), 100 * frac);
}

static void clocks_and_heat(struct hints *h, const struct gpu_static *st,
			    const struct gpu_sample *s)
{
	if (HAS(CLOCK_EVENTS)) {
		unsigned long long r = gpu_reasons_mask(V(CLOCK_EVENTS));
		if ((r & GPU_REASONS_POWER) && HAS(POWER) && HAS(POWER_LIMIT))
			add(h,
			    "clocks held down for power (%.0f of %.0f W): the card is at its power "
			    "limit - check nvidia-smi -q -d POWER and the PSU",
			    V(POWER), V(POWER_LIMIT));
		else if (r & GPU_REASONS_POWER)
			add(h, "clocks held down for power: the card is at its power limit - check "
			       "nvidia-smi -q -d POWER and the PSU");
		if (r & GPU_REASONS_THERMAL)
			add(h, "clocks held down for temperature: check airflow, fans and inlet "
			       "temperature");
	}
	if (HAS(TEMP) && V(TEMP) >= HINT_TEMP_C)
		add(h, "temperature %.0f C: over 90 C needs attention - airflow and fans first",
		    V(TEMP));
	else if (HAS(TEMP) && (st->valid & GPU_S_SLOWDOWN_TEMP) &&
		 V(TEMP) + 5 >= st->slowdown_temp_c)
		add(h, "temperature %.0f C, slowdown at %u C: the clocks will drop soon", V(TEMP),
		    st->slowdown_temp_c);
}

static void links_and_errors(struct hints *h, const struct gpu_static *st,
			     const struct gpu_sample *s)
{
	if (HAS(PCIE_WIDTH) && HAS(PCIE_WIDTH_MAX) && V(PCIE_WIDTH) < V(PCIE_WIDTH_MAX))
		add(h,
		    "PCIe link x%.0f of x%.0f: the link trained down - reseat the card, check the "
		    "slot (lspci -vv: LnkSta vs LnkCap)",
		    V(PCIE_WIDTH), V(PCIE_WIDTH_MAX));
	else if (HAS(PCIE_GEN) && HAS(PCIE_GEN_MAX) && HAS(GPU_UTIL) &&
		 V(GPU_UTIL) >= HINT_PCIE_BUSY_PCT && V(PCIE_GEN) < V(PCIE_GEN_MAX))
		add(h, "PCIe gen %.0f of %.0f under load: the link runs slower than it can",
		    V(PCIE_GEN), V(PCIE_GEN_MAX));
	if (HAS(XID_COUNT) && V(XID_COUNT) > 0) {
		if (HAS(XID_LAST))
			add(h,
			    "%.0f XID error(s) since start, the last XID %.0f: gpuscope explain "
			    "%.0f",
			    V(XID_COUNT), V(XID_LAST), V(XID_LAST));
		else
			add(h, "%.0f XID error(s) since start: dmesg | grep -i xid", V(XID_COUNT));
	}
	if (HAS(ECC_UNCORR) && V(ECC_UNCORR) > 0)
		add(h,
		    "%.0f uncorrected ECC error(s): drain and reset the GPU; replace it if it "
		    "repeats",
		    V(ECC_UNCORR));
	if ((HAS(REMAP_FAILURE) && V(REMAP_FAILURE) > 0) ||
	    (HAS(REMAP_PENDING) && V(REMAP_PENDING) > 0))
		add(h, "%s",
		    HAS(REMAP_FAILURE) && V(REMAP_FAILURE) > 0
			? "a row-remapping failure: replace the GPU"
			: "a row remap is pending: reset the GPU when idle so it takes effect");
	(void)st;
}

/* seed 000 §3.3: on a shared GPU the numbers are everyone's */
static void sharing(struct hints *h, const struct gpu_static *st, const struct gpu_procs *p)
{
	if ((st->valid & GPU_S_MIG) && st->mig_mode)
		add(h, "MIG is on: the whole-GPU numbers mix the instances; each instance's share "
		       "is its own");
	if (p && p->valid && p->total > 1)
		add(h, "%u processes share this GPU: GPU-Util and memory include all of them",
		    p->total);
}

/* ---- AMD and Intel: what their own numbers mean (no GPM, no GPU-Util) ---- */

static void amd_hints(struct hints *h, const struct gpu_static *st, const struct gpu_sample *s,
		      const struct gpu_procs *p)
{
	if (HAS(GFX_BUSY) && V(GFX_BUSY) >= HINT_UTIL_HIGH_PCT)
		add(h,
		    "busy %.0f%% is amdgpu's gpu_busy_percent, the firmware's average activity of "
		    "the graphics and compute engine: it does not say how many CUs work "
		    "(rocprofv3 --kernel-trace or omniperf show the kernels)",
		    V(GFX_BUSY));
	if (HAS(GFX_BUSY) && HAS(MEM_USED) && HAS(MEM_TOTAL) && V(MEM_TOTAL) > 0 &&
	    V(MEM_USED) / V(MEM_TOTAL) >= HINT_MEM_FULL_FRAC && V(GFX_BUSY) <= HINT_UTIL_IDLE_PCT &&
	    (!p || !p->valid || p->total > 0))
		add(h,
		    "busy %.0f%% with VRAM %.0f%% full: the memory is held but the engine idles - "
		    "the job waits (data loading, the host, a stalled step) or idles between "
		    "requests",
		    V(GFX_BUSY), 100 * V(MEM_USED) / V(MEM_TOTAL));
	if (HAS(POWER) && HAS(POWER_LIMIT) && V(POWER_LIMIT) > 0 &&
	    V(POWER) >= HINT_POWER_CAP_FRAC * V(POWER_LIMIT))
		add(h,
		    "power %.0f of %.0f W: at its cap, the firmware holds the clocks down for "
		    "power (amd-smi metric shows THROTTLE_STATUS)",
		    V(POWER), V(POWER_LIMIT));
	if (HAS(TEMP_HOTSPOT) && (st->valid & GPU_S_HOTSPOT_SLOWDOWN) &&
	    V(TEMP_HOTSPOT) + HINT_HOTSPOT_MARGIN_C >= st->hotspot_slowdown_c)
		add(h,
		    "junction %.0f C, throttling at %u C: the clocks will drop - airflow and fans",
		    V(TEMP_HOTSPOT), st->hotspot_slowdown_c);
	if (HAS(RAS_UNCORR) && V(RAS_UNCORR) > 0)
		add(h,
		    "%.0f uncorrected RAS error(s): the driver logged them (sudo dmesg | grep -i "
		    "amdgpu); drain and reset the GPU, replace it if it repeats",
		    V(RAS_UNCORR));
	else if (HAS(RAS_CORR) && V(RAS_CORR) > 0)
		add(h,
		    "%.0f corrected RAS error(s) since the driver loaded: harmless alone, watch "
		    "whether the count grows",
		    V(RAS_CORR));
}

static void intel_hints(struct hints *h, const struct gpu_sample *s)
{
	if (HAS(THROTTLE)) {
		unsigned long long r = gpu_reasons_mask(V(THROTTLE));
		if (r & GPU_INTEL_THROTTLE_POWER)
			add(h,
			    "GT frequency held down for power (%s): the card is at its power "
			    "limit - power1_max in its hwmon directory is PL1",
			    r & 0x1ULL	 ? "PL1"
			    : r & 0x2ULL ? "PL2"
					 : "current limit");
		if (r & GPU_INTEL_THROTTLE_THERMAL)
			add(h, "GT frequency held down for temperature: check airflow, fans and "
			       "inlet temperature");
	}
	if (HAS(ENGINE_RENDER) && HAS(ENGINE_COMPUTE) && V(ENGINE_COMPUTE) < 1 &&
	    V(ENGINE_RENDER) >= HINT_UTIL_HIGH_PCT)
		add(h,
		    "render engine %.0f%% busy, compute engines idle: SYCL and PyTorch XPU kernels "
		    "may run on the render engine (its compute queue); the share says time, "
		    "not how many Xe cores work",
		    V(ENGINE_RENDER));
}

/* links, temperature and sharing, in words that fit any vendor */
static void other_common(struct hints *h, const struct gpu_sample *s, const struct gpu_procs *p)
{
	if (HAS(PCIE_WIDTH) && HAS(PCIE_WIDTH_MAX) && V(PCIE_WIDTH) < V(PCIE_WIDTH_MAX))
		add(h,
		    "PCIe link x%.0f of x%.0f: the link trained down - reseat the card, check the "
		    "slot (lspci -vv: LnkSta vs LnkCap)",
		    V(PCIE_WIDTH), V(PCIE_WIDTH_MAX));
	if (HAS(TEMP) && V(TEMP) >= HINT_TEMP_C)
		add(h, "temperature %.0f C: over 90 C needs attention - airflow and fans first",
		    V(TEMP));
	if (HAS(ECC_UNCORR) && V(ECC_UNCORR) > 0)
		add(h,
		    "%.0f uncorrected memory ECC error(s): drain and reset the GPU; replace it if "
		    "it repeats",
		    V(ECC_UNCORR));
	if (p && p->valid && p->total > 1)
		add(h,
		    "%u processes have this GPU open: its busy share and memory include all of "
		    "them",
		    p->total);
}

int mon_hints(const struct gpu_static *st, const struct gpu_sample *s,
	      const struct gpu_procs *procs, char (*out)[MON_HINT_LEN], int max)
{
	struct hints h = {out, 0, max};
	if (!strcmp(st->vendor, "amd") || !strcmp(st->vendor, "intel")) {
		if (!strcmp(st->vendor, "amd"))
			amd_hints(&h, st, s, procs);
		else
			intel_hints(&h, s);
		other_common(&h, s, procs);
		return h.n;
	}
	utilization(&h, s, procs);
	clocks_and_heat(&h, st, s);
	links_and_errors(&h, st, s);
	sharing(&h, st, procs);
	return h.n;
}
