"""DuckDB, set up to compute as PostgreSQL does where their answers differ and a setting
says so. Every DuckDB connection that evaluates a statement's expressions gets it: the
executor's, and SSI's, which re-evaluates a read's WHERE over rows others wrote (the same
predicate must give the same answer there). The rest of the differences are rewritten in the
parsed statement (parser/semantics.py ``postgres_semantics``) or parsed as PostgreSQL means them
(parser/dialect.py: where NULLs sort)."""

from __future__ import annotations

import getpass
import math
import platform
import re
from decimal import Decimal
from fractions import Fraction
from functools import cache

import duckdb
import pyarrow as pa
from sqlglot import exp

from txlake.engine import (arrow_functions, buckets, bytea_functions, intervals, jsonb, jsonpath, network,
                           pg_text, regexp_functions)
from txlake.parser.semantics import (AVG_MACRO, BOOLEAN_CHECK, BOOLEAN_CONTEXTS, BOOLEAN_FUNCTION, BOOLEAN_MACRO,
                                     BOOLEAN_WORDS, BYTEA_IN, BYTEA_LENGTH, BYTEA_MACRO, CBRT_FUNCTION, DIVIDE_MACRO,
                                     DIVISOR_MACRO,
                                     EPOCH_MACRO, ESCAPE_IN, ESCAPE_OUT, FLOAT_PRODUCT_MACRO, FLOAT_SUM_MACRO,
                                     COLUMN_SIZE_MACRO, COLUMN_SIZE_REFUSED, NUMERIC_SIZE, VARLENA_SIZE,
                                     INTEGER_MACRO, INTERVAL_FIT, INTERVAL_MACRO, INTERVAL_PARTS, JSON_VALUE_MACRO,
                                     JSON_NUMBERS, NUMERIC_MARK,
                                     LIKE_ALL, LIKE_ANY,
                                     LENGTH_MACRO, LN_MACRO, LOG10_MACRO, POWER_MACRO, REAL_MACRO, SPLIT_PART_MACRO,
                                     SERIES_LIST, SERIES_NUMBERED, SERIES_ROWS, SQRT_MACRO, SUBSTRING_FROM_MACRO,
                                     SUBSTRING_MACRO, SUM_MACRO, WINDOW_AVG_MACRO, WINDOW_SUM_MACRO, EXP_MACRO,
                                     NUMERIC_FUNCTION, OVERLAPS_MACRO, PERCENTILE_REFUSED, PERCENTILE_VALUE,
                                     ROUND_MACRO, TIME_MACRO, TO_CHAR_MACRO, TO_NUMBER_FUNCTION, UNKNOWN_AS_TEXT)
from txlake.parser import date_format, interval_input, json_ops, number_format, numeric
from txlake.parser.system_columns import TID_IN, TID_OUT
from txlake.parser.semantics import (ARRAY_CONCAT, ARRAY_INDEX, ARRAY_LENGTH, ARRAY_LOWER, ARRAY_MACRO,  # (arrays)
                                     ARRAY_ACCUMULATED, ARRAY_AS, ARRAY_CAT, ARRAY_ELEMENT, ARRAY_ELEMENTS,
                                     ARRAY_ONE_DIMENSIONAL,
                                     ARRAY_PARSE, ARRAY_RECTANGULAR, ARRAY_SET, ARRAY_UPPER, nested_form,
                                     ELEMENTS_AS, QUANTIFIED, STRING_TO_ARRAY, SUBSCRIPTS, TEXT_MACRO, array_cast)
from txlake.storage.schema import INTEGER_INPUT, array_input, integer_input

# settings DuckDB keeps per connection: every connection of a shared database needs them
SESSION_SETUP = (
    # 7 / 2 is 3 and -7 / 2 is -3 (truncated, as PostgreSQL's integer division): DuckDB's /
    # is float division unless told; an operand of another type still divides as before
    "SET integer_division = true",
    # a function of an extension DuckDB does not have loaded (html_escape, read_xlsx) does not
    # exist (42883), as in PostgreSQL - DuckDB went to fetch the extension: XX000 offline
    "SET autoinstall_known_extensions = false",
    "SET autoload_known_extensions = false",
)

# PostgreSQL's decimal integer input, which DuckDB's cast reads alike (INTEGER_MACRO); the
# function giving the decimal text of any other integer input (storage/schema.py integer_input)
_DECIMAL_INPUT = r"\s*[+-]?[0-9](_?[0-9])*\s*"
INTEGER_TEXT = INTEGER_MACRO + "_text"

# the types of a period's start in (s1, e1) OVERLAPS (s2, e2) (a DATE is taken as a TIMESTAMP)
_PERIOD_TYPES = ("TIMESTAMP", "TIMESTAMPTZ", "TIME")

# DuckDB's integer types: an operand of one is no numeric to the macros that pick by type
_INTEGERS = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT")


def _numeric_call(name: str, *operands: str) -> str:
    """The call of the function computing parser/numeric.py's ``name`` (``_FUNCTIONS``) of the operands' text."""
    return f"{NUMERIC_FUNCTION}{name}({', '.join(f'CAST({o} AS VARCHAR)' for o in operands)})"


def _by_operand_type(name: str, other: str) -> str:
    """The forms ``(x, w)`` of a macro of one operand x, w being x again (never evaluated):
    a numeric's parser/numeric.py's ``name``, any other's ``other`` - an integer's too (an
    integer takes a DECIMAL form before an untyped one)."""
    return (f"(x, w DECIMAL) AS {_numeric_call(name, 'x')}, " + "".join(f"(x, w {t}) AS {other}, " for t in _INTEGERS)
            + f"(x, w) AS {other}")


def _by_operand_types(name: str, other: str, numeric_form: str | None = None) -> str:
    """The forms ``(a, b, x, y)`` of a macro of two operands a, b, x and y being them again
    (never evaluated): of two numerics, or a numeric and an integer, ``numeric_form`` or
    parser/numeric.py's ``name``; of the rest ``other`` - each pair of integer types has a form of its own."""
    numeric_form = numeric_form or _numeric_call(name, 'a', 'b')
    return (f"(a, b, x DECIMAL, y DECIMAL) AS {numeric_form}, " +
            "".join(f"(a, b, x {s}, y {t}) AS {other}, " for s in _INTEGERS for t in _INTEGERS) +
            f"(a, b, x, y) AS {other}")


# 10^k: as INTEGERs (k <= 9: a DECIMAL(p <= 18) times one stays a 64-bit DECIMAL, cheap to cast
# to BIGINT) and as BIGINTs (k <= 18); 10^-k as DECIMAL(21,20)s (k <= 20)
_POWERS = "[" + ", ".join(f"CAST({10 ** k} AS INTEGER)" for k in range(10)) + "]"
_BIG_POWERS = "[" + ", ".join(f"CAST({10 ** k} AS BIGINT)" for k in range(19)) + "]"
_FRACTIONS = "[" + ", ".join(f"CAST(1e-{k} AS DECIMAL(21,20))" for k in range(numeric.RESULT_SCALE + 1)) + "]"


def _power(k: str, powers: str = _POWERS) -> str:
    return f"{powers}[({k}) + 1]"


def _bind(fields: dict[str, str], name: str, body: str) -> str:
    """``body`` with ``name`` a struct of ``fields``, each evaluated once: a lambda over a list
    of it (DuckDB's one way to name a value within an expression - a macro copies its arguments)."""
    struct = ", ".join(f"'{field}': {value}" for field, value in fields.items())
    return f"list_transform([{{{struct}}}], lambda {name}: {body})[1]"


def _integer_quotient(a: str, b: str) -> tuple[str, str]:
    """PostgreSQL's numeric ``a / b`` (``numeric.computed("quotient", a, b)``) in DuckDB's own
    integer arithmetic, for a DECIMAL or an integer by a DECIMAL or an integer, row by row.

    With s and t the operands' scales (their types': a DECIMAL's text has them all) and M the
    larger, X = |a| 10^M and Y = |b| 10^t are integers and a / b = X / Y 10^(t - M). The result
    scale r is ``select_div_scale``'s from the base-10000 weights and first digits of X at scale
    M and Y at t (decimal digits counted exactly, from the integers' text), capped at
    RESULT_SCALE; the quotient rounded half away from zero at r is X // Y, then r - (M - t) more
    digits by long division in BIGINTs (at most 9 at a time: a remainder is below Y < 10^9),
    plus one where twice the last remainder reaches Y. Rows outside those bounds - X of 10^17 or
    more (X 10^s, for a DECIMAL of 18 digits or fewer: X is computed as one of scale s, in 64
    bits), Y of 10^9, scales above 9; compared as doubles, which only ever leaves out more - and
    a zero divisor (22012) go to the Python function, whose value the native one equals where
    both apply (tests/engine/test_numeric.py). Gives (whether a row is within the bounds, its
    quotient there)."""
    scale = "coalesce(TRY_CAST(regexp_extract(typeof({}), ',(\\d+)\\)$', 1) AS INTEGER), 0)"  # (constants)
    s, t = scale.format(a), scale.format(b)
    narrow = f"coalesce(TRY_CAST(regexp_extract(typeof({a}), '^DECIMAL\\((\\d+),', 1) AS INTEGER), 38) <= 18"
    m = f"greatest({s}, {t})"
    within = (f"coalesce({m} <= 9 AND abs(CAST({a} AS DOUBLE)) < pow(10, 17 - {m} - CASE WHEN {narrow} THEN {s} ELSE 0 "
              f"END) AND abs(CAST({b} AS DOUBLE)) < pow(10, 9 - {t}) AND {b} <> 0, false)")  # (abs of an INT overflows)

    def weight(x: str, scale: str) -> str:  # (of a number's first base-10000 digit; 0 for zero)
        return f"(((length(CAST({x} AS VARCHAR)) - 1 - {scale} + 40) // 4 - 10) * CAST({x} <> 0 AS INTEGER))"

    def first_digit(x: str, scale: str) -> str:
        e = f"(4 * {weight(x, scale)} + {scale})"  # (its power of ten in x, -3 to 16)
        return f"({x} // {_power(f'greatest({e}, 0)', _BIG_POWERS)} * {_power(f'greatest(-{e}, 0)')})"

    def scaled(v: str, scale: str) -> str:  # (|v| 10^scale, a BIGINT; an integer made one first: INTEGER * INTEGER
        return (f"CASE WHEN typeof({v}) LIKE 'DECIMAL%' THEN CAST(abs({v}) * {_power(scale)} AS BIGINT) "  # overflows)
                f"ELSE abs(CAST({v} AS BIGINT)) * {_power(scale)} END")

    operands = {"x": scaled(a, m), "y": scaled(b, t)}
    x, y = operands["x"], operands["y"]
    qweight = (f"({weight(x, m)} - {weight(y, t)} - "
               f"CAST({first_digit(x, m)} <= {first_digit(y, t)} AS INTEGER))")
    operands["r"] = f"least({numeric.RESULT_SCALE}, greatest({numeric.MIN_SIG_DIGITS} - 4 * {qweight}, {s}, {t}))"
    operands["shift"] = f"{m} - {t}"
    operands["sign"] = f"CASE WHEN ({a} < 0) <> ({b} < 0) THEN -1 ELSE 1 END"
    # the quotient's r - (M - t) digits in chunks of k1, k2, k3 (9, 9, 2 at most); q0 its integer
    # part; mN remainders
    x, y, r, shift = (f"struct_extract(txl_q, '{field}')" for field in ("x", "y", "r", "shift"))
    digits = f"({r} - {shift})"
    k1, k2, k3 = f"least({digits}, 9)", f"least(greatest({digits} - 9, 0), 9)", f"greatest({digits} - 18, 0)"
    q0, m0 = f"({x} // {y})", f"({x} % {y})"
    c1, m1 = f"({m0} * {_power(k1)} // {y})", f"({m0} * {_power(k1)} % {y})"
    c2, m2 = f"({m1} * {_power(k2)} // {y})", f"({m1} * {_power(k2)} % {y})"
    c3, m3 = f"({m2} * {_power(k3)} // {y})", f"({m2} * {_power(k3)} % {y})"
    rounded = (f"(CAST({q0} AS HUGEINT) * {_power(k1)} * {_power(k2)} * {_power(k3)} + "
               f"CAST({c1} AS HUGEINT) * {_power(k2)} * {_power(k3)} + {c2} * {_power(k3)} + {c3} + "
               f"CAST(2 * {m3} >= {y} AS INTEGER))")
    value = f"CAST({rounded} * struct_extract(txl_q, 'sign') AS DECIMAL(38,0)) * {_FRACTIONS}[{r} + 1]"
    return within, _bind(operands, "txl_q", value)


