/*
 * symbolize.h - instruction addresses of sampled processes -> function
 * names, after the fact (the processes may have exited): the executable
 * mappings each process had (perf MMAP2 records or /proc/PID/maps) and the
 * ELF files' symbol tables, read with elfutils' libdwfl; JIT code through
 * perf map files (/tmp/perf-PID.map: CPython 3.12+'s perf trampolines with
 * PYTHONPERFSUPPORT=1, also the JVM's and V8's).
 *
 * Invariants:
 *  1. Nothing here reaches the network: separate debug files are looked up
 *     by build id under /usr/lib/debug only (never debuginfod).
 *  2. An ELF file is opened once per symbolizer whatever the number of
 *     processes mapping it; a file that cannot be read gives unknown names
 *     (module and offset still known), never an error.
 *  3. Returned strings belong to the symbolizer and live until
 *     symbolizer_release.
 */
#ifndef GPUSCOPE_HOSTSAMPLE_SYMBOLIZE_H
#define GPUSCOPE_HOSTSAMPLE_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>

enum sym_kind {
	SYM_UNKNOWN = 0, /* no mapping covers the address */
	SYM_NATIVE = 1,	 /* a function of a mapped ELF file (name may be "") */
	SYM_PYTHON = 2,	 /* a CPython perf trampoline: "py::NAME:FILE" */
	SYM_JIT = 3,	 /* another perf map entry */
};

struct sym_result {
	enum sym_kind kind;
	const char *name;   /* function ("" when the file has no symbol for it) */
	const char *module; /* file path of the mapping, or "[perf-map]" */
	const char *file;   /* SYM_PYTHON: the source file, else "" */
	uint64_t offset;    /* address - symbol start (or - mapping start if no symbol) */
};

struct sym_map {
	uint64_t start, end, pgoff;
	uint32_t file; /* index into files */
};

struct sym_proc {
	uint32_t pid;
	/* the process it was forked from (0: none known), and whether it has
	 * exec'd since: until then it runs its parent's mappings, which no
	 * MMAP2 record repeats for it */
	uint32_t parent;
	int execd;
	struct sym_map *maps;
	size_t n_maps, cap_maps;
	int sorted;
	struct sym_jit *jit; /* perf map entries, sorted */
	size_t n_jit;
};

struct symbolizer {
	struct sym_file *files;
	size_t n_files, cap_files;
	struct sym_proc *procs;
	size_t n_procs, cap_procs;
	uint64_t lookups, resolved; /* for the probe's numbers */
};

void symbolizer_init(struct symbolizer *z);
void symbolizer_release(struct symbolizer *z);

/* One executable mapping of process pid: [start, start+len) maps path from
 * file offset pgoff. Returns 0, or -1 when out of memory. */
int symbolizer_add_map(struct symbolizer *z, uint32_t pid, uint64_t start, uint64_t len,
		       uint64_t pgoff, const char *path);

/* Every executable file mapping in /proc/PID/maps (a live process).
 * Returns the mappings added, or -1 when the file cannot be read. */
int symbolizer_add_proc_maps(struct symbolizer *z, uint32_t pid);

/* Process child was forked from parent (a FORK record): an address that
 * none of child's own mappings covers is looked up in parent's, until
 * child execs (symbolizer_exec). A forked worker that never execs (a
 * DataLoader worker) has no mapping records of its own. Returns 0, or -1
 * when out of memory. */
int symbolizer_fork(struct symbolizer *z, uint32_t child, uint32_t parent);

/* Process pid exec'd: its parent's mappings are no longer its. 0, or -1
 * when out of memory. */
int symbolizer_exec(struct symbolizer *z, uint32_t pid);

/* Reads a perf map file ("START SIZE NAME" lines, hex) for pid. Malformed
 * lines are skipped; at most 4M entries. Returns the entries read, or -1
 * when the file cannot be opened. */
long symbolizer_load_perf_map(struct symbolizer *z, uint32_t pid, const char *path);

/* Resolves ip of process pid. return_address: 1 for every frame but the
 * innermost (the call instruction is looked up, ip - 1). Always fills *out. */
void symbolizer_lookup(struct symbolizer *z, uint32_t pid, uint64_t ip, int return_address,
		       struct sym_result *out);

#endif
