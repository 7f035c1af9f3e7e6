/*
 * render.c - monitor's plain views: a table (one line per GPU per round,
 * hints, processes and MIG instances under it) and CSV (one row per GPU
 * per round and one per MIG instance after it, every registry metric a
 * column, unknown as an empty cell). Unknown is "?" in the table, never 0.
 * An AMD or Intel GPU has its own columns (what its driver tells: busy
 * percent or engine shares, no GPM) under its own header line; the CSV
 * gets the other vendors' metrics as the last columns when one is shown.
 */
#include <math.h>
#include <string.h>
#include <time.h>

#include "health/hints.h"
#include "monitor/monitor.h"
#include "util/csv.h"

const char *mon_num(char *buf, size_t n, const struct gpu_sample *s, enum gpu_metric m, int prec,
		    double scale, const char *suffix)
{
	if (gpu_sample_has(s, m))
		snprintf(buf, n, "%.*f%s", prec, s->v[m] * scale, suffix);
	else
		snprintf(buf, n, "?");
	return buf;
}

/* "a/b" of two metrics, each "?" when unknown */
static const char *pair(char *buf, size_t n, const struct gpu_sample *s, enum gpu_metric a,
			enum gpu_metric b, int prec, double scale, const char *suffix)
{
	char x[24], y[24];
	snprintf(buf, n, "%.23s/%.23s", mon_num(x, sizeof(x), s, a, prec, scale, ""),
		 mon_num(y, sizeof(y), s, b, prec, scale, suffix));
	return buf;
}

static void clock_str(char *buf, size_t n, int64_t ts)
{
	time_t t = (time_t)(ts / 1000000000LL);
	struct tm tm;
	localtime_r(&t, &tm);
	strftime(buf, n, "%H:%M:%S", &tm);
}

int mon_other_vendor(const struct mon_frame *fr, unsigned d)
{
	return fr->st && fr->st[d].vendor[0] && strcmp(fr->st[d].vendor, "nvidia") != 0;
}

/* an AMD or Intel GPU's facts: no CUDA, compute capability or MIG */
static void other_static_line(FILE *f, unsigned d, const struct gpu_static *st)
{
	char mem[32] = "?", pcie[32] = "?", cus[32] = "";
	if (st->valid & GPU_S_MEM_TOTAL)
		snprintf(mem, sizeof(mem), "%.1f GiB", st->mem_total / 1073741824.0);
	if (st->valid & GPU_S_PCIE_MAX)
		snprintf(pcie, sizeof(pcie), "gen%u x%u", st->pcie_max_gen, st->pcie_max_width);
	if (st->valid & GPU_S_SM_COUNT)
		snprintf(cus, sizeof(cus), ", %u CUs", st->sm_count);
	fprintf(f, "gpu %u: %s %s, %s, %s, driver %s%s%s%s, %s, PCIe max %s\n", d, st->vendor,
		(st->valid & GPU_S_NAME) ? st->name : "?",
		(st->valid & GPU_S_PCI) ? st->pci_bus_id : "pci ?",
		(st->valid & GPU_S_UUID) ? st->uuid : "uuid ?",
		(st->valid & GPU_S_DRIVER) ? st->driver_version : "?",
		(st->valid & GPU_S_ARCH) ? ", " : "", (st->valid & GPU_S_ARCH) ? st->arch : "", cus,
		mem, pcie);
}

