/*
 * schema.c - the column descriptions of every trace table (schema.h) and
 * the SQL generated from them.
 */
#include "trace/schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace.h"

#define COL(type, sql, kind, field, pos, csv, csv_name)                                            \
	{                                                                                          \
		sql, kind, 0, (uint16_t)offsetof(type, field), pos, csv, csv_name                  \
	}
#define PK(type, sql, kind, field, pos, csv, csv_name)                                             \
	{                                                                                          \
		sql, kind, 1, (uint16_t)offsetof(type, field), pos, csv, csv_name                  \
	}
#define ROWID                                                                                      \
	{                                                                                          \
		"id", TC_ROWID, 1, 0, 0, 0, NULL                                                   \
	}
/* start_ns, dur_ns and (CSV) end_ns of an event struct */
#define SPAN(type)                                                                                 \
	COL(type, "start_ns", TC_START, start_ns, 1, CSV_NUM, "start_ns"),                         \
	    COL(type, "dur_ns", TC_DUR, end_ns, 3, CSV_NUM, "dur_ns"),                             \
	    COL(type, NULL, TC_END, end_ns, 2, CSV_NUM, "end_ns")
#define N(a) (sizeof(a) / sizeof((a)[0]))

#define D struct trace_device
static const struct tcol device_cols[] = {
    PK(D, "id", TC_U32, id, 0, 0, NULL),
    COL(D, "name_id", TC_U32, name_id, 0, 0, NULL),
    COL(D, "cc_major", TC_U32, cc_major, 0, 0, NULL),
    COL(D, "cc_minor", TC_U32, cc_minor, 0, 0, NULL),
    COL(D, "sm_count", TC_U32, sm_count, 0, 0, NULL),
    COL(D, "mem_bytes", TC_U64, mem_bytes, 0, 0, NULL),
    COL(D, "mem_bandwidth_bps", TC_U64, mem_bandwidth_bps, 0, 0, NULL),
    COL(D, "max_threads_per_sm", TC_U32, max_threads_per_sm, 0, 0, NULL),
    COL(D, "max_blocks_per_sm", TC_U32, max_blocks_per_sm, 0, 0, NULL),
    COL(D, "regs_per_sm", TC_U32, regs_per_sm, 0, 0, NULL),
    COL(D, "smem_per_sm", TC_U32, smem_per_sm, 0, 0, NULL),
    COL(D, "max_smem_per_block", TC_U32, max_smem_per_block, 0, 0, NULL),
    COL(D, "warp_size", TC_U32, warp_size, 0, 0, NULL),
    COL(D, "pcie_gen", TC_U32, pcie_gen, 0, 0, NULL),
    COL(D, "pcie_width", TC_U32, pcie_width, 0, 0, NULL),
};
#undef D

#define P struct trace_process
static const struct tcol process_cols[] = {
    PK(P, "pid", TC_U32, pid, 0, 0, NULL),
    COL(P, "parent_pid", TC_U32, parent_pid, 0, 0, NULL),
    COL(P, "cmdline_id", TC_U32, cmdline_id, 0, 0, NULL),
    COL(P, "start_ns", TC_TIME, start_ns, 0, 0, NULL),
    COL(P, "end_ns", TC_TIME, end_ns, 0, 0, NULL),
    COL(P, "dropped_records", TC_U64, dropped_records, 0, 0, NULL),
    COL(P, "overhead_ns", TC_U64, overhead_ns, 0, 0, NULL),
    COL(P, "status_id", TC_U32, status_id, 0, 0, NULL),
};
#undef P

