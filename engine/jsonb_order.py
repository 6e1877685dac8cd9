"""jsonb columns compared and sorted in PostgreSQL's btree order of jsonb, not by their text.

A jsonb value is held as its normalised text (engine/jsonb.py), which DuckDB compares as text:
``'10' < '9'``, ``{"b": 1} < [1]``. PostgreSQL orders jsonb Object > Array > Boolean > Number >
String > Null, numbers by value, arrays and objects by size then member by member (engine/
jsonb.py ``order_key``, a BLOB DuckDB compares byte by byte). Where the parser sees a jsonb
operand (a cast, an operator's result), it rewrites ``<`` ... itself (parser/json_ops.py); two
columns it cannot tell, so the engine does, knowing the tables (engine/column_scope.py):

- a comparison (``=``, ``<>``, ``<``, ``<=``, ``>``, ``>=``, ``IS [NOT] DISTINCT FROM``) of two
  jsonb columns compares their order keys (equal keys: equal values, as jsonb's ``=``);
- ``ORDER BY`` a jsonb column (a query's - not a DISTINCT one's, whose ORDER BY DuckDB wants in
  its select list, nor a set operation's - or a window's) sorts by its order key.

Nothing is looked at while no table the transaction sees has a jsonb column (``in_play``: the
catalog counts them; a temporary table, or one the transaction made or altered, is among its
changes). A query's rewrite depends on its tables' schemas only, so its cached plan holds it
(engine/executor.py ``_query_plan``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlglot import exp

from txlake.engine import column_scope
from txlake.parser.json_ops import JSONB_ORDER

if TYPE_CHECKING:
    from txlake.engine.executor import Context

_COMPARISONS = (exp.EQ, exp.NEQ, exp.LT, exp.LTE, exp.GT, exp.GTE, exp.NullSafeEQ, exp.NullSafeNEQ)


def in_play(ctx: Context) -> bool:
    """Might a table of the statement have a jsonb column?"""
    return bool(ctx.catalog.jsonb_tables) or any(
        v is not None and v.schema.has_jsonb for v in ctx.txn.changes.values())


def rewritten(ctx: Context, expression: exp.Expression, tables: column_scope.StatementTables | None = None
              ) -> exp.Expression:
    """``expression`` with its comparisons of two jsonb columns and its ORDER BY jsonb columns
    in jsonb's order (see the module's docstring); ``expression`` itself if it has none
    (``tables``: the statement's, looked up, engine/column_scope.py)."""
    if not in_play(ctx) or not any(isinstance(n, exp.Ordered) or (_column(n.this) and _column(n.expression))
                                   for n in expression.find_all(exp.Ordered, *_COMPARISONS)):
        return expression
    jsonb = column_scope.resolver(ctx, expression, lambda col: True if col.type.kind == "JSONB" else None, tables)
    if jsonb is None:
        return expression

    def is_jsonb(node: exp.Expression) -> bool:
        node = node.unnest()
        return isinstance(node, exp.Column) and jsonb(node) is True

    changed = False

    def visit(node):
        nonlocal changed
        if isinstance(node, _COMPARISONS) and is_jsonb(node.this) and is_jsonb(node.expression):
            changed = True
            return type(node)(this=_key(node.this), expression=_key(node.expression))
        if isinstance(node, exp.Ordered) and _sorted_here(node) and is_jsonb(node.this):
            changed = True
            node.set("this", _key(node.this))
        return node
    result = expression.transform(visit)
    return result if changed else expression


def _column(node: exp.Expression | None) -> bool:
    return node is not None and isinstance(node.unnest(), exp.Column)


def _key(node: exp.Expression) -> exp.Expression:
    text = exp.cast(node.copy(), exp.DataType.build("VARCHAR"))
    return exp.Anonymous(this=JSONB_ORDER, expressions=[text])


def _sorted_here(ordered: exp.Ordered) -> bool:
    """Does this ORDER BY item sort a query's rows by a table column (not an output column's
    alias, which PostgreSQL's ORDER BY reads first), in a query DuckDB lets sort by an
    expression - or a window's?"""
    order = ordered.parent
    owner = order.parent if isinstance(order, exp.Order) else None
    if isinstance(owner, exp.Window):
        return True
    if not isinstance(owner, exp.Select) or owner.args.get("distinct"):
        return False
    name = ordered.this.unnest()
    aliases = {e.alias for e in owner.expressions if isinstance(e, exp.Alias)
               and not (isinstance(e.this, exp.Column) and e.this.name == e.alias)}
    return not (isinstance(name, exp.Column) and not name.table and name.name in aliases)
