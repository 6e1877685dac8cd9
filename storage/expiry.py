"""Snapshot expiry, reader leases and orphan-file removal.

Every commit (CSN) is a snapshot that time travel can read. ``expire_snapshots`` moves the
warehouse's *expiry horizon* forward: snapshots before it can no longer be read, and the files
only they needed are deleted - txlake data files and Paimon snapshots, manifests and rewritten
files. The horizon never passes

- the newest snapshot,
- the oldest snapshot any open transaction in this process reads, and
- the oldest snapshot of any other live process, which each process advertises in a *reader
  lease* (``_readers/<commit user>.json``, kept by its background maintenance; a lease not
  refreshed within ``LEASE_SECONDS`` belongs to a process that is gone). A lease is rewritten
  only when it must be: before the process reads a snapshot older than the one it advertises
  (or any, after advertising none), and every ``LEASE_RENEW_SECONDS``. Advertising an older
  snapshot than the process still reads is safe (others' expiry keeps a little more for a
  while). A lease matters only while its process lives, so it is not fsync'd: after a crash
  it lapses anyway;
- the snapshot of any unfinished prepared transaction (COMMIT PREPARED reads it).

Nor are the files of each table's newest published Paimon snapshot deleted: other engines read
it until publishing catches up.

``remove_orphan_files`` deletes files in table directories that nothing references - neither
the log, nor any Paimon snapshot, nor an unfinished prepared transaction, nor an open
transaction of this process that spilled rows - and that are older than a grace period, so a
commit still writing its files is never touched. So it does the number files of dropped
sequences (``_sequences/<id>``): one is referenced while a snapshot still readable has its
sequence (a transaction that took it may still call ``nextval``), or a later entry or an
unfinished prepared transaction creates it; a CREATE SEQUENCE not yet committed has only the
grace period, and its commit fails if its file went meanwhile, as a data file's does.
"""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import dataclass

from txlake import errors
from txlake.storage.datafiles import table_dir
from txlake.storage.format.paimon import PaimonTable
from txlake.storage.fs import LocalFileSystem
from txlake.storage.prepared import PRECOMMITTED, PREPARED_DIR
from txlake.storage.publish import PaimonLock, written_by_publisher
from txlake.storage.sequences import SEQUENCES_DIR, sequence_file
from txlake.storage.version import ChangeData, CreateTable

EXPIRY_FILE = os.path.join("_txlog", "expired.json")
EXPIRE_LOCK = "EXPIRE"  # in the log's directory: flock(2)ed by the expiry running
EXPIRE_WAIT_SECONDS = 60.0
READERS_DIR = "_readers"
LEASE_SECONDS = 60.0
LEASE_RENEW_SECONDS = LEASE_SECONDS / 4
FORGOTTEN_LEASE_SECONDS = 24 * 3600.0  # lapsed leases older than this are deleted
# unreferenced manifests and published rewrites younger than this may be in flight
METADATA_GRACE_SECONDS = 600.0


@dataclass(frozen=True)
class ExpireResult:
    horizon: int            # snapshots before this CSN are expired
    data_files_deleted: int
    paimon_snapshots_deleted: int
    metadata_files_deleted: int


def expired_before(warehouse) -> int:
    try:
        return json.loads(warehouse.fs.read_bytes(os.path.join(warehouse.root, EXPIRY_FILE)))["before_csn"]
    except FileNotFoundError:
        return 0


