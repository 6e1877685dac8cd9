"""Point statements answered without DuckDB (a DuckDB round trip costs ~1 ms here).

What qualifies - a statement's shape is planned from its sqlglot tree alone, once (the
``*_plan`` functions; the executor memoizes them per statement), and its columns are checked
against the table's schema each time it runs:

- a SELECT of plain columns of one table whose WHERE pins every column of the primary key, a
  UNIQUE constraint or an index by ``=`` to constants or ``?`` - or one column of a one-column
  key by ``IN (...)`` / ``= ANY(?)``, up to POINT_KEYS values - with ORDER BY of plain columns
  (up to ORDERED_ROWS rows) and LIMIT n (``select``);
- a join of two tables ON one equality whose WHERE pins a key of one, when the other's ON
  column is a one-column key of the same kind: a nested loop over the two indexes, up to
  JOIN_ROWS rows (``join``);
- an UPDATE whose WHERE pins a key and whose SETs are constants, ``?``, columns or the sum or
  difference of two of these with a column among them (``update``), a DELETE whose WHERE
  pins a key (``delete``), and either of up to FOUND_ROWS rows an index gives, matched in
  Python (``finder``);
- INSERT ... VALUES of constants, ``?``, NULL and CURRENT_TIMESTAMP (``insert_rows``),
  and ON CONFLICT DO UPDATE's SET of the UPDATE's forms (``conflict_values``).

Why these: keys are compared only for integer, text and uuid values of the column's own type
(``key_kind``), whose Python equality is SQL's; rows are sorted only by kinds whose Python order
is DuckDB's (``_ORDERED_KINDS``); a value is computed only where DuckDB's cast to the column's
type is the identity, or an integer sum in the column's range (``_evaluate``); and a result
column passes only if DuckDB returns its Arrow type unchanged (``_passes_through``). Each takes
only the cases whose DuckDB outcome it reproduces exactly (else it returns None and the general
path runs), and only the row-finding / value-computing step changes: locks, re-checks, SSI
reads, constraint checks and the write set are the general path's own code (engine/executor.py,
whose machinery the functions taking ``ex`` call).
"""

from __future__ import annotations

import datetime
import decimal
import itertools
import operator
import re
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import pyarrow as pa
from sqlglot import exp

from txlake.engine import catalog_views, executor, indexes, jsonb, uniques
from txlake.engine.errors_map import json_input_error
from txlake.parser import statements as st
from txlake.parser.parse import identifier, table_name
from txlake.parser.semantics import CLOCK_FUNCTION, FLOAT_SUM_MACRO, NAMED_SCHEMAS, quantified_operand
from txlake.storage import keys as pk
from txlake.storage.commit import key_text
from txlake.storage.datafiles import ROWID, StreamedScan
from txlake.storage.schema import Column, TableSchema, text_type, uuid_text
from txlake.storage.version import PythonRows, TableVersion

if TYPE_CHECKING:  # (the executor imports this module; its Result is called as executor.Result)
    from txlake.engine.executor import Context, Result


_KEY_PYTHON_TYPES = {"SMALLINT": int, "INT": int, "BIGINT": int, "VARCHAR": str, "UUID": uuid.UUID}


def key_kind(column: Column):
    """The Python type a key column's values are looked up by in txlake's indexes (int, str,
    uuid.UUID), or None: the column's comparisons are DuckDB's to make - an enum's (a label
    not of the enum is an error, 22P02) and a CHAR(n)'s (trailing spaces do not count:
    engine/bpchar.py) among them."""
    return _KEY_PYTHON_TYPES.get(column.type.kind) if column.enum is None and not column.type.blank_padded else None


def pinned_key(schema: TableSchema, alias: str, where, params, offset: int, names: tuple[str, ...] | None = None,
               qualified: bool = False):
    """The primary key value that ``where`` (a conjunction) fixes, or None - or, given
    ``names``, the value of those columns (an index's). ``qualified``: only columns written
    with the table's alias count (a join's WHERE, where a bare name may be another table's).

    Only ``key_column = literal-or-?`` conjuncts count, and only for integer and text keys,
    whose Python values compare exactly as SQL values do.
    """
    names = names or schema.primary_key
    if where is None or not names:
        return None
    terms = _key_terms(schema, alias, where, names, qualified)
    if terms is None:
        return None
    key = []
    for name, (kind, is_param, term) in zip(names, terms):
        value = params[offset + term] if is_param else term
        if kind is uuid.UUID:  # (held as its canonical text)
            value = uuid_text(value)
        elif type(value) is not kind or (kind is int and not _in_range(schema, name, value)):
            return None
        if value is None:
            return None
        key.append(value)
    return key[0] if len(key) == 1 else tuple(key)


def _pinned_index(version: TableVersion, alias: str, where, params, offset: int,
                  conjuncts: int) -> indexes.Lookup | None:
    """The lookup of the UNIQUE constraint or index whose columns ``where`` - ``conjuncts``
    equalities - pins (its one key: the value of those columns), or None: ``indexes.lookup``'s
    keys but the primary key, by ``=`` alone."""
    schema = version.schema
    for name, columns, primary in indexes.keys_of(schema, version.name):
        if not primary and len(columns) == conjuncts:
            key = pinned_key(schema, alias, where, params, offset, columns)
            if key is not None:
                return indexes.Lookup(name, columns, (key,), False)
    return None


def _key_of(schema: TableSchema, row: dict, names: tuple[str, ...] | None = None):
    """The primary key (or the columns ``names``) of a row as ``_row_values`` gives it, in the
    form ``pinned_key`` gives a key: a value, or a tuple of several."""
    names = names or schema.primary_key
    return row[names[0]] if len(names) == 1 else tuple(row[n] for n in names)


def pinned_keys(schema: TableSchema, alias: str, where, params, offset: int, name: str,
                qualified: bool = False) -> tuple | None:
    """The values ``where`` (a conjunction) allows the column ``name`` by ``name IN (constants
    or ?)`` or ``name = ANY(?)`` (an array parameter), each once and NULLs left out; None if it
    has no such conjunct, or a value is not exactly of the column's Python type (``pinned_key``)."""
    found = _in_terms(schema, alias, where, name, qualified)
    if found is None:
        return None
    kind = found.kind
    if found.array is not None:
        values = params[offset + found.array]
        if not isinstance(values, (list, tuple)):
            return None
    else:
        values = [params[offset + term] if is_param else term for _, is_param, term in found.terms]
    keys = []
    for value in values:
        if value is None:
            continue
        if kind is uuid.UUID:  # (held as its canonical text)
            value = uuid_text(value)
            if value is None:
                return None
        elif type(value) is not kind:
            return None
        elif kind is int and not _in_range(schema, name, value):
            continue  # (no row holds it: the column cannot)
        keys.append(value)
    return tuple(dict.fromkeys(keys))


def _in_range(schema: TableSchema, name: str, value: int) -> bool:
    """Can the integer column ``name`` hold ``value``?"""
    low, high = _INT_RANGES[schema.column(name).type.kind]
    return low <= value <= high


class KeyTerm(NamedTuple):
    """How a WHERE clause gives a key column a value (``_key_terms``, ``_in_terms``)."""

    kind: type | None  # the Python type the value must have (``key_kind``)
    is_param: bool
    value: object  # the ?'s index among the clause's, or the constant


