#!/usr/bin/env bash
# layers.sh: checks that each folder (layer) of Sources/Quarry uses only the
# types of the layers before it in the README's order, and lists the
# documented exceptions. A use is a type name declared in a later layer that
# appears in the code of an earlier one (comments and string literals aside).
#
# SQLite's room (Sources/Quarry/SQLite/, issue 47) has Core's rank: it is
# Core's SQLite half, behind the execution seam (Core/DatabaseConnection.swift),
# so Core and the room may use each other's types. A later layer that uses a
# type of the room reaches past the seam: a violation, unless listed below.
#
# Documented exceptions (README, "How the code is organized"):
# - the dialect (SQL/SQLDialect.swift, SQLiteDialect.swift) and the catalog
#   (SQL/DatabaseCatalog.swift, SQLiteCatalog.swift) are the backend seam's
#   other half: Core's connections bring them, Schema's DDL and introspection
#   ask them;
# - Core's Database keeps the record layer's per-connection cache
#   (RecordCache), so that it lives and closes with the connection;
# - Observation's broker reads what SQLite's authorizer learned of each
#   statement at compile time (StatementFacts, SavepointAction, in
#   SQLite/StatementAuthorizer.swift), to know which changes a statement
#   may make before SQLite's hooks (SQLite/SQLiteConnection+ChangeHooks.swift)
#   report them.
# - `Statement` (SQLite/Statement.swift) is SQLite's prepared statement and
#   public API (`Database.makeStatement(sql:)`, `cachedStatement(sql:)`,
#   the fetch methods that take one): every layer may name it, as it may
#   name `Database`. What lies behind it, its C calls, stays in the room.
#
#   bash scripts/layers.sh
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 - <<'PYTHON'
import collections, pathlib, re, sys

order = ["Core", "SQLite", "Schema", "SQL", "Records", "QueryInterface", "FullTextSearch",
         "Migration", "Functions", "Operations", "Observation"]
rank = {layer: max(0, index - 1) for index, layer in enumerate(order)}  # SQLite: Core's rank
allowed = {"SQLDialect", "SQLiteDialect", "DatabaseCatalog", "SQLiteCatalog", "SQLLexicalRules", "SchemaObjectKind", "RecordCache"}
# Later layers' uses of the room's types, each with why (issue 47 moves them in).
room_allowed = {("Observation", "StatementFacts"), ("Observation", "SavepointAction")}
# The room's public types, which every layer may name (see above).
room_public = {"Statement"}
declaration = re.compile(
    r"^(?:@\w+\s+)*(?:public |package |private |fileprivate |internal )?(?:final )?(?:indirect )?"
    r"(?:class|struct|enum|protocol|typealias|actor)\s+([A-Z]\w*)", re.M)
strings = re.compile(r'"(?:[^"\\\n]|\\.)*"')
layer_of, code_of = {}, {}
for layer in order:
    for path in sorted(pathlib.Path("Sources/Quarry", layer).rglob("*.swift")):
        text = path.read_text()
        code_of[path] = (layer, "\n".join(strings.sub('""', line.split("//", 1)[0]) for line in text.split("\n")))
        for match in declaration.finditer(text):
            layer_of.setdefault(match.group(1), layer)
violations, exceptions = collections.defaultdict(set), collections.defaultdict(set)
for path, (layer, code) in code_of.items():
    for name, owner in layer_of.items():
        past_seam = owner == "SQLite" and rank[layer] > rank[owner]
        if (rank[owner] > rank[layer] or past_seam) and re.search(r"(?<![\w.])" + name + r"\b", code):
            allowed_here = ((layer, name) in room_allowed or name in room_public) if past_seam else name in allowed
            (exceptions if allowed_here else violations)[f"{layer} -> {owner}"].add(f"{path}: {name}")
for title, found in (("documented exceptions", exceptions), ("layer violations", violations)):
    print(f"{title}: {sum(len(v) for v in found.values())}")
    for pair in sorted(found):
        for entry in sorted(found[pair]):
            print(f"  {pair}  {entry}")
sys.exit(1 if violations else 0)
PYTHON
