"""inet and cidr values compared, sorted and operated on as PostgreSQL's (network.c), not as text.

A value is held as its text (parser/inet_input.py: one text per value), which DuckDB sees as a
VARCHAR. Equality of two values of one type is equality of their texts, so DISTINCT, GROUP BY,
joins and keys need nothing; the rest does, where an operand is a network value - an inet or
cidr column (a subquery's or a CTE's output column that is one: ``column_scope.derived``), a
cast to inet / cidr (parser/semantics.py makes it ``txl_inet(x)`` / ``txl_cidr(x)``) or a
network function's result:

- a comparison (``=``, ``<>``, ``<``, ..., ``IS [NOT] DISTINCT FROM``, ``BETWEEN``, ``IN (...)``)
  with another network value, a string constant (read as inet now, 22P02) or a parameter (read
  as inet when it runs) compares order keys (``inet_input.order_key``: network_cmp's order);
- ``ORDER BY`` a network value sorts by its key (engine/jsonb_order.py's ``_sorted_by`` finds
  what an item sorts by), ``min`` / ``max`` take the value of the least / greatest key;
- ``<<``, ``>>`` (contained, contains; ``inet_contained_by_or_equals`` and kin for ``<<=`` /
  ``>>=``, which the parser does not read), ``&&``, ``~``, ``&``, ``|``, ``+`` / ``-`` an
  integer, ``inet - inet`` are functions-net's operators;
- ``x::text`` and ``text(x)`` give the address with its mask always (``10.1.2.3/32``), as
  PostgreSQL's cast; ``pg_typeof(x)`` is inet or cidr; ``abbrev`` and ``set_masklen`` of a cidr
  are cidr's; ``inet::cidr`` clears the bits right of the mask (text into a cidr is refused if
  any are set).

Nothing is looked at while no table the transaction sees has such a column
(``Context.may_have_columns("inet")``) and the parser marked no network function or cast in the
statement (``inet_input.NETWORK_VALUES``). The functions are Python functions DuckDB calls
(``FUNCTIONS``), one row at a time: no other statement pays for them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pyarrow as pa
from sqlglot import exp

from txlake.engine import column_scope
from txlake.engine.jsonb_order import (_constant, _float_checked, _one_column_selects, _sorted_by, _star, assignment,
                                       bottom_up)
from txlake.parser import inet_input as net
from txlake.parser.semantics import CONCAT_TEXT, TEXT_MACRO, network_constant
from txlake.storage.schema import ColumnType, TableSchema

if TYPE_CHECKING:
    from txlake.engine.executor import Context

KEY = "txl_inet_key"
_TEXT = "txl_inet_text"
# inet::cidr, and a cidr column's taking of an inet value, as PostgreSQL's assignment cast does
# (inet_to_cidr: the bits right of the mask cleared); text goes through cidr's input, which
# refuses them (22P02)
TO_CIDR = "txl_to_cidr"

# (name, function, parameter types, return type), registered by engine/dialect.py
FUNCTIONS = (
    ("txl_inet", net.canonical, ["VARCHAR"], "VARCHAR"),
    ("txl_cidr", lambda text: net.canonical(text, True), ["VARCHAR"], "VARCHAR"),
    (TO_CIDR, net.to_cidr, ["VARCHAR"], "VARCHAR"),
    (KEY, net.order_key, ["VARCHAR"], "BLOB"),
    (_TEXT, net.text_of, ["VARCHAR"], "VARCHAR"),
    (net.FUNCTIONS["host"], net.host, ["VARCHAR"], "VARCHAR"),
    (net.FUNCTIONS["abbrev"], lambda text: net.abbrev(text, False), ["VARCHAR"], "VARCHAR"),
    ("txl_cidr_abbrev", lambda text: net.abbrev(text, True), ["VARCHAR"], "VARCHAR"),
    (net.FUNCTIONS["broadcast"], net.broadcast, ["VARCHAR"], "VARCHAR"),
    (net.FUNCTIONS["network"], net.network, ["VARCHAR"], "VARCHAR"),
    (net.FUNCTIONS["netmask"], net.netmask, ["VARCHAR"], "VARCHAR"),
    (net.FUNCTIONS["hostmask"], net.hostmask, ["VARCHAR"], "VARCHAR"),
    (net.FUNCTIONS["masklen"], net.masklen, ["VARCHAR"], "INTEGER"),
    (net.FUNCTIONS["family"], net.family, ["VARCHAR"], "INTEGER"),
    (net.FUNCTIONS["set_masklen"], lambda text, bits: net.set_masklen(text, bits, False), ["VARCHAR", "INTEGER"],
     "VARCHAR"),
    ("txl_cidr_set_masklen", lambda text, bits: net.set_masklen(text, bits, True), ["VARCHAR", "INTEGER"], "VARCHAR"),
    (net.FUNCTIONS["inet_same_family"], net.same_family, ["VARCHAR", "VARCHAR"], "BOOLEAN"),
    (net.FUNCTIONS["inet_merge"], net.merge, ["VARCHAR", "VARCHAR"], "VARCHAR"),
    ("txl_inet_contained", lambda a, b: net.contained(a, b, False), ["VARCHAR", "VARCHAR"], "BOOLEAN"),
    ("txl_inet_contained_or_equal", lambda a, b: net.contained(a, b, True), ["VARCHAR", "VARCHAR"], "BOOLEAN"),
    ("txl_inet_overlaps", net.overlaps, ["VARCHAR", "VARCHAR"], "BOOLEAN"),
    ("txl_inet_not", net.bitwise_not, ["VARCHAR"], "VARCHAR"),
    ("txl_inet_and", lambda a, b: net.bitwise(a, b, "AND"), ["VARCHAR", "VARCHAR"], "VARCHAR"),
    ("txl_inet_or", lambda a, b: net.bitwise(a, b, "OR"), ["VARCHAR", "VARCHAR"], "VARCHAR"),
    ("txl_inet_plus", net.plus, ["VARCHAR", "BIGINT"], "VARCHAR"),
    ("txl_inet_minus", net.minus, ["VARCHAR", "VARCHAR"], "BIGINT"),
)
# PostgreSQL's names of the functions behind <<= and >>= (sqlglot reads neither operator)
_NAMED_OPERATORS = {"inet_contained_by_or_equals": ("txl_inet_contained_or_equal", False),
                    "inet_contains_or_equals": ("txl_inet_contained_or_equal", True),
                    "inet_contained_by": ("txl_inet_contained", False), "inet_contains": ("txl_inet_contained", True)}
# the type of a function's result (set_masklen's: its argument's)
_RESULTS = {"txl_inet": "INET", "txl_cidr": "CIDR", TO_CIDR: "CIDR", "txl_net_broadcast": "INET",
            "txl_net_network": "CIDR", "txl_net_netmask": "INET", "txl_net_hostmask": "INET",
            "txl_net_inet_merge": "CIDR",
            "txl_inet_not": "INET", "txl_inet_and": "INET", "txl_inet_or": "INET", "txl_inet_plus": "INET",
            "txl_cidr_set_masklen": "CIDR"}
_COMPARISONS = (exp.EQ, exp.NEQ, exp.LT, exp.LTE, exp.GT, exp.GTE, exp.NullSafeEQ, exp.NullSafeNEQ)
_OPERATORS = {exp.BitwiseLeftShift: ("txl_inet_contained", False), exp.BitwiseRightShift: ("txl_inet_contained", True),
              exp.ArrayOverlaps: ("txl_inet_overlaps", False), exp.BitwiseAnd: ("txl_inet_and", False),
              exp.BitwiseOr: ("txl_inet_or", False)}


def names_network(schema: TableSchema, where: exp.Expression) -> bool:
    """Does ``where`` name an inet or cidr column of ``schema`` (a predicate SERIALIZABLE reads,
    which its own connection would compare by the texts: engine/executor.py ``_read``)?"""
    names = schema.network_columns
    return bool(names) and any(n.name in names for n in where.find_all(exp.Column))


def inet_sources(ctx: Context, source: exp.Expression) -> set[int]:
    """Which values of an INSERT's ``source`` (VALUES, or a query) are inet values, by position."""
    if isinstance(source, exp.Values):
        kind = _kind_of(lambda column: None, None)
        return {i for row in source.expressions for i, value in enumerate(row.expressions) if kind(value) == "INET"}
    return {i for i, kind in enumerate(_output_kinds(ctx, source) or ()) if kind == "INET"}


