/*
 * spool.h - the per-process spool file the injection library writes and
 * `gpuscope record` reads back (spool.c) into a struct trace.
 *
 * The injected library (src/inject/) cannot link SQLite and must stay cheap,
 * so it appends fixed-layout records to $GPUSCOPE_SPOOL_DIR/spool-<pid>.bin,
 * one write(2) per CUPTI buffer. This header is shared by both sides and has
 * no dependency beyond <stdint.h>/<string.h>: the frame helpers below are the
 * writer code, used by the library and by the tests alike.
 *
 * Layout (docs/record.md):
 *   struct spool_file_header, then cmdline_len bytes of command line
 *   (arguments separated by NUL), then frames until end of file.
 *   A frame is struct spool_frame (type, payload length) then the payload.
 *
 * Invariants:
 *  1. Payloads are plain little-endian structs below; a reader accepts a
 *     payload longer than the struct it knows (newer writer) and rejects a
 *     shorter one as corrupt.
 *  2. No frame is longer than SPOOL_MAX_FRAME; a string payload is at most
 *     SPOOL_MAX_STRING bytes (longer strings are cut by the writer).
 *  3. String ids are the writer's, unique per file, never 0; a STRING record
 *     may appear after the records that use its id (several threads write),
 *     so readers resolve names after reading the whole file.
 *  4. All timestamps are CUPTI's clock (cuptiGetTimestamp) in ns; the header's
 *     clock pair (and later SPOOL_CLOCK records) map CLOCK_REALTIME onto it.
 *  5. A file may end in the middle of a frame (SIGKILL while writing): the
 *     tail is ignored.
 *  6. A process that ends through gpuscope's last flush (atexit, _exit or
 *     _Exit through the preload shim, a caught killing signal) writes one
 *     END frame after it, last; a file without one belongs to a process
 *     that was killed, crashed, or was still running when record read it,
 *     and whatever it did after its last periodic flush is missing.
 */
#ifndef GPUSCOPE_SPOOL_H
#define GPUSCOPE_SPOOL_H

#include <stdint.h>
#include <string.h>

#define SPOOL_MAGIC "GSSPOOL\0"
#define SPOOL_VERSION 1
#define SPOOL_MAX_FRAME (64u * 1024u)
#define SPOOL_MAX_STRING 4096u
#define SPOOL_MAX_CMDLINE (32u * 1024u)

/* Flush handshake in the spool directory: before forwarding a terminating
 * signal, record creates SPOOL_FLUSH_REQUEST; each traced process flushes
 * its records and answers with an empty file SPOOL_FLUSHED_PREFIX<pid>. A
 * program killed by the signal (default action, no atexit) then loses
 * nothing that was done before it (the injected library also catches such
 * a signal for one last flush, whoever sends it: inject/flush.c, catch_signals). */
/* the status of a process whose spool holds no CUDA activity (record's
 * finish drops it for helpers beside processes that did GPU work) */
#define SPOOL_NO_CUDA_STATUS                                                                       \
	"no CUDA activity (the program never initialised CUDA, or CUPTI could not attach)"
#define SPOOL_FLUSH_REQUEST "flush-request"
#define SPOOL_FLUSHED_PREFIX "flushed-"
#define SPOOL_FLUSH_POLL_MS 20	 /* how often a traced process looks for the request */
#define SPOOL_FLUSH_WAIT_MS 2000 /* how long record waits for the answers */

struct spool_file_header {
	char magic[8];
	uint32_t version;
	uint32_t header_len; /* sizeof(struct spool_file_header) when written */
	uint32_t pid, ppid;
	uint32_t cmdline_len;
	uint32_t reserved;
	int64_t clock_cupti_ns; /* cuptiGetTimestamp() ... */
	int64_t clock_real_ns;	/* ... and CLOCK_REALTIME, read back to back */
};

enum spool_type {
	SPOOL_STRING = 1,
	SPOOL_KERNEL = 2,
	SPOOL_COPY = 3,
	SPOOL_MEMSET = 4,
	SPOOL_API = 5,
	SPOOL_SYNC = 6,
	SPOOL_MARKER = 7,
	SPOOL_ALLOC = 8,
	SPOOL_DEVICE = 9,
	SPOOL_CONTEXT = 10,
	SPOOL_STATUS = 11,
	SPOOL_STATS = 12,
	SPOOL_CLOCK = 13,
	SPOOL_END = 14,
	SPOOL_COUNTER = 15, /* one hardware counter value of one profiled launch */
	SPOOL_ENV = 16,	    /* the process's rank variables: "NAME=value\0" each */
	SPOOL_SAMPLE = 17,  /* one device-wide metric sample (record --metrics pm) */
	SPOOL_UVM = 18,	    /* one unified-memory event (CUPTI's unified-memory counters) */
	SPOOL_NOTE = 19,    /* a note for the database's meta: "KEY\0VALUE" */
};