@dataclass(frozen=True)
class InList:
    """How a WHERE clause lists a key column's values (``_in_terms``): ``IN (terms)``, or
    ``= ANY(?)`` with ``array`` the ?'s index among the clause's."""

    kind: type  # the Python type the values must have (``key_kind``)
    terms: tuple[KeyTerm, ...] = ()
    array: int | None = None


@dataclass(frozen=True)
class _Listed:
    """A condition ``column IN (values)`` or ``column = ANY(?)`` (``_listed``)."""

    column: exp.Column
    values: tuple  # the IN list's constants, ? and NULLs; or ANY's ?
    array: bool  # ANY(?): the ? is an array of the values


def _listed(condition) -> _Listed | None:
    """``condition`` as one column's ``IN (constants, ? or NULL)`` or ``= ANY(?)``, or None.
    (Whether the column is a key's, and its values of the key's type, is ``indexes.lookup``'s
    to say: ``_in_terms``.)"""
    if type(condition) is exp.In:
        if (isinstance(condition.this, exp.Column) and condition.expressions
                and not any(condition.args.get(k) for k in ("query", "unnest", "field", "is_global"))
                and all(isinstance(v, (exp.Literal, exp.Placeholder, exp.Null)) for v in condition.expressions)):
            return _Listed(condition.this, tuple(condition.expressions), False)
        return None
    if type(condition) is exp.EQ and isinstance(condition.this, exp.Column) and type(condition.expression) is exp.Any:
        inner = quantified_operand(condition.expression)
        if isinstance(inner, exp.Placeholder):
            return _Listed(condition.this, (inner,), True)
    return None


_IN_TERMS: dict = {}  # (id(where), alias, name, kind) -> (where, InList or None)


def _in_terms(schema: TableSchema, alias: str, where, name: str, qualified: bool) -> InList | None:
    """How a conjunct of ``where`` lists the column ``name``'s values (``_listed``), or None;
    remembered per WHERE clause."""
    column = schema.column(name)
    kind = key_kind(column) if column is not None else None
    cache_key = (id(where), alias, name, kind, qualified)
    hit = _IN_TERMS.get(cache_key)
    if hit is not None and hit[0] is where:
        return hit[1]
    answer = None
    if kind is not None:
        placeholders = {id(p): i for i, p in enumerate(executor._in_sql_order(where))}
        for c in (list(where.flatten()) if isinstance(where, exp.And) else [where]):
            listed = _listed(c)
            if listed is None or identifier(listed.column.this) != name or \
                    (identifier(listed.column.table) != alias if listed.column.table else qualified):
                continue
            if listed.array:
                answer = InList(kind, array=placeholders[id(listed.values[0])])
                break
            terms = []
            for v in listed.values:
                if isinstance(v, exp.Placeholder):
                    terms.append(KeyTerm(kind, True, placeholders[id(v)]))
                elif isinstance(v, exp.Null):
                    terms.append(KeyTerm(kind, False, None))  # (matches no row: left out)
                elif v.is_string or v.is_int:
                    terms.append(KeyTerm(kind, False, v.this if v.is_string else int(v.this)))
                else:
                    break
            else:
                answer = InList(kind, tuple(terms))
                break
    if len(_IN_TERMS) > 4096:
        _IN_TERMS.clear()
    _IN_TERMS[cache_key] = (where, answer)
    return answer


_KEY_TERMS: dict = {}  # (id(where), alias, key) -> (where, terms): where pins its id


def _key_terms(schema: TableSchema, alias: str, where, names: tuple[str, ...],
               qualified: bool = False) -> tuple[KeyTerm, ...] | None:
    """For each of the key columns ``names`` (in key order), how ``where`` fixes it; None if
    it does not fix every one. Walking the expression costs more than the lookup it enables, so the
    answer is remembered per WHERE clause."""
    cache_key = (id(where), alias, names, tuple(key_kind(schema.column(k)) for k in names), qualified)
    hit = _KEY_TERMS.get(cache_key)
    if hit is not None and hit[0] is where:
        return hit[1]
    placeholders = {id(p): i for i, p in enumerate(executor._in_sql_order(where))}
    conjuncts = list(where.flatten()) if isinstance(where, exp.And) else [where]
    found = {}
    for c in conjuncts:
        if not isinstance(c, exp.EQ):
            continue
        for col, other in ((c.this, c.expression), (c.expression, c.this)):
            if not isinstance(col, exp.Column) or (identifier(col.table) != alias if col.table else qualified):
                continue
            name = identifier(col.this)
            if name not in names:
                continue
            kind = key_kind(schema.column(name))
            if isinstance(other, exp.Placeholder):
                found[name] = KeyTerm(kind, True, placeholders[id(other)])
            elif isinstance(other, exp.Literal):
                value = other.this if other.is_string else (int(other.this) if other.is_int else None)
                found[name] = KeyTerm(kind, False, value)
    terms = tuple(found[k] for k in names) if set(found) == set(names) else None
    if len(_KEY_TERMS) > 4096:
        _KEY_TERMS.clear()
    _KEY_TERMS[cache_key] = (where, terms)
    return terms


@dataclass(frozen=True)
class PointSelect:
    table: st.TableName
    alias: str
    columns: tuple[str, ...] | None  # None: SELECT *
    where: exp.Expression
    conjuncts: int
    limit: tuple | None = None  # LIMIT ("const", n) | ("param", index of its ?)
    in_list: bool = False  # WHERE is one column's IN list or = ANY(?), not equalities
    order: tuple[OrderKey, ...] = ()  # ORDER BY


class OrderKey(NamedTuple):
    """One key of a point SELECT's ORDER BY (``_plain_order``)."""

    column: str
    descending: bool
    nulls_first: bool


@dataclass(frozen=True)
class PointJoin:
    """``SELECT alias.column, ... FROM a [INNER] JOIN b ON a.x = b.y WHERE <a key of one
    table, qualified>`` (``join_plan``)."""

    tables: tuple  # ((table name, alias), (table name, alias)), in FROM order
    columns: tuple | None  # ((alias, column), ...); None: *
    driver: str  # the alias whose key the WHERE pins
    driver_column: str  # its column in ON
    other: str  # the other table's alias
    other_column: str  # its column in ON
    where: exp.Expression
    conjuncts: int
    in_list: bool


@dataclass(frozen=True)
class PointUpdate:
    where: exp.Expression
    conjuncts: int
    # column -> ("param", index) | ("const", literal) | ("column", name)
    #           | ("add" | "sub", left term, right term)
    assignments: dict
    set_params: int  # the ? in SET (the WHERE clause's come after them)


class PointKey(NamedTuple):
    """A point SELECT's table and the rows it reads (``_point_key``). (This and the two below
    are made at each execution: a NamedTuple is made in half a frozen dataclass's time, and
    unpacked faster than its attributes are read.)"""

    version: TableVersion
    names: tuple[str, ...]  # the columns it returns
    schema: pa.Schema  # theirs (``result_schema``)
    hit: indexes.Lookup  # its rows' key


class JoinLookups(NamedTuple):
    """A point join's tables and keys (``join_lookups``)."""

    versions: dict  # alias -> the table version
    hit: indexes.Lookup  # the driving table's rows' key
    their_key: str  # the other table's key over its ON column (the primary key, a UNIQUE or an index)
    their_primary: bool  # whether that is its primary key
    columns: tuple  # ((alias, column), ...) it returns
    schema: pa.Schema  # theirs


