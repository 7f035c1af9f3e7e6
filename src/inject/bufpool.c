/*
 * bufpool.c - CUPTI's activity buffers: handed out zeroed from a pool
 * (invariant 5 of inject.c) and, once CUPTI completes one, converted into
 * spool records (convert.c) and written.
 */
#include <stdlib.h>
#include <string.h>

#include "inject/inject_int.h"

/* --- CUPTI buffer callbacks --- */
/* Buffer pool (invariant 5): CUPTI asks for a buffer in the program's own
 * thread when the current one fills, and by default zeroes it there; a fresh
 * 4 MiB allocation also page-faults in there as CUPTI fills it. So buffers
 * are zeroed and faulted in off the program's threads (at start, by the flush
 * thread, and on return in buffer_completed) and handed out from a pool;
 * CUPTI is told they come zeroed (CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_
 * BUFFER). GPUSCOPE_BUFPOOL=0: one fresh buffer per request, zeroed by CUPTI. */
static uint8_t *new_buffer(void)
{
	uint8_t *b = aligned_alloc(8, CUPTI_BUF_SIZE);
	if (b && inj.pool_on)
		memset(b, 0, CUPTI_BUF_SIZE);
	return b;
}

static int pool_count(void)
{
	pthread_mutex_lock(&inj.pool_lock);
	int n = inj.pool_n;
	pthread_mutex_unlock(&inj.pool_lock);
	return n;
}

/* 1 if the pool took the zeroed buffer b */
static int pool_put(uint8_t *b)
{
	pthread_mutex_lock(&inj.pool_lock);
	int room = inj.pool_n < POOL_MAX;
	if (room)
		inj.pool[inj.pool_n++] = b;
	pthread_mutex_unlock(&inj.pool_lock);
	return room;
}

/* keeps POOL_READY zeroed buffers ready; called outside the program's threads */
void pool_fill(void)
{
	while (pool_count() < POOL_READY) {
		uint8_t *b = new_buffer();
		if (!b)
			return;
		if (!pool_put(b)) {
			free(b);
			return;
		}
	}
}

/* a buffer CUPTI handed back: zeroed and kept while the pool has room */
static void pool_return(uint8_t *b)
{
	if (inj.pool_on && pool_count() < POOL_MAX) {
		memset(b, 0, CUPTI_BUF_SIZE);
		if (pool_put(b))
			return;
	}
	free(b);
}

void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	uint64_t t0 = mono_ns();
	*max_records = 0;
	uint8_t *b = NULL;
	if (inj.pool_on) {
		pthread_mutex_lock(&inj.pool_lock);
		if (inj.pool_n > 0)
			b = inj.pool[--inj.pool_n];
		pthread_mutex_unlock(&inj.pool_lock);
		if (!b)
			atomic_fetch_add(&inj.pool_misses, 1);
	}
	if (!b)
		b = new_buffer();
	*buffer = b;
	*size = b ? CUPTI_BUF_SIZE : 0;
	atomic_fetch_add(&inj.overhead_ns, mono_ns() - t0);
}

void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
			       size_t valid)
{
	uint64_t t0 = mono_ns();
	if (!mine() || atomic_load(&inj.quiet) || inj.discard) {
		pool_return(buffer);
		return;
	}
	struct out o = {NULL, valid + valid / 2 + 256 * 1024, 0};
	o.buf = malloc(o.cap);
	if (!o.buf) {
		status(0, 0, "out of memory converting a cupti buffer; %zu bytes of records lost",
		       valid);
		pool_return(buffer);
		return;
	}
	CUpti_Activity *rec = NULL;
	uint64_t n = 0;
	for (;;) {
		CUptiResult r = cuptiActivityGetNextRecord(buffer, valid, &rec);
		if (r != CUPTI_SUCCESS)
			break;
		inject_convert(&o, rec);
		n++;
	}
	size_t dropped = 0;
	if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS && dropped)
		atomic_fetch_add(&inj.dropped, dropped);
	atomic_fetch_add(&inj.buffers, 1);
	atomic_fetch_add(&inj.records, n);
	if (n)
		atomic_store(&inj.last_record_ts, cupti_now());
	atomic_fetch_add(&inj.overhead_ns, mono_ns() - t0);
	write_stats(&o);
	out_flush(&o);
	free(o.buf);
	pool_return(buffer);
}
