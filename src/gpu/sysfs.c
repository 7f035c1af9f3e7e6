/*
 * sysfs.c - kernel files under a root prefix and DRM fdinfo clients
 * (sysfs.h), for the amdgpu and Intel backends.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpu/sysfs.h"
#include "util/error.h"

/* fdinfo files one scan reads at most: a bound on a host with huge fd tables */
#define DRM_SCAN_MAX_FILES 200000

int sysfs_path(char *out, size_t cap, const char *root, const char *path)
{
	int n;
	if (!root || !root[0] || (root[0] == '/' && !root[1]))
		n = snprintf(out, cap, "%s", path);
	else
		n = snprintf(out, cap, "%s%s%s", root, path[0] == '/' ? "" : "/", path);
	return n < 0 || (size_t)n >= cap ? -1 : 0;
}

long sysfs_text(const char *root, const char *path, char *out, size_t cap)
{
	char p[SYSFS_PATH];
	out[0] = 0;
	if (sysfs_path(p, sizeof(p), root, path) < 0)
		return -1;
	/* O_NONBLOCK: a FIFO planted in a fixture (or a hostile tree) never blocks */
	int fd = open(p, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -1;
	size_t n = 0;
	while (n + 1 < cap) {
		ssize_t r = read(fd, out + n, cap - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	out[n] = 0;
	return (long)n;
}

int sysfs_str(const char *root, const char *path, char *out, size_t cap)
{
	char buf[512];
	if (sysfs_text(root, path, buf, sizeof(buf)) <= 0)
		return 0;
	buf[strcspn(buf, "\n")] = 0;
	size_t n = strlen(buf);
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = 0;
	if (!n)
		return 0;
	snprintf(out, cap, "%s", buf);
	return 1;
}

int sysfs_u64(const char *root, const char *path, unsigned long long *out)
{
	char buf[64], *end;
	if (!sysfs_str(root, path, buf, sizeof(buf)))
		return 0;
	const char *s = buf;
	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s))
		return 0;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || end == s || (*end && !isspace((unsigned char)*end)))
		return 0;
	*out = v;
	return 1;
}

int sysfs_exists(const char *root, const char *path)
{
	char p[SYSFS_PATH];
	return sysfs_path(p, sizeof(p), root, path) == 0 && access(p, F_OK) == 0;
}

int sysfs_kv(const char *text, const char *key, char *out, size_t cap)
{
	size_t kl = strlen(key);
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, key, kl) != 0 || l[kl] != '=')
			continue;
		size_t n = strcspn(l + kl + 1, "\n");
		if (n >= cap)
			n = cap - 1;
		memcpy(out, l + kl + 1, n);
		out[n] = 0;
		return n > 0;
	}
	return 0;
}

int sysfs_hwmon(const char *root, const char *dev_dir, char *out, size_t cap)
{
	char rel[SYSFS_PATH], p[SYSFS_PATH];
	snprintf(rel, sizeof(rel), "%s/hwmon", dev_dir);
	if (sysfs_path(p, sizeof(p), root, rel) < 0)
		return 0;
	DIR *d = opendir(p);
	if (!d)
		return 0;
	struct dirent *de;
	int found = 0;
	char best[64] = "";
	/* the lowest-numbered hwmonN: one per device in practice */
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "hwmon", 5) || !isdigit((unsigned char)de->d_name[5]))
			continue;
		if (strlen(de->d_name) >= sizeof(best))
			continue;
		if (!found || strtoul(de->d_name + 5, NULL, 10) < strtoul(best + 5, NULL, 10))
			memcpy(best, de->d_name, strlen(de->d_name) + 1);
		found = 1;
	}
	closedir(d);
	if (!found)
		return 0;
	return snprintf(out, cap, "%s/%s", rel, best) < (int)cap;
}

