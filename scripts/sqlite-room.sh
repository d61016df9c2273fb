#!/usr/bin/env bash
# sqlite-room.sh: counts what of SQLite's C API is used outside its room,
# Sources/Quarry/SQLite/ (SQLite's half of the execution seam), and lists it
# per file: the sqlite3_* calls in code (comments and string literals aside)
# and the files that `import CSQLite`.
#
# Calls outside the room: 0, and the check fails on any. Imports: 2, where
# public API is built from SQLite's constants: Core/ResultCode.swift (the
# result codes) and Functions/Database+Authorizer.swift (the authorizer's
# action codes). The check fails above that; never raise it.
#
#   bash scripts/sqlite-room.sh
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 - <<'PYTHON'
import pathlib, re, sys

max_calls, max_imports = 0, 2
strings = re.compile(r'"(?:[^"\\\n]|\\.)*"')
call = re.compile(r"\bsqlite3_\w+\s*\(")
calls, imports = {}, []
for path in sorted(pathlib.Path("Sources/Quarry").rglob("*.swift")):
    if path.parts[:3] == ("Sources", "Quarry", "SQLite"):
        continue
    count = 0
    for line in path.read_text().split("\n"):
        if line.lstrip().startswith(("//", "/*", "*")):
            continue
        code = strings.sub('""', line.split("//", 1)[0])
        count += len(call.findall(code))
        if re.match(r"\s*import\s+CSQLite\b", code):
            imports.append(str(path))
    if count:
        calls[str(path)] = count
for name, count in calls.items():
    print(f"  {count:3}  {name}")
print(f"sqlite3_ calls outside Sources/Quarry/SQLite: {sum(calls.values())} in {len(calls)} files "
      f"(ceiling {max_calls})")
for name in imports:
    print(f"  import CSQLite  {name}")
print(f"files importing CSQLite outside Sources/Quarry/SQLite: {len(imports)} (ceiling {max_imports})")
if sum(calls.values()) > max_calls or len(imports) > max_imports:
    print("above the ceiling: move the C glue into Sources/Quarry/SQLite/ (issue 47)", file=sys.stderr)
    sys.exit(1)
PYTHON
