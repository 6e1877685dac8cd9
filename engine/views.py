"""Views: catalog entries made, replaced, renamed and dropped by transactional DDL, and expanded
into the statements that name them.

A view is stored as a catalog entry beside the tables (``TableVersion.is_view``: no files; its
schema holds a ``ViewDefinition``), so it shares their namespace and their life: created in a
block it is the transaction's alone until COMMIT, gone with a ROLLBACK, replayed, checkpointed
and seen by other processes as a table's creation is, and two sessions creating one name race
as for a table (one gets 42P07, or 40001 when they overlap across processes).

Guarantees:

- The definition is fixed when the view is made, as PostgreSQL fixes it: its table names are
  qualified as they resolved then (the search path of later readers does not change what it
  reads), its columns - ``*`` expanded - get their names and types then, and ``CREATE OR
  REPLACE`` may only add columns at the end (42P16).
- A statement naming a view reads the view's query in its place (``expand``), at the
  statement's own snapshot: isolation levels, SSI read tracking (a read of the view is a read
  of the tables it reads) and the transaction's own uncommitted writes work as for tables.
- What a view reads cannot be dropped, nor its used columns dropped or retyped, while the
  view stands (2BP01 / 0A000; ``DROP ... CASCADE`` drops the views too); renamed, the views
  follow (their stored queries rewritten), where that is unambiguous (else 0A000). Across
  processes the commit's vote checks the same against what others committed (storage/commit.py
  ``_check_views``: 40001).

A view cannot be written (55000) but through INSTEAD OF triggers (engine/triggers.py), locked
(SELECT ... FOR UPDATE: 0A000), read as of a past snapshot (0A000), nor read by Spark; it is not
published as a Paimon table.

A materialized view (engine/matviews.py) is a table whose schema holds a query and what it
reads: it depends on what it reads as a view does (drops, renames and column changes above
treat both alike), and a statement naming one reads its rows - unless it has not been
populated (55000) - and may not write them (42809) nor lock them (42809), as PostgreSQL says.
"""

from __future__ import annotations

import dataclasses
import re
import uuid

import duckdb
import sqlglot
from sqlglot import exp

from txlake import errors
from txlake.engine import catalog_views, functions, temp_tables
from txlake.engine.executor import Context, Executor, Result, distinct_names, relation_kind
from txlake.engine.temp_tables import TEMP_DB, is_temp
from txlake.parser import statements as st
from txlake.parser.dialect import Txlake
from txlake.parser.parse import cte_names, identifier, parse, table_name
from txlake.parser.system_columns import TID_TYPE
from txlake.storage.schema import TableSchema, ViewDefinition, ViewDependency, type_from_arrow
from txlake.storage.version import TableVersion

_SAFE_NAME = re.compile(r"[a-z_][a-z0-9_$]*")


# --- expansion ----------------------------------------------------------------------------

