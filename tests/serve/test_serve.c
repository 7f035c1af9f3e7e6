/*
 * test_serve.c - serve over a fake NVML: /metrics from the live sampler
 * (values scaled to base units, dcgm-exporter's labels, counters typed as
 * counters, unknown values left out), label values escaped, and the text
 * of a round with nothing known holding no GPU series at all; MIG instance
 * series live and, the same, from a monitor log (serve --replay).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../gpu/fake_nvml.h"
#include "monitor/monitor.h"
#include "serve/prom.h"
#include "serve/serve.h"

/* one NVIDIA GPU named name, nothing read yet */
static void one_gpu(struct gpu_static *st, struct gpu_sample *s, const char *name)
{
	memset(st, 0, sizeof(*st));
	memset(s, 0, sizeof(*s));
	snprintf(st->vendor, sizeof(st->vendor), "nvidia");
	snprintf(st->name, sizeof(st->name), "%s", name);
	st->valid = GPU_S_NAME;
}

static void escaped_and_unknown_left_out(void **state)
{
	struct gpu_static st[1];
	struct gpu_sample s[1];
	struct mon_procs *p = calloc(1, sizeof(*p));
	char *text;
	size_t len;
	one_gpu(st, s, "a \"quoted\\name\"\nnext");
	struct prom_round r = {"h", 1, st, s, p, 1500000000, NULL, 0, 0, 0, NULL};
	assert_int_equal(prom_render(&text, &len, &r), 0);
	/* nothing known: the info series and the timestamp, no metric family */
	assert_non_null(strstr(text, "model_name=\"a \\\"quoted\\\\name\\\"\\nnext\""));
	assert_null(strstr(text, "gpuscope_gpu_utilization_ratio"));
	assert_null(strstr(text, "gpuscope_process_"));
	assert_non_null(strstr(text, "gpuscope_sample_timestamp_seconds 1.500\n"));
	free(text);
	gpu_sample_set(&s[0], GPU_M_GPU_UTIL, 62);
	gpu_sample_set(&s[0], GPU_M_GPM_SM, 0.1);
	gpu_sample_set(&s[0], GPU_M_ENERGY, 1234.5);
	p->g.valid = 1;
	p->g.n = p->g.total = 1;
	p->g.p[0].pid = 9;
	p->g.p[0].valid = GPU_P_MEM; /* utilization unknown: no such series */
	p->g.p[0].mem_bytes = 4096;
	assert_int_equal(prom_render(&text, &len, &r), 0);
	assert_non_null(strstr(text, "# TYPE gpuscope_gpu_utilization_ratio gauge\n"));
	assert_non_null(strstr(text, "gpuscope_gpu_utilization_ratio{gpu=\"0\",UUID=\"\","));
	assert_non_null(strstr(text, "} 0.62\n"));
	assert_non_null(strstr(text, "} 0.001\n"));
	assert_non_null(strstr(text, "# TYPE gpuscope_energy_joules_total counter\n"));
	assert_non_null(strstr(text, "} 1234.5\n"));
	assert_non_null(
	    strstr(text, "pid=\"9\",command=\"\",container_id=\"\",pod_uid=\"\"} 4096\n"));
	assert_null(strstr(text, "gpuscope_process_sm_utilization_ratio"));
	assert_null(strstr(text, "gpuscope_power_usage_watts"));
	free(text);
	/* --labels dcgm: dcgm-exporter's exact names, on every series */
	st[0].valid |= GPU_S_DRIVER;
	snprintf(st[0].driver_version, sizeof(st[0].driver_version), "580.159.04");
	r.dcgm_labels = 1;
	assert_int_equal(prom_render(&text, &len, &r), 0);
	assert_null(strstr(text, "model_name="));
	assert_null(strstr(text, "hostname="));
	assert_null(strstr(text, ",driver_version="));
	assert_non_null(strstr(text, "gpuscope_gpu_utilization_ratio{gpu=\"0\",UUID=\"\","
				     "pci_bus_id=\"\",device=\"nvidia0\",modelName=\"a "));
	assert_non_null(
	    strstr(text, ",Hostname=\"h\",DCGM_FI_DRIVER_VERSION=\"580.159.04\"} 0.62\n"));
	assert_non_null(
	    strstr(text, ",Hostname=\"h\",DCGM_FI_DRIVER_VERSION=\"580.159.04\",pid=\"9\""));
	free(text);
	free(p);
	(void)state;
}

