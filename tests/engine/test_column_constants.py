"""An untyped string constant beside a column takes the column's type, as PostgreSQL 16's
operator resolution gives it (typeconv.sgml, "Operators", step 2.a) - in a comparison, IN,
BETWEEN and arithmetic, through an alias, a join, a subquery's or CTE's output column, and in
UPDATE / DELETE. Each case failed before (a wrong row, 42725, text concatenation) but those
marked as the guard's. date.out's cases are PostgreSQL's regression outputs; arrays.sgml's
for ``||``."""

import datetime
import decimal

import pytest

import txlake


@pytest.fixture
def conn(connect):
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY, big BIGINT, n NUMERIC, f FLOAT8, s TEXT, d DATE, "
                 "ts TIMESTAMP, b BOOLEAN, j JSONB, a INT[])")
    conn.execute("""INSERT INTO t VALUES
        (1, 10, 1.5, 1.5, 'x', '2024-01-31', '2024-01-31 10:00', true, '{"k": 1}', '{1,2}'),
        (3, 30, 2, 2, 'y', '2024-02-01', '2024-02-01 00:00', false, '[1]', '{3}')""")
    return conn


def refused(conn, sql, sqlstate, message):
    with pytest.raises(txlake.Error) as e:
        conn.execute(sql)
    assert e.value.sqlstate == sqlstate
    assert str(e.value).startswith(message)


@pytest.mark.parametrize("sql", [
    "SELECT id FROM t WHERE id = '2.5'",  # (matched id 3)
    "SELECT id FROM t WHERE '2.5' = id",
    "SELECT id FROM t WHERE id IN ('1', '2.5')",
    "SELECT id FROM t WHERE id < '2.5'",
    "SELECT id FROM t WHERE id BETWEEN '1' AND '2.5'",
    "SELECT x.id FROM t AS x WHERE x.id = '2.5'",
    "SELECT t1.id FROM t t1 JOIN t t2 ON t1.id = t2.id WHERE t2.id = '2.5'",
    "SELECT id FROM (SELECT id FROM t) q WHERE id = '2.5'",
    "WITH c AS (SELECT id AS k FROM t) SELECT k FROM c WHERE k = '2.5'",
    "SELECT id FROM t WHERE id = (SELECT max(id) FROM t WHERE id <> '2.5')",
    "UPDATE t SET s = 'z' WHERE id = '2.5'",
    "DELETE FROM t WHERE id = '2.5'",
])
def test_a_constant_no_integer_beside_an_integer_column_is_refused(conn, sql):
    refused(conn, sql, "22P02", 'invalid input syntax for type integer: "2.5"')
    assert conn.execute("SELECT id, s FROM t ORDER BY id").fetchall() == [(1, "x"), (3, "y")]  # (nothing lost)


@pytest.mark.parametrize("sql, sqlstate, message", [
    ("SELECT id FROM t WHERE big = '1e3'", "22P02", 'invalid input syntax for type bigint: "1e3"'),
    ("SELECT id FROM t WHERE n = 'abc'", "22P02", 'invalid input syntax for type numeric: "abc"'),
    ("SELECT id FROM t WHERE b = 'maybe'", "22P02", 'invalid input syntax for type boolean: "maybe"'),
    # the guard's: DuckDB's reading gave these errors already
    ("SELECT id FROM t WHERE d = '2024-02-30'", "22008", ""),
    ("SELECT id FROM t WHERE id = '3000000000'", "22003", 'value "3000000000" is out of range for type integer'),
    # timestamp - timestamp exists: '1 day' is read as a timestamp, and is none
    ("SELECT ts - '1 day' FROM t", "22007", 'invalid input syntax for type timestamp: "1 day"'),
    # int[] || int[]: '7' is read as an array (arrays.sgml)
    ("SELECT a || '7' FROM t", "22P02", 'malformed array literal: "7"'),
])
def test_a_bad_constant_is_the_column_type_s_error(conn, sql, sqlstate, message):
    refused(conn, sql, sqlstate, message)


def test_constants_compare_as_values_of_the_column_s_type(conn):
    assert conn.execute("SELECT id FROM t WHERE id = ' 3 '").fetchall() == [(3,)]  # (int4in skips blanks)
    assert conn.execute("SELECT id FROM t WHERE id IN ('1', '3') ORDER BY id").fetchall() == [(1,), (3,)]
    assert conn.execute("SELECT id FROM t WHERE n = '1.50'").fetchall() == [(1,)]
    assert conn.execute("SELECT id FROM t WHERE f > '1.75'").fetchall() == [(3,)]
    assert conn.execute("SELECT id FROM t WHERE b = 'yes'").fetchall() == [(1,)]  # (boolin's words)
    assert conn.execute("SELECT id FROM t WHERE b = 'off'").fetchall() == [(3,)]
    assert conn.execute("SELECT id FROM t WHERE a = '{3}'").fetchall() == [(3,)]
    assert conn.execute("UPDATE t SET s = 'z' WHERE id = '3'").rowcount == 1
    assert conn.execute("DELETE FROM t WHERE big BETWEEN '5' AND '15'").rowcount == 1
    assert conn.execute("SELECT id, s FROM t").fetchall() == [(3, "z")]