def _native_quotient(a: str, b: str) -> str:
    """PostgreSQL's numeric ``a / b``: ``_integer_quotient``'s where its bounds hold, else the
    Python function's (DuckDB evaluates a CASE branch on the rows that take it only)."""
    within, value = _integer_quotient(a, b)
    return (f"CASE WHEN {a} IS NULL OR {b} IS NULL THEN NULL WHEN {within} THEN {value} "
            f"ELSE {_numeric_call('quotient', a, b)} END")


# the logarithms of a double outside their domain are errors (2201E), not NaN or infinity
_LOG = ("CASE WHEN x = 0 THEN error('cannot take logarithm of zero') "
        "WHEN x < 0 THEN error('cannot take logarithm of a negative number') ELSE {}(x) END")
_POWER = ("CASE WHEN {x} = 0 AND {y} < 0 THEN error('zero raised to a negative power is undefined') "
          "WHEN {x} < 0 AND {y} <> floor({y}) THEN "
          "error('a negative number raised to a non-integer power yields a complex result') ELSE power({x}, {y}) END")

#: the macro checking a value of an enum (engine/user_types.py)
ENUM_VALUE_MACRO = "__txl_enum_value"

#: quote_ident's rule: a name is left bare when it is lower-case and no keyword PostgreSQL
#: reserves (DuckDB's grammar is PostgreSQL's: so are its keyword categories - but for the
#: SQL-value functions, which PostgreSQL reserves and DuckDB does not: quote_ident('user') is "user"),
#: else quoted
_BARE_NAME = "[a-z_][a-z0-9_$]*"
_VALUE_FUNCTIONS = ("user", "current_user", "session_user", "system_user", "current_role", "current_catalog",
                    "current_schema", "current_date", "current_time", "current_timestamp", "localtime",
                    "localtimestamp")
_RESERVED_WORDS = ("SELECT keyword_name FROM duckdb_keywords() WHERE keyword_category <> 'unreserved' "
                   f"UNION ALL SELECT unnest({list(_VALUE_FUNCTIONS)})")


def quote_ident(name: str) -> str:
    """``name`` as the quote_ident macro writes it (for text built in Python: catalog lookups)."""
    if re.fullmatch(_BARE_NAME, name) and name not in _reserved_words():
        return name
    return '"' + name.replace('"', '""') + '"'


@cache
def _reserved_words() -> frozenset[str]:
    return frozenset(r[0] for r in duckdb.sql(_RESERVED_WORDS).fetchall())


# macros, which DuckDB keeps in the database: made once for all its connections
# sum() of intervals, as PostgreSQL's: each part summed on its own (1 mon + 30 days is 1 mon 30
# days), 22008 past a part's range (DuckDB has no sum of intervals); of the parts' sums
# (INTERVAL_PARTS' macros: of another type's value NULL, so that a window's part sums, made for
# any argument, bind), and avg() that sum divided by the count as PostgreSQL divides
# (INTERVAL_DIVIDE: engine/intervals.py; DuckDB's avg differed in the last microsecond)
INTERVAL_DIVIDE = "txl_interval_divide"


def _interval_of_sums(months: str, days: str, micros: str) -> str:
    return (f"CASE WHEN {months} NOT BETWEEN -2147483648 AND 2147483647 "
            f"OR {days} NOT BETWEEN -2147483648 AND 2147483647 "
            f"OR {micros} NOT BETWEEN -9223372036854775808 AND 9223372036854775807 "
            f"THEN CAST(error('{intervals.OUT_OF_RANGE}') AS INTERVAL) "
            f"ELSE to_months(CAST({months} AS INTEGER)) + to_days(CAST({days} AS INTEGER)) "
            f"+ to_microseconds(CAST({micros} AS BIGINT)) END")


_INTERVAL_PART_VALUES = ("datepart('year', x) * 12 + datepart('month', x)", "datepart('day', x)",
                         "datepart('hour', x) * 3600000000 + datepart('minute', x) * 60000000 "
                         "+ datepart('microseconds', x)")
