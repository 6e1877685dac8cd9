"""From a new process to the first answer: how long a script's ``txlake WAREHOUSE -c "..."``, or
a Python program's first query, waits - beside SQLite's and DuckDB's Python modules opening a
file database and answering the same query, in the same run.

Each row starts a fresh Python interpreter (``sys.executable``, bytecode caches as installed) and
measures it from its start to its exit, the median of ``--runs``; the query is a point SELECT
by primary key on a small table, made beforehand. The ratios are to DuckDB's Python module.

    python benchmarks/startup.py [--runs 7]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

import duckdb

import txlake

QUERY = "SELECT name FROM items WHERE id = 7"

PROGRAMS = {
    "txlake shell (txlake WH -c)": None,  # (the command line, built in main)
    "txlake DB-API (import, connect, query)":
        "import sys, txlake; c = txlake.connect(sys.argv[1]).cursor(); c.execute({q!r}); c.fetchall()",
    "SQLite (import, connect, query)":
        "import sys, sqlite3; sqlite3.connect(sys.argv[1] + '/s.db').execute({q!r}).fetchall()",
    "DuckDB (import, connect, query)":
        "import sys, duckdb; duckdb.connect(sys.argv[1] + '/d.duckdb').execute({q!r}).fetchall()",
    "Python alone (python -c pass)": "pass",
}


def make_databases(root: str) -> None:
    rows = ", ".join(f"({i}, 'item {i}')" for i in range(100))
    create, insert = "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT)", f"INSERT INTO items VALUES {rows}"
    with txlake.connect(root, autocommit=True) as conn:
        conn.execute(create)
        conn.execute(insert)
    con = sqlite3.connect(os.path.join(root, "s.db"))
    con.execute(create)
    con.execute(insert)
    con.commit()
    con.close()
    con = duckdb.connect(os.path.join(root, "d.duckdb"))
    con.execute(create)
    con.execute(insert)
    con.close()


def seconds(argv: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    root = tempfile.mkdtemp(prefix="txlake-startup-")
    try:
        make_databases(root)
        shell = shutil.which("txlake")
        results = {}
        for name, program in PROGRAMS.items():
            if program is None:
                argv = [shell, root, "-c", QUERY] if shell else \
                    [sys.executable, "-c", "from txlake.repl.cli import main; main()", root, "-c", QUERY]
            else:
                argv = [sys.executable, "-c", program.format(q=QUERY), root]
            results[name] = seconds(argv, args.runs)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    duck = results["DuckDB (import, connect, query)"]
    print(f"\nfrom a new process to the first answer ({QUERY!r}), median of {args.runs} runs\n")
    print(f"{'program':42s} {'seconds':>8s} {'vs DuckDB':>10s}")
    print("-" * 62)
    for name, took in results.items():
        print(f"{name:42s} {took:8.3f} {took / duck:9.2f}x")


if __name__ == "__main__":
    main()
