/*
 * fuzz_db.c - libFuzzer entry point: arbitrary bytes written to a
 * temporary file and opened with trace_load_any (SQLite database, gzip or
 * JSON, whichever the content says).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "import/kineto.h"
#include "trace/trace_db.h"
#include "util/error.h"

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
	struct trace t;
	char err[GS_ERR_LEN];
	if (trace_load_any(&t, path, err) == 0)
		trace_release(&t);
	unlink(path);
	return 0;
}
