/*
 * test_gpu.c - the vendor-neutral GPU layer over a fake NVML: the metric
 * registry's invariants, validity bits, the device-count cap, XIDs from
 * events, processes, two systems read on two threads at once (no shared
 * state), the sampler's ring and subscribers, and record's trace rows
 * (names and order exactly as before the layer existed).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fake_nvml.h"
#include "gpu/metrics.h"
#include "gpu/sampler.h"
#include "record/sampler.h"
#include "trace/trace.h"

static int setup(void **state)
{
	fake_count = 2;
	fake_reported_count = 0;
	fake_small_grid(&fake_gpus[0]);
	fake_small_grid(&fake_gpus[1]);
	fake_gpus[1].util = 30;
	fake_gpus[1].gpm_sm = 29;
	fake_gpus[1].gpm_dram = 88;
	fake_gpus[1].n_procs = 0;
	(void)state;
	return 0;
}

static void registry_invariants(void **state)
{
	/* the names record has always written, in this order (string ids in traces) */
	static const char *const record_names[] = {"gpu_util",	       "mem_util",
						   "sm_clock_mhz",     "mem_clock_mhz",
						   "power_w",	       "temp_c",
						   "pcie_tx_mbps",     "pcie_rx_mbps",
						   "mem_used_bytes",   "clock_event_reasons",
						   "gpm_sm_util",      "gpm_sm_occupancy",
						   "gpm_dram_bw_util", "gpm_tensor_util",
						   "gpm_fp32_util"};
	unsigned k = 0;
	assert_true(GPU_M_COUNT <= 64); /* one valid mask */
	for (int m = 0; m < GPU_M_COUNT; m++) {
		const struct gpu_metric_info *i = &gpu_metrics[m];
		size_t n = strlen(i->prom_name);
		if (i->flags & GPU_MF_RECORD) {
			assert_true(k < 15);
			assert_string_equal(i->trace_name, record_names[k]);
			assert_int_equal(m, k); /* record metrics come first */
			k++;
		}
		/* Prometheus conventions promtool checks: counters end in _total, gauges do not */
		if (i->kind == GPU_COUNTER)
			assert_string_equal(i->prom_name + n - 6, "_total");
		else
			assert_false(n > 6 && strcmp(i->prom_name + n - 6, "_total") == 0);
		assert_null(strchr(i->help, '\\'));
		assert_null(strchr(i->help, '\n'));
		assert_int_equal(gpu_metric_by_trace_name(i->trace_name), m);
		for (int o = 0; o < m; o++) {
			assert_true(strcmp(gpu_metrics[o].prom_name, i->prom_name) != 0);
			assert_true(strcmp(gpu_metrics[o].trace_name, i->trace_name) != 0);
		}
	}
	assert_int_equal(k, 15);
	assert_int_equal(gpu_metric_by_trace_name("no_such_metric"), -1);
	char b[128];
	assert_string_equal(gpu_clock_reasons_str(0x44, b, sizeof(b)), "sw_power_cap,hw_thermal");
	assert_string_equal(gpu_clock_reasons_str(0, b, sizeof(b)), "none");
	assert_string_equal(gpu_clock_reasons_str(0x1001, b, sizeof(b)), "gpu_idle,0x1000");
	(void)state;
}

