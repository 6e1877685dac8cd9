"""Stored generated columns: ``c type GENERATED ALWAYS AS (expression) STORED``, as PostgreSQL's.

- **Defined** (CREATE TABLE, ALTER TABLE ADD COLUMN: ``define``): the expression as written is
  refused, with PostgreSQL's words and SQLSTATEs, if it holds a subquery (0A000), an aggregate
  (42803), a window function (42P20), a set-returning function (0A000), a system column
  (42P10), another generated column or itself (42P17), or calls a function that is not
  immutable (42P17: now(), random(), nextval(), ...); then bound by DuckDB over the table's
  columns (an unknown column: 42703). It is kept as SQL text without the table's name, as a
  CHECK's is (``Column.generated``), and renamed with its columns.
- **Computed** on every row a statement writes (``computed``, from ``Executor._check_rows``,
  before NOT NULL and the CHECKs, so those judge the computed value): INSERT (VALUES, SELECT,
  DEFAULT VALUES, ON CONFLICT DO UPDATE), UPDATE, MERGE, COPY FROM - one DuckDB query over the
  batch, the expression rewritten as a SELECT's is (PostgreSQL's integer division and its
  errors, overflow), then cast to the column's type as an INSERT casts. INSERT ... SELECT's
  stream computes them in its query (``with_generated``); a Spark task in its own DuckDB.
- **Refused** values: an INSERT giving a generated column anything but DEFAULT, an UPDATE
  setting one to anything but DEFAULT (428C9), COPY naming one (42P10). Tables without
  generated columns pay one attribute test (``TableSchema.generated``); the point INSERT and
  UPDATE paths are left for the general ones on tables with them.
"""

from __future__ import annotations

import functools
import json
from dataclasses import replace

import duckdb
import pyarrow as pa
from sqlglot import exp

from txlake import errors
from txlake.engine import checks
from txlake.engine.sequence_calls import CURRVAL, LASTVAL, NEXTVAL, SETVAL, SETVAL3
from txlake.parser import statements as st
from txlake.parser.semantics import (CLOCK_FUNCTION, XID_FUNCTION, XID_IF_ASSIGNED_FUNCTION,
                                     postgres_semantics)
from txlake.storage.schema import Column, TableSchema
from txlake.storage.version import PythonRows

_SOURCE = "__txl_generating"  # (the rows a computation reads, in its query)
# PostgreSQL's system columns: a generated column may not read them
_SYSTEM_COLUMNS = frozenset(("xmin", "xmax", "cmin", "cmax", "ctid"))
# txlake's own functions whose value is not the same for the same arguments every time
_NOT_IMMUTABLE = frozenset((CLOCK_FUNCTION, XID_FUNCTION, XID_IF_ASSIGNED_FUNCTION, NEXTVAL, CURRVAL, SETVAL, SETVAL3,
                            LASTVAL))


# --- definition ------------------------------------------------------------------------------

def define(ex, table: str, columns: tuple[Column, ...], name: str, expression: exp.Expression) -> str:
    """The stored text of column ``name``'s generation ``expression`` (as written) in table
    ``table`` of ``columns`` (the generated ones among them marked so): refused as PostgreSQL
    refuses it, else bound over the columns."""
    generated = {c.name for c in columns if c.generated is not None} | {name}
    expression = checks.unqualified(expression, table)
    for node in expression.walk():
        if isinstance(node, (exp.Select, exp.Subquery, exp.Exists)):
            raise errors.NotSupportedError("cannot use subquery in column generation expression")
        checks.refuse_row_set(node, "column generation expressions")
        if isinstance(node, exp.Column) and not node.table:
            if node.name in generated:
                raise errors.ProgrammingError(
                    f'cannot use generated column "{node.name}" in column generation expression\n'
                    "DETAIL:  A generated column cannot reference another generated column.", sqlstate="42P17")
            if node.name in _SYSTEM_COLUMNS and all(c.name != node.name for c in columns):
                raise errors.ProgrammingError(
                    f'cannot use system column "{node.name}" in column generation expression', sqlstate="42P10")
    text = checks.stored(expression)
    sql = _duckdb_sql(text)
    plain = [c for c in columns if c.generated is None]
    empty = pa.schema([c.type.field(c.name) for c in plain]).empty_table()
    with ex._registered() as register:
        tree = json.loads(ex._sql("SELECT json_serialize_sql(?)", [f"SELECT {sql}"]).column(0)[0].as_py())
        if set(_functions_called(tree)) & _not_immutable():
            raise errors.ProgrammingError("generation expression is not immutable", sqlstate="42P17")
        ex._sql(f'SELECT {sql} FROM {register(empty)} AS "{table}"')  # (binds it: 42703 for no such column)
    return text


