#!/usr/bin/env bash
# The one rule for files the commands write (src/util/outfile.h, issue #21
# item 1): never the input, never a file of another kind unless --force,
# never a non-regular file, "-" is stdout, write errors are errors, and a
# replaced database is announced. 16 of the cases failed on the main of
# 2026-12-03 (66fe01e).
# usage: outfile.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
run() { timeout 20 "$@" >"$tmp/out" 2>"$tmp/err"; }
is_db() { head -c 16 "$1" | grep -q "SQLite format 3"; }
ex=$src/examples/tiny-kernel-storm.db
k=$src/tests/fixtures/kineto-synthetic/small.json

cp "$ex" "$tmp/t.db"
run "$bin" export "$tmp/t.db" --format perfetto -o "$tmp/t.db"
[ $? = 1 ] && is_db "$tmp/t.db" && grep -q "is the input" "$tmp/err" && ok "export never replaces its input" || bad "export over its input"
run "$bin" export "$tmp/t.db" --format perfetto -o "$tmp/t.db" --force
[ $? = 1 ] && is_db "$tmp/t.db" && ok "not even with --force" || bad "export --force over its input"
ln "$tmp/t.db" "$tmp/hard.db"
run "$bin" export "$tmp/t.db" --format perfetto -o "$tmp/hard.db" --force
[ $? = 1 ] && is_db "$tmp/hard.db" && ok "nor through a hard link" || bad "export over a hard link of its input"

echo precious >"$tmp/notes.txt"
run "$bin" export "$ex" --format perfetto -o "$tmp/notes.txt"
[ $? = 1 ] && grep -qx precious "$tmp/notes.txt" && grep -q -- "--force" "$tmp/err" && ok "export refuses a foreign file" || bad "export over a foreign file"
run "$bin" export "$ex" --format perfetto -o "$tmp/notes.txt" --force
[ $? = 0 ] && head -c 20 "$tmp/notes.txt" | grep -q displayTimeUnit && ok "--force replaces it" || bad "export --force"
run "$bin" export "$ex" --format perfetto -o "$tmp/notes.txt"
[ $? = 0 ] && ok "a Perfetto trace of ours is replaced" || bad "export over its own output"

mkfifo "$tmp/fifo"
run "$bin" export "$ex" --format perfetto -o "$tmp/fifo" --force
[ $? = 1 ] && [ -p "$tmp/fifo" ] && grep -q "FIFO" "$tmp/err" && ok "export -o FIFO refused, no hang" || bad "export -o FIFO"
run "$bin" import "$k" -o "$tmp/fifo"
[ $? = 1 ] && [ -p "$tmp/fifo" ] && ok "import -o FIFO refused, no hang" || bad "import -o FIFO"
run "$bin" record -o "$tmp/fifo" -- /bin/true
[ $? = 1 ] && [ -p "$tmp/fifo" ] && ok "record -o FIFO refused, no hang" || bad "record -o FIFO"
# a device node of our own (an old binary would replace the node it is given:
# never point this test at /dev/full itself)
if mknod "$tmp/full" c 1 7 2>/dev/null; then
	run "$bin" export "$ex" --format perfetto -o "$tmp/full" --force
	[ $? = 1 ] && [ -c "$tmp/full" ] && grep -q "character device" "$tmp/err" && ok "a device is never replaced" || bad "export -o DEVICE"
else
	echo "skip: mknod not permitted here (device case)"
fi
run "$bin" export "$ex" --format perfetto -o "$tmp"
[ $? = 1 ] && grep -q "directory" "$tmp/err" && ok "a directory is not a Perfetto file" || bad "export -o DIR"

timeout 20 "$bin" export "$ex" --format perfetto -o - >"$tmp/stdout.json" 2>"$tmp/err"
[ $? = 0 ] && python3 -m json.tool "$tmp/stdout.json" >/dev/null && ok "-o - writes stdout" || bad "-o -"
timeout 20 "$bin" export "$ex" --format perfetto -o - >/dev/full 2>"$tmp/err"
[ $? = 1 ] && grep -q "No space left" "$tmp/err" && ok "a full disk (ENOSPC, /dev/full) is an error" || {
	bad "write error on stdout"
	cat "$tmp/err"
}
timeout 20 "$bin" export "$ex" --format perfetto -o - >&- 2>"$tmp/err"
[ $? = 1 ] && ok "a closed stdout is an error" || bad "closed stdout"

ln -s "$tmp/notes.txt" "$tmp/link.json"
run "$bin" export "$ex" --format perfetto -o "$tmp/link.json"
[ $? = 0 ] && [ -L "$tmp/link.json" ] && ok "a link to our output: its target is replaced, the link stays" || bad "export through a link"
ln -s "$tmp/nowhere" "$tmp/dangling"
run "$bin" export "$ex" --format perfetto -o "$tmp/dangling"
[ $? = 1 ] && [ -L "$tmp/dangling" ] && [ ! -e "$tmp/nowhere" ] && ok "a dangling link is refused" || bad "dangling link"

cp "$k" "$tmp/k.json"
run "$bin" import "$tmp/k.json" -o "$tmp/k.json" --force
[ $? = 1 ] && cmp -s "$k" "$tmp/k.json" && ok "import never replaces its input" || bad "import over its input"
run "$bin" import "$k" -o "$tmp/i.db"
[ $? = 0 ] && ! grep -q replacing "$tmp/err" && ok "import to a new file says nothing of replacing" || bad "import new"
run "$bin" import "$k" -o "$tmp/i.db"
[ $? = 0 ] && grep -q "replacing the gpuscope database" "$tmp/err" && ok "import says it replaces a database" || bad "import replacing message"
run "$bin" record -o "$tmp/i.db" -- /bin/true
grep -qE "replac(ed|ing) the gpuscope database" "$tmp/err" && is_db "$tmp/i.db" && ok "record says it replaces a database" || {
	bad "record replacing message"
	cat "$tmp/err"
}
run "$bin" record -o "$tmp/notes2.txt" -- /bin/true
echo precious >"$tmp/notes2.txt"
run "$bin" record -o "$tmp/notes2.txt" -- /bin/true
[ $? = 1 ] && grep -qx precious "$tmp/notes2.txt" && ok "record refuses a foreign file before running" || bad "record over a foreign file"

mkdir "$tmp/csv"
echo "my,own,table" >"$tmp/csv/kernels.csv"
run "$bin" export "$ex" --format csv -o "$tmp/csv"
[ $? = 1 ] && grep -q "my,own" "$tmp/csv/kernels.csv" && [ ! -e "$tmp/csv/api.csv" ] && ok "csv refuses a foreign kernels.csv (and writes nothing)" || bad "csv over a foreign file"
run "$bin" export "$ex" --format csv -o "$tmp/csv" --force
[ $? = 0 ] && head -1 "$tmp/csv/kernels.csv" | grep -q "^start_ns" && ok "csv --force" || bad "csv --force"
run "$bin" export "$ex" --format csv -o "$tmp/csv"
[ $? = 0 ] && ok "csv replaces its own tables" || bad "csv over its own"
run "$bin" export "$ex" --format csv -o -
[ $? != 0 ] && ok "csv to stdout is refused" || bad "csv -o -"
exit $fail
