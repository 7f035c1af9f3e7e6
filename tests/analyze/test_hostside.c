/*
 * test_hostside.c - input_pipeline against host_overhead when host samples
 * call the host's work "other" but each long host stretch ends in a
 * batch's copy (hostside.c, copies_say_input): a step loop of 5 ms of host
 * work, a 1 MiB host-to-device copy, a 1 ms kernel. With the on-CPU samples
 * in NumPy's generator (the batch being made) the idle is input_pipeline;
 * with the same shape but the samples in the interpreter (logging before
 * each copy) it stays host_overhead. A wrong program would call both the
 * same, or drop the copies' evidence.
 *
 * With the CPython reader's stacks beside perf's: the main thread's time
 * at one line of the program's own step, on the CPU in libtorch_cpu (a
 * torch.stack of the batch's rows: torch_small_copies_fixed, H100) is the
 * batch being made, input_pipeline; the same line in the interpreter
 * (bookkeeping in Python), with the logging module below it, off the CPU
 * (perf samples a fifth of the time: a sleep), or before no batch's copy stays host_overhead.
 * From op events (a trace): a CPU op that launches nothing before each
 * batch's copy is input_pipeline; the same op launching a kernel, or
 * before a 4 KiB copy, stays host_overhead.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "diagnose/advice.h"
#include "diagnose/diagnose.h"
#include "diagnose/finding.h"
#include "build_trace.h"

#define STEPS 20

static uint32_t frame(struct trace *t, int kind, const char *fn, const char *file,
		      const char *module, uint32_t line)
{
	struct trace_host_frame *f = trace_add_host_frame(t);
	f->id = (uint32_t)t->n_host_frames;
	f->kind = (uint8_t)kind;
	f->name_id = trace_intern(t, fn);
	f->file_id = trace_intern(t, file);
	f->module_id = trace_intern(t, module);
	f->line = line;
	return f->id;
}

static uint32_t stack_on(struct trace *t, uint32_t parent, uint32_t frame_id)
{
	struct trace_host_stack *s = trace_add_host_stack(t);
	s->id = (uint32_t)t->n_host_stacks;
	s->parent_id = parent;
	s->frame_id = frame_id;
	return s->id;
}

static uint32_t one_frame_stack(struct trace *t, const char *fn, const char *module)
{
	return stack_on(t, 0, frame(t, HOST_FRAME_NATIVE, fn, "", module, 0));
}

/* the step loop; with `other`, the first three of each step's five samples
 * are in other_fn of other_module instead (libc's memcpy) */
static void build2(struct trace *t, const char *fn, const char *module, const char *other_fn,
		   const char *other_module)
{
	bt_init(t);
	uint32_t stack = one_frame_stack(t, fn, module);
	uint32_t other = other_fn ? one_frame_stack(t, other_fn, other_module) : stack;
	uint32_t corr = 1;
	for (int i = 0; i < STEPS; i++) {
		double t0 = 1000 + i * 7000.0; /* us: host 5 ms, copy, kernel 1 ms */
		for (int k = 0; k < 5; k++) {
			struct trace_host_sample *s = trace_add_host_sample(t);
			s->ts_ns = (int64_t)((t0 + 500 + k * 1000) * US);
			s->pid = 100;
			s->tid = 100;
			s->stack_id = k < 3 ? other : stack;
			s->weight_ns = 1000000;
			s->source = HOST_SRC_PERF;
		}
		bt_api(t, t0 + 5000, t0 + 5050, API_MEMCPY, corr, "cudaMemcpyAsync");
		bt_copy(t, t0 + 5010, t0 + 5100, 0, corr++, COPY_HTOD, MEM_PAGEABLE, MEM_DEVICE,
			1 << 20);
		bt_launched(t, t0 + 5200, t0 + 6200, 0, corr, "step", 1056, 256, t0 + 5150,
			    t0 + 5160);
		corr++;
	}
	trace_sort(t);
}

static void build(struct trace *t, const char *fn, const char *module)
{
	build2(t, fn, module, NULL, NULL);
}

