"""PostgreSQL 16's functions that were missing (42883) or refused (0A000): each as PostgreSQL's
regression tests (src/test/regress/expected/*.out) and func.sgml show it - NULLs, types, errors."""

import pytest

from tests.conftest import fails, one


@pytest.fixture
def conn(connect):
    return connect(autocommit=True)


# --- width_bucket (numeric.out) ----------------------------------------------------------------

def test_width_bucket_of_numerics_and_doubles(conn):
    assert one(conn, "SELECT width_bucket(5.35, 0.024, 10.06, 5), width_bucket(5.35::float8, 0.024, 10.06, 5), "
                     "width_bucket(-1, 0, 10, 5), width_bucket(10, 0, 10, 5), width_bucket(0, 0, 10, 5), "
                     "width_bucket(3, 10, 0, 5), width_bucket(0, 10, 0, 5), width_bucket(11, 10, 0, 5)") == (
        3, 3, 0, 6, 1, 4, 6, 0)
    conn.execute("CREATE TABLE w (n NUMERIC(30, 15), f DOUBLE PRECISION)")
    conn.execute("INSERT INTO w VALUES (-5.2, -5.2), (0.000000000001, 0.000000000001), (1.99999999999999, "
                 "1.99999999999999), (2, 2), (9.99999999999999, 9.99999999999999), (10, 10), (NULL, NULL)")
    # numeric.out's width_bucket_test: wb_1 (0, 10, 5), wb_2 (10, 0, 5), wb_3 (2, 8, 4), wb_5 (-25, 25, 10)
    rows = conn.execute("SELECT width_bucket(n, 0, 10, 5), width_bucket(f, 0, 10, 5), width_bucket(n, 10, 0, 5), "
                        "width_bucket(f, 2, 8, 4), width_bucket(n, -25, 25, 10) FROM w ORDER BY n").fetchall()
    assert rows == [(0, 0, 6, 0, 4), (1, 1, 5, 0, 6), (1, 1, 5, 0, 6), (2, 2, 5, 1, 6), (5, 5, 1, 5, 7),
                    (6, 6, 1, 5, 8), (None, None, None, None, None)]
    assert [d[1] for d in conn.execute("SELECT width_bucket(1.5, 0, 2, 3)").description] == ["INTEGER"]


def test_width_bucket_of_an_infinite_operand_and_huge_bounds(conn):
    assert one(conn, "SELECT width_bucket('Infinity'::float8, 1, 10, 10), "
                     "width_bucket('-Infinity'::float8, 1, 10, 10), width_bucket(1e300::float8, -1e308, 1e308, 10), "
                     "width_bucket(?, 0, 10, 5)", [7.5]) == (
        11, 0, 6, 4)


WIDTH_BUCKET_REFUSALS = [
    ("SELECT width_bucket(5.0, 3.0, 4.0, 0)", "2201G", "count must be greater than zero"),
    ("SELECT width_bucket(5.0, 3.0, 4.0, -5)", "2201G", "count must be greater than zero"),
    ("SELECT width_bucket(3.5, 3.0, 3.0, 888)", "2201G", "lower bound cannot equal upper bound"),
    ("SELECT width_bucket(3.5::float8, 3.0::float8, 3.0::float8, 888)", "2201G", "lower bound cannot equal"),
    ("SELECT width_bucket('NaN', 3.0, 4.0, 888)", "2201G", "operand, lower bound, and upper bound cannot be NaN"),
    ("SELECT width_bucket(0::float8, 'NaN', 4.0::float8, 888)", "2201G", "cannot be NaN"),
    ("SELECT width_bucket(2.0, 3.0, '-inf', 888)", "2201G", "lower and upper bounds must be finite"),
    ("SELECT width_bucket(0::float8, '-inf', 4.0::float8, 888)", "2201G", "lower and upper bounds must be finite"),
    ("SELECT width_bucket(10.0, 0, 10, 2147483647)", "22003", "integer out of range"),
    ("SELECT width_bucket(5.0, 'x', 10, 5)", "22P02", 'invalid input syntax for type numeric: "x"'),
    ("SELECT width_bucket(5, ARRAY[1, NULL])", "22004", "thresholds array must not contain NULLs"),
]


