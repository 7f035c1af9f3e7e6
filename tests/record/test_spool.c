/*
 * test_spool.c - the spool reader (trace/spool.c) on frames built with the
 * writer's own helper (spool_put): round trip of every record kind, NVTX
 * pairing and depth, a truncated tail, corrupt framing, absurd sizes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "trace/spool.h"
#include "trace/trace.h"
#include "util/error.h"

struct buf {
	char data[65536];
	size_t pos;
};

static void header(struct buf *b, uint32_t pid)
{
	struct spool_file_header h;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, SPOOL_MAGIC, 8);
	h.version = SPOOL_VERSION;
	h.header_len = sizeof(h);
	h.pid = pid;
	h.ppid = 1;
	h.cmdline_len = 8;
	h.clock_cupti_ns = 1000;
	h.clock_real_ns = 5000;
	memcpy(b->data, &h, sizeof(h));
	memcpy(b->data + sizeof(h), "prog\0-x\0", 8);
	b->pos = sizeof(h) + 8;
}

static void str(struct buf *b, uint32_t id, const char *s)
{
	struct spool_string ss = {id};
	assert_int_equal(spool_put(b->data, sizeof(b->data), &b->pos, SPOOL_STRING, &ss, sizeof(ss),
				   s, (uint32_t)strlen(s)),
			 0);
}

static void put(struct buf *b, uint16_t type, const void *p, uint32_t len)
{
	assert_int_equal(spool_put(b->data, sizeof(b->data), &b->pos, type, p, len, NULL, 0), 0);
}

static void build(struct buf *b)
{
	header(b, 42);
	/* the kernel uses name 1 before the string record arrives */
	struct spool_kernel k = {.start = 2000,
				 .end = 3000,
				 .device = 0,
				 .stream = 7,
				 .correlation = 9,
				 .name_id = 1,
				 .grid = {4, 1, 1},
				 .block = {128, 1, 1},
				 .regs = 32,
				 .graph_id = 5};
	put(b, SPOOL_KERNEL, &k, sizeof(k));
	str(b, 1, "my_kernel");
	str(b, 2, "cudaLaunchKernel");
	str(b, 3, "outer");
	str(b, 4, "inner");
	struct spool_api a = {1900, 1990, 77, 9, 2, 0, SPOOL_API_RUNTIME, 211};
	put(b, SPOOL_API, &a, sizeof(a));
	struct spool_copy c = {.start = 3100,
			       .end = 3200,
			       .bytes = 4096,
			       .cupti_kind = 1,
			       .src_kind = 1,
			       .dst_kind = 3};
	put(b, SPOOL_COPY, &c, sizeof(c));
	struct spool_marker m1 = {1500, 10, SPOOL_MARKER_START, 3, 0, 77, 1};
	struct spool_marker m2 = {1600, 11, SPOOL_MARKER_START, 4, 0, 77, 1};
	struct spool_marker m3 = {2500, 11, SPOOL_MARKER_END, 0, 0, 77, 1};
	struct spool_marker m4 = {3500, 10, SPOOL_MARKER_END, 0, 0, 77, 1};
	put(b, SPOOL_MARKER, &m1, sizeof(m1));
	put(b, SPOOL_MARKER, &m2, sizeof(m2));
	put(b, SPOOL_MARKER, &m3, sizeof(m3));
	put(b, SPOOL_MARKER, &m4, sizeof(m4));
	/* a counter of the kernel's launch (correlation 9); its metric name
	 * string comes after it */
	struct spool_counter ct = {9, 6, 87.5};
	put(b, SPOOL_COUNTER, &ct, sizeof(ct));
	str(b, 6, "dram__throughput.avg.pct_of_peak_sustained_elapsed");
	/* PM sampling windows (record --metrics pm): device 1, names after;
	 * a NaN value is left out */
	struct spool_sample pm[] = {{2100, 1, 7, 93.25}, {2200, 1, 8, 4.5}, {2300, 1, 7, NAN}};
	for (size_t i = 0; i < sizeof(pm) / sizeof(pm[0]); i++)
		put(b, SPOOL_SAMPLE, &pm[i], sizeof(pm[i]));
	str(b, 7, "pm_dram_throughput");
	str(b, 8, "pm_tensor_active");
	struct spool_stats s = {.dropped = 3, .overhead_ns = 12345, .last_ts = 4000};
	put(b, SPOOL_STATS, &s, sizeof(s));
}

