"""Which table column a column reference of a statement names, by PostgreSQL's scoping - for
the rewrites that depend on a column's type (engine/user_types.py: enum and domain columns,
engine/jsonb_order.py: jsonb columns), which the parser cannot know.

A qualified column is its table's (or alias's); an unqualified one belongs to the innermost
query around it whose FROM has a table with that column - in a subquery, its own table's, not
the outer one's - then to the write's target (``Context.targets``: its rows are registered
under another name), then to any table of the statement with it, if they agree (a view's, read
through it).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Callable

from sqlglot import exp

from txlake.parser.json_ops import SCALAR_ROWS, WHOLE_ROW_JSON
from txlake.parser.parse import table_name
from txlake.parser.semantics import JSON_VALUE_MACRO
from txlake.storage.schema import Column
from txlake.storage.version import TableVersion

if TYPE_CHECKING:
    from txlake.engine.executor import Context


class StatementTables:
    """The tables a statement names, as ``ctx`` sees them, looked up once for every rewrite of
    the statement that asks (``resolver``): engine/user_types.py's and engine/jsonb_order.py's
    share them. The statement's rewrites keep its table references, so one made for the
    statement serves its rewritten copies too."""

    def __init__(self, ctx: Context, expression: exp.Expression):
        self.ctx, self.expression = ctx, expression
        self._looked_up: dict = {}

    def lookup(self, table: exp.Table) -> TableVersion | None:
        """The table (not a view, sequence or type) ``table`` names; None if none."""
        name = table_name(table)
        if name not in self._looked_up:
            version = self.ctx.lookup(name)
            self._looked_up[name] = version if version is not None and version.is_table else None
        return self._looked_up[name]

    @functools.cached_property
    def by_alias(self) -> dict:
        """Each table of the statement (and the write's target) by the name its columns go by."""
        by_alias: dict = {}
        for node in self.expression.find_all(exp.Table):
            if isinstance(node.this, exp.Identifier):
                version = self.lookup(node)
                if version is not None:
                    by_alias.setdefault(node.alias_or_name, version)
        for alias, version in self.ctx.targets:
            by_alias[alias] = version
        return by_alias


def resolver(ctx: Context, expression: exp.Expression, pick: Callable[[Column], object],
             tables: StatementTables | None = None):
    """A function of a column node of ``expression`` giving ``pick(column)`` of the table column
    it names (None if it names none, or ``pick`` gives None: a column of no interest); None
    itself if ``pick`` gives None for every column of the statement's tables (nothing to do).
    ``tables``: the statement's, if another rewrite has looked them up already."""
    tables = tables if tables is not None else StatementTables(ctx, expression)
    by_alias = tables.by_alias
    named: dict = {}  # column -> what pick gives of it in the statement's tables (None: two disagree)
    for version in by_alias.values():
        for col in version.schema.columns:
            picked = pick(col)
            if picked is not None and named.setdefault(col.name, picked) != picked:
                named[col.name] = None
    if not named:
        return None

    def of(version: TableVersion, name: str):
        col = version.schema.column(name)
        return pick(col) if col is not None else False  # (False: not this table's column)

    def picked_of(column: exp.Column):
        if column.table:
            version = by_alias.get(column.table)
            return of(version, column.name) or None if version is not None else None
        scope = column.parent
        while scope is not None:
            if isinstance(scope, exp.Select):
                items = [scope.args.get("from_"), *(scope.args.get("joins") or ())]
                for item in items:
                    table = item.this if item is not None else None
                    if isinstance(table, exp.Table) and isinstance(table.this, exp.Identifier):
                        version = tables.lookup(table)
                        found = of(version, column.name) if version is not None else False
                        if found is not False:
                            return found
            scope = scope.parent
        for _, version in ctx.targets:
            found = of(version, column.name)
            if found is not False:
                return found
        return named.get(column.name)
    return picked_of


def derived(column: exp.Column, tables: StatementTables) -> exp.Expression | None:
    """The expression a column of a derived table - a subquery in FROM, a CTE - stands for: that
    query's output column of the name (a set operation's: its first query's), where ``column``
    names one (qualified by its alias, or unqualified in the innermost query reading it); None
    where it names a table's column, or where that cannot be told (``SELECT *``)."""
    scope = column.parent
    while scope is not None:
        if isinstance(scope, exp.Select):
            for item in (scope.args.get("from_"), *(scope.args.get("joins") or ())):
                source = item.this if item is not None else None
                if source is None or (column.table and source.alias_or_name != column.table):
                    continue
                query = query_of(source)
                if query is not None:
                    found = _output(query, source, column.name)
                    if found is not None or column.table:
                        return found
                elif column.table:
                    return None
                elif isinstance(source, exp.Table) and (version := tables.lookup(source)) is not None \
                        and version.schema.column(column.name) is not None:
                    return None  # (the table's own column)
        scope = scope.parent
    return None


def query_of(source: exp.Expression) -> exp.Expression | None:
    """The query a FROM item reads, if it is a derived table: a subquery's, or a CTE's it names."""
    if isinstance(source, exp.Subquery):
        return source.this
    if not isinstance(source, exp.Table) or not isinstance(source.this, exp.Identifier) or source.args.get("db"):
        return None
    node = source.parent
    while node is not None:
        with_ = node.args.get("with_")
        for cte in with_.expressions if with_ is not None else ():
            if cte.alias == source.name:
                return cte.this
        node = node.parent
    return None


def _output(query: exp.Expression, source: exp.Expression, name: str) -> exp.Expression | None:
    """The output column ``name`` of ``query``, read as ``source`` (its alias may rename them)."""
    while isinstance(query, (exp.SetOperation, exp.Subquery)):
        query = query.this
    if not isinstance(query, exp.Select):
        return None
    outputs = query.expressions
    renamed = [c.name for c in (source.args.get("alias").columns if source.args.get("alias") else ())]
    if renamed:
        return outputs[renamed.index(name)].unalias() if name in renamed and len(outputs) >= len(renamed) \
            and not any(isinstance(o, exp.Star) for o in outputs) else None
    found = next((o for o in outputs if o.alias_or_name == name and isinstance(o, (exp.Alias, exp.Column))), None)
    return found.unalias() if found is not None else None


def whole_row_values(expression: exp.Expression, tables: StatementTables) -> exp.Expression:
    """``expression`` with the alias of a FROM item whose rows are one value, read alone
    (``FROM t, jsonb_array_elements_text(t.tags) AS tag ... SELECT tag``), read as that value,
    as PostgreSQL's whole-row reference to a function of one scalar column is (DuckDB's was a
    row: ``{'value': 'a'}``). Not where another FROM item of its query has a column of that name
    (which the name then is), nor where one's columns are not known here (a view's, a CTE's)."""
    if not any(s.meta.get(SCALAR_ROWS) for s in expression.find_all(exp.Subquery)):
        return expression
    result = expression.copy()
    for source in [s for s in result.find_all(exp.Subquery) if s.meta.get(SCALAR_ROWS)]:
        query, alias = source.parent_select, source.alias
        if query is None or not alias or not _names_no_column(query, source, alias, tables):
            continue
        for column in list(query.walk(prune=lambda n: n is not query and isinstance(n, (exp.Select, exp.Subquery)))):
            if isinstance(column, exp.Column) and not column.table and column.name == alias \
                    and not isinstance(column.parent, exp.Dot):
                column.replace(exp.column(source.meta[SCALAR_ROWS], alias))
    return result


def whole_row_json(expression: exp.Expression, tables: StatementTables) -> exp.Expression:
    """``to_json(t)``, ``row_to_json(t)``, ``to_jsonb(t)`` of a table's row with each column's
    value as PostgreSQL's to_json writes it (``JSON_VALUE_MACRO``: a numeric with its scale, a
    timestamp in ISO 8601, a bytea's \\x text) - DuckDB's to_json of the row wrote its own texts.
    Not where a column has the name (its value), the FROM item is no table (a subquery's row), or
    the query has an outer join (whose row may be made up: NULL as a whole): as DuckDB writes them."""
    if not expression.meta.get(WHOLE_ROW_JSON):
        return expression
    result = expression.copy()
    for value in [n for n in result.find_all(exp.Anonymous) if n.name == JSON_VALUE_MACRO and n.expressions
                  and n.expressions[0].meta.get(WHOLE_ROW_JSON)]:
        query, name = value.parent_select, value.expressions[0].name
        item = _from_item(query, name) if query is not None else None
        version = tables.lookup(item) if item is not None else None
        if version is None or version.schema.column(name) is not None \
                or any(join.side for join in query.args.get("joins") or ()) \
                or not _names_no_column(query, item, name, tables):
            continue
        value.replace(exp.func("struct_pack", *(
            exp.PropertyEQ(this=exp.to_identifier(c.name, quoted=True), expression=exp.Anonymous(
                this=JSON_VALUE_MACRO, expressions=[exp.column(c.name, name, quoted=True)] * 2))
            for c in version.schema.columns)))
    return result


def _from_item(query: exp.Select, name: str) -> exp.Table | None:
    """The table ``query`` reads as ``name`` (its alias or its name), if one."""
    first = query.args.get("from_") or query.args.get("from")
    items = ([first.this] if first is not None else []) + [join.this for join in query.args.get("joins") or ()]
    return next((i for i in items if isinstance(i, exp.Table) and i.alias_or_name == name), None)


def _names_no_column(query: exp.Select, source: exp.Subquery, name: str, tables: StatementTables) -> bool:
    """Has no FROM item of ``query`` but ``source`` a column ``name`` - each known here?"""
    first = query.args.get("from_") or query.args.get("from")  # (sqlglot's key, by its version)
    items = [first.this] if first is not None else []
    items += [join.this for join in query.args.get("joins") or ()]
    for item in items:
        if item is source or isinstance(item, exp.Subquery) and item.meta.get(SCALAR_ROWS):
            continue
        if isinstance(item, exp.Table) and isinstance(item.this, exp.Identifier):
            version = tables.lookup(item)
            if version is None or version.schema.column(name) is not None:
                return False
        elif isinstance(item, exp.Subquery) and isinstance(item.this, exp.Select):
            names = item.this.named_selects
            if "*" in names or name in names or any(isinstance(e, exp.Star) for e in item.this.expressions):
                return False
        else:
            return False
    return True
