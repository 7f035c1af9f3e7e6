/*
 * k8s.c - a pod's names from the kubelet's log directories (k8s.h). The
 * kubelet names them (pkg/kubelet/kuberuntime):
 *   /var/log/pods/<namespace>_<pod name>_<pod UID>/<container name>/<restarts>.log
 *   /var/log/containers/<pod name>_<namespace>_<container name>-<container id>.log
 * the second cut at 255 bytes (ext4's longest file name), so with a long
 * pod name the id may be cut short. None of the names can hold '_' (DNS-1123
 * names and UIDs), so '_' splits them unambiguously.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "monitor/k8s.h"

/* the kubelet's cut of a log link's name, ".log" included (ext4MaxFileNameLen) */
#define K8S_LINK_NAME_MAX 255
#define K8S_CONTAINER_ID_LEN 64

static int alnum(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* [a-z0-9]([-a-z0-9]*[a-z0-9])? over s[0..n) */
static int label_chars_ok(const char *s, size_t n)
{
	if (n == 0 || !alnum((unsigned char)s[0]) || !alnum((unsigned char)s[n - 1]))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!alnum((unsigned char)s[i]) && s[i] != '-')
			return 0;
	return 1;
}

int k8s_label_ok(const char *s)
{
	size_t n = strlen(s);
	return n <= K8S_LABEL_MAX && label_chars_ok(s, n);
}

int k8s_subdomain_ok(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > K8S_SUBDOMAIN_MAX)
		return 0;
	for (const char *p = s;;) {
		const char *dot = strchr(p, '.');
		if (!label_chars_ok(p, dot ? (size_t)(dot - p) : strlen(p)))
			return 0;
		if (!dot)
			return 1;
		p = dot + 1;
	}
}

/* A name checked to fit (k8s_label_ok, k8s_subdomain_ok) into dst of cap
 * bytes; cut at cap - 1 all the same. */
static void set_name(char *dst, size_t cap, const char *src)
{
	size_t n = strlen(src);
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, src, n);
	dst[n] = 0;
}

/* s[0..n) split at its two '_' into a, b, c (each with room for
 * K8S_SUBDOMAIN_MAX bytes); 0 unless there are exactly three parts, none
 * empty or too long */
static int split3(const char *s, size_t n, char *a, char *b, char *c)
{
	const char *u1 = memchr(s, '_', n);
	if (!u1)
		return 0;
	const char *u2 = memchr(u1 + 1, '_', n - (size_t)(u1 + 1 - s));
	if (!u2 || memchr(u2 + 1, '_', n - (size_t)(u2 + 1 - s)))
		return 0;
	size_t la = (size_t)(u1 - s), lb = (size_t)(u2 - u1 - 1), lc = n - (size_t)(u2 + 1 - s);
	if (!la || !lb || !lc || la > K8S_SUBDOMAIN_MAX || lb > K8S_SUBDOMAIN_MAX ||
	    lc > K8S_SUBDOMAIN_MAX)
		return 0;
	memcpy(a, s, la);
	a[la] = 0;
	memcpy(b, u1 + 1, lb);
	b[lb] = 0;
	memcpy(c, u2 + 1, lc);
	c[lc] = 0;
	return 1;
}

