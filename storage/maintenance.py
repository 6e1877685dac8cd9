"""Table maintenance that is safe while other sessions and processes read and write.

Compaction merges a table's small files (and files with many deleted rows) into files of up to
``ROWS_PER_FILE`` rows and commits that as an ordinary log entry. It never fails a writer:

- it records, for every file it replaces, the new file, the row offset there and the deletion
  vector it compacted away (``ChangeData.moved``), so a concurrent transaction whose changes
  refer to the old file is rebased onto the new one (``TableVersion.locate``);
- that lineage would grow by an entry per compacted file forever, and each compaction copies
  it: a compaction also forgets the entries of compactions before ``forget_before``, the
  oldest snapshot anything may still hold (``Warehouse.lineage_horizon``). The entry carries
  that CSN, so every process forgets the same; a row id whose lineage was forgotten is reported
  by ``TableVersion.lineage_lost``, and whoever meets one fails (40001) or starts again rather
  than take a moved row for a deleted one;
- writers committing meanwhile do not make it start again: rows they deleted in the files being
  compacted are deleted in the new files by the compaction's own entry (rebased on the newest
  version when it is appended) - all of a file's rows if they deleted every one, which drops
  the file from the version; only another compaction moving a picked file, or a schema change,
  restarts it.
"""

from __future__ import annotations

import itertools
import os
import time
from dataclasses import dataclass

import pyarrow as pa
from pyroaring import BitMap, FrozenBitMap

from txlake.storage.commit import INLINE_ROWS, ROWS_PER_FILE, backoff, inline_bytes, inline_file, now_ms
from txlake.storage.version import ChangeData, DataFile, LogEntry, PythonRows, TableVersion, rewritable

SMALL_FILE_ROWS = ROWS_PER_FILE // 4
DELETED_FRACTION = 0.3  # a file with this share of deleted rows is rewritten too
SIZE_RATIO = 1.0  # background compaction: a small file joins the smaller ones it is at most this
                  # many times the size of (so each row is rewritten about log2(rows / 32) times)
COMPACT_USER = "txlake-compaction"
COMPACT_LOCK = "COMPACT"  # in _txlog/: held by the process running background compaction
PATIENCE = 0.2  # seconds background compaction waits for a commit to share its log flush with


@dataclass(frozen=True)
class CompactResult:
    table: str
    files_before: int
    files_after: int
    rows: int
    csn: int | None  # the COMPACT commit, None if there was nothing to do


def needs_compaction(version: TableVersion, min_files: int = 2, tiered: bool = False) -> list[DataFile]:
    """The files worth rewriting: small ones, and ones with many deleted rows.

    ``tiered`` (background compaction): of the small files without many deleted rows, only the
    smallest - each at most ``SIZE_RATIO`` times the rows of those smaller than it together -
    as size-tiered compaction does. Merging every small file each time would rewrite a growing
    file again for every few dozen new rows: under a stream of one-row commits, quadratic work.
    """
    picked = [f for f in version.files if _worth_rewriting(version, f)]
    if tiered:
        chosen = {f.file_id for f in picked if _mostly_deleted(version, f)}  # always rewritten
        total, small = 0, 0
        for f in sorted((f for f in picked if f.file_id not in chosen), key=lambda f: _live_rows(version, f)):
            live = _live_rows(version, f)
            if small >= 2 and live > SIZE_RATIO * total:
                break
            chosen.add(f.file_id)
            total, small = total + live, small + 1
        picked = [f for f in picked if f.file_id in chosen]
    return picked if len(picked) >= min_files or any(version.deleted(f.file_id) for f in picked) else []


def _merged_rows(store, version: TableVersion, group: list[DataFile]) -> pa.Table | PythonRows:
    """The visible rows of ``group``'s files, in order. Files holding their rows as Python values
    in the version's schema (inline one-row commits: this process's, or decoded from the log)
    merge as such: no Arrow table is built for each, and the merged file is encoded for the log
    from them. A few rows held in Arrow among them (a table's first rows, loaded in one
    statement) join as Python values; past ``INLINE_ROWS`` of those, the group merges in Arrow,
    each run of Python-held files made one table."""
    schema = version.schema
    python = [f.python_rows(schema) if f.schema_id == schema.schema_id else None for f in group]
    in_arrow = sum(_live_rows(version, f) for f, rows in zip(group, python) if rows is None)
    if in_arrow > INLINE_ROWS or any(f.schema_id != schema.schema_id for f in group):
        pieces, run = [], []
        for f, rows in zip(group, python):
            if rows is not None:
                run.append(_visible_values(version, f, rows.columns))
                continue
            if run:
                pieces.append(_python_rows(schema, run).table())
                run = []
            pieces.append(store.scan_file(version, f))
        if run:
            pieces.append(_python_rows(schema, run).table())
        return pa.concat_tables(pieces).combine_chunks()
    return _python_rows(schema, [
        _visible_values(version, f, rows.columns) if rows is not None else
        [c.to_pylist() for c in store.scan_file(version, f).columns] for f, rows in zip(group, python)])


def _visible_values(version: TableVersion, f: DataFile, columns: list[list]) -> list[list]:
    """A Python-held file's columns without its deleted rows."""
    dead = version.deleted(f.file_id)
    return columns if not dead else [[v for pos, v in enumerate(values) if pos not in dead] for values in columns]


def _python_rows(schema, pieces: list[list[list]]) -> PythonRows:
    """Column lists of consecutive pieces of rows, joined."""
    return PythonRows(schema, [list(itertools.chain.from_iterable(c)) for c in zip(*pieces)])


