"""Statements PostgreSQL 16 answers differently than DuckDB would, found in QA: conditions that
are no boolean, NULL arguments of functions, the types of aggregates, schema-qualified column
references. Each test failed (or was accepted wrongly) before its fix."""

import datetime
import decimal

import pytest

import txlake
from tests.conftest import one


@pytest.fixture
def conn(connect):
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE t (k INT PRIMARY KEY, s SMALLINT, b BIGINT, r REAL, d DOUBLE PRECISION, "
                 "n NUMERIC(10,2), v TEXT, f BOOLEAN, day DATE)")
    conn.execute("INSERT INTO t VALUES (1, 2, 3, 1.5, 2.5, 3.25, 'x', true, '2024-01-01'), "
                 "(2, 3, 4, 1.5, 2.5, 1, 'y', false, '2024-01-02')")
    return conn


@pytest.mark.parametrize("sql, message", [
    ("SELECT 1 WHERE 5", "argument of WHERE must be type boolean, not type integer"),
    ("SELECT k FROM t WHERE k", "argument of WHERE must be type boolean, not type integer"),
    ("SELECT k FROM t WHERE n", "argument of WHERE must be type boolean, not type numeric"),
    ("SELECT k FROM t WHERE v", "argument of WHERE must be type boolean, not type text"),
    ("SELECT k FROM t WHERE day", "argument of WHERE must be type boolean, not type date"),
    ("SELECT k FROM t WHERE (SELECT 1)", "argument of WHERE must be type boolean, not type integer"),
    ("SELECT count(*) FROM t GROUP BY k HAVING count(*)", "argument of HAVING must be type boolean, not type bigint"),
    ("SELECT 1 FROM t JOIN t u ON 1", "argument of JOIN/ON must be type boolean, not type integer"),
    ("SELECT CASE WHEN k THEN 1 END FROM t", "argument of CASE/WHEN must be type boolean, not type integer"),
    ("SELECT count(*) FILTER (WHERE k) FROM t", "argument of FILTER must be type boolean, not type integer"),
    ("SELECT 1 FROM t WHERE f AND k", "argument of AND must be type boolean, not type integer"),
    ("SELECT 1 FROM t WHERE f OR s", "argument of OR must be type boolean, not type smallint"),
    ("SELECT 1 FROM t WHERE NOT r", "argument of NOT must be type boolean, not type real"),
    ("UPDATE t SET v = 'z' WHERE 1", "argument of WHERE must be type boolean, not type integer"),
    ("DELETE FROM t WHERE k", "argument of WHERE must be type boolean, not type integer"),
])
def test_a_condition_that_is_no_boolean_is_refused(conn, sql, message):
    """DuckDB cast the condition to boolean: WHERE 5 was true, DELETE ... WHERE k deleted every
    row. PostgreSQL refuses it (42804) before it runs - also over no rows at all."""
    with pytest.raises(txlake.ProgrammingError) as e:
        conn.execute(sql)
    assert (e.value.sqlstate, str(e.value)) == ("42804", message)
    conn.execute("DELETE FROM t")  # (the same on an empty table)
    with pytest.raises(txlake.ProgrammingError) as e:
        conn.execute(sql)
    assert e.value.sqlstate == "42804"


def test_boolean_conditions_stay_as_they_were(conn):
    assert conn.execute("SELECT k FROM t WHERE f").fetchall() == [(1,)]
    assert conn.execute("SELECT k FROM t WHERE (NOT f) OR NULL ORDER BY k").fetchall() == [(2,)]
    assert conn.execute("SELECT 1 WHERE NULL").fetchall() == []
    assert conn.execute("SELECT 1 WHERE 'true'").fetchall() == [(1,)]  # (an untyped literal: read as boolean)
    assert conn.execute("SELECT k FROM t WHERE ?", (True,)).fetchall() == [(1,), (2,)]
    assert conn.execute("SELECT k FROM t WHERE coalesce(f, ?) ORDER BY k", (False,)).fetchall() == [(1,)]
    assert conn.execute("SELECT CASE k WHEN 1 THEN 'one' END, CASE WHEN f THEN 'yes' ELSE 'no' END FROM t "
                        "ORDER BY k").fetchall() == [("one", "yes"), (None, "no")]
    assert one(conn, "SELECT count(*) FILTER (WHERE f) FROM t GROUP BY true HAVING bool_and(k > 0)") == (1,)
    conn.execute("UPDATE t SET v = 'z' WHERE f")
    assert conn.execute("SELECT k, v FROM t ORDER BY k").fetchall() == [(1, "z"), (2, "y")]


def test_an_untyped_null_takes_the_functions_argument_type(conn):
    """length(NULL) was 42883 (ambiguous: txlake's length of a bytea beside DuckDB's of text
    and bit); PostgreSQL resolves an untyped NULL to text there and returns NULL - an integer,
    as its length() is."""
    assert one(conn, "SELECT length(NULL), char_length(NULL), upper(NULL), lower(NULL), substr(NULL, 1), "
                     "abs(NULL), round(NULL), coalesce(NULL, NULL), concat(NULL), btrim(NULL), md5(NULL)") == (
        None, None, None, None, None, None, None, None, "", None, None)
    assert one(conn, "SELECT length(?), length(?), length(?)", (None, "héllo", b"ab")) == (None, 5, 2)
    assert one(conn, "SELECT length(v), length('\\x616263'::bytea), pg_typeof(length(v)) FROM t WHERE k = 1") == (
        1, 3, "integer")
    assert conn.execute("SELECT length(NULL)").description[0][:2] == ("length", "INTEGER")