static int is_dir_at(int dfd, const struct dirent *e)
{
	struct stat st;
	if (e->d_type == DT_DIR)
		return 1;
	if (e->d_type != DT_UNKNOWN)
		return 0;
	return fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

struct pod_dir {
	char containers[K8S_MAX_CONTAINERS][K8S_LABEL_MAX + 1];
	unsigned n;
};

/* The container directories of the pod directory name in pods (never
 * through a link). */
static void list_containers(DIR *pods, const char *name, struct pod_dir *pd)
{
	int fd = openat(dirfd(pods), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	for (unsigned k = 0;
	     pd->n < K8S_MAX_CONTAINERS && k < K8S_MAX_ENTRIES && (e = readdir(d)) != NULL; k++)
		if (k8s_label_ok(e->d_name) && is_dir_at(dirfd(d), e))
			set_name(pd->containers[pd->n++], sizeof(pd->containers[0]), e->d_name);
	closedir(d);
}

/* The pod directory of uid: its namespace and name into out, its
 * container directories into pd. */
static void find_pod_dir(struct k8s_names *out, struct pod_dir *pd, const char *dir,
			 const char *uid)
{
	char ns[K8S_SUBDOMAIN_MAX + 1], pod[K8S_SUBDOMAIN_MAX + 1], u[K8S_SUBDOMAIN_MAX + 1];
	size_t ul = strlen(uid);
	DIR *d = opendir(dir);
	struct dirent *e;
	if (!d)
		return;
	for (unsigned k = 0; k < K8S_MAX_ENTRIES && (e = readdir(d)) != NULL; k++) {
		size_t n = strlen(e->d_name);
		if (n <= ul + 1 || e->d_name[n - ul - 1] != '_' ||
		    strcmp(e->d_name + n - ul, uid) != 0 || !split3(e->d_name, n, ns, pod, u) ||
		    strcmp(u, uid) != 0 || !k8s_label_ok(ns) || !k8s_subdomain_ok(pod))
			continue;
		set_name(out->ns, sizeof(out->ns), ns);
		set_name(out->pod, sizeof(out->pod), pod);
		list_containers(d, e->d_name, pd);
		break;
	}
	closedir(d);
}

/* A log link's name (".log" cut off: base, n bytes) for container id cid:
 * 1 with the names it holds when it ends in "-<cid>"; when the kubelet cut
 * the name short, 1 only when the pod is known (out) and one of its
 * container directories makes a name that starts with base. */
static int link_names(const char *base, size_t n, const char *cid, const struct k8s_names *out,
		      const struct pod_dir *pd, char *pod, char *ns, char *ctr)
{
	char full[3 * (K8S_SUBDOMAIN_MAX + 1) + K8S_CONTAINER_ID_LEN + 4];
	if (n > K8S_CONTAINER_ID_LEN + 1 && base[n - K8S_CONTAINER_ID_LEN - 1] == '-' &&
	    memcmp(base + n - K8S_CONTAINER_ID_LEN, cid, K8S_CONTAINER_ID_LEN) == 0)
		return split3(base, n - K8S_CONTAINER_ID_LEN - 1, pod, ns, ctr) &&
		       k8s_subdomain_ok(pod) && k8s_label_ok(ns) && k8s_label_ok(ctr);
	if (n != K8S_LINK_NAME_MAX - 4 || !out->pod[0])
		return 0;
	for (unsigned i = 0; i < pd->n; i++) {
		int len = snprintf(full, sizeof(full), "%s_%s_%s-%s", out->pod, out->ns,
				   pd->containers[i], cid);
		if (len > (int)n && memcmp(full, base, n) == 0) {
			set_name(pod, K8S_SUBDOMAIN_MAX + 1, out->pod);
			set_name(ns, K8S_SUBDOMAIN_MAX + 1, out->ns);
			set_name(ctr, K8S_SUBDOMAIN_MAX + 1, pd->containers[i]);
			return 1;
		}
	}
	return 0;
}

/* The log link of container cid: its container name, and the pod's names
 * where the pod directory did not give them. */
static void find_link(struct k8s_names *out, const struct pod_dir *pd, const char *dir,
		      const char *cid)
{
	char pod[K8S_SUBDOMAIN_MAX + 1], ns[K8S_SUBDOMAIN_MAX + 1], ctr[K8S_SUBDOMAIN_MAX + 1];
	DIR *d = opendir(dir);
	struct dirent *e;
	if (!d)
		return;
	for (unsigned k = 0; k < K8S_MAX_ENTRIES && (e = readdir(d)) != NULL; k++) {
		size_t n = strlen(e->d_name);
		if (n <= 4 || strcmp(e->d_name + n - 4, ".log") != 0 ||
		    !link_names(e->d_name, n - 4, cid, out, pd, pod, ns, ctr))
			continue;
		/* the pod directory's names win; a link of another pod is not this one's */
		if (out->pod[0] && (strcmp(out->pod, pod) != 0 || strcmp(out->ns, ns) != 0))
			continue;
		set_name(out->ns, sizeof(out->ns), ns);
		set_name(out->pod, sizeof(out->pod), pod);
		set_name(out->container, sizeof(out->container), ctr);
		break;
	}
	closedir(d);
}

static int hex64(const char *s)
{
	size_t n = strspn(s, "0123456789abcdef");
	return n == K8S_CONTAINER_ID_LEN && !s[n];
}

int k8s_names_find(struct k8s_names *out, const char *root, const char *pod_uid,
		   const char *container_id)
{
	char dir[4096];
	struct pod_dir pd;
	memset(out, 0, sizeof(*out));
	pd.n = 0;
	root = root ? root : "";
	if (pod_uid[0] && strspn(pod_uid, "0123456789abcdef-") == strlen(pod_uid)) {
		snprintf(dir, sizeof(dir), "%s/var/log/pods", root);
		find_pod_dir(out, &pd, dir, pod_uid);
		if (pd.n == 1)
			set_name(out->container, sizeof(out->container), pd.containers[0]);
	}
	if (!out->container[0] && hex64(container_id)) {
		snprintf(dir, sizeof(dir), "%s/var/log/containers", root);
		find_link(out, &pd, dir, container_id);
	}
	return !!out->ns[0] + !!out->pod[0] + !!out->container[0];
}
