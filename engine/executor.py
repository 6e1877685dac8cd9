"""Statement execution: DuckDB runs every query over the Arrow data a transaction sees.

For each statement the executor resolves table names against the transaction's working
catalog (its own writes over its snapshot), registers each table version's rows with DuckDB
under a private name, rewrites the statement's AST to use those names, and runs it. DML runs
DuckDB only for the row-finding and value-computing part (``SELECT rowid, new values ...
WHERE ...``); the result becomes a new working ``TableVersion``: deleted row ids go into
deletion vectors, new rows into an in-memory file. Constraints are checked before the
transaction's state changes, so a failing statement leaves no trace.

Point statements - one row, or a few, by a key - skip DuckDB: engine/points.py finds and
computes their rows in Python, and the rest (locks, re-checks, SSI reads, constraint checks,
the write set) is this module's.
"""

from __future__ import annotations

import collections
import datetime
import decimal
import functools
import itertools
import json
import math
import re
import time
import uuid
import zoneinfo
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Callable, Iterator

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pyroaring import FrozenBitMap
import sqlglot
from sqlglot import exp

from txlake import errors
from txlake.engine import (bpchar, catalog_views, checks, dialect, foreign_keys, points, sources, system_views,
                           temp_tables)
from txlake.engine import (catalog_functions, column_scope, generated, indexes, jsonb_order, network, table_like,
                           uniques)
from txlake.engine import column_constants, notify, policies, system_columns, triggers, user_types
from txlake.engine.errors_map import negative_row_count, translate, translate_stream_error
from txlake.engine.advisory import AdvisoryCalls
from txlake.engine.backends import BackendCalls
from txlake.engine.mvcc.locks import TABLE
from txlake.engine.mvcc.xact import SERIALIZABLE, Transaction
from txlake.engine.sequence_calls import NEXTVAL, SequenceCalls, counter_of, sequence_key
from txlake.engine.temp_tables import TEMP_DB, is_temp
from txlake.parser import inet_input, statements as st
from txlake.parser.json_ops import JSON_VALUE, JSONB_VALUE
from txlake.parser.system_columns import TID_TYPE
from txlake.parser.parse import cte_names, identifier, parse_table_name, table_name
from txlake.parser.semantics import (BOOLEAN_MACRO, BYTEA_MACRO, CLOCK_FUNCTION, NAMED_SCHEMAS,
                                     REAL_MACRO, STATEMENT_CLOCK, XID_FUNCTION, XID_IF_ASSIGNED_FUNCTION, array_cast,
                                     postgres_semantics)
from txlake.storage import foreign_keys as fks
from txlake.storage import keys as pk
from txlake.storage.commit import (ROWS_PER_FILE, SAME_KEYS, SOURCES, UPSERTED, TableDelta, carry_upserted, key_text,
                                   table_bytes, visible_sources)
from txlake.storage.datafiles import ROWID, DataFileStore, StreamedScan
from txlake.storage.private_files import PrivateFolder
from txlake.storage.schema import (Column, ColumnType, TableSchema, array_of, constraint_name, make_type,
                                   type_from_field)
from txlake.storage.sequences import Counter, Sequences
from txlake.storage.version import CatalogVersion, DataFile, PythonRows, TableVersion

DEFAULT_DB = "default"
MAX_PENDING_FILES = 16  # a transaction's small in-memory batches per table before they are merged
# a transaction's in-memory rows of a table beyond 1/SPILL_SHARE of the buffer cache budget
# are written to Parquet (they count against no budget while in memory)
SPILL_SHARE = 4
BULK_LOCKS = 10_000  # a statement locking more rows than this locks the table instead
SQL_CACHE_SIZE = 512
NOWAIT = 1e-9  # the lock timeout of SELECT ... FOR UPDATE NOWAIT: give up at once (0 waits for ever)
TARGET = "__txl_target"  # the registered name of an UPDATE/DELETE target in cached SQL
RETURNED_ROWS = "__txl_returned"  # the table function a data-modifying CTE's rows are read by (Context.returned)
NBYTES = "nbytes"  # DataFile.caches key: an uncommitted file's bytes in memory


class Result:
    """What a statement gives back: its rows, for statements that return them - an Arrow
    table, or Python tuples and their schema (a point SELECT's: made a table only if asked
    for one) - the row count, the PostgreSQL command tag ("INSERT 0 1", "UPDATE 3",
    "BEGIN", ...) and a notice."""

    def __init__(self, table: pa.Table | None = None, rowcount: int = -1, status: str = "",
                 notice: str | None = None, *, rows: list[tuple] | None = None, schema: pa.Schema | None = None,
                 severity: str = "NOTICE", warning: str | None = None,
                 messages: list[tuple[str, str]] | None = None):
        self._table = table
        self.rows = rows
        self.schema = table.schema if table is not None else schema
        self.rowcount = rowcount
        self.status = status
        self.notice = notice
        self.severity = severity  # of the notice, as PostgreSQL's: NOTICE or WARNING
        self.warning = warning  # the parser's WARNING of the statement (st.Statement.warning), told first
        self.messages = messages  # (severity, text) of each message it gave, in order: a DO's RAISEs

    @property
    def table(self) -> pa.Table | None:
        if self._table is None and self.rows is not None:
            columns = list(zip(*self.rows)) if self.rows else [()] * len(self.schema)
            self._table = pa.Table.from_arrays([pa.array(values, f.type) for values, f in zip(columns, self.schema)],
                                               schema=self.schema)
        return self._table

    def __repr__(self) -> str:
        return f"Result(status={self.status!r}, rowcount={self.rowcount})"


# the end of a timestamp string that names its offset or zone: Z, +02, -05:30, UTC, Europe/Paris
# DuckDB's refusal of a call of a macro with typed forms whose argument did not bind (an unknown
# column: DuckDB then finds every form matching), the calls of txlake's macros, and the errors an
# argument's binding may tell in its place
_OVERLOADS = re.compile(r"Macro \w+\(\) has multiple overloads that match")
_TYPED_MACRO_CALL = re.compile(r"\btxl_\w+\(", re.IGNORECASE)
_UNBOUND_ARGUMENT = ("42703", "42P01", "42883")  # (unknown column, table, function)
_ZONED = re.compile(r"(Z|[+-]\d\d(:?\d\d)?|[A-Za-z]{3,}|[A-Za-z]+/[A-Za-z_]+)\s*$")
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def _as_bigint(table: pa.Table, columns) -> pa.Table:
    """``table`` with ``columns`` - HUGEINT in DuckDB, which sums integers so - as BIGINT, the
    type PostgreSQL's sum(int) has: fetched as an int, not a Decimal of scale 0. (sum() is typed
    as PostgreSQL's already, parser/semantics.py SUM_MACRO; this is for the sums it leaves to
    DuckDB, ``sum(DISTINCT x)``.) A sum too large for a BIGINT is 22003."""
    for i in columns:
        try:
            table = table.set_column(i, table.field(i).with_type(pa.int64()), table.column(i).cast(pa.int64()))
        except pa.ArrowInvalid:
            raise errors.NumericValueOutOfRange(f'bigint out of range in column "{table.field(i).name}"') from None
    return table


def _as_text_types(table: pa.Table, types: list[str]) -> pa.Table:
    """``table`` with its UUID and JSON columns (DuckDB gives them as text) marked as such
    (``ColumnType.field``): a cursor fetches them as ``uuid.UUID`` and Python objects."""
    for i, t in enumerate(types):
        if t in ("UUID", "JSON"):
            table = table.set_column(i, ColumnType(t).field(table.field(i).name), table.column(i))
    return table


def _enums_as_text(table: pa.Table) -> pa.Table:
    """``table`` with its enum values (DuckDB gives an ENUM as an Arrow dictionary) as plain
    strings - as a point path, which reads the stored text, gives them: one result type for a
    column of an enum, whichever path answers (cursor.description, fetch_arrow_table)."""
    def plain(t: pa.DataType) -> pa.DataType:
        if pa.types.is_dictionary(t):
            return plain(t.value_type)
        if pa.types.is_list(t):
            return pa.list_(t.value_field.with_type(plain(t.value_type)))
        if pa.types.is_struct(t):
            return pa.struct([f.with_type(plain(f.type)) for f in t])
        return t
    for i, field in enumerate(table.schema):
        to = plain(field.type)
        if to != field.type:
            table = table.set_column(i, field.with_type(to), table.column(i).cast(to))
    return table


def python_rows(table: pa.Table) -> list[tuple]:
    """``table``'s rows as tuples of Python values (what a cursor fetches and the shell shows).
    A value Python cannot hold - a date or timestamp beyond its years 1-9999, such as
    ``'infinity'::date`` - is 22008, as psycopg fails to fetch one, not a bare OverflowError."""
    try:
        columns = [_timedeltas(c) if c.type == _INTERVAL else _reals(c) if c.type == _REAL else c.to_pylist()
                   for c in table.columns]
    except (OverflowError, ValueError) as e:
        raise errors.DatetimeFieldOverflow(
            f"a value fetched cannot be represented as a Python value (years 1 to 9999): {e}") from None
    return list(zip(*columns)) if columns else [()] * table.num_rows


_INTERVAL = pa.month_day_nano_interval()
_REAL = pa.float32()


def _reals(column: pa.ChunkedArray) -> list:
    """A REAL column's values as the floats their shortest REAL text says - 0.1, as psycopg
    parses PostgreSQL's text of 0.1::real - not the float4's exact double 0.10000000149011612."""
    return [None if v is None else float(str(np.float32(v))) for v in column.to_pylist()]


