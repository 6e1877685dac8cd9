"""Triggers: ``CREATE [OR REPLACE] TRIGGER``, ``DROP TRIGGER``, ``ALTER TRIGGER ... RENAME``,
``ALTER TABLE ... ENABLE | DISABLE TRIGGER``, and their firing, as PostgreSQL 16 has them
(doc/src/sgml/trigger.sgml "Overview of Trigger Behavior", plpgsql.sgml "Triggers on Data
Changes").

- **Catalog.** A trigger is part of its table's catalog entry (``TableSchema.triggers``), so
  it is transactional as the rest of DDL: gone with a ROLLBACK, seen by others at COMMIT and
  after a restart, dropped with its table. It names its function by the function's catalog
  entry (``Trigger.function_id``: kept by CREATE OR REPLACE FUNCTION), which DROP FUNCTION
  refuses to drop while a trigger uses it (2BP01) unless CASCADE drops the triggers too.
- **Firing.** Per statement: BEFORE STATEMENT triggers first (even for no row), then for each
  row the BEFORE ROW triggers in name order - each one's returned row is the next one's NEW
  and the row written (NULL: the row is skipped, and not counted); then the rows are checked
  (NOT NULL, CHECK, keys) and written; then the AFTER ROW triggers, row by row, in name order
  (their result ignored), then AFTER STATEMENT. A trigger's function runs in the statement's
  transaction through the session (engine/plpgsql.py), its statements as any other: an error
  fails the statement, and so the transaction or the savepoint's subtransaction, as any
  statement's error does - nothing of it stays.
- **What it costs.** Nothing for a table without triggers: the writers look at
  ``schema.triggers`` (empty) of the version they resolved anyway; a table with some takes the
  general write path (not engine/points.py's), and each row costs a PL/pgSQL run.
- **Upserts.** INSERT ... ON CONFLICT fires the BEFORE INSERT row triggers before the conflict
  check (their rows are the ones checked); DO UPDATE fires UPDATE's triggers too, for the rows it
  updates, and the statement triggers of both (``insert``, ``Upserting``).
- **COPY FROM** fires INSERT's triggers (``Copying``): the row ones per row, the statement
  ones once; a table without INSERT triggers copies as fast as before.
- **MERGE** fires the triggers of its actions (``Merging``).
- **Writing to its own table.** A BEFORE UPDATE / DELETE row trigger may (``Targets``): a row
  its statement still changes that a trigger changed is 27000, as in PostgreSQL; one it changed
  already, 0A000 (its change is not written yet).
- **Transition tables.** An AFTER STATEMENT trigger's REFERENCING OLD / NEW TABLE names read the
  rows its statement changed: ``statement`` gives them to ``_run``, which holds them on the
  executor while the function runs; the session reads them where one of its statements names
  them (``transition_placed``). A statement of no such trigger pays one attribute test.
- **INSTEAD OF** row triggers on a view do its INSERT, UPDATE and DELETE (``instead_of``;
  engine/views.py lets such a write through as ``st.InsteadOfWrite``).
- **Refused** (0A000), never skipped: Spark's writes; a BEFORE UPDATE trigger writing to its
  own table in an upsert.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.compute as pc
import sqlglot
from sqlglot import exp

from txlake import errors
from txlake.engine import catalog_views, pg_catalog, plpgsql
from txlake.parser import statements as st
from txlake.storage.schema import TableSchema, Trigger
from txlake.storage.version import TableVersion

if TYPE_CHECKING:
    from txlake.engine.executor import Context, Executor, Result

# the variables a trigger function's body has around its block (PostgreSQL's, plpgsql.sgml)
VARIABLES = (("new", None), ("old", None), ("tg_name", "text"), ("tg_when", "text"), ("tg_level", "text"),
             ("tg_op", "text"), ("tg_relid", "bigint"), ("tg_relname", "text"), ("tg_table_name", "text"),
             ("tg_table_schema", "text"), ("tg_nargs", "integer"), ("tg_argv", "text[]"))
# how deep triggers may fire triggers (a trigger writing to its own table): PostgreSQL's
# max_stack_depth ends such a recursion with 54001; Python's own stack would end it first
MAX_DEPTH = 16


# --- CREATE / DROP / ALTER TRIGGER ---------------------------------------------------------

def create_trigger(ex: Executor, ctx: Context, stmt: st.CreateTrigger, params) -> Result:
    from txlake.engine.executor import Result
    from txlake.engine.sequence_ddl import read_write
    read_write(ctx, "CREATE TRIGGER")
    version = _target(ctx, stmt)
    if version.schema.partitioning is not None:
        raise errors.NotSupportedError(f'triggers on the partitioned table "{version.name}" are not supported: '
                                       "create them on its partitions")
    function = trigger_function(ctx, stmt.function)
    for column in stmt.columns:
        if version.schema.column(column) is None:
            raise errors.UndefinedColumn(f'column "{column}" of relation "{version.name}" does not exist')
    if stmt.when is not None:
        _check_when(stmt)
    trigger = Trigger(stmt.name, stmt.timing, stmt.events, stmt.row, function.table_id,
                      f"{catalog_views.schema_name(function.db)}.{function.schema.function.name}",
                      stmt.columns, stmt.when, stmt.args, old_table=stmt.old_table, new_table=stmt.new_table)
    others = tuple(t for t in version.schema.triggers if t.name != stmt.name)
    if len(others) != len(version.schema.triggers) and not stmt.or_replace:
        raise errors.DuplicateObject(f'trigger "{stmt.name}" for relation "{version.name}" already exists')
    _write(ex, ctx, version, tuple(sorted((*others, trigger), key=lambda t: t.name)))
    return Result(status="CREATE TRIGGER")


def _check_when(stmt: st.CreateTrigger) -> None:
    """What PostgreSQL's CreateTrigger refuses of a WHEN condition: OLD in an INSERT trigger's,
    NEW in a DELETE trigger's (42P17)."""
    named = {c.table.lower() for c in sqlglot.parse_one(stmt.when, read="postgres").find_all(exp.Column)}
    for event, record in (("INSERT", "old"), ("DELETE", "new")):
        if event in stmt.events and record in named:
            raise errors.InvalidObjectDefinition(
                f"{event} trigger's WHEN condition cannot reference {record.upper()} values")


