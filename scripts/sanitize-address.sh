#!/usr/bin/env bash
# Runs the whole test suite under AddressSanitizer, in its own scratch path
# (.build-asan), and fails on any test failure or any ASan report.
#
#     bash scripts/sanitize-address.sh              # the whole suite
#     bash scripts/sanitize-address.sh --filter X   # extra arguments go to `swift test`
set -euo pipefail
cd "$(dirname "$0")/.."

log="$(mktemp -t quarry-asan.XXXXXX)"
trap 'rm -f "$log"' EXIT

# halt_on_error: stop at the first report; detect_leaks=0: LeakSanitizer needs
# ptrace, which containers often forbid, and Swift's runtime keeps metadata
# caches alive on purpose.
export ASAN_OPTIONS="${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=0:abort_on_error=0}"

# Timing bounds of the tests allow for the sanitizer (Tests/TestSupport/TimingSlack.swift).
export QUARRY_SANITIZER=address

status=0
swift test --sanitize=address --scratch-path .build-asan "$@" 2>&1 | tee "$log" || status=$?

if grep -q "ERROR: AddressSanitizer" "$log"; then
    echo "sanitize-address: AddressSanitizer reported an error (see above)" >&2
    exit 1
fi
if [ "$status" -ne 0 ]; then
    echo "sanitize-address: swift test failed with status $status" >&2
    exit "$status"
fi
echo "sanitize-address: the suite passed under AddressSanitizer with no report"