def expand(ctx: Context, stmt: st.Statement) -> st.Statement:
    """``stmt`` with every view it reads replaced by the view's query; refuses writing a view."""
    if not ctx.may_hold("view", "materialized view") and not ctx.may_have_columns("partitioned"):
        return stmt  # (most warehouses have none: then nothing is looked up)
    if isinstance(stmt, st.Query):
        expression = _expanded(ctx, stmt.expression)
        if stmt.locks and ctx.may_hold("materialized view"):
            _refuse_lock(ctx, stmt.expression)
        if expression is stmt.expression:
            return stmt
        if stmt.locks:
            raise errors.NotSupportedError("SELECT ... FOR UPDATE / SHARE of a view is not supported: "
                                           "lock the rows of its tables")
        return _replaced(stmt, expression=expression)
    if isinstance(stmt, st.Explain):
        query = expand(ctx, stmt.query)
        return stmt if query is stmt.query else _replaced(stmt, query=query)
    if isinstance(stmt, st.Insert):
        instead = _refuse_write(ctx, stmt.table, "insert into", "INSERT")
        conflict = stmt.on_conflict
        if conflict is not None and not conflict.do_nothing:  # (DO UPDATE SET x = (SELECT ... FROM v))
            expanded = _parts_expanded(ctx, conflict, assignments=conflict.assignments, where=conflict.where)
            if expanded is not conflict:
                stmt = _replaced(stmt, on_conflict=expanded)
        return _instead(instead, _parts_expanded(ctx, stmt, source=stmt.source, returning=stmt.returning))
    if isinstance(stmt, st.Update):
        instead = _refuse_write(ctx, stmt.table, "update", "UPDATE")
        return _instead(instead, _parts_expanded(ctx, stmt, from_=stmt.from_, where=stmt.where,
                                                 returning=stmt.returning, assignments=stmt.assignments))
    if isinstance(stmt, st.Delete):
        instead = _refuse_write(ctx, stmt.table, "delete from", "DELETE")
        return _instead(instead, _parts_expanded(ctx, stmt, using=stmt.using, where=stmt.where,
                                                 returning=stmt.returning))
    if isinstance(stmt, st.CreateTable) and stmt.as_query is not None:
        return _parts_expanded(ctx, stmt, as_query=stmt.as_query)
    if isinstance(stmt, st.CreateMatview):  # (WITH NO DATA reads no rows: an unpopulated one may be named)
        return _parts_expanded(ctx, stmt, unpopulated=stmt.with_no_data, query=stmt.query)
    if isinstance(stmt, st.Merge):
        _refuse_write(ctx, stmt.table, "merge into")
        actions = tuple(_parts_expanded(ctx, a, condition=a.condition, assignments=a.assignments, values=a.values)
                        for a in stmt.actions)
        if any(a is not b for a, b in zip(actions, stmt.actions)):
            stmt = _replaced(stmt, actions=actions)
        return _parts_expanded(ctx, stmt, source=stmt.source, on=stmt.on, returning=stmt.returning)
    if isinstance(stmt, st.Copy):
        if stmt.table is not None:  # (PostgreSQL's words: COPY names a table; a query may read views)
            version = ctx.lookup(stmt.table)
            if version is not None and (version.is_view or version.is_matview):
                kind = relation_kind(version)
                if stmt.to:
                    raise errors.WrongObjectType(
                        f'cannot copy from {kind} "{version.name}"\nHINT:  Try the COPY (SELECT ...) TO variant.')
                if version.is_matview:
                    raise errors.WrongObjectType(f'cannot change materialized view "{version.name}"')
                raise errors.WrongObjectType(f'cannot copy to view "{version.name}"')
            return stmt
        if stmt.query is not None:
            query = expand(ctx, stmt.query)
            return stmt if query is stmt.query else _replaced(stmt, query=query)
    return stmt


def _replaced(stmt, **changes):
    """A copy of the (frozen, cached, shared) statement with ``changes``; its parameters as they were."""
    return dataclasses.replace(stmt, **changes)


def _parts_expanded(ctx: Context, stmt, unpopulated: bool = False, **parts):
    """``stmt`` with its ``parts`` expanded (``unpopulated``: they may name an unpopulated
    materialized view)."""
    changes = {}
    for key, value in parts.items():
        if value is None:
            continue
        if key == "assignments":
            new = tuple((name, _expanded(ctx, e)) for name, e in value)
            same = all(a[1] is b[1] for a, b in zip(new, value))
        elif isinstance(value, tuple):
            new = tuple(_expanded(ctx, e) for e in value)
            same = all(a is b for a, b in zip(new, value))
        else:
            new = _expanded(ctx, value, unpopulated=unpopulated)
            same = new is value
        if not same:
            changes[key] = new
    return _replaced(stmt, **changes) if changes else stmt


def _instead(instead: bool, stmt: st.Statement) -> st.Statement:
    return st.InsteadOfWrite(write=stmt, param_count=stmt.param_count, text=stmt.text) if instead else stmt


def _refuse_write(ctx: Context, name: st.TableName, verb: str, event: str | None = None) -> bool:
    """55000 for a write to a view - unless INSTEAD OF triggers on its ``event`` do it (True)."""
    version = ctx.lookup(name)
    if version is not None and version.is_matview:  # (PostgreSQL's CheckValidResultRel)
        raise errors.WrongObjectType(f'cannot change materialized view "{version.name}"')
    if version is not None and version.is_view and event is not None and any(
            t.timing == "INSTEAD OF" and t.fires_on(event) for t in version.schema.triggers):
        return True
    if version is not None and version.is_view:
        raise errors.ObjectNotInPrerequisiteState(
            f'cannot {verb} view "{version.name}"\n'
            "DETAIL:  Views in txlake are not updatable (PostgreSQL's automatically updatable views are not "
            "supported).\nHINT:  Write to the tables the view reads, or give the view an INSTEAD OF trigger.")
    return False


def expanded_query(ctx: Context, node: exp.Expression) -> exp.Expression:
    """``node``, a query built outside a statement (engine/table_like.py, a materialized view's
    REFRESH), with the views it reads replaced by their queries and the user-defined functions
    it calls by their bodies."""
    return functions.inlined(ctx, _expanded(ctx, node))


