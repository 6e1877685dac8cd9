"""Commit cost: autocommit single-row INSERTs per second, and a one-row UPDATE commit on a
100k-row vs a 1M-row table, for txlake beside DuckDB (file-backed) and SQLite in the same run.

A commit must cost O(rows changed), not O(table): the UPDATE latency and the bytes written per
UPDATE commit should not grow with the table size.

    python benchmarks/bench_commit.py [--inserts N] [--updates N] [--sizes 100000,1000000]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import statistics
import tempfile
import time

import duckdb

import txlake


def dir_bytes(path: str) -> int:
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(path) for f in files)


# --- engines under test: each returns (inserts/s, {size: (median update ms, bytes/update)}) ---

def bench_txlake(root: str, inserts: int, updates: int, sizes: list[int], publish: str) -> tuple:
    path = os.path.join(root, f"txlake-{publish}")
    conn = txlake.connect(path, autocommit=True, publish=publish)
    cur = conn.cursor()
    cur.execute("CREATE TABLE ins (id INT PRIMARY KEY, v INT, s TEXT)")
    start = time.perf_counter()
    for i in range(inserts):
        cur.execute("INSERT INTO ins VALUES (?, ?, ?)", (i, i, "x"))
    rate = inserts / (time.perf_counter() - start)
    result = {}
    for size in sizes:
        name = f"up{size}"
        cur.execute(f"CREATE TABLE {name} (id INT PRIMARY KEY, v INT, s TEXT)")
        cur.execute(f"INSERT INTO {name} SELECT range, range, 'row' || range FROM range({size})")
        cur.execute(f"UPDATE {name} SET v = v + 1 WHERE id = 0")  # warm: key index, caches
        conn.session.db.publisher and conn.session.db.publisher.flush()
        before = dir_bytes(path)
        times = []
        for i in range(updates):
            t = time.perf_counter()
            cur.execute(f"UPDATE {name} SET v = v + 1 WHERE id = ?", ((i * 7919) % size,))
            times.append(time.perf_counter() - t)
        conn.session.db.publisher and conn.session.db.publisher.flush()
        result[size] = (statistics.median(times) * 1000, (dir_bytes(path) - before) / updates)
    conn.close()
    return rate, result


def bench_duckdb(root: str, inserts: int, updates: int, sizes: list[int]) -> tuple:
    path = os.path.join(root, "duck.db")
    con = duckdb.connect(path)
    con.execute("CREATE TABLE ins (id INT PRIMARY KEY, v INT, s TEXT)")
    start = time.perf_counter()
    for i in range(inserts):
        con.execute("INSERT INTO ins VALUES (?, ?, ?)", (i, i, "x"))
    rate = inserts / (time.perf_counter() - start)
    result = {}
    for size in sizes:
        name = f"up{size}"
        con.execute(f"CREATE TABLE {name} (id INT PRIMARY KEY, v INT, s TEXT)")
        con.execute(f"INSERT INTO {name} SELECT range, range, 'row' || range FROM range({size})")
        con.execute("CHECKPOINT")
        before = dir_bytes(root)
        times = []
        for i in range(updates):
            t = time.perf_counter()
            con.execute(f"UPDATE {name} SET v = v + 1 WHERE id = ?", ((i * 7919) % size,))
            times.append(time.perf_counter() - t)
        result[size] = (statistics.median(times) * 1000, (dir_bytes(root) - before) / updates)
    con.close()
    return rate, result


def bench_sqlite(root: str, inserts: int, updates: int, sizes: list[int]) -> tuple:
    path = os.path.join(root, "lite.db")
    con = sqlite3.connect(path, isolation_level=None)  # autocommit
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=FULL")
    con.execute("CREATE TABLE ins (id INT PRIMARY KEY, v INT, s TEXT)")
    start = time.perf_counter()
    for i in range(inserts):
        con.execute("INSERT INTO ins VALUES (?, ?, ?)", (i, i, "x"))
    rate = inserts / (time.perf_counter() - start)
    result = {}
    for size in sizes:
        name = f"up{size}"
        con.execute(f"CREATE TABLE {name} (id INT PRIMARY KEY, v INT, s TEXT)")
        con.execute("BEGIN")
        con.executemany(f"INSERT INTO {name} VALUES (?, ?, ?)", ((i, i, f"row{i}") for i in range(size)))
        con.execute("COMMIT")
        times = []
        for i in range(updates):
            t = time.perf_counter()
            con.execute(f"UPDATE {name} SET v = v + 1 WHERE id = ?", ((i * 7919) % size,))
            times.append(time.perf_counter() - t)
        result[size] = (statistics.median(times) * 1000, float("nan"))
    con.close()
    return rate, result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--inserts", type=int, default=2000)
    ap.add_argument("--updates", type=int, default=50)
    ap.add_argument("--sizes", default="100000,1000000")
    ap.add_argument("--publish", default="async,sync", help="txlake publish modes to run (async,sync,off)")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    root = tempfile.mkdtemp(prefix="txlake-bench-")
    try:
        runs = {f"txlake (publish {mode})": bench_txlake(root, args.inserts, args.updates, sizes, mode)
                for mode in args.publish.split(",")}
        os.makedirs(os.path.join(root, "duck"))
        runs["DuckDB (file)"] = bench_duckdb(os.path.join(root, "duck"), args.inserts, args.updates, sizes)
        runs["SQLite (WAL, synchronous=FULL)"] = bench_sqlite(root, args.inserts, args.updates, sizes)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    duck_rate, duck_updates = runs["DuckDB (file)"]
    print(f"\nautocommit single-row INSERT ({args.inserts} rows); 1-row UPDATE commit, median of {args.updates}\n")
    header = f"{'engine':32} {'inserts/s':>10} {'vs DuckDB':>9}"
    for size in sizes:
        header += f" {'UPDATE ms @' + format(size, ','):>17} {'vs DuckDB':>9} {'KiB written':>11}"
    print(header)
    print("-" * len(header))
    for name, (rate, updates) in runs.items():
        line = f"{name:32} {rate:10.0f} {rate / duck_rate:8.2f}x"
        for size in sizes:
            ms, written = updates[size]
            line += f" {ms:17.2f} {ms / duck_updates[size][0]:8.2f}x {written / 1024:11.1f}"
        print(line)
    print("\nratios: txlake / DuckDB (inserts/s: higher is better; UPDATE ms: lower is better)")


if __name__ == "__main__":
    main()
