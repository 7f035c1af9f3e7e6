/*
 * doctor_render.h - doctor's two forms: text (the checks, then the
 * findings) and JSON (schema gpuscope.doctor.v1: checks and findings).
 * They format a finished report (health/doctor.h) and decide nothing.
 */
#ifndef GPUSCOPE_DOCTOR_RENDER_H
#define GPUSCOPE_DOCTOR_RENDER_H

#include <stdio.h>

#include "health/doctor.h"

void doctor_print_text(FILE *f, const struct doctor_report *r);
void doctor_print_json(FILE *f, const struct doctor_report *r);

#endif
