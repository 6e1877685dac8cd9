"""``interval`` as a column type, as PostgreSQL 16 has it: stored as PostgreSQL's text of it
(its three parts apart: 1 mon is not 30 days), read by PostgreSQL's interval input, compared
by its length (1 mon = 30 days), fetched as ``datetime.timedelta`` as psycopg does."""

import datetime
import decimal

import pytest

from tests.conftest import fails, rows, value
from tests.engine.test_arrays import reopen

DAY = datetime.timedelta(days=1)


@pytest.fixture
def db(connect):
    return connect(autocommit=True)


def test_interval_column_takes_postgresql_input_forms_and_keeps_its_parts(db):
    """interval columns were 0A000. Text is read by PostgreSQL's input (ISO 8601, '@ ... ago',
    '-1 days +02:00:00', fractions spilling into smaller units), which DuckDB's cast refused or
    read otherwise; ::text is PostgreSQL's text with the parts as given ('1 mon', '30 days')."""
    db.execute("CREATE TABLE t (id int PRIMARY KEY, d interval)")
    given = [(1, "1 day 2 hours", "1 day 02:00:00"), (2, "P1Y2M", "1 year 2 mons"),
             (3, "@ 1 hour ago", "-01:00:00"), (4, "-1 days +02:00:00", "-1 days +02:00:00"),
             (5, "1 mon", "1 mon"), (6, "30 days", "30 days"), (7, "1.5 years", "1 year 6 mons"),
             (8, "P0001-02-03T04:05:06.5", "1 year 2 mons 3 days 04:05:06.5"), (9, "1 2:03:04", "1 day 02:03:04"),
             (10, "1-2", "1 year 2 mons"), (11, "1.5 weeks", "10 days 12:00:00")]
    db.cursor().executemany("INSERT INTO t VALUES (?, ?)", [(i, text) for i, text, _ in given])
    assert rows(db, "SELECT id, d::text FROM t ORDER BY id") == [(i, shown) for i, _, shown in given]
    # (as psycopg fetches an interval: a year 365 days, a month 30)
    assert value(db, "SELECT d FROM t WHERE id = 2") == datetime.timedelta(days=365 + 2 * 30)
    assert value(db, "SELECT -d FROM t WHERE id = 2") == -datetime.timedelta(days=365 + 2 * 30)
    assert value(db, "SELECT d FROM t WHERE id = 4") == -DAY + datetime.timedelta(hours=2)


def test_interval_values_from_expressions_parameters_and_defaults(db):
    db.execute("CREATE TABLE t (id int, d interval NOT NULL DEFAULT '30 days')")
    db.execute("INSERT INTO t VALUES (1, interval '2 days' * 3), (2, justify_hours(interval '50 hours'))")
    db.execute("INSERT INTO t VALUES (?, ?)", (3, datetime.timedelta(days=3, seconds=5, microseconds=7)))
    db.execute("INSERT INTO t (id) VALUES (4)")
    assert rows(db, "SELECT id, d::text FROM t ORDER BY id") == [
        (1, "6 days"), (2, "2 days 02:00:00"), (3, "3 days 00:00:05.000007"), (4, "30 days")]
    fails(db, "INSERT INTO t VALUES (5, NULL)", "23502", 'null value in column "d"')


def test_interval_comparison_order_and_grouping_are_by_length(db):
    """PostgreSQL compares intervals by length (interval_cmp_value: a month is 30 days, a day
    24 hours): '1 mon' = '30 days', and they are one group, one DISTINCT value."""
    db.execute("CREATE TABLE t (id int, d interval)")
    db.execute("INSERT INTO t VALUES (1, '1 mon'), (2, '30 days'), (3, '-1 days +02:00:00'), (4, '-01:00:00'), "
               "(5, '25 hours'), (6, '1 day 1 hour'), (7, NULL)")
    assert rows(db, "SELECT id FROM t WHERE d = '720 hours' ORDER BY id") == [(1,), (2,)]
    assert rows(db, "SELECT id FROM t ORDER BY d, id") == [(3,), (4,), (5,), (6,), (1,), (2,), (7,)]
    assert value(db, "SELECT count(DISTINCT d) FROM t") == 4
    assert rows(db, "SELECT count(*) FROM t GROUP BY d ORDER BY d NULLS FIRST") == [(1,), (1,), (1,), (2,), (2,)]
    assert rows(db, "SELECT id FROM t WHERE d > '1 day' AND d < '1 mon' ORDER BY id") == [(5,), (6,)]