class Lease:
    """This process's reader lease in a warehouse: what it last advertised, and when.

    Background maintenance advertises the oldest snapshot the process reads (``advertise``);
    a snapshot taken older than the lease says - or while it says none, the process having
    been idle - is covered before anything of it is read (``cover``), and the expiry horizon
    read after that write: an expiry that did not see the lease has moved the horizon already,
    and the snapshot is taken again (Dekker's order: each side writes, then reads the other's;
    ``expire_snapshots`` reads the leases again after writing its horizon)."""

    def __init__(self, warehouse):
        self.warehouse = warehouse
        self.csn: int | None = None
        self.written: float | None = None  # time.monotonic() of the last write
        self.covers = 0  # ``cover`` writes: an advertisement computed before one is stale
        self._lock = threading.Lock()

    def advertise(self, oldest_csn: int | None, covers: int | None = None) -> bool:
        """Make the lease cover ``oldest_csn``, the oldest snapshot this process still reads
        (None: none open), found when ``covers`` was the count of ``cover`` writes (a later
        one may have covered an older snapshot: then the lease is not moved on); True if
        that took a write."""
        with self._lock:
            covered = oldest_csn is None or (self.csn is not None and self.csn <= oldest_csn)
            if covered and covers is not None and covers != self.covers:
                return False  # (a cover since: its snapshot may be older than oldest_csn)
            if self.written is not None and covered and time.monotonic() - self.written < LEASE_RENEW_SECONDS:
                return False
            self._write(oldest_csn)
            return True

    def cover(self, csn: int) -> bool:
        """Before a snapshot at ``csn`` is read: the lease covers it; True if that took a write
        (the caller then checks the expiry horizon: ``expired_before``)."""
        if self.csn is not None and self.csn <= csn:
            return False
        with self._lock:
            if self.csn is not None and self.csn <= csn:
                return False
            self._write(csn)
            self.covers += 1
            return True

    def withdraw(self) -> None:
        """The process stops reading the warehouse: its lease goes (it held others' expiry
        back until it lapsed)."""
        with self._lock:
            if self.written is not None:
                wh = self.warehouse
                LocalFileSystem(durable=False).remove(os.path.join(wh.root, READERS_DIR, f"{wh.commit_user}.json"))
                self.csn = self.written = None

    def _write(self, csn: int | None) -> None:
        wh = self.warehouse
        _write_lease(LocalFileSystem(durable=False), wh.root, wh.commit_user, csn)
        self.csn, self.written = csn, time.monotonic()


def _write_lease(fs, root: str, owner: str, oldest_csn: int | None) -> None:
    directory = os.path.join(root, READERS_DIR)
    fs.makedirs(directory)
    doc = {"oldest_csn": oldest_csn, "pid": os.getpid(), "time": time.time()}
    fs.write_atomic(os.path.join(directory, f"{owner}.json"), json.dumps(doc).encode())


def hold_snapshot(root: str, owner: str, csn: int) -> None:
    """A lease held by something that is not a txlake process - a Spark job's readers: written
    when the job plans its read, renewed as its tasks start; it lapses ``LEASE_SECONDS`` after
    the last task began."""
    try:
        os.utime(os.path.join(root, READERS_DIR, f"{owner}.json"))
    except FileNotFoundError:
        _write_lease(LocalFileSystem(durable=False), root, owner, csn)


def oldest_leased(warehouse) -> int | None:
    """The oldest snapshot another process's live lease holds (this process's own is not
    counted: its open transactions say the same, up to date - its lease may be older)."""
    directory = os.path.join(warehouse.root, READERS_DIR)
    oldest = None
    now = time.time()
    for name in warehouse.fs.listdir(directory):
        if name == f"{warehouse.commit_user}.json":
            continue
        path = os.path.join(directory, name)
        try:
            age = now - os.path.getmtime(path)
            if age > LEASE_SECONDS:
                if age > FORGOTTEN_LEASE_SECONDS:  # its process or Spark job is long gone
                    warehouse.fs.remove(path)
                continue
            csn = json.loads(warehouse.fs.read_bytes(path)).get("oldest_csn")
        except (FileNotFoundError, ValueError):
            continue
        if csn is not None:
            oldest = csn if oldest is None else min(oldest, csn)
    return oldest


def expire_snapshots(warehouse, *, older_than_ms: int | None = None, retain_last: int = 1,
                     in_use_csn: int | None = None) -> ExpireResult:
    """Move the horizon, one expiry at a time in the warehouse (two at once: the one with the
    lower horizon found the other's files gone, 22023)."""
    with warehouse.fs.try_lock(os.path.join(warehouse.txlog.dir, EXPIRE_LOCK), wait=EXPIRE_WAIT_SECONDS) as mine:
        if not mine:
            raise errors.LockNotAvailable("another expire_snapshots is still running")
        return _expire_snapshots(warehouse, older_than_ms, retain_last, in_use_csn)