/* --compat dcgm: dcgm-exporter's names in its units (% stays %, GPM's
 * activities are ratios, MiB, MHz, mJ, us), FB_FREE from total - used,
 * GR_ENGINE_ACTIVE from GPU-Util; DCGM's labels; what DCGM lacks keeps its
 * gpuscope_ name; no gpuscope_ family that DCGM has is written twice */
static void compat_dcgm_units(void **state)
{
	struct gpu_static st[1];
	struct gpu_sample s[1];
	struct mon_procs *p = calloc(1, sizeof(*p));
	char *text;
	size_t len;
	one_gpu(st, s, "NVIDIA H200");
	gpu_sample_set(&s[0], GPU_M_GPU_UTIL, 62);
	gpu_sample_set(&s[0], GPU_M_GPM_SM, 12.5);
	gpu_sample_set(&s[0], GPU_M_SM_CLOCK, 1980);
	gpu_sample_set(&s[0], GPU_M_MEM_USED, 3 * 1048576.0);
	gpu_sample_set(&s[0], GPU_M_MEM_TOTAL, 8 * 1048576.0);
	gpu_sample_set(&s[0], GPU_M_ENERGY, 1234.5);
	gpu_sample_set(&s[0], GPU_M_PCIE_TX, 2.5);
	gpu_sample_set(&s[0], GPU_M_VIOL_POWER, 0.25);
	gpu_sample_set(&s[0], GPU_M_XID_COUNT, 2);
	struct prom_round r = {"h", 1, st, s, p, 1500000000, NULL, 0, 1, 0, NULL};
	assert_int_equal(prom_render(&text, &len, &r), 0);
	const char *g = "{gpu=\"0\",UUID=\"\",pci_bus_id=\"\",device=\"nvidia0\","
			"modelName=\"NVIDIA H200\",Hostname=\"h\",DCGM_FI_DRIVER_VERSION=\"\"}";
	const char *want[][2] = {
	    {"DCGM_FI_DEV_GPU_UTIL", " 62\n"},
	    {"DCGM_FI_PROF_SM_ACTIVE", " 0.125\n"},
	    {"DCGM_FI_PROF_GR_ENGINE_ACTIVE", " 0.62\n"},
	    {"DCGM_FI_DEV_SM_CLOCK", " 1980\n"},
	    {"DCGM_FI_DEV_FB_USED", " 3\n"},
	    {"DCGM_FI_DEV_FB_FREE", " 5\n"},
	    {"DCGM_FI_DEV_FB_TOTAL", " 8\n"},
	    {"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", " 1234500\n"},
	    {"DCGM_FI_PROF_PCIE_TX_BYTES", " 2500000\n"},
	    {"DCGM_FI_DEV_POWER_VIOLATION", " 250000\n"},
	    {"gpuscope_xid_errors_total", " 2\n"},
	};
	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		char line[512];
		snprintf(line, sizeof(line), "\n%s%s%s", want[k][0], g, want[k][1]);
		if (!strstr(text, line))
			fail_msg("no line %s in\n%s", line + 1, text);
	}
	assert_non_null(strstr(text, "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter\n"));
	assert_non_null(strstr(text, "\ngpuscope_up 1\n"));
	assert_null(strstr(text, "gpuscope_gpu_utilization_ratio"));
	assert_null(strstr(text, "gpuscope_memory_used_bytes"));
	assert_null(strstr(text, "gpuscope_sm_active_ratio"));
	assert_null(strstr(text, "model_name="));
	/* unknown stays out: no power reading, no DCGM_FI_DEV_POWER_USAGE */
	assert_null(strstr(text, "DCGM_FI_DEV_POWER_USAGE"));
	free(text);
	/* used above total (a torn reading): no free memory is made up */
	gpu_sample_set(&s[0], GPU_M_MEM_USED, 9 * 1048576.0);
	assert_int_equal(prom_render(&text, &len, &r), 0);
	assert_null(strstr(text, "DCGM_FI_DEV_FB_FREE"));
	free(text);
	free(p);
	(void)state;
}

