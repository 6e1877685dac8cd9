"""DuckDB's exceptions, translated to the PostgreSQL SQLSTATE a txlake user expects."""

from __future__ import annotations

import re

import duckdb
import sqlglot
from sqlglot import exp

from txlake import errors
from txlake.engine import buckets, bytea_functions, jsonpath
from txlake.parser.parse import placeholders_in_sql_order
from txlake.parser import date_format, inet_input, interval_input, number_format
from txlake.parser.semantics import (BOOLEAN_CONTEXTS, BOOLEAN_FUNCTION, COLUMN_SIZE_REFUSED, NULL_IDENTIFIER,
                                     PERCENTILE_REFUSED, PERCENTILE_VALUE, TO_CHAR_REFUSED)


# a number that does not fit its type (1000000000 for DECIMAL(10,2), '9223372036854775808' for
# BIGINT): PostgreSQL's 22003, where a string that is no number is 22P02
_NUMBER_TOO_LARGE = re.compile(r"could not cast value [-+]?[\d.]+(e[-+]?\d+)? to |"
                               r"failed to cast decimal value [-+]?[\d.]+ to type u?int|"
                               r"could not convert string ' *[-+]?\d+ *' to u?int|"
                               r"could not convert string ['\"] *[-+]?\d*\.?\d+(e[-+]?\d+)? *['\"] to decimal")


_NOT_UUID = re.compile(r"Could not convert string '(?P<text>.*)' to UUID\b", re.S)
# DuckDB's refusal of a date / time input ('1 day'::date, now() - '1 day'): PostgreSQL's is 22007
# (DuckDB's words do not tell a timestamp with time zone from one without)
_NOT_DATETIME = re.compile(r'invalid (?P<type>date|time|timestamp) field format: "(?P<text>.*)", expected format', re.S)

# DuckDB's words for a SMALLINT or REAL that does not fit -> PostgreSQL's
_SMALLINT_RANGE = re.compile(r"destination type INT16|string '.*' to INT16|overflow in \w+ of INT16", re.I)
_REAL_RANGE = re.compile(r"value \S+ can't be cast because the value is out of range for the destination type FLOAT\b",
                         re.I)


# a DECIMAL too large for an integer type (12345678901.5::int) -> PostgreSQL's words
_DECIMAL_TO_INTEGER = re.compile(r"failed to cast decimal value .* to type INT(?P<bits>16|32|64)$", re.I)
_INTEGER_NAMES = {"16": "smallint", "32": "integer", "64": "bigint"}


# DuckDB's integer overflow (``Overflow in addition of INT32 (2147483647 + 1)!``, a cast of a
# wider integer) -> PostgreSQL's ``integer out of range``; a division's names no type, its
# dividend does (the smallest value of the type, divided by -1)
_INTEGER_OVERFLOW = re.compile(r"overflow in \w+ of INT(?P<bits>16|32|64)\b|"
                               r"out of range for the destination type INT(?P<cast>16|32|64)$", re.I)
_DIVISION_OVERFLOW = re.compile(r"overflow in division of (?P<dividend>-\d+) / -1", re.I)
# text past an integer type's range: PostgreSQL's ``value "3000000000" is out of range for type integer``
_INTEGER_TEXT_RANGE = re.compile(r"could not convert string ' *(?P<value>[-+]?\d+) *' to INT(?P<bits>16|32|64)\b",
                                 re.I)
_SMALLEST = {str(-(1 << (bits - 1))): str(bits) for bits in (16, 32, 64)}


# engine/dialect.py's refusals of a multidimensional array, as PostgreSQL words them, and their SQLSTATEs
_ARRAY_REFUSALS = {"multidimensional arrays must have array expressions": "2202E",
                   "cannot concatenate incompatible arrays": "2202E",
                   "cannot accumulate arrays of different dimensionality": "2202E",
                   "cannot accumulate empty arrays": "2202E", "cannot accumulate null arrays": "22004",
                   "number of elements to trim must be between": "2202E",
                   "searching for elements in multidimensional arrays": "0A000",
                   "removing elements from multidimensional arrays": "0A000",
                   "concatenating an empty multidimensional array": "0A000",
                   "argument must be empty or one-dimensional array": "22000"}


