/*
 * symbolize.c - addresses -> names with libdwfl (symbolize.h). One Dwfl
 * per ELF file, reported at its link addresses; a sampled address is
 * turned into a file offset through its mapping and into a link address
 * through the file's PT_LOAD headers, so one opened file serves every
 * process whatever its load address.
 */
#include "util/vec.h"
#include "hostsample/symbolize.h"

#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_JIT_ENTRIES (4u << 20)

struct sym_load {
	uint64_t offset, filesz, vaddr;
};

/* a function symbol, for binary search: libdwfl's own address lookup
 * scans the whole symbol table each time (~1 ms a lookup in libtorch_cpu) */
struct sym_fn {
	uint64_t addr, size;
	const char *name; /* libdwfl's, lives as long as the Dwfl */
};

struct sym_file {
	char *path;
	struct sym_fn *fns;
	size_t n_fns;
	int tried; /* 1 once opening was attempted */
	Dwfl *dwfl;
	Dwfl_Module *mod;
	struct sym_load *loads;
	size_t n_loads;
	uint64_t bias; /* module address - link address */
};

struct sym_jit {
	uint64_t start, size;
	char *name;	  /* the whole entry name */
	const char *file; /* CPython's: the file part (inside name), else NULL */
	int python;
};

void symbolizer_init(struct symbolizer *z)
{
	memset(z, 0, sizeof(*z));
}

void symbolizer_release(struct symbolizer *z)
{
	for (size_t i = 0; i < z->n_files; i++) {
		struct sym_file *f = &z->files[i];
		if (f->dwfl)
			dwfl_end(f->dwfl);
		free(f->path);
		free(f->loads);
		free(f->fns);
	}
	for (size_t i = 0; i < z->n_procs; i++) {
		free(z->procs[i].maps);
		for (size_t j = 0; j < z->procs[i].n_jit; j++)
			free(z->procs[i].jit[j].name);
		free(z->procs[i].jit);
	}
	free(z->files);
	free(z->procs);
	memset(z, 0, sizeof(*z));
}

static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	return vec_reserve(arr, cap, need, elem);
}

static struct sym_proc *proc_get(struct symbolizer *z, uint32_t pid, int create)
{
	for (size_t i = 0; i < z->n_procs; i++)
		if (z->procs[i].pid == pid)
			return &z->procs[i];
	if (!create ||
	    grow((void **)&z->procs, &z->cap_procs, z->n_procs + 1, sizeof(struct sym_proc)) < 0)
		return NULL;
	struct sym_proc *p = &z->procs[z->n_procs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	return p;
}

static long file_index(struct symbolizer *z, const char *path)
{
	for (size_t i = 0; i < z->n_files; i++)
		if (strcmp(z->files[i].path, path) == 0)
			return (long)i;
	if (grow((void **)&z->files, &z->cap_files, z->n_files + 1, sizeof(struct sym_file)) < 0)
		return -1;
	struct sym_file *f = &z->files[z->n_files];
	memset(f, 0, sizeof(*f));
	f->path = strdup(path);
	if (!f->path)
		return -1;
	return (long)z->n_files++;
}

int symbolizer_add_map(struct symbolizer *z, uint32_t pid, uint64_t start, uint64_t len,
		       uint64_t pgoff, const char *path)
{
	/* anonymous memory, [vdso], deleted files: nothing to read symbols
	 * from (JIT code comes from perf maps) */
	if (!path || path[0] != '/' || len == 0)
		return 0;
	struct sym_proc *p = proc_get(z, pid, 1);
	long fi = file_index(z, path);
	if (!p || fi < 0 ||
	    grow((void **)&p->maps, &p->cap_maps, p->n_maps + 1, sizeof(struct sym_map)) < 0)
		return -1;
	/* the same mapping again (MMAP2 records and /proc both seen) */
	for (size_t i = 0; i < p->n_maps; i++)
		if (p->maps[i].start == start && p->maps[i].end == start + len &&
		    p->maps[i].file == (uint32_t)fi)
			return 0;
	p->maps[p->n_maps++] = (struct sym_map){start, start + len, pgoff, (uint32_t)fi};
	p->sorted = 0;
	return 0;
}

int symbolizer_add_proc_maps(struct symbolizer *z, uint32_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	char line[4096 + 256];
	int n = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		char perms[8];
		int pos = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &s, &e, perms, &off, &pos) < 4 ||
		    pos == 0)
			continue;
		if (perms[2] != 'x')
			continue;
		char *name = line + pos;
		name[strcspn(name, "\n")] = '\0';
		if (symbolizer_add_map(z, pid, s, e - s, off, name) == 0 && name[0] == '/')
			n++;
	}
	fclose(f);
	return n;
}

