"""``to_char`` of a date, timestamp or timestamp with time zone, as PostgreSQL 16's
formatting.c writes it (``DCH_to_char``), in the C locale: the patterns of its keyword table,
matched case-sensitively and longest first (``Month`` the capitalised name padded to 9
characters, ``MONTH`` upper case, ``month`` lower case; ``Q``, ``J``, ``RM``, ``WW``, ``IW``,
``TZ``, ``OF`` ...), the prefixes ``FM`` (no padding) and ``TM`` (the C locale's names), the
suffixes ``TH`` / ``th`` (ordinals) and ``SP`` (ignored, as PostgreSQL ignores it), text in
double quotes (``\\"`` a quote) and any other character as it is.

A timestamp with time zone is written in the session's TimeZone (its ``TZ`` the zone's
abbreviation, ``OF`` its offset); a date or a timestamp has no zone (``TZ`` writes nothing,
``OF`` ``+00``), as in PostgreSQL. Years before 1 (BC) are not supported: Python's dates start at 1.

An interval (``of_interval``, formatting.c's ``interval_to_char``) writes its own fields - years
and months of its months, its days, hours (any number of them), minutes, seconds and fractions
of its time, each negative as the interval's part is - with the same patterns, its "day of the
year" (DDD, WW) its span in days at 30 a month; the patterns of a calendar date (month and day
names, D, ID, AD / BC, the zone's TZ, TZH, TZM, OF) are 22007 for an interval, as in PostgreSQL,
and those of ISO weeks PostgreSQL computes as if the interval's fields were a date (IYYY..., IW,
IDDD) 0A000.
"""

from __future__ import annotations

import datetime
import re

from txlake.parser.number_format import NumberFormatError

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")
_DAYS = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")
_ROMAN_MONTHS = ("I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII")
_JULIAN_OFFSET = 1721425  # (date2j(1, 1, 1) - 1: a date's ordinal plus this is its Julian day)


class Moment:
    """The fields of one value that to_char's patterns write: ``at`` (naive, in the zone the
    value is written in), the zone's abbreviation (None: a date or a timestamp) and offset in seconds."""

    def __init__(self, at: datetime.datetime, zone: str | None, offset: int):
        self.at, self.zone, self.offset = at, zone, offset
        self.iso_year, self.iso_week, self.iso_day = at.isocalendar()
        self.yday = at.timetuple().tm_yday
        self.wday = (at.weekday() + 1) % 7  # (Sunday 0, as C's tm_wday)


def _iso_yday(m: Moment) -> int:
    return (m.iso_week - 1) * 7 + m.iso_day


def _century(year: int) -> int:
    return (year - 1) // 100 + 1


def _offset_text(m: Moment, fill: bool) -> str:
    sign, seconds = ("+" if m.offset >= 0 else "-"), abs(m.offset)
    text = f"{sign}{seconds // 3600:0{2 if fill else 0}d}"
    return text + (f":{seconds % 3600 // 60:02d}" if seconds % 3600 else "")


def _number(field, width: int = 0, fixed: bool = False):
    """A number pattern: ``field`` of the moment, zero-padded to ``width`` digits unless FM
    (``fixed``: FM or not, as formatting.c writes YYY, MS, US, FFn)."""
    return lambda m, fill: f"{field(m):0{width if fill or fixed else 0}d}"


def _hour12(m: Moment) -> int:
    return (m.at.hour + 11) % 12 + 1


def _seconds(m: Moment) -> int:
    return m.at.hour * 3600 + m.at.minute * 60 + m.at.second