def is_inet(value: exp.Expression, columns: dict[str, str] | None = None) -> bool:
    """Is ``value`` an inet value (``columns``: the network columns of the table an UPDATE assigns
    to, which its unqualified names are)?"""
    columns = columns or {}
    return _kind_of(lambda column: columns.get(column.name) if not column.table else None, None)(value) == "INET"


def rewritten(ctx: Context, expression: exp.Expression, tables: column_scope.StatementTables | None = None
              ) -> exp.Expression:
    """``expression`` with its network values compared, sorted and operated on as PostgreSQL's
    (see the module's docstring); ``expression`` itself if it has none."""
    marked = expression.meta.get(net.NETWORK_VALUES)
    if not marked and not ctx.may_have_columns("inet"):
        return expression
    tables = tables if tables is not None else column_scope.StatementTables(ctx, expression)
    column_kind = column_scope.resolver(ctx, expression, lambda col: col.type.kind if col.type.kind in ("INET", "CIDR")
                                        else None, tables)
    if column_kind is None and not marked:
        return expression
    return _in_network_order(expression, column_kind or (lambda column: None), tables)


def _in_network_order(expression: exp.Expression, column_kind, tables) -> exp.Expression:
    kind = _kind_of(column_kind, tables)

    def comparable(node: exp.Expression) -> bool:  # (beside a network value: read as one)
        node = node.unnest()
        return isinstance(node, (exp.Placeholder, exp.Null)) or (isinstance(node, exp.Literal) and node.is_string) \
            or kind(node) is not None

    def of_network(a: exp.Expression, b: exp.Expression) -> bool:
        return kind(a) is not None and comparable(b) or comparable(a) and kind(b) is not None

    changed = False

    def visit(node: exp.Expression) -> exp.Expression:
        nonlocal changed
        replacement = _visit(node, kind, of_network, comparable, tables)
        changed = changed or replacement is not node
        return replacement

    result = bottom_up(expression, visit)
    return result if changed else expression


