"""PostgreSQL's system columns - ``ctid``, ``xmin``, ``xmax``, ``tableoid``, ``cmin``, ``cmax`` - as a statement names
them, found once when it is parsed (engine/system_columns.py gives them their values).

A statement naming none reads its tables as before: nothing here runs at execution. The tid type
is DuckDB's ``TID_TYPE`` struct (block, offset), which compares and takes min / max as PostgreSQL's
tid does; a text value cast to tid, or compared with a tid, is read by the ``TID_IN`` macro and a
tid cast to text is written by ``TID_OUT`` as PostgreSQL writes one: ``(0,1)``.
"""

from __future__ import annotations

from sqlglot import exp

#: the system columns txlake gives values
NAMES = ("ctid", "xmin", "xmax", "tableoid", "cmin", "cmax")
#: every name PostgreSQL keeps for a system column: no user column may take one (42701)
RESERVED = frozenset(NAMES)

TID_IN = "txl_tid_in"
TID_OUT = "txl_tid_out"
#: how DuckDB holds a tid (its field names mark a result column as one: shown as text)
TID_TYPE = "STRUCT(tid_block BIGINT, tid_offset BIGINT)"

COMPARISONS = (exp.EQ, exp.NEQ, exp.LT, exp.LTE, exp.GT, exp.GTE, exp.NullSafeEQ, exp.NullSafeNEQ)
_TEXT_TYPES = (exp.DataType.Type.TEXT, exp.DataType.Type.VARCHAR)


def named(tree: exp.Expression) -> frozenset[str]:
    """The system columns ``tree`` names (a column of one of those names: a view's or a
    subquery's own column named so is told apart where the statement runs)."""
    return frozenset(name for column in tree.find_all(exp.Column)
                     if (name := _system_name(column)) is not None)


def _system_name(column: exp.Column) -> str | None:
    identifier = column.this
    if not isinstance(identifier, exp.Identifier):
        return None
    name = identifier.this if identifier.quoted else identifier.this.lower()
    return name if name in NAMES else None


def is_tid_cast(node: exp.Expression) -> bool:
    return isinstance(node, exp.Cast) and node.to.this == exp.DataType.Type.USERDEFINED \
        and str(node.to.args.get("kind") or "").lower() in ("tid", "pg_catalog.tid")


def _is_tid(node: exp.Expression) -> bool:
    """Is ``node`` evidently a tid: ``ctid``, a cast to tid, min / max of one?"""
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Column):
        return _system_name(node) == "ctid"
    if isinstance(node, (exp.Min, exp.Max)):
        return _is_tid(node.this)
    return is_tid_cast(node) or isinstance(node, exp.Anonymous) and node.name.lower() == TID_IN


def _tid_in(value: exp.Expression) -> exp.Expression:
    return exp.Anonymous(this=TID_IN, expressions=[value])


def _as_tid(value: exp.Expression) -> exp.Expression:
    """A text constant or parameter beside a tid, read as one; anything else as it is."""
    if isinstance(value, exp.Placeholder) or isinstance(value, exp.Literal) and value.is_string:
        return _tid_in(value)
    return value


def with_tids(tree: exp.Expression) -> exp.Expression:
    """``tree`` with PostgreSQL's tid values made DuckDB's: ``'(0,1)'::tid`` read by ``TID_IN``,
    text beside a tid (``ctid = '(0,1)'``, ``ctid IN ('(0,1)', ?)``) read as one, and a tid cast
    to text written as PostgreSQL writes it. Before the text casts are rewritten (semantics)."""
    def visit(node: exp.Expression) -> exp.Expression:
        if is_tid_cast(node):
            return node.this if _is_tid(node.this) else _tid_in(node.this)
        if isinstance(node, exp.Cast) and node.to.this in _TEXT_TYPES and _is_tid(node.this):
            return exp.Anonymous(this=TID_OUT, expressions=[node.this])
        if isinstance(node, COMPARISONS):
            if _is_tid(node.this):
                node.set("expression", _as_tid(node.expression))
            elif _is_tid(node.expression):
                node.set("this", _as_tid(node.this))
        elif isinstance(node, exp.In) and _is_tid(node.this):
            node.set("expressions", [_as_tid(v) for v in node.expressions])
        return node

    return tree.transform(visit)


def uses_tids(tree: exp.Expression) -> bool:
    """Does ``tree`` name ctid or cast to tid (else ``with_tids`` has nothing to do)?"""
    return any(is_tid_cast(node) or isinstance(node, exp.Column) and _system_name(node) == "ctid"
               for node in tree.find_all(exp.Cast, exp.Column))
