/*
 * csv.c - the main trace tables as CSV files (RFC 4180: a header row,
 * CRLF line ends, fields with a comma, quote, CR or LF quoted with doubled
 * quotes). Times are absolute nanoseconds. The columns and their order come
 * from the table descriptions (trace/schema.h). All files are written under
 * temporary names and renamed together only when every one is complete.
 */
#include "render/perfetto.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace/schema.h"
#include "util/error.h"
#include "util/apiname.h"
#include "util/csv.h"
#include "util/demangle.h"
#include "util/outfile.h"

/* The exported columns of tt (and, for kernels, of their launch
 * configuration) in CSV order. */
static size_t csv_columns(const struct ttable *tt, const struct tcol **out, size_t cap)
{
	size_t n = 0;
	const struct ttable *parts[2] = {
	    tt, tt == &trace_tables[TT_KERNELS] ? &trace_tables[TT_LAUNCH_CONFIGS] : NULL};
	for (int p = 0; p < 2 && parts[p]; p++)
		for (size_t i = 0; i < parts[p]->n_cols; i++)
			if (parts[p]->cols[i].csv_pos && n < cap)
				out[n++] = &parts[p]->cols[i];
	/* insertion sort by csv_pos: a few dozen columns */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && out[j - 1]->csv_pos > out[j]->csv_pos; j--) {
			const struct tcol *x = out[j];
			out[j] = out[j - 1];
			out[j - 1] = x;
		}
	return n;
}

static int64_t int_of(const struct tcol *c, const char *row)
{
	const char *f = row + c->off;
	switch (c->kind) {
	case TC_U8:
		return *(const uint8_t *)f;
	case TC_U32:
		return *(const uint32_t *)f;
	case TC_I32:
		return *(const int32_t *)f;
	case TC_DUR:
		return *(const int64_t *)f - *(const int64_t *)row;
	default:
		return *(const int64_t *)f;
	}
}

static void value(FILE *f, const struct trace *t, const struct tcol *c, const char *row)
{
	int64_t v = c->kind == TC_F64 || c->kind == TC_U64 ? 0 : int_of(c, row);
	switch (c->csv) {
	case CSV_STR:
		csv_field(f, trace_str(t, (uint32_t)v));
		return;
	case CSV_COPY:
		fputs(copy_kind_name((int)v), f);
		return;
	case CSV_MEM:
		fputs(mem_kind_name((int)v), f);
		return;
	case CSV_API:
		fputs(api_kind_name((int)v), f);
		return;
	case CSV_SYNC:
		fputs(sync_kind_name((int)v), f);
		return;
	case CSV_RANGE:
		fputs(range_kind_name((int)v), f);
		return;
	case CSV_DOMAIN:
		fputs(v == DOMAIN_DRIVER ? "driver" : "runtime", f);
		return;
	case CSV_DEMANGLED: {
		char b[4096];
		csv_field(f, gs_demangle(trace_str(t, (uint32_t)v), b, sizeof(b)));
		return;
	}
	case CSV_APINAME: {
		char b[256];
		csv_field(f, gs_api_name(trace_str(t, (uint32_t)v), b, sizeof(b)));
		return;
	}
	}
	if (c->kind == TC_F64)
		fprintf(f, "%.17g", *(const double *)(row + c->off));
	else if (c->kind == TC_U64)
		fprintf(f, "%" PRIu64, *(const uint64_t *)(row + c->off));
	else
		fprintf(f, "%" PRId64, v);
}

static void write_csv(FILE *f, const struct trace *t, const struct ttable *tt)
{
	const struct tcol *cols[64];
	size_t n = csv_columns(tt, cols, 64);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? "," : "", f);
		fputs(cols[i]->csv_name, f);
	}
	fputs("\r\n", f);
	const char *rows = *(char *const *)((const char *)t + tt->arr_off);
	size_t nrows = *(const size_t *)((const char *)t + tt->n_off);
	for (size_t r = 0; r < nrows; r++) {
		const char *row = rows + r * tt->elem_size;
		for (size_t i = 0; i < n; i++) {
			if (i)
				fputc(',', f);
			value(f, t, cols[i], row);
		}
		fputs("\r\n", f);
	}
}

