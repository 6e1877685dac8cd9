"""PostgreSQL's binary string functions (engine/bytea_functions.py): digests, conversion between
encodings, bytes and bits by position, and the bytea forms of substring / position / trim /
overlay / bit_length - against PostgreSQL 16's answers (func.sgml's examples, strings.out)."""

import hashlib

import pytest

from tests.conftest import fails, one, rows


@pytest.fixture
def c(connect):
    return connect(autocommit=True)


def test_digests_are_bytea(c):
    # sha256 was DuckDB's, the digest's hex text (encode(sha256('abc'), 'hex') gave the hex of the hex)
    assert one(c, "SELECT encode(sha256('abc'), 'hex'), pg_typeof(sha256('abc')), sha224('abc'), "
                  "sha384('abc'::bytea), sha512('\\x00')") == (
        hashlib.sha256(b"abc").hexdigest(), "bytea", hashlib.sha224(b"abc").digest(),
        hashlib.sha384(b"abc").digest(), hashlib.sha512(b"\0").digest())
    c.execute("CREATE TABLE docs (id int PRIMARY KEY, body bytea, title text)")
    c.execute("INSERT INTO docs VALUES (1, 'hello', 'hello'), (2, NULL, NULL)")
    assert rows(c, "SELECT sha256(body) FROM docs ORDER BY id") == [(hashlib.sha256(b"hello").digest(),), (None,)]
    # of text there is none: convert_to makes the bytes, as PostgreSQL's users write it
    fails(c, "SELECT sha256(title) FROM docs", "42883", "function sha256(text) does not exist")
    assert one(c, "SELECT encode(sha256(convert_to(title, 'UTF8')), 'hex') FROM docs WHERE id = 1") == (
        hashlib.sha256(b"hello").hexdigest(),)


def test_conversion_between_encodings(c):
    assert one(c, "SELECT convert_to('héllo', 'UTF8'), convert_to('héllo', 'latin-1'), "
                  "convert_from('\\x68c3a9', 'utf8'), convert_from('\\x68e9'::bytea, 'LATIN1'), "
                  "convert('\\x68e9'::bytea, 'ISO_8859_1', 'UTF8'), convert_to('ж', 'WIN1251'), "
                  "length('\\x68c3a9'::bytea, 'UTF8'), length(convert_to('héllo', 'UTF8'), 'UTF8')") == (
        "héllo".encode(), "héllo".encode("latin-1"), "hé", "hé", "hé".encode(), "ж".encode("cp1251"), 2, 5)
    fails(c, "SELECT convert_to('€', 'LATIN1')", "22P05",
          'character with byte sequence 0xe2 0x82 0xac in encoding "UTF8" has no equivalent in encoding "LATIN1"')
    fails(c, "SELECT convert_from('\\x68ff'::bytea, 'UTF8')", "22021",
          'invalid byte sequence for encoding "UTF8": 0xff')
    fails(c, "SELECT convert_from('\\xc328', 'UTF8')", "22021", "0xc3 0x28")
    fails(c, "SELECT convert_from('\\x6100', 'UTF8')", "22021", "0x00")  # (text holds no NUL)
    fails(c, "SELECT convert_to('x', 'klingon')", "22023", 'invalid destination encoding name "klingon"')
    fails(c, "SELECT convert_from('x', 'klingon')", "22023", 'invalid source encoding name "klingon"')
    assert one(c, "SELECT convert_to(NULL, 'UTF8'), convert_from('x', NULL)") == (None, None)


def test_bytes_and_bits_by_position(c):
    assert one(c, "SELECT get_byte('abc'::bytea, 1), set_byte('abc', 1, 65), get_bit('\\x01'::bytea, 0), "
                  "get_bit('\\x01'::bytea, 1), set_bit('\\x0000'::bytea, 9, 1), bit_count('\\xff01'::bytea), "
                  "bit_length('abc'::bytea), bit_length('héllo')") == (98, b"aAc", 1, 0, b"\x00\x02", 9, 24, 48)
    fails(c, "SELECT get_byte('abc'::bytea, 3)", "2202E", "index 3 out of valid range, 0..2")
    fails(c, "SELECT get_bit('abc'::bytea, -1)", "2202E", "index -1 out of valid range, 0..23")
    fails(c, "SELECT set_bit('abc'::bytea, 0, 2)", "22023", "new bit must be 0 or 1")


