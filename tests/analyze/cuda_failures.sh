#!/usr/bin/env bash
# report's warnings about CUDA calls that failed and about the pinned-memory
# race behind XLA's launch failures (src/trace/cuda_errors.c), on a real
# recording: tests/fixtures/real/jax_train.db (a JAX program on the H200,
# whose GEMM autotuner zeroes pinned host buffers with 305 async memsets,
# each finished at least 16 us before the buffer's cuMemFreeHost).
#  - the recording as it is: neither warning (no call failed; every memset
#    ended before the next host free);
#  - one memset made to end 50 us after the next cuMemFreeHost of its
#    thread began: the race warning, naming that call;
#  - the calls after a point made to return 719 (a launch failure) and one
#    to return 600 (not ready, normal): the failure warning counts only the
#    failures and names the earliest and its result by name.
# usage: cuda_failures.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
db=$src/tests/fixtures/real/jax_train.db

"$bin" report "$db" >"$tmp/plain.txt" 2>&1 || bad "report on jax_train.db failed"
grep -q 'CUDA calls failed' "$tmp/plain.txt" && bad "a failure warning on a run with no failure"
grep -q 'still running' "$tmp/plain.txt" && bad "a race warning on a run without the race"

# the race: the first pinned memset whose call is followed by a free on the
# same thread ends 50 us after that free began
cp "$db" "$tmp/race.db"
sqlite3 "$tmp/race.db" "
CREATE TEMP TABLE m AS SELECT ms.id AS id, a.pid AS pid, a.tid AS tid, a.start_ns AS cs,
  ms.start_ns AS ms_start
  FROM memsets ms JOIN api_calls a ON a.correlation = ms.correlation AND a.pid = ms.pid
  WHERE ms.mem_kind = 2 ORDER BY a.start_ns LIMIT 1;
CREATE TEMP TABLE f AS SELECT min(a.start_ns) AS fs FROM api_calls a
  JOIN strings s ON s.id = a.name_id, m
  WHERE s.value = 'cuMemFreeHost' AND a.pid = m.pid AND a.start_ns > m.cs;
UPDATE memsets SET dur_ns = (SELECT fs FROM f) + 50000 - start_ns WHERE id = (SELECT id FROM m);
" || bad "sqlite3 could not make the race"
"$bin" report --format json "$tmp/race.db" >"$tmp/race.txt" 2>&1 || bad "report on the race failed"
grep -q '1 memsets into pinned host memory were still running' "$tmp/race.txt" ||
	bad "no race warning for the one memset made to outlive the free: $(grep -i pinned "$tmp/race.txt")"
grep -q 'the first: cuMemFreeHost' "$tmp/race.txt" || bad "the race warning does not name cuMemFreeHost"
grep -q '50.0 us before the memset ended\|50 us before the memset ended' "$tmp/race.txt" ||
	bad "the race warning does not say the free came 50 us early: $(grep -i 'memset ended' "$tmp/race.txt")"
grep -q 'xla_gpu_autotune_level=3' "$tmp/race.txt" || bad "the race warning lacks its workaround"

# failures: from the 500th launch on, every cuLaunchKernel returns 719; one
# stream query before them returns 600 (not ready: no failure)
cp "$db" "$tmp/fail.db"
sqlite3 "$tmp/fail.db" "
UPDATE api_calls SET ret = 719 WHERE id IN (SELECT a.id FROM api_calls a JOIN strings s
  ON s.id = a.name_id WHERE s.value = 'cuLaunchKernel' ORDER BY a.start_ns LIMIT -1 OFFSET 500);
UPDATE api_calls SET ret = 600 WHERE id = (SELECT min(id) FROM api_calls);
" || bad "sqlite3 could not make the failures"
want=$(sqlite3 "$tmp/fail.db" "SELECT count(*) FROM api_calls WHERE ret = 719")
[ "$want" -gt 10 ] || bad "only $want failed calls made"
# (JSON: one line a warning, no wrapping)
"$bin" report --format json "$tmp/fail.db" >"$tmp/fail.txt" 2>&1 || bad "report on the failures failed"
grep -q "$want CUDA calls failed; the first, cuLaunchKernel" "$tmp/fail.txt" ||
	bad "the failure warning does not count $want failed calls: $(grep -i 'calls failed' "$tmp/fail.txt")"
grep -q 'returned CUDA_ERROR_LAUNCH_FAILED' "$tmp/fail.txt" || bad "the result is not named"

[ $fail -eq 0 ] && ok "cuda failure and host-free race warnings"
exit $fail
