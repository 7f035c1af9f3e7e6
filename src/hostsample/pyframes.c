/*
 * pyframes.c - CPython stacks read from outside the process (pyframes.h).
 */
#include "hostsample/pyframes.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "util/error.h"
#include "util/knobs.h"
#include "util/vec.h"

#define MAX_INTERPS 8
#define MAX_NAME 512

/* one described code object; its id is its index + 1 */
struct py_code_slot {
	uint64_t addr;		 /* where it was */
	uint64_t name_p, file_p; /* its co_(qual)name and co_filename objects ... */
	int32_t line;		 /* ... and first line: what tells it from a later one there */
	char *name, *file;
};

const struct py_offsets *py_offsets_for(unsigned version)
{
	for (size_t i = 0; i < sizeof(py_offsets_table) / sizeof(py_offsets_table[0]); i++)
		if (py_offsets_table[i].version == version)
			return &py_offsets_table[i];
	return NULL;
}

unsigned py_version_from_path(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *p = strncmp(base, "libpython", 9) == 0 ? base + 9
			: strncmp(base, "python", 6) == 0  ? base + 6
							   : NULL;
	unsigned maj, min;
	int n = 0;
	if (!p || sscanf(p, "%u.%u%n", &maj, &min, &n) != 2 || maj != 3 || min > 99)
		return 0;
	return maj << 8 | min;
}

static int vm_read(void *ctx, uint64_t addr, void *buf, size_t n)
{
	pid_t pid = (pid_t)(intptr_t)ctx;
	struct iovec l = {buf, n}, r = {(void *)(uintptr_t)addr, n};
	ssize_t got = process_vm_readv(pid, &l, 1, &r, 1, 0);
	if (got == (ssize_t)n)
		return 0;
	if (got >= 0)
		errno = EFAULT;
	return -1;
}

/* Where user space can hold an object: above the first page and below 2^56
 * (x86-64 with 5-level paging; arm64 has 52 bits). A pointer read from a
 * torn frame can be anything, and addr + n must not wrap around. */
#define PY_ADDR_MIN 4096ull
#define PY_ADDR_MAX (1ull << 56)

static int addr_ok(uint64_t addr, size_t n)
{
	return addr >= PY_ADDR_MIN && addr < PY_ADDR_MAX && n <= PY_ADDR_MAX - addr;
}

static const unsigned char *pf_chain_find(struct py_reader *r, uint64_t addr, size_t n,
					  const struct py_pf **ep);
static void pf_note(struct py_reader *r, uint64_t addr, uint32_t len, int head);

static int rd(struct py_reader *r, uint64_t addr, void *buf, size_t n)
{
	const unsigned char *p;
	if (addr_ok(addr, n) && (p = pf_chain_find(r, addr, n, NULL))) {
		memcpy(buf, p, n);
		r->stats.prefetched++;
	} else {
		r->stats.reads++;
		if (!addr_ok(addr, n) || r->read(r->read_ctx, addr, buf, n) < 0) {
			r->stats.read_errors++;
			return -1;
		}
	}
	if (r->pf_rec)
		pf_note(r, addr, (uint32_t)n, 0);
	return 0;
}

static int rd_ptr(struct py_reader *r, uint64_t addr, uint64_t *out)
{
	return rd(r, addr, out, sizeof(*out));
}

/* The n pointers at base + offs[i] (an offset PY_OFF_NONE leaves its 0) in
 * one read of the bytes they span (each read costs a system call and a
 * page pin: a thread state's fields are four reads otherwise); 0 or -1 */
static int rd_ptrs(struct py_reader *r, uint64_t base, const uint16_t *offs, int n, uint64_t *out)
{
	unsigned lo = PY_OFF_NONE, hi = 0;
	for (int i = 0; i < n; i++) {
		out[i] = 0;
		if (offs[i] == PY_OFF_NONE)
			continue;
		lo = offs[i] < lo ? offs[i] : lo;
		hi = offs[i] + 8u > hi ? offs[i] + 8u : hi;
	}
	if (!hi)
		return 0;
	unsigned char buf[1024];
	if (hi - lo > sizeof(buf)) { /* fields far apart: one read each */
		for (int i = 0; i < n; i++)
			if (offs[i] != PY_OFF_NONE && rd_ptr(r, base + offs[i], &out[i]) < 0)
				return -1;
		return 0;
	}
	if (rd(r, base + lo, buf, hi - lo) < 0)
		return -1;
	for (int i = 0; i < n; i++)
		if (offs[i] != PY_OFF_NONE)
			memcpy(&out[i], buf + (offs[i] - lo), 8);
	return 0;
}

/* --- finding the interpreter ------------------------------------------ */

struct elf_syms {
	uint64_t runtime, code_type, py_version;
	uint64_t first_load_vaddr;
};

