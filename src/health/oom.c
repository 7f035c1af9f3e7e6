/*
 * oom.c - the numbers of a PyTorch "CUDA out of memory" message (oom.h).
 */
#include "health/oom.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct text {
	const char *s, *end;
};

static const char *find(const struct text *t, const char *from, const char *phrase)
{
	size_t n = strlen(phrase);
	if (!from || from >= t->end || (size_t)(t->end - from) < n)
		return NULL;
	return memmem(from, (size_t)(t->end - from), phrase, n);
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* A size at p ("1.91 GiB", "0 bytes"): bytes into *v, the end into *after. */
static int size_at(const struct text *t, const char *p, double *v, const char **after)
{
	static const struct {
		const char *name;
		double mult;
	} units[] = {{"TiB", 1099511627776.0}, {"GiB", 1073741824.0}, {"MiB", 1048576.0},
		     {"KiB", 1024.0},	       {"bytes", 1.0},	      {"B", 1.0}};
	while (p < t->end && *p == ' ')
		p++;
	char num[32];
	size_t n = 0;
	while (p < t->end && (is_digit(*p) || *p == '.') && n < sizeof(num) - 1)
		num[n++] = *p++;
	num[n] = '\0';
	if (!n || !is_digit(num[0]))
		return 0;
	while (p < t->end && *p == ' ')
		p++;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t l = strlen(units[i].name);
		if ((size_t)(t->end - p) >= l && !memcmp(p, units[i].name, l)) {
			*v = strtod(num, NULL) * units[i].mult;
			/* no GPU or program holds an exabyte: anything past that
			 * is not a size (and would not fit an int64 in JSON) */
			if (!(*v < 1e18))
				return 0;
			if (after)
				*after = p + l;
			return 1;
		}
	}
	return 0;
}

/* The size right after phrase (its first occurrence from `from`). */
static int after(const struct text *t, const char *from, const char *phrase, double *v)
{
	const char *p = find(t, from, phrase);
	return p && size_at(t, p + strlen(phrase), v, NULL);
}

/* The size right before phrase: "10.85 GiB already allocated". */
static int before(const struct text *t, const char *phrase, double *v)
{
	const char *p = find(t, t->s, phrase);
	if (!p)
		return 0;
	const char *q = p;
	while (q > t->s && q[-1] == ' ')
		q--;
	while (q > t->s && ((q[-1] >= 'A' && q[-1] <= 'Z') || (q[-1] >= 'a' && q[-1] <= 'z')))
		q--;
	while (q > t->s && q[-1] == ' ')
		q--;
	while (q > t->s && (is_digit(q[-1]) || q[-1] == '.'))
		q--;
	return size_at(t, q, v, NULL);
}