def worth_compacting(version: TableVersion, more_than: int) -> bool:
    """Would ``needs_compaction`` pick more than ``more_than`` files? Asked after every commit
    to a table of more files than that: the table keeps the count, carried from version to
    version in the size of each change (``TableVersion.rewritable_files``), instead of walking
    its files after every commit - a table of more than about 8M rows (64 full files) walked
    them all, as few are worth rewriting there."""
    if len(version.files) <= more_than:
        return False
    return version.rewritable_files(SMALL_FILE_ROWS, DELETED_FRACTION) > more_than


def _worth_rewriting(version: TableVersion, f: DataFile) -> bool:
    return rewritable(f.row_count, len(version.deleted(f.file_id)), SMALL_FILE_ROWS, DELETED_FRACTION)


def _live_rows(version: TableVersion, f: DataFile) -> int:
    return f.row_count - len(version.deleted(f.file_id))


def _mostly_deleted(version: TableVersion, f: DataFile) -> bool:
    return len(version.deleted(f.file_id)) > DELETED_FRACTION * f.row_count


def compact_in_background(warehouse, table_ids: list[str], stopping=lambda: False, wait: float = 0.0) -> bool:
    """Compact tables for a background thread (auto-compaction). Of several processes (and
    threads) writing the warehouse, one compacts at a time (``_txlog/COMPACT``, waited for up
    to ``wait`` seconds): the others would only rewrite the same files and lose the race to
    append. False if another held the lock (nothing was compacted here)."""
    with warehouse.fs.try_lock(os.path.join(warehouse.txlog.dir, COMPACT_LOCK), wait) as mine:
        for table_id in table_ids if mine else ():
            if stopping():
                break
            compact(warehouse, table_id, tiered=True, patience=PATIENCE)
        return mine


def compact(warehouse, table_id: str, attempts: int = 20, progress=None, tiered: bool = False,
            patience: float = 0.0) -> CompactResult:
    """Merge a table's small files (``needs_compaction``) into as few as fit. A merged file small
    enough travels inline in the compaction's log entry, as a small commit's rows do: no Parquet
    file, no fsync. The entry waits up to ``patience`` seconds to share a commit's write and
    flush (``Warehouse.append_rebased``)."""
    store = warehouse.store
    for attempt in range(attempts):
        latest = warehouse.refresh()
        version = latest.by_id(table_id)
        if version is None:
            return CompactResult(table_id, 0, 0, 0, None)
        picked = needs_compaction(version, tiered=tiered)
        if not picked:
            return CompactResult(version.name, len(version.files), len(version.files), version.row_count, None)
        # group whole old files into new files of at most ROWS_PER_FILE rows
        groups, current, rows = [], [], 0
        for f in picked:
            live = _live_rows(version, f)
            if current and rows + live > ROWS_PER_FILE:
                groups.append(current)
                current, rows = [], 0
            current.append(f)
            rows += live
        if current:
            groups.append(current)
        added, moved, written = [], {}, []
        next_id = version.next_file_id
        for i, group in enumerate(groups):
            offset = 0
            for f in group:
                moved[f.file_id] = (next_id, offset, version.deleted(f.file_id))
                offset += _live_rows(version, f)
            data = _merged_rows(store, version, group)
            nbytes = inline_bytes(data)
            if nbytes is not None:
                added.append(inline_file(store, version, data, nbytes, next_id))
            else:
                data = data.table() if isinstance(data, PythonRows) else data
                path, size = store.write(version.db, version.name, data)
                written.append(path)
                added.append(DataFile(next_id, path, data.num_rows, version.schema.schema_id, size))
            next_id += 1
            if progress is not None:
                progress(i + 1, len(groups))
        store.fsync_dirs(written)
        forget_before = min(warehouse.lineage_horizon(), latest.csn)  # (before the log lock: it reads files)

        def rebased(newest) -> LogEntry | None:
            """The compaction as the next entry after ``newest``: rows deleted since it read
            the files are deleted in the new files too - all of a picked file's rows if it
            went away because they were all deleted; None if another compaction moved a
            picked file or the table was re-shaped (then it starts again)."""
            current = newest.by_id(table_id)
            if current is None or current.schema.schema_id != version.schema.schema_id or any(
                    current.file(f.file_id) is None and (f.file_id in current.moved or current.lineage_lost(f.file_id))
                    for f in picked):
                return None
            # files committed meanwhile took the ids after the version read: number ours after theirs
            shift = current.next_file_id - version.next_file_id
            files = tuple(f.numbered(f.file_id + shift) for f in added)
            lineage = {old: (new_id + shift, offset, dead) for old, (new_id, offset, dead) in moved.items()}
            carried: dict[int, BitMap] = {}
            for f in picked:
                new_id, offset, dead = lineage[f.file_id]
                now_dead = current.deleted(f.file_id) if current.file(f.file_id) is not None \
                    else FrozenBitMap(range(f.row_count))  # every row deleted: the file was dropped
                for pos in now_dead - dead:
                    carried.setdefault(new_id, BitMap()).add(offset + pos - dead.rank(pos))
            change = ChangeData(table_id, added=files, removed=frozenset(f.file_id for f in picked),
                                moved=lineage, deleted={fid: FrozenBitMap(bm) for fid, bm in carried.items()},
                                forget_before=forget_before)
            return LogEntry(newest.csn + 1, 0, COMPACT_USER, f"compact-{table_id}-{version.next_file_id}",
                            now_ms(), (change,))

        entry = warehouse.append_rebased(rebased, patience) if added else None
        if entry is not None:
            return CompactResult(version.name, len(version.files),
                                 len(version.files) - len(picked) + len(added), version.row_count, entry.csn)
        for path in written:  # a picked file went away meanwhile: start again
            store.fs.remove(store.root + "/" + path)
        time.sleep(backoff(attempt))
    return CompactResult(table_id, 0, 0, 0, None)