/* no GPU: gpuscope_up 0 and the reason, escaped */
static void down_text(void **state)
{
	char *text;
	size_t len;
	assert_int_equal(prom_render_down(&text, &len, "node-1", "no \"libnvidia-ml\"\nhere"), 0);
	assert_non_null(strstr(text, "# TYPE gpuscope_up gauge\ngpuscope_up 0\n"));
	assert_non_null(strstr(text, "gpuscope_unavailable_info{hostname=\"node-1\","
				     "reason=\"no \\\"libnvidia-ml\\\"\\nhere\"} 1\n"));
	assert_int_equal(strlen(text), len);
	free(text);
	(void)state;
}

struct client {
	char url[160];
	volatile int stop;
	char *body;
};

static void ready(void *arg, const char *url)
{
	struct client *c = arg;
	snprintf(c->url, sizeof(c->url), "%s", url);
}

/* GET path over a plain socket; the whole response. */
static char *get(const char *url, const char *path)
{
	unsigned port = 0;
	sscanf(strrchr(url, ':') + 1, "%u", &port);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		return NULL;
	char req[256];
	snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", path);
	if (write(fd, req, strlen(req)) < 0)
		return NULL;
	size_t cap = 1 << 20, n = 0;
	char *b = malloc(cap + 1);
	ssize_t k;
	while ((k = read(fd, b + n, cap - n)) > 0)
		n += (size_t)k;
	b[n] = 0;
	close(fd);
	return b;
}

static void *scraper(void *arg)
{
	struct client *c = arg;
	while (!c->url[0])
		usleep(10000);
	for (int i = 0; i < 200 && !c->body; i++) {
		char *b = get(c->url, "/metrics");
		if (b && strstr(b, "gpuscope_sm_active_ratio"))
			c->body = b; /* a round with a GPM window */
		else
			free(b);
		usleep(20000);
	}
	c->stop = 1;
	return NULL;
}

/* serve over the fake GPUs as they are set up (replay NULL) or a monitor
 * log until a scrape holds a GPM window; that scrape's whole response.
 * root: /proc and the kubelet's directories under it (NULL: no /proc). */
static char *serve_once_opts(const char *replay, const char *root, int dcgm)
{
	struct gpu_sys sys;
	char err[GS_ERR_LEN];
	struct client c;
	pthread_t t;
	memset(&c, 0, sizeof(c));
	if (!replay)
		assert_int_equal(fake_nvml_sys(&sys, err), 0);
	struct serve_opts o = {.listen = "127.0.0.1:0",
			       .interval_s = 0.1,
			       .replay = replay,
			       .replay_speed = 100,
			       .max_conn = 16,
			       .timeout_s = 5,
			       .sys = replay ? NULL : &sys,
			       .proc_root = root ? NULL : "/nonexistent",
			       .root = root,
			       .dcgm_labels = dcgm,
			       .max_proc_series = SERVE_DEFAULT_MAX_PROC_SERIES,
			       .stop = &c.stop,
			       .on_ready = ready,
			       .ready_arg = &c};
	pthread_create(&t, NULL, scraper, &c);
	assert_int_equal(serve_run(&o, err), 0);
	pthread_join(t, NULL);
	if (!replay)
		gpu_sys_close(&sys);
	assert_non_null(c.body);
	return c.body;
}

static char *serve_once(const char *replay)
{
	return serve_once_opts(replay, NULL, 0);
}

static char *serve_fake_once(void)
{
	return serve_once(NULL);
}

