/*
 * test_unified_memory.c - the unified_memory finding (issue #36 item 3) on
 * traces built in memory with the uvm rows record stores from CUPTI's
 * unified-memory counters: a CUDA C loop whose kernel faults its managed
 * input in (primary, the kernel named, bytes and faults counted) and the
 * same loop prefetching (no finding); the 5% line on either side; faults
 * of another device; two kernels side by side counted once; the advice in
 * each framework's terms and no other's, whole in English and Chinese; the
 * warning when managed memory was allocated and the counters were refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/analysis.h"
#include "diagnose/diagnose.h"
#include "diagnose/finding.h"
#include "report/finding.h"
#include "diagnose/thresholds.h"
#include "report/report.h"
#include "trace/merge.h"
#include "trace/spool.h"
#include "util/i18n.h"
#include "build_trace.h"
#include "report_check.h"

#define MIB_B (1024ull * 1024ull)
#define STEPS 10
#define STEP_US 10000.0
#define FAULTS 10 /* GPU fault groups per step, 400 us each */

static void uvm(struct trace *t, double s_us, double e_us, int kind, uint32_t flags, uint64_t value,
		uint32_t device)
{
	struct trace_uvm *u = trace_add_uvm(t);
	memset(u, 0, sizeof(*u));
	u->start_ns = (int64_t)(s_us * US);
	u->end_ns = (int64_t)(e_us * US);
	u->pid = 100;
	u->device = device;
	u->kind = (uint8_t)kind;
	u->flags = flags;
	u->value = value;
	u->src = kind == UVM_HTOD ? UVM_CPU : device;
	u->dst = kind == UVM_HTOD ? device : UVM_CPU;
}

/* STEPS steps of 10 ms: the host writes the managed buffer (3 ms), a 5 ms
 * kernel reads it, a 4-byte read-back. Faulting: from the second step the
 * host's writes pull 16 MiB back (CPU faults, a device-to-host migration on
 * coherence), and the kernel faults its 20 MiB in (10 fault groups of 400
 * us with a 2 MiB migration each: 4 ms of its 5). Prefetching: the program
 * moves the buffer each way itself (cause user) and the kernel takes 0.5 ms. */
static void loop(struct trace *t, const char *kname, int prefetch)
{
	bt_init(t);
	for (int i = 0; i < STEPS; i++) {
		double at = 1000 + i * STEP_US;
		if (prefetch) {
			if (i)
				uvm(t, at, at + 800, UVM_DTOH, UVM_CAUSE_USER, 20 * MIB_B, 0);
			uvm(t, at + 2000, at + 2800, UVM_HTOD, UVM_CAUSE_USER, 20 * MIB_B, 0);
		} else if (i) {
			for (int k = 0; k < 8; k++)
				uvm(t, at + 300 * k, at + 300 * k, UVM_CPU_FAULT, 2, 0x401000,
				    UVM_CPU);
			uvm(t, at, at + 3000, UVM_DTOH, UVM_CAUSE_COHERENCE, 16 * MIB_B, 0);
		}
		bt_launched(t, at + 3020, at + 3020 + (prefetch ? 500 : 5000), 7, 2 * i + 1, kname,
			    1056, 256, at + 3000, at + 3010);
		for (int k = 0; !prefetch && k < FAULTS; k++) {
			double s = at + 3100 + 450 * k;
			uvm(t, s, s + 400, UVM_GPU_FAULT, 1, 1, 0);
			uvm(t, s + 10, s + 390, UVM_HTOD, UVM_CAUSE_COHERENCE, 2 * MIB_B, 0);
		}
		bt_api(t, at + 8030, at + 8050, API_MEMCPY, 2 * i + 2, "cudaMemcpy");
		bt_copy(t, at + 8035, at + 8040, 7, 2 * i + 2, COPY_DTOH, MEM_DEVICE, MEM_PAGEABLE,
			4);
	}
}

static double num(const struct finding *f, const char *key)
{
	const struct evidence *e = finding_get(f, key);
	if (!e)
		fail_msg("%s: no evidence %s", f->id, key);
	return e->num;
}

