/*
 * comm.h - collective communication across ranks: for each rank (a process
 * and the GPU it drives) the time in NCCL kernels, the computation beside
 * it, how much of the communication the computation hides, and how long
 * the rank waited in collectives for the last one to arrive; across ranks
 * the straggler and the load imbalance (HTA's temporal breakdown,
 * comm/comp overlap and straggler analysis, on gpuscope's trace model).
 *
 * Ranks: every (pid, device) pair with GPU work; their rank number is the
 * process's "rank" meta (record stores RANK from the environment, kineto
 * traces carry distributedInfo.rank) or, when unknown, their order by pid.
 * A communication kernel is one whose name contains "nccl" or "rccl"
 * (ncclKernel_*, ncclDevKernel_*: NCCL's device kernels; RCCL's on ROCm).
 * A rank without one whose collectives run on the host (gloo, MPI) has
 * them as its process's outermost ranges named like a collective
 * ("gloo:all_reduce": PyTorch's record_function title, or an NVTX range of
 * that name; "c10d::allreduce_"): their time is its communication.
 *
 * Collectives are matched across ranks by order: the k-th communication
 * kernel of each rank with the same collective type is the same collective
 * (NCCL runs a communicator's collectives in program order on every rank).
 * A rank's wait in collective k is the time from its own kernel start to
 * the latest start of that collective on any rank (the kernel cannot
 * complete before every rank has joined), capped at its own kernel's
 * duration; the rank that arrives last most of the time, and whose lateness
 * makes the others wait the longest, is the straggler.
 *
 * The analysis is two steps: each rank's reduction (its unions and its
 * collectives in start order: comm_analyze on a trace) and the cross-rank
 * part (comm_cross: matching, waits, the straggler, the imbalance), which
 * reads only the ranks' totals and collectives, so a job's per-rank
 * summaries (diagnose/summary.h) give the same figures as its traces.
 *
 * Error contract: comm_analyze returns 0 (n_ranks 0 when there is no
 * communication) or -1 with a message in err.
 */
#ifndef GPUSCOPE_COMM_H
#define GPUSCOPE_COMM_H

#include <stddef.h>
#include <stdint.h>

#include "trace/trace.h"

struct comm_rank {
	int rank;
	uint32_t pid, device;
	int64_t start_ns, end_ns; /* first to last GPU work of the rank */
	int64_t compute_ns;	  /* union of its non-communication kernels, copies, memsets */
	int64_t comm_ns;	  /* union of its communication kernels */
	int64_t overlap_ns;	  /* communication while computation runs */
	int64_t exposed_ns;	  /* comm_ns - overlap_ns */
	int64_t wait_ns;	  /* waiting in collectives for later ranks */
	uint64_t collectives;	  /* communication kernels */
	uint64_t last_to_arrive;  /* collectives it joined last */
	int64_t late_ns;	  /* how long the others waited for it in those */
};

/* One collective of a rank: a communication kernel (or host collective). */
struct comm_coll {
	int64_t s, e;
	char kind[16]; /* comm_kind of its name, "" when none is recognised */
};

/* A rank's collectives in start order. */
struct comm_colls {
	struct comm_coll *v;
	size_t n, cap;
};

struct comm_stats {
	struct comm_rank *r; /* by rank */
	size_t n;
	struct comm_colls *colls; /* parallel to r */
	int host;		  /* 1: no communication kernel, the collectives ran on the host */
	int ranks_known;	  /* 1: rank numbers from the trace, 0: by pid order */
	uint64_t matched;	  /* collectives matched on every rank */
	int straggler;		  /* index into r, -1 when none stands out */
	double imbalance;	  /* (max - min) / mean compute time of the ranks */
	char top_kind[64];	  /* the collective type with the most time ("AllReduce") */
};

int comm_analyze(struct comm_stats *out, const struct trace *t, char *err);
/* The cross-rank part over out->r (in rank order, with start/end,
 * compute, comm, overlap, exposed and collectives set) and out->colls:
 * top_kind, matched, wait_ns, last_to_arrive, late_ns, the straggler and
 * the imbalance. 0, or -1 when out of memory (out unchanged but those). */
int comm_cross(struct comm_stats *out);
/* Puts out->r and out->colls in rank order (rank number, pid, device);
 * without known rank numbers (known 0) numbers them by that order. 0, or
 * -1 when out of memory. */
int comm_sort(struct comm_stats *out, int known);
void comm_release(struct comm_stats *c);

/* 1 when a kernel name is a communication kernel (NCCL/RCCL). */
int comm_is_kernel(const char *name);
/* 1 when a host range (NVTX, PyTorch op or annotation) is a collective:
 * "gloo:", "nccl:", "c10d::", "mpi:" or "ucc:" and a collective type. */
int comm_is_host_range(const char *name);
/* The collective type in a kernel or op name ("AllReduce", "AllGather",
 * ...; case and '_' ignored: "all_reduce" is AllReduce; "" when none is
 * recognised). */
const char *comm_kind(const char *name, char *buf, size_t n);

#endif