_INTERVAL_SUM = _interval_of_sums(*(f"sum({part}(x))" for part in INTERVAL_PARTS))
_WINDOW_INTERVAL_SUM = _interval_of_sums("m", "d", "u")
MACROS = (
    # PostgreSQL's tid (parser/system_columns.py): read from its text '(block,offset)', and written so
    f"CREATE MACRO {TID_IN}(s) AS CASE WHEN s IS NULL THEN NULL ELSE list_transform("
    r"[regexp_extract(CAST(s AS VARCHAR), '^\s*\(\s*(\d{1,10})\s*,\s*(\d{1,10})\s*\)\s*$', ['b', 'o'])], "
    "lambda m: CASE WHEN m.b = '' THEN error('invalid input syntax for type tid: \"' || CAST(s AS VARCHAR) || '\"') "
    "ELSE struct_pack(tid_block := CAST(m.b AS BIGINT), tid_offset := CAST(m.o AS BIGINT)) END)[1] END",
    f"CREATE MACRO {TID_OUT}(t) AS '(' || t.tid_block || ',' || t.tid_offset || ')'",
    # a value of an enum (engine/user_types.py): given its labels and name, NULL or one of them
    f"CREATE MACRO {ENUM_VALUE_MACRO}(v, labels, name) AS CASE WHEN v IS NULL OR "
    "list_contains(labels, CAST(v AS VARCHAR)) THEN CAST(v AS VARCHAR) ELSE "
    "error('invalid input value for enum ' || name || ': \"' || CAST(v AS VARCHAR) || '\"') END",
    # x / 0 and x % 0 raise 22012 (the parser routes divisors that are not literals through this);
    # given the dividend (a column), not when it is NULL: PostgreSQL's division is strict
    f"CREATE MACRO {DIVISOR_MACRO}(x) AS CASE WHEN x = 0 THEN error('division by zero') ELSE x END, "
    "(x, dividend) AS CASE WHEN x = 0 AND dividend IS NOT NULL THEN error('division by zero') ELSE x END",
    # a / b: an interval's as PostgreSQL's interval_div (INTERVAL_DIVIDE), a numeric's and an
    # integer's as PostgreSQL's numeric division (a numeric, exact: parser/numeric.py), anything
    # else's by the operator as set
    f'CREATE MACRO {DIVIDE_MACRO}(a INTERVAL, b, x, y) AS {INTERVAL_DIVIDE}(a, b), ' +
    _by_operand_types("quotient", "a / b", _native_quotient("a", "b")),
    # sqrt, exp, ln, log (base 10) and power of a numeric as PostgreSQL's (exact numerics), of the
    # rest a double's; arguments outside the domain are errors (2201F, 2201E), not NaN or infinity.
    # The forms without the witnesses: a double's (an aggregate's argument, a parameter)
    *(f"CREATE MACRO {macro}(x) AS {double}, " + _by_operand_type(name, double) for macro, name, double in (
        (SQRT_MACRO, "sqrt", "CASE WHEN x < 0 THEN error('cannot take square root of a negative number') "
                             "ELSE sqrt(x) END"),
        (EXP_MACRO, "exp", "exp(x)"), (LN_MACRO, "ln", _LOG.format("ln")),
        (LOG10_MACRO, "log10", _LOG.format("log10")))),
    # round(x) of a double or a real half to even (PostgreSQL's rint); round(x [, n]) of an integer
    # a numeric's (round(numeric, int) is what PostgreSQL picks; a scale of 9 leaves room for n
    # places), of the rest DuckDB's
    f"CREATE MACRO {ROUND_MACRO}(x, w DOUBLE) AS round_even(x, 0), (x, w FLOAT) AS round_even(x, 0), "
    "(x, w DECIMAL) AS round(x), " + "".join(f"(x, w {t}) AS round(CAST(x AS DECIMAL(38,0))), " for t in _INTEGERS)
    + "".join(f"(x, n, w {t}) AS round(CAST(x AS DECIMAL(38,9)), n), " for t in _INTEGERS)
    + "(x, n, w) AS round(x, n), (x, w) AS round(x)",
    f"CREATE MACRO {POWER_MACRO}(x, y) AS {_POWER.format(x='x', y='y')}, " +
    _by_operand_types("power", _POWER.format(x="a", y="b")),
    # substring(s, start, length) as PostgreSQL's: a start before 1 counts from the first
    # character (DuckDB's from the end), a negative length is an error (22011)
    f"CREATE MACRO {SUBSTRING_MACRO}(s, f, n) AS CASE WHEN n < 0 THEN "
    "error('negative substring length not allowed') "
    "ELSE substring(s, greatest(f, 1), greatest(f + n - greatest(f, 1), 0)) END",
    f"CREATE MACRO {SUBSTRING_FROM_MACRO}(s, f) AS substring(s, greatest(f, 1))",
    # extract(epoch FROM x) as PostgreSQL's numeric: a date's seconds whole, the rest's (a
    # timestamp's, a time's, an interval's) with their microseconds
    # (an interval's: its years of 365.25 days, other months of 30, days of 24 hours, as
    # PostgreSQL's interval_part - DuckDB's year was 360 days)
    f"CREATE MACRO {EPOCH_MACRO}(x DATE) AS CAST(epoch(x) AS DECIMAL(38,0)), "
    f"(x INTERVAL) AS CAST({_INTERVAL_PART_VALUES[2]} AS DECIMAL(38,0)) * CAST(0.000001 AS DECIMAL(7,6)) "
    "+ CAST(datepart('year', x) * 31557600 + datepart('month', x) * 2592000 + datepart('day', x) * 86400 "
    "AS DECIMAL(38,0)), "
    "(x) AS CAST(epoch_us(x) AS DECIMAL(38,0)) * CAST(0.000001 AS DECIMAL(7,6))",
    # a DOUBLE PRECISION or REAL r = a + b (a - b) or a * b: infinite from finite operands is an
    # overflow, a product 0 from non-zero ones an underflow (22003), as PostgreSQL's float8pl,
    # float8mul; of other types r as it is. The form is picked by w, r again, so that a NUMERIC
    # r is not cast (a form taking it as DECIMAL would cast it to DECIMAL(18,3))
    *(f"CREATE MACRO {name}(r, w DOUBLE, a, b) AS {check}, (r, w FLOAT, a, b) AS {check}, " + ", ".join(
        f"(r, w {t}, a, b) AS r" for t in ("SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "DECIMAL")) +
      ", (r, w, a, b) AS r"
      for name, check in (
          # (the usual value is told first: the other branches see only the rows left)
          (FLOAT_SUM_MACRO, "CASE WHEN NOT isinf(r) THEN r WHEN NOT isinf(a) AND NOT isinf(b) THEN "
                            "error('value out of range: overflow') ELSE r END"),
          (FLOAT_PRODUCT_MACRO, "CASE WHEN r <> 0 AND NOT isinf(r) THEN r "
                                "WHEN isinf(r) AND NOT isinf(a) AND NOT isinf(b) THEN "
                                "error('value out of range: overflow') WHEN r = 0 AND a <> 0 AND b <> 0 THEN "
                                "error('value out of range: underflow') ELSE r END"))),
    # PostgreSQL functions DuckDB does not have
    "CREATE MACRO btrim(s) AS trim(s), (s, c) AS trim(s, c)",
    "CREATE MACRO every(x) AS bool_and(x)",
    # pg_typeof() names types as PostgreSQL does (DuckDB's said double, varchar, decimal(38,9))
    "CREATE MACRO pg_typeof(x) AS CASE typeof(x) " + " ".join(
        f"WHEN '{duck}' THEN '{pg}'" for duck, pg in (
            ("INTEGER", "integer"), ("BIGINT", "bigint"), ("SMALLINT", "smallint"), ("DOUBLE", "double precision"),
            ("FLOAT", "real"), ("VARCHAR", "text"), ("BOOLEAN", "boolean"), ("DATE", "date"), ("BLOB", "bytea"),
            ("TIMESTAMP", "timestamp without time zone"), ("TIMESTAMP WITH TIME ZONE", "timestamp with time zone"),
            ("TIME", "time without time zone"), ("INTERVAL", "interval"), ("UUID", "uuid"), ("\"NULL\"", "unknown"))) +
    " ELSE CASE WHEN typeof(x) LIKE 'DECIMAL%' THEN 'numeric' ELSE lower(typeof(x)) END END",
    # div(y, x): the integer quotient, truncated toward zero (integers divide so here)
    f"CREATE MACRO div(y, x) AS trunc(y / {DIVISOR_MACRO}(x, y))",
    f"CREATE MACRO quote_ident(s) AS CASE WHEN regexp_full_match(s, '{_BARE_NAME}') AND s NOT IN "
    f"({_RESERVED_WORDS}) THEN s ELSE '\"' || replace(s, '\"', '\"\"') || '\"' END",
    "CREATE MACRO quote_literal(s) AS chr(39) || replace(CAST(s AS VARCHAR), chr(39), chr(39) || chr(39)) || chr(39)",
    "CREATE MACRO quote_nullable(s) AS coalesce(quote_literal(s), 'NULL')",
    # split_part() as PostgreSQL's: field 0 is an error, an empty delimiter leaves the string whole
    f"CREATE MACRO {SPLIT_PART_MACRO}(s, d, n) AS CASE WHEN n = 0 THEN error('field position must not be zero') "
    "WHEN d = '' THEN CASE WHEN n IN (1, -1) THEN s ELSE '' END ELSE split_part(s, d, n) END",
    # a value as bytea, as PostgreSQL's cast and assignment take it: text by byteain (BYTEA_IN),
    # a bytea as it is (both branches bind: the text one casts a bytea to text, never run)
    f"CREATE MACRO {BYTEA_MACRO}(x) AS CASE WHEN typeof(x) = 'BLOB' THEN CAST(x AS BLOB) "
    f"ELSE {BYTEA_IN}(CAST(x AS VARCHAR)) END",
    # a value as real: one a double holds but a float4 does not is 22003, as PostgreSQL's
    # (DuckDB's cast of text made it Infinity or 0; of a number it fails already)
    f"CREATE MACRO {REAL_MACRO}(x) AS CASE "
    "WHEN isinf(CAST(x AS REAL)) AND NOT isinf(CAST(x AS DOUBLE)) THEN error('value out of range: overflow') "
    "WHEN CAST(x AS REAL) = 0 AND CAST(x AS DOUBLE) <> 0 THEN error('value out of range: underflow') "
    "ELSE CAST(x AS REAL) END",
    # a condition that must be boolean (parser/semantics.py BOOLEAN_CONTEXTS): the value itself
    # once bound (the optimizer drops the dead branch), but binding it calls a function that
    # takes only a BOOLEAN, so that anything else fails there - at once, rows or none - naming
    # its type (engine/errors_map.py makes that PostgreSQL's 42804)
    *(f"CREATE MACRO {BOOLEAN_CHECK}{key}(x) AS CASE WHEN false THEN {BOOLEAN_FUNCTION}{key}(x) ELSE x END"
      for key in BOOLEAN_CONTEXTS),
    # a parameter of a bytea form: None (DuckDB's NULL type) as a NULL text, else as it is
    f'CREATE MACRO {UNKNOWN_AS_TEXT}(x "NULL") AS CAST(x AS VARCHAR), (x) AS x',
    # length(): a bytea's bytes, else DuckDB's (text, bit, list) - a NULL or a ? of None text's -
    # an integer, as PostgreSQL's (DuckDB's is a bigint)
    f"CREATE MACRO {LENGTH_MACRO}(x BLOB) AS CAST({BYTEA_LENGTH}(x) AS INTEGER), "
    "(x VARCHAR) AS CAST(length(x) AS INTEGER), (x) AS CAST(length(x) AS INTEGER)",
    # sum() and avg() typed as PostgreSQL's (parser/semantics.py SUM_MACRO, AVG_MACRO): the sum of
    # smallint or integer a bigint, of bigint a numeric, of real a real, of double precision and
    # numeric as DuckDB's (DuckDB's is a HUGEINT for every integer, a DOUBLE for a real) - a macro
    # picks its form by its argument's type. A real cannot be told from a numeric so (a numeric
    # would take a real's form, cast): the first form passes the rest on with the argument
    # twice, once to sum and once to be told by (a numeric takes the DOUBLE form, the cheaper
    # cast, whose sum is of the argument as it is). DuckDB binds a macro's body when it is made:
    # the second macro is first made with one form, then given its three
    *(f"CREATE MACRO {part}(x INTERVAL) AS CAST({value} AS BIGINT), (x) AS CAST(NULL AS BIGINT)"
      for part, value in zip(INTERVAL_PARTS, _INTERVAL_PART_VALUES)),
    f"CREATE MACRO {SUM_MACRO}_of(x, w) AS sum(x)",
    f"CREATE MACRO {SUM_MACRO}(x SMALLINT) AS CAST(sum(x) AS BIGINT), (x INTEGER) AS CAST(sum(x) AS BIGINT), "
    f"(x BIGINT) AS CAST(sum(x) AS DECIMAL(38,0)), (x HUGEINT) AS CAST(sum(x) AS DECIMAL(38,0)), "
    f"(x INTERVAL) AS {_INTERVAL_SUM}, (x) AS {SUM_MACRO}_of(x, x)",
    f"CREATE OR REPLACE MACRO {SUM_MACRO}_of(x, w FLOAT) AS CAST(sum(x) AS FLOAT), (x, w DOUBLE) AS sum(x), "
    "(x, w) AS sum(x)",
    # as window functions: of the window's DuckDB sum (s), count (n) and avg (a), and its sums of
    # an interval's parts (m, d, u), by the type of the argument (x), which is not evaluated
    # (DuckDB takes no macro of an aggregate nested in another expression as a window function)
    f"CREATE MACRO {WINDOW_SUM_MACRO}(s, x SMALLINT, m, d, u) AS CAST(s AS BIGINT), "
    "(s, x INTEGER, m, d, u) AS CAST(s AS BIGINT), (s, x BIGINT, m, d, u) AS CAST(s AS DECIMAL(38,0)), "
    "(s, x HUGEINT, m, d, u) AS CAST(s AS DECIMAL(38,0)), "
    # (a numeric takes the DOUBLE form, the cheaper cast, not the FLOAT one: its sum as it is)
    "(s, x FLOAT, m, d, u) AS CAST(s AS FLOAT), (s, x DOUBLE, m, d, u) AS s, "
    f"(s, x INTERVAL, m, d, u) AS {_WINDOW_INTERVAL_SUM}, (s, x, m, d, u) AS s",
    # avg() of integers and of numerics: a numeric, exactly - PostgreSQL's division of the sum by
    # the count, rounded (half away from zero) at the scale it gives the quotient, 16 significant
    # digits or the sum's scale if more (select_div_scale: from the first base-10000 digits of
    # both), here at most 20 decimals; the type holds it as DECIMAL(38,20). The first digit and
    # weight are read off the text of the absolute value (t): exact for any integer or decimal.
    # Of other types: DuckDB's (double precision)
    "CREATE MACRO txl_num_scale(t) AS CASE WHEN contains(t, '.') THEN length(t) - strpos(t, '.') ELSE 0 END",
    "CREATE MACRO txl_num_digits(t) AS ltrim(replace(t, '.', ''), '0')",
    "CREATE MACRO txl_nbase_weight(t) AS CASE WHEN txl_num_digits(t) = '' THEN 0 ELSE "
    "CAST(floor((length(txl_num_digits(t)) - 1 - txl_num_scale(t)) / 4.0) AS INTEGER) END",
    "CREATE MACRO txl_nbase_lead(t) AS CAST(length(txl_num_digits(t)) - txl_num_scale(t) - 4 * txl_nbase_weight(t) "
    "AS INTEGER)",
    "CREATE MACRO txl_nbase_first(t) AS CASE WHEN txl_num_digits(t) = '' THEN 0 ELSE "
    "CAST(rpad(left(txl_num_digits(t), txl_nbase_lead(t)), txl_nbase_lead(t), '0') AS INTEGER) END",
    "CREATE MACRO txl_quotient_scale(t, n) AS least(greatest(16 - 4 * (txl_nbase_weight(t) - txl_nbase_weight(n) - "
    "CASE WHEN txl_nbase_first(t) <= txl_nbase_first(n) THEN 1 ELSE 0 END), txl_num_scale(t), 0), 20)",
    # |s| / n (s: its digits si, its scale k) times 10^20, rounded at r decimals
    "CREATE MACRO txl_scaled_quotient(si, n, r) AS si // n * CAST(10 ** 20 AS HUGEINT) + "
    "(si % n * CAST(10 ** r AS HUGEINT) * 2 + n) // (2 * n) * CAST(10 ** (20 - r) AS HUGEINT)",
    "CREATE MACRO txl_quotient_of(t, negative, n) AS CAST(txl_scaled_quotient(CAST(replace(t, '.', '') AS HUGEINT), "
    "n * CAST(10 ** txl_num_scale(t) AS HUGEINT), txl_quotient_scale(t, CAST(n AS VARCHAR))) "
    "* CASE WHEN negative THEN -1 ELSE 1 END AS DECIMAL(38,0)) * CAST(0.00000000000000000001 AS DECIMAL(21,20))",
    "CREATE MACRO txl_quotient(s, n) AS CASE WHEN n = 0 THEN NULL ELSE "
    "txl_quotient_of(CAST(abs(s) AS VARCHAR), s < 0, CAST(n AS HUGEINT)) END",
    # (a NUMERIC is told by a second argument, w: a form taking x DECIMAL would cast it to
    # DECIMAL(18,3), rounding its scale and refusing more digits)
    f"CREATE MACRO {AVG_MACRO}_of(x, w DECIMAL) AS txl_quotient(sum(x), count(x)), (x, w) AS avg(x)",
    f"CREATE MACRO {AVG_MACRO}(" + ", (".join(
        f"x {t}) AS txl_quotient(sum(x), count(x))" for t in ("SMALLINT", "INTEGER", "BIGINT")) +
    f", (x INTERVAL) AS {INTERVAL_DIVIDE}({_INTERVAL_SUM}, count(x)), (x) AS {AVG_MACRO}_of(x, x)",
    f"CREATE MACRO {WINDOW_AVG_MACRO}(" + ", (".join(
        f"s, n, a, x {t}, m, d, u) AS txl_quotient(s, n)" for t in ("SMALLINT", "INTEGER", "BIGINT", "DECIMAL")) +
    f", (s, n, a, x INTERVAL, m, d, u) AS {INTERVAL_DIVIDE}({_WINDOW_INTERVAL_SUM}, n), (s, n, a, x, m, d, u) AS a",
    # percentile_cont's value: PostgreSQL's percentile_cont takes a double precision (or an
    # interval: refused); of another type (a timestamp, text) no function exists (42883)
    f"CREATE MACRO {PERCENTILE_VALUE}(x DOUBLE) AS x, "
    f"(x INTERVAL) AS CAST(error('{PERCENTILE_REFUSED}') AS DOUBLE)",
    # text as boolean, as PostgreSQL's boolin reads it (parser/semantics.py BOOLEAN_WORDS); any
    # other type cast as DuckDB does
    f"CREATE MACRO {BOOLEAN_MACRO}(x VARCHAR) AS CASE WHEN x IS NULL THEN NULL " + " ".join(
        f"WHEN lower(trim(x)) IN ({', '.join(repr(w) for w, b in BOOLEAN_WORDS.items() if b is value)}) THEN {value}"
        for value in (True, False)) +
    " ELSE error('invalid input syntax for type boolean: \"' || x || '\"') END, (x) AS CAST(x AS BOOLEAN)",
    # x LIKE ANY / ALL of an array known at run time, of its LIKEs r (parser/semantics.py LIKE_ANY)
    f"CREATE MACRO {LIKE_ANY}(r) AS CASE WHEN r IS NULL THEN NULL WHEN len(r) = 0 THEN false "
    "WHEN list_bool_or(r) THEN true WHEN list_count(r) < len(r) THEN NULL ELSE false END",
    f"CREATE MACRO {LIKE_ALL}(r) AS CASE WHEN r IS NULL THEN NULL WHEN len(r) = 0 THEN true "
    "WHEN NOT list_bool_and(r) THEN false WHEN list_count(r) < len(r) THEN NULL ELSE true END",
    # (s1, e1) OVERLAPS (s2, e2) as PostgreSQL's overlaps() (timestamp.c): a period's end is a
    # point of its start's type or an interval from it (a date is a timestamp); its ends in order,
    # one NULL end the other, both NULL no period. Of other types no function exists (42883)
    # (made untyped first: a macro's body is bound when it is made, and its calls of these would match every form)
    f"CREATE MACRO {OVERLAPS_MACRO}_end(s, e) AS NULL",
    f"CREATE MACRO {OVERLAPS_MACRO}_period(s, e) AS false",
    f"CREATE MACRO {OVERLAPS_MACRO}_last(s, e) AS CASE WHEN s IS NOT NULL AND e IS NOT NULL THEN greatest(s, e) END",
    # (of periods in order, ends NULL or not: PostgreSQL's cases, NULL where they leave it unknown)
    f"CREATE MACRO {OVERLAPS_MACRO}_ordered(s1, e1, s2, e2) AS CASE WHEN s1 IS NULL OR s2 IS NULL THEN NULL "
    "WHEN s1 > s2 THEN CASE WHEN e2 IS NULL THEN NULL WHEN s1 < e2 THEN true WHEN e1 IS NULL THEN NULL ELSE false END "
    "WHEN s1 < s2 THEN CASE WHEN e1 IS NULL THEN NULL WHEN s2 < e1 THEN true WHEN e2 IS NULL THEN NULL ELSE false END "
    "WHEN e1 IS NULL OR e2 IS NULL THEN NULL ELSE true END",
    f"CREATE MACRO {OVERLAPS_MACRO}(s1, e1, s2, e2) AS CASE WHEN NOT ({OVERLAPS_MACRO}_period(s1, e1) AND "
    f"{OVERLAPS_MACRO}_period(s2, e2)) THEN error('function overlaps(' || pg_typeof(s1) || ', ' || pg_typeof(e1) || "
    "', ' || pg_typeof(s2) || ', ' || pg_typeof(e2) || ') does not exist') "
    f"ELSE {OVERLAPS_MACRO}_ordered("
    f"least(s1, {OVERLAPS_MACRO}_end(s1, e1)), {OVERLAPS_MACRO}_last(s1, {OVERLAPS_MACRO}_end(s1, e1)), "
    f"least(s2, {OVERLAPS_MACRO}_end(s2, e2)), {OVERLAPS_MACRO}_last(s2, {OVERLAPS_MACRO}_end(s2, e2))) END",
    *(f"CREATE OR REPLACE MACRO {OVERLAPS_MACRO}_{name}" + "".join(
        f"(s {t}, e INTERVAL) AS {interval}, (s {t}, e {t}) AS {point}, " for t in _PERIOD_TYPES) + f"(s, e) AS {other}"
      for name, interval, point, other in (("end", "s + e", "e", "NULL"), ("period", "true", "true", "false"))),
    # text as an integer type, as PostgreSQL 16's input reads it (parser/semantics.py INTEGER_MACRO):
    # decimal by DuckDB's cast; hexadecimal, octal and binary, signed, with underscores, by their
    # decimal text (INTEGER_TEXT: DuckDB's cast reads no octal, no sign or space around the others)
    *(f"CREATE MACRO {INTEGER_MACRO}_{name}(x VARCHAR) AS CASE WHEN x IS NULL THEN NULL "
      f"WHEN regexp_full_match(x, '{_DECIMAL_INPUT}') THEN CAST(x AS {t}) "
      f"WHEN regexp_full_match(x, '{INTEGER_INPUT}') THEN CAST({INTEGER_TEXT}(x) AS {t}) "
      f"ELSE error('invalid input syntax for type {name}: \"' || x || '\"') END, (x) AS CAST(x AS {t})"
      for t, name in (("SMALLINT", "smallint"), ("INTEGER", "integer"), ("BIGINT", "bigint"))),
)


# PostgreSQL's text of a value (TEXT_MACRO(x, w), w being x again: its type picks the form, and
# it is never evaluated). A double and a real by their shortest digits, as DuckDB's, but 1 not
# 1.0, NaN, Infinity, and in exponent form from 10^15 (a real's from 10^6) where PostgreSQL
# switches (DuckDB: 10^16). Every type a double's form would otherwise take by an implicit
# cast (integers, numerics, ...) has a form of its own: DuckDB's text of it
def _float_text(exponent_from: str) -> str:
    return ("CASE WHEN isnan(x) THEN 'NaN' WHEN isinf(x) THEN CASE WHEN x > 0 THEN 'Infinity' ELSE '-Infinity' END "
            f"WHEN abs(x) >= {exponent_from} AND NOT contains(CAST(x AS VARCHAR), 'e') THEN "
            f"{TEXT_MACRO}_exponent(CAST(x AS VARCHAR)) ELSE regexp_replace(CAST(x AS VARCHAR), '\\.0$', '') END")


_AS_DUCKDB_TEXT = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER",
                   "UBIGINT", "UHUGEINT", "DECIMAL", "VARCHAR", "BOOLEAN", "DATE", "TIME", "TIMESTAMP", "TIMESTAMPTZ",
                   "UUID")
# PostgreSQL's arrays have up to MAXDIM dimensions; txlake's multidimensional ones are DuckDB's
# lists of lists, one type for each number of dimensions (INTEGER[][] holds {{1,2},{3,4}})
MAX_DIMENSIONS = 6


def _array_text(element: str, dimensions: int, x: str = "x") -> str:
    """array_out's text of ``x``, an array of ``element`` of ``dimensions`` dimensions: its
    elements (or sub-arrays) in braces, NULL as NULL."""
    if dimensions == 0:
        return f"CASE WHEN {x} THEN 't' ELSE 'f' END" if element == "BOOLEAN" else \
            f"{TEXT_MACRO}_item({TEXT_MACRO}_scalar({x}, {x}))"
    e = f"e{dimensions}"
    return (f"'{{' || array_to_string(list_transform({x}, lambda {e}: CASE WHEN {e} IS NULL THEN 'NULL' "
            f"ELSE {_array_text(element, dimensions - 1, e)} END), ',') || '}}'")


# an interval's text by PostgreSQL's output (engine/pg_text.py): DuckDB's said "-1 year -1 month", and
# "-1 day 02:00:00" for PostgreSQL's "-1 days +02:00:00"
INTERVAL_TEXT = "txl_interval_text"
# text as an interval by PostgreSQL's input (parser/interval_input.py: 'P1Y2M', '-1 days +02:00:00',
# '1.5 years', which DuckDB's cast refuses or reads otherwise); and any value into an interval
# column, as its stored text (storage/schema.py): text by that input, an interval as it is -
# INTERVAL_VALUE(x, fields, precision) for a column of an ``interval day to second(3)`` type,
# cut to its fields (INTERVAL_FIT), text read with them ('5' into an interval hour: five hours)
INTERVAL_IN, INTERVAL_VALUE = "txl_interval_in", "txl_interval"
_SCALAR_TEXT = (f"(x, w DOUBLE) AS {_float_text('1e15')}, (x, w FLOAT) AS {_float_text('1e6')}, "
                "(x, w BLOB) AS '\\x' || lower(hex(x)), "
                f"(x, w INTERVAL) AS {INTERVAL_TEXT}(x), " +
                ", ".join(f"(x, w {t}) AS CAST(x AS VARCHAR)" for t in _AS_DUCKDB_TEXT) +
                ", (x, w) AS CAST(x AS VARCHAR)")
# the digits of s (a number's text with no exponent, at least 10) with one before the point and an exponent
_DIGITS = "rtrim(replace(ltrim(s, '-'), '.', ''), '0')"
# pg_column_size's of the fixed-size types (pg_type.typlen)
_FIXED_SIZES = {"BOOLEAN": 1, "SMALLINT": 2, "INTEGER": 4, "BIGINT": 8, "FLOAT": 4, "DOUBLE": 8, "DATE": 4, "TIME": 8,
                "TIMESTAMP": 8, "TIMESTAMPTZ": 8, "UUID": 16, "INTERVAL": 16}


def _column_size_refused(type_name: str) -> str:
    return f"CAST(error('{COLUMN_SIZE_REFUSED} ' || {type_name} || ' is not supported') AS INTEGER)"


TEXT_MACROS = (
    f"CREATE MACRO {VARLENA_SIZE}(n, s) AS CAST(n + CASE WHEN s AND n <= 126 THEN 1 ELSE 4 END AS INTEGER)",
    f"CREATE MACRO {TEXT_MACRO}_exponent(s) AS CASE WHEN starts_with(s, '-') THEN '-' ELSE '' END "
    f"|| left({_DIGITS}, 1) || CASE WHEN length({_DIGITS}) > 1 THEN '.' || substr({_DIGITS}, 2) ELSE '' END "
    "|| 'e+' || lpad(CAST(length(split_part(ltrim(s, '-'), '.', 1)) - 1 AS VARCHAR), 2, '0')",
    # an array element's text, quoted as array_out quotes it: when empty, NULL or holding
    # braces, a comma, a quote, a backslash or white space
    f"CREATE MACRO {TEXT_MACRO}_item(t) AS CASE WHEN t = '' OR lower(t) = 'null' "
    "OR regexp_matches(t, '[{}\",\\\\\\s]') "
    "THEN '\"' || replace(replace(t, '\\', '\\\\'), '\"', '\\\"') || '\"' ELSE t END",
    f"CREATE MACRO {TEXT_MACRO}_scalar{_SCALAR_TEXT}",
    # pg_column_size(x): a fixed-size type's length (typlen); a text's or a bytea's bytes and its
    # varlena header - 1 byte where it is stored (s: a table's column) and they fit a short one
    # (126 bytes), else 4 (uncompressed: PostgreSQL compresses the values of a row wider than
    # about 2 kB); a numeric's header and base-10000 digits; other types refused
    f"CREATE MACRO {COLUMN_SIZE_MACRO}" + ", ".join(
        f"(x, s, w {t}) AS CASE WHEN x IS NOT NULL THEN {n} END" for t, n in _FIXED_SIZES.items()) +
    # (an enum's is 4 bytes, its OID; json and jsonb are one type here - jsonb's binary size unknown)
    ", (x, s, w VARCHAR) AS CASE WHEN typeof(x) = 'JSON' THEN " + _column_size_refused("'json'") + " "
    "WHEN starts_with(typeof(x), 'ENUM') THEN CASE WHEN x IS NOT NULL THEN 4 END "
    f"ELSE {VARLENA_SIZE}(strlen(CAST(x AS VARCHAR)), s) END, "
    f"(x, s, w BLOB) AS {VARLENA_SIZE}(octet_length(x), s), "
    f"(x, s, w DECIMAL) AS {VARLENA_SIZE}({NUMERIC_SIZE}(CAST(x AS VARCHAR)), s), "
    "(x, s, w) AS " + _column_size_refused("typeof(w)"),
    # a value as PostgreSQL's to_json writes it (datum_to_json): a timestamp in ISO 8601, an
    # interval or a bytea as its text; a date as it is (it would take the timestamp's form)
    f"CREATE MACRO {JSON_VALUE_MACRO}(x, w INTERVAL) AS CAST(to_json({INTERVAL_TEXT}(x)) AS JSON), "
    "(x, w BLOB) AS CAST(to_json('\\x' || lower(hex(x))) AS JSON), "
    "(x, w TIMESTAMP) AS CAST(to_json(rtrim(rtrim(strftime(x, '%Y-%m-%dT%H:%M:%S.%f'), '0'), '.')) AS JSON), "
    "(x, w DATE) AS x, "
    # (a numeric's text, marked: JSON_NUMBERS; the integer types' forms first, or they would take it)
    + "".join(f"(x, w {t}) AS x, " for t in ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT",
                                              "USMALLINT", "UINTEGER", "UBIGINT")) +
    f"(x, w DECIMAL) AS CAST('\"{NUMERIC_MARK}' || CAST(x AS VARCHAR) || '\"' AS JSON), (x, w) AS x",
    f"CREATE MACRO {JSON_NUMBERS}(j) AS CASE WHEN contains(CAST(j AS VARCHAR), '{NUMERIC_MARK}') THEN CAST("
    f"regexp_replace(CAST(j AS VARCHAR), '\"{NUMERIC_MARK}(-?[0-9]+(?:\\.[0-9]+)?)\"', '\\1', 'g') AS JSON) "
    "ELSE j END",
    # a cast to time: an interval's time of day (interval_time: its microseconds modulo a day, a
    # negative one from the day's end), as PostgreSQL casts an interval to time
    f"CREATE MACRO {TIME_MACRO}(x, w INTERVAL) AS TIME '00:00:00' + to_microseconds(CAST((({_INTERVAL_PART_VALUES[2]}) "
    "% 86400000000 + 86400000000) % 86400000000 AS BIGINT)), "
    # (a timestamptz's time in the session's TimeZone: DuckDB had no such cast either)
    "(x, w TIMESTAMPTZ) AS CAST(CAST(x AS TIMESTAMP) AS TIME), (x, w) AS CAST(x AS TIME)",
    f"CREATE MACRO {INTERVAL_MACRO}(x VARCHAR) AS {INTERVAL_IN}(x), (x) AS CAST(x AS INTERVAL)",
    f"CREATE MACRO {INTERVAL_MACRO}_fields(x VARCHAR, f) AS {INTERVAL_IN}_fields(x, f), (x, f) AS CAST(x AS INTERVAL)",
    f"CREATE MACRO {INTERVAL_VALUE}(x) AS {INTERVAL_TEXT}({INTERVAL_MACRO}(x)), "
    f"(x, f, p) AS {INTERVAL_TEXT}({INTERVAL_FIT}({INTERVAL_MACRO}_fields(x, f), f, p))",
    # a record's field, as record_out writes it: nothing for NULL, quoted when empty or holding
    # parentheses, a comma, a quote, a backslash or white space (quotes and backslashes doubled)
    f"CREATE MACRO {json_ops.RECORD_FIELD}(t) AS CASE WHEN t IS NULL THEN '' WHEN t = '' "
    "OR regexp_matches(t, '[(),\"\\\\\\s]') "
    "THEN '\"' || replace(replace(t, '\\', '\\\\'), '\"', '\"\"') || '\"' ELSE t END",
    # arrays: of booleans t and f (array_out writes elements by their type's output: boolout's,
    # where boolean's text cast gives true); of the rest, each element's text, quoted if need be;
    # a multidimensional one's sub-arrays in braces, {{1,2},{3,4}}
    f"CREATE MACRO {TEXT_MACRO}" + ", ".join(
        f"(x, w {t}{'[]' * d}) AS {_array_text(t, d)}" for d in range(1, MAX_DIMENSIONS + 1)
        for t in ("BOOLEAN", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "FLOAT", "DOUBLE", "DECIMAL", "VARCHAR",
                  "BLOB", "DATE", "TIME", "TIMESTAMP", "TIMESTAMPTZ", "INTERVAL", "UUID")) + f", {_SCALAR_TEXT}",
)