enum own_case { OWN_NATIVE, OWN_INTERPRETER, OWN_LOGGING, OWN_OFF_CPU, OWN_SMALL_COPY };

/* the step loop of build(), sampled by the reader (the Python stack) and,
 * unless off the CPU, by perf (the native frame it runs) */
static void build_own(struct trace *t, enum own_case how)
{
	bt_init(t);
	uint32_t mod = frame(t, HOST_FRAME_PYTHON, "<module>", "/work/train.py", "", 1);
	uint32_t step = frame(t, HOST_FRAME_PYTHON, "step", "/work/train.py", "", 36);
	uint32_t py = stack_on(t, stack_on(t, 0, mod), step);
	if (how == OWN_LOGGING)
		py = stack_on(t, py,
			      frame(t, HOST_FRAME_PYTHON, "Logger.info",
				    "/usr/lib/python3.12/logging/__init__.py", "", 1530));
	uint32_t nat =
	    how == OWN_INTERPRETER ? frame(t, HOST_FRAME_NATIVE, "_PyEval_EvalFrameDefault", "",
					   "/usr/bin/python3.12", 0)
	    : how == OWN_LOGGING /* the log's write */
		? frame(t, HOST_FRAME_NATIVE, "write", "", "/usr/lib/x86_64-linux-gnu/libc.so.6", 0)
		: frame(t, HOST_FRAME_NATIVE, "at::native::_stack_out_cpu", "",
			"/site-packages/torch/lib/libtorch_cpu.so", 0);
	uint32_t perf = stack_on(t, 0, nat);
	uint32_t corr = 1;
	for (int i = 0; i < STEPS; i++) {
		double t0 = 1000 + i * 7000.0;
		for (int k = 0; k < 5; k++)
			for (int src = HOST_SRC_PERF; src <= HOST_SRC_PYREAD; src++) {
				if (src == HOST_SRC_PERF && how == OWN_OFF_CPU && k > 0)
					continue; /* on the CPU 1 ms of the 5 */
				struct trace_host_sample *s = trace_add_host_sample(t);
				s->ts_ns = (int64_t)((t0 + 500 + k * 1000) * US);
				s->pid = 100;
				s->tid = 100;
				s->stack_id = src == HOST_SRC_PERF ? perf : py;
				s->weight_ns = 1000000;
				s->source = (uint8_t)src;
			}
		bt_api(t, t0 + 5000, t0 + 5050, API_MEMCPY, corr, "cudaMemcpyAsync");
		bt_copy(t, t0 + 5010, t0 + 5100, 0, corr++, COPY_HTOD, MEM_PINNED, MEM_DEVICE,
			how == OWN_SMALL_COPY ? 4096 : 16 << 20);
		bt_launched(t, t0 + 5200, t0 + 6200, 0, corr, "step", 1056, 256, t0 + 5150,
			    t0 + 5160);
		corr++;
	}
	trace_sort(t);
}

static void own_case(enum own_case how, const char *want, int kind)
{
	struct analysis a;
	struct trace t;
	char err[256];
	build_own(&t, how);
	assert_int_equal(analysis_run_opts(&a, &t, NULL, 1, err), 0);
	assert_non_null(a.primary);
	assert_string_equal(a.primary->id, want);
	assert_int_equal(a.hostside.kind, kind);
	/* the line is what makes the batch, for the advice (advice.c) */
	assert_int_equal(a.hostside.makes_batch, kind == HK_INPUT ? HB_LINE : HB_NONE);
	assert_int_equal(a.hostside.batch_op_id, 0);
	analysis_release(&a);
	trace_release(&t);
}

static void own_line_native_is_input(void **state)
{
	(void)state;
	own_case(OWN_NATIVE, "input_pipeline", HK_INPUT);
}

static void own_line_interpreter_stays_overhead(void **state)
{
	(void)state;
	own_case(OWN_INTERPRETER, "host_overhead", HK_OVERHEAD);
}

static void own_line_logging_stays_overhead(void **state)
{
	(void)state;
	own_case(OWN_LOGGING, "host_overhead", HK_OVERHEAD);
}

