"""The system catalogs whose rows txlake does not keep but knows, for the tools that read them
(psql's ``\\du`` and ``\\dx``, pgAdmin's and DBeaver's browsers, monitoring queries):

- ``pg_roles``, ``pg_user``, ``pg_authid``: txlake has no roles, so there is one, OID 10
  (PostgreSQL's bootstrap superuser, every relation's ``relowner``), named as ``current_user`` -
  the operating system's user - with every attribute: a superuser, as whoever opens a
  warehouse is (``pg_auth_members`` is empty);
- ``pg_am``: PostgreSQL's access methods (``heap``, every table's ``relam``; an index's method);
- ``pg_language``: internal, c, sql and plpgsql;
- ``pg_extension``: plpgsql, and the extensions whose functions txlake has built in
  (parser/dialect.py ``BUILT_IN_EXTENSIONS``), always there as psql's ``\\dx`` lists them;
- ``pg_tablespace``: ``pg_default`` and ``pg_global`` (txlake keeps a table's files under its
  warehouse, PostgreSQL's default tablespace);
- ``pg_inherits``: a row per partition (engine/partitions.py) - txlake has no other table
  inheritance; ``pg_partitioned_table``: a row per partitioned table;
- ``pg_stat_user_tables`` and ``pg_stat_all_tables``: a row per table the transaction sees,
  ``n_live_tup`` its rows and ``n_dead_tup`` the rows deleted from its data files and not yet
  compacted away (storage/version.py's deletion vectors: PostgreSQL's dead tuples, which VACUUM
  removes). txlake counts no scans, reads or changes per table: those counters are 0, the
  times of the last vacuum and analyze NULL (``pg_stat_reset()`` leaves PostgreSQL's so).

Each is built when a statement names it, as engine/pg_catalog.py's are.
"""

from __future__ import annotations

import pyarrow as pa

from txlake.engine.catalog_views import _bool, _int, _text, schema_name
from txlake.engine.dialect import user_name
from txlake.engine.pg_catalog import _LANGUAGES, _NAMESPACES, ACCESS_METHODS, OWNER, _oid, oid
from txlake.parser.dialect import BUILT_IN_EXTENSIONS
from txlake.storage.version import TableVersion

#: pg_language's rows: name -> (oid, lanispl, lanpltrusted); pg_proc.prolang's (plpgsql's OID is
#: initdb's choice in PostgreSQL: 16's)
LANGUAGES = {"internal": (12, False, False), "c": (13, False, False), "sql": (_LANGUAGES["sql"], False, True),
             "plpgsql": (_LANGUAGES["plpgsql"], True, True)}
#: the extensions always there: name -> (oid, version PostgreSQL 16 ships, schema: the built-in
#: ones' functions are pg_catalog's, callable from any schema)
EXTENSIONS = {"plpgsql": (13_579, "1.0", "pg_catalog"),
              **{name: (13_580 + i, version, "pg_catalog")
                 for i, (name, version) in enumerate((("pgcrypto", "1.3"), ("uuid-ossp", "1.1")))}}
assert set(EXTENSIONS) == {"plpgsql", *BUILT_IN_EXTENSIONS}
_TABLESPACES = {"pg_default": 1663, "pg_global": 1664}


def _role_flags(n: int = 1) -> dict[str, pa.Array]:
    return {name: _bool([True] * n) for name in ("rolsuper", "rolinherit", "rolcreaterole", "rolcreatedb",
                                                 "rolcanlogin", "rolreplication", "rolbypassrls")}


def _pg_roles(tables: list[TableVersion]) -> pa.Table:
    return pa.table({"rolname": _text([user_name()]), **_role_flags(), "rolconnlimit": _int([-1]),
                     "rolpassword": _text(["********"]), "rolvaliduntil": pa.array([None], pa.timestamp("us", "UTC")),
                     "rolconfig": pa.array([None], pa.list_(pa.string())), "oid": _oid([OWNER])})


def _pg_authid(tables: list[TableVersion]) -> pa.Table:
    return pa.table({"oid": _oid([OWNER]), "rolname": _text([user_name()]), **_role_flags(),
                     "rolconnlimit": _int([-1]), "rolpassword": _text([None]),
                     "rolvaliduntil": pa.array([None], pa.timestamp("us", "UTC"))})


def _pg_user(tables: list[TableVersion]) -> pa.Table:
    return pa.table({"usename": _text([user_name()]), "usesysid": _oid([OWNER]),
                     **{name: _bool([True]) for name in ("usecreatedb", "usesuper", "userepl", "usebypassrls")},
                     "passwd": _text(["********"]), "valuntil": pa.array([None], pa.timestamp("us", "UTC")),
                     "useconfig": pa.array([None], pa.list_(pa.string()))})


def _pg_auth_members(tables: list[TableVersion]) -> pa.Table:
    return pa.table({"oid": _oid([]), "roleid": _oid([]), "member": _oid([]), "grantor": _oid([]),
                     **{name: _bool([]) for name in ("admin_option", "inherit_option", "set_option")}})


def _pg_am(tables: list[TableVersion]) -> pa.Table:
    methods = list(ACCESS_METHODS.items())
    return pa.table({"oid": _oid(o for _, (o, _, _) in methods), "amname": _text(name for name, _ in methods),
                     "amhandler": _text(handler for _, (_, handler, _) in methods),
                     "amtype": _text(kind for _, (_, _, kind) in methods)})


def _pg_language(tables: list[TableVersion]) -> pa.Table:
    languages = list(LANGUAGES.items())
    return pa.table({"oid": _oid(o for _, (o, _, _) in languages), "lanname": _text(name for name, _ in languages),
                     "lanowner": _oid([OWNER] * len(languages)),
                     "lanispl": _bool(pl for _, (_, pl, _) in languages),
                     "lanpltrusted": _bool(trusted for _, (_, _, trusted) in languages)})