/* _PyRuntime, PyCode_Type, Py_Version in the ELF's symbol tables */
static int elf_lookup(const char *path, struct elf_syms *out)
{
	memset(out, 0, sizeof(*out));
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e) {
		close(fd);
		return -1;
	}
	size_t nph = 0;
	int have_load = 0;
	if (elf_getphdrnum(e, &nph) == 0)
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && !have_load) {
				out->first_load_vaddr =
				    ph.p_vaddr & ~(uint64_t)(ph.p_align ? ph.p_align - 1 : 0);
				have_load = 1;
			}
		}
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB) || !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; d && i < n; i++) {
			GElf_Sym s;
			if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF || !s.st_value)
				continue;
			const char *name = elf_strptr(e, sh.sh_link, s.st_name);
			if (!name || (name[0] != '_' && name[0] != 'P'))
				continue;
			if (strcmp(name, "_PyRuntime") == 0)
				out->runtime = s.st_value;
			else if (strcmp(name, "PyCode_Type") == 0)
				out->code_type = s.st_value;
			else if (strcmp(name, "Py_Version") == 0)
				out->py_version = s.st_value;
		}
	}
	elf_end(e);
	close(fd);
	return out->runtime && out->code_type ? 0 : -1;
}

struct mapped_file {
	char path[4096];
	uint64_t start; /* mapping with file offset 0 */
};

/* Interpreter candidates from /proc/PID/maps: libpython first, then the
 * main executable (a python built without --enable-shared). */
static int find_interp_files(pid_t pid, struct mapped_file *out, int cap)
{
	char p[64];
	snprintf(p, sizeof(p), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(p, "re");
	if (!f)
		return -1;
	char exe[4096] = "";
	snprintf(p, sizeof(p), "/proc/%d/exe", (int)pid);
	ssize_t k = readlink(p, exe, sizeof(exe) - 1);
	exe[k > 0 ? k : 0] = '\0';
	int n = 0, exe_at = -1;
	char line[4096 + 256];
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		int pos = 0;
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &s, &e, &off, &pos) < 3 || !pos ||
		    off != 0)
			continue;
		char *name = line + pos;
		name[strcspn(name, "\n")] = '\0';
		if (name[0] != '/')
			continue;
		const char *base = strrchr(name, '/') + 1;
		int is_lib = strncmp(base, "libpython3", 10) == 0;
		int is_exe = strcmp(name, exe) == 0;
		if ((!is_lib && !is_exe) || n >= cap)
			continue;
		int dup = 0;
		for (int i = 0; i < n; i++)
			dup |= strcmp(out[i].path, name) == 0;
		if (dup)
			continue;
		snprintf(out[n].path, sizeof(out[n].path), "%s", name);
		out[n].start = s;
		if (is_exe)
			exe_at = n;
		n++;
	}
	fclose(f);
	/* the executable last */
	if (exe_at >= 0 && exe_at != n - 1) {
		struct mapped_file t = out[exe_at];
		memmove(&out[exe_at], &out[exe_at + 1], sizeof(*out) * (size_t)(n - 1 - exe_at));
		out[n - 1] = t;
	}
	return n;
}

static const char *read_refusal(int e, char *buf, size_t cap)
{
	if (e == EPERM || e == EACCES)
		snprintf(buf, cap,
			 "process_vm_readv refused (%s): reading another process's memory needs "
			 "ptrace access (kernel.yama.ptrace_scope, a container without "
			 "CAP_SYS_PTRACE, or a seccomp filter)",
			 e == EPERM ? "EPERM" : "EACCES");
	else if (e == ENOSYS)
		snprintf(buf, cap,
			 "process_vm_readv is not available (ENOSYS: seccomp or an old "
			 "kernel)");
	else if (e == ESRCH)
		snprintf(buf, cap, "the process ended");
	else
		snprintf(buf, cap, "process_vm_readv failed: %s", strerror(e));
	return buf;
}

/* 3.13+: the offsets the interpreter publishes about itself
 * (_Py_DebugOffsets, Include/internal/pycore_runtime.h), read as uint64
 * slots; the slot numbers follow that struct's 3.13 field order. */
enum {
	DBG_VERSION = 1,
	DBG_FREE_THREADED = 2,
	DBG_RT_INTERP_HEAD = 5,
	DBG_IS_NEXT = 8,
	DBG_IS_THREADS_HEAD = 9,
	DBG_TS_NEXT = 21,
	DBG_TS_CURRENT_FRAME = 23,
	DBG_TS_THREAD_ID = 24,
	DBG_TS_NATIVE_TID = 25,
	DBG_FR_PREVIOUS = 29,
	DBG_FR_EXECUTABLE = 30,
	DBG_FR_OWNER = 33,
	DBG_CO_FILENAME = 35,
	DBG_CO_NAME = 36,
	DBG_CO_QUALNAME = 37,
	DBG_CO_FIRSTLINENO = 39,
	DBG_OB_TYPE = 45,
	DBG_UNICODE_LENGTH = 69,
	DBG_UNICODE_ASCII_SIZE = 70,
	DBG_SLOTS = 73,
};

