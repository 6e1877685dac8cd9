"""FOREIGN KEY constraints, as PostgreSQL 16 has them, on the executor's machinery.

- DDL (``constraint``): ``REFERENCES p [(cols)]`` / ``FOREIGN KEY (a, b) REFERENCES p (x, y)``
  in CREATE TABLE or ALTER TABLE ADD; the referenced columns must be the referenced table's
  primary key or a UNIQUE constraint's / unique index's columns (``unique_over``); existing
  rows are validated unless NOT VALID. The referenced table is kept by id: renamed, it keeps
  the constraint; its columns by name: a referenced column renamed is renamed in the
  referencing tables' constraints (``check_alter``). VALIDATE CONSTRAINT validates a NOT
  VALID one (``validate``).
- DML (``written``, from ``Executor._write``, which every INSERT / UPDATE / DELETE / MERGE /
  COPY write goes through): each row a statement adds to a referencing table must find its
  key in the referenced table as the statement sees it (its snapshot and its transaction's
  own writes) - by the index of the referenced key (the primary key's, or a UNIQUE
  constraint's: a row with a NULL there is referenced by none); each key a statement removes from
  a referenced table (a row deleted, a key updated) is looked for in the referencing tables (a
  scan of their key columns, or a lookup through an index of them: engine/indexes.py) and
  then, by the constraint's action, refused (NO ACTION, RESTRICT: 23503) or followed - the
  referencing rows deleted (CASCADE), updated to the new key (ON UPDATE CASCADE) or set to
  NULL / their defaults (``ON DELETE SET NULL (b)``: only those columns) - by a nested
  DELETE / UPDATE of the referencing table in the same transaction, itself subject to that
  table's constraints and referencing tables (recursively). As PostgreSQL's referential
  triggers, a statement's checks and actions are queued and run in turn after it - a MERGE's
  once it has updated, deleted and inserted (``statement``) -, those of a cascade's statement
  after the ones queued before them (``_follow``). NO ACTION passes a key a row holds again by
  then; RESTRICT refuses a referenced row's delete or key change whatever holds its key.
- DEFERRABLE (engine/deferred.py): a deferred constraint's check of new rows, and a deferred NO
  ACTION one's of removed keys, wait for COMMIT (``_NewKeys``, ``_RemovedKeys``: those of
  many statements checked together there); RESTRICT and the actions never wait.
- COMMIT: storage/foreign_keys.py re-checks against what committed since (40001 / 23503).
- Who references a table comes from the catalog version (memoised there, carried from version
  to version while no schema changes) and, when the transaction made or changed a table with a
  foreign key, its own changes: a write to a table of a warehouse without foreign keys pays
  two attribute tests.
"""

from __future__ import annotations

import collections
import contextlib
import functools
from dataclasses import dataclass, replace

import sqlglot.expressions as exp

from txlake import errors
from txlake.engine import catalog_views, deferred, indexes, uniques
from txlake.parser import statements as st
from txlake.storage import foreign_keys as fks
from txlake.storage import keys as pk
from txlake.storage.commit import SOURCES
from txlake.storage.schema import ColumnType, ForeignKey, TableSchema, timing_sql
from txlake.storage.version import TableVersion

# The types a key may be compared across (as PostgreSQL's equality operators allow); any other
# pair of different kinds is 42804.
_FAMILIES = ({"SMALLINT", "INT", "BIGINT"}, {"REAL", "DOUBLE", "DECIMAL"}, {"VARCHAR"}, {"TIMESTAMP", "TIMESTAMPTZ"},
             {"JSON"}, {"JSONB"})
_INTEGERS = _FAMILIES[0]
# the placeholder id of the table being created, in its own foreign keys (``own_table``)
_SELF = ""


# --- DDL ---------------------------------------------------------------------------------