def test_a_null_no_candidate_takes_is_not_unique(conn):
    """date_trunc('day', NULL): PostgreSQL cannot choose between its timestamp and interval
    forms either - 42725 'is not unique', not 42883 'does not exist'."""
    with pytest.raises(txlake.ProgrammingError) as e:
        conn.execute("SELECT date_trunc('day', NULL)")
    assert e.value.sqlstate == "42725"
    assert str(e.value).startswith("function date_trunc(unknown, unknown) is not unique")


def test_aggregates_have_postgresql_s_types(conn):
    """DuckDB's sum of any integer was a HUGEINT (pg_typeof: hugeint), its sum of reals and avg
    of integers a double. PostgreSQL: sum(smallint / int) bigint, sum(bigint) numeric, sum(real)
    real, sum(double) double precision, avg(int) numeric, count bigint - in the values fetched
    (cursor.description, Arrow) as in pg_typeof."""
    cur = conn.execute("SELECT sum(s), sum(k), sum(b), sum(r), sum(d), sum(n), avg(k), avg(s), avg(b), avg(d), "
                       "count(*) FROM t")
    assert cur.fetchone() == (5, 3, decimal.Decimal(7), 3.0, 5.0, decimal.Decimal("4.25"), decimal.Decimal("1.5"),
                              decimal.Decimal("2.5"), decimal.Decimal("3.5"), 2.5, 2)
    assert [d[1] for d in cur.description] == ["BIGINT", "BIGINT", "DECIMAL", "REAL", "DOUBLE", "DECIMAL", "DECIMAL",
                                               "DECIMAL", "DECIMAL", "DOUBLE", "BIGINT"]
    assert [str(f.type) for f in conn.execute("SELECT sum(k), sum(b), sum(r), avg(k) FROM t").fetch_arrow_table()
            .schema] == ["int64", "decimal128(38, 0)", "float", "decimal128(38, 20)"]
    assert one(conn, "SELECT pg_typeof(sum(s)), pg_typeof(sum(k)), pg_typeof(sum(b)), pg_typeof(sum(r)), "
                     "pg_typeof(sum(d)), pg_typeof(avg(k)), pg_typeof(avg(r)), pg_typeof(count(*)) FROM t") == (
        "bigint", "bigint", "numeric", "real", "double precision", "numeric", "double precision", "bigint")


def test_avg_of_integers_is_exact(conn):
    """avg(int) is PostgreSQL's numeric quotient of the sum by the count, rounded at its scale
    (16 significant digits), not a double's 2.3333333333333335."""
    conn.execute("CREATE TABLE i (g INT, x INT, y BIGINT)")
    conn.execute("INSERT INTO i VALUES (1, 1, 1), (1, 2, 2), (1, 4, 4), (2, -7, -7), (2, -8, -8), (3, 10000, 0), "
                 "(3, 10001, 0), (3, 10001, 1), (4, 0, 900000000000000000), (4, 1, 900000000000000000), "
                 "(4, 1, 900000000000000001), (5, NULL, NULL)")
    assert conn.execute("SELECT g, avg(x), avg(y) FROM i GROUP BY g ORDER BY g").fetchall() == [
        (1, decimal.Decimal("2.3333333333333333"), decimal.Decimal("2.3333333333333333")),
        (2, decimal.Decimal("-7.5"), decimal.Decimal("-7.5")),
        (3, decimal.Decimal("10000.6666666666666667"), decimal.Decimal("0.33333333333333333333")),
        (4, decimal.Decimal("0.66666666666666666667"), decimal.Decimal("900000000000000000")),
        (5, None, None)]


def test_sum_and_avg_keep_their_types_with_filter_having_and_windows(conn):
    assert conn.execute("SELECT f, sum(k) FILTER (WHERE k > 1), avg(k) FILTER (WHERE k > 0), sum(DISTINCT s) "
                        "FROM t GROUP BY f HAVING sum(b) > 0 ORDER BY f").fetchall() == [
        (False, 2, decimal.Decimal(2), 3), (True, None, decimal.Decimal(1), 2)]
    cur = conn.execute("SELECT k, sum(k) OVER (ORDER BY k), sum(b) OVER (), sum(k) FILTER (WHERE k > 1) OVER () "
                       "FROM t ORDER BY k")
    assert cur.fetchall() == [(1, 1, decimal.Decimal(7), 2), (2, 3, decimal.Decimal(7), 2)]
    assert [d[1] for d in cur.description] == ["INTEGER", "BIGINT", "DECIMAL", "BIGINT"]


