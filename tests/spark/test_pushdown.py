"""File skipping by Parquet statistics, on real files: a file is skipped only when its footer
proves no row passes."""

import datetime
import math

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyspark.sql.datasource import (EqualNullSafe, EqualTo, GreaterThan, GreaterThanOrEqual, In, IsNotNull, IsNull, LessThan,
                                    LessThanOrEqual, StringStartsWith)

from txlake.spark import pushdown
from txlake.storage.schema import Column, ColumnType, TableSchema

SCHEMA = TableSchema(0, (Column(0, "id", ColumnType("BIGINT")), Column(1, "s", ColumnType("VARCHAR")),
                         Column(2, "ts", ColumnType("TIMESTAMP")), Column(3, "n", ColumnType("INT")),
                         Column(4, "d", ColumnType("DOUBLE"))), (), 4)
NAN = math.nan


@pytest.fixture
def footer(tmp_path):
    table = pa.table({
        "id": pa.array(range(100, 200), pa.int64()),
        "s": pa.array([f"k{i:03d}" for i in range(100)]),
        "ts": pa.array([datetime.datetime(2024, 1, 1) + datetime.timedelta(hours=i) for i in range(100)],
                       pa.timestamp("us")),
        "n": pa.array([None] * 100, pa.int32()),
        "d": pa.array([NAN if i == 7 else float(i) for i in range(100)]),  # min/max leave NaN out
    })
    path = tmp_path / "f.parquet"
    pq.write_table(table, path, row_group_size=30)  # several row groups: stats are combined
    return pq.ParquetFile(path).metadata


@pytest.mark.parametrize("f, expected", [
    (EqualTo(("id",), 150), True), (EqualTo(("id",), 99), False), (EqualTo(("id",), 200), False),
    (GreaterThan(("id",), 199), False), (GreaterThan(("id",), 198), True),
    (GreaterThanOrEqual(("id",), 199), True), (LessThan(("id",), 100), False),
    (LessThanOrEqual(("id",), 100), True), (In(("id",), (1, 2, 3)), False), (In(("id",), (1, 150)), True),
    (EqualTo(("s",), "k050"), True), (EqualTo(("s",), "z"), False), (LessThan(("s",), "k000"), False),
    (GreaterThan(("ts",), datetime.datetime(2024, 1, 5, 4)), False),
    (GreaterThan(("ts",), datetime.datetime(2024, 1, 5, 2)), True),
    (IsNull(("id",)), False), (IsNotNull(("id",)), True), (IsNull(("n",)), True), (IsNotNull(("n",)), False),
    (EqualTo(("n",), 1), False),
    (EqualTo(("id",), "not a number"), True),   # incomparable: keep the file
    # in Spark NaN is the largest double and equals itself; statistics do not say whether a
    # column holds NaN, so a file is kept whenever the filter may be true for NaN
    (GreaterThan(("d",), 5000.0), True), (GreaterThanOrEqual(("d",), 5000), True),
    (EqualTo(("d",), NAN), True), (EqualNullSafe(("d",), NAN), True), (In(("d",), (-1.0, NAN)), True),
    (GreaterThanOrEqual(("d",), NAN), True), (LessThan(("d",), NAN), True), (LessThanOrEqual(("d",), NAN), True),
    (EqualTo(("d",), 5000.0), False), (In(("d",), (-1.0, 5000.0)), False), (LessThan(("d",), 0), False),
    (LessThanOrEqual(("d",), -0.5), False),
])
def test_may_match(footer, f, expected):
    assert pushdown.usable(f, SCHEMA)
    assert pushdown.may_match(footer, [f]) is expected


def test_filters_are_anded_and_unusable_ones_are_ignored(footer):
    assert pushdown.may_match(footer, [GreaterThan(("id",), 150), LessThan(("id",), 160)])
    assert not pushdown.may_match(footer, [GreaterThan(("id",), 150), EqualTo(("s",), "zzz")])
    assert not pushdown.usable(StringStartsWith(("s",), "k"), SCHEMA)
    assert not pushdown.usable(EqualTo(("missing",), 1), SCHEMA)
    assert not pushdown.usable(EqualTo(("s", "inner"), 1), SCHEMA)


def test_real_and_timestamptz_files_are_skipped_by_their_statistics(tmp_path):
    """Spark hands a REAL filter the float32 it compares with (``r > 0.1`` arrives as
    ``r >= 0.10000000149011612``) and a TIMESTAMPTZ one an instant in UTC, whatever the session's
    time zone; the footers hold the same."""
    schema = TableSchema(0, (Column(0, "r", ColumnType("REAL")), Column(1, "at", ColumnType("TIMESTAMPTZ"))), (), 1)
    utc = datetime.timezone.utc
    path = tmp_path / "f.parquet"
    pq.write_table(pa.table({
        "r": pa.array([0.1, 0.5, 2.5], pa.float32()),
        "at": pa.array([datetime.datetime(2024, 1, 1, h, tzinfo=utc) for h in (0, 6, 12)],
                       pa.timestamp("us", tz="UTC")),
    }), path)
    footer = pq.ParquetFile(path).metadata
    r01 = float(pa.array([0.1], pa.float32())[0].as_py())
    tokyo = datetime.timezone(datetime.timedelta(hours=9))
    cases = [
        (GreaterThanOrEqual(("r",), r01), True), (LessThan(("r",), r01), False), (EqualTo(("r",), r01), True),
        (GreaterThan(("r",), 2.5), True),  # REAL is floating: a NaN may be there and pass
        (LessThan(("r",), 0.05), False),
        (GreaterThan(("at",), datetime.datetime(2024, 1, 1, 12, tzinfo=utc)), False),
        (GreaterThan(("at",), datetime.datetime(2024, 1, 1, 11, tzinfo=utc)), True),
        # the same instant written in another zone compares as that instant
        (GreaterThan(("at",), datetime.datetime(2024, 1, 1, 21, tzinfo=tokyo)), False),
        (LessThan(("at",), datetime.datetime(2024, 1, 1, 9, tzinfo=tokyo)), False),
        (LessThanOrEqual(("at",), datetime.datetime(2024, 1, 1, 9, tzinfo=tokyo)), True),
    ]
    for f, expected in cases:
        assert pushdown.usable(f, schema), f
        assert pushdown.may_match(footer, [f]) is expected, f
