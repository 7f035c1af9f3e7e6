/*
 * load_any.c - the reader table and trace_load_any(): open any trace
 * gpuscope reads, by content.
 *
 * The input is opened once (util/infile.h: no blocking open on a FIFO, no
 * directory or device) and each reader of the table sniffs its first
 * bytes: a SQLite header is a trace database (refused with a message when
 * it is some other database or on a pipe); gzip magic or JSON text
 * starting with '{' or '[' (after a UTF-8 byte order mark and white space)
 * is a PyTorch profiler trace, read on from the same stream, so a pipe
 * works as well as a file. Anything else gets a message naming what was
 * expected, from the table (an Nsight Systems report or SQLite export,
 * XLA's and Nsight Compute's files and pickles are named as such).
 */
#include <string.h>

#include "import/kineto.h"
#include "import/load.h"
#include "trace/trace_db.h"
#include "util/error.h"
#include "util/infile.h"

static int has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && strcmp(s + n - m, suf) == 0;
}

/* A file another profiler wrote, named with what to do instead: -1 with
 * the message, 0 when it is none gpuscope knows. By name where the format
 * is a protobuf or a container with no magic of its own (XPlane, Nsight
 * Compute), by content for a Python pickle (a CUDA memory snapshot is
 * one). */
static int foreign(const char *path, const unsigned char *head, size_t n, char *err)
{
	if (has_suffix(path, ".xplane.pb"))
		return error_set(err,
				 "'%s' is an XLA profiler file (XPlane, from jax.profiler or "
				 "TensorFlow's profiler), which gpuscope does not read: record the "
				 "program with gpuscope record -- python PROGRAM.py",
				 path);
	if (has_suffix(path, ".ncu-rep"))
		return error_set(err,
				 "'%s' is an Nsight Compute report, which gpuscope does not read: "
				 "record the program with gpuscope record --metrics kernels for "
				 "per-kernel counters",
				 path);
	if (n >= 2 && head[0] == 0x80 && head[1] >= 2 && head[1] <= 5)
		return error_set(err,
				 "'%s' is a Python pickle (a CUDA memory snapshot from "
				 "torch.cuda.memory._dump_snapshot?), which gpuscope does not "
				 "read: open a snapshot in PyTorch's memory viewer "
				 "(pytorch.org/memory_viz); gpuscope report shows the memory peak "
				 "of a recording, or of a trace taken with profile_memory=True",
				 path);
	return 0;
}

static int sniff_db(const char *path, const unsigned char *head, size_t n)
{
	(void)path;
	return n >= 16 && memcmp(head, "SQLite format 3", 16) == 0;
}

static int load_db(struct trace *t, struct infile *in, const char *path,
		   const struct kineto_options *ko, char *err)
{
	(void)ko;
	if (in->is_pipe)
		return error_set(err,
				 "'%s' is a database on a pipe: SQLite reads databases from "
				 "files only (save it to a file first)",
				 path);
	if (!trace_db_is_gpuscope(path) && trace_db_is_nsys_export(path))
		return error_set(err,
				 "'%s' is an Nsight Systems SQLite export, which gpuscope does "
				 "not read: record the program with gpuscope record (or "
				 "profile it with torch.profiler)",
				 path);
	if (!trace_db_is_gpuscope(path))
		return error_set(err, "'%s' is a sqlite database but not a gpuscope trace", path);
	return trace_db_load(t, path, err);
}