class FoundRow(NamedTuple):
    """The row a point UPDATE or DELETE changes (``_point_row``)."""

    rowid: int | None  # None: no row matches
    version: TableVersion  # the table version to change it in (READ COMMITTED's newest, after a wait)


FALLBACK = object()
POINT_ROWS = 16  # a point SELECT's rows read one by one, as Python values, up to this many
POINT_KEYS = 64  # a point SELECT's IN list answered in Python up to this many values
FOUND_ROWS = 256  # an UPDATE's or DELETE's candidate rows matched in Python up to this many
ORDERED_ROWS = 64  # a point SELECT's ORDER BY sorted in Python up to this many rows
JOIN_ROWS = 64  # a point join's rows joined in Python up to this many
# the kinds whose Python values order as DuckDB orders the column: text by code point (DuckDB's
# binary collation: UTF-8 bytes), not floats (NaN), uuid or json
_ORDERED_KINDS = frozenset({"SMALLINT", "INT", "BIGINT", "VARCHAR", "BOOLEAN", "DATE", "TIMESTAMP", "DECIMAL"})
_INT_RANGES = {"SMALLINT": (-(1 << 15), (1 << 15) - 1), "INT": (-(1 << 31), (1 << 31) - 1),
               "BIGINT": (-(1 << 63), (1 << 63) - 1)}
_JSON_INPUT = {"JSONB": jsonb.jsonb_in, "JSON": jsonb.json_in}
# kind -> the Python type it takes as is
_IDENTITY_CASTS = {"VARCHAR": str, "DOUBLE": float, "BOOLEAN": bool, "BYTEA": bytes}
# text a DATE / TIMESTAMP column takes in Python: ISO dates and times (PostgreSQL's input reads
# many more forms - 'Jan 2 2024', 'epoch', a zone - which DuckDB's cast and txlake's rules read)
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}\Z", re.ASCII)
_ISO_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?)?\Z", re.ASCII)
# NUMERIC's rounding, PostgreSQL's: half away from zero, with room for 38 digits
_NUMERIC = decimal.Context(prec=80, rounding=decimal.ROUND_HALF_UP)
_FLOAT_INTS = 1 << 53  # integers a DOUBLE holds exactly


def _key_equalities(where) -> int | None:
    """How many conjuncts ``where`` has if each is ``column = literal-or-?``, else None.
    (Whether those columns are exactly the primary key is checked against the schema.)"""
    if where is None:
        return None
    conjuncts = list(where.flatten()) if isinstance(where, exp.And) else [where]
    for c in conjuncts:
        if not isinstance(c, exp.EQ):
            return None
        sides = (c.this, c.expression)
        if not any(isinstance(a, exp.Column) and isinstance(b, (exp.Literal, exp.Placeholder))
                   for a, b in (sides, sides[::-1])):
            return None
    return len(conjuncts)


NOT_PLAIN = object()


def plain_columns(projections, alias: str):
    """The columns of a select list of plain columns of the table ``alias`` (None: ``*``),
    each once; ``NOT_PLAIN`` if it has anything else."""
    if len(projections) == 1 and type(projections[0]) is exp.Star:
        return None
    columns = []
    for p in projections:
        if type(p) is not exp.Column or not isinstance(p.this, exp.Identifier) or p.args.get("db"):
            return NOT_PLAIN
        if p.table and identifier(p.table) != alias:
            return NOT_PLAIN
        columns.append(identifier(p.this))
    return tuple(columns) if len(set(columns)) == len(columns) else NOT_PLAIN


def delete_plan(stmt: st.Delete) -> int | None:
    """A point DELETE's plan: how many ``column = constant-or-?`` its WHERE is (``_point_row``
    finds out whether they pin a key), or None."""
    return _key_equalities(stmt.where) if not stmt.using else None


def select_plan(expression: exp.Expression) -> PointSelect | None:
    if type(expression) is not exp.Select:
        return None
    if any(v for k, v in expression.args.items() if k not in ("expressions", "from_", "where", "limit", "order")):
        return None
    source = expression.args.get("from_")
    table = source.this if source is not None else None
    if (type(table) is not exp.Table or not isinstance(table.this, exp.Identifier)
            or any(v for k, v in table.args.items() if k not in ("this", "db", "alias"))
            or table.meta.get(NAMED_SCHEMAS)):  # (checked against the search path: _query_plan)
        return None
    if table.args.get("alias") is not None and table.args["alias"].args.get("columns"):
        return None
    name = table_name(table)
    if catalog_views.view(name.db, name.name) is not None:
        return None
    alias = identifier(table.alias) if table.alias else name.name
    columns = plain_columns(expression.expressions, alias)
    if columns is NOT_PLAIN:
        return None
    where = expression.args.get("where")
    count = _key_equalities(where.this if where is not None else None)
    in_list = count is None and where is not None and _listed(where.this) is not None
    if count is None and not in_list:
        return None
    order = ()
    if expression.args.get("order") is not None:
        order = _plain_order(expression.args["order"], alias)
        if order is None:
            return None
    limit = expression.args.get("limit")
    if limit is not None:  # (an ORM's SELECT ... WHERE id = ? LIMIT 1)
        value = limit.expression
        if type(limit) is not exp.Limit or any(v for k, v in limit.args.items() if k != "expression"):
            return None
        if isinstance(value, exp.Placeholder):
            limit = ("param", sum(1 for n in where.this.dfs() if isinstance(n, exp.Placeholder)))
        elif isinstance(value, exp.Literal) and value.is_int:
            limit = ("const", int(value.this))
        else:
            return None
    return PointSelect(name, alias, columns, where.this, count or 1, limit, in_list, order)


def join_plan(expression: exp.Expression) -> PointJoin | None:
    """A point join's plan - two tables, an inner join ON one equality of their columns, a
    select list of qualified plain columns (or ``*``), a WHERE of ``alias.column = constant-or-?``
    (or one IN list) of one table - or None. (Whether the WHERE pins a key of that table, and
    the ON column is a key of the other, is checked against their schemas.)"""
    if type(expression) is not exp.Select or \
            any(v for k, v in expression.args.items() if k not in ("expressions", "from_", "joins", "where")):
        return None
    joins, source, where = expression.args.get("joins"), expression.args.get("from_"), expression.args.get("where")
    if not joins or len(joins) != 1 or source is None or where is None:
        return None
    join = joins[0]
    if any(v for k, v in join.args.items() if k not in ("this", "on", "kind")) or \
            join.args.get("kind") not in (None, "", "INNER"):
        return None
    tables = []
    for item in (source.this, join.this):
        if type(item) is not exp.Table or not isinstance(item.this, exp.Identifier) \
                or any(v for k, v in item.args.items() if k not in ("this", "db", "alias")) \
                or item.meta.get(NAMED_SCHEMAS) \
                or (item.args.get("alias") is not None and item.args["alias"].args.get("columns")):
            return None
        name = table_name(item)
        if catalog_views.view(name.db, name.name) is not None:
            return None
        tables.append((name, identifier(item.alias) if item.alias else name.name))
    aliases = {alias for _, alias in tables}
    if len(aliases) != 2:
        return None

    def qualified(col) -> bool:
        return (type(col) is exp.Column and isinstance(col.this, exp.Identifier) and not col.args.get("db")
                and bool(col.table) and identifier(col.table) in aliases)

    on = join.args.get("on")
    if type(on) is not exp.EQ or not qualified(on.this) or not qualified(on.expression) or \
            identifier(on.this.table) == identifier(on.expression.table):
        return None
    columns = None
    if not (len(expression.expressions) == 1 and type(expression.expressions[0]) is exp.Star):
        if not all(qualified(p) for p in expression.expressions):
            return None
        columns = tuple((identifier(p.table), identifier(p.this)) for p in expression.expressions)
    count = _key_equalities(where.this)
    in_list = count is None and _listed(where.this) is not None
    written = {identifier(c.table) if c.table else None for c in where.this.find_all(exp.Column)}
    if (count is None and not in_list) or len(written) != 1 or not written <= aliases:
        return None
    driver = written.pop()
    mine, theirs = (on.this, on.expression) if identifier(on.this.table) == driver else (on.expression, on.this)
    return PointJoin(tuple(tables), columns, driver, identifier(mine.this), identifier(theirs.table),
                     identifier(theirs.this), where.this, count or 1, in_list)


