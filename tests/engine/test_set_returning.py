"""Set-returning functions where PostgreSQL 16 takes them - FROM, LATERAL joins (WITH
ORDINALITY, column aliases) and the select list - and the ordered-set aggregates' types
(PostgreSQL's src/test/regress/expected/jsonb.out, tsrf.out, rangefuncs.out, aggregates.out)."""

import decimal

import pytest

import txlake


@pytest.fixture
def db(connect):
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE t (id INT, j jsonb, n numeric(10,2))")
    conn.execute("""INSERT INTO t VALUES (1, '{"a": [1, 2], "b": "x"}', 1.5), (2, '{"c": null}', 2.25)""")
    return conn


def rows(db, sql):
    return sorted(db.execute(sql).fetchall(), key=repr)


def test_percentile_cont_is_double_precision(db):
    """percentile_cont takes and returns double precision (of a numeric too: 1.875, not the
    numeric 1.87); percentile_disc gives the input's type; of an interval it is refused."""
    cur = db.execute("SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY n), "
                     "percentile_cont(ARRAY[0.5, 0.1]) WITHIN GROUP (ORDER BY n), "
                     "percentile_disc(0.5) WITHIN GROUP (ORDER BY n) FROM t")
    assert cur.fetchall() == [(1.875, [1.875, 1.575], decimal.Decimal("1.50"))]
    assert [d[1] for d in cur.description] == ["DOUBLE", "DOUBLE[]", "DECIMAL"]
    assert db.execute("SELECT percentile_cont(0.1) WITHIN GROUP (ORDER BY x), percentile_disc(0.25) WITHIN GROUP "
                      "(ORDER BY x DESC), mode() WITHIN GROUP (ORDER BY x % 3) "
                      "FROM generate_series(1, 5) x").fetchall() == [(1.4, 4, 1)]
    with pytest.raises(txlake.NotSupportedError) as e:
        db.execute("SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY interval '1 day' * id) FROM t")
    assert e.value.sqlstate == "0A000"
    with pytest.raises(txlake.ProgrammingError) as e:
        db.execute("SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY now()) FROM t")
    assert e.value.sqlstate == "42883"


def test_json_functions_in_lateral_joins(db):
    """A LATERAL join of a json set-returning function (the json ones were a syntax error at
    "CAST", jsonb_each 42883), and the path functions of one value as FROM items."""
    assert rows(db, "SELECT t.id, v FROM t, LATERAL jsonb_path_query(t.j, '$.a[*]') AS v") == [(1, 1), (1, 2)]
    doc, n = {"a": [1, 2], "b": "x"}, decimal.Decimal("1.50")
    assert rows(db, "SELECT * FROM t CROSS JOIN LATERAL jsonb_path_query(t.j, '$.a[*]')") == \
        [(1, doc, n, 1), (1, doc, n, 2)]
    assert rows(db, "SELECT t.id, e.value FROM t CROSS JOIN LATERAL jsonb_array_elements(t.j -> 'a') e") == \
        [(1, 1), (1, 2)]
    assert rows(db, "SELECT t.id, e.* FROM t, LATERAL jsonb_each(t.j) e") == \
        [(1, "a", [1, 2]), (1, "b", "x"), (2, "c", None)]
    assert rows(db, "SELECT t.id, x.* FROM t, LATERAL jsonb_path_query_array(t.j, '$.a[*]') AS x") == \
        [(1, [1, 2]), (2, [])]
    cur = db.execute("""SELECT * FROM jsonb_path_query_first('{"a": [1, 2]}', '$.a[*]')""")
    assert cur.fetchall() == [(1,)] and cur.description[0][0] == "jsonb_path_query_first"


def test_json_functions_with_ordinality(db):
    """WITH ORDINALITY numbers a json function's rows (it was dropped: no ordinality column),
    and a column alias list names the columns, the number's too."""
    cur = db.execute("""SELECT * FROM jsonb_each('{"b": 1, "a": 2}') WITH ORDINALITY""")
    assert cur.fetchall() == [("a", 2, 1), ("b", 1, 2)]
    assert [d[0] for d in cur.description] == ["key", "value", "ordinality"]
    cur = db.execute("SELECT * FROM json_array_elements_text('[1, 2]') WITH ORDINALITY AS x(a, b)")
    assert cur.fetchall() == [("1", 1), ("2", 2)] and [d[0] for d in cur.description] == ["a", "b"]
    assert rows(db, "SELECT t.id, p.* FROM t, LATERAL jsonb_path_query(t.j, '$.a[*]') WITH ORDINALITY p") == \
        [(1, 1, 1), (1, 2, 2)]


