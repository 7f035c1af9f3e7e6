/*
 * explain_match.c - which catalogue entries a pasted text is about (see
 * explain.h for the contract).
 *
 * Tokens: the text is cut into ASCII words and numbers (lowercased; '_' '.'
 * '-' and every other punctuation mark separate) and runs of CJK characters
 * (full-width punctuation separates, full-width letters and digits count as
 * ASCII). A word token equals a signature token only when it is the same
 * word, so "bathroom" never matches "oom" nor "migrating" "mig"; a CJK run
 * contains a signature's CJK token anywhere (Chinese has no spaces).
 *
 * Score of an entry: a signature whose tokens appear consecutively scores the
 * sum of its tokens' weights, in a window of its length + PROX_SLACK in any
 * order PROX_FACTOR of that; the entry scores its best signature plus
 * EXTRA_FACTOR of each other one. A token's weight is ln(1 + N / df): N
 * signature groups (entries and XIDs), df those that use the token, so a
 * word every entry has ("error", "cuda") weighs little and a rare one
 * ("nvlddmkm") a lot. An entry needs MIN_SCORE; candidates under
 * KEEP_RATIO of the best are dropped (the best one wins clearly).
 * XIDs are found by number: "Xid (PCI:...): 79", "xid 79", "XID79", a bare
 * "79", and by their signatures and NVIDIA mnemonics; they come first.
 */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/vec.h"
#include "health/explain.h"
#include "util/error.h"

#define PROX_SLACK 4
#define PROX_FACTOR 0.5
#define EXTRA_FACTOR 0.25
#define MIN_SCORE 2.5
#define KEEP_RATIO 0.5
#define XID_SCORE 1000.0 /* a number named as an XID outranks any text */

/* Texts that name one XID without its number (data, next to the mnemonics). */
static const struct {
	int code;
	const char *sigs[5];
} xid_sigs[] = {
    {79, {"fallen off the bus", "gpu has fallen off the bus", "从总线上掉线", "掉卡", NULL}},
    {48, {"double bit ecc", "uncorrectable double bit", "dbe", NULL}},
    {63, {"new row marked for remapping", "new retired page", NULL}},
    {64, {"unable to retire page", "fatal error unable to retire page", NULL}},
    {94, {"contained ecc error", "contained memory error", NULL}},
    {95, {"uncontained ecc error", "uncontained memory error", NULL}},
    {13, {"graphics engine exception", "graphics exception", NULL}},
    {31, {"mmu fault", "fault_pde", "gpu memory page fault", NULL}},
    {43, {"gpu stopped processing", NULL}},
    {45, {"preemptive cleanup", "preemptive removal", NULL}},
    {74, {"nvlink error", NULL}},
    {92, {"single bit ecc error rate", "excessive sbe interrupts", NULL}},
    {109, {"context switch timeout", NULL}},
    {119, {"gsp rpc timeout", "timeout waiting for rpc from gsp", NULL}},
    {120, {"gsp error", NULL}},
    {154, {"gpu recovery action changed", "recovery action changed", NULL}},
    {54, {"auxiliary power is not connected", NULL}},
    {140, {"ecc unrecovered error", NULL}},
};

enum tk_kind { TK_WORD, TK_CJK };

struct tok {
	uint32_t off, len;
	unsigned char kind;
};

struct toks {
	char *buf; /* normalised text, tokens point into it */
	size_t blen, bcap;
	struct tok *v;
	size_t n, cap;
};

static void toks_release(struct toks *t)
{
	free(t->buf);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

static int toks_push(struct toks *t, size_t off, size_t len, int kind)
{
	struct tok *v = VEC_PUSH(t->v, t->n, t->cap);
	if (!v)
		return -1;
	v->off = (uint32_t)off;
	v->len = (uint32_t)len;
	v->kind = (unsigned char)kind;
	return 0;
}

static unsigned utf8(const unsigned char *s, size_t left, size_t *n)
{
	unsigned c = s[0];
	size_t k = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
	if (k > left || k == 1) {
		*n = 1;
		return c < 0x80 ? c : 0xfffd;
	}
	unsigned v = c & (0x7fu >> k);
	for (size_t i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80) {
			*n = 1;
			return 0xfffd;
		}
		v = (v << 6) | (s[i] & 0x3f);
	}
	*n = k;
	return v;
}