def constraint(ex, ctx, db: str, table: str, schema: TableSchema, spec: st.ForeignKeySpec, name: str,
               data, not_valid: bool) -> ForeignKey:
    """The foreign key ``spec`` (named ``name``) of the table ``db.table`` of ``schema``,
    checked against the referenced table; ``data``: the table's rows, which must hold it
    (23503) unless ``not_valid`` (None: a table being created)."""
    pdb, pname = ctx.locate(spec.table)
    own = ctx.txn.table(ctx.catalog, db, table)
    if (pdb, pname) == (db, table):
        parent_schema, parent_id = schema, own.table_id if own is not None else _SELF
    else:
        parent = ctx.lookup(spec.table)
        if parent is None:
            named = catalog_views.relation_name(spec.table.db, pname)
            raise errors.UndefinedTable(f'relation "{named}" does not exist')
        if not parent.is_table:
            raise errors.WrongObjectType(f'referenced relation "{parent.name}" is not a table')
        if parent.schema.partitioning is not None:  # (its rows are its partitions': engine/partitions.py)
            raise errors.NotSupportedError(f'a foreign key referencing the partitioned table "{parent.name}" is not '
                                           "supported")
        parent_schema, parent_id = parent.schema, parent.table_id
    for col in (*spec.columns, *spec.delete_set_columns):
        if schema.column(col) is None:
            raise errors.UndefinedColumn(f'column "{col}" referenced in foreign key constraint does not exist')
    for col in spec.delete_set_columns:
        if col not in spec.columns:
            raise errors.ProgrammingError(f'column "{col}" referenced in ON DELETE SET action must be part of '
                                          "foreign key", sqlstate="42P10")
    ref_columns = tuple(spec.ref_columns)
    if not ref_columns:
        if not parent_schema.primary_key:
            raise errors.InvalidForeignKey(f'there is no primary key for referenced table "{pname}"')
        ref_columns = parent_schema.primary_key
    for col in ref_columns:
        if parent_schema.column(col) is None:
            raise errors.UndefinedColumn(f'column "{col}" referenced in foreign key constraint does not exist')
    if len(ref_columns) != len(spec.columns):
        raise errors.InvalidForeignKey("number of referencing and referenced columns for foreign key disagree")
    key = uniques.referenced(parent_schema, pname, ref_columns)
    if key is None:
        raise errors.InvalidForeignKey(
            f'there is no unique constraint matching given keys for referenced table "{pname}"')
    if key.deferrable:  # (as PostgreSQL: a referenced row must be unique when a check finds it)
        raise errors.ObjectNotInPrerequisiteState(
            f'cannot use a deferrable unique constraint for referenced table "{pname}"')
    for col, ref in zip(spec.columns, ref_columns):
        mine, theirs = schema.column(col).type, parent_schema.column(ref).type
        if not _comparable(mine, theirs):
            raise errors.DatatypeMismatch(
                f'foreign key constraint "{name}" cannot be implemented\n'
                f'DETAIL:  Key columns "{col}" and "{ref}" are of incompatible types: '
                f"{_type_name(mine)} and {_type_name(theirs)}.")
    fk = ForeignKey(name, tuple(spec.columns), parent_id, pdb, ref_columns, spec.on_delete, spec.on_update,
                    spec.match_full, validated=not not_valid, delete_set_columns=tuple(spec.delete_set_columns),
                    deferrable=spec.deferrable, initially_deferred=spec.initially_deferred)
    ctx.txn.foreign_keys = True
    if data is not None and data.num_rows and not not_valid:
        _validate(ex, ctx, fk, table, schema, data, parent_schema, parent_id, pname)
    return fk


def unique_over(schema: TableSchema, table: str, columns) -> str | None:
    """The name of the key of the table ``table`` of ``schema`` over exactly ``columns`` (in any
    order) that a foreign key referencing them uses (uniques.referenced: one not deferrable),
    or None. A foreign key depends on that key: it may not be dropped while the foreign key is
    there (``key_dropped``)."""
    key = uniques.referenced(schema, table, columns)
    return key.name if key is not None else None


def own_table(schema: TableSchema, table_id: str) -> TableSchema:
    """``schema`` of the table ``table_id`` being created, its self-references given its id."""
    if not any(fk.table_id == _SELF for fk in schema.foreign_keys):
        return schema
    return replace(schema, foreign_keys=tuple(replace(fk, table_id=table_id) if fk.table_id == _SELF else fk
                                              for fk in schema.foreign_keys))


def validate(ex, ctx, table_id: str, table: str, schema: TableSchema, data, name: str) -> TableSchema:
    """``ALTER TABLE ... VALIDATE CONSTRAINT name`` of the foreign key ``name`` of the table
    ``table`` (id ``table_id``, of ``schema``, holding ``data``): every row holds it (23503),
    then it is valid."""
    fk = next(fk for fk in schema.foreign_keys if fk.name == name)
    if fk.validated:
        return schema
    if data.num_rows:
        if fk.table_id == table_id:
            parent_schema, parent_name = schema, table
        else:
            parent = _visible(ctx, fk.table_id)
            parent_schema, parent_name = parent.schema, parent.name
        _validate(ex, ctx, fk, table, schema, data, parent_schema, fk.table_id, parent_name)
    return replace(schema, foreign_keys=tuple(replace(f, validated=True) if f is fk else f
                                              for f in schema.foreign_keys))


def _validate(ex, ctx, fk: ForeignKey, table: str, schema: TableSchema, data, parent_schema: TableSchema,
              parent_id: str, parent_name: str) -> None:
    """ALTER TABLE ... ADD FOREIGN KEY (or VALIDATE CONSTRAINT): every row of ``data`` holds
    it (23503)."""
    rows = list(zip(*(data.column(c).to_pylist() for c in fk.columns)))
    _refuse_mixed_nulls(fk, table, rows)
    keys = fks.complete(rows)
    if not keys:
        return
    _, refs = fks.parent_order(fk, parent_schema)
    order = [fk.ref_columns.index(k) for k in refs]
    wanted = {tuple(k[i] for i in order): k for k in keys}
    if parent_id == _SELF or parent_schema is schema:
        held = set(zip(*(data.column(c).to_pylist() for c in refs)))
        gone = [k for k in wanted if k not in held]
    else:
        gone = fks.missing(ex.store, _visible(ctx, parent_id), set(wanted), refs)
    if gone:
        raise fks.child_violation(fk, table, parent_name, wanted[gone[0]])