static int apply_debug_offsets(struct py_reader *r)
{
	uint64_t d[DBG_SLOTS];
	if (rd(r, r->runtime, d, sizeof(d)) < 0 || memcmp(d, "xdebugpy", 8) != 0)
		return -1;
	unsigned minor = (unsigned)(d[DBG_VERSION] >> 16 & 0xff);
	if (d[DBG_VERSION] >> 24 != 3 || minor != 13)
		return -1; /* another layout of the struct itself (3.14+) */
	static const int used[] = {DBG_RT_INTERP_HEAD, DBG_IS_NEXT,	      DBG_IS_THREADS_HEAD,
				   DBG_TS_NEXT,	       DBG_TS_CURRENT_FRAME,  DBG_TS_THREAD_ID,
				   DBG_TS_NATIVE_TID,  DBG_FR_PREVIOUS,	      DBG_FR_EXECUTABLE,
				   DBG_FR_OWNER,       DBG_CO_FILENAME,	      DBG_CO_NAME,
				   DBG_CO_QUALNAME,    DBG_CO_FIRSTLINENO,    DBG_OB_TYPE,
				   DBG_UNICODE_LENGTH, DBG_UNICODE_ASCII_SIZE};
	for (size_t i = 0; i < sizeof(used) / sizeof(used[0]); i++)
		if (d[used[i]] >= 0x8000)
			return -1;
	struct py_offsets *o = &r->off;
	o->runtime_interp_head = (uint16_t)d[DBG_RT_INTERP_HEAD];
	o->interp_next = (uint16_t)d[DBG_IS_NEXT];
	o->interp_threads = (uint16_t)d[DBG_IS_THREADS_HEAD];
	o->ts_next = (uint16_t)d[DBG_TS_NEXT];
	o->ts_frame = (uint16_t)d[DBG_TS_CURRENT_FRAME];
	o->cframe_frame = PY_OFF_NONE;
	o->ts_thread_id = (uint16_t)d[DBG_TS_THREAD_ID];
	o->ts_native_tid = (uint16_t)d[DBG_TS_NATIVE_TID];
	o->fr_back = (uint16_t)d[DBG_FR_PREVIOUS];
	o->fr_code = (uint16_t)d[DBG_FR_EXECUTABLE];
	o->fr_owner = (uint16_t)d[DBG_FR_OWNER];
	o->co_filename = (uint16_t)d[DBG_CO_FILENAME];
	o->co_name = (uint16_t)d[DBG_CO_NAME];
	o->co_qualname = (uint16_t)d[DBG_CO_QUALNAME];
	o->co_firstlineno = (uint16_t)d[DBG_CO_FIRSTLINENO];
	o->unicode_length = (uint16_t)d[DBG_UNICODE_LENGTH];
	o->ascii_size = (uint16_t)d[DBG_UNICODE_ASCII_SIZE];
	o->compact_size = (uint16_t)(o->ascii_size + 16); /* + utf8_length, utf8 */
	r->ob_type = (uint16_t)d[DBG_OB_TYPE];
	/* the main thread's pthread id is not published: 3.11+ tells the
	 * main thread by its native id */
	r->version_hex = (uint32_t)d[DBG_VERSION];
	return 0;
}

static void batch_init(struct py_reader *r);

int py_reader_open(struct py_reader *r, pid_t pid, char *err)
{
	memset(r, 0, sizeof(*r));
	r->pid = pid;
	r->read = vm_read;
	r->read_ctx = (void *)(intptr_t)pid;
	r->ob_type = 8;
	struct mapped_file *files = calloc(8, sizeof(*files));
	if (!files)
		return error_set(err, "out of memory");
	int n = find_interp_files(pid, files, 8);
	if (n < 0) {
		free(files);
		return error_set(err, "cannot read /proc/%d/maps (the process ended?)", (int)pid);
	}
	struct elf_syms sy;
	int found = -1;
	for (int i = 0; i < n && found < 0; i++)
		if (elf_lookup(files[i].path, &sy) == 0)
			found = i;
	if (found < 0) {
		free(files);
		return error_set(err, "not a CPython process (no _PyRuntime symbol)");
	}
	snprintf(r->elf, sizeof(r->elf), "%s", files[found].path);
	uint64_t bias = files[found].start - sy.first_load_vaddr;
	free(files);
	r->runtime = sy.runtime + bias;
	r->code_type = sy.code_type + bias;
	unsigned ver = py_version_from_path(r->elf);
	uint64_t hex = 0;
	if (sy.py_version && rd(r, sy.py_version + bias, &hex, sizeof(hex)) < 0) {
		char why[GS_ERR_LEN];
		return error_set(err, "%s", read_refusal(errno, why, sizeof(why)));
	}
	if (hex >> 24 == 3) {
		ver = (unsigned)(hex >> 16 & 0xffff);
		r->version_hex = (uint32_t)hex;
	} else {
		r->version_hex = ver << 16;
	}
	const struct py_offsets *o = py_offsets_for(ver);
	if (!o) {
		if (!ver)
			return error_set(err, "cannot tell the CPython version of '%s'", r->elf);
		return error_set(err, "CPython %u.%u is not supported (3.9-3.13)", ver >> 8,
				 ver & 0xff);
	}
	r->off = *o;
	uint64_t probe;
	if (rd(r, r->runtime, &probe, sizeof(probe)) < 0) {
		char why[GS_ERR_LEN];
		return error_set(err, "%s", read_refusal(errno, why, sizeof(why)));
	}
	if (ver >= 0x030d && apply_debug_offsets(r) < 0)
		return error_set(err, "CPython %u.%u: _Py_DebugOffsets not found or not understood",
				 ver >> 8, ver & 0xff);
	batch_init(r);
	return 0;
}

