#!/usr/bin/env bash
# docs/findings.md against the rule table (`report --list-rules --format
# json`, src/analyze/rules.c): every id has its section, planned ids are
# marked planned and implemented ones are not, every evidence key of a rule
# is in its section's table with the same unit, and the docs name no report
# id the table lacks.
# usage: findings_doc.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
"$bin" report --list-rules --format json >"$tmp/rules.json" || die "--list-rules"
"$bin" report --list-rules >"$tmp/rules.txt" || die "--list-rules text"
grep -q '^input_pipeline ' "$tmp/rules.txt" || die "text listing has no input_pipeline row"
python3 - "$tmp/rules.json" "$src/docs/findings.md" <<'PY'
import json, re, sys
rules = json.load(open(sys.argv[1]))
doc = open(sys.argv[2]).read()
report = doc.split("## Doctor")[0]
sections = {}
for m in re.finditer(r"^### (\S+)\n(.*?)(?=^### |^## |\Z)", report, re.S | re.M):
    sections[m.group(1)] = m.group(2)
shared = re.search(r"^#### Counter evidence.*?(?=^### |^## |\Z)", report, re.S | re.M)
bad = []
ids = set()
for r in rules["rules"]:
    ids.add(r["id"])
    s = sections.get(r["id"])
    if s is None:
        bad.append("%s: no '### %s' section" % (r["id"], r["id"]))
        continue
    planned = "**Planned" in s
    if planned != (r["status"] == "planned"):
        bad.append("%s: the table says %s, the docs %s" % (r["id"], r["status"],
                   "planned" if planned else "implemented"))
    if not r["doc"].endswith("#" + r["id"]):
        bad.append("%s: anchor %s" % (r["id"], r["doc"]))
    text = s + (shared.group(0) if shared and "counter evidence below" in s else "")
    rows = dict(re.findall(r"^\| `([^`]+)` \| ([^|]*?) \|", text, re.M))
    for e in r["evidence"]:
        key = e["key"].replace("*", "NAME")
        if key not in rows:
            bad.append("%s: evidence %s not documented" % (r["id"], key))
        elif rows[key].strip() != e["unit"]:
            bad.append("%s: %s is '%s' in the docs, '%s' in the table" % (r["id"], key,
                       rows[key].strip(), e["unit"]))
for sid in sections:
    if sid not in ids:
        bad.append("docs/findings.md has a report id the table lacks: %s" % sid)
names = {t["name"] for t in rules["thresholds"]}
for need in ("short_kernel", "host_work", "min_impact", "occupancy"):
    if need not in names:
        bad.append("threshold %s missing from the listing" % need)
for b in bad:
    print("FAIL:", b)
if bad:
    sys.exit(1)
print("ok: %d rules, %d thresholds, docs/findings.md in step" % (len(rules["rules"]),
      len(rules["thresholds"])))
PY
