/*
 * uvm.c - the "uvm" activity kind (api_select.c's table): CUPTI's
 * unified-memory counters (CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER):
 * page faults on the CPU and the GPU, bytes migrated each way, thrashing,
 * throttling and remote maps of managed memory. convert.c turns their
 * records into SPOOL_UVM frames.
 *
 * The counters are configured once (cuptiActivityConfigureUnifiedMemoryCounter,
 * before the kind is enabled, as CUPTI asks), all together and, when the
 * driver refuses that, one by one, keeping those it takes. The driver may
 * refuse them all: in a virtual machine or under vGPU, under MPS, on a
 * multi-GPU node without peer access, on some drivers. Then nothing about
 * the program changes: no record, no failure of the recording, only one
 * note saying why (SPOOL_NOTE_UVM, which record stores as the meta key
 * uvm_counters, docs/record.md). The kind is pausable like the others
 * (gpuscope_capture).
 *
 * Cost (docs/record.md, "Unified memory"): the records come from the UVM
 * driver's own events, which only managed memory (cudaMallocManaged and
 * the allocators over it) produces; the kind intercepts no CUDA call. A
 * program without managed memory therefore gets no record and no
 * per-call cost; one that faults pays per fault group and per migration
 * recorded (Nsight Systems leaves its page-fault tracing off by default
 * for that reason). GPUSCOPE_KINDS without "uvm" turns it off.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "inject/inject_int.h"

static const struct {
	CUpti_ActivityUnifiedMemoryCounterKind kind;
	const char *name; /* trace.h's uvm_kind_name */
} counters[] = {
    {CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD, "htod"},
    {CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH, "dtoh"},
    {CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT, "cpu_fault"},
    {CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT, "gpu_fault"},
    {CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THRASHING, "thrashing"},
    {CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THROTTLING, "throttling"},
    {CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_REMOTE_MAP, "remote_map"},
    {CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOD, "dtod"},
};
#define N_COUNTERS (sizeof(counters) / sizeof(counters[0]))

/* The note (SPOOL_NOTE "uvm_counters\0TEXT", spool.h) is kept in inj and
 * written by uvm_note_flush, outside capture_lock (invariant 1 of inject.c:
 * no lock across write(2)); one note at a time, the last one kept. */
static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(inj.uvm_note, sizeof(inj.uvm_note), fmt, ap);
	va_end(ap);
	if (n < 0)
		inj.uvm_note[0] = '\0';
	dbg("unified-memory counters: %s", inj.uvm_note);
}

void uvm_note_flush(void)
{
	char text[sizeof(inj.uvm_note) + sizeof(SPOOL_NOTE_UVM)];
	size_t kl = strlen(SPOOL_NOTE_UVM) + 1;
	memcpy(text, SPOOL_NOTE_UVM, kl);
	pthread_mutex_lock(&inj.capture_lock);
	size_t vl = strlen(inj.uvm_note);
	memcpy(text + kl, inj.uvm_note, vl);
	inj.uvm_note[0] = '\0';
	pthread_mutex_unlock(&inj.capture_lock);
	if (!vl || !mine())
		return;
	char buf[sizeof(struct spool_frame) + sizeof(text)];
	size_t pos = 0;
	if (spool_put(buf, sizeof(buf), &pos, SPOOL_NOTE, text, (uint32_t)(kl + vl), NULL, 0) == 0)
		write_all(buf, pos);
}

/* What a refusal means, for the note. */
static const char *why(CUptiResult r)
{
	switch (r) {
	case CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED:
		return "this platform does not support them (a virtual machine or vGPU, or the OS)";
	case CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_ON_DEVICE:
		return "the device does not support them";
	case CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_ON_NON_P2P_DEVICES:
		return "several GPUs without peer access between them";
	case CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_WITH_MPS:
		return "the process runs under MPS";
	case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
		return "a virtualized device";
	case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
		return "not allowed for this user";
	default:
		return "the driver refused them";
	}
}

/* Configures the counters; the state it leaves (UVM_CONFIGURED, UVM_LATER
 * when CUPTI is not initialised yet, UVM_REFUSED with the note written). */
static int configure(void)
{
	CUpti_ActivityUnifiedMemoryCounterConfig c[N_COUNTERS];
	memset(c, 0, sizeof(c));
	for (size_t i = 0; i < N_COUNTERS; i++) {
		/* scope and device are deprecated since CUDA 7.0 (every device
		 * of the process); NVIDIA's sample sets them so */
		c[i].scope = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_SCOPE_PROCESS_SINGLE_DEVICE;
		c[i].kind = counters[i].kind;
		c[i].deviceId = 0;
		c[i].enable = 1;
	}
	CUptiResult r = cuptiActivityConfigureUnifiedMemoryCounter(c, (uint32_t)N_COUNTERS);
	/* not initialised, or not ready (an H100 under Firecracker, driver 580,
	 * answered NOT_READY inside CUDA's initialisation): once more later */
	if (r == CUPTI_ERROR_NOT_INITIALIZED || r == CUPTI_ERROR_NOT_READY)
		return UVM_LATER;
	if (r == CUPTI_SUCCESS)
		return UVM_CONFIGURED;
	/* one by one: keep the counters the driver takes */
	CUptiResult first = r;
	char refused[160] = "";
	size_t at = 0, ok = 0;
	for (size_t i = 0; i < N_COUNTERS; i++) {
		CUptiResult ri = cuptiActivityConfigureUnifiedMemoryCounter(&c[i], 1);
		if (ri == CUPTI_SUCCESS) {
			ok++;
			continue;
		}
		int w = snprintf(refused + at, sizeof(refused) - at, "%s%s", at ? ", " : "",
				 counters[i].name);
		if (w > 0 && (size_t)w < sizeof(refused) - at)
			at += (size_t)w;
	}
	if (!ok) {
		note("not recorded: %s from cuptiActivityConfigureUnifiedMemoryCounter (%s): "
		     "managed memory's page faults and migrations are not in the trace",
		     cupti_err(first), why(first));
		return UVM_REFUSED;
	}
	inj.uvm_partial = 1;
	snprintf(inj.uvm_refused, sizeof(inj.uvm_refused), "%s", refused);
	return UVM_CONFIGURED;
}

