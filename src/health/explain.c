/*
 * explain.c - the explain catalogue's accessors and its text and JSON forms
 * (see explain.h). Labels and prose are translated where printed; commands,
 * ids, mnemonics, sources and JSON keys never are.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health/explain.h"
#include "health/explain_catalogue.h"
#include "health/assert_text.h"
#include "health/nccl_log.h"
#include "health/oom.h"
#include "health/sanitizer_text.h"
#include "health/smi_text.h"
#include "health/hints.h"
#include "util/i18n.h"
#include "util/json_out.h"
#include "util/wrap.h"

#define COLS 100
#define MAX_ENTRIES 128

static const char *const layer_ids[EL_COUNT] = {
    "hardware", "driver", "runtime", "framework", "container", "windows", "desktop", "laptop",
};

static const char *const layer_names[EL_COUNT] = {
    N_("GPU hardware and health"),
    N_("driver and NVML"),
    N_("CUDA runtime"),
    N_("frameworks (PyTorch, JAX, TensorFlow, PaddlePaddle, NCCL, cuDNN, cuBLAS)"),
    N_("containers and Kubernetes"),
    N_("Windows"),
    N_("browsers, desktops and other accelerators"),
    N_("laptops and WSL"),
};

const char *explain_layer_name(enum explain_layer l)
{
	return l < EL_COUNT ? layer_names[l] : "";
}

const struct explain_entry *explain_entries(size_t *n)
{
	static struct explain_entry all[MAX_ENTRIES];
	static size_t count;
	if (!count) {
		size_t a = explain_sys_n < MAX_ENTRIES ? explain_sys_n : MAX_ENTRIES;
		size_t b = explain_env_n < MAX_ENTRIES - a ? explain_env_n : MAX_ENTRIES - a;
		memcpy(all, explain_sys, a * sizeof(all[0]));
		memcpy(all + a, explain_env, b * sizeof(all[0]));
		count = a + b;
	}
	*n = count;
	return all;
}

const struct explain_entry *explain_find_id(const char *id)
{
	size_t n;
	const struct explain_entry *e = explain_entries(&n);
	for (size_t i = 0; i < n; i++)
		if (strcmp(e[i].id, id) == 0)
			return &e[i];
	return NULL;
}

static const char *sev_label(enum severity s)
{
	return s == SEV_CRITICAL ? _("critical") : s == SEV_WARNING ? _("warning") : _("info");
}

static void print_list(FILE *f, const char *heading, const char *const *items)
{
	char num[16];
	if (!items[0])
		return;
	fprintf(f, "%s\n", heading);
	for (int i = 0; i < CAT_MAX && items[i]; i++) {
		snprintf(num, sizeof(num), "  %d. ", i + 1);
		wrap_print(f, num, "     ", _(items[i]), COLS);
	}
}

static void print_check(FILE *f, const struct cat_check *c)
{
	wrap_print(f, "  $ ", "    ", c->cmd, COLS);
	if (c->why)
		wrap_print(f, "      ", "      ", _(c->why), COLS);
}

static void print_body(FILE *f, const struct cat_text *t, const struct cat_check *gs)
{
	wrap_print(f, _("meaning: "), "  ", _(t->meaning), COLS);
	print_list(f, _("likely causes (most likely first):"), t->causes);
	if (t->checks[0].cmd) {
		fprintf(f, "%s\n", _("checks to run:"));
		for (int i = 0; i < CAT_MAX && t->checks[i].cmd; i++)
			print_check(f, &t->checks[i]);
	}
	print_list(f, _("what to do:"), t->fixes);
	if (gs && gs->cmd) {
		fprintf(f, "%s\n", _("gpuscope can help:"));
		print_check(f, gs);
	}
}

static void applies_list(unsigned a, char *buf, size_t cap)
{
	static const char *const names[] = {"A100", "H100", "B100", "GB200"};
	size_t used = 0;
	buf[0] = 0;
	for (int i = 0; i < 4; i++)
		if (a & (1u << i))
			used += (size_t)snprintf(buf + used, cap - used, "%s%s", used ? " " : "",
						 names[i]);
	if (!used)
		snprintf(buf, cap, "%s", _("none of A100, H100, B100, GB200"));
}

static const struct cat_check xid_gs = {"gpuscope doctor",
					N_("XIDs in the kernel log, ECC and remapped rows of every "
					   "GPU")};

static void print_xid(FILE *f, int code)
{
	const struct xid_info *x = xid_lookup(code);
	char head[160], applies[64], line[512];

	if (!x) {
		snprintf(head, sizeof(head), _("XID %d: not in gpuscope's catalogue"), code);
		wrap_print(f, "", "  ", head, COLS);
		wrap_print(f, "", "  ",
			   _("gpuscope carries every code of NVIDIA's Xid Catalog (XIDs 1-172); a "
			     "newer driver may log codes added since: look it up in NVIDIA's "
			     "catalogue (docs.nvidia.com/deploy/xid-errors)"),
			   COLS);
		return;
	}
	snprintf(head, sizeof(head), "XID %d: %s  [%s]", code, _(x->text->title),
		 sev_label(x->sev));
	wrap_print(f, "", "  ", head, COLS);
	applies_list(x->applies, applies, sizeof(applies));
	snprintf(line, sizeof(line), "%s, \"%s\"; %s %s", x->mnemonic, x->description,
		 _("applies to"), applies);
	wrap_print(f, _("NVIDIA: "), "  ", line, COLS);
	print_body(f, x->text, NULL);
	fprintf(f, "%s\n", _("NVIDIA's resolution buckets:"));
	snprintf(line, sizeof(line), _("%s (%s)"), xid_bucket_name(x->immediate),
		 _(xid_bucket_action(x->immediate)));
	wrap_print(f, _("  now: "), "    ", line, COLS);
	if (x->investigate != XB_NONE) {
		snprintf(line, sizeof(line), _("%s (%s)"), xid_bucket_name(x->investigate),
			 _(xid_bucket_action(x->investigate)));
		wrap_print(f, _("  if it repeats: "), "    ", line, COLS);
	}
	fprintf(f, "%s\n", _("gpuscope can help:"));
	print_check(f, &xid_gs);
	wrap_print(f, _("source: "), "  ", xid_catalogue_source, COLS);
}

static void print_entry(FILE *f, const struct explain_entry *e)
{
	char head[512];
	snprintf(head, sizeof(head), "%s: %s  [%s, %s]", e->id, _(e->text.title), sev_label(e->sev),
		 _(layer_names[e->layer]));
	wrap_print(f, "", "  ", head, COLS);
	print_body(f, &e->text, &e->gpuscope);
	wrap_print(f, _("source: "), "  ", e->source, COLS);
}

static void match_title(const struct explain_match *m, char *buf, size_t cap)
{
	if (m->entry) {
		snprintf(buf, cap, "%s (%s)", m->entry->id, _(m->entry->text.title));
		return;
	}
	const struct xid_info *x = xid_lookup(m->xid);
	snprintf(buf, cap, "XID %d (%s)", m->xid, x ? _(x->text->title) : _("not catalogued"));
}

/* ---- the numbers of a pasted "CUDA out of memory" (oom.h) ---- */