def test_interval_aggregates_keep_parts_apart(db):
    """sum() adds each part on its own (42883 before: DuckDB has no sum of intervals); avg,
    min and max as PostgreSQL's; a part past its range is 22008."""
    db.execute("CREATE TABLE t (d interval)")
    db.execute("INSERT INTO t VALUES ('1 mon'), ('30 days'), ('25 hours'), ('-1 days +02:00:00'), (NULL)")
    assert rows(db, "SELECT sum(d) FROM t") == [(datetime.timedelta(days=30 + 29, hours=27),)]
    assert value(db, "SELECT (sum(d) - interval '1 mon 29 days 27 hours') = interval '0' FROM t") is True
    assert rows(db, "SELECT min(d), max(d) FROM t") == [
        (-DAY + datetime.timedelta(hours=2), datetime.timedelta(days=30))]
    assert value(db, "SELECT avg(d) FROM t") == datetime.timedelta(days=15, minutes=45)  # (14 days 24:45:00)
    db.execute("INSERT INTO t VALUES ('2000000000 days'), ('2000000000 days')")
    fails(db, "SELECT sum(d) FROM t", "22008", "interval out of range")


def test_an_aggregate_of_intervals_as_text_is_postgresql_text(db):
    """max(d)::text, sum(d) || '', an interval window function's and array_agg(d)'s text were
    DuckDB's ('1 year 2 months'): they are PostgreSQL's output of the interval."""
    db.execute("CREATE TABLE t (id int, d interval)")
    db.execute("INSERT INTO t VALUES (1, '1 year 2 mons 3 days 04:05:06'), (2, '1 day'), (3, '-2 hours 3 secs')")
    assert rows(db, "SELECT max(d)::text, min(d)::text, sum(d) || '', 'v=' || avg(d), CAST(max(d) AS varchar), "
                    "array_agg(d ORDER BY id)::text FROM t") == [
        ("1 year 2 mons 3 days 04:05:06", "-01:59:57", "1 year 2 mons 4 days 02:05:09", "v=4 mons 21 days 08:41:43",
         "1 year 2 mons 3 days 04:05:06", '{"1 year 2 mons 3 days 04:05:06","1 day",-01:59:57}')]
    assert value(db, "SELECT array_agg(id ORDER BY id)::text FROM t") == "{1,2,3}"  # (DuckDB's: [1, 2, 3])
    assert rows(db, "SELECT (first_value(d) OVER (ORDER BY id DESC))::text, (max(d) + interval '1 day')::text "
                    "FROM t GROUP BY d, id ORDER BY id LIMIT 1") == [("-01:59:57", "1 year 2 mons 4 days 04:05:06")]


