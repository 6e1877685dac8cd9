"""The SQL/JSON path language: jsonb_path_exists / _match / _query / _query_array / _query_first,
the @? and @@ operators and the jsonpath type, as PostgreSQL 16 answers them (the cases are
src/test/regress/expected/jsonb_jsonpath.out's and jsonpath.out's)."""

import pytest

import txlake
from tests.conftest import value as one


@pytest.fixture
def db(connect):
    return connect(autocommit=True)


def rows(db, doc, path, *more):
    """jsonb_path_query's rows, as jsonb text."""
    extra = "".join(f", {m}" for m in more)
    return [r[0] for r in db.execute(f"SELECT q::text FROM jsonb_path_query('{doc}', '{path}'{extra}) AS q").fetchall()]


def refused(db, sql) -> tuple[str, str]:
    with pytest.raises(txlake.Error) as e:
        db.execute(sql).fetchall()
    return e.value.sqlstate, str(e.value).splitlines()[0]


# (document, path, the rows PostgreSQL gives)
QUERIES = [
    ('{"a": 12, "b": {"a": 13}}', "$.*", ["12", '{"a": 13}']),
    ('{"a": 12, "b": {"a": 13}}', "lax $.*.a", ["13"]),
    ('[12, {"a": 13}, {"b": 14}]', "lax $[*].a", ["13"]),
    ('[12, {"a": 13}, {"b": 14}]', "lax $[0,1].a", ["13"]),
    ('[12, {"a": 13}, {"b": 14}, "ccc", true]', "$[2.5 - 1 to $.size() - 2]", ['{"a": 13}', '{"b": 14}', '"ccc"']),
    ("1", "lax $[*]", ["1"]),
    ("[1,2,3]", "$[last - 1]", ["2"]),
    ("[1,2,3]", '$[last ? (@.type() == "number")]', ["3"]),
    ("[]", "$[last]", []),
    ("1", "lax $.a", []),
    ('[1, "2", null]', "$[*] ? (@ != null)", ["1", '"2"']),
    ('[1,"1",2,"2",null]', '$[*] ? (@ == "1")', ['"1"']),
    ('{"a": {"b": 1}}', "lax $.**", ['{"a": {"b": 1}}', '{"b": 1}', "1"]),
    ('{"a": {"b": 1}}', "lax $.**{1 to last}", ['{"b": 1}', "1"]),
    ('{"a": {"b": 1}}', "lax $.**{last}", ["1"]),
    ('{"a": {"b": 1}}', "lax $.**{last to 5}", []),
    ('{"bb": {"x": 1}, "a": 2}', "$.**", ['{"a": 2, "bb": {"x": 1}}', "2", '{"x": 1}', "1"]),  # (jsonb's key order)
    ('{"a": {"c": {"b": 1}}}', "lax $.**{1}.b ? (@ > 0)", []),
    ('{"a": {"c": {"b": 1}}}', "lax $.**{2 to 3}.b ? (@ > 0)", ["1"]),
    ('{"g": [{"x": 2}, {"y": 3}]}', 'lax $.g ? ((exists (@.x + "3")) is unknown)', ['{"x": 2}', '{"y": 3}']),
    ('{"g": [{"x": 2}, {"y": 3}]}', "strict $.g[*] ? ((exists (@.x)) is unknown)", ['{"y": 3}']),
    ('{"c": {"a": 2, "b":1}}', "$.** ? (@.a == @.b + 1)", ['{"a": 2, "b": 1}']),
    ("[1,2,0,3]", "$[*] ? (2 / @ > 0)", ["1", "2", "3"]),
    ("[1,2,0,3]", "$[*] ? ((2 / @ > 0) is unknown)", ["0"]),
    ('{"a": [2, 3, 4]}', "lax -$.a", ["-2", "-3", "-4"]),
    ('{"a": [2]}', "lax $.a * 3", ["6"]),
    ('[1,2,3,{"b": [3,4,5]}]', "lax $.*", ["[3, 4, 5]"]),
    ("2", '$ == "2"', ["null"]),
    ('{"a": 2}', "($.a - 5).abs() + 10", ["13"]),
    ('{"a": 2.5}', "-($.a * $.a).floor() % 4.3", ["-1.7"]),
    ("[1, 2, 3]", "($[*] > 2) ? (@ == true)", ["true"]),
    ("[1, 2, 3]", "strict ($[*].a > 3).type()", ['"null"']),
    ("10", "$ / 3", ["3.3333333333333333"]),
    ('[null,1,true,"a",[],{}]', "$[*].type()", ['"null"', '"number"', '"boolean"', '"string"', '"array"', '"object"']),
    ('[1,null,true,"11",[],[1],[1,2,3],{},{"a":1,"b":2}]', "lax $[*].size()",
     ["1", "1", "1", "1", "0", "1", "3", "1", "1"]),
    ("[0, 1, -2, -3.4, 5.6]", "$[*].floor()", ["0", "1", "-2", "-4", "5"]),
    ("[0, 1, -2, -3.4, 5.6]", "$[*].ceiling().abs()", ["0", "1", "2", "3", "6"]),
    ('"1.23"', "$.double()", ["1.23"]),
    ('{"a": 1, "b": [1, 2], "c": {"a": "bbb"}}', "$.keyvalue()",
     ['{"id": 0, "key": "a", "value": 1}', '{"id": 0, "key": "b", "value": [1, 2]}',
      '{"id": 0, "key": "c", "value": {"a": "bbb"}}']),
    # (ids as jsonb's binary layout places the objects - numerics 4-aligned, 1e-200 in the long format)
    ('[1.5, {"a": [10000.0001, 1e-200]}, "xyz", {"z": 1}]', 'strict $.** ? (@.type() == "object").keyvalue().id',
     ["32", "88"]),
    ('[{"a": 1, "b": [1, 2]}, {"c": {"a": "bbb"}}]', "$[*].keyvalue()",
     ['{"id": 12, "key": "a", "value": 1}', '{"id": 12, "key": "b", "value": [1, 2]}',
      '{"id": 72, "key": "c", "value": {"a": "bbb"}}']),
    ('["", "a", "abc", "abcabc"]', '$[*] ? (@ starts with "abc")', ['"abc"', '"abcabc"']),
    ('["abc", "abcabc", null, 1]', 'strict $ ? ((@[*] starts with "abc") is unknown)',
     ['["abc", "abcabc", null, 1]']),
    ('[null, 1, "abd", "abdabc"]', 'lax $[*] ? ((@ starts with "abc") is unknown)', ["null", "1"]),
    ('[null, 1, "abc", "abd", "aBdC", "abdacb", "babc"]', 'lax $[*] ? (@ like_regex "^ab.*c" flag "i")',
     ['"abc"', '"aBdC"', '"abdacb"']),
    ('["abc", "adc\\nabc", "ab\\nadc"]', 'lax $[*] ? (@ like_regex "^ab.*c" flag "m")', ['"abc"', '"adc\\nabc"']),
    ('["abc", "adc\\nabc", "ab\\nadc"]', 'lax $[*] ? (@ like_regex "^ab.*c" flag "s")', ['"abc"', '"ab\\nadc"']),
]


