/*
 * options.c - the shared option parser and the help text generated from the
 * same table (options.h has the rules every command line follows).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options.h"
#include "import/load.h"
#include "util/error.h"
#include "util/i18n.h"

#define HELP_INDENT 24 /* the column option help starts at */
#define SYNOPSIS_WIDTH 92

int cli_usage_error(const struct cli_spec *spec, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "gpuscope %s: ", spec->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see 'gpuscope help %s')\n", spec->name);
	return GS_EXIT_USAGE;
}

int cli_exit(int parse_result)
{
	return parse_result == CLI_HELP_SHOWN ? GS_EXIT_OK : GS_EXIT_USAGE;
}

int cli_stdout_done(const char *cmd)
{
	int e = errno;
	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return GS_EXIT_OK;
	if (errno)
		e = errno;
	return error_print("%s: cannot write to stdout: %s", cmd, e ? strerror(e) : "write error");
}

int cli_output_is_stdout(const char *path)
{
	return path && strcmp(path, "-") == 0;
}

void cli_lang_warning(void)
{
	const char *why = i18n_warning();
	if (why)
		fprintf(stderr, "gpuscope: %s; messages stay in English\n", why);
}

int cli_lang_option(void *field, const char *arg, char *err)
{
	if (strcmp(arg, "en") != 0 && strcmp(arg, "zh") != 0)
		return error_set(err, "--lang takes en or zh, not '%s'", arg);
	*(const char **)field = arg;
	i18n_set_lang(arg); /* every message printed from here on (util/i18n.h) */
	cli_lang_warning();
	return 0;
}

int cli_option_takes_arg(const struct cli_option *o)
{
	return o->type != CLI_OPT_FLAG && o->type != CLI_OPT_BOOL;
}

/* "text|json|html" -> "text, json or html" */
static void choices_words(char *buf, size_t n, const char *choices)
{
	size_t used = 0;
	buf[0] = '\0';
	for (const char *p = choices; *p && used + 1 < n;) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);
		const char *sep = p == choices ? "" : bar ? ", " : " or ";
		int w = snprintf(buf + used, n - used, "%s%.*s", sep, (int)len, p);
		if (w < 0)
			break;
		used += (size_t)w;
		p += len + (bar ? 1 : 0);
	}
}

static int is_choice(const char *choices, const char *v)
{
	size_t vl = strlen(v);
	for (const char *p = choices; *p;) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);
		if (len == vl && strncmp(p, v, len) == 0)
			return 1;
		p += len + (bar ? 1 : 0);
	}
	return 0;
}

static void range_words(char *buf, size_t n, const struct cli_option *o)
{
	if (o->type == CLI_OPT_DOUBLE)
		snprintf(buf, n, "%g..%g", o->lo, o->hi);
	else
		snprintf(buf, n, "%.0f..%.0f", o->lo, o->hi);
}

