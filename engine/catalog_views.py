"""PostgreSQL's catalog views over txlake's catalog: ``information_schema.tables``,
``.columns``, ``.schemata``, ``.views``, ``.sequences``, ``.table_constraints``,
``.check_constraints`` and ``pg_catalog.pg_tables``, ``pg_views``, ``pg_matviews``,
``pg_sequences``, as tools and applications query them ("does table x exist?", "which columns has it?"). Views are
listed beside tables (``table_type`` VIEW) in ``tables`` and ``columns``, alone in ``views`` and
``pg_views``; ``pg_tables`` lists tables only, ``pg_matviews`` materialized views only - which
information_schema leaves out, as PostgreSQL's does -, ``sequences`` and ``pg_sequences`` sequences only
(``pg_sequences.last_value`` is the last number the sequence's file gave out - past the last one
used where sessions cache numbers - as PostgreSQL's: the one column read from outside the catalog).
PostgreSQL's system catalogs - ``pg_class``, ``pg_attribute``, ``pg_type``, ... joined by OID -
are engine/pg_catalog.py's, found and built through this module as these are.

Each is built, when a statement names it, from the tables the statement's transaction sees
(its own CREATE / DROP / ALTER included), as rows of PostgreSQL's columns (the commonly read
ones; the rest are left out). The database ``default`` is the schema ``public``, as
everywhere else. They are views of metadata: reading one is no read of the tables' rows (no
SSI read, no row locks), and they cannot be written.
"""

from __future__ import annotations

from dataclasses import replace

import pyarrow as pa

from txlake import errors
from txlake.engine import checks
from txlake.engine.dialect import quote_ident, user_name
from txlake.engine.pg_expr import column_default
from txlake.engine.temp_tables import TEMP_DB, TEMP_ID_PREFIX
from txlake.storage.schema import Column, ColumnType, parse_type_name, timing_sql
from txlake.storage.version import TableVersion

CATALOG = "txlake"
CATALOG_SCHEMAS = ("information_schema", "pg_catalog")

#: (PostgreSQL data_type, udt_name) of each column kind
_PG_TYPES = {
    "BOOLEAN": ("boolean", "bool"), "SMALLINT": ("smallint", "int2"), "INT": ("integer", "int4"),
    "BIGINT": ("bigint", "int8"), "REAL": ("real", "float4"), "DOUBLE": ("double precision", "float8"),
    "DECIMAL": ("numeric", "numeric"), "BYTEA": ("bytea", "bytea"),
    "DATE": ("date", "date"), "TIME": ("time without time zone", "time"),
    "TIMESTAMP": ("timestamp without time zone", "timestamp"),
    "TIMESTAMPTZ": ("timestamp with time zone", "timestamptz"), "UUID": ("uuid", "uuid"),
    "JSON": ("json", "json"), "JSONB": ("jsonb", "jsonb"), "INTERVAL": ("interval", "interval"),
    "INET": ("inet", "inet"), "CIDR": ("cidr", "cidr"),
}
#: numeric_precision and its radix of the kinds that have one (DECIMAL: its own, radix 10)
_PRECISION = {"SMALLINT": (16, 2), "INT": (32, 2), "BIGINT": (64, 2), "REAL": (24, 2), "DOUBLE": (53, 2)}
#: datetime_precision: the digits of a second's fraction
_DATETIME_PRECISION = {"DATE": 0, "TIME": 6, "TIMESTAMP": 6, "TIMESTAMPTZ": 6, "INTERVAL": 6}


def schema_name(db: str) -> str:
    """The PostgreSQL schema a txlake database is (``default`` is ``public``)."""
    return "public" if db == "default" else db


def relation_name(db: str | None, name: str) -> str:
    """A relation named as PostgreSQL's messages name it: ``name``, or ``schema.name`` when the
    reference was qualified (``public.t``, not txlake's ``default.t``)."""
    return f"{schema_name(db)}.{name}" if db else name


# DuckDB's names of types (duckdb_functions()' types) that are PostgreSQL's by another name
_DUCKDB_KINDS = {"INTEGER": "INT", "FLOAT": "REAL", "BLOB": "BYTEA", "TIMESTAMP WITH TIME ZONE": "TIMESTAMPTZ",
                 "TIME WITH TIME ZONE": "TIMETZ", "VARCHAR": "TEXT"}


