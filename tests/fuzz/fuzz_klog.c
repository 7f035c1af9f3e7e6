/*
 * fuzz_klog.c - libFuzzer entry point: arbitrary bytes as a kernel log
 * (doctor --kernel-log): the XID scan over them, then its findings. Lines
 * are cut, NULs end lines (probe W5), and no field the scan keeps may hold
 * a control character that a terminal would obey (probe W2).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health/xid.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void no_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			abort(); /* a raw control character kept from the log */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct xid_scan s;
	FILE *f = fmemopen((void *)data, size ? size : 1, "rb");
	if (!f)
		return 0;
	memset(&s, 0, sizeof(s));
	xid_scan_stream(&s, f, 1 << 20);
	fclose(f);
	for (int i = 0; i < s.n; i++) {
		const struct xid_event *e[2] = {&s.g[i].first, &s.g[i].last};
		for (int k = 0; k < 2; k++) {
			no_control(e[k]->pci);
			no_control(e[k]->mig);
			no_control(e[k]->time);
			no_control(e[k]->process);
			no_control(e[k]->msg);
		}
	}
	struct finding_list l;
	finding_list_init(&l);
	xid_scan_findings(&s, &l);
	finding_list_release(&l);
	return 0;
}
