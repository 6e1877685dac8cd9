"""Foreign keys: what a referencing row costs. One-row INSERT ... VALUES + COMMIT into a child
table whose parent has ``--parents`` rows, beside the same INSERT into a table without the
foreign key, in the same run; and a one-row DELETE of an unreferenced parent row (the
referencing table is scanned for its key) beside a DELETE from a table nobody references.

    python benchmarks/foreign_keys.py [--parents 100000] [--rows 2000]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time

import txlake


def timed(conn, sql: str, values) -> list[float]:
    """Microseconds of ``sql`` + COMMIT for each of ``values``."""
    took = []
    for v in values:
        start = time.perf_counter()
        conn.execute(sql, v)
        conn.commit()
        took.append((time.perf_counter() - start) * 1e6)
    return took


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--parents", type=int, default=100_000)
    ap.add_argument("--rows", type=int, default=2000)
    args = ap.parse_args()
    path = tempfile.mkdtemp(prefix="txlake-fk-")
    try:
        conn = txlake.connect(path, publish="off")
        conn.execute("CREATE TABLE p (id INT PRIMARY KEY, v TEXT)")
        conn.execute("CREATE TABLE q (id INT PRIMARY KEY, v TEXT)")
        conn.execute(f"INSERT INTO p SELECT range, 'x' FROM range({args.parents})")
        conn.execute(f"INSERT INTO q SELECT range, 'x' FROM range({args.parents})")
        conn.execute("CREATE TABLE child (k INT PRIMARY KEY, a INT REFERENCES p)")
        conn.execute("CREATE TABLE plain (k INT PRIMARY KEY, a INT)")
        conn.commit()
        n, step = args.rows, max(1, args.parents // args.rows)
        rows = {
            "INSERT child row (FK)": timed(conn, "INSERT INTO child VALUES (?, ?)", [(i, i * step) for i in range(n)]),
            "INSERT row (no FK)": timed(conn, "INSERT INTO plain VALUES (?, ?)", [(i, i * step) for i in range(n)]),
            "DELETE parent row (referenced table)": timed(
                conn, "DELETE FROM p WHERE id = ?", [(i * step + 1,) for i in range(min(n, 200))]),
            "DELETE row (unreferenced table)": timed(
                conn, "DELETE FROM q WHERE id = ?", [(i * step + 1,) for i in range(min(n, 200))]),
        }
        conn.close()
    finally:
        shutil.rmtree(path, ignore_errors=True)
    print(f"parents: {args.parents} rows; child rows: {args.rows}")
    print(f"{'statement + COMMIT':40} {'median us':>10} {'p90 us':>10}")
    for name, took in rows.items():
        took.sort()
        print(f"{name:40} {statistics.median(took):10.0f} {took[int(len(took) * 0.9)]:10.0f}")


if __name__ == "__main__":
    main()
