#!/usr/bin/env bash
# deb.sh BUILD: the Debian package of a built tree (CPack, CMakeLists.txt),
# with Depends computed from what the binaries need: the newest GLIBC_
# symbol version they reference, and zlib. (dpkg-shlibdeps would do it, but
# it stops at libcupti, which no Debian package provides: the CUDA toolkit
# brings it, and libgpuscope-inject.so finds it through its RUNPATH.)
# Prints the path of the package last.
set -eu
build=$(cd "$1" && pwd)
bins="$build/gpuscope $build/libgpuscope-preload.so"
[ -f "$build/libgpuscope-inject.so" ] && bins="$bins $build/libgpuscope-inject.so"
glibc=$(objdump -T $bins | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n 1)
depends="libc6 (>= ${glibc:-2.34}), zlib1g (>= 1:1.2)"
cd "$build"
cpack -G DEB -D CPACK_DEBIAN_PACKAGE_DEPENDS="$depends" >cpack.log 2>&1 || { cat cpack.log; exit 1; }
deb=$(sed -n 's/^CPack: - package: \(.*\.deb\) generated\./\1/p' cpack.log | tail -n 1)
[ -f "$deb" ] || { cat cpack.log; echo "deb.sh: no package" >&2; exit 1; }
echo "$deb"
