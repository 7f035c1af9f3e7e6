/*
 * test_options.c - the shared option parser (src/cli/options.h): both
 * spellings of a value, short groups, --no-x, numbers checked whole against
 * their range (nan, inf, junk, overflow), byte suffixes, required options,
 * positional counts, `--` and a command after it, the one-line usage error
 * that points at `gpuscope help CMD`, and help generated from the table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/options.h"
#include "util/error.h"

struct t_opts {
	const char *format, *out, *name;
	int flag, other, progress, n;
	long long bytes, big;
	double hz;
};

static int upper_only(void *field, const char *arg, char *err)
{
	for (const char *p = arg; *p; p++)
		if (*p < 'A' || *p > 'Z')
			return error_set(err, "--name takes capitals, not '%s'", arg);
	*(const char **)field = arg;
	return 0;
}

static const struct cli_option t_options[] = {
    OPT_FORMAT(struct t_opts, format, "text|json", "format"),
    OPT_OUTPUT(struct t_opts, out, "output"),
    OPT_FLAG('a', "all", struct t_opts, flag, "a flag"),
    OPT_FLAG('b', "bee", struct t_opts, other, "another"),
    OPT_PROGRESS(struct t_opts, progress),
    OPT_INT('n', "count", struct t_opts, n, "N", 1, 1024, "a count"),
    OPT_BYTES(0, "smem", struct t_opts, bytes, "BYTES", 0, 1 << 30, "bytes"),
    OPT_LLONG(0, "big", struct t_opts, big, "N", -5, 5, "small range"),
    OPT_DOUBLE(0, "hz", struct t_opts, hz, "HZ", 0.1, 1000, "a rate"),
    OPT_CALLBACK(0, "name", struct t_opts, name, const char *, "NAME", upper_only, "capitals"),
    OPT_END(),
};

static const struct cli_spec t_spec = {
    .name = "t", .args = "FILE...", .min_args = 1, .max_args = 3, .options = t_options};

static const struct cli_option req_options[] = {
    OPT_INT('n', "count", struct t_opts, n, "N", 1, 9, "required", .flags = CLI_REQUIRED),
    OPT_OUTPUT(struct t_opts, out, "output"),
    OPT_END(),
};
static const struct cli_spec req_spec = {.name = "req", .options = req_options, .max_args = 0};
static const struct cli_spec cmd_spec = {
    .name = "rec", .options = req_options + 1, .flags = CLI_COMMAND_AFTER_DASHDASH};

/* argv for cli_parse from a NULL-terminated list; argv[0] = "t" */
static int run(const struct cli_spec *spec, struct t_opts *o, char **argv, ...)
{
	va_list ap;
	int argc = 0;
	argv[argc++] = "t";
	va_start(ap, argv);
	for (char *a; (a = va_arg(ap, char *));)
		argv[argc++] = a;
	va_end(ap);
	argv[argc] = NULL;
	memset(o, 0, sizeof(*o));
	o->progress = -1;
	return cli_parse(spec, o, argc, argv);
}

/* stderr of fn into buf */
static char captured[4096];
static int run_capture(const struct cli_spec *spec, struct t_opts *o, char **argv, char *a1,
		       char *a2)
{
	fflush(stderr);
	int saved = dup(2);
	FILE *tmp = tmpfile();
	dup2(fileno(tmp), 2);
	int rc = run(spec, o, argv, a1, a2, (char *)NULL);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	size_t n = fread(captured, 1, sizeof(captured) - 1, tmp);
	captured[n] = '\0';
	fclose(tmp);
	return rc;
}

static void test_value_spellings(void **state)
{
	struct t_opts o;
	char *v[16];
	assert_int_equal(run(&t_spec, &o, v, "--format=json", "x", NULL), 1);
	assert_string_equal(o.format, "json");
	assert_int_equal(run(&t_spec, &o, v, "--format", "json", "x", NULL), 1);
	assert_string_equal(o.format, "json");
	assert_int_equal(run(&t_spec, &o, v, "-fjson", "x", NULL), 1);
	assert_string_equal(o.format, "json");
	assert_int_equal(run(&t_spec, &o, v, "-f", "json", "x", NULL), 1);
	assert_string_equal(o.format, "json");
	/* a value that looks like an option is still the value */
	assert_int_equal(run(&t_spec, &o, v, "-o", "--all", "x", NULL), 1);
	assert_string_equal(o.out, "--all");
	assert_int_equal(o.flag, 0);
	/* "--output=" is an empty value, "-o -" is stdout */
	assert_int_equal(run(&t_spec, &o, v, "--output=", "x", NULL), 1);
	assert_string_equal(o.out, "");
	assert_int_equal(run(&t_spec, &o, v, "-o", "-", "x", NULL), 1);
	assert_true(cli_output_is_stdout(o.out));
	assert_false(cli_output_is_stdout("-x"));
	(void)state;
}