/* Punctuation and spaces outside ASCII: general punctuation, CJK symbols,
 * full-width punctuation. */
static int is_sep(unsigned c)
{
	return c == 0xfffd || (c >= 0x2000 && c <= 0x206f) || (c >= 0x3000 && c <= 0x303f) ||
	       (c >= 0xff00 && c <= 0xff0f) || (c >= 0xff1a && c <= 0xff20) ||
	       (c >= 0xff3b && c <= 0xff40) || (c >= 0xff5b && c <= 0xff65) || c == 0xa0 ||
	       c == 0xb7 || c == 0xd7;
}

/* Cuts s into tokens; 0, or -1 when out of memory. */
static int tokenize(struct toks *t, const char *s, size_t len)
{
	size_t i = 0, n, start = 0;
	int cur = -1; /* kind of the open token, -1 none */

	memset(t, 0, sizeof(*t));
	t->bcap = len + 1;
	t->buf = malloc(t->bcap);
	if (!t->buf)
		return -1;
	while (i < len) {
		unsigned c = utf8((const unsigned char *)s + i, len - i, &n);
		int kind;
		/* full-width ASCII letters and digits count as ASCII */
		if (c >= 0xff10 && c <= 0xff5a && !is_sep(c))
			c -= 0xfee0;
		if (c < 0x80)
			kind = isalnum((int)c) ? TK_WORD : -1;
		else
			kind = is_sep(c) ? -1 : TK_CJK;
		if (kind != cur && cur >= 0) {
			if (toks_push(t, start, t->blen - start, cur))
				return -1;
			cur = -1;
		}
		if (kind >= 0) {
			if (cur < 0) {
				start = t->blen;
				cur = kind;
			}
			if (c < 0x80) {
				t->buf[t->blen++] = (char)tolower((int)c);
			} else {
				memcpy(t->buf + t->blen, s + i, n);
				t->blen += n;
			}
		}
		i += n;
	}
	if (cur >= 0 && toks_push(t, start, t->blen - start, cur))
		return -1;
	t->buf[t->blen] = 0;
	return 0;
}

/* ---- the signature index: every signature tokenised once ---- */

struct sig {
	struct toks t;
	int group;     /* index into groups[] */
	double *w;     /* each token's weight */
	double weight; /* their sum */
};

struct group {
	const struct explain_entry *entry; /* NULL for an XID */
	int xid;
};

/* A distinct signature token and the groups using it. */
struct word {
	char *s;
	int df, last_group;
};

/* Signatures by their first word, sorted (binary search per query token). */
struct first {
	const char *s;
	size_t len;
	int sig;
};

struct explain_index {
	struct sig *sigs;
	size_t nsigs;
	struct group *groups;
	size_t ngroups;
	struct word *words;
	size_t nwords, capwords;
	struct first *firsts; /* word-first signatures */
	size_t nfirsts;
	int *cjk_first; /* signatures whose first token is CJK */
	size_t ncjk;
};

static int cmp_word(const void *a, const void *b)
{
	return strcmp(((const struct word *)a)->s, ((const struct word *)b)->s);
}

static struct word *find_word(const struct explain_index *x, const char *w, size_t len)
{
	char key[256];
	if (len >= sizeof(key))
		return NULL;
	memcpy(key, w, len);
	key[len] = 0;
	struct word k = {key, 0, 0};
	return bsearch(&k, x->words, x->nwords, sizeof(*x->words), cmp_word);
}

