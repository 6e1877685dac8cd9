"""An untyped string constant as an operand of a binary operator, resolved as PostgreSQL 16's
operator resolution does (typeconv.sgml, "Operators": the unknown is first taken as the other
operand's type, and an operator of two of them chosen if there is one), and PostgreSQL's
square and cube root prefix operators |/ and ||/ (typeconv.sgml's "Square Root Operator Type
Resolution"; float8.out). Each case failed before: 42725 "is not unique", a wrong answer, or a
syntax error."""

import datetime
import decimal

import pytest

import txlake


@pytest.fixture
def conn(connect):
    return connect(autocommit=True)


def value_and_type(conn, sql):
    cursor = conn.execute(sql)
    return cursor.fetchone()[0], cursor.description[0][1]


@pytest.mark.parametrize("sql, value, type_", [
    ("SELECT 1 + '3'", 4, "INTEGER"),
    ("SELECT '3' + 1", 4, "INTEGER"),
    ("SELECT 7 / '2'", 3, "INTEGER"),  # (int4 / int4: integer division)
    ("SELECT 7 % '2'", 1, "INTEGER"),
    ("SELECT 1 + 2 + '3'", 6, "INTEGER"),
    ("SELECT 1.5 + '3'", decimal.Decimal("4.5"), "DECIMAL"),
    ("SELECT 2.0 ^ '2'", decimal.Decimal("4"), "DECIMAL"),
    ("SELECT CAST(2.5 AS DOUBLE PRECISION) + '1'", 3.5, "DOUBLE"),
    # no int4 ^ int4: the candidates left prefer float8, which takes '0.5'
    ("SELECT 2 ^ '0.5'", 2 ** 0.5, "DOUBLE"),
    ("SELECT date '2024-01-31' - '2024-01-01'", 30, None),  # date - date
    ("SELECT timestamp '2024-01-02' - '2024-01-01'", datetime.timedelta(days=1), "INTERVAL"),
    ("SELECT interval '1 day' * '2'", datetime.timedelta(days=2), "INTERVAL"),  # interval * float8
    ("SELECT interval '1 day' / '2'", datetime.timedelta(hours=12), "INTERVAL"),
    ("SELECT ARRAY[1, 2] || '{3,4}'", [1, 2, 3, 4], "INTEGER[]"),  # array || array, not text
    ("SELECT '{1,2}'::int[] || '{3}'", [1, 2, 3], "INTEGER[]"),
    # unchanged: text concatenation, and the operators with no op(T, T) left to the candidates
    ("SELECT 'a' || 1", "a1", "VARCHAR"),
    ("SELECT now() + '1 day' > now()", True, "BOOLEAN"),
    ("SELECT '1 day' + now() > now()", True, "BOOLEAN"),
    # time - time (PostgreSQL's choice: 01:00:00, an interval) is no operator of DuckDB's: the
    # constant stays an interval, whose difference shows the same text
    ("SELECT (time '10:00' - '09:00')::text", "01:00:00", None),
])
def test_unknown_takes_the_other_operand_s_type(conn, sql, value, type_):
    got, got_type = value_and_type(conn, sql)
    assert got == value
    assert type_ is None or got_type == type_


@pytest.mark.parametrize("sql, sqlstate, message", [
    ("SELECT 1 + 'x'", "22P02", 'invalid input syntax for type integer: "x"'),
    ("SELECT 2 = '1.5'", "22P02", 'invalid input syntax for type integer: "1.5"'),  # (was true)
    ("SELECT 1 + '3000000000'", "22003", 'value "3000000000" is out of range for type integer'),
    ("SELECT 1.5 + 'abc'", "22P02", 'invalid input syntax for type numeric: "abc"'),
    # timestamptz - timestamptz and date - date exist: '1 day' is read as one, and is none
    ("SELECT now() - '1 day'", "22007", 'invalid input syntax for type timestamp'),
    ("SELECT date '2024-01-31' - '1 day'", "22007", 'invalid input syntax for type date: "1 day"'),
    # two unknowns: PostgreSQL cannot choose either
    ("SELECT '3' + '4'", "42725", "function +(unknown, unknown) is not unique"),
])
def test_unknown_read_as_the_other_type_or_refused(conn, sql, sqlstate, message):
    with pytest.raises(txlake.Error) as e:
        conn.execute(sql)
    assert e.value.sqlstate == sqlstate
    assert str(e.value).startswith(message)


def test_comparisons_and_columns_keep_working(conn):
    """What DuckDB resolved already, as PostgreSQL does, stays so (these passed before too)."""
    assert conn.execute("SELECT 5 & '3', CAST(1 AS SMALLINT) + '3', 3000000000 + '1'").fetchone() == (1, 4, 3000000001)
    conn.execute("CREATE TABLE t (i INT, ts TIMESTAMPTZ, j JSONB, a INT[])")
    conn.execute("""INSERT INTO t VALUES (5, '2024-01-02 00:00+00', '{"k": 1}', '{1,2}')""")
    assert conn.execute("SELECT i = '5', ts > '2024-01-01', j -> 'k', CAST(1 AS INT) = '1' FROM t"
                        ).fetchone() == (True, True, 1, True)


@pytest.mark.parametrize("sql, value", [
    ("SELECT |/ 16", 4.0),
    ("SELECT ||/ 27", 3.0),  # (DuckDB's cbrt gave 3.0000000000000004)
    ("SELECT ||/ -27", -3.0),
    ("SELECT |/ 40", 6.324555320336759),  # typeconv.sgml
    ("SELECT |/ 16 + 9", 5.0),  # (binds less tightly than +, as PostgreSQL's prefix operators)
    ("SELECT 2 * |/ 16", 8.0),
    ("SELECT |/ 16 = 4", True),
    ("SELECT |/ NULL", None),
])
def test_root_prefix_operators(conn, sql, value):
    cursor = conn.execute(sql)
    assert cursor.fetchone()[0] == value
    if value is not None and not isinstance(value, bool):
        assert cursor.description[0][:2] == ("?column?", "DOUBLE")


def test_cbrt_is_the_nearest_double(conn):
    assert conn.execute("SELECT cbrt(27), cbrt(1000)").fetchone() == (3.0, 10.0)


def test_square_root_of_a_negative_number(conn):
    with pytest.raises(txlake.DataError) as e:
        conn.execute("SELECT |/ -1")
    assert e.value.sqlstate == "2201F"
    assert str(e.value).startswith("cannot take square root of a negative number")
