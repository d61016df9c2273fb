#!/usr/bin/env python3
"""Writes the benchmark tables of README.md and Benchmarks/README.md from the
one source of their figures, Benchmarks/results/latest-run.csv (which
quarry-bench writes after a full run), or checks that they agree with it.

    python3 Benchmarks/scripts/tables.py --write   # after a full run
    python3 Benchmarks/scripts/tables.py --check   # CI: exit 1 if a table differs

Each table sits between two HTML comments in the Markdown file:
<!-- tables.py: NAME --> and <!-- /tables.py -->; the rest of the file is
left alone. Standard library only.
"""

import csv
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
RESULTS = ROOT / "Benchmarks" / "results" / "latest-run.csv"
# The cost curves (quarry-bench --curve) and the allocation counts
# (quarry-bench --count-allocations --results results/allocations.csv).
CURVES = ROOT / "Benchmarks" / "results" / "cost-curves.csv"
ALLOCATIONS = ROOT / "Benchmarks" / "results" / "allocations.csv"
POSTGRES_LATEST = ROOT / "Benchmarks" / "results" / "postgres" / "latest-run.csv"
# Workload 10 and the cursor's peak memory, written by a full run that
# includes them (quarry-bench --workloads 8,10, or no --workloads).
CONCURRENT_READS = ROOT / "Benchmarks" / "results" / "concurrent-reads.csv"
CURSOR_MEMORY = ROOT / "Benchmarks" / "results" / "cursor-memory.csv"
# Issue 34's before/after runs of the backend seam: workloads 1 to 6, run
# before, after, before, after on one machine (see Benchmarks/README.md).
SEAM_RUNS = ROOT / "Benchmarks" / "results" / "seam-before-after"
# Issue 47's: the seam finished (the row shape, SQLite's room), workloads 1
# to 9 before and after, and the PostgreSQL workloads in postgres/.
SEAM_FINISHED_RUNS = ROOT / "Benchmarks" / "results" / "seam-finished"
# Issue 48's first step: the direct plans made opt-in; before, records took
# them by default; after, a record's own init(from:) and encode(to:) run.
USER_CODE_RUNS = ROOT / "Benchmarks" / "results" / "user-code-runs"
# Then the keyed container's cells through CellReads (no retain per cell).
CELL_READS_RUNS = ROOT / "Benchmarks" / "results" / "cell-reads"
# Issue 48's PostgreSQL prepared statements: quarry-bench --postgres before and after.
PREPARED_RUNS = ROOT / "Benchmarks" / "results" / "prepared-statements" / "postgres"

# Issue 35's PostgreSQL runs: quarry-bench --postgres before and after the
# work (postgres-before-after.sh), and postgres-access (the cost of an access).
POSTGRES_RUNS = ROOT / "Benchmarks" / "results" / "postgres" / "before-after"
POSTGRES_ACCESS = ROOT / "Benchmarks" / "results" / "postgres" / "access-cost.csv"

# Issue 36's long reliability runs (power cuts, injected I/O errors, capped
# heaps: one row per run, written by hand from the run's printed summary)
# and the fuzzing runs (one row per target and run, appended by
# scripts/fuzz.sh --long).
RELIABILITY_RUNS = ROOT / "Benchmarks" / "results" / "reliability" / "long-runs.csv"
FUZZ_RUNS = ROOT / "Fuzz" / "results" / "fuzz-runs.csv"
FOREIGN_OBSERVATION = ROOT / "Benchmarks" / "results" / "observation" / "foreign-commits.csv"
OBSERVING_ARTICLE = ROOT / "Sources" / "Quarry" / "Quarry.docc" / "ObservingChanges.md"

# The README's words for each workload, by its number.
README_NAMES = {
    "1": "insert 100k records",
    "2": "fetch all 100k records",
    "3": "fetch 10k by primary key, one query each",
    "4": "filter + order + limit, 1k queries",
    "5": "update 10k by primary key",
    "6": "delete 5k by primary key",
    "7": "10k records with an eager-loaded parent",
    "8": "stream 1M rows through a cursor",
    "9": "bulk insert 100k (`insertAll`)",
}


