/*
 * test_doctor.c - the NVML backend and doctor's checks over a fake ops table: a GPU with a
 * narrowed PCIe link, thermal slowdown, ECC errors, a pending remap, MIG and a second
 * process must give exactly those findings; GPM needs two samples; compat table.
 * Every finding doctor can give is rendered in English and Chinese with no message left
 * untranslated, and every "gpuscope explain X" doctor prints finds entry X (#22 item 4).
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

#include "gpu/gpu.h"
#include "gpu/nvml_abi.h"
#include "health/doctor.h"
#include "render/doctor_render.h"
#include "health/explain.h"
#include "util/error.h"
#include "util/i18n.h"

static int fake_cc_major = 9, fake_cc_minor = 0;
static char fake_samples[8];
static int gpm_allocs;

static int f_init(void)
{
	return 0;
}
static int f_count(unsigned int *c)
{
	*c = 1;
	return 0;
}
static int f_handle(unsigned int i, struct nvmlDevice_st **d)
{
	if (i != 0)
		return 2;
	*d = (struct nvmlDevice_st *)0x1;
	return 0;
}
static int f_name(struct nvmlDevice_st *d, char *b, unsigned int len)
{
	snprintf(b, len, "Fake H200");
	return 0;
}
static int f_cc(struct nvmlDevice_st *d, int *ma, int *mi)
{
	*ma = fake_cc_major;
	*mi = fake_cc_minor;
	return 0;
}
static int f_cuda(int *v)
{
	*v = 13000;
	return 0;
}
static int f_maxgen(struct nvmlDevice_st *d, unsigned int *v)
{
	*v = 5;
	return 0;
}
static int f_maxw(struct nvmlDevice_st *d, unsigned int *v)
{
	*v = 16;
	return 0;
}
static int f_curgen(struct nvmlDevice_st *d, unsigned int *v)
{
	*v = 1; /* idle down-training: must not be flagged */
	return 0;
}
static int f_curw(struct nvmlDevice_st *d, unsigned int *v)
{
	*v = 8;
	return 0;
}
static int f_util(struct nvmlDevice_st *d, struct gs_nvml_utilization *u)
{
	u->gpu = 0;
	u->memory = 0;
	return 0;
}
static unsigned long long fake_reasons = GS_NVML_CLOCKS_EVENT_HW_THERMAL_SLOWDOWN;
static int f_reasons(struct nvmlDevice_st *d, unsigned long long *r)
{
	*r = fake_reasons;
	return 0;
}
static int f_ecc(struct nvmlDevice_st *d, int t, int c, unsigned long long *n)
{
	*n = t == GS_NVML_MEMORY_ERROR_UNCORRECTED ? 2 : 10;
	return 0;
}
static unsigned fake_remap_pending = 1, fake_remap_failure;
static int f_remap(struct nvmlDevice_st *d, unsigned *a, unsigned *b, unsigned *c, unsigned *e)
{
	*a = 1;
	*b = 1;
	*c = fake_remap_pending;
	*e = fake_remap_failure;
	return 0;
}
static int f_mig(struct nvmlDevice_st *d, unsigned *c, unsigned *p)
{
	*c = 1;
	*p = 1;
	return 0;
}
static int f_procs(struct nvmlDevice_st *d, unsigned *n, struct gs_nvml_process_info *p)
{
	if (*n < 2) {
		*n = 2;
		return GS_NVML_ERROR_INSUFFICIENT_SIZE;
	}
	*n = 2;
	p[0].pid = 100;
	p[0].used_gpu_memory = 1 << 20;
	p[1].pid = 101;
	p[1].used_gpu_memory = 1 << 20;
	return 0;
}
static int f_gpm_alloc(struct nvmlGpmSample_st **s)
{
	*s = (struct nvmlGpmSample_st *)&fake_samples[gpm_allocs++ % 8];
	return 0;
}
static int f_gpm_free(struct nvmlGpmSample_st *s)
{
	gpm_allocs--;
	return 0;
}
static int f_gpm_get(struct nvmlDevice_st *d, struct nvmlGpmSample_st *s)
{
	return 0;
}
static int f_gpm_metrics(struct gs_nvml_gpm_metrics_get *m)
{
	if (m->version != GS_NVML_GPM_METRICS_GET_VERSION || m->sample1 == m->sample2)
		return 2;
	for (unsigned i = 0; i < m->num_metrics; i++) {
		m->metrics[i].nvml_return = 0;
		m->metrics[i].value = m->metrics[i].metric_id * 1.5;
	}
	return 0;
}

