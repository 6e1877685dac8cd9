"""Where DuckDB's answer differs from PostgreSQL's, the parsed statement is rewritten once, at
parse time, to PostgreSQL's (``postgres_semantics``); what needs DuckDB's help - a macro, a
function, a setting - is set up on each DuckDB connection by engine/dialect.py."""

from __future__ import annotations

import decimal
import math
import re

from sqlglot import exp
from sqlglot.time import format_time
from sqlglot.trie import new_trie

from txlake import errors
from txlake.parser import inet_input, interval_input, json_ops, number_format, numeric, pg_regex
from txlake.parser.dialect import INTERVAL_FIELDS, PREFIX_OPERATOR, SIMILAR_SUBSTRING
from txlake.storage.schema import array_input, array_input_nested, integer_input, make_type


# the divisor wrapper the executor defines in DuckDB: raises "division by zero" on 0
DIVISOR_MACRO = "txl_divisor"
# a / b, of an interval too (engine/dialect.py: integer division made DuckDB's / its //, which has
# no interval form - INTERVAL '3 days' / 2 was 42883)
DIVIDE_MACRO = "txl_divide"
# PostgreSQL's input of a value as bytea (engine/dialect.py): text in its hex ('\x6162') or
# escape ('a\000b') format - DuckDB's own cast reads '\x61\x62' - and a bytea as it is
BYTEA_MACRO = "txl_bytea"
# a value as real, past a float4's range 22003 as in PostgreSQL (DuckDB read '1e40' as Infinity)
REAL_MACRO = "txl_real"
# engine/dialect.py's functions: byteain, and encode / decode in the escape format
BYTEA_IN, ESCAPE_IN, ESCAPE_OUT = "txl_bytea_in", "txl_escape_in", "txl_escape_out"
# length() of text, of a bytea (its bytes: BYTEA_LENGTH, engine/dialect.py's function), of the rest
LENGTH_MACRO, BYTEA_LENGTH = "txl_length", "txl_bytea_length"
# split_part() as PostgreSQL's (engine/dialect.py)
SPLIT_PART_MACRO = "txl_split_part"
# a value as a list for a cast to an array (engine/dialect.py): text by PostgreSQL's array input
# (ARRAY_PARSE: '{1,"a b",NULL}' as a VARCHAR[] of its elements' text), a list as it is
ARRAY_MACRO, ARRAY_PARSE = "txl_array", "txl_array_in"
# arrays as PostgreSQL's (engine/dialect.py ARRAY_MACROS): a subscript or slice bound outside the
# array (a[0], a[-1]: DuckDB's count from the end), array_length() and the rest of an empty
# array, array || element, string_to_array()
ARRAY_INDEX, ARRAY_LOWER, ARRAY_UPPER = "txl_array_index", "txl_slice_lower", "txl_slice_upper"
ARRAY_LENGTH, ARRAY_CONCAT, STRING_TO_ARRAY = "txl_array_length", "txl_array_concat", "txl_string_to_array"
# multidimensional arrays (engine/dialect.py NESTED_ARRAY_MACROS): ARRAY_RECTANGULAR(a) a built array
# as it is, 2202E unless rectangular; ARRAY_ELEMENTS(a) its elements, through every dimension
# (unnest(), array_to_string(), @>, ANY look through them, as PostgreSQL's); of a one-dimensional
# array both are the array itself, decided by DuckDB's binder from its type
ARRAY_RECTANGULAR, ARRAY_ELEMENTS = "txl_nd_array_rectangular", "txl_nd_array_elements"
# ARRAY_ACCUMULATED(a): array_agg's array of arrays as it is, refused as PostgreSQL refuses
# accumulating NULL or empty arrays or ones of different shapes
ARRAY_ACCUMULATED = "txl_nd_array_accumulated"
# ARRAY_ONE_DIMENSIONAL(a, message): a, but PostgreSQL's refusal of one of several dimensions (array_position's,
# array_append's); ARRAY_ELEMENT(x): a subscript's value, NULL if still an array (a[1] of {{1,2}});
# ARRAY_CAT(a, b): array_cat, of arrays of any dimensions
ARRAY_ONE_DIMENSIONAL, ARRAY_ELEMENT, ARRAY_CAT = "txl_nd_array_one_dimensional", "txl_nd_array_element", \
    "txl_nd_array_cat"
# the names of those macros, and of the other array functions' forms by dimensions (``nested_form``)
NESTED_FORM = "txl_nd_"
# UPDATE ... SET a[i] = v (parser/parse.py): the array with element i set, NULLs between its end and i
ARRAY_SET = "txl_array_set"
# generate_subscripts(a, dim [, reverse])'s rows, a list of integers (txlake's arrays start at 1;
# of a multidimensional array nested_form(SUBSCRIPTS)'s)
SUBSCRIPTS = "txl_subscripts"
# ARRAY_AS(a, b): the list b (text elements) as a list of a's element type
ARRAY_AS = "txl_array_as"
# x op ANY / ALL (array) (``_quantified``): QUANTIFIED(a) the array, a NULL one as one NULL element
# (PostgreSQL's comparison with a NULL array is NULL; DuckDB unnested none: false for ANY, true
# for ALL); ELEMENTS_AS(x, a) untyped text a - PostgreSQL's array text, or a list of its
# elements' text - as a list of x's type
QUANTIFIED, ELEMENTS_AS = "txl_quantified", "txl_elements_as"
# generate_series() of PostgreSQL's types (engine/dialect.py): of integers an integer, of a bigint a
# bigint, of numerics a numeric, of timestamps a timestamp (DuckDB's: always a bigint, no numeric
# form); a step of 0 is 22023. SERIES_ROWS in FROM (SERIES_NUMBERED: WITH ORDINALITY), SERIES_LIST
# in a select list (unnested there)
SERIES_ROWS, SERIES_NUMBERED, SERIES_LIST = "txl_generate_series", "txl_generate_series_numbered", "txl_series_list"
# to_char(x, pattern) (``_to_char``): TO_CHAR_MACRO(x, strftime's pattern, refusal, pattern, x)
# picks by x's type the function writing a number (engine/dialect.py NUMBER_CHAR_FUNCTION) or
# a date or timestamp (DATE_CHAR_FUNCTION), or strftime - or raises the refusal (starting
# TO_CHAR_REFUSED, 0A000) of a pattern strftime cannot take; x is TO_CHAR_VALUE where it is
# bound once. to_number():
# TO_NUMBER_FUNCTION's text of the number
TO_CHAR_MACRO, TO_CHAR_VALUE, TO_CHAR_REFUSED = "txl_to_char", "txl_to_char_value", "to_char of a date or time"
TO_NUMBER_FUNCTION = "txl_to_number"
# TEXT_MACRO(x, x): a value as text, as PostgreSQL's output function writes it (engine/dialect.py):
# a double 1 not 1.0, 1e+15, NaN, Infinity; a bytea \x0102; an interval's mons; an array {1,"a b",NULL}
TEXT_MACRO = "txl_text"
# JSON_VALUE_MACRO(x, x): a value as to_json writes it in PostgreSQL (engine/dialect.py): an
# interval's or a bytea's text, a timestamp in ISO 8601 ('2024-01-02T03:04:05'), where DuckDB's
# differ; a numeric its text, with its scale (DuckDB wrote a double: 1.50 was 1.5); anything else
# as it is, for DuckDB's to_json. DuckDB reads the JSON a value gives as JSON again (its numbers
# as doubles), so a numeric's text travels as a string marked NUMERIC_MARK, which JSON_NUMBERS
# makes a number again in the JSON text DuckDB's to_json / json_object / json_array wrote
JSON_VALUE_MACRO = "txl_json_value"
JSON_NUMBERS = "txl_json_numbers"
NUMERIC_MARK = "\ue000"
# a cast to time (engine/dialect.py): of an interval, PostgreSQL's interval_time - its time of
# day, days and months left out (DuckDB had no such cast: 42804) - else DuckDB's cast
TIME_MACRO = "txl_time"
# (s1, e1) OVERLAPS (s2, e2) (engine/dialect.py): PostgreSQL's overlaps() of dates, timestamps or times,
# an end being a point or an interval from the start (DuckDB has no OVERLAPS)
OVERLAPS_MACRO = "txl_overlaps"
# regexp_matches(s, p [, flags])'s rows, a list of text[] (engine/regexp_functions.py MATCH_ROWS)
REGEXP_MATCH_ROWS = "txl_regexp_matches"
# percentile_cont's value (engine/dialect.py): a double precision, as PostgreSQL's percentile_cont
# takes (DuckDB's quantile_cont of a numeric is a numeric, rounded); an interval refused (0A000)
PERCENTILE_VALUE, PERCENTILE_REFUSED = "txl_percentile_value", "percentile_cont of an interval is not supported"


def postgres_semantics(tree: exp.Expression, text: str = "") -> exp.Expression:
    """Where DuckDB's answer differs from PostgreSQL's, rewrite once, at parse time:

    - ``x / 0`` and ``x % 0`` raise 22012 (DuckDB gives inf or NULL): a divisor that is not a
      non-zero literal goes through ``txl_divisor``;
    - a numeric's quotient, ``sqrt()``, ``exp()``, ``ln()``, ``log()`` and power are numeric,
      exactly PostgreSQL's (DuckDB's were doubles): folded if constant, else through macros that
      pick by type (``_folded``, ``_type_witnesses``; parser/numeric.py);
    - an unnamed column is named as PostgreSQL names it (``column_name``: ``count``, not
      DuckDB's ``count_star()``; ``lower``, not ``lower(s)``; ``?column?`` for ``a + 1``);
    - backslash escapes ``_`` and ``%`` in a LIKE / ILIKE pattern that gives no ESCAPE
      (PostgreSQL's default; DuckDB has none): ``'a_c' LIKE 'a\\_c'`` is true;
    - ``format('%s-%s', a, b)`` fills ``%s`` with the values as text, NULL as '' (DuckDB's
      ``format`` takes ``{}``; its ``printf`` takes ``%s`` of text only);
    - ``now()``, ``current_timestamp``, ``current_date`` and their kin are the transaction's
      start (``transaction_clock``);
    - ``sum()`` and ``avg()`` have PostgreSQL's types (``_typed_aggregate``): sum(int) a bigint,
      sum(bigint) a numeric, sum(real) a real, avg of integers and numerics an exact numeric
      - as window functions too;
    - an integer constant past a bigint is a numeric (``_numeric_constant``);
    - a float ``a + b``, ``a - b``, ``a * b`` past the type's range is 22003 (``_float_checked``);
    - a string constant in a column of UNION branches, VALUES rows or CASE results takes the
      column's type (``_resolve_unknown_literals``): ``SELECT 1 UNION SELECT 'a'`` is 22P02;
    - a string constant beside an operand of a type its form tells takes that type where
      PostgreSQL's operator resolution gives it that (``typed_operands``): ``1 + '3'`` is 4;
    - an integer literal in ``+``, ``-`` and ``*`` is an INTEGER, as PostgreSQL's int4
      constant is (DuckDB narrows it to the other operand's type: a smallint ``s + 1`` was a
      smallint, 22003 past 32767, where PostgreSQL's is an integer);
    - ``schema.table.column`` names the column of the FROM item ``schema.table`` (``_schema_qualified_columns``);
    - a condition (WHERE, HAVING, JOIN ... ON, CASE WHEN, FILTER, an operand of AND, OR, NOT)
      must be a boolean, as PostgreSQL's (42804; DuckDB cast ``WHERE 5`` to true): one that is
      not boolean by its form is checked by DuckDB's binder (``_check_boolean_arguments``);
    - and the rewrites of ``_REWRITES``: row comparisons, SIMILAR TO, substring, make_interval,
      to_char, to_number, extract() (a numeric) and date_part() (a double), math domain errors, casts to
      bytea (PostgreSQL's hex and escape input), to real (22003 past a float4's range), to
      boolean (PostgreSQL's words: 'on', 'off') and to varchar(n) (cut to n characters),
      length() (of NULL too), and json / jsonb's casts,
      operators and functions (parser/json_ops.py);
    - ``x LIKE ANY (ARRAY[...])`` is an OR of LIKEs (``_like_any``), and ``EXISTS (SELECT FROM
      t)`` selects 1 (DuckDB has neither).
    """
    # columns are named from the expressions as written (``_column_names``), in every SELECT -
    # a subquery's, a UNION's, CREATE TABLE AS's (whose names the table keeps) - and RETURNING
    _unqualify_pg_catalog_calls(tree)
    for node in list(tree.find_all(exp.Table, exp.Lateral, *_SET_NODES)):  # (json[b]_to_record[set]: rewritten below)
        if not isinstance(node, (exp.Table, exp.Lateral)):
            _check_set_placement(node)
        elif node.args.get("rows_from"):
            node.replace(_rows_from(node))
        elif (records := json_ops.records(node)) is not None:
            node.replace(records)
        elif (scalar := _scalar_function_table(node)) is not None:
            node.replace(scalar)
    selects = [(select, [None if isinstance(p, exp.Alias) else p.copy() for p in json_ops.record_fields(select)])
               for select in tree.find_all(exp.Select, exp.Returning)]
    tree = transaction_clock(tree)
    _fold_aliases(tree)
    _resolve_unknown_literals(tree)
    typed_operands(tree, _operand_type)
    for node in _outside_defaults(tree, exp.Literal):
        if node.is_int and not -(1 << 63) <= int(node.this) < (1 << 63):
            node.replace(_numeric_constant(node))
        elif node.is_number and not node.is_int:
            _check_float_constant(node.this)
    _schema_qualified_columns(tree)
    _check_boolean_arguments(tree)
    for node in _outside_defaults(tree, exp.Column, *_IDENTITY_FUNCTIONS):
        if isinstance(node, exp.Column):
            if node.name.lower() in _NAME_KEYWORDS and not node.table and not node.this.quoted:
                node.replace(exp.Anonymous(this=_NAME_KEYWORDS[node.name.lower()]))
        else:  # (called: DuckDB would take SESSION_USER for the column alias session_user)
            node.replace(exp.Anonymous(this=_IDENTITY_FUNCTIONS[type(node)]))
    for node in reversed(_outside_defaults(tree, *_REWRITES)):  # (the innermost first: outer ones copy them)
        rewrite = _REWRITES.get(type(node))  # (not a subclass's: TRY_CAST is no Cast here)
        if isinstance(node, exp.Anonymous) and node.name.lower() in ("row_to_json", "to_json", "to_jsonb") \
                and node.expressions and _whole_row(node.expressions[0]):
            tree.meta[json_ops.WHOLE_ROW_JSON] = True  # (engine/column_scope.py looks at the statement)
        replacement = rewrite(node) if rewrite is not None else node
        if isinstance(replacement, exp.Anonymous) and replacement.name in inet_input.NETWORK_FUNCTIONS:
            tree.meta[inet_input.NETWORK_VALUES] = True  # (engine/network.py looks at the statement)
        if replacement is not node:
            if node is tree:
                tree = replacement
            else:
                node.replace(replacement)
    for node in _outside_defaults(tree, exp.Sum, exp.Avg, exp.WithinGroup):
        if not isinstance(node, exp.WithinGroup):
            _typed_aggregate(node)
        elif isinstance(node.this, exp.AggFunc) and not isinstance(node.this, _ORDERED_SET):
            name = _FUNCTION_NAMES.get(type(node.this)) or node.this.key
            raise errors.ProgrammingError(f"{name} is not an ordered-set aggregate, so it cannot have WITHIN GROUP",
                                          sqlstate="42809")
        elif isinstance(node.this, _ORDERED_SET) and _windowed(node):  # (PostgreSQL's parse_func.c)
            raise errors.NotSupportedError(
                f"OVER is not supported for ordered-set aggregate {_ORDERED_SET_NAMES[type(node.this)]}")
        elif isinstance(node.this, exp.PercentileCont) and isinstance(node.expression, exp.Order):
            for ordered in node.expression.expressions:  # (percentile_cont's value a double precision)
                ordered.this.replace(exp.Anonymous(this=PERCENTILE_VALUE, expressions=[ordered.this.copy()]))
        elif isinstance(node.this, _HYPOTHETICAL) and isinstance(node.expression, exp.Order):
            _hypothetical(node)
    for node in _outside_defaults(tree, exp.Like, exp.ILike):
        if isinstance(node.expression, (exp.Any, exp.All)):
            _like_any(node)
        elif _escapes(node):
            node.replace(exp.Escape(this=node.copy(), expression=exp.Literal.string("\\")))
    for node in _outside_defaults(tree, exp.Exists):
        if isinstance(node.this, exp.Select) and not node.this.expressions:  # EXISTS (SELECT FROM t ...)
            node.this.set("expressions", [exp.Literal.number(1)])
    for node in _outside_defaults(tree, exp.Format):
        node.replace(_format(node))
    # set-returning functions: jsonb_each(doc), jsonb_array_elements(doc), regexp_split_to_table(s, p)
    for node in list(tree.find_all(exp.Table, exp.Lateral, exp.Anonymous)):
        rows = _split_table(node)
        if rows is None and not isinstance(node.parent, (exp.Table, exp.Lateral)):
            rows = json_ops.set_returning(node)
        if rows is not None:
            node.replace(rows)
    for node in list(tree.find_all(exp.Unnest)):
        # (one array WITH ORDINALITY too: DuckDB's own made t.* of it 42702, "duplicate alias")
        zipped = len(node.expressions) > 1 or node.args.get("offset")
        if zipped and isinstance(node.parent, (exp.From, exp.Join)):
            node.replace(_zipped_unnest(node))
        elif zipped and isinstance(node.parent, exp.Lateral):  # (DuckDB finds it lateral)
            lateral = node.parent
            if lateral.args.get("alias") is not None:
                node.set("alias", lateral.args["alias"].copy())
            lateral.replace(_zipped_unnest(node))
    for node in list(tree.find_all(exp.GenerateSeries)):
        _typed_series(node)
    for node in _outside_defaults(tree, exp.Add, exp.Sub, exp.Mul):
        for operand in (node.this, node.expression):
            if isinstance(operand, exp.Literal) and operand.is_int and _INT4[0] <= int(operand.this) <= _INT4[1]:
                operand.replace(exp.cast(operand.copy(), exp.DataType.build("INT")))
    for node in _outside_defaults(tree, exp.Add, exp.Sub, exp.Mul):
        _float_checked(node)
    for number, node in enumerate(_outside_defaults(tree, exp.Div, exp.Mod, exp.IntDiv)):
        constants = isinstance(node.this, exp.Literal) and isinstance(node.expression, exp.Literal)
        if type(node) is exp.Div and (folded := _folded("quotient", node.this, node.expression)) is not None:
            node.replace(folded)
            continue
        if type(node) is exp.Div and not constants and not _type_witnesses(node.this, node.expression):
            node.replace(_quotient_of_bound_operands(node, number))
            continue
        divisor, bound = node.expression, None
        if not (isinstance(divisor, exp.Literal) and divisor.is_number and float(divisor.this) != 0):
            # (a NULL divided by 0 is NULL, as PostgreSQL's strict division gives it: the divisor
            # check is handed the dividend to tell - a copy, if evaluating it twice is harmless,
            # else the dividend is evaluated once and bound to a lambda's parameter, which both
            # the division and the check read: nextval('s') / 0 takes one value)
            if _repeatable(node.this):
                node.set("expression", exp.Anonymous(this=DIVISOR_MACRO, expressions=[divisor, node.this.copy()]))
            else:
                bound, dividend = f"txl_dividend{number}", node.this
                node.set("this", exp.column(bound))
                node.set("expression", exp.Anonymous(this=DIVISOR_MACRO, expressions=[divisor, exp.column(bound)]))
        if type(node) is exp.Div and not constants:
            # (DIVIDE_MACRO picks its form by the operands' types - copies, never evaluated)
            replacement = exp.Anonymous(this=DIVIDE_MACRO, expressions=[
                node.this.copy(), node.expression.copy(), *_type_witnesses(node.this, divisor)])
            node.replace(replacement)
            node = replacement
        if bound is not None:
            node.replace(_bound(dividend, bound, node.copy()))
    _by_dimensions(tree)
    for select, written in selects:
        _column_names(select, written, text)
    for values in [v for v in tree.find_all(exp.Values) if not isinstance(v.parent, exp.Insert)]:
        tree = _values_columns(values, tree)
    return tree


# a DOUBLE PRECISION or REAL sum, difference or product: 22003 where it overflows to infinity
# from finite operands (or, a product, underflows to 0 from non-zero ones), as PostgreSQL's
# (engine/dialect.py; DuckDB gave inf, 0); the macro is handed the result twice (once to pick
# its form by: a NUMERIC is not cast), then the operands
FLOAT_SUM_MACRO, FLOAT_PRODUCT_MACRO = "txl_float_sum", "txl_float_product"


# functions returning a set of rows, by the names PostgreSQL has them (sqlglot reads some as
# nodes of their own: GenerateSeries, Unnest, Explode)
SET_RETURNING = frozenset((
    "generate_series", "generate_subscripts", "unnest", "regexp_matches", "regexp_split_to_table",
    "string_to_table", "json_array_elements", "json_array_elements_text", "jsonb_array_elements",
    "jsonb_array_elements_text", "json_each", "json_each_text", "jsonb_each", "jsonb_each_text",
    "json_object_keys", "jsonb_object_keys", "jsonb_path_query", "json_to_recordset", "jsonb_to_recordset",
    "pg_get_keywords"))
_SET_NODES = (exp.GenerateSeries, exp.Unnest, exp.Explode, exp.Anonymous)
# where PostgreSQL 10+ refuses a set-returning call of a select list (0A000: each of its rows
# would need a value of one row) - up to the query that reads it (a subquery's is its own)
_SET_REFUSALS = ((exp.Case, "set-returning functions are not allowed in CASE"),
                 (exp.Coalesce, "set-returning functions are not allowed in COALESCE"),
                 (exp.Window, "window function calls cannot contain set-returning function calls"),
                 (exp.AggFunc, "aggregate function calls cannot contain set-returning function calls"))
_QUERY_BOUNDS = (exp.Select, exp.Subquery, exp.From, exp.Join, exp.Lateral, exp.Table)


def returns_set(node: exp.Expression) -> bool:
    """Is ``node`` a call of a set-returning function (as written, before the rewrites)?"""
    return isinstance(node, (exp.GenerateSeries, exp.Unnest, exp.Explode)) or (
        isinstance(node, exp.Anonymous) and node.name.lower() in SET_RETURNING)


def _rows_from(table: exp.Table) -> exp.Subquery:
    """``ROWS FROM (f(...), g(...)) [WITH ORDINALITY] [AS t(...)]`` (DuckDB has no such FROM item:
    42601) as PostgreSQL's: the functions' rows side by side, the n-th of each in the n-th row,
    the shorter padded with NULLs - each function a FROM item WITH ORDINALITY (rewritten below
    as any other), joined on its numbers; its columns named as each names them."""
    parts = [f"__rows{i}" for i in range(len(table.args["rows_from"]))]
    joined = None
    for item, part in zip(table.args["rows_from"], parts):
        item = item.copy()
        item.set("offset" if isinstance(item, exp.Unnest) else "ordinality", True)
        numbered = exp.select(exp.Star()).from_(item).subquery(part)
        if joined is None:
            joined = exp.select().from_(numbered)
        else:
            earlier = exp.Coalesce(this=exp.column("ordinality", parts[0]),
                                   expressions=[exp.column("ordinality", p) for p in parts[1:parts.index(part)]]) \
                if parts.index(part) > 1 else exp.column("ordinality", parts[0])
            joined = joined.join(numbered, on=exp.EQ(this=earlier, expression=exp.column("ordinality", part)),
                                 join_type="FULL")
    number = exp.Coalesce(this=exp.column("ordinality", parts[0]),
                          expressions=[exp.column("ordinality", p) for p in parts[1:]]) if len(parts) > 1 \
        else exp.column("ordinality", parts[0])
    columns = [exp.Column(this=exp.Star(except_=[exp.column("ordinality")]), table=exp.to_identifier(p)) for p in parts]
    if table.args.get("ordinality"):
        columns.append(exp.alias_(number.copy(), "ordinality"))
    rows = joined.select(*columns).order_by(number)
    return exp.Subquery(this=rows, alias=(table.args.get("alias") or exp.TableAlias(
        this=exp.to_identifier("rows_from"))).copy())


