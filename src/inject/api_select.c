/*
 * api_select.c - what is recorded: the activity kinds (GPUSCOPE_KINDS), how
 * API calls get records (GPUSCOPE_API, invariant 4 of inject.c: query calls
 * get none and are not even intercepted), and pausing and resuming it all
 * from the program (gpuscope_capture, invariant 6).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inject/api_order.h"
#include "inject/kinds.h"
#include "inject/inject_int.h"

/* The activity kinds, by the names GPUSCOPE_KINDS takes (a comma list, or
 * "none"). Leaving kinds out is for measuring what each costs
 * (bench/record-overhead.sh); report then lacks what they would show.
 * on: enabled when GPUSCOPE_KINDS is unset. "sync" (CUPTI's synchronization
 * records) is off: with it on, CUPTI intercepts every CUDA call, queries
 * included, at 150-450 ns each (bench/api-cost.sh on the H200: cuCtxGetCurrent
 * 9 -> 156 ns, cudaStreamIsCapturing 70 -> 527 ns; PyTorch makes several per
 * op). record derives the sync rows from the synchronizing API calls instead
 * (trace_add_api_syncs); GPUSCOPE_KINDS naming sync brings CUPTI's back. */
static const struct {
	const char *name;
	CUpti_ActivityKind kind;
	int on;
} kinds[] = {
    {"device", CUPTI_ACTIVITY_KIND_DEVICE, 1},
    {"context", CUPTI_ACTIVITY_KIND_CONTEXT, 1},
    {"kernel", CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 1},
    {"memcpy", CUPTI_ACTIVITY_KIND_MEMCPY, 1},
    {"memcpy", CUPTI_ACTIVITY_KIND_MEMCPY2, 1},
    {"memset", CUPTI_ACTIVITY_KIND_MEMSET, 1},
    {"runtime", CUPTI_ACTIVITY_KIND_RUNTIME, 1},
    {"driver", CUPTI_ACTIVITY_KIND_DRIVER, 1},
    {"sync", CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, 0},
    {"memory", CUPTI_ACTIVITY_KIND_MEMORY2, 1},
    {"marker", CUPTI_ACTIVITY_KIND_MARKER, 1},
    /* unified-memory counters (uvm.c): on, since only managed memory makes
     * records and the kind intercepts no call; refused without harm */
    {"uvm", CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER, 1},
    /* one record per graph launch instead of one per node (CUPTI: "to
     * reduce overheads in tracing each node"): off, for the overhead
     * bench's variants (record-overhead.sh record_gtrace: XLA runs its
     * steps as CUDA graphs); counted, not stored yet */
    {"graph", CUPTI_ACTIVITY_KIND_GRAPH_TRACE, 0},
};

/* GPUSCOPE_API=work: API records only for calls that enqueue, wait for,
 * allocate or load GPU work, matched on CUPTI's own names of the calls
 * (cuptiGetCallbackName), so new versions of a call are covered */
static const char *const api_work[] = {
    "Launch",
    "GraphLaunch",
    "GraphInstantiate",
    "GraphUpload",
    "Memcpy",
    "Memset",
    "Malloc",
    "MemAlloc",
    "Free",
    "MemFree",
    "MemHostAlloc",
    "HostAlloc",
    "HostRegister",
    "HostUnregister",
    "MemCreate",
    "MemMap",
    "MemUnmap",
    "MemRelease",
    "MemPrefetch",
    "DeviceSynchronize",
    "StreamSynchronize",
    "ProfilerStart", /* record --capture-range cudaProfilerApi */
    "ProfilerStop",
    "EventSynchronize",
    "CtxSynchronize",
    "ThreadSynchronize",
    "StreamWaitEvent",
    "StreamWaitValue",
    "StreamWriteValue",
    "StreamBatchMemOp",
    "StreamQuery",
    "EventQuery",
    "EventRecord",
    "StreamBeginCapture",
    "StreamEndCapture",
    "StreamCreate",
    "StreamDestroy",
    "ModuleLoad",
    "LibraryLoad",
    "CtxCreate",
    "DevicePrimaryCtxRetain",
    "DeviceReset",
    "Init",
    "DriverGetVersion",
};

