/*
 * smi_text.h - a pasted `nvidia-smi` table read back into numbers (explain
 * prints the reading hints for it, health/hints.h). The table's
 * layout changed over the drivers (the 3xx-4xx layout with the columns
 * "Persistence-M| Bus-Id", the 5xx one with a "MIG M." row, and the
 * processes table with or without the GI/CI columns); the cells are read
 * by position between the '|' separators, each token by its shape
 * ("55C", "P2", "162W", "19809MiB", "3%"), so all of them read. A cell
 * that says N/A or ERR! stays unknown (ERR! is counted).
 */
#ifndef GPUSCOPE_SMI_TEXT_H
#define GPUSCOPE_SMI_TEXT_H

#include <stddef.h>

#define SMI_MAX_GPUS 16
#define SMI_MAX_PROCS 64

struct smi_gpu {
	int index;
	char name[64];
	int persistence;		    /* 1 On, 0 Off, -1 unknown */
	double fan_pct, temp_c;		    /* -1 unknown */
	int pstate;			    /* 0 for P0 ... 12; -1 unknown */
	double power_w, power_cap_w;	    /* -1 unknown */
	double mem_used_mib, mem_total_mib; /* -1 unknown */
	double util_pct;		    /* -1 unknown */
	double ecc_uncorr;		    /* "Volatile Uncorr. ECC": -1 unknown or N/A */
	char compute_mode[16];		    /* Default, E. Process, Prohibited */
	int errs;			    /* ERR! cells */
};

struct smi_proc {
	int gpu;
	long pid;
	char type[8]; /* C, G, C+G, M */
	char name[64];
	double mem_mib; /* -1 unknown (N/A: Windows WDDM, or not permitted) */
};

struct smi_text {
	char driver[32], cuda[16]; /* "Driver Version:", "CUDA Version:" */
	int n_gpu, n_proc;
	int procs_listed; /* the "Processes:" table was in the text */
	int no_procs;	  /* it said "No running processes found" */
	struct smi_gpu g[SMI_MAX_GPUS];
	struct smi_proc p[SMI_MAX_PROCS];
};

/* 1 when text holds at least one GPU row of an nvidia-smi table. */
int smi_text_parse(const char *text, size_t len, struct smi_text *t);

#endif
