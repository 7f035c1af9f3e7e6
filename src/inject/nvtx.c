/*
 * nvtx.c - NVTX's injection entry point, handed on to CUPTI.
 *
 * record points NVTX_INJECTION64_PATH at this library, not at a libcupti
 * file: NVTX dlopens that path at the program's first NVTX call, and a
 * PyTorch process already holds the libcupti.so.13 of torch's wheel, which
 * this library bound to when CUDA loaded it. A second libcupti, loaded by
 * its path from the CUDA toolkit, took NVTX's calls into an instance that
 * records nothing (torch.cuda.nvtx.range: 0 ranges recorded on the H200,
 * --capture-range nvtx:NAME kept 0 of 50 kernels). Here NVTX is handed to
 * the libcupti this library resolved, whichever file that is.
 */
#include <cupti.h>
#include <dlfcn.h>
#include <stddef.h>

#include "inject/inject_int.h"

typedef int (*nvtx_init_fn)(void *arg);

/* libcupti's entry point name, called with arg; 0 when it has none */
static int hand_on(const char *name, void *self, void *arg)
{
	Dl_info di;
	/* in a shared object the address comes from the GOT: libcupti's own */
	if (!dladdr((void *)cuptiGetVersion, &di) || !di.dli_fname)
		return 0;
	void *h = dlopen(di.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		return 0;
	nvtx_init_fn init = (nvtx_init_fn)dlsym(h, name);
	int rc = init && (void *)init != self ? init(arg) : 0;
	dbg("%s handed to %s: %s", name, di.dli_fname, rc ? "ok" : "refused");
	/* h stays open: CUPTI's NVTX handlers live in it */
	return rc;
}

/* NVTX's core entry point (nvtxInitDecls.h): its export table getter;
 * nonzero on success */
EXPORT int InitializeInjectionNvtx2(void *get_export_table)
{
	return hand_on("InitializeInjectionNvtx2", (void *)InitializeInjectionNvtx2,
		       get_export_table);
}

/* NVTX extensions' entry point (payloads, counters): their module info */
EXPORT int InitializeInjectionNvtxExtension(void *module_info)
{
	return hand_on("InitializeInjectionNvtxExtension", (void *)InitializeInjectionNvtxExtension,
		       module_info);
}
