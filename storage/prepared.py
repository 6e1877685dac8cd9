"""Prepared transactions: two-phase commit across sessions, processes and crashes.

``PREPARE TRANSACTION 'gid'`` writes the transaction's new rows as Parquet files and then a
durable *record* ``_prepared/<gid>.json`` saying what the transaction changes (its snapshot,
files, deleted rows, created and dropped tables). From then on any session in any process can
finish it with ``COMMIT PREPARED 'gid'`` or ``ROLLBACK PREPARED 'gid'``.

States (the Doris seed's)::

    PREPARE --record written--> PRECOMMITTED --log entry--> COMMITTED --published--> VISIBLE
                                     \\--abort entry (ROLLBACK PREPARED, timeout)--> ABORTED

The commit log decides the outcome, so racing finishers cannot disagree: a commit appends the
transaction's changes and a rollback appends an empty *abort entry*, both carrying the
transaction's label; labels are unique in the log, so exactly one of them lands. The record is
then rewritten with the outcome (a cache of what the log says: after a crash in between, the
next reader of the record finishes the transition from the log). Finishing twice the same way
succeeds; finishing the other way fails with 25000.

PREPARE checks the transaction as COMMIT PREPARED will (rows others changed since its snapshot,
keys they inserted, tables dropped or re-shaped: 40001 / 23505; what another prepared
transaction claims: 40001) and writes the record, both holding the log's lock, so no commit
slips in between. While PRECOMMITTED, what the record changes is *claimed*: any other commit
that deletes or updates one of its deleted rows, inserts one of its new primary keys, creates
a table of the name it creates, or drops or re-shapes a table it writes, fails with 40001
(``Warehouse._vote`` checks), so a prepared transaction can always commit. An unfinished one
is aborted after its timeout by the background maintenance of any process that has the
warehouse open.
"""

from __future__ import annotations

import json
import os
from contextlib import contextmanager
from dataclasses import dataclass, field

from txlake import errors
from txlake.storage import keys as pk
from txlake.storage.commit import Commit, CommitState, FilesCommit, TableDelta, now_ms
from txlake.storage.datafiles import DataFileStore
from txlake.storage.schema import TableSchema
from txlake.storage.txlog import LogLocked
from txlake.storage.version import (ChangeData, CreateTable, DataFile, DropTable, LogEntry, TableVersion,
                                    decode_bitmap, encode_bitmap)

PREPARED_DIR = "_prepared"
DEFAULT_TIMEOUT = 3600.0
LABEL_PREFIX = "prepared:"

PRECOMMITTED, COMMITTED, VISIBLE, ABORTED = "PRECOMMITTED", "COMMITTED", "VISIBLE", "ABORTED"


@dataclass(frozen=True)
class TableChange:
    """What a prepared transaction does to one table."""

    table_id: str
    op: str                                  # "data", "create" or "drop"
    files: tuple[DataFile, ...] = ()         # new rows, already on disk (ids assigned at commit)
    deleted: dict = field(default_factory=dict)  # file id (at the snapshot) -> deleted rows
    db: str | None = None                    # create: where and how
    name: str | None = None
    schema: TableSchema | None = None

    def to_json(self) -> dict:
        d = {"table_id": self.table_id, "op": self.op, "files": [f.to_json() for f in self.files],
             "deleted": {str(fid): encode_bitmap(bm) for fid, bm in self.deleted.items()}}
        if self.op == "create":
            d.update(db=self.db, name=self.name, schema=self.schema.to_json())
        return d

    @staticmethod
    def from_json(d: dict) -> "TableChange":
        return TableChange(d["table_id"], d["op"], tuple(DataFile.from_json(f) for f in d["files"]),
                           {int(fid): decode_bitmap(bm) for fid, bm in d["deleted"].items()},
                           d.get("db"), d.get("name"),
                           TableSchema.from_json(d["schema"]) if "schema" in d else None)