def _expanded(ctx: Context, node: exp.Expression, seen: frozenset = frozenset(),
              unpopulated: bool = False) -> exp.Expression:
    """``node`` with each table reference naming a view replaced by the view's query (views
    over views too); ``node`` itself if it names none. 55000 if it reads a materialized view
    that has not been populated (unless ``unpopulated``: it may)."""
    read = [ctx.lookup(name) for name in relations_read(node)]
    if not unpopulated:
        for version in read:
            if version is not None and version.is_matview and not version.schema.matview.populated:
                raise errors.ObjectNotInPrerequisiteState(
                    f'materialized view "{version.name}" has not been populated\n'
                    "HINT:  Use the REFRESH MATERIALIZED VIEW command.")
    if not any(_is_view(version) for version in read):
        return node
    ctes = cte_names(node)

    def visit(n):
        view = _view_named(ctx, n, ctes)
        if view is None:
            return n
        alias = n.args.get("alias")
        alias = alias.copy() if alias is not None else exp.TableAlias(this=exp.to_identifier(view.name))
        return exp.Subquery(this=_body(ctx, view, seen), alias=alias)

    return node.transform(visit)


class _Reads:
    """The relations a node's table references name, memoised on the node (``relations_read``)."""
    __slots__ = ("node_id", "names")

    def __init__(self, node: exp.Expression, names: tuple[st.TableName, ...]):
        self.node_id = id(node)
        self.names = names

    def __deepcopy__(self, memo):  # (a copy of the node makes its own: a copied memo would be of
        return None                  # another node, whose id a later node may take once it is freed)


def relations_read(node: exp.Expression) -> tuple[st.TableName, ...]:
    """The relations ``node``'s table references name (``_relation_named``), memoised on the
    node: a statement's parts are parsed once and shared by every execution (never changed in
    place), so a cached statement's views are found by looking its names up, not by walking
    it. The memo names the node it was made for, and is not copied with it (``transform``
    copies, then changes the copy): a copy makes its own."""
    memo = node.meta.get("txlake.reads")
    if memo is not None and memo.node_id == id(node):
        return memo.names
    ctes = cte_names(node)
    names = tuple(n for n in (_relation_named(t, ctes) for t in node.find_all(exp.Table)) if n is not None)
    node.meta["txlake.reads"] = _Reads(node, names)
    return names


def _is_view(version: TableVersion | None) -> bool:
    """Does a reference to ``version`` read a query in its place: a view's, or a partitioned
    table's union of its partitions (engine/partitions.py)?"""
    return version is not None and (version.is_view or version.schema.partitioning is not None)


def _refuse_lock(ctx: Context, node: exp.Expression) -> None:
    """SELECT ... FOR UPDATE / SHARE reading a materialized view: 42809, as PostgreSQL's (its
    rows are REFRESH's alone)."""
    for name in relations_read(node):
        version = ctx.lookup(name)
        if version is not None and version.is_matview:
            raise errors.WrongObjectType(f'cannot lock rows in materialized view "{version.name}"')


def _relation_named(node: exp.Expression, ctes: set[str]) -> st.TableName | None:
    """The name of the relation ``node`` reads, if it is a table reference naming one: not a
    CTE of the query, a catalog view (information_schema ...) or a table function."""
    if not isinstance(node, exp.Table) or not isinstance(node.this, exp.Identifier):
        return None
    name = table_name(node)
    if (name.db is None and name.name in ctes) or catalog_views.view(name.db, name.name) is not None:
        return None
    return name


def _view_named(ctx: Context, node: exp.Expression, ctes: set[str]) -> TableVersion | None:
    name = _relation_named(node, ctes)
    if name is None:
        return None
    version = ctx.lookup(name)
    if not _is_view(version) or (node.args.get("only") and not version.is_view):  # (ONLY p: its own rows, none)
        return None
    if node.args.get("version") or node.args.get("when"):
        what = "view" if version.is_view else "partitioned table"
        raise errors.NotSupportedError(f'time travel of {what} "{version.name}" is not supported: '
                                       "read its tables as of the snapshot")
    return version