static int api_is_work(const char *name)
{
	/* skip the domain prefix: "cuda" (runtime) or "cu" (driver) */
	if (strncmp(name, "cu", 2) != 0)
		return 0;
	const char *p = strncmp(name, "cuda", 4) == 0 ? name + 4 : name + 2;
	for (size_t i = 0; i < sizeof(api_work) / sizeof(api_work[0]); i++)
		if (strncmp(p, api_work[i], strlen(api_work[i])) == 0)
			return 1;
	return 0;
}

/* Query calls left out of the activity records (invariant 4). */
static const CUpti_CallbackId quiet_runtime[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaPeekAtLastError_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDeviceCount_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaSetDevice_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamIsCapturing_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetCaptureInfo_v10010,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetCaptureInfo_v2_v11030,
    CUPTI_RUNTIME_TRACE_CBID_cudaThreadExchangeStreamCaptureMode_v10010,
    CUPTI_RUNTIME_TRACE_CBID_cudaDeviceGetAttribute_v5000,
    CUPTI_RUNTIME_TRACE_CBID_cudaPointerGetAttributes_v4000,
    CUPTI_RUNTIME_TRACE_CBID_cudaFuncGetAttributes_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDriverEntryPoint_v11030,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDriverEntryPointByVersion_v12050,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetPriority_v5050,
    CUPTI_RUNTIME_TRACE_CBID_cudaDeviceGetStreamPriorityRange_v5050,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetFuncBySymbol_v11000,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetId_v12000,
    CUPTI_RUNTIME_TRACE_CBID_cudaRuntimeGetVersion_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaDriverGetVersion_v3020,
};
static const CUpti_CallbackId quiet_driver[] = {
    CUPTI_DRIVER_TRACE_CBID_cuKernelGetName,
    CUPTI_DRIVER_TRACE_CBID_cuFuncGetName,
    CUPTI_DRIVER_TRACE_CBID_cuDeviceGetAttribute,
    CUPTI_DRIVER_TRACE_CBID_cuDeviceGet,
    CUPTI_DRIVER_TRACE_CBID_cuDeviceGetCount,
    CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent,
    CUPTI_DRIVER_TRACE_CBID_cuCtxSetCurrent,
    CUPTI_DRIVER_TRACE_CBID_cuCtxGetDevice,
    CUPTI_DRIVER_TRACE_CBID_cuCtxGetId,
    CUPTI_DRIVER_TRACE_CBID_cuCtxPushCurrent_v2,
    CUPTI_DRIVER_TRACE_CBID_cuCtxPopCurrent_v2,
    CUPTI_DRIVER_TRACE_CBID_cuPointerGetAttribute,
    CUPTI_DRIVER_TRACE_CBID_cuPointerGetAttributes,
    CUPTI_DRIVER_TRACE_CBID_cuGetProcAddress,
    CUPTI_DRIVER_TRACE_CBID_cuGetProcAddress_v2,
    CUPTI_DRIVER_TRACE_CBID_cuFuncGetAttribute,
    CUPTI_DRIVER_TRACE_CBID_cuKernelGetAttribute,
    CUPTI_DRIVER_TRACE_CBID_cuKernelGetFunction,
    CUPTI_DRIVER_TRACE_CBID_cuLibraryGetKernel,
    CUPTI_DRIVER_TRACE_CBID_cuGetErrorString,
    CUPTI_DRIVER_TRACE_CBID_cuGetErrorName,
    CUPTI_DRIVER_TRACE_CBID_cuStreamGetId,
    CUPTI_DRIVER_TRACE_CBID_cuStreamIsCapturing,
    CUPTI_DRIVER_TRACE_CBID_cuStreamGetCaptureInfo_v2,
    CUPTI_DRIVER_TRACE_CBID_cuStreamGetCaptureInfo_v3,
    CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxGetState,
    CUPTI_DRIVER_TRACE_CBID_cuOccupancyMaxActiveBlocksPerMultiprocessor,
    CUPTI_DRIVER_TRACE_CBID_cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags,
    CUPTI_DRIVER_TRACE_CBID_cuCtxGetFlags,
    CUPTI_DRIVER_TRACE_CBID_cuCtxGetStreamPriorityRange,
};

