/*
 * program.c - the kind of program a trace is (program.h): kernel names,
 * API names, the command line, the trace's source and, when record stored
 * them, the libraries each process mapped.
 *
 * The name patterns come from the kernels real programs run on the H200
 * (tests/fixtures: PyTorch's at::native kernels, cuBLAS's nvjet_/xmma,
 * cuDNN's cudnn_generated_*, inductor's triton_poi_/triton_red_, XLA's
 * loop_*_fusion, CuPy's cupy_*) and from the libraries' own naming
 * (CUTLASS, flash-attention, NCCL). A name that matches nothing is the
 * program's own kernel: that is the safe side, since own-kernel advice
 * (access pattern, occupancy) is then at least about code the user has.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/vec.h"
#include "analyze/analysis_int.h"
#include "analyze/program.h"
#include "util/demangle.h"
#include "util/error.h"
#include "util/hmap.h"
#include "util/i18n.h"

/* The name demangled and lowercased into buf. */
static const char *lower_name(const char *name, char *buf, size_t n)
{
	char dm[1024];
	const char *s = gs_demangle(name ? name : "", dm, sizeof(dm));
	size_t i = 0;
	for (; s[i] && i + 1 < n; i++)
		buf[i] = (char)tolower((unsigned char)s[i]);
	buf[i] = '\0';
	return buf;
}

static int any(const char *s, const char *const *pat)
{
	for (; *pat; pat++)
		if (strstr(s, *pat))
			return 1;
	return 0;
}

/* A plain identifier: no C++ scope, template or parameter list (extern "C"
 * CUDA kernels, Triton's and XLA's generated kernels). */
static int plain(const char *s)
{
	return *s && !strpbrk(s, ":<>( ");
}