def test_width_bucket_of_thresholds(conn):
    """The number of thresholds at or below the operand, by PostgreSQL's binary search (an
    unsorted array gives what it gives there)."""
    assert one(conn, "SELECT width_bucket(5, ARRAY[1, 3, 4, 10]), width_bucket(0, ARRAY[1]), "
                     "width_bucket(2, ARRAY[]::int[]), width_bucket(5, ARRAY[10, 1, 4]), "
                     "width_bucket(date '2024-01-02', ARRAY[date '2024-01-01', date '2024-02-01']), "
                     "width_bucket(NULL::int, ARRAY[1]), width_bucket(1, NULL::int[]), "
                     "width_bucket('m', ARRAY['a', 'm', 'z'])") == (3, 0, 0, 3, 1, None, None, 2)
    assert conn.execute("SELECT x, width_bucket(x, ARRAY[1.5, 3, 10]) FROM (VALUES (1), (3), (11)) t(x) "
                        "ORDER BY x").fetchall() == [(1, 0), (3, 2), (11, 3)]


# --- regexp_count, regexp_instr, regexp_like, regexp_substr (strings.out) ---------------------

def test_regexp_count(conn):
    assert one(conn, "SELECT regexp_count('123123123123123', '(12)3'), regexp_count('123123123123', '123', 1), "
                     "regexp_count('123123123123', '123', 3), regexp_count('123123123123', '123', 33), "
                     "regexp_count('ABCABCABCABC', 'Abc', 1, ''), regexp_count('ABCABCABCABC', 'Abc', 1, 'i'), "
                     "regexp_count('abc', ''), regexp_count(NULL, '123', 3), regexp_count('a1b22', '[[:digit:]]')") == (
        5, 4, 3, 0, 0, 4, 4, None, 3)


def test_regexp_instr(conn):
    assert one(conn, "SELECT regexp_instr('abcdefghi', 'd.f'), regexp_instr('abcdefghi', 'd.q'), "
                     "regexp_instr('abcabcabc', 'a.c'), regexp_instr('abcabcabc', 'a.c', 2), "
                     "regexp_instr('abcabcabc', 'a.c', 1, 3), regexp_instr('abcabcabc', 'a.c', 1, 4), "
                     "regexp_instr('abcabcabc', 'A.C', 1, 2, 0, 'i'), regexp_instr('abcabcabc', 'a.c', 1, 1, 1)") == (
        4, 0, 1, 4, 7, 0, 4, 4)
    subexpressions = ", ".join(f"regexp_instr('1234567890', '(123)(4(56)(78))', 1, 1, 0, 'i', {n})" for n in range(6))
    assert one(conn, f"SELECT {subexpressions}") == (1, 1, 4, 5, 7, 0)
    assert [d[1] for d in conn.execute("SELECT regexp_instr('a', 'a'), regexp_count('a', 'a')").description] == [
        "INTEGER", "INTEGER"]


def test_regexp_like_and_its_flags(conn):
    text = "'foo' || chr(10) || 'bar' || chr(10) || 'bequq' || chr(10) || 'baz'"
    assert one(conn, f"SELECT regexp_like('Steven', '^Ste(v|ph)en$'), regexp_like('a'||chr(10)||'d', 'a.d', 'n'), "
                     f"regexp_like('a'||chr(10)||'d', 'a.d', 's'), regexp_like('abc', ' a . c ', 'x'), "
                     f"regexp_like({text}, '^bar'), regexp_like({text}, '^bar', 'm'), regexp_like({text}, 'bar'), "
                     "regexp_like('GREEN', '([aeiou])\\1'), regexp_like('GREEN', '([aeiou])\\1', 'i'), "
                     "regexp_like('ORANGE' || chr(10) || 'GREEN', "
                     "'^..([aeiou])\\1', 'in'), regexp_like('a' || chr(10), 'a$'), regexp_like('a.c', 'a.c', 'q'), "
                     "regexp_like('abc', 'a.c', 'q'), regexp_like('a b', 'a\\y'), regexp_like('ab', 'a\\yb'), "
                     "regexp_like('a' || chr(10) || 'b', 'a[^x]b', 'n'), regexp_like('a' || chr(10) || 'b', 'a[^x]b')"
                     ) == (True, False, True, True, False, True, True, False, True, True, False, True, False, True,
                           False, False, True)


