#!/usr/bin/env bash
# Runs the test suite with code coverage and prints the line coverage of
# Sources/Quarry only (tests, dependencies and examples excluded).
#
#     bash scripts/coverage.sh               # summary line
#     bash scripts/coverage.sh --files       # per-file table too
#     bash scripts/coverage.sh --minimum 90  # exits 1 below 90% (CI uses this)
#
# It builds in its own folder (.build-coverage), so that the instrumented
# build does not replace the ordinary one in .build.
set -euo pipefail
cd "$(dirname "$0")/.."

show_files=false
minimum=""
while [ $# -gt 0 ]; do
    case "$1" in
        --files) show_files=true ;;
        --minimum) minimum="$2"; shift ;;
        *) echo "usage: $0 [--files] [--minimum PERCENT]" >&2; exit 64 ;;
    esac
    shift
done

scratch=".build-coverage"
swift test --scratch-path "$scratch" --enable-code-coverage >"$scratch.log" 2>&1 || {
    tail -n 40 "$scratch.log"
    echo "coverage: the test suite failed (full output in $scratch.log)" >&2
    exit 1
}
profdata="$scratch/debug/codecov/default.profdata"
binary="$scratch/debug/QuarryPackageTests.xctest"
llvm_cov="$(dirname "$(command -v swift)")/llvm-cov"
[ -x "$llvm_cov" ] || llvm_cov="$(command -v llvm-cov)"

report=$("$llvm_cov" report "$binary" -instr-profile="$profdata" -ignore-filename-regex='(\.build[^/]*|Tests|Examples|Benchmarks)/')
if $show_files; then
    echo "$report"
fi
# The TOTAL line: regions, missed, cover, functions, missed, executed, lines, missed, cover, …
total=$(echo "$report" | awk '/^TOTAL/ { print $10 " " $8 " " $9 }')
read -r percent lines missed <<<"$total"
echo "Line coverage of Sources/Quarry: $percent ($lines lines, $missed missed)"
if [ -n "$minimum" ]; then
    value="${percent%\%}"
    if awk -v v="$value" -v m="$minimum" 'BEGIN { exit !(v + 0 < m + 0) }'; then
        echo "coverage: $percent is below the minimum of $minimum%" >&2
        exit 1
    fi
fi
