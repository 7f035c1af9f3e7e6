/*
 * monitor.h - gpuscope monitor: a live per-GPU view with the numbers
 * nvidia-smi hides (GPM SM/DRAM/pipe activity beside GPU-Util, decoded
 * clock-event reasons, PCIe current vs max, ECC and remapped rows, XIDs
 * since start, processes with their container and pod), and the seeds'
 * reading hints. An ncurses view on a terminal, a table, CSV or JSON lines
 * otherwise; --log appends every round to a crash-safe log (log.h) and
 * --replay shows every view from one.
 */
#ifndef GPUSCOPE_MONITOR_H
#define GPUSCOPE_MONITOR_H

#include <stdio.h>

#include "gpu/gpu.h"
#include "gpu/sampler.h"
#include "monitor/log.h"

enum mon_format { MON_AUTO, MON_TUI, MON_TABLE, MON_CSV, MON_JSONL };

struct monitor_opts {
	double interval_s;	/* live: seconds between rounds (> 0) */
	long count;		/* rounds to show; 0: until q or a signal */
	int gpu;		/* -1: every GPU */
	enum mon_format format; /* MON_AUTO: the ncurses view on a terminal, else a table */
	const char *log;	/* append every round here */
	const char *replay;	/* read rounds from this log instead of the GPUs */
	double replay_speed;	/* replay pacing for the ncurses view (1 = as recorded) */
	struct gpu_sys *sys;	/* opened GPUs (tests); NULL: open them */
	const char *proc_root;	/* NULL: /proc (or ROOT/proc with root) */
	FILE *out;		/* NULL: stdout */
	volatile int *stop;	/* set by a signal handler: end after this round */
	const char *version;	/* for the log header; NULL: this build's */
	int timing;		/* live: where the start's time went, on stderr */
	const char *root;	/* kernel files under ROOT (tests); NULL: / */
};

/* Runs the monitor. 0, or -1 with err (no GPU, unreadable log, write error). */
int monitor_run(const struct monitor_opts *o, char *err);

/* ---- what the views draw (render.c, tui.c) ---- */
struct mon_frame {
	unsigned n_dev;		       /* devices in the arrays below */
	unsigned first, count;	       /* the devices shown: [first, first + count) */
	const struct gpu_static *st;   /* n_dev */
	int64_t ts;		       /* round time, CLOCK_REALTIME ns */
	const struct gpu_sample *s;    /* n_dev */
	const struct mon_procs *procs; /* n_dev; g.valid 0: not read */
	struct gpu_sampler *hist;      /* history for sparklines */
	const char *host;
	int replay;
	const struct gpu_migs *migs; /* n_dev: MIG instances (valid 0: none); NULL: none */
};

void mon_table_header(FILE *f, const struct mon_frame *fr);
void mon_table_round(FILE *f, const struct mon_frame *fr);
void mon_csv_header(FILE *f, const struct mon_frame *fr);
/* CSV: a row per GPU, then a row per MIG instance of it (its own values;
 * the last columns profile, gi, ci, mig_uuid, empty on a GPU's row). */
void mon_csv_round(FILE *f, const struct mon_frame *fr);
/* 1 when device d of fr is another vendor's than NVIDIA's (AMD, Intel): its
 * own columns, static line and hints. */
int mon_other_vendor(const struct mon_frame *fr, unsigned d);
/* A MIG instance's line of the table and the ncurses view, into buf. */
const char *mon_mig_line(char *buf, size_t n, const struct gpu_mig *m);

/* The ncurses view: tui_open (-1 when no terminal), tui_draw, tui_wait
 * (returns 1 when q was pressed, waiting at most ms), tui_close. */
int tui_open(void);
void tui_draw(const struct mon_frame *fr);
int tui_wait(int ms);
void tui_close(void);

/* metric m times scale with prec decimals and suffix ("12.3%"), or "?"
 * when unknown (render.c). */
const char *mon_num(char *buf, size_t n, const struct gpu_sample *s, enum gpu_metric m, int prec,
		    double scale, const char *suffix);

#endif
