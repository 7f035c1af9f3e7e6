"""host_switch: record's host sampler switched from inside the program, for
the in-process host-sampling ABBA (bench/host-sampling-cost.sh).

`gpuscope record` with GPUSCOPE_HOST_SWITCH=FILE makes FILE (two bytes,
"11"); the first byte says what the launcher's sampler does: '1' both
mechanisms, 'p' perf events only, 'y' the CPython reader only, '0'
nothing (perf's events disabled, the reader idle); within one tick (1 ms
at 1 kHz) the sampler writes the state it reached into the second byte.
CPython 3.12's perf trampolines live in the program itself: they exist
when it was started with PYTHONPERFSUPPORT=1 (the bench sets it; record
asks for them only without the CPython reader) and are switched with
sys.deactivate/activate_stack_trampoline.

A variant names what its "on" repetitions add to its "off" ones (the
trampolines are off in both halves unless said):
  sampler  both mechanisms: record's default
  perf     perf events only
  pyread   the CPython reader only
  tramp    the trampolines alone (the sampler off in both halves)
  all      both mechanisms and the trampolines (record before 2026-12-03's
           second session)
  record   everything record does to the program while it runs: CUPTI's
           recording (gpuscope_capture of the injected library) and both
           mechanisms of the sampler, on and off together; what stays in
           the "off" half is CUPTI loaded with its kinds disabled
           (bench/record-overhead.sh's k_none cells measure that part)
No torch here.
"""
import os
import sys
import time

from abba import capture_fn

VARIANTS = ("sampler", "perf", "pyread", "tramp", "all", "record")
# variant -> (byte on, byte off, trampolines on, trampolines off)
_STATES = {
    "all": (b"1", b"0", True, False),
    "sampler": (b"1", b"0", False, False),
    "perf": (b"p", b"0", False, False),
    "pyread": (b"y", b"0", False, False),
    "tramp": (b"0", b"0", True, False),
    "record": (b"1", b"0", False, False),
}


class HostSwitch:
    def __init__(self, what="all"):
        path = os.environ.get("GPUSCOPE_HOST_SWITCH")
        if not path:
            raise SystemExit("--inproc-host: not run under `gpuscope record` with "
                             "GPUSCOPE_HOST_SWITCH=FILE")
        self.fd = os.open(path, os.O_RDWR)
        self.what = what
        self.capture = capture_fn() if what == "record" else None
        # trampolines exist only where record turned them on (perf events on, 3.12+)
        self.has_tramp = (hasattr(sys, "is_stack_trampoline_active")
                          and sys.is_stack_trampoline_active())

    def _tramp(self, on):
        if not self.has_tramp or sys.is_stack_trampoline_active() == on:
            return
        if on:
            sys.activate_stack_trampoline("perf")
        else:
            sys.deactivate_stack_trampoline()

    def set(self, byte, tramp):
        """0 when the sampler reached state byte within 2 s"""
        self._tramp(tramp)
        os.pwrite(self.fd, byte, 0)
        deadline = time.monotonic() + 2.0
        while os.pread(self.fd, 1, 1) != byte:
            if time.monotonic() > deadline:
                return -1
            time.sleep(0.0002)
        return 0

    def __call__(self, on):
        b_on, b_off, t_on, t_off = _STATES[self.what]
        if self.capture is not None and self.capture(1 if on else 0) != 0:
            return -1
        return self.set(b_on if on else b_off, t_on if on else t_off)

    def restore(self):
        """as record started: both mechanisms, trampolines as they were,
        recording on"""
        if self.capture is not None and self.capture(1) != 0:
            return -1
        return self.set(b"1", self.has_tramp)

    def describe(self):
        return f"host={self.what} trampolines={'yes' if self.has_tramp else 'none'}"


def run_variants(name, variants, run_block):
    """run_block(switch, label) for each variant of the comma list, in order"""
    for what in variants.split(","):
        if what not in _STATES:
            raise SystemExit(f"--inproc-host: unknown variant '{what}' "
                             f"(one of {', '.join(VARIANTS)})")
        sw = HostSwitch(what)
        print(f"INPROC_HOST name={name} {sw.describe()}", flush=True)
        run_block(sw, f"{name}:{what}")
        sw.restore()