@dataclass(frozen=True)
class PreparedRecord:
    gid: str
    label: str
    state: str
    snapshot_csn: int
    xid: int
    owner: str                 # commit user of the preparing process
    started_ms: int
    prepared_ms: int
    timeout_ms: int
    changes: tuple[TableChange, ...] = ()
    read_tables: tuple[str, ...] = ()      # SERIALIZABLE: checked against others' commits
    finished_ms: int | None = None
    csn: int | None = None                 # the commit's (or abort entry's) CSN
    reason: str | None = None              # why it was aborted

    def to_json(self) -> dict:
        return {"gid": self.gid, "label": self.label, "state": self.state, "snapshot_csn": self.snapshot_csn,
                "xid": self.xid, "owner": self.owner, "started_ms": self.started_ms,
                "prepared_ms": self.prepared_ms, "timeout_ms": self.timeout_ms,
                "changes": [c.to_json() for c in self.changes], "read_tables": list(self.read_tables),
                "finished_ms": self.finished_ms, "csn": self.csn, "reason": self.reason}

    @staticmethod
    def from_json(d: dict) -> "PreparedRecord":
        return PreparedRecord(d["gid"], d["label"], d["state"], d["snapshot_csn"], d["xid"], d["owner"],
                              d["started_ms"], d["prepared_ms"], d["timeout_ms"],
                              tuple(TableChange.from_json(c) for c in d["changes"]), tuple(d["read_tables"]),
                              d.get("finished_ms"), d.get("csn"), d.get("reason"))

    @property
    def expired(self) -> bool:
        return self.state == PRECOMMITTED and now_ms() > self.prepared_ms + self.timeout_ms


class AbortEntry(Commit):
    """The empty log entry that records a prepared transaction's abort under its label."""

    settles_prepared = True

    def __init__(self, record: PreparedRecord, commit_user: str, reason: str):
        super().__init__(None, [], record.xid, commit_user, record.gid, label=record.label)
        self.reason = reason

    @property
    def empty(self) -> bool:
        return False

    def prepare(self) -> None:
        self.state = CommitState.PREPARED

    def vote(self, latest, csn: int, time_ms: int) -> LogEntry:
        return LogEntry(csn, self.xid, self.commit_user, self.commit_id, time_ms, (), self.label, self.reason)

    def abort(self) -> None:
        self.state = CommitState.ABORTED


