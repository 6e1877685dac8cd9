"""Parquet data files: writing them, reading them through a bounded cache, scanning versions.

The cache is the buffer pool: decoded Arrow tables of committed files, evicted least recently
used first when their total size passes ``cache_bytes``; an evicted file is simply re-read
from Parquet. Uncommitted rows live in their ``DataFile.data`` and are never evicted.
"""

from __future__ import annotations

import os
import threading
import uuid
from collections import OrderedDict

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from txlake.storage.fs import LocalFileSystem
from txlake.storage.schema import TableSchema
from txlake.storage.version import DataFile, TableVersion

ROWID = "__txl_rowid"
BUCKET_DIR = "bucket-0"
DEFAULT_CACHE_BYTES = 2 << 30


def table_dir(db: str, name: str) -> str:
    """A table's directory relative to the warehouse root, as the Paimon layout names it."""
    return os.path.join(f"{db}.db", name)


def write_parquet_atomic(fs: LocalFileSystem, full: str, data: pa.Table) -> None:
    """``full`` appears only complete: a writer killed midway leaves a hidden temporary file
    (orphan removal deletes it), never a truncated file under the real name."""
    directory, name = os.path.split(full)
    tmp = os.path.join(directory, f".{name}.{uuid.uuid4().hex}.tmp")
    pq.write_table(data, tmp, compression="zstd")
    fs.fsync_file(tmp)
    os.replace(tmp, full)


def rowids(file_id: int, count: int) -> pa.Array:
    return pa.array(np.arange(count, dtype=np.int64) + (file_id << 32), type=pa.int64())


def split_rowid(rowid: int) -> tuple[int, int]:
    return rowid >> 32, rowid & 0xFFFFFFFF


class DataFileStore:
    def __init__(self, root: str, fs: LocalFileSystem, cache_bytes: int = DEFAULT_CACHE_BYTES):
        self.root = root
        self.fs = fs
        self.cache_bytes = cache_bytes
        self._cache: OrderedDict[str, pa.Table] = OrderedDict()  # guarded by _lock
        self._cached_bytes = 0
        self._lock = threading.Lock()
        self.loads = 0        # files decoded from Parquet
        self.evictions = 0    # files dropped from the cache to stay under cache_bytes
        # the paths of the newest committed version's files (set by the warehouse): under
        # pressure, files only older versions use are evicted before these
        self.hot_paths = lambda: frozenset()

    # --- writing -------------------------------------------------------------------------

    def write(self, db: str, name: str, data: pa.Table) -> tuple[str, int]:
        """Write ``data`` as a new Parquet file (fsync'd); return (path relative to root, size)."""
        rel = self.new_path(db, name)
        full = os.path.join(self.root, rel)
        self.fs.makedirs(os.path.dirname(full))
        pq.write_table(data, full, compression="zstd")
        self.fs.fsync_file(full)
        size = self.fs.size(full)
        self._put(rel, data)
        return rel, size

    def write_named(self, full: str, data: pa.Table) -> None:
        """Write ``data`` as the Parquet file ``full`` (absolute), complete or not at all: under
        a hidden temporary name first, fsync'd, then renamed into place."""
        self.fs.makedirs(os.path.dirname(full))
        write_parquet_atomic(self.fs, full, data)

    def fsync_dirs(self, paths: list[str]) -> None:
        for d in {os.path.dirname(os.path.join(self.root, p)) for p in paths}:
            self.fs.fsync_dir(d)

    @staticmethod
    def new_path(db: str, name: str) -> str:
        return os.path.join(table_dir(db, name), BUCKET_DIR, f"data-{uuid.uuid4()}-0.parquet")

    # --- reading -------------------------------------------------------------------------

    def read(self, f: DataFile, schema: TableSchema) -> pa.Table:
        if f.data is not None:
            return f.data
        if f.inline is not None:
            return f.inline
        with self._lock:
            table = self._cache.get(f.path)
            if table is not None:
                self._cache.move_to_end(f.path)
                return table
        table = pq.read_table(os.path.join(self.root, f.path))
        self.loads += 1
        table = table.cast(schema.arrow_schema()) if table.schema != schema.arrow_schema() else table
        self._put(f.path, table)
        return table

    def scan_file(self, version: TableVersion, f: DataFile) -> pa.Table:
        """The visible rows of one file of ``version``."""
        return self._visible(version, f, False)

    def _visible(self, version: TableVersion, f: DataFile, with_rowid: bool) -> pa.Table:
        """One file's visible rows, cached on the file with the deletion vector they were
        filtered by: a version that deletes one row re-filters one file, not the table.
        (Versions branch - each transaction has its own - so the cache compares bitmaps.)"""
        deleted = version.deleted(f.file_id)
        key = ("visible", with_rowid)
        cached = f.caches.get(key)
        if cached is not None and f.data is None and (cached[0] is deleted or cached[0] == deleted):
            return cached[1]
        data = self.read(f, version.schema)
        if with_rowid:
            data = data.append_column(ROWID, rowids(f.file_id, f.row_count))
        if deleted:
            keep = np.ones(f.row_count, dtype=bool)
            keep[np.fromiter(deleted, dtype=np.int64, count=len(deleted))] = False
            data = data.filter(pa.array(keep))
        if f.data is None:
            f.caches[key] = (deleted, data)
        return data

    @property
    def cached_files(self) -> int:
        with self._lock:
            return len(self._cache)

    def retain(self, paths: set[str]) -> int:
        """Drop cached files not in ``paths`` (no live version references them)."""
        with self._lock:
            dead = [p for p in self._cache if p not in paths]
            for p in dead:
                self._cached_bytes -= self._cache.pop(p).nbytes
            return len(dead)

    @property
    def cached_bytes(self) -> int:
        with self._lock:
            return self._cached_bytes

    def set_budget(self, cache_bytes: int) -> None:
        with self._lock:
            self.cache_bytes = cache_bytes
            self._evict()

    def _put(self, path: str, table: pa.Table) -> None:
        with self._lock:
            if path in self._cache:
                return
            self._cache[path] = table
            self._cached_bytes += table.nbytes
            self._evict()

    def _evict(self) -> None:
        """Least recently used first, files of old versions before the newest version's (the
        MVCC-aware buffer pool). A file a running statement uses stays alive through its
        reference however it is evicted; eviction only means a later reader decodes it again."""
        if self._cached_bytes <= self.cache_bytes:
            return
        hot = self.hot_paths()
        for path in [p for p in self._cache if p not in hot]:
            if self._cached_bytes <= self.cache_bytes:
                return
            self._drop(path)
        while self._cached_bytes > self.cache_bytes and len(self._cache) > 1:
            self._drop(next(iter(self._cache)))

    def _drop(self, path: str) -> None:
        self._cached_bytes -= self._cache.pop(path).nbytes
        self.evictions += 1

    def scan(self, version: TableVersion, with_rowid: bool = False) -> pa.Table:
        """Every visible row of ``version`` (deletion vectors applied), optionally with row ids.

        Cached on the version (versions are immutable), so repeated statements in a
        transaction scan each version once.
        """
        key = ("scan", with_rowid)
        cached = version.caches.get(key)
        if cached is not None:
            return cached
        schema = version.schema.arrow_schema()
        pieces = [self._visible(version, f, with_rowid) for f in version.files]
        if pieces:
            result = pa.concat_tables(pieces)
        else:
            result = schema.empty_table()
            if with_rowid:
                result = result.append_column(ROWID, pa.array([], pa.int64()))
        version.caches[key] = result
        return result
