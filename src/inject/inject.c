/*
 * inject.c - libgpuscope-inject.so, loaded into the profiled program by CUDA
 * through CUDA_INJECTION64_PATH (InitializeInjection). It enables CUPTI
 * activity kinds, converts each completed CUPTI buffer into spool records
 * (trace/spool.h) and appends them with write(2) to
 * $GPUSCOPE_SPOOL_DIR/spool-<pid>.bin. No SQLite, no exit(), no abort: on
 * any CUPTI failure it writes a status record and goes quiet.
 *
 * Invariants:
 *  1. No lock is held across write(2); the string table lock is held only
 *     while looking up or adding one name.
 *  2. A forked child (no exec) writes nothing: its pid differs from inj.pid.
 *     A child that execs is a new process with its own injection and file.
 *  3. A periodic thread flushes every GPUSCOPE_FLUSH_MS (default 1000), so a
 *     killed program loses at most about that much; when record asks before
 *     it forwards a signal (spool.h, flush handshake) the thread flushes
 *     within SPOOL_FLUSH_POLL_MS and answers. SIGINT, SIGTERM and SIGHUP,
 *     where they would kill the program outright (no handler of its own),
 *     are caught for the time of one last forced flush and then let
 *     through (catch_signals): whoever sends them, nothing launched before
 *     them is lost.
 *  4. Query calls that neither enqueue nor wait for GPU work (cudaGetDevice,
 *     cudaGetLastError, cudaStreamIsCapturing, cuKernelGetName, ...) get no
 *     activity record: PyTorch makes several per op and they explain no
 *     time; nor do driver calls with "Get" in their name (driver_query).
 *     Each other call is enabled on its own (enable_api), so the queries are
 *     not even intercepted (unless the sync kind is on: kinds[]); nor are
 *     the driver's stream-ordering calls (cuEventRecord, cuStreamWaitEvent,
 *     cuGraphExec*NodeSet*: api_order.h), unless GPUSCOPE_API=calls.
 *     GPUSCOPE_API=all records every call; GPUSCOPE_API=work only those that
 *     enqueue, wait, allocate or load (api_work).
 *  5. CUPTI buffers reach the program's threads zeroed and faulted in
 *     (buffer pool); no allocation or memset of 4 MiB happens there unless
 *     the pool ran dry.
 *  6. The program may pause and resume recording (gpuscope_capture, the one
 *     export besides InitializeInjection); every pause is reported.
 *
 * The code is split by job (inject_int.h lists the files); this file holds
 * the start (InitializeInjection) and the CUPTI API callbacks (on_api).
 */
#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inject/counters.h"
#include "inject/inject_int.h"
#include "inject/kinds.h"

static _Thread_local int tls_in_runtime_launch;
/* this thread's launch in flight is being profiled (counters.h), since */
static _Thread_local int tls_profiling;
static _Thread_local int64_t tls_profile_begin;

static void emit_counter(void *ud, uint32_t correlation, const char *metric, double value)
{
	struct out *o = ud;
	struct spool_counter c = {correlation, intern(o, metric), value};
	put(o, SPOOL_COUNTER, &c, sizeof(c), NULL, 0);
}

static int is_graph_launch(CUpti_CallbackDomain dom, CUpti_CallbackId cbid)
{
	return dom == CUPTI_CB_DOMAIN_RUNTIME_API
		   ? cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000 ||
			 cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000
		   : cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch ||
			 cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz;
}

/* record --metrics kernels: the outermost launch call of a thread (a runtime
 * launch, or a driver launch outside one) starts the range profiler at
 * ENTER and reads the launch's counters at EXIT; the values go to the spool
 * from this thread (a profiled launch is replayed and slow anyway). */