# the element types an array || element, element || array appends or prepends as PostgreSQL's
# (a DECIMAL's would be made DECIMAL(38,9): its arrays take array_append / array_prepend)
_ELEMENT_TYPES = ("BOOLEAN", "SMALLINT", "INTEGER", "BIGINT", "FLOAT", "DOUBLE", "VARCHAR", "BLOB", "DATE", "TIME",
                  "TIMESTAMP", "TIMESTAMPTZ")


def _elements_as() -> str:
    """The forms of ``ELEMENTS_AS(x, a)``: text a (or a list of text) as an array of x's type, its
    elements read as a cast of the text to the type reads it (``array_cast``); a numeric's as
    DECIMAL(38,9), an unconstrained numeric's; a uuid's by its input forms; for x of any other
    type parsed, the elements text."""
    forms = []
    for t in _ELEMENT_TYPES + ("DECIMAL", "UUID"):
        to = exp.DataType.build(("DECIMAL(38,9)" if t == "DECIMAL" else t) + "[]", dialect="duckdb")
        body = array_cast(exp.column("a"), to).sql(dialect="duckdb")
        forms += [f"(x {t}, a VARCHAR) AS {body}", f"(x {t}, a VARCHAR[]) AS {body}"]
    return ", ".join(forms) + f", (x, a) AS {ARRAY_MACRO}(a)"