def _expire_snapshots(warehouse, older_than_ms: int | None, retain_last: int, in_use_csn: int | None) -> ExpireResult:
    latest = warehouse.refresh()
    horizon = max(latest.csn - max(retain_last, 1) + 1, 0)
    if older_than_ms is not None:
        horizon = min(horizon, warehouse.csn_at(older_than_ms) + 1 if warehouse.csn_at(older_than_ms) else 1)
    prepared = [r.snapshot_csn for r in warehouse.prepared.claims()]  # (COMMIT PREPARED reads its snapshot)
    for pinned in (in_use_csn, oldest_leased(warehouse), *prepared):
        if pinned is not None:
            horizon = min(horizon, pinned)
    previous = expired_before(warehouse)
    if horizon <= previous:
        return ExpireResult(previous, 0, 0, 0)
    warehouse.fs.write_atomic(os.path.join(warehouse.root, EXPIRY_FILE),
                              json.dumps({"before_csn": horizon}).encode())
    # a process that began reading meanwhile wrote its lease before it read this horizon: if
    # it read the one before, it reads a snapshot before this one, whose files stay
    deleting = _readable_from(warehouse, horizon)
    # txlake data files referenced only by snapshots before the horizon, and not by the newest
    # published Paimon snapshot of their table (other engines read it until the next one)
    kept_version = warehouse.catalog_at(deleting, expired=True)
    kept = {f.path for t in kept_version.tables.values() for f in t.files}
    dead, added_later = set(), set()
    for entry in warehouse.txlog.entries_after(0):
        for change in entry.changes:
            if isinstance(change, ChangeData):
                paths = {f.path for f in change.added}
                (dead if entry.csn <= deleting else added_later).update(paths)
    # the Paimon snapshots before the horizon go first: killed midway, an expiry leaves Paimon
    # snapshots that still read every file they name (and orphans), never one naming a file
    # already gone - which the next expiry, finding the horizon moved, would leave so
    with PaimonLock.of(warehouse):  # (no publisher removes a dropped table's metadata meanwhile)
        published = _published(warehouse, latest)
        snaps, meta = _expire_paimon(warehouse, latest, deleting, dead | kept | added_later)
    data_deleted = 0
    for path in dead - kept - added_later - published:
        full = os.path.join(warehouse.root, path)
        if os.path.exists(full):
            warehouse.fs.remove(full)
            data_deleted += 1
    return ExpireResult(horizon, data_deleted, snaps, meta)


def _readable_from(warehouse, horizon: int) -> int:
    """The oldest snapshot whose files must stay: the horizon's, or an older one a reader
    leased after the expiry that set the horizon looked (it reads what it took before it saw
    the horizon; it had written its lease first)."""
    leased = oldest_leased(warehouse)
    return horizon if leased is None else min(horizon, leased)


def _published(warehouse, latest) -> set[str]:
    """The txlake data files the newest Paimon snapshot of each table reads."""
    files = set()
    for version in latest.tables.values():
        rel = table_dir(version.db, version.name)
        paimon = PaimonTable(os.path.join(warehouse.root, rel), warehouse.fs)
        ids = paimon.snapshot_ids()
        if ids:
            files |= {os.path.join(rel, name) for name in paimon.snapshot(ids[-1]).files}
    return files


