"""PostgreSQL's interval functions DuckDB lacks: ``justify_hours``, ``justify_days`` and
``justify_interval`` (engine/dialect.py registers them as DuckDB functions of Arrow arrays).

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


def _interval_function(justify):
    """``justify`` of an interval's parts as a function of an interval as Arrow gives it (months, days, nanoseconds)."""
    def run(value) -> tuple[int, int, int]:
        months, days, time = justify(value.months, value.days, value.nanoseconds // 1000)
        if not (-2 ** 31 <= months < 2 ** 31 and -2 ** 31 <= days < 2 ** 31 and -2 ** 63 <= time < 2 ** 63):
            raise ValueError(OUT_OF_RANGE)
        return months, days, time * 1000
    return run


# name -> function of an interval, as Arrow gives it
FUNCTIONS = {name: _interval_function(justify) for name, justify in (
    ("justify_hours", justify_hours), ("justify_days", justify_days), ("justify_interval", justify_interval))}
