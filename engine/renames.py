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
"""

from __future__ import annotations

from dataclasses import replace

from txlake import errors
from txlake.engine import sequence_ddl, views
from txlake.engine.executor import Context, Executor, Result
from txlake.parser import statements as st
from txlake.storage.version import TableVersion


def rename_table(ex: Executor, ctx: Context, version: TableVersion, new: st.TableName,
                 status: str = "ALTER TABLE") -> Result:
    if new.db is not None:  # (PostgreSQL's grammar takes a name there, not a qualified one)
        raise errors.SyntaxError('syntax error at or near "."')
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
        ex._write(ctx, table, replace(table, schema=replace(table.schema, columns=columns), caches={}),
                  check_ssi=False)
    return Result(status=status)
