#!/usr/bin/env bash
# postgres-ran.sh: fails unless the PostgreSQL tests ran in a `swift test`
# run, from the output of that run (LOG). `.ci/run` calls it after
# `swift test`, with QUARRY_POSTGRES_URL set: without it a run where the
# PostgreSQL cases quietly did not run (the server unset, the suites
# disabled) would pass.
#
# It checks that:
# - the tally that the test process prints at exit ("Shared suites: … N on
#   PostgreSQL", Tests/QuarryTests/Support/TestBackends.swift) is there and N
#   is at least MINIMUM (default 200: 288 shared test functions run on
#   PostgreSQL, see scripts/shared-suites.sh);
# - no PostgreSQL suite printed that it skipped: each prints one line
#   "<Suite> skipped: <reason>" at the start of a line when it cannot run
#   (PostgresTestServer.swift: QUARRY_POSTGRES_URL is not set;
#   Support/PrivatePostgresServer.swift: no server binaries, for the restart
#   tests; PostgresTLSTests.swift: no openssl or server binaries);
# - each suite of REQUIRED_SUITES (default: the TLS, restart, fault and
#   listener suites, whose faults nothing else checks) ran and passed: Swift
#   Testing prints "Suite <name> passed" for it. A suite that skipped, failed,
#   or ran no test (renamed, filtered out, not compiled) has no such line.
#
#   swift test 2>&1 | tee test.log; bash scripts/postgres-ran.sh test.log [MINIMUM]
set -euo pipefail
log=${1:?usage: postgres-ran.sh LOG [MINIMUM]}
minimum=${2:-200}
required_suites=${REQUIRED_SUITES:-PostgresTLSTests PostgresRestartTests PostgresFaultTests PostgresObservationTests}

tally=$(grep -E '^Shared suites: ' "$log" | tail -1 || true)
if [ -z "$tally" ]; then
    echo "postgres-ran: FAIL: no \"Shared suites:\" line in $log (did the QuarryTests process run to its end?)"
    exit 1
fi
echo "postgres-ran: $tally"
postgres=$(echo "$tally" | sed -nE 's/.*, ([0-9]+) on PostgreSQL.*/\1/p')
if [ -z "$postgres" ]; then
    echo "postgres-ran: FAIL: cannot read the PostgreSQL count in: $tally"
    exit 1
fi
if [ "$postgres" -lt "$minimum" ]; then
    echo "postgres-ran: FAIL: $postgres shared test cases ran on PostgreSQL, at least $minimum expected"
    exit 1
fi
skipped=$(grep -E '^[A-Z][A-Za-z0-9]*Tests skipped: |skipped: QUARRY_POSTGRES_URL is not set' "$log" | sort -u || true)
if [ -n "$skipped" ]; then
    echo "postgres-ran: FAIL: PostgreSQL suites skipped:"
    echo "$skipped"
    exit 1
fi
missing=""
for suite in $required_suites; do
    if ! grep -qE "Suite $suite passed" "$log"; then
        missing="$missing $suite"
    fi
done
if [ -n "$missing" ]; then
    echo "postgres-ran: FAIL: no \"Suite <name> passed\" line in $log for:$missing (skipped, failed, or ran no test)"
    exit 1
fi
echo "postgres-ran: OK ($postgres shared test cases on PostgreSQL, at least $minimum; no PostgreSQL suite skipped; passed:" \
    "$(echo $required_suites | sed 's/ /, /g'))"
