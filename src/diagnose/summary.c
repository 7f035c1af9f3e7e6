/*
 * summary.c - a rank's summary file and the job from summaries (summary.h
 * says what they hold; docs/summary.md the format).
 *
 * The format is text, one record a line, fields separated by tabs, strings
 * escaped (\\, \t, \n), numbers exact (integers; doubles as %.17g); the
 * first line names the format and its version, the last ("end" and the
 * count of lines before it) proves the file whole.
 */
#include "diagnose/summary.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "diagnose/finding.h"
#include "util/error.h"
#include "util/hmap.h"
#include "util/vec.h"

/* ---- writing ---- */

static void put_str(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '\t')
			fputs("\\t", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

/* The sorted distinct pids and devices of a trace's GPU work and calls. */
static int ids(const struct trace *t, int dev, uint32_t **out, size_t *n)
{
	struct u64map m;
	if (u64map_init(&m, 16) < 0)
		return -1;
	int rc = 0;
#define ADD(arr, cnt, field)                                                                       \
	for (size_t i = 0; i < (cnt) && rc == 0; i++)                                              \
		rc = u64map_put(&m, (arr)[i].field, 1);
	if (dev) {
		ADD(t->kernels, t->n_kernels, device)
		ADD(t->copies, t->n_copies, device)
		ADD(t->memsets, t->n_memsets, device)
	} else {
		ADD(t->kernels, t->n_kernels, pid)
		ADD(t->copies, t->n_copies, pid)
		ADD(t->memsets, t->n_memsets, pid)
		ADD(t->apis, t->n_apis, pid)
		ADD(t->ranges, t->n_ranges, pid)
	}
#undef ADD
	*n = 0;
	*out = malloc((m.n + 1) * sizeof(**out));
	if (rc < 0 || !*out) {
		u64map_release(&m);
		return -1;
	}
	for (size_t i = 0; i < m.cap; i++)
		if (m.used[i])
			(*out)[(*n)++] = (uint32_t)m.keys[i];
	u64map_release(&m);
	for (size_t i = 1; i < *n; i++) /* few: insertion sort */
		for (size_t j = i; j > 0 && (*out)[j - 1] > (*out)[j]; j--) {
			uint32_t x = (*out)[j];
			(*out)[j] = (*out)[j - 1];
			(*out)[j - 1] = x;
		}
	return 0;
}

static void put_ids(FILE *f, const char *tag, const uint32_t *v, size_t n)
{
	fputs(tag, f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "\t%" PRIu32, v[i]);
	fputc('\n', f);
}

static void put_finding(FILE *f, const struct finding *x, int device)
{
	fprintf(f, "finding\t%d\t%d\t%.17g\t", x->device >= 0 ? x->device : device,
		(int)x->severity, x->impact_pct);
	put_str(f, x->id);
	fputc('\t', f);
	char t[sizeof(x->title)]; /* in the writer's language, as report shows it */
	put_str(f, finding_shown(t, sizeof(t), x, -1));
	fputc('\n', f);
	for (int i = 0; i < x->n_ev; i++) {
		const struct evidence *e = &x->ev[i];
		fputs("ev\t", f);
		put_str(f, e->key);
		if (!e->is_num) {
			fputs("\ts\t", f);
			put_str(f, e->str);
		} else if (e->unknown) {
			fputs("\tu\t-", f);
		} else {
			fprintf(f, "\tn\t%.17g", e->num);
		}
		fputc('\n', f);
	}
	for (int i = 0; i < x->n_actions; i++) {
		fputs("action\t", f);
		put_str(f, finding_shown(t, sizeof(t), x, i));
		fputc('\n', f);
	}
}

int summary_write(const char *path, const struct analysis_result *res, const char *source,
		  char *err)
{
	const struct analysis *a = &res->all;
	const struct trace *t = a->whole ? a->whole : a->t;
	uint32_t *pids = NULL, *devs = NULL;
	size_t n_pids = 0, n_devs = 0;
	if (ids(t, 0, &pids, &n_pids) < 0 || ids(t, 1, &devs, &n_devs) < 0) {
		free(pids);
		return error_set(err, "out of memory");
	}
	char tmp[4200];
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f) {
		free(pids);
		free(devs);
		return error_set(err, "cannot write '%s': %s", tmp, strerror(errno));
	}
	fprintf(f, "%s\t%d\n", SUMMARY_MAGIC, SUMMARY_VERSION);
	fputs("source\t", f);
	put_str(f, source);
	fputc('\n', f);
	fprintf(f,
		"window\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%" PRId64
		"\t%zu\t%" PRId64 "\n",
		a->start_ns, a->end_ns, a->span_ns, a->busy_ns, a->kernel_ns, a->n_kernels,
		a->warmup_ns);
	put_ids(f, "pids", pids, n_pids);
	put_ids(f, "devices", devs, n_devs);
	const struct comm_stats *c = &res->comm;
	fprintf(f, "comm\t%d\t%d\n", c->n ? c->host : 1, c->n ? c->ranks_known : 1);
	for (size_t i = 0; i < c->n; i++) {
		const struct comm_rank *r = &c->r[i];
		fprintf(f,
			"rank\t%d\t%" PRIu32 "\t%" PRIu32 "\t%" PRId64 "\t%" PRId64 "\t%" PRId64
			"\t%" PRId64 "\t%" PRId64 "\t%" PRIu64 "\n",
			c->ranks_known ? r->rank : -1, r->pid, r->device, r->start_ns, r->end_ns,
			r->compute_ns, r->comm_ns, r->overlap_ns, r->collectives);
		/* seq: the collective's number among its rank's collectives of its
		 * kind (what comm_cross matches by); size unknown: the trace model
		 * does not keep NCCL message sizes */
		const struct comm_colls *cs = &c->colls[i];
		for (size_t q = 0; q < cs->n; q++) {
			uint64_t seq = 0;
			for (size_t p = 0; p < q; p++)
				seq += strcmp(cs->v[p].kind, cs->v[q].kind) == 0;
			fprintf(f, "coll\t%" PRIu64 "\t%s\t%" PRId64 "\t%" PRId64 "\t-\n", seq,
				cs->v[q].kind[0] ? cs->v[q].kind : "-", cs->v[q].s, cs->v[q].e);
		}
	}
	int device = a->n_devices ? (int)a->devices[0].id : -1;
	long primary = -1;
	for (size_t i = 0; i < a->findings.n; i++) {
		put_finding(f, &a->findings.v[i], device);
		if (a->primary == &a->findings.v[i])
			primary = (long)i;
	}
	fprintf(f, "primary\t%ld\nend\n", primary);
	free(pids);
	free(devs);
	int bad = ferror(f);
	if (fclose(f) != 0 || bad) {
		remove(tmp);
		return error_set(err, "cannot write '%s'", tmp);
	}
	if (rename(tmp, path) < 0) {
		int e = errno;
		remove(tmp);
		return error_set(err, "cannot write '%s': %s", path, strerror(e));
	}
	return 0;
}