int uvm_switch(int on, int want)
{
	if (!want) {
		if (on && inj.uvm_state == UVM_UNTRIED) {
			inj.uvm_state = UVM_OFF;
			note("off: GPUSCOPE_KINDS leaves uvm out");
		}
		return 0;
	}
	if (!on) {
		if (inj.uvm_state != UVM_ENABLED)
			return 0;
		inj.uvm_state = UVM_CONFIGURED;
		return cuptiActivityDisable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER) ==
		       CUPTI_SUCCESS;
	}
	if (inj.uvm_state == UVM_UNTRIED || inj.uvm_state == UVM_LATER)
		inj.uvm_state = configure();
	atomic_store(&inj.uvm_waiting, inj.uvm_state == UVM_LATER);
	if (inj.uvm_state != UVM_CONFIGURED)
		return 0;
	CUptiResult r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER);
	/* configured, but not ready to be enabled inside CUDA's initialisation:
	 * the H100's driver 580 answers NOT_READY there, where the same request
	 * after cuInit, once the context exists or from another thread succeeds
	 * (workloads/robust/uvm_probe.cu, 2026-12-07): the flush thread asks
	 * again at each of its polls (uvm_poll) */
	if (r == CUPTI_ERROR_NOT_READY || r == CUPTI_ERROR_NOT_INITIALIZED) {
		inj.uvm_state = UVM_LATER;
		atomic_store(&inj.uvm_waiting, 1);
		return 0;
	}
	atomic_store(&inj.uvm_waiting, 0);
	if (r != CUPTI_SUCCESS) {
		inj.uvm_state = UVM_REFUSED;
		note("not recorded: %s from cuptiActivityEnable (%s): managed memory's page faults "
		     "and migrations are not in the trace",
		     cupti_err(r), why(r));
		return 0;
	}
	inj.uvm_state = UVM_ENABLED;
	if (!inj.uvm_noted) {
		inj.uvm_noted = 1;
		if (inj.uvm_partial)
			note("%s (without %s: the driver refused them)", SPOOL_NOTE_UVM_ON,
			     inj.uvm_refused);
		else
			note("%s", SPOOL_NOTE_UVM_ON);
	}
	return 1;
}

/* While the counters wait for CUPTI (UVM_LATER), the flush thread asks
 * again at each of its polls (SPOOL_FLUSH_POLL_MS): the counters then start
 * within milliseconds of CUDA's initialisation, not a flush period (1 s)
 * later, which left the first steps of managed_faults (H100, 2026-12-07)
 * without their page faults. NOT_READY here keeps the wait; the period's
 * retry (uvm_retry) settles it. The state is read without the lock first:
 * a stale read costs one poll. */
void uvm_poll(void)
{
	if (!atomic_load(&inj.uvm_waiting))
		return;
	pthread_mutex_lock(&inj.capture_lock);
	if (inj.uvm_state == UVM_LATER && atomic_load(&inj.capturing))
		uvm_switch(1, 1);
	pthread_mutex_unlock(&inj.capture_lock);
	uvm_note_flush();
}

void uvm_retry(void)
{
	pthread_mutex_lock(&inj.capture_lock);
	if (inj.uvm_state == UVM_LATER && atomic_load(&inj.capturing)) {
		uvm_switch(1, 1);
		if (inj.uvm_state == UVM_LATER) {
			inj.uvm_state = UVM_REFUSED;
			atomic_store(&inj.uvm_waiting, 0);
			note(
			    "not recorded: CUPTI was still not initialised or not ready for them a "
			    "flush period after the start");
		}
	}
	pthread_mutex_unlock(&inj.capture_lock);
	uvm_note_flush();
}

void uvm_at_end(void)
{
	pthread_mutex_lock(&inj.capture_lock);
	if (inj.uvm_state == UVM_LATER) {
		inj.uvm_state = UVM_REFUSED;
		atomic_store(&inj.uvm_waiting, 0);
		note("not recorded: the program ended before CUPTI was ready for them (they are "
		     "asked for again every %d ms after CUDA's start)",
		     SPOOL_FLUSH_POLL_MS);
	}
	pthread_mutex_unlock(&inj.capture_lock);
	uvm_note_flush();
}
