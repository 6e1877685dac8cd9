"""Memory cap: one aggregate over a table with ``memory_limit`` at 10%, 50%, 200% and 400% of
the table's decoded size (the buffer cache gets half of it), txlake beside DuckDB reading the
very same Parquet files (``read_parquet``, with the memory limit txlake gives its DuckDB), in
the same run.

Each configuration runs in a fresh process, so its peak RSS is its own: the table shows the
cold run (nothing cached), the warm median of ``--repeat`` runs, the ratio to DuckDB, and the
peak RSS each process reached above its idle baseline (the interpreter with the engine loaded
and connected). Below the table's size txlake streams the table from Parquet through DuckDB;
at 400% the first query streams while the files are read ahead into the cache, and later
ones read the cache; at 200% the cache is just the table's size, so it streams when the last
files do not fit.

    python benchmarks/memory.py [--rows 10000000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

import txlake

ORDERS = ("SELECT range AS id, (range * 7919) % 100000 AS customer_id, "
          "CAST((range * 31) % 10000 AS DOUBLE) / 100 AS amount, "
          "CAST(range % 17 AS INT) AS category, CAST(range % 365 AS INT) AS day FROM range({rows})")
QUERY = ("SELECT category, count(*) AS n, sum(amount) AS total, avg(amount) AS mean "
         "FROM orders GROUP BY category ORDER BY category")

# one configuration, in a process of its own: prints {"cold", "warm", "idle", "peak"} as JSON
RUN = r"""
import json, statistics, sys, time

def rss(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024

engine, path, cap, repeat, query = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
if engine == "txlake":
    import txlake
    conn = txlake.connect(path, autocommit=True, publish="off", memory_limit=cap)
    conn.execute("SELECT 1").fetchall()
    run = lambda: conn.execute(query).fetchall()
else:
    import duckdb
    conn = duckdb.connect(config={"memory_limit": f"{max(cap // 4, 16 << 20)}B"})  # as txlake's DuckDB
    conn.execute(f"CREATE VIEW orders AS SELECT * FROM read_parquet({path})")
    run = lambda: conn.sql(query).fetchall()
idle = rss("VmRSS")

def timed():
    t = time.perf_counter()
    run()
    return time.perf_counter() - t

cold = timed()
if engine == "txlake":
    time.sleep(1.0)  # let the read-ahead finish when the table fits in the cache
warm = statistics.median(timed() for _ in range(repeat))
print(json.dumps({"cold": cold, "warm": warm, "idle": idle, "peak": rss("VmHWM")}))
"""


def measure(engine: str, path: str, cap: int, repeat: int) -> dict:
    done = subprocess.run([sys.executable, "-c", RUN, engine, path, str(cap), str(repeat), QUERY],
                          capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{engine} with a {cap >> 20} MB cap failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--dir", default=None, help="where to put the data (default: a temp dir)")
    args = ap.parse_args()
    root = tempfile.mkdtemp(prefix="txlake-memory-", dir=args.dir)
    try:
        path = os.path.join(root, "warehouse")
        conn = txlake.connect(path, autocommit=True, publish="off")
        conn.execute("CREATE TABLE orders (id BIGINT, customer_id BIGINT, amount DOUBLE, category INT, day INT)")
        conn.execute("INSERT INTO orders " + ORDERS.format(rows=args.rows))
        size = conn.execute("SELECT * FROM orders").fetch_arrow_table().nbytes  # decoded size
        conn.close()
        files = sorted(glob.glob(os.path.join(path, "default.db", "orders", "**", "*.parquet"), recursive=True))
        results = []
        for share in (0.1, 0.5, 2.0, 4.0):
            cap = max(int(size * share), 16 << 20)
            results.append((share, cap, measure("txlake", path, cap, args.repeat),
                            measure("duckdb", repr(files), cap, args.repeat)))
    finally:
        shutil.rmtree(root, ignore_errors=True)

    mb = 1 << 20
    print(f"\none aggregate over {args.rows:,} rows ({size / mb:.0f} MB decoded), memory_limit as a share of "
          f"that; DuckDB reads txlake's Parquet files with txlake's DuckDB memory limit (a quarter of the cap)\n")
    header = (f"{'cap':>5} {'cap MB':>7} {'txlake ms':>10} {'DuckDB ms':>10} {'ratio':>7} "
              f"{'txlake cold':>12} {'DuckDB cold':>12} {'txlake +MB':>11} {'DuckDB +MB':>11}")
    print(header)
    print("-" * len(header))
    for share, cap, ours, theirs in results:
        print(f"{share:5.0%} {cap / mb:7.0f} {ours['warm'] * 1000:10.1f} {theirs['warm'] * 1000:10.1f} "
              f"{ours['warm'] / theirs['warm']:6.2f}x {ours['cold'] * 1000:12.1f} {theirs['cold'] * 1000:12.1f} "
              f"{(ours['peak'] - ours['idle']) / mb:11.0f} {(theirs['peak'] - theirs['idle']) / mb:11.0f}")
    print("\nms: warm median; cold: the first run in a fresh process; +MB: peak RSS above the idle process")


if __name__ == "__main__":
    main()
