"""Immutable table and catalog versions, and the changes that take one version to the next.

A ``TableVersion`` is a list of immutable data files plus deletion vectors (a roaring bitmap of
deleted row positions per file). A new version shares every unchanged file with its parent:
a one-row UPDATE adds one small file and one bit in a deletion vector, whatever the table's
size (copy-on-write at file granularity).

A ``CatalogVersion`` is the state of the whole warehouse after the commit with sequence number
``csn``: every table by name. ``CatalogVersion.apply(entry)`` is the only way to go from one
version to the next, used alike by a committing session and by recovery replaying ``_txlog``,
so what a session saw committed is exactly what a reopened warehouse rebuilds.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import decimal
import itertools
import math
import re
import zoneinfo
from dataclasses import dataclass, field, replace
from typing import Mapping

import pyarrow as pa
from pyroaring import BitMap, FrozenBitMap

from txlake.storage.schema import TableSchema

EMPTY_BITMAP = FrozenBitMap()
_NO_FILES: frozenset[int] = frozenset()


def encode_bitmap(bm: FrozenBitMap | BitMap) -> str:
    return base64.b64encode(bm.serialize()).decode("ascii")


def decode_bitmap(text: str) -> FrozenBitMap:
    return FrozenBitMap.deserialize(binascii.a2b_base64(text))


class Lineage(Mapping):
    """Compaction lineage of a table version: old file id -> (new file id, first position there,
    the old file's deletion vector when it was compacted, the compaction's CSN), in compaction
    order. Versions share it: each compaction copies only the entries of the compactions since
    the last merge (``recent``, at most ``RECENT_LINEAGE``), and past that merges them into the
    older ones - dropping, then, the entries of compactions before its ``forget_before``. Which
    entries a version holds therefore follows from the log alone."""

    __slots__ = ("_old", "_new")

    def __init__(self, old: dict, new: dict):
        self._old, self._new = old, new

    def __getitem__(self, file_id: int):
        found = self._new.get(file_id)
        return found if found is not None else self._old[file_id]

    def __contains__(self, file_id) -> bool:
        return file_id in self._new or file_id in self._old

    def __iter__(self):
        return itertools.chain(self._old, self._new)

    def __len__(self) -> int:
        return len(self._old) + len(self._new)

    @property
    def recent(self) -> int:
        return len(self._new)

    def added(self, moved: Mapping, csn: int, forget_before: int) -> tuple["Lineage", list[int]]:
        """With a compaction's entries (at ``csn``); and the old file ids it forgot."""
        new = {**self._new, **{old: (*where, csn) for old, where in moved.items()}}
        if len(new) <= RECENT_LINEAGE:
            return Lineage(self._old, new), []
        entries = itertools.chain(self._old.items(), new.items())
        dropped = []
        for old, where in entries:  # (in compaction order: the forgotten ones come first)
            if where[3] >= forget_before:
                merged = {old: where}
                merged.update(entries)
                return Lineage(merged, {}), dropped
            dropped.append(old)
        return Lineage({}, {}), dropped

    def to_json(self) -> dict:
        """(Most compacted files had no deleted rows: their empty deletion vector is written as "".
        Entries are tuples: a checkpoint holds tens of thousands, which the collector then
        stops tracking instead of promoting them while the document is built.)"""
        return {"entries": [(old, new, offset, encode_bitmap(dead) if dead else "", csn)
                            for old, (new, offset, dead, csn) in itertools.chain(self._old.items(), self._new.items())],
                "recent": len(self._new)}

    @staticmethod
    def from_json(d: dict) -> "Lineage":
        entries = [(old, (new, offset, decode_bitmap(dead) if dead else EMPTY_BITMAP, csn))
                   for old, new, offset, dead, csn in d["entries"]]
        split = len(entries) - d["recent"]
        return Lineage(dict(entries[:split]), dict(entries[split:]))


RECENT_LINEAGE = 1024
NO_LINEAGE = Lineage({}, {})


class PythonRows:
    """Rows held as Python values, a sequence per column of ``schema`` - the values Arrow's
    ``to_pylist`` gives for its types. A point UPDATE's or ``INSERT ... VALUES``' rows stay
    so (in tuples, which the garbage collector stops tracking: a committed row may live long),
    in the transaction and once committed inline: reading a row back, checking it and
    encoding it for the log need no Arrow (in a busy process, building even a one-row Arrow
    table costs tens of microseconds). ``table()`` builds the Arrow table the first time
    something reads the rows as one."""

    __slots__ = ("schema", "columns", "_table", "_nbytes", "key_bounds")

    def __init__(self, schema: TableSchema, columns: list[list]):
        self.schema = schema
        self.columns = columns  # (never changed once made)
        self._table = None
        self._nbytes = None
        self.key_bounds = False  # storage/keys.py's key_bounds of the rows once asked (None: none)

    @property
    def num_rows(self) -> int:
        return len(self.columns[0])

    def row(self, pos: int) -> dict:
        return {name: values[pos] for name, values in zip(self.schema.names, self.columns)}

    def table(self) -> pa.Table:
        if self._table is None:
            self._table = _table_of(self.schema, self.columns)
        return self._table

    def nbytes(self) -> int:
        """About what the rows take in Arrow: 8 bytes a value, text its UTF-8 bytes and offset, a
        bytea its bytes (counted once: a statement and its commit both ask)."""
        if self._nbytes is None:  # (loops, not generators: mostly a point write's one row)
            n = 0
            for values in self.columns:
                n += 8 * len(values)
                for v in values:
                    if type(v) is str:
                        n += len(v.encode())
                    elif type(v) is bytes:
                        n += len(v)
            self._nbytes = n
        return self._nbytes


def _table_of(schema: TableSchema, columns: list[list]) -> pa.Table:
    """The Arrow table of ``schema`` holding ``columns``. One row is built through an Arrow
    struct: a third of what ``from_pydict`` costs."""
    if len(columns[0]) != 1:
        return pa.Table.from_pydict(dict(zip(schema.names, columns)), schema=schema.arrow_schema())
    row_type = schema.memo("_row_type", lambda s: pa.struct(s.arrow_schema()))
    row = pa.array([{name: values[0] for name, values in zip(schema.names, columns)}], row_type)
    return pa.Table.from_batches([pa.RecordBatch.from_struct_array(row)])


