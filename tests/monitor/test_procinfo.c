/*
 * test_procinfo.c - a GPU process's container and pod (src/monitor/
 * procinfo.c, k8s.c): the container id and pod UID of every real
 * /proc/PID/cgroup line in tests/fixtures/cgroup; the pod's namespace, name
 * and container from a fixture tree of the kubelet's log directories (one
 * container, several with and without their log links, a link cut at 255
 * bytes, names that are not Kubernetes names, a linked pod directory); the
 * cache that looks a process up once (a reused pid looked up again, a pid
 * gone forgotten); the names through a monitor log and back, each pod's
 * once in the reader.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "monitor/k8s.h"
#include "monitor/log.h"
#include "monitor/procinfo.h"
#include "util/error.h"

static char dir[64];

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/gs-procinfo-XXXXXX");
	assert_non_null(mkdtemp(dir));
	(void)state;
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), getenv("KEEP") ? "true %s" : "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	(void)state;
	return 0;
}

/* mkdir -p DIR/rel (rel a printf format) */
static void mkdirs(const char *fmt, ...)
{
	char rel[1024], cmd[1200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/%s'", dir, rel);
	assert_int_equal(system(cmd), 0);
}

/* DIR/rel holding text */
static void put(const char *rel, const char *text)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* every row of tests/fixtures/cgroup/lines.tsv */
static void cgroup_fixtures(void **state)
{
	FILE *f = fopen(GPUSCOPE_SOURCE_DIR "/tests/fixtures/cgroup/lines.tsv", "r");
	char line[8192];
	unsigned rows = 0, pods = 0, ids = 0;
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char *field[6], *save = NULL, text[8192], *o = text;
		if (line[0] == '#')
			continue;
		line[strcspn(line, "\n")] = 0;
		for (int i = 0; i < 6; i++) {
			/* empty fields: strsep, not strtok */
			field[i] = i == 0 ? strtok_r(line, "\t", &save) : strsep(&save, "\t");
			assert_non_null(field[i]);
		}
		for (const char *p = field[5]; *p; p++) {
			if (p[0] == '\\' && p[1] == 'n') {
				*o++ = '\n';
				p++;
			} else {
				*o++ = *p;
			}
		}
		*o = 0;
		struct proc_meta m;
		memset(&m, 0, sizeof(m));
		proc_meta_from_cgroup(&m, text);
		if (strcmp(m.container_id, field[3]) != 0 || strcmp(m.pod_uid, field[4]) != 0)
			fail_msg("%s (%s): read container '%s' pod '%s', want '%s' '%s'", field[0],
				 field[2], m.container_id, m.pod_uid, field[3], field[4]);
		rows++;
		pods += field[4][0] != 0;
		ids += field[3][0] != 0;
	}
	fclose(f);
	/* the table was read: pods and ids in most rows, the negatives too */
	assert_true(rows >= 20);
	assert_true(pods >= 14 && ids >= 16 && rows - ids >= 3);
	(void)state;
}

/* what must not be read as a pod: "pod" and a UUID outside the kubelet's
 * cgroups, the first 32 or 36 characters of a longer run */
static void cgroup_negatives(void **state)
{
	static const char *const no_pod[] = {
	    "0::/system.slice/pod0c4b5f5a-7c8e-4d1e-9d4c-1f2e3a4b5c6d.service\n",
	    "0::/kubepods.slice/kubepods-pod8daa50c3a64c9ff60bb9eab7b44b56fd0123.slice\n",
	    "0::/kubepods/besteffort/pod0c4b5f5a-7c8e-4d1e-9d4c-1f2e3a4b5c6dab/x\n",
	    "0::/kubepods/besteffort/pod0c4b5f5a-7c8e-4d1e-9d4c\n",
	};
	for (unsigned i = 0; i < sizeof(no_pod) / sizeof(no_pod[0]); i++) {
		struct proc_meta m;
		memset(&m, 0, sizeof(m));
		proc_meta_from_cgroup(&m, no_pod[i]);
		if (m.pod_uid[0])
			fail_msg("%s: read pod '%s'", no_pod[i], m.pod_uid);
	}
	(void)state;
}

