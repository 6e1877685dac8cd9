"""PostgreSQL's numeric division, square root, exponential, logarithms and power, exactly, in
Python's decimal.

PostgreSQL's numeric (src/backend/utils/adt/numeric.c) gives each result a scale of its own:
a quotient ``select_div_scale``'s - at least 16 significant digits, at least either input's
scale, at most 1000 - ``sqrt``, ``exp``, ``ln``, ``log`` and ``power`` their own rules of the
same kind; the value is
rounded there, half away from zero (``round_var``). These functions compute that value from
the inputs as text (a DECIMAL's text keeps its scale: ``'1.50'``). Used at parse time, to fold
constants (parser/semantics.py), and by DuckDB, row by row (engine/dialect.py), where a
column of DECIMAL(38,20) holds the results (``RESULT_SCALE``)."""

from __future__ import annotations

import decimal
import math
from decimal import Decimal
from math import isqrt

MIN_SIG_DIGITS = 16  # NUMERIC_MIN_SIG_DIGITS
MAX_DISPLAY_SCALE = 1000  # NUMERIC_MAX_DISPLAY_SCALE
_MAX_RESULT_SCALE = 2000  # NUMERIC_MAX_RESULT_SCALE: exp's estimate is clamped to it
_DEC_DIGITS = 4  # decimal digits in one of numeric's base-10000 digits

# the DuckDB type of a numeric result computed row by row: a column has one scale, where each of
# PostgreSQL's values has its own - 20 holds a quotient's below 1 (1 / 3: 20 decimals)
RESULT_SCALE = 20
RESULT_TYPE = f"DECIMAL(38,{RESULT_SCALE})"
_RESULT_LIMIT = Decimal(10) ** (38 - RESULT_SCALE)


class NumericOverflow(ArithmeticError):
    """A result too large for the type that holds it (PostgreSQL's 22003)."""


def scale(value: Decimal) -> int:
    """The display scale of ``value``: its digits after the point as written (``1.50``: 2)."""
    return max(0, -value.as_tuple().exponent)


def _weight_and_first_digit(value: Decimal) -> tuple[int, int]:
    """The weight (the power of 10000) of the first base-10000 digit of ``value`` that is not
    zero, and that digit; (0, 0) for zero - as numeric.c's NumericVar has them."""
    if not value:
        return 0, 0
    weight = value.copy_abs().adjusted() // _DEC_DIGITS
    return weight, int(value.copy_abs().scaleb(-_DEC_DIGITS * weight))


