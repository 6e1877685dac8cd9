"""CHAR(n) - PostgreSQL's blank-padded character type (bpchar) - over DuckDB, which has none.

A CHAR(n) value is stored without its trailing spaces (``ColumnType.blank_padded``;
engine/executor.py ``fit_char``): that is what PostgreSQL's cast of it to text gives, so every
text function, ``length()`` and ``||`` read it as PostgreSQL's do, and DuckDB's comparisons,
GROUP BY, DISTINCT, joins and unique keys of such values ignore trailing spaces as bpchar's
do (datatype-character.html). What is left is rewritten here, for statements that may read a
table with a CHAR(n) column, once per plan (``rewritten``):

- a string constant or a ``?`` compared with a CHAR value (``=``, ``<>``, ``<``..., ``IN``,
  ``BETWEEN``) is read as a CHAR, as PostgreSQL reads it - without its trailing spaces:
  ``c = 'ab   '`` holds for 'ab';
- ``octet_length()`` counts the padding (bpcharoctetlen), LIKE and the regular expression
  operators match the padded value (bpcharlike is textlike of the bpchar as it is);
- ``pg_typeof()`` of one is ``character``; ``pg_column_size()`` counts its padding;
- a CHAR(n) value in a query's select list comes out padded to n (``padded``), as bpcharout
  writes it - a column (a derived table's too), a cast to ``char(n)``, ``max`` / ``min`` of one.

A CHAR value is what one of those is. Anything else made of one (``coalesce(c, 'x')``,
``CASE``) is text, its trailing spaces gone - PostgreSQL would keep the type.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlglot import exp

from txlake.engine import column_scope
from txlake.engine.jsonb_order import assignment
from txlake.parser.semantics import COLUMN_SIZE_MACRO, VARLENA_SIZE
from txlake.storage.schema import TableSchema

if TYPE_CHECKING:
    from txlake.engine.executor import Context

_COMPARISONS = (exp.EQ, exp.NEQ, exp.LT, exp.LTE, exp.GT, exp.GTE, exp.NullSafeEQ, exp.NullSafeNEQ)
# the pattern matches of a CHAR value, of its padded text (LIKE, ILIKE, ~, ~*; NOT wraps them)
_MATCHES = (exp.Like, exp.ILike, exp.RegexpLike, exp.RegexpILike)


def cast_width(node: exp.Expression) -> int | None:
    """n of a cast to char(n) (parser/semantics.py has cut the value to n, without trailing spaces)."""
    if isinstance(node, exp.Cast) and node.to.is_type(exp.DType.CHAR, exp.DType.NCHAR, exp.DType.BPCHAR) \
            and node.to.expressions:
        length = node.to.expressions[0]
        return int(length.name) if isinstance(length, exp.DataTypeParam) and length.name.isdigit() else None
    return None


def rewritten(ctx: Context, expression: exp.Expression, tables: column_scope.StatementTables | None = None,
              query: bool = False) -> exp.Expression:
    """``expression`` with its CHAR values compared, measured, matched and - ``query``: the
    statement is a query, whose rows are its result - given out as PostgreSQL's (the module's
    docstring); ``expression`` itself if it reads no CHAR(n) column."""
    casts = query and any(cast_width(n) is not None for n in expression.find_all(exp.Cast))
    if not casts and not ctx.may_have_columns("char"):
        return expression
    tables = tables if tables is not None else column_scope.StatementTables(ctx, expression)
    column_width = column_scope.resolver(ctx, expression, lambda col: col.type.length if col.type.blank_padded
                                         else None, tables)
    if column_width is None and not casts:
        return expression

    def width(node: exp.Expression) -> int | None:
        """n of the CHAR(n) value ``node`` is, or None: it is none."""
        node = node.unnest()
        if isinstance(node, (exp.Max, exp.Min)):
            return width(node.this)
        if isinstance(node, exp.Cast):
            return cast_width(node)
        if not isinstance(node, exp.Column) or column_width is None:
            return None
        source = column_scope.derived(node, tables)  # (a subquery's, a CTE's)
        return width(source) if source is not None else column_width(node)

    def visit(node: exp.Expression) -> exp.Expression:
        if isinstance(node, _COMPARISONS) and not assignment(node):
            if width(node.this) is not None:
                node.set("expression", _as_char(node.expression))
            elif width(node.expression) is not None:
                node.set("this", _as_char(node.this))
        elif isinstance(node, exp.In) and width(node.this) is not None:
            node.set("expressions", [_as_char(e) for e in node.expressions])
        elif isinstance(node, exp.Between) and width(node.this) is not None:
            node.set("low", _as_char(node.args["low"]))
            node.set("high", _as_char(node.args["high"]))
        elif isinstance(node, _MATCHES) and (n := width(node.this)) is not None:
            node.set("this", _padded(node.this, n))
        elif isinstance(node, exp.Anonymous) and node.name == COLUMN_SIZE_MACRO and \
                (n := width(node.expressions[0])) is not None:  # (the padded value's bytes)
            value = node.expressions[0]
            padded = exp.Add(this=exp.Anonymous(this="strlen", expressions=[value.copy()]), expression=exp.Paren(
                this=exp.Sub(this=exp.Literal.number(n), expression=exp.Length(this=value.copy()))))
            return exp.Anonymous(this=VARLENA_SIZE, expressions=[padded, node.expressions[1].copy()])
        elif isinstance(node, exp.Anonymous) and len(node.expressions) == 1 and \
                (n := width(node.expressions[0])) is not None:
            name = node.name.lower()
            if name == "strlen":  # (octet_length: parser/semantics.py)
                value = node.expressions[0]
                return exp.Add(this=node, expression=exp.Paren(this=exp.Sub(
                    this=exp.Literal.number(n), expression=exp.Length(this=value.copy()))))
            if name == "pg_typeof":
                return exp.Literal.string("character")
        return node

    def widths(source: exp.Expression) -> dict[str, int]:
        """The CHAR(n) columns of the FROM item ``source`` - a table's, or a derived table's
        (a subquery's, a CTE's) output columns - and their n."""
        query = column_scope.query_of(source)
        if query is None:
            version = tables.lookup(source) if isinstance(source, exp.Table) else None
            return version.schema.blank_padded if version is not None else {}
        while isinstance(query, (exp.SetOperation, exp.Subquery)):
            query = query.this
        if not isinstance(query, exp.Select) or (source.args.get("alias") and source.args["alias"].columns):
            return {}  # (columns renamed by the alias: not followed)
        found = {}
        for item in query.expressions:
            if _is_star(item):
                found.update(w for s in _stars(query, item) for w in widths(s[1]).items())
            elif (n := width(item.unalias())) is not None:
                found[item.alias_or_name] = n
        return found

    rewritten_ = expression.copy().transform(visit, copy=False)
    return padded(rewritten_, width, widths) if query else rewritten_


def returned(select: exp.Select, schema: TableSchema, alias: str) -> exp.Select:
    """A write's RETURNING list ``select`` over its target's rows (of ``schema``, named
    ``alias``) with the target's CHAR(n) values padded, as a query's are."""
    if not schema.blank_padded:
        return select

    def width(node: exp.Expression) -> int | None:
        node = node.unnest()
        if isinstance(node, exp.Column) and node.table in ("", alias):
            return schema.blank_padded.get(node.name)
        return cast_width(node) if isinstance(node, exp.Cast) else None

    return padded(select, width, lambda source: schema.blank_padded if source.alias_or_name == alias else {})


def padded(query: exp.Expression, width, widths, columns: set[int] | None = None) -> exp.Expression:
    """``query`` with the CHAR(n) values of its select list (``width`` tells them; ``widths``
    the CHAR(n) columns of a FROM item, for ``*``) padded to n (``columns``: only those, by
    position) - of each query of a set operation. A UNION, INTERSECT or EXCEPT without ALL
    compares its rows: only a column that is a CHAR(n) of one n in each of its queries is
    padded there (PostgreSQL's 'ab' of a char(5) and of a char(3) are one row)."""
    if isinstance(query, exp.Subquery):
        return padded(query.this, width, widths, columns)
    if isinstance(query, exp.SetOperation):
        queries = _queries(query)
        if columns is None and any(q.args.get("distinct") for q in query.find_all(exp.SetOperation)):
            if any(not isinstance(q, exp.Select) or any(_is_star(i) for i in q.expressions) for q in queries):
                return query  # (a * in a deduplicating set operation: left unpadded)
            found = [[width(i.unalias()) for i in q.expressions] for q in queries]
            columns = {i for i, n in enumerate(found[0]) if n is not None and all(
                len(f) > i and f[i] == n for f in found)}
        for q in queries:
            padded(q, width, widths, columns)
        return query
    if not isinstance(query, exp.Select):
        return query
    for position, item in enumerate(list(query.expressions)):
        if columns is not None and position not in columns:
            continue
        if _is_star(item):
            _padded_star(query, item, widths)
            continue
        value = item.this if isinstance(item, exp.Alias) else item
        n = width(value)
        if n is None:
            continue
        if isinstance(item, exp.Alias):
            item.set("this", _padded(value, n))
        else:
            item.replace(exp.alias_(_padded(value, n), item.alias_or_name, quoted=True))
    return query


def _queries(query: exp.Expression) -> list[exp.Expression]:
    """The queries a set operation combines."""
    while isinstance(query, exp.Subquery):
        query = query.this
    if isinstance(query, exp.SetOperation):
        return [*_queries(query.this), *_queries(query.expression)]
    return [query]


def _is_star(item: exp.Expression) -> bool:
    return isinstance(item, exp.Star) or isinstance(item, exp.Column) and isinstance(item.this, exp.Star)


def _stars(select: exp.Select, star: exp.Expression) -> list[tuple[str, exp.Expression]]:
    """The FROM items ``star`` (``*``, or ``t.*``) gives the columns of, as (alias, source)
    pairs; none if that cannot be told - a ``*`` of a USING or NATURAL join has the joined
    columns once."""
    items = [select.args.get("from_"), *(select.args.get("joins") or ())]
    if isinstance(star, exp.Column):
        return [(i.this.alias_or_name, i.this) for i in items if i is not None and i.this.alias_or_name == star.table]
    if any(j.args.get("using") or j.args.get("method") for j in items[1:]) or \
            any(i is None or not i.this.alias_or_name for i in items):
        return []
    return [(i.this.alias_or_name, i.this) for i in items]


def _padded_star(select: exp.Select, star: exp.Expression, widths) -> None:
    """``*`` or ``t.*`` with the CHAR(n) columns it gives padded: DuckDB's ``t.* REPLACE
    (rpad(t.c, n, ' ') AS c)``, a ``*`` of several FROM items made one such star of each."""
    sources = _stars(select, star)
    found = [(alias, widths(source)) for alias, source in sources]
    if not any(w for _, w in found):
        return
    replaced = []
    for alias, padded_columns in found:
        item = star if len(found) == 1 else exp.Column(this=exp.Star(), table=exp.to_identifier(alias))
        target = item.this if isinstance(item, exp.Column) else item
        target.set("replace", [exp.alias_(_padded(exp.column(name, alias, quoted=True), n), name, quoted=True)
                               for name, n in padded_columns.items()] or None)
        replaced.append(item)
    if replaced != [star]:
        position = select.expressions.index(star)
        select.set("expressions", [*select.expressions[:position], *replaced, *select.expressions[position + 1:]])


def _padded(value: exp.Expression, n: int) -> exp.Expression:
    return exp.Anonymous(this="rpad", expressions=[value.copy(), exp.Literal.number(n), exp.Literal.string(" ")])


def _as_char(node: exp.Expression) -> exp.Expression:
    """A string constant or ``?`` read as a CHAR value: without its trailing spaces."""
    bare = node.unnest()
    if isinstance(bare, exp.Literal) and bare.is_string:
        return exp.Literal.string(bare.this.rstrip(" "))
    if isinstance(bare, exp.Placeholder):
        return exp.Anonymous(this="rtrim", expressions=[node, exp.Literal.string(" ")])
    return node
