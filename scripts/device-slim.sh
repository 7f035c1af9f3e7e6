#!/usr/bin/env bash
# device-slim.sh on|off - keeps the big test fixtures out of what a device
# call carries. The device tool sends the checkout's tracked files (and the
# carried paths) within 64 MiB; the fixtures are ~45 MB of the tracked ~65 MB
# and the GPU machine needs none of them (workloads/, bench/ and
# tests/fixtures/monitor are kept). `on` takes them out of the index and
# ignores them (.git/info/exclude); `off` puts the index back from HEAD.
# Never commit between the two: the fixtures would be deleted.
#   scripts/device-slim.sh on; <device call with carry [".gpu"]>; scripts/device-slim.sh off
set -eu
cd "$(dirname "$0")/.."
dirs="tests/fixtures/real tests/fixtures/rocm tests/fixtures/zoo tests/fixtures/pytorch tests/fixtures/procs"
mkdir -p .git/info
case ${1:-} in
on)
	git diff --cached --quiet || { echo "device-slim: staged changes; commit or unstage them first" >&2; exit 1; }
	# shellcheck disable=SC2086
	git rm -r -q --cached $dirs
	for d in $dirs; do echo "/$d/" >>.git/info/exclude; done
	;;
off)
	git reset -q
	sed -i '\#^/tests/fixtures/\(real\|rocm\|zoo\|pytorch\|procs\)/$#d' .git/info/exclude
	;;
*)
	echo "usage: scripts/device-slim.sh on|off" >&2
	exit 2
	;;
esac
echo "tracked: $(git ls-files -z | xargs -0 du -cb | tail -1 | cut -f1) bytes"
