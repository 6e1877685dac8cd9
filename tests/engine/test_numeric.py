"""Numeric arithmetic as PostgreSQL 16 computes it (datatype-numeric.html, functions-math.html,
functions-aggregate.html; numeric.c's select_div_scale): a quotient of numerics, or of a numeric
and an integer, is an exact numeric rounded half away from zero at the scale PostgreSQL picks -
DuckDB's was a double (0.3333333333333333); sqrt() and exp() of a numeric are numerics too.
A column holds 20 decimals; a constant expression keeps PostgreSQL's own scale."""

import datetime
import decimal

import pytest

import txlake
from txlake.parser import numeric

D = decimal.Decimal


@pytest.fixture
def conn(connect):
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE n (k INT PRIMARY KEY, a NUMERIC(10,2), b INT, c NUMERIC, e NUMERIC(20,16), "
                 "big NUMERIC(38,0), d DOUBLE PRECISION)")
    conn.execute("INSERT INTO n VALUES (1, 1.50, 3, 7, 3.0000000000000001, 100000000000000000000, 1.5), "
                 "(2, 2.25, 4, 1.1, -3.0000000000000001, 1, 2.5)")
    return conn


def column(conn, sql, params=()):
    return [row[0] for row in conn.execute(sql, params).fetchall()]


@pytest.mark.parametrize("dividend, divisor, quotient", [
    ("1.50", "3", "0.50000000000000000000"), ("2.25", "4", "0.56250000000000000000"),
    ("7", "3", "2.3333333333333333"), ("1.1", "3", "0.36666666666666666667"), ("1", "3", "0.33333333333333333333"),
    ("10", "4", "2.5000000000000000"), ("5.0", "2", "2.5000000000000000"),  # (functions-math.html's example)
    ("3", "3", "1.00000000000000000000"),  # (equal first digits: PostgreSQL assumes the quotient below 1)
    ("-2", "3", "-0.66666666666666666667"), ("1", "30000", "0.000033333333333333333333"),
    ("3.0000000000000001", "2", "1.5000000000000001"), ("-3.0000000000000001", "2", "-1.5000000000000001"),
    ("100000000000000000000", "3", "33333333333333333333")])
def test_select_div_scale_and_rounding(dividend, divisor, quotient):
    """The quotient PostgreSQL gives, digit for digit (its scale: at least 16 significant digits,
    at least either input's scale), rounded half away from zero - not to even."""
    assert str(numeric.divide(D(dividend), D(divisor))) == quotient


def test_a_constant_quotient_is_postgresql_s_numeric_with_its_scale(conn):
    cur = conn.execute("SELECT 1::numeric / 3, 10::numeric / 4, 5.0 / 2, 1 / 3.0, -7 / 2::numeric(3,1), "
                       "(3.0000000000000001 / 2), 7 / 2")
    assert [str(v) for v in cur.fetchone()] == ["0.33333333333333333333", "2.5000000000000000", "2.5000000000000000",
                                                "0.33333333333333333333", "-3.5000000000000000", "1.5000000000000001",
                                                "3"]
    assert [d[1] for d in cur.description] == ["DECIMAL"] * 6 + ["INTEGER"]
    assert [d[0] for d in cur.description] == ["?column?"] * 7


def test_numeric_by_integer_by_numeric_in_columns(conn):
    """Each row's quotient as PostgreSQL's (a column has one scale, 20: the digits past a value's
    own scale are zeros)."""
    cur = conn.execute("SELECT a / b, c / 3, b / a, e / 2, a / 2.5, b / 2 FROM n ORDER BY k")
    assert [d[1] for d in cur.description] == ["DECIMAL"] * 5 + ["INTEGER"]
    assert cur.fetchall() == [
        (D("0.50000000000000000000"), D("2.3333333333333333"), D("2.0000000000000000"), D("1.5000000000000001"),
         D("0.60000000000000000000"), 1),
        (D("0.56250000000000000000"), D("0.36666666666666666667"), D("1.7777777777777778"), D("-1.5000000000000001"),
         D("0.90000000000000000000"), 2)]
    assert column(conn, "SELECT pg_typeof(a / b) FROM n WHERE k = 1") == ["numeric"]
    assert column(conn, "SELECT a / NULL::int FROM n WHERE k = 1") == [None]
    # a double stays a double: PostgreSQL's numeric / double precision is one
    assert column(conn, "SELECT a / d FROM n ORDER BY k") == [1.0, 0.9]
    assert column(conn, "SELECT (a / b) * 4 FROM n ORDER BY k") == [D(2), D("2.25")]