static void live_over_fake(void **state)
{
	struct client c;
	fake_count = 2;
	fake_small_grid(&fake_gpus[0]);
	fake_small_grid(&fake_gpus[1]);
	fake_gpus[1].gpm_dram = 88;
	c.body = serve_fake_once();
	assert_non_null(strstr(c.body, "HTTP/1.1 200"));
	assert_non_null(strstr(c.body, "Content-Type: text/plain; version=0.0.4"));
	const char *g1 = "gpuscope_dram_active_ratio{gpu=\"1\",UUID=\"GPU-00000000-fake\","
			 "pci_bus_id=\"00000000:19:00.0\",device=\"nvidia1\",model_name=\"NVIDIA "
			 "H200\",hostname=\"";
	char *at = strstr(c.body, g1);
	assert_non_null(at);
	assert_non_null(strstr(at, ",driver_version=\"580.159.04\"} 0.88\n"));
	assert_non_null(strstr(c.body, "gpuscope_power_limit_watts{"));
	assert_non_null(
	    strstr(c.body, "# TYPE gpuscope_clock_throttle_power_seconds_total counter"));
	assert_non_null(strstr(c.body, "pid=\"4242\""));
	assert_null(strstr(c.body, "gpuscope_xid_last_code"));	    /* no XID: unknown, left out */
	assert_null(strstr(c.body, "gpuscope_pcie_replays_total")); /* no symbol in the fake */
	free(c.body);
	(void)state;
}

/* MIG: per-instance series with dcgm-exporter's GPU_I_PROFILE/GPU_I_ID and
 * the MIG UUID beside the whole GPU's; a GPU not in MIG mode gets none */
static void live_mig_labels(void **state)
{
	struct client c;
	fake_count = 2;
	fake_small_grid(&fake_gpus[0]);
	fake_small_grid(&fake_gpus[1]);
	fake_mig_setup();
	c.body = serve_fake_once();
	fake_mig_ops = 0;
	const char *mig1 =
	    ",driver_version=\"580.159.04\",GPU_I_PROFILE=\"3g.71gb\",GPU_I_ID=\"1\","
	    "MIG_UUID=\"MIG-aaaaaaaa-fake\"}";
	char want[512];
	snprintf(want, sizeof(want), "gpuscope_sm_active_ratio{gpu=\"0\",%s",
		 "UUID=\"GPU-00000000-fake\"");
	assert_non_null(strstr(c.body, want));
	char *at = strstr(c.body, "gpuscope_dram_active_ratio{gpu=\"0\"");
	assert_non_null(at);
	char *line = strstr(at, mig1);
	assert_non_null(line);
	assert_true(strncmp(line + strlen(mig1), " 0.85\n", 6) == 0);
	assert_non_null(strstr(c.body, "GPU_I_PROFILE=\"1g.18gb\",GPU_I_ID=\"5\","
				       "MIG_UUID=\"MIG-bbbbbbbb-fake\"} 0.03\n"));
	assert_non_null(
	    strstr(c.body, "GPU_I_ID=\"1\",MIG_UUID=\"MIG-aaaaaaaa-fake\"} 1073741824\n"));
	/* the process on instance 5 carries its instance */
	assert_non_null(strstr(c.body, "pid=\"4242\""));
	assert_non_null(strstr(c.body, "pod_uid=\"\",GPU_I_PROFILE=\"1g.18gb\",GPU_I_ID=\"5\"}"));
	/* GPU 1 is not in MIG mode: no line of it has an instance label */
	for (char *l = c.body; (l = strstr(l, "{gpu=\"1\"")) != NULL; l++) {
		char *end = strchr(l, '\n');
		assert_non_null(end);
		assert_null(memmem(l, (size_t)(end - l), "GPU_I_", 6));
	}
	/* the whole GPU's series stay (no instance label) */
	assert_non_null(strstr(c.body, "gpuscope_gpu_utilization_ratio{gpu=\"0\""));
	free(c.body);
	(void)state;
}

/* the lines of text that carry an instance label, in their order */
static char *instance_lines(const char *text)
{
	char *out = calloc(1, strlen(text) + 1);
	for (const char *l = text; *l;) {
		const char *end = strchr(l, '\n');
		size_t n = end ? (size_t)(end - l) + 1 : strlen(l);
		if (memmem(l, n, "GPU_I_", 6))
			strncat(out, l, n);
		l += n;
	}
	return out;
}

/* serve --replay of a monitor log of a MIG round writes the instance series
 * (and the processes' instance labels) exactly as live serve does */
