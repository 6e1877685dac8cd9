"""File skipping for pushed-down Spark filters, by the min/max statistics in Parquet footers.

A file is skipped only when its statistics prove that no row can pass some filter (the filters
are ANDed). Anything unknown - a column without statistics, a filter on a nested field, a type
whose order we do not compare - keeps the file. Spark evaluates every filter on the rows read,
so skipping is purely an optimisation and never changes results.

Floating-point columns: Parquet min/max leave NaN out, and neither they nor the footer say
whether a column holds NaN (Parquet writers record no NaN count; pyarrow, which writes txlake's
files, none at all). In Spark NaN is the largest double and equals itself, so a file of a DOUBLE
or FLOAT (REAL) column is kept whenever the filter may be true for NaN (``> x``, ``>= x``), or compares
with NaN at all (``< NaN`` holds for every other number).
"""

from __future__ import annotations

import datetime as dt
import decimal
import math

from pyspark.sql.datasource import (EqualNullSafe, EqualTo, GreaterThan, GreaterThanOrEqual, In, IsNotNull,
                                    IsNull, LessThan, LessThanOrEqual)

from txlake.storage.schema import TableSchema

_COMPARISONS = (EqualTo, EqualNullSafe, GreaterThan, GreaterThanOrEqual, LessThan, LessThanOrEqual, In)
# (a REAL filter's value arrives as the float32 it compares with, a TIMESTAMPTZ one's as an
# instant in UTC, as their footers' statistics are)
_ORDERED_KINDS = {"SMALLINT", "INT", "BIGINT", "REAL", "DOUBLE", "DECIMAL", "VARCHAR", "DATE", "TIMESTAMP",
                  "TIMESTAMPTZ", "BOOLEAN"}


def usable(f, schema: TableSchema) -> bool:
    """Can ``f`` be checked against file statistics?"""
    if not isinstance(f, _COMPARISONS + (IsNull, IsNotNull)) or len(f.attribute) != 1:
        return False
    col = schema.column(f.attribute[0])  # (a CHAR(n)'s are of its values without the padding Spark reads)
    return col is not None and col.type.kind in _ORDERED_KINDS and not col.type.blank_padded


_FLOATING = {"FLOAT", "DOUBLE"}  # Parquet physical types


def _stats(metadata, column: str):
    """(min, max, null count, row count, floating) of ``column`` over the file's row groups;
    min/max None when some row group has no statistics for it; floating: the column is a
    FLOAT or DOUBLE."""
    lo = hi = None
    nulls = 0
    known = True
    floating = False
    for g in range(metadata.num_row_groups):
        group = metadata.row_group(g)
        for c in range(group.num_columns):
            chunk = group.column(c)
            if chunk.path_in_schema != column:
                continue
            floating = chunk.physical_type in _FLOATING
            st = chunk.statistics
            if st is None or not st.has_min_max:
                known = False
                if st is not None and st.has_null_count:
                    nulls += st.null_count
                else:
                    return None, None, None, metadata.num_rows, floating
                continue
            nulls += st.null_count if st.has_null_count else 0
            if _is_nan(st.min) or _is_nan(st.max):  # (a writer that counted NaN in: unknown)
                known = False
                continue
            lo = st.min if lo is None else min(lo, st.min)
            hi = st.max if hi is None else max(hi, st.max)
    return (lo, hi, nulls, metadata.num_rows, floating) if known else (None, None, nulls, metadata.num_rows, floating)


def _is_nan(value) -> bool:
    return isinstance(value, float) and math.isnan(value)


def _comparable(value, bound):
    """``value`` in the Python type of a Parquet statistic, or None when they do not compare."""
    if value is None or bound is None:
        return None
    if isinstance(bound, dt.datetime) and isinstance(value, dt.datetime):
        return value.replace(tzinfo=None) if bound.tzinfo is None else value
    if isinstance(bound, (int, float, decimal.Decimal)) and isinstance(value, (int, float, decimal.Decimal)) \
            and not isinstance(value, bool):
        return value
    if type(value) is type(bound):
        return value
    return None


def _may_pass(f, lo, hi, nulls, rows, floating) -> bool:
    all_null = nulls is not None and nulls >= rows
    if isinstance(f, IsNull) or (isinstance(f, EqualNullSafe) and f.value is None):
        return nulls is None or nulls > 0
    if isinstance(f, IsNotNull):
        return not all_null
    if all_null:
        return False  # no comparison with NULL is true
    values = list(f.value) if isinstance(f, In) else [f.value]
    if floating and (isinstance(f, (GreaterThan, GreaterThanOrEqual)) or any(map(_is_nan, values))):
        return True  # a NaN in the file may pass, or the NaN in the filter lets others pass
    if lo is None:
        return True
    try:
        for v in values:
            a, b = _comparable(v, lo), _comparable(v, hi)
            if a is None or b is None:
                return True
            if isinstance(f, (EqualTo, EqualNullSafe, In)) and lo <= a and b <= hi:
                return True
            if isinstance(f, GreaterThan) and hi > b:
                return True
            if isinstance(f, GreaterThanOrEqual) and hi >= b:
                return True
            if isinstance(f, LessThan) and lo < a:
                return True
            if isinstance(f, LessThanOrEqual) and lo <= a:
                return True
    except TypeError:
        return True
    return False


def may_match(metadata, filters) -> bool:
    """False only if the statistics prove no row of the file passes every filter."""
    for f in filters:
        if not _may_pass(f, *_stats(metadata, f.attribute[0])):
            return False
    return True
