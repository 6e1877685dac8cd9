"""to_char() of numbers and to_number(), as PostgreSQL 16's formatting.c writes and reads them
(before, every number pattern was refused with 0A000, and to_number() cast the text to a double,
its pattern dropped). The cases are PostgreSQL's regression tests (src/test/regress/expected
int8.out and numeric.out, their inputs and outputs verbatim: a psql line is a space then the
value, padded on the right) and the examples of its documentation (functions-formatting)."""

import datetime
import decimal

import pytest

import txlake

INT8_TBL = [(123, 456), (123, 4567890123456789), (4567890123456789, 123), (4567890123456789, 4567890123456789),
            (4567890123456789, -4567890123456789)]
NUM_DATA = ["0", "0", "-34338492.215397047", "4.31", "7799461.4119", "16397.038491", "93901.57763026", "-83028485",
            "74881", "-24926804.045047420"]


@pytest.fixture
def conn(connect):
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE int8_tbl (id INT, q1 BIGINT, q2 BIGINT)")
    conn.cursor().executemany("INSERT INTO int8_tbl VALUES (?, ?, ?)", [(i, *r) for i, r in enumerate(INT8_TBL)])
    conn.execute("CREATE TABLE num_data (id INT, val NUMERIC(38,15), f DOUBLE PRECISION, r REAL)")
    conn.cursor().executemany("INSERT INTO num_data VALUES (?, ?, ?, ?)",
                     [(i, decimal.Decimal(v), float(v), float(v)) for i, v in enumerate(NUM_DATA)])
    return conn


def values(conn, sql, params=()):
    return [r[0] for r in conn.execute(sql, params).fetchall()]


def shown(lines: str) -> list[str]:
    """Values from psql's lines (each a space, then the value, padded on the right)."""
    return [line[1:].rstrip() for line in lines.strip("\n").split("\n")]


# int8.out: SELECT to_char(q2, <pattern>) FROM INT8_TBL
INT8_CASES = [
    ("9,999,999,999,999,999", """
                    456
  4,567,890,123,456,789
                    123
  4,567,890,123,456,789
 -4,567,890,123,456,789"""),
    ("9,999,999,999,999,999.999,999", """
                    456.000,000
  4,567,890,123,456,789.000,000
                    123.000,000
  4,567,890,123,456,789.000,000
 -4,567,890,123,456,789.000,000"""),
    ("MI9999999999999999", """
               456
  4567890123456789
               123
  4567890123456789
 -4567890123456789"""),
    ("9999999999999999PL", """
               456+
  4567890123456789+
               123+
  4567890123456789+
 -4567890123456789 """),
    ("FMS9999999999999999", """
 +456
 +4567890123456789
 +123
 +4567890123456789
 -4567890123456789"""),
    ("FM9999999999999999THPR", """
 456TH
 4567890123456789TH
 123RD
 4567890123456789TH
 <4567890123456789>"""),
    ("SG9999999999999999th", """
 +             456th
 +4567890123456789th
 +             123rd
 +4567890123456789th
 -4567890123456789"""),
    ("0999999999999999", """
  0000000000000456
  4567890123456789
  0000000000000123
  4567890123456789
 -4567890123456789"""),
    ("S0999999999999999", """
 +0000000000000456
 +4567890123456789
 +0000000000000123
 +4567890123456789
 -4567890123456789"""),
    ("FM0999999999999999", """
 0000000000000456
 4567890123456789
 0000000000000123
 4567890123456789
 -4567890123456789"""),
    ("FM9999999999999999.000", """
 456.000
 4567890123456789.000
 123.000
 4567890123456789.000
 -4567890123456789.000"""),
    ("L9999999999999999.000", """
                456.000
   4567890123456789.000
                123.000
   4567890123456789.000
  -4567890123456789.000"""),
    ("FM9999999999999999.999", """
 456.
 4567890123456789.
 123.
 4567890123456789.
 -4567890123456789."""),
    ("S 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9 . 9 9 9", """
                            +4 5 6 . 0 0 0
  +4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 . 0 0 0
                            +1 2 3 . 0 0 0
  +4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 . 0 0 0
  -4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 . 0 0 0"""),
    ('99999 "text" 9999 "9999" 999 "\\"text between quote marks\\"" 9999', """
       text      9999     "text between quote marks"   456
  45678 text 9012 9999 345 "text between quote marks" 6789
       text      9999     "text between quote marks"   123
  45678 text 9012 9999 345 "text between quote marks" 6789
 -45678 text 9012 9999 345 "text between quote marks" 6789"""),
    ("999999SG9999999999", """
       +       456
 456789+0123456789
       +       123
 456789+0123456789
 456789-0123456789"""),
    ("FMRN", """
 CDLVI
 ###############
 CXXIII
 ###############
 ###############"""),
]


