/*
 * fake_amdsmi.c - a stand-in libamd_smi for test_vendors.c (built as
 * build/fake-amdsmi/libamd_smi.so): one socket with two GPUs on render
 * minors 128 and 129 (the amd-mi250x tree's), an energy counter that grows
 * 2 J (2000000 units of 1.0 uJ) per read on the first and fails on the
 * second, and activity 77 % GFX / 33 % UMC on the first. The signatures
 * are amdsmi.h's (ROCm 6).
 */
#include <stdint.h>
#include <string.h>

static int gpus[2];
static uint64_t energy;

int amdsmi_init(uint64_t flags)
{
	return flags & 2 ? 0 : 1; /* AMDSMI_INIT_AMD_GPUS */
}

int amdsmi_shut_down(void)
{
	return 0;
}

int amdsmi_get_socket_handles(uint32_t *n, void **h)
{
	if (*n < 1)
		return 1;
	*n = 1;
	h[0] = gpus;
	return 0;
}

int amdsmi_get_processor_handles(void *socket, uint32_t *n, void **h)
{
	if (socket != gpus || *n < 2)
		return 1;
	*n = 2;
	h[0] = &gpus[0];
	h[1] = &gpus[1];
	return 0;
}

int amdsmi_get_gpu_drm_render_minor(void *h, uint32_t *minor)
{
	*minor = h == &gpus[0] ? 128 : 129;
	return 0;
}

int amdsmi_get_energy_count(void *h, uint64_t *e, float *res, uint64_t *ts)
{
	if (h != &gpus[0])
		return 2; /* AMDSMI_STATUS_NOT_SUPPORTED */
	energy += 2000000;
	*e = energy;
	*res = 1.0f;
	*ts = 0;
	return 0;
}

int amdsmi_get_gpu_activity(void *h, uint32_t *u)
{
	if (h != &gpus[0])
		return 2;
	u[0] = 77;
	u[1] = 33;
	u[2] = 0;
	return 0;
}
