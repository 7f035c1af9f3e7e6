/*
 * fake_nvml.c - a stand-in libnvidia-ml.so.1 for record's CLI tests on
 * machines without a driver (tests/record/record_signals.sh): one GPU that
 * answers utilization and temperature, so that record's sampler really runs
 * (gpu/nvml.c loads it by name through LD_LIBRARY_PATH). It is never the
 * proof that sampling works on a GPU: the H200 fixtures are.
 */
#include <stdlib.h>
#include <time.h>

#define EXPORT __attribute__((visibility("default")))

struct fake_util {
	unsigned int gpu, memory;
};

static int dev; /* the one handle */

/* FAKE_NVML_INIT_MS: a slow nvmlInit, as a real driver's can be (~1 s) */
EXPORT int nvmlInit_v2(void)
{
	const char *ms = getenv("FAKE_NVML_INIT_MS");
	long v = ms ? atol(ms) : 0;
	struct timespec ts = {v / 1000, (v % 1000) * 1000000L};
	if (v > 0)
		nanosleep(&ts, NULL);
	return 0;
}

EXPORT int nvmlShutdown(void)
{
	return 0;
}

EXPORT int nvmlDeviceGetCount_v2(unsigned int *count)
{
	*count = 1;
	return 0;
}

EXPORT int nvmlDeviceGetHandleByIndex_v2(unsigned int index, void **handle)
{
	if (index != 0)
		return 2; /* NVML_ERROR_INVALID_ARGUMENT */
	*handle = &dev;
	return 0;
}

EXPORT int nvmlDeviceGetUtilizationRates(void *handle, struct fake_util *u)
{
	(void)handle;
	u->gpu = 42;
	u->memory = 7;
	return 0;
}

EXPORT int nvmlDeviceGetTemperature(void *handle, int sensor, unsigned int *c)
{
	(void)handle;
	(void)sensor;
	*c = 51;
	return 0;
}
