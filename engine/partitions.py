"""Declarative partitioning, as PostgreSQL 16's: ``CREATE TABLE p (...) PARTITION BY {RANGE |
LIST} (columns)``, ``CREATE TABLE c PARTITION OF p FOR VALUES ... | DEFAULT``, ``ALTER TABLE p
ATTACH | DETACH PARTITION c``.

A partitioned table is a table whose schema holds its key (``TableSchema.partitioning``) and
which holds no rows of its own; each partition is an ordinary table whose schema holds its bound
(``TableSchema.partition_of``: the parent's id, the bound as PostgreSQL shows it, and the
partition constraint as SQL). Both are catalog entries changed by the log's ordinary changes, so
partitioning DDL is transactional, replayed and seen by other processes as any table's creation.

Guarantees:

- A reference to a partitioned table reads the union of its partitions (engine/views.py expands
  it as a view's query, ``body``), at the statement's snapshot; ``ONLY p`` reads its own rows,
  which are none.
- A partition's rows all meet its constraint: every row written to it is checked with its CHECKs
  (``TableSchema.enforced_checks``: 23514 ``violates partition constraint``); a DEFAULT
  partition's constraint names its siblings' bounds and is rewritten as they come and go, its
  rows checked against a new sibling first (23514).
- INSERT (and COPY) into a partitioned table routes each row to the partition its key belongs
  in (``route``; 23514 ``no partition of relation "p" found for row``); UPDATE and DELETE act on
  every partition, and an UPDATE that sets a key column moves each row it changes (a delete and
  an insert through the router, as PostgreSQL 11+).
- Bounds never overlap (42P17), a range is never empty (42P17), and a primary key or unique
  constraint of a partitioned table includes every key column (0A000), so that enforced per
  partition it holds for the whole table.

Ordinary tables pay nothing: statements look for partitioned tables only where the catalog
counts some (``CatalogVersion.partitioned``), and the write paths test one schema attribute.
Not supported (0A000): HASH partitioning (PostgreSQL's hash functions decide which partition a
row is in, and a dump's rows must stay where they were), keys of expressions, foreign keys of or
to a partitioned table, triggers on one, MERGE into one, ON CONFLICT DO UPDATE setting a key.
"""

from __future__ import annotations

import uuid
from dataclasses import replace

import pyarrow as pa
import pyarrow.compute as pc
from sqlglot import exp

from txlake import errors
from txlake.engine import checks, uniques, user_types
from txlake.engine.executor import Context, Executor, Result, _placeholders
from txlake.engine.executor import _cast as assigned_as
from txlake.engine.pg_text import format_value
from txlake.parser.semantics import postgres_semantics
from txlake.parser import statements as st
from txlake.storage.schema import ColumnType, PartitionBound, PartitionKey, TableSchema, constraint_name
from txlake.storage.version import PythonRows, TableVersion

_NUMERIC = ("SMALLINT", "INT", "BIGINT", "REAL", "DOUBLE", "DECIMAL")
_INFINITE = ("MINVALUE", "MAXVALUE")


# --- the catalog ---------------------------------------------------------------------------

def partitions(ctx: Context, parent: TableVersion) -> list[TableVersion]:
    """The partitions of ``parent`` this transaction sees, by name (a DEFAULT one last)."""
    return children_of(ctx.txn.tables(ctx.catalog), parent.table_id)


def children_of(tables: list[TableVersion], parent_id: str) -> list[TableVersion]:
    """The partitions among ``tables`` of the partitioned table ``parent_id``, as ``partitions``."""
    found = [t for t in tables if t.schema.partition_of is not None and t.schema.partition_of.parent == parent_id]
    return sorted(found, key=lambda t: (t.schema.partition_of.kind == "default", t.name))


def parent_of(ctx: Context, version: TableVersion) -> TableVersion | None:
    bound = version.schema.partition_of
    return ctx.by_id(bound.parent) if bound is not None else None


def leaves(ctx: Context, version: TableVersion) -> list[TableVersion]:
    """The tables holding the rows of ``version``: itself, or its partitions' leaves."""
    if version.schema.partitioning is None:
        return [version]
    return [leaf for child in partitions(ctx, version) for leaf in leaves(ctx, child)]


def body(ctx: Context, parent: TableVersion) -> exp.Query:
    """What a reference to the partitioned table ``parent`` reads: its partitions' rows, the
    parent's columns by name (an attached partition may hold them in another order); with no
    partitions, its own (empty) storage."""
    names = [exp.column(n, quoted=True) for n in parent.schema.names]
    children = partitions(ctx, parent)
    sources = [exp.Table(this=exp.to_identifier(c.name, quoted=True), db=exp.to_identifier(c.db, quoted=True))
               for c in children]
    if not sources:
        sources = [exp.Table(this=exp.to_identifier(parent.name, quoted=True),
                             db=exp.to_identifier(parent.db, quoted=True), only=True)]
    query = exp.select(*names).from_(sources[0])
    for source in sources[1:]:
        query = exp.union(query, exp.select(*names).from_(source), distinct=False)
    return query


# --- CREATE TABLE ... PARTITION BY / PARTITION OF -------------------------------------------