static const char *size_str(double b, char *buf, size_t cap)
{
	if (b >= 1073741824.0)
		snprintf(buf, cap, "%.2f GiB", b / 1073741824.0);
	else if (b >= 1048576.0)
		snprintf(buf, cap, "%.2f MiB", b / 1048576.0);
	else if (b >= 1024.0)
		snprintf(buf, cap, "%.2f KiB", b / 1024.0);
	else
		snprintf(buf, cap, "%.0f bytes", b);
	return buf;
}

/* Whether the query is an OOM message this explain can read numbers from:
 * the best match is cuda_oom and the text has the allocator's figures. */
static int oom_of(const struct explain_result *r, const char *query, struct oom_numbers *o)
{
	return query && r->n && r->m[0].entry && !strcmp(r->m[0].entry->id, "cuda_oom") &&
	       oom_parse(query, strlen(query), o);
}

static void print_oom(FILE *f, const struct oom_numbers *o)
{
	char line[1024], a[32], b[32], c[32];
	size_t n = 0;
	int parts = 0;
	if ((o->have & (OOM_TOTAL | OOM_GPU)) == (OOM_TOTAL | OOM_GPU))
		n += (size_t)snprintf(line + n, sizeof(line) - n, _("GPU %d (%s): "), o->gpu,
				      size_str(o->total, a, sizeof(a)));
	else if (o->have & OOM_TOTAL)
		n += (size_t)snprintf(line + n, sizeof(line) - n, _("the GPU (%s): "),
				      size_str(o->total, a, sizeof(a)));
#define PART(bit, label, v)                                                                        \
	if ((o->have & (bit)) && n < sizeof(line) - 64)                                            \
	n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%s %s", parts++ ? _("; ") : "",       \
			      label, size_str(v, a, sizeof(a)))
	PART(OOM_REQ, _("asked"), o->request);
	PART(OOM_FREE, C_("gpu memory", "free"), o->free);
	PART(OOM_ALLOC, _("PyTorch's tensors"), o->alloc);
	PART(OOM_UNALLOC, _("reserved by PyTorch, unused"), o->unalloc);
	if ((o->have & (OOM_PROC | OOM_ALLOC | OOM_UNALLOC)) ==
	    (OOM_PROC | OOM_ALLOC | OOM_UNALLOC)) {
		double own = o->process - o->alloc - o->unalloc;
		PART(OOM_PROC, _("the rest of this process (CUDA context, libraries)"),
		     own > 0 ? own : 0);
	}
	if (o->others > 0)
		PART(OOM_OTHERS, _("other processes"), o->others);
	if (!(o->have & (OOM_PROC | OOM_OTHERS)) &&
	    (o->have & (OOM_TOTAL | OOM_FREE | OOM_ALLOC | OOM_UNALLOC)) ==
		(OOM_TOTAL | OOM_FREE | OOM_ALLOC | OOM_UNALLOC))
		PART(OOM_TOTAL, _("outside PyTorch's allocator"), oom_outside(o));
#undef PART
	wrap_print(f, _("the message's numbers: "), "  ", line, COLS);
	switch (oom_verdict(o, NULL)) {
	case OOM_V_LARGER_THAN_GPU:
		snprintf(
		    line, sizeof(line),
		    _("one request of %s is larger than the whole GPU (%s): no setting makes it "
		      "fit; the tensor's shape is the problem (print the shapes at the line of "
		      "the traceback)"),
		    size_str(o->request, a, sizeof(a)), size_str(o->total, b, sizeof(b)));
		break;
	case OOM_V_OVERSUBSCRIBED:
		snprintf(line, sizeof(line),
			 _("PyTorch holds %s, more than the GPU's %s: the driver spills to system "
			   "memory (Windows' shared GPU memory): very slow; make the job smaller"),
			 size_str(o->alloc, a, sizeof(a)), size_str(o->total, b, sizeof(b)));
		break;
	case OOM_V_FREE_ENOUGH:
		snprintf(line, sizeof(line),
			 _("the GPU had %s free, more than the %s asked: not too little memory but "
			   "no block that size (another process allocating at the same moment, a "
			   "Windows WDDM limit, or a GPU in a bad state: check nvidia-smi)"),
			 size_str(o->free, a, sizeof(a)), size_str(o->request, b, sizeof(b)));
		break;
	case OOM_V_FRAGMENTED:
		snprintf(
		    line, sizeof(line),
		    o->have & OOM_BEFORE_2_1
			? _("fragmentation: the %s free and the %s PyTorch holds unused would "
			    "hold the %s asked, but not as one block: this PyTorch (before 2.1) "
			    "has no expandable segments; PYTORCH_CUDA_ALLOC_CONF="
			    "max_split_size_mb:128 keeps large blocks whole, or upgrade and set "
			    "expandable_segments:True")
			: _("fragmentation: the %s free and the %s PyTorch holds unused would "
			    "hold the %s asked, but not as one block: set "
			    "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"),
		    size_str(o->free, a, sizeof(a)), size_str(o->unalloc, b, sizeof(b)),
		    size_str(o->request, c, sizeof(c)));
		break;
	case OOM_V_OTHERS:
		snprintf(line, sizeof(line),
			 _("other processes hold %s, more than the %s asked: stop them or use "
			   "another GPU (nvidia-smi --query-compute-apps=pid,used_memory "
			   "--format=csv)"),
			 size_str(o->others, a, sizeof(a)), size_str(o->request, b, sizeof(b)));
		break;
	case OOM_V_NON_PYTORCH:
		snprintf(line, sizeof(line),
			 _("this process holds %s outside PyTorch's allocator (CUDA context, "
			   "cuBLAS/cuDNN workspaces, NCCL buffers, another library's memory), more "
			   "than the %s asked"),
			 size_str(o->process - o->alloc - o->unalloc, a, sizeof(a)),
			 size_str(o->request, b, sizeof(b)));
		break;
	case OOM_V_OUTSIDE:
		snprintf(line, sizeof(line),
			 _("%s of the GPU's %s is held outside PyTorch's allocator, by other "
			   "processes or by this one's CUDA context (a few hundred MiB) and other "
			   "libraries; the message does not say which: nvidia-smi "
			   "--query-compute-apps=pid,used_memory --format=csv shows who"),
			 size_str(oom_outside(o), a, sizeof(a)), size_str(o->total, b, sizeof(b)));
		break;
	case OOM_V_ONE_TENSOR:
		snprintf(line, sizeof(line),
			 _("one allocation of %s (%.0f%% of the GPU) did not fit: a tensor that "
			   "large is usually a quadratic one (attention scores at a long sequence: "
			   "use SDPA or flash attention; a pairwise distance matrix) or a whole "
			   "dataset moved at once: find its shape at the line of the traceback"),
			 size_str(o->request, a, sizeof(a)), 100.0 * o->request / o->total);
		break;
	case OOM_V_FULL:
		if (o->have & OOM_ALLOC)
			snprintf(
			    line, sizeof(line),
			    _("the GPU is full (%s free, PyTorch's tensors hold %s): a smaller "
			      "batch or sequence, activation checkpointing, mixed precision "
			      "(gpuscope vram MODEL shows what fits)"),
			    size_str(o->free, a, sizeof(a)), size_str(o->alloc, b, sizeof(b)));
		else
			snprintf(line, sizeof(line),
				 _("the GPU is full (%s free): a smaller batch or sequence, "
				   "activation checkpointing, mixed precision (gpuscope vram MODEL "
				   "shows what fits)"),
				 size_str(o->free, a, sizeof(a)));
		break;
	default:
		return;
	}
	wrap_print(f, _("what they say: "), "  ", line, COLS);
	if (o->have & OOM_GUESSED)
		wrap_print(
		    f, "  ", "  ",
		    _("(the message does not say which process is this one, as in a "
		      "container: the smallest listed that holds PyTorch's reserve was taken)"),
		    COLS);
	fputc('\n', f);
}

