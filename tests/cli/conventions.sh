#!/usr/bin/env bash
# One command line for every command (#21 item 13): --format=x and --format x
# alike, --no-progress accepted everywhere, progress on stderr only when it
# is a terminal (and never on stdout), "wrote FILE" on stderr for every
# writer, usage errors in one line that point at 'gpuscope help CMD',
# report --range listing the ranges there are, occupancy taking sm_90a and
# --smem 48K.
# usage: conventions.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
db=$src/examples/tiny-kernel-storm.db
kin=$src/tests/fixtures/kineto-synthetic/small.json
T=$tmp
export GPUSCOPE_DOCTOR_NO_PYTHON=1

# --format=x and --format x: the same bytes, for every command with --format
same() { # same DESC ARGS-WITH-@F@...
	local desc=$1
	shift
	local a=() b=()
	for x in "$@"; do
		case $x in @F=*) a+=("--format=${x#@F=}"); b+=(--format "${x#@F=}") ;; *) a+=("$x"); b+=("$x") ;; esac
	done
	"$bin" "${a[@]}" >"$T/a" 2>/dev/null
	local ra=$?
	"$bin" "${b[@]}" >"$T/b" 2>/dev/null
	local rb=$?
	if [ $ra = $rb ] && [ $ra -le 3 ] && [ -s "$T/a" ] && cmp -s "$T/a" "$T/b"; then ok "$desc: --format=x = --format x"; else bad "$desc: exit $ra/$rb or output differs"; fi
}
same report report "$db" @F=json
same diff diff "$db" "$db" @F=json
same doctor doctor @F=json --kernel-log /dev/null
same occupancy occupancy --arch sm_90 --block-size 256 --regs 32 @F=json
same explain explain 79 @F=json
if "$bin" --help | grep -q '^  vram '; then
	same vram vram llama-3.2-1b --gpu h200 @F=json
fi

# --no-progress everywhere
np() { # np DESC WANT_RC ARGS...
	local desc=$1 want=$2
	shift 2
	"$bin" "$@" >/dev/null 2>"$T/err"
	local rc=$?
	[ $rc = "$want" ] && ok "$desc takes --no-progress" || { bad "$desc --no-progress: exit $rc"; cat "$T/err"; }
}
np report 0 report --no-progress "$db"
np diff 0 diff --no-progress "$db" "$db"
np export 0 export --no-progress "$db" --format csv -o "$T/csv"
np import 0 import --no-progress "$kin" -o "$T/k.db"
np record 0 record --no-progress --metrics none -o "$T/r.db" -- true
np occupancy 0 occupancy --no-progress --arch sm_90 --block-size 256 --regs 32
np explain 0 explain --no-progress 79
if "$bin" --help | grep -q '^  vram '; then
	np vram 0 vram --no-progress llama-3.2-1b --gpu h200
fi
"$bin" doctor --no-progress --kernel-log /dev/null >/dev/null 2>&1
[ $? -le 3 ] && ok "doctor takes --no-progress" || bad "doctor --no-progress"

