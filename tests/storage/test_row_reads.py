"""Reading one row of a data file as Python values (``DataFileStore.row``: a point UPDATE's old
row) gives exactly what Arrow's ``to_pylist`` gives, whatever the column's type and layout."""

import datetime
import decimal
import math

import pyarrow as pa
import pytest

from txlake.storage.datafiles import _value_getter

COLUMNS = {
    "int32": pa.array([1, -2, 2**31 - 1], pa.int32()),
    "int64 with nulls": pa.array([None, 2**62, -5], pa.int64()),
    "uint8": pa.array([0, 255, 7], pa.uint8()),
    "double with NaN": pa.array([1.5, float("nan"), float("-inf")], pa.float64()),
    "float32": pa.array([0.25, -1.0, 3.5], pa.float32()),
    "float16": pa.array([0.5, 1.0, -2.0], pa.float16()),
    "text": pa.array(["a", None, "ccc"]),
    "bool": pa.array([True, False, None]),
    "timestamp": pa.array([datetime.datetime(2020, 1, 1, 10), None, datetime.datetime(1969, 12, 31)]),
    "date": pa.array([datetime.date(2020, 1, 2), datetime.date(1900, 1, 1), None]),
    "decimal": pa.array([decimal.Decimal("1.25"), None, decimal.Decimal("-3.50")], pa.decimal128(10, 2)),
    "chunked": pa.chunked_array([pa.array([1, 2], pa.int64()), pa.array([3], pa.int64())]),
}


@pytest.mark.parametrize("name", list(COLUMNS))
def test_a_value_read_by_position_is_what_to_pylist_gives(name):
    column = COLUMNS[name]
    column = column if isinstance(column, pa.ChunkedArray) else pa.chunked_array([column])
    get = _value_getter(column)
    for pos, expected in enumerate(column.to_pylist()):
        value = get(pos)
        assert type(value) is type(expected)
        assert value == expected or (isinstance(value, float) and math.isnan(value) and math.isnan(expected))
