"""Secondary indexes: ``CREATE INDEX`` (not unique) and how statements use them.

An index (storage/schema.py ``Index``) is a name and plain columns in the table's schema (one
of expressions or with a WHERE is kept and shown, never looked up: engine/index_expressions.py).
What it indexes is never stored: each data file gets, the
first time a lookup reaches it, an index of those columns' values to row positions (storage/
keys.py ``find_rows``, the per-file indexes unique constraints use, cached the same way). Files
are immutable, so an INSERT maintains nothing; a lookup pays for the files it has not indexed
yet, and passes over a Parquet file whose footer bounds cannot hold the value.

Where an index is used: a statement over one table whose WHERE pins every column of an index
- or of the primary key, or a UNIQUE constraint - to a constant or parameter by ``=`` (integer,
text or uuid columns, as the primary key's point plans), or one column of a one-column key by
``IN (...)`` / ``= ANY(?)`` (``lookup``) - ``SELECT ... FROM t WHERE email = ?``, ``UPDATE`` /
``DELETE ... WHERE customer_id = ?``, ``SELECT ... FOR UPDATE`` - reads only the rows the index
gives instead of the table, and the full WHERE clause still runs over them in DuckDB (a join's
tables too: ``joined_source``). The lookup goes through the version the
statement would scan (the transaction's snapshot with its own writes and deletion vectors), so
it finds exactly the rows the scan would: the index decides which rows are read, never which
are visible. A foreign key's search of a referencing table for a parent's key uses an index
whose columns are the foreign key's (engine/foreign_keys.py).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, replace

import pyarrow as pa

from txlake import errors
from txlake.engine import index_expressions, sources
from txlake.storage import foreign_keys as fks
from txlake.storage import keys as pk
from txlake.storage.schema import LOOKUP_METHODS, Index, TableSchema, uuid_text
from txlake.storage.version import TableVersion


def define(schema: TableSchema, table: str, name: str, columns: tuple[str, ...], method: str) -> TableSchema:
    """``schema`` with the index ``name`` of ``columns`` (42703 for a column the table lacks;
    0A000 for an array column in a btree or hash index, which the per-file indexes do not hash -
    a gin index of one is kept and shown, never looked up)."""
    for column in columns:
        col = schema.column(column)
        if col is None:
            raise errors.UndefinedColumn(f'column "{column}" does not exist')
        if not _has_operator_class(col.type.kind, method):
            from txlake.engine.catalog_views import pg_type_name  # (it imports this module)
            raise errors.UndefinedObject(
                f'data type {pg_type_name(col.type.sql())} has no default operator class for access '
                f'method "{method}"\nHINT:  You must specify an operator class for the index or define a default '
                "operator class for the data type.")
        if col.type.kind == "ARRAY" and method in LOOKUP_METHODS:
            raise errors.NotSupportedError(f'column "{column}" is an array: txlake\'s indexes are of scalar columns')
    return replace(schema, indexes=schema.indexes + (Index(name, tuple(columns), method),))


def _has_operator_class(kind: str, method: str) -> bool:
    """Has PostgreSQL (without extensions) a default operator class of ``method`` for a column of
    ``kind``? gin: arrays and jsonb; gist: none of txlake's types (btree_gist's are an extension);
    spgist: text; brin: the scalar ones; btree and hash: every type (txlake's own refusals after)."""
    if method == "gin":
        return kind in ("ARRAY", "JSONB")
    if method == "gist":
        return False
    if method == "spgist":
        return kind in ("VARCHAR", "TEXT", "CHAR")
    if method == "brin":
        return kind not in ("ARRAY", "JSONB", "JSON")
    return True


def renamed(schema: TableSchema, old: str, new: str, field: str = "indexes") -> TableSchema:
    """``schema`` with the column ``old`` renamed ``new`` in its indexes (or in the columns of
    another of its tuples of named column lists: ``field``, "uniques")."""
    if not getattr(schema, field):
        return schema
    return replace(schema, **{field: tuple(index_expressions.renamed(i, old, new) if i.computed
                                           else replace(i, columns=tuple(new if c == old else c for c in i.columns))
                                           for i in getattr(schema, field))})


def dropped(schema: TableSchema, column: str, field: str = "indexes") -> TableSchema:
    """``schema`` without the indexes (or ``field``'s entries) over ``column`` - in their key,
    expressions or predicate - (dropped with it, as in PostgreSQL)."""
    if not any(column in i.reads for i in getattr(schema, field)):
        return schema
    return replace(schema, **{field: tuple(i for i in getattr(schema, field) if column not in i.reads)})


@dataclass(frozen=True)
class Lookup:
    """The rows a WHERE clause pins through one of its table's keys: the primary key's, a
    UNIQUE constraint's or an index's ``columns`` equal to one of ``keys`` (a value, or a
    tuple for several columns)."""

    name: str  # the index's or constraint's, as EXPLAIN shows it
    columns: tuple[str, ...]
    keys: tuple
    primary: bool


IN_KEYS = 1024  # an IN list (or = ANY of an array) looked up key by key up to this many values


def lookup(schema: TableSchema, table: str, alias: str, where, params, offset: int,
           qualified: bool = False) -> Lookup | None:
    """The key ``where`` pins - every column of the primary key, a UNIQUE constraint or an
    index by ``=`` to a constant or parameter, or one column of a one-column key by ``IN
    (...)`` / ``= ANY(?)`` - or None: the primary key first, then unique keys, then the index
    of the most columns. Only integer, text and uuid values of the column's own type count,
    whose Python values compare as SQL's do (``pinned_key``). ``qualified``: only columns
    written with ``alias`` count (a join's)."""
    from txlake.engine.points import pinned_key, pinned_keys  # (points imports this module)
    if where is None:
        return None
    keyed = keys_of(schema, table)
    for name, columns, primary in keyed:
        key = pinned_key(schema, alias, where, params, offset, columns, qualified)
        if key is not None:
            return Lookup(name, columns, (key,), primary)
    for name, columns, primary in keyed:
        if len(columns) == 1:
            keys = pinned_keys(schema, alias, where, params, offset, columns[0], qualified)
            if keys is not None and len(keys) <= IN_KEYS:
                return Lookup(name, columns, keys, primary)
    return None


def rows(ex, version: TableVersion, hit: Lookup, with_rowid: bool) -> pa.Table:
    """The live rows of ``version`` the lookup ``hit`` finds (with their row ids last, if
    ``with_rowid``), read file by file: what the statement's WHERE runs over."""
    found = rowids(ex, version, hit)
    ex.index_scans += 1
    return rows_at(ex, version, found, with_rowid)


def rowids(ex, version: TableVersion, hit: Lookup) -> list[int]:
    """The row ids of the live rows of ``version`` the lookup ``hit`` finds, in the order
    ``rows_at`` reads them."""
    if hit.primary:
        found = list(pk.find(ex.store, version, list(hit.keys)).values())
    else:
        found = [r for key in hit.keys for r in pk.find_rows(ex.store, version, key, hit.columns)]
    return [r for ids in _by_file(found).values() for r in ids] if len(found) > 1 else found


def _by_file(rowids: list[int]) -> dict[int, list[int]]:
    """``rowids`` by the file that holds them (files in order of first appearance)."""
    by_file: dict[int, list[int]] = {}
    for rowid in rowids:
        by_file.setdefault(rowid >> 32, []).append(rowid)
    return by_file


def rows_at(ex, version: TableVersion, rowids: list[int], with_rowid: bool) -> pa.Table:
    """The rows ``rowids`` of ``version`` (with their row ids last, if ``with_rowid``), each
    file's read with one take."""
    from txlake.engine.executor import ROWID  # (the executor imports this module)
    pieces = []
    for fid, ids in _by_file(rowids).items():
        positions = pa.array([r & 0xFFFFFFFF for r in ids], pa.int64())
        piece = ex.store.read(version.file(fid), version.schema).take(positions)
        pieces.append(piece.append_column(ROWID, pa.array(ids, pa.int64())) if with_rowid else piece)
    if not pieces:
        empty = version.schema.arrow_schema().empty_table()
        pieces = [empty.append_column(ROWID, pa.array([], pa.int64())) if with_rowid else empty]
    return sources.typed(pa.concat_tables(pieces), version.schema)


def candidates(ex, version: TableVersion, alias: str, where, params, offset: int) -> pa.Table | None:
    """An UPDATE / DELETE / SELECT ... FOR UPDATE's candidate rows through a key its WHERE
    pins (with row ids), or None: no key is pinned, the caller scans."""
    hit = lookup(version.schema, version.name, alias, where, params, offset)
    return rows(ex, version, hit, True) if hit is not None else None


def query_source(ex, ctx, stmt, version: TableVersion, params, used: list | None) -> pa.Table | None:
    """A single-table SELECT's rows of ``version`` through a key its WHERE pins, or None
    (the caller reads the table). ``used`` gets EXPLAIN's line for it."""
    from txlake.engine.executor import _read_plan  # (the executor imports this module)
    simple, _ = ex._statement_memo(stmt, ("reads",), lambda: _read_plan(stmt.expression))
    if simple is None or simple[2] is None:
        return None
    _, alias, where, offset = simple
    alias_node = stmt.expression.args["from_"].this.args.get("alias")
    if alias_node is not None and alias_node.args.get("columns"):  # (FROM t AS x(a, b): other names)
        return None
    hit = lookup(version.schema, version.name, alias, where, params, offset)
    if hit is None:
        return None
    found = rows(ex, version, hit, False)
    if used is not None:
        used.append(f"Index Scan using {hit.name} on {version.name} (txlake's index: {found.num_rows} "
                    f"candidate row{'' if found.num_rows == 1 else 's'}, filtered by DuckDB)")
    return found


def joined_sources(ex, plan, versions: dict, params, used: list | None) -> dict:
    """The rows of a join's tables (executor ``_join_plan``) a key gives, by table: each table
    whose key the WHERE pins with columns written ``alias.column``; then, along the plan's
    equalities ``a.x = b.y``, each table ``a`` whose one-column key is ``x`` by the values of
    ``y`` in the rows ``b`` was narrowed to (an index nested-loop join, up to IN_KEYS values).
    A table missing reads whole."""
    from txlake.engine.points import key_kind  # (points imports this module)
    narrowed = {}
    for ref, alias in plan.aliases.items():
        version = versions[ref]
        hit = lookup(version.schema, version.name, alias, plan.where, params, plan.offset, qualified=True)
        if hit is not None:
            narrowed[ref] = _looked_up(ex, version, alias, hit, used, "")
    grown = bool(narrowed)
    while grown:
        grown = False
        for ref, column, other, other_column in plan.equalities:
            if ref in narrowed or other not in narrowed or narrowed[other].num_rows > IN_KEYS or \
                    narrowed[other].schema.get_field_index(other_column) < 0:
                continue
            version = versions[ref]
            key = next((k for k in keys_of(version.schema, version.name) if k[1] == (column,)), None)
            found, theirs = version.schema.column(column), versions[other].schema.column(other_column)
            kind = key_kind(found) if found is not None else None
            if key is None or kind is None or theirs is None or key_kind(theirs) is not kind:
                continue  # (values of another kind compare as DuckDB's casts decide: text = uuid)
            values = [v for v in dict.fromkeys(narrowed[other].column(other_column).to_pylist()) if v is not None]
            if kind is uuid.UUID:
                values = [uuid_text(v) for v in values]
            elif any(type(v) is not kind for v in values):
                continue
            if None in values:
                continue
            hit = Lookup(key[0], key[1], tuple(values), key[2])
            narrowed[ref] = _looked_up(ex, version, plan.aliases[ref], hit, used, f", keys from {other.name}")
            grown = True
    return narrowed


def keys_of(schema: TableSchema, table: str) -> list[tuple[str, tuple[str, ...], bool]]:
    """(name, columns, is the primary key) of each key of a table: the primary key, then
    unique keys, then indexes, those of most columns first - not an index of expressions or
    a partial one (engine/index_expressions.py), nor a gin, gist, brin or spgist one: they
    answer no lookup of rows by columns."""
    keyed = [(schema.pkey_name(table), schema.primary_key, True)] if schema.primary_key else []
    keyed += [(u.name, u.columns, False) for u in schema.uniques if not u.computed]
    return keyed + sorted(((i.name, i.columns, False) for i in schema.indexes if i.looked_up),
                          key=lambda k: -len(k[1]))


def _looked_up(ex, version: TableVersion, alias: str, hit: Lookup, used: list | None, why: str) -> pa.Table:
    found = rows(ex, version, hit, False)
    if used is not None:
        shown = version.name if alias == version.name else f"{version.name} {alias}"
        used.append(f"Index Scan using {hit.name} on {shown} (txlake's index: {found.num_rows} "
                    f"candidate row{'' if found.num_rows == 1 else 's'}{why}, joined by DuckDB)")
    return found


FK_PROBES = 64  # a foreign key's removed keys looked up through an index one by one up to this many


def referencing_key(ex, child: TableVersion, columns, keys: list[tuple]) -> tuple | None:
    """storage/foreign_keys.py ``referencing_key`` (a key among ``keys`` that a row of
    ``child`` holds in ``columns``) through an index of ``child`` over exactly those columns,
    if it has one and the keys are few integers or texts; else that function's scan."""
    index = next((i for i in child.schema.indexes if i.looked_up and sorted(i.columns) == sorted(columns)), None)
    if index is None or len(keys) > FK_PROBES or \
            not all(type(v) in (int, str) for k in keys for v in k):
        return fks.referencing_key(ex.store, child, columns, set(keys))
    ex.index_scans += 1
    for key in keys:
        value = dict(zip(columns, key))
        probe = tuple(value[c] for c in index.columns) if len(index.columns) > 1 else value[index.columns[0]]
        if pk.find_rows(ex.store, child, probe, index.columns):
            return key
    return None