@pytest.mark.parametrize("pattern, lines", INT8_CASES, ids=[p for p, _ in INT8_CASES])
def test_bigint_column_as_int8_out_writes_it(conn, pattern, lines):
    got = values(conn, "SELECT to_char(q2, ?) FROM int8_tbl ORDER BY id", (pattern,))
    assert [v.rstrip() for v in got] == shown(lines)


def test_int8_out_s_two_column_cases(conn):
    """The first columns (q1, negated) of int8.out's cases: PR's brackets and S after the digits."""
    rows = conn.execute("SELECT to_char(q1, '9G999G999G999G999G999'), to_char(q1 * -1, '9999999999999999PR'), "
                        "to_char(q2 * -1, '9999999999999999.999PR'), to_char(q1 * -1, '9999999999999999S'), "
                        "to_char(q2 * -1, 'S9999999999999999') FROM int8_tbl ORDER BY id").fetchall()
    assert rows[0] == ("                   123", "             <123>", "             <456.000>",
                       "             123-", "             -456")
    assert rows[4] == (" 4,567,890,123,456,789", "<4567890123456789>", " 4567890123456789.000 ",
                       "4567890123456789-", "+4567890123456789")


# numeric.out: SELECT to_char(val, <pattern>) FROM num_data
NUMERIC_CASES = [
    ("9G999G999G999G999G999", """
                      0
                      0
            -34,338,492
                      4
              7,799,461
                 16,397
                 93,902
            -83,028,485
                 74,881
            -24,926,804"""),
    ("9G999G999G999G999G999D999G999G999G999G999", """
                       .000,000,000,000,000
                       .000,000,000,000,000
            -34,338,492.215,397,047,000,000
                      4.310,000,000,000,000
              7,799,461.411,900,000,000,000
                 16,397.038,491,000,000,000
                 93,901.577,630,260,000,000
            -83,028,485.000,000,000,000,000
                 74,881.000,000,000,000,000
            -24,926,804.045,047,420,000,000"""),
    ("9999999999999999.999999999999999PR", """
                  .000000000000000
                  .000000000000000
         <34338492.215397047000000>
                 4.310000000000000
           7799461.411900000000000
             16397.038491000000000
             93901.577630260000000
         <83028485.000000000000000>
             74881.000000000000000
         <24926804.045047420000000>"""),
    ("9999999999999999.999999999999999S", """
                 .000000000000000+
                 .000000000000000+
         34338492.215397047000000-
                4.310000000000000+
          7799461.411900000000000+
            16397.038491000000000+
            93901.577630260000000+
         83028485.000000000000000-
            74881.000000000000000+
         24926804.045047420000000-"""),
    ("MI9999999999999999.999999999999999", """
                  .000000000000000
                  .000000000000000
 -        34338492.215397047000000
                 4.310000000000000
           7799461.411900000000000
             16397.038491000000000
             93901.577630260000000
 -        83028485.000000000000000
             74881.000000000000000
 -        24926804.045047420000000"""),
    ("FMS9999999999999999.999999999999999", """
 +0.
 +0.
 -34338492.215397047
 +4.31
 +7799461.4119
 +16397.038491
 +93901.57763026
 -83028485.
 +74881.
 -24926804.04504742"""),
    ("FM9999999999999999.999999999999999THPR", """
 0.
 0.
 <34338492.215397047>
 4.31
 7799461.4119
 16397.038491
 93901.57763026
 <83028485.>
 74881.
 <24926804.04504742>"""),
    ("SG9999999999999999.999999999999999th", """
 +                .000000000000000
 +                .000000000000000
 -        34338492.215397047000000
 +               4.310000000000000
 +         7799461.411900000000000
 +           16397.038491000000000
 +           93901.577630260000000
 -        83028485.000000000000000
 +           74881.000000000000000
 -        24926804.045047420000000"""),
    ("0999999999999999.999999999999999", """
  0000000000000000.000000000000000
  0000000000000000.000000000000000
 -0000000034338492.215397047000000
  0000000000000004.310000000000000
  0000000007799461.411900000000000
  0000000000016397.038491000000000
  0000000000093901.577630260000000
 -0000000083028485.000000000000000
  0000000000074881.000000000000000
 -0000000024926804.045047420000000"""),
    ("FM0999999999999999.999999999999999", """
 0000000000000000.
 0000000000000000.
 -0000000034338492.215397047
 0000000000000004.31
 0000000007799461.4119
 0000000000016397.038491
 0000000000093901.57763026
 -0000000083028485.
 0000000000074881.
 -0000000024926804.04504742"""),
    ("FM9999999999999999.099999999999999", """
 .0
 .0
 -34338492.215397047
 4.31
 7799461.4119
 16397.038491
 93901.57763026
 -83028485.0
 74881.0
 -24926804.04504742"""),
    ("FM9999999999990999.990999999999999", """
 0000.000
 0000.000
 -34338492.215397047
 0004.310
 7799461.4119
 16397.038491
 93901.57763026
 -83028485.000
 74881.000
 -24926804.04504742"""),
    ("FM0999999999999999.999909999999999", """
 0000000000000000.00000
 0000000000000000.00000
 -0000000034338492.215397047
 0000000000000004.31000
 0000000007799461.41190
 0000000000016397.038491
 0000000000093901.57763026
 -0000000083028485.00000
 0000000000074881.00000
 -0000000024926804.04504742"""),
    ("FM9999999990999999.099999999999999", """
 0000000.0
 0000000.0
 -34338492.215397047
 0000004.31
 7799461.4119
 0016397.038491
 0093901.57763026
 -83028485.0
 0074881.0
 -24926804.04504742"""),
    ("L9999999999999999.099999999999999", """
                   .000000000000000
                   .000000000000000
          -34338492.215397047000000
                  4.310000000000000
            7799461.411900000000000
              16397.038491000000000
              93901.577630260000000
          -83028485.000000000000000
              74881.000000000000000
          -24926804.045047420000000"""),
    ("S 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9 . 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9", """
                                  +. 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
                                  +. 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
                  -3 4 3 3 8 4 9 2 . 2 1 5 3 9 7 0 4 7 0 0 0 0 0 0 0 0
                                +4 . 3 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
                    +7 7 9 9 4 6 1 . 4 1 1 9 0 0 0 0 0 0 0 0 0 0 0 0 0
                        +1 6 3 9 7 . 0 3 8 4 9 1 0 0 0 0 0 0 0 0 0 0 0
                        +9 3 9 0 1 . 5 7 7 6 3 0 2 6 0 0 0 0 0 0 0 0 0
                  -8 3 0 2 8 4 8 5 . 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
                        +7 4 8 8 1 . 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
                  -2 4 9 2 6 8 0 4 . 0 4 5 0 4 7 4 2 0 0 0 0 0 0 0 0 0"""),
    ('99999 "text" 9999 "9999" 999 "\\"text between quote marks\\"" 9999', """
       text      9999     "text between quote marks"     0
       text      9999     "text between quote marks"     0
       text    -3 9999 433 "text between quote marks" 8492
       text      9999     "text between quote marks"     4
       text      9999  779 "text between quote marks" 9461
       text      9999    1 "text between quote marks" 6397
       text      9999    9 "text between quote marks" 3902
       text    -8 9999 302 "text between quote marks" 8485
       text      9999    7 "text between quote marks" 4881
       text    -2 9999 492 "text between quote marks" 6804"""),
    ("999999SG9999999999", """
       +         0
       +         0
       -  34338492
       +         4
       +   7799461
       +     16397
       +     93902
       -  83028485
       +     74881
       -  24926804"""),
    ("9.999EEEE", """
  0.000e+00
  0.000e+00
 -3.434e+07
  4.310e+00
  7.799e+06
  1.640e+04
  9.390e+04
 -8.303e+07
  7.488e+04
 -2.493e+07"""),
]