int oom_parse(const char *text, size_t len, struct oom_numbers *o)
{
	struct text t = {text, text + len};
	double v, reserved;
	memset(o, 0, sizeof(*o));
	const char *tried = find(&t, t.s, "Tried to allocate");
	if (!tried || !size_at(&t, tried + 17, &o->request, NULL))
		return 0;
	o->have |= OOM_REQ;
	const char *g = find(&t, tried, "GPU ");
	if (g && g + 4 < t.end && is_digit(g[4])) {
		o->gpu = 0;
		for (const char *d = g + 4; d < t.end && is_digit(*d) && o->gpu < 100000; d++)
			o->gpu = o->gpu * 10 + (*d - '0');
		o->have |= OOM_GPU;
	}
	/* 2.1 and later */
	if (after(&t, tried, "total capacity of", &v) || after(&t, tried, "total capacty of", &v)) {
		o->total = v;
		o->have |= OOM_TOTAL;
		if (after(&t, tried, "of which", &v)) {
			o->free = v;
			o->have |= OOM_FREE;
		}
	}
	if (after(&t, tried, "this process has", &v)) {
		o->process = v;
		o->have |= OOM_PROC;
	}
	if (after(&t, tried, "Of the allocated memory", &v)) {
		o->alloc = v;
		o->have |= OOM_ALLOC;
	}
	/* 2.4 and later may put "with 660.00 MiB allocated in private pools
	 * (e.g., CUDA Graphs)," between the two */
	if (after(&t, tried, "allocated by PyTorch, and", &v) ||
	    before(&t, "is reserved by PyTorch but unallocated", &v)) {
		o->unalloc = v;
		o->have |= OOM_UNALLOC;
	}
	/* "Process 4242 has 1.00 GiB memory in use.": the other processes
	 * NVML sees; in a container this process is among them under its
	 * host pid, and the "this process has" line is missing */
	double listed = 0, own = -1;
	int n_listed = 0;
	double sizes[64];
	for (const char *p = find(&t, tried, "Process "); p; p = find(&t, p + 8, "Process ")) {
		const char *q = p + 8;
		if (!is_digit(*q))
			continue;
		while (q < t.end && is_digit(*q))
			q++;
		if ((size_t)(t.end - q) > 5 && !memcmp(q, " has ", 5) &&
		    size_at(&t, q + 5, &v, NULL)) {
			listed += v;
			if (n_listed < 64)
				sizes[n_listed] = v;
			n_listed++;
		}
	}
	/* 1.x-2.0: "(GPU 0; 11.17 GiB total capacity; 10.85 GiB already allocated;
	 * 24.81 MiB free; 10.86 GiB reserved in total by PyTorch)"; 1.0 said
	 * "4.68 MiB cached" for the reserve beyond what is allocated */
	if (!(o->have & OOM_TOTAL) && before(&t, "total capacity", &v)) {
		o->total = v;
		o->have |= OOM_TOTAL;
	}
	if (!(o->have & OOM_ALLOC) && before(&t, "already allocated", &v)) {
		o->alloc = v;
		o->have |= OOM_ALLOC | OOM_BEFORE_2_1;
	}
	if (!(o->have & OOM_FREE) && before(&t, "free;", &v)) {
		o->free = v;
		o->have |= OOM_FREE;
	}
	if (!(o->have & OOM_UNALLOC) && (o->have & OOM_ALLOC) &&
	    before(&t, "reserved in total by PyTorch", &reserved) && reserved >= o->alloc) {
		o->unalloc = reserved - o->alloc;
		o->have |= OOM_UNALLOC;
	}
	if (!(o->have & OOM_UNALLOC) && before(&t, "cached)", &v)) {
		o->unalloc = v;
		o->have |= OOM_UNALLOC;
	}
	/* other processes: what the GPU's used memory leaves beside this one */
	if ((o->have & (OOM_TOTAL | OOM_FREE | OOM_PROC)) == (OOM_TOTAL | OOM_FREE | OOM_PROC)) {
		/* the message rounds each figure to 0.01 of its unit: a difference
		 * under 1% of the GPU is that rounding */
		o->others = o->total - o->free - o->process;
		if (o->others < 0.01 * o->total)
			o->others = 0;
		o->have |= OOM_OTHERS;
	} else if (n_listed && (o->have & OOM_PROC)) {
		o->others = listed;
		o->have |= OOM_OTHERS;
	} else if (n_listed && (o->have & (OOM_ALLOC | OOM_UNALLOC)) == (OOM_ALLOC | OOM_UNALLOC)) {
		/* this process is one of the listed: its use is what PyTorch
		 * reserved plus its CUDA context, so the smallest listed figure
		 * that holds the reserve is taken for it */
		double held = o->alloc + o->unalloc;
		for (int i = 0; i < n_listed && i < 64; i++)
			if (sizes[i] >= held * 0.999 && (own < 0 || sizes[i] < own))
				own = sizes[i];
		if (own >= 0) {
			o->process = own;
			o->others = listed - own;
			if ((o->have & (OOM_TOTAL | OOM_FREE)) == (OOM_TOTAL | OOM_FREE)) {
				o->others = o->total - o->free - own;
				if (o->others < 0.01 * o->total)
					o->others = 0;
			}
			o->have |= OOM_PROC | OOM_OTHERS | OOM_GUESSED;
		}
	}
	return (o->have & ~(unsigned)(OOM_REQ | OOM_GPU)) != 0;
}

/* Memory the driver and the allocator's 2 MiB rounding need beyond the
 * request before "free" can be said to hold it. */
static double slack(const struct oom_numbers *o)
{
	double s = o->have & OOM_TOTAL ? 0.01 * o->total : 0;
	return s > 64.0 * 1048576 ? s : 64.0 * 1048576;
}