/* the query calls of one domain (invariant 4) */
static const CUpti_CallbackId *quiet_calls(int driver, size_t *n)
{
	*n = driver ? sizeof(quiet_driver) / sizeof(quiet_driver[0])
		    : sizeof(quiet_runtime) / sizeof(quiet_runtime[0]);
	return driver ? quiet_driver : quiet_runtime;
}

static int is_quiet(int driver, CUpti_CallbackId cbid)
{
	size_t n;
	const CUpti_CallbackId *q = quiet_calls(driver, &n);
	for (size_t i = 0; i < n; i++)
		if (q[i] == cbid)
			return 1;
	return 0;
}

/* Driver calls whose name has "Get" (cuCtxGetDevice_v2, cuGetExportTable,
 * cuModuleGetFunction, cuMemGetInfo, ...) only look things up; they get no
 * record either (invariant 4). Enabling every driver call but the listed
 * queries made cudaGetDevice cost 40 -> 300 ns on the H200 (the runtime goes
 * through such driver calls inside), GPUSCOPE_API=work did not. */
static int driver_query(const char *name)
{
	return strncmp(name, "cuda", 4) != 0 && strstr(name, "Get") != NULL;
}

/* Enables (on) or disables the API records of one domain (kind RUNTIME or
 * DRIVER) as mode says; returns the number of calls switched, or 1 for a
 * whole kind. Disabling switches off the same calls enabling switched on, so
 * the heartbeat's cuDriverGetVersion (a query, never among them) stays. */
static int enable_api(CUpti_ActivityKind kind, enum api_mode mode, int on)
{
	int driver = kind == CUPTI_ACTIVITY_KIND_DRIVER;
	if (mode == API_KIND || mode == API_ALL) {
		CUptiResult r = on ? cuptiActivityEnable(kind) : cuptiActivityDisable(kind);
		if (r != CUPTI_SUCCESS) {
			status(0, r, "cupti activity kind %d not %s: %s", (int)kind,
			       on ? "enabled" : "disabled", cupti_err(r));
			return 0;
		}
		if (!on) {
			/* the whole kind off took the heartbeat's record with it */
			if (driver && inj.drv_version)
				cuptiActivityEnableDriverApi(
				    CUPTI_DRIVER_TRACE_CBID_cuDriverGetVersion, 1);
			return 1;
		}
		size_t nq;
		const CUpti_CallbackId *q = quiet_calls(driver, &nq);
		int n = 0;
		for (size_t i = 0; mode == API_KIND && i < nq; i++)
			n += (driver ? cuptiActivityEnableDriverApi(q[i], 0)
				     : cuptiActivityEnableRuntimeApi(q[i], 0)) == CUPTI_SUCCESS;
		dbg("%s: whole kind, %d query calls left out", driver ? "driver" : "runtime", n);
		return 1;
	}
	CUpti_CallbackDomain dom =
	    driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API;
	int n = 0;
	/* up to MAX_CBID, not this header's CBID_SIZE: a newer libcupti knows
	 * newer calls */
	for (uint32_t c = 1; c < MAX_CBID; c++) {
		const char *name = NULL;
		if (cuptiGetCallbackName(dom, c, &name) != CUPTI_SUCCESS || !name)
			continue; /* a retired or unknown call id */
		/* lean (the default): nor the driver's stream-ordering calls (api_order.h) */
		if (mode == API_WORK ? !api_is_work(name)
				     : is_quiet(driver, c) || driver_query(name) ||
					   (mode == API_LEAN && gs_api_driver_ordering(name)))
			continue;
		n += (driver ? cuptiActivityEnableDriverApi(c, (uint8_t)on)
			     : cuptiActivityEnableRuntimeApi(c, (uint8_t)on)) == CUPTI_SUCCESS;
	}
	if (on)
		dbg("%s: %d calls get records (GPUSCOPE_API=%s)", driver ? "driver" : "runtime", n,
		    mode == API_WORK   ? "work"
		    : mode == API_LEAN ? "lean"
				       : "calls");
	/* a libcupti that takes no call on its own still gets the whole kind */
	if (n == 0 && (mode == API_CALLS || mode == API_LEAN))
		return enable_api(kind, API_KIND, on);
	return n > 0;
}