@pytest.mark.parametrize("sql", ["SELECT a / 0 FROM n", "SELECT 1::numeric / 0", "SELECT 1.5 / 0.0",
                                 "SELECT a / (b - b) FROM n", "SELECT b / (a - a) FROM n"])
def test_numeric_division_by_zero_is_22012(conn, sql):
    with pytest.raises(txlake.DivisionByZero) as e:
        conn.execute(sql)
    assert e.value.sqlstate == "22012"


def test_a_quotient_past_what_a_column_holds_is_22003_not_a_rounded_double(conn):
    """A computed numeric holds 18 digits before the point (DECIMAL(38,20)); PostgreSQL's would
    hold more. Past them: 22003, as PostgreSQL's own overflow is, never a double's 3.3e19."""
    with pytest.raises(txlake.DataError) as e:
        conn.execute("SELECT big / 3 FROM n")
    assert e.value.sqlstate == "22003" and "value overflows numeric format" in str(e.value)
    assert column(conn, "SELECT big / 3 FROM n WHERE k = 2") == [D("0.33333333333333333333")]


def test_sqrt_and_exp_of_a_numeric_are_numeric(conn):
    """functions-math.html: sqrt(numeric) and exp(numeric) are numeric (exp(1.0) is
    2.7182818284590452); of an integer, a double (sqrt(2) is 1.4142135623730951)."""
    cur = conn.execute("SELECT sqrt(2::numeric), exp(1.0), sqrt(2), exp(1), sqrt(a), exp(a) FROM n WHERE k = 1")
    row = cur.fetchone()
    assert [str(v) for v in row[:4]] == ["1.414213562373095", "2.7182818284590452", "1.4142135623730951",
                                         "2.718281828459045"]
    assert row[4:] == (D("1.224744871391589"), D("4.4816890703380648"))
    assert [d[1] for d in cur.description] == ["DECIMAL", "DECIMAL", "DOUBLE", "DOUBLE", "DECIMAL", "DECIMAL"]
    with pytest.raises(txlake.DataError) as e:
        conn.execute("SELECT sqrt(-a) FROM n")
    assert e.value.sqlstate == "2201F"


def test_window_sum_of_a_numeric_is_numeric(conn):
    """sum(numeric) OVER (...) was a real (DuckDB took the macro's REAL form for a DECIMAL)."""
    cur = conn.execute("SELECT sum(a) OVER (), sum(a) OVER (ORDER BY k), pg_typeof(sum(a) OVER ()) FROM n ORDER BY k")
    assert cur.fetchall() == [(D("3.75"), D("1.50"), "numeric"), (D("3.75"), D("3.75"), "numeric")]
    assert [d[1] for d in cur.description[:2]] == ["DECIMAL", "DECIMAL"]


def test_format_writes_values_as_postgresql_s_text(conn):
    """format('%s', x) is x::text (a double 1.5, not DuckDB's 1.0 for 1; 1e+15), %L and %I
    quote that text."""
    assert conn.execute("SELECT format('%s|%s|%L|%s|%I', d - 0.5, a, 1e15::float8, ARRAY[1.0::float8, 2], k) "
                        "FROM n WHERE k = 1").fetchall() == [("1|1.50|'1e+15'|{1,2}|\"1\"",)]


def test_a_quotient_of_aggregates_subqueries_and_parameters_is_postgresql_s(conn):
    """Operands a macro cannot be handed twice to pick its form by - an aggregate, a window
    function, a subquery (DuckDB types them too late) or a parameter (bound by its place) - are
    bound once, then divided: sum(a) / count(*) was a double (1.875), an interval's aggregate
    divided was 42883."""
    cur = conn.execute("SELECT sum(a) / count(*), sum(b) / count(*), max(a) / ?, (SELECT max(a) FROM n) / 3 FROM n",
                       (D(2),))
    assert cur.fetchall() == [(D("1.875"), 3, D("1.125"), D("0.75"))]
    assert [d[1] for d in cur.description] == ["DECIMAL", "BIGINT", "DECIMAL", "DECIMAL"]
    assert column(conn, "SELECT sum(a) OVER (ORDER BY k) / ? FROM n ORDER BY k", (3,)) == [
        D("0.50000000000000000000"), D("1.25")]
    assert column(conn, "SELECT k FROM n GROUP BY k HAVING sum(a) / count(*) > 2 ORDER BY k") == [2]
    assert column(conn, "SELECT (max(a) - min(a)) / 2 FROM n") == [D("0.375")]
    conn.execute("CREATE TABLE spans (at TIMESTAMP)")
    conn.execute("INSERT INTO spans VALUES ('2024-01-01'), ('2024-01-04')")
    assert column(conn, "SELECT (max(at) - min(at)) / 2 FROM spans") == [datetime.timedelta(days=1, hours=12)]
    with pytest.raises(txlake.DivisionByZero):
        conn.execute("SELECT sum(a) / count(*) FILTER (WHERE false) FROM n")


