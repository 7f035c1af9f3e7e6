/*
 * report_hostwait.c - the report's HOST WHILE THE GPU WAITED section
 * (hostwait.h): for each large idle class, the threads that ran and the
 * functions they were in, with their share of that idle time. Text shows
 * the classes of at least TH_MIN_IMPACT_PCT of the span; JSON has every
 * class with samples.
 */
#include <stdio.h>

#include "report/report_int.h"
#include "diagnose/thresholds.h"

/* text shows a function from this share of its class on, and a thread
 * other than the main thread when it was on the CPU this share of it */
#define HW_TEXT_MIN_PCT 2.0
#define HW_TEXT_MIN_CPU_PCT 10.0
#define HW_TEXT_THREADS 3

static const char *const class_key[AN_IDLE_CAUSES] = {
    [AN_IDLE_HOST] = "host", [AN_IDLE_DISPATCH] = "dispatch", [AN_IDLE_LAUNCH] = "launch",
    [AN_IDLE_SYNC] = "sync", [AN_IDLE_COPY] = "copy",	      [AN_IDLE_API] = "api",
};

static const char *const class_line[AN_IDLE_CAUSES] = {
    [AN_IDLE_HOST] = RM_T("host work outside CUDA: the GPU waited {idle_ns} ({idle_pct} of "
			  "the span) while"),
    [AN_IDLE_DISPATCH] = RM_T("host dispatch: the GPU waited {idle_ns} ({idle_pct} of the "
			      "span) while"),
    [AN_IDLE_LAUNCH] = RM_T("launch latency: the GPU waited {idle_ns} ({idle_pct} of the "
			    "span) while"),
    [AN_IDLE_SYNC] = RM_T("sync: the GPU waited {idle_ns} ({idle_pct} of the span) while"),
    [AN_IDLE_COPY] = RM_T("copy calls: the GPU waited {idle_ns} ({idle_pct} of the span) "
			  "while"),
    [AN_IDLE_API] = RM_T("other CUDA calls: the GPU waited {idle_ns} ({idle_pct} of the "
			 "span) while"),
};

static const char *const role_key[] = {
    [HW_THREAD] = "thread",
    [HW_MAIN] = "main",
    [HW_WORKER] = "dataloader_worker",
    [HW_PIN_MEMORY] = "pin_memory",
};

/* the first function of a thread (who ran it), then the others */
static const char *const role_line[] = {
    [HW_THREAD] = RM_T("thread {tid} of process {pid} ran {fn} ({pct})"),
    [HW_MAIN] = RM_T("the main thread (pid {pid}) ran {fn} ({pct})"),
    [HW_WORKER] = RM_T("DataLoader worker (pid {pid}) ran {fn} ({pct})"),
    [HW_PIN_MEMORY] = RM_T("the pin-memory thread (tid {tid}) ran {fn} ({pct})"),
};

static const char *frame_str(struct report *r, const struct trace *w, uint32_t frame)
{
	char buf[512];
	return frame ? rm_strdup(r, an_hw_frame_name(w, frame, buf, sizeof(buf))) : NULL;
}

/* What the tables' fills read besides their row: the trace the frames are
 * in, the class the shares are of (NULL in the table of classes). */
struct hw_ctx {
	const struct analysis *a;
	const struct trace *w;
	const struct an_hw_class *c;
};

static double share(const struct rm_row *w, int64_t ns)
{
	return an_hw_share(((const struct hw_ctx *)w->ctx)->c, ns);
}

/* a frame's name, and the same or unknown when there is none (frame 0) */
static struct rm_cell frame_name(struct rm_row *w, uint32_t frame)
{
	const struct hw_ctx *x = w->ctx;
	return rm_made(w, rm_text(frame_str(w->r, x->w, frame)));
}

static struct rm_cell frame_if(struct rm_row *w, uint32_t frame)
{
	return frame ? frame_name(w, frame) : rm_cell_unknown(RM_TEXT);
}

static struct rm_cell fn_name(struct rm_row *w)
{
	char buf[1024];
	const struct hw_ctx *x = w->ctx;
	return rm_made(w, rm_text(rm_strdup(w->r, an_hw_fn_name(x->w, w->row, buf, sizeof(buf)))));
}

/* a thread's functions */
RM_FILL(fn_inner, struct an_hw_fn, frame_name(w, x->inner))
RM_FILL(fn_call, struct an_hw_fn, frame_if(w, x->call))
RM_FILL(fn_own, struct an_hw_fn, frame_if(w, x->own))
RM_FILL(fn_ns, struct an_hw_fn, rm_dur(x->ns))
RM_FILL(fn_share, struct an_hw_fn, rm_pct(share(w, x->ns), 1))