def _range_message(message: str) -> str:
    if (found := _DECIMAL_TO_INTEGER.search(message)) is not None:
        return f"{_INTEGER_NAMES[found['bits']]} out of range"
    if (found := _INTEGER_TEXT_RANGE.search(message)) is not None:
        return f'value "{found["value"]}" is out of range for type {_INTEGER_NAMES[found["bits"]]}'
    if (found := _INTEGER_OVERFLOW.search(message)) is not None:
        return f"{_INTEGER_NAMES[found['bits'] or found['cast']]} out of range"
    if (found := _DIVISION_OVERFLOW.search(message)) is not None and found["dividend"] in _SMALLEST:
        return f"{_INTEGER_NAMES[_SMALLEST[found['dividend']]]} out of range"
    if _SMALLINT_RANGE.search(message):
        return "smallint out of range"
    if _REAL_RANGE.search(message):
        return "value out of range: overflow"
    return message


# a Python function DuckDB called failed: its exception's words
_UDF_ERROR = re.compile(r"Python exception occurred while executing the UDF: (?P<kind>\w+): (?P<message>.*)")
_MISSING_COLUMN = (re.compile(r'Referenced column "(?P<column>.+?)" (?:was )?not found'),
                   # (a FROM-less SELECT naming a column another item names: DuckDB's aliases)
                   re.compile(r'Column "(?P<column>.+?)" referenced that exists in the SELECT clause - but this '
                              r'column cannot be referenced before it is defined'),
                   re.compile(r'(?:Values list|Table) "(?P<table>.+?)" does not have a column named "(?P<column>.+?)"'))


def _column_message(message: str) -> str:
    """PostgreSQL's words for a column that is not there: ``column "x" does not exist``,
    ``column t.x does not exist`` (DuckDB speaks of a "Values list" for a table txlake
    registered as Arrow data)."""
    for pattern in _MISSING_COLUMN:
        if (found := pattern.search(message)) is not None:
            table = found.groupdict().get("table")
            return (f"column {table}.{found['column']} does not exist" if table
                    else f'column "{found["column"]}" does not exist')
    return message


_MISSING_TABLE = re.compile(r'Referenced table "(?:[^"]*\.)?(?P<table>[^".]+)" not found')
_NO_FUNCTION = re.compile(r"(?:scalar|table|aggregate|pragma) function with name \"?(?P<name>[^\s\"]+)\"? "
                          r"(?:does not exist|is not in the catalog)", re.I)  # (the latter: an extension's)
_NO_MATCH = re.compile(r"no function matches the given name and argument types '(?P<call>[^']+)'", re.I)
_AMBIGUOUS = re.compile(r'could not choose a best candidate function for the function call "(?P<call>.+)"\. ', re.I)
# DuckDB's type names in a call's text -> PostgreSQL's
_TYPE_WORDS = {"INTEGER_LITERAL": "integer", "STRING_LITERAL": "unknown", '"NULL"': "unknown", "VARCHAR": "text",
               "BLOB": "bytea",
               "DOUBLE": "double precision", "FLOAT": "real", "INTEGER": "integer", "BIGINT": "bigint",
               "BOOLEAN": "boolean", "TIMESTAMP": "timestamp without time zone",
               "TIMESTAMP WITH TIME ZONE": "timestamp with time zone", "INTERVAL": "interval", "DATE": "date",
               "SMALLINT": "smallint", "TIME": "time without time zone", "UUID": "uuid"}
_HINT = "HINT:  No function matches the given name and argument types. You might need to add explicit type casts."
_AMBIGUOUS_HINT = "HINT:  Could not choose a best candidate function. You might need to add explicit type casts."


def _function_message(message: str) -> str | None:
    """PostgreSQL's words for a function that is not there (``function f(integer) does not
    exist`` and its hint), or None if ``message`` is not about one."""
    if (found := _NO_FUNCTION.search(message)) is not None:
        return f"function {found['name']} does not exist\n{_HINT}"
    if (found := _NO_MATCH.search(message)) is not None:
        return f"function {_call_words(found['call'])} does not exist\n{_HINT}"
    return None


def _call_words(call: str) -> str:
    """DuckDB's ``f(INTEGER_LITERAL, "NULL", DECIMAL(2,1))`` as PostgreSQL's ``f(integer,
    unknown, numeric)``: the arguments split at the commas outside a type's parentheses."""
    name, _, args = call.partition("(")
    name = bytea_functions.SHOWN_NAMES.get(name, name)
    args = args[:-1] if args.endswith(")") else args
    words = [_type_word(t) for t in _ARGUMENT_COMMA.split(args) if t.strip()]
    return f"{name}({', '.join(words)})"