static void static_line(FILE *f, unsigned d, const struct gpu_static *st)
{
	char cc[16] = "?", sms[16] = "?", mem[32] = "?", pcie[32] = "?", cuda[16] = "?";
	if (st->valid & GPU_S_CC)
		snprintf(cc, sizeof(cc), "%d.%d", st->cc_major, st->cc_minor);
	if (st->valid & GPU_S_SM_COUNT)
		snprintf(sms, sizeof(sms), "%u", st->sm_count);
	if (st->valid & GPU_S_MEM_TOTAL)
		snprintf(mem, sizeof(mem), "%.1f GiB", st->mem_total / 1073741824.0);
	if (st->valid & GPU_S_PCIE_MAX)
		snprintf(pcie, sizeof(pcie), "gen%u x%u", st->pcie_max_gen, st->pcie_max_width);
	if (st->valid & GPU_S_CUDA_DRIVER)
		snprintf(cuda, sizeof(cuda), "%d.%d", st->cuda_driver_version / 1000,
			 (st->cuda_driver_version % 1000) / 10);
	fprintf(f,
		"gpu %u: %s, %s, %s, driver %s (CUDA %s), cc %s, %s SMs, %s, PCIe max %s, MIG %s\n",
		d, (st->valid & GPU_S_NAME) ? st->name : "?",
		(st->valid & GPU_S_PCI) ? st->pci_bus_id : "pci ?",
		(st->valid & GPU_S_UUID) ? st->uuid : "uuid ?",
		(st->valid & GPU_S_DRIVER) ? st->driver_version : "?", cuda, cc, sms, mem, pcie,
		!(st->valid & GPU_S_MIG) ? "?"
		: st->mig_mode		 ? "on"
					 : "off");
}

#define AMD_ROW "%-8s %3s %5s %5s %5s %5s %13s %11s %11s %9s %9s %14s %11s %7s %7s %5s\n"
#define INTEL_ROW "%-8s %3s %6s %7s %5s %5s %13s %11s %9s %6s %5s %11s %-16s %5s\n"

/* which vendors the shown devices are of: bit 0 NVIDIA, 1 AMD, 2 Intel */
static unsigned vendors_shown(const struct mon_frame *fr)
{
	unsigned v = 0;
	for (unsigned d = fr->first; d < fr->first + fr->count; d++)
		v |= !mon_other_vendor(fr, d) ? 1u : strcmp(fr->st[d].vendor, "amd") == 0 ? 2u : 4u;
	return v;
}

void mon_table_header(FILE *f, const struct mon_frame *fr)
{
	unsigned v = vendors_shown(fr);
	for (unsigned d = fr->first; d < fr->first + fr->count; d++)
		if (mon_other_vendor(fr, d))
			other_static_line(f, d, &fr->st[d]);
		else
			static_line(f, d, &fr->st[d]);
	/* busy: gpu_busy_percent; umc: mem_busy_percent; cmp/dma: the
	 * compute and copy engines' shares from DRM fdinfo */
	if (v & 2u)
		fprintf(f, AMD_ROW, "time", "gpu", "busy", "umc", "cmp", "dma", "vram GiB",
			"gtt GiB", "sclk MHz", "mclk MHz", "power W", "edge/hot/mem C", "pcie",
			"ecc c/u", "ras c/u", "procs");
	if (v & 4u)
		fprintf(f, INTEL_ROW, "time", "gpu", "render", "compute", "copy", "video",
			"vram GiB", "gt MHz", "power W", "temp C", "mem C", "pcie", "throttled by",
			"procs");
	if (!(v & 1u))
		return;
	fprintf(
	    f,
	    "%-8s %3s %5s %6s %6s %6s %6s %6s %13s %11s %9s %7s %11s %11s %-16s %7s %9s %3s %5s\n",
	    "time", "gpu", "util", "sm", "occ", "dram", "tensor", "fp32", "mem GiB", "sm MHz",
	    "power W", "temp C", "pcie", "tx/rx MB/s", "clocks held by", "ecc c/u", "rows c/u",
	    "xid", "procs");
}

static const char *reasons(char *buf, size_t n, const struct gpu_sample *s)
{
	if (!gpu_sample_has(s, GPU_M_CLOCK_EVENTS))
		return snprintf(buf, n, "?"), buf;
	/* idle alone is normal: "none" reads better than "gpu_idle" */
	unsigned long long r = gpu_reasons_mask(s->v[GPU_M_CLOCK_EVENTS]);
	return gpu_clock_reasons_str(r & ~1ULL, buf, (unsigned)n);
}

