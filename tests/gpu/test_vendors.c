/*
 * test_vendors.c - the AMD (amdgpu) and Intel (i915, xe) backends over the
 * kernel-file fixture trees (tests/fixtures/sysfs, README there): what each
 * file becomes, what stays unknown, DRM fdinfo clients counted once and
 * their busy shares from two scans (ns and xe's cycles), two vendors on one
 * machine, and a root with no GPU.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu/gpu.h"
#include "gpu/sysfs.h"

#define TREES FIXTURES_DIR "/sysfs"

static void open_tree(struct gpu_sys *s, const char *root, unsigned n)
{
	char err[GS_ERR_LEN];
	assert_int_equal(gpu_sys_open_root(s, root, err), 0);
	assert_int_equal(gpu_count(s), n);
}

static void amd_static(void **state)
{
	struct gpu_sys s;
	struct gpu_static st;
	open_tree(&s, TREES "/amd-mi250x", 2);
	assert_int_equal(gpu_static_info(&s, 0, &st), 0);
	assert_string_equal(st.vendor, "amd");
	assert_string_equal(st.name, "AMD INSTINCT MI200 (MCM) OAM LC MBA HPE C2");
	assert_string_equal(st.uuid, "0x87fc3ea34b2236f3");
	assert_string_equal(st.pci_bus_id, "0000:c9:00.0");
	assert_string_equal(st.driver_version, "6.3.6");
	assert_true(st.valid & GPU_S_ARCH);
	assert_string_equal(st.arch, "gfx90a");
	assert_int_equal(st.sm_count, 110); /* compute units: 440 SIMDs / 4 */
	assert_true(st.mem_total == 68702699520ULL);
	assert_int_equal(st.max_sm_clock_mhz, 1700);
	assert_int_equal(st.max_mem_clock_mhz, 1600);
	assert_int_equal(st.pcie_max_gen, 4);
	assert_int_equal(st.pcie_cur_width, 16);
	/* no crit files in this tree: unknown, not 0 */
	assert_false(st.valid & (GPU_S_SLOWDOWN_TEMP | GPU_S_CC | GPU_S_CUDA_DRIVER | GPU_S_MIG));
	assert_int_equal(gpu_static_info(&s, 2, &st), -1);
	gpu_sys_close(&s);
	(void)state;
}

static void amd_sample(void **state)
{
	struct gpu_sys s;
	struct gpu_sample x;
	open_tree(&s, TREES "/amd-mi250x", 2);
	assert_int_equal(gpu_sample(&s, 0, GPU_WANT_ALL, &x), 0);
	/* gpu_busy_percent is its own metric: GPU-Util and GPM stay unknown */
	assert_true(gpu_sample_has(&x, GPU_M_GFX_BUSY));
	assert_true(x.v[GPU_M_GFX_BUSY] == 100);
	assert_false(gpu_sample_has(&x, GPU_M_GPU_UTIL));
	assert_false(gpu_sample_has(&x, GPU_M_GPM_SM));
	assert_false(gpu_sample_has(&x, GPU_M_CLOCK_EVENTS));
	assert_true(x.v[GPU_M_MEM_BUSY] == 12);
	assert_true(x.v[GPU_M_MEM_USED] == 61203283968.0);
	assert_true(x.v[GPU_M_GTT_USED] == 8388608.0);
	assert_true(x.v[GPU_M_SM_CLOCK] == 1700);
	assert_true(x.v[GPU_M_MEM_CLOCK] == 1600); /* pp_dpm_mclk's '*' level */
	assert_true(x.v[GPU_M_POWER] == 128);
	assert_true(x.v[GPU_M_POWER_LIMIT] == 560);
	assert_true(x.v[GPU_M_TEMP] == 64);
	assert_true(x.v[GPU_M_TEMP_HOTSPOT] == 64);
	assert_true(x.v[GPU_M_TEMP_MEM] == 69);
	assert_true(x.v[GPU_M_PCIE_GEN] == 4);
	/* one scan of fdinfo: no busy share yet */
	assert_false(gpu_sample_has(&x, GPU_M_ENGINE_COMPUTE));
	/* the second GCD reports no power: unknown, not 0 */
	assert_int_equal(gpu_sample(&s, 1, GPU_WANT_ALL, &x), 0);
	assert_false(gpu_sample_has(&x, GPU_M_POWER));
	assert_true(x.v[GPU_M_SM_CLOCK] == 500);
	assert_true(x.v[GPU_M_GFX_BUSY] == 0);
	memset(&x, 0, sizeof(x));
	assert_int_equal(gpu_health(&s, 0, &x), 0);
	assert_true(x.v[GPU_M_ECC_CORR] == 3); /* umc only */
	assert_true(x.v[GPU_M_ECC_UNCORR] == 0);
	assert_true(x.v[GPU_M_RAS_CORR] == 4); /* umc 3 + sdma 1 */
	assert_true(x.v[GPU_M_PCIE_REPLAY] == 0);
	gpu_sys_close(&s);
	(void)state;
}

