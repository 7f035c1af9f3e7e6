/*
 * fatbin.c - ELF + CUDA fatbinary reader (see fatbin.h).
 *
 * Layout (checked on nvcc 13.0 output, tests/fixtures/fatbin/README.md):
 *   fatbinary header, 16 bytes: u32 magic 0xBA55ED50, u16 version,
 *     u16 header_size, u64 fat_size (bytes of entries after the header);
 *   entry header: u16 kind (1 PTX, 2 cubin), u16 version, u32 header_size,
 *     u64 payload_size, ..., u32 arch at offset 28 (80 = sm_80);
 *   next entry at entry + header_size + payload_size; a section may hold
 *   several fatbinaries back to back.
 * Only headers are read (pread), so a 1 GB libtorch_cuda.so costs little.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "health/fatbin.h"
#include "util/error.h"
#include "util/i18n.h"

#define FATBIN_MAGIC 0xBA55ED50u
#define FATBIN_MAX_ENTRIES 200000
/* Fatbinaries per file: libtorch_cuda.so (PyTorch 2.x) has a few thousand. */
#define FATBIN_MAX_FATBINS 200000
/*
 * Bytes between two fatbinaries: nvcc pads them to 8 (or 16) bytes. A header
 * not found within this many bytes means the section is not what it claims
 * (#21 item 10: a section claiming 1 GB was scanned 8 bytes a read, 55 s).
 */
#define FATBIN_MAX_GAP (1u << 20)
#define SCAN_CHUNK 65536

static int read_at(int fd, uint64_t off, void *buf, size_t len, uint64_t fsize,
		   struct fatbin_archs *out)
{
	if (off > fsize || len > fsize - off)
		return -1;
	out->reads++;
	ssize_t r = pread(fd, buf, len, (off_t)off);
	return r == (ssize_t)len ? 0 : -1;
}

/*
 * The next fatbinary header at an 8-aligned offset in [pos, end): sets *found
 * and returns 0, or returns -1 with err when none is within FATBIN_MAX_GAP.
 * Reads SCAN_CHUNK bytes at a time into buf. *found = end when only padding
 * remains.
 */
static int scan(int fd, uint64_t pos, uint64_t end, uint64_t fsize, struct fatbin_archs *out,
		uint64_t *found, unsigned char *buf, char *err)
{
	uint64_t start = pos;
	while (pos + 16 <= end) {
		size_t n = end - pos < SCAN_CHUNK ? (size_t)(end - pos) : SCAN_CHUNK;
		if (read_at(fd, pos, buf, n, fsize, out))
			return error_set(err, _("cannot read fatbinary section"));
		for (size_t i = 0; i + 4 <= n; i += 8) {
			uint32_t m;
			memcpy(&m, buf + i, 4);
			if (m == FATBIN_MAGIC) {
				*found = pos + i;
				return 0;
			}
		}
		pos += n;
		if (pos - start > FATBIN_MAX_GAP)
			return error_set(
			    err,
			    _("corrupt fatbinary section: no fatbinary header in the %u "
			      "KiB after offset %llu"),
			    FATBIN_MAX_GAP >> 10, (unsigned long long)start);
	}
	*found = end;
	return 0;
}

/* next_header's buffer is its own, so that files are read side by side. */
static int next_header(int fd, uint64_t pos, uint64_t end, uint64_t fsize, struct fatbin_archs *out,
		       uint64_t *found, char *err)
{
	unsigned char *buf = malloc(SCAN_CHUNK);
	if (!buf)
		return error_set(err, "out of memory");
	int rc = scan(fd, pos, end, fsize, out, found, buf, err);
	free(buf);
	return rc;
}

static void add_arch(struct fatbin_archs *out, int sm, int is_ptx)
{
	for (int i = 0; i < out->n; i++)
		if (out->a[i].sm == sm && out->a[i].is_ptx == is_ptx)
			return;
	if (out->n < FATBIN_MAX_ARCHS) {
		out->a[out->n].sm = sm;
		out->a[out->n].is_ptx = is_ptx;
		out->n++;
	}
}

