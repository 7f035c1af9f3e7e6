/*
 * pyframes.h - the Python stacks of a running CPython 3.9-3.13 process,
 * read from outside it (process_vm_readv(2)), as py-spy and Austin do:
 * nothing is loaded into the program, it is never stopped, and it needs no
 * frame pointers or perf trampolines. record's launcher samples with it
 * where perf events give no Python frames (3.9-3.11, or perf refused).
 *
 * How: find the interpreter's ELF (libpython3.X.so or the python3.X
 * executable) in /proc/PID/maps, look up _PyRuntime and PyCode_Type in its
 * dynamic symbol table (libelf), then per sample follow
 * _PyRuntime -> interpreters -> thread states -> frames -> code objects with
 * the offsets of py_offsets.h (3.13+: the process's own _Py_DebugOffsets).
 *
 * Invariants:
 *  1. The target runs while it is read, so a chain can be torn: every
 *     pointer read is bounded (PY_MAX_DEPTH frames, 64 threads, 8
 *     interpreters), every code object is checked to be one (its type is
 *     PyCode_Type) and a sample that does not check out is counted as
 *     torn, never returned half-made.
 *  2. Code objects are described once (name, qualified name, file, first
 *     line) and get an id; a sample holds ids, which stay valid after the
 *     process is gone. Each sample reads the head of every code object on
 *     its stacks afresh (in the sample's prefetch or one batched read:
 *     pyframes.c), so a code object freed and another created at the same
 *     address (a module's <module> code, freed after the import, and a
 *     function compiled later) gets its own id, never the old names.
 *  3. Refusals (ptrace rules, seccomp, a container) and "not CPython" /
 *     "CPython 3.8" come back as one-line reasons; the program never
 *     notices.
 */
#ifndef GPUSCOPE_HOSTSAMPLE_PYFRAMES_H
#define GPUSCOPE_HOSTSAMPLE_PYFRAMES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hostsample/py_offsets.h"
#include "util/hmap.h"

#define PY_MAX_DEPTH 128
#define PY_MAX_THREADS 64

struct py_thread_stack {
	uint32_t tid; /* the OS thread id; 0 = unknown (3.9, 3.10 non-main threads) */
	int is_main;  /* the interpreter's main thread */
	uint32_t n;   /* frames, innermost first */
	uint64_t code[PY_MAX_DEPTH]; /* code ids (py_reader_code) */
};

struct py_code_info {
	const char *name;    /* co_qualname (3.11+) or co_name */
	const char *file;    /* co_filename */
	uint32_t first_line; /* co_firstlineno */
};

struct py_reader_stats {
	uint64_t samples, torn, reads, read_errors;
	uint64_t prefetched; /* reads served by the prefetch */
	uint64_t ns;	     /* time spent in py_reader_sample */
};

/* Reads n bytes at addr of the target into buf; 0 or -1 (errno set). */
typedef int (*py_read_fn)(void *ctx, uint64_t addr, void *buf, size_t n);

struct py_reader {
	pid_t pid;
	struct py_offsets off;
	uint32_t version_hex; /* PY_VERSION_HEX when known (Py_Version, _Py_DebugOffsets), else
				 major.minor */
	uint64_t runtime, code_type; /* addresses of _PyRuntime, PyCode_Type */
	uint16_t ob_type;	     /* PyObject.ob_type (8, or the debug offsets') */
	char elf[4096];		     /* the file holding the interpreter */
	py_read_fn read;
	void *read_ctx;
	struct py_code_slot *codes; /* id - 1 */
	size_t n_codes, cap_codes;
	struct u64map by_addr; /* address -> latest id there */
	struct py_reader_stats stats;
	/* one sample's reads (pyframes.c "batched reads"): blocks of the
	 * thread's frame stack (3.11+) and the code objects' heads */
	unsigned char *blocks, *heads; /* PY_BLOCKS x PY_BLOCK, PY_MAX_DEPTH x PY_HEAD */
	unsigned char *hscratch;       /* the heads' ranges as read */
	uint64_t blk_base[4];
	uint32_t blk_len[4];
	unsigned blk_next;
	/* the reads of the sample before, made again in one call when a sample
	 * starts (pyframes.c "prefetch"): pf (n_pf; heads ranges from n_pf_chain
	 * on, by address) read into pf_buf; pf_next collects this sample's */
	struct py_pf {
		uint64_t addr;
		uint32_t len, off;
		uint64_t noted; /* the sample that noted it again */
		int head;
	} * pf, *pf_next;
	uint32_t n_pf, n_pf_chain, n_pf_next, pf_bytes_next, pf_cur;
	unsigned char *pf_buf;
	int pf_rec; /* rd() notes its reads */
};

/* Attaches to process pid: finds the interpreter, its version and offsets,
 * and makes one test read. Returns 0, or -1 with a one-line reason in err:
 * not CPython, an unsupported version, or the read refused (and why). */
int py_reader_open(struct py_reader *r, pid_t pid, char *err);

/* One sample: the stacks of up to cap threads (every thread with a thread
 * state). Returns the threads filled, or -1 when the process is gone or
 * unreadable (errno set), or -2 for a torn sample (counted; try later). */
int py_reader_sample(struct py_reader *r, struct py_thread_stack *out, size_t cap);

/* One frame's n bytes at addr through the current sample's blocks
 * (pyframes.c "batched reads"; r->blocks set): 0, or -1 when addr is not a
 * user-space address (a torn chain), n is more than a block, or the read
 * fails. For py_reader_sample and its tests. */
int py_block_read(struct py_reader *r, uint64_t addr, void *buf, size_t n);

/* Describes the code object of id (from a sample; invariant 2), also after
 * the process ended. Returns 0, or -1 for an unknown id ("?" names). */
int py_reader_code(const struct py_reader *r, uint32_t id, struct py_code_info *out);

void py_reader_close(struct py_reader *r);

/* The offsets row for a version (0x030c), or NULL when unsupported. */
const struct py_offsets *py_offsets_for(unsigned version);

/* Major/minor from an interpreter file name: ".../libpython3.12.so.1.0",
 * ".../python3.9" -> 0x030c, 0x0309; 0 when the name does not say. */
unsigned py_version_from_path(const char *path);

#endif
