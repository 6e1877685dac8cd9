"""Column types beyond the first eight, as PostgreSQL users write them: each through INSERT,
SELECT, UPDATE, WHERE, a primary key, DEFAULT, ALTER COLUMN TYPE, CREATE TABLE AS, the catalog
and a restart (the log's inline rows decoded, then a checkpoint's files read back)."""

import datetime
import zoneinfo

import pytest

import txlake

UTC = datetime.timezone.utc
TOKYO = zoneinfo.ZoneInfo("Asia/Tokyo")


@pytest.fixture
def db(connect):
    conn = connect(autocommit=True)
    conn.execute("SET TIME ZONE 'Asia/Tokyo'")
    return conn


def reopen(connect, conn, zone="Asia/Tokyo", checkpoint=False):
    """A new connection after closing ``conn`` (the warehouse read again from disk: the log's
    inline rows, or with ``checkpoint`` the tables compacted into Parquet and a catalog checkpoint)."""
    if checkpoint:
        for (name,) in conn.execute("SELECT table_name FROM information_schema.tables").fetchall():
            conn.execute(f"CALL txlake.compact('{name}')")
        conn._session.db.warehouse.write_checkpoint(force=True)
    conn.close()
    again = connect(autocommit=True)
    again.execute(f"SET TIME ZONE '{zone}'")
    return again


# --- TIMESTAMPTZ -----------------------------------------------------------------------------

def test_timestamptz_is_an_instant_shown_in_the_session_zone(db):
    """timestamptz was refused (0A000). It stores the instant; text without an offset is read
    in the session's zone, and values come back as aware datetimes in it, as psycopg gives them."""
    db.execute("CREATE TABLE ev (id INT PRIMARY KEY, at timestamptz, also TIMESTAMP WITH TIME ZONE)")
    db.execute("INSERT INTO ev VALUES (1, '2024-01-02 03:04:05+02', NULL), (2, '2024-01-02 03:04:05', NULL)")
    rows = db.execute("SELECT id, at FROM ev ORDER BY id").fetchall()
    assert rows == [(1, datetime.datetime(2024, 1, 2, 1, 4, 5, tzinfo=UTC)),
                    (2, datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=TOKYO))]
    assert rows[0][1].utcoffset() == datetime.timedelta(hours=9)  # (in the session's zone)
    assert db.execute("SELECT at::text FROM ev WHERE id = 1").fetchone() == ("2024-01-02 10:04:05+09",)
    db.execute("SET TIME ZONE 'UTC'")
    assert db.execute("SELECT at::text FROM ev ORDER BY id").fetchall() == [
        ("2024-01-02 01:04:05+00",), ("2024-01-01 18:04:05+00",)]
    assert db.execute("SELECT pg_typeof(at) FROM ev LIMIT 1").fetchone() == ("timestamp with time zone",)
    assert db.execute("SELECT data_type, datetime_precision FROM information_schema.columns "
                      "WHERE table_name = 'ev' AND column_name = 'at'").fetchone() == ("timestamp with time zone", 6)
    assert db.execute("SELECT id FROM ev WHERE at = '2024-01-02 10:04:05+09'").fetchall() == [(1,)]
    assert db.execute("SELECT id FROM ev WHERE at < TIMESTAMPTZ '2024-01-02 00:00:00+00'").fetchall() == [(2,)]


def test_timestamptz_parameters_aware_and_naive(db):
    """An aware datetime is its instant; a naive one is a wall time in the session's zone (psycopg)."""
    db.execute("CREATE TABLE ev (id INT, at TIMESTAMPTZ)")
    noon_utc = datetime.datetime(2024, 6, 1, 12, tzinfo=UTC)
    db.execute("INSERT INTO ev VALUES (?, ?)", (1, noon_utc))
    db.execute("INSERT INTO ev VALUES (?, ?)", (2, datetime.datetime(2024, 6, 1, 12)))
    chicago = noon_utc.astimezone(zoneinfo.ZoneInfo("America/Chicago"))
    db.cursor().executemany("INSERT INTO ev VALUES (?, ?)", [(3, chicago)])
    assert db.execute("SELECT id, at FROM ev ORDER BY id").fetchall() == [
        (1, noon_utc), (2, datetime.datetime(2024, 6, 1, 3, tzinfo=UTC)), (3, noon_utc)]
    assert db.execute("SELECT id FROM ev WHERE at = ? ORDER BY id", (noon_utc,)).fetchall() == [(1,), (3,)]
    assert db.execute("SELECT count(*) FROM ev WHERE at = ?", (datetime.datetime(2024, 6, 1, 21),)).fetchone() == (2,)