static void replay_mig_as_live(void **state)
{
	char dir[] = "/tmp/gs-serve-XXXXXX", log[64], err[GS_ERR_LEN];
	struct gpu_sys sys;
	struct monitor_opts mo;
	fake_count = 2;
	fake_small_grid(&fake_gpus[0]);
	fake_small_grid(&fake_gpus[1]);
	fake_mig_setup();
	assert_non_null(mkdtemp(dir));
	snprintf(log, sizeof(log), "%s/mig.log", dir);
	assert_int_equal(fake_nvml_sys(&sys, err), 0);
	memset(&mo, 0, sizeof(mo));
	mo.interval_s = 0.05;
	mo.count = 3;
	mo.gpu = -1;
	mo.format = MON_CSV;
	mo.log = log;
	mo.sys = &sys;
	mo.proc_root = "/nonexistent";
	mo.out = fopen("/dev/null", "w");
	assert_int_equal(monitor_run(&mo, err), 0);
	fclose(mo.out);
	gpu_sys_close(&sys);
	char *live = serve_fake_once();
	fake_mig_ops = 0;
	char *replay = serve_once(log);
	char *a = instance_lines(strstr(live, "\r\n\r\n")),
	     *b = instance_lines(strstr(replay, "\r\n\r\n"));
	assert_non_null(strstr(a, "GPU_I_PROFILE=\"3g.71gb\",GPU_I_ID=\"1\","
				  "MIG_UUID=\"MIG-aaaaaaaa-fake\"} 0.85\n"));
	assert_non_null(strstr(a, "pod_uid=\"\",GPU_I_PROFILE=\"1g.18gb\",GPU_I_ID=\"5\"}"));
	assert_string_equal(a, b);
	free(a);
	free(b);
	free(live);
	free(replay);
	unlink(log);
	rmdir(dir);
	(void)state;
}

/* process k of p in pod ns/pod, container ctr */
static void in_pod(struct mon_procs *p, unsigned k, const char *ns, const char *pod,
		   const char *ctr)
{
	snprintf(p->meta[k].k8s.ns, sizeof(p->meta[k].k8s.ns), "%s", ns);
	snprintf(p->meta[k].k8s.pod, sizeof(p->meta[k].k8s.pod), "%s", pod);
	snprintf(p->meta[k].k8s.container, sizeof(p->meta[k].k8s.container), "%s", ctr);
}

/* the GPU's own labels, then what follows them on its utilization line */
static int gpu_line_has(const char *text, const char *after_labels)
{
	char want[512];
	snprintf(want, sizeof(want),
		 "gpuscope_gpu_utilization_ratio{gpu=\"0\",UUID=\"\",pci_bus_id=\"\","
		 "device=\"nvidia0\",model_name=\"G\",hostname=\"h\",driver_version=\"\"%s",
		 after_labels);
	return strstr(text, want) != NULL;
}

/* a process's pod names on its series (gpuscope's names; dcgm-exporter's
 * under --labels dcgm); a GPU's series carry them when its processes are
 * one pod's, the container only when one container's, and none when a
 * process is of no pod, of another, unnamed, or the list is cut short */