/* The header line of tt, with CRLF. */
static void header_line(const struct ttable *tt, char *buf, size_t cap)
{
	const struct tcol *cols[64];
	size_t n = csv_columns(tt, cols, 64), at = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && at < cap; i++)
		at += (size_t)snprintf(buf + at, cap - at, "%s%s", i ? "," : "", cols[i]->csv_name);
	if (at < cap)
		snprintf(buf + at, cap - at, "\r\n");
}

/* An existing CSV file is ours when its first line is our header for it. */
static int csv_is_ours(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	for (int i = 0; i < TT_COUNT; i++) {
		const struct ttable *tt = &trace_tables[i];
		if (!tt->csv_file || strcmp(tt->csv_file, base) != 0)
			continue;
		char want[1024], got[1024];
		header_line(tt, want, sizeof(want));
		FILE *f = fopen(path, "rb");
		if (!f)
			return 0;
		int ok = fgets(got, sizeof(got), f) && strcmp(got, want) == 0;
		fclose(f);
		return ok;
	}
	return 0;
}

int csv_export(const struct trace *t, const char *dir, int force, char *err)
{
	if (strcmp(dir, "-") == 0)
		return error_set(err, "csv export writes a directory of files, not stdout");
	struct stat sb;
	int made_dir = 0;
	if (stat(dir, &sb) == 0) { /* a link to a directory writes into it */
		if (!S_ISDIR(sb.st_mode))
			return error_set(err, "'%s' exists and is not a directory", dir);
	} else {
		if (mkdir(dir, 0777) < 0)
			return error_set(err, "cannot create directory '%s': %s", dir,
					 strerror(errno));
		made_dir = 1;
		outfile_pending_add(dir, 1);
	}
	const struct ttable *tables[TT_COUNT];
	size_t n_tables = 0;
	for (int i = 0; i < TT_COUNT; i++)
		if (trace_tables[i].csv_file)
			tables[n_tables++] = &trace_tables[i];
	char tmp[TT_COUNT][4096], fin[TT_COUNT][4096];
	struct outfile_rule rule = {"a gpuscope CSV table", csv_is_ours, NULL, force, 0};
	size_t done = 0;
	int rc = 0;
	for (size_t i = 0; i < n_tables && rc == 0; i++) {
		snprintf(fin[i], sizeof(fin[i]), "%s/%s", dir, tables[i]->csv_file);
		if (outfile_check(fin[i], &rule, NULL, 0, err) < 0)
			rc = -1;
	}
	for (; rc == 0 && done < n_tables; done++) {
		snprintf(tmp[done], sizeof(tmp[done]), "%s/%s.tmp-%d", dir, tables[done]->csv_file,
			 (int)getpid());
		outfile_pending_add(tmp[done], 0);
		FILE *f = fopen(tmp[done], "w");
		if (!f) {
			rc = error_set(err, "cannot create '%s': %s", tmp[done], strerror(errno));
			outfile_pending_del(tmp[done]);
			break;
		}
		setvbuf(f, NULL, _IOFBF, 1 << 20);
		write_csv(f, t, tables[done]);
		errno = 0;
		int bad = fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0;
		int saved = errno;
		if (fclose(f) != 0 || bad) {
			rc = error_set(err, "cannot write '%s': %s", tmp[done],
				       strerror(saved	? saved
						: errno ? errno
							: EIO));
			done++;
			break;
		}
	}
	for (size_t i = 0; rc == 0 && i < n_tables; i++)
		if (outfile_rename(tmp[i], fin[i], err) < 0)
			rc = -1;
	if (rc < 0) {
		for (size_t i = 0; i < done; i++)
			unlink(tmp[i]);
		if (made_dir)
			rmdir(dir);
	}
	for (size_t i = 0; i < done; i++)
		outfile_pending_del(tmp[i]);
	if (made_dir)
		outfile_pending_del(dir);
	return rc;
}
