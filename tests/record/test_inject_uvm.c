/*
 * test_inject_uvm.c - the injected library's "uvm" kind (src/inject/uvm.c)
 * against a fake CUPTI: what it configures and enables, and the one note
 * it leaves when the driver takes the counters, some of them, none, or is
 * not ready yet; the note read back by the spool reader as the meta key
 * uvm_counters. Never a failure of the recording. Built where the CUDA
 * toolkit's cupti.h is found (skipped otherwise: the library is not built
 * there either).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#if __has_include(<cupti.h>)
#define HAVE_CUPTI 1
#include "../../src/inject/uvm.c"
#include "trace/trace.h"
#include "util/error.h"

struct inject_state inj = {.fd = -1, .capture_lock = PTHREAD_MUTEX_INITIALIZER};

/* the fake CUPTI: which counter kinds it takes, what it answers */
static struct {
	CUptiResult all;       /* to a configuration of several counters */
	unsigned refuse;       /* counter kinds (bits) refused one by one */
	CUptiResult one;       /* the answer for those */
	CUptiResult enable;    /* to cuptiActivityEnable */
	int configured[16];    /* kinds configured on, the last call */
	int enables, disables; /* calls */
	char spool[8192];      /* what the library wrote */
	size_t pos;
} fake;

CUptiResult CUPTIAPI
cuptiActivityConfigureUnifiedMemoryCounter(CUpti_ActivityUnifiedMemoryCounterConfig *c, uint32_t n)
{
	if (n > 1 && fake.all != CUPTI_SUCCESS)
		return fake.all;
	for (uint32_t i = 0; i < n; i++)
		if (n == 1 && (fake.refuse >> c[i].kind & 1))
			return fake.one;
	for (uint32_t i = 0; i < n; i++)
		fake.configured[c[i].kind] = (int)c[i].enable;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind k)
{
	assert_int_equal(k, CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER);
	fake.enables++;
	return fake.enable;
}

CUptiResult CUPTIAPI cuptiActivityDisable(CUpti_ActivityKind k)
{
	assert_int_equal(k, CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER);
	fake.disables++;
	return CUPTI_SUCCESS;
}

const char *cupti_err(CUptiResult r)
{
	return r == CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED
		   ? "CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED"
		   : "CUPTI_ERROR_UNKNOWN";
}

void dbg(const char *fmt, ...)
{
	(void)fmt;
}

void write_all(const void *buf, size_t len)
{
	assert_true(fake.pos + len <= sizeof(fake.spool));
	memcpy(fake.spool + fake.pos, buf, len);
	fake.pos += len;
}

static int setup(void **state)
{
	(void)state;
	memset(&fake, 0, sizeof(fake));
	struct inject_state fresh = {.fd = -1, .capture_lock = PTHREAD_MUTEX_INITIALIZER};
	inj = fresh;
	inj.fd = 3; /* mine(): this process records */
	inj.pid = getpid();
	atomic_store(&inj.capturing, 1);
	return 0;
}

/* the notes written, as the spool reader puts them in meta */
static const char *note_read(struct trace *t)
{
	char file[sizeof(fake.spool) + 256];
	struct spool_file_header h;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, SPOOL_MAGIC, 8);
	h.version = SPOOL_VERSION;
	h.header_len = sizeof(h);
	h.pid = 9;
	memcpy(file, &h, sizeof(h));
	memcpy(file + sizeof(h), fake.spool, fake.pos);
	trace_init(t);
	char err[GS_ERR_LEN];
	assert_int_equal(spool_read_buffer(t, file, sizeof(h) + fake.pos, NULL, err), 0);
	return trace_get_meta(t, SPOOL_NOTE_UVM);
}

static int frames(void)
{
	int n = 0;
	for (size_t at = 0; at + sizeof(struct spool_frame) <= fake.pos; n++) {
		struct spool_frame f;
		memcpy(&f, fake.spool + at, sizeof(f));
		assert_int_equal(f.type, SPOOL_NOTE);
		at += sizeof(f) + f.len;
	}
	return n;
}

/* every counter taken: enabled, "recorded" once; a pause and a resume
 * switch the kind without configuring or noting again */
