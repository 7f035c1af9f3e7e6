#!/usr/bin/env python3
"""html_browser.py - `report --format html` and `diff --format html` in a real browser.

usage: html_browser.py GPUSCOPE SOURCE_DIR OUT_DIR

Writes the pages of real H200 fixtures (CUDA zoo, PyTorch, multi-process; any
tests/fixtures/counters/*.db too) into OUT_DIR, opens each in headless Chromium (one
browser, the DevTools protocol over a pipe: cdp.py) and checks, against the
report's own JSON:
  - nothing goes wrong: no console error, no uncaught exception, no request beyond
    the page's own file (nothing is fetched at view time);
  - the verdict (#verdict) names the JSON's primary finding, and its text selects;
  - every chart (.chart[data-chart]) has drawn data (data-mark elements with a
    box), or says why it is empty; the charts the data calls for are there
    (timeline, span and category bars, the gap histogram when there are gaps, the
    metric charts when there are samples, the roofline with counters);
  - the timeline's numbers are the report's: its GPU-busy area says the JSON's
    gpu_busy_pct, it has one lane per stream (up to 16);
  - zooming works (the buttons rescale the time charts and reset them);
  - without JavaScript the page has the same charts and data, no zoom bar;
  - on a 390 px phone screen the page does not scroll sideways (charts scroll in
    their own boxes); printed, the zoom bar is hidden and charts fit the page;
  - the page is under 5 MB.
Screenshots go to OUT_DIR/*.png (docs/ holds three of them). Exit 1 on any failure.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402

PAGES = [
    "zoo/tiny_kernel_storm.db", "zoo/sync_every_step.db", "zoo/pageable_copies.db",
    "zoo/healthy_pipeline.db", "zoo/bandwidth_stream.db", "pytorch/transformer_step.db",
    "pytorch/dataloader_starved.json.gz", "procs/multi_process.db", "procs/py_torchrun.db",
]
DIFFS = [("zoo/tiny_kernel_storm.db", "zoo/graph_storm.db")]

# What the page says about itself, gathered in the page.
PROBE = r"""
(() => {
  // drawn: a box, or a dot (a zero-length round-capped segment: "h0")
  const box = e => { const r = e.getBoundingClientRect();
    return r.width > 0 || r.height > 0 || /h0/.test(e.getAttribute('d') || ''); };
  const v = document.querySelector('#verdict');
  let selected = '';
  if (v) {
    const s = window.getSelection(), r = document.createRange();
    r.selectNodeContents(v); s.removeAllRanges(); s.addRange(r);
    selected = s.toString(); s.removeAllRanges();
  }
  const charts = [...document.querySelectorAll('.chart[data-chart]')].map(c => ({
    name: c.dataset.chart, empty: c.dataset.empty || null,
    marks: c.querySelectorAll('[data-mark]').length,
    shown: [...c.querySelectorAll('[data-mark]')].filter(box).length,
    width: c.getBoundingClientRect().width}));
  const busy = document.querySelector('[data-chart=timeline] path[data-mark=busy] title');
  const zx = document.querySelector('[data-chart=timeline] .zx');
  return {verdict: v ? v.textContent : null, selected, charts,
          busy_title: busy ? busy.textContent : null,
          lanes: document.querySelectorAll('[data-chart=timeline] path[data-mark=kernel]').length,
          zbars: document.querySelectorAll('.zbar').length,
          zx: zx ? zx.getAttribute('transform') : null,
          scroll_width: document.documentElement.scrollWidth,
          body_width: document.body.clientWidth};
})()
"""

failures = []


def check(ok, page, what):
    if not ok:
        failures.append("%s: %s" % (page, what))
        print("FAIL %s: %s" % (page, what))


def scale_of(transform):
    return float(transform.split("scale(")[1].split(",")[0])


def check_page(b, page, html, want, out):
    """want: primary id (None: no finding), busy pct, streams, gaps, samples, counters."""
    size = os.path.getsize(html)
    check(size < 5 << 20, page, "%d bytes, over 5 MB" % size)
    load = b.open(html)
    p = b.eval(PROBE)
    check(not b.problems(), page, "browser problems: %s" % b.problems())
    check(p["verdict"] is not None, page, "no #verdict")
    primary = want["primary"] or "no bottleneck found"
    check(p["verdict"] and primary in p["verdict"], page,
          "verdict does not name %s: %r" % (primary, (p["verdict"] or "")[:120]))
    check(primary in p["selected"], page, "the verdict's text does not select")
    names = [c["name"] for c in p["charts"]]
    need = ["span", "categories", "timeline"]
    if want["gaps"]:
        need.append("idle_gaps")
    if want["samples"]:
        need.append("series-")
    if want["counters"]:
        need.append("roofline")
    for n in need:
        check(any(x.startswith(n) for x in names), page, "no %s chart (has %s)" % (n, names))
    for c in p["charts"]:
        check(c["empty"] or c["shown"] > 0, page, "chart %s draws nothing" % c["name"])
    busy = "(%.1f%% of the span)" % want["busy_pct"]
    check(p["busy_title"] and busy in p["busy_title"], page,
          "timeline busy says %r, the report %s" % (p["busy_title"], busy))
    check(p["lanes"] == min(want["streams"], 16), page,
          "%d kernel lanes for %d streams" % (p["lanes"], want["streams"]))
    # zoom: 'zoom in' doubles the time scale, 'whole span' restores it
    check(p["zbars"] >= 1, page, "no zoom bar with JavaScript on")
    if p["zx"]:
        s0 = scale_of(p["zx"])
        b.eval("document.querySelector('.zbar button').click()")
        s1 = scale_of(b.eval("document.querySelector('[data-chart=timeline] .zx')"
                             ".getAttribute('transform')"))
        check(abs(s1 / s0 - 2) < 0.01, page, "zoom in: scale %g -> %g" % (s0, s1))
        b.eval("document.querySelectorAll('.zbar button')[2].click()")
        s2 = scale_of(b.eval("document.querySelector('[data-chart=timeline] .zx')"
                             ".getAttribute('transform')"))
        check(abs(s2 / s0 - 1) < 1e-6, page, "whole span: scale %g, want %g" % (s2, s0))
    b.screenshot(os.path.join(out, os.path.basename(html)[:-5] + ".png"))
    # without JavaScript: the same charts and marks, no zoom bar
    b.scripts(False)
    b.open(html)
    q = b.eval(PROBE)
    b.scripts(True)
    check(not b.problems(), page, "problems without JavaScript: %s" % b.problems())
    check(q["zbars"] == 0, page, "a zoom bar without JavaScript")
    check([(c["name"], c["marks"]) for c in q["charts"]] ==
          [(c["name"], c["marks"]) for c in p["charts"]], page,
          "charts differ without JavaScript")
    check(q["verdict"] and primary in q["verdict"], page, "no verdict without JavaScript")
    # a phone: nothing wider than the screen but the charts' own scroll boxes
    b.viewport(390, 800, mobile=True)
    b.open(html)
    # (were the page wider, the phone's layout viewport would grow to fit it)
    w = b.eval("[document.documentElement.scrollWidth, window.innerWidth]")
    check(w[0] <= 391 and w[1] <= 391, page, "a 390 px phone screen scrolls sideways: %s" % w)
    if page == PAGES[0]:
        b.screenshot(os.path.join(out, "phone.png"), width=390, max_height=1600)
    b.viewport(1200, 900)
    # printed: no zoom bar, charts within the page
    b.call("Emulation.setEmulatedMedia", {"media": "print"})
    pr = b.eval("[getComputedStyle(document.querySelector('.zbar')||document.body).display,"
                " Math.max(...[...document.querySelectorAll('.chart svg')].map("
                "s => s.getBoundingClientRect().right)), document.body.clientWidth]")
    b.call("Emulation.setEmulatedMedia", {"media": ""})
    check(pr[1] <= pr[2] + 1, page, "printed charts overflow the page: %s" % pr)
    print("ok %-40s %8d bytes, loaded in %.2f s, %d charts" %
          (page, size, load, len(p["charts"])))


def report_facts(gpuscope, path):
    d = json.loads(subprocess.run([gpuscope, "report", "--format", "json", path], check=True,
                                  capture_output=True, text=True).stdout)
    return {"primary": d["primary"], "busy_pct": d["summary"]["gpu_busy_pct"],
            "streams": len(d["streams"]), "gaps": d["idle"]["gaps"],
            "samples": bool(d["samples"]), "counters": bool(d.get("kernel_counters"))}


def main():
    gpuscope, src, out = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(out, exist_ok=True)
    chromium = cdp.find_chromium()
    if not chromium:
        print("FAIL: no chromium (scripts/install-deps.sh installs Debian's)")
        return 1
    fixtures = os.path.join(src, "tests", "fixtures")
    counters = os.path.join(fixtures, "counters")
    pages = PAGES + sorted("counters/" + f for f in os.listdir(counters) if f.endswith(".db"))
    b = cdp.Browser(chromium)
    try:
        for page in pages:
            path = os.path.join(fixtures, page)
            html = os.path.join(out, page.replace("/", "_").split(".")[0] + ".html")
            with open(html, "w") as f:
                subprocess.run([gpuscope, "report", "--format", "html", path], check=True,
                               stdout=f)
            check_page(b, page, html, report_facts(gpuscope, path), out)
        for base, new in DIFFS:
            check_diff(b, gpuscope, fixtures, base, new, out)
    finally:
        b.close()
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


def check_diff(b, gpuscope, fixtures, base, new, out):
    page = "diff %s %s" % (base, new)
    html = os.path.join(out, "diff_%s_%s.html" % (os.path.basename(base).split(".")[0],
                                                  os.path.basename(new).split(".")[0]))
    paths = [os.path.join(fixtures, base), os.path.join(fixtures, new)]
    with open(html, "w") as f:
        subprocess.run([gpuscope, "diff", "--format", "html"] + paths, check=True, stdout=f)
    # the text form's span line ends with the verdict: faster, slower or same
    text = subprocess.run([gpuscope, "diff"] + paths, check=True, capture_output=True,
                          text=True).stdout
    span = [x for x in text.splitlines() if x.strip().startswith("span")][0]
    word = {"faster": "faster", "slower": "slower", "same": "the same"}[span.split()[-1]]
    b.open(html)
    p = b.eval(PROBE)
    check(not b.problems(), page, "browser problems: %s" % b.problems())
    check(p["verdict"] and ("is " + word) in p["verdict"], page,
          "verdict does not say %s: %r" % (word, (p["verdict"] or "")[:120]))
    names = [c["name"] for c in p["charts"]]
    for n in ("diff_categories", "diff_kernels", "timeline"):
        check(any(x.startswith(n) for x in names), page, "no %s chart (has %s)" % (n, names))
    check(sum(1 for x in names if x == "timeline") == 2, page, "not two timelines: %s" % names)
    for c in p["charts"]:
        check(c["empty"] or c["shown"] > 0, page, "chart %s draws nothing" % c["name"])
    b.screenshot(os.path.join(out, os.path.basename(html)[:-5] + ".png"))
    print("ok %-40s %8d bytes, %d charts" % (page, os.path.getsize(html), len(p["charts"])))


if __name__ == "__main__":
    sys.exit(main())
