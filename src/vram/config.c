/*
 * config.c - a Hugging Face config.json, read locally into struct vram_model.
 *
 * The file is opened without blocking and must be a regular file of at most
 * VRAM_CONFIG_MAX_BYTES (a FIFO, a device or a directory is refused before
 * any read). Its text is scanned once for NUL bytes and for nesting deeper
 * than MAX_DEPTH (yajl_tree_free recurses once per level), then parsed with
 * yajl's tree API. Field names and defaults are those of the transformers
 * config class of each model_type (configuration_<type>.py, 5.17); a model
 * whose text settings sit under "text_config" (multimodal wrappers) is read
 * from there.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yajl/yajl_tree.h>

#include "util/error.h"
#include "vram/model.h"

#define MAX_DEPTH 64

/* Reads the whole regular file into a NUL-terminated buffer (caller frees). */
static int slurp(const char *path, char **out, size_t *len, char *err)
{
	struct stat st;
	char *buf = NULL;
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return error_set(err, "cannot open '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		error_set(err, "'%s' is not a regular file", path);
		goto out_close;
	}
	if (st.st_size > VRAM_CONFIG_MAX_BYTES) {
		error_set(err, "'%s' is %lld bytes, more than a config.json's %d", path,
			  (long long)st.st_size, VRAM_CONFIG_MAX_BYTES);
		goto out_close;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		error_set(err, "out of memory reading '%s'", path);
		goto out_close;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			error_set(err, "cannot read '%s': %s", path,
				  n < 0 ? strerror(errno) : "file shrank while reading");
			goto out_free;
		}
		got += (size_t)n;
	}
	buf[got] = '\0';
	close(fd);
	*out = buf;
	*len = got;
	return 0;
out_free:
	free(buf);
out_close:
	close(fd);
	return -1;
}

/* NUL bytes and nesting depth, outside strings. */
static int prescan(const char *s, size_t len, const char *path, char *err)
{
	int depth = 0, in_str = 0;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (c == '\0')
			return error_set(err, "'%s' is not JSON text (NUL byte at %zu)", path, i);
		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = 0;
		} else if (c == '"') {
			in_str = 1;
		} else if (c == '{' || c == '[') {
			if (++depth > MAX_DEPTH)
				return error_set(err, "'%s' nests deeper than %d levels", path,
						 MAX_DEPTH);
		} else if (c == '}' || c == ']') {
			depth--;
		}
	}
	return 0;
}

static yajl_val field(yajl_val obj, const char *key)
{
	const char *path[] = {key, NULL};
	return yajl_tree_get(obj, path, yajl_t_any);
}

/*
 * Integer field: 0 when absent or null (the caller's default then
 * applies), -1 with err when it is not a whole number in 0..2^40.
 */
static int get_int(yajl_val obj, const char *key, int64_t *v, char *err)
{
	yajl_val x = field(obj, key);
	if (!x || YAJL_IS_NULL(x))
		return 0;
	if (!YAJL_IS_INTEGER(x) || YAJL_GET_INTEGER(x) < 0 || YAJL_GET_INTEGER(x) > (1LL << 40))
		return error_set(err, "config field '%s' is not a whole number in 0..2^40", key);
	*v = YAJL_GET_INTEGER(x);
	return 0;
}

static int get_prob(yajl_val obj, const char *key, double *v, char *err)
{
	yajl_val x = field(obj, key);
	if (!x || YAJL_IS_NULL(x))
		return 0;
	if (!YAJL_IS_NUMBER(x) || YAJL_GET_DOUBLE(x) < 0 || YAJL_GET_DOUBLE(x) >= 1)
		return error_set(err, "config field '%s' is not a probability in [0, 1)", key);
	*v = YAJL_GET_DOUBLE(x);
	return 0;
}

static int get_bool(yajl_val obj, const char *key, int *v, char *err)
{
	yajl_val x = field(obj, key);
	if (!x || YAJL_IS_NULL(x))
		return 0;
	if (!YAJL_IS_TRUE(x) && !YAJL_IS_FALSE(x))
		return error_set(err, "config field '%s' is not true or false", key);
	*v = YAJL_IS_TRUE(x);
	return 0;
}