static const struct rm_table *functions(struct report *r, const struct hw_ctx *x,
					const struct an_hw_thread *th)
{
	static const struct rm_entry cols[] = {
	    {{.key = "function", .kind = RM_TEXT, .json = 1}, fn_name},
	    {{.key = "inner", .kind = RM_TEXT, .json = 1}, fn_inner},
	    {{.key = "call", .kind = RM_TEXT, .json = 1}, fn_call},
	    {{.key = "own", .kind = RM_TEXT, .json = 1}, fn_own},
	    {{.key = "ns", .kind = RM_DURATION, .json = 1}, fn_ns},
	    {{.key = "share_pct", .kind = RM_PERCENT, .json = 1}, fn_share},
	};
	return rm_table_fill_detached(r, RM_TJ_ARRAY, cols, NCOLS(cols), th->top, sizeof(*th->top),
				      (size_t)th->n_top, x);
}

/* a thread's native functions */
RM_FILL(nat_name, struct an_hw_native, frame_name(w, x->frame))
RM_FILL(nat_ns, struct an_hw_native, rm_dur(x->ns))
RM_FILL(nat_share, struct an_hw_native, rm_pct(share(w, x->ns), 1))

static const struct rm_table *natives(struct report *r, const struct hw_ctx *x,
				      const struct an_hw_thread *th)
{
	static const struct rm_entry cols[] = {
	    {{.key = "function", .kind = RM_TEXT, .json = 1}, nat_name},
	    {{.key = "ns", .kind = RM_DURATION, .json = 1}, nat_ns},
	    {{.key = "share_pct", .kind = RM_PERCENT, .json = 1}, nat_share},
	};
	return rm_table_fill_detached(r, RM_TJ_ARRAY, cols, NCOLS(cols), th->native,
				      sizeof(*th->native), (size_t)th->n_native, x);
}

/* the threads of a class */
RM_FILL(th_pid, struct an_hw_thread, rm_count(x->pid))
RM_FILL(th_tid, struct an_hw_thread, rm_count(x->tid))
RM_FILL(th_role, struct an_hw_thread, rm_text(role_key[x->role]))
RM_FILL(th_sampled, struct an_hw_thread, rm_dur(x->wall_ns))
RM_FILL(th_cpu, struct an_hw_thread, rm_dur(x->cpu_ns))
RM_FILL(th_cpu_pct, struct an_hw_thread, rm_pct(share(w, x->cpu_ns), 1))
RM_FILL(th_functions, struct an_hw_thread, rm_made(w, rm_sub(functions(w->r, w->ctx, x))))
RM_FILL(th_native, struct an_hw_thread, rm_made(w, rm_sub(natives(w->r, w->ctx, x))))

static const struct rm_table *threads(struct report *r, const struct hw_ctx *x)
{
	static const struct rm_entry cols[] = {
	    {{.key = "pid", .kind = RM_COUNT, .json = 1}, th_pid},
	    {{.key = "tid", .kind = RM_COUNT, .json = 1}, th_tid},
	    {{.key = "role", .kind = RM_TEXT, .json = 1}, th_role},
	    {{.key = "sampled_ns", .kind = RM_DURATION, .json = 1}, th_sampled},
	    {{.key = "on_cpu_ns", .kind = RM_DURATION, .json = 1}, th_cpu},
	    {{.key = "on_cpu_pct", .kind = RM_PERCENT, .json = 1}, th_cpu_pct},
	    {{.key = "functions", .kind = RM_TABLE, .json = 1}, th_functions},
	    {{.key = "native", .kind = RM_TABLE, .json = 1}, th_native},
	};
	return rm_table_fill_detached(r, RM_TJ_ARRAY, cols, NCOLS(cols), x->c->th,
				      sizeof(*x->c->th), (size_t)x->c->n_threads, x);
}

/* the classes (a row: an enum an_idle_cause) */
static const struct an_hw_class *cls(const struct rm_row *w, int k)
{
	return &((const struct hw_ctx *)w->ctx)->a->hostwait.c[k];
}

static struct rm_cell cl_threads(struct rm_row *w)
{
	const struct hw_ctx *x = w->ctx;
	const struct hw_ctx sub = {x->a, x->w, cls(w, *(const int *)w->row)};
	return rm_made(w, rm_sub(threads(w->r, &sub)));
}
RM_FILL(cl_key, int, rm_text(class_key[*x]))
RM_FILL(cl_idle, int, rm_dur(cls(w, *x)->idle_ns))
RM_FILL(cl_idle_pct, int,
	rm_pct(an_pct(((const struct hw_ctx *)w->ctx)->a, (double)cls(w, *x)->idle_ns), 1))
RM_FILL(cl_sampled, int, rm_count((uint64_t)cls(w, *x)->threads_total))