void py_reader_close(struct py_reader *r)
{
	for (size_t i = 0; i < r->n_codes; i++) {
		free(r->codes[i].name);
		free(r->codes[i].file);
	}
	free(r->codes);
	free(r->blocks);
	free(r->heads);
	free(r->hscratch);
	free(r->pf);
	free(r->pf_next);
	free(r->pf_buf);
	r->blocks = r->heads = r->hscratch = r->pf_buf = NULL;
	r->pf = r->pf_next = NULL;
	r->n_pf = r->n_pf_chain = r->n_pf_next = 0;
	u64map_release(&r->by_addr);
	r->codes = NULL;
	r->n_codes = r->cap_codes = 0;
}

/* --- sampling ------------------------------------------------------------ */

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int read_str(struct py_reader *r, uint64_t obj, char *out, size_t cap);

/* The id of the code object at addr whose head (span bytes) is h
 * (described when new or when another code object now lives there:
 * invariant 2); 0 when addr holds none (a torn chain, invariant 1) or its
 * strings cannot be read. */
static uint32_t code_id(struct py_reader *r, uint64_t addr, const unsigned char *h)
{
	const struct py_offsets *o = &r->off;
	uint16_t name_off = o->co_qualname != PY_OFF_NONE ? o->co_qualname : o->co_name;
	uint64_t type, name_p, file_p;
	int32_t line;
	memcpy(&type, h + r->ob_type, 8);
	memcpy(&name_p, h + name_off, 8);
	memcpy(&file_p, h + o->co_filename, 8);
	memcpy(&line, h + o->co_firstlineno, 4);
	if (type != r->code_type)
		return 0;
	uint64_t id;
	if (u64map_get(&r->by_addr, addr, &id)) {
		const struct py_code_slot *c = &r->codes[id - 1];
		if (c->name_p == name_p && c->file_p == file_p && c->line == line)
			return (uint32_t)id;
	}
	char name[MAX_NAME * 4 + 1], file[MAX_NAME * 4 + 1];
	if (read_str(r, name_p, name, sizeof(name)) < 0 ||
	    read_str(r, file_p, file, sizeof(file)) < 0)
		return 0;
	struct py_code_slot *c = VEC_PUSH(r->codes, r->n_codes, r->cap_codes);
	if (!c)
		return 0;
	*c = (struct py_code_slot){addr, name_p, file_p, line, strdup(name), strdup(file)};
	if (!c->name || !c->file || u64map_put(&r->by_addr, addr, r->n_codes) < 0) {
		free(c->name);
		free(c->file);
		r->n_codes--;
		return 0;
	}
	return (uint32_t)r->n_codes;
}

/* --- batched reads ------------------------------------------------------
 * A sample of a 100-frame stack took 200 process_vm_readv calls (a frame,
 * then its code object's head, ~1 us each: ~100 us a sample, 10% of a CPU
 * at 1 kHz). On 3.11+ the frames of a thread lie next to each other on its
 * data stack (older ones below), so a frame is read with the PY_BLOCK bytes
 * below its end, which hold the next ones too (blocks are kept for one
 * sample only: the program runs on); the code objects' heads are then read
 * in one call of one remote iovec each. */
#define PY_BLOCKS 4
#define PY_BLOCK 8192u
#define PY_HEAD 512u
#define PY_HSCRATCH ((size_t)PY_MAX_DEPTH * PY_HEAD * 2)
#define PAGE 4096ull

static ssize_t vm_readv(pid_t pid, void *buf, size_t n, const struct iovec *riov, size_t nr)
{
	struct iovec l = {buf, n};
	return process_vm_readv(pid, &l, 1, riov, (unsigned long)nr, 0);
}

/* --- prefetch ----------------------------------------------------------
 * A sample's reads are mostly the ones of the sample before: the same
 * runtime, interpreter and thread states, the same blocks of the frame
 * stack, the heads of the outer frames' code objects. Each read a sample
 * makes is noted (address and length, PY_PF_MAX of them, PY_PF_BYTES in
 * all), and the next sample starts with all of them in one
 * process_vm_readv; its reads are then served from that copy where they
 * lie inside a noted range, and made on their own where not (a new frame
 * block, a new thread, the inner frames' heads). The copy is as fresh as a
 * read: it is made when the sample starts, and a range the call could not
 * read (a thread gone, its memory unmapped: the call stops at the first
 * such iovec) serves nothing. The chain's ranges are looked up from where
 * the last hit was (they come back in the same order), the heads' ranges
 * by binary search. */
