#!/usr/bin/env bash
# Every GPUSCOPE_* variable is in the one table (src/util/knobs.h), and the
# table is what docs/record.md and `record --help` show (issue #15 item 5):
# a variable read or set anywhere but missing from the table, a table entry
# docs/record.md does not document, or one `record --help` does not list
# fails here.
# usage: knobs.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
table=$(grep -oE '^[[:space:]]*X\([A-Z0-9_]+,' "$src/src/util/knobs.h" | sed -E 's/.*X\(([A-Z0-9_]+),/GPUSCOPE_\1/' | sort -u)
[ "$(echo "$table" | wc -l)" -ge 15 ] || die "knobs.h table not found"
# variables the code reads or sets: getenv/setenv literals and KNOB(ID)
used=$( (grep -rhoE '(getenv|setenv|env_is)\("GPUSCOPE_[A-Z0-9_]+"' "$src/src" | grep -oE 'GPUSCOPE_[A-Z0-9_]+'
	grep -rhoE --exclude=knobs.h 'KNOB\([A-Z0-9_]+\)' "$src/src" | sed -E 's/KNOB\((.*)\)/GPUSCOPE_\1/') | sort -u)
for v in $used; do
	case $v in GPUSCOPE_DOCTOR_*) continue ;; esac # doctor's own test hook, not record's
	echo "$table" | grep -qx "$v" || bad "$v is used but not in src/util/knobs.h"
done
help=$("$bin" record --help 2>&1)
for v in $table; do
	grep -q "\`$v\`" "$src/docs/record.md" || bad "$v is not in docs/record.md's table"
	echo "$help" | grep -q "$v" || bad "record --help does not list $v"
done
[ $fail = 0 ] && ok "$(echo "$table" | wc -l) variables in knobs.h, docs/record.md and record --help"
exit $fail
