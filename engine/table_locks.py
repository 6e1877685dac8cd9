"""Which table-level lock each statement takes, taken before the statement runs (PostgreSQL's
rules; the lock table itself is engine/mvcc/locks.py).

- every table a statement reads: ACCESS SHARE; the tables of a SELECT with FOR UPDATE / SHARE
  (or of an UPDATE / DELETE whose subquery has one), all of them: ROW SHARE;
- the table INSERT, UPDATE, DELETE, MERGE or COPY FROM writes: ROW EXCLUSIVE;
- CREATE INDEX, ALTER TABLE ... ADD FOREIGN KEY / VALIDATE CONSTRAINT (on the table and the
  table referenced), CREATE TABLE ... REFERENCES (on the table referenced): SHARE ROW EXCLUSIVE
  - PostgreSQL's for ADD FOREIGN KEY; CREATE INDEX (SHARE there) and VALIDATE (SHARE UPDATE
  EXCLUSIVE) take it here because txlake writes the table anew under its new schema, which a
  concurrent writer or a second CREATE INDEX would turn into a 40001 at COMMIT;
- every other ALTER TABLE, DROP TABLE / VIEW / INDEX (its table), TRUNCATE (CASCADE: the tables
  referencing it too), DROP SCHEMA (its tables), ALTER / CREATE OR REPLACE VIEW: ACCESS EXCLUSIVE;
- COMMENT ON a table, view, index (its table), column or constraint, ALTER INDEX ... RENAME TO (its
  table; PostgreSQL's lock on the index): SHARE UPDATE EXCLUSIVE;
- ALTER TYPE ... ADD VALUE / RENAME VALUE: EXCLUSIVE on the type's catalog entry (PostgreSQL's
  lock on the type object: one change of an enum's labels at a time), none on its tables;
- ``LOCK [TABLE] name [, ...] [IN mode MODE] [NOWAIT]``: the mode named (ACCESS EXCLUSIVE if none);
- REFRESH MATERIALIZED VIEW: ACCESS EXCLUSIVE on it (CONCURRENTLY: EXCLUSIVE, as PostgreSQL's).

A view read takes its lock and the same on every relation it reads. Temporary tables (a
session's own) and sequences take none. Locks are taken in the order the statement names the
tables, each held to the transaction's end; a transaction asks the lock table once per table
and mode (then the mode it holds covers the request: a dict lookup), and a statement it runs
again takes nothing (``Transaction.statements_locked``: its names are looked up once per
transaction - until it frees locks or runs DDL).

Names are looked up before the statement's snapshot is taken - in the transaction's snapshot
if it keeps one (REPEATABLE READ, SERIALIZABLE) and has it, else in the newest catalog - so a
statement that waited runs on what the transaction it waited for committed, as in PostgreSQL:
``follow`` then moves the transaction's view of each table a DDL statement locked to its newest
committed version (PostgreSQL's DDL reads the newest catalog and rewrites the newest rows, not
the snapshot's), and of each table a writer locked whose schema changed since the snapshot (an
INSERT that waited for an ALTER TABLE writes rows of the new schema). A table dropped or renamed
meanwhile is 42P01: the name the statement resolved names nothing now.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from txlake import errors
from txlake.engine import catalog_views
from txlake.engine.mvcc.locks import (ACCESS_EXCLUSIVE, ACCESS_SHARE, MODE_NAMES, ROW_EXCLUSIVE, ROW_SHARE,
                                      SHARE_ROW_EXCLUSIVE)
from txlake.engine.mvcc.xact import Transaction
from txlake.engine.temp_tables import TEMP_DB
from txlake.engine.views import relations_read
from txlake.parser import statements as st


@dataclass(frozen=True)
class Target:
    """A lock a statement takes: on the relation ``name`` (``of`` "relation"), on the table of
    the index ``name`` ("index"), on the tables of the database ``name.db`` ("schema"), or on
    the relation and the tables referencing it by foreign keys ("cascade")."""
    name: st.TableName
    mode: int
    of: str = "relation"


_DDL = (st.AlterTable, st.AlterIndex, st.CreateIndex, st.DropIndex,
        st.DropTable, st.Truncate, st.CreateTable, st.DropSchema)
_PLAIN = (st.Query, st.Explain, st.Insert, st.Update, st.Delete, st.Merge, st.Copy, st.WithWrites)  # (not DDL)
_PLANS: dict[int, tuple[st.Statement, tuple[Target, ...]]] = {}  # id(statement) -> (it, its targets)
_PLANS_KEPT = 4096


def targets(stmt: st.Statement) -> tuple[Target, ...]:
    """The locks ``stmt`` takes, worked out once per statement object (parsed statements are
    cached by their text and shared)."""
    hit = _PLANS.get(id(stmt))
    if hit is not None and hit[0] is stmt:  # (the statement pins its id)
        return hit[1]
    plan = _plan(stmt)
    if len(_PLANS) >= _PLANS_KEPT:
        _PLANS.clear()
    _PLANS[id(stmt)] = (stmt, plan)
    return plan


def _reads(mode: int, *parts) -> list[Target]:
    found = []
    for part in parts:
        for node in (part if isinstance(part, tuple) else (part,)):
            if isinstance(node, tuple):  # ((column, expression), ...) of SET
                found += _reads(mode, *node)
            elif isinstance(node, exp.Expression):
                found += [Target(name, mode) for name in relations_read(node)]
    return found


def _written(table: st.TableName, locking: bool, *parts) -> tuple[Target, ...]:
    return (Target(table, ROW_EXCLUSIVE), *_reads(ROW_SHARE if locking else ACCESS_SHARE, *parts))


def _alter_mode(action) -> int:
    if isinstance(action, st.AddConstraint) and isinstance(action.constraint, st.ForeignKeySpec):
        return SHARE_ROW_EXCLUSIVE
    if isinstance(action, st.ValidateConstraint):
        return SHARE_ROW_EXCLUSIVE
    return ACCESS_EXCLUSIVE


def _plan(stmt: st.Statement) -> tuple[Target, ...]:
    if isinstance(stmt, st.Query):
        return tuple(_reads(ROW_SHARE if stmt.locks else ACCESS_SHARE, stmt.expression))
    if isinstance(stmt, st.Explain):
        return tuple(_reads(ACCESS_SHARE, stmt.query.expression))
    if isinstance(stmt, st.Insert):
        conflict = stmt.on_conflict
        extra = (conflict.assignments, conflict.where) if conflict is not None else ()
        return _written(stmt.table, False, stmt.source, stmt.returning, *extra)
    if isinstance(stmt, st.Update):
        return _written(stmt.table, stmt.locking, stmt.from_, stmt.where, stmt.assignments, stmt.returning)
    if isinstance(stmt, st.Delete):
        return _written(stmt.table, stmt.locking, stmt.using, stmt.where, stmt.returning)
    if isinstance(stmt, st.WithWrites):  # (the names of its CTEs that ran name no table)
        return tuple(target for part in stmt.parts for target in _plan(part))
    if isinstance(stmt, st.Merge):
        parts = [(a.condition, a.assignments, a.values or ()) for a in stmt.actions]
        return _written(stmt.table, False, stmt.source, stmt.on, stmt.returning, *parts)
    if isinstance(stmt, st.Copy):
        if stmt.to:
            return tuple(_reads(ACCESS_SHARE, stmt.query.expression)) if stmt.query is not None else ()
        return (Target(stmt.table, ROW_EXCLUSIVE),)
    if isinstance(stmt, st.LockTable):
        return tuple(Target(name, MODE_NAMES.index(stmt.mode)) for name in stmt.tables)
    if isinstance(stmt, st.AlterTable):
        mode = max(map(_alter_mode, stmt.actions), default=ACCESS_EXCLUSIVE)
        referenced = [Target(a.constraint.table, SHARE_ROW_EXCLUSIVE) for a in stmt.actions
                      if isinstance(a, st.AddConstraint) and isinstance(a.constraint, st.ForeignKeySpec)]
        return (Target(stmt.table, mode), *referenced)
    if isinstance(stmt, st.CreateIndex):
        return (Target(stmt.table, SHARE_ROW_EXCLUSIVE),)
    if isinstance(stmt, st.AlterIndex):  # (PostgreSQL's ALTER INDEX renames any relation: then as ALTER TABLE's)
        return (Target(stmt.index, ACCESS_EXCLUSIVE), Target(stmt.index, MODE_NAMES.index("SHARE UPDATE EXCLUSIVE"),
                                                            "index"))
    if isinstance(stmt, st.DropIndex):
        return tuple(Target(name, ACCESS_EXCLUSIVE, "index") for name in stmt.indexes)
    if isinstance(stmt, (st.DropTable, st.Truncate)):
        of = "cascade" if isinstance(stmt, st.Truncate) and stmt.cascade else "relation"
        return tuple(Target(name, ACCESS_EXCLUSIVE, of) for name in stmt.tables)
    if isinstance(stmt, st.DropView):
        return tuple(Target(name, ACCESS_EXCLUSIVE) for name in stmt.views)
    if isinstance(stmt, st.AlterView):
        return (Target(stmt.view, ACCESS_EXCLUSIVE),)
    if isinstance(stmt, st.CreateView):
        replaced = (Target(stmt.view, ACCESS_EXCLUSIVE),) if stmt.or_replace and not stmt.temporary else ()
        return (*replaced, *_reads(ACCESS_SHARE, stmt.query))
    if isinstance(stmt, st.CreateMatview):
        return tuple(_reads(ACCESS_SHARE, stmt.query))
    if isinstance(stmt, st.RefreshMatview):
        return (Target(stmt.view, MODE_NAMES.index("EXCLUSIVE") if stmt.concurrently else ACCESS_EXCLUSIVE),)
    if isinstance(stmt, st.CreateTable):
        referenced = [Target(c.table, SHARE_ROW_EXCLUSIVE) for c in stmt.constraints
                      if isinstance(c, st.ForeignKeySpec)]
        return (*referenced, *_reads(ACCESS_SHARE, stmt.as_query))
    if isinstance(stmt, st.DropSchema):
        return (Target(st.TableName(stmt.db, ""), ACCESS_EXCLUSIVE, "schema"),)
    if isinstance(stmt, st.AlterType) and stmt.action in ("ADD VALUE", "RENAME VALUE"):  # (on the type itself)
        return (Target(stmt.name, MODE_NAMES.index("EXCLUSIVE")),)
    if isinstance(stmt, (st.CreatePolicy, st.AlterPolicy, st.DropPolicy, st.AlterRowSecurity)):
        return (Target(stmt.table, ACCESS_EXCLUSIVE),)
    if isinstance(stmt, st.Comment):  # (on an index: its table's lock)
        of = "index" if stmt.kind == "INDEX" else "relation"
        return (Target(stmt.target, MODE_NAMES.index("SHARE UPDATE EXCLUSIVE"), of),)
    return ()


def lock(db, txn: Transaction, stmt: st.Statement, search_path: tuple[str, ...],
         timeout: float | None) -> list[tuple[str, int]] | None:
    """Take the table locks ``stmt`` needs, before its snapshot is taken (see the module's
    docstring). Returns the (table id, mode) of those newly taken, or None if every one was
    held already."""
    done, key = txn.statements_locked, (id(stmt), search_path)
    if done.get(key) is stmt:
        return None
    plan = targets(stmt)
    if not isinstance(stmt, _PLAIN):
        done.clear()  # (DDL may change what a name means)
    if not plan:
        return None
    explicit = isinstance(stmt, st.LockTable)
    if explicit and txn.read_only and any(t.mode > ROW_EXCLUSIVE for t in plan):
        raise errors.ReadOnlyTransaction("cannot execute LOCK TABLE in a read-only transaction")
    new, locked = None, set()
    by_snapshot = txn.snapshot is not None and txn.uses_transaction_snapshot
    for _ in range(3):  # (names looked up again after a wait: a table dropped and made anew meanwhile)
        catalog = txn.snapshot.catalog if by_snapshot else db.warehouse.latest
        waited = False
        for target in plan:
            for table_id, name in _tables(txn, catalog, target, search_path, explicit):
                if (table_id, target.mode) in locked:
                    continue
                locked.add((table_id, target.mode))
                took = db.locks.lock_relation(txn, table_id, target.mode, timeout,
                                              nowait=explicit and stmt.nowait, name=name)
                if took is not None:
                    new = new or []
                    new.append((table_id, target.mode))
                    waited = waited or took
        if not waited or by_snapshot:
            break
    if isinstance(stmt, _PLAIN):
        done[key] = stmt
    return new


def _tables(txn: Transaction, catalog, target: Target, search_path, explicit: bool):
    """(table id, name) of each table or view ``target`` locks, as the transaction sees them."""
    name = target.name
    if target.of == "schema":
        return [(v.table_id, v.name) for v in txn.tables(catalog) if v.db == name.db and not v.is_sequence]
    if target.of == "index":
        return _index_table(txn, catalog, name, search_path)
    version = _find(txn, catalog, name, search_path)
    if version is None:
        if explicit and catalog_views.view(name.db, name.name) is None:
            raise catalog_views.undefined_table(name)
        return ()
    if version.db == TEMP_DB:
        return ()  # (the session's own)
    if version.is_sequence:
        if explicit:
            raise errors.WrongObjectType(f'"{name.name}" is not a table or view')
        return ()
    found = [(version.table_id, version.name)]
    if version.is_view and (target.mode <= ROW_EXCLUSIVE or explicit):
        found += _read_by_view(txn, catalog, version)
    if target.of == "cascade":
        seen, todo = {version.table_id}, [version.table_id]
        while todo:
            for child_id, _ in catalog.referencing(todo.pop()):
                child = catalog.by_id(child_id)
                if child_id not in seen and child is not None:
                    seen.add(child_id)
                    todo.append(child_id)
                    found.append((child_id, child.name))
    return found


def _find(txn: Transaction, catalog, name: st.TableName, search_path):
    if name.db is not None:
        return txn.table(catalog, name.db, name.name)
    for db in search_path:
        version = txn.table(catalog, db, name.name)
        if version is not None:
            return version
    return None


def _read_by_view(txn: Transaction, catalog, view) -> list[tuple[str, str]]:
    """The relations a view reads, and theirs (a view over views)."""
    found, todo, seen = [], [view], {view.table_id}
    while todo:
        for dep in todo.pop().schema.view.depends:
            if dep.table_id not in seen:
                seen.add(dep.table_id)
                found.append((dep.table_id, dep.name))
                version = catalog.by_id(dep.table_id)
                if version is not None and version.is_view:
                    todo.append(version)
    return found


def _index_table(txn: Transaction, catalog, index: st.TableName, search_path) -> list[tuple[str, str]]:
    """The table that has the index ``index`` (none: DROP INDEX says so)."""
    for db in ((index.db,) if index.db is not None else search_path):
        for version in txn.tables(catalog):
            if version.db != db or not version.is_table or version.db == TEMP_DB:
                continue
            schema = version.schema
            if any(i.name == index.name for i in schema.indexes) or any(u.name == index.name for u in schema.uniques):
                return [(version.table_id, version.name)]
    return []


def follow(db, txn: Transaction, stmt: st.Statement, taken: list[tuple[str, int]]) -> None:
    """After the snapshot is taken: move the transaction's view of the tables a DDL statement
    locked - and of those a writer locked whose schema changed since its snapshot - to their
    newest committed version (see the module's docstring)."""
    ddl = isinstance(stmt, _DDL)
    taken = [(table_id, mode) for table_id, mode in taken
             if mode == ROW_EXCLUSIVE or ddl and mode >= SHARE_ROW_EXCLUSIVE]
    if not taken:
        return
    latest = db.warehouse.refresh() if ddl else db.warehouse.latest
    snapshot = txn.snapshot.catalog
    if latest is snapshot and not ddl and not any(table_id in txn.changes for table_id, _ in taken):
        return  # (a writer's usual case: each table it locked is the snapshot's, and the newest)
    for table_id, mode in taken:
        mine = table_id in txn.changes
        seen = txn.changes[table_id] if mine else snapshot.by_id(table_id)
        base = txn.bases.get(table_id) if mine else seen
        if seen is None or base is None:
            continue  # (made or dropped by this transaction)
        current = latest.by_id(table_id)
        if current is None or current.name != base.name:  # (dropped, or renamed: the name it resolved is gone)
            raise errors.UndefinedTable(f'relation "{seen.name}" does not exist')
        if current is base or not (mode != ROW_EXCLUSIVE or current.schema.schema_id != seen.schema.schema_id):
            continue
        txn.rebase(table_id, seen, current)