def test_avg_of_numerics_and_window_sum_and_avg_have_postgresql_s_types(conn):
    """avg(numeric) was DuckDB's double; as a window function avg(int) was a double and sum(real)
    a double precision. PostgreSQL: avg(numeric) and avg(int) numeric - the same exact quotient as
    the aggregate's - sum(real) real, avg(real) double precision."""
    conn.execute("CREATE TABLE m (g INT, x NUMERIC(10,2), y INT, r REAL)")
    conn.execute("INSERT INTO m VALUES (1, 1.50, 1, 1.5), (1, 2.00, 2, 2.5), (1, 2.00, 2, 3), (2, -31234.50, 7, 1), "
                 "(2, 2.01, NULL, NULL)")
    cur = conn.execute("SELECT g, avg(x), avg(y) FROM m GROUP BY g ORDER BY g")
    assert cur.fetchall() == [(1, decimal.Decimal("1.8333333333333333"), decimal.Decimal("1.6666666666666667")),
                              (2, decimal.Decimal("-15616.245000000000"), decimal.Decimal("7"))]
    assert [d[1] for d in cur.description] == ["INTEGER", "DECIMAL", "DECIMAL"]
    cur = conn.execute("SELECT g, avg(y) OVER w, avg(x) OVER w, sum(r) OVER w, avg(r) OVER w, "
                       "avg(y) FILTER (WHERE y > 1) OVER (PARTITION BY g) FROM m WHERE g = 1 "
                       "WINDOW w AS (PARTITION BY g ORDER BY y, x) ORDER BY y, x")
    assert [d[1] for d in cur.description] == ["INTEGER", "DECIMAL", "DECIMAL", "REAL", "DOUBLE", "DECIMAL"]
    assert cur.fetchall() == [
        (1, decimal.Decimal(1), decimal.Decimal("1.5"), 1.5, 1.5, decimal.Decimal(2)),
        *[(1, decimal.Decimal("1.6666666666666667"), decimal.Decimal("1.8333333333333333"), 7.0, 7 / 3,
           decimal.Decimal(2))] * 2]  # (peers)
    assert one(conn, "SELECT pg_typeof(avg(x)), pg_typeof(sum(r) OVER ()), pg_typeof(avg(y) OVER ()) FROM m "
                     "GROUP BY x, r, y LIMIT 1") == ("numeric", "real", "numeric")
    # (of any scale and width: a NUMERIC is not cast to DuckDB's default DECIMAL(18,3))
    assert one(conn, "SELECT avg(x::numeric(12,5) + 0.00001), avg((x * 10000000000000000)::numeric(30,2)) FROM m "
                     "WHERE g = 1") == (decimal.Decimal("1.8333433333333333"), decimal.Decimal("18333333333333333.33"))


def test_a_column_named_with_its_schema_and_table(conn):
    """other.t.k was 42P01 (txlake names each table it reads anew, so DuckDB found no table
    "other.t"); PostgreSQL resolves schema.table.column to the FROM item schema.table - in the
    select list, WHERE, a correlated subquery, UPDATE's SET and WHERE, DELETE's WHERE."""
    conn.execute("CREATE SCHEMA other")
    conn.execute("CREATE TABLE other.t (k INT PRIMARY KEY, v INT)")
    conn.execute("INSERT INTO other.t VALUES (1, 10), (2, 20)")
    assert conn.execute("SELECT other.t.k, other.t.v FROM other.t WHERE other.t.k = 1").fetchall() == [(1, 10)]
    assert conn.execute("SELECT public.t.k FROM t WHERE EXISTS (SELECT 1 FROM other.t WHERE other.t.k = public.t.k) "
                        "ORDER BY 1").fetchall() == [(1,), (2,)]
    assert conn.execute("SELECT public.t.k FROM public.t WHERE k = 1").fetchall() == [(1,)]
    conn.execute("UPDATE other.t SET v = other.t.v + 1 WHERE other.t.k = 1")
    conn.execute("DELETE FROM other.t WHERE other.t.k = 2")
    assert conn.execute("SELECT * FROM other.t").fetchall() == [(1, 11)]


def test_a_schema_qualified_column_needs_its_from_item(conn):
    """An alias hides the table's name, as in PostgreSQL: 42P01 in PostgreSQL's words."""
    conn.execute("CREATE SCHEMA other")
    conn.execute("CREATE TABLE other.t (k INT)")
    for sql in ("SELECT other.t.k FROM other.t AS x", "SELECT other.t.k FROM public.t", "SELECT x.k FROM t"):
        with pytest.raises(txlake.ProgrammingError) as e:
            conn.execute(sql)
        assert e.value.sqlstate == "42P01" and str(e.value).startswith("missing FROM-clause entry for table")


def test_a_column_named_with_another_schema_than_its_table_s(conn):
    """``SELECT other.t.k FROM t`` read public.t's column (any schema was taken for an unqualified
    FROM item); PostgreSQL matches other.t against the relation t names - public.t here - and
    refuses it: 42P01 'invalid reference to FROM-clause entry for table "t"'. In a query, a
    point lookup, a subquery, UPDATE and DELETE; with t found in other by the search path, it
    is the one."""
    conn.execute("CREATE SCHEMA other")
    conn.execute("CREATE TABLE other.t (k INT PRIMARY KEY, v INT)")
    conn.execute("INSERT INTO other.t VALUES (7, 70)")
    for sql in ("SELECT other.t.k FROM t", "SELECT nosuch.t.k FROM t", "SELECT other.t.k FROM t WHERE k = 1",
                "SELECT 1 FROM t u WHERE EXISTS (SELECT 1 FROM t WHERE other.t.k = u.k)",
                "UPDATE t SET v = 'z' WHERE other.t.k = 1", "DELETE FROM t WHERE other.t.k = 1"):
        with pytest.raises(txlake.ProgrammingError) as e:
            conn.execute(sql)
        assert e.value.sqlstate == "42P01"
        assert str(e.value).startswith('invalid reference to FROM-clause entry for table "t"')
    assert conn.execute("SELECT count(*) FROM t").fetchone() == (2,)  # (nothing deleted)
    assert conn.execute("SELECT public.t.k FROM t WHERE k = 1").fetchall() == [(1,)]
    conn.execute("SET search_path = other, public")
    assert conn.execute("SELECT other.t.k, other.t.v FROM t").fetchall() == [(7, 70)]
    conn.execute("UPDATE t SET v = other.t.v + 1 WHERE other.t.k = 7")
    assert conn.execute("SELECT v FROM other.t").fetchall() == [(71,)]


