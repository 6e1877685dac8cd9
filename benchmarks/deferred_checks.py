"""Deferred foreign-key checks at COMMIT: a transaction of ``--rows`` one-row INSERTs into a
child table whose foreign key is DEFERRABLE INITIALLY DEFERRED (checked at COMMIT), beside the
same transaction with a NOT DEFERRABLE one (checked by each INSERT), in the same run.

    python benchmarks/deferred_checks.py [--parents 100000] [--rows 1500 20000]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time

import txlake


def run(parents: int, rows: int, timing: str) -> tuple[float, float]:
    """(seconds of the INSERTs, seconds of the COMMIT) of ``rows`` one-row INSERTs."""
    path = tempfile.mkdtemp(prefix="txlake-deferred-")
    try:
        conn = txlake.connect(path, publish="off")
        conn.execute("CREATE TABLE p (id INT PRIMARY KEY, v TEXT)")
        conn.execute(f"INSERT INTO p SELECT range, 'x' FROM range({parents})")
        conn.execute(f"CREATE TABLE child (k INT PRIMARY KEY, a INT REFERENCES p {timing})")
        conn.commit()
        step = max(1, parents // rows)
        start = time.perf_counter()
        conn.cursor().executemany("INSERT INTO child VALUES (?, ?)", [(i, i * step) for i in range(rows)])
        inserted = time.perf_counter()
        conn.commit()
        committed = time.perf_counter()
        conn.close()
        return inserted - start, committed - inserted
    finally:
        shutil.rmtree(path, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--parents", type=int, default=100_000)
    ap.add_argument("--rows", type=int, nargs="+", default=[1500, 20000])
    args = ap.parse_args()
    print(f"parents: {args.parents} rows")
    print(f"{'child rows':>10} {'foreign key':30} {'INSERTs ms':>11} {'COMMIT ms':>10}")
    for rows in args.rows:
        for timing in ("DEFERRABLE INITIALLY DEFERRED", "NOT DEFERRABLE"):
            inserts, commit = run(args.parents, rows, timing)
            print(f"{rows:>10} {timing:30} {inserts * 1e3:>11.0f} {commit * 1e3:>10.1f}")


if __name__ == "__main__":
    main()
