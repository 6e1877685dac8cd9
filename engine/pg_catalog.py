"""PostgreSQL's system catalogs over txlake's catalog: ``pg_namespace``, ``pg_class``,
``pg_attribute``, ``pg_type``, ``pg_enum``, ``pg_constraint``, ``pg_index``, ``pg_database``,
``pg_attrdef``, ``pg_description`` and ``pg_collation``,
the relations tools read by OID and join (psql's ``\\d`` queries, SQLAlchemy's reflection).

They are catalog views as engine/catalog_views.py's are - built per statement from the tables
the transaction sees, read-only, their commonly read columns only - and they agree with one
another: a relation's ``pg_class.oid`` is its ``pg_attribute.attrelid``, ``pg_index.indrelid``,
``pg_constraint.conrelid``; a column's ``atttypid`` a ``pg_type.oid``.

OIDs. Built-in types have PostgreSQL's own (int4 23, text 25, numeric 1700, _int4 1007, ...),
as do ``pg_catalog`` (11) and ``public`` (2200). Everything else - tables, views, sequences,
indexes, constraints, user types, other schemas - gets one derived from its catalog entry's id
(and its name, for an index or a constraint): a hash into 16384 .. 2**31 - 1, PostgreSQL's range
for user objects, so the same object has the same OID in every session and process of the
warehouse (an ALTER TABLE keeps it). A relation's owner, ``nspowner`` and ``datdba`` are 10,
PostgreSQL's bootstrap superuser: txlake has no roles.

``'t'::regclass`` is the OID of relation ``t`` where an OID is meant - cast to ``oid``,
compared (``WHERE attrelid = 't'::regclass``) or a function's of OIDs - looked up at each
execution; elsewhere a regclass is shown by name, as text (engine/catalog_functions.py, which
answers the functions tools call over these catalogs: format_type, pg_get_indexdef, ...).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import replace
from typing import NamedTuple

import pyarrow as pa
from sqlglot import exp

from txlake import errors
from txlake.engine import catalog_views, checks, uniques, user_types
from txlake.engine.catalog_views import CATALOG, schema_name
from txlake.engine.pg_expr import column_default
from txlake.engine.temp_tables import TEMP_ID_PREFIX
from txlake.parser.parse import parse_table_name
from txlake.parser.semantics import INDEXES_SIZE, RELATION_SIZES
from txlake.storage.schema import Column, ColumnType, parse_type_name
from txlake.storage.version import TableVersion

FIRST_USER_OID = 16384  # (PostgreSQL's FirstNormalObjectId)
OWNER = 10  # (PostgreSQL's BOOTSTRAP_SUPERUSERID)
_NAMESPACES = {"pg_catalog": 11, "public": 2200}

#: PostgreSQL's built-in types: name -> (oid, typlen, typcategory, array type oid); the kinds
#: txlake's columns have, and the few others its catalog's own columns have
BUILTIN = {
    "bool": (16, 1, "B", 1000), "bytea": (17, -1, "U", 1001), "char": (18, 1, "Z", 1002),
    "name": (19, 64, "S", 1003), "int8": (20, 8, "N", 1016), "int2": (21, 2, "N", 1005),
    "int4": (23, 4, "N", 1007), "text": (25, -1, "S", 1009), "oid": (26, 4, "N", 1028),
    "json": (114, -1, "U", 199), "float4": (700, 4, "N", 1021), "float8": (701, 8, "N", 1022),
    "bpchar": (1042, -1, "S", 1014), "varchar": (1043, -1, "S", 1015), "date": (1082, 4, "D", 1182),
    "time": (1083, 8, "D", 1183), "timestamp": (1114, 8, "D", 1115), "timestamptz": (1184, 8, "D", 1185),
    "interval": (1186, 16, "T", 1187), "timetz": (1266, 12, "D", 1270), "numeric": (1700, -1, "N", 1231),
    "regproc": (24, 4, "N", 1008), "regprocedure": (2202, 4, "N", 2207),
    "regclass": (2205, 4, "N", 2210), "regtype": (2206, 4, "N", 2211), "uuid": (2950, 16, "U", 2951),
    "jsonb": (3802, -1, "U", 3807), "inet": (869, -1, "I", 1041), "cidr": (650, -1, "I", 651),
}
#: PostgreSQL's pseudo-types (typtype p, typcategory P) a function's result or argument may name:
#: name -> (oid, typlen, array type oid or 0)
PSEUDO = {"record": (2249, -1, 2287), "cstring": (2275, -2, 1263), "any": (2276, 4, 0), "trigger": (2279, 4, 0),
          "void": (2278, 4, 0), "internal": (2281, 8, 0), "anyelement": (2283, 4, 0)}
#: PostgreSQL's access methods: name -> (oid, amhandler, amtype: t a table's, i an index's)
ACCESS_METHODS = {"heap": (2, "heap_tableam_handler", "t"), "btree": (403, "bthandler", "i"),
                  "hash": (405, "hashhandler", "i"), "gist": (783, "gisthandler", "i"),
                  "gin": (2742, "ginhandler", "i"), "spgist": (4000, "spghandler", "i"),
                  "brin": (3580, "brinhandler", "i")}
#: pg_constraint.confupdtype / confdeltype of each referential action
_ACTIONS = {"NO ACTION": "a", "RESTRICT": "r", "CASCADE": "c", "SET NULL": "n", "SET DEFAULT": "d"}


# to_regclass(text): parser/semantics.py checks its argument, the executor answers it (``regclass_oid``)
TO_REGCLASS = "to_regclass"


def oid(entry_id: str, part: str = "") -> int:
    """The OID of the catalog entry ``entry_id`` (``part``: of one of its indexes, constraints
    or its row type), stable across sessions and processes."""
    digest = hashlib.blake2b(f"{entry_id}/{part}".encode(), digest_size=4).digest()
    return FIRST_USER_OID + int.from_bytes(digest, "big") % (2 ** 31 - FIRST_USER_OID)


def constraint_oid(table_id: str, name: str) -> int:
    """The OID of the constraint ``name`` of the table (or domain) ``table_id``."""
    return oid(table_id, "constraint/" + name)


def namespace_oid(schema: str) -> int:
    return _NAMESPACES.get(schema) or oid("namespace", schema)


def as_oid(node: exp.Expression) -> bool:
    """Does a regclass ``node`` stand for an OID: cast to ``oid``, compared with ``=``, ``<>``
    or ``IN`` (``WHERE c.oid = 't'::regclass``), or the argument of a function of OIDs
    (``pg_get_indexdef('t_pkey'::regclass)``)?"""
    parent = node.parent
    while isinstance(parent, exp.Paren):  # (('t'::regclass)::oid)
        parent = parent.parent
    return isinstance(parent, (exp.EQ, exp.NEQ, exp.In)) or \
        (isinstance(parent, exp.Cast) and type_is(parent.to, "oid")) or \
        (isinstance(parent, exp.Anonymous) and parent.name.lower() in OID_TAKERS)


#: the functions of OIDs engine/catalog_functions.py answers: a regclass argument is an OID
OID_TAKERS = frozenset({"format_type", "pg_get_indexdef", "pg_get_constraintdef", "pg_get_expr", "pg_get_triggerdef",
                        "pg_table_is_visible", "pg_get_userbyid", "obj_description", "col_description",
                        "pg_get_viewdef", "pg_type_is_visible", "pg_function_is_visible", "pg_get_functiondef",
                        "pg_get_function_arguments", "pg_get_function_identity_arguments", "pg_get_function_result",
                        *RELATION_SIZES})


def type_is(to: exp.Expression, name: str) -> bool:
    return str(to.args.get("kind") or to.this).lower() in (name, f"pg_catalog.{name}")


def regclass_oid(ex, ctx, node: exp.Cast | exp.Anonymous) -> exp.Expression:
    """``'name'::regclass`` as the pg_class OID of the table, view, sequence or index it names,
    found as PostgreSQL's regclass input finds it (the search path, or the schema given), or
    42P01. ``to_regclass('name')``: NULL where that is 42P01 or the name no relation's, else the
    OID where it stands for one (``as_oid``), else the relation's name as PostgreSQL shows a
    regclass (``engine/user_types.py shown_name``; an index's as written)."""
    if isinstance(node, exp.Anonymous):
        try:
            found = relation(ex, ctx, parse_table_name(node.expressions[0].this))
        except errors.Error:  # (PostgreSQL 16's to_regclass gives NULL for a bad name too)
            return exp.Null()
        if found is None or as_oid(node):
            return exp.Null() if found is None else exp.Literal.number(found[0])
        return user_types.shown_name(ctx, found[1]) if found[1] is not None else node.expressions[0].copy()
    return exp.Literal.number(named_relation(ex, ctx, node.this.this)[0])


def relation_size(ex, ctx, node: exp.Anonymous) -> exp.Expression:
    """The bytes of the relation a ``pg_total_relation_size('name')`` call names, as this
    transaction sees it: a table's data files (Parquet, and the rows committed inline in the
    log as encoded there); a view's, sequence's or index's 0 (txlake's indexes are built in
    memory, so ``pg_indexes_size`` is 0 too). 42P01 for no such relation, as the regclass
    PostgreSQL reads the name as."""
    found = named_relation(ex, ctx, node.expressions[0].this)
    return exp.Literal.number(size(found[1]) if found[1] is not None and node.name.lower() != INDEXES_SIZE else 0)


def size(version: TableVersion) -> int:
    """The bytes of relation ``version``'s data files (a view's, a sequence's: 0)."""
    return sum(f.size for f in version.files) if version.is_table else 0


def named_relation(ex, ctx, name: str) -> tuple[int, TableVersion | None]:
    """``relation`` of the relation ``name`` names, as regclass input reads it: 42P01 for none."""
    found = relation(ex, ctx, target := parse_table_name(name))
    if found is None:
        raise catalog_views.undefined_table(target)
    return found


def relation(ex, ctx, target) -> tuple[int, TableVersion | None] | None:
    """The OID of the relation ``target`` names, and its table, view or sequence (None: an index)."""
    version = ctx.lookup(target)
    if version is not None and not version.is_type:
        return oid(version.table_id), version
    hit = uniques.index_names(ex, ctx, ctx.locate(target)[0]).get(target.name)
    return None if hit is None else (oid(hit[0].table_id, target.name), None)


def build(key: str, tables: list[TableVersion]) -> pa.Table:
    return _VIEWS[key](tables)


def _oid(values) -> pa.Array:  # (DuckDB's OID is a BIGINT)
    return pa.array(list(values), pa.int64())


def _int2(values) -> pa.Array:
    return pa.array(list(values), pa.int16())


def _int2s(values) -> pa.Array:  # (int2vector and smallint[] alike)
    return pa.array(list(values), pa.list_(pa.int16()))


_text, _int, _bool = catalog_views._text, catalog_views._int, catalog_views._bool


def _relations(tables: list[TableVersion]) -> list[TableVersion]:
    return [t for t in tables if not t.is_type and not t.is_function]


def _composites(tables: list[TableVersion]) -> list[TableVersion]:
    """The composite types: each has a pg_class row (relkind c, its OID ``oid(id, _COMPOSITE)``)
    that its pg_type row's typrelid names and its attributes' pg_attribute rows name."""
    return [t for t in tables if t.is_type and t.schema.user_type.composite]


_COMPOSITE = "class"


def indexes_of(t: TableVersion) -> list[tuple[str, tuple[str, ...], bool, bool, bool]]:
    """(name, columns, unique, primary, immediate) of each index of table ``t``: its primary
    key's, its UNIQUE constraints' and unique indexes', its other indexes."""
    if not t.is_table:
        return []
    found = [(name, columns, True, kind == "PRIMARY KEY", not timing)
             for name, columns, kind, _, timing in catalog_views.unique_indexes(t)]
    return found + [(i.name, i.shown, False, False, True) for i in t.schema.indexes]


def _attributes(t: TableVersion) -> list[Column]:
    """The columns pg_attribute lists for relation ``t``: a sequence's are PostgreSQL's."""
    if t.is_sequence:
        return [Column(0, "last_value", ColumnType("BIGINT"), True), Column(1, "log_cnt", ColumnType("BIGINT"), True),
                Column(2, "is_called", ColumnType("BOOLEAN"), True)]
    return list(catalog_views.columns_of(t))


def namespace_names(tables: list[TableVersion]) -> list[str]:
    """The schemas pg_namespace lists, by name: public, the catalogs' and those of ``tables``."""
    return sorted({"public", *catalog_views.CATALOG_SCHEMAS, *(schema_name(t.db) for t in tables)})


def _pg_namespace(tables: list[TableVersion]) -> pa.Table:
    names = namespace_names(tables)
    return pa.table({"oid": _oid(namespace_oid(n) for n in names), "nspname": _text(names),
                     "nspowner": _oid([OWNER] * len(names))})


def _relkind(t: TableVersion) -> str:
    if t.schema.partitioning is not None:
        return "p"
    return "v" if t.is_view else "S" if t.is_sequence else "m" if t.is_matview else "r"


def _pg_class(tables: list[TableVersion]) -> pa.Table:
    # (oid, name, schema, relkind, persistence, reltuples, hasindex, natts, reltype, checks, populated, am,
    # hastriggers, partition bound, rowsecurity, forcerowsecurity)
    rows = []
    for t in _relations(tables):
        persistence = "t" if t.table_id.startswith(TEMP_ID_PREFIX) else "p"
        indexes = indexes_of(t)
        # (reltuples: a table's row count, which its files' metadata give; -1, "never counted", else)
        rows.append((oid(t.table_id), t.name, t.db, _relkind(t), persistence,
                     t.row_count if t.is_table else -1, bool(indexes), len(_attributes(t)),
                     oid(t.table_id, "type") if not t.is_sequence else 0, len(t.schema.checks),
                     not t.is_matview or t.schema.matview.populated, "heap" if t.is_table else None,
                     bool(t.schema.triggers), t.schema.partition_of, t.schema.row_security,
                     t.schema.force_row_security))
        methods = {i.name: i.method for i in t.schema.indexes} if t.is_table else {}
        rows += [(oid(t.table_id, name), name, t.db, "i", persistence, -1, False, len(columns), 0, 0, True,
                  methods.get(name, "btree"), False, None, False, False) for name, columns, *_ in indexes]
    rows += [(oid(t.table_id, _COMPOSITE), t.name, t.db, "c", "p", -1, False, len(t.schema.user_type.attributes),
              oid(t.table_id), 0, True, None, False, None, False, False) for t in _composites(tables)]
    n = len(rows)
    return pa.table({
        "oid": _oid(r[0] for r in rows),
        "relname": _text(r[1] for r in rows),
        "relnamespace": _oid(namespace_oid(schema_name(r[2])) for r in rows),
        "reltype": _oid(r[8] for r in rows),
        "relowner": _oid([OWNER] * n),
        "relam": _oid(ACCESS_METHODS[r[11]][0] if r[11] else 0 for r in rows),
        "reltablespace": _oid([0] * n),  # (the database's default tablespace)
        "relkind": _text(r[3] for r in rows),
        "relpersistence": _text(r[4] for r in rows),
        "reltuples": pa.array([float(r[5]) for r in rows], pa.float32()),
        "relhasindex": _bool(r[6] for r in rows),
        "relnatts": _int2(r[7] for r in rows),
        "relchecks": _int2(r[9] for r in rows),
        "relispartition": _bool(r[13] is not None for r in rows),
        # (PostgreSQL's node tree of the bound: here its text, which pg_get_expr gives back as it is)
        "relpartbound": _text(r[13].shown if r[13] is not None else None for r in rows),
        "relispopulated": _bool(r[10] for r in rows),
        "relhasrules": _bool([False] * n),
        "relhastriggers": _bool(r[12] for r in rows),
        "relrowsecurity": _bool(r[14] for r in rows),
        "relforcerowsecurity": _bool(r[15] for r in rows),
    })


def _type_of(c: Column, user_types: dict[str, TableVersion]) -> tuple[int | None, int]:
    """(atttypid, atttypmod) of column ``c``: numeric(p,s)'s typmod is ((p << 16) | s) + 4 and
    varchar(n)'s and char(n)'s n + 4, as PostgreSQL's; an array's is its element's."""
    if c.user_type is not None and c.user_type in user_types:
        return oid(c.user_type), -1
    kind = c.type.element if c.type.kind == "ARRAY" else c.type
    name = _type_name(kind)
    typmod = ((kind.precision << 16) | kind.scale) + 4 if kind.kind == "DECIMAL" \
        else kind.length + 4 if kind.kind == "VARCHAR" and kind.length else -1
    if name not in BUILTIN:
        return None, -1  # (a view's column of a type txlake has no kind for)
    return (BUILTIN[name][3] if c.type.kind == "ARRAY" else BUILTIN[name][0]), typmod


def _type_name(kind: ColumnType) -> str:
    return catalog_views._data_type(Column(0, "", kind))[1]


def _pg_attribute(tables: list[TableVersion]) -> pa.Table:
    user_types = {t.table_id: t for t in tables if t.is_type}
    rows = []  # (attrelid, column, attnum, (atttypid, atttypmod))
    for t in _relations(tables):
        columns = _attributes(t)
        rows += [(oid(t.table_id), c, i, _type_of(c, user_types)) for i, c in enumerate(columns, 1)]
        by_name = {c.name: c for c in columns}  # (an index's: its table's, with no NOT NULL or default)
        rows += [(oid(t.table_id, name), replace(by_name[column], not_null=False, default=None), i,
                  _type_of(by_name[column], user_types))
                 for name, index_columns, *_ in indexes_of(t) for i, column in enumerate(index_columns, 1)
                 if column in by_name]  # (an expression's attribute: not listed)
    for t in _composites(tables):
        attributes = [Column(i, name, parse_type_name(type_)) for i, (name, type_) in
                      enumerate(t.schema.user_type.attributes, 1)]
        rows += [(oid(t.table_id, _COMPOSITE), c, c.field_id, _type_of(c, user_types)) for c in attributes]
    n = len(rows)
    return pa.table({
        "attrelid": _oid(r[0] for r in rows),
        "attname": _text(c.name for _, c, _, _ in rows),
        "atttypid": _oid(typ[0] for *_, typ in rows),
        "attnum": _int2(i for _, _, i, _ in rows),
        "atttypmod": _int(typ[1] for *_, typ in rows),
        "attndims": _int2(1 if c.type.kind == "ARRAY" else 0 for _, c, _, _ in rows),
        "attnotnull": _bool(c.not_null for _, c, _, _ in rows),
        "atthasdef": _bool(_default_of(c) is not None for _, c, _, _ in rows),
        "attidentity": _text("a" if c.always else "" for _, c, _, _ in rows),
        "attgenerated": _text("s" if c.generated is not None else "" for _, c, _, _ in rows),
        "attisdropped": _bool([False] * n),
        "attislocal": _bool([True] * n),
        "attcollation": _oid(_COLLATIONS.get(typ[0], 0) for *_, typ in rows),
    })


def _pg_type(tables: list[TableVersion]) -> pa.Table:
    # (oid, name, namespace, typtype, typlen, typcategory, typrelid, typelem, typarray, base, typmod, notnull)
    rows = []
    for name, (type_oid, length, category, array) in BUILTIN.items():
        rows.append((type_oid, name, "pg_catalog", "b", length, category, 0, 0, array, 0, -1, False))
        rows.append((array, "_" + name, "pg_catalog", "b", -1, "A", 0, type_oid, 0, 0, -1, False))
    for name, (type_oid, length, array) in PSEUDO.items():
        rows.append((type_oid, name, "pg_catalog", "p", length, "P", 0, 0, array, 0, -1, False))
        if array:
            rows.append((array, "_" + name, "pg_catalog", "p", -1, "P", 0, type_oid, 0, 0, -1, False))
    for t in tables:
        schema = schema_name(t.db)
        if t.is_type and t.schema.user_type.is_domain:
            domain = t.schema.user_type
            base = parse_type_name(domain.base)
            base_oid, typmod = _type_of(Column(0, "", base), {})
            length, category = (-1, "A") if base.kind == "ARRAY" else BUILTIN[_type_name(base)][1:3]
            rows.append((oid(t.table_id), t.name, schema, "d", length, category, 0, 0, 0, base_oid, typmod,
                         domain.not_null))
        elif t.is_type and t.schema.user_type.composite:
            rows.append((oid(t.table_id), t.name, schema, "c", -1, "C", oid(t.table_id, _COMPOSITE), 0, 0, 0, -1,
                         False))
        elif t.is_type:
            rows.append((oid(t.table_id), t.name, schema, "e", 4, "E", 0, 0, 0, 0, -1, False))
        elif not t.is_sequence:  # (a table's or view's row type)
            rows.append((oid(t.table_id, "type"), t.name, schema, "c", -1, "C", oid(t.table_id), 0, 0, 0, -1, False))
    return pa.table({
        "oid": _oid(r[0] for r in rows),
        "typname": _text(r[1] for r in rows),
        "typnamespace": _oid(namespace_oid(r[2]) for r in rows),
        "typowner": _oid([OWNER] * len(rows)),
        "typlen": _int2(r[4] for r in rows),
        "typtype": _text(r[3] for r in rows),
        "typcategory": _text(r[5] for r in rows),
        "typrelid": _oid(r[6] for r in rows),
        "typelem": _oid(r[7] for r in rows),
        "typarray": _oid(r[8] for r in rows),
        "typbasetype": _oid(r[9] for r in rows),
        "typtypmod": _int(r[10] for r in rows),
        "typnotnull": _bool(r[11] for r in rows),
        "typcollation": _oid(_COLLATIONS.get(r[9] or r[0], 0) for r in rows),  # (a domain's: its base type's)
    })


def _pg_enum(tables: list[TableVersion]) -> pa.Table:
    rows = [(t, i, label) for t in tables if t.is_type and not t.schema.user_type.is_domain
            for i, label in enumerate(t.schema.user_type.labels, 1)]
    return pa.table({
        "oid": _oid(oid(t.table_id, "label/" + label) for t, _, label in rows),
        "enumtypid": _oid(oid(t.table_id) for t, _, _ in rows),
        "enumsortorder": pa.array([float(i) for _, i, _ in rows], pa.float32()),
        "enumlabel": _text(label for *_, label in rows),
    })


def _attnums(t: TableVersion, columns) -> list[int]:
    names = [c.name for c in _attributes(t)]
    return [names.index(c) + 1 if c in names else 0 for c in columns]  # (0: an expression, as PostgreSQL's)


class _Constraint(NamedTuple):
    owner: TableVersion  # (the table, or the domain)
    name: str
    contype: str
    key: list[int] | None = None  # (None: a domain's)
    target: TableVersion | None = None  # a foreign key's referenced table, and its key
    target_key: list[int] | None = None
    spec: object = None  # the UniqueConstraint, ForeignKey or CheckConstraint

    @property
    def oid(self) -> int:
        return constraint_oid(self.owner.table_id, self.name)

    @property
    def relid(self) -> int:
        return oid(self.owner.table_id) if self.key is not None else 0

    @property
    def index(self) -> int:
        """conindid: a key's own index; a foreign key's, the referenced key's."""
        if self.contype in ("p", "u"):
            return oid(self.owner.table_id, self.name)
        if self.contype == "f" and self.target is not None:
            return oid(self.target.table_id, catalog_views._referenced_key_name(self.target, self.spec))
        return 0


def constraints(tables: list[TableVersion]) -> list[_Constraint]:
    """Each table's primary key, UNIQUE, FOREIGN KEY and CHECK constraints, and each domain's
    CHECKs (``contypid`` the domain, ``conrelid`` 0); not NOT NULL, which PostgreSQL 16 keeps
    in pg_attribute (and pg_type) alone."""
    by_id = {t.table_id: t for t in tables}
    rows: list[_Constraint] = []
    for t in tables:
        if t.is_type and t.schema.user_type.is_domain:
            rows += [_Constraint(t, c.name, "c", spec=c) for c in t.schema.user_type.checks]
        if not t.is_table:
            continue
        if t.schema.primary_key:
            rows.append(_Constraint(t, t.schema.pkey_name(t.name), "p", _attnums(t, t.schema.primary_key)))
        rows += [_Constraint(t, u.name, "u", _attnums(t, u.columns), spec=u) for u in t.schema.uniques if not u.index]
        for fk in t.schema.foreign_keys:
            target = by_id.get(fk.table_id)
            rows.append(_Constraint(t, fk.name, "f", _attnums(t, fk.columns), target,
                                    _attnums(target, fk.ref_columns) if target is not None else None, fk))
        rows += [_Constraint(t, c.name, "c", sorted(_attnums(t, checks.columns_of(c))), spec=c)
                 for c in t.schema.checks]
    return rows


def _pg_constraint(tables: list[TableVersion]) -> pa.Table:
    rows = constraints(tables)
    fks = [r.spec if r.contype == "f" else None for r in rows]
    return pa.table({
        "oid": _oid(r.oid for r in rows),
        "conname": _text(r.name for r in rows),
        "connamespace": _oid(namespace_oid(schema_name(r.owner.db)) for r in rows),
        "contype": _text(r.contype for r in rows),
        "condeferrable": _bool(getattr(r.spec, "deferrable", False) for r in rows),
        "condeferred": _bool(getattr(r.spec, "initially_deferred", False) for r in rows),
        "convalidated": _bool(getattr(r.spec, "validated", True) for r in rows),
        "conrelid": _oid(r.relid for r in rows),
        "contypid": _oid(oid(r.owner.table_id) if r.key is None else 0 for r in rows),
        "conindid": _oid(r.index for r in rows),
        "conparentid": _oid([0] * len(rows)),  # (txlake has no partitions)
        "confrelid": _oid(oid(r.target.table_id) if r.target is not None else 0 for r in rows),
        "confupdtype": _text(_ACTIONS[fk.on_update] if fk else " " for fk in fks),
        "confdeltype": _text(_ACTIONS[fk.on_delete] if fk else " " for fk in fks),
        "confmatchtype": _text(("f" if fk.match_full else "s") if fk else " " for fk in fks),
        "conkey": _int2s(r.key for r in rows),
        "confkey": _int2s(r.target_key for r in rows),
    })


def _pg_index(tables: list[TableVersion]) -> pa.Table:
    rows = [(t, name, _attnums(t, columns), unique, primary, immediate) for t in tables
            for name, columns, unique, primary, immediate in indexes_of(t)]
    n = len(rows)
    return pa.table({
        "indexrelid": _oid(oid(t.table_id, name) for t, name, *_ in rows),
        "indrelid": _oid(oid(t.table_id) for t, *_ in rows),
        "indnatts": _int2(len(key) for _, _, key, *_ in rows),
        "indnkeyatts": _int2(len(key) for _, _, key, *_ in rows),
        "indisunique": _bool(r[3] for r in rows),
        "indnullsnotdistinct": _bool(r[1] in _nulls_not_distinct(r[0]) for r in rows),
        "indisprimary": _bool(r[4] for r in rows),
        "indisexclusion": _bool([False] * n),
        "indimmediate": _bool(r[5] for r in rows),
        "indisclustered": _bool([False] * n),
        "indisvalid": _bool([True] * n),
        "indisready": _bool([True] * n),
        "indislive": _bool([True] * n),
        "indisreplident": _bool([False] * n),
        "indkey": _int2s(key for _, _, key, *_ in rows),
    })


def _nulls_not_distinct(t: TableVersion) -> set[str]:
    return {u.name for u in t.schema.uniques if u.nulls_not_distinct}


class Default(NamedTuple):
    """A pg_attrdef row: a column's default - or generation expression - as pg_get_expr gives
    it (``adbin`` holds that text, where PostgreSQL has the node tree), and its pretty form."""

    oid: int
    relid: int
    adnum: int
    adbin: str
    pretty: str


def defaults(tables: list[TableVersion]) -> list[Default]:
    rows = []
    for t in tables:
        if t.is_table:
            rows += [Default(oid(t.table_id, f"default/{i}"), oid(t.table_id), i, *texts)
                     for i, c in enumerate(t.schema.columns, 1) if (texts := _default_of(c)) is not None]
    return rows


def _default_of(c: Column) -> tuple[str, str] | None:
    """(text, pretty text) of column ``c``'s default or generation expression; None for none
    (an identity column has none: its sequence is no default; a DEFAULT NULL none either)."""
    if c.generated is not None:
        return checks.unpretty(c.generated), checks.display(c.generated)
    if c.identity or c.default is None:
        return None
    text = column_default(c.default, c.type)
    return (text, column_default(c.default, c.type, pretty=True)) if text is not None else None


def _pg_attrdef(tables: list[TableVersion]) -> pa.Table:
    rows = defaults(tables)
    return pa.table({"oid": _oid(r.oid for r in rows),
                     "adrelid": _oid(r.relid for r in rows), "adnum": _int2(r.adnum for r in rows),
                     "adbin": _text(r.adbin for r in rows)})


#: the OIDs of the system catalogs, as ``'pg_class'::regclass`` (pg_description.classoid)
CATALOG_OIDS = {"pg_class": 1259, "pg_constraint": 2606, "pg_type": 1247, "pg_namespace": 2615, "pg_proc": 1255,
                "pg_database": 1262, "pg_attribute": 1249, "pg_index": 2610, "pg_attrdef": 2604, "pg_am": 2601,
                "pg_trigger": 2620, "pg_policy": 3256, "pg_extension": 3079, "pg_collation": 3456,
                "pg_description": 2609, "pg_authid": 1260}


def descriptions(tables: list[TableVersion]) -> list[tuple[int, int, int, str]]:
    """pg_description's rows: (objoid, classoid, objsubid, description) of each comment
    (engine/comments.py): a relation's, a column's (its attnum), an index's, a constraint's."""
    rows = []
    for t in tables:
        if t.is_type or not t.schema.comments:
            continue
        attnums = {c.name if t.is_view else str(c.field_id): i for i, c in enumerate(_attributes(t), 1)}
        for c in t.schema.comments:
            if c.kind == "relation":
                rows.append((oid(t.table_id), CATALOG_OIDS["pg_class"], 0, c.text))
            elif c.kind == "column" and c.name in attnums:
                rows.append((oid(t.table_id), CATALOG_OIDS["pg_class"], attnums[c.name], c.text))
            elif c.kind == "index":
                rows.append((oid(t.table_id, c.name or t.schema.pkey_name(t.name)), CATALOG_OIDS["pg_class"], 0,
                             c.text))
            elif c.kind == "constraint":
                rows.append((constraint_oid(t.table_id, c.name or t.schema.pkey_name(t.name)),
                             CATALOG_OIDS["pg_constraint"], 0, c.text))
    return rows


def _pg_description(tables: list[TableVersion]) -> pa.Table:
    rows = descriptions(tables)
    return pa.table({"objoid": _oid(r[0] for r in rows), "classoid": _oid(r[1] for r in rows),
                     "objsubid": _int(r[2] for r in rows), "description": _text(r[3] for r in rows)})


#: the collations txlake has: PostgreSQL's "default" (the database's, text's), "C" (name's), "POSIX"
_DEFAULT_COLLATION, _C_COLLATION = 100, 950
#: typcollation of the collatable built-in types and their arrays (attcollation of their columns)
_COLLATIONS = {type_oid: _C_COLLATION if name == "name" else _DEFAULT_COLLATION
               for name, (element, _, category, array) in BUILTIN.items() if category == "S"
               for type_oid in (element, array)}


def _pg_collation(tables: list[TableVersion]) -> pa.Table:
    return pa.table({"oid": _oid([_DEFAULT_COLLATION, _C_COLLATION, 951]), "collname": _text(["default", "C", "POSIX"]),
                     "collnamespace": _oid([_NAMESPACES["pg_catalog"]] * 3), "collowner": _oid([OWNER] * 3),
                     "collprovider": _text(["d", "c", "c"]), "collisdeterministic": _bool([True] * 3),
                     "collencoding": _int([-1] * 3)})


# PostgreSQL's type names (format_type's, as a function's types are kept) -> their pg_type names
_TYPE_NAMES = {"integer": "int4", "bigint": "int8", "smallint": "int2", "boolean": "bool", "real": "float4",
               "double precision": "float8", "character varying": "varchar", "character": "bpchar",
               "timestamp without time zone": "timestamp", "timestamp with time zone": "timestamptz",
               "time without time zone": "time", "time with time zone": "timetz"}
#: other names SQL has for built-in types (regtype input takes them too)
_TYPE_ALIASES = {"int": "int4", "decimal": "numeric", "dec": "numeric", "float": "float8", "char": "bpchar"}
_PARALLEL = {"SAFE": "s", "RESTRICTED": "r", "UNSAFE": "u"}


def type_oid(name: str, tables: list[TableVersion]) -> int:
    """The OID of the type a function's parameter or result names (0: one txlake has no OID for)."""
    user = next((t for t in tables if t.is_type and t.name == name), None)
    if user is not None:
        return oid(user.table_id)
    row = next((t for t in tables if (t.is_table or t.is_view or t.is_matview) and t.name == name), None)
    if row is not None:  # (its row type: RETURNS [SETOF] t)
        return oid(row.table_id, "type")
    array = name.endswith("[]")
    if name in PSEUDO:
        return PSEUDO[name][0]
    found = BUILTIN.get(_TYPE_NAMES.get(name.removesuffix("[]"), name.removesuffix("[]")))
    return 0 if found is None else found[3] if array else found[0]


def named_type_oid(ctx, text: str) -> int:
    """The OID of the type ``text`` names, as regtype input reads it: a built-in type by any of
    its names (``integer``, ``int4``, ``int``, ``character varying(20)`` - a typmod is
    ignored -, ``text[]``, ``_int4``; quoted, by its pg_type name only: ``"char"``), else a
    user-defined type by the search path; 42704 for none."""
    written = re.sub(r"\s+", " ", re.sub(r"\(.*?\)", "", text)).strip()
    array = written.endswith("[]")
    base = written.removesuffix("[]").strip()
    quoted = base.startswith('"') and base.endswith('"') and len(base) > 1
    if quoted:
        base = base[1:-1].replace('""', '"')
    else:
        base = base.lower().removeprefix("pg_catalog.")
        base = _TYPE_NAMES.get(base, _TYPE_ALIASES.get(base, base))
        if not array and base.startswith("_") and base[1:] in BUILTIN:  # (an array type's pg_type name)
            array, base = True, base[1:]
    found = BUILTIN.get(base)
    if found is not None:
        return found[3] if array else found[0]
    user = ctx.txn.table(ctx.catalog, *ctx.locate(parse_table_name(written.removesuffix("[]"))))
    if user is None or not user.is_type or array:
        raise errors.UndefinedObject(f'type "{base if quoted else written}" does not exist')
    return oid(user.table_id)


#: pg_language's OIDs (plpgsql's is made by initdb: PostgreSQL 16's)
_LANGUAGES = {"sql": 14, "plpgsql": 13552}


def _pg_proc(tables: list[TableVersion]) -> pa.Table:
    """The user-defined functions and procedures (engine/functions.py), as PostgreSQL's pg_proc
    rows; their language is sql (OID 14) or plpgsql."""
    found = [t for t in tables if t.is_function]
    defined = [t.schema.function for t in found]
    parallel = [next((_PARALLEL[o.split()[-1].upper()] for o in d.options if o.upper().startswith("PARALLEL")), "u")
                for d in defined]
    return pa.table({
        "oid": _oid(oid(t.table_id) for t in found), "proname": _text(d.name for d in defined),
        "pronamespace": _oid(namespace_oid(schema_name(t.db)) for t in found), "proowner": _oid([OWNER] * len(found)),
        "prolang": _oid(_LANGUAGES[d.language] for d in defined),
        "prokind": _text("p" if d.procedure else "f" for d in defined),
        "prosecdef": _bool(any(o.upper().endswith("SECURITY DEFINER") for o in d.options) for d in defined),
        "proleakproof": _bool(any(o.upper() == "LEAKPROOF" for o in d.options) for d in defined),
        "proisstrict": _bool(d.strict for d in defined), "proretset": _bool(d.setof for d in defined),
        "provolatile": _text(d.volatility for d in defined), "proparallel": _text(parallel),
        "pronargs": _int2(len(d.args) for d in defined),
        "pronargdefaults": _int2(sum(x is not None for _, _, x in d.args) for d in defined),
        "prorettype": _oid(type_oid(d.returns, tables) for d in defined),  # (RETURNS TABLE's: record)
        "proargtypes": pa.array([[type_oid(a, tables) for a in d.arg_types] for d in defined], pa.list_(pa.int64())),
        # (all the parameters' - OUT ones', RETURNS TABLE's columns' too - where one is not IN)
        "proallargtypes": pa.array([[type_oid(t, tables) for _, _, t, _ in _parameters(d)] if _modes(d) else None
                                    for d in defined], pa.list_(pa.int64())),
        "proargmodes": pa.array([_modes(d) or None for d in defined], pa.list_(pa.string())),
        "proargnames": pa.array([[n for _, n, _, _ in _parameters(d)] if any(n for _, n, _, _ in _parameters(d))
                                 else None for d in defined], pa.list_(pa.string())),
        "prosrc": _text(d.body for d in defined)})


def _parameters(d) -> tuple:
    """(mode, name, type, default) of each of a function's parameters, RETURNS TABLE's columns
    too (mode t), as pg_proc lists them."""
    return d.parameters() + tuple(("TABLE", n, t, None) for n, t in d.table if not d.out_parameters)


def _modes(d) -> list[str]:
    """pg_proc.proargmodes: each parameter's i / o / b / t, where one is not IN (else none)."""
    modes = [_MODES[m] for m, *_ in _parameters(d)]
    return modes if any(m != "i" for m in modes) else []


_MODES = {"IN": "i", "OUT": "o", "INOUT": "b", "TABLE": "t"}


def _pg_trigger(tables: list[TableVersion]) -> pa.Table:
    """The tables' triggers (engine/triggers.py), as PostgreSQL's pg_trigger rows."""
    from txlake.engine import triggers
    found = triggers.listed(tables)
    functions = {t.table_id: t for t in tables if t.is_function}
    attnums = [{c.name: i for i, c in enumerate(_attributes(t), 1)} for t, _ in found]
    return pa.table({
        "oid": _oid(triggers.trigger_oid(t, g) for t, g in found), "tgrelid": _oid(oid(t.table_id) for t, _ in found),
        "tgparentid": _oid([0] * len(found)), "tgname": _text(g.name for _, g in found),
        "tgfoid": _oid(oid(g.function_id) if g.function_id in functions else 0 for _, g in found),
        "tgtype": _int2(triggers.tgtype(g) for _, g in found), "tgenabled": _text(g.enabled for _, g in found),
        "tgisinternal": _bool([False] * len(found)), "tgconstrrelid": _oid([0] * len(found)),
        "tgconstrindid": _oid([0] * len(found)), "tgconstraint": _oid([0] * len(found)),
        "tgdeferrable": _bool([False] * len(found)), "tginitdeferred": _bool([False] * len(found)),
        "tgnargs": _int2(len(g.args) for _, g in found),
        "tgattr": _int2s([numbers[c] for c in g.columns] for numbers, (_, g) in zip(attnums, found)),
        "tgargs": pa.array([b"".join(a.encode() + b"\x00" for a in g.args) for _, g in found], pa.binary()),
        "tgqual": _text(g.when for _, g in found), "tgoldtable": _text(g.old_table for _, g in found),
        "tgnewtable": _text(g.new_table for _, g in found)})


def _pg_policy(tables: list[TableVersion]) -> pa.Table:
    """The tables' policies (engine/policies.py), as PostgreSQL's pg_policy rows: polroles
    {0} for PUBLIC, polqual / polwithcheck the expressions' texts (pg_get_expr gives them back)."""
    from txlake.engine import policies
    found = [(t, p) for t in tables if t.is_table and t.schema.policies for p in t.schema.policies]
    return pa.table({
        "oid": _oid(policies.policy_oid(t, p) for t, p in found), "polname": _text(p.name for _, p in found),
        "polrelid": _oid(oid(t.table_id) for t, _ in found),
        "polcmd": _text(policies.COMMAND_CODES[p.command] for _, p in found),
        "polpermissive": _bool(p.permissive for _, p in found),
        "polroles": pa.array([[policies.role_oid(r) for r in p.roles] or [0] for _, p in found], pa.list_(pa.int64())),
        "polqual": _text(policies.expression_text(p.using) for _, p in found),
        "polwithcheck": _text(policies.expression_text(p.check) for _, p in found)})


def _pg_database(tables: list[TableVersion]) -> pa.Table:
    return pa.table({"oid": _oid([oid("database", CATALOG)]), "datname": _text([CATALOG]), "datdba": _oid([OWNER]),
                     "encoding": _int([6]), "datcollate": _text(["C"]), "datctype": _text(["C"]),
                     "datistemplate": _bool([False]), "datallowconn": _bool([True]),
                     "datconnlimit": _int([-1])})


_VIEWS = {
    "pg_catalog.pg_namespace": _pg_namespace,
    "pg_catalog.pg_class": _pg_class,
    "pg_catalog.pg_attribute": _pg_attribute,
    "pg_catalog.pg_type": _pg_type,
    "pg_catalog.pg_enum": _pg_enum,
    "pg_catalog.pg_constraint": _pg_constraint,
    "pg_catalog.pg_index": _pg_index,
    "pg_catalog.pg_database": _pg_database,
    "pg_catalog.pg_attrdef": _pg_attrdef,
    "pg_catalog.pg_description": _pg_description,
    "pg_catalog.pg_collation": _pg_collation,
    "pg_catalog.pg_proc": _pg_proc,
    "pg_catalog.pg_trigger": _pg_trigger,
    "pg_catalog.pg_policy": _pg_policy,
}
VIEWS = tuple(_VIEWS)
