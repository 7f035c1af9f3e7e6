/*
 * explain_vendor_text.c - explain's reading of pasted AMD and Intel tool
 * output (vendor_text.h: rocm-smi, amd-smi metric, xpu-smi dump,
 * intel_gpu_top -J): each GPU's numbers, the monitor's reading hints for
 * an AMD or Intel GPU (hints.h), and what the tool's own columns mean, in
 * text and JSON (explain_paste.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health/explain_paste.h"
#include "health/hints.h"
#include "health/vendor_text.h"
#include "util/i18n.h"
#include "util/json_out.h"
#include "util/wrap.h"

#define COLS 100
#define VT_NOTES (MON_MAX_HINTS + 3)

static struct vtext *vtext_of(const char *query)
{
	struct vtext *t = query ? malloc(sizeof(*t)) : NULL;
	if (t && vendor_text_parse(query, strlen(query), t))
		return t;
	free(t);
	return NULL;
}

static int is_amd(const struct vtext *t)
{
	return t->tool == VT_ROCM_SMI || t->tool == VT_AMD_SMI;
}

/* One GPU as the monitor's static facts and sample (vendor "amd" or "intel"). */
static void as_sample(const struct vtext *t, const struct vtext_gpu *g, struct gpu_static *st,
		      struct gpu_sample *s)
{
	memset(st, 0, sizeof(*st));
	memset(s, 0, sizeof(*s));
	snprintf(st->vendor, sizeof(st->vendor), "%s", is_amd(t) ? "amd" : "intel");
#define SET(m, v)                                                                                  \
	if ((v) >= 0)                                                                              \
	gpu_sample_set(s, GPU_M_##m, v)
	if (is_amd(t)) {
		SET(GFX_BUSY, g->busy_pct);
		SET(MEM_BUSY, g->mem_busy_pct);
	}
	if (g->vram_used_mib >= 0 && g->vram_total_mib > 0) {
		SET(MEM_USED, g->vram_used_mib * 1048576.0);
		SET(MEM_TOTAL, g->vram_total_mib * 1048576.0);
	} else if (g->vram_pct >= 0) { /* a share only: the hints need the ratio */
		SET(MEM_USED, g->vram_pct);
		SET(MEM_TOTAL, 100.0);
	}
	SET(POWER, g->power_w);
	SET(POWER_LIMIT, g->power_cap_w);
	SET(TEMP, g->temp_c);
	SET(TEMP_HOTSPOT, g->hotspot_c);
	SET(TEMP_MEM, g->mem_temp_c);
	SET(SM_CLOCK, g->sclk_mhz);
	SET(ENGINE_RENDER, g->render_pct);
	SET(ENGINE_COMPUTE, g->compute_pct);
	SET(ENGINE_COPY, g->copy_pct);
	SET(ENGINE_VIDEO, g->video_pct);
#undef SET
}

static const struct vtext_gpu *first_power_na(const struct vtext *t)
{
	for (int i = 0; i < t->n; i++)
		if (t->g[i].power_w < 0 && t->g[i].power_cap_w < 0)
			return &t->g[i];
	return NULL;
}

/* The hints, then what the tool's own numbers say. */
static int notes(const struct vtext *t, const struct vtext_gpu *g, char (*out)[MON_HINT_LEN])
{
	struct gpu_static st;
	struct gpu_sample s;
	as_sample(t, g, &st, &s);
	int n = mon_hints(&st, &s, NULL, out, MON_MAX_HINTS);
	/* said once, at the first GPU it applies to */
	if (t->tool == VT_ROCM_SMI && g->power_w < 0 && g->power_cap_w < 0 && t->power_na &&
	    t->n > 1 && g == first_power_na(t))
		snprintf(out[n++], MON_HINT_LEN, "%s",
			 t->partitions
			     ? _("power and clocks N/A on a partition's row: the GPU is split "
				 "(DPX, CPX) and reports them on its first partition's row")
			     : _("power N/A with no cap: on a two-die module (MI250X) the power is "
				 "reported on one die of each pair, so read the pair together"));
	if (t->tool == VT_AMD_SMI && g->throttle[0] && strcmp(g->throttle, "UNTHROTTLED"))
		snprintf(out[n++], MON_HINT_LEN,
			 _("THROTTLE_STATUS %s: the firmware holds the clocks down (power, "
			   "temperature or current)"),
			 g->throttle);
	if (t->tool == VT_XPU_SMI && g->busy_na)
		snprintf(out[n++], MON_HINT_LEN, "%s",
			 _("GPU Utilization reads N/A: xpu-smi could not read it here (seen on "
			   "Data Center GPU Max); gpuscope monitor reads each engine's busy share "
			   "from the kernel's DRM fdinfo instead"));
	if (t->tool == VT_INTEL_GPU_TOP && g->rc6_pct >= 0)
		snprintf(out[n++], MON_HINT_LEN,
			 _("RC6 %.0f%%: the share of the period the GT slept; the engines' busy "
			   "shares are of time, not of how many Xe cores worked"),
			 g->rc6_pct);
	return n;
}

/* line += fmt(...) when v is known */
__attribute__((format(printf, 5, 6))) static size_t part(char *line, size_t n, size_t cap, double v,
							 const char *fmt, ...)
{
	va_list ap;
	if (v < 0 || n >= cap - 64)
		return n;
	va_start(ap, fmt);
	n += (size_t)vsnprintf(line + n, cap - n, fmt, ap);
	va_end(ap);
	return n;
}

void explain_vtext_text(FILE *f, const char *query)
{
	struct vtext *t = vtext_of(query);
	char line[1024], nt[VT_NOTES][MON_HINT_LEN];
	if (!t)
		return;
	for (int i = 0; i < t->n; i++) {
		const struct vtext_gpu *g = &t->g[i];
		size_t n = (size_t)snprintf(line, sizeof(line),
					    "%s GPU %d:", vtext_tool_name(t->tool), g->index);
		n = part(line, n, sizeof(line), g->busy_pct,
			 t->tool == VT_ROCM_SMI	 ? _(" busy %.0f%% (gpu_busy_percent);")
			 : t->tool == VT_AMD_SMI ? _(" GFX activity %.0f%%;")
						 : _(" GPU Utilization %.0f%%;"),
			 g->busy_pct);
		n = part(line, n, sizeof(line), g->mem_busy_pct,
			 _(" memory controller %.0f%% busy;"), g->mem_busy_pct);
		n = part(line, n, sizeof(line), g->vram_pct, _(" VRAM %.0f%% allocated;"),
			 g->vram_pct);
		n = part(line, n, sizeof(line), g->vram_used_mib, _(" VRAM %.0f MiB used;"),
			 g->vram_used_mib);
		n = part(line, n, sizeof(line), g->render_pct, " render %.0f%%;", g->render_pct);
		n = part(line, n, sizeof(line), g->copy_pct, " blitter %.0f%%;", g->copy_pct);
		n = part(line, n, sizeof(line), g->video_pct, " video %.0f%%;", g->video_pct);
		n = part(line, n, sizeof(line), g->power_w, " %.0f W", g->power_w);
		n = part(line, n, sizeof(line), g->power_cap_w,
			 g->power_w >= 0 ? _(" of %.0f W") : _(" cap %.0f W"), g->power_cap_w);
		if (g->power_w >= 0 || g->power_cap_w >= 0)
			n += (size_t)snprintf(line + n, sizeof(line) - n, ";");
		n = part(line, n, sizeof(line), g->temp_c, " %.0f C;", g->temp_c);
		n = part(line, n, sizeof(line), g->hotspot_c, _(" hotspot %.0f C;"), g->hotspot_c);
		n = part(line, n, sizeof(line), g->mem_temp_c, _(" memory %.0f C;"), g->mem_temp_c);
		n = part(line, n, sizeof(line), g->sclk_mhz, " %.0f MHz;", g->sclk_mhz);
		while (n > 0 && line[n - 1] == ';')
			line[--n] = 0;
		wrap_print(f, "", "  ", line, COLS);
		int k = notes(t, g, nt);
		for (int h = 0; h < k; h++)
			wrap_print(f, "  - ", "    ", nt[h], COLS);
	}
	wrap_print(f, "", "  ",
		   _("(one snapshot; over time, with each process's memory and engine time: "
		     "gpuscope monitor)"),
		   COLS);
	fputc('\n', f);
	free(t);
}

void explain_vtext_json(struct json_out *j, const char *query)
{
	struct vtext *t = vtext_of(query);
	char nt[VT_NOTES][MON_HINT_LEN];
	if (!t)
		return;
	static const char *const keys[] = {"rocm_smi", "amd_smi", "xpu_smi", "intel_gpu_top"};
	json_key(j, keys[t->tool]);
	json_begin_object(j);
	json_key(j, "gpus");
	json_begin_array(j);
	for (int i = 0; i < t->n; i++) {
		const struct vtext_gpu *g = &t->g[i];
		json_begin_object(j);
		json_kv_int(j, "index", g->index);
#define NUM(key, v)                                                                                \
	if ((v) >= 0)                                                                              \
	json_kv_double(j, key, v)
		NUM("busy_pct", g->busy_pct);
		NUM("memory_busy_pct", g->mem_busy_pct);
		NUM("vram_pct", g->vram_pct);
		NUM("vram_used_mib", g->vram_used_mib);
		NUM("vram_total_mib", g->vram_total_mib);
		NUM("power_w", g->power_w);
		NUM("power_cap_w", g->power_cap_w);
		NUM("temp_c", g->temp_c);
		NUM("hotspot_c", g->hotspot_c);
		NUM("memory_temp_c", g->mem_temp_c);
		NUM("clock_mhz", g->sclk_mhz);
		NUM("memory_clock_mhz", g->mclk_mhz);
		NUM("render_pct", g->render_pct);
		NUM("blitter_pct", g->copy_pct);
		NUM("video_pct", g->video_pct);
		NUM("video_enhance_pct", g->video_enh_pct);
		NUM("rc6_pct", g->rc6_pct);
#undef NUM
		if (g->throttle[0])
			json_kv_string(j, "throttle_status", g->throttle);
		json_key(j, "hints");
		json_begin_array(j);
		int k = notes(t, g, nt);
		for (int h = 0; h < k; h++)
			json_string(j, nt[h]);
		json_end_array(j);
		json_end_object(j);
	}
	json_end_array(j);
	json_end_object(j);
	free(t);
}
