"""The commit protocol: how a transaction's private changes become one ``_txlog`` entry.

Shaped as a two-phase commit with named states (cf. ZODB's tpc_begin / vote / finish / abort)::

    PREPARING --prepare()--> PREPARED --vote(latest)--> VOTED --log append + flush--> COMMITTED
        \\________________________ abort() ______________/

- ``prepare`` writes the transaction's new rows as Parquet files (fsync'd) outside any lock.
- ``vote`` rebases the transaction's changes onto the newest committed catalog version and
  runs the data-conflict check against everything committed since the transaction's snapshot:
  rows deleted/updated by both -> 40001; a primary key inserted by both -> 23505; a table
  dropped or re-shaped underneath -> 40001; a table this one re-shapes (rewrites) changed
  underneath -> 40001, unless by compactions alone (``TableVersion.rows_csn``). It builds the
  log entry (file ids assigned there).
- ``Warehouse.commit`` votes and appends while holding the commit log's lock (storage/txlog.py),
  so no other process can commit between the vote and the append; the flush follows.
- ``abort`` removes the files ``prepare`` wrote. Files of a crashed, never-logged commit are
  orphans that no entry references.
"""

from __future__ import annotations

import enum
import itertools
import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace

import numpy as np
import pyarrow as pa
from pyroaring import BitMap, FrozenBitMap

from txlake import errors
from txlake.storage import keys as pk
from txlake.storage.datafiles import DataFileStore
from txlake.storage.schema import TableSchema
from txlake.storage.sequences import sequence_file
from txlake.storage.version import (ENCODED, CatalogVersion, ChangeData, CreateTable, DataFile, DropTable,
                                    LogEntry, PythonRows, RenameTable, TableVersion, encode_inline)


# Data files hold at most this many rows: a deletion touches (re-filters, re-publishes) one
# file of bounded size, whatever the table's size.
ROWS_PER_FILE = 1 << 17

# New rows up to this size travel inline in the log entry instead of in a Parquet file of their
# own (small deltas: a one-row commit then writes one file); auto-compaction folds them into
# real files once a table has many.
INLINE_ROWS = 256
INLINE_BYTES = 16 << 10


def table_bytes(rows: pa.Table) -> int:
    """``rows.nbytes``, cheaply when small: the size of the buffers behind ``rows`` bounds it
    from above and costs nothing to add up, where ``nbytes`` walks every column's slice (tens
    of microseconds even for one row)."""
    total = rows.get_total_buffer_size()
    return total if total <= 1 << 20 else rows.nbytes


def inline_bytes(rows: pa.Table | PythonRows) -> int | None:
    """The bytes of ``rows`` if they are few enough to travel inline in the log entry, else None."""
    if rows.num_rows > INLINE_ROWS:
        return None
    nbytes = rows.nbytes() if isinstance(rows, PythonRows) else table_bytes(rows)
    return nbytes if nbytes <= INLINE_BYTES else None


def inline_file(store: DataFileStore, table: TableVersion, rows: pa.Table | PythonRows, nbytes: int,
                file_id: int = 0) -> DataFile:
    """A file of ``table`` whose rows travel in the log entry, encoded here (outside the log's
    lock); it gets a path, where publishing writes it to Paimon later."""
    f = DataFile._built(file_id, store.new_path(table.db, table.name), rows.num_rows, table.schema.schema_id, nbytes,
                        None, rows, pk.key_bounds(rows, table.schema))
    f.caches[ENCODED] = encode_inline(rows)
    return f


# DataFile.caches key of an uncommitted file: for each row, the row id it replaces (an UPDATE's
# update chain, which READ COMMITTED follows), or -1 for a new row.
SOURCES = "sources"
# DataFile.caches key: True if each of the file's rows has the primary key of a committed row
# this transaction deleted (an UPDATE that set no key column). The vote need not check such a
# row's key against rows others committed since: a committed row with that key, other than the
# one deleted, would mean the deleted one was gone - deleted by another, which the vote's
# conflict check, run first, refuses (40001). Committed states never hold a key twice.
SAME_KEYS = "same_keys"
# DataFile.caches key of an uncommitted file: True if it holds rows of an INSERT ... ON
# CONFLICT. Such a statement resolved its conflicts against the keys committed when it ran; a
# key another process commits before this commit (no row lock across processes, unless
# shared_row_locks) is a conflict it did not see: the vote fails with 40001 - retried, the
# statement sees the row and does nothing or updates it - not 23505, which PostgreSQL never
# gives on an upsert's conflict target. Carried to the files rows move to (spilled, merged,
# written by prepare) when any of their sources has it.
UPSERTED = "upserted"