def test_regexp_substr(conn):
    assert one(conn, "SELECT regexp_substr('abcdefghi', 'd.f'), regexp_substr('abcdefghi', 'd.q'), "
                     "regexp_substr('abcabcabc', 'a.c', 1, 3), regexp_substr('abcabcabc', 'A.C', 1, 2, 'i'), "
                     "regexp_substr('1234567890', '(123)(4(56)(78))', 1, 1, 'i', 3), "
                     "regexp_substr('1234567890', '(123)(4(56)(78))', 1, 1, 'i', 5), "
                     "regexp_substr('ab', 'a(x)?b', 1, 1, '', 1)") == ("def", None, "abc", "abc", "56", None, None)


REGEXP_REFUSALS = [
    ("SELECT regexp_count('123123123123', '123', 0)", "22023", 'invalid value for parameter "start": 0'),
    ("SELECT regexp_instr('abcabcabc', 'a.c', -1)", "22023", 'invalid value for parameter "start": -1'),
    ("SELECT regexp_instr('abcabcabc', 'a.c', 1, 0)", "22023", 'invalid value for parameter "n": 0'),
    ("SELECT regexp_instr('abcabcabc', 'a.c', 1, 1, 2)", "22023", 'invalid value for parameter "endoption": 2'),
    ("SELECT regexp_instr('abcabcabc', 'a.c', 1, 1, 0, '', -1)", "22023", 'invalid value for parameter "subexpr": -1'),
    ("SELECT regexp_like('abc', 'a.c', 'g')", "22023", 'regexp_like() does not support the "global" option'),
    ("SELECT regexp_count('abc', 'b', 1, 'g')", "22023", 'regexp_count() does not support the "global" option'),
    ("SELECT regexp_substr('abc', 'b', 1, 1, 'g')", "22023", 'regexp_substr() does not support the "global" option'),
    ("SELECT regexp_like('abc', 'b', 'z')", "22023", 'invalid regular expression option: "z"'),
    ("SELECT regexp_substr('abc', '(')", "2201B", "invalid regular expression"),
    ("SELECT regexp_count('abc', '[[:nosuch:]]')", "2201B", "invalid character class"),
    ("SELECT regexp_like('abc', 'b', 'b')", "0A000", "not supported"),
]


def test_regexp_functions_over_a_table_with_parameters(conn):
    conn.execute("CREATE TABLE notes (id INT, body TEXT)")
    conn.execute("INSERT INTO notes VALUES (1, 'a1 b22 c333'), (2, NULL), (3, 'none')")
    assert conn.execute("SELECT id, regexp_count(body, ?), regexp_substr(body, '[0-9]+', 1, ?) FROM notes ORDER BY id",
                        ["[0-9]+", 2]).fetchall() == [(1, 3, "22"), (2, None, None), (3, 0, None)]


# --- num_nulls, num_nonnulls (misc_functions.out) ----------------------------------------------

def test_num_nulls_and_num_nonnulls_count_arguments_of_any_type(conn):
    assert one(conn, "SELECT num_nonnulls(NULL), num_nonnulls('1'), num_nonnulls(NULL::text, NULL::int), "
                     "num_nonnulls(1, 2, NULL::text, '', int8 '9', 1.0 / NULL), num_nulls(NULL), num_nulls('1'), "
                     "num_nulls(NULL::text, NULL::int), num_nulls(1, 2, NULL::text, '', int8 '9', 1.0 / NULL)") == (
        0, 1, 0, 4, 1, 0, 2, 2)
    cursor = conn.execute("SELECT num_nulls(a, b, ?) FROM (VALUES (1, NULL), (NULL, NULL), (1, 2)) t(a, b)", [None])
    assert cursor.fetchall() == [(2,), (3,), (1,)]
    assert [(d[0], d[1]) for d in cursor.description] == [("num_nulls", "INTEGER")]
    fails(conn, "SELECT num_nulls()", "42883", "num_nulls")


# --- to_regclass (regproc.out) -----------------------------------------------------------------