def _body(ctx: Context, view: TableVersion, seen: frozenset) -> exp.Select:
    """The query a reference to ``view`` reads: its definition (views in it expanded too),
    giving exactly the view's columns, by position - a table the view reads with ``*`` may have
    gained columns since, which the view does not show (as in PostgreSQL)."""
    if view.table_id in seen:
        raise errors.ProgrammingError(f'infinite recursion detected in rules for relation "{view.name}"',
                                      sqlstate="42P17")
    if not view.is_view:  # (a partitioned table: its partitions' rows, a partitioned one's expanded too)
        from txlake.engine import partitions  # (it builds on this module)
        return _expanded(ctx, partitions.body(ctx, view), seen | {view.table_id})
    definition = view.schema.view
    query = definition_query(definition.query)  # (cached: shared by every reference, so copied if kept)
    inner = _expanded(ctx, query, seen | {view.table_id})
    if inner is query:
        inner = query.copy()
    places = [f"__txl_c{i}" for i in range(len(definition.columns))]
    source = exp.Subquery(this=inner, alias=exp.TableAlias(this=exp.to_identifier("__txl_view"),
                                                           columns=[exp.to_identifier(p) for p in places]))
    return exp.select(*[exp.alias_(exp.column(p), name, quoted=True) for p, name in zip(places, definition.names)]
                      ).from_(source)


def definition_query(text: str) -> exp.Expression:
    """A stored definition's query, parsed as any statement is (cached by its text)."""
    statements = parse(text)
    if len(statements) != 1 or not isinstance(statements[0], st.Query):
        raise errors.InternalError(f"a view's definition is not one query: {text!r}")
    return statements[0].expression


# --- CREATE [OR REPLACE] VIEW -------------------------------------------------------------

def create_view(ex: Executor, ctx: Context, stmt: st.CreateView, params) -> Result:
    if ctx.txn.read_only:
        raise errors.ReadOnlyTransaction("cannot execute CREATE VIEW in a read-only transaction")
    if stmt.param_count:
        raise errors.ProgrammingError("there is no parameter $1: a view's query cannot take parameters",
                                      sqlstate="42P02")
    db, name = stmt.view.qualified(ctx.db)
    if db in catalog_views.CATALOG_SCHEMAS:
        raise errors.ProgrammingError(f'permission denied to create "{db}.{name}"', sqlstate="42501")
    written, reads = qualified(ctx, stmt.written)
    notice = None
    if not (stmt.temporary or db == TEMP_DB) and any(is_temp(v) for v in reads):
        notice = f'view "{name}" will be a temporary view'  # (as PostgreSQL makes it)
    temporary = stmt.temporary or db == TEMP_DB or notice is not None
    if temporary:
        db = temp_tables.schema_of(stmt.view)
    old = ctx.txn.table(ctx.catalog, db, name)
    if old is not None and not (stmt.or_replace and old.is_view):
        if stmt.or_replace:
            raise errors.WrongObjectType(f'"{name}" is not a view')
        raise errors.DuplicateTable(f'relation "{name}" already exists')
    if old is None and ex.name_taken(ctx, db, name):  # (committed since the snapshot)
        if stmt.or_replace:  # (one this transaction cannot see to replace: a retry can)
            raise errors.SerializationFailure("could not serialize access due to concurrent update")
        raise errors.DuplicateTable(f'relation "{name}" already exists')
    # the columns: named from the query as written (PostgreSQL's rules: parser/semantics.py),
    # typed by what DuckDB makes of it, over the tables (and views) as this transaction sees them
    seen = frozenset({old.table_id}) if old is not None else frozenset()
    names, types = _result_columns(ex, ctx, _expanded(ctx, stmt.query, seen))
    types = _declared_types(ctx, stmt.query, types)
    if len(stmt.columns) > len(names):
        raise errors.SyntaxError("CREATE VIEW specifies more column names than columns")
    names = [*stmt.columns, *names[len(stmt.columns):]]
    distinct_names(names)
    columns = tuple(zip(names, types))
    if old is not None:
        _check_replacement(old.schema.view.columns, columns)
    definition = ViewDefinition(written.sql(dialect=Txlake), columns, dependencies(written, reads))
    definition_query(definition.query)  # (what is stored reads back as one query)
    if old is None:
        table_id = (temp_tables.TEMP_ID_PREFIX if temporary else "") + uuid.uuid4().hex
        ex._write(ctx, None, TableVersion(table_id, db, name, TableSchema(0, (), view=definition)), check_ssi=False)
        if temporary:  # (the session's own: engine/temp_tables.py keeps it out of every commit)
            ctx.txn.temp_created[table_id] = "PRESERVE ROWS"
    else:
        schema = dataclasses.replace(old.schema, schema_id=old.schema.schema_id + 1, view=definition)  # (comments kept)
        ex._write(ctx, old, dataclasses.replace(old, schema=schema, caches={}), check_ssi=False)
    return Result(status="CREATE VIEW", notice=notice)


