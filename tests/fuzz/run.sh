#!/usr/bin/env bash
# Builds the libFuzzer harnesses (clang -fsanitize=fuzzer,address,undefined)
# against the core sources and runs each for N seconds on its seed corpus.
# usage: tests/fuzz/run.sh [SECONDS] [BUILD_DIR]   (default 20, /tmp/gpuscope-fuzz)
# Exit 0 when no harness found a crash; findings land in BUILD_DIR/crash-*.
# Exit 77 when clang or libFuzzer is missing.
set -u
# ctest runs every tests/*/*.sh as "X.sh BUILD/gpuscope SOURCE_DIR"; the CI
# run of this directory is fuzz_smoke.sh, so that calling form does nothing.
case "${1:-20}" in
*[!0-9]*)
	echo "run.sh: not a number of seconds: '$1' (the ctest entry is fuzz_smoke.sh)"
	exit 0
	;;
esac
secs=${1:-20}
out=${2:-/tmp/gpuscope-fuzz}
src=$(cd "$(dirname "$0")/../.." && pwd)
cc=${CLANG:-$(command -v clang-14 || command -v clang || true)}
if [ -z "$cc" ]; then
	echo "fuzz: clang not found (Debian: clang-14 libclang-rt-14-dev)" >&2
	exit 77
fi
mkdir -p "$out"
echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' >"$out/probe.c"
if ! "$cc" -fsanitize=fuzzer "$out/probe.c" -o "$out/probe" 2>/dev/null; then
	echo "fuzz: $cc cannot link libFuzzer (Debian: libclang-rt-14-dev)" >&2
	exit 77
fi
flags="-g -O1 -std=gnu11 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -D_GNU_SOURCE -DGPUSCOPE_SOURCE_DIR=\"$src\" -I$src/src"
libs="-l:libsqlite3.a -l:libdw.a -l:libelf.a -l:libzstd.a -llzma -lbz2 -lz -l:libyajl_s.a -lmicrohttpd -lncursesw -ltinfo -lpthread -ldl -lm"
# ISA-L's inflate as the binary has it (loaded at run time, CMakeLists.txt)
[ -f /usr/include/isa-l/igzip_lib.h ] && flags="$flags -DGPUSCOPE_HAVE_ISAL=1"
core=$(find "$src/src" -name '*.c' ! -path '*/inject/*' ! -name main.c ! -path '*/cli/*' | sort)
# the command files are not needed by the readers; analysis/render files are
# kept so trace_load_any links exactly as in the binary
set -e
mkdir -p "$out/obj"
# objects are rebuilt when their source is newer; a changed header (a
# struct's layout) makes every object stale
if [ -n "$(find "$src/src" -name '*.h' -newer "$out/obj/.stamp" 2>/dev/null | head -1)" ] ||
	[ ! -f "$out/obj/.stamp" ]; then
	rm -f "$out"/obj/*.o
fi
touch "$out/obj/.stamp"
# compiled in parallel, one job a core: the objects are most of the time
objs=""
for f in $core; do
	objs="$objs $out/obj/$(echo "${f#$src/src/}" | tr / _).o"
done
export cc flags src out
printf '%s\n' $core | xargs -P "$(nproc 2>/dev/null || echo 2)" -I{} bash -c '
	f={}
	o="$out/obj/$(echo "${f#$src/src/}" | tr / _).o"
	if [ ! -f "$o" ] || [ "$f" -nt "$o" ]; then
		"$cc" $flags -fsanitize=fuzzer-no-link -c "$f" -o "$o" 2>/dev/null ||
			"$cc" $(echo $flags | sed "s/-fsanitize=fuzzer,/-fsanitize=/") -c "$f" -o "$o"
	fi'
for h in kineto db monlog explain fatbin klog; do
	"$cc" $flags "$src/tests/fuzz/fuzz_$h.c" $objs $libs -o "$out/fuzz_$h"
done
set +e
rc=0
for h in kineto db monlog explain fatbin klog; do
	mkdir -p "$out/corpus-$h"
	echo "fuzz: fuzz_$h for ${secs}s" >&2
	(cd "$out" && ./fuzz_$h -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-max_len=131072 -print_final_stats=1 "corpus-$h" "$src/tests/fuzz/corpus/$h" \
		>"$out/fuzz_$h.log" 2>&1)
	r=$?
	tail -n 12 "$out/fuzz_$h.log" | grep -E 'stat::number_of_executed_runs|stat::peak_rss|ERROR|SUMMARY|Done' >&2
	if [ $r != 0 ]; then
		echo "fuzz: fuzz_$h FAILED (exit $r); see $out/fuzz_$h.log and $out/crash-*" >&2
		rc=1
	fi
done
exit $rc
