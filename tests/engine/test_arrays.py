"""ARRAY columns: one-dimensional arrays of the scalar types (``INT[]``, ``VARCHAR(10)[]``,
``DECIMAL(10,2)[]``, ``TEXT ARRAY``), as PostgreSQL users write and read them - stored, shown in
the catalog, written back after a restart and a checkpoint, their values given as ``ARRAY[...]``
or in PostgreSQL's text form ``{1,"a b",NULL}``."""

import datetime
import decimal

import pytest

import txlake
from tests.conftest import fails


@pytest.fixture
def db(connect):
    return connect(autocommit=True)


def reopen(connect, conn, checkpoint=False):
    """A new connection after closing ``conn``: the log's inline rows decoded, or with
    ``checkpoint`` the table compacted into Parquet and a catalog checkpoint read."""
    if checkpoint:
        conn.execute("CALL txlake.compact('t')")
        conn._session.db.warehouse.write_checkpoint(force=True)
    conn.close()
    return connect(autocommit=True)


# --- storage and schema ----------------------------------------------------------------------

def test_array_columns_keep_their_element_type_in_the_catalog(db):
    db.execute("CREATE TABLE t (a INT[], b VARCHAR(10)[], c DECIMAL(10,2)[], d TEXT ARRAY, e integer[3])")
    got = db.execute("SELECT column_name, data_type, udt_name FROM information_schema.columns "
                     "WHERE table_name = 't' ORDER BY ordinal_position").fetchall()
    assert got == [("a", "ARRAY", "_int4"), ("b", "ARRAY", "_varchar"), ("c", "ARRAY", "_numeric"),
                   ("d", "ARRAY", "_text"), ("e", "ARRAY", "_int4")]  # (a size, as PostgreSQL, is ignored)


def test_array_values_round_trip_through_a_restart_and_a_checkpoint(connect):
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE t (id INT, a INT[], b VARCHAR(3)[], c DECIMAL(10,2)[], d TEXT[], e BOOLEAN[], "
                 "f BYTEA[], g DATE[], h DOUBLE PRECISION[])")
    conn.execute("""INSERT INTO t VALUES (1, '{1,NULL,3}', ARRAY['abc', 'a b'], '{1.5, 2}', '{"x,y",NULL,"","NULL"}',
                    '{t,off}', '{"\\\\x00ff"}', '{2024-01-01}', ARRAY[1.5, 'NaN'::float8]),
                    (2, NULL, '{}', NULL, ARRAY[]::text[], NULL, NULL, NULL, NULL)""")
    conn.execute("INSERT INTO t SELECT i, ARRAY[i, i + 1], ARRAY['x'], NULL, NULL, NULL, NULL, NULL, NULL "
                 "FROM range(3, 2000) r(i)")  # (a Parquet file)
    expected = [(1, [1, None, 3], ["abc", "a b"], [decimal.Decimal("1.50"), decimal.Decimal("2.00")],
                 ["x,y", None, "", "NULL"], [True, False], [b"\x00\xff"], [datetime.date(2024, 1, 1)]),
                (2, None, [], None, [], None, None, None), (3, [3, 4], ["x"], None, None, None, None, None)]
    query = "SELECT id, a, b, c, d, e, f, g FROM t WHERE id <= 3 ORDER BY id"
    assert conn.execute(query).fetchall() == expected
    again = reopen(connect, conn)
    assert again.execute(query).fetchall() == expected
    assert again.execute("SELECT count(*) FROM t WHERE h[2] = 'NaN'::float8").fetchone() == (1,)
    last = reopen(connect, again, checkpoint=True)
    assert last.execute(query).fetchall() == expected
    assert last.execute("SELECT sum(a[2]) FROM t").fetchone() == (sum(range(4, 2001)),)


def test_a_varchar_n_array_enforces_the_length_on_each_element(db):
    db.execute("CREATE TABLE t (id INT, b VARCHAR(3)[])")
    for value in ("'{abcd}'", "ARRAY['ab', 'abcd']"):
        with pytest.raises(txlake.DataError) as e:
            db.execute(f"INSERT INTO t VALUES (1, {value})")
        assert e.value.sqlstate == "22001" and "character varying(3)" in str(e.value)
    with pytest.raises(txlake.DataError):
        db.execute("INSERT INTO t VALUES (1, ?)", (["abc", "abcd"],))
    with pytest.raises(txlake.DataError):
        db.execute("INSERT INTO t SELECT i, ARRAY['x', 'yyyy'] FROM range(0, 3000) r(i)")
    # past n by spaces alone: cut to n, as PostgreSQL's varchar(n) input
    db.execute("""INSERT INTO t VALUES (1, '{"ab   ", NULL}')""")
    db.execute("INSERT INTO t SELECT i, ARRAY['x', 'yy   '] FROM range(2, 3000) r(i)")
    assert db.execute("SELECT b FROM t WHERE id IN (1, 2) ORDER BY id").fetchall() == [(["ab ", None],),
                                                                                         (["x", "yy "],)]
    assert db.execute("SELECT count(*) FROM t").fetchone() == (2999,)


def test_an_array_cannot_be_a_primary_key_nor_multidimensional(db):
    fails(db, "CREATE TABLE t (a INT[] PRIMARY KEY)", "0A000", 'column "a" is an array', error=txlake.NotSupportedError)
    fails(db, "CREATE TABLE t (id INT, a INT[], PRIMARY KEY (id, a))", "0A000", error=txlake.NotSupportedError)
    fails(db, "CREATE TABLE t (a INT[][])", "0A000", "one-dimensional arrays", error=txlake.NotSupportedError)
    assert db.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = 't'").fetchone() == (0,)


def test_create_table_as_keeps_array_columns(db):
    db.execute("CREATE TABLE t AS SELECT ARRAY[1, 2] AS a, ['x'] AS b, [1.5::decimal(4,1)] AS c")
    got = db.execute("SELECT column_name, udt_name FROM information_schema.columns WHERE table_name = 't' "
                     "ORDER BY ordinal_position").fetchall()
    assert got == [("a", "_int4"), ("b", "_text"), ("c", "_numeric")]
    assert db.execute("SELECT * FROM t").fetchall() == [([1, 2], ["x"], [decimal.Decimal("1.5")])]