def keyed(name: str, schema: TableSchema, spec: st.PartitionKeySpec) -> TableSchema:
    """``schema`` (of the table ``name`` being made) partitioned by ``spec``: its key's columns
    exist and are of types a bound can hold; its primary key and unique constraints include
    them (0A000, PostgreSQL's words)."""
    if spec.strategy == "hash":
        raise errors.NotSupportedError(
            "PARTITION BY HASH is not supported: PostgreSQL's hash functions place each row, and txlake does not "
            "compute them (partition by RANGE or LIST)")
    for column in spec.columns:
        col = schema.column(column)
        if col is None:
            raise errors.UndefinedColumn(f'column "{column}" named in partition key does not exist')
        if col.type.kind in ("ARRAY", "JSON", "JSONB", "INTERVAL", "INET", "CIDR"):
            raise errors.NotSupportedError(f'partition key column "{column}" of type {col.type.display().lower()} '
                                           "is not supported")
    keys = ([("PRIMARY KEY", schema.primary_key)] if schema.primary_key else []) + \
        [("UNIQUE", u.columns) for u in schema.uniques]
    for kind, columns in keys:
        missing = next((c for c in spec.columns if c not in columns), None)
        if missing is not None:
            raise errors.NotSupportedError(
                "unique constraint on partitioned table must include all partitioning columns\n"
                f'DETAIL:  {kind} constraint on table "{name}" lacks column "{missing}" which is part of the '
                "partition key.")
    if schema.indexes and any(i.items for i in schema.indexes):
        raise errors.NotSupportedError("foreign keys of a partitioned table are not supported")
    return replace(schema, partitioning=PartitionKey(spec.strategy, spec.columns))


def create_partition(ex: Executor, ctx: Context, stmt: st.CreateTable, params) -> Result:
    """``CREATE TABLE c PARTITION OF p [( constraints )] {FOR VALUES ... | DEFAULT} [PARTITION BY
    ...]``: a table with the parent's columns, defaults, NOT NULLs, CHECKs and keys, and its bound."""
    db, name = stmt.table.qualified(ctx.db)
    if ex.name_taken(ctx, db, name):
        if stmt.if_not_exists:
            return Result(status="CREATE TABLE", notice=f'relation "{name}" already exists, skipping')
        raise errors.DuplicateTable(f'relation "{name}" already exists')
    parent = _partitioned(ctx, stmt.partition_of)
    inherited = parent.schema
    # (its foreign keys the parent's, by their names, as PostgreSQL clones them: the partition's
    # rows are what they check; the parent holds none)
    schema = TableSchema(0, inherited.columns, inherited.primary_key, inherited.highest_field_id,
                         checks=inherited.checks, uniques=tuple(replace(u, name=_renamed(u.name, parent.name, name))
                                                                for u in inherited.uniques),
                         foreign_keys=inherited.foreign_keys)
    if stmt.primary_key:
        if schema.primary_key:
            raise errors.ProgrammingError(f'multiple primary keys for table "{name}" are not allowed',
                                          sqlstate="42P16")
        schema = replace(schema, primary_key=stmt.primary_key, primary_key_name=stmt.primary_key_name,
                         columns=tuple(replace(c, not_null=True) if c.name in stmt.primary_key else c
                                       for c in schema.columns))
    schema = user_types.stamped(ctx, schema)  # (its columns' enums' and domains' rules)
    if stmt.constraints:
        schema = ex._with_constraints(ctx, db, name, schema, list(stmt.constraints), data=None)
    if stmt.partition_by is not None:
        schema = keyed(name, schema, stmt.partition_by)
    version = TableVersion(uuid.uuid4().hex, db, name, schema)
    _attach(ex, ctx, parent, version, stmt.bound)
    return Result(status="CREATE TABLE")


def _renamed(constraint: str, parent: str, child: str) -> str:
    """A key's name in a partition: the parent's, its table's name part replaced (p_a_key: c_a_key)."""
    return child + constraint[len(parent):] if constraint.startswith(parent + "_") else constraint


def _partitioned(ctx: Context, name: st.TableName) -> TableVersion:
    parent = ctx.resolve(name)
    if parent.schema.partitioning is None:
        raise errors.WrongObjectType(f'table "{parent.name}" is not partitioned')
    return parent


def _attach(ex: Executor, ctx: Context, parent: TableVersion, version: TableVersion,
            spec: st.PartitionBoundSpec, data: pa.Table | None = None) -> None:
    """``version`` (new, or an existing table whose rows are ``data``) made a partition of
    ``parent`` with the bound ``spec``: checked against its siblings (42P17), its rows against
    it (23514), a DEFAULT sibling's rows and constraint against and for it."""
    siblings = partitions(ctx, parent)
    bound = _bound(ex, ctx, parent, version.name, spec, siblings)
    default = next((s for s in siblings if s.schema.partition_of.kind == "default"), None)
    if bound.kind == "default" and default is not None:
        raise errors.ProgrammingError(f'partition "{version.name}" conflicts with existing default partition '
                                      f'"{default.name}"', sqlstate="42P17")
    if bound.kind == "default":
        bound = replace(bound, constraint=_default_constraint(ctx, parent, siblings))
    schema = replace(version.schema, partition_of=bound)
    if data is not None and data.num_rows and bound.constraint:
        failure = checks.first_failure(ex, version.name, (bound.check,), data, schema)
        if failure is not None:
            raise errors.CheckViolation(f'partition constraint of relation "{version.name}" is violated by some row')
    if data is None:
        ex._write(ctx, None, replace(version, schema=schema))
    else:
        ex.rewrite_table(ctx, version, schema, data)
    if default is not None and bound.kind != "default":
        _redefine_default(ex, ctx, parent, default, check=bound)


