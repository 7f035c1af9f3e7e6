/* error.c - error message helpers, see error.h. */
#include "util/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int error_set(char *err, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, GS_ERR_LEN, fmt, ap);
		va_end(ap);
	}
	return -1;
}

int error_print(const char *fmt, ...)
{
	va_list ap;
	fputs("gpuscope: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return GS_EXIT_ERROR;
}

int error_print_file(const char *cmd, const char *path, const char *err)
{
	char q[GS_ERR_LEN];
	snprintf(q, sizeof(q), "'%s'", path);
	if (strstr(err, q))
		return error_print("%s: %s", cmd, err);
	return error_print("%s: %s: %s", cmd, q, err);
}

int usage_error(const char *fmt, ...)
{
	va_list ap;
	fputs("gpuscope: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (see 'gpuscope --help')\n", stderr);
	return GS_EXIT_USAGE;
}