/* every action whole: none cut at the finding's 320 bytes */
/* as shown (report/finding.h: in the reader's language) */
static void actions_whole(const struct finding *f)
{
	char t[sizeof(f->title)];
	for (int i = 0; i < f->n_actions; i++)
		if (strlen(finding_action_text(t, sizeof(t), f, i)) >= sizeof(t) - 1)
			fail_msg("action cut: %s", t);
	assert_true(strlen(finding_title(t, sizeof(t), f)) < sizeof(t) - 1);
}

static void test_faulting_loop(void **state)
{
	(void)state;
	struct trace t;
	loop(&t, "_Z9touch_sumPKfmPy", 0);
	char err[256];
	struct analysis a;
	assert_int_equal(analysis_run(&a, &t, err), 0);
	const struct finding *f = finding_find(&a.findings, "unified_memory");
	assert_non_null(f);
	assert_non_null(a.primary);
	assert_string_equal(a.primary->id, "unified_memory");
	assert_int_equal(f->severity, SEV_CRITICAL);
	/* 4 ms of each 5 ms kernel: the faults from 100 to 4150 us into it
	 * less the 50 us gaps between them (9 x 50 us) */
	double span_ms = (double)a.span_ns / 1e6;
	double stalled_ms = STEPS * (FAULTS * 0.4);
	assert_float_equal(num(f, "stalled_kernel_ms"), stalled_ms, 1e-6);
	assert_float_equal(num(f, "stalled_kernel_pct"), 100.0 * stalled_ms / span_ms, 1e-6);
	/* the host's writes: 3 ms of idle in each step but the first */
	assert_float_equal(num(f, "idle_migrating_pct"), 100.0 * (STEPS - 1) * 3.0 / span_ms, 1e-6);
	assert_float_equal(f->impact_pct,
			   num(f, "stalled_kernel_pct") + num(f, "idle_migrating_pct"), 1e-9);
	assert_non_null(strstr(finding_get(f, "kernel")->str, "touch_sum(float const*"));
	assert_float_equal(num(f, "kernel_stalled_pct"), 100.0 * 4.0 / 5.0, 1e-6);
	assert_int_equal((int)num(f, "kernels_stalled"), 1);
	assert_null(finding_get(f, "other_kernels"));
	assert_int_equal((int)num(f, "gpu_page_faults"), STEPS * FAULTS);
	assert_int_equal((int)num(f, "cpu_page_faults"), (STEPS - 1) * 8);
	assert_float_equal(num(f, "htod_mib"), STEPS * FAULTS * 2.0, 1e-9);
	assert_float_equal(num(f, "dtoh_mib"), (STEPS - 1) * 16.0, 1e-9);
	assert_float_equal(num(f, "on_demand_mib"), STEPS * FAULTS * 2.0 + (STEPS - 1) * 16.0,
			   1e-9);
	assert_float_equal(num(f, "prefetched_mib"), 0, 1e-9);
	assert_float_equal(num(f, "htod_ms"), STEPS * FAULTS * 0.38, 1e-6);
	assert_null(finding_get(f, "evicted_mib"));
	assert_null(finding_get(f, "thrashing"));
	assert_non_null(strstr(f->title, "touch_sum"));
	/* CUDA C's terms, the prefetch first; the host's pulls said */
	assert_true(f->n_actions >= 3);
	assert_non_null(strstr(f->actions[0], "cudaMemPrefetchAsync"));
	assert_true(any_text(f, "cudaMemAdvise"));
	assert_true(any_text(f, "144 MiB back to the CPU"));
	assert_false(any_text(f, "torch."));
	assert_false(any_text(f, "cupy."));
	assert_false(any_text(f, "already"));
	actions_whole(f);
	analysis_release(&a);
	trace_release(&t);
}

static void test_prefetching_loop(void **state)
{
	(void)state;
	struct trace t;
	loop(&t, "_Z9touch_sumPKfmPy", 1);
	char err[256];
	struct analysis a;
	assert_int_equal(analysis_run(&a, &t, err), 0);
	assert_null(finding_find(&a.findings, "unified_memory"));
	analysis_release(&a);
	trace_release(&t);
}

/* STEPS steps of 6 ms whose host touches managed pages the GPU holds: a
 * CPU page fault every gap_us for 3.9 ms (each with a 20 us migration
 * back), then a 1 ms kernel and a 4-byte read-back (cudaMemcpy); 0.95 ms
 * of the host's own work after it. */
