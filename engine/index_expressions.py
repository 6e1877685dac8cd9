"""Expression and partial indexes: ``CREATE [UNIQUE] INDEX ... ((expression), ...) [WHERE predicate]``.

- **Defined** (``key``): each expression and the predicate refused as PostgreSQL refuses them -
  a subquery (0A000), an aggregate (42803), a window function (42P20), a set-returning function
  (0A000), a function that is not immutable (42P17: now(), random(), nextval()) - and bound by
  DuckDB over the table's columns (42703). The index keeps its key as pg_get_indexdef shows it
  (``lower(email)``, ``(a + b)``, ``email``), its predicate, and the columns they read.
- **A unique one is enforced** by engine/uniques.py's machinery as a UNIQUE constraint is - locks,
  the statement's checks, COMMIT's across processes (storage/commit.py), ON CONFLICT: its key
  "columns" are *computed keys* (storage/schema.py ``COMPUTED_KEY``), each the SQL of one key
  value - for a partial index ``CASE WHEN predicate THEN expression END``, so a row outside the
  predicate holds a NULL key, which clashes with none (NULLS NOT DISTINCT with WHERE is refused:
  0A000). storage/keys.py computes them (``compute``, installed as ``keys.COMPUTE``) wherever it
  reads a key: from new rows, and per data file for its cached per-file index.
- **A plain one is kept**, shown (pg_indexes, \\d) and never looked up (engine/indexes.py
  ``keys_of`` passes over it): it answers no lookup txlake makes, so it changes no result.
- **ON CONFLICT** infers one (``inferred``) as PostgreSQL does: its key elements - columns and
  expressions, in any order - are exactly the target's, and its predicate is implied by the
  target's WHERE (here: equal to it, or one of its AND-ed terms); a partial index is never
  inferred without a WHERE.
"""

from __future__ import annotations

import functools
import json
import threading
from dataclasses import replace

import duckdb
import pyarrow as pa
from sqlglot import exp

from txlake import errors
from txlake.engine import checks, generated
from txlake.storage import keys as pk
from txlake.storage.schema import COMPUTED_KEY, Index, TableSchema, UniqueConstraint

_SOURCE = "__txl_index_rows"


# --- definition ------------------------------------------------------------------------------

def key(ex, table: str, schema: TableSchema, items, where, nulls_not_distinct: bool) -> dict:
    """The fields of an index of ``items`` with the predicate ``where`` on ``table`` (of
    ``schema``): ``columns`` (its computed keys), ``key``, ``predicate``, ``inputs``; refused as
    PostgreSQL refuses them."""
    if where is not None and nulls_not_distinct:
        raise errors.NotSupportedError("a partial index with NULLS NOT DISTINCT is not supported")
    shown = tuple(_shown(_checked(ex, table, schema, item, "expression")) for item in items)
    predicate = _text(_checked(ex, table, schema, where, "predicate")) if where is not None else None
    for element in shown:
        column = schema.column(element)
        if column is not None and column.type.kind == "ARRAY":
            raise errors.NotSupportedError(f'column "{element}" is an array: txlake\'s indexes are of scalar columns')
    return _made(shown, predicate)


def _made(shown: tuple[str, ...], predicate: str | None) -> dict:
    """The index's fields from its key as shown and its predicate."""
    elements = [_text(_bare(checks.parsed(s))) for s in shown]
    columns = tuple(COMPUTED_KEY + (f"CASE WHEN ({predicate}) THEN ({e}) END" if predicate is not None else e)
                    for e in elements)
    read = [c.name for text in (*shown, *([predicate] if predicate else ())) for c in checks.parsed(text).find_all(
        exp.Column)]
    return {"columns": columns, "key": shown, "predicate": predicate, "inputs": tuple(dict.fromkeys(read))}


def _checked(ex, table: str, schema: TableSchema, expression: exp.Expression, what: str) -> exp.Expression:
    """``expression`` (an index expression or predicate: ``what``) without ``table.``, refused
    as PostgreSQL's DefineIndex / transformIndexStmt refuse one, bound over ``schema``."""
    expression = checks.unqualified(_bare(expression), table)
    plural = "index expressions" if what == "expression" else "index predicates"
    for node in expression.walk():
        if isinstance(node, (exp.Select, exp.Subquery, exp.Exists)):
            raise errors.NotSupportedError(f"cannot use subquery in index {what}")
        checks.refuse_row_set(node, plural)
        if isinstance(node, exp.Column) and node.table:
            raise errors.ProgrammingError(f'missing FROM-clause entry for table "{node.table}"', sqlstate="42P01")
    sql = generated._duckdb_sql(checks.stored(expression))
    empty = pa.schema([c.type.field(c.name) for c in schema.columns]).empty_table()
    with ex._registered() as register:
        tree = json.loads(ex._sql("SELECT json_serialize_sql(?)", [f"SELECT {sql}"]).column(0)[0].as_py())
        if set(generated._functions_called(tree)) & generated._not_immutable():
            raise errors.ProgrammingError(f"functions in index {what} must be marked IMMUTABLE", sqlstate="42P17")
        ex._sql(f'SELECT {sql} FROM {register(empty)} AS "{table}"')  # (binds it: 42703 for no such column)
    return expression