static void readings_and_unknowns(void **state)
{
	struct gpu_sys sys;
	struct gpu_static st;
	struct gpu_sample a, b;
	struct gpu_procs p;
	char err[GS_ERR_LEN];
	assert_int_equal(fake_nvml_sys(&sys, err), 0);
	assert_int_equal(gpu_count(&sys), 2);
	assert_int_equal(gpu_static_info(&sys, 1, &st), 0);
	assert_string_equal(st.vendor, "nvidia");
	assert_true(st.valid & GPU_S_MAX_SM_CLOCK);
	assert_int_equal(st.max_sm_clock_mhz, 1980);
	assert_int_equal(st.shutdown_temp_c, 92);
	assert_false(st.valid & GPU_S_SM_COUNT); /* no attributes symbol: unknown */

	assert_int_equal(gpu_sample(&sys, 0, GPU_WANT_ALL, &a), 0);
	assert_true(a.v[GPU_M_GPU_UTIL] == 100);
	assert_true(a.v[GPU_M_POWER] == 151.0);
	assert_true(a.v[GPU_M_ENERGY] == 123456.789);
	assert_true(a.v[GPU_M_POWER_LIMIT] == 700);
	assert_false(gpu_sample_has(&a, GPU_M_GPM_SM));	  /* one GPM sample is no window */
	assert_false(gpu_sample_has(&a, GPU_M_ECC_CORR)); /* health not asked for */
	assert_int_equal(gpu_sample(&sys, 0, GPU_WANT_BASIC | GPU_WANT_GPM, &b), 0);
	assert_true(b.v[GPU_M_GPM_SM] == 2.5);
	assert_false(gpu_sample_has(&b, GPU_M_PCIE_TX)); /* PCIe not asked for */
	assert_int_equal(gpu_health(&sys, 0, &b), 0);
	assert_true(b.v[GPU_M_ECC_CORR] == 3);
	assert_true(b.v[GPU_M_VIOL_POWER] == 1.5);
	assert_true(b.v[GPU_M_XID_COUNT] == 0);
	assert_false(gpu_sample_has(&b, GPU_M_XID_LAST)); /* no XID yet: unknown, not 0 */

	assert_int_equal(gpu_processes(&sys, 0, &p), 0);
	assert_true(p.valid);
	assert_int_equal(p.n, 1);
	assert_int_equal(p.p[0].pid, 4242);
	assert_true(p.p[0].mem_bytes == 512ULL << 20);
	assert_true((p.p[0].valid & GPU_P_SM) && p.p[0].sm_util == 100);
	assert_int_equal(gpu_processes(&sys, 1, &p), 0);
	assert_true(p.valid);
	assert_int_equal(p.n, 0); /* known to be empty */
	assert_int_equal(gpu_sample(&sys, 2, GPU_WANT_ALL, &a), -1);
	gpu_sys_close(&sys);
	(void)state;
}

/* PCIe throughput from GPM over the whole window where GPM has it (the
 * legacy query samples 20 ms per direction: most of a round on the H200),
 * the legacy query where it has not */
static void pcie_from_gpm(void **state)
{
	struct gpu_sys sys;
	struct gpu_sample s;
	char err[GS_ERR_LEN];
	fake_gpus[0].gpm_pcie_tx = 1000; /* MiB/s */
	fake_gpus[0].gpm_pcie_rx = 10;
	fake_gpus[0].pcie_tx_kbps = 7000;
	fake_gpus[1].gpm_no_pcie = 1;
	fake_gpus[1].pcie_tx_kbps = 7000;
	fake_gpus[1].pcie_rx_kbps = 3000;
	fake_gpus[0].pcie_calls = fake_gpus[1].pcie_calls = 0;
	assert_int_equal(fake_nvml_sys(&sys, err), 0);
	/* the first round has no GPM window: PCIe unknown, not a 40 ms query */
	assert_int_equal(gpu_sample(&sys, 0, GPU_WANT_ALL, &s), 0);
	assert_false(gpu_sample_has(&s, GPU_M_PCIE_TX));
	assert_int_equal(fake_gpus[0].pcie_calls, 0);
	for (int r = 0; r < 3; r++) {
		assert_int_equal(gpu_sample(&sys, 0, GPU_WANT_ALL, &s), 0);
		assert_true(s.v[GPU_M_PCIE_TX] == 1000 * 1.048576); /* MiB/s -> MB/s */
		assert_true(s.v[GPU_M_PCIE_RX] == 10 * 1.048576);
		assert_true(s.v[GPU_M_GPM_SM] == 2.5);
	}
	assert_int_equal(fake_gpus[0].pcie_calls, 0);
	/* GPM without PCIe: the legacy query, each round once it is known */
	assert_int_equal(gpu_sample(&sys, 1, GPU_WANT_ALL, &s), 0);
	assert_int_equal(gpu_sample(&sys, 1, GPU_WANT_ALL, &s), 0);
	assert_true(s.v[GPU_M_PCIE_TX] == 7);
	assert_true(s.v[GPU_M_PCIE_RX] == 3);
	assert_true(s.v[GPU_M_GPM_DRAM] == 88); /* the other GPM metrics stay */
	assert_int_equal(gpu_sample(&sys, 1, GPU_WANT_ALL, &s), 0);
	assert_true(s.v[GPU_M_PCIE_TX] == 7);
	assert_int_equal(fake_gpus[1].pcie_calls, 4);
	/* without GPM asked for: the legacy query at once */
	assert_int_equal(gpu_sample(&sys, 0, GPU_WANT_BASIC | GPU_WANT_PCIE, &s), 0);
	assert_true(s.v[GPU_M_PCIE_TX] == 7);
	gpu_sys_close(&sys);
	(void)state;
}