def test_json_each_in_a_select_list(db):
    """json[b]_each[_text] in a select list: a row per member, the record as PostgreSQL writes
    it; ``(jsonb_each(j)).key`` / ``.value`` and ``.*`` its fields; in lockstep with another
    set-returning call, the shorter padded with NULL (42883 / 42601 before)."""
    assert db.execute("SELECT jsonb_each(j) FROM t ORDER BY id").fetchall() == \
        [('(a,"[1, 2]")',), ('(b,"""x""")',), ("(c,null)",)]
    assert db.execute("""SELECT json_each_text('{"b c": "", "d": null, "e": "x\\\\y"}')""").fetchall() == \
        [('("b c","")',), ("(d,)",), ('(e,"x\\\\y")',)]
    cur = db.execute("SELECT id, (jsonb_each(j)).key, (jsonb_each(j)).value FROM t ORDER BY id")
    assert cur.fetchall() == [(1, "a", [1, 2]), (1, "b", "x"), (2, "c", None)]
    assert [d[0] for d in cur.description] == ["id", "key", "value"]
    cur = db.execute("SELECT (jsonb_each_text(j)).*, id FROM t ORDER BY id")
    assert cur.fetchall() == [("a", "[1, 2]", 1), ("b", "x", 1), ("c", None, 2)]
    assert [d[0] for d in cur.description] == ["key", "value", "id"]
    assert db.execute("""SELECT jsonb_each('{"a": 1, "b": 2}'), generate_series(1, 3)""").fetchall() == \
        [("(a,1)", 1), ("(b,2)", 2), (None, 3)]
    with pytest.raises(txlake.ProgrammingError) as e:
        db.execute("SELECT (jsonb_each(j)).nope FROM t")
    assert e.value.sqlstate == "42703"


def test_record_functions_outside_from_are_refused(db):
    """json[b]_to_record[set] need FROM's column definition list; json[b]_populate_record[set]
    are not supported: 0A000 (42883 before, as if PostgreSQL had no such function)."""
    for sql in ("""SELECT jsonb_to_record('{"a": 1}')""", """SELECT json_to_recordset('[{"a": 1}]')""",
                """SELECT * FROM jsonb_populate_record(NULL::t, '{"id": 3}')"""):
        with pytest.raises(txlake.NotSupportedError) as e:
            db.execute(sql)
        assert e.value.sqlstate == "0A000", sql
    assert db.execute("""SELECT * FROM jsonb_to_record('{"a": 1}') AS x(a int)""").fetchall() == [(1,)]


@pytest.mark.parametrize("sql, words", [
    ("SELECT CASE WHEN id > 1 THEN generate_series(1, 2) END FROM t", "not allowed in CASE"),
    ("SELECT CASE generate_series(1, 2) WHEN 1 THEN 'x' ELSE 'y' END", "not allowed in CASE"),
    ("SELECT coalesce(generate_series(1, 2), 0)", "not allowed in COALESCE"),
    ("SELECT sum(generate_series(1, 3))", "aggregate function calls cannot contain set-returning function calls"),
    ("SELECT count(jsonb_array_elements(j)) FROM t", "aggregate function calls cannot contain"),
    ("SELECT min(generate_series(1, 3)) OVER () FROM t", "window function calls cannot contain"),
    ("SELECT 1 FROM t WHERE id = generate_series(1, 2)", "not allowed in WHERE"),
    ("SELECT 1 LIMIT generate_series(1, 3)", "not allowed in LIMIT"),
    ("UPDATE t SET id = generate_series(4, 9)", "not allowed in UPDATE"),
    ("INSERT INTO t (id) VALUES (1) RETURNING generate_series(1, 3)", "not allowed in RETURNING"),
    ("VALUES (1, generate_series(1, 2))", "not allowed in VALUES"),
])
def test_set_returning_calls_where_postgres_refuses_them(db, sql, words):
    """PostgreSQL 10+ refuses a set-returning call where each row needs one value (tsrf.out):
    0A000 - DuckDB gave a CASE's rows, RETURNING's and VALUES' lists, its own errors elsewhere.
    Nothing is written."""
    with pytest.raises(txlake.NotSupportedError) as e:
        db.execute(sql)
    assert e.value.sqlstate == "0A000" and words in str(e.value)
    assert db.execute("SELECT count(*) FROM t").fetchone() == (2,)