def test_text_is_read_as_boolean_as_postgresql_reads_it(conn):
    """'on', 'off' and ' true ' were 22P02 (DuckDB's words only); PostgreSQL's boolin takes
    true/false, yes/no, on/off, 1/0 and their prefixes, in any case, spaces around."""
    assert one(conn, "SELECT 'on'::boolean, 'OFF'::boolean, ' True '::boolean, 'y'::boolean, 'fal'::boolean, "
                     "1::boolean, NULL::boolean") == (True, False, True, True, False, True, None)
    conn.execute("CREATE TABLE words (s TEXT)")
    conn.execute("INSERT INTO words VALUES ('on'), ('No'), (NULL)")
    assert conn.execute("SELECT s::boolean FROM words").fetchall() == [(True,), (False,), (None,)]
    for sql in ("SELECT 'o'::boolean", "SELECT 'maybe'::boolean"):
        with pytest.raises(txlake.DataError) as e:
            conn.execute(sql)
        assert e.value.sqlstate == "22P02" and str(e.value).startswith("invalid input syntax for type boolean")
    conn.execute("INSERT INTO words VALUES ('x')")
    with pytest.raises(txlake.DataError) as e:
        conn.execute("SELECT s::boolean FROM words")
    assert (e.value.sqlstate, str(e.value)) == ("22P02", 'invalid input syntax for type boolean: "x"')
    conn.execute("INSERT INTO t (k, f) VALUES (3, 'on'), (4, 'off')")  # (an assignment reads it so too)
    conn.execute("UPDATE t SET f = 'yes' WHERE k = 4")
    assert conn.execute("SELECT f FROM t WHERE k > 2 ORDER BY k").fetchall() == [(True,), (True,)]


def test_an_explicit_cast_to_varchar_n_cuts_the_value(conn):
    """PostgreSQL: an explicit cast to varchar(n) or char(n) cuts a longer value to n characters
    (DuckDB ignored n: 'abc'::varchar(2) was 'abc'); storing one in such a column is 22001."""
    assert one(conn, "SELECT 'abc'::varchar(2), CAST('abc' AS char(2)), 12345::varchar(3), 'ab'::varchar(5), "
                     "'abc'::varchar") == ("ab", "ab", "123", "ab", "abc")
    conn.execute("CREATE TABLE short (s VARCHAR(2))")
    with pytest.raises(txlake.DataError) as e:
        conn.execute("INSERT INTO short VALUES ('abc')")
    assert e.value.sqlstate == "22001"


def test_columns_named_as_postgresql_names_them(conn):
    cur = conn.execute("SELECT mod(7, 3), 7 % 3, string_agg(v, ',') FROM t")
    assert [d[0] for d in cur.description] == ["mod", "?column?", "string_agg"]


@pytest.mark.parametrize("sql, message", [
    ("SELECT 1, 2 UNION SELECT 1", "each UNION query must have the same number of columns"),
    ("SELECT (SELECT 1, 2)", "subquery must return only one column"),
])
def test_set_operation_and_subquery_widths_are_syntax_errors(conn, sql, message):
    with pytest.raises(txlake.ProgrammingError) as e:
        conn.execute(sql)
    assert (e.value.sqlstate, str(e.value)) == ("42601", message)


def test_like_any_and_all_of_an_array(conn):
    """x LIKE ANY (ARRAY[...]) was 42883 (DuckDB has no LIKE ANY); PostgreSQL's is true if the
    value matches any pattern (ALL: every one), NULL where a NULL pattern leaves it open."""
    conn.execute("CREATE TABLE words (k INT, w TEXT)")
    conn.execute("INSERT INTO words VALUES (1, 'a1'), (2, 'b_3'), (3, 'bx3'), (4, NULL)")
    assert conn.execute("SELECT k FROM words WHERE w LIKE ANY (ARRAY['a%', 'b\\_%']) ORDER BY k").fetchall() == [
        (1,), (2,)]
    assert conn.execute("SELECT k FROM words WHERE w NOT LIKE ALL (ARRAY['a%', 'zz']) ORDER BY k").fetchall() == [
        (2,), (3,)]
    assert conn.execute("SELECT k, w ILIKE ANY (ARRAY['A1', NULL]) FROM words ORDER BY k").fetchall() == [
        (1, True), (2, None), (3, None), (4, None)]
    # an array known at run time - a parameter (a list or an array's text), a NULL, an empty
    # one - as PostgreSQL's: it was false (the text compared as one pattern), 42883 for a list
    for patterns in (["a%", "b\\_%"], "{a%,b\\\\_%}"):
        assert conn.execute("SELECT k, w LIKE ANY (?) FROM words ORDER BY k", (patterns,)).fetchall() == [
            (1, True), (2, True), (3, False), (4, None)], patterns
    assert conn.execute("SELECT k, w NOT LIKE ALL (?), w LIKE ALL (?) FROM words ORDER BY k",
                        (["a%", "zz"], ["b%", "%3"])).fetchall() == [
        (1, False, False), (2, True, True), (3, True, True), (4, None, None)]
    assert conn.execute("SELECT w LIKE ANY ('{}'), w LIKE ALL ('{}'), w LIKE ANY (?) FROM words WHERE k = 4",
                        (None,)).fetchone() == (False, True, None)