def pg_type_name(duckdb_type: str) -> str:
    """A DuckDB type's name as PostgreSQL's format_type spells it: ``text`` for VARCHAR,
    ``double precision``, ``bigint[]``; ``"any"`` for ANY; one PostgreSQL lacks in lower case."""
    if duckdb_type.endswith("[]"):
        return pg_type_name(duckdb_type[:-2]) + "[]"
    kind = _DUCKDB_KINDS.get(duckdb_type, duckdb_type.split("(")[0])
    if kind == "ANY":
        return '"any"'
    return "text" if kind == "TEXT" else _PG_TYPES[kind][0] if kind in _PG_TYPES else duckdb_type.lower()


def format_type(column_type) -> str:
    """A column's type (storage/schema.py ``ColumnType``) as PostgreSQL's format_type writes it
    with its modifiers: ``integer``, ``character varying(20)``, ``character(3)``,
    ``numeric(10,2)``, ``timestamp with time zone``, ``text[]``."""
    kind = column_type.kind
    if kind == "ARRAY":
        return format_type(column_type.element) + "[]"
    if kind == "DECIMAL":
        return f"numeric({column_type.precision},{column_type.scale})"
    if kind == "VARCHAR":
        return f"character({column_type.length})" if column_type.blank_padded else \
            f"character varying({column_type.length})" if column_type.length else "text"
    if kind == "INTERVAL":  # interval, interval(3), interval day to second(3)
        return column_type.display().lower()
    return pg_type_name(kind)


def undefined_table(name) -> errors.UndefinedTable:
    """42P01 for the relation ``name`` (a parser/statements.py TableName) would name, worded as
    PostgreSQL words it."""
    return errors.UndefinedTable(f'relation "{relation_name(name.db, name.name)}" does not exist')


def view(db: str, name: str) -> str | None:
    """The catalog view ``db.name`` names (``db`` None: unqualified), or None for a table.
    Unqualified, only ``pg_*`` views are found, as PostgreSQL searches ``pg_catalog`` first."""
    key = f"{db or 'pg_catalog'}.{name}"
    return key if key in _VIEWS else None


def build(key: str, tables: list[TableVersion], last_value=None, temp_schema: str = TEMP_DB) -> pa.Table:
    """The rows of catalog view ``key`` over ``tables``; ``last_value(sequence)``: the last
    number a sequence's file gave out, or None (``pg_sequences`` reads it); ``temp_schema``:
    the schema the session's temporary tables show in (PostgreSQL's ``pg_temp_N``)."""
    tables = listed(tables, temp_schema)
    if key == "pg_catalog.pg_sequences":
        return _pg_sequences(tables, last_value)
    if _VIEWS[key] is None:  # (PostgreSQL's system catalogs: modules that import this one)
        from txlake.engine import pg_catalog, pg_fixed
        return (pg_fixed.build if key in pg_fixed.VIEWS else pg_catalog.build)(key, tables)
    return _VIEWS[key](tables)


def listed(tables: list[TableVersion], temp_schema: str = TEMP_DB) -> list[TableVersion]:
    """``tables`` as the catalog views list them: by schema and name, the session's temporary
    ones in ``temp_schema`` (``build``)."""
    tables = [replace(t, db=temp_schema, caches={}) if t.db == TEMP_DB else t for t in tables]
    return sorted(tables, key=lambda t: (schema_name(t.db), t.name))


def _text(values) -> pa.Array:
    return pa.array(list(values), pa.string())


def _int(values) -> pa.Array:
    return pa.array(list(values), pa.int32())


def _bool(values) -> pa.Array:
    return pa.array(list(values), pa.bool_())


def _is_table_or_view(t: TableVersion) -> bool:
    """Is ``t`` a relation information_schema.tables lists (a table or view: no materialized view)?"""
    return not t.is_sequence and not t.is_type and not t.is_matview and not t.is_function


def _tables(tables: list[TableVersion]) -> pa.Table:
    tables = [t for t in tables if _is_table_or_view(t)]
    n = len(tables)
    return pa.table({
        "table_catalog": _text([CATALOG] * n),
        "table_schema": _text(schema_name(t.db) for t in tables),
        "table_name": _text(t.name for t in tables),
        "table_type": _text("VIEW" if t.is_view else "LOCAL TEMPORARY" if t.table_id.startswith(TEMP_ID_PREFIX)
                            else "BASE TABLE" for t in tables),
        "is_insertable_into": _text("NO" if t.is_view else "YES" for t in tables),
        "is_typed": _text(["NO"] * n),
    })


#: the privileges an owner holds on a table or view, as information_schema lists them
_PRIVILEGES = ("INSERT", "SELECT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER")


