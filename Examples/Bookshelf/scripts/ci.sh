#!/usr/bin/env bash
# ci.sh: what CI runs for the Bookshelf example — build it, and run its tests
# (the in-process HTTP tests of every endpoint, and the tests that start two
# `bookshelf` processes on one database: the executable `swift build` makes).
# With QUARRY_POSTGRES_URL set (.ci/run starts a throwaway server), the tests
# parameterized over the backend run on PostgreSQL too. Not the load check.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build
swift test
