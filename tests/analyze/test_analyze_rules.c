/*
 * test_analyze_rules.c - the rules (src/analyze/rules*.c), table-driven:
 * each row builds a trace in memory with one designed pattern and says
 * what the report must conclude: the primary finding, its severity, its
 * impact and evidence to the last digit (each expected value is the
 * pattern's arithmetic, written out beside it), the first action, and the
 * ids that must not appear. Every finding of every row must carry only
 * evidence its rule declares (rules.c's table, which docs/findings.md
 * documents). Times are microseconds (build_trace.h).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "diagnose/diagnose.h"
#include "diagnose/finding.h"
#include "diagnose/rules.h"
#include "build_trace.h"
#include "render/findings_render.h"

#define HOST_SIDE "input_pipeline,launch_overhead,transfer,sync_stall"
#define NONE -1.0 /* a value not checked */
#define NUM(k, v)                                                                                  \
	{                                                                                          \
		.key = (k), .num = (v)                                                             \
	}
#define STR(k, v)                                                                                  \
	{                                                                                          \
		.key = (k), .num = NONE, .str = (v)                                                \
	}
#define UNKNOWN(k)                                                                                 \
	{                                                                                          \
		.key = (k), .num = NONE, .unknown = 1                                              \
	}

struct ev_want {
	const char *key;
	double num;	 /* NONE: not a number */
	const char *str; /* a string value, or NULL */
	int unknown;	 /* 1: the number must be unknown (null) */
};

struct rule_case {
	const char *name;
	void (*build)(struct trace *t);
	const char *primary;
	enum severity sev;
	double impact; /* of the primary, %; NONE: only a range (impact_lo) */
	double impact_lo;
	struct ev_want ev[10];
	const char *action0; /* a substring of the primary's first action */
	const char *absent;  /* ids that must not be found, ','-separated */
	const char *no_crit; /* ids that must not be critical */
};

/* 20000 x 3 us kernels with 5 us gaps; each launch call takes 4 us. */
static void kernel_storm(struct trace *t)
{
	double at = 0;
	for (uint32_t i = 0; i < 20000; i++) {
		bt_launched(t, at + 5, at + 8, 7, i + 1, "tiny_add", 1024, 256, at, at + 4);
		at += 8;
	}
}

/* Synchronous pageable HtoD copies (50 MB in 5 chunks) before short compute. */
static void pageable_copies(struct trace *t)
{
	double at = 0;
	uint32_t corr = 1;
	for (int i = 0; i < 100; i++) {
		bt_api(t, at, at + 5000, API_MEMCPY, corr, "cudaMemcpy");
		/* the copy engine runs in chunks while the host stages pages */
		for (int c = 0; c < 5; c++)
			bt_copy(t, at + c * 1000 + 300, at + c * 1000 + 1000, 7, corr, COPY_HTOD,
				MEM_PAGEABLE, MEM_DEVICE, 10000000);
		corr++;
		bt_launched(t, at + 5010, at + 5510, 7, corr, "compute", 1024, 256, at + 5001,
			    at + 5005);
		corr++;
		at += 5600;
	}
}

/* Each step: a 100 us kernel, a stream sync waiting for it, 60 us to relaunch. */
static void sync_every_step(struct trace *t)
{
	double at = 0;
	uint32_t corr = 1;
	for (int i = 0; i < 1000; i++) {
		bt_launched(t, at + 6, at + 106, 7, corr, "step_kernel", 1024, 256, at, at + 4);
		corr++;
		bt_api(t, at + 5, at + 108, API_SYNC, corr++, "cudaStreamSynchronize");
		at += 166;
	}
}

/* 10 kernels of 10 ms with 2 blocks on 132 SMs (seed 1.1). */
static void small_grid(struct trace *t)
{
	for (int i = 0; i < 10; i++)
		bt_launched(t, i * 10010.0 + 5, i * 10010.0 + 10005, 7, (uint32_t)i + 1,
			    "reduce_2blocks", 2, 256, i * 10010.0, i * 10010.0 + 4);
}

/* 255 registers x 256 threads: 8160 registers per warp round to 8192, a
 * quarter-SM holds 16384: 2 warps, 8 per SM; a block is 8 warps: one block
 * per SM, 8 of 64 warps = 12.5% theoretical occupancy. */
