"""String constants as PostgreSQL 16 reads them: U&'...' Unicode escape strings with UESCAPE
(src/backend/parser/parser.c str_udeescape; cases from src/test/regress/expected/strings.out)."""

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