static void pod_labels(void **state)
{
	struct gpu_static st[1];
	struct gpu_sample s[1];
	struct mon_procs *p = calloc(1, sizeof(*p));
	char *text;
	size_t len;
	one_gpu(st, s, "G");
	gpu_sample_set(&s[0], GPU_M_GPU_UTIL, 50);
	p->g.valid = 1;
	p->g.n = p->g.total = 2;
	for (unsigned k = 0; k < 2; k++) {
		p->g.p[k].pid = 100 + k;
		p->g.p[k].valid = GPU_P_MEM;
		p->g.p[k].mem_bytes = 1;
		in_pod(p, k, "ml-team", "trainer-0", "pytorch");
	}
	struct prom_round r = {"h", 1, st, s, p, 1500000000, NULL, 0, 0, 0, NULL};
	assert_int_equal(prom_render(&text, &len, &r), 0);
	assert_true(gpu_line_has(text, ",pod_namespace=\"ml-team\",pod_name=\"trainer-0\","
				       "container_name=\"pytorch\"} 0.5\n"));
	assert_non_null(strstr(text, "pid=\"101\",command=\"\",container_id=\"\",pod_uid=\"\","
				     "pod_namespace=\"ml-team\",pod_name=\"trainer-0\","
				     "container_name=\"pytorch\"} 1\n"));
	/* the static facts keep one series: no pod on gpuscope_gpu_info */
	const char *info = strstr(text, "gpuscope_gpu_info{");
	assert_non_null(info);
	assert_null(memmem(info, strcspn(info, "\n"), "pod_name", 8));
	free(text);
	/* dcgm-exporter's names: the GPU's series and the processes' */
	r.dcgm_labels = 1;
	assert_int_equal(prom_render(&text, &len, &r), 0);
	assert_non_null(strstr(text, ",DCGM_FI_DRIVER_VERSION=\"\",namespace=\"ml-team\","
				     "pod=\"trainer-0\",container=\"pytorch\"} 0.5\n"));
	assert_non_null(strstr(text, "pod_uid=\"\",namespace=\"ml-team\",pod=\"trainer-0\","
				     "container=\"pytorch\"} 1\n"));
	assert_null(strstr(text, "pod_name="));
	free(text);
	r.dcgm_labels = 0;
	/* two containers of one pod: the pod, no container */
	in_pod(p, 1, "ml-team", "trainer-0", "sidecar");
	assert_int_equal(prom_render(&text, &len, &r), 0);
	assert_true(gpu_line_has(text, ",pod_namespace=\"ml-team\",pod_name=\"trainer-0\"} 0.5\n"));
	free(text);
	/* not one pod's: no pod on the GPU, each process keeps its own */
	static const char *const other[][3] = {
	    {"ml-team", "trainer-1", "pytorch"}, /* another pod */
	    {"other", "trainer-0", "pytorch"},	 /* another namespace */
	    {"", "", ""},			 /* no pod (or unnamed) */
	};
	for (unsigned i = 0; i < 3; i++) {
		in_pod(p, 1, other[i][0], other[i][1], other[i][2]);
		assert_int_equal(prom_render(&text, &len, &r), 0);
		assert_true(gpu_line_has(text, "} 0.5\n"));
		assert_non_null(strstr(text, "pid=\"100\",command=\"\",container_id=\"\","
					     "pod_uid=\"\",pod_namespace=\"ml-team\""));
		free(text);
	}
	/* more processes than listed: the others may be anyone's */
	in_pod(p, 1, "ml-team", "trainer-0", "pytorch");
	p->g.total = 3;
	assert_int_equal(prom_render(&text, &len, &r), 0);
	assert_true(gpu_line_has(text, "} 0.5\n"));
	free(text);
	/* no process: no pod */
	p->g.n = p->g.total = 0;
	assert_int_equal(prom_render(&text, &len, &r), 0);
	assert_true(gpu_line_has(text, "} 0.5\n"));
	free(text);
	/* MIG: an instance's series carry the pod of its processes alone */
	struct gpu_migs migs[1];
	memset(migs, 0, sizeof(migs));
	migs[0].valid = 1;
	migs[0].n = 2;
	migs[0].m[0].gi_id = 1;
	migs[0].m[1].gi_id = 5;
	snprintf(migs[0].m[0].profile, sizeof(migs[0].m[0].profile), "3g.71gb");
	snprintf(migs[0].m[1].profile, sizeof(migs[0].m[1].profile), "1g.18gb");
	gpu_sample_set(&migs[0].m[0].s, GPU_M_MEM_USED, 7);
	gpu_sample_set(&migs[0].m[1].s, GPU_M_MEM_USED, 9);
	p->g.n = p->g.total = 2;
	p->g.p[0].valid |= GPU_P_GI;
	p->g.p[0].gpu_instance_id = 1;
	p->g.p[1].valid |= GPU_P_GI;
	p->g.p[1].gpu_instance_id = 5;
	in_pod(p, 1, "serving", "llm", "vllm");
	r.migs = migs;
	assert_int_equal(prom_render(&text, &len, &r), 0);
	assert_non_null(strstr(text, "GPU_I_ID=\"1\",MIG_UUID=\"\",pod_namespace=\"ml-team\","
				     "pod_name=\"trainer-0\",container_name=\"pytorch\"} 7\n"));
	assert_non_null(strstr(text, "GPU_I_ID=\"5\",MIG_UUID=\"\",pod_namespace=\"serving\","
				     "pod_name=\"llm\",container_name=\"vllm\"} 9\n"));
	assert_true(gpu_line_has(text, "} 0.5\n")); /* the whole GPU: two pods */
	free(text);
	free(p);
	(void)state;
}