static void register_heavy(struct trace *t)
{
	for (int i = 0; i < 10; i++) {
		bt_launched(t, i * 1010.0 + 5, i * 1010.0 + 1005, 7, (uint32_t)i + 1, "fat_kernel",
			    132 * 4, 256, i * 1010.0, i * 1010.0 + 4);
		t->kernels[t->n_kernels - 1].regs = 255;
	}
}

/* The GPU idles 9 ms of every 10 ms with no CUDA call in flight. */
static void input_starved(struct trace *t)
{
	for (int i = 0; i < 50; i++) {
		double at = i * 10000.0 + 9000;
		bt_api(t, at - 20, at - 15, API_MEMCPY, (uint32_t)(2 * i + 1), "cudaMemcpyAsync");
		bt_copy(t, at - 14, at - 2, 7, (uint32_t)(2 * i + 1), COPY_HTOD, MEM_PINNED,
			MEM_DEVICE, 1 << 20);
		bt_launched(t, at, at + 1000, 7, (uint32_t)(2 * i + 2), "train_step", 1024, 256,
			    at - 10, at - 5);
	}
}

/* Healthy: 1 ms kernels back to back (the host far ahead), pinned copies on
 * a side stream overlapping them, one sync at the end. */
static void busy_pipeline(struct trace *t)
{
	uint32_t corr = 1;
	for (int i = 0; i < 2000; i++) {
		double ks = i * 1002.0 + 100, api = i * 5.0;
		bt_launched(t, ks, ks + 1000, 7, corr++, i % 2 ? "gemm" : "attention", 1056, 256,
			    api, api + 4);
		if (i % 4 == 0) {
			bt_api(t, api + 4, api + 5, API_MEMCPY, corr, "cudaMemcpyAsync");
			bt_copy(t, ks + 200, ks + 400, 8, corr++, COPY_HTOD, MEM_PINNED, MEM_DEVICE,
				8 << 20);
		}
	}
	bt_api(t, 10001, 2000 * 1002.0 + 110, API_SYNC, corr++, "cudaDeviceSynchronize");
}

/* A healthy training step: library GEMMs at low occupancy by design and
 * small-grid normalization kernels; the GPU is kept busy. */
static void healthy_gemm_training(struct trace *t)
{
	uint32_t corr = 1;
	double at = 100;
	for (int i = 0; i < 1000; i++) {
		int norm = i % 5 == 4;
		double d = norm ? 500 : 1000;
		bt_launched(t, at, at + d, 7, corr++,
			    norm ? "layer_norm_kernel" : "sm90_xmma_gemm_bf16bf16_bf16f32",
			    norm ? 64 : 528, norm ? 512 : 384, i * 4.0, i * 4.0 + 3);
		t->kernels[t->n_kernels - 1].regs = norm ? 32 : 168;
		at += d + 2;
	}
}

/* Everything enqueued up front, one sync waiting for all of it; 150 us
 * gaps (cross-stream dependencies) while work is queued: not a sync stall,
 * not the host. */
static void enqueue_then_wait_once(struct trace *t)
{
	uint32_t corr = 1;
	for (int i = 0; i < 200; i++)
		bt_launched(t, 100 + i * 1150.0, 1100 + i * 1150.0, 7, corr++, "work", 4096, 256,
			    i * 0.4, i * 0.4 + 0.3);
	bt_api(t, 90, 200 * 1150.0 + 10, API_SYNC, corr++, "cudaDeviceSynchronize");
}

/* GPM samples: DRAM at 88% while busy (no pipe metrics): memory_bound. */
static void memory_bound_gpm(struct trace *t)
{
	for (int i = 0; i < 100; i++)
		bt_launched(t, i * 1002.0 + 5, i * 1002.0 + 1005, 7, (uint32_t)i + 1, "stream_copy",
			    132 * 8, 256, i * 1002.0, i * 1002.0 + 4);
	uint32_t dram = trace_intern(t, "gpm_dram_bw_util");
	uint32_t sm = trace_intern(t, "gpm_sm_util");
	for (int i = 1; i < 100; i++) {
		struct trace_sample *s = trace_add_sample(t);
		s->ts_ns = (int64_t)(i * 1000.0 * US);
		s->metric_id = dram;
		s->value = 88;
		s = trace_add_sample(t);
		s->ts_ns = (int64_t)(i * 1000.0 * US);
		s->metric_id = sm;
		s->value = 40;
	}
}