/* Whether the query is a JAX/XLA OOM message with figures. */
static int xla_of(const struct explain_result *r, const char *query, struct xla_oom *x)
{
	return query && r->n && r->m[0].entry && !strcmp(r->m[0].entry->id, "xla_oom") &&
	       xla_oom_parse(query, strlen(query), x);
}

static void print_xla(FILE *f, const struct xla_oom *x)
{
	char line[1024], a[32], b[32];
	size_t n = 0;
	int parts = 0;
#define PART(bit, label, v)                                                                        \
	if ((x->have & (bit)) && n < sizeof(line) - 64)                                            \
	n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%s %s", parts++ ? _("; ") : "",       \
			      label, size_str(v, a, sizeof(a)))
	PART(XLA_REQ, _("asked"), x->request);
	PART(XLA_TOTAL, _("the compiled program's peak"), x->total);
	PART(XLA_PARAM, _("its parameters"), x->param);
	PART(XLA_OUT, _("outputs"), x->out);
	PART(XLA_TEMP, _("temporaries"), x->temp);
	PART(XLA_FRAG, _("fragmentation"), x->frag);
#undef PART
	wrap_print(f, _("the message's numbers: "), "  ", line, COLS);
	n = 0;
	for (int i = 0; i < x->n_buf && n < sizeof(line) - 256; i++) {
		const struct xla_buffer *bf = &x->buf[i];
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%s %s %s%s%s%s", i ? "; " : "",
				      size_str(bf->size, a, sizeof(a)), bf->shape, bf->op,
				      *bf->where ? " (" : "", bf->where, *bf->where ? ")" : "");
	}
	if (x->n_buf)
		wrap_print(f, _("largest buffers: "), "  ", line, COLS);
	const char *tot = size_str(x->total, b, sizeof(b));
	switch (xla_oom_verdict(x)) {
	case XLA_V_ELSEWHERE:
		snprintf(
		    line, sizeof(line),
		    _("the program needs only %s at its peak: the GPU's memory is held "
		      "elsewhere: arrays still alive from earlier calls, or another process "
		      "(every JAX process preallocates 75%% of the GPU; nvidia-smi shows who)"),
		    tot);
		break;
	case XLA_V_OUTPUTS:
		snprintf(
		    line, sizeof(line),
		    _("its outputs take %s of the %s: if the function returns what it "
		      "replaces (parameters, optimizer state, a buffer carried between calls), "
		      "donate those inputs (jax.jit(..., donate_argnums=...)) so that the old "
		      "and the new copies do not both live; if they are results, a smaller "
		      "input"),
		    size_str(x->out, a, sizeof(a)), tot);
		break;
	case XLA_V_TEMPS:
		snprintf(line, sizeof(line),
			 _("temporaries take %s of the %s: activations kept for the backward pass "
			   "or large intermediates (the largest buffers above name them): "
			   "jax.checkpoint (remat) on the largest blocks, or a smaller batch"),
			 size_str(x->temp, a, sizeof(a)), tot);
		break;
	case XLA_V_PARAMS:
		snprintf(line, sizeof(line),
			 _("the program's inputs take %s of the %s: the model's weights (and its "
			   "optimizer state, in training): bf16, sharding over several GPUs, or a "
			   "smaller model"),
			 size_str(x->param, a, sizeof(a)), tot);
		break;
	case XLA_V_PROGRAM:
		snprintf(
		    line, sizeof(line),
		    _("the program needs %s at its peak, more than JAX could get: it may use "
		      "75%% of the GPU unless XLA_PYTHON_CLIENT_MEM_FRACTION says otherwise; a "
		      "smaller batch, or a larger GPU"),
		    tot);
		break;
	default:
		fputc('\n', f);
		return;
	}
	wrap_print(f, _("what they say: "), "  ", line, COLS);
	fputc('\n', f);
}

/* ---- pasted NCCL watchdog timeouts (nccl_log.h) ---- */

/* The query's watchdog lines when the best match is nccl_timeout; NULL
 * when none (free() the result). */
static struct nccl_log *nccl_of(const struct explain_result *r, const char *query)
{
	if (!query || !r->n || !r->m[0].entry || strcmp(r->m[0].entry->id, "nccl_timeout"))
		return NULL;
	struct nccl_log *l = malloc(sizeof(*l));
	if (l && nccl_log_parse(query, strlen(query), l))
		return l;
	free(l);
	return NULL;
}

/* "0-3, 5, 7": rank numbers r[0..n), ascending; runs of three or more
 * as a range */
static void rank_list(const int *r, int n, char *buf, size_t cap)
{
	size_t k = 0;
	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (k >= cap - 32) {
			snprintf(buf + k, cap - k, ", ...");
			return;
		}
		int j = i;
		while (j + 1 < n && r[j + 1] == r[j] + 1)
			j++;
		if (j > i + 1) {
			k += (size_t)snprintf(buf + k, cap - k, "%s%d-%d", i ? ", " : "", r[i],
					      r[j]);
			i = j;
		} else {
			k += (size_t)snprintf(buf + k, cap - k, "%s%d", i ? ", " : "", r[i]);
		}
	}
}

