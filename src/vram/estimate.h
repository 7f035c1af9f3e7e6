/*
 * estimate.h - how much GPU memory a fine-tune or an inference needs.
 *
 * vram_estimate() walks the phases of a training step (forward, backward,
 * optimizer step) or of a generation (prefill, decode) and sums, for each
 * phase's peak moment, what PyTorch's caching allocator holds: weights and
 * their autocast copies, gradients, optimizer states and the optimizer's
 * temporaries, the tensors autograd saved for the backward (derived per
 * op from the transformers implementation, activations.c), the backward's
 * working buffers, the KV cache and cuBLAS's workspace. That sum is what
 * torch.cuda.max_memory_allocated() reports. The CUDA context and the
 * allocator's headroom (reserved but unallocated) come on top of it and
 * make total_bytes, what nvidia-smi would show. Memory is per GPU: a job
 * over several (--gpus, --shard, tensor-parallel inference) or offloaded
 * to the host is estimated for one of its GPUs. docs/vram.md has every
 * formula and its source.
 *
 * Invariants:
 *  1. every byte count is >= 0; total = peak allocated + context + headroom
 *     + paged optimizer states (the parts outside the allocator);
 *  2. breakdown[] is the peak phase's; phases[] holds every phase;
 *  3. functions return 0 or -1 with a one-line message in err.
 */
#ifndef GPUSCOPE_VRAM_ESTIMATE_H
#define GPUSCOPE_VRAM_ESTIMATE_H

#include <stdint.h>

#include "vram/model.h"

enum vram_mode { VRAM_MODE_FULL, VRAM_MODE_LORA, VRAM_MODE_QLORA, VRAM_MODE_INFERENCE };
enum vram_precision { VRAM_PREC_FP32, VRAM_PREC_BF16, VRAM_PREC_AMP, VRAM_PREC_FP8 };
/*
 * Optimizers as they are run (docs/vram.md, "Optimizers"): adamw is
 * torch.optim.AdamW's default on CUDA (the foreach implementation),
 * adamw-fused its fused=True (HF Trainer's optim default with torch >= 2.8),
 * adamw8bit and paged-adamw8bit bitsandbytes' blockwise 8-bit AdamW (the
 * paged one's states in CUDA unified memory), adafactor transformers'
 * Adafactor (HF Trainer's optim=adafactor), sgd with momentum.
 */
enum vram_optimizer {
	VRAM_OPT_ADAMW,
	VRAM_OPT_ADAMW8BIT,
	VRAM_OPT_SGD,
	VRAM_OPT_ADAFACTOR,
	VRAM_OPT_ADAMW_FUSED,
	VRAM_OPT_PAGED_ADAMW8BIT,
};
enum vram_ckpt { VRAM_CKPT_NONE, VRAM_CKPT_SELECTIVE, VRAM_CKPT_FULL };
enum vram_attn { VRAM_ATTN_SDPA, VRAM_ATTN_EAGER };
/* Data-parallel sharding over gpus (per-GPU memory): none is DDP, a full
 * replica on each; zero1 shards the optimizer states (ZeroRedundancyOptimizer,
 * DeepSpeed stage 1), zero2 the gradients too (DeepSpeed stage 2, FSDP
 * SHARD_GRAD_OP), zero3 the parameters too (DeepSpeed stage 3, FSDP
 * FULL_SHARD). Inference over gpus is tensor parallel. */
enum vram_shard { VRAM_SHARD_NONE, VRAM_SHARD_ZERO1, VRAM_SHARD_ZERO2, VRAM_SHARD_ZERO3 };
/* To host memory: the optimizer (fp32 master weights, states and step: DeepSpeed
 * ZeRO-Offload), or the parameters as well (ZeRO-Infinity, FSDP CPUOffload). */
enum vram_offload { VRAM_OFFLOAD_NONE, VRAM_OFFLOAD_OPTIMIZER, VRAM_OFFLOAD_PARAMS };

#define VRAM_MAX_TARGETS 16

struct vram_job {
	enum vram_mode mode;
	enum vram_precision precision;
	enum vram_optimizer optimizer;
	enum vram_ckpt ckpt;
	enum vram_attn attn;
	int64_t batch; /* micro-batch */
	int64_t seq;   /* tokens per sample (training), prompt length (inference) */
	int64_t accum; /* gradient accumulation steps (>= 1) */
	int64_t lora_rank;
	int n_targets; /* 0: peft's default targets for the family */
	char targets[VRAM_MAX_TARGETS][32];
	double lora_dropout;
	int double_quant;   /* QLoRA: quantised quantisation constants */
	int64_t gen_tokens; /* inference: new tokens after the prompt */
	int kv_paged;	    /* inference: paged KV cache (blocks of 16 tokens) */
	int kv_fp8;	    /* inference: the KV cache in fp8 (1 byte an element) */
	int cc_major;	    /* target GPU compute capability major (cuBLAS workspace); 0 = 9 */
	int fp16;	    /* the GPU has no bf16: autocast runs fp16 (same bytes) */
	int64_t gpus;	    /* GPUs the job spreads over (>= 1); memory is per GPU */
	enum vram_shard shard;
	enum vram_offload offload;
};