static int parse_ll(const char *s, long long *v)
{
	char *end;
	if (!*s || isspace((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtoll(s, &end, 10);
	return errno || *end ? -1 : 0;
}

/* N, NK, NM, NG, optionally followed by B or iB (any case); powers of 1024 */
static int parse_bytes(const char *s, long long *v)
{
	char *end;
	if (!*s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	long long x = strtoll(s, &end, 10);
	if (errno)
		return -1;
	int shift = 0;
	switch (tolower((unsigned char)*end)) {
	case 'k':
		shift = 10;
		break;
	case 'm':
		shift = 20;
		break;
	case 'g':
		shift = 30;
		break;
	default:
		break;
	}
	if (shift) {
		end++;
		if (tolower((unsigned char)*end) == 'i' && tolower((unsigned char)end[1]) == 'b')
			end += 2;
		else if (tolower((unsigned char)*end) == 'b')
			end++;
	} else if (tolower((unsigned char)*end) == 'b') {
		end++;
	}
	if (*end || x > (LLONG_MAX >> shift))
		return -1;
	*v = x << shift;
	return 0;
}

/* "-o" or "--output", as the user spelled it */
static const char *dashes(char *buf, size_t n, const struct cli_option *o, int by_short)
{
	if (by_short)
		snprintf(buf, n, "-%c", o->short_name);
	else
		snprintf(buf, n, "--%s", o->long_name);
	return buf;
}

/* Stores arg into the option's field; 0, or a usage error printed. */
static int apply(const struct cli_spec *spec, const struct cli_option *o, void *opts,
		 const char *arg, int negated, int by_short)
{
	char *field = (char *)opts + o->offset;
	char err[GS_ERR_LEN], range[64], nb[64];
	const char *name = dashes(nb, sizeof(nb), o, by_short);
	long long ll = 0;
	double d;
	char *end;

	switch (o->type) {
	case CLI_OPT_END:
		break;
	case CLI_OPT_FLAG:
		*(int *)field = 1;
		return 0;
	case CLI_OPT_BOOL:
		*(int *)field = !negated;
		return 0;
	case CLI_OPT_STRING:
		*(const char **)field = arg;
		return 0;
	case CLI_OPT_CHOICE:
		if (!is_choice(o->choices, arg)) {
			choices_words(err, sizeof(err), o->choices);
			return cli_usage_error(spec, "%s takes %s, not '%s'", name, err, arg);
		}
		*(const char **)field = arg;
		return 0;
	case CLI_OPT_INT:
	case CLI_OPT_LLONG:
	case CLI_OPT_BYTES:
		/* the bounds in whole numbers too: a double cannot tell 2^63-ish
		 * neighbours apart */
		if ((o->type == CLI_OPT_BYTES ? parse_bytes(arg, &ll) : parse_ll(arg, &ll)) < 0 ||
		    (double)ll < o->lo || (double)ll > o->hi ||
		    (o->hi < 9223372036854775807.0 && ll > (long long)o->hi) ||
		    (o->lo > -9223372036854775807.0 && ll < (long long)o->lo)) {
			range_words(range, sizeof(range), o);
			return cli_usage_error(spec, "%s takes %s in %s, not '%s'", name,
					       o->type == CLI_OPT_BYTES
						   ? "a byte count (N, NK, NM, NG)"
						   : "a whole number",
					       range, arg);
		}
		if (o->type == CLI_OPT_INT)
			*(int *)field = (int)ll;
		else
			*(long long *)field = ll;
		return 0;
	case CLI_OPT_DOUBLE:
		errno = 0;
		/* decimal only: strtod would also take "nan", "inf" and hex */
		d = *arg && strspn(arg, "0123456789.eE+-") == strlen(arg) ? strtod(arg, &end) : NAN;
		if (isnan(d) || !isfinite(d) || errno || *end || d < o->lo || d > o->hi ||
		    (signbit(d) && o->lo >= 0)) { /* "-0" is no non-negative number */
			range_words(range, sizeof(range), o);
			return cli_usage_error(spec, "%s takes a number in %s, not '%s'", name,
					       range, arg);
		}
		*(double *)field = d;
		return 0;
	case CLI_OPT_CALLBACK:
		err[0] = '\0';
		if (o->cb(field, arg, err) < 0)
			return cli_usage_error(spec, "%s", err);
		return 0;
	}
	return 0;
}

static const struct cli_option *find_long(const struct cli_spec *spec, const char *name, size_t len)
{
	for (const struct cli_option *o = spec->options; o && o->type != CLI_OPT_END; o++)
		if (o->long_name && strlen(o->long_name) == len &&
		    strncmp(o->long_name, name, len) == 0)
			return o;
	return NULL;
}

static const struct cli_option *find_short(const struct cli_spec *spec, int c)
{
	for (const struct cli_option *o = spec->options; o && o->type != CLI_OPT_END; o++)
		if (o->short_name == c)
			return o;
	return NULL;
}

#define MAX_OPTIONS 64

/* One `--name[=value]` at argv[*i]; 0 or a negative cli_parse result. */
static int parse_long(const struct cli_spec *spec, void *opts, int argc, char **argv, int *i,
		      unsigned char *seen)
{
	const char *name = argv[*i] + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	int negated = 0;
	if (!eq && strcmp(name, "help") == 0) {
		cli_help(stdout, spec);
		return CLI_HELP_SHOWN;
	}
	const struct cli_option *o = find_long(spec, name, len);
	if (!o && len > 3 && strncmp(name, "no-", 3) == 0) {
		o = find_long(spec, name + 3, len - 3);
		if (o && o->type != CLI_OPT_BOOL)
			o = NULL;
		negated = o != NULL;
	}
	if (!o) {
		cli_usage_error(spec, "unknown option '--%.*s'", (int)len, name);
		return CLI_USAGE_ERROR;
	}
	const char *arg = NULL;
	if (cli_option_takes_arg(o)) {
		if (eq)
			arg = eq + 1;
		else if (*i + 1 < argc)
			arg = argv[++*i];
		else {
			cli_usage_error(spec, "'--%s' needs a value (%s)", o->long_name,
					o->argh ? o->argh : o->choices);
			return CLI_USAGE_ERROR;
		}
	} else if (eq) {
		cli_usage_error(spec, "'--%.*s' takes no value", (int)len, name);
		return CLI_USAGE_ERROR;
	}
	seen[o - spec->options] = 1;
	return apply(spec, o, opts, arg, negated, 0) ? CLI_USAGE_ERROR : 0;
}

/* A group of short options at argv[*i] ("-ab", "-oFILE", "-o FILE"). */
static int parse_short(const struct cli_spec *spec, void *opts, int argc, char **argv, int *i,
		       unsigned char *seen)
{
	const char *a = argv[*i];
	for (int j = 1; a[j]; j++) {
		const struct cli_option *o = find_short(spec, (unsigned char)a[j]);
		if (!o && a[j] == 'h') {
			cli_help(stdout, spec);
			return CLI_HELP_SHOWN;
		}
		if (!o) {
			cli_usage_error(spec, "unknown option '-%c'", a[j]);
			return CLI_USAGE_ERROR;
		}
		seen[o - spec->options] = 1;
		if (!cli_option_takes_arg(o)) {
			if (apply(spec, o, opts, NULL, 0, 1))
				return CLI_USAGE_ERROR;
			continue;
		}
		const char *arg = a[j + 1] ? a + j + 1 : *i + 1 < argc ? argv[++*i] : NULL;
		if (!arg) {
			cli_usage_error(spec, "'-%c' needs a value (%s)", a[j],
					o->argh ? o->argh : o->choices);
			return CLI_USAGE_ERROR;
		}
		return apply(spec, o, opts, arg, 0, 1) ? CLI_USAGE_ERROR : 0;
	}
	return 0;
}

/* The positional count check after parsing. */
static int check_args(const struct cli_spec *spec, int npos, char **pos, int dashdash)
{
	if (spec->flags & CLI_COMMAND_AFTER_DASHDASH) {
		if (!dashdash || npos == 0)
			return cli_usage_error(spec, "needs '-- CMD ARGS...'");
		return 0;
	}
	if (npos < spec->min_args)
		return cli_usage_error(spec, "needs %s", spec->args ? spec->args : "arguments");
	if (spec->max_args >= 0 && npos > spec->max_args)
		return cli_usage_error(spec, "unexpected argument '%s' (expects %s)",
				       pos[spec->max_args],
				       spec->max_args ? spec->args : "no arguments");
	return 0;
}

int cli_parse(const struct cli_spec *spec, void *opts, int argc, char **argv)
{
	unsigned char seen[MAX_OPTIONS] = {0};
	int npos = 0, dashdash = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int rc = 0;
		if (strcmp(a, "--") == 0) {
			dashdash = 1;
			while (++i < argc)
				argv[npos++] = argv[i];
			break;
		}
		if (a[0] == '-' && a[1] == '-')
			rc = parse_long(spec, opts, argc, argv, &i, seen);
		else if (a[0] == '-' && a[1])
			rc = parse_short(spec, opts, argc, argv, &i, seen);
		else if (spec->flags & CLI_COMMAND_AFTER_DASHDASH)
			rc = cli_usage_error(
				 spec, "unexpected argument '%s' (the command goes after '--')",
				 a) == GS_EXIT_USAGE
				 ? CLI_USAGE_ERROR
				 : 0;
		else
			argv[npos++] = argv[i];
		if (rc < 0)
			return rc;
	}
	for (const struct cli_option *o = spec->options; o && o->type != CLI_OPT_END; o++)
		if ((o->flags & CLI_REQUIRED) && !seen[o - spec->options]) {
			cli_usage_error(spec, "--%s is required", o->long_name);
			return CLI_USAGE_ERROR;
		}
	if (check_args(spec, npos, argv, dashdash))
		return CLI_USAGE_ERROR;
	return npos;
}

/* ---- help ---- */

void cli_option_label(char *buf, size_t n, const struct cli_option *o)
{
	char sh[8] = "    ";
	if (o->short_name)
		snprintf(sh, sizeof(sh), "-%c, ", o->short_name);
	const char *arg = o->type == CLI_OPT_CHOICE ? o->choices : o->argh;
	snprintf(buf, n, "%s--%s%s%s%s", sh, o->type == CLI_OPT_BOOL ? "[no-]" : "", o->long_name,
		 arg ? " " : "", arg ? arg : "");
}

/* One synopsis item: "[-o FILE]", "--arch ARCH" (required). */
static void synopsis_item(char *buf, size_t n, const struct cli_option *o)
{
	const char *arg = o->type == CLI_OPT_CHOICE ? o->choices : o->argh;
	int req = (o->flags & CLI_REQUIRED) != 0;
	if (o->short_name)
		snprintf(buf, n, "%s-%c%s%s%s", req ? "" : "[", o->short_name, arg ? " " : "",
			 arg ? arg : "", req ? "" : "]");
	else
		snprintf(buf, n, "%s--%s%s%s%s%s", req ? "" : "[",
			 o->type == CLI_OPT_BOOL ? "[no-]" : "", o->long_name, arg ? " " : "",
			 arg ? arg : "", req ? "" : "]");
}

void cli_synopsis(FILE *f, const struct cli_spec *spec, const char *lead)
{
	char head[64], item[160];
	int col = snprintf(head, sizeof(head), "%sgpuscope %s", lead, spec->name);
	int indent = col + 1;
	fputs(head, f);
	if (spec->synopsis) {
		/* given lines: the first after the name, each further one as "or:" */
		for (const char *p = spec->synopsis; *p;) {
			const char *nl = strchr(p, '\n');
			int len = nl ? (int)(nl - p) : (int)strlen(p);
			if (p == spec->synopsis)
				fprintf(f, " %.*s\n", len, p);
			else
				fprintf(f, "%*s gpuscope %s %.*s\n", (int)strlen(lead) - 1,
					*lead ? "or:" : "", spec->name, len, p);
			p += len + (nl ? 1 : 0);
		}
		return;
	}
	for (const struct cli_option *o = spec->options; o && o->type != CLI_OPT_END; o++) {
		if (o->flags & CLI_HIDDEN)
			continue;
		synopsis_item(item, sizeof(item), o);
		int len = (int)strlen(item);
		if (col + 1 + len > SYNOPSIS_WIDTH) {
			fprintf(f, "\n%*s", indent - 1, "");
			col = indent - 1;
		}
		fprintf(f, " %s", item);
		col += 1 + len;
	}
	const char *args = spec->flags & CLI_COMMAND_AFTER_DASHDASH ? "-- CMD ARGS..." : spec->args;
	if (args && *args) {
		if (col + 1 + (int)strlen(args) > SYNOPSIS_WIDTH)
			fprintf(f, "\n%*s", indent - 1, "");
		fprintf(f, " %s", args);
	}
	fputc('\n', f);
}

int cli_option_range(char *buf, size_t n, const struct cli_option *o)
{
	char r[64];
	buf[0] = '\0';
	if (o->type != CLI_OPT_INT && o->type != CLI_OPT_LLONG && o->type != CLI_OPT_DOUBLE &&
	    o->type != CLI_OPT_BYTES)
		return 0;
	range_words(r, sizeof(r), o);
	snprintf(buf, n, " [%s]", r);
	return 1;
}

/* help text, continuation lines indented to the help column */
static void help_lines(FILE *f, const char *help, const char *extra)
{
	for (const char *p = help; *p;) {
		const char *nl = strchr(p, '\n');
		int len = nl ? (int)(nl - p) : (int)strlen(p);
		if (p != help)
			fprintf(f, "%*s", HELP_INDENT, "");
		fprintf(f, "%.*s%s\n", len, p, !nl && extra ? extra : "");
		p += len + (nl ? 1 : 0);
	}
}

void cli_help(FILE *f, const struct cli_spec *spec)
{
	char label[160], range[80];
	cli_synopsis(f, spec, "usage: ");
	if (spec->description)
		fprintf(f, "\n%s", spec->description);
	if (spec->flags & CLI_READS_TRACES) {
		char formats[1024];
		fprintf(
		    f, "\ntrace formats (told apart by content):\n%s",
		    trace_readers_help(formats, sizeof(formats), trace_readers, trace_n_readers));
	}
	fprintf(f, "\noptions:\n");
	for (const struct cli_option *o = spec->options; o && o->type != CLI_OPT_END; o++) {
		if (o->flags & CLI_HIDDEN)
			continue;
		cli_option_label(label, sizeof(label), o);
		int len = fprintf(f, "  %s", label);
		if (len >= HELP_INDENT - 1)
			fprintf(f, "\n%*s", HELP_INDENT, "");
		else
			fprintf(f, "%*s", HELP_INDENT - len, "");
		help_lines(f, o->help ? o->help : "",
			   cli_option_range(range, sizeof(range), o) ? range : NULL);
	}
	fprintf(f, "  -h, --help            this help\n");
	if (spec->footer)
		fprintf(f, "\n%s", spec->footer);
}
