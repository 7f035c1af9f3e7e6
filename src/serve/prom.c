/*
 * prom.c - one round as Prometheus text (prom.h). Families are written
 * whole (HELP, TYPE, then one line per GPU that knows the value); a family
 * no GPU knows is left out.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/prom.h"

/* A label value: backslash, double quote and newline escaped. */
static void label_value(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f);
		if (*s == '\n') {
			fputs("\\n", f);
			continue;
		}
		fputc(*s, f);
	}
}

static void label(FILE *f, const char *k, const char *v, int *first)
{
	fprintf(f, "%s%s=\"", *first ? "" : ",", k);
	label_value(f, v);
	fputc('"', f);
	*first = 0;
}

/* dcgm-exporter's label set: by default the snake_case spellings promtool
 * accepts, with r->dcgm_labels its exact names (docs/serve.md) */
static void gpu_labels(FILE *f, const struct prom_round *r, unsigned d, int *first)
{
	const struct gpu_static *st = &r->st[d];
	char idx[16], dev[32];
	snprintf(idx, sizeof(idx), "%u", d);
	snprintf(dev, sizeof(dev), "%s%u", strcmp(st->vendor, "nvidia") == 0 ? "nvidia" : "gpu", d);
	label(f, "gpu", idx, first);
	label(f, "UUID", (st->valid & GPU_S_UUID) ? st->uuid : "", first);
	label(f, "pci_bus_id", (st->valid & GPU_S_PCI) ? st->pci_bus_id : "", first);
	label(f, "device", dev, first);
	label(f, r->dcgm_labels ? "modelName" : "model_name",
	      (st->valid & GPU_S_NAME) ? st->name : "", first);
	label(f, r->dcgm_labels ? "Hostname" : "hostname", r->host ? r->host : "", first);
	label(f, r->dcgm_labels ? "DCGM_FI_DRIVER_VERSION" : "driver_version",
	      (st->valid & GPU_S_DRIVER) ? st->driver_version : "", first);
}

/* A MIG instance's series: its GPU's labels, then dcgm-exporter's
 * GPU_I_PROFILE and GPU_I_ID, and the MIG device's own UUID (which
 * dcgm-exporter cannot give) */
static void mig_labels(FILE *f, const struct prom_round *r, unsigned d, const struct gpu_mig *m,
		       int *first)
{
	char gi[16];
	snprintf(gi, sizeof(gi), "%u", m->gi_id);
	gpu_labels(f, r, d, first);
	label(f, "GPU_I_PROFILE", m->profile, first);
	label(f, "GPU_I_ID", gi, first);
	label(f, "MIG_UUID", m->uuid, first);
}

static const struct gpu_migs *migs_of(const struct prom_round *r, unsigned d)
{
	return r->migs && r->migs[d].valid ? &r->migs[d] : NULL;
}

static int mig_has(const struct gpu_mig *m, int metric)
{
	return gpu_sample_has(&m->s, metric) && isfinite(m->s.v[metric]);
}

static void value(FILE *f, double v)
{
	if (v == floor(v) && fabs(v) < 9007199254740992.0)
		fprintf(f, " %.0f\n", v);
	else
		fprintf(f, " %.10g\n", v);
}

static void family(FILE *f, const char *name, const char *help, const char *type)
{
	fprintf(f, "# HELP gpuscope_%s %s\n# TYPE gpuscope_%s %s\n", name, help, name, type);
}

static void device_metrics(FILE *f, const struct prom_round *r)
{
	for (int m = 0; m < GPU_M_COUNT; m++) {
		const struct gpu_metric_info *i = &gpu_metrics[m];
		int any = 0;
		for (unsigned d = 0; d < r->n_dev; d++) {
			const struct gpu_migs *mg = migs_of(r, d);
			any |= gpu_sample_has(&r->s[d], m) && isfinite(r->s[d].v[m]);
			for (unsigned k = 0; mg && k < mg->n; k++)
				any |= mig_has(&mg->m[k], m);
		}
		if (!any)
			continue;
		family(f, i->prom_name, i->help, i->kind == GPU_COUNTER ? "counter" : "gauge");
		for (unsigned d = 0; d < r->n_dev; d++) {
			const struct gpu_migs *mg = migs_of(r, d);
			if (gpu_sample_has(&r->s[d], m) && isfinite(r->s[d].v[m])) {
				int first = 1;
				fprintf(f, "gpuscope_%s{", i->prom_name);
				gpu_labels(f, r, d, &first);
				fputc('}', f);
				value(f, r->s[d].v[m] * i->scale);
			}
			for (unsigned k = 0; mg && k < mg->n; k++) {
				int first = 1;
				if (!mig_has(&mg->m[k], m))
					continue;
				fprintf(f, "gpuscope_%s{", i->prom_name);
				mig_labels(f, r, d, &mg->m[k], &first);
				fputc('}', f);
				value(f, mg->m[k].s.v[m] * i->scale);
			}
		}
	}
}

/* one 0/1 series per known reason of metric m's mask, in family name:
 * dashboards need no bit arithmetic */
