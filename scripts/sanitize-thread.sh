#!/usr/bin/env bash
# Runs the concurrency tests, and the DatabaseQueue/DatabasePool/concurrent
# migration tests, under ThreadSanitizer. Fails on any test failure and on any
# ThreadSanitizer report.
#
#     bash scripts/sanitize-thread.sh            # the default filter below
#     bash scripts/sanitize-thread.sh FILTER     # another `swift test --filter` regex
#
# Builds in its own scratch folder (.build-tsan), so that it does not throw
# away the ordinary debug build. Known false positives of the runtime
# libraries (not of Quarry) are suppressed in scripts/tsan-suppressions.txt,
# each with its reason.
set -euo pipefail
cd "$(dirname "$0")/.."

filter="${1:-Concurrency|DatabasePoolTests|DatabaseQueueTests|ConcurrentMigrationTests|TransactionTests|DatabaseFunctionTests|DatabaseCollationTests|DatabaseAuthorizerTests|ExtensionLifetimeTests|InterruptTests|CancellationTests|StatementTimeLimitTests|CheckpointTests|BackupTests|MaintenanceTests|TracingTests|MetricsTests|TransactionObserver|TransactionObservationExtent|ValueObservation|ForeignCommitObservation|DatabaseRegionObservation|DatabaseServerPool|FaultVFSTests|IOErrorTests|ConnectionHygiene|PostgresStatementCache}"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT

# halt_on_error=0: let the run finish and list every report; the grep below
# turns any of them into a failure. second_deadlock_stack=1: fuller reports.
export TSAN_OPTIONS="suppressions=$PWD/scripts/tsan-suppressions.txt halt_on_error=0 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"

# Timing bounds of the tests allow for the sanitizer (Tests/TestSupport/TimingSlack.swift).
export QUARRY_SANITIZER=thread

status=0
swift test --sanitize=thread --scratch-path .build-tsan --filter "$filter" 2>&1 | tee "$log" || status=$?

reports=$(grep -c "WARNING: ThreadSanitizer" "$log" || true)
if [ "$reports" -ne 0 ]; then
    echo "sanitize-thread: $reports ThreadSanitizer report(s), see above" >&2
    exit 1
fi
if [ "$status" -ne 0 ]; then
    echo "sanitize-thread: swift test failed (status $status)" >&2
    exit "$status"
fi
if ! grep -Eq "Test run with [0-9]+ tests? (in [0-9]+ suites? )?passed" "$log"; then
    echo "sanitize-thread: no passing test run found in the output" >&2
    exit 1
fi
echo "sanitize-thread: no ThreadSanitizer report, all tests passed"
