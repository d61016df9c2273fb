#!/usr/bin/env python3
"""The cost of durability: N single-row commits per journal mode and `synchronous` setting.

Measures what `PRAGMA synchronous` costs on this machine's disk, through the
system SQLite (Python's sqlite3 module links the same libsqlite3 as Quarry;
the version is printed). Every setting does the same work: a fresh file in
the same directory, the journal mode set once, then N transactions of one
`INSERT` of a 100-byte row each (`BEGIN IMMEDIATE` ... `COMMIT`), timed from
the first `BEGIN` to the last `COMMIT`. The settings run interleaved, round
after round, and the median round is reported, so that a burst of disk
activity from elsewhere does not land on one setting only.

    python3 Benchmarks/scripts/durability-cost.py                 # 500 commits, 5 rounds, in /tmp
    python3 Benchmarks/scripts/durability-cost.py --commits 1000 --rounds 7 --directory /var/tmp
    python3 Benchmarks/scripts/durability-cost.py --csv out.csv   # also writes the figures as CSV
"""

import argparse
import os
import shutil
import sqlite3
import statistics
import tempfile
import time

SETTINGS = [
    ("DELETE", "FULL"),
    ("DELETE", "EXTRA"),
    ("TRUNCATE", "FULL"),
    ("TRUNCATE", "EXTRA"),
    ("PERSIST", "FULL"),
    ("PERSIST", "EXTRA"),
    ("WAL", "FULL"),
    ("WAL", "EXTRA"),
    ("WAL", "NORMAL"),
]


def run(directory, journal, synchronous, commits, index):
    path = os.path.join(directory, f"bench-{index}-{journal}-{synchronous}.sqlite")
    db = sqlite3.connect(path, isolation_level=None)
    db.execute(f"PRAGMA journal_mode = {journal}")
    db.execute(f"PRAGMA synchronous = {synchronous}")
    db.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, payload TEXT NOT NULL)")
    payload = "x" * 100
    start = time.perf_counter()
    for _ in range(commits):
        db.execute("BEGIN IMMEDIATE")
        db.execute("INSERT INTO item (payload) VALUES (?)", (payload,))
        db.execute("COMMIT")
    elapsed = time.perf_counter() - start
    count = db.execute("SELECT count(*) FROM item").fetchone()[0]
    assert count == commits, f"{journal}/{synchronous}: {count} rows, expected {commits}"
    db.close()
    for suffix in ["", "-journal", "-wal", "-shm"]:
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    return elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--directory", default=tempfile.gettempdir())
    parser.add_argument("--csv")
    arguments = parser.parse_args()

    directory = tempfile.mkdtemp(prefix="durability-cost-", dir=arguments.directory)
    try:
        times = {setting: [] for setting in SETTINGS}
        for round_index in range(arguments.rounds):
            for index, (journal, synchronous) in enumerate(SETTINGS):
                times[(journal, synchronous)].append(
                    run(directory, journal, synchronous, arguments.commits, round_index * 100 + index))
    finally:
        shutil.rmtree(directory, ignore_errors=True)

    print(f"SQLite {sqlite3.sqlite_version}, {arguments.commits} single-row commits, "
          f"median of {arguments.rounds} rounds, in {arguments.directory}")
    print(f"{'journal':<9} {'synchronous':<11} {'ms/commit':>10} {'commits/s':>10} {'min-max ms/commit':>18}")
    rows = []
    for setting in SETTINGS:
        per_commit = [t / arguments.commits * 1000 for t in times[setting]]
        median = statistics.median(per_commit)
        rows.append((setting[0], setting[1], median, 1000 / median, min(per_commit), max(per_commit)))
        print(f"{setting[0]:<9} {setting[1]:<11} {median:>10.3f} {1000 / median:>10.0f} "
              f"{min(per_commit):>8.3f}-{max(per_commit):.3f}")
    if arguments.csv:
        with open(arguments.csv, "w") as file:
            file.write("journal,synchronous,commits,rounds,median_ms_per_commit,commits_per_second,min_ms,max_ms\n")
            for journal, synchronous, median, rate, low, high in rows:
                file.write(f"{journal},{synchronous},{arguments.commits},{arguments.rounds},"
                           f"{median:.4f},{rate:.1f},{low:.4f},{high:.4f}\n")


if __name__ == "__main__":
    main()
