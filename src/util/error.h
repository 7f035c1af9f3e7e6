/*
 * error.h - how functions report errors (git's style).
 *
 * Library functions return 0 on success or a negative code, and when they
 * take a `char *err` (GS_ERR_LEN bytes) they put a one-line, lowercase
 * message there with no full stop. `return error_set(err, ...)` reads well.
 * Only command-level code (src/cli) prints and exits.
 */
#ifndef GPUSCOPE_ERROR_H
#define GPUSCOPE_ERROR_H

#include <stddef.h>

#define GS_ERR_LEN 512

/* Exit codes of the gpuscope binary (README, docs/cli.md). */
enum gs_exit {
	GS_EXIT_OK = 0,
	GS_EXIT_ERROR = 1,   /* bad input, unreadable file, failed operation */
	GS_EXIT_USAGE = 2,   /* bad command line */
	GS_EXIT_FOUND = 3,   /* doctor found warning or worse; diff regression */
	GS_EXIT_NO_WORK = 4, /* diff --fail-on-regression: a side has no GPU work */
};

/* Formats into err (may be NULL) and returns -1. */
int error_set(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints "gpuscope: error: MSG" to stderr. Returns GS_EXIT_ERROR. */
int error_print(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "gpuscope: error: CMD: 'PATH': ERR", without the path when ERR
 * already names it. Returns GS_EXIT_ERROR. */
int error_print_file(const char *cmd, const char *path, const char *err);
/* Prints "gpuscope: MSG" (a usage problem) to stderr. Returns GS_EXIT_USAGE. */
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
