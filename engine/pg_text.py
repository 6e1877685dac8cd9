"""PostgreSQL's text output of values: what psql shows and what COPY ... TO writes.

One spelling per type, as PostgreSQL's output functions give it: ``t``/``f``, ``100`` for a
double 100.0, ``NaN``, ``Infinity``, a numeric's digits of its scale, timestamps as
``2024-05-17 12:00:00.5`` (with ``+00`` or ``+05:30`` for a zone), intervals as ``1 mon 2
days 03:00:00``, arrays as ``{1,NULL,"a b"}``, records as ``(1,"a b")``, bytes as ``\\x...``.
"""

from __future__ import annotations

import datetime
import decimal

NULL = "NULL"


def format_value(value, null: str = NULL) -> str:
    """``value`` (a Python value, as fetched) as PostgreSQL's text of it; None as ``null``."""
    if value is None:
        return null
    if isinstance(value, bool):
        return "t" if value else "f"
    if isinstance(value, decimal.Decimal):
        return f"{value:f}"  # its scale's digits, never 0E-9 or 1.00E-7
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, (datetime.datetime, datetime.time)):
        return _clock_time(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "\\x" + bytes(value).hex()
    if isinstance(value, list):
        return "{" + ",".join(_array_item(v) for v in value) + "}"
    if isinstance(value, dict):  # a record (DuckDB's struct, as fetched): (1,"a b",)
        return "(" + ",".join(_record_field(v) for v in value.values()) + ")"
    return str(value)


def _record_field(value) -> str:
    """A field as PostgreSQL's record_out writes it: NULL as nothing, quoted (``"`` and ``\\``
    doubled) when empty or holding a quote, a backslash, a parenthesis, a comma or a space."""
    if value is None:
        return ""
    text = format_value(value)
    if text == "" or any(c in '"\\(),' or c.isspace() for c in text):
        return '"' + text.replace('"', '""').replace("\\", "\\\\") + '"'
    return text


def _array_item(value) -> str:
    """An element as PostgreSQL's text of an array writes it: ``{1,NULL,"a b"}``."""
    if value is None:
        return "NULL"
    text = format_value(value)
    if isinstance(value, (list, bool, int, float, decimal.Decimal)):
        return text
    if text == "" or text.upper() == "NULL" or any(c in '{},"\\' or c.isspace() for c in text):
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return text


def _clock_time(value: datetime.datetime | datetime.time) -> str:
    """As psql prints a timestamp or time: fractions without trailing zeros (.5, not .500000),
    a zone as +00 or +05:30."""
    bare = value.replace(tzinfo=None)
    text = bare.isoformat(sep=" ") if isinstance(value, datetime.datetime) else bare.isoformat()
    if value.microsecond:
        text = text.rstrip("0")
    offset = value.utcoffset()
    if offset is not None:
        zone = value.strftime("%z") if isinstance(value, datetime.datetime) else \
            datetime.datetime.combine(datetime.date.min, value).strftime("%z")
        text += zone[:3] + (":" + zone[3:5] if zone[3:5] != "00" else "")
    return text


def _float(value: float) -> str:
    """As PostgreSQL prints a double: 100, not 100.0; 1e+15, NaN, Infinity. Its shortest digits
    (Python's repr), in exponent form from 10^15 on, where PostgreSQL switches (Python: 10^16)."""
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    if value.is_integer() and abs(value) < 1e15:
        return "-0" if value == 0 and str(value)[0] == "-" else str(int(value))
    text = repr(value)
    if abs(value) >= 1e15 and "e" not in text:  # 1000000000000000.0 -> 1e+15
        digits = text.lstrip("-").removesuffix(".0").rstrip("0")
        return f"{value:.{len(digits) - 1}e}"
    return text


def pg_interval(months: int, days: int, nanoseconds: int) -> str:
    """An interval as PostgreSQL prints it (IntervalStyle postgres): ``1 year 2 mons 3 days
    04:05:06.5``, ``-1 days +02:00:00``, ``36:00:00`` (hours are not folded into days)."""
    parts, before = [], False  # (a part after a negative one carries its sign, as PostgreSQL's)
    years, months = int(months / 12), months - int(months / 12) * 12  # (truncated toward zero)
    for value, unit in ((years, "year"), (months, "mon"), (days, "day")):
        if value:
            parts.append(f"{'+' if before and value > 0 else ''}{value} {unit}{'s' if value != 1 else ''}")
            before = value < 0
    micros = int(nanoseconds / 1000)
    if micros or not parts:
        sign = "-" if micros < 0 else "+" if before else ""
        hours, rest = divmod(abs(micros), 3_600_000_000)
        minutes, rest = divmod(rest, 60_000_000)
        seconds, fraction = divmod(rest, 1_000_000)
        text = f"{sign}{hours:02d}:{minutes:02d}:{seconds:02d}"
        parts.append(text + (f".{fraction:06d}".rstrip("0") if fraction else ""))
    return " ".join(parts)
