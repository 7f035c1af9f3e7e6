/*
 * fake_ze.c - a stand-in Level Zero loader for test_vendors.c (built as
 * build/fake-ze/libze_loader.so.1): one driver, one Sysman device at PCI
 * 0000:03:00.0 (the intel trees' card) with two memory modules: 16 GiB on
 * the device with 4 GiB free, and one in system memory that must not count.
 * The structures are zes_api.h's fields in its order.
 */
#include <stdint.h>
#include <string.h>

static int driver, device, mods[2];

struct pci {
	uint32_t stype;
	const void *pnext;
	uint32_t domain, bus, dev, func;
};
struct mem_props {
	uint32_t stype;
	const void *pnext;
	int32_t type;
	uint8_t on_sub;
	uint32_t sub_id;
	int32_t location;
	uint64_t size;
	int32_t bus_width, channels;
};
struct mem_state {
	uint32_t stype;
	const void *pnext;
	int32_t health;
	uint64_t free, size;
};

int zesInit(uint32_t flags)
{
	return flags ? 1 : 0;
}

int zesDriverGet(uint32_t *n, void **h)
{
	if (*n < 1)
		return 1;
	*n = 1;
	h[0] = &driver;
	return 0;
}

int zesDeviceGet(void *drv, uint32_t *n, void **h)
{
	if (drv != &driver || *n < 1)
		return 1;
	*n = 1;
	h[0] = &device;
	return 0;
}

int zesDevicePciGetProperties(void *d, struct pci *p)
{
	if (d != &device || p->stype != 0x2)
		return 1;
	p->domain = 0;
	p->bus = 3;
	p->dev = 0;
	p->func = 0;
	return 0;
}

int zesDeviceEnumMemoryModules(void *d, uint32_t *n, void **h)
{
	if (d != &device || *n < 2)
		return 1;
	*n = 2;
	h[0] = &mods[0];
	h[1] = &mods[1];
	return 0;
}

int zesMemoryGetProperties(void *m, struct mem_props *p)
{
	if (p->stype != 0xb)
		return 1;
	p->location = m == &mods[0] ? 1 : 0; /* ZES_MEM_LOC_DEVICE, ZES_MEM_LOC_SYSTEM */
	p->size = 16ULL << 30;
	return 0;
}

int zesMemoryGetState(void *m, struct mem_state *s)
{
	if (s->stype != 0x1e)
		return 1;
	s->size = m == &mods[0] ? 16ULL << 30 : 64ULL << 30;
	s->free = m == &mods[0] ? 4ULL << 30 : 60ULL << 30;
	return 0;
}