static void counters_hook(CUpti_CallbackDomain dom, CUpti_CallbackId cbid,
			  const CUpti_CallbackData *cb)
{
	int outermost = inj.counters_mode == 1		     ? dom == CUPTI_CB_DOMAIN_DRIVER_API
			: dom == CUPTI_CB_DOMAIN_RUNTIME_API ? tls_in_runtime_launch == 1
							     : tls_in_runtime_launch == 0;
	if (!outermost)
		return;
	if (cb->callbackSite == CUPTI_API_ENTER) {
		if (is_graph_launch(dom, cbid))
			gs_counters_graph_launch();
		else if (mine() && atomic_load(&inj.capturing)) {
			tls_profile_begin = cupti_now();
			tls_profiling = gs_counters_launch_enter(cb->context, cb->symbolName,
								 cb->correlationId);
		}
		return;
	}
	if (!tls_profiling)
		return;
	tls_profiling = 0;
	uint32_t corr = cb->correlationId;
	struct out o = {NULL, 64 * 1024, 0};
	o.buf = malloc(o.cap);
	if (!o.buf) {
		gs_counters_launch_exit(NULL, NULL);
		return;
	}
	gs_counters_launch_exit(emit_counter, &o);
	/* where the profiler's work on this launch began and ended (set-up,
	 * replay, decoding): record takes it out of the timeline (replay.c) */
	emit_counter(&o, corr, "gpuscope__profile_begin_ns", (double)tls_profile_begin);
	emit_counter(&o, corr, "gpuscope__profile_end_ns", (double)cupti_now());
	out_flush(&o);
	free(o.buf);
}

/* Counts kernel and graph launches independently of the activity buffers,
 * to notice another CUPTI client taking the buffers over. */
/* GPUSCOPE_HOST_FREE_GUARD=1: before the program frees or unpins host
 * memory, wait until the device is idle, so that an asynchronous memset or
 * copy into that memory still queued (a program bug: XLA's redzone checker,
 * openxla/xla issue 46093) runs before the memory is gone. Opt-in: it
 * subscribes to CUPTI's callbacks (a cost on every call, and the single
 * subscriber slot a later profiler would want), and a device-wide wait at
 * a free can block on host functions queued behind a lock the freeing
 * thread holds. For the experiment of workloads/jax-record-probe.sh. */
static int is_host_free(CUpti_CallbackDomain dom, CUpti_CallbackId cbid)
{
	return dom == CUPTI_CB_DOMAIN_DRIVER_API &&
	       (cbid == CUPTI_DRIVER_TRACE_CBID_cuMemFreeHost ||
		cbid == CUPTI_DRIVER_TRACE_CBID_cuMemHostUnregister);
}

static void CUPTIAPI on_api(void *ud, CUpti_CallbackDomain dom, CUpti_CallbackId cbid,
			    const void *data)
{
	const CUpti_CallbackData *cb = data;
	if (is_host_free(dom, cbid)) {
		if (cb->callbackSite == CUPTI_API_ENTER && inj.ctx_sync && inj.ctx_sync() == 0)
			atomic_fetch_add(&inj.guard_syncs, 1);
		return;
	}
	if (dom == CUPTI_CB_DOMAIN_RESOURCE) {
		const CUpti_ResourceData *rd = data;
		if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED && inj.counters_on)
			gs_counters_context(rd->context);
		return;
	}
	if (inj.counters_on) {
		/* the runtime depth is counted before ENTER's hook and after EXIT's */
		if (dom == CUPTI_CB_DOMAIN_RUNTIME_API && cb->callbackSite == CUPTI_API_ENTER)
			tls_in_runtime_launch++;
		counters_hook(dom, cbid, cb);
		if (dom == CUPTI_CB_DOMAIN_RUNTIME_API) {
			if (cb->callbackSite == CUPTI_API_EXIT) {
				tls_in_runtime_launch--;
				atomic_fetch_add(&inj.launches, 1);
			}
		} else if (cb->callbackSite == CUPTI_API_EXIT && tls_in_runtime_launch == 0) {
			atomic_fetch_add(&inj.launches, 1);
		}
		return;
	}
	if (dom == CUPTI_CB_DOMAIN_RUNTIME_API) {
		if (cb->callbackSite == CUPTI_API_ENTER) {
			tls_in_runtime_launch++;
		} else {
			tls_in_runtime_launch--;
			atomic_fetch_add(&inj.launches, 1);
		}
	} else if (dom == CUPTI_CB_DOMAIN_DRIVER_API && cb->callbackSite == CUPTI_API_EXIT &&
		   tls_in_runtime_launch == 0) {
		atomic_fetch_add(&inj.launches, 1);
	}
}