static const char *get_str(yajl_val obj, const char *key)
{
	yajl_val x = field(obj, key);
	return x && YAJL_IS_STRING(x) ? YAJL_GET_STRING(x) : NULL;
}

/* A string field: 0 with *v NULL when absent or null, -1 with err when it
 * is there but not a string ("hidden_act": 5 is no default activation). */
static int get_str_field(yajl_val obj, const char *key, const char **v, char *err)
{
	yajl_val x = field(obj, key);
	*v = NULL;
	if (!x || YAJL_IS_NULL(x))
		return 0;
	if (!YAJL_IS_STRING(x))
		return error_set(err, "config field '%s' is not a string", key);
	*v = YAJL_GET_STRING(x);
	return 0;
}

static int parse_act(const char *s, enum vram_act *out, char *err)
{
	if (!s)
		return 0;
	if (!strcmp(s, "silu") || !strcmp(s, "swish"))
		*out = VRAM_ACT_SILU;
	else if (!strcmp(s, "gelu") || !strcmp(s, "gelu_pytorch_tanh") ||
		 !strcmp(s, "gelu_python") || !strcmp(s, "quick_gelu"))
		*out = VRAM_ACT_GELU;
	else if (!strcmp(s, "gelu_new") || !strcmp(s, "gelu_fast"))
		*out = VRAM_ACT_GELU_NEW;
	else if (!strcmp(s, "relu"))
		*out = VRAM_ACT_RELU;
	else
		return error_set(err, "activation '%s' is not modelled", s);
	return 0;
}

/* model_type -> family and the type's own defaults. */
static int pick_family(struct vram_model *m, const char *type, char *err)
{
	/* mixtures of experts whose attention or layers differ from Llama's:
	 * multi-head latent attention (deepseek), Mamba layers (jamba), attention
	 * sinks (gpt_oss), interleaved dense layers (llama4) */
	static const char *const moe[] = {"deepseek_v2", "deepseek_v3", "dbrx",	      "jamba",
					  "gpt_oss",	 "llama4",	"llama4_text"};
	for (unsigned i = 0; i < sizeof(moe) / sizeof(moe[0]); i++)
		if (!strcmp(type, moe[i]))
			return error_set(
			    err,
			    "model_type '%s' is a mixture of experts whose layers are "
			    "not modelled (mixtral, qwen2_moe, qwen3_moe and olmoe are)",
			    type);
	if (!strcmp(type, "mixtral") || !strcmp(type, "qwen2_moe") || !strcmp(type, "qwen3_moe") ||
	    !strcmp(type, "olmoe")) {
		m->family = VRAM_FAM_LLAMA;
		vram_model_defaults(m);
		m->experts = -1; /* read_fields fills the experts */
		if (!strcmp(type, "qwen2_moe"))
			m->qkv_bias = 1;
		if (!strcmp(type, "qwen3_moe"))
			m->qk_norm = 1;
		if (!strcmp(type, "olmoe"))
			m->qk_norm_full = 1; /* OlmoeAttention: q_norm(hidden), k_norm(kv width) */
		return 0;
	}
	if (!strcmp(type, "llama") || !strcmp(type, "mistral") || !strcmp(type, "qwen2") ||
	    !strcmp(type, "qwen3"))
		m->family = VRAM_FAM_LLAMA;
	else if (!strcmp(type, "gemma") || !strcmp(type, "gemma2") ||
		 !strcmp(type, "gemma3_text") || !strcmp(type, "gemma3"))
		m->family = VRAM_FAM_GEMMA;
	else if (!strcmp(type, "gpt2"))
		m->family = VRAM_FAM_GPT2;
	else if (!strcmp(type, "bert") || !strcmp(type, "roberta"))
		m->family = VRAM_FAM_BERT;
	else if (!strcmp(type, "vit"))
		m->family = VRAM_FAM_VIT;
	else
		return error_set(err,
				 "model_type '%s' is not modelled; give its shape with --family, "
				 "--layers, --hidden, --heads, ...",
				 type);
	vram_model_defaults(m);
	if (!strcmp(type, "qwen2"))
		m->qkv_bias = 1; /* Qwen2Attention: q/k/v bias=True, o_proj bias=False */
	if (!strcmp(type, "qwen3"))
		m->qk_norm = 1; /* Qwen3Attention: q_norm, k_norm over head_dim */
	if (!strcmp(type, "gemma2") || !strncmp(type, "gemma3", 6))
		m->norms_per_layer = 4; /* pre/post attention and feed-forward norms */
	if (!strncmp(type, "gemma3", 6))
		m->qk_norm = 1;
	if (!strcmp(type, "roberta")) {
		m->positions = 514;
		m->type_vocab = 1;
	}
	return 0;
}

