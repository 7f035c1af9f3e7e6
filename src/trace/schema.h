/*
 * schema.h - the SQL of the trace database, schema v1 (docs/trace-format.md).
 *
 * Design notes:
 *  1. Times are stored relative to meta 'base_ns' (the earliest timestamp of
 *     the trace) with a duration instead of an end: both fit in a few bytes
 *     of SQLite's varint encoding, which is what keeps a kernel row small.
 *  2. A kernel's name, grid, block, registers and shared memory live in one
 *     shared launch_configs row: a run launches the same configuration
 *     thousands of times.
 *  3. Views (kernel_v, copy_v, ...) give the flat, absolute-time tables back
 *     for people with `sqlite3`; gpuscope itself reads the tables.
 *  4. No indexes: readers load whole tables in one scan.
 */
#ifndef GPUSCOPE_SCHEMA_H
#define GPUSCOPE_SCHEMA_H

static const char SCHEMA_V1[] =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;\n"
    "CREATE TABLE strings(id INTEGER PRIMARY KEY, value TEXT NOT NULL);\n"
    "CREATE TABLE processes(pid INTEGER PRIMARY KEY, parent_pid INTEGER, cmdline_id INTEGER,"
    " start_ns INTEGER, end_ns INTEGER, dropped_records INTEGER, overhead_ns INTEGER,"
    " status_id INTEGER);\n"
    "CREATE TABLE devices(id INTEGER PRIMARY KEY, name_id INTEGER, cc_major INTEGER,"
    " cc_minor INTEGER, sm_count INTEGER, mem_bytes INTEGER, mem_bandwidth_bps INTEGER,"
    " max_threads_per_sm INTEGER, max_blocks_per_sm INTEGER, regs_per_sm INTEGER,"
    " smem_per_sm INTEGER, max_smem_per_block INTEGER, warp_size INTEGER, pcie_gen INTEGER,"
    " pcie_width INTEGER);\n"
    "CREATE TABLE launch_configs(id INTEGER PRIMARY KEY, name_id INTEGER, grid_x INTEGER,"
    " grid_y INTEGER, grid_z INTEGER, block_x INTEGER, block_y INTEGER, block_z INTEGER,"
    " regs INTEGER, static_smem INTEGER, dyn_smem INTEGER);\n"
    "CREATE TABLE kernels(id INTEGER PRIMARY KEY, start_ns INTEGER, dur_ns INTEGER,"
    " config_id INTEGER, correlation INTEGER, stream INTEGER, pid INTEGER, device INTEGER,"
    " context INTEGER, graph_id INTEGER);\n"
    "CREATE TABLE copies(id INTEGER PRIMARY KEY, start_ns INTEGER, dur_ns INTEGER, kind INTEGER,"
    " src_kind INTEGER, dst_kind INTEGER, bytes INTEGER, correlation INTEGER, stream INTEGER,"
    " pid INTEGER, device INTEGER, context INTEGER, graph_id INTEGER);\n"
    "CREATE TABLE memsets(id INTEGER PRIMARY KEY, start_ns INTEGER, dur_ns INTEGER,"
    " mem_kind INTEGER, bytes INTEGER, value INTEGER, correlation INTEGER, stream INTEGER,"
    " pid INTEGER, device INTEGER, context INTEGER);\n"
    "CREATE TABLE api_calls(id INTEGER PRIMARY KEY, start_ns INTEGER, dur_ns INTEGER,"
    " name_id INTEGER, domain INTEGER, correlation INTEGER, ret INTEGER, pid INTEGER,"
    " tid INTEGER);\n"
    "CREATE TABLE syncs(id INTEGER PRIMARY KEY, start_ns INTEGER, dur_ns INTEGER, kind INTEGER,"
    " correlation INTEGER, stream INTEGER, pid INTEGER, device INTEGER, context INTEGER);\n"
    "CREATE TABLE ranges(id INTEGER PRIMARY KEY, start_ns INTEGER, dur_ns INTEGER, kind INTEGER,"
    " name_id INTEGER, domain_id INTEGER, depth INTEGER, pid INTEGER, tid INTEGER);\n"
    "CREATE TABLE allocations(id INTEGER PRIMARY KEY, ts_ns INTEGER, address INTEGER,"
    " bytes INTEGER, mem_kind INTEGER, pid INTEGER, device INTEGER);\n"
    "CREATE TABLE samples(ts_ns INTEGER, device INTEGER, metric_id INTEGER, value REAL);\n"
    "CREATE TABLE counters(pid INTEGER, correlation INTEGER, metric_id INTEGER, value REAL);\n"
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

#endif
