"""PostgreSQL's interval functions DuckDB lacks: ``justify_hours``, ``justify_days`` and
``justify_interval``, and its division of an interval by a number (engine/dialect.py registers
them as DuckDB functions of Arrow arrays).

An interval is three parts, as in PostgreSQL and DuckDB: months and days (32-bit) and
microseconds (64-bit); Arrow carries it as (months, days, nanoseconds). A part that does not fit
its width is PostgreSQL's ``interval out of range`` (22008). Division truncates toward zero, as C's.
"""

from __future__ import annotations

from txlake.parser.interval_input import DAY, MONTH, OUT_OF_RANGE


def _truncated(a: int, b: int) -> tuple[int, int]:
    """a / b and a % b as C computes them (b > 0): the quotient toward zero, the remainder of a's sign."""
    quotient = abs(a) // b * (1 if a >= 0 else -1)
    return quotient, a - quotient * b


def _whole_days(days: int, time: int) -> tuple[int, int]:
    """Time's whole days moved to days."""
    whole, time = _truncated(time, DAY)
    return days + whole, time


def _whole_months(months: int, days: int) -> tuple[int, int]:
    """Days' whole 30-day months moved to months."""
    whole, days = _truncated(days, MONTH)
    return months + whole, days


def _time_signed_as_days(days: int, time: int) -> tuple[int, int]:
    """A day borrowed so that time has days' sign (``1 day -1 hour`` is ``23:00:00``)."""
    if days > 0 and time < 0:
        return days - 1, time + DAY
    if days < 0 and time > 0:
        return days + 1, time - DAY
    return days, time


def _days_signed_as_months(months: int, days: int, time: int = 0) -> tuple[int, int]:
    """A month borrowed so that days (or, where there are none, time) have months' sign."""
    if months > 0 and (days < 0 or (days == 0 and time < 0)):
        return months - 1, days + MONTH
    if months < 0 and (days > 0 or (days == 0 and time > 0)):
        return months + 1, days - MONTH
    return months, days


def justify_hours(months: int, days: int, time: int) -> tuple[int, int, int]:
    return (months, *_time_signed_as_days(*_whole_days(days, time)))


def justify_days(months: int, days: int, time: int) -> tuple[int, int, int]:
    return (*_days_signed_as_months(*_whole_months(months, days)), time)


def justify_interval(months: int, days: int, time: int) -> tuple[int, int, int]:
    """Months, days under 30 and time under 24 hours, all of one sign. (PostgreSQL 16 first
    moves whole months out of days of time's sign, only to keep its 32-bit days from
    overflowing: Python's integers give the same result without it.)"""
    days, time = _whole_days(days, time)
    months, days = _days_signed_as_months(*_whole_months(months, days), time)
    return (months, *_time_signed_as_days(days, time))


def _rounded_to_micros(seconds: float) -> float:
    """PostgreSQL's TSROUND: to a whole number of millionths, as a double (C's rint: half to even)."""
    return round(seconds * 1e6) / 1e6


def divided(months: int, days: int, time: int, factor: float) -> tuple[int, int, int]:
    """PostgreSQL 16's interval_div: months and days divided and truncated, their fractions
    cascaded down - a month's as 30 days (rounded to a millionth of a day first), a day's as
    86400 seconds - and time divided, all in doubles as C does (so ``'1 mon' / 7`` is
    ``4 days 06:51:25.6896``, not the exact quotient's ``.714286``). avg of intervals is the
    sum so divided by the count. DuckDB's own division and avg differed in the last
    microsecond, and did not carry a day out of seconds past 24 hours."""
    if factor == 0.0:
        raise ZeroDivisionError("division by zero")
    whole_months, whole_days = int(months / factor), int(days / factor)
    month_remainder_days = _rounded_to_micros((months / factor - whole_months) * MONTH)
    seconds = _rounded_to_micros((days / factor - whole_days + month_remainder_days
                                  - int(month_remainder_days)) * 86400)
    if abs(seconds) >= 86400:
        whole_days += int(seconds / 86400)
        seconds -= int(seconds / 86400) * 86400
    whole_days += int(month_remainder_days)
    return whole_months, whole_days, int(round(time / factor + seconds * 1e6))


def _as_arrow(months: int, days: int, time: int) -> tuple[int, int, int]:
    """An interval's parts as Arrow takes them (months, days, nanoseconds); 22008 past a part's range."""
    if not (-2 ** 31 <= months < 2 ** 31 and -2 ** 31 <= days < 2 ** 31 and -2 ** 63 <= time < 2 ** 63):
        raise ValueError(OUT_OF_RANGE)
    return months, days, time * 1000


def divide(value, factor: float) -> tuple[int, int, int]:
    """``divided`` of an interval as Arrow gives it."""
    return _as_arrow(*divided(value.months, value.days, value.nanoseconds // 1000, factor))


def _interval_function(justify):
    """``justify`` of an interval's parts as a function of an interval as Arrow gives it (months, days, nanoseconds)."""
    def run(value) -> tuple[int, int, int]:
        return _as_arrow(*justify(value.months, value.days, value.nanoseconds // 1000))
    return run


# name -> function of an interval, as Arrow gives it
FUNCTIONS = {name: _interval_function(justify) for name, justify in (
    ("justify_hours", justify_hours), ("justify_days", justify_days), ("justify_interval", justify_interval))}