static int sniff_kineto(const char *path, const unsigned char *head, size_t n)
{
	(void)path;
	if (n >= 2 && head[0] == 0x1f && head[1] == 0x8b)
		return 1;
	size_t i = 0;
	if (n >= 3 && head[0] == 0xef && head[1] == 0xbb && head[2] == 0xbf)
		i = 3; /* UTF-8 byte order mark */
	while (i < n && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r'))
		i++;
	/* JSON after more white space than the sniffed head: the parser decides */
	return (i < n && (head[i] == '{' || head[i] == '[')) || (i == n && n == INFILE_HEAD);
}

static int load_kineto(struct trace *t, struct infile *in, const char *path,
		       const struct kineto_options *ko, char *err)
{
	(void)path;
	return kineto_load_infile(t, in, ko, err);
}

const struct trace_reader trace_readers[] = {
    {"gpuscope trace database", ".db", sniff_db, load_db, TRACE_SRC_RECORD},
    {"pytorch profiler trace", ".json .json.gz", sniff_kineto, load_kineto, TRACE_SRC_PYTORCH},
};
const size_t trace_n_readers = sizeof(trace_readers) / sizeof(trace_readers[0]);

int trace_reader_suffix(const struct trace_reader *readers, size_t n, const char *name)
{
	char suf[64];
	for (size_t r = 0; r < n; r++)
		for (const char *s = readers[r].suffixes; *s;) {
			size_t l = strcspn(s, " ");
			if (l && l < sizeof(suf)) {
				memcpy(suf, s, l);
				suf[l] = 0;
				if (strlen(name) > l && has_suffix(name, suf))
					return 1;
			}
			s += l + (s[l] == ' ');
		}
	return 0;
}

/* "'PATH' is neither a A nor a B (.json or .json.gz)": every reader named, with
 * its suffixes but for the first (a database is known by its content). */
static int none_of(const struct trace_reader *readers, size_t n, const char *path, char *err)
{
	char what[512] = "";
	size_t used = 0;
	for (size_t r = 0; r < n && used < sizeof(what); r++) {
		char sufs[128] = "";
		const char *s = readers[r].suffixes;
		if (r > 0 && *s) {
			size_t u = (size_t)snprintf(sufs, sizeof(sufs), " (");
			while (*s && u < sizeof(sufs)) {
				size_t l = strcspn(s, " ");
				u += (size_t)snprintf(sufs + u, sizeof(sufs) - u, "%.*s%s", (int)l,
						      s, s[l] ? " or " : ")");
				s += l + (s[l] == ' ');
			}
		}
		used += (size_t)snprintf(what + used, sizeof(what) - used, "%sa %s%s",
					 r == 0	     ? "neither "
					 : r + 1 < n ? ", "
						     : " nor ",
					 readers[r].name, sufs);
	}
	return error_set(err, "'%s' is %s", path, what);
}

const char *trace_readers_help(char *buf, size_t cap, const struct trace_reader *readers, size_t n)
{
	int w = 0;
	size_t u = 0;
	for (size_t r = 0; r < n; r++)
		if ((int)strlen(readers[r].name) > w)
			w = (int)strlen(readers[r].name);
	if (cap)
		buf[0] = 0;
	for (size_t r = 0; r < n && u < cap; r++)
		u += (size_t)snprintf(buf + u, cap - u, "  %-*s  %s\n", w, readers[r].name,
				      readers[r].suffixes);
	return buf;
}

int trace_load_any(struct trace *t, const char *path, char *err)
{
	return trace_load_any_opt(t, path, NULL, err);
}

int trace_load_any_opt(struct trace *t, const char *path, const struct kineto_options *ko,
		       char *err)
{
	return trace_load_with(trace_readers, trace_n_readers, t, path, ko, err);
}

int trace_load_with(const struct trace_reader *readers, size_t n_readers, struct trace *t,
		    const char *path, const struct kineto_options *ko, char *err)
{
	struct infile in;
	trace_init(t);
	trace_release(t);
	if (infile_open(&in, path, err) < 0)
		return -1;
	const unsigned char *head = in.head;
	size_t n = in.n_head;
	int rc;
	const struct trace_reader *r = NULL;
	/* Nsight Systems' reports are known by their name before any sniffing:
	 * their binary content can look like the start of another format's */
	int nsys = has_suffix(path, ".nsys-rep") || has_suffix(path, ".qdrep");
	for (size_t i = 0; n && !nsys && !r && i < n_readers; i++)
		if (readers[i].sniff(path, head, n))
			r = &readers[i];
	if (n == 0)
		rc = error_set(err, "'%s' is empty", path);
	else if (r)
		rc = r->load(t, &in, path, ko, err);
	else if (nsys)
		rc = error_set(err,
			       "'%s' is an Nsight Systems report, which gpuscope does not "
			       "read: record the program with gpuscope record (or profile "
			       "it with torch.profiler)",
			       path);
	else if ((rc = foreign(path, head, n, err)) == 0)
		rc = none_of(readers, n_readers, path, err);
	infile_close(&in);
	return rc;
}
