"""PostgreSQL 16's interval input (``interval_in``): text into months, days and microseconds.

DuckDB's cast reads fewer forms, and some otherwise: it refuses ``-1 days +02:00:00`` (what
PostgreSQL's own output writes), ISO 8601 (``P1Y2M``), ``1.5 years``. This reads what
PostgreSQL's DecodeInterval and DecodeISO8601Interval read, in IntervalStyle postgres:

- fields of a number and a unit (``3 days``, ``1.5 years``, ``2h``), ``hh:mm[:ss[.f]]``,
  ``y-m`` (SQL's year-month), read right to left: a number without a unit takes the unit its
  right neighbour gives (days before a time, hours after... ``1 2:00`` is a day and two hours),
  and seconds at the end; a field's sign is its own (``-1 days +02:00:00``);
- ``@`` before and ``ago`` at the end (which negates everything);
- ISO 8601's designators (``P1Y2M3DT4H5M6S``) and its alternative form (``P0001-02-03T04:05:06``).

Fractions spill into the smaller units as PostgreSQL's: a year's into months (rounded), a
month's into days (30) and then microseconds, a week's into days, a day's into microseconds.

Errors as PostgreSQL's: text it cannot read is 22007 ``invalid input syntax for type
interval``; a field too large for its part is 22015 ``interval field value out of range``;
a whole too large (more than 2^31 - 1 months) is 22008 ``interval out of range``.
"""

from __future__ import annotations

import math
import re

from txlake import errors

SECOND = 1_000_000
DAY = 86_400_000_000  # microseconds
MONTH = 30  # days (PostgreSQL's DAYS_PER_MONTH)
OUT_OF_RANGE = "interval out of range"
_INT32 = 2 ** 31
_INT64 = 2 ** 63


class IntervalInputError(ValueError):
    """Text that is no interval (engine/errors_map.py: by its SQLSTATE)."""
    sqlstate = "22007"


class IntervalFieldOverflow(IntervalInputError):
    sqlstate = "22015"


class IntervalOutOfRange(IntervalInputError):
    sqlstate = "22008"


ERRORS = {cls.__name__: cls for cls in (IntervalInputError, IntervalFieldOverflow, IntervalOutOfRange)}

# unit words (as PostgreSQL's deltatktbl has them) -> the unit
_UNITS = {
    **dict.fromkeys(("microsecond", "microseconds", "microsecon", "us", "usec", "usecs", "usecond", "useconds"), "us"),
    **dict.fromkeys(("millisecond", "milliseconds", "millisecon", "ms", "msec", "msecs", "msecond", "mseconds"), "ms"),
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), "second"),
    **dict.fromkeys(("m", "min", "mins", "minute", "minutes"), "minute"),
    **dict.fromkeys(("h", "hr", "hrs", "hour", "hours"), "hour"),
    **dict.fromkeys(("d", "day", "days"), "day"),
    **dict.fromkeys(("w", "week", "weeks"), "week"),
    **dict.fromkeys(("mon", "mons", "month", "months"), "month"),
    **dict.fromkeys(("y", "yr", "yrs", "year", "years"), "year"),
    **dict.fromkeys(("dec", "decs", "decade", "decades"), "decade"),
    **dict.fromkeys(("c", "cent", "century", "centuries"), "century"),
    **dict.fromkeys(("mil", "mils", "millennia", "millennium"), "millennium"),
}
# microseconds of a unit of time
_TIME_UNITS = {"us": 1, "ms": 1000, "second": SECOND, "minute": 60 * SECOND, "hour": 3600 * SECOND}
_YEAR_UNITS = {"year": 1, "decade": 10, "century": 100, "millennium": 1000}
# the units a field gives: a clock time all of the day's, seconds with a fraction the smaller ones too
_CLOCK_FIELDS = frozenset(_TIME_UNITS)
_SECOND_FIELDS = frozenset(("second", "ms", "us"))

_TOKEN = re.compile(r"\s*(?:(?P<time>[+-]?\d+:\d+(?::\d+)?(?:\.\d*)?)"
                    r"|(?P<number>[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:-\d+)?)"
                    r"|(?P<word>[A-Za-z]+)|(?P<at>@))")


# the unit of a number without one, by an interval type's smallest field
_BARE_UNITS = {"YEAR": "year", "MONTH": "month", "DAY": "day", "HOUR": "hour", "MINUTE": "minute"}
MAX_PRECISION = 6