class _Rows:
    """``DataFile.data`` (a transaction's uncommitted rows) and ``DataFile.inline`` (rows that
    travel in the log entry): held as an Arrow table, as ``PythonRows`` (this process's point
    writes, made a table when read as one) or encoded as the log carries them (decoded the
    first time something reads them - replaying other processes' commits does not, and a
    point lookup passes over an inline file whose key bounds rule it out). ``slot`` names
    where the rows are kept in the file's ``__dict__``."""

    def __init__(self, slot: str):
        self.slot = slot

    def __get__(self, f, owner=None) -> pa.Table | None:
        if f is None:
            return None  # the dataclass field's default
        rows = f.__dict__.get(self.slot)
        if isinstance(rows, PythonRows):
            return rows.table()
        if rows is not None and not isinstance(rows, pa.Table):
            rows = f.__dict__[self.slot] = decode_rows(rows)
        return rows

    def __set__(self, f, rows: pa.Table | PythonRows | dict | str | None) -> None:
        f.__dict__[self.slot] = None if rows is self else rows  # the field's default is this object


@dataclass(frozen=True, eq=False)
class DataFile:
    """One immutable batch of rows: a Parquet file on disk, or (before commit) Arrow in memory.

    ``path`` is relative to the warehouse root. ``data`` is set only for a transaction's
    uncommitted rows. ``file_id`` is unique within its table; uncommitted files have negative
    ids. Row ids (``file_id << 32 | position``) identify a row within a table version.

    A small committed file may be *inline*: its rows travel in the log entry (``inline``) and
    ``path`` names the Parquet file the publisher materialises for other engines - so a
    one-row commit writes and fsyncs one small file, the log entry.
    """

    file_id: int
    path: str | None
    row_count: int
    schema_id: int
    size: int = 0
    data: pa.Table | None = field(default=_Rows("_data"), repr=False)  # also given as PythonRows
    # lazily built caches; shared by every version holding this file
    caches: dict = field(default_factory=dict, repr=False, compare=False)
    # also given encoded (encode_rows) or as PythonRows
    inline: pa.Table | None = field(default=_Rows("_inline"), repr=False)
    # an inline file's primary-key columns' (min, max), for integer and text keys (keys.py);
    # also an uncommitted file's whose rows are PythonRows
    key_bounds: tuple | None = field(default=None, repr=False)

    @property
    def is_inline(self) -> bool:
        """Inline rows, decoded or not (``inline is not None`` would decode them)."""
        return self.__dict__.get("_inline") is not None

    @property
    def in_memory(self) -> bool:
        """Uncommitted rows in memory (``data is not None`` would build their Arrow table)."""
        return self.__dict__.get("_data") is not None

    def python_rows(self, schema: TableSchema | None = None) -> PythonRows | None:
        """The file's rows as Python values, if it holds them so (uncommitted or inline). Given
        the ``schema`` of the file's version, inline rows still as the log encoded them
        (another process's commit, or one replayed) are decoded so too, where each column's
        type allows (``decode_values``): a point UPDATE of a row another process committed
        then reads it without building an Arrow table for it."""
        rows = self.__dict__.get("_data")
        if rows is None:
            rows = self.__dict__.get("_inline")
            if type(rows) is dict and schema is not None and schema.schema_id == self.schema_id:
                decoded = decode_values(schema, rows)
                if decoded is not None:
                    self.caches.setdefault(ENCODED, rows)  # (written as it came, if written again)
                    self.__dict__["_inline"] = rows = decoded
        return rows if isinstance(rows, PythonRows) else None

    @staticmethod
    def of_rows(file_id: int, rows: PythonRows, schema_id: int, key_bounds: tuple | None) -> "DataFile":
        """An uncommitted file holding ``rows`` as Python values (a point write's)."""
        return DataFile._built(file_id, None, rows.num_rows, schema_id, 0, rows, None, key_bounds)

    @staticmethod
    def _built(file_id: int, path: str | None, row_count: int, schema_id: int, size: int, data, inline,
               key_bounds: tuple | None) -> "DataFile":
        """A file built past the frozen dataclass's ``__init__``, which costs more than the rest of
        a point statement's file handling: every point write, every inline file a commit
        writes and every file of another process's commit is made so. ``data``/``inline`` as the
        fields' descriptors store them."""
        f = object.__new__(DataFile)
        f.__dict__.update(file_id=file_id, path=path, row_count=row_count, schema_id=schema_id, size=size,
                          _data=data, caches={}, _inline=inline, key_bounds=key_bounds)
        return f

    def numbered(self, file_id: int) -> "DataFile":
        """This file under the id ``file_id`` (a commit's files get theirs when it is voted):
        ``dataclasses.replace`` without re-running ``__init__`` (its rows and caches shared)."""
        f = object.__new__(DataFile)
        f.__dict__.update(self.__dict__)
        f.__dict__["file_id"] = file_id
        return f

    def to_json(self) -> dict:
        d = {"id": self.file_id, "path": self.path, "rows": self.row_count,
             "schema": self.schema_id, "size": self.size}
        rows = self.__dict__.get("_inline")
        if rows is not None:
            d["inline"] = self.caches.get(ENCODED) or encode_inline(rows)
        if self.key_bounds is not None:
            d["key_bounds"] = [list(b) for b in self.key_bounds]
        return d

    @staticmethod
    def from_json(d: dict) -> "DataFile":
        bounds = d.get("key_bounds")
        return DataFile._built(d["id"], d["path"], d["rows"], d["schema"], d.get("size", 0), None, d.get("inline"),
                               tuple(map(tuple, bounds)) if bounds is not None else None)


def encode_rows(table: pa.Table) -> dict | str:
    """Rows for a log entry. Columns of plain types go as JSON values (``{"names", "types",
    "columns"}``): integers, floats, booleans and text as themselves, dates and timestamps as
    their integer days / microseconds, decimals as text - all exact, and a one-row file costs
    tens of bytes; bytes as hex. Anything else goes as an Arrow IPC stream in base64 (exact types; its
    schema alone is about 1 KB)."""
    columns = []
    for column_field, column in zip(table.schema, table.columns):
        kind = _json_kind(column_field.type)
        if kind is None:
            sink = pa.BufferOutputStream()
            with pa.ipc.new_stream(sink, table.schema) as writer:
                writer.write_table(table)
            return base64.b64encode(sink.getvalue().to_pybytes()).decode("ascii")
        if kind == "decimal":
            columns.append([None if v is None else str(v) for v in column.to_pylist()])
        elif kind == "bytes":
            columns.append([None if v is None else v.hex() for v in column.to_pylist()])
        elif kind == "plain":
            columns.append(column.to_pylist())
        elif kind == "float":
            columns.append(_finite_json(column.to_pylist()))
        else:  # a temporal type: its integer storage
            columns.append([v for chunk in column.chunks for v in chunk.view(kind).to_pylist()])
    return {"names": table.schema.names, "types": [str(f.type) for f in table.schema], "columns": columns}


