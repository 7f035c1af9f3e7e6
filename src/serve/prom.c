/*
 * prom.c - one round as Prometheus text (prom.h). Families are written
 * whole (HELP, TYPE, then one line per GPU that knows the value); a family
 * no GPU knows is left out. With compat_dcgm the registry's metrics that
 * have a DCGM field are written under that field's name and unit instead.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/prom.h"

/* A label value: backslash, double quote and newline escaped, and no other
 * control character (ESC, CR, BEL: '?', util/textsafe.h) that a terminal
 * showing the page would obey. */
static void label_value(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '\\' || c == '"')
			fputc('\\', f);
		if (c == '\n') {
			fputs("\\n", f);
			continue;
		}
		if (c == 0xc2 && (unsigned char)s[1] >= 0x80 && (unsigned char)s[1] <= 0x9f) {
			fputs("??", f); /* a C1 control in UTF-8 */
			s++;
			continue;
		}
		fputc(c < 0x20 || c == 0x7f ? '?' : c, f);
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
	int dcgm = r->dcgm_labels || r->compat_dcgm;
	label(f, dcgm ? "modelName" : "model_name", (st->valid & GPU_S_NAME) ? st->name : "",
	      first);
	label(f, dcgm ? "Hostname" : "hostname", r->host ? r->host : "", first);
	label(f, dcgm ? "DCGM_FI_DRIVER_VERSION" : "driver_version",
	      (st->valid & GPU_S_DRIVER) ? st->driver_version : "", first);
}

/* The pod whose processes alone run on device d (gi >= 0: on its GPU
 * instance gi): every one of them in a pod of known namespace and name, the
 * same; its container too when they share one, else "". NULL when the list
 * is unknown or incomplete, empty, or holds a process of no pod, of an
 * unnamed one or of another. dcgm-exporter labels a GPU with the pod the
 * kubelet allocated it to; gpuscope sees the processes that use it. */
static const struct k8s_names *gpu_pod(const struct prom_round *r, unsigned d, long gi,
				       struct k8s_names *out)
{
	const struct mon_procs *p = r->procs ? &r->procs[d] : NULL;
	unsigned n = 0;
	if (!p || !p->g.valid || p->g.total > p->g.n)
		return NULL;
	for (unsigned k = 0; k < p->g.n; k++) {
		const struct k8s_names *x = &p->meta[k].k8s;
		if (gi >= 0 &&
		    (!(p->g.p[k].valid & GPU_P_GI) || (long)p->g.p[k].gpu_instance_id != gi))
			continue;
		if (!x->ns[0] || !x->pod[0])
			return NULL;
		if (n++ == 0) {
			*out = *x;
			continue;
		}
		if (strcmp(x->ns, out->ns) != 0 || strcmp(x->pod, out->pod) != 0)
			return NULL;
		if (strcmp(x->container, out->container) != 0)
			out->container[0] = 0;
	}
	return n ? out : NULL;
}

/* A pod's names: dcgm-exporter's namespace, pod, container with its label
 * names, else gpuscope's (pod_namespace, pod_name, container_name: beside
 * pod_uid and container_id, and clear of the namespace, pod and container
 * labels Kubernetes service discovery gives the scraped target); a name
 * not known is left out. */
static void pod_labels(FILE *f, const struct prom_round *r, const struct k8s_names *k, int *first)
{
	int dcgm = r->dcgm_labels || r->compat_dcgm;
	if (!k)
		return;
	if (k->ns[0])
		label(f, dcgm ? "namespace" : "pod_namespace", k->ns, first);
	if (k->pod[0])
		label(f, dcgm ? "pod" : "pod_name", k->pod, first);
	if (k->container[0])
		label(f, dcgm ? "container" : "container_name", k->container, first);
}

/* A GPU's series labels: its own, then its pod's (gpu_pod). */
static void gpu_series_labels(FILE *f, const struct prom_round *r, unsigned d, int *first)
{
	struct k8s_names k;
	gpu_labels(f, r, d, first);
	pod_labels(f, r, gpu_pod(r, d, -1, &k), first);
}

/* A MIG instance's series: its GPU's labels, then dcgm-exporter's
 * GPU_I_PROFILE and GPU_I_ID, and the MIG device's own UUID (which
 * dcgm-exporter cannot give) */
