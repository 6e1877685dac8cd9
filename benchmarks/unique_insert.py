"""One-row INSERTs into a large table with and without a UNIQUE column: txlake beside SQLite.

A UNIQUE constraint's check must stay a lookup (engine/uniques.py, storage/keys.py
``find_unique``), not a scan of the table, however many rows it holds. For each table size,
a table ``t (id BIGINT PRIMARY KEY, a BIGINT [UNIQUE], pad TEXT)`` is loaded with ``a`` a
permutation of the even numbers below twice the row count (not in file order: every data
file's bounds cover the whole range, so the footers prune none), then one-row INSERTs of odd
values in that range run in autocommit, each its own
durable transaction, then as many in one transaction (the statement alone, without a commit's
fsync, whose time on a shared disk varies more than the check costs). The first INSERT builds
the per-file indexes of ``a`` (once per file, cached); the median of the rest is the steady
state.

    python benchmarks/unique_insert.py [--rows 100000 1000000] [--inserts 200]
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import tempfile
import time

import txlake


def _txlake(rows: int, unique: bool, inserts: int) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as root:
        con = txlake.connect(os.path.join(root, "wh"), autocommit=True)
        con.execute(f"CREATE TABLE t (id BIGINT PRIMARY KEY, a BIGINT{' UNIQUE' if unique else ''}, pad TEXT)")
        con.execute(f"INSERT INTO t SELECT i, (i * 7919) % {rows} * 2, 'x' FROM range({rows}) AS r(i)")
        times = []
        for n in range(inserts):
            start = time.perf_counter()
            con.execute("INSERT INTO t VALUES (?, ?, 'y')", (rows + n, rows + 2 * n + 1))
            times.append(time.perf_counter() - start)
        con.autocommit = False  # (then in one transaction: the statement alone, no commit's fsync)
        in_txn = []
        for n in range(inserts, 2 * inserts):
            start = time.perf_counter()
            con.execute("INSERT INTO t VALUES (?, ?, 'y')", (rows + n, rows + 2 * n + 1))
            in_txn.append(time.perf_counter() - start)
        con.commit()
        con.close()
    return times[0] * 1000, statistics.median(times[1:]) * 1000, statistics.median(in_txn) * 1000


def _sqlite(rows: int, unique: bool, inserts: int) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as root:
        con = sqlite3.connect(os.path.join(root, "db"), isolation_level=None)
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("PRAGMA synchronous=FULL")
        con.execute(f"CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER{' UNIQUE' if unique else ''}, pad TEXT)")
        con.execute("BEGIN")
        con.executemany("INSERT INTO t VALUES (?, ?, 'x')", ((i, (i * 7919) % rows * 2) for i in range(rows)))
        con.execute("COMMIT")
        times = []
        for n in range(inserts):
            start = time.perf_counter()
            con.execute("INSERT INTO t VALUES (?, ?, 'y')", (rows + n, rows + 2 * n + 1))
            times.append(time.perf_counter() - start)
        con.execute("BEGIN")
        in_txn = []
        for n in range(inserts, 2 * inserts):
            start = time.perf_counter()
            con.execute("INSERT INTO t VALUES (?, ?, 'y')", (rows + n, rows + 2 * n + 1))
            in_txn.append(time.perf_counter() - start)
        con.execute("COMMIT")
        con.close()
    return times[0] * 1000, statistics.median(times[1:]) * 1000, statistics.median(in_txn) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--inserts", type=int, default=200)
    args = parser.parse_args()
    print(f"{'engine':8} {'rows':>9} {'UNIQUE':>7} {'first ms':>9} {'median ms':>10} {'in txn ms':>10}")
    for rows in args.rows:
        for unique in (False, True):
            for name, run in (("txlake", _txlake), ("sqlite", _sqlite)):
                first, median, in_txn = run(rows, unique, args.inserts)
                print(f"{name:8} {rows:>9} {'yes' if unique else 'no':>7} {first:>9.2f} {median:>10.3f} "
                      f"{in_txn:>10.3f}", flush=True)


if __name__ == "__main__":
    main()
