/*
 * fuzz_kineto.c - libFuzzer entry point: kineto_load_mem over arbitrary
 * bytes (plain or gzip JSON). Any outcome but a crash, leak, hang or
 * sanitizer report is fine; on failure the trace must come back empty.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "import/kineto.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace t;
	char err[GS_ERR_LEN];
	if (kineto_load_mem(&t, data, size, err) < 0) {
		if (t.n_kernels || t.kernels || !err[0])
			abort();
		return 0;
	}
	trace_release(&t);
	return 0;
}