def _refuse_mixed_nulls(fk: ForeignKey, table: str, rows) -> None:
    if fk.match_full and len(fk.columns) > 1:
        for k in rows:
            if None in k and any(v is not None for v in k):
                raise errors.ForeignKeyViolation(
                    f'insert or update on table "{table}" violates foreign key constraint "{fk.name}"\n'
                    "DETAIL:  MATCH FULL does not allow mixing of null and nonnull key values.")


def _comparable(a: ColumnType, b: ColumnType) -> bool:
    if a.kind == b.kind:
        return a.kind != "ARRAY" or a == b
    if b.kind in _INTEGERS:  # (an integer key's index is probed by integer values)
        return a.kind in _INTEGERS
    return any(a.kind in f and b.kind in f for f in _FAMILIES) or (a.kind in _INTEGERS and b.kind in _FAMILIES[1])


def _type_name(t: ColumnType) -> str:
    if t.kind == "VARCHAR":
        return "character" if t.blank_padded else "character varying" if t.length else "text"
    return catalog_views._PG_TYPES.get(t.kind, (t.display().lower(),))[0]


# --- who references what -------------------------------------------------------------------

def referencing(ctx, table_id: str) -> list[tuple[str, ForeignKey]]:
    """(referencing table id, ForeignKey) of each foreign key referencing the table
    ``table_id``, as the transaction sees the tables."""
    changes = ctx.txn.changes
    committed = ctx.catalog.referencing(table_id) if ctx.catalog.foreign_keys else ()
    found = [(c, fk) for c, fk in committed if c not in changes]  # (a table it changed: as it is now)
    for tid, version in changes.items():
        if version is not None and version.schema.foreign_keys:
            found += [(tid, fk) for fk in version.schema.foreign_keys if fk.table_id == table_id]
    return found


def _visible(ctx, table_id: str) -> TableVersion | None:
    """The table ``table_id`` as the transaction sees it (None: it has none)."""
    version = ctx.by_id(table_id)
    if version is None:
        return None
    return ctx.txn.table(ctx.catalog, version.db, version.name)


# --- DML -----------------------------------------------------------------------------------

def written(ex, ctx, old: TableVersion | None, new: TableVersion | None, assigned=None) -> None:
    """After a statement changed a table from ``old`` to ``new`` in its transaction: its new
    rows' foreign keys checked - of an UPDATE assigning the columns ``assigned``, those a
    column of which it sets (PostgreSQL's "key unchanged" shortcut) -; the keys it removed
    followed in the tables referencing it. Within ``statement`` (a MERGE, a cascade's
    statement) both wait in its queue."""
    if old is None or new is None or old.schema.schema_id != new.schema.schema_id or not new.is_table:
        return  # (DDL: CREATE, DROP and ALTER TABLE check for themselves)
    if new.schema.foreign_keys:
        _check_new_rows(ex, ctx, old, new, assigned)
    refs = referencing(ctx, new.table_id)
    if not refs:
        return
    with statement(ex):
        _follow_removed_keys(ex, ctx, old, new, refs)


@contextlib.contextmanager
def statement(ex):
    """The foreign-key actions and checks of the writes made inside, queued (``_follow``,
    ``_check_new_rows``) and run in turn once they are done - as PostgreSQL fires its
    referential triggers at the end of the statement: a MERGE that deletes a referenced key
    and inserts it again passes a NO ACTION foreign key. A statement run by those actions (a
    cascade's, SET NULL's, SET DEFAULT's) queues its own after the ones queued before them."""
    if ex.fk_queue is not None:
        yield
        return
    ex.fk_queue = collections.deque()
    try:
        yield
        while ex.fk_queue:
            ex.fk_queue.popleft()()
    finally:
        ex.fk_queue = None


def _added_files(old: TableVersion, new: TableVersion) -> list:
    return [f for f in new.uncommitted() if old.file(f.file_id) is None]


def _check_new_rows(ex, ctx, old: TableVersion, new: TableVersion, assigned) -> None:
    added = _added_files(old, new)
    if not added:
        return
    checked = new.schema.foreign_keys
    if assigned is not None:
        checked = tuple(fk for fk in checked if any(c in assigned for c in fk.columns))
        kept = frozenset(fk.name for fk in new.schema.foreign_keys) - {fk.name for fk in checked}
        if kept:
            fks.mark_kept(added, kept)
    for fk in checked:
        parent = new if fk.table_id == new.table_id else _visible(ctx, fk.table_id)
        if parent is None:  # (dropped: its foreign keys went with it)
            continue
        cols, refs = fks.parent_order(fk, parent.schema)
        rows = [k for f in added for k in fks.new_keys(ex.store, old, new, f, cols)]
        if fk.match_full:
            _refuse_mixed_nulls(fk, new.name, rows)
        keys = [k for k in dict.fromkeys(rows) if None not in k]  # (complete ones, in the rows' order)
        if not keys:
            continue
        if fk.deferrable and deferred.is_deferred(ctx.txn, new.table_id, fk):
            deferred.defer_keys(ctx.txn, new.table_id, fk.name,
                                _NewKeys(new.table_id, fk, tuple(cols), tuple(refs), keys))
        elif ex.fk_queue is None:
            _check_keys(ex, ctx, new, parent, fk, cols, refs, keys)
        else:
            ex.fk_queue.append(functools.partial(_check_keys, ex, ctx, new, None, fk, cols, refs, keys))