def _check_set_placement(node: exp.Expression) -> None:
    """A set-returning call inside CASE, COALESCE, an aggregate's or a window function's
    arguments, or in WHERE, JOIN/ON, LIMIT, OFFSET, RETURNING or UPDATE's SET, is PostgreSQL's
    0A000 (DuckDB gave rows of a CASE, a list in RETURNING, errors of its own words elsewhere):
    none of them can take a set. One in another's arguments, which PostgreSQL takes, is refused
    (0A000; it was 42883 or DuckDB's 42000)."""
    if not returns_set(node):
        return
    child = node
    for outer in _ancestors(node):
        where = _SET_CLAUSES.get((type(outer), child.arg_key))
        if where is not None:
            _refuse_set(f"set-returning functions are not allowed in {where}")
        if isinstance(outer, _QUERY_BOUNDS):
            return
        if returns_set(outer):  # (PostgreSQL runs the outer call per row of the inner one)
            raise errors.NotSupportedError("a set-returning function's argument that returns a set is not "
                                           "supported\nHINT:  Move the inner call into a LATERAL FROM item.")
        for kind, refusal in _SET_REFUSALS:
            if isinstance(outer, kind) and not (kind is exp.AggFunc and isinstance(outer.parent, exp.Window)) \
                    and not (kind is exp.Window and child.arg_key != "this"):  # (a window's PARTITION BY /
                _refuse_set(refusal)                                           # ORDER BY may hold one)
        child = outer


# the clauses PostgreSQL's check_srf_call_placement refuses a set-returning call in, by their
# node and the argument holding the call
_SET_CLAUSES = {**{(kind, "where"): "WHERE" for kind in (exp.Select, exp.Update, exp.Delete)},
                (exp.Join, "on"): "JOIN/ON", (exp.Select, "limit"): "LIMIT", (exp.Select, "offset"): "OFFSET",
                (exp.Returning, "expressions"): "RETURNING", (exp.Update, "expressions"): "UPDATE",
                # (PostgreSQL takes one in an INSERT's single VALUES row, as a select list's: not here)
                (exp.Values, "expressions"): "VALUES"}


def _refuse_set(refusal: str) -> None:
    raise errors.NotSupportedError(f"{refusal}\nHINT:  You might be able to move the set-returning function into a "
                                   "LATERAL FROM item.")


def _ancestors(node: exp.Expression):
    while node.parent is not None:
        node = node.parent
        yield node


def _float_checked(node: exp.Add | exp.Sub | exp.Mul) -> None:
    """Route ``a + b``, ``a - b``, ``a * b`` of two operands that are columns or constants (cast
    or negated) through the float check, which repeats them to look at them. Another operand -
    an expression, a call - may be volatile (nextval) or long, a parameter is bound by its
    place: unchecked. Nor is a sum with an integer constant (a finite float plus one stays
    finite: ``SET n = n + 1`` keeps its fast path, engine/executor.py), nor two of them."""
    constants = _integer_constant(node.this) + _integer_constant(node.expression)
    if not (_simple_operand(node.this) and _simple_operand(node.expression) and _typed_argument(node)) or (
            constants == 2 or (constants and not isinstance(node, exp.Mul))):
        return
    name = FLOAT_PRODUCT_MACRO if isinstance(node, exp.Mul) else FLOAT_SUM_MACRO
    node.replace(exp.Anonymous(this=name, expressions=[node.copy(), node.copy(), node.this.copy(),
                                                       node.expression.copy()]))


def _simple_operand(node: exp.Expression) -> bool:
    while isinstance(node, (exp.Paren, exp.Neg, exp.Cast)) or (
            isinstance(node, exp.Anonymous) and node.name == REAL_MACRO and len(node.expressions) == 1):
        node = node.this if not isinstance(node, exp.Anonymous) else node.expressions[0]
    return isinstance(node, (exp.Column, exp.Literal, exp.Null)) and not isinstance(node.this, exp.Star)


# what may be evaluated twice (a dividend handed to DIVISOR_MACRO): anything but these - volatile
# (random(), gen_random_uuid(), nextval), or a subquery, or a function txlake does not know, or
# a parameter (bound by its place: a copy would take the next one)
_VOLATILE = (exp.Rand, exp.Uuid, exp.Subquery, exp.Anonymous, exp.Placeholder)


def _repeatable(node: exp.Expression) -> bool:
    """May ``node`` be evaluated twice, with the same value and no other effect? Functions
    sqlglot knows (abs, length, sum, ...) and txlake's own macros, but its sequence functions."""
    return not any(isinstance(n, _VOLATILE) and not (
        type(n) is exp.Anonymous and n.name.startswith("txl_") and n.name not in _SEQUENCE_CALLS) for n in node.walk())


def _quotient_of_bound_operands(node: exp.Div, number: int) -> exp.Expression:
    """``a / b`` whose operands cannot be handed to DIVIDE_MACRO again to pick its form by
    (``_type_witnesses``: one holds a parameter, an aggregate, a window function, a subquery):
    both evaluated once, as the fields of a struct a lambda takes - whose fields have their
    types by then - and divided there, the divisor checked (``sum(x) / count(*)``, ``x / ?``)."""
    name = f"txl_operands{number}"
    dividend, divisor = (exp.Anonymous(this="struct_extract", expressions=[exp.column(name), exp.Literal.string(f)])
                         for f in ("x", "y"))
    checked = divisor if isinstance(node.expression, exp.Literal) and node.expression.is_number and \
        float(node.expression.this) != 0 else exp.Anonymous(this=DIVISOR_MACRO, expressions=[divisor, dividend])
    body = exp.Anonymous(this=DIVIDE_MACRO, expressions=[dividend.copy(), checked.copy(), dividend.copy(),
                                                         divisor.copy()])
    operands = exp.Struct(expressions=[exp.PropertyEQ(this=exp.to_identifier(f), expression=operand.copy())
                                       for f, operand in (("x", node.this), ("y", node.expression))])
    return _bound(operands, name, body)


def _bound(value: exp.Expression, name: str, body: exp.Expression) -> exp.Expression:
    """``body`` with ``value`` evaluated once as ``name``: a lambda over a list of it, DuckDB's
    one way to name a value within an expression."""
    lambda_ = exp.Lambda(this=body, expressions=[exp.to_identifier(name)])
    listed = exp.Anonymous(this="list_transform", expressions=[exp.Array(expressions=[value]), lambda_])
    return exp.Anonymous(this="list_extract", expressions=[listed, exp.Literal.number(1)])


def _integer_constant(node: exp.Expression) -> bool:
    """An integer literal, as written or cast to an integer type (``1``, ``CAST(1 AS INT)``)."""
    if isinstance(node, exp.Cast) and node.to.this in _INTEGER_TYPES:
        node = node.this
    return isinstance(node, exp.Literal) and node.is_int


def _numeric_constant(node: exp.Literal) -> exp.Expression:
    """An integer constant past a bigint's range is a numeric, as PostgreSQL's lexer makes it
    (DuckDB's is a HUGEINT, fetched as 22003 past a bigint, or past 38 digits an opaque
    BIGNUM): a DECIMAL(38,0), the widest DuckDB has - 22003 past it."""
    if len(node.this.lstrip("0")) > 38:
        raise errors.NumericValueOutOfRange(f"numeric constant {node.this} has more than 38 digits, "
                                            "the most txlake holds")
    return exp.cast(node.copy(), "DECIMAL(38,0)")


def _check_float_constant(text: str) -> None:
    """22003 for a constant with an exponent past a double's range (``1e400``, ``1e-400``):
    DuckDB reads it as a DOUBLE, infinite or 0, where PostgreSQL's numeric would hold it - and
    txlake's numeric holds 38 digits."""
    value = float(text)
    mantissa = text.lower().partition("e")[0]
    if math.isinf(value) or (value == 0 and any(c in "123456789" for c in mantissa)):
        raise errors.NumericValueOutOfRange(f'"{text}" is out of range for type double precision')


def _resolve_unknown_literals(tree: exp.Expression) -> None:
    """A string constant is of type unknown to PostgreSQL: where values of several expressions
    make one column - a UNION's (INTERSECT's, EXCEPT's) branches, a VALUES list's rows, CASE's
    results - it takes their type (``select_common_type``): ``SELECT 1 UNION SELECT '2'`` is
    integers, ``SELECT 1 UNION SELECT 'a'`` 22P02 (DuckDB made them text, or cast 'a' only when
    it came to it). Here the type is the one the other expressions' forms tell - a number, a
    cast, a boolean - and nothing changes where none does (a column's: DuckDB's rules)."""
    for node in _outside_defaults(tree, exp.SetOperation, exp.Values, exp.Case):
        if isinstance(node, exp.SetOperation):
            if isinstance(node.parent, exp.SetOperation):
                continue  # (the outermost takes the branches of the whole chain)
            branches = _branches(node)
            widths = {len(b.expressions) for b in branches or ()}
            groups = [[b.expressions[i].unalias() for b in branches] for i in range(widths.pop())] \
                if len(widths) == 1 else []
        elif isinstance(node, exp.Values):
            rows = [r.expressions if isinstance(r, exp.Tuple) else [r] for r in node.expressions]
            widths = {len(r) for r in rows}
            groups = [[r[i] for r in rows] for i in range(widths.pop())] \
                if len(widths) == 1 and not isinstance(node.parent, exp.Insert) else []
        else:
            groups = [[i.args.get("true") for i in node.args.get("ifs") or ()] + [node.args.get("default")]]
        for group in groups:
            _resolve_unknowns([e for e in group if e is not None])


# The operators PostgreSQL has of two operands of one type (op(T, T)), by T's kind: a string
# constant (of type unknown) beside a T is taken as a T there (typeconv.sgml, "Operators", step
# 2.a). Where T has no op(T, T), the one candidate left takes it as another type: an interval's
# * and / a double precision, an integer's or a real's ^ too (float8's is preferred to numeric's)
_COMPARISONS = (exp.EQ, exp.NEQ, exp.LT, exp.LTE, exp.GT, exp.GTE)
_ARITHMETIC = (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod)
_SAME_TYPE_OPERATORS = {
    **{kind: _COMPARISONS + _ARITHMETIC + (exp.BitwiseAnd, exp.BitwiseOr, exp.BitwiseXor)
       for kind in (exp.DType.SMALLINT, exp.DType.INT, exp.DType.BIGINT)},
    exp.DType.DECIMAL: _COMPARISONS + _ARITHMETIC + (exp.Pow,),
    exp.DType.FLOAT: _COMPARISONS + _ARITHMETIC[:4],
    exp.DType.DOUBLE: _COMPARISONS + _ARITHMETIC[:4] + (exp.Pow,),
    **{kind: _COMPARISONS + (exp.Sub,) for kind in (exp.DType.DATE, exp.DType.TIMESTAMP, exp.DType.TIMESTAMPNTZ,
                                                     exp.DType.TIMESTAMPTZ)},
    # (time - time, PostgreSQL's choice for time - '09:00', is no operator of DuckDB's: the
    # constant stays DuckDB's to read - an interval - which gives the same text, 01:00:00)
    exp.DType.TIME: _COMPARISONS,
    exp.DType.INTERVAL: _COMPARISONS + (exp.Add, exp.Sub),
    exp.DType.BOOLEAN: _COMPARISONS,
    exp.DType.ARRAY: _COMPARISONS + (exp.DPipe,),
}
_DOUBLE_OPERAND = {exp.DType.INTERVAL: (exp.Mul, exp.Div),
                   **{kind: (exp.Pow,) for kind in (exp.DType.SMALLINT, exp.DType.INT, exp.DType.BIGINT,
                                                     exp.DType.FLOAT)}}
_OPERATORS = tuple({o for operators in _SAME_TYPE_OPERATORS.values() for o in operators})


def typed_operands(tree: exp.Expression, type_of) -> list[exp.Expression]:
    """A string constant is of type unknown to PostgreSQL: as an operand of a binary operator
    whose other operand is of a known type T, it is taken as a T where an operator of two T's
    is (``_SAME_TYPE_OPERATORS``): ``1 + '3'`` is 4, ``now() - '1 day'`` 22007 (timestamptz -
    timestamptz), ``date '2024-01-31' - '2024-01-01'`` 30 (DuckDB found +(integer, unknown) not
    unique); ``x IN ('1', '2.5')`` and ``x BETWEEN '1' AND '2.5'`` compare as ``=``, ``>=`` and
    ``<=`` do (``_operand_pairs``). ``type_of`` gives an operand's type, or None where it is not
    known: the constant is left to DuckDB's rules (``now() + '1 day'``, an interval's). The casts
    made, for the caller to rewrite where the parser's rewrites have run already (the engine's,
    which knows a column's type: engine/column_constants.py)."""
    made = []
    for node in _outside_defaults(tree, *_OPERATORS, exp.In, exp.Between, exp.Anonymous):
        for operator, left, right in _operand_pairs(node):
            for literal, other in ((left, right), (right, left)):
                if isinstance(literal, exp.Literal) and literal.is_string and literal.parent is not None \
                        and (to := type_of(other)) is not None:  # (parent: not one a pair before replaced)
                    to = to if operator in _SAME_TYPE_OPERATORS.get(to.this, ()) else \
                        exp.DataType.build("DOUBLE") if operator in _DOUBLE_OPERAND.get(to.this, ()) else None
                    if to is not None:
                        made.append(literal.replace(_typed_constant(literal, to)))
    return made


def _operand_pairs(node: exp.Expression) -> list[tuple[type, exp.Expression, exp.Expression]]:
    """The operator ``node`` applies and the pairs of operands it applies it to: a binary
    operator's two; IN's value and each of its list (``=``); BETWEEN's value and each bound
    (``>=``, ``<=``); and, in a tree the parser has rewritten (the engine's), each pair of the
    operands its arithmetic macros were handed - the operation and its copies, all read alike."""
    if isinstance(node, _OPERATORS):
        return [(type(node), node.this, node.expression)]
    if isinstance(node, exp.In):
        return [] if node.args.get("query") or node.args.get("unnest") or node.args.get("field") else \
            [(exp.EQ, node.this, e) for e in node.expressions]
    if isinstance(node, exp.Between):
        return [(exp.GTE, node.this, node.args.get("low")), (exp.LTE, node.this, node.args.get("high"))]
    arguments = node.expressions if isinstance(node, exp.Anonymous) else []
    if node.name == DIVISOR_MACRO and len(arguments) == 2:  # (divisor, dividend): of x / y or x % y
        return [(exp.Mod if isinstance(node.parent, exp.Mod) else exp.Div, arguments[1], arguments[0])]
    if len(arguments) != 4:
        return []
    if node.name in (FLOAT_SUM_MACRO, FLOAT_PRODUCT_MACRO):  # (x op y twice - pairs of their own -, x, y)
        return [(type(arguments[0]), arguments[2], arguments[3])]
    if node.name in (DIVIDE_MACRO, POWER_MACRO):  # (x, y, x, y; DIVIDE_MACRO's y may be DIVISOR_MACRO's call)
        operator = exp.Div if node.name == DIVIDE_MACRO else exp.Pow
        return [(operator, x, y) for x in arguments[::2] for y in arguments[1::2]]
    return []


def _typed_constant(literal: exp.Literal, to: exp.DataType) -> exp.Expression:
    """A string constant as a value of type ``to``: a numeric by its digits (``_numeric_input``:
    NaN and Infinity, which txlake's numeric cannot hold, are cast, and refused so), else cast."""
    if to.this == exp.DType.DECIMAL and not to.expressions:
        number = _numeric_input(literal)
        if not (isinstance(number, exp.Literal) and number.is_string):
            return number
    return exp.Cast(this=literal.copy(), to=to.copy())


def postgres_cast(node: exp.Cast) -> exp.Expression:
    """``node`` as the parser rewrites a cast (``_cast``), for a tree whose rewrites have run:
    a cast ``typed_operands`` made there (the engine's)."""
    return _cast(node)


def _operand_type(node: exp.Expression) -> exp.DataType | None:
    """The type an operand has by its form (``_form_type``), or as a clock (``now()``), an
    interval constant, an array of constants (of string constants: a text[]), or a sum,
    difference, product or quotient of two numbers of such types has it; else None."""
    if (to := _form_type(node)) is not None:
        return to
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Anonymous) and node.name in (CLOCK_FUNCTION, STATEMENT_CLOCK):
        return exp.DataType.build("TIMESTAMPTZ")
    if isinstance(node, exp.Interval):
        return exp.DataType.build("INTERVAL")
    if isinstance(node, exp.Array) and node.expressions and all(
            isinstance(e, exp.Literal) and e.is_string for e in node.expressions):
        return exp.DataType.build("TEXT[]")  # (its unknown elements are text: ARRAY['a'] || 'b' is 22P02)
    if isinstance(node, (exp.Array, exp.Add, exp.Sub, exp.Mul, exp.Div)):
        parts = node.expressions if isinstance(node, exp.Array) else [node.this, node.expression]
        types = [_operand_type(p) for p in parts]
        if not types or None in types or not all(t.this in _NUMERIC_ORDER for t in types):
            return None
        widest = max(types, key=lambda t: _NUMERIC_ORDER.index(t.this))
        if isinstance(node, exp.Array):
            return exp.DataType(this=exp.DType.ARRAY, expressions=[widest.copy()], nested=True)
        return widest
    return None


def _branches(node: exp.Expression) -> list[exp.Select] | None:
    """The SELECTs a set operation combines, or None if one is something else (``SELECT *``)."""
    if isinstance(node, exp.SetOperation):
        left, right = _branches(node.this), _branches(node.expression)
        return left + right if left is not None and right is not None else None
    if isinstance(node, exp.Subquery):
        return _branches(node.this)
    if isinstance(node, exp.Select) and not any(isinstance(p, exp.Star) for p in node.expressions):
        return [node]
    return None


# the numeric types in PostgreSQL's order of preference: a column of several takes the last
_NUMERIC_ORDER = (exp.DType.SMALLINT, exp.DType.INT, exp.DType.BIGINT, exp.DType.DECIMAL, exp.DType.FLOAT,
                  exp.DType.DOUBLE)


def _resolve_unknowns(group: list[exp.Expression]) -> None:
    strings = [e for e in group if isinstance(e, exp.Literal) and e.is_string]
    if not strings:
        return
    known = [t for t in (_form_type(e) for e in group) if t is not None]
    if not known:
        return
    if all(t.this in _NUMERIC_ORDER for t in known):
        to = max(known, key=lambda t: _NUMERIC_ORDER.index(t.this))
    elif all(t == known[0] for t in known):
        to = known[0]
    else:
        return  # (types of different kinds: DuckDB's rules)
    if to.is_type(*exp.DataType.TEXT_TYPES):
        return
    for literal in strings:
        literal.replace(_numeric_input(literal) if to.this == exp.DType.DECIMAL and not to.expressions
                        else exp.Cast(this=literal.copy(), to=to.copy()))


def _form_type(node: exp.Expression) -> exp.DataType | None:
    """The type ``node`` has by its form alone: a number's, a cast's, a boolean's; else None."""
    if isinstance(node, exp.Literal) and not node.is_string:
        if not node.is_int:
            return exp.DataType.build("DECIMAL")
        value = int(node.this)
        return exp.DataType.build("INT" if _INT4[0] <= value <= _INT4[1] else "BIGINT"
                                  if -(1 << 63) <= value < (1 << 63) else "DECIMAL")
    if isinstance(node, exp.Neg):
        return _form_type(node.this)
    if isinstance(node, exp.Cast) and not isinstance(node, exp.TryCast):
        return node.to
    if isinstance(node, exp.Boolean):
        return exp.DataType.build("BOOLEAN")
    return None


def _numeric_input(literal: exp.Literal) -> exp.Expression:
    """A string constant read as a numeric, as PostgreSQL's numeric_in (22P02 if it is none):
    the number constant of its digits, whose scale DuckDB keeps. (NaN and Infinity, which no
    DECIMAL holds, stay as they are.)"""
    try:
        value = decimal.Decimal(literal.this.strip())
    except decimal.InvalidOperation:
        raise errors.InvalidTextRepresentation(f'invalid input syntax for type numeric: "{literal.this}"') from None
    if not value.is_finite():
        return literal.copy()
    number = exp.Literal.number(f"{abs(value):f}")
    return exp.Neg(this=number) if value.is_signed() else number


# the meta key of an unqualified table that ``schema.table.column`` names: the schemas named
NAMED_SCHEMAS = "txl_named_schemas"


def _schema_qualified_columns(tree: exp.Expression) -> None:
    """``SELECT other.t.k FROM other.t``: a column named with its table's schema is the column of
    the FROM item (or UPDATE / DELETE target) of that table without an alias, in its query or
    one around it, as PostgreSQL resolves it - the schema is dropped, so that the column reads as
    ``t.k`` does (DuckDB found no table "other.t": txlake names each table it reads anew). An
    unqualified FROM item may be named with any schema here - the schemas it is named with go
    into its ``meta[NAMED_SCHEMAS]``, for the executor to check against the one the table is
    found in (``SELECT other.t.k FROM t`` with t in public is 42P01, as in PostgreSQL) - a
    qualified one with its own."""
    for column in list(tree.find_all(exp.Column)):
        schema = column.args.get("db")
        if schema is None or column.args.get("catalog") is not None or not column.table:
            continue
        table, scope = _name(column.args["table"]), column.parent
        while scope is not None:
            item = _names_table(scope, _name(schema), table) if isinstance(scope, (exp.Select, exp.Update,
                                                                                   exp.Delete)) else None
            if item is not None:
                column.set("db", None)
                if item.args.get("db") is None:  # (the executor checks the schema it is found in)
                    item.meta.setdefault(NAMED_SCHEMAS, set()).add(_name(schema))
                break
            scope = scope.parent


def _name(node: exp.Expression) -> str:
    return node.this if isinstance(node, exp.Identifier) and node.quoted else node.name.lower()


def _names_table(scope: exp.Expression, schema: str, table: str) -> exp.Table | None:
    """The item by which ``scope`` reads (or writes) ``schema.table`` under that name - no alias
    - or None."""
    items = [scope.this] if isinstance(scope, (exp.Update, exp.Delete)) else []
    source = scope.args.get("from_")
    items += [source.this] if source is not None else []
    items += [join.this for join in scope.args.get("joins") or ()] + list(scope.args.get("using") or ())
    databases = {"default" if schema == "public" else schema}
    for item in items:
        if isinstance(item, exp.Table) and item.args.get("alias") is None and isinstance(item.this, exp.Identifier) \
                and _name(item.this) == table:
            db = item.args.get("db")
            if db is None or {"default" if _name(db) == "public" else _name(db)} == databases:
                return item
    return None


# the conditions PostgreSQL requires to be boolean, by what its message calls them: each is
# checked by the DuckDB macro ``txl_boolean_<key>`` (engine/dialect.py), which is the condition
# itself once bound - its dead branch calls ``txl_is_boolean_<key>(x)``, a function taking only
# a BOOLEAN, so that binding anything else fails, naming the type (engine/errors_map.py)
BOOLEAN_CONTEXTS = {"where": "WHERE", "having": "HAVING", "join_on": "JOIN/ON", "case_when": "CASE/WHEN",
                    "filter": "FILTER", "and": "AND", "or": "OR", "not": "NOT", "check": "CHECK constraint",
                    "policy": "POLICY"}
BOOLEAN_CHECK, BOOLEAN_FUNCTION = "txl_boolean_", "txl_is_boolean_"
# conditions boolean by their form: a comparison, a connective, a literal DuckDB casts as
# PostgreSQL does (NULL, 'true'), a parameter (PostgreSQL's takes the type boolean there)
_BOOLEAN_FORMS = (exp.Predicate, exp.Connector, exp.Not, exp.Boolean, exp.Null, exp.Placeholder, exp.Escape)


def _check_boolean_arguments(tree: exp.Expression) -> None:
    """Route each condition that is not boolean by its form (a column, a function, a CASE, a
    number) through the check of its context (``BOOLEAN_CONTEXTS``); the usual conditions -
    comparisons and their connectives - stay as they are, so the check costs their statements
    nothing but this walk, once per statement text."""
    for node in _outside_defaults(tree, exp.Where, exp.Having, exp.Join, exp.Case, exp.Connector, exp.Not):
        if isinstance(node, exp.Where):
            _check_condition(node, "this", "filter" if isinstance(node.parent, exp.Filter) else "where")
        elif isinstance(node, exp.Having):
            _check_condition(node, "this", "having")
        elif isinstance(node, exp.Join):
            _check_condition(node, "on", "join_on")
        elif isinstance(node, exp.Case):
            if node.args.get("this") is None:  # (a simple CASE x WHEN 1 compares; its WHENs are values)
                for when in node.args.get("ifs") or ():
                    _check_condition(when, "this", "case_when")
        elif isinstance(node, (exp.And, exp.Or)):
            _check_condition(node, "this", node.key)
            _check_condition(node, "expression", node.key)
        elif isinstance(node, exp.Not):
            _check_condition(node, "this", "not")


def _check_condition(parent: exp.Expression, key: str, context: str) -> None:
    condition = parent.args.get(key)
    if condition is not None:
        checked = boolean_condition(condition, context)
        if checked is not condition:
            parent.set(key, checked)