/* Spans (first to last GPU work), in us, and the charged time of each row. */
#define STORM_SPAN (19999 * 8.0 + 8 - 5)	 /* 159995 */
#define PAGE_SPAN (99 * 5600.0 + 5510 - 300)	 /* 559610 */
#define SYNC_SPAN (999 * 166.0 + 106 - 6)	 /* 165934 */
#define GRID_SPAN (9 * 10010.0 + 10005 - 5)	 /* 100090 */
#define OCC_SPAN (9 * 1010.0 + 1005 - 5)	 /* 10090 */
#define INPUT_SPAN (49 * 10000.0 + 10000 - 8986) /* 491014 */
#define PCT(us, span) (100.0 * (us) / (span))

static const struct rule_case cases[] = {
    /* 19999 gaps of 5 us, all launch latency, plus 1 us fixed cost of each
     * of the 20000 kernels of 3 us */
    {"kernel storm",
     kernel_storm,
     "launch_overhead",
     SEV_CRITICAL,
     PCT(19999 * 5.0 + 20000, STORM_SPAN),
     0,
     {NUM("kernels", 20000), NUM("short_kernels", 20000), NUM("short_kernel_share_pct", 100),
      NUM("launch_idle_pct", PCT(19999 * 5.0, STORM_SPAN)),
      NUM("short_kernel_fixed_cost_pct", PCT(20000, STORM_SPAN)), NUM("kernel_time_ms", 60),
      NUM("launch_api_median_us", 4), NUM("launch_delay_median_us", 1),
      STR("top_short_kernel", "tiny_add")},
     /* a CUDA C program: graphs in CUDA terms (#16 item 1) */
     "the 20000 launches of tiny_add then cost one launch",
     "input_pipeline,gpu_busy",
     ""},
    /* 100 x 5 chunks of 700 us with no kernel running; inside each
     * cudaMemcpy 4 x 300 us between chunks and (after the first) the 300 us
     * before its first chunk */
    {"pageable copies",
     pageable_copies,
     "transfer",
     SEV_CRITICAL,
     PCT(100 * 3500.0 + 100 * 1200.0 + 99 * 300.0, PAGE_SPAN),
     0,
     {NUM("copy_time_pct", PCT(100 * 3500.0, PAGE_SPAN)),
      NUM("copy_call_idle_pct", PCT(100 * 1200.0 + 99 * 300.0, PAGE_SPAN)), NUM("copies", 500),
      NUM("bytes", 5e9), NUM("pageable_pct", 100),
      NUM("htod_gbps", 5e9 / 350000e3), /* bytes per ns */
      UNKNOWN("dtoh_gbps"),		/* no DtoH copy: unknown, not 0 */
      NUM("link_gbps", 64), NUM("overlap_with_kernels_pct", 0)},
     "pinned",
     "input_pipeline",
     "launch_overhead,sync_stall"},
    /* each of 999 gaps is 66 us: 60 us the sync (its wait and the
     * relaunch), 6 us the next launch queued */
    {"sync every step",
     sync_every_step,
     "sync_stall",
     SEV_CRITICAL,
     PCT(999 * 60.0, SYNC_SPAN),
     0,
     {NUM("syncs", 1000), NUM("sync_time_ms", 103), NUM("gpu_idle_after_sync_ms", 59.94),
      NUM("idle_per_sync_us", 59.94)},
     "replace cudaDeviceSynchronize / cudaStreamSynchronize in the loop",
     "input_pipeline,transfer",
     ""},
    /* 100 ms of kernels leave 130 of 132 SMs idle */
    {"small grid",
     small_grid,
     "small_grid",
     SEV_CRITICAL,
     PCT(100000.0 * (1 - 2.0 / 132), GRID_SPAN),
     0,
     {NUM("grid_blocks", 2), NUM("sm_count", 132),
      NUM("small_grid_time_pct", PCT(100000.0, GRID_SPAN)), STR("kernel", "reduce_2blocks")},
     "at least one block per SM (132)",
     HOST_SIDE,
     ""},
    /* the gain (0.8 - 0.125) / 0.8 = 84% capped at 50% (no GPM) of the 10
     * ms of kernels; a kernel-side finding stays a warning */
    {"low occupancy",
     register_heavy,
     "low_occupancy",
     SEV_WARNING,
     PCT(10000 * 0.5, OCC_SPAN),
     0,
     {NUM("occupancy_pct", 12.5), STR("limiter", "registers"), NUM("registers_per_thread", 255),
      NUM("block_size", 256), NUM("smem_per_block", 0),
      NUM("low_occupancy_time_pct", PCT(10000.0, OCC_SPAN))},
     "__launch_bounds__(256, minBlocks)",
     HOST_SIDE,
     ""},
    /* 49 gaps of 8986 us: 8980 us of host work each (the copy call takes
     * 5 us, the 1 us before the next call is dispatch); 50 gaps of 2 us
     * while the launch is queued */
    {"input pipeline",
     input_starved,
     "input_pipeline",
     SEV_CRITICAL,
     PCT(49 * 8980.0, INPUT_SPAN),
     0,
     {NUM("gpu_idle_pct", PCT(49 * 8986.0 + 50 * 2.0, INPUT_SPAN)),
      NUM("host_idle_pct", PCT(49 * 8980.0, INPUT_SPAN)), NUM("idle_gaps", 99),
      NUM("longest_gap_ms", 8.986), NUM("gaps_ge_500ms", 0), NUM("low_util_chunks_of_30", 30)},
     /* a CUDA C program has no DataLoader to tune (#16 item 3) */
     "produce the next batch on another host thread",
     "gpu_busy,host_overhead",
     ""},
    {"busy pipeline",
     busy_pipeline,
     "gpu_busy",
     SEV_INFO,
     NONE,
     90,
     {NUM("gpu_busy_pct", NONE)},
     "look inside the top kernel, attention",
     "",
     HOST_SIDE},
    {"healthy GEMM training",
     healthy_gemm_training,
     "gpu_busy",
     SEV_INFO,
     NONE,
     90,
     {{.key = NULL}},
     /* cuBLAS's kernels: library advice, not ncu on them (#16 item 1) */
     "the time is in library kernels",
     "low_occupancy," HOST_SIDE,
     ""},
    {"enqueue then wait once",
     enqueue_then_wait_once,
     "gpu_busy",
     SEV_INFO,
     NONE,
     50,
     {{.key = NULL}},
     NULL,
     "sync_stall,input_pipeline",
     ""},
    /* every sampled window has DRAM >= 60% and no pipe: all busy time is
     * memory-bound; the rescaled DRAM value is 88 / busy share */
    /* ... at 88% of the DRAM roof (>= 80%): healthy, info, what is left
     * (#16 item 2) */
    {"memory bound (GPM)",
     memory_bound_gpm,
     "memory_bound",
     SEV_INFO,
     NONE,
     90,
     {NUM("busy_time_memory_bound_pct", 100)},
     "the kernels are at the DRAM roof: move fewer bytes",
     "latency_bound,compute_bound",
     ""},
};

