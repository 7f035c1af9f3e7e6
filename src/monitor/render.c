/*
 * render.c - monitor's plain views: a table (one line per GPU per round,
 * hints, processes and MIG instances under it) and CSV (one row per GPU
 * per round and one per MIG instance after it, every registry metric a
 * column, unknown as an empty cell). Unknown is "?" in the table, never 0.
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

void mon_table_header(FILE *f, const struct mon_frame *fr)
{
	for (unsigned d = fr->first; d < fr->first + fr->count; d++)
		static_line(f, d, &fr->st[d]);
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

static void proc_lines(FILE *f, const struct mon_procs *p)
{
	char mem[32], sm[16], mu[16];
	if (!p->g.valid)
		return;
	for (unsigned i = 0; i < p->g.n; i++) {
		const struct gpu_proc *x = &p->g.p[i];
		const struct proc_meta *m = &p->meta[i];
		snprintf(mem, sizeof(mem), (x->valid & GPU_P_MEM) ? "%.0f MiB" : "?",
			 x->mem_bytes / 1048576.0);
		snprintf(sm, sizeof(sm), (x->valid & GPU_P_SM) ? "%.0f%%" : "?", x->sm_util);
		snprintf(mu, sizeof(mu), (x->valid & GPU_P_MEMBW) ? "%.0f%%" : "?", x->mem_util);
		fprintf(f, "  process %u %s: memory %s, sm %s, memory bw %s%s%.12s%s%s\n", x->pid,
			m->comm[0] ? m->comm : "?", mem, sm, mu,
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

void mon_table_round(FILE *f, const struct mon_frame *fr)
{
	char t[16], b[20][48], hint[MON_MAX_HINTS][MON_HINT_LEN];
	clock_str(t, sizeof(t), fr->ts);
	for (unsigned d = fr->first; d < fr->first + fr->count; d++) {
		const struct gpu_sample *s = &fr->s[d];
		int k = 0;
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
		proc_lines(f, &fr->procs[d]);
		mig_lines(f, fr->migs ? &fr->migs[d] : NULL);
	}
	fflush(f);
}

/* the MIG columns come last: scripts that read the older columns by
 * position keep working */
void mon_csv_header(FILE *f)
{
	fprintf(f, "ts_ns,gpu");
	for (int m = 0; m < GPU_M_COUNT; m++)
		fprintf(f, ",%s", gpu_metrics[m].trace_name);
	fprintf(f, ",clock_event_reasons_decoded,hints,profile,gi,ci,mig_uuid\n");
}

/* ts_ns, gpu and one cell per registry metric */
static void csv_values(FILE *f, int64_t ts, unsigned d, const struct gpu_sample *s)
{
	fprintf(f, "%lld,%u", (long long)ts, d);
	for (int m = 0; m < GPU_M_COUNT; m++)
		if (gpu_sample_has(s, m))
			fprintf(f, ",%.10g", s->v[m]);
		else
			fputc(',', f);
}

/* an instance's row: its own values, no reasons or hints (they are the
 * whole GPU's), then its profile, GPU and compute instance, MIG UUID */
static void csv_migs(FILE *f, int64_t ts, unsigned d, const struct gpu_migs *mg)
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
		fputs(",,,,\n", f); /* a whole GPU: no instance */
		csv_migs(f, fr->ts, d, fr->migs ? &fr->migs[d] : NULL);
	}
	fflush(f);
}
