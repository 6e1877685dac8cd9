"""Primary-key lookups over table versions.

Each data file gets, once, a hash index from key to row position (files are immutable, so the
index is too, and every version sharing the file shares it). A key is present in a version
when some file's index has it at a position the version has not deleted. Point inserts and
ON CONFLICT probes therefore cost O(files) dictionary look-ups, not a table scan.
"""

from __future__ import annotations

from typing import Iterable

import pyarrow as pa

from txlake.storage.datafiles import DataFileStore
from txlake.storage.version import DataFile, TableVersion


def key_tuples(data: pa.Table, key_columns: tuple[str, ...]) -> list:
    """The key of each row: a scalar for one-column keys, a tuple otherwise."""
    if len(key_columns) == 1:
        return data.column(key_columns[0]).to_pylist()
    return list(zip(*(data.column(c).to_pylist() for c in key_columns)))


def file_index(store: DataFileStore, version: TableVersion, f: DataFile) -> dict:
    key_columns = version.schema.primary_key
    cache_key = ("pk", key_columns)
    index = f.caches.get(cache_key)
    if index is None:
        data = store.read(f, version.schema)
        index = {k: pos for pos, k in enumerate(key_tuples(data, key_columns))}
        f.caches[cache_key] = index
    return index


def find(store: DataFileStore, version: TableVersion, keys: Iterable,
         files: Iterable[DataFile] | None = None) -> dict:
    """Map each of ``keys`` present in ``version`` (restricted to ``files``) to its row id."""
    found = {}
    keys = list(keys)
    for f in (version.files if files is None else files):
        index = file_index(store, version, f)
        for k in keys:
            pos = index.get(k)
            if pos is not None and pos not in version.deleted(f.file_id):
                found[k] = (f.file_id << 32) | pos
    return found
