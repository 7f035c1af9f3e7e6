/*
 * rules_padding.c - padding (docs/findings.md): every batch of token ids has
 * the same length and the attention masks positions in it, which is what
 * padding every sequence to a fixed max_length looks like; the GPU then
 * computes the pad positions as if they were text (docs/causes.md row 33).
 *
 * What it reads is the PyTorch importer's count of input shapes
 * (import/kineto_shapes.c, a torch.profiler trace with record_shapes=True):
 * the token ids each aten::embedding looked up ([B, L]) and the masks that
 * broadcast over the heads given to scaled_dot_product_attention
 * ([B, 1, Lq, L]). Batches padded to their own longest sequence change L
 * from step to step; packed or fixed-length data (pretraining blocks) has
 * no mask: neither fires. How many positions are padding is not in the
 * trace (the mask's values are not recorded), so the finding states the
 * fixed length and what to try, with no impact of its own: info.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagnose/rules_int.h"
#include "util/error.h"
#include "util/i18n.h"

/* One distinct shape of kineto.shapes.* ("BxL*N,...,other*N"). */
struct pshape {
	int64_t b, l;
	uint64_t n;
};

/* Parses s into v (at most cap); the count of other shapes in *other.
 * Returns how many, or -1 when s is not what the importer writes. */
static int parse_shapes(const char *s, struct pshape *v, int cap, uint64_t *other)
{
	int n = 0;
	*other = 0;
	while (s && *s) {
		char *e;
		if (strncmp(s, "other*", 6) == 0) {
			*other = strtoull(s + 6, &e, 10);
		} else {
			if (n >= cap)
				return -1;
			v[n].b = strtoll(s, &e, 10);
			if (*e != 'x')
				return -1;
			v[n].l = strtoll(e + 1, &e, 10);
			if (*e != '*')
				return -1;
			v[n].n = strtoull(e + 1, &e, 10);
			n++;
		}
		if (*e != ',' && *e != '\0')
			return -1;
		s = *e ? e + 1 : e;
	}
	return n;
}

int an_padding(const struct analysis *a, struct an_padding *p)
{
	memset(p, 0, sizeof(*p));
	const struct trace *t = a->whole ? a->whole : a->t;
	const char *tok = trace_get_meta(t, "kineto.shapes.tokens");
	const char *mask = trace_get_meta(t, "kineto.shapes.masks");
	const char *attn = trace_get_meta(t, "kineto.shapes.attention");
	if (!tok || !mask || !attn)
		return 0;
	struct pshape tv[64], mv[64];
	uint64_t tother, mother;
	int nt = parse_shapes(tok, tv, 64, &tother), nm = parse_shapes(mask, mv, 64, &mother);
	if (nt <= 0 || nm <= 0 || tother)
		return 0;
	/* the batches (B >= 2: a [1, L] lookup is the positions') all of one
	 * length L: a length that changes is padding per batch already */
	int64_t len = 0, batch = 0;
	uint64_t lookups = 0, best = 0;
	for (int i = 0; i < nt; i++) {
		if (tv[i].b < TH_PAD_MIN_BATCH)
			continue;
		if (len && tv[i].l != len)
			return 0;
		len = tv[i].l;
		lookups += tv[i].n;
		if (tv[i].n > best) {
			best = tv[i].n;
			batch = tv[i].b;
		}
	}
	if (len < TH_PAD_MIN_LEN)
		return 0;
	/* the same length in several steps (a trace of one step cannot say) */
	uint64_t steps = a->ops.steps;
	if (steps ? steps < TH_PAD_MIN_STEPS : lookups < TH_PAD_MIN_STEPS)
		return 0;
	/* the attention masks positions of those batches, in most of its calls */
	uint64_t masked = 0, calls = strtoull(attn, NULL, 10);
	for (int i = 0; i < nm; i++)
		if (mv[i].l == len && mv[i].b >= TH_PAD_MIN_BATCH)
			masked += mv[i].n;
	if (!calls || (double)masked < TH_PAD_MASKED_SHARE * (double)calls)
		return 0;
	p->batch = batch;
	p->len = len;
	p->lookups = lookups;
	p->steps = steps;
	p->masked = masked;
	p->attention = calls;
	return 1;
}

int rule_padding(struct rule_ctx *c, const struct rule *r, char *err)
{
	struct analysis *a = c->a;
	struct an_padding p;
	if (!an_padding(a, &p))
		return 0;
	struct finding *f =
	    finding_add(&a->findings, r->id, SEV_INFO,
			N_("every batch is %lld tokens long and the attention masks positions in "
			   "it: sequences padded to a fixed length make the GPU compute the pad "
			   "positions too"),
			(long long)p.len);
	if (!f)
		return error_set(err, "out of memory");
	f->impact_pct = 0;
	finding_num(f, "token_batch", (double)p.batch);
	finding_num(f, "token_length", (double)p.len);
	finding_num(f, "token_lookups", (double)p.lookups);
	if (p.steps)
		finding_num(f, "steps", (double)p.steps);
	finding_num(f, "masked_attention_calls", (double)p.masked);
	finding_num(f, "attention_calls", (double)p.attention);
	finding_action(f, N_("pad each batch to its own longest sequence rounded up to a multiple "
			     "of 64, not to a fixed length (Hugging Face: padding=\"longest\" "
			     "with pad_to_multiple_of=64, or DataCollatorWithPadding(tokenizer, "
			     "pad_to_multiple_of=64)): kernels built per shape (cuDNN's "
			     "attention, torch.compile) are built again for each new length, so "
			     "keep the lengths few"));
	finding_action(f, N_("put sequences of similar length in one batch (the Trainer's "
			     "group_by_length=True, or a sampler that buckets by length), or "
			     "pack them without padding (DataCollatorWithFlattening with "
			     "flash attention)"));
	finding_action(f,
		       N_("the trace does not say how many positions are padding: if most "
			  "sequences fill the %lld tokens, little is lost"),
		       (long long)p.len);
	return 0;
}