def _redefine_default(ex: Executor, ctx: Context, parent: TableVersion, default: TableVersion,
                      check: PartitionBound | None = None) -> None:
    """The DEFAULT partition's constraint made anew from its siblings' bounds; ``check``: a new
    sibling's, which none of its rows may meet (23514, PostgreSQL's words)."""
    if check is not None and check.constraint:
        rows = _rows_of(ex, ctx, default)
        if rows.num_rows:
            outside = replace(check.check, expression=f"NOT ({check.constraint})")
            inside = checks.first_failure(ex, default.name, (outside,), rows, default.schema)
            if inside is not None:
                raise errors.CheckViolation(f'updated partition constraint for default partition "{default.name}" '
                                            "would be violated by some row")
    siblings = [s for s in partitions(ctx, parent) if s.table_id != default.table_id]
    bound = replace(default.schema.partition_of, constraint=_default_constraint(ctx, parent, siblings))
    default = ctx.by_id(default.table_id)
    ex.rewrite_table(ctx, default, replace(default.schema, partition_of=bound), _rows_of(ex, ctx, default))


def _rows_of(ex: Executor, ctx: Context, version: TableVersion) -> pa.Table:
    source = ex._source(version)
    return source if isinstance(source, pa.Table) else source.read_all()


def _default_constraint(ctx: Context, parent: TableVersion, siblings: list[TableVersion]) -> str | None:
    """A DEFAULT partition's constraint: no sibling's (with the parent's own, if it is a partition)."""
    others = [f"COALESCE(({s.schema.partition_of.constraint}), FALSE)" for s in siblings
              if s.schema.partition_of.kind != "default" and s.schema.partition_of.constraint]
    mine = f"NOT ({' OR '.join(others)})" if others else None
    return _within_parent(parent, mine)


def _within_parent(parent: TableVersion, constraint: str | None) -> str | None:
    """``constraint`` and the parent's own partition constraint, if the parent is a partition."""
    above = parent.schema.partition_of.constraint if parent.schema.partition_of is not None else None
    if above and constraint:
        return f"({above}) AND ({constraint})"
    return above or constraint


# --- ALTER TABLE ---------------------------------------------------------------------------

def alter(ex: Executor, ctx: Context, version: TableVersion, stmt: st.AlterTable) -> Result | None:
    """ALTER TABLE of a partitioned table or a partition, or ATTACH / DETACH PARTITION: the
    statement's Result, or None for an action the table's ordinary ALTER does (a partitioned
    table's column changes and CHECK / FOREIGN KEY constraints made of each partition first). A
    partition's own column change is 42P16: its columns are its parent's."""
    for action in stmt.actions:
        if isinstance(action, (st.AttachPartition, st.DetachPartition)):
            if len(stmt.actions) > 1:
                raise errors.NotSupportedError("ATTACH / DETACH PARTITION must be the ALTER TABLE's only action")
            if isinstance(action, st.AttachPartition):
                attach(ex, ctx, version, action)
            else:
                detach(ex, ctx, version, action)
            return Result(status="ALTER TABLE")
        if isinstance(action, _COLUMN_ACTIONS):
            if version.schema.partitioning is not None:
                _columns_of_each(ex, ctx, version, stmt)
                break
            if not stmt.inherited:  # (a partition's columns are its parent's)
                if isinstance(action, st.AlterColumn) and action.type is None:
                    continue  # (a default, NOT NULL: its own, as PostgreSQL lets it)
                raise errors.ProgrammingError(f'cannot change the columns of partition "{version.name}": change '
                                              "its partitioned table's", sqlstate="42P16")
        if isinstance(action, st.AddConstraint) and version.schema.partitioning is not None:
            if partitions(ctx, version) and not stmt.only:
                if len(stmt.actions) > 1 or not isinstance(action.constraint, (st.ForeignKeySpec, st.CheckSpec)):
                    raise errors.NotSupportedError(
                        "adding a constraint other than a CHECK or a FOREIGN KEY to a partitioned table that has "
                        "partitions is not supported: add it to the table ONLY and to each partition")
                _add_to_partitions(ex, ctx, version, stmt, action)
    return None


_COLUMN_ACTIONS = (st.AddColumn, st.DropColumn, st.RenameColumn, st.AlterColumn)