def boolean_condition(condition: exp.Expression, context: str) -> exp.Expression:
    """``condition`` as it is if it is boolean by its form, else through the check of its
    context (``BOOLEAN_CONTEXTS``)."""
    inner = condition
    while isinstance(inner, exp.Paren):
        inner = inner.this
    if isinstance(inner, _BOOLEAN_FORMS) or (isinstance(inner, exp.Literal) and inner.is_string) \
            or (isinstance(inner, exp.Cast) and inner.to.is_type(exp.DType.BOOLEAN)):
        return condition
    return exp.Anonymous(this=BOOLEAN_CHECK + context, expressions=[condition])


# sum() and avg() as PostgreSQL types them (engine/dialect.py's macros): in a query, and as a
# window function (whose macros take the window's DuckDB sum, count and avg, and the argument
# for its type alone: DuckDB takes no macro of an aggregate nested in another expression there)
SUM_MACRO, WINDOW_SUM_MACRO, AVG_MACRO, WINDOW_AVG_MACRO = "txl_sum", "txl_window_sum", "txl_avg", "txl_window_avg"
_AGGREGATE_MACROS = {SUM_MACRO, WINDOW_SUM_MACRO, AVG_MACRO, WINDOW_AVG_MACRO}
# an interval's months, days and microseconds (NULL of another type's value): the window macros
# take the window's sums of them, as DuckDB has no sum of intervals
INTERVAL_PARTS = ("txl_interval_months", "txl_interval_days", "txl_interval_micros")


def _typed_aggregate(node: exp.Sum | exp.Avg) -> None:
    """``sum(x)`` and ``avg(x)`` through the macros that give them PostgreSQL's types - DuckDB's
    sum of integers is a HUGEINT, of reals a DOUBLE, its avg of integers a DOUBLE; a FILTER
    goes into the argument (``sum(CASE WHEN c THEN x END)``: the same rows count), as a macro
    takes none. ``sum(DISTINCT x)`` and ``sum(x ORDER BY y)`` stay DuckDB's."""
    argument = node.this
    if isinstance(argument, (exp.Distinct, exp.Order)) or any(
            v is not None for k, v in node.args.items() if k != "this") or not _typed_argument(argument):
        return  # (sum(count(*)) OVER (): see _typed_argument)
    outer = node
    if isinstance(node.parent, exp.Filter) and node.arg_key == "this":
        outer = node.parent
        argument = exp.Case(ifs=[exp.If(this=outer.expression.this.copy(), true=argument.copy())])
    argument = argument.copy() if argument is node.this else argument
    over = outer.parent
    if not (isinstance(over, exp.Window) and outer.arg_key == "this"):
        outer.replace(exp.Anonymous(this=SUM_MACRO if isinstance(node, exp.Sum) else AVG_MACRO, expressions=[argument]))
    elif isinstance(node, exp.Sum):
        over.replace(exp.Anonymous(this=WINDOW_SUM_MACRO, expressions=[over.copy(), argument,
                                                                        *_part_sums(over)]))
    else:
        over.replace(exp.Anonymous(this=WINDOW_AVG_MACRO, expressions=[
            _over(over, exp.Sum), _over(over, exp.Count), over.copy(), argument, *_part_sums(over)]))


def _part_sums(window: exp.Window) -> list[exp.Window]:
    """``window``'s sums of its argument's interval parts (``INTERVAL_PARTS``)."""
    return [_over(window, lambda this, part=part: exp.Sum(this=exp.Anonymous(this=part, expressions=[this])))
            for part in INTERVAL_PARTS]


_HYPOTHETICAL = (exp.Rank, exp.DenseRank, exp.PercentRank, exp.CumeDist)
_ORDERED_SET = (exp.PercentileCont, exp.PercentileDisc, exp.Mode, *_HYPOTHETICAL)
_ORDERED_SET_NAMES = {exp.Rank: "rank", exp.DenseRank: "dense_rank", exp.PercentRank: "percent_rank",
                      exp.CumeDist: "cume_dist", exp.PercentileCont: "percentile_cont",
                      exp.PercentileDisc: "percentile_disc", exp.Mode: "mode"}


def _filter(node: exp.Filter) -> exp.Expression:
    """``agg(...) FILTER (WHERE c)`` of an aggregate a rewrite made a scalar function's argument
    (parser/json_ops.py's ``jsonb_agg(x)``: ``txl_jsonb_in(to_json(list(x)))``): the FILTER
    goes onto that aggregate, where DuckDB takes it (on the scalar function it was 22023)."""
    call = node.this
    if not isinstance(call, exp.Anonymous) or _is_list(call):  # (the wrappers are calls of txlake's functions)
        return node
    inner = next((n for n in call.walk(prune=lambda n: isinstance(n, exp.Query)) if _is_list(n)), None)
    if inner is None:
        return node
    inner.replace(exp.Filter(this=inner.copy(), expression=node.expression.copy()))
    return call.copy()


def _window(node: exp.Window) -> exp.Expression:
    """``agg(...) [FILTER (...)] OVER (...)`` of an aggregate a rewrite made a scalar function's
    argument (``_filter``): the window goes onto that aggregate (``txl_jsonb_in(to_json(list(x)
    OVER w))``; on the scalar function it was 42883 "not an aggregate function")."""
    call = node.this
    if not isinstance(call, exp.Anonymous) or _is_list(call):
        return node
    inner = next((n for n in call.walk(prune=lambda n: isinstance(n, exp.Query))
                  if _is_list(n) or (isinstance(n, exp.Filter) and _is_list(n.this))), None)
    if inner is None:
        return node
    window = node.copy()
    window.set("this", inner.copy())
    inner.replace(window)
    return call.copy()


def _is_list(node: exp.Expression) -> bool:
    return isinstance(node, exp.Anonymous) and node.name.lower() == "list"


def _windowed(node: exp.Expression) -> bool:
    """Is ``node`` (with its FILTER) the function of a window (``... OVER (...)``)?"""
    call = node.parent if isinstance(node.parent, exp.Filter) else node
    return isinstance(call.parent, exp.Window) and call.arg_key == "this"


def _hypothetical(node: exp.WithinGroup) -> None:
    """``rank(h...) WITHIN GROUP (ORDER BY x...)`` and dense_rank, percent_rank, cume_dist:
    PostgreSQL's hypothetical-set aggregates (DuckDB has none: 42000) - of the row ``h`` were it
    added to the group, counted from the rows that sort before it (or with it: its peers) in
    the ORDER BY's order, NULLs first or last as it says. A FILTER keeps its rows."""
    function, keys = node.this, node.expression.expressions
    values = function.expressions
    name = _ORDERED_SET_NAMES[type(function)]
    if len(values) != len(keys):
        raise errors.ProgrammingError(f"function {name} with {len(values)} hypothetical argument(s) and {len(keys)} "
                                      "ordering column(s) does not exist\nHINT:  To use the hypothetical-set "
                                      "aggregate, the number of hypothetical direct arguments must match the number "
                                      "of ordering columns.", sqlstate="42883")
    if any(v.find(exp.AggFunc) is not None for v in values):
        raise errors.ProgrammingError("aggregate function calls cannot be nested", sqlstate="42803")
    before, peer = exp.false(), exp.true()
    for ordered, value in reversed(list(zip(keys, values))):
        x, h, nulls_first = ordered.this, value, bool(ordered.args.get("nulls_first"))
        precedes = (exp.GT if ordered.args.get("desc") else exp.LT)(this=x.copy(), expression=h.copy())
        x_null, h_null = exp.Is(this=x.copy(), expression=exp.Null()), exp.Is(this=h.copy(), expression=exp.Null())
        key_before = exp.Case(ifs=[exp.If(this=exp.and_(x_null.copy(), h_null.copy()), true=exp.false()),
                                   exp.If(this=x_null, true=exp.Boolean(this=nulls_first)),
                                   exp.If(this=h_null, true=exp.Boolean(this=not nulls_first))], default=precedes)
        key_peer = exp.NullSafeEQ(this=x.copy(), expression=h.copy())
        before = exp.or_(key_before, exp.and_(key_peer.copy(), before, wrap=True), wrap=True)
        peer = exp.and_(key_peer, peer, wrap=True)
    outer = node.parent if isinstance(node.parent, exp.Filter) else node
    kept = outer.expression.this.copy() if outer is not node else None

    def counted(condition: exp.Expression | None, distinct: bool = False) -> exp.Expression:
        condition = exp.and_(kept.copy(), condition, wrap=True) if kept is not None and condition is not None \
            else kept.copy() if kept is not None else condition
        argument = exp.Distinct(expressions=[exp.Anonymous(this="row", expressions=[k.this.copy() for k in keys])]) \
            if distinct else exp.Star()
        count = exp.Count(this=argument)
        return count if condition is None else exp.Filter(this=count, expression=exp.Where(this=condition))

    double = exp.DataType.build("DOUBLE")
    if isinstance(function, (exp.Rank, exp.DenseRank)):
        value = exp.Add(this=exp.Literal.number(1), expression=counted(before, isinstance(function, exp.DenseRank)))
    elif isinstance(function, exp.PercentRank):
        value = exp.Case(ifs=[exp.If(this=exp.EQ(this=counted(None), expression=exp.Literal.number(0)),
                                     true=exp.cast(exp.Literal.number(0), double))],
                         default=exp.Div(this=exp.cast(counted(before), double), expression=counted(None)))
    else:
        value = exp.Div(this=exp.cast(exp.Add(this=counted(exp.or_(before, peer, wrap=True)),
                                              expression=exp.Literal.number(1)), double),
                        expression=exp.Add(this=counted(None), expression=exp.Literal.number(1)))
    for h in values:  # (read outside the aggregate too: a column not grouped by is 42803, as PostgreSQL's)
        if h.find(exp.Column) is not None:
            value = exp.Case(ifs=[exp.If(this=exp.NullSafeEQ(this=h.copy(), expression=h.copy()), true=value)])
    outer.replace(value)


def _over(window: exp.Window, aggregate: type) -> exp.Window:
    """``window`` (``avg(x) [FILTER (...)] OVER (...)``) computing ``aggregate`` of its argument."""
    copy = window.copy()
    call = copy.this.this if isinstance(copy.this, exp.Filter) else copy.this
    call.replace(aggregate(this=call.this) if isinstance(aggregate, type) else aggregate(call.this))
    return copy


def _typed_argument(node: exp.Expression) -> bool:
    """May ``node`` be the argument of a DuckDB macro that picks its form by its argument's type
    (``SUM_MACRO``, ``LENGTH_MACRO``, ...)? Not if it holds an aggregate, a window function or a
    subquery, or an output column's alias (DuckDB's ``ORDER BY total / 2``): DuckDB picks the
    form before it knows their types (the first form, or "multiple overloads match") - such a
    call stays DuckDB's own."""
    select = node.find_ancestor(exp.Select)
    aliases = {p.alias for p in select.expressions if isinstance(p, exp.Alias)} if select is not None else ()
    return not any(isinstance(n, (exp.AggFunc, exp.Window, exp.Subquery)) or (
        isinstance(n, exp.Anonymous) and n.name in _AGGREGATE_MACROS) or (
        isinstance(n, exp.Column) and not n.table and n.name in aliases) for n in node.walk())


def _values_columns(values: exp.Values, tree: exp.Expression) -> exp.Expression:
    """A VALUES list's columns are column1, column2, ... as PostgreSQL names them (DuckDB's are
    col0, col1, ...): given as the table alias's column names where none are; a VALUES
    statement of its own is read as ``SELECT * FROM (VALUES ...) AS "*VALUES*"(column1, ...)``.
    Returns ``tree``, or what replaces it."""
    alias = values.args.get("alias")
    if alias is not None and alias.args.get("columns"):
        return tree
    first = values.expressions[0] if values.expressions else None
    width = len(first.expressions) if isinstance(first, exp.Tuple) else 1
    columns = [exp.to_identifier(f"column{i + 1}") for i in range(width)]
    if values is not tree:
        if not isinstance(values.parent, (exp.From, exp.Join)):
            return tree  # (IN (VALUES ...) has no names; a set operation's are its first branch's)
        values.set("alias", exp.TableAlias(this=alias.this if alias is not None else exp.to_identifier(
            "*VALUES*", quoted=True), columns=columns))
        return tree
    tail = {key: values.args.pop(key) for key in ("order", "limit", "offset") if values.args.get(key) is not None}
    values.set("alias", exp.TableAlias(this=exp.to_identifier("*VALUES*", quoted=True), columns=columns))
    return exp.Select(expressions=[exp.Star()], from_=exp.From(this=values), **tail)


_INT4 = (-(1 << 31), (1 << 31) - 1)  # an integer literal in this range is PostgreSQL's int4


def _outside_defaults(tree: exp.Expression, *types) -> list[exp.Expression]:
    """The nodes of ``types`` in ``tree``, but those of a column's DEFAULT in CREATE / ALTER
    TABLE: a default is stored as written (with PostgreSQL's words, not txlake's macros) and
    rewritten where it is used (engine/executor.py ``_default_sql``)."""
    return [n for n in tree.find_all(*types) if not in_default(n)]


def in_default(node: exp.Expression) -> bool:
    """Is ``node`` part of a column's DEFAULT in CREATE / ALTER TABLE (a column definition, or
    ALTER COLUMN ... SET DEFAULT - not TYPE ... USING, which is evaluated as it stands)?"""
    if node.find_ancestor(exp.ColumnDef) is not None:
        return True
    alter = node.find_ancestor(exp.AlterColumn)
    default = alter.args.get("default") if alter is not None else None
    while default is not None and node is not None and node is not alter:
        if node is default:
            return True
        node = node.parent
    return False


def _fold_aliases(tree: exp.Expression) -> None:
    """An unquoted alias is folded to lower case, as PostgreSQL folds every unquoted name:
    ``SELECT 1 AS Total`` names its column total (DuckDB kept Total - and CREATE TABLE AS
    stored it so, for other engines to see)."""
    for node in tree.find_all(exp.Alias, exp.TableAlias):
        names = [node.args.get("alias")] if isinstance(node, exp.Alias) else \
            [node.this, *(node.args.get("columns") or ())]
        for name in names:
            if isinstance(name, exp.Identifier) and not name.quoted:
                name.set("this", name.this.lower())


def _column_names(select: exp.Select | exp.Returning, written: list, text: str) -> None:
    """Name each unnamed column as PostgreSQL does (``column_name``), from the expression as
    written - not as rewritten, nor by DuckDB's rules (which name ``lower(s)`` "lower(s)" and a
    rewritten ``sqrt(x)`` "txl_sqrt(x)"). A column reference keeps the name DuckDB gives it."""
    for i, (projection, original) in enumerate(zip(select.expressions, written)):
        if original is None or isinstance(projection, exp.Alias):
            continue
        if isinstance(original, exp.Star) or (isinstance(original, exp.Column) and isinstance(projection, exp.Column)
                                              and original.name.lower() not in _SESSION_COLUMNS):
            continue  # (DuckDB names a column after itself)
        select.expressions[i] = exp.alias_(projection, column_name(original, text), quoted=True)


# names PostgreSQL reserves for the session's identity, which sqlglot parses as columns: the
# functions (engine/dialect.py ``identity``) that say it
# names the executor replaces by the session's values (engine/executor.py ``_session_value``)
_SESSION_COLUMNS = {"current_schema"}
_NAME_KEYWORDS = {"user": "current_user", "current_role": "current_role", "session_user": "session_user"}
_IDENTITY_FUNCTIONS = {exp.CurrentUser: "current_user", exp.SessionUser: "session_user",
                       exp.CurrentVersion: "version"}
# the type names PostgreSQL names a cast's column after (its internal names: int4, not integer)
_TYPE_NAMES = {"INT": "int4", "BIGINT": "int8", "SMALLINT": "int2", "TINYINT": "int2", "FLOAT": "float4",
               "DOUBLE": "float8", "DECIMAL": "numeric", "BOOLEAN": "bool", "CHAR": "bpchar", "VARBINARY": "bytea",
               "BLOB": "bytea", "TIMESTAMPNTZ": "timestamp", "TIMESTAMPTZ": "timestamptz", "TIMETZ": "timetz"}
# what PostgreSQL names the column of syntax sqlglot parses into a function of another name
_FUNCTION_NAMES = {exp.Format: "format", exp.Substring: "substring", exp.Sqrt: "sqrt", exp.Ln: "ln",
                   exp.Log: "log", exp.Pow: "power", exp.MakeInterval: "make_interval", exp.ToChar: "to_char",
                   exp.ToNumber: "to_number",
                   exp.Extract: "extract", exp.UnixToTime: "to_timestamp", exp.Trim: "btrim",
                   exp.StrPosition: "position", exp.Overlay: "overlay", exp.Array: "array", exp.Exists: "exists",
                   exp.Coalesce: "coalesce", exp.Nullif: "nullif", exp.Greatest: "greatest", exp.Least: "least",
                   exp.GroupConcat: "string_agg"}


# the comment after the cast engine/prepared.py writes for a $n of a declared type: a parameter,
# which PostgreSQL names ?column? (not int4, as it names the cast)
PARAMETER_COMMENT = "txl:parameter"


def column_name(node: exp.Expression, text: str = "") -> str:
    """The name PostgreSQL gives the column of an unnamed SELECT-list expression (its parser's
    FigureColname): a column's name; a function's name as written; a cast's type, unless what
    it casts has a name; a CASE's ELSE's name, or ``case``; a scalar subquery's column's;
    otherwise ``?column?``. ``text``: the statement, for a function's name as written."""
    return _figure(node, text)[0] or "?column?"


def _figure(node: exp.Expression, text: str) -> tuple[str | None, int]:
    """(the name, how strongly it holds): 2 for a column's or a function's, 1 for a type's or
    ``case``, which a stronger one inside the cast or the ELSE wins over; (None, 0) for none."""
    if node.meta.get(PREFIX_OPERATOR):  # (|/ x: an operator's value, not sqrt's)
        return None, 0
    if isinstance(node, (exp.Paren, exp.Window, exp.Filter, exp.WithinGroup, exp.Bracket)):
        return _figure(node.this, text)  # (PostgreSQL has no node for parentheses; a subscript keeps the name)
    if isinstance(node, exp.Column):
        return (node.name, 2) if not isinstance(node.this, exp.Star) else (None, 0)
    if isinstance(node, exp.Dot):
        return node.name or None, 2
    if isinstance(node, exp.Cast):
        if PARAMETER_COMMENT in (node.comments or ()):
            return None, 0  # (a $n of PREPARE's: PostgreSQL names a parameter nothing)
        name, strength = _figure(node.this, text)
        if strength > 1:
            return name, strength
        to = node.to
        while to.this == exp.DType.ARRAY and to.expressions:  # (int[] is named as int is)
            to = to.expressions[0]
        if to.this == exp.DType.USERDEFINED:  # ('ok'::public.mood: mood)
            named = to.args.get("kind")
            text = named.name if isinstance(named, exp.Expression) else str(named)
            return text.rpartition(".")[2].strip('"'), 1
        kind = to.this.name if isinstance(to.this, exp.DType) else to.sql(dialect="duckdb")
        return _TYPE_NAMES.get(kind, kind.lower()), 1
    if isinstance(node, exp.Case):
        default = node.args.get("default")
        name, strength = _figure(default, text) if default is not None else (None, 0)
        return (name, strength) if strength > 1 else ("case", 1)
    if isinstance(node, exp.Boolean):  # (TRUE is 't'::bool to PostgreSQL's parser)
        return "bool", 1
    if isinstance(node, exp.Interval):  # (INTERVAL '1 day' is a cast too)
        return "interval", 1
    if isinstance(node, exp.Subquery) and isinstance(node.this, exp.Select) and node.this.expressions:
        first = node.this.expressions[0]
        return (first.alias if isinstance(first, exp.Alias) else column_name(first, text)), 2
    if isinstance(node, exp.Tuple) or (isinstance(node, exp.Anonymous) and node.name.lower() == "row"):
        return "row", 2
    name = _clock_name(node)
    if name is None and isinstance(node, (exp.Func, exp.Mod)) and (
            not isinstance(node, exp.Binary) or "start" in node.meta):
        name = _written_name(node, text)  # (power(2, 3), not 2 ^ 3: both are sqlglot's Pow; mod(7, 3) too)
    return (name, 2) if name else (None, 0)


def _written_name(node: exp.Func, text: str) -> str | None:
    """A function's name as the statement wrote it (``char_length``, ``substr``: sqlglot parses
    them as LENGTH and SUBSTRING), folded to lower case unless quoted; for syntax that has no
    name of its own to sqlglot (``trim(x)``, ``substring(s FROM 2)``), PostgreSQL's name for it."""
    if isinstance(node, exp.Anonymous):
        quoted = isinstance(node.this, exp.Identifier) and node.this.quoted
        return node.name if quoted else node.name.lower()
    start, end = node.meta.get("start"), node.meta.get("end")
    if start is not None and end is not None and text:
        written = text[start:end + 1]
        if written.replace("_", "a").isalnum():
            return written.lower()
    if type(node) in _FUNCTION_NAMES:
        return _FUNCTION_NAMES[type(node)]
    name = node.sql_name()
    return name.lower() if name else None


_FORMAT_SPEC = re.compile(r"%(?:(\d+)\$)?([sIL%])")


# format('%I', NULL): PostgreSQL's 22004 (engine/errors_map.py), raised by DuckDB's error()
NULL_IDENTIFIER = "null values cannot be formatted as an SQL identifier"


def _format(node: exp.Format) -> exp.Expression:
    """``format(f, ...)`` as DuckDB's ``printf`` with ``%s`` only: each ``%s`` takes its value as
    PostgreSQL's text of it (``_text``: a double 1, not 1.0), NULL as ''; ``%I`` quotes that text
    as an identifier (``quote_ident``), ``%L`` as a literal (NULL unquoted), as PostgreSQL's;
    ``%2$s`` takes the second value. A format that is no constant is taken as ``%s`` only."""
    values = [_text(v, exp.cast(v.copy(), exp.DataType.build("VARCHAR"))) for v in node.expressions]
    as_text = [exp.func("coalesce", v.copy(), exp.Literal.string("")) for v in values]
    pattern = node.this
    if not (isinstance(pattern, exp.Literal) and pattern.is_string):
        return exp.Anonymous(this="printf", expressions=[pattern, *as_text])
    args, pieces, last, following = [], [], 0, 0
    for spec in _FORMAT_SPEC.finditer(pattern.this):
        pieces.append(pattern.this[last:spec.start()].replace("%", "%%"))
        last = spec.end()
        position, kind = spec.groups()
        if kind == "%":
            pieces.append("%%")
            continue
        index = int(position) - 1 if position else following
        following = index + 1
        if not 0 <= index < len(values):
            raise errors.InvalidParameterValue("too few arguments for format()")
        value = values[index]
        args.append(as_text[index].copy() if kind == "s" else
                    exp.func("coalesce", exp.Anonymous(this="quote_ident", expressions=[value.copy()]),
                             exp.Anonymous(this="error", expressions=[exp.Literal.string(NULL_IDENTIFIER)]))
                    if kind == "I" else
                    exp.func("coalesce", exp.Anonymous(this="quote_literal", expressions=[value.copy()]),
                             exp.Literal.string("NULL")))
        pieces.append("%s")
    pieces.append(pattern.this[last:].replace("%", "%%"))
    return exp.Anonymous(this="printf", expressions=[exp.Literal.string("".join(pieces)), *args])


def _like_any(node: exp.Like | exp.ILike) -> None:
    """``x LIKE ANY (ARRAY['a%', 'b%'])`` as ``(x LIKE 'a%' OR x LIKE 'b%')`` (ALL: AND), as
    PostgreSQL means it (DuckDB has no LIKE ANY: a syntax error), each LIKE escaped as any other;
    the array's text as a constant, ``LIKE ANY ('{a%,b%}')``, read now (22P02 if malformed). An
    array not written out stays (refused by DuckDB, as before)."""
    quantified = node.expression
    array = quantified.this.this if isinstance(quantified.this, exp.Paren) else quantified.this
    if isinstance(array, exp.Literal) and array.is_string:
        array = _array_elements(array.this).this
    if not isinstance(array, exp.Array) or not array.expressions:
        node.replace(_like_any_of(node, array))
        return
    likes = [type(node)(this=node.this.copy(), expression=pattern.copy(), negate=node.args.get("negate"))
             for pattern in array.expressions]  # (x NOT LIKE ALL (...): each is a NOT LIKE)
    joined = exp.paren(exp.or_(*likes, copy=False) if isinstance(quantified, exp.Any)
                       else exp.and_(*likes, copy=False), copy=False)
    node.replace(joined)
    for like in likes:
        if _escapes(like):
            like.replace(exp.Escape(this=like.copy(), expression=exp.Literal.string("\\")))