/* the launch configuration of a kernel: fields of struct trace_kernel */
#define K struct trace_kernel
static const struct tcol config_cols[] = {
    {"id", TC_CONFIG, 1, 0, 0, 0, NULL},
    COL(K, "name_id", TC_U32, name_id, 9, CSV_STR, "name"),
    COL(K, "grid_x", TC_U32, grid[0], 10, CSV_NUM, "grid_x"),
    COL(K, "grid_y", TC_U32, grid[1], 11, CSV_NUM, "grid_y"),
    COL(K, "grid_z", TC_U32, grid[2], 12, CSV_NUM, "grid_z"),
    COL(K, "block_x", TC_U32, block[0], 13, CSV_NUM, "block_x"),
    COL(K, "block_y", TC_U32, block[1], 14, CSV_NUM, "block_y"),
    COL(K, "block_z", TC_U32, block[2], 15, CSV_NUM, "block_z"),
    COL(K, "regs", TC_U32, regs, 16, CSV_NUM, "regs"),
    COL(K, "static_smem", TC_U32, static_smem, 17, CSV_NUM, "static_smem"),
    COL(K, "dyn_smem", TC_U32, dyn_smem, 18, CSV_NUM, "dyn_smem"),
};

static const struct tcol kernel_cols[] = {
    ROWID,
    SPAN(K),
    {"config_id", TC_CONFIG, 0, 0, 0, 0, NULL},
    COL(K, "correlation", TC_U32, correlation, 8, CSV_NUM, "correlation"),
    COL(K, "stream", TC_U32, stream, 7, CSV_NUM, "stream"),
    COL(K, "pid", TC_U32, pid, 4, CSV_NUM, "pid"),
    COL(K, "device", TC_U32, device, 5, CSV_NUM, "device"),
    COL(K, "context", TC_U32, context, 6, CSV_NUM, "context"),
    COL(K, "graph_id", TC_U32, graph_id, 19, CSV_NUM, "graph_id"),
    /* CSV only: the name as a person reads it, beside the recorded one */
    COL(K, NULL, TC_U32, name_id, 20, CSV_DEMANGLED, "demangled"),
};
#undef K

#define C struct trace_copy
static const struct tcol copy_cols[] = {
    ROWID,
    SPAN(C),
    COL(C, "kind", TC_U8, kind, 9, CSV_COPY, "kind"),
    COL(C, "src_kind", TC_U8, src_kind, 10, CSV_MEM, "src_kind"),
    COL(C, "dst_kind", TC_U8, dst_kind, 11, CSV_MEM, "dst_kind"),
    COL(C, "bytes", TC_U64, bytes, 12, CSV_NUM, "bytes"),
    COL(C, "correlation", TC_U32, correlation, 8, CSV_NUM, "correlation"),
    COL(C, "stream", TC_U32, stream, 7, CSV_NUM, "stream"),
    COL(C, "pid", TC_U32, pid, 4, CSV_NUM, "pid"),
    COL(C, "device", TC_U32, device, 5, CSV_NUM, "device"),
    COL(C, "context", TC_U32, context, 6, CSV_NUM, "context"),
    COL(C, "graph_id", TC_U32, graph_id, 13, CSV_NUM, "graph_id"),
};
#undef C

#define M struct trace_memset
static const struct tcol memset_cols[] = {
    ROWID,
    SPAN(M),
    COL(M, "mem_kind", TC_U8, mem_kind, 9, CSV_MEM, "mem_kind"),
    COL(M, "bytes", TC_U64, bytes, 10, CSV_NUM, "bytes"),
    COL(M, "value", TC_U32, value, 11, CSV_NUM, "value"),
    COL(M, "correlation", TC_U32, correlation, 8, CSV_NUM, "correlation"),
    COL(M, "stream", TC_U32, stream, 7, CSV_NUM, "stream"),
    COL(M, "pid", TC_U32, pid, 4, CSV_NUM, "pid"),
    COL(M, "device", TC_U32, device, 5, CSV_NUM, "device"),
    COL(M, "context", TC_U32, context, 6, CSV_NUM, "context"),
};
#undef M