def drop_trigger(ex: Executor, ctx: Context, stmt: st.DropTrigger, params) -> Result:
    from txlake.engine.executor import Result
    from txlake.engine.sequence_ddl import read_write
    read_write(ctx, "DROP TRIGGER")
    version = ctx.lookup(stmt.table)
    if version is None and stmt.if_exists:
        return Result(status="DROP TRIGGER", notice=f'relation "{stmt.table.name}" does not exist, skipping')
    version = _table(ctx, stmt.table, views=True)
    kept = tuple(t for t in version.schema.triggers if t.name != stmt.name)
    if len(kept) == len(version.schema.triggers):
        if stmt.if_exists:
            return Result(status="DROP TRIGGER", notice=f'trigger "{stmt.name}" for relation "{version.name}" '
                                                        "does not exist, skipping")
        raise errors.UndefinedObject(f'trigger "{stmt.name}" for table "{version.name}" does not exist')
    _write(ex, ctx, version, kept)
    return Result(status="DROP TRIGGER")


def alter_trigger(ex: Executor, ctx: Context, stmt: st.AlterTrigger, params) -> Result:
    """ALTER TRIGGER ... RENAME TO, ALTER TABLE ... {ENABLE | DISABLE} TRIGGER {name | ALL | USER}."""
    from txlake.engine.executor import Result
    from txlake.engine.sequence_ddl import read_write
    read_write(ctx, "ALTER TRIGGER" if stmt.new is not None else "ALTER TABLE")
    version = _table(ctx, stmt.table, views=True)
    triggers = version.schema.triggers
    if stmt.name is not None and all(t.name != stmt.name for t in triggers):
        raise errors.UndefinedObject(f'trigger "{stmt.name}" for table "{version.name}" does not exist')
    if stmt.new is not None:
        if any(t.name == stmt.new for t in triggers):
            raise errors.DuplicateObject(f'trigger "{stmt.new}" for relation "{version.name}" already exists')
        changed = [dataclasses.replace(t, name=stmt.new) if t.name == stmt.name else t for t in triggers]
    else:
        state = "O" if stmt.enable else "D"
        changed = [dataclasses.replace(t, enabled=state) if stmt.name in (None, t.name) else t for t in triggers]
    _write(ex, ctx, version, tuple(sorted(changed, key=lambda t: t.name)))
    return Result(status="ALTER TRIGGER" if stmt.new is not None else "ALTER TABLE")


def _target(ctx: Context, stmt: st.CreateTrigger) -> TableVersion:
    """CREATE TRIGGER's table - or view, for an INSTEAD OF trigger - as PostgreSQL's
    CreateTrigger takes them (42809 for the other kind; a view's statement triggers, 0A000)."""
    version = _table(ctx, stmt.table, views=True)
    if version.is_view:
        if stmt.old_table or stmt.new_table:
            raise errors.WrongObjectType(f'"{version.name}" is a view\n'
                                         "DETAIL:  Triggers on views cannot have transition tables.")
        if stmt.timing != "INSTEAD OF" and stmt.row:
            raise errors.WrongObjectType(f'"{version.name}" is a view\n'
                                         "DETAIL:  Views cannot have row-level BEFORE or AFTER triggers.")
        if stmt.timing != "INSTEAD OF":
            raise errors.NotSupportedError(f'statement triggers on views are not supported ("{version.name}")')
    elif stmt.timing == "INSTEAD OF":
        raise errors.WrongObjectType(f'"{version.name}" is a table\nDETAIL:  Tables cannot have INSTEAD OF triggers.')
    return version


def _table(ctx: Context, name: st.TableName, views: bool = False) -> TableVersion:
    version = ctx.resolve(name)
    if views and version.is_view:
        return version
    if not version.is_table or version.is_matview:  # (PostgreSQL's message for a view, a sequence)
        raise errors.WrongObjectType(f'relation "{version.name}" cannot have triggers\n'
                                     f"DETAIL:  This operation is not supported for {_kind(version)}.")
    return version


def _kind(version: TableVersion) -> str:
    from txlake.engine.executor import relation_kind
    return {"view": "views", "materialized view": "materialized views", "sequence": "sequences"}.get(
        relation_kind(version), "this kind of relation")


def _write(ex: Executor, ctx: Context, version: TableVersion, triggers: tuple[Trigger, ...]) -> None:
    """``version`` with ``triggers`` in the transaction: its catalog entry alone (same schema id,
    same files), as COMMENT changes it."""
    ex._write(ctx, version, version.with_files(schema=dataclasses.replace(version.schema, triggers=triggers)),
              check_ssi=False)


def without_column(schema: TableSchema, table: str, action: st.DropColumn) -> TableSchema:
    """ALTER TABLE ... DROP COLUMN of a column a trigger names (UPDATE OF, WHEN): 2BP01, or with
    CASCADE the triggers dropped too, as PostgreSQL's dependencies do."""
    users = [t for t in schema.triggers if action.name in _columns_named(t)]
    if not users:
        return schema
    if not action.cascade:
        raise errors.DependentObjectsStillExist.column(table, action.name, f"trigger {users[0].name} on table {table}")
    return dataclasses.replace(schema, triggers=tuple(t for t in schema.triggers if t not in users))


def renamed_column(schema: TableSchema, old: str, new: str) -> TableSchema:
    """ALTER TABLE ... RENAME COLUMN: the triggers naming it (UPDATE OF, WHEN) name it anew, as
    PostgreSQL's, which keeps their columns by number."""
    if not any(old in _columns_named(t) for t in schema.triggers):
        return schema

    def renamed(node):
        if isinstance(node, exp.Column) and node.table.lower() in ("new", "old") and node.name == old:
            return exp.column(new, node.table)
        return node
    return dataclasses.replace(schema, triggers=tuple(dataclasses.replace(
        t, columns=tuple(new if c == old else c for c in t.columns),
        when=sqlglot.parse_one(t.when, read="postgres").transform(renamed).sql(dialect="postgres") if t.when else None)
        for t in schema.triggers))


def _columns_named(trigger: Trigger) -> set[str]:
    """The columns ``trigger`` names: its UPDATE OF's, its WHEN's (``NEW.c``, ``OLD.c``)."""
    named = set(trigger.columns)
    if trigger.when:
        named |= {c.name for c in sqlglot.parse_one(trigger.when, read="postgres").find_all(exp.Column)
                  if c.table.lower() in ("new", "old") and not isinstance(c.this, exp.Star)}
    return named


