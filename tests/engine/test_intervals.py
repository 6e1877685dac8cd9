"""Intervals' and periods' functions as PostgreSQL 16 has them: justify_hours, justify_days,
justify_interval and (s1, e1) OVERLAPS (s2, e2) (src/backend/utils/adt/timestamp.c, date.c; cases
from src/test/regress/expected/interval.out and horology.out)."""

import datetime

import pytest

import txlake


@pytest.fixture
def conn(connect):
    return connect(autocommit=True)


def text(conn, sql):
    return conn.execute(f"SELECT ({sql})::text").fetchone()[0]


@pytest.mark.parametrize("call, expected", [
    ("justify_hours(interval '6 months 3 days 52 hours 3 minutes 2 seconds')", "6 mons 5 days 04:03:02"),
    ("justify_days(interval '6 months 36 days 5 hours 4 minutes 3 seconds')", "7 mons 6 days 05:04:03"),
    ("justify_interval(interval '1 month -1 hour')", "29 days 23:00:00"),
    ("justify_interval(interval '2147483647 days 24 hrs')", "5965232 years 4 mons 8 days"),
    ("justify_interval(interval '-2147483648 days -24 hrs')", "-5965232 years -4 mons -9 days"),
    ("justify_interval(interval '2147483647 months 30 days -24 hrs')", "178956970 years 7 mons 29 days"),
    ("justify_interval(interval '-2147483648 months -30 days 24 hrs')", "-178956970 years -8 mons -29 days"),
    # negative parts: a day (a month) borrowed to give every part one sign; C's truncating division
    ("justify_hours(interval '-1 day 25 hours')", "01:00:00"),
    ("justify_hours(interval '1 day -25 hours')", "-01:00:00"),
    ("justify_hours(interval '-50 hours')", "-2 days -02:00:00"),
    ("justify_days(interval '-65 days')", "-2 mons -5 days"),
    ("justify_days(interval '1 month -35 days')", "-5 days"),
    ("justify_days(interval '-1 month 40 days')", "10 days"),
    ("justify_days(interval '1 month -1 hour')", "1 mon -01:00:00"),
    ("justify_interval(interval '-1 month 1 hour')", "-29 days -23:00:00"),
    ("justify_interval(interval '1 month 1 day -25 hours')", "29 days 23:00:00"),
    ("justify_hours('25 hours')", "1 day 01:00:00"),  # (an untyped literal is an interval)
])
def test_justify_moves_whole_days_and_months_as_postgresql(conn, call, expected):
    assert text(conn, call) == expected


@pytest.mark.parametrize("call", [
    "justify_hours(interval '2147483647 days 24 hrs')", "justify_days(interval '2147483647 months 30 days')",
    "justify_interval(interval '2147483647 months 30 days')",
    "justify_interval(interval '-2147483648 months -30 days')",
    "justify_interval(interval '2147483647 months -30 days 1440 hrs')",
])
def test_justify_out_of_range_is_22008(conn, call):
    with pytest.raises(txlake.DataError) as e:
        conn.execute(f"SELECT {call}")
    assert e.value.sqlstate == "22008" and "interval out of range" in str(e.value)


def test_justify_of_rows_null_and_another_type(conn):
    assert conn.execute("SELECT justify_hours(v)::text, justify_days(v)::text, pg_typeof(justify_interval(v)) "
                        "FROM (VALUES (interval '36 hours'), (NULL), (interval '45 days')) AS i(v)").fetchall() == [
        ("1 day 12:00:00", "36:00:00", "interval"), (None, None, "interval"), ("45 days", "1 mon 15 days", "interval")]
    with pytest.raises(txlake.ProgrammingError) as e:
        conn.execute("SELECT justify_days(5)")
    assert e.value.sqlstate == "42883"