# --- SQL: literals, subscripts, functions and operators, as PostgreSQL's ------------------------

@pytest.fixture
def tagged(db):
    db.execute("CREATE TABLE t (id INT, a INT[], s TEXT[])")
    db.execute("""INSERT INTO t VALUES (1, '{1,2,3}', '{a,"b c"}'), (2, '{}', '{}'), (3, NULL, NULL),
                  (4, '{NULL,5}', '{x,NULL}')""")
    return db


def column(db, sql, *params):
    return [row[-1] for row in db.execute(sql + " ORDER BY id", params).fetchall()]


def test_array_text_input_is_postgresql_s(db):
    got = db.execute("""SELECT '{1, 0x1F ,NULL}'::int[], '{"a b", NULL, "NULL", "", "q\\"x", \\\\y}'::text[],
                               '{on, f}'::bool[], '{}'::int[], ' { 1.5 } '::decimal(4,2)[],
                               ARRAY[1, NULL]""").fetchone()
    assert got == ([1, 31, None], ["a b", None, "NULL", "", 'q"x', "\\y"], [True, False], [],
                   [decimal.Decimal("1.50")], [1, None])
    assert db.execute("SELECT x::int[] FROM (VALUES ('{1,2}'), (NULL)) v(x)").fetchall() == [([1, 2],), (None,)]
    for text, detail in (("{1,2", "Unexpected end of input."), ("1,2", 'must start with "{"'),
                         ("{1,,2}", 'Unexpected "," character.'), ("{1}x", "Junk after closing right brace."),
                         ('{"a"b}', "Unexpected array element.")):
        with pytest.raises(txlake.DataError) as e:
            db.execute(f"SELECT '{text}'::int[]")
        assert e.value.sqlstate == "22P02" and f'malformed array literal: "{text}"' in str(e.value)
        assert detail in str(e.value)
    # (at run time: through the function, the first line)
    fails(db, "SELECT x::int[] FROM (VALUES ('{1}'), ('{2')) v(x)", "22P02",
          'malformed array literal: "{2"', error=txlake.DataError)
    fails(db, "SELECT '{1,a}'::int[]", "22P02", 'invalid input syntax for type integer: "a"', error=txlake.DataError)
    # (a column's text of several dimensions, read at run time: txlake's are read as constants)
    fails(db, "SELECT x::int[] FROM (VALUES ('{{1},{2}}')) v(x)", "0A000", "multidimensional",
          error=txlake.NotSupportedError)


def test_subscripts_are_one_based_and_null_outside_the_array(tagged):
    assert tagged.execute("SELECT a[1], a[3], a[0], a[4], a[-1] FROM t WHERE id = 1").fetchone() == (1, 3, None, None,
                                                                                                   None)
    assert column(tagged, "SELECT id, a[id - 2] FROM t") == [None, None, None, 5]  # (a[-1] of row 1: NULL)
    assert tagged.execute("SELECT a[?], a[?] FROM t WHERE id = 1", (2, -1)).fetchone() == (2, None)
    assert tagged.execute("SELECT a[1:2], a[2:], a[:2], a[0:1], a[-5:1], a[3:2], a[1:-1] FROM t WHERE id = 1"
                          ).fetchone() == ([1, 2], [2, 3], [1, 2], [1], [1], [], [])
    assert column(tagged, "SELECT id, a[1:id - 3] FROM t") == [[], [], None, [None]]


def test_array_length_and_cardinality_of_empty_and_null_arrays(tagged):
    rows = tagged.execute("SELECT array_length(a, 1), array_length(a, 2), cardinality(a), array_upper(a, 1), "
                          "array_lower(a, 1), array_ndims(a), array_dims(a) FROM t ORDER BY id").fetchall()
    assert rows == [(3, None, 3, 3, 1, 1, "[1:3]"), (None, None, 0, None, None, None, None),
                    (None,) * 7, (2, None, 2, 2, 1, 1, "[1:2]")]
    assert tagged.execute("SELECT array_length('{}'::int[], 1), cardinality('{}'::int[])").fetchone() == (None, 0)


def test_appending_concatenating_and_searching(tagged):
    assert tagged.execute("SELECT array_append(a, 9), array_prepend(0, a), array_cat(a, ARRAY[7]), a || 6, 6 || a, "
                          "a || ARRAY[8, 9], s || 'd'::text FROM t WHERE id = 1").fetchone() == (
        [1, 2, 3, 9], [0, 1, 2, 3], [1, 2, 3, 7], [1, 2, 3, 6], [6, 1, 2, 3], [1, 2, 3, 8, 9], ["a", "b c", "d"])
    assert tagged.execute("SELECT 'x' || 'y', 'n' || 1, s[1] || '!' FROM t WHERE id = 1").fetchone() == (
        "xy", "n1", "a!")
    assert column(tagged, "SELECT id, array_position(a, 5) FROM t") == [None, None, None, 2]
    assert column(tagged, "SELECT id, array_position(a, NULL) FROM t") == [None, None, None, 1]
    assert column(tagged, "SELECT id, array_positions(a, 2) FROM t") == [[2], [], None, []]
    # (array_remove keeps NULL elements unless asked to remove NULL, as PostgreSQL's)
    assert column(tagged, "SELECT id, array_remove(a, 5) FROM t") == [[1, 2, 3], [], None, [None]]
    assert column(tagged, "SELECT id, array_remove(a, NULL) FROM t") == [[1, 2, 3], [], None, [5]]
    assert column(tagged, "SELECT id, array_replace(a, NULL, 0) FROM t") == [[1, 2, 3], [], None, [0, 5]]


