/*
 * test_passes.c - the pass table says the truth about what each pass
 * writes, and the passes the runner puts side by side never write the
 * same part of struct analysis (analyze/analysis_int.h).
 *
 * Each fixture is analysed one pass at a time in table order (the engine's
 * passes, then the diagnosis's); around each pass a snapshot of every
 * member of struct analysis (an_fields: its bytes, and for an array the
 * bytes of its elements) tells which parts the pass changed. A change to a
 * part the pass does not declare fails, and so do two passes that the
 * runner may run together (an_pass_conflict: neither waits for the other)
 * and that wrote the same part. A planted table checks the derivation
 * itself, and an_fields is checked to name every member.
 * Not seen: writes inside a member's own heap arrays (series bins, ops).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/analysis_int.h"
#include "diagnose/diagnose.h"
#include "diagnose/rules_int.h"

/* an_fields in declaration order, inside the struct, without overlaps, and
 * with no gap that could hold a member (padding only). */
static void fields_cover_struct(void **state)
{
	(void)state;
	size_t end = 0;
	for (size_t i = 0; i < an_n_fields; i++) {
		const struct an_field *f = &an_fields[i];
		if (f->off < end || f->off - end >= 8)
			fail_msg("an_fields: %s at %zu, the previous member ends at %zu", f->name,
				 f->off, end);
		end = f->off + f->size;
		assert_true(f->part != 0 && (f->part & (f->part - 1)) == 0);
	}
	assert_true(sizeof(struct analysis) - end < 8);
}

/* FNV-1a of n bytes. */
static uint64_t hash(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h;
}

/* A field's array contents' hash (0 for a plain member or an empty array). */
static uint64_t array_hash(const struct analysis *a, const struct an_field *f)
{
	if (!f->elem)
		return 0;
	const void *p;
	size_t n;
	memcpy(&p, (const char *)a + f->off, sizeof(p));
	memcpy(&n, (const char *)a + f->n_off, sizeof(n));
	return p && n ? hash(p, n * f->elem) : 0;
}

struct snap {
	unsigned char bytes[sizeof(struct analysis)];
	uint64_t arr[256];
};

static void take(struct snap *s, const struct analysis *a)
{
	memcpy(s->bytes, a, sizeof(*a));
	for (size_t i = 0; i < an_n_fields && i < 256; i++)
		s->arr[i] = array_hash(a, &an_fields[i]);
}

/* The parts whose members changed between before and a. */
static uint32_t changed(const struct snap *before, const struct analysis *a)
{
	uint32_t parts = 0;
	for (size_t i = 0; i < an_n_fields; i++) {
		const struct an_field *f = &an_fields[i];
		if (memcmp(before->bytes + f->off, (const char *)a + f->off, f->size) != 0 ||
		    before->arr[i] != array_hash(a, f))
			parts |= f->part;
	}
	return parts;
}

/* The members changed outside parts, ','-separated into buf. */
static const char *changed_names(const struct snap *before, const struct analysis *a,
				 uint32_t parts, char *buf, size_t n)
{
	buf[0] = 0;
	for (size_t i = 0; i < an_n_fields; i++) {
		const struct an_field *f = &an_fields[i];
		if (!(f->part & parts))
			continue;
		if (memcmp(before->bytes + f->off, (const char *)a + f->off, f->size) != 0 ||
		    before->arr[i] != array_hash(a, f)) {
			size_t u = strlen(buf);
			snprintf(buf + u, n - u, "%s%s", u ? "," : "", f->name);
		}
	}
	return buf;
}

/* Runs the table's passes on a one at a time; written[i] gets what pass i
 * changed. Fails on an undeclared write. */
static void run_measured(struct analysis *a, const struct an_pass *p, size_t n, uint32_t *written,
			 const char *file)
{
	static struct snap s;
	char err[512] = "", names[512];
	for (size_t i = 0; i < n; i++) {
		take(&s, a);
		if (p[i].fn(a, err) < 0)
			fail_msg("%s: pass %s: %s", file, p[i].name, err);
		written[i] = changed(&s, a);
		if (written[i] & ~p[i].writes)
			fail_msg(
			    "%s: pass %s writes %s, which it does not declare", file, p[i].name,
			    changed_names(&s, a, written[i] & ~p[i].writes, names, sizeof(names)));
	}
}

/* Two passes that may run together (neither conflicts with the other:
 * the runner waits for neither) whose measured writes overlap: how many
 * pairs, the first one named in msg. */
static int together_apart(const struct an_pass *p, size_t n, const uint32_t *written, char *msg,
			  size_t cap)
{
	int bad = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (!an_pass_conflict(&p[j], &p[i]) && (written[i] & written[j]) && !bad++)
				snprintf(msg, cap,
					 "%s and %s may run together and both write the same part",
					 p[i].name, p[j].name);
	return bad;
}