def read_run(path, unnamed):
    """The provenance line of a results file (`unnamed` without one) and its rows."""
    with path.open(encoding="utf-8") as file:
        lines = file.read().splitlines()
    provenance = [line[1:].strip() for line in lines if line.startswith("#")]
    rows = list(csv.DictReader(line for line in lines if not line.startswith("#")))
    return (provenance[0] if provenance else unnamed), rows


def read_results():
    provenance, rows = read_run(RESULTS, "quarry-bench run")
    if not rows:
        raise SystemExit(f"tables.py: {RESULTS} has no rows")
    return provenance, rows


def full_table(provenance, rows):
    out = [f"From `results/latest-run.csv`: {provenance}.", ""]
    out.append("| workload | contender | min ms | median ms | ratio to raw | ratio to GRDB Codable |")
    out.append("|---|---|---:|---:|---:|---:|")
    for row in rows:
        out.append(
            f"| {row['workload']} | {row['contender']} | {row['min_ms']} | {row['median_ms']} "
            f"| {row['ratio_to_raw']}x | {row['ratio_to_grdb']}x |")
    return out


def ratio_to(rows, row, contender):
    """The ratio of `row`'s median to `contender`'s on the same workload, or "—"."""
    other = next((r for r in rows if r["workload"] == row["workload"] and r["contender"] == contender), None)
    if other is None or float(other["median_ms"]) == 0:
        return "—"
    return f"{float(row['median_ms']) / float(other['median_ms']):.2f}x"


def summary_table(provenance, rows):
    with_fluent = any(row["contender"] == "fluent" for row in rows)
    header = "| workload | Quarry vs raw C | Quarry vs GRDB |" + (" Quarry vs Fluent |" if with_fluent else "")
    out = [header, "|---|---:|---:|" + ("---:|" if with_fluent else "")]
    for row in rows:
        if row["contender"] != "quarry-codable":
            continue
        number = row["workload"].split(" ", 1)[0]
        name = README_NAMES.get(number, row["workload"])
        line = f"| {name} | {row['ratio_to_raw']}x | {row['ratio_to_grdb']}x |"
        if with_fluent:
            line += f" {ratio_to(rows, row, 'fluent')} |"
        out.append(line)
    out += ["", f"From `Benchmarks/results/latest-run.csv`: {provenance}."]
    return out


# Performance issue II's targets: the highest median ratio to `raw` that
# meets each, by workload number.
TARGETS = {
    "1": ("insert 100k", 1.3),
    "2": ("fetch all 100k", 1.3),
    "3": ("fetch 10k by primary key", 1.3),
    "4": ("filter + order + limit", 1.15),
    "5": ("update 10k", 1.2),
    "6": ("delete 5k", 1.1),
    "7": ("eager-loaded parent", 1.5),
    "8": ("cursor 1M rows", 1.3),
    "9": ("`insertAll`, against the multi-row insert", 1.2),
}


def curve_ratios(path, rows_count):
    """Quarry's median ratio to raw at `rows_count` rows, by workload number, from a cost-curves file."""
    if not path.exists():
        return {}
    with path.open(encoding="utf-8") as file:
        curve = [row for row in csv.DictReader(line for line in file if not line.startswith("#"))]
    medians = {(row["workload"], row["contender"]): float(row["median_ms"]) for row in curve if int(row["rows"]) == rows_count}
    ratios = {}
    for (workload, contender), median in medians.items():
        raw = medians.get((workload, "raw"))
        if contender == "quarry-codable" and raw:
            ratios[workload.split(" ", 1)[0]] = median / raw
    return ratios


def targets_table(provenance, rows):
    at_million = curve_ratios(CURVES, 1_000_000)
    out = ["| workload | target | measured, 100k-row run | at 1M rows (cost curves) | |", "|---|---|---|---|---|"]
    for row in rows:
        if row["contender"] != "quarry-codable":
            continue
        number = row["workload"].split(" ", 1)[0]
        if number not in TARGETS:
            continue
        name, target = TARGETS[number]
        measured = [float(row["ratio_to_raw"])]
        million = "—"
        if number in at_million:
            measured.append(at_million[number])
            million = f"{at_million[number]:.2f}x"
        verdict = "met" if all(value <= target for value in measured) else "not met"
        out.append(f"| {number} {name} | ≤ {target}x | {row['ratio_to_raw']}x | {million} | {verdict} |")
    out += ["", f"Measured in the run of `results/latest-run.csv` ({provenance}); the 1M-row column from `results/cost-curves.csv`."]
    return out