static int add_sig(struct explain_index *x, const char *text, int group)
{
	struct sig *s = &x->sigs[x->nsigs];
	if (tokenize(&s->t, text, strlen(text)))
		return -1;
	if (s->t.n == 0) {
		toks_release(&s->t);
		return 0;
	}
	s->group = group;
	x->nsigs++;
	for (size_t i = 0; i < s->t.n; i++) {
		if (s->t.v[i].len >= 256)
			continue;
		struct word *w = VEC_PUSH(x->words, x->nwords, x->capwords);
		if (!w)
			return -1;
		w->s = strndup(s->t.buf + s->t.v[i].off, s->t.v[i].len);
		if (!w->s) {
			x->nwords--;
			return -1;
		}
		w->last_group = group;
	}
	return 0;
}

/* Sorts the words, merges duplicates counting each group once, weighs every
 * signature token and indexes signatures by their first token. */
static int finish_index(struct explain_index *x)
{
	size_t n = 0;
	qsort(x->words, x->nwords, sizeof(*x->words), cmp_word);
	for (size_t i = 0; i < x->nwords; i++) {
		if (n && !strcmp(x->words[n - 1].s, x->words[i].s)) {
			free(x->words[i].s);
			continue;
		}
		x->words[n++] = x->words[i];
	}
	x->nwords = n;
	for (size_t k = 0; k < x->nsigs; k++) {
		const struct toks *t = &x->sigs[k].t;
		for (size_t i = 0; i < t->n; i++) {
			struct word *w = find_word(x, t->buf + t->v[i].off, t->v[i].len);
			if (w && (w->df == 0 || w->last_group != x->sigs[k].group)) {
				w->df++;
				w->last_group = x->sigs[k].group;
			}
		}
	}
	x->firsts = calloc(x->nsigs, sizeof(*x->firsts));
	x->cjk_first = calloc(x->nsigs, sizeof(*x->cjk_first));
	if (!x->firsts || !x->cjk_first)
		return -1;
	for (size_t k = 0; k < x->nsigs; k++) {
		struct sig *s = &x->sigs[k];
		s->w = calloc(s->t.n, sizeof(*s->w));
		if (!s->w)
			return -1;
		for (size_t i = 0; i < s->t.n; i++) {
			struct word *w = find_word(x, s->t.buf + s->t.v[i].off, s->t.v[i].len);
			s->w[i] = log(1.0 + (double)x->ngroups / (w && w->df ? w->df : 1));
			s->weight += s->w[i];
		}
		if (s->t.v[0].kind == TK_CJK)
			x->cjk_first[x->ncjk++] = (int)k;
		else
			x->firsts[x->nfirsts++] = (struct first){s->t.buf, s->t.v[0].len, (int)k};
	}
	return 0;
}

static int cmp_first(const void *a, const void *b)
{
	const struct first *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->s, y->s, n);
	return c ? c : x->len < y->len ? -1 : x->len > y->len ? 1 : 0;
}

static int build_index(struct explain_index *x)
{
	size_t ne = explain_n_entries(), nx = 0, cap;
	int nxid;
	const struct xid_info *xd = xid_table(&nxid);

	for (size_t i = 0; i < sizeof(xid_sigs) / sizeof(xid_sigs[0]); i++)
		for (int k = 0; xid_sigs[i].sigs[k]; k++)
			nx++;
	cap = (size_t)nxid + nx;
	for (size_t i = 0; i < ne; i++)
		for (int k = 0; k < EXPLAIN_MAX_SIGS && explain_entry(i)->sigs[k]; k++)
			cap++;
	x->sigs = calloc(cap, sizeof(*x->sigs));
	x->groups = calloc(ne + (size_t)nxid, sizeof(*x->groups));
	if (!x->sigs || !x->groups)
		return -1;
	for (size_t i = 0; i < ne; i++) {
		const struct explain_entry *e = explain_entry(i);
		x->groups[x->ngroups] = (struct group){e, -1};
		for (int k = 0; k < EXPLAIN_MAX_SIGS && e->sigs[k]; k++)
			if (add_sig(x, e->sigs[k], (int)x->ngroups))
				return -1;
		x->ngroups++;
	}
	for (int c = 0; c < nxid; c++) {
		x->groups[x->ngroups] = (struct group){NULL, xd[c].code};
		if (add_sig(x, xd[c].mnemonic, (int)x->ngroups))
			return -1;
		for (size_t i = 0; i < sizeof(xid_sigs) / sizeof(xid_sigs[0]); i++)
			for (int k = 0; xid_sigs[i].code == xd[c].code && xid_sigs[i].sigs[k]; k++)
				if (add_sig(x, xid_sigs[i].sigs[k], (int)x->ngroups))
					return -1;
		x->ngroups++;
	}
	if (finish_index(x))
		return -1;
	qsort(x->firsts, x->nfirsts, sizeof(*x->firsts), cmp_first);
	return 0;
}