static const char *const fixtures[] = {
    "zoo/healthy_pipeline.db", "zoo/sync_every_step.db",    "counters/divergent_warps.db",
    "pm/fma_bound.db",	       "pytorch/small_ops.json.gz", "pytorch/transformer_step.db",
    "procs/multi_process.db",  "real/cupy_small_ops.db",    "real/hf_bert_syncs.db",
    "real/hf_decode.db",
};

static void passes_write_what_they_declare(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof(fixtures) / sizeof(fixtures[0]); k++) {
		char path[512], err[512] = "";
		snprintf(path, sizeof(path), "%s/%s", FIXTURES_DIR, fixtures[k]);
		struct trace t;
		if (analysis_load(&t, path, err) < 0)
			fail_msg("%s: %s", path, err);
		struct analysis *a = calloc(1, sizeof(*a));
		assert_non_null(a);
		const struct trace *v = an_window(a, &t, NULL, 0, err);
		if (!v)
			fail_msg("%s: %s", path, err);
		a->t = v;
		a->source = trace_source_name(v->source);
		finding_list_init(&a->findings);
		uint32_t eng[64], dx[8];
		assert_true(an_n_engine_passes <= 64 && n_diagnose_passes <= 8);
		run_measured(a, an_engine_passes, an_n_engine_passes, eng, fixtures[k]);
		run_measured(a, diagnose_passes, n_diagnose_passes, dx, fixtures[k]);
		char msg[256];
		if (together_apart(an_engine_passes, an_n_engine_passes, eng, msg, sizeof(msg)) ||
		    together_apart(diagnose_passes, n_diagnose_passes, dx, msg, sizeof(msg)))
			fail_msg("%s: %s", fixtures[k], msg);
		/* the same analysis as the runner's */
		struct analysis b;
		assert_int_equal(analysis_run_opts(&b, &t, NULL, 0, err), 0);
		assert_int_equal(a->findings.n, b.findings.n);
		assert_int_equal(a->n_warnings, b.n_warnings);
		assert_int_equal(a->busy_ns, b.busy_ns);
		assert_int_equal(a->idle.host_ns, b.idle.host_ns);
		analysis_release(&b);
		analysis_release(a);
		free(a);
		trace_release(&t);
	}
}

static int nop(struct analysis *a, char *err)
{
	(void)a;
	(void)err;
	return 0;
}

/* The derivation: a write-write or read-after-write conflict puts the
 * later pass a level down; independent passes share a level. */
static void levels_derived(void **state)
{
	(void)state;
	const struct an_pass p[] = {
	    {"first", nop, AF_INPUT, AF_TIMELINE},
	    {"reads_timeline", nop, AF_TIMELINE, AF_IDLE},
	    {"also_reads_timeline", nop, AF_TIMELINE, AF_LAUNCH},
	    {"writes_idle_too", nop, AF_TIMELINE, AF_IDLE},
	    {"reads_launch", nop, AF_LAUNCH, AF_KERNELS},
	    {"overwrites_what_is_read", nop, AF_INPUT, AF_LAUNCH},
	};
	int level[6];
	an_pass_levels(p, 6, level);
	assert_int_equal(level[0], 0);
	assert_int_equal(level[1], 1);
	assert_int_equal(level[2], 1);
	assert_int_equal(level[3], 2); /* both write idle */
	assert_int_equal(level[4], 2); /* reads what level 1 wrote */
	assert_int_equal(level[5], 3); /* writes what level 2 read */
	/* the pairs that may run together: no conflict either way */
	assert_false(an_pass_conflict(&p[2], &p[1]));
	assert_true(an_pass_conflict(&p[3], &p[1]));  /* both write idle */
	assert_true(an_pass_conflict(&p[4], &p[2]));  /* reads what it writes */
	assert_true(an_pass_conflict(&p[5], &p[4]));  /* writes what it reads */
	assert_false(an_pass_conflict(&p[4], &p[1])); /* levels apart, yet free to overlap */
	/* writes as declared pass the check (the passes that write one part,
	 * idle or launch, wait for each other); an undeclared write of what a
	 * pass that may run beside it writes is caught */
	uint32_t written[6] = {AF_TIMELINE, AF_IDLE, AF_LAUNCH, AF_IDLE, AF_KERNELS, AF_LAUNCH};
	char msg[256] = "";
	assert_int_equal(together_apart(p, 6, written, msg, sizeof(msg)), 0);
	written[4] |= AF_IDLE; /* reads_launch may run beside both idle writers */
	assert_int_equal(together_apart(p, 6, written, msg, sizeof(msg)), 2);
	assert_non_null(strstr(msg, "reads_timeline and reads_launch"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(fields_cover_struct),
	    cmocka_unit_test(passes_write_what_they_declare),
	    cmocka_unit_test(levels_derived),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
