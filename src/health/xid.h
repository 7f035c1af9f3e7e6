/*
 * xid.h - the XID catalogue and the kernel-log parser behind doctor's `xid`
 * findings and `explain XID`.
 *
 * Catalogue source: NVIDIA, "Analyzing Xid Errors with the Xid Catalog"
 * (docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html and its
 * spreadsheet Xid-Catalog.xlsx), the edition for Ampere and newer GPUs that
 * lists XIDs 1-172, whose newest rows name CUDA 12.9 / driver R575 (the page
 * carries no version number or date; read 2026-12-03). Every code of that
 * edition is in xid_catalogue.c with NVIDIA's mnemonic, description,
 * "Applies to" columns and resolution buckets; gpuscope adds the meaning,
 * causes, checks and fixes (translated). The parser accepts every documented
 * NVRM line form (tests/fixtures/kernel-logs/README.md).
 */
#ifndef GPUSCOPE_XID_H
#define GPUSCOPE_XID_H

#include <stdio.h>

#include "diagnose/finding.h"
#include "health/catalogue.h"

/* NVIDIA's "Resolution Bucket" names (the catalogue's Fault Resolution Buckets sheet). */
enum xid_bucket {
	XB_NONE = 0, /* the catalogue names none */
	XB_CONTACT_SUPPORT,
	XB_RESTART_APP,
	XB_IGNORE,
	XB_RESET_GPU,
	XB_RESTART_BM,
	XB_RESTART_VM,
	XB_CHECK_MECHANICALS,
	XB_UPDATE_SWFW,
	XB_CHECK_APP_CUDA,
	XB_INVESTIGATE_SW,
	XB_INVESTIGATE_SW_USER,
	XB_INVESTIGATE_LINK_SI,
	XB_WORKFLOW_XID_13,
	XB_WORKFLOW_XID_31,
	XB_WORKFLOW_XID_45,
	XB_WORKFLOW_XID_48,
	XB_WORKFLOW_NVLINK_ERR,
	XB_WORKFLOW_NVLINK5_ERR,
	XB_XID_154,
	XB_XID_154_INFO,
	XB_XID_137_FLOW,
	XB_CHECK_UVM,
	XB_SYMPATHETIC,
	XB_UNUSED,
	XB_COUNT
};

/* "Applies to" columns. */
#define XID_A100 1u
#define XID_H100 2u
#define XID_B100 4u
#define XID_GB200 8u

struct xid_info {
	int code;
	enum severity sev; /* gpuscope's reading of the buckets (xid_catalogue.c) */
	const char *mnemonic;
	const char *description; /* NVIDIA's Description column, verbatim (not translated) */
	unsigned applies;	 /* XID_A100 | ... */
	enum xid_bucket immediate, investigate;
	const struct cat_text *text; /* meaning, causes, checks, fixes */
};

/* The catalogue entry of code, or NULL when not catalogued. */
const struct xid_info *xid_lookup(int code);
/* All entries in code order (n set to the count). */
const struct xid_info *xid_table(int *n);
/* Bucket name ("RESET_GPU") and its action in plain words (N_()-marked English). */
const char *xid_bucket_name(enum xid_bucket b);
const char *xid_bucket_action(enum xid_bucket b);
/* The catalogue's edition, for citations. */
extern const char xid_catalogue_source[];

/* One parsed NVRM Xid line. */
struct xid_event {
	int code;
	char pci[32];	   /* "0000:3b:00", "" when absent */
	char mig[48];	   /* "GPU-I:02 GPU-CI:01" or "" */
	char time[64];	   /* the line's timestamp text, "" when none */
	char process[128]; /* "pid=1234 name=python" or "" */
	char msg[256];
};

/* Parses one line; 0 when it is an Xid line, -1 otherwise. */
int xid_parse_line(const char *line, struct xid_event *ev);

#define XID_MAX_GROUPS 256

struct xid_group {
	struct xid_event first, last;
	long count;
};

struct xid_scan {
	struct xid_group g[XID_MAX_GROUPS];
	int n;
	long lines, xid_lines;
	long long bytes; /* bytes read */
	int capped;	 /* 1: stopped at max_bytes */
};

/*
 * Scans a stream; lines longer than 64 KiB are cut (never overflowed), a NUL
 * ends a line as a newline does (NUL runs are skipped). Reads
 * at most max_bytes (0: no limit) and sets s->capped when it stopped there.
 */
void xid_scan_stream(struct xid_scan *s, FILE *f, long long max_bytes);
/* Appends one `xid` finding per (code, PCI) group. */
void xid_scan_findings(const struct xid_scan *s, struct finding_list *l);

#endif