def test_interval_window_sums_and_averages_and_division_are_postgresql_s(db):
    """sum(d) OVER (...) was 42883 (DuckDB has no sum of intervals); avg(d), plain and as a
    window, and d / n are PostgreSQL's interval_div of the sum by the count (its doubles, the
    fraction of a month rounded to a millionth of a day: '1 mon' / 7 is 4 days 06:51:25.6896) -
    DuckDB's differed in the last microsecond, and kept 24 hours and more of seconds."""
    db.execute("CREATE TABLE t (id int, d interval)")
    db.execute("INSERT INTO t VALUES (1, '1 mon'), (2, '1 day 10:00:00'), (3, NULL), "
               "(4, '-18 mons 220 days 17:48:50.230109')")
    assert rows(db, "SELECT id, (sum(d) OVER (ORDER BY id))::text, (avg(d) OVER (ORDER BY id))::text, "
                    "(sum(d) FILTER (WHERE id > 1) OVER (ORDER BY id))::text, pg_typeof(sum(d) OVER ())::text "
                    "FROM t ORDER BY id") == [
        (1, "1 mon", "1 mon", None, "interval"),
        (2, "1 mon 1 day 10:00:00", "15 days 17:00:00", "1 day 10:00:00", "interval"),
        (3, "1 mon 1 day 10:00:00", "15 days 17:00:00", "1 day 10:00:00", "interval"),
        (4, "-1 years -5 mons +221 days 27:48:50.230109", "-5 mons +53 days 25:16:16.74337",
         "-1 years -6 mons +221 days 27:48:50.230109", "interval")]
    assert rows(db, "SELECT avg(d)::text, (sum(d) / 3)::text FROM t") == [
        ("-5 mons +53 days 25:16:16.74337", "-5 mons +53 days 25:16:16.74337")]
    assert value(db, "SELECT (d / 4)::text FROM t WHERE id = 4") == "-4 mons +40 days 04:27:12.557527"
    assert rows(db, "SELECT (interval '1 mon' / 7)::text, "
                    "(interval '-10 mons 104 days 15:52:43.309187' / -0.52)::text, "
                    "(interval '100 days' / 7)::text") == [
        ("4 days 06:51:25.6896", "1 year 7 mons -194 days -08:22:55.587944", "14 days 06:51:25.714286")]
    assert value(db, "SELECT sum(x) OVER () FROM (VALUES (1), (2)) v(x) LIMIT 1") == 3
    fails(db, "SELECT d / 0 FROM t", "22012", "division by zero")


def test_interval_arithmetic_with_date_and_timestamp_columns(db):
    db.execute("CREATE TABLE t (start timestamp, day date, period interval)")
    db.execute("INSERT INTO t VALUES ('2024-01-31 10:00', '2024-01-31', '1 mon'), "
               "('2024-01-31 10:00', '2024-01-31', '30 days')")
    assert rows(db, "SELECT start + period, day + period FROM t ORDER BY period::text") == [
        (datetime.datetime(2024, 2, 29, 10), datetime.datetime(2024, 2, 29)),
        (datetime.datetime(2024, 3, 1, 10), datetime.datetime(2024, 3, 1))]
    db.execute("UPDATE t SET period = period + interval '1 hour' WHERE period = '1 mon'")  # (both: equal lengths)
    assert rows(db, "SELECT period::text FROM t ORDER BY 1") == [("1 mon 01:00:00",), ("30 days 01:00:00",)]


def test_interval_check_constraint(db):
    db.execute("CREATE TABLE t (d interval CHECK (d > interval '0'))")
    db.execute("INSERT INTO t VALUES ('1 sec')")
    fails(db, "INSERT INTO t VALUES ('-1 sec')", "23514", 't_d_check', "(-00:00:01)")


def test_bad_interval_text_is_22007_and_too_large_22015_or_22008(db):
    db.execute("CREATE TABLE t (d interval)")
    fails(db, "INSERT INTO t VALUES ('abc')", "22007", 'invalid input syntax for type interval: "abc"')
    fails(db, "INSERT INTO t VALUES ('1 day 1 day')", "22007", "invalid input syntax for type interval")
    fails(db, "INSERT INTO t VALUES ('2147483648 days')", "22015",
          'interval field value out of range: "2147483648 days"')
    fails(db, "INSERT INTO t VALUES ('178956971 years')", "22008", "interval out of range")
    assert value(db, "SELECT count(*) FROM t") == 0


def test_field_restricted_interval_types_cut_values_as_postgresql_assigns_them(db):
    """interval year to month keeps months, interval hour truncates the time to hours (and a
    bare number is hours), interval(3) rounds seconds to 3 digits half away from zero."""
    db.execute("CREATE TABLE t (ym interval year to month, h interval hour, ds interval day to second, "
               "p interval(3))")
    db.execute("INSERT INTO t VALUES ('1 year 2 mons 3 days 04:05:06', '1 day 04:59:59', "
               "'1 mon 2 days 03:04:05.123456', '-1.2345 sec'), (NULL, '5', NULL, '1.2344 sec')")
    assert rows(db, "SELECT ym::text, h::text, ds::text, p::text FROM t") == [
        ("1 year 2 mons", "1 day 04:00:00", "1 mon 2 days 03:04:05.123456", "-00:00:01.235"),
        (None, "05:00:00", None, "00:00:01.234")]
    db.execute("UPDATE t SET h = h + interval '30 min'")
    assert rows(db, "SELECT h::text FROM t") == [("1 day 04:00:00",), ("05:00:00",)]