/* the frame a process writes after its last flush (spool.h, invariant 6) */
static void end(struct buf *b, int64_t ts)
{
	struct spool_end e = {ts, SPOOL_END_QUICK_EXIT, 0};
	put(b, SPOOL_END, &e, sizeof(e));
}

static void test_round_trip(void **state)
{
	struct buf *b = malloc(sizeof(*b));
	build(b);
	end(b, 5000);
	struct trace t;
	trace_init(&t);
	char err[GS_ERR_LEN];
	struct spool_clock clk;
	assert_int_equal(spool_read_buffer(&t, b->data, b->pos, &clk, err), 0);
	assert_int_equal(clk.real_ns, 5000);
	assert_int_equal(t.n_kernels, 1);
	assert_string_equal(trace_str(&t, t.kernels[0].name_id), "my_kernel");
	assert_int_equal(t.kernels[0].pid, 42);
	assert_int_equal(t.kernels[0].graph_id, 5);
	assert_int_equal(t.kernels[0].block[0], 128);
	assert_int_equal(t.n_apis, 1);
	assert_int_equal(t.apis[0].kind, API_LAUNCH);
	assert_int_equal(t.n_copies, 1);
	assert_int_equal(t.copies[0].kind, COPY_HTOD);
	assert_int_equal(t.copies[0].src_kind, MEM_PAGEABLE);
	assert_int_equal(t.n_ranges, 2);
	/* inner closes first */
	assert_string_equal(trace_str(&t, t.ranges[0].name_id), "inner");
	assert_int_equal(t.ranges[0].depth, 1);
	assert_int_equal(t.ranges[1].depth, 0);
	assert_int_equal(t.ranges[1].end_ns, 3500);
	assert_int_equal(t.n_processes, 1);
	assert_int_equal(t.processes[0].dropped_records, 3);
	assert_int_equal(t.processes[0].overhead_ns, 12345);
	assert_string_equal(trace_str(&t, t.processes[0].cmdline_id), "prog -x");
	assert_string_equal(trace_str(&t, t.processes[0].status_id), "");
	/* the process lasted until its END frame */
	assert_int_equal(t.processes[0].end_ns, 5000);
	assert_int_equal(t.n_counters, 1);
	assert_int_equal(t.counters[0].pid, 42);
	assert_int_equal(t.counters[0].correlation, 9);
	assert_string_equal(trace_str(&t, t.counters[0].metric_id),
			    "dram__throughput.avg.pct_of_peak_sustained_elapsed");
	assert_true(t.counters[0].value == 87.5);
	assert_int_equal(t.n_samples, 2);
	assert_int_equal(t.samples[0].ts_ns, 2100);
	assert_int_equal(t.samples[0].device, 1);
	assert_string_equal(trace_str(&t, t.samples[0].metric_id), "pm_dram_throughput");
	assert_true(t.samples[0].value == 93.25);
	assert_string_equal(trace_str(&t, t.samples[1].metric_id), "pm_tensor_active");
	assert_true(t.samples[1].value == 4.5);
	trace_release(&t);
	free(b);
}

/* No END frame: the process was killed, crashed or still ran; the status
 * says that the tail is missing, and that all of it is when nothing came. */