def _table_privileges(tables: list[TableVersion]) -> pa.Table:
    """Every privilege on each table and view (information_schema.tables' relations) is its
    owner's - txlake's one role, the current user (engine/pg_fixed.py) - granted by itself,
    grantable, as PostgreSQL lists an owner's (``role_table_grants`` is the same)."""
    rows = [(t, privilege) for t in tables if _is_table_or_view(t) for privilege in _PRIVILEGES]
    user = user_name()
    return pa.table({
        "grantor": _text([user] * len(rows)), "grantee": _text([user] * len(rows)),
        "table_catalog": _text([CATALOG] * len(rows)), "table_schema": _text(schema_name(t.db) for t, _ in rows),
        "table_name": _text(t.name for t, _ in rows), "privilege_type": _text(p for _, p in rows),
        "is_grantable": _text(["YES"] * len(rows)),
        "with_hierarchy": _text("YES" if p == "SELECT" else "NO" for _, p in rows)})


def _view_columns(t: TableVersion) -> list[Column]:
    """A view's columns as a table's would be: nullable, no default; a type txlake has no
    kind for (an interval, a list) keeps DuckDB's name."""
    columns = []
    for i, (name, type_name) in enumerate(t.schema.view.columns):
        try:
            column_type = parse_type_name(type_name)
        except Exception:
            column_type = ColumnType(type_name)
        columns.append(Column(i, name, column_type))
    return columns


def columns_of(t: TableVersion):
    """A table's columns, or a view's as a table's would be."""
    return _view_columns(t) if t.is_view else t.schema.columns


def _columns(tables: list[TableVersion]) -> pa.Table:
    rows = [(t, i, c) for t in tables if not t.is_matview for i, c in enumerate(columns_of(t), start=1)]
    n = len(rows)
    types = {t.table_id: t for t in tables if t.is_type}
    # a column of an enum is USER-DEFINED, its udt the enum; of a domain, its base type's, the domain named
    enums = [types.get(c.user_type) if c.enum is not None else None for _, _, c in rows]
    domains = [types.get(c.user_type) if c.user_type is not None and c.enum is None else None for _, _, c in rows]
    return pa.table({
        "table_catalog": _text([CATALOG] * n),
        "table_schema": _text(schema_name(t.db) for t, _, _ in rows),
        "table_name": _text(t.name for t, _, _ in rows),
        "column_name": _text(c.name for _, _, c in rows),
        "ordinal_position": _int(i for _, i, _ in rows),
        "column_default": _text(None if c.identity or c.generated is not None else column_default(c.default, c.type)
                                for _, _, c in rows),
        "is_nullable": _text("NO" if c.not_null else "YES" for _, _, c in rows),
        "data_type": _text("USER-DEFINED" if e is not None else _data_type(c)[0] for (_, _, c), e in zip(rows, enums)),
        "character_maximum_length": _int(c.type.length if c.type.kind == "VARCHAR" else None for _, _, c in rows),
        "numeric_precision": _int(_numeric(c)[0] for _, _, c in rows),
        "numeric_precision_radix": _int(_numeric(c)[1] for _, _, c in rows),
        "numeric_scale": _int(_numeric(c)[2] for _, _, c in rows),
        "datetime_precision": _int(c.type.precision if c.type.kind == "INTERVAL" and c.type.precision is not None
                                   else _DATETIME_PRECISION.get(c.type.kind) for _, _, c in rows),
        # (an interval's fields, as ``interval day to second`` restricts them; interval_precision
        # is NULL in PostgreSQL too)
        "interval_type": _text(c.type.fields if c.type.kind == "INTERVAL" else None for _, _, c in rows),
        "interval_precision": _int([None] * n),
        "domain_schema": _text(schema_name(d.db) if d is not None else None for d in domains),
        "domain_name": _text(d.name if d is not None else None for d in domains),
        "udt_name": _text(e.name if e is not None else _data_type(c)[1] for (_, _, c), e in zip(rows, enums)),
        # (GENERATED ALWAYS AS IDENTITY; a BY DEFAULT one is stored as a SERIAL is, by its default)
        "is_identity": _text("YES" if c.identity else "NO" for _, _, c in rows),
        "identity_generation": _text(c.identity for _, _, c in rows),
        "is_generated": _text("ALWAYS" if c.generated is not None else "NEVER" for _, _, c in rows),
        "generation_expression": _text(checks.unpretty(c.generated) if c.generated is not None else None
                                       for _, _, c in rows),
        "is_updatable": _text("NO" if t.is_view else "YES" for t, _, _ in rows),
    })


