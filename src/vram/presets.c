/*
 * presets.c - built-in model shapes, each copied from the config.json of
 * the Hugging Face repository it names (the sizes people fine-tune).
 *
 * Only the fields the estimator reads are copied; everything else takes
 * the family default (model.c), which is the transformers config class's
 * default for the same field. tests/vram checks the parameter counts
 * against transformers' own count of the model built from that config.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "vram/model.h"

/* name, model_type, family, layers, hidden, heads, kv_heads, head_dim, intermediate, vocab */
#define DEC(n, t, f, L, h, a, k, d, I, V, src)                                                     \
	{                                                                                          \
		.name = n, .model_type = t, .family = f, .layers = L, .hidden = h, .heads = a,     \
		.kv_heads = k, .head_dim = d, .intermediate = I, .vocab = V, .source = src         \
	}

struct preset {
	struct vram_model m;
	int tied;	/* -1: family default */
	int qkv_bias;	/* -1: family default */
	int qk_norm;	/* qwen3 */
	int norms;	/* norms per layer, 0: family default */
	int64_t labels; /* classification heads */
	/* mixture of experts: experts, per token, expert width, shared expert
	 * width, q/k norms over the whole projection (olmoe) */
	int64_t experts, top_k, moe_I, shared_I;
	int qk_full;
};