/* no batch's copy after the stretches (a 4 KiB one): nothing says the line
 * makes data */
static void own_line_without_batch_copy_stays_overhead(void **state)
{
	(void)state;
	own_case(OWN_SMALL_COPY, "host_overhead", HK_OVERHEAD);
}

static void own_line_off_cpu_stays_overhead(void **state)
{
	(void)state;
	own_case(OWN_OFF_CPU, "host_overhead", HK_OVERHEAD);
}

/* A torch.profiler trace of the same loop: op events, no samples. The host's
 * 5 ms are one CPU op (aten::stack: launches nothing) before the batch's
 * copy (aten::to); or the same op launches a kernel in it (work on the GPU
 * that the host waits to launch), or the copy after it is 4 KiB. */
enum op_case { OP_CPU, OP_LAUNCHES, OP_SMALL_COPY };

static void build_ops(struct trace *t, enum op_case how)
{
	bt_init(t);
	uint32_t corr = 1;
	for (int i = 0; i < STEPS; i++) {
		double t0 = 1000 + i * 7000.0;
		struct trace_range *r = bt_range(t, t0 + 100, t0 + 4900, 100, "aten::stack");
		r->kind = RANGE_CPU_OP;
		if (how == OP_LAUNCHES) {
			bt_api(t, t0 + 4800, t0 + 4810, API_LAUNCH, corr, "cudaLaunchKernel")->tid =
			    100;
			bt_kernel(t, t0 + 4812, t0 + 4814, 0, corr++, "stack_kernel", 1056, 256,
				  32);
		}
		r = bt_range(t, t0 + 4990, t0 + 5060, 100, "aten::to");
		r->kind = RANGE_CPU_OP;
		bt_api(t, t0 + 5000, t0 + 5050, API_MEMCPY, corr, "cudaMemcpyAsync")->tid = 100;
		bt_copy(t, t0 + 5010, t0 + 5100, 0, corr++, COPY_HTOD, MEM_PINNED, MEM_DEVICE,
			how == OP_SMALL_COPY ? 4096 : 16 << 20);
		r = bt_range(t, t0 + 5140, t0 + 5170, 100, "aten::linear");
		r->kind = RANGE_CPU_OP;
		bt_launched(t, t0 + 5200, t0 + 6200, 0, corr, "step", 1056, 256, t0 + 5150,
			    t0 + 5160);
		corr++;
	}
	trace_sort(t);
}

static void op_case(enum op_case how, const char *want, int kind)
{
	struct analysis a;
	struct trace t;
	char err[256];
	build_ops(&t, how);
	assert_int_equal(analysis_run_opts(&a, &t, NULL, 1, err), 0);
	assert_true(a.ops.have_ops);
	assert_non_null(a.primary);
	if (strcmp(a.primary->id, want) || (int)a.hostside.kind != kind)
		fail_msg("op case %d: %s (%s), expected %s", how, a.primary->id, a.hostside.how,
			 want);
	if (how == OP_CPU) {
		/* the op is named, and PyTorch's advice gathers the batch on the GPU
		 * instead of moving decoding there (there is none) */
		assert_int_equal(a.hostside.makes_batch, HB_OP);
		assert_string_equal(trace_str(&t, a.hostside.batch_op_id), "aten::stack");
		assert_int_equal(a.prog.kind, PK_PYTORCH);
		int gather = 0, decode = 0;
		for (int k = 0; k < a.primary->n_actions; k++) {
			gather |= strstr(a.primary->actions[k],
					 "gathered on the CPU by aten::stack") != NULL;
			decode |= strstr(a.primary->actions[k], "decoding") != NULL;
		}
		assert_true(gather);
		assert_false(decode);
	} else {
		assert_int_equal(a.hostside.makes_batch, HB_NONE);
	}
	analysis_release(&a);
	trace_release(&t);
}

static void cpu_op_before_copy_is_input(void **state)
{
	(void)state;
	op_case(OP_CPU, "input_pipeline", HK_INPUT);
}

static void launching_op_before_copy_stays_overhead(void **state)
{
	(void)state;
	op_case(OP_LAUNCHES, "host_overhead", HK_OVERHEAD);
}

