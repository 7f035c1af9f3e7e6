/*
 * fuzz_kineto.c - libFuzzer entry point: kineto_load_mem over arbitrary
 * bytes (plain or gzip JSON), differentially: the fast path (with small
 * chunks, so that its cutting and merging run) and the yajl parse must
 * agree on the outcome, the error message and, on success, the whole
 * trace. Any other outcome but a crash, leak, hang or sanitizer report is
 * fine; on failure the trace must come back empty.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "import/kineto.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace a, b;
	char ea[GS_ERR_LEN] = "", eb[GS_ERR_LEN] = "";
	struct kineto_options y = {.yajl_only = 1}, f = {.chunk_bytes = 64};
	int ra = kineto_load_mem_opt(&a, data, size, &y, ea);
	int rb = kineto_load_mem_opt(&b, data, size, &f, eb);
	if (ra < 0 && (a.n_kernels || a.kernels || !ea[0]))
		abort();
	if (rb < 0 && (b.n_kernels || b.kernels || !eb[0]))
		abort();
	if (ra != rb || strcmp(ea, eb) != 0)
		abort(); /* the fast path disagrees with yajl */
	if (ra == 0 && !kineto_same_trace(&a, &b))
		abort();
	if (ra == 0)
		trace_release(&a);
	if (rb == 0)
		trace_release(&b);
	return 0;
}