enum oom_verdict oom_verdict(const struct oom_numbers *o, double *short_by)
{
	const double r = o->request, gib = 1073741824.0;
	if (short_by)
		*short_by = 0;
	if (!(o->have & OOM_REQ))
		return OOM_V_UNKNOWN;
	if ((o->have & OOM_TOTAL) && r > o->total)
		return OOM_V_LARGER_THAN_GPU;
	if ((o->have & (OOM_TOTAL | OOM_ALLOC)) == (OOM_TOTAL | OOM_ALLOC) &&
	    o->alloc > o->total * 1.001)
		return OOM_V_OVERSUBSCRIBED;
	if (!(o->have & OOM_FREE))
		return OOM_V_UNKNOWN;
	if (o->free >= r + slack(o))
		return OOM_V_FREE_ENOUGH;
	const double unalloc = o->have & OOM_UNALLOC ? o->unalloc : 0;
	const double miss = r - o->free - unalloc;
	if (short_by && miss > 0)
		*short_by = miss;
	/* the reserve PyTorch could not give back is split by live tensors;
	 * a few percent of the GPU of it is not what the job is short of */
	if (o->free + unalloc >= r + slack(o) && (o->have & OOM_TOTAL) &&
	    unalloc >= 0.05 * o->total)
		return OOM_V_FRAGMENTED;
	if ((o->have & OOM_OTHERS) && o->others >= r)
		return OOM_V_OTHERS;
	if ((o->have & (OOM_PROC | OOM_ALLOC | OOM_UNALLOC)) ==
	    (OOM_PROC | OOM_ALLOC | OOM_UNALLOC)) {
		double rest = o->process - o->alloc - o->unalloc;
		if (rest >= r && rest > gib)
			return OOM_V_NON_PYTORCH;
	} else if (!(o->have & OOM_OTHERS) && (o->have & (OOM_TOTAL | OOM_ALLOC | OOM_UNALLOC)) ==
						  (OOM_TOTAL | OOM_ALLOC | OOM_UNALLOC)) {
		/* who holds the rest is not in the message: other processes or
		 * this one's context (a few hundred MiB) and other libraries */
		double outside = oom_outside(o);
		if (outside >= 0.25 * o->total && outside - 0.5 * gib >= (miss > 0 ? miss : 0))
			return OOM_V_OUTSIDE;
	}
	/* one request larger than every live tensor together, or a quarter of
	 * the GPU, and not a small one */
	if ((o->have & OOM_TOTAL) && r >= 0.1 * o->total &&
	    (((o->have & OOM_ALLOC) && r > o->alloc) || r >= 0.25 * o->total))
		return OOM_V_ONE_TENSOR;
	return OOM_V_FULL;
}

double oom_outside(const struct oom_numbers *o)
{
	double x = o->total - o->free - o->alloc - o->unalloc;
	return x > 0 ? x : 0;
}

const char *oom_verdict_id(enum oom_verdict v)
{
	static const char *const ids[] = {
	    "unknown",	       "larger_than_gpu", "oversubscribed",  "free_enough", "fragmented",
	    "other_processes", "non_pytorch",	  "outside_pytorch", "one_tensor",  "full",
	};
	return (unsigned)v < sizeof(ids) / sizeof(ids[0]) ? ids[v] : "unknown";
}

/* ---- JAX / XLA ---- */

/* Copies the run of text from p up to a byte of stop (or the end, or cap-1
 * bytes) into out. */
static void copy_until(const struct text *t, const char *p, const char *stop, char *out, size_t cap)
{
	size_t n = 0;
	while (p < t->end && !strchr(stop, *p) && n < cap - 1)
		out[n++] = *p++;
	out[n] = '\0';
}

