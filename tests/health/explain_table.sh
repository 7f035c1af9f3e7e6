#!/usr/bin/env bash
# explain's table test (#22, #21 item 11): every row of explain_cases.tsv must give
# its expected entry first (JSON matches[0].id), or no match at all for "-", in
# English and in Chinese output; queries >= 1 KiB are read whole; a query over the
# limit is refused with a message.
# usage: explain_table.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
out=$tmp/out
python3 - "$bin" "$src/tests/health/explain_cases.tsv" <<'PY' || fail=1
import json, subprocess, sys
binary, table = sys.argv[1], sys.argv[2]
n = bad = 0
for line in open(table, encoding="utf-8"):
    line = line.rstrip("\n")
    if not line or line.startswith("#"):
        continue
    want, text = line.split("\t", 1)
    want = want.split(" ")[-1]
    for lang in ("en", "zh"):
        n += 1
        p = subprocess.run([binary, "explain", "--lang", lang, "--format", "json", text],
                           capture_output=True)
        m = json.loads(p.stdout)["matches"]
        got = m[0]["id"] if m else "-"
        wrc = 1 if want == "-" else 0
        if got != want or p.returncode != wrc:
            print(f"FAIL [{lang}]: {text!r} -> {got} (exit {p.returncode}), want {want} (exit {wrc})")
            bad += 1
print(f"table: {n} lookups, {bad} wrong")
sys.exit(1 if bad else 0)
PY
# a long paste: the signature is past the first KiB (#21 item 11: it was cut at 1 KiB)
long=$(python3 -c 'print("filler line of an unrelated log\n" * 200 + "RuntimeError: CUDA error: an illegal memory access was encountered")')
got=$(printf '%s' "$long" | "$bin" explain --format json - | python3 -c 'import json,sys; print(json.load(sys.stdin)["matches"][0]["id"])')
[ "$got" = illegal_address ] && ok "6 KiB paste on stdin" || bad "long paste -> $got"
got=$("$bin" explain --format json "$long" | python3 -c 'import json,sys; print(json.load(sys.stdin)["matches"][0]["id"])')
[ "$got" = illegal_address ] && ok "6 KiB argument" || bad "long argument -> $got"
# over the limit: an error, never a silent cut
head -c 5000000 /dev/zero | tr '\0' 'a' | "$bin" explain - >"$out" 2>&1
rc=$?
if [ $rc = 1 ] && grep -q "at most 4 MiB" "$out"; then ok "5 MB refused"; else
	bad "5 MB query: exit $rc: $(head -c 200 "$out")"; fi
# a miss in JSON is {"matches": []}
"$bin" explain --format json "the weather is nice" >"$out"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["matches"] == [], d' "$out" &&
	ok "miss json" || fail=1
# every entry, both languages: explain and doctor text stay within 100 columns
python3 - "$bin" "$src" <<'PY' || fail=1
import json, subprocess, sys, unicodedata
binary, src = sys.argv[1], sys.argv[2]
def width(line):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)
ids = [m["id"] for m in json.loads(subprocess.run([binary, "explain", "--list", "--format", "json"],
                                                  capture_output=True).stdout)["matches"]]
queries = [i[3:] if i.startswith("xid") and i[3:].isdigit() else i for i in ids]
bad = 0
for lang in ("en", "zh"):
    runs = [[binary, "explain", "--lang", lang, q] for q in queries]
    runs.append([binary, "explain", "--lang", lang, "--list"])
    runs.append([binary, "doctor", "--lang", lang, "--kernel-log",
                 src + "/tests/fixtures/kernel-logs/raw.log"])
    for r in runs:
        out = subprocess.run(r, capture_output=True, env={"GPUSCOPE_DOCTOR_NO_PYTHON": "1"}).stdout
        for line in out.decode().splitlines():
            if width(line) > 100:
                print(f"FAIL: {' '.join(r[1:])}: {width(line)} columns: {line[:60]}...")
                bad += 1
print(f"width: {len(runs) * 2} renders, {bad} lines over 100 columns")
sys.exit(1 if bad else 0)
PY
exit $fail