#define A struct trace_api
static const struct tcol api_cols[] = {
    ROWID,
    SPAN(A),
    COL(A, "name_id", TC_U32, name_id, 7, CSV_STR, "name"),
    COL(A, "domain", TC_U8, domain, 8, CSV_DOMAIN, "domain"),
    COL(A, NULL, TC_U8, kind, 9, CSV_API, "kind"), /* derived from the name on load */
    COL(A, "correlation", TC_U32, correlation, 6, CSV_NUM, "correlation"),
    COL(A, "ret", TC_I32, ret, 10, CSV_NUM, "ret"),
    COL(A, NULL, TC_U32, name_id, 11, CSV_APINAME, "call"), /* CSV only: cudaFree, not _v3020 */
    COL(A, "pid", TC_U32, pid, 4, CSV_NUM, "pid"),
    COL(A, "tid", TC_U32, tid, 5, CSV_NUM, "tid"),
};
#undef A

#define S struct trace_sync
static const struct tcol sync_cols[] = {
    ROWID,
    SPAN(S),
    COL(S, "kind", TC_U8, kind, 9, CSV_SYNC, "kind"),
    COL(S, "correlation", TC_U32, correlation, 8, CSV_NUM, "correlation"),
    COL(S, "stream", TC_U32, stream, 7, CSV_NUM, "stream"),
    COL(S, "pid", TC_U32, pid, 4, CSV_NUM, "pid"),
    COL(S, "device", TC_U32, device, 5, CSV_NUM, "device"),
    COL(S, "context", TC_U32, context, 6, CSV_NUM, "context"),
};
#undef S

#define R struct trace_range
static const struct tcol range_cols[] = {
    ROWID,
    SPAN(R),
    COL(R, "kind", TC_U8, kind, 6, CSV_RANGE, "kind"),
    COL(R, "name_id", TC_U32, name_id, 7, CSV_STR, "name"),
    COL(R, "domain_id", TC_U32, domain_id, 8, CSV_STR, "domain"),
    COL(R, "depth", TC_U32, depth, 9, CSV_NUM, "depth"),
    COL(R, "pid", TC_U32, pid, 4, CSV_NUM, "pid"),
    COL(R, "tid", TC_U32, tid, 5, CSV_NUM, "tid"),
};
#undef R

#define L struct trace_alloc
static const struct tcol alloc_cols[] = {
    ROWID,
    COL(L, "ts_ns", TC_TS, ts_ns, 0, 0, NULL),
    COL(L, "address", TC_U64, address, 0, 0, NULL),
    COL(L, "bytes", TC_I64, bytes, 0, 0, NULL),
    COL(L, "mem_kind", TC_U8, mem_kind, 0, 0, NULL),
    COL(L, "pid", TC_U32, pid, 0, 0, NULL),
    COL(L, "device", TC_U32, device, 0, 0, NULL),
};
#undef L

#define U struct trace_uvm
static const struct tcol uvm_cols[] = {
    COL(U, "start_ns", TC_START, start_ns, 0, 0, NULL),
    COL(U, "dur_ns", TC_DUR, end_ns, 0, 0, NULL),
    COL(U, "kind", TC_U8, kind, 0, 0, NULL),
    COL(U, "value", TC_U64, value, 0, 0, NULL),
    COL(U, "address", TC_U64, address, 0, 0, NULL),
    COL(U, "flags", TC_U32, flags, 0, 0, NULL),
    COL(U, "src", TC_U32, src, 0, 0, NULL),
    COL(U, "dst", TC_U32, dst, 0, 0, NULL),
    COL(U, "pid", TC_U32, pid, 0, 0, NULL),
    COL(U, "device", TC_U32, device, 0, 0, NULL),
};
#undef U

#define X struct trace_sample
static const struct tcol sample_cols[] = {
    COL(X, "ts_ns", TC_TS, ts_ns, 1, CSV_NUM, "ts_ns"),
    COL(X, "device", TC_U32, device, 2, CSV_NUM, "device"),
    COL(X, "metric_id", TC_U32, metric_id, 3, CSV_STR, "metric"),
    COL(X, "value", TC_F64, value, 4, CSV_NUM, "value"),
};
#undef X

