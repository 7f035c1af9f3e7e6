/*
 * sanitizer_text.h - a pasted compute-sanitizer report read back: each
 * error ("========= Invalid __global__ write of size 4 bytes", "at
 * KERNEL+0x490 in file.cu:12", "by thread (1,0,0) in block (5,0,0)",
 * "Access at 0x... is out of bounds", "and is 1 bytes after the nearest
 * allocation at 0x... of size 2400 bytes"), grouped by kind, kernel and
 * source line, so that a report of thousands of lines says what it holds:
 * which accesses fail, where, by how far, and what that usually means.
 */
#ifndef GPUSCOPE_SANITIZER_TEXT_H
#define GPUSCOPE_SANITIZER_TEXT_H

#include <stddef.h>

#define SAN_GROUPS 8

enum san_where {
	SAN_W_UNKNOWN = 0,
	SAN_W_AFTER,	  /* N bytes after the nearest allocation */
	SAN_W_BEFORE,	  /* N bytes before it */
	SAN_W_INSIDE,	  /* inside an allocation (freed, or not mapped) */
	SAN_W_OOB,	  /* out of bounds, no allocation named (shared/local) */
	SAN_W_MISALIGNED, /* the address is misaligned */
};

struct san_group {
	char kind[64];	 /* "Invalid __global__ read", "Race reported", ... */
	int size;	 /* access size in bytes; 0 unknown */
	char func[160];	 /* the kernel/function, without its parameter list */
	char where[128]; /* file.cu:12 ("" without -lineinfo) */
	int count;
	char thread[32], block[32]; /* the first error's "(1,0,0)" */
	enum san_where at;
	double distance; /* bytes after/before: the largest seen; -1 unknown */
	double alloc;	 /* the nearest allocation's size; -1 unknown */
};

struct san_text {
	int n, errors; /* groups; errors read */
	int summary;   /* "ERROR SUMMARY: N errors" (-1 when absent) */
	int leaks;     /* "Leaked N bytes" lines */
	struct san_group g[SAN_GROUPS];
};

/* 1 when text holds at least one sanitizer error. */
int san_text_parse(const char *text, size_t len, struct san_text *s);

#endif
