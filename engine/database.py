"""The in-process database instance: one per warehouse per process, shared by its sessions.

Like DuckDB, every ``txlake.connect(path)`` to the same warehouse in one process shares one
``Database``: the XID allocator, the commit log (clog), the set of running transactions (the
"proc array"), the warehouse's caches. Sessions in threads therefore see each other's commits.

``_proc_lock`` guards ``_running``; a snapshot is taken under it so that the set of running
XIDs and the committed catalog version it pairs with are consistent.
"""

from __future__ import annotations

import inspect
import itertools
import os
import threading

from txlake import errors
from txlake.engine.duck import SharedDuckDB
from txlake.engine.mvcc.clog import CommitLog
from txlake.engine.mvcc.gc import GarbageCollector, wants_compaction
from txlake.engine.advisory import AdvisoryLocks
from txlake.engine.backends import Backends
from txlake.engine.mvcc.locks import LockTable, ProcessLocks
from txlake.engine.notify import Queue as NotifyQueue
from txlake.engine.mvcc.ssi import SSI
from txlake.engine.mvcc.snapshot import Snapshot
from txlake.engine.mvcc.xact import READ_COMMITTED, SERIALIZABLE, Transaction, TxnState
from txlake.engine.mvcc.xid import XidAllocator
from txlake.storage import private_files
from txlake.storage.commit import Commit, TableDelta
from txlake.storage.expiry import expired_before
from txlake.storage.prepared import DEFAULT_TIMEOUT as DEFAULT_PREPARED_TIMEOUT
from txlake.storage.version import LogEntry
from txlake.storage.warehouse import DEFAULT_LABEL_RETENTION, Warehouse

ROW_LOCKS_FILE = "ROWLOCKS"  # in the log's directory: row locks across processes (mvcc/locks.py)

DEFAULT_MAX_ACTIVE_TRANSACTIONS = 1000
RECENT_TRANSACTIONS = 100  # finished transactions txlake_transactions() lists

_UNITS = {"": 1, "B": 1, "KB": 1 << 10, "KIB": 1 << 10, "MB": 1 << 20, "MIB": 1 << 20,
          "GB": 1 << 30, "GIB": 1 << 30, "TB": 1 << 40, "TIB": 1 << 40}


def parse_bytes(value: int | str) -> int:
    """A memory size: bytes, or text such as ``'512MB'`` / ``'2 GB'`` (units of 1024)."""
    if isinstance(value, int):
        n = value
    else:
        text = str(value).strip().upper().replace(" ", "")
        digits = text.rstrip("KMGTIB")
        unit = text[len(digits):]
        try:
            n = int(float(digits) * _UNITS[unit])
        except (ValueError, KeyError):
            raise errors.InvalidParameterValue(f'invalid value for memory_limit: "{value}"') from None
    if n < (16 << 20):
        raise errors.InvalidParameterValue("memory_limit must be at least 16MB")
    return n