static int read_fields(struct vram_model *m, yajl_val o, char *err)
{
	int64_t v;
	int b = 0, rc = 0;
	const char *act = NULL;

	if (m->family == VRAM_FAM_GPT2) {
		rc |= get_int(o, "n_embd", &m->hidden, err);
		rc |= get_int(o, "n_layer", &m->layers, err);
		rc |= get_int(o, "n_head", &m->heads, err);
		rc |= get_int(o, "n_inner", &m->intermediate, err);
		rc |= get_int(o, "n_positions", &m->positions, err);
		rc |= get_prob(o, "attn_pdrop", &m->p_attn, err);
		rc |= get_prob(o, "resid_pdrop", &m->p_resid, err);
		rc |= get_prob(o, "embd_pdrop", &m->p_embd, err);
		rc |= get_str_field(o, "activation_function", &act, err);
	} else {
		rc |= get_int(o, "hidden_size", &m->hidden, err);
		rc |= get_int(o, "num_hidden_layers", &m->layers, err);
		rc |= get_int(o, "num_attention_heads", &m->heads, err);
		v = -1;
		rc |= get_int(o, "num_key_value_heads", &v, err);
		if (v == 0 && !rc)
			return error_set(err, "config field 'num_key_value_heads' is 0 (a model "
					      "has at least one key/value head)");
		if (v > 0)
			m->kv_heads = v;
		rc |= get_int(o, "head_dim", &m->head_dim, err);
		rc |= get_int(o, "intermediate_size", &m->intermediate, err);
		rc |= get_str_field(o,
				    m->family == VRAM_FAM_GEMMA && field(o, "hidden_activation")
					? "hidden_activation"
					: "hidden_act",
				    &act, err);
	}
	rc |= get_int(o, "vocab_size", &m->vocab, err);
	if (m->family == VRAM_FAM_LLAMA || m->family == VRAM_FAM_GEMMA) {
		b = -1;
		rc |= get_bool(o, "attention_bias", &b, err);
		if (b >= 0)
			m->qkv_bias = m->o_bias = b;
		rc |= get_bool(o, "mlp_bias", &m->mlp_bias, err);
		rc |= get_prob(o, "attention_dropout", &m->p_attn, err);
	}
	if (m->family == VRAM_FAM_BERT || m->family == VRAM_FAM_VIT) {
		rc |= get_prob(o, "hidden_dropout_prob", &m->p_resid, err);
		m->p_embd = m->p_resid; /* BertEmbeddings uses hidden_dropout_prob */
		rc |= get_prob(o, "attention_probs_dropout_prob", &m->p_attn, err);
		rc |= get_int(o, "max_position_embeddings", &m->positions, err);
		rc |= get_int(o, "type_vocab_size", &m->type_vocab, err);
		rc |= get_int(o, "image_size", &m->image_size, err);
		rc |= get_int(o, "patch_size", &m->patch_size, err);
		rc |= get_int(o, "num_channels", &m->channels, err);
		yajl_val labels = field(o, "id2label");
		if (labels && YAJL_IS_OBJECT(labels) && labels->u.object.len > 0)
			m->num_labels = (int64_t)labels->u.object.len;
		v = 0;
		rc |= get_int(o, "num_labels", &v, err);
		if (v > 0)
			m->num_labels = v;
	}
	rc |= get_bool(o, "tie_word_embeddings", &m->tied, err);
	if (m->experts < 0) {
		/* mixtral: num_local_experts, its experts intermediate_size wide; qwen and
		 * olmoe: num_experts and moe_intermediate_size (olmoe: intermediate_size) */
		m->experts = 0;
		rc |= get_int(o, "num_local_experts", &m->experts, err);
		rc |= get_int(o, "num_experts", &m->experts, err);
		rc |= get_int(o, "num_experts_per_tok", &m->top_k, err);
		rc |= get_int(o, "moe_intermediate_size", &m->moe_intermediate, err);
		rc |= get_int(o, "shared_expert_intermediate_size", &m->shared_intermediate, err);
		v = 1;
		rc |= get_int(o, "decoder_sparse_step", &v, err);
		yajl_val dense = field(o, "mlp_only_layers");
		if (!rc && (v != 1 || (dense && YAJL_IS_ARRAY(dense) && dense->u.array.len)))
			return error_set(err, "dense MLP layers among the experts' "
					      "(decoder_sparse_step, mlp_only_layers) are not "
					      "modelled");
		if (!m->moe_intermediate)
			m->moe_intermediate = m->intermediate;
		if (!m->experts || !m->top_k)
			return error_set(err, "a mixture of experts without num_experts and "
					      "num_experts_per_tok");
	}
	if (rc)
		return -1;
	if (parse_act(act, &m->act, err))
		return -1;
	if (!m->kv_heads)
		m->kv_heads = m->heads;
	if (!m->head_dim && m->heads)
		m->head_dim = m->hidden / m->heads;
	if (!m->intermediate && m->family == VRAM_FAM_GPT2)
		m->intermediate = 4 * m->hidden;
	return 0;
}