def test_set_returning_calls_where_postgres_takes_them(db):
    """In a subquery of a CASE, in FROM under an aggregate, in lockstep in a select list."""
    assert db.execute("SELECT CASE WHEN true THEN (SELECT max(g) FROM generate_series(1, 2) g) END").fetchall() == \
        [(2,)]
    assert db.execute("SELECT sum(x) FROM t, LATERAL unnest(ARRAY[1, 2]) x").fetchall() == [(6,)]
    assert db.execute("SELECT generate_series(1, 2) * 10, abs(unnest(ARRAY[-1]))").fetchall() == [(10, 1), (20, None)]


def test_hypothetical_set_aggregates(db):
    """rank / dense_rank / percent_rank / cume_dist (h) WITHIN GROUP (ORDER BY x): of the row h
    were it added (aggregates.out's 5, 3, 0.5714285714285714, 0.875; DuckDB has none: 42000),
    in the ORDER BY's direction and NULLs order, over several keys, with a FILTER."""
    values = "(VALUES (1), (1), (2), (2), (3), (3), (4)) v(x)"
    cur = db.execute("SELECT rank(3) WITHIN GROUP (ORDER BY x), dense_rank(3) WITHIN GROUP (ORDER BY x), "
                     "percent_rank(3) WITHIN GROUP (ORDER BY x), cume_dist(3) WITHIN GROUP (ORDER BY x) FROM " + values)
    assert cur.fetchall() == [(5, 3, 0.5714285714285714, 0.875)]
    assert [d[1] for d in cur.description] == ["BIGINT", "BIGINT", "DOUBLE", "DOUBLE"]
    assert db.execute("SELECT rank(3) WITHIN GROUP (ORDER BY x) FILTER (WHERE x > 1) FROM " + values).fetchall() == \
        [(3,)]
    assert db.execute("SELECT rank(3) WITHIN GROUP (ORDER BY x DESC), rank(NULL) WITHIN GROUP (ORDER BY x), "
                      "rank(2) WITHIN GROUP (ORDER BY x NULLS FIRST) "
                      "FROM (VALUES (1), (NULL), (2), (3)) v(x)").fetchall() == [(2, 4, 3)]
    assert db.execute("SELECT rank(1, 'b') WITHIN GROUP (ORDER BY a, b) "
                      "FROM (VALUES (1, 'a'), (1, 'c'), (0, 'z')) v(a, b)").fetchall() == [(3,)]
    assert db.execute("SELECT percent_rank(0) WITHIN GROUP (ORDER BY x) FROM t, generate_series(1, 2) x "
                      "WHERE false").fetchall() == [(0.0,)]
    for sql, sqlstate in (("SELECT rank(x) WITHIN GROUP (ORDER BY x) FROM generate_series(1, 5) x", "42803"),
                          ("SELECT rank(sum(x)) WITHIN GROUP (ORDER BY x) FROM generate_series(1, 5) x", "42803"),
                          ("SELECT rank(3) WITHIN GROUP (ORDER BY a, b) FROM (VALUES (1, 'a')) v(a, b)", "42883")):
        with pytest.raises(txlake.ProgrammingError) as e:
            db.execute(sql)
        assert e.value.sqlstate == sqlstate, sql