static int same_call(const struct nccl_wait *a, const struct nccl_wait *b)
{
	return a->seq == b->seq && !strcmp(a->op, b->op) && a->numel_in == b->numel_in;
}

static void print_nccl(FILE *f, const struct nccl_log *l)
{
	char line[2048], ranks[512], lead[128];
	int *idx = malloc(sizeof(int) * (size_t)l->n);
	char *seen = calloc((size_t)l->n, 1);
	if (!idx || !seen) {
		free(idx);
		free(seen);
		return;
	}
	/* one line per distinct call (SeqNum, OpType, size), its ranks */
	int groups = 0;
	for (int i = 0; i < l->n && groups < 6; i++) {
		if (seen[i])
			continue;
		int n = 0;
		for (int j = i; j < l->n; j++)
			if (!seen[j] && same_call(&l->w[i], &l->w[j])) {
				seen[j] = 1;
				idx[n++] = l->w[j].rank;
			}
		rank_list(idx, n, ranks, sizeof(ranks));
		const struct nccl_wait *w = &l->w[i];
		if (w->numel_in >= 0)
			snprintf(line, sizeof(line),
				 NG_("%s %s: SeqNum %lld, %s of %lld element",
				     "%s %s: SeqNum %lld, %s of %lld elements",
				     (unsigned long)w->numel_in),
				 n > 1 ? _("ranks") : _("rank"), ranks, w->seq, w->op, w->numel_in);
		else
			snprintf(line, sizeof(line), _("%s %s: SeqNum %lld, %s"),
				 n > 1 ? _("ranks") : _("rank"), ranks, w->seq, w->op);
		wrap_print(f, groups ? "  " : _("waiting: "), "    ", line, COLS);
		groups++;
	}
	/* ranks 0..max that are in no line */
	int missing = 0;
	char miss[512] = "";
	int *m = calloc((size_t)l->max_rank + 1, sizeof(int));
	if (m) {
		for (int r = 0, i = 0; r <= l->max_rank; r++) {
			while (i < l->n && l->w[i].rank < r)
				i++;
			if (!(i < l->n && l->w[i].rank == r) && !l->excepted[r])
				m[missing++] = r;
		}
		rank_list(m, missing, miss, sizeof(miss));
		free(m);
	}
	if (missing) {
		snprintf(line, sizeof(line),
			 _("in no line: %s %s (they did not time out, or their lines were not "
			   "pasted)"),
			 missing > 1 ? _("ranks") : _("rank"), miss);
		wrap_print(f, "  ", "    ", line, COLS);
	}
	int at;
	const struct nccl_wait *a = &l->w[0];
	enum nccl_verdict v = nccl_log_verdict(l, &at);
	const struct nccl_wait *b = &l->w[at];
	switch (v) {
	case NCCL_V_SAME:
		if (missing)
			snprintf(line, sizeof(line),
				 _("every rank that timed out waits in the same collective (SeqNum "
				   "%lld, "
				   "%s): if the ranks not in the text (%s) did not time out, they "
				   "are the "
				   "ones it waits for: look at their own logs first (a crash, an "
				   "out-of-memory), then at where they hang (py-spy dump --pid "
				   "PID): slow "
				   "data loading, rank-0-only work before the call"),
				 a->seq, a->op, miss);
		else
			snprintf(
			    line, sizeof(line),
			    _("every rank here waits in the same collective (SeqNum %lld, %s): if "
			      "the job has more ranks than these %d, the others are the ones it "
			      "waits "
			      "for (their own logs first); if all are here, every rank entered it "
			      "and NCCL itself hung: the network or a GPU (NCCL_DEBUG=INFO, XIDs "
			      "in "
			      "dmesg)"),
			    a->seq, a->op, l->n);
		break;
	case NCCL_V_OPS:
		snprintf(
		    line, sizeof(line),
		    _("a desync: at SeqNum %lld rank %d is in %s and rank %d in %s: the ranks' "
		      "code took different paths (a collective under if rank == 0, evaluation or "
		      "checkpointing on some ranks only, a data loader that gives ranks "
		      "different numbers of batches at an epoch's end); "
		      "TORCH_DISTRIBUTED_DEBUG=DETAIL names the mismatch"),
		    a->seq, a->rank, a->op, b->rank, b->op);
		break;
	case NCCL_V_SIZES:
		snprintf(line, sizeof(line),
			 _("a desync: at SeqNum %lld the ranks run %s on different sizes (rank %d: "
			   "%lld elements, rank %d: %lld): their tensors differ (parameters only "
			   "some ranks have, variable-length data): make the shapes equal (pad) "
			   "before the collective"),
			 a->seq, a->op, a->rank, a->numel_in, b->rank, b->numel_in);
		break;
	case NCCL_V_SEQS: {
		const struct nccl_wait *hi = a;
		for (int i = 0; i < l->n; i++)
			if (l->w[i].seq > hi->seq)
				hi = &l->w[i];
		snprintf(line, sizeof(line),
			 _("the ranks are at different SeqNums: rank %d at %lld, rank %d at %lld, "
			   "%lld collectives apart: one rank ran ahead or fell behind (a "
			   "rank-dependent number of steps or a skipped batch), or the lines come "
			   "from different process groups"),
			 b->rank, b->seq, hi->rank, hi->seq, hi->seq - b->seq);
		break;
	}
	default:
		free(idx);
		free(seen);
		return;
	}
	snprintf(lead, sizeof(lead), "%s", _("what they say: "));
	wrap_print(f, lead, "  ", line, COLS);
	if (v == NCCL_V_SAME && a->numel_in == 1)
		wrap_print(
		    f, "  ", "  ",
		    _("(a one-element collective is usually a loss, a metric or a flag reduced "
		      "across ranks, or a barrier: find that call in the step)"),
		    COLS);
	fputc('\n', f);
	free(idx);
	free(seen);
}

/* ---- failed device-side assertions (assert_text.h) ---- */

static void print_asserts(FILE *f, const struct assert_text *a)
{
	char line[1024];
	for (int i = 0; i < a->n; i++) {
		const struct assert_kind *k = &a->k[i];
		const struct assert_check *c = assert_check_of(k->known);
		size_t n = (size_t)snprintf(line, sizeof(line), "`%s`", k->expr);
		if (*k->func || *k->where)
			n += (size_t)snprintf(line + n, sizeof(line) - n, _(" in %s%s%s%s"),
					      k->func, *k->func && *k->where ? " (" : "", k->where,
					      *k->func && *k->where ? ")" : "");
		if (c)
			n += (size_t)snprintf(line + n, sizeof(line) - n, _(", PyTorch's %s"),
					      c->op);
		snprintf(line + n, sizeof(line) - n,
			 NG_(": %d failing thread in %d block",
			     ": %d failing threads in %d block(s)", (unsigned long)k->threads),
			 k->threads, k->blocks ? k->blocks : 1);
		wrap_print(f, i ? "  " : _("the failed check: "), "  ", line, COLS);
		if (c)
			wrap_print(f, _("what it says: "), "  ", _(c->meaning), COLS);
	}
	if (a->n && !assert_check_of(a->k[0].known))
		wrap_print(
		    f, _("what it says: "), "  ",
		    _("a check in that kernel failed; its condition names what was out of "
		      "range: rerun with CUDA_LAUNCH_BLOCKING=1 so the traceback points at the "
		      "call that launched it"),
		    COLS);
	fputc('\n', f);
}

