/*
 * amdsmi.h - libamd_smi through dlopen for the amdgpu backend (amdsmi.c):
 * what sysfs lacks, on the devices it matches to the kctx's cards.
 */
#ifndef GPUSCOPE_GPU_AMDSMI_H
#define GPUSCOPE_GPU_AMDSMI_H

#include "gpu/sysfs.h"

/* Loads the library and matches its GPUs to c's cards (c->lib); 1 when loaded. */
int amdsmi_attach(struct kctx *c);
void amdsmi_close(void *lib);
/* The energy counter in joules; 0 when unknown. */
int amdsmi_energy_j(const struct kctx *c, unsigned dev, double *joules);
/* GFX and UMC activity in percent; 0 when unknown. */
int amdsmi_activity_pct(const struct kctx *c, unsigned dev, double *gfx, double *umc);

#endif