@pytest.mark.parametrize("pattern, lines", NUMERIC_CASES, ids=[p for p, _ in NUMERIC_CASES])
def test_numeric_column_as_numeric_out_writes_it(conn, pattern, lines):
    got = values(conn, "SELECT to_char(val, ?) FROM num_data ORDER BY id", (pattern,))
    assert [v.rstrip() for v in got] == shown(lines)


@pytest.mark.parametrize("sql, expected", [
    # the documentation's examples (PostgreSQL 16, functions-formatting), in the C locale
    ("to_char(-0.1, '99.99')", "  -.10"), ("to_char(-0.1, 'FM9.99')", "-.1"), ("to_char(-0.1, 'FM90.99')", "-0.1"),
    ("to_char(0.1, '0.9')", " 0.1"), ("to_char(12, '9990999.9')", "    0012.0"),
    ("to_char(12, 'FM9990999.9')", "0012."),
    ("to_char(485, '999')", " 485"), ("to_char(-485, '999')", "-485"), ("to_char(485, '9 9 9')", " 4 8 5"),
    ("to_char(1485, '9,999')", " 1,485"), ("to_char(1485, '9G999')", " 1,485"),
    ("to_char(148.5, '999.999')", " 148.500"), ("to_char(148.5, 'FM999.999')", "148.5"),
    ("to_char(148.5, 'FM999.990')", "148.500"), ("to_char(148.5, '999D999')", " 148.500"),
    ("to_char(-485, '999S')", "485-"), ("to_char(-485, '999MI')", "485-"), ("to_char(485, '999MI')", "485 "),
    ("to_char(485, 'FM999MI')", "485"), ("to_char(485, 'SG999')", "+485"), ("to_char(-485, 'SG999')", "-485"),
    ("to_char(-485, '9SG99')", "4-85"), ("to_char(-485, '999PR')", "<485>"), ("to_char(485, 'L999')", "  485"),
    ("to_char(485, 'RN')", "        CDLXXXV"), ("to_char(485, 'FMRN')", "CDLXXXV"), ("to_char(5.2, 'FMRN')", "V"),
    ("to_char(482, '999th')", " 482nd"), ("to_char(485, '\"Good number:\"999')", "Good number: 485"),
    ("to_char(485.8, '\"Pre:\"999\" Post:\" .999')", "Pre: 485 Post: .800"),
    ("to_char(12, '99V999')", " 12000"), ("to_char(12.4, '99V999')", " 12400"), ("to_char(12.45, '99V9')", " 125"),
    ("to_char(0.0004859, '9.99EEEE')", " 4.86e-04"),
    # int8.out's and numeric.out's constants
    ("to_char(1234, '9.99EEEE')", " 1.23e+03"), ("to_char(1234::int8, '9.99eeee')", " 1.23e+03"),
    ("to_char(-1234::int8, '9.99eeee')", "-1.23e+03"), ("to_char(1234, '99999V99')", "  123400"),
    ("to_char(1234::int8, '99999V99')", "  123400"), ("to_char('100'::numeric, 'FM999.9')", "100."),
    ("to_char('100'::numeric, 'FM999.')", "100"), ("to_char('100'::numeric, 'FM999')", "100"),
    # a value past the digits is # filled; rounding half away from zero (a numeric), as printf (a double)
    ("to_char(12345, '999')", " ###"), ("to_char(123.456, '99.9')", " ##.#"), ("to_char(2.5, '9')", " 3"),
    ("to_char(-2.5, '9')", "-3"), ("to_char(0.125::float8, '9.99')", "  .12"), ("to_char(2.5::float8, '9')", " 2"),
    ("to_char(1.5::real, '9.99')", " 1.50"), ("to_char(4000, 'RN')", "###############"),
    ("to_char(3999, 'rn')", "      mmmcmxcix"), ("to_char(11, '99TH')", " 11TH"), ("to_char(-1, '9th')", "-1"),
    ("to_char(9.9996, '9.99EEEE')", " 10.00e+00"),
    ("to_char(123456789012345678::float8, '999999999999999999.99')", " 123456789012345680"),
    ("to_char(0.1::float8, '9.99999999999999999')", "  .10000000000000"),
    ("to_char(0.1::real, '9.9999999')", "  .10000"),
    ("to_char(5, '')", ""), ("to_char(NULL::numeric, '999')", None), ("to_char(5, NULL)", None),
])
def test_constants_as_postgresql_writes_them(conn, sql, expected):
    assert values(conn, f"SELECT {sql}") == [expected]