# (s1, e1) OVERLAPS (s2, e2): timestamp.c's overlaps_timestamp / overlaps_time; the cases of horology.out
@pytest.mark.parametrize("left, right, expected", [
    ("timestamp '2000-11-27', timestamp '2000-11-28'", "timestamp '2000-11-27 12:00', timestamp '2000-11-30'", True),
    ("timestamp '2000-11-26', timestamp '2000-11-27'", "timestamp '2000-11-27 12:00', timestamp '2000-11-30'", False),
    ("timestamp '2000-11-27', timestamp '2000-11-28'", "timestamp '2000-11-27 12:00', interval '1 day'", True),
    ("timestamp '2000-11-27', interval '12 hours'", "timestamp '2000-11-27 12:00', timestamp '2000-11-30'", False),
    ("timestamp '2000-11-27', interval '12 hours'", "timestamp '2000-11-27', interval '12 hours'", True),
    ("timestamp '2000-11-27', interval '12 hours'", "timestamp '2000-11-27 12:00', interval '12 hours'", False),
    ("time '00:00', time '01:00'", "time '00:30', time '01:30'", True),
    ("time '00:00', interval '1 hour'", "time '00:30', interval '1 hour'", True),
    ("time '00:00', interval '1 hour'", "time '01:30', interval '1 hour'", False),
    ("time '00:00', interval '1 hour'", "time '01:30', interval '1 day'", False),  # (no wrap past midnight)
    ("date '2001-01-01', date '2001-02-01'", "date '2001-01-15', date '2001-03-01'", True),
    ("date '2001-01-01', date '2001-02-01'", "date '2001-02-01', date '2001-03-01'", False),  # (ends touch)
    ("date '2001-02-01', date '2001-01-01'", "date '2001-01-15', date '2001-01-15'", True),  # (ends swapped)
    ("date '2001-01-15', date '2001-01-15'", "date '2001-01-15', date '2001-01-15'", True),  # (same instant)
    ("date '2001-01-10', interval '-9 days'", "timestamp '2000-12-31 12:00', timestamp '2001-01-01 00:00:01'", True),
    # NULL ends: unknown unless the known ends decide
    ("date '2001-01-01', NULL::date", "date '2001-01-01', date '2001-01-02'", None),
    ("NULL::date, NULL::date", "date '2001-01-01', date '2001-01-02'", None),
    ("date '2001-01-05', NULL::date", "date '2001-01-01', date '2001-01-10'", True),
    ("date '2001-01-05', NULL::date", "date '2001-01-01', date '2001-01-03'", None),
    ("NULL::date, date '2001-01-05'", "date '2001-01-01', NULL::date", None),
    ("date '2001-01-01', NULL::date", "date '2001-01-05', date '2001-01-10'", None),
    ("date '2001-01-05', date '2001-01-06'", "date '2001-01-01', NULL::date", None),
    ("date '2001-01-01', date '2001-01-02'", "date '2001-01-05', NULL::interval", None),  # (never false)
])
def test_overlaps_as_postgresql(conn, left, right, expected):
    assert conn.execute(f"SELECT ({left}) OVERLAPS ({right})").fetchone() == (expected,)


def test_overlaps_of_columns_and_parameters(conn):
    conn.execute("CREATE TABLE booking (id INT, starts DATE, ends DATE)")
    conn.execute("INSERT INTO booking VALUES (1, '2024-01-01', '2024-01-05'), (2, '2024-01-05', '2024-01-09'), "
                 "(3, '2024-01-08', NULL)")
    assert conn.execute("SELECT id FROM booking WHERE (starts, ends) OVERLAPS (?::date, interval '2 days') "
                        "ORDER BY id", ("2024-01-04",)).fetchall() == [(1,), (2,)]
    assert conn.execute("SELECT a.id, b.id, (a.starts, a.ends) OVERLAPS (b.starts, b.ends) FROM booking a "
                        "JOIN booking b ON a.id < b.id ORDER BY 1, 2").fetchall() == [
        (1, 2, False), (1, 3, None), (2, 3, True)]