def qualified(ctx: Context, query: exp.Expression) -> tuple[exp.Expression, list[TableVersion]]:
    """``query`` with every table reference qualified with its schema as it resolves now
    (42P01 for an unknown one), and the tables and views it reads."""
    ctes = cte_names(query)
    reads: dict[str, TableVersion] = {}

    def visit(node):
        name = _relation_named(node, ctes)
        if name is None:
            return node
        version = ctx.resolve(name)
        reads.setdefault(version.table_id, version)
        schema = catalog_views.schema_name(version.db)
        node = node.copy()
        node.set("db", exp.to_identifier(schema, quoted=not _SAFE_NAME.fullmatch(schema)))
        return node

    return query.transform(visit), list(reads.values())


def dependencies(written: exp.Expression, reads: list[TableVersion]) -> tuple[ViewDependency, ...]:
    """What a view (or a materialized view) whose query is ``written`` (``qualified``) depends
    on: each relation it reads, with the columns it uses."""
    return tuple(ViewDependency(v.table_id, v.db, v.name, _used_columns(written, v)) for v in reads)


def _used_columns(query: exp.Expression, version: TableVersion) -> tuple[tuple[str, str], ...]:
    """The columns of ``version`` the view's query may use: every one if it has a ``*`` or a
    NATURAL join, else those named anywhere in it (by name: a column of that name of another
    table it reads counts too - kept, never wrongly let go)."""
    star = any(n.find_ancestor(exp.Func) is None for n in query.find_all(exp.Star)) or \
        any(j.args.get("method") and str(j.args["method"]).upper() == "NATURAL" for j in query.find_all(exp.Join))
    if star:
        return version.column_types()
    named = {identifier(c.this).lower() for c in query.find_all(exp.Column) if isinstance(c.this, exp.Identifier)}
    for join in query.find_all(exp.Join):
        named.update(identifier(u).lower() for u in join.args.get("using") or ())
    return tuple((n, t) for n, t in version.column_types() if n.lower() in named)


def _result_columns(ex: Executor, ctx: Context, query: exp.Expression) -> tuple[list[str], list[str]]:
    """The names and types of the columns ``query`` gives (it does not run: LIMIT 0)."""
    def run(sql: str):
        try:
            names = ex.duck.shared.with_nested_arrays(lambda: ex.con.sql(sql)).columns
            relation = ex.con.sql(f"SELECT * FROM ({sql}) AS __txl_view LIMIT 0")
            return names, relation.types, relation.to_arrow_table().schema
        except duckdb.Error as e:
            raise ex._error(e) from None

    names, duck_types, schema = ex._over_tables(ctx, st.Query(expression=query), run)
    types = []
    for field, duck in zip(schema, duck_types):
        if str(duck) == "HUGEINT":  # (a sum of integers: BIGINT, as the query's result says)
            types.append("BIGINT")
            continue
        if str(duck) in ("UUID", "JSON"):  # (text in Arrow)
            types.append(str(duck))
            continue
        if str(duck).startswith(TID_TYPE):  # (a ctid: parser/system_columns.py)
            types.append("tid")
            continue
        try:
            types.append(type_from_arrow(field.type).display())
        except errors.NotSupportedError:
            types.append(str(duck).lower())
    return list(names), types


def _declared_types(ctx: Context, query: exp.Expression, types: list[str]) -> list[str]:
    """A column the view passes through from the one table (or view) it selects from keeps
    that column's declared type - a VARCHAR(n)'s length, which the query's result (text) has
    lost - as PostgreSQL's view column would."""
    from_ = query.args.get("from_") if isinstance(query, exp.Select) else None
    source = from_.this if from_ is not None else None
    if query.args.get("joins") or not isinstance(source, exp.Table) or not isinstance(source.this, exp.Identifier) \
            or any(isinstance(p, exp.Star) for p in query.expressions) or query.find(exp.CTE) is not None:
        return types
    name = table_name(source)
    if catalog_views.view(name.db, name.name) is not None:
        return types
    version = ctx.lookup(name)
    declared = {n.lower(): t for n, t in version.column_types()} if version is not None else {}
    result = list(types)
    for i, projection in enumerate(query.expressions[:len(types)]):
        column = projection.this if isinstance(projection, exp.Alias) else projection
        if isinstance(column, exp.Column) and isinstance(column.this, exp.Identifier) and result[i] == "TEXT":
            kept = declared.get(identifier(column.this).lower())
            if kept is not None and kept.startswith("VARCHAR("):
                result[i] = kept
    return result


