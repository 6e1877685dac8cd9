"""Primary-key lookups over table versions.

Each data file gets, once, a compact index from key to row position: the keys' 64-bit hashes,
sorted, with the row position of each (no positions at all when the file is in key order). For
a single integer key the "hash" is the key itself, so a match is exact; other keys hash with
Python's ``hash`` and a match is confirmed against the file's key columns. A key is present in
a version when some file's index has it at a position the version has not deleted. Files are
immutable, so their indexes are too, shared by every version holding the file.

An index costs 8-12 bytes a row. Indexes of Parquet files live in the buffer cache - counted
against its budget, evicted like decoded files, rebuilt from the key columns alone - and are
built only for files whose Parquet min/max statistics admit one of the keys looked up: a point
lookup in a large table reads one file's key column, not the table. Uncommitted rows in memory
keep their index with their file. An inline file's bounds come from its log entry, and a
one-row inline file's bounds are its key: a lookup of one key (``_find_one``) needs no index
there, and - newest file first - stops at the first live match.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from functools import cached_property
from operator import attrgetter
from typing import Iterable

import numpy as np
import pyarrow as pa

from txlake.storage.datafiles import DataFileStore
from txlake.storage.schema import TableSchema, is_computed
from txlake.storage.version import CARRIED, DataFile, PythonRows, TableVersion, one_row_key

INDEX = "pk"            # cache key part of a file's key index
BOUNDS = "key bounds"   # DataFile.caches key: the key columns' (min, max) from the Parquet footer
MEMBERS = "key probes"  # DataFile.caches key of an inline file: the set of its index's hashes
# key in TableVersion.one_row_files()'s memo of the other files: how a point lookup walks them
WALK = "walk"
PRUNE_PROBES = 64       # keys are checked against footer bounds one by one up to this many (integer
                        # keys beyond it in one vectorised pass; other keys then not at all)


# A key's NaN, one object: keys are compared as PostgreSQL's btree compares floats, NaN equal
# to NaN (and -0.0 to 0.0, as Python's float does already). Python's NaN is equal to nothing
# and hashes by identity, so each key's NaN is made this one - in dicts, sets, tuples and the
# lock table, identity makes it equal to itself - and the comparisons here (``_same``,
# ``_within``) take it as equal to itself and within any bounds (a Parquet footer's leave NaN out).
NAN = float("nan")


def normal(value):
    """A key's value as keys compare it: a NaN is ``NAN``."""
    return NAN if value != value else value


#: computes an expression index's key values: ``COMPUTE(rows, names)`` is the Arrow table of
#: the computed keys ``names`` (storage/schema.py ``COMPUTED_KEY``) of ``rows``, a table of the
#: columns they read. Set by engine/index_expressions.py (their SQL is PostgreSQL's, which the
#: engine runs); a key of a table without expression indexes never calls it.
COMPUTE = None


def with_computed(data: pa.Table | PythonRows, names: tuple[str, ...]) -> pa.Table | PythonRows:
    """``data`` with the computed keys among ``names`` added as columns (``data`` itself if none is)."""
    table = data.table() if isinstance(data, PythonRows) else data
    wanted = [n for n in names if is_computed(n) and table.schema.get_field_index(n) < 0]
    if not wanted:
        return table
    if COMPUTE is None:  # (a process that never loaded the engine: refuse rather than guess)
        raise RuntimeError("txlake's expression indexes need txlake.engine loaded")
    computed = COMPUTE(table, tuple(wanted))
    for name in wanted:
        table = table.append_column(name, computed.column(name))
    return table


def computed_key_tuples(data: pa.Table | PythonRows, key_columns: tuple[str, ...]) -> list:
    """``key_tuples`` of keys that may be computed (a unique constraint's or index's)."""
    if key_columns and is_computed(key_columns[0]):  # (an expression index's: all computed)
        data = with_computed(data, key_columns)
    return key_tuples(data, key_columns)


def key_tuples(data: pa.Table | PythonRows, key_columns: tuple[str, ...]) -> list:
    """The key of each row: a scalar for one-column keys, a tuple otherwise (NaN as ``NAN``).
    Computed keys must be among ``data``'s columns (``with_computed``)."""
    if len(key_columns) == 1:
        return _values(data, key_columns[0])
    return list(zip(*(_values(data, c) for c in key_columns)))