#define PY_PF_MAX 512u
#define PY_PF_BYTES (256u * 1024u)

static void pf_note(struct py_reader *r, uint64_t addr, uint32_t len, int head)
{
	if (!r->pf_next || r->n_pf_next >= PY_PF_MAX || len > PY_PF_BYTES - r->pf_bytes_next)
		return;
	if (r->n_pf_next) {
		const struct py_pf *last = &r->pf_next[r->n_pf_next - 1];
		if (last->addr == addr && last->len == len)
			return;
	}
	r->pf_next[r->n_pf_next++] = (struct py_pf){addr, len, 0, 0, head};
	r->pf_bytes_next += len;
}

/* an entry of the prefetch that served this sample, noted again once */
static void pf_note_entry(struct py_reader *r, struct py_pf *e)
{
	if (e->noted != r->stats.samples) {
		e->noted = r->stats.samples;
		pf_note(r, e->addr, e->len, e->head);
	}
}

static int cmp_pf(const void *x, const void *y)
{
	const struct py_pf *a = x, *b = y;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* the sample's start: the last sample's notes become the prefetch, read */
static void pf_start(struct py_reader *r)
{
	r->n_pf = r->n_pf_chain = r->pf_cur = 0;
	if (!r->pf_next)
		return;
	/* the notes, the chain's reads in their order and then the heads'
	 * ranges by address, into pf; pf_next starts empty */
	struct py_pf *notes = r->pf_next;
	uint32_t n = r->n_pf_next, k = 0;
	for (uint32_t i = 0; i < n; i++)
		if (!notes[i].head)
			r->pf[k++] = notes[i];
	uint32_t chain = k;
	for (uint32_t i = 0; i < n; i++)
		if (notes[i].head)
			r->pf[k++] = notes[i];
	r->n_pf_next = r->pf_bytes_next = 0;
	if (!n)
		return;
	qsort(r->pf + chain, n - chain, sizeof(*r->pf), cmp_pf);
	struct iovec rv[PY_PF_MAX];
	size_t total = 0;
	for (uint32_t i = 0; i < n; i++) {
		r->pf[i].off = (uint32_t)total;
		r->pf[i].noted = 0;
		rv[i] = (struct iovec){(void *)(uintptr_t)r->pf[i].addr, r->pf[i].len};
		total += r->pf[i].len;
	}
	r->stats.reads++;
	ssize_t got = vm_readv(r->pid, r->pf_buf, total, rv, n);
	/* the ranges read whole, in order: the call stops at the first it
	 * cannot read, and a heads range after a chain range it could not
	 * read was not read either */
	uint32_t ok = 0;
	while (got > 0 && ok < n && (ssize_t)(r->pf[ok].off + r->pf[ok].len) <= got)
		ok++;
	if (ok < n)
		r->stats.read_errors++;
	r->n_pf_chain = ok < chain ? ok : chain;
	r->n_pf = ok;
}

/* the prefetched bytes of [addr, addr + n) among the chain's ranges, NULL
 * when none holds them; *ep: the range */
static const unsigned char *pf_chain_find(struct py_reader *r, uint64_t addr, size_t n,
					  const struct py_pf **ep)
{
	uint32_t m = r->n_pf_chain;
	for (uint32_t j = 0; j < m; j++) {
		uint32_t i = (r->pf_cur + j) % m;
		const struct py_pf *e = &r->pf[i];
		if (addr >= e->addr && addr - e->addr <= e->len && n <= e->len - (addr - e->addr)) {
			r->pf_cur = i;
			if (ep)
				*ep = e;
			return r->pf_buf + e->off + (addr - e->addr);
		}
	}
	return NULL;
}

/* the same among the heads' ranges (by address); *ep: the range */
static const unsigned char *pf_head_find(struct py_reader *r, uint64_t addr, size_t n,
					 struct py_pf **ep)
{
	uint32_t lo = r->n_pf_chain, hi = r->n_pf;
	while (lo < hi) { /* the first range starting after addr */
		uint32_t mid = lo + (hi - lo) / 2;
		if (r->pf[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == r->n_pf_chain)
		return NULL;
	struct py_pf *e = &r->pf[lo - 1];
	if (addr - e->addr > e->len || n > e->len - (addr - e->addr))
		return NULL;
	*ep = e;
	return r->pf_buf + e->off + (addr - e->addr);
}

int py_block_read(struct py_reader *r, uint64_t addr, void *buf, size_t n)
{
	/* a pointer from a torn frame (0xffffffb8f756827f was one, on the H200):
	 * refused before any arithmetic on it; addr + n cannot wrap below */
	if (!addr_ok(addr, n) || n > PY_BLOCK) {
		r->stats.reads++;
		r->stats.read_errors++;
		errno = EFAULT;
		return -1;
	}
	for (unsigned i = 0; i < PY_BLOCKS; i++) {
		uint64_t base = r->blk_base[i], len = r->blk_len[i];
		if (len && addr >= base && addr - base <= len && n <= len - (addr - base)) {
			memcpy(buf, r->blocks + (size_t)i * PY_BLOCK + (addr - base), n);
			return 0;
		}
	}
	uint64_t end = (addr + n + PAGE - 1) & ~(PAGE - 1), lo = addr & ~(PAGE - 1);
	unsigned i = r->blk_next++ % PY_BLOCKS;
	unsigned char *b = r->blocks + (size_t)i * PY_BLOCK;
	r->blk_len[i] = 0;
	/* a block the sample before read, prefetched */
	const struct py_pf *e = NULL;
	if (pf_chain_find(r, addr, n, &e) && e->len <= PY_BLOCK) {
		memcpy(b, r->pf_buf + e->off, e->len);
		r->blk_base[i] = e->addr;
		r->blk_len[i] = e->len;
		r->stats.prefetched++;
		pf_note_entry(r, (struct py_pf *)e);
		memcpy(buf, b + (addr - e->addr), n);
		return 0;
	}
	/* the whole block, else (its lower pages unmapped: the stack's first
	 * chunk) only the frame's own pages */
	uint64_t bases[2] = {end - PY_BLOCK, lo};
	for (int k = 0; k < 2; k++) {
		uint64_t base = bases[k];
		if (base < PAGE || base > lo || end - base > PY_BLOCK || (k && base == bases[0]))
			continue;
		struct iovec rv = {(void *)(uintptr_t)base, (size_t)(end - base)};
		r->stats.reads++;
		if (vm_readv(r->pid, b, (size_t)(end - base), &rv, 1) == (ssize_t)(end - base)) {
			r->blk_base[i] = base;
			r->blk_len[i] = (uint32_t)(end - base);
			pf_note(r, base, (uint32_t)(end - base), 0);
			memcpy(buf, b + (addr - base), n);
			return 0;
		}
		r->stats.read_errors++;
	}
	return rd(r, addr, buf, n);
}

/* the batches' buffers (none when out of memory or GPUSCOPE_PYREAD_BATCH=0:
 * then each frame and head is read on its own) */
static void batch_init(struct py_reader *r)
{
	const char *batch = getenv(KNOB(PYREAD_BATCH));
	if (batch && strcmp(batch, "0") == 0)
		return;
	r->blocks = malloc((size_t)PY_BLOCKS * PY_BLOCK);
	r->heads = malloc((size_t)PY_MAX_DEPTH * PY_HEAD);
	r->hscratch = malloc(PY_HSCRATCH);
	if (!r->hscratch) {
		free(r->heads);
		r->heads = NULL;
	}
	r->pf = malloc(PY_PF_MAX * sizeof(*r->pf));
	r->pf_next = malloc(PY_PF_MAX * sizeof(*r->pf_next));
	r->pf_buf = malloc(PY_PF_BYTES);
	if (!r->pf || !r->pf_next || !r->pf_buf) {
		free(r->pf);
		free(r->pf_next);
		free(r->pf_buf);
		r->pf = r->pf_next = NULL;
		r->pf_buf = NULL;
	}
}

/* code addresses, sorted through an index */
static int cmp_code_at(const void *x, const void *y, void *arg)
{
	const uint64_t *code = arg;
	uint64_t a = code[*(const uint32_t *)x], b = code[*(const uint32_t *)y];
	return a < b ? -1 : a > b;
}

/* The heads of n code objects into r->heads (PY_HEAD apart); 0 or -1.
 * A head the prefetch holds is copied from it. The others are read in one
 * process_vm_readv, whose cost is mostly the kernel's walk and pin of each
 * remote iovec's pages: a code object repeated on the stack (a model's
 * Module._call_impl and forward at every level, a recursion) is read once,
 * and heads on the same page as the range before them or the next one are
 * read as part of it (no page is pinned that the heads do not touch; the
 * bytes between cost a copy). r->hscratch holds the ranges: a range grows
 * only while the ranges so far, and the heads still to place at span bytes
 * each, fit in PY_HSCRATCH. */
static int heads_read(struct py_reader *r, const uint64_t *code, uint32_t n, unsigned span)
{
	struct iovec rv[PY_MAX_DEPTH];
	uint32_t ord[PY_MAX_DEPTH];
	const unsigned char *src[PY_MAX_DEPTH];
	size_t off[PY_MAX_DEPTH];
	for (uint32_t i = 0; i < n; i++) {
		if (!addr_ok(code[i], span))
			return -1;
		ord[i] = i;
	}
	qsort_r(ord, n, sizeof(ord[0]), cmp_code_at, (void *)code);
	size_t closed = 0; /* bytes of the ranges before the current one */
	uint64_t lo = 0, hi = 0;
	int nr = 0;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t i = ord[k];
		uint64_t a = code[i], end = a + span;
		struct py_pf *e;
		if (k && a == code[ord[k - 1]]) { /* the same code object */
			src[i] = src[ord[k - 1]];
			off[i] = off[ord[k - 1]];
			continue;
		}
		if ((src[i] = pf_head_find(r, a, span, &e))) {
			r->stats.prefetched++;
			pf_note_entry(r, e);
			continue;
		}
		int merge = nr && (a >> 12) <= ((hi - 1) >> 12) + 1 &&
			    closed + ((end > hi ? end : hi) - lo) + (size_t)(n - k - 1) * span <=
				PY_HSCRATCH;
		if (!merge) {
			closed += (size_t)(hi - lo);
			lo = a;
			hi = end;
			nr++;
		} else if (end > hi) {
			hi = end;
		}
		rv[nr - 1] = (struct iovec){(void *)(uintptr_t)lo, (size_t)(hi - lo)};
		off[i] = closed + (size_t)(a - lo);
	}
	if (nr) {
		size_t total = closed + (size_t)(hi - lo);
		r->stats.reads++;
		if (vm_readv(r->pid, r->hscratch, total, rv, (size_t)nr) != (ssize_t)total) {
			r->stats.read_errors++;
			return -1;
		}
		for (int j = 0; j < nr; j++)
			pf_note(r, (uint64_t)(uintptr_t)rv[j].iov_base, (uint32_t)rv[j].iov_len, 1);
	}
	for (uint32_t i = 0; i < n; i++)
		memcpy(r->heads + (size_t)i * PY_HEAD, src[i] ? src[i] : r->hscratch + off[i],
		       span);
	return 0;
}

/* bytes of a code object's head that code_id looks at */
static unsigned head_span(const struct py_reader *r)
{
	const struct py_offsets *o = &r->off;
	uint16_t name_off = o->co_qualname != PY_OFF_NONE ? o->co_qualname : o->co_name;
	unsigned span = r->ob_type + 8u;
	uint16_t offs[] = {name_off, o->co_filename, o->co_firstlineno};
	for (size_t i = 0; i < 3; i++)
		if (offs[i] + 8u > span)
			span = offs[i] + 8u;
	return span;
}

static int walk_frames(struct py_reader *r, uint64_t frame, struct py_thread_stack *t)
{
	const struct py_offsets *o = &r->off;
	size_t span = (size_t)(o->fr_back > o->fr_code ? o->fr_back : o->fr_code) + 8;
	if (o->frame_kind == 1 && o->fr_owner != PY_OFF_NONE && o->fr_owner + 1u > span)
		span = o->fr_owner + 1u;
	unsigned char buf[256];
	unsigned hspan = head_span(r);
	if (span > sizeof(buf) || hspan > PY_HEAD)
		return -1;
	/* frames read in blocks where they lie next to each other (3.11+),
	 * code heads in one batch */
	int blocks = r->blocks && o->frame_kind == 1, batched = r->heads != NULL;
	uint64_t code[PY_MAX_DEPTH];
	t->n = 0;
	for (int depth = 0; frame && depth < PY_MAX_DEPTH * 2 && t->n < PY_MAX_DEPTH; depth++) {
		if ((blocks ? py_block_read(r, frame, buf, span) : rd(r, frame, buf, span)) < 0)
			return -1;
		uint64_t back;
		memcpy(&back, buf + o->fr_back, 8);
		memcpy(&code[t->n], buf + o->fr_code, 8);
		int shim = o->frame_kind == 1 && o->fr_owner != PY_OFF_NONE &&
			   buf[o->fr_owner] == PY_FRAME_OWNED_BY_CSTACK && r->off.version >= 0x030c;
		if (!shim)
			t->n++;
		if (back == frame)
			return -1;
		frame = back;
	}
	if (batched && t->n && heads_read(r, code, t->n, hspan) < 0)
		return -1; /* torn (invariant 1) */
	/* a new code object's strings are no read to repeat */
	int rec = r->pf_rec;
	r->pf_rec = 0;
	uint32_t i;
	for (i = 0; i < t->n; i++) {
		unsigned char h[PY_HEAD];
		const unsigned char *hp = h;
		if (batched)
			hp = r->heads + (size_t)i * PY_HEAD;
		else if (rd(r, code[i], h, hspan) < 0)
			break;
		if (!(t->code[i] = code_id(r, code[i], hp)))
			break; /* torn (invariant 1) */
	}
	r->pf_rec = rec;
	return i < t->n ? -1 : 0;
}

int py_reader_sample(struct py_reader *r, struct py_thread_stack *out, size_t cap)
{
	uint64_t t0 = mono_ns();
	const struct py_offsets *o = &r->off;
	int n = 0, rc = 0;
	uint64_t interp = 0, main_thread = 0;
	r->stats.samples++;
	memset(r->blk_len, 0, sizeof(r->blk_len));
	pf_start(r);
	r->pf_rec = 1;
	if (rd_ptr(r, r->runtime + o->runtime_interp_head, &interp) < 0) {
		rc = -1;
		goto out;
	}
	if (o->version < 0x030b)
		rd_ptr(r, r->runtime + o->runtime_main_thread, &main_thread);
	for (int ni = 0; interp && ni < MAX_INTERPS; ni++) {
		const uint16_t ioffs[2] = {o->interp_threads, o->interp_next};
		uint64_t iv[2];
		if (rd_ptrs(r, interp, ioffs, 2, iv) < 0) {
			rc = -2;
			goto out;
		}
		uint64_t ts = iv[0], next_interp = iv[1];
		for (int nt = 0; ts && nt < PY_MAX_THREADS && (size_t)n < cap; nt++) {
			const uint16_t toffs[4] = {o->ts_next, o->ts_thread_id, o->ts_frame,
						   o->ts_native_tid};
			uint64_t tv[4];
			if (rd_ptrs(r, ts, toffs, 4, tv) < 0) {
				rc = -2;
				goto out;
			}
			uint64_t next = tv[0], tid = tv[1], frame = tv[2], ntid = tv[3];
			if (o->cframe_frame != PY_OFF_NONE && frame &&
			    rd_ptr(r, frame + o->cframe_frame, &frame) < 0) {
				rc = -2;
				goto out;
			}
			struct py_thread_stack *t = &out[n];
			t->tid = (uint32_t)ntid;
			t->is_main = o->ts_native_tid != PY_OFF_NONE ? ntid == (uint64_t)r->pid
								     : tid == main_thread;
			if (!t->tid && t->is_main)
				t->tid = (uint32_t)r->pid;
			if (walk_frames(r, frame, t) < 0) {
				rc = -2;
				goto out;
			}
			n++;
			if (next == ts)
				break;
			ts = next;
		}
		interp = next_interp;
	}
out:
	r->pf_rec = 0;
	if (rc == -2)
		r->stats.torn++;
	r->stats.ns += mono_ns() - t0;
	return rc < 0 ? rc : n;
}

/* --- code objects -------------------------------------------------------- */

/* A str object as UTF-8 (compact strings only: what code objects hold). */
static int read_str(struct py_reader *r, uint64_t obj, char *out, size_t cap)
{
	const struct py_offsets *o = &r->off;
	unsigned char h[128];
	out[0] = '\0';
	if (!obj || o->compact_size > sizeof(h) || rd(r, obj, h, o->compact_size) < 0)
		return -1;
	int64_t len;
	uint32_t state;
	memcpy(&len, h + o->unicode_length, 8);
	memcpy(&state, h + o->unicode_length + 16, 4); /* after length and hash */
	unsigned kind = state >> 2 & 7, compact = state >> 5 & 1, ascii = state >> 6 & 1;
	if (!compact || len < 0 || (kind != 1 && kind != 2 && kind != 4))
		return -1;
	if ((size_t)len > MAX_NAME)
		len = MAX_NAME;
	unsigned char raw[MAX_NAME * 4];
	uint64_t data = obj + (ascii ? o->ascii_size : o->compact_size);
	if (len && rd(r, data, raw, (size_t)len * kind) < 0)
		return -1;
	size_t k = 0;
	for (int64_t i = 0; i < len; i++) {
		uint32_t c = kind == 1	 ? raw[i]
			     : kind == 2 ? (uint32_t)raw[2 * i] | (uint32_t)raw[2 * i + 1] << 8
					 : (uint32_t)raw[4 * i] | (uint32_t)raw[4 * i + 1] << 8 |
					       (uint32_t)raw[4 * i + 2] << 16 |
					       (uint32_t)raw[4 * i + 3] << 24;
		unsigned char u[4];
		size_t m;
		if (c < 0x80) {
			u[0] = (unsigned char)c, m = 1;
		} else if (c < 0x800) {
			u[0] = (unsigned char)(0xc0 | c >> 6),
			u[1] = (unsigned char)(0x80 | (c & 0x3f)), m = 2;
		} else if (c < 0x10000) {
			u[0] = (unsigned char)(0xe0 | c >> 12);
			u[1] = (unsigned char)(0x80 | (c >> 6 & 0x3f));
			u[2] = (unsigned char)(0x80 | (c & 0x3f)), m = 3;
		} else {
			u[0] = (unsigned char)(0xf0 | (c >> 18 & 7));
			u[1] = (unsigned char)(0x80 | (c >> 12 & 0x3f));
			u[2] = (unsigned char)(0x80 | (c >> 6 & 0x3f));
			u[3] = (unsigned char)(0x80 | (c & 0x3f)), m = 4;
		}
		if (k + m + 1 > cap)
			break;
		memcpy(out + k, u, m);
		k += m;
	}
	out[k] = '\0';
	return 0;
}

int py_reader_code(const struct py_reader *r, uint32_t id, struct py_code_info *out)
{
	if (id == 0 || id > r->n_codes) {
		*out = (struct py_code_info){"?", "?", 0};
		return -1;
	}
	const struct py_code_slot *c = &r->codes[id - 1];
	*out = (struct py_code_info){c->name, c->file, c->line > 0 ? (uint32_t)c->line : 0};
	return 0;
}
