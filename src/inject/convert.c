/*
 * convert.c - CUPTI activity records to spool records (trace/spool.h), one
 * buffer at a time (bufpool.c's buffer_completed). Record versions are the
 * ones of the CUPTI headers we build against; inject.c refuses a libcupti of
 * another major version.
 */
#include <string.h>

#include "inject/inject_int.h"

/* A forced flush (exit, a caught signal) also hands over GPU work without
 * timestamps yet: left out, not stored at time 0, and counted
 * (report_incomplete says so). */
static int incomplete(uint64_t start, uint64_t end)
{
	if (start && end)
		return 0;
	atomic_fetch_add(&inj.incomplete, 1);
	return 1;
}

static void conv_kernel(struct out *o, const CUpti_ActivityKernel10 *k)
{
	/* a kernel replayed for its counters has no timestamps: it goes out
	 * with zeros and record places it from its launch call (replay.c) */
	if (!(inj.counters_on && !k->start && !k->end) && incomplete(k->start, k->end))
		return;
	struct spool_kernel s = {0};
	s.start = k->start;
	s.end = k->end;
	s.device = k->deviceId;
	s.context = k->contextId;
	s.stream = k->streamId;
	s.correlation = k->correlationId;
	s.name_id = intern(o, k->name);
	s.grid[0] = (uint32_t)k->gridX;
	s.grid[1] = (uint32_t)k->gridY;
	s.grid[2] = (uint32_t)k->gridZ;
	s.block[0] = (uint32_t)k->blockX;
	s.block[1] = (uint32_t)k->blockY;
	s.block[2] = (uint32_t)k->blockZ;
	s.regs = k->registersPerThread;
	s.static_smem = (uint32_t)k->staticSharedMemory;
	s.dyn_smem = (uint32_t)k->dynamicSharedMemory;
	s.graph_id = k->graphId;
	s.graph_node_id = k->graphNodeId;
	s.local_mem_per_thread = k->localMemoryPerThread;
	atomic_fetch_add(&inj.kernel_records, 1);
	put(o, SPOOL_KERNEL, &s, sizeof(s), NULL, 0);
}

static void conv_device(struct out *o, const CUpti_ActivityDevice5 *d)
{
	struct spool_device s = {0};
	s.id = d->id;
	s.name_id = intern(o, d->name);
	s.cc_major = d->computeCapabilityMajor;
	s.cc_minor = d->computeCapabilityMinor;
	s.sm_count = d->numMultiprocessors;
	s.max_warps_per_sm = d->maxWarpsPerMultiprocessor;
	s.mem_bytes = d->globalMemorySize;
	s.mem_bandwidth_kbps = d->globalMemoryBandwidth;
	s.max_blocks_per_sm = d->maxBlocksPerMultiprocessor;
	s.regs_per_sm = d->maxRegistersPerMultiprocessor;
	s.smem_per_sm = d->maxSharedMemoryPerMultiprocessor;
	s.max_smem_per_block = d->maxSharedMemoryPerBlock;
	s.warp_size = d->numThreadsPerWarp;
	s.core_clock_khz = d->coreClockRate;
	s.l2_bytes = d->l2CacheSize;
	put(o, SPOOL_DEVICE, &s, sizeof(s), NULL, 0);
}

static void conv_marker(struct out *o, const CUpti_ActivityMarker2 *m)
{
	struct spool_marker s = {0};
	s.ts = m->timestamp;
	s.id = m->id;
	if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS)
		s.flags = SPOOL_MARKER_INSTANT;
	else if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_START)
		s.flags = SPOOL_MARKER_START;
	else if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_END)
		s.flags = SPOOL_MARKER_END;
	else
		return; /* sync markers: not ranges */
	s.name_id = intern(o, m->name);
	s.domain_id = intern(o, m->domain);
	s.push_pop = m->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD;
	s.tid = m->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? m->objectId.pt.threadId : 0;
	put(o, SPOOL_MARKER, &s, sizeof(s), NULL, 0);
}

/* CUpti_ActivityUnifiedMemoryCounter3 (its fields up to flags are those of
 * the earlier versions); CPU faults, thrashing and remote maps are
 * instants: their end is not set (spool.h, struct spool_uvm). */
static void conv_uvm(struct out *o, const CUpti_ActivityUnifiedMemoryCounter3 *u)
{
	int instant =
	    u->counterKind == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT ||
	    u->counterKind == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THRASHING ||
	    u->counterKind == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_REMOTE_MAP;
	if (incomplete(u->start, instant ? u->start : u->end))
		return;
	struct spool_uvm s = {u->start,
			      instant ? u->start : u->end,
			      u->value,
			      u->address,
			      (uint32_t)u->counterKind,
			      u->srcId,
			      u->dstId,
			      u->flags};
	put(o, SPOOL_UVM, &s, sizeof(s), NULL, 0);
}