/* MIG through the vendor layer: the instances of a device in MIG mode with
 * their ids, profile, MIG UUID, memory and per-instance GPM; a device not in
 * MIG mode has none (valid 0, not an empty list) */
static void mig_instances(void **state)
{
	struct gpu_sys sys;
	struct gpu_migs mg;
	char err[GS_ERR_LEN];
	fake_mig_setup();
	assert_int_equal(fake_nvml_sys(&sys, err), 0);
	assert_int_equal(gpu_mig(&sys, 1, &mg), 0);
	assert_false(mg.valid);
	assert_int_equal(mg.n, 0);
	assert_int_equal(gpu_mig(&sys, 0, &mg), 0);
	assert_true(mg.valid);
	assert_int_equal(mg.n, 2); /* MIG index 1 is a gap */
	assert_int_equal(mg.m[0].gi_id, 1);
	assert_int_equal(mg.m[1].gi_id, 5);
	assert_int_equal(mg.m[1].ci_id, 0);
	assert_string_equal(mg.m[0].profile, "3g.71gb");
	assert_string_equal(mg.m[1].profile, "1g.18gb");
	assert_string_equal(mg.m[1].uuid, "MIG-bbbbbbbb-fake");
	assert_true(mg.m[0].s.v[GPU_M_MEM_TOTAL] == (double)(71ULL << 30));
	assert_true(mg.m[1].s.v[GPU_M_MEM_USED] == (double)(512ULL << 20));
	assert_false(gpu_sample_has(&mg.m[0].s, GPU_M_GPM_SM)); /* one sample: no window */
	assert_int_equal(gpu_mig(&sys, 0, &mg), 0);
	assert_true(mg.m[0].s.v[GPU_M_GPM_SM] == 40); /* each instance its own */
	assert_true(mg.m[0].s.v[GPU_M_GPM_DRAM] == 85);
	assert_true(mg.m[1].s.v[GPU_M_GPM_SM] == 3);
	assert_false(gpu_sample_has(&mg.m[1].s, GPU_M_GPU_UTIL)); /* NVML has none per instance */
	/* the whole GPU still reads as before */
	struct gpu_sample s;
	struct gpu_procs p;
	assert_int_equal(gpu_sample(&sys, 0, GPU_WANT_BASIC, &s), 0);
	assert_true(s.v[GPU_M_GPU_UTIL] == 100);
	assert_int_equal(gpu_processes(&sys, 0, &p), 0);
	assert_true(p.p[0].valid & GPU_P_GI);
	assert_int_equal(p.p[0].gpu_instance_id, 5);
	gpu_sys_close(&sys);
	fake_mig_ops = 0;
	(void)state;
}

static void device_count_capped(void **state)
{
	struct gpu_sys sys;
	char err[GS_ERR_LEN], note[GS_ERR_LEN];
	fake_reported_count = 1000000; /* a broken driver or a hostile library */
	assert_int_equal(fake_nvml_sys(&sys, err), 0);
	fake_reported_count = 0;
	assert_int_equal(gpu_count(&sys), GPU_MAX_DEVICES);
	assert_string_equal(gpu_last_error(&sys, note, sizeof(note)),
			    "nvml reports 1000000 gpus; using the first 64; cannot open 56 gpu(s), "
			    "first gpu 8: nvml error 2");
	gpu_sys_close(&sys);
	(void)state;
}

