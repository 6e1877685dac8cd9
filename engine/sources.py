"""How a table version becomes a relation DuckDB reads under a name.

Storage decides how a version is read (``DataFileStore.plan``): as one Arrow table from the
buffer cache, or as a ``StreamedScan``. ``attach`` registers an Arrow table as it is. A
streamed scan becomes a temporary view over DuckDB's own Parquet reader - parallel, with
projection and filter pushdown, within DuckDB's memory limit - so nothing of the table is
decoded into txlake's memory:

    SELECT <columns> FROM read_parquet(<files without deletions>)
    UNION ALL
    SELECT <columns> FROM read_parquet(<files with deletions>) ANTI JOIN <deleted row keys>
    UNION ALL
    SELECT <columns> FROM <rows in memory: inline deltas, uncommitted rows>

Row ids (``file id << 32 | position``, written as arithmetic: uncommitted files have negative
ids) come from the reader's ``file_index`` and ``file_row_number`` virtual columns; a table with
a column of one of those names is read through the cache instead (``streamable``).
"""

from __future__ import annotations

import itertools
from typing import Callable, Sequence

import duckdb
import orjson
import pyarrow as pa

from txlake.engine.dialect import sql_string
from txlake.storage.datafiles import ROWID, StreamedScan
from txlake.storage.schema import TEXT_TYPE_KEY, TEXT_TYPES, Column, TableSchema, text_type

try:  # DuckDB 2's protocol for a registered object that the scan asks for its rows at each scan
    from duckdb._sources import ArrowScanSource
    if not all(callable(getattr(ArrowScanSource, m, None)) for m in ("rows", "stream")):
        ArrowScanSource = None  # (a DuckDB whose private protocol changed)
except ImportError:  # (another DuckDB: a statement registers its rows and unregisters them after)
    ArrowScanSource = None

ROW_ID_FACTOR = 1 << 32
_VIRTUAL_COLUMNS = {"file_index", "file_row_number", "filename"}


def streamable(schema: TableSchema) -> bool:
    """Can DuckDB's Parquet reader read this table without its columns shadowing the
    reader's virtual columns?"""
    return not _VIRTUAL_COLUMNS & {n.lower() for n in schema.names}


def typed(source: pa.Table | StreamedScan, schema: TableSchema) -> pa.Table | StreamedScan:
    """``source`` with its UUID, JSON and JSONB columns marked so (``ColumnType.field``) - rows
    held in memory or inline may come without the mark - and its enum columns marked with
    their labels, so ``attach`` types them for DuckDB. (A streamed scan's columns are cast to
    their types anyway.)"""
    if not isinstance(source, pa.Table) or not schema.memo("_text_typed", _text_typed):
        return source
    fields = [_field(schema.column(f.name)) if schema.column(f.name) is not None else f for f in source.schema]
    return pa.Table.from_arrays(source.columns, schema=pa.schema(fields))


def _field(col: Column) -> pa.Field:
    if col.enum is not None:
        return pa.field(col.name, pa.string(), metadata={TEXT_TYPE_KEY: b"ENUM", _ENUM_KEY: orjson.dumps(col.enum)})
    return col.type.field(col.name)


def _text_typed(schema: TableSchema) -> bool:
    return any(c.type.kind in TEXT_TYPES or c.enum is not None for c in schema.columns)


_ENUM_KEY = b"txlake.enum"  # (an enum column's labels, in a field only DuckDB's registration reads)


def _enum_sql(labels) -> str:
    """DuckDB's ENUM of ``labels``: its values compare and sort in their order (none: text,
    DuckDB has no empty ENUM - and such a column holds only NULLs)."""
    if not labels:
        return "VARCHAR"
    return "ENUM(" + ", ".join(sql_string(label) for label in labels) + ")"


def attach(con: duckdb.DuckDBPyConnection, name: str, source: pa.Table | StreamedScan) -> Callable[[], None]:
    """Make ``source`` readable in ``con`` as ``name``; returns what undoes it."""
    helpers = []
    if isinstance(source, pa.Table):
        typed = _typed_columns(source.schema)
        if typed is None:
            con.register(name, source)
            return lambda: con.unregister(name)
        con.register(f"{name}_text", source)
        helpers.append(f"{name}_text")
        parts = [f"SELECT * REPLACE ({typed}) FROM {name}_text"]
        return _view(con, name, parts, helpers)

    def helper(suffix: str, data: pa.Table) -> str:
        helper_name = f"{name}_{suffix}"
        con.register(helper_name, data)
        helpers.append(helper_name)
        return helper_name

    return _view(con, name, _scan_parts(source, helper), helpers)