void inject_convert(struct out *o, const CUpti_Activity *rec)
{
	switch (rec->kind) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
		conv_kernel(o, (const CUpti_ActivityKernel10 *)rec);
		break;
	case CUPTI_ACTIVITY_KIND_MEMCPY: {
		const CUpti_ActivityMemcpy6 *m = (const void *)rec;
		if (incomplete(m->start, m->end))
			break;
		struct spool_copy s = {m->start,	 m->end,       m->bytes,
				       m->deviceId,	 m->contextId, m->streamId,
				       m->correlationId, m->graphId,   m->copyKind,
				       m->srcKind,	 m->dstKind,   0,
				       m->deviceId,	 m->deviceId,  0};
		put(o, SPOOL_COPY, &s, sizeof(s), NULL, 0);
		break;
	}
	case CUPTI_ACTIVITY_KIND_MEMCPY2: {
		const CUpti_ActivityMemcpyPtoP4 *m = (const void *)rec;
		if (incomplete(m->start, m->end))
			break;
		struct spool_copy s = {m->start,	 m->end,	 m->bytes,
				       m->deviceId,	 m->contextId,	 m->streamId,
				       m->correlationId, m->graphId,	 m->copyKind,
				       m->srcKind,	 m->dstKind,	 1,
				       m->srcDeviceId,	 m->dstDeviceId, 0};
		put(o, SPOOL_COPY, &s, sizeof(s), NULL, 0);
		break;
	}
	case CUPTI_ACTIVITY_KIND_MEMSET: {
		const CUpti_ActivityMemset4 *m = (const void *)rec;
		if (incomplete(m->start, m->end))
			break;
		struct spool_memset s = {m->start,
					 m->end,
					 m->bytes,
					 m->deviceId,
					 m->contextId,
					 m->streamId,
					 m->correlationId,
					 m->value,
					 m->memoryKind,
					 m->graphId,
					 0};
		put(o, SPOOL_MEMSET, &s, sizeof(s), NULL, 0);
		break;
	}
	case CUPTI_ACTIVITY_KIND_RUNTIME:
	case CUPTI_ACTIVITY_KIND_DRIVER: {
		const CUpti_ActivityAPI *a = (const void *)rec;
		int drv = rec->kind == CUPTI_ACTIVITY_KIND_DRIVER;
		if (drv && a->cbid == CUPTI_DRIVER_TRACE_CBID_cuDriverGetVersion &&
		    (a->threadId == (uint32_t)atomic_load(&inj.beat_tid) ||
		     a->threadId == (uint32_t)atomic_load(&inj.exit_tid))) {
			atomic_fetch_add(&inj.beats_seen, 1); /* our heartbeat (flush.c) */
			break;
		}
		struct spool_api s = {a->start,
				      a->end,
				      a->threadId,
				      a->correlationId,
				      api_name(o, drv, a->cbid),
				      (int32_t)a->returnValue,
				      drv ? SPOOL_API_DRIVER : SPOOL_API_RUNTIME,
				      a->cbid};
		put(o, SPOOL_API, &s, sizeof(s), NULL, 0);
		break;
	}
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
		const CUpti_ActivitySynchronization2 *y = (const void *)rec;
		struct spool_sync s = {y->start,    y->end,	      y->contextId,
				       y->streamId, y->correlationId, (uint32_t)y->type};
		put(o, SPOOL_SYNC, &s, sizeof(s), NULL, 0);
		break;
	}
	case CUPTI_ACTIVITY_KIND_MEMORY2: {
		const CUpti_ActivityMemory4 *m = (const void *)rec;
		if (m->memoryOperationType != CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION &&
		    m->memoryOperationType != CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE)
			break;
		struct spool_alloc s = {m->timestamp,
					m->address,
					m->bytes,
					m->deviceId,
					m->contextId,
					m->streamId,
					m->correlationId,
					m->memoryOperationType ==
					    CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE,
					(uint32_t)m->memoryKind};
		put(o, SPOOL_ALLOC, &s, sizeof(s), NULL, 0);
		break;
	}
	case CUPTI_ACTIVITY_KIND_MARKER:
		conv_marker(o, (const CUpti_ActivityMarker2 *)rec);
		break;
	case CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER:
		conv_uvm(o, (const CUpti_ActivityUnifiedMemoryCounter3 *)rec);
		break;
	case CUPTI_ACTIVITY_KIND_DEVICE:
		conv_device(o, (const CUpti_ActivityDevice5 *)rec);
		break;
	case CUPTI_ACTIVITY_KIND_CONTEXT: {
		const CUpti_ActivityContext3 *c = (const void *)rec;
		struct spool_context s = {c->contextId, c->deviceId};
		put(o, SPOOL_CONTEXT, &s, sizeof(s), NULL, 0);
		break;
	}
	case CUPTI_ACTIVITY_KIND_GRAPH_TRACE:
		/* GPUSCOPE_KINDS naming graph (api_select.c): counted only */
		atomic_fetch_add(&inj.graph_records, 1);
		break;
	case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
	case CUPTI_ACTIVITY_KIND_OVERHEAD:
	case CUPTI_ACTIVITY_KIND_CUDA_EVENT:
	case CUPTI_ACTIVITY_KIND_NAME:
		/* never enabled by gpuscope: another client did (flush.c) */
		atomic_fetch_add(&inj.foreign_records, 1);
		atomic_store(&inj.foreign_kind, (int)rec->kind);
		break;
	default:
		break;
	}
}
