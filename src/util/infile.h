/*
 * infile.h - opening an input the way every reader should (issue #21 items
 * 2 and 7): once, without blocking in open(2) on a FIFO, refusing what
 * cannot be a trace (a directory, a device: /dev/zero, /dev/urandom), and
 * sniffing its first bytes from the same stream the reader then reads, so a
 * pipe (`report <(zcat t.json.gz)`) works like a file.
 *
 * Invariants:
 *  1. open(2) never blocks: O_NONBLOCK for the open, cleared after; a FIFO
 *     with no writer reads as empty.
 *  2. infile_read() hands out the sniffed head first, then the rest, so
 *     nothing is read twice and a pipe is read exactly once.
 *  3. What is read is capped: a file at the size it had when opened plus
 *     what it grew to under INFILE_MAX, a pipe at INFILE_MAX.
 *
 * Error contract: 0 / a count, or -1 with a one-line message in err.
 */
#ifndef GPUSCOPE_INFILE_H
#define GPUSCOPE_INFILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define INFILE_MAX (1ull << 40) /* 1 TiB */
#define INFILE_HEAD 64

struct infile {
	int fd;
	const char *path;
	int is_pipe;   /* a FIFO, pipe or socket: read once, in order */
	int64_t size;  /* a regular file's size at open, -1 for a pipe */
	uint64_t done; /* bytes handed out so far */
	unsigned char head[INFILE_HEAD];
	size_t n_head, at_head;
};

/* Opens path (see above) and reads up to INFILE_HEAD bytes into head. */
int infile_open(struct infile *in, const char *path, char *err);
/* The next bytes: the head first, then the rest. 0 at the end. */
ssize_t infile_read(struct infile *in, void *buf, size_t cap, char *err);
void infile_close(struct infile *in);

#endif