static void mig_labels(FILE *f, const struct prom_round *r, unsigned d, const struct gpu_mig *m,
		       int *first)
{
	char gi[16];
	struct k8s_names k;
	snprintf(gi, sizeof(gi), "%u", m->gi_id);
	gpu_labels(f, r, d, first);
	label(f, "GPU_I_PROFILE", m->profile, first);
	label(f, "GPU_I_ID", gi, first);
	label(f, "MIG_UUID", m->uuid, first);
	pod_labels(f, r, gpu_pod(r, d, (long)m->gi_id, &k), first);
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

double prom_dcgm_scale(int metric, const char **unit)
{
	const struct gpu_metric_info *i = &gpu_metrics[metric];
	static const struct {
		const char *from, *to;
		double scale;
	} units[] = {
	    {"MB/s", "B/s", 1e6}, {"B", "MiB", 1.0 / 1048576}, {"J", "mJ", 1000}, {"s", "us", 1e6}};
	if (strcmp(i->unit, "%") == 0 && strncmp(i->dcgm, "DCGM_FI_PROF_", 13) == 0) {
		*unit = "ratio";
		return 0.01;
	}
	for (size_t k = 0; k < sizeof(units) / sizeof(units[0]); k++)
		if (strcmp(i->unit, units[k].from) == 0) {
			*unit = units[k].to;
			return units[k].scale;
		}
	*unit = i->unit;
	return 1;
}

/* A family's lines for one reading per GPU and MIG instance: get() says
 * whether a sample knows it and its value. */
typedef int (*value_fn)(const struct gpu_sample *s, double *v, const void *arg);

static int any_value(const struct prom_round *r, value_fn get, const void *arg)
{
	double v;
	for (unsigned d = 0; d < r->n_dev; d++) {
		const struct gpu_migs *mg = migs_of(r, d);
		if (get(&r->s[d], &v, arg))
			return 1;
		for (unsigned k = 0; mg && k < mg->n; k++)
			if (get(&mg->m[k].s, &v, arg))
				return 1;
	}
	return 0;
}

static void series(FILE *f, const struct prom_round *r, const char *name, value_fn get,
		   const void *arg)
{
	double v;
	for (unsigned d = 0; d < r->n_dev; d++) {
		const struct gpu_migs *mg = migs_of(r, d);
		int first = 1;
		if (get(&r->s[d], &v, arg)) {
			fprintf(f, "%s{", name);
			gpu_series_labels(f, r, d, &first);
			fputc('}', f);
			value(f, v);
		}
		for (unsigned k = 0; mg && k < mg->n; k++) {
			first = 1;
			if (!get(&mg->m[k].s, &v, arg))
				continue;
			fprintf(f, "%s{", name);
			mig_labels(f, r, d, &mg->m[k], &first);
			fputc('}', f);
			value(f, v);
		}
	}
}

struct scaled {
	int metric;
	double scale;
};

static int get_scaled(const struct gpu_sample *s, double *v, const void *arg)
{
	const struct scaled *x = arg;
	if (!gpu_sample_has(s, x->metric) || !isfinite(s->v[x->metric]))
		return 0;
	*v = s->v[x->metric] * x->scale;
	return 1;
}

static int get_fb_free(const struct gpu_sample *s, double *v, const void *arg)
{
	(void)arg;
	if (!gpu_sample_has(s, GPU_M_MEM_USED) || !gpu_sample_has(s, GPU_M_MEM_TOTAL) ||
	    !isfinite(s->v[GPU_M_MEM_USED]) || !isfinite(s->v[GPU_M_MEM_TOTAL]) ||
	    s->v[GPU_M_MEM_TOTAL] < s->v[GPU_M_MEM_USED])
		return 0;
	*v = (s->v[GPU_M_MEM_TOTAL] - s->v[GPU_M_MEM_USED]) / 1048576;
	return 1;
}

static void dcgm_family(FILE *f, const struct prom_round *r, const char *name, const char *help,
			const char *type, value_fn get, const void *arg)
{
	if (!any_value(r, get, arg))
		return;
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
	series(f, r, name, get, arg);
}

/* dcgm-exporter's families: the registry's DCGM fields in DCGM's units,
 * DCGM_FI_DEV_FB_FREE from total and used, and DCGM_FI_PROF_GR_ENGINE_ACTIVE
 * from NVML's GPU-Util (the same reading: the share of time a kernel ran;
 * DCGM takes it from the graphics engine's activity counter) */
static void dcgm_metrics(FILE *f, const struct prom_round *r)
{
	char help[256];
	for (int m = 0; m < GPU_M_COUNT; m++) {
		const struct gpu_metric_info *i = &gpu_metrics[m];
		const char *unit;
		if (!i->dcgm[0])
			continue;
		struct scaled x = {m, prom_dcgm_scale(m, &unit)};
		snprintf(help, sizeof(help), "%s (%s)", i->help, unit[0] ? unit : "count");
		dcgm_family(f, r, i->dcgm, help, i->kind == GPU_COUNTER ? "counter" : "gauge",
			    get_scaled, &x);
		if (m == GPU_M_MEM_USED)
			dcgm_family(f, r, "DCGM_FI_DEV_FB_FREE", "device memory free (MiB)",
				    "gauge", get_fb_free, NULL);
	}
	struct scaled gr = {GPU_M_GPU_UTIL, 0.01};
	dcgm_family(f, r, "DCGM_FI_PROF_GR_ENGINE_ACTIVE",
		    "share of the last period in which a kernel ran (NVML GPU-Util; ratio)",
		    "gauge", get_scaled, &gr);
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
		if (!any || (r->compat_dcgm && i->dcgm[0]))
			continue;
		family(f, i->prom_name, i->help, i->kind == GPU_COUNTER ? "counter" : "gauge");
		for (unsigned d = 0; d < r->n_dev; d++) {
			const struct gpu_migs *mg = migs_of(r, d);
			if (gpu_sample_has(&r->s[d], m) && isfinite(r->s[d].v[m])) {
				int first = 1;
				fprintf(f, "gpuscope_%s{", i->prom_name);
				gpu_series_labels(f, r, d, &first);
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
			gpu_series_labels(f, r, d, &first);
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

/* the per-process families a process has values for */
static unsigned proc_series(const struct gpu_proc *p)
{
	return !!(p->valid & GPU_P_MEM) + !!(p->valid & GPU_P_SM) + !!(p->valid & GPU_P_MEMBW);
}

/* Where --max-process-series cuts: processes before device *cut_d's
 * process *cut_k are written, the series of those after it are counted as
 * dropped (the first series in GPU order are kept). */
static uint64_t proc_cut(const struct prom_round *r, unsigned *cut_d, unsigned *cut_k)
{
	uint64_t used = 0, dropped = 0;
	*cut_d = r->n_dev;
	*cut_k = 0;
	for (unsigned d = 0; d < r->n_dev; d++)
		for (unsigned k = 0; r->procs[d].g.valid && k < r->procs[d].g.n; k++) {
			unsigned n = proc_series(&r->procs[d].g.p[k]);
			if (*cut_d == r->n_dev && r->max_proc_series &&
			    used + n > r->max_proc_series) {
				*cut_d = d;
				*cut_k = k;
			}
			if (*cut_d == r->n_dev)
				used += n;
			else
				dropped += n;
		}
	return dropped;
}

static int proc_kept(unsigned d, unsigned k, unsigned cut_d, unsigned cut_k)
{
	return d < cut_d || (d == cut_d && k < cut_k);
}

static void proc_metrics(FILE *f, const struct prom_round *r)
{
	unsigned cut_d, cut_k;
	uint64_t dropped = proc_cut(r, &cut_d, &cut_k);
	for (int m = 0; m < GPU_PM_COUNT; m++) {
		static const unsigned bit[GPU_PM_COUNT] = {GPU_P_MEM, GPU_P_SM, GPU_P_MEMBW};
		const struct gpu_proc_metric_info *i = &gpu_proc_metrics[m];
		int any = 0;
		for (unsigned d = 0; d < r->n_dev; d++)
			for (unsigned k = 0; r->procs[d].g.valid && k < r->procs[d].g.n; k++)
				any |= (r->procs[d].g.p[k].valid & bit[m]) != 0 &&
				       proc_kept(d, k, cut_d, cut_k);
		if (!any)
			continue;
		family(f, i->prom_name, i->help, "gauge");
		for (unsigned d = 0; d < r->n_dev; d++)
			for (unsigned k = 0; r->procs[d].g.valid && k < r->procs[d].g.n; k++) {
				const struct gpu_proc *p = &r->procs[d].g.p[k];
				const struct proc_meta *x = &r->procs[d].meta[k];
				char pid[16], gi[16];
				int first = 1;
				if (!(p->valid & bit[m]) || !proc_kept(d, k, cut_d, cut_k))
					continue;
				snprintf(pid, sizeof(pid), "%u", p->pid);
				fprintf(f, "gpuscope_%s{", i->prom_name);
				gpu_labels(f, r, d, &first);
				label(f, "pid", pid, &first);
				label(f, "command", x->comm, &first);
				label(f, "container_id", x->container_id, &first);
				label(f, "pod_uid", x->pod_uid, &first);
				pod_labels(f, r, &x->k8s, &first);
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
	if (!r->proc_series_dropped)
		return;
	*r->proc_series_dropped += dropped;
	family(f, "process_series_dropped_total",
	       "per-process series left out of the readings since serve started (more than "
	       "--max-process-series in one reading)",
	       "counter");
	fprintf(f, "gpuscope_process_series_dropped_total %llu\n",
		(unsigned long long)*r->proc_series_dropped);
}

int prom_render(char **out, size_t *len, const struct prom_round *r)
{
	FILE *f = open_memstream(out, len);
	if (!f)
		return -1;
	family(f, "up", "1 while the GPUs are read, 0 when none can be (gpuscope_unavailable_info)",
	       "gauge");
	fputs("gpuscope_up 1\n", f);
	info_metric(f, r);
	if (r->compat_dcgm)
		dcgm_metrics(f, r);
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

int prom_render_down(char **out, size_t *len, const char *host, const char *reason)
{
	FILE *f = open_memstream(out, len);
	int first = 1;
	if (!f)
		return -1;
	family(f, "up", "1 while the GPUs are read, 0 when none can be (gpuscope_unavailable_info)",
	       "gauge");
	fputs("gpuscope_up 0\n", f);
	family(f, "unavailable_info",
	       "why no GPU is read (the value is 1); serve retries with a growing delay", "gauge");
	fputs("gpuscope_unavailable_info{", f);
	label(f, "hostname", host, &first);
	label(f, "reason", reason, &first);
	fputs("} 1\n", f);
	if (fclose(f) != 0 || !*out) {
		free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}
