/*
 * nccl_log.c - PyTorch NCCL watchdog timeouts read from pasted text
 * (nccl_log.h).
 */
#include "health/nccl_log.h"

#include <stdlib.h>
#include <string.h>

/* A non-negative decimal at p (at most 18 digits); -1 when none. */
static long long num_at(const char *p, const char *end, const char **after)
{
	long long v = 0;
	int n = 0;
	while (p < end && *p == ' ')
		p++;
	while (p < end && *p >= '0' && *p <= '9' && n < 18) {
		v = v * 10 + (*p++ - '0');
		n++;
	}
	if (after)
		*after = p;
	return n ? v : -1;
}

/* The number after key within [p, end), or -1. */
static long long field(const char *p, const char *end, const char *key)
{
	size_t k = strlen(key);
	if (p >= end || (size_t)(end - p) < k)
		return -1;
	const char *q = memmem(p, (size_t)(end - p), key, k);
	return q ? num_at(q + k, end, NULL) : -1;
}

/* The rank a line is about: "[Rank 3]" (or "Rank 3]" inside a PG label)
 * searched back from at to the line's start. */
static int rank_before(const char *s, const char *at)
{
	const char *ls = at;
	while (ls > s && ls[-1] != '\n')
		ls--;
	int rank = -1;
	for (const char *p = ls; p < at; p++) {
		if (!strncmp(p, "Rank ", 5) && p + 5 < at) {
			const char *e;
			long long r = num_at(p + 5, at, &e);
			if (r >= 0 && r < NCCL_LOG_RANKS && e < at && *e == ']')
				rank = (int)r;
		} else if (!strncmp(p, "[rank", 5) && p + 5 < at && rank < 0) {
			const char *e;
			long long r = num_at(p + 5, at, &e);
			if (r >= 0 && r < NCCL_LOG_RANKS && e < at && *e == ']')
				rank = (int)r;
		}
	}
	return rank;
}

static struct nccl_wait *slot(struct nccl_log *l, int rank)
{
	for (int i = 0; i < l->n; i++)
		if (l->w[i].rank == rank)
			return &l->w[i];
	if (l->n >= NCCL_LOG_RANKS)
		return NULL;
	struct nccl_wait *w = &l->w[l->n++];
	memset(w, 0, sizeof(*w));
	w->rank = rank;
	w->seq = -1;
	w->numel_in = w->numel_out = w->enqueued = w->completed = -1;
	return w;
}

static int by_rank(const void *a, const void *b)
{
	return ((const struct nccl_wait *)a)->rank - ((const struct nccl_wait *)b)->rank;
}

