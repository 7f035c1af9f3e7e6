/*
 * options.h - the one option table every command parses its command line
 * with (git's parse-options, as a static table).
 *
 * A command describes its command line once, in a `struct cli_spec`: the
 * synopsis, a description, its options and a footer. The same table parses
 * argv, prints `gpuscope CMD --help` / `gpuscope help CMD`, writes the man
 * pages (`gpuscope help --man CMD`) and the bash completion
 * (`gpuscope help --bash-completion`), so none of them can drift apart.
 *
 * A command's file looks like this:
 *
 *	struct report_opts { const char *format, *range; int whole; };
 *
 *	static const struct cli_option report_options[] = {
 *		OPT_FORMAT(struct report_opts, format, "text|json|html", "output format"),
 *		OPT_STRING(0, "range", struct report_opts, range, "NAME", "bound the span"),
 *		OPT_FLAG(0, "whole", struct report_opts, whole, "analyse from the first event"),
 *		OPT_END(),
 *	};
 *	const struct cli_spec cli_spec_report = {
 *		.name = "report", .args = "FILE", .min_args = 1, .max_args = 1,
 *		.summary = "...", .description = "...", .options = report_options,
 *	};
 *	int cmd_report(int argc, char **argv)
 *	{
 *		struct report_opts o = {.format = "text"};	// defaults first
 *		int n = cli_parse(&cli_spec_report, &o, argc, argv);
 *		if (n < 0)
 *			return cli_exit(n);	// usage error printed, or --help shown
 *		// argv[0..n) are the positional arguments, in order
 *	}
 *
 * The command line (every command alike):
 *  1. Long options take their value as `--x=v` or `--x v`, short ones as
 *     `-xv` or `-x v`; flags may be grouped (`-ab`). A long option is never
 *     abbreviated. OPT_BOOL options also read `--no-x`.
 *  2. Options and positional arguments may be mixed; `--` ends the options
 *     (with CLI_COMMAND_AFTER_DASHDASH, what follows is a command line to run
 *     and is returned whole). A lone `-` is a positional argument (stdin).
 *  3. `-h`/`--help` anywhere before `--` prints the help to stdout, exit 0.
 *  4. Every usage error is one line on stderr, "gpuscope CMD: MESSAGE (see
 *     'gpuscope help CMD')", and exit code 2 (GS_EXIT_USAGE).
 *  5. The shared options mean the same everywhere: OPT_FORMAT (-f, --format),
 *     OPT_OUTPUT (-o, --output; `-o -` is stdout where a command can write
 *     there, cli_output_is_stdout()), OPT_PROGRESS (--[no-]progress; default:
 *     progress on stderr when it is a terminal), OPT_FORCE (--force: replace an
 *     output file that is not the command's own kind), OPT_LANG (--lang en|zh).
 *  6. Numbers are checked whole against the option's range: "12abc", "",
 *     "nan", "inf" and out-of-range values are usage errors that quote the
 *     range. OPT_BYTES takes a K/M/G suffix (powers of 1024; "48K" = 49152).
 *
 * Invariants: tables end with OPT_END(); an option has a long name (help,
 * man pages and completion key on it), a short name is optional; a field's
 * type is checked at compile time against the macro used (CLI_FIELD).
 */
#ifndef GPUSCOPE_CLI_OPTIONS_H
#define GPUSCOPE_CLI_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

enum cli_opt_type {
	CLI_OPT_END = 0,
	CLI_OPT_FLAG,	  /* int: set to 1 */
	CLI_OPT_BOOL,	  /* int: --x sets 1, --no-x sets 0 (leave -1 for "not given") */
	CLI_OPT_STRING,	  /* const char *: the argument as given */
	CLI_OPT_CHOICE,	  /* const char *: one of `choices` ("a|b|c") */
	CLI_OPT_INT,	  /* int, decimal, in [lo, hi] */
	CLI_OPT_LLONG,	  /* long long, decimal, in [lo, hi] */
	CLI_OPT_DOUBLE,	  /* double, finite, in [lo, hi] */
	CLI_OPT_BYTES,	  /* long long: N, NK, NM, NG (powers of 1024), in [lo, hi] */
	CLI_OPT_CALLBACK, /* cb(field, arg, err) checks and stores the argument */
};

/* Option flags */
#define CLI_REQUIRED 0x1u /* a usage error when not given */
#define CLI_HIDDEN 0x2u	  /* parsed, but not in help, man page or completion */