def trigger_function(ctx: Context, name: st.TableName) -> TableVersion:
    """The function CREATE TRIGGER's EXECUTE FUNCTION names (of no arguments): 42883 if there is
    none, 42P17 if it does not return trigger."""
    from txlake.engine import functions
    found = [v for v in functions._named(ctx, name) if not v.schema.function.args]
    if not found:
        raise errors.UndefinedFunction(f"function {catalog_views.relation_name(name.db, name.name)}() does not exist")
    if found[0].schema.function.returns != "trigger":
        raise errors.InvalidObjectDefinition(f'function {name.name} must return type trigger')
    return found[0]


def users(ctx: Context, function_ids) -> list[tuple[TableVersion, Trigger]]:
    """(table, trigger) for each trigger that executes one of the functions ``function_ids``."""
    return [(v, t) for v in ctx.txn.tables(ctx.catalog) if (v.is_table or v.is_view) and v.schema.triggers
            for t in v.schema.triggers if t.function_id in function_ids]


def drop_users(ex: Executor, ctx: Context, found: list[tuple[TableVersion, Trigger]]) -> list[str]:
    """DROP FUNCTION ... CASCADE: the triggers ``found`` dropped; the notices saying so."""
    notices = []
    for table_id in dict.fromkeys(v.table_id for v, _ in found):
        version = ctx.by_id(table_id)
        gone = {t.name for v, t in found if v.table_id == table_id}
        _write(ex, ctx, version, tuple(t for t in version.schema.triggers if t.name not in gone))
        notices += [f"drop cascades to trigger {name} on table {version.name}" for name in sorted(gone)]
    return notices


# --- firing --------------------------------------------------------------------------------

def fires(schema: TableSchema, event: str) -> bool:
    """Has the table of ``schema`` an enabled trigger on ``event``?"""
    return any(t.fires_on(event) for t in schema.triggers)


def refuse(version: TableVersion, event: str, what: str) -> None:
    """0A000 for ``what`` (MERGE, COPY FROM, ...) writing to a table with triggers on ``event``."""
    if version.schema.triggers and fires(version.schema, event):
        raise errors.NotSupportedError(f'{what} into (or of) table "{version.name}", which has {event} triggers, is '
                                       "not supported: use INSERT, UPDATE or DELETE")


def refuse_system_columns(ctx: Context, version: TableVersion, returning) -> None:
    if ctx.system_columns and returning:
        raise errors.NotSupportedError(f'RETURNING system columns of a write to table "{version.name}", which has '
                                       "triggers, is not supported")


def statement(ex: Executor, ctx: Context, version: TableVersion, event: str, timing: str, assigned=None,
              old: pa.Table | None = None, new: pa.Table | None = None) -> None:
    """The statement-level triggers of ``timing`` on ``event`` of ``version``'s table (an UPDATE OF
    one where the statement's SET names one of its columns, ``assigned``). ``old`` / ``new``: an
    AFTER one's transition tables, the rows the statement changed as they were and became
    (given where ``transitions`` says a trigger reads them)."""
    if ctx.in_partition:  # (a statement naming the partitioned table fires its triggers, not its partitions')
        return
    for trigger in version.schema.triggers:
        if not trigger.row and trigger.timing == timing and trigger.fires_on(event) and _of(trigger, event, assigned):
            tables = {name: rows for name, rows in ((trigger.old_table, old), (trigger.new_table, new)) if name}
            _run(ex, ctx, version, trigger, event, None, None, tables)


def transitions(version: TableVersion, event: str) -> bool:
    """Does an AFTER STATEMENT trigger on ``event`` of the table read transition tables (REFERENCING)?"""
    return any(t.fires_on(event) and (t.old_table or t.new_table) for t in version.schema.triggers)


def transition_placed(ctx: Context, stmt: st.Statement, tables: dict[str, pa.Table]):
    """A statement of a trigger function with transition tables (``tables``, by name): each table
    reference naming one reads its rows, as a data-modifying WITH's later parts read the rows an
    earlier one returned (engine/with_writes.py). Returns the statement and its context."""
    from txlake.engine.executor import RETURNED_ROWS
    from txlake.engine.with_writes import returned_placed
    named = {name: (exp.Table(this=exp.Anonymous(this=RETURNED_ROWS, expressions=[exp.Literal.string(name)])),
                    exp.TableAlias(this=exp.to_identifier(name))) for name in tables}
    stmt = st.rewritten(stmt, lambda expression: returned_placed(expression, named))
    return stmt, dataclasses.replace(ctx, returned={**(ctx.returned or {}), **tables})


def _of(trigger: Trigger, event: str, assigned) -> bool:
    """Does an ``event`` setting the columns ``assigned`` (None: any) fire ``trigger``, which
    may be an UPDATE OF some columns?"""
    return event != "UPDATE" or not trigger.columns or assigned is None or any(c in assigned for c in trigger.columns)