def test_substring_position_trim_overlay_of_bytea(c):
    c.execute("CREATE TABLE blobs (id int PRIMARY KEY, b bytea, t text)")
    c.execute("INSERT INTO blobs VALUES (1, '\\x68656c6c6f', 'hello'), (2, NULL, NULL)")
    assert rows(c, "SELECT substring(b FROM 2 FOR 2), substr(b, 4), substring(b FROM 0 FOR 2), "
                   "position('l'::bytea IN b), strpos(b, '\\x6f'), btrim(b, 'ho'::bytea), "
                   "trim(LEADING 'h'::bytea FROM b), rtrim(b, 'o'::bytea), overlay(b PLACING 'J' FROM 1), "
                   "overlay(b PLACING 'YY'::bytea FROM 2 FOR 3) FROM blobs ORDER BY id") == [
        (b"el", b"lo", b"h", 3, 5, b"ell", b"ello", b"hell", b"Jello", b"hYYo"), (None,) * 10]
    # text keeps its own forms beside them
    assert rows(c, "SELECT substring(t FROM 2 FOR 2), position('l' IN t), btrim(t, 'ho'), trim(LEADING 'h' FROM t), "
                   "overlay(t PLACING 'J' FROM 1), bit_length(t) FROM blobs WHERE id = 1") == [
        ("el", 3, "ell", "ello", "Jello", 40)]
    # a bytes parameter takes the bytea form, a str one the text form
    assert one(c, "SELECT substring(? FROM 2 FOR 2), substring(? FROM 2 FOR 2), position(? IN ?)",
               (b"hello", "hello", b"l", b"hello")) == (b"el", "el", 3)
    # an untyped NULL is text's, as PostgreSQL resolves an unknown (DuckDB took the bytea form)
    assert one(c, "SELECT coalesce(substring(NULL, 1, 3), 'n/a'), pg_typeof(trim(NULL)), "
                  "coalesce(overlay(NULL PLACING 'a' FROM 1), 'n/a')") == ("n/a", "text", "n/a")
    # and so is a parameter given None (psycopg sends it as an unknown): it took the bytea form
    # (b'n/a'); the form follows the value given at each execution
    sql = ("SELECT coalesce(substring(? FROM 1 FOR 3), 'n/a'), pg_typeof(btrim(?, 'x')), "
           "coalesce(overlay(? PLACING 'a' FROM 1), 'n/a'), position('b' IN ?)")
    assert one(c, sql, (None, None, None, None)) == ("n/a", "text", "n/a", None)
    assert one(c, sql, (b"hello", b"xax", b"hello", b"abc")) == (b"hel", "bytea", b"aello", 2)
    assert one(c, sql, ("hello", "xax", "hello", "abc")) == ("hel", "text", "aello", 2)
    fails(c, "SELECT substring('abc'::bytea FROM 1 FOR -1)", "22011", "negative substring length not allowed")
    fails(c, "SELECT overlay('abc'::bytea PLACING 'X'::bytea FROM 0)", "22011")


def test_position_and_strpos_are_integers(c):
    """position() and strpos() were bigints (DuckDB's strpos): PostgreSQL's are integers, of
    text and of bytea alike."""
    assert one(c, "SELECT position('b' IN 'abc'), pg_typeof(position('b' IN 'abc')), pg_typeof(strpos('abc', 'c')), "
                  "pg_typeof(position('l'::bytea IN 'hello'::bytea)), pg_typeof(position(NULL IN 'abc'))") == (
        2, "integer", "integer", "integer", "integer")


def test_encode_and_decode_of_a_parameter_beside_another(c):
    """encode(?, f) / decode(?, f) with another ? in the statement failed with a KeyError (the
    parameter made text and parsed anew lost its place): now as PostgreSQL's."""
    assert one(c, "SELECT decode(?, 'hex'), encode(?, 'base64'), 1 + ?, decode(?, 'escape')",
               ("0102", b"hi", 2, "a\\\\b")) == (b"\x01\x02", "aGk=", 3, b"a\\b")
    assert one(c, "SELECT decode(?, 'hex'), length(?)", (None, None)) == (None, None)