static const struct {
	CUpti_CallbackDomain dom;
	CUpti_CallbackId cbid;
} launch_cbids[] = {
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz},
};

void on_fork_child(void)
{
	/* invariant 2: mine() is false from now on in the child */
}

/* GPUSCOPE_DEBUG only: where a crash happened, on stderr */
static void on_crash(int sig)
{
	void *pcs[64];
	int n = backtrace(pcs, 64);
	static const char msg[] = "gpuscope-inject: crash, backtrace:\n";
	if (write(2, msg, sizeof(msg) - 1) < 0)
		n = 0;
	backtrace_symbols_fd(pcs, n, 2);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void counters_log(const char *msg)
{
	dbg("%s", msg);
}

/* GPUSCOPE_METRICS=kernels (record --metrics kernels): per-kernel counters,
 * selected by GPUSCOPE_KERNEL_REGEX, GPUSCOPE_LAUNCH_SKIP and
 * GPUSCOPE_LAUNCH_COUNT (counters.h). A bad regex is reported and the
 * timeline is recorded without counters. */
void counters_setup(void)
{
	const char *m = getenv(KNOB(METRICS));
	if (!m || !strstr(m, "kernels"))
		return;
	const char *skip = getenv(KNOB(LAUNCH_SKIP)), *count = getenv(KNOB(LAUNCH_COUNT));
	struct gs_counters_opts o = {getenv(KNOB(KERNEL_REGEX)), skip ? strtol(skip, NULL, 10) : 0,
				     count ? strtol(count, NULL, 10) : 0, counters_log};
	const char *mode = getenv(KNOB(COUNTERS_MODE));
	inj.counters_mode = mode && strcmp(mode, "driver") == 0	 ? 1
			    : mode && strcmp(mode, "eager") == 0 ? 2
								 : 0;
	char why[256] = "";
	if (gs_counters_setup(&o, why, sizeof(why)) < 0) {
		status(0, 0, "kernel counters off: %s", why);
		return;
	}
	inj.counters_on = 1;
}

/* What the counters did, for the trace (at the last flush). */
void counters_report(void)
{
	if (!inj.counters_on)
		return;
	uint64_t profiled = 0, graphs = 0;
	uint32_t passes = 0;
	gs_counters_stats(&profiled, &graphs, &passes);
	/* what the counters did goes with them (correlation 0: no launch), for
	 * report's KERNEL COUNTERS; only trouble is a status, which reads as a
	 * warning */
	struct out o = {NULL, 4096, 0};
	o.buf = malloc(o.cap);
	if (o.buf) {
		emit_counter(&o, 0, "gpuscope__profiled_launches", (double)profiled);
		emit_counter(&o, 0, "gpuscope__counter_passes", (double)passes);
		emit_counter(&o, 0, "gpuscope__graph_launches_not_profiled", (double)graphs);
		out_flush(&o);
		free(o.buf);
	}
	const char *why = gs_counters_status(), *dropped = gs_counters_dropped();
	if (*why || *dropped)
		status(0, 0, "kernel counters:%s%s%s%s", *why ? " stopped: " : "", why,
		       *dropped ? "; metrics the chip lacks: " : "", dropped);
}

static void start(void)
{
	const char *d = getenv(KNOB(DEBUG));
	inj.debug = d && *d && strcmp(d, "0") != 0;
	if (inj.debug && env_is(KNOB(CRASH_TRACE), "1")) {
		void *pcs[1];
		backtrace(pcs, 1); /* loads libgcc now, not in the handler */
		signal(SIGSEGV, on_crash);
		signal(SIGBUS, on_crash);
		signal(SIGABRT, on_crash);
	}
	const char *fm = getenv(KNOB(FLUSH_MS));
	long ms = fm ? strtol(fm, NULL, 10) : 1000;
	inj.flush_ms = ms >= 10 && ms <= 60000 ? (unsigned)ms : 1000;
	if (open_spool() < 0)
		return;
	uint32_t ver = 0;
	if (cuptiGetVersion(&ver) != CUPTI_SUCCESS || ver / 10000 != CUPTI_API_VERSION / 10000 ||
	    ver < CUPTI_API_VERSION) {
		status(1, 0,
		       "libcupti version %u does not match the one gpuscope was built with (%u)",
		       ver, (unsigned)CUPTI_API_VERSION);
		return;
	}
	/* A subscription would hold CUPTI's single subscriber slot, so that a
	 * profiler started later in the program cannot take the records over
	 * (torch.profiler then fails: "CUPTI initialization failed", H200). But
	 * being subscribed costs 20-40% on PyTorch's small ops even with no
	 * callback enabled (bench/record-overhead.sh, H200), so it is opt-in:
	 * GPUSCOPE_GUARD_CUPTI=1; without it a takeover is detected and reported
	 * (heartbeat). GPUSCOPE_LAUNCH_CB=1 also counts launches by callback. */
	CUptiResult r;
	counters_setup();
	int guard = env_is(KNOB(HOST_FREE_GUARD), "1");
	if (inj.counters_on || guard || env_is(KNOB(GUARD_CUPTI), "1") ||
	    env_is(KNOB(LAUNCH_CB), "1")) {
		r = cuptiSubscribe(&inj.sub, on_api, NULL);
		if (r != CUPTI_SUCCESS) {
			status(1, r, "cupti subscribe failed: %s (another profiler attached?)",
			       cupti_err(r));
			return;
		}
		if (inj.counters_on && inj.counters_mode == 2)
			cuptiEnableCallback(1, inj.sub, CUPTI_CB_DOMAIN_RESOURCE,
					    CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
		void *cuda = guard ? dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD) : NULL;
		if (cuda && (*(void **)&inj.ctx_sync = dlsym(cuda, "cuCtxSynchronize"))) {
			cuptiEnableCallback(1, inj.sub, CUPTI_CB_DOMAIN_DRIVER_API,
					    CUPTI_DRIVER_TRACE_CBID_cuMemFreeHost);
			cuptiEnableCallback(1, inj.sub, CUPTI_CB_DOMAIN_DRIVER_API,
					    CUPTI_DRIVER_TRACE_CBID_cuMemHostUnregister);
			status(0, 0,
			       "GPUSCOPE_HOST_FREE_GUARD=1: host memory is freed only once the "
			       "device is idle");
		}
		if (inj.counters_on || env_is(KNOB(LAUNCH_CB), "1"))
			for (size_t i = 0; i < sizeof(launch_cbids) / sizeof(launch_cbids[0]); i++)
				cuptiEnableCallback(1, inj.sub, launch_cbids[i].dom,
						    launch_cbids[i].cbid);
	}
	cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
	/* GPUSCOPE_CUPTI_PER_THREAD=0: one activity buffer shared by all threads
	 * instead of CUPTI's per-thread buffers (its default); set before the
	 * callbacks are registered, as CUPTI asks; for the overhead bench */
	if (env_is(KNOB(CUPTI_PER_THREAD), "0")) {
		uint8_t per_thread = 0;
		size_t sz = sizeof(per_thread);
		r = cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, &sz,
					      &per_thread);
		dbg("per-thread activity buffers off: %s", cupti_err(r));
	}
	r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
	if (r != CUPTI_SUCCESS) {
		status(1, r, "cupti activity callbacks failed: %s", cupti_err(r));
		return;
	}
	/* GPUSCOPE_DISCARD=1: CUPTI collects as usual, its buffers are handed
	 * back unread (nothing converted or written): for the overhead bench, to
	 * tell CUPTI's own cost from gpuscope's; the trace then holds nothing */
	inj.discard = env_is(KNOB(DISCARD), "1");
	if (inj.discard)
		status(0, 0, "GPUSCOPE_DISCARD=1: records are collected and thrown away unread");
	inj.pool_on = !env_is(KNOB(BUFPOOL), "0");
	if (inj.pool_on) {
		uint8_t zeroed = 1;
		size_t sz = sizeof(zeroed);
		if (cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &sz,
					      &zeroed) != CUPTI_SUCCESS)
			dbg("cupti does not take zeroed buffers; the pool still saves allocations");
		pool_fill();
	}
	/* GPUSCOPE_CUPTI_PINNED=1: CUPTI's buffers for GPU timestamps in pinned
	 * host memory instead of device memory (its default since CUDA 12.0u1);
	 * set before any context exists, as CUPTI asks; for the overhead bench */
	if (env_is(KNOB(CUPTI_PINNED), "1")) {
		uint8_t pinned = 1;
		size_t sz = sizeof(pinned);
		r = cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED,
					      &sz, &pinned);
		dbg("GPU timestamp buffers in pinned host memory: %s", cupti_err(r));
	}
	/* GPUSCOPE_CUPTI_FLUSH_PERIOD_MS=N wakes CUPTI's worker thread (GPU
	 * timestamps, buffer delivery) every N ms instead of by its own
	 * heuristics (0: the heuristics); for the overhead bench. Measured on
	 * the H200 (seventh session, in-process transformer step, 3 processes
	 * per cell): 1000 ms gave 1.034 against the heuristics' 1.081 in one
	 * call and 1.098 against 1.067 in the next, with 100 and 10000 ms at
	 * 1.064 and 1.071: no effect beyond the noise, so the default stays
	 * CUPTI's. */
	const char *fp = getenv(KNOB(CUPTI_FLUSH_PERIOD_MS));
	if (fp && *fp) {
		r = cuptiActivityFlushPeriod((uint32_t)strtoul(fp, NULL, 10));
		dbg("CUPTI worker flush period %s ms: %s", fp, cupti_err(r));
	}
	const char *want = getenv(KNOB(KINDS));
	if (want && !*want)
		want = NULL;
	inj.kinds_want = want;
	inj.kinds_none = want && strcmp(want, "none") == 0;
	inj.api_mode = env_is(KNOB(API), "work")    ? API_WORK
		       : env_is(KNOB(API), "kind")  ? API_KIND
		       : env_is(KNOB(API), "all")   ? API_ALL
		       : env_is(KNOB(API), "calls") ? API_CALLS
						    : API_LEAN;
	int enabled = set_kinds(1, &r);
	uvm_note_flush(); /* what became of the unified-memory counters */
	if (gs_kinds_kernel_forced(want))
		status(0, 0,
		       "GPUSCOPE_KINDS=%s: kernels are recorded too (copies without kernels make "
		       "CUPTI break some programs: XLA's autotuning, CUDA_ERROR_LAUNCH_FAILED)",
		       want);
	if (inj.kinds_none)
		status(0, 0, "GPUSCOPE_KINDS=none: CUPTI is loaded but records nothing");
	else if (!enabled) {
		status(1, r, "no cupti activity kind could be enabled: %s", cupti_err(r));
		return;
	}
	atomic_store(&inj.capturing, 1);
	inj.started = 1;
	/* the heartbeat's record is enabled on its own, whatever the kinds */
	void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	if (cuda && !inj.kinds_none &&
	    cuptiActivityEnableDriverApi(CUPTI_DRIVER_TRACE_CBID_cuDriverGetVersion, 1) ==
		CUPTI_SUCCESS)
		*(void **)&inj.drv_version = dlsym(cuda, "cuDriverGetVersion");
	if (env_is(KNOB(CAPTURE), "off") && !inj.kinds_none)
		gpuscope_capture(0);
	pthread_atfork(NULL, NULL, on_fork_child);
	atexit(at_exit);
	pm_setup(); /* record --metrics pm: its own thread (pm_hook.c) */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_t th;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	atomic_store(&inj.flush_alive, 1);
	if (pthread_create(&th, &attr, flush_thread, NULL) != 0) {
		atomic_store(&inj.flush_alive, 0);
		status(0, 0, "no periodic flush thread; records are flushed at exit only");
	} else {
		catch_signals();
		register_quick_exit();
	}
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	dbg("recording to fd %d, %d activity kinds, flush every %u ms", inj.fd, enabled,
	    inj.flush_ms);
}

EXPORT int InitializeInjection(void)
{
	static atomic_int once;
	if (atomic_exchange(&once, 1))
		return 1;
	start();
	return 1;
}
