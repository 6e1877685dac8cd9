"""The transaction state machine and a transaction's private working state.

States::

    ACTIVE --error--> FAILED --ROLLBACK / ROLLBACK TO savepoint--> ABORTED / ACTIVE
      |  \\--COMMIT--> COMMITTED (or ABORTED if the commit check fails)
      \\--ROLLBACK--> ABORTED

In FAILED every statement but ROLLBACK (TO SAVEPOINT) gets 25P02, and COMMIT rolls back
(as in PostgreSQL, which answers COMMIT of a failed transaction with ROLLBACK).

Writes are private: ``changes`` maps table_id -> the transaction's working ``TableVersion``
(None once dropped), sharing every untouched file with the snapshot's version. Nothing is
shared with other sessions until commit, so ROLLBACK just drops the map, and a savepoint is a
copy of the map (O(tables written), not O(rows)).
"""

from __future__ import annotations

import datetime
import enum
import time
from dataclasses import dataclass, field

from txlake import errors
from txlake.engine.mvcc.snapshot import Snapshot
from txlake.storage.commit import TableDelta
from txlake.storage.version import CatalogVersion, TableVersion

READ_UNCOMMITTED = "READ UNCOMMITTED"
READ_COMMITTED = "READ COMMITTED"
REPEATABLE_READ = "REPEATABLE READ"
SERIALIZABLE = "SERIALIZABLE"
LEVELS = (READ_UNCOMMITTED, READ_COMMITTED, REPEATABLE_READ, SERIALIZABLE)
DEFAULT_LEVEL = REPEATABLE_READ


def normalise_level(level: str) -> str:
    text = " ".join(str(level).replace("_", " ").replace("-", " ").split()).upper()
    if text not in LEVELS:
        raise errors.InvalidParameterValue(
            f'invalid value for parameter "transaction_isolation": "{level}"')
    return text


class TxnState(enum.Enum):
    ACTIVE = "active"
    FAILED = "failed"
    COMMITTED = "committed"
    ABORTED = "aborted"


_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


@dataclass
class SavepointMark:
    name: str
    changes: dict
    bases: dict
    # what it held then - (LockTable.mark, AdvisoryLocks.taken_by) - a rollback to it frees the rest
    locks: tuple = ((0, 0), 0)
    settings: int = 0      # how many of the transaction's setting changes it had made then
    deferred: tuple | None = None  # its SET CONSTRAINTS modes and deferred checks then (DeferredChecks.mark)
    notify: int = 0        # how many LISTEN / UNLISTEN / NOTIFY actions it had queued then


