"""Parquet data files: writing them, reading them through a bounded cache, scanning versions.

The cache is the buffer pool. It holds decoded Arrow tables of files, what versions derive
from them (a file's visible rows under a deletion vector, with row ids) and primary-key
indexes (storage/keys.py), evicted least recently used first - files only old versions use
before the newest version's - when their total size passes ``cache_bytes``. Anything evicted
is simply read from Parquet again; nothing outside the cache keeps decoded files alive longer
than the statement using them.

A version can be read two ways (``plan``): from the cache as one Arrow table (the fast path,
for versions that are cached or small), or - when most of a large version is not cached - as
a ``StreamedScan``: its Parquet files, the rows its deletion vectors remove and its in-memory
rows, which DuckDB reads itself (engine/sources.py) without the cache, so a table larger than
memory is scanned in bounded memory. A streamed version that fits in the cache's free space
is loaded into it by the read-ahead thread, so the statements after the first are cached.

Uncommitted rows live in their ``DataFile.data`` until the transaction *spills* them (``spill``)
to Parquet files that its commit adopts; rows in memory are never evicted.
"""

from __future__ import annotations

import functools
import os
import threading
import time
import uuid
from collections import OrderedDict, deque
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from pyroaring import FrozenBitMap

from txlake.storage.fs import LocalFileSystem
from txlake.storage.schema import TableSchema
from txlake.storage.version import DataFile, TableVersion

ROWID = "__txl_rowid"
BUCKET_DIR = "bucket-0"
DEFAULT_CACHE_BYTES = 2 << 30
# a version is streamed when more than this many of its rows, and more than a tenth of them or
# more than fit in the cache, are in files the cache does not hold; below that, decoding the
# missing files is cheaper
STREAM_MIN_ROWS = 1 << 16
VISIBLE = "visible"  # cache key part: a file's rows as a version sees them
ROW_COLUMNS = "row-columns"  # cache key part: a file's columns made for reading single rows (row())
UNREFERENCED_GRACE = 30.0  # seconds a cached file no live version references is kept


def _value_getter(column: pa.ChunkedArray):
    """``pos -> column[pos].as_py()``, cheaply: numbers without nulls through a NumPy view."""
    if column.num_chunks == 1:
        array = column.chunk(0)
        if (pa.types.is_integer(array.type) or pa.types.is_float32(array.type) or pa.types.is_float64(array.type)) \
                and not array.null_count:
            return array.to_numpy(zero_copy_only=True).item
        return lambda pos: array[pos].as_py()
    return lambda pos: column[pos].as_py()


def _is_index(key) -> bool:
    """Is the cache entry under ``key`` a key index (not a file's rows in some form)?"""
    return not isinstance(key, str) and key[1] not in (VISIBLE, ROW_COLUMNS)


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


_names = threading.local()


def _unique_name() -> str:
    """A name no other file gets, shaped like a UUID: random per process and thread (a forked
    child draws anew), then a counter - as Paimon's writers name their files, one UUID plus a
    sequence number, where a UUID per file costs several microseconds."""
    state = getattr(_names, "state", None)
    if state is None:
        state = _names.state = (str(uuid.uuid4())[:24], iter(range(1 << 48)))
    return f"{state[0]}{next(state[1]):012x}"


os.register_at_fork(after_in_child=lambda: _names.__dict__.pop("state", None))


def rowids(file_id: int, count: int) -> pa.Array:
    return pa.array(np.arange(count, dtype=np.int64) + (file_id << 32), type=pa.int64())


def split_rowid(rowid: int) -> tuple[int, int]:
    return rowid >> 32, rowid & 0xFFFFFFFF


def positions(bitmap: FrozenBitMap) -> np.ndarray:
    """A deletion vector's row positions as a numpy array (sorted)."""
    return np.frombuffer(bitmap.to_array(), dtype=np.uint32)


@dataclass(frozen=True, eq=False)
class StreamedScan:
    """A version's visible rows for DuckDB to read from Parquet, bypassing the cache.

    ``clean`` files have no deleted rows; ``dirty`` ones do, and ``deleted`` lists them by
    ``index in dirty << 32 | position`` (column ``key``). ``memory`` holds the version's rows
    that are not in a Parquet file yet (inline deltas, uncommitted rows). Files are
    ``(file id, absolute path)``; with ``with_rowid`` each row carries its row id.
    """

    schema: TableSchema
    clean: tuple[tuple[int, str], ...]
    dirty: tuple[tuple[int, str], ...]
    deleted: pa.Table | None
    memory: pa.Table | None
    with_rowid: bool