static int in_list(const char *list, const char *id)
{
	size_t n = strlen(id);
	for (const char *p = list; p && *p;) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len == n && !strncmp(p, id, n))
			return 1;
		p = e ? e + 1 : NULL;
	}
	return 0;
}

/* Problems of one row, printed; 0 when it holds. */
static int check(const struct rule_case *c, const struct analysis *a)
{
	int bad = 0;
	const struct finding *p = a->primary;
#define BAD(...)                                                                                   \
	do {                                                                                       \
		print_error("%s: ", c->name);                                                      \
		print_error(__VA_ARGS__);                                                          \
		print_error("\n");                                                                 \
		bad++;                                                                             \
	} while (0)
	if (!p || strcmp(p->id, c->primary)) {
		BAD("primary %s, expected %s", p ? p->id : "(none)", c->primary);
		return bad;
	}
	if (p->severity != c->sev)
		BAD("severity %s, expected %s", severity_name(p->severity), severity_name(c->sev));
	if (c->impact != NONE && fabs(p->impact_pct - c->impact) > 1e-9)
		BAD("impact %.12g, expected %.12g", p->impact_pct, c->impact);
	if (c->impact == NONE && p->impact_pct < c->impact_lo)
		BAD("impact %.12g, expected >= %g", p->impact_pct, c->impact_lo);
	for (int i = 0; i < 10 && c->ev[i].key; i++) {
		const struct ev_want *w = &c->ev[i];
		const struct evidence *e = finding_get(p, w->key);
		if (!e) {
			BAD("no evidence %s", w->key);
			continue;
		}
		if (w->str && (e->is_num || strcmp(e->str, w->str)))
			BAD("%s = '%s', expected '%s'", w->key, e->str, w->str);
		else if (w->unknown && !(e->is_num && e->unknown))
			BAD("%s = %g, expected unknown", w->key, e->num);
		else if (!w->str && !w->unknown && w->num != NONE &&
			 (!e->is_num || e->unknown ||
			  fabs(e->num - w->num) > 1e-9 * fmax(1, w->num)))
			BAD("%s = %.12g, expected %.12g", w->key, e->num, w->num);
	}
	if (c->action0 && (!p->n_actions || !strstr(p->actions[0], c->action0)))
		BAD("first action '%s' lacks '%s'", p->n_actions ? p->actions[0] : "", c->action0);
	for (size_t i = 0; i < a->findings.n; i++) {
		const struct finding *f = &a->findings.v[i];
		const struct rule *r = rule_find(f->id);
		if (in_list(c->absent, f->id))
			BAD("%s must not be found", f->id);
		if (f->severity == SEV_CRITICAL && in_list(c->no_crit, f->id))
			BAD("%s must not be critical", f->id);
		if (!r || !r->run)
			BAD("%s is not an implemented rule of the table", f->id);
		for (int e = 0; r && e < f->n_ev; e++)
			if (!rule_evidence_of(r, f->ev[e].key))
				BAD("%s: evidence %s is not declared in the rule table", f->id,
				    f->ev[e].key);
	}
	if (bad)
		finding_list_text(stderr, &a->findings);
	return bad;
#undef BAD
}