def _check_keys(ex, ctx, child: TableVersion, parent: TableVersion | None, fk: ForeignKey, cols: list[str],
                refs: list[str], keys: list[tuple]) -> None:
    """23503 unless ``parent`` holds each of ``keys`` (in ``cols``, new rows' of ``child``'s
    table; of the first row's key that it does not). ``parent`` None: a queued check - of the
    referenced table as it is now, and a key no row of the child's table holds any more (the
    statement deleted its rows meanwhile) is no violation, as PostgreSQL skips the check of a
    row gone by then."""
    found = _missing_key(ex, ctx, child, parent, fk, cols, refs, keys)
    if found is not None:
        raise fks.child_violation(fk, child.name, found[0].name, found[1])


def _missing_key(ex, ctx, child: TableVersion, parent: TableVersion | None, fk: ForeignKey, cols: list[str],
                 refs: list[str], keys: list[tuple]) -> tuple[TableVersion, tuple] | None:
    """``_check_keys``'s violation: (the referenced table, the first of ``keys`` it lacks, in
    ``fk``'s column order), or None."""
    queued = parent is None
    if queued:
        parent = _visible(ctx, fk.table_id)
        if parent is None:
            return None
    gone = fks.missing(ex.store, parent, keys, refs)
    if gone and queued:
        now = _visible(ctx, child.table_id)
        gone = [_first_held(ex, now, cols, gone)] if now is not None else []
    if not gone or gone[0] is None:
        return None
    return parent, tuple(gone[0][cols.index(c)] for c in fk.columns)


def _first_held(ex, child: TableVersion, cols: list[str], keys: list[tuple], held: tuple | None = None):
    """The first of ``keys`` (in their order) that a row of ``child`` holds in ``cols``, or None;
    ``held``: one it holds, found already. (PostgreSQL reports the first row that fails.)"""
    if held is None:
        held = indexes.referencing_key(ex, child, cols, keys)
    while held is not None:
        at = next((i for i, k in enumerate(keys) if k == held), 0)  # (0: not one of them as written)
        earlier = indexes.referencing_key(ex, child, cols, keys[:at]) if at else None
        if earlier is None:
            return held
        keys, held = keys[:at], earlier
    return None


def _queued_order(checks) -> tuple[list[tuple], dict]:
    """The distinct keys of ``checks`` (each with ``keys``), in the order queued, and the index
    of the check that queued each first."""
    first: dict = {}
    for i, check in enumerate(checks):
        for k in check.keys:
            first.setdefault(k, i)
    return list(first), first


@dataclass(frozen=True, eq=False)
class _NewKeys:
    """A deferred ``_check_keys`` of the keys ``keys`` (in ``cols``) that new rows of the table
    ``child_id`` hold (engine/deferred.py), of its foreign key ``was`` as the table has it at
    COMMIT (dropped since: none; its columns renamed since: ``cols`` renamed likewise). Those
    the statements of a transaction queued for one foreign key run together (``batch``): one
    probe of the referenced table for their distinct keys."""

    child_id: str
    was: ForeignKey
    cols: tuple[str, ...]
    refs: tuple[str, ...]
    keys: list[tuple]

    @functools.cached_property
    def batch(self) -> tuple:
        return "new keys", self.child_id, self.was.name, self.was.columns, self.cols, self.refs

    def renamed(self, name: str) -> "_NewKeys":
        return replace(self, was=replace(self.was, name=name))

    @staticmethod
    def violation(ex, ctx, checks: list["_NewKeys"]) -> tuple[int, Exception] | None:
        """(the index of the check that queued it, 23503) of the first of ``checks``' keys
        that fails, or None."""
        first = checks[0]
        child, fk = _now(ctx, first.child_id, first.was.name)
        if fk is None:
            return None
        cols = [fk.columns[first.was.columns.index(c)] for c in first.cols]
        keys, queued_by = _queued_order(checks)
        found = _missing_key(ex, ctx, child, None, fk, cols, list(first.refs), keys)
        if found is None:
            return None
        parent, key = found
        by_cols = tuple(key[fk.columns.index(c)] for c in cols)
        return queued_by.get(by_cols, 0), fks.child_violation(fk, child.name, parent.name, key)


def _now(ctx, child_id: str, name: str) -> tuple[TableVersion | None, ForeignKey | None]:
    """The table ``child_id`` and its foreign key ``name`` as the transaction sees them now
    (a deferred check's: either may be gone since, or the key's columns renamed)."""
    child = _visible(ctx, child_id)
    fk = next((f for f in child.schema.foreign_keys if f.name == name), None) if child is not None else None
    return child, fk


