/*
 * smallcopies.c - many small host-device copies (smallcopies.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "diagnose/finding.h"
#include "diagnose/smallcopies.h"
#include "diagnose/thresholds.h"
#include "util/i18n.h"

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

void an_small_copies(const struct analysis *a, struct an_small_copies *s)
{
	memset(s, 0, sizeof(*s));
	const struct trace *t = a->t;
	uint64_t *sz = malloc((t->n_copies ? t->n_copies : 1) * sizeof(*sz));
	int64_t all_ns = 0;
	uint64_t bytes = 0;
	for (size_t i = 0; i < t->n_copies; i++) {
		const struct trace_copy *c = &t->copies[i];
		/* host to device only: many small device-to-host copies are
		 * read-backs the host waits for each step (sync_stall's) */
		if (c->kind != COPY_HTOD)
			continue;
		int64_t d = c->end_ns - c->start_ns;
		s->all++;
		all_ns += d;
		if (c->bytes > TH_SMALL_COPY_BYTES)
			continue;
		if (sz)
			sz[s->count] = c->bytes;
		s->count++;
		s->ns += d;
		bytes += c->bytes;
	}
	if (sz && s->count) {
		qsort(sz, s->count, sizeof(*sz), cmp_u64);
		s->median_bytes = sz[s->count / 2];
	}
	free(sz);
	s->gbps = s->ns > 0 ? (double)bytes / (double)s->ns : 0; /* bytes/ns = GB/s */
	s->share = all_ns > 0 ? (double)s->ns / (double)all_ns : 0;
}

int adv_small_copies(struct finding *f, const struct analysis *a)
{
	struct an_small_copies s;
	an_small_copies(a, &s);
	if (s.count < TH_SMALL_COPIES_MIN || s.share < TH_SMALL_COPY_SHARE)
		return 0;
	finding_num(f, "small_copies", (double)s.count);
	finding_num(f, "median_copy_bytes", (double)s.median_bytes);
	finding_num(f, "small_copy_gbps", s.gbps);
	char size[32];
	if (s.median_bytes >= 1024)
		snprintf(size, sizeof(size), "%.0f KiB", (double)s.median_bytes / 1024.0);
	else
		snprintf(size, sizeof(size), "%llu bytes", (unsigned long long)s.median_bytes);
	switch (a->prog.kind) {
	case PK_PYTORCH:
		finding_action(
		    f,
		    N_("%llu host-to-device copies of %s (median) at %.2f GB/s: each pays the "
		       "copy's fixed latency; batch them into one (torch.stack / "
		       "torch.cat on the host into one pinned tensor, then one "
		       ".to(\"cuda\", non_blocking=True))"),
		    (unsigned long long)s.count, size, s.gbps);
		break;
	case PK_JAX:
		finding_action(
		    f,
		    N_("%llu host-to-device copies of %s (median) at %.2f GB/s: each pays the "
		       "copy's fixed latency; stack them on the host (numpy.stack) and "
		       "jax.device_put the one array"),
		    (unsigned long long)s.count, size, s.gbps);
		break;
	case PK_CUPY:
		finding_action(
		    f,
		    N_("%llu host-to-device copies of %s (median) at %.2f GB/s: each pays the "
		       "copy's fixed latency; stack them on the host (numpy.stack) and "
		       "make one cupy.asarray of it"),
		    (unsigned long long)s.count, size, s.gbps);
		break;
	default:
		finding_action(
		    f,
		    N_("%llu host-to-device copies of %s (median) at %.2f GB/s: each pays the "
		       "copy's fixed latency; pack them into one host buffer and copy it "
		       "with one cudaMemcpyAsync"),
		    (unsigned long long)s.count, size, s.gbps);
	}
	return 1;
}