def test_exists_of_a_select_without_columns(conn):
    """EXISTS (SELECT FROM t WHERE ...), PostgreSQL's idiom, was 42601 (DuckDB takes no empty
    select list)."""
    assert conn.execute("SELECT k FROM t WHERE NOT EXISTS (SELECT FROM t u WHERE u.k = t.k + 1)").fetchall() == [(2,)]


def test_quote_nullable(conn):
    assert one(conn, "SELECT quote_nullable(NULL), quote_nullable('it''s'), quote_nullable(42)") == (
        "NULL", "'it''s'", "'42'")


def test_split_part_as_postgresql_s(conn):
    """Field 0 was '' (PostgreSQL: 22023), and an empty delimiter split every character (split_part('a,b',
    '', 1) was 'a'; PostgreSQL's is the whole string)."""
    assert one(conn, "SELECT split_part('a,b,c', ',', 2), split_part('a,b,c', ',', -1), split_part('a,b', ',', 5), "
                     "split_part('a,b', '', 1), split_part('a,b', '', 2)") == ("b", "c", "", "a,b", "")
    with pytest.raises(txlake.DataError) as e:
        conn.execute("SELECT split_part('a,b', ',', 0)")
    assert (e.value.sqlstate, str(e.value)) == ("22023", "field position must not be zero")


def test_copy_where_must_be_a_boolean(conn, tmp_path):
    data = tmp_path / "rows.txt"
    data.write_text("5\t1\n6\t2\n")
    with pytest.raises(txlake.ProgrammingError) as e:
        conn.execute(f"COPY t (k, s) FROM '{data}' WHERE s")
    assert (e.value.sqlstate, str(e.value)) == ("42804", "argument of WHERE must be type boolean, not type smallint")
    conn.execute(f"COPY t (k, s) FROM '{data}' WHERE s > 1")
    assert conn.execute("SELECT k FROM t WHERE k > 2").fetchall() == [(6,)]


def test_an_interval_divides(conn):
    """INTERVAL '3 days' / 2 was 42883 '//(interval, integer)': integer division made DuckDB's /
    its //, which has no interval form. Numbers still divide as PostgreSQL's do."""
    conn.execute("CREATE TABLE spans (a TIMESTAMP, b TIMESTAMP)")
    conn.execute("INSERT INTO spans VALUES ('2024-01-01', '2024-01-04')")
    assert one(conn, "SELECT INTERVAL '3 days' / 2, (b - a) / 3, (b - a) / 0.5 FROM spans") == (
        datetime.timedelta(days=1, hours=12), datetime.timedelta(days=1), datetime.timedelta(days=6))
    assert one(conn, "SELECT k / 2, -7 / 2, d / 2, s / k FROM t WHERE k = 1") == (0, -3, 1.25, 2)
    with pytest.raises(txlake.DataError) as e:
        conn.execute("SELECT (b - a) / 0 FROM spans")
    assert e.value.sqlstate == "22012"


def test_typed_rewrites_take_aggregates_and_subqueries_as_arguments(conn):
    """The macros that give sum(), length(), a cast to boolean and / PostgreSQL's forms pick
    their form by their argument's type, which DuckDB does not know yet for an aggregate, a
    window function or a subquery ('multiple overloads match'): such calls stay DuckDB's."""
    conn.execute("CREATE TABLE blobs (y BYTEA)")
    conn.execute("INSERT INTO blobs VALUES ('\\x616263')")
    assert conn.execute("SELECT f, sum(count(*)) OVER (), sum(sum(r)) OVER () FROM t GROUP BY f "
                        "ORDER BY f").fetchall() == [(False, 2, 3.0), (True, 2, 3.0)]
    assert one(conn, "SELECT length(max(v)), length((SELECT max(v) FROM t)), length(string_agg(v, '')), "
                     "sum(k) / (count(*) + 1), max(v)::boolean IS NULL FROM t WHERE k < 0") == (
        None, 1, None, None, True)
    assert one(conn, "SELECT length(max(y)) FROM blobs") == (3,)
    # (an output column's alias in ORDER BY, DuckDB's: stays DuckDB's too)
    assert conn.execute("SELECT v, sum(k) AS total FROM t GROUP BY v ORDER BY total / 2, length(v)").fetchall() == [
        ("x", 1), ("y", 2)]


@pytest.mark.parametrize("sql, message", [
    ("SELECT 1e308::float8 * 10", "value out of range: overflow"),
    ("SELECT 1e-308::float8 * 1e-308", "value out of range: underflow"),
    ("SELECT d * 1e308::float8 FROM t", "value out of range: overflow"),
    ("SELECT x - -x FROM (VALUES (1.7e308::float8)) v(x)", "value out of range: overflow"),
    ("SELECT k FROM t WHERE r * 3e38::real > 0", "value out of range: overflow"),
    ("SELECT x * x FROM (VALUES (1e-200::float8)) v(x)", "value out of range: underflow"),
])
def test_float_overflow_and_underflow_are_22003(conn, sql, message):
    """PostgreSQL's float8 / float4 arithmetic refuses a result that overflows to infinity from
    finite operands (or, a product, underflows to 0 from non-zero ones): 22003. DuckDB gave
    inf and 0."""
    with pytest.raises(txlake.DataError) as e:
        conn.execute(sql)
    assert e.value.sqlstate == "22003"
    assert str(e.value).startswith(message)


