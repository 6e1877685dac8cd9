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