def _visit(node, kind, of_network, comparable, tables) -> exp.Expression:
    """``node`` as PostgreSQL's operator or function of network values, or ``node`` itself."""
    if isinstance(node, _COMPARISONS) and not assignment(node) and of_network(node.this, node.expression):
        return type(node)(this=_key(node.this), expression=_key(node.expression))
    if isinstance(node, exp.In) and node.expressions and kind(node.this) \
            and all(comparable(e) for e in node.expressions):
        node.set("this", _key(node.this))
        node.set("expressions", [_key(e) for e in node.expressions])
        return node.copy()
    if isinstance(node, exp.In) and isinstance(node.args.get("query"), exp.Subquery) and kind(node.this) \
            and (selects := _one_column_selects(node.args["query"].this)) \
            and all(kind(select.expressions[0].unalias()) for select in selects):
        node.set("this", _key(node.this))  # (an inet and a cidr of one address are equal: not their texts)
        for select in selects:
            select.set("expressions", [_key(select.expressions[0].unalias())])
        return node.copy()
    if isinstance(node, exp.Coalesce) and kind(node) and any(_is_text(v) for v in (node.this, *node.expressions)):
        return exp.Coalesce(this=_value(node.this), expressions=[_value(v) for v in node.expressions])
    if isinstance(node, exp.Between) and kind(node.this) and comparable(node.args["low"]) \
            and comparable(node.args["high"]):
        for part in ("this", "low", "high"):
            node.set(part, _key(node.args[part]))
        return node.copy()
    if isinstance(node, exp.Ordered):
        sorted_by = _sorted_by(node, tables)
        if sorted_by is not None and kind(sorted_by[0]):
            node.set("this", _key(sorted_by[1]))
            return node.copy()
        return node
    if isinstance(node, (exp.Max, exp.Min)) and kind(node.this):
        value = node.this.copy()
        return exp.Anonymous(this="arg_max" if isinstance(node, exp.Max) else "arg_min",
                             expressions=[value, _key(value)])
    if type(node) in _OPERATORS:
        sides = (_constant(node.this), _constant(node.expression))
        if of_network(*sides):
            name, swapped = _OPERATORS[type(node)]
            left, right = (_value(s) for s in (sides[::-1] if swapped else sides))
            return exp.Anonymous(this=name, expressions=[left, right])
        return node
    if isinstance(node, exp.BitwiseNot) and kind(node.this):
        return exp.Anonymous(this="txl_inet_not", expressions=[node.this.copy()])
    checked = _float_checked(node) if isinstance(node, exp.Anonymous) else None
    if isinstance(checked or node, (exp.Add, exp.Sub)):
        return _arithmetic(checked or node, kind) or node
    if isinstance(node, exp.Anonymous):
        return _function(node, kind)
    return node