unsigned sysfs_pcie_gen(const char *speed)
{
	/* the kernel's PCIE_SPEED2STR: "2.5 GT/s PCIe" ... "64.0 GT/s PCIe" */
	double gts = strtod(speed, NULL);
	static const double by_gen[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
	for (unsigned g = 0; g < sizeof(by_gen) / sizeof(by_gen[0]); g++)
		if (gts > by_gen[g] - 0.1 && gts < by_gen[g] + 0.1)
			return g + 1;
	return 0;
}

static int link_pair(const char *root, const char *dev_dir, const char *which, unsigned *gen,
		     unsigned *width)
{
	char p[SYSFS_PATH], s[64];
	unsigned long long w;
	snprintf(p, sizeof(p), "%s/%s_link_speed", dev_dir, which);
	if (!sysfs_str(root, p, s, sizeof(s)) || !(*gen = sysfs_pcie_gen(s)))
		return 0;
	snprintf(p, sizeof(p), "%s/%s_link_width", dev_dir, which);
	if (!sysfs_u64(root, p, &w) || w == 0 || w > 32)
		return 0;
	*width = (unsigned)w;
	return 1;
}

void sysfs_pcie_link(const char *root, const char *dev_dir, struct gpu_static *st)
{
	if (link_pair(root, dev_dir, "max", &st->pcie_max_gen, &st->pcie_max_width))
		st->valid |= GPU_S_PCIE_MAX;
	if (link_pair(root, dev_dir, "current", &st->pcie_cur_gen, &st->pcie_cur_width))
		st->valid |= GPU_S_PCIE_CUR;
}

/* ---- DRM cards ---- */

static int render_minor(const char *root, const char *card_dir)
{
	char rel[SYSFS_PATH], p[SYSFS_PATH];
	snprintf(rel, sizeof(rel), "%s/device/drm", card_dir);
	if (sysfs_path(p, sizeof(p), root, rel) < 0)
		return -1;
	DIR *d = opendir(p);
	struct dirent *de;
	int minor = -1;
	while (d && (de = readdir(d)))
		if (!strncmp(de->d_name, "renderD", 7) && isdigit((unsigned char)de->d_name[7]))
			minor = atoi(de->d_name + 7);
	if (d)
		closedir(d);
	return minor;
}

static int card_cmp(const void *a, const void *b)
{
	const struct sysfs_card *x = a, *y = b;
	return x->index < y->index ? -1 : x->index > y->index;
}

unsigned sysfs_drm_cards(const char *root, const char *const *drivers, struct sysfs_card *out,
			 unsigned max)
{
	char p[SYSFS_PATH], uevent[1024], rel[SYSFS_PATH], ids[32];
	unsigned n = 0;
	if (sysfs_path(p, sizeof(p), root, "/sys/class/drm") < 0)
		return 0;
	DIR *d = opendir(p);
	if (!d)
		return 0;
	struct dirent *de;
	while ((de = readdir(d)) && n < max) {
		const char *s = de->d_name + 4;
		if (strncmp(de->d_name, "card", 4) || !isdigit((unsigned char)*s) ||
		    strspn(s, "0123456789") != strlen(s) || strlen(s) > 6)
			continue; /* card0-DP-1 and the like are connectors */
		struct sysfs_card *c = &out[n];
		memset(c, 0, sizeof(*c));
		c->index = (unsigned)atoi(s);
		if (snprintf(c->dir, sizeof(c->dir), "/sys/class/drm/%s", de->d_name) >=
		    (int)sizeof(c->dir))
			continue;
		snprintf(rel, sizeof(rel), "%s/device/uevent", c->dir);
		if (sysfs_text(root, rel, uevent, sizeof(uevent)) <= 0 ||
		    !sysfs_kv(uevent, "DRIVER", c->driver, sizeof(c->driver)))
			continue;
		int ours = 0;
		for (const char *const *dr = drivers; *dr; dr++)
			ours |= !strcmp(*dr, c->driver);
		if (!ours)
			continue;
		sysfs_kv(uevent, "PCI_SLOT_NAME", c->slot, sizeof(c->slot));
		if (sysfs_kv(uevent, "PCI_ID", ids, sizeof(ids)))
			sscanf(ids, "%x:%x", &c->vendor_id, &c->device_id);
		c->render_minor = render_minor(root, c->dir);
		n++;
	}
	closedir(d);
	qsort(out, n, sizeof(*out), card_cmp);
	return n;
}

/* ---- DRM fdinfo ---- */

int drm_engine_class_of(const char *name)
{
	static const struct {
		const char *name;
		int cls;
	} map[] = {
	    /* amdgpu: amdgpu_fdinfo.c's ring types */
	    {"gfx", DRM_EC_RENDER},
	    {"compute", DRM_EC_COMPUTE},
	    {"dma", DRM_EC_COPY},
	    {"dec", DRM_EC_VIDEO},
	    {"enc", DRM_EC_VIDEO},
	    {"enc_1", DRM_EC_VIDEO},
	    {"jpeg", DRM_EC_VIDEO},
	    /* i915: i915-usage-stats (uabi engine class names) */
	    {"render", DRM_EC_RENDER},
	    {"copy", DRM_EC_COPY},
	    {"video", DRM_EC_VIDEO},
	    {"video-enhance", DRM_EC_VIDEO},
	    /* xe: xe_drm_client.c's engine class names */
	    {"rcs", DRM_EC_RENDER},
	    {"ccs", DRM_EC_COMPUTE},
	    {"bcs", DRM_EC_COPY},
	    {"vcs", DRM_EC_VIDEO},
	    {"vecs", DRM_EC_VIDEO},
	};
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(map[i].name, name) == 0)
			return map[i].cls;
	return -1;
}