def test_any_containment_and_overlap(tagged):
    assert column(tagged, "SELECT id FROM t WHERE 2 = ANY(a)") == [1]
    assert column(tagged, "SELECT id FROM t WHERE id = ANY(?)", [1, 4]) == [1, 4]
    assert column(tagged, "SELECT id FROM t WHERE a @> ARRAY[1, 3]") == [1]
    assert column(tagged, "SELECT id FROM t WHERE ARRAY[5] <@ a") == [4]
    assert column(tagged, "SELECT id FROM t WHERE s && ARRAY['x', 'b c']") == [1, 4]
    assert column(tagged, "SELECT id FROM t WHERE s @> '{x}'::text[]") == [4]
    assert column(tagged, "SELECT id FROM t WHERE a = ARRAY[1, 2, 3]") == [1]
    # a string constant against an array: an array of its type, as PostgreSQL reads it
    assert column(tagged, "SELECT id FROM t WHERE s @> '{\"b c\"}'") == [1]
    assert column(tagged, "SELECT id FROM t WHERE '{5}' <@ a") == [4]
    assert column(tagged, "SELECT id FROM t WHERE a && '{1, 5}'") == [1, 4]
    assert column(tagged, "SELECT id FROM t WHERE a <@ '{1,2,3,4}'") == [1, 2]
    fails(tagged, "SELECT id FROM t WHERE a @> '{1'", "22P02", "malformed array literal", error=txlake.DataError)
    fails(tagged, "SELECT id FROM t WHERE a @> '{x}'", "22P02", error=txlake.DataError)


@pytest.fixture
def scalars(db):
    db.execute("CREATE TABLE t (id INT PRIMARY KEY, x INT, s TEXT, d DATE, n NUMERIC(10,2), b BOOLEAN)")
    db.execute("""INSERT INTO t VALUES (1, 5, 'a b', '2024-01-01', 1.5, true), (2, NULL, 'c"d', NULL, 2, NULL),
                  (3, 7, NULL, '2024-03-01', NULL, false)""")
    return db


def test_an_untyped_constant_under_any_or_all_is_an_array_of_the_other_side_s_type(scalars):
    """``x = ANY('{5,7}')``: PostgreSQL reads the string constant as an array of x's type
    (DuckDB refused to unnest text); ALL and SOME too, LIKE ANY / ALL of one, 22P02 if malformed."""
    ids = [row[0] for row in scalars.execute("SELECT id FROM t ORDER BY id").fetchall()]

    def where(condition, *params):
        return [i for i in ids if scalars.execute(f"SELECT count(*) FROM t WHERE id = {i} AND ({condition})",
                                                  params).fetchone() == (1,)]
    assert where("x = ANY('{5,7}')") == [1, 3]
    assert where("x = SOME('{5}')") == [1]
    assert where("x <> ALL('{5}')") == [3]
    assert where("x > ANY('{1,2}')") == [1, 3]
    assert where("x >= ALL('{5, 7}')") == [3]
    assert where("x = ANY('{}')") == []
    assert where("x <> ALL('{}')") == [1, 2, 3]  # (no element: true, a NULL x too - PostgreSQL's)
    assert where("x = ANY('{NULL,5}')") == [1]
    assert where("x + 1 = ANY('{6}')") == [1]
    assert where(r"""s = ANY('{"a b","c\"d"}')""") == [1, 2]  # (quoted elements, an escaped quote)
    assert where("d = ANY('{2024-03-01}')") == [3]
    assert where("d < ALL('{2024-02-01, 2025-01-01}')") == [1]
    assert where("n = ANY('{1.50, 3}')") == [1]
    assert where("n <> ALL('{1.505}')") == [1, 2]  # (compared as numerics, not rounded to n's scale)
    assert where("b = ANY('{on}')") == [1]
    assert where("id = ANY('{1,3}')") == [1, 3]
    assert scalars.execute("SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid = "
                           "ANY('{A0EEBC999C0B4EF8BB6D6BB9BD380A11}')").fetchone() == (True,)  # (uuid's input forms)
    assert scalars.execute("SELECT 'abc' LIKE ANY ('{x%,%c}'), 'abc' LIKE ALL ('{a%,%d}'), "
                           "'abc' NOT LIKE ALL ('{x%,%d}')").fetchone() == (True, False, True)
    for constant, detail in (("{5,", "Unexpected end of input."), ("5", 'must start with "{"')):
        fails(scalars, f"SELECT id FROM t WHERE x = ANY('{constant}')", "22P02",
              f'malformed array literal: "{constant}"', error=txlake.DataError)
        fails(scalars, f"SELECT 'a' LIKE ANY ('{constant}')", "22P02", detail, error=txlake.DataError)
    fails(scalars, "SELECT id FROM t WHERE x = ANY('{5,a}')", "22P02", error=txlake.DataError)
    fails(scalars, "SELECT id FROM t WHERE x = ANY(5)", "42809",
          "op ANY/ALL (array) requires array on right side", error=txlake.ProgrammingError)


def test_a_parameter_under_any_is_a_list_or_postgresql_s_array_text(scalars):
    """``x = ANY(?)`` takes a Python list, as before, or PostgreSQL's text of an array, read as
    the constant is - by the key's point path (``id = ANY(?)``) and by DuckDB."""
    for condition in ("id = ANY(?)", "x = ANY(?)", "id = ANY(?) AND x > 0"):
        assert column(scalars, f"SELECT id FROM t WHERE {condition}", [1, 3, 5, 7]) == [1, 3]
        assert column(scalars, f"SELECT id FROM t WHERE {condition}", "{1,3,5,7}") == [1, 3]
        assert column(scalars, f"SELECT id FROM t WHERE {condition}", "{}") == []
        fails(scalars, f"SELECT id FROM t WHERE {condition}", "22P02",
              'malformed array literal: "{1,"', params=("{1,",), error=txlake.DataError)
    # a ? in x too (it is x's type the elements take: the ? is handed on twice, bound once)
    assert scalars.execute("SELECT ? = ANY('{1,2}'), ? > ALL(?), ? = ANY(?)", (1, 3, "{1,2}", "a", "{a,b}")
                           ).fetchone() == (True, True, True)
    assert column(scalars, "SELECT id FROM t WHERE x + ? = ANY(?) AND id < ?", 1, "{6,8}", 3) == [1]
    assert column(scalars, "SELECT id FROM t WHERE s <> ALL(?)", '{"a b"}') == [2]
    assert column(scalars, "SELECT id FROM t WHERE d = ANY(?)", "{2024-01-01}") == [1]
    assert scalars.execute("UPDATE t SET x = x + 1 WHERE id = ANY(?) RETURNING id, x", ("{1,3}",)).fetchall() == [
        (1, 6), (3, 8)]
    assert scalars.execute("DELETE FROM t WHERE id = ANY(?) RETURNING id", ("{3}",)).fetchall() == [(3,)]