def insert(ex: Executor, ctx: Context, stmt: st.Insert, version: TableVersion, columns: list[str],
           params) -> Result:
    """An INSERT into a table with INSERT triggers (or an upsert into one with UPDATE ones): its
    rows built (by DuckDB), through the BEFORE INSERT ROW triggers - the rows they return are
    the ones ON CONFLICT checks - checked and added, then the AFTER ROW ones in the rows' order;
    BEFORE / AFTER STATEMENT around. ON CONFLICT DO UPDATE fires the UPDATE triggers as well, as
    PostgreSQL does (trigger.sgml "Overview of Trigger Behavior"): its statement triggers in the
    order BEFORE INSERT, BEFORE UPDATE, AFTER UPDATE, AFTER INSERT; for a row it updates, the
    BEFORE UPDATE row triggers (OLD the row there, NEW as SET made it) and then the AFTER UPDATE
    ones, not the AFTER INSERT ones."""
    from txlake.engine.executor import _UPDATED, _arrow
    refuse_system_columns(ctx, version, stmt.returning)
    params, conflict_params, returning_params = ex._insert_params(stmt, params)
    stmt = ex._conflict_checked(version, stmt)
    conflict = stmt.on_conflict
    updating = conflict is not None and not conflict.do_nothing
    assigned = dict(conflict.assignments) if updating else {}
    statement(ex, ctx, version, "INSERT", "BEFORE")
    if updating:
        statement(ex, ctx, version, "UPDATE", "BEFORE", assigned)
    with ex._registered() as register:
        sql = ex._insert_sql(ctx, version.schema, columns, stmt, register, params)
        rows = ex._conform(ex._sql(sql, params), version.schema)
    changes = RowChanges(ex, ctx, version, "INSERT")
    if changes.any("BEFORE"):
        _, rows = changes.before(None, rows)
    upserting = Upserting(RowChanges(ex, ctx, version, "UPDATE", assigned)) if updating else None
    rows = _arrow(ex._insert_batch(ctx, stmt, rows, conflict_params, mark_updated=updating,
                                   before_update=upserting))
    inserted, updated, olds = rows, None, []
    if _UPDATED in rows.column_names:  # (some rows updated: each fires the AFTER triggers of what it did)
        replaced = rows.column(_UPDATED).to_pylist()
        rows = rows.drop_columns([_UPDATED])
        news = changes._values(rows)
        for i, rowid in enumerate(replaced):
            if rowid is None:
                changes.after_row(None, news[i])
            else:
                upserting.changes.after_row(upserting.old[rowid], news[i])
        mask = pa.array([r is not None for r in replaced], pa.bool_())
        inserted, updated = rows.filter(pc.invert(mask)), rows.filter(mask)
        olds = [upserting.old[r] for r in replaced if r is not None]
    else:
        changes.after(None, rows)
    if updating:
        statement(ex, ctx, version, "UPDATE", "AFTER", assigned, changes.table(olds),
                  updated if updated is not None else version.schema.arrow_schema().empty_table())
    statement(ex, ctx, version, "INSERT", "AFTER", new=inserted)
    result = ex._returning(stmt.returning, rows, version.schema, stmt.alias or stmt.table.name, returning_params)
    result.status = f"INSERT 0 {rows.num_rows}"
    return result


class Copying:
    """COPY FROM into a table with INSERT triggers, as PostgreSQL's CopyFrom fires them: BEFORE
    STATEMENT at the start, the BEFORE ROW triggers over each batch's rows before they are
    checked and added, and once every row is in the AFTER ROW ones (over all the rows, in
    their order: PostgreSQL queues them to the statement's end) and AFTER STATEMENT."""

    def __init__(self, ex: Executor, ctx: Context, version: TableVersion):
        self.ex, self.ctx, self.version = ex, ctx, version
        self.changes = RowChanges(ex, ctx, version, "INSERT")
        self.written: list[pa.Table] = []  # (kept only where AFTER ROW triggers will read them)
        statement(ex, ctx, version, "INSERT", "BEFORE")

    def before(self, rows: pa.Table) -> pa.Table:
        return self.changes.before(None, rows)[1] if self.changes.any("BEFORE") else rows

    def inserted(self, rows) -> None:
        if self.changes.any("AFTER") or transitions(self.version, "INSERT"):
            from txlake.engine.executor import _arrow
            self.written.append(_arrow(rows))

    def end(self) -> None:
        for rows in self.written:
            self.changes.after(None, rows)
        written = pa.concat_tables(self.written) if self.written else self.version.schema.arrow_schema().empty_table()
        statement(self.ex, self.ctx, self.version, "INSERT", "AFTER", new=written)


class Merging:
    """MERGE into a table with triggers, as PostgreSQL 16 fires them (trigger.sgml; merge.out
    "test triggers"): the statement triggers of each kind of action the MERGE names, whether or
    not one runs - BEFORE in the order INSERT, UPDATE, DELETE, AFTER in the order DELETE,
    UPDATE, INSERT; for each row the row triggers of the action it takes - BEFORE ones as the
    rows are found (a NULL leaving the row as it is, not counted), AFTER ones once all are
    written. ``assigned``: the columns the UPDATE actions set (UPDATE OF)."""

    def __init__(self, ex: Executor, ctx: Context, version: TableVersion, kinds, assigned):
        self.ex, self.ctx, self.version, self.assigned = ex, ctx, version, assigned
        self.kinds = [k for k in ("INSERT", "UPDATE", "DELETE") if k in kinds]
        self.rows = {k: RowChanges(ex, ctx, version, k, assigned) for k in self.kinds}
        self.changes_rows = "UPDATE" in self.rows and self.rows["UPDATE"].any("BEFORE")  # (any column may change)
        self.old: list[tuple] = []  # the matched rows' values before, for the AFTER triggers
        self.targets: Targets | None = None
        for kind in self.kinds:
            statement(ex, ctx, version, kind, "BEFORE", assigned)

    def matched(self, table: st.TableName, found: pa.Table, updating) -> tuple[pa.Table, object, pa.Table]:
        """The rows an UPDATE or DELETE action takes (``found``: row ids, an UPDATE's new values
        by column name; ``updating``: which are updated) through their BEFORE ROW triggers, in
        their order: (the rows still to change, which of them are updated, their new values)."""
        from txlake.engine.executor import ROWID
        import numpy as np
        rowids = found.column(ROWID).to_pylist()
        changes = next(iter(self.rows.values()))
        olds = changes._values(changes.old_rows(rowids))
        news = changes._values(self.ex._conform(found.select(list(changes.names)), self.version.schema))
        self.targets = Targets(self.ctx, table, self.version, rowids, merge=True)
        kept, written = [], []
        for i, old in enumerate(olds):
            self.targets.reach(i)
            event = "UPDATE" if updating[i] else "DELETE"
            row = self.rows[event].before_row(old, news[i] if updating[i] else None)
            self.targets.fired(i, row is not None, event)
            kept.append(row is not None)
            if row is not None:
                self.old.append(old)
                if updating[i]:
                    written.append(row)
        mask = np.array(kept, dtype=bool)
        return found.filter(pa.array(mask, pa.bool_())), updating[mask], changes.table(written)

    def inserting(self, new_rows: pa.Table, made_by: list) -> tuple[pa.Table, list]:
        """The rows INSERT actions add (``made_by``: the source row of each) through the BEFORE
        INSERT ROW triggers: the rows to insert, as they left them, and their source rows."""
        if new_rows is None or not self.rows["INSERT"].any("BEFORE"):
            return new_rows, made_by
        kept, new_rows = self.rows["INSERT"].before(None, new_rows)
        return new_rows, [m for m, k in zip(made_by, kept) if k]

    def finish(self) -> None:
        """The BEFORE ROW triggers ran: the rows the matched ones change must be as found."""
        if self.targets is not None:
            self.targets.finish()

    def end(self, updating, changed_rows, inserted) -> None:
        """The AFTER ROW triggers (the matched rows' in their order, then the inserted rows'),
        then the AFTER STATEMENT ones."""
        from txlake.engine.executor import _arrow
        changes = next(iter(self.rows.values()))
        news = iter(changes._values(_arrow(changed_rows)) if changed_rows is not None else ())
        for old, updated in zip(self.old, updating):
            if updated:
                self.rows["UPDATE"].after_row(old, next(news))
            else:
                self.rows["DELETE"].after_row(old, None)
        if inserted is not None:
            self.rows["INSERT"].after(None, _arrow(inserted))
        empty = self.version.schema.arrow_schema().empty_table()
        transition = {  # (each kind's rows, as they were and became)
            "DELETE": (changes.table([o for o, u in zip(self.old, updating) if not u]), None),
            "UPDATE": (changes.table([o for o, u in zip(self.old, updating) if u]),
                       _arrow(changed_rows) if changed_rows is not None else empty),
            "INSERT": (None, _arrow(inserted) if inserted is not None else empty)}
        for kind in reversed(self.kinds):
            statement(self.ex, self.ctx, self.version, kind, "AFTER", self.assigned, *transition[kind])