#define UID_A "0c4b5f5a-7c8e-4d1e-9d4c-1f2e3a4b5c6d"
#define UID_B "9a18ffb8-8513-11e7-b26e-7e29fbe2a5a3"
#define UID_S "8daa50c3a64c9ff60bb9eab7b44b56fd" /* a static pod's */
#define CID_A "3f4e5d6c7b8a99887766554433221100ffeeddccbbaa99887766554433221100"
#define CID_B "d28e0087cf8f3f0429f755d60b0de415b20fcf76736ded7bab6e30e7b739ee36"
#define CID_C "aabbccddeeff00112233445566778899aabbccddeeff00112233445566778899"

static void expect(const char *uid, const char *cid, const char *ns, const char *pod,
		   const char *ctr)
{
	struct k8s_names k;
	int n = k8s_names_find(&k, dir, uid, cid);
	assert_string_equal(k.ns, ns);
	assert_string_equal(k.pod, pod);
	assert_string_equal(k.container, ctr);
	assert_int_equal(n, !!ns[0] + !!pod[0] + !!ctr[0]);
}

static void names_from_kubelet_dirs(void **state)
{
	/* one container: all three from the pod's directory */
	mkdirs("var/log/pods/ml-team_trainer-0_" UID_A "/pytorch");
	put("var/log/pods/ml-team_trainer-0_" UID_A "/pytorch/0.log", "log\n");
	mkdirs("var/log/containers");
	expect(UID_A, CID_A, "ml-team", "trainer-0", "pytorch");
	expect(UID_A, "", "ml-team", "trainer-0", "pytorch");
	/* several containers (an init container's directory too): the link names it */
	mkdirs("var/log/pods/serving_llm.v2-7d9f_" UID_B "/init-weights");
	mkdirs("var/log/pods/serving_llm.v2-7d9f_" UID_B "/vllm");
	mkdirs("var/log/pods/serving_llm.v2-7d9f_" UID_B "/sidecar");
	expect(UID_B, CID_B, "serving", "llm.v2-7d9f", ""); /* no link yet */
	put("var/log/containers/llm.v2-7d9f_serving_vllm-" CID_B ".log", "");
	put("var/log/containers/llm.v2-7d9f_serving_sidecar-" CID_C ".log", "");
	expect(UID_B, CID_B, "serving", "llm.v2-7d9f", "vllm");
	expect(UID_B, CID_C, "serving", "llm.v2-7d9f", "sidecar");
	/* a link of another pod for this id is not this pod's container */
	put("var/log/containers/other_default_x-" CID_A ".log", "");
	expect(UID_B, CID_A, "serving", "llm.v2-7d9f", "");
	/* no pod directory (not mounted, or an old kubelet's UID-only name): the link alone */
	expect("11111111-2222-3333-4444-555555555555", CID_C, "serving", "llm.v2-7d9f", "sidecar");
	expect("", CID_B, "serving", "llm.v2-7d9f", "vllm");
	/* a static pod (its UID the manifest's hash) */
	mkdirs("var/log/pods/kube-system_gpu-burn-node1_" UID_S "/burn");
	expect(UID_S, "", "kube-system", "gpu-burn-node1", "burn");
	/* a long pod name: the kubelet cuts the link's name at 255 bytes, into the id */
	char pod[191], rel[600], uid[] = "22222222-3333-4444-5555-666666666666";
	memset(pod, 'p', sizeof(pod) - 1);
	pod[sizeof(pod) - 1] = 0;
	mkdirs("var/log/pods/ns_%s_%s/a", pod, uid);
	mkdirs("var/log/pods/ns_%s_%s/b", pod, uid);
	snprintf(rel, sizeof(rel), "var/log/containers/%s_ns_b-%s", pod, CID_A);
	rel[strlen("var/log/containers/") + 251] = 0;
	strcat(rel, ".log");
	put(rel, "");
	expect(uid, CID_A, "ns", pod, "b");
	expect(uid, CID_C, "ns", pod, ""); /* another id: no match */
	/* not Kubernetes names: upper case, a '_' too many, too long, a leading '-' */
	mkdirs("var/log/pods/Bad_x_33333333-3333-3333-3333-333333333333/c");
	mkdirs("var/log/pods/a_b_c_44444444-4444-4444-4444-444444444444/c");
	mkdirs("var/log/pods/-x_y_55555555-5555-5555-5555-555555555555/c");
	expect("33333333-3333-3333-3333-333333333333", "", "", "", "");
	expect("44444444-4444-4444-4444-444444444444", "", "", "", "");
	expect("55555555-5555-5555-5555-555555555555", "", "", "", "");
	char ns64[65];
	memset(ns64, 'n', 64);
	ns64[64] = 0;
	mkdirs("var/log/pods/%s_p_66666666-6666-6666-6666-666666666666/c", ns64);
	expect("66666666-6666-6666-6666-666666666666", "", "", "", "");
	/* a container directory that is a link, or a name no container has, is not listed */
	mkdirs("var/log/pods/ns_q_77777777-7777-7777-7777-777777777777/real");
	char cmd[512];
	snprintf(cmd, sizeof(cmd),
		 "ln -s /etc '%s/var/log/pods/ns_q_77777777-7777-7777-7777-777777777777/etc' && "
		 "mkdir '%s/var/log/pods/ns_q_77777777-7777-7777-7777-777777777777/Not_A_Name'",
		 dir, dir);
	assert_int_equal(system(cmd), 0);
	expect("77777777-7777-7777-7777-777777777777", "", "ns", "q", "real");
	/* a pod directory that is a link: the names, but its contents are not read */
	snprintf(cmd, sizeof(cmd),
		 "ln -s '%s/var/log/pods/ns_q_77777777-7777-7777-7777-777777777777' "
		 "'%s/var/log/pods/ns_r_88888888-8888-8888-8888-888888888888'",
		 dir, dir);
	assert_int_equal(system(cmd), 0);
	expect("88888888-8888-8888-8888-888888888888", "", "ns", "r", "");
	/* a UID that is no UID, no directories at all */
	expect("../..", "", "", "", "");
	assert_int_equal(k8s_names_find(&(struct k8s_names){0}, "/nonexistent", UID_A, CID_A), 0);
	(void)state;
}