/* ---- a pasted compute-sanitizer report (sanitizer_text.h) ---- */

/* What a group of sanitizer errors usually means (N_() text), NULL when
 * nothing beyond the kind can be said. */
static const char *san_meaning(const struct san_group *g)
{
	double d = g->distance, sz = g->size > 0 ? g->size : 4;
	if (strstr(g->kind, "Uninitialized"))
		return N_("read before anything wrote it: write every element first, or memset "
			  "the buffer");
	if (strstr(g->kind, "Race"))
		return N_("two threads touch the same shared memory with no barrier between them: "
			  "a missing __syncthreads()");
	if (strstr(g->kind, "Barrier"))
		return N_("__syncthreads() reached by only some threads of a block (inside a "
			  "branch): every thread must reach it");
	switch (g->at) {
	case SAN_W_AFTER:
		if (d >= 0 && d <= 4 * sz)
			return N_(
			    "just past the end of the buffer: the grid's last threads go one "
			    "element too far: a missing bounds check (if (i < n)), or <= for <");
		if (d >= 1073741824.0 || (g->alloc > 0 && d > 1024 * g->alloc))
			return N_("far past any allocation: a wrong pointer, or an index that "
				  "overflowed (a large offset computed in 32-bit int)");
		return N_("past the end of the buffer: the index runs beyond what was allocated "
			  "(a stride or a size for more elements than the buffer holds)");
	case SAN_W_BEFORE:
		return N_(
		    "before the start of the buffer: a negative index (i - 1 at i = 0, a halo "
		    "read without a bounds check)");
	case SAN_W_INSIDE:
		return N_("inside an allocation that is not valid now: freed memory (a use after "
			  "free), or memory not mapped yet; PyTorch's expandable segments can make "
			  "the sanitizer report this falsely");
	case SAN_W_MISALIGNED:
		return N_("an access at an address not aligned to its size: a wide load (float4, "
			  "int2) from a pointer offset by a few elements");
	case SAN_W_OOB:
		if (strstr(g->kind, "__shared__"))
			return N_(
			    "outside the shared array: it is smaller than the block uses (the "
			    "dynamic shared size given at launch, or a tile indexed past its "
			    "size)");
		return N_("in no allocation at all: a null, stale or host pointer given to the "
			  "kernel");
	default:
		return NULL;
	}
}

static void print_san(FILE *f, const struct san_text *t)
{
	char line[1024], b[32];
	for (int i = 0; i < t->n; i++) {
		const struct san_group *g = &t->g[i];
		size_t n = (size_t)snprintf(line, sizeof(line), "%s", g->kind);
		if (g->size > 0)
			n += (size_t)snprintf(line + n, sizeof(line) - n, _(" of %d bytes"),
					      g->size);
		if (*g->func)
			n += (size_t)snprintf(line + n, sizeof(line) - n, _(" in %s"), g->func);
		if (*g->where)
			n += (size_t)snprintf(line + n, sizeof(line) - n, " (%s)", g->where);
		n += (size_t)snprintf(line + n, sizeof(line) - n,
				      NG_(": %d error", ": %d errors", (unsigned long)g->count),
				      g->count);
		if (*g->thread && n < sizeof(line) - 96)
			n += (size_t)snprintf(line + n, sizeof(line) - n,
					      _(", the first by thread %s in block %s"), g->thread,
					      *g->block ? g->block : "?");
		if ((g->at == SAN_W_AFTER || g->at == SAN_W_BEFORE) && g->distance >= 0 &&
		    n < sizeof(line) - 96)
			n += (size_t)snprintf(line + n, sizeof(line) - n,
					      g->at == SAN_W_AFTER
						  ? _("; up to %s after an allocation")
						  : _("; up to %s before an allocation"),
					      size_str(g->distance, b, sizeof(b)));
		if (g->alloc >= 0 && (g->at == SAN_W_AFTER || g->at == SAN_W_BEFORE) &&
		    n < sizeof(line) - 64)
			snprintf(line + n, sizeof(line) - n, _(" of %s"),
				 size_str(g->alloc, b, sizeof(b)));
		wrap_print(f, i ? "  " : _("the sanitizer's errors: "), "    ", line, COLS);
		const char *m = san_meaning(g);
		if (m)
			wrap_print(f, "    ", "    ", _(m), COLS);
	}
	if (t->leaks)
		wrap_print(f, "  ", "    ",
			   _("leaks: device memory never freed (cudaFree missing at exit)"), COLS);
	if (t->summary > t->errors) {
		snprintf(line, sizeof(line),
			 _("(%d errors in the ERROR SUMMARY, %d of them in the text)"), t->summary,
			 t->errors);
		wrap_print(f, "  ", "    ", line, COLS);
	}
	fputc('\n', f);
}

/* ---- a pasted nvidia-smi table (smi_text.h) ---- */

/* The table in the query, whatever matched best; NULL when none (free()). */
static struct smi_text *smi_of(const char *query)
{
	struct smi_text *t = query ? malloc(sizeof(*t)) : NULL;
	if (t && smi_text_parse(query, strlen(query), t))
		return t;
	free(t);
	return NULL;
}

/* One GPU of the table as the monitor's sample, static facts and
 * processes (procs: the table's processes on that GPU). */