static const struct preset presets[] = {
    /* Llama */
    {DEC("llama-2-7b", "llama", VRAM_FAM_LLAMA, 32, 4096, 32, 32, 128, 11008, 32000,
	 "meta-llama/Llama-2-7b-hf config.json"),
     0, -1, 0, 0, 0, 0, 0, 0, 0, 0},
    {DEC("llama-2-13b", "llama", VRAM_FAM_LLAMA, 40, 5120, 40, 40, 128, 13824, 32000,
	 "meta-llama/Llama-2-13b-hf config.json"),
     0, -1, 0, 0, 0, 0, 0, 0, 0, 0},
    {DEC("llama-3.2-1b", "llama", VRAM_FAM_LLAMA, 16, 2048, 32, 8, 64, 8192, 128256,
	 "meta-llama/Llama-3.2-1B config.json"),
     1, -1, 0, 0, 0, 0, 0, 0, 0, 0},
    {DEC("llama-3.2-3b", "llama", VRAM_FAM_LLAMA, 28, 3072, 24, 8, 128, 8192, 128256,
	 "meta-llama/Llama-3.2-3B config.json"),
     1, -1, 0, 0, 0, 0, 0, 0, 0, 0},
    {DEC("llama-3.1-8b", "llama", VRAM_FAM_LLAMA, 32, 4096, 32, 8, 128, 14336, 128256,
	 "meta-llama/Llama-3.1-8B config.json"),
     0, -1, 0, 0, 0, 0, 0, 0, 0, 0},
    {DEC("llama-3.1-70b", "llama", VRAM_FAM_LLAMA, 80, 8192, 64, 8, 128, 28672, 128256,
	 "meta-llama/Llama-3.1-70B config.json"),
     0, -1, 0, 0, 0, 0, 0, 0, 0, 0},
    /* Qwen */
    {DEC("qwen2.5-0.5b", "qwen2", VRAM_FAM_LLAMA, 24, 896, 14, 2, 64, 4864, 151936,
	 "Qwen/Qwen2.5-0.5B config.json"),
     1, 1, 0, 0, 0, 0, 0, 0, 0, 0},
    {DEC("qwen2.5-1.5b", "qwen2", VRAM_FAM_LLAMA, 28, 1536, 12, 2, 128, 8960, 151936,
	 "Qwen/Qwen2.5-1.5B config.json"),
     1, 1, 0, 0, 0, 0, 0, 0, 0, 0},
    {DEC("qwen2.5-3b", "qwen2", VRAM_FAM_LLAMA, 36, 2048, 16, 2, 128, 11008, 151936,
	 "Qwen/Qwen2.5-3B config.json"),
     1, 1, 0, 0, 0, 0, 0, 0, 0, 0},
    {DEC("qwen2.5-7b", "qwen2", VRAM_FAM_LLAMA, 28, 3584, 28, 4, 128, 18944, 152064,
	 "Qwen/Qwen2.5-7B config.json"),
     0, 1, 0, 0, 0, 0, 0, 0, 0, 0},
    {DEC("qwen3-0.6b", "qwen3", VRAM_FAM_LLAMA, 28, 1024, 16, 8, 128, 3072, 151936,
	 "Qwen/Qwen3-0.6B config.json"),
     1, 0, 1, 0, 0, 0, 0, 0, 0, 0},
    {DEC("qwen3-8b", "qwen3", VRAM_FAM_LLAMA, 36, 4096, 32, 8, 128, 12288, 151936,
	 "Qwen/Qwen3-8B config.json"),
     0, 0, 1, 0, 0, 0, 0, 0, 0, 0},
    /* Mistral */
    {DEC("mistral-7b", "mistral", VRAM_FAM_LLAMA, 32, 4096, 32, 8, 128, 14336, 32000,
	 "mistralai/Mistral-7B-v0.1 config.json"),
     0, -1, 0, 0, 0, 0, 0, 0, 0, 0},
    /* mixtures of experts */
    {DEC("mixtral-8x7b", "mixtral", VRAM_FAM_LLAMA, 32, 4096, 32, 8, 128, 14336, 32000,
	 "mistralai/Mixtral-8x7B-v0.1 config.json"),
     0, -1, 0, 0, 0, 8, 2, 14336, 0, 0},
    {DEC("qwen1.5-moe-a2.7b", "qwen2_moe", VRAM_FAM_LLAMA, 24, 2048, 16, 16, 128, 5632, 151936,
	 "Qwen/Qwen1.5-MoE-A2.7B config.json"),
     0, 1, 0, 0, 0, 60, 4, 1408, 5632, 0},
    {DEC("qwen3-30b-a3b", "qwen3_moe", VRAM_FAM_LLAMA, 48, 2048, 32, 4, 128, 6144, 151936,
	 "Qwen/Qwen3-30B-A3B config.json"),
     0, 0, 1, 0, 0, 128, 8, 768, 0, 0},
    {DEC("olmoe-1b-7b", "olmoe", VRAM_FAM_LLAMA, 16, 2048, 16, 16, 128, 1024, 50304,
	 "allenai/OLMoE-1B-7B-0924 config.json"),
     0, -1, 0, 0, 0, 64, 8, 1024, 0, 1},
    /* Gemma */
    {DEC("gemma-2b", "gemma", VRAM_FAM_GEMMA, 18, 2048, 8, 1, 256, 16384, 256000,
	 "google/gemma-2b config.json"),
     1, -1, 0, 0, 0, 0, 0, 0, 0, 0},
    {DEC("gemma-7b", "gemma", VRAM_FAM_GEMMA, 28, 3072, 16, 16, 256, 24576, 256000,
	 "google/gemma-7b config.json"),
     1, -1, 0, 0, 0, 0, 0, 0, 0, 0},
    {DEC("gemma-2-2b", "gemma2", VRAM_FAM_GEMMA, 26, 2304, 8, 4, 256, 9216, 256000,
	 "google/gemma-2-2b config.json"),
     1, -1, 0, 4, 0, 0, 0, 0, 0, 0},
    {DEC("gemma-2-9b", "gemma2", VRAM_FAM_GEMMA, 42, 3584, 16, 8, 256, 14336, 256000,
	 "google/gemma-2-9b config.json"),
     1, -1, 0, 4, 0, 0, 0, 0, 0, 0},
    /* GPT-2 */
    {DEC("gpt2", "gpt2", VRAM_FAM_GPT2, 12, 768, 12, 12, 64, 3072, 50257,
	 "openai-community/gpt2 config.json"),
     -1, -1, 0, 0, 0, 0, 0, 0, 0, 0},
    {DEC("gpt2-medium", "gpt2", VRAM_FAM_GPT2, 24, 1024, 16, 16, 64, 4096, 50257,
	 "openai-community/gpt2-medium config.json"),
     -1, -1, 0, 0, 0, 0, 0, 0, 0, 0},
    {DEC("gpt2-large", "gpt2", VRAM_FAM_GPT2, 36, 1280, 20, 20, 64, 5120, 50257,
	 "openai-community/gpt2-large config.json"),
     -1, -1, 0, 0, 0, 0, 0, 0, 0, 0},
    {DEC("gpt2-xl", "gpt2", VRAM_FAM_GPT2, 48, 1600, 25, 25, 64, 6400, 50257,
	 "openai-community/gpt2-xl config.json"),
     -1, -1, 0, 0, 0, 0, 0, 0, 0, 0},
    /* BERT (sequence classification, 2 labels) */
    {DEC("bert-base-uncased", "bert", VRAM_FAM_BERT, 12, 768, 12, 12, 64, 3072, 30522,
	 "google-bert/bert-base-uncased config.json"),
     -1, -1, 0, 0, 2, 0, 0, 0, 0, 0},
    {DEC("bert-large-uncased", "bert", VRAM_FAM_BERT, 24, 1024, 16, 16, 64, 4096, 30522,
	 "google-bert/bert-large-uncased config.json"),
     -1, -1, 0, 0, 2, 0, 0, 0, 0, 0},
    /* ViT (image classification, ImageNet-1k head) */
    {DEC("vit-base-patch16-224", "vit", VRAM_FAM_VIT, 12, 768, 12, 12, 64, 3072, 0,
	 "google/vit-base-patch16-224 config.json"),
     -1, -1, 0, 0, 1000, 0, 0, 0, 0, 0},
    {DEC("vit-large-patch16-224", "vit", VRAM_FAM_VIT, 24, 1024, 16, 16, 64, 4096, 0,
	 "google/vit-large-patch16-224 config.json"),
     -1, -1, 0, 0, 1000, 0, 0, 0, 0, 0},
};