_ARGUMENT_COMMA = re.compile(r",(?![^()]*\))")  # (not DECIMAL(2,1)'s)


# a condition that is no boolean (engine/dialect.py's BOOLEAN_CHECK macros): the function its
# binding called, and the type DuckDB found
_NOT_BOOLEAN = re.compile(rf"argument types '{BOOLEAN_FUNCTION}(?P<context>\w+)\((?P<type>.*)\)'")


def _type_word(duck: str) -> str:
    """PostgreSQL's name of DuckDB's type ``duck``."""
    duck = duck.strip()
    return _TYPE_WORDS.get(duck, "numeric" if duck.startswith("DECIMAL") or duck == "HUGEINT" else duck.lower())


_MISSING_TYPE = re.compile(r"Type with name (?P<name>.+) does not exist!?")
_DOMAIN_ERRORS = (("negative substring length", "22011"), ("square root of a negative", "2201F"),
                  ("negative power", "2201F"), ("complex result", "2201F"), ("logarithm of", "2201E"),
                  ("null value not allowed for object key", "22004"),  # (json_object_agg's)
                  (NULL_IDENTIFIER.lower(), "22004"),  # (format('%I', NULL): parser/semantics.py's)
                  ("interval out of range", "22008"),  # (engine/intervals.py's)
                  *((words, "2201G") for words in buckets.WIDTH_BUCKET_ERRORS), ("integer out of range", "22003"),
                  (buckets.NULL_THRESHOLD.lower(), "22004"),  # (a macro's: its words lower-cased)
                  ("invalid regular expression: ", "2201B"),  # (engine/regexp_functions.py's)
                  ("value too long for type character", "22001"))  # (parser/json_ops.py's)


# DuckDB binder errors (their words, lower case) -> PostgreSQL's SQLSTATE and message
_BINDER_WORDS = (
    ("where clause cannot contain aggregates", "42803", "aggregate functions are not allowed in WHERE"),
    ("where clause cannot contain window functions", "42P20", "window functions are not allowed in WHERE"),
    ("aggregate function calls cannot be nested", "42803", "aggregate function calls cannot be nested"),
    ("* expression without from clause", "42601", "SELECT * with no tables specified is not valid"),
    ("order by non-integer literal has no effect", "42601", "non-integer constant in ORDER BY"),
    # (x = ANY (5): parser/semantics.py's QUANTIFIED macro makes a NULL array [NULL], by coalesce)
    ('and "null"[] in coalesce', "42809", "op ANY/ALL (array) requires array on right side"),
)


# a WITH RECURSIVE item that reads itself but is no UNION [ALL] of a non-recursive and a recursive
# part: DuckDB's words (PostgreSQL's 42P19, parse_cte.c)
_CIRCULAR_CTE = re.compile(r'Circular reference to CTE "(?P<name>[^"]+)"')

# jsonb's path functions (#-, jsonb_set, jsonb_insert) given an array position that is no integer
_NOT_AN_INTEGER = re.compile(r'path element at position \d+ is not an integer: ')
_JSON_REFUSALS = ("unsupported Unicode escape sequence", "stack depth limit exceeded")


def json_input_error(message: str) -> errors.Error:
    """json / jsonb input's refusal (engine/jsonb.py's JsonInputError), raised in Python or in
    a function DuckDB called: jsonb's U+0000 22P05, nesting too deep 54001, else 22P02."""
    if message.startswith(_JSON_REFUSALS[0]):
        return errors.DataError(message, sqlstate="22P05")
    if message.startswith(_JSON_REFUSALS[1]):
        return errors.OperationalError(message, sqlstate="54001")
    return errors.InvalidTextRepresentation(message)


# a SQLSTATE's class (others: a DataError, or for class 42 a ProgrammingError, carrying it)
_SQLSTATE_CLASSES = {"42601": errors.SyntaxError, "22P02": errors.InvalidTextRepresentation,
                     "0A000": errors.NotSupportedError, "22012": errors.DivisionByZero,
                     "22003": errors.NumericValueOutOfRange, "22007": errors.InvalidDatetimeFormat,
                     "22008": errors.DatetimeFieldOverflow}