def test_series_unnest_and_subscripts_in_from(db):
    """generate_series in a LATERAL join is an integer of integers (a bigint before), as in
    FROM; unnest(a) WITH ORDINALITY AS x(v, n) reads as x.* (42702 "duplicate alias" before);
    generate_subscripts in FROM (42883 before) and a select list: integers, of dimension 1,
    reversed if asked, none of another dimension."""
    cur = db.execute("SELECT t.id, x.* FROM t, LATERAL generate_series(1, t.id) AS x ORDER BY 1, 2")
    assert cur.fetchall() == [(1, 1), (2, 1), (2, 2)] and cur.description[1][1] == "INTEGER"
    cur = db.execute("SELECT x.* FROM unnest(ARRAY[3, 4]) WITH ORDINALITY AS x(a, n)")
    assert cur.fetchall() == [(3, 1), (4, 2)] and [d[0] for d in cur.description] == ["a", "n"]
    assert rows(db, "SELECT t.id, x.* FROM t, LATERAL unnest(ARRAY['a', 'b']) WITH ORDINALITY AS x(v, n)") == \
        [(1, "a", 1), (1, "b", 2), (2, "a", 1), (2, "b", 2)]
    cur = db.execute("SELECT * FROM unnest(ARRAY[1, 2]) WITH ORDINALITY AS x")
    assert [d[0] for d in cur.description] == ["x", "ordinality"]
    cur = db.execute("SELECT * FROM generate_subscripts(ARRAY[5, 6, 7], 1)")
    assert cur.fetchall() == [(1,), (2,), (3,)] and cur.description[0][:2] == ("generate_subscripts", "INTEGER")
    assert db.execute("SELECT * FROM generate_subscripts(ARRAY[5, 6, 7], 1, true) WITH ORDINALITY AS s(i, n)"
                      ).fetchall() == [(3, 1), (2, 2), (1, 3)]
    assert db.execute("SELECT * FROM generate_subscripts(ARRAY[5, 6, 7], 2)").fetchall() == []
    assert db.execute("SELECT generate_subscripts(ARRAY[5, 6], 1), generate_series(1, 3)").fetchall() == \
        [(1, 1), (2, 2), (None, 3)]


def test_record_functions_with_ordinality(db):
    """json[b]_to_record[set] WITH ORDINALITY number their rows (the number was dropped)."""
    cur = db.execute("""SELECT * FROM json_to_recordset('[{"a": 1, "b": "x"}, {"a": 2}]') WITH ORDINALITY """
                     "AS x(a int, b text)")
    assert cur.fetchall() == [(1, "x", 1), (2, None, 2)]
    assert [d[:2] for d in cur.description] == [("a", "INTEGER"), ("b", "VARCHAR"), ("ordinality", "BIGINT")]
    cur = db.execute("""SELECT * FROM jsonb_to_record('{"a": 1}') WITH ORDINALITY AS x(a int)""")
    assert cur.fetchall() == [(1, 1)] and cur.description[1][:2] == ("ordinality", "BIGINT")


def test_a_set_returning_argument_of_one_is_refused(db):
    """A set-returning call in another's arguments, which PostgreSQL runs per row of the inner
    one, is refused (0A000) - it was 42883 'function -(bigint[], integer) does not exist' or
    DuckDB's 42000 'Nested UNNEST calls are not supported'."""
    for sql in ("SELECT generate_series(1, generate_series(1, 3))",
                "SELECT unnest(regexp_matches('a1b22', '\\d+', 'g'))",
                "SELECT jsonb_array_elements(jsonb_array_elements('[[1, 2], [3]]'))"):
        with pytest.raises(txlake.NotSupportedError) as e:
            db.execute(sql)
        assert e.value.sqlstate == "0A000" and "argument that returns a set" in str(e.value), sql