def test_float_arithmetic_of_infinities_and_zeros_stays(conn):
    """An infinite operand gives infinity, a zero one zero, without an error; other types are
    untouched by the check."""
    assert one(conn, "SELECT 'infinity'::float8 * 2, 0::float8 * 1e-308, 'infinity'::float8 + 1, "
                     "1e38::real + 1e38::real, NULL::float8 * 1, d * 2, n * 2, k + 1, d * ? FROM t WHERE k = 1",
               (2.0,)) == (float("inf"), 0.0, float("inf"), 2e38, None, 5.0, decimal.Decimal("6.50"), 2, 5.0)
    assert conn.execute("SELECT n * 2, r * r FROM t").description[0][1:2] + \
        conn.execute("SELECT r * r FROM t").description[0][1:2] == ("DECIMAL", "REAL")


@pytest.mark.parametrize("sql, rows, type_code", [
    ("SELECT 1 UNION SELECT '2' ORDER BY 1", [(1,), (2,)], "INTEGER"),
    ("SELECT 1 AS x UNION ALL (SELECT 2.5 UNION ALL SELECT '3.125') ORDER BY 1",
     [(decimal.Decimal(1),), (decimal.Decimal("2.5"),), (decimal.Decimal("3.125"),)], "DECIMAL"),
    ("SELECT true INTERSECT SELECT 'on'", [(True,)], "BOOLEAN"),
    ("SELECT DATE '2024-01-02' EXCEPT SELECT '2024-01-01'", [(datetime.date(2024, 1, 2),)], "DATE"),
    ("VALUES (1), ('2')", [(1,), (2,)], "INTEGER"),
    ("SELECT x FROM (VALUES (1.5), ('2.25')) v(x) ORDER BY x", [(decimal.Decimal("1.5"),),
                                                                (decimal.Decimal("2.25"),)], "DECIMAL"),
    ("SELECT CASE WHEN k = 1 THEN 1 ELSE '2' END FROM t ORDER BY k", [(1,), (2,)], "INTEGER"),
    ("SELECT 'a' UNION SELECT 'b' ORDER BY 1", [("a",), ("b",)], "VARCHAR"),
])
def test_a_string_constant_takes_the_type_of_its_column(conn, sql, rows, type_code):
    """PostgreSQL resolves an unknown-typed string constant to the type of the other values of
    its column - in a set operation, a VALUES list, a CASE. DuckDB made the UNION text, rounded
    '2.25' to the other row's DECIMAL(2,1)."""
    cur = conn.execute(sql)
    assert cur.fetchall() == rows
    assert cur.description[0][1] == type_code


@pytest.mark.parametrize("sql, sqlstate, message", [
    ("SELECT 1 UNION SELECT 'a'", "22P02", 'invalid input syntax for type integer: "a"'),
    ("VALUES (1), ('a')", "22P02", 'invalid input syntax for type integer: "a"'),
    ("SELECT CASE WHEN k = 1 THEN 1 ELSE 'a' END FROM t", "22P02", 'invalid input syntax for type integer: "a"'),
    ("SELECT 1.5 UNION SELECT 'x'", "22P02", 'invalid input syntax for type numeric: "x"'),
    ("SELECT 1 UNION SELECT '3000000000'", "22003", 'value "3000000000" is out of range for type integer'),
])
def test_a_string_constant_that_is_no_value_of_its_column_s_type(conn, sql, sqlstate, message):
    """... and fails where the constant is no value of that type (DuckDB gave text, or - in a
    CASE - cast 'a' only on the rows reaching it)."""
    with pytest.raises(txlake.DataError) as e:
        conn.execute(sql)
    assert (e.value.sqlstate, str(e.value).splitlines()[0]) == (sqlstate, message)


def test_an_integer_constant_past_bigint_is_a_numeric(conn):
    """PostgreSQL's lexer makes an integer constant past a bigint's range a numeric; DuckDB's
    HUGEINT was fetched as 22003 'bigint out of range'. Cast to an integer type it is 22003 in
    PostgreSQL's words (a numeric too large for an integer was 22P02 'Failed to cast decimal')."""
    cur = conn.execute("SELECT 9223372036854775808, -9223372036854775809, 92233720368547758080 * 2, "
                       "9223372036854775807, pg_typeof(9223372036854775808)")
    assert cur.fetchone() == (decimal.Decimal("9223372036854775808"), decimal.Decimal("-9223372036854775809"),
                              decimal.Decimal("184467440737095516160"), 9223372036854775807, "numeric")
    assert [d[1] for d in cur.description][:4] == ["DECIMAL", "DECIMAL", "DECIMAL", "BIGINT"]
    for sql, message in [("SELECT 9223372036854775808::bigint", "bigint out of range"),
                         ("SELECT 12345678901.5::int", "integer out of range"),
                         ("SELECT 40000::numeric::smallint", "smallint out of range")]:
        with pytest.raises(txlake.DataError) as e:
            conn.execute(sql)
        assert (e.value.sqlstate, str(e.value)) == ("22003", message)