/* ---- matching ---- */

static int tok_eq(const struct toks *q, size_t qi, const struct toks *s, size_t si)
{
	const struct tok *a = &q->v[qi], *b = &s->v[si];
	if (a->kind != b->kind)
		return 0;
	if (a->kind == TK_WORD)
		return a->len == b->len && !memcmp(q->buf + a->off, s->buf + b->off, a->len);
	/* a CJK run contains the signature's CJK token */
	if (b->len > a->len)
		return 0;
	for (uint32_t i = 0; i + b->len <= a->len; i++)
		if (!memcmp(q->buf + a->off + i, s->buf + b->off, b->len))
			return 1;
	return 0;
}

/* The score of signature sg starting at query token i (0 when it does not match). */
static double sig_at(const struct toks *q, size_t i, const struct sig *sg)
{
	const struct toks *s = &sg->t;
	size_t k = s->n, j = 1;

	while (j < k && i + j < q->n && tok_eq(q, i + j, s, j))
		j++;
	if (j == k)
		return sg->weight;
	/* every token within a window around this start, in any order */
	size_t lo = i >= PROX_SLACK ? i - PROX_SLACK : 0, hi = i + k + PROX_SLACK;
	for (size_t m = 1; m < k; m++) {
		int hit = 0;
		for (size_t p = lo; p < hi && p < q->n && !hit; p++)
			hit = p != i && tok_eq(q, p, s, m);
		if (!hit)
			return 0;
	}
	return sg->weight * PROX_FACTOR;
}

/* Best score of every signature over the whole query into best[nsigs]. */
static void score_sigs(const struct explain_index *x, const struct toks *q, double *best)
{
	for (size_t i = 0; i < q->n; i++) {
		const struct tok *t = &q->v[i];
		if (t->kind == TK_WORD) {
			struct first key = {q->buf + t->off, t->len, 0};
			struct first *f =
			    bsearch(&key, x->firsts, x->nfirsts, sizeof(*f), cmp_first);
			if (!f)
				continue;
			while (f > x->firsts && !cmp_first(f - 1, &key))
				f--;
			for (; f < x->firsts + x->nfirsts && !cmp_first(f, &key); f++) {
				double s = sig_at(q, i, &x->sigs[f->sig]);
				if (s > best[f->sig])
					best[f->sig] = s;
			}
			continue;
		}
		for (size_t c = 0; c < x->ncjk; c++) {
			const struct sig *sg = &x->sigs[x->cjk_first[c]];
			if (!tok_eq(q, i, &sg->t, 0))
				continue;
			double s = sig_at(q, i, sg);
			if (s > best[x->cjk_first[c]])
				best[x->cjk_first[c]] = s;
		}
	}
}

/* Adds or merges a match into r; keeps r ordered as found. */
static void add_match(struct explain_result *r, const struct explain_entry *e, int xid,
		      double score)
{
	for (int i = 0; i < r->n; i++) {
		if (r->m[i].entry == e && r->m[i].xid == xid) {
			double hi = r->m[i].score > score ? r->m[i].score : score;
			double lo = r->m[i].score > score ? score : r->m[i].score;
			r->m[i].score = hi + EXTRA_FACTOR * lo;
			return;
		}
	}
	if (r->n < EXPLAIN_MAX_MATCHES)
		r->m[r->n++] = (struct explain_match){e, xid, score};
}

