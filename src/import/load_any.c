/*
 * load_any.c - trace_load_any(): open any trace gpuscope reads, by content.
 *
 * The input is opened once (util/infile.h: no blocking open on a FIFO, no
 * directory or device) and sniffed from its first bytes: a SQLite header
 * with gpuscope's application_id is a trace database; gzip magic or JSON
 * text starting with '{' or '[' (after a UTF-8 byte order mark and white
 * space) is a PyTorch profiler trace, read on from the same stream, so a
 * pipe works as well as a file. Anything else gets a message naming what
 * was expected (an Nsight Systems report or SQLite export is named as
 * such).
 */
#include <string.h>

#include "import/kineto.h"
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

int trace_load_any(struct trace *t, const char *path, char *err)
{
	return trace_load_any_opt(t, path, NULL, err);
}

int trace_load_any_opt(struct trace *t, const char *path, const struct kineto_options *ko,
		       char *err)
{
	struct infile in;
	trace_init(t);
	trace_release(t);
	if (infile_open(&in, path, err) < 0)
		return -1;
	const unsigned char *head = in.head;
	size_t n = in.n_head;
	int rc;
	if (n == 0) {
		rc = error_set(err, "'%s' is empty", path);
	} else if (n >= 16 && memcmp(head, "SQLite format 3", 16) == 0) {
		if (in.is_pipe)
			rc = error_set(err,
				       "'%s' is a database on a pipe: SQLite reads databases from "
				       "files only (save it to a file first)",
				       path);
		else if (!trace_db_is_gpuscope(path) && trace_db_is_nsys_export(path))
			rc = error_set(
			    err,
			    "'%s' is an Nsight Systems SQLite export, which gpuscope does "
			    "not read: record the program with gpuscope record (or "
			    "profile it with torch.profiler)",
			    path);
		else if (!trace_db_is_gpuscope(path))
			rc = error_set(err, "'%s' is a sqlite database but not a gpuscope trace",
				       path);
		else
			rc = 1;
	} else if (n >= 2 && head[0] == 0x1f && head[1] == 0x8b) {
		rc = 2;
	} else {
		size_t i = 0;
		if (n >= 3 && head[0] == 0xef && head[1] == 0xbb && head[2] == 0xbf)
			i = 3; /* UTF-8 byte order mark */
		while (i < n &&
		       (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r'))
			i++;
		/* JSON after more whitespace than the sniffed head: the parser decides */
		if ((i < n && (head[i] == '{' || head[i] == '[')) || (i == n && n == INFILE_HEAD))
			rc = 2;
		else if (has_suffix(path, ".nsys-rep") || has_suffix(path, ".qdrep"))
			rc = error_set(err,
				       "'%s' is an Nsight Systems report, which gpuscope does not "
				       "read: record the program with gpuscope record (or profile "
				       "it with torch.profiler)",
				       path);
		else if ((rc = foreign(path, head, n, err)) == 0)
			rc = error_set(err,
				       "'%s' is neither a gpuscope trace database nor a pytorch "
				       "profiler trace (.json or .json.gz)",
				       path);
	}
	if (rc == 2)
		rc = kineto_load_infile(t, &in, ko, err);
	infile_close(&in);
	if (rc == 1)
		rc = trace_db_load(t, path, err);
	return rc;
}
