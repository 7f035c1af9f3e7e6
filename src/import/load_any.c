/*
 * load_any.c - trace_load_any(): open any trace gpuscope reads, by content.
 *
 * A SQLite header with gpuscope's application_id is a trace database; gzip
 * magic or JSON text starting with '{' or '[' is a PyTorch profiler trace.
 * Anything else gets a message naming what was expected.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "import/kineto.h"
#include "trace/trace_db.h"
#include "util/error.h"

int trace_load_any(struct trace *t, const char *path, char *err)
{
	unsigned char head[64];
	FILE *f = fopen(path, "rb");
	if (!f) {
		trace_init(t);
		trace_release(t);
		return error_set(err, "cannot open '%s': %s", path, strerror(errno));
	}
	size_t n = fread(head, 1, sizeof(head), f);
	fclose(f);
	trace_init(t);
	trace_release(t);
	if (n == 0)
		return error_set(err, "'%s' is empty", path);
	if (n >= 16 && memcmp(head, "SQLite format 3", 16) == 0) {
		if (!trace_db_is_gpuscope(path))
			return error_set(err, "'%s' is a sqlite database but not a gpuscope trace",
					 path);
		return trace_db_load(t, path, err);
	}
	if (n >= 2 && head[0] == 0x1f && head[1] == 0x8b)
		return kineto_load(t, path, err);
	size_t i = 0;
	if (n >= 3 && head[0] == 0xef && head[1] == 0xbb && head[2] == 0xbf)
		i = 3; /* UTF-8 byte order mark */
	while (i < n && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r'))
		i++;
	if (i < n && (head[i] == '{' || head[i] == '['))
		return kineto_load(t, path, err);
	return error_set(err,
			 "'%s' is neither a gpuscope trace database nor a pytorch profiler trace "
			 "(.json or .json.gz)",
			 path);
}