def carry_upserted(sources, files) -> None:
    """Mark ``files`` ``UPSERTED`` if any of ``sources``, the files their rows came from, is."""
    if any(f.caches.get(UPSERTED) for f in sources):
        for f in files:
            f.caches[UPSERTED] = True


def visible_sources(version: TableVersion, f: DataFile) -> np.ndarray:
    """The update-chain sources of an uncommitted file's visible rows."""
    sources = f.caches.get(SOURCES)
    if sources is None:
        sources = np.full(f.row_count, -1, dtype=np.int64)
    deleted = version.deleted(f.file_id)
    if deleted:
        keep = np.ones(f.row_count, dtype=bool)
        keep[np.fromiter(deleted, dtype=np.int64, count=len(deleted))] = False
        sources = sources[keep]
    return sources


class _memoized:
    """``functools.cached_property`` without its lock: before Python 3.12 its first read of
    each instance takes a class-wide lock (a few microseconds; every commit reads two for
    each table it changed). Computing a value twice in a race is harmless here: both give
    the same value."""

    def __init__(self, func):
        self.func, self.name, self.__doc__ = func, func.__name__, func.__doc__

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.func(instance)
        return value


class CommitState(enum.Enum):
    PREPARING = "preparing"
    PREPARED = "prepared"
    COMMITTED = "committed"
    ABORTED = "aborted"


# the parts of a table's schema a rename changes without a new schema id - a constraint or index
# renamed, a key's name kept (engine/renames.py), a materialized view's query naming a relation
# renamed (engine/views.py follow_rename); their other changes come with one, which a
# concurrent change of the table then meets as 40001
_RENAMEABLE = ("primary_key_name", "checks", "uniques", "indexes", "foreign_keys", "matview")


def _by_name(mine: tuple, theirs: tuple, current: tuple) -> tuple:
    """``current``'s named objects (a table's triggers, policies) with what a transaction changed
    of them (``theirs`` before it, ``mine`` after): by name, over others' changes meanwhile."""
    gone = {o.name for o in theirs if o not in mine}
    added = {o.name: o for o in mine if o not in theirs}
    kept = [o for o in current if o.name not in gone and o.name not in added]
    return tuple(sorted((*kept, *added.values()), key=lambda o: o.name))


