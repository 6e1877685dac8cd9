"""Text read as an integer at run time - a text column's value, a parameter - as PostgreSQL 16's
integer input reads it (src/backend/utils/adt/numutils.c; cases from
src/test/regress/expected/int4.out): decimal, 0x / 0o / 0b with a sign and underscores."""

import pytest

import txlake


@pytest.fixture
def conn(connect):
    return connect(autocommit=True)


@pytest.mark.parametrize("text, value", [
    ("0o273", 187), ("0O273", 187), ("0o17777777777", 2147483647), ("0o2_73", 187),
    ("-0b10000000000000000000000000000000", -2147483648), ("-0o20000000000", -2147483648),
    ("-0x80000000", -2147483648), ("0b_10_0101", 37), (" +0o17 ", 15), (" -0x_1f ", -31), ("0x1F ", 31),
])
def test_text_column_and_parameter_read_as_integer(conn, text, value):
    assert conn.execute("SELECT t::int, CAST(t AS bigint) FROM (VALUES (?)) v(t)", (text,)).fetchone() == (
        value, value)
    assert conn.execute("SELECT ?::int", (text,)).fetchone() == (value,)


@pytest.mark.parametrize("text", ["0b", "0o", "0x", "0o8", "_100", "100_", "100__000", "0x1.5", "1.5", "1e3", "--1"])
def test_bad_integer_text_is_22p02(conn, text):
    for sql in ("SELECT t::int FROM (VALUES (?)) v(t)", "SELECT ?::int"):
        with pytest.raises(txlake.DataError) as e:
            conn.execute(sql, (text,))
        assert e.value.sqlstate == "22P02" and f'invalid input syntax for type integer: "{text}"' in str(e.value)


@pytest.mark.parametrize("text, cast", [
    ("0b10000000000000000000000000000000", "int"), ("0o20000000000", "int"), ("0x80000000", "int"),
    ("-0b10000000000000000000000000000001", "int"), ("-0o20000000001", "int"), ("-0x80000001", "int"),
    ("0o100000", "smallint"), ("0x8000000000000000", "bigint"),
])
def test_integer_text_past_the_type_is_22003(conn, text, cast):
    with pytest.raises(txlake.DataError) as e:
        conn.execute(f"SELECT t::{cast} FROM (VALUES (?)) v(t)", (text,))
    assert e.value.sqlstate == "22003"


def test_a_parameter_s_text_is_read_so_and_another_type_cast_as_before(conn):
    assert conn.execute("SELECT ?::int, ?::int, ?::int, ?::bigint, ?::int", ("0o17", 12, 1.5, 2 ** 40, None)
                        ).fetchone() == (15, 12, 2, 2 ** 40, None)
