/*
 * outfile.c - the rule for files the commands write (outfile.h).
 */
#include "util/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error.h"

static const char *kind_of(mode_t m)
{
	return S_ISDIR(m)    ? "a directory"
	       : S_ISFIFO(m) ? "a FIFO"
	       : S_ISCHR(m)  ? "a character device"
	       : S_ISBLK(m)  ? "a block device"
	       : S_ISSOCK(m) ? "a socket"
			     : "not a regular file";
}

int outfile_check(const char *path, const struct outfile_rule *r, char *real, size_t cap, char *err)
{
	if (real && cap)
		snprintf(real, cap, "%s", path);
	if (strcmp(path, "-") == 0) {
		if (!r->allow_stdout)
			return error_set(err, "%s cannot be written to stdout ('-')", r->what);
		return OUTFILE_STDOUT;
	}
	if (!*path)
		return error_set(err, "empty output path");
	struct stat ls, st;
	if (lstat(path, &ls) < 0) {
		if (errno == ENOENT)
			return OUTFILE_NEW;
		return error_set(err, "cannot write '%s': %s", path, strerror(errno));
	}
	if (S_ISLNK(ls.st_mode)) {
		if (stat(path, &st) < 0)
			return error_set(err, "refusing to write '%s': a symbolic link to nothing",
					 path);
		char *target = realpath(path, NULL);
		if (!target)
			return error_set(err, "cannot resolve '%s': %s", path, strerror(errno));
		if (real && cap)
			snprintf(real, cap, "%s", target);
		free(target);
	} else {
		st = ls;
	}
	if (!S_ISREG(st.st_mode))
		return error_set(err, "refusing to replace '%s': it is %s, not a regular file",
				 path, kind_of(st.st_mode));
	for (size_t i = 0; r->inputs && r->inputs[i]; i++) {
		struct stat in;
		if (stat(r->inputs[i], &in) == 0 && in.st_dev == st.st_dev &&
		    in.st_ino == st.st_ino)
			return error_set(err, "refusing to write '%s': it is the input", path);
	}
	if (!r->force && !(r->is_ours && r->is_ours(real && cap ? real : path)))
		return error_set(err,
				 "refusing to replace '%s': it is not %s (--force replaces it)",
				 path, r->what);
	return OUTFILE_REPLACE;
}

/* PATH.tmp-PID, with PATH's last component shortened when the suffix
 * would push it past NAME_MAX (a 250-byte name is legal, its temporary
 * file must be too). */
char *outfile_tmp_name(const char *path)
{
	char suffix[32];
	int ns = snprintf(suffix, sizeof(suffix), ".tmp-%d", (int)getpid());
	size_t len = strlen(path);
	const char *slash = strrchr(path, '/');
	size_t base = len - (size_t)(slash ? slash + 1 - path : 0);
	if (base + (size_t)ns > NAME_MAX)
		len -= base + (size_t)ns - NAME_MAX;
	char *tmp = malloc(len + (size_t)ns + 1);
	if (tmp) {
		memcpy(tmp, path, len);
		memcpy(tmp + len, suffix, (size_t)ns + 1);
	}
	return tmp;
}

/* Temporary files (and a directory made for them) that a signal must not
 * leave behind (outfile_pending_unlink). A signal handler reads this table,
 * so it is fixed-size and each slot is published by its flag last. */
#define PENDING_MAX 16
static struct {
	char path[PATH_MAX];
	volatile sig_atomic_t used, is_dir;
} pending[PENDING_MAX];

void outfile_pending_add(const char *path, int is_dir)
{
	for (int i = 0; i < PENDING_MAX; i++)
		if (!pending[i].used) {
			snprintf(pending[i].path, sizeof(pending[i].path), "%s", path);
			pending[i].is_dir = is_dir;
			pending[i].used = 1;
			return;
		}
}

void outfile_pending_del(const char *path)
{
	for (int i = 0; i < PENDING_MAX; i++)
		if (pending[i].used && strcmp(pending[i].path, path) == 0) {
			pending[i].used = 0;
			return;
		}
}