static struct gs_nvml_ops fake_ops(void)
{
	struct gs_nvml_ops o;
	memset(&o, 0, sizeof(o));
	o.init = f_init;
	o.device_get_count = f_count;
	o.device_get_handle_by_index = f_handle;
	o.device_get_name = f_name;
	o.device_get_cuda_compute_capability = f_cc;
	o.system_get_cuda_driver_version = f_cuda;
	o.device_get_max_pcie_link_generation = f_maxgen;
	o.device_get_max_pcie_link_width = f_maxw;
	o.device_get_curr_pcie_link_generation = f_curgen;
	o.device_get_curr_pcie_link_width = f_curw;
	o.device_get_utilization_rates = f_util;
	o.device_get_clocks_event_reasons = f_reasons;
	o.device_get_total_ecc_errors = f_ecc;
	o.device_get_remapped_rows = f_remap;
	o.device_get_mig_mode = f_mig;
	o.device_get_compute_running_processes = f_procs;
	o.gpm_sample_alloc = f_gpm_alloc;
	o.gpm_sample_free = f_gpm_free;
	o.gpm_sample_get = f_gpm_get;
	o.gpm_metrics_get = f_gpm_metrics;
	return o;
}

/* The fake table as a vendor-neutral system. */
static void open_fake(struct gpu_sys *sys, const struct gs_nvml_ops *o)
{
	char err[GS_ERR_LEN];
	void *ctx;
	assert_int_equal(gpu_nvml_open_ops(&ctx, o, err), 0);
	gpu_sys_init(sys);
	assert_int_equal(gpu_sys_add(sys, &gpu_vendor_nvml, ctx, err), 0);
}

static void backend_validity_and_gpm(void **state)
{
	struct gs_nvml_ops o = fake_ops();
	struct gpu_sys sys;
	struct gpu_static s;
	struct gpu_sample a, b;

	open_fake(&sys, &o);
	assert_int_equal(gpu_count(&sys), 1);
	assert_int_equal(gpu_static_info(&sys, 0, &s), 0);
	assert_string_equal(s.name, "Fake H200");
	assert_true(s.valid & GPU_S_CC);
	assert_false(s.valid & GPU_S_UUID); /* no symbol: unknown, not "" */
	assert_false(s.valid & GPU_S_MEM_TOTAL);
	assert_int_equal(s.pcie_cur_width, 8);
	assert_int_equal(gpu_static_info(&sys, 5, &s), -1);

	assert_int_equal(gpu_sample(&sys, 0, GPU_WANT_ALL, &a), 0);
	assert_false(gpu_sample_has(&a, GPU_M_GPM_SM)); /* first call: no GPM yet */
	assert_false(gpu_sample_has(&a, GPU_M_POWER));
	assert_int_equal(gpu_sample(&sys, 0, GPU_WANT_ALL, &b), 0);
	assert_true(gpu_sample_has(&b, GPU_M_GPM_SM));
	assert_true(b.v[GPU_M_GPM_SM] == 2 * 1.5);
	assert_true(b.v[GPU_M_GPM_DRAM] == 10 * 1.5);
	assert_true(b.v[GPU_M_GPM_TENSOR] == 5 * 1.5);
	assert_true(b.v[GPU_M_GPM_FP32] == 12 * 1.5);
	assert_true(gpu_sample_has(&b, GPU_M_CLOCK_EVENTS));
	/* without GPU_WANT_GPM the pair is not taken */
	assert_int_equal(gpu_sample(&sys, 0, GPU_WANT_BASIC, &b), 0);
	assert_false(gpu_sample_has(&b, GPU_M_GPM_SM));
	gpu_sys_close(&sys);
	assert_int_equal(gpm_allocs, 0); /* samples freed */
}

