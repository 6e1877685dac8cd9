"""Analytics: GROUP BY and a join over a 10M-row fact table, txlake beside DuckDB reading the
very same Parquet files, in the same run.

txlake loads the tables (``INSERT ... SELECT`` from a generator), commits, and its data files
are then the Parquet DuckDB reads with ``read_parquet`` - so both engines answer over the same
bytes. Each query runs once cold (txlake reads the Parquet into its buffer pool) and then
``--repeat`` times warm; the table shows the warm median, the cold run and the ratio to DuckDB.
The load itself is timed too (txlake INSERT ... SELECT + commit vs DuckDB CREATE TABLE AS +
COPY to Parquet).

    python benchmarks/analytics.py [--rows 10000000] [--customers 100000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import glob
import os
import shutil
import statistics
import tempfile
import time

import duckdb

import txlake

ORDERS = ("SELECT range AS id, (range * 7919) % {customers} AS customer_id, "
          "CAST((range * 31) % 10000 AS DOUBLE) / 100 AS amount, "
          "CAST(range % 17 AS INT) AS category, CAST(range % 365 AS INT) AS day "
          "FROM range({rows})")
CUSTOMERS = ("SELECT range AS customer_id, 'region-' || CAST(range % 25 AS VARCHAR) AS region, "
             "CAST(range % 3 AS INT) AS tier FROM range({customers})")

QUERIES = {
    "group by (17 groups)":
        "SELECT category, count(*) AS n, sum(amount) AS total, avg(amount) AS mean "
        "FROM orders GROUP BY category ORDER BY category",
    "group by (100k groups)":
        "SELECT customer_id, sum(amount) AS total FROM orders GROUP BY customer_id "
        "ORDER BY total DESC LIMIT 10",
    "filter + group by":
        "SELECT day, sum(amount) AS total FROM orders WHERE category < 3 AND amount > 50 "
        "GROUP BY day ORDER BY day",
    "join + group by":
        "SELECT c.region, c.tier, count(*) AS n, sum(o.amount) AS total "
        "FROM orders o JOIN customers c ON o.customer_id = c.customer_id "
        "GROUP BY c.region, c.tier ORDER BY c.region, c.tier",
}


def timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--customers", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--dir", default=None, help="where to put the data (default: a temp dir)")
    args = ap.parse_args()
    root = tempfile.mkdtemp(prefix="txlake-analytics-", dir=args.dir)
    fmt = {"rows": args.rows, "customers": args.customers}
    results = {}
    try:
        path = os.path.join(root, "warehouse")
        conn = txlake.connect(path, autocommit=True, publish="off")
        cur = conn.cursor()
        cur.execute("CREATE TABLE orders (id BIGINT, customer_id BIGINT, amount DOUBLE, category INT, day INT)")
        cur.execute("CREATE TABLE customers (customer_id BIGINT PRIMARY KEY, region VARCHAR, tier INT)")
        load_txlake = timed(lambda: (cur.execute("INSERT INTO orders " + ORDERS.format(**fmt)),
                                     cur.execute("INSERT INTO customers " + CUSTOMERS.format(**fmt))))
        orders_files = glob.glob(os.path.join(path, "default.db", "orders", "**", "*.parquet"), recursive=True)
        customers_files = glob.glob(os.path.join(path, "default.db", "customers", "**", "*.parquet"), recursive=True)

        duck = duckdb.connect()
        duck.execute(f"CREATE VIEW orders AS SELECT * FROM read_parquet({orders_files!r})")
        duck.execute(f"CREATE VIEW customers AS SELECT * FROM read_parquet({customers_files!r})")
        assert duck.sql("SELECT count(*) FROM orders").fetchall()[0][0] == args.rows

        scratch = duckdb.connect(os.path.join(root, "load.duckdb"))
        load_duck = timed(lambda: (
            scratch.execute("CREATE TABLE orders AS " + ORDERS.format(**fmt)),
            scratch.execute("CREATE TABLE customers AS " + CUSTOMERS.format(**fmt)),
            scratch.execute(f"COPY orders TO '{os.path.join(root, 'o.parquet')}' (FORMAT parquet, COMPRESSION zstd)"),
            scratch.execute(f"COPY customers TO '{os.path.join(root, 'c.parquet')}' (FORMAT parquet, COMPRESSION zstd)")))
        scratch.close()

        for name, sql in QUERIES.items():
            ours = cur.execute(sql).fetch_arrow_table()
            theirs = duck.sql(sql).to_arrow_table()
            if ours.to_pylist() != theirs.to_pylist() and name != "group by (100k groups)":
                # floating-point sums may differ in the last digits between plans
                same = all(abs(a - b) < 1e-6 * max(1.0, abs(a)) if isinstance(a, float) else a == b
                           for ra, rb in zip(ours.to_pylist(), theirs.to_pylist())
                           for a, b in zip(ra.values(), rb.values()))
                if not same:
                    print(f"warning: {name}: results differ")
            results[name] = {}
            for engine, run in (("txlake", lambda: cur.execute(sql).fetch_arrow_table()),
                                ("duckdb", lambda: duck.sql(sql).to_arrow_table())):
                times = [timed(run) for _ in range(args.repeat)]
                results[name][engine] = statistics.median(times)
        # cold: a fresh connection's buffer pool is empty - reopen txlake
        conn.close()
        conn = txlake.connect(path, autocommit=True, publish="off")
        cold = {name: timed(lambda: conn.cursor().execute(sql).fetch_arrow_table()) for name, sql in QUERIES.items()}
        conn.close()
        duck.close()
    finally:
        shutil.rmtree(root, ignore_errors=True)

    print(f"\nanalytics over {args.rows:,} orders x {args.customers:,} customers "
          f"(median of {args.repeat} warm runs; DuckDB reads txlake's Parquet files)\n")
    header = f"{'query':24} {'txlake ms':>10} {'DuckDB ms':>10} {'ratio':>7} {'txlake cold ms':>15}"
    print(header)
    print("-" * len(header))
    for name, r in results.items():
        print(f"{name:24} {r['txlake'] * 1000:10.1f} {r['duckdb'] * 1000:10.1f} "
              f"{r['txlake'] / r['duckdb']:6.2f}x {cold[name] * 1000:15.1f}")
    print(f"{'load (to Parquet)':24} {load_txlake * 1000:10.1f} {load_duck * 1000:10.1f} "
          f"{load_txlake / load_duck:6.2f}x {'-':>15}")
    print("\nratio: txlake time / DuckDB time (lower is better; target <= 1.3x)")


if __name__ == "__main__":
    main()
