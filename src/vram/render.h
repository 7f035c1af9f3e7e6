/*
 * render.h - 'gpuscope vram' as text and as JSON (docs/vram.md).
 *
 * JSON (schema gpuscope.vram.v1) carries total_bytes, allocated_peak_bytes
 * and a breakdown object of bytes per part (estimate.h's part keys) for the
 * peak phase, every phase with its own breakdown, the GPU fit and the
 * ladder of changes. Rendering cannot fail except on write errors.
 */
#ifndef GPUSCOPE_VRAM_RENDER_H
#define GPUSCOPE_VRAM_RENDER_H

#include <stdio.h>

#include "vram/advise.h"

void vram_render_text(FILE *f, const struct vram_report *r);
void vram_render_json(FILE *f, const struct vram_report *r);

#endif
