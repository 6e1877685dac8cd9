"""Strings as PostgreSQL 16 has them: U&'...' Unicode escape strings with UESCAPE
(src/backend/parser/parser.c str_udeescape; cases from src/test/regress/expected/strings.out),
and the text of a set-returning function's rows."""

import pytest

import txlake


@pytest.fixture
def conn(connect):
    return connect(autocommit=True)


@pytest.mark.parametrize("constant, value", [
    (r"U&'d\0061t\+000061'", "data"),
    (r"U&'d!0061t\+000061' UESCAPE '!'", r"dat\+000061"),
    (r"u&'d!0061t!+000061' uescape '!'", "data"),
    (r"U&'a\\b'", "a\\b"),
    (r"U&' \' UESCAPE '!'", " \\"),
    (r"U&'a!!b' UESCAPE '!'", "a!b"),
    (r"U&'it''s \00e9t\00E9'", "it's été"),
    (r"U&'\d83d\de00 \+01F600'", "\U0001F600 \U0001F600"),  # (a surrogate pair, a code point past U+FFFF)
])
def test_unicode_escape_strings(conn, constant, value):
    assert conn.execute(f"SELECT {constant}").fetchone() == (value,)


def test_a_unicode_escape_string_is_a_constant_anywhere(conn):
    conn.execute("CREATE TABLE t (s TEXT)")
    conn.execute(r"INSERT INTO t VALUES (U&'caf\00e9')")
    assert conn.execute(r"SELECT s, length(s), s = U&'caf\00E9' FROM t WHERE s LIKE U&'%\00e9'").fetchall() == [
        ("café", 4, True)]


@pytest.mark.parametrize("constant, words", [
    (r"U&'wrong: \061'", "invalid Unicode escape\nHINT:  Unicode escapes must be \\XXXX or \\+XXXXXX."),
    (r"U&'wrong: \+0061'", "invalid Unicode escape\n"),
    (r"U&'wrong: \x'", "invalid Unicode escape\n"),
    (r"U&'wrong: +0061' UESCAPE +", 'UESCAPE must be followed by a simple string literal at or near "+"'),
    (r"U&'wrong' UESCAPE", "UESCAPE must be followed by a simple string literal at end of input"),
    (r"U&'wrong: +0061' UESCAPE '+'", "invalid Unicode escape character"),
    (r"U&'wrong' UESCAPE 'ab'", "invalid Unicode escape character"),
    (r"U&'wrong' UESCAPE 'a'", "invalid Unicode escape character"),  # (a hex digit)
    (r"U&'wrong' UESCAPE ' '", "invalid Unicode escape character"),
    (r"U&'wrong: \db99'", "invalid Unicode surrogate pair"),
    (r"U&'wrong: \db99xy'", "invalid Unicode surrogate pair"),
    (r"U&'wrong: \db99\\'", "invalid Unicode surrogate pair"),
    (r"U&'wrong: \db99\0061'", "invalid Unicode surrogate pair"),
    (r"U&'wrong: \+00db99\+000061'", "invalid Unicode surrogate pair"),
    (r"U&'wrong: \de00'", "invalid Unicode surrogate pair"),  # (a second surrogate first)
    (r"U&'wrong: \+2FFFFF'", "invalid Unicode escape value"),
    (r"U&'wrong: \0000'", "invalid Unicode escape value"),
])
def test_bad_unicode_escapes_are_syntax_errors(conn, constant, words):
    with pytest.raises(txlake.ProgrammingError) as e:
        conn.execute(f"SELECT {constant}")
    assert e.value.sqlstate == "42601" and str(e.value).startswith(words)


def test_unicode_escape_identifiers(conn):
    """U&"..." names as PostgreSQL's (strings.out): quoted, of the characters their escapes name."""
    cur = conn.execute(r"""SELECT U&'d\0061t\+000061' AS U&"d\0061t\+000061", 'tricky' AS U&"\" UESCAPE '!',
                           1 AS U&"d*0061t\+000061" UESCAPE '*'""")
    assert [d[0] for d in cur.description] == ["data", "\\", "dat\\+000061"]
    conn.execute(r'CREATE TABLE U&"T\00e9" (U&"C\00e9" INT)')
    conn.execute('INSERT INTO "Té" VALUES (1)')
    assert conn.execute(r'SELECT "Cé", U&"C\00E9" + 1, 5&3 FROM U&"T\00e9"').fetchone() == (1, 2, 1)
    for sql, words in ((r'SELECT 1 AS U&"wrong\db99"', "invalid Unicode surrogate pair"),
                       ('SELECT 1 AS U&"x" UESCAPE \'ab\'', "invalid Unicode escape character"),
                       ('SELECT 1 AS U&"x" UESCAPE 5',
                        'UESCAPE must be followed by a simple string literal at or near "5"')):
        with pytest.raises(txlake.ProgrammingError) as e:
            conn.execute(sql)
        assert e.value.sqlstate == "42601" and str(e.value).startswith(words), sql


