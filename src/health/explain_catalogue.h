/*
 * explain_catalogue.h - private to the explain catalogue files: the two
 * halves of the error-text catalogue and checks they share.
 */
#ifndef GPUSCOPE_EXPLAIN_CATALOGUE_H
#define GPUSCOPE_EXPLAIN_CATALOGUE_H

#include <stddef.h>

#include "health/explain.h"
#include "util/i18n.h"

/* hardware, driver/NVML, CUDA runtime (explain_catalogue_sys.c) */
extern const struct explain_entry explain_sys[];
extern const size_t explain_sys_n;
/* frameworks, containers, Windows, desktops, laptops (explain_catalogue_env.c) */
extern const struct explain_entry explain_env[];
extern const size_t explain_env_n;
/* AMD (ROCm, HIP) and Intel (Level Zero) GPUs (explain_catalogue_vendors.c) */
extern const struct explain_entry explain_vendors[];
extern const size_t explain_vendors_n;

#define CK_DOCTOR                                                                                  \
	{                                                                                          \
		"gpuscope doctor", N_("the whole chain and the GPU's health in one pass")          \
	}
#define CK_SMI                                                                                     \
	{                                                                                          \
		"nvidia-smi", N_("driver version, the CUDA version it supports, the GPUs")         \
	}
#define CK_DMESG                                                                                   \
	{                                                                                          \
		"sudo dmesg -T | grep -iE 'nvrm|xid'", N_("what the driver logged")                \
	}
#define CK_VERSION                                                                                 \
	{                                                                                          \
		"cat /proc/driver/nvidia/version", N_("the loaded kernel module's version")        \
	}
#define CK_TORCH                                                                                   \
	{                                                                                          \
		"python -c 'import torch; print(torch.__version__, torch.version.cuda, "           \
		"torch.cuda.is_available())'",                                                     \
		    N_("the build (+cpu or a CUDA version) and whether it sees a GPU")             \
	}
#define CK_BLOCKING                                                                                \
	{                                                                                          \
		"CUDA_LAUNCH_BLOCKING=1 python train.py",                                          \
		    N_("errors are asynchronous: this makes the traceback point at the launch "    \
		       "that failed")                                                              \
	}
#define CK_SANITIZER                                                                               \
	{                                                                                          \
		"compute-sanitizer --tool memcheck python train.py",                               \
		    N_("the kernel and the bad address (slow: use a small input)")                 \
	}

#define GS_DOCTOR                                                                                  \
	{                                                                                          \
		"gpuscope doctor", N_("checks driver -> GPUs -> CUDA -> framework -> arch")        \
	}
#define GS_XIDS                                                                                    \
	{                                                                                          \
		"gpuscope doctor",                                                                 \
		    N_("XIDs in the kernel log, ECC and remapped rows of every GPU")               \
	}

#endif