static void host_faulting(struct trace *t, double gap_us)
{
	bt_init(t);
	for (int i = 0; i < STEPS; i++) {
		double at = 1000 + i * 6000.0;
		for (double x = 0; x <= 3900 + 1e-9; x += gap_us) {
			uvm(t, at + x, at + x, UVM_CPU_FAULT, 2, 0x401000, UVM_CPU);
			uvm(t, at + x + 5, at + x + 25, UVM_DTOH, UVM_CAUSE_COHERENCE, 64 * 1024,
			    0);
		}
		bt_launched(t, at + 4020, at + 5020, 7, 2 * i + 1, "_Z9touch_sumPKfmPy", 1056, 256,
			    at + 4000, at + 4010);
		bt_api(t, at + 5030, at + 5050, API_MEMCPY, 2 * i + 2, "cudaMemcpy");
		bt_copy(t, at + 5035, at + 5040, 7, 2 * i + 2, COPY_DTOH, MEM_DEVICE, MEM_PAGEABLE,
			4);
	}
}

/* The host's fault stretches are unified_memory's idle, and host_overhead
 * and sync_stall give that time up (their title figures unchanged); faults
 * too far apart to chain are the host's own work */
static void test_host_faults(void **state)
{
	(void)state;
	struct trace t;
	struct analysis a;
	char err[256];
	host_faulting(&t, 100);
	assert_int_equal(analysis_run(&a, &t, err), 0);
	const struct finding *f = finding_find(&a.findings, "unified_memory");
	assert_non_null(f);
	double span_ms = (double)a.span_ns / 1e6;
	/* the window starts at the first kernel: steps 1..9's stretches of
	 * 3.9 ms, with no GPU work in them */
	double faulting = 100.0 * (STEPS - 1) * 3.9 / span_ms;
	assert_float_equal(num(f, "idle_host_faulting_pct"), faulting, 1e-6);
	/* with the last fault's migration back, 5-25 us past it */
	double idle = 100.0 * (STEPS - 1) * 3.920 / span_ms;
	assert_float_equal(num(f, "idle_migrating_pct"), idle, 1e-6);
	assert_float_equal(f->impact_pct, num(f, "stalled_kernel_pct") + idle, 1e-9);
	assert_non_null(a.primary);
	assert_string_equal(a.primary->id, "unified_memory");
	/* no kernel waits: the host's pulls come first */
	assert_non_null(strstr(f->actions[0], "the host's own accesses pull"));
	/* what the host-side findings gave up adds up to the stretches' host
	 * work, and each impact is its title figure less its share */
	double given = 0;
	const struct finding *h = finding_find(&a.findings, "host_overhead");
	if (h) {
		given += num(h, "unified_memory_host_pct");
		assert_float_equal(h->impact_pct,
				   num(h, "host_idle_pct") - num(h, "unified_memory_host_pct"),
				   1e-4);
		assert_true(any_text(h, "unified_memory's"));
	}
	const struct finding *y = finding_find(&a.findings, "sync_stall");
	if (y && finding_get(y, "unified_memory_host_pct")) {
		given += num(y, "unified_memory_host_pct");
		assert_float_equal(y->impact_pct,
				   num(y, "sync_idle_pct") - num(y, "unified_memory_host_pct"),
				   1e-4);
	}
	assert_true(given > 0);
	assert_true(given <= faulting + 1e-6);
	double host_idle = 100.0 * (double)(a.idle.host_ns + a.idle.sync_ns) / (double)a.span_ns;
	assert_true(host_idle > faulting);
	analysis_release(&a);
	trace_release(&t);

	/* the same faults 600 us apart: no chain, no stretch; the host time
	 * stays host_overhead's whole */
	host_faulting(&t, 600);
	assert_int_equal(analysis_run(&a, &t, err), 0);
	f = finding_find(&a.findings, "unified_memory");
	assert_true(!f || !finding_get(f, "idle_host_faulting_pct"));
	h = finding_find(&a.findings, "host_overhead");
	assert_non_null(h);
	assert_null(finding_get(h, "unified_memory_host_pct"));
	assert_float_equal(h->impact_pct, num(h, "host_idle_pct"), 1e-4);
	analysis_release(&a);
	trace_release(&t);
}

/* One kernel of 100 ms (two side by side when twin) with GPU faults
 * covering fault_ms of it on device dev. */