class PreparedTransactions:
    """The ``_prepared/`` directory of one warehouse."""

    def __init__(self, warehouse):
        self.warehouse = warehouse
        self.dir = os.path.join(warehouse.root, PREPARED_DIR)
        self._cache: tuple[int, list[PreparedRecord]] | None = None  # (prepared_changes(), records)
        if not settled(warehouse.txlog.prepared_changes()):  # a change's process died midway
            try:
                with warehouse.txlog.locked(0.0):
                    if not settled(warehouse.txlog.prepared_changes()):
                        warehouse.txlog.count_prepared_change()
            except LogLocked:
                pass  # (whoever holds it may be making a change: the next change settles it)

    def _path(self, gid: str) -> str:
        return os.path.join(self.dir, f"{gid.encode().hex()}.json")

    def load(self, gid: str) -> PreparedRecord | None:
        try:
            return PreparedRecord.from_json(json.loads(self.warehouse.fs.read_bytes(self._path(gid))))
        except FileNotFoundError:
            return None

    def records(self) -> list[PreparedRecord]:
        """Every record, re-read only when ``_prepared/`` changed: the log's count of its
        changes (``TxLog.prepared_changes``, a memory read) moved since the last look."""
        changes = self.warehouse.txlog.prepared_changes()
        cached = self._cache
        if cached is not None and cached[0] == changes and settled(changes):
            return cached[1]
        records = []
        try:
            names = self.warehouse.fs.listdir(self.dir)
        except FileNotFoundError:
            names = []
        for name in names:
            if name.endswith(".json"):
                try:
                    records.append(PreparedRecord.from_json(
                        json.loads(self.warehouse.fs.read_bytes(os.path.join(self.dir, name)))))
                except (FileNotFoundError, ValueError):
                    continue
        if settled(changes):
            self._cache = (changes, records)
        return records

    @contextmanager
    def _changing(self):
        """Count a change to ``_prepared/`` (the caller holds the log's lock) before it is made
        and after: while the count is odd, one is under way - or its process died midway -
        and readers cache nothing. (Counted only after, a process killed between the two
        left a record processes that had read the records before never read: a prepared
        transaction whose claims they did not respect.) An odd count found here is a dead
        writer's: nobody else holds the lock."""
        log = self.warehouse.txlog
        if not settled(log.prepared_changes()):
            log.count_prepared_change()
        log.count_prepared_change()
        try:
            yield
        finally:
            log.count_prepared_change()

    def claims(self, excluding_label: str | None = None) -> list[PreparedRecord]:
        return [r for r in self.records() if r.state == PRECOMMITTED and r.label != excluding_label]

    # --- PREPARE ---------------------------------------------------------------------------

    def prepare(self, gid: str, deltas: list[TableDelta], *, xid: int, snapshot_csn: int, started_ms: int,
                timeout: float, label: str | None = None, read_tables: frozenset[str] = frozenset()) -> PreparedRecord:
        """Write the transaction's files and its record; 42710 if ``gid`` is in use."""
        if not gid:
            raise errors.InvalidParameterValue("a prepared transaction identifier must not be empty")
        if self.load(gid) is not None:
            raise errors.DuplicateObject(f'transaction identifier "{gid}" is already in use')
        label = label or LABEL_PREFIX + gid
        if self.warehouse.label_commit(label, aborts=False) is not None:
            raise errors.DuplicateObject(f'label "{label}" is already used')
        for d in deltas:
            if d.rewritten() or d.renamed():  # (a prepared record has no rename to carry)
                raise errors.NotSupportedError(
                    "PREPARE TRANSACTION of a transaction that altered a table is not supported")
            if d.work is not None and (d.work.schema.foreign_keys or self.warehouse.latest.referencing(d.table_id)):
                # (COMMIT PREPARED does not re-check foreign keys against what committed since)
                raise errors.NotSupportedError("PREPARE TRANSACTION of a transaction that wrote a table with a "
                                               "foreign key, or referenced by one, is not supported")
        writer = Commit(self.warehouse.store, deltas, xid, self.warehouse.commit_user, gid)
        writer.prepare()  # new rows -> durable Parquet files, not referenced by any log entry yet
        try:
            changes = []
            for d in writer.deltas:
                files = tuple(writer._written.get(d.table_id, ()))
                if d.work is None:
                    changes.append(TableChange(d.table_id, "drop"))
                elif d.base is None:
                    changes.append(TableChange(d.table_id, "create", files, {}, d.work.db, d.work.name, d.work.schema))
                else:
                    changes.append(TableChange(d.table_id, "data", files, d.new_deletes()))
            record = PreparedRecord(gid, label, PRECOMMITTED, snapshot_csn, xid, self.warehouse.commit_user,
                                    started_ms, now_ms(), int(timeout * 1000), tuple(changes),
                                    tuple(sorted(read_tables)))
            self.warehouse.fs.makedirs(self.dir)
            with self.warehouse._log_locked():  # no commit votes between the check and the claims
                latest = self.warehouse.refresh()
                # what COMMIT PREPARED will check, now: rows others changed since the snapshot,
                # keys they inserted, tables dropped or re-shaped, other prepared transactions' claims
                check_claims(self.claims(), writer.vote(latest, latest.csn + 1, now_ms()), latest, self.warehouse.store)
                self.warehouse.refuse_held_label(label, gid)  # one unfinished prepared transaction a label
                with self._changing():
                    if not self.warehouse.fs.put_if_absent(self._path(gid), json.dumps(record.to_json()).encode()):
                        raise errors.DuplicateObject(f'transaction identifier "{gid}" is already in use')
        except BaseException:
            writer.abort()
            raise
        return record

    # --- finishing -------------------------------------------------------------------------

    def commit(self, gid: str) -> PreparedRecord:
        record = self._settle(self._require(gid))
        if record.state in (COMMITTED, VISIBLE):
            return record
        if record.state == ABORTED:
            raise errors.InvalidTransactionState(
                f'prepared transaction "{gid}" was already rolled back ({record.reason})')
        wh = self.warehouse
        base = wh.catalog_at(record.snapshot_csn)
        deltas, files = [], {}
        for c in record.changes:
            if c.op == "create":
                deltas.append(TableDelta(c.table_id, None, TableVersion(c.table_id, c.db, c.name, c.schema)))
            else:
                version = base.by_id(c.table_id)
                if c.op == "drop":
                    deltas.append(TableDelta(c.table_id, version, None))
                else:
                    deltas.append(TableDelta(c.table_id, version, version.with_files(deleted=c.deleted)))
            files[c.table_id] = list(c.files)
        commit = FilesCommit(wh.store, deltas, files, wh.commit_user, gid, label=record.label, owns_files=False,
                             keys_checked=True, snapshot_csn=record.snapshot_csn if record.read_tables else None,
                             read_tables=frozenset(record.read_tables))
        try:
            entry = wh.commit(commit)
        except errors.DuplicateObject:  # someone finished it first: the log says how
            settled = self._settle(record)
            if settled.state == ABORTED:
                raise errors.InvalidTransactionState(
                    f'prepared transaction "{gid}" was already rolled back ({settled.reason})') from None
            return settled
        except errors.CommitFailed:
            # nothing refused it (a commit timeout, an I/O error - or an entry whose flush
            # failed, which the log settles): it stays prepared, to be committed again
            raise
        except errors.Error as e:
            # a conflict - cannot happen while claims hold; if it does, the transaction can
            # never commit
            self._abort(record, f"commit failed: {e}")
            raise
        return self._finish(record, COMMITTED, entry)

    def rollback(self, gid: str, reason: str = "ROLLBACK PREPARED") -> PreparedRecord:
        record = self._settle(self._require(gid))
        if record.state == ABORTED:
            return record
        if record.state in (COMMITTED, VISIBLE):
            raise errors.InvalidTransactionState(f'prepared transaction "{gid}" was already committed')
        return self._abort(record, reason)

    def expire(self) -> int:
        """Abort every PRECOMMITTED transaction past its timeout; return how many."""
        count = 0
        for record in self.records():
            if record.expired:
                try:
                    self.rollback(record.gid, reason="timeout")
                    count += 1
                except errors.InvalidTransactionState:
                    pass  # committed meanwhile
        return count

    def state(self, record: PreparedRecord, published_csn: int | None) -> str:
        if record.state == COMMITTED and published_csn is not None and record.csn <= published_csn:
            return VISIBLE
        return record.state

    def _require(self, gid: str) -> PreparedRecord:
        record = self.load(gid)
        if record is None:
            raise errors.UndefinedObject(f'prepared transaction with identifier "{gid}" does not exist')
        return record

    def _abort(self, record: PreparedRecord, reason: str) -> PreparedRecord:
        try:
            entry = self.warehouse.commit(AbortEntry(record, self.warehouse.commit_user, reason))
        except errors.DuplicateObject:
            settled = self._settle(record)
            if settled.state != ABORTED:
                raise errors.InvalidTransactionState(f'prepared transaction "{record.gid}" was already committed')
            return settled
        return self._finish(record, ABORTED, entry)

    def _settle(self, record: PreparedRecord) -> PreparedRecord:
        """A PRECOMMITTED record whose label is in the log: finish what a crash interrupted."""
        if record.state != PRECOMMITTED:
            return record
        entry = self.warehouse.label_commit(record.label)
        if entry is None:
            return record
        return self._finish(record, ABORTED if entry.aborted is not None else COMMITTED, entry)

    def _finish(self, record: PreparedRecord, state: str, entry: LogEntry) -> PreparedRecord:
        if state == ABORTED:
            for c in record.changes:
                for f in c.files:
                    self.warehouse.fs.remove(os.path.join(self.warehouse.root, f.path))
        done = PreparedRecord(**{**record.__dict__, "state": state, "finished_ms": entry.time_ms,
                                 "csn": entry.csn, "reason": entry.aborted if state == ABORTED else None})
        with self.warehouse._log_locked(), self._changing():  # (its claims end: votes re-read the records)
            self.warehouse.fs.write_atomic(self._path(record.gid), json.dumps(done.to_json()).encode())
        return done