def _pg_extension(tables: list[TableVersion]) -> pa.Table:
    found = sorted(EXTENSIONS.items())
    return pa.table({"oid": _oid(o for _, (o, _, _) in found), "extname": _text(name for name, _ in found),
                     "extowner": _oid([OWNER] * len(found)),
                     "extnamespace": _oid(_NAMESPACES[schema] for _, (_, _, schema) in found),
                     "extrelocatable": _bool(name != "plpgsql" for name, _ in found),
                     "extversion": _text(version for _, (_, version, _) in found),
                     "extconfig": pa.array([None] * len(found), pa.list_(pa.int64())),
                     "extcondition": pa.array([None] * len(found), pa.list_(pa.string()))})


def _pg_tablespace(tables: list[TableVersion]) -> pa.Table:
    return pa.table({"oid": _oid(_TABLESPACES.values()), "spcname": _text(_TABLESPACES),
                     "spcowner": _oid([OWNER] * len(_TABLESPACES)),
                     "spcacl": pa.array([None] * len(_TABLESPACES), pa.list_(pa.string())),
                     "spcoptions": pa.array([None] * len(_TABLESPACES), pa.list_(pa.string()))})


def _pg_inherits(tables: list[TableVersion]) -> pa.Table:
    """A row per partition, naming its partitioned table (txlake has no other inheritance)."""
    parts = [t for t in tables if t.schema.partition_of is not None]
    return pa.table({"inhrelid": _oid(oid(t.table_id) for t in parts),
                     "inhparent": _oid(oid(t.schema.partition_of.parent) for t in parts),
                     "inhseqno": _int([1] * len(parts)), "inhdetachpending": _bool([False] * len(parts))})


_STRATEGY = {"range": "r", "list": "l", "hash": "h"}


def _pg_partitioned_table(tables: list[TableVersion]) -> pa.Table:
    """A row per partitioned table: its strategy, its key's columns (numbers, as pg_attribute's
    attnum: from 1) and its DEFAULT partition (0: none)."""
    parted = [t for t in tables if t.schema.partitioning is not None]
    defaults = {t.schema.partition_of.parent: oid(t.table_id) for t in tables
                if t.schema.partition_of is not None and t.schema.partition_of.kind == "default"}
    return pa.table({"partrelid": _oid(oid(t.table_id) for t in parted),
                     "partstrat": _text(_STRATEGY[t.schema.partitioning.strategy] for t in parted),
                     "partnatts": pa.array([len(t.schema.partitioning.columns) for t in parted], pa.int16()),
                     "partdefid": _oid(defaults.get(t.table_id, 0) for t in parted),
                     "partattrs": _text(" ".join(str(t.schema.names.index(c) + 1) for c in key)
                                        for key, t in ((t.schema.partitioning.columns, t) for t in parted))})


#: pg_stat_user_tables' counters txlake does not keep (0), and its times it has none of (NULL)
_COUNTERS = ("seq_scan", "seq_tup_read", "idx_scan", "idx_tup_fetch", "n_tup_ins", "n_tup_upd", "n_tup_del",
             "n_tup_hot_upd", "n_tup_newpage_upd")
_SINCE = ("n_mod_since_analyze", "n_ins_since_vacuum")
_TIMES = ("last_vacuum", "last_autovacuum", "last_analyze", "last_autoanalyze")
_COUNTS = ("vacuum_count", "autovacuum_count", "analyze_count", "autoanalyze_count")


def _pg_stat_user_tables(tables: list[TableVersion]) -> pa.Table:
    found = [t for t in tables if t.is_table]  # (materialized views too, as PostgreSQL's)
    n = len(found)
    zeros = pa.array([0] * n, pa.int64())
    never = pa.array([None] * n, pa.timestamp("us", "UTC"))
    return pa.table({
        "relid": _oid(oid(t.table_id) for t in found), "schemaname": _text(schema_name(t.db) for t in found),
        "relname": _text(t.name for t in found),
        **{name: zeros for name in _COUNTERS[:2]}, "last_seq_scan": never,
        **{name: zeros for name in _COUNTERS[2:4]}, "last_idx_scan": never,
        **{name: zeros for name in _COUNTERS[4:]},
        "n_live_tup": pa.array([t.row_count for t in found], pa.int64()),
        "n_dead_tup": pa.array([sum(len(t.deleted(f.file_id)) for f in t.files) for t in found], pa.int64()),
        **{name: zeros for name in _SINCE}, **{name: never for name in _TIMES}, **{name: zeros for name in _COUNTS}})


_VIEWS = {
    "pg_catalog.pg_roles": _pg_roles,
    "pg_catalog.pg_user": _pg_user,
    "pg_catalog.pg_authid": _pg_authid,
    "pg_catalog.pg_auth_members": _pg_auth_members,
    "pg_catalog.pg_am": _pg_am,
    "pg_catalog.pg_language": _pg_language,
    "pg_catalog.pg_extension": _pg_extension,
    "pg_catalog.pg_tablespace": _pg_tablespace,
    "pg_catalog.pg_inherits": _pg_inherits,
    "pg_catalog.pg_partitioned_table": _pg_partitioned_table,
    "pg_catalog.pg_stat_user_tables": _pg_stat_user_tables,
    "pg_catalog.pg_stat_all_tables": _pg_stat_user_tables,
}
VIEWS = tuple(_VIEWS)


def build(key: str, tables: list[TableVersion]) -> pa.Table:
    return _VIEWS[key](tables)