# DataFile.caches key: an inline file's rows already encoded for the log (by the commit's
# prepare step, outside the log's lock; dropped once the log holds them)
ENCODED = "encoded"


def encode_inline(rows: pa.Table | PythonRows | dict | str) -> dict | str:
    """An inline file's rows, in whichever form they are held, encoded for the log."""
    if isinstance(rows, PythonRows):
        return encode_values(rows.schema, rows.columns) or encode_rows(rows.table())
    return encode_rows(rows) if isinstance(rows, pa.Table) else rows

_EPOCH = datetime.datetime(1970, 1, 1)
_EPOCH_UTC = _EPOCH.replace(tzinfo=zoneinfo.ZoneInfo("UTC"))  # (the tzinfo to_pylist gives a TIMESTAMPTZ)
_EPOCH_DAY = datetime.date(1970, 1, 1).toordinal()
_MICROSECOND = datetime.timedelta(microseconds=1)


def encode_values(schema: TableSchema, columns: list[list]) -> dict | None:
    """``encode_rows`` of rows held as Python values, without Arrow: a list per column of the
    values ``to_pylist`` gives for ``schema``'s types (or values they convert to exactly).
    A point write's row encodes in microseconds, where reading it back from Arrow takes tens.
    Columns that go as they are are shared, not copied (rows are never changed once made).
    None if a column's type does not go as JSON values this way."""
    layout = _json_layout(schema)
    if layout is None:
        return None
    names, types, kinds = layout
    out = []
    for kind, values in zip(kinds, columns):
        if kind == "plain":
            out.append(values)
        elif kind == "float":
            out.append(_finite_json(values))
        elif kind == "decimal":
            out.append([None if v is None else str(v) for v in values])
        elif kind == "bytes":
            out.append([None if v is None else v.hex() for v in values])
        elif kind == "date":
            out.append([None if v is None else v.toordinal() - _EPOCH_DAY for v in values])
        elif kind == "instant":  # an aware datetime: microseconds since the epoch, UTC
            out.append([None if v is None else (v - _EPOCH_UTC) // _MICROSECOND for v in values])
        elif kind == "time":  # a time of day: microseconds since midnight
            out.append([None if v is None else ((v.hour * 60 + v.minute) * 60 + v.second) * 1_000_000 + v.microsecond
                        for v in values])
        else:  # a timestamp in microseconds
            out.append([None if v is None else (v - _EPOCH) // _MICROSECOND for v in values])
    return {"names": names, "types": types, "columns": out}


def decode_values(schema: TableSchema, encoded: dict) -> PythonRows | None:
    """``encode_values``' inverse: rows encoded as JSON values, as the Python values
    ``to_pylist`` gives for ``schema``'s types. None if they were encoded in other names or
    types than ``schema``'s, or a column's type is not one ``encode_values`` writes."""
    layout = _json_layout(schema)
    if layout is None or encoded["names"] != layout[0] or encoded["types"] != layout[1]:
        return None
    columns = []
    for kind, values in zip(layout[2], encoded["columns"]):
        if kind == "plain":
            columns.append(values)
        elif kind == "float":
            columns.append([v if v is None else float(v) for v in values])
        elif kind == "decimal":
            columns.append([None if v is None else decimal.Decimal(v) for v in values])
        elif kind == "bytes":
            columns.append([None if v is None else bytes.fromhex(v) for v in values])
        elif kind == "date":
            columns.append([None if v is None else datetime.date.fromordinal(v + _EPOCH_DAY) for v in values])
        elif kind == "instant":
            columns.append([None if v is None else _EPOCH_UTC + datetime.timedelta(microseconds=v)
                            for v in values])
        elif kind == "time":
            columns.append([None if v is None else (_EPOCH + datetime.timedelta(microseconds=v)).time()
                            for v in values])
        else:  # a timestamp in microseconds
            columns.append([None if v is None else _EPOCH + datetime.timedelta(microseconds=v) for v in values])
    return PythonRows(schema, columns)


def _json_layout(schema: TableSchema) -> tuple[list, list, list] | None:
    """(names, type names, kinds) of ``encode_values``, once per schema; None if a column is
    of a type it leaves to Arrow."""
    return schema.memo("_json_layout", _build_json_layout)


def _build_json_layout(schema: TableSchema) -> tuple[list, list, list] | None:
    arrow = schema.arrow_schema()
    kinds = []
    for f in arrow:
        kind = _json_kind(f.type)
        if kind in ("plain", "decimal", "float", "bytes"):
            kinds.append(kind)
        elif pa.types.is_date32(f.type):
            kinds.append("date")
        elif pa.types.is_time64(f.type) and f.type.unit == "us":
            kinds.append("time")
        elif kind is not None and f.type.unit == "us":
            kinds.append("instant" if f.type.tz is not None else "timestamp")
        else:
            return None
    return arrow.names, [str(f.type) for f in arrow], kinds


def _finite_json(values) -> list:
    """Float values for strict JSON: NaN and the infinities as the strings "NaN", "Infinity"
    and "-Infinity" (JSON has no literal for them; ``decode_rows`` reads either form)."""
    return [v if v is None or math.isfinite(v) else repr(v).replace("inf", "Infinity").replace("nan", "NaN")
            for v in values]


def decode_rows(encoded: dict | str) -> pa.Table:
    if isinstance(encoded, str):
        return pa.ipc.open_stream(base64.b64decode(encoded)).read_all()
    arrays, fields = [], []
    for name, type_name, values in zip(encoded["names"], encoded["types"], encoded["columns"]):
        t = _arrow_type(type_name)
        kind = _json_kind(t)
        if kind == "decimal":
            array = pa.array([None if v is None else decimal.Decimal(v) for v in values], t)
        elif kind == "bytes":
            array = pa.array([None if v is None else bytes.fromhex(v) for v in values], t)
        elif kind == "plain":
            array = pa.array(values, t)
        elif kind == "float":
            array = pa.array([float(v) if type(v) is str else v for v in values], t)
        else:
            array = pa.array(values, kind).view(t)
        arrays.append(array)
        fields.append(pa.field(name, t))
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


def _json_kind(t: pa.DataType):
    """How ``encode_rows`` writes a column of type ``t`` as JSON: "plain", "float", "decimal", "bytes",
    the integer type of a temporal type's storage, or None (not as JSON)."""
    if pa.types.is_integer(t) or pa.types.is_boolean(t) or pa.types.is_string(t):
        return "plain"
    if pa.types.is_floating(t):
        return "float"
    if pa.types.is_decimal128(t):
        return "decimal"
    if pa.types.is_binary(t):
        return "bytes"  # (as hex)
    if pa.types.is_date32(t):
        return pa.int32()
    if pa.types.is_time64(t):
        return pa.int64()
    if pa.types.is_timestamp(t) and t.tz in (None, "UTC"):  # (TIMESTAMPTZ: an instant, in UTC)
        return pa.int64()
    return None


_ARROW_TYPES: dict[str, pa.DataType] = {}


def _arrow_type(name: str) -> pa.DataType:
    t = _ARROW_TYPES.get(name)
    if t is None:
        decimal_type = re.fullmatch(r"decimal128\((\d+), (\d+)\)", name)
        zoned = re.fullmatch(r"timestamp\[(\w+), tz=(.+)\]", name)
        t = _ARROW_TYPES[name] = (pa.decimal128(int(decimal_type[1]), int(decimal_type[2])) if decimal_type
                                  else pa.timestamp(zoned[1], tz=zoned[2]) if zoned else pa.type_for_alias(name))
    return t


# TableVersion.caches keys: TableVersion.one_row_files(), TableVersion.uncommitted()
ONE_ROW = "one_row"
UNCOMMITTED = "uncommitted"
# TableVersion.caches key: (small, fraction, n) - n of the version's files are worth rewriting
# (``rewritable``); carried by with_files once asked for, so that auto-compaction's question
# after every commit does not walk every file of a big table
REWRITABLE = "rewritable"
# key in a one_row_files() memo: what the memo of the version before had built (see above)
CARRIED = "carried"


def rewritable(rows: int, dead: int, small: int, fraction: float) -> bool:
    """Is a file of ``rows`` rows, ``dead`` of them deleted, worth rewriting in a compaction:
    fewer than ``small`` live rows, or more than ``fraction`` of them deleted?"""
    return rows - dead < small or dead > fraction * rows


def one_row_key(f: DataFile, width: int):
    """The primary key of a one-row file, from its exact key bounds (``width`` key columns);
    None if the file has more rows or no such bounds."""
    bounds = f.key_bounds
    if f.row_count != 1 or bounds is None or len(bounds) != width or not width:
        return None
    return bounds[0][0] if width == 1 else tuple(lo for lo, _ in bounds)


@dataclass(frozen=True, eq=False)
class TableVersion:
    table_id: str
    db: str
    name: str
    schema: TableSchema
    files: tuple[DataFile, ...] = ()
    deletes: Mapping[int, FrozenBitMap] = field(default_factory=dict)
    next_file_id: int = 1
    # compaction lineage: old file id -> (new file id, first position there, the old file's
    # deletion vector when it was compacted, the compaction's CSN); lets a row id from before a
    # compaction be found. Entries no snapshot in use can need are dropped (``forget_before``);
    # ``forgotten`` is the highest old file id whose entry was (``lineage_lost``)
    moved: Lineage = field(default_factory=lambda: NO_LINEAGE)
    caches: dict = field(default_factory=dict, repr=False, compare=False)
    forgotten: int = 0
    # the CSN of the newest commit that changed the table's rows or schema (its creation
    # included); a compaction moves rows without changing any and leaves it. Two committed
    # versions of a table with the same ``rows_csn`` hold the same rows, so a rewrite of the
    # table stands over the compactions since its snapshot (storage/commit.py). 0 if read from
    # a checkpoint that predates it, until the next change of the rows: equal just as well
    rows_csn: int = 0

    @property
    def key(self) -> tuple[str, str]:
        return (self.db, self.name)

    @property
    def is_view(self) -> bool:
        """Is this catalog entry a view (no files; its schema holds its definition)?"""
        return self.schema.view is not None

    @property
    def is_sequence(self) -> bool:
        """Is this catalog entry a sequence (no files; its schema holds its definition)?"""
        return self.schema.sequence is not None

    @property
    def is_type(self) -> bool:
        """Is this catalog entry a user-defined type, an enum or a domain (no files; its schema
        holds its definition)?"""
        return self.schema.user_type is not None

    @property
    def is_function(self) -> bool:
        """Is this catalog entry a user-defined function (no files; its schema holds its
        definition, its name the function's with its argument types: engine/functions.py)?"""
        return self.schema.function is not None

    @property
    def is_matview(self) -> bool:
        """Is this table a materialized view (a table whose schema holds its query)?"""
        return self.schema.matview is not None

    @property
    def is_table(self) -> bool:
        """Does this catalog entry hold rows (a table, or a materialized view)?"""
        return self.schema.view is None and self.schema.sequence is None and self.schema.user_type is None \
            and self.schema.function is None

    def column_types(self) -> tuple[tuple[str, str], ...]:
        """(name, type) of each column - a view's as its definition fixed them - as a view's
        dependencies record the columns it uses (storage/schema.py ``ViewDependency``)."""
        if self.schema.view is not None:
            return self.schema.view.columns
        return tuple((c.name, c.type.display()) for c in self.schema.columns)

    @property
    def row_count(self) -> int:
        return sum(f.row_count - len(self.deletes.get(f.file_id, EMPTY_BITMAP)) for f in self.files)

    def deleted(self, file_id: int) -> FrozenBitMap:
        return self.deletes.get(file_id, EMPTY_BITMAP)

    def file(self, file_id: int) -> DataFile | None:
        by_id = self.caches.get("by_id")
        return (by_id if by_id is not None else self._by_id()).get(file_id)

    def file_ids(self):
        """The ids of the version's files (a set-like view)."""
        return self._by_id().keys()

    def _by_id(self) -> dict[int, DataFile]:
        by_id = self.caches.get("by_id")
        if by_id is None:
            by_id = self.caches["by_id"] = {f.file_id: f for f in self.files}
        return by_id

    def locate(self, file_id: int, pos: int) -> tuple[int, int] | None:
        """Where row (file_id, pos) of an older version is in this one, following compactions;
        None if it is gone (deleted before a compaction, or its whole file was deleted)."""
        while self.file(file_id) is None:
            if file_id not in self.moved:
                return None  # the file is gone: every row of it was deleted (or see lineage_lost)
            new_id, offset, dead, _ = self.moved[file_id]
            if pos in dead:
                return None
            file_id, pos = new_id, offset + pos - (dead.rank(pos) if dead else 0)
        return file_id, pos

    def whereabouts(self, file_id: int, pos: int):
        """Row (file_id, pos) of an older version, then each place compactions moved it to, up
        to where it is in this version (``locate``'s steps, the first included): an updater
        that saw the row at any of them recorded its update chain from there."""
        yield file_id, pos
        while self.file(file_id) is None and file_id in self.moved:
            new_id, offset, dead, _ = self.moved[file_id]
            if pos in dead:
                return
            file_id, pos = new_id, offset + pos - (dead.rank(pos) if dead else 0)
            yield file_id, pos

    def lineage_lost(self, file_id: int) -> bool:
        """Is ``file_id`` gone from this version such that ``locate`` cannot tell whether its
        rows were deleted or moved by a compaction whose lineage was forgotten? Callers that
        must not take a move for a delete then fail (40001) or start again."""
        return file_id <= self.forgotten and file_id not in self.moved and self.file(file_id) is None

    def one_row_files(self) -> tuple[dict, tuple[DataFile, ...], dict]:
        """(primary key -> file id of each one-row file whose key is known, every other file in
        version order, a memo of those other files). A one-row file is dropped from a version
        when its row is deleted, so each key there is a live row's: a point lookup finds the
        row a workload keeps updating without walking the files before it. Built once, then
        carried from version to version (``with_files``); the memo is shared by every version
        with the same other files (storage/keys.py keeps how to walk them there)."""
        memo = self.caches.get(ONE_ROW)
        if memo is None:
            width = len(self.schema.primary_key)
            keys, others = {}, []
            for f in self.files:
                key = one_row_key(f, width)
                if key is None:
                    others.append(f)
                else:
                    keys[key] = f.file_id
            memo = self.caches[ONE_ROW] = (keys, tuple(others), {})
        return memo

    def uncommitted(self) -> tuple[DataFile, ...]:
        """A transaction's own files in its working version (negative ids: rows in memory, or
        spilled to Parquet), in version order. Carried from version to version like the file
        index: asked after every statement, it must not walk every file."""
        memo = self.caches.get(UNCOMMITTED)
        if memo is None:
            memo = self.caches[UNCOMMITTED] = tuple(f for f in self.files if f.file_id < 0)
        return memo

    def rewritable_files(self, small: int, fraction: float) -> int:
        """How many of the version's files are ``rewritable`` - counted once, then carried from
        version to version (``with_files``: the files a change touches are counted again)."""
        memo = self.caches.get(REWRITABLE)
        if memo is None or memo[:2] != (small, fraction):
            n = sum(1 for f in self.files if rewritable(f.row_count, len(self.deleted(f.file_id)), small, fraction))
            memo = self.caches[REWRITABLE] = (small, fraction, n)
        return memo[2]

    def _rewritable_after(self, memo: tuple[int, float, int], added: tuple[DataFile, ...], gone: set[int],
                          deleted: Mapping[int, FrozenBitMap] | None, deletes: dict) -> tuple[int, float, int]:
        """``memo`` for the version ``with_files`` makes: ``gone`` files leave the count, ``added``
        ones join it, and files whose deletion vector grew are counted again (``deletes``: the
        new version's deletion vectors)."""
        small, fraction, n = memo
        for fid in gone:
            f = self.file(fid)
            if f is not None and rewritable(f.row_count, len(self.deleted(fid)), small, fraction):
                n -= 1
        for f in added:
            if f.file_id not in gone and rewritable(f.row_count, len(deletes.get(f.file_id, ())), small, fraction):
                n += 1
        for fid in deleted or ():
            f = self.file(fid) if fid not in gone else None
            if f is not None:  # (an added file's deletions were counted with it)
                n += rewritable(f.row_count, len(deletes[fid]), small, fraction) \
                    - rewritable(f.row_count, len(self.deleted(fid)), small, fraction)
        return small, fraction, n

    def _one_row_after(self, memo: tuple[dict, tuple, dict], added: tuple[DataFile, ...], gone: set[int],
                       leaving: list[DataFile]):
        """``one_row_files()``'s memo for the version ``with_files`` makes: ``leaving``, the
        files of ``gone`` this version has, leave it."""
        keys, others, _ = memo
        width = len(self.schema.primary_key)
        if gone:
            keys = dict(keys)
            for f in leaving:
                key = one_row_key(f, width)
                if key is not None and keys.get(key) == f.file_id:
                    del keys[key]
            if len(memo[0]) - len(keys) < len(gone):  # not every file gone was a one-row one
                others = tuple(f for f in others if f.file_id not in gone)
        new_others = []
        for f in added:
            if f.file_id in gone:  # (every row deleted at once: it never joins the version)
                continue
            key = one_row_key(f, width)
            if key is None:
                new_others.append(f)
            else:
                if keys is memo[0]:
                    keys = dict(keys)
                keys[key] = f.file_id
        if new_others:
            others += tuple(new_others)
        if others is memo[1]:
            return keys, others, memo[2]
        # the other files changed: the new memo starts empty, with what the old one had built
        # for point lookups handed on (storage/keys.py reuses the part the change left alone)
        built = memo[2].copy()  # (point lookups in other threads add to it: copied in one step)
        carried = built.pop(CARRIED, None)
        built = built or carried
        return keys, others, {CARRIED: built} if built else {}

    def renamed(self, name: str) -> "TableVersion":
        """The same table (id, files, rows) called ``name``; caches are not carried over."""
        return replace(self, name=name, caches={})

    def to_json(self) -> dict:
        """The version as a checkpoint holds it (storage/checkpoint.py): its files as a log
        entry lists them, inline rows included."""
        return {"table_id": self.table_id, "db": self.db, "name": self.name, "schema": self.schema.to_json(),
                "files": [f.to_json() for f in self.files], "next_file_id": self.next_file_id,
                "deleted": {str(fid): encode_bitmap(bm) for fid, bm in sorted(self.deletes.items())},
                "moved": self.moved.to_json(), "forgotten": self.forgotten, "rows_csn": self.rows_csn}

    @staticmethod
    def from_json(d: dict) -> "TableVersion":
        return TableVersion(d["table_id"], d["db"], d["name"], TableSchema.from_json(d["schema"]),
                            tuple(DataFile.from_json(f) for f in d["files"]),
                            {int(fid): decode_bitmap(bm) for fid, bm in d["deleted"].items()}, d["next_file_id"],
                            Lineage.from_json(d["moved"]), forgotten=d["forgotten"], rows_csn=d.get("rows_csn", 0))

    def with_files(self, added: tuple[DataFile, ...] = (), removed: frozenset[int] = frozenset(),
                   deleted: Mapping[int, FrozenBitMap] | None = None,
                   schema: TableSchema | None = None,
                   moved: Mapping[int, tuple[int, int, FrozenBitMap]] | None = None, csn: int = 0,
                   forget_before: int = 0) -> "TableVersion":
        """This version with files added and removed and rows deleted; a file whose every row is
        deleted leaves it. Asked for every statement's and every commit's changes, so it works
        in the size of the change where it can: the file index and the one-row keys are
        carried over (a copy and a few edits), not rebuilt from every file. ``csn``: the commit
        making the change (``CatalogVersion.apply``; a transaction's own changes have none)."""
        parent = self.caches
        by_id = parent.get("by_id") or self._by_id()
        # (shared while the change deletes nothing - an insert's: a version's dict is never changed)
        deletes = dict(self.deletes) if removed or deleted else self.deletes
        gone = set(removed)  # files leaving: removed, or every row deleted
        for fid in removed:
            deletes.pop(fid, None)
        if deleted:
            for fid, bm in deleted.items():
                old = deletes.get(fid)
                merged = old | bm if old is not None else bm  # (a FrozenBitMap's union is one:
                if type(merged) is not FrozenBitMap:  # not copied again, O(the deletion vector))
                    merged = FrozenBitMap(merged)
                # only files whose deletion vector grows here can newly be wholly deleted
                f = by_id.get(fid) or next((a for a in added if a.file_id == fid), None)
                if f is not None and len(merged) >= f.row_count:
                    gone.add(fid)
                    deletes.pop(fid, None)
                else:
                    deletes[fid] = merged
        leaving = [f for f in map(by_id.get, gone) if f is not None] if gone else ()  # (this version's)
        next_id = self.next_file_id
        if added:
            if len(added) == 1:  # (a point statement's)
                joining = added if added[0].file_id not in gone else ()
            else:
                joining = tuple(f for f in added if f.file_id not in gone) if gone else added
            for f in added:
                if f.file_id >= next_id:
                    next_id = f.file_id + 1
        else:
            joining = ()
        files = self.files
        if len(leaving) > 4:
            files = tuple(f for f in files if f.file_id not in gone) + joining
        elif len(leaving) == 1:  # (a point statement's: found by identity and cut out, in C, with one copy)
            kept = list(files)
            del kept[files.index(leaving[0])]
            kept += joining
            files = tuple(kept)
        else:
            for f in leaving:
                i = files.index(f)
                files = files[:i] + files[i + 1:]
            files += joining
        # the file index carried over: a copy, not a rebuild from all files
        caches = {"by_id": dict(by_id)}
        if leaving:
            index = caches["by_id"]
            for f in leaving:
                del index[f.file_id]
        if joining:
            index = caches["by_id"]
            for f in joining:
                index[f.file_id] = f
        counted = parent.get(REWRITABLE)
        if counted is not None:  # carried over likewise
            caches[REWRITABLE] = self._rewritable_after(counted, added, gone, deleted, deletes)
        one_row = parent.get(ONE_ROW)
        if one_row is not None and schema is None:  # carried over likewise
            caches[ONE_ROW] = self._one_row_after(one_row, added, gone, leaving)
        mine = parent.get(UNCOMMITTED)
        if mine is None:  # (walks the files once in a chain of versions: then carried)
            mine = self.uncommitted()
        if mine and leaving:
            mine = tuple(f for f in mine if f.file_id not in gone)
        for f in joining:
            if f.file_id < 0:
                mine += (f,)
        caches[UNCOMMITTED] = mine
        lineage, forgotten = self.moved, self.forgotten
        if moved:  # a compaction's (``csn``)
            lineage, dropped = lineage.added(moved, csn, forget_before)
            forgotten = max(forgotten, *dropped) if dropped else forgotten
        # (the dataclass's frozen __init__ costs more than the rest of this method together)
        version = object.__new__(TableVersion)
        version.__dict__.update(table_id=self.table_id, db=self.db, name=self.name, schema=schema or self.schema,
                                files=files, deletes=deletes, next_file_id=next_id, moved=lineage, caches=caches,
                                forgotten=forgotten, rows_csn=csn if csn and not moved else self.rows_csn)
        return version


# --- changes recorded in a log entry ----------------------------------------------------

@dataclass(frozen=True)
class CreateTable:
    table_id: str
    db: str
    name: str
    schema: TableSchema

    def to_json(self) -> dict:
        return {"op": "create", "table_id": self.table_id, "db": self.db, "name": self.name,
                "schema": self.schema.to_json()}


@dataclass(frozen=True)
class DropTable:
    table_id: str

    def to_json(self) -> dict:
        return {"op": "drop", "table_id": self.table_id}


@dataclass(frozen=True)
class RenameTable:
    """``ALTER TABLE ... RENAME TO``: the table ``table_id`` is called ``name`` from now on (in
    its schema; its files stay where they are, named by their paths)."""

    table_id: str
    name: str

    def to_json(self) -> dict:
        return {"op": "rename", "table_id": self.table_id, "name": self.name}


@dataclass(frozen=True)
class ChangeData:
    """Rows added (new files), files removed, rows deleted (bitmaps per file), new schema."""

    table_id: str
    added: tuple[DataFile, ...] = ()
    removed: frozenset[int] = frozenset()
    deleted: Mapping[int, FrozenBitMap] = field(default_factory=dict)
    schema: TableSchema | None = None
    moved: Mapping[int, tuple[int, int, FrozenBitMap]] = field(default_factory=dict)  # compaction
    forget_before: int = 0  # a compaction's: lineage of compactions before this CSN is dropped

    @property
    def rows_added(self) -> int:
        return sum(f.row_count for f in self.added)

    @property
    def rows_deleted(self) -> int:
        return sum(len(bm) for bm in self.deleted.values())

    def to_json(self) -> dict:
        d = {"op": "data", "table_id": self.table_id, "added": [f.to_json() for f in self.added],
             "removed": sorted(self.removed),
             "deleted": {str(fid): encode_bitmap(bm) for fid, bm in sorted(self.deleted.items())}}
        if self.schema is not None:
            d["schema"] = self.schema.to_json()
        if self.moved:
            d["moved"] = {str(old): [new, offset, encode_bitmap(dead)]
                          for old, (new, offset, dead) in sorted(self.moved.items())}
        if self.forget_before:
            d["forget_before"] = self.forget_before
        return d


Change = CreateTable | DropTable | RenameTable | ChangeData


def change_from_json(d: dict) -> Change:
    op = d["op"]
    if op == "create":
        return CreateTable(d["table_id"], d["db"], d["name"], TableSchema.from_json(d["schema"]))
    if op == "drop":
        return DropTable(d["table_id"])
    if op == "rename":
        return RenameTable(d["table_id"], d["name"])
    if op == "data":  # (the usual case - another process's commit, replayed - without the empty parts)
        removed, moved = d["removed"], d.get("moved")
        return ChangeData(
            d["table_id"], tuple([DataFile.from_json(f) for f in d["added"]]),
            frozenset(removed) if removed else _NO_FILES,
            {int(fid): decode_bitmap(bm) for fid, bm in d["deleted"].items()},
            TableSchema.from_json(d["schema"]) if "schema" in d else None,
            {int(old): (new, offset, decode_bitmap(dead)) for old, (new, offset, dead) in moved.items()}
            if moved else {},
            d.get("forget_before", 0))
    raise ValueError(f"unknown change {op!r}")


@dataclass(frozen=True)
class LogEntry:
    """One committed transaction (or commit group): the unit of durability and of ordering."""

    csn: int
    xid: int
    commit_user: str
    commit_id: str
    time_ms: int
    changes: tuple[Change, ...]
    # exactly-once: at most one entry in the log carries a given label (BEGIN ... WITH LABEL,
    # the Spark writer's ``label`` option)
    label: str | None = None
    # an abort entry (no changes): a prepared transaction's label taken by its abort, and why
    aborted: str | None = None
    # group commit: the transactions sharing this entry, each (xid, commit id, first change,
    # end of its changes); empty for an entry of one transaction
    members: tuple[tuple[int, str, int, int], ...] = ()

    def to_json(self) -> dict:
        d = {"csn": self.csn, "xid": self.xid, "commit_user": self.commit_user,
             "commit_id": self.commit_id, "time_ms": self.time_ms,
             "changes": [c.to_json() for c in self.changes]}
        if self.label is not None:
            d["label"] = self.label
        if self.aborted is not None:
            d["aborted"] = self.aborted
        if self.members:
            d["members"] = [list(m) for m in self.members]
        return d

    @staticmethod
    def from_json(d: dict) -> "LogEntry":
        members = d.get("members")
        return LogEntry(d["csn"], d["xid"], d["commit_user"], d["commit_id"], d["time_ms"],
                        tuple([change_from_json(c) for c in d["changes"]]), d.get("label"), d.get("aborted"),
                        tuple(map(tuple, members)) if members else ())

    def tables(self) -> set[str]:
        return {c.table_id for c in self.changes}

    def member(self, commit_id: str) -> "LogEntry":
        """The part of a group entry that one transaction committed (the entry itself if alone)."""
        if not self.members:
            return self
        for xid, cid, start, end in self.members:
            if cid == commit_id:
                return LogEntry(self.csn, xid, self.commit_user, cid, self.time_ms, self.changes[start:end])
        return LogEntry(self.csn, 0, self.commit_user, commit_id, self.time_ms, ())  # changed nothing


@dataclass(frozen=True, eq=False)
class CatalogVersion:
    csn: int
    time_ms: int = 0
    tables: Mapping[tuple[str, str], TableVersion] = field(default_factory=dict)
    max_xid: int = 0
    #: how many of ``tables`` are views, carried by ``apply``: a statement looks for views to
    #: expand only where there are any
    views: int = 0
    #: how many of ``tables`` are sequences, carried by ``apply`` as ``views``
    sequences: int = 0
    #: how many of ``tables`` are materialized views, carried by ``apply`` as ``views``
    matviews: int = 0
    #: how many of ``tables`` are user-defined types (enums, domains), carried by ``apply`` as ``views``
    types: int = 0
    #: how many of ``tables`` are user-defined functions, carried by ``apply`` as ``views``: a
    #: statement is looked at for calls of them only where there are any
    functions: int = 0
    #: how many of ``tables`` have foreign keys, carried by ``apply`` as ``views``: a write
    #: looks for the tables referencing its table only where there are any
    foreign_keys: int = 0
    #: how many of ``tables`` have a jsonb column, carried by ``apply`` as ``foreign_keys``: a
    #: statement is looked at for jsonb comparisons and sorts only where there are any
    jsonb_tables: int = 0
    #: how many of ``tables`` have a CHAR(n) column, carried as ``jsonb_tables``: a statement is
    #: looked at for CHAR comparisons and output only where there are any (engine/bpchar.py)
    char_tables: int = 0
    #: how many of ``tables`` have an inet or cidr column, carried as ``jsonb_tables``: a statement
    #: is looked at for their comparisons, sorts and operators only where there are any (engine/network.py)
    inet_tables: int = 0
    #: how many of ``tables`` are partitioned tables or partitions, carried as ``jsonb_tables``: a
    #: statement is looked at for them only where there are any (engine/partitions.py)
    partitioned: int = 0
    # table id -> (db, name): built at the first ``by_id``, then carried from version to
    # version by ``apply`` (a copy and a few edits): a transaction asks about ten times, and
    # neither the ask nor the commit walks every table of the warehouse
    _ids: dict | None = field(default=None, repr=False, compare=False)
    # referenced table id -> ((referencing table id, ForeignKey), ...): built at the first
    # ``referencing``, carried by ``apply`` while no entry changes a schema
    _referencing: dict | None = field(default=None, repr=False, compare=False)

    def table(self, db: str, name: str) -> TableVersion | None:
        return self.tables.get((db, name))

    def by_id(self, table_id: str) -> TableVersion | None:
        key = self._id_index().get(table_id)
        return self.tables[key] if key is not None else None

    def _id_index(self) -> dict[str, tuple[str, str]]:
        ids = self._ids
        if ids is None:
            ids = {t.table_id: key for key, t in self.tables.items()}
            object.__setattr__(self, "_ids", ids)
        return ids

    def referencing(self, table_id: str) -> tuple:
        """The foreign keys referencing the table ``table_id``, as (referencing table id,
        ForeignKey) pairs (a self-reference too)."""
        found = self._referencing
        if found is None:
            found = {}
            if self.foreign_keys:
                for t in self.tables.values():
                    for fk in t.schema.foreign_keys:
                        found.setdefault(fk.table_id, []).append((t.table_id, fk))
            found = {k: tuple(v) for k, v in found.items()}
            object.__setattr__(self, "_referencing", found)
        return found.get(table_id, ())

    def to_json(self) -> dict:
        return {"csn": self.csn, "time_ms": self.time_ms, "max_xid": self.max_xid,
                "tables": [t.to_json() for t in self.tables.values()]}

    @staticmethod
    def from_json(d: dict) -> "CatalogVersion":
        tables = [TableVersion.from_json(t) for t in d["tables"]]
        return CatalogVersion(d["csn"], d["time_ms"], {t.key: t for t in tables}, d["max_xid"],
                              views=sum(1 for t in tables if t.is_view),
                              sequences=sum(1 for t in tables if t.is_sequence),
                              matviews=sum(1 for t in tables if t.is_matview),
                              types=sum(1 for t in tables if t.is_type),
                              functions=sum(1 for t in tables if t.is_function),
                              foreign_keys=sum(1 for t in tables if t.schema.foreign_keys),
                              jsonb_tables=sum(1 for t in tables if t.schema.has_jsonb),
                              char_tables=sum(1 for t in tables if t.schema.blank_padded),
                              inet_tables=sum(1 for t in tables if t.schema.network_columns),
                              partitioned=sum(1 for t in tables if t.schema.partitioned))

    def apply(self, entry: LogEntry) -> "CatalogVersion":
        assert entry.csn == self.csn + 1, (entry.csn, self.csn)
        tables = dict(self.tables)
        by_id = dict(self._id_index())
        views, sequences, types, foreign_keys = self.views, self.sequences, self.types, self.foreign_keys
        matviews, functions = self.matviews, self.functions
        jsonb_tables, char_tables, inet_tables = self.jsonb_tables, self.char_tables, self.inet_tables
        partitioned = self.partitioned
        referencing = self._referencing
        renamed = None
        for change in entry.changes:
            if type(change) is ChangeData:  # (the usual change: asked first)
                key = by_id[change.table_id]
                if change.schema is not None:
                    foreign_keys += bool(change.schema.foreign_keys) - bool(tables[key].schema.foreign_keys)
                    jsonb_tables += change.schema.has_jsonb - tables[key].schema.has_jsonb
                    char_tables += bool(change.schema.blank_padded) - bool(tables[key].schema.blank_padded)
                    inet_tables += bool(change.schema.network_columns) - bool(tables[key].schema.network_columns)
                    partitioned += change.schema.partitioned - tables[key].schema.partitioned
                    referencing = None
                tables[key] = tables[key].with_files(change.added, change.removed, change.deleted,
                                                     change.schema, change.moved, entry.csn, change.forget_before)
            elif isinstance(change, CreateTable):
                tables[(change.db, change.name)] = TableVersion(change.table_id, change.db, change.name, change.schema,
                                                                rows_csn=entry.csn)
                by_id[change.table_id] = (change.db, change.name)
                views += change.schema.view is not None
                sequences += change.schema.sequence is not None
                matviews += change.schema.matview is not None
                types += change.schema.user_type is not None
                functions += change.schema.function is not None
                foreign_keys += bool(change.schema.foreign_keys)
                jsonb_tables += change.schema.has_jsonb
                char_tables += bool(change.schema.blank_padded)
                inet_tables += bool(change.schema.network_columns)
                partitioned += change.schema.partitioned
                referencing = None
            elif isinstance(change, DropTable):
                dropped = tables.pop(by_id.pop(change.table_id))
                views -= dropped.is_view
                sequences -= dropped.is_sequence
                matviews -= dropped.is_matview
                types -= dropped.is_type
                functions -= dropped.is_function
                foreign_keys -= bool(dropped.schema.foreign_keys)
                jsonb_tables -= dropped.schema.has_jsonb
                char_tables -= bool(dropped.schema.blank_padded)
                inet_tables -= bool(dropped.schema.network_columns)
                partitioned -= dropped.schema.partitioned
                referencing = None
            elif renamed is None:  # a rename - all of the entry's at once: names may go round, t -> u -> t
                renamed = _renamed(tables, by_id, [c for c in entry.changes if isinstance(c, RenameTable)])
        return CatalogVersion(entry.csn, entry.time_ms, tables, max(self.max_xid, entry.xid), views=views,
                              sequences=sequences, matviews=matviews, types=types, functions=functions,
                              foreign_keys=foreign_keys,
                              jsonb_tables=jsonb_tables, char_tables=char_tables, inet_tables=inet_tables,
                              partitioned=partitioned, _ids=by_id,
                              _referencing=referencing)


def _renamed(tables: dict, by_id: dict, renames: list[RenameTable]) -> bool:
    """``tables`` and ``by_id`` with the tables of ``renames`` under their new names: every old
    name freed before any new one is taken, so two tables can swap names in one entry."""
    moving = [tables.pop(by_id[c.table_id]) for c in renames]
    for change, version in zip(renames, moving):
        version = version.renamed(change.name)
        tables[version.key] = version
        by_id[change.table_id] = version.key
    return True
