/*
 * diff.h - the diff engine behind `gpuscope diff BASE NEW`: fills the diff
 * model (report/diff.h) from two finished analyses. Everything it needs
 * from them is copied by diff_side_read() (diff.c), the one place that
 * knows struct analysis.
 */
#ifndef GPUSCOPE_DIAGNOSE_DIFF_H
#define GPUSCOPE_DIAGNOSE_DIFF_H

#include "analyze/analysis.h"
#include "diagnose/finding.h"
#include "report/diff.h"

/* A finding moved (reduced or increased) when the wall time it explains
 * changed by more than this share of it. */
#define DIFF_MOVE_SHARE 0.10

/* Compares two analyses (base first). gate_pct < 0 means no gate. Returns
 * 0, or -1 with err set (out of memory), in which case *d is released. */
int diff_build(struct diff *d, const struct analysis *base, const char *base_path,
	       const struct analysis *new_, const char *new_path, double gate_pct, char *err);
void diff_release(struct diff *d);

#endif
