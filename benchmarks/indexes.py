"""One-row SELECT / UPDATE by a non-key column, with and without CREATE INDEX: txlake beside SQLite.

A table ``t (id BIGINT PRIMARY KEY, email TEXT, n BIGINT)`` holds ``rows`` rows whose ``email``
is unique in value but not declared so (``e<k>`` for a permutation k of the ids: no file is in
email order, so Parquet footer bounds prune little). For each size, with and without an index
on ``email``, in the same run:

- ``build``: the time of ``CREATE INDEX`` (txlake writes the table anew under its new schema,
  as every DDL does; the per-file indexes are built lazily, by the first lookup - ``first``);
- ``select`` / ``update``: medians of one-row ``SELECT n FROM t WHERE email = ?`` and
  ``UPDATE t SET n = n + 1 WHERE email = ?`` (autocommit, each a durable transaction);
- ``insert``: the median of one-row INSERTs in one transaction (txlake's index costs an
  INSERT nothing: files are indexed when a lookup first reaches them).

    python benchmarks/indexes.py [--rows 100000 1000000] [--repeat 50]
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import tempfile
import time


def _median_ms(run, args) -> float:
    times = []
    for a in args:
        start = time.perf_counter()
        run(a)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def _probes(rows: int, repeat: int) -> list[str]:
    return [f"e{(i * 7919) % rows}" for i in range(1, repeat + 1)]


def _measure(con, indexed: bool, rows: int, repeat: int, begin, commit) -> dict:
    """The timings of one engine's connection ``con`` to a loaded table (``begin`` / ``commit``
    open and end the INSERTs' transaction)."""
    out = {}
    if indexed:
        start = time.perf_counter()
        con.execute("CREATE INDEX t_email_idx ON t (email)")
        out["build"] = (time.perf_counter() - start) * 1000
    probes = _probes(rows, repeat)
    start = time.perf_counter()
    con.execute("SELECT n FROM t WHERE email = ?", ("e0",)).fetchall()
    out["first"] = (time.perf_counter() - start) * 1000
    out["select"] = _median_ms(lambda p: con.execute("SELECT n FROM t WHERE email = ?", (p,)).fetchall(), probes)
    out["update"] = _median_ms(lambda p: con.execute("UPDATE t SET n = n + 1 WHERE email = ?", (p,)), probes)
    begin()
    ids = iter(range(rows, rows + repeat))
    out["insert"] = _median_ms(lambda p: con.execute("INSERT INTO t VALUES (?, ?, 0)", (next(ids), p)), probes)
    commit()
    con.close()
    return out


def _txlake(rows: int, indexed: bool, repeat: int) -> dict:
    import txlake
    with tempfile.TemporaryDirectory() as root:
        con = txlake.connect(os.path.join(root, "wh"), autocommit=True)
        con.execute("CREATE TABLE t (id BIGINT PRIMARY KEY, email TEXT, n BIGINT)")
        con.execute(f"INSERT INTO t SELECT i, 'e' || ((i * 104729) % {rows}), i FROM range({rows}) AS r(i)")
        return _measure(con, indexed, rows, repeat, lambda: setattr(con, "autocommit", False), con.commit)


def _sqlite(rows: int, indexed: bool, repeat: int) -> dict:
    with tempfile.TemporaryDirectory() as root:
        con = sqlite3.connect(os.path.join(root, "db"), isolation_level=None)
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("PRAGMA synchronous=FULL")
        con.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, email TEXT, n INTEGER)")
        con.execute("BEGIN")
        con.executemany("INSERT INTO t VALUES (?, ?, ?)", ((i, f"e{(i * 104729) % rows}", i) for i in range(rows)))
        con.execute("COMMIT")
        return _measure(con, indexed, rows, repeat, lambda: con.execute("BEGIN"), lambda: con.execute("COMMIT"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()
    columns = ("build", "first", "select", "update", "insert")
    print(f"{'engine':8} {'rows':>9} {'index':6} " + " ".join(f"{c + ' ms':>10}" for c in columns))
    for rows in args.rows:
        for engine, run in (("txlake", _txlake), ("sqlite", _sqlite)):
            for indexed in (False, True):
                out = run(rows, indexed, args.repeat)
                print(f"{engine:8} {rows:>9} {'yes' if indexed else 'no':6} "
                      + " ".join(f"{out[c]:>10.3f}" if c in out else f"{'-':>10}" for c in columns), flush=True)


if __name__ == "__main__":
    main()
