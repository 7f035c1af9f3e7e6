/*
 * program.h - what kind of program a trace is, so that advice fits it
 * (issue #16 item 1): the GPU-relevant libraries each process used
 * (PyTorch, JAX/XLA, CuPy, Triton, torch.compile, TensorFlow, ONNX Runtime,
 * TensorRT, cuBLAS, cuDNN, NCCL, the CUDA runtime or driver API, CUDA
 * graphs), the kind of program that makes (a PyTorch program, a JAX
 * program, a CUDA C/C++ program, ...), and for each kernel its family
 * (GEMM/convolution, attention, elementwise/reduction, communication,
 * other) and whose code it is (a vendor library's, the framework's, a
 * compiler's or the user's own).
 *
 * Evidence, strongest first: the libraries a process mapped (the
 * `frameworks` table of record's host sampling, when the trace has one),
 * the trace's source (a PyTorch profiler trace is a PyTorch program), the
 * kernels' names (at::native:: is PyTorch's, triton_poi_ inductor's,
 * loop_add_fusion XLA's, cupy_ CuPy's, nvjet_/xmma/cutlass cuBLAS's), the
 * API names (runtime, driver, graph launches) and the command line
 * (python). Each library records where it was seen (prog_src bits), so the
 * report can say how it knows.
 *
 * Invariants:
 *  1. Names are classified demangled (util/demangle.h) and lowercased; the
 *     classification is a pure function of the name (tested on real names).
 *  2. The program is read from the whole trace (startup included: a
 *     PyTorch program's first at::native kernels may come before its
 *     steady state), the graph share from the analysed window.
 */
#ifndef GPUSCOPE_PROGRAM_H
#define GPUSCOPE_PROGRAM_H

#include <stddef.h>
#include <stdint.h>

struct analysis;
struct trace;

/* Libraries and mechanisms (bits of a mask). */
enum prog_lib {
	PL_PYTORCH,
	PL_INDUCTOR, /* torch.compile's generated Triton kernels */
	PL_JAX,	     /* JAX / XLA */
	PL_CUPY,
	PL_TRITON, /* Triton kernels (the user's own @triton.jit, or inductor's) */
	PL_TENSORFLOW,
	PL_ONNXRT,
	PL_TENSORRT,
	PL_NUMBA, /* Numba's CUDA target (@numba.cuda.jit) */
	PL_CUBLAS,
	PL_CUDNN,
	PL_NCCL,
	PL_FLASH,   /* flash / memory-efficient attention kernels */
	PL_RUNTIME, /* CUDA runtime API calls */
	PL_DRIVER,  /* CUDA driver API launches */
	PL_GRAPHS,  /* CUDA graph launches */
	PL_PYTHON,  /* the process is a Python interpreter */
	PL_COUNT
};

/* Where a library was seen (bits). */
enum prog_src {
	PS_MAPS = 1,	/* the frameworks table: files the process mapped */
	PS_SOURCE = 2,	/* the trace's source (torch.profiler) */
	PS_KERNELS = 4, /* kernel names */
	PS_APIS = 8,	/* API names */
	PS_CMDLINE = 16,
	PS_RANGES = 32, /* op or range names (aten::, ProfilerStep#) */
};

/* The kind of program: which framework's actions fit. */
enum prog_kind {
	PK_UNKNOWN,
	PK_PYTORCH,
	PK_JAX,
	PK_CUPY,
	PK_TRITON, /* Triton kernels without a framework seen */
	PK_TENSORFLOW,
	PK_ONNXRT,
	PK_TENSORRT,
	PK_CUDA, /* CUDA C/C++ (runtime or driver API, no framework) */
	PK_NUMBA,
	PK_COUNT
};

/* Kernel families (issue #16 item 6). */
enum kfam {
	KF_GEMM,	/* GEMM and convolution libraries */
	KF_ATTENTION,	/* flash / fused attention */
	KF_ELEMENTWISE, /* elementwise, reduction, normalization, copies-as-kernels */
	KF_COMM,	/* NCCL / RCCL collectives */
	KF_OTHER,	/* the program's own kernels not recognised as one of the above */
	KF_COUNT
};

/* Whose code a kernel is. */
enum kown {
	KO_USER,      /* the program's own kernel (CUDA C, its Triton or CuPy raw kernels) */
	KO_LIBRARY,   /* a tuned vendor library: cuBLAS, cuDNN, CUTLASS, flash, NCCL, CUB */
	KO_FRAMEWORK, /* the framework's own kernels: at::native, CuPy's ufuncs */
	KO_GENERATED, /* a compiler's from the user's code: inductor, XLA fusions */
	KO_COUNT
};

struct an_prog_proc {
	uint32_t pid;
	unsigned libs;	       /* bits of enum prog_lib */
	uint8_t src[PL_COUNT]; /* where each was seen (enum prog_src bits) */
	enum prog_kind kind;
	int64_t kernel_ns; /* its kernels' time in the whole trace */
};

struct an_program {
	enum prog_kind kind; /* of the process with the most kernel time */
	unsigned libs;	     /* every process's, together */
	uint8_t src[PL_COUNT];
	struct an_prog_proc *procs;
	size_t n_procs;
	/* the analysed window */
	double graph_kernel_share; /* of kernel time launched from CUDA graphs (0..1) */
	uint64_t graph_launches;   /* cudaGraphLaunch / cuGraphLaunch calls */
	double own_kernel_share;   /* of kernel time in the user's own kernels */
	double library_kernel_share;
	int64_t family_ns[KF_COUNT]; /* summed kernel time per family */
	int64_t owner_ns[KO_COUNT];
	int rocm; /* PyTorch on ROCm: an AMD device, or HIP API calls (issue 40) */
};

/* The family and the owner of a kernel name (mangled or not). */
enum kfam prog_kernel_family(const char *name);
enum kown prog_kernel_owner(const char *name);
/* The libraries a kernel name shows (bits of enum prog_lib). */
unsigned prog_kernel_libs(const char *name);

/* Fills a->prog from the whole trace `whole` (the analysed window's numbers
 * from a). Returns 0, or -1 with err (out of memory). */
int an_program(struct analysis *a, const struct trace *whole, char *err);
void an_program_release(struct an_program *p);

/* A library's name in the program's stack: ROCm's own where it runs on ROCm
 * (rocBLAS for the GEMM library, MIOpen, RCCL, the HIP runtime). */
const char *prog_lib_label_of(const struct an_program *p, enum prog_lib l);

/* 1 when the program (or any of its processes) used library l. */
static inline int prog_has(const struct an_program *p, enum prog_lib l)
{
	return (p->libs >> l) & 1u;
}

const char *prog_kind_name(enum prog_kind k);  /* "pytorch", "jax", ..., "cuda" */
const char *prog_kind_label(enum prog_kind k); /* "PyTorch", "JAX/XLA", "CUDA C/C++" */
const char *prog_lib_label(enum prog_lib l);   /* "PyTorch", "torch.compile", ... */
const char *kfam_name(enum kfam f);	       /* "gemm", "attention", ... */
const char *kfam_label(enum kfam f);	       /* "GEMM/convolution", ... */
const char *kown_name(enum kown o);	       /* "user", "library", ... */
/* "kernel names, API names" for a mask of enum prog_src bits, into buf. */
const char *prog_src_text(unsigned src, char *buf, size_t n);

#endif