def test_timestamptz_casts_extract_trunc_and_at_time_zone(db):
    """PostgreSQL's casts to and from timestamp, date and text, and extract / date_trunc /
    AT TIME ZONE, all in the session's zone."""
    db.execute("CREATE TABLE ev (at TIMESTAMPTZ, wall TIMESTAMP)")
    db.execute("INSERT INTO ev VALUES ('2024-01-01 20:30:00+00', '2024-01-01 20:30:00')")
    row = db.execute("SELECT at::timestamp, at::date, at::text, wall::timestamptz, extract(hour FROM at), "
                     "extract(day FROM at), date_trunc('day', at), at AT TIME ZONE 'UTC', "
                     "wall AT TIME ZONE 'UTC', at::date::timestamptz FROM ev").fetchone()
    assert row == (
        datetime.datetime(2024, 1, 2, 5, 30), datetime.date(2024, 1, 2), "2024-01-02 05:30:00+09",
        datetime.datetime(2024, 1, 1, 20, 30, tzinfo=TOKYO), 5, 2,
        datetime.datetime(2024, 1, 2, tzinfo=TOKYO), datetime.datetime(2024, 1, 1, 20, 30),
        datetime.datetime(2024, 1, 1, 20, 30, tzinfo=UTC), datetime.datetime(2024, 1, 2, tzinfo=TOKYO))
    assert db.execute("SELECT at > wall FROM ev").fetchone() == (True,)  # (wall read in Tokyo: 11:30 UTC)


def test_timestamptz_update_key_default_and_restart(connect, db):
    """A TIMESTAMPTZ primary key, its point UPDATE, DEFAULT now(), and a committed one-row INSERT
    read back exactly after a restart (its inline row in the log) and after a checkpoint."""
    db.execute("CREATE TABLE ev (at TIMESTAMPTZ PRIMARY KEY, seen TIMESTAMPTZ DEFAULT now(), n INT)")
    at = datetime.datetime(2024, 3, 10, 1, 2, 3, 456789, tzinfo=UTC)
    db.execute("INSERT INTO ev (at, n) VALUES (?, 1)", (at,))
    db.execute("INSERT INTO ev (at, n) VALUES ('2024-03-10 10:02:03.456789', 2) ON CONFLICT (at) DO UPDATE SET n = 9")
    assert db.execute("SELECT at, n FROM ev").fetchall() == [(at, 9)]
    with pytest.raises(txlake.IntegrityError) as e:
        db.execute("INSERT INTO ev (at) VALUES (?)", (at,))
    assert e.value.sqlstate == "23505" and "Key (at)=(2024-03-10 01:02:03.456789+00) already" in str(e.value)
    db.execute("UPDATE ev SET n = n + 1 WHERE at = ?", (at,))
    db.execute("UPDATE ev SET seen = ? WHERE at = '2024-03-10 01:02:03.456789+00'", (at,))
    db.execute("INSERT INTO ev (at, n) VALUES (now(), 5)")
    before = db.execute("SELECT at, seen, n FROM ev ORDER BY n").fetchall()
    assert before[1] == (at, at, 10) and before[0][0] == before[0][1] and before[0][2] == 5
    for checkpoint in (False, True):
        db = reopen(connect, db, zone="America/New_York", checkpoint=checkpoint)
        assert db.execute("SELECT at, seen, n FROM ev ORDER BY n").fetchall() == before
        assert db.execute("SELECT n FROM ev WHERE at = ?", (at,)).fetchall() == [(10,)]


