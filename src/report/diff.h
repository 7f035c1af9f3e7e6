/*
 * diff.h - what `gpuscope diff BASE NEW` says, as a model (perf diff's:
 * the baseline first, entries matched by key, one-sided entries shown as
 * N/A): time by category, the category that explains the change (the
 * "why"), kernels matched by name, findings that appeared, disappeared or
 * changed, and the regression verdict. The diff engine fills it
 * (diagnose/diff.h: diff_build); the renderers format it
 * (render/diff_render.h) and read nothing else.
 *
 * Strings (paths, kernel names) and findings are borrowed: the analyses
 * and their traces outlive the diff.
 *
 * Invariants:
 *  1. kernels[] holds every kernel name of either side once, ordered by
 *     |delta_ns| descending, then by name.
 *  2. span_pct and span_ratio are valid (span_valid) only when both sides
 *     have GPU work and BASE's span is > 0; nothing is called faster or
 *     slower otherwise.
 *  3. A gate (gate_pct >= 0) over a side with no GPU work is DIFF_GATE_NO_WORK,
 *     never a pass: an empty recording must not pass CI.
 *  4. Kernels are matched by demangled name, so a recording (CUPTI's
 *     mangled names) and a PyTorch profiler trace (demangled) of one program
 *     match theirs; kernels[].name is the demangled name.
 */
#ifndef GPUSCOPE_REPORT_DIFF_H
#define GPUSCOPE_REPORT_DIFF_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "report/finding.h"

#define DIFF_MAX_CATS 20

/* One side, as the diff sees it. */
struct diff_side {
	const char *path, *source;
	int64_t span_ns;
	double busy_pct;
	uint64_t n_kernels;
	int has_gpu_work; /* any kernel, copy or memset in the analysed span */
	const struct finding *primary;
	const struct finding_list *findings;
};

/* A time category: span, gpu_busy, kernels, copies and their directions,
 * memsets, idle and its classes (analysis.h's an_idle). */
struct diff_cat {
	const char *name;
	int64_t base_ns, new_ns;
	const char *words; /* in words ("GPU idle around blocking synchronizations"); the
			      name when it has none */
};

struct diff_kstat {
	int present;
	uint64_t count;
	int64_t total_ns, median_ns;
};

struct diff_kernel {
	const char *name;
	struct diff_kstat base, new_;
	int64_t delta_ns; /* new total - base total (a missing side counts 0) */
};

enum diff_change { DIFF_DISAPPEARED, DIFF_CHANGED, DIFF_APPEARED };

/* What happened to a finding (#16 item 9), by the wall time it explains
 * (impact x span): resolved (gone), reduced / increased (by more than
 * diagnose/diff.h's DIFF_MOVE_SHARE of its time), unchanged, new. */
enum diff_status { DIFF_RESOLVED, DIFF_REDUCED, DIFF_UNCHANGED, DIFF_INCREASED, DIFF_NEW };

/* A numeric evidence value that moved between the two runs. */
struct diff_moved {
	const struct evidence *base, *new_;
};
#define DIFF_MAX_MOVED 6

/* In the order text lists them: BASE's findings (disappeared or changed),
 * then those only NEW has. */
struct diff_finding {
	enum diff_change change;
	enum diff_status status;
	const struct finding *base, *new_;	 /* NULL on the side without it */
	struct diff_moved moved[DIFF_MAX_MOVED]; /* largest relative change first */
	int n_moved;
};

enum diff_verdict { DIFF_SAME, DIFF_FASTER, DIFF_SLOWER, DIFF_NO_WORK };

enum diff_gate {
	DIFF_GATE_OFF,	     /* no --fail-on-regression */
	DIFF_GATE_PASS,	     /* within the limit */
	DIFF_GATE_REGRESSED, /* NEW slower by more than gate_pct */
	DIFF_GATE_NO_WORK,   /* a side has no GPU work: nothing to gate on */
};

struct diff {
	struct diff_side base, new_;
	int span_valid;	   /* invariant 2 */
	double span_pct;   /* (new - base) / base * 100 */
	double span_ratio; /* new / base */
	enum diff_verdict verdict;

	struct diff_cat cats[DIFF_MAX_CATS];
	int n_cats;
	int why;	       /* index into cats of the change's main part; -1 none */
	const char *why_words; /* that category in words ("kernel time") */

	struct diff_kernel *kernels;
	size_t n_kernels;
	struct diff_finding *findings;
	size_t n_findings;

	/* the baseline's primary problem, when it shrank or went away in a
	 * faster run (why_primary NULL otherwise); why_primary_new is its
	 * finding in NEW (NULL: gone) */
	const struct finding *why_primary, *why_primary_new;

	double gate_pct; /* < 0: no gate */
	enum diff_gate gate;

	/* the two runs say the same: equal time in every category, the same
	 * kernels and every finding unchanged with the same evidence (a file
	 * diffed with itself) */
	int identical;
	/* private: the demangled kernel names (kernels[].name points here) */
	char **names;
	size_t n_names;
};

/* NEW / BASE, NAN when BASE is <= 0. */
static inline double diff_ratio(double base, double new_)
{
	return base > 0 ? new_ / base : NAN;
}

/* "resolved", "reduced", "unchanged", "increased", "new" */
static inline const char *diff_status_name(enum diff_status s)
{
	static const char *const n[] = {"resolved", "reduced", "unchanged", "increased", "new"};
	return s <= DIFF_NEW ? n[s] : "?";
}

#endif