static void names_rules(void **state)
{
	assert_true(k8s_label_ok("a") && k8s_label_ok("ml-team") && k8s_label_ok("0abc9"));
	assert_false(k8s_label_ok("") || k8s_label_ok("-a") || k8s_label_ok("a-") ||
		     k8s_label_ok("A") || k8s_label_ok("a.b") || k8s_label_ok("a_b"));
	assert_true(k8s_subdomain_ok("llm.v2-7d9f") && k8s_subdomain_ok("a"));
	assert_false(k8s_subdomain_ok("a..b") || k8s_subdomain_ok(".a") || k8s_subdomain_ok("a.") ||
		     k8s_subdomain_ok("a.-b") || k8s_subdomain_ok("\033"));
	char s[300];
	memset(s, 'a', sizeof(s) - 1);
	s[sizeof(s) - 1] = 0;
	s[K8S_SUBDOMAIN_MAX] = 0;
	assert_true(k8s_subdomain_ok(s));
	s[K8S_SUBDOMAIN_MAX] = 'a';
	s[K8S_SUBDOMAIN_MAX + 1] = 0;
	assert_false(k8s_subdomain_ok(s));
	s[K8S_LABEL_MAX] = 0;
	assert_true(k8s_label_ok(s));
	s[K8S_LABEL_MAX] = 'a';
	s[K8S_LABEL_MAX + 1] = 0;
	assert_false(k8s_label_ok(s));
	(void)state;
}

/* proc/PID/{stat,cgroup} of a process started at start */
static void proc_entry(unsigned pid, const char *comm, unsigned long long start, const char *cgroup)
{
	char rel[128], stat[512];
	mkdirs("proc/%u", pid);
	snprintf(stat, sizeof(stat),
		 "%u (%s) S 1 %u %u 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 4 0 %llu 1000 100 "
		 "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 3 0 0 0 0 0\n",
		 pid, comm, pid, pid, start);
	snprintf(rel, sizeof(rel), "proc/%u/stat", pid);
	put(rel, stat);
	snprintf(rel, sizeof(rel), "proc/%u/cgroup", pid);
	put(rel, cgroup);
}