static void test_rule_table(void **state)
{
	(void)state;
	int bad = 0;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct trace t;
		struct analysis a;
		char err[512] = "";
		bt_init(&t);
		cases[i].build(&t);
		analysis_sort(&t);
		if (analysis_run(&a, &t, err) < 0) {
			print_error("%s: analysis_run: %s\n", cases[i].name, err);
			bad++;
		} else {
			bad += check(&cases[i], &a);
			analysis_release(&a);
		}
		trace_release(&t);
	}
	assert_int_equal(bad, 0);
}

/* The table itself: ids unique, every implemented rule documented by an
 * anchor, the host side as rules.h says, categories mapped. */
static void test_table_shape(void **state)
{
	(void)state;
	for (size_t i = 0; i < gs_n_rules; i++) {
		const struct rule *r = &gs_rules[i];
		for (size_t j = i + 1; j < gs_n_rules; j++)
			assert_string_not_equal(r->id, gs_rules[j].id);
		char anchor[64];
		snprintf(anchor, sizeof(anchor), "docs/findings.md#%s", r->id);
		assert_string_equal(r->doc, anchor);
		assert_ptr_equal(rule_find(r->id), r);
	}
	assert_true(rule_host_side("sync_stall"));
	assert_false(rule_host_side("gpu_busy"));
	assert_string_equal(rule_for_category("idle_sync")->id, "sync_stall");
	assert_string_equal(rule_for_category("idle_dispatch")->id, "launch_overhead");
	assert_string_equal(rule_for_category("HtoD")->id, "transfer");
	assert_null(rule_for_category("span"));
	assert_non_null(rule_evidence_of(rule_find("latency_bound"), "stall_long_scoreboard_pct"));
	assert_null(rule_evidence_of(rule_find("latency_bound"), "stall__pct"));
	assert_non_null(rule_find("straggler")->run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rule_table),
	    cmocka_unit_test(test_table_shape),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