#define N_PRESETS ((int)(sizeof(presets) / sizeof(presets[0])))

/* Preset i with its family's defaults and its own settings into *out. */
static void make(struct vram_model *out, int i)
{
	const struct preset *p = &presets[i];
	struct vram_model m = p->m;
	m.num_labels = p->labels;
	vram_model_defaults(&m);
	if (p->tied >= 0)
		m.tied = p->tied;
	if (p->qkv_bias >= 0)
		m.qkv_bias = p->qkv_bias;
	m.qk_norm = p->qk_norm;
	if (p->norms)
		m.norms_per_layer = p->norms;
	m.experts = p->experts;
	m.top_k = p->top_k;
	m.moe_intermediate = p->moe_I;
	m.shared_intermediate = p->shared_I;
	m.qk_norm_full = p->qk_full;
	*out = m;
}

int vram_preset_at(struct vram_model *out, int i)
{
	if (i < 0 || i >= N_PRESETS)
		return -1;
	make(out, i);
	return 0;
}

int vram_preset_find(struct vram_model *out, const char *name)
{
	for (int i = 0; i < N_PRESETS; i++)
		if (strcasecmp(presets[i].m.name, name) == 0) {
			make(out, i);
			return 0;
		}
	return -1;
}

/* The Hugging Face id a preset copies ("meta-llama/Llama-2-7b-hf"), from its
 * source ("<id> config.json"), and the id without its organisation. */
static void preset_id(const struct vram_model *m, char *id, size_t n, const char **base)
{
	size_t len = strcspn(m->source, " ");
	snprintf(id, n, "%.*s", (int)len, m->source);
	const char *slash = strchr(id, '/');
	*base = slash ? slash + 1 : id;
}

/* name without a leading "org/" */
static const char *strip_org(const char *name)
{
	const char *slash = strchr(name, '/');
	return slash && !strchr(slash + 1, '/') ? slash + 1 : name;
}

int vram_preset_lookup(struct vram_model *out, const char *name)
{
	char id[96];
	const char *base;
	if (vram_preset_find(out, name) == 0 || vram_preset_find(out, strip_org(name)) == 0)
		return 0;
	for (int i = 0; i < N_PRESETS; i++) {
		preset_id(&presets[i].m, id, sizeof(id), &base);
		if (strcasecmp(id, name) == 0 || strcasecmp(base, strip_org(name)) == 0) {
			make(out, i);
			return 0;
		}
	}
	return -1;
}