def _columns_of_each(ex: Executor, ctx: Context, parent: TableVersion, stmt: st.AlterTable) -> None:
    """ALTER TABLE p ADD / DROP / RENAME / ALTER COLUMN of a partitioned table: each partition's
    first (its rows filled, checked, cast there), then the parent's own ALTER, as PostgreSQL
    changes the whole hierarchy. Refused: with ONLY (42P16), with other actions, a key column's
    drop or type (42P16, PostgreSQL's words) or rename (0A000: a bound names it), a new serial
    or identity column (each partition would number it alone)."""
    key = set(parent.schema.partitioning.columns)
    if stmt.only and partitions(ctx, parent):
        raise errors.ProgrammingError("column changes must be made to the partitions too: ALTER TABLE without ONLY",
                                      sqlstate="42P16")
    for action in stmt.actions:
        if not isinstance(action, _COLUMN_ACTIONS):
            raise errors.NotSupportedError("a column change of a partitioned table with other actions is not "
                                           "supported: make them apart")
        if isinstance(action, st.AddColumn) and (action.column.sequence or action.column.always or
                                                 action.column.by_default):
            raise errors.NotSupportedError("adding a serial or identity column to a partitioned table is not "
                                           "supported")
        named = action.old if isinstance(action, st.RenameColumn) else getattr(action, "name", None)
        if named in key and isinstance(action, st.RenameColumn):  # (PostgreSQL's keys name columns by number)
            raise errors.NotSupportedError(f'renaming column "{named}" of the partition key of relation '
                                           f'"{parent.name}" is not supported')
        if named in key and (isinstance(action, st.DropColumn) or
                             isinstance(action, st.AlterColumn) and action.type is not None):
            verb = "drop" if isinstance(action, st.DropColumn) else "alter type of"
            raise errors.ProgrammingError(f'cannot {verb} column "{named}" because it is part of the partition key '
                                          f'of relation "{parent.name}"', sqlstate="42P16")
    for child in partitions(ctx, parent):
        ex.alter_table(ctx, replace(stmt, table=st.TableName(child.db, child.name), only=False, inherited=True), ())


def _add_to_partitions(ex: Executor, ctx: Context, parent: TableVersion, stmt: st.AlterTable,
                       action: st.AddConstraint) -> None:
    """ALTER TABLE p ADD CHECK / FOREIGN KEY (pg_dump's form of a partitioned table's foreign
    key: ``ALTER TABLE p ADD CONSTRAINT ...``, no ONLY): added to each partition first, under
    the parent's name for it, checking each one's rows (23514, 23503) - then the parent's own
    ALTER adds it to the parent, as PostgreSQL adds it to the whole hierarchy."""
    spec = action.constraint
    if spec.name is None:
        columns = spec.columns if isinstance(spec, st.ForeignKeySpec) else (spec.column,) if spec.column else ()
        kind = "fkey" if isinstance(spec, st.ForeignKeySpec) else "check"
        spec = replace(spec, name=constraint_name(parent.name, columns, kind, parent.schema.constraint_names(
            parent.name)))
    named = replace(stmt, actions=(replace(action, constraint=spec),))
    for child in partitions(ctx, parent):
        ex.alter_table(ctx, replace(named, table=st.TableName(child.db, child.name), only=False), ())


def attach(ex: Executor, ctx: Context, parent: TableVersion, action: st.AttachPartition) -> None:
    """``ATTACH PARTITION c FOR VALUES ...``: the table ``c`` - the parent's columns by name and
    type, not a partition already - made a partition, its rows checked against the bound (23514)."""
    _partitioned(ctx, st.TableName(parent.db, parent.name))
    child = ctx.resolve(action.partition)
    if not child.is_table or child.is_matview:
        raise errors.WrongObjectType(f'"{child.name}" is not a table')
    if child.schema.partition_of is not None:
        raise errors.WrongObjectType(f'"{child.name}" is already a partition')
    if child.table_id == parent.table_id or child.schema.partitioning is not None and \
            parent.table_id in {t.table_id for t in _ancestors(ctx, parent)}:
        raise errors.WrongObjectType(f'circular inheritance not allowed\nDETAIL:  "{parent.name}" is already a '
                                     f'child of "{child.name}".')
    for col in child.schema.columns:
        mine = parent.schema.column(col.name)
        if mine is None:
            raise errors.DatatypeMismatch(f'table "{child.name}" contains column "{col.name}" not found in parent '
                                          f'"{parent.name}"\nDETAIL:  The new partition may contain only the columns '
                                          "present in parent.")
        if mine.type != col.type:
            raise errors.DatatypeMismatch(f'child table "{child.name}" has different type for column "{col.name}"')
    for col in parent.schema.columns:
        if child.schema.column(col.name) is None:
            raise errors.DatatypeMismatch(f'child table is missing column "{col.name}"')
        if col.not_null and not child.schema.column(col.name).not_null:
            raise errors.DatatypeMismatch(f'column "{col.name}" in child table must be marked NOT NULL')
    if parent.schema.primary_key and set(child.schema.primary_key) != set(parent.schema.primary_key):
        raise errors.NotSupportedError(
            f'partition "{child.name}" must have the primary key ({", ".join(parent.schema.primary_key)}) of '
            f'"{parent.name}" to be attached: add it first')
    shape = lambda fk: (fk.columns, fk.table_id, fk.ref_columns)  # noqa: E731
    lacking = [fk for fk in parent.schema.foreign_keys if shape(fk) not in map(shape, child.schema.foreign_keys)]
    if lacking:  # (PostgreSQL clones it onto the table, checking its rows: add it to the table first)
        raise errors.NotSupportedError(
            f'partition "{child.name}" must have the foreign key "{lacking[0].name}" of "{parent.name}" to be '
            "attached: add it first")
    _attach(ex, ctx, parent, child, action.bound, data=_rows_of(ex, ctx, child))