static void smi_sample(const struct smi_text *t, const struct smi_gpu *g, struct gpu_static *st,
		       struct gpu_sample *s, struct gpu_procs *p)
{
	memset(st, 0, sizeof(*st));
	memset(s, 0, sizeof(*s));
	memset(p, 0, sizeof(*p));
	if (g->util_pct >= 0)
		gpu_sample_set(s, GPU_M_GPU_UTIL, g->util_pct);
	if (g->mem_used_mib >= 0)
		gpu_sample_set(s, GPU_M_MEM_USED, g->mem_used_mib * 1048576.0);
	if (g->mem_total_mib > 0)
		gpu_sample_set(s, GPU_M_MEM_TOTAL, g->mem_total_mib * 1048576.0);
	if (g->temp_c >= 0)
		gpu_sample_set(s, GPU_M_TEMP, g->temp_c);
	if (g->power_w >= 0)
		gpu_sample_set(s, GPU_M_POWER, g->power_w);
	if (g->power_cap_w > 0)
		gpu_sample_set(s, GPU_M_POWER_LIMIT, g->power_cap_w);
	if (g->ecc_uncorr >= 0)
		gpu_sample_set(s, GPU_M_ECC_UNCORR, g->ecc_uncorr);
	if (!t->procs_listed) {
		/* no processes table pasted: memory beyond what an idle driver
		 * holds says some process is there */
		if (g->mem_used_mib >= 256) {
			p->valid = 1;
			p->total = 1;
		}
		return;
	}
	p->valid = 1;
	for (int i = 0; i < t->n_proc; i++)
		if (t->p[i].gpu == g->index) {
			if (p->n < GPU_MAX_PROCS) {
				struct gpu_proc *q = &p->p[p->n++];
				q->pid = (uint32_t)t->p[i].pid;
				if (t->p[i].mem_mib >= 0) {
					q->mem_bytes =
					    (unsigned long long)(t->p[i].mem_mib * 1048576.0);
					q->valid |= GPU_P_MEM;
				}
			}
			p->total++;
		}
}

#define SMI_NOTES (MON_MAX_HINTS + 3)

/* What one GPU's numbers say: the monitor's hints, then what a pasted
 * table can tell and the monitor would say otherwise (no SM activity in
 * it), ERR! cells, memory no listed process accounts for. */
static int smi_notes(const struct smi_text *t, const struct smi_gpu *g, struct gpu_procs *p,
		     char (*out)[MON_HINT_LEN])
{
	struct gpu_static st;
	struct gpu_sample s;
	smi_sample(t, g, &st, &s, p);
	int n = mon_hints(&st, &s, p, out, MON_MAX_HINTS);
	if (g->util_pct >= 80)
		snprintf(out[n++], MON_HINT_LEN,
			 _("GPU-Util %.0f%% is the share of time a kernel ran, not how much of the "
			   "GPU it used: one small kernel at a time reads 100%% (gpuscope monitor "
			   "shows SM activity beside it, gpuscope record the kernels)"),
			 g->util_pct);
	if (g->errs)
		snprintf(
		    out[n++], MON_HINT_LEN,
		    NG_("%d value reads ERR!: the driver could not read it, often a GPU in a "
			"bad state: look for XIDs (sudo dmesg | grep -i xid; gpuscope doctor)",
			"%d values read ERR!: the driver could not read them, often a GPU in a "
			"bad state: look for XIDs (sudo dmesg | grep -i xid; gpuscope doctor)",
			(unsigned long)g->errs),
		    g->errs);
	if (t->procs_listed && p->total == 0 && g->mem_used_mib >= 1024)
		snprintf(
		    out[n++], MON_HINT_LEN,
		    _("%.0f MiB in use and no process listed: in a container nvidia-smi cannot "
		      "see other containers' processes; on the host, a leftover process (sudo "
		      "fuser -v /dev/nvidia*)"),
		    g->mem_used_mib);
	return n;
}

static void print_smi(FILE *f, const struct smi_text *t)
{
	char line[1024], notes[SMI_NOTES][MON_HINT_LEN];
	struct gpu_procs *p = malloc(sizeof(*p));
	if (!p)
		return;
	for (int i = 0; i < t->n_gpu; i++) {
		const struct smi_gpu *g = &t->g[i];
		int nn = smi_notes(t, g, p, notes);
		size_t n = (size_t)snprintf(line, sizeof(line), "GPU %d %s:", g->index, g->name);
		if (g->util_pct >= 0)
			n += (size_t)snprintf(line + n, sizeof(line) - n, " GPU-Util %.0f%%;",
					      g->util_pct);
		if (g->mem_used_mib >= 0 && g->mem_total_mib > 0 && n < sizeof(line) - 64)
			n += (size_t)snprintf(line + n, sizeof(line) - n,
					      _(" memory %.0f of %.0f MiB (%.0f%%);"),
					      g->mem_used_mib, g->mem_total_mib,
					      100.0 * g->mem_used_mib / g->mem_total_mib);
		if (g->power_w >= 0 && g->power_cap_w > 0 && n < sizeof(line) - 64)
			n += (size_t)snprintf(line + n, sizeof(line) - n, " %.0f of %.0f W;",
					      g->power_w, g->power_cap_w);
		if (g->temp_c >= 0 && n < sizeof(line) - 64)
			n += (size_t)snprintf(line + n, sizeof(line) - n, " %.0f C;", g->temp_c);
		if (g->pstate >= 0 && n < sizeof(line) - 64)
			n += (size_t)snprintf(line + n, sizeof(line) - n, " P%d;", g->pstate);
		if (t->procs_listed && n < sizeof(line) - 64)
			n += (size_t)snprintf(line + n, sizeof(line) - n,
					      NG_(" %u process", " %u processes", p->total),
					      p->total);
		while (n > 0 && line[n - 1] == ';')
			line[--n] = '\0';
		wrap_print(f, "", "  ", line, COLS);
		for (int h = 0; h < nn; h++)
			wrap_print(f, "  - ", "    ", notes[h], COLS);
	}
	wrap_print(f, "", "  ",
		   _("(one snapshot: GPU-Util is the share of the last sample period in which any "
		     "kernel ran; over time: gpuscope monitor)"),
		   COLS);
	fputc('\n', f);
	free(p);
}

static void json_smi(struct json_out *j, const struct smi_text *t)
{
	char notes[SMI_NOTES][MON_HINT_LEN];
	struct gpu_procs *p = malloc(sizeof(*p));
	if (!p)
		return;
	json_key(j, "nvidia_smi");
	json_begin_object(j);
	json_kv_string(j, "driver", t->driver);
	json_kv_string(j, "cuda", t->cuda);
	json_key(j, "gpus");
	json_begin_array(j);
	for (int i = 0; i < t->n_gpu; i++) {
		const struct smi_gpu *g = &t->g[i];
		int nn = smi_notes(t, g, p, notes);
		json_begin_object(j);
		json_kv_int(j, "index", g->index);
		json_kv_string(j, "name", g->name);
#define NUM(key, v)                                                                                \
	if ((v) >= 0)                                                                              \
	json_kv_double(j, key, v)
		NUM("gpu_util_pct", g->util_pct);
		NUM("mem_used_mib", g->mem_used_mib);
		NUM("mem_total_mib", g->mem_total_mib);
		NUM("power_w", g->power_w);
		NUM("power_cap_w", g->power_cap_w);
		NUM("temp_c", g->temp_c);
		NUM("fan_pct", g->fan_pct);
		NUM("ecc_uncorrected", g->ecc_uncorr);
#undef NUM
		if (g->pstate >= 0)
			json_kv_int(j, "pstate", g->pstate);
		json_kv_int(j, "err_values", g->errs);
		json_key(j, "hints");
		json_begin_array(j);
		for (int h = 0; h < nn; h++)
			json_string(j, notes[h]);
		json_end_array(j);
		json_end_object(j);
	}
	json_end_array(j);
	if (t->procs_listed) {
		json_key(j, "processes");
		json_begin_array(j);
		for (int i = 0; i < t->n_proc; i++) {
			json_begin_object(j);
			json_kv_int(j, "gpu", t->p[i].gpu);
			json_kv_int(j, "pid", t->p[i].pid);
			json_kv_string(j, "type", t->p[i].type);
			json_kv_string(j, "name", t->p[i].name);
			if (t->p[i].mem_mib >= 0)
				json_kv_double(j, "mem_mib", t->p[i].mem_mib);
			json_end_object(j);
		}
		json_end_array(j);
	}
	json_end_object(j);
	free(p);
}

