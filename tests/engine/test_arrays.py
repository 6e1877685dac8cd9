"""ARRAY columns: one-dimensional arrays of the scalar types (``INT[]``, ``VARCHAR(10)[]``,
``DECIMAL(10,2)[]``, ``TEXT ARRAY``), as PostgreSQL users write and read them - stored, shown in
the catalog, written back after a restart and a checkpoint, their values given as ``ARRAY[...]``
or in PostgreSQL's text form ``{1,"a b",NULL}``."""

import datetime
import decimal

import pytest

import txlake


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
    with pytest.raises(txlake.NotSupportedError) as e:
        db.execute("CREATE TABLE t (a INT[] PRIMARY KEY)")
    assert e.value.sqlstate == "0A000" and 'column "a" is an array' in str(e.value)
    with pytest.raises(txlake.NotSupportedError) as e:
        db.execute("CREATE TABLE t (id INT, a INT[], PRIMARY KEY (id, a))")
    assert e.value.sqlstate == "0A000"
    with pytest.raises(txlake.NotSupportedError) as e:
        db.execute("CREATE TABLE t (a INT[][])")
    assert e.value.sqlstate == "0A000" and "one-dimensional" in str(e.value)
    assert db.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = 't'").fetchone() == (0,)


def test_create_table_as_keeps_array_columns(db):
    db.execute("CREATE TABLE t AS SELECT ARRAY[1, 2] AS a, ['x'] AS b, [1.5::decimal(4,1)] AS c")
    got = db.execute("SELECT column_name, udt_name FROM information_schema.columns WHERE table_name = 't' "
                     "ORDER BY ordinal_position").fetchall()
    assert got == [("a", "_int4"), ("b", "_text"), ("c", "_numeric")]
    assert db.execute("SELECT * FROM t").fetchall() == [([1, 2], ["x"], [decimal.Decimal("1.5")])]