static void open_without_driver(void **state)
{
	void *ctx = (void *)0x1;
	char err[GS_ERR_LEN];
	if (gpu_vendor_nvml.init(&ctx, err) == 0) {
		gpu_vendor_nvml.shutdown(ctx); /* a machine with a driver: nothing to check here */
		return;
	}
	assert_null(ctx);
	assert_non_null(strstr(err, "libnvidia-ml.so.1"));
}

static int has(const struct doctor_report *r, const char *id)
{
	return finding_find(&r->findings, id) != NULL;
}

static void doctor_on_fake_gpu(void **state)
{
	struct gs_nvml_ops o = fake_ops();
	struct doctor_opts opt;
	struct doctor_report *r = malloc(sizeof(*r));
	struct gpu_sys sys;
	memset(&opt, 0, sizeof(opt));
	open_fake(&sys, &o);
	opt.gpus = &sys;
	opt.no_python = 1;
	opt.no_runtime_scan = 1;
	opt.proc_version = FIXTURES_DIR "/kernel-logs/raw.log"; /* any readable file */
	opt.kernel_log = FIXTURES_DIR "/kernel-logs/mig.log";
	opt.binary = FIXTURES_DIR "/fatbin/tiny_sm80_sm90.o";
	doctor_report_init(r);
	doctor_run(r, &opt);
	assert_false(has(r, "no_driver"));
	assert_true(has(r, "pcie_degraded")); /* width 8 < 16 */
	assert_int_equal(
	    (int)finding_get(finding_find(&r->findings, "pcie_degraded"), "cur_width")->num, 8);
	assert_true(has(r, "thermal_throttle"));
	assert_false(has(r, "power_throttle"));
	assert_true(has(r, "ecc_errors"));
	assert_true(has(r, "row_remap"));
	assert_true(has(r, "mig_enabled"));
	assert_true(has(r, "gpu_shared"));
	assert_true(has(r, "xid"));
	assert_false(has(r, "arch_unsupported")); /* sm_90 cubin on cc 9.0 */
	assert_true(doctor_found_problem(r));
	doctor_report_release(r);

	fake_cc_major = 7; /* a Turing card: the fixture has nothing for it */
	fake_cc_minor = 5;
	open_fake(&sys, &o); /* doctor closed the first one */
	doctor_report_init(r);
	doctor_run(r, &opt);
	assert_true(has(r, "arch_unsupported"));
	doctor_report_release(r);
	fake_cc_major = 9;
	fake_cc_minor = 0;
	free(r);
}

static void doctor_without_driver(void **state)
{
	struct doctor_opts opt;
	struct doctor_report *r = malloc(sizeof(*r));
	memset(&opt, 0, sizeof(opt));
	opt.no_python = 1;
	opt.no_runtime_scan = 1;
	opt.proc_version = "/nonexistent/version";
	opt.kernel_log = FIXTURES_DIR "/kernel-logs/binary.log";
	doctor_report_init(r);
	doctor_run(r, &opt); /* real dlopen: on a driverless machine no_driver */
	assert_string_equal(r->checks[0].name, "kernel_module");
	assert_int_equal(r->checks[0].status, CHECK_FAIL);
	assert_true(doctor_found_problem(r));
	doctor_report_release(r);
	free(r);
}

/* A fake torch package (python3 -c 'import torch') reporting version.cuda. */
static void fake_torch(const char *dir, const char *cuda)
{
	char path[512];
	FILE *f;
	snprintf(path, sizeof(path), "%s/torch", dir);
	mkdir(dir, 0700);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/torch/__init__.py", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f,
		"class version:\n    cuda = %s\nclass cuda:\n    @staticmethod\n"
		"    def is_available(): return True\n",
		cuda);
	fclose(f);
}

