/*
 * load_many.c - several traces at once (issue #25 item 4; the ranks of a
 * multi-GPU job, the two sides of a diff): a list of paths, a directory
 * standing for the traces in it, loaded in parallel, at most jobs files at
 * a time, each as trace_load_any would (trace_db.h). Memory is that of the
 * traces loaded: a file's text is streamed, never held whole.
 */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "import/kineto.h"
#include "import/load.h"
#include "trace/trace_db.h"
#include "util/cpus.h"
#include "util/error.h"
#include "util/vec.h"

static int is_trace_name(const char *n)
{
	return trace_reader_suffix(trace_readers, trace_n_readers, n);
}

/* ".db, .json, .json.gz": every reader's suffixes, for messages. */
static void suffix_list(char *buf, size_t cap)
{
	size_t u = 0;
	buf[0] = 0;
	for (size_t r = 0; r < trace_n_readers; r++)
		for (const char *s = trace_readers[r].suffixes; *s && u < cap;) {
			size_t l = strcspn(s, " ");
			u += (size_t)snprintf(buf + u, cap - u, "%s%.*s", u ? ", " : "", (int)l, s);
			s += l + (s[l] == ' ');
		}
}

/* What a directory without traces holds instead, written into what (""
 * when nothing gpuscope knows by name): a subdirectory with traces (a
 * torch.profiler log directory, tensorboard_trace_handler's one run per
 * subdirectory), a TensorBoard log directory with XLA's profiles
 * (plugins/profile/RUN/HOST.xplane.pb: jax.profiler.trace, TensorFlow), a
 * run directory of one, or Nsight reports. At most 4096 entries are looked
 * at, and subdirectories one level down. */