static int jit_cmp(const void *a, const void *b)
{
	const struct sym_jit *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

long symbolizer_load_perf_map(struct symbolizer *z, uint32_t pid, const char *path)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	struct sym_proc *p = proc_get(z, pid, 1);
	if (!p) {
		fclose(f);
		return -1;
	}
	size_t cap = p->n_jit;
	char line[8192];
	long n = 0;
	while (fgets(line, sizeof(line), f) && p->n_jit < MAX_JIT_ENTRIES) {
		char *end;
		uint64_t start = strtoull(line, &end, 16);
		if (end == line || *end != ' ')
			continue;
		char *s2 = end + 1;
		uint64_t size = strtoull(s2, &end, 16);
		if (end == s2 || *end != ' ' || size == 0)
			continue;
		char *name = end + 1;
		name[strcspn(name, "\n")] = '\0';
		if (grow((void **)&p->jit, &cap, p->n_jit + 1, sizeof(struct sym_jit)) < 0)
			break;
		/* CPython 3.12+: "py::QUALNAME:FILENAME" (Python/perf_trampoline.c);
		 * split in place, name first */
		int py = strncmp(name, "py::", 4) == 0;
		char *d = strdup(py ? name + 4 : name);
		if (!d)
			break;
		char *colon = py ? strchr(d, ':') : NULL;
		if (colon)
			*colon = '\0';
		p->jit[p->n_jit++] = (struct sym_jit){start, size, d, colon ? colon + 1 : NULL, py};
		n++;
	}
	fclose(f);
	if (p->n_jit)
		qsort(p->jit, p->n_jit, sizeof(struct sym_jit), jit_cmp);
	return n;
}

/* Separate debug files by build id, on this machine only (invariant 1). */
static int find_debuginfo_local(Dwfl_Module *mod, void **userdata, const char *modname,
				Dwarf_Addr base, const char *file_name, const char *debuglink_file,
				GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	(void)userdata, (void)modname, (void)base, (void)file_name, (void)debuglink_file;
	(void)debuglink_crc;
	const unsigned char *id;
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(mod, &id, &vaddr);
	if (n < 2 || n > 64)
		return -1;
	char path[64 + 2 * 64 + 16];
	int k = snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%02x/", id[0]);
	for (int i = 1; i < n; i++)
		k += snprintf(path + k, sizeof(path) - (size_t)k, "%02x", id[i]);
	snprintf(path + k, sizeof(path) - (size_t)k, ".debug");
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		*debuginfo_file_name = strdup(path);
	return fd;
}

static const Dwfl_Callbacks offline_callbacks = {
    .find_elf = NULL,
    .find_debuginfo = find_debuginfo_local,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = NULL,
};

static int fn_cmp(const void *a, const void *b)
{
	const struct sym_fn *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->size > y->size ? -1 : x->size < y->size; /* sized first */
}

/* every function symbol of the module (and its separate debug file) */
static void index_symbols(struct sym_file *f)
{
	int n = dwfl_module_getsymtab(f->mod);
	if (n <= 1)
		return;
	f->fns = malloc(sizeof(struct sym_fn) * (size_t)n);
	if (!f->fns)
		return;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *elf;
		Dwarf_Addr bias;
		const char *name =
		    dwfl_module_getsym_info(f->mod, i, &sym, &addr, &shndx, &elf, &bias);
		int type = GELF_ST_TYPE(sym.st_info);
		if (!name || !*name || sym.st_shndx == SHN_UNDEF ||
		    (type != STT_FUNC && type != STT_GNU_IFUNC))
			continue;
		f->fns[f->n_fns++] = (struct sym_fn){addr, sym.st_size, name};
	}
	if (f->n_fns)
		qsort(f->fns, f->n_fns, sizeof(struct sym_fn), fn_cmp);
}