def _removed_keys(ex, old: TableVersion, new: TableVersion, names: tuple[str, ...],
                  restrict: bool = False) -> tuple[list, dict, dict]:
    """(the keys - of the referenced columns ``names``, with no NULL: a row holding one is
    referenced by none - of rows ``old`` had and ``new`` has not, as tuples; the new key of each
    of them an UPDATE changed, by old key; if ``restrict``, what a RESTRICT foreign key checks:
    each key a row deleted ("delete") or whose key changed ("update") held, held again by
    another row or not - PostgreSQL's RESTRICT, unlike NO ACTION, does not look for another
    row holding it)."""
    by_rowid = {}
    for fid, bm in new.deletes.items():
        before = old.deletes.get(fid)
        if bm is before or old.file(fid) is None:
            continue
        extra = bm - before if before is not None else bm
        if extra:
            positions = list(extra)
            for pos, key in zip(positions, pk.keys_at(ex.store, old, old.file(fid), positions, names)):
                by_rowid[(fid << 32) | pos] = _tuple(key, names)
    marked = set(by_rowid)  # (rows deleted by a deletion vector, not moved by a spill: gone unless SOURCES say)
    for f in old.files:
        if new.file(f.file_id) is None:  # (a file gone whole: its rows deleted, or moved by a spill)
            deleted = old.deleted(f.file_id)
            gone = [p for p in range(f.row_count) if p not in deleted]
            for pos, key in zip(gone, pk.keys_at(ex.store, old, f, gone, names)):
                by_rowid[(f.file_id << 32) | pos] = _tuple(key, names)
    by_rowid = {r: k for r, k in by_rowid.items() if None not in k}
    if not by_rowid:
        return [], {}, {}
    keys = list(dict.fromkeys(by_rowid.values()))
    probe = [k[0] for k in keys] if len(names) == 1 else keys
    still = pk.find(ex.store, new, probe, names=names)
    removed = [k for k, p in zip(keys, probe) if p not in still]
    if not removed and not restrict:
        return [], {}, {}
    wanted = set(removed)
    moved = {}  # (old row id -> its new row's key)
    for f in _added_files(old, new):
        sources = f.caches.get(SOURCES)
        if sources is None:  # (inserted rows only)
            continue
        new_keys = fks.file_keys(ex.store, new, f, names) if not new.deleted(f.file_id) else None
        if new_keys is None:
            continue
        for source, key in zip(sources.tolist(), new_keys):
            was = by_rowid.get(source)
            if was is not None and (restrict or was in wanted):
                moved[source] = key
    updated = {by_rowid[r]: key for r, key in moved.items() if by_rowid[r] in wanted}
    restricted = {}
    for rowid, was in by_rowid.items() if restrict else ():
        key = moved.get(rowid)
        if key is None and (rowid in marked or was in wanted):  # (no new version: deleted)
            restricted[was] = "delete"
        elif key is not None and key != was:
            restricted[was] = "update"
    return removed, updated, restricted


def _tuple(key, names) -> tuple:
    return (key,) if len(names) == 1 else key


def _follow_removed_keys(ex, ctx, old: TableVersion, new: TableVersion, refs) -> None:
    by_key: dict[tuple, list] = {}  # (the foreign keys by the key they reference: the primary key, a UNIQUE one)
    for child_id, fk in refs:
        if child_id not in ex.fk_emptied:
            by_key.setdefault(tuple(fks.parent_order(fk, new.schema)[1]), []).append((child_id, fk))
    for names, group in by_key.items():
        restrict = any("RESTRICT" in (fk.on_delete, fk.on_update) for _, fk in group)
        removed, updated, restricted = _removed_keys(ex, old, new, names, restrict)
        if removed or restricted:
            _follow(ex, ctx, new, group, removed, updated, restricted)


def _follow(ex, ctx, new: TableVersion, refs, removed: list[tuple], updated: dict, restricted: dict) -> None:
    """The keys ``removed`` from ``new``'s table (``updated``: the new key of each an UPDATE
    changed) to be looked for in the referencing tables of ``refs`` and followed by each
    foreign key's action (for a RESTRICT one, the keys ``restricted``: ``_removed_keys``) -
    queued on ``ex.fk_queue``, as PostgreSQL queues its referential triggers: a cascade's
    statement queues its own after the ones queued before it, so a check runs once the
    cascades before it have run (a row two cascades reach is gone before it is looked for)."""
    for child_id, fk in refs:
        deleted = [k for k in removed if k not in updated] if fk.on_delete != "RESTRICT" \
            else [k for k, how in restricted.items() if how == "delete"]
        changed = [k for k in removed if k in updated] if fk.on_update != "RESTRICT" \
            else [k for k, how in restricted.items() if how == "update"]
        for keys, action, setting in ((deleted, fk.on_delete, fk.delete_set_columns), (changed, fk.on_update, ())):
            if not keys:
                continue
            if action == "NO ACTION" and fk.deferrable and deferred.is_deferred(ctx.txn, child_id, fk):
                deferred.defer(ctx.txn, child_id, fk.name, _RemovedKeys(new, child_id, fk.name, keys))
            else:
                ex.fk_queue.append(functools.partial(_act, ex, ctx, new, child_id, fk, keys, action, updated, setting))