static int has_cjk(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0xe3 && (unsigned char)*s <= 0xe9)
			return 1;
	return 0;
}

/* Runs doctor with opt and renders the report; collects the findings' ids and
 * the codes of "gpuscope explain X" actions. */
static void run_and_render(const struct doctor_opts *opt, char ids[][32], int *nids,
			   char codes[][64], int *ncodes)
{
	struct doctor_report *r = malloc(sizeof(*r));
	FILE *sink = fopen("/dev/null", "w");
	struct doctor_opts o = *opt;
	struct gs_nvml_ops fake = fake_ops();
	struct gpu_sys sys;
	if (opt->gpus) { /* doctor closes what it is given: a fresh one each run */
		open_fake(&sys, &fake);
		o.gpus = &sys;
	}
	doctor_report_init(r);
	doctor_run(r, &o);
	doctor_print_text(sink, r);
	doctor_print_json(sink, r);
	for (size_t i = 0; i < r->findings.n; i++) {
		const struct finding *f = &r->findings.v[i];
		int seen = 0;
		/* titles are sentences in the chosen language */
		assert_int_equal(has_cjk(f->title), i18n_zh());
		for (int k = 0; k < *nids; k++)
			seen |= !strcmp(ids[k], f->id);
		if (!seen && *nids < 32)
			snprintf(ids[(*nids)++], 32, "%s", f->id);
		for (int a = 0; a < f->n_actions; a++) {
			const char *p = strstr(f->actions[a], "gpuscope explain ");
			if (p && *ncodes < 64)
				snprintf(codes[(*ncodes)++], 64, "%s", p + 17);
		}
	}
	fclose(sink);
	doctor_report_release(r);
	free(r);
}

