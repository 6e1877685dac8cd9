"""now() is the transaction's start, as in PostgreSQL: every statement of a transaction sees
the same now(), current_timestamp, current_date and localtimestamp - in queries, in column
defaults, in SERIALIZABLE's predicate reads - and only statement_timestamp() moves."""

import time

import pytest

import txlake

CLOCKS = "now(), current_timestamp, transaction_timestamp(), localtimestamp, current_date, localtime, current_time"


@pytest.fixture
def conn(connect):
    return connect()


def test_a_transaction_keeps_one_now(conn):
    cur = conn.execute(f"SELECT {CLOCKS}, statement_timestamp()")
    assert [d[0] for d in cur.description] == [
        "now", "current_timestamp", "transaction_timestamp", "localtimestamp", "current_date", "localtime",
        "current_time", "statement_timestamp"]
    first = cur.fetchone()
    now = first[0]
    assert first[1] == first[2] == now
    assert first[3] == now.replace(tzinfo=None) and first[4] == now.date() and first[5] == now.time()
    time.sleep(0.05)
    again = conn.execute(f"SELECT {CLOCKS}, statement_timestamp()").fetchone()
    assert again[:7] == first[:7]
    assert again[7] - now >= time_delta(0.05)  # the statement's own start moves on
    assert conn.execute("SELECT now() - interval '1 hour' < now()").fetchone() == (True,)
    conn.commit()
    time.sleep(0.01)
    assert conn.execute("SELECT now()").fetchone()[0] > now  # a new transaction, a new now()


def test_autocommit_statements_each_have_their_own(connect):
    conn = connect(autocommit=True)
    conn.execute("CALL txlake.expire_snapshots(older_than => now() - interval '1 day')")  # no transaction
    first = conn.execute("SELECT now()").fetchone()[0]
    time.sleep(0.01)
    assert conn.execute("SELECT now()").fetchone()[0] > first


def test_defaults_and_writes_use_the_transaction_start(conn):
    conn.execute("CREATE TABLE ev (id INT PRIMARY KEY, at TIMESTAMP DEFAULT now(), "
                 "day DATE DEFAULT current_date, seen TIMESTAMP DEFAULT clock_timestamp())")
    conn.commit()
    conn.execute("SELECT 1")
    now = conn.execute("SELECT localtimestamp").fetchone()[0]
    time.sleep(0.05)
    conn.execute("INSERT INTO ev (id) VALUES (1)")                      # defaults
    conn.execute("INSERT INTO ev VALUES (2, now(), DEFAULT, DEFAULT)")  # the one-row fast path
    conn.execute("INSERT INTO ev (id, at) SELECT 3, current_timestamp")
    conn.execute("INSERT INTO ev (id, at) VALUES (4, NULL)")
    conn.execute("UPDATE ev SET at = DEFAULT WHERE id = 4")
    conn.execute("ALTER TABLE ev ADD COLUMN added TIMESTAMP DEFAULT transaction_timestamp()")
    rows = conn.execute("SELECT id, at, day, seen, added FROM ev ORDER BY id").fetchall()
    assert [r[1] for r in rows] == [now] * 4
    assert [r[2] for r in rows] == [now.date()] * 4
    assert [r[4] for r in rows] == [now] * 4
    assert all(r[3] - now >= time_delta(0.05) for r in rows[:2])  # clock_timestamp(): the statement's
    conn.commit()


def test_serializable_binds_now_in_a_predicate_read(warehouse):
    """A predicate read with now() is checked against others' writes with the reader's now():
    a row written outside the predicate is no conflict. (Checked with another clock, the
    predicate could not be evaluated, and a false conflict would close this cycle: 40001.)"""
    setup = txlake.connect(warehouse, autocommit=True, publish="off")
    setup.execute("CREATE TABLE a (id INT PRIMARY KEY, at TIMESTAMP)")
    setup.execute("CREATE TABLE b (id INT PRIMARY KEY, v INT)")
    setup.execute("INSERT INTO b VALUES (1, 1)")
    s1 = txlake.connect(warehouse, isolation_level="SERIALIZABLE", publish="off")
    s2 = txlake.connect(warehouse, isolation_level="SERIALIZABLE", publish="off")
    assert s1.execute("SELECT count(*) FROM a WHERE at > now() + interval '1 day'").fetchone() == (0,)
    assert s2.execute("SELECT v FROM b").fetchall() == [(1,)]
    s2.execute("INSERT INTO a VALUES (1, localtimestamp)")  # not in s1's predicate
    s1.execute("UPDATE b SET v = 2 WHERE id = 1")          # s2 read it: s2 -> s1
    s2.commit()
    s1.commit()
    assert setup.execute("SELECT v FROM b").fetchall() == [(2,)]


def time_delta(seconds):
    import datetime
    return datetime.timedelta(seconds=seconds * 0.9)