def _act(ex, ctx, parent: TableVersion, child_id: str, fk: ForeignKey, keys: list[tuple], action: str,
         updated: dict, setting: tuple[str, ...] = ()) -> None:
    """The foreign key ``fk`` of the table ``child_id``, of ``keys`` removed from ``parent``:
    23503 (NO ACTION, RESTRICT) if a row there holds one (of the first such key), else its
    action on those rows (SET NULL / SET DEFAULT of the columns ``setting``, if any, else of
    all its columns)."""
    child = _visible(ctx, child_id)
    if child is None:
        return
    keys, held = _referenced(ex, ctx, parent, child, fk, keys, action)
    if held is None:
        return
    cols, refs_order = fks.parent_order(fk, parent.schema)
    if action in ("NO ACTION", "RESTRICT"):
        raise fks.parent_violation(fk, parent.name, child.name, refs_order, _first_held(ex, child, cols, keys, held))
    _cascade(ex, ctx, child, cols, keys, action, updated, setting or cols)


def _referenced(ex, ctx, parent: TableVersion, child: TableVersion, fk: ForeignKey, keys: list[tuple],
                action: str) -> tuple[list[tuple], tuple | None]:
    """(``keys``, removed from ``parent`` - of NO ACTION, those not held again there now -, a
    key of them a row of ``child`` holds by ``fk`` or None)."""
    cols, refs_order = fks.parent_order(fk, parent.schema)
    now = _visible(ctx, parent.table_id)
    if action == "NO ACTION" and now is not None and now is not parent:
        # (the statement wrote the table again since: a key a row holds again now is no
        # violation - PostgreSQL's ri_Check_Pk_Match, which RESTRICT does not do)
        keys = fks.missing(ex.store, now, keys, refs_order)
        if not keys:
            return keys, None
    held = indexes.referencing_key(ex, child, cols, keys)
    seen = ctx.txn.fk_scanned
    seen[child.table_id] = min(seen.get(child.table_id, child.next_file_id), child.next_file_id)
    return keys, held


@dataclass(frozen=True, eq=False)
class _RemovedKeys:
    """A deferred NO ACTION ``_act`` (engine/deferred.py) of the keys ``keys`` a statement
    removed from ``parent``, of the foreign key ``name`` as the table ``child_id`` has it at
    COMMIT (dropped since: none). Those of one foreign key run together (``batch``): one
    search of the referencing table for their distinct keys."""

    parent: TableVersion
    child_id: str
    name: str
    keys: list[tuple]

    @functools.cached_property
    def batch(self) -> tuple:
        return "removed keys", self.child_id, self.name, self.parent.table_id, self.parent.schema.schema_id

    def renamed(self, name: str) -> "_RemovedKeys":
        return replace(self, name=name)

    @staticmethod
    def violation(ex, ctx, checks: list["_RemovedKeys"]) -> tuple[int, Exception] | None:
        """(the index of the check that queued it, 23503) of the first of ``checks``' keys a
        referencing row still holds, or None."""
        first = checks[0]
        child, fk = _now(ctx, first.child_id, first.name)
        if fk is None:
            return None
        keys, queued_by = _queued_order(checks)
        keys, held = _referenced(ex, ctx, first.parent, child, fk, keys, "NO ACTION")
        if held is None:
            return None
        cols, refs_order = fks.parent_order(fk, first.parent.schema)
        held = _first_held(ex, child, cols, keys, held)
        return queued_by.get(held, 0), fks.parent_violation(fk, first.parent.name, child.name, refs_order, held)


def _cascade(ex, ctx, child: TableVersion, cols: list[str], keys: list[tuple], action: str, updated: dict,
             setting) -> None:
    """The referencing rows of ``child`` holding one of ``keys`` in ``cols``, deleted (CASCADE on
    delete), given the new keys (CASCADE on update), or their columns ``setting`` set NULL or
    to their defaults: a nested statement."""
    table = st.TableName(child.db, child.name)
    where = _matching(cols, keys)
    if action == "CASCADE" and not updated.keys() & set(keys):
        ex.delete(ctx, st.Delete(table=table, where=where), ())
        return
    if action == "CASCADE":
        assignments = tuple((c, _case(c, cols, keys, updated, i)) for i, c in enumerate(cols))
        ex.update(ctx, st.Update(table=table, assignments=assignments, where=where), ())
    else:  # SET NULL, SET DEFAULT
        ex.update(ctx, st.Update(table=table, assignments=tuple((c, exp.null()) for c in setting), where=where,
                                 defaults=tuple(setting) if action == "SET DEFAULT" else ()), ())


def _literal(value) -> exp.Expression:
    from txlake.engine.executor import _literal as literal
    made = literal(value)
    if made is None:
        raise errors.NotSupportedError(f"a foreign key's action on a key of {type(value).__name__} values "
                                       "is not supported")
    return made


def _matching(cols: list[str], keys: list[tuple]) -> exp.Expression:
    """The rows whose ``cols`` hold one of ``keys``."""
    if len(cols) == 1:
        return exp.column(cols[0]).isin(*(_literal(k[0]) for k in keys))
    return exp.or_(*(exp.and_(*(exp.EQ(this=exp.column(c), expression=_literal(v)) for c, v in zip(cols, k)))
                     for k in keys))