def test_alter_column_type_and_create_table_as(db):
    """ALTER COLUMN TYPE between timestamp and timestamptz reads the wall time in the session's
    zone (as PostgreSQL's cast); CREATE TABLE AS of a timestamptz expression makes a
    timestamptz column."""
    db.execute("CREATE TABLE ev (at TIMESTAMP)")
    db.execute("INSERT INTO ev VALUES ('2024-01-01 09:00:00')")
    db.execute("ALTER TABLE ev ALTER COLUMN at TYPE timestamptz")
    assert db.execute("SELECT at FROM ev").fetchone() == (datetime.datetime(2024, 1, 1, tzinfo=UTC),)
    db.execute("CREATE TABLE copy AS SELECT at, at + interval '1 hour' AS later, now() AS made FROM ev")
    assert db.execute("SELECT data_type FROM information_schema.columns WHERE table_name = 'copy' "
                      "ORDER BY ordinal_position").fetchall() == [("timestamp with time zone",)] * 3
    db.execute("SET TIME ZONE 'UTC'")
    db.execute("ALTER TABLE copy ALTER COLUMN later TYPE TIMESTAMP")
    assert db.execute("SELECT later FROM copy").fetchone() == (datetime.datetime(2024, 1, 1, 1),)


def test_timestamptz_shell_prints_as_psql(warehouse):
    from txlake.repl.render import format_value
    at = datetime.datetime(2024, 1, 2, 3, 4, 5, 123456, tzinfo=UTC)
    assert format_value(at) == "2024-01-02 03:04:05.123456+00"
    assert format_value(at.astimezone(zoneinfo.ZoneInfo("Asia/Kolkata"))) == "2024-01-02 08:34:05.123456+05:30"


# --- SMALLINT and REAL -------------------------------------------------------------------------

def test_smallint_is_its_own_type_with_postgresql_s_range(connect, db):
    """SMALLINT (int2, and SMALLSERIAL's) was stored as INT: 100000 went into a smallint column.
    Now it is 22003 smallint out of range, on every path (a value, a parameter, text, an UPDATE's
    arithmetic, ALTER COLUMN TYPE), and the column a smallint everywhere it is named."""
    db.execute("CREATE TABLE s (id SMALLINT PRIMARY KEY, b int2 DEFAULT 7, n SMALLSERIAL, big INT)")
    db.execute("INSERT INTO s (id, big) VALUES (1, 100000), (32767, 1)")
    db.execute("INSERT INTO s (id) VALUES (?)", (-32768,))
    for sql, params in (("INSERT INTO s (id) VALUES (100000)", ()), ("INSERT INTO s (id) VALUES (?)", (32768,)),
                        ("INSERT INTO s (id) VALUES ('-32769')", ()), ("INSERT INTO s (id) SELECT 40000", ()),
                        ("UPDATE s SET id = id + 1 WHERE id = 32767", ()),
                        ("UPDATE s SET b = ? WHERE id = 1", (1 << 15,)), ("UPDATE s SET b = big WHERE id = 1", ()),
                        ("ALTER TABLE s ALTER COLUMN big TYPE smallint", ())):
        with pytest.raises(txlake.DataError) as e:
            db.execute(sql, params)
        # (text is read by smallint's input, whose words quote it, as PostgreSQL's int2in)
        message = 'value "-32769" is out of range for type smallint' if "'" in sql else "smallint out of range"
        assert (e.value.sqlstate, str(e.value)) == ("22003", message), sql
    db.execute("UPDATE s SET b = b - 1 WHERE id = ?", (1,))
    assert db.execute("SELECT id, b, n, pg_typeof(id), pg_typeof(n) FROM s WHERE id = 1").fetchall() == [
        (1, 6, 1, "smallint", "smallint")]
    assert db.execute("SELECT data_type, numeric_precision FROM information_schema.columns WHERE table_name = 's' "
                      "ORDER BY ordinal_position").fetchall() == [("smallint", 16)] * 3 + [("integer", 32)]
    assert db.execute("SELECT id FROM s WHERE id < 0").fetchall() == [(-32768,)]
    db.execute("CREATE TABLE c AS SELECT id, id::int2 + 1::int2 AS next FROM s WHERE id = 1")
    assert db.execute("SELECT data_type FROM information_schema.columns WHERE table_name = 'c'").fetchall() == [
        ("smallint",), ("smallint",)]
    before = db.execute("SELECT * FROM s ORDER BY id").fetchall()
    for checkpoint in (False, True):
        db = reopen(connect, db, checkpoint=checkpoint)
        assert db.execute("SELECT * FROM s ORDER BY id").fetchall() == before
        assert db.execute("SELECT b FROM s WHERE id = 32767").fetchall() == [(7,)]
        with pytest.raises(txlake.DataError):
            db.execute("INSERT INTO s (id) VALUES (32768)")