# the types a multidimensional array's witness is taken as, each standing for those DuckDB casts to
# it (DOUBLE for the numbers, TIMESTAMP for a date too: a form per type would cost each database
# its setup time, for no other answer); an array of another type (a struct's) is taken as
# one-dimensional
_NESTED_ELEMENTS = ("BOOLEAN", "DOUBLE", "VARCHAR", "BLOB", "TIME", "TIMESTAMP", "TIMESTAMPTZ", "INTERVAL", "UUID")
# the element types of a subscript's NULL (ARRAY_ELEMENT), as they are
_ELEMENT_RESULTS = ("BOOLEAN", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "FLOAT", "DOUBLE", "DECIMAL", "VARCHAR",
                    "BLOB", "DATE", "TIME", "TIMESTAMP", "TIMESTAMPTZ", "INTERVAL", "UUID")


def _by_dimensions(name: str, nested, flat: str, params: str = "a", least: int = 2,
                   types: tuple[str, ...] = _NESTED_ELEMENTS) -> str:
    """``nested_form(name)(params, w)``, of an array a and of w, the array again (parser/semantics.py
    ``_by_dimensions``) as a witness of its type: DuckDB's binder picks the form of its number of
    dimensions d (from ``least``), ``nested(d, element type)``, so that a one-dimensional array's
    is ``flat`` - the expression of ``name(params)``, its plan unchanged."""
    forms = [f"({params}, w {t}{'[]' * d}) AS {nested(d, t)}" for d in range(least, MAX_DIMENSIONS + 1)
             for t in types]
    return f"CREATE MACRO {nested_form(name)}" + ", ".join(forms) + f", ({params}, w) AS {flat}"


def _flattened(a: str, d: int) -> str:
    """The elements of ``a``, an array of d dimensions, in storage order."""
    return a if d == 1 else f"flatten({_flattened(a, d - 1)})"


def _shape(d: int, a: str = "a", skip: int = 0) -> str:
    """The lengths of the dimensions of ``a``, an array of d dimensions (it is rectangular), but
    its first ``skip``."""
    return "CAST([" + ", ".join(f"len({a}{'[1]' * k})" for k in range(skip, d)) + "] AS INTEGER[])"


def _concatenations() -> list[str]:
    """The forms of ``ARRAY_CAT(a, b, a, b)`` (array_cat, an array's ||) of a multidimensional array,
    as PostgreSQL's array_cat: of arrays of d dimensions the sub-arrays of both, of one of d and
    one of d - 1 the smaller as a new sub-array at its end (or start) - 2202E where the sub-arrays'
    dimensions differ; an empty (or NULL) one leaves the other."""
    incompatible = "error('cannot concatenate incompatible arrays')"
    forms = []
    for t in _NESTED_ELEMENTS:
        for d in range(2, MAX_DIMENSIONS + 1):
            more, less = t + "[]" * d, t + "[]" * (d - 1)
            forms.append(f"(a, b, wa {more}, wb {more}) AS CASE WHEN a IS NULL OR len(a) = 0 THEN b "
                         f"WHEN b IS NULL OR len(b) = 0 THEN a WHEN {_shape(d, 'a', 1)} <> {_shape(d, 'b', 1)} "
                         f"THEN {incompatible} ELSE list_concat(a, b) END")
            for x, y, joined, witnesses in (("a", "b", "list_append(a, b)", f"wa {more}, wb {less}"),
                                            ("b", "a", "list_prepend(a, b)", f"wa {less}, wb {more}")):
                forms.append(f"(a, b, {witnesses}) AS CASE WHEN {y} IS NULL OR len({y}) = 0 THEN {x} "
                             f"WHEN {x} IS NULL OR len({x}) = 0 THEN error('concatenating an empty multidimensional "
                             "array and an array of fewer dimensions is not supported') "
                             f"WHEN {_shape(d, x, 1)} <> {_shape(d - 1, y)} THEN {incompatible} ELSE {joined} END")
    return forms