/* --max-process-series: the first series in GPU order, the rest counted
 * (the counter adds up over readings); a process's series go together */
static void process_series_limit(void **state)
{
	struct gpu_static st[2];
	struct gpu_sample s[2];
	struct mon_procs *p = calloc(2, sizeof(*p));
	uint64_t dropped = 0;
	char *text;
	size_t len;
	one_gpu(&st[0], &s[0], "G");
	one_gpu(&st[1], &s[1], "G");
	for (unsigned d = 0; d < 2; d++) {
		p[d].g.valid = 1;
		p[d].g.n = p[d].g.total = 3;
		for (unsigned k = 0; k < 3; k++) {
			p[d].g.p[k].pid = 10 * (d + 1) + k;
			p[d].g.p[k].valid = GPU_P_MEM | GPU_P_SM; /* 2 series each */
		}
	}
	struct prom_round r = {"h", 2, st, s, p, 1500000000, NULL, 0, 0, 6, &dropped};
	assert_int_equal(prom_render(&text, &len, &r), 0);
	/* 6 hold 3 processes exactly; the 4th would make 8 */
	for (unsigned pid = 10; pid <= 22; pid++) {
		char want[64];
		snprintf(want, sizeof(want), "pid=\"%u\"", pid);
		int kept = pid <= 12;
		if (pid > 12 && pid < 20)
			continue;
		if ((strstr(text, want) != NULL) != kept)
			fail_msg("pid %u: %s", pid, kept ? "dropped" : "kept");
	}
	assert_non_null(strstr(text, "# TYPE gpuscope_process_series_dropped_total counter\n"
				     "gpuscope_process_series_dropped_total 6\n"));
	free(text);
	assert_int_equal(prom_render(&text, &len, &r), 0);
	assert_non_null(strstr(text, "gpuscope_process_series_dropped_total 12\n"));
	free(text);
	/* no limit: all 12 series, the counter stays */
	r.max_proc_series = 0;
	assert_int_equal(prom_render(&text, &len, &r), 0);
	assert_non_null(strstr(text, "pid=\"22\""));
	assert_non_null(strstr(text, "gpuscope_process_series_dropped_total 12\n"));
	free(text);
	free(p);
	(void)state;
}

/* a root with the fake GPUs' process 4242 in pod ml-team/trainer-0 */
static void pod_tree(char *dir)
{
	char cmd[1024];
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s/proc/4242 %s/var/log/pods/ml-team_trainer-0_"
		 "0c4b5f5a-7c8e-4d1e-9d4c-1f2e3a4b5c6d/pytorch && "
		 "echo '4242 (python3) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 777 0 0' "
		 "> %s/proc/4242/stat && "
		 "echo '0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-"
		 "pod0c4b5f5a_7c8e_4d1e_9d4c_1f2e3a4b5c6d.slice/cri-containerd-"
		 "3f4e5d6c7b8a99887766554433221100ffeeddccbbaa99887766554433221100.scope' "
		 "> %s/proc/4242/cgroup",
		 dir, dir, dir, dir);
	assert_int_equal(system(cmd), 0);
}

/* 1 when the line of text that starts with start ends with end */
static int line_ends(const char *text, const char *start, const char *end)
{
	const char *l = strstr(text, start);
	if (!l)
		return 0;
	size_t n = strcspn(l, "\n"), e = strlen(end);
	return n >= e && memcmp(l + n - e, end, e) == 0;
}

/* live serve reads the pod from the root's /proc and kubelet directories
 * (--labels dcgm: dcgm-exporter's names); monitor --log records the names
 * and serve --replay of that log writes the same process and GPU lines */