def by_sqlstate(sqlstate: str, message: str) -> errors.Error:
    """The error of ``sqlstate`` (engine/jsonpath.py's and parser/number_format.py's and
    date_format.py's, raised in a function DuckDB called, by their class)."""
    if sqlstate in _SQLSTATE_CLASSES:
        return _SQLSTATE_CLASSES[sqlstate](message)
    return (errors.ProgrammingError if sqlstate.startswith("42") else errors.DataError)(message, sqlstate=sqlstate)


def translate(e: duckdb.Error) -> errors.Error:
    message = str(e).split("\n")[0]
    for prefix in ("Binder Error: ", "Catalog Error: ", "Conversion Error: ", "Parser Error: ",
                   "Invalid Input Error: ", "Out of Range Error: ", "Permission Error: ",
                   "Not implemented Error: "):
        message = message.removeprefix(prefix)
    text = message.lower()
    if isinstance(e, duckdb.ParserException):
        return errors.SyntaxError(message)
    if isinstance(e, duckdb.ConversionException):
        if ("date" in text or "time" in text) and "field value out of range" in text:  # (timestamp too)
            return errors.DatetimeFieldOverflow(message)
        if text.startswith("date out of range"):  # make_date(2024, 2, 30)
            return errors.DatetimeFieldOverflow(message)
        if "out of range" in text or "overflow" in text or _NUMBER_TOO_LARGE.match(text):
            return errors.NumericValueOutOfRange(_range_message(message))
        if text.startswith("unimplemented type for cast"):  # a DATE for an INT, say
            return errors.ProgrammingError(message, sqlstate="42804")
        if (found := _NOT_DATETIME.match(message)) is not None:
            return errors.InvalidDatetimeFormat(f'invalid input syntax for type {found["type"]}: "{found["text"]}"')
        if (found := _NOT_UUID.match(message)) is not None:
            return errors.InvalidTextRepresentation(f'invalid input syntax for type uuid: "{found["text"]}"')
        return errors.InvalidTextRepresentation(message)
    if isinstance(e, duckdb.OutOfRangeException):
        return errors.NumericValueOutOfRange(_range_message(message))
    if isinstance(e, duckdb.BinderException):
        if "column" in text and ("not found" in text or "does not have a column" in text
                                 or "cannot be referenced before it is defined" in text):
            return errors.UndefinedColumn(_column_message(message))
        if (missing := _MISSING_TABLE.search(message)) is not None:  # t.x with no t in FROM
            return errors.UndefinedTable(f'missing FROM-clause entry for table "{missing["table"]}"')
        if "group by" in text:
            return errors.ProgrammingError(message, sqlstate="42803")
        if "limit/offset cannot be negative" in text:  # (negative_row_count tells which)
            return errors.DataError(message, sqlstate="2201W")
        if "order term out of range" in text:
            return errors.ProgrammingError(message, sqlstate="42P10")
        if (found := _NOT_BOOLEAN.search(message)) is not None:
            return errors.DatatypeMismatch(f"argument of {BOOLEAN_CONTEXTS[found['context']]} must be type boolean, "
                                           f"not type {_type_word(found['type'])}")
        if (found := _AMBIGUOUS.search(message)) is not None:  # (PostgreSQL's too, for an untyped NULL)
            return errors.ProgrammingError(f"function {_call_words(found['call'])} is not unique\n{_AMBIGUOUS_HINT}",
                                           sqlstate="42725")
        if f"macro {PERCENTILE_VALUE}() does not support" in text:  # (percentile_cont of a timestamp)
            return errors.ProgrammingError(f"function percentile_cont does not exist\n{_HINT}", sqlstate="42883")
        if "no function matches" in text or "could not choose a best candidate" in text:
            return errors.ProgrammingError(_function_message(message) or message, sqlstate="42883")
        if "set operations can only apply to expressions with the same number of result columns" in text:
            return errors.SyntaxError("each UNION query must have the same number of columns")
        if text.startswith("subquery returns") and "expected 1" in text:
            return errors.SyntaxError("subquery must return only one column")
        if "ambiguous" in text:
            return errors.ProgrammingError(message, sqlstate="42702")
        if "argument in function \"quantile_" in text and "must be a constant expression" in text or \
                text.startswith("quantile parameter cannot be null"):  # (DuckDB's quantile_cont / _disc)
            return errors.NotSupportedError("percentile_cont / percentile_disc of a fraction that is not a constant "
                                            "or is NULL is not supported")
        if (circular := _CIRCULAR_CTE.search(message)) is not None:  # (a recursive item of another form)
            return errors.ProgrammingError(f'recursive query "{circular["name"]}" does not have the form '
                                           "non-recursive-term UNION [ALL] recursive-term", sqlstate="42P19")
        for words, sqlstate, postgres in _BINDER_WORDS:
            if words in text:
                return errors.SyntaxError(postgres) if sqlstate == "42601" else \
                    errors.ProgrammingError(postgres, sqlstate=sqlstate)
        return errors.ProgrammingError(message, sqlstate="42804" if "type" in text else "42000")
    if isinstance(e, duckdb.CatalogException):
        if (words := _function_message(message)) is not None:  # (a table function's too: not 42P01)
            return errors.ProgrammingError(words, sqlstate="42883")
        if "table" in text and "does not exist" in text:
            return errors.UndefinedTable(message)
        if "function" in text:
            return errors.ProgrammingError(message, sqlstate="42883")
        if (missing := _MISSING_TYPE.match(message)) is not None:  # ('x'::nosuch, as PostgreSQL words it)
            return errors.UndefinedObject(f'type "{missing["name"]}" does not exist')
        return errors.ProgrammingError(message, sqlstate="42704")
    if isinstance(e, duckdb.InvalidInputException):
        if (udf := _UDF_ERROR.search(message)) is not None:  # (engine/dialect.py's functions: bytea input)
            message = udf["message"]
            kind = udf["kind"]  # (to_number / to_char / to_date's, jsonpath's: their SQLSTATE's)
            if (known := number_format.ERRORS.get(kind) or date_format.ERRORS.get(kind) or jsonpath.ERRORS.get(kind)
                    or bytea_functions.ERRORS.get(kind) or interval_input.ERRORS.get(kind)) is not None:
                return by_sqlstate(known.sqlstate, message)
            if (known := inet_input.ERRORS.get(kind)) is not None:  # (with its DETAIL: a cidr's bits)
                return by_sqlstate(known.sqlstate, message + (f"\nDETAIL:  {known.detail}" if known.detail else ""))
            if "are not supported" in message:  # (array input: txlake's arrays are one-dimensional)
                return errors.NotSupportedError(message)
            if "invalid input syntax" in message or message.startswith("malformed array literal") or \
                    _NOT_AN_INTEGER.match(message):
                return errors.InvalidTextRepresentation(message)
            if message.startswith(_JSON_REFUSALS):
                return json_input_error(message)
            if message == "division by zero":  # (parser/numeric.py's, as the SQL macros' below)
                return errors.DivisionByZero(message)
            if message.startswith("value overflows numeric format"):
                return errors.NumericValueOutOfRange(message)
            for words, sqlstate in _DOMAIN_ERRORS:
                if words in message:
                    return errors.DataError(message, sqlstate=sqlstate)
            return errors.DataError(message, sqlstate="22023")
        if "division by zero" in text:
            return errors.DivisionByZero(message)
        if message.startswith((TO_CHAR_REFUSED, PERCENTILE_REFUSED, COLUMN_SIZE_REFUSED)):  # (parser/semantics.py's)
            return errors.NotSupportedError(message)
        if text.startswith("json key cannot be null"):  # (json[b]_build_object's: DuckDB's json_object)
            return errors.DataError("null value not allowed for object key", sqlstate="22004")
        if text.startswith("invalid input value for enum "):  # (engine/user_types.py's casts)
            return errors.InvalidTextRepresentation(message)
        if text.startswith("value for domain ") and "violates check constraint" in text:
            return errors.CheckViolation(message)
        if text.startswith("domain ") and text.endswith("does not allow null values"):
            return errors.NotNullViolation(message)
        if text.startswith("array subscript out of range"):  # (engine/dialect.py's ARRAY_SET)
            return errors.DataError(message, sqlstate="2202E")
        if (sqlstate := _ARRAY_REFUSALS.get(next((w for w in _ARRAY_REFUSALS if text.startswith(w)), None))):
            return by_sqlstate(sqlstate, message)
        if text.startswith("array size exceeds the maximum allowed"):
            return errors.OperationalError(message, sqlstate="54000")
        if text.startswith("array subscript in assignment must not be null"):
            return errors.DataError(message, sqlstate="22004")
        if text.startswith("function overlaps("):  # (engine/dialect.py's OVERLAPS of no period's types)
            return errors.ProgrammingError(f"{message}\n{_HINT}", sqlstate="42883")
        if text.startswith("invalid input syntax for type"):  # (engine/dialect.py's boolean input)
            return errors.InvalidTextRepresentation(message)
        if text.startswith("value out of range:"):  # (engine/dialect.py's REAL macro)
            return errors.NumericValueOutOfRange(message)
        if "could not parse string" in text and "format specifier" in text:  # to_date, to_timestamp
            return errors.DataError(message, sqlstate="22007")
        if "more than one row returned by a subquery" in text:
            return errors.CardinalityViolation(message)
        for words, sqlstate in _DOMAIN_ERRORS:  # (engine/dialect.py's macros raise these)
            if words in text:
                return errors.DataError(message, sqlstate=sqlstate)
        if "parameter" in text:
            return errors.ProgrammingError(message, sqlstate="08P01")
        if "integer too large" in text:  # a Python int of over 128 bits as a parameter
            return errors.NumericValueOutOfRange(message)
        if "surrogate" in text:  # a str parameter that was not UTF-8 text
            return errors.DataError(message, sqlstate="22021")
        return errors.DataError(message, sqlstate="22023")
    if isinstance(e, duckdb.SyntaxException) and "invalid escape string" in text:  # LIKE ... ESCAPE 'xy'
        return errors.DataError("invalid escape string\nHINT:  Escape string must be empty or one character.",
                                sqlstate="22025")
    if isinstance(e, duckdb.PermissionException):
        return errors.ProgrammingError(message, sqlstate="42501")
    if isinstance(e, duckdb.NotImplementedException):
        return errors.NotSupportedError(message)
    if isinstance(e, duckdb.InterruptException) or text.startswith("interrupt error"):
        return errors.QueryCanceled("canceling statement due to user request")
    return errors.InternalError(message)