void explain_print_text(FILE *f, const struct explain_result *r, const char *query)
{
	char t[512];
	struct oom_numbers o;
	struct xla_oom x;
	if (oom_of(r, query, &o))
		print_oom(f, &o);
	else if (xla_of(r, query, &x))
		print_xla(f, &x);
	struct nccl_log *nl = nccl_of(r, query);
	if (nl)
		print_nccl(f, nl);
	free(nl);
	struct smi_text *sm = smi_of(query);
	if (sm)
		print_smi(f, sm);
	free(sm);
	struct assert_text as;
	if (query && r->n && r->m[0].entry && !strcmp(r->m[0].entry->id, "device_assert") &&
	    assert_text_parse(query, strlen(query), &as))
		print_asserts(f, &as);
	struct san_text sn;
	if (query && san_text_parse(query, strlen(query), &sn) && sn.errors)
		print_san(f, &sn);
	/* the best match in full; when it is an XID, every XID found with it too */
	int full = 0;
	while (full < r->n && (full == 0 || (!r->m[full].entry && !r->m[full - 1].entry))) {
		if (full)
			fputc('\n', f);
		if (r->m[full].entry)
			print_entry(f, r->m[full].entry);
		else
			print_xid(f, r->m[full].xid);
		full++;
	}
	if (full < r->n) {
		fprintf(f, "\n%s\n", _("also possible (gpuscope explain ID for the details):"));
		for (int i = full; i < r->n; i++) {
			match_title(&r->m[i], t, sizeof(t));
			wrap_print(f, "  - ", "    ", t, COLS);
		}
	}
}

static void json_strings(struct json_out *j, const char *key, const char *const *items)
{
	json_key(j, key);
	json_begin_array(j);
	for (int i = 0; i < CAT_MAX && items[i]; i++)
		json_string(j, _(items[i]));
	json_end_array(j);
}

static void json_check(struct json_out *j, const struct cat_check *c)
{
	json_begin_object(j);
	json_kv_string(j, "command", c->cmd);
	json_kv_string(j, "shows", c->why ? _(c->why) : "");
	json_end_object(j);
}

static void json_body(struct json_out *j, const struct cat_text *t, const struct cat_check *gs)
{
	json_kv_string(j, "title", _(t->title));
	json_kv_string(j, "meaning", _(t->meaning));
	json_strings(j, "causes", t->causes);
	json_key(j, "checks");
	json_begin_array(j);
	for (int i = 0; i < CAT_MAX && t->checks[i].cmd; i++)
		json_check(j, &t->checks[i]);
	json_end_array(j);
	json_strings(j, "fixes", t->fixes);
	json_key(j, "gpuscope");
	json_check(j, gs);
}

static void json_bucket(struct json_out *j, const char *key, enum xid_bucket b)
{
	json_key(j, key);
	json_begin_object(j);
	json_kv_string(j, "bucket", xid_bucket_name(b));
	json_kv_string(j, "action", _(xid_bucket_action(b)));
	json_end_object(j);
}

static void json_xid(struct json_out *j, int code, double score)
{
	const struct xid_info *x = xid_lookup(code);
	static const char *const names[] = {"A100", "H100", "B100", "GB200"};
	char id[32];
	snprintf(id, sizeof(id), "xid%d", code);
	json_begin_object(j);
	json_kv_string(j, "id", id);
	json_kv_string(j, "kind", "xid");
	json_kv_int(j, "xid", code);
	json_kv_bool(j, "catalogued", x != NULL);
	json_kv_double(j, "score", score);
	if (x) {
		json_kv_string(j, "severity", severity_name(x->sev));
		json_kv_string(j, "layer", layer_ids[EL_HARDWARE]);
		json_body(j, x->text, &xid_gs);
		json_key(j, "nvidia");
		json_begin_object(j);
		json_kv_string(j, "mnemonic", x->mnemonic);
		json_kv_string(j, "description", x->description);
		json_key(j, "applies_to");
		json_begin_array(j);
		for (int i = 0; i < 4; i++)
			if (x->applies & (1u << i))
				json_string(j, names[i]);
		json_end_array(j);
		json_bucket(j, "immediate", x->immediate);
		json_bucket(j, "investigatory", x->investigate);
		json_end_object(j);
	}
	json_kv_string(j, "source", xid_catalogue_source);
	json_end_object(j);
}

static void json_entry(struct json_out *j, const struct explain_entry *e, double score)
{
	json_begin_object(j);
	json_kv_string(j, "id", e->id);
	json_kv_string(j, "kind", "text");
	json_kv_double(j, "score", score);
	json_kv_string(j, "severity", severity_name(e->sev));
	json_kv_string(j, "layer", layer_ids[e->layer]);
	json_body(j, &e->text, &e->gpuscope);
	json_kv_string(j, "source", e->source);
	json_end_object(j);
}

