/*
 * doctor_log.c - doctor's last step: XIDs in the kernel log (dmesg, or the
 * file given with --kernel-log).
 *
 * --kernel-log takes a regular file (a larger one is read from its last
 * KLOG_MAX_BYTES, where the newest XIDs are), a pipe or a character device
 * (read up to KLOG_MAX_BYTES, then a warning), never a directory, and never
 * blocks in open() (O_NONBLOCK until the type is known) nor on a character
 * device (/dev/kmsg: what it holds now). A gzip file (kern.log.N.gz) is read
 * inflated; /proc/kmsg is refused (its reads take lines from syslog).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "health/doctor_int.h"
#include "health/xid.h"
#include "util/i18n.h"

/* The kernel's ring buffer is at most a few MiB (CONFIG_LOG_BUF_SHIFT <= 25:
 * 32 MiB); 64 MiB holds every line dmesg can give and a long kern.log tail. */
#define KLOG_MAX_BYTES (64LL << 20)

#define check doctor_check

/* A gzip-compressed log (a rotated kern.log.N.gz) is read inflated, through
 * a stdio cookie over zlib. */
static ssize_t gz_read(void *c, char *buf, size_t n)
{
	int got = gzread((gzFile)c, buf, n > INT_MAX ? INT_MAX : (unsigned)n);
	if (got < 0) {
		errno = EIO;
		return -1;
	}
	return got;
}

static int gz_close(void *c)
{
	return gzclose((gzFile)c) == Z_OK ? 0 : EOF;
}

static int is_gzip(int fd)
{
	unsigned char m[2];
	int gz = pread(fd, m, 2, 0) == 2 && m[0] == 0x1f && m[1] == 0x8b;
	return gz;
}

/* Opens path for the scan; NULL with a failed check when it cannot be used.
 * *skipped: the bytes of a large regular file before the tail read. */
static FILE *open_log(struct doctor_report *r, const char *path, int *is_regular,
		      long long *skipped)
{
	struct stat st;
	*skipped = 0;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		check(r, "kernel_log", CHECK_FAIL, _("cannot open '%s': %s"), path,
		      strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode) ||
	    !(S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))) {
		check(r, "kernel_log", CHECK_FAIL,
		      S_ISDIR(st.st_mode)
			  ? _("'%s' is a directory: give a log file (e.g. /var/log/kern.log)")
			  : _("'%s' is not a regular file, a pipe or a character device"),
		      path);
		close(fd);
		return NULL;
	}
	struct stat km;
	if (stat("/proc/kmsg", &km) == 0 && km.st_dev == st.st_dev && km.st_ino == st.st_ino) {
		/* reading it takes the lines away from the system's logger */
		check(r, "kernel_log", CHECK_FAIL,
		      _("'%s' is /proc/kmsg, which hands each line to one reader only: use "
			"/dev/kmsg or leave --kernel-log out (dmesg)"),
		      path);
		close(fd);
		return NULL;
	}
	*is_regular = S_ISREG(st.st_mode);
	/* A pipe waits for its writer; a character device (/dev/kmsg) stays
	 * non-blocking: what it holds now is read, and EAGAIN is its end. */
	if (S_ISFIFO(st.st_mode))
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	if (*is_regular && is_gzip(fd)) {
		*is_regular = 0; /* its end is not its size: a cap is a warning */
		gzFile gz = gzdopen(fd, "rb");
		FILE *f =
		    gz ? fopencookie(gz, "r",
				     (cookie_io_functions_t){.read = gz_read, .close = gz_close})
		       : NULL;
		if (!f) {
			check(r, "kernel_log", CHECK_FAIL, _("cannot read '%s': %s"), path,
			      strerror(errno ? errno : ENOMEM));
			if (gz)
				gzclose(gz);
			else
				close(fd);
		}
		return f;
	}
	if (*is_regular && st.st_size > KLOG_MAX_BYTES) {
		/* the newest lines matter: read the tail, from the next line start */
		if (lseek(fd, st.st_size - KLOG_MAX_BYTES, SEEK_SET) < 0) {
			check(r, "kernel_log", CHECK_FAIL, _("cannot read '%s': %s"), path,
			      strerror(errno));
			close(fd);
			return NULL;
		}
		*skipped = st.st_size - KLOG_MAX_BYTES;
	}
	FILE *f = fdopen(fd, "r");
	if (!f) {
		check(r, "kernel_log", CHECK_FAIL, _("cannot read '%s': %s"), path,
		      strerror(errno));
		close(fd);
		return NULL;
	}
	if (*skipped) {
		int c;
		while ((c = getc(f)) != EOF && c != '\n')
			(*skipped)++;
	}
	return f;
}

void doctor_check_kernel_log(struct doctor_report *r, const char *path)
{
	struct xid_scan *s = calloc(1, sizeof(*s));
	FILE *f;
	int is_pipe = 0, regular = 0, read_err;
	long long skipped = 0;

	if (!s)
		return;
	if (path) {
		f = open_log(r, path, &regular, &skipped);
		if (!f) {
			free(s);
			return;
		}
	} else {
		/* by its absolute path, never through PATH */
		f = popen(access("/usr/bin/dmesg", X_OK) == 0 ? "/usr/bin/dmesg 2>/dev/null"
							      : "/bin/dmesg 2>/dev/null",
			  "r");
		is_pipe = 1;
		if (!f) {
			check(r, "kernel_log", CHECK_SKIPPED, "%s", _("cannot run dmesg"));
			free(s);
			return;
		}
	}
	xid_scan_stream(s, f, KLOG_MAX_BYTES);
	read_err = ferror(f) ? errno : 0;
	if (read_err == EAGAIN || read_err == EWOULDBLOCK)
		read_err = 0; /* a character device (/dev/kmsg) read to its end */
	int rc = is_pipe ? pclose(f) : fclose(f);
	if (is_pipe && (rc != 0 || s->lines == 0)) {
		check(r, "kernel_log", CHECK_SKIPPED, "%s",
		      _("dmesg is not readable (needs root or kernel.dmesg_restrict=0); use "
			"--kernel-log FILE"));
		free(s);
		return;
	}
	if (read_err) {
		check(r, "kernel_log", CHECK_FAIL, _("error reading '%s': %s"), path,
		      strerror(read_err));
	} else if (s->lines == 0 && !s->capped) {
		check(r, "kernel_log", CHECK_WARNING,
		      _("'%s' is empty: no kernel-log lines to check"), path);
	} else if (s->capped && !regular) {
		check(
		    r, "kernel_log", CHECK_WARNING,
		    _("stopped after %lld MiB of '%s' (%ld lines, %ld xid line(s)): is it a log?"),
		    KLOG_MAX_BYTES >> 20, path, s->lines, s->xid_lines);
	} else if (skipped) {
		check(r, "kernel_log", s->n ? CHECK_WARNING : CHECK_OK,
		      _("%ld lines, %ld xid line(s), %d distinct (code, gpu) in the last %lld MiB; "
			"the first %lld MiB of '%s' were not read"),
		      s->lines, s->xid_lines, s->n, KLOG_MAX_BYTES >> 20,
		      (skipped + (1 << 20) - 1) >> 20, path);
	} else {
		check(r, "kernel_log", s->n ? CHECK_WARNING : CHECK_OK,
		      _("%ld lines, %ld xid line(s), %d distinct (code, gpu)"), s->lines,
		      s->xid_lines, s->n);
	}
	xid_scan_findings(s, &r->findings);
	free(s);
}
