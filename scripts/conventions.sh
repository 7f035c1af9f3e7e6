#!/usr/bin/env bash
# conventions.sh SRC_DIR: the written conventions of src/ that a grep can
# hold (docs/architecture.md, "Conventions"). Prints each breach as
# "FILE:LINE: RULE: text" and exits 1 when there is one.
#   growth   an array grown by hand (a doubled capacity before a realloc)
#            outside util/: util/vec.h is the one growable array
#   print    writing to the terminal (printf, puts, perror, stderr) outside
#            cli/ and the terminal views; the allowed places are listed
#   static   mutable state outside a function's call (a static or global
#            variable that is not const), unless listed with its reason
#   literal  a fractional number in a comparison or a factor near 1 in
#            diagnose/, doctor or the engine's cross-rank cuts
#            (analyze/comm.c): every such number is in thresholds.h
#   gpustate an NVML call that changes GPU state (nvmlDeviceSet*, *Reset*,
#            *Clear*): gpuscope only reads
#   translate a message translated in diagnose/ (_(), C_(), NG_()): findings
#            are made from message ids (N_()) and translated when shown
set -u -f
src=${1:?usage: conventions.sh SRC_DIR}
bad=0
say() { echo "$1"; bad=1; }

# where printing is the job: the commands, their views and the one printer
# of errors (the others say what they have to say through a callback)
print_ok=" cli/ main.c monitor/ inject/ util/error.c "
# mutable statics with their reason (FILE:NAME)
static_ok="
util/i18n.c:cur_lang util/i18n.c:bound util/i18n.c:warning util/i18n.c:warned util/i18n.c:localedir util/i18n.c:missing
util/i18n.c:saved_language util/i18n.c:orig_language util/i18n.c:looked
util/demangle.c:resolve_once util/demangle.c:resolved
util/crash.c:altstack
import/kineto.c:isal_once
gpu/gpu.c:reg_lock gpu/gpu.c:reg_once gpu/gpu.c:n_registry
record/signals.c:old record/signals.c:at_finish
cli/signals.c:stop_flag cli/help.c:built cli/help.c:n_built util/outfile.c:pending util/textsafe.c:state
monitor/tui.c:utf8 monitor/tui.c:last monitor/tui.c:have_last
inject/* preload/*
render/report_text.c:text_cols
"
# the reasons: i18n's state is set once by cli before any thread; demangle
# and kineto's ISA-L are resolved under pthread_once; the crash handler's
# stack, the GPU vendor registry (filled at start), record's and cli's
# signal state (outfile's temporary files, which cli's handler removes),
# the filter in front of stdout, help's command table and the terminal view are the
# process's; inject/ and preload/ are the libraries inside the profiled
# process.

while IFS= read -r f; do
	rel=${f#"$src"/}
	dir=${rel%%/*}/
	# growth: a doubled capacity within 3 lines before a realloc
	if [ "$dir" != util/ ]; then
		awk -v f="$rel" '
			/(cap[a-z_]*|_cap|n_?cap[a-z_]*)[ \t]*\*[ \t]*2([^0-9.]|$)|[^0-9.]2[ \t]*\*[ \t]*[a-z_]*cap|cap[a-z_]*[ \t]*\*=[ \t]*2/ { last = NR; text = $0 }
			/realloc\(/ && last && NR - last <= 3 { sub(/^[ \t]+/, "", text); printf "%s:%d: growth: %s (util/vec.h)\n", f, last, text; last = 0 }' "$f"
	fi
	# print
	case "$print_ok" in *" $dir "* | *" $rel "*) ;; *)
		grep -nE '\b(printf|puts|perror|putchar|vprintf)[[:space:]]*\(|\bstderr\b' "$f" |
			grep -vE '^[0-9]+:[[:space:]]*(/?\*|//)' | sed -E "s#^([0-9]+):[[:space:]]*#$rel:\1: print: #" ;;
	esac
	# statics: file scope (static or global, not const) and block scope
	grep -nE '^static ([a-z_]+ )*[a-z_0-9]+[ *]+[a-z_0-9]+(\[[^]]*\])?( = [^;]*|, [^;(]*)?;|^[[:space:]]+static ([a-z_]+ )*[a-z_0-9]+[ *]+[a-z_0-9]+(\[[^]]*\])?( = [^;]*|, [^;(]*)?;|^(unsigned |signed )?(int|long|char|double|float|size_t|uint[0-9a-z_]*|int[0-9a-z_]*|bool|struct [a-z_0-9]+|enum [a-z_0-9]+) \*?[a-z_0-9]+(\[[^]]*\])?( = [^;]*)?;' "$f" |
		grep -vE 'static (const|inline)|\bconst [a-z_0-9]+ ?\*? ?const\b|^[0-9]+:[[:space:]]*(/?\*|//)|^[0-9]+:(static )?const ' |
		while IFS= read -r l; do
			name=$(echo "${l#*:}" | sed -E 's/\[.*//; s/ = .*//; s/;.*//; s/.*[ *]//')
			case "$static_ok" in *"$rel:$name"* | *"${dir}*"*) continue ;; esac
			echo "$rel:${l%%:*}: static: $name is mutable state (${l#*:})"
		done
	# gpustate
	grep -nE 'nvml(Device|Unit|Vgpu|Gpu)(Set|Reset|Clear)[A-Za-z_]*' "$f" |
		sed -E "s#^([0-9]+):[[:space:]]*#$rel:\1: gpustate: #"
	# translate: an analysis does not depend on the process's language
	case "$rel" in diagnose/*)
		grep -nE '(^|[^A-Za-z0-9_])(_|C_|NG_)\(' "$f" |
			grep -vE '^[0-9]+:[[:space:]]*(/?\*|//)' |
			sed -E "s#^([0-9]+):[[:space:]]*#$rel:\1: translate: #; s#\$# (N_(): shown translated, report/finding.h)#" ;;
	esac
	# literal: diagnose/, doctor and analyze/comm.c: a fractional number
	# compared, or a factor near 1 (x * 1.05, 0.99 * x); unit conversions
	# are not
	case "$rel" in diagnose/*.c | health/doctor*.c | analyze/comm.c)
		sed -E 's#//.*##; s#/\*.*\*/##g; s#/\*.*##; s#^[[:space:]]*\*.*##; s#"([^"\\]|\\.)*"#""#g' "$f" |
			grep -nE '[<>]=?[[:space:]]*[0-9]+\.[0-9]+|[0-9]+\.[0-9]+[[:space:]]*[<>]|\*[[:space:]]*[01]\.[0-9]*[1-9]|[01]\.[0-9]*[1-9][0-9]*[[:space:]]*\*' |
			grep -v '#define' |
			sed -E "s#^([0-9]+):[[:space:]]*#$rel:\1: literal: #; s#\$# (diagnose/thresholds.h)#" ;;
	esac
done < <(find "$src" -type f \( -name '*.c' -o -name '*.cpp' \) | sort) >"${TMPDIR:-/tmp}/conventions.$$"
if [ -s "${TMPDIR:-/tmp}/conventions.$$" ]; then
	cat "${TMPDIR:-/tmp}/conventions.$$"
	bad=1
fi
rm -f "${TMPDIR:-/tmp}/conventions.$$"
[ $bad = 0 ] && echo "conventions: none broken in $src"
exit $bad
