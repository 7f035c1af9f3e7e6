/*
 * kineto_same.c - whether two imports gave the same trace (the fast path
 * against yajl's, in tests and the fuzzer): every row of every table byte
 * for byte, every string, every meta pair.
 */
#include <string.h>

#include "import/kineto.h"

#define SAME_ROWS(a, b, name)                                                                      \
	((a)->n_##name == (b)->n_##name &&                                                         \
	 ((a)->n_##name == 0 ||                                                                    \
	  memcmp((a)->name, (b)->name, (a)->n_##name * sizeof(*(a)->name)) == 0))

int kineto_same_trace(const struct trace *a, const struct trace *b)
{
	if (a->n_strings != b->n_strings)
		return 0;
	for (size_t i = 0; i < a->n_strings; i++)
		if (strcmp(a->strings[i], b->strings[i]) != 0)
			return 0;
	return SAME_ROWS(a, b, devices) && SAME_ROWS(a, b, kernels) && SAME_ROWS(a, b, copies) &&
	       SAME_ROWS(a, b, memsets) && SAME_ROWS(a, b, apis) && SAME_ROWS(a, b, syncs) &&
	       SAME_ROWS(a, b, ranges) && SAME_ROWS(a, b, allocs) && SAME_ROWS(a, b, samples) &&
	       SAME_ROWS(a, b, counters) && SAME_ROWS(a, b, processes) && SAME_ROWS(a, b, meta) &&
	       a->source == b->source;
}