def attach_index(ex: Executor, ctx: Context, stmt: st.AlterIndex) -> Result:
    """``ALTER INDEX parent_key ATTACH PARTITION partition_key``: a partitioned table's key is
    each partition's own here, so there is nothing to join - but both must be keys (42704) of a
    partitioned table and of one of its partitions, over the same columns (42P17, PostgreSQL's)."""
    found = []
    for name in (stmt.index, stmt.attach):
        db, index = ctx.locate(name)
        hit = uniques.index_names(ex, ctx, db).get(index)
        if hit is None:
            raise errors.UndefinedTable(f'relation "{name}" does not exist')
        found.append((hit[0], hit[1].columns))
    (parent, parent_key), (child, child_key) = found
    if parent_of(ctx, child) is None or parent_of(ctx, child).table_id != parent.table_id or \
            parent_key is None or set(parent_key) != set(child_key or ()):
        raise errors.ProgrammingError(f'cannot attach index "{stmt.attach.name}" as a partition of index '
                                      f'"{stmt.index.name}"\nDETAIL:  Index "{stmt.attach.name}" is not an index on '
                                      f'any partition of table "{parent.name}".', sqlstate="42P17")
    return Result(status="ALTER INDEX")


def _ancestors(ctx: Context, version: TableVersion) -> list[TableVersion]:
    parent = parent_of(ctx, version)
    return [parent, *_ancestors(ctx, parent)] if parent is not None else []


def detach(ex: Executor, ctx: Context, parent: TableVersion, action: st.DetachPartition) -> None:
    """``DETACH PARTITION c``: ``c`` an ordinary table again, its rows its own."""
    child = ctx.resolve(action.partition)
    bound = child.schema.partition_of
    if bound is None or bound.parent != parent.table_id:
        raise errors.UndefinedTable(f'relation "{child.name}" is not a partition of relation "{parent.name}"')
    ex.rewrite_table(ctx, child, replace(child.schema, partition_of=None), _rows_of(ex, ctx, child))
    after_drop(ex, ctx, [child], parent)


def with_partitions(ctx: Context, targets: list[TableVersion]) -> list[TableVersion]:
    """The tables a DROP TABLE of ``targets`` drops: a partitioned one's partitions too."""
    found = dict.fromkeys(targets)
    for version in targets:
        if version.schema.partitioning is not None:
            found.update(dict.fromkeys(with_partitions(ctx, partitions(ctx, version))))
    return list(found)


def after_drop(ex: Executor, ctx: Context, dropped: list[TableVersion], parent: TableVersion | None = None) -> None:
    """A DEFAULT partition whose sibling was dropped or detached (of ``parent``: it stays) takes
    the sibling's rows from now on."""
    gone = {v.table_id for v in dropped}
    for version in dropped:
        parent = parent or parent_of(ctx, version)
        if parent is None or version.schema.partition_of.kind == "default":
            continue
        default = next((s for s in partitions(ctx, parent) if s.schema.partition_of.kind == "default"), None)
        if default is not None and default.table_id not in gone:
            _redefine_default(ex, ctx, parent, default)


# --- bounds --------------------------------------------------------------------------------

def _bound(ex: Executor, ctx: Context, parent: TableVersion, name: str, spec: st.PartitionBoundSpec,
           siblings: list[TableVersion]) -> PartitionBound:
    key = parent.schema.partitioning
    if spec.kind == "default":
        return PartitionBound(parent.table_id, "default", "DEFAULT", None)
    if spec.kind != key.strategy:  # (PostgreSQL's 42P16 words)
        word = {"range": "range", "list": "list", "hash": "hash"}[key.strategy]
        raise errors.ProgrammingError(f"invalid bound specification for a {word} partition", sqlstate="42P17")
    types = [parent.schema.column(c).type for c in key.columns]
    if spec.kind == "list":
        values = tuple(_value(ex, v, types[0], key.columns[0]) for v in spec.values)
        _refuse_list_overlap(ex, name, values, types[0], siblings)
        shown = f"FOR VALUES IN ({', '.join(_shown(v, types[0]) for v in values)})"
        return PartitionBound(parent.table_id, "list", shown,
                              _within_parent(parent, _list_constraint(key.columns[0], values, types[0])), values=values)
    if len(spec.lower) != len(key.columns) or len(spec.upper) != len(key.columns):
        raise errors.ProgrammingError(f"{'FROM' if len(spec.lower) != len(key.columns) else 'TO'} must specify "
                                      "exactly one value per partitioning column", sqlstate="42P17")
    lower = tuple(_value(ex, v, t, c) for v, t, c in zip(spec.lower, types, key.columns))
    upper = tuple(_value(ex, v, t, c) for v, t, c in zip(spec.upper, types, key.columns))
    if _compare(ex, lower, upper, types) >= 0:
        raise errors.ProgrammingError(
            f'empty range bound specified for partition "{name}"\nDETAIL:  Specified lower bound '
            f"({_shown_all(lower, types)}) is greater than or equal to upper bound ({_shown_all(upper, types)}).",
            sqlstate="42P17")
    for sibling in siblings:
        other = sibling.schema.partition_of
        if other.kind == "range" and _compare(ex, lower, tuple(other.upper), types) < 0 \
                and _compare(ex, tuple(other.lower), upper, types) < 0:
            raise errors.ProgrammingError(f'partition "{name}" would overlap partition "{sibling.name}"',
                                          sqlstate="42P17")
    shown = f"FOR VALUES FROM ({_shown_all(lower, types)}) TO ({_shown_all(upper, types)})"
    constraint = _range_constraint(key.columns, lower, upper, types)
    return PartitionBound(parent.table_id, "range", shown, _within_parent(parent, constraint), lower=lower,
                          upper=upper)


