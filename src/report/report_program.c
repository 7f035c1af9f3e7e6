/*
 * report_program.c - the report's PROGRAM section: what kind of program
 * the trace is (program.h), the libraries it used and how gpuscope knows,
 * whose kernels hold the GPU time and how much of it CUDA graphs launched,
 * and each GPU by name (model, compute capability, SMs, memory).
 */
#include <stdio.h>
#include <string.h>

#include "report/report_int.h"

/* "torch.compile, cuBLAS, cuDNN" for a mask (the kind's own library and
 * the API and Python bits left out: the line says them) */
static const char *lib_list(struct report *r, const struct an_program *p, unsigned libs,
			    enum prog_kind kind)
{
	char buf[512];
	size_t o = 0;
	buf[0] = '\0';
	for (int l = 0; l < PL_COUNT; l++) {
		if (!(libs >> l & 1u) || l == PL_RUNTIME || l == PL_DRIVER || l == PL_PYTHON ||
		    l == PL_GRAPHS)
			continue;
		if ((kind == PK_PYTORCH && l == PL_PYTORCH) || (kind == PK_JAX && l == PL_JAX) ||
		    (kind == PK_CUPY && l == PL_CUPY) || (kind == PK_TRITON && l == PL_TRITON) ||
		    (kind == PK_TENSORFLOW && l == PL_TENSORFLOW) ||
		    (kind == PK_ONNXRT && l == PL_ONNXRT) ||
		    (kind == PK_TENSORRT && l == PL_TENSORRT) ||
		    (kind == PK_NUMBA && l == PL_NUMBA))
			continue;
		int w = snprintf(buf + o, sizeof(buf) - o, "%s%s", o ? ", " : "",
				 prog_lib_label_of(p, (enum prog_lib)l));
		if (w < 0 || (size_t)w >= sizeof(buf) - o)
			break;
		o += (size_t)w;
	}
	return rm_strdup(r, o ? buf : "none seen");
}

static const char *api_text(unsigned libs)
{
	int rt = libs >> PL_RUNTIME & 1u, drv = libs >> PL_DRIVER & 1u;
	return rt && drv ? "runtime and driver API"
	       : rt	 ? "runtime API"
	       : drv	 ? "driver API"
			 : "no CUDA API seen";
}

/* the libraries (a row: an enum prog_lib; ctx: the program) */
static struct rm_cell lib_seen_in(struct rm_row *w, int l)
{
	char how[128];
	const struct an_program *p = w->ctx;
	return rm_made(w, rm_text(rm_strdup(w->r, prog_src_text(p->src[l], how, sizeof(how)))));
}
RM_FILL(lib_name, int, rm_text(prog_lib_label_of(w->ctx, (enum prog_lib) * x)))
RM_FILL(lib_seen, int, lib_seen_in(w, *x))

static int program_libs_table(struct report *r, struct rm_section *s, const struct an_program *p)
{
	static const struct rm_entry cols[] = {
	    {{.key = "name", .kind = RM_TEXT, .json = 1}, lib_name},
	    {{.key = "seen_in", .kind = RM_TEXT, .json = 1}, lib_seen},
	};
	int rows[PL_COUNT];
	size_t n = 0;
	for (int l = 0; l < PL_COUNT; l++)
		if (p->libs >> l & 1u)
			rows[n++] = l;
	struct rm_table *t = rm_table_fill(r, s, "libraries", RM_TJ_ARRAY, cols, NCOLS(cols), rows,
					   sizeof(*rows), n, p);
	TRYP(t);
	t->text_rows = 0;
	return 0;
}

/* the processes (ctx: the program) */
RM_FILL(pp_pid, struct an_prog_proc, rm_count(x->pid))
RM_FILL(pp_kind, struct an_prog_proc, rm_text(prog_kind_name(x->kind)))
RM_FILL(pp_libs, struct an_prog_proc,
	rm_made(w, rm_text(lib_list(w->r, w->ctx, x->libs, PK_UNKNOWN))))
RM_FILL(pp_kernel_ns, struct an_prog_proc, rm_dur(x->kernel_ns))