def _case(col: str, cols: list[str], keys: list[tuple], updated: dict, i: int) -> exp.Expression:
    """``col``'s new value in each referencing row: the new key's part ``i``, by old key."""
    case = exp.Case()
    for k in keys:
        new = updated[k]  # (a tuple, in the key's order)
        case = case.when(exp.and_(*(exp.EQ(this=exp.column(c), expression=_literal(v)) for c, v in zip(cols, k))),
                         _literal(new[i]))
    return case.else_(exp.column(col))


# --- DROP, TRUNCATE, ALTER ---------------------------------------------------------------------

def drop_referenced(ex, ctx, targets: list[TableVersion], cascade: bool) -> list[str]:
    """DROP TABLE (or DROP SCHEMA) of ``targets``: the foreign keys of other tables referencing
    them dropped with CASCADE (each a notice), else 2BP01 if there are any."""
    ids = {t.table_id for t in targets}
    found = [(t, c, fk) for t in targets for c, fk in referencing(ctx, t.table_id) if c not in ids]
    if not found:
        return []
    if not cascade:
        t, c, fk = found[0]
        lines = "\n".join(f"constraint {fk.name} on table {_visible(ctx, c).name} depends on table {t.name}"
                          for t, c, fk in found)
        raise errors.DependentObjectsStillExist(
            f"cannot drop table {t.name} because other objects depend on it\nDETAIL:  {lines}\n"
            "HINT:  Use DROP ... CASCADE to drop the dependent objects too.")
    notices = []
    for child_id in dict.fromkeys(c for _, c, _ in found):
        child = _visible(ctx, child_id)
        gone = {fk.name for _, c, fk in found if c == child_id}
        notices += [f"drop cascades to constraint {name} on table {child.name}" for name in sorted(gone)]
        _reshape(ex, ctx, child, replace(child.schema, foreign_keys=tuple(
            fk for fk in child.schema.foreign_keys if fk.name not in gone)))
    return notices


def _reshape(ex, ctx, version: TableVersion, schema: TableSchema) -> None:
    """Write ``version`` with ``schema`` (its constraints changed) as ALTER TABLE writes a table."""
    ex.rewrite_table(ctx, version, schema, ex.store.scan(version))


def truncated(ex, ctx, versions: list[TableVersion], cascade: bool) -> tuple[list[TableVersion], list[str]]:
    """TRUNCATE of ``versions``: with the tables referencing them (CASCADE: truncated too, each a
    notice; else 0A000 if any is not among them)."""
    versions, notices = list(versions), []
    i = 0
    while i < len(versions):
        ids = {v.table_id for v in versions}
        for child_id, _ in referencing(ctx, versions[i].table_id):
            if child_id in ids:
                continue
            child = _visible(ctx, child_id)
            if not cascade:
                raise errors.NotSupportedError(
                    "cannot truncate a table referenced in a foreign key constraint\n"
                    f'DETAIL:  Table "{child.name}" references "{versions[i].name}".\n'
                    f'HINT:  Truncate table "{child.name}" at the same time, or use TRUNCATE ... CASCADE.')
            versions.append(child)
            ids.add(child_id)
            notices.append(f'truncate cascades to table "{child.name}"')
        i += 1
    return versions, notices


def check_alter(ex, ctx, version: TableVersion, actions) -> list[str]:
    """ALTER TABLE of a table others reference: a referenced column renamed is renamed in their
    constraints; dropped, their constraints go with CASCADE (else 2BP01); a type change of a
    column a foreign key uses is refused (0A000)."""
    notices = []
    refs = [(c, fk) for c, fk in referencing(ctx, version.table_id) if c != version.table_id]
    own = version.schema.foreign_keys
    for action in actions:
        if isinstance(action, st.AlterColumn) and action.type is not None and (
                any(action.name in fk.columns or fk.table_id == version.table_id and action.name in fk.ref_columns
                    for fk in own) or any(action.name in fk.ref_columns for _, fk in refs)):
            raise errors.NotSupportedError(f'changing the type of column "{action.name}", which a foreign key '
                                           "uses, is not supported")
        if isinstance(action, st.RenameColumn):
            for child_id in dict.fromkeys(c for c, fk in refs if action.old in fk.ref_columns):
                child = _visible(ctx, child_id)
                _reshape(ex, ctx, child, replace(child.schema, foreign_keys=tuple(
                    replace(fk, ref_columns=tuple(action.new if c == action.old else c for c in fk.ref_columns))
                    if fk.table_id == version.table_id else fk for fk in child.schema.foreign_keys)))
        if isinstance(action, st.DropColumn):
            users = [(c, fk) for c, fk in refs if action.name in fk.ref_columns]
            notices += _drop_users(ex, ctx, users, action.cascade, f"column {action.name} of table {version.name}",
                                   f"column {action.name} of table {version.name}")
        if isinstance(action, st.DropConstraint):
            notices += key_dropped(ex, ctx, version, action.name, action.cascade, "constraint")
    return notices


