/*
 * internal.h - what estimate.c and activations.c share (not an API).
 */
#ifndef GPUSCOPE_VRAM_INTERNAL_H
#define GPUSCOPE_VRAM_INTERNAL_H

#include "vram/estimate.h"

/*
 * Byte widths of one training or inference set-up. r: the residual stream
 * (the embedding's output dtype; fp32 under AMP because nn.Embedding is
 * not autocast), c: matmul outputs, casts: autocast makes a new low-
 * precision copy of an fp32 input for every linear that reads it.
 */
struct vram_regime {
	int r, c;
	int casts;	 /* AMP with fp32 activations entering linears */
	int autocast;	 /* autocast is on */
	int full;	 /* base weights are trained */
	int lora_in;	 /* bytes per input element of a LoRA branch's saved input copy */
	int lora_shared; /* the LoRA branch saves the input tensor itself (fp32) */
	int emb_grad;	 /* the embedding output requires grad (full; qlora's recipe) */
	int lin_out;	 /* bytes of a linear's output: c, but bnb's Linear4bit casts
			  * its output back to the input's dtype (fp32 under qlora) */
	int expert_b;	 /* bytes of a MoE's expert weights, the dtype its grouped
			  * matmuls run in (not autocast) */
};

/* One linear module of a layer; input says which tensor feeds it. */
enum vram_lin_input { LIN_ATTN_IN, LIN_ATTN_OUT, LIN_MLP_IN, LIN_MLP_MID, LIN_N_INPUTS };

struct vram_linear {
	const char *name;
	int64_t in, out;
	enum vram_lin_input input;
	int64_t count; /* matrices of this shape (a MoE's experts: one each) */
	int param;     /* a parameter, not an nn.Linear (transformers 5's router and
			* experts): no LoRA target, not quantised, not autocast */
};

#define VRAM_MAX_LINEARS 12

/* The layer's linear weights (peft target names for modules); returns how
 * many entries. */
int vram_layer_linears(struct vram_linear out[VRAM_MAX_LINEARS], const struct vram_model *m);

/* Bytes saved for the backward and the backward's working sets. */
struct vram_act_terms {
	double layer;		/* one layer, no checkpointing */
	double layer_first;	/* the first layer (frozen embeddings save less) */
	double layer_stored;	/* one layer as stored under the job's checkpointing */
	double outside;		/* embeddings and final norm (not the head input, not the loss) */
	double head_in;		/* the lm_head's (or classifier's) saved input */
	double loss;		/* log_softmax output kept for the backward */
	double logits_c;	/* logits in the compute dtype (grad after the fp32 loss) */
	double layer_transient; /* a layer's backward working buffers */
};

/*
 * Fills t for tokens = batch x seq through every layer. sel[i] is nonzero
 * when linear i of vram_layer_linears() carries a LoRA adapter.
 */
void vram_activation_terms(struct vram_act_terms *t, const struct vram_model *m,
			   const struct vram_job *j, const struct vram_regime *rg, const int *sel,
			   int n_lin);

#endif