def test_to_regclass_names_a_relation_or_is_null(conn):
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY)")
    conn.execute('CREATE TABLE "Mixed" (id INT)')
    conn.execute("CREATE SCHEMA s")
    conn.execute("CREATE TABLE s.u (id INT)")
    conn.execute("CREATE VIEW v AS SELECT 1 AS x")
    assert one(conn, "SELECT to_regclass('t'), to_regclass('nosuch'), to_regclass('public.t'), to_regclass('s.u'), "
                     "to_regclass('\"Mixed\"'), to_regclass('v'), to_regclass('t_pkey'), to_regclass('a.b.c.d'), "
                     "to_regclass('s.nosuch')") == ("t", None, "t", "s.u", '"Mixed"', "v", "t_pkey", None, None)
    # where it stands for an OID, it is one
    assert one(conn, "SELECT to_regclass('t')::oid = 't'::regclass::oid, to_regclass('nosuch')::oid") == (True, None)
    assert one(conn, "SELECT relname FROM pg_class WHERE oid = to_regclass('s.u')") == ("u",)
    fails(conn, "SELECT to_regclass(relname) FROM pg_class", "0A000", "string constant")


def test_to_regclass_looks_the_name_up_at_each_execution(conn):
    check = "SELECT to_regclass('later') IS NULL"
    assert one(conn, check) == (True,)
    conn.execute("CREATE TABLE later (id INT)")
    assert one(conn, check) == (False,)
    conn.execute("BEGIN")
    conn.execute("DROP TABLE later")
    assert one(conn, check) == (True,)
    conn.execute("ROLLBACK")
    assert one(conn, check) == (False,)


# --- regexp_matches (strings.out) --------------------------------------------------------------

def test_regexp_matches_in_a_select_list(conn):
    def rows(sql):
        return [r[0] for r in conn.execute(sql).fetchall()]
    assert rows("SELECT regexp_matches('foobarbequebaz', '(bar)(beque)')") == [["bar", "beque"]]
    assert rows("SELECT regexp_matches('foobarbequebazilbarfbonk', '(b[^b]+)(b[^b]+)', 'g')") == [
        ["bar", "beque"], ["bazil", "barf"]]
    assert rows("SELECT regexp_matches('foobarbequebaz', 'barbeque')") == [["barbeque"]]
    assert rows("SELECT regexp_matches('foobarbequebaz', '(bar)(.+)?(beque)')") == [["bar", None, "beque"]]
    assert rows("SELECT regexp_matches('foo', '(bar)(beque)')") == []
    assert rows("SELECT regexp_matches('abcbd', '(b)(.)', 'g')::text") == ["{b,c}", "{b,d}"]
    assert rows("SELECT regexp_matches('ABab', 'a', 'gi')") == [["A"], ["a"]]
    conn.execute("CREATE TABLE t (id INT, s TEXT)")
    conn.execute("INSERT INTO t VALUES (1, 'a1b22c333'), (2, NULL), (3, 'none'), (4, 'x9')")
    # a row whose call makes no rows is gone, as PostgreSQL's set-returning function in a select list leaves it
    cursor = conn.execute("SELECT id, regexp_matches(s, '[0-9]+', 'g') FROM t ORDER BY id, 2")
    assert cursor.fetchall() == [(1, ["1"]), (1, ["22"]), (1, ["333"]), (4, ["9"])]
    assert [d[0] for d in cursor.description] == ["id", "regexp_matches"]
    fails(conn, "SELECT regexp_matches('foobarbequebaz', '(bar)(beque)', 'gz')", "22023",
          'invalid regular expression option: "z"')


def test_regexp_matches_in_from_and_lateral(conn):
    assert conn.execute("SELECT * FROM regexp_matches('abcabc', '(b)(c)', 'g') AS m").fetchall() == [
        (["b", "c"],), (["b", "c"],)]
    assert conn.execute("SELECT * FROM regexp_matches('abcabd', 'b(.)', 'g') WITH ORDINALITY AS m(a, n)"
                        ).fetchall() == [(["c"], 1), (["d"], 2)]
    assert conn.execute("SELECT count(*) FROM regexp_matches('aaa', 'a')").fetchall() == [(1,)]
    conn.execute("CREATE TABLE t (id INT, s TEXT)")
    conn.execute("INSERT INTO t VALUES (1, 'a1b22'), (2, NULL), (3, 'x9')")
    assert conn.execute("SELECT id, m[1] FROM t, LATERAL regexp_matches(t.s, '[0-9]+', 'g') AS m "
                        "ORDER BY id, 2").fetchall() == [(1, "1"), (1, "22"), (3, "9")]


# --- to_char of dates and timestamps (horology.out, formatting.c) -------------------------------