@pytest.mark.parametrize("doc, path, expected", QUERIES)
def test_jsonb_path_query_rows(db, doc, path, expected):
    """jsonb_path_query(...) in FROM gives PostgreSQL's rows (lax unwrapping and wrapping,
    filters' three-valued logic, .**, arithmetic, item methods, like_regex, starts with)."""
    assert rows(db, doc, path) == expected


# (SQL, the value PostgreSQL gives)
VALUES = [
    ("""SELECT jsonb '{"a": 12}' @? '$.a + 2'""", True),
    ("""SELECT jsonb '{"a": 12}' @? '$.b + 2'""", None),  # (an error: @? is silent)
    ("""SELECT jsonb '{"b": {"a": 12}}' @? 'strict $.*.b'""", None),
    ("""SELECT jsonb '{"a": {"b": 1}}' @? 'lax $.**{3}'""", False),
    ("""SELECT jsonb '[1]' @? 'strict $[1]'""", None),
    ("""SELECT jsonb '[1]' @? '$[0.9]', jsonb '[1]' @? '$[1.2]'""", True),
    ("""SELECT jsonb '{"a": [1,2,3], "b": [3,4,"5"]}' @? '$ ? (@.a[*] >= @.b[*])'""", True),
    ("""SELECT jsonb '{"a": [1,2,3], "b": [3,4,"5"]}' @? 'strict $ ? (@.a[*] >= @.b[*])'""", False),
    ("""SELECT jsonb '1' @? '$ ? ((@ == "1") is unknown)'""", True),
    ("""SELECT jsonb '["1",2,0,3]' @? '-$[*]'""", True),
    ("""SELECT jsonb '["1",2,0,3]' @? 'strict -$[*]'""", None),
    ("""SELECT jsonb '2' @@ '$ > 1'""", True),
    ("""SELECT jsonb '2' @@ '$ == "2"'""", None),
    ("""SELECT jsonb '[1,2,3]' @@ '$[*]'""", None),
    ("""SELECT jsonb_path_exists('[{"a": 1}, {"a": 2}, 3]', 'strict $[*].a', silent => true)""", None),
    ("""SELECT jsonb_path_exists('[{"a": 1}, {"a": 2}, 3]', 'lax $[*].a', silent => false)""", True),
    ("""SELECT jsonb_path_match('[[1, true], [2, false]]', 'strict $[*] ? (@[0] > $x) [1]', '{"x": 1}')""", False),
    ("""SELECT jsonb_path_match('[{"a": 1}, {"a": 2}, 3]', 'strict exists($[*].a)', silent => false)""", None),
    ("""SELECT jsonb_path_query_array('[1,2,3,4]', '$[*] ? (@ >= $min && @ <= $max)',
                                      '{"min": 2, "max": 3}')::text""", "[2, 3]"),
    ("""SELECT jsonb_path_query_array('[1,2,3]', '$[*] ? (@ > 5)')::text""", "[]"),
    ("""SELECT jsonb_path_query_first('[{"a": 1}, {"a": 2}]', '$[*].a')::text""", "1"),
    ("""SELECT jsonb_path_query_first('[]', '$[*]')""", None),
    ("""SELECT jsonb_path_exists(NULL, '$'), jsonb_path_exists('{}', NULL)""", None),
]