def _scan_parts(source: StreamedScan, helper: Callable[[str, pa.Table], str]) -> list[str]:
    """The SELECTs whose UNION ALL reads a streamed scan; ``helper(suffix, rows)`` makes rows
    in memory readable and names them."""
    parts = []
    if source.clean:
        parts.append(_parquet(source, source.clean, None))
    if source.dirty:
        parts.append(_parquet(source, source.dirty, helper("deleted", source.deleted)))
    if source.memory is not None:
        parts.append(_memory_rows(source, helper("rows", source.memory)))
    return parts


if ArrowScanSource is not None:
    class ArrowSlot(ArrowScanSource):
        """A name's rows for the statement that reads them now: registered with DuckDB once, it
        reads ``table`` anew at each scan - its schema, row count (for the planner) and the
        columns the scan asks for."""

        schema_is_stable = False  # (each statement's rows have their own)

        def __init__(self) -> None:
            super().__init__(None)
            self.table: pa.Table | None = None

        def empty(self) -> None:
            self.table = None  # (the rows are the statement's: not kept beyond it)

        def rows(self) -> int:
            return self.table.num_rows

        def __arrow_c_schema__(self):
            return self.table.schema.__arrow_c_schema__()

        def __arrow_c_stream__(self, requested_schema=None):
            return self.table.__arrow_c_stream__(requested_schema)

        def stream(self, columns: Sequence[int] | None, filters) -> tuple[object, bool]:
            if columns is None:
                return self.table.__arrow_c_stream__(), False
            return self.table.select(list(columns)).__arrow_c_stream__(), True


class Registry:
    """The names a session's statements read their rows under, on the session's connection.

    ``attach`` does what the function ``attach`` does, but keeps DuckDB's catalog as it is between
    statements. Registering an object and unregistering it cost about 0.35 ms on DuckDB 2.0 (a
    catalog change each way), as much as a small query itself. So a name is registered once, to an
    ``ArrowSlot`` each statement fills and empties; and a view (over a streamed scan, or typing a
    table's uuid and json columns) stays, made again only when its text changes - a table version
    read again gives the same text.
    """

    def __init__(self, con: duckdb.DuckDBPyConnection):
        self.con = con
        self._names: dict[str, object] = {}  # name -> its ArrowSlot, or the SQL of its view
        self._busy: set[str] = set()

    def fresh(self) -> str:
        """A name no statement reads now (the lowest: names are reused, not piled up)."""
        return next(name for i in itertools.count() if (name := f"__txl_{i}") not in self._busy)

    def attach(self, name: str, source: pa.Table | StreamedScan) -> Callable[[], None]:
        """Make ``source`` readable as ``name`` until the returned function is called."""
        releases = []

        def release() -> None:
            self._busy.discard(name)
            for r in reversed(releases):
                r()

        self._busy.add(name)
        try:
            if isinstance(source, pa.Table):
                typed = _typed_columns(source.schema)
                if typed is None:
                    releases.append(self._fill(name, source))
                else:
                    releases.append(self._fill(f"{name}_text", source))
                    self._view(name, f"SELECT * REPLACE ({typed}) FROM {name}_text")
                return release
            def helper(suffix: str, rows: pa.Table) -> str:
                releases.append(self._fill(f"{name}_{suffix}", rows))
                return f"{name}_{suffix}"

            self._view(name, " UNION ALL ".join(_scan_parts(source, helper)))
            return release
        except BaseException:
            release()
            raise

    def _fill(self, name: str, table: pa.Table) -> Callable[[], None]:
        held = self._names.get(name)
        if isinstance(held, str):  # (a view now)
            del self._names[name]
            self.con.execute(f"DROP VIEW IF EXISTS {name}")
        if ArrowScanSource is None:
            self.con.register(name, table)
            return lambda: self.con.unregister(name)
        fresh = held is None or isinstance(held, str)
        if fresh:
            held = ArrowSlot()
        held.table = table
        if fresh:  # (registering reads its schema: filled first)
            self.con.register(name, held)
            self._names[name] = held
        return held.empty

    def _view(self, name: str, sql: str) -> None:
        held = self._names.get(name)
        if held == sql:
            return
        self._names.pop(name, None)  # (until it is made: a failure leaves it to be made again)
        if held is not None and not isinstance(held, str):
            self.con.unregister(name)
        self.con.execute(f"CREATE OR REPLACE TEMP VIEW {name} AS {sql}")
        self._names[name] = sql