/* ---- reading ---- */

static int has_magic(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	char buf[sizeof(SUMMARY_MAGIC)];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	return n == sizeof(buf) - 1 && memcmp(buf, SUMMARY_MAGIC, n) == 0;
}

static int is_gss(const char *name)
{
	size_t l = strlen(name);
	return l > 4 && strcmp(name + l - 4, ".gss") == 0;
}

int summary_is(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return 0;
	if (S_ISREG(st.st_mode)) /* never a pipe or a FIFO: reading it would take its data */
		return has_magic(path);
	if (!S_ISDIR(st.st_mode))
		return 0;
	DIR *d = opendir(path);
	if (!d)
		return 0;
	int any = 0;
	for (struct dirent *e; !any && (e = readdir(d));)
		any = is_gss(e->d_name);
	closedir(d);
	return any;
}

/* Splits line (its newline removed) at tabs in place; the field count. */
static size_t split(char *line, char **f, size_t max)
{
	size_t n = 0;
	f[n++] = line;
	for (char *p = line; *p && n < max; p++)
		if (*p == '\t') {
			*p = '\0';
			f[n++] = p + 1;
		}
	return n;
}

/* Undoes put_str into dst (size cap); -1 on a bad escape. */
static int get_str(char *dst, size_t cap, const char *s)
{
	size_t n = 0;
	for (; *s; s++) {
		char c = *s;
		if (c == '\\') {
			c = *++s;
			c = c == '\\' ? '\\' : c == 't' ? '\t' : c == 'n' ? '\n' : 0;
			if (!c)
				return -1;
		}
		if (n + 1 < cap)
			dst[n++] = c;
	}
	dst[n] = '\0';
	return 0;
}