def test_ordered_set_aggregates_as_aggregates_out_has_them(db):
    """percentile_disc of an array of fractions, of text; percentile_cont of an array; and the
    refusals: WITHIN GROUP of an aggregate that is no ordered-set one 42809 (was 22023), a
    fraction that is no constant or NULL 0A000 (DuckDB's 42000)."""
    assert db.execute("SELECT percentile_disc(ARRAY[0, 0.1, 0.25, 0.5, 0.75, 0.9, 1]) WITHIN GROUP (ORDER BY x) "
                      "FROM generate_series(0, 999) x").fetchall() == [([0, 99, 249, 499, 749, 899, 999],)]
    assert db.execute("SELECT percentile_cont(ARRAY[0, 1, 0.25, 0.75, 0.5, 1, 0.3, 0.32, 0.35, 0.38, 0.4]) WITHIN "
                      "GROUP (ORDER BY x) FROM generate_series(1, 6) x").fetchall() == \
        [([1, 6, 2.25, 4.75, 3.5, 6, 2.5, 2.6, 2.75, 2.9, 3],)]
    assert db.execute("SELECT percentile_disc(ARRAY[0.25, 0.5, 0.75]) WITHIN GROUP (ORDER BY x) FROM unnest("
                      "'{fred,jim,fred,jack,jill,fred,jill,jim,jim,sheila,jim,sheila}'::text[]) u(x)").fetchall() == \
        [(["fred", "jill", "jim"],)]
    with pytest.raises(txlake.ProgrammingError) as e:
        db.execute("SELECT sum(x) WITHIN GROUP (ORDER BY x) FROM generate_series(1, 3) x")
    assert e.value.sqlstate == "42809" and "sum is not an ordered-set aggregate" in str(e.value)
    for sql in ("SELECT p, percentile_cont(p) WITHIN GROUP (ORDER BY x::float8) FROM generate_series(1, 5) x, "
                "(VALUES (0::float8), (0.5)) v(p) GROUP BY p",
                "SELECT percentile_disc(ARRAY[NULL, 0.5]) WITHIN GROUP (ORDER BY x) FROM generate_series(1, 6) x"):
        with pytest.raises(txlake.NotSupportedError) as e:
            db.execute(sql)
        assert e.value.sqlstate == "0A000", sql


def test_rows_from(db):
    """ROWS FROM (f(...), g(...)) [WITH ORDINALITY] [AS x(...)] (42601 before): the functions'
    rows side by side, the shorter padded with NULLs, columns named after the functions or the
    alias list; reading the FROM items before it."""
    cur = db.execute("SELECT * FROM ROWS FROM (generate_series(1, 2), unnest(ARRAY['a', 'b', 'c']))")
    assert cur.fetchall() == [(1, "a"), (2, "b"), (None, "c")]
    assert [d[0] for d in cur.description] == ["generate_series", "unnest"]
    cur = db.execute("""SELECT * FROM ROWS FROM (jsonb_each('{"a": 1}'), generate_series(5, 6)) """
                     "WITH ORDINALITY AS x(k, v, g, n)")
    assert cur.fetchall() == [("a", 1, 5, 1), (None, None, 6, 2)]
    assert [d[0] for d in cur.description] == ["k", "v", "g", "n"]
    assert db.execute("SELECT t.id, r.* FROM t, ROWS FROM (generate_series(1, t.id), unnest(ARRAY[9])) AS r(g, u) "
                      "ORDER BY 1, 2").fetchall() == [(1, 1, 9), (2, 1, 9), (2, 2, None)]


def test_windows_over_set_returning_calls_and_ordered_set_aggregates(db):
    """A set-returning call in a window's PARTITION BY / ORDER BY is PostgreSQL's to take (tsrf.out;
    review: the window's own arguments' refusal had caught it too); an ordered-set aggregate under
    OVER is 0A000, as parse_func.c refuses it (review: rank(2) WITHIN GROUP (...) OVER () ran)."""
    db.execute("CREATE TABLE few (id INT)")
    db.execute("INSERT INTO few VALUES (1), (2), (3)")
    assert rows(db, "SELECT sum(count(*)) OVER (PARTITION BY generate_series(1, 3) ORDER BY generate_series(1, 3)), "
                    "generate_series(1, 3) g FROM few GROUP BY g") == [(3, 1), (3, 2), (3, 3)]
    for sql, name in (("SELECT rank(2) WITHIN GROUP (ORDER BY id) OVER () FROM few", "rank"),
                      ("SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY id) OVER () FROM few", "percentile_cont"),
                      ("SELECT cume_dist(2) WITHIN GROUP (ORDER BY id) FILTER (WHERE id > 1) OVER () FROM few",
                       "cume_dist")):
        with pytest.raises(txlake.NotSupportedError) as e:
            db.execute(sql)
        assert f"OVER is not supported for ordered-set aggregate {name}" in str(e.value), sql