@pytest.mark.parametrize("sql, expected", VALUES)
def test_path_functions_and_operators(db, sql, expected):
    """@? (jsonb_path_exists) and @@ (jsonb_path_match) suppress errors, giving NULL; the
    functions' vars and silent arguments, positional or named."""
    assert one(db, sql) == expected


# (SQL, SQLSTATE, PostgreSQL's message)
ERRORS = [
    ("SELECT jsonb_path_query('[1]', 'strict $[1]')", "22033", "jsonpath array subscript is out of bounds"),
    ("SELECT jsonb_path_query('[1]', 'lax $[10000000000000000]')", "22033",
     "jsonpath array subscript is out of integer range"),
    ("SELECT jsonb_path_query('[]', 'strict $[\"a\"]')", "22033",
     "jsonpath array subscript is not a single numeric value"),
    ("SELECT jsonb_path_query('1', 'strict $.a')", "2203A",
     "jsonpath member accessor can only be applied to an object"),
    ("SELECT jsonb_path_query('{}', 'strict $.a')", "2203A", 'JSON object does not contain key "a"'),
    ("SELECT jsonb_path_query('1', 'strict $.*')", "2203C",
     "jsonpath wildcard member accessor can only be applied to an object"),
    ("SELECT jsonb_path_query('1', 'strict $[*]')", "22039",
     "jsonpath wildcard array accessor can only be applied to an array"),
    ("SELECT jsonb_path_query('[1,2]', 'strict $[*].size()')", "22039",
     "jsonpath item method .size() can only be applied to an array"),
    ("SELECT jsonb_path_query('0', '-(3 + 1 % $)')", "22012", "division by zero"),
    ("SELECT jsonb_path_query('1', '$ + \"2\"')", "22038",
     "right operand of jsonpath operator + is not a single numeric value"),
    ("SELECT jsonb_path_query('{\"a\": [1, 2]}', 'lax $.a * 3')", "22038",
     "left operand of jsonpath operator * is not a single numeric value"),
    ("SELECT jsonb_path_query('\"a\"', '-$')", "2203B", "operand of unary jsonpath operator - is not a numeric value"),
    ("SELECT jsonb_path_query('true', '$.floor()')", "2203B",
     "jsonpath item method .floor() can only be applied to a numeric value"),
    ("SELECT jsonb_path_query('[{},1]', '$[*].keyvalue()')", "2203C",
     "jsonpath item method .keyvalue() can only be applied to an object"),
    ("SELECT jsonb_path_query('null', '$.double()')", "22036",
     "jsonpath item method .double() can only be applied to a string or numeric value"),
    ("SELECT jsonb_path_match('[1]', '$[0]')", "22038", "single boolean result is expected"),
    ("SELECT jsonb_path_query('{\"a\": 10}', '$ ? (@.a < $value)', silent => true)", "42704",
     'could not find jsonpath variable "value"'),
    ("SELECT jsonb_path_query('{\"a\": 10}', '$ ? (@.a < $value)', '[{\"value\" : 13}]')", "22023",
     '"vars" argument is not an object'),
    ("SELECT jsonb_path_query('1', '$ +')", "42601", "syntax error at end of jsonpath input"),
    ("SELECT '$ ? (@.a < .1)'::jsonpath", "42601", 'syntax error at or near "." of jsonpath input'),
    ("SELECT '$ ? (@.a == 1 && @.b)'::jsonpath", "42601", 'syntax error at or near ")" of jsonpath input'),
    ("SELECT '$ ? (@.a)'::jsonpath", "42601", 'syntax error at or near ")" of jsonpath input'),
    ("SELECT '1e'::jsonpath", "42601", 'invalid floating point number at or near "1e" of jsonpath input'),
    ("SELECT '$.string()'::jsonpath", "42601", 'syntax error at or near "(" of jsonpath input'),  # (PostgreSQL 17's)
    ("SELECT 'last'::jsonpath", "42601", "LAST is allowed only in array subscripts"),
    ("SELECT '@ + 1'::jsonpath", "42601", "@ is not allowed in root expressions"),
    ("SELECT ''::jsonpath", "22P02", 'invalid input syntax for type jsonpath: ""'),
    ("SELECT '$ ? (@ like_regex \"pattern\" flag \"a\")'::jsonpath", "42601", "invalid input syntax for type jsonpath"),
    ("SELECT '$ ? (@ like_regex \"pattern\" flag \"xsms\")'::jsonpath", "0A000",
     'XQuery "x" flag (expanded regular expressions) is not implemented'),
    ("SELECT '$ ? (@ like_regex \"(invalid pattern\")'::jsonpath", "2201B", "invalid regular expression"),
    ("SELECT jsonb_path_query('\"2017-03-10\"', '$.datetime()')", "0A000",
     "jsonpath item method .datetime() is not supported"),
    ("SELECT jsonb_path_exists_tz('{}', '$')", "0A000", "jsonb_path_exists_tz() is not supported"),
    # (keyvalue()'s id of an object outside the document: PostgreSQL numbers it by where it was made)
    ("SELECT jsonb_path_query('{\"a\": {\"b\": 1}}', '$.keyvalue().value.keyvalue()')", "0A000",
     "jsonpath item method .keyvalue() of an object not in the document is not supported"),
    ("SELECT jsonb_path_query('{}', '$x.keyvalue()', '{\"x\": {\"b\": 1}}')", "0A000",
     "jsonpath item method .keyvalue() of an object not in the document is not supported"),
]


