"""Materialized views: CREATE MATERIALIZED VIEW and REFRESH MATERIALIZED VIEW, as PostgreSQL's.

A materialized view is a table (storage/schema.py ``MatviewDefinition``): its rows are Parquet
files in the log, published as a Paimon table and read by Spark as any table's; its schema
holds the query that made them - stored as a view's is, table names qualified as they resolved
then (engine/views.py ``qualified``) - what it reads, and whether it has been populated.

Guarantees:

- CREATE runs the query once (``WITH NO DATA``: not at all, its columns alone are found) and
  stores its rows; the columns are named and typed as CREATE TABLE AS names and types them.
- REFRESH runs the stored query again, at the statement's snapshot, and replaces every row:
  a rewrite of the table, transactional as any write (undone by ROLLBACK; other sessions read
  the old rows until COMMIT). ``WITH NO DATA`` empties it and marks it unpopulated. Its unique
  indexes are checked against the new rows (23505). CONCURRENTLY needs one (55000) and a
  populated view (0A000); it takes EXCLUSIVE rather than ACCESS EXCLUSIVE, so readers in other
  sessions go on reading meanwhile - as they do without it here too, every reader reading a
  snapshot.
- What it reads cannot be dropped without CASCADE (2BP01), nor its used columns dropped or
  retyped; renamed, it follows (engine/views.py treats views and materialized views alike).
- A statement may read it (55000 while unpopulated), not write it nor lock its rows (42809):
  engine/views.py ``expand``.

Where txlake differs: the cross-process checks a view's commit makes against concurrent drops
of what it reads (storage/commit.py ``_check_views``) are not made for a materialized view -
its rows are a copy, and a REFRESH after such a drop fails (42P01) rather than reading wrongly.
"""

from __future__ import annotations

import dataclasses
import uuid

import pyarrow as pa
import pyarrow.compute as pc

from txlake import errors
from txlake.engine import catalog_views, system_columns, uniques, user_types, views
from txlake.engine.executor import Context, Executor, Result, distinct_names, with_settings
from txlake.engine.temp_tables import TEMP_DB, is_temp
from txlake.parser import statements as st
from txlake.parser.dialect import Txlake
from txlake.storage.commit import key_text
from txlake.storage.schema import Column, MatviewDefinition, TableSchema, type_from_field
from txlake.storage.version import TableVersion


def create_matview(ex: Executor, ctx: Context, stmt: st.CreateMatview, params) -> Result:
    if ctx.txn.read_only:
        raise errors.ReadOnlyTransaction("cannot execute CREATE MATERIALIZED VIEW in a read-only transaction")
    if stmt.param_count:
        raise errors.NotSupportedError("materialized views may not be defined using bound parameters")
    db, name = stmt.view.qualified(ctx.db)
    if db in catalog_views.CATALOG_SCHEMAS:
        raise errors.ProgrammingError(f'permission denied to create "{db}.{name}"', sqlstate="42501")
    if db == TEMP_DB:
        raise errors.NotSupportedError("materialized views cannot be temporary")
    if ex.name_taken(ctx, db, name):
        if stmt.if_not_exists:
            return Result(status="CREATE MATERIALIZED VIEW", notice=f'relation "{name}" already exists, skipping')
        user_types.refuse_type_name(ctx, db, name)
        raise errors.DuplicateTable(f'relation "{name}" already exists')
    written, reads = views.qualified(ctx, stmt.written)
    if any(is_temp(v) for v in reads):
        raise errors.NotSupportedError("materialized views must not use temporary tables or views")
    data = ex.query_rows(ctx, stmt.query, params, stmt.columns, stmt.with_no_data)
    distinct_names(data.column_names)
    system_columns.refuse_column_names(data.column_names)  # (a materialized view is a table: as PostgreSQL's)
    columns = tuple(Column(i, f.name, type_from_field(f)) for i, f in enumerate(data.schema))
    definition = MatviewDefinition(written.sql(dialect=Txlake), views.dependencies(written, reads),
                                   populated=not stmt.with_no_data)
    views.definition_query(definition.query)  # (what is stored reads back as one query)
    version = TableVersion(uuid.uuid4().hex, db, name, TableSchema(0, columns, (), len(columns) - 1,
                                                                   matview=definition))
    if data.num_rows:
        version = ex._apply(version, None, ex._conform(data, version.schema))
    ex._write(ctx, None, version)
    if stmt.with_no_data:
        return Result(status="CREATE MATERIALIZED VIEW")
    return Result(status=f"SELECT {data.num_rows}", rowcount=data.num_rows)


def refresh_matview(ex: Executor, ctx: Context, stmt: st.RefreshMatview, params) -> Result:
    version = ctx.resolve(stmt.view)
    if not version.is_matview:
        raise errors.WrongObjectType(f'"{version.name}" is not a materialized view')
    if ctx.txn.read_only:
        raise errors.ReadOnlyTransaction("cannot execute REFRESH MATERIALIZED VIEW in a read-only transaction")
    definition = version.schema.matview
    if stmt.concurrently:  # (PostgreSQL's checks, in its order)
        if stmt.with_no_data:
            raise errors.SyntaxError("CONCURRENTLY and WITH NO DATA options cannot be used together")
        if not definition.populated:
            raise errors.NotSupportedError("CONCURRENTLY cannot be used when the materialized view is not populated")
        # (PostgreSQL's is_usable_unique_index: immediate, no WHERE, every key a plain column)
        if not any(not u.key and u.predicate is None and not u.deferrable for u in version.schema.uniques):
            raise errors.ObjectNotInPrerequisiteState(
                f'cannot refresh materialized view "{catalog_views.relation_name(version.db, version.name)}" '
                "concurrently\nHINT:  Create a unique index with no WHERE clause on one or more columns of the "
                "materialized view.")
    schema = version.schema
    if definition.populated == stmt.with_no_data:
        schema = dataclasses.replace(schema, matview=dataclasses.replace(definition, populated=not stmt.with_no_data))
    data = schema.arrow_schema().empty_table() if stmt.with_no_data else _rows(ex, ctx, version)
    if stmt.concurrently:
        _refuse_duplicate_rows(version, data)
    for unique in schema.uniques:
        uniques.validate(unique, data)
    ex.rewrite_table(ctx, version, schema, data)
    return Result(status="REFRESH MATERIALIZED VIEW")


def _rows(ex: Executor, ctx: Context, version: TableVersion) -> pa.Table:
    """The rows the stored query of ``version`` gives now, as its columns, by position (a table
    it reads with ``*`` may have gained columns since: the view keeps those it had)."""
    query = views.expanded_query(ctx, views.definition_query(version.schema.matview.query))
    query = with_settings(ctx, st.Query(expression=query)).expression  # (current_setting(): the session's now)
    data = ex.query_rows(ctx, query, ())
    names = version.schema.names
    return pa.table(data.columns[:len(names)], names=names)


def _refuse_duplicate_rows(version: TableVersion, data: pa.Table) -> None:
    """REFRESH ... CONCURRENTLY matches old rows to new ones whole: two equal new rows without a
    NULL are 23505, as PostgreSQL's refresh_by_match_merge finds them."""
    rows = data
    for name in data.column_names:
        rows = rows.filter(pc.is_valid(rows.column(name)))
    if rows.num_rows < 2:
        return
    row = uniques.key_held_twice(rows, rows.column_names)
    if row is not None:
        raise errors.UniqueViolation(
            f'new data for materialized view "{version.name}" contains duplicate rows without any null columns\n'
            f"DETAIL:  Row: ({','.join(key_text(v) for v in row)})")