# DuckDB's words for a negative LIMIT or OFFSET: a constant or a parameter's, and a subquery's
# (its value cast to UINT64); they do not say which clause
_NEGATIVE_ROW_COUNT = ("limit/offset cannot be negative", "out of range for the destination type uint64")


def negative_row_count(e: duckdb.Error, sql: str, params, con: duckdb.DuckDBPyConnection) -> errors.Error | None:
    """PostgreSQL's error for the negative LIMIT or OFFSET DuckDB refused running ``sql`` with
    ``params`` (``e``), found by looking at the clauses' values: ``OFFSET must not be negative``
    (2201X) or ``LIMIT must not be negative`` (2201W) - the OFFSET first, as PostgreSQL's
    executor checks it first. None if ``e`` is not that error, or no clause is found negative."""
    if not any(words in str(e).lower() for words in _NEGATIVE_ROW_COUNT):
        return None
    try:
        tree = sqlglot.parse_one(sql, read="duckdb")
    except sqlglot.errors.SqlglotError:
        return None
    bound = {id(p): i for i, p in enumerate(placeholders_in_sql_order(tree))}
    for clause, what, sqlstate in ((exp.Offset, "OFFSET", "2201X"), (exp.Limit, "LIMIT", "2201W")):
        for node in tree.find_all(clause):
            value = node.expression
            if isinstance(value, exp.Placeholder) and id(value) in bound and bound[id(value)] < len(params):
                number = params[bound[id(value)]]
            elif value is not None and not any(value.find_all(exp.Placeholder)):
                try:  # (a constant, a subquery)
                    number = con.sql(f"SELECT TRY_CAST(({value.sql(dialect='duckdb')}) AS DOUBLE)").fetchall()[0][0]
                except duckdb.Error:
                    continue
            else:
                continue
            if isinstance(number, (int, float)) and number < 0:
                return errors.DataError(f"{what} must not be negative", sqlstate=sqlstate)
    return None


# DuckDB's errors by the name its messages start with: an error raised while DuckDB streams a
# result reaches Python as the Arrow stream's OSError, carrying only the message
_STREAM_ERRORS = {
    "Conversion Error": duckdb.ConversionException, "Out of Range Error": duckdb.OutOfRangeException,
    "Invalid Input Error": duckdb.InvalidInputException, "Binder Error": duckdb.BinderException,
    "Catalog Error": duckdb.CatalogException, "Permission Error": duckdb.PermissionException,
    "Not implemented Error": duckdb.NotImplementedException, "INTERRUPT Error": duckdb.InterruptException,
}


def translate_stream_error(e: OSError) -> errors.Error:
    """An error DuckDB raised while streaming a result, translated as the error it names."""
    message = str(e)
    return translate(_STREAM_ERRORS.get(message.split(":", 1)[0], duckdb.Error)(message))