def _check_replacement(old: tuple[tuple[str, str], ...], new: tuple[tuple[str, str], ...]) -> None:
    """CREATE OR REPLACE VIEW keeps the view's columns, in order, and may add some at the end (42P16)."""
    if len(new) < len(old):
        raise errors.InvalidTableDefinition("cannot drop columns from view")
    for (old_name, old_type), (new_name, new_type) in zip(old, new):
        if old_name != new_name:
            raise errors.InvalidTableDefinition(
                f'cannot change name of view column "{old_name}" to "{new_name}"\n'
                "HINT:  Use ALTER VIEW ... RENAME COLUMN ... to change name of view column instead.")
        if old_type != new_type:
            raise errors.InvalidTableDefinition(
                f'cannot change data type of view column "{old_name}" from {old_type.lower()} to {new_type.lower()}')


# --- DROP VIEW, ALTER VIEW ... RENAME TO, and what depends on what ------------------------

def drop_view(ex: Executor, ctx: Context, stmt: st.DropView, params) -> Result:
    """``DROP [MATERIALIZED] VIEW``: the views (materialized views: their rows and indexes
    too) and, with CASCADE, what reads them."""
    kind = "materialized view" if stmt.materialized else "view"
    if ctx.txn.read_only:
        raise errors.ReadOnlyTransaction(f"cannot execute DROP {kind.upper()} in a read-only transaction")
    targets, notices = ex.dropped(ctx, stmt.views, stmt.if_exists, kind=kind)
    notices += drop_with_dependents(ex, ctx, targets, stmt.cascade)
    return Result(status=f"DROP {kind.upper()}", notice="\n".join(notices) or None)


def drop_with_dependents(ex: Executor, ctx: Context, targets: list[TableVersion], cascade: bool,
                         targets_cascade: bool = False) -> list[str]:
    """Drop ``targets`` and, with CASCADE, the views and materialized views that read them
    (else 2BP01 if there are any); the notices PostgreSQL gives for those dropped with them (``targets_cascade``:
    the targets are such views themselves - DROP COLUMN ... CASCADE's)."""
    ids = {t.table_id for t in targets}
    found = dependents(ctx, ids)
    if found and not cascade:
        first = targets[0] if len(targets) == 1 else next(t for t in targets if t.table_id in _read_by(found))
        raise errors.DependentObjectsStillExist(
            f"cannot drop {relation_kind(first)} {first.name} because other objects depend on it\n"
            f"DETAIL:  {_dependency_lines(ctx, found)}\n"
            "HINT:  Use DROP ... CASCADE to drop the dependent objects too.")
    for version in [*targets, *found]:
        ex._write(ctx, version, None, check_ssi=not version.is_view)
    cascaded = [*targets, *found] if targets_cascade else found
    if len(cascaded) == 1:
        return [f"drop cascades to {relation_kind(cascaded[0])} {cascaded[0].name}"]
    if cascaded:
        return [f"drop cascades to {len(cascaded)} other objects\nDETAIL:  "
                + "\n".join(f"drop cascades to {relation_kind(v)} {v.name}" for v in cascaded)]
    return []


def dependents(ctx: Context, ids: set[str]) -> list[TableVersion]:
    """The views and materialized views (as the transaction sees them) that read any of
    ``ids``, directly or through others, nearest first; none of ``ids`` themselves."""
    if not ctx.may_hold("view", "materialized view"):
        return []
    views = [t for t in ctx.txn.tables(ctx.catalog) if (t.is_view or t.is_matview) and t.table_id not in ids]
    found: list[TableVersion] = []
    reached = set(ids)
    while True:
        step = [v for v in views if v not in found and any(d.table_id in reached for d in definition(v).depends)]
        if not step:
            return found
        found += step
        reached.update(v.table_id for v in step)


def definition(version: TableVersion):
    """The ViewDefinition of a view, the MatviewDefinition of a materialized view: its query
    and what it depends on."""
    return version.schema.view if version.is_view else version.schema.matview


def _read_by(views: list[TableVersion]) -> set[str]:
    return {d.table_id for v in views for d in definition(v).depends}


def _dependency_lines(ctx: Context, views: list[TableVersion]) -> str:
    """PostgreSQL's DETAIL: ``view v depends on table t``, a line each."""
    by_id = {v.table_id: v for v in views}
    lines = []
    for v in views:
        for d in definition(v).depends:
            target = by_id.get(d.table_id) or ctx.txn.table(ctx.catalog, d.db, d.name)
            kind = relation_kind(target) if target is not None else "table"
            lines.append(f"{relation_kind(v)} {v.name} depends on {kind} {d.name}")
    return "\n".join(dict.fromkeys(lines))


