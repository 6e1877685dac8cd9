"""Cursor memory: reading a 1M-row result in pieces through a SQL cursor versus all at once,
txlake beside DuckDB in the same run.

A txlake cursor (engine/cursors.py) keeps its query's result as Arrow and makes Python objects
of the rows each FETCH asks for only; ``fetchall()`` of a plain SELECT makes every row a tuple.
Each way runs in a fresh process, so its peak RSS (VmHWM) is its own; the table shows
that peak, the growth over the process's RSS before the read, and the time.

    python benchmarks/cursor_memory.py [--rows 1000000] [--batch 1000]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

QUERY = "SELECT id, name, amount FROM t ORDER BY id"
ROWS = ("SELECT range AS id, 'name-' || range AS name, CAST(range % 1000 AS DOUBLE) / 7 AS amount "
        "FROM range({rows})")


def _rss_mb() -> float:
    """This process's resident set now (Linux: /proc), in MB."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _peak_mb() -> float:
    """This process's peak resident set (VmHWM: ru_maxrss would keep the parent's across exec)."""
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) / 1024


def _measure(mode: str, warehouse: str, batch: int) -> dict:
    """One way of reading QUERY's rows, in this process: rows seen, seconds, RSS before, peak."""
    import duckdb

    import txlake
    if mode.startswith("duckdb"):
        con = duckdb.connect(os.path.join(warehouse, "duck.db"), read_only=True)
        before, start = _rss_mb(), time.perf_counter()
        result = con.execute(QUERY)
        seen = len(result.fetchall()) if mode == "duckdb fetchall" else _drain(lambda: result.fetchmany(batch))
    else:
        conn = txlake.connect(warehouse, publish="off")
        conn.execute("SELECT count(*) FROM t").fetchone()  # (the table's files read, as a warm session's)
        before, start = _rss_mb(), time.perf_counter()
        if mode == "txlake fetchall":
            seen = len(conn.execute(QUERY).fetchall())
        elif mode == "txlake FETCH":
            conn.execute(f"DECLARE c CURSOR FOR {QUERY}")
            seen = _drain(lambda: conn.execute(f"FETCH {batch} FROM c").fetchall())
        else:  # txlake named cursor: conn.cursor(name=...), iterated itersize rows at a time
            named = conn.cursor(name="c")
            named.itersize = batch
            named.execute(QUERY)
            seen = sum(1 for _ in named)
        conn.rollback()
    return {"rows": seen, "seconds": time.perf_counter() - start, "before": before, "peak": _peak_mb()}


def _drain(fetch) -> int:
    seen = 0
    while rows := fetch():
        seen += len(rows)
    return seen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--measure", nargs=2, metavar=("MODE", "WAREHOUSE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(_measure(args.measure[0], args.measure[1], args.batch)))
        return
    import duckdb

    import txlake
    warehouse = tempfile.mkdtemp(prefix="txlake-cursor-bench-")
    try:
        with txlake.connect(warehouse, publish="off") as conn:
            conn.execute("CREATE TABLE t (id bigint PRIMARY KEY, name text, amount double precision)")
            conn.execute(f"INSERT INTO t {ROWS.format(rows=args.rows)}")
        duck = duckdb.connect(os.path.join(warehouse, "duck.db"))
        duck.execute(f"CREATE TABLE t AS {ROWS.format(rows=args.rows)}")
        duck.close()
        print(f"{args.rows:,} rows ({QUERY}), {args.batch} a FETCH; each way in a fresh process\n")
        print(f"{'way':<34}{'rows':>10}{'seconds':>9}{'RSS before MB':>15}{'peak MB':>9}{'growth MB':>11}")
        for mode, label in (("txlake fetchall", "txlake SELECT + fetchall()"),
                            ("txlake FETCH", f"txlake DECLARE + FETCH {args.batch}"),
                            ("txlake named", f"txlake cursor(name=) itersize {args.batch}"),
                            ("duckdb fetchall", "DuckDB fetchall()"),
                            ("duckdb fetchmany", f"DuckDB fetchmany({args.batch})")):
            out = subprocess.run([sys.executable, __file__, "--batch", str(args.batch), "--measure", mode, warehouse],
                                 check=True, capture_output=True, text=True).stdout
            m = json.loads(out.strip().splitlines()[-1])
            print(f"{label:<34}{m['rows']:>10,}{m['seconds']:>9.2f}{m['before']:>15.0f}{m['peak']:>9.0f}"
                  f"{m['peak'] - m['before']:>11.0f}")
    finally:
        shutil.rmtree(warehouse, ignore_errors=True)


if __name__ == "__main__":
    main()
