/*
 * tui.c - monitor's ncurses view: per GPU a header, sparklines of the
 * activity metrics from the sampler's ring, the health lines, a line per
 * MIG instance and the hints; the processes below. Every draw goes through
 * put(), which clips to the screen, so any size (and a resize between two
 * frames) is safe; a KEY_RESIZE redraws. q quits.
 */
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <ncurses.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "health/hints.h"
#include "monitor/monitor.h"

/* ncurses has one screen per process, so the view's state is the process's:
 * the last frame (a copy: its pointers outlive a resize) */
static int utf8;
static struct mon_frame last;
static int have_last;

int tui_open(void)
{
	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO))
		return -1;
	setlocale(LC_ALL, "");
	utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	if (!initscr())
		return -1;
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	return 0;
}

void tui_close(void)
{
	endwin();
	have_last = 0;
}

/* Writes s at (y, x), clipped to the screen. Returns x after it. */
static int put(int y, int x, const char *s)
{
	if (y < 0 || y >= LINES || x >= COLS)
		return x;
	mvaddnstr(y, x, s, COLS - x);
	return x + (int)strlen(s);
}

__attribute__((format(printf, 3, 4))) static int putf(int y, int x, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return put(y, x, buf);
}

/* A sparkline of the last w values of metric m (0..100), unknown as a blank. */
static void spark(int y, int x, int w, struct gpu_sampler *h, unsigned dev, enum gpu_metric m)
{
	static const char *const blocks[8] = {"\u2581", "\u2582", "\u2583", "\u2584",
					      "\u2585", "\u2586", "\u2587", "\u2588"};
	static const char ascii[] = " .:-=+*#";
	double v[512];
	if (w <= 0 || y >= LINES)
		return;
	if (w > 512)
		w = 512;
	size_t n = gpu_sampler_history(h, dev, m, v, (size_t)w);
	move(y, x);
	for (size_t i = 0; i < n && x + (int)i < COLS; i++) {
		if (isnan(v[i])) {
			addch(' ');
			continue;
		}
		int k = (int)(v[i] / 100.0 * 7.999);
		k = k < 0 ? 0 : k > 7 ? 7 : k;
		if (utf8)
			addstr(blocks[k]);
		else
			addch(ascii[k]);
	}
}

/* An AMD or Intel GPU: its busy shares over time, its clocks, power,
 * temperatures, link and error counts (no GPM, XIDs or remapped rows). */