def curves_table(path):
    """Nanoseconds per row at each size of the cost curves, every contender."""
    with path.open(encoding="utf-8") as file:
        curve = list(csv.DictReader(line for line in file if not line.startswith("#")))
    contenders = [c for c in ("raw", "quarry-codable", "grdb-codable", "fluent") if any(r["contender"] == c for r in curve)]
    sizes = sorted({int(r["rows"]) for r in curve})
    workloads = []
    for row in curve:
        if row["workload"] not in workloads:
            workloads.append(row["workload"])
    ns = {(r["workload"], r["contender"], int(r["rows"])): float(r["ns_per_row"]) for r in curve}

    def size_name(rows):
        return f"{rows // 1_000_000}M" if rows % 1_000_000 == 0 else f"{rows // 1000}k" if rows % 1000 == 0 else str(rows)

    out = [f"Nanoseconds per row, `{' / '.join(contenders)}` (— where a contender did not run at that size):", "",
           "| workload | " + " | ".join(size_name(rows) for rows in sizes) + " |",
           "|---|" + "---:|" * len(sizes)]
    for workload in workloads:
        cells = []
        for rows in sizes:
            values = [ns.get((workload, c, rows)) for c in contenders]
            cells.append(" / ".join(f"{value:,.0f}" if value is not None else "—" for value in values))
        out.append(f"| {workload} | " + " | ".join(cells) + " |")
    return out