static void test_no_end(void **state)
{
	struct buf *b = malloc(sizeof(*b));
	build(b);
	struct trace t;
	trace_init(&t);
	char err[GS_ERR_LEN];
	assert_int_equal(spool_read_buffer(&t, b->data, b->pos, NULL, err), 0);
	assert_int_equal(t.n_kernels, 1);
	const char *st = trace_str(&t, t.processes[0].status_id);
	assert_non_null(strstr(st, "ended without gpuscope's last flush"));
	assert_non_null(strstr(st, "after its last periodic flush"));
	trace_release(&t);

	header(b, 8);
	trace_init(&t);
	assert_int_equal(spool_read_buffer(&t, b->data, b->pos, NULL, err), 0);
	st = trace_str(&t, t.processes[0].status_id);
	assert_non_null(strstr(st, "ended before gpuscope's first flush"));
	assert_null(strstr(st, "no CUDA activity"));
	trace_release(&t);
	free(b);
}

static void test_truncated_tail(void **state)
{
	struct buf *b = malloc(sizeof(*b));
	build(b);
	struct trace t;
	trace_init(&t);
	char err[GS_ERR_LEN];
	/* cut the stats frame in half: everything before it survives */
	assert_int_equal(spool_read_buffer(&t, b->data, b->pos - 20, NULL, err), 0);
	assert_int_equal(t.n_kernels, 1);
	assert_int_equal(t.processes[0].dropped_records, 0);
	trace_release(&t);
	free(b);
}

static void test_corrupt(void **state)
{
	struct buf *b = malloc(sizeof(*b));
	build(b);
	struct trace t;
	char err[GS_ERR_LEN];
	size_t first = sizeof(struct spool_file_header) + 8;
	/* absurd frame length */
	struct spool_frame f = {SPOOL_KERNEL, 0, 0x7fffffff};
	memcpy(b->data + first, &f, sizeof(f));
	trace_init(&t);
	assert_int_equal(spool_read_buffer(&t, b->data, b->pos, NULL, err), -1);
	assert_non_null(strstr(err, "corrupt"));
	assert_int_equal(t.n_processes, 0);
	trace_release(&t);
	/* a kernel frame too short for its struct */
	build(b);
	f = (struct spool_frame){SPOOL_KERNEL, 0, 8};
	memcpy(b->data + first, &f, sizeof(f));
	trace_init(&t);
	assert_int_equal(spool_read_buffer(&t, b->data, b->pos, NULL, err), -1);
	trace_release(&t);
	/* bad magic, short file, absurd command line */
	build(b);
	b->data[0] = 'X';
	trace_init(&t);
	assert_int_equal(spool_read_buffer(&t, b->data, b->pos, NULL, err), -1);
	assert_int_equal(spool_read_buffer(&t, b->data, 10, NULL, err), -1);
	build(b);
	struct spool_file_header h;
	memcpy(&h, b->data, sizeof(h));
	h.cmdline_len = 0xffffffffu;
	memcpy(b->data, &h, sizeof(h));
	assert_int_equal(spool_read_buffer(&t, b->data, b->pos, NULL, err), -1);
	trace_release(&t);
	free(b);
}

static void test_writer_bounds(void **state)
{
	char small[16];
	size_t pos = 0;
	struct spool_kernel k = {0};
	assert_int_equal(
	    spool_put(small, sizeof(small), &pos, SPOOL_KERNEL, &k, sizeof(k), NULL, 0), -1);
	assert_int_equal(pos, 0);
}

static void test_empty_process(void **state)
{
	struct buf *b = malloc(sizeof(*b));
	header(b, 7);
	end(b, 2000);
	struct trace t;
	trace_init(&t);
	char err[GS_ERR_LEN];
	assert_int_equal(spool_read_buffer(&t, b->data, b->pos, NULL, err), 0);
	assert_string_equal(trace_str(&t, t.processes[0].status_id),
			    "no CUDA activity (the program never initialised CUDA, or CUPTI could "
			    "not attach)");
	trace_release(&t);
	free(b);
}

/* The rank variables (SPOOL_ENV): torchrun's RANK wins over Slurm's
 * SLURM_PROCID, Open MPI's local rank is taken when LOCAL_RANK is absent,
 * a non-number is no rank; the values land in meta keyed by the pid. */