/* "<uint> [KiB|MiB|GiB]" in bytes; 0 when not a number */
static int mem_value(const char *v, unsigned long long *out)
{
	char *end;
	while (*v == ' ' || *v == '\t')
		v++;
	if (!isdigit((unsigned char)*v))
		return 0;
	unsigned long long n = strtoull(v, &end, 10);
	while (*end == ' ' || *end == '\t')
		end++;
	unsigned shift = !strncmp(end, "KiB", 3)   ? 10
			 : !strncmp(end, "MiB", 3) ? 20
			 : !strncmp(end, "GiB", 3) ? 30
						   : 0;
	if (shift && n > (~0ULL >> shift))
		return 0;
	*out = n << shift;
	return 1;
}

/* a region name that is the device's own memory */
static int local_region(const char *r)
{
	return !strncmp(r, "vram", 4) || !strncmp(r, "local", 5);
}

int drm_fdinfo_parse(const char *text, const char *driver, const char *pdev, struct drm_client *out)
{
	unsigned long long mem[3][2] = {{0}}; /* resident, memory (legacy amdgpu), total */
	int have_mem[3] = {0}, have_local[3] = {0}, have_driver = 0, have_id = 0;
	memset(out, 0, sizeof(*out));
	for (int c = 0; c < DRM_ENGINE_CLASSES; c++)
		out->capacity[c] = 1;
	for (const char *l = text; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		char line[256], *val;
		if (len >= sizeof(line) || strncmp(l, "drm-", 4)) {
			l = nl ? nl + 1 : NULL;
			continue;
		}
		memcpy(line, l, len);
		line[len] = 0;
		l = nl ? nl + 1 : NULL;
		if (!(val = strchr(line, ':')))
			continue;
		*val++ = 0;
		while (*val == ' ' || *val == '\t')
			val++;
		const char *k = line + 4;
		unsigned long long n;
		int cls;
		if (!strcmp(k, "driver")) {
			if (driver && strcmp(val, driver))
				return 0;
			have_driver = 1;
		} else if (!strcmp(k, "pdev")) {
			if (pdev && strcasecmp(val, pdev))
				return 0;
		} else if (!strcmp(k, "client-id")) {
			have_id = mem_value(val, &out->id);
		} else if (!strncmp(k, "engine-capacity-", 16)) {
			if ((cls = drm_engine_class_of(k + 16)) >= 0 && mem_value(val, &n) &&
			    n > 0 && n < 1024)
				out->capacity[cls] = (unsigned)n;
		} else if (!strncmp(k, "engine-", 7) || !strncmp(k, "cycles-", 7)) {
			if ((cls = drm_engine_class_of(k + 7)) >= 0 && mem_value(val, &n)) {
				out->busy[cls] += n;
				out->have |= 1u << cls;
			}
		} else if (!strncmp(k, "total-cycles-", 13)) {
			/* the GPU's timestamp ticks: one clock per class, not summed */
			if ((cls = drm_engine_class_of(k + 13)) >= 0 && mem_value(val, &n))
				out->total[cls] = n;
		} else {
			static const char *const kinds[3] = {"resident-", "memory-", "total-"};
			for (int i = 0; i < 3; i++) {
				size_t kl = strlen(kinds[i]);
				if (strncmp(k, kinds[i], kl) || !mem_value(val, &n))
					continue;
				mem[i][local_region(k + kl) ? 0 : 1] += n;
				have_local[i] |= local_region(k + kl);
				have_mem[i] = 1;
			}
		}
	}
	if (!have_driver || !have_id)
		return 0;
	for (int i = 0; i < 3; i++)
		if (have_mem[i]) {
			out->mem_local = mem[i][0];
			out->mem_system = mem[i][1];
			out->have_mem = 1;
			out->have_local = have_local[i];
			break;
		}
	return 1;
}

