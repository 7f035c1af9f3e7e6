/*
 * fatbin.h - which SM architectures a CUDA binary carries.
 *
 * Reads the CUDA fatbinary sections (.nv_fatbin, __nv_relfatbin) of an ELF
 * executable, object or shared library, and lists the cubin (SASS) and PTX
 * architectures in them, for doctor's arch_unsupported check. Every read is
 * bounded by the file and section sizes; a malformed file is an error, never
 * a crash. Layout notes are in fatbin.c.
 */
#ifndef GPUSCOPE_FATBIN_H
#define GPUSCOPE_FATBIN_H

#define FATBIN_MAX_ARCHS 64

struct fatbin_arch {
	int sm;	    /* 80 for sm_80 */
	int is_ptx; /* 1: PTX (JIT-compilable), 0: cubin */
};

struct fatbin_archs {
	struct fatbin_arch a[FATBIN_MAX_ARCHS];
	int n;
	int sections; /* fatbinary sections found */
	long entries; /* entries walked (before de-duplication) */
	long fatbins; /* fatbinary headers walked */
	long reads;   /* pread calls made (bounded: see fatbin.c) */
};

/*
 * Fills out from path; -1 with err for unreadable / non-ELF / malformed files,
 * a directory, and a fatbinary section that holds no valid fatbinary (a
 * corrupt section is an error, never an empty architecture list).
 */
int fatbin_read(const char *path, struct fatbin_archs *out, char *err);

/*
 * 1 when the binary can run on compute capability major.minor: a cubin of the
 * same major with minor <= the GPU's, or PTX for an arch <= the GPU's (CUDA C
 * Programming Guide, "Binary Compatibility" and "PTX Compatibility").
 */
int fatbin_runs_on(const struct fatbin_archs *a, int cc_major, int cc_minor);

/* "sm_80 sm_90 compute_90" into buf. */
void fatbin_list(const struct fatbin_archs *a, char *buf, unsigned cap);

#endif