static void test_env_rank(void **state)
{
	(void)state;
	struct buf *b = malloc(sizeof(*b));
	header(b, 77);
	static const char env[] = "SLURM_PROCID=5\0RANK=3\0OMPI_COMM_WORLD_LOCAL_RANK=1\0"
				  "WORLD_SIZE=8x\0SLURM_NTASKS=16";
	put(b, SPOOL_ENV, env, sizeof(env) - 1); /* the last one without its NUL */
	end(b, 2000);
	struct trace t;
	trace_init(&t);
	char err[GS_ERR_LEN];
	assert_int_equal(spool_read_buffer(&t, b->data, b->pos, NULL, err), 0);
	assert_string_equal(trace_get_meta(&t, "rank.77"), "3");
	assert_string_equal(trace_get_meta(&t, "local_rank.77"), "1");
	assert_string_equal(trace_get_meta(&t, "world_size.77"), "16");
	assert_null(trace_get_meta(&t, "rank.42"));
	trace_release(&t);
	free(b);
}

/* Sync rows from the synchronizing API calls (CUPTI's synchronization kind
 * is off by default): one per sync call, of the right kind, none where
 * CUPTI's own record (same pid and correlation) is there, none twice. */
static void sync_process(struct buf *b, uint32_t pid, int with_cupti_sync)
{
	header(b, pid);
	str(b, 1, "cudaStreamSynchronize_v3020");
	str(b, 2, "cuCtxSynchronize");
	str(b, 3, "cudaEventSynchronize_v3020");
	str(b, 4, "cudaLaunchKernel_v7000");
	str(b, 5, "cudaStreamWaitEvent_v3020");
	struct spool_api a1 = {1000, 1500, 77, 10, 1, 0, SPOOL_API_RUNTIME, 131};
	struct spool_api a2 = {2000, 2600, 77, 11, 2, 0, SPOOL_API_DRIVER, 17};
	struct spool_api a3 = {3000, 3700, 77, 12, 3, 0, SPOOL_API_RUNTIME, 133};
	struct spool_api a4 = {4000, 4010, 77, 13, 4, 0, SPOOL_API_RUNTIME, 211};
	struct spool_api a5 = {5000, 5010, 77, 14, 5, 0, SPOOL_API_RUNTIME, 147};
	put(b, SPOOL_API, &a1, sizeof(a1));
	put(b, SPOOL_API, &a2, sizeof(a2));
	put(b, SPOOL_API, &a3, sizeof(a3));
	put(b, SPOOL_API, &a4, sizeof(a4));
	put(b, SPOOL_API, &a5, sizeof(a5));
	if (with_cupti_sync) {
		struct spool_sync y = {3010, 3690, 1, 7, 12, SYNC_EVENT};
		put(b, SPOOL_SYNC, &y, sizeof(y));
	}
}

