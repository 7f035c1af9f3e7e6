/*
 * test_xid.c - the NVRM Xid parser on every line form and on hostile logs
 * (tests/fixtures/kernel-logs/README.md), and the catalogue.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health/xid.h"

static struct xid_scan *scan_file(const char *name)
{
	char path[512];
	struct xid_scan *s = calloc(1, sizeof(*s));
	snprintf(path, sizeof(path), "%s/kernel-logs/%s", FIXTURES_DIR, name);
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	xid_scan_stream(s, f, 0);
	fclose(f);
	return s;
}

static const struct xid_group *group(const struct xid_scan *s, int code, const char *pci)
{
	for (int i = 0; i < s->n; i++)
		if (s->g[i].first.code == code && strcmp(s->g[i].first.pci, pci) == 0)
			return &s->g[i];
	return NULL;
}

static void raw_form(void **state)
{
	struct xid_scan *s = scan_file("raw.log");
	assert_int_equal(s->n, 2);
	const struct xid_group *g = group(s, 79, "0000:3b:00");
	assert_non_null(g);
	assert_int_equal(g->count, 2);
	assert_string_equal(g->first.time, "1234.567890");
	assert_string_equal(g->last.time, "1250.100000");
	assert_string_equal(g->first.process, "pid=2345 name=python");
	assert_string_equal(g->first.msg, "GPU has fallen off the bus.");
	assert_non_null(group(s, 48, "0000:86:00"));
	free(s);
}

static void dmesg_t_and_syslog(void **state)
{
	struct xid_scan *s = scan_file("dmesg-T.log");
	const struct xid_group *g = group(s, 13, "0000:3b:00");
	assert_non_null(g);
	assert_int_equal(g->count, 2);
	assert_string_equal(g->first.time, "Wed Dec  2 11:00:00 2026");
	assert_non_null(group(s, 43, "0000:3b:00"));
	free(s);

	s = scan_file("syslog.log");
	assert_int_equal(s->n, 3);
	assert_string_equal(group(s, 31, "0000:3b:00")->first.time, "5000.000000");
	assert_string_equal(group(s, 119, "0000:3b:00")->first.time, "Dec  2 11:06:00");
	assert_string_equal(group(s, 94, "0000:3b:00")->first.time,
			    "2026-12-02T11:07:00.123456+00:00");
	assert_string_equal(group(s, 119, "0000:3b:00")->first.process, "pid=778 name=nvidia-smi");
	free(s);
}

static void mig_and_old_forms(void **state)
{
	struct xid_scan *s = scan_file("mig.log");
	const struct xid_group *g = group(s, 43, "0000:3b:00");
	assert_non_null(g);
	assert_int_equal(g->count, 2);
	assert_string_equal(g->first.mig, "GPU-I:02 GPU-CI:01");
	free(s);

	s = scan_file("old-forms.log");
	assert_int_equal(s->n, 3);
	g = group(s, 13, "0000:02:00");
	assert_non_null(g);
	assert_string_equal(g->first.process, "pid='<unknown>' name=<unknown>");
	g = group(s, 62, "0000:02:00"); /* the form without "PCI:" */
	assert_non_null(g);
	assert_string_equal(g->first.msg, "0cb8(2c50) 00000000 00000000");
	g = group(s, 45, "0000:02:00");
	assert_non_null(g);
	assert_string_equal(g->first.process, "");
	free(s);
}

static void hostile_logs(void **state)
{
	struct xid_scan *s = scan_file("malformed.log");
	/* the first line is valid (no prefix), and the line after the NUL bytes is one
	 * too: a NUL ends a line (after a crash, syslog holds NUL runs; probe W5) */
	assert_int_equal(s->n, 2);
	assert_int_equal(s->g[0].first.code, 79);
	assert_int_equal(s->g[1].first.code, 13);
	free(s);
	s = scan_file("binary.log");
	assert_true(s->n >= 0);
	free(s);
	s = scan_file("huge-line.log");
	/* the 200 KB line is cut at 64 KiB before its Xid; the 75 KB line's Xid is kept */
	assert_null(group(s, 79, "0000:aa:00"));
	assert_non_null(group(s, 13, "0000:aa:00"));
	free(s);
}

static void findings_carry_evidence(void **state)
{
	struct xid_scan *s = scan_file("raw.log");
	struct finding_list l;
	finding_list_init(&l);
	xid_scan_findings(s, &l);
	assert_int_equal(l.n, 2);
	const struct finding *f = &l.v[0];
	assert_string_equal(f->id, "xid");
	assert_int_equal(f->severity, SEV_CRITICAL);
	assert_true(finding_get(f, "code")->is_num);
	assert_int_equal((int)finding_get(f, "code")->num, 79);
	assert_string_equal(finding_get(f, "pci")->str, "0000:3b:00");
	assert_int_equal((int)finding_get(f, "count")->num, 2);
	assert_non_null(finding_get(f, "meaning"));
	assert_true(f->n_actions >= 1);
	finding_list_release(&l);
	free(s);
}

static void catalogue(void **state)
{
	static const int codes[] = {13,	 31,  32,  38,	43,  45,  48,  61,  62,	 63,
				    64,	 68,  69,  74,	79,  92,  94,  95,  109, 119,
				    120, 140, 143, 144, 145, 146, 147, 148, 149, 150};
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		assert_non_null(xid_lookup(codes[i]));
	assert_null(xid_lookup(12345));
	assert_int_equal(xid_lookup(48)->sev, SEV_CRITICAL);
	assert_int_equal(xid_lookup(13)->sev, SEV_WARNING);
}

static void line_parser_rejects(void **state)
{
	struct xid_event ev;
	assert_int_equal(xid_parse_line("NVRM: loading NVIDIA UNIX x86_64 Kernel Module", &ev), -1);
	assert_int_equal(xid_parse_line("NVRM: Xid (PCI:0000:3b:00", &ev), -1);
	assert_int_equal(xid_parse_line("NVRM: Xid (PCI:0000:3b:00): x", &ev), -1);
	assert_int_equal(xid_parse_line("", &ev), -1);
	assert_int_equal(xid_parse_line("NVRM: Xid (PCI:0000:3b:00): 79", &ev), 0);
	assert_int_equal(ev.code, 79);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(raw_form),
	    cmocka_unit_test(dmesg_t_and_syslog),
	    cmocka_unit_test(mig_and_old_forms),
	    cmocka_unit_test(hostile_logs),
	    cmocka_unit_test(findings_carry_evidence),
	    cmocka_unit_test(catalogue),
	    cmocka_unit_test(line_parser_rejects),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