/* other: an AMD or Intel GPU, whose process share is its DRM engine time */
static void proc_lines(FILE *f, const struct mon_procs *p, int other)
{
	char mem[32], sm[16], mu[16], use[64];
	if (!p->g.valid)
		return;
	for (unsigned i = 0; i < p->g.n; i++) {
		const struct gpu_proc *x = &p->g.p[i];
		const struct proc_meta *m = &p->meta[i];
		snprintf(mem, sizeof(mem), (x->valid & GPU_P_MEM) ? "%.0f MiB" : "?",
			 x->mem_bytes / 1048576.0);
		snprintf(sm, sizeof(sm), (x->valid & GPU_P_SM) ? "%.0f%%" : "?", x->sm_util);
		snprintf(mu, sizeof(mu), (x->valid & GPU_P_MEMBW) ? "%.0f%%" : "?", x->mem_util);
		if (other)
			snprintf(use, sizeof(use), "engine busy %s", sm);
		else
			snprintf(use, sizeof(use), "sm %s, memory bw %s", sm, mu);
		fprintf(f, "  process %u %s: memory %s, %s%s%.12s%s%s\n", x->pid,
			m->comm[0] ? m->comm : "?", mem, use,
			m->container_id[0] ? ", container " : "", m->container_id,
			m->pod_uid[0] ? ", pod " : "", m->pod_uid);
	}
	if (p->g.total > p->g.n)
		fprintf(f, "  (%u more processes)\n", p->g.total - p->g.n);
}

const char *mon_mig_line(char *buf, size_t n, const struct gpu_mig *m)
{
	const struct gpu_sample *s = &m->s;
	char b[6][48];
	snprintf(
	    buf, n,
	    "MIG %s GI %u%s%s: memory %s GiB, SM %s, occupancy %s, DRAM %s, tensor %s, fp32 %s",
	    m->profile[0] ? m->profile : "?", m->gi_id, m->uuid[0] ? " " : "", m->uuid,
	    pair(b[0], 48, s, GPU_M_MEM_USED, GPU_M_MEM_TOTAL, 1, 1 / 1073741824.0, ""),
	    mon_num(b[1], 48, s, GPU_M_GPM_SM, 1, 1, "%"),
	    mon_num(b[2], 48, s, GPU_M_GPM_OCC, 1, 1, "%"),
	    mon_num(b[3], 48, s, GPU_M_GPM_DRAM, 1, 1, "%"),
	    mon_num(b[4], 48, s, GPU_M_GPM_TENSOR, 1, 1, "%"),
	    mon_num(b[5], 48, s, GPU_M_GPM_FP32, 1, 1, "%"));
	return buf;
}

/* one line per MIG instance: its profile, GPU instance, MIG UUID, memory and GPM */
static void mig_lines(FILE *f, const struct gpu_migs *mg)
{
	char line[512];
	for (unsigned k = 0; mg && mg->valid && k < mg->n; k++)
		fprintf(f, "  %s\n", mon_mig_line(line, sizeof(line), &mg->m[k]));
}

/* "g4/4 x16/16": the PCIe link now and at most */
static const char *link_str(char *buf, size_t n, const struct gpu_sample *s)
{
	char g[24], w[24];
	snprintf(buf, n, "g%.11s x%.11s",
		 pair(g, sizeof(g), s, GPU_M_PCIE_GEN, GPU_M_PCIE_GEN_MAX, 0, 1, ""),
		 pair(w, sizeof(w), s, GPU_M_PCIE_WIDTH, GPU_M_PCIE_WIDTH_MAX, 0, 1, ""));
	return buf;
}

