/*
 * vendor_text.c - pasted rocm-smi, amd-smi metric, xpu-smi dump and
 * intel_gpu_top -J output read back into numbers (vendor_text.h).
 */
#include "health/vendor_text.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#define MAX_TOK 40
#define TOK_LEN 48
#define LINE_LEN 1024

const char *vtext_tool_name(enum vtext_tool t)
{
	static const char *const n[] = {"rocm-smi", "amd-smi", "xpu-smi", "intel_gpu_top"};
	return n[t];
}

static void gpu_init(struct vtext_gpu *g, int index)
{
	double *d[] = {&g->busy_pct,	   &g->mem_busy_pct, &g->vram_pct,    &g->vram_used_mib,
		       &g->vram_total_mib, &g->power_w,	     &g->power_cap_w, &g->temp_c,
		       &g->hotspot_c,	   &g->mem_temp_c,   &g->sclk_mhz,    &g->mclk_mhz,
		       &g->render_pct,	   &g->copy_pct,     &g->video_pct,   &g->video_enh_pct,
		       &g->compute_pct,	   &g->freq_req_mhz, &g->rc6_pct};
	memset(g, 0, sizeof(*g));
	for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++)
		*d[i] = -1;
	g->index = index;
}

/* The next line of [*p, end) into buf (cut at LINE_LEN); 0 at the end. */
static int next_line(const char **p, const char *end, char *buf)
{
	if (*p >= end)
		return 0;
	const char *nl = memchr(*p, '\n', (size_t)(end - *p));
	const char *e = nl ? nl : end;
	size_t n = (size_t)(e - *p) < LINE_LEN - 1 ? (size_t)(e - *p) : LINE_LEN - 1;
	memcpy(buf, *p, n);
	buf[n] = 0;
	for (char *c = buf; *c; c++)
		if (*c == '\r' || *c == '\t')
			*c = ' ';
	*p = nl ? nl + 1 : end;
	return 1;
}

static int tokens(const char *s, char tok[MAX_TOK][TOK_LEN])
{
	int n = 0;
	while (*s && n < MAX_TOK) {
		while (*s == ' ')
			s++;
		if (!*s)
			break;
		size_t k = strcspn(s, " ");
		snprintf(tok[n++], TOK_LEN, "%.*s", (int)(k < TOK_LEN - 1 ? k : TOK_LEN - 1), s);
		s += k;
	}
	return n;
}