static int program_procs_table(struct report *r, struct rm_section *s, const struct an_program *p)
{
	static const struct rm_entry cols[] = {
	    {{.key = "pid", .kind = RM_COUNT, .json = 1}, pp_pid},
	    {{.key = "kind", .kind = RM_TEXT, .json = 1}, pp_kind},
	    {{.key = "libraries", .kind = RM_TEXT, .json = 1}, pp_libs},
	    {{.key = "kernel_ns", .kind = RM_DURATION, .json = 1}, pp_kernel_ns},
	};
	struct rm_table *t = rm_table_fill(r, s, "processes", RM_TJ_ARRAY, cols, NCOLS(cols),
					   p->procs, sizeof(*p->procs), p->n_procs, p);
	TRYP(t);
	t->text_rows = 0;
	return 0;
}

/* the GPUs (ctx: the trace) */
RM_FILL(gpu_id, struct trace_device, rm_count(x->id))
RM_FILL(gpu_name, struct trace_device,
	rm_if(*trace_str(w->ctx, x->name_id) != 0, rm_text(trace_str(w->ctx, x->name_id))))
RM_FILL(gpu_cc, struct trace_device,
	rm_if(x->cc_major > 0,
	      rm_made(w, rm_text(rm_printf(w->r, "%u.%u", x->cc_major, x->cc_minor)))))
RM_FILL(gpu_sms, struct trace_device, rm_if(x->sm_count > 0, rm_count(x->sm_count)))
RM_FILL(gpu_mem, struct trace_device,
	rm_if(x->mem_bytes > 0, rm_cell_int(RM_BYTES, (int64_t)x->mem_bytes)))

/* "GPU 0: NVIDIA H200, cc 9.0, 132 SMs, 139.8 GiB" for each device */
static int gpu_lines(struct report *r, struct rm_section *s, const struct analysis *a)
{
	static const struct rm_entry cols[] = {
	    {{.key = "id", .kind = RM_COUNT, .json = 1}, gpu_id},
	    {{.key = "name", .kind = RM_TEXT, .json = 1}, gpu_name},
	    {{.key = "compute_capability", .kind = RM_TEXT, .json = 1}, gpu_cc},
	    {{.key = "sm_count", .kind = RM_COUNT, .json = 1}, gpu_sms},
	    {{.key = "memory_bytes", .kind = RM_BYTES, .json = 1}, gpu_mem},
	};
	const struct trace *t = a->whole ? a->whole : a->t;
	struct rm_table *tb = rm_table_fill(r, s, "gpus", RM_TJ_ARRAY, cols, NCOLS(cols),
					    t->devices, sizeof(*t->devices), t->n_devices, t);
	TRYP(tb);
	tb->text_rows = 0;
	/* the lines after the table is filled: adding an item may move tb */
	for (size_t i = 0; i < t->n_devices; i++) {
		const struct trace_device *d = &t->devices[i];
		const char *name = trace_str(t, d->name_id);
		const char *cc = rm_printf(r, "%u.%u", d->cc_major, d->cc_minor);
		TRYP(cc);
		/* kineto's computeMajor on ROCm is no CUDA compute capability, its SMs are CUs */
		struct rm_line *l = rm_line_add(
		    s, "  ", NULL,
		    a->prog.rocm ? RM_T("GPU {id}: {name}, {sms} compute units")
				 : RM_T("GPU {id}: {name}, compute capability {cc}, {sms} SMs"));
		TRYP(l);
		const char *mem =
		    d->mem_bytes
			? rm_printf(r, "%.1f GiB", (double)d->mem_bytes / (1024.0 * 1024 * 1024))
			: "?";
		TRYP(mem);
		rm_line_arg(l, "id", rm_count(d->id));
		rm_line_arg(l, "name", rm_text(*name ? name : "?"));
		rm_line_arg(l, "cc", rm_if(d->cc_major > 0, rm_text(cc)));
		rm_line_arg(l, "sms", rm_if(d->sm_count > 0, rm_count(d->sm_count)));
		TRYP(l = rm_line_add(s, "", NULL, RM_T(", {mem} of memory")));
		l->join = 1;
		rm_line_arg(l, "mem", rm_text(mem));
	}
	return 0;
}