static void cache_looks_up_once(void **state)
{
	struct proc_cache c;
	struct mon_procs *p = calloc(2, sizeof(*p));
	mkdirs("var/log/pods/ml-team_trainer-0_" UID_A "/pytorch");
	proc_entry(100, "python3 (x) y", 5000,
		   "0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_A
		   ".slice/cri-containerd-" CID_A ".scope\n");
	proc_entry(200, "nbody", 6000, "0::/user.slice/user-1000.slice/session-2.scope\n");
	proc_cache_init(&c, NULL, dir);
	p[0].g.valid = p[1].g.valid = 1;
	p[0].g.n = 2;
	p[0].g.p[0].pid = 100;
	p[0].g.p[1].pid = 200;
	p[1].g.n = 1;
	p[1].g.p[0].pid = 100; /* on both GPUs: looked up once */
	proc_cache_annotate(&c, p, 2);
	assert_int_equal(c.lookups, 2);
	assert_string_equal(p[0].meta[0].comm, "python3 (x) y"); /* parentheses in the name */
	assert_string_equal(p[0].meta[0].pod_uid, UID_A);
	assert_string_equal(p[0].meta[0].k8s.ns, "ml-team");
	assert_string_equal(p[1].meta[0].k8s.container, "pytorch");
	assert_string_equal(p[0].meta[1].comm, "nbody");
	assert_string_equal(p[0].meta[1].k8s.pod, "");
	/* the next rounds read stat alone, the names stay */
	for (int r = 0; r < 3; r++)
		proc_cache_annotate(&c, p, 2);
	assert_int_equal(c.lookups, 2);
	assert_string_equal(p[1].meta[0].k8s.pod, "trainer-0");
	/* a new command name shows at once; the cgroup is not read again */
	proc_entry(200, "renamed", 6000, "garbage\n");
	proc_cache_annotate(&c, p, 2);
	assert_string_equal(p[0].meta[1].comm, "renamed");
	assert_int_equal(c.lookups, 2);
	/* pid 100 reused by another process (another start time): looked up again */
	proc_entry(100, "other", 9000, "0::/system.slice/docker-" CID_C ".scope\n");
	proc_cache_annotate(&c, p, 2);
	assert_int_equal(c.lookups, 3);
	assert_string_equal(p[0].meta[0].container_id, CID_C);
	assert_string_equal(p[0].meta[0].pod_uid, "");
	assert_string_equal(p[0].meta[0].k8s.ns, "");
	/* a process gone from /proc: nothing, no error */
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/proc/200'", dir);
	assert_int_equal(system(cmd), 0);
	proc_cache_annotate(&c, p, 2);
	assert_string_equal(p[0].meta[1].comm, "");
	/* a tree with comm and cgroup but no stat (tests/fixtures/sysfs): read, not kept */
	mkdirs("proc/200");
	put("proc/200/comm", "torchrun\n");
	put("proc/200/cgroup", "0::/kubepods/besteffort/pod" UID_A "/" CID_B "\n");
	uint64_t before = c.lookups;
	proc_cache_annotate(&c, p, 2);
	proc_cache_annotate(&c, p, 2);
	assert_string_equal(p[0].meta[1].comm, "torchrun");
	assert_string_equal(p[0].meta[1].k8s.pod, "trainer-0");
	assert_int_equal(c.lookups, before + 2);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/proc/200'", dir);
	assert_int_equal(system(cmd), 0);
	proc_cache_annotate(&c, p, 2);
	assert_string_equal(p[0].meta[1].comm, "");
	/* unlisted for PROC_CACHE_KEEP_ROUNDS rounds: forgotten */
	p[0].g.n = 1;
	p[1].g.n = 0;
	for (int r = 0; r < PROC_CACHE_KEEP_ROUNDS + 1; r++)
		proc_cache_annotate(&c, p, 2);
	assert_int_equal(c.n, 1);
	p[0].g.valid = 0; /* a list not read: nothing annotated, nothing looked up */
	before = c.lookups;
	proc_cache_annotate(&c, p, 2);
	assert_int_equal(c.lookups, before);
	proc_cache_release(&c);
	free(p);
	(void)state;
}

