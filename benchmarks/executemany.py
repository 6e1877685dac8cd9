"""``cursor.executemany("INSERT INTO t VALUES (?, ...)", rows)`` - how an application, an ORM's
bulk insert or pandas' ``to_sql`` loads rows from Python - on txlake, SQLite and DuckDB in the
same run: rows per second and the ratios.

The table holds the types such loads carry: an integer key, text, a NUMERIC(12,2) (from
``Decimal``), a DATE, a TIMESTAMP, a BOOLEAN. Each engine inserts the rows in one transaction
and commits it durably (SQLite in WAL with synchronous=FULL, DuckDB file-backed); txlake runs it
as one statement there (``Executor.insert_many``). txlake in autocommit mode - each row a
statement and a durable commit of its own, as psycopg runs executemany then - is shown too, on
fewer rows.

    python benchmarks/executemany.py [--rows 50000] [--autocommit-rows 2000]
"""

from __future__ import annotations

import argparse
import datetime
import decimal
import os
import sqlite3
import tempfile
import time

import duckdb

import txlake

CREATE = ("CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT, amount NUMERIC(12,2), due DATE, "
          "placed TIMESTAMP, paid BOOLEAN)")
INSERT = "INSERT INTO orders VALUES (?, ?, ?, ?, ?, ?)"


def rows(n: int) -> list[tuple]:
    start = datetime.datetime(2024, 1, 1, 9, 30)
    return [(i, f"customer {i % 97}", decimal.Decimal((i * 37) % 100000) / 100,
             (start + datetime.timedelta(minutes=7 * i)).date(), start + datetime.timedelta(minutes=7 * i), i % 3 > 0)
            for i in range(n)]


def _timed(run) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def run_txlake(root: str, data: list[tuple], autocommit: bool) -> float:
    conn = txlake.connect(os.path.join(root, "wh"), autocommit=autocommit, publish="off")
    conn.execute(CREATE)
    conn.execute(CREATE.replace("orders", "warm_up"))  # (first uses set up caches - and pyarrow imports
    conn.cursor().executemany(INSERT.replace("orders", "warm_up"), rows(2))  # pandas: not timed)
    if not autocommit:
        conn.commit()

    def load():
        conn.cursor().executemany(INSERT, data)
        if not autocommit:
            conn.commit()
    took = _timed(load)
    assert conn.execute("SELECT count(*) FROM orders").fetchone() == (len(data),)
    conn.close()
    return took


def run_sqlite(root: str, data: list[tuple]) -> float:
    conn = sqlite3.connect(os.path.join(root, "db.sqlite"))
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute(CREATE)
    conn.commit()
    converted = [(i, c, str(a), d.isoformat(), p.isoformat(sep=" "), b) for i, c, a, d, p, b in data]

    def load():
        conn.executemany(INSERT, converted)
        conn.commit()
    took = _timed(load)
    conn.close()
    return took


def run_duckdb(root: str, data: list[tuple]) -> float:
    conn = duckdb.connect(os.path.join(root, "db.duckdb"))
    conn.execute(CREATE)

    def load():
        conn.execute("BEGIN")
        conn.executemany(INSERT, data)
        conn.execute("COMMIT")
    took = _timed(load)
    conn.close()
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=50_000)
    parser.add_argument("--autocommit-rows", type=int, default=2_000)
    parser.add_argument("--duckdb-rows", type=int, default=5_000,
                        help="DuckDB's executemany plans each row: it gets fewer (its rate is per row)")
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory(prefix="txlake-bench-") as root:
        for name, n, run in (
                ("txlake, one transaction", args.rows, lambda d, r: run_txlake(d, r, autocommit=False)),
                ("txlake, autocommit", args.autocommit_rows, lambda d, r: run_txlake(d, r, autocommit=True)),
                ("SQLite WAL FULL, one transaction", args.rows, run_sqlite),
                ("DuckDB file, one transaction", args.duckdb_rows, run_duckdb)):
            folder = tempfile.mkdtemp(dir=root)
            results.append((name, n, n / run(folder, rows(n))))
    base = {name: rate for name, _, rate in results}
    print(f"{'engine':<34} {'rows':>7} {'rows/s':>10} {'vs SQLite':>10} {'vs DuckDB':>10}")
    for name, n, rate in results:
        print(f"{name:<34} {n:>7} {rate:>10.0f} {rate / base['SQLite WAL FULL, one transaction']:>9.2f}x "
              f"{rate / base['DuckDB file, one transaction']:>9.2f}x")


if __name__ == "__main__":
    main()
