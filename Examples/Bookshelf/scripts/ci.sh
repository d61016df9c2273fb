#!/usr/bin/env bash
# ci.sh: what CI runs for the Bookshelf example — build it, and run its tests
# (the in-process HTTP tests of every endpoint). Not the load check.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build
swift test