/* The note a process gives about its unified-memory counters (SPOOL_NOTE
 * key; meta key of the database): SPOOL_NOTE_UVM_ON when they were
 * recorded, else why not ("off: ...", "not recorded: ..."). The reader
 * keeps one value for the whole recording: a refusal replaces "recorded",
 * and the first refusal stays (record must say it once, never fail). */
#define SPOOL_NOTE_UVM "uvm_counters"
#define SPOOL_NOTE_UVM_ON "recorded"
/* A process that ran with CUDA_LAUNCH_BLOCKING set to other than "0" (read
 * when CUDA initialised, as the driver reads it): the variable's value.
 * Every launch then waits for its kernel (diagnose/warnings.c). */
#define SPOOL_NOTE_LAUNCH_BLOCKING "cuda_launch_blocking"

/* The environment variables a SPOOL_ENV frame carries (those set), in the
 * order the reader prefers them for a rank, a local rank, a world size:
 * torchrun / torch.distributed, Open MPI, Slurm, MPICH/PMI. */
#define SPOOL_ENV_RANK "RANK", "OMPI_COMM_WORLD_RANK", "SLURM_PROCID", "PMI_RANK"
#define SPOOL_ENV_LOCAL_RANK "LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"
#define SPOOL_ENV_WORLD_SIZE "WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "SLURM_NTASKS", "PMI_SIZE"

struct spool_frame {
	uint16_t type; /* enum spool_type */
	uint16_t reserved;
	uint32_t len; /* payload bytes after this frame header */
};

/* payload: id, then the bytes (no NUL) */
struct spool_string {
	uint32_t id;
};

struct spool_kernel {
	uint64_t start, end;
	uint32_t device, context, stream, correlation;
	uint32_t name_id;
	uint32_t grid[3], block[3];
	uint32_t regs, static_smem, dyn_smem;
	uint32_t graph_id;
	uint32_t local_mem_per_thread;
	uint32_t reserved;
	uint64_t graph_node_id;
};

struct spool_copy {
	uint64_t start, end, bytes;
	uint32_t device, context, stream, correlation;
	uint32_t graph_id;
	uint8_t cupti_kind;	    /* CUpti_ActivityMemcpyKind */
	uint8_t src_kind, dst_kind; /* CUpti_ActivityMemoryKind */
	uint8_t peer;		    /* 1: from a MEMCPY2 (peer-to-peer) record */
	uint32_t src_device, dst_device;
	uint32_t reserved;
};

struct spool_memset {
	uint64_t start, end, bytes;
	uint32_t device, context, stream, correlation;
	uint32_t value;
	uint32_t mem_kind; /* CUpti_ActivityMemoryKind */
	uint32_t graph_id;
	uint32_t reserved;
};

enum spool_api_domain {
	SPOOL_API_RUNTIME = 0,
	SPOOL_API_DRIVER = 1,
};

struct spool_api {
	uint64_t start, end;
	uint32_t tid, correlation;
	uint32_t name_id;
	int32_t ret;
	uint32_t domain; /* enum spool_api_domain */
	uint32_t cbid;
};

struct spool_sync {
	uint64_t start, end;
	uint32_t context, stream, correlation;
	uint32_t type; /* CUpti_ActivitySynchronizationType (= enum sync_kind) */
};

enum spool_marker_flag {
	SPOOL_MARKER_INSTANT = 1,
	SPOOL_MARKER_START = 2,
	SPOOL_MARKER_END = 4,
};

struct spool_marker {
	uint64_t ts;
	uint32_t id;	/* CUPTI's range id: start and end share it */
	uint32_t flags; /* enum spool_marker_flag */
	uint32_t name_id, domain_id;
	uint32_t tid;
	uint32_t push_pop; /* 1: nvtxRangePush/Pop (thread-nested), 0: start/end */
};

struct spool_alloc {
	uint64_t ts, address, bytes;
	uint32_t device, context, stream, correlation;
	uint32_t is_free;
	uint32_t mem_kind; /* CUpti_ActivityMemoryKind */
};