/* Levenshtein distance of a and b, case ignored (both at most 95 bytes). */
static int distance(const char *a, const char *b)
{
	int row[96], la = (int)strlen(a), lb = (int)strlen(b);
	if (la > 95 || lb > 95)
		return 1 << 20;
	for (int j = 0; j <= lb; j++)
		row[j] = j;
	for (int i = 1; i <= la; i++) {
		int diag = row[0];
		row[0] = i;
		for (int j = 1; j <= lb; j++) {
			int up = row[j];
			int sub = diag + (tolower((unsigned char)a[i - 1]) !=
					  tolower((unsigned char)b[j - 1]));
			int best = up + 1 < row[j - 1] + 1 ? up + 1 : row[j - 1] + 1;
			row[j] = sub < best ? sub : best;
			diag = up;
		}
	}
	return row[lb];
}

/* Lowercase copy of the text between separators ('-', '_', '/', ' ') number k. */
static int token(char *out, size_t n, const char *s, int k)
{
	size_t len;
	for (;;) {
		s += strspn(s, "-_/ ");
		len = strcspn(s, "-_/ ");
		if (!len)
			return 0;
		if (k-- == 0)
			break;
		s += len;
	}
	if (len >= n)
		len = n - 1;
	for (size_t i = 0; i < len; i++)
		out[i] = (char)tolower((unsigned char)s[i]);
	out[len] = '\0';
	return 1;
}

/*
 * The same family and size as a preset, however the rest is spelled:
 * "Meta-Llama-3-8B-Instruct" and llama-3.1-8b (a token starting with the
 * preset's family letters, and the preset's size token, "8b").
 */
static int family_and_size(const char *key, const char *preset)
{
	char fam[32], size[32], t[64];
	if (!token(fam, sizeof(fam), preset, 0))
		return 0;
	fam[strcspn(fam, "0123456789.")] = '\0';
	int last = 0;
	while (token(t, sizeof(t), preset, last + 1))
		last++;
	if (!last || !token(size, sizeof(size), preset, last) || !strchr("0123456789", size[0]) ||
	    !strchr("bm", size[strlen(size) - 1]) || !fam[0])
		return 0;
	int has_fam = 0, has_size = 0;
	for (int k = 0; token(t, sizeof(t), key, k); k++) {
		has_fam |= strncmp(t, fam, strlen(fam)) == 0 &&
			   (t[strlen(fam)] == '\0' || !isalpha((unsigned char)t[strlen(fam)]));
		has_size |= strcmp(t, size) == 0;
	}
	return has_fam && has_size;
}

int vram_preset_suggest(char *buf, size_t n, const char *name)
{
	const char *key = strip_org(name);
	int len = (int)strlen(key), limit = len / 4 > 2 ? len / 4 : 2;
	int dist[N_PRESETS], found = 0;
	char id[96];
	const char *base;
	for (int i = 0; i < N_PRESETS; i++) {
		preset_id(&presets[i].m, id, sizeof(id), &base);
		int a = distance(key, presets[i].m.name), b = distance(key, base);
		dist[i] = a < b ? a : b;
	}
	/* nearest first; of two as near, the one sharing the longer prefix */
	int score[N_PRESETS];
	for (int i = 0; i < N_PRESETS; i++) {
		int pre = 0;
		while (key[pre] && tolower((unsigned char)key[pre]) == presets[i].m.name[pre])
			pre++;
		score[i] = dist[i] <= limit			      ? dist[i] * 100 - pre
			   : family_and_size(name, presets[i].m.name) ? 10000 - pre
								      : 1 << 20;
	}
	buf[0] = '\0';
	while (found < 3) {
		int best = -1;
		for (int i = 0; i < N_PRESETS; i++)
			if (score[i] < (1 << 20) && (best < 0 || score[i] < score[best]))
				best = i;
		if (best < 0)
			break;
		size_t used = strlen(buf);
		snprintf(buf + used, n - used, "%s%s", found ? ", " : "", presets[best].m.name);
		score[best] = 1 << 20;
		found++;
	}
	return found;
}
