"""A warehouse: the directory, its commit log, its data files and the newest committed state.

Opening a warehouse replays ``_txlog`` into the newest ``CatalogVersion`` (recovery: exactly
the committed transactions, since a transaction is committed iff its entry exists). After
that, ``refresh()`` picks up entries other processes appended; when there are none it learns so
from the log's memory-mapped HEAD, without a system call.

Appending is group commit: committers (and maintenance entries, such as a background
compaction's) queue; one leader at a time writes every queued entry and flushes the log once.
Thread-safety: ``_lock`` guards ``latest``; ``_commit_lock`` serialises this process's appends,
and the log's file lock (``TxLog.locked``) serialises appenders across processes.
"""

from __future__ import annotations

import collections
import json
import os
import threading
import time
import uuid
import weakref
from contextlib import contextmanager
from dataclasses import replace

from txlake import errors
from txlake.storage import checkpoint, failpoints, keys as pk
from txlake.storage.commit import Commit, CommitState, now_ms
from txlake.storage.datafiles import DEFAULT_CACHE_BYTES, DataFileStore
from txlake.storage.fs import LocalFileSystem
from txlake.storage.prepared import PreparedTransactions, check_claims, settled
from txlake.storage.txlog import LogLocked, TxLog
from txlake.storage.version import ENCODED, CatalogVersion, ChangeData, LogEntry, TableVersion

FORMAT_VERSION = 2  # 2: the commit log is segments of lines (1: a file per entry)
RECENT_ENTRIES = 10_000
# other processes' entries kept whole (for SERIALIZABLE key-by-key checks): a snapshot older
# than these is checked table by table
RECENT_FOREIGN_ENTRIES = 1024
# another process committed within this many seconds (as this one saw): row locks are taken
# across processes too (engine/mvcc/locks.py); alone, a process does not pay for them
OTHERS_WRITING_SECONDS = 60.0
# commit_user -> each warehouse open in this process (weakly: one a Spark call dropped leaves)
_THIS_PROCESS: "weakref.WeakValueDictionary[str, Warehouse]" = weakref.WeakValueDictionary()
os.register_at_fork(after_in_child=_THIS_PROCESS.clear)
MARKER = "txlake.json"
DEFAULT_LABEL_RETENTION = 7 * 24 * 3600.0  # seconds a committed label blocks its reuse
# compaction lineage is kept at least this long after its compaction, whatever snapshots are
# advertised: a process advertises its own (reader leases) within seconds of starting
LINEAGE_KEEP_SECONDS = 10.0


_GONE = ("a file this commit wrote was removed before it committed: is remove_orphan_files running "
         "with a grace period shorter than a commit takes?")


def _added_paths(entry: LogEntry) -> list[str]:
    """The Parquet files an entry adds (not its inline rows)."""
    return [f.path for c in entry.changes if isinstance(c, ChangeData) for f in c.added if not f.is_inline]


def _written_keys(entry: LogEntry, deleted_from: dict, table: TableVersion, store: DataFileStore) -> set | None:
    """The primary keys of the rows ``entry`` inserted, updated or deleted in ``table`` (its
    newest version); ``deleted_from``: (table id, file id) -> the file a deletion was in. None
    if that cannot be told from inline rows and those files."""
    names, schema, keys = table.schema.primary_key, table.schema, set()
    for c in entry.changes:
        if c.table_id != table.table_id or (isinstance(c, ChangeData) and c.moved):
            continue  # (a compaction moves rows, changing none)
        if not isinstance(c, ChangeData) or c.schema is not None or c.removed:
            return None
        for f in c.added:
            rows = f.python_rows(schema)
            if rows is None:
                return None
            keys.update(pk.key_tuples(rows, names))
        for fid, positions in c.deleted.items():
            f = deleted_from.get((table.table_id, fid))
            if f is None or f.schema_id != schema.schema_id:
                return None
            keys.update(pk.keys_at(store, table, f, positions))
    return keys


def _data_tables(entry: LogEntry) -> frozenset[str]:
    """Tables whose rows ``entry`` changes; a compaction moves rows without changing any (the
    deletions it carries over were committed by the transactions that made them)."""
    return frozenset(c.table_id for c in entry.changes if not (isinstance(c, ChangeData) and c.moved))