class Targets:
    """The rows an UPDATE, DELETE or MERGE found to change, watched while their BEFORE ROW
    triggers run, one row after another. A trigger may write to its own table, as PostgreSQL's
    may (trigger.sgml "Visibility of Data Changes"); but where it changed or deleted a row the
    statement has still to change - the row it fires for, whose change goes on, or one the
    statement comes to later - PostgreSQL refuses the row with 27000 (triggers.out, bug
    #6123): so here. A row the statement changed already (its trigger ran earlier) that a later
    trigger changes would be changed in PostgreSQL on top of the statement's change (or not
    found, deleted), which is not written here yet: 0A000 - once the rows are through, so that
    a 27000 PostgreSQL would give for a later row comes first, as there. A row's own trigger
    changing it and returning NULL is fine (the statement leaves the row; the trigger's change
    stands)."""

    def __init__(self, ctx: Context, table: st.TableName | None, version: TableVersion, rowids: list[int],
                 merge: bool = False):
        self.ctx, self.version, self.rowids, self.merge = ctx, version, rowids, merge
        self.table = table or st.TableName(version.db, version.name)
        self.touched: set[int] = set()  # rows a trigger changed that the statement has not come to
        self.kept: set[int] = set()  # rows the statement is to change, their triggers run
        self.refused = False  # (a kept row changed by a later trigger: 0A000 at ``finish``)

    def reach(self, i: int) -> None:
        """Row ``i``'s turn: 27000 if a trigger changed it meanwhile (PostgreSQL's
        GetTupleForTrigger: its message says "updated" for a DELETE too)."""
        if self.rowids[i] in self.touched:
            raise _changed_by_trigger("updated")

    def fired(self, i: int, kept: bool, event: str) -> None:
        """Row ``i``'s BEFORE triggers ran (``kept``: the statement still changes it)."""
        now = self.ctx.resolve(self.table)
        if now is not self.version:  # (a trigger wrote to the table: the rows it changed)
            changed = _rows_changed(self.version, now, self.rowids)
            self.version = now
            if kept and self.rowids[i] in changed:
                raise _changed_by_trigger("updated or deleted" if self.merge else event.lower() + "d")
            self.check_kept(changed)
            self.touched |= changed
        if kept:
            self.kept.add(self.rowids[i])

    def check_kept(self, changed: set[int]) -> None:
        self.refused = self.refused or not self.kept.isdisjoint(changed)

    def finish(self) -> None:
        """Every row's BEFORE triggers ran (MERGE: its inserts' too)."""
        now = self.ctx.resolve(self.table)
        if now is not self.version:  # (MERGE's BEFORE INSERT triggers, after the matched rows')
            self.check_kept(_rows_changed(self.version, now, self.rowids))
            self.version = now
        if self.refused:
            raise errors.NotSupportedError(
                f'a BEFORE trigger changing a row of "{self.version.name}" that its statement changes before it '
                "is not supported: change it in an AFTER trigger")


def written_over(ctx: Context, table: st.TableName, version: TableVersion, rowids, event: str) -> TableVersion:
    """What an UPDATE's or DELETE's changes of the rows ``rowids`` (found in ``version``) are
    written over: the table as its triggers left it - a BEFORE STATEMENT trigger's writes too,
    which the statement's snapshot does not see, as in PostgreSQL. 27000 where one changed a row
    the statement changes (PostgreSQL's ExecUpdate / ExecDelete on a row its own command's
    trigger modified)."""
    now = ctx.resolve(table)
    if now is version:
        return version
    if _rows_changed(version, now, rowids.tolist() if hasattr(rowids, "tolist") else list(rowids)):
        raise _changed_by_trigger(event.lower() + "d")
    return now


def _rows_changed(before: TableVersion, now: TableVersion, rowids: list[int]) -> set[int]:
    """Which of the rows ``rowids`` (live in ``before``) ``now`` has no more: updated or deleted
    since. Only the deletion vectors that grew are read."""
    by_file: dict[int, list[int]] = {}
    for r in rowids:
        by_file.setdefault(r >> 32, []).append(r)
    changed = set()
    for fid, ids in by_file.items():
        if now.file(fid) is None:
            changed.update(ids)
            continue
        grown = now.deleted(fid) - before.deleted(fid)
        if grown:
            changed.update(r for r in ids if (r & 0xFFFFFFFF) in grown)
    return changed


def _changed_by_trigger(what: str) -> errors.Error:
    return errors.OperationalError(f"tuple to be {what} was already modified by an operation triggered by the "
                                   "current command\nHINT:  Consider using an AFTER trigger instead of a BEFORE "
                                   "trigger to propagate changes to other rows.", sqlstate="27000")


