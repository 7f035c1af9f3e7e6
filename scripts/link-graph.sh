#!/usr/bin/env bash
# link-graph.sh OBJ_DIR [SRC_DIR]: checks that the objects of src/ only use symbols
# defined in their own layer or one below it (scripts/layers.sh), the link
# time half of include-graph.sh: a header may declare what a higher layer
# defines (trace_load_any in trace/ once did, defined in import/), and all
# of src/ links into one archive, so only the objects tell. OBJ_DIR holds
# one directory of objects per src/ directory (CMake's
# BUILD/CMakeFiles/gpuscope_core.dir/src). Prints each upward use as
# "FILE: uses SYMBOL from DIR/FILE" and exits 1 when there is one. With
# SRC_DIR, an object whose source is gone (a build tree's leftover after a
# move) is left out.
set -u -f
objs=${1:?usage: link-graph.sh OBJ_DIR [SRC_DIR]}
srcdir=${2:-}
. "$(dirname "$0")/layers.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
find "$objs" -name '*.o' | sort | while IFS= read -r o; do
	rel=${o#"$objs"/}
	[ -z "$srcdir" ] || [ -e "$srcdir/${rel%.o}" ] && echo "$o"
done >"$T/objs"
[ -s "$T/objs" ] || { echo "link-graph: no objects under $objs"; exit 2; }
while IFS= read -r o; do
	rel=${o#"$objs"/}
	nm -P --defined-only "$o" | awk -v f="$rel" '$2 ~ /^[TDBRVWGSC]$/ {print $1, f}' >>"$T/def"
	nm -P --undefined-only "$o" | awk -v f="$rel" '{print $1, f}' >>"$T/use"
done <"$T/objs"
sort -k1,1 -o "$T/def" "$T/def"
sort -k1,1 -o "$T/use" "$T/use"
bad=0
# SYMBOL USER DEFINER
while read -r sym user definer; do
	dir=${user%%/*}
	to=${definer%%/*}
	[ "$dir" = "$user" ] && dir=main
	[ "$dir" = "$to" ] && continue
	if ! layer_may "$dir" "$to"; then
		echo "${user%.o}: uses $sym from ${definer%.o} (${dir}/ may use: ${allow[$dir]:-anything but cli/})"
		bad=1
	fi
done < <(join -j 1 "$T/use" "$T/def")
[ $bad = 0 ] && echo "link graph: no upward use in $objs"
exit $bad