@pytest.mark.parametrize("sql, sqlstate, message", ERRORS)
def test_path_errors(db, sql, sqlstate, message):
    """Errors with PostgreSQL's SQLSTATE and words: strict mode's structural errors, arithmetic
    errors, a path's syntax errors (42601); silent does not hide a missing variable."""
    state, text = refused(db, sql)
    assert (state, text[:len(message)]) == (sqlstate, message)


def test_silent_suppresses_and_keeps_what_came_before(db):
    """silent => true: no error, the items found before it kept (as PostgreSQL's executor keeps them)."""
    assert rows(db, "[1]", "strict $[1]", "silent => true") == []
    assert rows(db, '[1,"2",3]', "+$", "silent => true") == ["1"]
    assert rows(db, '[1,2,3,{"b": [3,4,5]}]', "strict $.*", "NULL", "true") == []  # (NULL vars: no rows, strict)
    assert rows(db, '[1,2,3,{"b": [3,4,5]}]', "strict $.*", "'{}'", "true") == []


# (path, as PostgreSQL prints it)
PRINTED = [
    ("lax $", "$"), ("strict $", "strict $"), ("$.a.v", '$."a"."v"'), ("$.*[*]", "$.*[*]"),
    ("$.a.**{2 to 2}.b", '$."a".**{2}."b"'), ("$.a.**{5 to last}.b", '$."a".**{5 to last}."b"'),
    ("$--+1", "($ - -1)"), ("$.a/+-1", '($."a" / -1)'), ("1 * 2 + 4 % -3 != false", "(1 * 2 + 4 % -3 != false)"),
    ('"\\b\\f\\r\\n\\t\\v\\"\'\\\\"', '"\\b\\f\\r\\n\\t\\u000b\\"\'\\\\"'),
    ('"\\x50\\u0067\\u{53}\\u{051}\\u{00004C}"', '"PgSQL"'),
    ("$.g ? (@.a == 1 || !(@.x >= 123 || @.a == 4) && @.b == 7)",
     '$."g"?(@."a" == 1 || !(@."x" >= 123 || @."a" == 4) && @."b" == 7)'),
    ("$.g ? ((@.x >= 123 || @.a == 4) is unknown)", '$."g"?((@."x" >= 123 || @."a" == 4) is unknown)'),
    ("$.g ? (+@.x >= +-(+@.a + 2))", '$."g"?(+@."x" >= +(-(+@."a" + 2)))'),
    ("$a[*]", '$"a"[*]'), ("$.a[$a + 1, ($b[*]) to -($[0] * 2)]", '$."a"[$"a" + 1,$"b"[*] to -($[0] * 2)]'),
    ("$[$[0] ? (last > 0)]", "$[$[0]?(last > 0)]"), ("(1).type()", "1.type()"), ("1.2.e3", '1.2."e3"'),
    ("$.double().floor().ceiling().abs()", "$.double().floor().ceiling().abs()"),
    ('$ ? (@ like_regex "pattern" flag "isim")', '$?(@ like_regex "pattern" flag "ism")'),
    ('$ ? (@ starts with $var)', '$?(@ starts with $"var")'),
    ("((($ + 1)).a + ((2)).b ? ((((@ > 1)) || (exists(@.c)))))", '(($ + 1)."a" + 2."b"?(@ > 1 || exists (@."c")))'),
    ("$ ? (@.a < +10.1e-1)", '$?(@."a" < 1.01)'), ("0.0010e+2", "0.10"), ("$.LAST.Type()", '$."LAST".type()'),
    # (PostgreSQL 16's numeric literals: jsonpath.out's 0x42F, 0o273, 0b100101, 1_000_000)
    ("0x42F", "1071"), ("0o273", "187"), ("0b100101", "37"), ("1_000_000", "1000000"), ("$[0x1_0]", "$[16]"),
]


