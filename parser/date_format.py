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
"""

from __future__ import annotations

import datetime
import re

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


def to_char(moment: Moment, pattern: str) -> str:
    """``pattern`` written for ``moment`` (formatting.c's ``parse_format`` then ``DCH_to_char``)."""
    out, i = [], 0
    while i < len(pattern):
        fill = True
        if pattern.startswith(("FM", "fm", "TM", "tm"), i):  # (a prefix: taken, a keyword after it or not)
            fill = pattern[i] not in "Ff"
            i += 2
        if i >= len(pattern):
            break
        if (keyword := _KEYWORD.match(pattern, i)) is not None:
            write, is_number = _KEYWORDS[keyword.group()]
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


def of_timestamp(value: datetime.datetime, pattern: str) -> str:
    """to_char of a date or a timestamp (no zone)."""
    return to_char(Moment(value, None, 0), pattern)


def of_timestamptz(value: datetime.datetime, pattern: str, time_zone: str) -> str:
    """to_char of a timestamp with time zone ``value`` (an aware datetime) in the zone ``time_zone``."""
    from zoneinfo import ZoneInfo
    local = value.astimezone(ZoneInfo(time_zone))
    return to_char(Moment(local.replace(tzinfo=None), local.tzname(), int(local.utcoffset().total_seconds())),
                   pattern)
