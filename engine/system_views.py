"""PostgreSQL's views of the running system: ``pg_stat_activity`` (the sessions), ``pg_locks``
(the locks they hold and wait for), ``pg_settings`` (the asking session's settings),
``pg_prepared_xacts`` (the prepared transactions awaiting COMMIT / ROLLBACK PREPARED) and
``pg_cursors`` (its open cursors, engine/cursors.py).

Each is built when a statement names it, as the catalog views are (engine/catalog_views.py),
from this process's open sessions of the warehouse (engine/backends.py, which says what a pid
is and why other processes' sessions are not listed): a picture of the moment, not of the
transaction's snapshot; read-only, but for ``UPDATE pg_settings`` (engine/session.py: a
set_config of each row, as PostgreSQL's rule makes it).

``pg_stat_activity``: one row per open session; ``state`` is ``active`` while it runs a
statement (``query`` is that statement, else its last one), ``idle in transaction`` (``...
(aborted)`` for a failed block) between the statements of an open transaction, else ``idle``;
``wait_event_type`` ``Lock`` while it waits for one, ``wait_event`` its pg_locks locktype.

``pg_locks``, as PostgreSQL's shows them:
- every open transaction of a session holds its ``virtualxid`` (``pid/n``), and its
  ``transactionid`` once it has an XID, in ExclusiveLock;
- table-level locks (engine/mvcc/locks.py): locktype ``relation``, the table's pg_class OID,
  PostgreSQL's mode names (AccessShareLock ... AccessExclusiveLock), held or awaited;
  ``fastpath`` for a weak mode held without the shared lock table, as PostgreSQL's fast path;
- a wait for a row (a key, or a bulk writer's all-rows lock) is a wait for the transaction
  that holds it, as in PostgreSQL, which keeps row locks in the rows and lists none: a
  ``transactionid`` ShareLock not granted, on the holder's XID (its ``virtualxid`` if it has none);
- advisory locks (engine/advisory.py): locktype ``advisory``, a bigint key's high half in
  ``classid`` and low half in ``objid`` (``objsubid`` 1), two integer keys in ``classid`` and
  ``objid`` (``objsubid`` 2).
So the usual "who blocks whom" join of pg_locks with itself and pg_stat_activity finds the holder.
"""

from __future__ import annotations

import datetime

import pyarrow as pa

from txlake.engine import cursors, dialect, pg_catalog
from txlake.engine.advisory import EXCLUSIVE as ADVISORY_EXCLUSIVE
from txlake.engine.catalog_views import CATALOG
from txlake.engine.mvcc.locks import MODE_NAMES
from txlake.engine.mvcc.xact import TxnState
from txlake.storage.prepared import PRECOMMITTED

VIEWS = ("pg_catalog.pg_stat_activity", "pg_catalog.pg_locks", "pg_catalog.pg_settings", "pg_catalog.pg_cursors",
         "pg_catalog.pg_prepared_xacts")

_LOCK_COLUMNS = {
    "locktype": pa.string(), "database": pa.int64(), "relation": pa.int64(), "page": pa.int32(),
    "tuple": pa.int16(), "virtualxid": pa.string(), "transactionid": pa.int64(), "classid": pa.int64(),
    "objid": pa.int64(), "objsubid": pa.int16(), "virtualtransaction": pa.string(), "pid": pa.int32(),
    "mode": pa.string(), "granted": pa.bool_(), "fastpath": pa.bool_(), "waitstart": pa.timestamp("us", "UTC"),
}
_TIME = pa.timestamp("us", "UTC")


def build(key: str, db, pid: int) -> pa.Table:
    """The rows of ``key`` (one of VIEWS) for the session ``pid`` of database ``db``."""
    if key == "pg_catalog.pg_settings":
        return _pg_settings(db.backends.get(pid))
    if key == "pg_catalog.pg_prepared_xacts":
        return _pg_prepared_xacts(db)
    if key == "pg_catalog.pg_cursors":  # (the session's own, engine/cursors.py)
        return cursors.pg_cursors(db.backends.get(pid).cursors)
    sessions = db.backends.sessions()
    locks = _locks(db, sessions)
    return _table(_LOCK_COLUMNS, locks) if key == "pg_catalog.pg_locks" else _pg_stat_activity(sessions, locks)


