/*
 * test_contention.c - host_contention (issue 36 item 4) on traces built in
 * memory: a launch-bound loop whose launching thread sleeps outside CUDA
 * calls while another thread runs Python (the GIL: the other thread and its
 * function named, advice to move that work out); the same with the
 * launching thread waiting on a run queue behind busy threads (a CPU:
 * fewer threads); and what must not fire: the launching thread asleep in a
 * known wait (a DataLoader's Condition.wait), a busy other thread that
 * runs no Python, a trace without scheduler statistics, an other thread
 * that launches work too (the step's own thread, not a lock). A
 * torch.profiler trace (no statistics, no samples) shows the GIL in the
 * pauses between the launching thread's ops at multiples of its
 * hand-over; pauses of other lengths, too few hand-overs, or a pause of
 * that length after the same op each step (the program's own work) are
 * not it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "diagnose/diagnose.h"
#include "diagnose/finding.h"
#include "build_trace.h"

#define MS (1000 * US)
#define STEPS 400
#define STEP_US 210.0 /* 5 us launch call, 10 us kernel, the rest host time */

static uint32_t frame(struct trace *t, const char *name, const char *file, uint32_t line)
{
	struct trace_host_frame *f = trace_add_host_frame(t);
	f->id = (uint32_t)t->n_host_frames;
	f->kind = HOST_FRAME_PYTHON;
	f->name_id = trace_intern(t, name);
	f->file_id = trace_intern(t, file);
	f->line = line;
	return f->id;
}

/* a stack of frames, outermost first; its innermost node's id */
static uint32_t stack(struct trace *t, const uint32_t *fr, int n)
{
	uint32_t parent = 0;
	for (int i = 0; i < n; i++) {
		struct trace_host_stack *s = trace_add_host_stack(t);
		s->id = (uint32_t)t->n_host_stacks;
		s->parent_id = parent;
		s->frame_id = fr[i];
		parent = s->id;
	}
	return parent;
}

/* a cumulative row of tid every 5 ms over the loop: on a CPU cpu_pct of
 * the time, waiting for one wait_pct */
static void sched_rows(struct trace *t, uint32_t tid, double cpu_pct, double wait_pct)
{
	for (int k = -2; k <= 20; k++) {
		struct trace_host_sched *h = trace_add_host_sched(t);
		int64_t ts = (int64_t)k * 5 * MS;
		h->ts_ns = ts;
		h->pid = 100;
		h->tid = tid;
		h->cpu_ns = (uint64_t)(1000 * MS + (double)ts * cpu_pct / 100);
		h->wait_ns = (uint64_t)(1000 * MS + (double)ts * wait_pct / 100);
		h->slices = (uint64_t)(k + 100);
	}
}

/* reader samples of tid every ms, in the stack given */
static void samples(struct trace *t, uint32_t tid, uint32_t st)
{
	for (int k = 0; k < 84; k++) {
		struct trace_host_sample *s = trace_add_host_sample(t);
		s->ts_ns = (int64_t)k * MS + 300 * US;
		s->pid = 100;
		s->tid = tid;
		s->stack_id = st;
		s->weight_ns = (uint32_t)MS;
		s->source = HOST_SRC_PYREAD;
	}
}

/* OTHER_LAUNCHES: GIL's threads, but the other one launches a step's
 * kernel in four (PyTorch's main thread beside autograd's): a launcher
 * itself, whose Python is the step's work, not a lock */
enum { GIL, CPU, KNOWN_WAIT, NATIVE_OTHER, NO_SCHED, OTHER_LAUNCHES };