def _schemata(tables: list[TableVersion]) -> pa.Table:
    names = sorted({"public", *CATALOG_SCHEMAS, *(schema_name(t.db) for t in tables)})
    return pa.table({"catalog_name": _text([CATALOG] * len(names)), "schema_name": _text(names),
                     "schema_owner": _text([None] * len(names))})


def _views(tables: list[TableVersion]) -> pa.Table:
    views = [t for t in tables if t.is_view]
    n = len(views)
    return pa.table({
        "table_catalog": _text([CATALOG] * n),
        "table_schema": _text(schema_name(t.db) for t in views),
        "table_name": _text(t.name for t in views),
        "view_definition": _text(t.schema.view.query for t in views),
        "check_option": _text(["NONE"] * n),
        "is_updatable": _text(["NO"] * n),
        "is_insertable_into": _text(["NO"] * n),
        "is_trigger_updatable": _text(["NO"] * n),
        "is_trigger_deletable": _text(["NO"] * n),
        "is_trigger_insertable_into": _text(["NO"] * n),
    })


def _pg_views(tables: list[TableVersion]) -> pa.Table:
    views = [t for t in tables if t.is_view]
    return pa.table({
        "schemaname": _text(schema_name(t.db) for t in views),
        "viewname": _text(t.name for t in views),
        "viewowner": _text([user_name()] * len(views)),
        "definition": _text(t.schema.view.query for t in views),
    })


def _pg_matviews(tables: list[TableVersion]) -> pa.Table:
    views = [t for t in tables if t.is_matview]
    return pa.table({
        "schemaname": _text(schema_name(t.db) for t in views),
        "matviewname": _text(t.name for t in views),
        "matviewowner": _text([user_name()] * len(views)),
        "tablespace": _text([None] * len(views)),
        "hasindexes": _bool(bool(t.schema.uniques or t.schema.indexes) for t in views),
        "ispopulated": _bool(t.schema.matview.populated for t in views),
        "definition": _text(t.schema.matview.query for t in views),
    })


def _pg_tables(tables: list[TableVersion]) -> pa.Table:
    tables = [t for t in tables if t.is_table and not t.is_matview]
    n = len(tables)
    return pa.table({
        "schemaname": _text(schema_name(t.db) for t in tables),
        "tablename": _text(t.name for t in tables),
        "tableowner": _text([user_name()] * n),
        "tablespace": _text([None] * n),
        "hasindexes": _bool(bool(t.schema.primary_key or t.schema.uniques or t.schema.indexes) for t in tables),
        "hasrules": _bool([False] * n),
        "hastriggers": _bool(bool(t.schema.triggers) for t in tables),
        "rowsecurity": _bool(t.schema.row_security for t in tables),
    })


def _pg_policies(tables: list[TableVersion]) -> pa.Table:
    """The tables' policies (engine/policies.py), as PostgreSQL's pg_policies view rows."""
    from txlake.engine import policies
    found = [(t, p) for t in tables if t.is_table and t.schema.policies for p in t.schema.policies]
    return pa.table({
        "schemaname": _text(schema_name(t.db) for t, _ in found), "tablename": _text(t.name for t, _ in found),
        "policyname": _text(p.name for _, p in found),
        "permissive": _text("PERMISSIVE" if p.permissive else "RESTRICTIVE" for _, p in found),
        "roles": pa.array([list(p.roles) or ["public"] for _, p in found], pa.list_(pa.string())),
        "cmd": _text(p.command for _, p in found),
        "qual": _text(policies.expression_text(p.using) for _, p in found),
        "with_check": _text(policies.expression_text(p.check) for _, p in found)})


def _sequences(tables: list[TableVersion]) -> pa.Table:
    sequences = [(t, t.schema.sequence) for t in tables if t.is_sequence]
    n = len(sequences)
    return pa.table({
        "sequence_catalog": _text([CATALOG] * n),
        "sequence_schema": _text(schema_name(t.db) for t, _ in sequences),
        "sequence_name": _text(t.name for t, _ in sequences),
        "data_type": _text(d.type for _, d in sequences),
        "numeric_precision": _int(_SEQUENCE_PRECISION[d.type] for _, d in sequences),
        "numeric_precision_radix": _int([2] * n),
        "numeric_scale": _int([0] * n),
        "start_value": _text(str(d.start) for _, d in sequences),
        "minimum_value": _text(str(d.minimum) for _, d in sequences),
        "maximum_value": _text(str(d.maximum) for _, d in sequences),
        "increment": _text(str(d.increment) for _, d in sequences),
        "cycle_option": _text("YES" if d.cycle else "NO" for _, d in sequences),
    })