/* XID numbers named in the raw text, in order: "xid" then "(...)" and ":" or
 * "error"/"code"/"#"/"=", then the number. */
static void find_xid_numbers(const char *s, size_t len, struct explain_result *r)
{
	for (size_t i = 0; i + 3 < len; i++) {
		if (strncasecmp(s + i, "xid", 3) || (i && isalnum((unsigned char)s[i - 1])))
			continue;
		size_t p = i + 3;
		for (int hops = 0; hops < 4 && p < len; hops++) {
			while (p < len && strchr(" \t:=#_-", s[p]))
				p++;
			if (p < len && s[p] == '(') {
				const char *close = memchr(s + p, ')', len - p < 96 ? len - p : 96);
				if (!close)
					break;
				p = (size_t)(close - s) + 1;
				continue;
			}
			if (p + 5 <= len && !strncasecmp(s + p, "error", 5)) {
				p += 5 + (p + 5 < len && (s[p + 5] == 's' || s[p + 5] == 'S'));
				continue;
			}
			if (p + 4 <= len && !strncasecmp(s + p, "code", 4)) {
				p += 4;
				continue;
			}
			break;
		}
		if (p >= len || !isdigit((unsigned char)s[p]))
			continue;
		if (p >= i + 5 && s[p - 1] == '-' && strchr(" \t:=#(", s[p - 2]))
			continue; /* "Xid -1": a negative number is no code */
		long v = 0;
		size_t d = p;
		while (d < len && isdigit((unsigned char)s[d]) && v < 1000000)
			v = v * 10 + (s[d++] - '0');
		if (d < len && isalpha((unsigned char)s[d]))
			continue; /* "xid 4gb" is not a code */
		if (v > 0 && v < 100000) {
			add_match(r, NULL, (int)v, XID_SCORE);
			r->xid_mentions++;
		}
		i = d - 1;
	}
}

/* 1 when the query is exactly id (spaces around it allowed). */
static int is_id_query(const char *s, size_t len, const char *id)
{
	size_t a = 0, b = len, n = strlen(id);
	while (a < b && isspace((unsigned char)s[a]))
		a++;
	while (b > a && isspace((unsigned char)s[b - 1]))
		b--;
	return b - a == n && !strncasecmp(s + a, id, n);
}

/* A query that is only numbers ("79", "79 48", "79, 48") names those XIDs:
 * adds each; 0 when the query is anything else. */
static int bare_numbers(const char *s, size_t len, struct explain_result *r)
{
	int codes[16], n = 0;
	size_t i = 0;
	for (;;) {
		while (i < len && (isspace((unsigned char)s[i]) || s[i] == ','))
			i++;
		if (i == len)
			break;
		long v = 0;
		size_t d = i;
		while (d < len && isdigit((unsigned char)s[d]) && d - i < 6)
			v = v * 10 + (s[d++] - '0');
		if (d == i || (d < len && !isspace((unsigned char)s[d]) && s[d] != ',') ||
		    n == (int)(sizeof(codes) / sizeof(codes[0])))
			return 0;
		if (v > 0)
			codes[n++] = (int)v;
		i = d;
	}
	for (int k = 0; k < n; k++) {
		add_match(r, NULL, codes[k], XID_SCORE);
		r->xid_mentions++;
	}
	return n;
}

static int cmp_score(const void *a, const void *b)
{
	const struct explain_match *x = a, *y = b;
	return x->score < y->score ? 1 : x->score > y->score ? -1 : 0;
}

struct explain_index *explain_index_new(char *err)
{
	struct explain_index *x = calloc(1, sizeof(*x));
	if (!x || build_index(x) < 0) {
		explain_index_free(x);
		error_set(err, "out of memory");
		return NULL;
	}
	return x;
}