static void loop(struct trace *t, int what)
{
	bt_init(t);
	for (uint32_t i = 0; i < STEPS; i++) {
		double at = i * STEP_US;
		bt_launched(t, at + 8, at + 18, 7, i + 1, "_Z4stepPf", 1024, 256, at, at + 5);
		/* the main thread launches */
		t->apis[t->n_apis - 1].tid = what == OTHER_LAUNCHES && i % 4 == 0 ? 101 : 100;
	}
	uint32_t own = frame(t, "train_step", "/home/u/train.py", 40);
	uint32_t wait = frame(t, "Condition.wait", "/usr/lib/python3.12/threading.py", 320);
	uint32_t loop_fn = frame(t, "metrics_loop", "/home/u/train.py", 12);
	uint32_t enc =
	    frame(t, "JSONEncoder.iterencode", "/usr/lib/python3.12/json/encoder.py", 205);
	uint32_t main_st[] = {own, wait};
	uint32_t other_st[] = {loop_fn, enc};
	if (what == NO_SCHED) {
		trace_sort(t);
		return;
	}
	/* the launching thread (tid 100 = pid: the main thread) */
	sched_rows(t, 100, 20, what == CPU ? 60 : 1);
	samples(t, 100, stack(t, main_st, what == KNOWN_WAIT ? 2 : 1));
	/* the other thread, on a CPU 75% of the time */
	sched_rows(t, 101, 75, 1);
	if (what != NATIVE_OTHER)
		samples(t, 101, stack(t, other_st, 2));
	if (what == CPU) {
		for (uint32_t k = 0; k < 6; k++)
			sched_rows(t, 102 + k, 70, 25);
		trace_set_meta(t, "host_cpus", "4");
	}
	trace_sort(t);
}

static const struct finding *run(struct trace *t, struct analysis_result *r)
{
	struct analysis_opts o = {.device = -1, .whole = 1};
	char err[256];
	assert_int_equal(analysis_result_run(r, t, &o, err), 0);
	return finding_find(&r->all.findings, "host_contention");
}

static int action_has(const struct finding *f, const char *w)
{
	for (int i = 0; i < f->n_actions; i++)
		if (strstr(f->actions[i], w))
			return 1;
	return 0;
}

static void test_gil(void **state)
{
	(void)state;
	struct trace t;
	struct analysis_result r;
	loop(&t, GIL);
	const struct finding *f = run(&t, &r);
	assert_non_null(f);
	print_message("  %s\n", f->title);
	assert_string_equal(finding_get(f, "kind")->str, "gil");
	assert_int_equal((int)finding_get(f, "other_thread")->num, 101);
	assert_non_null(strstr(finding_get(f, "other_thread_function")->str, "metrics_loop"));
	assert_non_null(strstr(finding_get(f, "other_thread_call")->str, "iterencode"));
	assert_non_null(strstr(finding_get(f, "launch_thread_function")->str, "train_step"));
	/* asleep ~79% of the time outside its ~2% in CUDA calls */
	assert_true(finding_get(f, "launch_thread_sleep_pct")->num > 70);
	assert_true(f->impact_pct > 50);
	assert_true(action_has(f, "metrics_loop") && action_has(f, "multiprocessing.Process"));
	/* the wait is why the host is slow: the primary */
	assert_string_equal(r.all.primary->id, "host_contention");
	analysis_result_release(&r);
	trace_release(&t);
}

static void test_cpu(void **state)
{
	(void)state;
	struct trace t;
	struct analysis_result r;
	loop(&t, CPU);
	const struct finding *f = run(&t, &r);
	assert_non_null(f);
	print_message("  %s\n", f->title);
	assert_string_equal(finding_get(f, "kind")->str, "cpu");
	assert_true(finding_get(f, "launch_thread_cpu_wait_pct")->num > 55);
	assert_int_equal((int)finding_get(f, "cpus")->num, 4);
	assert_int_equal((int)finding_get(f, "busy_threads")->num, 8);
	/* 0.2 + 0.75 + 6 x 0.7 = 5.15 CPUs used of 4: its own threads */
	assert_true(finding_get(f, "process_cpus_used")->num > 5);
	assert_true(action_has(f, "OMP_NUM_THREADS"));
	assert_false(action_has(f, "torch.")); /* a CUDA C program */
	analysis_result_release(&r);
	trace_release(&t);
}

/* A torch.profiler trace: the main thread runs ops (cpu_op events around
 * its launches), the i-th op named name[i % 4], with the pause after it
 * of pause_us[i % n]; the GPU runs each op's kernel (20 us) at once. */
