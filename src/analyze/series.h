/*
 * series.h - the series behind the report's pictures (series.c): the
 * analysed span cut into a bounded number of equal bins, with in each bin
 * the GPU busy time (the union), the idle time by cause, the time inside
 * blocking synchronizations and, per device/stream lane, kernel, copy and
 * memset time; the idle gaps as a histogram of their lengths by cause;
 * sampled metrics (NVML/GPM) as windows; live device memory. They are
 * aggregates whose size does not grow with the trace: AN_SERIES_BINS bins,
 * AN_SERIES_LANES lanes, AN_SERIES_POINTS points a metric.
 * report_series.c puts them into the report model (sections the text and
 * JSON forms leave out); the HTML page draws them.
 *
 * Invariants:
 *  1. Bin i covers [start_ns + i * bin_ns, start_ns + (i + 1) * bin_ns) of
 *     the span [a->start_ns, a->end_ns); n_bins == 0 for an empty span.
 *  2. The idle causes of a bin sum to its idle time (bin_ns - busy) within
 *     rounding: a gap's time by cause (idle.c) is spread over the bins it
 *     covers in proportion to how much of it each covers (idle.c knows
 *     how much of a gap each cause explains, not where in the gap).
 *  3. The histogram's ns by cause sum to an_idle's, cause by cause.
 */
#ifndef GPUSCOPE_ANALYZE_SERIES_H
#define GPUSCOPE_ANALYZE_SERIES_H

#include <stddef.h>
#include <stdint.h>

#define AN_SERIES_BINS 2000
/* the busiest device/stream lanes, the rest in one "other streams" lane */
#define AN_SERIES_LANES 16
/* points a sampled metric keeps (consecutive windows merged beyond) */
#define AN_SERIES_POINTS 1000

/* The idle causes, in the order of the report's idle table (idle.c). */
enum an_idle_cause {
	AN_IDLE_HOST,	  /* host work outside CUDA */
	AN_IDLE_DISPATCH, /* host dispatch between CUDA calls */
	AN_IDLE_LAUNCH,	  /* launch latency / queue */
	AN_IDLE_SYNC,	  /* waiting on a synchronization */
	AN_IDLE_COPY,	  /* waiting on a copy call */
	AN_IDLE_API,	  /* inside other CUDA calls */
	AN_IDLE_CAUSES
};

/* GPU op kinds of a lane's bins. */
enum an_lane_kind { AN_LANE_KERNEL, AN_LANE_COPY, AN_LANE_MEMSET, AN_LANE_KINDS };

/* Gap-length histogram: bin 0 is < 1 us, bin k (1..) is [edge k-1, edge k),
 * the edges 1-2-5 steps from 1 us to 1 s (500 us and 500 ms are the host
 * work and gpu_gaps thresholds), the last bin >= 1 s. */
#define AN_GAP_BINS 20
/* The lower edge of histogram bin k in ns (0 for bin 0). */
int64_t an_gap_bin_lo(int k);

struct an_lane {
	uint32_t device, stream; /* stream UINT32_MAX: the other streams, merged */
	uint32_t streams;	 /* streams in this lane (1, or how many were merged) */
	uint64_t ops;
	int64_t busy_ns; /* summed op time */
	int64_t *ns;	 /* n_bins x AN_LANE_KINDS: time of each kind in each bin */
};

/* One sampled metric of one device; point i is the window
 * [from[i], to[i]) on the CUPTI clock (sample clock shifted by shift_ns). */
struct an_sample_series {
	const char *metric; /* the trace's metric name (gpu/metrics.h) */
	uint32_t device;
	int windowed; /* a GPM metric: a mean over its window, else a reading at to[] */
	size_t n;
	int64_t *from, *to;
	double *value;
};

/* Live device memory (cudaMalloc'd minus freed) of one device. */
struct an_mem_series {
	uint32_t device;
	int64_t *max; /* n_bins: the most live in each bin */
	int64_t start_bytes, peak_bytes;
};

struct an_series {
	int64_t start_ns, bin_ns;
	int n_bins;
	int64_t *busy; /* n_bins: busy time of the union */
	int64_t *sync; /* n_bins: time inside blocking sync calls (their union) */
	double *idle;  /* n_bins x AN_IDLE_CAUSES */
	struct an_lane *lanes;
	size_t n_lanes, cap_lanes;
	uint64_t gap_count[AN_GAP_BINS];
	int64_t gap_ns[AN_GAP_BINS][AN_IDLE_CAUSES];
	struct an_sample_series *samples;
	size_t n_samples, cap_samples;
	int64_t sample_shift_ns; /* subtracted from sample times (gpm.c's lag) */
	struct an_mem_series *mem;
	size_t n_mem, cap_mem;
};

struct analysis;

/* Sizes the bins for a's span (after an_timeline). 0 or -1 with err. */
int an_series_init(struct analysis *a, char *err);
/* Adds a gap [g0, g1) with its time by cause (v, ns) to the idle bins and,
 * when count, one gap to the histogram (count 0: a correction of a gap
 * already added, such as idle.c's sync overlap). */
void an_series_gap(struct analysis *a, int64_t g0, int64_t g1, const int64_t v[AN_IDLE_CAUSES],
		   int count);
/* One part of the gaps added on a thread of its own (idle.c, issue 38):
 * the histogram is the part's, added up after; the idle bins are written
 * in place, except the first bin the part touches, which the part before
 * it may touch too: that one's additions are recorded and made after the
 * earlier parts' (an_series_gap_merge, parts in time order), so every bin
 * adds its gaps in time order, as on one thread. Zeroed to start. */
struct an_gap_sink {
	int have_first, first_bin, failed; /* failed: out of memory recording */
	double *first;			   /* AN_IDLE_CAUSES values per addition to first_bin */
	size_t n_first, cap_first;
	uint64_t gap_count[AN_GAP_BINS];
	int64_t gap_ns[AN_GAP_BINS][AN_IDLE_CAUSES];
};
/* an_series_gap into a part's sink (count 1). */
void an_series_gap_part(struct analysis *a, struct an_gap_sink *k, int64_t g0, int64_t g1,
			const int64_t v[AN_IDLE_CAUSES]);
/* Adds a part's sink to a->series and frees what it holds; call for the
 * parts in time order. 0, or -1 when the part ran out of memory. */
int an_series_gap_merge(struct analysis *a, struct an_gap_sink *k);
/* The bounds of idle gap g (gap g ends where busy[g] starts). */
void an_series_gap_bounds(const struct analysis *a, size_t g, int64_t *g0, int64_t *g1);
/* The rest (busy, syncs, lanes, samples, memory), after the sample
 * statistics (their clock shift). 0 or -1 with err. */
int an_series_build(struct analysis *a, char *err);
void an_series_release(struct an_series *s);

#endif
