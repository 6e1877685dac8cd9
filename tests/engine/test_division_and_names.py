"""PostgreSQL's answers where DuckDB's differ: division by zero is an error (22012), integers
divide as integers, NULL sorts as the largest value, and an unnamed aggregate column is named
after its function."""

import decimal

import pytest

import txlake
from txlake import errors


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


@pytest.mark.parametrize("sql", ["SELECT a / b FROM t WHERE b = 0", "SELECT a % b FROM t WHERE b = 0",
                                 "SELECT (a + 1) * 2 / b FROM t WHERE b = 0", "SELECT a / b / b FROM t WHERE b = 0",
                                 "SELECT div(a, b) FROM t WHERE b = 0", "SELECT a / 0 FROM t WHERE b = 0"])
def test_null_divided_by_zero_is_null(t, sql):
    """PostgreSQL's division is strict: a NULL dividend gives NULL before the divisor is looked
    at. The check of the divisor raised 22012 for it."""
    t.execute("UPDATE t SET a = NULL WHERE b = 0")
    assert t.execute(sql).fetchall() == [(None,)]


@pytest.mark.parametrize("sql", ["SELECT abs(a) / b FROM t WHERE b = 0", "SELECT abs(NULL::int) / 0",
                                 "SELECT (SELECT max(a) FROM t WHERE a < 0) / b FROM t WHERE b = 0",
                                 "SELECT coalesce(a, a) % b FROM t WHERE b = 0",
                                 "SELECT nullif(random(), random()) * 0 + a / b FROM t WHERE b = 0"])
def test_null_from_a_call_or_subquery_divided_by_zero_is_null(t, sql):
    """Any dividend, not only one of columns and constants: abs(NULL) / 0 was 22012."""
    t.execute("UPDATE t SET a = NULL WHERE b = 0")
    assert t.execute(sql).fetchall() == [(None,)]


def test_a_volatile_dividend_is_evaluated_once(t):
    """nextval() divided by a column that may be zero: the divisor check looks at the value the
    division divides, not at a second call (which would take a second value)."""
    t.execute("CREATE SEQUENCE s")
    assert t.execute("SELECT nextval('s') / b, nextval('s') % b FROM t WHERE b = 2").fetchall() == [(0, 0)]
    assert t.execute("SELECT currval('s')").fetchone() == (2,)
    with pytest.raises(txlake.DivisionByZero):
        t.execute("SELECT nextval('s') / b FROM t WHERE b = 0")
    assert t.execute("SELECT currval('s')").fetchone() == (3,)
    assert t.execute("SELECT (nextval('s') * 0 + 2) / nullif(b, 0) FROM t ORDER BY b").fetchall() == [(None,), (1,)]
    assert t.execute("SELECT currval('s')").fetchone() == (5,)
    t.execute("UPDATE t SET a = NULL WHERE b = 0")  # (a NULL from a volatile dividend: NULL, one call)
    assert t.execute("SELECT CASE WHEN nextval('s') > 0 THEN a END / b FROM t WHERE b = 0").fetchall() == [(None,)]
    assert t.execute("SELECT currval('s')").fetchone() == (6,)


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
    assert cur.fetchall() == [(2, 1, 2, 1)]
    assert [d[0] for d in cur.description] == ["?column?"] * 4  # (PostgreSQL's name for an operator's)
    cur = t.execute("SELECT count(*), sum(a), max(d), count(b) AS n FROM t")
    assert [d[0] for d in cur.description] == ["count", "sum", "max", "n"]
    assert cur.fetchone()[0] == 2