/* the names through a monitor log: written, read back, each pod's once;
 * a name that is not a Kubernetes name is not read */
static void names_through_the_log(void **state)
{
	struct mon_procs *p = calloc(1, sizeof(*p));
	struct gpu_static st;
	struct gpu_sample s;
	char path[128], *line;
	size_t len;
	memset(&st, 0, sizeof(st));
	memset(&s, 0, sizeof(s));
	snprintf(st.vendor, sizeof(st.vendor), "nvidia");
	p->g.valid = 1;
	p->g.n = p->g.total = 3;
	for (unsigned i = 0; i < 3; i++) {
		p->g.p[i].pid = 10 + i;
		p->g.p[i].valid = GPU_P_MEM;
		p->g.p[i].mem_bytes = 1000;
		snprintf(p->meta[i].pod_uid, sizeof(p->meta[i].pod_uid), "%s", UID_A);
		snprintf(p->meta[i].k8s.ns, sizeof(p->meta[i].k8s.ns), "ml-team");
		snprintf(p->meta[i].k8s.pod, sizeof(p->meta[i].k8s.pod), "trainer-0");
		snprintf(p->meta[i].k8s.container, sizeof(p->meta[i].k8s.container), "pytorch");
	}
	snprintf(path, sizeof(path), "%s/names.jsonl", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(monlog_fmt_header(&line, &len, "t", "h", 1, 1, 1), 0);
	fprintf(f, "%s\n", line);
	free(line);
	assert_int_equal(monlog_fmt_gpu(&line, &len, 0, &st), 0);
	fprintf(f, "%s\n", line);
	free(line);
	for (int r = 0; r < 3; r++) {
		assert_int_equal(monlog_fmt_sample(&line, &len, 1000 + r, 0, &s, p, NULL), 0);
		assert_non_null(strstr(line, "\"k8s_ns\":\"ml-team\",\"k8s_pod\":\"trainer-0\","
					     "\"k8s_container\":\"pytorch\""));
		fprintf(f, "%s\n", line);
		free(line);
	}
	/* a hostile line: names no pod can have, control characters */
	fprintf(f, "{\"t\":\"s\",\"ts\":2000,\"gpu\":0,\"v\":{},\"procs\":[{\"pid\":7,"
		   "\"k8s_ns\":\"Bad\",\"k8s_pod\":\"x\\u001b[2J\",\"k8s_container\":\"ok\"}]}\n");
	fclose(f);
	struct monlog l;
	char err[GS_ERR_LEN];
	assert_int_equal(monlog_read(&l, path, err), 0);
	assert_int_equal(l.n_rounds, 4);
	assert_int_equal(l.n_names, 2); /* 9 processes of one pod; the hostile one's container */
	struct mon_procs *q = calloc(1, sizeof(*q));
	monlog_round_procs(&l, 2, 0, q);
	assert_int_equal(q->g.n, 3);
	assert_string_equal(q->meta[2].k8s.ns, "ml-team");
	assert_string_equal(q->meta[2].k8s.pod, "trainer-0");
	assert_string_equal(q->meta[2].k8s.container, "pytorch");
	assert_string_equal(q->meta[2].pod_uid, UID_A);
	monlog_round_procs(&l, 3, 0, q);
	assert_string_equal(q->meta[0].k8s.ns, "");
	assert_string_equal(q->meta[0].k8s.pod, "");
	assert_string_equal(q->meta[0].k8s.container, "ok");
	monlog_release(&l);
	free(q);
	free(p);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(cgroup_fixtures),
	    cmocka_unit_test(cgroup_negatives),
	    cmocka_unit_test(names_rules),
	    cmocka_unit_test_setup_teardown(names_from_kubelet_dirs, setup, teardown),
	    cmocka_unit_test_setup_teardown(cache_looks_up_once, setup, teardown),
	    cmocka_unit_test_setup_teardown(names_through_the_log, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