def _column_users(ctx: Context, version: TableVersion, column: str) -> list[TableVersion]:
    """The views and materialized views that use ``column`` of ``version`` (directly)."""
    return [v for v in dependents(ctx, {version.table_id})
            if any(d.table_id == version.table_id and any(n == column for n, _ in d.columns)
                   for d in definition(v).depends)]


def drop_column_users(ex: Executor, ctx: Context, version: TableVersion, column: str) -> list[str]:
    """ALTER TABLE ... DROP COLUMN c CASCADE: the views using ``c`` dropped (and the views
    reading those); PostgreSQL's notices."""
    users = _column_users(ctx, version, column)
    return drop_with_dependents(ex, ctx, users, True, targets_cascade=True) if users else []


def refuse_column_change(ctx: Context, version: TableVersion, column: str, change: str) -> None:
    """ALTER TABLE of a column a view uses: DROP COLUMN is 2BP01, ALTER COLUMN TYPE 0A000 (as in
    PostgreSQL); RENAME COLUMN 0A000 where the view cannot follow it (``follow_column_rename``)."""
    users = _column_users(ctx, version, column)
    if not users:
        return
    view = users[0]
    if change == "drop":
        raise errors.DependentObjectsStillExist.column(version.name, column, f"{relation_kind(view)} {view.name}")
    if change == "type":
        raise errors.NotSupportedError(
            "cannot alter type of a column used by a view or rule\n"
            f'DETAIL:  rule _RETURN on {relation_kind(view)} {view.name} depends on column "{column}"')
    raise errors.NotSupportedError(
        f'cannot rename column "{column}" of "{version.name}": {relation_kind(view)} {view.name} uses it and reads '
        "other relations too (txlake's views read columns by name; drop and create the view again)")


def follow_column_rename(ex: Executor, ctx: Context, version: TableVersion, old: str, new: str) -> None:
    """RENAME COLUMN of a column views use: as in PostgreSQL they go on reading it (their own
    column names unchanged) - each one's stored query names it, and is rewritten to the new
    name - where the view reads that one relation alone; a view reading others as well is
    refused (0A000: which of them an unqualified name means is not settled here)."""
    for view in _column_users(ctx, version, old):
        tree = _stored_tree(definition(view).query)
        ctes = cte_names(tree)
        relations = [t for t in tree.find_all(exp.Table) if isinstance(t.this, exp.Identifier)
                     and not (t.args.get("db") is None and identifier(t.this) in ctes)]
        if len(relations) != 1:
            refuse_column_change(ctx, version, old, "rename")
        for column in list(tree.find_all(exp.Column)):
            if isinstance(column.this, exp.Identifier) and identifier(column.this) == old:
                column.set("this", exp.to_identifier(new, quoted=not _SAFE_NAME.fullmatch(new)))
        depends = tuple(dataclasses.replace(d, columns=tuple((new if n == old else n, t) for n, t in d.columns))
                        if d.table_id == version.table_id else d for d in definition(view).depends)
        _redefine(ex, ctx, view, query=tree.sql(dialect=Txlake), depends=depends)


def _redefine(ex: Executor, ctx: Context, reader: TableVersion, **changes) -> None:
    """``reader``, a view or a materialized view, with ``changes`` to its definition, written:
    a view's as a new schema; a materialized view's in its catalog entry alone - its rows and
    schema id stay (storage/commit.py ``_RENAMEABLE`` carries it over)."""
    changed = dataclasses.replace(definition(reader), **changes)
    definition_query(changed.query)  # (reads back as one query)
    if reader.is_view:
        schema = dataclasses.replace(reader.schema, schema_id=reader.schema.schema_id + 1, view=changed)
        ex._write(ctx, reader, dataclasses.replace(reader, schema=schema, caches={}), check_ssi=False)
    else:
        ex._write(ctx, reader, reader.with_files(schema=dataclasses.replace(reader.schema, matview=changed)),
                  check_ssi=False)


def alter_view(ex: Executor, ctx: Context, stmt: st.AlterView, params) -> Result:
    """``ALTER VIEW v RENAME TO w``: the view dropped and made again under the new name (one
    commit: other sessions see one or the other); refused while other views read it, which
    name it (0A000). ``ALTER VIEW v RENAME COLUMN a TO b``: the definition's column renamed
    (its query gives the columns by position)."""
    version = ctx.altered(stmt.view, stmt.if_exists, "ALTER VIEW")
    if isinstance(version, Result):
        return version
    if not version.is_view:
        raise errors.WrongObjectType(f'"{version.name}" is not a view')
    if stmt.column is not None:
        return rename_column(ex, ctx, version, *stmt.column)
    return rename(ex, ctx, version, stmt.new)


