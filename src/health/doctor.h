/*
 * doctor.h - gpuscope doctor: the environment chain (driver -> devices ->
 * CUDA runtime -> framework -> architecture) and GPU health, bottom up as in
 * the seeds' section 5.x. Read-only: only NVML queries, /proc, dlopen of
 * libcudart, python3 -c and the kernel log.
 */
#ifndef GPUSCOPE_DOCTOR_H
#define GPUSCOPE_DOCTOR_H

#include <stdio.h>

#include "diagnose/finding.h"
#include "gpu/gpu.h"

enum check_status {
	CHECK_OK = 0,
	CHECK_WARNING,
	CHECK_FAIL,
	CHECK_SKIPPED,
};

struct doctor_check {
	char name[48];
	enum check_status status;
	char detail[512];
};

#define DOCTOR_MAX_CHECKS 96

struct doctor_report {
	struct doctor_check checks[DOCTOR_MAX_CHECKS];
	int n_checks;
	struct finding_list findings;
};

struct doctor_opts {
	const char *kernel_log;	  /* NULL: dmesg */
	const char *binary;	  /* NULL: no arch check on a file */
	const char *proc_version; /* NULL: /proc/driver/nvidia/version */
	/* opened GPUs (tests: NVML over a fake table; doctor closes them);
	 * NULL: open the registered vendors */
	struct gpu_sys *gpus;
	const char *root;    /* the kernel's files under ROOT (tests); NULL: / */
	int no_python;	     /* skip the python3/torch probe */
	int no_runtime_scan; /* skip the libcudart search */
};

void doctor_report_init(struct doctor_report *r);
void doctor_report_release(struct doctor_report *r);
/* Runs every check; never fails (problems become checks and findings). */
void doctor_run(struct doctor_report *r, const struct doctor_opts *o);
/* 1 when a finding is warning or above, or a check failed/warned. */
int doctor_found_problem(const struct doctor_report *r);

const char *check_status_name(enum check_status s);
/* Its text and JSON forms: render/doctor_render.h. */

/*
 * Driver/runtime compatibility (CUDA Toolkit Release Notes, Tables 2-3):
 * 0 compatible, 1 works only through minor-version compatibility (warning),
 * 2 the driver is too old (critical). Versions are 1000*major + 10*minor.
 */
int doctor_cuda_compat(int driver_cuda, int runtime_cuda);
/* The minimum Linux driver ("525.60.13") for a CUDA version, or NULL. */
const char *doctor_min_driver(int runtime_cuda);

#endif
