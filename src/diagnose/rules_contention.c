/*
 * rules_contention.c - host_contention (issue 36 item 4): the thread that
 * launches the GPU's work waits on its own host, for the GIL (asleep
 * outside CUDA calls while another thread of its process runs Python) or
 * for a CPU (runnable on a run queue), while the GPU idles. The figures are
 * analyze/contention.c's; thresholds.h says where the numbers come from,
 * docs/findings.md what the finding means.
 */
#include <stdio.h>
#include <string.h>

#include "diagnose/advice.h"
#include "diagnose/rules_int.h"
#include "util/error.h"
#include "util/i18n.h"

/* "name (file:line)" of a host frame, "" for 0 */
static void frame_name(const struct trace *t, uint32_t id, char *buf, size_t n)
{
	*buf = '\0';
	if (!id || id > t->n_host_frames)
		return;
	const struct trace_host_frame *f = &t->host_frames[id - 1];
	const char *file = trace_str(t, f->file_id), *b = strrchr(file, '/');
	b = b ? b + 1 : file;
	if (*b)
		snprintf(buf, n, "%s (%s:%u)", trace_str(t, f->name_id), b, f->line);
	else
		snprintf(buf, n, "%s", trace_str(t, f->name_id));
}

/* the launching thread's sleep outside CUDA calls that is not a known
 * wait (a Condition, an Event, sleep, a queue, I/O: contention.h) */
static double gil_sleep_ns(const struct an_contention *c)
{
	double known = c->sampled_ns > 0
			   ? (double)c->blocking_ns * (double)c->wall_ns / (double)c->sampled_ns
			   : 0;
	double s = (double)c->off_ns - known;
	return s > 0 ? s : 0;
}

/* the impact of idle ns the launching thread waited: never more than the
 * idle the host side is charged with (host work, dispatch, launch) */
static double contention_impact(const struct analysis *a, double idle)
{
	double host = (double)(a->idle.host_ns + a->idle.dispatch_ns + a->idle.launch_ns);
	return an_pct(a, idle < host ? idle : host);
}

/* A trace without scheduler statistics (torch.profiler's): the launching
 * thread's pauses between its ops at multiples of the GIL's hand-over
 * (contention.h). */
double adv_trace_gil_pct(const struct analysis *a)
{
	const struct an_contention *c = &a->contention;
	if (c->have || c->gil_pauses < TH_GIL_PAUSES_MIN ||
	    (double)c->gil_pauses < TH_GIL_PAUSE_SHARE * (double)c->pauses)
		return 0;
	double impact = contention_impact(a, (double)c->gil_pause_idle_ns);
	return impact >= TH_MIN_IMPACT_PCT ? impact : 0;
}

static int gil_from_ops(struct rule_ctx *ctx, const struct rule *r, char *err)
{
	struct analysis *a = ctx->a;
	const struct an_contention *c = &a->contention;
	double idle = (double)c->gil_pause_idle_ns;
	double impact = adv_trace_gil_pct(a);
	if (impact <= 0)
		return 0;
	struct finding *f = finding_add(
	    &a->findings, r->id, rule_sev(impact),
	    N_("the launching thread %u pauses between its ops in multiples of %.1f ms (%d of its "
	       "%d long pauses), the GIL's hand-over: another thread of its process holds the GIL; "
	       "the GPU idles %.1f%% of the run meanwhile"),
	    c->gil_tid, (double)c->gil_quantum_ns / 1e6, c->gil_pauses, c->pauses, impact);
	if (!f)
		return error_set(err, "out of memory");
	f->impact_pct = impact;
	finding_str(f, "kind", "%s", "gil");
	finding_num(f, "contention_idle_pct", impact);
	finding_num(f, "launch_thread", (double)c->gil_tid);
	finding_num(f, "gil_idle_pct", an_pct(a, idle));
	finding_num(f, "gil_handover_ms", (double)c->gil_quantum_ns / 1e6);
	finding_num(f, "gil_pauses", (double)c->gil_pauses);
	finding_num(f, "op_pauses", (double)c->pauses);
	finding_num(f, "gil_pause_ms", (double)c->gil_pause_ns / 1e6);
	finding_action(f, N_("find the thread that holds the GIL (the trace has no Python stacks "
			     "of the other threads): py-spy dump --pid PID prints every thread's "
			     "stack, and gpuscope record names the thread and its function"));
	adv_contention(f, a, 1, NULL);
	return 0;
}