int rm_build_program(struct report *r, const struct analysis *a)
{
	const struct an_program *p = &a->prog;
	struct rm_section *s =
	    rm_section_add(r, "program", RM_T("PROGRAM"), RM_SJ_OBJECT, "program", JP_PROGRAM);
	TRYP(s);
	char how[128] = "";
	unsigned ksrc = 0;
	static const enum prog_lib kind_lib[PK_COUNT] = {[PK_PYTORCH] = PL_PYTORCH,
							 [PK_JAX] = PL_JAX,
							 [PK_CUPY] = PL_CUPY,
							 [PK_TRITON] = PL_TRITON,
							 [PK_TENSORFLOW] = PL_TENSORFLOW,
							 [PK_ONNXRT] = PL_ONNXRT,
							 [PK_TENSORRT] = PL_TENSORRT,
							 [PK_NUMBA] = PL_NUMBA};
	if (p->kind != PK_CUDA && p->kind != PK_UNKNOWN)
		ksrc = p->src[kind_lib[p->kind]];
	else if (p->kind == PK_CUDA)
		ksrc = p->src[PL_RUNTIME] | p->src[PL_DRIVER];
	const char *kh = rm_strdup(r, prog_src_text(ksrc, how, sizeof(how)));
	const char *libs = lib_list(r, p, p->libs, p->kind);
	TRYP(kh && libs);
	TRY(rm_field_add(s, "kind", 1, rm_text(prog_kind_name(p->kind))));
	TRY(rm_field_add(s, "kind_label", 0, rm_text(prog_kind_label(p->kind))));
	TRY(rm_field_add(s, "how", 0, rm_text(*kh ? kh : "no evidence")));
	TRY(rm_field_add(s, "libs", 0, rm_text(libs)));
	TRY(rm_field_add(s, "api", 0, rm_text(api_text(p->libs))));
	TRYP(rm_line_add(
	    s, " ", "    ",
	    p->rocm ? RM_T("{kind_label} program on ROCm (seen in: {how}); libraries: "
			   "{libs}; HIP {api}")
		    : RM_T("{kind_label} program (seen in: {how}); libraries: {libs}; CUDA "
			   "{api}")));
	int64_t ksum = 0;
	for (int o = 0; o < KO_COUNT; o++)
		ksum += p->owner_ns[o];
	double k = ksum > 0 ? 100.0 / (double)ksum : 0;
	TRY(rm_field_add(s, "library_kernel_pct", 1,
			 rm_if(ksum > 0, rm_pct(k * (double)p->owner_ns[KO_LIBRARY], 1))));
	TRY(rm_field_add(s, "framework_kernel_pct", 1,
			 rm_if(ksum > 0, rm_pct(k * (double)p->owner_ns[KO_FRAMEWORK], 1))));
	TRY(rm_field_add(s, "generated_kernel_pct", 1,
			 rm_if(ksum > 0, rm_pct(k * (double)p->owner_ns[KO_GENERATED], 1))));
	TRY(rm_field_add(s, "own_kernel_pct", 1,
			 rm_if(ksum > 0, rm_pct(k * (double)p->owner_ns[KO_USER], 1))));
	TRY(rm_field_add(s, "graph_kernel_pct", 1,
			 rm_if(ksum > 0, rm_pct(100.0 * p->graph_kernel_share, 1))));
	TRY(rm_field_add(s, "graph_launches", 1, rm_count(p->graph_launches)));
	if (ksum > 0)
		TRYP(rm_line_add(s, " ", "    ",
				 p->rocm
				     ? RM_T("kernel time: libraries {library_kernel_pct}, the "
					    "framework {framework_kernel_pct}, compiler-generated "
					    "{generated_kernel_pct}, own kernels {own_kernel_pct}; "
					    "launched from HIP graphs {graph_kernel_pct}")
				     : RM_T("kernel time: libraries {library_kernel_pct}, the "
					    "framework {framework_kernel_pct}, compiler-generated "
					    "{generated_kernel_pct}, own kernels {own_kernel_pct}; "
					    "launched from CUDA graphs {graph_kernel_pct}")));
	TRY(program_libs_table(r, s, p));
	TRY(program_procs_table(r, s, p));
	TRY(gpu_lines(r, s, a));
	return 0;
}