class Upserting:
    """ON CONFLICT DO UPDATE's updates through the BEFORE UPDATE row triggers
    (``Executor._conflict_updated`` calls it with the rows SET made), keeping the old rows for
    the AFTER UPDATE ones."""

    def __init__(self, changes: RowChanges):
        self.changes = changes
        self.changes_rows = changes.any("BEFORE")  # (then any column may change: all are checked)
        self.old: dict[int, tuple] = {}  # row id -> its values before the update

    def __call__(self, rowids, new: pa.Table) -> tuple[pa.Array, pa.Table]:
        from txlake.engine.executor import ROWID, _arrow
        found = _arrow(new).select(list(self.changes.names)).append_column(ROWID, rowids)
        version = self.changes.version
        found, old, new = self.changes.before_found(None, found)
        if self.changes.ctx.resolve(st.TableName(version.db, version.name)) is not version:
            raise errors.NotSupportedError(f'a BEFORE UPDATE trigger writing to its own table ("{version.name}") in '
                                           "INSERT ... ON CONFLICT DO UPDATE is not supported: write in an AFTER "
                                           "trigger")
        kept = found.column(ROWID)
        self.old.update(zip(kept.to_pylist(), self.changes._values(old)))
        return kept, new


class RowChanges:
    """The rows one statement changes in a table with row triggers: their values (OLD and NEW,
    as Python values in the table's column order), fired on by ``before`` and ``after``."""

    def __init__(self, ex: Executor, ctx: Context, version: TableVersion, event: str, assigned=()):
        self.ex, self.ctx, self.version, self.event = ex, ctx, version, event
        schema = version.schema
        self.names = tuple(schema.names)
        self.types = tuple(catalog_views.format_type(c.type) for c in schema.columns)
        self.triggers = [t for t in schema.triggers if t.row and t.fires_on(event) and _of(t, event, assigned)]

    def any(self, timing: str) -> bool:
        return any(t.timing == timing for t in self.triggers)

    def before_found(self, table: st.TableName | None, found: pa.Table) -> tuple[pa.Table, pa.Table, pa.Table | None]:
        """An UPDATE's or DELETE's rows ``found`` (row ids first, an UPDATE's new values by
        column name) through the BEFORE ROW triggers, row by row: (the rows still to change,
        their old values, an UPDATE's new values as the triggers left them). A trigger may
        write to the table (``Targets``): the caller then writes to the table as it left it."""
        from txlake.engine.executor import ROWID
        rowids = found.column(ROWID).to_pylist()
        old = self.old_rows(rowids)
        new = self.ex._conform(found.select(list(self.names)), self.version.schema) if self.event == "UPDATE" else None
        if not self.any("BEFORE"):
            return found, old, new
        targets = Targets(self.ctx, table, self.version, rowids)
        olds, news = self._values(old), self._values(new)
        kept, written = [], []
        for i, values in enumerate(olds):
            targets.reach(i)
            row = self.before_row(values, None if news is None else news[i])
            targets.fired(i, row is not None, self.event)
            kept.append(row is not None)
            if row is not None and news is not None:
                written.append(row)
        targets.finish()
        mask = pa.array(kept, pa.bool_())
        return found.filter(mask), old.filter(mask), None if news is None else self.table(written)

    def old_rows(self, rowids: list[int]) -> pa.Table:
        """The rows ``rowids`` of the table, in that order, as they are before the statement."""
        from txlake.engine.executor import ROWID
        taken = self.ex._rows_by_id(self.version, rowids)
        at = {r: i for i, r in enumerate(taken.column(ROWID).to_pylist())}
        return taken.take(pa.array([at[r] for r in rowids], pa.int64())).select(list(self.names))

    def before(self, old: pa.Table | None, new: pa.Table | None) -> tuple[list[bool], pa.Table | None]:
        """The BEFORE ROW triggers over the rows: (which rows are kept, the kept rows' new values
        as the triggers left them)."""
        olds, news = self._values(old), self._values(new)
        kept, written = [], []
        for i in range(len(olds if news is None else news)):
            row = self.before_row(None if olds is None else olds[i], None if news is None else news[i])
            kept.append(row is not None)
            if row is not None and news is not None:
                written.append(row)
        return kept, (None if news is None else self.table(written))

    def before_row(self, old: tuple | None, new: tuple | None, timing: str = "BEFORE") -> tuple | None:
        """The BEFORE (or INSTEAD OF) ROW triggers over one row (its old and new values), in
        name order, each one's returned row the next one's NEW: the row to write (a DELETE's:
        its old one), or None where one returned NULL (the row is not changed, the next
        triggers not fired)."""
        row, before = self._record(new), self._record(old)
        for trigger in self.triggers:
            if trigger.timing != timing or not self._when(trigger, before, row):
                continue
            returned = _run(self.ex, self.ctx, self.version, trigger, self.event, before, row)
            if returned is None:
                return None
            if new is not None:
                row = _conformed(returned, self)
        return old if new is None else tuple(row.values)

    def table(self, rows: list[tuple]) -> pa.Table:
        """Rows' values as a table of the table's columns."""
        arrow = self.version.schema.arrow_schema()
        columns = list(zip(*rows)) if rows else [[] for _ in self.names]
        return pa.Table.from_arrays([pa.array(list(c), type=f.type) for c, f in zip(columns, arrow)], schema=arrow)

    def after(self, old: pa.Table | None, new: pa.Table | None) -> None:
        """The AFTER ROW triggers over the rows written, row by row, in name order."""
        if not self.any("AFTER"):
            return
        olds, news = self._values(old), self._values(new)
        for i in range(len(olds if news is None else news)):
            self.after_row(None if olds is None else olds[i], None if news is None else news[i])

    def after_row(self, old: tuple | None, new: tuple | None) -> None:
        """The AFTER ROW triggers of one row written (its old and new values), in name order."""
        before, row = self._record(old), self._record(new)
        for trigger in self.triggers:
            if trigger.timing == "AFTER" and self._when(trigger, before, row):
                _run(self.ex, self.ctx, self.version, trigger, self.event, before, row)

    def _row(self, values: list[tuple] | None, i: int) -> plpgsql.Row:
        return self._record(None if values is None else values[i])

    def _record(self, values: tuple | None) -> plpgsql.Row:
        """A row's ``values`` as a record; where there is none (OLD of an INSERT, NEW of a
        DELETE) a NULL of the table's row type, as PostgreSQL's (plpgsql_trigger.out)."""
        if values is None:
            return plpgsql.Row(self.names, [None] * len(self.names), self.types, null=True)
        return plpgsql.Row(self.names, list(values), self.types)

    def _values(self, rows: pa.Table | None) -> list[tuple] | None:
        from txlake.engine.executor import python_rows
        if rows is None:
            return None
        return python_rows(rows.select(list(self.names)))

    def _when(self, trigger: Trigger, old, new) -> bool:
        if trigger.when is None:
            return True
        body = _when_body(trigger.when, self.names, "OLD" if self.event == "DELETE" else "NEW")
        returned, _ = _in_depth(self.ex, lambda: plpgsql.run_trigger(self.ex.session, body, {"new": new, "old": old}))
        return returned is not None


