"""Numeric arithmetic and aggregates as PostgreSQL 16 computes them (functions-aggregate.html)."""

import decimal

import pytest

D = decimal.Decimal


@pytest.fixture
def conn(connect):
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE n (k INT PRIMARY KEY, a NUMERIC(10,2))")
    conn.execute("INSERT INTO n VALUES (1, 1.50), (2, 2.25)")
    return conn


def test_window_sum_of_a_numeric_is_numeric(conn):
    """sum(numeric) OVER (...) was a real (DuckDB took the macro's REAL form for a DECIMAL)."""
    cur = conn.execute("SELECT sum(a) OVER (), sum(a) OVER (ORDER BY k), pg_typeof(sum(a) OVER ()) FROM n ORDER BY k")
    assert cur.fetchall() == [(D("3.75"), D("1.50"), "numeric"), (D("3.75"), D("3.75"), "numeric")]
    assert [d[1] for d in cur.description[:2]] == ["DECIMAL", "DECIMAL"]