class Warehouse:
    def __init__(self, root: str, *, durable: bool = True, cache_bytes: int = DEFAULT_CACHE_BYTES,
                 commit_timeout: float = 30.0, label_retention: float = DEFAULT_LABEL_RETENTION):
        self.root = os.path.abspath(root)
        self.fs = LocalFileSystem(durable=durable)
        self.fs.makedirs(self.root)
        self._write_marker()
        self.txlog = TxLog(self.root, self.fs)
        self.store = DataFileStore(self.root, self.fs, cache_bytes)
        self.commit_timeout = commit_timeout
        self.commit_user = f"txlake-{uuid.uuid4()}"
        self._own_entry = (self.commit_user, frozenset())  # (``_recent``'s value for them)
        _THIS_PROCESS[self.commit_user] = self
        self._lock = threading.Lock()
        self._commit_lock = threading.Lock()
        # group commit: committers queue here; one leader at a time writes the queue's entry
        self._group = threading.Condition()
        self._queue: list[_Request] = []   # guarded by _group
        self._leading = False              # guarded by _group
        # csn -> (commit user, table ids), guarded by _lock; this process's own entries share
        # one value, without their tables: every reader skips its own commits
        self._recent: dict[int, tuple] = {}
        # csn -> (another process's entry, (table id, file id) -> the file each of its deletions
        # was in), guarded by _lock
        self._foreign: dict[int, tuple[LogEntry, dict]] = {}
        # entries this process has written and not yet flushed, guarded by _lock: refresh() stops
        # before them, so this process's sessions see a commit only once it is durable
        self._unflushed: set[int] = set()
        self._history_cache: dict[int, CatalogVersion] = {}  # time travel, guarded by _lock
        # the system column xmin: table id -> {file id: ((first row, xid of the commit that added
        # the rows from it on), ...)}, from the log's entries up to _creators_csn; built when a
        # statement first names xmin, guarded by _creators_lock (reading the log under it)
        self._creators: dict[str, dict[int, tuple[tuple[int, int], ...]]] = {}
        self._creators_csn = 0
        self._creators_lock = threading.Lock()
        # label -> (CSN, commit time, is a prepared transaction's abort) of the newest entry
        # carrying it, guarded by _lock; a label older than the retention may be used again
        # (exactly-once holds within the retention), an aborted one at once
        self._labels: dict[str, tuple[int, int, bool]] = {}
        # (csn, commit time) of the entries seen, one a second at most, guarded by _lock: how old
        # a CSN is (lineage_horizon)
        self._times: collections.deque[tuple[int, int]] = collections.deque(maxlen=4096)
        # the oldest snapshot CSN this process's running transactions hold (set by the engine)
        self.oldest_snapshot_in_use = lambda: None
        self.label_retention_ms = int(label_retention * 1000)
        start = CatalogVersion(0)
        loaded = checkpoint.load(self)  # (storage/checkpoint.py: replay only the entries after it)
        if loaded is not None:
            start, labels = loaded
            self._labels.update(labels)
        self._checkpoint_csn = start.csn  # the newest checkpoint known, guarded by _lock
        self.latest = self._replay(start)
        self.prepared = PreparedTransactions(self)
        self._hot: tuple[int, frozenset[str]] = (-1, frozenset())
        self.store.hot_paths = self._latest_paths
        self.listeners: list = []  # called with each entry this process commits

    def _write_marker(self) -> None:
        path = os.path.join(self.root, MARKER)
        if not self.fs.exists(path):
            self.fs.put_if_absent(path, json.dumps({"format": FORMAT_VERSION}).encode())
        else:
            meta = json.loads(self.fs.read_bytes(path))
            if meta.get("format") != FORMAT_VERSION:
                raise errors.OperationalError(f"{self.root}: unsupported warehouse format {meta.get('format')}")

    def _replay(self, version: CatalogVersion, upto: int | None = None) -> CatalogVersion:
        """``version`` with the log's entries after it applied (up to ``upto``, if given), as far
        as they are flushed or another process's."""
        while version.csn + 1 not in self._unflushed and (upto is None or version.csn < upto):
            entry = self.txlog.read(version.csn + 1)
            if entry is None:
                break
            before, version = version, version.apply(entry)
            self._remember(entry, before)
        return version

    def _remember(self, entry: LogEntry, before: CatalogVersion | None = None) -> None:
        """Keep who committed what, recently: for cross-process conflict checks. Another
        process's entry is kept whole, with the files its deletions were in (``before``: the
        version it applies to; a file whose every row it deleted leaves the version after it)."""
        own = entry.commit_user == self.commit_user
        self._recent[entry.csn] = self._own_entry if own else (entry.commit_user, _data_tables(entry))
        if not own and before is not None:
            files = {}
            for c in entry.changes:
                table = before.by_id(c.table_id) if isinstance(c, ChangeData) and c.deleted else None
                if table is not None:
                    files.update(((c.table_id, fid), table.file(fid)) for fid in c.deleted)
            self._foreign[entry.csn] = (entry, files)
            if len(self._foreign) > RECENT_FOREIGN_ENTRIES:
                self._foreign.pop(next(iter(self._foreign)))
        if not self._times or entry.time_ms - self._times[-1][1] >= 1000:
            self._times.append((entry.csn, entry.time_ms))
        if entry.label is not None:  # (the abort of a prepared transaction also takes its label)
            self._labels[entry.label] = (entry.csn, entry.time_ms, entry.aborted is not None)
        while len(self._recent) > RECENT_ENTRIES:
            self._recent.pop(next(iter(self._recent)))

    def others_writing(self) -> bool:
        """Has another process committed here lately (``OTHERS_WRITING_SECONDS``), as far as
        this one has read the log? (Its newest entries among those ``_remember`` keeps.)"""
        since = now_ms() - OTHERS_WRITING_SECONDS * 1000
        with self._lock:
            for entry, _ in reversed(self._foreign.values()):
                if entry.time_ms <= since:
                    return False
                if entry.commit_user not in _THIS_PROCESS:
                    return True
        return False

    def foreign_writes(self, after_csn: int, upto_csn: int) -> set[str]:
        """Tables changed by other processes' commits in (after_csn, upto_csn]."""
        changed: set[str] = set()
        for csn in range(after_csn + 1, upto_csn + 1):
            info = self._recent.get(csn)
            if info is None:
                entry = self.txlog.read(csn)
                info = (entry.commit_user, _data_tables(entry)) if entry else None
            if info is not None and info[0] != self.commit_user:
                changed |= info[1]
        return changed

    def _keys_untouched(self, table_id: str, keys: frozenset | None, after_csn: int,
                        latest: CatalogVersion) -> bool:
        """Did other processes' commits in (after_csn, latest] leave every row with a primary
        key in ``keys`` alone - none inserted, updated or deleted? False whenever it cannot be
        told cheaply: a table not read by key alone, an entry no longer kept, rows in Parquet
        (not inline), a deleted row's file compacted since, a schema change."""
        table = latest.by_id(table_id)
        if not keys or table is None or not table.schema.primary_key:
            return False
        for csn in range(after_csn + 1, latest.csn + 1):
            info = self._recent.get(csn)
            if info is None:
                return False
            if info[0] == self.commit_user or table_id not in info[1]:
                continue
            kept = self._foreign.get(csn)
            written = _written_keys(*kept, table, self.store) if kept is not None else None
            if written is None or not written.isdisjoint(keys):
                return False
        return True

    def _latest_paths(self) -> frozenset[str]:
        latest = self.latest
        if self._hot[0] != latest.csn:
            self._hot = (latest.csn, frozenset(f.path for t in latest.tables.values() for f in t.files))
        return self._hot[1]

    def label_commit(self, label: str, aborts: bool = True) -> LogEntry | None:
        """The log entry carrying ``label``, if any (a client asking for the outcome of a
        labelled commit whose reply it lost); ``aborts``: also the entry of a prepared
        transaction's abort (which settles it: a label is unique among the entries settling
        one prepared transaction, but a retry of the job may take it once it is aborted)."""
        self.refresh()
        with self._lock:
            csn = self._label_csn(label, aborts)
        return self.txlog.read(csn) if csn is not None else None

    def committed(self, commit_id: str, after_csn: int) -> LogEntry | None:
        """The entry after ``after_csn`` that committed transaction ``commit_id`` (alone or in a
        group), if any: whether a commit landed that its committer cannot tell (the process that
        wrote it failed, or reported failure, after the entry was durable)."""
        for entry in self.txlog.entries_after(after_csn):
            if entry.commit_id == commit_id or any(cid == commit_id for _, cid, _, _ in entry.members):
                return entry
        return None

    def refuse_held_label(self, label: str, gid: str | None = None) -> None:
        """42710 if a prepared transaction not finished yet (other than ``gid``) carries
        ``label``: its COMMIT PREPARED will use it. (Taken by another commit, the label made
        that COMMIT PREPARED report success and drop the prepared transaction's changes: a
        label in the log is how a prepared transaction is known to have committed.)"""
        for record in self.prepared.claims():
            if record.label == label and record.gid != gid:
                raise errors.DuplicateObject(f'label "{label}" is held by prepared transaction "{record.gid}"')

    def _label_csn(self, label: str, aborts: bool = True) -> int | None:
        found = self._labels.get(label)
        if found is None or found[1] < now_ms() - self.label_retention_ms or (found[2] and not aborts):
            return None
        return found[0]

    def refresh(self) -> CatalogVersion:
        """The newest committed catalog version, including other processes' commits."""
        latest, head = self.latest, self.txlog.head()
        if head == latest.csn:  # nothing written since: no lock, no system call
            return latest
        with self._lock:  # (up to HEAD: no read past the last entry to find it was the last)
            newer = self._replay(self.latest, head if head > latest.csn else None)
            self.latest = newer
            return newer

    def catalog_at(self, csn: int, *, expired: bool = False) -> CatalogVersion:
        """The catalog as of commit ``csn`` (replayed from the log, from the nearest cached
        older version or checkpoint); ``expired``: also of an expired snapshot (maintenance
        working out which files a reader that took it may still read)."""
        if csn >= self.latest.csn:
            return self.latest
        from txlake.storage.expiry import expired_before
        if not expired and csn < expired_before(self):
            from txlake import errors
            raise errors.InvalidParameterValue(f"snapshot {csn} has expired")
        with self._lock:
            start = max((c for c in self._history_cache if c <= csn), default=None)
            version = self._history_cache[start] if start is not None else CatalogVersion(0)
        if csn - version.csn > checkpoint.CHECKPOINT_ENTRIES:
            loaded = checkpoint.load(self, at_most=csn)
            if loaded is not None and loaded[0].csn > version.csn:
                version = loaded[0]
        for entry in self.txlog.entries_after(version.csn):
            if entry.csn > csn:
                break
            version = version.apply(entry)
        with self._lock:
            self._history_cache[csn] = version
            while len(self._history_cache) > 16:
                self._history_cache.pop(next(iter(self._history_cache)))
        return version

    def lineage_horizon(self) -> int:
        """A CSN no snapshot anything may still commit or follow rows from is older than: the
        oldest of this process's running transactions' snapshots, the snapshots other
        processes advertise (reader leases), prepared transactions' snapshots, and the newest
        commit this process saw that is ``LINEAGE_KEEP_SECONDS`` old (0 if none). Compaction
        lineage from before it may be forgotten (storage/maintenance.py)."""
        from txlake.storage.expiry import oldest_leased
        cutoff = now_ms() - int(LINEAGE_KEEP_SECONDS * 1000)
        with self._lock:
            latest = self.latest
            aged = latest.csn if latest.time_ms <= cutoff else \
                max((c for c, t in self._times if t <= cutoff), default=0)
        held = [self.oldest_snapshot_in_use(), oldest_leased(self),
                *(r.snapshot_csn for r in self.prepared.claims())]
        return min([aged, *(csn for csn in held if csn is not None)])

    def write_checkpoint(self, force: bool = False) -> int | None:
        """Write a checkpoint of the newest committed version if one is due (or ``force``):
        its CSN, or None (storage/checkpoint.py). Background maintenance calls it."""
        with self._lock:
            latest, known = self.latest, self._checkpoint_csn
        if not force and not checkpoint.due(latest, known):
            return None
        newest = max(checkpoint.checkpoint_csns(self), default=0)  # another process's, maybe
        if newest >= latest.csn or (not force and not checkpoint.due(latest, newest)):
            with self._lock:
                self._checkpoint_csn = max(self._checkpoint_csn, newest)
            return None
        cutoff = now_ms() - self.label_retention_ms
        with self._lock:  # (labels of entries after ``latest`` are left out by checkpoint.write)
            labels = {label: found for label, found in self._labels.items() if found[1] >= cutoff}
        checkpoint.write(self, latest, labels)
        with self._lock:
            self._checkpoint_csn = max(self._checkpoint_csn, latest.csn)
        return latest.csn

    def csn_at(self, time_ms: int) -> int:
        """The newest commit made at or before ``time_ms`` (0 if none)."""
        csn = self.latest.csn
        while csn > 0:
            entry = self.txlog.read(csn)
            if entry is not None and entry.time_ms <= time_ms:
                return csn
            csn -= 1
        return 0

    def creators(self, table_id: str) -> dict[int, tuple[tuple[int, int], ...]]:
        """File id -> where its rows came from: (first row position, XID of the transaction whose
        commit added the row) pairs, by position, each holding up to the next - for the files of
        table ``table_id`` that the log's commits added (a group entry's by each member's XID; a
        Spark job's files carry the XID 0 its entry has). A compaction's file takes each row's
        pair from the file it moved the row from (``ChangeData.moved``): as PostgreSQL's VACUUM,
        it never changes a row's xmin. The log is read once, then only its new entries; the dict
        is the caller's to read, not to change."""
        with self._creators_lock:
            for entry in self.txlog.entries_after(self._creators_csn):
                members = entry.members or ((entry.xid, entry.commit_id, 0, len(entry.changes)),)
                for xid, _, start, end in members:
                    for change in entry.changes[start:end]:
                        if isinstance(change, ChangeData) and (change.added or change.moved):
                            by_file = self._creators.setdefault(change.table_id, {})
                            for f in change.added:
                                by_file[f.file_id] = ((0, xid),)
                            by_file.update(_moved_creators(by_file, change.moved))
                self._creators_csn = entry.csn
            return dict(self._creators.get(table_id, {}))

    def history(self, table_id: str):
        """The log entries that changed table ``table_id``, oldest first."""
        for entry in self.txlog.entries_after(0):
            if table_id in entry.tables():
                yield entry

    def commit(self, commit: Commit) -> LogEntry | None:
        """Make ``commit`` durable as the next log entry; None if it changes nothing.

        Raises SerializationFailure / UniqueViolation / DuplicateTable when the data-conflict
        check fails (the commit is then aborted and its files removed), CommitFailed on
        timeout or I/O failure - 08007 if the entry was written but its flush failed: the
        outcome is unknown, and the commit's files stay.
        """
        if commit.empty:
            return None
        try:
            try:
                commit.prepare()
            except FileNotFoundError:
                raise
            except OSError as e:  # (a full disk, a permission refused: nothing is logged)
                raise errors.CommitFailed(f"could not write the commit's data files: {e.strerror or e}",
                                          sqlstate=errors.file_error_sqlstate(e)) from e
            failpoints.reached("after-prepare")
            entry = self._append(commit)
            failpoints.reached("after-log")
        except FileNotFoundError:  # a file it was writing went (remove_orphan_files, a short grace)
            commit.abort()
            raise errors.CommitFailed(_GONE) from None
        except BaseException as e:
            if not isinstance(e, errors.CommitOutcomeUnknown):  # (logged, unflushed: its files may be needed)
                commit.abort()
            raise
        commit.state = CommitState.COMMITTED
        for listener in self.listeners:
            listener(entry)
        return entry

    def append_rebased(self, build, patience: float = 0.0) -> LogEntry | None:
        """Append the entry ``build(newest catalog version)`` makes (a maintenance commit
        rebased on whatever committed meanwhile); None if ``build`` gives up. It waits up to
        ``patience`` seconds for a committer to take it into a group: it then shares that
        group's write and flush, and never holds commits up with a flush of its own."""
        request = _Request(build=build)
        self._enqueue(request, patience)
        if request.entry is not None:
            for listener in self.listeners:
                listener(request.entry)
        return request.entry

    def _append(self, commit: Commit) -> LogEntry:
        request = _Request(commit)
        self._enqueue(request)
        return request.entry

    def _enqueue(self, request: "_Request", patience: float = 0.0) -> None:
        """Group commit: wait while another thread is appending (and, for a maintenance entry,
        up to ``patience`` seconds for a committer to come); whoever finds no leader leads and
        appends every queued request at once. Maintenance entries and commits without a label
        share one write and one flush; a labelled commit is appended alone (its label names
        one entry). Raises the request's failure."""
        with self._group:
            self._queue.append(request)
            deadline = time.monotonic() + patience
            while not request.done:
                if self._leading:
                    self._group.wait()
                elif (left := deadline - time.monotonic()) > 0:
                    self._group.wait(left)
                else:
                    break
            if not request.done:
                self._leading = True
                batch, self._queue = self._queue, []
        if not request.done:
            try:
                with self._commit_lock:
                    shared = [r for r in batch if r.commit is None or r.commit.label is None]
                    alone = [[r] for r in batch if r.commit is not None and r.commit.label is not None]
                    for part in ([shared] if shared else []) + alone:
                        self._append_group(part)
            except BaseException as e:  # each committer still waiting gets the failure
                for r in batch:
                    if not r.done:
                        r.finish(error=e)
            finally:
                with self._group:
                    self._leading = False
                    self._group.notify_all()
        if request.error is not None:
            raise request.error

    def _append_group(self, requests: list["_Request"]) -> None:
        """Append the maintenance entries among ``requests`` (each built on the newest version),
        then vote every commit against the version after them (each after the ones before it)
        and append their changes as one entry. The log's lock is held from reading the newest
        version to writing the last entry, so no other process can take a CSN in between (a
        vote taken before it stands only if that version is still the newest: ``_vote_early``);
        one flush follows, after the lock, for every entry written (whatever failed after them)."""
        written: list[LogEntry] = []
        built: dict[int, tuple[CatalogVersion, CatalogVersion]] = {}  # csn -> (version before, after)
        voted, failure = [], None
        early = self._vote_early(requests)
        with self._log_locked():
            try:
                latest = self.refresh()
                for r in (r for r in requests if r.build is not None):
                    try:
                        entry = r.build(latest)
                    except Exception as e:  # (fails the maintenance alone)
                        r.finish(error=e)
                        continue
                    if entry is not None and self._paths_gone(_added_paths(entry)):
                        r.finish(error=errors.CommitFailed(_GONE))  # (a compaction's file an orphan pass took)
                        continue
                    if entry is not None and self._write(entry):
                        written.append(entry)
                        built[entry.csn] = (latest, latest.apply(entry))
                        latest = built[entry.csn][1]
                        r.entry = entry
                        with self._lock:  # (a SERIALIZABLE vote below asks who wrote it)
                            self._remember(entry)
                commits = [r for r in requests if r.commit is not None and not r.done]
                if early is not None and early[0] is latest and early[1] == self.txlog.prepared_changes() \
                        and settled(early[1]):
                    voted = early[2]  # nothing committed or prepared since: that vote stands
                else:
                    voted = self._vote_group(commits, latest) if commits else []
                gone = [r for r, _ in voted if self._files_gone(r.commit)]
                if gone:  # (the others are voted again, without those: under the lock, as ever)
                    for r in gone:
                        r.finish(error=errors.CommitFailed(_GONE))
                    voted = self._vote_group([r for r, _ in voted if r not in gone], latest)
                if voted:
                    group = voted[0][1] if len(voted) == 1 else self._group_entry(voted)
                    failpoints.reached("before-log")
                    if not self._write(group):  # pragma: no cover - the lock excludes other appenders
                        raise errors.CommitFailed(f"commit sequence number {group.csn} was taken under the log lock")
                    written.append(group)
            except BaseException as e:
                failure, voted = e, []
        if written:
            self._made_durable(written, built)  # raises: every request still waiting fails with it
        for r in requests:
            if r.build is not None and not r.done:
                r.finish(entry=r.entry)
        if failure is not None:
            raise failure
        for r, e in voted:
            r.finish(entry=group.member(e.commit_id))

    def _vote_early(self, requests: list["_Request"]):
        """(the newest version, the count of prepared-transaction changes, the group's vote
        against them), before the log's lock is taken, for a group of commits only: what other
        processes appended is read and applied, and the group voted, outside the lock; holding
        it, the vote stands if nothing was appended or prepared meanwhile. The lock is then
        held for a look at the log's end and one write, not for replaying and voting - which,
        with more processes than cores, the scheduler may preempt while every other process
        waits for the lock. A commit the early vote refuses is refused: a conflict found stays
        one against any newer version."""
        if any(r.commit is None for r in requests):
            return None  # (a maintenance entry is built holding the lock, and commits voted after it)
        prepared = self.txlog.prepared_changes()  # (read first: a change after it is seen below)
        latest = self.refresh()
        return latest, prepared, self._vote_group(requests, latest)

    def _files_gone(self, commit: Commit) -> bool:
        """Has a file ``commit`` wrote gone (remove_orphan_files, whose deletions hold the log's
        lock, took it for an orphan)? Its entry would name a file no reader finds."""
        return self._paths_gone([f.path for f in commit.written_files()] + commit.sequence_files())

    def _paths_gone(self, paths) -> bool:
        return any(not os.path.exists(os.path.join(self.root, path)) for path in paths)

    def _vote_group(self, commits: list["_Request"], latest: CatalogVersion) -> list[tuple["_Request", LogEntry]]:
        """Vote each commit against ``latest`` plus the members voted before it; a commit the
        vote refuses is finished with its error."""
        csn, time_ms = latest.csn + 1, now_ms()
        version, applied, changes, voted = latest, 0, [], []
        for r in commits:
            if len(changes) > applied:  # vote against the members before it (applied lazily:
                # a group of one is applied once, when it is written)
                version = latest.apply(replace(voted[-1][1], changes=tuple(changes)))
                applied = len(changes)
            try:
                entry = self._vote(r.commit, version, latest, csn, time_ms)
            except Exception as e:
                r.finish(error=e)
                continue
            changes.extend(entry.changes)
            voted.append((r, entry))
        return voted

    def _group_entry(self, voted: list[tuple["_Request", LogEntry]]) -> LogEntry:
        """One entry holding every voted member's changes (``members`` says whose are whose)."""
        members, changes = [], []
        for _, e in voted:
            if e.changes:
                members.append((e.xid, e.commit_id, len(changes), len(changes) + len(e.changes)))
                changes.extend(e.changes)
        first = voted[0][1]
        return LogEntry(first.csn, max(e.xid for _, e in voted), self.commit_user, f"group-{first.commit_id}",
                        first.time_ms, tuple(changes), members=tuple(members))

    @contextmanager
    def _log_locked(self):
        try:
            with self.txlog.locked(self.commit_timeout):
                yield
        except LogLocked as e:
            raise errors.CommitFailed(f"commit timed out: {e}") from None

    def _vote(self, commit: Commit, version: CatalogVersion, latest: CatalogVersion, csn: int,
              time_ms: int) -> LogEntry:
        """``commit``'s entry against ``version`` (``latest`` plus the group's earlier members),
        after the checks no other transaction's changes may fail: labels, SERIALIZABLE reads
        across processes, prepared transactions' claims."""
        used_by = self._label_csn(commit.label, commit.settles_prepared) if commit.label is not None else None
        if used_by is not None:
            raise errors.DuplicateObject(f'label "{commit.label}" is already used by commit {used_by}')
        if commit.label is not None:
            self.refuse_held_label(commit.label, commit.commit_id)
        if commit.read_tables and commit.snapshot_csn is not None:
            clash = {t for t in self.foreign_writes(commit.snapshot_csn, latest.csn) & commit.read_tables
                     if not self._keys_untouched(t, commit.read_keys.get(t), commit.snapshot_csn, latest)}
            if clash:
                raise errors.SerializationFailure(
                    "could not serialize access: another process changed a table this "
                    "SERIALIZABLE transaction read")
        entry = commit.vote(version, csn, time_ms)
        if entry.changes:
            check_claims(self.prepared.claims(excluding_label=commit.label), entry, version, self.store)
        return entry

    def _write(self, entry: LogEntry) -> bool:
        """Write ``entry`` to the log (under the log lock; ``_made_durable`` follows it, after
        the lock); False if another process took its CSN."""
        with self._lock:  # marked before the line exists: a refresh() by another thread of this
            self._unflushed.add(entry.csn)  # process stops before it (not shown before _made_durable)
        written = False
        try:
            written = self.txlog.append(entry, self.commit_timeout)
        except OSError as e:
            stored = self.txlog.read(entry.csn)
            if stored is None or (stored.commit_user, stored.commit_id) != (entry.commit_user, entry.commit_id):
                raise errors.CommitFailed(f"could not write commit log entry: {e}",
                                          sqlstate=errors.file_error_sqlstate(e)) from e
            written = True  # the write landed although it reported an error
        finally:
            if not written:
                self._unmark(entry.csn)
        if written:  # the log holds the inline rows now: their encoding for it is not kept
            for change in entry.changes:
                for f in getattr(change, "added", ()):
                    f.caches.pop(ENCODED, None)
        return written

    def _unmark(self, csn: int) -> None:
        with self._lock:
            self._unflushed.discard(csn)

    def _made_durable(self, entries: list[LogEntry],
                      built: dict[int, tuple[CatalogVersion, CatalogVersion]] | None = None) -> None:
        """Flush the log up to the last of ``entries`` (consecutive, just written), then show them
        to this process's sessions (as built, inline rows still decoded: not re-read from the log).
        ``built``: csn -> (version, version after the entry), for entries applied and remembered
        already (maintenance entries, under the log lock); used while that version is the newest.
        The versions the others make are built while the kernel flushes (``_build_ahead``)."""
        built = built or {}
        try:
            ahead = self.txlog.sync(entries[-1].csn, lambda: self._build_ahead(entries, built))
        except OSError as e:
            for entry in entries:  # in the log nonetheless: refresh() reads them from there
                self._unmark(entry.csn)
            # the entry may be durable, and others may read it: its commits' files must stay
            # (``commit`` does not abort a commit whose outcome is unknown)
            raise errors.CommitOutcomeUnknown(
                f"could not flush the commit log ({e}): the outcome of the commit is unknown") from e
        with self._lock:
            for entry in entries:
                if self.latest.csn < entry.csn:  # (the replay stops before the entry: still unflushed)
                    before = self._replay(self.latest)
                    known = built.get(entry.csn)
                    if known is not None and known[0] is before:
                        self.latest = known[1]
                    else:
                        known = ahead.get(entry.csn)
                        self.latest = known[1] if known is not None and known[0] is before else before.apply(entry)
                        self._remember(entry)
                self._unflushed.discard(entry.csn)

    def _build_ahead(self, entries: list[LogEntry], built: dict[int, tuple[CatalogVersion, CatalogVersion]]
                     ) -> dict[int, tuple[CatalogVersion, CatalogVersion]]:
        """csn -> (version, version after the entry) for ``entries`` not in ``built``, applied
        in turn to the newest version shown - before they are durable, so shown only after the
        flush, and only if that version is still the newest then (another process's entry may
        come first). Stops at the first entry it cannot build: that one is built after the
        flush, where a failure is the commit's to report."""
        ahead, version = {}, self.latest
        try:
            for entry in entries:
                known = built.get(entry.csn)
                if entry.csn != version.csn + 1 or (known is not None and known[0] is not version):
                    break
                if known is None:
                    known = ahead[entry.csn] = (version, version.apply(entry))
                version = known[1]
        except Exception:
            pass
        return ahead


