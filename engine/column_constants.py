"""A string constant beside a column takes the column's type, as PostgreSQL's operator
resolution gives it (typeconv.sgml, "Operators", step 2.a: an unknown operand is assumed to be
of the other operand's type, where an operator of two of that type exists).

The parser takes a constant beside another constant or a cast so (parser/semantics.py
``typed_operands``); a column's type it cannot know, and DuckDB's rules read the constant
otherwise (``id = '2.5'`` matched id 3, ``id + '3'`` was 42725). Here, knowing the statement's
tables (engine/column_scope.py), the same rule applies where the other operand is a table's
column - qualified by its table or alias, in a join, or a subquery's or CTE's output column
that is one: ``id = '2.5'``, ``id IN ('1', '2.5')`` and ``id BETWEEN '1' AND '2.5'`` are 22P02,
``id + '3'`` is an integer sum, ``n + '1.25'`` a numeric one, ``ts - '1 day'`` 22007 (timestamp
- timestamp), ``b = 'maybe'`` 22P02 in PostgreSQL's words, and ``a || '{3}'`` of an array
column appends (``'7'``: 22P02, malformed array literal). Text, jsonb, enum and uuid columns
keep theirs (no operator of two of them takes a constant so here, or engine/jsonb_order.py and
engine/user_types.py read it); so does a constant beside anything whose type is not known.

A query's rewrite depends on its tables' schemas only, so its cached plan holds it
(engine/executor.py ``_query_plan``). A statement with no string constant beside a column - a
parameter is none - is left as it is after one walk of its tree.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from sqlglot import exp

from txlake.engine import column_scope
from txlake.engine.jsonb_order import as_written
from txlake.parser.semantics import ARRAY_CONCAT, postgres_cast, typed_operands
from txlake.storage.schema import Column, ColumnType

if TYPE_CHECKING:
    from txlake.engine.executor import Context

# the column kinds a string constant beside them is read as (parser/semantics.py _SAME_TYPE_OPERATORS)
_TYPED_KINDS = frozenset({"SMALLINT", "INT", "BIGINT", "DECIMAL", "REAL", "DOUBLE", "DATE", "TIME", "TIMESTAMP",
                          "TIMESTAMPTZ", "BOOLEAN", "ARRAY"})


def rewritten(ctx: Context, expression: exp.Expression, tables: column_scope.StatementTables | None = None
              ) -> exp.Expression:
    """``expression`` with each string constant beside a column of a known type read as a value
    of that type (see the module's docstring); ``expression`` itself if it has none."""
    if expression.find(exp.Column) is None or not any(_beside_column(n) for n in expression.find_all(exp.Literal)):
        return expression
    tables = tables if tables is not None else column_scope.StatementTables(ctx, expression)
    column_type = column_scope.resolver(ctx, expression, _operand_type, tables)
    if column_type is None:
        return expression

    def type_of(node: exp.Expression) -> exp.DataType | None:
        node = as_written(node.unnest())
        if not isinstance(node, exp.Column) or isinstance(node.this, exp.Star):
            return None
        source = column_scope.derived(node, tables)  # (a subquery's, a CTE's output column)
        if source is not None:
            return type_of(source)
        return column_type(node)

    expression = expression.copy()
    for made in typed_operands(expression, type_of):
        if isinstance(made, exp.Cast):
            made = made.replace(postgres_cast(made))
        if isinstance(made.parent, exp.DPipe):  # (an array's ||, the parser made text's)
            concatenation = made.parent
            sides = [as_written(side) for side in (concatenation.this, concatenation.expression)]
            concatenation.replace(exp.Anonymous(this=ARRAY_CONCAT, expressions=[s.copy() for s in sides]))
    return expression


def _beside_column(literal: exp.Literal) -> bool:
    """Is ``literal`` a string constant with a column beside it (an operand of its parent's,
    the parser's text form of one for ``||``)?"""
    return literal.is_string and literal.parent is not None and any(
        isinstance(n, exp.Column) or as_written(n) is not n for n in literal.parent.iter_expressions())


def _operand_type(column: Column) -> exp.DataType | None:
    """The type a string constant beside ``column`` is read as, or None: left as it is."""
    return _data_type(column.type) if column.type.kind in _TYPED_KINDS and column.enum is None else None


@functools.lru_cache(maxsize=256)
def _data_type(column_type: ColumnType) -> exp.DataType:
    """The sqlglot type of a column's (a numeric's without its precision: PostgreSQL's unknown
    becomes a numeric, read by its digits, not rounded to the column's scale)."""
    if column_type.kind == "DECIMAL":
        return exp.DataType.build("DECIMAL")
    return exp.DataType.build(column_type.sql(), dialect="duckdb")