static int get_i64(const char *s, int64_t *v)
{
	char *end;
	errno = 0;
	long long x = strtoll(s, &end, 10);
	*v = x;
	return *s && !*end && errno == 0 ? 0 : -1;
}

static int get_u32(const char *s, uint32_t *v)
{
	int64_t x;
	if (get_i64(s, &x) < 0 || x < 0 || x > UINT32_MAX)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

static int get_dbl(const char *s, double *v)
{
	char *end;
	*v = strtod(s, &end);
	return *s && !*end ? 0 : -1;
}

/* One summary as read, before the job numbers its pids and devices. */
struct one {
	int64_t start, end, span, busy;
	uint64_t n_kernels;
	uint32_t *pids, *devs;
	size_t n_pids, n_devs;
	int host, known;
	struct comm_rank *r;
	struct comm_colls *colls;
	size_t n_r, cap_r;
	struct finding_list fl;
	long primary;
};

static void one_release(struct one *o)
{
	free(o->pids);
	free(o->devs);
	for (size_t i = 0; i < o->n_r; i++)
		free(o->colls[i].v);
	free(o->colls);
	free(o->r);
	finding_list_release(&o->fl);
}

/* The tab-separated ids after a "pids" or "devices" tag. */
static int get_ids(const char *s, uint32_t **v, size_t *n)
{
	size_t cap = 0;
	*n = 0;
	while (*s) {
		if (*s++ != '\t')
			return -1;
		char *end;
		errno = 0;
		unsigned long x = strtoul(s, &end, 10);
		if (end == s || errno || x > UINT32_MAX || (*end && *end != '\t'))
			return -1;
		uint32_t *p = VEC_PUSH(*v, *n, cap);
		if (!p)
			return -1;
		*p = (uint32_t)x;
		s = end;
	}
	return 0;
}

/* One more communicating rank in o (r and colls grow together). */
static struct comm_rank *add_rank(struct one *o)
{
	if (o->n_r == o->cap_r) {
		size_t cap = o->cap_r ? 2 * o->cap_r : 4;
		struct comm_rank *r = realloc(o->r, cap * sizeof(*r));
		if (r)
			o->r = r;
		struct comm_colls *c = realloc(o->colls, cap * sizeof(*c));
		if (c)
			o->colls = c;
		if (!r || !c)
			return NULL;
		o->cap_r = cap;
	}
	memset(&o->colls[o->n_r], 0, sizeof(*o->colls));
	memset(&o->r[o->n_r], 0, sizeof(*o->r));
	return &o->r[o->n_r++];
}

/* Reads one summary; -1 with err naming the file and line. */
static int read_one(struct one *o, const char *path, char *err)
{
	memset(o, 0, sizeof(*o));
	o->primary = -1;
	finding_list_init(&o->fl);
	FILE *fp = fopen(path, "r");
	if (!fp)
		return error_set(err, "cannot open '%s': %s", path, strerror(errno));
	char *line = NULL;
	size_t cap = 0, no = 0;
	ssize_t len;
	int rc = 0, ended = 0, have_window = 0;
	const char *why = "malformed line";
	struct finding *cur = NULL;
	while (rc == 0 && !ended && (len = getline(&line, &cap, fp)) >= 0) {
		no++;
		if (len == 0 || line[len - 1] != '\n') {
			rc = -1;
			why = "truncated";
			break;
		}
		line[len - 1] = '\0';
		if (no > 1 && (!strncmp(line, "pids", 4) || !strncmp(line, "devices", 7))) {
			int p = line[0] == 'p';
			if ((p ? o->pids : o->devs) != NULL) {
				rc = -1;
				break;
			}
			rc = p ? get_ids(line + 4, &o->pids, &o->n_pids)
			       : get_ids(line + 7, &o->devs, &o->n_devs);
			continue;
		}
		char *f[16];
		size_t nf = split(line, f, 16);
		const char *tag = f[0];
		if (no == 1) {
			if (strcmp(tag, SUMMARY_MAGIC) != 0 || nf != 2) {
				rc = -1;
				why = "not a gpuscope summary";
			} else if (strcmp(f[1], "1") != 0) {
				rc = -1;
				why =
				    "a summary of another version (this gpuscope reads version 1)";
			}
			continue;
		}
		if (!strcmp(tag, "source")) {
			rc = nf == 2 ? 0 : -1;
		} else if (!strcmp(tag, "window") && nf == 8) {
			int64_t nk, w;
			rc = get_i64(f[1], &o->start) | get_i64(f[2], &o->end) |
			     get_i64(f[3], &o->span) | get_i64(f[4], &o->busy) | get_i64(f[5], &w) |
			     get_i64(f[6], &nk) | get_i64(f[7], &w);
			o->n_kernels = (uint64_t)nk;
			have_window = 1;
		} else if (!strcmp(tag, "comm") && nf == 3) {
			o->host = atoi(f[1]) != 0;
			o->known = atoi(f[2]) != 0;
		} else if (!strcmp(tag, "rank") && nf == 10) {
			struct comm_rank *r = add_rank(o);
			if (!r) {
				rc = -1;
				why = "out of memory";
				break;
			}
			int64_t rank, col;
			rc = get_i64(f[1], &rank) | get_u32(f[2], &r->pid) |
			     get_u32(f[3], &r->device) | get_i64(f[4], &r->start_ns) |
			     get_i64(f[5], &r->end_ns) | get_i64(f[6], &r->compute_ns) |
			     get_i64(f[7], &r->comm_ns) | get_i64(f[8], &r->overlap_ns) |
			     get_i64(f[9], &col);
			r->rank = rank < 0 || rank > 1000000 ? -1 : (int)rank;
			r->collectives = (uint64_t)col;
			r->exposed_ns = r->comm_ns - r->overlap_ns;
		} else if (!strcmp(tag, "coll") && nf == 6 && o->n_r) {
			struct comm_colls *cs = &o->colls[o->n_r - 1];
			struct comm_coll *cl = VEC_PUSH(cs->v, cs->n, cs->cap);
			if (!cl) {
				rc = -1;
				why = "out of memory";
				break;
			}
			memset(cl, 0, sizeof(*cl));
			snprintf(cl->kind, sizeof(cl->kind), "%s", strcmp(f[2], "-") ? f[2] : "");
			rc = get_i64(f[3], &cl->s) | get_i64(f[4], &cl->e) |
			     (cl->e < cl->s ? -1 : 0);
		} else if (!strcmp(tag, "finding") && nf == 6) {
			int dev, sev;
			double imp;
			dev = atoi(f[1]);
			sev = atoi(f[2]);
			rc = get_dbl(f[3], &imp);
			cur = rc == 0 && sev >= SEV_INFO && sev <= SEV_CRITICAL
				  ? finding_add(&o->fl, "", (enum severity)sev, "%s", "")
				  : NULL;
			if (!cur) {
				rc = -1;
				break;
			}
			cur->device = dev;
			cur->impact_pct = imp;
			rc = get_str(cur->id, sizeof(cur->id), f[4]) |
			     get_str(cur->title, sizeof(cur->title), f[5]);
		} else if (!strcmp(tag, "ev") && nf == 4 && cur &&
			   cur->n_ev < FINDING_MAX_EVIDENCE) {
			struct evidence *e = &cur->ev[cur->n_ev++];
			memset(e, 0, sizeof(*e));
			rc = get_str(e->key, sizeof(e->key), f[1]);
			if (!strcmp(f[2], "s"))
				rc |= get_str(e->str, sizeof(e->str), f[3]);
			else if (!strcmp(f[2], "u"))
				e->is_num = e->unknown = 1;
			else if (!strcmp(f[2], "n"))
				e->is_num = 1, rc |= get_dbl(f[3], &e->num);
			else
				rc = -1;
		} else if (!strcmp(tag, "action") && nf == 2 && cur &&
			   cur->n_actions < FINDING_MAX_ACTIONS) {
			rc = get_str(cur->actions[cur->n_actions], sizeof(cur->actions[0]), f[1]);
			cur->n_actions++;
		} else if (!strcmp(tag, "primary") && nf == 2) {
			int64_t p;
			rc = get_i64(f[1], &p);
			o->primary = p >= 0 && (size_t)p < o->fl.n ? (long)p : -1;
		} else if (!strcmp(tag, "end") && nf == 1) {
			ended = 1;
		} else {
			rc = -1;
		}
	}
	free(line);
	int rerr = ferror(fp);
	fclose(fp);
	if (rc == 0 && (rerr || no == 0)) {
		rc = -1;
		why = rerr ? "read error" : "empty";
	}
	if (rc == 0 && (!ended || !have_window)) {
		rc = -1;
		why = "truncated (no end line)";
	}
	if (rc < 0) {
		one_release(o);
		if (no <= 1 || !strcmp(why, "truncated (no end line)"))
			return error_set(err, "'%s': %s", path, why);
		return error_set(err, "'%s' line %zu: %s", path, no, why);
	}
	return 0;
}

static int cmp_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* paths expanded: a directory's *.gss files, sorted by name. */
static int expand(char ***out, size_t *n, const char *const *paths, size_t np, char *err)
{
	size_t cap = 0;
	*out = NULL;
	*n = 0;
	for (size_t i = 0; i < np; i++) {
		struct stat st;
		if (stat(paths[i], &st) < 0)
			return error_set(err, "cannot open '%s': %s", paths[i], strerror(errno));
		size_t first = *n;
		DIR *d = S_ISDIR(st.st_mode) ? opendir(paths[i]) : NULL;
		if (S_ISDIR(st.st_mode) && !d)
			return error_set(err, "cannot open '%s': %s", paths[i], strerror(errno));
		for (struct dirent *e; d && (e = readdir(d));) {
			if (!is_gss(e->d_name))
				continue;
			char **p = VEC_PUSH(*out, *n, cap);
			size_t l = strlen(paths[i]) + strlen(e->d_name) + 2;
			if (!p || !(*p = malloc(l))) {
				closedir(d);
				return error_set(err, "out of memory");
			}
			snprintf(*p, l, "%s/%s", paths[i], e->d_name);
		}
		if (d) {
			closedir(d);
			if (*n == first)
				return error_set(err, "'%s' holds no summary (.gss)", paths[i]);
			qsort(*out + first, *n - first, sizeof(**out), cmp_path);
			continue;
		}
		char **p = VEC_PUSH(*out, *n, cap);
		if (!p || !(*p = strdup(paths[i])))
			return error_set(err, "out of memory");
	}
	return 0;
}

static long index_of(const uint32_t *v, size_t n, uint32_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return (long)i;
	return -1;
}

/* The job's pids and devices, numbered as trace/merge.h numbers a merge of
 * the traces: a pid taken by an earlier file moves to the next free one
 * from 1 << 22; when two files share a device number every file's devices
 * are numbered anew in file order. pmap/dmap: per file, parallel to its
 * pids and devs. */
static int number_ids(struct one *o, size_t n, uint32_t **pmap, uint32_t **dmap)
{
	int collide = 0;
	struct u64map seen, taken;
	if (u64map_init(&seen, 64) < 0)
		return -1;
	if (u64map_init(&taken, 64) < 0) {
		u64map_release(&seen);
		return -1;
	}
	uint64_t v;
	int rc = 0;
	for (size_t f = 0; f < n && rc == 0; f++) {
		for (size_t i = 0; i < o[f].n_devs; i++)
			collide |= u64map_get(&seen, o[f].devs[i], &v);
		for (size_t i = 0; i < o[f].n_devs && rc == 0; i++)
			rc = u64map_put(&seen, o[f].devs[i], 1);
	}
	uint32_t next_dev = 0, next_free = 1u << 22;
	for (size_t f = 0; f < n && rc == 0; f++) {
		pmap[f] = malloc((o[f].n_pids + 1) * sizeof(**pmap));
		dmap[f] = malloc((o[f].n_devs + 1) * sizeof(**dmap));
		if (!pmap[f] || !dmap[f]) {
			rc = -1;
			break;
		}
		for (size_t i = 0; i < o[f].n_devs; i++)
			dmap[f][i] = collide ? next_dev + (uint32_t)i : o[f].devs[i];
		if (collide)
			next_dev += (uint32_t)o[f].n_devs;
		for (size_t i = 0; i < o[f].n_pids && rc == 0; i++) {
			uint32_t pid = o[f].pids[i], np = pid;
			if (u64map_get(&taken, pid, &v)) {
				while (u64map_get(&taken, next_free, &v))
					next_free++;
				np = next_free++;
			}
			pmap[f][i] = np;
			rc = u64map_put(&taken, np, 1);
		}
	}
	u64map_release(&seen);
	u64map_release(&taken);
	return rc;
}

/* The job's result from its summaries: ranks numbered, collectives moved
 * into res.comm, findings marked with their device, the job rules run. */
static int build(struct summary_job *j, struct one *o, char *err)
{
	size_t n = j->n;
	uint32_t **pmap = calloc(n, sizeof(*pmap)), **dmap = calloc(n, sizeof(*dmap));
	int rc = -1;
	if (!pmap || !dmap || number_ids(o, n, pmap, dmap) < 0)
		goto oom;
	struct analysis_result *res = &j->res;
	struct analysis *a = &res->all;
	struct comm_stats *c = &res->comm;
	c->straggler = -1;
	res->device = -1;
	a->t = &j->t;
	a->source = "summaries";
	finding_list_init(&a->findings);
	a->findings.msgids = 1; /* the job rules' (a summary's findings are as written) */
	size_t n_r = 0;
	int known = 1, host = 1;
	for (size_t f = 0; f < n; f++) {
		n_r += o[f].n_r;
		if (o[f].n_r) {
			known &= o[f].known;
			host &= o[f].host;
		}
	}
	c->r = calloc(n_r + 1, sizeof(*c->r));
	c->colls = calloc(n_r + 1, sizeof(*c->colls));
	if (!c->r || !c->colls)
		goto oom;
	c->host = host;
	const struct summary_rank *best = NULL;
	const struct finding *best_f = NULL;
	int one_device = n == 1 && o[0].n_devs <= 1;
	for (size_t f = 0; f < n; f++) {
		struct one *x = &o[f];
		struct summary_rank *sr = &j->ranks[f];
		sr->rank = -1;
		sr->start_ns = x->start;
		sr->end_ns = x->end;
		sr->busy_ns = x->busy;
		sr->n_kernels = x->n_kernels;
		sr->n_findings = x->fl.n;
		sr->device = x->n_devs ? dmap[f][0] : 0;
		for (size_t i = 0; i < x->n_r; i++) {
			struct comm_rank *r = &c->r[c->n];
			*r = x->r[i];
			long p = index_of(x->pids, x->n_pids, r->pid);
			long d = index_of(x->devs, x->n_devs, r->device);
			r->pid = p >= 0 ? pmap[f][p] : r->pid;
			r->device = d >= 0 ? dmap[f][d] : r->device;
			if (!known)
				r->rank = -1;
			if (i == 0) {
				sr->pid = r->pid;
				sr->comm_device = r->device;
			}
			c->colls[c->n++] = x->colls[i];
			x->colls[i] = (struct comm_colls){0};
		}
		for (size_t i = 0; i < x->fl.n; i++) {
			struct finding *y = finding_add(&a->findings, "", SEV_INFO, "%s", "");
			if (!y)
				goto oom;
			*y = x->fl.v[i];
			long d = index_of(x->devs, x->n_devs, (uint32_t)y->device);
			y->device = one_device ? -1 : d >= 0 ? (int)dmap[f][d] : y->device;
		}
		/* the primary: a problem on one rank outranks a healthy other, by
		 * severity, then impact (diagnose.c's merge of device findings) */
		const struct finding *p = x->primary >= 0 ? &x->fl.v[x->primary] : NULL;
		if (p) {
			snprintf(sr->primary, sizeof(sr->primary), "%s", p->id);
			if (!best_f || p->severity > best_f->severity ||
			    (p->severity == best_f->severity &&
			     p->impact_pct > best_f->impact_pct)) {
				best = sr;
				best_f = p;
			}
		}
		if (f == 0 || x->start < a->start_ns)
			a->start_ns = x->start;
		if (f == 0 || x->end > a->end_ns)
			a->end_ns = x->end;
		a->busy_ns = x->busy > a->busy_ns ? x->busy : a->busy_ns;
		a->n_kernels += x->n_kernels;
	}
	a->span_ns = n == 1 ? o[0].span : a->end_ns - a->start_ns;
	a->trace_start_ns = a->start_ns;
	a->trace_end_ns = a->end_ns;
	finding_list_sort(&a->findings);
	for (size_t i = 0; best && i < a->findings.n; i++) {
		const struct finding *y = &a->findings.v[i];
		int dev = one_device ? -1 : (int)best->device;
		if (y->device == dev && !strcmp(y->id, best_f->id) &&
		    y->impact_pct == best_f->impact_pct)
			a->primary = y;
	}
	if (c->n && (comm_sort(c, known) < 0 || comm_cross(c) < 0))
		goto oom;
	for (size_t f = 0; f < n; f++) /* the rank numbers comm_sort gave */
		for (size_t k = 0; o[f].n_r && k < c->n; k++)
			if (c->r[k].pid == j->ranks[f].pid &&
			    c->r[k].device == j->ranks[f].comm_device)
				j->ranks[f].rank = c->r[k].rank;
	rc = analysis_result_job_rules(res, err);
	goto done;
oom:
	error_set(err, "out of memory");
done:
	for (size_t f = 0; f < n && pmap && dmap; f++) {
		free(pmap[f]);
		free(dmap[f]);
	}
	free(pmap);
	free(dmap);
	return rc;
}

int summary_job_load(struct summary_job *j, const char *const *paths, size_t np, char *err)
{
	memset(j, 0, sizeof(*j));
	trace_init(&j->t);
	j->res.comm.straggler = -1;
	char **files = NULL;
	size_t n = 0;
	int rc = expand(&files, &n, paths, np, err);
	struct one *o = rc == 0 ? calloc(n + 1, sizeof(*o)) : NULL;
	j->ranks = rc == 0 ? calloc(n + 1, sizeof(*j->ranks)) : NULL;
	if (rc == 0 && (!o || !j->ranks))
		rc = error_set(err, "out of memory");
	size_t done = 0;
	for (; rc == 0 && done < n; done++)
		if ((rc = read_one(&o[done], files[done], err)) == 0) {
			j->ranks[done].path = files[done];
			files[done] = NULL;
			j->n = done + 1;
		}
	if (rc == 0)
		rc = build(j, o, err);
	for (size_t i = 0; i < done && o; i++)
		if (j->ranks[i].path) /* read_one releases what it fails on */
			one_release(&o[i]);
	for (size_t i = 0; i < n; i++)
		free(files[i]);
	free(files);
	free(o);
	if (rc < 0)
		summary_job_release(j);
	return rc;
}

void summary_job_release(struct summary_job *j)
{
	for (size_t i = 0; i < j->n; i++)
		free(j->ranks[i].path);
	free(j->ranks);
	analysis_result_release(&j->res);
	trace_release(&j->t);
	memset(j, 0, sizeof(*j));
}