static void amd_row(FILE *f, const char *t, unsigned d, const struct gpu_sample *s)
{
	char b[16][48], idx[16], temps[64];
	snprintf(idx, sizeof(idx), "%u", d);
	snprintf(temps, sizeof(temps), "%.20s/%.20s/%.20s",
		 mon_num(b[0], 48, s, GPU_M_TEMP, 0, 1, ""),
		 mon_num(b[1], 48, s, GPU_M_TEMP_HOTSPOT, 0, 1, ""),
		 mon_num(b[2], 48, s, GPU_M_TEMP_MEM, 0, 1, ""));
	fprintf(f, AMD_ROW, t, idx, mon_num(b[3], 48, s, GPU_M_GFX_BUSY, 0, 1, "%"),
		mon_num(b[4], 48, s, GPU_M_MEM_BUSY, 0, 1, "%"),
		mon_num(b[5], 48, s, GPU_M_ENGINE_COMPUTE, 0, 1, "%"),
		mon_num(b[6], 48, s, GPU_M_ENGINE_COPY, 0, 1, "%"),
		pair(b[7], 48, s, GPU_M_MEM_USED, GPU_M_MEM_TOTAL, 1, 1 / 1073741824.0, ""),
		pair(b[8], 48, s, GPU_M_GTT_USED, GPU_M_GTT_TOTAL, 1, 1 / 1073741824.0, ""),
		pair(b[9], 48, s, GPU_M_SM_CLOCK, GPU_M_SM_CLOCK_MAX, 0, 1, ""),
		pair(b[10], 48, s, GPU_M_MEM_CLOCK, GPU_M_MEM_CLOCK_MAX, 0, 1, ""),
		pair(b[11], 48, s, GPU_M_POWER, GPU_M_POWER_LIMIT, 0, 1, ""), temps,
		link_str(b[12], 48, s),
		pair(b[13], 48, s, GPU_M_ECC_CORR, GPU_M_ECC_UNCORR, 0, 1, ""),
		pair(b[14], 48, s, GPU_M_RAS_CORR, GPU_M_RAS_UNCORR, 0, 1, ""),
		mon_num(b[15], 48, s, GPU_M_PROCESSES, 0, 1, ""));
}

static void intel_row(FILE *f, const char *t, unsigned d, const struct gpu_sample *s)
{
	char b[14][48], idx[16];
	snprintf(idx, sizeof(idx), "%u", d);
	if (gpu_sample_has(s, GPU_M_THROTTLE))
		gpu_intel_throttle_str(gpu_reasons_mask(s->v[GPU_M_THROTTLE]), b[0], 48);
	else
		snprintf(b[0], 48, "?");
	fprintf(f, INTEL_ROW, t, idx, mon_num(b[1], 48, s, GPU_M_ENGINE_RENDER, 0, 1, "%"),
		mon_num(b[2], 48, s, GPU_M_ENGINE_COMPUTE, 0, 1, "%"),
		mon_num(b[3], 48, s, GPU_M_ENGINE_COPY, 0, 1, "%"),
		mon_num(b[4], 48, s, GPU_M_ENGINE_VIDEO, 0, 1, "%"),
		pair(b[5], 48, s, GPU_M_MEM_USED, GPU_M_MEM_TOTAL, 1, 1 / 1073741824.0, ""),
		pair(b[6], 48, s, GPU_M_SM_CLOCK, GPU_M_SM_CLOCK_MAX, 0, 1, ""),
		pair(b[7], 48, s, GPU_M_POWER, GPU_M_POWER_LIMIT, 0, 1, ""),
		mon_num(b[8], 48, s, GPU_M_TEMP, 0, 1, ""),
		mon_num(b[9], 48, s, GPU_M_TEMP_MEM, 0, 1, ""), link_str(b[10], 48, s), b[0],
		mon_num(b[11], 48, s, GPU_M_PROCESSES, 0, 1, ""));
}