def value_and_type(conn, sql):
    cursor = conn.execute(sql)
    return cursor.fetchall(), cursor.description[0][1]


@pytest.mark.parametrize("sql, values, type_", [
    ("SELECT id + '3' FROM t ORDER BY id", [(4,), (6,)], "INTEGER"),  # (42725)
    ("SELECT '3' - id FROM t ORDER BY id", [(2,), (0,)], "INTEGER"),
    ("SELECT id * '2', id / '2', id % '2' FROM t ORDER BY id", [(2, 0, 1), (6, 1, 1)], "INTEGER"),
    ("SELECT n + '1.25' FROM t ORDER BY id", [(decimal.Decimal("2.75"),), (decimal.Decimal("3.25"),)], "DECIMAL"),
    ("SELECT f * '2' FROM t ORDER BY id", [(3.0,), (4.0,)], "DOUBLE"),
    ("SELECT d - '2024-01-01' FROM t ORDER BY id", [(30,), (31,)], None),  # date - date: days
    ("SELECT ts - '2024-01-31' FROM t ORDER BY id",
     [(datetime.timedelta(hours=10),), (datetime.timedelta(days=1),)], "INTERVAL"),
    ("SELECT a || '{3}' FROM t ORDER BY id", [([1, 2, 3],), ([3, 3],)], "INTEGER[]"),  # (text '{1,2}{3}')
    ("SELECT '{0}' || a FROM t ORDER BY id", [([0, 1, 2],), ([0, 3],)], "INTEGER[]"),
    # the guard's: what stays as it was
    ("SELECT s || 'x', s = 'x' FROM t ORDER BY id", [("xx", True), ("yx", False)], "VARCHAR"),
    ("SELECT j -> 'k' FROM t ORDER BY id", [(1,), (None,)], None),
    ("SELECT ts > '2024-01-31' FROM t ORDER BY id", [(True,), (True,)], "BOOLEAN"),
])
def test_arithmetic_takes_the_column_s_type(conn, sql, values, type_):
    got, got_type = value_and_type(conn, sql)
    assert got == values
    assert type_ is None or got_type == type_


def test_date_out(connect):
    """PostgreSQL's date.out: a date column compared with quoted constants (the guard's: DuckDB
    read these alike)."""
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE date_tbl (f1 date)")
    for day in ("1957-04-09", "1957-06-13", "1996-02-28", "1996-02-29", "1996-03-01", "1996-03-02", "1997-02-28",
                "1997-03-01", "1997-03-02", "2000-04-01", "2000-04-02", "2000-04-03", "2038-04-08", "2039-04-09",
                "2040-04-10"):
        conn.execute(f"INSERT INTO date_tbl VALUES ('{day}')")
    assert len(conn.execute("SELECT f1 AS \"Nine\" FROM date_tbl WHERE f1 < '2000-01-01'").fetchall()) == 9
    three = conn.execute("SELECT f1 AS \"Three\" FROM date_tbl WHERE f1 BETWEEN '2000-01-01' AND '2001-01-01'")
    assert [r[0].isoformat() for r in three.fetchall()] == ["2000-04-01", "2000-04-02", "2000-04-03"]


def test_a_constant_beside_a_constant_array_or_in_a_list(conn):
    """ARRAY['a'] is a text[]: || reads 'b' as one (it was the text '{a}b'); IN and BETWEEN of
    a number read their constants as its type (2 IN ('1', '2.5') was true)."""
    refused(conn, "SELECT 2 IN ('1', '2.5')", "22P02", 'invalid input syntax for type integer: "2.5"')
    refused(conn, "SELECT 2 BETWEEN '1' AND '2.5'", "22P02", 'invalid input syntax for type integer: "2.5"')
    refused(conn, "SELECT ARRAY['a'] || 'b'", "22P02", 'malformed array literal: "b"')
    assert conn.execute("SELECT ARRAY['a'] || '{b}'").fetchone() == (["a", "b"],)


def test_a_parameter_keeps_its_point_path(conn):
    """A parameter is no untyped constant: its statement is planned as before."""
    assert conn.execute("SELECT s FROM t WHERE id = ?", (3,)).fetchall() == [("y",)]
    assert conn.execute("UPDATE t SET s = ? WHERE id = ?", ("w", 3)).rowcount == 1
    assert conn.execute("SELECT s FROM t WHERE id = '3'").fetchall() == [("w",)]
