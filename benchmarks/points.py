"""One-row statements an application makes, by primary key and by a UNIQUE column: txlake
beside SQLite and DuckDB (file-backed), in the same run.

A table ``t (id BIGINT PRIMARY KEY, email TEXT UNIQUE, n BIGINT)`` of ``rows`` rows (``email``
is ``e<k>`` for a permutation k of the ids, so no file is in email order). Each statement is
run ``repeat`` times with a different row, inside one transaction that is then rolled back -
what is measured is the statement, not the commit's fsync (``commits.py`` measures that):

- ``select pk`` / ``select unique``: ``SELECT id, email, n FROM t WHERE id = ?`` / ``... WHERE email = ?``
- ``update pk`` / ``update unique``: ``UPDATE t SET n = n + 1 WHERE id = ?`` / ``... WHERE email = ?``
- ``delete pk`` / ``delete unique``: ``DELETE FROM t WHERE id = ?`` / ``... WHERE email = ?``
- ``insert returning``: ``INSERT INTO t VALUES (?, ?, 0) RETURNING id`` (an ORM's INSERT)
- ``select in list``: ``... WHERE id IN (?, ?, ?, ?, ?)`` (an ORM's prefetch)
- ``join by pk``: ``SELECT t.email, c.v FROM c JOIN t ON t.id = c.t_id WHERE c.id = ?`` over a
  child table ``c (id PRIMARY KEY, t_id, v)`` of ``rows`` rows, indexed on ``t_id``
- ``children ordered``: ``SELECT id, v FROM c WHERE t_id = ? ORDER BY id``

txlake answers the first seven from its key indexes in Python, without DuckDB; for the last
three it hands DuckDB only the rows its indexes find (a join: one row of each table). The table prints
the median microseconds per statement and txlake's time over each other engine's (< 1: faster).

    python benchmarks/points.py [--rows 100000] [--repeat 1000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import tempfile
import time

STATEMENTS = [
    ("select pk", "SELECT id, email, n FROM t WHERE id = ?", "id"),
    ("select unique", "SELECT id, email, n FROM t WHERE email = ?", "email"),
    ("update pk", "UPDATE t SET n = n + 1 WHERE id = ?", "id"),
    ("update unique", "UPDATE t SET n = n + 1 WHERE email = ?", "email"),
    ("delete pk", "DELETE FROM t WHERE id = ?", "id"),
    ("delete unique", "DELETE FROM t WHERE email = ?", "email"),
    ("insert returning", "INSERT INTO t VALUES (?, ?, 0) RETURNING id", "new"),
    ("select in list", "SELECT id, email, n FROM t WHERE id IN (?, ?, ?, ?, ?)", "ids"),
    ("join by pk", "SELECT t.email, c.v FROM c JOIN t ON t.id = c.t_id WHERE c.id = ?", "id"),
    ("children ordered", "SELECT id, v FROM c WHERE t_id = ? ORDER BY id", "id"),
]


def _args(kind: str, rows: int, repeat: int, round_: int) -> list[tuple]:
    ids = [(i * 7919 + round_ * 104729) % rows for i in range(1, repeat + 1)]
    if kind == "id":
        return [(i,) for i in ids]
    if kind == "email":
        return [(f"e{(i * 7919) % rows}",) for i in ids]
    if kind == "ids":
        return [tuple((i + k * 7) % rows for k in range(5)) for i in ids]
    return [(rows + round_ * repeat + i, f"new{round_}-{i}") for i in range(repeat)]


CHILD = ["CREATE TABLE c (id BIGINT PRIMARY KEY, t_id BIGINT, v TEXT)",
         "INSERT INTO c SELECT g, (g * 31) % {rows}, 'v' || g FROM {series}",
         "CREATE INDEX c_t_id ON c (t_id)"]


def _load_sql(rows: int) -> str:
    if rows % 7919 == 0:  # (7919 is prime: g * 7919 % rows is a permutation of the ids otherwise)
        raise SystemExit("--rows must not be a multiple of 7919")
    return f"INSERT INTO t SELECT g, 'e' || ((g * 7919) % {rows}), g FROM generate_series(0, {rows - 1}) g"


def txlake_engine(path: str, rows: int):
    import txlake
    con = txlake.connect(path, autocommit=True, publish="off")
    con.execute("CREATE TABLE t (id BIGINT PRIMARY KEY, email TEXT UNIQUE, n BIGINT)")
    con.execute(_load_sql(rows))
    for sql in CHILD:
        con.execute(sql.format(rows=rows, series=f"generate_series(0, {rows - 1}) g"))
    con.execute("SELECT n FROM t WHERE email = 'e0'").fetchall()  # (the per-file indexes: built once)
    con.execute("SELECT v FROM c WHERE t_id = 0").fetchall()
    con.autocommit = False
    return con, lambda: None, con.rollback


def sqlite_engine(path: str, rows: int):
    con = sqlite3.connect(os.path.join(path, "points.db"), isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=FULL")
    con.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, email TEXT UNIQUE, n INTEGER)")
    series = f"WITH RECURSIVE s(g) AS (SELECT 0 UNION ALL SELECT g + 1 FROM s WHERE g < {rows - 1}) "
    con.execute(f"{series} INSERT INTO t SELECT g, 'e' || ((g * 7919) % {rows}), g FROM s")
    con.execute(CHILD[0])
    con.execute(f"{series} " + CHILD[1].format(rows=rows, series="s"))
    con.execute(CHILD[2])
    return con, lambda: con.execute("BEGIN"), lambda: con.execute("ROLLBACK")


def duckdb_engine(path: str, rows: int):
    import duckdb
    con = duckdb.connect(os.path.join(path, "points.duckdb"))
    con.execute("CREATE TABLE t (id BIGINT PRIMARY KEY, email TEXT UNIQUE, n BIGINT)")
    con.execute(_load_sql(rows))
    for sql in CHILD:
        con.execute(sql.format(rows=rows, series=f"generate_series(0, {rows - 1}) s(g)"))
    return con, lambda: con.execute("BEGIN"), lambda: con.execute("ROLLBACK")


ENGINES = {"txlake": txlake_engine, "sqlite": sqlite_engine, "duckdb": duckdb_engine}


def measure(con, begin, rollback, sql: str, args: list[tuple]) -> float:
    """The median microseconds of ``sql`` over ``args``, in one transaction rolled back after."""
    times = []
    begin()
    try:
        for a in args:
            start = time.perf_counter()
            cur = con.execute(sql, a)
            if sql.startswith("SELECT") or "RETURNING" in sql:
                cur.fetchall()
            times.append(time.perf_counter() - start)
    finally:
        rollback()
    return statistics.median(times) * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--engines", default="txlake,sqlite,duckdb")
    args = ap.parse_args()
    names = args.engines.split(",")
    results: dict[str, dict[str, list[float]]] = {n: {s[0]: [] for s in STATEMENTS} for n in names}
    with tempfile.TemporaryDirectory() as root:
        engines = {}
        for n in names:
            os.makedirs(os.path.join(root, n))
            engines[n] = ENGINES[n](os.path.join(root, n), args.rows)
        for round_ in range(args.rounds):  # (the engines take turns: this machine's speed drifts)
            for label, sql, kind in STATEMENTS:
                for n in names:
                    con, begin, rollback = engines[n]
                    results[n][label].append(measure(con, begin, rollback, sql,
                                                     _args(kind, args.rows, args.repeat, round_)))
        for con, _, _ in engines.values():
            con.close()
    others = [n for n in names if n != "txlake"]
    print(f"{args.rows} rows, {args.repeat} statements a round, median us per statement over {args.rounds} rounds")
    print(f"{'statement':18s}" + "".join(f"{n:>10s}" for n in names)
          + "".join(f"{'vs ' + n:>12s}" for n in others if "txlake" in names))
    for label, _, _ in STATEMENTS:
        med = {n: statistics.median(results[n][label]) for n in names}
        line = f"{label:18s}" + "".join(f"{med[n]:10.1f}" for n in names)
        if "txlake" in names:
            line += "".join(f"{med['txlake'] / med[n]:11.2f}x" for n in others)
        print(line)


if __name__ == "__main__":
    main()