class _Request:
    """One place in the group-commit queue: a commit, or (``build``) a maintenance entry."""

    def __init__(self, commit: Commit | None = None, build=None):
        self.commit = commit
        self.build = build
        self.done = False
        self.entry: LogEntry | None = None
        self.error: BaseException | None = None

    def finish(self, entry: LogEntry | None = None, error: BaseException | None = None) -> None:
        self.entry, self.error, self.done = entry, error, True


def _moved_creators(by_file: dict, moved) -> dict[int, tuple[tuple[int, int], ...]]:
    """The (first position, XID) pairs of the files a compaction wrote, from those of the files
    it moved rows from (``moved``: old file id -> (new file id, its first row's offset there,
    the old file's rows it left out)); a file of no known commit has the XID 0."""
    made: dict[int, list[tuple[int, int]]] = {}
    for old, (new_id, offset, dead) in sorted(moved.items(), key=lambda item: item[1][:2]):
        pairs = made.setdefault(new_id, [])
        for first, xid in by_file.get(old, ((0, 0),)):
            at = offset + first - (dead.rank(first - 1) if dead and first > 0 else 0)
            if pairs and pairs[-1][0] >= at:  # (the rows before had all been left out)
                pairs.pop()
            if not pairs or pairs[-1][1] != xid:
                pairs.append((at, xid))
    return {new_id: tuple(pairs) for new_id, pairs in made.items()}
