"""PostgreSQL's ``to_char(number, pattern)`` and ``to_number(text, pattern)``: the number
patterns of formatting.c (``9 0 . , D G S MI PL SG PR L FM EEEE V TH RN`` and quoted text).

A pattern is read once (``pattern``, cached by its text) into its nodes - keywords and
literal characters - and a description (how many digits before and after the point, which
sign, fill mode...), refusing what PostgreSQL refuses (42601). Then a value is written by it:
``numeric_text`` (a numeric's exact digits, rounded half away from zero), ``int4_text`` /
``int8_text``, ``float8_text`` / ``float4_text`` (a double's at most 15 significant digits, a
real's 6, as C's printf rounds them); ``to_number`` reads text back. Each follows its
formatting.c counterpart step by step, oddities included: a value that does not fit the
digits is ``#`` filled, a roman numeral past 3999 is ``###############``.

The locale is PostgreSQL's C locale: ``D`` is ``.``, ``G`` ``,``, ``L`` (the currency) a
space, ``S`` ``+`` / ``-``.

Errors carry PostgreSQL's SQLSTATE by their class (``NumberFormatError.sqlstate``): raised in
a function DuckDB calls, engine/errors_map.py finds them by the class name in the message."""

from __future__ import annotations

import decimal
import functools
import math
import re
import struct
from dataclasses import dataclass, replace
from decimal import Decimal


class NumberFormatError(ValueError):
    sqlstate = "22023"


class PatternSyntaxError(NumberFormatError):
    """A pattern PostgreSQL refuses (NUMDesc_prepare's errors)."""
    sqlstate = "42601"


class InvalidNumberText(NumberFormatError):
    """Text that is no number (to_number's numeric input, an ordinal of no digit)."""
    sqlstate = "22P02"


class NumberOutOfRange(NumberFormatError):
    sqlstate = "22003"


class NotSupportedForInput(NumberFormatError):
    """``EEEE`` and ``RN`` in to_number (PostgreSQL 16 reads neither)."""
    sqlstate = "0A000"


# the exception classes by name, for engine/errors_map.py
ERRORS = {cls.__name__: cls for cls in (NumberFormatError, PatternSyntaxError, InvalidNumberText,
                                         NumberOutOfRange, NotSupportedForInput)}

# NUM_keywords in formatting.c's order: at a character the first that matches wins ("SG" before "S")
_KEYWORDS = (
    (",", ","), (".", "."), ("0", "0"), ("9", "9"), ("B", "B"), ("C", "C"), ("D", "D"), ("EEEE", "E"),
    ("FM", "FM"), ("G", "G"), ("L", "L"), ("MI", "MI"), ("PL", "PL"), ("PR", "PR"), ("RN", "RN"),
    ("SG", "SG"), ("SP", "SP"), ("S", "S"), ("TH", "TH"), ("V", "V"),
    ("b", "B"), ("c", "C"), ("d", "D"), ("eeee", "E"), ("fm", "FM"), ("g", "G"), ("l", "L"), ("mi", "MI"),
    ("pl", "PL"), ("pr", "PR"), ("rn", "rn"), ("sg", "SG"), ("sp", "SP"), ("s", "S"), ("th", "th"), ("v", "V"),
)
_BY_FIRST: dict[str, tuple[tuple[str, str], ...]] = {}
for _word, _key in _KEYWORDS:
    _BY_FIRST[_word[0]] = _BY_FIRST.get(_word[0], ()) + ((_word, _key),)

# NUMDesc flags
DECIMAL, LDECIMAL, ZERO, BLANK, FILLMODE, LSIGN, BRACKET, MINUS, PLUS, ROMAN, MULTI, PLUS_POST, MINUS_POST, EEEE = (
    1 << i for i in range(1, 15))
LSIGN_PRE, LSIGN_NONE, LSIGN_POST = -1, 0, 1

# the C locale's symbols (NUM_prepare_locale)
_DECIMAL_POINT, _THOUSANDS, _CURRENCY, _NEGATIVE, _POSITIVE = ".", ",", " ", "-", "+"
_DBL_DIG, _FLT_DIG = 15, 6
_INT32 = (-(1 << 31), (1 << 31) - 1)
_INT64 = (-(1 << 63), (1 << 63) - 1)