def test_integers_divide_as_integers_truncated(t):
    """7 / 2 is 3 in PostgreSQL (DuckDB's / gives 3.5); the result is truncated toward zero;
    an operand of another type divides as before; an UPDATE stores the integer quotient."""
    assert t.execute("SELECT 7 / 2, -7 / 2, 7 / -2, a / 3, 7.0 / 2, 7 / 2.0, d / 4, 7::bigint / 2 "
                     "FROM t WHERE a = 4").fetchall() == [(3, -3, -3, 1, 3.5, 3.5, 0.5, 3)]
    assert t.execute("SELECT sum(a) / count(a) FROM t").fetchall() == [(2,)]
    t.execute("UPDATE t SET a = 7 WHERE a = 4")
    t.execute("UPDATE t SET a = a / 2 WHERE a = 7")
    assert t.execute("SELECT a FROM t ORDER BY a").fetchall() == [(1,), (3,)]
    with pytest.raises(txlake.NumericValueOutOfRange) as e:  # the one integer quotient out of range
        t.execute("SELECT (-2147483648)::int / -1")
    assert e.value.sqlstate == "22003"


def test_null_sorts_as_the_largest_value(t):
    """NULLS LAST ascending and NULLS FIRST descending, in ORDER BY and in window orders
    (DuckDB puts NULL last in both)."""
    t.execute("INSERT INTO t VALUES (NULL, 5, 1.0)")
    assert t.execute("SELECT a FROM t ORDER BY a").fetchall() == [(1,), (4,), (None,)]
    assert t.execute("SELECT a FROM t ORDER BY a DESC").fetchall() == [(None,), (4,), (1,)]
    assert t.execute("SELECT a FROM t ORDER BY a DESC NULLS LAST").fetchall() == [(4,), (1,), (None,)]
    assert t.execute("SELECT a, rank() OVER (ORDER BY a DESC) FROM t ORDER BY a NULLS FIRST").fetchall() == [
        (None, 1), (1, 3), (4, 2)]


def test_a_parameter_cast_with_double_colon(t):
    """``?::int`` - the cast PostgreSQL clients write - was a syntax error (sqlglot read
    ``?::`` as one operator)."""
    t.execute("INSERT INTO t VALUES (?::int, ?::int + 1, ?::double)", ("7", 2, "0.5"))
    cur = t.execute("SELECT a, b, d, ?::text FROM t WHERE a = ?::bigint", (9, "7"))
    assert cur.fetchall() == [(7, 3, 0.5, "9")]


def test_like_escapes_with_backslash_by_default(t):
    """PostgreSQL's LIKE takes backslash as its escape unless told otherwise (DuckDB's has none)."""
    t.execute("CREATE TABLE s (id INT, v TEXT)")
    t.execute("INSERT INTO s VALUES (1, 'a_c'), (2, 'abc'), (3, 'a%'), (4, NULL)")
    assert t.execute(r"SELECT id FROM s WHERE v LIKE 'a\_c'").fetchall() == [(1,)]
    assert t.execute(r"SELECT id FROM s WHERE v LIKE ? ORDER BY id", (r"a\%",)).fetchall() == [(3,)]
    assert t.execute(r"SELECT id FROM s WHERE v NOT ILIKE 'A\_C' ORDER BY id").fetchall() == [(2,), (3,)]
    assert t.execute("SELECT id FROM s WHERE v LIKE 'a_c' ORDER BY id").fetchall() == [(1,), (2,)]
    assert t.execute("SELECT id FROM s WHERE v LIKE 'a!_c' ESCAPE '!'").fetchall() == [(1,)]
    cur = t.execute(r"SELECT 'a_c' LIKE 'a\_c', 'abc' LIKE 'a\_c'")
    assert cur.fetchall() == [(True, False)]
    assert [d[0] for d in cur.description] == ["?column?", "?column?"]  # (PostgreSQL's name for an operator's)


def test_format_fills_percent_s(t):
    cur = t.execute("SELECT format('%s-%s', 'a', b), format('[%s]', NULL), upper(format('x%s', 1)) FROM t "
                    "ORDER BY a")
    assert cur.fetchall() == [("a-0", "[]", "X1"), ("a-2", "[]", "X1")]
    assert cur.description[0][0] == "format"


