#!/usr/bin/env bash
# CI smoke run of the fuzz harnesses (about 10 s each: the six take the
# minute the first four took at 15 s). Skips (exit 0 with a message) only
# when clang or libFuzzer are not installed.
# usage: fuzz_smoke.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
bash "$src/tests/fuzz/run.sh" "${GPUSCOPE_FUZZ_SECONDS:-10}" "$build/fuzz"
rc=$?
if [ $rc = 77 ]; then
	echo "SKIP: clang/libFuzzer not available"
	exit 0
fi
exit $rc
