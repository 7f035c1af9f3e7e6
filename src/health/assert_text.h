/*
 * assert_text.h - the failed device-side assertions in a pasted PyTorch
 * error: "Indexing.cu:1146: indexSelectLargeIndex: block: [18,0,0],
 * thread: [5,0,0] Assertion `srcIndex < srcSelectDimSize` failed." (one
 * line per failing thread; older builds leave the function out or name a
 * THC file). explain says which check failed and, for the checks PyTorch's
 * own kernels make, what the program passed them.
 */
#ifndef GPUSCOPE_ASSERT_TEXT_H
#define GPUSCOPE_ASSERT_TEXT_H

#include <stddef.h>

#define ASSERT_KINDS 4

struct assert_kind {
	char expr[128];	 /* srcIndex < srcSelectDimSize */
	char where[160]; /* Indexing.cu:1146 */
	char func[96];	 /* indexSelectLargeIndex ("" when the line has none) */
	int threads;	 /* lines (one per failing thread) */
	int blocks;	 /* distinct blocks among them (up to 4096 counted) */
	int known;	 /* index into the table of PyTorch's checks, -1 if none */
};

struct assert_text {
	int n;
	struct assert_kind k[ASSERT_KINDS];
};

/* What a known check means: the operation, and what failed it. */
struct assert_check {
	const char *const *exprs; /* NULL-terminated: the assertion texts */
	const char *op;		  /* untranslated: "index_select / nn.Embedding" */
	const char *meaning;	  /* N_() text */
};

int assert_text_parse(const char *text, size_t len, struct assert_text *a);
const struct assert_check *assert_check_of(int known);

#endif