@pytest.mark.parametrize("base, exponent, result", [
    ("2", "0.5", "1.4142135623730950"), ("2.0", "3", "8.0000000000000000"), ("9", "3", "729.00000000000000"),
    ("2", "-2", "0.2500000000000000"), ("10", "-3", "0.0010000000000000000"), ("-2", "3", "-8.0000000000000000"),
    ("0", "0", "1.0000000000000000"), ("1.5", "2", "2.2500000000000000")])
def test_power_var_scale_and_value(base, exponent, result):
    """numeric ^ numeric: exact for an integer exponent, at power_var(_int)'s scale (16
    significant digits of the estimated result, at least either input's scale)."""
    assert str(numeric.power(D(base), D(exponent))) == result


def test_ln_log_and_power_of_a_numeric_are_numeric(conn):
    """functions-math.html: ln(2.0) is 0.6931471805599453, a numeric; ln, log and ^ of numerics
    were doubles (2::numeric ^ 0.5 was 1.4142135623730951). Of integers they stay doubles."""
    cur = conn.execute("SELECT ln(2.0), log(100.0), 2::numeric ^ 0.5, power(2.0, 3), ln(2), log(100), 2 ^ 3")
    assert [str(v) for v in cur.fetchone()] == ["0.6931471805599453", "2.0000000000000000", "1.4142135623730950",
                                                "8.0000000000000000", "0.6931471805599453", "2.0", "8.0"]
    assert [d[1] for d in cur.description] == ["DECIMAL"] * 4 + ["DOUBLE"] * 3
    assert conn.execute("SELECT ln(a), log(a), a ^ b, power(a, 0.5) FROM n WHERE k = 1").fetchall() == [
        (D("0.4054651081081644"), D("0.1760912590556812"), D("3.375"), D("1.224744871391589"))]
    for sql, sqlstate in (("SELECT ln(a - a) FROM n", "2201E"), ("SELECT log(-a) FROM n", "2201E"),
                          ("SELECT (-a) ^ 0.5 FROM n", "2201F"), ("SELECT (a - a) ^ (-1) FROM n", "2201F")):
        with pytest.raises(txlake.DataError) as e:
            conn.execute(sql)
        assert e.value.sqlstate == sqlstate


