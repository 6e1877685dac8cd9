"""SEARCH and CYCLE clauses of a WITH RECURSIVE item (PostgreSQL 14+), rewritten as
PostgreSQL's rewriteSearchCycle.c rewrites them - DuckDB's recursive CTEs have neither.

``WITH RECURSIVE r(a, b) AS (q1 UNION [ALL] q2) SEARCH DEPTH FIRST BY a SET s
CYCLE a SET m [TO v DEFAULT d] USING p`` becomes::

    WITH RECURSIVE r(a, b, s, m, p) AS (
        SELECT *, [row(a)], d, [row(a)] FROM (q1) AS nonrecursive(a, b)
      UNION [ALL]
        SELECT * EXCLUDE (s, m, p), list_concat(s, [row(a)]),
               CASE WHEN list_contains(p, row(a)) THEN v ELSE d END, list_concat(p, [row(a)])
          FROM (q2 with r.s, r.m, r.p added to its select list) AS recursive(a, b)
         WHERE m <> v)

A record is a DuckDB struct (``row(...)``), a record[] a list of them: lists compare element by
element and then by length, structs field by field with NULL after any value, as PostgreSQL's
record[] and record comparisons do, so ``ORDER BY s`` is the depth-first order; BREADTH FIRST's
``s`` is ``row(depth, a)`` (depth a bigint from 0). Equality of structs takes two NULLs as
equal, as PostgreSQL's record_eq does (the CYCLE test).

The rewrite runs when the parser has read a WITH whose item has either clause, so statements
without them never pass here. It needs the item's column names: its column list, or its
non-recursive term's select list (refused, 0A000, when that holds a ``*`` and no list names the
columns: the catalog is not known at parse time).
"""

from __future__ import annotations

from sqlglot import exp

from txlake import errors


class CteSearch(exp.Expression):
    """``SEARCH { DEPTH | BREADTH } FIRST BY columns SET this`` after a WITH item."""

    arg_types = {"this": True, "expressions": True, "breadth": False}


class CteCycle(exp.Expression):
    """``CYCLE columns SET this [TO value DEFAULT default] USING path`` after a WITH item."""

    arg_types = {"this": True, "expressions": True, "value": False, "default": False, "path": True}


#: the meta key of a clause's or an item's 1-based place in the statement's text
POSITION = "txlake_position"


def rewrite(with_: exp.With) -> None:
    """Each item of ``with_`` that has a SEARCH or CYCLE clause rewritten in place."""
    for cte in with_.expressions:
        search, cycle = cte.args.get("search"), cte.args.get("cycle")
        if search is None and cycle is None:
            continue
        cte.set("search", None)
        cte.set("cycle", None)
        _rewrite_item(cte, bool(with_.args.get("recursive")), search, cycle)


def _rewrite_item(cte: exp.CTE, recursive: bool, search: CteSearch | None, cycle: CteCycle | None) -> None:
    name = cte.alias_or_name
    body = cte.this
    reference = next((t for t in body.find_all(exp.Table) if not t.args.get("db") and _same(t.name, name)), None)
    if not recursive or reference is None:
        raise errors.SyntaxError("WITH query is not recursive", position=cte.meta.get(POSITION))
    if type(body) is not exp.Union:
        raise errors.ProgrammingError(f'recursive query "{name}" does not have the form non-recursive-term '
                                      "UNION [ALL] recursive-term", sqlstate="42P19", position=cte.meta.get(POSITION))
    left, right = _unwrapped(body.this), _unwrapped(body.expression)
    if isinstance(left, exp.SetOperation):
        raise errors.NotSupportedError("with a SEARCH or CYCLE clause, the left side of the UNION must be a SELECT")
    if not isinstance(right, exp.Select):
        raise errors.SyntaxError("with a SEARCH or CYCLE clause, the right side of the UNION must be a SELECT")
    columns = _column_names(cte, left)
    _check(columns, search, cycle)
    added = [clause.this for clause in (search, cycle) if clause is not None]
    if cycle is not None:
        added.append(cycle.args["path"])
        value, default = _cycle_marks(cycle)

    first = exp.select(exp.Star()).from_(exp.Subquery(this=left, alias=_alias("nonrecursive", columns)))
    qualifier = reference.args["alias"].this if reference.alias else reference.this  # (quoted or not)
    inner = right.copy()
    for column in added:
        inner = inner.select(exp.alias_(exp.column(column.copy(), table=qualifier.copy()), column.copy()), copy=False)
    then = exp.select(exp.Star(except_=[exp.column(c.copy()) for c in added])).from_(
        exp.Subquery(this=inner, alias=_alias("recursive", columns)))
    if search is not None:
        row = exp.Anonymous(this="row", expressions=[exp.column(c.copy()) for c in search.expressions])
        seq = exp.column(search.this.copy())
        if search.args.get("breadth"):
            depth = exp.Anonymous(this="struct_extract", expressions=[seq, exp.Literal.number(1)])
            first = first.select(exp.Anonymous(this="row", expressions=[
                exp.cast(exp.Literal.number(0), "BIGINT"), *row.copy().expressions]), copy=False)
            then = then.select(exp.Anonymous(this="row", expressions=[
                exp.Add(this=depth, expression=exp.Literal.number(1)), *row.expressions]), copy=False)
        else:
            first = first.select(exp.Array(expressions=[row.copy()]), copy=False)
            then = then.select(exp.ArrayConcat(this=seq, expressions=[exp.Array(expressions=[row])]), copy=False)
    if cycle is not None:
        row = exp.Anonymous(this="row", expressions=[exp.column(c.copy()) for c in cycle.expressions])
        path = exp.column(cycle.args["path"].copy())
        first = first.select(default.copy(), exp.Array(expressions=[row.copy()]), copy=False)
        seen = exp.ArrayContains(this=path.copy(), expression=row.copy())
        then = then.select(exp.Case(ifs=[exp.If(this=seen, true=value.copy())], default=default.copy()),
                           exp.ArrayConcat(this=path, expressions=[exp.Array(expressions=[row])]), copy=False)
        then = then.where(exp.NEQ(this=exp.column(cycle.this.copy()), expression=value.copy()), copy=False)
    cte.set("this", exp.Union(this=first, expression=then, distinct=body.args.get("distinct")))
    cte.set("alias", exp.TableAlias(this=cte.args["alias"].this, columns=[*columns, *(c.copy() for c in added)]))


