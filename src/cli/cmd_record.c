/*
 * cmd_record.c - `gpuscope record [-o FILE] [--metrics SET] [--sample-hz N]
 * -- CMD ARGS...`: the command line, then record_run (src/record/record.h)
 * does the work: CMD runs with libgpuscope-inject.so injected through
 * CUDA_INJECTION64_PATH and NVML/GPM sampled alongside, and the per-process
 * spool files (trace/spool.h) are merged into one trace database.
 *
 * Exit code: CMD's (128+signal when it was killed); 127 when CMD could not
 * run; 2 for a bad command line; 1 when the database could not be written;
 * 128+signal when a second signal abandoned the write.
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/progress.h"
#include "util/knobs.h"
#include "record/record.h"
#include "trace/capture.h"

/* checked here as the injected library will compile it (POSIX extended),
 * so that a typo is a usage error */
static int check_regex(void *field, const char *arg, char *err)
{
	regex_t re;
	if (regcomp(&re, arg, REG_EXTENDED | REG_NOSUB) != 0)
		return error_set(err, "bad --kernel-regex '%s' (POSIX extended regex)", arg);
	regfree(&re);
	*(const char **)field = arg;
	return 0;
}

/* --host-sampling HZ|off */
static int parse_host_hz(void *field, const char *arg, char *err)
{
	double *hz = field;
	if (strcmp(arg, "off") == 0) {
		*hz = 0;
		return 0;
	}
	char *end;
	double v = strtod(arg, &end);
	if (end == arg || *end || !(v > 0 && v <= RECORD_HOST_MAX_HZ))
		return error_set(err,
				 "--host-sampling takes a rate in (0, %g] Hz or 'off', not '%s'",
				 RECORD_HOST_MAX_HZ, arg);
	*hz = v;
	return 0;
}

/* --capture-range cudaProfilerApi|nvtx:NAME[@DOMAIN] */
static int parse_capture_range(void *field, const char *arg, char *err)
{
	return capture_parse_range(field, arg, err);
}

static int parse_delay(void *field, const char *arg, char *err)
{
	return capture_parse_seconds(field, "--delay", 0, arg, err);
}

static int parse_duration(void *field, const char *arg, char *err)
{
	return capture_parse_seconds(field, "--duration", 1, arg, err);
}

/* the command line; record_opts is filled from it */
struct record_cli {
	const char *output, *metrics, *kernel_regex;
	long long launch_skip, launch_count;
	double sample_hz, host_hz;
	int force, progress, allow_untraced;
	struct capture_spec capture;
};

static const struct cli_option record_options[] = {
    OPT_OUTPUT(struct record_cli, output,
	       "output database (default gpuscope.db; an existing non-gpuscope\n"
	       "file is refused)"),
    OPT_CHOICE(0, "metrics", struct record_cli, metrics, "nvml|none|kernels|pm",
	       "nvml (default): NVML/GPM samples; none; kernels: NVML/GPM samples\n"
	       "and per-kernel hardware counters (kernel replay, ~14 passes;\n"
	       "docs/counters.md); pm: NVML/GPM samples and CUPTI PM sampling\n"
	       "(SM, warps, DRAM, tensor pipe every 1 ms, no replay)"),
    OPT_CALLBACK(0, "kernel-regex", struct record_cli, kernel_regex, const char *, "RE",
		 check_regex,
		 "counters for kernels matching RE (mangled, demangled or function\n"
		 "name; default: every kernel's first launch)"),
    OPT_LLONG(0, "launch-skip", struct record_cli, launch_skip, "N", 0, 1e15,
	      "matching launches to pass over first (default 0)"),
    OPT_LLONG(0, "launch-count", struct record_cli, launch_count, "N", 0, 1e15,
	      "matching launches to profile (default: first of each kernel)"),
    OPT_DOUBLE(0, "sample-hz", struct record_cli, sample_hz, "HZ", RECORD_MIN_HZ, RECORD_MAX_HZ,
	       "NVML/GPM sampling rate (default 10)"),
    OPT_CALLBACK(0, "host-sampling", struct record_cli, host_hz, double, "HZ|off", parse_host_hz,
		 "host stacks (native and Python) of the program's main and CUDA-\n"
		 "calling threads at HZ (default 1000; off: none); perf events and\n"
		 "the CPython reader where the OS allows; a Python program's native\n"
		 "stacks at HZ/4 (docs/host-sampling.md)"),
    OPT_CALLBACK(0, "capture-range", struct record_cli, capture, struct capture_spec,
		 "cudaProfilerApi|nvtx:NAME[@DOMAIN]", parse_capture_range,
		 "keep only what the program did between cudaProfilerStart and\n"
		 "cudaProfilerStop (torch.cuda.profiler.start/stop; every pair), or\n"
		 "inside each NVTX range NAME (nested ones merge; docs/record.md)"),
    OPT_CALLBACK(0, "delay", struct record_cli, capture.delay_ns, int64_t, "S", parse_delay,
		 "leave out the first S seconds after the program starts"),
    OPT_CALLBACK(0, "duration", struct record_cli, capture.duration_ns, int64_t, "S",
		 parse_duration,
		 "keep at most S seconds from the start of each capture\n"
		 "(with --capture-range: of each window)"),
    OPT_FLAG(0, "allow-untraced", struct record_cli, allow_untraced,
	     "run CMD even when libgpuscope-inject.so cannot be found (CUDA is then\n"
	     "not traced; the reason is written into the database and shown by report)"),
    OPT_FORCE(struct record_cli, force),
    OPT_PROGRESS(struct record_cli, progress),
    OPT_END(),
};