def _expire_paimon(warehouse, latest, horizon: int, internal: set[str]) -> tuple[int, int]:
    """Drop Paimon snapshots showing states before the horizon (keeping each table's newest),
    then the manifests and rewritten data files no remaining snapshot references (``internal``:
    the files the log names, which are the caller's to delete)."""
    snapshots_deleted = metadata_deleted = 0
    for version in latest.tables.values():
        rel = table_dir(version.db, version.name)
        paimon = PaimonTable(os.path.join(warehouse.root, rel), warehouse.fs)
        ids = paimon.snapshot_ids()
        if len(ids) < 2:
            continue
        states = {i: paimon.snapshot(i) for i in ids}
        doomed = [i for i in ids[:-1] if states[i].commit_identifier < horizon]
        if not doomed:
            continue
        keep = [states[i] for i in ids if i not in doomed]
        live_manifests, live_files = set(), set()
        for s in keep:
            live_manifests |= s.metadata_files
            live_files |= set(s.files)
        for i in doomed:  # oldest first, so readers following ids never meet a gap mid-history
            warehouse.fs.remove(os.path.join(paimon.dir, "snapshot", f"snapshot-{i}"))
            snapshots_deleted += 1
        cutoff = time.time() - METADATA_GRACE_SECONDS
        for name in warehouse.fs.listdir(os.path.join(paimon.dir, "manifest")):
            path = os.path.join(paimon.dir, "manifest", name)
            # a publisher may be writing manifests for a snapshot it has not created yet
            if name not in live_manifests and _older_than(path, cutoff):
                warehouse.fs.remove(path)
                metadata_deleted += 1
        for s in (states[i] for i in doomed):
            for name in s.files:
                full = os.path.join(paimon.dir, name)
                if name not in live_files and os.path.join(rel, name) not in internal and os.path.exists(full):
                    warehouse.fs.remove(full)
                    metadata_deleted += 1
    return snapshots_deleted, metadata_deleted


def _older_than(path: str, cutoff: float) -> bool:
    try:
        return os.path.getmtime(path) < cutoff
    except FileNotFoundError:
        return False


def remove_orphan_files(warehouse, older_than_seconds: float = 24 * 3600) -> int:
    """Delete unreferenced files under table directories older than the grace period. A file
    of a prepared transaction not finished yet, or one this process's open transactions
    spilled their rows to, is referenced, whatever its age: its commit will need it. (Another
    process's open transaction's spilled files are kept only by the grace period.)"""
    with warehouse.fs.try_lock(os.path.join(warehouse.txlog.dir, EXPIRE_LOCK), wait=EXPIRE_WAIT_SECONDS) as mine:
        if not mine:
            raise errors.LockNotAvailable("an expire_snapshots is still running")
        return _remove_orphan_files(warehouse, older_than_seconds)


def _remove_orphan_files(warehouse, older_than_seconds: float) -> int:
    """The candidates - files older than the grace period that no Paimon snapshot reads - are
    listed first; what the log and the prepared transactions reference is read after, holding
    the log's lock while the unreferenced candidates go. A commit that lands before it is
    counted; one after it finds, under the same lock, whether a file of its own went (it then
    fails: ``Warehouse._files_gone``). (Read before the listing, the log missed commits landing
    in between, and their files went: with a short grace period, acknowledged commits lost
    theirs.)"""
    cutoff = time.time() - older_than_seconds
    candidates, metadata = [], [warehouse.txlog.dir, os.path.join(warehouse.root, PREPARED_DIR)]
    for db_dir in warehouse.fs.database_dirs(warehouse.root):
        for name in warehouse.fs.listdir(os.path.join(warehouse.root, db_dir)):
            tdir = os.path.join(warehouse.root, db_dir, name)
            candidates += _unpublished_old_files(warehouse, tdir, cutoff)
            metadata += [os.path.join(tdir, "snapshot"), os.path.join(tdir, "schema")]
    candidates += _old_sequence_files(warehouse, cutoff)
    removed = _remove_stale_temporaries(warehouse, metadata, min(cutoff, time.time() - METADATA_GRACE_SECONDS))
    if not candidates:
        return removed
    with warehouse.txlog.locked(EXPIRE_WAIT_SECONDS):
        referenced = _referenced(warehouse)
        for path in candidates:
            if path not in referenced:
                warehouse.fs.remove(path)
                removed += 1
    return removed