# LIKE_ANY / LIKE_ALL (engine/dialect.py): x [NOT] LIKE ANY / ALL of an array known at run time
# (a parameter, a column, an empty array), the LIKE of each element made: PostgreSQL's answer
# (NULL for a NULL array; an empty one false for ANY, true for ALL; NULL where no element
# decides and one was NULL) - DuckDB compared x with the array's text, or refused a list
LIKE_ANY, LIKE_ALL = "txl_like_any", "txl_like_all"


def _like_any_of(node: exp.Like | exp.ILike, array: exp.Expression) -> exp.Expression:
    pattern = exp.column("__txl_pattern")
    like = exp.Anonymous(this="ilike_escape" if isinstance(node, exp.ILike) else "like_escape",
                         expressions=[node.this.copy(), pattern, exp.Literal.string("\\")])  # (PostgreSQL's escape)
    if node.args.get("negate"):
        like = exp.Not(this=like)
    listed = exp.cast(exp.Anonymous(this=ARRAY_MACRO, expressions=[array.copy()]), exp.DataType.build("VARCHAR[]"))
    each = exp.Anonymous(this="list_transform", expressions=[
        listed, exp.Lambda(this=like, expressions=[exp.to_identifier("__txl_pattern")])])
    return exp.Anonymous(this=LIKE_ANY if isinstance(node.expression, exp.Any) else LIKE_ALL, expressions=[each])


def _typed_series(node: exp.GenerateSeries) -> None:
    """``generate_series()`` as PostgreSQL types it (``SERIES_ROWS``): in FROM the macro's rows,
    the alias naming its column as PostgreSQL's does (``generate_series(1, 3) g``: a column
    ``g``); in a select list its rows too (DuckDB's is one list). A string constant among the
    arguments (``'1 day'``) is left to DuckDB's own function, which reads it by the others'
    types."""
    arguments, untyped = _series_arguments(node)
    table = node.parent
    if isinstance(table, (exp.Table, exp.Lateral)) and not node.args.get("is_end_exclusive") and not untyped:
        alias = table.args.get("alias") or exp.TableAlias(this=exp.to_identifier("generate_series"))
        if not alias.columns:
            alias.set("columns", [alias.this.copy()])
        macro = SERIES_NUMBERED if table.args.get("ordinality") else SERIES_ROWS
        table.set("this", exp.Anonymous(this=macro, expressions=arguments))
        table.set("ordinality", None)
        table.set("alias", alias)
    elif _in_select_list(node, "expressions", "order") and not _is_call(node.parent, "list_transform"):
        # (not one _text listed; in ORDER BY its rows too, as PostgreSQL's: DuckDB ordered by the list)
        node.replace(exp.Anonymous(this="unnest", expressions=[_series_list(node)]))


def _series_arguments(node: exp.GenerateSeries) -> tuple[list[exp.Expression], bool]:
    """generate_series()'s arguments, and whether a string constant is among them."""
    arguments = [node.args[k].copy() for k in ("start", "end", "step") if node.args.get(k) is not None]
    return arguments, any(isinstance(a, exp.Literal) and a.is_string for a in arguments)


def _series_list(node: exp.GenerateSeries) -> exp.Expression:
    """A select list's series as a list, to be unnested: SERIES_LIST's (a set of rows there, as
    in PostgreSQL: DuckDB's is one list), or DuckDB's own of a string constant."""
    arguments, untyped = _series_arguments(node)
    return node.copy() if untyped else exp.Anonymous(this=SERIES_LIST, expressions=arguments)


def _in_select_list(node: exp.Expression, *parts: str) -> bool:
    """Is ``node`` part of a SELECT's output columns (not its FROM, WHERE, ...) - or of another of
    its ``parts`` ("order": its ORDER BY)?"""
    child, parent = node, node.parent
    while parent is not None and not isinstance(parent, exp.Select):
        child, parent = parent, parent.parent
    return parent is not None and child.arg_key in (parts or ("expressions",))


def _escapes(node: exp.Like | exp.ILike) -> bool:
    """Does a LIKE need its backslash escape made explicit? Only for a pattern that may hold a
    backslash: one without matches alike, and keeps DuckDB's LIKE optimizations."""
    pattern = node.expression
    return not isinstance(node.parent, exp.Escape) and not (
        isinstance(pattern, exp.Literal) and "\\" not in pattern.this)


# The transaction's id, as PostgreSQL's txid_current(): the executor defines these DuckDB
# functions (DuckDB's own txid_current() is its internal transaction's, new at each statement)
XID_FUNCTION, XID_IF_ASSIGNED_FUNCTION = "txl_xid", "txl_xid_if_assigned"
_XID_CALLS = {"txid_current": XID_FUNCTION, "pg_current_xact_id": XID_FUNCTION,
              "txid_current_if_assigned": XID_IF_ASSIGNED_FUNCTION,
              "pg_current_xact_id_if_assigned": XID_IF_ASSIGNED_FUNCTION}

# PostgreSQL's advisory lock functions: each call is one of the executor's DuckDB function
# (engine/advisory.py), given the function's name (ADVISORY_PAIR after it for the two-integer key)
ADVISORY_FUNCTION, ADVISORY_PAIR, ADVISORY_UNLOCK_ALL = "txl_advisory", ":2", "pg_advisory_unlock_all"
ADVISORY_CALLS = frozenset(f"pg_{t}advisory_{x}lock{s}" for t in ("", "try_") for x in ("", "xact_")
                           for s in ("", "_shared")) | {"pg_advisory_unlock", "pg_advisory_unlock_shared"}

# The transaction's start time, as PostgreSQL's now(): the executor defines this DuckDB function
# (DuckDB's own now() is the start of each statement it runs)
CLOCK_FUNCTION = "txl_now"
STATEMENT_CLOCK = "get_current_timestamp"  # DuckDB's: the start of the statement it runs
# PostgreSQL's clock functions that mean the transaction's start: their column names, and the
# types the start is cast to, in turn
_CLOCK_TYPES = {exp.CurrentTimestamp: ("current_timestamp", ()), exp.CurrentDate: ("current_date", ("DATE",)),
                exp.CurrentTime: ("current_time", ("TIMETZ",)),
                exp.Localtimestamp: ("localtimestamp", ("TIMESTAMP",)),
                exp.Localtime: ("localtime", ("TIMESTAMP", "TIME"))}
_CLOCK_CALLS = {"now": None, "transaction_timestamp": None,
                # the statement's start: DuckDB's own (clock_timestamp() too: DuckDB has no
                # clock that moves within a statement)
                "statement_timestamp": "statement", "clock_timestamp": "statement"}


def _clock_name(node: exp.Expression) -> str | None:
    """The column name PostgreSQL gives a clock function's value (``now``, ``current_date``),
    or None if ``node`` is not one."""
    if isinstance(node, exp.Anonymous):
        name = node.name.lower()
        return name if name in _CLOCK_CALLS and not node.expressions else None
    named = _CLOCK_TYPES.get(type(node))
    return named[0] if named else None


def transaction_clock(tree: exp.Expression) -> exp.Expression:
    """Point the clock functions in ``tree`` at the transaction's start (``CLOCK_FUNCTION``), or
    at the statement's for ``statement_timestamp()`` / ``clock_timestamp()``. A column default
    in CREATE / ALTER TABLE is kept as written: it is rewritten where an INSERT uses it."""
    def clock(node):
        name = _clock_name(node)
        if name is None or in_default(node):
            return node
        if _CLOCK_CALLS.get(name) == "statement":  # (a call: DuckDB may take CURRENT_TIMESTAMP for a column alias)
            return exp.Anonymous(this=STATEMENT_CLOCK)
        start = exp.Anonymous(this=CLOCK_FUNCTION)
        for to in _CLOCK_TYPES.get(type(node), (name, ()))[1]:
            start = exp.cast(start, to)
        return start
    return tree.transform(clock, copy=False)


# --- rewrites of one node --------------------------------------------------------------------

def _row_fields(node: exp.Expression) -> list[exp.Expression] | None:
    """The fields of a row constructor - ``(a, b)`` or ``ROW(a, b)`` - or None."""
    if isinstance(node, exp.Tuple) and len(node.expressions) > 1:
        return node.expressions
    if isinstance(node, exp.Anonymous) and node.name.upper() == "ROW":
        return node.expressions
    return None


def _row_comparison(node: exp.Expression) -> exp.Expression:
    """``(a, b) = (c, d)`` is ``a = c AND b = d`` (NULL if a field is NULL and none differs),
    ``<>`` its negation, ``(a, b) IN (rows)`` an OR of them, ``(a, b) IS NULL`` true when every
    field is NULL and ``IS NOT NULL`` when none is - PostgreSQL's row semantics. DuckDB
    compares rows as structs, where NULL equals NULL: a self-join on (a, b) = (a, b) matched
    the rows holding NULLs."""
    if isinstance(node, (exp.EQ, exp.NEQ)):
        left, right = _row_fields(node.this), _row_fields(node.expression)
        if left is None or right is None or len(left) != len(right):
            return node
        pairs = [exp.EQ(this=a.copy(), expression=b.copy()) for a, b in zip(left, right)]
        if isinstance(node, exp.EQ):
            return exp.paren(exp.and_(*pairs), copy=False)
        return exp.paren(exp.or_(*(exp.NEQ(this=p.this, expression=p.expression) for p in pairs)), copy=False)
    if isinstance(node, exp.In):
        left = _row_fields(node.this)
        rows = [_row_fields(e) for e in node.expressions]
        if left is None or not rows or any(r is None or len(r) != len(left) for r in rows):
            return node
        return exp.paren(exp.or_(*(exp.paren(exp.and_(*(exp.EQ(this=a.copy(), expression=b.copy())
                                                          for a, b in zip(left, r))), copy=False) for r in rows)),
                         copy=False)
    if isinstance(node, exp.Is) and isinstance(node.expression, exp.Null):
        fields = _row_fields(node.this)
        if fields is None:
            return node
        if isinstance(node.parent, exp.Not):  # x IS NOT NULL (sqlglot: NOT x IS NULL): no field NULL
            node.parent.replace(exp.paren(exp.and_(*(exp.Not(this=exp.Is(this=f.copy(), expression=exp.null()))
                                                     for f in fields)), copy=False))
            return node
        return exp.paren(exp.and_(*(exp.Is(this=f.copy(), expression=exp.null()) for f in fields)), copy=False)
    return node


def _similar_to(node: exp.SimilarTo) -> exp.Expression:
    """``x SIMILAR TO 'pattern'``: SQL's pattern (``%`` and ``_`` wildcards, ``.`` literal,
    regular-expression ``| * + ? {m,n} ( ) [ ]``) as the regular expression PostgreSQL makes of
    it, matching the whole string. (DuckDB took the pattern as a regular expression.)"""
    escape = "\\"
    parent = node.parent
    if isinstance(parent, exp.Escape):
        if not (isinstance(parent.expression, exp.Literal) and parent.expression.is_string):
            raise errors.NotSupportedError("SIMILAR TO ... ESCAPE takes a string literal")
        escape = parent.expression.this
    pattern = node.expression
    if not (isinstance(pattern, exp.Literal) and pattern.is_string):
        raise errors.NotSupportedError("SIMILAR TO takes a pattern that is a string literal")
    # ('_' and '%' match a newline too: PostgreSQL's regular expression, which this is, has newlines ordinary)
    regex = exp.Literal.string("(?s)" + _similar_regex(pattern.this, escape))
    call = exp.Anonymous(this="regexp_full_match", expressions=[node.this.copy(), regex])
    if isinstance(parent, exp.Escape):
        parent.replace(call)
        return node
    return call


def _similar_substring(text: exp.Expression, pattern: exp.Expression, escape: exp.Expression) -> exp.Expression:
    """``substring(s SIMILAR pattern ESCAPE e)`` (and SQL99's ``substring(s FROM pattern FOR e)``):
    where ``s`` matches the whole SIMILAR TO pattern, the part matching what stands between its
    two ``e"`` separators (after one, what follows it; the whole match without one), else NULL -
    as regexp.c's similar_escape writes it,
    ``^(?:part1){1,1}?(part2){1,1}(?:part3)$``: the first part as short as it can be, the second
    as long."""
    if isinstance(pattern, exp.Null) or isinstance(escape, exp.Null):
        return exp.Null()
    if not (_is_string(pattern) and _is_string(escape)):
        raise errors.NotSupportedError("substring(... SIMILAR ... ESCAPE ...) takes string constants")
    if len(escape.this) > 1:
        raise errors.DataError("invalid escape string\nHINT:  Escape string must be empty or one character.",
                               sqlstate="22025")
    parts, at, written, mark = [], 0, pattern.this, escape.this  # (an empty escape: none, as PostgreSQL's)
    i = 0
    while mark and i < len(written) - 1:
        if written[i] == mark and written[i + 1] == '"':
            parts.append(written[at:i])
            at = i = i + 2
        else:
            i += 2 if written[i] == mark else 1  # (an escaped character, the escape itself too, is no separator)
    parts.append(written[at:])
    if len(parts) > 3:
        raise errors.DataError("SQL regular expression may not contain more than two escape-double-quote separators",
                               sqlstate="2200C")
    if len(parts) == 2:  # (PostgreSQL's: the third part empty)
        parts.append("")
    regexes = [_similar_regex(part, mark, shortest=i == 0 and len(parts) == 3) for i, part in enumerate(parts)]
    regex = f"(?s)^(?:{regexes[0]})$" if len(parts) == 1 else \
        f"(?s)^(?:{regexes[0]}){{1,1}}?({regexes[1]}){{1,1}}(?:{regexes[2]})$"
    regex = exp.Literal.string(regex)
    return _if_matches(text, regex, _regexp_group(text, regex, 0 if len(parts) == 1 else 1))


def _similar_regex(pattern: str, escape: str, shortest: bool = False) -> str:
    """SQL's SIMILAR TO ``pattern`` as a regular expression; ``shortest``: every repetition in it
    as short as it can be (substring SIMILAR's first part, which PostgreSQL's engine matches as
    short as it can be as a whole: a Perl-rule engine's one lazy ``{1,1}?`` around it does not)."""
    out, i, brackets = [], 0, False
    lazy = "?" if shortest else ""
    while i < len(pattern):
        ch = pattern[i]
        if escape and ch == escape and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        if brackets:
            brackets = ch != "]"
            out.append(ch)
        elif ch == "[":
            brackets = True
            out.append(ch)
        elif ch == "%":
            out.append(".*" + lazy)
        elif ch == "_":
            out.append(".")
        elif ch in ".^$\\":
            out.append("\\" + ch)
        elif ch == "(":  # (no group of its own: substring SIMILAR's is the separators')
            out.append("(?:")
        elif ch in "*+?}" and shortest and pattern[i + 1:i + 2] != "?" and not (ch == "?" and i and pattern[i - 1]
                                                                           in "*+?}"):
            out.append(ch + lazy)  # (not where the pattern says which already: a ? after a quantifier)
        else:
            out.append(ch)
        i += 1
    return "".join(out)


def _substring(node: exp.Substring) -> exp.Expression:
    """``substring(s, start, length)`` as PostgreSQL's: a start before 1 still counts from the
    first character (DuckDB's counts from the end), a negative length is 22011."""
    start = node.args.get("start")
    if start is None:
        return node
    length = node.args.get("length")
    if isinstance(start, exp.Literal) and start.is_string and length is None:  # substring(s FROM 'regex')
        return _regexp_substring(node.this, start)
    if (_is_string(start) or _is_string(length)) and all(_is_string(x) or isinstance(x, exp.Null)
                                                         for x in (start, length)):
        return _similar_substring(node.this, start, length)  # substring(s FROM pattern FOR escape): SQL99's
    args = [node.this, start] + ([length] if length is not None else [])
    return _bytea_form("substring" if length is not None else "substring_from", args) or exp.Anonymous(
        this=SUBSTRING_MACRO if length is not None else SUBSTRING_FROM_MACRO, expressions=[a.copy() for a in args])


def _regexp_substring(text: exp.Expression, pattern: exp.Literal) -> exp.Expression:
    """``substring(s FROM 'regex')``: the first match - its first captured group if the pattern
    has one - or NULL (DuckDB's regexp_extract gives ''; so does it for a group that takes no
    part); by RE2 where it gives PostgreSQL's answer (``_re2_groups``), else by Python's regexp_substr."""
    group = 1 if _compiled(pattern.this, "", "substring").groups else 0
    re2 = _re2_groups(text, pattern, exp.Literal.string(""), "substring")
    if re2 is None:
        return exp.Anonymous(this="regexp_substr", expressions=[
            text.copy(), pattern.copy(), exp.Literal.number(1), exp.Literal.number(1), exp.Literal.string(""),
            exp.Literal.number(group)])
    return _if_matches(text, re2, _regexp_group(text, re2, group))


def _compiled(pattern: str, flags: str, function: str):
    """``pattern`` as Python compiles it (parser/pg_regex.py), PostgreSQL's error if it is no
    regular expression or ``flags`` are refused."""
    try:
        return pg_regex.compiled(pattern, flags, function)
    except pg_regex.RegexpError as e:
        raise _regex_error(e) from None


def _re2(pattern: str, flags: str, function: str) -> str | None:
    """``pattern`` under ``flags`` as RE2 reads it, None if only Python can (parser/pg_regex.py)."""
    try:
        return pg_regex.re2_pattern(pattern, flags, function)
    except pg_regex.RegexpError as e:
        raise _regex_error(e) from None


def _regex_error(e: Exception) -> errors.Error:
    words = str(e)
    if words.startswith("invalid regular expression: "):
        return errors.DataError(words, sqlstate="2201B")
    if "are not supported" in words:
        return errors.NotSupportedError(words)
    return errors.InvalidParameterValue(words)


def _regexp_group(text: exp.Expression, pattern: exp.Expression, group: int) -> exp.Expression:
    return exp.Anonymous(this="regexp_extract", expressions=[text.copy(), pattern.copy(), exp.Literal.number(group)])


def _if_matches(text: exp.Expression, pattern: exp.Expression, value: exp.Expression) -> exp.Expression:
    """``value`` where ``text`` matches ``pattern``, else NULL."""
    return exp.Case(ifs=[exp.If(this=exp.RegexpLike(this=text.copy(), expression=pattern.copy()), true=value)])


# PostgreSQL's make_interval() argument names -> sqlglot's
_INTERVAL_NAMES = {"years": "year", "months": "month", "weeks": "week", "days": "day", "hours": "hour",
                   "mins": "minute", "secs": "second"}


def _make_interval(node: exp.MakeInterval) -> exp.Expression:
    """``make_interval(days => 3)``: sqlglot took named arguments in order (3 years)."""
    named = [(key, value) for key, value in node.args.items() if isinstance(value, exp.Kwarg)]
    if not named:
        return node
    args = {key: value for key, value in node.args.items() if value is not None and not isinstance(value, exp.Kwarg)}
    for _, kwarg in named:
        name = _INTERVAL_NAMES.get(kwarg.this.name.lower())
        if name is None:
            raise errors.ProgrammingError(f'make_interval has no argument "{kwarg.this.name}"', sqlstate="42883")
        args[name] = kwarg.expression.copy()
    return exp.MakeInterval(**args)


# names strftime cannot write as to_char does: padded to 9 (Month, Day), upper or lower case
_UNMAPPED_NAMES = re.compile(r"(?<!FM)(Month|Day)|MONTH|month|DAY|day|MON|mon|DY|dy")


def _to_char_mapping() -> dict[str, str]:
    """PostgreSQL's to_char patterns -> strftime's: sqlglot's, without the lower-case ones it
    cannot express, and with the names of months and days, 12-hour clocks and milliseconds."""
    from sqlglot.dialects.postgres import Postgres
    mapping = {k: v for k, v in Postgres.TIME_MAPPING.items() if "enlower" not in v and "three" not in v}
    mapping.update({"FMMonth": "%B", "Mon": "%b", "FMDay": "%A", "Dy": "%a",
                    "HH": "%I", "AM": "%p", "PM": "%p", "MS": "%g"})
    return mapping


def _to_char(node: exp.ToChar) -> exp.Expression:
    """``to_char(x, pattern)`` as PostgreSQL's, by x's type (DuckDB's to_char dropped the
    pattern: it returned the value as text). TO_CHAR_MACRO picks the form when DuckDB binds it:
    of a number, formatting.c's number patterns (parser/number_format.py, a function DuckDB
    calls); of a date, a timestamp or a timestamp with time zone its date patterns
    (parser/date_format.py, likewise); of another type (a time) DuckDB's strftime, the pattern
    translated here (sqlglot's PostgreSQL mapping) - a pattern strftime cannot write, or one
    known only at run time, is refused (0A000) there. x is handed to the macro again to pick the
    form by, or, where that cannot be (a parameter, an aggregate), bound once in a lambda."""
    fmt = node.args.get("format")
    if fmt is None:
        return node
    date_forms = _strftime_pattern(fmt)
    witnesses = _type_witnesses(node.this)
    if witnesses:
        return exp.Anonymous(this=TO_CHAR_MACRO, expressions=[node.this.copy(), *date_forms, fmt.copy(), *witnesses])
    value = exp.column(TO_CHAR_VALUE)
    return _bound(node.this.copy(), TO_CHAR_VALUE, exp.Anonymous(
        this=TO_CHAR_MACRO, expressions=[value, *date_forms, fmt.copy(), value.copy()]))


def _strftime_pattern(fmt: exp.Expression) -> tuple[exp.Expression, exp.Expression]:
    """to_char's date pattern as strftime's and no refusal, or no pattern and the refusal
    (starting TO_CHAR_REFUSED) of one strftime cannot take."""
    if not (isinstance(fmt, exp.Literal) and fmt.is_string):
        refusal = "takes a pattern that is a string literal"
    elif (name := _UNMAPPED_NAMES.search(fmt.this)) is not None:
        refusal = f"pattern {name.group()} is not supported (FMMonth, Mon, FMDay and Dy are)"
    else:
        return exp.Literal.string(format_time(fmt.this, _TO_CHAR_MAPPING, _TO_CHAR_TRIE)), exp.Null()
    return exp.Literal.string("%Y"), exp.Literal.string(f"{TO_CHAR_REFUSED} {refusal}")  # (strftime binds it)


def _to_number(node: exp.ToNumber) -> exp.Expression:
    """``to_number(text, pattern)``: formatting.c's reading (parser/number_format.py), a
    numeric with as many decimals as the pattern reads (DuckDB's to_number dropped the pattern:
    it cast the text to a double). Folded if both are constants, to the scale PostgreSQL gives
    (the digits read after the point); else a DECIMAL(38,s), s the pattern's decimals - known
    only of a pattern that is a string literal (else 0A000)."""
    fmt = node.args.get("format")
    if fmt is None:
        return node
    if isinstance(fmt, exp.Null) or isinstance(node.this, exp.Null):
        return exp.cast(exp.Null(), "DECIMAL(38,0)")
    if not (isinstance(fmt, exp.Literal) and fmt.is_string):
        raise errors.NotSupportedError("to_number takes a pattern that is a string literal")
    try:
        # (as many decimals as the pattern reads, leaving room for the digits it reads before the
        # point: 38 in all - a pattern of 44 decimals was DECIMAL(38,38), which holds no 1.2)
        num = number_format.pattern(fmt.this).num
        decimals = min(number_format.result_scale(fmt.this), 38 - min(num.pre, 37))
        if isinstance(node.this, exp.Literal) and node.this.is_string and not num.multi:
            value = number_format.to_number(node.this.this, fmt.this)
            if value is None:
                return exp.cast(exp.Null(), "DECIMAL(38,0)")
            if max(value.adjusted() + 1, 1) + numeric.scale(value) <= 38:
                return exp.cast(exp.Literal.string(f"{value:f}"), f"DECIMAL(38,{numeric.scale(value)})")
    except number_format.NumberFormatError:
        decimals = 0  # (raised where PostgreSQL raises it: running the statement)
    return exp.cast(exp.Anonymous(this=TO_NUMBER_FUNCTION, expressions=[node.this.copy(), fmt.copy()]),
                    f"DECIMAL(38,{decimals})")


# PostgreSQL's spellings of the units whose extract() has a fraction (its DecodeUnits)
_SECONDS = {"second", "seconds", "sec", "secs", "s"}
_MILLISECONDS = {"millisecond", "milliseconds", "millisecon", "ms", "msec", "msecs", "mseconds"}
# a value's seconds since the epoch (engine/dialect.py): a date's whole, the rest's with micros
EPOCH_MACRO = "txl_epoch"