/* Switches the recorded activity kinds (GPUSCOPE_KINDS, GPUSCOPE_API) on or
 * off; device and context records stay on (they come once per device and
 * context, and report needs them). Returns the number of kinds switched;
 * *last gets the last failure. */
int set_kinds(int on, CUptiResult *last)
{
	int n = 0;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		int want =
		    !inj.kinds_none && gs_kind_wanted(inj.kinds_want, kinds[i].name, kinds[i].on);
		if (kinds[i].kind == CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER) {
			n += uvm_switch(on, want);
			continue;
		}
		if (!want)
			continue;
		if (!on && (kinds[i].kind == CUPTI_ACTIVITY_KIND_DEVICE ||
			    kinds[i].kind == CUPTI_ACTIVITY_KIND_CONTEXT))
			continue;
		if (kinds[i].kind == CUPTI_ACTIVITY_KIND_RUNTIME ||
		    kinds[i].kind == CUPTI_ACTIVITY_KIND_DRIVER) {
			n += enable_api(kinds[i].kind, inj.api_mode, on);
			continue;
		}
		CUptiResult r =
		    on ? cuptiActivityEnable(kinds[i].kind) : cuptiActivityDisable(kinds[i].kind);
		if (r == CUPTI_SUCCESS)
			n++;
		else {
			*last = r;
			status(0, r, "cupti activity kind %d not %s: %s", (int)kinds[i].kind,
			       on ? "enabled" : "disabled", cupti_err(r));
		}
	}
	return n;
}

/* gpuscope_capture(0) pauses recording, gpuscope_capture(1) resumes it; for
 * code that wants only a region recorded (GPUSCOPE_CAPTURE=off starts
 * paused) and for the overhead bench, which times the same loop traced and
 * untraced in one process (bench/record-overhead.sh, INPROC). Found with
 * dlsym / ctypes on the library CUDA_INJECTION64_PATH names. GPU work still
 * running when recording pauses may lack its records: synchronize first.
 * Pauses are counted and reported at exit (report_paused), never silent.
 * Returns 0, or -1 when this process is not being recorded. */
EXPORT int gpuscope_capture(int on)
{
	if (!inj.started || !mine() || atomic_load(&inj.quiet) || atomic_load(&inj.stopping))
		return -1;
	on = on != 0;
	pthread_mutex_lock(&inj.capture_lock);
	if (on != atomic_load(&inj.capturing)) {
		CUptiResult r = CUPTI_SUCCESS;
		if (!on) {
			set_kinds(0, &r);
			inj.paused_at = mono_ns();
			inj.pauses++;
		} else {
			set_kinds(1, &r);
			inj.paused_ns += mono_ns() - inj.paused_at;
		}
		atomic_store(&inj.capturing, on);
		dbg("recording %s (gpuscope_capture)", on ? "resumed" : "paused");
	}
	pthread_mutex_unlock(&inj.capture_lock);
	return 0;
}

/* at exit: how long recording was paused, so that report can say the trace
 * has holes */
void report_paused(void)
{
	pthread_mutex_lock(&inj.capture_lock);
	uint64_t ns = inj.paused_ns;
	if (!atomic_load(&inj.capturing))
		ns += mono_ns() - inj.paused_at;
	unsigned long pauses = inj.pauses;
	pthread_mutex_unlock(&inj.capture_lock);
	if (pauses)
		status(
		    0, 0,
		    "recording was paused %lu time%s by the program (gpuscope_capture or "
		    "GPUSCOPE_CAPTURE=off), %.3f s in all; GPU work of those times is not in the "
		    "trace",
		    pauses, pauses == 1 ? "" : "s", (double)ns / 1e9);
}