int vram_model_from_config(struct vram_model *out, const char *path, char *err)
{
	char *text = NULL, perr[256];
	size_t len = 0;
	struct vram_model m;
	yajl_val root = NULL, o;
	int rc = -1;

	if (slurp(path, &text, &len, err))
		return -1;
	if (prescan(text, len, path, err))
		goto out_free;
	root = yajl_tree_parse(text, perr, sizeof(perr));
	if (!root) {
		char *nl = strchr(perr, '\n');
		if (nl)
			*nl = '\0';
		error_set(err, "'%s' is not valid JSON: %s", path, perr[0] ? perr : "parse error");
		goto out_free;
	}
	if (!YAJL_IS_OBJECT(root)) {
		error_set(err, "'%s' is not a JSON object", path);
		goto out_tree;
	}
	o = root;
	if (!field(o, "hidden_size") && !field(o, "n_embd")) {
		yajl_val t = field(o, "text_config");
		if (t && YAJL_IS_OBJECT(t))
			o = t;
	}
	const char *type = get_str(o, "model_type");
	if (!type)
		type = get_str(root, "model_type");
	if (!type) {
		error_set(err, "'%s' has no model_type: is it a transformers config.json?", path);
		goto out_tree;
	}
	memset(&m, 0, sizeof(m));
	if (pick_family(&m, type, err))
		goto out_tree;
	snprintf(m.model_type, sizeof(m.model_type), "%s", type);
	snprintf(m.name, sizeof(m.name), "%s", path);
	if (read_fields(&m, o, err)) {
		char tmp[GS_ERR_LEN];
		snprintf(tmp, sizeof(tmp), "%s", err ? err : "bad field");
		error_set(err, "'%s': %s", path, tmp);
		goto out_tree;
	}
	if (vram_model_check(&m, err)) {
		char tmp[GS_ERR_LEN];
		snprintf(tmp, sizeof(tmp), "%s", err ? err : "bad shape");
		error_set(err, "'%s': %s", path, tmp);
		goto out_tree;
	}
	m.source = NULL;
	*out = m;
	rc = 0;
out_tree:
	yajl_tree_free(root);
out_free:
	free(text);
	return rc;
}