@dataclass(frozen=True)
class Description:
    """formatting.c's NUMDesc: what the pattern asks for."""
    pre: int = 0          # digits before the decimal point
    post: int = 0         # digits after it
    lsign: int = LSIGN_NONE
    flag: int = 0
    pre_lsign_num: int = 0
    multi: int = 0        # V's shift
    zero_start: int = 0   # where the first 0 is (from 1)
    zero_end: int = 0     # where the last 0 is

    def has(self, flag: int) -> bool:
        return bool(self.flag & flag)


@dataclass(frozen=True)
class Pattern:
    """A parsed pattern: its nodes - (True, keyword) or (False, character) - and description."""
    nodes: tuple[tuple[bool, str], ...]
    num: Description


@functools.lru_cache(maxsize=256)
def pattern(text: str) -> Pattern:
    """``text`` read as formatting.c's parse_format reads a number pattern (NUM_FLAG)."""
    nodes: list[tuple[bool, str]] = []
    num = Description()
    i, n = 0, len(text)
    while i < n:
        found = next(((word, key) for word, key in _BY_FIRST.get(text[i], ()) if text.startswith(word, i)), None)
        if found is not None:
            word, key = found
            num = _prepared(num, key)
            nodes.append((True, key))
            i += len(word)
        elif text[i] == '"':  # quoted text, a backslash quoting the next character
            i += 1
            while i < n:
                if text[i] == '"':
                    i += 1
                    break
                if text[i] == "\\" and i + 1 < n:
                    i += 1
                nodes.append((False, text[i]))
                i += 1
        else:
            if text[i] == "\\" and text[i + 1:i + 2] == '"':  # (outside quotes only \" is special)
                i += 1
            nodes.append((False, text[i]))
            i += 1
    return Pattern(tuple(nodes), num)


def _prepared(num: Description, key: str) -> Description:
    """NUMDesc_prepare: ``num`` with keyword ``key`` taken in, or 42601 as PostgreSQL's."""
    if num.has(EEEE) and key != "E":
        raise PatternSyntaxError('"EEEE" must be the last pattern used')
    flag = num.flag
    if key in ("9", "0"):
        if num.has(BRACKET):
            raise PatternSyntaxError(f'"{key}" must be ahead of "PR"')
        if key == "9":
            if num.has(MULTI):
                return replace(num, multi=num.multi + 1)
            return replace(num, post=num.post + 1) if num.has(DECIMAL) else replace(num, pre=num.pre + 1)
        if not num.has(ZERO) and not num.has(DECIMAL):
            num = replace(num, flag=num.flag | ZERO, zero_start=num.pre + 1)
        num = replace(num, post=num.post + 1) if num.has(DECIMAL) else replace(num, pre=num.pre + 1)
        return replace(num, zero_end=num.pre + num.post)
    if key == "B":
        return replace(num, flag=flag | BLANK) if num.pre == 0 and num.post == 0 and not num.has(ZERO) else num
    if key in ("D", "."):
        if num.has(DECIMAL):
            raise PatternSyntaxError("multiple decimal points")
        if num.has(MULTI):
            raise PatternSyntaxError('cannot use "V" and decimal point together')
        return replace(num, flag=flag | DECIMAL | (LDECIMAL if key == "D" else 0))
    if key == "FM":
        return replace(num, flag=flag | FILLMODE)
    if key == "S":
        if num.has(LSIGN):
            raise PatternSyntaxError('cannot use "S" twice')
        if num.has(PLUS | MINUS | BRACKET):
            raise PatternSyntaxError('cannot use "S" and "PL"/"MI"/"SG"/"PR" together')
        if not num.has(DECIMAL):
            return replace(num, lsign=LSIGN_PRE, pre_lsign_num=num.pre, flag=flag | LSIGN)
        return replace(num, lsign=LSIGN_POST, flag=flag | LSIGN) if num.lsign == LSIGN_NONE else num
    if key in ("MI", "PL", "SG"):
        if num.has(LSIGN):
            raise PatternSyntaxError(f'cannot use "S" and "{key}" together')
        if key == "SG":
            return replace(num, flag=flag | MINUS | PLUS)
        own, post = (MINUS, MINUS_POST) if key == "MI" else (PLUS, PLUS_POST)
        return replace(num, flag=flag | own | (post if num.has(DECIMAL) else 0))
    if key == "PR":
        if num.has(LSIGN | PLUS | MINUS):
            raise PatternSyntaxError('cannot use "PR" and "S"/"PL"/"MI"/"SG" together')
        return replace(num, flag=flag | BRACKET)
    if key in ("RN", "rn"):
        return replace(num, flag=flag | ROMAN)
    if key == "V":
        if num.has(DECIMAL):
            raise PatternSyntaxError('cannot use "V" and decimal point together')
        return replace(num, flag=flag | MULTI)
    if key == "E":
        if num.has(EEEE):
            raise PatternSyntaxError('cannot use "EEEE" twice')
        if num.has(BLANK | FILLMODE | LSIGN | BRACKET | MINUS | PLUS | ROMAN | MULTI):
            raise PatternSyntaxError('"EEEE" is incompatible with other formats\nDETAIL:  "EEEE" may only be used '
                                     'together with digit and decimal point patterns.')
        return replace(num, flag=flag | EEEE)
    return num  # (C, SP, TH, G, L: nothing to note)


