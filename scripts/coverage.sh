#!/usr/bin/env bash
# Runs the test suite with code coverage and prints the line coverage of
# Sources/Quarry only (tests, dependencies and examples excluded).
#
#     bash scripts/coverage.sh            # summary line
#     bash scripts/coverage.sh --files    # per-file table too
set -euo pipefail
cd "$(dirname "$0")/.."

swift test --enable-code-coverage >/dev/null
profdata=".build/debug/codecov/default.profdata"
binary=".build/debug/QuarryPackageTests.xctest"
llvm_cov="$(dirname "$(command -v swift)")/llvm-cov"
[ -x "$llvm_cov" ] || llvm_cov="$(command -v llvm-cov)"

report=$("$llvm_cov" report "$binary" -instr-profile="$profdata" -ignore-filename-regex='(\.build|Tests|Examples|Benchmarks)/')
if [ "${1:-}" = "--files" ]; then
    echo "$report"
fi
# The TOTAL line: regions, missed, cover, functions, missed, executed, lines, missed, cover, …
echo "$report" | awk '/^TOTAL/ { print "Line coverage of Sources/Quarry: " $10 " (" $8 " lines, " $9 " missed)" }'