static const struct sym_fn *find_fn(const struct sym_file *f, uint64_t addr)
{
	size_t lo = 0, hi = f->n_fns;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (f->fns[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the nearest symbol at or below: inside its size, or sizeless (an
	 * assembler routine); a few back for nested or aliased symbols */
	for (size_t i = lo, k = 0; i-- > 0 && k < 4; k++) {
		const struct sym_fn *fn = &f->fns[i];
		if (addr < fn->addr + fn->size)
			return fn;
		/* a sizeless symbol names only what is close behind it: in a
		 * stripped file (.dynsym only) the static functions after _init
		 * are not _init */
		if (fn->size == 0 && i + 1 == lo && addr - fn->addr < 4096 &&
		    strcmp(fn->name, "_init") != 0 && strcmp(fn->name, "_fini") != 0)
			return fn;
	}
	return NULL;
}

static void file_open(struct sym_file *f)
{
	f->tried = 1;
	int fd = open(f->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	Dwfl *d = dwfl_begin(&offline_callbacks);
	if (!d) {
		close(fd);
		return;
	}
	dwfl_report_begin(d);
	/* base 0: the module sits at its link addresses (ET_DYN) */
	Dwfl_Module *m = dwfl_report_elf(d, f->path, f->path, fd, 0, false);
	dwfl_report_end(d, NULL, NULL);
	if (!m) {
		dwfl_end(d); /* closes fd */
		return;
	}
	GElf_Addr bias = 0;
	Elf *elf = dwfl_module_getelf(m, &bias);
	size_t nph = 0;
	if (!elf || elf_getphdrnum(elf, &nph) != 0) {
		dwfl_end(d);
		return;
	}
	f->loads = calloc(nph ? nph : 1, sizeof(struct sym_load));
	if (!f->loads) {
		dwfl_end(d);
		return;
	}
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			f->loads[f->n_loads++] =
			    (struct sym_load){ph.p_offset, ph.p_filesz, ph.p_vaddr};
	}
	f->dwfl = d;
	f->mod = m;
	f->bias = bias;
	index_symbols(f);
}

static int map_cmp(const void *a, const void *b)
{
	const struct sym_map *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

static const struct sym_map *find_map(struct sym_proc *p, uint64_t ip)
{
	if (!p->sorted && p->n_maps) {
		qsort(p->maps, p->n_maps, sizeof(struct sym_map), map_cmp);
		p->sorted = 1;
	}
	size_t lo = 0, hi = p->n_maps;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->maps[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the latest mapping starting at or below ip; overlapping ones (a
	 * library unloaded and another mapped there) are rare: look a few back */
	for (size_t i = lo, k = 0; i-- > 0 && k < 8; k++)
		if (ip < p->maps[i].end)
			return &p->maps[i];
	return NULL;
}

static const struct sym_jit *find_jit(const struct sym_proc *p, uint64_t ip)
{
	size_t lo = 0, hi = p->n_jit;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->jit[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	const struct sym_jit *j = &p->jit[lo - 1];
	return ip < j->start + j->size ? j : NULL;
}

static void jit_result(const struct sym_jit *j, uint64_t ip, struct sym_result *out)
{
	out->module = "[perf-map]";
	out->offset = ip - j->start;
	out->kind = j->python ? SYM_PYTHON : SYM_JIT;
	out->name = j->name;
	out->file = j->file ? j->file : "";
}

int symbolizer_fork(struct symbolizer *z, uint32_t child, uint32_t parent)
{
	if (child == parent)
		return 0;
	struct sym_proc *p = proc_get(z, child, 1);
	if (!p)
		return -1;
	if (!p->execd)
		p->parent = parent;
	return 0;
}

int symbolizer_exec(struct symbolizer *z, uint32_t pid)
{
	struct sym_proc *p = proc_get(z, pid, 1);
	if (!p)
		return -1;
	p->execd = 1;
	p->parent = 0;
	return 0;
}

/* forked processes are looked up in their parents' mappings, this many
 * generations up at most (a chain of forks without exec) */
#define SYM_FORK_DEPTH 8

void symbolizer_lookup(struct symbolizer *z, uint32_t pid, uint64_t ip, int return_address,
		       struct sym_result *out)
{
	*out = (struct sym_result){SYM_UNKNOWN, "", "", "", 0};
	z->lookups++;
	struct sym_proc *p = proc_get(z, pid, 0);
	if (!p)
		return;
	uint64_t at = return_address && ip ? ip - 1 : ip;
	const struct sym_jit *j = NULL;
	const struct sym_map *m = NULL;
	for (int gen = 0; p && gen <= SYM_FORK_DEPTH; gen++) {
		if ((j = p->n_jit ? find_jit(p, at) : NULL) || (m = find_map(p, at)))
			break;
		p = p->parent && !p->execd ? proc_get(z, p->parent, 0) : NULL;
	}
	if (j) {
		jit_result(j, at, out);
		z->resolved++;
		return;
	}
	if (!m)
		return;
	struct sym_file *f = &z->files[m->file];
	out->kind = SYM_NATIVE;
	out->module = f->path;
	uint64_t foff = at - m->start + m->pgoff;
	out->offset = foff;
	if (!f->tried)
		file_open(f);
	if (!f->mod)
		return;
	for (size_t i = 0; i < f->n_loads; i++) {
		const struct sym_load *l = &f->loads[i];
		if (foff < l->offset || foff >= l->offset + l->filesz)
			continue;
		GElf_Addr addr = foff - l->offset + l->vaddr + f->bias;
		const struct sym_fn *fn = find_fn(f, addr);
		if (fn) {
			out->name = fn->name;
			out->offset = addr - fn->addr;
			z->resolved++;
		}
		return;
	}
}
