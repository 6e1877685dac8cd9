"""Table maintenance that is safe while other sessions and processes read and write.

Compaction merges a table's small files (and files with many deleted rows) into files of up to
``ROWS_PER_FILE`` rows and commits that as an ordinary log entry. It never fails a writer:

- it records, for every file it replaces, the new file, the row offset there and the deletion
  vector it compacted away (``ChangeData.moved``), so a concurrent transaction whose changes
  refer to the old file is rebased onto the new one (``TableVersion.locate``);
- if a writer committed deletions in the files being compacted first, the compaction is the one
  that gives way: it starts again from the newer version (bounded attempts).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import pyarrow as pa

from txlake.storage.commit import ROWS_PER_FILE, backoff, now_ms
from txlake.storage.version import ChangeData, DataFile, LogEntry, TableVersion

SMALL_FILE_ROWS = ROWS_PER_FILE // 4
DELETED_FRACTION = 0.3  # a file with this share of deleted rows is rewritten too
COMPACT_USER = "txlake-compaction"


@dataclass(frozen=True)
class CompactResult:
    table: str
    files_before: int
    files_after: int
    rows: int
    csn: int | None  # the COMPACT commit, None if there was nothing to do


def needs_compaction(version: TableVersion, min_files: int = 2) -> list[DataFile]:
    """The files worth rewriting: small ones, and ones with many deleted rows."""
    picked = [f for f in version.files
              if f.row_count - len(version.deleted(f.file_id)) < SMALL_FILE_ROWS
              or len(version.deleted(f.file_id)) > DELETED_FRACTION * f.row_count]
    return picked if len(picked) >= min_files or any(version.deleted(f.file_id) for f in picked) else []


def compact(warehouse, table_id: str, attempts: int = 20, progress=None) -> CompactResult:
    store = warehouse.store
    for attempt in range(attempts):
        latest = warehouse.refresh()
        version = latest.by_id(table_id)
        if version is None:
            return CompactResult(table_id, 0, 0, 0, None)
        picked = needs_compaction(version)
        if not picked:
            return CompactResult(version.name, len(version.files), len(version.files), version.row_count, None)
        # group whole old files into new files of at most ROWS_PER_FILE rows
        groups, current, rows = [], [], 0
        for f in picked:
            live = f.row_count - len(version.deleted(f.file_id))
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
            pieces, offset = [], 0
            for f in group:
                data = store.scan_file(version, f)
                moved[f.file_id] = (next_id, offset, version.deleted(f.file_id))
                offset += data.num_rows
                pieces.append(data)
            data = pa.concat_tables(pieces).combine_chunks()
            path, size = store.write(version.db, version.name, data)
            written.append(path)
            added.append(DataFile(next_id, path, data.num_rows, version.schema.schema_id, size))
            next_id += 1
            if progress is not None:
                progress(i + 1, len(groups))
        store.fsync_dirs(written)
        entry = LogEntry(latest.csn + 1, 0, COMPACT_USER, f"compact-{table_id}-{latest.csn}", now_ms(),
                         (ChangeData(table_id, added=tuple(added),
                                     removed=frozenset(f.file_id for f in picked), moved=moved),))
        if warehouse.append_if_unchanged(entry, table_id, version):
            return CompactResult(version.name, len(version.files),
                                 len(version.files) - len(picked) + len(added), version.row_count, entry.csn)
        for path in written:  # someone committed first: give way, start again
            store.fs.remove(store.root + "/" + path)
        time.sleep(backoff(attempt))
    return CompactResult(table_id, 0, 0, 0, None)