/* A client's share of class c since p, as a fraction of one engine (0 when
 * the counter went back: the spec says stay with the larger value). */
static double client_frac(const struct drm_client *a, const struct drm_client *p, int c,
			  double dt_ns)
{
	if (!((a->have >> c) & 1) || !((p->have >> c) & 1) || a->busy[c] < p->busy[c])
		return -1;
	double d = (double)(a->busy[c] - p->busy[c]);
	if (a->total[c] && p->total[c]) {
		if (a->total[c] <= p->total[c])
			return -1;
		return d / (double)(a->total[c] - p->total[c]) / a->capacity[c];
	}
	return dt_ns > 0 ? d / dt_ns / a->capacity[c] : -1;
}

static struct gpu_proc *proc_of(struct gpu_procs *out, uint32_t pid, double *frac)
{
	for (unsigned i = 0; i < out->n; i++)
		if (out->p[i].pid == pid)
			return &out->p[i];
	out->total++;
	if (out->n == GPU_MAX_PROCS)
		return NULL;
	struct gpu_proc *p = &out->p[out->n++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	for (int c = 0; c < DRM_ENGINE_CLASSES; c++)
		frac[(out->n - 1) * DRM_ENGINE_CLASSES + c] = -1;
	return p;
}

static void add_client(struct drm_procs_state *st, const struct drm_client *cl,
		       struct drm_client *cur, unsigned *n_cur, struct gpu_procs *out,
		       double *pfrac, double *cfrac, double dt_ns)
{
	for (unsigned i = 0; i < *n_cur; i++)
		if (cur[i].id == cl->id)
			return; /* a shared or duplicated fd: counted once */
	if (*n_cur == DRM_MAX_CLIENTS)
		return;
	cur[(*n_cur)++] = *cl;
	struct gpu_proc *p = proc_of(out, cl->pid, pfrac);
	if (!p)
		return;
	size_t k = (size_t)(p - out->p);
	if (cl->have_mem) {
		/* the device's own memory; an integrated GPU's is the system's */
		p->mem_bytes += cl->have_local ? cl->mem_local : cl->mem_system;
		p->valid |= GPU_P_MEM;
	}
	for (unsigned j = 0; st->prev_ns && j < st->n_prev; j++) {
		if (st->prev[j].id != cl->id || st->prev[j].pid != cl->pid)
			continue;
		for (int c = 0; c < DRM_ENGINE_CLASSES; c++) {
			double f = client_frac(cl, &st->prev[j], c, dt_ns);
			if (f < 0)
				continue;
			double *pf = &pfrac[k * DRM_ENGINE_CLASSES + c];
			*pf = (*pf < 0 ? 0 : *pf) + f;
			cfrac[c] = (cfrac[c] < 0 ? 0 : cfrac[c]) + f;
		}
	}
}

static int scan_pid(const char *root, const char *pid_name, const char *driver, const char *pdev,
		    struct drm_procs_state *st, struct drm_client *cur, unsigned *n_cur,
		    struct gpu_procs *out, double *pfrac, double *cfrac, double dt_ns, long *budget)
{
	char rel[SYSFS_PATH], p[SYSFS_PATH], text[4096];
	snprintf(rel, sizeof(rel), "/proc/%s/fdinfo", pid_name);
	if (sysfs_path(p, sizeof(p), root, rel) < 0)
		return 0;
	DIR *d = opendir(p);
	if (!d)
		return 0; /* gone, or not ours to read */
	struct dirent *de;
	while ((de = readdir(d)) && (*budget)-- > 0) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		char f[SYSFS_PATH];
		struct drm_client cl;
		if (snprintf(f, sizeof(f), "%s/%s", rel, de->d_name) >= (int)sizeof(f) ||
		    sysfs_text(root, f, text, sizeof(text)) <= 0 || !strstr(text, "drm-driver:") ||
		    !drm_fdinfo_parse(text, driver, pdev, &cl))
			continue;
		cl.pid = (uint32_t)strtoul(pid_name, NULL, 10);
		add_client(st, &cl, cur, n_cur, out, pfrac, cfrac, dt_ns);
	}
	closedir(d);
	return 0;
}

