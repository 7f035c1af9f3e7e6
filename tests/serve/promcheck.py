"""What the end-to-end checks share (e2e_check.py, e2e_dcgm.py): "ok:"/"FAIL:" lines with a
count of failures, and Prometheus' HTTP API (the data of a successful answer, else an error)."""
import json
import urllib.parse
import urllib.request


class Checks:
    def __init__(self, prom):
        self.prom = prom
        self.fails = 0

    def check(self, desc, ok):
        print(("ok: " if ok else "FAIL: ") + desc)
        self.fails += 0 if ok else 1

    def api(self, path, **params):
        url = self.prom + path + "?" + urllib.parse.urlencode(params, doseq=True)
        with urllib.request.urlopen(url, timeout=10) as r:
            d = json.load(r)
        if d.get("status") != "success":
            raise RuntimeError("%s: %s" % (url, d))
        return d["data"]