def _values(data: pa.Table | PythonRows, name: str) -> list:
    """A column's values as a new Python list (a float column's NaN as ``NAN``)."""
    if isinstance(data, PythonRows):
        values = list(data.columns[data.schema.names.index(name)])
        floating = name in data.schema.memo("_float_columns", _float_columns)
    else:
        column = data.column(name)
        values, floating = column.to_pylist(), pa.types.is_floating(column.type)
    return [NAN if v != v else v for v in values] if floating else values


def _float_columns(schema: TableSchema) -> frozenset[str]:
    arrow = schema.arrow_schema()
    return frozenset(n for n in schema.names if pa.types.is_floating(arrow.field(n).type))


def _same(a, b) -> bool:
    """Are keys ``a`` and ``b`` equal (``NAN`` equal to itself, a tuple's elements compared so already)?"""
    return a is b or a == b


@dataclass(frozen=True)
class KeyIndex:
    hashes: np.ndarray              # int64, sorted
    positions: np.ndarray | None    # uint32 row position of each hash; None: hashes[i] is row i

    @property
    def nbytes(self) -> int:
        return self.hashes.nbytes + (self.positions.nbytes if self.positions is not None else 0)

    @cached_property
    def view(self) -> memoryview:
        """``hashes`` as a memoryview of Python ints: one key is looked up by ``bisect`` over it,
        twice as fast as numpy's scalar ``searchsorted`` and without releasing the GIL - which,
        with several sessions running, costs a wait of up to a switch interval to get it back."""
        return memoryview(np.ascontiguousarray(self.hashes))


def _integer_key(schema: TableSchema) -> bool:
    return schema.memo("_integer_key", lambda s: len(s.primary_key) == 1
                       and pa.types.is_integer(s.arrow_schema().field(s.primary_key[0]).type))


def _hashes(keys: list, exact: bool) -> np.ndarray:
    if exact:
        return np.fromiter(keys, dtype=np.int64, count=len(keys))
    return np.fromiter(map(hash, keys), dtype=np.int64, count=len(keys))


def _build(columns: pa.Table | PythonRows, names: tuple[str, ...], exact: bool) -> KeyIndex:
    if exact and not isinstance(columns, PythonRows):
        hashes = columns.column(names[0]).to_numpy().astype(np.int64, copy=False)
    else:
        hashes = _hashes(key_tuples(columns, names), exact)
    if len(hashes) < 2 or bool(np.all(hashes[:-1] <= hashes[1:])):
        return KeyIndex(hashes, None)
    order = np.argsort(hashes, kind="stable")
    return KeyIndex(hashes[order], order.astype(np.uint32))


def file_index(store: DataFileStore, version: TableVersion, f: DataFile, exact: bool | None = None) -> KeyIndex:
    names = version.schema.primary_key
    exact = _integer_key(version.schema) if exact is None else exact

    def build() -> KeyIndex:  # (rows held as Python values - a compaction's, inline - need no Arrow table)
        return _build(_key_columns(store, version, f), names, exact)

    if f.in_memory:  # uncommitted rows in memory: the index stays with them
        index = f.caches.get((INDEX, names))
        if index is None:
            index = f.caches[(INDEX, names)] = build()
        return index
    return store.cached_index((f.path, INDEX, names, exact), build)


def _key_columns(store: DataFileStore, version: TableVersion, f: DataFile,
                 names: tuple[str, ...] | None = None) -> pa.Table | PythonRows:
    """A file's rows to read keys from: as Python values if it holds them so, else its key
    columns (``names``, by default the primary key's)."""
    rows = f.python_rows(version.schema)
    if names is not None and is_computed(names[0]):  # (an expression index's: all its keys computed)
        if rows is None:
            rows = store.read_columns(f, version.schema, version.schema.key_inputs(names))
        return with_computed(rows, names)
    return rows if rows is not None else store.read_columns(f, version.schema, names or version.schema.primary_key)


