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


def test_format_writes_values_as_postgresql_s_text(conn):
    """format('%s', x) is x::text (a double 1, not DuckDB's 1.0; 1e+15; an array {1,2}); %L and %I
    quote that text."""
    assert conn.execute("SELECT format('%s|%s|%L|%s|%I', a - 0.5::float8, a, 1e15::float8, ARRAY[1.0::float8, 2], k) "
                        "FROM n WHERE k = 1").fetchall() == [("1|1.50|'1e+15'|{1,2}|\"1\"",)]
