"""cdp.py - a tiny Chrome DevTools Protocol client over --remote-debugging-pipe
(Python standard library only): the browser reads NUL-terminated JSON commands on its
fd 3 and writes replies and events on its fd 4. Used by html_browser.py (the HTML
report test) and bench/html-bench.py.
"""
import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time


def _above(fd, low):
    """fd moved to a number >= low."""
    high = fcntl.fcntl(fd, fcntl.F_DUPFD, low)
    os.close(fd)
    return high


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    """One headless browser with one page (a flat session on one target)."""

    def __init__(self, chromium, width=1200, height=900):
        self.profile = tempfile.mkdtemp(prefix="gpuscope-chromium-")
        cmd_r, self.cmd_w = os.pipe()  # we write commands, the browser reads them on fd 3
        self.ev_r, ev_w = os.pipe()  # the browser writes on fd 4
        # moved above 4, so that putting one on 3 or 4 cannot close the other
        cmd_r, ev_w = _above(cmd_r, 10), _above(ev_w, 10)
        args = [chromium, "--headless", "--remote-debugging-pipe", "--no-sandbox",
                "--disable-gpu", "--no-first-run", "--no-default-browser-check",
                "--disable-extensions", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--mute-audio",
                "--user-data-dir=" + self.profile, "about:blank"]
        # the shell puts the pipe ends on the fds the protocol names
        self.proc = subprocess.Popen(
            ["bash", "-c", 'exec "$0" "$@" 3<&%d 4>&%d %d<&- %d>&-' % (cmd_r, ev_w, cmd_r, ev_w)]
            + args, pass_fds=(cmd_r, ev_w), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(cmd_r)
        os.close(ev_w)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget",
                                 {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(domain + ".enable")
        self.viewport(width, height)

    def _read(self, timeout):
        deadline = time.monotonic() + timeout
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.ev_r], [], [], left)[0]:
                raise TimeoutError("no answer from the browser")
            chunk = os.read(self.ev_r, 1 << 20)
            if not chunk:
                raise EOFError("the browser closed its pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, timeout=60):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if self.session and not method.startswith("Target."):
            msg["sessionId"] = self.session
        os.write(self.cmd_w, json.dumps(msg).encode() + b"\0")
        while True:
            m = self._read(timeout)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)

    def wait_event(self, method, timeout=60):
        for i, m in enumerate(self.events):
            if m["method"] == method:
                del self.events[i]
                return m
        deadline = time.monotonic() + timeout
        while True:
            m = self._read(max(0.01, deadline - time.monotonic()))
            if m.get("method") == method:
                return m
            if "method" in m:
                self.events.append(m)

    def viewport(self, width, height, mobile=False, scale=1):
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": scale,
                   "mobile": mobile})

    def scripts(self, enabled):
        self.call("Emulation.setScriptExecutionDisabled", {"value": not enabled})

    def open(self, path, timeout=60):
        """Loads a file; returns the seconds until its load event."""
        self.events = []
        t0 = time.monotonic()
        self.call("Page.navigate", {"url": "file://" + os.path.abspath(path)})
        self.wait_event("Page.loadEventFired", timeout)
        return time.monotonic() - t0

    def eval(self, expr, timeout=60):
        r = self.call("Runtime.evaluate",
                      {"expression": expr, "returnByValue": True, "awaitPromise": True},
                      timeout)
        if "exceptionDetails" in r:
            raise RuntimeError("page script failed: %s" % r["exceptionDetails"])
        return r["result"].get("value")

    def problems(self):
        """Console errors, uncaught exceptions, failed loads and every request the page
        made beyond its own file."""
        out = []
        for m in self.events:
            p = m.get("params", {})
            if m["method"] == "Runtime.exceptionThrown":
                out.append("exception: %s" % p["exceptionDetails"].get("text"))
            elif m["method"] == "Runtime.consoleAPICalled" and p.get("type") in ("error",
                                                                                   "assert"):
                out.append("console.%s: %s" % (p["type"], [a.get("value") for a in p["args"]]))
            elif m["method"] == "Log.entryAdded" and p["entry"]["level"] == "error":
                out.append("log: %s" % p["entry"]["text"])
            elif m["method"] == "Network.requestWillBeSent":
                url = p["request"]["url"]
                if not url.startswith("file://") or p.get("type") != "Document":
                    out.append("request: %s" % url[:200])
            elif m["method"] == "Network.loadingFailed":
                out.append("failed load: %s" % p.get("errorText"))
        return out

    def screenshot(self, path, width=1200, max_height=2000):
        h = self.eval("document.documentElement.scrollHeight")
        r = self.call("Page.captureScreenshot",
                      {"format": "png", "captureBeyondViewport": True,
                       "clip": {"x": 0, "y": 0, "width": width,
                                "height": min(h, max_height), "scale": 1}})
        with open(path, "wb") as f:
            f.write(base64.b64decode(r["data"]))

    def close(self):
        try:
            self.call("Browser.close", timeout=10)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.cmd_w)
        os.close(self.ev_r)
        shutil.rmtree(self.profile, ignore_errors=True)
