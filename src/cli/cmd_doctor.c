/*
 * cmd_doctor.c - `gpuscope doctor`: parse options, run the checks in
 * src/health/doctor.c, print text or JSON. Exit 0 when nothing at warning or
 * above was found, 3 (GS_EXIT_FOUND) when something was (docs/doctor.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/progress.h"
#include "health/doctor.h"
#include "render/doctor_render.h"

struct doctor_cli_opts {
	const char *kernel_log, *binary, *format, *lang, *root;
	int progress;
};

static const struct cli_option doctor_options[] = {
    OPT_STRING(0, "kernel-log", struct doctor_cli_opts, kernel_log, "FILE",
	       "read XIDs from FILE instead of dmesg"),
    OPT_STRING(0, "binary", struct doctor_cli_opts, binary, "PATH",
	       "list the SM architectures in PATH and compare with the GPUs"),
    OPT_FORMAT(struct doctor_cli_opts, format, "text|json",
	       "text (default) or json (schema gpuscope.doctor.v1)"),
    OPT_STRING(0, "root", struct doctor_cli_opts, root, "DIR",
	       "read the kernel's GPU files (sys, proc, dev) under DIR instead of /\n(tests: AMD "
	       "and Intel fixture trees)",
	       .flags = CLI_HIDDEN),
    OPT_LANG(struct doctor_cli_opts, lang),
    OPT_PROGRESS(struct doctor_cli_opts, progress),
    OPT_END(),
};

const struct cli_spec cli_spec_doctor = {
    .name = "doctor",
    .max_args = 0,
    .options = doctor_options,
    .description = "Checks the chain driver -> visible GPUs -> CUDA runtime -> framework -> "
		   "architecture,\nthen GPU health (clocks, PCIe, ECC, remapped rows, MIG, "
		   "processes) and XIDs in the\nkernel log. Read-only.\n",
    .footer = "exit status: 0 nothing at warning or above, 3 a warning or worse (no driver "
	      "included),\n1 error, 2 usage\n",
};

int cmd_doctor(int argc, char **argv)
{
	struct doctor_cli_opts c = {.format = "text", .progress = -1};
	int n = cli_parse(&cli_spec_doctor, &c, argc, argv);
	if (n < 0)
		return cli_exit(n);
	struct doctor_opts o;
	memset(&o, 0, sizeof(o));
	o.kernel_log = c.kernel_log;
	o.binary = c.binary;
	o.root = c.root;
	/* tests: skip slow, machine-dependent probes */
	if (getenv("GPUSCOPE_DOCTOR_NO_PYTHON"))
		o.no_python = 1;
	struct doctor_report *r = malloc(sizeof(*r));
	if (!r)
		return error_print("out of memory");
	struct cli_progress pr;
	cli_progress_init(&pr, c.progress);
	cli_progress_step(&pr, "checking the driver, GPUs, CUDA runtime and framework");
	doctor_report_init(r);
	doctor_run(r, &o);
	cli_progress_done(&pr);
	if (strcmp(c.format, "json") == 0)
		doctor_print_json(stdout, r);
	else
		doctor_print_text(stdout, r);
	int rc = doctor_found_problem(r) ? GS_EXIT_FOUND : GS_EXIT_OK;
	doctor_report_release(r);
	free(r);
	return rc;
}
