/*
 * amdsmi.c - what the amdgpu backend takes from AMD's libamd_smi when it is
 * installed, for what sysfs lacks: the energy counter (a dGPU's hwmon has
 * none; power follows from its change) and the activity where
 * gpu_busy_percent is absent. Loaded with dlopen (never linked), only
 * query functions resolved; each library device is matched to its sysfs
 * card by the DRM render minor. The ABI used (amdsmi.h, ROCm 6): handles are
 * pointers, amdsmi_get_gpu_activity fills three uint32 (gfx, umc, mm) at the
 * start of a struct with reserved room after them.
 *
 * Under a root prefix (tests) the library is the one ROOT/.gpuscope-amdsmi
 * names (a fake one), never the machine's: its devices are not the tree's.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/amdsmi.h"

#define AMDSMI_INIT_AMD_GPUS (1ULL << 1)
#define AMDSMI_STATUS_SUCCESS 0
#define AMDSMI_MAX_HANDLES 64

typedef int (*init_fn)(uint64_t);
typedef int (*shutdown_fn)(void);
typedef int (*sockets_fn)(uint32_t *, void **);
typedef int (*procs_fn)(void *, uint32_t *, void **);
typedef int (*minor_fn)(void *, uint32_t *);
typedef int (*energy_fn)(void *, uint64_t *, float *, uint64_t *);
typedef int (*activity_fn)(void *, void *);

struct amdsmi {
	void *lib;
	shutdown_fn shut_down;
	energy_fn energy;
	activity_fn activity;
	void *dev[GPU_MAX_DEVICES]; /* by the kctx's device index; NULL: not matched */
};

static void *sym(void *lib, const char *name)
{
	return dlsym(lib, name);
}

#define SYM(var, type, name)                                                                       \
	do {                                                                                       \
		void *p_ = sym(lib, name);                                                         \
		memcpy(&var, &p_, sizeof(p_));                                                     \
	} while (0)

void amdsmi_close(void *p)
{
	struct amdsmi *a = p;
	if (!a)
		return;
	if (a->shut_down)
		a->shut_down();
	dlclose(a->lib);
	free(a);
}

int amdsmi_attach(struct kctx *c)
{
	static const char *const names[] = {"libamd_smi.so", "/opt/rocm/lib/libamd_smi.so", NULL};
	void *lib = kctx_load_lib(c, "/.gpuscope-amdsmi", names);
	if (!lib)
		return 0;
	init_fn init;
	sockets_fn sockets;
	procs_fn procs;
	minor_fn minor;
	struct amdsmi *a = calloc(1, sizeof(*a));
	SYM(init, init_fn, "amdsmi_init");
	SYM(sockets, sockets_fn, "amdsmi_get_socket_handles");
	SYM(procs, procs_fn, "amdsmi_get_processor_handles");
	SYM(minor, minor_fn, "amdsmi_get_gpu_drm_render_minor");
	if (!a || !init || !sockets || !procs || !minor ||
	    init(AMDSMI_INIT_AMD_GPUS) != AMDSMI_STATUS_SUCCESS) {
		snprintf(c->note, sizeof(c->note),
			 "libamd_smi: not usable (no amdsmi_init or "
			 "device queries); sysfs only");
		free(a);
		dlclose(lib);
		return 0;
	}
	a->lib = lib;
	SYM(a->shut_down, shutdown_fn, "amdsmi_shut_down");
	SYM(a->energy, energy_fn, "amdsmi_get_energy_count");
	SYM(a->activity, activity_fn, "amdsmi_get_gpu_activity");
	void *sock[AMDSMI_MAX_HANDLES], *proc[AMDSMI_MAX_HANDLES];
	uint32_t ns = AMDSMI_MAX_HANDLES;
	if (sockets(&ns, sock) != AMDSMI_STATUS_SUCCESS)
		ns = 0;
	for (uint32_t s = 0; s < ns && s < AMDSMI_MAX_HANDLES; s++) {
		uint32_t np = AMDSMI_MAX_HANDLES;
		if (procs(sock[s], &np, proc) != AMDSMI_STATUS_SUCCESS)
			continue;
		for (uint32_t k = 0; k < np && k < AMDSMI_MAX_HANDLES; k++) {
			uint32_t m;
			if (minor(proc[k], &m) != AMDSMI_STATUS_SUCCESS)
				continue;
			for (unsigned d = 0; d < c->n; d++)
				if (c->dev[d].card.render_minor == (int)m)
					a->dev[d] = proc[k];
		}
	}
	c->lib = a;
	c->lib_close = amdsmi_close;
	return 1;
}

int amdsmi_energy_j(const struct kctx *c, unsigned dev, double *joules)
{
	struct amdsmi *a = c->lib;
	uint64_t e, ts;
	float res;
	if (!a || dev >= GPU_MAX_DEVICES || !a->dev[dev] || !a->energy ||
	    a->energy(a->dev[dev], &e, &res, &ts) != AMDSMI_STATUS_SUCCESS || !(res > 0))
		return 0;
	*joules = (double)e * res / 1e6; /* the counter counts units of res microjoules */
	return 1;
}

int amdsmi_activity_pct(const struct kctx *c, unsigned dev, double *gfx, double *umc)
{
	struct amdsmi *a = c->lib;
	uint32_t u[16]; /* gfx, umc, mm, then the struct's reserved room */
	memset(u, 0, sizeof(u));
	if (!a || dev >= GPU_MAX_DEVICES || !a->dev[dev] || !a->activity ||
	    a->activity(a->dev[dev], u) != AMDSMI_STATUS_SUCCESS || u[0] > 100 || u[1] > 100)
		return 0;
	*gfx = u[0];
	*umc = u[1];
	return 1;
}
