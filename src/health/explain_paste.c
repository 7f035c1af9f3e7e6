/*
 * explain_paste.c - what explain reads in the pasted text itself, before
 * the catalogue entry (explain_paste.h): here the figures of an
 * out-of-memory message (PyTorch's and JAX/XLA's, oom.h); the logs and
 * tables (NCCL watchdog lines, nvidia-smi, device-side assertions,
 * compute-sanitizer) are explain_logs.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health/explain_paste.h"
#include "health/oom.h"
#include "util/i18n.h"
#include "util/json_out.h"
#include "util/wrap.h"

#define COLS 100

/* ---- the numbers of a pasted "CUDA out of memory" (oom.h) ---- */

const char *explain_size_str(double b, char *buf, size_t cap)
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
				      explain_size_str(o->total, a, sizeof(a)));
	else if (o->have & OOM_TOTAL)
		n += (size_t)snprintf(line + n, sizeof(line) - n, _("the GPU (%s): "),
				      explain_size_str(o->total, a, sizeof(a)));
#define PART(bit, label, v)                                                                        \
	if ((o->have & (bit)) && n < sizeof(line) - 64)                                            \
	n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%s %s", parts++ ? _("; ") : "",       \
			      label, explain_size_str(v, a, sizeof(a)))
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
		    explain_size_str(o->request, a, sizeof(a)),
		    explain_size_str(o->total, b, sizeof(b)));
		break;
	case OOM_V_OVERSUBSCRIBED:
		snprintf(line, sizeof(line),
			 _("PyTorch holds %s, more than the GPU's %s: the driver spills to system "
			   "memory (Windows' shared GPU memory): very slow; make the job smaller"),
			 explain_size_str(o->alloc, a, sizeof(a)),
			 explain_size_str(o->total, b, sizeof(b)));
		break;
	case OOM_V_FREE_ENOUGH:
		snprintf(line, sizeof(line),
			 _("the GPU had %s free, more than the %s asked: not too little memory but "
			   "no block that size (another process allocating at the same moment, a "
			   "Windows WDDM limit, or a GPU in a bad state: check nvidia-smi)"),
			 explain_size_str(o->free, a, sizeof(a)),
			 explain_size_str(o->request, b, sizeof(b)));
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
		    explain_size_str(o->free, a, sizeof(a)),
		    explain_size_str(o->unalloc, b, sizeof(b)),
		    explain_size_str(o->request, c, sizeof(c)));
		break;
	case OOM_V_OTHERS:
		snprintf(line, sizeof(line),
			 _("other processes hold %s, more than the %s asked: stop them or use "
			   "another GPU (nvidia-smi --query-compute-apps=pid,used_memory "
			   "--format=csv)"),
			 explain_size_str(o->others, a, sizeof(a)),
			 explain_size_str(o->request, b, sizeof(b)));
		break;
	case OOM_V_NON_PYTORCH:
		snprintf(line, sizeof(line),
			 _("this process holds %s outside PyTorch's allocator (CUDA context, "
			   "cuBLAS/cuDNN workspaces, NCCL buffers, another library's memory), more "
			   "than the %s asked"),
			 explain_size_str(o->process - o->alloc - o->unalloc, a, sizeof(a)),
			 explain_size_str(o->request, b, sizeof(b)));
		break;
	case OOM_V_OUTSIDE:
		snprintf(line, sizeof(line),
			 _("%s of the GPU's %s is held outside PyTorch's allocator, by other "
			   "processes or by this one's CUDA context (a few hundred MiB) and other "
			   "libraries; the message does not say which: nvidia-smi "
			   "--query-compute-apps=pid,used_memory --format=csv shows who"),
			 explain_size_str(oom_outside(o), a, sizeof(a)),
			 explain_size_str(o->total, b, sizeof(b)));
		break;
	case OOM_V_ONE_TENSOR:
		snprintf(line, sizeof(line),
			 _("one allocation of %s (%.0f%% of the GPU) did not fit: a tensor that "
			   "large is usually a quadratic one (attention scores at a long sequence: "
			   "use SDPA or flash attention; a pairwise distance matrix) or a whole "
			   "dataset moved at once: find its shape at the line of the traceback"),
			 explain_size_str(o->request, a, sizeof(a)), 100.0 * o->request / o->total);
		break;
	case OOM_V_FULL:
		if (o->have & OOM_ALLOC)
			snprintf(
			    line, sizeof(line),
			    _("the GPU is full (%s free, PyTorch's tensors hold %s): a smaller "
			      "batch or sequence, activation checkpointing, mixed precision "
			      "(gpuscope vram MODEL shows what fits)"),
			    explain_size_str(o->free, a, sizeof(a)),
			    explain_size_str(o->alloc, b, sizeof(b)));
		else
			snprintf(line, sizeof(line),
				 _("the GPU is full (%s free): a smaller batch or sequence, "
				   "activation checkpointing, mixed precision (gpuscope vram MODEL "
				   "shows what fits)"),
				 explain_size_str(o->free, a, sizeof(a)));
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
			      label, explain_size_str(v, a, sizeof(a)))
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
				      explain_size_str(bf->size, a, sizeof(a)), bf->shape, bf->op,
				      *bf->where ? " (" : "", bf->where, *bf->where ? ")" : "");
	}
	if (x->n_buf)
		wrap_print(f, _("largest buffers: "), "  ", line, COLS);
	const char *tot = explain_size_str(x->total, b, sizeof(b));
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
		    explain_size_str(x->out, a, sizeof(a)), tot);
		break;
	case XLA_V_TEMPS:
		snprintf(line, sizeof(line),
			 _("temporaries take %s of the %s: activations kept for the backward pass "
			   "or large intermediates (the largest buffers above name them): "
			   "jax.checkpoint (remat) on the largest blocks, or a smaller batch"),
			 explain_size_str(x->temp, a, sizeof(a)), tot);
		break;
	case XLA_V_PARAMS:
		snprintf(line, sizeof(line),
			 _("the program's inputs take %s of the %s: the model's weights (and its "
			   "optimizer state, in training): bf16, sharding over several GPUs, or a "
			   "smaller model"),
			 explain_size_str(x->param, a, sizeof(a)), tot);
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