void mon_table_round(FILE *f, const struct mon_frame *fr)
{
	char t[16], b[20][48], hint[MON_MAX_HINTS][MON_HINT_LEN];
	clock_str(t, sizeof(t), fr->ts);
	for (unsigned d = fr->first; d < fr->first + fr->count; d++) {
		const struct gpu_sample *s = &fr->s[d];
		int k = 0;
		if (mon_other_vendor(fr, d)) {
			if (strcmp(fr->st[d].vendor, "amd") == 0)
				amd_row(f, t, d, s);
			else
				intel_row(f, t, d, s);
			int n = mon_hints(&fr->st[d], s, &fr->procs[d].g, hint, MON_MAX_HINTS);
			for (k = 0; k < n; k++)
				fprintf(f, "  note: %s\n", hint[k]);
			proc_lines(f, &fr->procs[d], 1);
			continue;
		}
		fprintf(
		    f,
		    "%-8s %3u %5s %6s %6s %6s %6s %6s %13s %11s %9s %7s %11s %11s %-16s %7s %9s "
		    "%3s %5s\n",
		    t, d, mon_num(b[0], 48, s, GPU_M_GPU_UTIL, 0, 1, "%"),
		    mon_num(b[1], 48, s, GPU_M_GPM_SM, 1, 1, "%"),
		    mon_num(b[2], 48, s, GPU_M_GPM_OCC, 1, 1, "%"),
		    mon_num(b[3], 48, s, GPU_M_GPM_DRAM, 1, 1, "%"),
		    mon_num(b[4], 48, s, GPU_M_GPM_TENSOR, 1, 1, "%"),
		    mon_num(b[5], 48, s, GPU_M_GPM_FP32, 1, 1, "%"),
		    pair(b[6], 48, s, GPU_M_MEM_USED, GPU_M_MEM_TOTAL, 1, 1 / 1073741824.0, ""),
		    pair(b[7], 48, s, GPU_M_SM_CLOCK, GPU_M_SM_CLOCK_MAX, 0, 1, ""),
		    pair(b[8], 48, s, GPU_M_POWER, GPU_M_POWER_LIMIT, 0, 1, ""),
		    pair(b[9], 48, s, GPU_M_TEMP, GPU_M_TEMP_SLOWDOWN, 0, 1, ""),
		    (snprintf(b[10], 48, "g%s x%s",
			      pair(b[12], 24, s, GPU_M_PCIE_GEN, GPU_M_PCIE_GEN_MAX, 0, 1, ""),
			      pair(b[13], 24, s, GPU_M_PCIE_WIDTH, GPU_M_PCIE_WIDTH_MAX, 0, 1, "")),
		     b[10]),
		    pair(b[11], 48, s, GPU_M_PCIE_TX, GPU_M_PCIE_RX, 0, 1, ""),
		    reasons(b[14], 48, s),
		    pair(b[15], 48, s, GPU_M_ECC_CORR, GPU_M_ECC_UNCORR, 0, 1, ""),
		    pair(b[16], 48, s, GPU_M_REMAP_CORR, GPU_M_REMAP_UNC, 0, 1, ""),
		    mon_num(b[17], 48, s, GPU_M_XID_COUNT, 0, 1, ""),
		    mon_num(b[18], 48, s, GPU_M_PROCESSES, 0, 1, ""));
		int n = mon_hints(&fr->st[d], s, &fr->procs[d].g, hint, MON_MAX_HINTS);
		for (k = 0; k < n; k++)
			fprintf(f, "  note: %s\n", hint[k]);
		proc_lines(f, &fr->procs[d], 0);
		mig_lines(f, fr->migs ? &fr->migs[d] : NULL);
	}
	fflush(f);
}

/* the MIG columns come last: scripts that read the older columns by
 * position keep working */
static int any_other_vendor(const struct mon_frame *fr)
{
	for (unsigned d = fr->first; d < fr->first + fr->count; d++)
		if (mon_other_vendor(fr, d))
			return 1;
	return 0;
}