static int starts(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

static int inductor(const char *s)
{
	return starts(s, "triton_poi_") || starts(s, "triton_red_") || starts(s, "triton_per_") ||
	       starts(s, "triton_tem_") || starts(s, "triton_for_");
}

/* XLA names its kernels after the fusion (loop_add_fusion, input_reduce_
 * fusion_3, gemm_fusion_dot_2, wrapped_transpose) */
static int xla(const char *s)
{
	return plain(s) && (strstr(s, "_fusion") || starts(s, "fusion") || starts(s, "wrapped_"));
}

/* Numba mangles a @cuda.jit kernel as module::name with two ABI tags,
 * "[abi:v1]" and one for its closure ("__main__::saxpy[abi:v1][abi:cw51c...]"
 * demangled, H200) */
static int numba(const char *s)
{
	const char *t = strstr(s, "[abi:v");
	return t && isdigit((unsigned char)t[6]) && strstr(t, "][abi:") != NULL;
}

static const char *const vendor_pat[] = {
    "cublas", "nvjet", "xmma", "cutlass", "gemv2", "gemvx", "gemmk1", "gemmsn", "splitkreduce",
    "sm90_", "sm80_", "sm89_", "sm100_", "sm120_", "ampere_", "volta_", "turing_", "hopper_",
    "cudnn", "implicit_convolve", "winograd", "flash_", "fmha", "nccl", "rccl",
    "cub::", "thrust::", "curand", "cufft", "trt_", "pytorch_flash", "xformers",
    /* cuFFT 12-13's kernels: regular_fft<2048u, EPT<16u>, ...,
     * HostConfigPlaceholder, ...>, vector_fft<...> (CuPy's fft2, H200);
     * older ones: dpRadix / spRadix / spVector */
    "regular_fft", "vector_fft", "hostconfigplaceholder", "dpradix", "spradix", "spvector",
    "dpvector",
    /* ROCm's: rocBLAS's Tensile kernels (Cijk_Ailk_Bljk_...), hipBLASLt, MIOpen,
     * rocPRIM / hipCUB, rocFFT, rocRAND */
    "cijk_", "rocblas", "hipblaslt", "miopen", "rocprim", "hipcub", "rocfft", "rocrand", NULL};

static const char *const framework_pat[] = {
    "at::native", "at::cuda", "at_cuda_detail", "c10::",   "at::", "caffe2",
    "tensorflow", "eigen::",  "onnxruntime",	"torch::", NULL};

static const char *const comm_pat[] = {"nccl",		"rccl",		  "allreduce",
				       "all_reduce",	"allgather",	  "all_gather",
				       "reducescatter", "reduce_scatter", NULL};
static const char *const attn_pat[] = {"flash", "fmha", "attention", "attn",
				       "sdpa",	"_mha", "mha_",	     NULL};
/* not "conv" alone: XLA's loop_convert_fusion is no convolution */
static const char *const gemm_pat[] = {
    "gemm",	   "gemv",	   "xmma",	  "nvjet",    "cublas", "cutlass",
    "matmul",	   "cudnn",	   "winograd",	  "fprop",    "dgrad",	"wgrad",
    "triton_tem_", "splitkreduce", "convolution", "convolve", "conv1d", "conv2d",
    "conv3d",	   "_conv_",	   "im2col",	  "col2im",   "cijk_",	NULL};

static enum kown owner_of(const char *s)
{
	if (inductor(s) || xla(s))
		return KO_GENERATED;
	if (any(s, vendor_pat))
		return KO_LIBRARY;
	if (any(s, framework_pat) || starts(s, "cupy_"))
		return KO_FRAMEWORK;
	return KO_USER;
}

static enum kfam family_of(const char *s)
{
	if (any(s, comm_pat))
		return KF_COMM;
	if (any(s, attn_pat))
		return KF_ATTENTION;
	if (any(s, gemm_pat))
		return KF_GEMM;
	/* what a framework, a compiler or a library runs besides GEMMs is
	 * elementwise, reduction, normalization or copy work */
	if (inductor(s) || xla(s) || any(s, vendor_pat) || any(s, framework_pat) ||
	    starts(s, "cupy_"))
		return KF_ELEMENTWISE;
	return KF_OTHER;
}

static unsigned libs_of(const char *s)
{
	unsigned m = 0;
	if (any(s, (const char *const[]){"at::native", "at::cuda", "at_cuda_detail",
					 "c10::", "pytorch_flash", "torch::", NULL}))
		m |= 1u << PL_PYTORCH;
	if (inductor(s))
		m |= 1u << PL_PYTORCH | 1u << PL_INDUCTOR | 1u << PL_TRITON;
	/* XLA's runtime kernels (stream_executor::gpu::..., templated on
	 * Eigen::bfloat16) are JAX's here, never TensorFlow's evidence */
	int se = strstr(s, "stream_executor::") != NULL;
	if (xla(s) || se)
		m |= 1u << PL_JAX;
	if (starts(s, "cupy_"))
		m |= 1u << PL_CUPY;
	if (any(s, (const char *const[]){"cublas", "nvjet", "xmma", "gemv2", "gemvx", "gemmk1",
					 "gemmsn", "splitkreduce", NULL}) ||
	    ((starts(s, "sm90_") || starts(s, "sm80_") || starts(s, "ampere_")) &&
	     strstr(s, "gemm")))
		m |= 1u << PL_CUBLAS;
	/* ROCm's GEMM and DNN libraries stand in the same slots */
	if (starts(s, "cijk_") || strstr(s, "rocblas") || strstr(s, "hipblaslt"))
		m |= 1u << PL_CUBLAS;
	if (strstr(s, "cudnn") || strstr(s, "implicit_convolve") || strstr(s, "miopen"))
		m |= 1u << PL_CUDNN;
	if (strstr(s, "nccl") || strstr(s, "rccl"))
		m |= 1u << PL_NCCL;
	if (strstr(s, "flash") || strstr(s, "fmha"))
		m |= 1u << PL_FLASH;
	if (strstr(s, "tensorflow") || (strstr(s, "eigen::") && !se))
		m |= 1u << PL_TENSORFLOW;
	if (strstr(s, "onnxruntime"))
		m |= 1u << PL_ONNXRT;
	if (numba(s))
		m |= 1u << PL_NUMBA;
	if (starts(s, "trt_") || strstr(s, "tensorrt"))
		m |= 1u << PL_TENSORRT;
	return m;
}

enum kown prog_kernel_owner(const char *name)
{
	char s[1024];
	return owner_of(lower_name(name, s, sizeof(s)));
}

enum kfam prog_kernel_family(const char *name)
{
	char s[1024];
	return family_of(lower_name(name, s, sizeof(s)));
}

unsigned prog_kernel_libs(const char *name)
{
	char s[1024];
	return libs_of(lower_name(name, s, sizeof(s)));
}

/* The libraries a mapped-library name of the frameworks table stands for
 * (src/hostsample/frameworks.c's names). */
static unsigned map_libs(const char *fw)
{
	static const struct {
		const char *name;
		enum prog_lib lib;
	} map[] = {{"PyTorch", PL_PYTORCH},
		   {"JAX/XLA", PL_JAX},
		   {"JAX", PL_JAX},
		   {"XLA", PL_JAX},
		   {"CuPy", PL_CUPY},
		   {"Triton", PL_TRITON},
		   {"TensorFlow", PL_TENSORFLOW},
		   {"ONNX Runtime", PL_ONNXRT},
		   {"TensorRT", PL_TENSORRT},
		   {"Numba", PL_NUMBA},
		   {"cuBLAS", PL_CUBLAS},
		   {"cuDNN", PL_CUDNN},
		   {"NCCL", PL_NCCL},
		   {"CUDA runtime", PL_RUNTIME}};
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(fw, map[i].name) == 0)
			return 1u << map[i].lib;
	return 0;
}