def test_casts_to_interval_types_of_fields_and_precisions(db):
    """interval second(p), interval day to second(p) were 42601, as was a cast to interval(p)
    (DuckDB's); a cast to a type of fields kept the whole value ('1 day 04:59:59'::interval hour
    was 1 day 04:59:59): a cast cuts as an assignment does."""
    db.execute("CREATE TABLE t (a interval second(3), b interval day to second (2))")
    db.execute("INSERT INTO t VALUES ('1.23456', '1 day 1.23456')")
    assert rows(db, "SELECT a::text, b::text FROM t") == [("00:00:01.235", "1 day 00:00:01.23")]
    assert rows(db, "SELECT column_name, datetime_precision, interval_type FROM information_schema.columns "
                    "WHERE table_name = 't' ORDER BY column_name") == [("a", 3, "SECOND"), ("b", 2, "DAY TO SECOND")]
    assert rows(db, "SELECT ('1.23456 s'::interval second(3))::text, ('1.23456 s'::interval(3))::text, "
                    "('1 day 1.23456 s'::interval day to second(2))::text, ('1 day 04:59:59'::interval hour)::text, "
                    "('5'::interval hour)::text") == [
        ("00:00:01.235", "00:00:01.235", "1 day 00:00:01.23", "1 day 04:00:00", "05:00:00")]
    assert rows(db, "SELECT (x::interval(2))::text, (x::interval hour)::text, (x::interval day to minute)::text, "
                    "(CAST(NULL AS interval hour))::text FROM (VALUES ('1 day 04:59:59.5555')) v(x)") == [
        ("1 day 04:59:59.56", "1 day 04:00:00", "1 day 04:59:00", None)]
    fails(db, "SELECT x::interval hour(3) FROM t", "42601", "syntax error")


def test_interval_in_the_catalog(db):
    db.execute("CREATE TABLE t (a interval, b interval day to second, c interval(3))")
    assert rows(db, "SELECT column_name, data_type, udt_name, datetime_precision, interval_type "
                    "FROM information_schema.columns WHERE table_name = 't' ORDER BY ordinal_position") == [
        ("a", "interval", "interval", 6, None), ("b", "interval", "interval", 6, "DAY TO SECOND"),
        ("c", "interval", "interval", 3, None)]
    assert rows(db, "SELECT pg_typeof(a)::text FROM (SELECT a FROM t UNION ALL SELECT NULL) s LIMIT 1") == [
        ("interval",)]


def test_alter_table_add_column_and_type_to_and_from_text(db):
    db.execute("CREATE TABLE t (id int)")
    db.execute("INSERT INTO t VALUES (1)")
    db.execute("ALTER TABLE t ADD COLUMN d interval DEFAULT '1 year 2 mons'")
    db.execute("ALTER TABLE t ALTER COLUMN d TYPE text")
    assert rows(db, "SELECT d FROM t") == [("1 year 2 mons",)]  # (PostgreSQL's text: DuckDB's said "months")
    db.execute("UPDATE t SET d = '-1 days +02:00:00'")
    db.execute("ALTER TABLE t ALTER COLUMN d TYPE interval USING d::interval")
    assert rows(db, "SELECT d::text, pg_typeof(d)::text FROM t") == [("-1 days +02:00:00", "interval")]


def test_interval_keys_and_arrays_are_refused(db):
    """A key compares stored values, which keep the parts apart: refused (0A000), not a unique
    index that would let '1 mon' and '30 days' both in."""
    fails(db, "CREATE TABLE k (d interval PRIMARY KEY)", "0A000", 'column "d" is an interval')
    db.execute("CREATE TABLE t (d interval)")
    fails(db, "ALTER TABLE t ADD UNIQUE (d)", "0A000", 'column "d" is an interval')
    fails(db, "CREATE UNIQUE INDEX ON t (d)", "0A000", 'column "d" is an interval')
    fails(db, "CREATE TABLE a (d interval[])", "0A000", "not supported")