struct spool_device {
	uint32_t id, name_id;
	uint32_t cc_major, cc_minor;
	uint32_t sm_count;
	uint32_t max_warps_per_sm;
	uint64_t mem_bytes;
	uint64_t mem_bandwidth_kbps; /* CUPTI's globalMemoryBandwidth, KiB/s */
	uint32_t max_blocks_per_sm;
	uint32_t regs_per_sm;
	uint32_t smem_per_sm;
	uint32_t max_smem_per_block;
	uint32_t warp_size;
	uint32_t core_clock_khz;
	uint32_t l2_bytes;
	uint32_t reserved;
};

struct spool_context {
	uint32_t context, device;
};

/* payload: then the message bytes (no NUL) */
struct spool_status {
	int64_t ts;
	int32_t code;	/* CUptiResult or 0 */
	uint32_t fatal; /* 1: collection stopped at ts */
};

struct spool_stats {
	uint64_t dropped;     /* cuptiActivityGetNumDroppedRecords, summed */
	uint64_t overhead_ns; /* time in buffer callbacks and flushes */
	uint64_t buffers, records;
	uint64_t launches_seen;	 /* kernel launch API calls seen by callback */
	uint64_t kernel_records; /* kernel activity records received */
	uint64_t bytes_written;
	int64_t last_ts; /* CUPTI clock when these stats were written */
};

/* record --metrics kernels (src/inject/counters.h): a value of the metric
 * named by string metric_id for the launch with this correlation id */
struct spool_counter {
	uint32_t correlation;
	uint32_t metric_id;
	double value;
};

/* A unified-memory event (CUpti_ActivityUnifiedMemoryCounter3): kind is
 * CUPTI's counter kind (= enum uvm_kind), src and dst its processors
 * (0xFFFFFFFF: the CPU; for thrashing src is a mask of devices), flags its
 * cause or access; end is start for instants (trace.h, struct trace_uvm). */
struct spool_uvm {
	uint64_t start, end;
	uint64_t value, address;
	uint32_t kind;
	uint32_t src, dst;
	uint32_t flags;
};

/* A PM sampling window's value (src/gpu/pm_metrics.h): ts is the window's
 * end on CUPTI's clock; a samples row of metric metric_id (a string). */
struct spool_sample {
	uint64_t ts;
	uint32_t device;
	uint32_t metric_id;
	double value;
};

struct spool_clock {
	int64_t cupti_ns, real_ns;
};

/* how a process ended (invariant 6) */
enum spool_end_how {
	SPOOL_END_EXIT = 1,	  /* exit(), return from main: the atexit handler */
	SPOOL_END_QUICK_EXIT = 2, /* _exit / _Exit (os._exit), through the preload shim */
	SPOOL_END_SIGNAL = 3,	  /* a killing signal caught for a last flush */
};

struct spool_end {
	int64_t ts;
	uint32_t how;	 /* enum spool_end_how */
	uint32_t detail; /* the exit status or the signal */
};

/* Appends one frame (header + payload + extra bytes) to buf at *pos when it
 * fits in cap. Returns 0, or -1 (nothing written) when it does not fit or
 * the frame would exceed SPOOL_MAX_FRAME. */
static inline int spool_put(void *buf, size_t cap, size_t *pos, uint16_t type, const void *payload,
			    uint32_t len, const void *extra, uint32_t extra_len)
{
	struct spool_frame f = {type, 0, len + extra_len};
	size_t need = sizeof(f) + (size_t)len + extra_len;
	if ((size_t)len + extra_len > SPOOL_MAX_FRAME || *pos > cap || cap - *pos < need)
		return -1;
	char *p = (char *)buf + *pos;
	memcpy(p, &f, sizeof(f));
	if (len)
		memcpy(p + sizeof(f), payload, len);
	if (extra_len)
		memcpy(p + sizeof(f) + len, extra, extra_len);
	*pos += need;
	return 0;
}

struct trace;

/* Reads one spool file into t (which the caller initialised; more files may
 * be read into the same trace). Every row gets the file's pid; string ids
 * are re-interned into t; a process row is added with parent pid, command
 * line, dropped records, overhead and status (the last fatal status, or
 * every warning joined with "; "). Times are CUPTI ns. A truncated last
 * frame is ignored; anything else malformed fails (bad magic, a frame
 * longer than SPOOL_MAX_FRAME, a payload shorter than its struct); an
 * unknown string id leaves the name empty. Returns 0, or -1 with a message in err; on error
 * rows read before the bad frame stay in t but no process row is added. */
int spool_read_file(struct trace *t, const char *path, struct spool_clock *clock, char *err);

/* Same, from memory (for tests). clock (may be NULL) gets the file's latest
 * clock pair, for mapping CLOCK_REALTIME samples onto CUPTI's clock. */
int spool_read_buffer(struct trace *t, const void *data, size_t len, struct spool_clock *clock,
		      char *err);

#endif
