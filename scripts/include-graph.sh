#!/usr/bin/env bash
# include-graph.sh SRC_DIR: checks that src/'s #include lines only point
# down the layers (docs/architecture.md), e.g. trace/ never includes cli/,
# analyze/ never includes render/ or cli/. Prints each upward edge as
# "FILE: includes DIR/..." and exits 1 when there is one.
#
# A directory not in the table (a new feature: monitor/, serve/, vram/...)
# may include anything but cli/ and main.c, and no core layer
# (util trace gpu import inject analyze) may include it.
set -u -f # -f: the "*" in the table is not a glob
src=${1:?usage: include-graph.sh SRC_DIR}
# what each directory may include besides itself
declare -A allow=(
	[util]=""
	[trace]="util"
	[gpu]="util"
	[preload]=""
	[import]="trace util"
	[inject]="trace gpu util"
	# the engine (issue 37): the analysis passes and their runner
	[analyze]="trace gpu util"
	# findings, rules, thresholds, advice, warnings, diff
	[diagnose]="analyze trace gpu util"
	# the report model and its builders
	[report]="diagnose analyze trace gpu util"
	# host stacks and frameworks in the trace (src/hostsample, issue 17)
	[hostsample]="trace util"
	[health]="diagnose gpu util"
	# record -> inject: only inject/knobs.h, the table of GPUSCOPE_* variables
	[record]="trace gpu inject hostsample util"
	[render]="report diagnose health trace gpu hostsample util"
	[cli]="*"
	[main]="cli util"
)
# Vocabulary headers a lower layer may include: types and constants only,
# nothing it links (scripts/link-graph.sh checks the objects). An analysis
# carries its findings and the engine's cuts are in the one threshold
# table; the warnings are lines of the report model.
declare -A vocab=(
	[analyze]="diagnose/finding.h diagnose/thresholds.h"
	[diagnose]="report/report.h"
)
core=" util trace gpu import inject analyze diagnose report hostsample "
bad=0
while IFS= read -r f; do
	rel=${f#"$src"/}
	dir=${rel%%/*}
	[ "$dir" = "$rel" ] && dir=${rel%.*} # src/main.c
	while IFS= read -r inc; do
		to=${inc%%/*}
		[ -z "$to" ] || [ "$to" = "$dir" ] && continue
		case " ${vocab[$dir]:-} " in *" $inc "*) continue ;; esac
		if [ -n "${allow[$dir]+x}" ]; then
			ok=0
			for a in ${allow[$dir]}; do
				[ "$a" = "*" ] || [ "$a" = "$to" ] && ok=1
			done
			# a known layer including a feature directory: only cli may
			if [ $ok = 0 ] && [ -z "${allow[$to]+x}" ] && [ "$dir" = cli ]; then ok=1; fi
		else
			ok=1
			[ "$to" = cli ] || [ "$to" = main ] && ok=0
		fi
		if [ $ok = 0 ]; then
			echo "$rel: includes $to/ (${dir}/ may include: ${allow[$dir]:-anything but cli/})"
			bad=1
		fi
	done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([a-z_0-9]*\/[^"]*\)".*/\1/p' "$f" | sort -u)
done < <(find "$src" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cpp' -o -name '*.inc' -o -name '*.cu' \) | sort)
# a core layer must not include a feature directory either: covered above,
# since a core layer's allow list names only core layers
[ $bad = 0 ] && echo "include graph: no upward edge in $src"
exit $bad
