"""``ALTER TABLE t RENAME TO u`` (and ``ALTER SEQUENCE s RENAME TO r``, or ALTER TABLE of a
sequence: the same, the defaults taking numbers from it naming it anew): the table keeps
its id, rows, files, constraints, indexes and the sequences its columns own - only its name
changes, in one catalog change (storage/version.py ``RenameTable``), transactional as any DDL.

As in PostgreSQL, where everything binds by OID:

- views reading it go on reading it, and their definitions name it anew (engine/views.py
  ``follow_rename``); foreign keys and owned sequences hold its id already;
- a constraint or index named after it keeps its name (a primary key named ``t_pkey`` by
  default is written down as such: it would otherwise be read as ``u_pkey``);
- the new name is a bare name (42601 if qualified: the table stays in its schema); 42P07 if
  a relation (table, view, sequence, index) of the schema has it, 42710 if a type does;
- the ACCESS EXCLUSIVE lock of every ALTER TABLE is held (engine/table_locks.py): a writer
  waiting on it resolves the old name again after, and finds none (42P01).

Its files stay where they are (their paths are in the log); new files go to the directory of
the new name, and publishing moves the Paimon table there (storage/publish.py).

``ALTER INDEX i RENAME TO j`` and ``ALTER TABLE t RENAME CONSTRAINT a TO b`` rename an object
of a table's schema - a primary key or UNIQUE constraint is its index too, renamed as one, as
PostgreSQL's - and its comment: a change of the table's catalog entry alone (same schema id, no
file written; storage/commit.py ``TableDelta.catalog_changed`` carries it over to a newer
version of the table, as a COMMENT ON).
"""

from __future__ import annotations

from dataclasses import replace

from txlake import errors
from txlake.engine import deferred, sequence_ddl, uniques, views
from txlake.engine.executor import Context, Executor, Result
from txlake.parser import statements as st
from txlake.storage.schema import CheckConstraint, ForeignKey, Index, TableSchema
from txlake.storage.version import TableVersion

_PRIMARY_KEY = "primary key"  # (a table's primary key, as ``_find`` names it)


def rename_table(ex: Executor, ctx: Context, version: TableVersion, new: st.TableName,
                 status: str = "ALTER TABLE") -> Result:
    _bare(new)
    taken = ctx.txn.table(ctx.catalog, version.db, new.name)
    if taken is not None and taken.is_type:  # (a table's name is its row type's)
        raise errors.DuplicateObject(f'type "{new.name}" already exists')
    if ex.name_taken(ctx, version.db, new.name):
        raise errors.DuplicateTable(f'relation "{new.name}" already exists')
    schema = version.schema
    if schema.primary_key and schema.primary_key_name is None:
        schema = replace(schema, primary_key_name=schema.pkey_name(version.name))
    users = sequence_ddl.default_users(ctx, version) if version.is_sequence else ()
    renamed = replace(version, schema=schema).renamed(new.name)
    ex._write(ctx, version, renamed, check_ssi=False)
    views.follow_rename(ex, ctx, version, renamed)
    for table, col in users:  # (their defaults name it: PostgreSQL's, by OID, show the new name)
        numbered = replace(col, default=sequence_ddl.nextval_default(renamed.db, renamed.name))
        table = ctx.txn.table(ctx.catalog, table.db, table.name)  # (as written so far: one may have two)
        columns = tuple(numbered if c.field_id == col.field_id else c for c in table.schema.columns)
        ex._write(ctx, table, table.with_files(schema=replace(table.schema, columns=columns)), check_ssi=False)
    return Result(status=status)


def rename_index(ex: Executor, ctx: Context, stmt: st.AlterIndex, params) -> Result:
    """``ALTER INDEX [IF EXISTS] i RENAME TO j``: 42P01 if no relation is called ``i`` (an index
    is one); a table, view or sequence ``i`` is renamed as ALTER TABLE renames it, as PostgreSQL
    allows; 42P07 if a relation has the name ``j``."""
    if ctx.txn.read_only:
        raise errors.ReadOnlyTransaction("cannot execute ALTER INDEX in a read-only transaction")
    if stmt.attach is not None:
        from txlake.engine import partitions  # (it builds on the executor)
        return partitions.attach_index(ex, ctx, stmt)
    db, name = ctx.locate(stmt.index)
    hit = uniques.index_names(ex, ctx, db).get(name)
    if hit is None:
        relation = ctx.altered(stmt.index, stmt.if_exists, "ALTER INDEX")
        if isinstance(relation, Result):
            return relation
        if relation.is_view:
            return views.rename(ex, ctx, relation, stmt.new)
        return rename_table(ex, ctx, relation, stmt.new, "ALTER INDEX")
    version = hit[0]
    found = _find(version, name, index=True)
    _bare(stmt.new)
    _rename_key(ex, ctx, version, found, stmt.new.name)
    return Result(status="ALTER INDEX")