static void xids_from_events(void **state)
{
	struct gpu_sys sys;
	struct gpu_sample h;
	char err[GS_ERR_LEN];
	fake_gpus[0].xids[0] = 79;
	fake_gpus[0].xids[1] = 48;
	fake_gpus[0].n_xids = 2;
	assert_int_equal(fake_nvml_sys(&sys, err), 0);
	memset(&h, 0, sizeof(h));
	assert_int_equal(gpu_health(&sys, 0, &h), 0);
	assert_true(h.v[GPU_M_XID_COUNT] == 2);
	assert_true(h.v[GPU_M_XID_LAST] == 48);
	memset(&h, 0, sizeof(h));
	assert_int_equal(gpu_health(&sys, 1, &h), 0);
	assert_true(h.v[GPU_M_XID_COUNT] == 0);
	memset(&h, 0, sizeof(h));
	assert_int_equal(gpu_health(&sys, 0, &h), 0); /* counted once, kept */
	assert_true(h.v[GPU_M_XID_COUNT] == 2);
	gpu_sys_close(&sys);
	fake_gpus[0].n_xids = 0;
	(void)state;
}

/* Two users, two threads: each one's GPM pairs and XID state are its own. */
static void *reader(void *arg)
{
	int *ok = arg;
	struct gpu_sys sys;
	char err[GS_ERR_LEN];
	*ok = 0;
	if (fake_nvml_sys(&sys, err) < 0)
		return NULL;
	int good = 1;
	for (int round = 0; round < 200; round++) {
		for (unsigned d = 0; d < 2; d++) {
			struct gpu_sample s;
			gpu_sample(&sys, d, GPU_WANT_BASIC | GPU_WANT_GPM, &s);
			/* from the second round on, each device has its own window */
			if (round > 0 && (!gpu_sample_has(&s, GPU_M_GPM_SM) ||
					  s.v[GPU_M_GPM_SM] != fake_gpus[d].gpm_sm))
				good = 0;
		}
	}
	gpu_sys_close(&sys);
	*ok = good;
	return NULL;
}

static void two_systems_two_threads(void **state)
{
	pthread_t t1, t2;
	int ok1, ok2;
	pthread_create(&t1, NULL, reader, &ok1);
	pthread_create(&t2, NULL, reader, &ok2);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	assert_true(ok1);
	assert_true(ok2);
	(void)state;
}

struct counter {
	int calls;
	uint64_t last_seq;
	double last_util;
};
static void count_tick(void *arg, const struct gpu_tick *t)
{
	struct counter *c = arg;
	c->calls++;
	c->last_seq = t->seq;
	c->last_util = t->s[0].v[GPU_M_GPU_UTIL];
}