def _plain_order(order: exp.Order, alias: str) -> tuple[OrderKey, ...] | None:
    """ORDER BY of plain columns of the table ``alias`` as its keys; None for anything else.
    (With a select list of plain columns, a name is the table's column either way.)"""
    keys = []
    for o in order.expressions:
        col = o.this
        if type(o) is not exp.Ordered or o.args.get("with_fill") or type(col) is not exp.Column \
                or not isinstance(col.this, exp.Identifier) or col.args.get("db") \
                or (col.table and identifier(col.table) != alias):
            return None
        keys.append(OrderKey(identifier(col.this), descending=bool(o.args.get("desc")),
                             nulls_first=bool(o.args.get("nulls_first"))))
    return tuple(keys)


def _orderable(schema: TableSchema, order: tuple[OrderKey, ...]) -> bool:
    """Can a point SELECT sort by ``order``'s columns in Python (``_ORDERED_KINDS``)?"""
    for name, _, _ in order:
        col = schema.column(name)
        if col is None or col.name != name or col.type.kind not in _ORDERED_KINDS or col.enum is not None:
            return False  # (an enum sorts by its labels' order)
    return True


def _sorted_rows(rows: list[dict], order: tuple[OrderKey, ...]) -> list[dict]:
    """``rows`` sorted by ``order`` (``_plain_order``): a stable sort per key, the last first."""
    for name, descending, nulls_first in reversed(order):
        present = [r for r in rows if r[name] is not None]
        nulls = [r for r in rows if r[name] is None]
        present.sort(key=operator.itemgetter(name), reverse=descending)  # (stable either way)
        rows = nulls + present if nulls_first else present + nulls
    return rows


def _order_text(key: OrderKey) -> str:
    name, descending, nulls_first = key
    text = f"{name} DESC" if descending else name
    if nulls_first != descending:  # (not PostgreSQL's default for the direction)
        text += " NULLS FIRST" if nulls_first else " NULLS LAST"
    return text


def values_plan(values: exp.Values) -> list[list[tuple]] | None:
    """Each VALUES row as terms ("param", index) | ("const", value) | ("null",) | ("now",),
    or None if some value is anything else."""
    index = itertools.count()  # ? in text order: row by row, left to right
    rows = []
    for row in values.expressions:
        if not isinstance(row, exp.Tuple):
            return None
        terms = []
        for node in row.expressions:
            if isinstance(node, exp.Placeholder):
                terms.append(("param", next(index)))
            elif isinstance(node, exp.Null):
                terms.append(("null",))
            elif isinstance(node, exp.Anonymous) and node.name == CLOCK_FUNCTION:
                terms.append(("now",))
            elif (value := _constant(node)) is not FALLBACK:
                terms.append(("const", value))
            else:
                return None
        rows.append(terms)
    return rows or None


def _constant(node: exp.Expression):
    """A VALUES constant as a Python value: text, an integer, a NUMERIC (a ``Decimal``, as
    PostgreSQL reads ``1.5`` and ``1e3``), a negated number, TRUE / FALSE; else FALLBACK."""
    negated = isinstance(node, exp.Neg)
    if negated:
        node = node.this
    if isinstance(node, exp.Literal):
        if node.is_string:
            return FALLBACK if negated else node.this
        text = node.this
        try:
            value = int(text) if text.isdigit() else decimal.Decimal(text)
        except decimal.InvalidOperation:  # (a form the parser keeps as written: DuckDB reads it)
            return FALLBACK
        return -value if negated else value
    if isinstance(node, exp.Boolean) and not negated:
        return node.this
    return FALLBACK


def update_plan(stmt: st.Update, alias: str) -> PointUpdate | None:
    if stmt.from_:
        return None
    count = _key_equalities(stmt.where)
    if count is None:
        return None
    index = itertools.count()  # SET's ? come first in the text, in SET order
    assignments = _set_plan(stmt.assignments, alias, None, index)
    return PointUpdate(stmt.where, count, assignments, next(index)) if assignments is not None else None


def conflict_plan(conflict: st.OnConflict, alias: str) -> dict | None:
    """ON CONFLICT DO UPDATE's SET as a point UPDATE's (``_set_plan``), where it has no WHERE
    and no DEFAULT; its terms may also read ``excluded``'s columns."""
    if conflict.where is not None or conflict.defaults:
        return None
    return _set_plan(conflict.assignments, alias, "excluded", itertools.count())


def _set_plan(assignments, alias: str, excluded: str | None, index) -> dict | None:
    """A SET list whose values Python can compute (``_evaluate``): column -> a constant, a
    ``?``, a column (of the target ``alias``; or ``excluded``'s, if given: then qualified), or the sum or
    difference of two of these with a column among them; None for any other. ``index``
    numbers the ``?`` in text order."""
    def term(node):
        if isinstance(node, exp.Paren):
            return term(node.this)
        if isinstance(node, exp.Placeholder):
            return ("param", next(index))
        if isinstance(node, exp.Cast) and isinstance(node.this, exp.Literal) and node.this.is_int \
                and node.to.this == exp.DataType.Type.INT:  # (an integer constant: parser/semantics.py)
            return ("const", int(node.this.this))
        if isinstance(node, exp.Literal):
            if node.is_string:
                return ("const", node.this)
            return ("const", int(node.this)) if node.is_int else None
        if isinstance(node, exp.Column) and isinstance(node.this, exp.Identifier) and not node.args.get("db"):
            table = identifier(node.table) if node.table else None
            if table == alias or (table is None and excluded is None):  # (beside excluded: ambiguous, 42702)
                return ("column", identifier(node.this))
            if excluded is not None and table == excluded:
                return ("excluded", identifier(node.this))
        return None

    plans = {}
    for name, value in assignments:
        if isinstance(value, exp.Anonymous) and value.name == FLOAT_SUM_MACRO:
            value = value.expressions[0]  # (the float overflow check: _evaluate takes integers only)
        if isinstance(value, (exp.Add, exp.Sub)):
            left = term(value.this)
            right = term(value.expression) if left is not None else None
            if right is None or not {left[0], right[0]} & {"column", "excluded"}:
                return None  # (of constants alone: DuckDB's arithmetic, its result type)
            plan = ("add" if isinstance(value, exp.Add) else "sub", left, right)
        else:
            plan = term(value)
        if plan is None:
            return None
        plans[name] = plan
    return plans


