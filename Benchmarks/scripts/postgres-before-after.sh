#!/usr/bin/env bash
# Runs two builds of quarry-bench's PostgreSQL mode interleaved against one
# server: before, after, before, after… (3 rounds), each writing a results
# file, so that a change to QuarryPostgres is measured on one machine, one
# server, in one sitting.
#
#     bash Benchmarks/scripts/postgres-before-after.sh BEFORE_BIN AFTER_BIN
#
# BEFORE_BIN and AFTER_BIN are quarry-bench executables built in release mode
# from the two commits, e.g.
#     swift build -c release --package-path Benchmarks --product quarry-bench --scratch-path Benchmarks/.build-bench
#     → Benchmarks/.build-bench/release/quarry-bench
#
# The server: $QUARRY_POSTGRES_URL when set; otherwise the script starts a
# throwaway one with scripts/postgres-server.sh (state in a temporary
# directory) and stops it at the end.
#
# Writes Benchmarks/results/postgres/before-after/{before,after}-{1,2,3}.csv
# (or into $OUT_DIR), and prints each run's table. Extra arguments for both
# builds go in $BENCH_ARGS, e.g. BENCH_ARGS="--smoke" for a quick check that
# the script works (smoke sizes: timings mean nothing), or
# BENCH_ARGS="--workloads 1,5 --repetitions 3". Run it on an idle machine:
# the timings of a busy one are not results.
set -euo pipefail

if [ "$#" -ne 2 ]; then
    echo "usage: $0 BEFORE_BIN AFTER_BIN" >&2
    exit 2
fi
before_bin="$(readlink -f "$1")"
after_bin="$(readlink -f "$2")"
for bin in "$before_bin" "$after_bin"; do
    [ -x "$bin" ] || { echo "postgres-before-after: not an executable: $bin" >&2; exit 2; }
done

root="$(cd "$(dirname "$0")/../.." && pwd)"
out_dir="${OUT_DIR:-$root/Benchmarks/results/postgres/before-after}"
rounds="${ROUNDS:-3}"
read -r -a extra <<< "${BENCH_ARGS:-}"
mkdir -p "$out_dir"

started_server=""
if [ -z "${QUARRY_POSTGRES_URL:-}" ]; then
    export QUARRY_POSTGRES_STATE_DIR="${QUARRY_POSTGRES_STATE_DIR:-$(mktemp -d)}"
    bash "$root/scripts/postgres-server.sh" start
    started_server=1
    eval "$(bash "$root/scripts/postgres-server.sh" env)"
fi
logs="$(mktemp -d)"
stop_server() {
    rm -rf "$logs"
    if [ -n "$started_server" ]; then bash "$root/scripts/postgres-server.sh" stop || true; fi
}
trap stop_server EXIT

echo "postgres-before-after: before $before_bin"
echo "postgres-before-after: after  $after_bin"
echo "postgres-before-after: $rounds rounds, results in $out_dir, extra arguments: ${extra[*]:-none}"
for round in $(seq 1 "$rounds"); do
    for side in before after; do
        if [ "$side" = before ]; then bin="$before_bin"; else bin="$after_bin"; fi
        echo ""
        echo "== round $round: $side =="
        "$bin" --postgres --postgres-url "$QUARRY_POSTGRES_URL" --results "$out_dir/$side-$round.csv" "${extra[@]}" \
            | tee "$logs/$side-$round.log"
    done
done

# Both builds run the same benchmark code: each run checks that its
# contenders agree, and here every run must report the same checksums and
# tables as the first one.
grep '^checked:' "$logs/before-1.log" > "$logs/checked-reference"
for log in "$logs"/*.log; do
    if ! diff <(grep '^checked:' "$log") "$logs/checked-reference" > /dev/null; then
        echo "postgres-before-after: $(basename "$log" .log) did not do the same work as before-1:" >&2
        diff <(grep '^checked:' "$log") "$logs/checked-reference" >&2 || true
        exit 1
    fi
done
echo ""
echo "postgres-before-after: all $((rounds * 2)) runs agree ($(wc -l < "$logs/checked-reference") workloads, the same checksums and tables)"

# The medians of quarry-postgres, side by side.
python3 - "$out_dir" "$rounds" <<'EOF'
import csv, pathlib, statistics, sys
directory, rounds = pathlib.Path(sys.argv[1]), int(sys.argv[2])
def medians(side):
    table = {}
    for index in range(1, rounds + 1):
        lines = (directory / f"{side}-{index}.csv").read_text(encoding="utf-8").splitlines()
        for row in csv.DictReader(line for line in lines if not line.startswith("#")):
            table.setdefault((row["workload"], row["contender"]), []).append(float(row["median_ms"]))
    return table
before, after = medians("before"), medians("after")
print("")
print("| workload | contender | before, median of runs (ms) | after, median of runs (ms) | after / before |")
print("|---|---|---:|---:|---:|")
for key in before:
    b, a = statistics.median(before[key]), statistics.median(after.get(key, [float("nan")]))
    print(f"| {key[0]} | {key[1]} | {b:.1f} | {a:.1f} | {a / b:.2f}x |")
EOF