int drm_procs_scan(const char *root, const char *driver, const char *pdev,
		   struct drm_procs_state *st, int64_t now_ns, struct gpu_procs *out)
{
	char p[SYSFS_PATH];
	memset(out, 0, sizeof(*out));
	if (sysfs_path(p, sizeof(p), root, "/proc") < 0)
		return -1;
	DIR *d = opendir(p);
	if (!d)
		return -1;
	struct drm_client *cur = malloc(sizeof(*cur) * DRM_MAX_CLIENTS);
	double *pfrac = malloc(sizeof(double) * GPU_MAX_PROCS * DRM_ENGINE_CLASSES);
	if (!cur || !pfrac) {
		closedir(d);
		free(cur);
		free(pfrac);
		return -1;
	}
	double cfrac[DRM_ENGINE_CLASSES] = {-1, -1, -1, -1};
	double dt_ns = st->prev_ns ? (double)(now_ns - st->prev_ns) : 0;
	unsigned n_cur = 0;
	long budget = DRM_SCAN_MAX_FILES;
	struct dirent *de;
	while ((de = readdir(d)) && budget > 0) {
		const char *s = de->d_name;
		while (isdigit((unsigned char)*s))
			s++;
		if (*s || s == de->d_name)
			continue;
		scan_pid(root, de->d_name, driver, pdev, st, cur, &n_cur, out, pfrac, cfrac, dt_ns,
			 &budget);
	}
	closedir(d);
	for (unsigned i = 0; i < out->n; i++) {
		double best = -1;
		for (int c = 0; c < DRM_ENGINE_CLASSES; c++)
			if (pfrac[i * DRM_ENGINE_CLASSES + c] > best)
				best = pfrac[i * DRM_ENGINE_CLASSES + c];
		if (best >= 0) {
			out->p[i].sm_util = 100 * (best > 1 ? 1 : best);
			out->p[i].valid |= GPU_P_SM;
		}
	}
	for (int c = 0; c < DRM_ENGINE_CLASSES; c++)
		st->class_busy[c] = cfrac[c] < 0 ? -1 : 100 * (cfrac[c] > 1 ? 1 : cfrac[c]);
	out->valid = 1;
	memcpy(st->prev, cur, n_cur * sizeof(*cur));
	st->n_prev = n_cur;
	st->prev_ns = now_ns;
	free(cur);
	free(pfrac);
	return 0;
}

/* ---- the kernel-file vendors' context ---- */

int64_t kctx_now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

int kctx_open(void **ctx, const char *root, const char *const *drivers, char *err)
{
	struct sysfs_card cards[GPU_MAX_DEVICES];
	*ctx = NULL;
	if (err)
		err[0] = 0;
	unsigned n = sysfs_drm_cards(root, drivers, cards, GPU_MAX_DEVICES);
	if (!n)
		return -1;
	struct kctx *c = calloc(1, sizeof(*c));
	if (!c || !(c->dev = calloc(n, sizeof(*c->dev)))) {
		free(c);
		return error_set(err, "out of memory");
	}
	snprintf(c->root, sizeof(c->root), "%s", root ? root : "/");
	c->n = n;
	for (unsigned i = 0; i < n; i++) {
		struct kdev *d = &c->dev[i];
		d->card = cards[i];
		snprintf(d->dev, sizeof(d->dev), "%s/device", cards[i].dir);
		if (!sysfs_hwmon(c->root, d->dev, d->hwmon, sizeof(d->hwmon)))
			d->hwmon[0] = 0;
		d->energy_prev_j = -1;
	}
	*ctx = c;
	return 0;
}

void kctx_close(void *ctx)
{
	struct kctx *c = ctx;
	if (!c)
		return;
	if (c->lib && c->lib_close)
		c->lib_close(c->lib);
	free(c->dev);
	free(c);
}

int kctx_count(void *ctx, unsigned *n)
{
	*n = ((struct kctx *)ctx)->n;
	return 0;
}

const char *kctx_note(void *ctx)
{
	return ((struct kctx *)ctx)->note;
}

static int scan(struct kctx *c, struct kdev *d)
{
	return drm_procs_scan(c->root, d->card.driver, d->card.slot[0] ? d->card.slot : NULL,
			      &d->procs, kctx_now_ns(), &d->last);
}