def find_unique(store: DataFileStore, version: TableVersion, keys: list, names: tuple[str, ...],
                files: Iterable[DataFile] | None = None) -> dict:
    """``find`` over other columns than the primary key's - a UNIQUE constraint's, whose
    values may be NULL (a key holding one matches only an equal key, NULL equal to NULL: the
    caller leaves such keys out unless NULLS NOT DISTINCT). Each file gets an index of
    those columns (hashed, a match confirmed against the file's values), cached as the
    primary key's are; a Parquet file whose footer bounds cannot hold a key is passed over,
    so a lookup in a large table reads the key columns of the files that may hold it only.
    Its inline and in-memory files' bounds are the primary key's, not these columns': each is
    looked at, by its index."""
    probes = [hash(k) for k in keys]
    sorted_probes = np.sort(np.array(probes, dtype=np.int64))
    found: dict = {}
    for f in (version.files if files is None else files):
        if not (f.is_inline or f.in_memory):
            bounds = _footer_bounds(store, f, names)
            if bounds is not None and not _may_hold(bounds, keys, sorted_probes, False):
                continue
        index = _unique_index(store, version, f, names)
        hashes = index.view
        if not len(hashes):
            continue
        for key, probe in zip(keys, probes):
            if key in found or not hashes[0] <= probe <= hashes[-1]:
                continue
            first = bisect.bisect_left(hashes, probe)
            if hashes[first] != probe:
                continue
            matches = range(first, bisect.bisect_right(hashes, probe, first))
            rowid = _confirmed(store, version, f, key, matches, False, index, names)
            if rowid is not None:
                found[key] = rowid
    return found


def find_rows(store: DataFileStore, version: TableVersion, key, names: tuple[str, ...]) -> list[int]:
    """The row ids of every live row of ``version`` holding ``key`` (a scalar, or a tuple for
    several columns) in the columns ``names`` - a secondary index's lookup (CREATE INDEX): as
    ``find_unique``, through each file's cached index of those columns, passing over a Parquet
    file whose footer bounds cannot hold the key, but every match, not the first. A file's
    index is built the first time a lookup reaches it, so maintaining it costs an INSERT
    nothing; a transaction's own uncommitted rows are looked up through theirs."""
    probe = hash(key)
    found: list[int] = []
    for f in version.files:
        if not (f.is_inline or f.in_memory):
            bounds = _footer_bounds(store, f, names)
            if bounds is not None and not _within(key, bounds):
                continue
        index = _unique_index(store, version, f, names)
        hashes = index.view
        if not len(hashes) or not hashes[0] <= probe <= hashes[-1]:
            continue
        first = bisect.bisect_left(hashes, probe)
        if hashes[first] != probe:
            continue
        deleted = version.deleted(f.file_id)
        positions = [int(index.positions[j]) if index.positions is not None else j
                     for j in range(first, bisect.bisect_right(hashes, probe, first))]
        positions = [p for p in positions if p not in deleted]
        if not positions:
            continue
        rows = _key_columns(store, version, f, names)
        held = [_key_at(rows, names, p) for p in positions] if isinstance(rows, PythonRows) \
            else key_tuples(rows.take(pa.array(positions, pa.int64())), names)  # (a hash matched: the value?)
        found += [(f.file_id << 32) | p for p, k in zip(positions, held) if k == key]
    return found


def _unique_index(store: DataFileStore, version: TableVersion, f: DataFile, names: tuple[str, ...]) -> KeyIndex:
    """A file's index of the columns ``names`` (hashed)."""
    def build() -> KeyIndex:
        return _build(_key_columns(store, version, f, names), names, False)

    if f.in_memory:
        index = f.caches.get((INDEX, names))
        if index is None:
            index = f.caches[(INDEX, names)] = build()
        return index
    return store.cached_index((f.path, INDEX, names, False), build)


def _bounds(store: DataFileStore, f: DataFile, names: tuple[str, ...]) -> tuple | None:
    """Each key column's (min, max) over a file: exact ones carried with its rows (an inline
    file's, from its log entry; uncommitted rows held as Python values), else a Parquet file's
    footer statistics; None if unknown (other rows in memory, statistics missing)."""
    if f.key_bounds is not None or f.is_inline or f.in_memory:
        return f.key_bounds if f.key_bounds is not None and len(f.key_bounds) == len(names) else None
    return _footer_bounds(store, f, names)


def _footer_bounds(store: DataFileStore, f: DataFile, names: tuple[str, ...]) -> tuple | None:
    """The columns ``names``' (min, max) over a Parquet file, from its footer; None if unknown."""
    key = (BOUNDS, names)
    if key not in f.caches:
        meta = store.parquet_metadata(f)
        columns = {meta.schema.column(i).name: i for i in range(meta.num_columns)}
        bounds = []
        for name in names:
            stats = [meta.row_group(g).column(columns[name]).statistics for g in range(meta.num_row_groups)] \
                if name in columns else []
            if not stats or any(s is None or not s.has_min_max for s in stats):
                bounds = None
                break
            bounds.append((min(s.min for s in stats), max(s.max for s in stats)))
        f.caches[key] = tuple(bounds) if bounds is not None else None
    return f.caches[key]