def test_search_path_public_is_the_default_database(t):
    """``public`` - PostgreSQL's default schema, which tools set - is the default database, and
    ``"$user"`` is passed over: setting either used to hide every table (42P01)."""
    t.execute("CREATE TABLE other.u (x INT)")
    for path in ("public", '"$user", public', "'$user', public"):
        t.execute(f"SET search_path = {path}")
        assert t.execute("SELECT count(*) FROM t").fetchall() == [(2,)]
        assert t.execute("SHOW search_path").fetchall() == [(path.replace("'", '"'),)]  # (as PostgreSQL echoes it)
    assert t.execute("SELECT count(*) FROM public.t").fetchall() == [(2,)]
    t.execute("SET search_path = other, public")
    assert t.execute("SELECT count(*) FROM u").fetchall() == [(0,)]
    t.execute("CREATE TABLE public.v (y INT)")
    assert t.execute("SELECT count(*) FROM default.v").fetchall() == [(0,)]


def test_show_search_path_is_postgresql_s_text_of_it(t):
    """SHOW search_path said txlake's databases ("default", "app, default"); PostgreSQL's is
    '"$user", public' until a SET, then the SET's list as PostgreSQL keeps it - names folded to
    lower case, quoted where they need it - and set_config's value as given. A SET rolled back,
    and RESET, give the one before back; current_schema() and current_schemas() follow it."""
    t.execute('CREATE TABLE "My App".k (x INT)')
    assert t.execute("SHOW search_path").fetchall() == [('"$user", public',)]
    assert t.execute("SELECT current_schema(), current_schemas(true)").fetchall() == [
        ("public", ["pg_catalog", "public"])]
    t.execute('SET search_path TO "My App", \'Public\', Other')
    assert t.execute("SHOW search_path").fetchall() == [('"My App", "Public", other',)]
    assert t.execute("SELECT current_schema(), current_schemas(false)").fetchall() == [
        ("My App", ["My App", "Public", "other"])]
    assert t.execute("SELECT count(*) FROM k").fetchall() == [(0,)]
    t.execute("BEGIN")
    t.execute("SET search_path = public")
    assert t.execute("SHOW search_path").fetchall() == [("public",)]
    t.execute("ROLLBACK")
    assert t.execute("SHOW search_path").fetchall() == [('"My App", "Public", other',)]
    t.execute("SELECT pg_catalog.set_config('search_path', '', false)")
    assert t.execute("SHOW search_path").fetchall() == [("",)]
    assert t.execute("SELECT current_schema()").fetchall() == [("public",)]
    t.execute("RESET search_path")
    assert t.execute("SHOW search_path").fetchall() == [('"$user", public',)]
    for wrong in ("SET search_path = a b", "SET search_path = a,", "SET search_path ="):
        with pytest.raises(errors.SyntaxError):
            t.execute(wrong)


def test_a_search_path_of_several_schemas_looks_in_each(t):
    """``SET search_path = app, public``: an unqualified name is the table of the first schema
    listed that holds it, as in PostgreSQL - only the first was looked in, so public's tables
    were 42P01 - and CREATE TABLE makes it in the first. SHOW lists them all."""
    t.execute("CREATE TABLE app.only_app (x INT)")
    t.execute("CREATE TABLE app.t (z TEXT)")
    t.execute("CREATE TABLE pub (k INT PRIMARY KEY, v INT)")
    t.execute("SET search_path = app, public")
    assert t.execute("SHOW search_path").fetchall() == [("app, public",)]
    assert t.execute("SELECT * FROM t").fetchall() == []                   # app's t hides public's
    assert t.execute("SELECT count(*) FROM public.t").fetchall() == [(2,)]
    t.execute("INSERT INTO pub VALUES (1, 1), (2, 2)")
    assert t.execute("UPDATE pub SET v = 10 WHERE k = 1").rowcount == 1
    assert t.execute("DELETE FROM pub WHERE k = 2").rowcount == 1
    t.execute("ALTER TABLE pub ADD COLUMN w INT DEFAULT 5")
    assert t.execute("SELECT p.k, pub.v, p.w FROM pub AS p JOIN pub ON p.k = pub.k").fetchall() == [(1, 10, 5)]
    t.execute("CREATE TABLE made (y INT)")
    assert t.execute("SELECT count(*) FROM app.made").fetchall() == [(0,)]
    t.execute("SET search_path = public")
    assert t.execute("SELECT * FROM pub").fetchall() == [(1, 10, 5)]
    assert t.execute("SELECT count(*) FROM t").fetchall() == [(2,)]
    with pytest.raises(errors.UndefinedTable):
        t.execute("SELECT * FROM only_app")
    t.execute("SET search_path = app, public")
    t.execute("DROP TABLE pub")
    with pytest.raises(errors.UndefinedTable):
        t.execute("SELECT * FROM public.pub")