def test_real_is_float4_and_fetched_as_its_text_says(connect, db):
    """REAL (float4, FLOAT(p) up to 24 bits) was stored as DOUBLE. Now it is a float4: 0.1 is
    stored as PostgreSQL's real stores it and fetched as 0.1 (its shortest text), through the
    primary-key lookup too; a value past its range is 22003."""
    db.execute("CREATE TABLE r (id INT PRIMARY KEY, x REAL, y float4 DEFAULT 1.5, z FLOAT(10), d DOUBLE PRECISION)")
    db.execute("INSERT INTO r (id, x, z, d) VALUES (1, 0.1, 0.3, 0.1), (2, ?, NULL, ?)", (1 / 3, 1 / 3))
    assert db.execute("SELECT * FROM r WHERE id = 1").fetchall() == [(1, 0.1, 1.5, 0.3, 0.1)]
    assert db.execute("SELECT x, d, x = d FROM r WHERE id = 2").fetchone() == (0.33333334, 1 / 3, False)
    assert db.execute("SELECT id FROM r WHERE x = 0.1::real").fetchall() == [(1,)]
    assert db.execute("SELECT pg_typeof(x), pg_typeof(z) FROM r LIMIT 1").fetchone() == ("real", "real")
    assert db.execute("SELECT data_type, numeric_precision FROM information_schema.columns WHERE table_name = 'r' "
                      "ORDER BY ordinal_position").fetchall() == [
        ("integer", 32), ("real", 24), ("real", 24), ("real", 24), ("double precision", 53)]
    for bad, words in (("1e40", "overflow"), ("'1e40'", "overflow"), ("'-1e-50'", "underflow"),
                       ("'1e300'::double precision", "overflow")):
        with pytest.raises(txlake.DataError) as e:  # (DuckDB read text past the range as Infinity or 0)
            db.execute(f"INSERT INTO r (id, x) VALUES (3, {bad})")
        assert (e.value.sqlstate, str(e.value)) == ("22003", f"value out of range: {words}"), bad
    with pytest.raises(txlake.DataError):
        db.execute("SELECT '1e40'::real")
    assert db.execute("SELECT 'Infinity'::real, '-0'::float4").fetchone() == (float("inf"), -0.0)
    db.execute("UPDATE r SET x = x * 2 WHERE id = 1")
    db.execute("UPDATE r SET y = ? WHERE id = 1", (2.25,))
    db.execute("ALTER TABLE r ALTER COLUMN d TYPE real")
    before = db.execute("SELECT * FROM r ORDER BY id").fetchall()
    assert before[0] == (1, 0.2, 2.25, 0.3, 0.1)
    for checkpoint in (False, True):
        db = reopen(connect, db, checkpoint=checkpoint)
        assert db.execute("SELECT * FROM r ORDER BY id").fetchall() == before


def test_a_smallint_key_is_looked_up_by_its_index(db):
    db.execute("CREATE TABLE k (id SMALLINT PRIMARY KEY, v TEXT)")
    db.execute("INSERT INTO k SELECT i, 'v' || i FROM range(-300, 300) r(i)")
    assert db.execute("EXPLAIN SELECT v FROM k WHERE id = ?", (-5,)).fetchone()[0].startswith("Primary key lookup")
    assert db.execute("SELECT v FROM k WHERE id = ?", (-5,)).fetchall() == [("v-5",)]
    with pytest.raises(txlake.IntegrityError):
        db.execute("INSERT INTO k VALUES (299, 'again')")


def test_an_int_column_of_an_older_warehouse_stays_an_int(connect, db):
    """A SMALLINT column created before the type existed was stored as INT (its schema says INT,
    its files hold int32): it stays an integer column, reads and takes integers as before."""
    db.execute("CREATE TABLE old (id INT PRIMARY KEY, v INT)")
    db.execute("INSERT INTO old VALUES (1, 100000)")
    schema = db._session.db.warehouse.latest.table("default", "old").schema
    assert schema.to_json()["columns"][1]["type"] == "INT"
    db = reopen(connect, db, checkpoint=True)
    db.execute("UPDATE old SET v = v + 1 WHERE id = 1")
    assert db.execute("SELECT v, pg_typeof(v) FROM old").fetchone() == (100001, "integer")