@functools.cache
def _not_immutable() -> frozenset[str]:
    """The functions a generation expression may not call: DuckDB's whose value is not fixed by
    their arguments (now(), random(), current_setting()), and txlake's own such (the clock,
    sequences)."""
    with duckdb.connect() as con:
        return _NOT_IMMUTABLE | frozenset(name for (name,) in con.sql(  # (every overload: + of a timestamptz is not)
            "SELECT function_name FROM duckdb_functions() GROUP BY function_name "
            "HAVING bool_and(coalesce(stability, 'CONSISTENT') <> 'CONSISTENT')").fetchall())


def _functions_called(tree):
    from txlake.engine.executor import _functions_called as called  # (it builds on this module)
    return called(tree)


def uses(column: Column, name: str) -> bool:
    """Whether the generated ``column``'s expression reads the column ``name``."""
    return column.generated is not None and name in columns_read(column.generated)


@functools.lru_cache(maxsize=1024)
def columns_read(text: str) -> frozenset[str]:
    return frozenset(c.name for c in checks.parsed(text).find_all(exp.Column))


# --- computation -----------------------------------------------------------------------------

@functools.lru_cache(maxsize=1024)
def _duckdb_sql(text: str) -> str:
    """The DuckDB SQL of a stored generation expression: rewritten as a SELECT's expression is."""
    value = postgres_semantics(exp.Select(expressions=[checks.parsed(text).copy()])).expressions[0]
    return (value.this if isinstance(value, exp.Alias) else value).sql(dialect="duckdb")


def _projections(schema: TableSchema) -> str:
    from txlake.engine.executor import _cast_sql  # (it builds on this module)
    return ", ".join(f'{_cast_sql(f"({_duckdb_sql(c.generated)})", c.type)} AS "{c.name}"'
                     if c.generated is not None else f'"{c.name}"' for c in schema.columns)


def with_generated(sql: str, table: str, schema: TableSchema) -> str:
    """The query ``sql`` (rows in ``schema``'s columns) with its generated columns computed."""
    return f'SELECT {_projections(schema)} FROM ({sql}) AS "{table}"'


def computed(ex, table: str, schema: TableSchema, rows: pa.Table | PythonRows) -> pa.Table:
    """``rows`` (about to be written to ``table``, in ``schema``'s columns) with the values of
    its generated columns computed from the others. ``ex``: the executor whose DuckDB computes
    them - or a DuckDB connection of its own set up with txlake's SQL (a Spark task's:
    spark/types.py ``checks_duckdb``)."""
    from txlake.engine.executor import Executor  # (it builds on this module)
    data = rows.table() if isinstance(rows, PythonRows) else rows
    if isinstance(ex, duckdb.DuckDBPyConnection):
        return Executor._conform(checks.rows_on(ex, with_generated(f"SELECT * FROM {_SOURCE}", table, schema),
                                                _SOURCE, data), schema)
    with ex._registered() as register:
        result = ex._sql(with_generated(f"SELECT * FROM {register(data)}", table, schema))
    return ex._conform(result, schema)


# --- refusals --------------------------------------------------------------------------------

def _generated_column(name: str) -> str:
    return f'\nDETAIL:  Column "{name}" is a generated column.'


def refuse_values(schema: TableSchema, columns: list[str], source, named: bool) -> None:
    """428C9 if an INSERT of ``source`` into ``columns`` (``named``: its column list names them)
    gives a generated column a value: anything but DEFAULT in a VALUES row, anything at all from
    a query (one not naming its columns: ``insert_projections``, which knows how many it gives).
    ``source`` None: DEFAULT VALUES."""
    for i, name in enumerate(columns):
        if schema.column(name).generated is None or source is None:
            continue
        if isinstance(source, exp.Values) and any(
                not (isinstance(row.expressions[i], exp.Var) and row.expressions[i].name.upper() == "DEFAULT")
                for row in source.expressions if i < len(row.expressions)):
            raise value_given(name)
        if not isinstance(source, exp.Values) and named:
            raise value_given(name)