def _unpublished_old_files(warehouse, tdir: str, cutoff: float) -> list[str]:
    """The data and manifest files of a table directory older than ``cutoff`` that no Paimon
    snapshot references. A publisher writes manifests and the data files only it writes
    (rewrites, inline bundles, under a temporary name first) before the snapshot that reads
    them: those are no orphans before METADATA_GRACE_SECONDS, whatever the grace asked for
    (taken, the snapshot named a file other engines could not find)."""
    paimon = PaimonTable(tdir, warehouse.fs)
    published, live_meta = set(), set()
    for sid in paimon.snapshot_ids():
        try:
            state = paimon.snapshot(sid)
        except (FileNotFoundError, ValueError):
            continue
        published |= {os.path.join(tdir, f) for f in state.files}
        live_meta |= state.metadata_files
    meta_cutoff = min(cutoff, time.time() - METADATA_GRACE_SECONDS)
    data = [(os.path.join(tdir, "bucket-0", n), meta_cutoff if _published_or_temporary(n) else cutoff)
            for n in warehouse.fs.listdir(os.path.join(tdir, "bucket-0"))]
    meta = [os.path.join(tdir, "manifest", n) for n in warehouse.fs.listdir(os.path.join(tdir, "manifest"))]
    return [path for path, older in data if path not in published and _older_than(path, older)] + \
        [path for path in meta if os.path.basename(path) not in live_meta and _older_than(path, meta_cutoff)]


def _old_sequence_files(warehouse, cutoff: float) -> list[str]:
    """The number files of sequence catalog entries older than ``cutoff`` (not the directories
    of sequences from before they were entries, which nothing drops)."""
    directory = os.path.join(warehouse.root, SEQUENCES_DIR)
    paths = [os.path.join(directory, name) for name in warehouse.fs.listdir(directory) if not _is_temporary(name)]
    return [path for path in paths if os.path.isfile(path) and _older_than(path, cutoff)]


def _remove_stale_temporaries(warehouse, directories: list[str], cutoff: float) -> int:
    """Delete the hidden temporary files (``.<name>.<hex>.tmp``: storage/fs.py) older than
    ``cutoff`` in ``directories``: a file is written under one, then linked or renamed into
    place; a process killed in between left it, and nothing else would ever remove it."""
    removed = 0
    for directory in directories:
        for name in warehouse.fs.listdir(directory):
            path = os.path.join(directory, name)
            if _is_temporary(name) and _older_than(path, cutoff):
                warehouse.fs.remove(path)
                removed += 1
    return removed


def _is_temporary(name: str) -> bool:
    return name.startswith(".") and name.endswith(".tmp")


def _published_or_temporary(name: str) -> bool:
    """A data file only the publisher writes, or a hidden temporary file a file is written
    under before it is renamed into place (``write_parquet_atomic``)."""
    return written_by_publisher(name) or _is_temporary(name)


def _referenced(warehouse) -> set[str]:
    """The files the log names for the snapshots still readable (the oldest's, and those added
    after it), an unfinished prepared transaction's, and this process's unadopted spills - read
    holding the log's lock (a PREPARE writes its record holding it)."""
    warehouse.refresh()
    oldest = _readable_from(warehouse, expired_before(warehouse))
    readable = warehouse.catalog_at(oldest, expired=True).tables.values()
    referenced = {os.path.join(warehouse.root, f.path) for t in readable for f in t.files if f.path}
    sequences = {t.table_id for t in readable if t.is_sequence}
    for entry in warehouse.txlog.entries_after(oldest):
        for change in entry.changes:
            if isinstance(change, ChangeData):
                referenced |= {os.path.join(warehouse.root, f.path) for f in change.added}
            elif isinstance(change, CreateTable) and change.schema.sequence is not None:
                sequences.add(change.table_id)
    for record in warehouse.prepared.records():
        if record.state == PRECOMMITTED:
            referenced |= {os.path.join(warehouse.root, f.path) for c in record.changes for f in c.files if f.path}
            sequences |= {c.table_id for c in record.changes
                          if c.op == "create" and c.schema is not None and c.schema.sequence is not None}
    referenced |= {os.path.join(warehouse.root, sequence_file(table_id)) for table_id in sequences}
    referenced |= {os.path.join(warehouse.root, path) for path in warehouse.store.unadopted_spills()}
    return referenced