void explain_print_json(FILE *f, const struct explain_result *r, const char *query)
{
	struct json_out j;
	json_out_init(&j, f, 1);
	json_begin_object(&j);
	json_kv_string(&j, "schema", "gpuscope.explain.v2");
	json_kv_int(&j, "query_bytes", (int64_t)strlen(query));
	struct oom_numbers o;
	if (oom_of(r, query, &o)) {
		double miss;
		enum oom_verdict v = oom_verdict(&o, &miss);
		json_key(&j, "oom");
		json_begin_object(&j);
		if (o.have & OOM_GPU)
			json_kv_int(&j, "gpu", o.gpu);
#define NUM(bit, key, x)                                                                           \
	if (o.have & (bit))                                                                        \
	json_kv_int(&j, key, (int64_t)((x) + 0.5))
		NUM(OOM_REQ, "request_bytes", o.request);
		NUM(OOM_TOTAL, "total_bytes", o.total);
		NUM(OOM_FREE, "free_bytes", o.free);
		NUM(OOM_PROC, "process_bytes", o.process);
		NUM(OOM_ALLOC, "pytorch_allocated_bytes", o.alloc);
		NUM(OOM_UNALLOC, "pytorch_unallocated_bytes", o.unalloc);
		NUM(OOM_OTHERS, "other_processes_bytes", o.others);
#undef NUM
		if (o.have & OOM_OTHERS)
			json_kv_bool(&j, "process_guessed", (o.have & OOM_GUESSED) != 0);
		json_kv_string(&j, "verdict", oom_verdict_id(v));
		if (miss > 0)
			json_kv_int(&j, "short_bytes", (int64_t)(miss + 0.5));
		json_end_object(&j);
	}
	struct smi_text *sm = smi_of(query);
	if (sm)
		json_smi(&j, sm);
	free(sm);
	struct assert_text as;
	if (r->n && r->m[0].entry && !strcmp(r->m[0].entry->id, "device_assert") &&
	    assert_text_parse(query, strlen(query), &as)) {
		json_key(&j, "device_asserts");
		json_begin_array(&j);
		for (int i = 0; i < as.n; i++) {
			const struct assert_check *c = assert_check_of(as.k[i].known);
			json_begin_object(&j);
			json_kv_string(&j, "assertion", as.k[i].expr);
			json_kv_string(&j, "where", as.k[i].where);
			json_kv_string(&j, "function", as.k[i].func);
			json_kv_int(&j, "threads", as.k[i].threads);
			json_kv_int(&j, "blocks", as.k[i].blocks);
			if (c) {
				json_kv_string(&j, "op", c->op);
				json_kv_string(&j, "meaning", _(c->meaning));
			}
			json_end_object(&j);
		}
		json_end_array(&j);
	}
	struct nccl_log *nl = nccl_of(r, query);
	if (nl) {
		int at;
		json_key(&j, "nccl_timeout");
		json_begin_object(&j);
		json_key(&j, "ranks");
		json_begin_array(&j);
		for (int i = 0; i < nl->n; i++) {
			const struct nccl_wait *w = &nl->w[i];
			json_begin_object(&j);
			json_kv_int(&j, "rank", w->rank);
			json_kv_int(&j, "seq", w->seq);
			json_kv_string(&j, "op", w->op);
#define OPT(key, v)                                                                                \
	if ((v) >= 0)                                                                              \
	json_kv_int(&j, key, v)
			OPT("numel_in", w->numel_in);
			OPT("numel_out", w->numel_out);
			OPT("timeout_ms", w->timeout_ms);
			OPT("ran_ms", w->ran_ms);
			OPT("last_enqueued", w->enqueued);
			OPT("last_completed", w->completed);
#undef OPT
			json_end_object(&j);
		}
		json_end_array(&j);
		json_key(&j, "ranks_in_no_line");
		json_begin_array(&j);
		for (int rk = 0, i = 0; rk <= nl->max_rank; rk++) {
			while (i < nl->n && nl->w[i].rank < rk)
				i++;
			if (!(i < nl->n && nl->w[i].rank == rk) && !nl->excepted[rk])
				json_int(&j, rk);
		}
		json_end_array(&j);
		json_kv_string(&j, "verdict", nccl_verdict_id(nccl_log_verdict(nl, &at)));
		json_end_object(&j);
		free(nl);
	}
	struct xla_oom x;
	if (xla_of(r, query, &x)) {
		json_key(&j, "xla_oom");
		json_begin_object(&j);
#define NUM(bit, key, v)                                                                           \
	if (x.have & (bit))                                                                        \
	json_kv_int(&j, key, (int64_t)((v) + 0.5))
		NUM(XLA_REQ, "request_bytes", x.request);
		NUM(XLA_TOTAL, "program_bytes", x.total);
		NUM(XLA_PARAM, "parameter_bytes", x.param);
		NUM(XLA_OUT, "output_bytes", x.out);
		NUM(XLA_TEMP, "temporary_bytes", x.temp);
		NUM(XLA_FRAG, "fragmentation_bytes", x.frag);
#undef NUM
		json_key(&j, "peak_buffers");
		json_begin_array(&j);
		for (int i = 0; i < x.n_buf; i++) {
			json_begin_object(&j);
			json_kv_int(&j, "bytes", (int64_t)(x.buf[i].size + 0.5));
			json_kv_string(&j, "shape", x.buf[i].shape);
			json_kv_string(&j, "op", x.buf[i].op);
			json_kv_string(&j, "source", x.buf[i].where);
			json_end_object(&j);
		}
		json_end_array(&j);
		json_kv_string(&j, "verdict", xla_verdict_id(xla_oom_verdict(&x)));
		json_end_object(&j);
	}
	json_key(&j, "matches");
	json_begin_array(&j);
	for (int i = 0; i < r->n; i++) {
		if (r->m[i].entry)
			json_entry(&j, r->m[i].entry, r->m[i].score);
		else
			json_xid(&j, r->m[i].xid, r->m[i].score);
	}
	json_end_array(&j);
	json_end_object(&j);
	fputc('\n', f);
}

void explain_print_list(FILE *f, int json)
{
	size_t n;
	int nx;
	const struct explain_entry *e = explain_entries(&n);
	const struct xid_info *x = xid_table(&nx);
	char line[512];

	if (json) {
		struct json_out j;
		json_out_init(&j, f, 1);
		json_begin_object(&j);
		json_kv_string(&j, "schema", "gpuscope.explain.v2");
		json_key(&j, "matches");
		json_begin_array(&j);
		for (int i = 0; i < nx; i++)
			json_xid(&j, x[i].code, 0);
		for (size_t i = 0; i < n; i++)
			json_entry(&j, &e[i], 0);
		json_end_array(&j);
		json_end_object(&j);
		fputc('\n', f);
		return;
	}
	for (int l = 0; l < EL_COUNT; l++) {
		fprintf(f, "%s:\n", _(layer_names[l]));
		for (size_t i = 0; i < n; i++) {
			if (e[i].layer != (enum explain_layer)l)
				continue;
			snprintf(line, sizeof(line), "%-24s %s", e[i].id, _(e[i].text.title));
			wrap_print(f, "  ", "                           ", line, COLS);
		}
		fputc('\n', f);
	}
	wrap_print(f, "", "", xid_catalogue_source, COLS);
	for (int i = 0; i < nx; i++) {
		const char *desc = strcmp(x[i].description, "Unused") ? x[i].description : "";
		snprintf(line, sizeof(line), "%3d  %-8s %s%s%s", x[i].code, sev_label(x[i].sev),
			 _(x[i].text->title), *desc ? " - " : "", desc);
		wrap_print(f, "  XID ", "                    ", line, COLS);
	}
}