@dataclass(frozen=True)
class TableDelta:
    """What one transaction did to one table: its snapshot's version and its working version.

    ``base`` is None for a table the transaction created, ``work`` None for one it dropped.
    The change is derived by comparing the two, so savepoints and rollbacks need no undo log.
    """

    table_id: str
    base: TableVersion | None
    work: TableVersion | None

    @_memoized
    def pending(self) -> tuple[DataFile, ...]:
        """The uncommitted files (negative ids): rows in memory, or spilled to Parquet."""
        return self.work.uncommitted() if self.work else ()

    def new_deletes(self) -> dict[int, FrozenBitMap]:
        """Rows of the base's files this transaction deleted: O(deletion vectors it changed),
        not O(files) - committed files have positive ids, the transaction's own negative.
        Worked out once (the commit's vote and SERIALIZABLE's write images both ask); the
        caller must not change the dict."""
        return self._new_deletes

    @_memoized
    def _new_deletes(self) -> dict[int, FrozenBitMap]:
        if self.base is None or self.work is None:
            return {}
        base, work = self.base, self.work
        result = {}
        for fid, bm in work.deletes.items():
            old = base.deletes.get(fid)
            if fid > 0 and bm is not old and base.file(fid) is not None:
                extra = bm - old if old is not None else bm
                if extra:
                    result[fid] = extra if type(extra) is FrozenBitMap else FrozenBitMap(extra)
        # base files that vanished from the working version because all their rows were deleted
        # (a point UPDATE's of a row in a one-row file: a pass over the base's files, without
        # building the set of either version's ids)
        if len(work.files) - len(self.pending) < len(base.files):
            present = work.file_ids()
            for f in base.files:
                fid = f.file_id
                if fid not in present and not f.in_memory:
                    gone = FrozenBitMap(range(f.row_count)) - base.deleted(fid)
                    if gone:
                        result[fid] = gone if type(gone) is FrozenBitMap else FrozenBitMap(gone)
        return result

    def rewritten(self) -> bool:
        """Did the transaction rewrite the table (ALTER TABLE rewrites every file in the new schema)?"""
        return (self.base is not None and self.work is not None
                and self.work.schema.schema_id != self.base.schema.schema_id)

    def renamed(self) -> bool:
        """Did the transaction rename the table (ALTER TABLE ... RENAME TO)?"""
        return self.base is not None and self.work is not None and self.work.name != self.base.name

    def catalog_changed(self, onto: TableVersion) -> TableSchema | None:
        """``onto``'s schema with what this transaction changed of the table's catalog entry
        without a new schema id - its comments (COMMENT ON), its enum columns' labels and their
        CHECKs (ALTER TYPE ... ADD VALUE), its triggers, its policies and row security - or None
        if it changed nothing so, or rewrote the table (its schema is its own then). Such a change
        writes no file (engine/comments.py, engine/user_types.py), and is merged into the newest schema: comments committed meanwhile on
        other objects stay, as PostgreSQL's second COMMENT ON waits for the first and then sets
        its own. (A change of the schema id committed meanwhile is 40001: ``check_conflicts``.)"""
        base, work = self.base, self.work
        if base is None or work is None or work.schema is base.schema or self.rewritten():
            return None
        mine, theirs = work.schema, base.schema
        schema = onto.schema
        for part in _RENAMEABLE:  # (first: a comment is kept on an object of the schema only)
            if getattr(mine, part) != getattr(theirs, part):
                schema = replace(schema, **{part: getattr(mine, part)})
        if mine.comments != theirs.comments:
            for kind, name in dict.fromkeys((c.kind, c.name) for c in theirs.comments + mine.comments):
                text = mine.comment(kind, name)
                if text != theirs.comment(kind, name):
                    schema = schema.with_comment(kind, name, text)
        if mine.columns != theirs.columns:
            changed = {c.field_id: c for c in mine.columns if c not in theirs.columns}
            schema = replace(schema, columns=tuple(changed.get(c.field_id, c) for c in schema.columns))
        for part in ("triggers", "policies"):  # (CREATE / DROP / ALTER TRIGGER, POLICY)
            if getattr(mine, part) != getattr(theirs, part):
                schema = replace(schema, **{part: _by_name(getattr(mine, part), getattr(theirs, part),
                                                           getattr(schema, part))})
        for flag in ("row_security", "force_row_security"):  # (ALTER TABLE ... ROW LEVEL SECURITY)
            if getattr(mine, flag) != getattr(theirs, flag):
                schema = replace(schema, **{flag: getattr(mine, flag)})
        if mine.domain_checks != theirs.domain_checks:
            gone = [c for c in theirs.domain_checks if c not in mine.domain_checks]
            added = tuple(c for c in mine.domain_checks if c not in theirs.domain_checks)
            schema = replace(schema, domain_checks=tuple(c for c in schema.domain_checks if c not in gone) + added)
        return schema if schema is not onto.schema else None

    def is_noop(self) -> bool:
        return self.base is self.work or (self.base is None and self.work is None)

    def check_conflicts(self, current: TableVersion) -> dict[int, FrozenBitMap]:
        """Raise SerializationFailure if ``current`` (a newer committed version of the table)
        changed what this transaction changed; return the transaction's new deletions, in
        ``current``'s file ids (rows a compaction moved are followed to where they are now). A
        rewrite of the table stands over compactions alone: they changed no row it read."""
        base = self.base
        unchanged = _same_contents(current, base)
        rewritten = self.rewritten()
        if current.schema.schema_id != base.schema.schema_id or rewritten and (
                not unchanged and not _same_rows(current, base)
                # (a catalog-only change committed meanwhile - COMMENT ON, ALTER TYPE ... ADD
                # VALUE: same schema id - which the rewrite's schema, made from the base's, would undo)
                or current.schema is not base.schema and current.schema != base.schema):
            raise errors.SerializationFailure(
                f'could not serialize access due to concurrent update of relation "{base.name}"')
        deleted = {} if rewritten else self.new_deletes()
        if unchanged or not deleted:
            return deleted
        located: dict[int, BitMap] = {}
        for fid, mine in deleted.items():
            if current.file(fid) is not None:
                # (``mine`` holds none of the base's deletions: a row of it deleted now is one
                # deleted since, by another - found without a pass over either vector)
                if current.deleted(fid).intersect(mine):
                    raise errors.SerializationFailure("could not serialize access due to concurrent update")
                located.setdefault(fid, BitMap()).update(mine)
                continue
            for pos in mine:  # the file was compacted away: follow each row
                where = current.locate(fid, pos)
                if where is None or where[1] in current.deleted(where[0]):
                    raise errors.SerializationFailure("could not serialize access due to concurrent update")
                located.setdefault(where[0], BitMap()).add(where[1])
        return {fid: FrozenBitMap(bm) for fid, bm in located.items()}

    def replay(self, onto: TableVersion) -> TableVersion:
        """This transaction's working version rebuilt on ``onto`` instead of ``base``: its own
        new rows and deletions over everything ``onto`` has (used when a READ COMMITTED
        transaction moves to a newer snapshot, and to check keys against the newest state)."""
        if onto is self.base or self.base is None or self.work is None:
            return self.work
        deleted = self.check_conflicts(onto)
        if self.rewritten():
            return self.work
        pending = self.pending
        own = {f.file_id: self.work.deleted(f.file_id) for f in pending if self.work.deleted(f.file_id)}
        work = onto.with_files(added=pending, deleted={**deleted, **own}, schema=self.catalog_changed(onto))
        return work.renamed(self.work.name) if self.renamed() else work


