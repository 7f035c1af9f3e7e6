#!/usr/bin/env bash
# bench/fetch-hta.sh - Holistic Trace Analysis as wheels, for a GPU host that has no package
# registry: bench/speed-on-gpu.sh installs them from there and runs HTA beside gpuscope.
# usage: bash bench/fetch-hta.sh [DIR]   (default .whl in the repository root)
#
# Downloads HolisticTraceAnalysis==HTA_VERSION (0.5.0, the version of README-report-vs-hta.md)
# and, of what it imports, the packages the GPU host's image lacks (plotly, PLOTLY_VERSION;
# numpy, pandas, networkx, pyyaml, psutil, narwhals and packaging are in its list, KINDS.md of
# the device notes), each for CPython 3.12 on x86-64 Linux, without their dependencies. HTA's
# other declared needs (jupyterlab, pydot, pytest) are not imported by its analyses, and ijson is
# optional (without it HTA parses with json, as a plain pip install does). DIR is added to the
# repository's git exclude file when it lies in the repository, so that it travels with a device
# call only where the call carries it (carry: [".whl"]). The wheels total about 10 MiB.
set -eu
HTA_VERSION=${HTA_VERSION:-0.5.0}
PLOTLY_VERSION=${PLOTLY_VERSION:-7.1.0}
src=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$src/.whl}
mkdir -p "$dir"
if [ "$(cd "$dir" && pwd)" = "$src/.whl" ]; then
	ex=$(git -C "$src" rev-parse --git-path info/exclude)
	case $ex in /*) ;; *) ex=$src/$ex ;; esac
	mkdir -p "$(dirname "$ex")"
	grep -qxF /.whl/ "$ex" 2>/dev/null || echo /.whl/ >>"$ex"
fi
for w in "HolisticTraceAnalysis==$HTA_VERSION" "plotly==$PLOTLY_VERSION"; do
	python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
		--implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
		--platform manylinux2014_x86_64 -d "$dir" "$w"
done
# one version of each (two stop the install there)
for n in holistictraceanalysis plotly; do
	c=$(ls "$dir" | grep -ci "^$n-")
	[ "$c" -le 1 ] || { echo "fetch-hta: $c versions of $n in $dir: keep one" >&2; exit 1; }
done
ls -l "$dir"
echo "fetch-hta: carry $dir with the device call (carry: [\".whl\"]); bench/speed-on-gpu.sh installs it"
