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

#define NCOLS(c) (sizeof(c) / sizeof((c)[0]))

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

static const struct rm_table *functions(struct report *r, const struct trace *w,
					const struct an_hw_class *c, const struct an_hw_thread *th)
{
	static const struct rm_column cols[] = {
	    {.key = "function", .kind = RM_TEXT, .json = 1},
	    {.key = "inner", .kind = RM_TEXT, .json = 1},
	    {.key = "call", .kind = RM_TEXT, .json = 1},
	    {.key = "own", .kind = RM_TEXT, .json = 1},
	    {.key = "ns", .kind = RM_DURATION, .json = 1},
	    {.key = "share_pct", .kind = RM_PERCENT, .json = 1},
	};
	struct rm_table *t =
	    rm_table_detached(r, RM_TJ_ARRAY, cols, NCOLS(cols), (size_t)th->n_top);
	if (!t)
		return NULL;
	for (int i = 0; i < th->n_top; i++) {
		const struct an_hw_fn *f = &th->top[i];
		char buf[1024];
		const char *name = rm_strdup(r, an_hw_fn_name(w, f, buf, sizeof(buf)));
		const char *in = frame_str(r, w, f->inner);
		if (!name || !in)
			return NULL;
		rm_set(t, (size_t)i, 0, rm_text(name));
		rm_set(t, (size_t)i, 1, rm_text(in));
		if (f->call)
			rm_set(t, (size_t)i, 2, rm_text(frame_str(r, w, f->call)));
		if (f->own)
			rm_set(t, (size_t)i, 3, rm_text(frame_str(r, w, f->own)));
		rm_set(t, (size_t)i, 4, rm_dur(f->ns));
		rm_set(t, (size_t)i, 5, rm_pct(an_hw_share(c, f->ns), 1));
	}
	return t;
}

static const struct rm_table *natives(struct report *r, const struct trace *w,
				      const struct an_hw_class *c, const struct an_hw_thread *th)
{
	static const struct rm_column cols[] = {
	    {.key = "function", .kind = RM_TEXT, .json = 1},
	    {.key = "ns", .kind = RM_DURATION, .json = 1},
	    {.key = "share_pct", .kind = RM_PERCENT, .json = 1},
	};
	struct rm_table *t =
	    rm_table_detached(r, RM_TJ_ARRAY, cols, NCOLS(cols), (size_t)th->n_native);
	if (!t)
		return NULL;
	for (int i = 0; i < th->n_native; i++) {
		const char *nm = frame_str(r, w, th->native[i].frame);
		if (!nm)
			return NULL;
		rm_set(t, (size_t)i, 0, rm_text(nm));
		rm_set(t, (size_t)i, 1, rm_dur(th->native[i].ns));
		rm_set(t, (size_t)i, 2, rm_pct(an_hw_share(c, th->native[i].ns), 1));
	}
	return t;
}

static const struct rm_table *threads(struct report *r, const struct trace *w,
				      const struct an_hw_class *c)
{
	static const struct rm_column cols[] = {
	    {.key = "pid", .kind = RM_COUNT, .json = 1},
	    {.key = "tid", .kind = RM_COUNT, .json = 1},
	    {.key = "role", .kind = RM_TEXT, .json = 1},
	    {.key = "sampled_ns", .kind = RM_DURATION, .json = 1},
	    {.key = "on_cpu_ns", .kind = RM_DURATION, .json = 1},
	    {.key = "on_cpu_pct", .kind = RM_PERCENT, .json = 1},
	    {.key = "functions", .kind = RM_TABLE, .json = 1},
	    {.key = "native", .kind = RM_TABLE, .json = 1},
	};
	struct rm_table *t =
	    rm_table_detached(r, RM_TJ_ARRAY, cols, NCOLS(cols), (size_t)c->n_threads);
	if (!t)
		return NULL;
	for (int i = 0; i < c->n_threads; i++) {
		const struct an_hw_thread *th = &c->th[i];
		const struct rm_table *fn = functions(r, w, c, th), *nat = natives(r, w, c, th);
		if (!fn || !nat)
			return NULL;
		size_t row = (size_t)i;
		rm_set(t, row, 0, rm_count(th->pid));
		rm_set(t, row, 1, rm_count(th->tid));
		rm_set(t, row, 2, rm_text(role_key[th->role]));
		rm_set(t, row, 3, rm_dur(th->wall_ns));
		rm_set(t, row, 4, rm_dur(th->cpu_ns));
		rm_set(t, row, 5, rm_pct(an_hw_share(c, th->cpu_ns), 1));
		rm_set(t, row, 6, rm_sub(fn));
		rm_set(t, row, 7, rm_sub(nat));
	}
	return t;
}

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
	static const struct rm_column cols[] = {
	    {.key = "class", .kind = RM_TEXT, .json = 1},
	    {.key = "idle_ns", .kind = RM_DURATION, .json = 1},
	    {.key = "idle_pct", .kind = RM_PERCENT, .json = 1},
	    {.key = "threads_sampled", .kind = RM_COUNT, .json = 1},
	    {.key = "threads", .kind = RM_TABLE, .json = 1},
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
	size_t n = 0;
	for (int k = 0; k < AN_IDLE_CAUSES; k++)
		n += h->have && h->c[k].n_threads > 0;
	struct rm_table *t = rm_table_add(r, s, "classes", RM_TJ_ARRAY, cols, NCOLS(cols), n);
	TRYP(t);
	t->text_rows = 0;
	size_t row = 0;
	for (int k = 0; k < AN_IDLE_CAUSES && n; k++) {
		const struct an_hw_class *c = &h->c[k];
		if (!c->n_threads)
			continue;
		const struct rm_table *th = threads(r, w, c);
		TRYP(th);
		rm_set(t, row, 0, rm_text(class_key[k]));
		rm_set(t, row, 1, rm_dur(c->idle_ns));
		rm_set(t, row, 2, rm_pct(an_pct(a, (double)c->idle_ns), 1));
		rm_set(t, row, 3, rm_count((uint64_t)c->threads_total));
		rm_set(t, row, 4, rm_sub(th));
		row++;
	}
	/* the lines after the table: adding items moves the section's items (t) */
	for (int k = 0; k < AN_IDLE_CAUSES && h->have; k++)
		if (h->c[k].n_threads && an_pct(a, (double)h->c[k].idle_ns) >= TH_MIN_IMPACT_PCT) {
			TRY(class_text(r, s, a, w, k));
			s->text = 1;
		}
	return 0;
}