static void test_recorded(void **state)
{
	(void)state;
	assert_int_equal(uvm_switch(1, 1), 1);
	uvm_note_flush();
	for (int k = 1; k <= 8; k++)
		assert_int_equal(fake.configured[k], 1);
	assert_int_equal(inj.uvm_state, UVM_ENABLED);
	assert_int_equal(uvm_switch(0, 1), 1);
	assert_int_equal(uvm_switch(1, 1), 1);
	uvm_note_flush();
	assert_int_equal(fake.enables, 2);
	assert_int_equal(fake.disables, 1);
	assert_int_equal(frames(), 1);
	struct trace t;
	assert_string_equal(note_read(&t), SPOOL_NOTE_UVM_ON);
	trace_release(&t);
}

/* the driver refuses two counters: the others are kept, and said */
static void test_partly(void **state)
{
	(void)state;
	fake.all = CUPTI_ERROR_UNKNOWN;
	fake.one = CUPTI_ERROR_UNKNOWN;
	fake.refuse = 1u << CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT |
		      1u << CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOD;
	assert_int_equal(uvm_switch(1, 1), 1);
	uvm_note_flush();
	assert_int_equal(fake.configured[CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT],
			 1);
	assert_int_equal(
	    fake.configured[CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT], 0);
	struct trace t;
	assert_string_equal(note_read(&t), "recorded (without cpu_fault, dtod: the driver refused "
					   "them)");
	trace_release(&t);
}

/* refused altogether (a VM): never enabled, the reason noted once, and a
 * resume tries nothing again */
static void test_refused(void **state)
{
	(void)state;
	fake.all = fake.one = CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED;
	fake.refuse = ~0u;
	assert_int_equal(uvm_switch(1, 1), 0);
	assert_int_equal(uvm_switch(0, 1), 0);
	assert_int_equal(uvm_switch(1, 1), 0);
	uvm_note_flush();
	assert_int_equal(fake.enables, 0);
	assert_int_equal(fake.disables, 0);
	assert_int_equal(inj.uvm_state, UVM_REFUSED);
	assert_int_equal(frames(), 1);
	struct trace t;
	const char *n = note_read(&t);
	assert_non_null(strstr(n, "not recorded: CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED"));
	assert_non_null(strstr(n, "virtual machine"));
	/* which call refused them: the device machines' refusals were told
	 * apart by it (workloads/uvm-on-gpu.sh) */
	assert_non_null(strstr(n, "from cuptiActivityConfigureUnifiedMemoryCounter"));
	trace_release(&t);
}

/* configured, but not ready to be enabled at CUDA's start (driver 580 in
 * CUDA's initialisation, H100, 2026-12-07): the flush thread's retry
 * enables them, and the note says recorded */
static void test_enable_later(void **state)
{
	(void)state;
	fake.enable = CUPTI_ERROR_NOT_READY;
	assert_int_equal(uvm_switch(1, 1), 0);
	assert_int_equal(inj.uvm_state, UVM_LATER);
	uvm_note_flush();
	assert_int_equal(fake.pos, 0);
	fake.enable = CUPTI_SUCCESS;
	uvm_retry();
	assert_int_equal(inj.uvm_state, UVM_ENABLED);
	assert_int_equal(fake.enables, 2);
	uvm_note_flush();
	struct trace t;
	assert_string_equal(note_read(&t), SPOOL_NOTE_UVM_ON);
	trace_release(&t);
}

/* the flush thread's polls: NOT_READY keeps waiting, quietly; the first
 * poll after CUPTI is ready enables the kind, and later polls do nothing */
static void test_poll(void **state)
{
	(void)state;
	uvm_poll(); /* nothing tried yet: nothing done */
	assert_int_equal(inj.uvm_state, UVM_UNTRIED);
	assert_int_equal(fake.enables, 0);
	fake.enable = CUPTI_ERROR_NOT_READY;
	assert_int_equal(uvm_switch(1, 1), 0);
	assert_int_equal(inj.uvm_state, UVM_LATER);
	uvm_poll();
	uvm_poll();
	assert_int_equal(inj.uvm_state, UVM_LATER);
	assert_int_equal(fake.enables, 3);
	assert_int_equal(frames(), 0);
	fake.enable = CUPTI_SUCCESS;
	uvm_poll();
	assert_int_equal(inj.uvm_state, UVM_ENABLED);
	assert_int_equal(fake.enables, 4);
	assert_int_equal(frames(), 1);
	struct trace t;
	assert_string_equal(note_read(&t), SPOOL_NOTE_UVM_ON);
	trace_release(&t);
	uvm_poll();
	uvm_retry(); /* the period's retry finds nothing to do */
	assert_int_equal(fake.enables, 4);
	/* paused while waiting: the polls leave it to the resume */
	setup(NULL);
	fake.enable = CUPTI_ERROR_NOT_READY;
	uvm_switch(1, 1);
	atomic_store(&inj.capturing, 0);
	fake.enable = CUPTI_SUCCESS;
	uvm_poll();
	assert_int_equal(inj.uvm_state, UVM_LATER);
	assert_int_equal(fake.enables, 1);
}