def _pg_prepared_xacts(db) -> pa.Table:
    """The prepared transactions not yet committed or rolled back - of any process, from their
    records (storage/prepared.py) - as PostgreSQL lists them."""
    found = [r for r in db.warehouse.prepared.records() if r.state == PRECOMMITTED]
    return pa.table({"transaction": pa.array([r.xid for r in found], pa.int64()),
                     "gid": pa.array([r.gid for r in found], pa.string()),
                     "prepared": pa.array([r.prepared_ms * 1000 for r in found], _TIME),
                     "owner": pa.array([dialect.user_name()] * len(found), pa.string()),
                     "database": pa.array([CATALOG] * len(found), pa.string())})


def _table(columns: dict[str, pa.DataType], rows: list[dict]) -> pa.Table:
    return pa.table({name: pa.array([r.get(name) for r in rows], kind) for name, kind in columns.items()})


def _mode_name(mode: int) -> str:
    """PostgreSQL's name of a table lock mode: ROW EXCLUSIVE is RowExclusiveLock."""
    return "".join(word.capitalize() for word in MODE_NAMES[mode].split()) + "Lock"


def _vxid(pid: int | None, txn) -> str:
    """A transaction's virtualxid, ``pid/n`` (PostgreSQL's ``backend/local id``; -1: no session's)."""
    return f"{pid if pid is not None else -1}/{txn.vxid if txn is not None else 0}"


def _locks(db, sessions: list) -> list[dict]:
    """pg_locks' rows: the sessions' transactions, then table-level locks and row waits, then
    advisory locks (the module's docstring)."""
    database = pg_catalog.oid("database", CATALOG)
    pids = {id(s.txn): s.pid for s in sessions if s.txn is not None}
    rows = []
    for s in sessions:
        txn = s.txn
        if txn is not None:
            vxid = _vxid(s.pid, txn)
            rows.append(dict(locktype="virtualxid", virtualxid=vxid, virtualtransaction=vxid, pid=s.pid,
                             mode="ExclusiveLock", granted=True, fastpath=True))
            if txn.xid is not None:
                rows.append(dict(locktype="transactionid", transactionid=txn.xid, virtualtransaction=vxid,
                                 pid=s.pid, mode="ExclusiveLock", granted=True, fastpath=False))
    relations, row_waits = db.locks.listing()
    for txn, table_id, mode, granted, fastpath in relations:
        pid = pids.get(id(txn))
        rows.append(dict(locktype="relation", database=database, relation=pg_catalog.oid(table_id),
                         virtualtransaction=_vxid(pid, txn), pid=pid, mode=_mode_name(mode), granted=granted,
                         fastpath=fastpath))
    for txn, holders in row_waits:
        pid = pids.get(id(txn))
        for holder in holders:
            target = dict(locktype="transactionid", transactionid=holder.xid) if holder.xid is not None else \
                dict(locktype="virtualxid", virtualxid=_vxid(pids.get(id(holder)), holder))
            rows.append(dict(target, virtualtransaction=_vxid(pid, txn), pid=pid, mode="ShareLock", granted=False,
                             fastpath=False))
    txns = {s.pid: s.txn for s in sessions}
    for key, session, mode, granted in db.advisory.listing():
        first, second = (key[1] >> 32 & 0xFFFFFFFF, key[1] & 0xFFFFFFFF) if key[0] == 1 else \
            (key[1] & 0xFFFFFFFF, key[2] & 0xFFFFFFFF)  # (as OIDs: unsigned)
        rows.append(dict(locktype="advisory", database=database, classid=first, objid=second, objsubid=key[0],
                         virtualtransaction=_vxid(session, txns.get(session)), pid=session,
                         mode="ExclusiveLock" if mode == ADVISORY_EXCLUSIVE else "ShareLock", granted=granted,
                         fastpath=False))
    return rows