# -- to_char: each type's number string, then NUM_processor writes it by the pattern --------------

def numeric_text(value: Decimal, fmt: str) -> str:
    """numeric_to_char: ``value`` written by ``fmt``."""
    p = pattern(fmt)
    num = p.num
    if num.has(ROMAN):
        whole = _round(value, 0)
        return _processed(p, num, _roman(int(whole) if _INT32[0] <= whole <= _INT32[1] else _INT32[1]), 0, 0)
    if num.has(EEEE):
        return _processed(p, num, _signed(_scientific(value, num.post)), 0, 0)
    if num.has(MULTI):
        value = value.scaleb(num.multi)
        num = replace(num, pre=num.pre + num.multi)
    text = f"{_round(value, num.post):f}"
    sign, digits = ("-", text[1:]) if text.startswith("-") else ("+", text)
    return _fitted(p, num, digits, sign)


def int4_text(value: int, fmt: str) -> str:
    """int4_to_char (a smallint's too)."""
    return _integer_text(value, fmt, lambda post: _c_exponent(float(value), post), bigint=False)


def int8_text(value: int, fmt: str) -> str:
    """int8_to_char: V past a bigint is 22003; EEEE by numeric's rounding."""
    return _integer_text(value, fmt, lambda post: _signed(_scientific(Decimal(value), post)), bigint=True)


def _integer_text(value: int, fmt: str, scientific, bigint: bool) -> str:
    p = pattern(fmt)
    num = p.num
    if num.has(ROMAN):
        return _processed(p, num, _roman(value if _INT32[0] <= value <= _INT32[1] else _INT32[1]), 0, 0)
    if num.has(EEEE):
        return _processed(p, num, scientific(num.post), 0, 0)
    if num.has(MULTI):
        value *= 10 ** num.multi
        if bigint and not _INT64[0] <= value <= _INT64[1]:
            raise NumberOutOfRange("bigint out of range")
        num = replace(num, pre=num.pre + num.multi)
    sign, digits = ("-", str(value)[1:]) if value < 0 else ("+", str(value))
    pre_len = len(digits)
    if num.post:
        digits += "." + "0" * num.post
    return _fitted(p, num, digits, sign, pre_len)


def float8_text(value: float, fmt: str) -> str:
    """float8_to_char: at most DBL_DIG (15) significant digits, as printf rounds them."""
    return _float_text(value, fmt, _DBL_DIG, float)


def float4_text(value: float, fmt: str) -> str:
    """float4_to_char: at most FLT_DIG (6) digits; V's product computed in single precision."""
    return _float_text(value, fmt, _FLT_DIG, _single)