class Commit:
    # the engine checks a row's primary key against its snapshot when the row is inserted, so
    # the vote only checks keys against rows committed since
    keys_checked = True
    # it settles a prepared transaction (COMMIT PREPARED, or its abort): its label must not be
    # in the log even as an abort's; any other commit may take the label of an aborted one
    settles_prepared = False
    # the vote re-checks foreign keys against the newest committed state (storage/foreign_keys.py)
    checks_foreign_keys = True
    # READ COMMITTED: a foreign key a concurrent commit broke is 23503 (else 40001)
    read_committed = False
    # a Spark job's: refused (0A000) if a table it writes has a foreign key, or it overwrites
    # one that a foreign key references - found at its vote, the keys being left unchecked
    refuses_foreign_keys = False
    # referencing table id -> the files (ids from it on) the re-check must read: the statements
    # that removed referenced keys read those before (the transaction's ``fk_scanned``)
    fk_scanned: dict = {}

    def __init__(self, store: DataFileStore, deltas: list[TableDelta], xid: int,
                 commit_user: str, commit_id: str, *, snapshot_csn: int | None = None,
                 read_tables: frozenset[str] = frozenset(), read_keys: dict[str, frozenset] | None = None,
                 label: str | None = None):
        self.store = store
        self.label = label
        # SERIALIZABLE: tables read, checked against other processes' commits since the
        # snapshot - key by key for those read only by primary key (``read_keys``)
        self.snapshot_csn = snapshot_csn
        self.read_tables = read_tables
        self.read_keys = read_keys or {}
        self.deltas = [d for d in deltas if not d.is_noop()]
        self.xid = xid
        self.commit_user = commit_user
        self.commit_id = commit_id
        self.state = CommitState.PREPARING
        self._written: dict[str, list[DataFile]] = {}  # table_id -> files written by prepare
        # table_id -> per written file, its rows' sources (None: new rows only)
        self._sources: dict[str, list[np.ndarray | None]] = {}

    @property
    def empty(self) -> bool:
        return not self.deltas

    def prepare(self) -> None:
        """Write every table's uncommitted rows to Parquet (durable, not yet referenced)."""
        for d in self.deltas:
            if d.work is None or not d.pending:
                continue
            pieces, origins, written = [], [], []  # (origins: the pending file of each piece)
            for f in d.pending:
                deleted = d.work.deleted(f.file_id)
                if not f.in_memory and not deleted:  # spilled rows: the file is taken as it is
                    self.store.adopt(f.path)
                    written.append(DataFile(0, f.path, f.row_count, d.work.schema.schema_id, f.size))
                    carry_upserted([f], written[-1:])
                    self._sources.setdefault(d.table_id, []).append(f.caches.get(SOURCES))
                    continue
                data = f.python_rows() if not deleted else None
                if data is None:
                    data = self.store.read(f, d.work.schema)
                if deleted:
                    keep = np.ones(f.row_count, dtype=bool)
                    keep[list(deleted)] = False
                    data = data.filter(pa.array(keep))
                if data.num_rows:
                    pieces.append(data)
                    origins.append(f)
            first = len(written)
            if len(pieces) == 1:  # (new rows only - an INSERT's - have no sources to record)
                only = origins[0]
                self._write_rows(d, pieces[0], visible_sources(d.work, only) if SOURCES in only.caches else None,
                                 written)
            elif pieces:
                if all(isinstance(p, PythonRows) for p in pieces):
                    columns = [list(itertools.chain.from_iterable(c)) for c in zip(*(p.columns for p in pieces))]
                    data = PythonRows(d.work.schema, columns)
                else:
                    data = pa.concat_tables([p.table() if isinstance(p, PythonRows) else p for p in pieces])
                self._write_rows(d, data, np.concatenate([visible_sources(d.work, f) for f in origins]), written)
            if origins and all(f.caches.get(SAME_KEYS) for f in origins):
                for f in written[first:]:
                    f.caches[SAME_KEYS] = True
            carry_upserted(origins, written[first:])
            if written:
                self._written[d.table_id] = written
        self.store.fsync_dirs([f.path for files in self._written.values() for f in files if not f.is_inline])
        self.state = CommitState.PREPARED

    def _write_rows(self, d: TableDelta, data: pa.Table | PythonRows, sources: np.ndarray | None,
                    written: list[DataFile]) -> None:
        """``data`` as new files of at most ROWS_PER_FILE rows (small ones inline, their rows
        encoded for the log here, outside its lock), appended to ``written``. Rows held as
        Python values stay so in an inline file. Several Parquet files are encoded in parallel
        (pyarrow releases the GIL): a bulk load is bound by Parquet encoding and compression."""
        schema = d.work.schema
        if isinstance(data, PythonRows):
            nbytes = inline_bytes(data)
            if nbytes is not None:
                self._write_inline(d, data, nbytes, sources, written)
                return
            data = data.table()
        chunks = [data.combine_chunks()] if data.num_rows <= ROWS_PER_FILE else \
            [data.slice(start, ROWS_PER_FILE).combine_chunks() for start in range(0, data.num_rows, ROWS_PER_FILE)]
        inline = [inline_bytes(c) for c in chunks]  # None: to a Parquet file
        to_write = [c for c, small in zip(chunks, inline) if small is None]
        if len(to_write) > 1:
            with ThreadPoolExecutor(min(len(to_write), os.cpu_count() or 1)) as pool:
                files = iter(list(pool.map(lambda c: self.store.write(d.work.db, d.work.name, c), to_write)))
        else:
            files = iter([self.store.write(d.work.db, d.work.name, c) for c in to_write])
        for i, (chunk, nbytes) in enumerate(zip(chunks, inline)):
            part = sources[i * ROWS_PER_FILE:(i + 1) * ROWS_PER_FILE] if sources is not None else None
            if nbytes is not None:
                self._write_inline(d, chunk, nbytes, part, written)
            else:
                path, size = next(files)
                written.append(DataFile(0, path, chunk.num_rows, schema.schema_id, size))
                self._sources.setdefault(d.table_id, []).append(part)

    def _write_inline(self, d: TableDelta, rows: pa.Table | PythonRows, nbytes: int, sources: np.ndarray | None,
                      written: list[DataFile]) -> None:
        written.append(inline_file(self.store, d.work, rows, nbytes))
        self._sources.setdefault(d.table_id, []).append(sources)

    def vote(self, latest: CatalogVersion, csn: int, time_ms: int) -> LogEntry:
        """Rebase onto ``latest`` and check conflicts; return the entry to append as ``csn``."""
        assert self.state is CommitState.PREPARED
        # tables dropped, or renamed, by this transaction: their names are free for its others
        dropping = {d.table_id for d in self.deltas if d.base is not None and (d.work is None or d.renamed())}
        changes = []
        for d in self.deltas:
            changes.extend(self._rebase(d, latest, dropping))
        self._check_views(latest)
        self._check_types(latest)
        # drops first: a table dropped and re-created under the same name in one transaction
        order = {DropTable: 0, RenameTable: 1, CreateTable: 2, ChangeData: 3}
        changes.sort(key=lambda c: order[type(c)])
        entry = LogEntry(csn, self.xid, self.commit_user, self.commit_id, time_ms, tuple(changes), self.label)
        if changes and (latest.foreign_keys or any(
                d.work is not None and d.work.schema.foreign_keys for d in self.deltas)):
            from txlake.storage import foreign_keys  # (it builds on this module)
            after = latest.apply(replace(entry, csn=latest.csn + 1))
            if self.checks_foreign_keys:
                foreign_keys.check_commit(self.store, self.deltas, after, self.read_committed, self.fk_scanned)
            elif self.refuses_foreign_keys:
                foreign_keys.refuse_unchecked(self.deltas, after)
        return entry

    def successors(self, entry: LogEntry) -> dict[str, dict[int, int]]:
        """Old row id -> the row id that replaced it in ``entry`` (updated rows), for each table
        without a primary key, and for the rows of the others whose key was updated. READ
        COMMITTED follows these chains where it cannot re-find a row by its key."""
        keyed = {d.table_id for d in self.deltas if d.work is not None and d.work.schema.primary_key}
        result = {}
        for change in entry.changes:
            if not isinstance(change, ChangeData) or change.table_id not in self._sources:
                continue
            chain = {}
            for f, sources in zip(change.added, self._sources[change.table_id]):
                if sources is None or (change.table_id in keyed and f.caches.get(SAME_KEYS)):
                    continue  # new rows only, or updated rows found again by their keys
                if len(sources) == 1:  # a point statement's row (no NumPy for one value)
                    if sources[0] >= 0:
                        chain[int(sources[0])] = f.file_id << 32
                    continue
                for pos in np.nonzero(sources >= 0)[0]:
                    chain[int(sources[pos])] = (f.file_id << 32) | int(pos)
            if chain:
                result[change.table_id] = chain
        return result

    def written_files(self) -> list[DataFile]:
        """The Parquet files this commit wrote (or adopts), which its entry will name."""
        return [f for files in self._written.values() for f in files if not f.is_inline]

    def sequence_files(self) -> list[str]:
        """The files of the sequences this commit makes or changes, which must be there when it
        lands (an orphan pass takes an uncommitted sequence's file for a dropped one's)."""
        return [sequence_file(d.table_id) for d in self.deltas if d.work is not None and d.work.is_sequence]

    def abort(self) -> None:
        for files in self._written.values():
            for f in files:
                if not f.is_inline:  # (an inline file's path is where publishing would write it)
                    self.store.fs.remove(os.path.join(self.store.root, f.path))
        self._written.clear()
        self.state = CommitState.ABORTED

    # --- rebasing and the data-conflict check --------------------------------------------

    def _rebase(self, d: TableDelta, latest: CatalogVersion, dropping: set[str]) -> list:
        work, base = d.work, d.base
        current = latest.by_id(d.table_id)
        if base is None and work is None:
            return []
        if base is None:  # created by this transaction
            clash = latest.table(work.db, work.name)
            if clash is not None and clash.table_id not in dropping:
                if work.is_function:  # (its name holds its argument types: engine/functions.py)
                    raise errors.DuplicateFunction(f'function "{work.schema.function.name}" already exists with '
                                                   "same argument types")
                if work.is_type or clash.is_type:  # (a table's name is its row type's: one namespace)
                    raise errors.DuplicateObject(f'type "{work.name}" already exists')
                raise errors.DuplicateTable(f'relation "{work.name}" already exists')
            files = self._numbered(d.table_id, 1)
            return [CreateTable(d.table_id, work.db, work.name, work.schema),
                    ChangeData(d.table_id, added=files)] if files else \
                   [CreateTable(d.table_id, work.db, work.name, work.schema)]
        if current is None:
            raise errors.SerializationFailure(
                f'could not serialize access: relation "{base.name}" was dropped by a concurrent transaction')
        if work is None:
            return [DropTable(d.table_id)]
        renames = self._rename(d, current, latest, dropping) if d.renamed() else []
        deleted = d.check_conflicts(current)
        # (rows unchanged since the snapshot: its keys, which the statements checked, are current's)
        unchanged = _same_contents(current, base) or _same_rows(current, base)
        # a rewrite replaces every file - a compaction's committed since too (the same rows)
        removed = frozenset(f.file_id for f in current.files if work.file(f.file_id) is None) \
            if d.rewritten() else frozenset()
        files = self._numbered(d.table_id, current.next_file_id)
        if files and work.schema.primary_key and not (unchanged and self.keys_checked):
            new_keys = files if not self.keys_checked else tuple(f for f in files if not f.caches.get(SAME_KEYS))
            if new_keys:
                self._check_keys(current, base.next_file_id if self.keys_checked else 0, new_keys, deleted)
        if files and work.schema.uniques and not (unchanged and self.keys_checked):
            # (every new row: an UPDATE keeping the primary key may still change a UNIQUE column)
            for unique in work.schema.uniques:
                self._check_keys(current, base.next_file_id if self.keys_checked else 0, files, deleted, unique)
        schema = work.schema if work.schema.schema_id != base.schema.schema_id else d.catalog_changed(current)
        if not files and not removed and not deleted and schema is None:
            return renames
        return [*renames, ChangeData(d.table_id, added=files, removed=removed, deleted=deleted, schema=schema)]

    @staticmethod
    def _rename(d: TableDelta, current: TableVersion, latest: CatalogVersion, dropping: set[str]) -> list:
        """The rename of a table this transaction renamed; 40001 if another renamed it since the
        snapshot, 42P07 if another took its new name since (as a CREATE of it would be)."""
        if current.name != d.base.name:
            raise errors.SerializationFailure(
                f'could not serialize access: relation "{d.base.name}" was renamed by a concurrent transaction')
        clash = latest.table(d.work.db, d.work.name)
        if clash is not None and clash.table_id not in dropping:
            raise errors.DuplicateTable(f'relation "{d.work.name}" already exists')
        return [RenameTable(d.table_id, d.work.name)]

    def _check_views(self, latest: CatalogVersion) -> None:
        """Views against what others committed since the snapshot (the statements checked the
        snapshot's: 2BP01, 42P01): a view this transaction makes or replaces must find every
        relation it reads still there, with the columns it uses of the types it used; a
        table or view this one drops or re-shapes must not be read so by a view another
        committed meanwhile. Either is 40001, as a concurrent DROP / CREATE of one name is."""
        mine = {d.table_id: d.work for d in self.deltas}
        for d in self.deltas:
            work = d.work
            if work is None or not work.is_view or (d.base is not None and work.schema is d.base.schema):
                continue
            for dep in work.schema.view.depends:
                target = mine[dep.table_id] if dep.table_id in mine else latest.by_id(dep.table_id)
                if target is None or not _provides(target, dep.columns):
                    raise errors.SerializationFailure(
                        f'could not serialize access: relation "{dep.name}", which view "{work.name}" reads, '
                        "was dropped or altered by a concurrent transaction")
        reshaped = {d.table_id: d.work for d in self.deltas if d.base is not None
                    and (d.work is None or d.work.schema.schema_id != d.base.schema.schema_id)}
        if not reshaped or not latest.views:
            return
        for view in latest.tables.values():
            if not view.is_view or view.table_id in mine:
                continue
            for dep in view.schema.view.depends:
                if dep.table_id in reshaped and (reshaped[dep.table_id] is None
                                                 or not _provides(reshaped[dep.table_id], dep.columns)):
                    raise errors.SerializationFailure(
                        f'could not serialize access: view "{view.name}", which reads relation "{dep.name}", '
                        "was created by a concurrent transaction")

    def _check_types(self, latest: CatalogVersion) -> None:
        """User-defined types against what others committed since the snapshot: a table this
        transaction makes or re-shapes took its columns' rules from a type (``Column.
        type_version``), which must still be that version; a type this one alters or drops
        must not be used by a table it did not follow (one another made meanwhile). 40001
        either way: the rules a table holds are its types' (engine/user_types.py)."""
        if not latest.types and not any(d.work is not None and d.work.is_type for d in self.deltas):
            return
        mine = {d.table_id: d.work for d in self.deltas}
        for d in self.deltas:
            work = d.work
            if work is None or not work.is_table or (d.base is not None and work.schema is d.base.schema):
                continue
            for col in work.schema.columns:
                if col.user_type is None:
                    continue
                typed = mine[col.user_type] if col.user_type in mine else latest.by_id(col.user_type)
                if typed is None or typed.schema.schema_id != col.type_version:
                    raise errors.SerializationFailure(
                        f'could not serialize access: the type of column "{col.name}" of "{work.name}" was '
                        "dropped or altered by a concurrent transaction")
        changed = {d.table_id for d in self.deltas if d.base is not None and d.base.is_type
                   and (d.work is None or d.work.schema is not d.base.schema)}
        for table in latest.tables.values() if changed else ():
            if table.table_id not in mine and any(c.user_type in changed for c in table.schema.columns):
                raise errors.SerializationFailure(
                    f'could not serialize access: table "{table.name}", of a type this transaction alters or '
                    "drops, was created or altered by a concurrent transaction")

    def _numbered(self, table_id: str, first_id: int) -> tuple[DataFile, ...]:
        return tuple(f.numbered(first_id + i) for i, f in enumerate(self._written.get(table_id, ())))

    def _check_keys(self, current: TableVersion, since: int, files: tuple[DataFile, ...],
                    deleted: dict[int, FrozenBitMap], unique=None) -> None:
        """Keys this transaction inserted against rows others committed since its snapshot
        (files new since the snapshot: ids from ``since``, the snapshot's next file id, on - a
        table's file ids only grow; rows this transaction deletes do not count). With
        ``keys_checked`` off, against every row of ``current`` and among the new rows too.
        ``unique``: a UNIQUE constraint's keys (of its columns; one holding a NULL clashes with
        none unless NULLS NOT DISTINCT), instead of the primary key's."""
        theirs = [f for f in current.files if f.file_id >= since]
        if not theirs and self.keys_checked:  # (no row committed since: nothing to clash with)
            return
        names = current.schema.primary_key if unique is None else unique.columns
        shown = names if unique is None else unique.shown
        constraint = current.schema.pkey_name(current.name) if unique is None else unique.name
        seen: set = set()
        for f in files:
            rows = f.python_rows()
            rows = rows if rows is not None else self.store.read(f, current.schema)
            mine = pk.key_tuples(rows, names) if unique is None else pk.computed_key_tuples(rows, names)
            if unique is not None and not unique.nulls_not_distinct:
                mine = [k for k in mine if k is not None and (type(k) is not tuple or None not in k)]
            clash = {k: r for k, r in pk.find(self.store, current, mine, theirs, names).items()
                     if (r & 0xFFFFFFFF) not in deleted.get(r >> 32, ())} if theirs else {}
            if not self.keys_checked and not clash:
                clash = _duplicates(mine, seen)
            if clash:
                key = next(iter(clash))
                if f.caches.get(UPSERTED):
                    raise errors.SerializationFailure(
                        "could not serialize access due to concurrent insert\n"
                        f"DETAIL:  Key ({', '.join(shown)})=({key_text(key)}) was committed by another process "
                        "after this INSERT ... ON CONFLICT looked for it.")
                raise errors.UniqueViolation(
                    f'duplicate key value violates unique constraint "{constraint}"\n'
                    f"DETAIL:  Key ({', '.join(shown)})=({key_text(key)}) already exists.")


