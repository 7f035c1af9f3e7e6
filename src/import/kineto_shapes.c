/*
 * kineto_shapes.c - the few input shapes the PyTorch importer keeps from a
 * trace recorded with record_shapes=True: the token ids each
 * aten::embedding looks up ([B, L]) and the mask of each
 * aten::scaled_dot_product_attention. A batch padded to a fixed length
 * looks up [B, L] tokens every step and masks the pad positions with a
 * mask that broadcasts over the heads ([B, 1, Lq, L]); a batch padded to
 * its longest sequence changes L from step to step, and packed sequences
 * need no mask (diagnose/rules_padding.c reads what is kept here).
 *
 * Counts, not rows: a distinct (B, L) and its count, in first-seen order,
 * KSHAPES_MAX of each kind (more are counted apart), written into the
 * trace's meta as kineto.shapes.tokens, kineto.shapes.masks ("BxL*N,...")
 * and kineto.shapes.attention (the attention calls), so that a database
 * made by import keeps them.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "import/kineto_int.h"

enum shape_op kineto_shape_op(const struct kev *e)
{
	static const char emb[] = "aten::embedding", sdpa[] = "aten::scaled_dot_product_attention";
	if (e->cat != CAT_CPU_OP)
		return SHAPE_NONE;
	if (e->name_len == sizeof(emb) - 1 && memcmp(e->name, emb, sizeof(emb) - 1) == 0)
		return SHAPE_EMBEDDING;
	if (e->name_len == sizeof(sdpa) - 1 && memcmp(e->name, sdpa, sizeof(sdpa) - 1) == 0)
		return SHAPE_SDPA;
	return SHAPE_NONE;
}

static void count(struct kshape *v, size_t *n, uint64_t *other, int64_t b, int64_t l, uint64_t k)
{
	for (size_t i = 0; i < *n; i++)
		if (v[i].b == b && v[i].l == l) {
			v[i].n += k;
			return;
		}
	if (*n < KSHAPES_MAX)
		v[(*n)++] = (struct kshape){b, l, k};
	else
		*other += k;
}

void kineto_shapes_add(struct kshapes *s, const struct kev *e)
{
	/* inputs: embedding (weight, indices, ...); scaled_dot_product_attention
	 * (query, key, value, attn_mask, ...) */
	if (e->shape_op == SHAPE_EMBEDDING) {
		if (e->n_in >= 2 && e->in_ndims[1] == 2)
			count(s->tok, &s->n_tok, &s->tok_other, e->in_dims[1][0], e->in_dims[1][1],
			      1);
	} else if (e->shape_op == SHAPE_SDPA) {
		s->attn++;
		/* a mask over the keys, the same for every head */
		if (e->n_in >= 4 && e->in_ndims[3] == 4 && e->in_dims[3][1] == 1)
			count(s->mask, &s->n_mask, &s->mask_other, e->in_dims[3][0],
			      e->in_dims[3][3], 1);
	}
}

void kineto_shapes_merge(struct kshapes *s, const struct kshapes *c)
{
	for (size_t i = 0; i < c->n_tok; i++)
		count(s->tok, &s->n_tok, &s->tok_other, c->tok[i].b, c->tok[i].l, c->tok[i].n);
	for (size_t i = 0; i < c->n_mask; i++)
		count(s->mask, &s->n_mask, &s->mask_other, c->mask[i].b, c->mask[i].l,
		      c->mask[i].n);
	s->tok_other += c->tok_other;
	s->mask_other += c->mask_other;
	s->attn += c->attn;
}

static int put(struct trace *t, const char *key, const struct kshape *v, size_t n, uint64_t other)
{
	char buf[KSHAPES_MAX * 64 + 32];
	size_t off = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off,
					"%s%" PRId64 "x%" PRId64 "*%" PRIu64, off ? "," : "",
					v[i].b, v[i].l, v[i].n);
	if (other)
		snprintf(buf + off, sizeof(buf) - off, "%sother*%" PRIu64, off ? "," : "", other);
	return n || other ? trace_set_meta(t, key, buf) : 0;
}

int kineto_shapes_meta(struct trace *t, const struct kshapes *s)
{
	char num[32];
	snprintf(num, sizeof(num), "%" PRIu64, s->attn);
	if (put(t, "kineto.shapes.tokens", s->tok, s->n_tok, s->tok_other) < 0 ||
	    put(t, "kineto.shapes.masks", s->mask, s->n_mask, s->mask_other) < 0 ||
	    (s->attn && trace_set_meta(t, "kineto.shapes.attention", num) < 0))
		return -1;
	return 0;
}