static void test_flags_and_groups(void **state)
{
	struct t_opts o;
	char *v[16];
	assert_int_equal(run(&t_spec, &o, v, "-ab", "x", NULL), 1);
	assert_int_equal(o.flag, 1);
	assert_int_equal(o.other, 1);
	/* a group ending in an option with a value: the rest is the value */
	assert_int_equal(run(&t_spec, &o, v, "-an12", "x", NULL), 1);
	assert_int_equal(o.flag, 1);
	assert_int_equal(o.n, 12);
	assert_int_equal(run(&t_spec, &o, v, "--no-progress", "x", NULL), 1);
	assert_int_equal(o.progress, 0);
	assert_int_equal(run(&t_spec, &o, v, "--progress", "x", NULL), 1);
	assert_int_equal(o.progress, 1);
	/* untouched when not given */
	assert_int_equal(run(&t_spec, &o, v, "x", NULL, NULL), 1);
	assert_int_equal(o.progress, -1);
	/* --no- only for booleans; flags take no value */
	assert_int_equal(run(&t_spec, &o, v, "--no-all", "x", NULL), CLI_USAGE_ERROR);
	assert_int_equal(run(&t_spec, &o, v, "--all=1", "x", NULL), CLI_USAGE_ERROR);
	/* never abbreviated */
	assert_int_equal(run(&t_spec, &o, v, "--form", "json", "x", NULL), CLI_USAGE_ERROR);
	(void)state;
}

static void test_numbers(void **state)
{
	struct t_opts o;
	char *v[16];
	static char *bad_ints[] = {"12abc", "",	  " 5", "0", "1025", "-1", "99999999999999999999",
				   "0x10",  "1.5"};
	for (size_t i = 0; i < sizeof(bad_ints) / sizeof(bad_ints[0]); i++)
		assert_int_equal(run(&t_spec, &o, v, "--count", bad_ints[i], "x", NULL),
				 CLI_USAGE_ERROR);
	assert_int_equal(run(&t_spec, &o, v, "--count=1024", "x", NULL), 1);
	assert_int_equal(o.n, 1024);
	assert_int_equal(run(&t_spec, &o, v, "--big", "-5", "x", NULL), 1);
	assert_int_equal(o.big, -5);

	static char *bad_hz[] = {"nan",	 "NaN",	   "inf",  "-inf", "infinity", "1e400",
				 "0.05", "1000.5", "10hz", "",	   " 10",      "-0.2"};
	for (size_t i = 0; i < sizeof(bad_hz) / sizeof(bad_hz[0]); i++)
		assert_int_equal(run(&t_spec, &o, v, "--hz", bad_hz[i], "x", NULL),
				 CLI_USAGE_ERROR);
	assert_int_equal(run(&t_spec, &o, v, "--hz=0.1", "x", NULL), 1);
	assert_true(o.hz == 0.1);
	assert_int_equal(run(&t_spec, &o, v, "--hz", "1e3", "x", NULL), 1);
	assert_true(o.hz == 1000);
	(void)state;
}

static void test_bytes(void **state)
{
	struct t_opts o;
	char *v[16];
	static const struct {
		const char *s;
		long long want;
	} ok[] = {{"0", 0},	   {"49152", 49152}, {"48K", 49152},
		  {"48k", 49152},  {"48KB", 49152},  {"48KiB", 49152},
		  {"1M", 1 << 20}, {"1G", 1 << 30},  {"100B", 100}};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(run(&t_spec, &o, v, "--smem", (char *)ok[i].s, "x", NULL), 1);
		assert_true(o.bytes == ok[i].want);
	}
	static char *bad[] = {"-4", "48Q", "K", "", "2G", "1.5K", "48 K", "9999999999999999G"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(run(&t_spec, &o, v, "--smem", bad[i], "x", NULL), CLI_USAGE_ERROR);
	(void)state;
}

static void test_choices_callbacks(void **state)
{
	struct t_opts o;
	char *v[16];
	assert_int_equal(run(&t_spec, &o, v, "--format", "xml", "x", NULL), CLI_USAGE_ERROR);
	assert_int_equal(run(&t_spec, &o, v, "--format", "jso", "x", NULL), CLI_USAGE_ERROR);
	assert_int_equal(run(&t_spec, &o, v, "--name", "ABC", "x", NULL), 1);
	assert_string_equal(o.name, "ABC");
	assert_int_equal(run_capture(&t_spec, &o, v, "--name=abc", "x"), CLI_USAGE_ERROR);
	assert_string_equal(
	    captured, "gpuscope t: --name takes capitals, not 'abc' (see 'gpuscope help t')\n");
	(void)state;
}

