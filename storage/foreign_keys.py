"""Foreign keys at COMMIT: the re-check against the newest committed state.

Each statement checks the keys it writes against its own view (engine/foreign_keys.py: 23503
at once). Another transaction may still commit meanwhile what breaks a key - delete a parent
row a new child row needs, or insert a child row referencing a parent key this one deletes -
in this process or in another (no locks are shared across processes, and in-process child
inserts take no lock on the parent row, so that they never wait for one another). So the
commit's vote, which runs against the newest committed catalog with this transaction's changes
applied (``after``; under the log's lock, or re-run there if anything landed since), re-checks:

(a) every non-null key of the rows this transaction added to a referencing table is a key of
    the referenced table in ``after``;
(b) no row of a referencing table in ``after`` references a key of a committed row this
    transaction deleted (or whose key it changed) that ``after`` no longer has;
(c) a table this transaction drops is referenced by no table left in ``after``;
(d) every foreign key of a table it changed, and every one referencing such a table, still has
    a key to reference in ``after`` (a UNIQUE constraint dropped meanwhile, or a foreign key
    added meanwhile to one this transaction drops: 40001).

A violation found only here means a concurrent transaction won: 40001 at REPEATABLE READ and
SERIALIZABLE; at READ COMMITTED, where PostgreSQL would have waited for the other and then
raised it, 23503. A referenced table's rows are found through the index of the key the foreign
key references - its primary key's, or a UNIQUE constraint's (storage/keys.py ``find_unique``);
a row whose key holds a NULL is referenced by none. The referencing rows of (b) are found by a
scan of the referencing table's key columns.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from txlake import errors
from txlake.storage import keys as pk
from txlake.storage.commit import SOURCES, key_text
from txlake.storage.datafiles import DataFileStore
from txlake.storage.schema import ForeignKey, TableSchema
from txlake.storage.version import CatalogVersion, DataFile, TableVersion


def parent_order(fk: ForeignKey, parent: TableSchema) -> tuple[list[str], list[str]]:
    """(the referencing columns, the referenced ones), in the order the referenced key's index
    holds keys in: the primary key's, or - a UNIQUE constraint referenced - as the foreign key
    names them (``missing``'s ``names``)."""
    ref = list(fk.ref_columns)
    if tuple(ref) == parent.primary_key or set(ref) != set(parent.primary_key):
        return list(fk.columns), ref
    cols = [fk.columns[ref.index(k)] for k in parent.primary_key]
    return cols, list(parent.primary_key)


# DataFile.caches key of an uncommitted file: the names of the foreign keys whose columns each
# of its rows holds as the committed row it replaces did (an UPDATE that set none of them). The
# vote need not re-check such a row's key for them: the committed row held it, so no one could
# have removed the referenced row meanwhile ((b) of the committed one refuses it) - and a NOT
# VALID foreign key's row without a referenced row keeps being allowed, as in PostgreSQL.
FK_KEPT = "fk_kept"


def mark_kept(files, names: frozenset) -> None:
    """Mark ``FK_KEPT`` the foreign keys ``names`` in ``files`` (an UPDATE's new rows, which set
    no column of theirs), where each row replaces a committed row - not in a file its rows were
    merged into with others (``carry_kept`` marked it: what those others hold, if anything)."""
    for f in files:
        sources = f.caches.get(SOURCES)
        if FK_KEPT in f.caches or sources is None or not len(sources):
            continue
        if bool((np.asarray(sources) >> 32 > 0).all()):
            f.caches[FK_KEPT] = names


def carry_kept(sources, files) -> None:
    """``FK_KEPT`` of ``files``, whose rows came from ``sources`` (spilled, merged): what all of
    those hold (an empty set: none - a statement's rows merged with others are not its own)."""
    kept = frozenset()
    for i, f in enumerate(sources):
        mine = f.caches.get(FK_KEPT, frozenset())
        kept = mine if i == 0 else kept & mine
    for f in files:
        f.caches[FK_KEPT] = kept


# DataFile.caches key of an uncommitted file made of other uncommitted files' rows (spilled,
# merged): (file id, rows) of each, in the order its rows came. A statement's new rows are
# checked, not the rows of the files it found already written (``new_keys``): a transaction's
# many one-row INSERTs, merged every few statements, re-checked all its rows at each merge
ROWS_FROM = "rows_from"


def record_rows_from(version: TableVersion, sources: list[DataFile], files: list[DataFile]) -> None:
    """``ROWS_FROM`` of ``files``, which hold the visible rows of ``sources`` (of ``version``) in
    turn."""
    segments = [(f.file_id, f.row_count - len(version.deleted(f.file_id))) for f in sources]
    at, used = 0, 0  # (the segment, and the rows of it already placed)
    for out in files:
        mine, left = [], out.row_count
        while left and at < len(segments):
            file_id, rows = segments[at]
            take = min(rows - used, left)
            mine.append((file_id, take))
            left -= take
            used += take
            if used == rows:
                at, used = at + 1, 0
        out.caches[ROWS_FROM] = tuple(mine)


def new_keys(store: DataFileStore, old: TableVersion, new: TableVersion, f: DataFile, names) -> list[tuple]:
    """``file_keys`` of the rows of ``f`` (a file ``new`` has and ``old`` has not) that no file
    of ``old`` held: all of them, unless it was made of files' rows (``ROWS_FROM``)."""
    segments = f.caches.get(ROWS_FROM)
    if segments is None or new.deleted(f.file_id):
        return file_keys(store, new, f, names)
    if all(old.file(file_id) is not None for file_id, _ in segments):  # (a merge of what was written: no read)
        return []
    keys, mine, at = file_keys(store, new, f, names), [], 0
    for file_id, rows in segments:
        if old.file(file_id) is None:
            mine += keys[at:at + rows]
        at += rows
    return mine


def file_keys(store: DataFileStore, version: TableVersion, f: DataFile, names) -> list[tuple]:
    """The values of columns ``names`` of each visible row of ``f``, a file of ``version``."""
    rows = f.python_rows()
    if rows is not None:
        at = [rows.schema.names.index(n) for n in names]
        keys = list(zip(*(rows.columns[i] for i in at)))
    else:
        data = store.read_columns(f, version.schema, tuple(names))
        keys = list(zip(*(data.column(n).to_pylist() for n in names)))
    deleted = version.deleted(f.file_id)
    if deleted:
        keys = [k for i, k in enumerate(keys) if i not in deleted]
    return keys


def complete(keys) -> set[tuple]:
    """The keys with no NULL: the ones to look up (MATCH SIMPLE, and MATCH FULL's all-set)."""
    return {k for k in keys if None not in k}


def missing(store: DataFileStore, parent: TableVersion, keys: set[tuple], names) -> list[tuple]:
    """Those of ``keys`` (complete, of the referenced columns ``names`` in ``parent_order``'s
    order) that ``parent`` holds no row for."""
    if not keys:
        return []
    names = tuple(names)
    probe = [k[0] for k in keys] if len(names) == 1 else list(keys)
    found = pk.find(store, parent, probe, names=names)
    return [k for k, p in zip(keys, probe) if p not in found]


def referencing_key(store: DataFileStore, child: TableVersion, columns, keys: set[tuple],
                    since: int = 0) -> tuple | None:
    """A key among ``keys`` that a row of ``child`` holds in ``columns`` (None: none does); of
    the files from id ``since`` on, with it."""
    if not keys:
        return None
    values = None
    if len(columns) == 1:  # (vectorised: a referenced row deleted scans its referencing table)
        try:
            values = pa.array([k[0] for k in keys], child.schema.column(columns[0]).type.arrow())
        except (pa.ArrowException, OverflowError, TypeError):  # (a key the column cannot hold: Python's)
            values = None
    for f in child.files:
        if 0 < f.file_id < since:  # (a transaction's own uncommitted files have negative ids)
            continue
        if values is not None and f.python_rows() is None:
            data = store.scan_file(child, f).column(columns[0])
            hits = pc.filter(data, pc.is_in(data, value_set=values))
            if len(hits):
                return (hits[0].as_py(),)
            continue
        for k in file_keys(store, child, f, columns):
            if k in keys:
                return k
    return None


def child_violation(fk: ForeignKey, table: str, parent: str, key: tuple) -> errors.ForeignKeyViolation:
    return errors.ForeignKeyViolation(
        f'insert or update on table "{table}" violates foreign key constraint "{fk.name}"\n'
        f"DETAIL:  Key ({', '.join(fk.columns)})=({key_text(key)}) "
        f'is not present in table "{parent}".')


def parent_violation(fk: ForeignKey, parent: str, child: str, ref_columns, key: tuple) -> errors.ForeignKeyViolation:
    return errors.ForeignKeyViolation(
        f'update or delete on table "{parent}" violates foreign key constraint "{fk.name}" on table "{child}"\n'
        f"DETAIL:  Key ({', '.join(ref_columns)})=({key_text(key)}) "
        f'is still referenced from table "{child}".')


def check_commit(store: DataFileStore, deltas, after: CatalogVersion, read_committed: bool,
                 scanned: dict | None = None) -> None:
    """Raise if committing ``deltas`` (a transaction's changes, whose result is ``after``)
    would leave a key referencing nothing: (a), (b), (c) of the module's docstring. ``scanned``:
    referencing table id -> the first file id (b) must read of it (files are immutable and a
    table's file ids only grow: its statements read the ones before)."""
    def concurrent(error: errors.Error) -> errors.Error:
        if read_committed:
            return error
        return errors.SerializationFailure("could not serialize access due to concurrent update\n"
                                           f"DETAIL:  {error.args[0].splitlines()[0]}.")

    dropped = {d.table_id for d in deltas if d.work is None}
    for d in deltas:
        if d.work is None:
            for child_id, fk in after.referencing(d.table_id):  # (c): a referencing table made meanwhile
                if child_id not in dropped:
                    raise errors.SerializationFailure(
                        f'could not serialize access: table "{d.base.name}" is referenced by foreign key '
                        f'"{fk.name}" of table "{after.by_id(child_id).name}", made by a concurrent transaction')
            continue
        table = after.by_id(d.table_id)
        if table is None or not table.is_table:
            continue
        _check_referenced_keys(d, table, after)
        if table.schema.foreign_keys:
            _check_new_rows(store, d, table, after, concurrent)
        if d.base is not None and after.referencing(d.table_id):
            _check_deleted_keys(store, d, table, after, concurrent, scanned or {})


def _check_referenced_keys(d, table: TableVersion, after: CatalogVersion) -> None:
    """(d), of a table whose schema ``d`` changed: its foreign keys' referenced tables, and it
    for the foreign keys referencing it, have a key (primary or UNIQUE) over their columns."""
    if d.base is not None and d.base.schema.schema_id == table.schema.schema_id:
        return  # (constraints change only with the schema)
    pairs = [(fk, after.by_id(fk.table_id)) for fk in table.schema.foreign_keys]
    pairs += [(fk, table) for _, fk in after.referencing(d.table_id)]
    for fk, parent in pairs:
        if parent is not None and parent.schema.key_over(parent.name, fk.ref_columns) is None:
            raise errors.SerializationFailure(
                f'could not serialize access: the key of table "{parent.name}" that foreign key "{fk.name}" '
                "references was dropped by a concurrent transaction")


def _check_new_rows(store, d, table: TableVersion, after: CatalogVersion, concurrent) -> None:
    """(a): the keys of the rows ``d`` added each name a row of the referenced table in
    ``after``. Of a table the transaction rewrote (ALTER TABLE: every file new), the keys its
    base did not hold (``_added_keys``) - every row's, for a foreign key the rewrite added
    validated; none for one it added NOT VALID."""
    rewritten = d.base is None or d.rewritten()
    old = {fk.name: fk for fk in d.base.schema.foreign_keys} if d.base is not None else {}
    for fk in table.schema.foreign_keys:
        if rewritten and fk.name not in old and not fk.validated and d.base is not None:
            continue  # (NOT VALID: the rows it has were not checked, and need not be)
        parent = after.by_id(fk.table_id)
        if parent is None:
            raise concurrent(errors.ForeignKeyViolation(
                f'insert or update on table "{table.name}" violates foreign key constraint "{fk.name}"\n'
                "DETAIL:  The referenced table was dropped."))
        cols, refs = parent_order(fk, parent.schema)
        if rewritten and fk.name in old:
            keys = _added_keys(store, d, fk, old[fk.name], cols)
        else:
            files = d.work.files if rewritten else [f for f in d.pending if fk.name not in f.caches.get(FK_KEPT, ())]
            keys = complete(k for f in files for k in file_keys(store, d.work, f, cols))
        gone = missing(store, parent, keys, refs)
        if gone:
            key = gone[0]
            written = tuple(key[cols.index(c)] for c in fk.columns)
            raise concurrent(child_violation(fk, table.name, parent.name, written))


def _added_keys(store, d, fk: ForeignKey, was: ForeignKey, cols: list[str]) -> set[tuple]:
    """The complete keys (in ``cols``, the referenced key's order) of the rows of ``d``'s
    rewritten table that its base did not hold (``was``: the foreign key there, its columns
    maybe since renamed). A key a base row holds needs no re-check: that row, committed with
    the foreign key, keeps its referenced row from being removed ((b) of whoever tries), and
    ``d`` could not commit over a change of it (the rewrite's conflict check)."""
    work = complete(k for f in d.work.files for k in file_keys(store, d.work, f, cols))
    if not work:
        return work
    ids = {c.field_id: c.name for c in d.base.schema.columns}
    base_cols = [ids.get(d.work.schema.column(c).field_id) for c in cols]
    if was.table_id != fk.table_id or len(was.columns) != len(fk.columns) \
            or base_cols != [was.columns[fk.columns.index(c)] for c in cols]:
        return work  # (dropped and made again under its name: every row's)
    held = complete(k for f in d.base.files for k in file_keys(store, d.base, f, base_cols))
    return work - held


def _check_deleted_keys(store, d, table: TableVersion, after: CatalogVersion, concurrent, scanned: dict) -> None:
    """(b): no row of a table referencing ``table`` in ``after`` holds a key of a committed row
    ``d`` deleted that ``after`` does not hold again - for each key (primary or UNIQUE) a
    foreign key references. Of a table the transaction rewrote (ALTER TABLE: every file new),
    the keys of every row of its base."""
    by_key: dict[tuple, list] = {}
    for child_id, fk in after.referencing(d.table_id):
        by_key.setdefault(tuple(parent_order(fk, table.schema)[1]), []).append((child_id, fk))
    for names, refs in by_key.items():
        gone = _gone_keys(store, d, table, names)
        for child_id, fk in refs if gone else ():
            child = after.by_id(child_id)
            if child is None:
                continue
            cols, ref_columns = parent_order(fk, table.schema)
            key = referencing_key(store, child, cols, gone, scanned.get(child_id, 0))
            if key is not None:
                raise concurrent(parent_violation(fk, table.name, child.name, ref_columns, key))


def _gone_keys(store, d, table: TableVersion, names: tuple[str, ...]) -> set[tuple]:
    """The complete keys, of ``table``'s columns ``names``, of committed rows ``d`` deleted
    (every base row's, of a rewritten table) that ``table`` does not hold."""
    base = d.base
    ids = {c.field_id: c.name for c in base.schema.columns}
    base_names = tuple(ids.get(table.schema.column(n).field_id) for n in names)
    if None in base_names:
        return set()  # (a column the base lacked: none of its rows was referenced by it)
    keys = []
    if d.rewritten():
        for f in base.files:
            keys.extend(file_keys(store, base, f, base_names))
    else:
        deleted = d.new_deletes()
        for fid, positions in deleted.items():
            keys.extend(pk.keys_at(store, base, base.file(fid), list(positions), base_names))
        if len(base_names) == 1:
            keys = [(k,) for k in keys]
    probe = list(complete(keys))
    if not probe:
        return set()
    still = pk.find(store, table, [k[0] for k in probe] if len(names) == 1 else probe, names=names)
    return {k for k in probe if (k[0] if len(names) == 1 else k) not in still}


def refuse_unchecked(deltas, after: CatalogVersion) -> None:
    """A Spark job's commit, whose rows nobody checked: 0A000 if it writes a table with a
    foreign key, or removes rows of one a foreign key references (an overwrite)."""
    for d in deltas:
        table = after.by_id(d.table_id)
        if table is None:
            continue
        if table.schema.foreign_keys:
            raise errors.NotSupportedError(f'Spark writes to table "{table.name}", which has a foreign key, '
                                           "are not supported")
        if d.base is not None and d.work is not None and len(d.work.files) - len(d.pending) < len(d.base.files) \
                and after.referencing(d.table_id):
            raise errors.NotSupportedError(f'a Spark overwrite of table "{table.name}", which a foreign key '
                                           "references, is not supported")
