/*
 * levelzero.h - Level Zero Sysman through dlopen for the Intel backend
 * (levelzero.c): the device memory i915's sysfs does not tell.
 */
#ifndef GPUSCOPE_GPU_LEVELZERO_H
#define GPUSCOPE_GPU_LEVELZERO_H

#include "gpu/sysfs.h"

/* Loads the loader, matches Sysman devices to c's cards by PCI address (c->lib). */
int levelzero_attach(struct kctx *c);
void levelzero_close(void *lib);
/* Device-local memory in use and its size, bytes; 0 when unknown. */
int levelzero_memory(const struct kctx *c, unsigned dev, double *used, double *total);

#endif