def _may_hold(bounds: tuple, keys: list, sorted_probe: np.ndarray, exact: bool) -> bool:
    """Can a file whose key columns lie within ``bounds`` hold one of ``keys``?"""
    if exact and len(keys) > PRUNE_PROBES:
        lo, hi = bounds[0]
        return bool(sorted_probe.searchsorted(lo, "left") < sorted_probe.searchsorted(hi, "right"))
    return len(keys) > PRUNE_PROBES or any(_within(k, bounds) for k in keys)


def _within(key, bounds: tuple) -> bool:
    if not isinstance(key, tuple):
        lo, hi = bounds[0]
        try:
            return lo <= key <= hi or key is NAN
        except TypeError:  # a statistic of a type the key values do not compare with
            return True
    try:
        return all(lo <= v <= hi or v is NAN for v, (lo, hi) in zip(key, bounds))
    except TypeError:
        return True


def find(store: DataFileStore, version: TableVersion, keys: Iterable,
         files: Iterable[DataFile] | None = None, names: tuple[str, ...] | None = None) -> dict:
    """Map each of ``keys`` present in ``version`` (restricted to ``files``) to its row id.
    ``names``: the key's columns - by default the primary key's; other columns (a UNIQUE
    constraint's, ``find_unique``) are looked up through indexes of their own."""
    keys = list(keys)
    found: dict = {}
    if not keys:
        return found
    if names is not None and names != version.schema.primary_key:
        return find_unique(store, version, keys, names, files)
    names = version.schema.primary_key
    exact = _integer_key(version.schema)
    if len(keys) == 1:  # _hashes' value, without NumPy where it can
        key = keys[0]
        probe = hash(key) if not exact else key if type(key) is int and -1 << 63 <= key < 1 << 63 \
            else int(_hashes(keys, exact)[0])
        return _find_one(store, version, key, probe, exact, files)
    probe = _hashes(keys, exact)
    order = np.argsort(probe, kind="stable")
    sorted_probe = probe[order]
    for f in (version.files if files is None else files):
        bounds = _bounds(store, f, names)
        if bounds is not None and not _may_hold(bounds, keys, sorted_probe, exact):
            continue
        hashes = file_index(store, version, f, exact).hashes
        first, last = hashes.searchsorted(sorted_probe, "left"), hashes.searchsorted(sorted_probe, "right")
        hits = np.nonzero(last > first)[0]
        for i in hits:
            key = keys[order[i]]
            rowid = _confirmed(store, version, f, key, range(first[i], last[i]), exact)
            if rowid is not None:
                found[key] = rowid
    return found


def _find_one(store: DataFileStore, version: TableVersion, key, probe: int, exact: bool,
              files: Iterable[DataFile] | None) -> dict:
    """``find`` of one key (a point statement): scalar work only, done at the first live match
    - a key is unique among a version's live rows. One-row files are matched by their key, the
    rows a workload updates again and again; then the files ``_Walk`` goes through; an inline
    file (rows a compaction merged, in memory with its entry) is passed over by a set lookup,
    without reaching its index in the buffer cache. With ``files``, those, newest first."""
    names = version.schema.primary_key
    if files is None:
        one_row, others, memo = version.one_row_files()
        fid = one_row.get(key)
        if fid is not None and 0 not in version.deleted(fid):
            return {key: fid << 32}
        walk = memo.get((WALK, exact))
        if walk is None:
            before = memo.get(CARRIED, {}).get((WALK, exact))
            walk = memo[(WALK, exact)] = _Walk(store, version, others, exact, before)
        steps, ranged = walk.steps, walk.candidates(key)
    else:
        steps, ranged = [[f, None] for f in reversed(tuple(files))], ()
    for step in steps:
        f, members = step
        if members is None:
            single = one_row_key(f, len(names))
            if single is not None:  # a one-row file's exact bounds are its row's key: no index
                if single == key and 0 not in version.deleted(f.file_id):
                    return {key: f.file_id << 32}
                continue
            bounds = _bounds(store, f, names)
            if bounds is not None and not _within(key, bounds):
                continue
            if f.is_inline:  # (its rows are decoded for the index the first time a key may be there)
                members = step[1] = _members(store, version, f, exact)
        if members is not None and probe not in members:
            continue
        rowid = _probe(store, version, f, key, probe, exact)
        if rowid is not None:
            return {key: rowid}
    for f in ranged:
        rowid = _probe(store, version, f, key, probe, exact)
        if rowid is not None:
            return {key: rowid}
    return {}