static void dir_holds(const char *path, DIR *d, char *what, size_t cap)
{
	char sub[4096];
	struct stat st;
	what[0] = '\0';
	snprintf(sub, sizeof(sub), "%s/plugins/profile", path);
	if (stat(sub, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(what, cap,
			 ": only a TensorBoard profile (plugins/profile, from jax.profiler "
			 "or TensorFlow's profiler), which gpuscope does not read: record "
			 "the program with gpuscope record -- PROGRAM");
		return;
	}
	rewinddir(d);
	struct dirent *e;
	for (int seen = 0; (e = readdir(d)) && seen < 4096; seen++) {
		const char *n = e->d_name;
		size_t l = strlen(n);
		const char *kind = l > 10 && !strcmp(n + l - 10, ".xplane.pb")
				       ? "XLA profiler files (.xplane.pb, from jax.profiler or "
					 "TensorFlow's profiler)"
				   : (l > 9 && !strcmp(n + l - 9, ".nsys-rep")) ||
					   (l > 6 && !strcmp(n + l - 6, ".qdrep"))
				       ? "Nsight Systems reports"
				   : l > 8 && !strcmp(n + l - 8, ".ncu-rep")
				       ? "Nsight Compute reports"
				       : NULL;
		if (kind) {
			snprintf(what, cap,
				 ": only %s, which gpuscope does not read: record the program with "
				 "gpuscope record -- PROGRAM",
				 kind);
			return;
		}
		if (n[0] == '.' ||
		    snprintf(sub, sizeof(sub), "%s/%s", path, n) >= (int)sizeof(sub) ||
		    stat(sub, &st) != 0 || !S_ISDIR(st.st_mode))
			continue;
		DIR *s = opendir(sub);
		if (!s)
			continue;
		struct dirent *f;
		for (int k = 0; (f = readdir(s)) && k < 4096; k++)
			if (f->d_name[0] != '.' && is_trace_name(f->d_name)) {
				snprintf(what, cap,
					 " itself; its subdirectory '%s' does: give that "
					 "directory or one of its files",
					 n);
				break;
			}
		closedir(s);
		if (what[0])
			return;
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends path, or the trace files of a directory (sorted), to set->paths. */
static int add_path(struct trace_set *set, size_t *cap, const char *path, char *err)
{
	struct stat st;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		DIR *d = opendir(path);
		if (!d)
			return error_set(err, "cannot open directory '%s'", path);
		size_t first = set->n, cap_names = *cap;
		struct dirent *e;
		int rc = 0;
		while (rc == 0 && (e = readdir(d))) {
			if (e->d_name[0] == '.' || !is_trace_name(e->d_name))
				continue;
			char **slot = VEC_PUSH(set->paths, set->n, cap_names);
			size_t len = strlen(path) + strlen(e->d_name) + 2;
			if (!slot || !(*slot = malloc(len)))
				rc = error_set(err, "out of memory");
			else
				snprintf(*slot, len, "%s/%s", path, e->d_name);
		}
		char other[512] = "";
		if (rc == 0 && set->n == first)
			dir_holds(path, d, other, sizeof(other));
		closedir(d);
		*cap = cap_names;
		char sufs[128];
		suffix_list(sufs, sizeof(sufs));
		if (rc == 0 && set->n == first)
			rc = error_set(err, "'%s' holds no trace (%s)%s", path, sufs, other);
		if (rc == 0)
			qsort(set->paths + first, set->n - first, sizeof(*set->paths), cmp_str);
		return rc;
	}
	char **slot = VEC_PUSH(set->paths, set->n, *cap);
	if (!slot || !(*slot = strdup(path)))
		return error_set(err, "out of memory");
	return 0;
}

struct many {
	struct trace_set *set;
	pthread_mutex_t lock;
	size_t next;
	int workers; /* each file's own parser threads */
	int failed;
	char *err;
};

static void *load_some(void *arg)
{
	struct many *m = arg;
	for (;;) {
		pthread_mutex_lock(&m->lock);
		size_t i = m->next++;
		int stop = m->failed || i >= m->set->n;
		pthread_mutex_unlock(&m->lock);
		if (stop)
			return NULL;
		char e[GS_ERR_LEN];
		struct kineto_options ko = {.threads = m->workers};
		if (trace_load_any_opt(&m->set->traces[i], m->set->paths[i], &ko, e) < 0) {
			pthread_mutex_lock(&m->lock);
			if (!m->failed)
				snprintf(m->err, GS_ERR_LEN, "%s", e);
			m->failed = 1;
			pthread_mutex_unlock(&m->lock);
		}
	}
}

int trace_load_many(struct trace_set *set, const char *const *paths, size_t n, int jobs, char *err)
{
	memset(set, 0, sizeof(*set));
	size_t cap = 0;
	for (size_t i = 0; i < n; i++)
		if (add_path(set, &cap, paths[i], err) < 0) {
			trace_set_release(set);
			return -1;
		}
	if (!set->n) {
		trace_set_release(set);
		return error_set(err, "no trace to load");
	}
	set->traces = calloc(set->n, sizeof(*set->traces));
	if (!set->traces) {
		trace_set_release(set);
		return error_set(err, "out of memory");
	}
	long cores = gs_cpu_count();
	if (jobs <= 0)
		jobs = cores < 1 ? 1 : (int)cores;
	if ((size_t)jobs > set->n)
		jobs = (int)set->n;
	/* the cores go to files first, then to each file's parser threads */
	struct many m = {set, PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, err};
	m.workers =
	    cores > jobs ? (int)(cores / jobs) : -1; /* -1: none, the file's thread parses */
	pthread_t th[64];
	int started = 0;
	for (int i = 0; i < jobs && i < 64; i++)
		if (pthread_create(&th[started], NULL, load_some, &m) == 0)
			started++;
	if (!started)
		load_some(&m);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	pthread_mutex_destroy(&m.lock);
	if (m.failed) {
		trace_set_release(set);
		return -1;
	}
	return 0;
}

void trace_set_release(struct trace_set *set)
{
	for (size_t i = 0; set->traces && i < set->n; i++)
		trace_release(&set->traces[i]);
	for (size_t i = 0; set->paths && i < set->n; i++)
		free(set->paths[i]);
	free(set->traces);
	free(set->paths);
	memset(set, 0, sizeof(*set));
}