def test_any_and_all_of_a_null_or_empty_array_are_postgresql_s(scalars):
    """A NULL array makes ``x op ANY / ALL`` NULL (DuckDB unnested no element: false for ANY,
    true for ALL, so ``NOT (x = ANY(NULL))`` found every row); an empty one false for ANY and
    true for ALL whatever x is; a NULL element, with no true comparison, NULL."""
    got = scalars.execute("""SELECT x > ANY(NULL::int[]), NOT (x > ANY(NULL::int[])), x = ALL(NULL::int[]),
                                    x = ANY('{}'::int[]), NULL::int > ANY('{}'::int[]), NULL::int <> ALL('{}'::int[]),
                                    NULL::int = ANY('{1}'), 5 = ANY('{5,NULL}'), 6 = ANY('{5,NULL}'),
                                    6 = ANY('{5,NULL}'::int[]), 5 <> ALL('{6,NULL}'), 5 <> ALL('{5,NULL}')
                             FROM t WHERE id = 1""").fetchone()
    assert got == (None, None, None, False, False, True, None, True, None, None, None, False)
    # the point paths (the key's ? alone) and DuckDB's find no row where the comparison is NULL
    for condition in ("id = ANY(?)", "NOT (id = ANY(?))", "id <> ALL(?)", "x = ANY(?)", "NOT (x = ANY(?))"):
        assert column(scalars, f"SELECT id FROM t WHERE {condition}", None) == [], condition
    assert column(scalars, "SELECT id, x = ANY(?) FROM t", None) == [None, None, None]
    assert scalars.execute("UPDATE t SET x = 0 WHERE NOT (id = ANY(?))", (None,)).rowcount == 0
    assert scalars.execute("DELETE FROM t WHERE id <> ALL(?)", (None,)).rowcount == 0
    assert scalars.execute("DELETE FROM t WHERE id = ANY(?)", (None,)).rowcount == 0
    # a CHECK passes a NULL comparison, as PostgreSQL's
    scalars.execute("CREATE TABLE c (x INT, a INT[], CHECK (x = ANY(a)))")
    scalars.execute("INSERT INTO c VALUES (1, NULL), (2, '{2}')")
    fails(scalars, "INSERT INTO c VALUES (3, '{}')", "23514", error=txlake.IntegrityError)


def test_unnest_array_agg_and_strings(tagged):
    assert tagged.execute("SELECT id, unnest(a) FROM t ORDER BY id").fetchall() == [(1, 1), (1, 2), (1, 3), (4, None),
                                                                                    (4, 5)]
    assert tagged.execute("SELECT x, n FROM unnest(ARRAY['p', 'q']) WITH ORDINALITY AS u(x, n)").fetchall() == [
        ("p", 1), ("q", 2)]
    assert tagged.execute("SELECT array_agg(id ORDER BY id), array_agg(a ORDER BY id) FROM t WHERE id < 2"
                          ).fetchone() == ([1], [[1, 2, 3]])
    # (an empty array after {1,2,3}: PostgreSQL's "different dimensionality", as any of another shape)
    fails(tagged, "SELECT array_agg(a ORDER BY id) FROM t WHERE id < 3", "2202E",
          "cannot accumulate arrays of different dimensionality")
    assert tagged.execute("SELECT array_agg(id) FROM t WHERE false").fetchone() == (None,)
    assert column(tagged, "SELECT id, array_to_string(s, '-') FROM t") == ["a-b c", "", None, "x"]
    assert column(tagged, "SELECT id, array_to_string(s, '-', '*') FROM t") == ["a-b c", "", None, "x-*"]
    assert tagged.execute("SELECT string_to_array('a,b,,c', ','), string_to_array('a,b,,c', ',', ''), "
                          "string_to_array('abc', NULL), string_to_array('', ','), string_to_array('a b', ''), "
                          "string_to_array(NULL, ',')").fetchone() == (
        ["a", "b", "", "c"], ["a", "b", None, "c"], ["a", "b", "c"], [], ["a b"], None)


def test_copy_writes_and_reads_postgresql_s_array_text(db, tmp_path):
    db.execute("CREATE TABLE t (id INT, a INT[], s TEXT[])")
    db.execute("""INSERT INTO t VALUES (1, '{1,NULL}', '{"a b","",NULL,"q,x","NULL"}'), (2, NULL, '{}')""")
    text, csv = tmp_path / "t.txt", tmp_path / "t.csv"
    db.execute(f"COPY t TO '{text}'")
    db.execute(f"COPY t TO '{csv}' (FORMAT csv)")
    assert text.read_text() == '1\t{1,NULL}\t{"a b","",NULL,"q,x","NULL"}\n2\t\\N\t{}\n'
    assert csv.read_text().splitlines()[0] == '1,"{1,NULL}","{""a b"","""",NULL,""q,x"",""NULL""}"'
    db.execute("CREATE TABLE u (id INT, a INT[], s TEXT[])")
    db.execute(f"COPY u FROM '{text}'")
    db.execute(f"COPY u FROM '{csv}' (FORMAT csv)")
    expected = [(1, [1, None], ["a b", "", None, "q,x", "NULL"]), (2, None, [])]
    assert db.execute("SELECT * FROM u ORDER BY id").fetchall() == sorted(expected * 2)
    bad = tmp_path / "bad.txt"
    bad.write_text("3\t{1,2\t{}\n")
    with pytest.raises(txlake.DataError) as e:
        db.execute(f"COPY u FROM '{bad}'")
    assert e.value.sqlstate == "22P02" and "malformed array literal" in str(e.value)
    assert db.execute("SELECT count(*) FROM u").fetchone() == (4,)


# --- DB-API: Python lists in and out, as psycopg ----------------------------------------------

