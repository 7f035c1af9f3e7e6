/*
 * fuzz_db.c - libFuzzer entry point: arbitrary bytes written to a
 * temporary file and opened with trace_load_any (SQLite database, gzip or
 * JSON, whichever the content says), twice: with the database's big tables
 * read from its pages and through SQLite only, which must agree.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "import/kineto.h"
#include "trace/schema.h"
#include "trace/trace_db.h"
#include "util/error.h"
#include "import/load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	if (!path[0])
		snprintf(path, sizeof(path), "/tmp/gs-fuzz-db-%d", (int)getpid());
	FILE *f = fopen(path, "wb");
	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	struct trace t, u;
	char err[GS_ERR_LEN], err2[GS_ERR_LEN];
	int rc = trace_load_any(&t, path, err);
	if (rc == 0)
		trace_release(&t);
	if (!trace_db_is_gpuscope(path)) {
		unlink(path);
		return 0;
	}
	/* differential: the big tables from the pages (the default) and
	 * through SQLite only give the same rows or the same message */
	struct trace_db_load_opts pages = {0}, sqlite = {.sqlite_only = 1};
	rc = trace_db_load_opt(&t, path, &pages, err);
	int rc2 = trace_db_load_opt(&u, path, &sqlite, err2);
	/* both load the same rows, or both refuse with the same message, or
	 * both call the file corrupt: on a damaged b-tree SQLite itself returns
	 * a misplaced row (our string-table check) or SQLITE_CORRUPT depending
	 * on memory the file does not decide (seen 2026-12-06 on one corpus
	 * file: the ASan build gave each answer, the release build the second) */
	if (rc != rc2 || (rc < 0 && strcmp(err, err2) != 0 &&
			  (!strstr(err, "corrupt") || !strstr(err2, "corrupt"))))
		abort();
	for (int i = 0; rc == 0 && i < TT_COUNT; i++) {
		const struct ttable *tt = &trace_tables[i];
		if (i == TT_LAUNCH_CONFIGS)
			continue;
		size_t n = *(const size_t *)((const char *)&t + tt->n_off);
		const void *a = *(void *const *)((const char *)&t + tt->arr_off);
		const void *b = *(void *const *)((const char *)&u + tt->arr_off);
		if (n != *(const size_t *)((const char *)&u + tt->n_off) ||
		    (n && memcmp(a, b, n * tt->elem_size) != 0))
			abort();
	}
	if (rc == 0) {
		trace_release(&t);
		trace_release(&u);
	}
	unlink(path);
	return 0;
}