def _conformed(row: plpgsql.Row, changes: RowChanges) -> plpgsql.Row:
    """A BEFORE trigger's returned row as the table's: 42804 for one of another structure."""
    if row.names != changes.names:
        raise errors.DatatypeMismatch("returned row structure does not match the structure of the triggering table"
                                      "\nDETAIL:  Number of returned columns does not match expected column count.")
    return row


@functools.lru_cache(maxsize=256)
def _when_body(when: str, names: tuple[str, ...], record: str) -> plpgsql.Body:
    """A WHEN condition as a PL/pgSQL body returning ``record`` where it holds, NULL where not;
    ``OLD.*`` / ``NEW.*`` as ROW(...) of the columns."""
    def starred(node):
        if isinstance(node, exp.Column) and isinstance(node.this, exp.Star) and node.table.lower() in ("old", "new"):
            return exp.Anonymous(this="ROW", expressions=[exp.column(n, node.table) for n in names])
        return node
    condition = sqlglot.parse_one(when, read="postgres").transform(starred).sql(dialect="postgres")
    return plpgsql.compile_body(f"BEGIN IF {condition} THEN RETURN {record}; END IF; RETURN NULL; END",
                                (("new", None), ("old", None)), "trigger WHEN condition", trigger=True)


def _run(ex: Executor, ctx: Context, version: TableVersion, trigger: Trigger, event: str, old, new,
         tables: dict[str, pa.Table] | None = None):
    """One firing of ``trigger``: its function's body run with NEW / OLD and TG_* (and its
    transition ``tables``, by name, which its statements read: Session._run_statement); what it
    returned."""
    function = _function_of(ctx, trigger)
    definition = function.schema.function
    body = plpgsql.compile_body(definition.body, VARIABLES, f"{definition.name}()", trigger=True)
    arguments = {"new": new, "old": old, "tg_name": trigger.name, "tg_when": trigger.timing,
                 "tg_level": "ROW" if trigger.row else "STATEMENT", "tg_op": event,
                 "tg_relid": pg_catalog.oid(version.table_id),
                 "tg_relname": version.name, "tg_table_name": version.name,
                 "tg_table_schema": catalog_views.schema_name(version.db), "tg_nargs": len(trigger.args),
                 "tg_argv": list(trigger.args)}
    outer, ex.transition = ex.transition, tables or None  # (a trigger run inside sees its own)
    try:
        returned, messages = _in_depth(ex, lambda: plpgsql.run_trigger(ex.session, body, arguments))
    finally:
        ex.transition = outer
    ex.trigger_messages += messages  # (the statement's result tells them: Session._run_statement)
    return returned


def _function_of(ctx: Context, trigger: Trigger) -> TableVersion:
    version = ctx.by_id(trigger.function_id)
    if version is None:  # (dropped by a process that did not know of the trigger)
        raise errors.UndefinedFunction(f"function {trigger.function}() does not exist")
    return version


def _in_depth(ex: Executor, run):
    """``run()`` one trigger level deeper: 54001 past ``MAX_DEPTH`` (or Python's stack), as
    PostgreSQL's stack depth check ends a trigger that fires itself. The statement's
    snapshot and clock are the caller's again after it (the function's statements take their
    own)."""
    depth = getattr(ex, "trigger_depth", 0)
    if depth >= MAX_DEPTH:
        raise _too_deep()
    session = ex.session
    txn = session.txn
    snapshot, clock, sequence_ctx = txn.snapshot, ex.clock_of, ex.sequence_calls.ctx
    ex.trigger_depth = depth + 1
    session.routine_depth += 1  # (a routine runs: its EXCEPTION blocks take savepoints in any transaction)
    try:
        return run()
    except RecursionError:
        raise _too_deep() from None
    finally:
        ex.trigger_depth = depth
        session.routine_depth -= 1
        if session.txn is txn:
            txn.snapshot = snapshot
        ex.clock_of, ex.sequence_calls.ctx = clock, sequence_ctx


def _too_deep() -> errors.Error:
    return errors.OperationalError('stack depth limit exceeded\nHINT:  Increase the configuration parameter '
                                   '"max_stack_depth" (currently 2048kB), after ensuring the platform\'s stack depth '
                                   "limit is adequate.", sqlstate="54001")


# --- INSTEAD OF triggers: writes to views -------------------------------------------------------

def instead_of(ex: Executor, ctx: Context, stmt: st.InsteadOfWrite, params) -> Result:
    """An INSERT, UPDATE or DELETE of a view with INSTEAD OF triggers for it (engine/views.py
    lets it through), as PostgreSQL runs one (trigger.sgml): the view's rows it names - an
    INSERT's built from its values, an UPDATE's or DELETE's the view's rows its WHERE keeps,
    an UPDATE's new values as SET makes them - each through the INSTEAD OF ROW triggers, which
    do the write; a row one returns NULL for is not counted, and RETURNING gives the rows they
    returned (a DELETE's: its old rows)."""
    write = stmt.write
    version = ctx.resolve(write.table)
    shaped = dataclasses.replace(version.schema, columns=tuple(catalog_views.columns_of(version)))
    version = TableVersion(version.table_id, version.db, version.name, shaped)  # (its rows' shape: OLD, NEW)
    schema, alias = version.schema, write.alias or write.table.name
    body = len(params) - _placeholders_of(*write.returning)
    params, returning_params = params[:body], params[body:]
    if isinstance(write, st.Insert):
        event, old, new = "INSERT", None, _instead_inserted(ex, ctx, write, version, params)
    else:
        event = "UPDATE" if isinstance(write, st.Update) else "DELETE"
        old, new = _instead_found(ex, ctx, write, version, alias, params)
    changes = RowChanges(ex, ctx, version, event)
    olds, news = changes._values(old), changes._values(new)
    done = []
    for i in range(len(olds if news is None else news)):
        row = changes.before_row(None if olds is None else olds[i], None if news is None else news[i], "INSTEAD OF")
        if row is not None:
            done.append(row)
    rows = changes.table(done)
    result = ex._returning(write.returning, rows, schema, alias, returning_params)
    result.status = f"INSERT 0 {rows.num_rows}" if event == "INSERT" else f"{event} {rows.num_rows}"
    return result


