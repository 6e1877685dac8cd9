"""PostgreSQL's ``width_bucket(operand, low, high, count)``, which DuckDB lacks: the bucket, of
``count`` equal-width buckets spanning low to high, that operand falls in - 0 below the range,
count + 1 at or past its end; high may be below low (the buckets then count down). Of double
precision as float.c's ``width_bucket_float8`` computes it, of numeric exactly, as numeric.c's
``width_bucket_numeric`` (engine/dialect.py registers both as DuckDB functions of Arrow arrays;
its WIDTH_BUCKET_MACRO picks one by the operands' types, as PostgreSQL resolves the call).

The bad arguments are PostgreSQL's 2201G (engine/errors_map.py knows the words): a count of 0
or less, bounds equal, NaN anywhere, an infinite bound (an infinite operand is in bucket 0 or
count + 1). count + 1 past an integer is 22003.
"""

from __future__ import annotations

import decimal
import math

import pyarrow as pa

from txlake.engine import arrow_functions

# the words of PostgreSQL's errors, 2201G (INVALID_ARGUMENT_FOR_WIDTH_BUCKET_FUNCTION)
COUNT_NOT_POSITIVE = "count must be greater than zero"
NAN_ARGUMENT = "operand, lower bound, and upper bound cannot be NaN"
INFINITE_BOUND = "lower and upper bounds must be finite"
EQUAL_BOUNDS = "lower bound cannot equal upper bound"
WIDTH_BUCKET_ERRORS = (COUNT_NOT_POSITIVE, NAN_ARGUMENT, INFINITE_BOUND, EQUAL_BOUNDS)
# width_bucket(operand, thresholds)'s (engine/dialect.py): 22004
NULL_THRESHOLD = "thresholds array must not contain NULLs"

_INT4_MAX = 2 ** 31 - 1
# digits enough for a numeric's (38) times a count's (10), and PostgreSQL's numeric text beyond
_DIGITS = 1000


class WidthBucketError(ValueError):
    """An argument width_bucket() refuses (its words are one of ``WIDTH_BUCKET_ERRORS``), or
    ``integer out of range`` for count + 1."""


def _checked(operand, low, high, count: int) -> None:
    if count <= 0:
        raise WidthBucketError(COUNT_NOT_POSITIVE)
    if any(v != v for v in (operand, low, high)):  # (NaN: a float's or a Decimal's)
        raise WidthBucketError(NAN_ARGUMENT)
    if any(math.isinf(v) if isinstance(v, float) else v.is_infinite() for v in (low, high)):
        raise WidthBucketError(INFINITE_BOUND)
    if low == high:
        raise WidthBucketError(EQUAL_BOUNDS)


def _past_the_end(count: int) -> int:
    if count >= _INT4_MAX:
        raise WidthBucketError("integer out of range")
    return count + 1


def float8_bucket(operand: float, low: float, high: float, count: int) -> int:
    """float.c's: the fraction of the range is computed in doubles and scaled by count, the
    bounds halved first where their difference overflows, and a product rounding up to count
    kept in the last bucket."""
    _checked(operand, low, high, count)
    if (operand < low) if low < high else (operand > low):
        return 0
    if (operand >= high) if low < high else (operand <= high):
        return _past_the_end(count)
    start, end, at = (low, high, operand) if low < high else (-low, -high, -operand)
    if not math.isinf(end - start):
        fraction = (at - start) / (end - start)
    else:
        fraction = (at / 2 - start / 2) / (end / 2 - start / 2)
    return min(int(count * fraction), count - 1) + 1


def numeric_bucket(operand: decimal.Decimal, low: decimal.Decimal, high: decimal.Decimal, count: int) -> int:
    """numeric.c's: (operand - low) * count / (high - low), truncated, plus 1 - exactly."""
    _checked(operand, low, high, count)
    if (operand < low) if low < high else (operand > low):
        return 0
    if (operand >= high) if low < high else (operand <= high):
        return _past_the_end(count)
    with decimal.localcontext(prec=_DIGITS):
        return int((operand - low) * count // (high - low)) + 1


def _numeric(text: str) -> decimal.Decimal:
    try:
        return decimal.Decimal(text.strip())
    except decimal.InvalidOperation:
        raise WidthBucketError(f'invalid input syntax for type numeric: "{text}"') from None


# DuckDB functions: name -> (function, type of the three operands); count is an INTEGER, the
# result an INTEGER. A numeric comes as its text (which keeps every digit, and reads 'NaN' and
# 'Infinity' as PostgreSQL's numeric input does)
FUNCTIONS = {"txl_width_bucket_float8": (arrow_functions.of_rows(float8_bucket, 4, pa.int32()), "DOUBLE"),
             "txl_width_bucket_numeric": (arrow_functions.of_rows(
                 lambda x, low, high, count: numeric_bucket(_numeric(x), _numeric(low), _numeric(high), count), 4,
                 pa.int32()), "VARCHAR")}
