#!/usr/bin/env bash
# type-check-budget.sh: enforces the compile-time budget that
# Tests/QuarryTests/QueryInterface/TypeCheckBudgetTests.swift is named after
# (Benchmarks/README.md, "Compile time"). It type-checks that file alone, in
# its module, with the compiler's `-warn-long-expression-type-checking=1`,
# which reports every expression that takes 1 ms or more, and then:
#
# - fails if an expression of `closureCases` or `splitCases` (the forms the
#   file says are within the budget, measured under 10 ms and 25 ms) takes
#   BUDGET_MS (150 ms, the issue's target) or more;
# - fails if an inline case of `cases` takes BUDGET_MS or more, unless it is
#   one of the known exceptions below (documented as over the budget);
# - fails if the compiler reported fewer than 10 timings in the file: the
#   check would then be measuring nothing.
#
# A case over the budget is measured twice more and fails only if the fastest
# of the three runs is still over it, so that a busy machine does not fail
# the check by itself. Takes about 10 s once the test target is built (the
# script builds it first, in the scratch folder that `swift test` uses).
#
#   bash scripts/type-check-budget.sh            # .build
#   SCRATCH_PATH=.build-x bash scripts/type-check-budget.sh
set -euo pipefail
cd "$(dirname "$0")/.."

# BUDGET_MS may be lowered to see the check fail (BUDGET_MS=20 fails on splitCases).
BUDGET_MS=${BUDGET_MS:-150}
# The inline cases documented as over the budget (TypeCheckBudgetTests.swift's
# header): each `let` name of `cases`.
# r3 and r17 joined on 2026-12-06: 172 to 232 ms on 2 cores, already at
# 10291d7 (issue 48 looks at the query interface's compile time).
KNOWN_OVER_BUDGET="r3 r6 r17 r19 r26 r29"
FILE=Tests/QuarryTests/QueryInterface/TypeCheckBudgetTests.swift
SCRATCH_PATH=${SCRATCH_PATH:-.build}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ! swift build --build-tests --scratch-path "$SCRATCH_PATH" >"$work/build.log" 2>&1; then
    tail -40 "$work/build.log"
    echo "type-check-budget: the build of the tests failed"
    exit 1
fi
swiftc=$(command -v swiftc)
frontend="$(dirname "$(readlink -f "$swiftc")")/swift-frontend"

# The frontend arguments of the QuarryTests module, from SwiftPM's build
# manifest: its search paths, C module maps and flags, with FILE as the only
# primary file (the others are parsed for their declarations, not checked).
python3 - "$SCRATCH_PATH/debug.yaml" QuarryTests "$FILE" >"$work/arguments" <<'PYTHON'
import json, os, sys
manifest, module, primary = sys.argv[1], sys.argv[2], os.path.abspath(sys.argv[3])
text = open(manifest).read()
start = text.find('"C.%s-' % module)
if start < 0:
    sys.exit("type-check-budget: no build command for %s in %s" % (module, manifest))
line_start = text.find('args: ', start) + len('args: ')
arguments = json.loads(text[line_start:text.find('\n', line_start)])
kept, sources, index = [], [], 1
with_value = {'-module-name', '-I', '-target', '-module-cache-path', '-swift-version', '-package-name', '-Xcc'}
alone = {'-enable-testing', '-parse-as-library', '-Onone'}
while index < len(arguments):
    argument = arguments[index]
    if argument.startswith('@'):
        sources += open(argument[1:]).read().split()
    elif argument in with_value:
        kept += [argument, arguments[index + 1]]
        index += 1
    elif argument == '-Xfrontend':
        kept.append(arguments[index + 1])
        index += 1
    elif argument in alone or argument.startswith('-D'):
        kept.append(argument)
    elif argument.endswith('.swift'):
        sources.append(argument)
    index += 1
if primary not in sources:
    sys.exit("type-check-budget: %s is not a source of %s" % (primary, module))
sys.stdout.write(''.join(a + '\0' for a in kept + ['-primary-file', primary] + [s for s in sources if s != primary]))
PYTHON