static int other_gpu_block(const struct mon_frame *fr, unsigned d, int y)
{
	const struct gpu_static *st = &fr->st[d];
	const struct gpu_sample *s = &fr->s[d];
	char a[48], b[48], c[48], e[48], r[160], hint[MON_MAX_HINTS][MON_HINT_LEN];
	static const struct {
		const char *label;
		enum gpu_metric m;
	} sparks[] = {{"busy", GPU_M_GFX_BUSY},	       {"memory busy", GPU_M_MEM_BUSY},
		      {"render", GPU_M_ENGINE_RENDER}, {"compute", GPU_M_ENGINE_COMPUTE},
		      {"copy", GPU_M_ENGINE_COPY},     {"video", GPU_M_ENGINE_VIDEO}};
	attron(A_BOLD);
	putf(y++, 0, "GPU %u  %s %s  %s  driver %s  %s", d, st->vendor,
	     (st->valid & GPU_S_NAME) ? st->name : "?",
	     (st->valid & GPU_S_PCI) ? st->pci_bus_id : "pci ?",
	     (st->valid & GPU_S_DRIVER) ? st->driver_version : "?",
	     (st->valid & GPU_S_ARCH) ? st->arch : "");
	attroff(A_BOLD);
	for (unsigned i = 0; i < sizeof(sparks) / sizeof(sparks[0]); i++) {
		if (!gpu_sample_has(s, sparks[i].m))
			continue; /* the other vendor's rows */
		putf(y, 1, "%-12s %6s", sparks[i].label,
		     mon_num(a, sizeof(a), s, sparks[i].m, 1, 1, "%"));
		spark(y++, 22, COLS - 23, fr->hist, d, sparks[i].m);
	}
	putf(y++, 1, "memory %s / %s GiB   GTT %s GiB   clock %s / %s MHz   memory clock %s MHz",
	     mon_num(a, sizeof(a), s, GPU_M_MEM_USED, 1, 1 / 1073741824.0, ""),
	     mon_num(b, sizeof(b), s, GPU_M_MEM_TOTAL, 1, 1 / 1073741824.0, ""),
	     mon_num(c, sizeof(c), s, GPU_M_GTT_USED, 1, 1 / 1073741824.0, ""),
	     mon_num(r, 48, s, GPU_M_SM_CLOCK, 0, 1, ""),
	     mon_num(r + 48, 48, s, GPU_M_SM_CLOCK_MAX, 0, 1, ""),
	     mon_num(e, sizeof(e), s, GPU_M_MEM_CLOCK, 0, 1, ""));
	putf(y++, 1,
	     "power %s / %s W   temperature %s C, hotspot %s C, memory %s C   throttled by %s",
	     mon_num(a, sizeof(a), s, GPU_M_POWER, 0, 1, ""),
	     mon_num(b, sizeof(b), s, GPU_M_POWER_LIMIT, 0, 1, ""),
	     mon_num(c, sizeof(c), s, GPU_M_TEMP, 0, 1, ""),
	     mon_num(e, sizeof(e), s, GPU_M_TEMP_HOTSPOT, 0, 1, ""),
	     mon_num(r, 48, s, GPU_M_TEMP_MEM, 0, 1, ""),
	     gpu_sample_has(s, GPU_M_THROTTLE)
		 ? gpu_intel_throttle_str(gpu_reasons_mask(s->v[GPU_M_THROTTLE]), r + 48, 100)
		 : "?");
	putf(y++, 1, "PCIe gen %s/%s x%s/x%s   replays %s   ECC c/u %s/%s   RAS c/u %s/%s",
	     mon_num(a, sizeof(a), s, GPU_M_PCIE_GEN, 0, 1, ""),
	     mon_num(b, sizeof(b), s, GPU_M_PCIE_GEN_MAX, 0, 1, ""),
	     mon_num(c, sizeof(c), s, GPU_M_PCIE_WIDTH, 0, 1, ""),
	     mon_num(e, sizeof(e), s, GPU_M_PCIE_WIDTH_MAX, 0, 1, ""),
	     mon_num(r, 24, s, GPU_M_PCIE_REPLAY, 0, 1, ""),
	     mon_num(r + 24, 24, s, GPU_M_ECC_CORR, 0, 1, ""),
	     mon_num(r + 48, 24, s, GPU_M_ECC_UNCORR, 0, 1, ""),
	     mon_num(r + 72, 24, s, GPU_M_RAS_CORR, 0, 1, ""),
	     mon_num(r + 96, 24, s, GPU_M_RAS_UNCORR, 0, 1, ""));
	int n = mon_hints(st, s, &fr->procs[d].g, hint, MON_MAX_HINTS);
	for (int k = 0; k < n; k++) {
		attron(A_REVERSE);
		putf(y++, 1, "! %s", hint[k]);
		attroff(A_REVERSE);
	}
	return y + 1;
}

