/*
 * xid.h - the XID catalogue and the kernel-log parser behind doctor's `xid`
 * findings and `explain XID`.
 *
 * Catalogue source: NVIDIA, "XID Errors" (docs.nvidia.com/deploy/xid-errors),
 * and the seeds' section 5.x (XID 79, crash dumps). The parser accepts every
 * documented NVRM line form (see tests/fixtures/kernel-logs/README.md).
 */
#ifndef GPUSCOPE_XID_H
#define GPUSCOPE_XID_H

#include <stdio.h>

#include "analyze/finding.h"

struct xid_info {
	int code;
	int critical; /* 1: the GPU or its memory needs attention; 0: usually the app */
	const char *name, *meaning, *cause, *action;
};

/* The catalogue entry of code, or NULL when not catalogued. */
const struct xid_info *xid_lookup(int code);
/* All entries (n set to the count). */
const struct xid_info *xid_table(int *n);

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
};

/* Scans a stream; lines longer than 64 KiB are cut (never overflowed). */
void xid_scan_stream(struct xid_scan *s, FILE *f);
/* Appends one `xid` finding per (code, PCI) group. */
void xid_scan_findings(const struct xid_scan *s, struct finding_list *l);

#endif
