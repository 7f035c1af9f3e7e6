/*
 * rules.h - the report's rules as one table: every finding id the report
 * can give (docs/findings.md, one anchor per id), what it charges, the
 * evidence it carries with units, and the function that decides it. The
 * table is what `report --list-rules`, diff's "why", the docs check and
 * the tests enumerate; a new rule is one row and one function (rules.c).
 *
 * Scope: a device rule reads one device's analysis (its timeline, its SM
 * count and link); a job rule reads the per-device results together
 * (stragglers, exposed communication: planned). Side: a host-side rule
 * charges GPU idle time (the idle breakdown, so host-side impacts never
 * add up past the idle share), a kernel-side rule kernel time; gpu_busy is
 * what the kernel side leaves. Rows without a function are planned ids,
 * listed so that docs, diff and tools know them already.
 */
#ifndef GPUSCOPE_RULES_H
#define GPUSCOPE_RULES_H

#include <stddef.h>
#include <stdint.h>

struct analysis;
struct analysis_result;

enum rule_scope {
	RULE_DEVICE,
	RULE_JOB,
};

enum rule_side {
	RULE_HOST,    /* charges idle time */
	RULE_KERNEL,  /* charges kernel time */
	RULE_OVERALL, /* neither: what the others leave */
};

/* One evidence key a rule's finding may carry ("stall_*_pct": one '*'
 * stands for a word). */
struct rule_evidence {
	const char *key;
	const char *unit; /* "%", "ms", "us", "GB/s", "bytes", "count", "name", "text" */
	const char *label;
};

#define RULE_MAX_EVIDENCE 48

/* What rules share while one analysis's rules run (in table order). */
struct rule_ctx {
	struct analysis *a;		   /* device rules: the device; job rules: the run */
	const struct analysis_result *res; /* job rules: every device's; NULL otherwise */
	double kernel_max;		   /* the largest kernel-side impact so far */
	/* rule_uvm_host_ns's figures, once computed (uvm_host_done) */
	int uvm_host_done;
	int64_t uvm_host_ns, uvm_synced_ns;
};

struct rule {
	const char *id; /* the finding id */
	enum rule_scope scope;
	enum rule_side side;
	/* adds its finding to c->a->findings when it fires; 0, or -1 with err
	 * (out of memory); NULL: planned, not implemented */
	int (*run)(struct rule_ctx *c, const struct rule *r, char *err);
	const char *doc;     /* docs/findings.md anchor */
	const char *charges; /* the diff categories whose time it explains, ','-separated */
	const char *fires;   /* when it fires, one line: a template ({th.NAME}) */
	struct rule_evidence evidence[RULE_MAX_EVIDENCE];
};

extern const struct rule gs_rules[];
extern const size_t gs_n_rules;

/* The rule of a finding id, NULL when none. */
const struct rule *rule_find(const char *id);
/* The rule whose time a diff category ("idle_sync", "kernels") is, NULL. */
const struct rule *rule_for_category(const char *category);
/* 1 when id's rule charges idle time (input_pipeline, launch_overhead,
 * transfer, sync_stall). */
int rule_host_side(const char *id);
/* The declared evidence of key in rule r, NULL when r does not declare it. */
const struct rule_evidence *rule_evidence_of(const struct rule *r, const char *key);
const char *rule_scope_name(enum rule_scope s);
const char *rule_side_name(enum rule_side s);

#endif