int rule_host_contention(struct rule_ctx *ctx, const struct rule *r, char *err)
{
	struct analysis *a = ctx->a;
	const struct an_contention *c = &a->contention;
	if (!c->have)
		return gil_from_ops(ctx, r, err);
	if (c->wall_ns <= 0)
		return 0;
	double wall = (double)c->wall_ns, sleep = gil_sleep_ns(c);
	double wait_share = (double)c->wait_ns / wall, sleep_share = sleep / wall;
	double other_share = (double)c->other_cpu_ns / wall;
	/* an other thread that launches work too is the step's own (the main
	 * thread beside autograd's): the GPU waits on its work, not on a lock */
	int feeds = (double)c->other_launches >= TH_CONTENTION_OTHER_LAUNCHES * (double)c->launches;
	int gil = c->other_python && !feeds && sleep_share >= TH_CONTENTION_SLEEP_SHARE &&
		  other_share >= TH_CONTENTION_OTHER_SHARE;
	int cpu = wait_share >= TH_CONTENTION_WAIT_SHARE;
	if (!gil && !cpu)
		return 0;
	double idle_gil =
	    gil && c->off_ns > 0 ? (double)c->idle_off_ns * sleep / (double)c->off_ns : 0;
	double idle_cpu = cpu ? (double)c->idle_wait_ns : 0;
	double impact = contention_impact(a, idle_gil + idle_cpu);
	if (impact < TH_MIN_IMPACT_PCT)
		return 0;
	const struct trace *t = a->whole ? a->whole : a->t;
	char other[512], inner[512], waitfn[512];
	frame_name(t, c->other_frame, other, sizeof(other));
	frame_name(t, c->other_inner, inner, sizeof(inner));
	frame_name(t, c->wait_frame, waitfn, sizeof(waitfn));
	int by_gil = idle_gil >= idle_cpu;
	struct finding *f;
	if (by_gil && *other)
		f = finding_add(
		    &a->findings, r->id, rule_sev(impact),
		    N_("the launching thread waits for the GIL: it sleeps %.1f%% of its "
		       "time outside CUDA calls while thread %u runs Python (%s) on a "
		       "CPU %.1f%% of it; the GPU idles %.1f%% of the run meanwhile"),
		    100 * sleep_share, c->other_tid, other, 100 * other_share, impact);
	else if (by_gil)
		f = finding_add(
		    &a->findings, r->id, rule_sev(impact),
		    N_("the launching thread waits for the GIL: it sleeps %.1f%% of its "
		       "time outside CUDA calls while thread %u runs Python on a CPU "
		       "%.1f%% of it; the GPU idles %.1f%% of the run meanwhile"),
		    100 * sleep_share, c->other_tid, 100 * other_share, impact);
	else if (c->cpus > 0)
		f = finding_add(
		    &a->findings, r->id, rule_sev(impact),
		    N_("the launching thread waits for a CPU %.1f%% of its time: its "
		       "process keeps %d threads busy and may use %d CPUs; the GPU idles "
		       "%.1f%% of the run meanwhile"),
		    100 * wait_share, c->threads_busy, c->cpus, impact);
	else
		f = finding_add(&a->findings, r->id, rule_sev(impact),
				N_("the launching thread waits for a CPU %.1f%% of its time: its "
				   "process keeps %d threads busy; the GPU idles %.1f%% of the run "
				   "meanwhile"),
				100 * wait_share, c->threads_busy, impact);
	if (!f)
		return error_set(err, "out of memory");
	f->impact_pct = impact;
	finding_str(f, "kind", "%s", by_gil ? "gil" : "cpu");
	finding_num(f, "contention_idle_pct", impact);
	finding_num(f, "launch_thread", (double)c->tid);
	finding_num(f, "launch_thread_on_cpu_pct", 100.0 * (double)c->cpu_ns / wall);
	finding_num(f, "launch_thread_cpu_wait_pct", 100 * wait_share);
	finding_num(f, "launch_thread_cuda_pct", 100.0 * (double)c->cuda_ns / wall);
	finding_num(f, "launch_thread_sleep_pct", 100 * sleep_share);
	if (*waitfn)
		finding_str(f, "launch_thread_function", "%s", waitfn);
	finding_num(f, "gil_idle_pct", an_pct(a, idle_gil));
	finding_num(f, "cpu_wait_idle_pct", an_pct(a, idle_cpu));
	if (c->other_tid) {
		finding_num(f, "other_thread", (double)c->other_tid);
		finding_num(f, "other_thread_cpu_pct", 100 * other_share);
		if (*other)
			finding_str(f, "other_thread_function", "%s", other);
		if (*inner && strcmp(inner, other) != 0)
			finding_str(f, "other_thread_call", "%s", inner);
	}
	finding_num(f, "threads", (double)c->threads);
	finding_num(f, "busy_threads", (double)c->threads_busy);
	finding_num(f, "process_cpus_used", (double)c->proc_cpu_ns / wall);
	finding_num(f, "process_runq_threads", (double)c->proc_wait_ns / wall);
	finding_num_if(f, "cpus", c->cpus > 0, (double)c->cpus);
	adv_contention(f, a, by_gil, *other ? other : NULL);
	return 0;
}

void an_contention_primary(struct analysis *a)
{
	const struct finding *p = a->primary;
	if (!p || !rule_host_side(p->id) || !strcmp(p->id, "host_contention"))
		return;
	const struct finding *c = finding_find(&a->findings, "host_contention");
	if (c && c->impact_pct >= TH_CONTENTION_PRIMARY_SHARE * p->impact_pct)
		a->primary = c;
}