static void live_and_replayed_pods(void **state)
{
	char dir[] = "/tmp/gs-serve-XXXXXX", log[64], err[GS_ERR_LEN], cmd[128];
	struct gpu_sys sys;
	struct monitor_opts mo;
	fake_count = 1;
	fake_small_grid(&fake_gpus[0]);
	assert_non_null(mkdtemp(dir));
	pod_tree(dir);
	char *live = serve_once_opts(NULL, dir, 1);
	assert_non_null(strstr(live, "pid=\"4242\",command=\"python3\",container_id=\"3f4e5d6c"));
	assert_non_null(strstr(live,
			       "pod_uid=\"0c4b5f5a-7c8e-4d1e-9d4c-1f2e3a4b5c6d\","
			       "namespace=\"ml-team\",pod=\"trainer-0\",container=\"pytorch\"}"));
	assert_true(line_ends(live, "gpuscope_gpu_utilization_ratio{",
			      ",namespace=\"ml-team\",pod=\"trainer-0\",container=\"pytorch\"} 1"));
	assert_non_null(strstr(live, "gpuscope_process_series_dropped_total 0\n"));
	snprintf(log, sizeof(log), "%s/pods.log", dir);
	assert_int_equal(fake_nvml_sys(&sys, err), 0);
	memset(&mo, 0, sizeof(mo));
	mo.interval_s = 0.05;
	mo.count = 3;
	mo.gpu = -1;
	mo.format = MON_CSV;
	mo.log = log;
	mo.sys = &sys;
	mo.root = dir;
	mo.out = fopen("/dev/null", "w");
	assert_int_equal(monitor_run(&mo, err), 0);
	fclose(mo.out);
	gpu_sys_close(&sys);
	char *replay = serve_once_opts(log, NULL, 1);
	char *a = strstr(live, "gpuscope_process_memory_used_bytes{"),
	     *b = strstr(replay, "gpuscope_process_memory_used_bytes{");
	assert_non_null(a);
	assert_non_null(b);
	/* the same line but the hostname (the log's) */
	a = strstr(a, ",pid=");
	b = strstr(b, ",pid=");
	assert_int_equal(strcspn(a, "\n"), strcspn(b, "\n"));
	assert_memory_equal(a, b, strcspn(a, "\n"));
	assert_true(line_ends(replay, "gpuscope_gpu_utilization_ratio{",
			      ",namespace=\"ml-team\",pod=\"trainer-0\",container=\"pytorch\"} 1"));
	free(live);
	free(replay);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	(void)state;
}

/* docs/serve.md's table names every registry metric with its DCGM field */
static void docs_table_matches_registry(void **state)
{
	FILE *f = fopen(GPUSCOPE_SOURCE_DIR "/docs/serve.md", "r");
	char line[1024];
	int found[GPU_M_COUNT] = {0};
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		for (int m = 0; m < GPU_M_COUNT; m++) {
			char cell[160];
			snprintf(cell, sizeof(cell), "| `gpuscope_%s` | %s |",
				 gpu_metrics[m].prom_name,
				 gpu_metrics[m].kind == GPU_COUNTER ? "counter" : "gauge");
			if (strncmp(line, cell, strlen(cell)) == 0 &&
			    (!gpu_metrics[m].dcgm[0] || strstr(line, gpu_metrics[m].dcgm)))
				found[m] = 1;
		}
	fclose(f);
	for (int m = 0; m < GPU_M_COUNT; m++) {
		if (!found[m])
			fprintf(stderr, "docs/serve.md lacks gpuscope_%s\n",
				gpu_metrics[m].prom_name);
		assert_true(found[m]);
	}
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(escaped_and_unknown_left_out),
	    cmocka_unit_test(compat_dcgm_units),
	    cmocka_unit_test(down_text),
	    cmocka_unit_test(live_over_fake),
	    cmocka_unit_test(live_mig_labels),
	    cmocka_unit_test(replay_mig_as_live),
	    cmocka_unit_test(pod_labels),
	    cmocka_unit_test(process_series_limit),
	    cmocka_unit_test(live_and_replayed_pods),
	    cmocka_unit_test(docs_table_matches_registry),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