def _evaluate(term, col: Column, schema: TableSchema, row: dict, params, excluded: dict | None = None):
    """One SET value as DuckDB would compute ``CAST(term AS col type)``, or FALLBACK.
    ``row``: the target row's values; ``excluded``: ON CONFLICT's proposed row's."""
    kind = col.type.kind
    bounds = _INT_RANGES.get(kind)
    op = term[0]
    if op in ("add", "sub"):
        if bounds is None:
            return FALLBACK
        left = _evaluate(term[1], col, schema, row, params, excluded)
        right = _evaluate(term[2], col, schema, row, params, excluded)
        if left is FALLBACK or right is FALLBACK:
            return FALLBACK
        if left is None or right is None:
            return None
        value = left + right if op == "add" else left - right
    elif op == "column" or op == "excluded":
        other = schema.column(term[1])
        if other is None or other.type != col.type:
            return FALLBACK  # unknown column (an error) or a real cast: DuckDB decides
        return (row if op == "column" else excluded)[term[1]]
    else:
        value = params[term[1]] if op == "param" else term[1]
        if bounds is None:
            # VARCHAR(n) casts do not truncate in DuckDB either; _check_rows enforces n
            return value if kind == "VARCHAR" and type(value) is str else FALLBACK
        if type(value) is not int:
            return FALLBACK
    if bounds is None or not bounds[0] <= value <= bounds[1]:
        return FALLBACK  # out of range: DuckDB raises the error
    return value


def result_schema(schema: TableSchema, names: tuple[str, ...]) -> pa.Schema | None:
    """The schema of a point SELECT's result, the table's fields ``names`` in that order; None
    if one is not a column by that exact name or of a type DuckDB might return otherwise, or
    a CHAR(n) (anything else goes to DuckDB). Kept on the table schema, per ``names``."""
    memo = schema.memo("_result_schemas", lambda s: {})
    if names not in memo:
        arrow = schema.arrow_schema()
        fields = [arrow.field(name) if arrow.get_field_index(name) >= 0 else None for name in names]
        memo[names] = pa.schema(fields) if all(f is not None and _passes_through(f) for f in fields) \
            and not schema.blank_padded.keys() & set(names) else None  # (CHAR(n): padded by engine/bpchar.py)
    return memo[names]


def _passes_through(f: pa.Field) -> bool:
    """Fields DuckDB returns unchanged from a registered table (a REAL's values are not:
    ``python_rows`` gives them as their shortest text says; nor an interval's text: it reads it
    as an INTERVAL, engine/sources.py)."""
    t = f.type  # (a field's metadata is read only for text: a dict made at each read)
    return (pa.types.is_integer(t) or pa.types.is_float64(t) or pa.types.is_boolean(t)
            or (pa.types.is_string(t) and text_type(f) != "INTERVAL") or pa.types.is_decimal(t)
            or pa.types.is_date32(t)
            or (pa.types.is_timestamp(t) and t.tz is None and t.unit == "us"))


def explain_lines(ex, ctx: Context, query: st.Query, params) -> list[str] | None:
    """EXPLAIN's lines for a query answered from txlake's indexes without DuckDB (a point
    SELECT or a point join), or None."""
    point = ex._statement_memo(query, ("point-select",), lambda: select_plan(query.expression))
    key = _point_key(ex, ctx, point, params) if point is not None else None
    if key is not None and select(ex, ctx, point, params) is not None:  # (it would not fall back)
        hit = key.hit
        lines = [f"Primary key lookup on {point.table} (txlake's key index; DuckDB is not used)"
                 if hit.primary else
                 f"Index lookup using {hit.name} on {point.table} (txlake's index; DuckDB is not used)",
                 f"  Key: ({', '.join(hit.columns)}) {'IN' if point.in_list else '='} "
                 f"({', '.join(key_text(k) for k in hit.keys)})"]
        if point.order:
            lines.append(f"  Sort Key: {', '.join(_order_text(k) for k in point.order)}")
        return lines
    joined = ex._statement_memo(query, ("point-join",), lambda: join_plan(query.expression))
    looked_up = join_lookups(ex, ctx, joined, params) if joined is not None else None
    if looked_up is None or join(ex, joined, looked_up) is None:
        return None

    def named(alias: str) -> str:
        table = looked_up.versions[alias].name
        return table if table == alias else f"{table} {alias}"

    hit = looked_up.hit
    return ["Nested Loop (txlake's indexes; DuckDB is not used)",
            f"  -> {'Primary key lookup' if hit.primary else f'Index lookup using {hit.name}'} on "
            f"{named(joined.driver)}",
            f"       Key: ({', '.join(hit.columns)}) {'IN' if joined.in_list else '='} "
            f"({', '.join(key_text(k) for k in hit.keys)})",
            f"  -> Index lookup using {looked_up.their_key} on {named(joined.other)}",
            f"       Key: ({joined.other_column}) = {joined.driver}.{joined.driver_column}"]


def select(ex, ctx: Context, plan: "PointSelect", params) -> Result | None:
    """``SELECT columns FROM t WHERE <a key's columns> = constant-or-?`` - or ``key IN
    (...)`` / ``key = ANY(?)`` of a one-column key - ``[ORDER BY columns] [LIMIT n]``,
    answered from the key's index without DuckDB; None when the statement needs the
    general path.

    The rows come from the same table version the general path would register with
    DuckDB, in the order it would read them, and DuckDB returns a registered Arrow column
    unchanged (type and values) for the column types allowed here, so the result has the
    same rows and types. An ORDER BY sorts by columns whose Python values order as
    DuckDB's do (``_ORDERED_KINDS``), nulls placed as PostgreSQL places them. The rows are
    handed back as Python values, made an Arrow table only if asked for one."""
    pinned = _point_key(ex, ctx, plan, params)
    if pinned is None:
        return None
    version, names, result_fields, hit = pinned  # (unpacked: faster than its attributes)
    limit = None
    if plan.limit is not None:
        limit = plan.limit[1] if plan.limit[0] == "const" else params[plan.limit[1]]
        if type(limit) is not int or not 0 <= limit <= _INT_RANGES["BIGINT"][1]:  # (NULL, a cast, an error)
            return None
    if plan.order and not _orderable(version.schema, plan.order):
        return None
    rowids = indexes.rowids(ex, version, hit)
    if not hit.primary:
        ex.index_scans += 1
    if plan.order:
        if len(rowids) > ORDERED_ROWS:  # (sorted by DuckDB)
            return None
        found = _sorted_rows([ex._row_values(version, r) for r in rowids], plan.order)
        rows = [tuple(row[name] for name in names) for row in found[:limit]]
        return executor.Result(rows=rows, schema=result_fields, rowcount=len(rows), status=f"SELECT {len(rows)}")
    if limit is not None:
        rowids = rowids[:limit]
    if len(rowids) > POINT_ROWS:  # (an index of few distinct values: its rows read file by file)
        table = indexes.rows_at(ex, version, rowids, False).select(list(names))
        return executor.Result(table=table, rowcount=table.num_rows, status=f"SELECT {table.num_rows}")
    rows = []
    for rowid in rowids:
        found = ex._row_values(version, rowid)
        rows.append(tuple(found[name] for name in names))
    return executor.Result(rows=rows, schema=result_fields, rowcount=len(rows), status=f"SELECT {len(rows)}")


