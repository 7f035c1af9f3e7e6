#!/usr/bin/env bash
# scripts/install-deps.sh by purpose (issue 41 item 3): `make build` and
# `make run` install only the build's packages (no test toolchain: the
# browser, Prometheus, cmocka, ...), `make test` the build's and the test's,
# and an unknown purpose is a usage error.
# usage: deps_purposes.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
deps=$src/scripts/install-deps.sh
b=$(bash "$deps" --list build) t=$(bash "$deps" --list test)
n=$(echo $b | wc -w)
for p in chromium prometheus libcmocka-dev clang-format tmux yamllint curl python3-venv fonts-dejavu-core buildah; do
	case " $b " in *" $p "*) bad "build installs $p" ;; esac
done
ok "build: $n packages, no test tool: $b"
for p in $b; do
	case " $t " in *" $p "*) ;; *) bad "test lacks the build's $p" ;; esac
done
for p in libcmocka-dev prometheus chromium; do
	case " $t " in *" $p "*) ;; *) bad "test lacks $p" ;; esac
done
ok "test: the build's and the test toolchain ($(echo $t | wc -w) packages)"
# each package of the build list is one the CMake build looks for (a stale list shows here)
for p in libsqlite3-dev libyajl-dev libdw-dev libmicrohttpd-dev libncurses-dev gettext; do
	case " $b " in *" $p "*) ;; *) bad "build lacks $p" ;; esac
done
bash "$deps" nonsense 2>/dev/null
[ $? = 2 ] && ok "unknown purpose: exit 2" || bad "unknown purpose accepted"
# the Makefile: run and build need deps (build), test needs deps-test
grep -q '^deps:$' "$src/Makefile" && grep -A1 '^deps:$' "$src/Makefile" | grep -q 'install-deps.sh build$' &&
	grep -q '^build: deps$' "$src/Makefile" && grep -q '^run: deps$' "$src/Makefile" &&
	grep -q '^test: deps-test$' "$src/Makefile" && ok "Makefile: build/run install the build's, test the test's" ||
	bad "Makefile targets"
[ $fail = 0 ] && echo "deps_purposes: all passed"
exit $fail