#define Q struct trace_counter
static const struct tcol counter_cols[] = {
    COL(Q, "pid", TC_U32, pid, 0, 0, NULL),
    COL(Q, "correlation", TC_U32, correlation, 0, 0, NULL),
    COL(Q, "metric_id", TC_U32, metric_id, 0, 0, NULL),
    COL(Q, "value", TC_F64, value, 0, 0, NULL),
};
#undef Q

#define HF struct trace_host_frame
static const struct tcol host_frame_cols[] = {
    PK(HF, "id", TC_U32, id, 0, 0, NULL),
    COL(HF, "kind", TC_U8, kind, 0, 0, NULL),
    COL(HF, "name_id", TC_U32, name_id, 0, 0, NULL),
    COL(HF, "module_id", TC_U32, module_id, 0, 0, NULL),
    COL(HF, "file_id", TC_U32, file_id, 0, 0, NULL),
    COL(HF, "line", TC_U32, line, 0, 0, NULL),
};
#undef HF

#define HS struct trace_host_stack
static const struct tcol host_stack_cols[] = {
    PK(HS, "id", TC_U32, id, 0, 0, NULL),
    COL(HS, "parent_id", TC_U32, parent_id, 0, 0, NULL),
    COL(HS, "frame_id", TC_U32, frame_id, 0, 0, NULL),
};
#undef HS

#define HX struct trace_host_sample
static const struct tcol host_sample_cols[] = {
    COL(HX, "ts_ns", TC_TS, ts_ns, 0, 0, NULL),
    COL(HX, "pid", TC_U32, pid, 0, 0, NULL),
    COL(HX, "tid", TC_U32, tid, 0, 0, NULL),
    COL(HX, "stack_id", TC_U32, stack_id, 0, 0, NULL),
    COL(HX, "weight_ns", TC_U32, weight_ns, 0, 0, NULL),
    COL(HX, "source", TC_U8, source, 0, 0, NULL),
};
#undef HX

#define HP struct trace_host_sampling
static const struct tcol host_sampling_cols[] = {
    COL(HP, "pid", TC_U32, pid, 0, 0, NULL),
    COL(HP, "mechanism_id", TC_U32, mechanism_id, 0, 0, NULL),
    COL(HP, "hz", TC_F64, hz, 0, 0, NULL),
    COL(HP, "samples", TC_U64, samples, 0, 0, NULL),
    COL(HP, "lost", TC_U64, lost, 0, 0, NULL),
    COL(HP, "cost_ns", TC_U64, cost_ns, 0, 0, NULL),
    COL(HP, "status_id", TC_U32, status_id, 0, 0, NULL),
};
#undef HP

#define HC struct trace_host_sched
static const struct tcol host_sched_cols[] = {
    COL(HC, "ts_ns", TC_TS, ts_ns, 0, 0, NULL),	     COL(HC, "pid", TC_U32, pid, 0, 0, NULL),
    COL(HC, "tid", TC_U32, tid, 0, 0, NULL),	     COL(HC, "cpu_ns", TC_U64, cpu_ns, 0, 0, NULL),
    COL(HC, "wait_ns", TC_U64, wait_ns, 0, 0, NULL), COL(HC, "slices", TC_U64, slices, 0, 0, NULL),
};
#undef HC

#define FW struct trace_framework
static const struct tcol framework_cols[] = {
    COL(FW, "pid", TC_U32, pid, 0, 0, NULL),
    COL(FW, "name_id", TC_U32, name_id, 0, 0, NULL),
    COL(FW, "version_id", TC_U32, version_id, 0, 0, NULL),
    COL(FW, "source_id", TC_U32, source_id, 0, 0, NULL),
    COL(FW, "path_id", TC_U32, path_id, 0, 0, NULL),
};
#undef FW

