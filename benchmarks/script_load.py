"""A SQL script of one-row INSERTs - a dump written with ``pg_dump --inserts``, a seed file -
run by txlake, SQLite and DuckDB in the same run: statements per second and the ratios.

Every statement has its own text (its values are constants, not parameters), so each is parsed
and planned: the per-statement cost a prepared statement's cache hides. The table has the
types such a dump holds - an integer key, text, a NUMERIC(12,2), a DATE, a TIMESTAMP, a
BOOLEAN - and the script runs in one transaction (``BEGIN`` ... ``COMMIT``, as ``txlake -1``
and ``psql -1`` run it), then again in autocommit (each statement its own durable commit;
SQLite in WAL with synchronous=FULL, DuckDB file-backed). txlake also runs it through its
shell, ``txlake WAREHOUSE -1 -q -f FILE``, in a process of its own (start-up included).

    python benchmarks/script_load.py [--statements 5000]
"""

from __future__ import annotations

import argparse
import datetime
import os
import sqlite3
import subprocess
import sys
import tempfile
import time

import duckdb

import txlake

CREATE = ("CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT, amount NUMERIC(12,2), due DATE, "
          "placed TIMESTAMP, paid BOOLEAN)")


# each engine's first query pays for setting itself up (txlake's DuckDB connection, its macros):
# not timed
WARM_UP = "SELECT count(*) FROM orders"


def statements(n: int) -> list[str]:
    start = datetime.datetime(2024, 1, 1, 9, 30)
    out = []
    for i in range(n):
        placed = start + datetime.timedelta(minutes=7 * i)
        out.append(f"INSERT INTO orders VALUES ({i}, 'customer {i % 97}', {(i * 37) % 100000 / 100:.2f}, "
                   f"'{placed.date().isoformat()}', '{placed.isoformat(sep=' ')}', {'true' if i % 3 else 'false'})")
    return out


def _timed(run) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def txlake_api(root: str, script: list[str], one_transaction: bool) -> float:
    return _sql_run(txlake.connect(os.path.join(root, "wh"), autocommit=True, publish="off"), script, one_transaction)


def txlake_shell(root: str, script: list[str]) -> float:
    path = os.path.join(root, "script.sql")
    with open(path, "w") as f:
        f.write(CREATE + ";\n" + ";\n".join(script) + ";\n")
    return _timed(lambda: subprocess.run([sys.executable, "-m", "txlake.repl.cli", os.path.join(root, "shell"),
                                          "-1", "-q", "--publish", "off", "-f", path], check=True,
                                         stdout=subprocess.DEVNULL))


def _sql_run(con, script: list[str], one_transaction: bool) -> float:
    """``script`` run by a DB-API connection in autocommit (``BEGIN`` ... ``COMMIT`` around it
    for one transaction), the table made first; every row must be there after."""
    con.execute(CREATE)
    con.execute(WARM_UP).fetchall()

    def run():
        if one_transaction:
            con.execute("BEGIN")
        for sql in script:
            con.execute(sql)
        if one_transaction:
            con.execute("COMMIT")
    elapsed = _timed(run)
    assert con.execute("SELECT count(*) FROM orders").fetchone()[0] == len(script)
    con.close()
    return elapsed


def sqlite_run(root: str, script: list[str], one_transaction: bool) -> float:
    con = sqlite3.connect(os.path.join(root, "db"), isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=FULL")
    return _sql_run(con, script, one_transaction)


def duckdb_run(root: str, script: list[str], one_transaction: bool) -> float:
    return _sql_run(duckdb.connect(os.path.join(root, "duck.db")), script, one_transaction)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--statements", type=int, default=5000)
    args = parser.parse_args()
    script = statements(args.statements)
    rows = []
    for label, one in (("one transaction", True), ("autocommit", False)):
        results = {}
        for engine, run in (("txlake", txlake_api), ("SQLite", sqlite_run), ("DuckDB", duckdb_run)):
            with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR")) as root:
                results[engine] = run(root, script, one)
        rows.append((label, results))
    with tempfile.TemporaryDirectory() as root:
        shell = txlake_shell(root, script)
    n = len(script)
    print(f"\n{n:,} one-row INSERT statements, each its own text (constants), through the DB-API "
          "(and txlake's shell -f)\n")
    print(f"{'mode':18s} {'engine':8s} {'statements/s':>13s} {'ms/statement':>13s} {'vs SQLite':>10s} "
          f"{'vs DuckDB':>10s}")
    print("-" * 76)
    for label, results in rows:
        for engine, seconds in results.items():
            print(f"{label:18s} {engine:8s} {n / seconds:13,.0f} {seconds / n * 1000:13.3f} "
                  f"{results['SQLite'] / seconds:9.2f}x {results['DuckDB'] / seconds:9.2f}x")
    one_sqlite, one_duck = rows[0][1]["SQLite"], rows[0][1]["DuckDB"]
    print(f"{'txlake -1 -f':18s} {'shell':8s} {n / shell:13,.0f} {shell / n * 1000:13.3f} "
          f"{one_sqlite / shell:9.2f}x {one_duck / shell:9.2f}x   (a process of its own: start-up included)")
    print("\nratios: the other engine's time / this one's (higher is better)")


if __name__ == "__main__":
    main()