@pytest.mark.parametrize("expression, text", [
    # a double by its shortest digits, in exponent form from 10^15 on (DuckDB's from 10^16), 1 not 1.0
    ("1.0::float8", "1"), ("-0.0::float8", "-0"), ("0.1::float8", "0.1"), ("1e15::float8", "1e+15"),
    ("1234567890123456.0::float8", "1.234567890123456e+15"), ("-1e15::float8", "-1e+15"),
    ("1e16::float8", "1e+16"), ("0.00001::float8", "1e-05"), ("'NaN'::float8", "NaN"),
    ("'-Infinity'::float8", "-Infinity"),
    # a real: in exponent form from 10^6 on
    ("123456::real", "123456"), ("1000000::real", "1e+06"), ("1234567.89::real", "1.2345679e+06"),
    ("'\\x0102'::bytea", "\\x0102"),
    ("interval '1 month 3 days'", "1 mon 3 days"), ("interval '14 months'", "1 year 2 mons"),
    ("ARRAY[1, NULL, 3]", "{1,NULL,3}"), ("ARRAY[1.5::float8, 1e15]", "{1.5,1e+15}"),
    ("ARRAY['a b', NULL, 'c\"d', '', 'null', 'x\\y', '{']", '{"a b",NULL,"c\\"d","","null","x\\\\y","{"}'),
    ("ARRAY[true, false, NULL]", "{t,f,NULL}"), ("'{}'::int[]", "{}"), ("ARRAY['\\x01'::bytea]", '{"\\\\x01"}'),
    ("ARRAY[timestamptz '2024-01-01 00:00:00+00']", '{"2024-01-01 00:00:00+00"}'),
    ("true", "true"), ("7", "7"), ("12345678901234567::bigint", "12345678901234567"), ("'abc'", "abc"),
])
def test_text_of_a_value_is_postgresql_s(conn, expression, text):
    """``x::text`` is PostgreSQL's output of x, as psql and COPY TO show it (DuckDB wrote 1.0,
    1000000000000000.0, \\x01\\x02, 1 month, [1, NULL, 3])."""
    assert one(conn, f"SELECT ({expression})::text, CAST({expression} AS VARCHAR)") == (text, text)


def test_text_of_columns_and_of_nothing(conn):
    conn.execute("CREATE TABLE arr (k INT PRIMARY KEY, a INT[], d FLOAT8)")
    conn.execute("INSERT INTO arr VALUES (1, '{1,2}', 100), (2, NULL, NULL)")
    assert conn.execute("SELECT 'a: ' || a::text, d::text, d::varchar(2) FROM arr ORDER BY k").fetchall() == \
        [("a: {1,2}", "100", "10"), (None, None, None)]
    assert conn.execute("SELECT k FROM arr WHERE d::text = '100'").fetchall() == [(1,)]
    assert one(conn, "SELECT ?::text", (1.5,)) == ("1.5",)
    conn.execute("CREATE SEQUENCE s")
    assert one(conn, "SELECT nextval('s')::text, currval('s')") == ("1", 1)  # (evaluated once)


def test_text_joined_by_concatenation_is_postgresql_s(conn):
    """``'v=' || x``, ``concat()`` and ``concat_ws()`` join PostgreSQL's text of a non-text value,
    as ``x::text`` gives it (DuckDB's: v=2.5 but v=1.0, 1000000000000000.0, [1, 2])."""
    conn.execute("CREATE TABLE cc (k INT PRIMARY KEY, d FLOAT8, a INT[])")
    conn.execute("INSERT INTO cc VALUES (1, 1, '{1,2}'), (2, 1e15, NULL)")
    assert conn.execute("SELECT 'v=' || d, d || 'x', 'a' || 'b' || d || 'c', concat(d, ':', a), "
                        "concat_ws(',', d, k, a) FROM cc ORDER BY k").fetchall() == \
        [("v=1", "1x", "ab1c", "1:{1,2}", "1,1,{1,2}"), ("v=1e+15", "1e+15x", "ab1e+15c", "1e+15:", "1e+15,2")]
    assert one(conn, "SELECT 'x' || ?, concat(?, 'y'), ARRAY[1] || 2, 'x' || NULL", ("a", "b")) == \
        ("xa", "by", [1, 2], None)


def test_function_style_casts(conn):
    """``text(x)``, ``int4('5')``...: PostgreSQL's function-style casts (text(x) was XX000, DuckDB
    trying to install an extension for its own text(); int4 was 42883)."""
    assert one(conn, "SELECT text(1.5::float8), text(d), int4('5'), int8(3.7), float8('1.5'), bool('yes'), "
                     "int2(s) FROM t WHERE k = 1") == ("1.5", "2.5", 5, 4, 1.5, True, 2)
    with pytest.raises(txlake.DataError) as info:
        conn.execute("SELECT int2('x')")
    assert info.value.sqlstate == "22P02"


def test_integer_literals_in_other_bases(conn):
    """PostgreSQL 16's hexadecimal, octal and binary integer literals, with ``_`` between digits:
    ``SELECT 0x1F`` gave 0 (read as ``0 AS x1F``)."""
    assert one(conn, "SELECT 0x1F, 0o17, 0b101, 0x1F_FF, 0XFF, -0x10, 0b_1, 1_000") == (
        31, 15, 5, 8191, 255, -16, 1, 1000)
    assert one(conn, "SELECT pg_typeof(0x7FFFFFFF), pg_typeof(0x80000000), pg_typeof(0x8000000000000000)") == (
        "integer", "bigint", "numeric")
    conn.execute("INSERT INTO t (k, b) VALUES (0x10, 0o777)")
    assert one(conn, "SELECT b FROM t WHERE k = 0b10000") == (511,)