def _arithmetic(node: exp.Add | exp.Sub, kind) -> exp.Expression | None:
    """``inet + n``, ``n + inet``, ``inet - n``, ``inet - inet`` (or a string constant, read as one)."""
    a, b = node.this, node.expression
    if isinstance(node, exp.Sub) and kind(a) and (kind(b) or _is_text(b)):
        return exp.Anonymous(this="txl_inet_minus", expressions=[a.copy(), _value(b)])
    if kind(b) and isinstance(node, exp.Add):
        a, b = b, a
    if not kind(a):
        return None
    n = b.copy() if isinstance(node, exp.Add) else exp.Neg(this=exp.Paren(this=b.copy()))
    return exp.Anonymous(this="txl_inet_plus", expressions=[a.copy(), exp.cast(n, "BIGINT")])


def _function(node: exp.Anonymous, kind) -> exp.Expression:
    """A function of a network value with a form of its type (``abbrev(cidr)``, ``x::text``),
    or a named operator (``inet_contains_or_equals(a, b)``)."""
    name, args = node.name.lower(), node.expressions
    if not args:
        return node
    if name in _NAMED_OPERATORS and len(args) == 2:
        function, swapped = _NAMED_OPERATORS[name]
        left, right = (_value(a) for a in (args[::-1] if swapped else args))
        return exp.Anonymous(this=function, expressions=[left, right])
    if name == TEXT_MACRO and kind(args[0]) and not node.meta.get(CONCAT_TEXT):  # (text(x), x::text; not ||'s)
        return exp.Anonymous(this=_TEXT, expressions=[args[0].copy()])
    if name == "pg_typeof" and kind(args[0]):
        return exp.Literal.string(kind(args[0]).lower())
    if kind(args[0]) != "CIDR" and not (name == "txl_cidr" and kind(args[0])):
        return node
    forms = {net.FUNCTIONS["abbrev"]: "txl_cidr_abbrev", net.FUNCTIONS["set_masklen"]: "txl_cidr_set_masklen",
             "txl_cidr": TO_CIDR}
    if name in forms:
        return exp.Anonymous(this=forms[name], expressions=[a.copy() for a in args])
    return node


def _is_text(node: exp.Expression) -> bool:
    node = node.unnest()
    return isinstance(node, (exp.Placeholder, exp.Null)) or isinstance(node, exp.Literal) and node.is_string