@dataclass
class Transaction:
    vxid: int
    isolation: str
    read_only: bool = False
    explicit: bool = True
    label: str | None = None
    xid: int | None = None
    state: TxnState = TxnState.ACTIVE
    snapshot: Snapshot | None = None
    changes: dict[str, TableVersion | None] = field(default_factory=dict)
    bases: dict[str, TableVersion | None] = field(default_factory=dict)
    savepoints: list[SavepointMark] = field(default_factory=list)
    error: Exception | None = None
    declared_isolation: str = ""  # as the user asked for it (READ UNCOMMITTED runs as READ COMMITTED)
    # Parquet files its uncommitted rows spilled to; removed when it ends, unless its commit
    # (or PREPARE) adopted them as its own files
    spilled: set[str] = field(default_factory=set)
    # when it began (Unix time, microseconds): now() and current_timestamp, as in PostgreSQL
    started_us: int = field(default_factory=lambda: time.time_ns() // 1000)
    # READ COMMITTED: the statement's snapshot, and the tables this transaction wrote that have
    # yet to move to it (``follow``)
    follows: CatalogVersion | None = None
    unfollowed: set[str] = field(default_factory=set)
    # the oldest snapshot a time-travel read of it read (AS OF): held, as its own snapshot, to
    # the end of the transaction (expiry in any process must not pass it mid-read)
    travel_csn: int | None = None
    # the session settings SET changed in it, in order: (name, old value, new value, LOCAL?) -
    # undone by a rollback (to a savepoint before them); a LOCAL one also at commit (Session)
    settings_changed: list = field(default_factory=list)
    # it made or changed a table with a foreign key: its writes look for the tables referencing
    # theirs among its own changes too (engine/foreign_keys.py)
    foreign_keys: bool = False
    # referencing table id -> the next file id of the version of it a statement scanned for
    # the keys it removed from a referenced table: COMMIT's re-check reads only files since
    fk_scanned: dict[str, int] = field(default_factory=dict)
    # the temporary tables it created (engine/temp_tables.py): table id -> ON COMMIT action
    temp_created: dict[str, str] = field(default_factory=dict)
    # (id(statement), search path) -> the statement, for the statements whose table locks it
    # holds (engine/table_locks.py): run again, they ask for none; emptied when it frees locks
    # (a rollback to a savepoint, an error) or runs DDL
    statements_locked: dict = field(default_factory=dict)
    # its LISTEN / UNLISTEN / NOTIFY, in order, for its COMMIT (engine/notify.py): ("listen",
    # channel), ("unlisten", channel or None: all), ("notify", channel, payload)
    notify: list = field(default_factory=list)
    # SET CONSTRAINTS modes and the checks of deferred constraints it queued for COMMIT
    # (engine/deferred.py ``DeferredChecks``); None until it meets one
    deferred: object = None

    @property
    def started_ms(self) -> int:
        return self.started_us // 1000

    @property
    def start_time(self) -> datetime.datetime:
        """When it began, as an aware UTC datetime (what ``now()`` returns)."""
        return _EPOCH + datetime.timedelta(microseconds=self.started_us)

    @property
    def uses_transaction_snapshot(self) -> bool:
        """REPEATABLE READ and SERIALIZABLE keep one snapshot; READ COMMITTED takes one per statement."""
        return self.isolation in (REPEATABLE_READ, SERIALIZABLE)

    def check_usable(self) -> None:
        if self.state is TxnState.FAILED:
            raise errors.InFailedTransaction(
                "current transaction is aborted, commands ignored until end of transaction block")

    # --- the working catalog -------------------------------------------------------------

    def follow(self, catalog: CatalogVersion) -> None:
        """READ COMMITTED, new statement: the tables this transaction wrote move to the
        statement's snapshot (its own changes replayed on the newer committed versions) - each
        when the statement first uses it (``table``), so a statement pays for the tables it
        touches, not for every table written before it; the rest at PREPARE (``follow_all``)
        or, at COMMIT, by the vote, which rebases every table anyway."""
        self.follows = catalog
        self.unfollowed = {tid for tid, work in self.changes.items()
                           if work is not None and self.bases.get(tid) is not None}

    def follow_all(self) -> None:
        """Move every table not moved yet to the statement's snapshot."""
        for tid in list(self.unfollowed):
            self._followed(tid)

    def _followed(self, tid: str) -> TableVersion | None:
        self.unfollowed.discard(tid)
        work, current = self.changes[tid], self.follows.by_id(tid)
        if work is None or current is None or current is self.bases[tid]:
            return work  # (dropped by this transaction or another: the vote tells which)
        return self.rebase(tid, work, current)

    def rebase(self, tid: str, work: TableVersion, onto: TableVersion) -> TableVersion:
        """Rebuild this transaction's view of a table (``work``, as it sees it now) on the
        committed version ``onto``; raises SerializationFailure if ``onto`` changed a row it
        changed."""
        if tid in self.changes:
            work = TableDelta(tid, self.bases[tid], work).replay(onto)
        else:
            work = onto
        self.changes[tid] = work
        self.bases[tid] = onto
        self.unfollowed.discard(tid)  # (at least as new as the statement's snapshot)
        return work

    def table(self, catalog: CatalogVersion, db: str, name: str) -> TableVersion | None:
        """The table named (db, name) as this transaction sees it: its own writes over ``catalog``."""
        for tid, version in self.changes.items():
            if version is not None and version.db == db and version.name == name:
                return self._followed(tid) if tid in self.unfollowed and catalog is self.follows else version
        version = catalog.table(db, name)
        if version is not None and version.table_id in self.changes:
            return None  # dropped (or replaced) by this transaction
        return version

    def tables(self, catalog: CatalogVersion) -> list[TableVersion]:
        seen = {}
        for key, version in catalog.tables.items():
            mine = self.table(catalog, *key)
            if mine is not None:
                seen[key] = mine
        for version in self.changes.values():
            if version is not None:
                seen[version.key] = version
        return list(seen.values())

    def write(self, base: TableVersion | None, table_id: str, new: TableVersion | None) -> None:
        if table_id not in self.bases:
            self.bases[table_id] = base
        self.changes[table_id] = new

    @property
    def wrote(self) -> bool:
        return bool(self.changes)

    # --- savepoints ----------------------------------------------------------------------

    def savepoint(self, name: str, locks: tuple = ((0, 0), 0)) -> None:
        self.savepoints.append(SavepointMark(name, dict(self.changes), dict(self.bases), locks,
                                             len(self.settings_changed),
                                             self.deferred.mark() if self.deferred is not None else None,
                                             len(self.notify)))

    def _find(self, name: str) -> int:
        for i in range(len(self.savepoints) - 1, -1, -1):
            if self.savepoints[i].name == name:
                return i
        raise errors.InvalidSavepoint(f'savepoint "{name}" does not exist')

    def rollback_to(self, name: str) -> SavepointMark:
        i = self._find(name)
        mark = self.savepoints[i]
        del self.savepoints[i + 1:]
        self.changes = dict(mark.changes)
        self.bases = dict(mark.bases)
        del self.notify[mark.notify:]
        if mark.deferred is None:
            self.deferred = None
        else:
            self.deferred.restore(mark.deferred)
        if self.follows is not None:  # READ COMMITTED: what is left to move is what it holds now
            self.follow(self.follows)
        self.state = TxnState.ACTIVE
        self.error = None
        return mark

    def release(self, name: str) -> None:
        del self.savepoints[self._find(name):]