DIRECT_READ_ROWS = 1 << 14  # files of at most this many rows are read directly (``_decode``)


@functools.cache
def _decode_pool() -> pa.MemoryPool:
    """Data files are decoded into a jemalloc pool of their own that returns freed memory to
    the system at once: evicting a file from the cache then shrinks the process, where the
    default allocator would keep the memory (the cap bounds what txlake holds, so the pool
    must not hold more). Without jemalloc, the default pool."""
    try:
        pool = pa.jemalloc_memory_pool()
    except NotImplementedError:
        return pa.default_memory_pool()
    pa.jemalloc_set_decay_ms(0)
    return pool


def _key_path(key) -> str:
    """The file a cache entry belongs to (entries are keyed by path or by (path, ...))."""
    return key if isinstance(key, str) else key[0]


class DataFileStore:
    def __init__(self, root: str, fs: LocalFileSystem, cache_bytes: int = DEFAULT_CACHE_BYTES):
        self.root = root
        self.fs = fs
        self.cache_bytes = cache_bytes
        self._lock = threading.Lock()
        # key -> (value, bytes): decoded files by path, derived entries by (path, kind, ...)
        self._cache: OrderedDict[object, tuple[object, int]] = OrderedDict()  # guarded by _lock
        self._cached_bytes = 0   # guarded by _lock
        self._index_bytes = 0    # the part of _cached_bytes that is key indexes, guarded by _lock
        self._unreferenced: dict = {}  # key -> since when retain() finds it unreferenced, guarded by _lock
        # read-ahead: the files streamed scans asked to have loaded (each scan's as one request);
        # one thread at a time drains it
        self._ahead: deque[tuple[list[str], pa.Schema]] = deque()  # guarded by _lock
        self._reader: threading.Thread | None = None          # guarded by _lock
        self._closed = False
        # spilled files no commit has adopted yet (their transaction removes them when it ends)
        self._unadopted: set[str] = set()  # guarded by _lock
        self.loads = 0            # files decoded from Parquet into the cache
        self.evictions = 0        # cache entries dropped to stay under cache_bytes
        self.read_ahead = 0       # of the loads, those the read-ahead thread made
        self.streamed_scans = 0   # version scans DuckDB read from Parquet directly
        self.index_builds = 0     # primary-key indexes built (storage/keys.py)
        self.spills = 0           # uncommitted row batches written to Parquet before commit
        # the paths of the newest committed version's files (set by the warehouse): under
        # pressure, files only older versions use are evicted before these
        self.hot_paths = lambda: frozenset()

    # --- writing -------------------------------------------------------------------------

    def write(self, db: str, name: str, data: pa.Table, cache: bool = True) -> tuple[str, int]:
        """Write ``data`` as a new Parquet file (fsync'd); return (path relative to root, size)."""
        rel = self.new_path(db, name)
        full = os.path.join(self.root, rel)
        self.fs.makedirs(os.path.dirname(full))
        pq.write_table(data, full, compression="zstd")
        self.fs.fsync_file(full)
        size = self.fs.size(full)
        if cache:
            self._put(rel, data)
        return rel, size

    def spill(self, db: str, name: str, data: pa.Table) -> tuple[str, int]:
        """Write a transaction's uncommitted rows as a Parquet file of their own (not cached:
        the point is to free their memory). Its commit adopts the file (``adopt``); otherwise
        ``discard_spills`` removes it when the transaction ends."""
        rel, size = self.write(db, name, data, cache=False)
        with self._lock:
            self._unadopted.add(rel)
            self.spills += 1
        return rel, size

    def adopt(self, path: str) -> None:
        """A commit (or PREPARE) made the spilled file ``path`` one of its own files."""
        with self._lock:
            self._unadopted.discard(path)

    def unadopted_spills(self) -> frozenset[str]:
        """The spilled files of this process's transactions that no commit adopted yet."""
        with self._lock:
            return frozenset(self._unadopted)

    def discard_spills(self, paths) -> None:
        """Remove the spilled files among ``paths`` that no commit adopted."""
        for path in paths:
            with self._lock:
                if path not in self._unadopted:
                    continue
                self._unadopted.discard(path)
            self.fs.remove(os.path.join(self.root, path))

    def write_named(self, full: str, data: pa.Table) -> None:
        """Write ``data`` as the Parquet file ``full`` (absolute), complete or not at all: under
        a hidden temporary name first, fsync'd, then renamed into place - and the rename made
        durable (the directory fsync'd) before it returns: a Paimon snapshot naming the file
        follows."""
        self.fs.makedirs(os.path.dirname(full))
        write_parquet_atomic(self.fs, full, data)
        self.fs.fsync_dir(os.path.dirname(full))

    def fsync_dirs(self, paths: list[str]) -> None:
        for d in {os.path.dirname(os.path.join(self.root, p)) for p in paths}:
            self.fs.fsync_dir(d)

    @staticmethod
    def new_path(db: str, name: str) -> str:
        return f"{db}.db/{name}/{BUCKET_DIR}/data-{_unique_name()}-0.parquet"  # (table_dir's layout)

    # --- reading -------------------------------------------------------------------------

    def read(self, f: DataFile, schema: TableSchema) -> pa.Table:
        """Every row of ``f`` (deleted ones too), decoded through the cache."""
        if f.in_memory:
            return f.data
        if f.is_inline:
            return f.inline
        table = self._get(f.path)
        if table is None:
            table = self._decode(f.path, schema.arrow_schema(), small=f.row_count <= DIRECT_READ_ROWS)
            self._put(f.path, table)
        return table

    def row(self, f: DataFile, schema: TableSchema, pos: int) -> dict:
        """Row ``pos`` of ``f`` (deleted or not) as Python values, as ``to_pylist`` gives them: a
        point UPDATE's old row. Through the table that costs about 35 us here in a busy process
        (each pyarrow call may hand the interpreter lock to another thread), so a file's columns
        are cached for it as NumPy views (numbers without nulls) or Arrow arrays, and a row
        costs a few. Rows held in memory keep theirs with the file; a cache entry counts the
        file's bytes, as it keeps them alive even once the table itself is evicted."""
        if f.in_memory or f.is_inline:
            getters = f.caches.get(ROW_COLUMNS)
            if getters is None:
                getters = f.caches[ROW_COLUMNS] = [_value_getter(c) for c in self.read(f, schema).columns]
        else:
            key = (f.path, ROW_COLUMNS)
            getters = self._get(key)
            if getters is None:
                data = self.read(f, schema)
                getters = [_value_getter(column) for column in data.columns]
                self._put(key, getters, data.nbytes)
        return {name: get(pos) for name, get in zip(schema.names, getters)}

    def read_columns(self, f: DataFile, schema: TableSchema, columns: tuple[str, ...]) -> pa.Table:
        """Some columns of every row of ``f``: from memory or the cache when they are there,
        else only those columns from Parquet (not cached)."""
        data = f.data if f.in_memory else f.inline if f.is_inline else self._get(f.path)
        if data is not None:
            return data.select(list(columns))
        return self._decode(f.path, schema.arrow_schema(), columns, small=f.row_count <= DIRECT_READ_ROWS)

    def parquet_metadata(self, f: DataFile) -> pq.FileMetaData:
        return pq.read_metadata(os.path.join(self.root, f.path))

    def _decode(self, path: str, schema: pa.Schema, columns: tuple[str, ...] | None = None,
                use_threads: bool = True, small: bool = False) -> pa.Table:
        """Decode a Parquet file (or some of its columns). A small file - a compaction's output,
        another process's one-row commit - is read directly, in this thread and the default
        pool: a dataset scan costs about 0.6 ms more just to set up."""
        full, wanted = os.path.join(self.root, path), list(columns) if columns else None
        if small:
            table = pq.ParquetFile(full).read(columns=wanted, use_threads=False)
        else:
            import pyarrow.dataset as ds  # (here: importing it imports pandas, a third of txlake's start)
            table = ds.dataset(full, format="parquet").to_table(
                columns=wanted, use_threads=use_threads, memory_pool=_decode_pool())
        if columns is None:
            with self._lock:
                self.loads += 1
        else:
            schema = pa.schema([schema.field(c) for c in columns])
        return table.cast(schema) if table.schema != schema else table

    def scan_file(self, version: TableVersion, f: DataFile) -> pa.Table:
        """The visible rows of one file of ``version``."""
        return self._visible(version, f, False)

    def _visible(self, version: TableVersion, f: DataFile, with_rowid: bool) -> pa.Table:
        """One file's visible rows, optionally with row ids. Cached with the deletion vector
        they were filtered by: a version that deletes one row re-filters one file, not the
        table. (Versions branch - each transaction has its own - so the cache compares
        bitmaps; the row ids depend on the file id, which changes when a spilled file is
        committed, so it is part of the key.)"""
        deleted = version.deleted(f.file_id)
        if not deleted and not with_rowid:
            return self.read(f, version.schema)
        key = (f.path, VISIBLE, f.file_id if with_rowid else None)
        cached = self._get(key) if not f.in_memory else None
        if cached is not None and (cached[0] is deleted or cached[0] == deleted):
            return cached[1]
        data = self.read(f, version.schema)
        if with_rowid:
            data = data.append_column(ROWID, rowids(f.file_id, f.row_count))
        if deleted:
            keep = np.ones(f.row_count, dtype=bool)
            keep[positions(deleted)] = False
            data = data.filter(pa.array(keep))
        if not f.in_memory:
            self._put(key, (deleted, data), data.nbytes if deleted else 8 * f.row_count)
        return data

    def scan(self, version: TableVersion, with_rowid: bool = False) -> pa.Table:
        """Every visible row of ``version`` (deletion vectors applied), optionally with row
        ids, as one Arrow table read through the cache."""
        pieces = [self._visible(version, f, with_rowid) for f in version.files]
        if pieces:
            return pa.concat_tables(pieces)
        result = version.schema.arrow_schema().empty_table()
        if with_rowid:
            result = result.append_column(ROWID, pa.array([], pa.int64()))
        return result

    def plan(self, version: TableVersion, with_rowid: bool = False) -> pa.Table | StreamedScan:
        """How a statement should read ``version``: ``scan`` when its files are (mostly)
        cached or few rows are missing, else a ``StreamedScan`` of its Parquet files - and
        then the missing files are read ahead into the cache if they fit there."""
        on_disk = [f for f in version.files if not f.in_memory and not f.is_inline]
        with self._lock:
            cached = {f.path: self._cache[f.path][1] for f in on_disk if f.path in self._cache}
            room = self.cache_bytes - self._cached_bytes + self._reclaimable()
        missing = [f for f in on_disk if f.path not in cached]
        missing_rows = sum(f.row_count for f in missing)
        cached_rows = sum(f.row_count for f in on_disk) - missing_rows
        # the missing files, estimated from the cached ones, must fit beside them: else loading
        # them would evict the version's own files, and every scan would load again
        fits = cached_rows > 0 and missing_rows * sum(cached.values()) <= room * cached_rows
        if missing_rows <= STREAM_MIN_ROWS or (missing_rows * 9 <= cached_rows and fits):
            return self.scan(version, with_rowid)
        self._read_ahead(version.schema, missing)
        clean, dirty, deleted = [], [], []
        for f in on_disk:
            bitmap = version.deleted(f.file_id)
            entry = (f.file_id, os.path.join(self.root, f.path))
            if bitmap:
                deleted.append(positions(bitmap).astype(np.int64) + (len(dirty) << 32))
                dirty.append(entry)
            else:
                clean.append(entry)
        memory = [self._visible(version, f, with_rowid) for f in version.files
                  if f.in_memory or f.is_inline]
        with self._lock:
            self.streamed_scans += 1
        return StreamedScan(version.schema, tuple(clean), tuple(dirty),
                            pa.table({"key": np.concatenate(deleted)}) if deleted else None,
                            pa.concat_tables(memory) if memory else None, with_rowid)

    # --- the cache -----------------------------------------------------------------------

    def cached_index(self, key, build):
        """The key index cached as ``key`` (a tuple starting with its file's path), built by
        ``build()`` if absent; its ``nbytes`` count against the budget."""
        value = self._get(key)
        if value is None:
            value = build()
            with self._lock:
                self.index_builds += 1
            self._put(key, value)
        return value

    def _get(self, key):
        with self._lock:
            entry = self._cache.get(key)
            if entry is None:
                return None
            self._cache.move_to_end(key)
            return entry[0]

    @property
    def cached_files(self) -> int:
        with self._lock:
            return sum(1 for key in self._cache if isinstance(key, str))

    @property
    def cached_bytes(self) -> int:
        with self._lock:
            return self._cached_bytes

    @property
    def index_bytes(self) -> int:
        with self._lock:
            return self._index_bytes

    def retain(self, paths: set[str]) -> int:
        """Drop cache entries of files that no live version has referenced (``paths``) for
        ``UNREFERENCED_GRACE`` seconds: the files a commit is writing are referenced by no
        version until it lands, and should stay cached for the statements after it."""
        now = time.monotonic()
        with self._lock:
            since = {key: self._unreferenced.get(key, now) for key in self._cache if _key_path(key) not in paths}
            dead = [key for key, t in since.items() if now - t >= UNREFERENCED_GRACE]
            for key in dead:
                self._remove(key)
                del since[key]
            self._unreferenced = since
            return len(dead)

    def set_budget(self, cache_bytes: int) -> None:
        with self._lock:
            self.cache_bytes = cache_bytes
            self._evict()

    def _put(self, key, value, nbytes: int | None = None) -> None:
        with self._lock:
            if key in self._cache:
                return
            self._insert(key, value, nbytes)
            self._evict()

    def _insert(self, key, value, nbytes: int | None) -> None:
        nbytes = value.nbytes if nbytes is None else nbytes
        self._cache[key] = (value, nbytes)
        self._cached_bytes += nbytes
        if _is_index(key):
            self._index_bytes += nbytes

    def _reclaimable(self) -> int:
        """Bytes of entries only old versions use (evicted first). Caller holds ``_lock``."""
        hot = self.hot_paths()
        return sum(nbytes for key, (_, nbytes) in self._cache.items() if _key_path(key) not in hot)

    def _evict(self) -> None:
        """Least recently used first, files of old versions before the newest version's (the
        MVCC-aware buffer pool). A file a running statement uses stays alive through its
        reference however it is evicted; eviction only means a later reader decodes it again."""
        if self._cached_bytes <= self.cache_bytes:
            return
        hot = self.hot_paths()
        for key in [k for k in self._cache if _key_path(k) not in hot]:
            if self._cached_bytes <= self.cache_bytes:
                return
            self._drop(key)
        while self._cached_bytes > self.cache_bytes and len(self._cache) > 1:
            self._drop(next(iter(self._cache)))

    def _drop(self, key) -> None:
        self._remove(key)
        self.evictions += 1

    def _remove(self, key) -> None:
        nbytes = self._cache.pop(key)[1]
        self._cached_bytes -= nbytes
        if _is_index(key):
            self._index_bytes -= nbytes

    # --- read-ahead ----------------------------------------------------------------------

    def _read_ahead(self, schema: TableSchema, files: list[DataFile]) -> None:
        """Ask for ``files`` (uncached, of a streamed version) to be loaded into the cache's
        free space in the background - if their decoded size, as their Parquet footers tell
        it, fits there. Read-ahead never evicts: it stops at the first file that does not fit."""
        with self._lock:
            if self._closed or any(paths == [f.path for f in files] for paths, _ in self._ahead):
                return
            self._ahead.append(([f.path for f in files], schema.arrow_schema()))
            if self._reader is None:
                self._reader = threading.Thread(target=self._run_read_ahead, name="txlake-read-ahead", daemon=True)
                self._reader.start()

    def _run_read_ahead(self) -> None:
        # decode in this thread alone, at the lowest CPU priority: statements come first
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
        while True:
            with self._lock:
                if not self._ahead or self._closed:
                    self._reader = None
                    return
                paths, schema = self._ahead.popleft()
            try:
                if self._decoded_size(paths) <= self.cache_bytes - self.cached_bytes:
                    self._load(paths, schema)
            except OSError:  # a file was removed meanwhile (expired, or a rolled-back spill)
                continue

    def _decoded_size(self, paths: list[str]) -> int:
        """The files' uncompressed size from their footers (close to Arrow's, or below it for
        dictionary-encoded columns)."""
        total = 0
        for path in paths:
            meta = pq.read_metadata(os.path.join(self.root, path))
            total += sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
        return total

    def _load(self, paths: list[str], schema: pa.Schema) -> None:
        for path in paths:
            with self._lock:
                if self._closed:
                    return
                if path in self._cache:
                    continue
            table = self._decode(path, schema, use_threads=False)
            with self._lock:
                if self._cached_bytes + table.nbytes > self.cache_bytes:
                    return
                if path not in self._cache:
                    self._insert(path, table, None)
                    self.read_ahead += 1

    def close(self) -> None:
        """Stop the read-ahead thread (the database is closing)."""
        with self._lock:
            self._closed = True
            self._ahead.clear()
            reader = self._reader
        if reader is not None:
            reader.join()