def _pg_sequences(tables: list[TableVersion], last_value) -> pa.Table:
    sequences = [(t, t.schema.sequence) for t in tables if t.is_sequence]

    def bigint(values) -> pa.Array:
        return pa.array(list(values), pa.int64())

    return pa.table({
        "schemaname": _text(schema_name(t.db) for t, _ in sequences),
        "sequencename": _text(t.name for t, _ in sequences),
        "sequenceowner": _text([user_name()] * len(sequences)),
        "data_type": _text(d.type for _, d in sequences),
        "start_value": bigint(d.start for _, d in sequences),
        "min_value": bigint(d.minimum for _, d in sequences),
        "max_value": bigint(d.maximum for _, d in sequences),
        "increment_by": bigint(d.increment for _, d in sequences),
        "cycle": _bool(d.cycle for _, d in sequences),
        "cache_size": bigint(d.cache for _, d in sequences),
        "last_value": bigint(last_value(t) for t, _ in sequences),
    })


def _table_constraints(tables: list[TableVersion]) -> pa.Table:
    """Every constraint of every table: its primary key (``<t>_pkey``), UNIQUE, FOREIGN KEY and
    CHECK constraints, from the table's schema. (PostgreSQL also lists each NOT NULL column as
    a CHECK named like ``2200_16386_1_not_null``; txlake does not.)"""
    rows = []  # (table, name, type, nulls_distinct, the constraint: its DEFERRABLE / INITIALLY DEFERRED)
    for t in (t for t in tables if t.is_table):
        if t.schema.primary_key:
            rows.append((t, t.schema.pkey_name(t.name), "PRIMARY KEY", None, None))
        rows += [(t, c.name, "UNIQUE", "NO" if c.nulls_not_distinct else "YES", c) for c in t.schema.uniques
                 if not c.index]  # (a CREATE UNIQUE INDEX's is no constraint)
        rows += [(t, c.name, "FOREIGN KEY", None, c) for c in t.schema.foreign_keys]
        rows += [(t, c.name, "CHECK", None, None) for c in t.schema.checks]
    n = len(rows)
    return pa.table({
        "constraint_catalog": _text([CATALOG] * n),
        "constraint_schema": _text(schema_name(t.db) for t, *_ in rows),
        "constraint_name": _text(name for _, name, *_ in rows),
        "table_catalog": _text([CATALOG] * n),
        "table_schema": _text(schema_name(t.db) for t, *_ in rows),
        "table_name": _text(t.name for t, *_ in rows),
        "constraint_type": _text(kind for _, _, kind, *_ in rows),
        "is_deferrable": _text("YES" if c is not None and c.deferrable else "NO" for *_, c in rows),
        "initially_deferred": _text("YES" if c is not None and c.initially_deferred else "NO" for *_, c in rows),
        "enforced": _text(["YES"] * n),
        "nulls_distinct": _text(distinct for *_, distinct, _ in rows),
    })


def _check_constraints(tables: list[TableVersion]) -> pa.Table:
    """The CHECK constraints, ``check_clause`` as PostgreSQL's (``((a > 0))``); not NOT NULL's."""
    rows = [(t, c) for t in tables if t.is_table for c in t.schema.checks]
    return pa.table({
        "constraint_catalog": _text([CATALOG] * len(rows)),
        "constraint_schema": _text(schema_name(t.db) for t, _ in rows),
        "constraint_name": _text(c.name for _, c in rows),
        "check_clause": _text(checks.clause(c) for _, c in rows),
    })


_SEQUENCE_PRECISION = {"smallint": 16, "integer": 32, "bigint": 64}


def _foreign_keys(tables: list[TableVersion]) -> list[tuple[TableVersion, object, TableVersion]]:
    """(table, foreign key, referenced table) of each foreign key among ``tables``."""
    by_id = {t.table_id: t for t in tables}
    return [(t, fk, by_id[fk.table_id]) for t in tables if t.is_table for fk in t.schema.foreign_keys
            if fk.table_id in by_id]


def _referential_constraints(tables: list[TableVersion]) -> pa.Table:
    rows = _foreign_keys(tables)
    n = len(rows)
    return pa.table({
        "constraint_catalog": _text([CATALOG] * n),
        "constraint_schema": _text(schema_name(t.db) for t, _, _ in rows),
        "constraint_name": _text(fk.name for _, fk, _ in rows),
        "unique_constraint_catalog": _text([CATALOG] * n),
        "unique_constraint_schema": _text(schema_name(p.db) for _, _, p in rows),
        "unique_constraint_name": _text(_referenced_key_name(p, fk) for _, fk, p in rows),
        "match_option": _text("FULL" if fk.match_full else "NONE" for _, fk, _ in rows),
        "update_rule": _text(fk.on_update for _, fk, _ in rows),
        "delete_rule": _text(fk.on_delete for _, fk, _ in rows),
    })