def test_to_char_writes_names_padded_and_cased(conn):
    """``Day``/``Month`` padded to 9 characters unless FM, in three cases (0A000 before)."""
    assert one(conn, "SELECT to_char(date '2024-05-05', 'Day|DAY|day|Month|MONTH|month|FMDay|FMMonth|Dy|MON|mon')"
               ) == ("Sunday   |SUNDAY   |sunday   |May      |MAY      |may      |Sunday|May|Sun|MAY|may",)


def test_to_char_writes_what_strftime_got_wrong(conn):
    """D (Sunday 1: strftime's %u gave 7), Q, J, RM, y,yyy and CC were written as they stand,
    TZ as DuckDB's zone name (Etc/UTC)."""
    assert one(conn, "SELECT to_char(date '2024-05-05', 'D Q J RM WW IW W DDD IDDD ID CC y,yyy Y,YYY'), "
                     "to_char(timestamp '2024-05-07 13:04:01.5', 'HH12 AM a.m. SSSS MS US FF2 DDth FMDDth Mon-rm'), "
                     "to_char(timestamptz '2024-05-05 10:00+00', 'TZ OF tz'), to_char(date '2024-05-05', 'TZ|OF'), "
                     "to_char(timestamp '2024-01-01 00:00', '\"Q\"Q \"quoted \\\"text\" FMHH24')") == (
        "1 2 2460436 V    18 18 1 126 126 7 21 2,024 2,024",
        "01 PM p.m. 47041 500 500000 50 07th 7th May-v   ", "UTC +00 utc", "|+00", "Q1 quoted \"text 0")


def test_to_char_of_a_timestamptz_is_in_the_session_time_zone(conn):
    conn.execute("CREATE TABLE e (at TIMESTAMPTZ, d DATE, p TEXT)")
    conn.execute("INSERT INTO e VALUES ('2024-05-05 10:00:00+00', '2024-01-01', 'FMDay'), (NULL, NULL, NULL)")
    conn.execute("SET TimeZone = 'Europe/Berlin'")
    assert conn.execute("SELECT to_char(at, 'YYYY-MM-DD HH24:MI TZ OF'), to_char(d, p), to_char(at, 'Month') "
                        "FROM e ORDER BY at").fetchall() == [
        ("2024-05-05 12:00 CEST +02", "Monday", "May      "), (None, None, None)]
    assert one(conn, "SELECT to_char(timestamptz '2024-01-05 10:00+00', 'HH24 TZ OF')") == ("11 CET +01",)
    conn.execute("SET TimeZone = 'Asia/Kolkata'")
    assert one(conn, "SELECT to_char(at, 'HH24:MI TZ OF TZH TZM') FROM e WHERE at IS NOT NULL") == (
        "15:30 IST +05:30 +05 30",)


def test_to_char_of_an_interval_writes_its_own_fields(conn):
    """formatting.c's interval_to_char (it was 42883, DuckDB's strftime has no interval form): the
    interval's fields as interval2itm splits them - days are not hours, a negative part writes
    negative fields in one more digit - DDD its span at 30 days a month; PostgreSQL 16's results."""
    assert one(conn, "SELECT to_char(interval '1 day 3 hours', 'HH24:MI'), "
                     "to_char(interval '15h 2m 12s', 'HH24:MI:SS'), to_char(interval '40 hours', 'FMHH24 HH12 AM'), "
                     "to_char(interval '1 year 2 months 3 days', 'YYYY MM DD DDD'), "
                     "to_char(interval '-1 year', 'YYYY YYY YY Y'), to_char(interval '-1.5 seconds', 'SS MS US'), "
                     "to_char(interval '-1 day', 'DD DDD'), to_char(interval '-1 second', 'SSSS'), "
                     "to_char(interval '1 day', 'Y,YYY|DDth|RM|Q|CC|J'), to_char(interval '14 months', 'RM|Q')") == (
        "03:00", "15:02:12", "40 04 PM", "0001 02 03 423", "-0001 -001 -01 -1", "-01 -500 -500000", "-1 -01",
        "-1", "0,000|01st|||00|1721029", "II  |1")
    assert conn.execute("SELECT to_char(i, 'HH24:MI') FROM (VALUES (interval '90 minutes'), (NULL)) v(i) "
                        "ORDER BY i").fetchall() == [("01:30",), (None,)]