static void test_api_syncs(void **state)
{
	struct buf *b = malloc(sizeof(*b));
	struct trace t;
	trace_init(&t);
	char err[GS_ERR_LEN];
	sync_process(b, 42, 1);
	assert_int_equal(spool_read_buffer(&t, b->data, b->pos, NULL, err), 0);
	/* another process, the same correlation ids, no CUPTI sync record */
	sync_process(b, 43, 0);
	assert_int_equal(spool_read_buffer(&t, b->data, b->pos, NULL, err), 0);
	assert_int_equal(t.n_syncs, 1);
	/* pid 42: stream + context (the event sync has CUPTI's row); pid 43: all 3 */
	assert_int_equal(trace_add_api_syncs(&t), 5);
	assert_int_equal(t.n_syncs, 6);
	assert_int_equal(trace_add_api_syncs(&t), 0);
	int by_pid_kind[2][5] = {{0}};
	for (size_t i = 0; i < t.n_syncs; i++) {
		const struct trace_sync *y = &t.syncs[i];
		assert_true(y->pid == 42 || y->pid == 43);
		assert_true(y->kind < 5);
		by_pid_kind[y->pid - 42][y->kind]++;
		if (y->stream == 7) /* CUPTI's own row, untouched */
			continue;
		assert_int_equal(y->stream, UINT32_MAX);
		if (y->kind == SYNC_CONTEXT) {
			assert_int_equal(y->start_ns, 2000);
			assert_int_equal(y->end_ns, 2600);
			assert_int_equal(y->correlation, 11);
		}
	}
	assert_int_equal(by_pid_kind[0][SYNC_STREAM], 1);
	assert_int_equal(by_pid_kind[0][SYNC_CONTEXT], 1);
	assert_int_equal(by_pid_kind[0][SYNC_EVENT], 1);
	assert_int_equal(by_pid_kind[1][SYNC_STREAM], 1);
	assert_int_equal(by_pid_kind[1][SYNC_CONTEXT], 1);
	assert_int_equal(by_pid_kind[1][SYNC_EVENT], 1);
	/* a launch and a stream wait (not a Synchronize call) give no row */
	assert_int_equal(by_pid_kind[0][SYNC_STREAM_WAIT_EVENT] + by_pid_kind[1][SYNC_UNKNOWN], 0);
	assert_int_equal(sync_kind_from_name("cuStreamSynchronize_ptsz"), SYNC_STREAM);
	assert_int_equal(sync_kind_from_name("cudaDeviceSynchronize_v3020"), SYNC_CONTEXT);
	assert_int_equal(sync_kind_from_name("Stream Wait Event"), SYNC_STREAM_WAIT_EVENT);
	assert_int_equal(sync_kind_from_name("cudaMemcpy"), SYNC_UNKNOWN);
	trace_release(&t);
	free(b);
}

/* Unified-memory records (SPOOL_UVM): the GPU each concerns taken from the
 * right end, instants ending where they start, unknown counters skipped;
 * the note (SPOOL_NOTE) in meta once for the recording: a refusal replaces
 * "recorded", the first refusal stays, unknown keys are not meta. */
static void note(struct buf *b, const char *key, const char *value)
{
	char text[256];
	size_t kl = strlen(key) + 1, vl = strlen(value);
	memcpy(text, key, kl);
	memcpy(text + kl, value, vl);
	put(b, SPOOL_NOTE, text, (uint32_t)(kl + vl));
}

static void uvm_process(struct buf *b, uint32_t pid, const char *note_value)
{
	header(b, pid);
	note(b, SPOOL_NOTE_UVM, note_value);
	end(b, 9000);
}