static const struct gpu_proc *find(const struct gpu_procs *p, uint32_t pid)
{
	for (unsigned i = 0; i < p->n; i++)
		if (p->p[i].pid == pid)
			return &p->p[i];
	return NULL;
}

static void amd_processes(void **state)
{
	struct gpu_sys s;
	struct gpu_procs p;
	open_tree(&s, TREES "/amd-mi250x", 2);
	assert_int_equal(gpu_processes(&s, 0, &p), 0);
	assert_true(p.valid);
	/* 2217's client is open on two fds: one process, its VRAM once */
	assert_int_equal(p.total, 2);
	const struct gpu_proc *a = find(&p, 2217), *b = find(&p, 3301);
	assert_non_null(a);
	assert_non_null(b);
	assert_true(a->mem_bytes == 2068ULL * 1024);
	assert_true(b->mem_bytes == 58ULL << 30);
	assert_false(a->valid & GPU_P_SM); /* one scan: no share yet */
	/* card1: only 3301's other client */
	assert_int_equal(gpu_processes(&s, 1, &p), 0);
	assert_int_equal(p.total, 1);
	assert_true(p.p[0].mem_bytes == 4ULL << 20);
	gpu_sys_close(&s);
	(void)state;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* busy shares: the change of drm-engine-* ns over the wall time between
 * two scans, per process (its busiest class) and per class */
static void fdinfo_busy_ns(void **state)
{
	char dir[] = "/tmp/gs-vendors-XXXXXX", cmd[512], path[600];
	struct drm_procs_state *st = calloc(1, sizeof(*st));
	struct gpu_procs p;
	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "cp -r %s/amd-mi250x/proc %s/", TREES, dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(drm_procs_scan(dir, "amdgpu", "0000:c9:00.0", st, 1000000000LL, &p), 0);
	assert_true(st->class_busy[DRM_EC_COMPUTE] < 0);
	/* 3301: 0.5 s more compute, 0.25 s more DMA over 1 s; 2217: 0.1 s gfx */
	snprintf(path, sizeof(path), "%s/proc/3301/fdinfo/7", dir);
	write_file(path, "drm-driver:\tamdgpu\ndrm-pdev:\t0000:c9:00.0\ndrm-client-id:\t230\n"
			 "drm-memory-vram:\t58 GiB\ndrm-engine-gfx:\t0 ns\n"
			 "drm-engine-compute:\t9500000000 ns\ndrm-engine-dma:\t300000000 ns\n");
	snprintf(path, sizeof(path), "%s/proc/2217/fdinfo/99", dir);
	write_file(path, "drm-driver:\tamdgpu\ndrm-pdev:\t0000:c9:00.0\ndrm-client-id:\t217\n"
			 "drm-memory-vram:\t2068 KiB\ndrm-engine-gfx:\t207322799 ns\n");
	assert_int_equal(drm_procs_scan(dir, "amdgpu", "0000:c9:00.0", st, 2000000000LL, &p), 0);
	const struct gpu_proc *a = find(&p, 3301), *b = find(&p, 2217);
	assert_non_null(a);
	assert_non_null(b);
	assert_true(a->valid & GPU_P_SM);
	assert_float_equal(a->sm_util, 50.0, 1e-9);
	assert_float_equal(b->sm_util, 10.0, 1e-9);
	assert_float_equal(st->class_busy[DRM_EC_COMPUTE], 50.0, 1e-9);
	assert_float_equal(st->class_busy[DRM_EC_COPY], 25.0, 1e-9);
	assert_float_equal(st->class_busy[DRM_EC_RENDER], 10.0, 1e-9);
	assert_true(st->class_busy[DRM_EC_VIDEO] < 0); /* no client has a video counter */
	/* a counter that went back (a client reopened) gives no share, not a negative one */
	snprintf(path, sizeof(path), "%s/proc/2217/fdinfo/99", dir);
	write_file(path, "drm-driver:\tamdgpu\ndrm-pdev:\t0000:c9:00.0\ndrm-client-id:\t217\n"
			 "drm-engine-gfx:\t5 ns\n");
	assert_int_equal(drm_procs_scan(dir, "amdgpu", "0000:c9:00.0", st, 3000000000LL, &p), 0);
	assert_false(find(&p, 2217)->valid & GPU_P_SM);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	free(st);
	(void)state;
}

/* xe: drm-cycles over drm-total-cycles, divided by the class's capacity */
static void fdinfo_busy_cycles(void **state)
{
	struct drm_client a, b;
	const char *t0 =
	    "drm-driver: xe\ndrm-client-id: 3\ndrm-pdev: 0000:03:00.0\n"
	    "drm-cycles-rcs: 1000\ndrm-total-cycles-rcs: 10000\n"
	    "drm-cycles-ccs: 0\ndrm-total-cycles-ccs: 10000\ndrm-engine-capacity-ccs: 4\n";
	const char *t1 =
	    "drm-driver: xe\ndrm-client-id: 3\ndrm-pdev: 0000:03:00.0\n"
	    "drm-cycles-rcs: 4000\ndrm-total-cycles-rcs: 20000\n"
	    "drm-cycles-ccs: 20000\ndrm-total-cycles-ccs: 20000\ndrm-engine-capacity-ccs: 4\n";
	assert_int_equal(drm_fdinfo_parse(t0, "xe", "0000:03:00.0", &a), 1);
	assert_int_equal(drm_fdinfo_parse(t1, "xe", "0000:03:00.0", &b), 1);
	assert_int_equal(a.capacity[DRM_EC_COMPUTE], 4);
	assert_true(b.total[DRM_EC_RENDER] == 20000);
	/* another driver's or another device's client is not this device's */
	assert_int_equal(drm_fdinfo_parse(t0, "i915", NULL, &a), 0);
	assert_int_equal(drm_fdinfo_parse(t0, "xe", "0000:04:00.0", &a), 0);
	/* no client id: not a client we can count once */
	assert_int_equal(drm_fdinfo_parse("drm-driver: xe\ndrm-cycles-rcs: 5\n", "xe", NULL, &a),
			 0);
	/* memory units, and resident preferred to total */
	assert_int_equal(drm_fdinfo_parse("drm-driver: i915\ndrm-client-id: 1\n"
					  "drm-total-local0: 2 GiB\ndrm-resident-local0: 1 GiB\n"
					  "drm-resident-system0: 512 KiB\n",
					  NULL, NULL, &a),
			 1);
	assert_true(a.mem_local == 1ULL << 30);
	assert_true(a.mem_system == 512ULL * 1024);
	assert_int_equal(drm_engine_class_of("video-enhance"), DRM_EC_VIDEO);
	assert_int_equal(drm_engine_class_of("bcs"), DRM_EC_COPY);
	assert_int_equal(drm_engine_class_of("npu-amdxdna"), -1);
	(void)state;
}

static void intel_i915(void **state)
{
	struct gpu_sys s;
	struct gpu_static st;
	struct gpu_sample x;
	struct gpu_procs p;
	open_tree(&s, TREES "/intel-arc-i915", 1);
	assert_int_equal(gpu_static_info(&s, 0, &st), 0);
	assert_string_equal(st.vendor, "intel");
	assert_string_equal(st.name, "Intel GPU 8086:56a0 (i915)");
	assert_int_equal(st.max_sm_clock_mhz, 2400);
	assert_false(st.valid & GPU_S_MEM_TOTAL); /* i915 has no VRAM size in sysfs */
	assert_int_equal(gpu_sample(&s, 0, GPU_WANT_ALL, &x), 0);
	assert_true(x.v[GPU_M_SM_CLOCK] == 2000);
	assert_true(gpu_sample_has(&x, GPU_M_THROTTLE));
	assert_true(gpu_reasons_mask(x.v[GPU_M_THROTTLE]) == 0x1); /* PL1 */
	assert_false(gpu_sample_has(&x, GPU_M_CLOCK_EVENTS));
	assert_true(x.v[GPU_M_POWER_LIMIT] == 190);
	assert_float_equal(x.v[GPU_M_ENERGY], 3275.90625, 1e-9);
	assert_false(gpu_sample_has(&x, GPU_M_POWER)); /* one energy reading: no power yet */
	assert_false(gpu_sample_has(&x, GPU_M_TEMP));
	assert_int_equal(gpu_processes(&s, 0, &p), 0);
	assert_int_equal(p.total, 1);
	assert_true(p.p[0].mem_bytes == 11ULL << 30); /* resident local0 */
	gpu_sys_close(&s);
	(void)state;
}

static void intel_xe(void **state)
{
	struct gpu_sys s;
	struct gpu_static st;
	struct gpu_sample x;
	struct gpu_procs p;
	open_tree(&s, TREES "/intel-xe", 1);
	assert_int_equal(gpu_static_info(&s, 0, &st), 0);
	assert_true(st.mem_total == 12884901888ULL);
	assert_int_equal(st.pcie_max_width, 8);
	assert_int_equal(gpu_sample(&s, 0, GPU_WANT_ALL, &x), 0);
	assert_true(x.v[GPU_M_SM_CLOCK] == 2850);
	assert_true(x.v[GPU_M_TEMP] == 45);
	assert_true(x.v[GPU_M_TEMP_MEM] == 52);
	assert_true(gpu_reasons_mask(x.v[GPU_M_THROTTLE]) == 0);
	assert_int_equal(gpu_processes(&s, 0, &p), 0);
	assert_true(p.p[0].mem_bytes == 23992ULL * 1024);
	gpu_sys_close(&s);
	(void)state;
}

/* a machine with an AMD and an Intel GPU lists both, AMD's first */
static void two_vendors(void **state)
{
	char dir[] = "/tmp/gs-vendors-XXXXXX", cmd[1024];
	struct gpu_sys s;
	struct gpu_static st;
	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd),
		 "cp -r %s/amd-mi250x/. %s/ && cp -r %s/intel-xe/sys/class/drm/card0 "
		 "%s/sys/class/drm/card7",
		 TREES, dir, TREES, dir);
	assert_int_equal(system(cmd), 0);
	open_tree(&s, dir, 3);
	assert_int_equal(gpu_static_info(&s, 0, &st), 0);
	assert_string_equal(st.vendor, "amd");
	assert_int_equal(gpu_static_info(&s, 2, &st), 0);
	assert_string_equal(st.vendor, "intel");
	gpu_sys_close(&s);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	(void)state;
}

