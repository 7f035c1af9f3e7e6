/*
 * doctor_int.h - private to doctor*.c: adding a check, and the steps that
 * live in doctor_log.c (the kernel log, and the text and JSON forms).
 */
#ifndef GPUSCOPE_DOCTOR_INT_H
#define GPUSCOPE_DOCTOR_INT_H

#include "health/doctor.h"

/* Appends a check (silently dropped past DOCTOR_MAX_CHECKS). */
void doctor_check(struct doctor_report *r, const char *name, enum check_status st, const char *fmt,
		  ...) __attribute__((format(printf, 4, 5)));
/* Appends "run: gpuscope explain ID" to f (the entry exists: test_doctor.c checks). */
void doctor_explain_action(struct finding *f, const char *id);

void doctor_check_kernel_log(struct doctor_report *r, const char *path);

/* The AMD and Intel chain and health (doctor_vendors.c), when such GPUs are
 * under o->root ("/" when NULL), their GPUs numbered from base (after
 * NVIDIA's on a machine with both). Returns bit 0 AMD found, bit 1 Intel found. */
int doctor_other_vendors(struct doctor_report *r, const struct doctor_opts *o, unsigned base);
/* 1 when the machine has an NVIDIA driver or PCI display device (under o->root). */
int doctor_nvidia_present(const struct doctor_opts *o);

#endif