def test_doubles_and_reals_keep_their_significant_digits(conn):
    """float8_to_char writes at most 15 significant digits, float4_to_char 6 - printf's rounding
    - and stops at the end of them (a real's -34338492 has no decimals left to write)."""
    assert values(conn, "SELECT to_char(f, 'FM9999999999.999999') FROM num_data ORDER BY id")[2:5] == [
        "-34338492.215397", "4.31", "7799461.4119"]
    assert values(conn, "SELECT to_char(r, '9999999999.999') FROM num_data ORDER BY id")[2:5] == [
        "  -34338492", "          4.310", "    7799462"]  # (7799461.5 as a real: to even)


def test_a_parameter_an_aggregate_and_a_prepared_statement(conn):
    """The value's type picks the formatting when DuckDB binds it: a parameter (an int, a float, a
    Decimal, a date), an aggregate, EXECUTE of a prepared statement; the pattern may be a parameter."""
    assert values(conn, "SELECT to_char(?, '9,999.99')", (1234.5,)) == [" 1,234.50"]
    assert values(conn, "SELECT to_char(?, 'FM9,999.99')", (decimal.Decimal("1234.565"),)) == ["1,234.57"]
    assert values(conn, "SELECT to_char(?, ?)", (42, "FM999th")) == ["42nd"]
    assert values(conn, "SELECT to_char(?, 'YYYY')", (datetime.date(2024, 1, 1),)) == ["2024"]
    assert values(conn, "SELECT to_char(sum(val), 'FM999,999,999.00') FROM num_data") == ["-134,309,135.92"]
    assert values(conn, "SELECT to_char(max(q2), 'FM9G999') FROM int8_tbl WHERE q2 < 1000") == ["456"]
    conn.execute("PREPARE money (numeric) AS SELECT to_char($1, 'FM$999,990.00'), to_number(to_char($1, '999.9'), "
                 "'999.9')")
    assert conn.execute("EXECUTE money(12.25)").fetchall() == [("$12.25", decimal.Decimal("12.3"))]