def rename_column(ex: Executor, ctx: Context, version: TableVersion, old: str, new: str) -> Result:
    if ctx.txn.read_only:
        raise errors.ReadOnlyTransaction("cannot execute ALTER VIEW in a read-only transaction")
    definition = version.schema.view
    names = definition.names
    if old not in names:
        raise errors.UndefinedColumn(f'column "{old}" does not exist')
    if new.lower() in (n.lower() for n in names if n != old):
        raise errors.DuplicateColumn(f'column "{new}" of relation "{version.name}" already exists')
    columns = tuple((new if n == old else n, t) for n, t in definition.columns)
    comments = tuple(dataclasses.replace(c, name=new) if (c.kind, c.name) == ("column", old) else c
                     for c in version.schema.comments)  # (the column's comment follows it)
    schema = dataclasses.replace(version.schema, schema_id=version.schema.schema_id + 1,
                                 view=dataclasses.replace(definition, columns=columns), comments=comments)
    ex._write(ctx, version, dataclasses.replace(version, schema=schema, caches={}), check_ssi=False)
    follow_column_rename(ex, ctx, version, old, new)
    return Result(status="ALTER VIEW")


def rename(ex: Executor, ctx: Context, version: TableVersion, new: st.TableName) -> Result:
    """The view dropped and made again under the new name (one commit: other sessions see one
    or the other), and the views that read it made to read it so: their stored queries name
    it (qualified, as made), which is rewritten - by its qualified name, nothing else."""
    if ctx.txn.read_only:
        raise errors.ReadOnlyTransaction("cannot execute ALTER VIEW in a read-only transaction")
    if new.db is not None and new.db != version.db:
        raise errors.NotSupportedError("ALTER VIEW ... RENAME TO cannot move a view to another schema")
    if ctx.txn.table(ctx.catalog, version.db, new.name) is not None:
        raise errors.DuplicateTable(f'relation "{new.name}" already exists')
    renamed = TableVersion(uuid.uuid4().hex, version.db, new.name, version.schema)
    readers = _readers(ctx, version)
    ex._write(ctx, version, None, check_ssi=False)
    ex._write(ctx, None, renamed, check_ssi=False)
    follow_rename(ex, ctx, version, renamed, readers)
    return Result(status="ALTER VIEW")


def _readers(ctx: Context, version: TableVersion) -> list[TableVersion]:
    """The views and materialized views that read ``version`` itself (not through another)."""
    return [v for v in dependents(ctx, {version.table_id})
            if any(d.table_id == version.table_id for d in definition(v).depends)]


def follow_rename(ex: Executor, ctx: Context, old: TableVersion, renamed: TableVersion,
                  readers: list[TableVersion] | None = None) -> None:
    """The views reading ``old`` made to read ``renamed`` (a table keeps its id; a view renamed
    is made anew): as PostgreSQL's, which bind by OID, their definitions then name it so.
    ``readers``: those views, if found before ``old`` was written."""
    for reader in _readers(ctx, old) if readers is None else readers:
        stored = definition(reader)
        query = _renamed_in(_stored_tree(stored.query), old, renamed.name)
        depends = tuple(ViewDependency(renamed.table_id, d.db, renamed.name, d.columns)
                        if d.table_id == old.table_id else d for d in stored.depends)
        _redefine(ex, ctx, reader, query=query, depends=depends)


def _stored_tree(text: str) -> exp.Expression:
    """A stored definition as sqlglot parses it (before parser/semantics.py: as it was written)."""
    return sqlglot.parse_one(text, read=Txlake)


def _renamed_in(query: exp.Expression, old: TableVersion, new: str) -> str:
    """``query`` (a stored definition: its table names qualified) naming ``old`` as ``new``."""
    schema = catalog_views.schema_name(old.db)

    def visit(node):
        if isinstance(node, exp.Table) and isinstance(node.this, exp.Identifier) and node.args.get("db") \
                and not node.catalog and table_name(node) == st.TableName(st.schema_database(schema), old.name):
            node = node.copy()
            if not node.alias:  # (columns qualified by the old name still name it)
                node.set("alias", exp.TableAlias(this=node.this.copy()))
            node.set("this", exp.to_identifier(new, quoted=not _SAFE_NAME.fullmatch(new)))
        return node

    return query.transform(visit).sql(dialect=Txlake)