# --- BYTEA -------------------------------------------------------------------------------------

def test_bytea_reads_postgresql_s_hex_and_escape_input(connect, db):
    """bytea was refused (0A000). Text becomes bytea as PostgreSQL reads it - '\\x6162' is 'ab'
    (DuckDB's own cast made it 'a62'), 'a\\000b\\\\' the escape format - in a cast, an INSERT,
    an UPDATE, a DEFAULT and ALTER COLUMN TYPE; bytes parameters go in as they are; values come
    back as bytes, and the shell shows them in the hex format."""
    db.execute("CREATE TABLE b (k BYTEA PRIMARY KEY, v bytea DEFAULT '\\x00ff', n INT, t TEXT)")
    db.execute("INSERT INTO b VALUES ('\\x6162', 'a\\000b\\\\c', 1, '\\x4142'), ('\\x 01 0A', 'x', 2, 'z\\101')")
    db.execute("INSERT INTO b (k, n) VALUES (?, 3)", (b"\x00\xff",))
    assert db.execute("SELECT k, v, n FROM b ORDER BY k").fetchall() == [
        (b"\x00\xff", b"\x00\xff", 3), (b"\x01\x0a", b"x", 2), (b"ab", b"a\x00b\\c", 1)]
    assert db.execute("SELECT '\\x6162'::bytea, CAST('a\\134' AS BYTEA), CAST(? AS bytea)", (b"\x01",)).fetchone() == (
        b"ab", b"a\\", b"\x01")
    db.execute("UPDATE b SET v = '\\xdead' WHERE k = ?", (b"ab",))
    db.execute("UPDATE b SET v = ? WHERE n = 2", (b"\xbe\xef",))
    db.execute("INSERT INTO b (k, n) VALUES ('\\x02', 4), ('\\x03', 5) ON CONFLICT (k) DO UPDATE SET v = '\\x01'")
    db.execute("ALTER TABLE b ALTER COLUMN t TYPE bytea")
    assert db.execute("SELECT v, t FROM b WHERE n < 3 ORDER BY n").fetchall() == [
        (b"\xde\xad", b"AB"), (b"\xbe\xef", b"zA")]
    from txlake.repl.render import format_value
    assert format_value(db.execute("SELECT v FROM b WHERE n = 1").fetchone()[0]) == "\\xdead"
    for bad, sqlstate in (("\\x6g", "22023"), ("\\x616", "22023"), ("a\\9", "22P02")):
        with pytest.raises(txlake.DataError) as e:
            db.execute("INSERT INTO b (k) VALUES (?::bytea)", (bad,))
        assert e.value.sqlstate == sqlstate, bad
    with pytest.raises(txlake.IntegrityError) as e:
        db.execute("INSERT INTO b (k) VALUES ('\\x6162')")
    assert "Key (k)=(\\x6162) already exists" in str(e.value)


def test_bytea_functions_comparison_catalog_and_restart(connect, db):
    """length / octet_length count bytes, encode / decode with hex, base64 and escape as
    PostgreSQL's, comparison is bytewise; the catalog says bytea; a committed row (inline in
    the log) and a compacted file read back exactly."""
    db.execute("CREATE TABLE b (id INT PRIMARY KEY, v BYTEA)")
    db.execute("INSERT INTO b VALUES (1, '\\x00ff5c'), (2, 'ab'), (3, NULL)")
    assert db.execute("SELECT length(v), octet_length(v), encode(v, 'hex'), encode(v, 'escape'), "
                      "encode(v, 'base64'), pg_typeof(v) FROM b WHERE id = 1").fetchone() == (
        3, 3, "00ff5c", "\\000\\377\\\\", "AP9c", "bytea")
    assert db.execute("SELECT decode('a\\000\\\\', 'escape'), decode('00ff', 'hex'), length('abc')").fetchone() == (
        b"a\x00\\", b"\x00\xff", 3)
    assert db.execute("SELECT id FROM b WHERE v > '\\x00'::bytea ORDER BY v").fetchall() == [(1,), (2,)]
    assert db.execute("SELECT id FROM b WHERE v = ?", (b"ab",)).fetchall() == [(2,)]
    assert db.execute("SELECT data_type FROM information_schema.columns WHERE table_name = 'b' "
                      "AND column_name = 'v'").fetchone() == ("bytea",)
    db.execute("CREATE TABLE c AS SELECT id, v || '\\x00'::bytea AS w FROM b")
    assert db.execute("SELECT pg_typeof(w) FROM c LIMIT 1").fetchone() == ("bytea",)
    before = db.execute("SELECT * FROM b ORDER BY id").fetchall()
    for checkpoint in (False, True):
        db = reopen(connect, db, checkpoint=checkpoint)
        assert db.execute("SELECT * FROM b ORDER BY id").fetchall() == before