def value_given(name: str) -> errors.Error:
    """428C9: an INSERT gave the generated column ``name`` a value."""
    return errors.ProgrammingError(f'cannot insert a non-DEFAULT value into column "{name}"'
                                   + _generated_column(name), sqlstate="428C9")


def refuse_updates(schema: TableSchema, assigned, defaults) -> None:
    """428C9 for an UPDATE SET (ON CONFLICT DO UPDATE SET, MERGE's) of a generated column to
    anything but DEFAULT."""
    for name in assigned:
        col = schema.column(name)
        if col is not None and col.generated is not None and name not in defaults:
            raise errors.ProgrammingError(f'column "{name}" can only be updated to DEFAULT'
                                          + _generated_column(name), sqlstate="428C9")


def copied(schema: TableSchema, stmt: st.Copy) -> st.Copy:
    """COPY of a table with generated columns: 42P10 for one in its column list, 0A000 for one
    in COPY FROM's WHERE; without a list, its columns but the generated ones (COPY FROM computes
    them, COPY TO leaves them out), as PostgreSQL's."""
    for name in stmt.columns or ():
        col = schema.column(name)
        if col is not None and col.generated is not None:
            raise errors.ProgrammingError(f'column "{name}" is a generated column\nDETAIL:  Generated columns '
                                          "cannot be used in COPY.", sqlstate="42P10")
    for node in stmt.where.find_all(exp.Column) if stmt.where is not None else ():
        col = schema.column(node.name)
        if col is not None and col.generated is not None:
            raise errors.NotSupportedError("generated columns are not supported in COPY FROM WHERE conditions"
                                           + _generated_column(node.name))
    if stmt.columns is not None:
        return stmt
    columns = tuple(c.name for c in schema.columns if c.generated is None)
    if not stmt.to:
        return replace(stmt, columns=columns)
    select = stmt.query.expression.copy()
    select.set("expressions", [exp.column(exp.to_identifier(c, quoted=True)) for c in columns])
    return replace(stmt, columns=columns, query=replace(stmt.query, expression=select))


def touched(schema: TableSchema, assigned) -> list[str]:
    """The generated columns whose value an UPDATE setting ``assigned`` may change."""
    return [c.name for c in schema.generated if columns_read(c.generated) & set(assigned)]


# --- ALTER TABLE -----------------------------------------------------------------------------

def with_dependent_drops(schema: TableSchema, actions) -> tuple:
    """ALTER TABLE's ``actions`` with, before each DROP COLUMN, the drop of each generated column
    using the column: PostgreSQL drops them along (their dependency is automatic), silently."""
    out = []
    for action in actions:
        if isinstance(action, st.DropColumn):
            out += [replace(action, name=c.name, if_exists=True) for c in schema.generated
                    if c.name != action.name and action.name in columns_read(c.generated)]
        out.append(action)
    return tuple(out)


def check_retype(table: str, schema: TableSchema, action: st.AlterColumn) -> None:
    """ALTER COLUMN TYPE as PostgreSQL allows it: not of a column a generated one uses (0A000),
    not with USING for a generated one (42P16: its values are its expression's)."""
    col = schema.require(action.name, table)
    if col.generated is not None and action.using is not None:
        raise errors.ProgrammingError("cannot specify USING when altering type of generated column"
                                      + _generated_column(col.name), sqlstate="42P16")
    for user in schema.generated:
        if col.name in columns_read(user.generated):
            raise errors.NotSupportedError(f'cannot alter type of a column used by a generated column\nDETAIL:  '
                                           f'Column "{col.name}" is used by generated column "{user.name}".')


def renamed_column(schema: TableSchema, old: str, new: str) -> TableSchema:
    """``schema``'s generation expressions with the column ``old`` called ``new``."""
    if not schema.generated:
        return schema
    return replace(schema, columns=tuple(
        replace(c, generated=checks.renamed_in(c.generated, old, new))
        if c.generated is not None and old in columns_read(c.generated) else c for c in schema.columns))