_ROWS = attrgetter("row_count")


class _Walk:
    """How a point lookup goes through a version's files other than its one-row ones. Kept in
    ``TableVersion.one_row_files()``'s memo: every version with the same other files shares it
    (a point write changes only one-row files).

    - ``steps``, newest first: inline files, each with the set of its probes once built, and
      the files whose key bounds are unknown (rows in memory, Parquet without statistics);
    - the other files - Parquet files, as a table's loaded and compacted ones are - by the
      bounds of their first key column, sorted by the lower bound: those that may hold a key
      are found by bisection, not by looking at each (a 10M-row table has 77 files).
    """

    def __init__(self, store: DataFileStore, version: TableVersion, others: tuple[DataFile, ...], exact: bool,
                 before: "_Walk | None" = None):
        names = version.schema.primary_key
        if before is not None and before._ranged and self._carry(before, others, names, exact):
            return
        self.steps, ranged = [], []
        for f in reversed(others):
            bounds = None if f.is_inline or f.in_memory else _bounds(store, f, names)
            if bounds is None:
                self.steps.append([f, f.caches.get((MEMBERS, names, exact))])
            else:
                ranged.append((bounds[0][0], bounds[0][1], bounds, f))
        self._reach, highest = [], None  # the highest upper bound among files up to each
        try:
            ranged = sorted(ranged, key=lambda r: r[0])  # (a copy: left newest first if it fails)
            for _, high, _, _ in ranged:
                highest = high if highest is None or high > highest else highest
                self._reach.append(highest)
        except TypeError:  # (bounds that do not compare with each other: looked at one by one)
            self.steps.extend([r[3], None] for r in ranged)
            ranged, self._reach = [], []
        self._lows = [r[0] for r in ranged]
        self._ranged = ranged

    def _carry(self, before: "_Walk", others: tuple[DataFile, ...], names, exact: bool) -> bool:
        """Take ``before``'s sorted files (a walk of the version before, whose other files
        changed) if every one of them is still among ``others`` and the rest are inline, in
        memory or steps of ``before`` already: those become the steps, newest first. A
        compaction of one-row files changes only inline files, and a big table's Parquet files
        are then not sorted again after it. False (a sorted file gone, or a new Parquet file,
        which belongs among the sorted ones): build afresh."""
        ranged_ids, stepped_ids = before._ids
        steps = [[f, f.caches.get((MEMBERS, names, exact))] for f in reversed(others) if f.file_id not in ranged_ids]
        if len(others) - len(steps) != len(before._ranged) or not all(
                f.is_inline or f.in_memory or f.file_id in stepped_ids for f, _ in steps):
            return False
        self.steps, self._ranged, self._lows, self._reach = steps, before._ranged, before._lows, before._reach
        return True

    @cached_property
    def _ids(self) -> tuple[frozenset[int], frozenset[int]]:
        """(the sorted files' ids, the steps' ids)"""
        return frozenset(r[3].file_id for r in self._ranged), frozenset(f.file_id for f, _ in self.steps)

    def candidates(self, key) -> list[DataFile]:
        """The ranged files whose bounds hold ``key``, those of the most rows first. The key is
        live in one file at most, most likely the one holding most rows: a table's loaded
        file, whose bounds a compaction's files of updated rows - few, and spread over the
        whole key range - overlap. (In bound order, pgbench's accounts looked at 3.7 files
        a lookup there, the loaded one last.)"""
        if not self._ranged:
            return []
        first = key[0] if isinstance(key, tuple) else key
        if first is NAN:  # (no bound holds it: a Parquet footer's leave NaN out)
            return sorted((r[3] for r in self._ranged), key=_ROWS, reverse=True)
        found = []
        try:
            i = bisect.bisect_right(self._lows, first) - 1
            while i >= 0 and self._reach[i] >= first:
                _, high, bounds, f = self._ranged[i]
                if high >= first and _within(key, bounds):
                    found.append(f)
                i -= 1
        except TypeError:  # a key that does not compare with the bounds: every file may hold it
            found = [r[3] for r in self._ranged]
        if len(found) > 1:
            found.sort(key=_ROWS, reverse=True)
        return found