void explain_paste_text(FILE *f, const struct explain_result *r, const char *query)
{
	struct oom_numbers o;
	struct xla_oom x;
	if (oom_of(r, query, &o))
		print_oom(f, &o);
	else if (xla_of(r, query, &x))
		print_xla(f, &x);
	explain_logs_text(f, r, query);
}

void explain_paste_json(struct json_out *j, const struct explain_result *r, const char *query)
{
	struct oom_numbers o;
	if (oom_of(r, query, &o)) {
		double miss;
		enum oom_verdict v = oom_verdict(&o, &miss);
		json_key(j, "oom");
		json_begin_object(j);
		if (o.have & OOM_GPU)
			json_kv_int(j, "gpu", o.gpu);
#define NUM(bit, key, x)                                                                           \
	if (o.have & (bit))                                                                        \
	json_kv_int(j, key, (int64_t)((x) + 0.5))
		NUM(OOM_REQ, "request_bytes", o.request);
		NUM(OOM_TOTAL, "total_bytes", o.total);
		NUM(OOM_FREE, "free_bytes", o.free);
		NUM(OOM_PROC, "process_bytes", o.process);
		NUM(OOM_ALLOC, "pytorch_allocated_bytes", o.alloc);
		NUM(OOM_UNALLOC, "pytorch_unallocated_bytes", o.unalloc);
		NUM(OOM_OTHERS, "other_processes_bytes", o.others);
#undef NUM
		if (o.have & OOM_OTHERS)
			json_kv_bool(j, "process_guessed", (o.have & OOM_GUESSED) != 0);
		json_kv_string(j, "verdict", oom_verdict_id(v));
		if (miss > 0)
			json_kv_int(j, "short_bytes", (int64_t)(miss + 0.5));
		json_end_object(j);
	}
	explain_logs_json(j, r, query);
	struct xla_oom x;
	if (xla_of(r, query, &x)) {
		json_key(j, "xla_oom");
		json_begin_object(j);
#define NUM(bit, key, v)                                                                           \
	if (x.have & (bit))                                                                        \
	json_kv_int(j, key, (int64_t)((v) + 0.5))
		NUM(XLA_REQ, "request_bytes", x.request);
		NUM(XLA_TOTAL, "program_bytes", x.total);
		NUM(XLA_PARAM, "parameter_bytes", x.param);
		NUM(XLA_OUT, "output_bytes", x.out);
		NUM(XLA_TEMP, "temporary_bytes", x.temp);
		NUM(XLA_FRAG, "fragmentation_bytes", x.frag);
#undef NUM
		json_key(j, "peak_buffers");
		json_begin_array(j);
		for (int i = 0; i < x.n_buf; i++) {
			json_begin_object(j);
			json_kv_int(j, "bytes", (int64_t)(x.buf[i].size + 0.5));
			json_kv_string(j, "shape", x.buf[i].shape);
			json_kv_string(j, "op", x.buf[i].op);
			json_kv_string(j, "source", x.buf[i].where);
			json_end_object(j);
		}
		json_end_array(j);
		json_kv_string(j, "verdict", xla_verdict_id(xla_oom_verdict(&x)));
		json_end_object(j);
	}
}