@pytest.mark.parametrize("pattern", ["D", "Day", "MONTH", "mon", "BC", "TZ", "OF", "TZH"])
def test_to_char_of_an_interval_refuses_a_calendar_date_s_patterns(conn, pattern):
    """INVALID_FOR_INTERVAL: 22007, 'Intervals are not tied to specific calendar dates.'"""
    fails(conn, f"SELECT to_char(interval '1 day', '{pattern}')", "22007",
          "invalid format specification for an interval value")


# --- json[b]_to_record[set] with a column definition list (json.out, jsonb.out) ----------------

def test_jsonb_to_recordset_reads_each_element_as_the_columns_say(conn):
    cursor = conn.execute("""SELECT * FROM jsonb_to_recordset('[{"a":1,"b":"x"},{"a":2,"b":null,"z":0}]') """
                          "AS x(a int, b text)")
    assert cursor.fetchall() == [(1, "x"), (2, None)]
    assert [(d[0], d[1]) for d in cursor.description] == [("a", "INTEGER"), ("b", "VARCHAR")]
    assert one(conn, """SELECT * FROM json_to_record('{"a":1,"b":"x","c":[1, 2],"d":{"q": 1.50},"F":"t"}') """
                     """AS x(a int, b text, c json, d text, e text, "F" boolean)""") == (
        1, "x", [1, 2], '{"q": 1.50}', None, True)
    assert one(conn, """SELECT sum(a) FROM jsonb_to_recordset('[{"a":1},{"a":41}]') AS x(a int) WHERE a > 0""") == (
        42,)
    assert one(conn, "SELECT * FROM jsonb_to_record(NULL) AS x(a int)") == (None,)
    assert one(conn, """SELECT * FROM jsonb_to_record('{"a":"ab  "}') AS x(a varchar(2))""") == ("ab",)  # (spaces cut)
    assert conn.execute("SELECT * FROM jsonb_to_recordset(NULL) AS x(a int)").fetchall() == []


def test_jsonb_to_record_in_a_lateral_join(conn):
    conn.execute("CREATE TABLE docs (id INT, doc JSONB)")
    conn.execute("""INSERT INTO docs VALUES (1, '{"a": 1, "b": "x"}'), (2, '{"a": null, "c": {"k": 2}}'), (3, NULL)""")
    assert conn.execute("SELECT id, x.a, x.c FROM docs, LATERAL jsonb_to_record(doc) AS x(a int, c jsonb) "
                        "ORDER BY id").fetchall() == [(1, 1, None), (2, None, {"k": 2}), (3, None, None)]


RECORD_REFUSALS = [
    ("""SELECT * FROM jsonb_to_recordset('{"a":1}') AS x(a int)""", "22023",
     "cannot call jsonb_to_recordset on a non-array"),
    ("SELECT * FROM jsonb_to_recordset('[1]') AS x(a int)", "22023",
     "argument of jsonb_to_recordset must be an array of objects"),
    ("SELECT * FROM json_to_record('[1]') AS x(a int)", "22023", "cannot call json_to_record on a non-object"),
    ("""SELECT * FROM jsonb_to_record('{"a":1.5}') AS x(a int)""", "22P02",
     'invalid input syntax for type integer: "1.5"'),
    ("""SELECT * FROM jsonb_to_record('{"a":1}') AS x(a, b)""", "42601", "a column definition list is required"),
    ("""SELECT * FROM jsonb_to_record('{"a":1}')""", "42601", "a column definition list is required"),
    ("""SELECT * FROM jsonb_to_record('{"a":[1]}') AS x(a int[])""", "0A000", "not supported"),
    # text input into varchar(n) / char(n): too long is 22001 (it was cut, as a cast cuts)
    ("""SELECT * FROM jsonb_to_record('{"a":"abc"}') AS x(a varchar(2))""", "22001",
     "value too long for type character varying(2)"),
    ("""SELECT * FROM json_to_recordset('[{"a":"abc"}]') AS x(a char(2))""", "22001",
     "value too long for type character(2)"),
]


@pytest.mark.parametrize("sql, sqlstate, words", WIDTH_BUCKET_REFUSALS + REGEXP_REFUSALS + RECORD_REFUSALS)
def test_refuses_what_postgres_refuses(conn, sql, sqlstate, words):
    fails(conn, sql, sqlstate, words)


