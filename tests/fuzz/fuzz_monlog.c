/*
 * fuzz_monlog.c - libFuzzer entry point: arbitrary bytes as a monitor log
 * (monitor --replay, serve --replay), then the last round (with its MIG
 * instances) rendered as Prometheus text, a table and CSV: nothing a log
 * holds may crash them.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "monitor/log.h"
#include "monitor/monitor.h"
#include "serve/prom.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	static struct monlog l;
	static struct mon_procs procs[GPU_MAX_DEVICES];
	static struct gpu_migs migs[GPU_MAX_DEVICES];
	char err[GS_ERR_LEN];
	if (!path[0])
		snprintf(path, sizeof(path), "/tmp/gs-fuzz-monlog-%d", (int)getpid());
	FILE *f = fopen(path, "wb");
	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	if (monlog_read(&l, path, err) == 0) {
		size_t r = l.n_rounds - 1;
		for (unsigned d = 0; d < l.n_dev; d++) {
			monlog_round_procs(&l, r, d, &procs[d]);
			monlog_round_migs(&l, r, d, &migs[d]);
		}
		struct prom_round pr = {l.host, l.n_dev,	l.st, l.rounds[r].s,
					procs,	l.rounds[r].ts, migs};
		char *text;
		size_t len;
		if (prom_render(&text, &len, &pr) == 0)
			free(text);
		struct mon_frame fr = {l.n_dev,	      0,     l.n_dev, l.st,   l.rounds[r].ts,
				       l.rounds[r].s, procs, NULL,    l.host, 1,
				       migs};
		FILE *null = fopen("/dev/null", "w");
		if (null) {
			mon_table_round(null, &fr);
			mon_csv_round(null, &fr);
			fclose(null);
		}
		monlog_release(&l);
	}
	unlink(path);
	return 0;
}
