"""Intervals' and periods' functions as PostgreSQL 16 has them: justify_hours, justify_days,
justify_interval (src/backend/utils/adt/timestamp.c; cases from src/test/regress/expected/interval.out)."""

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