def _unwrapped(query: exp.Expression) -> exp.Expression:
    while isinstance(query, exp.Subquery) and not query.alias:
        query = query.this
    return query


def _same(a: str, b: str) -> bool:
    return a.lower() == b.lower()


def _column_names(cte: exp.CTE, left: exp.Expression) -> list[exp.Identifier]:
    """The item's columns: its column list, then the non-recursive term's names past it."""
    listed = [c.copy() for c in cte.args["alias"].columns]
    selected = left.selects if isinstance(left, exp.Select) else None
    if selected is not None and any(isinstance(s, exp.Star) or isinstance(s, exp.Column) and s.is_star
                                    for s in selected):
        if listed:
            return listed
        raise errors.NotSupportedError(
            f'SEARCH or CYCLE of WITH query "{cte.alias_or_name}" whose non-recursive term selects * needs its '
            f"column list: WITH {cte.alias_or_name}(a, b, ...) AS (...)")
    if selected is None:
        return listed
    names = [exp.to_identifier(s.alias_or_name, quoted=True) for s in selected]
    return listed + names[len(listed):]


def _check(columns: list[exp.Identifier], search: CteSearch | None, cycle: CteCycle | None) -> None:
    """PostgreSQL's checks of the clauses (parse_cte.c analyzeCTE), in its order: 42601 but a
    column named twice in BY (42701)."""
    names = {c.name.lower() for c in columns}
    for clause, what, added in ((search, "search", ("search sequence column name",)),
                                (cycle, "cycle", ("cycle mark column name", "cycle path column name"))):
        if clause is None:
            continue
        position = clause.meta.get(POSITION)
        seen: set[str] = set()
        for column in clause.expressions:
            if column.name.lower() not in names:
                raise errors.SyntaxError(f'{what} column "{column.name}" not in WITH query column list',
                                         position=position)
            if column.name.lower() in seen:
                raise errors.DuplicateColumn(f'{what} column "{column.name}" specified more than once',
                                             position=position)
            seen.add(column.name.lower())
        for label, column in zip(added, (clause.this, clause.args.get("path"))):
            if column.name.lower() in names:
                raise errors.SyntaxError(f'{label} "{column.name}" already used in WITH query column list',
                                         position=position)
        if clause is cycle and _same(cycle.this.name, cycle.args["path"].name):
            raise errors.SyntaxError("cycle mark column name and cycle path column name are the same",
                                     position=position)
    if search is not None and cycle is not None:
        for label, column in (("cycle mark column name", cycle.this), ("cycle path column name", cycle.args["path"])):
            if _same(search.this.name, column.name):
                raise errors.SyntaxError(f"search sequence column name and {label} are the same",
                                         position=search.meta.get(POSITION))


def _cycle_marks(cycle: CteCycle) -> tuple[exp.Expression, exp.Expression]:
    """CYCLE's TO and DEFAULT values (true and false when not given), of one type: PostgreSQL's
    select_common_type fails (42804) for a boolean and a number, say; a string constant takes
    the other's type."""
    value, default = cycle.args.get("value"), cycle.args.get("default")
    if value is None:
        return exp.true(), exp.false()
    kinds = [_constant_type(v) for v in (value, default)]
    if None not in kinds and _category(kinds[0]) != _category(kinds[1]):
        raise errors.DatatypeMismatch(f"CYCLE types {kinds[0]} and {kinds[1]} cannot be matched")
    return value, default


def _constant_type(node: exp.Expression) -> str | None:
    """The type of a constant as PostgreSQL's parser gives it, None for an untyped string."""
    if isinstance(node, exp.Boolean):
        return "boolean"
    if isinstance(node, exp.Literal) and not node.is_string:
        text = node.this
        if "." in text or "e" in text.lower():
            return "numeric"
        return "integer" if -2 ** 31 <= int(text) < 2 ** 31 else "bigint" if -2 ** 63 <= int(text) < 2 ** 63 \
            else "numeric"
    if isinstance(node, exp.Cast):
        return node.to.sql(dialect="postgres").lower()
    return None


def _category(type_name: str) -> str:
    return "number" if type_name in ("smallint", "integer", "bigint", "numeric", "real", "double precision") \
        else type_name


def _alias(name: str, columns: list[exp.Identifier]) -> exp.TableAlias:
    return exp.TableAlias(this=exp.to_identifier(f"txl_{name}_term"), columns=[c.copy() for c in columns])