/* One "Buffer N:" block, from p to end. */
static void xla_buffer(const char *p, const char *end, struct xla_buffer *b)
{
	struct text t = {p, end};
	const char *q;
	memset(b, 0, sizeof(*b));
	if ((q = find(&t, p, "Size:")))
		size_at(&t, q + 5, &b->size, NULL);
	if ((q = find(&t, p, "Shape: ")))
		copy_until(&t, q + 7, " \t\r\n{", b->shape, sizeof(b->shape));
	if ((q = find(&t, p, "Entry Parameter Subshape: "))) {
		copy_until(&t, q + 26, " \t\r\n{", b->shape, sizeof(b->shape));
		snprintf(b->op, sizeof(b->op), "parameter");
	}
	if ((q = find(&t, p, "op_name=\""))) {
		/* "jit(f)/jit(main)/.../attention/jit(_einsum)/dot_general[...]":
		 * the op (the last part, before any '[') and the part naming
		 * the code above it (not a transform such as jit(...), jvp(...)) */
		char name[512];
		copy_until(&t, q + 9, "\"[", name, sizeof(name));
		char *op = strrchr(name, '/'), *scope = NULL;
		if (op) {
			*op++ = '\0';
			for (char *s = strrchr(name, '/'); !scope; s = strrchr(name, '/')) {
				char *part = s ? s + 1 : name;
				if (!strchr(part, '('))
					scope = part;
				else if (s)
					*s = '\0';
				else
					break;
			}
		} else {
			op = name;
		}
		snprintf(b->op, sizeof(b->op), "%.40s%s%.40s", scope ? scope : "", scope ? "/" : "",
			 op);
	}
	if ((q = find(&t, p, "source_file=\""))) {
		char file[512], line[16] = "";
		copy_until(&t, q + 13, "\"", file, sizeof(file));
		const char *base = strrchr(file, '/');
		const char *l = find(&t, q, "source_line=");
		if (l)
			copy_until(&t, l + 12, " \t\r\n\"", line, sizeof(line));
		snprintf(b->where, sizeof(b->where), "%.80s%s%.12s", base ? base + 1 : file,
			 *line ? ":" : "", line);
	}
}

int xla_oom_parse(const char *text, size_t len, struct xla_oom *x)
{
	struct text t = {text, text + len};
	double v;
	memset(x, 0, sizeof(*x));
	if (after(&t, t.s, "Out of memory while trying to allocate", &v) ||
	    after(&t, t.s, "out of memory while trying to allocate", &v) ||
	    after(&t, t.s, "ran out of memory trying to allocate", &v)) {
		x->request = v;
		x->have |= XLA_REQ;
	}
	static const struct {
		const char *label;
		unsigned bit;
		size_t off;
	} stats[] = {
	    {"parameter allocation:", XLA_PARAM, offsetof(struct xla_oom, param)},
	    {"maybe_live_out allocation:", XLA_OUT, offsetof(struct xla_oom, out)},
	    {"preallocated temp allocation:", XLA_TEMP, offsetof(struct xla_oom, temp)},
	    {"total allocation:", XLA_TOTAL, offsetof(struct xla_oom, total)},
	    {"total fragmentation:", XLA_FRAG, offsetof(struct xla_oom, frag)},
	};
	const char *st = find(&t, t.s, "BufferAssignment stats:");
	for (size_t i = 0; st && i < sizeof(stats) / sizeof(stats[0]); i++)
		if (after(&t, st, stats[i].label, &v)) {
			*(double *)((char *)x + stats[i].off) = v;
			x->have |= stats[i].bit;
		}
	const char *pk = find(&t, t.s, "Peak buffers:");
	for (const char *b = pk ? find(&t, pk, "Buffer ") : NULL;
	     b && x->n_buf < XLA_PEAK_BUFFERS;) {
		const char *next = find(&t, b + 7, "Buffer ");
		const char *stop = find(&t, b, "==========");
		const char *end = next ? next : t.end;
		if (stop && stop < end)
			end = stop;
		xla_buffer(b, end, &x->buf[x->n_buf]);
		if (x->buf[x->n_buf].size > 0)
			x->n_buf++;
		b = next;
	}
	return (x->have & (XLA_REQ | XLA_TOTAL)) != 0;
}

enum xla_verdict xla_oom_verdict(const struct xla_oom *x)
{
	const double gib = 1073741824.0;
	if (!(x->have & XLA_TOTAL) || x->total <= 0)
		return XLA_V_UNKNOWN;
	if (x->total < gib && (!(x->have & XLA_REQ) || x->request < gib))
		return XLA_V_ELSEWHERE;
	if ((x->have & XLA_OUT) && x->out >= 0.5 * x->total)
		return XLA_V_OUTPUTS;
	if ((x->have & XLA_TEMP) && x->temp >= 0.5 * x->total)
		return XLA_V_TEMPS;
	if ((x->have & XLA_PARAM) && x->param >= 0.5 * x->total)
		return XLA_V_PARAMS;
	return XLA_V_PROGRAM;
}

const char *xla_verdict_id(enum xla_verdict v)
{
	static const char *const ids[] = {"unknown",	 "held_elsewhere", "outputs",
					  "temporaries", "parameters",	   "program"};
	return (unsigned)v < sizeof(ids) / sizeof(ids[0]) ? ids[v] : "unknown";
}