def test_rows_of_the_new_types_travel_in_the_log_as_json():
    """A small commit's rows go in its log entry as JSON values (an Arrow IPC stream costs about
    1 KB more): a TIMESTAMPTZ as UTC microseconds, a BYTEA as hex, a TIME as microseconds since
    midnight; read back exactly, as Python values and as Arrow."""
    from txlake.storage.schema import Column, ColumnType, TableSchema
    from txlake.storage.version import decode_rows, decode_values, encode_rows, encode_values
    kinds = ("SMALLINT", "REAL", "BYTEA", "TIME", "TIMESTAMPTZ")
    schema = TableSchema(0, tuple(Column(i, k.lower(), ColumnType(k)) for i, k in enumerate(kinds)))
    at = datetime.datetime(2024, 1, 2, 3, 4, 5, 6, tzinfo=zoneinfo.ZoneInfo("UTC"))
    values = [[-32768, None], [0.10000000149011612, None], [b"\x00\xff", None],
              [datetime.time(1, 2, 3, 4), None], [at, None]]
    encoded = encode_values(schema, values)
    assert encoded["columns"] == [[-32768, None], [0.10000000149011612, None], ["00ff", None],
                                  [3723000004, None], [1704164645000006, None]]
    assert decode_values(schema, encoded).columns == values
    table = decode_values(schema, encoded).table()
    assert isinstance(encode_rows(table), dict) and decode_rows(encode_rows(table)).equals(table)


# --- TIME --------------------------------------------------------------------------------------

def test_time_of_day_through_writes_keys_and_restart(connect, db):
    """TIME (time without time zone) was refused (0A000): a time of day to the microsecond,
    fetched as datetime.time, a key, a DEFAULT, ALTER COLUMN TYPE, CREATE TABLE AS; 24:00:00,
    which PostgreSQL allows and Python cannot hold, is 22008, as a time past it."""
    db.execute("CREATE TABLE tm (t TIME PRIMARY KEY, u time without time zone DEFAULT '12:00', n INT)")
    db.execute("INSERT INTO tm VALUES ('01:02:03.456789', NULL, 1)")
    db.execute("INSERT INTO tm (t, n) VALUES (?, 2)", (datetime.time(23, 59, 59, 999999),))
    for bad in ("24:00:00", "25:00:00"):
        with pytest.raises(txlake.DataError) as e:
            db.execute(f"INSERT INTO tm (t) VALUES ('{bad}')")
        assert e.value.sqlstate == "22008", bad
    assert db.execute("SELECT n FROM tm WHERE t = ?", (datetime.time(23, 59, 59, 999999),)).fetchall() == [(2,)]
    assert db.execute("SELECT n FROM tm WHERE t < '12:00'").fetchall() == [(1,)]
    db.execute("UPDATE tm SET u = t + interval '1 hour' WHERE t = '01:02:03.456789'")
    assert db.execute("SELECT extract(hour FROM u), u::text, pg_typeof(u), "
                      "'2024-01-01 10:11:12'::timestamp::time FROM tm WHERE n = 1").fetchone() == (
        2, "02:02:03.456789", "time without time zone", datetime.time(10, 11, 12))
    with pytest.raises(txlake.IntegrityError):
        db.execute("INSERT INTO tm (t) VALUES ('01:02:03.456789')")
    db.execute("CREATE TABLE c AS SELECT t, localtime AS l FROM tm")
    db.execute("ALTER TABLE c ALTER COLUMN l TYPE text")
    db.execute("ALTER TABLE c ALTER COLUMN l TYPE time")
    assert db.execute("SELECT data_type, datetime_precision FROM information_schema.columns "
                      "WHERE table_name = 'c'").fetchall() == [("time without time zone", 6)] * 2
    before = db.execute("SELECT * FROM tm ORDER BY t").fetchall()
    assert before == [(datetime.time(1, 2, 3, 456789), datetime.time(2, 2, 3, 456789), 1),
                      (datetime.time(23, 59, 59, 999999), datetime.time(12), 2)]
    for checkpoint in (False, True):
        db = reopen(connect, db, checkpoint=checkpoint)
        assert db.execute("SELECT * FROM tm ORDER BY t").fetchall() == before