def test_python_lists_are_parameters_and_results(db):
    db.execute("SET TIME ZONE 'Asia/Tokyo'")
    db.execute("CREATE TABLE t (id INT, x INT[], n DECIMAL(10,2)[], s TEXT[], b BYTEA[], at TIMESTAMPTZ[])")
    at = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)
    cur = db.cursor()
    cur.executemany("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)", [
        (1, [1, None], [decimal.Decimal("1.5")], ["a", None, "b c"], [b"\x00\xff"], [at]),
        (2, [], None, [], None, None)])
    cur.execute("SELECT * FROM t ORDER BY id")
    assert [(d[0], d[1]) for d in cur.description] == [
        ("id", "INTEGER"), ("x", "INTEGER[]"), ("n", "DECIMAL[]"), ("s", "VARCHAR[]"), ("b", "BLOB[]"),
        ("at", "TIMESTAMPTZ[]")]
    assert all(d[1] != txlake.STRING and d[1] != txlake.NUMBER for d in cur.description[1:])
    rows = cur.fetchall()
    assert rows == [(1, [1, None], [decimal.Decimal("1.50")], ["a", None, "b c"], [b"\x00\xff"], [at]),
                    (2, [], None, [], None, None)]
    assert rows[0][5][0].utcoffset() == datetime.timedelta(hours=9)  # (in the session's zone, as a scalar's)
    assert db.execute("SELECT id FROM t WHERE x = ?", ([1, None],)).fetchall() == [(1,)]
    assert db.execute("SELECT ?::int[] || 3", ([1, 2],)).fetchone() == ([1, 2, 3],)
    assert db.execute("SELECT * FROM t WHERE id = 1").fetch_arrow_table().schema.field("x").type.value_type.bit_width \
        == 32
    fails(db, "INSERT INTO t (id, s) VALUES (3, ?)", "22P02", params=("{a,b",), error=txlake.DataError)
    db.execute("INSERT INTO t (id, s) VALUES (3, ?)", ("{a,b}",))  # (text in PostgreSQL's form, as psycopg may send)
    assert db.execute("SELECT s FROM t WHERE id = 3").fetchone() == (["a", "b"],)


# --- writes that rewrite rows: UPDATE, ON CONFLICT, MERGE, ALTER TABLE ----------------------------

@pytest.fixture
def keyed(connect):
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY, tags TEXT[], n INT[])")
    conn.execute("INSERT INTO t SELECT i, ARRAY['t' || i], ARRAY[i] FROM range(1, 3000) r(i)")  # (a Parquet file)
    return conn


def test_update_and_on_conflict_rewrite_array_columns(connect, keyed):
    assert keyed.execute("UPDATE t SET tags = array_append(tags, 'u'), n = n || 0 WHERE id % 1000 = 1").rowcount == 3
    keyed.execute("INSERT INTO t VALUES (1, '{c}', NULL) ON CONFLICT (id) DO UPDATE "
                  "SET tags = t.tags || EXCLUDED.tags, n = EXCLUDED.n")
    keyed.execute("INSERT INTO t VALUES (2, '{c}', '{9}'), (5000, '{new}', '{}') ON CONFLICT (id) DO NOTHING")
    expected = [(1, ["t1", "u", "c"], None), (2, ["t2"], [2]), (1001, ["t1001", "u"], [1001, 0]),
                (5000, ["new"], [])]
    query = "SELECT * FROM t WHERE id IN (1, 2, 1001, 5000) ORDER BY id"
    assert keyed.execute(query).fetchall() == expected
    assert keyed.execute("DELETE FROM t WHERE 'u' = ANY(tags)").rowcount == 3  # (1, 1001, 2001)
    again = reopen(connect, keyed, checkpoint=True)
    assert again.execute(query).fetchall() == [expected[1], expected[3]]
    assert again.execute("SELECT count(*), sum(n[1]) FROM t").fetchone() == (2997, sum(range(2, 3000)) - 1001 - 2001)


def test_merge_carries_and_changes_array_columns(keyed):
    keyed.execute("CREATE TABLE src (id INT, tags TEXT[])")
    keyed.execute("INSERT INTO src VALUES (1, '{m}'), (6000, '{ins}')")
    done = keyed.execute("MERGE INTO t USING src ON t.id = src.id "
                         "WHEN MATCHED THEN UPDATE SET tags = src.tags || t.tags "
                         "WHEN NOT MATCHED THEN INSERT VALUES (src.id, src.tags, ARRAY[src.id])")
    assert done.rowcount == 2
    assert keyed.execute("SELECT * FROM t WHERE id IN (1, 2, 6000) ORDER BY id").fetchall() == [
        (1, ["m", "t1"], [1]), (2, ["t2"], [2]), (6000, ["ins"], [6000])]


def test_alter_table_adds_and_retypes_array_columns(keyed):
    keyed.execute("ALTER TABLE t ADD COLUMN extra VARCHAR(2)[] DEFAULT ARRAY['ab']")
    keyed.execute("ALTER TABLE t ADD COLUMN more INT[]")
    fails(keyed, "ALTER TABLE t ADD COLUMN bad VARCHAR(2)[] DEFAULT '{abc}'", "22001", error=txlake.DataError)
    assert keyed.execute("SELECT extra, more FROM t WHERE id = 7").fetchone() == (["ab"], None)
    keyed.execute("INSERT INTO t (id, more) VALUES (9000, '{1}')")
    assert keyed.execute("SELECT extra, more FROM t WHERE id = 9000").fetchone() == (["ab"], [1])
    keyed.execute("CREATE TABLE c (id INT, s TEXT)")
    keyed.execute("INSERT INTO c VALUES (1, '{a,b}'), (2, NULL)")
    keyed.execute("ALTER TABLE c ALTER COLUMN s TYPE TEXT[] USING s::text[]")
    assert keyed.execute("SELECT * FROM c ORDER BY id").fetchall() == [(1, ["a", "b"]), (2, None)]
    fails(keyed, "ALTER TABLE c ALTER COLUMN s TYPE VARCHAR(1)[] USING array_append(s, 'cc')", "22001",
          error=txlake.DataError)
    assert keyed.execute("SELECT udt_name FROM information_schema.columns WHERE table_name = 'c' "
                         "AND column_name = 's'").fetchone() == ("_text",)


