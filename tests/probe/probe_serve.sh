#!/usr/bin/env bash
# serve against slow and hostile clients (probe ids H2 H6 W12 W2): a
# re-opening slowloris does not keep scrapes out, slow readers of a large
# /metrics share one copy of it, conflicting Content-Length and a missing
# Host are 400, --listen takes a port of digits only, and labels carry no
# control characters.
. "$(dirname "$0")/common.bash"
ulimit -n 4096 2>/dev/null
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
start() { # start LOG ARGS...: serve --replay LOG on a free port; sets $P and $SP
	local log=$1
	shift
	P=$(port)
	"$bin" serve --replay "$log" --listen 127.0.0.1:$P "$@" 2>"$tmp/serve.err" &
	SP=$!
	for _ in $(seq 50); do
		curl -sf -o /dev/null "127.0.0.1:$P/metrics" && return 0
		sleep 0.1
	done
}
stop() { kill $SP 2>/dev/null && wait $SP 2>/dev/null; }
zoo=$fx/monitor/h200-zoo.jsonl

# H2: 40 trickling connections against a limit of 16, re-opened as they are cut
start "$zoo" --max-connections 16 --timeout 10
python3 "$gen/slowhttp.py" slowloris $P 40 4 >"$tmp/out"
st=$?
check "H2: scrapes answered within 5 s under a re-opening slowloris ($(cat "$tmp/out"))" test $st = 0

# W12: request parsing
python3 "$gen/slowhttp.py" smuggle $P >"$tmp/out"
check "W12: two Content-Length headers: 400" grep -q "two-content-length HTTP/1.1 400" "$tmp/out"
check "W12: HTTP/1.1 without Host: 400" grep -q "no-host-1.1 HTTP/1.1 400" "$tmp/out"
check "W12: HTTP/1.0 without Host: still 200" grep -q "no-host-1.0 HTTP/1.1 200" "$tmp/out"
stop
for l in '127.0.0.1: 80' '127.0.0.1:+80' '127.0.0.1:8 0'; do
	timeout 5 "$bin" serve --replay "$zoo" --listen "$l" >/dev/null 2>"$tmp/err"
	st=$?
	check "W12: --listen '$l' refused (exit $st)" sh -c "[ $st = 1 ] && grep -q 'bad port' '$tmp/err'"
done

# H6: 64 readers that never read a 7 MB /metrics cost the copies of the
# rounds they read (the log changes rounds each second), not 64
python3 "$gen/hostile.py" bigmetrics "$tmp/big.jsonl" 64
# (an ASan build keeps freed pages in its quarantine, so the copies serve
# has freed would count as held: none for this measurement)
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0" start "$tmp/big.jsonl"
size=$(curl -s "127.0.0.1:$P/metrics" | wc -c)
read -r _ before during after < <(python3 "$gen/slowhttp.py" readers $P 64 $SP)
grow=$((during - before))
check "H6: 64 slow readers of $size bytes: RSS +$grow kB (at most 8 copies, $((8 * size / 1024)) kB)" \
	test $grow -lt $((8 * size / 1024))
stop

# W2: control characters of a log's GPU and process names never reach a label
python3 "$gen/hostile.py" esclog "$tmp/esc.jsonl"
start "$tmp/esc.jsonl"
curl -s "127.0.0.1:$P/metrics" >"$tmp/out"
stop
check "W2: /metrics labels carry no ESC, BEL or CR" noctl "$tmp/out" H200
finish