static void test_uvm_records(void **state)
{
	(void)state;
	struct buf *b = malloc(sizeof(*b));
	header(b, 55);
	note(b, SPOOL_NOTE_UVM, SPOOL_NOTE_UVM_ON);
	note(b, "source", "pytorch"); /* not a note this reader knows */
	const struct spool_uvm u[] = {
	    {2000, 2500, 2 << 20, 0x7f00, UVM_HTOD, UVM_CPU, 0, UVM_CAUSE_COHERENCE},
	    {2600, 2700, 1 << 20, 0x7f00, UVM_DTOH, 1, UVM_CPU, UVM_CAUSE_USER},
	    {2800, 0, 0x401000, 0x7f00, UVM_CPU_FAULT, UVM_CPU, UVM_CPU, 2},
	    {2900, 0, 4096, 0x7f00, UVM_THRASHING, 1u << 2, 0, 0},
	    {3000, 3400, 5, 0x7f00, UVM_GPU_FAULT, 0, UVM_CPU, 1},
	    {3500, 0, 4096, 0x7f00, UVM_REMOTE_MAP, 3, UVM_CPU, 1},
	    {3600, 3700, 1, 0x7f00, 0, 0, 0, 0},  /* unknown kind */
	    {3600, 3700, 1, 0x7f00, 99, 0, 0, 0}, /* a newer counter */
	};
	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++)
		put(b, SPOOL_UVM, &u[i], sizeof(u[i]));
	end(b, 9000);
	struct trace t;
	trace_init(&t);
	char err[GS_ERR_LEN];
	assert_int_equal(spool_read_buffer(&t, b->data, b->pos, NULL, err), 0);
	assert_int_equal(t.n_uvm, 6);
	static const uint32_t device[] = {0, 1, UVM_CPU, 2, 0, 3};
	for (size_t i = 0; i < 6; i++) {
		assert_int_equal(t.uvm[i].kind, u[i].kind);
		assert_int_equal(t.uvm[i].device, device[i]);
		assert_int_equal(t.uvm[i].pid, 55);
		assert_int_equal(t.uvm[i].start_ns, (int64_t)u[i].start);
		assert_int_equal(t.uvm[i].value, u[i].value);
		assert_int_equal(t.uvm[i].flags, u[i].flags);
		assert_int_equal(t.uvm[i].src, u[i].src);
	}
	assert_int_equal(t.uvm[0].end_ns, 2500);
	assert_int_equal(t.uvm[2].end_ns, 2800); /* an instant */
	assert_int_equal(t.uvm[5].end_ns, 3500);
	assert_string_equal(trace_get_meta(&t, SPOOL_NOTE_UVM), SPOOL_NOTE_UVM_ON);
	assert_null(trace_get_meta(&t, "source"));
	/* more processes of the same recording */
	uvm_process(b, 56, "not recorded: CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED");
	assert_int_equal(spool_read_buffer(&t, b->data, b->pos, NULL, err), 0);
	uvm_process(b, 57, SPOOL_NOTE_UVM_ON);
	assert_int_equal(spool_read_buffer(&t, b->data, b->pos, NULL, err), 0);
	uvm_process(b, 58, "not recorded: another reason");
	assert_int_equal(spool_read_buffer(&t, b->data, b->pos, NULL, err), 0);
	assert_string_equal(trace_get_meta(&t, SPOOL_NOTE_UVM),
			    "not recorded: CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED");
	/* a record shorter than struct spool_uvm is corrupt */
	header(b, 59);
	put(b, SPOOL_UVM, &u[0], sizeof(u[0]) - 4);
	assert_int_equal(spool_read_buffer(&t, b->data, b->pos, NULL, err), -1);
	assert_non_null(strstr(err, "too short"));
	trace_release(&t);
	free(b);
}

/* CUDA_LAUNCH_BLOCKING's note: the first process's value in meta, later
 * ones (and uvm's rule of refusals) do not replace it */
static void test_launch_blocking_note(void **state)
{
	(void)state;
	struct buf *b = malloc(sizeof(*b));
	header(b, 60);
	note(b, SPOOL_NOTE_LAUNCH_BLOCKING, "1");
	end(b, 9000);
	struct trace t;
	trace_init(&t);
	char err[GS_ERR_LEN];
	assert_int_equal(spool_read_buffer(&t, b->data, b->pos, NULL, err), 0);
	assert_string_equal(trace_get_meta(&t, SPOOL_NOTE_LAUNCH_BLOCKING), "1");
	assert_null(trace_get_meta(&t, SPOOL_NOTE_UVM));
	/* another process of the recording, with another value: the first stays */
	header(b, 61);
	note(b, SPOOL_NOTE_LAUNCH_BLOCKING, "yes");
	end(b, 9000);
	assert_int_equal(spool_read_buffer(&t, b->data, b->pos, NULL, err), 0);
	assert_string_equal(trace_get_meta(&t, SPOOL_NOTE_LAUNCH_BLOCKING), "1");
	trace_release(&t);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip),	   cmocka_unit_test(test_no_end),
	    cmocka_unit_test(test_truncated_tail), cmocka_unit_test(test_corrupt),
	    cmocka_unit_test(test_writer_bounds),  cmocka_unit_test(test_empty_process),
	    cmocka_unit_test(test_api_syncs),	   cmocka_unit_test(test_env_rank),
	    cmocka_unit_test(test_uvm_records),	   cmocka_unit_test(test_launch_blocking_note),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