def _values(rng, scale, below, count):
    """``count`` numbers of ``scale`` decimals, each below ``below`` in magnitude: random digit
    counts and signs, and the edge cases - powers of ten, ones, the largest below the bound."""
    top = int(below * 10 ** scale)  # (the integers below it, at that scale)
    edges = {1, 2, 3, top - 1, top // 2, *(10 ** k for k in range(len(str(top))) if 10 ** k < top)}
    randoms = {rng.randrange(10 ** (n - 1), 10 ** n) for n in (rng.randint(1, len(str(top - 1))) for _ in range(count))}
    integers = sorted(i for i in edges | randoms if 0 < i < top)
    return [D(sign * i).scaleb(-scale) for i in integers for sign in (1, -1)]


def test_the_native_quotient_is_parser_numeric_s_exactly():
    """txl_divide computes a numeric's quotient in DuckDB's integers (engine/dialect.py
    ``_integer_quotient``: 15 s a million rows in Python, well under one natively): within its
    bounds - operands' scales to 9, |a| 10^(M+s) below 10^17, |b| 10^t below 10^9 - it is
    parser/numeric.py's, digit for digit, over many generated values of every pair of scales,
    DECIMALs of either width and integers (1000 / 10, 0.0001 / 3, -2 / 3 rounded half away from
    zero, the largest operands the bounds let in)."""
    import random

    import duckdb

    from txlake.engine import dialect
    con = duckdb.connect()
    dialect.postgres_semantics(con)
    rng = random.Random(20261127)
    within, value = dialect._integer_quotient("a", "b")
    checked = 0
    for s in range(10):
        for t in range(10):
            m = max(s, t)
            dividends = _values(rng, s, D(10) ** (17 - m - s), 12)
            divisors = _values(rng, t, D(10) ** (9 - t), 6)
            pairs = [(x, y) for x in dividends for y in rng.sample(divisors, min(len(divisors), 6))]
            for a_type, b_type in ((f"DECIMAL(18,{s})", f"DECIMAL(18,{t})"), (f"DECIMAL(38,{s})", f"DECIMAL(38,{t})"),
                                   *((("BIGINT", f"DECIMAL(18,{t})"),) if s == 0 else ()),
                                   *(((f"DECIMAL(18,{s})", "INTEGER"), (f"DECIMAL(38,{s})", "BIGINT")) if t == 0
                                     else ())):
                rows = con.execute(f"SELECT {within}, {value}, CAST(a AS VARCHAR), CAST(b AS VARCHAR) FROM "
                                   f"(SELECT CAST(x AS {a_type}) AS a, CAST(y AS {b_type}) AS b FROM "
                                   "(SELECT unnest(?) AS x, unnest(?) AS y))",
                                   [[str(x) for x, _ in pairs], [str(y) for _, y in pairs]]).fetchall()
                for taken, quotient, a, b in rows:
                    # (the bound is compared as a double: 10^17 - 1 rounds to it, and is left out)
                    assert taken or abs(D(a)) * 10 ** (m + s) > 10 ** 17 - 100, (a, b)
                    assert quotient == numeric.computed("quotient", D(a), D(b)), (a, b, a_type, b_type)
                checked += len(rows)
    assert checked > 10000


@pytest.mark.parametrize("dividend, divisor", [
    ("1000", "10"), ("0.0001", "3"), ("-1", "3"), ("-2", "3"), ("2", "-3"), ("-2.5", "-7"), ("99999999.99", "3"),
    ("1", "7"), ("0", "5"), ("10000", "10000"), ("9999", "10000"), ("123456789012.3456", "0.03")])
def test_a_quotient_in_columns_is_parser_numeric_s_in_and_past_the_native_bounds(conn, dividend, divisor):
    """Through a session: the same value whether DuckDB's integers compute it or, past their
    bounds (a scale over 9: w), the Python function does."""
    conn.execute("CREATE TABLE q (a NUMERIC(17,4), b NUMERIC(12,2), i INT, w NUMERIC(30,12))")
    conn.execute(f"INSERT INTO q VALUES ({dividend}, {divisor}, {int(D(divisor)) or 1}, {divisor})")
    a, b, i, w = column(conn, "SELECT a FROM q") + column(conn, "SELECT b FROM q") + \
        column(conn, "SELECT i FROM q") + column(conn, "SELECT w FROM q")
    for sql, x, y in (("a / b", a, b), ("a / i", a, D(i)), ("a / w", a, w), ("i / a", D(i), a), ("b / a", b, a)):
        if y:
            assert column(conn, f"SELECT {sql} FROM q") == [numeric.computed("quotient", x, y)], sql


def test_an_integer_times_the_scale_does_not_overflow_its_type(conn):
    """An INT dividend of a NUMERIC(12,2) is taken at scale 2: 100000000 * 100 overflowed INT32."""
    conn.execute("CREATE TABLE q (i INT, a NUMERIC(12,2), s SMALLINT)")
    conn.execute("INSERT INTO q VALUES (100000000, 1.5, 30000), (-2147483648, 0.07, -32768)")
    rows = [(D(100000000), D("1.50"), D(30000)), (D(-2147483648), D("0.07"), D(-32768))]
    assert column(conn, "SELECT i / a FROM q") == [numeric.computed("quotient", i, a) for i, a, _ in rows]
    assert column(conn, "SELECT s / a FROM q") == [numeric.computed("quotient", s, a) for _, a, s in rows]
    assert column(conn, "SELECT a / i FROM q") == [numeric.computed("quotient", a, i) for i, a, _ in rows]
    assert column(conn, "SELECT i / a FROM q")[0] == D("66666666.666666666667")
