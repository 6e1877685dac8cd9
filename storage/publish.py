"""Publishing: committed log entries become Paimon snapshots (COMMITTED -> VISIBLE).

The log entry is the commit point; publishing only makes a committed state readable by other
engines through the Paimon layout (``snapshot/snapshot-N``, manifests, Parquet files). It is
derived entirely from the committed ``CatalogVersion``, so it can run late, in batches, in any
process, and again after a crash:

- each Paimon snapshot of a table is the table's state at some CSN, recorded as the snapshot's
  ``commitIdentifier``; a batch of commits may become one snapshot;
- a txlake data file without deleted rows is published as is; one with a deletion vector is
  published as a rewritten file holding the surviving rows, named after the source file and
  the number of deleted rows (deletion vectors only grow, so the name fixes the content and two
  processes publishing the same state write identical files);
- the Paimon snapshot file is created put-if-absent: if another process published first, this
  one re-reads and continues from there.

Modes: ``async`` (a background thread; ``close()`` and ``flush()`` wait for it), ``sync`` (the
committing thread publishes before returning) and ``off``. The background thread starts a pass
at most every ``interval`` seconds (``PUBLISH_INTERVAL``), and busies itself at most a tenth of
the time (``PUBLISH_DUTY``; a pass that took 0.5 s is followed by 4.5 s of rest): under a stream
of commits each pass publishes a batch of them, so publishing - which rewrites every file whose
deletion vector grew - takes the committing sessions little CPU however fast they commit. The
rows of small commits, which travel inline in the log, are published together: a table's inline
files become one Parquet file per schema (``Publisher._inline_bundle``), not one per commit.
Of several processes writing one warehouse, one at a time runs background passes (the others
find ``_txlog/PUBLISH`` locked and look again later), and a pass starts at most every
``interval`` seconds among them all: the lock file holds the time the last one ended. (Each
process keeping its own pace, four processes published three or four times as often as one,
each pass rewriting the files whose deletion vectors grew.)
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import math
import os
import threading
import time
from contextlib import contextmanager

import pyarrow as pa

from txlake.storage import failpoints
from txlake.storage.datafiles import BUCKET_DIR, table_dir
from txlake.storage.format.paimon import PaimonField, PaimonTable, PublishedFile, PublishedState
from txlake.storage.schema import TEXT_TYPES
from txlake.storage.version import CatalogVersion, LogEntry, TableVersion

log = logging.getLogger(__name__)

TABLE_ID_OPTION = "txlake.table-id"
# the txlake types of columns Paimon holds as STRING (UUID, JSON, JSONB, INTERVAL): {"name": "UUID", ...}
COLUMN_TYPES_OPTION = "txlake.column-types"
PUBLISH_USER = "txlake-publisher"
PUBLISH_INTERVAL = 1.0  # seconds at least between the starts of two background passes
PUBLISH_DUTY = 0.1      # the share of time background passes may take
PUBLISH_LOCK = "PUBLISH"  # in _txlog/: held by the process running a background pass
# in _txlog/: flock(2)ed shared by every publishing pass, exclusive to remove a table's metadata
PAIMON_LOCK = "PAIMON"
INLINE_PREFIX = "data-inline-"  # a table's inline rows, published together: data-inline-<digest>-0.parquet
REWRITE_MARK = "-deleted-"      # a file without its k deleted rows: <data file>-deleted-<k>.parquet


def written_by_publisher(name: str) -> bool:
    """Is the data file ``name`` (under bucket-0/) one the publisher writes - a rewrite or an
    inline bundle - rather than one a commit wrote? It is written before the Paimon snapshot
    that reads it, so for a while nothing references it."""
    stem = name.removesuffix(".parquet")
    return name.startswith(INLINE_PREFIX) or stem.rpartition(REWRITE_MARK)[2].isdigit() and REWRITE_MARK in stem


def _since_last_pass(lock: str) -> float:
    """Seconds since a background pass of any process last ended (the time it wrote in the
    publishing lock file); infinite if none did, or if the clock went back since."""
    try:
        with open(lock, "rb") as f:
            since = time.time() - float(f.read())
    except (OSError, ValueError):  # (an empty file: none yet)
        return math.inf
    return since if since >= 0 else math.inf


class Publisher:
    def __init__(self, warehouse, mode: str = "async", interval: float = PUBLISH_INTERVAL):
        if mode not in ("async", "sync", "off"):
            raise ValueError(f"publish mode must be async, sync or off, not {mode!r}")
        self.warehouse = warehouse
        self.mode = mode
        self.interval = interval
        self._published: dict[str, PublishedState | None] = {}  # table_id -> newest state we know
        self._published_csn = -1   # every table is published as of this CSN
        self._versions: dict[str, TableVersion] = {}  # table_id -> the version published last
        self._schemas_seen: set[tuple[str, int]] = set()  # (table_id, schema id) found to be that table's
        self._lock = threading.Lock()  # one publishing pass at a time
        self._wake = threading.Condition()
        self._pending = False
        self._closed = False
        self._thread: threading.Thread | None = None
        self.errors = 0

    def start(self) -> None:
        if self.mode == "off":
            return
        self.warehouse.listeners.append(self.notify)
        if self.mode == "async":
            self._thread = threading.Thread(target=self._run, name="txlake-publisher", daemon=True)
            self._thread.start()
        try:
            self._request()  # recovery: publish what the log has and the tables lack
        except Exception:  # (sync: in this thread - opening must not fail for it)
            self.errors += 1
            log.exception("publishing failed at open; it is retried on the next commit")

    def notify(self, entry: LogEntry) -> None:
        """Called after a commit is durable: publishing problems must not fail that commit."""
        if self.mode == "sync":
            try:
                self.publish()
            except Exception:
                self.errors += 1
                log.exception("publishing failed; it is retried on the next commit and at reopen")
        else:
            self._request()

    def _request(self) -> None:
        if self.mode == "sync":
            self.publish()
            return
        with self._wake:
            if not self._pending:  # (else the thread has been told: waking it at every commit
                self._pending = True  # only sent it back to sleep until its next pass)
                self._wake.notify()

    def _run(self) -> None:
        next_pass = 0.0
        lock = os.path.join(self.warehouse.txlog.dir, PUBLISH_LOCK)
        while True:
            with self._wake:
                while not self._closed and (not self._pending or time.monotonic() < next_pass):
                    self._wake.wait(None if not self._pending else next_pass - time.monotonic())
                if self._closed:  # (close() publishes what is left, in its own thread)
                    return
                self._pending = False
            started = time.monotonic()
            with self.warehouse.fs.try_lock(lock) as mine:
                # another process publishing, or one that published less than an interval ago:
                # this one looks again later
                since = _since_last_pass(lock) if mine else 0.0
                if since < self.interval:
                    with self._wake:
                        self._pending = True
                    next_pass = started + self.interval - since
                    continue
                try:
                    self.publish()
                except Exception:  # publishing is retried on the next commit or at reopen
                    self.errors += 1
                    log.exception("publishing failed")
                with open(lock, "wb") as f:  # (under the lock, as the read above)
                    f.write(repr(time.time()).encode())
            next_pass = started + max(self.interval, (time.monotonic() - started) / PUBLISH_DUTY)

    @property
    def published_csn(self) -> int:
        """Every commit up to this CSN is published (VISIBLE to other engines)."""
        return self._published_csn

    def flush(self) -> None:
        """Publish everything committed so far, in this thread."""
        if self.mode != "off":
            self.publish()

    def close(self) -> None:
        if self._thread is not None:
            with self._wake:
                self._closed = True
                self._wake.notify()
            self._thread.join()
            self._thread = None
        try:
            self.flush()
        except Exception:  # (as at a commit: retried at reopen; the warehouse must still close)
            self.errors += 1
            log.exception("publishing failed at close; it is retried at reopen")

    # --- one pass ------------------------------------------------------------------------

    def publish(self) -> None:
        """Publish the newest committed state: each table that changed since the last pass (a
        table version is replaced by any change to it, so an untouched table is the very same
        object and is passed over - a pass costs the tables changed, not every table of the
        warehouse), and Paimon metadata of tables no longer there removed."""
        with self._lock, PaimonLock.of(self.warehouse) as lock:
            catalog = self.warehouse.refresh()
            if catalog.csn == self._published_csn:
                return
            failure = None
            # (views, sequences, types and functions are catalog entries with no data: nothing to publish)
            tables = [v for v in catalog.tables.values() if v.is_table] \
                if catalog.views or catalog.sequences or catalog.types or catalog.functions \
                else catalog.tables.values()
            moved = False  # (a table renamed: its old directory's metadata goes)
            for version in tables:
                if self._versions.get(version.table_id) is not version:
                    before = self._versions.get(version.table_id)
                    if before is not None and before.name != version.name:
                        moved = True
                        self._forget(version.table_id)  # (what it knew was of the old directory)
                    try:
                        self._publish_table(catalog, version, lock)
                    except _Dropped:
                        self._published.pop(version.table_id, None)
                        continue  # dropped since this pass read the catalog
                    except Exception as e:  # the other tables are published all the same
                        self._published.pop(version.table_id, None)
                        failure = failure or e
                        continue
                    self._versions[version.table_id] = version
            if failure is not None:  # (reported, and the pass not counted: the next one tries again)
                raise failure
            if len(self._versions) != len(tables) or self._published_csn < 0 or moved:
                live = {v.table_id for v in tables}
                for table_id in [t for t in self._versions if t not in live]:
                    del self._versions[table_id]
                    self._published.pop(table_id, None)
                self._drop_stale({table_dir(v.db, v.name) for v in tables}, lock)
            self._published_csn = catalog.csn

    def _forget(self, table_id: str) -> None:
        """Forget the Paimon state this publisher knows of a table, whose directory changed: the
        new one is looked at afresh (its metadata may be a dropped table's of that name)."""
        self._published.pop(table_id, None)
        self._schemas_seen = {seen for seen in self._schemas_seen if seen[0] != table_id}

    def _publish_table(self, catalog: CatalogVersion, version: TableVersion, lock: "PaimonLock") -> None:
        """Publish ``version``; raises ``_Dropped`` if the table was dropped since ``catalog``.

        The directory may hold a dropped table's metadata of the same name: its schemas (which
        put-if-absent would keep, and readers would take for this table's - left alone, say,
        by a publisher killed before its first snapshot, or written meanwhile by a process that
        had not seen the drop yet) or its snapshots. They go (``_drop_foreign``) before this
        table's first snapshot, and whenever a schema this table writes turns out another's."""
        root = self.warehouse.root
        paimon = PaimonTable(os.path.join(root, table_dir(version.db, version.name)), self.warehouse.fs)
        state = self._published.get(version.table_id)
        if state is None:
            if _owners(paimon) - {version.table_id}:
                self._drop_foreign(paimon, version, lock)
            state = self._latest(paimon, version, lock)
            if state is not None and self._owner(paimon, state) != version.table_id:
                self._drop_foreign(paimon, version, lock)
                state = None
        if state is not None and state.commit_identifier >= catalog.csn:
            self._published[version.table_id] = state
            return
        self._write_schema(paimon, version)
        mine = (version.table_id, version.schema.schema_id)
        if mine not in self._schemas_seen:  # (once a schema: a file read)
            if self._owner_of(paimon, version.schema.schema_id) != version.table_id:
                self._drop_foreign(paimon, version, lock)  # (written meanwhile by a stale publisher)
                state = None
                self._write_schema(paimon, version)
            self._schemas_seen.add(mine)
        files = self._published_files(version)
        if state is not None and set(state.files) == {f.file_name for f in files} \
                and state.schema_id == version.schema.schema_id:
            self._published[version.table_id] = state
            return  # nothing visible changed for this table
        while True:
            new = paimon.commit(base=state, schema_id=version.schema.schema_id, files=files,
                                commit_user=PUBLISH_USER, commit_identifier=catalog.csn,
                                time_millis=catalog.time_ms)
            if new is not None:
                self._published[version.table_id] = new
                failpoints.reached("after-publish")
                return
            state = self._latest(paimon, version, lock)  # another process published first
            if state is not None and state.commit_identifier >= catalog.csn:
                self._published[version.table_id] = state
                return

    def _latest(self, paimon: PaimonTable, version: TableVersion, lock: "PaimonLock") -> PublishedState | None:
        """The directory's newest snapshot; one naming metadata that is not there (left by a
        table of the same name dropped midway) goes."""
        try:
            return paimon.latest()
        except FileNotFoundError:
            if self._drop_foreign(paimon, version, lock, unreadable=True):
                return None
            raise

    def _drop_foreign(self, paimon: PaimonTable, version: TableVersion, lock: "PaimonLock",
                      unreadable: bool = False) -> bool:
        """Remove the directory's metadata - holding the Paimon lock exclusively, so no pass of
        any process is writing there - if it is a dropped table's: with ``version``'s table
        live (the catalog read again: else ``_Dropped``), another table's schemas, or a newest
        snapshot of another table (``unreadable``: one that cannot be read). True if it went."""
        with lock.exclusive():
            if self.warehouse.refresh().by_id(version.table_id) is None:
                raise _Dropped(version.table_id)
            owners = _owners(paimon)
            foreign = bool(owners - {version.table_id})
            if not foreign:
                try:
                    state = paimon.latest()
                    foreign = state is not None and self._owner(paimon, state) != version.table_id
                except FileNotFoundError:
                    foreign = unreadable and version.table_id not in owners
            if foreign:
                paimon.drop_metadata()
            return foreign

    def _owner(self, paimon: PaimonTable, state: PublishedState) -> str | None:
        return self._owner_of(paimon, state.schema_id)

    @staticmethod
    def _owner_of(paimon: PaimonTable, schema_id: int) -> str | None:
        return paimon.schema_options(schema_id).get(TABLE_ID_OPTION)

    def _write_schema(self, paimon: PaimonTable, version: TableVersion) -> None:
        schema = version.schema
        fields = [PaimonField(c.field_id, c.name, c.type.paimon() + (" NOT NULL" if c.not_null else ""))
                  for c in schema.columns]
        options = {TABLE_ID_OPTION: version.table_id}
        if schema.primary_key:
            options["txlake.primary-key"] = ",".join(schema.primary_key)
        texts = {c.name: c.type.display() for c in schema.columns if c.type.kind in TEXT_TYPES}
        if texts:  # (Paimon has no UUID or JSON type: they are STRINGs there)
            options[COLUMN_TYPES_OPTION] = json.dumps(texts)
        paimon.write_schema(schema.schema_id, fields, options=options)

    def _published_files(self, version: TableVersion) -> list[PublishedFile]:
        """The data files of the table's Paimon snapshot: each of its Parquet files (rewritten
        without its deleted rows, if it has any), and its inline files' rows gathered in one
        file per schema."""
        files, inline = [], {}
        for f in version.files:
            if f.is_inline:
                inline.setdefault(f.schema_id, []).append(f)
            elif (published := self._published_file(version, f)) is not None:
                files.append(published)
        for group in inline.values():
            if (bundle := self._inline_bundle(version, group)) is not None:
                files.append(bundle)
        return files

    def _published_file(self, version: TableVersion, f) -> PublishedFile | None:
        deleted = version.deleted(f.file_id)
        rows = f.row_count - len(deleted)
        if rows <= 0:
            return None
        prefix = table_dir(version.db, version.name) + os.sep
        name = f.path[len(prefix):] if f.path.startswith(prefix) else f.path
        if not deleted and f.path.startswith(prefix):
            return PublishedFile(name, f.size, rows, f.schema_id)
        # (a file of a table renamed since it was written lives in the old name's directory: a
        # Paimon table reads its own bucket-0/ only, so it gets a copy there, as a rewrite of 0 rows)
        # (a name no data file has: a Spark task's second file is data-<job>-<task>-1.parquet)
        stem = os.path.basename(name).removesuffix(".parquet")
        name = os.path.join(BUCKET_DIR, f"{stem}{REWRITE_MARK}{len(deleted)}.parquet")
        full = os.path.join(self.warehouse.root, prefix, name)
        if not os.path.exists(full):
            self._write_file(full, self.warehouse.store.scan_file(version, f))
        return PublishedFile(name, os.path.getsize(full), rows, f.schema_id)

    def _inline_bundle(self, version: TableVersion, group: list) -> PublishedFile | None:
        """The visible rows of ``group`` - inline files of one schema, in version order - as one
        Parquet file. Published one file each, the rows of a stream of small commits would
        cost a Parquet write and an fsync per commit, and leave readers a file per commit.
        The file's name is a digest of the table, the files and their deleted-row counts
        (deletion vectors only grow), which fix its content: a later pass over the same inline
        files finds it written, and two processes publishing the same state write the same."""
        live = [(f, version.deleted(f.file_id)) for f in group]
        live = [(f, dead) for f, dead in live if len(dead) < f.row_count]
        if not live:
            return None
        schema_id = group[0].schema_id
        digest = hashlib.sha256(f"{version.table_id}:{schema_id}:".encode() + ",".join(
            f"{f.file_id}-{len(dead)}" for f, dead in live).encode()).hexdigest()[:32]
        name = os.path.join(BUCKET_DIR, f"{INLINE_PREFIX}{digest}-0.parquet")
        full = os.path.join(self.warehouse.root, table_dir(version.db, version.name), name)
        if not os.path.exists(full):  # (rows decoded only now, for the files not yet published)
            pieces = [self.warehouse.store.scan_file(version, f) for f, _ in live]
            self._write_file(full, pa.concat_tables(pieces, promote_options="permissive"))
        return PublishedFile(name, os.path.getsize(full), sum(f.row_count - len(dead) for f, dead in live), schema_id)

    def _write_file(self, full: str, data: pa.Table) -> None:
        """Write a published Parquet file; its name fixes its content, so a concurrent
        publisher writing the same name writes the same bytes."""
        self.warehouse.store.write_named(full, data)

    def _drop_stale(self, live_dirs: set[str], lock: "PaimonLock") -> None:
        """Remove the Paimon metadata of tables that no longer exist there: of a directory no
        live table has whose schemas name no table live under that name (one dropped, or
        renamed: it is published under its new name, in that name's directory) - asked of the catalog
        again, holding the Paimon lock exclusively. (Another process may have created and
        published a table since this pass read the catalog: its schemas name it, and it is
        live by then.)"""
        root, stale = self.warehouse.root, []
        for db_dir in self.warehouse.fs.database_dirs(root):
            for name in self.warehouse.fs.listdir(os.path.join(root, db_dir)):
                rel = os.path.join(db_dir, name)
                if rel not in live_dirs and os.path.isdir(os.path.join(root, rel, "schema")):
                    stale.append(PaimonTable(os.path.join(root, rel), self.warehouse.fs))
        if stale:
            with lock.exclusive():
                live = {v.table_id: table_dir(v.db, v.name) for v in self.warehouse.refresh().tables.values()}
                for paimon in stale:
                    owners = _owners(paimon)
                    here = os.path.relpath(paimon.dir, root)
                    if owners and not any(live.get(owner) == here for owner in owners):
                        paimon.drop_metadata()


class _Dropped(Exception):
    """The table being published was dropped since the pass read the catalog."""


class PaimonLock:
    """``_txlog/PAIMON``, flock(2)ed shared for a publishing pass and for expiry's reading and
    removing of Paimon snapshots; ``exclusive()`` for the removal of a table directory's
    metadata, which no pass of any process may be writing to, nor an expiry reading, meanwhile
    (else a snapshot a pass then writes names manifests already removed, and an expiry fails
    on a file gone under it). The lock is converted on the same open file, so a pass never
    waits for itself; the conversion is not atomic, which is why what is removed is decided
    again after it."""

    def __init__(self, path: str):
        self.path = path

    @staticmethod
    def of(warehouse) -> "PaimonLock":
        return PaimonLock(os.path.join(warehouse.txlog.dir, PAIMON_LOCK))

    def __enter__(self) -> "PaimonLock":
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(self._fd, fcntl.LOCK_SH)
        return self

    def __exit__(self, *exc) -> None:
        os.close(self._fd)  # (releases the lock)

    @contextmanager
    def exclusive(self):
        fcntl.flock(self._fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(self._fd, fcntl.LOCK_SH)


def _owners(paimon: PaimonTable) -> set[str | None]:
    """The txlake table ids the schemas in a Paimon table directory name."""
    return {paimon.schema_options(i).get(TABLE_ID_OPTION) for i in paimon.schema_ids()}