def _extract(node: exp.Extract) -> exp.Expression:
    """``extract(field FROM x)`` is a numeric, as PostgreSQL's (14 on; DuckDB's is a bigint, or a
    double for the epoch): the seconds with 6 decimals (``1.500000``; DuckDB dropped the
    fraction), the milliseconds with 3, the epoch with 6 (of a date: none), any other field whole
    (``2024``). The julian day stays DuckDB's."""
    field = node.this.name.lower()
    if field in _SECONDS:
        return exp.cast(_seconds(node.expression), "DECIMAL(8,6)")
    if field in _MILLISECONDS:
        return exp.Mul(this=exp.cast(_micros(node.expression), "DECIMAL(38,0)"),
                       expression=exp.cast(exp.Literal.number("0.001"), "DECIMAL(4,3)"))
    if field == "epoch":
        if _typed_argument(node.expression):
            return exp.Anonymous(this=EPOCH_MACRO, expressions=[node.expression.copy()])
        return exp.Mul(this=exp.cast(exp.Anonymous(this="epoch_us", expressions=[node.expression.copy()]),
                                     "DECIMAL(38,0)"), expression=_MICRO.copy())
    if field in ("julian", "j"):
        return node
    return exp.cast(node.copy(), "DECIMAL(38,0)")


def _seconds(value: exp.Expression) -> exp.Expression:
    """The seconds of a time value with their fraction, exactly (DuckDB's sub-minute
    microseconds times a DECIMAL)."""
    return exp.Mul(this=_micros(value), expression=_MICRO.copy())


def _micros(value: exp.Expression) -> exp.Expression:
    """The sub-minute microseconds of a time value (DuckDB's date_part)."""
    return exp.Anonymous(this="date_part", expressions=[exp.Literal.string("microseconds"), value.copy()])


_MICRO = exp.cast(exp.Literal.number("0.000001"), "DECIMAL(7,6)")


# DuckDB's stand-ins for PostgreSQL's functions over catalog OIDs that txlake does not answer
# (engine/catalog_functions.py answers format_type, pg_get_constraintdef, ...): they read DuckDB's
# own catalog and gave wrong answers for txlake's pg_catalog rows: refused
_CATALOG_READERS = frozenset({"format_pg_type"})


# a FROM item of a function sqlglot knows that is no table function: a scalar function, one row
_TABLE_FUNCTIONS = (exp.UDTF, exp.GenerateSeries, exp.AggFunc, exp.ReadCSV)
# functions sqlglot does not know, scalar ones of PostgreSQL (the clocks, version())
_SCALAR_CALLS = frozenset({"now", "clock_timestamp", "statement_timestamp", "transaction_timestamp", "timeofday",
                           "version", "pg_backend_pid", "pg_listening_channels",
                           "pg_notification_queue_usage"})


def _scalar_function_table(node: exp.Expression) -> exp.Expression | None:
    """``FROM upper('a') [AS x[(c)]]``: a scalar function in FROM is a table of one row and one
    column, named for the function - or for the alias, or its column list - as PostgreSQL names
    it (DuckDB had no table function of that name: 42883): ``(SELECT upper('a') AS upper) AS
    upper``; WITH ORDINALITY adds its ordinality, 1."""
    call = node.this if isinstance(node, exp.Table) else None
    if not isinstance(call, exp.Func) or isinstance(call, _TABLE_FUNCTIONS) or (
            isinstance(call, exp.Anonymous) and call.name.lower() not in _SCALAR_CALLS):
        return None
    alias = node.args.get("alias")
    name = call.name.lower() if isinstance(call, exp.Anonymous) else call.sql_name().lower()
    table = alias.name if alias is not None and alias.name else name
    ordinality = bool(node.args.get("ordinality"))
    columns = [c.name for c in alias.columns] if alias is not None else []
    if len(columns) > 1 + ordinality:
        raise errors.ProgrammingError("too many column aliases specified for function " + name, sqlstate="42601")
    names = columns + [table, "ordinality"][len(columns):1 + ordinality]
    values = [call.copy(), exp.cast(exp.Literal.number(1), "BIGINT")][:1 + ordinality]
    select = exp.Select(expressions=[exp.alias_(v, n, quoted=True) for v, n in zip(values, names)])
    return exp.Subquery(this=select, alias=exp.TableAlias(this=exp.to_identifier(table, quoted=True)))


def _json_of_values(node: exp.Anonymous) -> exp.Anonymous:
    """``row_to_json(ROW(a, b))``, ``to_json(ROW(...))``, ``to_json(x)``: a row's fields named
    f1, f2, ... as PostgreSQL names a ROW's (DuckDB's unnamed struct was 42804 for row_to_json,
    a JSON array for to_json), each value - and to_json's of a value - as PostgreSQL's to_json
    writes it (``JSON_VALUE_MACRO``). ``row_to_json(r, true)``'s line feeds are 0A000."""
    value, rest = node.expressions[0], node.expressions[1:]
    if rest and not (node.name.lower() == "row_to_json" and len(rest) == 1 and isinstance(rest[0], exp.Boolean)
                     and not rest[0].this):
        if node.name.lower() == "row_to_json" and len(rest) == 1:
            raise errors.NotSupportedError("row_to_json(record, pretty) is not supported with pretty true")
        return node
    if _whole_row(value):  # (to_json(t) of a table's row: engine/column_scope.py writes its columns' values)
        value = value.copy()
        value.meta[json_ops.WHOLE_ROW_JSON] = True
        return exp.Anonymous(this=node.name, expressions=[_json_value(value)])
    if node.name.lower() == "row_to_json" and not _is_row(value):
        return exp.Anonymous(this=node.name, expressions=[value.copy()])
    return exp.Anonymous(this=node.name, expressions=[_json_value(value)])


def _whole_row(value: exp.Expression) -> bool:
    """Is ``value`` a name alone - a FROM item's row, unless a column has the name?"""
    return isinstance(value, exp.Column) and not value.table and isinstance(value.this, exp.Identifier)


# the json builders and aggregates whose values PostgreSQL writes by to_json's rules: which
# arguments are values (the odd ones of an object's key / value pairs)
_JSON_BUILDERS = {"json_build_object": 2, "jsonb_build_object": 2, "json_build_array": 1, "jsonb_build_array": 1,
                  "json_agg": 1, "jsonb_agg": 1}


def _json_built_of_values(node: exp.Anonymous) -> exp.Anonymous:
    """``json_build_object(k, v, ...)``, ``json_build_array(v, ...)``, ``json_agg(v [ORDER BY
    ...])``: each value as to_json writes it (``_json_value``: an interval's text was DuckDB's,
    a timestamp's without its T)."""
    step = _JSON_BUILDERS[node.name.lower()]
    args = []
    for i, arg in enumerate(node.expressions):
        if i % step != step - 1:
            args.append(arg.copy())
        elif isinstance(arg, exp.Order):  # (json_agg(v ORDER BY w))
            ordered = arg.copy()
            ordered.set("this", _json_value(arg.this))
            args.append(ordered)
        else:
            args.append(_json_value(arg))
    return exp.Anonymous(this=node.name, expressions=args)


# DuckDB's functions that write JSON of values (JSON_NUMBERS makes the numerics among them numbers)
_DUCKDB_JSON_WRITERS = frozenset({"to_json", "row_to_json", "json_object", "json_array"})


def _json_numbers(call: exp.Expression) -> exp.Expression:
    """``call`` with the JSON text each of DuckDB's JSON writers in it gives of values that may
    hold a numeric (``JSON_VALUE_MACRO``'s) through ``JSON_NUMBERS`` - before txlake's own json
    functions read it (their numbers are read exactly)."""
    def writer(n: exp.Expression) -> bool:
        return isinstance(n, exp.Anonymous) and n.name.lower() in _DUCKDB_JSON_WRITERS

    for found in [n for n in call.walk(prune=writer) if writer(n)]:
        if any(_is_call(n, JSON_VALUE_MACRO) for n in found.walk()):
            wrapped = exp.Anonymous(this=JSON_NUMBERS, expressions=[found.copy()])
            if found is call:
                return wrapped
            found.replace(wrapped)
    return call


def _is_row(node: exp.Expression) -> bool:
    return isinstance(node, exp.Tuple) or _is_call(node, "row")


def _json_value(value: exp.Expression) -> exp.Expression:
    """``value`` for DuckDB's to_json to write as PostgreSQL's: a ROW(...) a struct of fields f1,
    f2, ... (of rows in turn), another value through ``JSON_VALUE_MACRO`` where its type can pick."""
    if _is_row(value):
        return exp.Anonymous(this="struct_pack", expressions=[
            exp.PropertyEQ(this=exp.to_identifier(f"f{i}"), expression=_json_value(v))
            for i, v in enumerate(value.expressions, 1)])
    if isinstance(value, exp.Null):  # (of no type the macro's forms tell apart)
        return value.copy()
    if witness := _type_witnesses(value):
        return exp.Anonymous(this=JSON_VALUE_MACRO, expressions=[value.copy(), *witness])
    if _aggregated(value) and not any(isinstance(n, exp.Placeholder) for n in value.walk()):
        return _through_lambda(value, lambda e: exp.Anonymous(this=JSON_VALUE_MACRO, expressions=[e, e.copy()]))
    return value.copy()


def _function(node: exp.Anonymous) -> exp.Expression:
    """Functions sqlglot does not know, or keeps as written (parser/dialect.py), by name:
    ``date_part``, ``to_date``, ``encode`` / ``decode``, ``regexp_match(es)``, ``octet_length``."""
    name = node.name.lower()
    if (name in ("row_to_json", "to_json", "to_jsonb") or name in _JSON_BUILDERS) and node.expressions:
        built = _json_of_values(node) if name in ("row_to_json", "to_json", "to_jsonb") else _json_built_of_values(node)
        return _json_numbers(json_ops.function(built) or built)
    if (json_call := json_ops.function(node)) is not None:
        return json_call
    if name == "date_part":
        return _date_part(node)
    if name in inet_input.FUNCTIONS:  # (functions-net's: engine/network.py)
        return exp.Anonymous(this=inet_input.FUNCTIONS[name], expressions=[e.copy() for e in node.expressions])
    if name in ("inet", "cidr") and len(node.expressions) == 1:  # (a function-style cast: inet(text(i)))
        to = exp.DataType.build("INET") if name == "inet" else exp.DataType(this=exp.DType.USERDEFINED, kind="cidr")
        return _network_cast(exp.Cast(this=node.expressions[0].copy(), to=to))
    if name == "to_date" and len(node.expressions) == 2:
        return exp.cast(_strptime(*node.expressions), "DATE")
    if name in ("encode", "decode") and len(node.expressions) == 2:
        return _coding(name, *node.expressions)
    if name in _CATALOG_READERS:
        raise errors.NotSupportedError(
            f"{name}() is not supported: it reads PostgreSQL's system catalog, which txlake mirrors only in part "
            "(pg_type.typname names a type; information_schema.columns gives each column's data_type)")
    if name == "regexp_match" and len(node.expressions) in (2, 3):
        return _regexp_match(node.expressions)
    if name == "regexp_split_to_array" and len(node.expressions) in (2, 3):
        return _regexp_split(node.expressions)
    if name == "regexp_replace":
        return _regexp_replace(node)
    if name == SIMILAR_SUBSTRING:
        return _similar_substring(*node.expressions)
    if name in RELATION_SIZES:
        return _relation_size(name, node.expressions)
    if name == "pg_column_size" and len(node.expressions) == 1:
        return _column_size(node.expressions[0])
    if name == "to_regclass" and not (len(node.expressions) == 1 and isinstance(node.expressions[0], exp.Literal)
                                      and node.expressions[0].is_string):
        # (engine/pg_catalog.py looks the name up at each execution)
        raise errors.NotSupportedError("to_regclass() takes its relation name as a string constant")
    if name in ("num_nulls", "num_nonnulls") and node.expressions:
        return _null_count(node.expressions, nulls=name == "num_nulls")
    if (name, len(node.expressions)) in _SEQUENCE_FUNCTIONS:
        return exp.Anonymous(this=_SEQUENCE_FUNCTIONS[name, len(node.expressions)],
                             expressions=[_sequence_name(e) if i == 0 else e.copy()
                                          for i, e in enumerate(node.expressions)])
    if name == "octet_length" and len(node.expressions) == 1:  # (of text: DuckDB's takes a BLOB)
        return exp.Anonymous(this="strlen", expressions=[node.expressions[0].copy()])
    if name in _XID_CALLS and not node.expressions:
        return exp.Anonymous(this=_XID_CALLS[name])
    if (name, len(node.expressions)) in _BACKEND_CALLS:
        return _backend_call(name, node.expressions)
    if name in NOTIFY_FUNCTIONS and not node.expressions:
        call = exp.Anonymous(this=NOTIFY_FUNCTIONS[name])
        return exp.Unnest(expressions=[call]) if name == "pg_listening_channels" else call
    if (name in ADVISORY_CALLS and len(node.expressions) in (1, 2)) or (
            name == ADVISORY_UNLOCK_ALL and not node.expressions):
        return _advisory_call(name, node.expressions)
    if (name in _BYTEA_FIRST or name in _BYTEA_OR_BITS or name == "btrim") and node.expressions:
        return _bytea_call(name, node)
    if name in _CAST_FUNCTIONS and len(node.expressions) == 1:  # text(x): PostgreSQL's cast of x to text
        return _cast(exp.Cast(this=node.expressions[0].copy(), to=exp.DataType.build(_CAST_FUNCTIONS[name])))
    return node


# pg_relation_size(rel) and its kin: engine/pg_catalog.py answers them at each execution
# (pg_indexes_size: 0 for any relation - txlake's indexes are built in memory)
INDEXES_SIZE = "pg_indexes_size"
RELATION_SIZES = ("pg_relation_size", "pg_table_size", "pg_total_relation_size", INDEXES_SIZE)


def _relation_size(name: str, arguments: list[exp.Expression]) -> exp.Expression:
    """``pg_total_relation_size('t')`` (or of ``'t'::regclass``, or of an OID: ``pg_class.oid``),
    which engine/catalog_functions.py answers at each execution; a fork's name
    (``pg_relation_size(t, 'fsm')``) is 0A000 - txlake's tables have one."""
    if len(arguments) != 1:
        raise errors.NotSupportedError(f"{name}() takes one argument here, the relation: txlake's tables have "
                                       "one fork")
    argument = arguments[0]
    if isinstance(argument, exp.Cast) and str(argument.to.args.get("kind") or argument.to.this).lower() in (
            "regclass", "pg_catalog.regclass") and isinstance(argument.this, exp.Literal):
        argument = argument.this
    return exp.Anonymous(this=name, expressions=[argument.copy()])


# pg_column_size(x) (engine/dialect.py): the bytes of x's datum by its type, given whether it is a
# table's column (stored, a short varlena header) or computed (a 4-byte one); NUMERIC_SIZE the
# base-10000 digits' of a numeric's text
COLUMN_SIZE_MACRO, NUMERIC_SIZE, VARLENA_SIZE = "txl_column_size", "txl_numeric_size", "txl_varlena_size"
COLUMN_SIZE_REFUSED = "pg_column_size() of a value of type"


def _column_size(value: exp.Expression) -> exp.Expression:
    """``pg_column_size(x)`` as PostgreSQL's (``COLUMN_SIZE_MACRO``): a string constant is of
    type unknown, a C string there - its bytes and a terminator."""
    if isinstance(value, exp.Literal) and value.is_string:
        return exp.Literal.number(len(value.this.encode()) + 1)
    stored = exp.Boolean(this=isinstance(value, exp.Column))
    if witness := _type_witnesses(value):
        return exp.Anonymous(this=COLUMN_SIZE_MACRO, expressions=[value.copy(), stored, *witness])
    if _aggregated(value) and not any(isinstance(n, exp.Placeholder) for n in value.walk()):
        return _through_lambda(value, lambda e: exp.Anonymous(this=COLUMN_SIZE_MACRO,
                                                              expressions=[e, stored, e.copy()]))
    raise errors.NotSupportedError("pg_column_size() of a parameter is not supported (its type decides the size)")


# the session's pid and the server signaling functions: each call is the executor's DuckDB
# function BACKEND_FUNCTION (engine/backends.py), given the function's name
BACKEND_FUNCTION = "txl_backend"
_BACKEND_CALLS = frozenset({("pg_backend_pid", 0), ("pg_cancel_backend", 1), ("pg_terminate_backend", 1),
                            ("pg_terminate_backend", 2)})


# pg_listening_channels() (a set of text: the channels the session listens to, as the unnest of
# DuckDB's list) and pg_notification_queue_usage(): the executor's DuckDB functions (engine/backends.py)
NOTIFY_FUNCTIONS = {"pg_listening_channels": "txl_listening_channels",
                    "pg_notification_queue_usage": "txl_notification_queue_usage"}


def _backend_call(name: str, arguments: list[exp.Expression]) -> exp.Expression:
    """``pg_backend_pid()`` as ``CAST(txl_backend('pg_backend_pid', NULL, 0) AS INTEGER)``,
    ``pg_cancel_backend(pid)`` and ``pg_terminate_backend(pid [, timeout])`` as the boolean of
    ``txl_backend(name, pid, timeout)`` (a timeout of 0: none)."""
    pid = exp.cast(arguments[0].copy() if arguments else exp.null(), "INTEGER")
    timeout = exp.cast(arguments[1].copy() if len(arguments) == 2 else exp.Literal.number(0), "BIGINT")
    call = exp.Anonymous(this=BACKEND_FUNCTION, expressions=[exp.Literal.string(name), pid, timeout])
    return exp.cast(call, "INTEGER" if name == "pg_backend_pid" else "BOOLEAN")


def _advisory_call(name: str, arguments: list[exp.Expression]) -> exp.Expression:
    """``pg_advisory_lock(key)`` as ``txl_advisory('pg_advisory_lock', key, NULL)``; of two
    integer keys, ``txl_advisory('pg_advisory_lock:2', a, b)`` (22003 past an integer)."""
    keys = [exp.cast(a.copy(), "BIGINT") if len(arguments) == 1 else exp.cast(exp.cast(a.copy(), "INTEGER"), "BIGINT")
            for a in arguments]
    keys += [exp.cast(exp.null(), "BIGINT")] * (2 - len(keys))
    return exp.Anonymous(this=ADVISORY_FUNCTION, expressions=[
        exp.Literal.string(name + (ADVISORY_PAIR if len(arguments) == 2 else "")), *keys])


def _null_count(arguments: list[exp.Expression], nulls: bool) -> exp.Expression:
    """``num_nulls(a, b, ...)`` / ``num_nonnulls(...)``: how many of the arguments, of any types,
    are NULL / not NULL, an integer (PostgreSQL's VARIADIC "any"; DuckDB has no such function).
    ``VARIADIC array`` is a syntax error (sqlglot reads no VARIADIC)."""
    counted = [exp.Case(ifs=[exp.If(this=exp.Is(this=a.copy(), expression=exp.Null()), true=exp.Literal.number(
        int(nulls)))], default=exp.Literal.number(int(not nulls))) for a in arguments]
    total = counted[0]
    for term in counted[1:]:
        total = exp.Add(this=total, expression=term)
    return exp.cast(total, "INT")


# the functions of extensions txlake has built in (parser/dialect.py BUILT_IN_EXTENSIONS), and
# what each is: called in whatever schema the extension was made in (``public.uuid_generate_v4()``)
EXTENSION_FUNCTIONS = {"uuid_generate_v4": exp.Uuid, "gen_random_uuid": exp.Uuid,
                       "uuid_nil": lambda: exp.cast(exp.Literal.string("00000000-0000-0000-0000-000000000000"),
                                                    exp.DataType.build("UUID"))}


def _unqualify_pg_catalog_calls(tree: exp.Expression) -> None:
    """``pg_catalog.f(...)`` is ``f(...)``: PostgreSQL's functions live in pg_catalog, which is
    searched first whatever the search path (pg_dump qualifies its calls so). sqlglot read the
    qualified call as an unknown function; it is built again as the one its name says. A
    function of a built-in extension (``EXTENSION_FUNCTIONS``) is itself in any schema, and is
    what it stands for (``uuid_generate_v4()`` is ``gen_random_uuid()``)."""
    from txlake.parser.dialect import Txlake
    for call in list(tree.find_all(exp.Anonymous)):
        name = call.name.lower()
        if name in EXTENSION_FUNCTIONS and not call.expressions:
            target = call.parent if isinstance(call.parent, exp.Dot) and call.parent.expression is call else call
            target.replace(EXTENSION_FUNCTIONS[name]())
    for dot in list(tree.find_all(exp.Dot)):
        call = dot.expression
        if not (isinstance(dot.this, exp.Identifier) and dot.this.name.lower() == "pg_catalog"
                and isinstance(call, exp.Func)):
            continue
        if isinstance(call, exp.Anonymous):
            try:
                call = exp.func(call.name, *call.expressions, dialect=Txlake)
            except Exception:  # (arguments its class does not take: left as written)
                pass
        dot.replace(call)


def _sequence_name(argument: exp.Expression) -> exp.Expression:
    """A sequence function's argument: ``'s'::regclass`` (pg_dump's ``nextval('public.t_id_seq'
    ::regclass)``) is the name as text, which txlake's sequence functions take."""
    if isinstance(argument, exp.Cast) and argument.to.this == exp.DType.USERDEFINED and \
            str(argument.to.args.get("kind") or "").lower() in ("regclass", "pg_catalog.regclass"):
        return argument.this.copy()
    return argument.copy()


# PostgreSQL's function-style casts, type(x), of types DuckDB has no such function of (text(x)
# was XX000: DuckDB went to install the excel extension for its text(x, format))
_CAST_FUNCTIONS = {"text": "TEXT", "varchar": "VARCHAR", "int2": "SMALLINT", "int4": "INT", "int8": "BIGINT",
                   "float4": "REAL", "float8": "DOUBLE", "numeric": "DECIMAL(38, 9)", "bool": "BOOLEAN",
                   "bytea": "BLOB"}


# PostgreSQL's sequence functions (name, number of arguments) -> engine/sequence_calls.py's:
# DuckDB's own nextval and currval are its sequences'
_SEQUENCE_FUNCTIONS = {("nextval", 1): "txl_nextval", ("currval", 1): "txl_currval", ("setval", 2): "txl_setval",
                       ("setval", 3): "txl_setval3", ("lastval", 0): "txl_lastval",
                       ("pg_get_serial_sequence", 2): "txl_serial_sequence"}
_SEQUENCE_CALLS = set(_SEQUENCE_FUNCTIONS.values())


def _length(node: exp.Length) -> exp.Expression:
    """``length(x)`` (``char_length``) through ``LENGTH_MACRO``, which takes a bytea's length as
    its bytes and leaves the rest to DuckDB's: a NULL or a ``?`` of None is text's NULL, as
    PostgreSQL resolves an untyped NULL (a DuckDB function of the name taking BLOB made DuckDB's
    ``length(NULL)`` ambiguous, 42883)."""
    if node.args.get("binary") is not None:  # length(bytes, encoding): its characters (sqlglot's "binary")
        return exp.Anonymous(this=BYTEA_FORM + "length_in", expressions=[_bytea_input(node.this),
                                                                        node.args["binary"].copy()])
    if not _typed_argument(node.this):
        return node
    return exp.Anonymous(this=LENGTH_MACRO, expressions=[node.this.copy()])


# --- bytea -----------------------------------------------------------------------------------

# engine/bytea_functions.py's macros: a function's bytea form (BYTEA_FORM + its name) for a
# BLOB argument, DuckDB's function (or SUBSTRING_MACRO) for another - reached only where DuckDB
# knows the argument's type when it picks the form (``_typed_argument``)
BYTEA_FORM = "txl_bytes_"
# a parameter handed to a bytea form: given None (DuckDB's NULL type, which took the bytea form)
# a NULL text, as PostgreSQL resolves an unknown; else the value as it is - the form follows
# the value given at each execution
UNKNOWN_AS_TEXT = "txl_unknown_as_text"
# functions of a bytea only: a string constant given for it is bytea input ('\x0102' is two
# bytes), as PostgreSQL resolves an unknown literal there
_BYTEA_FIRST = frozenset({"sha224", "sha384", "sha512", "get_byte", "set_byte", "convert_from", "convert"})
# functions of a bytea or of a bit string (DuckDB's): the form by the argument's type
_BYTEA_OR_BITS = frozenset({"get_bit", "set_bit", "bit_count"})


def _bytea_form(name: str, args: list[exp.Expression], bits: bool = False) -> exp.Expression | None:
    """``name``'s bytea form (a macro that takes DuckDB's function for another type) called
    with ``args``, or None where DuckDB would pick a form before it knows the first argument's
    type: the call stays as it is. A parameter given None is text's (``UNKNOWN_AS_TEXT``) - not
    for a function of bytea or bits (``bits``), which has no text form."""
    if isinstance(args[0], exp.Null) or not _typed_argument(args[0]):  # (NULL: text's, as PostgreSQL's unknown)
        return None
    return exp.Anonymous(this=BYTEA_FORM + name, expressions=[
        exp.Anonymous(this=UNKNOWN_AS_TEXT, expressions=[a.copy()]) if isinstance(a, exp.Placeholder) and not bits
        else a.copy() for a in args])


