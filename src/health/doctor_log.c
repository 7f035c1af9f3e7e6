/*
 * doctor_log.c - doctor's last step: XIDs in the kernel log (dmesg, or the
 * file given with --kernel-log).
 *
 * --kernel-log takes a regular file (a larger one is read from its last
 * KLOG_MAX_BYTES, where the newest XIDs are), a pipe or a character device
 * (read up to KLOG_MAX_BYTES, then a warning), never a directory, and never
 * blocks in open() (O_NONBLOCK until the type is known).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "health/doctor_int.h"
#include "health/xid.h"
#include "util/i18n.h"

/* The kernel's ring buffer is at most a few MiB (CONFIG_LOG_BUF_SHIFT <= 25:
 * 32 MiB); 64 MiB holds every line dmesg can give and a long kern.log tail. */
#define KLOG_MAX_BYTES (64LL << 20)

#define check doctor_check

/* Opens path for the scan; NULL with a failed check when it cannot be used. */
static FILE *open_log(struct doctor_report *r, const char *path, int *is_regular)
{
	struct stat st;
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
	*is_regular = S_ISREG(st.st_mode);
	/* the type is known: now reads may block (a pipe waits for its writer) */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	if (*is_regular && st.st_size > KLOG_MAX_BYTES) {
		/* the newest lines matter: read the tail, from the next line start */
		if (lseek(fd, st.st_size - KLOG_MAX_BYTES, SEEK_SET) < 0) {
			check(r, "kernel_log", CHECK_FAIL, _("cannot read '%s': %s"), path,
			      strerror(errno));
			close(fd);
			return NULL;
		}
	}
	FILE *f = fdopen(fd, "r");
	if (!f) {
		check(r, "kernel_log", CHECK_FAIL, _("cannot read '%s': %s"), path,
		      strerror(errno));
		close(fd);
		return NULL;
	}
	if (*is_regular && st.st_size > KLOG_MAX_BYTES) {
		int c;
		while ((c = getc(f)) != EOF && c != '\n')
			;
	}
	return f;
}

void doctor_check_kernel_log(struct doctor_report *r, const char *path)
{
	struct xid_scan *s = calloc(1, sizeof(*s));
	FILE *f;
	int is_pipe = 0, regular = 0, read_err;

	if (!s)
		return;
	if (path) {
		f = open_log(r, path, &regular);
		if (!f) {
			free(s);
			return;
		}
	} else {
		f = popen("dmesg 2>/dev/null", "r");
		is_pipe = 1;
		if (!f) {
			check(r, "kernel_log", CHECK_SKIPPED, "%s", _("cannot run dmesg"));
			free(s);
			return;
		}
	}
	xid_scan_stream(s, f, KLOG_MAX_BYTES);
	read_err = ferror(f) ? errno : 0;
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
	} else if (s->lines == 0) {
		check(r, "kernel_log", CHECK_WARNING,
		      _("'%s' is empty: no kernel-log lines to check"), path);
	} else if (s->capped && !regular) {
		check(
		    r, "kernel_log", CHECK_WARNING,
		    _("stopped after %lld MiB of '%s' (%ld lines, %ld xid line(s)): is it a log?"),
		    KLOG_MAX_BYTES >> 20, path, s->lines, s->xid_lines);
	} else {
		check(r, "kernel_log", s->n ? CHECK_WARNING : CHECK_OK,
		      _("%ld lines, %ld xid line(s), %d distinct (code, gpu)"), s->lines,
		      s->xid_lines, s->n);
	}
	xid_scan_findings(s, &r->findings);
	free(s);
}
