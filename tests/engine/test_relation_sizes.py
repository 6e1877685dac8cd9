"""pg_relation_size / pg_table_size / pg_total_relation_size of a relation named by a string
constant (or 'name'::regclass) or given by its OID, and pg_size_pretty, as PostgreSQL 16's dbsize.c and
regress/expected/dbsize.out give them."""

import os

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