def _value(ex: Executor, value, col_type: ColumnType, column: str) -> str | None:
    """A bound's value as PostgreSQL's text of it in the key column's type (None: NULL; MINVALUE
    and MAXVALUE as they are); one of another type is PostgreSQL's 22P02 / 42804."""
    if isinstance(value, str):
        return value
    if isinstance(value, exp.Null):
        return None
    if any(isinstance(n, (exp.Column, exp.Select)) for n in value.walk()):
        raise errors.ProgrammingError("cannot use column reference in partition bound expression",
                                      sqlstate="42P17")
    got = ex._sql(exp.select(exp.cast(value, exp.DataType.build(col_type.sql(), dialect="duckdb"))))
    result = got.column(0)[0].as_py()
    return None if result is None else format_value(result)


def _typed(ex: Executor, values, col_type: ColumnType) -> list:
    """Stored bound texts as values of the key column's type, to compare (MINVALUE / MAXVALUE kept)."""
    finite = [v for v in values if v not in _INFINITE]
    if not finite:
        return list(values)
    casts = ", ".join(f"CAST({_literal(v)} AS {col_type.sql()})" for v in finite)
    typed = iter(ex._sql(f"SELECT [{casts}]").column(0)[0].as_py())
    return [v if v in _INFINITE else next(typed) for v in values]


def _compare(ex: Executor, left: tuple, right: tuple, types: list[ColumnType]) -> int:
    """PostgreSQL's comparison of two range bounds (partition_rbound_cmp): column by column,
    MINVALUE below and MAXVALUE above every value; equal once both are the same infinity."""
    for a, b, t in zip(left, right, types):
        a, b = _typed(ex, [a, b], t)
        if a in _INFINITE or b in _INFINITE:
            if a == b:
                return 0
            return -1 if a == "MINVALUE" or b == "MAXVALUE" else 1
        if a != b:
            return -1 if a < b else 1
    return 0


def _refuse_list_overlap(ex: Executor, name: str, values: tuple, col_type: ColumnType,
                         siblings: list[TableVersion]) -> None:
    mine = _typed(ex, values, col_type)
    for sibling in siblings:
        other = sibling.schema.partition_of
        if other.kind == "list" and set(_typed(ex, other.values, col_type)) & set(mine):
            raise errors.ProgrammingError(f'partition "{name}" would overlap partition "{sibling.name}"',
                                          sqlstate="42P17")


def _literal(value: str | None) -> str:
    return "NULL" if value is None else "'" + value.replace("'", "''") + "'"


def _shown(value: str | None, col_type: ColumnType) -> str:
    """A bound's value as PostgreSQL's pg_get_expr shows it: a number bare, else quoted."""
    if value is None or value in _INFINITE:
        return "NULL" if value is None else value
    if col_type.kind in _NUMERIC:
        return value
    if col_type.kind == "BOOLEAN":
        return "true" if value == "t" else "false"
    return _literal(value)


def _shown_all(values: tuple, types: list[ColumnType]) -> str:
    return ", ".join(_shown(v, t) for v, t in zip(values, types))


def _cast(value: str, col_type: ColumnType) -> str:
    return f"CAST({_literal(value)} AS {col_type.display()})"