void mon_csv_header(FILE *f, const struct mon_frame *fr)
{
	fprintf(f, "ts_ns,gpu");
	for (int m = 0; m < GPU_M_VENDOR_FIRST; m++)
		fprintf(f, ",%s", gpu_metrics[m].trace_name);
	fprintf(f, ",clock_event_reasons_decoded,hints,profile,gi,ci,mig_uuid");
	/* AMD and Intel metrics last: NVIDIA-only CSV keeps its columns */
	for (int m = GPU_M_VENDOR_FIRST; fr && any_other_vendor(fr) && m < GPU_M_COUNT; m++)
		fprintf(f, ",%s", gpu_metrics[m].trace_name);
	fputc('\n', f);
}

/* the other vendors' cells, at the end of a row (none on NVIDIA-only CSV) */
static void csv_vendor_values(FILE *f, const struct mon_frame *fr, const struct gpu_sample *s)
{
	for (int m = GPU_M_VENDOR_FIRST; any_other_vendor(fr) && m < GPU_M_COUNT; m++)
		if (s && gpu_sample_has(s, m))
			fprintf(f, ",%.10g", s->v[m]);
		else
			fputc(',', f);
}

/* ts_ns, gpu and one cell per registry metric */
static void csv_values(FILE *f, int64_t ts, unsigned d, const struct gpu_sample *s)
{
	fprintf(f, "%lld,%u", (long long)ts, d);
	for (int m = 0; m < GPU_M_VENDOR_FIRST; m++)
		if (gpu_sample_has(s, m)) {
			fputc(',', f);
			monlog_num(f, s->v[m]);
		} else
			fputc(',', f);
}

/* an instance's row: its own values, no reasons or hints (they are the
 * whole GPU's), then its profile, GPU and compute instance, MIG UUID */
static void csv_migs(FILE *f, const struct mon_frame *fr, int64_t ts, unsigned d,
		     const struct gpu_migs *mg)
{
	for (unsigned k = 0; mg && mg->valid && k < mg->n; k++) {
		const struct gpu_mig *m = &mg->m[k];
		csv_values(f, ts, d, &m->s);
		fputs(",,,", f);
		if (m->profile[0]) /* unknown: an empty cell */
			csv_quoted(f, m->profile);
		fprintf(f, ",%u,", m->gi_id);
		if (m->ci_id >= 0)
			fprintf(f, "%d", m->ci_id);
		fputc(',', f);
		if (m->uuid[0])
			csv_quoted(f, m->uuid);
		csv_vendor_values(f, fr, &m->s);
		fputc('\n', f);
	}
}

void mon_csv_round(FILE *f, const struct mon_frame *fr)
{
	char hint[MON_MAX_HINTS][MON_HINT_LEN], r[128], all[MON_MAX_HINTS * (MON_HINT_LEN + 3)];
	for (unsigned d = fr->first; d < fr->first + fr->count; d++) {
		const struct gpu_sample *s = &fr->s[d];
		csv_values(f, fr->ts, d, s);
		fputc(',', f);
		if (gpu_sample_has(s, GPU_M_CLOCK_EVENTS))
			csv_quoted(f,
				   gpu_clock_reasons_str(gpu_reasons_mask(s->v[GPU_M_CLOCK_EVENTS]),
							 r, sizeof(r)));
		fputc(',', f);
		int n = mon_hints(&fr->st[d], s, &fr->procs[d].g, hint, MON_MAX_HINTS);
		size_t used = 0;
		all[0] = 0;
		for (int k = 0; k < n; k++)
			used += (size_t)snprintf(all + used, sizeof(all) - used, "%s%s",
						 k ? " | " : "", hint[k]);
		csv_quoted(f, all);
		fputs(",,,,", f); /* a whole GPU: no instance */
		csv_vendor_values(f, fr, s);
		fputc('\n', f);
		csv_migs(f, fr, fr->ts, d, fr->migs ? &fr->migs[d] : NULL);
	}
	fflush(f);
}