@pytest.mark.parametrize("sql, params, message", [
    ("SELECT '3000000000'::int", (), 'value "3000000000" is out of range for type integer'),
    ("SELECT ?::int", ("0x80000000",), 'value "2147483648" is out of range for type integer'),
    ("SELECT ?::bigint", (" 9223372036854775808 ",), 'value "9223372036854775808" is out of range for type bigint'),
    ("SELECT v::smallint FROM t WHERE k = 1", (), None),
])
def test_integer_text_out_of_range_in_postgresqls_words(conn, sql, params, message):
    """Text past an integer type's range is 22003 as PostgreSQL's input functions word it; DuckDB's
    was 'Could not convert string '3000000000' to INT32'."""
    if message is None:  # (a text column's 'x' is no number at all: 22P02)
        conn.execute("UPDATE t SET v = '40000' WHERE k = 1")
        message = 'value "40000" is out of range for type smallint'
    with pytest.raises(txlake.DataError) as e:
        conn.execute(sql, params)
    assert (e.value.sqlstate, str(e.value)) == ("22003", message)


@pytest.mark.parametrize("sql, message", [
    ("SELECT 2147483647 + 1", "integer out of range"),
    ("SELECT -2147483648 - 1", "integer out of range"),
    ("SELECT 9223372036854775807::bigint * 2", "bigint out of range"),
    ("SELECT 3000000000::int", "integer out of range"),
    ("SELECT 32767::smallint + 1::smallint", "smallint out of range"),
    ("SELECT (-2147483648)::int / -1", "integer out of range"),
    ("SELECT (-9223372036854775808)::bigint / -1", "bigint out of range"),
    ("UPDATE t SET b = b * 9223372036854775807 WHERE k = 1", "bigint out of range"),
    ("SELECT k * 2147483647 * 2 FROM t", "integer out of range"),
])
def test_integer_overflow_in_postgresqls_words(conn, sql, message):
    """22003 with PostgreSQL's message; DuckDB's was 'Overflow in addition of INT32 (2147483647 + 1)!'."""
    with pytest.raises(txlake.DataError) as e:
        conn.execute(sql)
    assert (e.value.sqlstate, str(e.value)) == ("22003", message)


def test_text_splitting_set_returning_functions_in_from(conn):
    """regexp_split_to_table / string_to_table as FROM items and in LATERAL joins were 42883
    (DuckDB has no such table functions), string_to_table in a select list too. Their one
    column is named as PostgreSQL names it: after the function, the item's alias, or its list."""
    def rows(sql):
        cur = conn.execute(sql)
        return [d[0] for d in cur.description], cur.fetchall()

    assert rows("SELECT * FROM regexp_split_to_table('a1b22c', '[0-9]+')") == (
        ["regexp_split_to_table"], [("a",), ("b",), ("c",)])
    assert rows("SELECT * FROM string_to_table('a,b,,c', ',', '') AS t(v)") == (
        ["v"], [("a",), ("b",), (None,), ("c",)])
    assert rows("SELECT part FROM string_to_table('x y', ' ') part") == (["part"], [("x",), ("y",)])
    assert rows("SELECT string_to_table('a,b', ',')") == (["string_to_table"], [("a",), ("b",)])
    # WITH ORDINALITY numbers the rows (it was dropped: one column)
    assert rows("SELECT * FROM regexp_split_to_table('a b', ' ') WITH ORDINALITY") == (
        ["regexp_split_to_table", "ordinality"], [("a", 1), ("b", 2)])
    assert rows("SELECT n, w FROM string_to_table('x y z', ' ') WITH ORDINALITY AS t(w, n) WHERE n > 1") == (
        ["n", "w"], [(2, "y"), (3, "z")])
    conn.execute("INSERT INTO t (k, v) VALUES (3, 'hello big world')")
    assert rows("SELECT k, count(*) FROM t CROSS JOIN LATERAL string_to_table(v, ' ') AS w GROUP BY k ORDER BY k") == (
        ["k", "count"], [(1, 1), (2, 1), (3, 3)])
    assert rows("SELECT w FROM t, regexp_split_to_table(v, ' +') w WHERE k = 3 AND w LIKE '%o%' ORDER BY w") == (
        ["w"], [("hello",), ("world",)])


def test_pg_backend_pid_is_the_sessions(conn):
    """42883 before; a pool or a log line asks for it. It is the session's number, as
    pg_stat_activity gives it (tests/engine/test_activity.py), not the process's."""
    assert one(conn, "SELECT pg_backend_pid() = pid, pg_typeof(pg_backend_pid()) FROM pg_stat_activity "
                     "WHERE state = 'active'") == (True, "integer")


def test_interval_literals_and_text_as_postgresqls(conn):
    """INTERVAL '-1 day 02:00' was -1 day (sqlglot kept its one 'number unit' pair and dropped
    the time); an interval's text was DuckDB's ('-1 year -1 month -1 day', '-1 day 02:00:00')."""
    assert one(conn, "SELECT INTERVAL '-1 day 02:00', INTERVAL '1 day 02:00:00' = INTERVAL '26 hours'") == (
        datetime.timedelta(days=-1, hours=2), True)  # (equal as PostgreSQL compares intervals)
    assert one(conn, "SELECT date '2024-01-01' + INTERVAL '1 day 06:00', INTERVAL '2 days', INTERVAL '1' day") == (
        datetime.datetime(2024, 1, 2, 6), datetime.timedelta(days=2), datetime.timedelta(days=1))
    assert one(conn, "SELECT (INTERVAL '-1 year -1 month -1 day')::text, (INTERVAL '-1 day 02:00')::text, "
                     "'1 year 2 months'::interval::text, INTERVAL '1 day'::text, INTERVAL '36 hours'::text") == (
        "-1 years -1 mons -1 days", "-1 days +02:00:00", "1 year 2 mons", "1 day", "36:00:00")
