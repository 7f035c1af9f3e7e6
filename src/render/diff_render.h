/*
 * diff_render.h - `gpuscope diff`'s text and JSON (gpuscope.diff.v1,
 * docs/diff.md) and HTML forms of one struct diff (report/diff.h). They format
 * only: what is compared, matched and concluded is the engine's.
 * Rendering cannot fail except on write errors (ferror on f).
 */
#ifndef GPUSCOPE_DIFF_RENDER_H
#define GPUSCOPE_DIFF_RENDER_H

#include <stdio.h>

#include "report/diff.h"
#include "report/report.h"

#define DIFF_TEXT_KERNELS 20
#define DIFF_JSON_KERNELS 200

void diff_text(FILE *f, const struct diff *d);
void diff_json(FILE *f, const struct diff *d);
/* The page of a diff with both runs' reports side by side (diff_html.c). */
void diff_html(FILE *f, const struct diff *d, const struct report *base, const struct report *new_);

#endif
