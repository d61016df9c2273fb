#!/usr/bin/env bash
# Runs Examples/Bookshelf/scripts/load-postgres.sh with two release builds of
# Bookshelf, interleaved (before, after, before, after…), against one
# PostgreSQL server, and appends one line per run to a CSV: the side, the
# run's requests/s, and each process's p50 and p99 (ms), as the load script
# printed them. Its checks (no lost write, no error) must pass for a line to
# be written.
#
#     bash Benchmarks/scripts/bookshelf-load-before-after.sh BEFORE_BIN AFTER_BIN [ROUNDS] [OUT.csv]
#
# BOOKSHELF binaries: `swift build -c release` in Examples/Bookshelf of each
# commit. DURATION (default 15 s) goes to the load script. Not run in CI.
set -euo pipefail
before="$(readlink -f "$1")"; after="$(readlink -f "$2")"
rounds="${3:-2}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${4:-$root/Benchmarks/results/bookshelf-load/latest.csv}"
[ -f "$out" ] || echo "side,binary,date,requests_per_s,p50_a_ms,p99_a_ms,p50_b_ms,p99_b_ms" > "$out"
for round in $(seq 1 "$rounds"); do
    for side in before after; do
        bin="$before"; [ "$side" = after ] && bin="$after"
        log="$(BOOKSHELF_BIN="$bin" DURATION="${DURATION:-15}" bash "$root/Examples/Bookshelf/scripts/load-postgres.sh" 2>&1)" || {
            echo "$log" | tail -20; echo "bookshelf-load-before-after: the $side run failed its checks" >&2; exit 1; }
        rps="$(echo "$log" | sed -n 's/^requests: *[0-9]* (\([0-9]*\) requests\/s.*/\1/p')"
        a="$(echo "$log" | sed -n 's/^latency A: *p50 \([0-9.]*\) ms, p90 [0-9.]* ms, p99 \([0-9.]*\) ms.*/\1,\2/p')"
        b="$(echo "$log" | sed -n 's/^latency B: *p50 \([0-9.]*\) ms, p90 [0-9.]* ms, p99 \([0-9.]*\) ms.*/\1,\2/p')"
        line="$side,$(basename "$bin"),$(date -u +%Y-%m-%dT%H:%M:%SZ),$rps,$a,$b"
        echo "$line" | tee -a "$out"
    done
done