def _referenced_key_name(p: TableVersion, fk) -> str:
    """The name of the primary key or UNIQUE constraint of ``p`` that ``fk`` references."""
    from txlake.engine.foreign_keys import unique_over  # (a module of the executor's, which imports this one)
    return unique_over(p.schema, p.name, fk.ref_columns) or ""


def _constraint_column_usage(tables: list[TableVersion]) -> pa.Table:
    """The columns each constraint uses: a primary key's and a UNIQUE constraint's own (not a
    unique index's: no constraint); a CHECK's, those its expression reads; a foreign key's, the
    referenced table's columns (as PostgreSQL lists them)."""
    rows = [(t, c, t.schema.pkey_name(t.name)) for t in tables if t.is_table for c in t.schema.primary_key]
    rows += [(t, c, u.name) for t in tables if t.is_table for u in t.schema.uniques if not u.index
             for c in u.columns]
    rows += [(t, c, check.name) for t in tables if t.is_table for check in t.schema.checks
             for c in sorted(checks.columns_of(check), key=t.schema.names.index)]
    rows += [(p, c, fk.name) for _, fk, p in _foreign_keys(tables) for c in fk.ref_columns]
    n = len(rows)
    return pa.table({
        "table_catalog": _text([CATALOG] * n),
        "table_schema": _text(schema_name(t.db) for t, _, _ in rows),
        "table_name": _text(t.name for t, _, _ in rows),
        "column_name": _text(c for _, c, _ in rows),
        "constraint_catalog": _text([CATALOG] * n),
        "constraint_schema": _text(schema_name(t.db) for t, _, _ in rows),
        "constraint_name": _text(name for _, _, name in rows),
    })


def unique_indexes(t: TableVersion) -> list[tuple[str, tuple[str, ...], str, str, str]]:
    """A table's unique indexes as PostgreSQL has them: (name, key - columns and expressions, what backs it -
    "PRIMARY KEY", "UNIQUE CONSTRAINT" or "UNIQUE" for CREATE UNIQUE INDEX's, its definition as
    pg_indexes.indexdef shows it, its constraint's `` DEFERRABLE [INITIALLY DEFERRED]`` or "")."""
    schema, found = t.schema, []
    keys = ([(schema.pkey_name(t.name), schema.primary_key, "PRIMARY KEY", False, "", None, False)]
            if schema.primary_key else []) \
        + [(u.name, u.shown, "UNIQUE" if u.index else "UNIQUE CONSTRAINT", u.nulls_not_distinct, timing_sql(u),
            u.predicate, u.computed) for u in schema.uniques]
    for name, columns, kind, nulls_not_distinct, timing, predicate, computed in keys:
        definition = _index_sql(t, name, "btree", columns, computed, predicate, unique=True,
                                nulls_not_distinct=nulls_not_distinct)
        found.append((name, columns, kind, definition, timing))
    return found


def _index_sql(t: TableVersion, name: str, method: str, key: tuple[str, ...], computed: bool,
               predicate: str | None, unique: bool = False, nulls_not_distinct: bool = False) -> str:
    """pg_indexes.indexdef of an index of ``t``: ``CREATE [UNIQUE] INDEX name ON schema.table USING
    method (key) [NULLS NOT DISTINCT] [WHERE (predicate)]``, names written as PostgreSQL writes
    them (``"Email"``, ``"user"``), a computed key's expressions as they are (``lower(email)``)."""
    shown = key if computed else tuple(map(quote_ident, key))
    return (f"CREATE {'UNIQUE ' if unique else ''}INDEX {quote_ident(name)} ON {quote_ident(schema_name(t.db))}."
            f"{quote_ident(t.name)} USING {method} ({', '.join(shown)})"
            + (" NULLS NOT DISTINCT" if nulls_not_distinct else "")
            + (f" WHERE ({predicate})" if predicate is not None else ""))


def index_definitions(t: TableVersion) -> list[tuple[str, str]]:
    """(name, definition as pg_indexes.indexdef and pg_get_indexdef show it) of each index of table ``t``."""
    if not t.is_table:
        return []
    return [(name, text) for name, _, _, text, _ in unique_indexes(t)] + \
        [(i.name, _index_sql(t, i.name, i.method, i.shown, i.computed, i.predicate)) for i in t.schema.indexes]