static int gpu_block(const struct mon_frame *fr, unsigned d, int y)
{
	if (mon_other_vendor(fr, d))
		return other_gpu_block(fr, d, y);
	const struct gpu_static *st = &fr->st[d];
	const struct gpu_sample *s = &fr->s[d];
	char a[48], b[48], c[48], e[48], r[160], hint[MON_MAX_HINTS][MON_HINT_LEN];
	static const struct {
		const char *label;
		enum gpu_metric m;
	} sparks[] = {{"GPU-Util", GPU_M_GPU_UTIL},    {"SM activity", GPU_M_GPM_SM},
		      {"SM occupancy", GPU_M_GPM_OCC}, {"DRAM", GPU_M_GPM_DRAM},
		      {"tensor", GPU_M_GPM_TENSOR},    {"fp32", GPU_M_GPM_FP32}};

	attron(A_BOLD);
	putf(y++, 0, "GPU %u  %s  %s  driver %s", d, (st->valid & GPU_S_NAME) ? st->name : "?",
	     (st->valid & GPU_S_PCI) ? st->pci_bus_id : "pci ?",
	     (st->valid & GPU_S_DRIVER) ? st->driver_version : "?");
	attroff(A_BOLD);
	for (unsigned i = 0; i < sizeof(sparks) / sizeof(sparks[0]); i++) {
		putf(y, 1, "%-12s %6s", sparks[i].label,
		     mon_num(a, sizeof(a), s, sparks[i].m, 1, 1, "%"));
		spark(y++, 22, COLS - 23, fr->hist, d, sparks[i].m);
	}
	putf(y++, 1,
	     "fp16 %s  fp64 %s   memory %s / %s GiB   SM clock %s / %s MHz   memory clock %s MHz",
	     mon_num(a, sizeof(a), s, GPU_M_GPM_FP16, 1, 1, "%"),
	     mon_num(b, sizeof(b), s, GPU_M_GPM_FP64, 1, 1, "%"),
	     mon_num(c, sizeof(c), s, GPU_M_MEM_USED, 1, 1 / 1073741824.0, ""),
	     mon_num(e, sizeof(e), s, GPU_M_MEM_TOTAL, 1, 1 / 1073741824.0, ""),
	     mon_num(r, 48, s, GPU_M_SM_CLOCK, 0, 1, ""),
	     mon_num(r + 48, 48, s, GPU_M_SM_CLOCK_MAX, 0, 1, ""),
	     mon_num(r + 96, 48, s, GPU_M_MEM_CLOCK, 0, 1, ""));
	putf(y++, 1, "power %s / %s W   temperature %s C (slowdown %s C)   clocks held by: %s",
	     mon_num(a, sizeof(a), s, GPU_M_POWER, 0, 1, ""),
	     mon_num(b, sizeof(b), s, GPU_M_POWER_LIMIT, 0, 1, ""),
	     mon_num(c, sizeof(c), s, GPU_M_TEMP, 0, 1, ""),
	     mon_num(e, sizeof(e), s, GPU_M_TEMP_SLOWDOWN, 0, 1, ""),
	     gpu_sample_has(s, GPU_M_CLOCK_EVENTS)
		 ? gpu_clock_reasons_str(gpu_reasons_mask(s->v[GPU_M_CLOCK_EVENTS]) & ~1ULL, r,
					 sizeof(r))
		 : "?");
	putf(y++, 1, "PCIe gen %s/%s x%s/x%s   tx %s rx %s MB/s   replays %s",
	     mon_num(a, sizeof(a), s, GPU_M_PCIE_GEN, 0, 1, ""),
	     mon_num(b, sizeof(b), s, GPU_M_PCIE_GEN_MAX, 0, 1, ""),
	     mon_num(c, sizeof(c), s, GPU_M_PCIE_WIDTH, 0, 1, ""),
	     mon_num(e, sizeof(e), s, GPU_M_PCIE_WIDTH_MAX, 0, 1, ""),
	     mon_num(r, 48, s, GPU_M_PCIE_TX, 1, 1, ""),
	     mon_num(r + 48, 48, s, GPU_M_PCIE_RX, 1, 1, ""),
	     mon_num(r + 96, 48, s, GPU_M_PCIE_REPLAY, 0, 1, ""));
	putf(y++, 1,
	     "ECC corrected %s uncorrected %s   remapped rows %s/%s pending %s failure %s   XIDs "
	     "since start %s",
	     mon_num(a, sizeof(a), s, GPU_M_ECC_CORR, 0, 1, ""),
	     mon_num(b, sizeof(b), s, GPU_M_ECC_UNCORR, 0, 1, ""),
	     mon_num(c, sizeof(c), s, GPU_M_REMAP_CORR, 0, 1, ""),
	     mon_num(e, sizeof(e), s, GPU_M_REMAP_UNC, 0, 1, ""),
	     mon_num(r, 48, s, GPU_M_REMAP_PENDING, 0, 1, ""),
	     mon_num(r + 48, 48, s, GPU_M_REMAP_FAILURE, 0, 1, ""),
	     mon_num(r + 96, 48, s, GPU_M_XID_COUNT, 0, 1, ""));
	/* a MIG instance indented under its GPU, as in the table */
	const struct gpu_migs *mg = fr->migs ? &fr->migs[d] : NULL;
	for (unsigned k = 0; mg && mg->valid && k < mg->n; k++) {
		char line[512];
		put(y++, 3, mon_mig_line(line, sizeof(line), &mg->m[k]));
	}
	int n = mon_hints(st, s, &fr->procs[d].g, hint, MON_MAX_HINTS);
	for (int k = 0; k < n; k++) {
		attron(A_REVERSE);
		putf(y++, 1, "! %s", hint[k]);
		attroff(A_REVERSE);
	}
	return y + 1;
}

