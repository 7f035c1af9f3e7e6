/*
 * diff_render.h - `gpuscope diff`'s text and JSON (gpuscope.diff.v1,
 * docs/diff.md) forms of one struct diff (analyze/diff.h). They format
 * only: what is compared, matched and concluded is the engine's.
 * Rendering cannot fail except on write errors (ferror on f).
 */
#ifndef GPUSCOPE_DIFF_RENDER_H
#define GPUSCOPE_DIFF_RENDER_H

#include <stdio.h>

#include "analyze/diff.h"

#define DIFF_TEXT_KERNELS 20
#define DIFF_JSON_KERNELS 200

void diff_text(FILE *f, const struct diff *d);
void diff_json(FILE *f, const struct diff *d);

#endif