def _pg_indexes(tables: list[TableVersion]) -> pa.Table:
    rows = [(t, name, definition) for t in tables for name, definition in index_definitions(t)]
    return pa.table({
        "schemaname": _text(schema_name(t.db) for t, _, _ in rows),
        "tablename": _text(t.name for t, _, _ in rows),
        "indexname": _text(name for _, name, _ in rows),
        "tablespace": _text([None] * len(rows)),
        "indexdef": _text(definition for _, _, definition in rows),
    })


def _key_column_usage(tables: list[TableVersion]) -> pa.Table:
    """The columns of each PRIMARY KEY, UNIQUE and FOREIGN KEY constraint (not of CREATE
    UNIQUE INDEX's indexes: no constraints), in key order; a foreign key's column gives the
    position of the column it references in that table's key."""
    by_id = {t.table_id: t for t in tables}
    rows = []
    for t in (t for t in tables if t.is_table):
        schema = t.schema
        if schema.primary_key:
            rows += [(t, schema.pkey_name(t.name), c, i, None) for i, c in enumerate(schema.primary_key, 1)]
        for u in schema.uniques:
            if not u.index:
                rows += [(t, u.name, c, i, None) for i, c in enumerate(u.columns, 1)]
        for fk in schema.foreign_keys:
            target = by_id.get(fk.table_id)
            key = _referenced_key(target, fk.ref_columns) if target is not None else None
            rows += [(t, fk.name, c, i, key.index(r) + 1 if key and r in key else i)
                     for i, (c, r) in enumerate(zip(fk.columns, fk.ref_columns), 1)]
    return pa.table({
        "constraint_catalog": _text([CATALOG] * len(rows)),
        "constraint_schema": _text(schema_name(t.db) for t, *_ in rows),
        "constraint_name": _text(name for _, name, *_ in rows),
        "table_catalog": _text([CATALOG] * len(rows)),
        "table_schema": _text(schema_name(t.db) for t, *_ in rows),
        "table_name": _text(t.name for t, *_ in rows),
        "column_name": _text(c for _, _, c, _, _ in rows),
        "ordinal_position": _int(i for _, _, _, i, _ in rows),
        "position_in_unique_constraint": _int(p for *_, p in rows),
    })


def _referenced_key(t: TableVersion, columns: tuple[str, ...]) -> tuple[str, ...] | None:
    """The columns, in key order, of the primary key or unique constraint of ``t`` over ``columns``."""
    from txlake.engine.uniques import matching  # (a module of the executor's, which imports this one)
    key = matching(t.schema, t.name, columns)
    return key.columns if key is not None else None


def _data_type(c: Column) -> tuple[str, str]:
    if c.type.kind == "ARRAY":  # (as PostgreSQL names them: ARRAY, and the array type _int4, _varchar)
        return "ARRAY", "_" + _data_type(replace(c, type=c.type.element))[1]
    if c.type.blank_padded:
        return "character", "bpchar"
    if c.type.kind == "VARCHAR":
        return ("character varying", "varchar") if c.type.length else ("text", "text")
    return _PG_TYPES.get(c.type.kind, (c.type.display().lower(), c.type.display().lower()))


def _numeric(c: Column) -> tuple[int | None, int | None, int | None]:
    """(numeric_precision, numeric_precision_radix, numeric_scale)"""
    if c.type.kind == "DECIMAL":
        return c.type.precision, 10, c.type.scale
    if c.type.kind in _PRECISION:
        precision, radix = _PRECISION[c.type.kind]
        return precision, radix, 0 if c.type.kind != "DOUBLE" else None
    return None, None, None


def _routines(tables: list[TableVersion]) -> pa.Table:
    """The user-defined functions (engine/functions.py), as PostgreSQL's information_schema.routines
    rows: a function's ``specific_name`` is its name and OID (``f_16385``)."""
    from txlake.engine.pg_catalog import oid
    found = [t for t in tables if t.is_function]
    defined = [t.schema.function for t in found]
    user_types = {t.name for t in tables if t.is_type}
    n = len(found)
    return pa.table({
        "specific_catalog": _text([CATALOG] * n), "specific_schema": _text(schema_name(t.db) for t in found),
        "specific_name": _text(f"{d.name}_{oid(t.table_id)}" for t, d in zip(found, defined)),
        "routine_catalog": _text([CATALOG] * n), "routine_schema": _text(schema_name(t.db) for t in found),
        "routine_name": _text(d.name for d in defined), "routine_type": _text(["FUNCTION"] * n),
        "data_type": _text("USER-DEFINED" if d.returns in user_types else d.returns for d in defined),
        "routine_body": _text(["SQL"] * n), "routine_definition": _text(d.body for d in defined),
        "external_language": _text(d.language.upper() for d in defined),
        "is_deterministic": _text("YES" if d.volatility == "i" else "NO" for d in defined),
        "is_null_call": _text("YES" if d.strict else "NO" for d in defined),
        "security_type": _text("DEFINER" if any(o.upper().endswith("SECURITY DEFINER") for o in d.options)
                               else "INVOKER" for d in defined)})


