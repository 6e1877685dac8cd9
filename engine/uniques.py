"""UNIQUE constraints (and unique indexes): made, checked and enforced as the primary key is.

A UNIQUE constraint (storage/schema.py ``UniqueConstraint``) says no two live rows hold equal
values in all of its columns; a row with a NULL in any of them clashes with none, unless
NULLS NOT DISTINCT. ``CREATE UNIQUE INDEX`` makes the same, flagged ``index`` - over expressions or with a
WHERE too, its key computed (engine/index_expressions.py).

How each guarantee is kept - the primary key's machinery, over other columns:

- **Lookups, not scans.** A new row's key is looked up through per-file indexes of the
  constraint's columns (storage/keys.py ``find_unique``), cached as the primary key's are; a
  Parquet file whose footer bounds cannot hold the key is not read.
- **In one process, writers wait.** A transaction writing a key takes its lock,
  ``(table id, "unique <name>", key)``, and one deleting or updating a row takes the locks of
  the row's keys (``lock_old_keys``): a concurrent writer of the same value waits for it, as
  on a primary key's lock, then goes on (it rolled back, or committed freeing the value - at
  any level: a key is checked against the newest committed state, ``_still_live``) or gets
  23505 (it committed the value). REPEATABLE READ / SERIALIZABLE get 23505 for a value
  committed since their snapshot (40001 for INSERT ... ON CONFLICT, which could not see it).
- **Across processes, the COMMIT checks.** storage/commit.py checks each new row's keys
  against the rows other transactions committed since the snapshot (every row, for files
  Spark wrote): 23505, or 40001 for ON CONFLICT's rows; storage/prepared.py holds a prepared
  transaction's keys against other commits (40001).
- **Within a statement,** as the primary key: the new rows' keys among themselves and against
  the rows the statement leaves; and, as PostgreSQL checks a non-deferrable key row by row, an
  UPDATE's new key against the old key of a row it updates later (``check_row_by_row``:
  ``UPDATE t SET a = a + 1`` over 1, 2, 3 is 23505).
- **DEFERRABLE** (engine/deferred.py): checked at the statement's end, not row by row; if
  deferred, at COMMIT (``DeferredCheck``): the rows the transaction added, among themselves
  and against the others - so keys may be swapped. Never an ON CONFLICT arbiter (55000).

ON CONFLICT's arbiters (``arbiters``) are the executor's ``_resolve_conflicts``; this module
also makes ``CREATE UNIQUE INDEX`` / ``DROP INDEX`` and ``ALTER TABLE ... ADD PRIMARY KEY``.
``matching`` says which unique constraint (or primary key) covers exactly these columns: for
ON CONFLICT (columns) and for the key a foreign key references (engine/foreign_keys.py
``unique_over``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from txlake import errors
from txlake.engine import deferred, index_expressions, indexes
from txlake.engine.mvcc.locks import TABLE
from txlake.parser import statements as st
from txlake.storage import foreign_keys as fks
from txlake.storage import keys as pk
from txlake.storage.commit import key_text
from txlake.storage.schema import Index, TableSchema, UniqueConstraint
from txlake.storage.version import PythonRows, TableVersion


def add(schema: TableSchema, table: str, name: str, spec: st.UniqueSpec, data: pa.Table | None,
        index: bool = False) -> TableSchema:
    """``schema`` with the UNIQUE constraint ``spec`` named ``name`` (a unique index if
    ``index``), its columns checked (42703, 0A000 for an array) and ``data`` - the rows the
    table holds, if any - validated (23505 ``could not create unique index``)."""
    seen = set()
    for column in spec.columns:
        col = schema.column(column)
        if col is None:
            raise errors.UndefinedColumn(f'column "{column}" named in key does not exist')
        if column in seen:
            raise errors.DuplicateColumn(f'column "{column}" appears twice in unique constraint')
        seen.add(column)
        if col.type.kind == "ARRAY":  # (storage/keys.py indexes scalar keys)
            raise errors.NotSupportedError(f'column "{column}" is an array: txlake\'s unique constraints are '
                                           "of scalar columns")
    unique = UniqueConstraint(name, tuple(spec.columns), spec.nulls_not_distinct, index, spec.deferrable,
                              spec.initially_deferred)
    if data is not None:
        validate(unique, data)
    return replace(schema, uniques=schema.uniques + (unique,))


def validate(unique: UniqueConstraint, data: pa.Table) -> None:
    """23505 if ``data`` (a table's rows) holds a key of ``unique`` twice."""
    names = list(unique.columns)
    rows = pk.with_computed(data, unique.columns).select(names)
    if not unique.nulls_not_distinct:
        for name in names:
            rows = rows.filter(pc.is_valid(rows.column(name)))
    if rows.num_rows < 2:
        return
    for i, name in enumerate(names):  # (-0.0 as 0.0, as the lookups compare them; NaN groups with NaN already)
        column = rows.column(name)
        if pa.types.is_floating(column.type):
            rows = rows.set_column(i, name, pc.if_else(pc.equal(column, 0), pa.scalar(0.0, column.type), column))
    key = key_held_twice(rows, names)
    if key is not None:
        raise errors.UniqueViolation(
            f'could not create unique index "{unique.name}"\n'
            f"DETAIL:  Key ({', '.join(unique.shown)})=({key_text(key)}) is duplicated.")


def key_held_twice(rows: pa.Table, names) -> tuple | None:
    """A key (the values of the columns ``names``) ``rows`` hold twice, or None."""
    counts = rows.group_by(list(names)).aggregate([([], "count_all")])
    twice = counts.filter(pc.greater(counts.column("count_all"), 1))
    if not twice.num_rows:
        return None
    row = twice.slice(0, 1).to_pylist()[0]
    return tuple(row[n] for n in names)


def renamed(schema: TableSchema, old: str, new: str) -> TableSchema:
    """``schema`` with the column ``old`` renamed ``new`` in its unique constraints."""
    return indexes.renamed(schema, old, new, "uniques")


def dropped(schema: TableSchema, column: str) -> TableSchema:
    """``schema`` without the unique constraints over ``column`` (dropped with it, as in PostgreSQL)."""
    return indexes.dropped(schema, column, "uniques")


def revalidate(schema: TableSchema, column: str, data: pa.Table) -> None:
    """After ALTER COLUMN ``column`` TYPE: the unique constraints over it, checked on ``data``."""
    for unique in schema.uniques:
        if column in unique.reads:  # (an expression index's values computed anew)
            validate(unique, data)


def matching(schema: TableSchema, table: str, columns) -> UniqueConstraint | None:
    """The unique constraint (or the primary key, as one) of the table ``table`` over exactly
    ``columns`` (in any order), or None: what ON CONFLICT (columns) infers (and the catalogs
    show a foreign key referencing). A primary key is returned as a UniqueConstraint named as
    the key."""
    return schema.key_over(table, columns)


def referenced(schema: TableSchema, table: str, columns) -> UniqueConstraint | None:
    """The key over exactly ``columns`` (in any order) of the table ``table`` that a foreign key
    referencing them uses, as PostgreSQL picks it: one not deferrable - the primary key, a
    UNIQUE constraint or a unique index, whichever order they were declared in -, else a
    deferrable one (which the foreign key refuses: 55000), else None."""
    keys = [k for k in _constraints(schema, table) if sorted(k.columns) == sorted(columns)]
    return next((k for k in keys if not k.deferrable), keys[0] if keys else None)


def by_name(schema: TableSchema, table: str, name: str) -> UniqueConstraint | None:
    """The unique constraint or index (or the primary key) of ``table`` named ``name``."""
    if schema.primary_key and name == schema.pkey_name(table):
        return UniqueConstraint(name, schema.primary_key)
    return next((u for u in schema.uniques if u.name == name), None)


def arbiters(schema: TableSchema, table: str, conflict: st.OnConflict) -> tuple[UniqueConstraint, ...]:
    """The constraints an ``ON CONFLICT`` checks for conflicts: the one its columns or
    ``ON CONSTRAINT name`` name (a constraint's: not CREATE UNIQUE INDEX's, as in PostgreSQL),
    the ones its expressions and WHERE infer (engine/index_expressions.py ``inferred``), or - DO
    NOTHING with no target - every one (the primary key first). 42704 for a constraint name the
    table lacks, 42P10 for columns no unique constraint covers."""
    if conflict.constraint is not None:
        found = by_name(schema, table, conflict.constraint)
        if found is None or found.index:  # (a unique index is no constraint: PostgreSQL's 42704 too)
            raise errors.UndefinedObject(f'constraint "{conflict.constraint}" for table "{table}" does not exist')
        found = (found,)
    elif conflict.columns:
        found = matching(schema, table, conflict.columns)
        if found is None:
            raise errors.ProgrammingError(
                "there is no unique or exclusion constraint matching the ON CONFLICT specification", sqlstate="42P10")
        found = (found,)
    elif conflict.targets:
        found = index_expressions.inferred(schema, table, conflict.targets, conflict.predicate)
    else:
        found = ((UniqueConstraint(schema.pkey_name(table), schema.primary_key),) if schema.primary_key else ()) \
            + schema.uniques
    if any(u.deferrable for u in found):  # (as PostgreSQL: its arbiters are checked as each row goes in)
        raise errors.ObjectNotInPrerequisiteState("ON CONFLICT does not support deferrable unique constraints/"
                                                  "exclusion constraints as arbiters")
    return found


def keys_of(rows: pa.Table | PythonRows, unique: UniqueConstraint) -> list:
    """The keys of ``rows`` under ``unique``, a row holding a NULL giving None (it clashes with
    none) - unless NULLS NOT DISTINCT."""
    return _null_free(unique, pk.computed_key_tuples(rows, unique.columns))


def _null_free(unique: UniqueConstraint, keys: list) -> list:
    if unique.nulls_not_distinct or len(unique.columns) == 1:  # (a scalar NULL key is None already)
        return keys
    return [None if None in k else k for k in keys]


def _lock_keys(ex, ctx, version: TableVersion, unique: UniqueConstraint, keys) -> None:
    tid = version.table_id
    ex._lock(ctx, tid, [(tid, f"unique {unique.name}", k) for k in keys if k is not None or unique.nulls_not_distinct])


def duplicate(unique: UniqueConstraint, key) -> errors.UniqueViolation:
    return errors.UniqueViolation(
        f'duplicate key value violates unique constraint "{unique.name}"\n'
        f"DETAIL:  Key ({', '.join(unique.shown)})=({key_text(key)}) already exists.")


def _live(unique: UniqueConstraint, keys) -> list:
    """The keys that can clash (not None: a NULL's), each once."""
    return list(dict.fromkeys(k for k in keys if k is not None or unique.nulls_not_distinct))


def _distinct(unique: UniqueConstraint, keys) -> list:
    """The keys that can clash, each once: 23505 for one there twice."""
    seen: dict = {}
    for k in keys:
        if k is None and not unique.nulls_not_distinct:
            continue
        if k in seen:
            raise duplicate(unique, k)
        seen[k] = None
    return list(seen)


def lock_new_keys(ex, ctx, version: TableVersion, rows: pa.Table | PythonRows, on_conflict: bool) -> TableVersion:
    """An INSERT's rows' keys of every unique constraint locked, as ``Executor._lock_new_keys``
    locks the primary key's: then READ COMMITTED moves to the newest committed state;
    REPEATABLE READ / SERIALIZABLE fail on a key committed since the snapshot (23505, 40001
    for ON CONFLICT)."""
    keyed = []
    for unique in version.schema.uniques:
        keys = keys_of(rows, unique)
        _lock_keys(ex, ctx, version, unique, keys)
        if not unique.deferrable or not deferred.is_deferred(ctx.txn, version.table_id, unique):
            keyed.append((_live(unique, keys), unique.columns, functools.partial(duplicate, unique)))
    return ex._keys_locked(ctx, version, keyed, on_conflict)


def check_new_rows(ex, ctx, version: TableVersion, rows: pa.Table | PythonRows, primary_key: bool = False) -> None:
    """23505 if rows about to be inserted (keys locked by ``lock_new_keys``) hold a key of a
    unique constraint twice, or one a live row of ``version`` holds. ``primary_key``: the
    primary key's too (an INSERT ... ON CONFLICT whose arbiter is a UNIQUE constraint: a
    clash on a constraint not an arbiter is an error, not a conflict)."""
    if not rows.num_rows:
        return
    for unique in _constraints(version.schema, version.name, primary_key):
        if unique.deferrable and _deferred(ctx, version, unique):
            continue
        seen = _distinct(unique, keys_of(rows, unique))
        existing = _still_live(ex, version, pk.find(ex.store, version, seen, names=unique.columns), unique)
        if existing:
            key = next(iter(existing))
            raise ex._key_taken(ctx, version, key, duplicate(unique, key))


def _deferred(ctx, version: TableVersion, unique: UniqueConstraint) -> bool:
    """Is the DEFERRABLE ``unique`` deferred now? If so, its check of what the transaction
    writes to ``version``'s table is queued for COMMIT (engine/deferred.py)."""
    if not deferred.is_deferred(ctx.txn, version.table_id, unique):
        return False
    deferred.defer(ctx.txn, version.table_id, unique.name, DeferredCheck(version.table_id, unique.name))
    return True


@dataclass(frozen=True)
class DeferredCheck:
    """The COMMIT check of a deferred UNIQUE constraint (named ``name``, of the table
    ``table_id``): the live rows the transaction added to the table hold no key twice, nor one
    a live row it did not add holds (those committed rows were unique). Equal for every write
    of the table, so that it runs once (engine/deferred.py ``run``)."""

    table_id: str
    name: str

    def renamed(self, name: str) -> "DeferredCheck":
        return replace(self, name=name)

    def __call__(self, ex, ctx) -> None:
        txn = ctx.txn
        version = txn.changes.get(self.table_id)
        if version is None:
            return
        version = txn.table(ctx.catalog, version.db, version.name)  # (READ COMMITTED: on the newest rows)
        unique = next((u for u in version.schema.uniques if u.name == self.name), None) if version else None
        added = version.uncommitted() if unique is not None else ()
        if not added:
            return
        keys = [k for f in added for k in fks.file_keys(ex.store, version, f, unique.columns)]
        keys = _distinct(unique, _null_free(unique, [k[0] for k in keys] if len(unique.columns) == 1 else keys))
        others = [f for f in version.files if f.file_id >= 0]
        clash = pk.find(ex.store, version, keys, files=others, names=unique.columns) if others else {}
        if clash:
            raise duplicate(unique, next(iter(clash)))


def _constraints(schema: TableSchema, table: str, primary_key: bool = True) -> tuple[UniqueConstraint, ...]:
    """The table's unique constraints, with its primary key (NULL-free: NULLS NOT DISTINCT) first if asked."""
    if primary_key and schema.primary_key:
        return (UniqueConstraint(schema.pkey_name(table), schema.primary_key, True),) + schema.uniques
    return schema.uniques


def check_upserted(version: TableVersion, inserted, updated, assigned) -> None:
    """INSERT ... ON CONFLICT DO UPDATE: 23505 if a row it inserts and a row it updates hold one
    key - of a constraint (the primary key too) a column of which the update sets; the others'
    keys of the updated rows are the rows' own, which the inserted rows were checked against."""
    if not inserted.num_rows or not updated.num_rows:
        return
    for unique in _constraints(version.schema, version.name):
        if not any(c in assigned for c in unique.reads) or unique.deferrable:  # (an arbiter is not deferrable)
            continue
        new = set(_live(unique, keys_of(inserted, unique)))
        for key in _live(unique, keys_of(updated, unique)):
            if key in new:
                raise duplicate(unique, key)


def check_updated(ex, ctx, version: TableVersion, rowids, new_rows, assigned) -> None:
    """An UPDATE's new rows (replacing ``rowids``) against each unique constraint a column of
    which ``assigned`` sets: their keys locked, then unique among themselves, among the rows
    the statement leaves, and in the newest committed state (23505)."""
    remaining = None
    for unique in version.schema.uniques:
        if assigned is not None and not any(c in assigned for c in unique.reads):
            continue
        keys = keys_of(new_rows, unique)
        _lock_keys(ex, ctx, version, unique, keys)
        if unique.deferrable and _deferred(ctx, version, unique):
            continue
        live = _distinct(unique, keys)
        if remaining is None:
            remaining = ex._apply(version, rowids, None)
        clash = _still_live(ex, version, pk.find(ex.store, remaining, live, names=unique.columns), unique)
        if clash:
            key = next(iter(clash))
            raise ex._key_taken(ctx, version, key, duplicate(unique, key))
        hidden = ex._keys_committed_since(ctx, version, live, ex.db.warehouse.refresh().by_id(version.table_id),
                                          unique.columns)
        if hidden:
            key = next(iter(hidden))
            raise ex._key_taken(ctx, version, key, duplicate(unique, key))


def check_row_by_row(ex, version: TableVersion, rowids, sources, new_rows, assigned) -> None:
    """23505 where PostgreSQL's per-row check of a non-deferrable key fails an UPDATE that
    the statement's end would pass: rows are updated in their physical order (row id order
    here: committed files oldest first, then the transaction's own), and a row's new key is
    checked when it is written - against the old key of a row the statement updates (or, a
    MERGE, deletes) after it, still live then. ``UPDATE t SET a = a + 1`` over 1, 2, 3 fails
    so (Key (a)=(2)); ``a = a - 1`` passes. ``rowids``: the rows the statement removes;
    ``sources``: the one each of ``new_rows`` replaces. Of every unique constraint and the
    primary key a column of which ``assigned`` sets."""
    if len(sources) < 1 or len(rowids) < 2:
        return
    rank = None
    for unique in _constraints(version.schema, version.name):
        if assigned is not None and not any(c in assigned for c in unique.reads) or unique.deferrable:
            continue  # (PostgreSQL checks a DEFERRABLE one at the statement's end at the earliest)
        if rank is None:
            ids = np.asarray(rowids, dtype=np.int64)
            rank = dict(zip(ids[np.argsort(_physical_keys(ids), kind="stable")].tolist(), range(len(ids))))
        old = _keys_at_rows(ex, version, rowids, unique)
        removed_at = {k: rank[int(r)] for r, k in zip(rowids, old) if k is not None or unique.nulls_not_distinct}
        new = keys_of(new_rows, unique)
        for at, i in sorted((rank[int(s)], i) for i, s in enumerate(sources)):
            key = new[i]
            if key is None and not unique.nulls_not_distinct:
                continue
            later = removed_at.get(key)
            if later is not None and later > at:
                raise duplicate(unique, key)


def _physical_keys(rowids: np.ndarray) -> np.ndarray:
    """Where each row lies in the table's physical order, as a sortable uint64: committed files
    by id, then the transaction's own (negative ids, in the order it wrote them: -1, -2, ...),
    by position."""
    ids = np.asarray(rowids, dtype=np.int64)
    own = ids < 0
    keys = ids.astype(np.uint64)
    if own.any():
        fid, pos = ids[own] >> 32, ids[own] & 0xFFFFFFFF
        keys[own] = np.uint64(1 << 63) | ((-fid).astype(np.uint64) << np.uint64(32)) | pos.astype(np.uint64)
    return keys


def physical_order(rowids) -> np.ndarray | None:
    """The permutation that puts ``rowids`` in physical order (``_physical_keys``), or None if
    they are in it already (a scan's usual case: a check, no sort)."""
    keys = _physical_keys(rowids)
    if len(keys) < 2 or bool((keys[1:] > keys[:-1]).all()):
        return None
    return np.argsort(keys, kind="stable")


def _keys_at_rows(ex, version: TableVersion, rowids, unique: UniqueConstraint) -> list:
    """The keys of ``unique`` that the rows ``rowids`` of ``version`` hold (None: a NULL's)."""
    by_file: dict[int, list[int]] = {}
    for at, rowid in enumerate(int(r) for r in rowids):
        by_file.setdefault(rowid >> 32, []).append(at)
    keys: list = [None] * len(rowids)
    for fid, ats in by_file.items():
        positions = [int(rowids[at]) & 0xFFFFFFFF for at in ats]
        for at, key in zip(ats, pk.keys_at(ex.store, version, version.file(fid), positions, unique.columns)):
            keys[at] = key
    return _null_free(unique, keys)


def _still_live(ex, version: TableVersion, found: dict, unique: UniqueConstraint) -> dict:
    """Those of ``found`` (key -> row id in ``version``) still held in the newest committed
    state: a unique key is checked against it, as PostgreSQL's index is, whatever the
    snapshot - a value another transaction freed and committed (this one having waited for
    its lock) is free, unless a row committed since holds it again."""
    if not found:
        return found
    from txlake.engine.executor import _changed_since  # (the executor imports this module)
    latest = ex.db.warehouse.latest.by_id(version.table_id)
    if latest is None:
        return found
    changed = [k for k, r in found.items() if _changed_since(r, version, latest)]
    if not changed:
        return found
    held = pk.find(ex.store, latest, changed, names=unique.columns)
    return {k: r for k, r in found.items() if k not in changed or k in held}


POINT_ROWS = 8  # lock_old_keys reads this many rows or fewer one by one


def lock_old_keys(ex, ctx, version: TableVersion, rowids) -> None:
    """Lock the unique keys of rows a statement deletes or updates (held to the end of the
    transaction): a concurrent inserter of a value this one frees waits to learn whether it
    is freed, as behind a primary key's row lock."""
    if not len(rowids):
        return
    from txlake.engine.executor import BULK_LOCKS  # (the executor imports this module)
    ids = np.asarray(rowids, dtype=np.int64)
    ids = ids[ids >= 0]
    if len(ids) > BULK_LOCKS:  # (their locks would be the table's: taken without reading the values)
        ex.db.locks.acquire(ctx.txn, (version.table_id, TABLE), ctx.lock_wait)
        return
    locked = ids
    columns = sorted({c for u in version.schema.uniques if not u.computed for c in u.columns})
    values = {c: [] for c in columns}
    if not columns:  # (only expression indexes: nothing to read here)
        ids = ids[:0]
    if len(ids) <= POINT_ROWS:  # (a point statement's rows: read as it reads them, not a column of their file)
        for rowid in ids.tolist():
            row = ex._row_values(version, rowid)
            for c in columns:
                values[c].append(pk.normal(row[c]))
        ids = ids[:0]
    for fid in np.unique(ids >> 32):
        f = version.file(int(fid))
        if f is None:
            continue
        positions = (ids[(ids >> 32) == fid] & 0xFFFFFFFF).tolist()
        rows = f.python_rows(version.schema)
        if rows is not None:
            for pos in positions:
                row = rows.row(pos)
                for c in columns:
                    values[c].append(pk.normal(row[c]))
        else:
            table = ex.store.read_columns(f, version.schema, tuple(columns)).take(pa.array(positions, pa.int64()))
            for c in columns:
                values[c].extend(pk.key_tuples(table, (c,)))
    for unique in version.schema.uniques:
        if unique.computed:  # (an expression index's keys: computed from the rows)
            _lock_keys(ex, ctx, version, unique, _keys_at_rows(ex, version, locked, unique))
            continue
        held = [values[c] for c in unique.columns]
        _lock_keys(ex, ctx, version, unique, _null_free(unique, list(zip(*held)) if len(held) > 1 else held[0]))


# --- CREATE UNIQUE INDEX / DROP INDEX -----------------------------------------------------

def index_names(ex, ctx, db: str) -> dict[str, tuple[TableVersion, UniqueConstraint | Index]]:
    """The indexes of the database ``db``'s tables by name - each unique constraint's, the
    primary keys', those CREATE UNIQUE INDEX and CREATE INDEX made: in PostgreSQL all are
    relations, one namespace with the tables."""
    named = {}
    for version in ex._schema_tables(ctx, db):
        if not version.is_table:
            continue
        schema = version.schema
        if schema.primary_key:
            named[schema.pkey_name(version.name)] = (version, UniqueConstraint(schema.pkey_name(version.name),
                                                                               schema.primary_key))
        for unique in schema.uniques:
            named[unique.name] = (version, unique)
        for index in schema.indexes:  # (CREATE INDEX's: engine/indexes.py)
            named[index.name] = (version, index)
    return named


def name_for(ex, ctx, db: str, table: str, schema: TableSchema, spec, label: str = "key") -> str:
    """The name of the UNIQUE constraint (or primary key: ``label`` "pkey") ``spec`` of the table
    ``db.table``, whose schema so far is ``schema``: as written, or PostgreSQL's default
    (``t_a_key``, ``t_pkey``) - passing over the names of the table's constraints and of the
    database's relations and unique indexes, one namespace in PostgreSQL. A name written that
    one of those has is 42P07 (a relation's or index's, the table's own too: its index is made
    first) or 42710 (the table's CHECK or FOREIGN KEY constraint's), as PostgreSQL's index_create
    checks them."""
    from txlake.storage.schema import constraint_name
    own = {u.name for u in schema.uniques} | ({schema.pkey_name(table)} if schema.primary_key else set())
    relations = set(index_names(ex, ctx, db)) | {t.name for t in ex._schema_tables(ctx, db)} | own
    taken = schema.constraint_names(table)
    if spec.name is None:
        return constraint_name(table, () if label == "pkey" else spec.columns, label, taken | relations)
    if spec.name in relations:
        raise errors.DuplicateTable(f'relation "{spec.name}" already exists')
    if spec.name in taken:
        raise errors.ProgrammingError(f'constraint "{spec.name}" for relation "{table}" already exists',
                                      sqlstate="42710")
    return spec.name


def create_index(ex, ctx, stmt: st.CreateIndex, params):
    """``CREATE UNIQUE INDEX``: the table gains a unique constraint flagged as an index (its
    rows validated, 23505); ``CREATE INDEX``: a secondary index (engine/indexes.py). Its name,
    PostgreSQL's ``<table>_<columns>_idx`` if none is given, must be no relation's or other
    index's in the schema (42P07; IF NOT EXISTS: a notice). The table is written anew under
    the new schema, as ALTER TABLE's are."""
    from txlake.engine.executor import Result  # (the executor imports this module)
    from txlake.storage.schema import constraint_name
    if stmt.concurrently:
        _refuse_in_block(ctx, "CREATE INDEX CONCURRENTLY")
    if ctx.txn.read_only:
        raise errors.ReadOnlyTransaction("cannot execute CREATE INDEX in a read-only transaction")
    version = ctx.resolve(stmt.table)
    if not version.is_table:
        raise errors.WrongObjectType(f'cannot create index on relation "{version.name}"')
    for column in stmt.include:
        version.schema.require(column, version.name)
    named = index_names(ex, ctx, version.db)
    taken = set(named) | version.schema.constraint_names(version.name)
    name = stmt.name or constraint_name(version.name, stmt.columns or index_expressions.name_parts(stmt.items), "idx",
                                        taken | {t.name for t in ex._schema_tables(ctx, version.db)})
    if name in named or ex.name_taken(ctx, version.db, name):
        if stmt.if_not_exists:
            return Result(status="CREATE INDEX", notice=f'relation "{name}" already exists, skipping')
        raise errors.DuplicateTable(f'relation "{name}" already exists')
    if name in taken:  # (a CHECK or FOREIGN KEY constraint of the table's: no relation, but one namespace)
        raise errors.ProgrammingError(f'constraint "{name}" for relation "{version.name}" already exists',
                                      sqlstate="42710")
    if stmt.items or stmt.where is not None:  # (of expressions, or partial)
        made = index_expressions.key(ex, version.name, version.schema, stmt.items, stmt.where,
                                     stmt.nulls_not_distinct)
        schema = version.schema.evolve(version.schema.columns)
        if stmt.unique:
            unique = UniqueConstraint(name, nulls_not_distinct=stmt.nulls_not_distinct, index=True, **made)
            validate(unique, ex.store.scan(version))
            schema = replace(schema, uniques=schema.uniques + (unique,))
        else:
            schema = replace(schema, indexes=schema.indexes + (Index(name, method=stmt.method, **made),))
    elif stmt.unique:
        schema = add(version.schema.evolve(version.schema.columns), version.name, name,
                     st.UniqueSpec(name, stmt.columns, stmt.nulls_not_distinct), ex.store.scan(version), index=True)
    else:
        schema = indexes.define(version.schema.evolve(version.schema.columns), version.name, name, stmt.columns,
                                stmt.method)
    _rewrite(ex, ctx, version, schema)
    return Result(status="CREATE INDEX")


def drop_index(ex, ctx, stmt: st.DropIndex, params):
    """``DROP INDEX``: a unique index CREATE UNIQUE INDEX made; one a constraint needs is
    2BP01 (ALTER TABLE ... DROP CONSTRAINT drops it), no index of the name 42704 (IF EXISTS:
    a notice); one a foreign key references 2BP01 (CASCADE: the foreign key goes, a notice)."""
    from txlake.engine import foreign_keys  # (it imports this module)
    from txlake.engine.executor import Result  # (the executor imports this module)
    if stmt.concurrently:
        _refuse_in_block(ctx, "DROP INDEX CONCURRENTLY")
    if ctx.txn.read_only:
        raise errors.ReadOnlyTransaction("cannot execute DROP INDEX in a read-only transaction")
    notices, found = [], []
    for target in stmt.indexes:
        db, name = ctx.locate(target)
        hit = index_names(ex, ctx, db).get(name)
        if hit is None:
            if ctx.lookup(target) is not None:
                raise errors.WrongObjectType(f'"{name}" is not an index')
            if stmt.if_exists:
                notices.append(f'index "{name}" does not exist, skipping')
                continue
            raise errors.UndefinedObject(f'index "{name}" does not exist')
        version, unique = hit
        if not getattr(unique, "index", True):  # (a constraint's; CREATE [UNIQUE] INDEX's are droppable)
            raise errors.DependentObjectsStillExist(
                f'cannot drop index {name} because constraint {name} on table {version.name} requires it\n'
                f"HINT:  You can drop constraint {name} on table {version.name} instead.")
        found.append((version.table_id, name))
    for table_id, name in found:  # (the table as the drops before left it)
        version = next(t for t in ctx.txn.tables(ctx.catalog) if t.table_id == table_id)
        if ctx.catalog.foreign_keys or ctx.txn.foreign_keys:
            notices += foreign_keys.key_dropped(ex, ctx, version, name, stmt.cascade, "index")
            version = next(t for t in ctx.txn.tables(ctx.catalog) if t.table_id == table_id)
        schema = replace(foreign_keys.without_key(version.schema.evolve(version.schema.columns), table_id,
                                                  version.name, name),
                         uniques=tuple(u for u in version.schema.uniques if u.name != name),
                         indexes=tuple(i for i in version.schema.indexes if i.name != name))
        _rewrite(ex, ctx, version, schema)
    return Result(status="DROP INDEX", notice="\n".join(notices) or None)


def _refuse_in_block(ctx, what: str) -> None:
    """25001 for ``what`` (CREATE / DROP INDEX CONCURRENTLY) in a transaction block, as
    PostgreSQL's PreventInTransactionBlock; outside one it does what the plain form does (which
    waits for the table's writers: engine/table_locks.py)."""
    if ctx.txn.explicit:
        raise errors.ActiveSqlTransaction(f"{what} cannot run inside a transaction block")


def _rewrite(ex, ctx, version: TableVersion, schema: TableSchema) -> None:
    """The table ``version`` rewritten under ``schema`` (a new schema id: its files are written
    again, as ALTER TABLE's are)."""
    data = ex.store.scan(version)
    rewritten = replace(version, schema=schema, files=(), deletes={}, caches={})
    rewritten = ex._apply(rewritten, None, ex._conform(data, schema) if data.num_rows else None)
    ex._write(ctx, version, rewritten)


def add_primary_key(ex, ctx, db: str, schema: TableSchema, table: str, spec: st.PrimaryKeySpec,
                    data: pa.Table) -> TableSchema:
    """``ALTER TABLE ... ADD [CONSTRAINT name] PRIMARY KEY (columns)`` on a table without one
    (42P16 else), as pg_dump writes its tables' keys: named as ``name_for`` names it, the
    columns become NOT NULL (23502 if a row holds a NULL there) and ``data``, the table's rows,
    must hold each key once (23505)."""
    if schema.primary_key:
        raise errors.ProgrammingError(f'multiple primary keys for table "{table}" are not allowed', sqlstate="42P16")
    name = name_for(ex, ctx, db, table, schema, spec, "pkey")
    for column in spec.columns:
        col = schema.column(column)
        if col is None:
            raise errors.UndefinedColumn(f'column "{column}" named in key does not exist')
        if col.type.kind == "ARRAY":
            raise errors.NotSupportedError(f'column "{column}" is an array: txlake\'s primary keys are '
                                           "of scalar columns")
        if data.column(column).null_count:
            raise errors.NotNullViolation(f'column "{column}" of relation "{table}" contains null values')
    if len(set(spec.columns)) != len(spec.columns):
        raise errors.DuplicateColumn(f'column "{spec.columns[0]}" appears twice in primary key constraint')
    validate(UniqueConstraint(name, spec.columns, True), data)
    columns = tuple(replace(c, not_null=True) if c.name in spec.columns else c for c in schema.columns)
    return replace(schema.evolve(columns, tuple(spec.columns)),
                   primary_key_name=name if name != f"{table}_pkey" else None)
