#!/usr/bin/env bash
# shared-suites.sh: how many test functions of the record, query-interface
# and migration suites run on both backends — those that take a `Backend`
# argument (Tests/QuarryTests/Support/TestBackends.swift) — against all test
# functions of those suites. The count of test cases that ran per backend is
# printed by `swift test` itself ("Shared suites: …").
#
#   bash scripts/shared-suites.sh
set -euo pipefail
cd "$(dirname "$0")/.."
total=0
shared=0
for dir in Records QueryInterface Migration; do
    files=$(find "Tests/QuarryTests/$dir" -name '*.swift')
    # A test function is an @Test attribute; a shared one lists Backend.all (or
    # Backend.allWithMemory) in its arguments.
    dir_total=$(cat $files | grep -c '@Test' || true)
    dir_shared=$(cat $files | grep '@Test' | grep -c 'Backend.all' || true)  # Backend.all and Backend.allWithMemory
    printf '%-15s %3d of %3d test functions run on SQLite and PostgreSQL\n' "$dir" "$dir_shared" "$dir_total"
    total=$((total + dir_total))
    shared=$((shared + dir_shared))
done
printf 'shared suites: %d of %d test functions (%d%%) run on both backends\n' "$shared" "$total" $((100 * shared / total))
