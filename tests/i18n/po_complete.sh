#!/usr/bin/env bash
# Every message marked in the sources is translated in po/zh_CN.po (a msgid without a
# translation, a fuzzy one or a stale one fails), the .po compiles with msgfmt --check
# (printf formats agree), and the built binary speaks Chinese from --lang zh and from
# LANG / LC_MESSAGES / LANGUAGE even where the only locale is C.UTF-8, with ids, numbers
# and JSON keys unchanged. usage: po_complete.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
find "$src/src" -name '*.[ch]' | LC_ALL=C sort >"$tmp/files"
(cd "$src" && xgettext --from-code=UTF-8 --keyword=_ --keyword=N_ --keyword=C_:1c,2 \
	--keyword=NC_:1c,2 --keyword=NG_:1,2 --keyword=RM_T --keyword=TCOL:1 --keyword=BCOL:2 --files-from="$tmp/files" -o "$tmp/gpuscope.pot") ||
	die "xgettext"
cp "$src/po/zh_CN.po" "$tmp/zh.po"
msgmerge --quiet --no-fuzzy-matching -o "$tmp/merged.po" "$tmp/zh.po" "$tmp/gpuscope.pot"
untr=$(msgattrib --untranslated --no-obsolete "$tmp/merged.po" | grep -c '^msgid ' || true)
fuzzy=$(msgattrib --only-fuzzy --no-obsolete "$tmp/merged.po" | grep -c '^msgid ' || true)
stale=$(msgattrib --only-obsolete "$tmp/merged.po" | grep -c '^#~ msgid ' || true)
# the header counts once in --untranslated's output
if [ "$untr" -gt 1 ] || [ "$fuzzy" -gt 0 ]; then
	bad "po/zh_CN.po: $((untr - 1)) untranslated, $fuzzy fuzzy (run scripts/update-po.sh):"
	msgattrib --untranslated --no-obsolete "$tmp/merged.po" | grep -A1 '^msgid ' | sed -n 3,12p
else
	ok "every marked message is translated ($(grep -c '^msgid ' "$tmp/gpuscope.pot") msgids)"
fi
if [ "$stale" -gt 0 ]; then bad "$stale translation(s) of messages no longer in the sources"; fi
msgfmt --check -o /dev/null "$src/po/zh_CN.po" && ok "msgfmt --check" || bad "msgfmt --check"

zh() { grep -qP '[\x{4e00}-\x{9fff}]' "$tmp/out"; }
speaks_zh() { # speaks_zh DESC ENV... CMD...: env ENV... CMD... prints Chinese
	local desc=$1
	shift
	env "$@" >"$tmp/out" 2>"$tmp/err"
	if zh; then ok "$desc"; else
		bad "$desc: no Chinese"
		head -3 "$tmp/out" "$tmp/err"
	fi
}
speaks_zh "--lang zh with LC_ALL=C" -i LC_ALL=C "$bin" explain --lang zh 79
speaks_zh "LANG=zh_CN.UTF-8" -i LANG=zh_CN.UTF-8 "$bin" explain 79
speaks_zh "LC_MESSAGES=zh_CN.UTF-8" -i LC_MESSAGES=zh_CN.UTF-8 "$bin" explain "code 43"
speaks_zh "LANGUAGE=zh_CN:en" -i LANGUAGE=zh_CN:en LANG=C.UTF-8 "$bin" explain "显存不足"
speaks_zh "doctor in Chinese" -i LANG=zh_CN.UTF-8 GPUSCOPE_DOCTOR_NO_PYTHON=1 "$bin" doctor \
	--kernel-log "$src/tests/fixtures/kernel-logs/raw.log"
env -i LANG=zh_CN.UTF-8 "$bin" explain --lang en 79 >"$tmp/out" 2>&1
if zh; then bad "--lang en under a zh locale printed Chinese"; else ok "--lang en wins"; fi
# ids, numbers and JSON keys do not change with the language
env -i LANG=C.UTF-8 "$bin" explain --format json 79 >"$tmp/en.json"
env -i LANG=zh_CN.UTF-8 "$bin" explain --format json 79 >"$tmp/zh.json"
python3 - "$tmp/en.json" "$tmp/zh.json" <<'PY' || fail=1
import json, sys
en, zh = (json.load(open(p)) for p in sys.argv[1:3])
def keys(o):
    if isinstance(o, dict):
        return {k: keys(v) for k, v in o.items()}
    if isinstance(o, list):
        return [keys(v) for v in o]
    return type(o).__name__
assert keys(en) == keys(zh), "JSON shape differs"
m, n = en["matches"][0], zh["matches"][0]
for k in ("id", "xid", "severity", "layer", "score"):
    assert m[k] == n[k], k
assert m["nvidia"]["mnemonic"] == n["nvidia"]["mnemonic"]
assert [c["command"] for c in m["checks"]] == [c["command"] for c in n["checks"]]
assert m["title"] != n["title"]
print("ok: JSON keys, ids and numbers identical in both languages")
PY
GPUSCOPE_DOCTOR_NO_PYTHON=1 env LANG=zh_CN.UTF-8 "$bin" doctor --format json \
	--kernel-log "$src/tests/fixtures/kernel-logs/raw.log" >"$tmp/zh.json"
python3 - "$tmp/zh.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
x = [f for f in d["findings"] if f["id"] == "xid"]
assert x and all(c["status"] in ("ok", "warning", "fail", "skipped") for c in d["checks"])
assert sorted(f["evidence"]["code"] for f in x) == [48, 79]
print("ok: doctor JSON keeps ids and evidence keys in Chinese")
PY
exit $fail