static void every_finding_both_languages(void **state)
{
	static const char *const langs[] = {"en", "zh"};
	char dir[] = "/tmp/gs-doctor-XXXXXX", torch_none[600], torch_new[600], log[600];
	char ids[32][32], codes[64][64];
	assert_non_null(mkdtemp(dir));
	snprintf(torch_none, sizeof(torch_none), "%s/none", dir);
	snprintf(torch_new, sizeof(torch_new), "%s/new", dir);
	fake_torch(torch_none, "None");
	fake_torch(torch_new, "'13.1'"); /* newer than the fake driver's 13.0 */
	snprintf(log, sizeof(log), "%s/kern.log", dir);
	FILE *f = fopen(log, "w");
	assert_non_null(f);
	fprintf(f, "[ 1.0] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=x, GPU has fallen off\n"
		   "[ 2.0] NVRM: Xid (PCI:0000:3b:00): 999, pid=1, name=x, a code from the future\n"
		   "[ 3.0] NVRM: Xid (PCI:0000:3b:00): 13, pid=1, name=x, Graphics Exception\n"
		   "[ 4.0] NVRM: Xid (PCI:0000:3b:00): 13, pid=1, name=x, Graphics Exception\n");
	fclose(f);

	for (int l = 0; l < 2; l++) {
		int nids = 0, ncodes = 0;
		assert_int_equal(i18n_set_lang(langs[l]), 0);
		assert_int_equal(i18n_zh(), l); /* the catalogue was found in BUILD/locale */
		i18n_missing_reset();
		struct gpu_sys any;
		struct doctor_opts opt;
		memset(&opt, 0, sizeof(opt));
		opt.gpus = &any; /* replaced by a fresh fake in run_and_render */
		opt.no_runtime_scan = 1;
		opt.proc_version = FIXTURES_DIR "/kernel-logs/raw.log";
		opt.kernel_log = log;
		opt.binary = FIXTURES_DIR "/fatbin/tiny_sm80_sm90.o";
		/* 1: thermal, PCIe, ECC, pending remap, MIG, sharing, XIDs, CPU-only torch */
		setenv("PYTHONPATH", torch_none, 1);
		run_and_render(&opt, ids, &nids, codes, &ncodes);
		/* 2: power, a failed remap, a Turing GPU, a torch newer than the driver */
		fake_reasons = GS_NVML_CLOCKS_EVENT_SW_POWER_CAP;
		fake_remap_failure = 1;
		fake_cc_major = 7;
		fake_cc_minor = 5;
		setenv("PYTHONPATH", torch_new, 1);
		run_and_render(&opt, ids, &nids, codes, &ncodes);
		/* 3: uncorrectable rows only; every GPU hidden; log is a directory */
		fake_remap_failure = 0;
		fake_remap_pending = 0;
		setenv("CUDA_VISIBLE_DEVICES", "-1", 1);
		opt.no_python = 1;
		opt.kernel_log = FIXTURES_DIR;
		run_and_render(&opt, ids, &nids, codes, &ncodes);
		unsetenv("CUDA_VISIBLE_DEVICES");
		/* 4: the real NVML (none on a machine without a driver); an empty log; a
		 * binary that is no ELF */
		opt.gpus = NULL;
		opt.proc_version = "/nonexistent/version";
		opt.kernel_log = "/dev/null";
		opt.binary = FIXTURES_DIR "/kernel-logs/binary.log";
		run_and_render(&opt, ids, &nids, codes, &ncodes);
		fake_reasons = GS_NVML_CLOCKS_EVENT_HW_THERMAL_SLOWDOWN;
		fake_remap_pending = 1;
		fake_cc_major = 9;
		fake_cc_minor = 0;
		unsetenv("PYTHONPATH");

		/* every finding doctor gives came up */
		static const char *const all[] = {"no_driver",
						  "no_gpu_visible",
						  "driver_too_old",
						  "cpu_only_framework",
						  "arch_unsupported",
						  "thermal_throttle",
						  "power_throttle",
						  "pcie_degraded",
						  "ecc_errors",
						  "row_remap",
						  "mig_enabled",
						  "gpu_shared",
						  "xid"};
		char err[GS_ERR_LEN];
		struct gpu_sys real;
		int driverless = gpu_sys_open(&real, err) != 0;
		if (!driverless)
			gpu_sys_close(&real);
		for (size_t k = driverless ? 0 : 1; k < sizeof(all) / sizeof(all[0]); k++) {
			int seen = 0;
			for (int i = 0; i < nids; i++)
				seen |= !strcmp(ids[i], all[k]);
			if (!seen)
				fail_msg("doctor never gave '%s'", all[k]);
		}
		if (i18n_missing())
			fail_msg("%ld untranslated message(s), e.g. \"%s\"", i18n_missing(),
				 i18n_last_missing());
		/* doctor <-> explain: each code doctor points to is explained, as itself */
		assert_true(ncodes >= 12);
		for (int i = 0; i < ncodes; i++) {
			struct explain_result er;
			assert_int_equal(explain_match(codes[i], strlen(codes[i]), &er, err), 0);
			assert_true(er.n >= 1);
			if (er.m[0].entry) {
				assert_string_equal(er.m[0].entry->id, codes[i]);
			} else {
				assert_int_equal(er.m[0].xid, atoi(codes[i]));
				assert_non_null(xid_lookup(er.m[0].xid)); /* never 999 */
			}
		}
	}
	i18n_set_lang("en");
	char cmd[700];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static void compat_table(void **state)
{
	assert_int_equal(doctor_cuda_compat(13000, 12080), 0);
	assert_int_equal(doctor_cuda_compat(12020, 12080), 1); /* minor-version compatibility */
	assert_int_equal(doctor_cuda_compat(12080, 13000), 2);
	assert_string_equal(doctor_min_driver(13000), "580.65.06");
	assert_string_equal(doctor_min_driver(12040), "550.54.14");
	assert_string_equal(doctor_min_driver(12070), "560.28.03");
	assert_null(doctor_min_driver(10020));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(backend_validity_and_gpm),
	    cmocka_unit_test(open_without_driver),
	    cmocka_unit_test(doctor_on_fake_gpu),
	    cmocka_unit_test(doctor_without_driver),
	    cmocka_unit_test(compat_table),
	    cmocka_unit_test(every_finding_both_languages),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
