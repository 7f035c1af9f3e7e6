#!/usr/bin/env bash
# The image from `make image`, checked without starting a container (crun's
# setrlimit is refused on the CI machines): buildah mounts it and gpuscope
# runs inside with chroot, as the image's non-root user: --version, report
# of the bundled trace in English and Chinese, and serve --replay answering
# /metrics and /health on loopback; the image holds no shell; its size.
# usage: scripts/ci-image-check.sh BUILD   (as root)
set -u
build=$(cd "${1:-build}" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
ver=$("$build/gpuscope" --version | awk '{print $2}')
fail=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fail=1; }
ctr=$(buildah from "gpuscope:$ver") || { echo "FAIL: no image gpuscope:$ver (make image)"; exit 1; }
spid=
trap '[ -n "$spid" ] && kill $spid 2>/dev/null; wait 2>/dev/null; buildah umount "$ctr" >/dev/null; buildah rm "$ctr" >/dev/null' EXIT
mnt=$(buildah mount "$ctr")
run() { chroot --userspec=65532:65532 "$mnt" /usr/local/bin/gpuscope "$@"; }
size=$(du -sm "$mnt" | cut -f1)
[ "$size" -le 40 ] && ok "image contents: $size MiB (target <= 40)" || bad "image contents: $size MiB"
[ ! -e "$mnt/bin/sh" ] && [ ! -e "$mnt/usr/bin/sh" ] && [ ! -e "$mnt/usr/local/bin/sh" ] && ok "no shell" || bad "a shell in the image"
user=$(buildah inspect --format '{{.OCIv1.Config.User}}' "gpuscope:$ver")
[ "$user" = 65532:65532 ] && ok "runs as $user" || bad "user '$user'"
run --version >/tmp/gs-img.out 2>&1 && ok "chroot: $(cat /tmp/gs-img.out)" || bad "chroot --version: $(cat /tmp/gs-img.out)"
cp "$root/examples/tiny-kernel-storm.db" "$root/tests/fixtures/monitor/h200-zoo.jsonl" "$mnt/tmp/"
run report /tmp/tiny-kernel-storm.db >/tmp/gs-img.out 2>&1
grep -q "^VERDICT" /tmp/gs-img.out && grep -q "launch_overhead" /tmp/gs-img.out && ok "chroot: report" || bad "chroot report: $(head -5 /tmp/gs-img.out)"
run report --lang zh /tmp/tiny-kernel-storm.db >/tmp/gs-img.out 2>&1
grep -q "^结论" /tmp/gs-img.out && ! grep -q "stay in English" /tmp/gs-img.out && ok "chroot: report --lang zh" ||
	bad "chroot report --lang zh: $(head -3 /tmp/gs-img.out)"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
chroot --userspec=65532:65532 "$mnt" /usr/local/bin/gpuscope serve --replay /tmp/h200-zoo.jsonl \
	--replay-speed 50 --listen 127.0.0.1:$port 2>/tmp/gs-img.err &
spid=$!
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/metrics" >/tmp/gs-img.out && break; sleep 0.1; done
grep -q '^gpuscope_gpu_info{.*model_name="NVIDIA H200"' /tmp/gs-img.out && grep -q '^gpuscope_up 1$' /tmp/gs-img.out &&
	ok "chroot: serve --replay answers /metrics ($(grep -vc '^#' /tmp/gs-img.out) series)" || bad "chroot serve: $(cat /tmp/gs-img.err)"
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/health")
[ "$code" = 200 ] && ok "chroot: /health 200" || bad "chroot: /health $code"
kill $spid
wait $spid 2>/dev/null
spid=
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# live, without a driver in the image (none is mounted here): up, gpuscope_up 0
chroot --userspec=65532:65532 "$mnt" /usr/local/bin/gpuscope serve --listen 127.0.0.1:$port 2>/tmp/gs-img.err &
spid=$!
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/metrics" >/tmp/gs-img.out && break; sleep 0.1; done
grep -q '^gpuscope_up 0$' /tmp/gs-img.out && ok "chroot: serve without a driver stays up, gpuscope_up 0" || bad "chroot serve live: $(cat /tmp/gs-img.err)"
rm -f "$mnt/tmp/tiny-kernel-storm.db" "$mnt/tmp/h200-zoo.jsonl"
[ $fail = 0 ] && echo "ci-image-check: all passed"
exit $fail