/* one line of record --help per GPUSCOPE_* variable */
#define RECORD_KNOB_LINE(id, def, doc) "  GPUSCOPE_" #id " [" def "]: " doc "\n"

const struct cli_spec cli_spec_record = {
    .name = "record",
    .flags = CLI_COMMAND_AFTER_DASHDASH,
    .options = record_options,
    .description =
	"runs CMD with CUPTI injected (kernels, copies, memsets, runtime and driver API,\n"
	"synchronization, NVTX, allocations) and NVML/GPM sampled alongside; writes one\n"
	"trace database (default gpuscope.db)\n",
    .footer =
	"exit code: CMD's (128+signal if killed), 127 if CMD could not run, 128+signal if a\n"
	"second signal abandoned the database write\n"
	"environment (src/util/knobs.h, docs/record.md), default in brackets:\n" GPUSCOPE_KNOBS(
	    RECORD_KNOB_LINE),
};

static void say(void *ctx, enum record_say kind, const char *msg)
{
	struct cli_progress *pr = ctx;
	if (kind == RECORD_STEP) {
		cli_progress_step(pr, "%s", msg);
		return;
	}
	cli_progress_done(pr);
	fprintf(stderr, "gpuscope: %s%s\n", kind == RECORD_WARNING ? "warning: " : "", msg);
}

int cmd_record(int argc, char **argv)
{
	struct record_cli c = {
	    .output = "gpuscope.db",
	    .metrics = "nvml",
	    .sample_hz = 10,
	    .host_hz = RECORD_HOST_HZ,
	    .launch_skip = -1,
	    .launch_count = -1,
	    .progress = -1,
	};
	int n = cli_parse(&cli_spec_record, &c, argc, argv);
	if (n < 0)
		return cli_exit(n);
	if ((c.kernel_regex || c.launch_skip >= 0 || c.launch_count >= 0) &&
	    strcmp(c.metrics, "kernels") != 0)
		return cli_usage_error(&cli_spec_record,
				       "--kernel-regex, --launch-skip and --launch-count go with "
				       "--metrics kernels");
	if (cli_output_is_stdout(c.output))
		return cli_usage_error(&cli_spec_record, "a database cannot be written to stdout");
	argv[n] = NULL;
	struct cli_progress pr;
	cli_progress_init(&pr, c.progress);
	struct record_opts o = {
	    .output = c.output,
	    .metrics = c.metrics,
	    .kernel_regex = c.kernel_regex,
	    .launch_skip = c.launch_skip,
	    .launch_count = c.launch_count,
	    .sample_hz = c.sample_hz,
	    .host_hz = c.host_hz,
	    .force = c.force,
	    .allow_untraced = c.allow_untraced,
	    .capture = c.capture,
	    .cmd = argv,
	    .recorder = "gpuscope record " GPUSCOPE_VERSION,
	    .say = say,
	    .ctx = &pr,
	};
	struct record_result r;
	char err[GS_ERR_LEN];
	int rc = record_run(&r, &o, err);
	cli_progress_done(&pr);
	if (rc < 0) {
		error_print("%s", err);
		return r.exec_failed ? 127 : r.abandoned_by ? 128 + r.abandoned_by : GS_EXIT_ERROR;
	}
	if (r.replaced)
		fprintf(stderr, "gpuscope: replaced the gpuscope database '%s'\n", c.output);
	cli_wrote(&pr, c.output);
	return r.child_rc;
}