def test_dates_keep_their_patterns(conn):
    """A date or timestamp is written by its date patterns (parser/date_format.py): digits in
    its pattern are text, as in PostgreSQL's; the pattern may be a parameter."""
    conn.execute("CREATE TABLE tt (ts TIMESTAMP, d DATE)")
    conn.execute("INSERT INTO tt VALUES ('2024-05-07 13:04:01.5', '2024-05-07')")
    assert conn.execute("SELECT to_char(d, 'YYYY-MM-DD'), to_char(ts, '9999.99 HH24') FROM tt").fetchall() == [
        ("2024-05-07", "9999.99 13")]
    assert values(conn, "SELECT to_char(max(d), 'YYYY') FROM tt") == ["2024"]
    assert values(conn, "SELECT to_char(d, ?) FROM tt", ("YYYY",)) == ["2024"]


@pytest.mark.parametrize("pattern, message", [
    ("9.9.9", "multiple decimal points"), ("YYYY-MM-DD", "multiple decimal points"),
    ("99PR9", '"9" must be ahead of "PR"'), ("S9S", 'cannot use "S" twice'),
    ("S9MI", 'cannot use "S" and "MI" together'), ("MIS9", 'cannot use "S" and "PL"/"MI"/"SG"/"PR" together'),
    ("9V9.9", 'cannot use "V" and decimal point together'), ("9.9V9", 'cannot use "V" and decimal point together'),
    ("9.9EEEE9", '"EEEE" must be the last pattern used'), ("FM9.9EEEE", '"EEEE" is incompatible with other formats'),
    ("S9PR", 'cannot use "PR" and "S"/"PL"/"MI"/"SG" together'),
])
def test_a_pattern_postgresql_refuses_is_42601(conn, pattern, message):
    for sql in ("SELECT to_char(5, ?)", "SELECT to_char(q2, ?) FROM int8_tbl", "SELECT to_char(val, ?) FROM num_data"):
        with pytest.raises(txlake.ProgrammingError) as e:
            conn.execute(sql, (pattern,))
        assert e.value.sqlstate == "42601" and str(e.value).startswith(message)