def _bytea_input(node: exp.Expression) -> exp.Expression:
    """``node``, a string constant read as PostgreSQL's bytea input."""
    if _is_string(node):
        return exp.Anonymous(this=BYTEA_MACRO, expressions=[node.copy()])
    return node.copy()


def _bytea_call(name: str, node: exp.Anonymous) -> exp.Expression:
    """A call of a function of bytea (``_BYTEA_FIRST``, ``_BYTEA_OR_BITS``, ``btrim``)."""
    args = node.expressions
    if name in _BYTEA_FIRST:
        return exp.Anonymous(this=name, expressions=[_bytea_input(args[0]), *(a.copy() for a in args[1:])]) \
            if _is_string(args[0]) else node
    if name == "btrim":
        return _bytea_form("trim_both", args) or node if len(args) == 2 else node
    return _bytea_form(name, args, bits=name in _BYTEA_OR_BITS) or node


def _trim(node: exp.Trim) -> exp.Expression:
    """``trim([BOTH | LEADING | TRAILING] c FROM s)`` (``ltrim`` / ``rtrim(s, c)``): a bytea's
    by its bytea form."""
    removed = node.args.get("expression")
    if removed is None or node.args.get("collation") is not None:
        return node
    side = str(node.args.get("position") or "both").lower()
    return _bytea_form(f"trim_{side}", [node.this, removed]) or node


def _position(node: exp.StrPosition) -> exp.Expression:
    """``position(p IN s)`` (``strpos(s, p)``): a bytea's by its bytea form; an integer, as
    PostgreSQL's (DuckDB's strpos is a bigint)."""
    if node.args.get("position") is not None or node.args.get("occurrence") is not None:
        return node
    return exp.cast(_bytea_form("position", [node.this, node.args["substr"]]) or node.copy(), "INTEGER")


def _overlay(node: exp.Overlay) -> exp.Expression:
    """``overlay(s PLACING p FROM f [FOR n])``: a bytea's by its bytea form."""
    count = node.args.get("for_")
    return _bytea_form("overlay", [node.this, node.expression, node.args["from_"],
                                   *([count] if count is not None else [])]) or node


# --- arrays ----------------------------------------------------------------------------------

def _subscript(node: exp.Bracket) -> exp.Expression:
    """``a[i]`` and ``a[i:j]`` as PostgreSQL's: a subscript outside the array is NULL, and a
    slice's bounds are clamped to it (DuckDB counted a negative one from the end: a[-1] was the
    last element). A literal subscript is checked now; others through ``ARRAY_INDEX`` and the
    slice macros."""
    if len(node.expressions) != 1 or (isinstance(node.parent, exp.EQ) and node.arg_key == "this" and isinstance(
            node.parent.parent, (exp.Update, exp.OnConflict))):  # (SET a[i] = v: parser/parse.py's ARRAY_SET)
        return node
    index = node.expressions[0]
    if isinstance(index, exp.Slice):
        lower, upper = index.this, index.expression
        if lower is not None and not (isinstance(lower, exp.Literal) and lower.is_int and int(lower.this) >= 1):
            index.set("this", exp.Anonymous(this=ARRAY_LOWER, expressions=[lower.copy()]))
        if upper is not None and not (isinstance(upper, exp.Literal) and upper.is_int and int(upper.this) >= 0):
            index.set("expression", exp.Anonymous(this=ARRAY_UPPER, expressions=[upper.copy()]))
        return node
    if isinstance(index, exp.Literal) and index.is_string:  # (a struct's field)
        return node
    if isinstance(index, exp.Literal) and index.is_int:  # (0-based here: sqlglot's index offset)
        if int(index.this) < 0:
            index.replace(exp.Null())
        return node
    index.replace(exp.Anonymous(this=ARRAY_INDEX, expressions=[index.copy()]))
    return node


# the array functions of any number of dimensions (engine/dialect.py NESTED_ARRAY_MACROS), handed
# the array again to pick their form by its type (the rest of their arguments after it)
_DIMENSIONED = {"cardinality", "array_ndims", "array_dims", "array_upper", "array_lower", "array_replace", ARRAY_LENGTH,
                ARRAY_CONCAT, SUBSCRIPTS}
# the functions PostgreSQL refuses of an array of several dimensions, with its words
_SEARCH_REFUSED = "searching for elements in multidimensional arrays is not supported"
_ONE_DIMENSIONAL = {exp.ArrayPosition: _SEARCH_REFUSED, "array_positions": _SEARCH_REFUSED,
                    exp.ArrayAppend: "argument must be empty or one-dimensional array",
                    exp.ArrayPrepend: "argument must be empty or one-dimensional array"}
# where an array's elements are taken through all its dimensions, as PostgreSQL's: the array
# arguments of these
_THROUGH_DIMENSIONS = {exp.Explode: ("this",), exp.Unnest: ("expressions",), exp.ArrayToString: ("this",),
                       exp.ArrayContainsAll: ("this", "expression"), exp.ArrayContainedBy: ("this", "expression"),
                       exp.ArrayOverlaps: ("this", "expression")}


# the meta key of an unnest() whose array's elements were taken already (``_zipped_unnest``'s)
_ELEMENTS_TAKEN = "elements_taken"


def _by_dimensions(tree: exp.Expression) -> None:
    """Multidimensional arrays (DuckDB's lists of lists) as PostgreSQL's: the dimensions'
    functions (``_DIMENSIONED``) handed the array again, whose type picks the form of its
    dimensions; unnest(), array_to_string(), @>, <@, && and ``x = ANY (a)`` of its elements
    through every dimension (``ARRAY_ELEMENTS``); an ``ARRAY[...]`` of arrays written out checked
    to be rectangular (``ARRAY_RECTANGULAR``: 2202E). An array whose type DuckDB knows too late to
    pick by (one holding a parameter, an aggregate) is taken as one-dimensional (a parameter of
    several dimensions is refused where it is bound: dbapi)."""
    for node in list(tree.find_all(exp.ArrayAgg)):
        outer = node.parent if isinstance(node.parent, exp.Filter) else node
        outer = outer.parent if isinstance(outer.parent, exp.Window) else outer
        outer.replace(_typed_in_lambda(ARRAY_ACCUMULATED, [outer.copy()]))
    for node in [a for a in tree.find_all(exp.Array) if any(isinstance(e, exp.Array) for e in a.expressions)]:
        if isinstance(node.parent, exp.Array):
            continue
        if not (witness := _dimension_witnesses(node)):  # (its functions would take it as one-dimensional)
            raise errors.NotSupportedError("a multidimensional ARRAY[...] holding a parameter or an aggregate is not "
                                           "supported")
        node.replace(_by_type(ARRAY_RECTANGULAR, [node], witness))
    for node in list(tree.find_all(exp.Bracket)):
        _subscripts(node)
    for node in reversed(list(tree.find_all(exp.Anonymous, exp.ArrayConcat, *_THROUGH_DIMENSIONS,
                                            *(k for k in _ONE_DIMENSIONAL if isinstance(k, type))))):  # (inner first)
        refusal = _ONE_DIMENSIONAL.get(node.name.lower() if isinstance(node, exp.Anonymous) else type(node))
        if refusal is not None and node.this is not None and not isinstance(node, exp.Anonymous):
            node.set("this", _one_dimensional(node.this, refusal))
        elif refusal is not None and node.expressions:
            node.set("expressions", [_one_dimensional(node.expressions[0], refusal), *node.expressions[1:]])
        elif isinstance(node, exp.ArrayConcat) and len(node.expressions) == 1:
            if witness := _dimension_witnesses(node.this, node.expressions[0]):
                node.replace(_by_type(ARRAY_CAT, [node.this, node.expressions[0]], witness))
        elif _is_call(node, "array_fill") and len(node.expressions) in (2, 3):
            node.replace(_array_fill(*node.expressions))
        elif isinstance(node, exp.Anonymous) and node.name == ARRAY_CONCAT and len(node.expressions) == 2:
            if witness := _dimension_witnesses(*node.expressions):
                node.replace(_by_type(ARRAY_CONCAT, node.expressions, witness))
        elif isinstance(node, exp.Anonymous) and node.name.lower() in _DIMENSIONED and node.expressions:
            if witness := _dimension_witnesses(node.expressions[0]):
                node.replace(_by_type(node.name.lower(), node.expressions, witness))
            elif _aggregated(node.expressions[0]) and not any(isinstance(n, exp.Placeholder) for n in node.walk()):
                node.replace(_typed_in_lambda(node.name.lower(), node.expressions))
        elif isinstance(node, exp.Anonymous) and (node.name == QUANTIFIED or _is_call(node, "unnest")) and len(
                node.expressions) == 1 and not node.meta.get(_ELEMENTS_TAKEN):  # (x = ANY (a); unnest(a))
            node.set("expressions", [_elements(node.expressions[0])])
        elif not isinstance(node, exp.Anonymous):
            for key in _THROUGH_DIMENSIONS[type(node)]:
                value = node.args.get(key)
                if isinstance(value, list):
                    node.set(key, [_elements(v) for v in value])
                elif value is not None:
                    node.set(key, _elements(value))


def _array_fill(value: exp.Expression, dimensions: exp.Expression, lower=None) -> exp.Expression:
    """``array_fill(v, ARRAY[2, 3])``: an array of those dimensions, each element v - its type,
    how deep its lists are, told by the constant dimensions; others are 0A000 (DuckDB's type of a
    value cannot depend on a value), as are lower bounds but 1 (txlake's arrays start at 1)."""
    def constants(node) -> list[int | None] | None:
        node = node.this if isinstance(node, exp.Cast) and isinstance(node.this, (exp.Array, exp.Literal)) else node
        if isinstance(node, exp.Literal) and node.is_string:  # ('{2,3}')
            node = exp.Array(expressions=[exp.Null() if i is None else exp.Literal.string(i)
                                          for i in array_input(node.this)])
        if not isinstance(node, exp.Array):
            return None
        items = [item.this if isinstance(item, exp.Cast) else item for item in node.expressions]
        if not all(isinstance(i, exp.Null) or isinstance(i, exp.Literal) and re.fullmatch(r"-?\d+", i.this.strip())
                   or isinstance(i, exp.Neg) and isinstance(i.this, exp.Literal) and i.this.is_int for i in items):
            return None
        return [None if isinstance(i, exp.Null) else -int(i.this.this) if isinstance(i, exp.Neg) else int(i.this)
                for i in items]
    sizes = constants(dimensions)
    starts = constants(lower) if lower is not None else [1] * len(sizes or [])
    if sizes is None or starts is None:
        raise errors.NotSupportedError("array_fill is supported of dimensions (and lower bounds) written as an "
                                       "ARRAY[...] of integer constants")
    if None in sizes:
        raise errors.DataError("dimension values cannot be null", sqlstate="22004")
    if len(starts) != len(sizes):
        raise errors.DataError("wrong number of array subscripts\nDETAIL:  Low bound array has different size than "
                               "dimensions array.", sqlstate="2202E")
    if any(start != 1 for start in starts):
        raise errors.NotSupportedError("array_fill's lower bounds other than 1 are not supported: txlake's arrays "
                                       "start at 1")
    if any(size < 0 for size in sizes):
        raise errors.OperationalError("array size exceeds the maximum allowed (134217727)", sqlstate="54000")
    if len(sizes) > 6:
        raise errors.OperationalError(f"number of array dimensions ({len(sizes)}) exceeds the maximum allowed (6)",
                                      sqlstate="54000")
    if not sizes or 0 in sizes:  # (an empty array, as PostgreSQL's: of one dimension)
        sizes = [0]
    filled = value.copy()
    for depth, size in reversed(list(enumerate(sizes))):
        filled = exp.Anonymous(this="list_transform", expressions=[
            exp.Anonymous(this="range", expressions=[exp.Literal.number(size)]),
            exp.Lambda(this=filled, expressions=[exp.to_identifier(f"txl_fill{depth}")])])
    return filled


def _dimension_witnesses(*arrays: exp.Expression) -> list[exp.Expression]:
    """``_type_witnesses`` of arrays for a macro of NESTED_ARRAY_MACROS: none of a NULL, of an
    empty ARRAY[] or of NULLs only (of no type its forms tell apart: they would all match)."""
    if any(isinstance(a, exp.Null) or isinstance(a, exp.Array) and all(isinstance(e, exp.Null) for e in a.expressions)
           for a in arrays):
        return []
    return _type_witnesses(*arrays)


def nested_form(name: str) -> str:
    """The name of the macro of NESTED_ARRAY_MACROS (engine/dialect.py) of array function ``name``,
    which takes the array again to pick its form by its dimensions."""
    return name if name.startswith(NESTED_FORM) else NESTED_FORM + name.removeprefix("txl_")


def _typed_in_lambda(name: str, arguments: list[exp.Expression]) -> exp.Expression:
    """The call of ``nested_form(name)`` of ``arguments``, its first an aggregate's array, made
    in a lambda (``_through_lambda``: ``cardinality(array_agg(a))`` of arrays counted the arrays)."""
    return _through_lambda(arguments[0], lambda e: _by_type(name, [e, *arguments[1:]], [e.copy()]))


def _through_lambda(value: exp.Expression, call_of) -> exp.Expression:
    """``call_of(e)`` of ``value``, an aggregate's or a window function's, as e: in a lambda of it,
    ``list_transform([value], lambda e: ...)[1]``. DuckDB picks a macro's form by its arguments'
    types before it knows an aggregate's (the first form, or 42000 "multiple overloads"), but a
    lambda's parameter's it knows by then."""
    element = exp.to_identifier("e")
    listed = exp.Anonymous(this="list_transform", expressions=[
        exp.Array(expressions=[value.copy()]), exp.Lambda(this=call_of(element), expressions=[element.copy()])])
    return exp.Bracket(this=listed, expressions=[exp.Literal.number(1)], offset=1)


def _by_type(name: str, arguments: list[exp.Expression], witnesses: list[exp.Expression]) -> exp.Expression:
    """The call of ``nested_form(name)`` of ``arguments`` and of the ``witnesses`` of their types."""
    return exp.Anonymous(this=nested_form(name), expressions=[a.copy() for a in arguments] + witnesses)


def _one_dimensional(array: exp.Expression, refusal: str) -> exp.Expression:
    """``array``, refused with ``refusal`` where it has several dimensions (``ARRAY_ONE_DIMENSIONAL``)."""
    witness = _dimension_witnesses(array)
    return _by_type(ARRAY_ONE_DIMENSIONAL, [array, exp.Literal.string(refusal)], witness) if witness else array


def _subscripts(node: exp.Bracket) -> None:
    """``a[i][j]...``, the outermost of its brackets, as PostgreSQL's: of fewer subscripts than the
    array's dimensions NULL (``ARRAY_ELEMENT``: DuckDB's was the sub-array), slices of each
    dimension in turn (``a[1:2][1:1]``: DuckDB sliced the first twice) - an empty one the empty
    array; a subscript beside a slice is 0A000 (PostgreSQL reads it as a slice from 1)."""
    if isinstance(node.parent, exp.Bracket) and node.arg_key == "this" or len(node.expressions) != 1 or (
            isinstance(node.parent, exp.EQ) and node.arg_key == "this"
            and isinstance(node.parent.parent, (exp.Update, exp.OnConflict))):
        return
    chain, inner = [node], node.this
    while isinstance(inner, exp.Bracket) and len(inner.expressions) == 1:
        chain.insert(0, inner)
        inner = inner.this
    indexes = [b.expressions[0] for b in chain]
    if any(isinstance(i, exp.Literal) and i.is_string for i in indexes):  # (a struct's field)
        return
    slices = [isinstance(i, exp.Slice) for i in indexes]
    if not any(slices):
        if witness := _dimension_witnesses(node):
            node.replace(_by_type(ARRAY_ELEMENT, [node], witness))
        return
    if len(chain) == 1:
        return
    if not all(slices):
        raise errors.NotSupportedError("a subscript beside a slice of an array is not supported: write each as a "
                                       "slice (a[1:2][1:1])")
    sliced = exp.Bracket(this=inner.copy(), expressions=[indexes[0].copy()])
    for depth, index in enumerate(indexes[1:], start=1):
        sliced = exp.Anonymous(this="list_transform", expressions=[sliced, _each_sliced(depth, index)])
    # (an empty slice of any dimension is the empty array, as PostgreSQL's)
    node.replace(exp.If(this=exp.EQ(this=exp.Anonymous(this="len", expressions=[
        exp.Anonymous(this="flatten", expressions=[sliced.copy()])]), expression=exp.Literal.number(0)),
        true=exp.Bracket(this=sliced.copy(), expressions=[exp.Slice(this=exp.Literal.number(1),
                                                                      expression=exp.Literal.number(0))]),
        false=sliced))


def _each_sliced(depth: int, index: exp.Slice) -> exp.Lambda:
    """The lambda slicing each sub-array ``depth`` dimensions down by ``index``."""
    names = [exp.to_identifier(f"txl_sub{k}") for k in range(depth)]
    body: exp.Expression = exp.Bracket(this=exp.column(names[-1].copy()), expressions=[index.copy()])
    for k in range(depth - 1, 0, -1):
        body = exp.Anonymous(this="list_transform", expressions=[
            exp.column(names[k - 1].copy()), exp.Lambda(this=body, expressions=[names[k].copy()])])
    return exp.Lambda(this=body, expressions=[names[0].copy()])


def _elements(array: exp.Expression) -> exp.Expression:
    """``array``'s elements through every dimension (``ARRAY_ELEMENTS``) - not a set-returning
    function's rows of arrays (regexp_matches()'s, a list of its matches' arrays)."""
    witness = [] if _is_call(array, REGEXP_MATCH_ROWS) else _dimension_witnesses(array)
    return _by_type(ARRAY_ELEMENTS, [array], witness) if witness else array


def _array_length(node: exp.ArraySize) -> exp.Expression:
    """``array_length(a, 1)`` as PostgreSQL's: NULL for an empty array and for any other
    dimension, an integer (DuckDB's was 0, an error for dimension 2, a bigint)."""
    if node.expression is None:
        return node
    return exp.Anonymous(this=ARRAY_LENGTH, expressions=[node.this.copy(), node.expression.copy()])


def _array_remove(node: exp.ArrayRemove) -> exp.Expression:
    """``array_remove(a, x)`` drops the elements not distinct from x, as PostgreSQL's (sqlglot's
    filter by ``<>`` dropped the NULL elements too, and removed nothing for a NULL x)."""
    e = exp.to_identifier("e")
    keep = exp.Not(this=exp.NullSafeEQ(this=exp.column(e), expression=node.expression.copy()))
    array = _one_dimensional(node.this, "removing elements from multidimensional arrays is not supported")
    return exp.Anonymous(this="list_filter", expressions=[array, exp.Lambda(this=keep, expressions=[e])])


# meta of the text form _concat gives a side of ``||`` (not a cast the statement wrote)
CONCAT_TEXT = "concat_text"
# the meta key of the ARRAY_AS call ``_array_operator`` made of a string constant: the constant as written
ARRAY_CONSTANT = "array_constant"


def _concat(node: exp.DPipe) -> exp.Expression:
    """``a || b`` through ``ARRAY_CONCAT``, which appends or prepends an element to an array, as
    PostgreSQL's (DuckDB's ``||`` joins two lists or two strings only). A NULL, a parameter or
    a string constant on either side keeps DuckDB's (their type is not known to be an element's),
    the other side joined as PostgreSQL's text of it (``_text``: 'v=' || 1.0::float8 is v=1)."""
    sides = (node.this, node.expression)
    if any(map(_joins_text, sides)):
        for key, side in zip(("this", "expression"), sides):
            if not _joins_text(side) and not isinstance(side, (exp.Literal, exp.Null)):
                node.set(key, _text(side, side))
                node.args[key].meta[CONCAT_TEXT] = True  # (engine/jsonb_order.py: a jsonb column's is jsonb's ||)
        return node
    if any(isinstance(side, (exp.Null, exp.Placeholder)) for side in sides):
        return node
    return exp.Anonymous(this=ARRAY_CONCAT, expressions=[node.this.copy(), node.expression.copy()])


def _array_operator(node: exp.Expression) -> exp.Expression:
    """``a @> '{x}'`` (``<@``, ``&&``): a string constant against an array is an array of its
    type, as PostgreSQL reads an untyped constant (DuckDB refused text against a list): read
    now (22P02 if malformed), its elements cast to the other side's element type (``ARRAY_AS``,
    which is handed that side too - so not when it holds a parameter, which would be bound twice)."""
    sides = (node.this, node.expression)
    constant = [isinstance(side, exp.Literal) and side.is_string for side in sides]
    if constant.count(True) != 1:
        return node
    at = constant.index(True)
    other = sides[1 - at]
    if any(isinstance(n, exp.Placeholder) for n in other.walk()):
        return node
    written = sides[at].this
    # (a constant that is no array's text - an inet's beside an inet column, engine/network.py -
    # is read when it runs, 22P02 then if the other side is an array)
    as_text = _array_elements(written) if written.lstrip()[:1] in ("{", "[") else \
        exp.Anonymous(this=ARRAY_PARSE, expressions=[sides[at].copy()])
    array = exp.Anonymous(this=ARRAY_AS, expressions=[other.copy(), as_text])
    array.meta[ARRAY_CONSTANT] = sides[at].copy()  # (engine/jsonb_order.py: beside a jsonb column it is jsonb)
    node.set("this" if at == 0 else "expression", array)
    return node


# the operators of ``x op ANY / ALL (array)`` (LIKE's: ``_like_any``)
_QUANTIFIED_COMPARISONS = (exp.EQ, exp.NEQ, exp.LT, exp.LTE, exp.GT, exp.GTE)


def _quantified(node: exp.Any | exp.All) -> exp.Expression:
    """``x op ANY (array)`` / ``ALL`` as PostgreSQL's: the array through ``QUANTIFIED`` (a NULL
    array makes the comparison NULL); a string constant is an array of x's type, as PostgreSQL
    reads an untyped constant - read now (22P02 if malformed), its elements cast to x's type by
    ``ELEMENTS_AS`` - and so is a parameter's text, read when it runs (a list stays as it is).
    ELEMENTS_AS is handed a copy of x (a ? in it binds the same parameter twice: parser/parse.py
    says so in the statement's parameter order). ``quantified_operand`` finds the array as written."""
    array = node.this.unnest()
    comparison = node.parent
    if isinstance(array, exp.Query) or not isinstance(comparison, _QUANTIFIED_COMPARISONS) \
            or node.arg_key != "expression" or (isinstance(array, exp.Anonymous) and array.name == QUANTIFIED):
        return node
    untyped = isinstance(array, exp.Placeholder)
    if isinstance(array, exp.Literal) and array.is_string:
        array, untyped = _array_elements(array.this), True
    if untyped:
        array = exp.Anonymous(this=ELEMENTS_AS, expressions=[comparison.this.copy(), array])
    return quantified_over(type(node)(), array.copy())


def quantified_operand(node: exp.Any | exp.All) -> exp.Expression:
    """The array of ``x op ANY / ALL (array)`` as written, from under ``_quantified``'s macros:
    a parameter, an untyped constant's elements (``CAST([...] AS VARCHAR[])``), any other array."""
    array = node.this.unnest()
    for name, at in ((QUANTIFIED, 0), (ARRAY_ELEMENTS, 0), (ELEMENTS_AS, 1)):
        if isinstance(array, exp.Anonymous) and array.name == name:
            array = array.expressions[at]
    return array


def quantified_over(node: exp.Any | exp.All, array: exp.Expression) -> exp.Expression:
    """``node`` comparing with ``array`` instead, through ``QUANTIFIED`` as ``_quantified`` makes it."""
    node.set("this", exp.Paren(this=exp.Anonymous(this=QUANTIFIED, expressions=[array])))
    return node


def _array_elements(text: str) -> exp.Cast:
    """PostgreSQL's text of an array, read now (``array_input``: 22P02 if malformed), as a
    VARCHAR[] of its elements' text (NULL for a NULL element): ``CAST(['1', NULL] AS VARCHAR[])``."""
    items = exp.Array(expressions=[exp.Null() if item is None else exp.Literal.string(item)
                                   for item in array_input(text)])
    return exp.Cast(this=items, to=exp.DataType.build("VARCHAR[]", dialect="duckdb"))


# PostgreSQL's set-returning functions that split text, or find a pattern's matches
# (regexp_matches: engine/regexp_functions.py's list of each match's text[]), or number an
# array's subscripts, -> the array function whose elements are their rows (DuckDB has no such
# table functions; its generate_subscripts, of a select list alone, is a bigint)
_SPLIT_TABLES = {"regexp_split_to_table": pg_regex.SPLIT, "string_to_table": STRING_TO_ARRAY,
                 "regexp_matches": REGEXP_MATCH_ROWS, "generate_subscripts": SUBSCRIPTS}