def _timedeltas(column: pa.ChunkedArray) -> list:
    """An INTERVAL column as ``datetime.timedelta`` values (``interval_timedelta``), rather than
    pyarrow's MonthDayNano tuples."""
    return [None if v is None else interval_timedelta(v.months, v.days, v.nanoseconds // 1000)
            for v in column.to_pylist()]


def interval_timedelta(months: int, days: int, micros: int) -> datetime.timedelta:
    """An interval as psycopg 3 fetches it: a ``datetime.timedelta`` (which has no months), each
    whole year of its months 365 days and each other month 30 (psycopg's IntervalBinaryLoader):
    '1 year 2 mons' is 425 days."""
    years, rest = divmod(abs(months), 12)
    extra = 365 * years + 30 * rest
    return datetime.timedelta(days=days + (extra if months >= 0 else -extra), microseconds=micros)


def lock_wait(lock_timeout: float | None, deadline: float | None) -> float | None:
    """How long a lock wait may last: ``lock_timeout``, within what is left of the statement's
    ``statement_timeout`` (its ``deadline``; 0 or None: no limit)."""
    if deadline is None:
        return lock_timeout
    left = max(deadline - time.monotonic(), NOWAIT)
    return left if not lock_timeout else min(lock_timeout, left)


@dataclass
class Context:
    txn: Transaction
    catalog: CatalogVersion
    db: str = DEFAULT_DB
    lock_timeout: float | None = None
    #: where unqualified names resolve, in order (``SET search_path``); ``db`` is the first
    search_path: tuple[str, ...] = ()
    deadline: float | None = None  # statement_timeout: when the statement is canceled (time.monotonic())
    #: raises 57014 if the session's statement was canceled (Session.cancel); None: it cannot be
    canceled: Callable[[], None] | None = None
    #: the tables a locking subquery of the statement locked rows of, its write running now: a
    #: row of one changed since was changed by another process that did not see the lock
    #: (``_moved_on``)
    subquery_locked: frozenset = frozenset()
    #: the table a write changes, by its alias, where its rows are registered under another
    #: name: engine/user_types.py reads its enum columns' comparisons as the enum's (and
    #: engine/jsonb_order.py its jsonb columns' in jsonb's order, engine/bpchar.py its CHAR(n)
    #: columns' as CHAR values)
    targets: tuple = ()
    #: the statement's parameters, in the order the executor binds them, and the statement's
    #: ``param_order`` (parser/parse.py): engine/user_types.py finds a ``?``'s value by its tag
    params: tuple = ()
    param_order: tuple | None = None
    #: the session's value of a setting by its name (what SHOW gives; 42704 for an unknown
    #: one): ``current_setting('name')``
    setting: Callable[[str], str] | None = None
    #: a later part of a data-modifying WITH (engine/with_writes.py): the tables an earlier part
    #: changed, by table id, as the statement found them - what its reads read (None: no such part)
    unchanged: dict | None = None
    #: a data-modifying WITH's CTEs that ran: their RETURNING rows by name, which a later part
    #: reads where it names one (as ``__txl_returned('name')``: engine/with_writes.py)
    returned: dict | None = None
    #: the system columns the statement names (parser/system_columns.py): its tables are read
    #: with them (engine/system_columns.py)
    system_columns: frozenset = frozenset()
    #: how the statement's calls of PL/pgSQL functions are run (engine/plpgsql_calls.py
    #: ``Calls``); None where the warehouse has none, or where they may not be called (DDL)
    routines: object | None = None
    #: an UPDATE or DELETE of a partitioned table, run on one of its partitions: the partition's
    #: statement triggers do not fire (the named table's would: engine/partitions.py)
    in_partition: bool = False

    def targeting(self, alias: str, version: "TableVersion", *more: str) -> "Context":
        """This context with ``version`` the statement's target, named ``alias`` (and each of
        ``more``: ON CONFLICT's ``excluded``), when it may have enum, jsonb, CHAR(n), inet or cidr columns."""
        if not self.may_hold("type") and not version.schema.has_jsonb and not version.schema.blank_padded \
                and not version.schema.network_columns:
            return self
        return replace(self, targets=tuple((name, version) for name in (alias, *more)))

    def locate(self, name: st.TableName, catalog: CatalogVersion | None = None) -> tuple[str, str]:
        """(database, table) of ``name``: the first database of the search path holding the
        table (in ``catalog``, or as the transaction sees it), or the first one."""
        if name.db is not None or len(self.search_path) < 2:
            return name.qualified(self.db)
        for db in self.search_path:
            found = catalog.table(db, name.name) if catalog is not None else self.txn.table(self.catalog, db, name.name)
            if found is not None:
                return db, name.name
        return self.db, name.name

    @property
    def lock_wait(self) -> float | None:
        return lock_wait(self.lock_timeout, self.deadline)

    def lookup(self, name: st.TableName) -> TableVersion | None:
        """The table, view or sequence ``name`` names, as this transaction sees it (None: there
        is none - a type is no relation: engine/user_types.py looks those up)."""
        version = self.txn.table(self.catalog, *self.locate(name))
        return version if version is None or version.schema.user_type is None else None

    def by_id(self, table_id: str) -> TableVersion | None:
        """The catalog entry ``table_id`` as this transaction sees it (None: dropped)."""
        if table_id in self.txn.changes:
            return self.txn.changes[table_id]
        return self.catalog.by_id(table_id)

    def may_hold(self, *kinds: str) -> bool:
        """Might a name resolve to one of ``kinds`` ("view", "materialized view", "sequence",
        "type") for this transaction? The catalog counts them; the transaction's own changes
        are looked at only if it has none (most warehouses have neither)."""
        catalog = self.catalog
        for kind in kinds:  # (asked several times by every statement: loops, not generators)
            if getattr(catalog, _COUNTED[kind]):
                return True
        for v in self.txn.changes.values():
            if v is not None and relation_kind(v) in kinds:
                return True
        return False

    def may_have_columns(self, kind: str) -> bool:
        """Might a table this transaction sees have a column of ``kind`` ("jsonb", "char":
        CHAR(n))? Counted as ``may_hold`` counts relations."""
        counted, has = _COLUMNS_COUNTED[kind]
        return bool(getattr(self.catalog, counted)) or any(
            v is not None and getattr(v.schema, has) for v in self.txn.changes.values())

    def altered(self, name: st.TableName, if_exists: bool, status: str) -> "TableVersion | Result":
        """The relation an ``ALTER ... [IF EXISTS] name`` changes: 42P01 if there is none, or
        - with IF EXISTS - the statement's Result with PostgreSQL's notice."""
        version = self.lookup(name)
        if version is None:
            written = catalog_views.relation_name(name.db, name.name)  # (public.t, not default.t)
            if if_exists:
                return Result(status=status, notice=f'relation "{written}" does not exist, skipping')
            raise errors.UndefinedTable(f'relation "{written}" does not exist')
        return version

    def resolve(self, name: st.TableName) -> TableVersion:
        version = self.lookup(name)
        if version is None:
            raise catalog_views.undefined_table(name)
        return version

    def check_interrupts(self) -> None:
        """57014 now if the statement was canceled or its statement_timeout passed: for long work
        in Python (a COPY's batches), which a cancel's interrupt of DuckDB does not reach."""
        if self.canceled is not None:
            self.canceled()
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise errors.QueryCanceled("canceling statement due to statement timeout")


class Executor:
    def __init__(self, database, pid: int = 0):
        """The executor of the session ``pid`` (engine/backends.py) of ``database``."""
        self.temp_schema = temp_tables.TEMP_DB  # (its session's pg_temp_N: Session sets it)
        self.session = None  # (its Session, which sets it: a trigger's function runs through it)
        self.truncating = False  # (TRUNCATE's deletes: they fire no DELETE trigger)
        self.trigger_depth = 0  # (triggers firing now, one inside another: engine/triggers.py)
        self.transition = None  # (the transition tables of the trigger running now, by name: engine/triggers.py)
        self.trigger_messages: list[tuple[str, str]] = []  # (their RAISEs', for the statement's result)
        self.private: PrivateFolder | None = None  # where its temporary tables spill, once they do
        self.db = database
        self.store: DataFileStore = database.warehouse.store
        self.assign_xid = database.assign_xid
        self.duck = database.duckdb().connect()  # (the database's DuckDB, shared: engine/duck.py)
        self.con = self.duck.con
        self.registry = sources.Registry(self.con)  # the names statements read rows under
        # the tables a TRUNCATE empties: a key removed from one is not followed into another
        self.fk_emptied: set | tuple = ()
        # a statement's foreign-key actions and checks waiting their turn (engine/foreign_keys.py ``written``)
        self.fk_queue: collections.deque | None = None
        self.index_scans = 0  # lookups through CREATE INDEX's indexes (engine/indexes.py), for tests
        self._pending_ids = itertools.count(-1, -1)
        # generated DuckDB SQL of statements that reference no table but their target, by
        # (statement, shape): a repeated statement skips the sqlglot rewrite and generation
        self._sql_cache: OrderedDict = OrderedDict()
        self._tz = points.FALLBACK  # DuckDB's TimeZone as a tzinfo, looked up at first use
        self._default_tz: str | None = None  # the zone before the first SET TIME ZONE
        self.zoned = False  # SET TIME ZONE chose another zone than the process's
        # the transaction whose start now() is: the session sets it before each statement, and
        # clears it for a CALL, which runs outside transactions (now() is then the call's time)
        self.clock_of: Transaction | None = None
        self.duck.create_function(CLOCK_FUNCTION, self._clock, [], duckdb.sqltype("TIMESTAMPTZ"),
                                  side_effects=False)  # DuckDB folds it to a constant when it plans
        self.sequence_calls = SequenceCalls(self.duck, Sequences(database.warehouse.root))
        self.advisory = AdvisoryCalls(self.duck, database.advisory, self.sequence_calls, pid)
        self.pid = pid
        BackendCalls(self.duck, database.backends, pid, self.sequence_calls.guarded, self.advisory.warnings.append)
        # pg_notify(channel, payload): a NOTIFY of the statement's transaction (engine/notify.py)
        self.duck.lazily("pg_notify", lambda: self.duck.create_function(
            "pg_notify", self.sequence_calls.guarded(self._notify), ["VARCHAR", "VARCHAR"], duckdb.sqltype("VARCHAR"),
            side_effects=True, null_handling="special"))
        self.duck.create_function(XID_FUNCTION, self._xid, [], duckdb.sqltype("BIGINT"), side_effects=False)
        self.duck.create_function(XID_IF_ASSIGNED_FUNCTION, self._xid_if_assigned, [], duckdb.sqltype("BIGINT"),
                                  side_effects=False, null_handling="special")

    def _notify(self, channel: str | None, payload: str | None) -> None:
        self.clock_of.notify.append(("notify", *notify.checked(channel, payload)))

    def close(self) -> None:
        self.advisory.close()
        self.duck.close()
        if self.private is not None:
            self.private.remove()

    def _clock(self):
        txn = self.clock_of
        return txn.start_time if txn is not None else datetime.datetime.now(datetime.timezone.utc)

    def _xid(self):
        """txid_current(): the transaction's XID, assigned now if it has none (as PostgreSQL's)."""
        txn = self.clock_of
        if txn is None:  # (a CALL's arguments)
            raise errors.NotSupportedError("txid_current() is not supported here")
        return self.db.assign_xid(txn)

    def _xid_if_assigned(self):
        txn = self.clock_of
        return txn.xid if txn is not None else None

    # --- DuckDB plumbing -----------------------------------------------------------------

    def _statement_memo(self, stmt: st.Statement, shape: tuple, build, pin=None):
        """What ``build()`` makes of a cached statement for ``shape`` (its DuckDB SQL, a point
        plan, a placeholder count ...), made once per statement object and shape - and per
        ``pin`` where given (a table's schema: made anew for another one)."""
        key = (id(stmt), shape)
        hit = self._sql_cache.get(key)
        if hit is not None and hit[0] is stmt and (pin is None or hit[1][0] is pin):  # (the statement pins its id)
            self._sql_cache.move_to_end(key)
            return hit[1] if pin is None else hit[1][1]
        made = build()
        self._sql_cache[key] = (stmt, made if pin is None else (pin, made))
        if len(self._sql_cache) > SQL_CACHE_SIZE:
            self._sql_cache.popitem(last=False)
        return made

    def _point_update_prologue(self, stmt: st.Update, schema: TableSchema, alias: str) -> tuple | None:
        """(the point plan, how many ``?`` RETURNING holds) of an UPDATE that the point path
        may take against ``schema`` - its SET's columns checked there (42703, 428C9), no SET
        DEFAULT, no generated column, no UPDATE trigger - or None. Worked out once per
        statement object and schema: every later run skips the checks (a schema is immutable;
        another one, after DDL, is checked anew)."""
        def build():
            if stmt.defaults or schema.generated or schema.triggers and triggers.fires(schema, "UPDATE"):
                return None
            assigned = dict(stmt.assignments)
            for name in assigned:
                assignable(schema, name, stmt.table.name)
            _refuse_identity_updates(schema, assigned, stmt.defaults)
            point = self._statement_memo(stmt, ("point-update",), lambda: points.update_plan(stmt, alias))
            return (point, _placeholders(*stmt.returning)) if point is not None else None
        return self._statement_memo(stmt, ("point-update-prologue",), build, pin=schema)

    @contextmanager
    def _registered(self):
        """``register(rows)`` makes Arrow rows or a streamed scan readable under a fresh
        name (engine/sources.py) until the block ends."""
        detaches = []

        def register(source: pa.Table | StreamedScan) -> str:
            name = self.registry.fresh()
            detaches.append(self._attach(name, source))
            return name

        try:
            yield register
        finally:
            self._detach(detaches)

    def _attach(self, name: str, source: pa.Table | StreamedScan):
        """``sources.attach``, DuckDB's errors translated: a cancel landing between two queries
        interrupts the registration that comes next (57014, not a bare InterruptException)."""
        try:
            return self.registry.attach(name, source)
        except duckdb.Error as e:
            raise self._error(e) from None

    @staticmethod
    def _detach(detaches: list) -> None:
        for detach in reversed(detaches):
            try:
                detach()
            except duckdb.InterruptException:  # (a cancel consumed by it: the next call goes through)
                detach()

    def _source(self, version: TableVersion, with_rowid: bool = False) -> pa.Table | StreamedScan:
        """How DuckDB reads ``version``: from the cache, or streamed from its Parquet files."""
        if not version.schema.columns:  # (a view, a sequence: no columns of their own; one check for both)
            if version.schema.view is not None:  # (engine/views.py expands a view where it is named)
                raise errors.NotSupportedError(f'view "{version.name}" cannot be read as a table here')
            if version.schema.sequence is not None:  # (read: its one row; found to change it: 42809)
                if with_rowid:
                    raise errors.WrongObjectType(f'cannot change sequence "{version.name}"')
                return self._sequence_row(version)
        if not sources.streamable(version.schema):
            return sources.typed(self.store.scan(version, with_rowid), version.schema)
        return sources.typed(self.store.plan(version, with_rowid), version.schema)

    def _sequence_row(self, version: TableVersion) -> pa.Table:
        """``SELECT * FROM s``: PostgreSQL's one row of a sequence (``is_called``: a number was
        taken since it started, or since setval)."""
        last = self._last_value(version)
        return pa.table({"last_value": pa.array([version.schema.sequence.start if last is None else last], pa.int64()),
                         "log_cnt": pa.array([0], pa.int64()), "is_called": pa.array([last is not None])})

    def _last_value(self, version: TableVersion) -> int | None:
        """The last number sequence ``version``'s file gave out, None if none yet."""
        counter = Counter.of(version)
        following = self.sequence_calls.sequences.peek(counter)
        return following - counter.increment if following != version.schema.sequence.start else None

    def _sql(self, expression: exp.Expression | str, params=(), *, result: bool = False) -> pa.Table:
        """The rows of ``expression``; ``result``: a query's result, whose columns get the types
        PostgreSQL gives them where DuckDB's differ (``_as_bigint``)."""
        sql = expression if isinstance(expression, str) else expression.sql(dialect="duckdb")
        try:
            relation = self.duck.run(
                lambda: self.con.sql(sql, params=list(params) if params else None))
            if relation is None:
                return pa.table({})
            types = [str(t) for t in relation.types] if result else ()
            hugeint = [i for i, t in enumerate(types) if t == "HUGEINT"]
            table = relation.to_arrow_table()
            table = _as_bigint(table, hugeint) if hugeint else table
            if any("ENUM(" in t for t in types):
                table = _enums_as_text(table)
            if any(t.startswith(TID_TYPE) for t in types):  # (tids: a ctid or a cast to tid)
                table = system_columns.text_tids(table, types)
            return _as_text_types(table, types) if "UUID" in types or "JSON" in types else table
        except duckdb.Error as e:
            raise self._error(e, sql=sql, params=params) from None

    def _error(self, e: Exception, words=translate, sql: str | None = None, params=()) -> errors.Error:
        """The txlake error for DuckDB's ``e``: the one a function txlake gave DuckDB raised
        (a sequence's, with its SQLSTATE), or ``words(e)`` - but where DuckDB could not pick a
        form of a typed macro of txlake's (parser/semantics.py: sum(), avg(), length(), a cast
        to text...) because an argument did not bind, the argument's own error, found by
        binding ``sql`` again with each such call made a plain one (``_UNBOUND_ARGUMENT``)."""
        failure = self.sequence_calls.failure()
        if failure is not None:
            return failure
        if sql is not None and (negative := negative_row_count(e, sql, params or (), self.con)) is not None:
            return negative
        if sql is not None and _OVERLOADS.search(str(e)) is not None:
            try:  # (binding only: a relation runs when fetched)
                self.con.sql(_TYPED_MACRO_CALL.sub("concat(", sql), params=list(params) if params else None)
            except duckdb.Error as unbound:
                error = words(unbound)
                if error.sqlstate in _UNBOUND_ARGUMENT:
                    return error
        return words(e)

    def _stream(self, sql: str, params) -> Iterator[pa.Table]:
        """The rows of query ``sql`` in batches of up to ``ROWS_PER_FILE``, as DuckDB makes them."""
        try:
            reader = self.duck.run(
                lambda: self.con.sql(sql, params=list(params) if params else None)).to_arrow_reader(ROWS_PER_FILE)
        except duckdb.Error as e:
            raise self._error(e, sql=sql, params=params) from None
        try:
            while True:
                try:
                    batch = reader.read_next_batch()
                except StopIteration:
                    return
                except OSError as e:  # DuckDB failed while producing the stream
                    raise self._error(e, translate_stream_error) from None
                yield pa.Table.from_batches([batch])
        finally:
            reader.close()

    def _columns_of(self, sql: str, params) -> list[str]:
        """The result columns of query ``sql``, from DuckDB's binder (nothing runs)."""
        try:
            return self.duck.run(
                lambda: self.con.sql(sql, params=list(params) if params else None)).columns
        except duckdb.Error as e:
            raise self._error(e, sql=sql, params=params) from None

    def _catalog_answer(self, ctx: Context, register, lookups: list, node: exp.Expression, visit) -> exp.Expression:
        """A catalog call's answer (engine/catalog_functions.py), its lookups made at the first."""
        if not lookups:
            lookups.append(catalog_functions.Lookups(self, ctx, register))
        return catalog_functions.answer(self, ctx, node, lookups[0], visit)

    def _rewrite(self, ctx: Context, expression: exp.Expression, register, query: bool = False) -> exp.Expression:
        """Point every table reference at a registered Arrow view of the version it sees
        (``query``: ``expression`` is a query's, whose select list is its result)."""
        tables = column_scope.StatementTables(ctx, expression)  # (looked up once, for every rewrite)
        expression = user_types.rewritten(ctx, expression, tables)  # (casts to enums and domains)
        expression = _typed_by_columns(ctx, expression, tables, query)
        ctes = cte_names(expression)
        registered: dict[int, str] = {}
        lookups: list[catalog_functions.Lookups] = []  # (made where a call first needs them)

        def visit(node):
            if catalog_functions.is_call(node):  # (regclass, format_type, obj_description, ...)
                return self._catalog_answer(ctx, register, lookups, node, visit)
            if not isinstance(node, exp.Table):
                return _session_value(ctx, node)
            if isinstance(node.this, exp.Anonymous) and node.this.name.lower() in _TABLE_FUNCTIONS:
                fn = node.this.name.lower()
                alias = node.args.get("alias") or exp.TableAlias(this=exp.to_identifier(fn))
                return _pointed(node, register(_TABLE_FUNCTIONS[fn](self, ctx, node.this)), alias)
            if not isinstance(node.this, exp.Identifier):
                return node
            name = table_name(node)
            if name.db is None and name.name in ctes:
                return node
            _check_named_schemas(ctx, node.meta.get(NAMED_SCHEMAS), name)
            travel = node.args.get("version") or node.args.get("when")
            view = catalog_views.view(name.db, name.name)
            if view is not None and travel is None:  # information_schema.tables, pg_tables, ...
                alias = node.args.get("alias") or exp.TableAlias(this=exp.to_identifier(name.name))
                rows = system_views.build(view, self.db, self.pid) if view in system_views.VIEWS else \
                    catalog_views.build(view, ctx.txn.tables(ctx.catalog), self._last_value, self.temp_schema)
                return _pointed(node, register(rows), alias)
            version = self._as_of(ctx, name, travel) if travel is not None else ctx.resolve(name)
            if ctx.unchanged is not None and travel is None:
                version = ctx.unchanged.get(version.table_id, version)
            if ctx.system_columns and version.is_table:  # (a statement naming ctid, xmin, ...)
                alias = node.args.get("alias") or exp.TableAlias(this=exp.to_identifier(name.name))
                relation = system_columns.relation(self, ctx, version, register(self._source(version, with_rowid=True)),
                                                   alias, register)
                joins = node.args.get("joins")  # (FROM (t JOIN u ON ...))
                return system_columns.with_joins(relation, [j.transform(visit) for j in joins]) if joins else relation
            key = id(version)
            if key not in registered:
                registered[key] = register(self._source(version))
            alias = node.args.get("alias") or exp.TableAlias(this=exp.to_identifier(name.name))
            return _pointed(node, registered[key], alias)

        rewritten = expression.transform(visit)
        if not ctx.system_columns:
            return rewritten
        rewritten = system_columns.hidden(rewritten)
        return system_columns.user_ctids(rewritten) if "ctid" in ctx.system_columns else rewritten

    # --- time travel ---------------------------------------------------------------------

    def _as_of(self, ctx: Context, name: st.TableName, travel: exp.Expression) -> TableVersion:
        """The table as it was at a snapshot id (a commit sequence number) or a point in time
        (UTC): ``FOR SYSTEM_VERSION AS OF n``, ``FOR SYSTEM_TIME AS OF ts``, ``AT (VERSION => n)``."""
        kind = (travel.args.get("kind") if isinstance(travel, exp.HistoricalData) else travel.this) or ""
        kind = str(kind).upper()
        value = travel.expression
        if value is None or any(isinstance(n, exp.Placeholder) for n in value.walk()):
            raise errors.NotSupportedError("time travel needs a constant snapshot id or timestamp")
        warehouse = self.db.warehouse
        if kind == "VERSION":
            csn = self._sql(f"SELECT CAST({value.sql(dialect='duckdb')} AS BIGINT)").column(0)[0].as_py()
            if csn is not None and csn > warehouse.latest.csn:
                warehouse.refresh()  # (another process may have committed it since this one looked)
            if csn is None or not 1 <= csn <= warehouse.latest.csn:
                raise errors.InvalidParameterValue(f"snapshot {csn} does not exist")
        elif kind == "TIMESTAMP":
            warehouse.refresh()
            csn = warehouse.csn_at(self.instant_ms(value))
        else:
            raise errors.NotSupportedError(f"time travel by {kind} is not supported")
        catalog = warehouse.catalog_at(csn)
        self.db.hold(ctx.txn, csn)  # (after: catalog_at refuses a snapshot already expired)
        version = catalog.table(*ctx.locate(name, catalog))
        if version is None:
            raise errors.UndefinedTable(f'relation "{name}" did not exist at snapshot {csn}')
        if version.is_view:
            raise errors.NotSupportedError(f'time travel of view "{version.name}" is not supported: '
                                           "read its tables as of the snapshot")
        return version

    def _snapshots(self, ctx: Context, call: exp.Anonymous) -> pa.Table:
        """``txlake_snapshots('table')``: the commits that changed a table, oldest first."""
        if len(call.expressions) != 1 or not isinstance(call.expressions[0], exp.Literal):
            raise errors.ProgrammingError("txlake_snapshots takes one table name as a string literal",
                                          sqlstate="42883")
        version = ctx.resolve(parse_table_name(call.expressions[0].this))
        rows = []
        for entry in self.db.warehouse.history(version.table_id):
            for change in entry.changes:
                if change.table_id != version.table_id:
                    continue
                kind, added, deleted = _commit_kind(change)
                rows.append((entry.csn, entry.time_ms, kind, added, deleted, entry.commit_user, entry.commit_id))
        merged: dict[int, list] = {}
        for csn, ms, kind, added, deleted, user, cid in rows:  # CREATE + data in one commit: one row
            if csn in merged:
                merged[csn][2] = merged[csn][2] if kind == "APPEND" or merged[csn][2] == "RENAME" else kind
                merged[csn][3] += added
                merged[csn][4] += deleted
            else:
                merged[csn] = [csn, ms, kind, added, deleted, user, cid]
        cols = list(zip(*merged.values())) or [[]] * 7
        return pa.table({
            "snapshot_id": pa.array(cols[0], pa.int64()),
            "committed_at": pa.array([v * 1000 for v in cols[1]], pa.timestamp("us")),
            "commit_kind": pa.array(cols[2], pa.string()),
            "rows_added": pa.array(cols[3], pa.int64()),
            "rows_deleted": pa.array(cols[4], pa.int64()),
            "commit_user": pa.array(cols[5], pa.string()),
            "commit_id": pa.array(cols[6], pa.string()),
        })

    def _transactions(self, ctx: Context, call: exp.Anonymous) -> pa.Table:
        """``txlake_transactions(['label'])``: running, prepared and recently finished transactions."""
        args = call.expressions
        if len(args) > 1 or (args and not (isinstance(args[0], exp.Literal) and args[0].is_string)):
            raise errors.ProgrammingError("txlake_transactions takes an optional label as a string literal",
                                          sqlstate="42883")
        return self.db.transactions(label=args[0].this if args else None)

    # --- queries -------------------------------------------------------------------------

    def query(self, ctx: Context, stmt: st.Query, params) -> Result:
        self._read_query(ctx, stmt, params)
        if stmt.locks:
            taken = self._lock_selected(ctx, stmt, params)
            if taken is not None:
                return taken
        point = None if ctx.system_columns else \
            self._statement_memo(stmt, ("point-select",), lambda: points.select_plan(stmt.expression))
        if point is not None:
            result = points.select(self, ctx, point, params)
            if result is not None:
                return result
        joined = None if ctx.system_columns else \
            self._statement_memo(stmt, ("point-join",), lambda: points.join_plan(stmt.expression))
        if joined is not None:
            looked_up = points.join_lookups(self, ctx, joined, params)
            if looked_up is not None:
                result = points.join(self, joined, looked_up)
                if result is not None:
                    return result
        table = self._over_tables(ctx, stmt, lambda sql: self._sql(sql, params, result=True), params)
        table = network.marked(ctx, stmt.expression, table)
        return Result(table=table, rowcount=table.num_rows, status=f"SELECT {table.num_rows}")

    def _over_tables(self, ctx: Context, stmt: st.Query, run, params=None, used: list | None = None):
        """``run(DuckDB SQL of the query)``, with the tables it reads attached (the versions
        ``ctx`` sees) for as long as it runs - a single table's rows only those an index gives
        when the query's WHERE clause pins its columns to constants or ``params`` (engine/
        indexes.py; ``used`` gets a line saying so, for EXPLAIN)."""
        shape = ("query", ctx.db, ctx.search_path)
        plan = None if ctx.system_columns else \
            self._statement_memo(stmt, shape, lambda: self._query_plan(ctx, stmt.expression))
        versions = [ctx.resolve(ref) for ref in plan[1]] if plan is not None else None
        if plan is not None and tuple((v.table_id, v.schema.schema_id) for v in versions) != plan[2]:
            # a table it reads is another now, or has another schema (a column became jsonb or
            # an enum, which a plan rewrites): planned again
            plan = self._query_plan(ctx, stmt.expression)
            self._sql_cache[(id(stmt), shape)] = (stmt, plan)
            versions = [ctx.resolve(ref) for ref in plan[1]] if plan is not None else None
        if plan is None:  # time travel, table functions: rewritten each time
            with self._registered() as register:
                return run(self._rewrite(ctx, stmt.expression, register, query=True).sql(dialect="duckdb"))
        sql, refs, _ = plan
        narrowed = {}  # ref -> the rows a key gives
        if params is not None and len(refs) == 1:
            source = indexes.query_source(self, ctx, stmt, versions[0], params, used)
            if source is not None:
                narrowed[refs[0]] = source
        elif params is not None:  # (a join's tables its WHERE pins by a key, or by a pinned table's values)
            joined = self._statement_memo(stmt, ("joined",), lambda: _join_plan(stmt.expression))
            if joined is not None:
                narrowed = indexes.joined_sources(self, joined, dict(zip(refs, versions)), params, used)
        detaches = []
        try:
            for i, (ref, version) in enumerate(zip(refs, versions)):
                source = narrowed.get(ref)
                detaches.append(self._attach(f"__txl_q{i}", source if source is not None else self._source(version)))
            return run(sql)
        finally:
            self._detach(detaches)

    def explain(self, ctx: Context, stmt: st.Explain, params) -> Result:
        """EXPLAIN [ANALYZE]: a query answered from a table's primary-key index says so (DuckDB
        is not used); any other is DuckDB's plan of the SQL txlake gives it, one line a row of
        a QUERY PLAN column, as PostgreSQL returns its plan. ANALYZE runs the query - reading
        as it would, locking the rows a SELECT ... FOR UPDATE locks - and adds the time it took."""
        query = stmt.query
        lines = points.explain_lines(self, ctx, query, params) if not ctx.system_columns else None
        if lines is not None:
            if stmt.analyze:
                started = time.perf_counter()
                found = self.query(ctx, query, params).rowcount
                lines += [f"  Rows: {found}", f"Execution Time: {(time.perf_counter() - started) * 1000:.3f} ms"]
        else:
            if stmt.analyze:  # (it reads, and locks what a SELECT ... FOR UPDATE would)
                self._read_query(ctx, query, params)
                if query.locks:
                    self.refuse_row_by_row_locking(query, "EXPLAIN ANALYZE")
                    self._lock_selected(ctx, query, params)
            started = time.perf_counter()
            used: list[str] = []
            plan = self._over_tables(ctx, query, lambda sql: self._sql(
                ("EXPLAIN ANALYZE " if stmt.analyze else "EXPLAIN ") + sql, params), params, used)
            lines = used + [line.rstrip() for text in plan.column(plan.num_columns - 1).to_pylist()
                            for line in text.splitlines() if line.strip()]
            if stmt.analyze:
                lines.append(f"Execution Time: {(time.perf_counter() - started) * 1000:.3f} ms")
        return Result(table=pa.table({"QUERY PLAN": pa.array(lines, pa.string())}), rowcount=len(lines),
                      status="EXPLAIN")

    def _lock_selected(self, ctx: Context, stmt: st.Query, params) -> Result | None:
        """``SELECT ... FOR UPDATE`` (``FOR NO KEY UPDATE``, ``FOR SHARE``, ``FOR KEY SHARE``):
        lock the rows its WHERE clause matches, as an UPDATE of them would, before the query
        reads them - a concurrent writer of one waits for this transaction to end, and this
        one for a running writer, then: REPEATABLE READ / SERIALIZABLE fail with 40001 if the
        row changed since the snapshot; READ COMMITTED reads its newest version (looking
        again for rows that match there). Every lock is exclusive (FOR SHARE too: two sharers
        wait for each other). NOWAIT fails at once (55P03) on a row another holds. Across
        processes only with ``shared_row_locks``, as an UPDATE's row locks.

        With LIMIT / OFFSET or SKIP LOCKED only the rows the query returns (and those OFFSET
        passes) are locked, one after another (``_lock_and_take``), and the query's result
        is made then: it is returned. Otherwise None: the caller runs the query."""
        if ctx.txn.read_only:
            raise errors.ReadOnlyTransaction(
                f"cannot execute SELECT {_lock_clause(stmt.locks)} in a read-only transaction")
        plan = self._locking_plan(stmt)
        if plan.row_by_row:
            return self._lock_and_take(ctx, stmt, params, plan)
        alias, where, nowait = plan.alias, plan.where, plan.nowait
        params = params[plan.offset:plan.offset + _placeholders(where)] if where is not None else ()
        lock_ctx = replace(ctx, lock_timeout=NOWAIT) if nowait else ctx
        while True:
            version = ctx.resolve(plan.table)

            def select(target: exp.Table, register, version=version) -> exp.Select:
                projections = [exp.column(ROWID, alias)] + _old_key_columns(version.schema, alias)
                return self._row_finder(ctx.targeting(alias, version), target, projections, [], where, register)

            def find(candidates, version=version, select=select) -> pa.Table:
                return self._find_rows(ctx, stmt, version, alias, candidates, select, params, [where], False)

            found = find(self._candidates(version, alias, where, params, 0))
            try:
                _, locked_in = self._lock_rows(lock_ctx, version, found, find)
            except errors.LockNotAvailable:
                if not nowait:
                    raise
                raise _row_lock_refused(version) from None
            if locked_in is version:  # no row changed since: each found is locked and current
                return None
            # READ COMMITTED moved the table to its newest version: rows may match there that did not

    def _locking_plan(self, stmt: st.Query) -> "LockingPlan":
        return self._statement_memo(stmt, ("locking",), lambda: _locking_plan(stmt.expression, stmt.locks))

    def refuse_row_by_row_locking(self, stmt: st.Query, what: str) -> None:
        """``what`` (EXPLAIN ANALYZE, COPY) runs its query over the table once its rows are
        locked: it cannot lock one row after another (LIMIT, OFFSET, SKIP LOCKED): 0A000."""
        if self._locking_plan(stmt).row_by_row:
            raise errors.NotSupportedError(f"{what} of SELECT {_lock_clause(stmt.locks)} with LIMIT, OFFSET or "
                                           "SKIP LOCKED is not supported")

    def _lock_and_take(self, ctx: Context, stmt: st.Query, params, plan: "LockingPlan") -> Result:
        """``SELECT ... FOR UPDATE`` with LIMIT / OFFSET or SKIP LOCKED, as PostgreSQL's row
        locking under its Limit: the rows the query finds (in its ORDER BY order) are locked one
        after another until OFFSET + LIMIT of them are held, and the last LIMIT are returned -
        only those, and those OFFSET passes, stay locked. SKIP LOCKED passes over a row another
        transaction holds (one in another process too, with ``shared_row_locks``) without
        waiting, and takes the next; NOWAIT fails on it (55P03); else this waits for it. A row
        a committed transaction changed meanwhile: READ COMMITTED re-checks its newest version
        (WHERE and output) and, if it no longer matches, takes the next row instead, so the
        statement still returns up to LIMIT rows; REPEATABLE READ / SERIALIZABLE fail with
        40001 (``_recheck_locked``)."""
        expression = stmt.expression
        limit, offset = expression.args.get("limit"), expression.args.get("offset")
        n_limit, n_offset = self._statement_memo(stmt, ("limit-params",),
                                                 lambda: (_placeholders(limit), _placeholders(offset)))
        body = len(params) - n_limit - n_offset  # (LIMIT's and OFFSET's ? are the last in the text)
        count = self._row_count(limit, params[body:body + n_limit], "LIMIT")
        passed = self._row_count(offset, params[body + n_limit:], "OFFSET") or 0
        params = params[:body]
        want = None if count is None else passed + count
        lock_ctx = replace(ctx, lock_timeout=NOWAIT) if plan.nowait else ctx
        txn, locks = ctx.txn, self.db.locks
        version = ctx.resolve(plan.table)
        tid = version.table_id
        taken: list[pa.Table] = []
        held = 0
        seen: set = set()  # the rows taken or passed over, by lock key (row id for this transaction's own rows)
        fetch = None if want is None else 2 * want + 16  # (most rows a scan finds are taken)

        names: list[str] = []  # the query's own columns'

        def run(candidates, fetch: int | None) -> pa.Table:
            found = self._ordered_rows(ctx, stmt, version, candidates, params, fetch)
            shown = found.num_columns - 1 - len(version.schema.primary_key)
            names[:] = found.column_names[:shown]  # (named by position: two may have the same name)
            return found.rename_columns([f"__txl_c{i}" for i in range(shown)] + found.column_names[shown:])

        while want is None or held < want:
            start = version
            found = run(self._source(start, with_rowid=True), fetch)
            keys = self._row_lock_keys(start, found)
            rowids = found.column(ROWID).to_pylist()
            marks = [key if key is not None else rowid for key, rowid in zip(keys, rowids)]
            fresh = [i for i, mark in enumerate(marks) if mark not in seen]
            while fresh and (want is None or held < want):
                chunk, fresh = (fresh, []) if want is None else (fresh[:want - held], fresh[want - held:])
                seen.update(marks[i] for i in chunk)
                if plan.skip:
                    chunk = [i for i in chunk if keys[i] is None or locks.try_acquire(txn, keys[i])]
                    chunk = self._unclaimed_by_prepared(start, found, chunk)
                else:
                    try:
                        self._lock(lock_ctx, tid, [keys[i] for i in chunk if keys[i] is not None])
                    except errors.LockNotAvailable:
                        if not plan.nowait:
                            raise
                        raise _row_lock_refused(start) from None
                if not chunk:
                    continue
                rows, version = self._recheck_locked(lock_ctx, start, found.take(chunk),
                                                     [keys[i] for i in chunk], lambda rows: run(rows, None))
                taken.append(rows)
                held += rows.num_rows
                if version is not start:
                    break  # READ COMMITTED moved on to a newer version: the next rows are found there
            if version is start and (fetch is None or found.num_rows < fetch):
                break  # every row the query finds was looked at
            if version is start:
                fetch *= 4
        if want == 0:  # (LIMIT 0: nothing to lock, only the result's columns to find)
            found = run(self._source(version, with_rowid=True), 0)
        rows = pa.concat_tables([found.slice(0, 0), *taken]).slice(passed, count)
        shown = rows.num_columns - 1 - len(version.schema.primary_key)  # (row id and old key columns come last)
        table = rows.select(list(range(shown))).rename_columns(names)
        return Result(table=table, rowcount=table.num_rows, status=f"SELECT {table.num_rows}")

    def _ordered_rows(self, ctx: Context, stmt: st.Query, version: TableVersion, candidates, params,
                      fetch: int | None) -> pa.Table:
        """A locking SELECT run over ``candidates`` (rows of ``version`` with their row ids) without
        its LIMIT and OFFSET - its first ``fetch`` rows, if given - each row with its row id and
        old key (``_old_key_columns``) after the query's own columns."""
        schema = version.schema
        sql = self._statement_memo(stmt, ("lock-order", version.table_id, schema.schema_id, ctx.db, ctx.search_path),
                                   lambda: _ordered_sql(ctx, stmt.expression, schema))
        detach = self._attach(TARGET, candidates)
        try:
            return self._sql(sql if fetch is None else f"{sql} LIMIT {fetch}", params, result=True)
        finally:
            self._detach([detach])

    def _row_count(self, clause: exp.Expression | None, params, what: str) -> int | None:
        """The number a LIMIT or OFFSET clause gives (None: no clause, ALL, NULL)."""
        value = clause.expression if clause is not None else None
        if value is None or (isinstance(value, exp.Var) and value.name.upper() == "ALL"):
            return None
        if isinstance(value, exp.Literal) and value.is_int:
            number = int(value.this)
        else:
            number = self._sql(exp.select(exp.cast(value.copy(), "BIGINT")), params).column(0)[0].as_py()
        if number is not None and number < 0:
            raise errors.DataError(f"{what} must not be negative", sqlstate="2201W" if what == "LIMIT" else "2201X")
        return number

    def _unclaimed_by_prepared(self, version: TableVersion, found: pa.Table, chunk: list[int]) -> list[int]:
        """SKIP LOCKED: those rows of ``chunk`` (indexes into ``found``) no unfinished prepared
        transaction deletes or updates - it holds them as a lock would (``_refuse_prepared_rows``)."""
        claims = self.db.warehouse.prepared.claims()
        if not any(c.table_id == version.table_id and c.deleted for r in claims for c in r.changes):
            return chunk
        rowids = found.column(ROWID).to_pylist()
        return [i for i in chunk if rowids[i] < 0 or _held_by_prepared(claims, version, {rowids[i]}) is None]

    def _query_plan(self, ctx: Context, expression: exp.Expression):
        """(SQL with positional view names, the table each name stands for, the (table id,
        schema id) of each as planned - a plan is good for those only), or None when the query
        needs per-execution rewriting (time travel, txlake_snapshots, user-defined types). jsonb
        columns compared or sorted, and string constants beside columns, are rewritten here, once
        (engine/jsonb_order.py, engine/column_constants.py: the rewrites depend on the schemas the
        plan is made for)."""
        if user_types.uses_types(ctx, expression):
            return None
        expression = _typed_by_columns(ctx, expression, column_scope.StatementTables(ctx, expression), query=True)
        ctes = cte_names(expression)
        refs: list[st.TableName] = []
        made_for: list[tuple[str, int]] = []
        special = []

        def visit(node):
            if catalog_functions.is_call(node):  # (read at each execution)
                special.append(node)
                return node
            if not isinstance(node, exp.Table):
                return _session_value(ctx, node)  # (the plan is cached per search path)
            if not isinstance(node.this, exp.Identifier):
                if isinstance(node.this, exp.Anonymous):
                    special.append(node)
                return node
            if node.args.get("version") or node.args.get("when"):
                special.append(node)
                return node
            name = table_name(node)
            if name.db is None and name.name in ctes:
                return node
            if catalog_views.view(name.db, name.name) is not None:  # (built at each execution)
                special.append(node)
                return node
            _check_named_schemas(ctx, node.meta.get(NAMED_SCHEMAS), name)  # (the plan is cached per search path)
            version = ctx.resolve(name)  # unknown tables fail here, before anything is cached
            if name not in refs:
                refs.append(name)
                made_for.append((version.table_id, version.schema.schema_id))
            alias = node.args.get("alias") or exp.TableAlias(this=exp.to_identifier(name.name))
            return _pointed(node, f"__txl_q{refs.index(name)}", alias)

        rewritten = expression.transform(visit)
        if special:
            return None
        return rewritten.sql(dialect="duckdb"), tuple(refs), tuple(made_for)

    # --- INSERT --------------------------------------------------------------------------

    def _insert_target(self, ctx: Context, stmt: st.Insert) -> tuple[TableVersion, list[str], st.Insert]:
        """What every INSERT settles first: its table, the columns it fills, and the
        statement as its identity columns make it (OVERRIDING) - after SERIALIZABLE's reads and
        the refusals of values a generated or identity column may not be given (428C9)."""
        version = self._writable(ctx, stmt.table)
        schema = version.schema
        if ctx.txn.isolation == SERIALIZABLE:  # (checked here: a point INSERT makes no closure)
            self._read_tables(ctx, stmt, lambda: [stmt.source, *(
                [*(v for _, v in stmt.on_conflict.assignments), stmt.on_conflict.where] if stmt.on_conflict else [])])
        columns = self._target_columns(schema, stmt)
        if schema.generated:  # (428C9: a value given one; what DEFAULT gives it is computed)
            generated.refuse_values(schema, columns, stmt.source, stmt.columns is not None)
            if stmt.on_conflict is not None:
                generated.refuse_updates(schema, [n for n, _ in stmt.on_conflict.assignments],
                                         stmt.on_conflict.defaults)
        if schema.identity:  # (else nothing to refuse, nothing OVERRIDING changes)
            stmt = _overriding(schema, columns, stmt)
        return version, columns, stmt

    def insert(self, ctx: Context, stmt: st.Insert, params) -> Result:
        version, columns, stmt = self._insert_target(ctx, stmt)
        schema = version.schema
        if schema.triggers and (triggers.fires(schema, "INSERT") or
                                stmt.on_conflict and triggers.fires(schema, "UPDATE")):
            return triggers.insert(self, ctx, stmt, version, columns, params)
        params, conflict_params, returning_params = self._insert_params(stmt, params)
        stmt = self._conflict_checked(version, stmt)
        conflict = stmt.on_conflict
        if conflict is None and not stmt.returning and stmt.source is not None \
                and not isinstance(stmt.source, exp.Values):
            count = self._insert_select(ctx, stmt, schema, columns, params)
            return Result(rowcount=count, status=f"INSERT 0 {count}")
        rows = points.insert_rows(self, schema, columns, stmt, params)
        if rows is None:
            with self._registered() as register:
                rows = self._insert_rows(ctx, schema, columns, stmt, params, register)
        returned = system_columns.in_returning(stmt.returning) if ctx.system_columns else None
        marked = bool(returned)  # (RETURNING xmax: which rows were updated)
        rows = self._insert_batch(ctx, stmt, rows, conflict_params, mark_updated=marked)
        if marked:
            rows = _arrow(rows)
            updated = [r is not None for r in rows.column(_UPDATED).to_pylist()] if _UPDATED in rows.column_names \
                else None
            rows = system_columns.returned(self, ctx, version, rows.select(schema.names), returned, updated=updated)
        result = self._returning(stmt.returning, rows, schema, stmt.alias or stmt.table.name, returning_params,
                                 system=marked, ctx=ctx)
        result.status = f"INSERT 0 {rows.num_rows}"
        return result

    def _insert_params(self, stmt: st.Insert, params) -> tuple[tuple, tuple, tuple]:
        """An INSERT's parameters as each piece of its SQL takes them, in text order: the
        source's, ON CONFLICT's, RETURNING's."""
        conflict = stmt.on_conflict
        n_source, n_conflict = self._statement_memo(stmt, ("placeholders",), lambda: (
            _placeholders(stmt.source),
            _placeholders(*(v for _, v in conflict.assignments), conflict.where) if conflict else 0))
        return params[:n_source], params[n_source:n_source + n_conflict], params[n_source + n_conflict:]

    @staticmethod
    def _conflict_checked(version: TableVersion, stmt: st.Insert) -> st.Insert:
        """An INSERT's ON CONFLICT against the table: 428C9 for a GENERATED ALWAYS identity it
        sets, 42704 for a constraint it names that is not there, 42P10 for a target no key
        matches; DO NOTHING without a target on a table without keys is a plain INSERT."""
        conflict, schema = stmt.on_conflict, version.schema
        if conflict is None:
            return stmt
        if schema.always:
            _refuse_identity_updates(schema, [n for n, _ in conflict.assignments], conflict.defaults)
        if conflict.constraint is not None:
            uniques.arbiters(schema, version.name, conflict)  # (42704 for no such constraint)
        if not schema.primary_key and not schema.uniques:
            if not (conflict.do_nothing and not conflict.columns and not conflict.targets):
                raise errors.ProgrammingError(
                    "there is no unique or exclusion constraint matching the ON CONFLICT specification",
                    sqlstate="42P10")
            # DO NOTHING without a target: no key, so no conflict - a plain INSERT
            return replace(stmt, on_conflict=None)
        return stmt

    def insert_many(self, ctx: Context, stmt: st.Insert, param_sets: list[tuple]) -> Result | None:
        """``stmt``, an INSERT of one VALUES row, once per parameter set, as one statement: the
        rows built together in Python (``points.insert_many_rows``) and added as one batch -
        what ``executemany`` does in a transaction block, where a failing row fails the block
        as the rows one at a time would. None, having changed nothing, where the rows cannot
        be built so (ON CONFLICT, RETURNING, a value DuckDB must convert), or where a batch
        would pass what a statement per set refuses - a foreign key of the table to itself,
        which a batch's end checks, so that a row may reference one later in it: the caller
        then runs the statement once per set."""
        if not stmt.batchable:
            return None
        version, columns, stmt = self._insert_target(ctx, stmt)
        if any(fk.table_id == version.table_id for fk in version.schema.foreign_keys) or version.schema.triggers:
            return None
        rows = points.insert_many_rows(self, version.schema, columns, stmt, param_sets)
        if rows is None:
            return None
        rows = self._insert_batch(ctx, stmt, rows, ())
        return Result(rowcount=rows.num_rows, status=f"INSERT 0 {rows.num_rows}")

    def default_values(self, col: Column, n: int) -> tuple:
        """``n`` values of column ``col``'s default, each evaluated on its own (``random()``,
        ``gen_random_uuid()`` differ row to row), as an INSERT's rows take them."""
        sql = f"SELECT {_cast_sql(_default_sql(col.default), col.type)} FROM range({n})"
        return tuple(self._sql(sql, result=True).column(0).cast(col.type.arrow()).to_pylist())  # (PythonRows' values)

    def _insert_select(self, ctx: Context, stmt: st.Insert, schema: TableSchema, columns: list[str], params) -> int:
        """``INSERT ... SELECT`` (without ON CONFLICT or RETURNING): the rows stream from DuckDB
        in batches, each checked and added to the transaction as it comes - past the spill
        threshold its rows go to Parquet (``_apply``) - so an insert of any size runs in
        bounded memory. A failing batch fails the statement, and so the transaction (or back
        to a savepoint): the batches before it are never committed."""
        count = batches = 0
        with self._registered() as register:
            sql = self._insert_sql(ctx, schema, columns, stmt, register, params)
            if schema.generated:  # (computed in the query: its CHECK verdicts judge them)
                sql = generated.with_generated(sql, stmt.table.name, schema)
            if schema.enforced_checks:  # (the stream holds the connection: its query gives the CHECKs' verdicts too)
                sql = checks.with_verdicts(sql, stmt.table.name, schema)
            for batch in self._stream(sql, params):
                if schema.enforced_checks:
                    batch = checks.passed(stmt.table.name, schema, batch)
                count += self._insert_batch(ctx, stmt, self._conform(batch, schema), (), check_ssi=False,
                                            checks_done=True).num_rows
                batches += 1
        if not batches:
            self._insert_batch(ctx, stmt, schema.arrow_schema().empty_table(), (), check_ssi=False)
        self._check_ssi(ctx, ctx.resolve(stmt.table))
        return count

    def _insert_batch(self, ctx: Context, stmt: st.Insert, rows: pa.Table | PythonRows, conflict_params,
                      check_ssi: bool = True, checks_done: bool = False,
                      mark_updated: bool = False, before_update=None) -> pa.Table | PythonRows:
        """Add ``rows`` to the INSERT's table in the transaction: constraints (``checks_done``:
        the CHECKs were evaluated already), key locks and ON CONFLICT first. Returns the rows
        inserted or updated (``mark_updated``: with the column ``_UPDATED``, the row id a row
        ON CONFLICT DO UPDATE updated replaced, NULL for one inserted, where it updated some).
        ``before_update``: DO UPDATE's BEFORE UPDATE row triggers (engine/triggers.py
        ``Upserting``)."""
        version = ctx.resolve(stmt.table)
        if version.schema.partitioning is not None:  # (each row to its partition)
            from txlake.engine import partitions  # (it builds on this module)
            return partitions.route(self, ctx, stmt, version, rows, conflict_params, check_ssi, mark_updated)
        rows = self._check_rows(version, rows, checks_done=checks_done)
        updated_rowids, update_rows = None, None
        if version.schema.primary_key or version.schema.uniques:
            if version.schema.primary_key:
                version = self._lock_new_keys(ctx, version, rows, stmt.on_conflict is not None)
            if version.schema.uniques:
                version = uniques.lock_new_keys(self, ctx, version, rows, stmt.on_conflict is not None)
            rows, updated_rowids, update_rows, order = self._resolve_conflicts(ctx, version, rows, stmt,
                                                                               conflict_params, before_update)
            # (an arbiter other than the primary key: the primary key is checked as a UNIQUE is)
            primary_key = stmt.on_conflict is not None and bool(version.schema.primary_key) and all(
                a.columns != version.schema.primary_key
                for a in uniques.arbiters(version.schema, version.name, stmt.on_conflict))
            if version.schema.uniques or primary_key:
                uniques.check_new_rows(self, ctx, version, rows, primary_key)
            if update_rows is not None:
                uniques.check_upserted(version, rows, update_rows, _upsert_assigned(version, stmt, before_update))
        new = self._apply(version, None, rows, upsert=stmt.on_conflict is not None)
        if updated_rowids is not None and len(updated_rowids):
            rowids = updated_rowids.to_numpy()
            kept = not _sets_key(version.schema, _upsert_assigned(version, stmt, before_update)) and \
                bool((rowids >> 32 > 0).all())
            new = self._apply(new, updated_rowids, update_rows, sources=rowids, same_keys=kept)
            # (in the order of the rows proposed, as PostgreSQL's RETURNING gives them)
            rows, update_rows = _arrow(rows), _arrow(update_rows)
            if mark_updated:
                rows = rows.append_column(_UPDATED, pa.nulls(rows.num_rows, pa.int64()))
                update_rows = update_rows.append_column(_UPDATED, pa.array(rowids, pa.int64()))
            rows = pa.concat_tables([rows, update_rows]).take(np.argsort(order(rowids), kind="stable"))
        self._write(ctx, version, new, check_ssi)
        return rows

    def _target_columns(self, schema: TableSchema, stmt: st.Insert) -> list[str]:
        if stmt.columns is None:
            return schema.names
        seen = set()
        for name in stmt.columns:
            assignable(schema, name, stmt.table.name)
            if name in seen:
                raise errors.DuplicateColumn(f'column "{name}" specified more than once')
            seen.add(name)
        return list(stmt.columns)

    def _insert_rows(self, ctx, schema, columns, stmt, params, register) -> pa.Table:
        """The rows an INSERT (of VALUES) adds, built by DuckDB."""
        if isinstance(stmt.source, exp.Values) and not any(True for _ in stmt.source.find_all(exp.Table)):
            # keyed by the schema itself (types, defaults), not its id: a table dropped and
            # re-created under the same name starts again at schema id 0
            sql = self._statement_memo(stmt, ("insert", schema, tuple(columns)),
                                   lambda: self._insert_sql(ctx, schema, columns, stmt, register))
            return self._conform(self._sql(sql, params), schema)
        return self._conform(self._sql(self._insert_sql(ctx, schema, columns, stmt, register, params), params), schema)

    def instant_ms(self, value: exp.Expression) -> int | None:
        """A point in time written in SQL, as Unix milliseconds: a timestamp with a time zone, or
        a string with an offset or zone ('2026-11-01 12:00:00+02'), is that instant; one without
        is UTC (DuckDB's cast to TIMESTAMP dropped an offset: +02:00 read as UTC)."""
        got = self._sql(f"SELECT {value.sql(dialect='duckdb')}").column(0)[0].as_py()
        if isinstance(got, str):
            to = "TIMESTAMPTZ" if _ZONED.search(got) else "TIMESTAMP"
            got = self._sql(f"SELECT CAST(? AS {to})", [got]).column(0)[0].as_py()
        if got is None:
            return None
        if type(got) is datetime.date:
            got = datetime.datetime.combine(got, datetime.time())
        if not isinstance(got, datetime.datetime):
            raise errors.DatatypeMismatch(f"a point in time was expected, not {got!r}")
        aware = got if got.tzinfo is not None else got.replace(tzinfo=datetime.timezone.utc)
        return (aware - _EPOCH) // datetime.timedelta(milliseconds=1)

    def time_zone(self) -> str:
        """DuckDB's TimeZone setting: the session's (``SET TIME ZONE``), at first the process's."""
        return self._sql("SELECT current_setting('TimeZone')").column(0)[0].as_py()

    def default_time_zone(self) -> str:
        """The zone the session began with, which RESET TIME ZONE goes back to."""
        return self._default_tz or self.time_zone()

    def set_time_zone(self, name: str | None) -> None:
        """``SET TIME ZONE name``; None: back to the zone the session began with."""
        if self._default_tz is None:
            self._default_tz = self.time_zone()
        name = name if name is not None else self._default_tz
        try:
            self.con.execute("SET TimeZone = ?", [name])
        except duckdb.Error:
            raise errors.InvalidParameterValue(f'invalid value for parameter "TimeZone": "{name}"') from None
        self._tz = points.FALLBACK  # (the tzinfo of the zone, looked up again)
        self.zoned = self.time_zone() != self._default_tz

    def _time_zone(self):
        """DuckDB's TimeZone setting as a tzinfo: CAST(CURRENT_TIMESTAMP AS TIMESTAMP) is the
        wall-clock time there."""
        if self._tz is points.FALLBACK:
            name = self.time_zone()
            try:
                self._tz = zoneinfo.ZoneInfo(name)
            except (zoneinfo.ZoneInfoNotFoundError, ValueError):
                self._tz = None
        return self._tz

    def _insert_sql(self, ctx, schema, columns, stmt, register, params=()) -> str:
        """SELECT <the row values, cast to the table's columns> FROM <the INSERT's source>; it
        takes the statement's source parameters."""
        if stmt.source is None:  # DEFAULT VALUES
            width, source = 0, exp.select("1")
        elif isinstance(stmt.source, exp.Values):
            width = len(stmt.source.expressions[0].expressions)
            source = _fill_defaults(self._rewrite(ctx, stmt.source, register),
                                    [schema.column(name) for name in columns])
        else:
            source = self._rewrite(ctx, stmt.source, register)
            width = len(self._columns_of(source.sql(dialect="duckdb"), params))
        # (VALUES: each row's value for a GENERATED ALWAYS column was checked to be DEFAULT)
        projections = insert_projections(schema, columns, width, stmt.columns is not None,
                                         always_given=isinstance(stmt.source, exp.Values),
                                         overriding=stmt.overriding, inet_sources=network.inet_sources(ctx, stmt.source)
                                         if "CIDR" in schema.network_columns.values() else ())
        alias = f"__src({', '.join(f'c{i}' for i in range(width))})" if width else "__src"
        return f"SELECT {', '.join(projections)} FROM ({source.sql(dialect='duckdb')}) AS {alias}"

    @staticmethod
    def _conform(data: pa.Table, schema: TableSchema) -> pa.Table:
        target = schema.arrow_schema()
        if data.schema.equals(target, check_metadata=True):  # (a column held as text keeps its mark: ColumnType.field)
            return data
        for i, field in enumerate(data.schema):  # a time with a zone into a TIMESTAMP: its wall time
            if pa.types.is_timestamp(field.type) and field.type.tz and pa.types.is_timestamp(target.field(i).type) \
                    and not target.field(i).type.tz:  # there (DuckDB's zone: the session's), as an INSERT casts it
                data = data.set_column(i, field.name, pc.local_timestamp(data.column(i)))
        data = data.rename_columns(target.names).cast(target)
        return pa.Table.from_arrays(data.columns, schema=target)

    def _check_rows(self, version: TableVersion, rows: pa.Table | PythonRows, only=None,
                    checks_done: bool = False) -> pa.Table | PythonRows:
        """NOT NULL and VARCHAR(n) on rows about to be written; ``only``: of those columns (an
        UPDATE's others keep values the table already holds, which met them); then the table's
        CHECKs, unless ``checks_done`` (engine/checks.py: the rows' query computed their
        generated columns too). First the generated columns are computed (engine/generated.py).
        Returns the rows to write: VARCHAR(n) values longer than n by spaces alone cut to n
        (``fit_varchar``)."""
        if version.schema.generated and not checks_done:
            rows = generated.computed(self, version.name, version.schema, rows)
            if only is not None:
                only = {*only, *(c.name for c in version.schema.generated)}
        python = isinstance(rows, PythonRows)
        for i, col in enumerate(version.schema.columns):
            if only is not None and col.name not in only:
                continue
            values = rows.columns[i] if python else rows.column(col.name)
            if col.not_null and (None in values if python else values.null_count):
                raise errors.NotNullViolation(
                    f'null value in column "{col.name}" of relation "{version.name}" violates not-null constraint')
            if len(values):
                fitted = fit_type(col.type, values)
                if fitted is not None and python:
                    rows = PythonRows(rows.schema, [fitted if j == i else c for j, c in enumerate(rows.columns)])
                elif fitted is not None:
                    rows = rows.set_column(rows.schema.get_field_index(col.name), rows.schema.field(col.name), fitted)
            if not python and col.type.kind in _PYTHON_RANGES and len(values) > values.null_count:
                _check_python_range(col, values)
        if version.schema.enforced_checks and not checks_done:  # (the whole new row: an UPDATE's too, as PostgreSQL)
            checks.enforce(self, version, rows)
        return rows

    def _duplicate(self, version: TableVersion, key) -> errors.UniqueViolation:
        names = version.schema.primary_key
        text = key_text(key)
        return errors.UniqueViolation(
            f'duplicate key value violates unique constraint "{version.schema.pkey_name(version.name)}"\n'
            f"DETAIL:  Key ({', '.join(names)})=({text}) already exists.")

    def _key_taken(self, ctx: Context, version: TableVersion, key, error: errors.Error | None = None) -> errors.Error:
        """The error for a new key another row holds: 23505 - unless a transaction committed
        since this one's view changed a row this one changed (another process's: no row lock
        held either back). Then this one's COMMIT could only fail, and in PostgreSQL its write
        would have waited for that one and failed (or, at READ COMMITTED, found the row gone)
        before it came to the key: 40001, which a retry gets past, not a 23505 of a key the
        retry does not write."""
        latest = self.db.warehouse.refresh()
        for tid, work in ctx.txn.changes.items():
            base, newest = ctx.txn.bases.get(tid), latest.by_id(tid)
            if work is not None and base is not None and newest is not None and newest is not base:
                TableDelta(tid, base, work).check_conflicts(newest)  # (40001 if they clash)
        return error or self._duplicate(version, key)

    def _resolve_conflicts(self, ctx, version, rows, stmt, params, before_update=None):
        """Split new rows by primary-key (and unique) conflicts; apply ON CONFLICT. Returns (rows
        to insert, row ids to update, their new rows, the positions among the proposed rows of
        the rows inserted and then of those updated - given the ids updated). ON CONFLICT's
        arbiters: the constraint it names (its columns' or by name), or with DO NOTHING and no
        target every one; other unique constraints are checked on the rows inserted after."""
        conflict = stmt.on_conflict
        arbiters = uniques.arbiters(version.schema, version.name, conflict) if conflict is not None else ()
        if len(arbiters) > 1 or (arbiters and arbiters[0].columns != version.schema.primary_key):
            if conflict.do_nothing:
                return self._skip_conflicts(version, rows, arbiters), None, None, None
            arbiter = arbiters[0]
            key_names = arbiter.columns
            keys = uniques.keys_of(rows, arbiter)
            existing = pk.find(self.store, version, [k for k in keys if k is not None], names=key_names)
        else:
            if conflict is None and not version.schema.primary_key:
                return rows, None, None, None
            key_names = version.schema.primary_key
            keys = pk.key_tuples(rows, key_names)
            existing = pk.find(self.store, version, keys)
        first: dict = {}
        duplicates = []
        for i, k in enumerate(keys):
            if k is None:  # (a NULL in a unique key: no conflict)
                continue
            if k in first:
                duplicates.append(i)
            else:
                first[k] = i
        if conflict is None:
            if duplicates:
                raise self._duplicate(version, keys[duplicates[0]])
            if existing:
                raise self._key_taken(ctx, version, next(iter(existing)))
            return rows, None, None, None
        rows = _arrow(rows)
        if conflict.do_nothing:
            keep = [i for i, k in enumerate(keys) if k is None or (k not in existing and first[k] == i)]
            return rows.take(pa.array(keep, pa.int64())), None, None, None
        if duplicates:
            raise errors.CardinalityViolation(
                "ON CONFLICT DO UPDATE command cannot affect row a second time")
        insert_idx = [i for i, k in enumerate(keys) if k is None or k not in existing]
        clash_idx = [i for i, k in enumerate(keys) if k is not None and k in existing]
        if not clash_idx:
            # DO UPDATE's SET and WHERE run over no row, once per statement (and table shape):
            # PostgreSQL refuses a mistake in them (an unknown column or table) at once, not at
            # the first conflict, which may come in production
            self._statement_memo(stmt, ("conflict-checked", version.schema), lambda: self._conflict_update(
                ctx, version, stmt, rows.slice(0, 0), pa.array([], pa.int64()), params) and "checked")
            return rows, None, None, None
        clashing = rows.take(pa.array(clash_idx, pa.int64()))
        clash_ids = pa.array([existing[keys[i]] for i in clash_idx], pa.int64())
        latest = self.db.warehouse.latest.by_id(version.table_id)
        if latest is not None and any(_changed_since(r, version, latest) for r in clash_ids.to_pylist()):
            raise errors.SerializationFailure("could not serialize access due to concurrent update")
        updated = self._conflict_update(ctx, version, stmt, clashing, clash_ids, params, before_update)
        position = dict(zip(clash_ids.to_pylist(), clash_idx))  # (DO UPDATE's WHERE may leave some out)
        return rows.take(pa.array(insert_idx, pa.int64())), updated[0], updated[1], \
            lambda updated_ids: insert_idx + [position[r] for r in updated_ids.tolist()]

    def _skip_conflicts(self, version, rows, arbiters) -> pa.Table:
        """ON CONFLICT DO NOTHING over several arbiters (no target: every unique constraint):
        the rows, in order, that clash with no live row nor an earlier row kept, on any."""
        keyed = [(uniques.keys_of(rows, u), u) for u in arbiters]
        existing = [pk.find(self.store, version, [k for k in keys if k is not None], names=u.columns)
                    for keys, u in keyed]
        seen = [set() for _ in arbiters]
        keep = []
        for i in range(rows.num_rows):
            row_keys = [keys[i] for keys, _ in keyed]
            if any(k is not None and (k in found or k in taken)
                   for k, found, taken in zip(row_keys, existing, seen)):
                continue
            keep.append(i)
            for k, taken in zip(row_keys, seen):
                taken.add(k)
        return _arrow(rows).take(pa.array(keep, pa.int64()))

    def _conflict_update(self, ctx, version, stmt, clashing, clash_ids, params, before_update=None):
        conflict = stmt.on_conflict
        alias = stmt.alias or stmt.table.name
        assigned = dict(conflict.assignments)
        for name in assigned:
            assignable(version.schema, name, alias)
        if version.schema.generated:
            assigned = _assigning_generated(version.schema, assigned, alias)
        plan = self._statement_memo(stmt, ("conflict-plan",), lambda: points.conflict_plan(conflict, alias))
        new_rows = points.conflict_values(self, version, plan, clashing, clash_ids, params) \
            if plan is not None and clashing.num_rows else None  # (no row: DuckDB checks the SQL)
        if new_rows is not None:
            return self._conflict_updated(ctx, version, clash_ids, new_rows, assigned, before_update, only=assigned)
        ctx = ctx.targeting(alias, version, "excluded")
        with self._registered() as register:
            # (only the conflicting rows: found by the key index, not by reading the table)
            target = register(self._rows_by_id(version, clash_ids.to_pylist()))
            excluded = register(sources.typed(clashing, version.schema).append_column(ROWID, clash_ids))
            projections = [f'"{alias}".{ROWID}']
            for col in _set_order(version.schema, assigned):  # DuckDB binds ? in text order
                value = _default_value(col) if col.name in conflict.defaults else assigned.get(col.name)
                value_sql = (self._rewrite(ctx, value, register).sql(dialect="duckdb")
                             if value is not None else f'"{alias}"."{col.name}"')
                projections.append(f'{_cast_sql(value_sql, col.type)} AS "{col.name}"')
            where = f" WHERE {self._rewrite(ctx, conflict.where, register).sql(dialect='duckdb')}" \
                if conflict.where is not None else ""
            sql = (f"SELECT {', '.join(projections)} FROM {target} AS \"{alias}\" "
                   f"JOIN {excluded} AS excluded ON \"{alias}\".{ROWID} = excluded.{ROWID}{where}")
            result = self._sql(sql, params)
        new_rows = self._conform(result.select(version.schema.names), version.schema)
        return self._conflict_updated(ctx, version, result.column(ROWID), new_rows, assigned, before_update)

    def _conflict_updated(self, ctx, version, rowids, new_rows, assigned, before_update, only=None):
        """DO UPDATE's new rows for the rows ``rowids``, which set the columns ``assigned``:
        through the BEFORE UPDATE row triggers (``before_update``; they may change any column, or
        skip a row), then checked (NOT NULL, CHECK - ``only`` those columns, where no trigger ran)
        and their keys."""
        if before_update is not None:
            rowids, new_rows = before_update(rowids, new_rows)
            if before_update.changes_rows:
                assigned, only = dict.fromkeys(version.schema.names), None
        new_rows = self._check_rows(version, new_rows, only)
        self._check_updated_keys(ctx, version, np.asarray(rowids.to_numpy(zero_copy_only=False)), new_rows, assigned)
        return rowids, new_rows

    # --- UPDATE / DELETE -----------------------------------------------------------------

    def update(self, ctx: Context, stmt: st.Update, params) -> Result:
        _check_named_schemas(ctx, stmt.named_schemas, stmt.table)
        version = self._writable(ctx, stmt.table)
        if version.schema.partitioning is not None:  # (of each partition; a key set: the rows move)
            from txlake.engine import partitions  # (it builds on this module)
            if partitions.sets_key(ctx, version, [n for n, _ in stmt.assignments]):
                return partitions.moving_update(self, ctx, stmt, version, params)
            return partitions.each_leaf(self, ctx, version, stmt, params, Executor.update)
        alias = stmt.alias or stmt.table.name
        ctx = ctx.targeting(alias, version)
        prologue = None if ctx.system_columns else self._point_update_prologue(stmt, version.schema, alias)
        if prologue is not None:  # (a point UPDATE, its checks against this schema passed before)
            point, body = prologue[0], len(params) - prologue[1]
            done = points.update(self, ctx, stmt, version, alias, point, params[:body], params[body:])
            if done is not None:
                return done
        assigned = dict(stmt.assignments)
        for name in assigned:
            assignable(version.schema, name, stmt.table.name)
        _refuse_identity_updates(version.schema, assigned, stmt.defaults)
        for name in stmt.defaults:  # SET c = DEFAULT: the column's default, or NULL
            assigned[name] = _default_value(version.schema.column(name))
        if version.schema.generated:
            generated.refuse_updates(version.schema, assigned, stmt.defaults)
            assigned = _assigning_generated(version.schema, assigned, alias)
        body = len(params) - _placeholders(*stmt.returning)  # RETURNING's ? come last in the text
        params, returning_params = params[:body], params[body:]
        fired = bool(version.schema.triggers) and triggers.fires(version.schema, "UPDATE")
        point = None if stmt.defaults or version.schema.generated or ctx.system_columns or fired else \
            self._statement_memo(stmt, ("point-update",), lambda: points.update_plan(stmt, alias))
        if point is not None and prologue is None:
            done = points.update(self, ctx, stmt, version, alias, point, params, returning_params)
            if done is not None:
                return done
        if stmt.locking:
            return self._locking_subqueries_run(ctx, stmt, (*params, *returning_params), self.update)
        if fired:
            triggers.refuse_system_columns(ctx, version, stmt.returning)
            triggers.statement(self, ctx, version, "UPDATE", "BEFORE", assigned)
        offset = _placeholders(*assigned.values(), *stmt.from_)

        def select(target: exp.Table, register) -> exp.Select:
            projections = [exp.column(ROWID, alias)] + _old_key_columns(version.schema, alias)
            for col in _set_order(version.schema, assigned):  # DuckDB binds ? in text order
                value = assigned.get(col.name)
                value = self._rewrite(ctx, value, register) if value is not None else exp.column(col.name, alias)
                value = exp.Anonymous(this=network.TO_CIDR, expressions=[value]) if col.type.kind == "CIDR" and \
                    network.is_inet(value, version.schema.network_columns) else _cast(value, col.type)
                projections.append(exp.alias_(value, col.name, quoted=True))
            projections += _source_rows(stmt.from_, stmt.returning)
            return self._row_finder(ctx, target, projections, stmt.from_, stmt.where, register)

        def find(candidates: pa.Table | StreamedScan) -> pa.Table:
            """Matching rows among ``candidates``: row id, old key, new values."""
            return self._find_rows(ctx, stmt, version, alias, candidates, select, params,
                                   [stmt.where, *assigned.values(), *stmt.from_], bool(stmt.from_))

        if point is not None:  # (rows by a key, SETs of its forms: found and computed in Python)
            find = points.finder(self, version, alias, point.where, point.conjuncts, params, point.set_params,
                                 point.assignments, find)

        self._read(ctx, version, alias, stmt.where if not stmt.from_ else None, params, offset)
        if ctx.txn.isolation == SERIALIZABLE:
            self._read_tables(ctx, stmt, lambda: [*stmt.from_, stmt.where, *assigned.values()])
        result = find(self._candidates(version, alias, stmt.where, params, offset))
        result, version = self._lock_rows(ctx, version, result, find)
        result = in_row_order(result)
        changes = triggers.RowChanges(self, ctx, version, "UPDATE", assigned) if fired else None
        named = assigned  # (the columns the SET names: which UPDATE OF triggers fire)
        if changes is not None:  # (the BEFORE ROW triggers' rows, the old ones for the AFTER ROW ones)
            result, old_rows, new_rows = changes.before_found(stmt.table, result)
            if changes.any("BEFORE"):  # (they may change any column: its keys and foreign keys checked as set)
                assigned, named = dict.fromkeys(version.schema.names), assigned
        else:
            new_rows = self._conform(result.select(version.schema.names), version.schema)
        rowids = result.column(ROWID).to_numpy(zero_copy_only=False)
        if fired:  # (written over the table as its triggers left it: they may write to it)
            version = triggers.written_over(ctx, stmt.table, version, rowids, "UPDATE")
        new_rows = self._check_rows(version, new_rows)
        self._check_updated_keys(ctx, version, rowids, new_rows, assigned)
        if len(rowids):
            kept = not _sets_key(version.schema, assigned) and bool((rowids >> 32 > 0).all())
            self._write(ctx, version, self._apply(version, rowids, new_rows, sources=rowids, same_keys=kept),
                        assigned=assigned)
        if changes is not None:
            changes.after(old_rows, _arrow(new_rows))
            triggers.statement(self, ctx, version, "UPDATE", "AFTER", named, old_rows, _arrow(new_rows))
        returned = system_columns.in_returning(stmt.returning) if ctx.system_columns else None
        if returned:
            new_rows = system_columns.returned(self, ctx, version, _arrow(new_rows), returned)
        out = self._returning(stmt.returning, new_rows, version.schema, alias, returning_params,
                              _source_tables(stmt.from_, result), system=bool(returned), ctx=ctx)
        out.status = f"UPDATE {len(rowids)}"
        return out

    def delete(self, ctx: Context, stmt: st.Delete, params) -> Result:
        if stmt.locking:
            return self._locking_subqueries_run(ctx, stmt, params, self.delete)
        _check_named_schemas(ctx, stmt.named_schemas, stmt.table)
        version = self._writable(ctx, stmt.table)
        if version.schema.partitioning is not None:  # (of each partition)
            from txlake.engine import partitions  # (it builds on this module)
            return partitions.each_leaf(self, ctx, version, stmt, params, Executor.delete)
        alias = stmt.alias or stmt.table.name
        ctx = ctx.targeting(alias, version)
        body = len(params) - _placeholders(*stmt.returning)  # RETURNING's ? come last in the text
        params, returning_params = params[:body], params[body:]
        offset = _placeholders(*stmt.using)
        fired = bool(version.schema.triggers) and not self.truncating and triggers.fires(version.schema, "DELETE")
        if fired:
            triggers.refuse_system_columns(ctx, version, stmt.returning)
            triggers.statement(self, ctx, version, "DELETE", "BEFORE")
        point = None if ctx.system_columns or fired else \
            self._statement_memo(stmt, ("point-delete",), lambda: points.delete_plan(stmt))
        if point is not None:
            done = points.delete(self, ctx, stmt, version, alias, point, params, returning_params)
            if done is not None:
                return done

        def select(target: exp.Table, register) -> exp.Select:
            projections = [exp.column(ROWID, alias)] + _old_key_columns(version.schema, alias)
            if stmt.returning:  # only RETURNING needs the deleted rows' values
                projections += [exp.column(c, alias) for c in version.schema.names]
            projections += _source_rows(stmt.using, stmt.returning)
            return self._row_finder(ctx, target, projections, stmt.using, stmt.where, register)

        def find(candidates: pa.Table | StreamedScan) -> pa.Table:
            """Matching rows among ``candidates``: row id, old key, old values if RETURNING."""
            return self._find_rows(ctx, stmt, version, alias, candidates, select, params,
                                   [stmt.where, *stmt.using], bool(stmt.using))

        if point is not None:  # (rows by a key: found in Python)
            find = points.finder(self, version, alias, stmt.where, point, params, 0, None, find,
                                 bool(stmt.returning))

        self._read(ctx, version, alias, stmt.where if not stmt.using else None, params, offset)
        if ctx.txn.isolation == SERIALIZABLE:
            self._read_tables(ctx, stmt, lambda: [*stmt.using, stmt.where])
        result = find(self._candidates(version, alias, stmt.where, params, offset))
        result, version = self._lock_rows(ctx, version, result, find)
        changes = triggers.RowChanges(self, ctx, version, "DELETE") if fired else None
        if changes is not None:  # (the BEFORE ROW triggers' verdicts, the old rows for the AFTER ROW ones)
            result, old_rows, _ = changes.before_found(stmt.table, result)
        rowids = result.column(ROWID).to_numpy(zero_copy_only=False)
        if changes is not None:  # (written over the table as its triggers left it: they may write to it)
            version = triggers.written_over(ctx, stmt.table, version, rowids, "DELETE")
        if len(rowids):
            self._write(ctx, version, self._apply(version, rowids, None))
        if changes is not None:
            changes.after(old_rows, None)
            triggers.statement(self, ctx, version, "DELETE", "AFTER", old=old_rows)
        if stmt.returning:
            returned = self._conform(result.select(version.schema.names), version.schema)
            if ctx.system_columns:
                with_rowids = returned.append_column(ROWID, result.column(ROWID))
                returned = system_columns.returned(self, ctx, version, with_rowids, ctx.system_columns, deleted=True)
            out = self._returning(stmt.returning, returned, version.schema, alias, returning_params,
                                  _source_tables(stmt.using, result), system=bool(ctx.system_columns), ctx=ctx)
        else:
            out = Result(rowcount=len(rowids))
        out.status = f"DELETE {len(rowids)}"
        return out

    def _locking_subqueries_run(self, ctx: Context, stmt: st.Update | st.Delete, params, write) -> Result:
        """An UPDATE / DELETE with a locking subquery in WHERE or FROM / USING - a job queue's
        ``UPDATE jobs SET state = 'running' WHERE id IN (SELECT id FROM jobs WHERE state = 'queued'
        ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING id``, or the same SELECT as a CTE
        named in FROM: each such SELECT runs first, as a SELECT ... FOR UPDATE does (its rows
        locked, others' skipped or waited for, READ COMMITTED re-checks), and ``write`` then
        runs the statement with the rows it returned in its place - as PostgreSQL runs an
        uncorrelated subquery once, before the rows it feeds are changed. The write's own row
        locks are then this transaction's already."""
        template, queries = self._statement_memo(stmt, ("locking-subqueries",), lambda: _locking_subqueries(stmt))
        taken = [self.query(ctx, query, [params[i] for i in at]).table for query, at in queries]
        locked = frozenset(ctx.resolve(self._locking_plan(query).table).table_id for query, _ in queries)
        consumed = {i for _, at in queries for i in at}

        def filled(node: exp.Expression) -> exp.Expression:
            at = node.meta.get(_LOCKED) if isinstance(node, exp.Select) else None
            return node if at is None else _rows_as_select(taken[at])

        parts = {name: _map_parts(value, lambda part: part.copy().transform(filled))
                 for name, value in template.items()}
        rest = tuple(p for i, p in enumerate(params) if i not in consumed)
        return write(replace(ctx, subquery_locked=locked), replace(stmt, locking=False, **parts), rest)

    def truncate(self, ctx: Context, stmt: st.Truncate, params) -> Result:
        """``TRUNCATE a, b``: a DELETE of every row of each, so it is transactional, waits for
        and conflicts with writers of the rows as a DELETE does (PostgreSQL's lock of the whole
        table would also hold back inserts). Every table is found before any is emptied."""
        if ctx.txn.read_only:
            raise errors.ReadOnlyTransaction("cannot execute TRUNCATE TABLE in a read-only transaction")
        versions = [ctx.resolve(name) for name in stmt.tables]
        for version in versions:
            if not version.is_table or version.is_matview:
                raise errors.WrongObjectType(f'"{version.name}" is not a table')
        versions, notices = foreign_keys.truncated(self, ctx, versions, stmt.cascade)
        for version in versions:
            if version.schema.triggers:
                triggers.statement(self, ctx, version, "TRUNCATE", "BEFORE")
        self.fk_emptied = {v.table_id for v in versions}  # (no key of theirs followed into another)
        self.truncating = True  # (which fires TRUNCATE triggers, not DELETE ones)
        try:
            for version in versions:
                self.delete(ctx, st.Delete(table=st.TableName(version.db, version.name)), ())
        finally:
            self.fk_emptied, self.truncating = (), False
        for version in versions:
            if version.schema.triggers:
                triggers.statement(self, ctx, version, "TRUNCATE", "AFTER")
        if stmt.restart_identity:  # (each owned sequence replaced by a new one: a ROLLBACK brings the old back)
            from txlake.engine import sequence_ddl  # (it builds on this module)
            for version in versions:
                for col in version.schema.columns:
                    named = sequence_of(col.default)
                    if named and not sequence_ddl.restart_owned(self, ctx, version, col) \
                            and ctx.txn.table(ctx.catalog, *sequence_key(named, version.db)) is None:
                        # (a sequence from before sequences were catalog entries is not transactional)
                        raise errors.NotSupportedError(
                            f'TRUNCATE ... RESTART IDENTITY of "{version.name}", whose SERIAL column\'s sequence '
                            "predates transactional sequences, is not supported: TRUNCATE, then setval()")
        return Result(status="TRUNCATE TABLE", notice="\n".join(notices) or None)

    def _find_rows(self, ctx, stmt, version, alias, candidates, select, params, parts, joined) -> pa.Table:
        """Run an UPDATE/DELETE row finder over ``candidates``. A statement whose only table is
        its target has its SQL generated once (per table shape) and reused."""
        if not ctx.system_columns and not any(True for p in parts if p is not None for _ in p.find_all(exp.Table)):
            sql = self._statement_memo(stmt, ("find", version.table_id, version.schema.schema_id),
                                   lambda: select(_aliased(TARGET, alias), None).sql(dialect="duckdb"))
            detach = self._attach(TARGET, candidates)
            try:
                found = self._sql(sql, params)
            finally:
                self._detach([detach])
            # (FROM (VALUES ...) or a subquery of no table joins too: a target row matched
            # twice must still change once)
            return _first_per_rowid(found) if joined else found
        with self._registered() as register:
            target = _aliased(register(candidates), alias) if not ctx.system_columns else system_columns.relation(
                self, ctx, version, register(candidates), exp.TableAlias(this=exp.to_identifier(alias)), register)
            finder = select(target, register)
            found = self._sql(system_columns.user_ctids(finder) if "ctid" in ctx.system_columns else finder, params)
        return _first_per_rowid(found) if joined else found

    # --- concurrent writers: row locks and re-checks -------------------------------------

    def _lock_rows(self, ctx: Context, version: TableVersion, found: pa.Table, find):
        """Lock every row an UPDATE/DELETE is about to change, waiting for running writers.

        Then, for each row some transaction changed and committed after this statement's
        snapshot: REPEATABLE READ / SERIALIZABLE fail with 40001 (first updater wins);
        READ COMMITTED re-finds the row's newest version by primary key and re-runs the
        statement's WHERE and SET on it (PostgreSQL's EvalPlanQual), skipping rows that were
        deleted or no longer match. Returns the rows to change and the version to change them in.
        """
        if not found.num_rows:
            return found, version
        keys = self._row_lock_keys(version, found)
        self._lock(ctx, version.table_id, [key for key in keys if key is not None])
        return self._recheck_locked(ctx, version, found, keys, find)

    def _recheck_locked(self, ctx: Context, version: TableVersion, found: pa.Table, keys: list, find):
        """``_lock_rows`` once the rows ``found`` (their lock ``keys``) are locked: the rows to
        change and the version to change them in."""
        rowids = found.column(ROWID).to_numpy(zero_copy_only=False)
        if version.schema.uniques:
            uniques.lock_old_keys(self, ctx, version, rowids)
        self._refuse_prepared_rows(ctx, version, rowids)
        version, changed = self._moved_on(ctx, version, rowids)
        if not changed:
            return found, version
        return self._reevaluated(ctx, version, found, keys, find, changed)

    def _reevaluated(self, ctx: Context, version: TableVersion, found: pa.Table, keys: list, find,
                     changed: list[int]) -> tuple[pa.Table, TableVersion]:
        """READ COMMITTED, once ``_moved_on`` moved to ``version`` (the newest committed one):
        the rows ``found`` (of the version before, their lock ``keys``) with those at the
        indexes ``changed`` followed to their newest versions - by key, or along the update
        chain where the key changed too - and re-checked by ``find``; and the version."""
        rowids = found.column(ROWID).to_numpy(zero_copy_only=False)
        if version.schema.primary_key:
            old_keys = [keys[i][2] for i in changed]
            by_key = pk.find(self.store, version, old_keys)
            gone = [i for i in changed if keys[i][2] not in by_key]  # deleted, or its key was updated
            if gone:
                newest, version = self._newest_keyed_rows(ctx, version, gone, rowids, old_keys, by_key)
            else:
                newest = list(by_key.values())
        else:
            newest = []
            for i in changed:  # (a wait on the way moves the transaction's view on: the version goes with it)
                rowid, version = self._newest_row(ctx, version, int(rowids[i]))
                if rowid is not None:
                    newest.append(rowid)
            newest = _relocated_ids(newest, version)
        # the rows no one changed are the same rows in the newest version, but a compaction
        # committed since may have moved them: their ids must be that version's, or the
        # statement would delete them where they no longer are and leave the moved copies live
        unchanged = _relocated(found.take(pa.array(sorted(set(range(len(rowids))) - set(changed)), pa.int64())),
                               version)
        if not newest:
            return unchanged, version
        rechecked = find(self._rows_by_id(version, newest)).select(unchanged.column_names)
        if rechecked.schema != unchanged.schema:  # (found by DuckDB once, in Python the other time)
            rechecked = rechecked.cast(unchanged.schema)
        return pa.concat_tables([unchanged, rechecked]), version

    def _refuse_prepared_rows(self, ctx: Context, version: TableVersion, rowids) -> None:
        """A row an unfinished prepared transaction deletes or updates cannot be locked: 40001
        now (55P03 for NOWAIT), as its commit would get - where PostgreSQL, whose prepared
        transactions keep their row locks, makes the writer wait (docs/storage.md)."""
        claims = self.db.warehouse.prepared.claims()
        if not any(c.table_id == version.table_id and c.deleted for r in claims for c in r.changes):
            return
        holder = _held_by_prepared(claims, version, {int(r) for r in rowids if r >= 0})
        if holder is None:
            return
        if ctx.lock_timeout == NOWAIT:
            raise errors.LockNotAvailable("canceling statement due to lock timeout")
        raise errors.SerializationFailure(
            f'could not serialize access: the rows are held by prepared transaction "{holder.gid}"')

    def _moved_on(self, ctx: Context, version: TableVersion, rowids) -> tuple[TableVersion, list[int]]:
        """After locking rows of ``version``: the indexes of those of ``rowids`` that some
        transaction changed and committed since this statement's snapshot, and the version to
        go on in. REPEATABLE READ / SERIALIZABLE fail with 40001 on any (first updater wins);
        READ COMMITTED moves the transaction's view of the table to the newest committed
        version, where the caller re-finds the changed rows by key - unless a locking subquery
        of the statement locked the table's rows (and re-checked them): a change since is
        another process's, which PostgreSQL's row lock would have held back, and the re-check
        would take the row from it (a job claimed twice): 40001 too."""
        txn = ctx.txn
        latest = self.db.warehouse.refresh().by_id(version.table_id)
        if latest is self._base_of(txn, version):
            return version, []
        if latest is None:
            if is_temp(version):  # (the session's own: no other transaction has it)
                return version, []
            raise errors.SerializationFailure(
                f'could not serialize access: relation "{version.name}" was dropped concurrently')
        changed = [i for i, r in enumerate(rowids) if _changed_since(r, version, latest)]
        if not changed:
            return version, []
        if txn.uses_transaction_snapshot or version.table_id in ctx.subquery_locked:
            raise errors.SerializationFailure("could not serialize access due to concurrent update")
        return txn.rebase(version.table_id, version, latest), changed

    def _lock(self, ctx: Context, table_id: str, keys: list[tuple]) -> None:
        """Lock rows or keys of a table; a statement locking more than ``BULK_LOCKS`` locks
        the whole table instead (lock escalation, engine/mvcc/locks.py)."""
        if len(keys) > BULK_LOCKS:
            self.db.locks.acquire(ctx.txn, (table_id, TABLE), ctx.lock_wait)
            return
        for key in keys:
            self.db.locks.acquire(ctx.txn, key, ctx.lock_wait)

    def _lock_new_keys(self, ctx: Context, version: TableVersion, rows: pa.Table | PythonRows,
                       on_conflict: bool) -> TableVersion:
        """Lock the primary keys an INSERT writes, as a unique index does: a concurrent
        inserter of the same key waits for this transaction, and vice versa. Keys are unique
        over the newest committed state, not just the snapshot: READ COMMITTED moves to it;
        REPEATABLE READ / SERIALIZABLE fail on a key committed since their snapshot (23505,
        or 40001 for ON CONFLICT, which could not see the conflicting row)."""
        keys = pk.key_tuples(rows, version.schema.primary_key)
        self._lock(ctx, version.table_id, [(version.table_id, "key", k) for k in keys])
        return self._keys_locked(ctx, version, [(keys, None, None)], on_conflict)

    def _keys_locked(self, ctx: Context, version: TableVersion, keyed, on_conflict: bool) -> TableVersion:
        """After an INSERT locked its new keys: READ COMMITTED moves to the newest committed
        state; REPEATABLE READ / SERIALIZABLE fail on a key committed since their snapshot.
        ``keyed``: (keys, their columns - None: the primary key's -, the 23505 of a key or None:
        the primary key's) for each kind of key."""
        txn = ctx.txn
        latest = self.db.warehouse.refresh().by_id(version.table_id)
        base = self._base_of(txn, version)
        if latest is None or latest is base or base is None:
            return version
        if not txn.uses_transaction_snapshot:
            return txn.rebase(version.table_id, version, latest)
        for keys, names, duplicate in keyed:
            hidden = self._keys_committed_since(ctx, version, keys, latest, names)
            if hidden:
                if on_conflict:
                    raise errors.SerializationFailure("could not serialize access due to concurrent update")
                key = next(iter(hidden))
                raise self._key_taken(ctx, version, key, duplicate(key) if duplicate is not None else None)
        return version

    def _keys_committed_since(self, ctx: Context, version: TableVersion, keys: list, latest, names=None) -> set:
        """Those of ``keys`` (locked) that ``version`` does not hold but the newest committed
        state (``latest``), with this transaction's own changes on it, does: committed since
        the transaction's view of the table was taken. ``names``: the keys' columns (by
        default the primary key's)."""
        base = self._base_of(ctx.txn, version)
        if latest is None or latest is base or base is None:
            return set()
        view = TableDelta(version.table_id, base, version).replay(latest) \
            if version.table_id in ctx.txn.changes else latest
        return set(pk.find(self.store, view, keys, names=names)) - set(pk.find(self.store, version, keys, names=names))

    def _newest_keyed_rows(self, ctx: Context, version: TableVersion, gone: list[int], rowids, old_keys: list,
                           by_key: dict) -> tuple[list[int], TableVersion]:
        """READ COMMITTED, a table with a primary key: the newest versions of the changed rows -
        found by their ``old_keys``, and those ``gone`` from them followed along their update
        chains (``_newest_row``, locking the new key), as PostgreSQL follows a row to its newest
        version whatever changed in it; a row deleted is no longer there. (Found by key alone, a
        row whose key another transaction updated meanwhile was skipped.) ``by_key``: the rows
        ``old_keys`` found in ``version``."""
        start, followed = version, []
        for i in gone:
            rowid, version = self._newest_row(ctx, version, int(rowids[i]))
            if rowid is not None:
                followed.append(rowid)
        if version is not start:  # (a wait on the way moved the view on: the keys found again there)
            by_key = pk.find(self.store, version, old_keys)
        return list(dict.fromkeys([*by_key.values(), *_relocated_ids(followed, version)])), version

    def _newest_row(self, ctx: Context, version: TableVersion, rowid: int) -> tuple[int | None, TableVersion]:
        """Follow a row's update chain (a table without a primary key, or a row whose key was
        updated) to its live version, locking it: (its row id, the version it is in -
        ``version``, or a newer one if the row changed again while this waited for its lock);
        None if the chain ends in a delete. Chains are this process's commits': a row another
        process may have changed is 40001."""
        while True:
            successor = self._successor(version, rowid)
            if successor is None:
                wh = self.db.warehouse
                if version.table_id in wh.foreign_writes(ctx.txn.snapshot.csn, wh.latest.csn):
                    # another process's update records no chain here: not to be taken for a delete
                    raise errors.SerializationFailure("could not serialize access due to concurrent update")
                return None, version
            where = version.locate(successor >> 32, successor & 0xFFFFFFFF)
            if where is None and version.lineage_lost(successor >> 32):
                raise errors.SerializationFailure("could not serialize access due to concurrent update")
            rowid = successor if where is None else (where[0] << 32) | where[1]
            if where is None or where[1] in version.deleted(where[0]):
                # updated again or deleted (a one-row file leaves with its row): keep following
                rowid = successor
                continue
            if not self.db.locks.acquire(ctx.txn, self._row_lock_key(version, rowid), ctx.lock_wait):
                return rowid, version
            latest = self.db.warehouse.refresh().by_id(version.table_id)
            if latest is None or not _changed_since(rowid, version, latest):
                return rowid, version
            version = ctx.txn.rebase(version.table_id, version, latest)  # changed while we waited: again

    def _successor(self, version: TableVersion, rowid: int) -> int | None:
        """The row that replaced ``rowid`` (an id of an older version than ``version``) in a
        committed UPDATE, if any. Its updater may have seen it moved by a compaction since:
        the chain is recorded from the id the updater saw it by."""
        for fid, pos in version.whereabouts(rowid >> 32, rowid & 0xFFFFFFFF):
            successor = self.db.successor(version.table_id, (fid << 32) | pos)
            if successor is not None:
                return successor
        return None

    def _row_lock_key(self, version: TableVersion, rowid: int) -> tuple:
        """The lock of row ``rowid``: its primary key's, or (a table without one) its id's."""
        names = version.schema.primary_key
        if names:
            return version.table_id, "key", pk.key_tuples(self._row_at(version, rowid).select(list(names)), names)[0]
        return version.table_id, "row", rowid

    def _row_lock_keys(self, version: TableVersion, found: pa.Table) -> list:
        tid = version.table_id
        if version.schema.primary_key:
            names = [f"__txl_old_{k}" for k in version.schema.primary_key]
            return [(tid, "key", k) for k in pk.key_tuples(found.select(names).rename_columns(
                list(version.schema.primary_key)), version.schema.primary_key)]
        return [(tid, "row", int(r)) if r >= 0 else None
                for r in found.column(ROWID).to_numpy(zero_copy_only=False)]

    def _rows_by_id(self, version: TableVersion, rowids: list[int]) -> pa.Table:
        """The rows ``rowids`` of ``version``, each with its row id (``indexes.rows_at``)."""
        return indexes.rows_at(self, version, rowids, True)

    def _row_values(self, version: TableVersion, rowid: int) -> dict:
        """The row ``rowid`` of ``version`` as a dict of Python values (``_row_at``'s one row,
        without slicing a table, or building one for rows held as Python values)."""
        f, pos = version.file(rowid >> 32), rowid & 0xFFFFFFFF
        rows = f.python_rows(version.schema)
        return rows.row(pos) if rows is not None else self.store.row(f, version.schema, pos)

    def _row_at(self, version: TableVersion, rowid: int) -> pa.Table:
        """The row ``rowid`` of ``version`` (deleted or not), as a one-row table."""
        return self.store.read(version.file(rowid >> 32), version.schema).slice(rowid & 0xFFFFFFFF, 1)

    @staticmethod
    def _base_of(txn: Transaction, version: TableVersion) -> TableVersion:
        """The committed version ``version`` (as this transaction sees it) is built on."""
        return txn.bases.get(version.table_id, version) if version.table_id in txn.changes else version

    def _read(self, ctx, version, alias, where, params, offset, key=None) -> None:
        """SERIALIZABLE: record what a statement read from one table, as narrowly as it can be
        described - its primary keys, its WHERE predicate, or the whole table (ssi.py).
        ``key``: the primary key ``where`` pins, if the caller has worked it out already."""
        txn = ctx.txn
        if txn.isolation != SERIALIZABLE:
            return
        ssi = self.db.ssi
        if where is None:
            ssi.read_table(txn, version.table_id)
            return
        if key is None:
            key = points.pinned_key(version.schema, alias, where, params, offset)
        if key is not None:
            ssi.read_keys(txn, version.table_id, [key])
        elif self.zoned or any(isinstance(n, (exp.Select, exp.Subquery)) for n in where.walk()) or \
                jsonb_order.names_jsonb(version.schema, where) or network.names_network(version.schema, where) or \
                (bound := _bind(where, params, offset, txn)) is None:
            # (SSI evaluates a predicate later, on its own connection in the process's time zone:
            # one whose answer may depend on the session's zone, or on when it is evaluated, or
            # that compares jsonb, inet or cidr columns - in their orders, which that connection
            # has not - counts as a read of the whole table)
            ssi.read_table(txn, version.table_id)
        else:
            ssi.read_predicate(txn, version.table_id, alias, bound)

    def _read_tables(self, ctx: Context, stmt: st.Statement, parts) -> None:
        """SERIALIZABLE (the caller checks): the tables a write statement reads besides its
        target's rows - FROM, USING, subqueries, INSERT's query - count as read whole (ssi.py),
        as a SELECT of them would: another transaction's write to one is then a read-write
        conflict. ``parts`` gives the statement's parts that may name them; their tables are
        worked out once."""
        for name in self._statement_memo(stmt, ("read-tables",), lambda: _tables_named(parts())):
            try:
                self.db.ssi.read_table(ctx.txn, ctx.resolve(name).table_id)
            except errors.UndefinedTable:
                pass  # (the statement reports it)

    def _read_query(self, ctx: Context, stmt: st.Query, params) -> None:
        """SERIALIZABLE: a single-table SELECT reads a predicate; anything else whole tables.
        Which, is worked out once per statement (``_read_plan``)."""
        if ctx.txn.isolation != SERIALIZABLE:
            return
        simple, tables = self._statement_memo(stmt, ("reads",), lambda: _read_plan(stmt.expression))
        if simple is not None:
            name, alias, where, offset = simple
            self._read(ctx, ctx.resolve(name), alias, where, params, offset)
            return
        for name in tables:
            self.db.ssi.read_table(ctx.txn, ctx.resolve(name).table_id)

    def _candidates(self, version: TableVersion, alias: str, where, params, offset: int) -> pa.Table | StreamedScan:
        """The rows an UPDATE/DELETE must look at: all of them, or - when the WHERE clause pins
        every primary-key column to a constant or parameter - just those found through the
        key index (or another key: an IN list, a UNIQUE constraint, an index - ``indexes.lookup``).
        The statement's full WHERE clause still runs over the candidates."""
        found = indexes.candidates(self, version, alias, where, params, offset)
        return found if found is not None else self._source(version, with_rowid=True)

    def _row_finder(self, ctx, target, projections, from_items, where, register) -> exp.Select:
        joins = []
        for item in from_items:
            item = self._rewrite(ctx, item, register)
            joins.append(item if isinstance(item, exp.Join) else exp.Join(this=item))
        select = exp.Select(expressions=projections, from_=exp.From(this=target), joins=joins)
        if where is not None:
            select.set("where", exp.Where(this=self._rewrite(ctx, where, register)))
        return select

    def _check_updated_keys(self, ctx, version, rowids, new_rows, assigned, sources=None) -> None:
        """An UPDATE's (or ON CONFLICT DO UPDATE's, MERGE's) new rows ``new_rows``, which
        replace the rows ``sources`` (by default ``rowids``: MERGE's ``rowids`` are also the
        rows it deletes), against the table's keys: 23505."""
        key_names = version.schema.primary_key
        if len(rowids) > 1 and (version.schema.uniques or _sets_key(version.schema, assigned)):
            uniques.check_row_by_row(self, version, rowids, rowids if sources is None else sources, new_rows,
                                     assigned)
        if version.schema.uniques and len(rowids):
            uniques.check_updated(self, ctx, version, rowids, new_rows, assigned)
        if not _sets_key(version.schema, assigned) or not len(rowids):
            return
        keys = pk.key_tuples(_arrow(new_rows), key_names)
        self._lock(ctx, version.table_id, [(version.table_id, "key", k) for k in keys])
        seen = set()
        for k in keys:
            if k in seen:
                raise self._duplicate(version, k)
            seen.add(k)
        remaining = self._apply(version, rowids, None)
        clash = pk.find(self.store, remaining, keys)
        if clash:
            raise self._key_taken(ctx, version, next(iter(clash)))
        # keys are unique over the newest committed state, not just the snapshot (as an
        # INSERT's, _lock_new_keys): a key committed since is 23505 now, not at COMMIT
        hidden = self._keys_committed_since(ctx, version, keys, self.db.warehouse.refresh().by_id(version.table_id))
        if hidden:
            raise self._key_taken(ctx, version, next(iter(hidden)))

    def _returning(self, returning, rows: pa.Table | PythonRows, schema: TableSchema, alias: str, params,
                   others=(), system: bool = False, ctx: Context | None = None) -> Result:
        """RETURNING over ``rows`` (the target's, of ``schema``, named ``alias``) and ``others``:
        the rows of an UPDATE's FROM / a DELETE's USING tables each row joined, as (name, rows)
        pairs. Its columns are typed as a query's are (a uuid fetched as ``uuid.UUID``).
        ``system``: ``rows`` end with the system columns it names (``system_columns.returned``),
        which its ``*`` leaves out. ``ctx``: the statement's, to answer catalog calls
        (``tableoid::regclass``) by."""
        if not returning:
            return Result(rowcount=rows.num_rows)
        names = points.plain_columns(returning, alias) if not others and not system else points.NOT_PLAIN
        if names is not points.NOT_PLAIN:
            names = tuple(schema.names) if names is None else names
            result_schema = points.result_schema(schema, names)
            if result_schema is not None and type(rows) is PythonRows:  # (a point write's: no DuckDB)
                columns = [rows.columns[schema.names.index(n)] for n in names]
                return Result(rows=list(zip(*columns)), schema=result_schema, rowcount=rows.num_rows)
            if result_schema is not None:  # (their values as the rows hold them)
                table = pa.Table.from_arrays(rows.select(list(names)).columns, schema=result_schema)
                return Result(table=table, rowcount=rows.num_rows)
        with self._registered() as register:
            name = register(sources.typed(_arrow(rows), schema))
            joins = [exp.Join(this=_aliased(register(table), other), kind="POSITIONAL") for other, table in others]
            select = exp.Select(expressions=[e.copy() for e in returning],
                                from_=exp.From(this=_aliased(name, alias)), joins=joins)
            if system:
                system_columns.hidden_from_returning(select, alias, rows.column_names[len(schema.names):])
            if ctx is not None and any(catalog_functions.is_call(n) for n in select.walk()):
                lookups: list[catalog_functions.Lookups] = []

                def visit(node):
                    return self._catalog_answer(ctx, register, lookups, node, visit) \
                        if catalog_functions.is_call(node) else node
                select = select.transform(visit)
            table = self._sql(bpchar.returned(select, schema, alias), params, result=True)
        return Result(table=table, rowcount=rows.num_rows)

    # --- applying changes to the transaction ---------------------------------------------

    def _writable(self, ctx: Context, name: st.TableName) -> TableVersion:
        if ctx.txn.read_only:  # (a read-only transaction may write its session's temporary tables)
            version = ctx.lookup(name)
            if version is None or not is_temp(version):
                raise errors.ReadOnlyTransaction("cannot execute this statement in a read-only transaction")
            return version
        return ctx.resolve(name)

    def _write(self, ctx: Context, old: TableVersion | None, new: TableVersion | None,
               check_ssi: bool = True, assigned=None) -> None:
        """``old`` replaced by ``new`` in the transaction; ``assigned``: the columns an UPDATE
        set (None: any statement else), whose foreign keys alone it re-checks."""
        self.assign_xid(ctx.txn)
        table_id = (new or old).table_id
        ctx.txn.write(old, table_id, new)
        if new is not None:
            ctx.txn.spilled.update(f.path for f in new.uncommitted() if f.path is not None)
        if ctx.catalog.foreign_keys or ctx.txn.foreign_keys:  # (keys checked, removed ones followed)
            foreign_keys.written(self, ctx, old, new, assigned)
        if check_ssi:
            self._check_ssi(ctx, new or old)

    def _check_ssi(self, ctx: Context, version: TableVersion) -> None:
        """SERIALIZABLE: refuse the write now if it completes a dangerous structure (ssi.py)."""
        if ctx.txn.isolation == SERIALIZABLE:
            table_id = version.table_id
            work = ctx.txn.changes.get(table_id)
            self.db.ssi.check_write(ctx.txn, [TableDelta(table_id, ctx.txn.bases.get(table_id), work)])

    def _apply(self, version: TableVersion, delete_rowids, rows: pa.Table | PythonRows | None,
               sources=None, same_keys: bool = False, upsert: bool = False) -> TableVersion:
        """``version`` with rows deleted and rows added. ``sources``: for updated rows, the row id
        each new row replaces (the update chain READ COMMITTED follows; see Database.successor).
        ``same_keys``: each new row has the primary key of the row it replaces, a committed one
        this statement deletes (an UPDATE that sets no key column; see ``SAME_KEYS``).
        ``upsert``: the rows of an INSERT ... ON CONFLICT (see ``UPSERTED``)."""
        deleted = {}
        if delete_rowids is not None and len(delete_rowids) == 1:  # a point statement
            rowid = int(delete_rowids[0])
            deleted[rowid >> 32] = FrozenBitMap((rowid & 0xFFFFFFFF,))
        elif delete_rowids is not None and len(delete_rowids):
            ids = np.asarray(delete_rowids, dtype=np.int64)
            files, positions = ids >> 32, (ids & 0xFFFFFFFF).astype(np.uint32)
            for fid in np.unique(files):
                deleted[int(fid)] = FrozenBitMap(positions[files == fid])
        added = ()
        if rows is not None and rows.num_rows:
            # rows held as Python values stay so, with exact key bounds: a later lookup in this
            # transaction matches a one-row file by them, without building its key index
            if isinstance(rows, PythonRows):
                file = DataFile.of_rows(next(self._pending_ids), rows, version.schema.schema_id,
                                        pk.key_bounds(rows, version.schema))
            else:
                file = DataFile(next(self._pending_ids), None, rows.num_rows, version.schema.schema_id,
                                data=rows.combine_chunks())
            if sources is not None:
                file.caches[SOURCES] = np.asarray(sources, dtype=np.int64)
                if same_keys:
                    file.caches[SAME_KEYS] = True
            if upsert:
                file.caches[UPSERTED] = True
            added = (file,)
        new = version.with_files(added=added, deleted=deleted)
        in_memory = [f for f in new.uncommitted() if f.in_memory]  # only uncommitted files are
        small = [f for f in in_memory if f.row_count < ROWS_PER_FILE // 2]
        if sum(map(_memory_bytes, in_memory)) > self.store.cache_bytes // SPILL_SHARE:
            new = self._spill(new, in_memory)
        elif len(small) > MAX_PENDING_FILES:
            new = self._merge_pending(new, small)
        return new

    def _spill(self, version: TableVersion, in_memory: list[DataFile]) -> TableVersion:
        """Write a table's uncommitted rows held in memory to Parquet files of the transaction's
        own (``DataFileStore.spill``), which replace them in the version: from then on they are
        read through the cache like committed files, and the commit adopts the files instead of
        writing the rows again."""
        data = pa.concat_tables([self.store.scan_file(version, f) for f in in_memory])
        chain = np.concatenate([visible_sources(version, f) for f in in_memory])
        files = []
        for start in range(0, data.num_rows, ROWS_PER_FILE):
            chunk = data.slice(start, ROWS_PER_FILE)
            path, size = self.store.spill(version.db, version.name, chunk) if not is_temp(version) \
                else self._private_folder().write(chunk)
            file = DataFile(next(self._pending_ids), path, chunk.num_rows, version.schema.schema_id, size)
            replaced = chain[start:start + ROWS_PER_FILE]
            if (replaced >= 0).any():
                file.caches[SOURCES] = replaced
            files.append(file)
        carry_upserted(in_memory, files)
        fks.carry_kept(in_memory, files)
        fks.record_rows_from(version, in_memory, files)
        return version.with_files(added=tuple(files), removed=frozenset(f.file_id for f in in_memory))

    def _private_folder(self) -> PrivateFolder:
        """This session's folder of private files (a temporary table's spills: temp_tables.py)."""
        if self.private is None:
            self.private = PrivateFolder(self.store.root)
        return self.private

    def _merge_pending(self, version: TableVersion, pending: list[DataFile]) -> TableVersion:
        pieces = [self.store.scan(replace(version, files=(f,), caches={})) for f in pending]
        merged = pa.concat_tables(pieces).combine_chunks()
        file = DataFile(next(self._pending_ids), None, merged.num_rows, version.schema.schema_id, data=merged)
        file.caches[SOURCES] = np.concatenate([visible_sources(version, f) for f in pending])
        carry_upserted(pending, [file])
        fks.carry_kept(pending, [file])
        fks.record_rows_from(version, pending, [file])
        return version.with_files(added=(file,), removed=frozenset(f.file_id for f in pending))

    # --- DDL -----------------------------------------------------------------------------

    def name_taken(self, ctx: Context, db: str, name: str) -> bool:
        """Does a relation hold the name ``db.name`` for a transaction about to create one? As
        PostgreSQL's unique index on relation names: one the transaction sees; else - the name
        locked first, so that another creator of it still open in this process is waited for -
        one committed since the transaction's snapshot. (Another process's creator is found
        at COMMIT: 42P07 then.) A temporary table's name is its session's alone."""
        if ctx.txn.table(ctx.catalog, db, name) is not None:
            return True
        if db == TEMP_DB:
            return False
        if name in uniques.index_names(self, ctx, db):  # (an index is a relation: one namespace)
            return True
        self.db.locks.acquire(ctx.txn, (f"{db}.{name}", "name"), ctx.lock_wait)
        clash = self.db.warehouse.refresh().table(db, name)
        return clash is not None and clash.table_id not in ctx.txn.changes  # (not one it dropped)

    def create_table(self, ctx: Context, stmt: st.CreateTable, params) -> Result:
        if ctx.txn.read_only:
            raise errors.ReadOnlyTransaction("cannot execute CREATE TABLE in a read-only transaction")
        if stmt.partition_of is not None:  # (its columns are its parent's)
            from txlake.engine import partitions  # (it builds on this module)
            return partitions.create_partition(self, ctx, stmt, params)
        db, name = stmt.table.qualified(ctx.db)
        if db in catalog_views.CATALOG_SCHEMAS:  # (their names are PostgreSQL's views)
            raise errors.ProgrammingError(f'permission denied to create "{db}.{name}"', sqlstate="42501")
        temporary = stmt.temporary or db == TEMP_DB  # (CREATE TABLE pg_temp.t makes one too)
        if temporary:
            db = temp_tables.check_create(stmt)
        if self.name_taken(ctx, db, name):
            if stmt.if_not_exists:
                return Result(status="CREATE TABLE", notice=f'relation "{name}" already exists, skipping')
            user_types.refuse_type_name(ctx, db, name)  # (a type's name: 42710, as PostgreSQL's row types)
            raise errors.DuplicateTable(f'relation "{name}" already exists')
        data, copied = None, None
        if any(isinstance(c, st.LikeSpec) for c in stmt.columns):
            stmt, copied = table_like.expanded(self, ctx, stmt)
            if temporary:  # (the columns it copied, checked as written ones are)
                temp_tables.check_create(stmt)
        if stmt.as_query is not None:
            data = self.query_rows(ctx, stmt.as_query, params, stmt.as_names, stmt.with_no_data)
            columns = tuple(Column(i, f.name, type_from_field(f)) for i, f in enumerate(data.schema))
        else:
            columns = tuple((copied and copied.column(i, spec)) or self._column(i, spec, ctx)
                            for i, spec in enumerate(stmt.columns))
        names = [c.name for c in columns]
        distinct_names(names)
        system_columns.refuse_column_names(names)
        if any(spec.generated is not None for spec in stmt.columns):
            columns = self._generated_columns(name, columns, stmt.columns)
        for key in stmt.primary_key:
            if key not in names:
                raise errors.UndefinedColumn(f'column "{key}" named in key does not exist')
            if columns[names.index(key)].type.kind == "ARRAY":  # (storage/keys.py indexes scalar keys)
                raise errors.NotSupportedError(f'column "{key}" is an array: txlake\'s primary keys are '
                                               "of scalar columns")
        columns = tuple(replace(c, not_null=True) if c.name in stmt.primary_key else c for c in columns)
        table_id = (temp_tables.TEMP_ID_PREFIX if temporary else "") + uuid.uuid4().hex
        if any(spec.sequence is not None for spec in stmt.columns):  # SERIAL, identity: the sequences they own
            from txlake.engine import sequence_ddl  # (it builds on this module)
            taken: set[str] = set()
            columns = tuple(replace(c, default=sequence_ddl.make_owned(self, ctx, db, table_id, c.field_id, spec,
                                                                       c.type.kind, taken))
                            if spec.sequence is not None else c for c, spec in zip(columns, stmt.columns))
        schema = TableSchema(0, columns, tuple(stmt.primary_key), len(columns) - 1,
                             primary_key_name=stmt.primary_key_name if stmt.primary_key else None)
        schema = user_types.stamped(ctx, schema)  # (its columns' enums' and domains' rules)
        if copied is not None:
            schema = copied.apply(self, ctx, db, name, schema)
        constraints = [*(c for spec in stmt.columns for c in spec.constraints), *stmt.constraints]
        schema = self._with_constraints(ctx, db, name, schema, constraints, data=None)
        if schema.foreign_keys:
            schema = foreign_keys.own_table(schema, table_id)
        if stmt.partition_by is not None:
            from txlake.engine import partitions  # (it builds on this module)
            schema = partitions.keyed(name, schema, stmt.partition_by)
        version = TableVersion(table_id, db, name, schema)
        if data is not None and data.num_rows:
            data = self._check_rows(version, self._conform(data, schema))
            version = self._apply(version, None, data)
        self._write(ctx, None, version)
        if temporary:
            ctx.txn.temp_created[table_id] = stmt.on_commit
        return Result(status=f"SELECT {data.num_rows}" if data is not None else "CREATE TABLE",
                      rowcount=data.num_rows if data is not None else -1)

    def query_rows(self, ctx: Context, query: exp.Query, params, names=(), no_rows: bool = False) -> pa.Table:
        """The rows ``query`` (its views expanded) gives - none if ``no_rows``, its columns
        alone - its first columns named ``names`` (CREATE TABLE t (a, b) AS ...: 42601 if there
        are more names than columns), as CREATE TABLE AS and CREATE MATERIALIZED VIEW keep them."""
        written = query
        with self._registered() as register:
            query = self._rewrite(ctx, query, register)
            if no_rows:  # (the query's columns, none of its rows)
                query = exp.select("*").from_(exp.Subquery(this=query, alias=exp.TableAlias(
                    this=exp.to_identifier("__txl_no_data")))).limit(0)
            data = network.marked(ctx, written, self._sql(query, params, result=True))  # (an inet column stays one)
        if len(names) > data.num_columns:
            raise errors.SyntaxError("too many column names were specified")
        return data.rename_columns([*names, *data.column_names[len(names):]])

    def _column(self, field_id: int, spec: st.ColumnSpec, ctx: Context) -> Column:
        """The column ``spec`` makes (a SERIAL's default, the sequence it owns, is CREATE TABLE's)."""
        if spec.type.this == exp.DataType.Type.USERDEFINED:  # (an enum's or a domain's, if one is named so)
            typed = user_types.column(ctx, field_id, spec)
            if typed is not None:
                return typed
        col_type = column_type(spec.type)
        default = None
        if spec.default is not None and spec.sequence is None:
            default = spec.default.sql(dialect="duckdb")
            self._check_default(default, col_type)
        return Column(field_id, spec.name, col_type, spec.not_null or spec.primary_key, default, spec.always,
                      spec.by_default)

    def _generated_columns(self, table: str, columns: tuple[Column, ...], specs) -> tuple[Column, ...]:
        """``columns`` (of the table ``table``) with the generation expressions of ``specs``
        (one per column, in order; None for a column not generated) defined (engine/generated.py)."""
        marked = tuple(replace(c, generated="") if spec.generated is not None else c
                       for c, spec in zip(columns, specs))
        return tuple(replace(c, generated=generated.define(self, table, marked, c.name, spec.generated))
                     if spec.generated is not None else c for c, spec in zip(marked, specs))

    def _check_default(self, default: str, col_type: ColumnType) -> None:
        """Type-check a column default now, as PostgreSQL does (22P02, 42804, ...): evaluated -
        but a SERIAL's, bound only (evaluated, it would take a number of its sequence)."""
        sql = f"SELECT {_cast_sql(_default_sql(default), col_type)}"
        if sequence_of(default) is not None:
            self._columns_of(sql, ())
        else:
            self._sql(sql)

    def drop_table(self, ctx: Context, stmt: st.DropTable, params) -> Result:
        if ctx.txn.read_only:
            raise errors.ReadOnlyTransaction("cannot execute DROP TABLE in a read-only transaction")
        from txlake.engine import views  # (views.py builds on this module)
        from txlake.engine import sequence_ddl
        targets, notices = self.dropped(ctx, stmt.tables, stmt.if_exists, kind="table")
        partitioned = ctx.may_have_columns("partitioned")
        if partitioned:  # (a partitioned table's partitions go with it)
            from txlake.engine import partitions  # (it builds on this module)
            targets = partitions.with_partitions(ctx, targets)
        notices += foreign_keys.drop_referenced(self, ctx, targets, stmt.cascade)
        notices += views.drop_with_dependents(self, ctx, targets, stmt.cascade)
        sequence_ddl.drop_owned(self, ctx, {t.table_id for t in targets})  # (the SERIAL columns' sequences)
        if partitioned:  # (a DEFAULT partition's constraint no longer names a dropped sibling's bound)
            partitions.after_drop(self, ctx, targets)
        return Result(status="DROP TABLE", notice="\n".join(notices) or None)

    def dropped(self, ctx: Context, names, if_exists: bool, kind: str) -> tuple[list[TableVersion], list[str]]:
        """The relations a DROP TABLE, DROP VIEW or DROP SEQUENCE (``kind`` table, view,
        sequence) names, each once, and the notices for those missing with IF EXISTS (without:
        42P01); one of another kind is 42809."""
        targets, notices = [], []
        for name in names:
            version = ctx.lookup(name)
            if version is None:
                if not if_exists:
                    raise errors.UndefinedTable(f'{kind} "{name}" does not exist')
                notices.append(f'{kind} "{name}" does not exist, skipping')
                continue
            other = relation_kind(version)
            if other != kind:
                raise errors.WrongObjectType(
                    f'"{version.name}" is not a {kind}\nHINT:  Use DROP {other.upper()} to remove a {other}.')
            targets.append(version)
        return list(dict.fromkeys(targets)), notices

    # A schema is a database, and a database comes to be with its first table (and goes with
    # its last): CREATE SCHEMA checks and records nothing more, DROP SCHEMA drops the tables.

    def create_schema(self, ctx: Context, stmt: st.CreateSchema, params) -> Result:
        if ctx.txn.read_only:
            raise errors.ReadOnlyTransaction("cannot execute CREATE SCHEMA in a read-only transaction")
        if stmt.db in catalog_views.CATALOG_SCHEMAS or self._schema_tables(ctx, stmt.db):
            if stmt.if_not_exists:
                return Result(status="CREATE SCHEMA", notice=f'schema "{stmt.name}" already exists, skipping')
            raise errors.ProgrammingError(f'schema "{stmt.name}" already exists', sqlstate="42P06")
        return Result(status="CREATE SCHEMA")

    def drop_schema(self, ctx: Context, stmt: st.DropSchema, params) -> Result:
        if ctx.txn.read_only:
            raise errors.ReadOnlyTransaction("cannot execute DROP SCHEMA in a read-only transaction")
        if stmt.db in catalog_views.CATALOG_SCHEMAS:
            raise errors.DependentObjectsStillExist(f"cannot drop schema {stmt.name} because it is required "
                                                    "by the database system")
        from txlake.engine import views  # (views.py builds on this module)
        tables = self._schema_tables(ctx, stmt.db)
        if tables and not stmt.cascade:
            listed = "\n".join(f"{relation_kind(t)} {stmt.name}.{_shown(t)} depends on schema "
                                f"{stmt.name}" for t in tables)
            raise errors.DependentObjectsStillExist(
                f"cannot drop schema {stmt.name} because other objects depend on it\nDETAIL:  {listed}\n"
                "HINT:  Use DROP ... CASCADE to drop the dependent objects too.")
        outside = [v for v in views.dependents(ctx, {t.table_id for t in tables}) if v.db != stmt.db]
        constraints = foreign_keys.drop_referenced(self, ctx, tables, cascade=True)  # (the others' on them)
        for version in [*tables, *outside]:  # (and the views elsewhere that read them)
            self._write(ctx, version, None, check_ssi=version.is_table)
        tables += outside
        notice = None
        if len(tables) + len(constraints) == 1:
            notice = f"drop cascades to {relation_kind(tables[0])} {stmt.name}.{_shown(tables[0])}"
        elif tables:
            notice = f"drop cascades to {len(tables) + len(constraints)} other objects"
        return Result(status="DROP SCHEMA", notice=notice)

    def _schema_tables(self, ctx: Context, db: str) -> list[TableVersion]:
        return sorted((t for t in ctx.txn.tables(ctx.catalog) if t.db == db), key=lambda t: t.name)

    def _alter_type(self, table: str, schema: TableSchema, data: pa.Table, col: Column, action: st.AlterColumn):
        """``ALTER COLUMN c TYPE t [USING expr]``: each row's value cast as an INSERT casts it
        (errors as there), NOT NULL, VARCHAR(n) and a key's uniqueness checked; the default
        kept, cast to the new type (42804 if it cannot be)."""
        new_type = column_type(action.type)
        changed = replace(col, type=new_type, user_type=None, enum=None)  # (no longer of an enum or a domain)
        if col.default is not None:
            try:
                self._check_default(col.default, new_type)
            except errors.Error:
                raise errors.ProgrammingError(f'default for column "{col.name}" cannot be cast automatically to '
                                              f"type {new_type.display().lower()}", sqlstate="42804") from None
        value = action.using.sql(dialect="duckdb") if action.using is not None else f'"{col.name}"'
        if action.using is None and col.type.kind == "INTERVAL":  # (to text: PostgreSQL's, '1 mon' not '1 month')
            value = f"{dialect.INTERVAL_VALUE}({value})"
        with self._registered() as register:  # (rows kept in order: the cast goes by position)
            rows = register(data.append_column("__txl_pos", pa.array(np.arange(data.num_rows, dtype=np.int64))))
            values = self._sql(f"SELECT {_cast_sql(value, new_type)} AS v FROM {rows} ORDER BY __txl_pos"
                               ).column(0).cast(new_type.arrow())
        if col.not_null and values.null_count:
            raise errors.NotNullViolation(f'column "{col.name}" of relation "{table}" contains null values')
        if len(values):
            values = fit_type(new_type, values) or values
        if new_type.kind in _PYTHON_RANGES and len(values) > values.null_count:
            _check_python_range(changed, values)
        i = data.column_names.index(col.name)
        data = data.set_column(i, pa.field(col.name, new_type.arrow()), values)
        if col.name in schema.primary_key and data.num_rows:
            twice = uniques.key_held_twice(data, schema.primary_key)
            if twice is not None:
                raise errors.UniqueViolation(
                    f'could not create unique index "{schema.pkey_name(table)}"\n'
                    f'DETAIL:  Key ({", ".join(schema.primary_key)})='
                    f'({", ".join(map(str, twice))}) is duplicated.')
        return schema.evolve(tuple(changed if c is col else c for c in schema.columns)), data

    def alter_table(self, ctx: Context, stmt: st.AlterTable, params) -> Result:
        version = ctx.altered(stmt.table, stmt.if_exists, "ALTER TABLE")
        if isinstance(version, Result):
            return version
        if ctx.txn.read_only:
            raise errors.ReadOnlyTransaction("cannot execute ALTER TABLE in a read-only transaction")
        if version.schema.partitioned or any(isinstance(a, (st.AttachPartition, st.DetachPartition))
                                             for a in stmt.actions):
            from txlake.engine import partitions  # (it builds on this module)
            done = partitions.alter(self, ctx, version, stmt)
            if done is not None:
                return done
        from txlake.engine import views  # (views.py builds on this module)
        renames = [a for a in stmt.actions if isinstance(a, (st.RenameTable, st.RenameConstraint))]
        if renames and len(stmt.actions) > 1:  # (PostgreSQL's grammar: a RENAME stands alone)
            raise errors.SyntaxError("ALTER TABLE ... RENAME cannot be combined with other actions")
        from txlake.engine import renames as table_renames  # (it builds on this module)
        if stmt.matview or version.is_matview:
            _check_matview_alter(version, stmt)
            if renames and isinstance(renames[0], st.RenameTable):
                return table_renames.rename_table(self, ctx, version, renames[0].new,
                                                  "ALTER MATERIALIZED VIEW" if stmt.matview else "ALTER TABLE")
            if stmt.matview:  # (RENAME COLUMN: as ALTER TABLE's, under its own tag)
                result = self.alter_table(ctx, replace(stmt, matview=False), params)
                result.status = "ALTER MATERIALIZED VIEW"
                return result
        if renames and isinstance(renames[0], st.RenameConstraint) and version.is_table:
            return table_renames.rename_constraint(self, ctx, version, renames[0].old, renames[0].new)
        if renames and isinstance(renames[0], st.RenameTable) and not version.is_view and not version.is_type:
            return table_renames.rename_table(self, ctx, version, renames[0].new)
        if version.is_sequence:
            raise errors.WrongObjectType(f'"{version.name}" is not a table')
        if version.is_view:  # (ALTER TABLE v RENAME TO w works on a view, as in PostgreSQL)
            if len(stmt.actions) == 1 and isinstance(stmt.actions[0], st.RenameTable):
                return views.rename(self, ctx, version, stmt.actions[0].new)
            if len(stmt.actions) == 1 and isinstance(stmt.actions[0], st.RenameColumn):
                return views.rename_column(self, ctx, version, stmt.actions[0].old, stmt.actions[0].new)
            raise errors.WrongObjectType(f'"{version.name}" is not a table')
        notices = []
        if version.schema.generated:  # (a dropped column takes the generated columns using it along)
            stmt = replace(stmt, actions=generated.with_dependent_drops(version.schema, stmt.actions))
        for action in stmt.actions:  # (columns the views reading the table use)
            if isinstance(action, st.DropColumn) and action.cascade:
                notices += views.drop_column_users(self, ctx, version, action.name)
            elif isinstance(action, st.DropColumn):
                views.refuse_column_change(ctx, version, action.name, "drop")
            elif isinstance(action, st.RenameColumn):
                views.follow_column_rename(self, ctx, version, action.old, action.new)
            elif isinstance(action, st.AlterColumn) and action.type is not None:
                views.refuse_column_change(ctx, version, action.name, "type")
        if ctx.catalog.foreign_keys or ctx.txn.foreign_keys:
            notices += foreign_keys.check_alter(self, ctx, version, stmt.actions)
        restarts = [a for a in stmt.actions if isinstance(a, st.AlterColumn) and a.restart is not None]
        if restarts:
            self._restart_identity(ctx, version, restarts)
            if len(restarts) == len(stmt.actions):
                return Result(status="ALTER TABLE")
        schema = version.schema
        data = self.store.scan(version)
        for action in stmt.actions:
            if isinstance(action, st.AlterColumn) and action.restart is not None:
                continue
            if isinstance(action, st.DropColumn) and schema.column(action.name) is not None:
                from txlake.engine import sequence_ddl  # (the sequence a SERIAL column owns goes with it)
                sequence_ddl.drop_owned(self, ctx, {version.table_id}, schema.column(action.name).field_id)
            schema, data = self._alter_one(ctx, version, schema, data, action)
        if schema is version.schema:
            return Result(status="ALTER TABLE")
        self.rewrite_table(ctx, version, schema, data)
        return Result(status="ALTER TABLE", notice="\n".join(notices) or None)

    def rewrite_table(self, ctx: Context, version: TableVersion, schema: TableSchema, data: pa.Table) -> None:
        """Write the table ``version`` anew: ``schema`` (the next schema id), its rows ``data``."""
        schema = replace(schema, schema_id=version.schema.schema_id + 1)
        rewritten = replace(version, schema=schema, files=(), deletes={}, caches={})
        rewritten = self._apply(rewritten, None, self._conform(data, schema) if data.num_rows else None)
        self._write(ctx, version, rewritten)

    def _restart_identity(self, ctx: Context, version: TableVersion, restarts: list[st.AlterColumn]) -> None:
        """``ALTER [COLUMN] c RESTART [[WITH] n]``: the identity column's sequence begins again
        (at ``n``, else its start), transactionally (engine/sequence_ddl.py ``restarted``)."""
        from txlake.engine import sequence_ddl  # (it builds on this module)
        for action in restarts:
            col = version.schema.require(action.name, version.name)
            if not col.identity:
                raise errors.ObjectNotInPrerequisiteState(
                    f'column "{col.name}" of relation "{version.name}" is not an identity column')
            first = None if action.restart is True else action.restart
            if not sequence_ddl.restart_owned(self, ctx, version, col, first):
                raise errors.NotSupportedError(f'the sequence of column "{col.name}" predates transactional '
                                               "sequences: use setval()")

    def _alter_one(self, ctx: Context, version: TableVersion, schema: TableSchema, data: pa.Table, action):
        """``schema`` and ``data`` (the table ``version`` as the statement's actions before this
        one left it) after ``action``."""
        table = version.name
        if isinstance(action, st.AddColumn):
            spec = action.column
            system_columns.refuse_column_names((spec.name,))
            if _same_name_column(schema, spec.name) is not None:
                if action.if_not_exists:
                    return schema, data
                raise errors.DuplicateColumn(f'column "{spec.name}" of relation "{table}" already exists')
            if spec.primary_key:
                raise errors.NotSupportedError("adding a primary key column is not supported")
            if spec.sequence is not None:  # (each row there would need a number of its own)
                raise errors.NotSupportedError("adding a SERIAL or identity column is not supported")
            col = self._column(schema.highest_field_id + 1, spec, ctx)
            if spec.generated is not None:
                return self._add_generated(ctx, version, schema, data, spec, col)
            default = _default_sql(col.default) if col.default else "NULL"
            column = self._sql(f"SELECT {_cast_sql(default, col.type)} AS v").column(0)
            value = column[0]
            if col.type.kind in _PYTHON_RANGES and value.is_valid:
                _check_python_range(col, column)
            if col.not_null and not value.is_valid and data.num_rows:
                raise errors.NotNullViolation(f'column "{col.name}" of relation "{table}" contains null values')
            if value.is_valid and data.num_rows:
                # (every row would hold it: as PostgreSQL, 22001 - or cut, past n by spaces alone)
                value = pa.scalar((fit_type(col.type, (value.as_py(),)) or (value.as_py(),))[0], col.type.arrow())
            data = data.append_column(col.name, pa.array([value.as_py()] * data.num_rows, col.type.arrow()))
            schema = self._with_constraints(ctx, version.db, table, schema.evolve(schema.columns + (col,)),
                                            spec.constraints, data)
            if col.user_type is not None:  # (every row holds its default: it must be of the type)
                schema = user_types.stamped(ctx, schema)
                if data.num_rows:
                    self._check_rows(replace(version, schema=schema), data)
            return schema, data
        if isinstance(action, st.DropColumn):
            if schema.column(action.name) is None:
                if action.if_exists:
                    return schema, data
                schema.require(action.name, table)
            if action.name in schema.primary_key:
                raise errors.NotSupportedError(f'cannot drop primary key column "{action.name}"')
            if len(schema.columns) == 1:
                raise errors.NotSupportedError("cannot drop the only column of a table")
            schema = uniques.dropped(foreign_keys.altered_columns(schema, version.table_id, action), action.name)
            schema = indexes.dropped(triggers.without_column(schema, table, action) if schema.triggers else schema,
                                     action.name)
            if schema.policies:
                schema = policies.without_column(schema, table, action)
            schema = schema.evolve(tuple(c for c in schema.columns if c.name != action.name))
            return checks.without_column(schema, action.name), data.drop_columns([action.name])
        if isinstance(action, st.RenameColumn):
            schema.require(action.old, table)
            system_columns.refuse_column_names((action.new,))
            if _same_name_column(schema, action.new) not in (None, schema.column(action.old)):
                raise errors.DuplicateColumn(f'column "{action.new}" of relation "{table}" already exists')
            columns = tuple(replace(c, name=action.new) if c.name == action.old else c for c in schema.columns)
            primary_key = tuple(action.new if k == action.old else k for k in schema.primary_key)
            data = data.rename_columns([action.new if n == action.old else n for n in data.column_names])
            schema = indexes.renamed(uniques.renamed(schema, action.old, action.new), action.old, action.new)
            if schema.triggers:
                schema = triggers.renamed_column(schema, action.old, action.new)
            if schema.policies:
                schema = policies.renamed_column(schema, table, action.old, action.new)
            schema = schema.evolve(columns, primary_key)
            schema = foreign_keys.altered_columns(schema, version.table_id, action)
            return generated.renamed_column(checks.renamed_column(schema, action.old, action.new), action.old,
                                            action.new), data
        if isinstance(action, st.AlterColumn) and action.drop_expression:  # (a plain column, its values kept)
            col = schema.require(action.name, table)
            if col.generated is None and action.if_exists:
                return schema, data
            if col.generated is None:
                raise errors.ObjectNotInPrerequisiteState(
                    f'column "{col.name}" of relation "{table}" is not a stored generated column')
            return schema.evolve(tuple(replace(c, generated=None) if c is col else c for c in schema.columns)), data
        if isinstance(action, st.AlterColumn) and action.type is not None:
            if schema.generated:
                generated.check_retype(table, schema, action)
            schema, data = self._alter_type(table, schema, data, schema.require(action.name, table), action)
            if schema.column(action.name).generated is not None:  # (its values: the expression's, of the type)
                data = generated.computed(self, table, schema, data)
            schema = user_types.stamped(ctx, schema)
            checks.retyped_column(self, table, schema, data, action.name)
            uniques.revalidate(schema, action.name, data)
            return schema, data
        if isinstance(action, st.AlterColumn) and action.add_identity is not None:
            col = schema.require(action.name, table)
            return self._add_identity(ctx, version, schema, col, action.add_identity), data
        if isinstance(action, st.AlterColumn):
            col = schema.require(action.name, table)
            if col.identity and (action.default is not None or action.drop_default):
                raise errors.ObjectNotInPrerequisiteState(
                    f'column "{col.name}" of relation "{table}" is an identity column')
            if col.generated is not None and (action.default is not None or action.drop_default):
                hint = "" if action.default is not None else \
                    "\nHINT:  Use ALTER TABLE ... ALTER COLUMN ... DROP EXPRESSION instead."
                raise errors.SyntaxError(f'column "{col.name}" of relation "{table}" is a generated column{hint}')
            if action.default is not None and not isinstance(action.default, exp.Null):
                changed = replace(col, default=action.default.sql(dialect="duckdb"))
                self._check_default(changed.default, col.type)
            elif action.default is not None or action.drop_default:
                changed = replace(col, default=None)
            elif action.not_null:
                if data.column(col.name).null_count:
                    raise errors.NotNullViolation(f'column "{col.name}" of relation "{table}" contains null values')
                changed = replace(col, not_null=True)
            else:
                if col.name in schema.primary_key:
                    raise errors.ProgrammingError(f'column "{col.name}" is in a primary key', sqlstate="42P16")
                changed = replace(col, not_null=False)
            return schema.evolve(tuple(changed if c is col else c for c in schema.columns)), data
        if isinstance(action, st.AddConstraint) and isinstance(action.constraint, st.PrimaryKeySpec):
            return uniques.add_primary_key(self, ctx, version.db, schema, table, action.constraint, data), data
        if isinstance(action, st.AddConstraint):
            added = self._with_constraints(ctx, version.db, table, schema.evolve(schema.columns), [action.constraint],
                                           data, not_valid=action.not_valid)
            return added, data
        if isinstance(action, st.DropConstraint):  # (with its own foreign keys referencing it: check_alter allowed it)
            schema = foreign_keys.without_key(schema, version.table_id, table, action.name)
            return self._drop_constraint(table, schema, action), data
        if isinstance(action, st.ValidateConstraint):
            if any(fk.name == action.name for fk in schema.foreign_keys):
                return foreign_keys.validate(self, ctx, version.table_id, table, schema, data, action.name), data
            return checks.validate(self, table, schema, data, action.name), data
        raise AssertionError(f"unexpected ALTER TABLE action {action!r}")

    def _add_generated(self, ctx: Context, version: TableVersion, schema: TableSchema, data: pa.Table,
                       spec: st.ColumnSpec, col: Column) -> tuple[TableSchema, pa.Table]:
        """``ADD COLUMN c type GENERATED ALWAYS AS (expr) STORED``: its value computed for every
        row (the table's files are written anew), checked as a written row's is, then its
        constraints added."""
        marked = schema.columns + (replace(col, generated=""),)
        col = replace(col, generated=generated.define(self, version.name, marked, col.name, spec.generated))
        schema = schema.evolve(schema.columns + (col,))
        data = data.append_column(col.type.field(col.name), pa.nulls(data.num_rows, col.type.arrow()))
        if data.num_rows:
            data = generated.computed(self, version.name, schema, data)
            if col.not_null and data.column(col.name).null_count:
                raise errors.NotNullViolation(f'column "{col.name}" of relation "{version.name}" contains null values')
            data = _arrow(self._check_rows(replace(version, schema=schema), data, checks_done=True))
        return self._with_constraints(ctx, version.db, version.name, schema, spec.constraints, data), data

    def _add_identity(self, ctx: Context, version: TableVersion, schema: TableSchema, col: Column,
                      spec: st.ColumnSpec) -> TableSchema:
        """``ALTER [COLUMN] c ADD GENERATED ... AS IDENTITY [(...)]``, as PostgreSQL's: a NOT NULL
        integer column without a default becomes an identity column, numbered by a new sequence
        it owns (its rows keep their values; pg_dump sets the sequence past them with setval)."""
        where = f'column "{col.name}" of relation "{version.name}"'
        if not col.not_null:
            raise errors.ObjectNotInPrerequisiteState(f"{where} must be declared NOT NULL before identity can be added")
        if col.identity:
            raise errors.ObjectNotInPrerequisiteState(f"{where} is already an identity column")
        if col.default is not None:
            raise errors.ObjectNotInPrerequisiteState(f"{where} already has a default value")
        from txlake.engine import sequence_ddl  # (it builds on this module)
        default = sequence_ddl.make_owned(self, ctx, version.db, version.table_id, col.field_id, spec,
                                          col.type.kind, set())
        changed = replace(col, default=default, always=spec.always, by_default=spec.by_default)
        return schema.evolve(tuple(changed if c is col else c for c in schema.columns))

    def _with_constraints(self, ctx: Context, db: str, table: str, schema: TableSchema, specs, data: pa.Table | None,
                          not_valid: bool = False) -> TableSchema:
        """``schema`` (of the table ``db.table``) with the constraints ``specs`` added, each
        named as written (42710 if the table has a constraint of that name; a UNIQUE's: 42P07 if
        it is an index's, ``uniques.name_for``) or as PostgreSQL
        names it (storage/schema.py ``constraint_name``). ``data``: the rows the table holds
        (None for a table being created), which each must hold for (23514, 23505, 23503) unless
        ``not_valid`` (ALTER TABLE ... ADD ... NOT VALID)."""
        for spec in specs:
            taken = schema.constraint_names(table)
            if spec.name is not None and spec.name in taken and not isinstance(spec, st.UniqueSpec):
                raise errors.ProgrammingError(f'constraint "{spec.name}" for relation "{table}" already exists',
                                              sqlstate="42710")
            if isinstance(spec, st.CheckSpec):
                name = spec.name or constraint_name(table, (spec.column,) if spec.column else (), "check", taken)
                schema = checks.define(self, table, schema, name, spec.expression, data, not_valid)
            elif isinstance(spec, st.UniqueSpec):
                name = uniques.name_for(self, ctx, db, table, schema, spec)  # (42P07 or 42710)
                if not_valid:
                    raise errors.NotSupportedError("UNIQUE constraints cannot be marked NOT VALID")
                schema = uniques.add(schema, table, name, spec, data)
            else:
                name = spec.name or constraint_name(table, spec.columns, "fkey", taken)
                fk = foreign_keys.constraint(self, ctx, db, table, schema, spec, name, data, not_valid)
                _refuse_temporary_reference(db, fk)
                schema = replace(schema, foreign_keys=schema.foreign_keys + (fk,))
        return schema

    @staticmethod
    def _drop_constraint(table: str, schema: TableSchema, action: st.DropConstraint) -> TableSchema:
        """``DROP CONSTRAINT [IF EXISTS] name``: a CHECK, UNIQUE or FOREIGN KEY constraint (42704
        for none of that name; the primary key cannot be dropped, 0A000)."""
        if schema.primary_key and action.name == schema.pkey_name(table):
            raise errors.NotSupportedError("dropping a primary key is not supported")
        kept = {key: tuple(c for c in getattr(schema, key) if c.name != action.name or getattr(c, "index", False))
                for key in ("checks", "uniques", "foreign_keys")}
        if sum(map(len, kept.values())) == len(schema.constraints):
            if action.if_exists:
                return schema
            raise errors.UndefinedObject(f'constraint "{action.name}" of relation "{table}" does not exist')
        return replace(schema.evolve(schema.columns), **kept)


def _refuse_temporary_reference(db: str, fk) -> None:
    """A foreign key between a temporary table and a permanent one is 42P16, as in PostgreSQL;
    one between two temporary tables is not supported (0A000): the COMMIT re-check of foreign
    keys reads the shared catalog, which holds no temporary table."""
    child = db == temp_tables.TEMP_DB
    parent = fk.table_id.startswith(temp_tables.TEMP_ID_PREFIX)
    if child and parent:
        raise errors.NotSupportedError("foreign keys between temporary tables are not supported")
    if child or parent:
        kind = "temporary" if child else "permanent"
        raise errors.ProgrammingError(f"constraints on {kind} tables may reference only {kind} tables",
                                      sqlstate="42P16")


def _pointed(node: exp.Table, name: str, alias: exp.TableAlias) -> exp.Table:
    """The table reference ``node`` made to read the relation registered as ``name`` (under
    ``alias``), in place: what it holds besides its name stays - the joins of a parenthesized
    join, ``FROM (a JOIN b ON ...)`` as pg_dump writes views, which a new node had dropped -
    and the transform goes on into them."""
    for key in ("db", "catalog", "version", "when", "only"):  # (ONLY t: t, which has no inheritors)
        node.set(key, None)
    node.set("this", exp.to_identifier(name))
    node.set("alias", alias)
    return node


def _session_value(ctx: Context, node: exp.Expression) -> exp.Expression:
    """PostgreSQL's session functions as the session's values, where DuckDB had its own (main,
    memory): current_schema (with or without parentheses) is the first schema of the search
    path, current_schemas(implicit) all of them (pg_catalog first if implicit), and
    current_database() / current_catalog txlake's catalog name, as information_schema says."""
    if not _is_session_value(node):
        return node
    if isinstance(node, (exp.CurrentSchema, exp.Column)):
        return exp.Literal.string(catalog_views.schema_name(ctx.db))
    if isinstance(node, exp.CurrentSchemas):
        names = [catalog_views.schema_name(db) for db in ctx.search_path or (ctx.db,)]
        implicit = node.this
        if isinstance(implicit, exp.Boolean):
            names = (["pg_catalog"] if implicit.this else []) + names
            return exp.Array(expressions=[exp.Literal.string(n) for n in names])
        with_catalog = exp.Array(expressions=[exp.Literal.string(n) for n in ["pg_catalog", *names]])
        return exp.If(this=implicit.copy(), true=with_catalog,
                      false=exp.Array(expressions=[exp.Literal.string(n) for n in names]))
    return exp.Literal.string(catalog_views.CATALOG)  # current_database(), current_catalog


def with_settings(ctx: Context, stmt):
    """``stmt`` (``reads_settings``: parser/parse.py) with each ``current_setting(name [,
    missing_ok])`` as the session's value of the setting now, SHOW's - taken at each execution,
    before any of the statement's SQL is made or cached. DuckDB's own answered before, for its
    settings (search_path '') and refused txlake's; an unknown one is 42704, or NULL if
    ``missing_ok``."""
    def settings_read(expression: exp.Expression) -> exp.Expression:
        if not any(n.name.lower() == "current_setting" for n in expression.find_all(exp.Anonymous)):
            return expression
        return expression.transform(lambda node: _setting_value(ctx, node) if isinstance(node, exp.Anonymous) and
                                    node.name.lower() == "current_setting" else node)

    return st.rewritten(stmt, settings_read)


def _setting_value(ctx: Context, node: exp.Anonymous) -> exp.Expression:
    args = node.expressions
    if len(args) not in (1, 2) or ctx.setting is None:
        return node
    name, missing_ok = args[0], args[1] if len(args) == 2 else exp.false()
    if not (isinstance(name, exp.Literal) and name.is_string and isinstance(missing_ok, exp.Boolean)):
        raise errors.NotSupportedError("current_setting takes a constant name (and missing_ok)")
    try:
        return exp.Literal.string(ctx.setting(name.this))
    except errors.UndefinedObject:
        if missing_ok.this:
            return exp.cast(exp.null(), "VARCHAR")
        raise


def _is_session_value(node: exp.Expression) -> bool:
    return isinstance(node, (exp.CurrentSchema, exp.CurrentSchemas, exp.CurrentDatabase, exp.CurrentCatalog)) or (
        isinstance(node, exp.Column) and not node.table and isinstance(node.this, exp.Identifier)
        and not node.this.quoted and node.name.lower() == "current_schema")


def column_type(data_type: exp.DataType) -> ColumnType:
    if isinstance(data_type.this, exp.Interval):  # interval day to second, interval hour
        unit = data_type.this.unit
        fields = f"{unit.this.name} TO {unit.expression.name}" if isinstance(unit, exp.IntervalSpan) else unit.name
        return make_type(f"INTERVAL {fields}", tuple(int(p.this.this) for p in data_type.expressions))
    name = data_type.this.name
    if name == "ARRAY" and len(data_type.expressions) == 1:  # T[], T ARRAY (a size, T[3], is ignored, as in PG)
        element = data_type.expressions[0]
        if element.this == exp.DataType.Type.ARRAY:  # (PostgreSQL's T[][] is its T[], holding any dimensions)
            raise errors.NotSupportedError(f'type "{data_type.sql(dialect="postgres").lower()}" is not supported: '
                                           "txlake's columns hold one-dimensional arrays (write T[])")
        try:
            return array_of(column_type(element))
        except errors.NotSupportedError:  # (an array of a type txlake has not: named as written)
            raise errors.NotSupportedError(
                f'type "{data_type.sql(dialect="postgres").lower()}" is not supported') from None
    if data_type.args.get("nested") or name in ("ARRAY", "MAP", "STRUCT"):
        raise errors.NotSupportedError(f'type "{data_type.sql(dialect="postgres").lower()}" is not supported')
    # (sqlglot's FLOAT is REAL: real, float4, FLOAT(p) up to 24 bits; float alone is DOUBLE)
    name = {"TEXT": "VARCHAR", "TIMESTAMPNTZ": "TIMESTAMP", "FLOAT": "REAL"}.get(name, name)
    try:
        params = tuple(int(p.this.this) for p in data_type.expressions)
    except (AttributeError, ValueError):
        raise errors.SyntaxError(f"invalid type modifier in {data_type.sql()}") from None
    if name == "CHAR" and not params:
        params = (1,)
    if name == "BPCHAR" and not params:  # (bpchar without a length: text, its trailing spaces kept)
        name = "VARCHAR"
    if name == "USERDEFINED":  # a name sqlglot does not know (SERIAL)
        name = str(data_type.args.get("kind") or name)
    try:
        return make_type(name, params)
    except errors.NotSupportedError:  # named as written, not as sqlglot calls it (BYTEA, not varbinary)
        raise errors.NotSupportedError(
            f'type "{data_type.sql(dialect="postgres").lower()}" is not supported') from None


# the default of a SERIAL column (Executor._column), or one set to nextval('s') (as written or generated)
_SEQUENCE_DEFAULT = re.compile(r"nextval\s*\(\s*'((?:[^']|'')+)'\s*\)", re.IGNORECASE)


def _typed_by_columns(ctx: Context, expression: exp.Expression, tables: column_scope.StatementTables,
                      query: bool) -> exp.Expression:
    """The rewrites that depend on the columns ``expression`` reads (so on the schemas a cached
    plan is made for): a function's one-value rows read by its alias alone (no column has the
    name), jsonb columns compared and sorted in jsonb's order,
    CHAR(n) values compared and given out padded (``query``: its select list is the result),
    a string constant beside a column read as the column's type."""
    expression = column_scope.whole_row_values(expression, tables)
    expression = column_scope.whole_row_json(expression, tables)
    expression = jsonb_order.rewritten(ctx, expression, tables)
    expression = network.rewritten(ctx, expression, tables)
    expression = bpchar.rewritten(ctx, expression, tables, query)
    return column_constants.rewritten(ctx, expression, tables)


def relation_kind(version: TableVersion) -> str:
    """What a catalog entry is, as PostgreSQL's messages name it: table, view, materialized
    view, sequence, type or function - its schema says, once (``may_hold`` asks at every
    statement for every table the transaction changed)."""
    return version.schema.memo("_relation_kind", _relation_kind)


def _relation_kind(schema) -> str:
    if schema.view is None and schema.sequence is None and schema.user_type is None and schema.function is None:
        return "materialized view" if schema.matview is not None else "table"
    if schema.function is not None:
        return "function"
    return "view" if schema.view is not None else "sequence" if schema.sequence is not None else "type"


def _shown(version: TableVersion) -> str:
    """A catalog entry's name as messages show it (a function's: its signature)."""
    if version.is_function:
        definition = version.schema.function
        return f"{definition.name}({', '.join(definition.arg_types)})"
    return version.name


def _check_matview_alter(version: TableVersion, stmt: st.AlterTable) -> None:
    """ALTER MATERIALIZED VIEW names one (42809); ALTER TABLE of one renames it or a column
    alone (42809, as PostgreSQL's ATSimplePermissions: its columns are its query's)."""
    if stmt.matview and not version.is_matview:
        raise errors.WrongObjectType(f'"{version.name}" is not a materialized view')
    for action in stmt.actions:
        if not isinstance(action, (st.RenameTable, st.RenameColumn)):
            words = re.sub(r"(?<!^)(?=[A-Z])", " ", type(action).__name__).upper()  # (AddColumn: ADD COLUMN)
            raise errors.WrongObjectType(f'ALTER action {words} cannot be performed on relation "{version.name}"\n'
                                         "DETAIL:  This operation is not supported for materialized views.")


_UPDATED = "__txl_updated"  # (``_insert_batch``'s mark of the rows ON CONFLICT DO UPDATE updated)


def assignable(schema: TableSchema, name: str, table: str) -> Column:
    """The column an INSERT, UPDATE or MERGE gives values to: 42703 for none - 428C9 where
    ``name`` is a system column's."""
    try:
        return schema.require(name, table)
    except errors.UndefinedColumn:
        system_columns.refuse_assignment((name,))
        raise


def distinct_names(names) -> None:
    """42701 if two of a new relation's column ``names`` are one to DuckDB, which matches
    column names case-insensitively."""
    folded = [n.lower() for n in names]
    for n in names:
        if folded.count(n.lower()) > 1:
            raise errors.DuplicateColumn(f'column "{n}" specified more than once')


# the CatalogVersion count of each kind of relation_kind (Context.may_hold)
_COUNTED = {"view": "views", "materialized view": "matviews", "sequence": "sequences", "type": "types",
            "function": "functions"}
#: a kind of column -> the catalog's count of the tables having one, and the schema's property saying so
_COLUMNS_COUNTED = {"jsonb": ("jsonb_tables", "has_jsonb"), "char": ("char_tables", "blank_padded"),
                    "inet": ("inet_tables", "network_columns"), "partitioned": ("partitioned", "partitioned")}


def sequence_of(default: str | None) -> str | None:
    """The sequence a SERIAL column's ``default`` takes its numbers from (as nextval() names
    it), or None for any other default."""
    found = _SEQUENCE_DEFAULT.fullmatch(default) if default is not None else None
    return found[1].replace("''", "'") if found is not None else None


def _read_plan(expression: exp.Expression):
    """What a query reads, for SERIALIZABLE: ((table, alias, WHERE condition, index of its
    first ?), None) for a single-table SELECT, else (None, every table it names)."""
    tables = _table_nodes(expression)
    simple = (isinstance(expression, exp.Select) and len(tables) == 1 and not any(expression.find_all(exp.CTE))
              and not expression.args.get("joins")
              and isinstance(getattr(expression.args.get("from_"), "this", None), exp.Table)
              and sum(1 for n in expression.walk() if isinstance(n, (exp.Select, exp.Subquery))) == 1)
    if not simple:
        return None, [table_name(t) for t in tables]
    table = tables[0]
    where = expression.args.get("where")
    alias = identifier(table.alias) if table.alias else table_name(table).name
    return (table_name(table), alias, where.this if where is not None else None, _where_offset(expression)), None


def _where_offset(expression: exp.Expression) -> int:
    """The index, among the statement's ? in the order they bind, of its WHERE clause's first
    ? (0 if none)."""
    where = expression.args.get("where")
    inside = {id(n) for n in where.this.dfs()} if where is not None else set()
    return next((i for i, n in enumerate(_in_sql_order(expression)) if id(n) in inside), 0)


def _in_sql_order(node: exp.Expression) -> Iterator[exp.Placeholder]:
    """The ? of ``node`` in the order its SQL holds them, which is the order they bind in.
    (Not ``dfs()``'s: a parsed query's clauses are in its args in the order the parser set
    them, a LIMIT before its FROM and WHERE; a query's are taken in the order SQL writes them.)"""
    if isinstance(node, exp.Placeholder):
        yield node
        return
    for key in (type(node).arg_types if isinstance(node, exp.Query) else node.args):
        value = node.args.get(key)
        for child in (value if isinstance(value, list) else (value,)):
            if isinstance(child, exp.Expression):
                yield from _in_sql_order(child)


@dataclass(frozen=True)
class JoinPlan:
    """What a join's WHERE (and ON) say about its tables' rows (``_join_plan``)."""

    aliases: dict  # table name -> its alias
    where: exp.Expression
    offset: int  # the index of the WHERE clause's first ? among the statement's
    #: (table, column, other table, its column): conjuncts ``a.x = b.y`` every result row meets
    equalities: tuple


def _join_plan(expression: exp.Expression) -> JoinPlan | None:
    """A SELECT of tables joined, each once, whose WHERE may pin some by a key, or None.

    A top-level conjunct of WHERE - ``alias.column = value``, or ``a.x = b.y`` - holds for
    every result row, with non-null values: a row null-extended by an outer join fails it.
    So a table may be narrowed, before the join, to its rows with that value (or with a value
    the other table's remaining rows hold) without changing the result. ON conjuncts ``a.x =
    b.y`` count too when every join is an inner one. Only plain joins qualify (ON, CROSS or a
    comma; not USING / NATURAL / LATERAL; no subquery, CTE or set operation anywhere), so each
    column written with an alias belongs to that one table."""
    if not isinstance(expression, exp.Select) or expression.args.get("where") is None:
        return None
    if any(isinstance(n, (exp.Subquery, exp.CTE, exp.SetOperation, exp.Lateral, exp.Unnest)) or
           (isinstance(n, exp.Select) and n is not expression) for n in expression.walk()):
        return None
    source = expression.args.get("from_")
    items = [source.this if source is not None else None]
    inner = True
    ons = []
    for join in expression.args.get("joins") or ():
        if join.args.get("using") or join.args.get("method") or join.args.get("kind") not in (None, "", "INNER",
                                                                                             "OUTER", "CROSS"):
            return None
        inner = inner and not join.args.get("side") and join.args.get("kind") != "OUTER"
        if join.args.get("on") is not None:
            ons.append(join.args["on"])
        items.append(join.this)
    aliases = {}
    for item in items:
        if type(item) is not exp.Table or not isinstance(item.this, exp.Identifier) or \
                any(v for k, v in item.args.items() if k not in ("this", "db", "alias")):
            return None
        if item.args.get("alias") is not None and item.args["alias"].args.get("columns"):
            return None
        name = table_name(item)
        if name in aliases or catalog_views.view(name.db, name.name) is not None:
            return None
        aliases[name] = identifier(item.alias) if item.alias else name.name
    if len(set(aliases.values())) != len(aliases):
        return None
    where = expression.args["where"]
    tables = {alias: name for name, alias in aliases.items()}
    equalities = []
    for condition in [where.this, *(ons if inner else ())]:
        for c in (condition.flatten() if isinstance(condition, exp.And) else [condition]):
            if type(c) is exp.EQ and all(isinstance(side, exp.Column) and side.table and
                                         identifier(side.table) in tables for side in (c.this, c.expression)):
                a, b = (tables[identifier(side.table)] for side in (c.this, c.expression))
                x, y = identifier(c.this.this), identifier(c.expression.this)
                if a != b:
                    equalities += [(a, x, b, y), (b, y, a, x)]
    return JoinPlan(aliases, where.this, _where_offset(expression), tuple(equalities))


def _table_nodes(expression: exp.Expression) -> list[exp.Table]:
    """The references to tables in ``expression``: not to its CTEs, not table functions."""
    ctes = cte_names(expression)
    return [t for t in expression.find_all(exp.Table) if isinstance(t.this, exp.Identifier)
            and not (t.args.get("db") is None and identifier(t.this) in ctes)
            and catalog_views.view(table_name(t).db, table_name(t).name) is None]


def _tables_named(parts) -> list[st.TableName]:
    """The tables the expressions ``parts`` name, each once (``_table_nodes``)."""
    names = []
    for part in parts:
        for t in _table_nodes(part) if part is not None else ():
            name = table_name(t)
            if name not in names:
                names.append(name)
    return names


def _lock_clause(locks: tuple) -> str:
    """How a SELECT's first locking clause is written (``FOR UPDATE``, ``FOR KEY SHARE``...)."""
    lock = locks[0]
    return f"FOR {'NO KEY ' if lock.args.get('key') and lock.args.get('update') else ''}" \
           f"{'KEY ' if lock.args.get('key') and not lock.args.get('update') else ''}" \
           f"{'UPDATE' if lock.args.get('update') else 'SHARE'}"


@dataclass(frozen=True)
class LockingPlan:
    """What a SELECT's locking clause locks: the rows of ``table`` its ``where`` matches (its
    first ? is the statement's ``offset``-th); ``nowait``: fail at once on a row another holds,
    ``skip``: pass over it (SKIP LOCKED); ``limited``: LIMIT / OFFSET keep only some rows,
    so only those are locked."""

    table: st.TableName
    alias: str
    where: exp.Expression | None
    offset: int
    nowait: bool
    skip: bool
    limited: bool

    @property
    def row_by_row(self) -> bool:
        """Are the rows locked one after another in the query's order, the query answered
        from those locked (``Executor._lock_and_take``)? Otherwise every row the WHERE
        matches is locked and the query then reads the table."""
        return self.skip or self.limited


def _locking_plan(expression: exp.Expression, locks: tuple) -> LockingPlan:
    """A SELECT with a locking clause: what it locks (``LockingPlan``). Only a SELECT from one
    table without joins, subqueries or CTEs - the rows to lock are that table's; PostgreSQL's
    own refusals (aggregates, GROUP BY, DISTINCT, window functions) are 0A000 as there."""
    clause = _lock_clause(locks)
    simple, _ = _read_plan(expression)
    if simple is None:
        raise errors.NotSupportedError(
            f"{clause} is supported in a SELECT from one table, without joins, subqueries or WITH")
    for arg, what in (("group", "GROUP BY clause"), ("having", "HAVING clause"), ("distinct", "DISTINCT clause")):
        if expression.args.get(arg):
            raise errors.NotSupportedError(f"{clause} is not allowed with {what}")
    for projection in expression.expressions:
        if projection.find(exp.AggFunc):
            raise errors.NotSupportedError(f"{clause} is not allowed with aggregate functions")
        if projection.find(exp.Window):
            raise errors.NotSupportedError(f"{clause} is not allowed with window functions")
    name, alias = simple[0], simple[1]
    nowait = skip = False
    for lock in locks:
        wait = lock.args.get("wait")  # True: NOWAIT, False: SKIP LOCKED (sqlglot refuses both at once)
        nowait = nowait or wait is True
        skip = skip or wait is False
        for of in lock.expressions:
            named = identifier(of.this) if isinstance(of, exp.Table) else of.name
            if named not in (alias, name.name):
                raise errors.UndefinedTable(f'relation "{named}" in {clause} clause not found in FROM clause')
    # the one table in several clauses: NOWAIT if any says so, else SKIP LOCKED if any does (PostgreSQL's rule)
    limited = expression.args.get("limit") is not None or expression.args.get("offset") is not None
    return LockingPlan(*simple, nowait=nowait, skip=skip and not nowait, limited=limited)


def _ordered_sql(ctx: Context, expression: exp.Select, schema: TableSchema) -> str:
    """A locking SELECT's DuckDB SQL as ``Executor._ordered_rows`` runs it: over ``TARGET``
    (which has a row-id column), without LIMIT / OFFSET, its row id and old key added after its
    own columns (so ``ORDER BY 1`` still means its first), ``*`` not showing the row id."""
    select = expression.copy()
    select.set("limit", None)
    select.set("offset", None)
    table = select.args["from_"].this
    alias = identifier(table.alias) if table.alias else table_name(table).name
    select.set("from_", exp.From(this=_aliased(TARGET, alias)))
    for star in select.find_all(exp.Star):
        star.set("except_", [exp.column(ROWID)])
    select.set("expressions", [*select.expressions, exp.column(ROWID, alias), *_old_key_columns(schema, alias)])
    return select.transform(lambda node: _session_value(ctx, node)).sql(dialect="duckdb")


def _row_lock_refused(version: TableVersion) -> errors.LockNotAvailable:
    """NOWAIT met a row another transaction holds (PostgreSQL's words)."""
    return errors.LockNotAvailable(f'could not obtain lock on row in relation "{version.name}"')


_LOCKED = "txlake_locking_subquery"  # meta of a locking SELECT's place in a write: the index of its rows


def _locking_subqueries(stmt: st.Update | st.Delete):
    """A write's locking subqueries (``Executor._locking_subqueries_run``): (its row-finding parts
    with each locking SELECT marked by its index, [(that SELECT as a query, the indexes of the
    statement's parameters it takes)]). A subquery naming a table of the outer statement (a
    correlated one) is 0A000: it cannot be run first."""
    if isinstance(stmt, st.Update):  # (parameters bind in this order: SET, FROM, WHERE; RETURNING's last)
        template = {"assignments": stmt.assignments, "from_": stmt.from_, "where": stmt.where}
    else:
        template = {"using": stmt.using, "where": stmt.where}
    template = {name: _map_parts(value, lambda part: part.copy()) for name, value in template.items()}
    ordered = [n for value in template.values() for part in _parts_of(value) for n in _in_sql_order(part)]
    queries = []
    for value in template.values():
        for part in _parts_of(value):
            for select in [n for n in part.find_all(exp.Select) if n.args.get("locks")]:
                inner = {id(n) for n in select.walk()}
                own = {t.alias_or_name for t in select.find_all(exp.Table)}
                outer = next((c for c in select.find_all(exp.Column) if c.table and c.table not in own), None)
                if outer is not None:
                    raise errors.NotSupportedError(
                        f"a subquery with {_lock_clause(select.args['locks'])} that refers to the outer query "
                        f'("{outer.sql(dialect="postgres")}") is not supported')
                query = select.copy()
                locks = tuple(query.args["locks"])
                query.set("locks", None)
                queries.append((st.Query(expression=query, locks=locks),
                                [i for i, n in enumerate(ordered) if id(n) in inner]))
                marker = exp.Select()
                marker.meta[_LOCKED] = len(queries) - 1
                select.replace(marker)
    return template, queries


def _parts_of(value) -> list[exp.Expression]:
    """The expressions of a statement part: one (WHERE), a tuple of them (FROM), or SET's
    (column, value) pairs."""
    if value is None:
        return []
    if isinstance(value, exp.Expression):
        return [value]
    return [item[1] if isinstance(item, tuple) else item for item in value]


def _map_parts(value, change):
    """``value`` (as ``_parts_of`` reads it) with ``change`` applied to each of its expressions."""
    if value is None:
        return None
    if isinstance(value, exp.Expression):
        return change(value)
    return tuple((item[0], change(item[1])) if isinstance(item, tuple) else change(item) for item in value)


def _rows_as_select(rows: pa.Table) -> exp.Select:
    """``SELECT * FROM (VALUES ...)`` of a locking subquery's rows, its columns so named."""
    names = rows.column_names
    columns = [c.to_pylist() for c in rows.columns]
    values = []
    for row in zip(*columns):
        literals = [_literal(v) for v in row]
        if any(lit is None for lit in literals):
            raise errors.NotSupportedError("a locking subquery's rows of this type cannot be used by the write")
        values.append(exp.Tuple(expressions=literals))
    select = exp.Select(expressions=[exp.alias_(exp.column(f"__txl_c{i}"), name, quoted=True)
                                     for i, name in enumerate(names)])
    empty = not values
    if empty:  # (VALUES needs a row: one of NULLs, filtered out)
        values = [exp.Tuple(expressions=[exp.null() for _ in names])]
    alias = exp.TableAlias(this=exp.to_identifier("__txl_locked"),
                           columns=[exp.to_identifier(f"__txl_c{i}") for i in range(len(names))])
    select.set("from_", exp.From(this=exp.Values(expressions=values, alias=alias)))
    return select.where(exp.false()) if empty else select


def _arrow(rows: pa.Table | PythonRows) -> pa.Table:
    return rows.table() if isinstance(rows, PythonRows) else rows


def _same_name_column(schema: TableSchema, name: str) -> Column | None:
    """The column DuckDB would take ``name`` for: it matches names case-insensitively, so
    "Col" and col cannot both exist in one table (PostgreSQL would allow it)."""
    return next((c for c in schema.columns if c.name.lower() == name.lower()), None)


def _overriding(schema: TableSchema, columns: list[str], stmt: st.Insert) -> st.Insert:
    """An INSERT into a table with identity columns, as its OVERRIDING clause has it: SYSTEM
    VALUE takes the values given to GENERATED ALWAYS columns; USER VALUE ignores those given to
    any identity column (``insert_projections`` puts their defaults in their place: VALUES
    become a query for it, each DEFAULT of another column its default); without either, 428C9
    for a GENERATED ALWAYS column given anything but DEFAULT."""
    if stmt.overriding is None:
        _refuse_identity_values(schema, columns, stmt.source)
    elif stmt.overriding == "USER" and isinstance(stmt.source, exp.Values):
        # (an identity column's DEFAULT: NULL here, its default is taken later - once)
        values = _fill_defaults(stmt.source.copy(), [replace(schema.column(name), default=None)
                                                     if name in schema.identity else schema.column(name)
                                                     for name in columns])
        stmt = replace(stmt, source=exp.select("*").from_(exp.Subquery(
            this=values, alias=exp.TableAlias(this=exp.to_identifier("__txl_values")))))
    return stmt


def _refuse_identity_values(schema: TableSchema, columns: list[str], source) -> None:
    """428C9 if a VALUES row gives a GENERATED ALWAYS AS IDENTITY column anything but DEFAULT
    (a query's rows: ``insert_projections``, which knows how many columns they give)."""
    if not schema.always or not isinstance(source, exp.Values):
        return
    for i, name in enumerate(columns):
        if name in schema.always and any(
                not (isinstance(row.expressions[i], exp.Var) and row.expressions[i].name.upper() == "DEFAULT")
                for row in source.expressions if i < len(row.expressions)):
            raise _identity_error(schema.column(name), "insert a non-DEFAULT value into")


def _assigning_generated(schema: TableSchema, assigned: dict, alias: str) -> dict:
    """An UPDATE's (ON CONFLICT DO UPDATE's) assignments with the generated columns they may
    change as assigned too - their old values, computed again by ``_check_rows`` - so that their
    keys and foreign keys are checked as a SET column's are."""
    return {**assigned, **{name: exp.column(name, alias) for name in generated.touched(schema, assigned)}}


def _refuse_identity_updates(schema: TableSchema, assigned, defaults) -> None:
    """428C9 for an UPDATE SET (or ON CONFLICT DO UPDATE SET) of a GENERATED ALWAYS AS
    IDENTITY column to anything but DEFAULT."""
    if not schema.always:
        return
    for name in assigned:
        if name in schema.always and name not in defaults:
            raise errors.ProgrammingError(
                f'column "{name}" can only be updated to DEFAULT\nDETAIL:  Column "{name}" is an identity '
                "column defined as GENERATED ALWAYS.", sqlstate="428C9")


def _identity_error(col: Column, what: str) -> errors.Error:
    return errors.ProgrammingError(
        f'cannot {what} column "{col.name}"\nDETAIL:  Column "{col.name}" is an identity column defined as '
        "GENERATED ALWAYS.\nHINT:  Use OVERRIDING SYSTEM VALUE to override.",
        sqlstate="428C9")


def insert_projections(schema: TableSchema, columns: list[str], width: int, named: bool,
                       always_given: bool = False, overriding: str | None = None, inet_sources=()) -> list[str]:
    """The table's row as an INSERT builds it from a source of ``width`` values "c0", "c1", ...
    for ``columns`` (``named``: the statement listed them): each cast to its column's type, the
    columns left out their defaults (or NULL); OVERRIDING SYSTEM VALUE: GENERATED ALWAYS
    columns take the values given, USER VALUE: identity columns their defaults all the same. A
    query's value for a generated column (not named: ``generated.refuse_values`` refused those) is
    428C9. A cidr column takes an inet value of ``inet_sources`` (their positions) by inet_to_cidr."""
    if width > len(columns):
        if schema.sequence is not None:
            raise errors.WrongObjectType("cannot change sequence")
        raise errors.SyntaxError("INSERT has more expressions than target columns")
    if named and width < len(columns):
        raise errors.SyntaxError("INSERT has more target columns than expressions")
    supplied = {name: i for i, name in enumerate(columns[:width])}
    if overriding is not None:
        always_given = True
        if overriding == "USER":
            supplied = {name: i for name, i in supplied.items() if name not in schema.identity}
    projections = []
    for col in schema.columns:
        if col.always and col.name in supplied and not always_given:
            raise _identity_error(col, "insert a non-DEFAULT value into")
        if col.generated is not None and col.name in supplied and not always_given:
            raise generated.value_given(col.name)
        if col.name in supplied:
            value = f'"c{supplied[col.name]}"'
        else:
            value = _default_sql(col.default) if col.default else "NULL"
        if col.type.kind == "CIDR" and supplied.get(col.name, -1) in inet_sources:
            projections.append(f'{network.TO_CIDR}({value}) AS "{col.name}"')
            continue
        projections.append(f'{_cast_sql(value, col.type)} AS "{col.name}"')
    return projections


def _placeholders(*parts: exp.Expression | None) -> int:
    """How many ``?`` the given parts of a statement hold."""
    return sum(1 for p in parts if p is not None for _ in p.find_all(exp.Placeholder))


def _set_order(schema: TableSchema, assigned: dict) -> list[Column]:
    """The columns an UPDATE computes, assigned ones first in SET order: DuckDB binds ``?``
    in the order they appear, so the generated SQL must keep the statement's order."""
    return [*(schema.column(n) for n in assigned), *(c for c in schema.columns if c.name not in assigned)]


# The DATE and TIMESTAMP values Python holds (years 1 to 9999), as the stored integers: txlake
# reads rows as Python values (a point write's rows, a compaction of small files, a fetch), so
# it refuses to write others - DuckDB's 'infinity' and years past 9999 - as PostgreSQL
# refuses dates out of its range (22008)
_PYTHON_RANGES = {
    "DATE": (pa.int32(), -719162, 2932896),
    "TIMESTAMP": (pa.int64(), -62135596800000000, 253402300799999999),
    "TIMESTAMPTZ": (pa.int64(), -62135596800000000, 253402300799999999),
    "TIME": (pa.int64(), 0, 86399999999),  # (PostgreSQL's 24:00:00 is no Python time)
}
_UTC = zoneinfo.ZoneInfo("UTC")  # (the tzinfo of a TIMESTAMPTZ's values in Arrow)


def fit_varchar(length: int, values, type_name: str = "character varying"):
    """VARCHAR(length) values (Python values or an Arrow array) as PostgreSQL stores them: a
    value longer than ``length`` is 22001, unless the characters past it are all spaces - then
    it is cut to ``length``. None: every value fits as it is; else the values to store.
    Characters are code points, as PostgreSQL counts them (not bytes)."""
    if isinstance(values, (tuple, list)):
        if all(v is None or len(v) <= length for v in values):
            return None
        if any(v is not None and len(v) > length and v[length:].strip(" ") for v in values):
            raise errors.StringDataRightTruncation(f"value too long for type {type_name}({length})")
        return tuple(v[:length] if v is not None else None for v in values)
    over = pc.greater(pc.utf8_length(values), length)
    if not pc.any(over).as_py():
        return None
    beyond = pc.utf8_slice_codeunits(values, length)
    if pc.any(pc.and_(over, pc.not_equal(pc.utf8_rtrim(beyond, characters=" "), ""))).as_py():
        raise errors.StringDataRightTruncation(f"value too long for type {type_name}({length})")
    return pc.if_else(over, pc.utf8_slice_codeunits(values, 0, length), values)


def fit_char(length: int, values):
    """CHAR(length) values as txlake stores them: fitted as a VARCHAR(length)'s, then without
    their trailing spaces (which do not count in a CHAR: ``ColumnType.blank_padded``). None:
    every value is stored as it is."""
    fitted = fit_varchar(length, values, "character")
    values = values if fitted is None else fitted
    if isinstance(values, (tuple, list)):
        if not any(v is not None and v.endswith(" ") for v in values):
            return fitted
        return tuple(v.rstrip(" ") if v is not None else None for v in values)
    trimmed = pc.utf8_rtrim(values, characters=" ")
    return fitted if trimmed.equals(values) else trimmed


def fit_type(col_type: ColumnType, values):
    """``fit_varchar`` for the values of a column of ``col_type``: of a VARCHAR(n), or of an
    array of VARCHAR(n), whose elements are fitted so (as PostgreSQL's assignment coerces each
    element to the element type's length). None: nothing to fit or every value fits."""
    if col_type.blank_padded:
        return fit_char(col_type.length, values)
    if col_type.kind == "VARCHAR" and col_type.length:
        return fit_varchar(col_type.length, values)
    element = col_type.element
    if element is None or element.kind != "VARCHAR" or not element.length:
        return None
    if isinstance(values, (tuple, list)):
        fitted = [None if v is None else fit_varchar(element.length, v) for v in values]
        if all(f is None for f in fitted):
            return None
        return tuple(v if f is None else list(f) for v, f in zip(values, fitted))
    chunks = values.chunks if isinstance(values, pa.ChunkedArray) else [values]
    elements = [fit_varchar(element.length, chunk.flatten()) for chunk in chunks]
    if all(e is None for e in elements):
        return None
    rebuilt = []
    for chunk, fitted in zip(chunks, elements):
        if fitted is None:
            rebuilt.append(chunk)
            continue
        lengths = pc.fill_null(pc.list_value_length(chunk), 0).to_numpy(zero_copy_only=False)
        offsets = pa.array(np.concatenate([[0], np.cumsum(lengths)]), pa.int32())
        rebuilt.append(pa.ListArray.from_arrays(offsets, fitted, mask=chunk.is_null()))
    return pa.chunked_array(rebuilt, values.type) if isinstance(values, pa.ChunkedArray) else rebuilt[0]


def _check_python_range(col: Column, values: pa.ChunkedArray) -> None:
    as_int, low, high = _PYTHON_RANGES[col.type.kind]
    bounds = pc.min_max(values.cast(as_int))
    if bounds["min"].as_py() < low or bounds["max"].as_py() > high:
        raise errors.DatetimeFieldOverflow(
            f'{col.type.kind.lower()} out of range for column "{col.name}": txlake stores '
            + ("times before 24:00:00" if col.type.kind == "TIME" else "years 1 to 9999"))


# the kinds a value goes into through a macro of PostgreSQL's cast, not DuckDB's CAST
_CAST_MACROS = {"BYTEA": BYTEA_MACRO, "REAL": REAL_MACRO, "BOOLEAN": BOOLEAN_MACRO, "JSONB": JSONB_VALUE,
                "JSON": JSON_VALUE, "INTERVAL": dialect.INTERVAL_VALUE, **inet_input.CASTS}


def _cast_sql(value: str, col_type: ColumnType) -> str:
    """``value`` (SQL) as a column of ``col_type`` takes it - an INSERT, UPDATE, DEFAULT or ALTER
    COLUMN TYPE: DuckDB's CAST, but text into a BYTEA or a BOOLEAN by PostgreSQL's input
    (``BYTEA_MACRO``, ``BOOLEAN_MACRO``: 'on' is true), and a REAL with PostgreSQL's range errors
    (``REAL_MACRO``); into a jsonb its normalised text, a json its text once checked (parser/json_ops.py);
    into an interval its PostgreSQL text, text read by PostgreSQL's input (``INTERVAL_VALUE``)."""
    if col_type.kind == "INTERVAL" and (col_type.fields or col_type.precision is not None):
        return f"{dialect.INTERVAL_VALUE}({value}, {_interval_typmod(col_type)})"
    if col_type.kind in _CAST_MACROS:
        return f"{_CAST_MACROS[col_type.kind]}({value})"
    if col_type.kind == "ARRAY":
        return _cast(sqlglot.parse_one(value, read="duckdb"), col_type).sql(dialect="duckdb")
    return f"CAST({value} AS {col_type.sql()})"


def _interval_typmod(col_type: ColumnType) -> str:
    """An interval type's fields and precision, as ``INTERVAL_VALUE`` takes them."""
    return f"'{col_type.fields or ''}', {6 if col_type.precision is None else col_type.precision}"


def _cast(value: exp.Expression, col_type: ColumnType) -> exp.Expression:
    """``_cast_sql`` of an expression."""
    if col_type.kind == "INTERVAL" and (col_type.fields or col_type.precision is not None):
        return sqlglot.parse_one(_cast_sql(value.sql(dialect="duckdb"), col_type), read="duckdb")
    if col_type.kind in _CAST_MACROS:
        return exp.Anonymous(this=_CAST_MACROS[col_type.kind], expressions=[value])
    if col_type.kind == "ARRAY":
        return array_cast(value, exp.DataType.build(col_type.sql(), dialect="duckdb"))
    return exp.cast(value, exp.DataType.build(col_type.sql(), dialect="duckdb"))


def _fill_defaults(values: exp.Values, columns: list[Column]) -> exp.Values:
    """``INSERT ... VALUES (1, DEFAULT)``: each DEFAULT becomes its column's default (or NULL).
    And each value goes to its column's type, as PostgreSQL's INSERT takes them: DuckDB would
    first give each column of the VALUES one type, and refuse ``(1, 'a'), (2, 5)`` (VARCHAR and
    INTEGER do not combine) - so the values of a column of several rows whose values are not
    all literals of one kind are cast each. ``values`` is the statement's rewritten copy, so it
    may be changed in place."""
    for row in values.expressions:
        for value, col in zip(row.expressions, columns):
            if isinstance(value, exp.Var) and value.name.upper() == "DEFAULT":
                value.replace(_default_value(col))
    if len(values.expressions) > 1:
        for i, col in enumerate(columns):
            column = [row.expressions[i] for row in values.expressions if i < len(row.expressions)]
            kinds = {_literal_kind(value) for value in column} - {"null"}
            if len(kinds) > 1 or "other" in kinds:
                for value in column:
                    inet_to_cidr = col.type.kind == "CIDR" and network.is_inet(value)
                    value.replace(exp.Anonymous(this=network.TO_CIDR, expressions=[value.copy()]) if inet_to_cidr
                                  else _cast(value.copy(), col.type))
    return values


def _literal_kind(value: exp.Expression) -> str:
    """What VALUES could unify a literal with: "string", "number", "boolean", "null", "other"."""
    if isinstance(value, exp.Neg):
        value = value.this
    if isinstance(value, exp.Literal):
        return "string" if value.is_string else "number"
    if isinstance(value, exp.Boolean):
        return "boolean"
    return "null" if isinstance(value, exp.Null) else "other"


def _default_value(col: Column) -> exp.Expression:
    """What DEFAULT means for a column in an INSERT or UPDATE: its default, or NULL."""
    return exp.maybe_parse(_default_sql(col.default), dialect="duckdb") if col.default else exp.null()


@functools.lru_cache(maxsize=256)
def _default_sql(default: str) -> str:
    """A column default (stored as written) as DuckDB runs it: ``now()`` is the transaction's
    start there too."""
    return postgres_semantics(exp.maybe_parse(default, dialect="duckdb")).sql(dialect="duckdb")


@functools.cache
def _volatile_functions() -> frozenset[str]:
    """DuckDB's functions whose value differs from call to call (random(), gen_random_uuid())."""
    with duckdb.connect() as con:
        return frozenset(name for (name,) in con.sql(
            "SELECT DISTINCT function_name FROM duckdb_functions() WHERE stability = 'VOLATILE'").fetchall())


def evaluate_defaults(columns: list[Column], start: datetime.datetime) -> list:
    """The values of ``columns``' defaults (NULL for none), cast to the columns' types, for rows
    that a writer outside a session (a Spark job) inserts in a transaction started at ``start``:
    evaluated once, one value for all the rows. A default whose value differs from row to row
    (it calls a volatile function: random(), gen_random_uuid()) is refused (0A000)."""
    con = duckdb.connect()
    try:
        dialect.postgres_semantics(con)
        con.create_function(CLOCK_FUNCTION, lambda: start, [], duckdb.sqltype("TIMESTAMPTZ"), side_effects=False)
        volatile = _volatile_functions() | {NEXTVAL}
        values = []
        for col in columns:
            if col.default is None:
                values.append(None)
                continue
            sql = _default_sql(col.default)
            tree = json.loads(con.execute("SELECT json_serialize_sql(?)", [f"SELECT {sql}"]).fetchone()[0])
            if volatile & set(_functions_called(tree)):
                raise errors.NotSupportedError(
                    f'the default of column "{col.name}" ({col.default}) differs from row to row: '
                    "give the column's values instead")
            values.append(con.execute(f"SELECT {_cast_sql(sql, col.type)}").fetchone()[0])
        return values
    except duckdb.Error as e:
        raise translate(e) from None
    finally:
        con.close()


def serial_sequences(columns: list[Column], db: str, catalog: CatalogVersion) -> dict[str, Counter]:
    """Column name -> the counter of the sequence numbering it, for the SERIAL and identity
    columns among ``columns`` of a table in database ``db`` of ``catalog``: a writer outside a
    session (a Spark job) takes their numbers itself (``Sequences.reserve``)."""
    found = {}
    for col in columns:
        sequence = sequence_of(col.default)
        if sequence is not None:
            key = sequence_key(sequence, db)
            found[col.name] = counter_of(catalog.table(*key), key)
    return found


def _functions_called(tree):
    """The names of the functions a query that DuckDB serialized (``json_serialize_sql``) calls."""
    if isinstance(tree, dict):
        if tree.get("class") == "FUNCTION":
            yield tree["function_name"]
        for value in tree.values():
            yield from _functions_called(value)
    elif isinstance(tree, list):
        for value in tree:
            yield from _functions_called(value)


def _literal(value) -> exp.Expression | None:
    """A Python parameter value as a SQL literal that DuckDB takes as it took the parameter (to
    keep a predicate after the statement), or None for a value of another type."""
    if value is None:
        return exp.null()
    if isinstance(value, bool):
        return exp.Boolean(this=value)
    if isinstance(value, float) and not math.isfinite(value):
        return exp.cast(exp.Literal.string(str(value)), "DOUBLE")
    if isinstance(value, (int, float)) or isinstance(value, decimal.Decimal) and value.is_finite():
        return exp.Literal.number(value)
    if isinstance(value, datetime.datetime):
        return exp.cast(exp.Literal.string(value.isoformat(sep=" ")), "TIMESTAMPTZ" if value.tzinfo else "TIMESTAMP")
    if isinstance(value, datetime.date):
        return exp.cast(exp.Literal.string(value.isoformat()), "DATE")
    if isinstance(value, str):
        return exp.Literal.string(value)
    if isinstance(value, (bytes, bytearray, memoryview)):  # (DuckDB compares a BLOB with TEXT too)
        return exp.func("from_hex", exp.Literal.string(bytes(value).hex()))
    return None


def _bind(where: exp.Expression, params, offset: int, txn: Transaction) -> exp.Expression | None:
    """``where`` with its ``?`` placeholders replaced by the statement's parameter values, and
    ``now()`` by ``txn``'s start; None if a value has no literal (``_literal``)."""
    where = where.copy()
    order = {}
    index = itertools.count(offset)
    for node in where.dfs():
        if isinstance(node, exp.Placeholder):
            order[id(node)] = _literal(params[next(index)])
        elif isinstance(node, exp.Anonymous) and node.name == CLOCK_FUNCTION:
            order[id(node)] = _literal(txn.start_time)
        elif isinstance(node, exp.Anonymous) and node.name == STATEMENT_CLOCK:
            return None  # (the statement's time: evaluated again later, it would have moved)
        elif _is_session_value(node):
            return None  # (current_schema() ...: SSI's own connection would answer DuckDB's)
    if any(v is None for v in order.values()):
        return None
    if not order:
        return where
    return where.transform(lambda n: order.get(id(n), n), copy=False)


def _commit_kind(change) -> tuple[str, int, int]:
    from txlake.storage import version as v
    if isinstance(change, v.CreateTable):
        return "CREATE", 0, 0
    if isinstance(change, v.DropTable):
        return "DROP", 0, 0
    if isinstance(change, v.RenameTable):
        return "RENAME", 0, 0
    added, deleted = change.rows_added, change.rows_deleted
    if change.moved:  # deletions it carries over are other commits' (counted there)
        return "COMPACT", 0, 0
    if change.schema is not None:
        return "ALTER", added, deleted
    if added and deleted:
        return "UPDATE", added, deleted
    return ("DELETE" if deleted else "APPEND"), added, deleted


def _check_named_schemas(ctx: Context, named, name: st.TableName) -> None:
    """An unqualified table whose columns are named with schemas ``named`` (``SELECT other.t.k
    FROM t``, parser/semantics.py NAMED_SCHEMAS) must be found in them, as PostgreSQL resolves
    ``schema.table.column`` - else 42P01 in its words."""
    if named and name.db is None:
        found = ctx.locate(name)[0]
        if any(("default" if schema == "public" else schema) != found for schema in named):
            raise errors.UndefinedTable(
                f'invalid reference to FROM-clause entry for table "{name.name}"\nHINT:  There is an entry for '
                f'table "{name.name}", but it cannot be referenced from this part of the query.')


def _aliased(name: str, alias: str) -> exp.Table:
    """A registered Arrow view, under the name the statement uses for its table."""
    return exp.Table(this=exp.to_identifier(name), alias=exp.TableAlias(this=exp.to_identifier(alias)))


def _old_key_columns(schema: TableSchema, alias: str) -> list[exp.Expression]:
    return [exp.alias_(exp.column(k, alias), f"__txl_old_{k}", quoted=True) for k in schema.primary_key]


def _upsert_assigned(version: TableVersion, stmt: st.Insert, before_update) -> dict:
    """The columns ON CONFLICT DO UPDATE may change: its SET's, or any where a BEFORE UPDATE row
    trigger runs."""
    if before_update is not None and before_update.changes_rows:
        return dict.fromkeys(version.schema.names)
    return dict(stmt.on_conflict.assignments)


def _sets_key(schema: TableSchema, assigned) -> bool:
    """Does an UPDATE assigning the columns ``assigned`` set a primary-key column?"""
    return not schema.memo("_key_set", lambda s: frozenset(s.primary_key)).isdisjoint(assigned)


def _memory_bytes(f: DataFile) -> int:
    """The size of an uncommitted file's rows in memory (measured once: ``_apply`` asks after
    each statement)."""
    nbytes = f.caches.get(NBYTES)
    if nbytes is None:
        rows = f.python_rows()
        nbytes = f.caches[NBYTES] = rows.nbytes() if rows is not None else table_bytes(f.data)
    return nbytes


def _changed_since(rowid: int, version: TableVersion, latest: TableVersion) -> bool:
    """Was this committed row deleted or updated in ``latest`` but not in ``version``?"""
    file_id, pos = rowid >> 32, rowid & 0xFFFFFFFF
    if file_id < 0 or pos in version.deleted(file_id):
        return False
    where = latest.locate(file_id, pos)  # a compaction may have moved it: that is no change
    return where is None or where[1] in latest.deleted(where[0])


def _relocated(rows: pa.Table, version: TableVersion) -> pa.Table:
    """``rows`` (with row ids) found in an older version of a table and unchanged since, their
    row ids made ``version``'s: where a compaction moved each (``TableVersion.locate``). A row
    whose move cannot be followed (lineage forgotten) is 40001, the statement's to retry."""
    ids = rows.column(ROWID).to_numpy(zero_copy_only=False)
    moved = ids.copy()
    for i, rowid in enumerate(ids.tolist()):
        if rowid < 0:
            continue  # the transaction's own row: not in any compaction
        where = version.locate(rowid >> 32, rowid & 0xFFFFFFFF)
        if where is None:
            raise errors.SerializationFailure("could not serialize access due to concurrent update")
        moved[i] = (where[0] << 32) | where[1]
    if (moved == ids).all():
        return rows
    return rows.set_column(rows.schema.get_field_index(ROWID), ROWID, pa.array(moved, pa.int64()))


_SOURCE_COLUMN = "__txl_source{}_"


def _source_names(from_items) -> list[str]:
    """The names an UPDATE's FROM / a DELETE's USING tables go by (their aliases, or names)."""
    names = []
    for item in from_items:
        node = item.this if isinstance(item, exp.Join) else item
        alias = node.args.get("alias")
        if alias is not None and alias.this is not None:
            names.append(identifier(alias.this))
        elif isinstance(node, exp.Table) and isinstance(node.this, exp.Identifier):
            names.append(identifier(node.this))
    return names


def _source_rows(from_items, returning) -> list[exp.Expression]:
    """Projections of a row finder that carry, for RETURNING, the row of each FROM / USING
    table a target row joined: its columns, each prefixed with the table's place."""
    if not returning:
        return []
    every = [exp.Anonymous(this="COLUMNS", expressions=[exp.Column(this=exp.Star(), table=exp.to_identifier(n))])
             for n in _source_names(from_items)]
    return [exp.alias_(columns, _SOURCE_COLUMN.format(i) + "\\0", quoted=True)  # (DuckDB writes each name for \\0)
            for i, columns in enumerate(every)]


def _source_tables(from_items, found: pa.Table) -> list[tuple[str, pa.Table]]:
    """The FROM / USING tables' rows ``_source_rows`` carried in ``found``, by table name."""
    tables = []
    for i, name in enumerate(_source_names(from_items)):
        prefix = _SOURCE_COLUMN.format(i)
        columns = [c for c in found.column_names if c.startswith(prefix)]
        tables.append((name, found.select(columns).rename_columns([c[len(prefix):] for c in columns])))
    return tables


def _held_by_prepared(claims, version: TableVersion, rowids: set[int]):
    """The unfinished prepared transaction that deletes or updates one of ``rowids`` (row ids
    of ``version``; its claims name rows as of its snapshot, located here through
    compactions), or None."""
    for record in claims:
        for claim in record.changes:
            if claim.table_id != version.table_id:
                continue
            for fid, rows in claim.deleted.items():
                for pos in rows:
                    where = version.locate(fid, pos)
                    if where is not None and (where[0] << 32) | where[1] in rowids:
                        return record
    return None


def _relocated_ids(rowids: list[int], version: TableVersion) -> list[int]:
    """Committed row ids located in older versions of a table, made ``version``'s (as
    ``_relocated``); 40001 for one that cannot be followed."""
    moved = []
    for rowid in rowids:
        where = version.locate(rowid >> 32, rowid & 0xFFFFFFFF)
        if where is None:
            raise errors.SerializationFailure("could not serialize access due to concurrent update")
        moved.append((where[0] << 32) | where[1])
    return moved


def in_row_order(found: pa.Table) -> pa.Table:
    """The rows an UPDATE (or MERGE) changes, in their row ids' physical order - the order
    their new versions are written in, as PostgreSQL's heap order would have them. DuckDB
    returns them in no fixed order (a streamed scan is parallel, a key lookup goes by key, a
    READ COMMITTED re-check puts the re-checked rows last), and the next statement's
    row-by-row key check (uniques.check_row_by_row) follows the order they are written in."""
    order = uniques.physical_order(found.column(ROWID).to_numpy(zero_copy_only=False))
    return found if order is None else found.take(order)


def _first_per_rowid(result: pa.Table) -> pa.Table:
    """UPDATE ... FROM / DELETE ... USING: a joined row counts once (PostgreSQL picks one)."""
    ids = result.column(ROWID).to_numpy(zero_copy_only=False)
    _, first = np.unique(ids, return_index=True)
    return result.take(np.sort(first)) if len(first) != len(ids) else result


# table functions usable in FROM, evaluated at each execution
def _returned(self: Executor, ctx: Context, call: exp.Anonymous) -> pa.Table:
    """The RETURNING rows of a data-modifying CTE that ran (``Context.returned``)."""
    rows = (ctx.returned or {}).get(call.expressions[0].name if call.expressions else None)
    if rows is None:
        raise errors.ProgrammingError(f"function {call.name}() does not exist", sqlstate="42883")
    return rows


_TABLE_FUNCTIONS = {"txlake_snapshots": Executor._snapshots, "txlake_transactions": Executor._transactions,
                    "txlake_memory": lambda self, ctx, call: self.db.memory(), RETURNED_ROWS: _returned}
