"""json and jsonb columns, casts, operators and functions, as PostgreSQL 16 answers them, and
fetched as psycopg fetches them (parsed into Python objects)."""

import subprocess
import sys

import pytest

import txlake
from tests.conftest import write_skew_over
from tests.engine.test_types import reopen
from tests.conftest import value as one


@pytest.fixture
def db(connect):
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE d (id INT PRIMARY KEY, doc jsonb, raw json)")
    return conn


def test_jsonb_normalises_and_json_keeps_the_text(db):
    """jsonb: keys once (the last wins), shorter keys first, PostgreSQL's spacing and numbers;
    json: the text as given. Both fetch as Python objects, with type code JSON."""
    assert one(db, """SELECT '{"b":1,"a":[1, 2]}'::jsonb::text""") == '{"a": [1, 2], "b": 1}'
    assert one(db, """SELECT '{"aa":1, "b":2, "b":3, "n":1e2, "m":1.50, "z":-0}'::jsonb::text""") == \
        '{"b": 3, "m": 1.50, "n": 100, "z": 0, "aa": 1}'
    assert one(db, """SELECT '{"b":1,  "a":2}'::json::text""") == '{"b":1,  "a":2}'
    db.execute("""INSERT INTO d VALUES (1, '{"b":1,"a":[1, 2]}', '{"b":1,  "a":2}')""")
    db.execute("INSERT INTO d VALUES (?, ?, ?)", (2, {"z": "é", "y": [True, None, 1.5]}, "[1,  2]"))
    cur = db.execute("SELECT doc, raw, doc::text, raw::text FROM d ORDER BY id")
    assert cur.fetchall() == [({"a": [1, 2], "b": 1}, {"b": 1, "a": 2}, '{"a": [1, 2], "b": 1}', '{"b":1,  "a":2}'),
                              ({"y": [True, None, 1.5], "z": "é"}, [1, 2], '{"y": [true, null, 1.5], "z": "é"}',
                               "[1,  2]")]
    assert [d[1] for d in cur.description] == ["JSON", "JSON", "VARCHAR", "VARCHAR"]
    assert cur.description[0][1] == txlake.JSON
    assert db.execute("SELECT doc FROM d WHERE id = 1").fetchall() == [({"a": [1, 2], "b": 1},)]  # (point select)
    assert db.execute("SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'd' "
                      "ORDER BY ordinal_position").fetchall() == [("id", "integer"), ("doc", "jsonb"), ("raw", "json")]


def test_jsonb_equality_is_of_values(db):
    """jsonb's = compared the normalised texts, which keep a number's trailing zeros: '1.0'::jsonb
    = '1'::jsonb was false. PostgreSQL's jsonb = compares values - numbers as numerics - in
    =, <>, IS [NOT] DISTINCT FROM, where an operand is evidently jsonb (a cast, an operator's result)."""
    assert db.execute("""SELECT '{"a":1, "b":2}'::jsonb = '{"b":2,"a":1}'::jsonb, '1.0'::jsonb = '1'::jsonb,
                                '1.0'::jsonb <> '1'::jsonb, '1e2'::jsonb = '100.00'::jsonb,
                                '{"a": [1.50, {"b": 0.0}]}'::jsonb = '{"a": [1.5, {"b": -0}]}'::jsonb,
                                '"1.0"'::jsonb = '"1"'::jsonb, '[1, 2]'::jsonb = '[2, 1]'::jsonb,
                                NULL::jsonb = '1'::jsonb""").fetchone() == (
        True, True, False, True, True, False, False, None)
    db.execute("""INSERT INTO d (id, doc) VALUES (1, '{"a": 1.0, "b": [1.50, 2]}'), (2, '{"a": 1}'), (3, NULL),
                  (4, '"1.0"')""")
    rows = lambda sql: [r[0] for r in db.execute(sql).fetchall()]  # noqa: E731
    assert rows("""SELECT id FROM d WHERE doc = '{"b": [1.5, 2.0], "a": 1}'::jsonb""") == [1]
    assert rows("""SELECT id FROM d WHERE doc -> 'a' = '1' ORDER BY id""") == [1, 2]  # (the string: a jsonb)
    assert rows("""SELECT id FROM d WHERE doc IS DISTINCT FROM '{"a": 1.00}'::jsonb ORDER BY id""") == [1, 3, 4]
    with pytest.raises(txlake.Error) as e:  # (the other operand is read as jsonb, as PostgreSQL reads it)
        db.execute("SELECT id FROM d WHERE doc -> 'a' = 'x'")
    assert e.value.sqlstate == "22P02"


# PostgreSQL 16's btree order of jsonb, lowest first (json.sgml, "jsonb Indexing"): an empty array
# at the top below null, then null < strings (by byte) < numbers (by value) < false < true <
# arrays (more elements higher, then element by element) < objects (more pairs higher, then key,
# value, ... with keys in jsonb's order: shorter first - so {"aa": 1, "c": 1} > {"b": 1, "d": 1})
JSONB_ORDER = ['[]', 'null', '""', '"a"', '"ab"', '"b"', '-10', '-1.5', '0', '1', '2', '9', '10', '1e3', 'false',
               'true', '[null]', '[1]', '[2]', '[[]]', '[{}]', '[1, 2]', '{}', '{"a": 1}', '{"a": 2}',
               '{"b": 1, "d": 1}', '{"c": 1, "aa": 1}']


def test_jsonb_sorts_and_compares_in_its_btree_order(db):
    """ORDER BY a jsonb column, and <, >, = of two jsonb columns, or of one and a jsonb value,
    follow PostgreSQL's jsonb order; they compared the texts ('10' < '9', '[1]' < '{}' < 'null')."""
    db.execute("CREATE TABLE o (id INT PRIMARY KEY, a jsonb, b jsonb)")
    shuffled = sorted(range(len(JSONB_ORDER)), key=lambda i: (i * 7) % len(JSONB_ORDER))
    for i in shuffled:
        db.execute("INSERT INTO o VALUES (?, ?, '1.0')", (i, JSONB_ORDER[i]))
    db.execute("INSERT INTO o VALUES (100, NULL, '1')")
    ids = lambda sql, params=(): [r[0] for r in db.execute(sql, params).fetchall()]  # noqa: E731
    everything = list(range(len(JSONB_ORDER)))
    assert ids("SELECT id FROM o WHERE id < 100 ORDER BY a") == everything
    assert ids("SELECT id FROM o ORDER BY o.a DESC NULLS LAST") == everything[::-1] + [100]
    assert ids("SELECT id FROM o WHERE id IN (8, 12, 9) ORDER BY a") == [8, 9, 12]  # (the point path's rows)
    assert ids("SELECT id, row_number() OVER (ORDER BY a) AS n FROM o WHERE id < 3 ORDER BY n") == [0, 1, 2]
    one_index = JSONB_ORDER.index("1")
    assert ids("SELECT id FROM o WHERE a > b ORDER BY id") == everything[one_index + 1:]  # ('1.0' = '1')
    assert ids("SELECT id FROM o WHERE a = b") == [one_index]
    assert ids("SELECT x.id FROM o AS x JOIN o AS y ON x.a <= y.b WHERE y.id = 100 ORDER BY x.a") == \
        everything[:one_index + 1]
    assert ids("SELECT id FROM o WHERE a < '2'::jsonb ORDER BY id") == everything[:JSONB_ORDER.index("2")]
    # ([[]] -> 0 is an empty array at the top: below 0)
    assert ids("SELECT id FROM o WHERE a -> 0 > '0' ORDER BY a") == [JSONB_ORDER.index(v) for v in
                                                                    ('[1]', '[2]', '[{}]', '[1, 2]')]
    assert db.execute("UPDATE o SET b = a WHERE a >= b").rowcount == len(JSONB_ORDER) - one_index
    assert db.execute("DELETE FROM o WHERE a < b").rowcount == one_index  # (those whose b is still 1.0)