static int procs_block(const struct mon_frame *fr, int y)
{
	attron(A_BOLD);
	int nv = 0; /* an NVIDIA GPU shown: its SM% and MEM%; else the engines' BUSY% */
	for (unsigned d = fr->first; d < fr->first + fr->count; d++)
		nv |= !mon_other_vendor(fr, d);
	putf(y++, 0, "%-8s %3s %10s %5s %5s %-16s %-14s %s", "PID", "GPU", "MEMORY",
	     nv ? "SM%" : "BUSY%", "MEM%", "COMMAND", "CONTAINER", "POD");
	attroff(A_BOLD);
	for (unsigned d = fr->first; d < fr->first + fr->count; d++) {
		const struct mon_procs *p = &fr->procs[d];
		if (!p->g.valid) {
			putf(y++, 0, "%-8s %3u (process list not available)", "?", d);
			continue;
		}
		for (unsigned i = 0; i < p->g.n && y < LINES; i++) {
			const struct gpu_proc *x = &p->g.p[i];
			const struct proc_meta *m = &p->meta[i];
			char mem[24], sm[12], mu[12];
			snprintf(mem, sizeof(mem), (x->valid & GPU_P_MEM) ? "%.0f MiB" : "?",
				 x->mem_bytes / 1048576.0);
			snprintf(sm, sizeof(sm), (x->valid & GPU_P_SM) ? "%.0f" : "?", x->sm_util);
			snprintf(mu, sizeof(mu), (x->valid & GPU_P_MEMBW) ? "%.0f" : "?",
				 x->mem_util);
			putf(y++, 0, "%-8u %3u %10s %5s %5s %-16.16s %-14.12s %s", x->pid, d, mem,
			     sm, mu, m->comm[0] ? m->comm : "?", m->container_id, m->pod_uid);
		}
	}
	return y;
}

void tui_draw(const struct mon_frame *fr)
{
	char t[32];
	time_t ts = (time_t)(fr->ts / 1000000000LL);
	struct tm tm;
	if (fr != &last) {
		last = *fr;
		have_last = 1;
	}
	erase();
	localtime_r(&ts, &tm);
	strftime(t, sizeof(t), "%Y-%m-%d %H:%M:%S", &tm);
	putf(0, 0, "gpuscope monitor%s  %s  %s   q quits", fr->replay ? " (replay)" : "",
	     fr->host ? fr->host : "", t);
	int y = 2;
	for (unsigned d = fr->first; d < fr->first + fr->count && y < LINES; d++)
		y = gpu_block(fr, d, y);
	procs_block(fr, y);
	refresh();
}

int tui_wait(int ms)
{
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &t1);
		long left =
		    ms - ((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000);
		if (left <= 0)
			return 0;
		timeout((int)left);
		int c = getch();
		if (c == 'q' || c == 'Q')
			return 1;
		if (c == KEY_RESIZE && have_last)
			tui_draw(&last);
	}
}
