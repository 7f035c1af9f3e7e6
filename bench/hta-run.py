#!/usr/bin/env python3
"""hta-run.py - Holistic Trace Analysis on one trace directory, the analysis gpuscope report
is compared with: TraceAnalysis (the load) + the temporal, idle-time and GPU kernel
breakdowns, each timed. usage: hta-run.py TRACE_DIR. Prints HTA-RESULT lines (one per call,
ok or FAILED, and the total); exit 1 when the load fails. Used by bench/report-vs-hta.sh and
bench/speed-on-gpu.sh."""
import sys, time, traceback
t0 = time.time()
from hta.trace_analysis import TraceAnalysis
res = []
try:
    a = TraceAnalysis(trace_dir=sys.argv[1])
except Exception as e:
    traceback.print_exc()
    print("HTA-RESULT load FAILED %s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else ""))
    sys.exit(1)
res.append(("load", time.time() - t0))
print("HTA-RESULT load ok %.2f s" % res[-1][1], flush=True)
calls = [("get_temporal_breakdown", lambda: a.get_temporal_breakdown(visualize=False)),
         ("get_idle_time_breakdown", lambda: a.get_idle_time_breakdown(visualize=False)),
         ("get_gpu_kernel_breakdown", lambda: a.get_gpu_kernel_breakdown(visualize=False))]
failed = 0
for name, fn in calls:
    t = time.time()
    try:
        r = fn()
        print("HTA-RESULT %s ok %.2f s" % (name, time.time() - t), flush=True)
        print(r[0] if isinstance(r, tuple) else r)
    except Exception as e:
        failed += 1
        traceback.print_exc()
        print("HTA-RESULT %s FAILED %s: %s" % (name, type(e).__name__, str(e).splitlines()[0] if str(e) else ""), flush=True)
print("HTA-RESULT total %.2f s, %d of 3 analyses failed" % (time.time() - t0, failed))
