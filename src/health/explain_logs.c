/*
 * explain_logs.c - explain's readings of pasted logs and tables
 * (explain_paste.h): NCCL watchdog timeouts (nccl_log.h), an nvidia-smi
 * table with the reading hints of its numbers (smi_text.h, hints.h),
 * failed device-side assertions (assert_text.h) and a compute-sanitizer
 * report (sanitizer_text.h), in text and in JSON.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health/assert_text.h"
#include "health/explain_paste.h"
#include "health/hints.h"
#include "health/nccl_log.h"
#include "health/sanitizer_text.h"
#include "health/smi_text.h"
#include "util/i18n.h"
#include "util/json_out.h"
#include "util/wrap.h"

#define COLS 100

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
	int *m = malloc(sizeof(int) * NCCL_LOG_RANKS);
	if (m) {
		missing = nccl_log_missing(l, m);
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
					      explain_size_str(g->distance, b, sizeof(b)));
		if (g->alloc >= 0 && (g->at == SAN_W_AFTER || g->at == SAN_W_BEFORE) &&
		    n < sizeof(line) - 64)
			snprintf(line + n, sizeof(line) - n, _(" of %s"),
				 explain_size_str(g->alloc, b, sizeof(b)));
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

void explain_logs_text(FILE *f, const struct explain_result *r, const char *query)
{
	struct nccl_log *nl = nccl_of(r, query);
	if (nl)
		print_nccl(f, nl);
	free(nl);
	struct smi_text *sm = smi_of(query);
	if (sm)
		print_smi(f, sm);
	free(sm);
	explain_vtext_text(f, query);
	struct assert_text as;
	if (query && r->n && r->m[0].entry && !strcmp(r->m[0].entry->id, "device_assert") &&
	    assert_text_parse(query, strlen(query), &as))
		print_asserts(f, &as);
	struct san_text sn;
	if (query && san_text_parse(query, strlen(query), &sn) && sn.errors)
		print_san(f, &sn);
}

void explain_logs_json(struct json_out *j, const struct explain_result *r, const char *query)
{
	struct smi_text *sm = smi_of(query);
	if (sm)
		json_smi(j, sm);
	free(sm);
	explain_vtext_json(j, query);
	struct assert_text as;
	if (r->n && r->m[0].entry && !strcmp(r->m[0].entry->id, "device_assert") &&
	    assert_text_parse(query, strlen(query), &as)) {
		json_key(j, "device_asserts");
		json_begin_array(j);
		for (int i = 0; i < as.n; i++) {
			const struct assert_check *c = assert_check_of(as.k[i].known);
			json_begin_object(j);
			json_kv_string(j, "assertion", as.k[i].expr);
			json_kv_string(j, "where", as.k[i].where);
			json_kv_string(j, "function", as.k[i].func);
			json_kv_int(j, "threads", as.k[i].threads);
			json_kv_int(j, "blocks", as.k[i].blocks);
			if (c) {
				json_kv_string(j, "op", c->op);
				json_kv_string(j, "meaning", _(c->meaning));
			}
			json_end_object(j);
		}
		json_end_array(j);
	}
	struct nccl_log *nl = nccl_of(r, query);
	if (nl) {
		int at;
		json_key(j, "nccl_timeout");
		json_begin_object(j);
		json_key(j, "ranks");
		json_begin_array(j);
		for (int i = 0; i < nl->n; i++) {
			const struct nccl_wait *w = &nl->w[i];
			json_begin_object(j);
			json_kv_int(j, "rank", w->rank);
			json_kv_int(j, "seq", w->seq);
			json_kv_string(j, "op", w->op);
#define OPT(key, v)                                                                                \
	if ((v) >= 0)                                                                              \
	json_kv_int(j, key, v)
			OPT("numel_in", w->numel_in);
			OPT("numel_out", w->numel_out);
			OPT("timeout_ms", w->timeout_ms);
			OPT("ran_ms", w->ran_ms);
			OPT("last_enqueued", w->enqueued);
			OPT("last_completed", w->completed);
#undef OPT
			json_end_object(j);
		}
		json_end_array(j);
		json_key(j, "ranks_in_no_line");
		json_begin_array(j);
		int *m = malloc(sizeof(int) * NCCL_LOG_RANKS);
		int nm = m ? nccl_log_missing(nl, m) : 0;
		for (int i = 0; i < nm; i++)
			json_int(j, m[i]);
		free(m);
		json_end_array(j);
		json_kv_string(j, "verdict", nccl_verdict_id(nccl_log_verdict(nl, &at)));
		json_end_object(j);
		free(nl);
	}
}