def stored_bytes(text: str) -> int:
    """A numeric's bytes past its varlena header, as PostgreSQL stores it (numeric.c): a 2-byte
    short header (a weight and display scale this small always have one) and 2 bytes for each
    base-10000 digit, zero digits at either end left off (0 has none; 1.50 has 1 and 5000)."""
    whole, _, fraction = text.lstrip("-").partition(".")
    whole = whole.lstrip("0")
    digits = whole.rjust(-(-len(whole) // _DEC_DIGITS) * _DEC_DIGITS, "0") + \
        fraction.ljust(-(-len(fraction) // _DEC_DIGITS) * _DEC_DIGITS, "0")
    groups = [digits[i:i + _DEC_DIGITS] for i in range(0, len(digits), _DEC_DIGITS)]
    while groups and int(groups[0]) == 0:
        groups.pop(0)
    while groups and int(groups[-1]) == 0:
        groups.pop()
    return 2 + 2 * len(groups)


def _bounded(rscale: int) -> int:
    return min(max(rscale, 0), MAX_DISPLAY_SCALE)


def division_scale(dividend: Decimal, divisor: Decimal) -> int:
    """``select_div_scale``: the scale of ``dividend / divisor``."""
    weight1, first1 = _weight_and_first_digit(dividend)
    weight2, first2 = _weight_and_first_digit(divisor)
    qweight = weight1 - weight2 - (1 if first1 <= first2 else 0)  # (equal first digits: assume the lesser)
    return _bounded(max(MIN_SIG_DIGITS - qweight * _DEC_DIGITS, scale(dividend), scale(divisor)))


def _scaled(integer: int, rscale: int) -> Decimal:
    """``integer / 10^rscale``, with ``rscale`` decimals."""
    return Decimal((1 if integer < 0 else 0, tuple(int(d) for d in str(abs(integer))), -rscale))


def _rounded_ratio(numerator: int, denominator: int, rscale: int) -> Decimal:
    """``numerator / denominator``, a number of ``rscale`` decimals, rounded half away from
    zero at them (``numerator / denominator`` is that number times ``10^rscale``)."""
    quotient, remainder = divmod(abs(numerator), abs(denominator))
    if 2 * remainder >= abs(denominator):
        quotient += 1
    return _scaled(-quotient if (numerator < 0) != (denominator < 0) else quotient, rscale)


def divide(dividend: Decimal, divisor: Decimal, rscale: int | None = None) -> Decimal:
    """``dividend / divisor`` rounded at ``rscale`` decimals (``division_scale``'s if None).
    ZeroDivisionError for a zero divisor."""
    if not divisor:
        raise ZeroDivisionError("division by zero")
    rscale = division_scale(dividend, divisor) if rscale is None else rscale
    (_, _, exponent1), (_, _, exponent2) = dividend.as_tuple(), divisor.as_tuple()
    shift = exponent1 - exponent2 + rscale  # (D1 * 10^e1) / (D2 * 10^e2) * 10^r = D1 / D2 * 10^shift
    numerator = int(dividend.scaleb(-exponent1)) * 10 ** max(shift, 0)
    denominator = int(divisor.scaleb(-exponent2)) * 10 ** max(-shift, 0)
    return _rounded_ratio(numerator, denominator, rscale)


def sqrt_scale(value: Decimal) -> int:
    """``numeric_sqrt``'s result scale: 16 significant digits, at least the input's scale."""
    weight, _ = _weight_and_first_digit(value)
    sweight = (weight + 1) * _DEC_DIGITS // 2 - 1
    return _bounded(max(MIN_SIG_DIGITS - sweight, scale(value)))


def square_root(value: Decimal, rscale: int | None = None) -> Decimal:
    """The square root of ``value`` rounded at ``rscale`` decimals (``sqrt_scale``'s if None);
    ValueError for a negative value (PostgreSQL's 2201F)."""
    if value < 0:
        raise ValueError("cannot take square root of a negative number")
    rscale = sqrt_scale(value) if rscale is None else rscale
    # sqrt(x) * 10^r = sqrt(X), X = x * 10^2r = N / 10^k: its integer part's integer square root,
    # and one more where X >= (root + 1/2)^2, i.e. 4N >= (2 root + 1)^2 * 10^k
    exponent = value.as_tuple().exponent + 2 * rscale
    n, k = int(value.scaleb(-value.as_tuple().exponent)) * 10 ** max(exponent, 0), max(-exponent, 0)
    root = isqrt(n // 10 ** k)
    if 4 * n >= (2 * root + 1) ** 2 * 10 ** k:
        root += 1
    return _scaled(root, rscale)


def exp_scale(value: Decimal) -> int:
    """``numeric_exp``'s result scale: from the estimated decimal weight of the result."""
    weight = min(max(float(value) * 0.434294481903252, -_MAX_RESULT_SCALE), _MAX_RESULT_SCALE)
    return _bounded(max(MIN_SIG_DIGITS - int(weight), scale(value)))


def exponential(value: Decimal, rscale: int | None = None) -> Decimal:
    """e to the power ``value``, rounded at ``rscale`` decimals (``exp_scale``'s if None), from
    Python's exp, correctly rounded at 10 more digits than the result has."""
    rscale = exp_scale(value) if rscale is None else rscale
    digits = max(int(float(value) * 0.434294481903252), 0) + rscale + 10
    with decimal.localcontext(decimal.Context(prec=digits, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)):
        return value.exp().quantize(Decimal(1).scaleb(-rscale), rounding=decimal.ROUND_HALF_UP)


def _at_scale(compute, integer_digits: int, rscale: int) -> Decimal:
    """``compute()`` - a transcendental value, correctly rounded by Python's decimal at the
    context's precision - rounded half away from zero at ``rscale`` decimals, from 10 digits
    more than the result has (a tie there is as good as impossible)."""
    with decimal.localcontext(decimal.Context(prec=max(integer_digits, 1) + rscale + 10, Emax=decimal.MAX_EMAX,
                                              Emin=decimal.MIN_EMIN)):
        return compute().quantize(Decimal(1).scaleb(-rscale), rounding=decimal.ROUND_HALF_UP)


def _ln_dweight(value: Decimal) -> int:
    """``estimate_ln_dweight``: the decimal weight of ln(value) - of value - 1 near 1, else from
    value's first two base-10000 digits (0 for a value that has no logarithm)."""
    if Decimal("0.9") <= value <= Decimal("1.1"):
        return (value - 1).adjusted() if value != 1 else 0
    if value <= 0:
        return 0
    weight, first = _weight_and_first_digit(value)
    second = int(value.scaleb(-_DEC_DIGITS * (weight - 1))) % 10 ** _DEC_DIGITS
    digits, dweight = first, weight * _DEC_DIGITS
    if value != first * Decimal(10) ** dweight:  # (more than one base-10000 digit)
        digits, dweight = first * 10 ** _DEC_DIGITS + second, dweight - _DEC_DIGITS
    return int(math.log10(abs(math.log(digits) + dweight * 2.302585092994046)))


def _logarithm_domain(value: Decimal) -> None:
    if not value:
        raise ValueError("cannot take logarithm of zero")
    if value < 0:
        raise ValueError("cannot take logarithm of a negative number")


def ln_scale(value: Decimal) -> int:
    """``numeric_ln``'s result scale: 16 significant digits of the estimated logarithm."""
    return _bounded(max(MIN_SIG_DIGITS - _ln_dweight(value), scale(value)))


def natural_log(value: Decimal, rscale: int | None = None) -> Decimal:
    """ln(value) rounded at ``rscale`` decimals (``ln_scale``'s if None); ValueError (2201E)
    for zero or a negative value."""
    _logarithm_domain(value)
    rscale = ln_scale(value) if rscale is None else rscale
    return _at_scale(value.ln, 4, rscale)


def log10_scale(value: Decimal) -> int:
    """``log_var``'s result scale for base 10 (ln(10)'s decimal weight is 0)."""
    return _bounded(max(MIN_SIG_DIGITS - _ln_dweight(value), scale(value)))


def log10(value: Decimal, rscale: int | None = None) -> Decimal:
    """log(value), base 10, rounded at ``rscale`` decimals (``log10_scale``'s if None)."""
    _logarithm_domain(value)
    rscale = log10_scale(value) if rscale is None else rscale
    return _at_scale(value.log10, 4, rscale)


def _integer_exponent(exponent: Decimal) -> int | None:
    """``exponent`` as an int, if it is an integer an int4 holds (``power_var_int``'s case)."""
    if exponent != exponent.to_integral_value() or not -(1 << 31) <= exponent < (1 << 31):
        return None
    return int(exponent)


def _power_weight(base: Decimal, exponent: Decimal) -> float:
    """The estimated decimal weight of base ^ exponent, as power_var / power_var_int take it."""
    n = _integer_exponent(exponent)
    if n is not None:
        if not base:
            return 0.0
        # (base ~= f * 10^p from its first 16 digits; their f * 10^p)
        digits = base.copy_abs().normalize()
        f, p = float(digits.scaleb(-digits.adjusted() + 15).to_integral_value()), digits.adjusted() - 15
        return n * (math.log10(f) + p)
    return float(exponent) * math.log(base) * 0.434294481903252 if base > 0 else 0.0


def power_scale(base: Decimal, exponent: Decimal) -> int:
    """``power_var`` / ``power_var_int``'s result scale: 16 significant digits of the estimated
    result, at least either input's scale."""
    weight = 0.0 if not base and _integer_exponent(exponent) is None else _power_weight(base, exponent)
    return _bounded(max(MIN_SIG_DIGITS - int(weight), scale(base), scale(exponent)))


def power(base: Decimal, exponent: Decimal, rscale: int | None = None) -> Decimal:
    """base ^ exponent rounded at ``rscale`` decimals (``power_scale``'s if None): exact for an
    integer exponent, else from Python's power; ValueError (2201F) for 0 to a negative power and
    a negative number to a non-integer one, NumericOverflow past 1000 digits."""
    n = _integer_exponent(exponent)
    if not base and exponent < 0:
        raise ValueError("zero raised to a negative power is undefined")
    if base < 0 and exponent != exponent.to_integral_value():
        raise ValueError("a negative number raised to a non-integer power yields a complex result")
    rscale = power_scale(base, exponent) if rscale is None else rscale
    weight = _power_weight(base, exponent)
    if weight > MAX_DISPLAY_SCALE:
        raise NumericOverflow("value overflows numeric format")
    if weight + 1 < -MAX_DISPLAY_SCALE or not base:
        return _scaled(0 if base or n is None or n else 10 ** rscale, rscale)  # (0 ^ 0 is 1)
    if n is None or abs(n) * len(base.as_tuple().digits) > 2000:  # (exactly only while the power is small)
        return _at_scale(lambda: base ** exponent, max(int(weight) + 1, 1), rscale)
    (sign, _, e) = base.as_tuple()
    digits = int(base.scaleb(-e))  # base = digits * 10^e; base^n = digits^n * 10^(e n)
    numerator, denominator = (digits ** n, 1) if n >= 0 else (1, digits ** -n)
    shift = e * n + rscale
    return _rounded_ratio(numerator * 10 ** max(shift, 0), denominator * 10 ** max(-shift, 0), rscale)


# PostgreSQL's function -> (it, its result scale), for a value computed row by row
FUNCTIONS = {"quotient": (divide, division_scale), "sqrt": (square_root, sqrt_scale),
             "exp": (exponential, exp_scale), "ln": (natural_log, ln_scale), "log10": (log10, log10_scale),
             "power": (power, power_scale)}
ARITY = {"quotient": 2, "sqrt": 1, "exp": 1, "ln": 1, "log10": 1, "power": 2}


def computed(name: str, *args: Decimal) -> Decimal:
    """``FUNCTIONS[name]`` of ``args`` as ``RESULT_TYPE`` holds it: rounded once, at its scale or
    at ``RESULT_SCALE`` if that is less; NumericOverflow past the type's 38 digits."""
    function, result_scale = FUNCTIONS[name]
    value = function(*args, min(result_scale(*args), RESULT_SCALE))
    if abs(value) >= _RESULT_LIMIT:
        raise NumericOverflow(f"value overflows numeric format: {value:.6e} has more than {38 - RESULT_SCALE} "
                              "digits before the decimal point, the most a computed numeric holds in txlake")
    return value