@pytest.fixture
def numbers(db):
    """``t``: jsonb 10, 9, "s" and NULL - text order ('"s"' < '10' < '9') is not jsonb's ("s" < 9 < 10)."""
    db.execute("CREATE TABLE t (id INT PRIMARY KEY, v jsonb)")
    db.execute("""INSERT INTO t VALUES (1, '10'), (2, '9'), (3, '"s"'), (4, NULL)""")
    return lambda sql, params=(): [r[0] for r in db.execute(sql, params).fetchall()]


def test_a_jsonb_column_compared_with_a_constant_or_parameter_in_jsonb_order(db, numbers):
    """A jsonb column against a string constant or a parameter (read as jsonb), or IN a subquery
    of jsonb, compared the texts: v > '9' found nothing ('10' < '9'), v = '10.0' not 10.
    PostgreSQL compares jsonb values."""
    ids = numbers
    for sql, params, expected in [
            ("SELECT id FROM t WHERE v > '9'", (), [1]), ("SELECT id FROM t WHERE v > ?", ("9",), [1]),
            ("SELECT id FROM t WHERE '9' < v", (), [1]), ("SELECT id FROM t WHERE v >= '9' ORDER BY id", (), [1, 2]),
            ("SELECT id FROM t WHERE v < ? ORDER BY id", ("10",), [2, 3]),
            ("SELECT id FROM t WHERE v <= '9' ORDER BY id", (), [2, 3]),
            ("SELECT id FROM t WHERE v = '10.0'", (), [1]), ("SELECT id FROM t WHERE v = ?", ("1e1",), [1]),
            ("SELECT id FROM t WHERE v <> '10.0' ORDER BY id", (), [2, 3]),
            ("SELECT id FROM t WHERE v IS DISTINCT FROM '10.0' ORDER BY id", (), [2, 3, 4]),
            ("SELECT id FROM t WHERE v BETWEEN '9' AND ? ORDER BY id", ("11",), [1, 2]),
            ("SELECT id FROM t WHERE v IN ('10.0', '\"s\"') ORDER BY id", (), [1, 3])]:
        assert ids(sql, params) == expected, sql
    db.execute("INSERT INTO t VALUES (5, '10.0')")  # (PostgreSQL: = 10)
    for sql, expected in [("SELECT id FROM t WHERE v IN (SELECT v FROM t WHERE id = 1) ORDER BY id", [1, 5]),
                          ("SELECT id FROM t WHERE v NOT IN (SELECT v AS w FROM t WHERE id = 5) ORDER BY id", [2, 3]),
                          ("SELECT id FROM t WHERE v IN (SELECT v FROM t WHERE id = 1 UNION SELECT v FROM t "
                           "WHERE id = 2) ORDER BY id", [1, 2, 5])]:
        assert ids(sql) == expected, sql
    db.execute("DELETE FROM t WHERE id = 5")
    db.execute("PREPARE q AS SELECT id FROM t WHERE v > $1")
    assert ids("EXECUTE q('9')") == [1]
    assert db.execute("UPDATE t SET v = '9.0' WHERE v = '9'").rowcount == 1
    assert db.execute("DELETE FROM t WHERE v > ?", ("9.5",)).rowcount == 1
    for bad in ("SELECT id FROM t WHERE v > 'x'", "SELECT id FROM t WHERE id > 100 AND v = '{a'"):
        with pytest.raises(txlake.DataError) as e:  # (read when the statement is, row or no row)
            db.execute(bad)
        assert e.value.sqlstate == "22P02", bad
    assert ids("SELECT id FROM t ORDER BY id") == [2, 3, 4]


def test_jsonb_sorts_in_its_order_by_alias_number_expression_and_everywhere_else(db, numbers):
    """ORDER BY an output alias or number of a jsonb column, a jsonb expression (->, #>), in a
    DISTINCT query, a set operation, a window, an ordered aggregate: each sorted by the text
    ((3, "s"), (1, 10), (2, 9)) while ORDER BY v was jsonb's order. min / max of jsonb are
    42883, as PostgreSQL has none."""
    ids = numbers
    jsonb_order = [3, 2, 1]  # "s" < 9 < 10
    db.execute("DELETE FROM t WHERE id = 4")
    for sql in ("SELECT id FROM t ORDER BY v", "SELECT id, v AS w FROM t ORDER BY w", "SELECT id, v FROM t ORDER BY 2",
                "SELECT * FROM t ORDER BY 2", "SELECT id FROM t ORDER BY to_jsonb(v)",
                "SELECT id, row_number() OVER (ORDER BY v) AS n FROM t ORDER BY n"):
        assert ids(sql) == jsonb_order, sql
    assert ids("SELECT id, CAST(v AS TEXT) AS v FROM t ORDER BY v") == [3, 1, 2]  # (the output column: text)
    values = [r[0] for r in db.execute("SELECT v FROM t ORDER BY v").fetchall()]
    assert values == ["s", 9, 10]
    for sql in ("SELECT DISTINCT v FROM t ORDER BY v", "SELECT DISTINCT v AS w FROM t ORDER BY 1",
                "SELECT v FROM t UNION SELECT v FROM t ORDER BY 1",
                "SELECT v AS w FROM t EXCEPT SELECT NULL ORDER BY w"):
        assert [r[0] for r in db.execute(sql).fetchall()] == values, sql
    assert db.execute("SELECT jsonb_agg(v ORDER BY v DESC) FROM t").fetchone()[0] == values[::-1]
    db.execute("""INSERT INTO d (id, doc) VALUES (1, '{"a": 10, "b": {"c": 10}}'), (2, '{"a": 9, "b": {"c": 9}}'),
                  (3, '{"a": "s", "b": {"c": "x"}}')""")
    for sql in ("SELECT id FROM d ORDER BY doc -> 'a'", "SELECT id, doc -> 'a' AS a FROM d ORDER BY a",
                "SELECT id, doc -> 'a' FROM d ORDER BY 2", "SELECT id FROM d ORDER BY doc #> '{b,c}'"):
        assert ids(sql) == jsonb_order, sql
    for sql in ("SELECT max(v) FROM t", "SELECT min(doc -> 'a') FROM d"):
        with pytest.raises(txlake.ProgrammingError) as e:
            db.execute(sql)
        assert e.value.sqlstate == "42883" and "(jsonb) does not exist" in str(e.value), sql


