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

from typing import Callable

import duckdb
import orjson
import pyarrow as pa

from txlake.engine.dialect import sql_string
from txlake.storage.datafiles import ROWID, StreamedScan
from txlake.storage.schema import TEXT_TYPE_KEY, TEXT_TYPES, Column, TableSchema, text_type

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

    parts = []
    if source.clean:
        parts.append(_parquet(source, source.clean, None))
    if source.dirty:
        parts.append(_parquet(source, source.dirty, helper("deleted", source.deleted)))
    if source.memory is not None:
        rowid = f", __m.{ROWID}" if source.with_rowid else ""
        parts.append(f"SELECT {_columns(source.schema, '__m')}{rowid} FROM {helper('rows', source.memory)} AS __m")
    return _view(con, name, parts, helpers)


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
    return ", ".join(f'CAST("{_quoted(f.name)}" AS {_typed_as(f, kind)}) AS "{_quoted(f.name)}"' for f, kind in typed)


def _typed_as(f: pa.Field, kind: str) -> str:
    if kind == "ENUM":
        return _enum_sql(orjson.loads(f.metadata[_ENUM_KEY]))
    return "UUID" if kind == "UUID" else "JSON"


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
    return ", ".join(f'CAST({alias}."{_quoted(c.name)}" AS {_enum_sql(c.enum) if c.enum is not None else c.type.sql()})'
                     f' AS "{_quoted(c.name)}"' for c in schema.columns)


def _quoted(identifier: str) -> str:
    return identifier.replace('"', '""')

