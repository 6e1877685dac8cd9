"""1-row commit latency: does a commit cost O(rows changed), independent of the table size and
of how many commits came before? txlake on a 1M- and a 10M-row table, DuckDB (file) beside it.

Each run makes ``--commits`` autocommit one-row UPDATEs by primary key (durable) and reports
the 1st commit, the median of the first 50 and of the last 50, p99, and the ratios the issue
sets targets for: 10M vs 1M (same commit count) and the last commits vs the first.

    python benchmarks/commits.py [--sizes 1000000,10000000] [--commits 1000] [--engines txlake,duckdb]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time

import duckdb

import txlake

FILL = "INSERT INTO {t} SELECT range, range % 1000, 'row' || CAST(range AS VARCHAR) FROM range({n})"


def run_commits(execute, table: str, size: int, commits: int) -> list[float]:
    times = []
    for i in range(commits):
        t = time.perf_counter()
        execute(f"UPDATE {table} SET v = v + 1 WHERE id = ?", ((i * 7919) % size,))
        times.append(time.perf_counter() - t)
    return times


def bench_txlake(root: str, size: int, commits: int, publish: str) -> list[float]:
    conn = txlake.connect(os.path.join(root, f"txlake-{size}"), autocommit=True, publish=publish, durable=True)
    cur = conn.cursor()
    cur.execute("CREATE TABLE t (id BIGINT PRIMARY KEY, v INT, s VARCHAR)")
    cur.execute(FILL.format(t="t", n=size))
    times = run_commits(cur.execute, "t", size, commits)
    conn.close()
    return times


def bench_duckdb(root: str, size: int, commits: int) -> list[float]:
    con = duckdb.connect(os.path.join(root, f"duck-{size}.db"))
    con.execute("CREATE TABLE t (id BIGINT PRIMARY KEY, v INT, s VARCHAR)")
    con.execute(FILL.format(t="t", n=size))
    con.execute("CHECKPOINT")
    times = run_commits(con.execute, "t", size, commits)
    con.close()
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1000000,10000000")
    ap.add_argument("--commits", type=int, default=1000)
    ap.add_argument("--engines", default="txlake,duckdb")
    ap.add_argument("--publish", default="async", help="txlake publish mode (async, sync, off)")
    ap.add_argument("--dir", default=None)
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    root = tempfile.mkdtemp(prefix="txlake-commits-", dir=args.dir)
    runs: dict[tuple[str, int], list[float]] = {}
    try:
        for size in sizes:
            if "txlake" in args.engines:
                runs[("txlake", size)] = bench_txlake(root, size, args.commits, args.publish)
            if "duckdb" in args.engines:
                runs[("DuckDB (file)", size)] = bench_duckdb(root, size, args.commits)
    finally:
        shutil.rmtree(root, ignore_errors=True)

    k = min(50, max(1, args.commits // 10))
    print(f"\none-row UPDATE commits (durable, autocommit), {args.commits} per table; ms\n")
    header = (f"{'engine':16} {'rows':>11} {'1st':>7} {'first ' + str(k):>9} {'last ' + str(k):>9} "
              f"{'p50':>7} {'p99':>7} {'last/first':>10} {'vs smallest':>11}")
    print(header)
    print("-" * len(header))
    for (engine, size), times in runs.items():
        ms = [t * 1000 for t in times]
        first, last = statistics.median(ms[:k]), statistics.median(ms[-k:])
        p50 = statistics.median(ms)
        p99 = sorted(ms)[min(len(ms) - 1, int(len(ms) * 0.99))]
        small = runs[(engine, sizes[0])]
        vs = p50 / (statistics.median(small) * 1000)
        print(f"{engine:16} {size:11,} {ms[0]:7.2f} {first:9.2f} {last:9.2f} {p50:7.2f} {p99:7.2f} "
              f"{last / first:9.2f}x {vs:10.2f}x")
    print(f"\nlast/first: median of the last {k} commits / median of the first {k} (target <= 1.3x)"
          f"\nvs smallest: p50 / p50 on the {sizes[0]:,}-row table (target <= 1.3x)")


if __name__ == "__main__":
    main()
