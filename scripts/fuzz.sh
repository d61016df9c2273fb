#!/usr/bin/env bash
# fuzz.sh: builds and runs Quarry's libFuzzer targets (Fuzz/*.swift, see
# Fuzz/README.md) with AddressSanitizer.
#
#   bash scripts/fuzz.sh [--build [TARGET…]]      # build the targets only
#   bash scripts/fuzz.sh --smoke                  # build, then run each target briefly
#   bash scripts/fuzz.sh --long SECONDS [TARGET…] # run targets for SECONDS each and
#                                                 # append a line per target to
#                                                 # Fuzz/results/fuzz-runs.csv
#
# The build: SwiftPM compiles the QuarryPostgres target and everything it
# depends on (Quarry, PostgresNIO, …) with `-sanitize=fuzzer,address` into its
# own scratch path, .build-fuzz; then swiftc compiles each Fuzz/*.swift entry
# point and links it with those object files, so that libFuzzer's own main()
# runs. (An executable target of SwiftPM gets its entry point renamed, which
# hides libFuzzer's main.)
#
# Each run uses a fresh -seed, printed, so a run can be replayed:
#   .build-fuzz/fuzz/fuzz-<target> -seed=N -runs=… Fuzz/corpus/<target>
# A crash input is written to .build-fuzz/fuzz/crashes/<target>/.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"

targets_all=(sql-scanner postgres-url fts5-pattern record-decoding database-file)
source_of() {
    case "$1" in
        sql-scanner) echo Fuzz/FuzzSQLScanner.swift ;;
        postgres-url) echo Fuzz/FuzzPostgresURL.swift ;;
        fts5-pattern) echo Fuzz/FuzzFTS5Pattern.swift ;;
        record-decoding) echo Fuzz/FuzzRecordDecoding.swift ;;
        database-file) echo Fuzz/FuzzDatabaseFile.swift ;;
        *) echo "fuzz.sh: unknown target $1 (known: ${targets_all[*]})" >&2; exit 2 ;;
    esac
}

out="$root/.build-fuzz/fuzz"
mkdir -p "$out"

build() {
    echo "fuzz.sh: building the library targets (swift build, scratch path .build-fuzz)"
    swift build --scratch-path .build-fuzz --target QuarryPostgres \
        -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing 2>&1 | grep -v '^\[' || true
    local bin
    bin="$(cd .build-fuzz/debug && pwd -P)"
    test -f "$bin/Modules/QuarryPostgres.swiftmodule" || { echo "fuzz.sh: swift build failed" >&2; exit 1; }

    # The module and C-header flags SwiftPM used for QuarryPostgres, reused
    # for the fuzz entry points.
    mapfile -t flags < <(python3 - "$bin/../debug/description.json" <<'PYTHON'
import json, sys
text = open(sys.argv[1]).read()
def walk(node):
    if isinstance(node, dict):
        for value in node.values(): yield from walk(value)
    elif isinstance(node, list):
        if "-module-name" in node and node[node.index("-module-name") + 1] == "QuarryPostgres": yield node
        else:
            for value in node: yield from walk(value)
command = next(walk(json.loads(text)))
flags, i = [], 0
while i < len(command):
    if command[i] in ("-I", "-Xcc", "-package-name") and i + 1 < len(command):
        flags += command[i:i + 2]; i += 2
    else:
        i += 1
print("\n".join(flags))
PYTHON
)
    # The object files of the library targets (not of executables or tests).
    mapfile -t objects < <(find "$bin" -path "$bin/*.build/*" -name '*.o' \
        | grep -v -E '/(QuarryDemo|QuarryProcessHelper|QuarryPostgresProcessHelper|QuarryTests|QuarryPostgresTests|QuarryMigrateCommandTests|QuarryMigrateCommand|QuarryPackage[A-Za-z]*Tests|ArgumentParser[A-Za-z]*|PropertyBased|[A-Za-z_]*-tool|Snippets|SymbolKit|generate_[a-z_]*|snippet_extract)\.build/')

    for target in "${targets[@]}"; do
        local source
        source="$(source_of "$target")"
        echo "fuzz.sh: linking fuzz-$target ($source)"
        # The linker's "Cannot export local symbol" notes are harmless.
        swiftc -sanitize=fuzzer,address -parse-as-library -swift-version 6 -g -warnings-as-errors \
            "${flags[@]}" "$source" "${objects[@]}" -lsqlite3 -o "$out/fuzz-$target" 2>&1 \
            | grep -v -E 'Cannot export local symbol|^$' || true
        test -x "$out/fuzz-$target" && [ "$out/fuzz-$target" -nt "$source" ] \
            || { echo "fuzz.sh: linking fuzz-$target failed" >&2; exit 1; }
    done
}