void outfile_pending_unlink(void)
{
	for (int i = PENDING_MAX - 1; i >= 0; i--)
		if (pending[i].used && !pending[i].is_dir)
			unlink(pending[i].path);
	for (int i = PENDING_MAX - 1; i >= 0; i--)
		if (pending[i].used && pending[i].is_dir)
			rmdir(pending[i].path);
}

static void release(struct outfile *o)
{
	if (o->tmp)
		outfile_pending_del(o->tmp);
	free(o->path);
	free(o->tmp);
	free(o->label);
	o->path = o->tmp = o->label = NULL;
	o->f = NULL;
}

int outfile_open(struct outfile *o, const char *path, const struct outfile_rule *r, char *err)
{
	memset(o, 0, sizeof(*o));
	char real[PATH_MAX];
	int t = outfile_check(path, r, real, sizeof(real), err);
	if (t < 0)
		return -1;
	o->target = t;
	o->label = strdup(t == OUTFILE_STDOUT ? "stdout" : path);
	if (!o->label)
		return error_set(err, "out of memory");
	if (t == OUTFILE_STDOUT) {
		o->f = stdout;
		return 0;
	}
	o->path = strdup(real);
	o->tmp = outfile_tmp_name(real);
	if (!o->path || !o->tmp) {
		release(o);
		return error_set(err, "out of memory");
	}
	outfile_pending_add(o->tmp, 0);
	int fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd < 0 && errno == EEXIST && unlink(o->tmp) == 0)
		fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
		error_set(err, "cannot create '%s': %s", o->tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		release(o);
		return -1;
	}
	setvbuf(o->f, NULL, _IOFBF, 1 << 20);
	return 0;
}

void outfile_abort(struct outfile *o)
{
	if (o->f && o->f != stdout)
		fclose(o->f);
	if (o->tmp)
		unlink(o->tmp);
	release(o);
}

static int fsync_dir_of(const char *path)
{
	char *copy = strdup(path);
	if (!copy)
		return -1;
	int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(copy);
	if (fd < 0)
		return -1;
	int rc = fsync(fd);
	close(fd);
	return rc;
}

/* A replaced file keeps its permissions, and its owner and group where we
 * may set them (root, or a group we are in): a private 0600 trace must not
 * become world-readable by being written again. */
static void keep_mode(int fd, const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return;
	if (fchown(fd, st.st_uid, st.st_gid) < 0 && fchown(fd, (uid_t)-1, st.st_gid) < 0) {
		/* not permitted: the file is ours now, as any file we create */
	}
	(void)fchmod(fd, st.st_mode & 07777);
}

int outfile_rename(const char *tmp, const char *path, char *err)
{
	int fd = open(tmp, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fsync(fd) < 0) {
		error_set(err, "cannot write '%s': %s", tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	keep_mode(fd, path);
	close(fd);
	if (rename(tmp, path) < 0)
		return error_set(err, "cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
	(void)fsync_dir_of(path); /* durability only; the file is complete either way */
	return 0;
}

int outfile_commit(struct outfile *o, char *err)
{
	int rc = 0;
	errno = 0;
	int bad = fflush(o->f) != 0 || ferror(o->f);
	int saved = errno;
	if (o->target == OUTFILE_STDOUT) {
		if (bad)
			rc = error_set(err, "cannot write to stdout: %s",
				       saved ? strerror(saved) : "write error");
		release(o);
		return rc;
	}
	if (!bad && fsync(fileno(o->f)) < 0) {
		bad = 1;
		saved = errno;
	}
	if (fclose(o->f) != 0 && !bad) {
		bad = 1;
		saved = errno;
	}
	o->f = NULL;
	if (bad) {
		rc = error_set(err, "cannot write '%s': %s", o->label,
			       saved ? strerror(saved) : "write error");
		unlink(o->tmp);
	} else if (outfile_rename(o->tmp, o->path, err) < 0) {
		rc = -1;
		unlink(o->tmp);
	}
	release(o);
	return rc;
}