def join_lookups(ex, ctx: Context, plan: "PointJoin", params) -> JoinLookups | None:
    """A point join's tables and keys, or None when it needs the general path:
    the WHERE must pin a key of the driving table with nothing else, and the other table's
    ON column must be a one-column key of the same kind (integer or text: Python's
    equality is SQL's) as the driving table's."""
    versions = {alias: ctx.resolve(name) for name, alias in plan.tables}
    driver, other = plan.driver, plan.other
    version = versions[driver]
    hit = indexes.lookup(version.schema, version.name, driver, plan.where, params, 0, qualified=True)
    if hit is None or len(hit.keys) > POINT_KEYS or (not plan.in_list and len(hit.columns) != plan.conjuncts):
        return None
    theirs = versions[other]
    mine_col, their_col = plan.driver_column, plan.other_column
    key = next((k for k in indexes.keys_of(theirs.schema, theirs.name) if k[1] == (their_col,)), None)
    mine = version.schema.column(mine_col)
    kind = key_kind(mine) if mine is not None and mine.name == mine_col else None  # (None for an enum)
    if key is None or kind not in (int, str) or kind is not key_kind(theirs.schema.column(their_col)):
        return None  # (a uuid key holds its canonical text, which a joined value need not be)
    columns = plan.columns if plan.columns is not None else \
        tuple((alias, c) for _, alias in plan.tables for c in versions[alias].schema.names)
    fields = []
    for alias, name in columns:
        arrow = versions[alias].schema.arrow_schema()
        if arrow.get_field_index(name) < 0 or not _passes_through(arrow.field(name)) \
                or name in versions[alias].schema.blank_padded:  # (a CHAR(n): padded by engine/bpchar.py)
            return None
        fields.append(arrow.field(name))
    return JoinLookups(versions, hit, key[0], key[2], columns, pa.schema(fields))


def join(ex, plan: "PointJoin", looked_up: JoinLookups) -> Result | None:
    """A point join (``join_plan``) as a nested loop over the two tables' indexes:
    the driving table's rows its key gives, and for each, the other table's rows whose
    ON column holds the row's value. None if it finds more than JOIN_ROWS rows (DuckDB
    joins them)."""
    versions, hit, their_key, their_primary, columns, schema = looked_up
    other, their_col, mine_col = plan.other, plan.other_column, plan.driver_column
    their_columns = (their_col,)
    driver_rows = indexes.rowids(ex, versions[plan.driver], hit)
    theirs = versions[other]
    int_key = theirs.schema.column(their_col).type.kind in _INT_RANGES
    rows = []
    for rowid in driver_rows:
        row = {plan.driver: ex._row_values(versions[plan.driver], rowid)}
        value = row[plan.driver][mine_col]
        if value is None or (int_key and not _in_range(theirs.schema, their_col, value)):
            continue
        lookup = indexes.Lookup(their_key, their_columns, (value,), their_primary)
        for match in indexes.rowids(ex, theirs, lookup):
            row[other] = ex._row_values(theirs, match)
            rows.append(tuple(row[alias][name] for alias, name in columns))
        if len(rows) > JOIN_ROWS:
            return None
    ex.index_scans += (not hit.primary) + (not their_primary)
    return executor.Result(rows=rows, schema=schema, rowcount=len(rows), status=f"SELECT {len(rows)}")


def _point_key(ex, ctx: Context, plan: "PointSelect", params) -> PointKey | None:
    """A point SELECT's table and the key of its rows, or None when it needs the general
    path. The lookup is through the primary key, or a unique constraint or index (CREATE
    [UNIQUE] INDEX) over exactly the columns the WHERE clause pins - for an IN list, of one
    column (``indexes.lookup``)."""
    version = ctx.resolve(plan.table)
    schema = version.schema
    names = tuple(schema.names if plan.columns is None else plan.columns)
    if plan.in_list:
        hit = indexes.lookup(schema, version.name, plan.alias, plan.where, params, 0)
        if hit is None or len(hit.keys) > POINT_KEYS:
            return None
    else:
        key = pinned_key(schema, plan.alias, plan.where, params, 0) \
            if plan.conjuncts == len(schema.primary_key) else None
        if key is not None:
            hit = indexes.Lookup(schema.pkey_name(version.name), schema.primary_key, (key,), True)
        else:
            hit = _pinned_index(version, plan.alias, plan.where, params, 0, plan.conjuncts)
            if hit is None:
                return None
    fields = result_schema(schema, names)
    return PointKey(version, names, fields, hit) if fields is not None else None


def insert_rows(ex, schema, columns, stmt, params) -> PythonRows | None:
    """The rows an INSERT of VALUES adds, built in Python (``_values_columns``); None where
    DuckDB must build them (``_insert_rows``)."""
    if not isinstance(stmt.source, exp.Values):
        return None
    plan = ex._statement_memo(stmt, ("point-insert",), lambda: values_plan(stmt.source))
    values = _values_columns(ex, schema, columns, stmt, plan, params) if plan is not None else None
    return PythonRows(schema, values) if values is not None else None


def insert_many_rows(ex, schema, columns, stmt, param_sets: list[tuple]) -> PythonRows | None:
    """The rows an INSERT of one VALUES row adds once per parameter set (``executemany``),
    built in Python as ``insert_rows`` builds one's: the VALUES row repeated, its ``?``
    numbered on through the sets. None where DuckDB must build them."""
    plan = ex._statement_memo(stmt, ("point-insert",), lambda: values_plan(stmt.source))
    width = len(param_sets[0])
    if plan is None or len(plan) != 1 or not width:  # (no parameters: the same row each time)
        return None
    template = plan[0]
    rows = [[("param", base + term[1]) if term[0] == "param" else term for term in template]
            for base in range(0, width * len(param_sets), width)]
    values = _values_columns(ex, schema, columns, stmt, rows, [v for params in param_sets for v in params],
                             defaults=ex.default_values)
    return PythonRows(schema, values) if values is not None else None


