/*
 * infile.c - one way to open an input (infile.h).
 */
#include "util/infile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error.h"

static ssize_t read_some(int fd, void *buf, size_t cap)
{
	for (;;) {
		ssize_t n = read(fd, buf, cap);
		if (n < 0 && errno == EINTR)
			continue;
		return n;
	}
}

int infile_open(struct infile *in, const char *path, char *err)
{
	memset(in, 0, sizeof(*in));
	in->fd = -1;
	in->path = path;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return error_set(err, "cannot open '%s': %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) < 0) {
		error_set(err, "cannot open '%s': %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (S_ISDIR(st.st_mode) || S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
		close(fd);
		return error_set(err, "'%s' is %s, not a trace file", path,
				 S_ISDIR(st.st_mode) ? "a directory" : "a device");
	}
	in->is_pipe = !S_ISREG(st.st_mode);
	in->size = S_ISREG(st.st_mode) ? (int64_t)st.st_size : -1;
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	in->fd = fd;
	while (in->n_head < INFILE_HEAD) {
		ssize_t n = read_some(fd, in->head + in->n_head, INFILE_HEAD - in->n_head);
		if (n < 0) {
			error_set(err, "cannot read '%s': %s", path, strerror(errno));
			infile_close(in);
			return -1;
		}
		if (n == 0)
			break;
		in->n_head += (size_t)n;
	}
	return 0;
}

ssize_t infile_read(struct infile *in, void *buf, size_t cap, char *err)
{
	if (in->at_head < in->n_head) {
		size_t n = in->n_head - in->at_head < cap ? in->n_head - in->at_head : cap;
		memcpy(buf, in->head + in->at_head, n);
		in->at_head += n;
		in->done += n;
		return (ssize_t)n;
	}
	if (in->done >= INFILE_MAX)
		return error_set(err, "'%s' is larger than gpuscope reads (%llu GiB)", in->path,
				 (unsigned long long)(INFILE_MAX >> 30));
	if (cap > INFILE_MAX - in->done)
		cap = (size_t)(INFILE_MAX - in->done);
	ssize_t n = read_some(in->fd, buf, cap);
	if (n < 0)
		return error_set(err, "cannot read '%s': %s", in->path, strerror(errno));
	in->done += (uint64_t)n;
	return n;
}

void infile_close(struct infile *in)
{
	if (in->fd >= 0)
		close(in->fd);
	in->fd = -1;
}