static void one_kernel(struct trace *t, double fault_ms, uint32_t dev, int twin)
{
	bt_init(t);
	bt_launched(t, 1000, 101000, 7, 1, "_Z4stepPf", 1056, 256, 900, 910);
	if (twin)
		bt_launched(t, 1000, 101000, 8, 2, "_Z5otherPf", 1056, 256, 920, 930);
	uvm(t, 2000, 2000 + fault_ms * 1000, UVM_GPU_FAULT, 1, 1, dev);
}

static const struct finding *run_one(struct analysis *a, struct trace *t)
{
	char err[256];
	assert_int_equal(analysis_run(a, t, err), 0);
	return finding_find(&a->findings, "unified_memory");
}

static void test_threshold(void **state)
{
	(void)state;
	struct trace t;
	struct analysis a;
	/* the span is the kernel's 100 ms: TH_MIN_IMPACT_PCT of it is 5 ms */
	one_kernel(&t, TH_MIN_IMPACT_PCT - 0.1, 0, 0);
	assert_null(run_one(&a, &t));
	analysis_release(&a);
	trace_release(&t);
	one_kernel(&t, TH_MIN_IMPACT_PCT + 0.1, 0, 0);
	const struct finding *f = run_one(&a, &t);
	assert_non_null(f);
	assert_float_equal(f->impact_pct, TH_MIN_IMPACT_PCT + 0.1, 1e-6);
	assert_int_equal(f->severity, SEV_INFO);
	assert_int_equal((int)num(f, "gpu_page_faults"), 1);
	analysis_release(&a);
	trace_release(&t);
	/* another device's faults stall nothing here */
	one_kernel(&t, 50, 1, 0);
	assert_null(run_one(&a, &t));
	analysis_release(&a);
	trace_release(&t);
}

/* two kernels side by side through the same 20 ms of faults: 20%, once;
 * both named */
static void test_concurrent_once(void **state)
{
	(void)state;
	struct trace t;
	struct analysis a;
	one_kernel(&t, 20, 0, 1);
	const struct finding *f = run_one(&a, &t);
	assert_non_null(f);
	assert_float_equal(f->impact_pct, 20.0, 1e-6);
	assert_int_equal((int)num(f, "kernels_stalled"), 2);
	assert_non_null(finding_get(f, "other_kernels"));
	analysis_release(&a);
	trace_release(&t);
}

/* The framework's own terms, never another's (the kernel names make the
 * program: CuPy's ufuncs, PyTorch's at::native, a Numba @cuda.jit). */
static void test_advice_per_framework(void **state)
{
	(void)state;
	static const struct {
		const char *kname, *want, *not1, *not2;
	} cases[] = {
	    {"cupy_multiply__float32_float_float32", "cupy.cuda.runtime.memPrefetchAsync", "torch.",
	     "cuda.managed_array"},
	    {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>"
	     "(int)",
	     "CUDAPluggableAllocator", "cupy.", "cuda.managed_array"},
	    {"__main__::touch[abi:v1][abi:"
	     "cw51cXTLSUwv1sCUt9Uw1VEw0NRRQPKzLTg4gaGKFsG2oMQGEYakJSQB1P]",
	     "cuda.managed_array", "torch.", "cupy."},
	    {"_Z9touch_sumPKfmPy", "cudaMemPrefetchAsync(ptr, bytes", "torch.", "cupy."},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct trace t;
		loop(&t, cases[i].kname, 0);
		struct analysis a;
		const struct finding *f = run_one(&a, &t);
		if (!f)
			fail_msg("%s: no unified_memory", cases[i].kname);
		if (!any_text(f, cases[i].want))
			fail_msg("%s: no '%s' in %s", cases[i].kname, cases[i].want, f->actions[0]);
		if (any_text(f, cases[i].not1) || any_text(f, cases[i].not2))
			fail_msg("%s: another framework's terms: %s", cases[i].kname,
				 f->actions[0]);
		actions_whole(f);
		analysis_release(&a);
		trace_release(&t);
	}
}

/* eviction and thrashing get their own actions; the program's own
 * prefetches beside faults are acknowledged */