def _rectangular(d: int) -> str:
    """An array of d dimensions as it is, 2202E where its sub-arrays' lengths differ (DuckDB's lists
    of lists need not be rectangular; PostgreSQL's arrays are)."""
    ragged = " OR ".join(f"len(list_distinct(list_transform({_flattened('a', k)}, lambda x: len(x)))) > 1"
                         for k in range(1, d))
    return (f"CASE WHEN {ragged} THEN "
            "error('multidimensional arrays must have array expressions with matching dimensions') ELSE a END")


def _accumulated(d: int) -> str:
    """array_agg's array of arrays, ``a``, of d dimensions, as it is - but refused as PostgreSQL's
    accumArrayResultArr refuses it: of a NULL array (22004), of an empty one first, or of arrays
    of different shapes - an empty one after others too (2202E; DuckDB's lists of lists need not
    be rectangular)."""
    return ("CASE WHEN list_contains(list_transform(a, lambda x: x IS NULL), true) THEN "
            "error('cannot accumulate null arrays') WHEN len(a[1]) = 0 THEN error('cannot accumulate empty arrays') "
            "WHEN list_contains(list_transform(a, lambda x: len(x) = 0), true) "
            f"OR len(list_distinct(list_transform(a, lambda x: {_shape(d - 1, 'x')}))) > 1 "
            "THEN error('cannot accumulate arrays of different dimensionality') ELSE a END")


def _replaced(d: int, a: str = "a") -> str:
    """``a``, an array of d dimensions, its elements not distinct from x replaced by y."""
    e = f"e{d}"
    inner = f"CASE WHEN {e} IS NOT DISTINCT FROM x THEN y ELSE {e} END" if d == 1 else _replaced(d - 1, e)
    return f"list_transform({a}, lambda {e}: {inner})"


def _subscripts(dimensions: int, reverse: str = "false") -> str:
    """generate_subscripts(a, d [, r])'s rows, of an array of ``dimensions`` dimensions: 1 to the
    length of its dimension d (from it down to 1 for r), none for another dimension."""
    length = f"{_shape(dimensions)}[d]"
    return (f"CASE WHEN d BETWEEN 1 AND {dimensions} AND len(a) > 0 AND {reverse} THEN "
            f"CAST(range({length}, 0, -1) AS INTEGER[]) WHEN d BETWEEN 1 AND {dimensions} AND len(a) > 0 "
            f"AND {reverse} IS NOT NULL THEN CAST(range(1, {length} + 1) AS INTEGER[]) "
            f"WHEN d IS NOT NULL AND {reverse} IS NOT NULL THEN CAST([] AS INTEGER[]) END")


_ONE_DIMENSION_LENGTH = "CASE WHEN d = 1 AND len(a) > 0 THEN CAST(len(a) AS INTEGER) END"
_ONE_DIMENSION_LOWER = "CASE WHEN d = 1 AND len(a) > 0 THEN 1 END"
_ONE_DIMENSION_NDIMS = "CASE WHEN len(a) > 0 THEN 1 END"
_ONE_DIMENSION_DIMS = "CASE WHEN len(a) > 0 THEN '[1:' || len(a) || ']' END"
# the array functions of arrays that may have several dimensions (PostgreSQL's, which look through
# dimensions to the elements), their forms picked by the array's type (parser/semantics.py
# nested_form): ARRAY_ELEMENTS the elements in storage order, ARRAY_RECTANGULAR a built array
# checked, the dimensions' functions... A database creates them at its first statement that calls
# one (engine/duck.py: their hundreds of forms take DuckDB a second to bind)
NESTED_ARRAY_MACROS = (
    _by_dimensions(ARRAY_ELEMENTS, lambda d, t: _flattened("a", d), "a"),
    _by_dimensions(ARRAY_RECTANGULAR, lambda d, t: _rectangular(d), "a"),
    _by_dimensions(ARRAY_ACCUMULATED, lambda d, t: _accumulated(d), "a"),
    # (a function PostgreSQL refuses of a multidimensional array: m, at run time, where it is not
    # NULL - its elements, to bind the function by)
    _by_dimensions(ARRAY_ONE_DIMENSIONAL, lambda d, t: f"CASE WHEN a IS NOT NULL THEN error(m) ELSE "
                   f"{_flattened('a', d)} END", "a", "a, m"),
    # (a subscript of fewer subscripts than the array's dimensions is NULL, as PostgreSQL's)
    _by_dimensions(ARRAY_ELEMENT, lambda d, t: f"CAST(NULL AS {t})", "a", least=1, types=_ELEMENT_RESULTS),
    _by_dimensions("cardinality", lambda d, t: f"CAST(len({_flattened('a', d)}) AS INTEGER)",
                   "CAST(len(a) AS INTEGER)"),
    _by_dimensions("array_ndims", lambda d, t: f"CASE WHEN len(a) > 0 THEN {d} END", _ONE_DIMENSION_NDIMS),
    _by_dimensions("array_dims", lambda d, t: f"CASE WHEN len(a) > 0 THEN '[1:' || array_to_string({_shape(d)}, "
                   "'][1:') || ']' END", _ONE_DIMENSION_DIMS),
    _by_dimensions(ARRAY_LENGTH, lambda d, t: f"CASE WHEN len(a) > 0 AND d BETWEEN 1 AND {d} THEN {_shape(d)}[d] END",
                   _ONE_DIMENSION_LENGTH, "a, d"),
    # (arrays start at 1: the upper bound is the length)
    _by_dimensions("array_upper", lambda d, t: f"CASE WHEN len(a) > 0 AND d BETWEEN 1 AND {d} THEN {_shape(d)}[d] END",
                   _ONE_DIMENSION_LENGTH, "a, d"),
    _by_dimensions("array_lower", lambda d, t: f"CASE WHEN len(a) > 0 AND d BETWEEN 1 AND {d} THEN 1 END",
                   _ONE_DIMENSION_LOWER, "a, d"),
    # (array_replace keeps the dimensions)
    _by_dimensions("array_replace", lambda d, t: _replaced(d), _replaced(1), "a, x, y"),
    f"CREATE MACRO {ARRAY_CAT}" + ", ".join(_concatenations()) + ", (a, b, wa, wb) AS list_concat(a, b)",
    # (array || element too, as ARRAY_CONCAT)
    f"CREATE MACRO {nested_form(ARRAY_CONCAT)}" + ", ".join(
        f"(a, b, wa {t}[], wb {t}) AS list_append(a, b), (a, b, wa {t}, wb {t}[]) AS list_prepend(a, b)"
        for t in _ELEMENT_TYPES) + ", " + ", ".join(_concatenations()) + ", (a, b, wa, wb) AS a || b",
    # (of a multidimensional array: its dimension d's)
    f"CREATE MACRO {nested_form(SUBSCRIPTS)}" + ", ".join(
        f"(a, d, w {t}{'[]' * n}) AS {_subscripts(n)}, (a, d, r, w {t}{'[]' * n}) AS {_subscripts(n, 'r')}"
        for n in range(2, MAX_DIMENSIONS + 1) for t in _NESTED_ELEMENTS)
    + f", (a, d, w) AS {_subscripts(1)}, (a, d, r, w) AS {_subscripts(1, 'r')}",
)


# arrays as PostgreSQL's (parser/semantics.py: one-dimensional, from 1, NULL outside them)
ARRAY_MACROS = (
    # text as a list of its elements' text, by PostgreSQL's array input; a list as it is
    f"CREATE MACRO {ARRAY_MACRO}(x VARCHAR) AS {ARRAY_PARSE}(x), (x) AS x",
    f"CREATE MACRO {ARRAY_INDEX}(i) AS CASE WHEN i >= 1 THEN i END",
    f"CREATE MACRO {ARRAY_LOWER}(i) AS CASE WHEN i < 1 THEN 1 ELSE i END",
    f"CREATE MACRO {ARRAY_UPPER}(i) AS CASE WHEN i < 0 THEN 0 ELSE i END",
    f"CREATE MACRO array_ndims(a) AS {_ONE_DIMENSION_NDIMS}",
    f"CREATE MACRO array_dims(a) AS {_ONE_DIMENSION_DIMS}",
    "CREATE MACRO cardinality(a) AS CAST(len(a) AS INTEGER)",
    f"CREATE MACRO {ARRAY_LENGTH}(a, d) AS {_ONE_DIMENSION_LENGTH}",
    f"CREATE MACRO array_upper(a, d) AS {_ONE_DIMENSION_LENGTH}",  # (arrays start at 1: the upper bound is the length)
    f"CREATE MACRO array_lower(a, d) AS {_ONE_DIMENSION_LOWER}",
    f"CREATE MACRO array_replace(a, x, y) AS {_replaced(1)}",
    # trim_array (PostgreSQL 14): the array without its last n elements (of its first dimension)
    "CREATE MACRO trim_array(a, n) AS CASE WHEN n < 0 OR n > len(a) THEN "
    "error('number of elements to trim must be between 0 and ' || len(a)) ELSE a[1:len(a) - n] END",
    "CREATE MACRO array_positions(a, x) AS "
    "CAST(list_filter(range(1, len(a) + 1), lambda i: a[i] IS NOT DISTINCT FROM x) AS INTEGER[])",
    f"CREATE MACRO {ARRAY_CONCAT}" + ", ".join(f"(a {t}[], b {t}) AS list_append(a, b), (a {t}, b {t}[]) AS "
                                                f"list_prepend(a, b)" for t in _ELEMENT_TYPES) + ", (a, b) AS a || b",
    # (a DECIMAL array's: as doubles)
    f"CREATE MACRO {ARRAY_AS}" + ", ".join(f"(a {t}[], b) AS CAST(b AS {t}[])" for t in _ELEMENT_TYPES) +
    ", (a, b) AS b",
    f"CREATE MACRO {ELEMENTS_AS}{_elements_as()}",
    f"CREATE MACRO {QUANTIFIED}(a) AS coalesce(a, [NULL])",
    # (PostgreSQL makes a[0] = v an array from 0; txlake's start at 1)
    f"CREATE MACRO {ARRAY_SET}(a, i, v) AS CASE WHEN i IS NULL THEN "
    "error('array subscript in assignment must not be null') WHEN i < 1 THEN error('array subscript out of range') "
    # (past PostgreSQL's MaxArraySize: DuckDB would begin to build it)
    "WHEN i > 134217727 THEN error('array size exceeds the maximum allowed (134217727)') "
    "ELSE list_concat(list_concat(list_resize(coalesce(a, []), i - 1), [v]), coalesce(a, [])[i + 1:]) END",
    f"CREATE MACRO {STRING_TO_ARRAY}_of(s, d) AS CASE WHEN s = '' THEN CAST([] AS VARCHAR[]) "
    "WHEN d IS NULL THEN string_split(s, '') WHEN d = '' THEN [s] ELSE string_split(s, d) END",
    f"CREATE MACRO {STRING_TO_ARRAY}(s, d) AS {STRING_TO_ARRAY}_of(s, d), "
    f"(s, d, n) AS list_transform({STRING_TO_ARRAY}_of(s, d), lambda e: CASE WHEN e = n THEN NULL ELSE e END)",
    f"CREATE MACRO {SUBSCRIPTS}(a, d) AS CASE WHEN d = 1 THEN CAST(range(1, len(a) + 1) AS INTEGER[]) "
    "WHEN d IS NOT NULL THEN CAST([] AS INTEGER[]) END, "
    "(a, d, r) AS CASE WHEN d = 1 AND r THEN CAST(range(len(a), 0, -1) AS INTEGER[]) WHEN d = 1 AND NOT r "
    "THEN CAST(range(1, len(a) + 1) AS INTEGER[]) WHEN d IS NOT NULL AND r IS NOT NULL THEN CAST([] AS INTEGER[]) END",
)