def default_memory_limit() -> int:
    """A quarter of the machine's memory."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 4
    except (ValueError, OSError, AttributeError):
        return 2 << 30


# connect() options by kind (``Database.__init__`` takes them)
_SECONDS = ("commit_timeout", "gc_interval", "prepared_timeout", "label_retention")
_FLAGS = ("durable", "shared_row_locks")


def check_options(options: dict) -> None:
    """TypeError for an unknown option (as for any unknown keyword), 22023 for a bad value."""
    unknown = set(options) - _OPTIONS
    if unknown:
        raise TypeError(f"connect() got an unexpected keyword argument {sorted(unknown)[0]!r}")
    for name, value in options.items():
        if name in _SECONDS and not (isinstance(value, (int, float)) and not isinstance(value, bool)
                                     and value >= 0 and value == value):
            raise errors.InvalidParameterValue(f"{name} must be a number of seconds, not {value!r}")
        if name in _FLAGS and not isinstance(value, bool):
            raise errors.InvalidParameterValue(f"{name} must be True or False, not {value!r}")
        if name == "max_active_transactions" and not (type(value) is int and value >= 1):
            raise errors.InvalidParameterValue(f"max_active_transactions must be a positive integer, not {value!r}")
        if name == "memory_limit" and value is not None:
            parse_bytes(value)
        if name == "cache_bytes" and value is not None and not (type(value) is int and value >= 0):
            raise errors.InvalidParameterValue(f"cache_bytes must be a number of bytes, not {value!r}")
        if name == "publish" and value not in ("async", "sync", "off"):
            raise errors.InvalidParameterValue(f'publish must be "async", "sync" or "off", not "{value}"')


_registry: dict[str, "Database"] = {}
# re-entrant: the cycle collector may finalise a forgotten connection (whose close releases its
# database here) at any allocation, also inside open_database in the same thread
_registry_lock = threading.RLock()


def open_database(path: str, **options) -> "Database":
    """The shared instance for the warehouse at ``path`` (opened on first use), reference-counted.
    The options are checked at every call, though only the first one's are used: a misspelt
    name or a bad value is an error whether or not the warehouse is open already."""
    check_options(options)
    key = os.path.realpath(path)
    with _registry_lock:
        db = _registry.get(key)
        made = db is None
        if made:
            db = Database(key, **options)
            _registry[key] = db
        db._refs += 1
    if made:  # (outside the lock: Thread.start waits for the new thread, in which the cycle
        db.start()  # collector may finalise a forgotten connection - whose close takes the lock)
    return db


class Database:
    def __init__(self, path: str, *, durable: bool = True, cache_bytes: int | None = None,
                 memory_limit: int | str | None = None,
                 max_active_transactions: int = DEFAULT_MAX_ACTIVE_TRANSACTIONS,
                 commit_timeout: float = 30.0, publish: str = "async", gc_interval: float = 2.0,
                 prepared_timeout: float = DEFAULT_PREPARED_TIMEOUT,
                 label_retention: float = DEFAULT_LABEL_RETENTION, shared_row_locks: bool = False):
        self.memory_limit = parse_bytes(memory_limit) if memory_limit is not None else default_memory_limit()
        kwargs = {"cache_bytes": cache_bytes or self.memory_limit // 2}
        self.path = path
        self.warehouse = Warehouse(path, durable=durable, commit_timeout=commit_timeout,
                                   label_retention=label_retention, **kwargs)
        private_files.remove_dead(self.warehouse.store.root)  # (temp tables' spills a crash left)
        self.xids = XidAllocator(self.warehouse.latest.max_xid + 1)
        self.clog = CommitLog()
        self.locks = LockTable(ProcessLocks.for_path(os.path.join(self.warehouse.txlog.dir, ROW_LOCKS_FILE))
                               if shared_row_locks else None, sharing=self.warehouse.others_writing)
        # update chains of recent commits: table_id -> old row id -> new row id, with the CSN
        # that made them; kept while a running transaction's snapshot may predate them
        self._successors: dict[str, dict[int, int]] = {}
        self._successor_batches: list[tuple[int, str, list[int]]] = []  # guarded by _proc_lock
        self.ssi = SSI(self.warehouse.store)
        self.advisory = AdvisoryLocks(self.warehouse.txlog.dir)
        self.backends = Backends(self.locks, self.advisory)  # its open sessions (pg_stat_activity)
        self.notifications = NotifyQueue(self.warehouse.txlog.dir)  # (LISTEN / NOTIFY: no file until used)
        self._duck: SharedDuckDB | None = None
        self._duck_lock = threading.Lock()
        self.max_active_transactions = max_active_transactions
        self.prepared_timeout = float(prepared_timeout)
        self._vxids = itertools.count(1)
        self._running: dict[int, Transaction] = {}  # vxid -> transaction, guarded by _proc_lock
        self._proc_lock = threading.Lock()
        self._ended = 0  # transactions that left _running, guarded by _proc_lock
        self._last_snapshot = None  # (catalog, xmax, _ended, the snapshot taken then), guarded likewise
        self._refs = 0
        self.warehouse.oldest_snapshot_in_use = lambda: self.horizons()[1]  # (compaction lineage)
        self.gc = GarbageCollector(self, interval=gc_interval)
        self.publisher = None
        if publish != "off":
            # the Paimon writer (fastavro, manifests) loads only for warehouses that publish
            from txlake.storage.publish import Publisher
            self.publisher = Publisher(self.warehouse, mode=publish)

    def start(self) -> None:
        """Start the background threads: garbage collection, and publishing."""
        self.gc.start()
        if self.publisher is not None:
            self.publisher.start()

    # --- transactions --------------------------------------------------------------------

    def begin(self, isolation: str, read_only: bool = False, explicit: bool = True,
              label: str | None = None) -> Transaction:
        with self._proc_lock:
            if len(self._running) >= self.max_active_transactions:
                raise errors.TooManyConnections(
                    f"too many active transactions (max_active_transactions = {self.max_active_transactions})")
            txn = Transaction(next(self._vxids), isolation, read_only=read_only, explicit=explicit, label=label)
            self._running[txn.vxid] = txn
            return txn

    def assign_xid(self, txn: Transaction) -> int:
        """Give ``txn`` an XID at its first write (read-only transactions never need one)."""
        if txn.xid is None:
            with self._proc_lock:
                txn.xid = self.xids.allocate()
                self.clog.begin(txn.xid)
        return txn.xid

    def take_snapshot(self) -> Snapshot:
        """A snapshot of now. The last one is handed out again while nothing it holds changed -
        the newest catalog version, the next XID (moved by every XID assigned) and the set of
        running transactions (``_ended`` counts those leaving it): a READ COMMITTED statement
        takes one, and in a process busy with one session most of them are the same."""
        with self._proc_lock:
            catalog = self.warehouse.refresh()
            if self.gc.lease.cover(catalog.csn) and expired_before(self.warehouse) > catalog.csn:
                catalog = self.warehouse.refresh()  # (an expiry passed it before it saw the lease)
            xmax = self.xids.next_xid
            last = self._last_snapshot
            if last is not None and last[0] is catalog and last[1] == xmax and last[2] == self._ended:
                return last[3]
            xip = frozenset(t.xid for t in self._running.values() if t.xid is not None)
            snapshot = Snapshot(min(xip, default=xmax), xmax, xip, catalog)
            self._last_snapshot = (catalog, xmax, self._ended, snapshot)
            return snapshot

    def commit(self, txn: Transaction) -> LogEntry | None:
        """Commit ``txn``: one log entry for all its changes, or an exception and an abort."""
        try:
            deltas = [TableDelta(tid, txn.bases.get(tid), work) for tid, work in txn.changes.items()]

            commits: list[Commit] = []

            def write_log_entry() -> LogEntry | None:
                if not any(not d.is_noop() for d in deltas):
                    return None
                serializable = txn.isolation == SERIALIZABLE and txn.snapshot is not None
                commit = Commit(self.warehouse.store, deltas, self.assign_xid(txn),
                                self.warehouse.commit_user, txn.label or f"{txn.xid}",
                                snapshot_csn=txn.snapshot.csn if serializable else None,
                                read_tables=self.ssi.tables_read(txn) if serializable else frozenset(),
                                read_keys=self.ssi.keys_read(txn) if serializable else {},
                                label=txn.label)
                commit.read_committed = txn.isolation == READ_COMMITTED
                commit.fk_scanned = txn.fk_scanned
                commits.append(commit)
                return self.warehouse.commit(commit)

            if txn.isolation == SERIALIZABLE:
                entry = self.ssi.commit(txn, deltas, write_log_entry, self.warehouse.latest.csn)
            else:
                entry = write_log_entry()
            if entry is not None and commits:
                self._record_successors(entry, commits[0].successors(entry))
        except BaseException:
            self.abort(txn)
            raise
        if txn.xid is not None:
            if entry is not None:
                self.clog.set_committed(txn.xid, entry.csn)
            else:
                self.clog.set_committed(txn.xid, self.warehouse.latest.csn)
        txn.state = TxnState.COMMITTED
        self._finish(txn)
        if entry is not None:
            crowded = [t for t in entry.tables()
                       if not self.gc.asked(t) and (v := self.warehouse.latest.by_id(t)) and wants_compaction(v)]
            if crowded:
                self.gc.wake(crowded)
        return entry

    def prepare(self, txn: Transaction, gid: str) -> None:
        """PREPARE TRANSACTION: ``txn``'s writes become a durable prepared transaction that any
        session or process finishes (storage/prepared.py); ``txn`` itself ends here."""
        try:
            txn.follow_all()  # (READ COMMITTED: each base is the snapshot's version, as the record says)
            deltas = [d for d in (TableDelta(tid, txn.bases.get(tid), work) for tid, work in txn.changes.items())
                      if not d.is_noop()]
            catalog = txn.snapshot.catalog if txn.snapshot is not None else self.warehouse.latest
            for d in deltas:  # the record names the snapshot; commit rebuilds each base from it
                if d.base is not None and catalog.by_id(d.table_id) is not d.base:
                    raise errors.InternalError(f"transaction base of {d.base.name} is not its snapshot's version")
            serializable = txn.isolation == SERIALIZABLE and txn.snapshot is not None
            self.warehouse.prepared.prepare(
                gid, deltas, xid=self.assign_xid(txn) if deltas else 0, snapshot_csn=catalog.csn,
                started_ms=txn.started_ms, timeout=self.prepared_timeout, label=txn.label,
                read_tables=self.ssi.tables_read(txn) if serializable else frozenset())
        finally:
            self.abort(txn)  # local bookkeeping only: the writes live on in the prepared record

    def finish_prepared(self, gid: str, commit: bool) -> None:
        """COMMIT PREPARED / ROLLBACK PREPARED, from any session of any process."""
        if commit:
            self.warehouse.prepared.commit(gid)
        else:
            self.warehouse.prepared.rollback(gid)

    # --- memory --------------------------------------------------------------------------

    def set_memory_limit(self, limit: int | str) -> None:
        """``SET memory_limit``: half for the buffer cache of decoded data files, a quarter for
        the sessions' DuckDB (query working memory, which spills to disk beyond it)."""
        self.memory_limit = parse_bytes(limit)
        self.warehouse.store.set_budget(self.memory_limit // 2)
        with self._duck_lock:
            if self._duck is not None:
                self._duck.set_memory_limit(self.duckdb_memory_limit)

    def duckdb(self) -> SharedDuckDB:
        """The DuckDB database the sessions share (engine/duck.py), made at the first one's start."""
        with self._duck_lock:
            if self._duck is None:
                self._duck = SharedDuckDB(os.path.join(self.warehouse.root, ""), self.duckdb_memory_limit)
                # (every session's: it asks nothing of the calling one)
                self._duck.con.create_function("pg_blocking_pids", self.backends.blocking_pids, ["INTEGER"],
                                               "INTEGER[]", side_effects=True)
            return self._duck

    @property
    def duckdb_memory_limit(self) -> str:
        return f"{max(self.memory_limit // 4, 16 << 20)}B"

    def memory(self):
        """The ``txlake_memory()`` table: memory use and what the GC and cache did."""
        import pyarrow as pa
        store = self.warehouse.store
        live = self.live_versions()
        stats = [
            ("memory_limit", self.memory_limit), ("cache_limit", store.cache_bytes),
            ("cache_bytes", store.cached_bytes), ("cached_files", store.cached_files),
            ("cache_loads", store.loads), ("cache_evictions", store.evictions),
            ("read_ahead_loads", store.read_ahead), ("index_bytes", store.index_bytes),
            ("index_builds", store.index_builds), ("streamed_scans", store.streamed_scans),
            ("spilled_files", store.spills),
            ("versions_alive", len({id(v) for v in live})), ("transactions_running", self.running),
            ("gc_runs", self.gc.runs), ("clog_entries", len(self.clog)), ("ssi_records", len(self.ssi)),
        ]
        return pa.table({"name": [n for n, _ in stats], "value": pa.array([v for _, v in stats], pa.int64())})

    def transactions(self, recent: int = RECENT_TRANSACTIONS, label: str | None = None):
        """The ``txlake_transactions()`` table: this process's running transactions (PREPARE),
        every prepared transaction's record, and the ``recent`` newest commits of the log;
        with ``label``, only the transactions carrying it, the committed one found in the
        whole log (a client asking for the outcome of a commit whose reply it lost)."""
        import pyarrow as pa
        published = self.publisher.published_csn if self.publisher is not None else None
        rows = []
        with self._proc_lock:
            running = list(self._running.values())
        for t in running:
            rows.append((t.xid, None, t.label, "PREPARE", t.isolation, t.started_ms, None, None, None, None, None))
        prepared = self.warehouse.prepared
        labels, settled = set(), set()
        for r in prepared.records():
            labels.add(r.label)
            settled.add(r.gid)
            state = prepared.state(r, published)
            rows.append((r.xid or None, r.gid, r.label, state, None, r.started_ms, r.prepared_ms,
                         r.finished_ms if state in ("COMMITTED", "VISIBLE") else None, r.finished_ms, r.csn, r.reason))
        latest = self.warehouse.refresh().csn
        if label is not None:
            entries = [self.warehouse.label_commit(label)]
        else:
            entries = (self.warehouse.txlog.read(csn) for csn in range(latest, max(0, latest - recent), -1))
        for entry in entries:
            if entry is None or (entry.label in labels and entry.commit_id in settled):
                continue  # (a prepared one is listed from its record; a retry of its label is not)
            if entry.aborted is not None:
                state = "ABORTED"
            else:
                state = "VISIBLE" if published is not None and entry.csn <= published else "COMMITTED"
            committed = entry.time_ms if entry.aborted is None else None
            rows.append((entry.xid or None, None, entry.label, state, None, None, None, committed, entry.time_ms,
                         entry.csn, entry.aborted))
        if label is not None:
            rows = [r for r in rows if r[2] == label]
        cols = list(zip(*rows)) or [()] * 11
        ts = pa.timestamp("ms")
        return pa.table({
            "xid": pa.array(cols[0], pa.int64()), "gid": pa.array(cols[1], pa.string()),
            "label": pa.array(cols[2], pa.string()), "state": pa.array(cols[3], pa.string()),
            "isolation": pa.array(cols[4], pa.string()), "started_at": pa.array(cols[5], ts),
            "prepared_at": pa.array(cols[6], ts), "committed_at": pa.array(cols[7], ts),
            "finished_at": pa.array(cols[8], ts), "snapshot_id": pa.array(cols[9], pa.int64()),
            "abort_reason": pa.array(cols[10], pa.string())})

    def _record_successors(self, entry: LogEntry, chains: dict[str, dict[int, int]]) -> None:
        with self._proc_lock:
            for table_id, chain in chains.items():
                self._successors.setdefault(table_id, {}).update(chain)
                self._successor_batches.append((entry.csn, table_id, list(chain)))

    def successor(self, table_id: str, rowid: int) -> int | None:
        """The row id that replaced ``rowid`` in a recent committed UPDATE, if any."""
        with self._proc_lock:
            return self._successors.get(table_id, {}).get(rowid)

    def abort(self, txn: Transaction) -> None:
        if txn.isolation == SERIALIZABLE:
            self.ssi.abort(txn)
        if txn.xid is not None:
            self.clog.set_aborted(txn.xid)
        txn.state = TxnState.ABORTED
        txn.changes.clear()
        txn.bases.clear()
        self._finish(txn)

    def _finish(self, txn: Transaction) -> None:
        # release row locks only now: waiters then see this transaction's final state
        self.locks.release_all(txn)
        self.advisory.end_transaction(txn.vxid)
        with self._proc_lock:
            self._running.pop(txn.vxid, None)
            self._ended += 1
        if txn.spilled:
            self.warehouse.store.discard_spills(txn.spilled)
        horizon, oldest_csn = self.horizons()  # after every transaction: no version walk
        self.clog.truncate(horizon)
        with self._proc_lock:  # update chains no running snapshot predates are not needed
            while self._successor_batches and (oldest_csn is None or self._successor_batches[0][0] <= oldest_csn):
                _, table_id, old = self._successor_batches.pop(0)
                chain = self._successors.get(table_id, {})
                for rowid in old:
                    chain.pop(rowid, None)
        if txn.isolation == SERIALIZABLE or len(self.ssi):
            self.ssi.prune(oldest_csn)

    def horizons(self) -> tuple[int, int | None]:
        """(xmin horizon, oldest running snapshot CSN): what every running transaction can still ask about."""
        with self._proc_lock:
            running = list(self._running.values())
        horizon = min([self.xids.next_xid,
                       *(t.snapshot.xmin for t in running if t.snapshot is not None),
                       *(t.xid for t in running if t.xid is not None)])
        oldest_csn = min((csn for t in running for csn in (t.snapshot.csn if t.snapshot is not None else None,
                                                           t.travel_csn) if csn is not None), default=None)
        return horizon, oldest_csn

    def hold(self, txn: Transaction, csn: int) -> None:
        """Before ``txn`` reads the snapshot at ``csn`` (time travel): it is held to the end of
        the transaction, here and - by the lease - against other processes' expiry; 22023 if
        it expired before the lease was written."""
        with self._proc_lock:
            txn.travel_csn = csn if txn.travel_csn is None else min(txn.travel_csn, csn)
        if self.gc.lease.cover(csn) and expired_before(self.warehouse) > csn:
            raise errors.InvalidParameterValue(f"snapshot {csn} has expired")

    def live_versions(self) -> list:
        """Table versions someone can still see: the newest, and every running transaction's."""
        with self._proc_lock:
            running = list(self._running.values())
        live = list(self.warehouse.latest.tables.values())
        for t in running:
            if t.snapshot is not None:
                live.extend(t.snapshot.catalog.tables.values())
            live.extend(v for v in list(t.changes.values()) if v is not None)
        return live

    @property
    def running(self) -> int:
        with self._proc_lock:
            return len(self._running)

    # --- lifetime ------------------------------------------------------------------------

    def release(self) -> None:
        with _registry_lock:
            self._refs -= 1
            if self._refs > 0:
                return
            _registry.pop(self.path, None)
        self.gc.stop()
        self.gc.lease.withdraw()  # (the last connection: nothing of this process reads any more)
        self.warehouse.store.close()
        self.ssi.close()
        if self._duck is not None:
            self._duck.close()
        if self.publisher is not None:
            self.publisher.close()
        self.warehouse.txlog.close()


# the names connect() takes for Database (check_options)
_OPTIONS = frozenset(inspect.signature(Database.__init__).parameters) - {"self", "path"}