struct cli_option {
	enum cli_opt_type type;
	int short_name;	       /* 0: none */
	const char *long_name; /* without the dashes */
	size_t offset;	       /* of the field in the command's options struct */
	const char *argh;      /* the argument's name in help ("FILE"); NULL for flags */
	const char *help;      /* one or more lines ('\n'), no final newline */
	const char *choices;   /* CLI_OPT_CHOICE: "text|json" */
	double lo, hi;	       /* numeric types: the inclusive range */
	/* CLI_OPT_CALLBACK: field points into the options struct; returns 0, or
	 * -1 with a message in err (GS_ERR_LEN) for a usage error */
	int (*cb)(void *field, const char *arg, char *err);
	unsigned flags; /* CLI_REQUIRED, CLI_HIDDEN */
};

/* Spec flags */
#define CLI_COMMAND_AFTER_DASHDASH 0x1u /* record: no positional before `--`, a command after */
/* its FILEs are traces: the help lists the formats (import/load.h) */
#define CLI_READS_TRACES 0x2u

struct cli_spec {
	const char *name;	 /* "report" (the summary line is in the command table) */
	const char *args;	 /* positional arguments in the synopsis: "BASE NEW" */
	int min_args, max_args;	 /* how many positionals; max_args -1 = any number */
	const char *synopsis;	 /* NULL: "gpuscope NAME [options] ARGS"; else the lines */
	const char *description; /* paragraphs after the synopsis (lines end in \n) */
	const struct cli_option *options;
	const char *footer; /* after the options: exit codes, environment, files */
	unsigned flags;	    /* CLI_COMMAND_AFTER_DASHDASH, CLI_READS_TRACES */
};

/* The field at f of T, checked to be of type ctype at compile time. */
#define CLI_FIELD(T, f, ctype) (offsetof(T, f) + 0 * sizeof(char[_Generic(((T *)0)->f, ctype : 1)]))

/* Every OPT_X macro takes further designated initialisers last, for
 * flags: OPT_INT(..., "help", .flags = CLI_REQUIRED). */
#define OPT_END()                                                                                  \
	{                                                                                          \
		.type = CLI_OPT_END                                                                \
	}
#define OPT_FLAG(s, l, T, f, h, ...)                                                               \
	{                                                                                          \
		.type = CLI_OPT_FLAG, .short_name = (s), .long_name = (l),                         \
		.offset = CLI_FIELD(T, f, int), .help = (h), __VA_ARGS__                           \
	}
#define OPT_BOOL(s, l, T, f, h, ...)                                                               \
	{                                                                                          \
		.type = CLI_OPT_BOOL, .short_name = (s), .long_name = (l),                         \
		.offset = CLI_FIELD(T, f, int), .help = (h), __VA_ARGS__                           \
	}
#define OPT_STRING(s, l, T, f, a, h, ...)                                                          \
	{                                                                                          \
		.type = CLI_OPT_STRING, .short_name = (s), .long_name = (l),                       \
		.offset = CLI_FIELD(T, f, const char *), .argh = (a), .help = (h), __VA_ARGS__     \
	}
#define OPT_CHOICE(s, l, T, f, c, h, ...)                                                          \
	{                                                                                          \
		.type = CLI_OPT_CHOICE, .short_name = (s), .long_name = (l),                       \
		.offset = CLI_FIELD(T, f, const char *), .choices = (c), .help = (h), __VA_ARGS__  \
	}
#define OPT_INT(s, l, T, f, a, lo_, hi_, h, ...)                                                   \
	{                                                                                          \
		.type = CLI_OPT_INT, .short_name = (s), .long_name = (l),                          \
		.offset = CLI_FIELD(T, f, int), .argh = (a), .lo = (lo_), .hi = (hi_),             \
		.help = (h), __VA_ARGS__                                                           \
	}
#define OPT_LLONG(s, l, T, f, a, lo_, hi_, h, ...)                                                 \
	{                                                                                          \
		.type = CLI_OPT_LLONG, .short_name = (s), .long_name = (l),                        \
		.offset = CLI_FIELD(T, f, long long), .argh = (a), .lo = (lo_), .hi = (hi_),       \
		.help = (h), __VA_ARGS__                                                           \
	}
#define OPT_DOUBLE(s, l, T, f, a, lo_, hi_, h, ...)                                                \
	{                                                                                          \
		.type = CLI_OPT_DOUBLE, .short_name = (s), .long_name = (l),                       \
		.offset = CLI_FIELD(T, f, double), .argh = (a), .lo = (lo_), .hi = (hi_),          \
		.help = (h), __VA_ARGS__                                                           \
	}