static void test_eviction_thrashing(void **state)
{
	(void)state;
	struct trace t;
	loop(&t, "_Z9touch_sumPKfmPy", 0);
	uvm(&t, 40000, 40300, UVM_DTOH, UVM_CAUSE_EVICTION, 64 * MIB_B, 0);
	uvm(&t, 45000, 45000, UVM_THRASHING, 0, 2 * MIB_B, 0);
	uvm(&t, 46000, 46100, UVM_HTOD, UVM_CAUSE_USER, 8 * MIB_B, 0);
	struct analysis a;
	const struct finding *f = run_one(&a, &t);
	assert_non_null(f);
	assert_float_equal(num(f, "evicted_mib"), 64, 1e-9);
	assert_int_equal((int)num(f, "thrashing"), 1);
	assert_float_equal(num(f, "prefetched_mib"), 8, 1e-9);
	assert_true(any_text(f, "64 MiB were evicted"));
	assert_true(any_text(f, "thrashing"));
	assert_true(any_text(f, "already"));
	actions_whole(f);
	analysis_release(&a);
	trace_release(&t);
}

/* Chinese: the same findings translated, no action cut at 320 bytes
 * (three bytes a character) */
static void test_chinese(void **state)
{
	(void)state;
	static const char *const names[] = {
	    "cupy_multiply__float32_float_float32",
	    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>"
	    "(int)",
	    "__main__::touch[abi:v1][abi:"
	    "cw51cXTLSUwv1sCUt9Uw1VEw0NRRQPKzLTg4gaGKFsG2oMQGEYakJSQB1P]",
	    "_Z9touch_sumPKfmPy"};
	assert_int_equal(i18n_set_lang("zh"), 0);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct trace t;
		loop(&t, names[i], 0);
		uvm(&t, 40000, 40300, UVM_DTOH, UVM_CAUSE_EVICTION, 64 * MIB_B, 0);
		uvm(&t, 45000, 45000, UVM_THRASHING, 0, 2 * MIB_B, 0);
		uvm(&t, 46000, 46100, UVM_HTOD, UVM_CAUSE_USER, 8 * MIB_B, 0);
		struct analysis a;
		const struct finding *f = run_one(&a, &t);
		assert_non_null(f);
		char title[sizeof(f->title)];
		assert_non_null(strstr(finding_title(title, sizeof(title), f), "托管内存"));
		assert_true(f->n_actions >= 4);
		actions_whole(f);
		analysis_release(&a);
		trace_release(&t);
	}
	i18n_set_lang("en");
}

/* managed memory allocated and the counters refused (record's note):
 * a warning; recorded, or no managed memory: none */
static int has_warning(const struct analysis *a, const char *id)
{
	for (size_t i = 0; i < a->n_warnings; i++)
		if (!strcmp(a->warnings[i].id, id))
			return 1;
	return 0;
}

static void test_refused_warning(void **state)
{
	(void)state;
	static const struct {
		const char *note;
		int managed, want;
	} cases[] = {
	    {"not recorded: CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED (a virtual machine)", 1, 1},
	    {"off: GPUSCOPE_KINDS leaves uvm out", 1, 1},
	    {"not recorded: CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED (a virtual machine)", 0, 0},
	    {SPOOL_NOTE_UVM_ON, 1, 0},
	    {SPOOL_NOTE_UVM_ON " (without cpu_fault: the driver refused them)", 1, 0},
	    {NULL, 1, 0}, /* a recording made before the counters */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct trace t;
		one_kernel(&t, 0, 0, 0);
		t.n_uvm = 0;
		struct trace_alloc *al = trace_add_alloc(&t);
		memset(al, 0, sizeof(*al));
		al->ts_ns = 950 * US;
		al->pid = 100;
		al->bytes = 256 * (int64_t)MIB_B;
		al->mem_kind = cases[i].managed ? MEM_MANAGED : MEM_DEVICE;
		if (cases[i].note)
			trace_set_meta(&t, SPOOL_NOTE_UVM, cases[i].note);
		struct analysis a;
		char err[256];
		assert_int_equal(analysis_run(&a, &t, err), 0);
		if (has_warning(&a, "uvm_not_recorded") != cases[i].want)
			fail_msg("case %zu: warning %s", i, cases[i].want ? "missing" : "given");
		assert_null(finding_find(&a.findings, "unified_memory"));
		analysis_release(&a);
		trace_release(&t);
	}
}