#define CW struct trace_capture_window
static const struct tcol capture_window_cols[] = {
    COL(CW, "start_ns", TC_START, start_ns, 0, 0, NULL),
    COL(CW, "dur_ns", TC_DUR, end_ns, 0, 0, NULL),
    COL(CW, "pid", TC_U32, pid, 0, 0, NULL),
    COL(CW, "opened_id", TC_U32, opened_id, 0, 0, NULL),
    COL(CW, "closed_id", TC_U32, closed_id, 0, 0, NULL),
    COL(CW, "kernels", TC_U64, kernels, 0, 0, NULL),
};
#undef CW

#define TABLE(sql, cols, arr, type, order, replace, csv)                                           \
	{                                                                                          \
		sql, cols, N(cols), offsetof(struct trace, arr), offsetof(struct trace, n_##arr),  \
		    offsetof(struct trace, cap_##arr), sizeof(struct type), order, replace, csv    \
	}

/* a table added by schema version v */
#define TABLE_V(v, sql, cols, arr, type, order, replace, csv)                                      \
	{                                                                                          \
		sql, cols, N(cols), offsetof(struct trace, arr), offsetof(struct trace, n_##arr),  \
		    offsetof(struct trace, cap_##arr), sizeof(struct type), order, replace, csv, v \
	}

const struct ttable trace_tables[TT_COUNT] = {
    [TT_PROCESSES] = TABLE("processes", process_cols, processes, trace_process, NULL, 1, NULL),
    [TT_DEVICES] = TABLE("devices", device_cols, devices, trace_device, "id", 1, NULL),
    /* rows of a private array in trace_db.c, not of struct trace */
    [TT_LAUNCH_CONFIGS] = {"launch_configs", config_cols, N(config_cols), 0, 0, 0,
			   sizeof(struct trace_kernel), "id", 0, NULL},
    [TT_KERNELS] = TABLE("kernels", kernel_cols, kernels, trace_kernel, NULL, 0, "kernels.csv"),
    [TT_COPIES] = TABLE("copies", copy_cols, copies, trace_copy, NULL, 0, "copies.csv"),
    [TT_MEMSETS] = TABLE("memsets", memset_cols, memsets, trace_memset, NULL, 0, "memsets.csv"),
    [TT_API] = TABLE("api_calls", api_cols, apis, trace_api, NULL, 0, "api.csv"),
    [TT_SYNCS] = TABLE("syncs", sync_cols, syncs, trace_sync, NULL, 0, "syncs.csv"),
    [TT_RANGES] = TABLE("ranges", range_cols, ranges, trace_range, NULL, 0, "ranges.csv"),
    [TT_ALLOCS] = TABLE("allocations", alloc_cols, allocs, trace_alloc, NULL, 0, NULL),
    [TT_SAMPLES] = TABLE("samples", sample_cols, samples, trace_sample, NULL, 0, "samples.csv"),
    [TT_COUNTERS] = TABLE("counters", counter_cols, counters, trace_counter, NULL, 0, NULL),
    /* v2: host sampling (docs/host-sampling.md) */
    [TT_HOST_FRAMES] =
	TABLE_V(2, "host_frames", host_frame_cols, host_frames, trace_host_frame, "id", 1, NULL),
    [TT_HOST_STACKS] =
	TABLE_V(2, "host_stacks", host_stack_cols, host_stacks, trace_host_stack, "id", 1, NULL),
    [TT_HOST_SAMPLES] = TABLE_V(2, "host_samples", host_sample_cols, host_samples,
				trace_host_sample, NULL, 0, NULL),
    [TT_HOST_SAMPLING] = TABLE_V(2, "host_sampling", host_sampling_cols, host_sampling,
				 trace_host_sampling, NULL, 0, NULL),
    [TT_FRAMEWORKS] =
	TABLE_V(2, "frameworks", framework_cols, frameworks, trace_framework, NULL, 0, NULL),
    /* v3: capture ranges (record --capture-range, --delay, --duration) */
    [TT_CAPTURE_WINDOWS] = TABLE_V(3, "capture_windows", capture_window_cols, capture_windows,
				   trace_capture_window, "start_ns", 0, NULL),
    /* v4: threads' scheduler statistics (docs/host-sampling.md) */
    [TT_HOST_SCHED] =
	TABLE_V(4, "host_sched", host_sched_cols, host_sched, trace_host_sched, NULL, 0, NULL),
    /* v5: unified-memory events (record's "uvm" kind; docs/trace-format.md) */
    [TT_UVM] = TABLE_V(5, "uvm", uvm_cols, uvm, trace_uvm, NULL, 0, NULL),
};

const char SCHEMA_VIEWS[] =
    "CREATE VIEW base AS SELECT CAST(value AS INTEGER) AS ns FROM meta WHERE key = 'base_ns';\n"
    "CREATE VIEW kernel_v AS SELECT k.id, k.start_ns + b.ns AS start_ns,"
    " k.start_ns + k.dur_ns + b.ns AS end_ns, k.dur_ns, s.value AS name, c.grid_x, c.grid_y,"
    " c.grid_z, c.block_x, c.block_y, c.block_z, c.regs, c.static_smem, c.dyn_smem,"
    " k.correlation, k.stream, k.pid, k.device, k.context, k.graph_id"
    " FROM kernels k JOIN launch_configs c ON c.id = k.config_id"
    " JOIN strings s ON s.id = c.name_id, base b;\n"
    "CREATE VIEW copy_v AS SELECT c.*, c.start_ns + b.ns AS abs_start_ns FROM copies c, base b;\n"
    "CREATE VIEW api_v AS SELECT a.id, a.start_ns + b.ns AS start_ns, a.dur_ns, s.value AS name,"
    " a.domain, a.correlation, a.ret, a.pid, a.tid FROM api_calls a"
    " JOIN strings s ON s.id = a.name_id, base b;\n"
    "CREATE VIEW range_v AS SELECT r.id, r.start_ns + b.ns AS start_ns, r.dur_ns, r.kind,"
    " s.value AS name, r.depth, r.pid, r.tid FROM ranges r JOIN strings s ON s.id = r.name_id,"
    " base b;\n"
    "CREATE VIEW sample_v AS SELECT x.ts_ns + b.ns AS ts_ns, x.device, s.value AS metric,"
    " x.value FROM samples x JOIN strings s ON s.id = x.metric_id, base b;\n";

int schema_create_sql(char *buf, size_t cap, const struct ttable *tt)
{
	size_t at = 0;
	int n = snprintf(buf, cap, "CREATE TABLE %s(", tt->name);
	if (n < 0 || (size_t)n >= cap)
		return -1;
	at = (size_t)n;
	int first = 1;
	for (size_t i = 0; i < tt->n_cols; i++) {
		const struct tcol *c = &tt->cols[i];
		if (!c->name)
			continue;
		const char *type = c->pk	       ? "INTEGER PRIMARY KEY"
				   : c->kind == TC_F64 ? "REAL"
						       : "INTEGER";
		n = snprintf(buf + at, cap - at, "%s%s %s", first ? "" : ", ", c->name, type);
		if (n < 0 || (size_t)n >= cap - at)
			return -1;
		at += (size_t)n;
		first = 0;
	}
	n = snprintf(buf + at, cap - at, ");\n");
	if (n < 0 || (size_t)n >= cap - at)
		return -1;
	return (int)(at + (size_t)n);
}

char *schema_sql(void)
{
	size_t cap = sizeof(SCHEMA_META) + sizeof(SCHEMA_VIEWS) + TT_COUNT * 1024;
	char *s = malloc(cap);
	if (!s)
		return NULL;
	size_t at = (size_t)snprintf(s, cap, "%s", SCHEMA_META);
	for (int i = 0; i < TT_COUNT; i++) {
		int n = schema_create_sql(s + at, cap - at, &trace_tables[i]);
		if (n < 0) {
			free(s);
			return NULL;
		}
		at += (size_t)n;
	}
	snprintf(s + at, cap - at, "%s", SCHEMA_VIEWS);
	return s;
}