def test_set_one_element_of_an_array(keyed):
    """UPDATE ... SET a[i] = v (ON CONFLICT and MERGE too), as PostgreSQL's: past the end the
    array grows with NULLs; a NULL array becomes one; a[0] is 2202E (txlake's arrays start at
    1) and a NULL subscript 22004."""
    keyed.execute("UPDATE t SET tags[1] = 'z', n[3] = 7 WHERE id = 1")
    keyed.execute("UPDATE t SET tags = NULL WHERE id = 2")
    keyed.execute("UPDATE t SET tags[2] = ?, n[1] = 8, n[2] = 9 WHERE id = 2", ("q",))
    assert keyed.execute("SELECT tags, n FROM t WHERE id IN (1, 2) ORDER BY id").fetchall() == [
        (["z"], [1, None, 7]), ([None, "q"], [8, 9])]
    keyed.execute("INSERT INTO t VALUES (1, NULL, NULL) ON CONFLICT (id) DO UPDATE SET tags[2] = 'c'")
    keyed.execute("CREATE TABLE src (id INT, tags TEXT[])")
    keyed.execute("INSERT INTO src VALUES (3, '{s}')")
    keyed.execute("MERGE INTO t AS x USING src ON x.id = src.id WHEN MATCHED THEN UPDATE SET tags[1] = src.tags[1]")
    keyed.execute("UPDATE t AS x SET tags[2] = 'w' FROM src WHERE x.id = src.id")
    assert keyed.execute("SELECT tags FROM t WHERE id IN (1, 3) ORDER BY id").fetchall() == [(["z", "c"],),
                                                                                            (["s", "w"],)]
    fails(keyed, "UPDATE t SET n[0] = 1", "2202E", error=txlake.DataError)
    fails(keyed, "UPDATE t SET n[?] = 1 WHERE id = 4", "22004", params=(None,), error=txlake.DataError)
    fails(keyed, "UPDATE t SET n[1] = 1, n = '{}'", "42601", error=txlake.ProgrammingError)
    # (past PostgreSQL's largest array: 54000 at once, where DuckDB began to build it)
    fails(keyed, "UPDATE t SET n[2147483000] = 1 WHERE id = 4", "54000", error=txlake.OperationalError)
    assert keyed.execute("SELECT n FROM t WHERE id = 4").fetchone() == ([4],)


def test_unnest_of_several_arrays_sets_them_side_by_side(db):
    """``FROM unnest(a, b)`` was 42883 (DuckDB's unnest takes one list) - the bulk-load idiom of
    psycopg and asyncpg users: ``INSERT ... SELECT * FROM unnest(?::int[], ?::text[])``. As
    PostgreSQL's: the shorter arrays padded with NULLs, WITH ORDINALITY numbering the rows,
    in FROM, in a join and LATERAL, each array parameter bound once."""
    assert db.execute("SELECT * FROM unnest(ARRAY[1, 2], ARRAY['a', 'b', 'c']) AS u(n, s)").fetchall() \
        == [(1, "a"), (2, "b"), (None, "c")]
    cursor = db.execute("SELECT * FROM unnest(ARRAY[1, 2], ARRAY['a', 'b', 'c']) WITH ORDINALITY AS u(n, s, o) "
                        "WHERE o > 1")
    assert cursor.fetchall() == [(2, "b", 2), (None, "c", 3)] and [d[0] for d in cursor.description] == ["n", "s", "o"]
    db.execute("CREATE TABLE t (id INT PRIMARY KEY, name TEXT)")
    db.execute("INSERT INTO t SELECT * FROM unnest(?::int[], ?::text[])", ([1, 2, 3], ["a", "b", "c"]))
    assert db.execute("SELECT * FROM t ORDER BY id").fetchall() == [(1, "a"), (2, "b"), (3, "c")]
    assert db.execute("SELECT t.id, u.x, u.y FROM t CROSS JOIN LATERAL unnest(ARRAY[t.id * 10], ARRAY[t.name, 'z']) "
                      "WITH ORDINALITY AS u(x, y, n) WHERE t.id = 2 ORDER BY u.n").fetchall() \
        == [(2, 20, "b"), (2, None, "z")]
    assert db.execute("SELECT t.id, u.x FROM t, unnest(ARRAY[t.id], ARRAY[t.name]) AS u(x, y) ORDER BY 1").fetchall() \
        == [(1, 1), (2, 2), (3, 3)]
    assert db.execute("SELECT * FROM unnest(NULL::int[], NULL::text[])").fetchall() == []


# --- multidimensional arrays (src/test/regress/expected/arrays.out) ---------------------------

def test_a_multidimensional_array_is_read_and_written_as_postgresql_s(db):
    assert db.execute("SELECT '{{1,2},{3,4}}'::int[], '{{1,2},{3,4}}'::int[][], ARRAY[[1,2],[3,4]]::text, "
                      "ARRAY[ARRAY['hello'],ARRAY['world']]::text, ARRAY[[[[[['hello'],['world']]]]]]::text, "
                      """'{{"a b",NULL},{t,""}}'::text[]::text, ARRAY[[true, NULL]]::text""").fetchone() == (
        [[1, 2], [3, 4]], [[1, 2], [3, 4]], "{{1,2},{3,4}}", "{{hello},{world}}", "{{{{{{hello},{world}}}}}}",
        '{{"a b",NULL},{t,""}}', "{{t,NULL}}")
    # (array_in's: sub-arrays of different dimensions are a malformed literal)
    fails(db, "SELECT '{{1,2},{3}}'::int[]", "22P02", 'malformed array literal: "{{1,2},{3}}"',
          "Multidimensional arrays must have sub-arrays with matching dimensions.", error=txlake.DataError)
    fails(db, "SELECT '{{1},2}'::int[]", "22P02", "Unexpected array element.", error=txlake.DataError)
    # (an ARRAY[...] of arrays must be rectangular, as PostgreSQL's)
    for built in ("ARRAY[[1,2],[3]]", "ARRAY[ARRAY[1,2], ARRAY[3]]", "ARRAY[[[1,2],[3,4]],[[5,6],[7]]]"):
        fails(db, f"SELECT {built}", "2202E", "multidimensional arrays must have array expressions with matching "
              "dimensions", error=txlake.DataError)
    fails(db, "SELECT cardinality(?)", "0A000", "multidimensional", params=([[1, 2], [3, 4]],),
          error=txlake.NotSupportedError)
    fails(db, "SELECT cardinality(ARRAY[[?, 2], [3, 4]])", "0A000", "parameter", params=(1,),
          error=txlake.NotSupportedError)  # (its functions would take it as one-dimensional: 2)