/* processes are found through ix (pid -> index): linear in the rows for
 * any number of pids (probe H1) */
static struct an_prog_proc *proc_of(struct an_program *p, const struct u64map *ix, uint32_t pid)
{
	uint64_t at;
	return u64map_get(ix, pid, &at) ? &p->procs[at] : NULL;
}

static struct an_prog_proc *proc_add(struct an_program *p, struct u64map *ix, uint32_t pid,
				     size_t *cap)
{
	struct an_prog_proc *q = proc_of(p, ix, pid);
	if (q)
		return q;
	if (u64map_put(ix, pid, p->n_procs) < 0)
		return NULL;
	q = VEC_PUSH(p->procs, p->n_procs, *cap);
	if (!q)
		return NULL;
	q->pid = pid;
	return q;
}

static void mark(struct an_prog_proc *q, unsigned libs, unsigned src)
{
	q->libs |= libs;
	for (unsigned b = libs; b; b &= b - 1) /* each library named */
		q->src[__builtin_ctz(b)] |= (uint8_t)src;
}

/* proc_add for a row's pid, remembering the last one (rows of one process
 * come in runs): *last is the index of the last pid's process */
static struct an_prog_proc *proc_at(struct an_program *p, struct u64map *ix, uint32_t pid,
				    size_t *cap, size_t *last)
{
	if (*last < p->n_procs && p->procs[*last].pid == pid)
		return &p->procs[*last];
	struct an_prog_proc *q = proc_add(p, ix, pid, cap);
	if (q)
		*last = (size_t)(q - p->procs);
	return q;
}

static enum prog_kind kind_of(unsigned libs)
{
	static const struct {
		enum prog_lib lib;
		enum prog_kind kind;
	} order[] = {{PL_PYTORCH, PK_PYTORCH},	     {PL_JAX, PK_JAX},
		     {PL_TENSORFLOW, PK_TENSORFLOW}, {PL_CUPY, PK_CUPY},
		     {PL_NUMBA, PK_NUMBA},	     {PL_ONNXRT, PK_ONNXRT},
		     {PL_TENSORRT, PK_TENSORRT},     {PL_TRITON, PK_TRITON}};
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (libs >> order[i].lib & 1u)
			return order[i].kind;
	if (libs & (1u << PL_RUNTIME | 1u << PL_DRIVER))
		return PK_CUDA;
	return PK_UNKNOWN;
}

static int python_cmdline(const char *cmd)
{
	/* argv[0]'s base name (the command line is space-separated) */
	const char *end = strchr(cmd, ' ');
	size_t n = end ? (size_t)(end - cmd) : strlen(cmd);
	const char *base = cmd;
	for (size_t i = 0; i < n; i++)
		if (cmd[i] == '/')
			base = cmd + i + 1;
	size_t bn = (size_t)(cmd + n - base);
	return (bn >= 6 && strncmp(base, "python", 6) == 0) ||
	       (bn >= 8 && strncmp(base, "torchrun", 8) == 0);
}

/* Per-string classification, computed once per name id. */
struct name_class {
	uint8_t done, fam, own, plain;
	uint8_t graph; /* 0 not known yet, 1 a graph launch call, 2 not */
	unsigned libs;
};