def allocations_table(path):
    provenance, rows = read_run(path, "quarry-bench --count-allocations run")
    out = [f"From `results/allocations.csv`: {provenance}.", ""]
    out.append("| workload | contender | rows | allocations | allocations per row | of which realloc per row | bytes per row | allocations ÷ raw |")
    out.append("|---|---|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        count = int(row["rows"])
        raw = next((r for r in rows if r["workload"] == row["workload"] and r["contender"] == "raw"), None)
        ratio = f"{int(row['allocations']) / int(raw['allocations']):.2f}x" if raw and int(raw["allocations"]) else "—"
        out.append(
            f"| {row['workload']} | {row['contender']} | {count} | {row['allocations']} "
            f"| {int(row['allocations']) / count:.2f} | {int(row['reallocations']) / count:.3f} "
            f"| {int(row['bytes']) / count:.0f} | {ratio} |")
    return out


def concurrent_reads_table(path):
    """Reads per second of each contender at each reader count, and the time
    of each against raw C's."""
    provenance, rows = read_run(path, "quarry-bench run")
    contenders = list(dict.fromkeys(row["contender"] for row in rows))
    others = [c for c in contenders if c != "raw"]
    by = {(row["readers"], row["contender"]): row for row in rows}
    out = ["| readers | " + " | ".join(f"{c} reads/s" for c in contenders) + " | "
           + " | ".join(f"{c} time ÷ raw" for c in others) + " |",
           "|---:|" + "---:|" * (len(contenders) + len(others))]
    for readers in dict.fromkeys(row["readers"] for row in rows):
        rates = [f"{int(by[(readers, c)]['reads_per_second']):,}" for c in contenders]
        ratios = [f"{by[(readers, c)]['ratio_to_raw']}x" for c in others]
        out.append(f"| {readers} | " + " | ".join(rates + ratios) + " |")
    out += ["", f"From `results/concurrent-reads.csv`: {provenance}; medians after a warm-up round."]
    return out


def cursor_memory_table(path):
    provenance, rows = read_run(path, "quarry-bench run")
    out = ["| contender | VmHWM before the cursor (MiB) | VmHWM after it (MiB) | growth (MiB) |", "|---|---:|---:|---:|"]
    for row in rows:
        out.append(f"| {row['contender']} | {row['before_mib']} | {row['after_mib']} | {row['growth_mib']} |")
    out += ["", f"From `results/cursor-memory.csv`: {provenance}."]
    return out


def seam_table(directory, repetitions=5, ratios=False):
    """Quarry before and after, interleaved (runs before-1, after-1, before-2,
    after-2); with `ratios`, also Quarry's time over raw C's in the same run,
    the mean of the two runs per side."""
    names = ["before-1", "after-1", "before-2", "after-2"]
    runs = {name: read_run(directory / f"{name}.csv", f"{name}.csv") for name in names}
    medians = {}
    for name, (_, rows) in runs.items():
        for row in rows:
            medians[(name, row["workload"], row["contender"])] = float(row["median_ms"])
    workloads = [row["workload"] for row in runs["before-1"][1] if row["contender"] == "quarry-codable"]
    out = ["| workload | Quarry before, runs 1 and 2 (ms) | Quarry after, runs 1 and 2 (ms) | after / before | raw C after / before |"
           + (" before / raw C | after / raw C |" if ratios else ""),
           "|---|---:|---:|---:|---:|" + ("---:|---:|" if ratios else "")]
    for workload in workloads:
        def pair(side, contender):
            return [medians[(f"{side}-{index}", workload, contender)] for index in (1, 2)]
        before, after = pair("before", "quarry-codable"), pair("after", "quarry-codable")
        raw_before, raw_after = pair("before", "raw"), pair("after", "raw")
        out.append(
            f"| {workload} | {before[0]:.1f}, {before[1]:.1f} | {after[0]:.1f}, {after[1]:.1f} "
            f"| {sum(after) / sum(before):.2f}x | {sum(raw_after) / sum(raw_before):.2f}x |"
            + (f" {(before[0] / raw_before[0] + before[1] / raw_before[1]) / 2:.2f}x "
               f"| {(after[0] / raw_after[0] + after[1] / raw_after[1]) / 2:.2f}x |" if ratios else ""))
    out += ["", f"Medians of {repetitions} repetitions, from `{directory.relative_to(ROOT / 'Benchmarks')}/` (" +
            "; ".join(f"{name}: {runs[name][0]}" for name in names) + ")."]
    return out


def bookshelf_load_table(path):
    """Bookshelf's two-process PostgreSQL load, before and after, one line
    per interleaved run (bookshelf-load-before-after.sh)."""
    import csv
    with open(path) as handle:
        rows = list(csv.DictReader(handle))
    out = ["| run | side | binary | requests/s | p50 A / B (ms) | p99 A / B (ms) |", "|---|---|---|---:|---:|---:|"]
    for index, row in enumerate(rows, 1):
        out.append(f"| {index} ({row['date']}) | {row['side']} | `{row['binary']}` | {row['requests_per_s']} "
                   f"| {row['p50_a_ms']} / {row['p50_b_ms']} | {row['p99_a_ms']} / {row['p99_b_ms']} |")
    def mean(side):
        values = [float(row["requests_per_s"]) for row in rows if row["side"] == side]
        return sum(values) / len(values)
    out += ["", f"Mean requests/s: before {mean('before'):.0f}, after {mean('after'):.0f} "
            f"({mean('after') / mean('before'):.2f}x), from `{path.relative_to(ROOT / 'Benchmarks')}`."]
    return out


def postgres_table(directory, repetitions=5):
    """Medians of quarry-postgres and raw-postgresnio before and after, from
    the interleaved runs of postgres-before-after.sh."""
    names = sorted(path.stem for path in directory.glob("*.csv"))
    runs = {name: read_run(directory / f"{name}.csv", f"{name}.csv") for name in names}
    sides = {"before": [n for n in names if n.startswith("before-")], "after": [n for n in names if n.startswith("after-")]}
    medians = {}
    for name, (_, rows) in runs.items():
        for row in rows:
            medians[(name, row["workload"], row["contender"])] = float(row["median_ms"])
    workloads = [row["workload"] for row in runs[sides["after"][0]][1] if row["contender"] == "quarry-postgres"]
    out = ["| workload | raw PostgresNIO (ms) | Quarry before (ms) | Quarry after (ms) | before / raw | after / raw |",
           "|---|---:|---:|---:|---:|---:|"]
    for workload in workloads:
        def mean(side, contender):
            values = [medians[(name, workload, contender)] for name in sides[side]]
            return sum(values) / len(values)
        raw = (mean("before", "raw-postgresnio") + mean("after", "raw-postgresnio")) / 2
        before, after = mean("before", "quarry-postgres"), mean("after", "quarry-postgres")
        out.append(f"| {workload} | {raw:.1f} | {before:.1f} | {after:.1f} | {before / raw:.2f}x | {after / raw:.2f}x |")
    out += ["", f"Means of the medians of {len(sides['before'])} interleaved runs per side ({repetitions} repetitions each), "
            f"from `{directory.relative_to(ROOT / 'Benchmarks')}/` (" + "; ".join(f"{name}: {runs[name][0]}" for name in names) + ")."]
    return out


def postgres_latest_table(path):
    """The last full run of quarry-bench --postgres: every contender against
    hand-written PostgresNIO, with Quarry's ratio to Fluent."""
    provenance, rows = read_run(path, "quarry-bench --postgres run")
    out = ["| workload | contender | min ms | median ms | ratio to raw PostgresNIO | Quarry vs Fluent |",
           "|---|---|---:|---:|---:|---:|"]
    for row in rows:
        versus = ratio_to(rows, row, "fluent-postgres") if row["contender"] == "quarry-postgres" else ""
        out.append(f"| {row['workload']} | {row['contender']} | {row['min_ms']} | {row['median_ms']} | {row['ratio_to_raw']}x | {versus} |")
    out += ["", f"From `results/postgres/latest-run.csv`: {provenance}."]
    return out


def postgres_access_table(path):
    provenance, rows = read_run(path, path.name)
    out = ["| contender | callers | µs per access | accesses per second |", "|---|---:|---:|---:|"]
    for row in rows:
        out.append(f"| {row['contender']} | {row['callers']} | {row['microseconds_per_access']} | {row['accesses_per_second']} |")
    out += ["", f"From `{path.relative_to(ROOT / 'Benchmarks')}`: {provenance}."]
    return out


def csv_rows(path):
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def reliability_table(path):
    rows = csv_rows(path)
    out = ["| Long run | Date (commit) | Duration | Measured |", "|---|---|---:|---|"]
    for row in rows:
        out.append(f"| {row['run']} | {row['date']} (`{row['commit']}`) | {row['seconds']} s | {row['measured']} |")
    out += ["", f"From `{path.relative_to(ROOT)}`; each row is one run of the long mode on 2 cores."]
    return out


def fuzz_table(path):
    rows = csv_rows(path)
    out = ["| Target | Date (commit) | Seconds | Executions | Corpus entries | Crashes found | Fixed |",
           "|---|---|---:|---:|---:|---:|---:|"]
    for row in rows:
        out.append(f"| {row['target']} | {row['date'][:10]} (`{row['commit']}`) | {row['seconds']} | "
                   f"{int(row['executions']):,} | {row['corpus_entries']} | {row['crashes_found']} | {row['crashes_fixed']} |")
    out += ["", f"From `{path.relative_to(ROOT)}` (`scripts/fuzz.sh --long`)."]
    return out


def foreign_observation_table(path):
    provenance, rows = read_run(path, path.name)
    out = ["| Backend | Contender | Watching | Idle CPU | Idle queries/s | Latency median | p95 | max |",
           "|---|---|---|---:|---:|---:|---:|---:|"]
    for row in rows:
        out.append(f"| {row['backend']} | {row['contender']} | {row['interval']} | {float(row['idle_cpu_percent']):.2f}% | "
                   f"{row['idle_queries_per_second']} | {row['latency_median_ms']} ms | {row['latency_p95_ms']} ms | "
                   f"{row['latency_max_ms']} ms |")
    out += ["", f"From `{path.relative_to(ROOT)}`: {provenance}; {rows[0]['samples'] if rows else 0} samples per row."]
    return out


def replace_region(text, name, lines, path):
    start_marker = f"<!-- tables.py: {name} -->"
    end_marker = "<!-- /tables.py -->"
    start = text.find(start_marker)
    end = text.find(end_marker, start)
    if start < 0 or end < 0:
        raise SystemExit(f"tables.py: {path} has no '{start_marker}' … '{end_marker}' region")
    body = start_marker + "\n" + "\n".join(lines) + "\n"
    return text[:start] + body + text[end:]


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in ("--write", "--check"):
        raise SystemExit("usage: tables.py --write | --check")
    provenance, rows = read_results()
    targets = [
        (ROOT / "README.md", "performance", summary_table(provenance, rows)),
        (ROOT / "Benchmarks" / "README.md", "latest-run", full_table(provenance, rows)),
        (ROOT / "Benchmarks" / "README.md", "targets", targets_table(provenance, rows)),
        (ROOT / "Benchmarks" / "README.md", "seam-before-after", seam_table(SEAM_RUNS)),
        (ROOT / "Benchmarks" / "README.md", "seam-first-set", seam_table(SEAM_RUNS / "first-set")),
    ]
    targets.append((ROOT / "Benchmarks" / "README.md", "postgres-before-after", postgres_table(POSTGRES_RUNS)))
    targets.append((ROOT / "Benchmarks" / "README.md", "seam-finished", seam_table(SEAM_FINISHED_RUNS, repetitions=3, ratios=True)))
    if USER_CODE_RUNS.exists():
        targets.append((ROOT / "Benchmarks" / "README.md", "user-code-runs", seam_table(USER_CODE_RUNS, repetitions=3, ratios=True)))
    if CELL_READS_RUNS.exists():
        targets.append((ROOT / "Benchmarks" / "README.md", "cell-reads", seam_table(CELL_READS_RUNS, repetitions=3, ratios=True)))
    if (ROOT / "Benchmarks" / "results" / "bookshelf-load" / "prepared-statements.csv").exists():
        targets.append((ROOT / "Benchmarks" / "README.md", "bookshelf-load-prepared",
                        bookshelf_load_table(ROOT / "Benchmarks" / "results" / "bookshelf-load" / "prepared-statements.csv")))
    if PREPARED_RUNS.exists():
        targets.append((ROOT / "Benchmarks" / "README.md", "prepared-statements", postgres_table(PREPARED_RUNS, repetitions=3)))
    targets.append((ROOT / "Benchmarks" / "README.md", "seam-finished-postgres",
                    postgres_table(SEAM_FINISHED_RUNS / "postgres", repetitions=3)))
    targets.append((ROOT / "Benchmarks" / "README.md", "postgres-access", postgres_access_table(POSTGRES_ACCESS)))
    targets.append((ROOT / "README.md", "reliability-long-runs", reliability_table(RELIABILITY_RUNS)))
    targets.append((ROOT / "README.md", "fuzz-runs", fuzz_table(FUZZ_RUNS)))
    targets.append((OBSERVING_ARTICLE, "foreign-observation", foreign_observation_table(FOREIGN_OBSERVATION)))
    targets.append((ROOT / "Benchmarks" / "README.md", "curves", curves_table(CURVES)))
    if POSTGRES_LATEST.exists():
        targets.append((ROOT / "Benchmarks" / "README.md", "postgres-latest", postgres_latest_table(POSTGRES_LATEST)))
    if CONCURRENT_READS.exists():
        targets.append((ROOT / "Benchmarks" / "README.md", "concurrent-reads", concurrent_reads_table(CONCURRENT_READS)))
    if CURSOR_MEMORY.exists():
        targets.append((ROOT / "Benchmarks" / "README.md", "cursor-memory", cursor_memory_table(CURSOR_MEMORY)))
    if ALLOCATIONS.exists():
        targets.append((ROOT / "Benchmarks" / "README.md", "allocations", allocations_table(ALLOCATIONS)))
    stale = []
    for path, name, lines in targets:
        text = path.read_text(encoding="utf-8")
        updated = replace_region(text, name, lines, path)
        if updated != text:
            if sys.argv[1] == "--write":
                path.write_text(updated, encoding="utf-8")
                print(f"tables.py: wrote the {name} table of {path.relative_to(ROOT)}")
            else:
                stale.append(f"{path.relative_to(ROOT)} ({name})")
    if stale:
        print("tables.py: these tables differ from Benchmarks/results/latest-run.csv: " + ", ".join(stale))
        print("run: python3 Benchmarks/scripts/tables.py --write")
        sys.exit(1)
    if sys.argv[1] == "--check":
        print("tables.py: the README tables agree with Benchmarks/results/latest-run.csv")


if __name__ == "__main__":
    main()
