#!/usr/bin/env bash
# deb.sh BUILD: the Debian package of a built tree (CPack, CMakeLists.txt),
# with Depends computed from what the binaries need: dpkg-shlibdeps over the
# binary and the preload shim (the libraries they link: gnutls, ncurses,
# zlib, ...), and for the injection library only the newest GLIBC_ symbol
# version it references (dpkg-shlibdeps stops at libcupti, which no Debian
# package provides: the CUDA toolkit brings it, and libgpuscope-inject.so
# finds it through its RUNPATH).
# Prints the path of the package last.
set -eu
build=$(cd "$1" && pwd)
bins="$build/gpuscope $build/libgpuscope-preload.so"
[ -f "$build/libgpuscope-inject.so" ] && bins="$bins $build/libgpuscope-inject.so"
glibc=$(objdump -T $bins | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n 1)
depends="libc6 (>= ${glibc:-2.34}), zlib1g (>= 1:1.2)"
shl=$(mktemp -d)
trap 'rm -rf "$shl"' EXIT
mkdir -p "$shl/debian"
printf 'Source: gpuscope\n\nPackage: gpuscope\nArchitecture: any\n' >"$shl/debian/control"
libs=$(cd "$shl" && dpkg-shlibdeps -O "$build/gpuscope" "$build/libgpuscope-preload.so" 2>/dev/null |
	sed -n 's/^shlibs:Depends=//p')
if [ -z "$libs" ]; then
	echo "deb.sh: dpkg-shlibdeps gave no Depends (dpkg-dev missing?)" >&2
	exit 1
fi
# the injection library's glibc floor, where it is above the binary's
depends="$libs, libc6 (>= ${glibc:-2.34})"
cd "$build"
cpack -G DEB -D CPACK_DEBIAN_PACKAGE_DEPENDS="$depends" >cpack.log 2>&1 || { cat cpack.log; exit 1; }
deb=$(sed -n 's/^CPack: - package: \(.*\.deb\) generated\./\1/p' cpack.log | tail -n 1)
[ -f "$deb" ] || { cat cpack.log; echo "deb.sh: no package" >&2; exit 1; }
echo "$deb"