# --- ~, regexp_replace, regexp_match, regexp_split_to_*, substring FROM: PostgreSQL's patterns ------
# (func.sgml's examples; DuckDB's RE2 ran these as its own: '.' missed a newline, \m was 22023,
# regexp_replace's start was read as options)

def test_regex_operators_read_postgresql_patterns(conn):
    assert one(conn, "SELECT E'a\\nb' ~ 'a.b', E'a\\nb' ~ '^b', 'abab' ~ '^(ab)\\1$', 'abc' ~ 'a(?=b)', "
                     "'foo bar' ~ '\\mbar\\M', 'foo barn' ~ '\\mbar\\M', 'foo bar' ~* '\\yBAR\\y', "
                     "'foo bar' !~ 'x', 'FOO' !~* 'foo', 'a1' ~ '^[[:alpha:]][[:digit:]]$'") == (
        True, False, True, True, True, False, True, True, False, True)
    # the directors ***= (a literal) and ***:, and the word-edge brackets [[:<:]] / [[:>:]] (review)
    assert one(conn, "SELECT 'a.c' ~ '***=a.c', 'abc' ~ '***=a.c', 'abc' ~ '***:a.c', "
                     "'foo bar' ~ '[[:<:]]bar[[:>:]]', 'foobar' ~ '[[:<:]]bar'") == (True, False, True, True, False)
    conn.execute("CREATE TABLE rx (id int, s text, f text)")
    conn.execute("INSERT INTO rx VALUES (1, 'foo bar', 'g'), (2, E'x\\ny', 'i'), (3, NULL, '')")
    assert conn.execute("SELECT id, s ~ ?, s ~ '\\mbar' FROM rx ORDER BY id", ("x.y",)).fetchall() == [
        (1, False, True), (2, True, False), (3, None, None)]
    # a view's stored query reads back as written (it was DuckDB's REGEXP_MATCHES: PostgreSQL's
    # set-returning regexp_matches when read again - the matching rows' arrays)
    conn.execute("CREATE VIEW rxv AS SELECT id, s ~ 'o' AS o, s !~* 'BAR' AS nobar FROM rx")
    assert conn.execute("SELECT * FROM rxv ORDER BY id").fetchall() == [
        (1, True, False), (2, False, True), (3, None, None)]


def test_regexp_replace_as_postgresql_16(conn):
    assert one(conn, "SELECT regexp_replace('Thomas', '.[mN]a.', 'M'), regexp_replace('foobarbaz', 'b..', 'X', 'g'), "
                     "regexp_replace('foobarbaz', 'b(..)', 'X\\1Y', 'g'), "
                     "regexp_replace('A PostgreSQL function', 'a|e|i|o|u', 'X', 1, 0, 'i'), "
                     "regexp_replace('A PostgreSQL function', 'a|e|i|o|u', 'X', 1, 3, 'i'), "
                     "regexp_replace('aaa', 'a', 'b', 2), regexp_replace('abc', 'b', '[\\&]'), "
                     "regexp_replace('abc', '(b)', '\\2|\\q'), regexp_replace(E'a\\nb', 'a.b', 'X'), "
                     "regexp_replace('foo bar', '\\mbar', 'X')") == (
        "ThM", "fooXX", "fooXarYXazY", "X PXstgrXSQL fXnctXXn", "A PostgrXSQL function", "aba", "a[b]c",
        "a|\\qc", "X", "foo X")
    conn.execute("CREATE TABLE rr (id int, s text, f text)")
    conn.execute("INSERT INTO rr VALUES (1, 'boo', 'g'), (2, 'BOO', 'i'), (3, NULL, '')")
    assert conn.execute("SELECT regexp_replace(s, 'o', 'X', f), regexp_replace(s, ?, ?), "
                        "regexp_replace(s, 'o', 'X', 2, 0, f) FROM rr ORDER BY id", ("O", "[\\&]")).fetchall() == [
        ("bXX", "boo", "bXX"), ("BXO", "B[O]O", "BXX"), (None, None, None)]