@pytest.mark.parametrize("path, printed", PRINTED)
def test_jsonpath_type_prints_normalized(db, path, printed):
    """'...'::jsonpath checks the path and gives it as PostgreSQL's jsonpath output prints it."""
    assert db.execute("SELECT ?::jsonpath", (path,)).fetchone()[0] == printed


def test_operators_on_a_jsonb_column_with_parameters_and_in_a_view(db):
    """@? and @@ over a jsonb column in WHERE, with a parameter or a cast path; the tokens @?
    and @@ do not disturb @ (abs), @> and <@; a view keeps the operators."""
    db.execute("CREATE TABLE docs (id INT PRIMARY KEY, doc jsonb)")
    db.execute("""INSERT INTO docs VALUES (1, '{"a": [1, 2, 3], "tags": ["x"]}'), (2, '{"a": [5]}'), (3, NULL)""")
    ids = lambda sql, params=(): [r[0] for r in db.execute(sql, params).fetchall()]  # noqa: E731
    assert ids("SELECT id FROM docs WHERE doc @? '$.a[*] ? (@ > 2)' ORDER BY id") == [1, 2]
    assert ids("SELECT id FROM docs WHERE doc @? ? ORDER BY id", ("$.tags",)) == [1]
    assert ids("SELECT id FROM docs WHERE doc @@ '$.a[0] == 1'") == [1]
    assert ids("SELECT id FROM docs WHERE doc @? '$.a[*] ? (@ == 5)'::jsonpath") == [2]
    assert refused(db, "SELECT id FROM docs WHERE doc @? '$.a ? (@ == $n)'") == (  # (@? does not hide this)
        "42704", 'could not find jsonpath variable "n"')
    assert ids("""SELECT id FROM docs WHERE jsonb_path_exists(doc, '$.a[*] ? (@ == $n)', '{"n": 5}')""") == [2]
    assert db.execute("""SELECT @ -5, '{"a":1}'::jsonb @> '{"a":1}',
                                '{"a":1}' <@ '{"a":1, "b": 2}'::jsonb""").fetchone() == (5, True, True)
    assert db.execute("SELECT d.id, q::text FROM docs d, jsonb_path_query(d.doc, '$.a[*]') AS q "
                      "ORDER BY d.id, 2").fetchall() == [(1, "1"), (1, "2"), (1, "3"), (2, "5")]
    assert db.execute("SELECT id, jsonb_path_query(doc, '$.a[last]')::text FROM docs ORDER BY id").fetchall() == \
        [(1, "3"), (2, "5")]
    db.execute("CREATE VIEW big AS SELECT id FROM docs WHERE doc @? '$.a[*] ? (@ > 4)' OR doc @@ '$.a.size() > 2'")
    assert ids("SELECT id FROM big ORDER BY id") == [1, 2]


def test_ternary_logic_of_filters_with_vars(db):
    """A filter's && / || / ! / is unknown over true, false and unknown (regress's truth table)."""
    got = db.execute("""
        SELECT x::text, y::text, jsonb_path_query('[true, false, null]',
            '$[*] ? (@ == true && ($x == true && $y == true) || @ == false && !($x == true && $y == true) ||
                     @ == null && ($x == true && $y == true) is unknown)', jsonb_build_object('x', x, 'y', y))::text
        FROM (VALUES (jsonb 'true'), ('false'), ('"null"')) x(x), (VALUES (jsonb 'true'), ('false'), ('"null"')) y(y)
        ORDER BY 1, 2""").fetchall()
    assert got == sorted([("true", "true", "true"), ("true", "false", "false"), ("true", '"null"', "null"),
                          ("false", "true", "false"), ("false", "false", "false"), ("false", '"null"', "false"),
                          ('"null"', "true", "null"), ('"null"', "false", "false"), ('"null"', '"null"', "null")])
