/*
 * log.c - the monitor log, written and read (log.h for the format and
 * its crash-safety contract).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yajl/yajl_tree.h>

#include "util/vec.h"
#include "monitor/k8s.h"
#include "monitor/log.h"
#include "util/textsafe.h"
#include "util/error.h"
#include "util/json_out.h"

/* ---- formatting ---- */

static FILE *mem_open(char **out, size_t *len)
{
	*out = NULL;
	*len = 0;
	return open_memstream(out, len);
}

static int mem_close(FILE *f, char **out)
{
	fputc('\n', f);
	if (fclose(f) != 0 || !*out) {
		free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

static void put_str(FILE *f, const char *k, const char *v)
{
	fprintf(f, ",\"%s\":\"", k);
	json_escape(f, v);
	fputc('"', f);
}

void monlog_num(FILE *f, double v)
{
	if (v == floor(v) && fabs(v) < 9007199254740992.0)
		fprintf(f, "%.0f", v);
	else
		fprintf(f, "%.10g", v);
}

static void put_num(FILE *f, const char *k, double v)
{
	if (isfinite(v)) {
		fprintf(f, ",\"%s\":", k);
		monlog_num(f, v);
	}
}

int monlog_fmt_header(char **out, size_t *len, const char *version, const char *host,
		      int64_t start_ns, double interval_s, unsigned n_dev)
{
	FILE *f = mem_open(out, len);
	if (!f)
		return -1;
	fprintf(f, "{\"t\":\"header\",\"schema\":\"%s\"", MONLOG_SCHEMA);
	put_str(f, "version", version ? version : "");
	put_str(f, "host", host);
	fprintf(f, ",\"start_ns\":%lld", (long long)start_ns);
	put_num(f, "interval_s", interval_s);
	fprintf(f, ",\"gpus\":%u}", n_dev);
	return mem_close(f, out);
}

int monlog_fmt_gpu(char **out, size_t *len, unsigned dev, const struct gpu_static *st)
{
	FILE *f = mem_open(out, len);
	unsigned v = st->valid;
	if (!f)
		return -1;
	fprintf(f, "{\"t\":\"gpu\",\"gpu\":%u", dev);
	put_str(f, "vendor", st->vendor);
	if (v & GPU_S_NAME)
		put_str(f, "name", st->name);
	if (v & GPU_S_UUID)
		put_str(f, "uuid", st->uuid);
	if (v & GPU_S_PCI)
		put_str(f, "pci", st->pci_bus_id);
	if (v & GPU_S_DRIVER)
		put_str(f, "driver", st->driver_version);
	if (v & GPU_S_CUDA_DRIVER)
		put_num(f, "cuda_driver", st->cuda_driver_version);
	if (v & GPU_S_CC) {
		put_num(f, "cc_major", st->cc_major);
		put_num(f, "cc_minor", st->cc_minor);
	}
	if (v & GPU_S_SM_COUNT)
		put_num(f, "sm_count", st->sm_count);
	if (v & GPU_S_MEM_TOTAL)
		put_num(f, "mem_total", (double)st->mem_total);
	if (v & GPU_S_PCIE_MAX) {
		put_num(f, "pcie_max_gen", st->pcie_max_gen);
		put_num(f, "pcie_max_width", st->pcie_max_width);
	}
	if (v & GPU_S_MIG)
		put_num(f, "mig", st->mig_mode);
	if (v & GPU_S_PERSISTENCE)
		put_num(f, "persistence", st->persistence);
	if (v & GPU_S_ECC_MODE)
		put_num(f, "ecc", st->ecc_enabled);
	if (v & GPU_S_SLOWDOWN_TEMP)
		put_num(f, "slowdown_c", st->slowdown_temp_c);
	if (v & GPU_S_SHUTDOWN_TEMP)
		put_num(f, "shutdown_c", st->shutdown_temp_c);
	if (v & GPU_S_MAX_SM_CLOCK)
		put_num(f, "max_sm_mhz", (double)st->max_sm_clock_mhz);
	if (v & GPU_S_MAX_MEM_CLOCK)
		put_num(f, "max_mem_mhz", (double)st->max_mem_clock_mhz);
	if (v & GPU_S_MEM_BUS_WIDTH)
		put_num(f, "mem_bus_bits", (double)st->mem_bus_width_bits);
	if (v & GPU_S_ARCH)
		put_str(f, "arch", st->arch);
	if (v & GPU_S_HOTSPOT_SLOWDOWN)
		put_num(f, "hotspot_slowdown_c", st->hotspot_slowdown_c);
	fputc('}', f);
	return mem_close(f, out);
}

/* ,"v":{...}: the known values of s under their trace names */
static void put_values(FILE *f, const struct gpu_sample *s)
{
	int first = 1;
	fputs(",\"v\":{", f);
	for (int m = 0; m < GPU_M_COUNT; m++) {
		if (!gpu_sample_has(s, m) || !isfinite(s->v[m]))
			continue;
		fprintf(f, "%s\"%s\":", first ? "" : ",", gpu_metrics[m].trace_name);
		monlog_num(f, s->v[m]);
		first = 0;
	}
	fputc('}', f);
}

/* ,"mig":[...]: one object per instance; an unknown field is absent */
static void put_migs(FILE *f, const struct gpu_migs *mg)
{
	fputs(",\"mig\":[", f);
	for (unsigned k = 0; k < mg->n && k < GPU_MAX_MIG; k++) {
		const struct gpu_mig *m = &mg->m[k];
		fprintf(f, "%s{\"gi\":%u", k ? "," : "", m->gi_id);
		if (m->ci_id >= 0)
			fprintf(f, ",\"ci\":%d", m->ci_id);
		if (m->profile[0])
			put_str(f, "profile", m->profile);
		if (m->uuid[0])
			put_str(f, "mig_uuid", m->uuid);
		put_values(f, &m->s);
		fputc('}', f);
	}
	fputc(']', f);
}

int monlog_fmt_sample(char **out, size_t *len, int64_t ts, unsigned dev, const struct gpu_sample *s,
		      const struct mon_procs *procs, const struct gpu_migs *migs)
{
	FILE *f = mem_open(out, len);
	if (!f)
		return -1;
	fprintf(f, "{\"t\":\"s\",\"ts\":%lld,\"gpu\":%u", (long long)ts, dev);
	put_values(f, s);
	if (procs && procs->g.valid) {
		fprintf(f, ",\"procs_total\":%u,\"procs\":[", procs->g.total);
		for (unsigned i = 0; i < procs->g.n; i++) {
			const struct gpu_proc *p = &procs->g.p[i];
			const struct proc_meta *m = &procs->meta[i];
			fprintf(f, "%s{\"pid\":%u", i ? "," : "", p->pid);
			if (p->valid & GPU_P_MEM)
				put_num(f, "mem", (double)p->mem_bytes);
			if (p->valid & GPU_P_SM)
				put_num(f, "sm", p->sm_util);
			if (p->valid & GPU_P_MEMBW)
				put_num(f, "memu", p->mem_util);
			if (p->valid & GPU_P_GI)
				put_num(f, "gi", p->gpu_instance_id);
			if (m->comm[0])
				put_str(f, "comm", m->comm);
			if (m->container_id[0])
				put_str(f, "container", m->container_id);
			if (m->pod_uid[0])
				put_str(f, "pod", m->pod_uid);
			if (m->k8s.ns[0])
				put_str(f, "k8s_ns", m->k8s.ns);
			if (m->k8s.pod[0])
				put_str(f, "k8s_pod", m->k8s.pod);
			if (m->k8s.container[0])
				put_str(f, "k8s_container", m->k8s.container);
			fputc('}', f);
		}
		fputc(']', f);
	}
	if (migs && migs->valid)
		put_migs(f, migs);
	fputc('}', f);
	return mem_close(f, out);
}

/* ---- writing ---- */

/* 1 when the first line of fd is a monitor log header. */
static int starts_as_log(int fd)
{
	char buf[256];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	return strncmp(buf, "{\"t\":\"header\",\"schema\":\"" MONLOG_SCHEMA "\"",
		       strlen("{\"t\":\"header\",\"schema\":\"" MONLOG_SCHEMA "\"")) == 0;
}

int monlog_open(struct monlog_writer *w, const char *path, char *err)
{
	struct stat st;
	w->fd = -1;
	snprintf(w->path, sizeof(w->path), "%s", path);
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return error_set(err, "'%s' is not a regular file; not writing a log there", path);
	/* O_NONBLOCK: a FIFO must not block us in open(); it is refused below */
	int fd =
	    open(path, O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0644);
	if (fd < 0)
		return error_set(err, "cannot open '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return error_set(err, "'%s' is not a regular file; not writing a log there", path);
	}
	if (st.st_size > 0) {
		int rfd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		int ours = rfd >= 0 && starts_as_log(rfd);
		if (rfd >= 0)
			close(rfd);
		if (!ours) {
			close(fd);
			return error_set(err,
					 "'%s' exists and is not a gpuscope monitor log; not "
					 "appending to it",
					 path);
		}
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	w->fd = fd;
	return 0;
}

int monlog_append(struct monlog_writer *w, const char *line, size_t len, int sync, char *err)
{
	/* one write: O_APPEND makes it land whole at the end, or not at all
	 * past what a crash leaves (a cut last line, which readers skip) */
	size_t off = 0;
	while (off < len) {
		ssize_t n = write(w->fd, line + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return error_set(err, "cannot write '%s': %s", w->path,
					 n < 0 ? strerror(errno) : "short write");
		off += (size_t)n;
	}
	if (sync && fdatasync(w->fd) < 0 && errno != EINVAL)
		return error_set(err, "cannot sync '%s': %s", w->path, strerror(errno));
	return 0;
}

void monlog_close(struct monlog_writer *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
}

/* ---- reading ---- */

/*
 * Reads one line into buf (cap bytes). Returns 1 with *len, 0 at EOF.
 * A line longer than cap is consumed whole and reported by *overlong;
 * *nl says whether it ended with a newline.
 */
static int read_line(FILE *f, char *buf, size_t cap, size_t *len, int *overlong, int *nl)
{
	int c;
	size_t n = 0;
	*overlong = 0;
	*nl = 0;
	while ((c = getc(f)) != EOF) {
		if (c == '\n') {
			*nl = 1;
			break;
		}
		if (n + 1 < cap)
			buf[n++] = (char)c;
		else
			*overlong = 1;
	}
	buf[n] = 0;
	*len = n;
	return c != EOF || n > 0 || *overlong;
}

static const char *get_str(yajl_val o, const char *k)
{
	const char *path[2] = {k, NULL};
	yajl_val v = yajl_tree_get(o, path, yajl_t_string);
	return v ? YAJL_GET_STRING(v) : NULL;
}

/* 1 with *out when o[k] is a number. */
static int get_num(yajl_val o, const char *k, double *out)
{
	const char *path[2] = {k, NULL};
	yajl_val v = yajl_tree_get(o, path, yajl_t_number);
	if (!v)
		return 0;
	*out = YAJL_IS_INTEGER(v) ? (double)YAJL_GET_INTEGER(v) : YAJL_GET_DOUBLE(v);
	/* beyond 2^53 nothing we log is exact, and casts would be undefined */
	return isfinite(*out) && fabs(*out) <= 9007199254740992.0;
}

/* 1 with *out when o[k] is an integer (timestamps: ns since 1970, past 2^53). */
static int get_int(yajl_val o, const char *k, long long *out)
{
	const char *path[2] = {k, NULL};
	yajl_val v = yajl_tree_get(o, path, yajl_t_number);
	if (!v || !YAJL_IS_INTEGER(v))
		return 0;
	*out = YAJL_GET_INTEGER(v);
	return 1;
}

/* A string of the log: its control characters never reach a terminal or
 * a Prometheus label (util/textsafe.h) */
static void copy_str(char *dst, size_t cap, const char *src)
{
	snprintf(dst, cap, "%s", src ? src : "");
	textsafe_str(dst);
}

static void read_gpu(struct monlog *l, yajl_val o)
{
	double d;
	const char *s;
	if (!get_num(o, "gpu", &d) || d < 0 || d >= GPU_MAX_DEVICES)
		return;
	unsigned i = (unsigned)d;
	struct gpu_static *st = &l->st[i];
	if (l->have_st[i])
		return; /* a later session's: the first one names the devices */
	memset(st, 0, sizeof(*st));
	l->have_st[i] = 1;
	copy_str(st->vendor, sizeof(st->vendor), get_str(o, "vendor"));
#define STR(key, field, bit)                                                                       \
	if ((s = get_str(o, key)) != NULL) {                                                       \
		copy_str(st->field, sizeof(st->field), s);                                         \
		st->valid |= bit;                                                                  \
	}
#define NUM(key, field, bit)                                                                       \
	if (get_num(o, key, &d) && d >= 0 &&                                                       \
	    d <= 2147483647.0 * ((bit) == GPU_S_MEM_TOTAL ? 1e6 : 1)) {                            \
		st->field = (__typeof__(st->field))d;                                              \
		st->valid |= bit;                                                                  \
	}
	STR("name", name, GPU_S_NAME);
	STR("uuid", uuid, GPU_S_UUID);
	STR("pci", pci_bus_id, GPU_S_PCI);
	STR("driver", driver_version, GPU_S_DRIVER);
	NUM("cuda_driver", cuda_driver_version, GPU_S_CUDA_DRIVER);
	NUM("cc_major", cc_major, GPU_S_CC);
	NUM("cc_minor", cc_minor, GPU_S_CC);
	NUM("sm_count", sm_count, GPU_S_SM_COUNT);
	NUM("mem_total", mem_total, GPU_S_MEM_TOTAL);
	NUM("pcie_max_gen", pcie_max_gen, GPU_S_PCIE_MAX);
	NUM("pcie_max_width", pcie_max_width, GPU_S_PCIE_MAX);
	NUM("mig", mig_mode, GPU_S_MIG);
	NUM("persistence", persistence, GPU_S_PERSISTENCE);
	NUM("ecc", ecc_enabled, GPU_S_ECC_MODE);
	NUM("slowdown_c", slowdown_temp_c, GPU_S_SLOWDOWN_TEMP);
	NUM("shutdown_c", shutdown_temp_c, GPU_S_SHUTDOWN_TEMP);
	NUM("max_sm_mhz", max_sm_clock_mhz, GPU_S_MAX_SM_CLOCK);
	NUM("max_mem_mhz", max_mem_clock_mhz, GPU_S_MAX_MEM_CLOCK);
	NUM("mem_bus_bits", mem_bus_width_bits, GPU_S_MEM_BUS_WIDTH);
	STR("arch", arch, GPU_S_ARCH);
	NUM("hotspot_slowdown_c", hotspot_slowdown_c, GPU_S_HOTSPOT_SLOWDOWN);
#undef STR
#undef NUM
	if (i + 1 > l->n_dev)
		l->n_dev = i + 1;
}

/* Makes room for n devices in round r (new entries zeroed). */
static int round_room(struct monlog_round *r, unsigned n)
{
	if (n <= r->n_alloc)
		return 0;
	struct gpu_sample *s = realloc(r->s, n * sizeof(*s));
	if (!s)
		return -1;
	r->s = s;
	struct monlog_procs *p = realloc(r->procs, n * sizeof(*p));
	if (!p)
		return -1;
	r->procs = p;
	struct monlog_migs *mg = realloc(r->migs, n * sizeof(*mg));
	if (!mg)
		return -1;
	r->migs = mg;
	memset(r->s + r->n_alloc, 0, (n - r->n_alloc) * sizeof(*s));
	memset(r->procs + r->n_alloc, 0, (n - r->n_alloc) * sizeof(*p));
	memset(r->migs + r->n_alloc, 0, (n - r->n_alloc) * sizeof(*mg));
	r->n_alloc = n;
	return 0;
}

static struct monlog_round *new_round(struct monlog *l, int64_t ts, unsigned need)
{
	struct monlog_round *r = VEC_PUSH(l->rounds, l->n_rounds, l->cap_rounds);
	if (!r)
		return NULL;
	r->ts = ts;
	if (round_room(r, need > l->n_dev ? need : l->n_dev) < 0)
		return NULL;
	return r;
}

static int names_eq(const void *ctx, uint32_t i)
{
	const struct monlog *l = ((const void *const *)ctx)[0];
	const struct k8s_names *k = ((const void *const *)ctx)[1];
	return memcmp(&l->names[i], k, sizeof(*k)) == 0;
}

/* A process's pod names (each a valid Kubernetes name, else left out) as
 * 1 + their index in l->names, added once; 0 when it has none, or when
 * MONLOG_MAX_NAMES are kept already (counted) or out of memory. */
static uint32_t read_names(struct monlog *l, yajl_val o)
{
	struct k8s_names k;
	const char *ns = get_str(o, "k8s_ns"), *pod = get_str(o, "k8s_pod"),
		   *ctr = get_str(o, "k8s_container");
	memset(&k, 0, sizeof(k));
	if (ns && k8s_label_ok(ns))
		snprintf(k.ns, sizeof(k.ns), "%s", ns);
	if (pod && k8s_subdomain_ok(pod))
		snprintf(k.pod, sizeof(k.pod), "%s", pod);
	if (ctr && k8s_label_ok(ctr))
		snprintf(k.container, sizeof(k.container), "%s", ctr);
	if (!k.ns[0] && !k.pod[0] && !k.container[0])
		return 0;
	uint64_t h = hash_bytes(&k, sizeof(k));
	const void *ctx[2] = {l, &k};
	int64_t found = hindex_find(&l->names_idx, h, names_eq, ctx);
	if (found >= 0)
		return (uint32_t)found + 1;
	if (l->n_names >= MONLOG_MAX_NAMES) {
		l->dropped_names++;
		return 0;
	}
	struct k8s_names *slot = VEC_PUSH(l->names, l->n_names, l->cap_names);
	if (!slot)
		return 0;
	*slot = k;
	if (hindex_add(&l->names_idx, h, (uint32_t)(l->n_names - 1)) < 0) {
		l->n_names--;
		return 0;
	}
	return (uint32_t)l->n_names;
}

static int read_procs(struct monlog *l, struct monlog_procs *out, yajl_val arr, double total)
{
	size_t n = YAJL_GET_ARRAY(arr)->len;
	free(out->p);
	free(out->meta);
	memset(out, 0, sizeof(*out));
	if (n > GPU_MAX_PROCS)
		n = GPU_MAX_PROCS;
	out->p = calloc(n ? n : 1, sizeof(*out->p));
	out->meta = calloc(n ? n : 1, sizeof(*out->meta));
	if (!out->p || !out->meta)
		return -1;
	for (size_t i = 0; i < n; i++) {
		yajl_val o = YAJL_GET_ARRAY(arr)->values[i];
		struct gpu_proc *p = &out->p[out->n];
		struct monlog_meta *m = &out->meta[out->n];
		double d;
		if (!YAJL_IS_OBJECT(o) || !get_num(o, "pid", &d) || d < 0 || d > 4294967295.0)
			continue;
		p->pid = (uint32_t)d;
		if (get_num(o, "mem", &d) && d >= 0) {
			p->mem_bytes = (unsigned long long)d;
			p->valid |= GPU_P_MEM;
		}
		if (get_num(o, "sm", &d)) {
			p->sm_util = d;
			p->valid |= GPU_P_SM;
		}
		if (get_num(o, "memu", &d)) {
			p->mem_util = d;
			p->valid |= GPU_P_MEMBW;
		}
		if (get_num(o, "gi", &d) && d >= 0 && d <= 4294967295.0) {
			p->gpu_instance_id = (unsigned)d;
			p->valid |= GPU_P_GI;
		}
		copy_str(m->comm, sizeof(m->comm), get_str(o, "comm"));
		copy_str(m->container_id, sizeof(m->container_id), get_str(o, "container"));
		copy_str(m->pod_uid, sizeof(m->pod_uid), get_str(o, "pod"));
		m->k8s = read_names(l, o);
		out->n++;
	}
	out->total = total >= out->n && total < 1e9 ? (unsigned)total : out->n;
	out->valid = 1;
	return 0;
}

/* Sets the known metrics of the object v (its keys: trace names) in s. */
static void read_values(struct gpu_sample *s, yajl_val v)
{
	for (size_t k = 0; k < YAJL_GET_OBJECT(v)->len; k++) {
		yajl_val x = YAJL_GET_OBJECT(v)->values[k];
		int m = gpu_metric_by_trace_name(YAJL_GET_OBJECT(v)->keys[k]);
		if (m < 0 || !YAJL_IS_NUMBER(x))
			continue; /* a metric a newer gpuscope wrote: skipped */
		double val = YAJL_IS_INTEGER(x) ? (double)YAJL_GET_INTEGER(x) : YAJL_GET_DOUBLE(x);
		/* every metric is a count, a rate, a level or a code: none is
		 * negative (NVML's are unsigned), so a negative one is unknown */
		if (isfinite(val) && val >= 0 && val <= 9007199254740992.0)
			gpu_sample_set(s, m, val);
	}
}

/* o[k] into dst (cap bytes): 1 when absent ("" unknown) or a string that
 * fits, 0 when of another type or too long (a truncated UUID or profile
 * would be another instance's label). */
static int get_field(yajl_val o, const char *k, char *dst, size_t cap)
{
	const char *path[2] = {k, NULL};
	yajl_val v = yajl_tree_get(o, path, yajl_t_any);
	dst[0] = 0;
	if (!v)
		return 1;
	const char *str = YAJL_GET_STRING(v); /* NULL: not a string */
	if (!str || strlen(str) >= cap)
		return 0;
	copy_str(dst, cap, str);
	return 1;
}

/* One instance object into m; 0, or -1 when it is not one we wrote. */
static int read_mig(struct gpu_mig *m, yajl_val o)
{
	const char *path[2] = {"ci", NULL};
	double d;
	memset(m, 0, sizeof(*m));
	m->ci_id = -1;
	if (!YAJL_IS_OBJECT(o) || !get_num(o, "gi", &d) || d < 0 || d > 4294967295.0 ||
	    d != floor(d))
		return -1;
	m->gi_id = (unsigned)d;
	if (yajl_tree_get(o, path, yajl_t_any)) {
		if (!get_num(o, "ci", &d) || d < 0 || d > 2147483647.0 || d != floor(d))
			return -1;
		m->ci_id = (int)d;
	}
	if (!get_field(o, "profile", m->profile, sizeof(m->profile)) ||
	    !get_field(o, "mig_uuid", m->uuid, sizeof(m->uuid)))
		return -1;
	path[0] = "v";
	yajl_val v = yajl_tree_get(o, path, yajl_t_any);
	if (v && !YAJL_IS_OBJECT(v))
		return -1;
	if (v)
		read_values(&m->s, v);
	return 0;
}

/* 1 when m has the labels of one of the n before it: two series of one
 * name and labels would fail the whole scrape */
static int mig_dup(const struct gpu_mig *m, const struct gpu_mig *before, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (before[i].gi_id == m->gi_id && strcmp(before[i].profile, m->profile) == 0 &&
		    strcmp(before[i].uuid, m->uuid) == 0)
			return 1;
	return 0;
}

/*
 * A line's "mig" list into out: at most GPU_MAX_MIG instances, each entry
 * that is not one we wrote refused and counted (l->bad_migs), past
 * MONLOG_MAX_MIGS readings in the log none kept. -1 only when out of memory.
 */
static int read_migs(struct monlog *l, struct monlog_migs *out, yajl_val arr)
{
	free(out->m);
	memset(out, 0, sizeof(*out));
	if (!YAJL_IS_ARRAY(arr)) {
		l->bad_migs++;
		return 0;
	}
	size_t n = YAJL_GET_ARRAY(arr)->len;
	unsigned cap = n < GPU_MAX_MIG ? (unsigned)n : GPU_MAX_MIG;
	if (l->n_migs + cap > MONLOG_MAX_MIGS) {
		l->dropped_migs += cap;
		return 0;
	}
	out->m = calloc(cap ? cap : 1, sizeof(*out->m));
	if (!out->m)
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct gpu_mig *m = &out->m[out->n];
		if (out->n == cap || read_mig(m, YAJL_GET_ARRAY(arr)->values[i]) < 0 ||
		    mig_dup(m, out->m, out->n)) {
			l->bad_migs++;
			continue;
		}
		out->n++;
	}
	l->n_migs += out->n;
	out->valid = 1;
	return 0;
}

/* 0 when the line was used, -1 when it was not a record we can use. */
static int read_sample(struct monlog *l, yajl_val o)
{
	double d;
	long long ts;
	const char *path[2] = {"v", NULL};
	yajl_val v = yajl_tree_get(o, path, yajl_t_object);
	if (!v || !get_int(o, "ts", &ts) || !get_num(o, "gpu", &d) || d < 0 || d >= GPU_MAX_DEVICES)
		return -1;
	unsigned dev = (unsigned)d;
	struct monlog_round *r = l->n_rounds ? &l->rounds[l->n_rounds - 1] : NULL;
	/* a new round: a new time, or this device already has a sample in it */
	if (!r || r->ts != (int64_t)ts || ((r->seen >> dev) & 1))
		r = new_round(l, (int64_t)ts, dev + 1);
	if (!r || round_room(r, dev + 1) < 0)
		return -1;
	struct gpu_sample *s = &r->s[dev];
	r->seen |= 1ull << dev;
	s->real_ns = (int64_t)ts;
	read_values(s, v);
	path[0] = "procs";
	yajl_val pr = yajl_tree_get(o, path, yajl_t_array);
	if (pr) {
		double total = -1;
		get_num(o, "procs_total", &total);
		if (read_procs(l, &r->procs[dev], pr, total) < 0)
			return -1;
	}
	/* a bad "mig" costs its instances, never the GPU's values above */
	path[0] = "mig";
	yajl_val mg = yajl_tree_get(o, path, yajl_t_any);
	if (mg && read_migs(l, &r->migs[dev], mg) < 0)
		return -1;
	if (dev + 1 > l->n_dev)
		l->n_dev = dev + 1;
	return 0;
}

static void read_header(struct monlog *l, yajl_val o)
{
	double d;
	l->sessions++;
	if (l->sessions > 1)
		return;
	copy_str(l->host, sizeof(l->host), get_str(o, "host"));
	if (get_num(o, "interval_s", &d) && d > 0)
		l->interval_s = d;
	long long start;
	if (get_int(o, "start_ns", &start) && start > 0)
		l->start_ns = start;
}

/* 0: used; -1: unreadable */
static int read_record(struct monlog *l, const char *line, size_t *samples)
{
	yajl_val o = yajl_tree_parse(line, NULL, 0);
	int rc = -1;
	if (!o || !YAJL_IS_OBJECT(o))
		goto out;
	const char *t = get_str(o, "t");
	if (!t)
		goto out;
	if (strcmp(t, "header") == 0) {
		const char *schema = get_str(o, "schema");
		if (schema && strcmp(schema, MONLOG_SCHEMA) == 0) {
			read_header(l, o);
			rc = 0;
		}
	} else if (strcmp(t, "gpu") == 0) {
		read_gpu(l, o);
		rc = 0;
	} else if (strcmp(t, "s") == 0) {
		if (*samples >= MONLOG_MAX_SAMPLES) {
			l->dropped_samples++;
			rc = 0;
		} else if ((rc = read_sample(l, o)) == 0) {
			(*samples)++;
		}
	}
out:
	yajl_tree_free(o);
	return rc;
}

int monlog_read(struct monlog *l, const char *path, char *err)
{
	struct stat st;
	size_t samples = 0;
	memset(l, 0, sizeof(*l));
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return error_set(err, "cannot open '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return error_set(err, "'%s' is not a regular file", path);
	}
	FILE *f = fdopen(fd, "r");
	char *buf = malloc(MONLOG_MAX_LINE);
	if (!f || !buf) {
		if (f)
			fclose(f);
		else
			close(fd);
		free(buf);
		return error_set(err, "out of memory");
	}
	size_t len;
	int overlong, nl;
	while (read_line(f, buf, MONLOG_MAX_LINE, &len, &overlong, &nl)) {
		l->lines++;
		if (l->lines == 1 && len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0) {
			memmove(buf, buf + 3, len - 2); /* a UTF-8 byte order mark, and the NUL */
			len -= 3;
		}
		int bad = overlong || read_record(l, buf, &samples) < 0;
		/* a line cut by a crash: no newline, or NUL bytes a filesystem left */
		if (!nl || memchr(buf, 0, len))
			bad = 1;
		l->cut_last_line = bad && !nl;
		if (bad && len == 0 && nl && !overlong)
			bad = 0; /* an empty line */
		if (bad && !l->bad_lines++)
			l->first_bad_line = l->lines;
	}
	int ioerr = ferror(f);
	fclose(f);
	free(buf);
	if (ioerr) {
		monlog_release(l);
		return error_set(err, "cannot read '%s'", path);
	}
	for (size_t r = 0; r < l->n_rounds; r++)
		if (round_room(&l->rounds[r], l->n_dev) < 0) {
			monlog_release(l);
			return error_set(err, "out of memory");
		}
	if (l->sessions == 0 || l->n_rounds == 0) {
		size_t lines = l->lines;
		int sessions = l->sessions;
		monlog_release(l);
		if (sessions == 0)
			return error_set(
			    err, "'%s' is not a gpuscope monitor log (no %s header in %zu lines)",
			    path, MONLOG_SCHEMA, lines);
		return error_set(err, "'%s' holds no readable sample", path);
	}
	return 0;
}

void monlog_release(struct monlog *l)
{
	for (size_t r = 0; r < l->n_rounds; r++) {
		for (unsigned d = 0; d < l->rounds[r].n_alloc; d++) {
			free(l->rounds[r].procs[d].p);
			free(l->rounds[r].procs[d].meta);
			free(l->rounds[r].migs[d].m);
		}
		free(l->rounds[r].s);
		free(l->rounds[r].procs);
		free(l->rounds[r].migs);
	}
	free(l->rounds);
	free(l->names);
	hindex_release(&l->names_idx);
	memset(l, 0, sizeof(*l));
}

const char *monlog_note(const struct monlog *l, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = 0;
	if (l->bad_lines)
		n += (size_t)snprintf(buf + n, len - n,
				      "%zu of %zu lines unreadable and skipped (first: line %zu%s)",
				      l->bad_lines, l->lines, l->first_bad_line,
				      l->cut_last_line ? "; the last line is cut" : "");
	if (l->dropped_samples && n < len)
		n += (size_t)snprintf(buf + n, len - n, "%s%zu samples past the first %u not read",
				      n ? "; " : "", l->dropped_samples, MONLOG_MAX_SAMPLES);
	if (l->bad_migs && n < len)
		n += (size_t)snprintf(buf + n, len - n,
				      "%s%zu MIG instance entries unreadable and skipped",
				      n ? "; " : "", l->bad_migs);
	if (l->dropped_migs && n < len)
		n += (size_t)snprintf(buf + n, len - n,
				      "%s%zu MIG instance readings past the first %u not read",
				      n ? "; " : "", l->dropped_migs, MONLOG_MAX_MIGS);
	if (l->dropped_names && n < len)
		n += (size_t)snprintf(buf + n, len - n,
				      "%s%zu processes' pod names past the first %u pods not read",
				      n ? "; " : "", l->dropped_names, MONLOG_MAX_NAMES);
	return buf;
}

void monlog_round_procs(const struct monlog *l, size_t r, unsigned dev, struct mon_procs *out)
{
	const struct monlog_procs *p = &l->rounds[r].procs[dev];
	memset(&out->g, 0, sizeof(out->g));
	if (!p->valid)
		return;
	out->g.valid = 1;
	out->g.n = p->n;
	out->g.total = p->total;
	memcpy(out->g.p, p->p, p->n * sizeof(*p->p));
	for (unsigned i = 0; i < p->n; i++) {
		const struct monlog_meta *m = &p->meta[i];
		struct proc_meta *x = &out->meta[i];
		memcpy(x->comm, m->comm, sizeof(x->comm));
		memcpy(x->container_id, m->container_id, sizeof(x->container_id));
		memcpy(x->pod_uid, m->pod_uid, sizeof(x->pod_uid));
		if (m->k8s)
			x->k8s = l->names[m->k8s - 1];
		else
			memset(&x->k8s, 0, sizeof(x->k8s));
	}
}

void monlog_round_migs(const struct monlog *l, size_t r, unsigned dev, struct gpu_migs *out)
{
	const struct monlog_migs *m = &l->rounds[r].migs[dev];
	memset(out, 0, sizeof(*out));
	if (!m->valid)
		return;
	out->valid = 1;
	out->n = m->n;
	memcpy(out->m, m->m, m->n * sizeof(*m->m));
}
