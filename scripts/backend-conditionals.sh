#!/usr/bin/env bash
# backend-conditionals.sh: counts the places in Sources/Quarry that branch on
# the backend outside the seam's own files (the execution seam in Core/, the
# dialect in SQL/, and SQLite's room, Sources/Quarry/SQLite/, all of which is
# SQLite's side of the seam; see the DocC article "Backends"), and lists them.
#
# A backend conditional is code that asks which backend runs, instead of
# asking the dialect how to spell something or the connection what to run:
# a test of `server`, `isPostgreSQL`, a comparison of dialects, a test of the
# SQLite handle (`sqliteConnection`), a cast to a backend's connection or
# statement type, or a branch on a capability (`supports(`). Refusing a
# feature with `require(.capability, …)` is not a branch: it is the one
# check of capabilities, listed separately.
#
# Each counted line must have a comment starting "Backend conditional" on one
# of the 4 lines above it, saying why it cannot live in the dialect. The
# script fails when a counted line has none, or when there are more than
# $QUARRY_MAX_BACKEND_CONDITIONALS (3).
#
#   bash scripts/backend-conditionals.sh
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 - "${QUARRY_MAX_BACKEND_CONDITIONALS:-3}" <<'PYTHON'
import pathlib, re, sys

limit = int(sys.argv[1])
seam = {
    "Sources/Quarry/Core/DatabaseConnection.swift",
    "Sources/Quarry/SQLite/SQLiteConnection.swift",
    "Sources/Quarry/Core/ServerConnection.swift",
    "Sources/Quarry/Core/DatabaseServerConnection.swift",
    "Sources/Quarry/SQL/SQLDialect.swift",
    "Sources/Quarry/SQL/SQLiteDialect.swift",
}
pattern = re.compile(
    r"\bserver\s*[!=]=\s*nil|\blet server\b|\bdb\.server\b|\bisPostgreSQL\b|\bisSQLite\b"
    r"|dialect\s*[!=]=|\.postgreSQL\b|case \.sqlite\b|==\s*\.sqlite\b"
    r"|sqliteConnection\s*[!=]=\s*nil|\b(if|guard) let sqliteConnection\b"
    r"|\b(as[?!]?|is)\s+(SQLiteConnection|ServerConnection|ServerStatement|Statement)\b"
    r"|\.supports\(")
refusal = re.compile(r"\brequire\(\s*$|\brequire\(\.")
counted, refusals, missing = [], 0, []
for path in sorted(pathlib.Path("Sources/Quarry").rglob("*.swift")):
    name = str(path)
    if name in seam or name.startswith("Sources/Quarry/SQLite/"):
        continue
    lines = path.read_text().split("\n")
    for number, line in enumerate(lines, 1):
        code = line.split("//", 1)[0]
        if refusal.search(code):
            refusals += 1
        if not pattern.search(code):
            continue
        counted.append(f"{name}:{number}: {line.strip()}")
        above = lines[max(0, number - 5):number - 1]
        if not any("Backend conditional" in text for text in above):
            missing.append(f"{name}:{number}")
for entry in counted:
    print(entry)
print(f"backend conditionals outside the seam: {len(counted)} (at most {limit}); "
      f"capability refusals (require(.…)): {refusals}")
if missing:
    print("without a 'Backend conditional' comment saying why it is not in the dialect:", file=sys.stderr)
    for entry in missing:
        print("  " + entry, file=sys.stderr)
if missing or len(counted) > limit:
    sys.exit(1)
PYTHON
