/*
 * test_recompile_samples.c - compiling that keeps coming (#36 item 2,
 * hostidle.c): on the H200 recordings of programs that compile again every
 * step (jax_shapes: XLA compiling and autotuning each new batch size;
 * torch_compile_shapes: dynamo/inductor for each new shape, recorded with
 * host samples and as a torch.profiler trace), the GPU idle the host spends
 * in a compiler is recompilation's ("JIT compilation" in the breakdown) and
 * never host_overhead's too: before the fix host_overhead took 93.9% of
 * jax_shapes with XLA's backend_compile_and_load as its host_function. A
 * program that compiles once, at its start, keeps its host idle.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>
#include <unistd.h>

#include "analyze/analysis_int.h"
#include "analyze/hostwait.h"
#include "diagnose/diagnose.h"
#include "diagnose/finding.h"
#include "fixture_file.h"
#include "util/error.h"

/* 0 when the fixture is missing (a checkout without the recordings) */
static int load_run(const char *path, struct trace *t, struct analysis_result *res)
{
	char tmp[64] = "", err[GS_ERR_LEN] = "";
	if (access(path, R_OK) != 0)
		return 0;
	assert_int_equal(fixture_unxz(path, tmp, sizeof(tmp)), 0);
	int loaded = analysis_load(t, *tmp ? tmp : path, err);
	if (*tmp)
		unlink(tmp);
	if (loaded < 0 && strstr(path, ".json")) { /* no kineto importer linked in */
		trace_release(t);
		return 0;
	}
	if (loaded < 0)
		fail_msg("%s: %s", path, err);
	struct analysis_opts ao = {.device = -1};
	if (analysis_result_run(res, t, &ao, err) < 0)
		fail_msg("%s: %s", path, err);
	return 1;
}

static const struct finding *find(const struct analysis *a, const char *id)
{
	for (size_t i = 0; i < a->findings.n; i++)
		if (!strcmp(a->findings.v[i].id, id))
			return &a->findings.v[i];
	return NULL;
}

/* calls: the program's calls with a shape not seen before (each compiles
 * once or more), the least the host samples must count */
static void keeps_compiling(const char *path, int samples, unsigned calls)
{
	struct trace t;
	struct analysis_result res;
	if (!load_run(path, &t, &res))
		return;
	const struct analysis *a = &res.all;
	const struct an_idle *d = &a->idle;
	/* the compile samples' idle moved, once: the classes still add up
	 * to the GPU idle */
	assert_true(a->hostidle.recompile_ns > 0);
	assert_true(d->jit_ns >= a->hostidle.recompile_ns);
	int64_t sum = d->launch_ns + d->sync_ns + d->copy_ns + d->api_ns + d->dispatch_ns +
		      d->host_ns + d->jit_ns;
	if (sum > d->total_ns + (int64_t)d->gaps + 1)
		fail_msg("%s: idle classes %lld ns > idle %lld ns", path, (long long)sum,
			 (long long)d->total_ns);
	/* recompilation is the primary, and host_overhead (if any) has only
	 * what is left: the two impacts never hold the same idle twice */
	assert_non_null(a->primary);
	assert_string_equal(a->primary->id, "recompilation");
	const struct finding *rc = find(a, "recompilation"), *ho = find(a, "host_overhead");
	double both = rc->impact_pct + (ho ? ho->impact_pct : 0);
	if (both > an_pct(a, (double)(d->host_ns + d->jit_ns)) + 1e-6)
		fail_msg("%s: recompilation %.2f%% + host_overhead %.2f%% > their idle %.2f%%",
			 path, rc->impact_pct, ho ? ho->impact_pct : 0,
			 an_pct(a, (double)(d->host_ns + d->jit_ns)));
	assert_true(rc->impact_pct >= 50);
	if (!samples)
		goto out;
	/* the recordings: no host_overhead at all, and the host samples in a
	 * compiler are not the host class's function any more */
	assert_null(ho);
	assert_non_null(finding_get(rc, "compile_function"));
	/* each new shape compiled is counted (the JIT stretches ending in a
	 * module load saw 9 in jax_shapes), and a compilation that runs
	 * kernels (XLA's autotuner) or pauses in its own dispatch code is not
	 * split into many: at most four a call (its step, its backward, the
	 * input's generation, the loss) */
	uint64_t runs = a->hostidle.compile_runs;
	if (runs < calls || runs > 4 * calls)
		fail_msg("%s: %llu compilations counted, %u new shapes", path,
			 (unsigned long long)runs, calls);
	const struct evidence *cf = finding_get(rc, "compilations");
	assert_non_null(cf);
	assert_true(cf->num == (double)runs);
	const struct an_hw_thread *m = an_hw_thread_of(&a->hostwait, AN_IDLE_HOST, 1);
	const struct trace *w = a->whole ? a->whole : a->t;
	for (int i = 0; m && i < m->n_top; i++) {
		char buf[1024];
		const char *name = an_hw_fn_name(w, &m->top[i], buf, sizeof(buf));
		if (strstr(name, "backend_compile") || strstr(name, "compile_or_get_cached") ||
		    strstr(name, "convert_frame") || strstr(name, "compile_fx"))
			fail_msg("%s: the host class still names the compiler: %s", path, name);
	}
out:
	analysis_result_release(&res);
	trace_release(&t);
}

static void jax_shapes_recompiles(void **state)
{
	(void)state;
	/* --steps 12 after 3 warm-up calls, the batch 17 rows larger each */
	keeps_compiling(FIXTURES_DIR "/real/jax_shapes.db.xz", 1, 12);
}

static void torch_compile_shapes_recompiles(void **state)
{
	(void)state;
	/* 12 sequence lengths, each compiled once */
	keeps_compiling(FIXTURES_DIR "/real/torch_compile_shapes.db.xz", 1, 12);
	keeps_compiling(FIXTURES_DIR "/real/torch_compile_shapes.json.gz", 0, 0);
}

/* programs that compile at their start (XLA's step once, Triton's kernel
 * once, cuDNN's SDPA per sequence length in decoding): nothing moves */
static void compiling_once_moves_nothing(void **state)
{
	(void)state;
	static const char *const once[] = {
	    FIXTURES_DIR "/real/jax_train.db",	       FIXTURES_DIR "/real/triton_fused.db",
	    FIXTURES_DIR "/real/triton_fused.json.gz", FIXTURES_DIR "/real/hf_decode.db",
	    FIXTURES_DIR "/real/jax_roundtrip.db",
	};
	for (size_t i = 0; i < sizeof(once) / sizeof(once[0]); i++) {
		struct trace t;
		struct analysis_result res;
		if (!load_run(once[i], &t, &res))
			continue;
		if (res.all.hostidle.recompile_ns != 0)
			fail_msg("%s: %lld ns of host idle moved to compilation", once[i],
				 (long long)res.all.hostidle.recompile_ns);
		/* its one compilation may fall inside the window, never more */
		if (res.all.hostidle.compile_runs > 1)
			fail_msg("%s: %llu compilations counted", once[i],
				 (unsigned long long)res.all.hostidle.compile_runs);
		analysis_result_release(&res);
		trace_release(&t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(jax_shapes_recompiles),
	    cmocka_unit_test(torch_compile_shapes_recompiles),
	    cmocka_unit_test(compiling_once_moves_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
