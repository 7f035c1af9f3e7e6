/*
 * prom.h - Prometheus text exposition (format 0.0.4) of one round of GPU
 * readings: every registry metric (gpu/metrics.h) as gpuscope_<prom_name>
 * with its HELP and TYPE, labelled like dcgm-exporter (gpu, UUID,
 * pci_bus_id, device, model_name, hostname, driver_version; docs/serve.md
 * maps DCGM's field and label names); per-process series labelled with pid,
 * command, container_id and pod_uid, the pod's names where known
 * (pod_namespace, pod_name, container_name; dcgm-exporter's namespace, pod,
 * container with its labels) and GPU_I_ID under MIG; a GPU's (or MIG
 * instance's) series carry the pod's names when the processes on it are
 * one pod's. An unknown value is left out, never written as 0. `promtool
 * check metrics` clean.
 */
#ifndef GPUSCOPE_SERVE_PROM_H
#define GPUSCOPE_SERVE_PROM_H

#include <stddef.h>
#include <stdint.h>

#include "gpu/gpu.h"
#include "monitor/log.h"

struct prom_round {
	const char *host;
	unsigned n_dev;
	const struct gpu_static *st;   /* n_dev */
	const struct gpu_sample *s;    /* n_dev */
	const struct mon_procs *procs; /* n_dev; g.valid 0: not read */
	int64_t ts;		       /* the round's CLOCK_REALTIME, ns */
	const struct gpu_migs *migs;   /* n_dev, or NULL: no MIG instance series */
	int dcgm_labels;	       /* dcgm-exporter's exact label names (modelName, Hostname,
					* DCGM_FI_DRIVER_VERSION), which promtool's lint calls camelCase */
	int compat_dcgm;	  /* dcgm-exporter's metric names and units instead of gpuscope_*
				   * for every field DCGM has (implies dcgm_labels; docs/serve.md) */
	unsigned max_proc_series; /* per-process series at most (the first in GPU
				   * order); 0: no limit */
	uint64_t *proc_series_dropped; /* adds the series left out and writes the sum as
					* gpuscope_process_series_dropped_total; NULL:
					* neither */
};

/* Renders r into a malloc'd text (*out, *len), gpuscope_up 1 included.
 * -1 when out of memory. */
int prom_render(char **out, size_t *len, const struct prom_round *r);

/* The text while no GPU can be read: gpuscope_up 0 and
 * gpuscope_unavailable_info{hostname,reason} 1. -1 when out of memory. */
int prom_render_down(char **out, size_t *len, const char *host, const char *reason);

/* A registry metric's dcgm-exporter unit and the factor from the value's
 * own unit (gpu/metrics.h UNIT) to it: % stays % for DCGM_FI_DEV_* and is a
 * ratio for DCGM_FI_PROF_*, MB/s -> B/s, B -> MiB, J -> mJ, s -> us. */
double prom_dcgm_scale(int metric, const char **unit);

#endif