def rename_constraint(ex: Executor, ctx: Context, version: TableVersion, old: str, new: str) -> Result:
    """``ALTER TABLE t RENAME CONSTRAINT a TO b``: 42704 if ``t`` has no constraint ``a``, 42710
    if it has one ``b``; a key's index is renamed with it (42P07 if a relation has the name)."""
    found = _find(version, old, index=False)
    if found is None:
        raise errors.UndefinedObject(f'constraint "{old}" for table "{version.name}" does not exist')
    if isinstance(found, (CheckConstraint, ForeignKey)):
        _refuse_taken_constraint(version, new)
        _write_renamed(ex, ctx, version, found, new)
    else:
        _rename_key(ex, ctx, version, found, new)
    return Result(status="ALTER TABLE")


def _bare(new: st.TableName) -> None:
    if new.db is not None:  # (PostgreSQL's grammar takes a name there, not a qualified one)
        raise errors.SyntaxError('syntax error at or near "."')


def _find(version: TableVersion, name: str, index: bool):
    """The object of the table ``version`` called ``name``: its primary key (``_PRIMARY_KEY``),
    a UNIQUE constraint, and - an index (``index``) - a CREATE [UNIQUE] INDEX's, or - a
    constraint - a CHECK or a foreign key; None if none is."""
    schema = version.schema
    if schema.primary_key and name == schema.pkey_name(version.name):
        return _PRIMARY_KEY
    for unique in schema.uniques:
        if unique.name == name and (index or not unique.index):
            return unique
    named = schema.indexes if index else schema.checks + schema.foreign_keys
    return next((c for c in named if c.name == name), None)


def _rename_key(ex: Executor, ctx: Context, version: TableVersion, found, new: str) -> None:
    """A primary key, UNIQUE constraint or index renamed: an index is a relation (42P07 if one has
    the name), a key a constraint too (42710 if another of the table's has it)."""
    if ex.name_taken(ctx, version.db, new):
        raise errors.DuplicateTable(f'relation "{new}" already exists')
    if not isinstance(found, Index) and not getattr(found, "index", False):
        _refuse_taken_constraint(version, new)
    _write_renamed(ex, ctx, version, found, new)


def _refuse_taken_constraint(version: TableVersion, new: str) -> None:
    if new in version.schema.constraint_names(version.name):
        raise errors.ProgrammingError(f'constraint "{new}" for relation "{version.name}" already exists',
                                      sqlstate="42710")


def _write_renamed(ex: Executor, ctx: Context, version: TableVersion, found, new: str) -> None:
    ex._write(ctx, version, version.with_files(schema=_renamed(version.schema, found, new)), check_ssi=False)
    if found != _PRIMARY_KEY:  # (a deferrable UNIQUE or foreign key's checks queued for COMMIT follow it)
        deferred.renamed(ctx.txn, version.table_id, found.name, new)


def _renamed(schema: TableSchema, found, new: str) -> TableSchema:
    """``schema`` with its object ``found`` (as ``_find`` gives it) called ``new``, and its comment
    following it (a primary key's is kept under no name: it follows by itself)."""
    if found == _PRIMARY_KEY:
        return replace(schema, primary_key_name=new)

    def named(items):
        return tuple(replace(c, name=new) if c is found else c for c in items)

    kinds = {"index"} if isinstance(found, Index) else {"constraint"} \
        if isinstance(found, (CheckConstraint, ForeignKey)) else {"index", "constraint"}
    comments = tuple(replace(c, name=new) if c.kind in kinds and c.name == found.name else c for c in schema.comments)
    return replace(schema, checks=named(schema.checks), uniques=named(schema.uniques), indexes=named(schema.indexes),
                   foreign_keys=named(schema.foreign_keys), comments=comments)
