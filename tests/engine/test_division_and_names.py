"""PostgreSQL's answers where DuckDB's differ: division by zero is an error (22012), and an
unnamed aggregate column is named after its function."""

import pytest

import txlake


@pytest.fixture
def t(connect):
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE t (a INT, b INT, d DOUBLE)")
    conn.execute("INSERT INTO t VALUES (1, 0, 0.0), (4, 2, 2.0)")
    return conn


@pytest.mark.parametrize("sql", ["SELECT 1/0", "SELECT 5 % 0", "SELECT 1.0 / 0", "SELECT 7 // 0",
                                 "SELECT a / b FROM t", "SELECT a % b FROM t", "SELECT d / 0 FROM t",
                                 "SELECT a / ? FROM t"])
def test_division_by_zero_is_22012(t, sql):
    with pytest.raises(txlake.DivisionByZero) as e:
        t.execute(sql, (0,) if "?" in sql else ())
    assert e.value.sqlstate == "22012"


def test_division_by_zero_fails_the_statement_and_the_block(t):
    with pytest.raises(txlake.DivisionByZero):
        t.execute("UPDATE t SET a = a / b")
    assert t.execute("SELECT a FROM t ORDER BY a").fetchall() == [(1,), (4,)]
    t.execute("BEGIN")
    with pytest.raises(txlake.DivisionByZero):
        t.execute("SELECT sum(a / b) FROM t")
    with pytest.raises(txlake.InFailedTransaction):
        t.execute("SELECT 1")
    t.execute("ROLLBACK")


def test_division_otherwise_unchanged_and_columns_named(t):
    cur = t.execute("SELECT a / 2, a % 3, a // 2, a / ? FROM t WHERE b <> 0", (4,))
    assert cur.fetchall() == [(2.0, 1, 2, 1.0)]
    assert [d[0] for d in cur.description] == ["a / 2", "a % 3", "a // 2", "a / ?"]
    cur = t.execute("SELECT count(*), sum(a), max(d), count(b) AS n FROM t")
    assert [d[0] for d in cur.description] == ["count", "sum", "max", "n"]
    assert cur.fetchone()[0] == 2
