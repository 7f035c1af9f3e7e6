/*
 * nccl_log.h - the figures of pasted PyTorch NCCL watchdog timeouts, one
 * line per rank that timed out (explain prints what they show above the
 * nccl_timeout entry):
 *   [rank3]:[E626 06:24:44.9 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog
 *   caught collective operation timeout: WorkNCCL(SeqNum=808,
 *   OpType=ALLREDUCE, NumelIn=9801523, NumelOut=9801523, Timeout(ms)=600000)
 *   ran for 600020 milliseconds before timing out.
 * (older PyTorch leaves NumelIn/NumelOut out) and, when present,
 *   [PG ID 0 PG GUID 0(default_pg) Rank 1] Exception (either an error or
 *   timeout) detected by watchdog at work: 808, last enqueued NCCL work:
 *   811, last completed NCCL work: 807.
 *
 * SeqNum counts the collectives of one process group in the order each
 * rank issued them, so the same SeqNum on two ranks is meant to be the same
 * call: a different OpType or size there means the ranks' code took
 * different paths (a desync); a different SeqNum, that they are that many
 * collectives apart (or in different groups). Ranks that appear in no line
 * did not time out: they are in another collective, or not in one at all.
 */
#ifndef GPUSCOPE_NCCL_LOG_H
#define GPUSCOPE_NCCL_LOG_H

#include <stddef.h>

#define NCCL_LOG_RANKS 1024

struct nccl_wait {
	int rank;
	long long seq;	     /* the lowest SeqNum this rank reported */
	char op[32];	     /* ALLREDUCE, _REDUCE_SCATTER_BASE, BROADCAST... */
	long long numel_in;  /* -1 when not in the line */
	long long numel_out; /* -1 when not in the line */
	long long timeout_ms, ran_ms;
	long long enqueued, completed; /* -1 when no "Exception" line */
};

enum nccl_verdict {
	NCCL_V_NONE = 0,
	NCCL_V_SAME,  /* every rank that timed out waits in the same collective */
	NCCL_V_OPS,   /* different collectives at one SeqNum: a desync */
	NCCL_V_SIZES, /* the same collective with different sizes */
	NCCL_V_SEQS,  /* ranks at different SeqNums */
};

struct nccl_log {
	int n;	      /* ranks that timed out */
	int lines;    /* watchdog lines read (a rank may report several) */
	int max_rank; /* the highest rank named */
	/* ranks with only an "Exception ... detected by watchdog" line (its
	 * watchdog line not pasted): they timed out too */
	unsigned char excepted[NCCL_LOG_RANKS];
	struct nccl_wait w[NCCL_LOG_RANKS]; /* by rank, ascending */
};

/* Reads every watchdog line of text (len bytes). 1 when at least one was
 * found. */
int nccl_log_parse(const char *text, size_t len, struct nccl_log *l);

/* What the lines show; at (may be NULL) gets the index in l->w of a rank
 * the verdict is about: for OPS/SIZES the first rank whose call differs
 * from rank l->w[0]'s at the same SeqNum, for SEQS the rank furthest
 * behind. */
enum nccl_verdict nccl_log_verdict(const struct nccl_log *l, int *at);
const char *nccl_verdict_id(enum nccl_verdict v);

/* The ranks 0..l->max_rank in no line (neither a watchdog nor an
 * Exception line), ascending, into out (NCCL_LOG_RANKS entries); returns
 * how many. */
int nccl_log_missing(const struct nccl_log *l, int *out);

#endif