static struct name_class *classify(struct name_class *c, const struct trace *t, uint32_t id)
{
	if (!c[id].done) {
		char s[1024];
		lower_name(trace_str(t, id), s, sizeof(s));
		c[id].fam = (uint8_t)family_of(s);
		c[id].own = (uint8_t)owner_of(s);
		c[id].libs = libs_of(s);
		c[id].plain = (uint8_t)plain(s);
		c[id].done = 1;
	}
	return &c[id];
}

/* 1 when string id names a graph launch call (tested once per name) */
static int api_is_graph_launch(struct name_class *c, const struct trace *t, uint32_t id)
{
	id = id < t->n_strings ? id : 0;
	if (!c[id].graph) {
		const char *s = trace_str(t, id);
		c[id].graph =
		    strncmp(s, "cudaGraphLaunch", 15) == 0 || strncmp(s, "cuGraphLaunch", 13) == 0
			? 1
			: 2;
	}
	return c[id].graph == 1;
}

/* libraries and kinds per process, from the whole trace */
static int whole_trace(struct an_program *p, struct u64map *ix, const struct trace *w,
		       struct name_class *c)
{
	size_t cap = 0;
	int pytorch_source = (trace_source_caps(w->source) & TRACE_CAP_TORCH_PROGRAM) != 0;
	for (size_t i = 0; i < w->n_processes; i++) {
		struct an_prog_proc *q = proc_add(p, ix, w->processes[i].pid, &cap);
		if (!q)
			return -1;
		if (python_cmdline(trace_str(w, w->processes[i].cmdline_id)))
			mark(q, 1u << PL_PYTHON, PS_CMDLINE);
	}
	size_t last = SIZE_MAX;
	for (size_t i = 0; i < w->n_kernels; i++) {
		const struct trace_kernel *k = &w->kernels[i];
		struct an_prog_proc *q = proc_at(p, ix, k->pid, &cap, &last);
		if (!q)
			return -1;
		uint32_t id = k->name_id < w->n_strings ? k->name_id : 0;
		mark(q, classify(c, w, id)->libs, PS_KERNELS);
		q->kernel_ns += k->end_ns - k->start_ns;
		if (k->graph_id)
			mark(q, 1u << PL_GRAPHS, PS_KERNELS);
	}
	for (size_t i = 0; i < w->n_apis; i++) {
		const struct trace_api *x = &w->apis[i];
		struct an_prog_proc *q = proc_at(p, ix, x->pid, &cap, &last);
		if (!q)
			return -1;
		if (x->kind == API_LAUNCH)
			mark(q, 1u << (x->domain == DOMAIN_DRIVER ? PL_DRIVER : PL_RUNTIME),
			     PS_APIS);
		else if (x->domain == DOMAIN_RUNTIME)
			mark(q, 1u << PL_RUNTIME, PS_APIS);
		if (api_is_graph_launch(c, w, x->name_id))
			mark(q, 1u << PL_GRAPHS, PS_APIS);
	}
	int aten = 0;
	for (size_t i = 0; i < w->n_ranges && !aten; i++) {
		const struct trace_range *r = trace_range_row(w, i);
		aten =
		    r->kind == RANGE_CPU_OP && strncmp(trace_str(w, r->name_id), "aten::", 6) == 0;
	}
	for (size_t i = 0; i < p->n_procs; i++) {
		struct an_prog_proc *q = &p->procs[i];
		if (pytorch_source)
			mark(q, 1u << PL_PYTORCH | 1u << PL_PYTHON, PS_SOURCE);
		if (aten)
			mark(q, 1u << PL_PYTORCH, PS_RANGES);
	}
	for (size_t i = 0; i < w->n_frameworks; i++) {
		struct an_prog_proc *q = proc_add(p, ix, w->frameworks[i].pid, &cap);
		if (!q)
			return -1;
		mark(q, map_libs(trace_str(w, w->frameworks[i].name_id)), PS_MAPS);
	}
	/* Triton's own kernels: plain names a Python process launched through
	 * the driver API (inductor's are recognised by name above); no kernel
	 * is looked at when no process is such a one */
	int python_driver = 0;
	for (size_t i = 0; i < p->n_procs; i++) {
		unsigned l = p->procs[i].libs;
		python_driver |=
		    (l >> PL_PYTHON & 1u) && (l >> PL_DRIVER & 1u) && !(l >> PL_JAX & 1u);
	}
	for (size_t i = 0; python_driver && i < w->n_kernels; i++) {
		const struct trace_kernel *k = &w->kernels[i];
		struct an_prog_proc *q = proc_of(p, ix, k->pid);
		if (!q || !(q->libs >> PL_PYTHON & 1u) || !(q->libs >> PL_DRIVER & 1u) ||
		    (q->libs >> PL_JAX & 1u))
			continue;
		uint32_t id = k->name_id < w->n_strings ? k->name_id : 0;
		const struct name_class *nc = classify(c, w, id);
		if (nc->own == KO_USER && nc->plain)
			mark(q, 1u << PL_TRITON, PS_KERNELS);
	}
	int64_t best = -1;
	for (size_t i = 0; i < p->n_procs; i++) {
		struct an_prog_proc *q = &p->procs[i];
		q->kind = kind_of(q->libs);
		p->libs |= q->libs;
		for (int l = 0; l < PL_COUNT; l++)
			p->src[l] |= q->src[l];
		if (q->kind != PK_UNKNOWN && q->kernel_ns > best) {
			best = q->kernel_ns;
			p->kind = q->kind;
		}
	}
	return 0;
}

