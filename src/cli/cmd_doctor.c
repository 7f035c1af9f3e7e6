/*
 * cmd_doctor.c - `gpuscope doctor`: parse options, run the checks in
 * src/health/doctor.c, print text or JSON. Exit 0 when nothing at warning or
 * above was found, 3 (GS_EXIT_FOUND) when something was (docs/doctor.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "health/doctor.h"

void help_doctor(FILE *f)
{
	fprintf(f, "usage: gpuscope doctor [--kernel-log FILE] [--binary PATH] "
		   "[--format text|json]\n\n"
		   "Checks the chain driver -> visible GPUs -> CUDA runtime -> framework -> "
		   "architecture,\nthen GPU health (clocks, PCIe, ECC, remapped rows, MIG, "
		   "processes) and XIDs in the\nkernel log. Read-only.\n\n"
		   "  --kernel-log FILE  read XIDs from FILE instead of dmesg\n"
		   "  --binary PATH      list the SM architectures in PATH and compare with the "
		   "GPUs\n"
		   "  --format FMT       text (default) or json (schema gpuscope.doctor.v1)\n\n"
		   "exit status: 0 nothing at warning or above, 3 a warning or worse (no driver "
		   "included),\n1 error, 2 usage\n");
}

int cmd_doctor(int argc, char **argv)
{
	struct doctor_opts o;
	struct doctor_report *r;
	int json = 0, rc;

	if (cli_wants_help(argc, argv)) {
		help_doctor(stdout);
		return GS_EXIT_OK;
	}
	memset(&o, 0, sizeof(o));
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if ((strcmp(a, "--kernel-log") == 0 || strcmp(a, "--binary") == 0 ||
		     strcmp(a, "--format") == 0) &&
		    i + 1 >= argc)
			return usage_error("option '%s' needs a value", a);
		if (strcmp(a, "--kernel-log") == 0)
			o.kernel_log = argv[++i];
		else if (strcmp(a, "--binary") == 0)
			o.binary = argv[++i];
		else if (strcmp(a, "--format") == 0) {
			const char *v = argv[++i];
			if (strcmp(v, "json") == 0)
				json = 1;
			else if (strcmp(v, "text") != 0)
				return usage_error("unknown format '%s' (text or json)", v);
		} else
			return usage_error("unknown option '%s' for doctor", a);
	}
	/* tests: skip slow, machine-dependent probes */
	if (getenv("GPUSCOPE_DOCTOR_NO_PYTHON"))
		o.no_python = 1;
	r = malloc(sizeof(*r));
	if (!r)
		return error_print("out of memory");
	doctor_report_init(r);
	doctor_run(r, &o);
	if (json)
		doctor_print_json(stdout, r);
	else
		doctor_print_text(stdout, r);
	rc = doctor_found_problem(r) ? GS_EXIT_FOUND : GS_EXIT_OK;
	doctor_report_release(r);
	free(r);
	return rc;
}
