"""pg_relation_size / pg_table_size / pg_total_relation_size of a relation named by a string
constant (or 'name'::regclass) or given by its OID, and pg_size_pretty, as PostgreSQL 16's dbsize.c and
regress/expected/dbsize.out give them."""

import os
import re

import pytest

import txlake
from tests.conftest import one


@pytest.fixture
def c(connect):
    return connect(autocommit=True)


@pytest.mark.parametrize("size, shown", [
    (10, "10 bytes"), (1000, "1000 bytes"), (1000000, "977 kB"), (1000000000, "954 MB"),
    (1000000000000, "931 GB"), (1000000000000000, "909 TB"),  # (dbsize.out's first table)
    (10239, "10239 bytes"), (10240, "10 kB"), (10751, "10 kB"), (10752, "11 kB"),  # (its boundaries)
])
def test_size_pretty_as_dbsize_out(c, size, shown):
    assert one(c, f"SELECT pg_size_pretty({size}::bigint), pg_size_pretty(-{size}::bigint), "
                  f"pg_size_pretty({size}::numeric)") == (shown, "-" + shown, shown)


def test_a_table_s_size_is_its_data_files(c, warehouse):
    c.execute("CREATE TABLE t (id INT PRIMARY KEY, v TEXT)")
    assert one(c, "SELECT pg_total_relation_size('t')") == (0,)
    c.execute("INSERT INTO t SELECT i, repeat('x', 100) FROM generate_series(1, 5000) i")
    files = [os.path.join(root, f) for root, _, names in os.walk(os.path.join(warehouse, "default.db", "t"))
             for f in names if f.endswith(".parquet")]
    on_disk = sum(os.path.getsize(f) for f in files)
    assert on_disk > 0
    sizes = one(c, "SELECT pg_relation_size('t'), pg_table_size('t'::regclass), pg_total_relation_size('public.t')")
    assert sizes == (on_disk,) * 3
    c.execute("INSERT INTO t VALUES (0, 'one more')")  # (read at each execution: the same text again)
    assert one(c, "SELECT pg_total_relation_size('public.t')")[0] > on_disk
    c.execute("CREATE VIEW v AS SELECT 1")
    assert one(c, "SELECT pg_relation_size('v'), pg_relation_size('t_pkey')") == (0, 0)
    assert one(c, "SELECT pg_size_pretty(pg_total_relation_size('t'))")[0].endswith(" kB")


def test_the_size_of_each_relation_by_its_oid(c):
    """A monitoring query's pg_total_relation_size(c.oid) over pg_class: each relation's own
    size, row by row (an OID no relation has: NULL, as PostgreSQL's)."""
    c.execute("CREATE TABLE big (id INT PRIMARY KEY, v TEXT)")
    c.execute("CREATE TABLE empty (id INT)")
    c.execute("INSERT INTO big SELECT i, repeat('x', 100) FROM generate_series(1, 2000) i")
    [(big,)] = c.execute("SELECT pg_total_relation_size('big')").fetchall()
    assert big > 0
    assert c.execute("SELECT c.relname, pg_total_relation_size(c.oid), pg_relation_size(c.oid::regclass) "
                     "FROM pg_class c ORDER BY 1").fetchall() == [("big", big, big), ("big_pkey", 0, 0),
                                                                  ("empty", 0, 0)]
    assert one(c, "SELECT pg_total_relation_size(12345::oid), pg_table_size(NULL)") == (None, None)


@pytest.mark.parametrize("sql, sqlstate", [
    ("SELECT pg_total_relation_size('nope')", "42P01"),
    ("SELECT pg_relation_size(oid, 'fsm') FROM pg_class", "0A000"),  # (another fork: txlake's tables have one)
])
def test_refusals(c, sql, sqlstate):
    with pytest.raises(txlake.Error) as info:
        c.execute(sql)
    assert info.value.sqlstate == sqlstate


def test_pg_column_size_is_postgresql_s_datum_size(connect):
    """pg_column_size() was 42883. A fixed-size type's is its length; a text's or a bytea's its
    bytes and a varlena header - 1 byte for a table's value under 127 bytes (stored short), 4
    for a computed one; a numeric's a 2-byte header and 2 bytes a base-10000 digit; a string
    constant (unknown) a C string's; an enum's 4, a char(n)'s padded; json / jsonb and arrays 0A000."""
    conn = connect(autocommit=True)
    conn.execute("CREATE TYPE mood AS ENUM ('sad', 'ok')")
    conn.execute("CREATE TABLE z (i int, s smallint, b bigint, f float8, bo bool, d date, ts timestamp, u uuid, "
                 "iv interval, t text, by bytea, n numeric(10,2), m mood, c char(5), j jsonb, a int[])")
    conn.execute("INSERT INTO z VALUES (1, 1, 1, 1, true, '2024-01-01', '2024-01-01', gen_random_uuid(), '1 day', "
                 "'abc', '\\x0102', 1.50, 'ok', 'ab', '{}', ARRAY[1])")
    assert conn.execute("SELECT pg_column_size(i), pg_column_size(s), pg_column_size(b), pg_column_size(f), "
                        "pg_column_size(bo), pg_column_size(d), pg_column_size(ts), pg_column_size(u), "
                        "pg_column_size(iv), pg_column_size(m), pg_column_size(c) FROM z").fetchone() == (
        4, 2, 8, 8, 1, 4, 8, 16, 16, 4, 6)
    assert conn.execute("SELECT pg_column_size(t), pg_column_size(t || ''), pg_column_size(by), pg_column_size(n), "
                        "pg_column_size(n + 0), pg_column_size(repeat(t, 50)), pg_column_size(max(t)) "
                        "FROM z GROUP BY t, by, n").fetchone() == (4, 7, 3, 7, 10, 154, 7)
    assert conn.execute("SELECT pg_column_size('abc'), pg_column_size(NULL::int), pg_column_size(0::numeric), "
                        "pg_column_size(10000::numeric), pg_column_size(123456789.123::numeric)").fetchone() == (
        4, None, 6, 8, 14)
    for column, type_name in (("j", "json"), ("a", "INTEGER[]")):
        refusal = re.escape(f"pg_column_size() of a value of type {type_name}")
        with pytest.raises(txlake.NotSupportedError, match=refusal):
            conn.execute(f"SELECT pg_column_size({column}) FROM z").fetchall()