static void cpu_op_without_batch_copy_stays_overhead(void **state)
{
	(void)state;
	op_case(OP_SMALL_COPY, "host_overhead", HK_OVERHEAD);
}

static const char *primary_of(struct trace *t, const char *fn, const char *module,
			      struct analysis *a)
{
	char err[256];
	build(t, fn, module);
	assert_int_equal(analysis_run_opts(a, t, NULL, 1, err), 0);
	return a->primary ? a->primary->id : "(none)";
}

static void numpy_batch_is_input(void **state)
{
	(void)state;
	struct analysis a;
	struct trace t;
	const char *p = primary_of(&t, "random_standard_normal_f",
				   "/site-packages/numpy/random/_generator.cpython-312.so", &a);
	assert_string_equal(p, "input_pipeline");
	assert_int_equal(a.hostside.kind, HK_INPUT);
	assert_true(a.hostside.input_gaps >= STEPS - 1);
	/* NumPy's native code makes it: named for the advice (advice.c) */
	assert_int_equal(a.hostside.makes_batch, HB_NATIVE);
	analysis_release(&a);
	trace_release(&t);
}

/* PyTorch's advice names the native function that makes the batch: NumPy's
 * generator (2 of each step's 5 samples), not libc's memcpy beside it (3 of
 * 5: the main thread's heaviest native frame, in no module that makes data) */
static void numpy_batch_named_not_memcpy(void **state)
{
	(void)state;
	struct analysis a;
	struct trace t;
	char err[256];
	build2(&t, "random_standard_normal_f",
	       "/site-packages/numpy/random/_generator.cpython-312.so", "__memmove_avx_unaligned",
	       "/usr/lib/x86_64-linux-gnu/libc.so.6");
	assert_int_equal(analysis_run_opts(&a, &t, NULL, 1, err), 0);
	assert_int_equal(a.hostside.kind, HK_INPUT);
	assert_int_equal(a.hostside.makes_batch, HB_NATIVE);
	a.prog.kind = PK_PYTORCH; /* the advice's PyTorch branch */
	struct finding_list l;
	finding_list_init(&l);
	struct finding *f = finding_add(&l, "input_pipeline", SEV_CRITICAL, "test");
	assert_non_null(f);
	adv_input(f, &a);
	int named = 0, memcpy_named = 0, decode = 0;
	for (int k = 0; k < f->n_actions; k++) {
		named |= strstr(f->actions[k], "of this idle the main thread is in "
					       "random_standard_normal_f") != NULL;
		memcpy_named |= strstr(f->actions[k], "__memmove") != NULL;
		decode |= strstr(f->actions[k], "decoding") != NULL;
	}
	assert_true(named);
	assert_false(memcpy_named);
	assert_false(decode);
	finding_list_release(&l);
	analysis_release(&a);
	trace_release(&t);
}

static void logging_before_copy_stays_overhead(void **state)
{
	(void)state;
	struct analysis a;
	struct trace t;
	const char *p =
	    primary_of(&t, "_PyEval_EvalFrameDefault", "/usr/lib/libpython3.12.so.1.0", &a);
	assert_string_equal(p, "host_overhead");
	assert_int_equal(a.hostside.kind, HK_OVERHEAD);
	analysis_release(&a);
	trace_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(numpy_batch_is_input),
	    cmocka_unit_test(numpy_batch_named_not_memcpy),
	    cmocka_unit_test(logging_before_copy_stays_overhead),
	    cmocka_unit_test(own_line_native_is_input),
	    cmocka_unit_test(own_line_interpreter_stays_overhead),
	    cmocka_unit_test(own_line_logging_stays_overhead),
	    cmocka_unit_test(own_line_off_cpu_stays_overhead),
	    cmocka_unit_test(own_line_without_batch_copy_stays_overhead),
	    cmocka_unit_test(cpu_op_before_copy_is_input),
	    cmocka_unit_test(launching_op_before_copy_stays_overhead),
	    cmocka_unit_test(cpu_op_without_batch_copy_stays_overhead),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