def test_generate_series_in_order_by_makes_rows(db):
    """``ORDER BY id, generate_series(1, 3)``: PostgreSQL's rows of each id, one per value (it
    orders by a hidden column of the series, in lockstep with the select list's); DuckDB ordered
    by the series as one list, and gave each row once (review)."""
    db.execute("CREATE TABLE few (id INT)")
    db.execute("INSERT INTO few VALUES (1), (2), (3)")
    assert db.execute("SELECT id FROM few ORDER BY id, generate_series(1, 3)").fetchall() == [
        (1,), (1,), (1,), (2,), (2,), (2,), (3,), (3,), (3,)]
    assert db.execute("SELECT id FROM few ORDER BY generate_series(1, 2) DESC, id").fetchall() == [
        (1,), (2,), (3,), (1,), (2,), (3,)]


def test_a_one_value_function_s_alias_alone_is_its_value(db):
    """``FROM t, jsonb_array_elements_text(t.tags) AS tag ... SELECT tag``, PostgreSQL's idiom:
    the alias of a function of one scalar column, read alone, is that value (a whole-row reference
    of a scalar function); it gave the row ``{'value': 'x'}``. A column of another FROM item of that
    name is what the name reads, as in PostgreSQL; WITH ORDINALITY makes the alias a row."""
    db.execute("CREATE TABLE tagged (id INT, tags jsonb, tag TEXT)")
    db.execute("""INSERT INTO tagged VALUES (1, '["x", "y"]', 'T')""")
    assert db.execute("SELECT elem FROM jsonb_array_elements_text('[\"a\", \"b\"]') AS elem").fetchall() == [
        ("a",), ("b",)]
    assert db.execute("SELECT id, tg FROM tagged, jsonb_array_elements_text(tagged.tags) AS tg "
                      "WHERE tg <> 'x' ORDER BY tg").fetchall() == [(1, "y")]
    assert db.execute("SELECT tg FROM tagged CROSS JOIN LATERAL jsonb_array_elements(tags) tg "
                      "ORDER BY tg").fetchall() == [("x",), ("y",)]
    assert db.execute("SELECT tag FROM tagged, jsonb_array_elements_text(tags) AS tag").fetchall() == [
        ("T",), ("T",)]  # (the table's column)
    assert db.execute("SELECT x FROM jsonb_array_elements_text('[\"a\"]') WITH ORDINALITY AS x").fetchall() == [
        ({"value": "a", "ordinality": 1},)]


def test_a_scalar_function_in_from_is_one_row_named_for_it(connect):
    """SELECT * FROM upper('a') was 42883 (DuckDB has no table function upper): PostgreSQL's is a
    row of one column named for the function - or the alias, or its column list - WITH
    ORDINALITY adding ordinality; beside a table it may read the table's columns."""
    conn = connect(autocommit=True)
    cursor = conn.execute("SELECT * FROM upper('a')")
    assert ([d[0] for d in cursor.description], cursor.fetchall()) == (["upper"], [("A",)])
    cursor = conn.execute("SELECT * FROM abs(-1) AS x")
    assert ([d[0] for d in cursor.description], cursor.fetchall()) == (["x"], [(1,)])
    cursor = conn.execute("SELECT * FROM lower('A') WITH ORDINALITY AS l(v)")
    assert ([d[0] for d in cursor.description], cursor.fetchall()) == (["v", "ordinality"], [("a", 1)])
    assert conn.execute("SELECT upper.upper, x.y FROM upper('a'), length('abc') AS x(y)").fetchall() == [("A", 3)]
    assert [d[0] for d in conn.execute("SELECT * FROM now()").description] == ["now"]
    conn.execute("CREATE TABLE t (s text)")
    conn.execute("INSERT INTO t VALUES ('q'), ('r')")
    assert conn.execute("SELECT s, u FROM t, upper(t.s) AS u ORDER BY s").fetchall() == [("q", "Q"), ("r", "R")]
    with pytest.raises(txlake.ProgrammingError, match="too many column aliases specified for function upper"):
        conn.execute("SELECT * FROM upper('a') AS x(y, z)")