# Runs one target; $1 target, $2 log file, then libFuzzer options.
run_target() {
    local target="$1" log="$2"
    shift 2
    local seed=$(( (RANDOM << 15 | RANDOM) + 1 ))
    mkdir -p "$out/corpus/$target" "$out/crashes/$target"
    echo "fuzz.sh: $target, -seed=$seed $*"
    local status=0
    # SWIFT_BACKTRACE: Swift's own crash backtracer is off, libFuzzer and
    # ASan print the stack of a crash.
    SWIFT_BACKTRACE=enable=no ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=0}" \
        "$out/fuzz-$target" -seed="$seed" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -dict="Fuzz/corpus/$target.dict" -artifact_prefix="$out/crashes/$target/" "$@" \
        "$out/corpus/$target" "Fuzz/corpus/$target" >"$log" 2>&1 || status=$?
    echo "$seed" >"$log.seed"
    return "$status"
}

# Whether a log shows a crash, a sanitizer report or a time-out.
failed_log() { grep -q -E 'ERROR: (AddressSanitizer|libFuzzer)|==[0-9]+==ERROR|SUMMARY: (AddressSanitizer|libFuzzer)|Fatal error|deadly signal' "$1"; }

mode="${1:-build}"
case "$mode" in
    --smoke)
        targets=("${targets_all[@]}")
        build
        failures=0
        for target in "${targets[@]}"; do
            log="$out/smoke-$target.log"
            start=$SECONDS
            status=0
            run_target "$target" "$log" -max_total_time=25 || status=$?
            runs="$(grep -o -E 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -o -E '[0-9]+$' || echo '?')"
            if [ "$status" -ne 0 ] || failed_log "$log"; then
                echo "fuzz.sh: $target FAILED (status $status, seed $(cat "$log.seed")); log: $log" >&2
                grep -E -A12 'ERROR|Fatal error|deadly signal' "$log" | head -40 >&2
                failures=$((failures + 1))
            else
                echo "fuzz.sh: $target ok: $runs executions in $((SECONDS - start)) s"
            fi
        done
        [ "$failures" -eq 0 ] || { echo "fuzz.sh: $failures target(s) failed" >&2; exit 1; }
        echo "fuzz.sh: smoke passed"
        ;;
    --long)
        seconds="${2:?--long needs a number of seconds}"
        shift 2
        targets=("$@")
        [ ${#targets[@]} -gt 0 ] || targets=("${targets_all[@]}")
        build
        csv=Fuzz/results/fuzz-runs.csv
        mkdir -p Fuzz/results
        [ -f "$csv" ] || echo "date,commit,target,seconds,executions,corpus_entries,crashes_found,crashes_fixed,notes" >"$csv"
        commit="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- Sources Fuzz || echo '+dirty')"
        for target in "${targets[@]}"; do
            log="$out/long-$target.log"
            start=$SECONDS
            status=0
            before=$(ls "$out/crashes/$target" 2>/dev/null | wc -l)
            run_target "$target" "$log" -max_total_time="$seconds" || status=$?
            elapsed=$((SECONDS - start))
            runs="$(grep -o -E 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -o -E '[0-9]+$' || echo 0)"
            # The corpus libFuzzer ends with (its directory also keeps the
            # inputs that were replaced by smaller ones).
            corpus="$(grep -o -E 'corp: [0-9]+' "$log" | tail -1 | grep -o -E '[0-9]+$' || echo 0)"
            crashes=$(( $(ls "$out/crashes/$target" 2>/dev/null | wc -l) - before ))
            notes="seed $(cat "$log.seed")"
            if [ "$status" -ne 0 ] || failed_log "$log"; then notes="$notes; stopped at a failure, see $log"; fi
            echo "$(date -u +%Y-%m-%dT%H:%M:%SZ),$commit,$target,$elapsed,${runs:-0},$corpus,$crashes,0,$notes" >>"$csv"
            echo "fuzz.sh: $target: $elapsed s, ${runs:-0} executions, corpus $corpus, $crashes new crash file(s)"
        done
        ;;
    build | --build)
        [ $# -gt 0 ] && shift
        targets=("$@")
        [ ${#targets[@]} -gt 0 ] || targets=("${targets_all[@]}")
        build
        ;;
    *)
        echo "usage: fuzz.sh [--build [TARGET…] | --smoke | --long SECONDS [TARGET…]]" >&2
        exit 2
        ;;
esac