def _values_columns(ex, schema: TableSchema, columns: list[str], stmt: st.Insert,
                    plan: list[list[tuple]], params, defaults=None) -> list[tuple] | None:
    """``INSERT ... VALUES`` of constants, ``?`` and CURRENT_TIMESTAMP built in Python: the
    values DuckDB would return for ``CAST(value AS column type)``, a tuple per column of
    the table, or None to let DuckDB do it. Only values whose cast is the identity are taken (an int into INT/BIGINT in
    range, a str into VARCHAR, a float into DOUBLE, a bool into BOOLEAN, NULL into
    anything); columns left out must have no default - but a SERIAL's - unless ``defaults(column,
    n)`` gives a column's n defaults (an executemany's batch: one DuckDB query per column)."""
    width = len(plan[0])
    if any(len(row) != width for row in plan) or width > len(columns) or \
            (stmt.columns is not None and width < len(columns)):
        return None  # DuckDB / _insert_sql report the error
    supplied = {name: i for i, name in enumerate(columns[:width])}
    data, numbered = [], {}
    for col in schema.columns:
        i = supplied.get(col.name)
        if i is None:
            sequence = executor.sequence_of(col.default)
            if sequence is not None:  # (SERIAL: numbered below, once every value is taken)
                numbered[len(data)] = sequence
                data.append(None)
                continue
            if col.default is not None:
                if defaults is None:
                    return None
                data.append(col)  # (once every value given is taken: none may fall back after a default ran)
                continue
            data.append((None,) * len(plan))
            continue
        values = []
        for row in plan:
            value = _insert_value(ex, row[i], col, params)
            if value is FALLBACK:
                return None
            values.append(value)
        data.append(tuple(values))
    for at, sequence in numbered.items():  # (as DuckDB would number them: the rows in order)
        data[at] = tuple(ex.sequence_calls.reserve(sequence, len(plan)).tolist())
    return [defaults(column, len(plan)) if isinstance(column, Column) else column for column in data]


def _insert_value(ex, term: tuple, col: Column, params):
    op = term[0]
    if op == "null":
        return None
    kind = col.type.kind
    if op == "now":
        if kind == "TIMESTAMPTZ":
            return ex.clock_of.start_time.astimezone(executor._UTC)
        if kind != "TIMESTAMP" or ex._time_zone() is None:
            return FALLBACK
        return ex.clock_of.start_time.astimezone(ex._time_zone()).replace(tzinfo=None)
    value = params[term[1]] if op == "param" else term[1]
    if value is None:
        return None
    if kind == "TIMESTAMPTZ":  # an aware datetime is its instant (a naive one is the session's: DuckDB)
        if type(value) is not datetime.datetime or value.utcoffset() is None:
            return FALLBACK
        try:
            return value.astimezone(executor._UTC)
        except OverflowError:  # (past Python's years in UTC: DuckDB and _check_rows decide)
            return FALLBACK
    if kind == "UUID":  # (its canonical text; text of another form DuckDB reads, or refuses: 22P02)
        text = uuid_text(value)
        return text if text is not None else FALLBACK
    if kind in _JSON_INPUT:  # (text; a dict parameter arrives as its JSON text: dbapi/)
        if type(value) is not str:
            return FALLBACK
        try:
            return _JSON_INPUT[kind](value)
        except jsonb.JsonInputError as e:
            raise json_input_error(str(e)) from None
    bounds = _INT_RANGES.get(kind)
    if bounds is not None:
        return value if type(value) is int and bounds[0] <= value <= bounds[1] else FALLBACK
    converted = _CONVERSIONS.get(kind)
    if converted is not None:
        return converted(value, col.type)
    expected = _IDENTITY_CASTS.get(kind)
    return value if expected is not None and type(value) is expected else FALLBACK


def _to_numeric(value, t):
    """An integer or a NUMERIC into NUMERIC(p, s): rounded to s places, half away from zero,
    as PostgreSQL's assignment does; FALLBACK for a value past p digits (DuckDB gives 22003),
    NaN or infinity, or a value of another type (a float's rounding is its cast's)."""
    if type(value) is int:
        value = decimal.Decimal(value)
    elif type(value) is not decimal.Decimal or not value.is_finite():
        return FALLBACK
    if value.adjusted() >= t.precision - t.scale:  # (past the precision before rounding: 1e100)
        return FALLBACK
    rounded = _NUMERIC.quantize(value, decimal.Decimal(1).scaleb(-t.scale))
    if rounded.adjusted() >= t.precision - t.scale and rounded:  # (9999.995 rounds past it)
        return FALLBACK
    return rounded


def _to_double(value, t):
    """A float as is; an integer a DOUBLE holds exactly; a NUMERIC constant rounded to the
    nearest DOUBLE (PostgreSQL's numeric -> float8 reads its text so), if finite."""
    kind = type(value)
    if kind is float:
        return value
    if kind is int:
        return float(value) if -_FLOAT_INTS <= value <= _FLOAT_INTS else FALLBACK
    if kind is decimal.Decimal and value.is_finite():
        f = float(value)
        return f if f not in (float("inf"), float("-inf")) and (f or not value) else FALLBACK
    return FALLBACK


def _to_date(value, t):
    """A ``date`` as is; ISO text (``2024-01-31``) read as PostgreSQL reads it."""
    if type(value) is datetime.date:
        return value
    if type(value) is str and _ISO_DATE.match(value):
        try:
            return datetime.date.fromisoformat(value)
        except ValueError:  # (no such day: DuckDB and PostgreSQL say 22008)
            return FALLBACK
    return FALLBACK


def _to_timestamp(value, t):
    """A naive ``datetime`` as is; ISO text without a zone (``2024-01-31 12:30:00.5``)."""
    if type(value) is datetime.datetime:
        return value if value.tzinfo is None else FALLBACK  # (an instant: the session's zone says)
    if type(value) is str and _ISO_TIMESTAMP.match(value):
        try:
            return datetime.datetime.fromisoformat(value)
        except ValueError:
            return FALLBACK
    return FALLBACK


# kind -> how a VALUES term or a parameter becomes the column's value (each gives FALLBACK for
# what it does not take, as _insert_value does)
_CONVERSIONS = {"DECIMAL": _to_numeric, "DOUBLE": _to_double, "DATE": _to_date, "TIMESTAMP": _to_timestamp}


def conflict_values(ex, version, plan: dict, clashing: pa.Table, clash_ids: pa.Array, params):
    """The conflicting rows as ON CONFLICT DO UPDATE's SET leaves them, computed in Python
    as a point UPDATE's are (``_evaluate``); None where DuckDB must compute them."""
    schema = version.schema
    columns = {name: [] for name in schema.names}
    for rowid, excluded in zip(clash_ids.to_pylist(), clashing.to_pylist()):
        old = ex._row_values(version, rowid)
        for name in schema.names:
            term = plan.get(name)
            value = old[name] if term is None else _evaluate(term, schema.column(name), schema, old, params,
                                                              excluded)
            if value is FALLBACK:
                return None
            columns[name].append(value)
    return PythonRows(schema, [tuple(values) for values in columns.values()])


