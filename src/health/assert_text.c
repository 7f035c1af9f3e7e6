/*
 * assert_text.c - failed device-side assertions read from pasted text
 * (assert_text.h).
 */
#include "health/assert_text.h"

#include <stdio.h>
#include <string.h>

#include "util/i18n.h"

static const char *const embedding[] = {"srcIndex < srcSelectDimSize", NULL};
static const char *const classes[] = {"t >= 0 && t < n_classes",
				      "cur_target >= 0 && cur_target < n_classes",
				      "target >= 0 && target < n_classes", NULL};
static const char *const bce_input[] = {"input_val >= zero && input_val <= one", NULL};
static const char *const bce_target[] = {"target_val >= zero && target_val <= one", NULL};
static const char *const gather[] = {"indexValue >= 0 && indexValue < src.sizes[dim]",
				     "indexValue >= 0 && indexValue < tensor.sizes[dim]",
				     "idx_dim >= 0 && idx_dim < index_size", NULL};
static const char *const indexing[] = {"index out of bounds",
				       "-sizes[i] <= index && index < sizes[i]", NULL};

static const struct assert_check checks[] = {
    {embedding, "index_select / nn.Embedding",
     N_("an index at or past the size of the dimension it selects from: in nn.Embedding a token "
	"id >= num_embeddings (a tokenizer with added tokens and no "
	"model.resize_token_embeddings(len(tokenizer)), or the wrong tokenizer), or a position id "
	">= max_position_embeddings (a sequence longer than the model allows): compare "
	"input_ids.max() with the embedding's size")},
    {classes, "cross_entropy / nll_loss",
     N_("a class label outside [0, number of classes): labels that start at 1, a classifier "
	"head with fewer outputs than there are classes, or -1 used as the ignore label "
	"(PyTorch's ignore_index is -100): compare labels.min() and labels.max() with the "
	"logits' last dimension")},
    {bce_input, "binary_cross_entropy (nn.BCELoss)",
     N_("an input outside [0, 1] reached BCELoss, NaN included: give logits to "
	"BCEWithLogitsLoss instead of a sigmoid's output to BCELoss (it is also safe under "
	"autocast); if the inputs are a sigmoid's, they are NaN: the loss diverged (learning "
	"rate, fp16 overflow)")},
    {bce_target, "binary_cross_entropy (nn.BCELoss)",
     N_("a target outside [0, 1] reached BCELoss: the labels are not 0/1 (class indices, or "
	"values scaled wrongly)")},
    {gather, "gather / scatter",
     N_("an index outside the dimension gathered from or scattered into: check the index "
	"tensor's min and max against that dimension's size (boxes or anchors outside the "
	"image, an off-by-one)")},
    {indexing, "tensor[index]",
     N_("an index outside the tensor's size in advanced indexing (tensor[idx] with an index "
	"tensor): check idx.min() and idx.max() against the size")},
};

const struct assert_check *assert_check_of(int known)
{
	return known >= 0 && known < (int)(sizeof(checks) / sizeof(checks[0])) ? &checks[known]
									       : NULL;
}

static int known_of(const char *expr)
{
	for (int i = 0; i < (int)(sizeof(checks) / sizeof(checks[0])); i++)
		for (const char *const *e = checks[i].exprs; *e; e++)
			if (strstr(expr, *e))
				return i;
	return -1;
}

/* The part of [ls, le) before the "block:" that names the source: the
 * last path component up to the second ':' after ".cu" ("Indexing.cu:1146")
 * and the function after it. */
static void location(const char *ls, const char *le, struct assert_kind *k)
{
	const char *cu = NULL;
	for (const char *p = ls; p + 3 <= le; p++)
		if (!memcmp(p, ".cu:", 4) || !memcmp(p, ".cuh:", 5)) {
			cu = p;
			break;
		}
	if (!cu)
		return;
	const char *b = cu;
	while (b > ls && b[-1] != '/' && b[-1] != '\\' && b[-1] != ' ')
		b--;
	const char *e = memchr(cu, ':', (size_t)(le - cu));
	if (e)
		e++;
	while (e && e < le && *e >= '0' && *e <= '9')
		e++;
	if (!e)
		return;
	snprintf(k->where, sizeof(k->where), "%.*s", (int)(e - b < 150 ? e - b : 150), b);
	/* ": indexSelectLargeIndex: block:" */
	if (e + 2 < le && e[0] == ':' && e[1] == ' ') {
		const char *f = e + 2, *fe = f;
		while (fe < le && *fe != ':' && *fe != '\n')
			fe++;
		if (fe > f && fe - f < 90 && memcmp(f, "block", 5))
			snprintf(k->func, sizeof(k->func), "%.*s", (int)(fe - f), f);
	}
}

int assert_text_parse(const char *text, size_t len, struct assert_text *a)
{
	const char *s = text, *end = text + len;
	char seen[ASSERT_KINDS][4096];
	memset(a, 0, sizeof(*a));
	memset(seen, 0, sizeof(seen));
	for (const char *p = s; p < end;) {
		const char *q = memmem(p, (size_t)(end - p), "Assertion `", 11);
		if (!q)
			break;
		const char *ee = memmem(q + 11, (size_t)(end - q - 11), "` failed", 8);
		const char *nl = memchr(q, '\n', (size_t)(end - q));
		if (!ee || (nl && ee > nl) || ee == q + 11 || ee - (q + 11) >= 128) {
			p = q + 11;
			continue;
		}
		char expr[128];
		snprintf(expr, sizeof(expr), "%.*s", (int)(ee - (q + 11)), q + 11);
		int i = 0;
		while (i < a->n && strcmp(a->k[i].expr, expr))
			i++;
		if (i == a->n && a->n < ASSERT_KINDS) {
			struct assert_kind *k = &a->k[a->n++];
			snprintf(k->expr, sizeof(k->expr), "%s", expr);
			k->known = known_of(expr);
			const char *ls = q;
			while (ls > s && ls[-1] != '\n')
				ls--;
			location(ls, q, k);
		}
		if (i < a->n) {
			struct assert_kind *k = &a->k[i];
			k->threads++;
			/* "block: [18,0,0]": count distinct x (up to 4096) */
			const char *ls = q;
			while (ls > s && ls[-1] != '\n')
				ls--;
			const char *b = memmem(ls, (size_t)(q - ls), "block: [", 8);
			if (b) {
				int x = 0, digits = 0;
				for (const char *d = b + 8;
				     d < q && *d >= '0' && *d <= '9' && digits < 9; d++, digits++)
					x = x * 10 + (*d - '0');
				if (digits && x < 4096 && !seen[i][x]) {
					seen[i][x] = 1;
					k->blocks++;
				}
			}
		}
		p = ee + 8;
	}
	return a->n > 0;
}