def _float_text(value: float, fmt: str, max_digits: int, precision) -> str:
    p = pattern(fmt)
    num = p.num
    if num.has(ROMAN):
        whole = round(value) if math.isfinite(value) else None  # (rint: half to even)
        fits = whole is not None and _INT32[0] <= whole <= _INT32[1]
        return _processed(p, num, _roman(whole if fits else _INT32[1]), 0, 0)
    if num.has(EEEE):
        if not math.isfinite(value):
            text = "#" * (num.pre + num.post + 6)
            text = " " + text[1:num.pre + 1] + "." + text[num.pre + 2:]
        else:
            text = _c_exponent(value, num.post)
        return _processed(p, num, text, 0, 0)
    if num.has(MULTI):
        value = precision(value * precision(10.0 ** num.multi))
        num = replace(num, pre=num.pre + num.multi)
    pre_len = len(_c_fixed(abs(value), 0))
    post = 0 if pre_len >= max_digits else min(num.post, max_digits - pre_len)
    num = replace(num, post=post)
    text = _c_fixed(value, post)
    sign, digits = ("-", text[1:]) if text.startswith("-") else ("+", text)
    return _fitted(p, num, digits, sign)


def _fitted(p: Pattern, num: Description, digits: str, sign: str, pre_len: int | None = None) -> str:
    """The common end of the *_to_char functions: spaces before a number shorter than the
    pattern's digits, ``#`` for one longer."""
    if pre_len is None:
        point = digits.find(".")
        pre_len = point if point >= 0 else len(digits)
    out_pre_spaces = 0
    if pre_len < num.pre:
        out_pre_spaces = num.pre - pre_len
    elif pre_len > num.pre:
        digits = "#" * num.pre + "." + "#" * num.post
    return _processed(p, num, digits, out_pre_spaces, sign)


def _round(value: Decimal, places: int) -> Decimal:
    """numeric_round: to ``places`` decimals, half away from zero; zero has no sign."""
    with decimal.localcontext() as ctx:
        ctx.prec = 1000
        rounded = value.quantize(Decimal(1).scaleb(-places), rounding=decimal.ROUND_HALF_UP)
    return abs(rounded) if rounded == 0 else rounded


def _scientific(value: Decimal, places: int) -> str:
    """numeric_out_sci: ``d.ddde+XX``, the significand rounded half away from zero (and not
    renormalised: 9.9996 to 2 places is 10.00e+00, as PostgreSQL writes it)."""
    exponent = value.adjusted() if value != 0 else 0
    return f"{_round(value.scaleb(-exponent), places):f}e{exponent:+03d}"


def _signed(text: str) -> str:
    return text if text.startswith("-") else " " + text


def _c_exponent(value: float, places: int) -> str:
    """printf's ``%+.*e``, its leading ``+`` a space."""
    text = "%+.*e" % (places, value)
    return " " + text[1:] if text.startswith("+") else text


def _c_fixed(value: float, places: int) -> str:
    """printf's ``%.*f`` (glibc's ``inf`` / ``nan``, a negative NaN ``-nan``)."""
    if math.isnan(value):
        return "-nan" if math.copysign(1.0, value) < 0 else "nan"
    return "%.*f" % (places, value)


def _single(value: float) -> float:
    """``value`` rounded to single precision (a C float)."""
    try:
        return struct.unpack("f", struct.pack("f", value))[0]
    except OverflowError:
        return math.copysign(math.inf, value)