@pytest.mark.parametrize("sql, rows", [
    ("SELECT generate_series(1, 3)::text", [("1",), ("2",), ("3",)]),
    ("SELECT generate_series(1, 2)::varchar || 'x'", [("1x",), ("2x",)]),
    ("SELECT 'v' || generate_series(1, 2)", [("v1",), ("v2",)]),
    ("SELECT concat(generate_series(1, 2), '!')", [("1!",), ("2!",)]),
    ("SELECT generate_series(0.5, 1.5, 0.5)::text", [("0.5",), ("1.0",), ("1.5",)]),
    ("SELECT generate_series(timestamp '2024-01-01', timestamp '2024-01-02', interval '12 hours')::text",
     [("2024-01-01 00:00:00",), ("2024-01-01 12:00:00",), ("2024-01-02 00:00:00",)]),
    ("SELECT unnest(ARRAY[1.5::float8, NULL, 1e20])::text", [("1.5",), (None,), ("1e+20",)]),
    ("SELECT unnest(ARRAY[true, false])::text", [("true",), ("false",)]),
    ("SELECT generate_series(1, 2), generate_series(1, 2)::text", [(1, "1"), (2, "2")]),
])
def test_a_set_returning_function_cast_to_text(conn, sql, rows):
    """Each row's text, as PostgreSQL's (DuckDB could pick no text form of an unnested value: 42000)."""
    assert conn.execute(sql).fetchall() == rows


@pytest.mark.parametrize("constant, value", [
    (r"E'\u0061'", "a"),
    (r"E'\U00000062'", "b"),
    (r"e'x\u00e9y'", "xéy"),
    (r"E'\uD83D\uDE00'", "\U0001F600"),  # (a surrogate pair)
    (r"E'it''s \u0041\t\101\x42'", "it's A\tAB"),
    (r"E'\xC3\xA9\u0041'", "éA"),  # (bytes that make UTF-8)
    (r"E'\\u0061'", "\\u0061"),  # (the backslash escaped)
    (r"'a\u0062'", "a\\u0062"),  # (a standard string: no escapes)
])
def test_unicode_escapes_in_escape_strings(conn, constant, value):
    """E'\\u0061' was 'u0061': sqlglot read \\u as u. PostgreSQL's escape strings take \\uXXXX
    and \\UXXXXXXXX (strings.out), beside their octal and hexadecimal bytes."""
    assert conn.execute(f"SELECT {constant}").fetchone() == (value,)


@pytest.mark.parametrize("constant, sqlstate, message", [
    (r"E'\u12'", "42601", "invalid Unicode escape"),
    (r"E'\uD83D'", "42601", "invalid Unicode surrogate pair"),
    (r"E'\uD83Dx'", "42601", "invalid Unicode surrogate pair"),
    (r"E'\u0000'", "42601", "invalid Unicode escape value"),
    (r"E'\xFF\u0041'", "22021", 'invalid byte sequence for encoding "UTF8"'),
])
def test_bad_unicode_escapes_in_escape_strings(conn, constant, sqlstate, message):
    with pytest.raises(txlake.Error) as e:
        conn.execute(f"SELECT {constant}")
    assert e.value.sqlstate == sqlstate and str(e.value).split("\n")[0] == message


def test_string_constants_are_joined_only_across_a_newline(conn):
    """PostgreSQL's scanner continues a string constant with the next one only when whitespace
    holding a newline parts them (syntax-lexical.html, 4.1.2.1); on one line the second is a
    syntax error. sqlglot joined any two ('a' 'b' was 'ab')."""
    assert conn.execute("SELECT 'a'\n  'b' -- (a comment may follow)\n'c'").fetchone() == ("abc",)
    for sql in ("SELECT 'a' 'b'", "SELECT 'a'\n'b' 'c'", "SELECT 'x' WHERE 'a' = 'a'   'a'"):
        with pytest.raises(txlake.ProgrammingError) as caught:
            conn.execute(sql)
        assert caught.value.sqlstate == "42601"
        assert str(caught.value).startswith("syntax error at or near \"'")