def test_set_time_zone_decides_how_zoned_timestamps_convert(connect):
    """SET TIME ZONE / SET timezone were refused (42601, 42704): an aware datetime stored in a
    TIMESTAMP column depended on the process's TZ, with no way to pin it, as in PostgreSQL."""
    import datetime
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE z (id INT, ts TIMESTAMP)")
    noon_utc = datetime.datetime(2024, 1, 1, 12, tzinfo=datetime.timezone.utc)
    started = conn.execute("SHOW TIME ZONE").fetchone()[0]
    conn.execute("SET TIME ZONE 'Asia/Tokyo'")
    assert conn.execute("SHOW timezone").fetchone() == ("Asia/Tokyo",)
    conn.execute("INSERT INTO z VALUES (1, ?)", (noon_utc,))
    conn.execute("SET timezone = 'America/New_York'")
    conn.execute("INSERT INTO z VALUES (2, ?)", (noon_utc,))
    conn.execute("INSERT INTO z VALUES (3, localtimestamp)")
    rows = conn.execute("SELECT ts FROM z ORDER BY id").fetchall()
    assert rows[:2] == [(datetime.datetime(2024, 1, 1, 21),), (datetime.datetime(2024, 1, 1, 7),)]
    assert abs(rows[2][0] - datetime.datetime.now(datetime.timezone.utc).astimezone(
        __import__("zoneinfo").ZoneInfo("America/New_York")).replace(tzinfo=None)) < datetime.timedelta(minutes=5)
    with pytest.raises(txlake.DataError) as e:
        conn.execute("SET TIME ZONE 'Mars/Olympus'")
    assert e.value.sqlstate == "22023"
    conn.execute("RESET timezone")
    assert conn.execute("SHOW TIME ZONE").fetchone() == (started,)
    conn.execute("SET TIME ZONE 'Asia/Tokyo'")
    conn.execute("RESET TIME ZONE")  # (a syntax error at "zone" before)
    assert conn.execute("SHOW TIME ZONE").fetchone() == (started,)
    conn.execute("SET LOCAL TIME ZONE 'UTC'")  # outside a block: a warning, and nothing changes
    assert conn.execute("SHOW TIME ZONE").fetchone() == (started,)
    conn.execute("BEGIN")
    with pytest.raises(txlake.NotSupportedError):  # (it outlived the transaction)
        conn.execute("SET LOCAL TIME ZONE 'UTC'")
    conn.execute("ROLLBACK")


def test_create_table_as_keeps_a_zoned_time_an_instant(connect):
    """CREATE TABLE AS SELECT now() stored the UTC wall time in a TIMESTAMP column (the zone was
    dropped); then, lacking TIMESTAMPTZ, the session zone's wall time. Now the column is a
    TIMESTAMPTZ holding the instant, as PostgreSQL's; localtimestamp stays a TIMESTAMP."""
    import datetime
    conn = connect(autocommit=True)
    conn.execute("SET TIME ZONE 'America/New_York'")
    noon_utc = datetime.datetime(2024, 1, 1, 12, tzinfo=datetime.timezone.utc)
    conn.execute("CREATE TABLE c AS SELECT CAST(? AS TIMESTAMPTZ) AS at, now() AS started, "
                 "localtimestamp AS wall", (noon_utc,))
    at, started, wall = conn.execute("SELECT * FROM c").fetchone()
    assert at == noon_utc and at.utcoffset() == datetime.timedelta(hours=-5)
    assert started.replace(tzinfo=None) == wall


def test_serializable_predicates_in_the_session_time_zone(warehouse):
    """SSI evaluates a read's WHERE later, on a connection of its own in the process's zone: a
    predicate converting to a date in the session's zone gave another answer there, and write
    skew committed. Such a read (also one reading the statement's clock, which would have
    moved) counts as a read of the whole table."""
    setting, clock = "SET TIME ZONE 'Pacific/Kiritimati'", "TIMESTAMPTZ '2024-01-01 20:00:00+00'"
    setup = txlake.connect(warehouse, autocommit=True, publish="off")
    setup.execute("CREATE TABLE shifts (id INT PRIMARY KEY, day DATE)")
    a, b = (txlake.connect(warehouse, isolation_level="SERIALIZABLE", publish="off") for _ in "ab")
    for conn in (a, b):
        conn.execute(setting)
        conn.execute(f"SELECT count(*) FROM shifts WHERE day = CAST({clock} AS DATE)")
    for i, conn in ((1, a), (2, b)):
        conn.execute(f"INSERT INTO shifts VALUES ({i}, CAST({clock} AS DATE))")
    a.commit()
    with pytest.raises(txlake.SerializationFailure):
        b.commit()
    for conn in (a, b, setup):
        conn.close()


def test_now_and_today_as_input_are_the_transaction_s(conn):
    """'today'::date and 'now'::timestamp were refused (22007); PostgreSQL reads them as the
    transaction's start (its day, for today / yesterday / tomorrow)."""
    conn.execute("BEGIN")
    row = conn.execute("SELECT 'now'::timestamptz = now(), 'today'::date = current_date, "
                       "'yesterday'::date = current_date - 1, 'tomorrow'::timestamp = current_date + 1, "
                       "'now'::timestamp = localtimestamp").fetchone()
    assert row == (True,) * 5
    conn.execute("COMMIT")