def _split_table(node: exp.Table | exp.Lateral | exp.Anonymous) -> exp.Expression | None:
    """``regexp_split_to_table(s, pattern)`` / ``string_to_table(s, d [, null])`` (42883 in FROM
    and in a LATERAL join before; string_to_table in a select list too): UNNEST of the array
    their ``_to_array`` partner makes. As PostgreSQL names a function's one column, a FROM
    item's is named after the function, or after the item's alias (``FROM string_to_table(...)
    AS part`` reads ``part``), or as the alias's column list says."""
    call = node if isinstance(node, exp.Anonymous) else node.this
    if not isinstance(call, exp.Anonymous) or call.name.lower() not in _SPLIT_TABLES \
            or call is node and isinstance(node.parent, (exp.Table, exp.Lateral)):
        return None
    name = call.name.lower()
    if name == "regexp_split_to_table" and len(call.expressions) in (2, 3):
        array = _regexp_split(call.expressions, name)
    else:
        array = exp.Anonymous(this=_SPLIT_TABLES[name], expressions=[arg.copy() for arg in call.expressions])
    if call is node:  # (in a select list: its rows, as PostgreSQL's set-returning call gives them)
        return exp.Unnest(expressions=[array])
    alias = node.args.get("alias")
    table = alias.name if alias is not None and alias.name else name
    columns = [c.copy() for c in alias.columns] if alias is not None and alias.columns else [exp.to_identifier(table)]
    # WITH ORDINALITY: the rows' numbers, in a column named "ordinality" or as the alias's list says
    offset = (columns[1] if len(columns) > 1 else exp.to_identifier("ordinality")) if node.args.get("ordinality") \
        else None
    return exp.Unnest(expressions=[array], alias=exp.TableAlias(this=exp.to_identifier(table), columns=columns[:1]),
                      offset=offset)


def _zipped_unnest(node: exp.Unnest) -> exp.Subquery:
    """``FROM unnest(a, b [, ...]) [WITH ORDINALITY] [AS t(x, y [, n])]`` (DuckDB's unnest takes
    one list: 42883) as PostgreSQL's: the arrays side by side, the shorter padded with NULLs - a
    select list of DuckDB's unnest calls, which zip so - each array evaluated once (a ``?`` in
    it stays one parameter), and the rows numbered from 1 for ORDINALITY. Columns are named as
    the alias lists them, else ``unnest``."""
    alias = node.args.get("alias")
    named = [c.name for c in alias.columns] if alias is not None else []
    if not named and alias is not None and alias.name and len(node.expressions) == 1:
        named = [alias.name]  # (one array's column named after the alias, as PostgreSQL names it)
    arrays = [f"txl_zip{i}" for i in range(len(node.expressions))]
    columns = [exp.alias_(exp.Anonymous(this="unnest", expressions=[exp.column(a)]),
                          named[i] if i < len(named) else "unnest", quoted=True) for i, a in enumerate(arrays)]
    for column in columns:  # (their arrays' elements are taken below: a multidimensional one's, ARRAY_ELEMENTS)
        column.this.meta[_ELEMENTS_TAKEN] = True
    offset = node.args.get("offset")  # (False without WITH ORDINALITY, True or its column's name with it)
    if offset:
        longest = exp.Anonymous(this="greatest", expressions=[
            exp.Anonymous(this="len", expressions=[exp.column(a)]) for a in arrays])
        numbers = exp.Anonymous(this="range", expressions=[exp.Literal.number(1), exp.Add(
            this=longest, expression=exp.Literal.number(1))])
        name = offset.name if isinstance(offset, exp.Identifier) else "ordinality"
        numbered = exp.Anonymous(this="unnest", expressions=[numbers])
        numbered.meta[_ELEMENTS_TAKEN] = True
        columns.append(exp.alias_(exp.cast(numbered, "BIGINT"), name, quoted=True))
    values = exp.select(*(exp.alias_(_elements(e), a) for e, a in zip(node.expressions, arrays)))
    rows = exp.select(*columns).from_(exp.Subquery(this=values, alias=exp.TableAlias(
        this=exp.to_identifier("txl_zip"))))
    return exp.Subquery(this=rows, alias=exp.TableAlias(
        this=exp.to_identifier(alias.name if alias is not None and alias.name else "unnest")))


def _string_to_array(node: exp.Split) -> exp.Expression:
    """``string_to_array(s, d [, null_string])`` as PostgreSQL's: '' is an empty array, a NULL
    delimiter splits into characters, an empty one leaves the string whole, and elements equal
    to null_string are NULL (sqlglot dropped that argument)."""
    args = [node.this.copy(), node.expression.copy()]
    if node.args.get("limit") is not None:
        args.append(node.args["limit"].copy())
    return exp.Anonymous(this=STRING_TO_ARRAY, expressions=args)


def _split_part(node: exp.SplitPart) -> exp.Expression:
    """``split_part(s, d, n)`` through ``SPLIT_PART_MACRO``: field 0 is 22023, as PostgreSQL's
    (DuckDB's gave ''), and an empty delimiter splits nothing (DuckDB's split every character)."""
    args = [node.this, node.args.get("delimiter"), node.args.get("part_index")]
    if any(a is None for a in args):
        return node
    return exp.Anonymous(this=SPLIT_PART_MACRO, expressions=[a.copy() for a in args])


# encode(bytea, format) / decode(text, format): DuckDB's functions for each format
_ENCODINGS = {"hex": ("lower(hex({}))", "unhex({})"), "base64": ("to_base64({})", "from_base64({})"),
              "escape": (ESCAPE_OUT + "({})", ESCAPE_IN + "({})")}


def _coding(name: str, value: exp.Expression, format_: exp.Expression) -> exp.Expression:
    if not (isinstance(format_, exp.Literal) and format_.is_string):
        raise errors.NotSupportedError(f"{name}() takes its format as a string constant")
    sql = _ENCODINGS.get(format_.this.lower())
    if sql is None:
        raise errors.InvalidParameterValue(f'unrecognized encoding: "{format_.this}"')
    # (the value put into the call as it is: a ? made text and parsed anew lost its place among
    # the statement's parameters - a KeyError with another ?)
    call = exp.maybe_parse(sql[name == "decode"].format(_CODED), dialect="duckdb")
    return call.transform(lambda n: value.copy() if isinstance(n, exp.Column) and n.name == _CODED else n)


_CODED = "__txl_coded"


def _regexp_match(args: list[exp.Expression]) -> exp.Expression:
    """``regexp_match(s, p [, flags])``: the first match's captured groups as an array (the
    whole match if ``p`` has none), NULL if none - by RE2 (a regexp_extract per group) where it
    gives PostgreSQL's answer (``_re2_groups``), else Python's (engine/regexp_functions.py)."""
    flags = args[2] if len(args) > 2 else exp.Literal.string("")
    _check_regex(args[1], flags, "regexp_match")
    re2 = _re2_groups(args[0], args[1], flags, "regexp_match")
    if re2 is None:
        return exp.Anonymous(this=pg_regex.MATCH, expressions=[args[0].copy(), args[1].copy(), flags.copy()])
    groups = _compiled(args[1].this, flags.this, "regexp_match").groups
    return _if_matches(args[0], re2, exp.Array(
        expressions=[_regexp_group(args[0], re2, g) for g in (range(1, groups + 1) if groups else (0,))]))


def _re2_groups(text: exp.Expression, pattern: exp.Expression, flags: exp.Expression, function: str):
    """``pattern`` spelled for RE2, where RE2's regexp_extract gives what PostgreSQL's match
    does: a constant pattern and flags RE2 can run, whose groups always take part in a match
    (regexp_extract gives '' for one that does not, PostgreSQL NULL: none under ``|``, ``?``,
    ``*`` or ``{``), and ``text`` read more than once harmlessly (no ``?`` in it); else None."""
    if not (_is_string(pattern) and _is_string(flags)) or any(text.find_all(exp.Placeholder)):
        return None
    if _compiled(pattern.this, flags.this, function).groups and any(c in pattern.this for c in "|?*{"):
        return None
    re2 = _re2(pattern.this, flags.this, function)
    return exp.Literal.string(re2) if re2 is not None else None


def _regexp_split(args: list[exp.Expression], function: str = "regexp_split_to_array") -> exp.Expression:
    """``regexp_split_to_array(s, p [, flags])``: DuckDB's (RE2) where the pattern cannot match
    an empty string - then the two split alike - else Python's (DuckDB's kept the empty pieces
    PostgreSQL leaves out: ``'a b'`` split by ``'\\s*'`` gave {a,"",b})."""
    flags = args[2] if len(args) > 2 else exp.Literal.string("")
    _check_regex(args[1], flags, function)
    if _is_string(args[1]) and _is_string(flags) and not pg_regex.may_match_empty(args[1].this, flags.this) \
            and (re2 := _re2(args[1].this, flags.this, function)) is not None:
        return exp.Anonymous(this="regexp_split_to_array", expressions=[args[0].copy(), exp.Literal.string(re2)])
    return exp.Anonymous(this=pg_regex.SPLIT, expressions=[args[0].copy(), args[1].copy(), flags.copy()])


def _check_regex(pattern: exp.Expression, flags: exp.Expression | None, function: str) -> None:
    """A constant pattern (and constant flags) checked now: PostgreSQL's error before any row."""
    if _is_string(pattern) and (flags is None or _is_string(flags)):
        _compiled(pattern.this, flags.this if flags is not None else "", function)


def _is_string(node: exp.Expression | None) -> bool:
    return isinstance(node, exp.Literal) and node.is_string


def _regex_operator(node: exp.RegexpLike | exp.RegexpILike) -> exp.Expression:
    """``s ~ p`` / ``s ~* p``: a constant pattern read as PostgreSQL's (parser/pg_regex.py) - by
    RE2 where it can run it, else by Python's regexp_like; another pattern by RE2, its ``.``
    matching a newline as PostgreSQL's does."""
    flags = "i" if isinstance(node, exp.RegexpILike) else ""
    pattern = node.expression
    if not _is_string(pattern):
        pattern = exp.DPipe(this=exp.Literal.string(f"(?{flags}s)"), expression=pattern.copy())
        return exp.RegexpLike(this=node.this.copy(), expression=pattern)
    re2 = _re2(pattern.this, flags, "regexp")
    if re2 is None:
        return exp.Anonymous(this="regexp_like", expressions=[
            node.this.copy(), pattern.copy(), exp.Literal.string(flags)])
    return exp.RegexpLike(this=node.this.copy(), expression=exp.Literal.string(re2))


# the meta key of a regexp_replace already spelled for RE2 (``_regexp_replace``'s own)
_RE2_SPELLED = "re2_spelled"


def _regexp_replace_read(node: exp.RegexpReplace) -> exp.Expression:
    """A regexp_replace sqlglot's DuckDB dialect read (a column default's stored SQL) as
    ``_regexp_replace`` makes one; not one it made."""
    if node.meta.get(_RE2_SPELLED):
        return node
    args = [node.this, node.expression, node.args.get("replacement"), node.args.get("modifiers")]
    return _regexp_replace(exp.Anonymous(this="regexp_replace", expressions=[a for a in args if a is not None]))


def _regexp_replace(node: exp.Anonymous) -> exp.Expression:
    """``regexp_replace(s, p, r [, flags])`` and PostgreSQL 16's ``(s, p, r, start [, n [, flags]])``
    (sqlglot kept the fourth argument as DuckDB's options and dropped the rest: the start 2 was read
    as options, and ``regexp_replace('aaa', 'a', 'b', 2)`` gave 'baa'). Without a start or n, and
    with a constant pattern, replacement and flags: DuckDB's (RE2), the pattern and replacement
    spelled for it, where RE2 can run them; otherwise Python's (engine/regexp_functions.py) - through
    REPLACE_EITHER for a fourth argument that is no constant, a start if it is an integer when the
    statement runs, else the flags (as PostgreSQL resolves ``regexp_replace(s, p, r, n)``)."""
    args = node.expressions
    if not 3 <= len(args) <= 6:
        return node  # (DuckDB's 42883)
    text, pattern, replacement, *rest = args
    # (a fourth argument is the start if it is an integer, the flags if it is text or unknown)
    extended = len(rest) > 1 or bool(rest) and (isinstance(rest[0], exp.Literal) and rest[0].is_number or isinstance(
        rest[0], exp.Cast) and rest[0].to.is_type(*exp.DataType.INTEGER_TYPES))
    flags = rest[-1] if rest and (not extended or len(rest) == 3) else None
    if _is_string(flags) and flags.this[:1].isdigit():
        raise errors.InvalidParameterValue(
            f'invalid regular expression option: "{flags.this[0]}"\nHINT:  If you meant to use regexp_replace() '
            "with a start parameter, cast the fourth argument to integer explicitly.")
    if not extended and flags is not None and not _is_string(flags):  # (an integer's start, else the flags)
        return exp.Anonymous(this=pg_regex.REPLACE_EITHER, expressions=[a.copy() for a in args])
    written = flags.this if _is_string(flags) else ""
    if _is_string(pattern) and (flags is None or _is_string(flags)):
        groups = _compiled(pattern.this, written, "regexp_replace").groups
        re2 = None if extended or not _is_string(replacement) else \
            _re2(pattern.this, written, "regexp_replace")
        spelled = None if re2 is None else pg_regex.re2_replacement(replacement.this, groups)
        if spelled is not None:
            made = exp.RegexpReplace(this=text.copy(), expression=exp.Literal.string(re2),
                                     replacement=exp.Literal.string(spelled),
                                     modifiers=exp.Literal.string("g") if "g" in written else None,
                                     single_replace=True)
            made.meta[_RE2_SPELLED] = True
            return made
    start = rest[0].copy() if extended else exp.Literal.number(1)
    # (no n: every match with the flag g, else the first)
    n = rest[1].copy() if extended and len(rest) > 1 else exp.Literal.number(0 if "g" in written else 1)
    return exp.Anonymous(this=pg_regex.REPLACE, expressions=[
        text.copy(), pattern.copy(), replacement.copy(), start, n,
        flags.copy() if flags is not None else exp.Literal.string("")])


def _to_timestamp(node: exp.UnixToTime) -> exp.Expression:
    """``to_timestamp(text, pattern)`` (sqlglot read the pattern as the epoch's scale); the
    one-argument form, from seconds since the epoch, is DuckDB's."""
    pattern = node.args.get("scale")
    if not (isinstance(pattern, exp.Literal) and pattern.is_string):
        return node
    return exp.cast(_strptime(node.this, pattern), "TIMESTAMPTZ")


def _strptime(text: exp.Expression, pattern: exp.Expression) -> exp.Expression:
    """DuckDB's strptime of ``text`` with PostgreSQL's date pattern translated."""
    if not (isinstance(pattern, exp.Literal) and pattern.is_string):
        raise errors.NotSupportedError("to_date / to_timestamp take a pattern that is a string literal")
    return exp.Anonymous(this="strptime", expressions=[
        text.copy(), exp.Literal.string(format_time(pattern.this, _TO_CHAR_MAPPING, _TO_CHAR_TRIE))])


def _date_part(node: exp.Anonymous) -> exp.Expression:
    """``date_part('field', x)``: extract()'s value (``_extract``) as a double precision, as
    PostgreSQL's (``date_part('second', ts)`` with the fraction; DuckDB's was a bigint)."""
    if len(node.expressions) != 2:
        return node
    field, value = node.expressions
    if not (isinstance(field, exp.Literal) and field.is_string):
        return node
    extract = exp.Extract(this=exp.var(field.this), expression=value.copy())
    return exp.cast(_extract(extract), "DOUBLE")


# the functions of parser/numeric.py that compute sqlglot's functions of a numeric
_NUMERIC_NAMES = {exp.Sqrt: "sqrt", exp.Ln: "ln", exp.Log: "log10", exp.Pow: "power", exp.Exp: "exp"}


def _domain(node: exp.Expression) -> exp.Expression:
    """sqrt, ln, log and power of values outside their domain raise PostgreSQL's 2201F / 2201E
    (DuckDB returns NaN or infinity); of a numeric they are numerics (``_numeric_function``)."""
    name = _DOMAIN_MACROS[type(node)]
    if isinstance(node, exp.Log) and node.args.get("expression") is not None:  # log(b, x): DuckDB's
        return node
    if isinstance(node, exp.Pow):
        folded = _folded("power", node.this, node.expression)
        return folded if folded is not None else exp.Anonymous(this=name, expressions=[
            node.this.copy(), node.expression.copy(), *_type_witnesses(node.this, node.expression)])
    return _numeric_function(_NUMERIC_NAMES[type(node)], name, node.this)


# numeric division, sqrt(), exp(), ln(), log() and power as PostgreSQL's: exact, at the scale it
# picks for each value
# (parser/numeric.py) - of constants folded here, of other values by engine/dialect.py's macros,
# whose forms for numeric operands call NUMERIC_FUNCTION + the function's name (a Python
# function of their text) and whose other forms are DuckDB's: a double's, an integer division
NUMERIC_FUNCTION, EXP_MACRO = "txl_numeric_", "txl_exp"


def _numeric_function(function: str, macro: str, argument: exp.Expression) -> exp.Expression:
    """``sqrt(x)``, ``exp(x)``, ``ln(x)``, ``log(x)``: folded if x is a numeric constant, else
    through ``macro``, handed x again to pick its form by (not when that would bind a parameter
    twice)."""
    folded = _folded(function, argument)
    if folded is not None:
        return folded
    return exp.Anonymous(this=macro, expressions=[argument.copy(), *_type_witnesses(argument)])


def _round(node: exp.Round) -> exp.Expression:
    """``round(x)`` of a double precision or a real rounds half to even, as PostgreSQL's
    (float8's rint; DuckDB's round goes half away from zero, as a numeric's does), and
    ``round(x [, n])`` of an integer is round(numeric)'s, a numeric (``round(7, 1)`` is 7.0;
    DuckDB's kept the integer): ROUND_MACRO picks the form by x's type. An x whose type is
    known too late stays DuckDB's."""
    witnesses = _type_witnesses(node.this)
    places = [node.args["decimals"].copy()] if node.args.get("decimals") is not None else []
    return exp.Anonymous(this=ROUND_MACRO, expressions=[node.this.copy(), *places, *witnesses]) if witnesses else node


def _type_witnesses(*operands: exp.Expression) -> list[exp.Expression]:
    """Copies of ``operands`` for a macro to pick its form by their types (it never evaluates
    them); none if one holds a parameter (bound by its place: it would be bound twice) or is
    one whose type DuckDB knows too late (``_typed_argument``)."""
    if not all(_typed_argument(o) for o in operands) or any(
            isinstance(n, exp.Placeholder) for o in operands for n in o.walk()):
        return []
    return [o.copy() for o in operands]


def _constant_value(node: exp.Expression) -> tuple[decimal.Decimal, bool] | None:
    """The value of a constant operand, and whether PostgreSQL types it numeric: a number
    (numeric if written with a point or an exponent), a number or a string constant cast to an
    integer type or to numeric(p,s) (rounded at s), negated or in parentheses; else None."""
    if isinstance(node, exp.Paren):
        return _constant_value(node.this)
    if isinstance(node, exp.Neg):
        value = _constant_value(node.this)
        return (-value[0], value[1]) if value is not None else None
    if isinstance(node, exp.Literal) and not node.is_string:
        return decimal.Decimal(node.this), not node.is_int
    if not (type(node) is exp.Cast and isinstance(node.this, exp.Literal)):
        return None
    try:
        value = decimal.Decimal(node.this.this.strip())
    except decimal.InvalidOperation:
        return None
    if not value.is_finite():
        return None
    if node.to.this in _INTEGER_TYPES:
        return (value, False) if value == value.to_integral_value() else None
    params = [p.name for p in node.to.expressions]
    if node.to.this != exp.DType.DECIMAL or len(params) != 2 or not all(p.isdigit() for p in params):
        return None
    rounded = value.quantize(decimal.Decimal(1).scaleb(-int(params[1])), rounding=decimal.ROUND_HALF_UP)
    return (rounded, True) if len(rounded.as_tuple().digits) <= int(params[0]) else None


def _folded(function: str, *operands: exp.Expression) -> exp.Expression | None:
    """``function`` (parser/numeric.py ``FUNCTIONS``) of constant operands, one of them numeric,
    as PostgreSQL computes it - a constant of its scale: ``1::numeric / 3`` is
    0.33333333333333333333 (20 decimals), ``10::numeric / 4`` 2.5000000000000000 (16). None if an
    operand is no such constant, or the result is an error (left to be raised where PostgreSQL
    raises it) or past DuckDB's DECIMAL(38)."""
    values = [_constant_value(o) for o in operands]
    if any(v is None for v in values) or not any(is_numeric for _, is_numeric in values):
        return None
    try:
        result = numeric.FUNCTIONS[function][0](*(value for value, _ in values))
    except (ArithmeticError, ValueError):
        return None
    rscale = numeric.scale(result)
    if rscale > 38 or max(result.adjusted() + 1, 1) + rscale > 38:
        return None
    return exp.Cast(this=exp.Literal.string(f"{result:f}"), to=exp.DataType.build(f"DECIMAL(38,{rscale})"))


def _exp(node: exp.Exp) -> exp.Expression:
    """``exp(x)``: of a numeric a numeric (``_numeric_function``), of the rest DuckDB's."""
    return _numeric_function(_NUMERIC_NAMES[exp.Exp], EXP_MACRO, node.this)


_TO_CHAR_MAPPING = _to_char_mapping()
_TO_CHAR_TRIE = new_trie(_TO_CHAR_MAPPING)


def _fetch(node: exp.Fetch) -> exp.Expression | None:
    """``[OFFSET k] FETCH FIRST n ROWS WITH TIES`` (DuckDB has none: sqlglot made it a plain
    LIMIT, which dropped the ties) as a QUALIFY of the query's ORDER BY: the rows past the first
    k whose rank is at most k + n - the n rows, and those that tie with the last of them. Of
    constants only (a ``?`` would be bound twice), and not with DISTINCT (QUALIFY runs before
    it) or a set operation: 0A000."""
    options = node.args.get("limit_options")
    if options is None or not options.args.get("with_ties"):
        return node
    select = node.parent
    if not isinstance(select, exp.Select) or select.args.get("distinct") or select.args.get("qualify"):
        raise errors.NotSupportedError("FETCH FIRST ... WITH TIES is not supported with DISTINCT, QUALIFY "
                                       "or a set operation")
    order = select.args.get("order")
    if order is None:
        raise errors.SyntaxError("WITH TIES cannot be specified without ORDER BY clause")
    offset = select.args.get("offset")
    bounds = [node.args.get("count") or exp.Literal.number(1), offset.expression if offset is not None else None]
    if not all(b is None or (isinstance(b, exp.Literal) and b.is_int) for b in bounds):
        raise errors.NotSupportedError("FETCH FIRST ... WITH TIES takes constants here")
    count, skip = int(bounds[0].this), int(bounds[1].this) if bounds[1] is not None else 0
    keys = exp.Order(expressions=[_output_key(select, o) for o in order.expressions])
    rank = exp.Window(this=exp.Anonymous(this="rank"), order=keys)
    kept = exp.LTE(this=rank, expression=exp.Literal.number(skip + count))
    if skip:
        number = exp.Window(this=exp.Anonymous(this="row_number"), order=keys.copy())
        kept = exp.and_(exp.GT(this=number, expression=exp.Literal.number(skip)), kept)
    select.set("qualify", exp.Qualify(this=kept))
    select.set("offset", None)
    return None


def _output_key(select: exp.Select, ordered: exp.Ordered) -> exp.Ordered:
    """An ORDER BY item as a window's: a position (``ORDER BY 2``) or an output column's name as
    the select list's expression."""
    key, outputs = ordered.this, select.expressions
    if isinstance(key, exp.Literal) and key.is_int:
        if any(isinstance(o, exp.Star) or isinstance(o, exp.Column) and isinstance(o.this, exp.Star)
               for o in outputs[:int(key.this)]):
            raise errors.NotSupportedError("FETCH FIRST ... WITH TIES takes ORDER BY a position past a * "
                                           "as the column's name here")
        if 1 <= int(key.this) <= len(outputs):  # (else DuckDB's 42P10 for the query's own ORDER BY)
            key = outputs[int(key.this) - 1].unalias()
    elif isinstance(key, exp.Column) and not key.table:
        key = next((o.this for o in outputs if isinstance(o, exp.Alias) and o.alias == key.name), key)
    window_key = ordered.copy()
    window_key.set("this", key.copy())
    return window_key