void explain_index_free(struct explain_index *x)
{
	if (!x)
		return;
	for (size_t k = 0; k < x->nsigs; k++) {
		toks_release(&x->sigs[k].t);
		free(x->sigs[k].w);
	}
	for (size_t i = 0; i < x->nwords; i++)
		free(x->words[i].s);
	free(x->sigs);
	free(x->groups);
	free(x->words);
	free(x->firsts);
	free(x->cjk_first);
	free(x);
}

int explain_match(const char *query, size_t len, struct explain_result *r, char *err)
{
	memset(r, 0, sizeof(*r));
	if (len > EXPLAIN_MAX_QUERY)
		return explain_match_in(NULL, query, len, r, err);
	struct explain_index *x = explain_index_new(err);
	if (!x)
		return -1;
	int rc = explain_match_in(x, query, len, r, err);
	explain_index_free(x);
	return rc;
}

int explain_match_in(const struct explain_index *x, const char *query, size_t len,
		     struct explain_result *r, char *err)
{
	struct toks q;
	struct explain_match text[EXPLAIN_MAX_MATCHES * 4];
	int ntext = 0;

	memset(r, 0, sizeof(*r));
	r->query_bytes = len;
	/* (standard input is read only just past the limit: its size is unknown) */
	if (len > EXPLAIN_MAX_QUERY)
		return error_set(err, "the text is more than %u MiB; explain reads at most %u MiB",
				 EXPLAIN_MAX_QUERY >> 20, EXPLAIN_MAX_QUERY >> 20);
	if (!x)
		return error_set(err, "no catalogue index");
	if (tokenize(&q, query, len)) {
		toks_release(&q);
		return error_set(err, "out of memory");
	}
	r->tokens = (long)q.n;
	if (q.n == 0) {
		toks_release(&q);
		return error_set(err, "explain needs an XID number or an error text");
	}
	(void)bare_numbers(query, len, r);
	find_xid_numbers(query, len, r);

	double *sbest = calloc(x->nsigs ? x->nsigs : 1, sizeof(*sbest));
	if (!sbest) {
		toks_release(&q);
		return error_set(err, "out of memory");
	}
	score_sigs(x, &q, sbest);
	/* every group's score: its best signature plus a share of the others */
	double *gbest = calloc(x->ngroups, sizeof(*gbest)), *grest;
	grest = calloc(x->ngroups, sizeof(*grest));
	if (!gbest || !grest) {
		free(gbest);
		free(grest);
		free(sbest);
		toks_release(&q);
		return error_set(err, "out of memory");
	}
	for (size_t k = 0; k < x->nsigs; k++) {
		int g = x->sigs[k].group;
		double s = sbest[k];
		if (s > gbest[g]) {
			grest[g] += gbest[g];
			gbest[g] = s;
		} else {
			grest[g] += s;
		}
	}
	for (size_t g = 0; g < x->ngroups; g++) {
		const struct group *gr = &x->groups[g];
		double best = gbest[g];
		/* the entry's own id, typed alone ("pcie_degraded"), is a perfect hit */
		if (gr->entry && is_id_query(query, len, gr->entry->id))
			best += XID_SCORE;
		double score = best + EXTRA_FACTOR * grest[g];
		if (score < MIN_SCORE)
			continue;
		if (gr->entry && r->xid_mentions && !strcmp(gr->entry->id, "xid"))
			continue; /* a numbered XID says more than "what an XID is" */
		if (!gr->entry) {
			add_match(r, NULL, gr->xid, score);
			continue;
		}
		if (ntext < (int)(sizeof(text) / sizeof(text[0])))
			text[ntext++] = (struct explain_match){gr->entry, -1, score};
	}
	free(gbest);
	free(grest);
	free(sbest);
	toks_release(&q);

	/* XIDs first (in the order found), then the text entries near the best */
	qsort(text, (size_t)ntext, sizeof(text[0]), cmp_score);
	for (int i = 0; i < ntext && r->n < EXPLAIN_MAX_MATCHES; i++)
		if (text[i].score >= KEEP_RATIO * text[0].score)
			r->m[r->n++] = text[i];
	return 0;
}