def _memory_rows(source: StreamedScan, name: str) -> str:
    rowid = f", __m.{ROWID}" if source.with_rowid else ""
    return f"SELECT {_columns(source.schema, '__m')}{rowid} FROM {name} AS __m"


def _view(con: duckdb.DuckDBPyConnection, name: str, parts: list[str], helpers: list[str]) -> Callable[[], None]:
    """A temporary view ``name`` of the UNION ALL of ``parts`` (over the registered ``helpers``)."""
    def detach() -> None:
        con.execute(f"DROP VIEW IF EXISTS {name}")
        for h in helpers:
            con.unregister(h)

    try:
        con.execute(f"CREATE OR REPLACE TEMP VIEW {name} AS {' UNION ALL '.join(parts)}")
    except BaseException:
        detach()
        raise
    return detach


def _typed_columns(schema: pa.Schema) -> str | None:
    """``REPLACE`` items that give text columns holding UUIDs or JSON their DuckDB type (a
    UUID compares with '{A0EEBC99-...}' as a uuid, not as text); None if there are none."""
    typed = [(f, kind) for f in schema if (kind := text_type(f)) is not None]
    if not typed:
        return None
    return ", ".join(f'{_typed_as(_name(f.name), f, kind)} AS {_name(f.name)}' for f, kind in typed)


def _typed_as(value: str, f: pa.Field, kind: str) -> str:
    if kind == "ENUM":
        return f"CAST({value} AS {_enum_sql(orjson.loads(f.metadata[_ENUM_KEY]))})"
    if kind == "INTERVAL":
        return interval_read(value)
    if kind in ("INET", "CIDR"):  # (its text: engine/network.py compares and sorts it)
        return value
    return f"CAST({value} AS {'UUID' if kind == 'UUID' else 'JSON'})"


def interval_read(value: str) -> str:
    """An interval column's stored text (PostgreSQL's, ``ColumnType.field``) as DuckDB's
    INTERVAL: DuckDB's cast reads it but for the ``+`` PostgreSQL writes before a part that
    follows a negative one (``-1 days +02:00:00``) - and each part keeps its own sign in both."""
    return f"CAST(replace({value}, '+', '') AS INTERVAL)"


def _parquet(source: StreamedScan, files: tuple[tuple[int, str], ...], deleted: str | None) -> str:
    paths = ", ".join(sql_string(path) for _, path in files)
    select = f"SELECT {_columns(source.schema, '__f')}"
    if source.with_rowid:
        ids = ", ".join(str(file_id) for file_id, _ in files)
        select += (f", [{ids}][__f.file_index::BIGINT + 1] * {ROW_ID_FACTOR} + __f.file_row_number"
                   f" AS {ROWID}")
    sql = f"{select} FROM read_parquet([{paths}]) AS __f"
    if deleted is not None:
        sql += (f" ANTI JOIN {deleted} AS __d"
                f" ON __f.file_index::BIGINT * {ROW_ID_FACTOR} + __f.file_row_number = __d.key")
    return sql


def _columns(schema: TableSchema, alias: str) -> str:
    """The table's columns in order, as its types (a no-op cast where the file agrees)."""
    return ", ".join(f"{_column_as_type(f'{alias}.{_name(c.name)}', c)} AS {_name(c.name)}" for c in schema.columns)


def _column_as_type(value: str, c: Column) -> str:
    if c.type.kind == "INTERVAL":
        return interval_read(value)
    return f"CAST({value} AS {_enum_sql(c.enum) if c.enum is not None else c.type.sql()})"


def _quoted(identifier: str) -> str:
    return identifier.replace('"', '""')


def _name(identifier: str) -> str:
    return f'"{_quoted(identifier)}"'

