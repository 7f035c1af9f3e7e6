#!/usr/bin/env bash
# ci-deb-check.sh BUILD: on the CI machine (fresh, root), the Debian package
# installs with dpkg and works from /usr: the binary, its libraries in
# /usr/lib/gpuscope, the man pages, the completion; then it is removed
# again. Outside CI (not root, or gpuscope already in /usr) it says so and
# does nothing: tests/cli/install.sh checks the package without installing.
set -eu
build=$1
if [ "$(id -u)" != 0 ] || [ -e /usr/bin/gpuscope ] || ! command -v dpkg >/dev/null; then
	echo "ci-deb-check: not root on a machine without gpuscope in /usr: skipped (install.sh checks the package)"
	exit 0
fi
deb=$(bash "$(dirname "$0")/deb.sh" "$build" | tail -n 1)
dpkg -i "$deb" >/dev/null
trap 'dpkg -r gpuscope >/dev/null' EXIT
gpuscope --version
gpuscope report /usr/share/doc/gpuscope/examples/tiny-kernel-storm.db | grep -q '^VERDICT'
[ -f /usr/share/man/man1/gpuscope-report.1 ] && [ -f /usr/share/bash-completion/completions/gpuscope ]
t=$(mktemp -d)
# without CUPTI at build time the package has no injection library and
# record refuses, saying so; with it, record finds /usr/lib/gpuscope
if gpuscope record --metrics none -o "$t/ci.db" -- true 2>"$t/err"; then
	! grep -q "not found" "$t/err" || { cat "$t/err"; exit 1; }
else
	grep -q "built without CUPTI" "$t/err" || { cat "$t/err"; exit 1; }
fi
rm -rf "$t"
echo "ci-deb-check: $(basename "$deb") installs with dpkg, runs from /usr, and is removed again"