class FilesCommit(Commit):
    """A commit of data files written elsewhere - by Spark tasks - rather than by ``prepare``.

    ``files`` maps a table id to its new files (ids 0; numbered at vote). Nobody checked the
    primary keys of rows Spark wrote, so the vote checks them against the whole table and each
    other. ``abort`` removes the files, as it removes files ``prepare`` wrote - except a
    prepared transaction's, which stay until its outcome is decided.
    """

    # (a Spark job refuses to write such tables, ``refuses_foreign_keys``; PREPARE TRANSACTION
    # refuses a transaction that wrote one: storage/prepared.py)
    checks_foreign_keys = False

    def __init__(self, store: DataFileStore, deltas: list[TableDelta], files: dict[str, list[DataFile]],
                 commit_user: str, commit_id: str, *, keys_checked: bool = False, owns_files: bool = True,
                 **kwargs):
        super().__init__(store, deltas, 0, commit_user, commit_id, **kwargs)
        self._written = {tid: list(fs) for tid, fs in files.items() if fs}
        self.keys_checked = keys_checked  # a prepared transaction's keys were checked at INSERT
        self.owns_files = owns_files      # a prepared transaction's files outlive a failed attempt
        self.settles_prepared = not owns_files  # (only COMMIT PREPARED commits files it does not own)

    @property
    def empty(self) -> bool:
        # (COMMIT PREPARED of a transaction that wrote nothing is still an entry: its label
        # settles it, against a racing ROLLBACK PREPARED)
        return not self.deltas and not self._written and not self.settles_prepared

    def prepare(self) -> None:
        self.store.fsync_dirs([f.path for fs in self._written.values() for f in fs if not f.is_inline])
        self.state = CommitState.PREPARED

    def abort(self) -> None:
        if self.owns_files:
            super().abort()
        self.state = CommitState.ABORTED


