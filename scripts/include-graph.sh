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
# the layers: allow, vocab and core (scripts/layers.sh)
. "$(dirname "$0")/layers.sh"
bad=0
while IFS= read -r f; do
	rel=${f#"$src"/}
	dir=${rel%%/*}
	[ "$dir" = "$rel" ] && dir=${rel%.*} # src/main.c
	while IFS= read -r inc; do
		to=${inc%%/*}
		[ -z "$to" ] || [ "$to" = "$dir" ] && continue
		case " ${vocab[$dir]:-} " in *" $inc "*) continue ;; esac
		if ! layer_may "$dir" "$to"; then
			echo "$rel: includes $to/ (${dir}/ may include: ${allow[$dir]:-anything but cli/})"
			bad=1
		fi
	done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([a-z_0-9]*\/[^"]*\)".*/\1/p' "$f" | sort -u)
done < <(find "$src" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cpp' -o -name '*.inc' -o -name '*.cu' \) | sort)
# a core layer must not include a feature directory either: covered above,
# since a core layer's allow list names only core layers
[ $bad = 0 ] && echo "include graph: no upward edge in $src"
exit $bad