def test_interval_values_survive_a_restart(connect, db):
    db.execute("CREATE TABLE t (id int, d interval)")
    db.execute("INSERT INTO t VALUES (1, '1 year 2 mons -3 days +04:05:06.5'), (2, '-1 days +02:00:00'), "
               "(3, '36:00:00'), (4, NULL)")
    expected = rows(db, "SELECT id, d, d::text FROM t ORDER BY id")
    again = reopen(connect, db)
    assert rows(again, "SELECT id, d, d::text FROM t ORDER BY id") == expected
    again = reopen(connect, again, checkpoint=True)  # (from Parquet, read by DuckDB's reader)
    assert rows(again, "SELECT id, d, d::text FROM t ORDER BY id") == expected
    assert expected[0][2] == "1 year 2 mons -3 days +04:05:06.5" and expected[2][2] == "36:00:00"


def test_copy_interval_columns_in_and_out(db, tmp_path):
    db.execute("CREATE TABLE t (id int, d interval DEFAULT '1 mon')")
    good = tmp_path / "good.csv"
    good.write_text("1,P1Y2M\n2,-1 days +02:00:00\n3,\n")
    db.execute(f"COPY t FROM '{good}' CSV")
    ids = tmp_path / "ids.csv"
    ids.write_text("4\n")
    db.execute(f"COPY t (id) FROM '{ids}' CSV")
    out = tmp_path / "out.csv"
    db.execute(f"COPY t TO '{out}' CSV")
    assert out.read_text().splitlines() == ["1,1 year 2 mons", "2,-1 days +02:00:00", "3,", "4,1 mon"]
    bad = tmp_path / "bad.csv"
    bad.write_text("5,1 day\n6,abc\n")
    fails(db, f"COPY t FROM '{bad}' CSV", "22007", 'invalid input syntax for type interval: "abc"',
          'COPY t, line 2, column d: "abc"')
    assert value(db, "SELECT count(*) FROM t") == 4


def test_point_statements_on_an_interval_table_give_intervals(db):
    """A point SELECT (read without DuckDB) gives an interval as a query does - not its stored
    text; a point write to such a table passes its CHECKs and RETURNING gives an interval."""
    db.execute("CREATE TABLE t (id int PRIMARY KEY, n int, d interval CHECK (d > interval '0'))")
    db.execute("INSERT INTO t (id, n) VALUES (1, 1)")
    assert db.execute("INSERT INTO t VALUES (2, ?, ?) RETURNING d", (1, "1 day")).fetchall() == [(DAY,)]
    db.execute("UPDATE t SET n = 5 WHERE id = 2")
    point = db.execute("SELECT d FROM t WHERE id = 2").fetch_arrow_table()
    assert point.schema.field("d").type == db.execute("SELECT d FROM t").fetch_arrow_table().schema.field("d").type
    assert point.column("d").to_pylist()[0].days == 1
    fails(db, "UPDATE t SET d = '-1 day' WHERE id = 2", "23514", "t_d_check")


def test_the_epoch_of_an_interval_counts_a_year_as_365_25_days(db):
    """extract(epoch FROM interval) and date_part('epoch', ...) counted a year as 360 days
    (DuckDB's): PostgreSQL's interval_part counts 365.25, another month 30 days."""
    db.execute("CREATE TABLE t (d interval)")
    db.execute("INSERT INTO t VALUES ('1 year 1 mon 1 day 00:00:01.5'), ('-13 mons -1 day -00:00:00.5')")
    assert rows(db, "SELECT extract(epoch FROM d), date_part('epoch', d) FROM t ORDER BY d DESC") == [
        (decimal.Decimal("34236001.500000"), 34236001.5), (decimal.Decimal("-34236000.500000"), -34236000.5)]
    assert value(db, "SELECT extract(epoch FROM interval '1 year')") == decimal.Decimal("31557600.000000")
