/*
 * perfetto_host.c - host samples in the Perfetto / Chrome JSON export
 * (perfetto.c calls it): one instant event per sample on its thread's
 * track, named by the innermost Python function (else the native leaf),
 * with the stack (innermost first, at most HOST_JSON_FRAMES frames) and the
 * mechanism in its args. A thread's samples then show as ticks under its
 * API calls and NVTX ranges, so the host code beside a GPU gap is one
 * click away.
 */
#include "render/perfetto_host.h"

#include <inttypes.h>
#include <string.h>

#include "hostsample/hostdata.h"
#include "util/json_out.h"

#define HOST_JSON_FRAMES 24

static const char *frame_name(const struct trace *t, uint32_t id)
{
	const struct trace_host_frame *f = host_frame_row(t, id);
	if (!f)
		return "?";
	const char *n = trace_str(t, f->name_id);
	return *n ? n : "?";
}

static void put_rel(FILE *f, int64_t ns)
{
	if (ns < 0) {
		fputc('-', f);
		ns = -ns;
	}
	fprintf(f, "%" PRId64 ".%03d", ns / 1000, (int)(ns % 1000));
}

void perfetto_host_samples(FILE *f, const struct trace *t, int64_t base)
{
	uint32_t fr[HOST_JSON_FRAMES];
	for (size_t i = 0; i < t->n_host_samples; i++) {
		const struct trace_host_sample *x = &t->host_samples[i];
		size_t n = host_stack_frames(t, x->stack_id, fr, HOST_JSON_FRAMES);
		size_t name_at = 0;
		for (size_t k = 0; k < n; k++) {
			const struct trace_host_frame *h = host_frame_row(t, fr[k]);
			if (h && h->kind == HOST_FRAME_PYTHON) {
				name_at = k;
				break;
			}
		}
		fputs("{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"host_sample\",\"name\":\"", f);
		json_escape(f, n ? frame_name(t, fr[name_at]) : "?");
		fprintf(f, "\",\"pid\":%u,\"tid\":%u,\"ts\":", x->pid, x->tid);
		put_rel(f, x->ts_ns - base);
		fprintf(f, ",\"args\":{\"source\":\"%s\",\"stack\":\"",
			x->source == HOST_SRC_PERF ? "perf" : "pyread");
		for (size_t k = 0; k < n; k++) {
			if (k)
				fputs(" <- ", f);
			json_escape(f, frame_name(t, fr[k]));
		}
		fputs("\"}},\n", f);
	}
}