def test_a_derived_tables_jsonb_column_sorts_and_compares_as_what_it_stands_for(db, numbers):
    """A column of a subquery in FROM or of a CTE is what its query's output column is: s.v of
    (SELECT v FROM t) s sorted and compared by the text; one made text (CAST(v AS TEXT) AS v,
    named as a jsonb column of the statement is) was sorted as jsonb."""
    ids = numbers
    for sql in ("SELECT s.id FROM (SELECT id, v FROM t) AS s WHERE s.v IS NOT NULL ORDER BY s.v",
                "SELECT s.id FROM (SELECT id, v AS w FROM t WHERE v IS NOT NULL) AS s(id, x) ORDER BY x",
                "WITH x AS (SELECT id, v FROM t WHERE v IS NOT NULL) SELECT id FROM x ORDER BY v"):
        assert ids(sql) == [3, 2, 1], sql
    assert ids("SELECT id FROM (SELECT id, v AS w FROM t) AS s WHERE s.w > '9'") == [1]
    for sql in ("SELECT id FROM (SELECT id, CAST(v AS TEXT) AS v FROM t WHERE v IS NOT NULL) AS s ORDER BY v",
                "WITH x AS (SELECT id, CAST(v AS TEXT) AS v FROM t WHERE id < 4) "
                "SELECT x.id FROM x JOIN t ON t.id = x.id ORDER BY x.v"):
        assert ids(sql) == [3, 1, 2], sql  # ('"s"' < '10' < '9': text)


def test_a_check_on_a_jsonb_column_compares_in_jsonb_order(db):
    """CHECK (v > '9') refused 10 ('10' < '9'): a CHECK compares as a statement does - a row
    at a time, many rows at once, INSERT ... SELECT's stream, existing rows (ADD CONSTRAINT)."""
    db.execute("CREATE TABLE c (id INT PRIMARY KEY, v jsonb CHECK (v > '9'))")
    db.execute("INSERT INTO c VALUES (1, '10')")
    db.execute("INSERT INTO c VALUES " + ", ".join(f"({i}, '{i}')" for i in range(10, 40)))
    db.execute("INSERT INTO c SELECT id + 100, v FROM c")
    db.execute("ALTER TABLE c ADD CONSTRAINT below CHECK (v < '1000')")
    for bad in ("""INSERT INTO c VALUES (2, '"s"')""", "INSERT INTO c VALUES (2, '9.0')",
                "UPDATE c SET v = '8' WHERE id = 1", "INSERT INTO c SELECT id + 200, '1e3' FROM c"):
        with pytest.raises(txlake.IntegrityError) as e:
            db.execute(bad)
        assert e.value.sqlstate == "23514", bad
    assert db.execute("SELECT count(*), min(id), max(id) FROM c").fetchone() == (62, 1, 139)


def test_a_query_planned_before_its_column_became_jsonb_sorts_in_jsonb_order(db):
    """A session's plan of a query is good for the schemas it was made for: after ALTER COLUMN
    TYPE jsonb, or a table dropped and made again with a jsonb column, the same statement sorts
    in jsonb's order (the plan made for text kept text order)."""
    query = "SELECT id FROM t ORDER BY x"
    db.execute("CREATE TABLE t (id INT PRIMARY KEY, x TEXT)")
    db.execute("INSERT INTO t VALUES (1, '10'), (2, '9'), (3, '[]')")
    assert db.execute(query).fetchall() == [(1,), (2,), (3,)]
    db.execute("ALTER TABLE t ALTER COLUMN x TYPE jsonb USING x::jsonb")
    assert db.execute(query).fetchall() == [(3,), (2,), (1,)]
    db.execute("DROP TABLE t")
    db.execute("CREATE TABLE t (id INT PRIMARY KEY, x TEXT)")
    db.execute("INSERT INTO t VALUES (1, '10'), (2, '9'), (3, '[]')")
    assert db.execute(query).fetchall() == [(1,), (2,), (3,)]
    db.execute("DROP TABLE t")
    db.execute("CREATE TABLE t (id INT PRIMARY KEY, x jsonb)")
    db.execute("INSERT INTO t VALUES (1, '10'), (2, '9'), (3, '[]')")
    assert db.execute(query).fetchall() == [(3,), (2,), (1,)]


def test_jsonb_order_where_the_catalog_has_no_jsonb_table(connect):
    """The jsonb order is skipped while no table has a jsonb column (the catalog counts them),
    but a temporary table's, or one the open transaction made, is none of the catalog's: each
    sorts and compares in jsonb's order; so does one altered to have one, and one found in the
    catalog read from disk."""
    conn = connect(autocommit=True)
    ids = lambda sql: [r[0] for r in conn.execute(sql).fetchall()]  # noqa: E731
    conn.execute("CREATE TABLE a (id INT PRIMARY KEY, v TEXT)")
    conn.execute("""INSERT INTO a VALUES (1, '10'), (2, '9'), (3, '"s"')""")
    conn.execute("ALTER TABLE a ALTER COLUMN v TYPE jsonb USING v::jsonb")
    assert ids("SELECT id FROM a ORDER BY v") == [3, 2, 1]
    conn.execute("DROP TABLE a")
    conn.execute("CREATE TEMP TABLE tj (id INT PRIMARY KEY, v jsonb)")
    conn.execute("""INSERT INTO tj VALUES (1, '10'), (2, '9'), (3, '"s"')""")
    assert ids("SELECT id FROM tj ORDER BY v") == [3, 2, 1]
    assert ids("SELECT x.id FROM tj AS x JOIN tj AS y ON x.v > y.v WHERE y.id = 2") == [1]
    conn.execute("BEGIN")
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY, v jsonb)")
    conn.execute("""INSERT INTO t VALUES (1, '10'), (2, '9'), (3, '"s"')""")
    assert ids("SELECT id FROM t ORDER BY v") == [3, 2, 1]
    conn.execute("COMMIT")
    for checkpoint in (False, True):
        conn = reopen(connect, conn, checkpoint=checkpoint)
        assert [r[0] for r in conn.execute("SELECT id FROM t ORDER BY v").fetchall()] == [3, 2, 1]


def test_serializable_reads_a_jsonb_predicate_in_jsonb_order(warehouse):
    """A SERIALIZABLE read of ``v > '9'`` (jsonb: 10 matches) and a write of 10 by another
    transaction conflict: the predicate was checked again by the texts ('10' < '9'), so with a
    second conflict the other way round (write skew) both committed."""
    assert write_skew_over(warehouse, "jsonb", '"s"', "v > '9'", "10") == ["ok", "40001"]  # (10 > 9)


@pytest.mark.parametrize("bad", ["{bad", "NaN", "[1,", "{'a': 1}", "1 2", ""])
def test_invalid_json_is_22P02_and_loses_nothing(db, bad):
    db.execute("INSERT INTO d VALUES (1, '{}', '[]')")
    for sql in ("INSERT INTO d VALUES (2, ?)", "INSERT INTO d (id, raw) VALUES (2, ?)",
                "UPDATE d SET doc = ? WHERE id = 1", "SELECT CAST(? AS json)"):
        with pytest.raises(txlake.DataError) as e:
            db.execute(sql, (bad,))
        assert e.value.sqlstate == "22P02" and "invalid input syntax for type json" in str(e.value), sql
    assert db.execute("SELECT id, doc, raw FROM d").fetchall() == [(1, {}, [])]


def test_jsonb_cannot_hold_u0000(db):
    with pytest.raises(txlake.DataError) as e:
        db.execute("""SELECT '"a\\u0000b"'::jsonb""")
    assert e.value.sqlstate == "22P05"