/* Walks the fatbinaries in [off, off + size). */
static int walk_section(int fd, uint64_t off, uint64_t size, uint64_t fsize,
			struct fatbin_archs *out, char *err)
{
	uint64_t pos = off, end = off + size;
	long fatbins = 0;
	if (end < off || end > fsize)
		return error_set(err, _("fatbinary section extends past the end of the file"));
	while (pos + 16 <= end) {
		unsigned char h[16];
		uint32_t magic;
		uint16_t hsize;
		uint64_t fat_size, e, fend;

		if (read_at(fd, pos, h, sizeof(h), fsize, out))
			return error_set(err, _("cannot read fatbinary header"));
		memcpy(&magic, h, 4);
		if (magic != FATBIN_MAGIC) {
			/* padding between fatbinaries is 8-aligned; a header must follow soon */
			if (next_header(fd, pos, end, fsize, out, &pos, err))
				return -1;
			continue;
		}
		if (++fatbins > FATBIN_MAX_FATBINS || ++out->fatbins > FATBIN_MAX_FATBINS)
			return error_set(err, _("too many fatbinaries (more than %d)"),
					 FATBIN_MAX_FATBINS);
		memcpy(&hsize, h + 6, 2);
		memcpy(&fat_size, h + 8, 8);
		if (hsize < 16 || fat_size > end - pos || hsize > end - pos - fat_size)
			return error_set(err, _("corrupt fatbinary header at offset %llu"),
					 (unsigned long long)pos);
		e = pos + hsize;
		fend = e + fat_size;
		while (e + 32 <= fend) {
			unsigned char eh[32];
			uint16_t kind;
			uint32_t ehs, arch;
			uint64_t psize;
			if (read_at(fd, e, eh, sizeof(eh), fsize, out))
				return error_set(err, _("cannot read fatbinary entry"));
			memcpy(&kind, eh, 2);
			memcpy(&ehs, eh + 4, 4);
			memcpy(&psize, eh + 8, 8);
			memcpy(&arch, eh + 28, 4);
			if (ehs < 32 || ehs > fend - e || psize > fend - e - ehs)
				return error_set(err, _("corrupt fatbinary entry at offset %llu"),
						 (unsigned long long)e);
			if (++out->entries > FATBIN_MAX_ENTRIES)
				return error_set(err, _("too many fatbinary entries"));
			/* 1 PTX, 2 and 0x10 cubin; other single-bit kinds (LTO IR and
			 * the like) carry no code for an architecture. Anything else is
			 * damage, never skipped into an "ok" (docs/doctor.md) */
			if (!kind || (kind & (kind - 1)) || kind > 0x80)
				return error_set(
				    err, _("corrupt fatbinary entry at offset %llu: kind %u"),
				    (unsigned long long)e, (unsigned)kind);
			if (kind == 1 || kind == 2 || kind == 0x10) {
				if (arch < 10 || arch >= 1000)
					return error_set(
					    err,
					    _("corrupt fatbinary entry at offset %llu: "
					      "architecture %u"),
					    (unsigned long long)e, arch);
				add_arch(out, (int)arch, kind == 1);
			}
			e += ehs + psize;
		}
		pos = fend;
	}
	if (size >= 16 && fatbins == 0)
		return error_set(err, _("corrupt fatbinary section: no fatbinary header in it"));
	return 0;
}

int fatbin_read(const char *path, struct fatbin_archs *out, char *err)
{
	Elf64_Ehdr eh;
	struct stat st;
	uint64_t fsize;
	int fd, rc = -1;

	memset(out, 0, sizeof(*out));
	/* O_NONBLOCK: a FIFO is refused below, never waited for in open() */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return error_set(err, _("cannot open '%s': %s"), path, strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		error_set(err,
			  S_ISDIR(st.st_mode) ? _("'%s' is a directory, not a CUDA binary")
					      : _("'%s' is not a regular file"),
			  path);
		goto out_close;
	}
	fsize = (uint64_t)st.st_size;
	if (read_at(fd, 0, &eh, sizeof(eh), fsize, out) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
		error_set(err, _("'%s' is not an ELF file"), path);
		goto out_close;
	}
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB) {
		error_set(err, _("'%s' is not a 64-bit little-endian ELF file"), path);
		goto out_close;
	}
	if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 ||
	    eh.e_shstrndx >= eh.e_shnum || eh.e_shoff > fsize ||
	    (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr) > fsize - eh.e_shoff) {
		error_set(err, _("'%s': malformed ELF section table"), path);
		goto out_close;
	}
	Elf64_Shdr strsh;
	if (read_at(fd, eh.e_shoff + (uint64_t)eh.e_shstrndx * sizeof(Elf64_Shdr), &strsh,
		    sizeof(strsh), fsize, out)) {
		error_set(err, _("'%s': malformed ELF section table"), path);
		goto out_close;
	}
	for (unsigned i = 0; i < eh.e_shnum; i++) {
		Elf64_Shdr sh;
		char name[32];
		size_t nlen;
		if (read_at(fd, eh.e_shoff + (uint64_t)i * sizeof(Elf64_Shdr), &sh, sizeof(sh),
			    fsize, out)) {
			error_set(err, _("'%s': malformed ELF section header"), path);
			goto out_close;
		}
		if (sh.sh_type == SHT_NOBITS || sh.sh_name >= strsh.sh_size)
			continue;
		nlen = sizeof(name) - 1;
		if (strsh.sh_size - sh.sh_name < nlen)
			nlen = (size_t)(strsh.sh_size - sh.sh_name);
		memset(name, 0, sizeof(name));
		if (read_at(fd, strsh.sh_offset + sh.sh_name, name, nlen, fsize, out))
			continue;
		if (strcmp(name, ".nv_fatbin") != 0 && strcmp(name, "__nv_relfatbin") != 0)
			continue;
		out->sections++;
		if (walk_section(fd, sh.sh_offset, sh.sh_size, fsize, out, err))
			goto out_close;
	}
	rc = 0;
out_close:
	close(fd);
	return rc;
}

int fatbin_runs_on(const struct fatbin_archs *a, int cc_major, int cc_minor)
{
	int cc = cc_major * 10 + cc_minor;
	for (int i = 0; i < a->n; i++) {
		int sm = a->a[i].sm;
		if (a->a[i].is_ptx ? sm <= cc : (sm / 10 == cc_major && sm % 10 <= cc_minor))
			return 1;
	}
	return 0;
}

void fatbin_list(const struct fatbin_archs *a, char *buf, unsigned cap)
{
	size_t used = 0;
	buf[0] = 0;
	for (int i = 0; i < a->n && used + 16 < cap; i++)
		used += (size_t)snprintf(buf + used, cap - used, "%s%s_%d", used ? " " : "",
					 a->a[i].is_ptx ? "compute" : "sm", a->a[i].sm);
}
