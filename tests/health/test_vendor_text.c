/*
 * test_vendor_text.c - the readers of pasted AMD and Intel tool output
 * (vendor_text.h) on the real pastes in tests/fixtures/vendor-smi: every
 * layout's numbers, N/A as unknown (never 0), the job-log prefix, ROCm 6's
 * partitions and junction column, xpu-smi columns by name (the device's last
 * row), a cut intel_gpu_top sample, and text that is none of them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health/vendor_text.h"

static char *slurp(const char *name)
{
	char path[512];
	snprintf(path, sizeof(path), FIXTURES_DIR "/vendor-smi/%s", name);
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	char *b = calloc(1, 1 << 16);
	size_t n = fread(b, 1, (1 << 16) - 1, f);
	fclose(f);
	b[n] = 0;
	return b;
}

static void parse(const char *name, struct vtext *t)
{
	char *b = slurp(name);
	assert_int_equal(vendor_text_parse(b, strlen(b), t), 1);
	free(b);
}

static void rocm_smi_mi250x(void **state)
{
	struct vtext t;
	parse("rocm-smi-mi250x.txt", &t);
	assert_int_equal(t.tool, VT_ROCM_SMI);
	assert_int_equal(t.n, 8);
	assert_int_equal(t.g[0].index, 0);
	assert_true(t.g[0].temp_c == 47.0);
	assert_true(t.g[0].power_w == 91.0);
	assert_true(t.g[0].power_cap_w == 560.0);
	assert_true(t.g[0].sclk_mhz == 800 && t.g[0].mclk_mhz == 1600);
	assert_true(t.g[0].busy_pct == 0 && t.g[0].vram_pct == 0);
	/* N/A power and a 0.0W cap: unknown, not 0 */
	assert_true(t.g[1].power_w < 0);
	assert_true(t.g[1].power_cap_w < 0);
	assert_true(t.g[7].temp_c == 39.0);
	assert_int_equal(t.power_na, 4);
	assert_int_equal(t.partitions, 0);
	(void)state;
}

static void rocm_smi_old_and_6(void **state)
{
	struct vtext t;
	parse("rocm-smi-3.3.txt", &t);
	assert_int_equal(t.n, 1);
	assert_int_equal(t.g[0].index, 1);
	assert_true(t.g[0].vram_pct < 0); /* N/A */
	assert_true(t.g[0].busy_pct == 0);
	assert_true(t.g[0].power_w == 3.0 && t.g[0].power_cap_w == 170.0);
	assert_true(t.g[0].mclk_mhz == 167);
	parse("rocm-smi-6-partitions.txt", &t);
	assert_int_equal(t.n, 4);
	assert_int_equal(t.partitions, 1);
	assert_true(t.g[0].hotspot_c == 60.0); /* the (Junction) column */
	assert_true(t.g[0].temp_c < 0);
	assert_true(t.g[0].power_w == 319.0 && t.g[0].power_cap_w == 1000.0);
	assert_true(t.g[0].sclk_mhz == 2203 && t.g[0].mclk_mhz == 1900);
	assert_true(t.g[1].power_w < 0 && t.g[1].sclk_mhz < 0 && t.g[1].busy_pct < 0);
	assert_true(t.g[2].hotspot_c == 62.0);
	(void)state;
}

static void amd_smi_metric(void **state)
{
	struct vtext t;
	parse("amd-smi-metric.txt", &t);
	assert_int_equal(t.tool, VT_AMD_SMI);
	assert_int_equal(t.n, 1);
	assert_true(t.g[0].busy_pct == 0);
	assert_true(t.g[0].mem_busy_pct == 1);
	assert_true(t.g[0].power_w == 20);
	assert_true(t.g[0].sclk_mhz == 14); /* GFX_0's CLK, not its MIN_CLK or MAX_CLK */
	assert_string_equal(t.g[0].throttle, "UNTHROTTLED");
	assert_true(t.g[0].temp_c < 0);
	(void)state;
}

static void xpu_smi_dump(void **state)
{
	struct vtext t;
	parse("xpu-smi-dump-max1550.txt", &t);
	assert_int_equal(t.tool, VT_XPU_SMI);
	assert_int_equal(t.n, 6);
	/* device 0's last row (08:08:18.817) */
	assert_true(t.g[0].power_w == 409.54);
	assert_true(t.g[0].temp_c == 40.5 && t.g[0].mem_temp_c == 34.5);
	assert_true(t.g[0].mem_busy_pct == 20.41);
	assert_true(t.g[0].busy_pct < 0 && t.g[0].busy_na);
	assert_true(t.g[5].power_w == 284.77);
	parse("xpu-smi-dump-a310.txt", &t);
	assert_int_equal(t.n, 1);
	assert_true(t.g[0].vram_used_mib == 82.44);
	assert_true(t.g[0].sclk_mhz == 2450);
	assert_false(t.g[0].busy_na); /* no such column: nothing to say it is N/A */
	(void)state;
}

static void intel_gpu_top_json(void **state)
{
	struct vtext t;
	parse("intel_gpu_top-dg2.json", &t);
	assert_int_equal(t.tool, VT_INTEL_GPU_TOP);
	assert_float_equal(t.g[0].render_pct, 48.97058, 1e-6);
	assert_true(t.g[0].copy_pct == 0);
	assert_float_equal(t.g[0].sclk_mhz, 438.731275, 1e-6);
	assert_float_equal(t.g[0].freq_req_mhz, 584.975033, 1e-6);
	assert_float_equal(t.g[0].rc6_pct, 33.095547, 1e-6);
	assert_true(t.g[0].video_enh_pct < 0); /* cut before it */
	(void)state;
}

static void none_of_them(void **state)
{
	struct vtext t;
	const char *texts[] = {
	    "RuntimeError: CUDA error: out of memory",
	    "GPU  Temp\n0 47c\n",			 /* a header without the table's columns */
	    "Timestamp, DeviceId\n",			 /* a header, no row */
	    "{\"engines\": {\"Render/3D\": {\"busy\": ", /* cut inside a value */
	    "GFX_ACTIVITY: 5 %\n",			 /* no "GPU: N" before it */
	};
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		assert_int_equal(vendor_text_parse(texts[i], strlen(texts[i]), &t), 0);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(rocm_smi_mi250x),	  cmocka_unit_test(rocm_smi_old_and_6),
	    cmocka_unit_test(amd_smi_metric),	  cmocka_unit_test(xpu_smi_dump),
	    cmocka_unit_test(intel_gpu_top_json), cmocka_unit_test(none_of_them),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