def test_a_numeric_without_precision_keeps_nine_decimals_and_29_digits(t):
    """NUMERIC / DECIMAL without precision is DECIMAL(38, 9), in a column and in a cast:
    DuckDB's (18, 3) rounded 3.14159 to 3.142 and could not hold 10^20. NUMERIC(5) is
    NUMERIC(5, 0), as in PostgreSQL."""
    import decimal
    t.execute("CREATE TABLE n (a NUMERIC, b DECIMAL, c NUMERIC(5), d NUMERIC(10, 2))")
    t.execute("INSERT INTO n VALUES (3.14159, 123456789012345678901234567.123456789, 12345, 1.234)")
    cur = t.execute("SELECT a, b, c, d, 1.23456::numeric, CAST(? AS DECIMAL) FROM n", ("0.000000001",))
    assert cur.fetchall() == [(decimal.Decimal("3.141590000"), decimal.Decimal("123456789012345678901234567.123456789"),
                               decimal.Decimal("12345"), decimal.Decimal("1.23"), decimal.Decimal("1.234560000"),
                               decimal.Decimal("0.000000001"))]
    assert [(d[4], d[5]) for d in cur.description] == [(38, 9), (38, 9), (5, 0), (10, 2), (38, 9), (38, 9)]


def test_sum_of_integers_is_a_bigint(t):
    """DuckDB sums integers into a HUGEINT, which was fetched as a Decimal (sum(a) + 0.5 then
    failed in Python); PostgreSQL's sum(int) is a bigint, and its sum(bigint) a numeric, which
    holds a sum past a bigint's range."""
    cur = t.execute("SELECT sum(a), sum(b) OVER (), sum(d), count(*) FROM t GROUP BY b, d ORDER BY b LIMIT 1")
    assert [type(v) for v in cur.fetchone()] == [int, int, float, int]
    assert cur.description[0][1] == "BIGINT"
    t.execute("CREATE TABLE sums AS SELECT sum(a) AS s FROM t")  # (a BIGINT column, not DECIMAL(38,0))
    assert t.execute("SELECT s FROM sums").description[0][1] == "BIGINT"
    t.execute("CREATE TABLE big (v BIGINT)")
    t.execute("INSERT INTO big VALUES (9000000000000000000), (9000000000000000000)")
    cur = t.execute("SELECT sum(v) FROM big")
    assert cur.fetchone() == (decimal.Decimal("18000000000000000000"),) and cur.description[0][1] == "DECIMAL"


def test_a_parameter_as_the_dividend_is_bound_once(t):
    """? / b and ? % b were 'the statement has 2 placeholders but 1 parameters were passed': the
    divisor's zero check was handed a copy of the dividend, a second ?."""
    assert t.execute("SELECT ? / a, ? % a, ? / 0.5 FROM t ORDER BY a", (9, 9, 3)).fetchall() == [
        (9, 0, decimal.Decimal(6)), (2, 1, decimal.Decimal(6))]
    with pytest.raises(txlake.DivisionByZero):
        t.execute("SELECT ? / b FROM t", (1,))
