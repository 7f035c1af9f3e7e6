/*
 * outfile.h - the one rule for every command that writes a file (record,
 * import, export; monitor --log), issue #21 item 1:
 *
 *  1. "-" is stdout, where the command allows it.
 *  2. A path that does not exist is created; an existing one is replaced
 *     only when it is a regular file of the command's own kind (is_ours),
 *     or with --force; never when it is one of the command's inputs (the
 *     same file by device and inode, links and all), force or not.
 *  3. Only regular files are replaced, and only by rename(2) of a complete
 *     temporary file beside them (PATH.tmp-PID, the name shortened to fit
 *     NAME_MAX), which takes the replaced file's mode and, where permitted,
 *     its owner; a signal removes it (outfile_pending_*). A FIFO, a device, a
 *     directory or a dangling link is refused; a link to a regular file
 *     has its target replaced (the link stays).
 *  4. Every write is checked: a full disk (ENOSPC), EIO or a closed stdout
 *     is an error that names the file, and the temporary file is removed.
 *
 * Error contract: functions return 0 (or a non-negative enum) or -1 with a
 * one-line message in err (GS_ERR_LEN).
 */
#ifndef GPUSCOPE_OUTFILE_H
#define GPUSCOPE_OUTFILE_H

#include <stdio.h>

struct outfile_rule {
	const char *what;		  /* the command's output, for messages: "a gpuscope
					     trace database" */
	int (*is_ours)(const char *path); /* 1 when an existing file is of that kind */
	const char *const *inputs;	  /* files the command reads (NULL-terminated), or NULL */
	int force;			  /* --force: replace a file that is not ours */
	int allow_stdout;		  /* "-" is stdout */
};

enum outfile_target {
	OUTFILE_NEW = 0,     /* nothing there yet */
	OUTFILE_REPLACE = 1, /* an existing file of ours (or forced) */
	OUTFILE_STDOUT = 2,
};

/* What writing path would do, or -1 with err when the rule refuses it.
 * real (may be NULL, cap bytes) gets the path that will be replaced (a
 * link's target). */
int outfile_check(const char *path, const struct outfile_rule *r, char *real, size_t cap,
		  char *err);

struct outfile {
	FILE *f;     /* write here */
	char *path;  /* the file replaced at commit (a link's target) */
	char *tmp;   /* the temporary file; NULL for stdout */
	int target;  /* enum outfile_target */
	char *label; /* for messages: the path as given, or "stdout" */
};

/* Checks path (outfile_check) and opens the temporary file beside it, or
 * stdout. */
int outfile_open(struct outfile *o, const char *path, const struct outfile_rule *r, char *err);
/* Flushes and checks every write, fsyncs, renames the temporary file onto
 * the path; on error removes it. Releases o either way. */
int outfile_commit(struct outfile *o, char *err);
/* Gives up: removes the temporary file and releases o. */
void outfile_abort(struct outfile *o);

/* For writers that create the file themselves (SQLite): a temporary name
 * beside path (malloc'd; NULL when out of memory), and the final step:
 * fsync tmp, rename it onto path, fsync the directory. */
char *outfile_tmp_name(const char *path);
int outfile_rename(const char *tmp, const char *path, char *err);

/* The temporary files a SIGINT, SIGTERM or SIGHUP must remove (and a
 * directory made for them, removed when empty): outfile_open and the
 * writers above register theirs; outfile_pending_unlink is
 * async-signal-safe, for the commands' signal handler (cli/signals.h). */
void outfile_pending_add(const char *path, int is_dir);
void outfile_pending_del(const char *path);
void outfile_pending_unlink(void);

#endif