/* Parts of the allocator's peak, plus the two outside it. */
enum vram_part {
	VRAM_PART_WEIGHTS,	  /* stored weights (base, adapters) */
	VRAM_PART_WEIGHT_COPIES,  /* autocast's bf16 copies; QLoRA/fp8 dequantised weight */
	VRAM_PART_GRADIENTS,	  /* .grad of trainable parameters */
	VRAM_PART_OPTIMIZER,	  /* optimizer states */
	VRAM_PART_OPTIMIZER_TEMP, /* optimizer step temporaries (foreach) */
	VRAM_PART_ACTIVATIONS,	  /* tensors saved for the backward */
	VRAM_PART_ACT_TRANSIENT,  /* loss, logits and backward working buffers */
	VRAM_PART_KV_CACHE,
	VRAM_PART_LOGITS,    /* inference: the last token's logits and their fp32 copy */
	VRAM_PART_WORKSPACE, /* cuBLAS workspace (inside the allocator) */
	VRAM_PART_CONTEXT,   /* CUDA context and libraries (outside the allocator) */
	VRAM_PART_HEADROOM,  /* reserved but not allocated: the caching allocator's slack */
	VRAM_PART_PAGED,     /* paged optimizer states (CUDA unified memory, outside the
			      * allocator; evicted to the host under pressure) */
	VRAM_PART_N,
};

/* Parts outside the caching allocator (not in max_memory_allocated). */
#define VRAM_PART_OUTSIDE(p)                                                                       \
	((p) == VRAM_PART_CONTEXT || (p) == VRAM_PART_HEADROOM || (p) == VRAM_PART_PAGED)

/* JSON key of a part ("weights", "gradients", ...). */
const char *vram_part_key(enum vram_part p);
/* Human label of a part in a training job or in an inference (phase: the
 * phase's name, for the inference transients of prefill or decode). */
const char *vram_part_label(enum vram_part p);
const char *vram_part_label_for(enum vram_part p, const struct vram_job *j, const char *phase);

#define VRAM_MAX_PHASES 6

struct vram_phase {
	const char *name; /* "backward (loss)", "optimizer step", "decode", ... */
	double part[VRAM_PART_N];
	double allocated; /* sum of the allocator's parts */
};

struct vram_estimate {
	struct vram_params params;
	int64_t trainable;	  /* parameters with gradients */
	double part[VRAM_PART_N]; /* the peak phase's */
	double allocated_peak;	  /* comparable with torch.cuda.max_memory_allocated() */
	double total;		  /* allocated_peak + context + headroom */
	int n_phases, peak_phase;
	struct vram_phase phases[VRAM_MAX_PHASES];
	double act_per_layer; /* saved bytes of one layer (as stored; checkpointing applied) */
	double host_bytes;    /* host memory the offload needs (master weights, states) */
};

/* Fills job defaults: amp, adamw, batch 1, seq 2048 (vit: its patches), ... */
void vram_job_defaults(struct vram_job *j);

/* Positions a sample of the job takes: seq, and with inference the tokens
 * generated after it but the last. */
int64_t vram_job_tokens(const struct vram_job *j);

/*
 * Estimates job on model. -1 with err for combinations that are not
 * modelled (fp8 full fine-tune, an unknown LoRA target, ...).
 */
int vram_estimate(struct vram_estimate *out, const struct vram_model *m, const struct vram_job *j,
		  char *err);

/*
 * Outside the allocator: the CUDA context, library handles and loaded
 * kernels of a PyTorch process (bytes), and the caching allocator's slack
 * as a share of the allocated peak (reserved / allocated - 1) when the
 * peak is peak_phase, both as measured on the H200 for the job's kind
 * (training, checkpointed training peaking in the backward, inference;
 * tests/fixtures/vram/h200, docs/vram.md).
 */
double vram_context_bytes(const struct vram_job *j);
double vram_headroom_frac(const struct vram_job *j, const char *peak_phase);

/* "full", "amp", "adamw", ... and their parsers (-1 when unknown). */
const char *vram_mode_name(enum vram_mode v);
const char *vram_precision_name(enum vram_precision v);
const char *vram_optimizer_name(enum vram_optimizer v);
const char *vram_ckpt_name(enum vram_ckpt v);
const char *vram_shard_name(enum vram_shard v);
const char *vram_offload_name(enum vram_offload v);
int vram_mode_parse(const char *s, enum vram_mode *v);
int vram_precision_parse(const char *s, enum vram_precision *v);
int vram_optimizer_parse(const char *s, enum vram_optimizer *v);
int vram_ckpt_parse(const char *s, enum vram_ckpt *v);
/* zero1..zero3, none, and FSDP's names: fsdp / full_shard (zero3), shard_grad_op (zero2) */
int vram_shard_parse(const char *s, enum vram_shard *v);
int vram_offload_parse(const char *s, enum vram_offload *v);
/* What runs, in words: "bf16 autocast, fp32 master weights", "bf16 weights", ... */
const char *vram_precision_words(const struct vram_job *j);
/* The optimizer as it is run: "torch.optim.AdamW, foreach (PyTorch's default)" */
const char *vram_optimizer_words(enum vram_optimizer v);

/*
 * Compares an estimate with a measured peak (torch.cuda.max_memory_allocated,
 * or a recording's peak of allocated device memory): *ratio = estimate /
 * measured. -1 when measured <= 0. For report's memory section.
 */
/* Under qlora, the bytes of a mixture of experts' router and experts that
 * bitsandbytes leaves unquantised (fp32 after the kbit recipe's cast); 0
 * for any other job or model. */
double vram_unquantised_expert_bytes(const struct vram_model *m, const struct vram_job *j);

int vram_compare_peak(const struct vram_estimate *e, double measured_bytes, double *ratio);

#endif