def _placeholders_of(*parts) -> int:
    from txlake.engine.executor import _placeholders
    return _placeholders(*parts)


def _instead_inserted(ex: Executor, ctx: Context, write: st.Insert, version: TableVersion, params) -> pa.Table:
    """The rows an INSERT into a view gives its INSTEAD OF triggers: built as an INSERT builds a
    table's (the view's columns' types; a column not given NULL)."""
    if write.on_conflict is not None:
        raise errors.NotSupportedError(f'INSERT ... ON CONFLICT into view "{version.name}" is not supported')
    columns = ex._target_columns(version.schema, write)
    with ex._registered() as register:
        sql = ex._insert_sql(ctx, version.schema, columns, write, register, params)
        return ex._conform(ex._sql(sql, params), version.schema)


def _instead_found(ex: Executor, ctx: Context, write, version: TableVersion, alias: str,
                   params) -> tuple[pa.Table, pa.Table | None]:
    """An UPDATE's or DELETE's rows of a view: the view's rows its WHERE keeps (OLD), and an
    UPDATE's as its SET makes them (NEW), found by a query of the view."""
    from txlake.engine import views
    from txlake.engine.executor import _cast
    if write.from_ if isinstance(write, st.Update) else write.using:
        raise errors.NotSupportedError(f'UPDATE ... FROM or DELETE ... USING of view "{version.name}" is not supported')
    schema = version.schema
    table = exp.Table(this=exp.to_identifier(write.table.name),
                      db=exp.to_identifier(write.table.db) if write.table.db else None,
                      alias=exp.TableAlias(this=exp.to_identifier(alias)))
    projections = [exp.alias_(exp.column(c, alias), f"old.{c}", quoted=True) for c in schema.names]
    assigned = dict(write.assignments) if isinstance(write, st.Update) else {}
    for name in assigned:  # (in the SET's order: its ? bind so)
        projections.append(exp.alias_(_cast(assigned[name], schema.require(name, version.name).type), f"new.{name}",
                                      quoted=True))
    query = exp.select(*projections).from_(table)
    if write.where is not None:
        query = query.where(write.where)
    found = ex.query(ctx, views.expand(ctx, st.Query(expression=query, param_count=len(params))), params).table
    old = ex._conform(found.select([f"old.{c}" for c in schema.names]), schema)
    if not isinstance(write, st.Update):
        return old, None
    for name in write.defaults:  # (SET c = DEFAULT: a view's column has none - NULL)
        schema.require(name, version.name)
    new = [found.column(f"new.{c}") if c in assigned else
           pa.nulls(found.num_rows, old.schema.field(c).type) if c in write.defaults else old.column(c)
           for c in schema.names]
    return old, ex._conform(pa.Table.from_arrays(new, names=list(schema.names)), schema)


# --- catalogs ------------------------------------------------------------------------------

#: pg_trigger.tgtype's bits (PostgreSQL's TRIGGER_TYPE_*)
_TYPE_BITS = {"ROW": 1, "BEFORE": 2, "INSERT": 4, "DELETE": 8, "UPDATE": 16, "TRUNCATE": 32, "INSTEAD OF": 64}


def tgtype(trigger: Trigger) -> int:
    return (trigger.row and _TYPE_BITS["ROW"]) | _TYPE_BITS.get(trigger.timing, 0) | \
        sum(_TYPE_BITS[e] for e in trigger.events)


def trigger_oid(version: TableVersion, trigger: Trigger) -> int:
    return pg_catalog.oid(version.table_id, f"trigger {trigger.name}")


def definition(version: TableVersion, trigger: Trigger, qualified: bool = True) -> str:
    """The trigger's CREATE TRIGGER, as pg_get_triggerdef writes it (``qualified`` False: its
    pretty form's table, as psql's ``\\d`` shows it, unqualified)."""
    events = " OR ".join(f"UPDATE OF {', '.join(trigger.columns)}" if e == "UPDATE" and trigger.columns else e
                         for e in sorted(trigger.events, key=lambda e: _TYPE_BITS[e]))
    table = f"{catalog_views.schema_name(version.db)}.{version.name}" if qualified else version.name
    schema, name = trigger.function.split(".", 1)
    function = name if schema == "public" else trigger.function
    arguments = ", ".join("'" + a.replace("'", "''") + "'" for a in trigger.args)
    when = f" WHEN ({trigger.when})" if trigger.when else ""
    referencing = "".join(f" {which} TABLE AS {name}" for which, name in (("OLD", trigger.old_table),
                                                                        ("NEW", trigger.new_table)) if name)
    referencing = f" REFERENCING{referencing}" if referencing else ""
    return (f"CREATE TRIGGER {trigger.name} {trigger.timing} {events} ON {table}{referencing} FOR EACH "
            f"{'ROW' if trigger.row else 'STATEMENT'}{when} EXECUTE FUNCTION {function}({arguments})")


def described(version: TableVersion) -> tuple[list[str], list[str]]:
    """psql's ``\\d``'s "Triggers:" and "Disabled user triggers:" lines of the table."""
    shown = [definition(version, t, qualified=False).removeprefix("CREATE TRIGGER ") for t in version.schema.triggers]
    return ([s for s, t in zip(shown, version.schema.triggers) if t.enabled != "D"],
            [s for s, t in zip(shown, version.schema.triggers) if t.enabled == "D"])


def listed(tables: list[TableVersion]) -> list[tuple[TableVersion, Trigger]]:
    """(table, trigger) for each trigger of ``tables``."""
    return [(t, trigger) for t in tables if (t.is_table or t.is_view) and t.schema.triggers
            for trigger in t.schema.triggers]