# generate_series() as PostgreSQL types it (parser/semantics.py SERIES_ROWS): each form its own
# argument types. Integers by DuckDB's function, whose BIGINTs are cast back to the arguments'
# type (a SMALLINT takes the INTEGER form, as in PostgreSQL); timestamps by it as they are; any
# other type - a numeric - as a + s i for i = 0, 1, ... while it has not passed b. A step of 0
# is PostgreSQL's 22023 (DuckDB's "interval cannot be 0!")
_SERIES_INTEGERS = (("SMALLINT", "INTEGER"), ("INTEGER", "INTEGER"), ("BIGINT", "BIGINT"))


def _step(s: str, zero: str = "0") -> str:
    return f"CASE WHEN {s} = {zero} THEN error('step size cannot equal zero') ELSE {s} END"


def _numeric_series(s: str) -> tuple[str, str]:
    """The count of i to try and the condition of a + s i, for a numeric series of step s."""
    count = f"greatest(CAST(floor(CAST(b - a AS DOUBLE) / CAST({_step(s)} AS DOUBLE)) AS BIGINT) + 2, 0)"
    return count, f"CASE WHEN {s} > 0 THEN v <= b ELSE v >= b END"


def _series_forms(native, numeric) -> str:
    """The forms of a generate_series macro: ``native(arguments, type)`` the body of one DuckDB's
    own function computes (of integers, cast to ``type``; of timestamps, ``type`` None: as it
    is), ``numeric(s, count, condition)`` the body of a numeric one of step ``s``."""
    forms = []
    for t, result in _SERIES_INTEGERS:
        forms.append(f"(a {t}, b {t}) AS {native('a, b', result)}")
        forms.append(f"(a {t}, b {t}, s {t}) AS {native('a, b, ' + _step('s'), result)}")
    for t in ("TIMESTAMP", "TIMESTAMP WITH TIME ZONE"):
        forms.append(f"(a {t}, b {t}, s INTERVAL) AS {native('a, b, ' + _step('s', 'INTERVAL 0 SECONDS'), None)}")
    for params, s in (("a, b, s", "s"), ("a, b", "1")):
        forms.append(f"({params}) AS {numeric(s, *_numeric_series(s))}")
    return ", ".join(forms)


def _series_rows(numbered: bool) -> str:
    """The forms of the table macro (``numbered``: with an ``ordinality`` column)."""
    ordinality, numbering = (", ordinality", " WITH ORDINALITY") if numbered else ("", "")
    number = ", i + 1 AS ordinality" if numbered else ""

    def native(arguments: str, cast: str | None) -> str:
        value = f"CAST(generate_series AS {cast})" if cast else "generate_series"
        return (f"TABLE (SELECT {value} AS generate_series{ordinality} "
                f"FROM generate_series({arguments}){numbering})")

    def numeric(s: str, count: str, condition: str) -> str:
        return (f"TABLE (SELECT v AS generate_series{number} "
                f"FROM (SELECT i, a + {s} * i AS v FROM range(0, {count}) AS r(i)) WHERE {condition})")
    return _series_forms(native, numeric)


def _series_list() -> str:
    """The forms of the macro of a select list's series: its values as a list, to be unnested."""
    return _series_forms(
        lambda arguments, cast: f"CAST(generate_series({arguments}) AS {cast}[])" if cast else
        f"generate_series({arguments})",
        lambda s, count, condition: f"list_filter(list_transform(range(0, {count}), lambda i: a + {s} * i), "
                                    f"lambda v: {condition})")


SERIES_MACROS = (
    f"CREATE MACRO {SERIES_ROWS}{_series_rows(numbered=False)}",
    f"CREATE MACRO {SERIES_NUMBERED}{_series_rows(numbered=True)}",
    f"CREATE MACRO {SERIES_LIST}{_series_list()}",
)

# width_bucket(): of numerics (engine/buckets.py's numeric function) where an operand is a
# numeric and none a double or real, as PostgreSQL resolves the call, else of doubles (integers
# too: PostgreSQL's float8 form is the preferred one); of an operand and a sorted array of
# thresholds, the number of thresholds at or below it, found by array.c's binary search (an unsorted
# array gives what PostgreSQL's gives)
def _typed_as(types: str, *values: str) -> str:
    return " OR ".join(f"typeof({v}) {types}" for v in values)


_BUCKET_OPERANDS = ("x", "low", "high")
_NUMERIC, _FLOAT = "LIKE 'DECIMAL%'", "IN ('DOUBLE', 'FLOAT')"
_NUMERIC_BUCKETS = f"({_typed_as(_NUMERIC, *_BUCKET_OPERANDS)}) AND NOT ({_typed_as(_FLOAT, *_BUCKET_OPERANDS)})"
_THRESHOLD_SEARCH = (
    "list_reduce(range(CAST(ceil(log2(len(t) + 1)) AS BIGINT) + 1), lambda lr, i: CASE WHEN lr[1] >= lr[2] THEN lr "
    "WHEN x < t[(lr[1] + lr[2]) // 2 + 1] THEN [lr[1], (lr[1] + lr[2]) // 2] "
    "ELSE [(lr[1] + lr[2]) // 2 + 1, lr[2]] END, [0, len(t)])[1]")
BUCKET_MACROS = (
    "CREATE MACRO width_bucket(x, low, high, n) AS CASE "
    f"WHEN {_NUMERIC_BUCKETS} THEN txl_width_bucket_numeric("
    + ", ".join(f"CAST({v} AS VARCHAR)" for v in _BUCKET_OPERANDS) + ", CAST(n AS INTEGER)) "
    "ELSE txl_width_bucket_float8(" + ", ".join(f"CAST({v} AS DOUBLE)" for v in _BUCKET_OPERANDS)
    + ", CAST(n AS INTEGER)) END, "
    f"(x, t) AS CASE WHEN x IS NULL OR t IS NULL THEN NULL "
    f"WHEN list_contains(list_transform(t, lambda e: e IS NULL), true) THEN error('{buckets.NULL_THRESHOLD}') "
    f"ELSE CAST({_THRESHOLD_SEARCH} AS INTEGER) END",
)


# to_char of a number (parser/semantics.py TO_CHAR_MACRO): formatting.c's function of the
# PostgreSQL type a DuckDB type holds (parser/number_format.py), called with the value as
# that function takes it - a numeric as its text, which keeps its scale; of a date, a timestamp,
# a timestamp with time zone (in the session's TimeZone) or an interval parser/date_format.py's; of
# anything else DuckDB's strftime of the pattern as parser/semantics.py translated it
NUMBER_CHAR_FUNCTION, DATE_CHAR_FUNCTION = "txl_number_char_", "txl_date_char"
_NUMBER_CHAR = {"numeric": (lambda text, fmt: number_format.numeric_text(Decimal(text), fmt), "VARCHAR"),
                "int8": (number_format.int8_text, "BIGINT"), "int4": (number_format.int4_text, "INTEGER"),
                "float8": (number_format.float8_text, "DOUBLE"), "float4": (number_format.float4_text, "FLOAT")}
_NUMBER_KINDS = (("DECIMAL", "numeric"), ("HUGEINT", "numeric"), ("UBIGINT", "numeric"), ("BIGINT", "int8"),
                 ("UINTEGER", "int8"), ("INTEGER", "int4"), ("USMALLINT", "int4"), ("SMALLINT", "int4"),
                 ("UTINYINT", "int4"), ("TINYINT", "int4"), ("DOUBLE", "float8"), ("FLOAT", "float4"))
TO_CHAR_MACROS = (
    f"CREATE MACRO {TO_CHAR_MACRO}" + "".join(
        f"(x, s, e, p, w {t}) AS {NUMBER_CHAR_FUNCTION}{kind}(CAST(x AS {_NUMBER_CHAR[kind][1]}), p), "
        for t, kind in _NUMBER_KINDS)
    + f"(x, s, e, p, w DATE) AS {DATE_CHAR_FUNCTION}(CAST(x AS TIMESTAMP), p), "
    f"(x, s, e, p, w TIMESTAMP) AS {DATE_CHAR_FUNCTION}(x, p), "
    f"(x, s, e, p, w TIMESTAMPTZ) AS {DATE_CHAR_FUNCTION}tz(x, p, current_setting('TimeZone')), "
    f"(x, s, e, p, w INTERVAL) AS {DATE_CHAR_FUNCTION}_interval(x, p), "
    "(x, s, e, p, w) AS CASE WHEN e IS NULL THEN strftime(x, s) ELSE error(e) END",
)


def postgres_semantics(con) -> None:
    """Set up a new DuckDB database through its first connection (``con``): the functions the
    macros call (``_FUNCTIONS``, the database's like the macros), then ``SESSION_SETUP`` and
    ``MACROS``."""
    for name, function, params, returns in _FUNCTIONS + bytea_functions.FUNCTIONS + network.FUNCTIONS:
        vectorized = function if returns == numeric.RESULT_TYPE else \
            arrow_functions.of_rows(function, len(params), _ARROW_TYPES[returns])
        con.create_function(name, vectorized, [duckdb.sqltype(p) for p in params],
                            duckdb.sqltype(returns), type="arrow", side_effects=False)
    for name, (function, operand_type) in buckets.FUNCTIONS.items():
        con.create_function(name, function, [duckdb.sqltype(operand_type)] * 3 + [duckdb.sqltype("INTEGER")],
                            duckdb.sqltype("INTEGER"), type="arrow", side_effects=False)
    for name, (function, params, returns) in regexp_functions.FUNCTIONS.items():
        con.create_function(name, function, [duckdb.sqltype(p) for p in params], duckdb.sqltype(returns),
                            type="arrow", null_handling="special", side_effects=False)
    for statement in (SESSION_SETUP + MACROS + TEXT_MACROS + ARRAY_MACROS + SERIES_MACROS + TO_CHAR_MACROS
                      + BUCKET_MACROS + regexp_functions.MACROS + SIZE_MACROS + SERVER_MACROS + bytea_functions.MACROS):
        con.execute(statement)
    jsonb.register(con)
    jsonpath.register(con)


def session_semantics(con) -> None:
    """Set up another connection to a database ``postgres_semantics`` set up."""
    for statement in SESSION_SETUP:
        con.execute(statement)