# pattern -> function of the moment and fill mode (TH gives these an ordinal)
_NUMBERS = {
    "YYYY": _number(lambda m: m.at.year, 4), "YYY": _number(lambda m: m.at.year % 1000, 3, fixed=True),
    "YY": _number(lambda m: m.at.year % 100, 2, fixed=True), "Y": _number(lambda m: m.at.year % 10),
    "Y,YYY": lambda m, f: f"{m.at.year // 1000},{m.at.year % 1000:03d}",
    "IYYY": _number(lambda m: m.iso_year, 4), "IYY": _number(lambda m: m.iso_year % 1000, 3, fixed=True),
    "IY": _number(lambda m: m.iso_year % 100, 2, fixed=True), "I": _number(lambda m: m.iso_year % 10),
    "CC": _number(lambda m: _century(m.at.year), 2), "Q": _number(lambda m: (m.at.month - 1) // 3 + 1),
    "MM": _number(lambda m: m.at.month, 2), "WW": _number(lambda m: (m.yday - 1) // 7 + 1, 2),
    "IW": _number(lambda m: m.iso_week, 2), "W": _number(lambda m: (m.at.day - 1) // 7 + 1),
    "DDD": _number(lambda m: m.yday, 3), "IDDD": _number(_iso_yday, 3), "DD": _number(lambda m: m.at.day, 2),
    "D": _number(lambda m: m.wday + 1), "ID": _number(lambda m: m.iso_day),
    "J": _number(lambda m: m.at.toordinal() + _JULIAN_OFFSET),
    "HH24": _number(lambda m: m.at.hour, 2), "HH12": _number(_hour12, 2), "HH": _number(_hour12, 2),
    "MI": _number(lambda m: m.at.minute, 2), "SS": _number(lambda m: m.at.second, 2),
    "MS": _number(lambda m: m.at.microsecond // 1000, 3, fixed=True),
    "US": _number(lambda m: m.at.microsecond, 6, fixed=True),
    **{f"FF{n}": _number((lambda n: lambda m: m.at.microsecond // 10 ** (6 - n))(n), n, fixed=True)
       for n in range(1, 7)},
    "SSSS": _number(_seconds), "SSSSS": _number(_seconds),
    "TZH": lambda m, f: f"{'+' if m.offset >= 0 else '-'}{abs(m.offset) // 3600:02d}",
    "TZM": _number(lambda m: abs(m.offset) % 3600 // 60, 2, fixed=True),
}


def _named(names: tuple[str, ...], width: int, pick):
    """The three spellings of a name pattern (``Month``, ``MONTH``, ``month``): padded on the
    right to ``width`` unless FM (``width`` 0: an abbreviation, never padded)."""
    def spelled(case):
        return lambda m, f: f"{case(names[pick(m)][:width or 3]):{width if f else 0}}"
    return spelled(str.capitalize), spelled(str.upper), spelled(str.lower)


def _texts() -> dict:
    texts = {}
    for (cap, upper, lower), spellings in (
            (_named(_MONTHS, 9, lambda m: m.at.month - 1), ("Month", "MONTH", "month")),
            (_named(_MONTHS, 0, lambda m: m.at.month - 1), ("Mon", "MON", "mon")),
            (_named(_DAYS, 9, lambda m: m.wday), ("Day", "DAY", "day")),
            (_named(_DAYS, 0, lambda m: m.wday), ("Dy", "DY", "dy"))):
        texts.update(zip(spellings, (cap, upper, lower)))
    for upper, lower, word in (("AM", "am", lambda m: "AM" if m.at.hour < 12 else "PM"),
                               ("PM", "pm", lambda m: "AM" if m.at.hour < 12 else "PM"),
                               ("AD", "ad", lambda m: "AD"), ("BC", "bc", lambda m: "AD")):
        dotted = (lambda word: lambda m, f: ".".join(word(m)) + ".")(word)
        texts[upper] = (lambda word: lambda m, f: word(m))(word)
        texts[lower] = (lambda word: lambda m, f: word(m).lower())(word)
        texts[f"{upper[0]}.{upper[1]}."] = dotted
        texts[f"{lower[0]}.{lower[1]}."] = (lambda dotted: lambda m, f: dotted(m, f).lower())(dotted)
    texts.update({
        "RM": lambda m, f: f"{_ROMAN_MONTHS[m.at.month - 1]:{4 if f else 0}}",
        "rm": lambda m, f: f"{_ROMAN_MONTHS[m.at.month - 1].lower():{4 if f else 0}}",
        "TZ": lambda m, f: (m.zone or "").upper(), "tz": lambda m, f: (m.zone or "").lower(),
        "OF": lambda m, f: _offset_text(m, f), "FX": lambda m, f: ""})
    return texts


# pattern -> (its function, whether it writes a number); the number patterns are keywords in
# lower case too (yyyy, hh24, ...), as in formatting.c's table
_KEYWORDS = {**{k: (v, False) for k, v in _texts().items()}, **{k: (v, True) for k, v in _NUMBERS.items()},
             **{k.lower(): (v, True) for k, v in _NUMBERS.items()}}
_KEYWORD = re.compile("|".join(re.escape(k) for k in sorted(_KEYWORDS, key=len, reverse=True)))


def _ordinal(number: str, upper: bool) -> str:
    last, before = number[-1:], number[-2:-1]
    suffix = "th" if before == "1" or last not in "123" else {"1": "st", "2": "nd", "3": "rd"}[last]
    return suffix.upper() if upper else suffix


def to_char(moment, pattern: str, keywords: dict | None = None) -> str:
    """``pattern`` written for ``moment`` (formatting.c's ``parse_format`` then ``DCH_to_char``)
    - a Moment, or with the interval ``keywords`` a Span."""
    keywords = keywords or _KEYWORDS
    out, i = [], 0
    while i < len(pattern):
        fill = True
        if pattern.startswith(("FM", "fm", "TM", "tm"), i):  # (a prefix: taken, a keyword after it or not)
            fill = pattern[i] not in "Ff"
            i += 2
        if i >= len(pattern):
            break
        if (keyword := _KEYWORD.match(pattern, i)) is not None:
            write, is_number = keywords[keyword.group()]
            text = write(moment, fill)
            i = keyword.end()
            if pattern.startswith(("TH", "th"), i):
                text += _ordinal(text, pattern[i] == "T") if is_number else ""
                i += 2
            elif pattern.startswith("SP", i):
                i += 2
            out.append(text)
        elif pattern[i] == '"':  # quoted text, a backslash taking the character after it as it is
            i += 1
            while i < len(pattern) and pattern[i] != '"':
                if pattern[i] == "\\" and i + 1 < len(pattern):
                    i += 1
                out.append(pattern[i])
                i += 1
            i += 1
        elif pattern.startswith('\\"', i):
            out.append('"')
            i += 2
        else:
            out.append(pattern[i])
            i += 1
    return "".join(out)


class IntervalFormatError(NumberFormatError):
    """A pattern of a calendar date given an interval (INVALID_FOR_INTERVAL)."""
    sqlstate = "22007"


class IntervalPatternNotSupported(NumberFormatError):
    """A pattern PostgreSQL writes for an interval as if its fields were an ISO week date's."""
    sqlstate = "0A000"


# the errors raised here in a function DuckDB calls, by name (engine/errors_map.py)
ERRORS = {cls.__name__: cls for cls in (IntervalFormatError, IntervalPatternNotSupported)}


class Span:
    """An interval's fields as interval2itm splits it - every division truncated toward zero,
    as C's: a negative part gives negative fields - and yday, its span in days at 30 a month."""

    def __init__(self, months: int, days: int, nanoseconds: int):
        micros = _truncated(nanoseconds, 1000)
        self.year, self.mon = _truncated(months, 12), _remainder(months, 12)
        self.mday = days
        self.hour = _truncated(micros, 3_600_000_000)
        micros -= self.hour * 3_600_000_000
        self.min, self.sec = _truncated(micros, 60_000_000), _remainder(_truncated(micros, 1_000_000), 60)
        self.fsec = _remainder(micros, 1_000_000)
        self.yday = (self.year * 12 + self.mon) * 30 + self.mday


def _truncated(a: int, b: int) -> int:
    """C's a / b of integers: toward zero."""
    return abs(a) // abs(b) * (1 if (a >= 0) == (b > 0) else -1)


def _remainder(a: int, b: int) -> int:
    """C's a % b: of a's sign."""
    return a - _truncated(a, b) * b


def _signed(field, width: int = 2):
    """A field written in ``width`` digits, one more for its minus sign (none with FM)."""
    return lambda s, fill: f"{field(s):0{(width if field(s) >= 0 else width + 1) if fill else 0}d}"


def _padded(field, width: int):
    """A field written in ``width`` characters, its sign among them (none with FM)."""
    return lambda s, fill: f"{field(s):0{width if fill else 0}d}"


def _fraction(digits: int):
    return lambda s, fill: f"{_truncated(s.fsec, 10 ** (6 - digits)):0{digits}d}"


def _hour12(s: Span) -> int:
    return 12 if _remainder(s.hour, 12) == 0 else _remainder(s.hour, 12)


def _century_of(s: Span, fill: bool) -> str:
    century = _truncated(s.year, 100)
    return f"{century:0{(2 if century >= 0 else 3) if fill else 0}d}" if -99 <= century <= 99 else str(century)


def _julian_day(s: Span) -> int:
    """J of an interval: date2j of its year, month and day as if they were a date's."""
    year, month = (s.year + 4800, s.mon + 1) if s.mon > 2 else (s.year + 4799, s.mon + 13)
    century = _truncated(year, 100)
    return year * 365 - 32167 + _truncated(year, 4) - century + _truncated(century, 4) \
        + _truncated(7834 * month, 256) + s.mday


def _roman_month(s: Span, upper: bool, fill: bool) -> str:
    """RM of an interval: its months (12 months, a year: XII), from December back if negative."""
    if not s.mon and not s.year:
        return ""
    index = (0 if s.year >= 0 else 11) if s.mon == 0 else -(s.mon + 1) if s.mon < 0 else 12 - s.mon
    numeral = ("XII", "XI", "X", "IX", "VIII", "VII", "VI", "V", "IV", "III", "II", "I")[index]
    return f"{numeral if upper else numeral.lower():{4 if fill else 0}}"


def _refused(error: type[NumberFormatError], message: str):
    def write(s, fill):
        raise error(message)
    return write


_CALENDAR = _refused(IntervalFormatError, "invalid format specification for an interval value\n"
                                          "HINT:  Intervals are not tied to specific calendar dates.")
_AS_A_DATE = _refused(IntervalPatternNotSupported,
                      "to_char of an interval with a pattern of ISO weeks is not supported")
_NOON = 12  # (AM / PM of an interval: its hours past a whole number of days)


def _interval_keywords() -> dict:
    meridian = {}
    for upper, lower in (("AM", "am"), ("PM", "pm")):
        for spelled, dotted in ((upper, False), (lower, False), (f"{upper[0]}.{upper[1]}.", True),
                                (f"{lower[0]}.{lower[1]}.", True)):
            case = str.upper if spelled[0].isupper() else str.lower
            meridian[spelled] = (lambda case, dotted: lambda s, f: case(
                ("P.M." if dotted else "PM") if _remainder(s.hour, 24) >= _NOON else ("A.M." if dotted else "AM")))(
                case, dotted)
    numbers = {
        "HH24": _signed(lambda s: s.hour), "HH12": _signed(_hour12), "HH": _signed(_hour12),
        "MI": _signed(lambda s: s.min), "SS": _signed(lambda s: s.sec),
        "MS": _fraction(3), "US": _fraction(6), **{f"FF{n}": _fraction(n) for n in range(1, 7)},
        **{k: (lambda s, f: str(s.hour * 3600 + s.min * 60 + s.sec)) for k in ("SSSS", "SSSSS")},
        "MM": _signed(lambda s: s.mon), "DD": _padded(lambda s: s.mday, 2), "DDD": _padded(lambda s: s.yday, 3),
        "WW": _padded(lambda s: _truncated(s.yday - 1, 7) + 1, 2), "W": lambda s, f: str(_truncated(s.mday - 1, 7) + 1),
        "Q": lambda s, f: str(_truncated(s.mon - 1, 3) + 1) if s.mon else "",
        "CC": _century_of,
        "Y,YYY": lambda s, f: f"{_truncated(s.year, 1000)},{s.year - _truncated(s.year, 1000) * 1000:03d}",
        "YYYY": _signed(lambda s: s.year, 4), "YYY": _signed(lambda s: _remainder(s.year, 1000), 3),
        "YY": _signed(lambda s: _remainder(s.year, 100), 2), "Y": lambda s, f: str(_remainder(s.year, 10)),
        "J": lambda s, f: str(_julian_day(s)),
        **{k: _AS_A_DATE for k in ("IYYY", "IYY", "IY", "I", "IW", "IDDD")},
        **{k: _CALENDAR for k in ("D", "ID", "TZH", "TZM")},
    }
    texts = {k: _CALENDAR for k in _texts()}
    texts.update(meridian)
    texts.update({"RM": lambda s, f: _roman_month(s, True, f), "rm": lambda s, f: _roman_month(s, False, f),
                  "FX": lambda s, f: ""})
    return {**{k: (v, False) for k, v in texts.items()}, **{k: (v, True) for k, v in numbers.items()},
            **{k.lower(): (v, True) for k, v in numbers.items()}}


_INTERVAL_KEYWORDS = _interval_keywords()


def of_interval(value: tuple[int, int, int], pattern: str) -> str:
    """to_char of an interval (``value``: its months, days and nanoseconds)."""
    return to_char(Span(*value), pattern, _INTERVAL_KEYWORDS)


def of_timestamp(value: datetime.datetime, pattern: str) -> str:
    """to_char of a date or a timestamp (no zone)."""
    return to_char(Moment(value, None, 0), pattern)


def of_timestamptz(value: datetime.datetime, pattern: str, time_zone: str) -> str:
    """to_char of a timestamp with time zone ``value`` (an aware datetime) in the zone ``time_zone``."""
    from zoneinfo import ZoneInfo
    local = value.astimezone(ZoneInfo(time_zone))
    return to_char(Moment(local.replace(tzinfo=None), local.tzname(), int(local.utcoffset().total_seconds())),
                   pattern)
