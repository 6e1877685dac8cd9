"""txlake: transactional SQL sessions over Paimon-layout lakehouse tables.

The package is the PEP 249 (DB-API 2.0) module::

    import txlake
    with txlake.connect("warehouse") as conn:
        conn.execute("CREATE TABLE t (id INT PRIMARY KEY, v TEXT)")
        conn.execute("INSERT INTO t VALUES (?, ?)", (1, "one"))
"""

from __future__ import annotations

import datetime as _dt
import time as _time

from txlake.errors import *  # noqa: F401,F403 - the exception tree is part of the module API
from txlake.errors import (DatabaseError, DataError, Error, IntegrityError, InterfaceError,  # noqa: F401
                           InternalError, NotSupportedError, OperationalError, ProgrammingError,
                           Warning)

# The connection (and with it the engine, DuckDB and sqlglot) loads at first use: processes
# that only need storage - Spark's Python workers - import ``txlake`` cheaply.
def __getattr__(name: str):
    if name in ("Connection", "Cursor"):
        from txlake import connection
        return getattr(connection, name)
    raise AttributeError(f"module 'txlake' has no attribute {name!r}")

__version__ = "0.1.0"

apilevel = "2.0"
threadsafety = 1  # threads may share the module, not connections (each thread: its own connect())
paramstyle = "qmark"


def connect(path, *, autocommit: bool = False, isolation_level: str | None = None, **options) -> "Connection":
    """Open (creating if needed) the warehouse at ``path`` and return a PEP 249 Connection.

    ``isolation_level``: "READ UNCOMMITTED", "READ COMMITTED", "REPEATABLE READ" (default) or
    "SERIALIZABLE". Options (shared by every connection to the warehouse in this process; the
    first connect sets them): ``durable`` (fsync, default True), ``publish`` ("async" default,
    "sync", "off"), ``memory_limit`` (bytes or "512MB"; default a quarter of RAM),
    ``cache_bytes`` (buffer cache; default half the memory limit), ``max_active_transactions``,
    ``commit_timeout`` (seconds a commit may retry), ``prepared_timeout`` (seconds before an
    unfinished prepared transaction is rolled back, default 3600), ``label_retention``
    (seconds a committed label blocks its reuse, default 7 days), ``gc_interval`` (seconds
    between background maintenance passes - cache sweep, checkpoint, compaction of any table
    with many small files - default 2; a commit that leaves a table so asks for its
    compaction at once),
    ``shared_row_locks`` (default False; True: while other processes write the warehouse, a row
    lock is also taken across processes - a writer of a row another process's open transaction
    wrote waits for it, as in PostgreSQL, instead of both going on and the later commit failing
    with 40001; every process that should wait must set it).
    """
    from txlake.connection import Connection
    return Connection(path, autocommit=autocommit, isolation_level=isolation_level, **options)


# PEP 249 type constructors and type objects
Date = _dt.date
Time = _dt.time
Timestamp = _dt.datetime
Binary = bytes


def DateFromTicks(ticks: float) -> _dt.date:
    return _dt.date(*_time.localtime(ticks)[:3])


def TimeFromTicks(ticks: float) -> _dt.time:
    return _dt.time(*_time.localtime(ticks)[3:6])


def TimestampFromTicks(ticks: float) -> _dt.datetime:
    return _dt.datetime(*_time.localtime(ticks)[:6])


class DBAPITypeObject:
    """PEP 249 type objects: compare equal to every type code in their group."""

    def __init__(self, *codes: str):
        self.codes = frozenset(codes)

    def __eq__(self, other) -> bool:
        return other in self.codes

    def __hash__(self) -> int:
        return hash(self.codes)


STRING = DBAPITypeObject("VARCHAR")
BINARY = DBAPITypeObject("BLOB")
NUMBER = DBAPITypeObject("SMALLINT", "INTEGER", "BIGINT", "REAL", "DOUBLE", "DECIMAL", "BOOLEAN")
DATETIME = DBAPITypeObject("DATE", "TIMESTAMP", "TIMESTAMPTZ", "TIME", "INTERVAL")
ROWID = DBAPITypeObject()
UUID = DBAPITypeObject("UUID")  # (not in PEP 249: as psycopg, these fetch as uuid.UUID and Python objects)
JSON = DBAPITypeObject("JSON")  # (json and jsonb alike)