/* The text lines of one class: who ran what, with its share. */
static int class_text(struct report *r, struct rm_section *s, const struct analysis *a,
		      const struct trace *w, int k)
{
	const struct an_hw_class *c = &a->hostwait.c[k];
	struct rm_line *l = rm_line_add(s, " ", "    ", class_line[k]);
	TRYP(l);
	rm_line_arg(l, "idle_ns", rm_dur(c->idle_ns));
	rm_line_arg(l, "idle_pct", rm_pct(an_pct(a, (double)c->idle_ns), 1));
	int shown = 0;
	for (int i = 0; i < c->n_threads; i++) {
		const struct an_hw_thread *th = &c->th[i];
		if (shown == HW_TEXT_THREADS ||
		    (th->role != HW_MAIN && an_hw_share(c, th->cpu_ns) < HW_TEXT_MIN_CPU_PCT))
			continue;
		shown++;
		for (int j = 0; j < th->n_top; j++) {
			double pct = an_hw_share(c, th->top[j].ns);
			if (j > 0 && pct < HW_TEXT_MIN_PCT)
				break;
			char buf[1024];
			const char *fn =
			    rm_strdup(r, an_hw_fn_name(w, &th->top[j], buf, sizeof(buf)));
			TRYP(fn);
			TRYP(l = rm_line_add(s, j == 0 ? "   " : "     ", "       ",
					     j == 0 ? role_line[th->role]
						    : RM_T("and {fn} ({pct})")));
			rm_line_arg(l, "pid", rm_count(th->pid));
			rm_line_arg(l, "tid", rm_count(th->tid));
			rm_line_arg(l, "fn", rm_text(fn));
			rm_line_arg(l, "pct", rm_pct(pct, 0));
		}
		if (!th->n_top && th->n_native) {
			/* a thread only perf saw (no Python frames): its native function */
			const char *nm = frame_str(r, w, th->native[0].frame);
			TRYP(nm);
			TRYP(l = rm_line_add(s, "   ", "       ", role_line[th->role]));
			rm_line_arg(l, "pid", rm_count(th->pid));
			rm_line_arg(l, "tid", rm_count(th->tid));
			rm_line_arg(l, "fn", rm_text(nm));
			rm_line_arg(l, "pct", rm_pct(an_hw_share(c, th->native[0].ns), 0));
		} else if (th->n_native && an_hw_share(c, th->native[0].ns) >= HW_TEXT_MIN_PCT) {
			const char *nm = frame_str(r, w, th->native[0].frame);
			TRYP(nm);
			TRYP(l = rm_line_add(s, "     ", "       ",
					     RM_T("on the CPU {cpu_pct} of it, most in native "
						  "{fn} ({pct})")));
			rm_line_arg(l, "cpu_pct", rm_pct(an_hw_share(c, th->cpu_ns), 0));
			rm_line_arg(l, "fn", rm_text(nm));
			rm_line_arg(l, "pct", rm_pct(an_hw_share(c, th->native[0].ns), 0));
		}
	}
	if (c->threads_total > shown) {
		TRYP(l = rm_line_add(
			 s, "   ", NULL,
			 RM_T("({more} more sampled threads, mostly waiting: see --format "
			      "json)")));
		rm_line_arg(l, "more", rm_count((uint64_t)(c->threads_total - shown)));
	}
	return 0;
}

int rm_build_hostwait(struct report *r, const struct analysis *a)
{
	static const struct rm_entry cols[] = {
	    {{.key = "class", .kind = RM_TEXT, .json = 1}, cl_key},
	    {{.key = "idle_ns", .kind = RM_DURATION, .json = 1}, cl_idle},
	    {{.key = "idle_pct", .kind = RM_PERCENT, .json = 1}, cl_idle_pct},
	    {{.key = "threads_sampled", .kind = RM_COUNT, .json = 1}, cl_sampled},
	    {{.key = "threads", .kind = RM_TABLE, .json = 1}, cl_threads},
	};
	const struct an_hostwait *h = &a->hostwait;
	const struct trace *w = a->whole ? a->whole : a->t;
	struct rm_section *s = rm_section_add(r, "host_wait", RM_T("HOST WHILE THE GPU WAITED"),
					      RM_SJ_OBJECT, "host_wait", JP_HOST_WAIT);
	TRYP(s);
	s->valid = (uint8_t)h->have;
	s->text = 0;
	TRY(rm_field_add(s, "source", 1,
			 rm_text(h->source == HOST_SRC_PYREAD	 ? "python_reader"
				 : h->source == AN_HW_SRC_STACKS ? "profiler_stacks"
								 : "perf")));
	if (h->have && h->source == AN_HW_SRC_STACKS)
		TRYP(rm_line_add(
		    s, " ", "    ",
		    RM_T("(from the trace's Python stacks, torch.profiler with_stack=True: "
			 "each thread's stack every 100 us)")));
	int rows[AN_IDLE_CAUSES];
	size_t n = 0;
	for (int k = 0; k < AN_IDLE_CAUSES; k++)
		if (h->have && h->c[k].n_threads > 0)
			rows[n++] = k;
	const struct hw_ctx x = {a, w, NULL};
	struct rm_table *t = rm_table_fill(r, s, "classes", RM_TJ_ARRAY, cols, NCOLS(cols), rows,
					   sizeof(*rows), n, &x);
	TRYP(t);
	t->text_rows = 0;
	/* the lines after the table: adding items moves the section's items (t) */
	for (int k = 0; k < AN_IDLE_CAUSES && h->have; k++)
		if (h->c[k].n_threads && an_pct(a, (double)h->c[k].idle_ns) >= TH_MIN_IMPACT_PCT) {
			TRY(class_text(r, s, a, w, k));
			s->text = 1;
		}
	return 0;
}