def test_regexp_match_split_and_substring(conn):
    assert one(conn, "SELECT regexp_match('foobarbequebaz', 'bar.*que'), "
                     "regexp_match('foobarbequebaz', '(bar)(beque)'), "
                     "regexp_match('abc', 'x'), regexp_match('ABC', 'b', 'i'), regexp_match(E'a\\nb', 'a(.)b'), "
                     "regexp_split_to_array('hello world', '\\s+'), regexp_split_to_array('the quick', '\\s*'), "
                     "regexp_split_to_array(',a,', ','), substring('foobar' from 'o(.)b'), "
                     "substring('foo bar' from '\\m(b..)')") == (
        ["barbeque"], ["bar", "beque"], None, ["B"], ["\n"], ["hello", "world"],
        ["t", "h", "e", "q", "u", "i", "c", "k"], ["", "a", ""], "o", "bar")
    assert [r[0] for r in conn.execute("SELECT regexp_split_to_table('the quick brown fox', '\\s*')")] == list(
        "thequickbrownfox")
    # a group that takes no part is NULL (RE2's regexp_extract gave ''), by either engine
    assert one(conn, "SELECT substring('foo' FROM 'foo(bar)?') IS NULL, substring('abc' FROM '(x)|b') IS NULL, "
                     "regexp_match('foo', 'foo(bar)?'), regexp_match('foo12', 'foo(\\d+)'), "
                     "'Л' ~ '^\\x41B$', 'foo1' ~ '\\x66oo1', regexp_split_to_array('a1b', '(?=\\d)')") == (
        True, True, [None], ["12"], True, True, ["a", "1b"])


def test_regexp_replace_s_fourth_argument_is_a_start_if_an_integer(conn):
    """``regexp_replace(s, p, r, n)`` with n a column or an expression (review: 42883 'strpos(integer,
    unknown)'): a start if it is an integer when the statement runs, else the flags - as PostgreSQL
    resolves it; a parameter too."""
    conn.execute("CREATE TABLE r4 (s text, n int, f text)")
    conn.execute("INSERT INTO r4 VALUES ('XaX', 2, 'g')")
    assert one(conn, "SELECT regexp_replace(s, 'X', '-', n), regexp_replace(s, 'X', '-', 1 + 1), "
                     "regexp_replace(s, 'X', '-', f) FROM r4") == ("Xa-", "Xa-", "-a-")
    assert one(conn, "SELECT regexp_replace(s, 'X', '-', ?) FROM r4", (2,)) == ("Xa-",)
    assert one(conn, "SELECT regexp_replace(s, 'X', '-', ?) FROM r4", ("g",)) == ("-a-",)
    conn.execute("CREATE TABLE d4 (k int, s text DEFAULT regexp_replace('aaa', 'a', 'b', 2), "
                 "t text DEFAULT regexp_replace('abc', 'b', '[\\&]'))")
    conn.execute("INSERT INTO d4 (k) VALUES (1)")
    assert one(conn, "SELECT s, t FROM d4") == ("aba", "a[b]c")


@pytest.mark.parametrize("sql, sqlstate, words", [
    ("SELECT 'x' ~ '('", "2201B", "invalid regular expression: parentheses () not balanced"),
    ("SELECT 'x' ~ '*'", "2201B", "invalid regular expression: quantifier operand invalid"),
    ("SELECT regexp_replace('x', '[', 'y')", "2201B", "brackets [] not balanced"),
    ("SELECT substring('x' from 'a{2,1}')", "2201B", "invalid repetition count(s)"),
    ("SELECT regexp_split_to_array('x', '(a)\\2')", "2201B", "invalid backreference number"),
    ("SELECT regexp_replace('aaa', 'a', 'b', '2')", "22023", "cast the fourth argument to integer explicitly"),
    ("SELECT regexp_replace('aaa', 'a', 'b', 0)", "22023", 'invalid value for parameter "start": 0'),
    ("SELECT regexp_replace('aaa', 'a', 'b', 1, -1)", "22023", 'invalid value for parameter "n": -1'),
    ("SELECT regexp_match('abc', 'b', 'g')", "22023", "Use the regexp_matches function instead"),
    ("SELECT regexp_replace('abc', 'b', 'x', 'z')", "22023", 'invalid regular expression option: "z"'),
    ("SELECT 'aaa' ~ 'a*+'", "2201B", "quantifier operand invalid"),  # (RE2's words, and Python took it)
    ("SELECT 'aaa' ~ 'a{256}'", "2201B", "invalid repetition count(s)"),  # (past DUPMAX: it was false)
])
def test_regex_errors(conn, sql, sqlstate, words):
    fails(conn, sql, sqlstate, words)