/* PyTorch on ROCm: an AMD device in the trace, or HIP runtime calls (the
 * first API calls say it: a trace is one runtime's) */
static int rocm_trace(const struct trace *w)
{
	for (size_t i = 0; i < w->n_devices; i++) {
		const char *n = trace_str(w, w->devices[i].name_id);
		if (strstr(n, "AMD") || strstr(n, "Radeon") || strstr(n, "Instinct"))
			return 1;
	}
	for (size_t i = 0; i < w->n_apis && i < 1000; i++)
		if (!strncmp(trace_str(w, w->apis[i].name_id), "hip", 3))
			return 1;
	return 0;
}

int an_program(struct analysis *a, const struct trace *whole, char *err)
{
	struct an_program *p = &a->prog;
	const struct trace *w = whole ? whole : a->t;
	p->rocm = rocm_trace(w);
	struct name_class *c = calloc(w->n_strings ? w->n_strings : 1, sizeof(*c));
	struct u64map ix;
	int fail = !c || u64map_init(&ix, 0) < 0;
	if (!fail) {
		fail = whole_trace(p, &ix, w, c) < 0;
		u64map_release(&ix);
	}
	if (fail) {
		free(c);
		return error_set(err, "out of memory");
	}
	/* what the program kind says about the names no pattern knew: in a
	 * PyTorch (or TensorFlow) program a C++ kernel is the framework's or
	 * an extension's (PyTorch has hundreds: softmax_warp_forward,
	 * cunn_SoftMaxForward, ...), a plain name is the user's Triton kernel;
	 * in a JAX program a plain name is XLA's */
	for (size_t i = 0; i < w->n_strings; i++) {
		struct name_class *nc = &c[i];
		if (!nc->done || nc->own != KO_USER)
			continue;
		if ((p->kind == PK_PYTORCH || p->kind == PK_TENSORFLOW) && !nc->plain)
			nc->own = KO_FRAMEWORK;
		else if (p->kind == PK_JAX && nc->plain)
			nc->own = KO_GENERATED;
		else
			continue;
		if (nc->fam == KF_OTHER)
			nc->fam = KF_ELEMENTWISE;
	}
	/* the analysed window: families, owners, graph share (a kernel is a
	 * graph's when the trace says so, or when its correlation is a graph
	 * launch call's: PyTorch profiler traces carry no graph id) */
	const struct trace *t = a->t;
	struct u64map gl = {0};
	if (u64map_init(&gl, 64) < 0) {
		free(c);
		return error_set(err, "out of memory");
	}
	for (size_t i = 0; i < t->n_apis; i++) {
		const struct trace_api *x = &t->apis[i];
		if (!api_is_graph_launch(c, w, x->name_id))
			continue;
		p->graph_launches++;
		if (u64map_put(&gl, (uint64_t)x->pid << 32 | x->correlation, 1) < 0) {
			u64map_release(&gl);
			free(c);
			return error_set(err, "out of memory");
		}
	}
	int64_t graph_ns = 0, sum = 0;
	for (size_t i = 0; i < t->n_kernels; i++) {
		const struct trace_kernel *k = &t->kernels[i];
		int64_t d = k->end_ns - k->start_ns;
		uint32_t id = k->name_id < w->n_strings ? k->name_id : 0;
		struct name_class *nc = classify(c, w, id);
		p->family_ns[nc->fam] += d;
		p->owner_ns[nc->own] += d;
		sum += d;
		uint64_t v;
		if (k->graph_id || (p->graph_launches &&
				    u64map_get(&gl, (uint64_t)k->pid << 32 | k->correlation, &v)))
			graph_ns += d;
	}
	u64map_release(&gl);
	if (sum > 0) {
		p->graph_kernel_share = (double)graph_ns / (double)sum;
		p->own_kernel_share = (double)p->owner_ns[KO_USER] / (double)sum;
		p->library_kernel_share = (double)p->owner_ns[KO_LIBRARY] / (double)sum;
	}
	/* the kernel groups' family and owner */
	for (size_t i = 0; i < a->n_kgroups; i++) {
		struct an_kernel_group *g = &a->kgroups[i];
		uint32_t id = g->name_id < w->n_strings ? g->name_id : 0;
		struct name_class *nc = classify(c, w, id);
		g->family = nc->fam;
		g->owner = nc->own;
	}
	free(c);
	return 0;
}

