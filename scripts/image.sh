#!/usr/bin/env bash
# Builds the gpuscope OCI image with buildah from scratch, no registry and no
# base image: the binary (/usr/local/bin, the prefix it was built for, where
# it finds its catalogue without /proc), the shared libraries it links (and the ones it
# opens at run time: ISA-L's inflate, libgcc_s for thread exit) copied from
# this machine's Debian packages at their paths, the zh_CN catalogue, glibc's
# C.UTF-8 locale, and a non-root user (65532). No shell, no package manager.
# The NVIDIA container toolkit mounts the driver's libnvidia-ml.so.1 into it.
# Writes the image into buildah's local storage as gpuscope:VERSION and as an
# OCI archive BUILD/gpuscope-image-VERSION.oci.tar (docker/podman load it).
# usage: scripts/image.sh BUILD   (as root; `make image`)
set -eu
build=$(cd "${1:-build}" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$build/gpuscope
[ -x "$bin" ] || { echo "gpuscope: image.sh: no $bin (make build first)" >&2; exit 1; }
command -v buildah >/dev/null || { echo "gpuscope: image.sh: buildah missing (scripts/install-deps.sh image)" >&2; exit 1; }
ver=$("$bin" --version | awk '{print $2}')
name=gpuscope:$ver
ctr=$(buildah from scratch)
trap 'buildah umount "$ctr" >/dev/null 2>&1; buildah rm "$ctr" >/dev/null 2>&1' EXIT
mnt=$(buildah mount "$ctr")

copy() { # copy FILE...: each at its own path, symlinks resolved to a file
	for f in "$@"; do
		mkdir -p "$mnt$(dirname "$f")"
		cp -L "$f" "$mnt$f"
	done
}
prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$build/CMakeCache.txt")
[ "$prefix" = /usr/local ] || { echo "gpuscope: image.sh: $build is configured for $prefix, not /usr/local" >&2; exit 1; }
# stripped: the debug info stays in BUILD/gpuscope
install -D -s -m 0755 "$bin" "$mnt/usr/local/bin/gpuscope"
# the linked libraries and the loader, at the paths ldd gives
libs=$(ldd "$bin" | awk '/=> \//{print $3} /^\t\/lib/{print $1}')
# opened with dlopen: libisal.so.2 (faster .json.gz, zlib otherwise),
# libgcc_s.so.1 (glibc's thread cancellation)
for l in libisal.so.2 libgcc_s.so.1; do
	p=$(ldconfig -p | awk -v l="$l" '$1 == l && /x86-64|x86_64/ {print $NF; exit}')
	[ -n "$p" ] && libs="$libs $p"
done
copy $libs
# /lib64 -> the loader's path, as Debian has it (merged /usr: /lib is /usr/lib)
[ -e /usr/lib/x86_64-linux-gnu ] && [ -L /lib ] && { mkdir -p "$mnt/usr"; mv "$mnt/lib" "$mnt/usr/lib" 2>/dev/null && ln -s usr/lib "$mnt/lib"; } || true
install -D -m 0644 "$build/locale/zh_CN/LC_MESSAGES/gpuscope.mo" "$mnt/usr/local/share/locale/zh_CN/LC_MESSAGES/gpuscope.mo"
# --lang zh needs a UTF-8 locale: glibc's C.UTF-8 (Debian's libc-bin)
[ -d /usr/lib/locale/C.utf8 ] && { mkdir -p "$mnt/usr/lib/locale"; cp -r /usr/lib/locale/C.utf8 "$mnt/usr/lib/locale/"; }
mkdir -p "$mnt/etc" "$mnt/tmp"
chmod 1777 "$mnt/tmp"
printf 'root:x:0:0:root:/:/sbin/nologin\ngpuscope:x:65532:65532:gpuscope:/:/sbin/nologin\n' >"$mnt/etc/passwd"
printf 'root:x:0:\ngpuscope:x:65532:\n' >"$mnt/etc/group"
install -D -m 0644 "$root/README.md" "$mnt/usr/local/share/doc/gpuscope/README.md"
buildah umount "$ctr" >/dev/null
buildah config --entrypoint '["/usr/local/bin/gpuscope"]' --cmd 'serve --listen 0.0.0.0:9401' \
	--user 65532:65532 --port 9401/tcp --workingdir /tmp \
	--env NVIDIA_VISIBLE_DEVICES=all --env NVIDIA_DRIVER_CAPABILITIES=utility --env LANG=C.UTF-8 \
	--label org.opencontainers.image.title=gpuscope \
	--label org.opencontainers.image.version="$ver" \
	--label org.opencontainers.image.description="GPU performance and health: serve (Prometheus exporter), report, monitor, doctor" \
	"$ctr"
buildah commit -q --rm "$ctr" "$name" >/dev/null
trap - EXIT
out=$build/gpuscope-image-$ver.oci.tar
rm -f "$out"
buildah push -q "$name" "oci-archive:$out:$name" >/dev/null
echo "gpuscope: image $name ($(du -m "$out" | cut -f1) MiB as $out; $(buildah images --format '{{.Size}}' "$name") in buildah's storage)"