/* Two GPUs, one process each: the faults of device 1 stall its kernel,
 * its own analysis names them (the device views keep the device's rows and
 * its process's CPU faults), device 0 gets nothing; trace_keep_device keeps
 * the same rows. */
static void test_two_devices(void **state)
{
	(void)state;
	struct trace t;
	one_kernel(&t, 30, 1, 0);
	struct trace_device *d = trace_add_device(&t);
	*d = t.devices[0];
	d->id = 1;
	struct trace_kernel *k = trace_add_kernel(&t);
	*k = t.kernels[0];
	k->device = 1;
	k->pid = 200;
	k->name_id = trace_intern(&t, "_Z7faultedPf");
	struct trace_api *a = trace_add_api(&t);
	*a = t.apis[0];
	a->pid = 200;
	t.uvm[0].pid = 200;
	uvm(&t, 50000, 50000, UVM_CPU_FAULT, 1, 0x401000, UVM_CPU);
	t.uvm[1].pid = 200;
	uvm(&t, 60000, 60000, UVM_CPU_FAULT, 1, 0x401000, UVM_CPU); /* pid 100's */
	trace_sort(&t);
	struct analysis_result r;
	struct analysis_opts o = {.device = -1};
	char err[256];
	assert_int_equal(analysis_result_run(&r, &t, &o, err), 0);
	assert_int_equal(r.n_dev, 2);
	assert_null(finding_find(&r.dev[0].findings, "unified_memory"));
	const struct finding *f = finding_find(&r.dev[1].findings, "unified_memory");
	assert_non_null(f);
	assert_non_null(strstr(finding_get(f, "kernel")->str, "faulted"));
	assert_int_equal((int)num(f, "cpu_page_faults"), 1);
	const struct finding *g = finding_find(&r.all.findings, "unified_memory");
	assert_non_null(g);
	assert_int_equal(g->device, 1);
	analysis_result_release(&r);
	assert_int_equal(trace_keep_device(&t, 1, err), 0);
	assert_int_equal(t.n_uvm, 2);
	assert_int_equal(t.uvm[0].kind, UVM_GPU_FAULT);
	assert_int_equal(t.uvm[1].pid, 200);
	trace_release(&t);
}

/* Two ranks' recordings of the same device number and pid merged into one
 * job: the second's devices are renumbered and its pid moved, and its uvm
 * rows follow (the CPU stays the CPU) */
static void test_merge_ranks(void **state)
{
	(void)state;
	struct trace tr[2];
	for (int i = 0; i < 2; i++) {
		one_kernel(&tr[i], 30, 0, 0);
		uvm(&tr[i], 50000, 50000, UVM_CPU_FAULT, 1, 0x401000, UVM_CPU);
		tr[i].uvm[0].src = 0;
	}
	char *paths[2] = {"a.db", "b.db"};
	struct trace_set set = {tr, paths, 2};
	struct trace out;
	char err[256];
	assert_int_equal(trace_merge_set(&out, &set, err), 0);
	assert_int_equal(out.n_uvm, 4);
	assert_int_equal(out.uvm[0].device, 0);
	assert_int_equal(out.uvm[2].device, 1);
	assert_int_equal(out.uvm[2].src, 1);
	assert_int_equal(out.uvm[3].device, UVM_CPU);
	assert_int_equal(out.uvm[3].src, UVM_CPU);
	assert_int_equal(out.uvm[0].pid, 100);
	assert_true(out.uvm[2].pid != 100);
	assert_int_equal(out.uvm[2].pid, out.uvm[3].pid);
	assert_int_equal(out.kernels[1].pid, out.uvm[2].pid);
	trace_release(&out);
	trace_release(&tr[0]); /* merged, then left initialised (merge.c) */
	trace_release(&tr[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_faulting_loop),      cmocka_unit_test(test_prefetching_loop),
	    cmocka_unit_test(test_host_faults),	       cmocka_unit_test(test_threshold),
	    cmocka_unit_test(test_concurrent_once),    cmocka_unit_test(test_advice_per_framework),
	    cmocka_unit_test(test_eviction_thrashing), cmocka_unit_test(test_chinese),
	    cmocka_unit_test(test_refused_warning),    cmocka_unit_test(test_two_devices),
	    cmocka_unit_test(test_merge_ranks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