def _bare(expression: exp.Expression) -> exp.Expression:
    """``expression`` without the parentheses CREATE INDEX's syntax wants around one."""
    while isinstance(expression, (exp.Paren, exp.Ordered)):
        expression = expression.this
    return expression


def _text(expression: exp.Expression) -> str:
    """An expression as PostgreSQL deparses it, near enough: its spelling, function names lower case."""
    return expression.sql(dialect="postgres", normalize_functions="lower")


def _shown(expression: exp.Expression) -> str:
    """A key element as pg_get_indexdef shows it: a column's name, a function call as written,
    another expression in parentheses (ruleutils.c's looks_like_function)."""
    if isinstance(expression, exp.Column):
        return expression.name
    function = isinstance(expression, (exp.Anonymous, exp.Coalesce, exp.Greatest, exp.Least)) or (
        isinstance(expression, exp.Func) and not isinstance(expression, (exp.Binary, exp.Cast, exp.Case, exp.If,
                                                                         exp.Unary, exp.Predicate)))
    return _text(expression) if function else f"({_text(expression)})"


def name_parts(items) -> tuple[str, ...]:
    """The words PostgreSQL's default index name is made of (ChooseIndexColumnNames): a
    column's name, a function's, else ``expr``."""
    parts = []
    for item in items:
        item = _bare(item)
        if isinstance(item, exp.Column):
            parts.append(item.name)
        elif isinstance(item, exp.Anonymous):
            parts.append(item.name.lower())
        elif isinstance(item, exp.Func) and not isinstance(item, (exp.Binary, exp.Cast, exp.Case, exp.Predicate)):
            parts.append(_text(item).split("(", 1)[0])
        else:
            parts.append("expr")
    return tuple(parts)


def words(index: UniqueConstraint | Index) -> tuple[str, ...]:
    """``name_parts`` of an index's key (its columns, for one of plain columns)."""
    return name_parts(checks.parsed(k) for k in index.key) if index.key else index.columns


def renamed(index: UniqueConstraint | Index, old: str, new: str):
    """``index`` (an expression or partial one) with the column ``old`` called ``new``."""
    if old not in index.inputs:
        return index
    shown = tuple(_shown(_bare(checks.parsed(checks.renamed_in(s, old, new)))) for s in index.key)
    predicate = _text(checks.parsed(checks.renamed_in(index.predicate, old, new))) \
        if index.predicate is not None else None
    return replace(index, **_made(shown, predicate))


# --- computation -----------------------------------------------------------------------------

@functools.cache
def _duckdb() -> duckdb.DuckDBPyConnection:
    """A DuckDB database with txlake's SQL, to compute keys in (each call on a cursor of its own)."""
    from txlake.engine import dialect  # (a module of the executor's)
    con = duckdb.connect()
    dialect.postgres_semantics(con)
    return con


_lock = threading.Lock()  # guards the creation of ``_duckdb``'s connection


def compute(rows: pa.Table, names: tuple[str, ...]) -> pa.Table:
    """storage/keys.py ``COMPUTE``: the computed keys ``names`` of ``rows``."""
    with _lock:
        con = _duckdb().cursor()
    query = ", ".join(f'{generated._duckdb_sql(n[len(COMPUTED_KEY):])} AS "{i}"' for i, n in enumerate(names))
    try:
        out = checks.rows_on(con, f"SELECT {query} FROM {_SOURCE}", _SOURCE, rows)
    finally:
        con.close()
    return pa.table({n: out.column(i) for i, n in enumerate(names)})


pk.COMPUTE = compute


# --- ON CONFLICT -----------------------------------------------------------------------------

def inferred(schema: TableSchema, table: str, targets, predicate) -> tuple[UniqueConstraint, ...]:
    """The unique keys (the primary key too) ``ON CONFLICT (targets) [WHERE predicate]`` infers:
    those whose elements are exactly ``targets`` and whose predicate, if any, ``predicate``
    implies (equal to it, or one of its AND-ed terms). 42P10 if none is."""
    wanted = {_normal(t) for t in targets}
    terms = set()
    if predicate is not None:
        terms = {_normal(predicate)} | {_normal(t) for t in predicate.flatten()} if isinstance(predicate, exp.And) \
            else {_normal(predicate)}
    keys = ((UniqueConstraint(schema.pkey_name(table), schema.primary_key),) if schema.primary_key else ()) \
        + schema.uniques
    found = tuple(u for u in keys if {_normal(checks.parsed(s)) for s in u.shown} == wanted
                  and (u.predicate is None or _normal(checks.parsed(u.predicate)) in terms))
    if not found:
        raise errors.ProgrammingError(
            "there is no unique or exclusion constraint matching the ON CONFLICT specification", sqlstate="42P10")
    return found


def _normal(expression: exp.Expression) -> str:
    return _text(_bare(expression))