_ROMAN = (("", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX"),
          ("", "X", "XX", "XXX", "XL", "L", "LX", "LXX", "LXXX", "XC"),
          ("", "C", "CC", "CCC", "CD", "D", "DC", "DCC", "DCCC", "CM"),
          ("", "M", "MM", "MMM"))


def _roman(number: int) -> str:
    """int_to_roman: upper case, 1 to 3999; ``#`` times 15 for the rest."""
    if not 1 <= number <= 3999:
        return "#" * 15
    digits = str(number)
    return "".join(_ROMAN[len(digits) - 1 - i][int(d)] for i, d in enumerate(digits))


def _ordinal(number: str, upper: bool) -> str:
    """get_th: the suffix of the number's last digit (11 to 13 take th)."""
    last = number[-1:]
    if not last.isdigit():
        raise InvalidNumberText(f'"{number}" is not a number')
    if len(number) > 1 and number[-2] == "1":
        last = "0"
    suffix = {"1": "st", "2": "nd", "3": "rd"}.get(last, "th")
    return suffix.upper() if upper else suffix


class _Writer:
    """NUM_processor's state writing one number (NUMProc, to_char's half)."""
    __slots__ = ("num", "flag", "number", "sign", "sign_wrote", "num_count", "num_in", "num_curr",
                 "out_pre_spaces", "number_p", "last_relevant", "zero_start", "lsign", "out")

    def char(self, at: int) -> str:
        return self.number[at] if at < len(self.number) else "\0"

    def predec_space(self) -> bool:  # IS_PREDEC_SPACE: "0.1" by "9.9" is " .1"
        return (not self.flag & ZERO and self.number_p == 0 and self.number[:1] == "0"
                and self.num.post != 0)

    def relevant_is_point(self) -> bool:
        return self.last_relevant is not None and self.char(self.last_relevant) == "."


def _processed(p: Pattern, num: Description, number: str, out_pre_spaces: int, sign) -> str:
    """NUM_processor for to_char: ``number`` (its digits, a point, no sign) written by the
    pattern's nodes."""
    w = _Writer()
    w.num, w.flag, w.number, w.sign = num, num.flag, number, sign
    w.zero_start = num.zero_start - 1 if num.zero_start else 0
    w.lsign = num.lsign
    w.last_relevant = None
    if w.flag & EEEE:
        return number
    if w.flag & ROMAN:
        num = w.num = replace(num, lsign=0, pre_lsign_num=0, post=0, pre=0)
        w.lsign, out_pre_spaces, w.sign = 0, 0, 0
        w.flag = (FILLMODE if w.flag & FILLMODE else 0) | ROMAN
    if w.flag & (PLUS | MINUS):
        w.sign_wrote = not (w.flag & PLUS and not w.flag & MINUS)
    else:
        if w.sign != "-" and w.flag & FILLMODE:
            w.flag &= ~BRACKET
        w.sign_wrote = w.sign == "+" and bool(w.flag & FILLMODE) and not w.flag & LSIGN
        if w.lsign == LSIGN_PRE and num.pre == num.pre_lsign_num:
            w.lsign = LSIGN_POST
    w.num_count = num.post + num.pre - 1
    w.out_pre_spaces = out_pre_spaces
    if w.flag & FILLMODE and w.flag & DECIMAL:
        point = number.find(".")
        if point >= 0:
            w.last_relevant = max([point] + [i for i in range(point + 1, len(number)) if number[i] != "0"])
            if num.zero_end > out_pre_spaces:
                last_zero = min(len(number) - 1, num.zero_end - out_pre_spaces)
                w.last_relevant = max(w.last_relevant, last_zero)
    if not w.sign_wrote and out_pre_spaces == 0:
        w.num_count += 1
    w.num_in, w.num_curr, w.number_p = False, 0, 0
    w.out = out = []
    fill = bool(w.flag & FILLMODE)
    for is_key, key in p.nodes:
        if not is_key:
            out.append(key)
        elif key in ("9", "0", ".", "D"):
            _digit(w, key)
        elif key in (",", "G"):
            if w.num_in:
                out.append(_THOUSANDS)
            elif not fill:
                out.append(" ")
        elif key == "L":
            out.append(_CURRENCY)
        elif key in ("RN", "rn"):
            roman = number if key == "RN" else number.lower()
            out.append(roman if fill else roman.rjust(15))
        elif key in ("TH", "th"):
            if not (w.flag & ROMAN or number[:1] == "#" or w.sign == "-" or w.flag & DECIMAL):
                out.append(_ordinal(number, key == "TH"))
        elif key == "MI":
            out.append("-" if w.sign == "-" else "" if fill else " ")
        elif key == "PL":
            out.append("+" if w.sign == "+" else "" if fill else " ")
        elif key == "SG":
            out.append(w.sign if isinstance(w.sign, str) else "\0")
    return "".join(out).split("\0", 1)[0]  # (a NUL written ends the C string)


def _digit(w: _Writer, key: str) -> None:
    """NUM_numpart_to_char: the sign where it goes, then a digit, a space, a zero or the point."""
    if w.flag & ROMAN:
        return
    out = w.out
    fill = w.flag & FILLMODE
    w.num_in = False
    if (not w.sign_wrote
            and (w.num_curr >= w.out_pre_spaces or (w.flag & ZERO and w.zero_start == w.num_curr))
            and (not w.predec_space() or w.relevant_is_point())):
        if w.flag & LSIGN:
            if w.lsign == LSIGN_PRE:
                out.append(_NEGATIVE if w.sign == "-" else _POSITIVE)
                w.sign_wrote = True
        elif w.flag & BRACKET:
            out.append(" " if w.sign == "+" else "<")
            w.sign_wrote = True
        elif w.sign == "+":
            if not fill:
                out.append(" ")
            w.sign_wrote = True
        elif w.sign == "-":
            out.append("-")
            w.sign_wrote = True
    if w.num_curr < w.out_pre_spaces and (w.zero_start > w.num_curr or not w.flag & ZERO):
        if not fill:
            out.append(" ")
    elif w.flag & ZERO and w.num_curr < w.out_pre_spaces and w.zero_start <= w.num_curr:
        out.append("0")
        w.num_in = True
    else:
        c = w.char(w.number_p)
        if c == ".":
            if not w.relevant_is_point() or fill:
                out.append(_DECIMAL_POINT)
        elif w.last_relevant is not None and w.number_p > w.last_relevant and key != "0":
            pass
        elif w.predec_space():
            if not fill:
                out.append(" ")
            elif w.relevant_is_point():
                out.append("0")
        else:
            out.append(c)
            w.num_in = True
        if w.number_p < len(w.number):
            w.number_p += 1
    end = w.num_count + (1 if w.out_pre_spaces else 0) + (1 if w.flag & DECIMAL else 0)
    if w.last_relevant is not None and w.last_relevant == w.number_p:
        end = w.num_curr
    if w.num_curr + 1 == end:
        if w.sign_wrote and w.flag & BRACKET:
            out.append(" " if w.sign == "+" else ">")
        elif w.flag & LSIGN and w.lsign == LSIGN_POST:
            out.append(_NEGATIVE if w.sign == "-" else _POSITIVE)
    w.num_curr += 1


# -- to_number: NUM_processor reading ---------------------------------------------------------

_DATA_CHARACTERS = frozenset("0123456789.,+-")
_DIGITS = frozenset("0123456789")


def result_scale(fmt: str) -> int:
    """The most digits after the point ``to_number(text, fmt)`` gives: a column's scale."""
    num = pattern(fmt).num
    return num.post + num.multi


def to_number(text: str, fmt: str) -> Decimal | None:
    """numeric_to_number: the number ``text`` shows, read by ``fmt`` - its scale the digits
    read after the point (V's shift added). None for an empty pattern, as PostgreSQL's NULL."""
    if not fmt:
        return None
    p = pattern(fmt)
    num = p.num
    if num.has(EEEE):
        raise NotSupportedForInput('"EEEE" not supported for input')
    if num.has(ROMAN):
        raise NotSupportedForInput('"RN" not supported for input')
    r = _Reader(text, num)
    for is_key, key in p.nodes:
        if r.at >= len(text):
            break
        if not is_key:
            r.at += 1  # (one character skipped, whatever it is)
            continue
        if key in ("9", "0", ".", "D"):
            r.numpart(key)
        elif key == ",":
            if num.has(FILLMODE) or text[r.at] != ",":
                continue
        elif key == "G":
            if num.has(FILLMODE) or not text.startswith(_THOUSANDS, r.at):
                continue
        elif key == "L":
            r.eat_non_data(len(_CURRENCY))
            continue
        elif key in ("TH", "th"):
            if not num.has(DECIMAL):
                r.eat_non_data(2)
            continue
        elif key in ("MI", "PL", "SG"):
            signs = {"MI": "-", "PL": "+", "SG": "+-"}[key]
            if text[r.at] in signs:
                r.sign = text[r.at]
            else:
                r.eat_non_data(1)
                continue
        else:
            continue
        r.at += 1
    number = r.sign + "".join(r.digits)
    if number.endswith("."):
        number = number[:-1]
    return _numeric_input(number, num.pre + num.multi + r.read_post, r.read_post, num.multi)


class _Reader:
    """NUM_processor's state reading one number (NUMProc, to_number's half)."""
    __slots__ = ("text", "num", "at", "sign", "digits", "read_pre", "read_post", "read_dec")

    def __init__(self, text: str, num: Description):
        self.text, self.num, self.at = text, num, 0
        self.sign, self.digits = " ", []
        self.read_pre = self.read_post = 0
        self.read_dec = False

    def eat_non_data(self, n: int) -> None:
        """NUM_eat_non_data_chars: skip up to ``n`` characters that are no part of a number."""
        for _ in range(n):
            if self.at >= len(self.text) or self.text[self.at] in _DATA_CHARACTERS:
                break
            self.at += 1

    def numpart(self, key: str) -> None:
        """NUM_numpart_from_char: a sign before the number, a digit or the point, a sign after it."""
        text, num, n = self.text, self.num, len(self.text)
        if self.at >= n:
            return
        if text[self.at] == " ":
            self.at += 1
            if self.at >= n:
                return
        if self.sign == " " and key in ("9", "0") and self.read_pre + self.read_post == 0:
            c = text[self.at]
            if num.has(LSIGN) and num.lsign == LSIGN_PRE:
                if c in (_NEGATIVE, _POSITIVE):
                    self.at += 1
                    self.sign = "-" if c == _NEGATIVE else "+"
            elif c == "-" or (num.has(BRACKET) and c == "<"):
                self.sign = "-"
                self.at += 1
            elif c == "+":
                self.sign = "+"
                self.at += 1
            if self.at >= n:
                return
        read = False
        c = text[self.at]
        if c in _DIGITS:
            if self.read_dec and self.read_post == num.post:
                return
            self.digits.append(c)
            if self.read_dec:
                self.read_post += 1
            else:
                self.read_pre += 1
            read = True
        elif num.has(DECIMAL) and not self.read_dec and c == _DECIMAL_POINT:
            self.digits.append(".")
            self.read_dec = read = True
        if self.sign != " " or self.read_pre + self.read_post == 0:
            return
        if num.has(LSIGN) and read and self.at + 1 < n and text[self.at + 1] not in _DIGITS:
            after = text[self.at + 1]
            if after in (_NEGATIVE, _POSITIVE):
                self.at += 1
                self.sign = "-" if after == _NEGATIVE else "+"
        elif not read and not num.has(LSIGN) and num.has(PLUS | MINUS) and c in "-+":
            self.sign = c


_NUMERIC_TEXT = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)\s*")


def _numeric_input(number: str, precision: int, scale: int, multi: int) -> Decimal:
    """numeric_in of what was read, with the typmod (precision, scale) to_number gives it:
    22P02 if it is no number, 22003 if it has more digits before the point than the pattern."""
    if _NUMERIC_TEXT.fullmatch(number) is None:
        raise InvalidNumberText(f'invalid input syntax for type numeric: "{number}"')
    value = Decimal(number.strip())
    whole = value.adjusted() + 1 if value != 0 else 0
    if whole > precision - scale:
        limit = precision - scale
        raise NumberOutOfRange(f"numeric field overflow\nDETAIL:  A field with precision {precision}, scale {scale} "
                               f"must round to an absolute value less than {'1' if limit <= 0 else f'10^{limit}'}.")
    value = abs(value) if value == 0 else value
    return value.scaleb(-multi) if multi else value
