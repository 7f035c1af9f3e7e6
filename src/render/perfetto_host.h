/*
 * perfetto_host.h - host samples as Chrome trace-event JSON instant events
 * (perfetto_host.c), for perfetto.c.
 */
#ifndef GPUSCOPE_PERFETTO_HOST_H
#define GPUSCOPE_PERFETTO_HOST_H

#include <stdint.h>
#include <stdio.h>

#include "trace/trace.h"

/* One "ph":"i" event per host sample, each followed by ",\n"; times in us
 * relative to base (ns). */
void perfetto_host_samples(FILE *f, const struct trace *t, int64_t base);

#endif
