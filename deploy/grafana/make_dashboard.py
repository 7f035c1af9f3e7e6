#!/usr/bin/env python3
"""Writes gpuscope-dashboard.json (Grafana, Prometheus data source): per GPU and per process,
GPU-Util against SM activity, DRAM, tensor and FP pipes, memory, power/temperature/clocks with
the throttle reasons, XIDs, ECC and remapped rows, PCIe. Run from this folder:
python3 make_dashboard.py > gpuscope-dashboard.json (tests/deploy checks the two agree and that
every expression returns data from a Prometheus that scraped `gpuscope serve`)."""
import json

SEL = '{hostname=~"$hostname",gpu=~"$gpu"}'
SEL_R = '{hostname=~"$hostname",gpu=~"$gpu",reason!="gpu_idle"}'
LEG = "{{hostname}} gpu {{gpu}}"

# (title, unit, [(expr, legend)], note)
PANELS = [
    ("GPU-Util vs SM activity", "percentunit",
     [("gpuscope_gpu_utilization_ratio" + SEL, LEG + " GPU-Util (a kernel ran)"),
      ("gpuscope_sm_active_ratio" + SEL, LEG + " SM activity (SMs used)")],
     "GPU-Util only says a kernel was running; SM activity says how much of the GPU it used. "
     "High GPU-Util with SM activity near 0: a small kernel keeps the GPU busy."),
    ("SM occupancy", "percentunit", [("gpuscope_sm_occupancy_ratio" + SEL, LEG)], ""),
    ("DRAM bandwidth", "percentunit", [("gpuscope_dram_active_ratio" + SEL, LEG)],
     "Near 1: memory-bound."),
    ("Tensor and FP pipes", "percentunit",
     [("gpuscope_tensor_active_ratio" + SEL, LEG + " tensor"),
      ("gpuscope_fp32_active_ratio" + SEL, LEG + " fp32"),
      ("gpuscope_fp16_active_ratio" + SEL, LEG + " fp16"),
      ("gpuscope_fp64_active_ratio" + SEL, LEG + " fp64")], ""),
    ("Memory used", "bytes",
     [("gpuscope_memory_used_bytes" + SEL, LEG + " used"),
      ("gpuscope_memory_total_bytes" + SEL, LEG + " total")], ""),
    ("Power vs limit", "watt",
     [("gpuscope_power_usage_watts" + SEL, LEG + " power"),
      ("gpuscope_power_limit_watts" + SEL, LEG + " limit"),
      ("rate(gpuscope_energy_joules_total" + SEL + "[$__rate_interval])", LEG + " energy rate")], ""),
    ("Temperature vs slowdown", "celsius",
     [("gpuscope_temperature_celsius" + SEL, LEG),
      ("gpuscope_temperature_slowdown_celsius" + SEL, LEG + " slowdown")], ""),
    ("SM clock vs max", "hertz",
     [("gpuscope_sm_clock_hertz" + SEL, LEG),
      ("gpuscope_sm_clock_max_hertz" + SEL, LEG + " max"),
      ("gpuscope_memory_clock_hertz" + SEL, LEG + " memory")], ""),
    ("Clock-event (throttle) reasons", "none",
     [("max by (hostname, gpu, reason) (gpuscope_clock_event_reason_active" + SEL_R + ")",
       LEG + " {{reason}}")], "1 while the clocks are held down for that reason."),
    ("Time held down (s per s)", "percentunit",
     [("rate(gpuscope_clock_throttle_power_seconds_total" + SEL + "[$__rate_interval])", LEG + " power"),
      ("rate(gpuscope_clock_throttle_thermal_seconds_total" + SEL + "[$__rate_interval])", LEG + " thermal")], ""),
    ("XID errors since gpuscope started", "none",
     [("gpuscope_xid_errors_total" + SEL, LEG)], "gpuscope explain N says what XID N means."),
    ("ECC and remapped rows", "none",
     [("gpuscope_ecc_uncorrected_errors_total" + SEL, LEG + " ECC uncorrected"),
      ("gpuscope_ecc_corrected_errors_total" + SEL, LEG + " ECC corrected"),
      ("gpuscope_remapped_rows_uncorrectable_total" + SEL, LEG + " rows remapped (unc)"),
      ("gpuscope_row_remap_pending" + SEL, LEG + " remap pending")], ""),
    ("PCIe link: current vs max", "none",
     [("gpuscope_pcie_link_generation" + SEL, LEG + " gen"),
      ("gpuscope_pcie_link_generation_max" + SEL, LEG + " gen max"),
      ("gpuscope_pcie_link_width" + SEL, LEG + " width"),
      ("gpuscope_pcie_link_width_max" + SEL, LEG + " width max")],
     "A width below max means the link trained down; a lower gen at idle is normal."),
    ("PCIe throughput", "Bps",
     [("gpuscope_pcie_tx_bytes_per_second" + SEL, LEG + " tx"),
      ("gpuscope_pcie_rx_bytes_per_second" + SEL, LEG + " rx"),
      ("rate(gpuscope_pcie_replays_total" + SEL + "[$__rate_interval])", LEG + " replays/s")], ""),
    ("Process memory", "bytes",
     [("gpuscope_process_memory_used_bytes" + SEL,
       "{{hostname}} gpu {{gpu}} pid {{pid}} {{command}} {{pod_namespace}} {{pod_name}}")],
     "Per process, with its container and pod: attribution on a shared GPU."),
    ("Process SM utilization", "percentunit",
     [("gpuscope_process_sm_utilization_ratio" + SEL,
       "{{hostname}} gpu {{gpu}} pid {{pid}} {{command}} {{pod_namespace}} {{pod_name}}")], ""),
    ("GPU memory by pod", "bytes",
     [("sum by (hostname, pod_namespace, pod_name) (gpuscope_process_memory_used_bytes" + SEL + ")",
       "{{hostname}} {{pod_namespace}} {{pod_name}}")],
     "The pods' processes' device memory, each pod's summed over its GPUs (processes of no pod: "
     "no names). Names from the kubelet's log directories (docs/serve.md)."),
]