def fit(months: int, days: int, micros: int, fields: str | None, precision: int | None) -> tuple[int, int, int]:
    """An interval as a column of ``fields`` and ``precision`` holds it (PostgreSQL's
    AdjustIntervalForTypmod): a year's fields keep whole years, a month's drop days and time, a
    day's the time, an hour's or a minute's the time's smaller units (truncated toward zero);
    seconds are rounded to ``precision`` digits (half away from zero)."""
    smallest = fields.split()[-1] if fields else "SECOND"
    if fields == "YEAR":
        months, days, micros = int(months / 12) * 12, 0, 0
    elif smallest in ("MONTH", "YEAR"):
        days, micros = 0, 0
    elif smallest == "DAY":
        micros = 0
    elif smallest in ("HOUR", "MINUTE"):
        unit = 3600 * SECOND if smallest == "HOUR" else 60 * SECOND
        micros = int(micros / unit) * unit
    if precision is not None and precision < MAX_PRECISION:
        scale = 10 ** (MAX_PRECISION - precision)
        rounded = (abs(micros) + scale // 2) // scale * scale
        micros = rounded if micros >= 0 else -rounded
    return months, days, micros


class _Parts:
    """An interval being read: years, months, days, microseconds (PostgreSQL's pg_itm_in)."""

    def __init__(self) -> None:
        self.years = self.months = self.days = self.micros = 0

    def add_micros(self, value: float | int) -> None:
        self.micros += value
        if not -_INT64 <= self.micros < _INT64:
            raise _field_overflow()

    def add_days(self, whole: int, fraction: float = 0.0, scale: int = 1) -> None:
        self.days += whole * scale
        if not -_INT32 <= self.days < _INT32:
            raise _field_overflow()
        fraction *= scale
        extra = int(fraction)  # (toward zero)
        self.days += extra
        self.add_micros(round(math.fsum((fraction, -extra)) * DAY))

    def add_months(self, whole: int, fraction: float = 0.0) -> None:
        self.months += whole
        if not -_INT32 <= self.months < _INT32:
            raise _field_overflow()
        self.add_days(0, fraction, MONTH)

    def add_years(self, whole: int, fraction: float, scale: int) -> None:
        self.years += whole * scale
        if not -_INT32 <= self.years < _INT32:
            raise _field_overflow()
        self.months += round(fraction * scale * 12)

    def add(self, unit: str, whole: int, fraction: float) -> None:
        if unit in _TIME_UNITS:
            self.add_micros(whole * _TIME_UNITS[unit] + round(fraction * _TIME_UNITS[unit]))
        elif unit == "day":
            self.add_days(whole, fraction)
        elif unit == "week":
            self.add_days(whole, fraction, 7)
        elif unit == "month":
            self.add_months(whole, fraction)
        else:
            self.add_years(whole, fraction, _YEAR_UNITS[unit])


class _FieldOverflow(Exception):
    """A field too large for its part (the caller names the text)."""


def _field_overflow() -> _FieldOverflow:
    return _FieldOverflow()


def interval_in(text: str, fields: str | None = None) -> tuple[int, int, int]:
    """``text`` as PostgreSQL reads an interval: (months, days, microseconds); ``fields``: a
    column's (``DAY TO HOUR``), whose smallest is the unit of a number without one ('5' into an
    ``interval hour`` is five hours)."""
    try:
        parts = _postgres_form(text, _BARE_UNITS.get(fields.split()[-1] if fields else None, "second"))
        if parts is None:
            parts = _iso_8601(text.strip())
        if parts is None:
            raise IntervalInputError(f'invalid input syntax for type interval: "{text}"')
    except _FieldOverflow:
        raise IntervalFieldOverflow(f'interval field value out of range: "{text}"') from None
    months = parts.years * 12 + parts.months
    if not -_INT32 <= months < _INT32:
        raise IntervalOutOfRange(OUT_OF_RANGE)
    return months, parts.days, int(parts.micros)


def interval_constant(text: str, fields: str | None = None) -> tuple[int, int, int]:
    """``interval_in`` of a constant, then cut to ``fields`` (``fit``), its refusal raised as
    txlake's error of its SQLSTATE."""
    try:
        return fit(*interval_in(text, fields), fields, None)
    except IntervalInputError as e:
        raise (errors.InvalidDatetimeFormat(str(e)) if e.sqlstate == "22007" else
               errors.DatetimeFieldOverflow(str(e)) if e.sqlstate == "22008" else
               errors.DataError(str(e), sqlstate=e.sqlstate)) from None


def _tokens(text: str) -> list[tuple[str, str]] | None:
    tokens, at = [], 0
    text = text.rstrip()
    while at < len(text):
        found = _TOKEN.match(text, at)
        if found is None or found.end() == at:
            return None
        kind = found.lastgroup
        if kind != "at" or tokens:  # (@ only first)
            tokens.append((kind, found[kind]))
        at = found.end()
    return tokens


def _postgres_form(text: str, bare_unit: str) -> _Parts | None:
    tokens = _tokens(text)
    if not tokens:
        return None
    parts, unit, seen, pending_unit, ago = _Parts(), None, set(), False, False
    if tokens[-1][0] == "word" and tokens[-1][1].lower() == "ago":
        ago = True
        tokens.pop()
    for kind, value in reversed(tokens):  # (units come after their numbers)
        if kind == "at":
            return None
        if kind == "word":
            if pending_unit or value.lower() not in _UNITS:
                return None
            unit, pending_unit = _UNITS[value.lower()], True
            continue
        if kind == "time":
            _time(parts, value)
            fields, unit = _CLOCK_FIELDS, "day"
        else:
            whole, fraction, unit = _number(value, unit or bare_unit)
            parts.add(unit, whole, fraction)
            fields = _SECOND_FIELDS if unit == "second" and fraction else {unit}
            if unit == "hour":
                unit = "day"
        if seen & fields:  # (a unit given twice)
            return None
        seen |= fields
        pending_unit = False
    if not seen or pending_unit:
        return None
    if ago:
        parts.years, parts.months, parts.days, parts.micros = -parts.years, -parts.months, -parts.days, -parts.micros
    return parts


def _number(value: str, unit: str) -> tuple[int, float, str]:
    """A number field: its whole part and fraction (of its sign), and its unit - months for
    SQL's ``years-months``."""
    negative = value.startswith("-")
    if "-" in value.lstrip("+-"):
        years, months = value.lstrip("+-").split("-")
        if int(months) >= 12:
            raise _field_overflow()
        whole = int(years) * 12 + int(months)
        return (-whole if negative else whole), 0.0, "month"
    whole_text, _, fraction_text = value.lstrip("+-").partition(".")
    whole = int(whole_text or "0")
    fraction = float("0." + fraction_text) if fraction_text else 0.0
    if not -_INT64 <= whole < _INT64:
        raise _field_overflow()
    return (-whole, -fraction, unit) if negative else (whole, fraction, unit)


def _time(parts: _Parts, value: str) -> None:
    """``[+-]hh:mm[:ss[.f]]`` (minutes and seconds under 60: 60 seconds at most)."""
    negative = value.startswith("-")
    clock, _, fraction = value.lstrip("+-").partition(".")
    fields = [int(f) for f in clock.split(":")]
    hours, minutes, seconds = fields + [0] * (3 - len(fields))
    if minutes > 59 or seconds > 60:
        raise _field_overflow()
    micros = ((hours * 60 + minutes) * 60 + seconds) * SECOND + round(float("0." + (fraction or "0")) * SECOND)
    parts.add_micros(-micros if negative else micros)


_ISO_NUMBER = re.compile(r"-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def _iso_8601(text: str) -> _Parts | None:
    """ISO 8601's format with designators (``P1Y2M3DT4H5M6S``, a W among them allowed) or its
    alternative format (``P0001-02-03T04:05:06``, ``P00010203T040506``)."""
    if len(text) < 2 or text[0] != "P":
        return None
    alternative = re.fullmatch(r"P(\d{4})-?(\d{2})-?(\d{2})(?:T(\d{2}):?(\d{2}):?(\d{2}(?:\.\d*)?))?", text)
    parts = _Parts()
    if alternative is not None:
        years, months, days, hours, minutes, seconds = alternative.groups()
        parts.add_years(int(years), 0.0, 1)
        parts.add_months(int(months))
        parts.add_days(int(days))
        if hours is not None:
            parts.add_micros((int(hours) * 60 + int(minutes)) * 60 * SECOND + round(float(seconds) * SECOND))
        return parts
    at, date_part, designators = 1, True, {"date": "YMWD", "time": "HMS"}
    while at < len(text):
        if text[at] == "T" and date_part:
            date_part, at = False, at + 1
            continue
        number = _ISO_NUMBER.match(text, at)
        if number is None or number.end() >= len(text):
            return None
        value = float(number[0])
        if math.isnan(value) or abs(value) > 1e15:
            raise _field_overflow()
        whole = int(value)
        fraction = value - whole
        designator, at = text[number.end()], number.end() + 1
        if designator not in designators["date" if date_part else "time"]:
            return None
        unit = {"Y": "year", "W": "week", "D": "day"}.get(designator) if date_part else \
            {"H": "hour", "M": "minute", "S": "second"}[designator]
        parts.add(unit or "month", whole, fraction)
    return parts
