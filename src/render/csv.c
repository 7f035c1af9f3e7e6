/*
 * csv.c - the main trace tables as CSV files (RFC 4180: a header row,
 * CRLF line ends, fields with a comma, quote, CR or LF quoted with doubled
 * quotes). Times are absolute nanoseconds. All files are written under
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

#include "util/error.h"

static void field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void w_kernels(FILE *f, const struct trace *t)
{
	fputs("start_ns,end_ns,dur_ns,pid,device,context,stream,correlation,name,grid_x,grid_y,"
	      "grid_z,block_x,block_y,block_z,regs,static_smem,dyn_smem,graph_id\r\n",
	      f);
	for (size_t i = 0; i < t->n_kernels; i++) {
		const struct trace_kernel *k = &t->kernels[i];
		fprintf(f, "%" PRId64 ",%" PRId64 ",%" PRId64 ",%u,%u,%u,%u,%u,", k->start_ns,
			k->end_ns, k->end_ns - k->start_ns, k->pid, k->device, k->context,
			k->stream, k->correlation);
		field(f, trace_str(t, k->name_id));
		fprintf(f, ",%u,%u,%u,%u,%u,%u,%u,%u,%u,%u\r\n", k->grid[0], k->grid[1], k->grid[2],
			k->block[0], k->block[1], k->block[2], k->regs, k->static_smem, k->dyn_smem,
			k->graph_id);
	}
}

static void w_copies(FILE *f, const struct trace *t)
{
	fputs("start_ns,end_ns,dur_ns,pid,device,context,stream,correlation,kind,src_kind,dst_kind,"
	      "bytes,graph_id\r\n",
	      f);
	for (size_t i = 0; i < t->n_copies; i++) {
		const struct trace_copy *c = &t->copies[i];
		fprintf(f,
			"%" PRId64 ",%" PRId64 ",%" PRId64 ",%u,%u,%u,%u,%u,%s,%s,%s,%" PRIu64
			",%u\r\n",
			c->start_ns, c->end_ns, c->end_ns - c->start_ns, c->pid, c->device,
			c->context, c->stream, c->correlation, copy_kind_name(c->kind),
			mem_kind_name(c->src_kind), mem_kind_name(c->dst_kind), c->bytes,
			c->graph_id);
	}
}

static void w_memsets(FILE *f, const struct trace *t)
{
	fputs(
	    "start_ns,end_ns,dur_ns,pid,device,context,stream,correlation,mem_kind,bytes,value\r\n",
	    f);
	for (size_t i = 0; i < t->n_memsets; i++) {
		const struct trace_memset *m = &t->memsets[i];
		fprintf(
		    f, "%" PRId64 ",%" PRId64 ",%" PRId64 ",%u,%u,%u,%u,%u,%s,%" PRIu64 ",%u\r\n",
		    m->start_ns, m->end_ns, m->end_ns - m->start_ns, m->pid, m->device, m->context,
		    m->stream, m->correlation, mem_kind_name(m->mem_kind), m->bytes, m->value);
	}
}

static void w_api(FILE *f, const struct trace *t)
{
	fputs("start_ns,end_ns,dur_ns,pid,tid,correlation,name,domain,kind,ret\r\n", f);
	for (size_t i = 0; i < t->n_apis; i++) {
		const struct trace_api *a = &t->apis[i];
		fprintf(f, "%" PRId64 ",%" PRId64 ",%" PRId64 ",%u,%u,%u,", a->start_ns, a->end_ns,
			a->end_ns - a->start_ns, a->pid, a->tid, a->correlation);
		field(f, trace_str(t, a->name_id));
		fprintf(f, ",%s,%s,%d\r\n", a->domain == DOMAIN_DRIVER ? "driver" : "runtime",
			api_kind_name(a->kind), a->ret);
	}
}

static void w_syncs(FILE *f, const struct trace *t)
{
	fputs("start_ns,end_ns,dur_ns,pid,device,context,stream,correlation,kind\r\n", f);
	for (size_t i = 0; i < t->n_syncs; i++) {
		const struct trace_sync *s = &t->syncs[i];
		fprintf(f, "%" PRId64 ",%" PRId64 ",%" PRId64 ",%u,%u,%u,%u,%u,%s\r\n", s->start_ns,
			s->end_ns, s->end_ns - s->start_ns, s->pid, s->device, s->context,
			s->stream, s->correlation, sync_kind_name(s->kind));
	}
}

static void w_ranges(FILE *f, const struct trace *t)
{
	fputs("start_ns,end_ns,dur_ns,pid,tid,kind,name,domain,depth\r\n", f);
	for (size_t i = 0; i < t->n_ranges; i++) {
		const struct trace_range *r = &t->ranges[i];
		fprintf(f, "%" PRId64 ",%" PRId64 ",%" PRId64 ",%u,%u,%s,", r->start_ns, r->end_ns,
			r->end_ns - r->start_ns, r->pid, r->tid, range_kind_name(r->kind));
		field(f, trace_str(t, r->name_id));
		fputc(',', f);
		field(f, trace_str(t, r->domain_id));
		fprintf(f, ",%u\r\n", r->depth);
	}
}

static void w_samples(FILE *f, const struct trace *t)
{
	fputs("ts_ns,device,metric,value\r\n", f);
	for (size_t i = 0; i < t->n_samples; i++) {
		const struct trace_sample *s = &t->samples[i];
		fprintf(f, "%" PRId64 ",%u,", s->ts_ns, s->device);
		field(f, trace_str(t, s->metric_id));
		fprintf(f, ",%.17g\r\n", s->value);
	}
}

static const struct {
	const char *name;
	void (*write)(FILE *f, const struct trace *t);
} tables[] = {
    {"kernels.csv", w_kernels}, {"copies.csv", w_copies}, {"memsets.csv", w_memsets},
    {"api.csv", w_api},		{"syncs.csv", w_syncs},	  {"ranges.csv", w_ranges},
    {"samples.csv", w_samples},
};

#define N_TABLES (sizeof(tables) / sizeof(tables[0]))

int csv_export(const struct trace *t, const char *dir, char *err)
{
	struct stat sb;
	int made_dir = 0;
	if (stat(dir, &sb) == 0) {
		if (!S_ISDIR(sb.st_mode))
			return error_set(err, "'%s' exists and is not a directory", dir);
	} else {
		if (mkdir(dir, 0777) < 0)
			return error_set(err, "cannot create directory '%s': %s", dir,
					 strerror(errno));
		made_dir = 1;
	}
	char tmp[N_TABLES][4096], fin[N_TABLES][4096];
	size_t done = 0;
	int rc = 0;
	for (; done < N_TABLES; done++) {
		snprintf(fin[done], sizeof(fin[done]), "%s/%s", dir, tables[done].name);
		snprintf(tmp[done], sizeof(tmp[done]), "%s/%s.tmp-%d", dir, tables[done].name,
			 (int)getpid());
		FILE *f = fopen(tmp[done], "w");
		if (!f) {
			rc = error_set(err, "cannot create '%s': %s", tmp[done], strerror(errno));
			break;
		}
		setvbuf(f, NULL, _IOFBF, 1 << 20);
		tables[done].write(f, t);
		int bad = ferror(f);
		if (fclose(f) != 0 || bad) {
			rc = error_set(err, "cannot write '%s': %s", tmp[done], strerror(errno));
			done++;
			break;
		}
	}
	if (rc == 0) {
		for (size_t i = 0; i < N_TABLES; i++) {
			if (rename(tmp[i], fin[i]) < 0) {
				rc = error_set(err, "cannot rename '%s': %s", tmp[i],
					       strerror(errno));
				break;
			}
		}
	}
	if (rc < 0) {
		for (size_t i = 0; i < done; i++)
			unlink(tmp[i]);
		if (made_dir)
			rmdir(dir);
	}
	return rc;
}