# The compiler's macro plugins (Swift Testing's @Test and #expect), which the
# driver passes to the frontend: asked from the driver rather than guessed.
echo 'let x = 1' >"$work/probe.swift"
swiftc -typecheck "$work/probe.swift" -### 2>/dev/null | tr ' ' '\n' \
    | awk '/^-(in-process-plugin-server-path|plugin-path|external-plugin-path)$/ { flag = $0; next } flag { print flag; print $0; flag = "" }' \
    | tr '\n' '\0' >>"$work/arguments"

# One type-check of FILE: "line milliseconds" for each expression of 1 ms or more.
measure() {
    if ! xargs -0 "$frontend" -frontend -typecheck -warn-long-expression-type-checking=1 <"$work/arguments" >"$work/log" 2>&1; then
        echo "type-check-budget: the type-check of $FILE failed:" >&2
        grep -m 20 "error:" "$work/log" >&2 || tail -20 "$work/log" >&2
        exit 1
    fi
    sed -nE "s|^.*/$(basename "$FILE"):([0-9]+):[0-9]+: warning: expression took ([0-9]+)ms to type-check.*|\1 \2|p" "$work/log"
}

# The section of FILE each line is in (cases, closureCases, splitCases, or
# other), and the `let` name on it.
section_of() {
    awk -v target="$1" '
        /static var cases:/ { section = "cases" }
        /static var closureCases:/ { section = "closureCases" }
        /static var splitCases:/ { section = "splitCases" }
        /@Test/ { section = "other" }
        NR == target { print (section == "" ? "other" : section); exit }' "$FILE"
}
name_of() { sed -n "${1}p" "$FILE" | sed -nE 's/^ *let ([A-Za-z0-9_]+)[ :].*/\1/p'; }

measure >"$work/run1" || exit 1
timings=$(wc -l <"$work/run1")
if [ "$timings" -lt 10 ]; then
    echo "type-check-budget: the compiler reported $timings timings in $FILE (at least 10 expected): the check is not measuring"
    exit 1
fi

# Lines over the budget in the first run; measured twice more, the fastest counts.
over=$(awk -v budget="$BUDGET_MS" '$2 >= budget { print $1 }' "$work/run1" | sort -un)
if [ -n "$over" ]; then
    measure >"$work/run2" || exit 1
    measure >"$work/run3" || exit 1
fi
failures=0
for line in $over; do
    fastest=$(cat "$work/run1" "$work/run2" "$work/run3" | awk -v line="$line" '$1 == line { print $2 }' | sort -n | head -1)
    # A line the compiler timed under 1 ms in a later run is within the budget.
    runs=$(cat "$work/run2" "$work/run3" | awk -v line="$line" '$1 == line' | wc -l)
    if [ "$runs" -lt 2 ]; then fastest=0; fi
    section=$(section_of "$line")
    name=$(name_of "$line")
    text=$(sed -n "${line}p" "$FILE" | sed -E 's/^ +//')
    if [ "$fastest" -lt "$BUDGET_MS" ]; then
        echo "type-check-budget: line $line over the budget once, then $fastest ms (a busy machine): $text"
        continue
    fi
    case "$section" in
    closureCases | splitCases)
        echo "FAIL: $section, line $line, $fastest ms (budget $BUDGET_MS ms): $text"
        failures=$((failures + 1))
        ;;
    cases)
        if [[ " $KNOWN_OVER_BUDGET " == *" $name "* ]]; then
            echo "known exception: cases, line $line ($name), $fastest ms: $text"
        else
            echo "FAIL: a new inline case over the budget: line $line ($name), $fastest ms (budget $BUDGET_MS ms): $text"
            failures=$((failures + 1))
        fi
        ;;
    *)
        echo "not budgeted (outside the cases): line $line, $fastest ms: $text"
        ;;
    esac
done

for section in closureCases splitCases; do
    max=0
    while read -r line ms; do
        if [ "$(section_of "$line")" = "$section" ] && [ "$ms" -gt "$max" ]; then max=$ms; fi
    done <"$work/run1"
    echo "type-check-budget: $section: slowest expression $max ms (budget $BUDGET_MS ms)"
done
if [ "$failures" -gt 0 ]; then
    echo "type-check-budget: $failures expression(s) over the $BUDGET_MS ms budget (see Benchmarks/README.md, \"Compile time\")"
    exit 1
fi
echo "type-check-budget: OK ($timings expressions timed; known inline exceptions: $KNOWN_OVER_BUDGET)"