/* libamd_smi (a fake one, named by the tree's .gpuscope-amdsmi) fills what
 * sysfs lacks: the energy counter and, without gpu_busy_percent, the
 * activity; sysfs's own values win; a device the library cannot read stays
 * unknown */
static void amdsmi_fills_gaps(void **state)
{
	char dir[] = "/tmp/gs-vendors-XXXXXX", cmd[1024], path[600];
	struct gpu_sys s;
	struct gpu_sample x;
	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd),
		 "cp -r %s/amd-mi250x/. %s/ && rm %s/sys/class/drm/card0/device/gpu_busy_percent",
		 TREES, dir, dir);
	assert_int_equal(system(cmd), 0);
	/* without the library: no energy, no busy on card0 */
	open_tree(&s, dir, 2);
	assert_int_equal(gpu_sample(&s, 0, GPU_WANT_ALL, &x), 0);
	assert_false(gpu_sample_has(&x, GPU_M_ENERGY));
	assert_false(gpu_sample_has(&x, GPU_M_GFX_BUSY));
	gpu_sys_close(&s);
	snprintf(path, sizeof(path), "%s/.gpuscope-amdsmi", dir);
	write_file(path, FAKE_AMDSMI "\n");
	open_tree(&s, dir, 2);
	assert_int_equal(gpu_sample(&s, 0, GPU_WANT_ALL, &x), 0);
	assert_true(gpu_sample_has(&x, GPU_M_GFX_BUSY));
	assert_true(x.v[GPU_M_GFX_BUSY] == 77);
	assert_true(x.v[GPU_M_MEM_BUSY] == 12); /* sysfs's mem_busy_percent wins */
	double e1 = x.v[GPU_M_ENERGY];
	assert_true(gpu_sample_has(&x, GPU_M_ENERGY));
	assert_true(x.v[GPU_M_POWER] == 128); /* hwmon's power, not the counter's */
	assert_int_equal(gpu_sample(&s, 0, GPU_WANT_ALL, &x), 0);
	assert_float_equal(x.v[GPU_M_ENERGY] - e1, 2.0, 1e-9); /* 2000000 x 1.0 uJ */
	/* card1: the library fails its energy, and sysfs has its busy percent */
	assert_int_equal(gpu_sample(&s, 1, GPU_WANT_ALL, &x), 0);
	assert_false(gpu_sample_has(&x, GPU_M_ENERGY));
	assert_true(x.v[GPU_M_GFX_BUSY] == 0);
	/* card1 has no hwmon power: two energy readings would give it one, none here */
	assert_false(gpu_sample_has(&x, GPU_M_POWER));
	gpu_sys_close(&s);
	/* without hwmon's power, the counter's change over the time between reads */
	snprintf(path, sizeof(path), "%s/sys/class/drm/card0/device/hwmon/hwmon3/power1_average",
		 dir);
	assert_int_equal(unlink(path), 0);
	open_tree(&s, dir, 2);
	assert_int_equal(gpu_sample(&s, 0, GPU_WANT_ALL, &x), 0);
	assert_false(gpu_sample_has(&x, GPU_M_POWER));
	usleep(20000);
	assert_int_equal(gpu_sample(&s, 0, GPU_WANT_ALL, &x), 0);
	assert_true(gpu_sample_has(&x, GPU_M_POWER));
	/* 2 J over at least 20 ms: at most 100 W, and more than 0 */
	assert_true(x.v[GPU_M_POWER] > 0 && x.v[GPU_M_POWER] <= 100.0);
	gpu_sys_close(&s);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	(void)state;
}