@pytest.mark.parametrize("text, pattern, expected", [
    # numeric.out's TO_NUMBER() cases (lc_numeric C)
    ("-34,338,492", "99G999G999", "-34338492"), ("-34,338,492.654,878", "99G999G999D999G999", "-34338492.654878"),
    ("<564646.654564>", "999999.999999PR", "-564646.654564"), ("0.00001-", "9.999999S", "-0.00001"),
    ("5.01-", "FM9.999999S", "-5.01"), ("5.01-", "FM9.999999MI", "-5.01"),
    ("5 4 4 4 4 8 . 7 8", "9 9 9 9 9 9 . 9 9", "544448.78"), (".01", "FM9.99", "0.01"),
    (".0", "99999999.99999999", "0.0"), ("0", "99.99", "0"), (".-01", "S99.99", "-0.01"),
    (".01-", "99.99S", "-0.01"), (" . 0 1-", " 9 9 . 9 9 S", "-0.01"),
    ("1,234.56", "9,999.99", "1234.56"), ("42nd", "99th", "42"),
])
def test_to_number_reads_as_numeric_out_shows(conn, text, pattern, expected):
    """A constant is read when parsed, at PostgreSQL's scale (the digits read after the point);
    a column's values in a DECIMAL of the pattern's decimals - the same numbers."""
    assert [str(v) for v in values(conn, f"SELECT to_number('{text}', '{pattern}')")] == [expected]
    assert values(conn, f"SELECT to_number(?, '{pattern}')", (text,)) == [decimal.Decimal(expected)]


def test_to_number_errors(conn):
    with pytest.raises(txlake.DataError) as e:
        conn.execute("SELECT to_number('12345', '99.99')")
    assert e.value.sqlstate == "22003" and str(e.value).startswith("numeric field overflow")
    with pytest.raises(txlake.DataError) as e:
        conn.execute("SELECT to_number(?, '999')", ("",))
    assert e.value.sqlstate == "22P02" and str(e.value) == 'invalid input syntax for type numeric: " "'
    with pytest.raises(txlake.NotSupportedError) as e:
        conn.execute("SELECT to_number(?, '9.9EEEE')", ("1.5",))
    assert str(e.value) == '"EEEE" not supported for input'
    assert values(conn, "SELECT to_number(NULL, '999')") == [None]


def test_to_number_of_a_column_with_a_long_pattern_keeps_its_integer_digits(conn):
    """A pattern of 44 decimals made the column a DECIMAL(38,38), holding no integer digit: 22003
    for 1.23456, which the constant form gives."""
    pattern = "9." + "9" * 44
    assert values(conn, f"SELECT to_number(p, '{pattern}') FROM (VALUES ('1.23456')) v(p)") == [
        decimal.Decimal("1.23456")]


def test_a_view_keeps_the_patterns(conn):
    """A view's query is stored as written: to_char and to_number were stored as DuckDB's casts,
    the pattern dropped (a view's to_char(d, 'YYYY') gave the whole date, to_number a double)."""
    conn.execute("CREATE TABLE tt (d DATE, s TEXT)")
    conn.execute("INSERT INTO tt VALUES ('2024-05-07', '1,234.5')")
    conn.execute("CREATE VIEW v AS SELECT to_char(d, 'YYYY') AS y, to_char(q2, 'FM9,999') AS q, "
                 "to_number(s, '9,999.99') AS n FROM tt, int8_tbl WHERE q2 = 456")
    assert conn.execute("SELECT * FROM v").fetchall() == [("2024", "456", decimal.Decimal("1234.5"))]