def _value(node: exp.Expression) -> exp.Expression:
    """A network operand; a string constant read as an inet now (22P02), a parameter when it runs."""
    node = node.unnest()
    if isinstance(node, exp.Literal) and node.is_string:
        return exp.Literal.string(network_constant(node.this))
    if isinstance(node, exp.Placeholder):
        return exp.Anonymous(this="txl_inet", expressions=[node.copy()])
    return node.copy()


def _key(node: exp.Expression) -> exp.Expression:
    """The order key of a network operand (``_value``)."""
    return exp.Anonymous(this=KEY, expressions=[_value(node)])


def marked(ctx: Context, expression: exp.Expression, table: pa.Table) -> pa.Table:
    """A query's result with its network columns marked as their type (``ColumnType.field``),
    as a stored column's are, so a cursor fetches them as psycopg does (``ipaddress`` objects)
    whichever way the result was made: DuckDB gives them as plain text."""
    if not expression.meta.get(net.NETWORK_VALUES) and not ctx.may_have_columns("inet"):
        return table
    kinds = _output_kinds(ctx, expression)
    if not kinds or len(kinds) != table.num_columns:
        return table
    for i, kind in enumerate(kinds):
        if kind is not None and pa.types.is_string(table.field(i).type):
            table = table.set_column(i, ColumnType(kind).field(table.field(i).name), table.column(i))
    return table


def _output_kinds(ctx: Context, expression: exp.Expression) -> list[str | None] | None:
    """INET, CIDR or None for each output column of a query (a set operation's: its first
    query's); None where they cannot be told (``SELECT *`` of a subquery)."""
    select = expression
    while isinstance(select, (exp.SetOperation, exp.Subquery)):
        select = select.this
    if not isinstance(select, exp.Select):
        return None
    tables = column_scope.StatementTables(ctx, expression)
    column_kind = column_scope.resolver(ctx, expression, lambda col: col.type.kind if col.type.kind in ("INET", "CIDR")
                                        else None, tables) or (lambda column: None)
    outputs = _star(select, tables) if len(select.expressions) == 1 and isinstance(select.expressions[0], exp.Star) \
        else select.expressions
    if any(isinstance(o, exp.Star) or isinstance(o, exp.Column) and isinstance(o.this, exp.Star) for o in outputs):
        return None
    kind = _kind_of(column_kind, tables)
    return [kind(o.unalias()) for o in outputs]


def _kind_of(column_kind, tables):
    """The network type of an expression (INET, CIDR) or None; ``column_kind`` tells a table's column's."""
    def kind(node: exp.Expression) -> str | None:
        node = node.unnest()
        if isinstance(node, (exp.Max, exp.Min, exp.Window)):  # (a result's, not yet arg_max's)
            return kind(node.this)
        if isinstance(node, (exp.Coalesce, exp.Case)):  # (of its values' type)
            values = (node.this, *node.expressions) if isinstance(node, exp.Coalesce) else \
                (*(i.args["true"] for i in node.args.get("ifs") or ()), node.args.get("default"))
            return next((k for v in values if v is not None and (k := kind(v)) is not None), None)
        if isinstance(node, exp.BitwiseNot):  # (the operators of a result, not yet rewritten)
            return "INET" if kind(node.this) else None
        if isinstance(node, (exp.BitwiseAnd, exp.BitwiseOr, exp.Add)):
            return "INET" if kind(node.this) or kind(node.expression) else None
        if isinstance(node, exp.Sub):  # (inet - inet is a bigint)
            return "INET" if kind(node.this) and not kind(node.expression) and not _is_text(node.expression) else None
        if isinstance(node, exp.Anonymous):
            name = node.name.lower()
            if name == net.FUNCTIONS["set_masklen"] and node.expressions:
                return kind(node.expressions[0])
            if (checked := _float_checked(node)) is not None:
                return kind(checked)
            return _RESULTS.get(name)
        if isinstance(node, exp.Column) and not isinstance(node.this, exp.Star):
            source = column_scope.derived(node, tables) if tables is not None else None
            return kind(source) if source is not None else column_kind(node)
        return None
    return kind