/* Level Zero Sysman (a fake loader named by the tree's .gpuscope-level-zero)
 * gives i915's device memory: the device's modules only, used = size - free */
static void level_zero_memory(void **state)
{
	char dir[] = "/tmp/gs-vendors-XXXXXX", cmd[1024], path[600];
	struct gpu_sys s;
	struct gpu_sample x;
	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "cp -r %s/intel-arc-i915/. %s/", TREES, dir);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/.gpuscope-level-zero", dir);
	write_file(path, FAKE_ZE "\n");
	open_tree(&s, dir, 1);
	assert_int_equal(gpu_sample(&s, 0, GPU_WANT_ALL, &x), 0);
	assert_true(gpu_sample_has(&x, GPU_M_MEM_USED));
	assert_true(x.v[GPU_M_MEM_USED] == (double)(12ULL << 30));
	assert_true(x.v[GPU_M_MEM_TOTAL] == (double)(16ULL << 30));
	gpu_sys_close(&s);
	/* xe without Level Zero: the total from its tiles, the use unknown */
	open_tree(&s, TREES "/intel-xe", 1);
	assert_int_equal(gpu_sample(&s, 0, GPU_WANT_ALL, &x), 0);
	assert_true(x.v[GPU_M_MEM_TOTAL] == 12884901888.0);
	assert_false(gpu_sample_has(&x, GPU_M_MEM_USED));
	gpu_sys_close(&s);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	(void)state;
}

static void no_gpu_under_root(void **state)
{
	char err[GS_ERR_LEN];
	struct gpu_sys s;
	assert_int_equal(gpu_sys_open_root(&s, FIXTURES_DIR "/smi", err), -1);
	assert_non_null(strstr(err, "no amdgpu, i915 or xe gpu under"));
	gpu_sys_close(&s);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(amd_static),	  cmocka_unit_test(amd_sample),
	    cmocka_unit_test(amd_processes),	  cmocka_unit_test(fdinfo_busy_ns),
	    cmocka_unit_test(fdinfo_busy_cycles), cmocka_unit_test(intel_i915),
	    cmocka_unit_test(intel_xe),		  cmocka_unit_test(two_vendors),
	    cmocka_unit_test(amdsmi_fills_gaps),  cmocka_unit_test(level_zero_memory),
	    cmocka_unit_test(no_gpu_under_root),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