static void test_positionals(void **state)
{
	struct t_opts o;
	char *v[16];
	/* mixed with options, kept in order */
	assert_int_equal(run(&t_spec, &o, v, "a", "-a", "b", "--count", "3", "c", NULL), 3);
	assert_string_equal(v[0], "a");
	assert_string_equal(v[1], "b");
	assert_string_equal(v[2], "c");
	assert_int_equal(o.n, 3);
	/* "-" is an argument; after "--" everything is */
	assert_int_equal(run(&t_spec, &o, v, "-", "--", "--all", NULL), 2);
	assert_string_equal(v[0], "-");
	assert_string_equal(v[1], "--all");
	assert_int_equal(o.flag, 0);
	/* counts */
	assert_int_equal(run_capture(&t_spec, &o, v, NULL, NULL), CLI_USAGE_ERROR);
	assert_string_equal(captured, "gpuscope t: needs FILE... (see 'gpuscope help t')\n");
	assert_int_equal(run(&t_spec, &o, v, "a", "b", "c", "d", NULL), CLI_USAGE_ERROR);
	assert_int_equal(run_capture(&t_spec, &o, v, "--frob", "x"), CLI_USAGE_ERROR);
	assert_string_equal(captured,
			    "gpuscope t: unknown option '--frob' (see 'gpuscope help t')\n");
	assert_int_equal(run_capture(&t_spec, &o, v, "x", "--count"), CLI_USAGE_ERROR);
	assert_string_equal(captured,
			    "gpuscope t: '--count' needs a value (N) (see 'gpuscope help t')\n");
	(void)state;
}

static void test_required_and_command(void **state)
{
	struct t_opts o;
	char *v[16];
	assert_int_equal(run_capture(&req_spec, &o, v, "-o", "f"), CLI_USAGE_ERROR);
	assert_string_equal(captured,
			    "gpuscope req: --count is required (see 'gpuscope help req')\n");
	assert_int_equal(run(&req_spec, &o, v, "-n", "4", NULL), 0);
	assert_int_equal(run(&req_spec, &o, v, "-n", "4", "extra", NULL), CLI_USAGE_ERROR);
	/* a command after "--", its own options untouched */
	assert_int_equal(run(&cmd_spec, &o, v, "-o", "f", "--", "prog", "-o", "x", NULL), 3);
	assert_string_equal(o.out, "f");
	assert_string_equal(v[0], "prog");
	assert_string_equal(v[1], "-o");
	assert_string_equal(v[2], "x");
	assert_int_equal(run(&cmd_spec, &o, v, "prog", NULL, NULL), CLI_USAGE_ERROR);
	assert_int_equal(run(&cmd_spec, &o, v, "-o", "f", NULL), CLI_USAGE_ERROR);
	assert_int_equal(run(&cmd_spec, &o, v, "--", NULL, NULL), CLI_USAGE_ERROR);
	/* --help before "--" only */
	assert_int_equal(run(&cmd_spec, &o, v, "--", "prog", "--help", NULL), 2);
	(void)state;
}

static void test_help_generated(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cli_help(f, &t_spec);
	fclose(f);
	/* every option, its argument, its range, the negated spelling */
	assert_non_null(strstr(buf, "usage: gpuscope t [-f text|json] [-o FILE] [-a] [-b]"));
	assert_non_null(strstr(buf, "  -f, --format text|json"));
	assert_non_null(strstr(buf, "  -n, --count N"));
	assert_non_null(strstr(buf, "a count [1..1024]"));
	assert_non_null(strstr(buf, "a rate [0.1..1000]"));
	assert_non_null(strstr(buf, "--[no-]progress"));
	assert_non_null(strstr(buf, "  -h, --help"));
	assert_non_null(strstr(buf, " FILE...\n"));
	free(buf);
	assert_int_equal(cli_exit(CLI_HELP_SHOWN), 0);
	assert_int_equal(cli_exit(CLI_USAGE_ERROR), GS_EXIT_USAGE);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_value_spellings),
	    cmocka_unit_test(test_flags_and_groups),
	    cmocka_unit_test(test_numbers),
	    cmocka_unit_test(test_bytes),
	    cmocka_unit_test(test_choices_callbacks),
	    cmocka_unit_test(test_positionals),
	    cmocka_unit_test(test_required_and_command),
	    cmocka_unit_test(test_help_generated),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