@pytest.mark.parametrize("type_name, generated, key", [
    ("SMALLINT", "i - 500", -3),
    ("REAL", "i / 4.0", 1.25),
    ("BYTEA", "i::text::bytea", b"42"),  # (the text's bytes)
    ("TIME", "TIME '00:00:00' + i * interval '1 second'", datetime.time(0, 1, 40)),
    ("TIMESTAMPTZ", "TIMESTAMPTZ '2024-01-01 00:00:00+00' + i * interval '1 hour'",
     datetime.datetime(2024, 1, 2, tzinfo=UTC)),
])
def test_a_key_of_each_new_type_in_a_parquet_file(db, type_name, generated, key):
    """Rows past what a commit keeps inline go to a Parquet file, whose key index and footer
    statistics find a key of each new type: a duplicate is 23505, an UPDATE and a SELECT by the
    key find its row."""
    db.execute(f"CREATE TABLE k (id {type_name} PRIMARY KEY, v INT)")
    db.execute(f"INSERT INTO k SELECT {generated}, i FROM range(1000) r(i)")
    with pytest.raises(txlake.IntegrityError) as e:
        db.execute("INSERT INTO k VALUES (?, -1)", (key,))
    assert e.value.sqlstate == "23505"
    db.execute("UPDATE k SET v = -v WHERE id = ?", (key,))
    db.execute("INSERT INTO k VALUES (?, 0) ON CONFLICT (id) DO UPDATE SET v = k.v - 1", (key,))
    assert db.execute("SELECT v < 0, count(*) OVER () FROM k WHERE id = ?", (key,)).fetchall() == [(True, 1)]
    assert db.execute("SELECT count(*) FROM k").fetchone() == (1000,)


def test_an_integer_constant_in_arithmetic_is_an_integer_as_in_postgresql(db):
    """PostgreSQL's ``1`` is an int4: smallint + int4 is an integer. DuckDB narrowed the
    constant to the column's smallint, so ``s + 1`` at 32767 and ``s * 1000`` failed (22003)."""
    db.execute("CREATE TABLE sm (k INT PRIMARY KEY, s SMALLINT)")
    db.execute("INSERT INTO sm VALUES (1, 32767)")
    assert db.execute("SELECT s + 1, s * 1000, 1 - s, pg_typeof(s + 1), pg_typeof(2 * 3) FROM sm").fetchone() == \
        (32768, 32767000, -32766, "integer", "integer")
    with pytest.raises(txlake.errors.NumericValueOutOfRange, match="smallint out of range"):
        db.execute("UPDATE sm SET s = s + 1 WHERE k = 1")  # (the assignment to the smallint, as PostgreSQL)
    assert db.execute("UPDATE sm SET s = s - 1 WHERE k = 1").rowcount == 1
    assert db.execute("SELECT s FROM sm").fetchone() == (32766,)


def test_a_constant_in_set_keeps_the_point_update_path():
    from txlake.engine.points import update_plan
    from txlake.parser.parse import parse
    plan = update_plan(parse("UPDATE t SET n = n + 1, m = 2 - m WHERE k = 1")[0], "t")
    assert plan is not None and plan.assignments == {"n": ("add", ("column", "n"), ("const", 1)),
                                                     "m": ("sub", ("const", 2), ("column", "m"))}