static int all_digits(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

/* the number before one of the suffixes ("47.0c", "60.0°C", "91.0W"); -1 otherwise */
static double shaped(const char *s, const char *const *suffixes)
{
	char *e;
	double v = strtod(s, &e);
	if (e == s || v < 0 || v >= 1e15)
		return -1;
	for (; *suffixes; suffixes++)
		if (!strcasecmp(e, *suffixes))
			return v;
	return -1;
}

static const char *const SUF_TEMP[] = {"c",
				       "\xc2\xb0"
				       "C",
				       NULL};
static const char *const SUF_W[] = {"W", NULL};
static const char *const SUF_MHZ[] = {"Mhz", NULL};
static const char *const SUF_PCT[] = {"%", NULL};

/* ---- rocm-smi's concise table ---- */

static void rocm_row(struct vtext *t, char tok[MAX_TOK][TOK_LEN], int n, int partitions,
		     int last_gpu, int last_vram)
{
	if (n < 4 || !all_digits(tok[0]) || t->n >= VTEXT_MAX_GPUS)
		return;
	struct vtext_gpu *g = &t->g[t->n];
	gpu_init(g, atoi(tok[0]));
	int tp = -1;
	for (int i = 1; i < n && tp < 0; i++)
		if (shaped(tok[i], SUF_TEMP) >= 0 || !strcmp(tok[i], "N/A"))
			tp = i;
	if (tp < 0)
		return;
	g->temp_c = shaped(tok[tp], SUF_TEMP);
	if (tp + 1 < n) {
		g->power_w = shaped(tok[tp + 1], SUF_W);
		if (!strcmp(tok[tp + 1], "N/A"))
			t->power_na++;
	}
	int j = tp + 2;
	if (partitions) { /* "NPS1, DPX, 0": tokens ending in ',' and one more */
		while (j < n && tok[j][strlen(tok[j]) - 1] == ',')
			j++;
		j++;
	}
	if (j < n)
		g->sclk_mhz = shaped(tok[j], SUF_MHZ);
	if (j + 1 < n)
		g->mclk_mhz = shaped(tok[j + 1], SUF_MHZ);
	for (int i = n - 1; i > j + 1; i--)
		if (shaped(tok[i], SUF_W) >= 0) {
			g->power_cap_w = shaped(tok[i], SUF_W) > 0 ? shaped(tok[i], SUF_W) : -1;
			break;
		}
	if (last_gpu)
		g->busy_pct = shaped(tok[n - 1], SUF_PCT);
	if (last_vram)
		g->vram_pct = shaped(tok[n - 2], SUF_PCT);
	t->n++;
}

static int rocm_smi(const char *text, const char *end, struct vtext *t)
{
	char line[LINE_LEN], tok[MAX_TOK][TOK_LEN];
	const char *p = text;
	int in_table = 0, partitions = 0, last_gpu = 0, last_vram = 0, junction = 0;
	size_t prefix = 0;
	while (next_line(&p, end, line)) {
		if (!in_table) {
			/* the header: "GPU  Temp ..." or "Device  Node  IDs  Temp ..." */
			const char *h = strstr(line, "GPU  Temp");
			if (!h)
				h = strstr(line, "Device  Node");
			if (!h || !strstr(h, "Temp") || (!strstr(h, "SCLK") && !strstr(h, "GPU%")))
				continue;
			/* the same prefix starts every line ("nid005113 out: " of a job log) */
			prefix = (size_t)(h - line);
			while (prefix && line[prefix - 1] == ' ')
				prefix--;
			int nt = tokens(h, tok);
			last_gpu = nt > 0 && !strcmp(tok[nt - 1], "GPU%");
			last_vram = nt > 1 && !strcmp(tok[nt - 2], "VRAM%");
			partitions = strstr(h, "Partitions") != NULL;
			in_table = 1;
			t->tool = VT_ROCM_SMI;
			continue;
		}
		const char *r = strlen(line) >= prefix ? line + prefix : line;
		while (*r == ' ')
			r++;
		/* ROCm 6 draws a rule under the header too: the table ends at the next */
		if ((*r == '=' && t->n > 0) || strstr(r, "End of ROCm SMI Log"))
			break;
		/* ROCm 6's second header line names the sensor: "(Junction)" */
		if (*r == '(' && strstr(r, "(Junction)"))
			junction = 1;
		int nt = tokens(r, tok), before = t->n;
		rocm_row(t, tok, nt, partitions, last_gpu, last_vram);
		if (junction && t->n > before) {
			t->g[before].hotspot_c = t->g[before].temp_c;
			t->g[before].temp_c = -1;
		}
	}
	t->partitions = partitions;
	return t->n > 0;
}

/* ---- amd-smi metric ---- */

static double value_of(const char *v)
{
	char *e;
	double x = strtod(v, &e);
	return e == v || x < 0 || x >= 1e15 ? -1 : x;
}

static int amd_smi(const char *text, const char *end, struct vtext *t)
{
	char line[LINE_LEN], section[32] = "", sub[32] = "";
	const char *p = text;
	struct vtext_gpu *g = NULL;
	while (next_line(&p, end, line)) {
		char *s = line;
		while (*s == ' ')
			s++;
		char *colon = strchr(s, ':');
		if (!colon)
			continue;
		*colon = 0;
		char *v = colon + 1;
		while (*v == ' ')
			v++;
		int indent = (int)(s - line);
		if (!strcmp(s, "GPU") && indent == 0 && all_digits(v)) {
			if (t->n == VTEXT_MAX_GPUS)
				break;
			g = &t->g[t->n++];
			gpu_init(g, atoi(v));
			section[0] = sub[0] = 0;
			continue;
		}
		if (!g)
			continue;
		if (!*v) { /* a section: "USAGE:", "TEMPERATURE:", "GFX_0:" */
			if (indent <= 4)
				snprintf(section, sizeof(section), "%.31s", s);
			else
				snprintf(sub, sizeof(sub), "%.31s", s);
			continue;
		}
		if (!strcmp(s, "GFX_ACTIVITY"))
			g->busy_pct = value_of(v);
		else if (!strcmp(s, "UMC_ACTIVITY"))
			g->mem_busy_pct = value_of(v);
		else if (!strcmp(s, "SOCKET_POWER"))
			g->power_w = value_of(v);
		else if (!strcmp(s, "POWER_LIMIT") || !strcmp(s, "POWER_CAP"))
			g->power_cap_w = value_of(v);
		else if (!strcmp(s, "THROTTLE_STATUS"))
			snprintf(g->throttle, sizeof(g->throttle), "%.31s", v);
		else if (!strcmp(section, "TEMPERATURE") && !strcmp(s, "EDGE"))
			g->temp_c = value_of(v);
		else if (!strcmp(section, "TEMPERATURE") && !strcmp(s, "HOTSPOT"))
			g->hotspot_c = value_of(v);
		else if (!strcmp(section, "TEMPERATURE") && !strcmp(s, "MEM"))
			g->mem_temp_c = value_of(v);
		else if (!strcmp(s, "TOTAL_VRAM"))
			g->vram_total_mib = value_of(v);
		else if (!strcmp(s, "USED_VRAM"))
			g->vram_used_mib = value_of(v);
		else if (!strcmp(section, "CLOCK") && !strcmp(s, "CLK") && !strcmp(sub, "GFX_0"))
			g->sclk_mhz = value_of(v);
		else if (!strcmp(section, "CLOCK") && !strcmp(s, "CLK") && !strcmp(sub, "MEM_0"))
			g->mclk_mhz = value_of(v);
	}
	t->tool = VT_AMD_SMI;
	return t->n > 0;
}

/* ---- xpu-smi dump ---- */

static int csv_cells(const char *s, char cell[MAX_TOK][TOK_LEN])
{
	int n = 0;
	while (n < MAX_TOK) {
		while (*s == ' ')
			s++;
		size_t k = strcspn(s, ",");
		size_t m = k;
		while (m && s[m - 1] == ' ')
			m--;
		snprintf(cell[n++], TOK_LEN, "%.*s", (int)(m < TOK_LEN - 1 ? m : TOK_LEN - 1), s);
		if (!s[k])
			break;
		s += k + 1;
	}
	return n;
}

static int xpu_smi(const char *text, const char *end, struct vtext *t)
{
	char line[LINE_LEN], head[MAX_TOK][TOK_LEN], cell[MAX_TOK][TOK_LEN];
	const char *p = text;
	int nh = 0;
	while (next_line(&p, end, line)) {
		if (!nh) {
			if (strstr(line, "Timestamp, DeviceId,"))
				nh = csv_cells(strstr(line, "Timestamp"), head);
			continue;
		}
		int nc = csv_cells(line, cell);
		if (nc < 3 || !all_digits(cell[1]))
			continue;
		int dev = atoi(cell[1]), k;
		for (k = 0; k < t->n && t->g[k].index != dev; k++)
			;
		if (k == t->n) {
			if (t->n == VTEXT_MAX_GPUS)
				continue;
			t->n++;
		}
		struct vtext_gpu *g = &t->g[k];
		gpu_init(g, dev); /* the device's last row wins */
		for (int i = 2; i < nc && i < nh; i++) {
			double v = strcmp(cell[i], "N/A") ? value_of(cell[i]) : -1;
			const char *h = head[i];
			if (!strncmp(h, "GPU Utilization", 15)) {
				g->busy_pct = v;
				g->busy_na = v < 0;
			} else if (!strncmp(h, "GPU Power", 9))
				g->power_w = v;
			else if (!strncmp(h, "GPU Frequency", 13))
				g->sclk_mhz = v;
			else if (!strncmp(h, "GPU Core Temperature", 20))
				g->temp_c = v;
			else if (!strncmp(h, "GPU Memory Temperature", 22))
				g->mem_temp_c = v;
			else if (!strncmp(h, "GPU Memory Utilization", 22))
				g->mem_busy_pct = v;
			else if (!strncmp(h, "GPU Memory Used", 15))
				g->vram_used_mib = v;
		}
	}
	t->tool = VT_XPU_SMI;
	return t->n > 0;
}

/* ---- intel_gpu_top -J ---- */

/* The object at o closed by depth '}' (a paste cut before its end; a
 * trailing comma dropped), malloc'd; NULL when out of memory. */
static char *close_object(const char *o, const char *end, int depth)
{
	size_t n = (size_t)(end - o);
	while (n && (o[n - 1] == ' ' || o[n - 1] == '\n' || o[n - 1] == ',' || o[n - 1] == '\r'))
		n--;
	char *j = malloc(n + (size_t)depth + 1);
	if (!j)
		return NULL;
	memcpy(j, o, n);
	memset(j + n, '}', (size_t)depth);
	j[n + (size_t)depth] = 0;
	return j;
}

/* The first JSON object from s that holds "engines" (a paste of the streamed
 * array; one cut short is closed), into a malloc'd string; NULL when none. */
static char *json_object(const char *s, const char *end)
{
	for (const char *o = memchr(s, '{', (size_t)(end - s)); o && o < end;
	     o = memchr(o + 1, '{', (size_t)(end - o - 1))) {
		int depth = 0, str = 0;
		if (!memmem(o, (size_t)(end - o), "\"engines\"", 9))
			return NULL;
		for (const char *c = o; c < end; c++) {
			if (str) {
				if (*c == '\\')
					c++;
				else if (*c == '"')
					str = 0;
			} else if (*c == '"') {
				str = 1;
			} else if (*c == '{') {
				depth++;
			} else if (*c == '}' && --depth == 0) {
				size_t n = (size_t)(c - o + 1);
				char *j = malloc(n + 1);
				if (!j)
					return NULL;
				memcpy(j, o, n);
				j[n] = 0;
				if (strstr(j, "\"engines\""))
					return j;
				free(j);
				break;
			}
			if (c + 1 == end && depth > 0 && depth < 64 && !str)
				return close_object(o, end, depth);
		}
	}
	return NULL;
}

static double jnum(yajl_val o, const char *a, const char *b)
{
	const char *path[3] = {a, b, NULL};
	yajl_val v = yajl_tree_get(o, path, yajl_t_number);
	return v ? YAJL_GET_DOUBLE(v) : -1;
}

static int intel_gpu_top(const char *text, const char *end, struct vtext *t)
{
	char *j = json_object(text, end);
	yajl_val o = j ? yajl_tree_parse(j, NULL, 0) : NULL;
	free(j);
	if (!o || !YAJL_IS_OBJECT(o)) {
		yajl_tree_free(o);
		return 0;
	}
	struct vtext_gpu *g = &t->g[0];
	gpu_init(g, 0);
	g->freq_req_mhz = jnum(o, "frequency", "requested");
	g->sclk_mhz = jnum(o, "frequency", "actual");
	g->rc6_pct = jnum(o, "rc6", "value");
	g->power_w = jnum(o, "power", "GPU");
	const char *path[2] = {"engines", NULL};
	yajl_val e = yajl_tree_get(o, path, yajl_t_object);
	for (size_t i = 0; e && i < YAJL_GET_OBJECT(e)->len; i++) {
		const char *k = YAJL_GET_OBJECT(e)->keys[i];
		const char *bp[2] = {"busy", NULL};
		yajl_val b = yajl_tree_get(YAJL_GET_OBJECT(e)->values[i], bp, yajl_t_number);
		double v = b ? YAJL_GET_DOUBLE(b) : -1;
		double *dst = !strncmp(k, "Render/3D", 9)	? &g->render_pct
			      : !strncmp(k, "Blitter", 7)	? &g->copy_pct
			      : !strncmp(k, "VideoEnhance", 12) ? &g->video_enh_pct
			      : !strncmp(k, "Video", 5)		? &g->video_pct
			      : !strncmp(k, "Compute", 7)	? &g->compute_pct
								: NULL;
		if (dst && v >= 0)
			*dst = v;
	}
	yajl_tree_free(o);
	t->tool = VT_INTEL_GPU_TOP;
	t->n = 1;
	return 1;
}

int vendor_text_parse(const char *text, size_t len, struct vtext *out)
{
	const char *end = text + len;
	memset(out, 0, sizeof(*out));
	if (rocm_smi(text, end, out))
		return 1;
	memset(out, 0, sizeof(*out));
	if (memmem(text, len, "GFX_ACTIVITY:", 13) && amd_smi(text, end, out))
		return 1;
	memset(out, 0, sizeof(*out));
	if (xpu_smi(text, end, out))
		return 1;
	memset(out, 0, sizeof(*out));
	if (memmem(text, len, "\"engines\"", 9) && intel_gpu_top(text, end, out))
		return 1;
	memset(out, 0, sizeof(*out));
	return 0;
}
