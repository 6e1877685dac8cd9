"""Numeric division over a column: txlake's PostgreSQL quotient (exact, select_div_scale's scale,
rounded half away from zero) beside DuckDB's own division of the same values (a double), in the
same run, and the numerics txlake still computes in Python row by row (sqrt), for scale.

    python benchmarks/numeric_division.py [--rows 1000000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

import duckdb

import txlake

LOAD = ("SELECT g AS id, CAST((g % 1000) / 7.0 AS DECIMAL(12,2)) AS price, CAST(g % 13 + 1 AS INT) AS qty, "
        "CAST(CASE WHEN g % 100 = 0 THEN 123456.7 ELSE 3 END AS DECIMAL(14,4)) AS w, "
        "CAST(g % 13 + 1 AS DECIMAL(38,9)) AS n "
        "FROM range(1, {rows} + 1) t(g)")
QUERIES = (
    ("numeric / int", "SELECT sum(price / qty) FROM o"),
    ("int / numeric", "SELECT sum(qty / price) FROM o WHERE price <> 0"),
    ("numeric / numeric(14,4), 1% past the native bounds", "SELECT sum(price / w) FROM o"),
    ("numeric / int (plain numeric: scale 9)", "SELECT sum(n / qty) FROM o"),
    ("numeric / plain numeric (divisor past the bounds)", "SELECT sum(price / n) FROM o"),
    ("sqrt(numeric)", "SELECT sum(sqrt(price)) FROM o"),
)


def timed(run, repeat: int) -> float:
    run()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    cur = txlake.connect(tempfile.mkdtemp(), autocommit=True, publish="off").cursor()
    cur.execute("CREATE TABLE o (id INT, price NUMERIC(12,2), qty INT, w NUMERIC(14,4), n NUMERIC)")
    cur.execute("INSERT INTO o " + LOAD.format(rows=args.rows).replace("range(1, ", "generate_series(1, ")
                .replace(" + 1) t(g)", ") g"))
    duck = duckdb.connect()
    duck.execute("CREATE TABLE o AS " + LOAD.format(rows=args.rows))
    print(f"{'query':55s} {'txlake s':>10s} {'DuckDB s':>10s} {'ratio':>7s}")
    for name, sql in QUERIES:
        ours = timed(lambda: cur.execute(sql).fetchall(), args.repeat)
        theirs = timed(lambda: duck.execute(sql).fetchall(), args.repeat)
        print(f"{name:55s} {ours:10.3f} {theirs:10.3f} {ours / theirs:7.0f}")


if __name__ == "__main__":
    main()
