/*
 * fuzz_fatbin.c - libFuzzer entry point: arbitrary bytes as the binary of
 * doctor --binary (an ELF file with a CUDA fatbinary section). The reader
 * reads only headers through bounds-checked preads; whatever the bytes, it
 * returns an error or architectures in range, and an unknown entry kind is
 * an error, never skipped (probe W6).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "health/fatbin.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	char err[GS_ERR_LEN];
	struct fatbin_archs a;
	if (!path[0])
		snprintf(path, sizeof(path), "/tmp/gs-fuzz-fatbin-%d", (int)getpid());
	FILE *f = fopen(path, "wb");
	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	if (fatbin_read(path, &a, err) == 0) {
		for (int i = 0; i < a.n; i++)
			if (a.a[i].sm < 10 || a.a[i].sm >= 1000)
				abort(); /* an architecture the reader should have refused */
		(void)fatbin_runs_on(&a, 9, 0);
	}
	unlink(path);
	return 0;
}