def finder(ex, version: TableVersion, alias: str, where, conjuncts: int, params, offset: int,
           assignments: dict | None, find, returning: bool = False):
    """An UPDATE's or DELETE's row finder ``find`` done in Python over a few candidate
    rows (those a key gives, or a small table's: ``_candidates``), when its WHERE is ``conjuncts`` equalities
    ``column = constant-or-?`` of distinct integer, text or uuid columns (``?`` from
    ``offset`` on) and, for an UPDATE, its SETs are the point UPDATE's forms
    (``assignments``, ``_evaluate``): the rows DuckDB would find, in the form its finder
    gives them (row id, old key, new or - with ``returning`` - old values), without it.
    Whatever else - many candidates, a value of another type, a SET DuckDB must compute -
    goes to ``find``. A point UPDATE or DELETE of one row never gets here; one of a few
    rows through an index does."""
    schema = version.schema
    names = tuple(dict.fromkeys(identifier(c.this) for c in where.find_all(exp.Column)))
    known = len(names) == conjuncts and all(
        (col := schema.column(n)) is not None and col.name == n for n in names)
    terms = _key_terms(schema, alias, where, names) if known else None

    def python_find(candidates: pa.Table | StreamedScan) -> pa.Table:
        if terms is None or not isinstance(candidates, pa.Table) or candidates.num_rows > FOUND_ROWS:
            return find(candidates)
        wanted = {}
        for name, (kind, is_param, term) in zip(names, terms):
            value = params[offset + term] if is_param else term
            if kind is uuid.UUID:
                value = uuid_text(value)
            elif kind is None or type(value) is not kind or (kind is int and not _in_range(schema, name, value)):
                return find(candidates)
            if value is None:
                return find(candidates)
            wanted[name] = value
        rows = candidates.to_pylist()
        keep = [i for i, row in enumerate(rows) if all(row[n] == v for n, v in wanted.items())]
        found = candidates if len(keep) == len(rows) else candidates.take(pa.array(keep, pa.int64()))
        columns = [found.column(ROWID), *(found.column(k) for k in schema.primary_key)]
        out_names = [ROWID, *(f"__txl_old_{k}" for k in schema.primary_key)]
        if assignments is not None:
            new = {name: [_evaluate(term, schema.column(name), schema, rows[i], params) for i in keep]
                   for name, term in assignments.items()}
            if any(v is FALLBACK for values in new.values() for v in values):
                return find(candidates)
            values, arrow = found.select(list(schema.names)), schema.arrow_schema()
            for name, computed in new.items():
                field = arrow.field(name)
                values = values.set_column(values.schema.get_field_index(name), field,
                                           pa.array(computed, field.type))
            columns += values.columns
            out_names += schema.names
        elif returning:
            columns += [found.column(n) for n in schema.names]
            out_names += schema.names
        return pa.Table.from_arrays(columns, names=out_names)

    return python_find


def update(ex, ctx: Context, stmt: st.Update, version: TableVersion, alias: str,
           plan: "PointUpdate", params, returning_params) -> Result | None:
    """A point UPDATE (``WHERE`` pins the whole primary key, each ``SET`` is a constant, a
    column or ``column +/- constant``) done in Python: the row is found through the key
    index, locked and re-checked as ``_lock_rows`` does, and its new values computed as
    DuckDB would compute ``CAST(value AS column type)``. None sends the statement down the
    general path: every case whose DuckDB outcome could differ (other types, NULL or
    non-int parameters, a result out of the column's range - an error there). By then at
    most the row's lock and a READ COMMITTED rebase were taken, which that path takes alike."""
    schema = version.schema
    found = _point_row(ex, ctx, version, alias, plan.where, plan.conjuncts, params, plan.set_params)
    if found is None:
        return None
    rowid, version = found
    if rowid is None:
        rows = schema.arrow_schema().empty_table()
    else:
        old = ex._row_values(version, rowid)
        new = dict(old)
        for name, term in plan.assignments.items():
            new[name] = _evaluate(term, schema.column(name), schema, old, params)
            if new[name] is FALLBACK:
                return None
        rows = PythonRows(schema, [(new[name],) for name in schema.names])
        rows = ex._check_rows(version, rows, plan.assignments)
        sets_key = executor._sets_key(schema, plan.assignments)
        if sets_key or schema.uniques:
            ex._check_updated_keys(ctx, version, np.array([rowid], np.int64), rows, plan.assignments)
        kept = not sets_key and rowid >> 32 > 0  # (a committed row, its key kept)
        ex._write(ctx, version, ex._apply(version, [rowid], rows, sources=[rowid], same_keys=kept),
                  assigned=plan.assignments)
    out = ex._returning(stmt.returning, rows, schema, alias, returning_params)
    out.status = f"UPDATE {rows.num_rows}"
    return out


def _point_row(ex, ctx: Context, version: TableVersion, alias: str, where, conjuncts: int, params,
               offset: int) -> FoundRow | None:
    """The row a point UPDATE or DELETE changes - ``where`` (``conjuncts`` equalities, its
    ? from ``offset`` on) pins the primary key, or a UNIQUE constraint's or an index's
    columns that hold one row at most of a keyed table - found through the index, locked
    by its key and re-checked as ``_lock_rows`` does. None: the statement needs the general
    path (nothing was locked)."""
    schema = version.schema
    key = pinned_key(schema, alias, where, params, offset) if conjuncts == len(schema.primary_key) else None
    index = None
    if key is None:  # (or a row a UNIQUE constraint's or an index's columns pin, one at most)
        if not schema.primary_key or not all(  # (the row's key, found from its values, locks it)
                _KEY_PYTHON_TYPES.get(schema.column(k).type.kind) in (int, str) for k in schema.primary_key):
            return None
        index = _pinned_index(version, alias, where, params, offset, conjuncts)
        if index is None:
            return None
        pinned = index.keys[0]
        rowids = pk.find_rows(ex.store, version, pinned, index.columns)
        ex.index_scans += 1
        if len(rowids) > 1:
            return None
        rowid = rowids[0] if rowids else None
        if rowid is not None:
            key = _key_of(schema, ex._row_values(version, rowid))
    else:
        rowid = pk.find(ex.store, version, [key]).get(key)
    ex._read(ctx, version, alias, where, params, offset, key if index is None else None)
    if rowid is None:
        return FoundRow(None, version)
    tid = version.table_id
    ex._lock(ctx, tid, [(tid, "key", key)])
    if schema.uniques:
        uniques.lock_old_keys(ex, ctx, version, [rowid])
    ex._refuse_prepared_rows(ctx, version, [rowid])
    before = version
    version, changed = ex._moved_on(ctx, version, [rowid])
    if changed and index is None:  # READ COMMITTED: the newest committed version of the row, if any
        rowid = pk.find(ex.store, version, [key]).get(key)
    elif changed:  # (followed as the general path does - its key may have changed too - and re-checked)
        def matching(rows: pa.Table) -> pa.Table:
            held = rows.select(list(index.columns)).to_pylist()
            return rows.take(pa.array([i for i, row in enumerate(held)
                                       if _key_of(schema, row, index.columns) == pinned], pa.int64()))

        rows, version = ex._reevaluated(ctx, version, ex._rows_by_id(before, [rowid]), [(tid, "key", key)],
                                        matching, changed)
        rowid = rows.column(ROWID)[0].as_py() if rows.num_rows else None
    return FoundRow(rowid, version)


def delete(ex, ctx: Context, stmt: st.Delete, version: TableVersion, alias: str, conjuncts: int,
           params, returning_params) -> Result | None:
    """A point DELETE (``WHERE`` as a point UPDATE's: ``_point_row``) done in Python; None
    sends the statement down the general path."""
    found = _point_row(ex, ctx, version, alias, stmt.where, conjuncts, params, 0)
    if found is None:
        return None
    rowid, version = found
    if rowid is not None:
        ex._write(ctx, version, ex._apply(version, [rowid], None))
    if not stmt.returning:
        out = executor.Result(rowcount=0 if rowid is None else 1)
    else:
        old = ex._row_values(version, rowid) if rowid is not None else None
        schema = version.schema
        rows = PythonRows(schema, [(old[name],) for name in schema.names]) if old is not None \
            else schema.arrow_schema().empty_table()
        out = ex._returning(stmt.returning, rows, schema, alias, returning_params)
    out.status = f"DELETE {0 if rowid is None else 1}"
    return out
