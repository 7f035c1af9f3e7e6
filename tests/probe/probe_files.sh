#!/usr/bin/env bash
# Output files and stdout under hostile conditions (probe ids D1 D2 M1 M2 M4
# M5 M8 W4): a signal leaves no temporary file, a replaced output keeps its
# mode, long names work, and a failed write to stdout is exit status 1 with
# the reason, for every command.
. "$(dirname "$0")/common.bash"

# D1: SIGINT/SIGTERM/SIGHUP during import and export remove the temporary
# file (and a CSV directory made for it). A big trace keeps the command busy.
python3 "$gen/hostile.py" kernels "$tmp/big.json" 60000
"$bin" import --no-progress -o "$tmp/big.db" "$tmp/big.json" 2>/dev/null
for sig in INT TERM HUP; do
	mkdir -p "$tmp/sig$sig"
	for c in "import --no-progress -o $tmp/sig$sig/o.db $tmp/big.json" \
		"export --no-progress -f perfetto -o $tmp/sig$sig/o.json $tmp/big.db" \
		"export --no-progress -f csv -o $tmp/sig$sig/csv $tmp/big.db"; do
		# shellcheck disable=SC2086
		# (a background job of a script ignores SIGINT: give it the default back)
		env --default-signal=INT "$bin" $c 2>/dev/null &
		pid=$!
		# wait until the temporary file exists, then signal
		for _ in $(seq 3000); do
			ls "$tmp/sig$sig" | grep -q 'tmp-' && break
			ls "$tmp/sig$sig/csv" 2>/dev/null | grep -q 'tmp-' && break
			sleep 0.02
		done
		kill -$sig $pid
		wait $pid 2>/dev/null
		st=$?
		left=$(find "$tmp/sig$sig" -mindepth 1 | grep -v -e '/o.db$' -e '/o.json$' -e '/csv/.*\.csv$' -e '/csv$')
		tmpf=$(find "$tmp/sig$sig" -name '*tmp-*')
		if [ -z "$tmpf" ] && [ $st -gt 128 ]; then ok "D1: SIG$sig during ${c%% *}: nothing left behind (exit $st)"; else
			bad "D1: SIG$sig during ${c%% *}: exit $st, left: $tmpf $left"; fi
		rm -rf "$tmp/sig$sig"/*
	done
done
# a CSV directory the command made is removed too
env --default-signal=INT "$bin" export --no-progress -f csv -o "$tmp/newcsv" "$tmp/big.db" 2>/dev/null &
pid=$!
for _ in $(seq 3000); do ls "$tmp/newcsv" 2>/dev/null | grep -q 'tmp-' && break; sleep 0.02; done
kill -INT $pid
wait $pid
check "D1: SIGINT during export -f csv removes the directory it made" test ! -e "$tmp/newcsv"

# D2: a replaced output keeps its mode (and owner, as root)
run import -o "$tmp/priv.db" "$k"
chmod 600 "$tmp/priv.db"
owner=$(id -u)
if [ "$owner" = 0 ] && id nobody >/dev/null 2>&1; then chown nobody "$tmp/priv.db"; fi
want=$(stat -c '%a %U' "$tmp/priv.db")
run import -o "$tmp/priv.db" "$k"
check "D2: import keeps a replaced database's mode and owner ($want)" test "$(stat -c '%a %U' "$tmp/priv.db")" = "$want"
run export -f perfetto -o "$tmp/priv.json" "$k"
chmod 640 "$tmp/priv.json"
run export -f perfetto -o "$tmp/priv.json" "$k"
check "D2: export keeps a replaced Perfetto file's mode" test "$(stat -c '%a' "$tmp/priv.json")" = 640
run export -f csv -o "$tmp/pcsv" "$k"
chmod 600 "$tmp/pcsv/kernels.csv"
run export -f csv -o "$tmp/pcsv" "$k"
check "D2: export -f csv keeps a replaced table's mode" test "$(stat -c '%a' "$tmp/pcsv/kernels.csv")" = 600

# M2: an output name of 250 bytes is legal and written
long=$(printf 'x%.0s' $(seq 250)).db
run import -o "$tmp/$long" "$k"
check "M2: import -o a 250-byte name (the temporary name fits NAME_MAX)" test $rc = 0 -a -s "$tmp/$long"
run export -f perfetto -o "$tmp/${long%.db}.js" "$k"
check "M2: export -o a 250-byte name" test $rc = 0

# M4: --force over a file that is not a gpuscope database says so, not "replacing the gpuscope database"
echo data >"$tmp/u.txt"
run import --force -o "$tmp/u.txt" "$k"
check "M4: import --force over a foreign file does not call it a gpuscope database" \
	sh -c "[ $rc = 0 ] && ! grep -q 'gpuscope database' '$tmp/err' && grep -q -- '--force' '$tmp/err'"

# M5: export -f csv -o a symbolic link to a directory writes into it
mkdir "$tmp/cd" && ln -s "$tmp/cd" "$tmp/cdl"
run export -f csv -o "$tmp/cdl" "$k"
check "M5: export -f csv -o LINK-TO-DIR writes into the directory" test $rc = 0 -a -s "$tmp/cd/kernels.csv"

# M1: a long but legal path keeps the reason at the end of the message
P=$tmp/$(python3 -c "print('/'.join(['x'*200]*4))")/t.json
run report "$P"
check "M1: a long path's error still says why" grep -q "No such file or directory" "$tmp/err"

# W4 and M8: a failed write to stdout is exit 1 with the reason, for every command
if [ -w /dev/full ]; then
	for c in "explain 79" "explain -f json 79" "explain --list" "occupancy --arch sm_90 --block-size 256 --regs 32 -f json" \
		"vram --list" "vram --gpu list" "help" "--help" "help --man" "report --help" \
		"doctor -f json --kernel-log /dev/null" "report -f json $k" "diff $k $k" "--version"; do
		# shellcheck disable=SC2086
		GPUSCOPE_DOCTOR_NO_PYTHON=1 timeout 60 "$bin" $c >/dev/full 2>"$tmp/err"
		st=$?
		if [ $st = 1 ] && grep -q "No space left on device" "$tmp/err"; then ok "W4/M8: $c >/dev/full: exit 1 with the reason"; else
			bad "W4/M8: $c >/dev/full: exit $st, $(head -c 200 "$tmp/err")"; fi
	done
fi
# a closed stdout
timeout 20 "$bin" explain 79 >&- 2>"$tmp/err"
st=$?
check "W4: explain 79 with stdout closed: exit 1 (exit $st)" test $st = 1
finish