def settled(changes: int) -> bool:
    """Does a count of changes to ``_prepared/`` say none is under way (``_changing``)?"""
    return changes % 2 == 0


def check_claims(claims: list[PreparedRecord], entry: LogEntry, latest, store: DataFileStore) -> None:
    """Refuse (40001) a commit that touches what a prepared transaction holds: rows it deletes
    or updates, a table it writes (dropped or re-shaped), primary keys it inserts, the name of
    a table it creates."""
    held: dict[str, list[tuple[PreparedRecord, TableChange]]] = {}
    created: dict[tuple[str, str], PreparedRecord] = {}
    for r in claims:
        for c in r.changes:
            held.setdefault(c.table_id, []).append((r, c))
            if c.op == "create":
                created[(c.db, c.name)] = r
    for change in entry.changes:
        if isinstance(change, CreateTable) and (change.db, change.name) in created:
            raise _held(created[(change.db, change.name)])
        for record, claim in held.get(change.table_id, ()):
            if isinstance(change, DropTable) or (isinstance(change, ChangeData) and change.schema is not None):
                raise _held(record)
            if not isinstance(change, ChangeData):
                continue
            version = latest.by_id(change.table_id)
            for fid, rows in claim.deleted.items():
                for pos in rows if change.deleted else ():
                    where = version.locate(fid, pos) if version is not None else None
                    if where is None and version is not None and version.lineage_lost(fid):
                        raise _held(record)  # (cannot tell where the claimed row went)
                    if where is not None and where[1] in change.deleted.get(where[0], ()):
                        raise _held(record)
            if change.added and claim.files and version is not None and version.schema.primary_key:
                theirs = _claimed_keys(store, record, claim, version.schema)
                if any(k in theirs for f in change.added for k in _keys_of(store, f, version.schema)):
                    raise _held(record)
            for unique in (version.schema.uniques if change.added and claim.files and version is not None else ()):
                theirs = _claimed_keys(store, record, claim, version.schema, unique)
                if any(k in theirs for f in change.added for k in _keys_of(store, f, version.schema, unique)):
                    raise _held(record)