def test_the_dimension_functions_of_a_multidimensional_array(db):
    assert db.execute("SELECT cardinality(a), array_ndims(a), array_dims(a), array_length(a, 1), "
                      "array_length(a, 2), array_length(a, 3), array_upper(a, 2), array_lower(a, 2), "
                      "array_lower(a, 3) FROM (SELECT ARRAY[[1,2,3],[4,5,6]] AS a) s").fetchone() == (
        6, 2, "[1:2][1:3]", 2, 3, None, 3, 1, None)
    assert db.execute("SELECT cardinality(ARRAY[[1,2],[3,4]]), array_ndims('{{{1},{2}}}'::int[]), "
                      "array_dims('{{{1},{2}}}'::int[]), array_dims(ARRAY[1, 2]), array_ndims(ARRAY[1])"
                      ).fetchone() == (
        4, 3, "[1:1][1:2][1:1]", "[1:2]", 1)


def test_array_agg_of_arrays_is_checked_and_its_dimensions_counted(db):
    """array_agg of 1-D arrays makes a 2-D array: cardinality() and the dimension functions of
    it counted its sub-arrays (DuckDB's type came too late to pick the form by), and arrays of
    different sizes, a NULL or an empty one were accumulated, where PostgreSQL's
    accumArrayResultArr refuses them (2202E, 22004)."""
    db.execute("CREATE TABLE a (g int, x int[])")
    db.execute("INSERT INTO a VALUES (1, ARRAY[1,2]), (1, ARRAY[3,4]), (2, ARRAY[5,6]), (2, ARRAY[7]), "
               "(3, NULL), (3, ARRAY[1]), (4, ARRAY[]::int[]), (4, ARRAY[2])")
    fails(db, "SELECT array_agg(x ORDER BY x DESC) FROM a WHERE g = 4", "2202E",
          "cannot accumulate arrays of different dimensionality")  # ({2} first, then {})
    assert db.execute("SELECT cardinality(array_agg(x)), array_ndims(array_agg(x)), array_length(array_agg(x), 2), "
                      "array_dims(array_agg(x ORDER BY x DESC)), array_agg(x ORDER BY x DESC)::text "
                      "FROM a WHERE g = 1").fetchall() == [(4, 2, 2, "[1:2][1:2]", "{{3,4},{1,2}}")]
    assert db.execute("SELECT cardinality(array_agg(g)), array_agg(g) FILTER (WHERE g > 3) "
                      "FROM a").fetchall() == [(8, [4, 4])]
    fails(db, "SELECT array_agg(x) FROM a WHERE g = 2", "2202E", "cannot accumulate arrays of different dimensionality")
    fails(db, "SELECT array_agg(x) FROM a WHERE g = 3", "22004", "cannot accumulate null arrays")
    fails(db, "SELECT array_agg(x ORDER BY x) FROM a WHERE g = 4", "2202E", "cannot accumulate empty arrays")


def test_a_multidimensional_array_s_elements_are_taken_through_its_dimensions(db):
    assert db.execute("SELECT unnest(ARRAY[[1,2],[3,4]])").fetchall() == [(1,), (2,), (3,), (4,)]
    assert db.execute("SELECT x FROM unnest('{{a,b},{c,d}}'::text[]) x").fetchall() == [("a",), ("b",), ("c",),
                                                                                          ("d",)]
    assert db.execute("SELECT * FROM unnest(ARRAY[[1,2],[3,4]], ARRAY[7]) WITH ORDINALITY").fetchall() == [
        (1, 7, 1), (2, None, 2), (3, None, 3), (4, None, 4)]
    assert db.execute("SELECT unnest(ARRAY[[1,2],[3,4]])::text").fetchall() == [("1",), ("2",), ("3",), ("4",)]
    assert db.execute("SELECT array_to_string(ARRAY[[1,2],[3,NULL]], ',', '*'), "
                      "ARRAY[[1,2],[3,4]] @> ARRAY[3], ARRAY[[1,2],[3,4]] @> ARRAY[5], ARRAY[3] <@ ARRAY[[1,2],[3,4]], "
                      "ARRAY[[1,2],[3,4]] && ARRAY[[5,4]], 3 = ANY(ARRAY[[1,2],[3,4]]), 5 = ANY(ARRAY[[1,2],[3,4]]), "
                      "0 < ALL('{{1,2},{3,4}}'::int[])").fetchone() == (
        "1,2,3,*", True, False, True, True, True, False, True)


def test_subscripts_and_slices_of_a_multidimensional_array(db):
    row = ("FROM (SELECT ARRAY[[1,2],[3,4]] AS a, "
           "ARRAY[[[111,112],[121,122],[131,132]],[[211,212],[221,122],[231,232]]] AS f) s")
    assert db.execute(f"SELECT a[1], a[1][2], a[2][1], a[3][1], f[1][3][1], f[2][2][1], f[1][1], "
                      f"a[1:2][1:1], a[2:2][2:2], a[1:1][3:4], a[1:2] {row}").fetchone() == (
        None, 2, 3, None, 131, 221, None, [[1], [3]], [[4]], [], [[1, 2], [3, 4]])
    assert db.execute("SELECT (ARRAY[1, 2])[2]").fetchone() == (2,)
    fails(db, f"SELECT a[1:2][1] {row}", "0A000", "slice", error=txlake.NotSupportedError)


def test_concatenation_of_arrays_of_different_dimensions(db):
    assert db.execute("SELECT array_cat(ARRAY[1,2], ARRAY[[3,4],[5,6]]), array_cat(ARRAY[[3,4],[5,6]], ARRAY[1,2]), "
                      "ARRAY[[1,2],[3,4]] || ARRAY[5,6], ARRAY[[['hello','world']]] || ARRAY[[['happy','birthday']]], "
                      "ARRAY[0,0] || ARRAY[1,1] || ARRAY[2,2], 0 || ARRAY[1,2] || 3, "
                      "array_dims(ARRAY[[1,2]] || ARRAY[3,4])").fetchone() == (
        [[1, 2], [3, 4], [5, 6]], [[3, 4], [5, 6], [1, 2]], [[1, 2], [3, 4], [5, 6]],
        [[["hello", "world"]], [["happy", "birthday"]]], [0, 0, 1, 1, 2, 2], [0, 1, 2, 3], "[1:2][1:2]")
    for joined in ("ARRAY[[1,2],[3,4]] || ARRAY[5]", "ARRAY[[1,2],[3,4]] || ARRAY[[5]]",
                   "array_cat(ARRAY[7], ARRAY[[1,2],[3,4]])"):
        fails(db, f"SELECT {joined}", "2202E", "cannot concatenate incompatible arrays", error=txlake.DataError)


