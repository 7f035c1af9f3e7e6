#!/usr/bin/env bash
# Installable like any tool (#21 item 15): `cmake --install` with a prefix
# and DESTDIR (what `make install PREFIX= DESTDIR=` runs), the installed
# binary finding its libraries in PREFIX/lib/gpuscope, a man page per
# command naming every option its help names, a bash completion that
# completes commands, options and their values, and the Debian package
# (scripts/deb.sh, CPack: `make deb`) unpacked with dpkg-deb and run.
# Nothing is installed on this machine: everything goes under a temp dir.
# usage: install.sh BUILD/gpuscope SOURCE_DIR
set -u
bin=$1
src=$2
build=$(cd "$(dirname "$bin")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fail=1; }
cmds=$("$bin" --help | awk '/^commands:/{on=1;next} /^$/{on=0} on && /^  [a-z]/ {print $1}')

DESTDIR=$T/stage cmake --install "$build" --prefix /opt/gs >"$T/log" 2>&1 || { bad "cmake --install"; cat "$T/log"; }
root=$T/stage/opt/gs
[ -x "$root/bin/gpuscope" ] && [ -f "$root/lib/gpuscope/libgpuscope-preload.so" ] && ok "DESTDIR + prefix: bin/ and lib/gpuscope/" || bad "installed layout"
[ -f "$root/share/bash-completion/completions/gpuscope" ] && [ -f "$root/share/man/man1/gpuscope.1" ] && ok "man pages and completion installed" || bad "share/ layout"
find "$T/stage" -path "*$build*" | grep -q . && bad "a build path under DESTDIR"

# the installed binary runs and finds its libraries in ../lib/gpuscope
"$root/bin/gpuscope" --version | grep -q '^gpuscope [0-9]' && ok "installed --version" || bad "installed --version"
"$root/bin/gpuscope" report "$root/share/doc/gpuscope/examples/tiny-kernel-storm.db" | grep -q "^VERDICT" && ok "installed report runs" || bad "installed report"
"$root/bin/gpuscope" record --metrics none -o "$T/r.db" -- true 2>"$T/err"
if [ -f "$build/libgpuscope-inject.so" ]; then
	grep -q "not found" "$T/err" && { bad "installed record lacks its libraries"; cat "$T/err"; } || ok "installed record finds lib/gpuscope/"
else
	grep -q "built without CUPTI" "$T/err" && ok "installed record says it has no injection library (no CUPTI here)" || { bad "installed record lookup"; cat "$T/err"; }
fi

# a man page per command, naming each option of its help
for c in $cmds; do
	m=$root/share/man/man1/gpuscope-$c.1
	[ -f "$m" ] && head -3 "$m" | grep -q '^\.TH GPUSCOPE-' && grep -q '^\.SH OPTIONS' "$m" || { bad "man page of $c"; continue; }
	missing=""
	for o in $("$bin" help "$c" | grep -o -- '--[a-z][a-z-]*' | sort -u); do
		grep -qF -- "$(echo "$o" | sed 's/-/\\-/g')" "$m" || missing="$missing $o"
	done
	[ -z "$missing" ] && ok "man page of $c names every option" || bad "man page of $c lacks$missing"
done
if command -v groff >/dev/null; then
	for m in "$root"/share/man/man1/*.1; do
		w=$(groff -man -Tutf8 -ww -z "$m" 2>&1)
		[ -z "$w" ] || bad "groff warns on $(basename "$m"): $w"
	done
	ok "groff reads every man page without a warning"
fi

# bash completion: commands, options, values of a choice, the command after --
comp() { # comp WORDS...: COMPREPLY for the last word, one line
	bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _gpuscope; echo "${COMPREPLY[*]}"' \
		_ "$root/share/bash-completion/completions/gpuscope" "$@"
}
[ "$(comp gpuscope rep)" = report ] && ok "completes a command" || bad "command completion: '$(comp gpuscope rep)'"
comp gpuscope report --f | grep -qw -- --format && ok "completes an option" || bad "option completion: '$(comp gpuscope report --f)'"
[ "$(comp gpuscope report --format '')" = "text json html" ] && ok "completes a choice's values" || bad "value completion: '$(comp gpuscope report --format '')'"
comp gpuscope record --no- | grep -qw -- --no-progress && ok "completes --no-progress" || bad "--no- completion"
comp gpuscope record -o x.db -- bas | grep -qw bash && ok "completes the command after --" || bad "command after --"

# the Debian package
deb=$(bash "$src/scripts/deb.sh" "$build" 2>"$T/err" | tail -n 1)
if [ -f "$deb" ]; then
	ok "package built: $(basename "$deb")"
	dpkg-deb -f "$deb" Package Version Depends >"$T/info"
	grep -q '^Package: gpuscope' "$T/info" && grep -q '^Depends: libc6 (>= 2\.[0-9]*), zlib1g' "$T/info" && ok "package fields: $(tr '\n' ' ' <"$T/info")" || { bad "package fields"; cat "$T/info"; }
	dpkg-deb -c "$deb" >"$T/list"
	for f in ./usr/bin/gpuscope ./usr/lib/gpuscope/libgpuscope-preload.so ./usr/share/man/man1/gpuscope-report.1 ./usr/share/bash-completion/completions/gpuscope; do
		grep -q " $f\$" "$T/list" || bad "package lacks $f"
	done
	dpkg-deb -x "$deb" "$T/x"
	"$T/x/usr/bin/gpuscope" report "$T/x/usr/share/doc/gpuscope/examples/tiny-kernel-storm.db" | grep -q "launch_overhead" && ok "the unpacked package runs" || bad "the unpacked package"
	# dpkg -i into a root of its own (no chroot, this machine untouched): the
	# package installs and removes cleanly; its Depends are not in that root
	r=$T/dpkgroot
	mkdir -p "$r/var/lib/dpkg/updates" "$r/var/lib/dpkg/info" && touch "$r/var/lib/dpkg/status" "$r/var/lib/dpkg/available"
	if dpkg --root="$r" --force-depends --force-not-root --force-script-chrootless -i "$deb" >"$T/dpkg" 2>&1; then
		dpkg --root="$r" -s gpuscope 2>/dev/null | grep -q '^Status: install ok installed' && "$r/usr/bin/gpuscope" --version >/dev/null &&
			ok "dpkg -i installs it (into $r)" || bad "dpkg -i: not installed"
		dpkg --root="$r" --force-depends --force-not-root --force-script-chrootless -r gpuscope >>"$T/dpkg" 2>&1
		left=$(find "$r" -type f -not -path "$r/var/*" | head -3)
		[ -z "$left" ] && ok "dpkg -r removes every file" || bad "dpkg -r left $left"
	else
		bad "dpkg -i"; cat "$T/dpkg"
	fi
	rm -f "$deb"
else
	bad "no package"; cat "$T/err"
fi
rm -rf "$build/_CPack_Packages"
exit $fail