int kctx_processes(void *ctx, unsigned dev, struct gpu_procs *out)
{
	struct kctx *c = ctx;
	memset(out, 0, sizeof(*out));
	if (dev >= c->n)
		return -1;
	struct kdev *d = &c->dev[dev];
	if (!d->fresh && scan(c, d) < 0)
		return 0; /* /proc unreadable: the list stays unknown */
	d->fresh = 0;
	*out = d->last;
	return 0;
}

void kctx_engines(struct kctx *c, struct kdev *d, struct gpu_sample *out)
{
	static const enum gpu_metric m[DRM_ENGINE_CLASSES] = {
	    GPU_M_ENGINE_RENDER, GPU_M_ENGINE_COMPUTE, GPU_M_ENGINE_COPY, GPU_M_ENGINE_VIDEO};
	d->fresh = scan(c, d) == 0;
	for (int k = 0; d->fresh && k < DRM_ENGINE_CLASSES; k++)
		if (d->procs.class_busy[k] >= 0)
			gpu_sample_set(out, m[k], d->procs.class_busy[k]);
}

int kctx_hwmon(struct kctx *c, struct kdev *d, const char *name, unsigned long long *v)
{
	char p[SYSFS_PATH];
	if (!d->hwmon[0] || snprintf(p, sizeof(p), "%s/%s", d->hwmon, name) >= (int)sizeof(p))
		return 0;
	return sysfs_u64(c->root, p, v);
}

int kctx_temp_channel(struct kctx *c, struct kdev *d, const char *label, const char *first_label)
{
	char p[SYSFS_PATH], l[32];
	int any_label = 0;
	for (int ch = 1; d->hwmon[0] && ch <= 8; ch++) {
		snprintf(p, sizeof(p), "%s/temp%d_label", d->hwmon, ch);
		if (!sysfs_str(c->root, p, l, sizeof(l)))
			continue;
		any_label = 1;
		if (!strcasecmp(l, label))
			return ch;
	}
	if (!any_label && first_label && !strcmp(label, first_label))
		return 1;
	return 0;
}

void kctx_energy(struct kctx *c, struct kdev *d, int64_t now_ns, struct gpu_sample *out)
{
	unsigned long long uj;
	if (!kctx_hwmon(c, d, "energy1_input", &uj))
		return;
	kctx_energy_value(d, uj / 1e6, now_ns, out);
}

void kctx_energy_value(struct kdev *d, double j, int64_t now_ns, struct gpu_sample *out)
{
	gpu_sample_set(out, GPU_M_ENERGY, j);
	if (d->energy_prev_j >= 0 && j >= d->energy_prev_j && now_ns > d->energy_prev_ns &&
	    !gpu_sample_has(out, GPU_M_POWER))
		gpu_sample_set(out, GPU_M_POWER,
			       (j - d->energy_prev_j) / ((now_ns - d->energy_prev_ns) / 1e9));
	d->energy_prev_j = j;
	d->energy_prev_ns = now_ns;
}

struct kdev *kctx_dev(struct kctx *c, unsigned dev, void *out, size_t size)
{
	memset(out, 0, size);
	return dev < c->n ? &c->dev[dev] : NULL;
}

void kctx_pcie_now(struct kctx *c, struct kdev *d, struct gpu_sample *out)
{
	struct gpu_static st;
	memset(&st, 0, sizeof(st));
	sysfs_pcie_link(c->root, d->dev, &st);
	if (st.valid & GPU_S_PCIE_CUR) {
		gpu_sample_set(out, GPU_M_PCIE_GEN, st.pcie_cur_gen);
		gpu_sample_set(out, GPU_M_PCIE_WIDTH, st.pcie_cur_width);
	}
}

void *kctx_load_lib(const struct kctx *c, const char *hook, const char *const *names)
{
	char path[SYSFS_PATH];
	if (c->root[0] && strcmp(c->root, "/") != 0)
		return sysfs_str(c->root, hook, path, sizeof(path))
			   ? dlopen(path, RTLD_NOW | RTLD_LOCAL)
			   : NULL;
	void *lib = NULL;
	for (; !lib && *names; names++)
		lib = dlopen(*names, RTLD_NOW | RTLD_LOCAL);
	return lib;
}