def _state(session) -> str:
    if session.running:
        return "active"
    txn = session.txn
    if txn is None or not txn.explicit:
        return "idle"
    return "idle in transaction (aborted)" if txn.state is TxnState.FAILED else "idle in transaction"


def _time(seconds: float | None) -> datetime.datetime | None:
    return None if seconds is None else datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc)


def _pg_stat_activity(sessions: list, locks: list[dict]) -> pa.Table:
    waits = {lock["pid"]: lock["locktype"] for lock in locks if not lock["granted"]}
    user, database = dialect.user_name(), pg_catalog.oid("database", CATALOG)
    rows = []
    for s in sessions:
        txn, running = s.txn, s.running
        rows.append(dict(
            datid=database, datname=CATALOG, pid=s.pid, usesysid=pg_catalog.OWNER, usename=user,
            application_name=s.settings.get("application_name", ""), client_port=-1,
            backend_start=_time(s.backend_start), xact_start=txn.start_time if txn is not None else None,
            query_start=_time(s.query_start), state_change=_time(s.query_start if running else s.state_change),
            wait_event_type="Lock" if s.pid in waits else None, wait_event=waits.get(s.pid), state=_state(s),
            backend_xid=txn.xid if txn is not None else None,
            backend_xmin=txn.snapshot.xmin if txn is not None and txn.snapshot is not None else None,
            query=s.query, backend_type="client backend"))
    return _table({"datid": pa.int64(), "datname": pa.string(), "pid": pa.int32(), "leader_pid": pa.int32(),
                   "usesysid": pa.int64(), "usename": pa.string(), "application_name": pa.string(),
                   "client_addr": pa.string(), "client_hostname": pa.string(), "client_port": pa.int32(),
                   "backend_start": _TIME, "xact_start": _TIME, "query_start": _TIME, "state_change": _TIME,
                   "wait_event_type": pa.string(), "wait_event": pa.string(), "state": pa.string(),
                   "backend_xid": pa.int64(), "backend_xmin": pa.int64(), "query_id": pa.int64(),
                   "query": pa.string(), "backend_type": pa.string()}, rows)


# --- pg_settings -------------------------------------------------------------------------------

_STATEMENT = "Client Connection Defaults / Statement Behavior"
_LOCALE = "Client Connection Defaults / Locale and Formatting"
_PRESET = "Preset Options"
_ISOLATIONS = ["serializable", "repeatable read", "read committed", "read uncommitted"]
_MAX_INT = 2147483647
# each setting SHOW ALL lists: PostgreSQL 16's category, context and type (unit, and for an
# integer its range; for an enum its values) - memory_limit is txlake's own
_KINDS = {
    "application_name": ("Reporting and Logging / What to Log", "user", "string"),
    "check_function_bodies": (_STATEMENT, "user", "bool"),
    "client_encoding": (_LOCALE, "user", "string"),
    "client_min_messages": (_STATEMENT, "user", "enum",
                            ["debug5", "debug4", "debug3", "debug2", "debug1", "log", "notice", "warning", "error"]),
    "datestyle": (_LOCALE, "user", "string"),
    "default_table_access_method": (_STATEMENT, "user", "string"),
    "default_tablespace": (_STATEMENT, "user", "string"),
    "default_transaction_isolation": (_STATEMENT, "user", "enum", _ISOLATIONS),
    "default_transaction_read_only": (_STATEMENT, "user", "bool"),
    "idle_in_transaction_session_timeout": (_STATEMENT, "user", "integer", "ms", 0, _MAX_INT),
    "integer_datetimes": (_PRESET, "internal", "bool"),
    "intervalstyle": (_LOCALE, "user", "enum", ["postgres", "postgres_verbose", "sql_standard", "iso_8601"]),
    "lock_timeout": (_STATEMENT, "user", "integer", "ms", 0, _MAX_INT),
    "max_identifier_length": (_PRESET, "internal", "integer", None, 63, 63),
    "memory_limit": ("Resource Usage / Memory", "user", "string"),
    "row_security": (_STATEMENT, "user", "bool"),
    "search_path": (_STATEMENT, "user", "string"),
    "server_encoding": (_PRESET, "internal", "string"),
    "server_version": (_PRESET, "internal", "string"),
    "server_version_num": (_PRESET, "internal", "integer", None, 160000, 160000),
    "standard_conforming_strings": ("Version and Platform Compatibility / Previous PostgreSQL Versions", "user",
                                    "bool"),
    "statement_timeout": (_STATEMENT, "user", "integer", "ms", 0, _MAX_INT),
    "timezone": (_LOCALE, "user", "string"),
    "transaction_isolation": (_STATEMENT, "user", "enum", _ISOLATIONS),
    "transaction_read_only": (_STATEMENT, "user", "bool"),
    "xmloption": (_STATEMENT, "user", "enum", ["content", "document"]),
}


