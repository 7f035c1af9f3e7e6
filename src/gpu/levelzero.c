/*
 * levelzero.c - Level Zero Sysman (libze_loader.so.1) through dlopen for the
 * Intel backend: the device-local memory in use and its size, which i915's
 * sysfs does not tell (xe tells the size only). Never linked; only zesInit
 * and query functions resolved. Each Sysman device is matched to its sysfs
 * card by PCI address. The structures are zes_api.h's (Level Zero 1.5+:
 * zesInit), declared here with the fields used, stype first.
 *
 * Under a root prefix (tests) the loader is the one ROOT/.gpuscope-level-zero
 * names (a fake one), never the machine's.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/levelzero.h"

#define ZE_OK 0
#define ZES_STYPE_PCI_PROPERTIES 0x2
#define ZES_STYPE_MEM_PROPERTIES 0xb
#define ZES_STYPE_MEM_STATE 0x1e
#define ZES_MEM_LOC_DEVICE 1
#define ZE_MAX_HANDLES 64
#define ZE_MAX_MODULES 16

struct zes_pci_address {
	uint32_t domain, bus, device, function;
};
struct zes_pci_properties {
	uint32_t stype;
	const void *pnext;
	struct zes_pci_address address;
	unsigned char rest[64]; /* maxSpeed and the counters' flags: not read */
};
struct zes_mem_properties {
	uint32_t stype;
	const void *pnext;
	int32_t type;
	uint8_t on_subdevice;
	uint32_t subdevice_id;
	int32_t location;
	uint64_t physical_size;
	int32_t bus_width, num_channels;
};
struct zes_mem_state {
	uint32_t stype;
	const void *pnext;
	int32_t health;
	uint64_t free, size;
};

typedef int (*init_fn)(uint32_t);
typedef int (*driver_get_fn)(uint32_t *, void **);
typedef int (*device_get_fn)(void *, uint32_t *, void **);
typedef int (*pci_fn)(void *, struct zes_pci_properties *);
typedef int (*enum_mem_fn)(void *, uint32_t *, void **);
typedef int (*mem_props_fn)(void *, struct zes_mem_properties *);
typedef int (*mem_state_fn)(void *, struct zes_mem_state *);

struct levelzero {
	void *lib;
	mem_state_fn mem_state;
	/* by the kctx's device index: its device-local memory modules */
	void *mod[GPU_MAX_DEVICES][ZE_MAX_MODULES];
	unsigned n_mod[GPU_MAX_DEVICES];
};

#define SYM(var, name)                                                                             \
	do {                                                                                       \
		void *p_ = dlsym(lib, name);                                                       \
		memcpy(&var, &p_, sizeof(p_));                                                     \
	} while (0)

void levelzero_close(void *p)
{
	struct levelzero *z = p;
	if (!z)
		return;
	dlclose(z->lib);
	free(z);
}

/* the card whose PCI slot is a (sysfs's "0000:03:00.0"); -1 none */
static int card_of(const struct kctx *c, const struct zes_pci_address *a)
{
	char slot[32];
	snprintf(slot, sizeof(slot), "%04x:%02x:%02x.%x", a->domain, a->bus, a->device,
		 a->function);
	for (unsigned d = 0; d < c->n; d++)
		if (!strcasecmp(c->dev[d].card.slot, slot))
			return (int)d;
	return -1;
}

/* device d's memory modules that are on the device (not system memory) */
static void modules(struct levelzero *z, unsigned d, void *dev, enum_mem_fn enum_mem,
		    mem_props_fn props)
{
	void *m[ZE_MAX_MODULES];
	uint32_t n = ZE_MAX_MODULES;
	if (!enum_mem || !props || enum_mem(dev, &n, m) != ZE_OK)
		return;
	for (uint32_t k = 0; k < n && k < ZE_MAX_MODULES; k++) {
		struct zes_mem_properties p;
		memset(&p, 0, sizeof(p));
		p.stype = ZES_STYPE_MEM_PROPERTIES;
		if (props(m[k], &p) == ZE_OK && p.location == ZES_MEM_LOC_DEVICE)
			z->mod[d][z->n_mod[d]++] = m[k];
	}
}

int levelzero_attach(struct kctx *c)
{
	static const char *const names[] = {"libze_loader.so.1", NULL};
	void *lib = kctx_load_lib(c, "/.gpuscope-level-zero", names);
	if (!lib)
		return 0;
	init_fn init;
	driver_get_fn driver_get;
	device_get_fn device_get;
	pci_fn pci;
	enum_mem_fn enum_mem;
	mem_props_fn props;
	struct levelzero *z = calloc(1, sizeof(*z));
	SYM(init, "zesInit");
	SYM(driver_get, "zesDriverGet");
	SYM(device_get, "zesDeviceGet");
	SYM(pci, "zesDevicePciGetProperties");
	SYM(enum_mem, "zesDeviceEnumMemoryModules");
	SYM(props, "zesMemoryGetProperties");
	if (!z || !init || !driver_get || !device_get || !pci || init(0) != ZE_OK) {
		snprintf(
		    c->note, sizeof(c->note),
		    "level zero sysman: not usable (no zesInit or device queries); sysfs only");
		free(z);
		dlclose(lib);
		return 0;
	}
	z->lib = lib;
	SYM(z->mem_state, "zesMemoryGetState");
	void *drv[ZE_MAX_HANDLES], *dev[ZE_MAX_HANDLES];
	uint32_t nd = ZE_MAX_HANDLES;
	if (driver_get(&nd, drv) != ZE_OK)
		nd = 0;
	for (uint32_t i = 0; i < nd && i < ZE_MAX_HANDLES; i++) {
		uint32_t n = ZE_MAX_HANDLES;
		if (device_get(drv[i], &n, dev) != ZE_OK)
			continue;
		for (uint32_t k = 0; k < n && k < ZE_MAX_HANDLES; k++) {
			struct zes_pci_properties p;
			memset(&p, 0, sizeof(p));
			p.stype = ZES_STYPE_PCI_PROPERTIES;
			int d = pci(dev[k], &p) == ZE_OK ? card_of(c, &p.address) : -1;
			if (d >= 0 && !z->n_mod[d])
				modules(z, (unsigned)d, dev[k], enum_mem, props);
		}
	}
	c->lib = z;
	c->lib_close = levelzero_close;
	return 1;
}

int levelzero_memory(const struct kctx *c, unsigned dev, double *used, double *total)
{
	struct levelzero *z = c->lib;
	uint64_t u = 0, t = 0;
	if (!z || dev >= GPU_MAX_DEVICES || !z->n_mod[dev] || !z->mem_state)
		return 0;
	for (unsigned k = 0; k < z->n_mod[dev]; k++) {
		struct zes_mem_state s;
		memset(&s, 0, sizeof(s));
		s.stype = ZES_STYPE_MEM_STATE;
		if (z->mem_state(z->mod[dev][k], &s) != ZE_OK || s.free > s.size)
			return 0; /* one module unknown: the sum would be wrong */
		u += s.size - s.free;
		t += s.size;
	}
	*used = (double)u;
	*total = (double)t;
	return t > 0;
}