def _column(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _list_constraint(column: str, values: tuple, col_type: ColumnType) -> str:
    """``column IN (values)`` - NULL among them: or the column is NULL."""
    listed = [_cast(v, col_type) for v in values if v is not None]
    parts = [f"{_column(column)} IS NOT NULL AND {_column(column)} IN ({', '.join(listed)})"] if listed else []
    if None in values:
        parts.append(f"{_column(column)} IS NULL")
    return " OR ".join(f"({p})" for p in parts) if len(parts) > 1 else parts[0] if parts else "FALSE"


def _range_constraint(columns: tuple, lower: tuple, upper: tuple, types: list[ColumnType]) -> str:
    """``(columns) >= lower AND (columns) < upper``, row-wise with MINVALUE / MAXVALUE (PostgreSQL's
    get_qual_for_range), each key column NOT NULL (a NULL key goes to the DEFAULT partition)."""
    def beyond(i: int, values: tuple, above: bool) -> str:
        if i == len(columns):
            return "TRUE" if above else "FALSE"  # (equal to the lower bound: in; to the upper: out)
        value = values[i]
        if value in _INFINITE:
            return "TRUE" if (value == "MINVALUE") == above else "FALSE"
        col, literal = _column(columns[i]), _cast(value, types[i])
        rest = beyond(i + 1, values, above)
        strict = f"{col} {'>' if above else '<'} {literal}"
        if rest == "FALSE":
            return strict
        if rest == "TRUE":
            return f"{col} {'>=' if above else '<='} {literal}"
        return f"({strict} OR ({col} = {literal} AND {rest}))"

    parts = [f"{_column(c)} IS NOT NULL" for c in columns]
    parts += [p for p in (beyond(0, lower, True), beyond(0, upper, False)) if p != "TRUE"]
    return " AND ".join(parts)


# --- writes --------------------------------------------------------------------------------

def route(ex: Executor, ctx: Context, stmt: st.Insert, parent: TableVersion, rows, conflict_params,
          check_ssi: bool, mark_updated: bool):
    """Rows of an INSERT into the partitioned table ``parent`` (in its schema), each added to the
    partition its key belongs in (a partitioned one routes them again): 23514 for a row none
    takes. Returns the rows added, in the order given."""
    rows = rows.table() if isinstance(rows, PythonRows) else rows
    if not rows.num_rows:
        return rows
    _refuse_conflict_update(stmt, parent)
    children = partitions(ctx, parent)
    chosen = _chosen(ex, parent, children, rows)
    missing = pc.index(chosen, -1).as_py()
    if missing >= 0:
        raise _no_partition(parent, rows, missing)
    done, order = [], []
    for i, child in enumerate(children):
        picked = pc.indices_nonzero(pc.equal(chosen, i))
        if not len(picked):
            continue
        piece = rows.take(picked).select(child.schema.names)
        piece = piece.cast(child.schema.arrow_schema())
        changes = _row_triggers(ex, ctx, stmt, child)
        if changes is not None and changes.any("BEFORE"):  # (a NULL returned: the row skipped)
            kept, piece = changes.before(None, piece)
            picked = picked.filter(pa.array(kept))
            if not len(picked):
                continue
        routed = replace(stmt, table=st.TableName(child.db, child.name), alias=stmt.alias or stmt.table.name)
        added = ex._insert_batch(ctx, routed, piece, conflict_params, check_ssi, mark_updated=mark_updated)
        added = added.table() if isinstance(added, PythonRows) else added
        if changes is not None:
            changes.after(None, added.select(child.schema.names))
        names = [*parent.schema.names, *(n for n in added.column_names if n not in child.schema.names)]
        done.append(added.select(names))
        order.append(picked)
    if len(done) == 1:
        return done[0]
    positions = pa.concat_arrays([o.cast(pa.int64()) for o in order])
    return pa.concat_tables(done).take(pc.sort_indices(positions))


def _row_triggers(ex: Executor, ctx: Context, stmt: st.Insert, child: TableVersion):
    """The INSERT row triggers of the partition ``child`` a routed INSERT's rows go to (None:
    none), which fire on them as on rows inserted into it (its statement triggers do not: those
    of the table the INSERT names do, as in PostgreSQL). With ON CONFLICT: 0A000."""
    from txlake.engine import triggers
    if not child.schema.triggers or not any(t.row for t in child.schema.triggers if t.fires_on("INSERT")):
        return None
    if stmt.on_conflict is not None:
        raise errors.NotSupportedError(f'INSERT ... ON CONFLICT into a partitioned table whose partition '
                                       f'"{child.name}" has row triggers is not supported: insert into the partition')
    return triggers.RowChanges(ex, ctx, child, "INSERT")


def _chosen(ex: Executor, parent: TableVersion, children: list[TableVersion], rows: pa.Table) -> pa.Array:
    """Which of ``children`` each row belongs in (its index; -1: none)."""
    cases = [(i, c.schema.partition_of) for i, c in enumerate(children)]
    default = next((i for i, b in cases if b.kind == "default"), -1)
    whens = [f"WHEN COALESCE(({checks.duckdb_text(b.constraint, parent.schema)}), FALSE) THEN {i}"
             for i, b in cases if b.kind != "default" and b.constraint]
    if not whens:
        return pa.array([default] * rows.num_rows, pa.int64())
    with ex._registered() as register:
        name = register(rows)
        found = ex._sql(f"SELECT CAST(CASE {' '.join(whens)} ELSE {default} END AS BIGINT) FROM {name} AS "
                        f"{_column(parent.name)}")
    return found.column(0).combine_chunks()


def _no_partition(parent: TableVersion, rows: pa.Table, position: int) -> errors.Error:
    key = parent.schema.partitioning.columns
    values = ", ".join(format_value(rows.column(c)[position].as_py(), "null") for c in key)
    error = errors.CheckViolation(f'no partition of relation "{parent.name}" found for row\nDETAIL:  Partition '
                                  f"key of the failing row contains ({', '.join(key)}) = ({values}).")
    error.row = position
    return error


def sets_key(ctx: Context, parent: TableVersion, assigned) -> bool:
    """Does an UPDATE of ``parent`` assigning ``assigned`` set a column of a key of its hierarchy?"""
    if parent.schema.partitioning is None:
        return False
    if set(parent.schema.partitioning.columns) & set(assigned):
        return True
    return any(sets_key(ctx, child, assigned) for child in partitions(ctx, parent))


def each_leaf(ex: Executor, ctx: Context, parent: TableVersion, stmt, params, run) -> Result:
    """``run(ctx, stmt for the leaf, params)`` for every leaf partition of ``parent``: an UPDATE or
    DELETE of a partitioned table, the counts summed and the RETURNING rows gathered."""
    count, tables, last = 0, [], None
    inside = replace(ctx, in_partition=True)
    for leaf in leaves(ctx, parent):
        result = run(ex, inside, replace(stmt, table=st.TableName(leaf.db, leaf.name),
                                         alias=stmt.alias or stmt.table.name), params)
        count += max(result.rowcount, 0)
        if result.table is not None:
            tables.append(result.table)
        last = result
    verb = "UPDATE" if isinstance(stmt, st.Update) else "DELETE"
    if last is None:
        return Result(rowcount=0, status=f"{verb} 0")
    table = pa.concat_tables(tables) if tables else None
    return Result(table=table, rowcount=count, status=f"{verb} {count}")


def moving_update(ex: Executor, ctx: Context, stmt: st.Update, parent: TableVersion, params) -> Result:
    """An UPDATE of a partitioned table setting a key column, as PostgreSQL 11+ moves rows: a
    row whose new values still fit its partition is updated there, as any UPDATE updates it (its
    UPDATE triggers, no foreign key's delete action); any other is deleted from its partition
    and its new row inserted through the router. Each partition's statement triggers do not
    fire (the named table's would)."""
    if stmt.defaults or stmt.from_ and stmt.returning:
        raise errors.NotSupportedError("an UPDATE of a partitioned table's key with SET ... DEFAULT, or with FROM "
                                       "and RETURNING, is not supported")
    alias = stmt.alias or stmt.table.name
    assigned = dict(stmt.assignments)
    for name in assigned:
        parent.schema.require(name, parent.name)
    # (each value as its column takes it, as an UPDATE casts it: a SET ts = '2024-01-20' a timestamptz)
    new_row = tuple(exp.alias_(assigned_as(assigned[c.name].copy(), c.type) if c.name in assigned else
                               exp.column(c.name, table=alias, quoted=True), c.name, quoted=True)
                    for c in parent.schema.columns)
    body = len(params) - _placeholders(*stmt.returning)
    params, returning_params = params[:body], params[body:]
    # the SET's ? come before the WHERE's in the text: the DELETE's RETURNING takes them last
    n_set = _placeholders(*(e for _, e in stmt.assignments))
    delete_params = (*params[n_set:], *params[:n_set])
    new_values = _new_values(stmt, parent, alias, params[:n_set])
    inside = replace(ctx, in_partition=True)
    moved, kept, count = [], [], 0
    for leaf in leaves(ctx, parent):
        name = st.TableName(leaf.db, leaf.name)
        fits = _fits(leaf, new_values)
        if fits is not None:  # (the rows whose new values fit the partition: updated in place)
            update = replace(stmt, table=name, alias=alias, where=_and(stmt.where, fits))
            result = ex.update(inside, update, (*params, *returning_params))
            count += max(result.rowcount, 0)
            if result.table is not None and result.table.num_rows:
                kept.append(result.table)
        leaving = None if fits is None else exp.not_(exp.paren(fits.copy()))
        delete = st.Delete(table=name, alias=alias, using=stmt.from_, where=_and(stmt.where, leaving),
                           returning=new_row, named_schemas=stmt.named_schemas)
        result = ex.delete(inside, delete, delete_params)
        if result.table is not None and result.table.num_rows:
            moved.append(result.table)
    if not moved and not kept:
        return Result(table=_returned_empty(ex, stmt, parent) if stmt.returning else None, rowcount=count,
                      status=f"UPDATE {count}")
    tables = list(kept)
    if moved:
        rows = ex._conform(pa.concat_tables(moved), parent.schema)
        added = ex._insert_batch(ctx, st.Insert(table=stmt.table, alias=alias), rows, ())
        count += rows.num_rows
        returned = ex._returning(stmt.returning, added, parent.schema, alias, returning_params, ctx=ctx)
        if returned.table is not None:
            tables.append(returned.table)
    table = pa.concat_tables(tables) if stmt.returning and tables else None
    return Result(table=table, rowcount=count, status=f"UPDATE {count}")


def _new_values(stmt: st.Update, parent: TableVersion, alias: str, set_params) -> dict[str, exp.Expression]:
    """Each assigned column's new value as an expression over the row's old ones, cast as the
    UPDATE casts it, its ``?`` replaced by the values given (so that it may be written again)."""
    values = {}
    placeholders = iter(set_params)
    for column, value in stmt.assignments:  # (in the text's order, as the ? bind: depth first)
        value = value.transform(lambda n: exp.convert(next(placeholders)) if isinstance(n, exp.Placeholder) else n)
        values[column] = assigned_as(value, parent.schema.column(column).type)
    return values


def _fits(leaf: TableVersion, new_values: dict[str, exp.Expression]) -> exp.Expression | None:
    """Whether a row's new values fit the partition ``leaf``, as a condition over its old values
    (None: any fits - a DEFAULT partition with no siblings)."""
    bound = leaf.schema.partition_of
    if bound is None or not bound.constraint:
        return None
    condition = postgres_semantics(exp.Select(expressions=[checks.parsed(bound.constraint).copy()])).expressions[0]
    condition = condition.this if isinstance(condition, exp.Alias) else condition  # (its "?column?")
    condition = condition.transform(lambda n: new_values[n.name].copy() if isinstance(n, exp.Column) and
                                    n.name in new_values else n)
    return exp.func("COALESCE", exp.paren(condition), exp.false())


def _and(where: exp.Expression | None, condition: exp.Expression | None) -> exp.Expression | None:
    if condition is None:
        return where
    return condition if where is None else exp.and_(exp.paren(where.copy()), condition)


def _returned_empty(ex: Executor, stmt: st.Update, parent: TableVersion) -> pa.Table | None:
    result = ex._returning(stmt.returning, parent.schema.arrow_schema().empty_table(), parent.schema,
                           stmt.alias or stmt.table.name, (), ctx=None)
    return result.table


def _refuse_conflict_update(stmt: st.Insert, parent: TableVersion) -> None:
    """ON CONFLICT DO UPDATE setting a key column would move the row it updates: refused (0A000)."""
    conflict = stmt.on_conflict
    if conflict is not None and not conflict.do_nothing and \
            set(parent.schema.partitioning.columns) & {n for n, _ in conflict.assignments}:
        raise errors.NotSupportedError("ON CONFLICT DO UPDATE setting a partition key column of a partitioned "
                                       "table is not supported")

