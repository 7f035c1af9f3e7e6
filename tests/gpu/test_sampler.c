/*
 * test_sampler.c - the GPU sampler's schedule: rounds start on a fixed grid,
 * so a slow round (the H200's PCIe throughput queries take ~45 ms of a
 * 100 ms period) does not lower the rate, and an overrun skips ticks instead
 * of bunching rounds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "gpu/sampler.h"

static void test_next_tick(void **state)
{
	const long long P = 100000000; /* 10 Hz */
	/* a 45 ms round: the next one starts at the tick, not 145 ms later */
	assert_true(gpu_sampler_next_tick(0, P, 45000000) == P);
	/* exactly on a tick: the following one */
	assert_true(gpu_sampler_next_tick(0, P, P) == 2 * P);
	/* a 250 ms round overran two ticks: the next free one, no catch-up burst */
	assert_true(gpu_sampler_next_tick(0, P, 250000000) == 3 * P);
	/* on a grid that does not start at 0 */
	assert_true(gpu_sampler_next_tick(1000, P, 1000 + P / 2) == 1000 + P);
	/* 1000 rounds of 45 ms each: 1000 ticks, so the rate stays 10 Hz */
	long long t = 0;
	for (int i = 0; i < 1000; i++)
		t = gpu_sampler_next_tick(0, P, t + 45000000);
	assert_true(t == 1000 * P);
	/* degenerate input: no division by zero, no going back */
	assert_true(gpu_sampler_next_tick(5, 0, 100) == 5);
	assert_true(gpu_sampler_next_tick(500, P, 100) == 500);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_next_tick),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