def test_arrow_operators(db):
    """-> by key or index (negative: from the end), ->> as text (a JSON null is NULL), #> and #>>
    by a path; anything missing is NULL. A key is a key as written ('a.b' is one key)."""
    doc = """'{"a": {"b": [5, 6, {"c": "x"}]}, "a.b": 1, "n": null, "s": "t"}'::jsonb"""
    row = db.execute(f"SELECT {doc} -> 'a', {doc} -> 'a' -> 'b' -> -1, {doc} -> 'a' -> 'b' ->> 0, {doc} ->> 's', "
                     f"{doc} -> 's', {doc} ->> 'n', {doc} -> 'n', {doc} -> 'zz', {doc} -> 'a.b', {doc} -> 0, "
                     f"{doc} -> 'a' -> 'b' -> 3, {doc} -> 'a' -> 'b' -> -4").fetchone()
    assert row == ({"b": [5, 6, {"c": "x"}]}, {"c": "x"}, "5", "t", "t", None, None, None, 1, None, None, None)
    assert db.execute(f"SELECT {doc} #> '{{a,b,2}}', {doc} #>> '{{a,b,2,c}}', {doc} #> '{{a,b,-1,c}}', "
                      f"{doc} #> '{{a,x}}', {doc} #>> '{{}}' = {doc}::text, {doc} #>> '{{a,b}}'").fetchone() == \
        ({"c": "x"}, "x", "x", None, True, '[5, 6, {"c": "x"}]')
    db.execute("INSERT INTO d VALUES (1, ?, NULL), (2, ?, NULL)", ({"k": [1, 2]}, {"k": "v"}))
    assert db.execute("SELECT id, doc -> 'k' ->> ?, doc ->> ? FROM d ORDER BY id", (1, "k")).fetchall() == \
        [(1, "2", "[1, 2]"), (2, None, "v")]
    assert db.execute("SELECT jsonb_agg(doc -> 'k') FROM d").fetchone() == ([[1, 2], "v"],)


def test_containment_existence_and_concatenation(db):
    # (a list parameter is an array: JSON text for a json array)
    db.execute("INSERT INTO d VALUES (1, ?, NULL), (2, ?, NULL), (3, ?, NULL)",
               ({"a": 1, "tags": ["x", "y"]}, {"a": 2, "tags": ["y"]}, '["x", 1]'))
    assert db.execute("""SELECT id FROM d WHERE doc @> '{"tags": ["y"]}' ORDER BY id""").fetchall() == [(1,), (2,)]
    assert db.execute("""SELECT id FROM d WHERE '{"a": 1}' <@ doc""").fetchall() == [(1,)]
    assert db.execute("SELECT id FROM d WHERE doc @> '1'").fetchall() == [(3,)]  # (a top-level array element)
    assert db.execute("SELECT id FROM d WHERE doc ? 'x' ORDER BY id").fetchall() == [(3,)]
    assert db.execute("SELECT id FROM d WHERE doc ? 'tags' ORDER BY id").fetchall() == [(1,), (2,)]
    assert one(db, """SELECT '{"a": 1, "b": 2}'::jsonb @> '{"b": 2.0}'""") is True
    assert one(db, """SELECT '{"a": {"b": 1}}'::jsonb @> '{"b": 1}'""") is False
    assert one(db, """SELECT '[[1, 2]]'::jsonb @> '[1]'""") is False
    assert db.execute("""SELECT '{"a": 1, "b": 2}'::jsonb || '{"b": 3}'::jsonb, '[1]'::jsonb || '[2, 3]'::jsonb,
                         '[1]'::jsonb || '{"a": 1}'::jsonb, '1'::jsonb || '2'::jsonb, 'x' || 'y'""").fetchone() == \
        ({"a": 1, "b": 3}, [1, 2, 3], [1, {"a": 1}], [1, 2], "xy")
    db.execute("""UPDATE d SET doc = doc || '{"seen": true}'::jsonb WHERE id = 2""")
    # (keys of one length in the order of their bytes)
    assert one(db, "SELECT doc::text FROM d WHERE id = 2") == '{"a": 2, "seen": true, "tags": ["y"]}'
    assert db.execute("SELECT ARRAY[1, 2] @> ARRAY[2], [1, 2] @> [3]").fetchone() == (True, False)  # (lists stay lists)


def test_functions(db):
    assert db.execute("""SELECT jsonb_typeof('{}'), jsonb_typeof('[]'), jsonb_typeof('"s"'), jsonb_typeof('1.5'),
                         jsonb_typeof('true'), jsonb_typeof('null'), jsonb_array_length('[1, [2, 3]]')""").fetchone() \
        == ("object", "array", "string", "number", "boolean", "null", 2)
    for arg, what in (("'{}'", "a non-array"), ("'1'", "a scalar")):
        with pytest.raises(txlake.DataError) as e:
            db.execute(f"SELECT jsonb_array_length({arg})")
        assert e.value.sqlstate == "22023" and f"cannot get array length of {what}" in str(e.value)
    assert one(db, "SELECT jsonb_build_object('b', 1, 'a', 'x', 'c', NULL)::text") == '{"a": "x", "b": 1, "c": null}'
    assert db.execute("SELECT to_jsonb('x'::text), to_jsonb(3), to_jsonb(true)").fetchone() == ("x", 3, True)
    assert db.execute("SELECT jsonb_agg(i ORDER BY i DESC) FROM range(3) r(i)").fetchone() == ([2, 1, 0],)
    assert db.execute("SELECT jsonb_agg(i) FROM range(0) r(i)").fetchone() == (None,)  # (no rows: NULL)
    db.execute("INSERT INTO d (id, doc) SELECT i, jsonb_build_object('n', i, 'odd', i % 2 = 1) FROM range(1, 5) r(i)")
    assert db.execute("SELECT doc ->> 'odd', count(*) FROM d GROUP BY 1 ORDER BY 1").fetchall() == \
        [("false", 2), ("true", 2)]


def test_json_aggregates_take_filter_and_over(db):
    # a FILTER or OVER of json_agg / jsonb_agg / json[b]_object_agg was 22023 / 42883: their
    # rewrite wraps the aggregate in scalar functions, which took the clause
    db.execute("INSERT INTO d (id, doc) VALUES (1, '\"a\"'), (2, '\"b\"'), (3, NULL)")
    assert db.execute("""SELECT jsonb_agg(doc ORDER BY id) FILTER (WHERE doc IS NOT NULL),
                                coalesce(json_agg(id) FILTER (WHERE id > 5), '[]'),
                                jsonb_object_agg(id, doc) FILTER (WHERE id > 1),
                                json_object_agg(id, doc) FILTER (WHERE doc IS NOT NULL) FROM d""").fetchone() == (
        ["a", "b"], [], {"2": "b", "3": None}, {"1": "a", "2": "b"})
    assert db.execute("""SELECT id, json_agg(doc) OVER (ORDER BY id),
                                jsonb_agg(id) FILTER (WHERE id > 1) OVER (ORDER BY id)
                         FROM d ORDER BY id""").fetchall() == [
        (1, ["a"], None), (2, ["a", "b"], [2]), (3, ["a", "b", None], [2, 3])]
    db.execute("CREATE VIEW named AS SELECT jsonb_agg(doc) FILTER (WHERE id < 3) AS docs FROM d")
    assert one(db, "SELECT docs FROM named") == ["a", "b"]