def _pg_settings(session) -> pa.Table:
    """The session's settings, one row per setting SHOW ALL lists: ``setting`` is SHOW's value
    (a duration in its unit, ms, as PostgreSQL's), ``boot_val`` txlake's default, ``reset_val``
    what RESET gives, ``source`` default, client (connect()'s) or session (SET)."""
    from txlake.engine import session as sessions  # (it imports the executor, which imports this)
    rows = []
    for name in sorted(sessions.SETTING_DESCRIPTIONS):
        category, context, vartype, *more = _KINDS[name]
        unit, low, high = (more + [None, None, None])[:3] if vartype == "integer" else (None, None, None)
        boot, reset = _defaults(session, name, sessions)
        setting, boot, reset = (_in_unit(value, name, sessions) if unit else value
                                for value in (session.shown_setting(name), boot, reset))
        rows.append(dict(
            name=sessions.SETTING_NAMES.get(name, name), setting=setting, unit=unit, category=category,
            short_desc=sessions.SETTING_DESCRIPTIONS[name], context=context, vartype=vartype,
            source="default" if setting == boot else "client" if setting == reset else "session",
            min_val=None if low is None else str(low), max_val=None if high is None else str(high),
            enumvals=more[0] if vartype == "enum" else None, boot_val=boot, reset_val=reset, pending_restart=False))
    return _table({"name": pa.string(), "setting": pa.string(), "unit": pa.string(), "category": pa.string(),
                   "short_desc": pa.string(), "extra_desc": pa.string(), "context": pa.string(),
                   "vartype": pa.string(), "source": pa.string(), "min_val": pa.string(), "max_val": pa.string(),
                   "enumvals": pa.list_(pa.string()), "boot_val": pa.string(), "reset_val": pa.string(),
                   "sourcefile": pa.string(), "sourceline": pa.int32(), "pending_restart": pa.bool_()}, rows)


def _defaults(session, name: str, sessions) -> tuple[str, str]:
    """(txlake's default of setting ``name``, what RESET sets it to in ``session``)."""
    if name in ("default_transaction_isolation", "transaction_isolation"):
        return sessions.DEFAULT_LEVEL.lower(), session.start_isolation.lower()
    if name in ("default_transaction_read_only", "transaction_read_only"):
        return "off", "off"
    if name == "timezone":
        zone = session.executor.default_time_zone()
        return zone, zone
    if name == "memory_limit":
        limit = f"{sessions.default_memory_limit() >> 20}MB"
        return limit, limit
    if name == "search_path":
        return sessions.st.DEFAULT_SEARCH_PATH, sessions.st.DEFAULT_SEARCH_PATH
    value = sessions.SETTINGS_DEFAULTS.get(name, sessions.READ_ONLY_SETTINGS.get(name))
    return value, value


def _in_unit(value: str, name: str, sessions) -> str:
    """A duration setting in milliseconds, as pg_settings.setting gives it ('2s': '2000')."""
    return str(round((sessions.duration_seconds(value, name) or 0) * 1000))
