/*
 * model.h - the shape of a model, as 'gpuscope vram' needs it.
 *
 * A model comes from one of three places: a Hugging Face config.json read
 * locally (config.c), a built-in preset that cites the config it copies
 * (presets.c), or shape flags. Whatever the source, the estimator sees one
 * struct vram_model and computes parameter counts from it exactly as the
 * transformers implementation of that family lays its modules out
 * (docs/vram.md, "Parameters").
 *
 * Invariants:
 *  1. layers, hidden, heads, kv_heads, head_dim are > 0 and heads is a
 *     multiple of kv_heads once vram_model_check() has passed;
 *  2. head_dim is explicit (Gemma and Qwen3 set it apart from hidden/heads);
 *  3. params_override, when > 0, replaces the computed total (the --params
 *     flag) but the per-part counts still come from the shape;
 *  4. experts > 0 only in the llama family, with 1 <= top_k <= experts and
 *     moe_intermediate > 0.
 */
#ifndef GPUSCOPE_VRAM_MODEL_H
#define GPUSCOPE_VRAM_MODEL_H

#include <stddef.h>
#include <stdint.h>

/* One implementation layout in transformers (modeling_<family>.py). */
enum vram_family {
	VRAM_FAM_LLAMA, /* llama, mistral, qwen2, qwen3: RMSNorm, RoPE, gated MLP */
	VRAM_FAM_GEMMA, /* gemma, gemma2: (1 + w) RMSNorm in fp32, scaled embeddings */
	VRAM_FAM_GPT2,	/* gpt2: LayerNorm, learned positions, Conv1D, fused c_attn */
	VRAM_FAM_BERT,	/* bert, roberta: post-norm encoder, classification head */
	VRAM_FAM_VIT,	/* vit: pre-norm encoder over patches, classification head */
};

enum vram_norm { VRAM_NORM_RMS, VRAM_NORM_RMS_GEMMA, VRAM_NORM_LAYER };

/* The MLP activation as transformers implements it (activations.py). */
enum vram_act {
	VRAM_ACT_SILU,	   /* nn.functional.silu: saves its input */
	VRAM_ACT_GELU,	   /* nn.functional.gelu (exact or tanh), one C kernel: saves its input */
	VRAM_ACT_GELU_NEW, /* NewGELUActivation, written in Python: saves 4 tensors */
	VRAM_ACT_RELU,	   /* saves its output */
};

struct vram_model {
	char name[96];	     /* preset name, or the config file's path */
	char model_type[32]; /* config.json "model_type", or the family name */
	enum vram_family family;
	int64_t layers, hidden, heads, kv_heads, head_dim, intermediate, vocab;
	int64_t positions;  /* learned position rows (gpt2, bert); 0 with RoPE */
	int64_t type_vocab; /* bert token types */
	int64_t image_size, patch_size, channels; /* vit */
	int64_t num_labels;			  /* bert, vit classification head */
	enum vram_norm norm;
	enum vram_act act;
	int gated_mlp;	  /* gate_proj * up_proj (llama, gemma) */
	int qkv_bias;	  /* q/k/v projections have a bias (qwen2, gpt2, bert, vit) */
	int o_bias;	  /* output projection has a bias */
	int mlp_bias;	  /* MLP linears have biases */
	int qk_norm;	  /* RMSNorm over q and k per head (qwen3) */
	int qk_norm_full; /* ... over the whole q and k projections (olmoe) */
	/* mixture of experts (llama family: mixtral, qwen2_moe, qwen3_moe, olmoe):
	 * every layer's MLP is a router (hidden -> experts) and experts gated MLPs of
	 * moe_intermediate, top_k of them per token; qwen2_moe adds a shared expert
	 * of shared_intermediate with a sigmoid gate (hidden -> 1). 0 experts: dense */
	int64_t experts, top_k, moe_intermediate, shared_intermediate;
	int norms_per_layer;		/* 2; 4 for gemma2 (pre and post norms) */
	int tied;			/* lm_head shares the token embedding */
	double p_attn, p_resid, p_embd; /* dropout probabilities while training */
	int64_t params_override;	/* --params; 0 = computed */
	const char *source;		/* presets: the config this copies */
};

/* Parameter counts by part (exact, from the module layout). */
struct vram_params {
	int64_t embed;	      /* token, position, type, patch embeddings and their norm */
	int64_t layer;	      /* one layer */
	int64_t layer_linear; /* of which in linear weights and biases (LoRA/QLoRA targets) */
	int64_t layer_mlp_w;  /* the largest linear weight of a layer (transients) */
	int64_t layer_params; /* of layer_linear, parameters that are not nn.Linear
			       * modules (a MoE's router and experts in transformers 5):
			       * bitsandbytes leaves them, autocast does not cast them */
	int64_t final_norm;
	int64_t head; /* untied lm_head, or pooler + classifier */
	int64_t total;
	int64_t active; /* of total, what one token computes with (MoE: top_k experts) */
};

/* Fills p from m (params_override replaces total only). */
void vram_model_params(struct vram_params *p, const struct vram_model *m);

/* Fills the family defaults (norm, act, biases, ...) for m->family. */
void vram_model_defaults(struct vram_model *m);

/* Checks invariant 1; -1 with err when the shape is not usable. */
int vram_model_check(const struct vram_model *m, char *err);

/* Tokens one sample puts through the layers (vit: patches + 1, else seq). */
int64_t vram_model_tokens(const struct vram_model *m, int64_t seq);

/* The most positions a sample may take: learned absolute position
 * embeddings (gpt2, bert) have a row per position; 0 for no such limit. */
int64_t vram_model_max_tokens(const struct vram_model *m);

/* Whether the model predicts tokens over a vocabulary (causal LM head). */
int vram_model_is_lm(const struct vram_model *m);

const char *vram_family_name(enum vram_family f);
/* Parses "llama", "gpt2", ...; -1 when unknown. */
int vram_family_parse(const char *s, enum vram_family *out);

/* ---- presets (presets.c) ---- */

/* A copy of the preset called name (case-insensitive); -1 when none. */
int vram_preset_find(struct vram_model *out, const char *name);
/* The preset name is, as users type it: its name or the Hugging Face id it
 * copies ("meta-llama/Llama-2-7b-hf"), with or without the organisation,
 * case-insensitive; -1 when none. */
int vram_preset_lookup(struct vram_model *out, const char *name);
/* Up to three presets close to name (edit distance), comma-separated in buf;
 * returns how many. */
int vram_preset_suggest(char *buf, size_t n, const char *name);
/* The i-th preset into *out: 0, or -1 past the end. */
int vram_preset_at(struct vram_model *out, int i);

/* ---- config.json (config.c) ---- */

/* The largest config.json accepted (bytes); a real one is a few KB. */
#define VRAM_CONFIG_MAX_BYTES (4 << 20)

/*
 * Reads a Hugging Face config.json at path: a regular file of at most
 * VRAM_CONFIG_MAX_BYTES, opened without blocking (a FIFO or a device is
 * refused, never read). On error *out is untouched, err holds a one-line
 * message and -1 is returned.
 */
int vram_model_from_config(struct vram_model *out, const char *path, char *err);

#endif
