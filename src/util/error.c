/* error.c - error message helpers, see error.h. */
#include "util/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A message longer than GS_ERR_LEN keeps its head and its tail (where the
 * reason is: "...: No such file or directory") around an ellipsis, so that
 * a long but legal path does not hide why it failed. */
int error_set(char *err, const char *fmt, ...)
{
	if (!err)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	char *full = NULL;
	int n = vasprintf(&full, fmt, ap);
	va_end(ap);
	if (n < 0) {
		va_start(ap, fmt);
		vsnprintf(err, GS_ERR_LEN, fmt, ap);
		va_end(ap);
		return -1;
	}
	if (n < GS_ERR_LEN) {
		memcpy(err, full, (size_t)n + 1);
	} else {
		size_t tail = GS_ERR_LEN / 2, head = GS_ERR_LEN - tail - 4;
		memcpy(err, full, head);
		memcpy(err + head, "...", 3);
		memcpy(err + head + 3, full + n - tail, tail + 1);
	}
	free(full);
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