@pytest.mark.parametrize("checkpoint", [False, True])
def test_json_survives_a_restart(connect, db, checkpoint):
    db.execute("""INSERT INTO d VALUES (1, '{"b":1,"a":2}', '{"b":1,  "a":2}')""")
    db.execute("INSERT INTO d SELECT i, jsonb_build_object('n', i), '[ ]' FROM range(2, 300) r(i)")
    again = reopen(connect, db, checkpoint=checkpoint)
    assert again.execute("SELECT doc::text, raw::text FROM d WHERE id = 1").fetchone() == \
        ('{"a": 2, "b": 1}', '{"b":1,  "a":2}')
    assert again.execute("SELECT count(*) FROM d WHERE doc @> '{\"n\": 7}'").fetchone() == (1,)
    assert again.execute("SELECT data_type FROM information_schema.columns WHERE table_name = 'd' "
                         "AND column_name = 'doc'").fetchone() == ("jsonb",)


def test_copy_in_and_out_as_text(connect, db, tmp_path):
    """COPY reads json and jsonb as text (jsonb normalised; a bad field fails the whole COPY with
    its line) and writes their text."""
    good, bad = tmp_path / "good.tsv", tmp_path / "bad.tsv"
    good.write_text('1\t{"b":1,"a":2}\t[1,  2]\n2\t\\N\t\\N\n')
    bad.write_text('3\t{}\t[]\n4\t{bad\t[]\n')
    db.execute(f"COPY d FROM '{good}'")
    with pytest.raises(txlake.DataError) as e:
        db.execute(f"COPY d FROM '{bad}'")
    assert e.value.sqlstate == "22P02" and "line 2, column doc" in str(e.value)
    out = tmp_path / "out.tsv"
    db.execute(f"COPY d TO '{out}'")
    assert out.read_text() == '1\t{"a": 2, "b": 1}\t[1,  2]\n2\t\\N\t\\N\n'