static void ring_and_subscribers(void **state)
{
	struct gpu_sampler s;
	struct gpu_sample in[2], out[2];
	struct counter c = {0, 0, 0};
	double h[8];
	int64_t ts;
	char err[GS_ERR_LEN];
	assert_int_equal(gpu_sampler_init(&s, 2, 3, err), 0);
	assert_int_equal(gpu_sampler_latest(&s, &ts, out, NULL, NULL), 0);
	assert_int_equal(gpu_sampler_subscribe(&s, count_tick, &c), 0);
	for (int i = 1; i <= 5; i++) {
		memset(in, 0, sizeof(in));
		gpu_sample_set(&in[0], GPU_M_GPU_UTIL, i * 10);
		if (i != 4) /* round 4: device 1's util unknown */
			gpu_sample_set(&in[1], GPU_M_GPU_UTIL, i);
		assert_int_equal(gpu_sampler_push(&s, i * 1000, in, NULL), 0);
	}
	assert_int_equal(c.calls, 5);
	assert_int_equal(c.last_seq, 5);
	assert_true(c.last_util == 50);
	assert_int_equal(gpu_sampler_latest(&s, &ts, out, NULL, NULL), 5);
	assert_int_equal(ts, 5000);
	assert_true(out[1].v[GPU_M_GPU_UTIL] == 5);
	/* the ring holds the last 3, oldest first; unknown is NaN */
	assert_int_equal(gpu_sampler_history(&s, 0, GPU_M_GPU_UTIL, h, 8), 3);
	assert_true(h[0] == 30 && h[1] == 40 && h[2] == 50);
	assert_int_equal(gpu_sampler_history(&s, 1, GPU_M_GPU_UTIL, h, 8), 3);
	assert_true(h[0] == 3 && isnan(h[1]) && h[2] == 5);
	assert_int_equal(gpu_sampler_history(&s, 1, GPU_M_GPU_UTIL, h, 2), 2);
	assert_true(isnan(h[0]) && h[1] == 5);
	assert_int_equal(gpu_sampler_history(&s, 2, GPU_M_GPU_UTIL, h, 8), 0);
	gpu_sampler_release(&s);
	assert_int_equal(gpu_sampler_init(&s, 0, 3, err), -1);
	(void)state;
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void rounds_with_health_and_stop_at_once(void **state)
{
	struct gpu_sys sys;
	struct gpu_sampler s;
	struct gpu_sample out[2];
	struct gpu_procs procs[2];
	struct counter c = {0, 0, 0};
	int have = 0;
	char err[GS_ERR_LEN];
	struct gpu_sampler_opts o = {0.01, GPU_WANT_ALL, 1, 1, 1, 0, 0}; /* one round per 100 s */
	assert_int_equal(fake_nvml_sys(&sys, err), 0);
	assert_int_equal(gpu_sampler_init(&s, gpu_count(&sys), 8, err), 0);
	assert_int_equal(gpu_sampler_subscribe(&s, count_tick, &c), 0);
	assert_int_equal(gpu_sampler_start(&s, &sys, &o, err), 0);
	while (gpu_sampler_latest(&s, NULL, NULL, NULL, NULL) == 0)
		;
	double t0 = now_s();
	gpu_sampler_stop(&s); /* must not sleep out its 100 s period */
	assert_true(now_s() - t0 < 5);
	assert_int_equal(c.calls, 1);
	assert_int_equal(gpu_sampler_latest(&s, NULL, out, procs, &have), 1);
	assert_true(have);
	assert_int_equal(procs[0].n, 1);
	assert_true(out[0].v[GPU_M_PROCESSES] == 1);
	assert_true(out[1].v[GPU_M_PROCESSES] == 0);
	assert_true(out[0].v[GPU_M_SM_CLOCK_MAX] == 1980); /* statics copied in */
	assert_true(out[0].v[GPU_M_ECC_CORR] == 3);	   /* health read */
	assert_true(out[0].real_ns > 0);
	gpu_sampler_release(&s);
	gpu_sys_close(&sys);
	(void)state;
}

/* serve's --counters-interval: the energy counter and the health readings
 * are read on the first round and then at most every slow_s seconds; the
 * rounds between repeat their last values (a counter never disappears
 * from /metrics between two readings) while the fast metrics are read
 * every round. A wrong sampler would read them every round, drop them
 * between readings, or never read them again. */
static void slow_counters_cadence(void **state)
{
	struct gpu_sys sys;
	struct gpu_sampler s;
	struct gpu_sample out[2];
	char err[GS_ERR_LEN];
	struct gpu_sampler_opts o = {1000, GPU_WANT_ALL, 1, 0, 1, 0, 3600};
	assert_int_equal(fake_nvml_sys(&sys, err), 0);
	assert_int_equal(gpu_sampler_init(&s, gpu_count(&sys), 8, err), 0);
	struct fake_gpu *g = &fake_gpus[0];
	unsigned e0 = g->energy_calls, v0 = g->viol_calls;
	unsigned long long mj = g->energy_mj;
	for (int round = 0; round < 5; round++) {
		g->temp = 40 + (unsigned)round;
		g->energy_mj = mj + 1000 * (unsigned long long)round;
		assert_int_equal(gpu_sampler_round(&s, &sys, &o), 0);
		assert_int_not_equal(gpu_sampler_latest(&s, NULL, out, NULL, NULL), 0);
		assert_true(out[0].v[GPU_M_TEMP] == 40 + round); /* fast: every round */
		assert_true(gpu_sample_has(&out[0], GPU_M_ENERGY));
		assert_true(out[0].v[GPU_M_ENERGY] == mj / 1000.0); /* the first reading */
		assert_true(gpu_sample_has(&out[0], GPU_M_ECC_CORR));
		assert_true(out[0].v[GPU_M_VIOL_POWER] == 1.5);
	}
	assert_int_equal(g->energy_calls - e0, 1);
	assert_int_equal(g->viol_calls - v0, 6); /* six policies, once */
	/* due again: read anew */
	s.slow_ns -= 3601000000000LL;
	assert_int_equal(gpu_sampler_round(&s, &sys, &o), 0);
	assert_int_not_equal(gpu_sampler_latest(&s, NULL, out, NULL, NULL), 0);
	assert_true(out[0].v[GPU_M_ENERGY] == (mj + 4000) / 1000.0);
	assert_int_equal(g->energy_calls - e0, 2);
	/* slow_s 0 (record, monitor): every round */
	o.slow_s = 0;
	for (int round = 0; round < 3; round++)
		assert_int_equal(gpu_sampler_round(&s, &sys, &o), 0);
	assert_int_equal(g->energy_calls - e0, 5);
	assert_int_equal(g->viol_calls - v0, 6 * 5);
	gpu_sampler_release(&s);
	gpu_sys_close(&sys);
	(void)state;
}

/* The CUDA driver's version is the system's: asked once per context, not
 * once per GPU (each ask costs ~1 ms of NVML's time on the H200). */
static void cuda_version_once(void **state)
{
	struct gpu_sys sys;
	struct gpu_static st;
	char err[GS_ERR_LEN];
	assert_int_equal(fake_nvml_sys(&sys, err), 0);
	unsigned c0 = fake_cuda_calls;
	assert_int_equal(gpu_static_info(&sys, 0, &st), 0);
	assert_true((st.valid & GPU_S_CUDA_DRIVER) && st.cuda_driver_version == 13000);
	assert_int_equal(gpu_static_info(&sys, 1, &st), 0);
	assert_true((st.valid & GPU_S_CUDA_DRIVER) && st.cuda_driver_version == 13000);
	assert_int_equal(fake_cuda_calls - c0, 1);
	gpu_sys_close(&sys);
	(void)state;
}

/* record's rows: only the registry's record metrics, in their old order */
static void record_rows(void **state)
{
	struct gpu_sys sys;
	struct sampler s;
	struct trace t;
	char err[GS_ERR_LEN];
	assert_int_equal(fake_nvml_sys(&sys, err), 0);
	assert_int_equal(sampler_start_on(&s, &sys, 1000, err), 0);
	struct timespec ts = {0, 30 * 1000000L};
	nanosleep(&ts, NULL);
	sampler_stop(&s);
	assert_true(s.n_points > 0);
	trace_init(&t);
	assert_int_equal(sampler_to_trace(&s, &t, 5), 0);
	/* the string table holds the 15 record names, in registry order, after "" */
	assert_int_equal(t.n_strings, 16);
	for (unsigned m = 0; m < 15; m++)
		assert_string_equal(t.strings[m + 1], gpu_metrics[m].trace_name);
	int seen_gpm = 0;
	for (size_t i = 0; i < t.n_samples; i++) {
		int m = gpu_metric_by_trace_name(trace_str(&t, t.samples[i].metric_id));
		assert_true(m >= 0 && (gpu_metrics[m].flags & GPU_MF_RECORD));
		assert_true(t.samples[i].device < 2);
		assert_int_equal(t.samples[i].ts_ns, s.points[i].real_ns + 5);
		if (i > 0 && t.samples[i].ts_ns == t.samples[i - 1].ts_ns &&
		    t.samples[i].device == t.samples[i - 1].device)
			assert_true(m > gpu_metric_by_trace_name(
					    trace_str(&t, t.samples[i - 1].metric_id)));
		seen_gpm |= m == GPU_M_GPM_SM;
	}
	assert_true(seen_gpm);
	trace_release(&t);
	sampler_release(&s);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(registry_invariants),
	    cmocka_unit_test_setup(readings_and_unknowns, setup),
	    cmocka_unit_test_setup(pcie_from_gpm, setup),
	    cmocka_unit_test_setup(mig_instances, setup),
	    cmocka_unit_test_setup(device_count_capped, setup),
	    cmocka_unit_test_setup(xids_from_events, setup),
	    cmocka_unit_test_setup(two_systems_two_threads, setup),
	    cmocka_unit_test(ring_and_subscribers),
	    cmocka_unit_test_setup(rounds_with_health_and_stop_at_once, setup),
	    cmocka_unit_test_setup(slow_counters_cadence, setup),
	    cmocka_unit_test_setup(cuda_version_once, setup),
	    cmocka_unit_test_setup(record_rows, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