def test_the_element_functions_of_a_multidimensional_array(db):
    # (as PostgreSQL's array_userfuncs.c: a search or a removal refused, an append 22000, a replacement kept in shape)
    fails(db, "SELECT array_position(ARRAY[[1,2],[3,4]], 3)", "0A000",
          "searching for elements in multidimensional arrays is not supported", error=txlake.NotSupportedError)
    fails(db, "SELECT array_positions(ARRAY[[1,2],[3,4]], 3)", "0A000", error=txlake.NotSupportedError)
    fails(db, "SELECT array_remove(ARRAY[[1,2],[3,4]], 3)", "0A000",
          "removing elements from multidimensional arrays is not supported", error=txlake.NotSupportedError)
    for call in ("array_append(ARRAY[[1,2],[3,4]], 5)", "array_prepend(0, ARRAY[[1]])"):
        fails(db, f"SELECT {call}", "22000", "argument must be empty or one-dimensional array", error=txlake.DataError)
    assert db.execute("SELECT array_replace(ARRAY[[1,2],[3,4]], 3, 9), array_replace(ARRAY[1,NULL,3], NULL, 9), "
                      "array_position(ARRAY[1,2,3], 3), array_remove(ARRAY[1,2,1], 1), "
                      "array_position(NULL::int[][], 1)").fetchone() == ([[1, 2], [9, 4]], [1, 9, 3], 3, [2], None)
    assert db.execute("SELECT generate_subscripts(ARRAY[[1,2,3],[4,5,6]], 2)").fetchall() == [(1,), (2,), (3,)]
    assert db.execute("SELECT * FROM generate_subscripts(ARRAY[[1,2,3],[4,5,6]], 2, true)").fetchall() == [
        (3,), (2,), (1,)]
    assert db.execute("SELECT count(*) FROM generate_subscripts(ARRAY[[1,2,3],[4,5,6]], 3)").fetchone() == (0,)


def test_array_fill_of_constant_dimensions(db):
    assert db.execute("SELECT array_fill(7, ARRAY[2,3]), array_fill(7, ARRAY[3]), array_fill('x'::text, ARRAY[1,2], "
                      "ARRAY[1,1]), array_fill(7, ARRAY[0]), array_fill(7, '{2,2}')::text, "
                      "array_dims(array_fill(7, ARRAY[2,3]))").fetchone() == (
        [[7, 7, 7], [7, 7, 7]], [7, 7, 7], [["x", "x"]], [], "{{7,7},{7,7}}", "[1:2][1:3]")
    fails(db, "SELECT array_fill(7, ARRAY[NULL::int])", "22004", "dimension values cannot be null",
          error=txlake.DataError)
    fails(db, "SELECT array_fill(7, ARRAY[3], ARRAY[2])", "0A000", "lower bounds", error=txlake.NotSupportedError)
    fails(db, "SELECT array_fill(7, a) FROM (SELECT ARRAY[2] AS a) s", "0A000", error=txlake.NotSupportedError)


def test_the_multidimensional_forms_are_made_where_first_called_after_a_restart(connect):
    # (a database creates them at its first call: a CHECK and a view read back from the catalog call them)
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE t (a INT[] CHECK (cardinality(a) < 3))")
    conn.execute("CREATE TABLE u (x INT CHECK (x < cardinality(ARRAY[[1,2],[3,4]])))")
    conn.execute("CREATE VIEW v AS SELECT array_dims(a) AS d, cardinality(ARRAY[[1,2],[3,4]]) AS c FROM t")
    conn.close()
    again = connect(autocommit=True)
    fails(again, "INSERT INTO u VALUES (?)", "23514", params=(4,), error=txlake.IntegrityError)
    again.execute("INSERT INTO u VALUES (?)", (3,))
    fails(again, "INSERT INTO t VALUES (?)", "23514", params=([1, 2, 3],), error=txlake.IntegrityError)
    fails(again, "INSERT INTO t VALUES (ARRAY[1,2,3])", "23514", error=txlake.IntegrityError)
    again.execute("INSERT INTO t VALUES (ARRAY[1,2])")
    assert again.execute("SELECT * FROM v").fetchall() == [("[1:2]", 4)]


def test_trim_array(db):
    """trim_array (PostgreSQL 14) was 42883: the array without its last n elements (of its
    first dimension), 2202E for n outside 0 .. its length."""
    assert db.execute("SELECT trim_array(ARRAY[1,2,3,4], 2), trim_array(ARRAY[1,2], 2), trim_array(NULL::int[], 1), "
                      "trim_array(ARRAY[[1,2],[3,4]], 1)").fetchone() == ([1, 2], [], None, [[1, 2]])
    fails(db, "SELECT trim_array(ARRAY[1,2], 3)", "2202E", "number of elements to trim must be between 0 and 2")
    fails(db, "SELECT trim_array(ARRAY[1,2], -1)", "2202E", "number of elements to trim must be between 0 and 2")


def test_array_agg_and_string_agg_of_distinct_values_are_sorted(db):
    """array_agg(DISTINCT x) came out in DuckDB's hash order ({2,3,1}); PostgreSQL's DISTINCT
    sorts the values (nulls last), so its array - and string_agg's text - is in order."""
    db.execute("CREATE TABLE d (g INT, x INT, s TEXT)")
    db.execute("INSERT INTO d VALUES (1, 3, 'b'), (1, 1, 'c'), (1, 2, 'a'), (1, 1, 'c'), (1, NULL, NULL), "
               "(2, 20, 'z'), (2, 10, 'y'), (2, 20, 'y')")
    assert db.execute("SELECT g, array_agg(DISTINCT x), string_agg(DISTINCT s, ','), array_agg(DISTINCT s) FROM d "
                      "GROUP BY g ORDER BY g").fetchall() == [
        (1, [1, 2, 3, None], "a,b,c", ["a", "b", "c", None]), (2, [10, 20], "y,z", ["y", "z"])]
    # (an ORDER BY of its own still rules; FILTER keeps the order)
    assert db.execute("SELECT array_agg(DISTINCT x ORDER BY x DESC), array_agg(DISTINCT x) FILTER (WHERE x > 1) "
                      "FROM d").fetchone() == ([None, 20, 10, 3, 2, 1], [2, 3, 10, 20])
