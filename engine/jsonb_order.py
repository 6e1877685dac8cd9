"""jsonb columns compared and sorted in PostgreSQL's btree order of jsonb, not by their text.

A jsonb value is held as its normalised text (engine/jsonb.py), which DuckDB compares as text:
``'10' < '9'``, ``{"b": 1} < [1]``. PostgreSQL orders jsonb Object > Array > Boolean > Number >
String > Null, numbers by value, arrays and objects by size then member by member (engine/
jsonb.py ``order_key``, a BLOB DuckDB compares byte by byte). Where the parser sees a jsonb
operand (a cast, an operator's result), it rewrites ``<`` ... itself (parser/json_ops.py); two
columns it cannot tell, so the engine does, knowing the tables (engine/column_scope.py). A
jsonb value here is a jsonb column (a subquery's or a CTE's: what its query's output column
is, ``column_scope.derived``) or an evidently jsonb expression (``doc -> 'a'``, a cast):

- a comparison (``=``, ``<>``, ``<``, ``<=``, ``>``, ``>=``, ``IS [NOT] DISTINCT FROM``,
  ``BETWEEN``, ``IN (...)``) of a jsonb column with another jsonb value, a string constant or a
  parameter (read as jsonb, as PostgreSQL reads them: 22P02 if no JSON) compares their order keys
  (equal keys: equal values, as jsonb's ``=``: ``'10.0'`` equals ``10``), as does ``IN`` a
  subquery of one jsonb column;
- ``ORDER BY`` a jsonb value sorts by its order key: a query's item - an expression, an output
  column's alias or number (``ORDER BY w``, ``ORDER BY 2``), in a DISTINCT query too - a set
  operation's (``... UNION ... ORDER BY 1``), a window's, an aggregate's (``jsonb_agg(v ORDER BY v)``);
- ``min`` / ``max`` of a jsonb value is 42883, as PostgreSQL has neither for jsonb;
- ``||``, ``-`` and ``@>`` / ``<@`` of a jsonb column with a constant, a parameter or another
  jsonb value are jsonb's (parser/json_ops.py's, which the parser uses for a cast): the parser
  left ``v || '{"a": 1}'`` joining texts (a jsonb column and a text one still do, as
  PostgreSQL's ``anynonarray || text``).

A CHECK constraint's expression compares alike (``in_check``: engine/checks.py knows its table).
SERIALIZABLE's read predicates are checked again on a connection comparing texts, so one naming
a jsonb column reads the whole table (``names_jsonb``).

Nothing is looked at while no table the transaction sees has a jsonb column
(engine/executor.py ``Context.may_have_columns``: the catalog counts them; a temporary table,
or one the transaction made or altered, is among its changes). A query's rewrite depends on
its tables' schemas only, so its cached plan holds it (engine/executor.py ``_query_plan``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlglot import exp

from txlake import errors
from txlake.engine import column_scope, jsonb as jsonb_text
from txlake.engine.errors_map import _HINT, json_input_error
from txlake.parser.json_ops import JSONB_ORDER, concatenation, containment, deletion, is_jsonb
from txlake.parser.semantics import (ARRAY_CONCAT, ARRAY_CONSTANT, ARRAY_ELEMENTS, CONCAT_TEXT, FLOAT_SUM_MACRO,
                                     nested_form)
from txlake.storage.schema import TableSchema

if TYPE_CHECKING:
    from txlake.engine.executor import Context

_COMPARISONS = (exp.EQ, exp.NEQ, exp.LT, exp.LTE, exp.GT, exp.GTE, exp.NullSafeEQ, exp.NullSafeNEQ)
_CONTAINMENT = (exp.ArrayContainsAll, exp.ArrayContainedBy)
# (|| of a jsonb column and a constant is a DPipe, its column as text; of two columns ARRAY_CONCAT)
_LOOKED_AT = (exp.Ordered, exp.In, exp.Between, exp.Max, exp.Min, exp.DPipe, exp.Sub, *_CONTAINMENT, *_COMPARISONS)


def names_jsonb(schema: TableSchema, where: exp.Expression) -> bool:
    """Does ``where`` name a jsonb column of ``schema`` (as a predicate SERIALIZABLE reads, which
    its own connection would compare by the texts: engine/executor.py ``_read``)?"""
    names = schema.jsonb_columns
    return bool(names) and any(n.name in names for n in where.find_all(exp.Column))


def rewritten(ctx: Context, expression: exp.Expression, tables: column_scope.StatementTables | None = None
              ) -> exp.Expression:
    """``expression`` with its jsonb values compared and sorted in jsonb's order (see the
    module's docstring); ``expression`` itself if it has none (``tables``: the statement's,
    looked up, engine/column_scope.py)."""
    if not ctx.may_have_columns("jsonb") or not any(isinstance(n, _LOOKED_AT) or _concatenation(n)
                                   for n in expression.find_all(*_LOOKED_AT, exp.Anonymous)):
        return expression
    tables = tables if tables is not None else column_scope.StatementTables(ctx, expression)
    jsonb_column = column_scope.resolver(ctx, expression, lambda col: True if col.type.kind == "JSONB" else None,
                                         tables)
    if jsonb_column is None:
        return expression
    return _in_order(expression, lambda column: jsonb_column(column) is True, tables)


def in_check(expression: exp.Expression, names: frozenset[str]) -> exp.Expression:
    """A CHECK expression of a table whose jsonb columns are ``names`` (its columns unqualified,
    parser/semantics.py's rewrite done: engine/checks.py) with its jsonb values compared in
    jsonb's order, as a statement's are."""
    if not names:
        return expression
    return _in_order(expression, lambda column: column.name in names, None)


def _in_order(expression: exp.Expression, jsonb_column, tables: column_scope.StatementTables | None
              ) -> exp.Expression:
    """``rewritten``'s work, ``jsonb_column`` telling a table's jsonb column by its node (a derived
    table's column is what its query's output column is, where ``tables`` are known)."""
    def jsonb(node: exp.Expression) -> bool:
        node = node.unnest()
        if (sides := _concatenation(node)) is not None:  # (one this rewrite turns into jsonb's)
            return of_jsonb(*sides)
        if isinstance(node, exp.Sub) or _float_checked(node):
            return jsonb(_float_checked(node) or node.this)
        if isinstance(node, exp.Coalesce):  # (a jsonb one's arguments are read as jsonb: its type)
            return any(jsonb(e) for e in (node.this, *node.expressions))
        if isinstance(node, exp.Case):
            return any(jsonb(v) for v in (*(i.args["true"] for i in node.args.get("ifs") or ()),
                                          node.args.get("default")) if v is not None)
        if is_jsonb(node) or not isinstance(node, exp.Column):
            return is_jsonb(node)
        source = column_scope.derived(node, tables) if tables is not None else None  # (a subquery's, a CTE's)
        return jsonb(source) if source is not None else jsonb_column(node)

    def comparable(node: exp.Expression) -> bool:  # (with a jsonb value: read as jsonb)
        node = node.unnest()
        return isinstance(node, (exp.Placeholder, exp.Null)) or (isinstance(node, exp.Literal) and node.is_string) \
            or jsonb(node)

    def of_jsonb(a: exp.Expression, b: exp.Expression) -> bool:  # (an operator of a jsonb value and another)
        return jsonb(a) and comparable(b) or comparable(a) and jsonb(b)

    changed = False

    def visit(node):
        nonlocal changed
        if isinstance(node, (exp.Max, exp.Min)) and jsonb(node.this):
            raise errors.ProgrammingError(f"function {node.key}(jsonb) does not exist\n{_HINT}", sqlstate="42883")
        if isinstance(node, _COMPARISONS) and not assignment(node):
            if of_jsonb(node.this, node.expression):
                changed = True
                return type(node)(this=_key(node.this), expression=_key(node.expression))
        elif isinstance(node, exp.In) and node.expressions and jsonb(node.this) \
                and all(comparable(e) for e in node.expressions):
            changed = True
            node.set("this", _key(node.this))
            node.set("expressions", [_key(e) for e in node.expressions])
        elif isinstance(node, exp.In) and isinstance(node.args.get("query"), exp.Subquery) and jsonb(node.this) \
                and (selects := _one_column_selects(node.args["query"].this)) \
                and jsonb(selects[0].expressions[0].unalias()):
            changed = True
            node.set("this", _key(node.this))
            for select in selects:
                select.set("expressions", [_key(select.expressions[0].unalias())])
        elif isinstance(node, exp.Between) and jsonb(node.this) and comparable(node.args["low"]) \
                and comparable(node.args["high"]):
            changed = True
            for part in ("this", "low", "high"):
                node.set(part, _key(node.args[part]))
        elif isinstance(node, exp.Ordered):
            sorted_by = _sorted_by(node, tables)
            if sorted_by is not None and jsonb(sorted_by[0]):
                changed = True
                node.set("this", _key(sorted_by[1]))
        # jsonb's ||, -, @> / <@ of a jsonb column, as the parser does for a cast
        elif (sides := _concatenation(node)) is not None and of_jsonb(*sides):
            changed = True
            return concatenation(*sides)
        elif isinstance(node, exp.Sub) and jsonb(node):
            changed = True
            return deletion(node.this, node.expression)
        elif (checked := _float_checked(node)) is not None and is_jsonb(checked):  # (its Sub: rewritten just now)
            return checked
        elif isinstance(node, _CONTAINMENT) and of_jsonb(
                *(sides := (_constant(node.this), _constant(node.expression)))):
            changed = True  # (a string constant read as an array - '{}' is one too - is jsonb here)
            return containment(type(node)(this=sides[0], expression=sides[1]))
        return node
    result = bottom_up(expression, visit)
    return result if changed else expression


def bottom_up(expression: exp.Expression, visit) -> exp.Expression:
    """A copy of ``expression`` with each node replaced by ``visit(node)`` (the node itself:
    kept), operands first (``doc || a || b``, ``(doc || a) = b``: an operator sees its operands rewritten)."""
    result = expression.copy()
    for node in reversed(list(result.dfs())):
        replacement = visit(node)
        if replacement is not node:
            if node is result:
                result = replacement
            else:
                node.replace(replacement)
    return result


def _concatenation(node: exp.Expression) -> tuple[exp.Expression, exp.Expression] | None:
    """The operands of ``a || b`` as written, where parser/semantics.py left it a DPipe (a side
    in a text form of its own: ``as_written``) or ARRAY_CONCAT's (with its operands again: type witnesses)."""
    if isinstance(node, exp.DPipe):
        return as_written(node.this), as_written(node.expression)
    if isinstance(node, exp.Anonymous) and node.name in (ARRAY_CONCAT, nested_form(ARRAY_CONCAT)) and \
            len(node.expressions) in (2, 4):
        return node.expressions[0], node.expressions[1]
    return None


def _float_checked(node: exp.Expression) -> exp.Expression | None:
    """The ``a - b`` parser/semantics.py routed through its float check (FLOAT_SUM_MACRO), or None."""
    if isinstance(node, exp.Anonymous) and node.name == FLOAT_SUM_MACRO and node.expressions:
        return node.expressions[0]
    return None


def _constant(node: exp.Expression) -> exp.Expression:
    """``node``, or the string constant parser/semantics.py read as an array beside ``@>`` / ``<@``
    (either taken through an array's dimensions there: ARRAY_ELEMENTS)."""
    if isinstance(node, exp.Anonymous) and node.name == ARRAY_ELEMENTS and node.expressions:
        node = node.expressions[0]
    written = node.meta.get(ARRAY_CONSTANT) if isinstance(node, exp.Anonymous) else None
    return written if written is not None else node


def as_written(node: exp.Expression) -> exp.Expression:
    """``node`` without the text form parser/semantics.py gave a side of ``||`` (not a cast to
    text the statement wrote: ``v::text || 'x'`` joins texts)."""
    if isinstance(node, exp.Anonymous) and node.meta.get(CONCAT_TEXT) and node.expressions:
        return node.expressions[0]
    return node


def _one_column_selects(query: exp.Expression) -> list[exp.Select]:
    """The queries of a subquery giving one column (a set operation's: each of them), or []."""
    if isinstance(query, exp.SetOperation):
        left, right = _one_column_selects(query.this), _one_column_selects(query.expression)
        return left + right if left and right else []
    if isinstance(query, exp.Subquery):
        return _one_column_selects(query.this)
    return [query] if isinstance(query, exp.Select) and len(query.expressions) == 1 else []


def assignment(node: exp.Expression) -> bool:
    """Is ``node`` an UPDATE's (ON CONFLICT's) ``SET col = value``, no comparison?"""
    return node.arg_key == "expressions" and isinstance(node.parent, (exp.Update, exp.OnConflict))


def _key(node: exp.Expression) -> exp.Expression:
    """The order key of ``node``; a string constant is read as jsonb now, as PostgreSQL reads it
    when it parses the statement (22P02 whether or not a row reaches the comparison)."""
    constant = node.unnest()
    if isinstance(constant, exp.Literal) and constant.is_string:
        try:
            jsonb_text.jsonb_in(constant.this)
        except jsonb_text.JsonInputError as e:
            raise json_input_error(str(e)) from None
    text = exp.cast(node.copy(), exp.DataType.build("VARCHAR"))
    return exp.Anonymous(this=JSONB_ORDER, expressions=[text])


def _sorted_by(ordered: exp.Ordered, tables: column_scope.StatementTables | None
               ) -> tuple[exp.Expression, exp.Expression] | None:
    """What an ORDER BY item sorts by: (the value whose type decides, the expression DuckDB is to
    sort by the key of), or None if it cannot tell (a number past ``SELECT *`` of a join). A bare name or a
    number is an output column, as PostgreSQL reads it: in a DISTINCT query or a set operation
    the key is of that output column (DuckDB sorts those by their select list only), elsewhere
    of its expression."""
    order = ordered.parent
    owner = order.parent if isinstance(order, exp.Order) else None
    item = ordered.this
    if not isinstance(owner, (exp.Select, exp.SetOperation)):
        return (item, item) if owner is not None else None  # (a window's, an aggregate's)
    select = owner
    while isinstance(select, (exp.SetOperation, exp.Subquery)):  # (a set operation's columns: its first query's)
        select = select.this
    output = _output(select, item, tables) if isinstance(select, exp.Select) else None
    if output is None:
        return None if isinstance(owner, exp.SetOperation) or _is_number(item) else (item, item)
    value = output.unalias()
    if isinstance(owner, exp.SetOperation) or owner.args.get("distinct"):
        name = output.alias_or_name
        return (value, exp.column(name, quoted=True)) if name else None
    return value, value


def _output(select: exp.Select, item: exp.Expression, tables: column_scope.StatementTables | None
            ) -> exp.Expression | None:
    """The output column of ``select`` an ORDER BY item names - by number (past ``SELECT *``
    only of one table: its columns), or by a bare name that is an output column's (its alias,
    or a plain column's name) - else None."""
    outputs = select.expressions
    if _is_number(item):
        n = int(item.this)
        if len(outputs) == 1 and isinstance(outputs[0], exp.Star) and tables is not None:
            outputs = _star(select, tables)
        if any(isinstance(o, exp.Star) or isinstance(o, exp.Column) and isinstance(o.this, exp.Star)
               for o in outputs) or not 1 <= n <= len(outputs):
            return None
        return outputs[n - 1]
    if isinstance(item, exp.Column) and not item.table:
        return next((o for o in outputs if o.alias_or_name == item.name
                     and (isinstance(o, exp.Alias) or isinstance(o, exp.Column))), None)
    return None


def _star(select: exp.Select, tables: column_scope.StatementTables) -> list[exp.Expression]:
    """The columns ``SELECT *`` gives from its one table (``*`` itself if it reads another FROM)."""
    source = select.args.get("from_")
    table = source.this if source is not None else None
    if select.args.get("joins") or not isinstance(table, exp.Table) or not isinstance(table.this, exp.Identifier):
        return select.expressions
    version = tables.lookup(table)
    if version is None:
        return select.expressions
    return [exp.column(c.name, table.alias_or_name, quoted=True) for c in version.schema.columns]


def _is_number(node: exp.Expression) -> bool:
    return isinstance(node, exp.Literal) and node.is_int