void an_program_release(struct an_program *p)
{
	free(p->procs);
	memset(p, 0, sizeof(*p));
}

const char *prog_kind_name(enum prog_kind k)
{
	static const char *const n[PK_COUNT] = {"unknown", "pytorch",	 "jax",		"cupy",
						"triton",  "tensorflow", "onnxruntime", "tensorrt",
						"cuda",	   "numba"};
	return k < PK_COUNT ? n[k] : "unknown";
}

const char *prog_kind_label(enum prog_kind k)
{
	static const char *const n[PK_COUNT] = {
	    "unknown",	  "PyTorch",	  "JAX/XLA",  "CuPy",	    "Triton",
	    "TensorFlow", "ONNX Runtime", "TensorRT", "CUDA C/C++", "Numba"};
	return k < PK_COUNT ? n[k] : "unknown";
}

const char *prog_lib_label(enum prog_lib l)
{
	static const char *const n[PL_COUNT] = {
	    "PyTorch",	   "torch.compile", "JAX/XLA",	       "CuPy",	       "Triton",
	    "TensorFlow",  "ONNX Runtime",  "TensorRT",	       "Numba",	       "cuBLAS",
	    "cuDNN",	   "NCCL",	    "flash attention", "CUDA runtime", "CUDA driver API",
	    "CUDA graphs", "Python"};
	return l < PL_COUNT ? n[l] : "";
}

const char *prog_lib_label_of(const struct an_program *p, enum prog_lib l)
{
	if (p->rocm)
		switch (l) {
		case PL_CUBLAS:
			return "rocBLAS/hipBLASLt";
		case PL_CUDNN:
			return "MIOpen";
		case PL_NCCL:
			return "RCCL";
		case PL_RUNTIME:
			return "HIP runtime";
		case PL_DRIVER:
			return "HIP module API";
		case PL_GRAPHS:
			return "HIP graphs";
		default:
			break;
		}
	return prog_lib_label(l);
}

const char *kfam_name(enum kfam f)
{
	static const char *const n[KF_COUNT] = {"gemm", "attention", "elementwise", "comm",
						"other"};
	return f < KF_COUNT ? n[f] : "other";
}

const char *kfam_label(enum kfam f)
{
	static const char *const n[KF_COUNT] = {N_("GEMM/convolution"), N_("attention"),
						N_("elementwise/reduction"), N_("communication"),
						N_("own kernels")};
	return f < KF_COUNT ? n[f] : "";
}

const char *kown_name(enum kown o)
{
	static const char *const n[KO_COUNT] = {"user", "library", "framework", "generated"};
	return o < KO_COUNT ? n[o] : "user";
}

const char *prog_src_text(unsigned src, char *buf, size_t n)
{
	static const char *const names[] = {"mapped libraries", "trace source", "kernel names",
					    "API names",	"command line", "op names"};
	size_t o = 0;
	buf[0] = '\0';
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(src >> i & 1u))
			continue;
		int w = snprintf(buf + o, n - o, "%s%s", o ? ", " : "", names[i]);
		if (w < 0 || (size_t)w >= n - o)
			break;
		o += (size_t)w;
	}
	return buf;
}