def panel(i, title, unit, targets, note):
    return {
        "id": i + 1, "type": "timeseries", "title": title, "description": note,
        "datasource": {"type": "prometheus", "uid": "${datasource}"},
        "gridPos": {"h": 8, "w": 12, "x": (i % 2) * 12, "y": (i // 2) * 8},
        "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
        "options": {"legend": {"displayMode": "list", "placement": "bottom"}},
        "targets": [{"refId": chr(65 + k), "expr": e, "legendFormat": l,
                     "datasource": {"type": "prometheus", "uid": "${datasource}"}}
                    for k, (e, l) in enumerate(targets)],
    }


def var(name, query):
    return {"name": name, "type": "query", "label": name, "includeAll": True, "multi": True,
            "allValue": ".*", "refresh": 2,
            "datasource": {"type": "prometheus", "uid": "${datasource}"},
            "definition": query, "query": {"query": query, "refId": name}}


dash = {
    "title": "gpuscope: the numbers nvidia-smi hides",
    "uid": "gpuscope-gpus", "schemaVersion": 39, "version": 1, "editable": True,
    "time": {"from": "now-1h", "to": "now"}, "refresh": "30s", "tags": ["gpuscope", "gpu"],
    "templating": {"list": [
        {"name": "datasource", "type": "datasource", "query": "prometheus", "label": "data source"},
        var("hostname", "label_values(gpuscope_gpu_info, hostname)"),
        var("gpu", 'label_values(gpuscope_gpu_info{hostname=~"$hostname"}, gpu)'),
    ]},
    "panels": [panel(i, *p) for i, p in enumerate(PANELS)],
}
print(json.dumps(dash, indent=2))
