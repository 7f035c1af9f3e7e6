/*
 * test_comm.c - communication across ranks (src/analyze/comm.c) on a
 * two-rank trace built in memory: rank 1 computes 5 ms longer each step,
 * so rank 0 waits in every all-reduce; rank 0 also computes on a side
 * stream during part of its all-reduce (overlap). A single-GPU trace with
 * no NCCL kernel has no communication.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "analyze/comm.h"
#include "trace/trace.h"

#define MS 1000000LL

static void k(struct trace *t, uint32_t pid, uint32_t dev, int64_t s, int64_t e, const char *name)
{
	struct trace_kernel *x = trace_add_kernel(t);
	x->pid = pid;
	x->device = dev;
	x->start_ns = s;
	x->end_ns = e;
	x->name_id = trace_intern(t, name);
}

static void build(struct trace *t)
{
	trace_init(t);
	const char *ar =
	    "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
	for (int step = 0; step < 3; step++) {
		int64_t s = 100 * MS * step;
		k(t, 100, 0, s, s + 10 * MS, "gemm");
		k(t, 100, 0, s + 10 * MS, s + 25 * MS, ar);
		k(t, 100, 0, s + 20 * MS, s + 22 * MS, "side_kernel");
		k(t, 200, 1, s, s + 15 * MS, "gemm");
		k(t, 200, 1, s + 15 * MS, s + 25 * MS, ar);
	}
	trace_set_meta(t, "rank.100", "0");
	trace_set_meta(t, "rank.200", "1");
	trace_sort(t);
}

static void test_two_ranks(void **state)
{
	(void)state;
	struct trace t;
	build(&t);
	struct comm_stats c;
	char err[256];
	assert_int_equal(comm_analyze(&c, &t, err), 0);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.r[0].rank, 0);
	assert_int_equal(c.r[0].pid, 100);
	assert_int_equal(c.r[1].rank, 1);
	assert_int_equal(c.r[0].collectives, 3);
	assert_int_equal(c.r[0].comm_ns, 45 * MS);
	assert_int_equal(c.r[0].overlap_ns, 6 * MS);
	assert_int_equal(c.r[0].exposed_ns, 39 * MS);
	assert_int_equal(c.r[0].compute_ns, 36 * MS);
	assert_int_equal(c.r[1].compute_ns, 45 * MS);
	assert_int_equal(c.r[1].exposed_ns, 30 * MS);
	assert_int_equal(c.matched, 3);
	assert_int_equal(c.r[0].wait_ns, 15 * MS);
	assert_int_equal(c.r[1].wait_ns, 0);
	assert_int_equal(c.straggler, 1);
	assert_int_equal(c.r[1].last_to_arrive, 3);
	assert_int_equal(c.r[1].late_ns, 15 * MS);
	assert_true(c.imbalance > 9.0 / 40.5 - 1e-9 && c.imbalance < 9.0 / 40.5 + 1e-9);
	assert_string_equal(c.top_kind, "AllReduce");
	comm_release(&c);
	trace_release(&t);
}

/* Without rank numbers the ranks are numbered by pid order. */
static void test_ranks_by_pid(void **state)
{
	(void)state;
	struct trace t;
	trace_init(&t);
	k(&t, 300, 1, 0, 10 * MS, "ncclKernel_AllGather_RING_LL_Sum_int8_t");
	k(&t, 200, 0, 0, 10 * MS, "ncclKernel_AllGather_RING_LL_Sum_int8_t");
	trace_sort(&t);
	struct comm_stats c;
	char err[256];
	assert_int_equal(comm_analyze(&c, &t, err), 0);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.r[0].pid, 200);
	assert_int_equal(c.r[0].rank, 0);
	assert_int_equal(c.r[1].rank, 1);
	assert_int_equal(c.straggler, -1); /* nobody waited */
	comm_release(&c);
	trace_release(&t);
}

static void test_no_comm(void **state)
{
	(void)state;
	struct trace t;
	trace_init(&t);
	k(&t, 1, 0, 0, 10 * MS, "gemm");
	struct comm_stats c;
	char err[256];
	assert_int_equal(comm_analyze(&c, &t, err), 0);
	assert_int_equal(c.n, 0);
	char b[16];
	assert_string_equal(comm_kind("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL", b, sizeof(b)),
			    "ReduceScatter");
	assert_false(comm_is_kernel("void at::native::elementwise_kernel<128, 2>"));
	comm_release(&c);
	trace_release(&t);
}

static void range(struct trace *t, uint32_t pid, uint32_t tid, int64_t s, int64_t e,
		  const char *name)
{
	struct trace_range *r = trace_add_range(t);
	r->pid = pid;
	r->tid = tid;
	r->start_ns = s;
	r->end_ns = e;
	r->name_id = trace_intern(t, name);
	r->kind = RANGE_ANNOTATION;
}

/* gloo: no NCCL kernel, the collective is a host range of the process; a
 * range nested in it (PyTorch's own, on the gloo thread) is not a second
 * collective; a range of another name is not communication. */
static void test_host_collectives(void **state)
{
	(void)state;
	struct trace t;
	trace_init(&t);
	for (int step = 0; step < 4; step++) {
		int64_t s = 100 * MS * step;
		k(&t, 10, 0, s, s + 10 * MS, "gemm");
		range(&t, 10, 1, s + 10 * MS, s + 32 * MS, "gloo:all_reduce");
		range(&t, 10, 2, s + 11 * MS, s + 31 * MS, "c10d::allreduce_");
		range(&t, 10, 1, s + 40 * MS, s + 50 * MS, "optimizer.step");
		k(&t, 20, 0, s, s + 30 * MS, "gemm");
		range(&t, 20, 1, s + 30 * MS, s + 32 * MS, "gloo:all_reduce");
	}
	trace_set_meta(&t, "rank.10", "0");
	trace_set_meta(&t, "rank.20", "1");
	trace_sort(&t);
	struct comm_stats c;
	char err[256];
	assert_int_equal(comm_analyze(&c, &t, err), 0);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.r[0].collectives, 4);
	assert_int_equal(c.r[0].comm_ns, 4 * 22 * MS);
	assert_int_equal(c.r[0].exposed_ns, 4 * 22 * MS);
	assert_int_equal(c.r[0].wait_ns, 4 * 20 * MS);
	assert_int_equal(c.matched, 4);
	assert_int_equal(c.straggler, 1);
	assert_int_equal(c.r[1].late_ns, 4 * 20 * MS);
	comm_release(&c);
	trace_release(&t);
	char b[16];
	assert_string_equal(comm_kind("gloo:all_reduce", b, sizeof(b)), "AllReduce");
	assert_string_equal(comm_kind("c10d::_reduce_scatter_base_", b, sizeof(b)),
			    "ReduceScatter");
	assert_string_equal(comm_kind("nccl:all_gather_into_tensor", b, sizeof(b)), "AllGather");
	assert_true(comm_is_host_range("gloo:broadcast"));
	assert_false(comm_is_host_range("aten::all_reduce_like_name"));
	assert_false(comm_is_host_range("gloo:unknown_op"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_two_ranks),
	    cmocka_unit_test(test_ranks_by_pid),
	    cmocka_unit_test(test_no_comm),
	    cmocka_unit_test(test_host_collectives),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
