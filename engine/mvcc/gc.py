"""Garbage collection: free what no open snapshot can see any more.

What is kept alive, and by whom:
- table versions: a ``CatalogVersion`` lives as long as something references it - the
  warehouse's newest version, a running transaction's snapshot, its working versions. Python's
  reference counting frees the rest the moment the last snapshot that could see them ends, so a
  long-running reader keeps exactly the versions (and files) its snapshot needs;
- the buffer cache (decoded data files, key indexes) is bounded by bytes; ``collect`` also
  drops entries of files that no live version has referenced for a while (deleted, rewritten,
  or of dropped tables);
- commit-log (clog) entries of XIDs older than every running transaction's xmin are truncated;
- SSI records of committed serializable transactions that no running one is concurrent with.

``collect`` runs after each transaction ends (cheap parts) and periodically in a background
thread (the cache sweep), as PostgreSQL's vacuum does. That thread also compacts tables with
many small files: at each periodic pass any table, and between them the tables a commit took
past the threshold (it names them: a pass must not walk every table of the warehouse).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from txlake.storage import maintenance
from txlake.storage.expiry import Lease

AUTO_COMPACT_FILES = 64  # more files worth compacting than this: compacted in the background
# seconds a table is not asked for again after another process held the compaction lock when
# this one came to compact it (that process is compacting, likely this very table)
COMPACTING_ELSEWHERE = 0.05


@dataclass(frozen=True)
class GCStats:
    clog_entries: int
    clog_freed: int
    ssi_records: int
    cache_files: int
    cache_freed: int


class GarbageCollector:
    def __init__(self, database, interval: float = 2.0):
        self.db = database
        self.interval = interval
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._asked = threading.Lock()  # guards the two below
        self._tables: set[str] = set()  # tables a commit took past the auto-compaction threshold
        self._full = False              # a whole pass asked for (``wake()`` without tables)
        # table id -> time.monotonic() until which another process is taken to be compacting it
        self._elsewhere: dict[str, float] = {}
        self._thread: threading.Thread | None = None
        self.runs = 0  # background passes completed
        self.lease = Lease(database.warehouse)

    def wake(self, table_ids=()) -> None:
        """Run a pass now: auto-compaction of ``table_ids`` (tables a commit just took past the
        threshold) - or, without them, a whole pass (every table's compaction, and the rest)."""
        with self._asked:
            if table_ids:
                self._tables.update(table_ids)
            else:
                self._full = True
        self._wake.set()

    def asked(self, table_id: str) -> bool:
        """Is a pass that compacts ``table_id`` asked for and not yet begun, or another process
        compacting it (``COMPACTING_ELSEWHERE``)? Then a commit need not count the table's small
        files again: with several processes writing, the one holding the compaction lock
        compacts while the others' commits would each count them and wake their thread for
        nothing. (A hint, read without the lock.)"""
        return self._full or table_id in self._tables or self._elsewhere.get(table_id, 0.0) > time.monotonic()

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="txlake-gc", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def _run(self) -> None:
        """A whole pass every ``interval`` seconds (or when asked); in between, compaction of
        the tables commits named: a commit wakes this thread every few dozen commits under a
        stream of small ones, and that pass must not walk every table of the warehouse."""
        next_full = time.monotonic() + self.interval
        while not self._stop.is_set():
            self._wake.wait(max(0.0, next_full - time.monotonic()))
            self._wake.clear()
            if self._stop.is_set():
                return
            with self._asked:
                tables, self._tables = self._tables, set()
                full, self._full = self._full or time.monotonic() >= next_full, False
            if full:  # (the next one is due an interval on, whether this one succeeds or fails)
                next_full = time.monotonic() + self.interval
            try:
                covers = self.lease.covers
                self.lease.advertise(self.db.horizons()[1], covers)  # first: a compaction may take a while
                self.compact_small_files(None if full else tables)
                if full:
                    self.db.warehouse.prepared.expire()  # forgotten prepared transactions time out
                    self.db.warehouse.write_checkpoint()  # if due: opening replays only the log after it
                    self.collect()
                self.runs += 1
            except Exception:  # maintenance must never take the database down; next pass retries
                import logging
                logging.getLogger(__name__).exception("background maintenance failed")

    def compact_small_files(self, table_ids=None) -> None:
        """Auto-compaction: tables with many small files get them merged (storage/maintenance.py);
        those of ``table_ids``, or any table of the warehouse."""
        latest = self.db.warehouse.latest
        versions = latest.tables.values() if table_ids is None else \
            [v for v in map(latest.by_id, table_ids) if v is not None]
        now = time.monotonic()
        candidates = [v.table_id for v in versions
                      if self._elsewhere.get(v.table_id, 0.0) <= now and wants_compaction(v)]
        if candidates and not maintenance.compact_in_background(self.db.warehouse, candidates, self._stop.is_set):
            until = time.monotonic() + COMPACTING_ELSEWHERE  # (the expired entries go)
            self._elsewhere = {**{t: u for t, u in self._elsewhere.items() if u > now},
                               **dict.fromkeys(candidates, until)}

    def collect(self) -> GCStats:
        db = self.db
        covers = self.lease.covers
        horizon, oldest_csn = db.horizons()
        live = db.live_versions()
        clog_freed = db.clog.truncate(horizon)
        db.ssi.prune(oldest_csn)
        paths = {f.path for version in live for f in version.files if f.path is not None}
        cache_freed = db.warehouse.store.retain(paths)
        self.lease.advertise(oldest_csn, covers)  # other processes' expiry must not pass our readers
        return GCStats(len(db.clog), clog_freed, len(db.ssi), db.warehouse.store.cached_files, cache_freed)


def wants_compaction(version) -> bool:
    """Does a table have more small (or mostly deleted) files than AUTO_COMPACT_FILES? Counting
    only those, a large table of many full files is not compacted after every commit."""
    return len(version.files) > AUTO_COMPACT_FILES and maintenance.worth_compacting(version, AUTO_COMPACT_FILES)
