# layers.sh - the layers of src/ (docs/architecture.md), sourced by
# include-graph.sh (#include lines) and link-graph.sh (the symbols objects
# use). allow[DIR]: the directories DIR may use besides itself ("*": any);
# a directory not in the table (a feature: monitor/, serve/, vram/...) may
# use anything but cli/ and main.c, and no core layer may use it.
# shellcheck disable=SC2034 # read by the scripts that source it
# what each directory may include (and link against) besides itself
declare -A allow=(
	[util]=""
	[trace]="util"
	[gpu]="util"
	[preload]=""
	[import]="trace util"
	[inject]="trace gpu util"
	# the engine (issue 37): the analysis passes and their runner
	[analyze]="import trace gpu util"
	# findings, rules, thresholds, advice, warnings, diff
	[diagnose]="analyze trace gpu util"
	# the report model and its builders
	[report]="diagnose analyze trace gpu util"
	# host stacks and frameworks in the trace (src/hostsample, issue 17)
	[hostsample]="trace util"
	[health]="diagnose gpu util"
	[record]="trace gpu hostsample util"
	# formats the report model (report/: reports, findings, diff, rules);
	# doctor's result from health/, export reads the trace
	[render]="report health trace gpu hostsample util"
	[cli]="*"
	[main]="cli util"
)
# Vocabulary headers a lower layer may include: types and constants only,
# nothing it links (scripts/link-graph.sh checks the objects). An analysis
# carries its findings (the report model's vocabulary) and the engine's
# cuts are in the one threshold table; diagnose makes findings, the
# warnings (lines of the report model) and the diff model.
declare -A vocab=(
	[analyze]="report/finding.h diagnose/thresholds.h"
	[diagnose]="report/report.h report/finding.h report/diff.h"
)
core=" util trace gpu import inject analyze diagnose report hostsample "

# layer_may DIR TO: 0 when DIR may use TO (both src/ directories, DIR != TO)
layer_may() {
	if [ -n "${allow[$1]+x}" ]; then
		local a
		for a in ${allow[$1]}; do
			[ "$a" = "*" ] || [ "$a" = "$2" ] && return 0
		done
		# a known layer using a feature directory: only cli may
		[ -z "${allow[$2]+x}" ] && [ "$1" = cli ] && return 0
		return 1
	fi
	[ "$2" != cli ] && [ "$2" != main ]
}