def key_dropped(ex, ctx, version: TableVersion, name: str, cascade: bool, kind: str) -> list[str]:
    """ALTER TABLE ... DROP CONSTRAINT (``kind`` "constraint") or DROP INDEX (``kind`` "index")
    ``name`` of ``version``: the foreign keys of other tables that reference that key
    (``unique_over``'s) dropped with CASCADE (each a notice), else 2BP01. The table's own such
    foreign keys (self-references) go with ``without_key``."""
    users = [(c, fk) for c, fk in referencing(ctx, version.table_id)
             if unique_over(version.schema, version.name, fk.ref_columns) == name]
    what = f"constraint {name} on table {version.name}" if kind == "constraint" else f"index {name}"
    return _drop_users(ex, ctx, users, cascade, what, f"index {name}", kept=version.table_id)


def without_key(schema: TableSchema, table_id: str, table: str, name: str) -> TableSchema:
    """``schema`` of the table ``table`` (id ``table_id``) without its foreign keys referencing
    its own key ``name``, dropped (``key_dropped`` allowed it)."""
    return replace(schema, foreign_keys=tuple(
        fk for fk in schema.foreign_keys
        if fk.table_id != table_id or unique_over(schema, table, fk.ref_columns) != name))


def _drop_users(ex, ctx, users, cascade: bool, what: str, on: str, kept: str | None = None) -> list[str]:
    """The foreign keys ``users`` ((table id, ForeignKey)), which depend on ``what`` (``on``, as
    their DETAIL lines say it), dropped with it, each a notice - or 2BP01 unless ``cascade``.
    Those of the table ``kept`` (the one whose statement drops ``what``) are left to it."""
    if users and not cascade:
        lines = "\n".join(f"constraint {fk.name} on table {_visible(ctx, c).name} depends on {on}"
                          for c, fk in users)
        raise errors.DependentObjectsStillExist(
            f"cannot drop {what} because other objects depend on it\n"
            f"DETAIL:  {lines}\nHINT:  Use DROP ... CASCADE to drop the dependent objects too.")
    notices = []
    for child_id in dict.fromkeys(c for c, _ in users):
        child = _visible(ctx, child_id)
        gone = {fk.name for c, fk in users if c == child_id}
        notices += [f"drop cascades to constraint {name} on table {child.name}" for name in sorted(gone)]
        if child_id != kept:
            _reshape(ex, ctx, child, replace(child.schema, foreign_keys=tuple(
                fk for fk in child.schema.foreign_keys if fk.name not in gone)))
    return notices


def altered_columns(schema: TableSchema, table_id: str, action) -> TableSchema:
    """``schema`` (of the table ``table_id``) after ALTER TABLE ``action`` in its own foreign
    keys: a column renamed is renamed in them (and in a self-reference's referenced columns);
    a column dropped drops the foreign keys using it."""
    if not schema.foreign_keys:
        return schema
    if isinstance(action, st.RenameColumn):
        def renamed(cols):
            return tuple(action.new if c == action.old else c for c in cols)
        return replace(schema, foreign_keys=tuple(
            replace(fk, columns=renamed(fk.columns), delete_set_columns=renamed(fk.delete_set_columns),
                    ref_columns=renamed(fk.ref_columns) if fk.table_id == table_id else fk.ref_columns)
            for fk in schema.foreign_keys))
    if isinstance(action, st.DropColumn):
        return replace(schema, foreign_keys=tuple(
            fk for fk in schema.foreign_keys
            if action.name not in fk.columns and not (fk.table_id == table_id and action.name in fk.ref_columns)))
    return schema


# --- psql's \\d ------------------------------------------------------------------------------------

def definition(fk: ForeignKey, parent: str) -> str:
    """The constraint as pg_get_constraintdef writes it."""
    text = f"FOREIGN KEY ({', '.join(fk.columns)}) REFERENCES {parent}({', '.join(fk.ref_columns)})"
    if fk.match_full:
        text += " MATCH FULL"
    if fk.on_update != "NO ACTION":
        text += f" ON UPDATE {fk.on_update}"
    if fk.on_delete != "NO ACTION":
        text += f" ON DELETE {fk.on_delete}"
    if fk.delete_set_columns:
        text += f" ({', '.join(fk.delete_set_columns)})"
    return text + timing_sql(fk) + ("" if fk.validated else " NOT VALID")


def describe(version: TableVersion, tables: list[TableVersion], search_path) -> tuple[list[str], list[str]]:
    """(``version``'s foreign keys, the foreign keys referencing it), as psql's ``\\d`` lists them."""
    by_id = {t.table_id: t for t in tables}

    def named(t: TableVersion) -> str:
        return t.name if t.db in search_path else f"{catalog_views.schema_name(t.db)}.{t.name}"

    own = [f'"{fk.name}" {definition(fk, named(by_id[fk.table_id]))}'
           for fk in sorted(version.schema.foreign_keys, key=lambda fk: fk.name) if fk.table_id in by_id]
    referenced = [f'TABLE "{named(t)}" CONSTRAINT "{fk.name}" {definition(fk, named(version))}'
                  for t in sorted(tables, key=lambda t: (t.db, t.name)) if t.is_table
                  for fk in sorted(t.schema.foreign_keys, key=lambda fk: fk.name) if fk.table_id == version.table_id]
    return own, referenced