#define OPT_BYTES(s, l, T, f, a, lo_, hi_, h, ...)                                                 \
	{                                                                                          \
		.type = CLI_OPT_BYTES, .short_name = (s), .long_name = (l),                        \
		.offset = CLI_FIELD(T, f, long long), .argh = (a), .lo = (lo_), .hi = (hi_),       \
		.help = (h), __VA_ARGS__                                                           \
	}
/* fn(void *field, const char *arg, char *err); the field is of ctype */
#define OPT_CALLBACK(s, l, T, f, ctype, a, fn, h, ...)                                             \
	{                                                                                          \
		.type = CLI_OPT_CALLBACK, .short_name = (s), .long_name = (l),                     \
		.offset = CLI_FIELD(T, f, ctype), .argh = (a), .cb = (fn), .help = (h),            \
		__VA_ARGS__                                                                        \
	}

/* The shared options (rule 5). */
#define OPT_FORMAT(T, f, choices_, h, ...) OPT_CHOICE('f', "format", T, f, choices_, h, __VA_ARGS__)
#define OPT_OUTPUT(T, f, h, ...) OPT_STRING('o', "output", T, f, "FILE", h, __VA_ARGS__)
#define OPT_PROGRESS(T, f)                                                                         \
	OPT_BOOL(0, "progress", T, f,                                                              \
		 "progress on stderr (default: when stderr is a terminal);\n"                      \
		 "--no-progress: none")
#define OPT_FORCE(T, f)                                                                            \
	OPT_FLAG(0, "force", T, f, "replace an existing output file that is not this command's")
#define OPT_LANG(T, f)                                                                             \
	OPT_CALLBACK(0, "lang", T, f, const char *, "en|zh", cli_lang_option,                      \
		     "language of the text output (default: from the environment)")

/* Return values of cli_parse below 0. */
#define CLI_HELP_SHOWN (-1)
#define CLI_USAGE_ERROR (-2)

/*
 * Parses argv[1..argc) (argv[0] is the command's name) by spec into opts,
 * the struct the table's offsets point into, which holds the defaults on
 * entry. Returns the number of positional arguments, moved in order to
 * argv[0..n) (with CLI_COMMAND_AFTER_DASHDASH: the command after `--`), or
 * CLI_HELP_SHOWN (help printed to stdout) or CLI_USAGE_ERROR (one line
 * printed to stderr, rule 4). opts is only written for options given.
 */
int cli_parse(const struct cli_spec *spec, void *opts, int argc, char **argv);
/* The exit code for a negative cli_parse result: 0 for help, 2 for usage. */
int cli_exit(int parse_result);

/* Flushes stdout after a command wrote its result: GS_EXIT_OK, or
 * GS_EXIT_ERROR with "CMD: cannot write to stdout: REASON" (ENOSPC, EPIPE,
 * EBADF). Set errno to 0 before writing, so that the reason is the write's. */
int cli_stdout_done(const char *cmd);

/* Prints a usage error in the form of rule 4; returns GS_EXIT_USAGE. */
int cli_usage_error(const struct cli_spec *spec, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The help text (`gpuscope CMD --help`), generated from spec. */
void cli_help(FILE *f, const struct cli_spec *spec);
/* The synopsis line(s) of spec, "LEADgpuscope NAME ...", wrapped (lead:
 * "usage: " in help, "" in a man page). */
void cli_synopsis(FILE *f, const struct cli_spec *spec, const char *lead);
/* " [LO..HI]" into buf for a numeric option (returns 1), else "" (0). */
int cli_option_range(char *buf, size_t n, const struct cli_option *o);
/* The label of an option in help: "-o, --output FILE", "--[no-]progress". */
void cli_option_label(char *buf, size_t n, const struct cli_option *o);
/* 1 when the option takes an argument. */
int cli_option_takes_arg(const struct cli_option *o);

/* 1 when an OPT_OUTPUT value means standard output ("-"). */
int cli_output_is_stdout(const char *path);

/* OPT_LANG's check: en or zh; stores the argument. */
int cli_lang_option(void *field, const char *arg, char *err);
/* Says on stderr, once, why Chinese was asked for and English stays
 * (util/i18n.h's i18n_warning). */
void cli_lang_warning(void);

#endif