class ByteaInputError(ValueError):
    """Text that is no bytea in PostgreSQL's formats (engine/errors_map.py: 22P02 or 22023)."""


_HEX = frozenset("0123456789abcdefABCDEF")


def bytea_in(text: str) -> bytes:
    """PostgreSQL's ``byteain``: ``\\x`` and hex digit pairs (whitespace between pairs), else
    the escape format (``escape_in``)."""
    if not text.startswith("\\x"):
        return escape_in(text)
    digits = "".join(text[2:].split())
    bad = next((c for c in digits if c not in _HEX), None)
    if bad is not None:
        raise ByteaInputError(f'invalid hexadecimal digit: "{bad}"')
    if len(digits) % 2:
        raise ByteaInputError("invalid hexadecimal data: odd number of digits")
    return bytes.fromhex(digits)


def escape_in(text: str) -> bytes:
    """The escape format (``decode(s, 'escape')``): ``\\\\`` is a backslash, ``\\ooo`` the byte
    of octal ooo, any other character its UTF-8 bytes."""
    if "\\" not in text:
        return text.encode()
    out, i = bytearray(), 0
    while i < len(text):
        c = text[i]
        if c != "\\":
            out += c.encode()
            i += 1
        elif text[i + 1:i + 2] == "\\":
            out.append(0x5C)
            i += 2
        elif len(text) >= i + 4 and text[i + 1] in "0123" and all(d in "01234567" for d in text[i + 2:i + 4]):
            out.append(int(text[i + 1:i + 4], 8))
            i += 4
        else:
            raise ByteaInputError("invalid input syntax for type bytea")
    return bytes(out)


def escape_out(data: bytes) -> str:
    """``encode(b, 'escape')``: a zero byte and bytes with the high bit set as ``\\ooo``, a
    backslash doubled, the rest as the characters they are."""
    return "".join("\\\\" if b == 0x5C else f"\\{b:03o}" if b == 0 or b >= 0x80 else chr(b) for b in data)


_ARROW_TYPES = {"BLOB": pa.binary(), "VARCHAR": pa.string(), "BIGINT": pa.int64(), "BOOLEAN": pa.bool_(),
                "INTEGER": pa.int32(),
                "VARCHAR[]": pa.list_(pa.string()), "INTERVAL": pa.month_day_nano_interval(), "DOUBLE": pa.float64()}


# pg_size_pretty(n) of an integer or a numeric (rounded to an integer: a size of bytes)
SIZE_PRETTY_FUNCTION = "txl_size_pretty"
SIZE_MACROS = (f"CREATE MACRO pg_size_pretty(x) AS {SIZE_PRETTY_FUNCTION}(CAST(x AS BIGINT))",)
# what tools ask of the server: it is never a standby; its encoding is UTF8 (6, SQL_ASCII 0: the
# encoding names of the numbers pg_database.encoding and the like give, '' for another number,
# and back, -1 for another name); PostgreSQL's default tablespaces have no location of their own
SERVER_MACROS = ("CREATE MACRO pg_is_in_recovery() AS false",
                 "CREATE MACRO pg_encoding_to_char(e) AS CASE e WHEN 6 THEN 'UTF8' WHEN 0 THEN 'SQL_ASCII' ELSE '' END",
                 "CREATE MACRO pg_char_to_encoding(n) AS CASE WHEN upper(n) IN ('UTF8', 'UTF-8', 'UNICODE') THEN 6 "
                 "WHEN upper(n) = 'SQL_ASCII' THEN 0 ELSE -1 END",
                 "CREATE MACRO pg_tablespace_location(o) AS CASE WHEN o IS NULL THEN NULL ELSE '' END")
# pg_size_pretty's units: (name, the limit below which a size is shown in it, half-rounded?, its bits)
_SIZE_UNITS = (("bytes", 10 * 1024, False, 0), ("kB", 20 * 1024 - 1, True, 10), ("MB", 20 * 1024 - 1, True, 20),
               ("GB", 20 * 1024 - 1, True, 30), ("TB", 20 * 1024 - 1, True, 40), ("PB", 20 * 1024 - 1, True, 50))


def size_pretty(size: int) -> str:
    """PostgreSQL 16's ``pg_size_pretty(bigint)`` (dbsize.c): bytes below 10 kB, then the largest
    unit that keeps the number below 20 * 1024 - 1 (PB at most), rounded half away from zero
    (the division before it truncating toward zero, as C's)."""
    for (name, limit, rounded, bits), after in zip(_SIZE_UNITS, (*_SIZE_UNITS[1:], None)):
        if after is None or abs(size) < limit:
            if rounded:
                size = _c_division(size + (-1 if size < 0 else 1), 2)
            return f"{size} {name}"
        size = _c_division(size, 1 << (after[3] - bits - after[2] + rounded))
    raise AssertionError("unreachable")


def _c_division(a: int, b: int) -> int:
    return -(-a // b) if (a < 0) != (b < 0) else a // b


def _cube_root(x: float) -> float:
    """The double nearest the cube root of ``x``, as the C library's cbrt() PostgreSQL calls
    gives it (Python's math.cbrt, as DuckDB's cbrt, gave 3.0000000000000004 for 27): of the
    approximation and its two neighbours, the one whose cube is nearest ``x``, in exact fractions."""
    root = math.cbrt(x)
    if not math.isfinite(root) or root == 0:
        return root
    return min((math.nextafter(root, -math.inf), root, math.nextafter(root, math.inf)),
               key=lambda r: abs(Fraction(r) ** 3 - Fraction(x)))


def _number_text(text: str, fmt: str) -> str | None:
    """to_number()'s number as text (parser/semantics.py casts it to a DECIMAL)."""
    value = number_format.to_number(text, fmt)
    return None if value is None else f"{value:f}"


def _numeric_function(name: str):
    """parser/numeric.py's ``computed(name, ...)`` as a DuckDB function of Arrow arrays of the
    operands' text (NULL stays NULL), giving ``RESULT_TYPE``."""
    out_type = pa.decimal128(38, numeric.RESULT_SCALE)

    def run(*columns):
        rows = zip(*(c.to_pylist() for c in columns))
        return pa.array([None if None in row else numeric.computed(name, *map(Decimal, row)) for row in rows],
                        out_type)
    # (DuckDB counts the parameters a function names)
    return (lambda x: run(x)) if numeric.ARITY[name] == 1 else (lambda x, y: run(x, y))


def _interval_in(text: str, fields: str = "") -> tuple[int, int, int]:
    """PostgreSQL's interval input, as Arrow's interval (months, days, nanoseconds)."""
    months, days, micros = interval_input.interval_in(text, fields or None)
    return months, days, micros * 1000


def _interval_fit(value, fields: str, precision: int) -> tuple[int, int, int]:
    months, days, micros = interval_input.fit(value.months, value.days, value.nanoseconds // 1000,
                                              fields or None, precision)
    return months, days, micros * 1000


# Python functions DuckDB calls: (name, function, parameter types, return type). length()
# (LENGTH_MACRO's) and strlen() (octet_length's) of a bytea are its bytes, as PostgreSQL's
# (DuckDB's take text only)
_FUNCTIONS = (
    (BYTEA_IN, bytea_in, ["VARCHAR"], "BLOB"),
    (ESCAPE_IN, escape_in, ["VARCHAR"], "BLOB"),
    (ARRAY_PARSE, array_input, ["VARCHAR"], "VARCHAR[]"),
    (ESCAPE_OUT, escape_out, ["BLOB"], "VARCHAR"),
    (BYTEA_LENGTH, len, ["BLOB"], "BIGINT"),
    # (and under DuckDB's name, for the calls LENGTH_MACRO does not take: length(max(b)))
    ("length", len, ["BLOB"], "BIGINT"),
    ("strlen", len, ["BLOB"], "BIGINT"),
    # PostgreSQL's numeric division, sqrt and exp of numerics' text (parser/numeric.py)
    *((NUMERIC_FUNCTION + name, _numeric_function(name), ["VARCHAR"] * arity, numeric.RESULT_TYPE)
      for name, arity in numeric.ARITY.items()),
    # to_char of numbers, to_number (parser/number_format.py)
    *((NUMBER_CHAR_FUNCTION + kind, function, [param, "VARCHAR"], "VARCHAR")
      for kind, (function, param) in _NUMBER_CHAR.items()),
    (TO_NUMBER_FUNCTION, _number_text, ["VARCHAR", "VARCHAR"], "VARCHAR"),
    (DATE_CHAR_FUNCTION, date_format.of_timestamp, ["TIMESTAMP", "VARCHAR"], "VARCHAR"),
    (DATE_CHAR_FUNCTION + "tz", date_format.of_timestamptz, ["TIMESTAMPTZ", "VARCHAR", "VARCHAR"], "VARCHAR"),
    (DATE_CHAR_FUNCTION + "_interval", date_format.of_interval, ["INTERVAL", "VARCHAR"], "VARCHAR"),
    (INTEGER_TEXT, lambda text: str(integer_input(text)), ["VARCHAR"], "VARCHAR"),
    (CBRT_FUNCTION, _cube_root, ["DOUBLE"], "DOUBLE"),
    (SIZE_PRETTY_FUNCTION, size_pretty, ["BIGINT"], "VARCHAR"),
    # justify_hours, justify_days, justify_interval
    *((name, function, ["INTERVAL"], "INTERVAL") for name, function in intervals.FUNCTIONS.items()),
    (INTERVAL_DIVIDE, intervals.divide, ["INTERVAL", "DOUBLE"], "INTERVAL"),
    (NUMERIC_SIZE, numeric.stored_bytes, ["VARCHAR"], "BIGINT"),
    (INTERVAL_TEXT, lambda value: pg_text.pg_interval(*value), ["INTERVAL"], "VARCHAR"),
    (INTERVAL_IN, _interval_in, ["VARCHAR"], "INTERVAL"),
    (INTERVAL_IN + "_fields", _interval_in, ["VARCHAR", "VARCHAR"], "INTERVAL"),
    (INTERVAL_FIT, _interval_fit, ["INTERVAL", "VARCHAR", "INTEGER"], "INTERVAL"),
    # (never called: see the BOOLEAN_CHECK macros)
    *((BOOLEAN_FUNCTION + key, bool, ["BOOLEAN"], "BOOLEAN") for key in BOOLEAN_CONTEXTS),
)


def identity(con) -> None:
    """Who and what the session is, as PostgreSQL's functions say it (DuckDB's said DuckDB's:
    user duckdb, version v1.x): ``version()`` names txlake and what it runs on;
    ``current_user`` (``user``, ``session_user``, ``current_role``) is the operating system's
    user - txlake has no roles."""
    from txlake import __version__
    user = user_name()
    version = (f"txlake {__version__} (DuckDB {duckdb.__version__}, Python {platform.python_version()}) "
               f"on {platform.system().lower()} {platform.machine()}")
    for name, value in (("version", version), ("current_user", user), ("session_user", user),
                        ("current_role", user)):
        con.execute(f"CREATE MACRO {name}() AS {sql_string(value)}")  # (the database's: every connection's)


def user_name() -> str:
    """The operating system's user running the process: txlake's current_user (it has no roles)."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # (no name for the process's uid)
        return "txlake"


def sql_string(value: str) -> str:
    """``value`` as an SQL string literal."""
    return "'" + value.replace("'", "''") + "'"