def test_the_shell_prints_json_as_text(warehouse):
    out = subprocess.run([sys.executable, "-m", "txlake.repl.cli", warehouse, "-c",
                          """SELECT '{"b":1,"a":[1, 2]}'::jsonb AS j, '{"k" : 1}'::json -> 'k' AS k"""],
                         capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[2] == ' {"a": [1, 2], "b": 1} | 1'


def test_set_returning_functions(db):
    """jsonb_array_elements[_text] in a select list or FROM, jsonb_each[_text] in FROM (reading
    the FROM items before it, as PostgreSQL's LATERAL-by-default function calls do)."""
    db.execute("""INSERT INTO d VALUES (1, '{"b": [1, {"x": 2}], "a": "s"}', NULL), (2, '{"z": null}', NULL)""")
    assert db.execute("""SELECT jsonb_array_elements('[1, {"a":2}, "x"]')""").fetchall() == [(1,), ({"a": 2},), ("x",)]
    assert db.execute("""SELECT jsonb_array_elements_text('[1, {"a":2}, "x", null]')""").fetchall() == \
        [("1",), ('{"a": 2}',), ("x",), (None,)]
    cur = db.execute("SELECT id, e.key, e.value FROM d, jsonb_each(d.doc) AS e ORDER BY id, key")
    assert cur.fetchall() == [(1, "a", "s"), (1, "b", [1, {"x": 2}]), (2, "z", None)]
    assert [c[0] for c in cur.description] == ["id", "key", "value"]
    assert db.execute("SELECT id, key, value FROM d, jsonb_each_text(doc) ORDER BY 1, 2").fetchall() == \
        [(1, "a", "s"), (1, "b", '[1, {"x": 2}]'), (2, "z", None)]
    assert db.execute("SELECT id, x FROM d, jsonb_array_elements(doc -> 'b') AS e(x)").fetchall() == \
        [(1, 1), (1, {"x": 2})]
    for sql, words in (("SELECT * FROM jsonb_each('[1]')", "cannot call jsonb_each on a non-object"),
                       ("SELECT jsonb_array_elements('{}')", "cannot extract elements from an object"),
                       ("SELECT jsonb_array_elements('1')", "cannot extract elements from a scalar")):
        with pytest.raises(txlake.DataError) as e:
            db.execute(sql)
        assert e.value.sqlstate == "22023" and words in str(e.value)


def test_a_lone_surrogate_escape_is_no_json(db):
    for t in ("json", "jsonb"):
        with pytest.raises(txlake.DataError) as e:
            db.execute(f"""SELECT '"\\ud800"'::{t}""")
        assert e.value.sqlstate == "22P02"
    assert one(db, """SELECT '"\\ud83d\\ude00"'::jsonb::text""") == '"\U0001F600"'


@pytest.mark.parametrize("sql", ["INSERT INTO d (id, doc) VALUES (1, ?)",  # (checked in Python)
                                 "INSERT INTO d (id, doc) SELECT 1, ?",  # (by DuckDB, calling it)
                                 "SELECT ?::jsonb"])
def test_jsonb_input_refusals_are_the_same_on_every_path(db, sql):
    """U+0000 is 22P05 and nesting too deep for the stack 54001 however the text comes in: the
    point INSERT said 22P02 for the one and let Python's RecursionError escape for the other."""
    # (nesting: 20,000 deep, past Python's recursion limit - raised for PL/pgSQL's nested calls;
    # PostgreSQL's json.out: 10,000 deep is past its stack depth)
    for text, sqlstate in [('{"a": "\\u0000"}', "22P05"), ("[" * 20000 + "]" * 20000, "54001"), ("{bad", "22P02")]:
        with pytest.raises(txlake.Error) as e:
            db.execute(sql, (text,))
        assert e.value.sqlstate == sqlstate, (sql, text[:20])
    assert db.execute("SELECT count(*) FROM d").fetchone() == (0,)


def test_building_and_aggregating_functions(db):
    """json's builders write PostgreSQL's layout (json keeps its text); jsonb's are normalised."""
    assert db.execute("""SELECT json_build_object('b', 1, 'a', 'x', 'c', ARRAY[1, 2])::text,
                                json_build_array(1, 'a', NULL)::text, jsonb_build_array(2, 'x')::text,
                                json_build_object()::text, json_build_array()::text""").fetchone() == \
        ('{"b" : 1, "a" : "x", "c" : [1,2]}', '[1, "a", null]', '[2, "x"]', "{}", "[]")
    assert db.execute("SELECT json_build_object('a', 1, 'b', NULL)").fetchone() == ({"a": 1, "b": None},)
    with pytest.raises(txlake.DataError) as e:
        db.execute("SELECT json_build_object('a', 1, 'b')")
    assert e.value.sqlstate == "22023" and "even number of elements" in str(e.value)
    db.execute("""INSERT INTO d VALUES (1, '{"n": 1}', '{"n": 1}'), (2, '[2]', '[2]')""")
    assert db.execute("SELECT json_agg(id ORDER BY id DESC)::text, json_agg(doc ORDER BY id)::text FROM d").fetchone() \
        == ("[2, 1]", '[{"n":1}, [2]]')
    assert db.execute("SELECT json_object_agg(id, doc ORDER BY id)::text, jsonb_object_agg(id, doc)::text FROM d") \
        .fetchone() == ('{ "1" : {"n":1}, "2" : [2] }', '{"1": {"n": 1}, "2": [2]}')
    assert db.execute("SELECT json_agg(id), json_object_agg(id, id) FROM d WHERE id > 5").fetchone() == (None, None)
    assert db.execute("""SELECT json_object_agg(k, v)::text, jsonb_object_agg(k, v)::text
                         FROM (VALUES ('a', 1), ('a', 2)) t(k, v)""").fetchone() == ('{ "a" : 1, "a" : 2 }', '{"a": 2}')
    with pytest.raises(txlake.DataError) as e:
        db.execute("SELECT json_object_agg(k, v) FROM (VALUES (NULL, 1)) t(k, v)")
    assert e.value.sqlstate == "22004" and "null value not allowed for object key" in str(e.value)
    assert db.execute("SELECT jsonb_agg(id)::text FROM d").fetchone() == ("[1, 2]",)  # (was 42000: no text form)


def test_changing_functions_and_operators(db):
    """jsonb_set, jsonb_insert, #-, - and the strip / pretty functions, as PostgreSQL 16."""
    doc = """'{"a": 1, "b": [1, 2, {"c": null}]}'::jsonb"""
    assert db.execute(f"""SELECT jsonb_set({doc}, '{{a}}', '5')::text, jsonb_set({doc}, ARRAY['b', '0'], '"z"')::text,
                                 jsonb_set({doc}, '{{q}}', '7', false)::text, jsonb_set({doc}, '{{q}}', '7')::text,
                                 jsonb_set({doc}, '{{x,y}}', '7')::text""").fetchone() == \
        ('{"a": 5, "b": [1, 2, {"c": null}]}', '{"a": 1, "b": ["z", 2, {"c": null}]}',
         '{"a": 1, "b": [1, 2, {"c": null}]}', '{"a": 1, "b": [1, 2, {"c": null}], "q": 7}',
         '{"a": 1, "b": [1, 2, {"c": null}]}')
    assert db.execute("""SELECT jsonb_set('[1, 2]', '{5}', '9')::text, jsonb_set('[1, 2]', '{-9}', '0')::text,
                                jsonb_set('[1, 2]', '{-1}', '0')::text""").fetchone() == \
        ("[1, 2, 9]", "[0, 1, 2]", "[1, 0]")
    assert db.execute(f"""SELECT jsonb_insert({doc}, '{{b,0}}', '0')::text,
                                 jsonb_insert({doc}, '{{b,0}}', '0', true)::text,
                                 jsonb_insert({doc}, '{{z}}', '0')::text,
                                 jsonb_insert('[1, 2]', '{{-1}}', '0')::text"""
                      ).fetchone() == \
        ('{"a": 1, "b": [0, 1, 2, {"c": null}]}', '{"a": 1, "b": [1, 0, 2, {"c": null}]}',
         '{"a": 1, "b": [1, 2, {"c": null}], "z": 0}', "[1, 0, 2]")
    assert db.execute(f"""SELECT ({doc} #- '{{b,-1}}')::text, ({doc} #- '{{x,y}}')::text, ({doc} - 'a')::text,
                                 ({doc} - ARRAY['a', 'b'])::text, ('["a", "b", "a"]'::jsonb - 'a')::text,
                                 ('[1, 2, 3]'::jsonb - 1)::text, ('[1, 2, 3]'::jsonb - -1)::text""").fetchone() == \
        ('{"a": 1, "b": [1, 2]}', '{"a": 1, "b": [1, 2, {"c": null}]}', '{"b": [1, 2, {"c": null}]}', "{}", '["b"]',
         "[1, 3]", "[1, 2]")
    for sql, sqlstate, words in (
            ("SELECT jsonb_set('1', '{a}', '2')", "22023", "cannot set path in scalar"),
            (f"SELECT jsonb_insert({doc}, '{{a}}', '0')", "22023", "cannot replace existing key"),
            ("SELECT '{\"a\": 1}'::jsonb - 1", "22023", "cannot delete from object using integer index"),
            ("SELECT '3'::jsonb - 'a'", "22023", "cannot delete from scalar"),
            ("SELECT '3'::jsonb #- '{a}'", "22023", "cannot delete path in scalar"),
            (f"SELECT {doc} #- '{{b,x}}'", "22P02", 'path element at position 2 is not an integer: "x"'),
            (f"SELECT jsonb_set({doc}, '{{a,NULL}}', '1')", "22023", "path element at position 2 is null")):
        with pytest.raises(txlake.DataError) as e:
            db.execute(sql)
        assert e.value.sqlstate == sqlstate and words in str(e.value), sql
    assert db.execute("""SELECT jsonb_strip_nulls('{"a": null, "b": {"c": null, "d": 1}, "e": [null]}')::text,
                                json_strip_nulls('{"a": null, "b": 1}')::text""").fetchone() == \
        ('{"b": {"d": 1}, "e": [null]}', '{"b":1}')
    assert one(db, """SELECT jsonb_pretty('{"b": [1, {}], "a": {"c": null}}')""") == \
        '{\n    "a": {\n        "c": null\n    },\n    "b": [\n        1,\n        {\n        }\n    ]\n}'


@pytest.mark.parametrize("sql, words", [
    ("SELECT 5 #- 3", "operator does not exist: integer #- integer"),
    ("SELECT 5 #- '{a}'", "operator does not exist: integer #- unknown"),
    ("SELECT '{\"a\": 1}'::jsonb #- 3", "operator does not exist: jsonb #- integer"),
    ("SELECT '{\"a\": 1}'::json #- '{a}'", "operator does not exist: json #- unknown"),
    ("SELECT true #- '{a}'", "operator does not exist: boolean #- unknown"),
])
def test_delete_path_of_other_types_is_no_operator(db, sql, words):
    """#- is jsonb #- text[] only: of other operands PostgreSQL has no operator (42883; DuckDB's cast
    of an integer path to a list was 42804)."""
    with pytest.raises(txlake.ProgrammingError) as e:
        db.execute(sql)
    assert e.value.sqlstate == "42883" and str(e.value).startswith(words)


def test_key_and_path_functions(db):
    doc = """'{"a": 1, "b": [1, 2, {"c": null}], "d e": "x"}'::jsonb"""
    assert db.execute(f"""SELECT {doc} ?| ARRAY['a', 'q'], {doc} ?& ARRAY['a', 'b'], {doc} ?& ARRAY['a', 'q'],
                                 {doc} ?| '{{q,"d e"}}', '["x"]'::jsonb ?| ARRAY['x']""").fetchone() == \
        (True, True, False, True, True)
    assert db.execute(f"""SELECT jsonb_extract_path({doc}, 'b', '2'), jsonb_extract_path_text({doc}, 'b', '0'),
                                 json_extract_path_text('{{"x": 1}}', 'x'), json_extract_path('{{"x": [1]}}', 'x', '0'),
                                 jsonb_extract_path({doc}, 'b', NULL), {doc} #> '{{b,1}}'""").fetchone() == \
        ({"c": None}, "1", "1", 1, None, 2)
    assert db.execute("SELECT json_typeof('[]'), json_array_length('[1, 2]')").fetchone() == ("array", 2)
    assert db.execute(f"SELECT jsonb_object_keys({doc})").fetchall() == [("a",), ("b",), ("d e",)]
    cur = db.execute("""SELECT * FROM json_object_keys('{"bb": 1, "a": 2}')""")
    assert cur.fetchall() == [("bb",), ("a",)] and cur.description[0][0] == "json_object_keys"  # (json's order)
    assert db.execute("""SELECT k FROM jsonb_object_keys('{"b": 1}') AS k""").fetchall() == [("b",)]
    with pytest.raises(txlake.DataError) as e:
        db.execute("SELECT jsonb_object_keys('[1]')")
    assert e.value.sqlstate == "22023" and "cannot call jsonb_object_keys on an array" in str(e.value)


def test_a_parameter_before_a_bar_is_no_jsonb_operator(db):
    """``?|`` / ``?&`` are jsonb's operators after an operand only: ``?||'%'`` is a parameter
    and ``||``, ``(?|1)`` a parameter and ``|``."""
    db.execute("""INSERT INTO d VALUES (1, '{"a": 1}', NULL), (2, '{"b": 1}', NULL)""")
    assert db.execute("SELECT id FROM d WHERE doc::text LIKE ?||'%' ORDER BY id", ('{"a"',)).fetchall() == [(1,)]
    assert db.execute("SELECT (?|1), (?&3), ? || 'x'", (4, 6, "w")).fetchone() == (5, 2, "wx")
    assert db.execute("SELECT id FROM d WHERE doc ?| ? ORDER BY id", (["b", "z"],)).fetchall() == [(2,)]


def test_operators_of_a_jsonb_column_are_jsonb_s(db):
    """||, -, @> and <@ of a jsonb column with a constant, a parameter or another jsonb column
    are jsonb's, as PostgreSQL resolves them - the parser cannot tell a column's type, so
    ``doc || '{"z": 9}'`` joined the texts ('{"a": 1}{"z": 9}': then 22P02 storing it), ``doc -
    'a'`` was 42883 and ``doc @> raw`` a list containment error. A text column stays text's."""
    db.execute("""CREATE TABLE j (id INT PRIMARY KEY, v jsonb, w jsonb, t TEXT)""")
    db.execute("""INSERT INTO j VALUES (1, '{"a": 1}', '{"b": 2}', 'x'), (2, '[1, "a"]', '[1]', 'y')""")
    assert db.execute("""SELECT (v || '{"z": 9}')::text, (v || w)::text, v || t FROM j ORDER BY id""").fetchall() == [
        ('{"a": 1, "z": 9}', '{"a": 1, "b": 2}', '{"a": 1}x'), ('[1, "a", {"z": 9}]', '[1, "a", 1]', '[1, "a"]y')]
    assert one(db, "SELECT (v || ?)::text FROM j WHERE id = 1", ('{"p": 1}',)) == '{"a": 1, "p": 1}'
    assert one(db, """SELECT v::text || '{"z": 9}' FROM j WHERE id = 1""") == '{"a": 1}{"z": 9}'  # (texts, as cast)
    assert db.execute("SELECT (v - 'a')::text, (v - ARRAY['a', 'q'])::text FROM j ORDER BY id").fetchall() == \
        [("{}", "{}"), ('[1]', '[1]')]
    assert db.execute("SELECT (v - ?)::text, (v - -1)::text FROM j WHERE id = 2", (0,)).fetchone() == ('["a"]', "[1]")
    assert db.execute("""SELECT id, v @> '{"a": 1}', '{"a": 1}' <@ v, v @> w FROM j ORDER BY id""").fetchall() == \
        [(1, True, True, False), (2, False, False, True)]
    # '{}' reads as an array too (the parser's guess): beside a jsonb column it is the empty object
    # (``v @> '{}'`` was 42883 'function @>(json, varchar[]) does not exist')
    assert db.execute("SELECT id, v @> '{}', v <@ '{}', '{}' <@ v FROM j ORDER BY id").fetchall() == \
        [(1, True, False, True), (2, False, False, False)]
    # chained, and over COALESCE / CASE of one (the outer operator was left text's: review)
    assert db.execute("""SELECT (v || '{"m": 1}' || '{"n": 1}')::text, (v - 'a' - 'q')::text,
                                (COALESCE(v, '{}') || '{"n": 1}')::text, ((v - 'a') || w)::text,
                                (CASE WHEN id = 1 THEN v ELSE '{}' END - 'a')::text,
                                v || '{"m": 1}' = '{"a": 1, "m": 1}'
                         FROM j WHERE id = 1""").fetchone() == \
        ('{"a": 1, "m": 1, "n": 1}', "{}", '{"a": 1, "n": 1}', '{"b": 2}', "{}", True)
    db.execute("""UPDATE j SET v = v || '{"u": true}' WHERE id = 1""")
    db.execute("UPDATE j SET w = w - 'b'")
    assert db.execute("SELECT v::text, w::text FROM j ORDER BY id").fetchall() == \
        [('{"a": 1, "u": true}', "{}"), ('[1, "a"]', "[1]")]


def test_json_s_set_returning_functions_keep_its_text_and_order(db):
    """json (not jsonb) keeps its text: json_object_keys / json_each give the keys in order,
    duplicates too, json_array_elements the elements as written - they gave jsonb's (sorted,
    last duplicate only, normalised). Set-returning calls cast to text, jsonb_pretty of empty
    containers and json_build_object's non-text and NULL keys as PostgreSQL's (review)."""
    assert db.execute("""SELECT json_object_keys('{"b": 1, "a": 2, "b": 3}')""").fetchall() == [("b",), ("a",), ("b",)]
    assert db.execute("""SELECT * FROM json_each('{"b": 1, "a": [1, 2]}')""").fetchall() == [("b", 1), ("a", [1, 2])]
    assert db.execute("""SELECT * FROM json_each_text('{"b": "x", "a": null}')""").fetchall() == \
        [("b", "x"), ("a", None)]
    assert db.execute("""SELECT value::text FROM json_array_elements('[{"x" : 1}, 2]')""").fetchall() == \
        [('{"x" : 1}',), ("2",)]
    assert db.execute("""SELECT json_array_elements('[1, {"a" : 2}]')::text,
                                jsonb_array_elements('[1, {"a" : 2}]')::text""").fetchall() == \
        [("1", "1"), ('{"a" : 2}', '{"a": 2}')]  # (42000 before: no text form of the rows)
    for sql, words in (("SELECT json_object_keys('[1]')", "cannot call json_object_keys on an array"),
                       ("SELECT * FROM json_each('[1]')", "cannot call json_each on a non-object"),
                       ("SELECT json_array_elements('{}')", "cannot extract elements from an object")):
        with pytest.raises(txlake.DataError) as e:
            db.execute(sql)
        assert e.value.sqlstate == "22023" and words in str(e.value), sql
    assert db.execute("""SELECT jsonb_pretty('{}'), jsonb_pretty('{"c": []}')""").fetchone() == \
        ("{\n}", '{\n    "c": [\n    ]\n}')
    assert one(db, "SELECT json_build_object(1, 2, 1.5, 'x')::text") == '{"1" : 2, "1.5" : "x"}'
    with pytest.raises(txlake.DataError) as e:
        db.execute("SELECT json_build_object(NULL, 1)")
    assert e.value.sqlstate == "22004" and "null value not allowed for object key" in str(e.value)


def test_to_json_of_a_row_and_of_values_is_postgresql_s(db):
    """row_to_json(ROW(1, 'a')) was 42804 and to_json(ROW(...)) a JSON array: a ROW's fields
    are f1, f2, ... (a row in a row an object too); an interval's, a bytea's and a timestamp's
    json are PostgreSQL's ("1 year 2 mons", "\\x0102", "2024-01-02T03:04:05.25" - DuckDB wrote
    its own texts), of an aggregate's value too."""
    db.execute("CREATE TABLE r (id int, d interval, ts timestamp, b bytea)")
    db.execute("INSERT INTO r VALUES (1, '1 year 2 mons', '2024-01-02 03:04:05.25', '\\x0102')")
    assert db.execute("SELECT row_to_json(ROW(1, 'a'))::text, to_json(ROW(1, 'a'))::text, to_jsonb((1, 'a'))::text, "
                      "row_to_json(ROW(1, ROW(2, 'x')))::text").fetchone() == (
        '{"f1":1,"f2":"a"}', '{"f1":1,"f2":"a"}', '{"f1": 1, "f2": "a"}', '{"f1":1,"f2":{"f1":2,"f2":"x"}}')
    assert db.execute("SELECT row_to_json(ROW(id, d, ts, b))::text, to_json(d)::text, to_jsonb(ts)::text, "
                      "to_json(b)::text, to_json(max(d))::text FROM r GROUP BY id, d, ts, b").fetchone() == (
        '{"f1":1,"f2":"1 year 2 mons","f3":"2024-01-02T03:04:05.25","f4":"\\\\x0102"}', '"1 year 2 mons"',
        '"2024-01-02T03:04:05.25"', '"\\\\x0102"', '"1 year 2 mons"')
    assert db.execute("SELECT row_to_json(ROW(1, 'a'), false)").fetchone() == ({"f1": 1, "f2": "a"},)
    with pytest.raises(txlake.NotSupportedError):
        db.execute("SELECT row_to_json(ROW(1, 'a'), true)")


def test_json_builders_and_aggregates_write_values_as_to_json(db):
    """json[b]_build_object / _array and json[b]_agg wrote an interval's and a timestamp's
    DuckDB texts ("1 year 2 months", "2024-01-02 03:04:05"): PostgreSQL's to_json's."""
    assert db.execute("SELECT json_build_object('a', 1, 'b', interval '1 year 2 mons')::text, "
                      "jsonb_build_object('t', timestamp '2024-01-02 03:04:05')::text, "
                      "json_build_array(1, 'a', NULL, interval '1 mon')::text").fetchone() == (
        '{"a" : 1, "b" : "1 year 2 mons"}', '{"t": "2024-01-02T03:04:05"}', '[1, "a", null, "1 mon"]')
    assert db.execute("SELECT json_agg(x ORDER BY x DESC)::text, "
                      "jsonb_agg(x) FILTER (WHERE x > interval '1 day')::text "
                      "FROM (VALUES (interval '1 year 2 mons'), (interval '3 days'), (interval '1 hour')) v(x)"
                      ).fetchone() == ('["1 year 2 mons", "3 days", "01:00:00"]', '["1 year 2 mons", "3 days"]')


def test_a_numeric_keeps_its_scale_in_json(db):
    """A numeric in json lost its scale - DuckDB wrote a double (to_json(1.50) was 1.5,
    json_build_object('a', 2.00) {"a" : 2.0}); PostgreSQL's to_json writes numeric's text
    in json and jsonb alike, of a column of a
    numeric(p,s) at its scale (datum_to_json writes numeric_out's text)."""
    assert db.execute("SELECT to_json(1.50::numeric(5,2))::text, to_json(1.50)::text, "
                      "json_build_object('a', 2.00)::text, json_build_array(1.50, 2, 'x', 1.5::float8)::text, "
                      "to_jsonb(-0.50)::text, jsonb_build_object('a', 2.00, 'b', 1)::text").fetchone() == (
        "1.50", "1.50", '{"a" : 2.00}', '[1.50, 2, "x", 1.5]', "-0.50", '{"a": 2.00, "b": 1}')
    db.execute("CREATE TABLE money (k INT, a NUMERIC(10,2), big NUMERIC(38,2))")
    db.execute("INSERT INTO money VALUES (1, 1.50, 123456789012345678.10), (2, NULL, -0.05)")
    assert db.execute("SELECT row_to_json(ROW(k, a))::text, json_build_object('a', a, 'big', big)::text, "
                      "to_jsonb(big)::text FROM money ORDER BY k").fetchall() == [
        ('{"f1":1,"f2":1.50}', '{"a" : 1.50, "big" : 123456789012345678.10}', "123456789012345678.10"),
        ('{"f1":2,"f2":null}', '{"a" : null, "big" : -0.05}', "-0.05")]
    assert db.execute("SELECT json_agg(a ORDER BY k)::text, jsonb_agg(a ORDER BY k)::text, to_json(sum(a))::text, "
                      "json_agg(a) FILTER (WHERE k = 1)::text FROM money").fetchone() == (
        "[1.50, null]", "[1.50, null]", "1.50", "[1.50]")
    assert db.execute("SELECT '{\"a\":1.50}'::jsonb::text, to_jsonb(a) = '1.5'::jsonb, to_json(a) ->> 0 "
                      "FROM money WHERE k = 1").fetchone() == ('{"a": 1.50}', True, None)


def test_to_json_of_a_table_row_writes_its_values_as_postgresql(db):
    """row_to_json(t) / to_json(t) / to_jsonb(t) of a table's row wrote DuckDB's texts of its
    values (a numeric(10,2)'s 1.5, a timestamp "2020-01-02 03:04:05.5", a bytea "\\\\x01\\\\x02");
    PostgreSQL writes each column as to_json does (json.out's row_to_json of a table row)."""
    db.execute("CREATE TABLE r (k INT, a NUMERIC(10,2), d DATE, b BOOLEAN, i INTERVAL, y BYTEA, ts TIMESTAMP, "
               "\"Big\" TEXT)")
    db.execute("INSERT INTO r VALUES (1, 1.50, '2020-01-02', true, '1 day 2 hours', '\\x0102', "
               "'2020-01-02 03:04:05.5', 'x'), (2, NULL, NULL, false, NULL, NULL, NULL, NULL)")
    row = ('{"k":1,"a":1.50,"d":"2020-01-02","b":true,"i":"1 day 02:00:00","y":"\\\\x0102",'
           '"ts":"2020-01-02T03:04:05.5","Big":"x"}')
    assert db.execute("SELECT row_to_json(r)::text FROM r ORDER BY k").fetchall() == [
        (row,), ('{"k":2,"a":null,"d":null,"b":false,"i":null,"y":null,"ts":null,"Big":null}',)]
    assert db.execute("SELECT to_json(t)::text, to_jsonb(t)::text FROM r AS t WHERE k = 1").fetchone() == (
        row, '{"a": 1.50, "b": true, "d": "2020-01-02", "i": "1 day 02:00:00", "k": 1, "y": "\\\\x0102", '
             '"ts": "2020-01-02T03:04:05.5", "Big": "x"}')
    # (a column of that name is the column)
    db.execute("CREATE TABLE c (c NUMERIC(4,2))")
    db.execute("INSERT INTO c VALUES (2.50)")
    assert db.execute("SELECT to_json(c)::text FROM c").fetchone() == ("2.50",)