# every usage error: one line, exit 2, pointing at 'gpuscope help CMD'
for c in $("$bin" --help | awk '/^commands:/{on=1;next} /^$/{on=0} on && /^  [a-z]/ {print $1}'); do
	"$bin" "$c" --frobnicate >/dev/null 2>"$T/err"
	rc=$?
	if [ $rc = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "see 'gpuscope help $c'" "$T/err"; then
		ok "$c: usage error points at 'gpuscope help $c'"
	else
		bad "$c: usage error: exit $rc"; cat "$T/err"
	fi
done

# progress: on a terminal, on stderr only; never when piped or asked not to
if ! command -v script >/dev/null; then
	bad "no script(1) (util-linux/bsdutils) to give the commands a terminal"
else
	tty_run() { # tty_run NAME ARGS...: stderr on a pty (typescript), stdout to a file
		local name=$1
		shift
		script -qec "$(printf '%q ' "$bin" "$@") >$T/$name.out" "$T/$name.tty" >/dev/null 2>&1
	}
	tty_run rep report "$db"
	grep -q "gpuscope: reading '.*tiny-kernel-storm.db'" "$T/rep.tty" && grep -q "analysing" "$T/rep.tty" &&
		ok "report: progress on a terminal" || { bad "report: no progress on a terminal"; cat -v "$T/rep.tty" | head -5; }
	grep -q "reading\|analysing" "$T/rep.out" && bad "report: progress on stdout"
	[ -s "$T/rep.out" ] || bad "report: nothing on stdout"
	tty_run quiet report --no-progress "$db"
	grep -q "reading\|analysing" "$T/quiet.tty" && bad "report --no-progress: progress shown" || ok "report --no-progress: none on a terminal"
	tty_run exp export "$db" --format perfetto -o "$T/p.json"
	grep -q "reading" "$T/exp.tty" && grep -q "writing '$T/p.json'" "$T/exp.tty" && ok "export: progress on a terminal" || bad "export: no progress"
	tty_run dif diff "$db" "$db"
	grep -q "analysing" "$T/dif.tty" && ok "diff: progress on a terminal" || bad "diff: no progress"
	tty_run rec record --metrics none -o "$T/t.db" -- true
	grep -q "reading the recordings\|writing '$T/t.db'" "$T/rec.tty" && ok "record: progress on a terminal" || bad "record: no progress"
	"$bin" report "$db" 2>"$T/err" >/dev/null
	[ -s "$T/err" ] && { bad "report: stderr not empty when it is not a terminal"; cat "$T/err"; } || ok "report: no progress when stderr is not a terminal"
fi

# "wrote FILE" on stderr, nothing on stdout, for every writer
wrote() { # wrote DESC FILE ARGS...
	local desc=$1 f=$2
	shift 2
	"$bin" "$@" >"$T/out" 2>"$T/err"
	grep -q "^gpuscope: wrote '$f'" "$T/err" && [ ! -s "$T/out" ] && ok "$desc: wrote FILE on stderr" || { bad "$desc: wrote"; cat "$T/out" "$T/err"; }
}
wrote "export perfetto" "$T/w.json" export "$db" --format perfetto -o "$T/w.json"
wrote "export csv" "$T/wcsv" export "$db" --format=csv -o "$T/wcsv"
wrote import "$T/w.db" import "$kin" -o "$T/w.db"
wrote record "$T/wr.db" record --metrics none -o "$T/wr.db" -- true

# report --range: a miss lists the ranges there are
"$bin" report --range nope "$db" >/dev/null 2>"$T/err"
[ $? = 1 ] && grep -q "no range named 'nope' in the trace; it has 'step'" "$T/err" && ok "report --range miss lists the ranges" || { bad "report --range miss"; cat "$T/err"; }
"$bin" report --range nope "$kin" >/dev/null 2>"$T/err"
grep -q "it has 'ProfilerStep#2', 'aten::mm'" "$T/err" && ok "report --range miss: annotations before ops" || { bad "range miss order"; cat "$T/err"; }

# occupancy: sm_90a is sm_90; 48K is 49152 bytes
"$bin" occupancy --arch sm_90a --block-size 256 --regs 32 --smem 48K --format json >"$T/a" 2>"$T/err" || { bad "occupancy sm_90a 48K"; cat "$T/err"; }
"$bin" occupancy --arch sm_90 --block-size 256 --regs 32 --smem 49152 --format json >"$T/b" 2>/dev/null
cmp -s "$T/a" "$T/b" && grep -q '"smem_per_block": 49152' "$T/a" && ok "occupancy: sm_90a and --smem 48K" || bad "occupancy sm_90a/48K differs"
for s in 48KiB 48kb; do
	"$bin" occupancy --arch sm_90 --block-size 256 --regs 32 --smem $s --format json 2>/dev/null | cmp -s - "$T/b" && ok "--smem $s" || bad "--smem $s"
done
exit $fail