def _same_contents(current: TableVersion, base: TableVersion) -> bool:
    """Has nothing been committed to the table since ``base`` (``current`` is its newest version)?"""
    return current is base or (current.files == base.files and dict(current.deletes) == dict(base.deletes))


def _same_rows(current: TableVersion, base: TableVersion) -> bool:
    """Does ``current`` hold ``base``'s rows - nothing committed since but compactions, which
    move rows without changing any (``TableVersion.rows_csn``)?"""
    return current.rows_csn == base.rows_csn


def _provides(version: TableVersion, used: tuple[tuple[str, str], ...]) -> bool:
    """Has ``version`` every column ``used`` names, of the type named?"""
    have = dict(version.column_types())
    return all(have.get(name) == type_ for name, type_ in used)


def _duplicates(keys: list, seen: set) -> dict:
    """Keys that occur twice (among ``keys`` and those ``seen`` before); adds ``keys`` to ``seen``."""
    dup = {}
    for k in keys:
        if k in seen:
            dup[k] = None
        seen.add(k)
    return dup


def key_text(key) -> str:
    """A key as PostgreSQL's messages show it (``Key (id)=(1)``): a boolean as ``t`` / ``f``, a bytea
    as ``\\x`` and hex, a timestamptz with its offset as ``+00`` (in UTC: a message does not know the
    session's zone)."""
    return ", ".join(map(_value_text, key)) if isinstance(key, tuple) else _value_text(key)


def _value_text(value) -> str:
    if value is None:  # (a UNIQUE NULLS NOT DISTINCT key's)
        return "null"
    if isinstance(value, bool):  # (PostgreSQL's boolean output: Key (b)=(t))
        return "t" if value else "f"
    if isinstance(value, bytes):
        return "\\x" + value.hex()
    if value != value:
        return "NaN"
    text = str(value)
    if getattr(value, "tzinfo", None) is not None and text.endswith(":00") and text[-6] in "+-":
        return text[:-3]  # (+00:00 as +00; +05:30 stays)
    return text


def backoff(attempt: int, base: float = 0.002, cap: float = 0.2) -> float:
    """Exponential backoff with full jitter."""
    return float(np.random.uniform(0, min(cap, base * (2 ** attempt))))


def now_ms() -> int:
    return int(time.time() * 1000)