int nccl_log_parse(const char *text, size_t len, struct nccl_log *l)
{
	const char *s = text, *end = text + len;
	memset(l, 0, sizeof(*l));
	l->max_rank = -1;
	for (const char *p = s; p < end;) {
		const char *q = memmem(p, (size_t)(end - p), "WorkNCCL(", 9);
		if (!q)
			break;
		const char *close = memchr(q, ')', (size_t)(end - q));
		/* the ')' of "Timeout(ms)": the closing one is after it */
		const char *tm = memmem(q, (size_t)(end - q), "Timeout(ms)=", 12);
		if (tm && tm < end - 12)
			close = memchr(tm + 12, ')', (size_t)(end - tm - 12));
		if (!close)
			break;
		/* the watchdog's words and the rank are on this line, or on the
		 * line above when the log wrapped before "WorkNCCL(" */
		const char *ls = q, *prev;
		while (ls > s && ls[-1] != '\n')
			ls--;
		for (prev = ls > s ? ls - 1 : ls; prev > s && prev[-1] != '\n';)
			prev--;
		const char *head =
		    memmem(ls, (size_t)(q - ls), "caught collective operation timeout", 35);
		int rank = rank_before(s, q);
		if (!head && ls > s) {
			head = memmem(prev, (size_t)(ls - prev),
				      "caught collective operation timeout", 35);
			if (head && rank < 0)
				rank = rank_before(s, ls - 1);
		}
		long long seq = field(q, close, "SeqNum=");
		const char *op = memmem(q, (size_t)(close - q), "OpType=", 7);
		if (head && rank >= 0 && seq >= 0 && op) {
			struct nccl_wait *w = slot(l, rank);
			if (w && (w->seq < 0 || seq < w->seq)) {
				size_t n = 0;
				for (const char *c = op + 7;
				     c < close && *c != ',' && *c != ')' && n < sizeof(w->op) - 1;
				     c++)
					w->op[n++] = *c;
				w->op[n] = '\0';
				w->seq = seq;
				w->numel_in = field(q, close, "NumelIn=");
				w->numel_out = field(q, close, "NumelOut=");
				w->timeout_ms = field(q, close + 1, "Timeout(ms)=");
				const char *nl = memchr(close, '\n', (size_t)(end - close));
				w->ran_ms = field(close, nl ? nl : end, "ran for ");
			}
			l->lines++;
			if (rank > l->max_rank)
				l->max_rank = rank;
		}
		p = close + 1;
	}
	/* "... Rank 1] Exception (either an error or timeout) detected by
	 * watchdog at work: 808, last enqueued NCCL work: 811, last completed
	 * NCCL work: 807." */
	for (const char *p = s; p < end;) {
		const char *q = memmem(p, (size_t)(end - p), "last enqueued NCCL work:", 24);
		if (!q)
			break;
		const char *nl = memchr(q, '\n', (size_t)(end - q));
		int rank = rank_before(s, q), found = 0;
		for (int i = 0; i < l->n && rank >= 0; i++)
			if (l->w[i].rank == rank) {
				l->w[i].enqueued =
				    field(q, nl ? nl : end, "last enqueued NCCL work:");
				l->w[i].completed =
				    field(q, nl ? nl : end, "last completed NCCL work:");
				found = 1;
			}
		if (rank >= 0 && !found) {
			l->excepted[rank] = 1;
			if (rank > l->max_rank)
				l->max_rank = rank;
		}
		p = q + 24;
	}
	qsort(l->w, (size_t)l->n, sizeof(l->w[0]), by_rank);
	return l->n > 0;
}

enum nccl_verdict nccl_log_verdict(const struct nccl_log *l, int *at)
{
	if (at)
		*at = 0;
	if (l->n == 0)
		return NCCL_V_NONE;
	const struct nccl_wait *a = &l->w[0];
	enum nccl_verdict v = NCCL_V_SAME;
	long long lo = a->seq;
	for (int i = 1; i < l->n; i++) {
		const struct nccl_wait *b = &l->w[i];
		if (b->seq == a->seq && strcmp(b->op, a->op)) {
			if (at)
				*at = i;
			return NCCL_V_OPS;
		}
		if (b->seq == a->seq && v == NCCL_V_SAME && a->numel_in >= 0 && b->numel_in >= 0 &&
		    b->numel_in != a->numel_in) {
			if (at)
				*at = i;
			v = NCCL_V_SIZES;
		}
	}
	if (v != NCCL_V_SAME)
		return v;
	for (int i = 1; i < l->n; i++)
		if (l->w[i].seq != a->seq) {
			v = NCCL_V_SEQS;
			if (l->w[i].seq < lo) {
				lo = l->w[i].seq;
				if (at)
					*at = i;
			}
		}
	return v;
}

const char *nccl_verdict_id(enum nccl_verdict v)
{
	static const char *const ids[] = {"none", "same_collective", "different_collectives",
					  "different_sizes", "different_seqnums"};
	return (unsigned)v < sizeof(ids) / sizeof(ids[0]) ? ids[v] : "none";
}

int nccl_log_missing(const struct nccl_log *l, int *out)
{
	int n = 0;
	for (int r = 0, i = 0; r <= l->max_rank && r < NCCL_LOG_RANKS; r++) {
		while (i < l->n && l->w[i].rank < r)
			i++;
		if (!(i < l->n && l->w[i].rank == r) && !l->excepted[r])
			out[n++] = r;
	}
	return n;
}