def _triggers(tables: list[TableVersion]) -> pa.Table:
    """The tables' triggers (engine/triggers.py), as PostgreSQL's information_schema.triggers
    rows: one per event, the action's order its number among the table's of that event and timing."""
    from txlake.engine import triggers
    rows = []
    for t, g in triggers.listed(tables):
        for event in g.events:
            if event == "TRUNCATE":  # (the standard has no TRUNCATE: PostgreSQL leaves them out)
                continue
            order = 1 + sum(1 for o in t.schema.triggers if o.name < g.name and event in o.events and
                            (o.timing, o.row) == (g.timing, g.row))
            rows.append((schema_name(t.db), g.name, event, t.name, order, g.when, triggers.definition(t, g),
                         "ROW" if g.row else "STATEMENT", g.timing, g.old_table, g.new_table))
    columns = list(zip(*rows)) if rows else [[]] * 11
    n = len(rows)
    return pa.table({
        "trigger_catalog": _text([CATALOG] * n), "trigger_schema": _text(columns[0]), "trigger_name": _text(columns[1]),
        "event_manipulation": _text(columns[2]), "event_object_catalog": _text([CATALOG] * n),
        "event_object_schema": _text(columns[0]), "event_object_table": _text(columns[3]),
        "action_order": _int(columns[4]), "action_condition": _text(columns[5]),
        "action_statement": _text(d[d.index("EXECUTE FUNCTION"):] for d in columns[6]),
        "action_orientation": _text(columns[7]), "action_timing": _text(columns[8]),
        "action_reference_old_table": _text(columns[9]), "action_reference_new_table": _text(columns[10]),
        "action_reference_old_row": _text([None] * n), "action_reference_new_row": _text([None] * n),
        "created": _text([None] * n)})


_VIEWS = {
    "information_schema.routines": _routines,
    "information_schema.triggers": _triggers,
    "information_schema.tables": _tables,
    "information_schema.table_privileges": _table_privileges,
    "information_schema.role_table_grants": _table_privileges,
    "information_schema.columns": _columns,
    "information_schema.schemata": _schemata,
    "information_schema.views": _views,
    "information_schema.sequences": _sequences,
    "information_schema.table_constraints": _table_constraints,
    "information_schema.check_constraints": _check_constraints,
    "information_schema.referential_constraints": _referential_constraints,
    "information_schema.constraint_column_usage": _constraint_column_usage,
    "pg_catalog.pg_tables": _pg_tables,
    "pg_catalog.pg_views": _pg_views,
    "pg_catalog.pg_matviews": _pg_matviews,
    "pg_catalog.pg_indexes": _pg_indexes,
    "pg_catalog.pg_policies": _pg_policies,
    "information_schema.key_column_usage": _key_column_usage,
    "pg_catalog.pg_sequences": None,  # (build: it reads the sequences' files too)
    # engine/pg_catalog.py's
    **dict.fromkeys(f"pg_catalog.{name}" for name in ("pg_namespace", "pg_class", "pg_attribute", "pg_type",
                                                       "pg_enum", "pg_constraint", "pg_index", "pg_database",
                                                       "pg_attrdef", "pg_description", "pg_collation",
                                                       "pg_proc", "pg_trigger", "pg_policy")),
    # engine/pg_fixed.py's: the roles, access methods, languages, extensions, ... txlake knows
    **dict.fromkeys(f"pg_catalog.{name}" for name in ("pg_roles", "pg_user", "pg_authid", "pg_auth_members", "pg_am",
                                                       "pg_language", "pg_extension", "pg_tablespace", "pg_inherits",
                                                       "pg_partitioned_table", "pg_stat_user_tables",
                                                       "pg_stat_all_tables")),
    # engine/system_views.py's: the sessions, their locks, settings and cursors, the prepared transactions
    **dict.fromkeys(f"pg_catalog.{name}" for name in ("pg_stat_activity", "pg_locks", "pg_settings", "pg_cursors",
                                                       "pg_prepared_xacts")),
}