# the macros engine/dialect.py defines for the rewrites above
SUBSTRING_MACRO, SUBSTRING_FROM_MACRO = "txl_substring", "txl_substring_from"
SQRT_MACRO, LN_MACRO, LOG10_MACRO, POWER_MACRO = "txl_sqrt", "txl_ln", "txl_log10", "txl_power"
ROUND_MACRO = "txl_round"
_DOMAIN_MACROS = {exp.Sqrt: SQRT_MACRO, exp.Ln: LN_MACRO, exp.Log: LOG10_MACRO, exp.Pow: POWER_MACRO}


# text as an interval by PostgreSQL's input (parser/interval_input.py), anything else cast as DuckDB does
INTERVAL_MACRO = "txl_interval_of"
# an interval cut to a type's fields and precision (engine/dialect.py's function: interval_input.fit)
INTERVAL_FIT = "txl_interval_fit"


def _interval_cast(node: exp.Cast) -> exp.Expression:
    """A cast to interval reads text as PostgreSQL's interval input does (DuckDB's cast refused
    '-1 days +02:00:00', 'P1Y2M', '1.5 years'): a constant now, other text through ``INTERVAL_MACRO``."""
    value = node.this
    if isinstance(value, exp.Literal) and value.is_string:
        return interval_literal(value.this)
    if isinstance(value, exp.Null):
        return node
    return exp.Anonymous(this=INTERVAL_MACRO, expressions=[value.copy()])


def interval_literal(text: str, fields: str | None = None, precision: int | None = None) -> exp.Expression:
    """An interval constant (``INTERVAL '1 day 2 hours'``, ``'P1Y'::interval``) as PostgreSQL
    reads it (errors as its: 22007, 22015, 22008), as DuckDB reads it exactly back."""
    months, days, micros = interval_input.fit(*interval_input.interval_constant(text, fields), fields, precision)
    return exp.cast(exp.Literal.string(f"{months} months {days} days {micros} microseconds"), exp.DType.INTERVAL)


def _typed_interval_cast(node: exp.Cast) -> exp.Expression:
    """A cast to an interval type of fields or a precision (``interval hour``, ``interval(3)``,
    ``interval day to second(2)``) cuts the value as an assignment to a column of it does
    (interval_input.fit: ``'1 day 04:59:59'::interval hour`` is 1 day 04:00:00 - the cast kept
    it whole, and one with a precision was DuckDB's 42601); text is read with the fields (a bare
    number in the smallest)."""
    unit = node.to.this.unit if isinstance(node.to.this, exp.Interval) else None
    fields = f"{unit.this.name} TO {unit.expression.name}" if isinstance(unit, exp.IntervalSpan) else \
        unit.name if unit is not None else None
    try:
        params = tuple(int(p.this.this) for p in node.to.expressions)
    except (AttributeError, ValueError):
        raise errors.SyntaxError(f"invalid type modifier in {node.to.sql()}") from None
    typed = make_type(f"INTERVAL {fields or ''}".strip(), params)
    fields = typed.fields.upper() if typed.fields else None
    if isinstance(node.this, exp.Literal) and node.this.is_string:
        return interval_literal(node.this.this, fields, typed.precision)
    if isinstance(node.this, exp.Null):
        return exp.cast(node.this.copy(), exp.DType.INTERVAL)
    field_text = exp.Literal.string(fields or "")
    value = exp.Anonymous(this=f"{INTERVAL_MACRO}_fields", expressions=[node.this.copy(), field_text])
    return exp.Anonymous(this=INTERVAL_FIT, expressions=[value, field_text.copy(), exp.Literal.number(
        interval_input.MAX_PRECISION if typed.precision is None else typed.precision)])


def _interval(node: exp.Interval) -> exp.Expression:
    """``INTERVAL '1 day'``, ``INTERVAL '30' MIN``, ``INTERVAL '1 day 3 hours' DAY TO HOUR``: a
    constant (``interval_literal``; DuckDB knew neither MIN nor MON, nor PostgreSQL's mixed signs)."""
    value, unit = node.this, node.unit
    if not (isinstance(value, exp.Literal) and value.is_string):
        return node
    if isinstance(unit, exp.IntervalSpan):
        return interval_literal(value.this, f"{unit.this.name.upper()} TO {unit.expression.name.upper()}")
    if isinstance(node.parent, exp.DataType):  # (a type: interval hour)
        return node
    if node.meta.get(INTERVAL_FIELDS):  # (INTERVAL '3 days 4 hours' DAY: read, then cut, with the field)
        return interval_literal(value.this, unit.name.upper())
    return interval_literal(f"{value.this} {unit.name.lower()}" if unit is not None else value.this)


def network_kind(to: exp.DataType) -> str | None:
    """INET or CIDR if ``to`` is that type, else None."""
    if to.is_type(exp.DType.INET):
        return "INET"
    return "CIDR" if to.this == exp.DType.USERDEFINED and str(to.args.get("kind")).lower() == "cidr" else None


def _network_cast(node: exp.Cast) -> exp.Expression | None:
    """A cast to inet or cidr: PostgreSQL's input of the text (``inet_input.CASTS``, a function
    engine/network.py recognises as of that type); a string constant read now (22P02)."""
    if node.to.is_type(exp.DType.ARRAY) and node.to.expressions and network_kind(node.to.expressions[0]):
        raise errors.NotSupportedError(f"arrays of {network_kind(node.to.expressions[0]).lower()} are not supported")
    kind = network_kind(node.to)
    if kind is None:
        return None
    value = node.this.copy()
    if isinstance(value, exp.Literal) and value.is_string:
        value = exp.Literal.string(network_constant(value.this, kind == "CIDR"))
    return exp.Anonymous(this=inet_input.CASTS[kind], expressions=[value])


def network_constant(text: str, cidr: bool = False) -> str:
    """An inet (cidr) constant's stored text, or PostgreSQL's 22P02 for text it refuses."""
    try:
        return inet_input.canonical(text, cidr)
    except inet_input.InetInputError as e:
        raise errors.InvalidTextRepresentation(str(e) + (f"\nDETAIL:  {e.detail}" if e.detail else "")) from None


def _cast(node: exp.Cast) -> exp.Expression:
    """A cast to bytea or real as PostgreSQL's (``BYTEA_MACRO``, ``REAL_MACRO``); to boolean
    (``_boolean``); to interval (``_interval_cast``); to varchar(n) or char(n), which cuts a
    longer value to n characters - an explicit cast does, where an assignment is 22001 (DuckDB
    ignored n); the special time inputs (``_special_time``)."""
    if (json_cast := json_ops.cast(node)) is not None:
        return json_cast
    if (network := _network_cast(node)) is not None:
        return network
    if node.to.is_type(exp.DType.INTERVAL) and not node.to.expressions:
        return _interval_cast(node)
    if node.to.is_type(exp.DType.INTERVAL) or isinstance(node.to.this, exp.Interval):
        return _typed_interval_cast(node)
    if node.to.is_type(exp.DType.VARBINARY, exp.DType.BLOB, exp.DType.BINARY):
        return exp.Anonymous(this=BYTEA_MACRO, expressions=[node.this.copy()])
    if node.to.is_type(exp.DType.FLOAT):  # (REAL: FLOAT alone is DOUBLE PRECISION here)
        return exp.Anonymous(this=REAL_MACRO, expressions=[node.this.copy()])
    if node.to.is_type(exp.DType.BOOLEAN):
        return _boolean(node)
    if node.to.is_type(exp.DType.ARRAY) and len(node.to.expressions) == 1:
        return array_cast(node.this, node.to)
    padded = node.to.is_type(exp.DType.CHAR, exp.DType.NCHAR, exp.DType.BPCHAR)
    if padded and not node.to.expressions:  # (char alone is char(1), in a cast too; bpchar alone text)
        to = "TEXT" if node.to.is_type(exp.DType.BPCHAR) else "CHAR(1)"
        return _cast(exp.Cast(this=node.this.copy(), to=exp.DataType.build(to)))
    length = node.to.expressions[0] if node.to.is_type(exp.DType.VARCHAR, exp.DType.CHAR, exp.DType.NCHAR,
                                                       exp.DType.BPCHAR) and len(node.to.expressions) == 1 else None
    if node.to.is_type(exp.DType.VARCHAR, exp.DType.TEXT) and not node.to.expressions:
        return _text(node.this, node)
    if isinstance(length, exp.DataTypeParam) and length.name.isdigit():
        text = _text(node.this, exp.cast(node.this.copy(), exp.DataType.build("VARCHAR")))
        cut = exp.Anonymous(this="left", expressions=[text, exp.Literal.number(length.name)])
        if padded:  # (a CHAR(n) value without its trailing spaces, as stored: engine/bpchar.py pads it)
            cut = exp.Anonymous(this="rtrim", expressions=[cut, exp.Literal.string(" ")])
        return exp.Cast(this=cut, to=node.to.copy())
    if isinstance(node.this, exp.Literal) and node.this.is_string and node.to.this in _INTEGER_TYPES:
        return _integer_literal(node.this.this, node.to)
    if node.to.this in _INTEGER_TYPES and not isinstance(node.this, (exp.Literal, exp.Null)) \
            and _typed_argument(node.this):
        return exp.Anonymous(this=f"{INTEGER_MACRO}_{_INTEGER_TYPES[node.to.this][0]}", expressions=[node.this.copy()])
    if node.to.is_type(exp.DType.TIME) and not node.to.expressions and \
            not isinstance(node.this, (exp.Literal, exp.Null)):
        return _time_cast(node)
    return _special_time(node)


def _time_cast(node: exp.Cast) -> exp.Expression:
    """``x::time`` by ``TIME_MACRO``, which picks an interval's form by x's type (x handed twice);
    as it is where no macro can tell the type (a parameter: bound by its place)."""
    if witness := _type_witnesses(node.this):
        return exp.Anonymous(this=TIME_MACRO, expressions=[node.this.copy(), *witness])
    if _aggregated(node.this) and not any(isinstance(n, exp.Placeholder) for n in node.this.walk()):
        return _through_lambda(node.this, lambda e: exp.Anonymous(this=TIME_MACRO, expressions=[e, e.copy()]))
    return node


def _text(value: exp.Expression, cast: exp.Expression) -> exp.Expression:
    """``value`` as text, by PostgreSQL's output of its type (``TEXT_MACRO``, which is handed
    the value twice: once to write, once, never evaluated, to pick the form by its type); a
    string constant, or a value holding a parameter (which would be bound twice), by ``cast``;
    a json value's text is its own (an aggregate's, such as ``jsonb_agg(x)``, matched no form)."""
    if (isinstance(value, exp.Literal) and value.is_string) or any(isinstance(n, exp.Placeholder)
                                                                   for n in value.walk()):
        return cast
    if json_ops.is_json(value) or json_ops.returns_rows(value) or _is_call(value, "regexp_split_to_table"):
        return exp.cast(value.copy(), exp.DataType.build("VARCHAR"))  # (its text is its own)
    if _aggregated(value):  # (max(d)::text of an interval is PostgreSQL's text)
        return _through_lambda(value, lambda e: exp.Anonymous(this=TEXT_MACRO, expressions=[e, e.copy()]))
    series = isinstance(value, exp.GenerateSeries) and _in_select_list(value)
    matches = _is_call(value, "regexp_matches")
    if series or matches or isinstance(value, exp.Explode) or _is_call(value, "unnest") and len(value.expressions) == 1:
        # a set-returning function in a select list (generate_series(), regexp_matches(), unnest(),
        # as unnest() of a list): the text of each element, unnested (DuckDB picks no form of an
        # unnested value)
        listed = _series_list(value) if series else value.this if isinstance(value, exp.Explode) \
            else exp.Anonymous(this=REGEXP_MATCH_ROWS, expressions=[a.copy() for a in value.expressions]) if matches \
            else value.expressions[0]
        element = exp.to_identifier("e")
        each = exp.Lambda(this=exp.Anonymous(this=TEXT_MACRO, expressions=[element.copy(), element.copy()]),
                          expressions=[element.copy()])
        texts = exp.Anonymous(this="list_transform", expressions=[_elements(listed), each])
        return exp.Explode(this=texts) if isinstance(value, exp.Explode) else exp.Anonymous(this="unnest",
                                                                                            expressions=[texts])
    return exp.Anonymous(this=TEXT_MACRO, expressions=[value.copy(), value.copy()])


def _aggregated(node: exp.Expression) -> bool:
    """Does ``node`` hold an aggregate or a window function of its own query (a subquery's
    value has its type when a macro takes it)?"""
    return any(isinstance(n, (exp.AggFunc, exp.Window)) or (
        isinstance(n, exp.Anonymous) and n.name in _AGGREGATE_MACROS) for n in node.walk(
        prune=lambda n: isinstance(n, exp.Subquery)))


def _is_call(node: exp.Expression, name: str) -> bool:
    return isinstance(node, exp.Anonymous) and node.name.lower() == name


def array_cast(value: exp.Expression, to: exp.DataType) -> exp.Expression:
    """``value`` as an array of type ``to``, as PostgreSQL casts and assigns it: a string
    constant read now (``array_input``: 22P02 if malformed) into an ARRAY[] of its elements, each
    cast to the element type as a constant of it is (``'{0x1F}'::int[]``, ``'{on}'::bool[]``);
    other text at run time (``ARRAY_MACRO``), its elements then through the element type's
    input macro if it has one; a list cast as DuckDB casts lists."""
    element = to.expressions[0]
    if isinstance(value, exp.Literal) and value.is_string:  # (of any dimensions: '{{1,2},{3,4}}')
        while element.is_type(exp.DType.ARRAY) and element.expressions:  # (int[][] is int[], as in PostgreSQL)
            element = element.expressions[0]

        def items(text: list) -> exp.Array:
            return exp.Array(expressions=[
                items(item) if isinstance(item, list) else exp.Null() if item is None else
                _cast(exp.Cast(this=exp.Literal.string(item), to=element.copy())) for item in text])
        array = items(array_input_nested(value.this))
        return exp.Cast(this=array, to=array_type(element, array))
    listed = exp.Anonymous(this=ARRAY_MACRO, expressions=[value.copy()])
    each = _cast(exp.Cast(this=exp.to_identifier("e"), to=element.copy()))
    if not isinstance(each, exp.Cast):  # (an input macro: BYTEA_MACRO, REAL_MACRO, BOOLEAN_MACRO)
        listed = exp.Anonymous(this="list_transform", expressions=[
            listed, exp.Lambda(this=each, expressions=[exp.to_identifier("e")])])
    return exp.Cast(this=listed, to=to.copy())


def array_type(element: exp.DataType, array: exp.Array) -> exp.DataType:
    """The type of a constant ``array`` of ``element``s, nested as deep as it is (DuckDB's lists of
    lists are txlake's multidimensional arrays: ``'{{1,2}}'::int[]`` is an INT[][])."""
    to = exp.DataType(this=exp.DType.ARRAY, expressions=[element.copy()], nested=True)
    while array.expressions and isinstance(array.expressions[0], exp.Array):
        to, array = exp.DataType(this=exp.DType.ARRAY, expressions=[to], nested=True), array.expressions[0]
    return to


# PostgreSQL's boolean input (boolin): these words, any case, whitespace around, or a prefix of
# them long enough to tell (not 'o': on or off)
BOOLEAN_WORDS = {**{w: True for w in ("t", "tr", "tru", "true", "y", "ye", "yes", "on", "1")},
                 **{w: False for w in ("f", "fa", "fal", "fals", "false", "n", "no", "of", "off", "0")}}
BOOLEAN_MACRO = "txl_boolean_in"


def _boolean(node: exp.Cast) -> exp.Expression:
    """A cast to boolean reads text as PostgreSQL's boolin does (``BOOLEAN_WORDS``: DuckDB took
    neither 'on' / 'off' nor ' true '): a constant now (22P02 if it is none of them), another
    value through ``BOOLEAN_MACRO``, which casts anything but text as DuckDB does."""
    value = node.this
    if isinstance(value, exp.Literal) and value.is_string:
        word = BOOLEAN_WORDS.get(value.this.strip().lower())
        if word is None:
            raise errors.InvalidTextRepresentation(f'invalid input syntax for type boolean: "{value.this}"')
        return exp.Boolean(this=word)
    if isinstance(value, (exp.Boolean, exp.Null)) or not _typed_argument(value):
        return node
    return exp.Anonymous(this=BOOLEAN_MACRO, expressions=[value.copy()])


# the integer types -> (PostgreSQL's name, their range)
_INTEGER_TYPES = {exp.DType.SMALLINT: ("smallint", 1 << 15), exp.DType.INT: ("integer", 1 << 31),
                  exp.DType.BIGINT: ("bigint", 1 << 63)}
# INTEGER_MACRO + "_" + PostgreSQL's name (engine/dialect.py): text cast to an integer type at
# run time as PostgreSQL's input reads it - DuckDB's cast rounded '1.5' to 2 and took '1e3' -,
# any other type as DuckDB casts it (a numeric rounds, as PostgreSQL's does)
INTEGER_MACRO = "txl_integer_in"


def _integer_literal(text: str, to: exp.DataType) -> exp.Expression:
    """``'0x1F'::int``: a string constant cast to an integer type, read by PostgreSQL 16's input
    rules (hexadecimal, octal, binary, underscores: DuckDB's cast took 0x and 0b alone, and
    '2.5' as 3) - once, here (22P02, 22003 as PostgreSQL's)."""
    name, bound = _INTEGER_TYPES[to.this]
    value = integer_input(text)
    if value is None:
        raise errors.InvalidTextRepresentation(f'invalid input syntax for type {name}: "{text}"')
    if not -bound <= value < bound:
        raise errors.NumericValueOutOfRange(f'value "{text}" is out of range for type {name}')
    return exp.Cast(this=exp.Literal.number(value), to=to.copy())


# PostgreSQL's special date / time inputs DuckDB does not take: days from the transaction's start
SPECIAL_DAYS = {"now": None, "today": 0, "yesterday": -1, "tomorrow": 1}


def _special_time(node: exp.Cast) -> exp.Expression:
    """``'now'::timestamp`` is the transaction's start, ``'today'`` (``'yesterday'``,
    ``'tomorrow'``) its day's midnight, as PostgreSQL reads them (DuckDB refused them, 22007)."""
    value = node.this
    if not (isinstance(value, exp.Literal) and value.is_string and value.this.strip().lower() in SPECIAL_DAYS) \
            or not node.to.is_type(exp.DType.DATE, exp.DType.TIMESTAMP, exp.DType.TIMESTAMPNTZ, exp.DType.TIMESTAMPTZ):
        return node
    days = SPECIAL_DAYS[value.this.strip().lower()]
    start = exp.Anonymous(this=CLOCK_FUNCTION)
    if days is not None:
        start = exp.cast(start, "DATE")
        if days:
            start = exp.Add(this=start, expression=exp.Literal.number(days))
    return exp.Cast(this=start, to=node.to.copy())


def _overlaps(node: exp.Overlaps) -> exp.Expression:
    """``(s1, e1) OVERLAPS (s2, e2)``: OVERLAPS_MACRO's call; sides of another length are
    PostgreSQL's 42601."""
    args = []
    for side, name in ((node.this, "left"), (node.expression, "right")):
        if not isinstance(side, exp.Tuple) or len(side.expressions) != 2:
            raise errors.SyntaxError(f"wrong number of parameters on {name} side of OVERLAPS expression")
        args += [e.copy() for e in side.expressions]
    return exp.Anonymous(this=OVERLAPS_MACRO, expressions=args)


def _joins_text(node: exp.Expression) -> bool:
    """Whether ``node`` is evidently text in a ``||``: a string constant, or a ``||`` of one."""
    if isinstance(node, exp.DPipe):
        return _joins_text(node.this) or _joins_text(node.expression)
    return isinstance(node, exp.Literal) and node.is_string


def _distinct_sorted(node: exp.ArrayAgg | exp.GroupConcat) -> exp.Expression:
    """``array_agg(DISTINCT x)`` and ``string_agg(DISTINCT x, sep)`` in ``x``'s order, as
    PostgreSQL's are (its DISTINCT sorts the values: nulls last) - DuckDB's came in hash order."""
    distinct = node.this
    if isinstance(distinct, exp.Distinct) and len(distinct.expressions) == 1:
        node.set("this", exp.Order(this=distinct.copy(), expressions=[
            exp.Ordered(this=distinct.expressions[0].copy(), desc=False, nulls_first=False)]))
    return node


def _concat_function(node: exp.Concat | exp.ConcatWs) -> exp.Expression:
    """``concat(...)`` and ``concat_ws(sep, ...)``: each argument as PostgreSQL's text of it."""
    for i, arg in enumerate(node.expressions):
        if not isinstance(arg, (exp.Literal, exp.Null)):
            node.expressions[i] = _text(arg, arg)
            node.expressions[i].parent = node
    return node


# cbrt(x) and ||/ x: the C library's cube root (engine/dialect.py), as PostgreSQL's - DuckDB's
# gave 3.0000000000000004 for 27
CBRT_FUNCTION = "txl_cbrt"

_REWRITES = {
    exp.Cast: _cast, exp.Interval: _interval,
    exp.Host: lambda node: exp.Anonymous(this=inet_input.FUNCTIONS["host"], expressions=[node.this.copy()]),
    exp.Cbrt: lambda node: exp.Anonymous(this=CBRT_FUNCTION, expressions=[exp.cast(node.this.copy(), "DOUBLE")]),
    # jsonb's equality where an operand is evidently jsonb, else a row comparison's (or as it is)
    exp.EQ: lambda node: _either(json_ops.equals, _row_comparison, node),
    exp.NEQ: lambda node: _either(json_ops.equals, _row_comparison, node),
    exp.NullSafeEQ: json_ops.equals, exp.NullSafeNEQ: json_ops.equals,
    **{t: json_ops.ordering for t in (exp.LT, exp.LTE, exp.GT, exp.GTE)},
    exp.In: _row_comparison, exp.Is: _row_comparison,
    exp.RegexpLike: _regex_operator, exp.RegexpILike: _regex_operator, exp.RegexpReplace: _regexp_replace_read,
    exp.Overlaps: _overlaps, exp.SimilarTo: _similar_to, exp.Substring: _substring, exp.MakeInterval: _make_interval,
    exp.ToChar: _to_char, exp.ToNumber: _to_number, exp.Extract: _extract, exp.Anonymous: _function, exp.Fetch: _fetch,
    exp.UnixToTime: _to_timestamp, exp.Length: _length, exp.SplitPart: _split_part,
    # bytea's forms (engine/bytea_functions.py); sha256 of a constant reads it as bytea input
    exp.Trim: _trim, exp.StrPosition: _position, exp.Overlay: _overlay,
    # an aggregate's FILTER and OVER onto the aggregate a rewrite wrapped (parser/json_ops.py's)
    exp.Filter: _filter, exp.Window: _window, exp.ArrayAgg: _distinct_sorted, exp.GroupConcat: _distinct_sorted,
    exp.BitLength: lambda node: _bytea_form("bit_length", [node.this]) or node,
    exp.Getbit: lambda node: _bytea_form("get_bit", [node.this, node.expression]) or node,
    exp.SHA2: lambda node: exp.Anonymous(this="sha256", expressions=[_bytea_input(node.this)])
    if str(node.text("length") or "256") == "256" else node,
    exp.Bracket: _subscript, exp.ArraySize: _array_length, exp.ArrayRemove: _array_remove,
    exp.Split: _string_to_array, exp.ArrayOverlaps: _array_operator, exp.Any: _quantified, exp.All: _quantified,
    **{t: _domain for t in _DOMAIN_MACROS}, exp.Exp: _exp, exp.Round: _round,
    exp.JSONExtract: json_ops.extract, exp.JSONExtractScalar: json_ops.extract,
    exp.JSONBExtract: json_ops.extract_path, exp.JSONBExtractScalar: json_ops.extract_path,
    exp.JSONBContainsTopKey: json_ops.exists, exp.Concat: _concat_function, exp.ConcatWs: _concat_function,
    exp.JSONBContainsAnyTopKeys: json_ops.exists_some, exp.JSONBContainsAllTopKeys: json_ops.exists_some,
    exp.JSONBDeleteAtPath: json_ops.delete_path, exp.Sub: json_ops.delete,
    exp.JSONBPathExists: json_ops.path_operator, json_ops.JSONBPathMatch: json_ops.path_operator,
    # jsonb's where an operand is evidently json, else an array's
    exp.DPipe: lambda node: _either(json_ops.concat, _concat, node),
    exp.ArrayContainsAll: lambda node: _either(json_ops.contains, _array_operator, node),
    exp.ArrayContainedBy: lambda node: _either(json_ops.contains, _array_operator, node),
}


def _either(first, then, node: exp.Expression) -> exp.Expression:
    """``first``'s rewrite of ``node``, or ``then``'s if ``first`` leaves it as it is."""
    rewritten = first(node)
    return rewritten if rewritten is not node else then(node)
