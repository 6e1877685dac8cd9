"""Commit latency as history grows: the 1st, 100th and 1,000th autocommit INSERT into one table.

Compared in the same run with DuckDB (file) and, if a pypaimon venv is available
(TXLAKE_PAIMON_PYTHON or .venv-paimon), with pypaimon 2.1.0 appending to a Paimon table.

    python benchmarks/bench_history.py [--commits 1000]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time

import duckdb

import txlake

PAIMON_SCRIPT = r"""
import sys, time, json, pyarrow as pa
from pypaimon import CatalogFactory, Schema
n = int(sys.argv[2])
catalog = CatalogFactory.create({"warehouse": sys.argv[1]})
catalog.create_database("db", True)
schema = Schema.from_pyarrow_schema(pa.schema([("id", pa.int64()), ("v", pa.int64())]))
catalog.create_table("db.t", schema, False)
table = catalog.get_table("db.t")
times = []
for i in range(n):
    t = time.perf_counter()
    wb = table.new_batch_write_builder()
    w = wb.new_write(); c = wb.new_commit()
    w.write_arrow(pa.table({"id": [i], "v": [i]}, schema=pa.schema([("id", pa.int64()), ("v", pa.int64())])))
    c.commit(w.prepare_commit()); w.close(); c.close()
    times.append(time.perf_counter() - t)
print(json.dumps(times))
"""


def window(times: list[float], at: int, width: int = 10) -> float:
    """Median latency (ms) of the commits around number ``at`` (1-based)."""
    lo = max(0, at - 1 - width // 2)
    return statistics.median(times[lo:lo + width]) * 1000


def run_txlake(root: str, n: int) -> list[float]:
    conn = txlake.connect(os.path.join(root, "tx"), autocommit=True, publish="off")
    cur = conn.cursor()
    cur.execute("CREATE TABLE t (id BIGINT, v BIGINT)")
    times = []
    for i in range(n):
        t = time.perf_counter()
        cur.execute("INSERT INTO t VALUES (?, ?)", (i, i))
        times.append(time.perf_counter() - t)
    conn.close()
    return times


def run_duckdb(root: str, n: int) -> list[float]:
    con = duckdb.connect(os.path.join(root, "duck.db"))
    con.execute("CREATE TABLE t (id BIGINT, v BIGINT)")
    times = []
    for i in range(n):
        t = time.perf_counter()
        con.execute("INSERT INTO t VALUES (?, ?)", (i, i))
        times.append(time.perf_counter() - t)
    con.close()
    return times


def run_pypaimon(root: str, n: int) -> list[float] | None:
    python = os.environ.get("TXLAKE_PAIMON_PYTHON") or os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))), ".venv-paimon", "bin", "python")
    if not os.path.exists(python):
        return None
    import json
    out = subprocess.run([python, "-c", PAIMON_SCRIPT, os.path.join(root, "paimon"), str(n)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--commits", type=int, default=1000)
    args = ap.parse_args()
    n = args.commits
    points = [p for p in (1, 100, 1000, n) if p <= n]
    points = sorted(set(points))
    root = tempfile.mkdtemp(prefix="txlake-history-")
    try:
        runs = {"txlake": run_txlake(root, n), "DuckDB (file)": run_duckdb(root, n)}
        paimon = run_pypaimon(root, n)
        if paimon is not None:
            runs["pypaimon 2.1.0"] = paimon
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print("\ncommit latency (ms, median of 10 around the Nth commit), one-row autocommit INSERTs into one table\n")
    header = f"{'engine':18}" + "".join(f" {'#' + str(p):>9}" for p in points) + f" {'total s':>9}"
    print(header)
    print("-" * len(header))
    for name, times in runs.items():
        print(f"{name:18}" + "".join(f" {window(times, p):9.2f}" for p in points) + f" {sum(times):9.2f}")
    base = runs["txlake"]
    for name, times in runs.items():
        if name != "txlake":
            print(f"txlake / {name} at #{points[-1]}: {window(base, points[-1]) / window(times, points[-1]):.2f}x")
    if "pypaimon 2.1.0" not in runs:
        print("(pypaimon column skipped: no .venv-paimon; set TXLAKE_PAIMON_PYTHON)")


if __name__ == "__main__":
    main()