# (gid, prepared at, table id, UNIQUE constraint or None) -> the primary keys (or a UNIQUE
# constraint's keys) a prepared transaction inserts there: its files do not change while it
# holds them
_CLAIMED_KEYS: dict[tuple, frozenset] = {}


def _claimed_keys(store: DataFileStore, record: PreparedRecord, claim: TableChange, schema: TableSchema,
                  unique=None) -> frozenset:
    key = (record.gid, record.prepared_ms, claim.table_id, unique)
    keys = _CLAIMED_KEYS.get(key)
    if keys is None:
        keys = frozenset(k for f in claim.files for k in _keys_of(store, f, schema, unique))
        if len(_CLAIMED_KEYS) >= 64:
            _CLAIMED_KEYS.clear()
        _CLAIMED_KEYS[key] = keys
    return keys


def _keys_of(store: DataFileStore, f: DataFile, schema: TableSchema, unique=None) -> list:
    """The primary keys of a file's rows, or the keys of ``unique`` (a UNIQUE constraint's;
    those holding a NULL left out, unless NULLS NOT DISTINCT)."""
    rows = f.python_rows(schema)
    rows = rows if rows is not None else store.read(f, schema)
    if unique is None:
        return pk.key_tuples(rows, schema.primary_key)
    keys = pk.computed_key_tuples(rows, unique.columns)
    if unique.nulls_not_distinct:
        return keys
    return [k for k in keys if k is not None and not (type(k) is tuple and None in k)]


def _held(record: PreparedRecord) -> errors.SerializationFailure:
    return errors.SerializationFailure(
        f'could not serialize access: the rows are held by prepared transaction "{record.gid}"')