static void op_loop(struct trace *t, const double *pause_us, int n, int ops)
{
	static const char *const name[] = {"aten::linear", "aten::gelu", "aten::add_",
					   "aten::_fused_adamw_"};
	bt_init(t);
	t->source = TRACE_SRC_PYTORCH;
	double at = 0;
	for (int i = 0; i < ops; i++) {
		struct trace_range *r = bt_range(t, at, at + 30, 100, name[i % 4]);
		r->kind = RANGE_CPU_OP;
		r->pid = 100;
		bt_launched(t, at + 12, at + 32, 7, (uint32_t)i + 1, "gemm", 1024, 256, at + 5,
			    at + 10);
		t->apis[t->n_apis - 1].tid = 100;
		at += 30 + pause_us[i % n];
	}
	trace_sort(t);
}

static void test_gil_from_ops(void **state)
{
	(void)state;
	/* torch_gil_thread's trace: 5.2-6.3 ms, twice and three times that,
	 * a few long ones; 120 steps */
	const double handover[] = {5900, 6100, 6050, 12200, 6000, 5800, 18300, 6200, 70000, 6100};
	struct trace t;
	struct analysis_result r;
	op_loop(&t, handover, 10, 120);
	const struct finding *f = run(&t, &r);
	assert_non_null(f);
	print_message("  %s\n", f->title);
	assert_string_equal(finding_get(f, "kind")->str, "gil");
	assert_int_equal((int)finding_get(f, "launch_thread")->num, 100);
	double q = finding_get(f, "gil_handover_ms")->num;
	assert_true(q > 5.9 && q < 6.2);
	/* 9 of each 10 pauses: not the 70 ms one */
	assert_int_equal((int)finding_get(f, "op_pauses")->num, 119);
	assert_int_equal((int)finding_get(f, "gil_pauses")->num, 107);
	assert_true(action_has(f, "py-spy dump") && action_has(f, "multiprocessing.Process"));
	/* the pauses at hand-overs hold the idle: (9 x ~8.4 ms) / (10 x ~14.4) */
	assert_true(f->impact_pct > 45 && f->impact_pct < 60);
	/* the host-side primary says to find the holder first */
	print_message("  primary %s: %s\n", r.all.primary->id, r.all.primary->actions[0]);
	if (strcmp(r.all.primary->id, "host_contention") != 0)
		assert_non_null(strstr(r.all.primary->actions[0], "the GIL's hand-over"));
	analysis_result_release(&r);
	trace_release(&t);
	/* pauses of every length from 2 to 20 ms: no common hand-over */
	double spread[37];
	for (int k = 0; k < 37; k++)
		spread[k] = 2000 + 500 * k;
	op_loop(&t, spread, 37, 120);
	f = run(&t, &r);
	if (f)
		print_message("  spread: %s\n", f->title);
	assert_null(f);
	analysis_result_release(&r);
	trace_release(&t);
	/* 19 hand-overs: too few to be a pattern */
	op_loop(&t, handover, 1, 20);
	f = run(&t, &r);
	assert_null(f);
	analysis_result_release(&r);
	trace_release(&t);
	op_loop(&t, handover, 1, 21);
	f = run(&t, &r);
	assert_non_null(f);
	analysis_result_release(&r);
	trace_release(&t);
	/* 6 ms of the program's own work once a step (after the optimizer's
	 * op, the step's fourth), 40 steps: always after the same op */
	const double once[] = {10, 10, 10, 6000};
	op_loop(&t, once, 4, 160);
	f = run(&t, &r);
	if (f)
		print_message("  once a step: %s\n", f->title);
	assert_null(f);
	analysis_result_release(&r);
	trace_release(&t);
}

static void test_not_contention(void **state)
{
	(void)state;
	static const int cases[] = {KNOWN_WAIT, NATIVE_OTHER, NO_SCHED, OTHER_LAUNCHES};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct trace t;
		struct analysis_result r;
		loop(&t, cases[i]);
		const struct finding *f = run(&t, &r);
		if (f)
			print_message("  case %d: %s\n", cases[i], f->title);
		assert_null(f);
		assert_string_not_equal(r.all.primary->id, "host_contention");
		analysis_result_release(&r);
		trace_release(&t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_gil),
	    cmocka_unit_test(test_cpu),
	    cmocka_unit_test(test_not_contention),
	    cmocka_unit_test(test_gil_from_ops),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