@pytest.mark.parametrize("sql, sqlstate, words", [
    ("SELECT (1, 2) OVERLAPS (3, 4)", "42883", "function overlaps(integer, integer, integer, integer) does not exist"),
    ("SELECT (date '2001-01-01', 5) OVERLAPS (date '2001-01-01', date '2001-01-02')", "42883", "function overlaps("),
    ("SELECT (date '2001-01-01', date '2001-01-02', date '2001-01-03') OVERLAPS (date '2001-01-01', "
     "date '2001-01-02')", "42601", "wrong number of parameters on left side of OVERLAPS expression"),
    ("SELECT (date '2001-01-01', date '2001-01-02') OVERLAPS (date '2001-01-01')", "42601",
     "wrong number of parameters on right side of OVERLAPS expression"),
])
def test_overlaps_of_other_types_or_lengths_is_refused(conn, sql, sqlstate, words):
    with pytest.raises(txlake.Error) as e:
        conn.execute(sql)
    assert e.value.sqlstate == sqlstate and words in str(e.value)


@pytest.mark.parametrize("literal, expected", [
    # the fields after a text holding units were 42601 (sqlglot took them for the text's own)
    ("interval '1 day 2 hours' hour to minute", "1 day 02:00:00"),
    ("interval '1 day 2 hours 3 minutes 4 seconds' hour to minute", "1 day 02:03:00"),
    ("interval '1 day 2 hours 3 minutes 4.5 seconds' day to minute", "1 day 02:03:00"),
    ("interval '3 days 4 hours' day", "3 days"), ("interval '2 hours 3 minutes' hour", "02:00:00"),
    ("interval '1 year 2 months 3 days' month", "1 year 2 mons"),
    # a bare number is in the last field, cut to the fields as a cast to the type is
    ("interval '1' hour", "01:00:00"), ("interval '1.5' hour", "01:00:00"), ("interval '2' year", "2 years"),
    ("interval '1 2' day to hour", "1 day 02:00:00"), ("interval '1:30' hour to minute", "01:30:00"),
    ("interval '2 days'", "2 days"), ("interval '1 hour' + interval '2' minute", "01:02:00")])
def test_an_interval_literal_s_fields_read_and_cut_it(conn, literal, expected):
    """PostgreSQL's INTERVAL 'text' fields is the text read as a value of the interval type of
    those fields (interval.out: 'test SQL-spec syntaxes for restricted field sets')."""
    assert text(conn, literal) == expected


def test_an_interval_cast_to_time_is_its_time_of_day(conn):
    """(interval '1 hour')::time was 42804 (DuckDB has no such cast); PostgreSQL's interval_time
    takes the time part modulo a day (a negative one from the day's end), days and months left
    out. A timestamptz's time (42804 too) is in the session's TimeZone."""
    conn.execute("CREATE TABLE it (k INT, i INTERVAL)")
    conn.execute("INSERT INTO it VALUES (1, '2 hours 3 minutes'), (2, '-1 hour'), (3, '1 mon 1 day 25:00:01.5'), "
                 "(4, NULL)")
    assert [r[0] for r in conn.execute("SELECT (i::time)::text FROM it ORDER BY k").fetchall()] == [
        "02:03:00", "23:00:00", "01:00:01.5", None]
    assert conn.execute("SELECT (interval '1 hour')::time, CAST(interval '90 minutes' AS time), "
                        "min(i)::time, pg_typeof((interval '1 hour')::time) FROM it").fetchone() == (
        datetime.time(1), datetime.time(1, 30), datetime.time(23), "time without time zone")
    conn.execute("SET TimeZone = 'America/New_York'")
    assert conn.execute("SELECT (timestamptz '2020-01-01 10:11:12+00')::time, '12:00'::time, "
                        "(timestamp '2020-01-01 10:11:12')::time").fetchone() == (
        datetime.time(5, 11, 12), datetime.time(12), datetime.time(10, 11, 12))