/* a program that ends within the first flush period, the counters still
 * waiting: said not recorded, and why */
static void test_ended_early(void **state)
{
	(void)state;
	fake.enable = CUPTI_ERROR_NOT_READY;
	uvm_switch(1, 1);
	assert_int_equal(inj.uvm_state, UVM_LATER);
	uvm_at_end();
	assert_int_equal(inj.uvm_state, UVM_REFUSED);
	struct trace t;
	const char *n = note_read(&t);
	assert_non_null(strstr(n, "not recorded: the program ended before CUPTI was ready"));
	trace_release(&t);
	uvm_at_end(); /* nothing more */
	assert_int_equal(frames(), 1);
}

/* configured, but the kind refused when enabled */
static void test_enable_refused(void **state)
{
	(void)state;
	fake.enable = CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED;
	assert_int_equal(uvm_switch(1, 1), 0);
	uvm_note_flush();
	assert_int_equal(inj.uvm_state, UVM_REFUSED);
	struct trace t;
	const char *n = note_read(&t);
	assert_non_null(strstr(n, "not recorded: CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED"));
	assert_non_null(strstr(n, "from cuptiActivityEnable"));
	trace_release(&t);
}

/* CUPTI not ready at CUDA's start: the flush thread's retry enables the
 * kind; ready still not: refused, and said */
static void test_later(void **state)
{
	(void)state;
	fake.all = CUPTI_ERROR_NOT_INITIALIZED;
	assert_int_equal(uvm_switch(1, 1), 0);
	uvm_note_flush();
	assert_int_equal(inj.uvm_state, UVM_LATER);
	assert_int_equal(fake.pos, 0);
	fake.all = CUPTI_SUCCESS;
	uvm_retry();
	assert_int_equal(inj.uvm_state, UVM_ENABLED);
	assert_int_equal(fake.enables, 1);
	uvm_retry(); /* nothing more */
	assert_int_equal(frames(), 1);
	struct trace t;
	assert_string_equal(note_read(&t), SPOOL_NOTE_UVM_ON);
	trace_release(&t);
	setup(NULL);
	fake.all = CUPTI_ERROR_NOT_INITIALIZED;
	uvm_switch(1, 1);
	uvm_retry();
	assert_int_equal(inj.uvm_state, UVM_REFUSED);
	assert_non_null(strstr(note_read(&t), "still not initialised"));
	trace_release(&t);
	/* NOT_READY (an H100 under Firecracker, driver 580, at CUDA's start)
	 * is waited out the same way */
	setup(NULL);
	fake.all = CUPTI_ERROR_NOT_READY;
	assert_int_equal(uvm_switch(1, 1), 0);
	assert_int_equal(inj.uvm_state, UVM_LATER);
	fake.all = CUPTI_SUCCESS;
	uvm_retry();
	assert_int_equal(inj.uvm_state, UVM_ENABLED);
}

/* left out by GPUSCOPE_KINDS: nothing configured, "off" said */
static void test_off(void **state)
{
	(void)state;
	assert_int_equal(uvm_switch(1, 0), 0);
	assert_int_equal(uvm_switch(0, 0), 0);
	uvm_note_flush();
	assert_int_equal(fake.configured[CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT],
			 0);
	struct trace t;
	assert_string_equal(note_read(&t), "off: GPUSCOPE_KINDS leaves uvm out");
	trace_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_recorded, setup),
	    cmocka_unit_test_setup(test_partly, setup),
	    cmocka_unit_test_setup(test_refused, setup),
	    cmocka_unit_test_setup(test_enable_later, setup),
	    cmocka_unit_test_setup(test_poll, setup),
	    cmocka_unit_test_setup(test_ended_early, setup),
	    cmocka_unit_test_setup(test_enable_refused, setup),
	    cmocka_unit_test_setup(test_later, setup),
	    cmocka_unit_test_setup(test_off, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
#else
static void no_cupti(void **state)
{
	(void)state;
	skip();
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(no_cupti)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
#endif