static void reason_family(FILE *f, const struct prom_round *r, enum gpu_metric m,
			  const struct gpu_clock_reason *t, unsigned nt, const char *name,
			  const char *help)
{
	int any = 0;
	for (unsigned d = 0; d < r->n_dev; d++)
		any |= gpu_sample_has(&r->s[d], m);
	if (!any)
		return;
	family(f, name, help, "gauge");
	for (unsigned d = 0; d < r->n_dev; d++) {
		if (!gpu_sample_has(&r->s[d], m))
			continue;
		unsigned long long mask = gpu_reasons_mask(r->s[d].v[m]);
		for (unsigned k = 0; k < nt; k++) {
			int first = 1;
			fprintf(f, "gpuscope_%s{", name);
			gpu_labels(f, r, d, &first);
			label(f, "reason", t[k].key, &first);
			fprintf(f, "} %d\n", (mask & t[k].bit) ? 1 : 0);
		}
	}
}

static void reason_metrics(FILE *f, const struct prom_round *r)
{
	reason_family(
	    f, r, GPU_M_CLOCK_EVENTS, gpu_clock_reasons, gpu_n_clock_reasons,
	    "clock_event_reason_active",
	    "1 while the clocks are held down for this reason (NVML clocks event reasons)");
	reason_family(f, r, GPU_M_THROTTLE, gpu_intel_throttle, gpu_n_intel_throttle,
		      "gt_throttle_reason_active",
		      "1 while the Intel GT frequency is held down for this reason (sysfs)");
}

static void info_metric(FILE *f, const struct prom_round *r)
{
	family(f, "gpu_info", "static facts about the GPU as labels; the value is 1", "gauge");
	for (unsigned d = 0; d < r->n_dev; d++) {
		const struct gpu_static *st = &r->st[d];
		char cc[16] = "", cuda[16] = "", sms[16] = "";
		int first = 1;
		if (st->valid & GPU_S_CC)
			snprintf(cc, sizeof(cc), "%d.%d", st->cc_major, st->cc_minor);
		if (st->valid & GPU_S_CUDA_DRIVER)
			snprintf(cuda, sizeof(cuda), "%d.%d", st->cuda_driver_version / 1000,
				 (st->cuda_driver_version % 1000) / 10);
		if (st->valid & GPU_S_SM_COUNT)
			snprintf(sms, sizeof(sms), "%u", st->sm_count);
		fputs("gpuscope_gpu_info{", f);
		gpu_labels(f, r, d, &first);
		label(f, "vendor", st->vendor, &first);
		label(f, "compute_capability", cc, &first);
		label(f, "cuda_driver_version", cuda, &first);
		int nv = strcmp(st->vendor, "nvidia") == 0;
		label(f, "sm_count", nv ? sms : "", &first);
		/* another vendor's own facts (NVIDIA's label set stays as it was) */
		if (!nv) {
			label(f, "arch", (st->valid & GPU_S_ARCH) ? st->arch : "", &first);
			label(f, "compute_units", sms, &first);
		}
		fputs("} 1\n", f);
	}
}

static void proc_metrics(FILE *f, const struct prom_round *r)
{
	for (int m = 0; m < GPU_PM_COUNT; m++) {
		static const unsigned bit[GPU_PM_COUNT] = {GPU_P_MEM, GPU_P_SM, GPU_P_MEMBW};
		const struct gpu_proc_metric_info *i = &gpu_proc_metrics[m];
		int any = 0;
		for (unsigned d = 0; d < r->n_dev; d++)
			for (unsigned k = 0; r->procs[d].g.valid && k < r->procs[d].g.n; k++)
				any |= (r->procs[d].g.p[k].valid & bit[m]) != 0;
		if (!any)
			continue;
		family(f, i->prom_name, i->help, "gauge");
		for (unsigned d = 0; d < r->n_dev; d++)
			for (unsigned k = 0; r->procs[d].g.valid && k < r->procs[d].g.n; k++) {
				const struct gpu_proc *p = &r->procs[d].g.p[k];
				const struct proc_meta *x = &r->procs[d].meta[k];
				char pid[16], gi[16];
				int first = 1;
				if (!(p->valid & bit[m]))
					continue;
				snprintf(pid, sizeof(pid), "%u", p->pid);
				fprintf(f, "gpuscope_%s{", i->prom_name);
				gpu_labels(f, r, d, &first);
				label(f, "pid", pid, &first);
				label(f, "command", x->comm, &first);
				label(f, "container_id", x->container_id, &first);
				label(f, "pod_uid", x->pod_uid, &first);
				if (p->valid & GPU_P_GI) {
					const struct gpu_migs *mg = migs_of(r, d);
					for (unsigned j = 0; mg && j < mg->n; j++)
						if (mg->m[j].gi_id == p->gpu_instance_id)
							label(f, "GPU_I_PROFILE", mg->m[j].profile,
							      &first);
					snprintf(gi, sizeof(gi), "%u", p->gpu_instance_id);
					label(f, "GPU_I_ID", gi, &first);
				}
				fputc('}', f);
				value(f, (m == GPU_PM_MEM  ? (double)p->mem_bytes
					  : m == GPU_PM_SM ? p->sm_util
							   : p->mem_util) *
					     i->scale);
			}
	}
}

int prom_render(char **out, size_t *len, const struct prom_round *r)
{
	FILE *f = open_memstream(out, len);
	if (!f)
		return -1;
	info_metric(f, r);
	device_metrics(f, r);
	reason_metrics(f, r);
	proc_metrics(f, r);
	family(f, "sample_timestamp_seconds", "when the GPUs were last read (Unix time)", "gauge");
	fprintf(f, "gpuscope_sample_timestamp_seconds %.3f\n", r->ts / 1e9);
	if (fclose(f) != 0 || !*out) {
		free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}