def _probe(store: DataFileStore, version: TableVersion, f: DataFile, key, probe: int, exact: bool) -> int | None:
    """The row id of ``key`` in ``f`` if a live row there holds it."""
    index = file_index(store, version, f, exact)
    hashes = index.view
    if not len(hashes) or not hashes[0] <= probe <= hashes[-1]:
        return None
    first = bisect.bisect_left(hashes, probe)
    if hashes[first] != probe:
        return None
    return _confirmed(store, version, f, key, range(first, bisect.bisect_right(hashes, probe, first)), exact, index)


def _members(store: DataFileStore, version: TableVersion, f: DataFile, exact: bool) -> frozenset:
    """The probes of an inline file's index, as a set (kept with the file)."""
    names = version.schema.primary_key
    members = f.caches.get((MEMBERS, names, exact))
    if members is None:
        members = f.caches[(MEMBERS, names, exact)] = frozenset(file_index(store, version, f, exact).hashes.tolist())
    return members


def _confirmed(store: DataFileStore, version: TableVersion, f: DataFile, key, matches: range,
               exact: bool, index: KeyIndex | None = None, names: tuple[str, ...] | None = None) -> int | None:
    """The row id of ``key`` among a file's index entries ``matches`` (equal hashes): the first
    at a position the version has not deleted and - for hashed keys - holding ``key``
    (``names``: its columns, by default the primary key's)."""
    index = index or file_index(store, version, f, exact)
    deleted = version.deleted(f.file_id)
    names = names or version.schema.primary_key
    for j in matches:
        pos = int(index.positions[j]) if index.positions is not None else j
        if pos in deleted:
            continue
        if not exact and not _same(_key_at(_key_columns(store, version, f, names), names, pos), key):
            continue
        return (f.file_id << 32) | pos
    return None


def keys_at(store: DataFileStore, version: TableVersion, f: DataFile, positions,
            names: tuple[str, ...] | None = None) -> list:
    """The primary keys (or the values of the columns ``names``) of rows ``positions`` of
    ``f``, a file of ``version``'s schema (deleted rows too); many of them (a DELETE of a
    whole file's rows) by one vectorised take."""
    names = names or version.schema.primary_key
    rows = _key_columns(store, version, f, names)
    if len(positions) > 16 and not isinstance(rows, PythonRows):  # (many: one vectorised take)
        return key_tuples(rows.take(pa.array(positions, pa.int64())), names)
    return [_key_at(rows, names, pos) for pos in positions]


def _key_at(rows: pa.Table | PythonRows, names: tuple[str, ...], pos: int):
    if isinstance(rows, PythonRows):
        row = rows.row(pos)
        return normal(row[names[0]]) if len(names) == 1 else tuple(normal(row[n]) for n in names)
    return key_tuples(rows.slice(pos, 1), names)[0]


def key_bounds(rows: pa.Table | PythonRows, schema: TableSchema) -> tuple | None:
    """The primary-key columns' (min, max) over ``rows``, for an inline file's log entry; None
    unless every key column is an integer or text (their Python values compare as SQL's do).
    Kept with rows held as Python values: a statement's file of them and the inline file its
    commit writes of the same rows both ask."""
    if type(rows) is PythonRows and rows.schema is schema:
        if rows.key_bounds is False:
            rows.key_bounds = _key_bounds(rows, schema)
        return rows.key_bounds
    return _key_bounds(rows, schema)


def _key_bounds(rows: pa.Table | PythonRows, schema: TableSchema) -> tuple | None:
    if not rows.num_rows or not schema.memo("_bounded_key", _bounded_key):
        return None
    if isinstance(rows, PythonRows) and rows.num_rows == 1:  # a point write's row: its key, twice
        key = [rows.columns[i][0] for i in rows.schema.memo("_key_positions", _key_positions)]
        return None if None in key else tuple((v, v) for v in key)
    bounds = []
    for name in schema.primary_key:  # a few rows (an inline file's): Python beats a compute kernel's set-up
        values = [v for v in _values(rows, name) if v is not None]
        if not values:
            return None
        bounds.append((min(values), max(values)))
    return tuple(bounds)


def _key_positions(schema: TableSchema) -> tuple[int, ...]:
    return tuple(schema.names.index(name) for name in schema.primary_key)


def _bounded_key(schema: TableSchema) -> bool:
    """Is every key column an integer or text column (whose Python values compare as SQL's do)?"""
    arrow = schema.arrow_schema()
    return bool(schema.primary_key) and all(
        pa.types.is_integer(arrow.field(n).type) or pa.types.is_string(arrow.field(n).type)
        for n in schema.primary_key)
