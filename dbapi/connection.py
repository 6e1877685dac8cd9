"""PEP 249 Connection and Cursor over an engine Session.

With ``autocommit=False`` (the default, as PEP 249 wants) a transaction begins implicitly at
the first statement, as in psycopg, and lasts until ``commit()`` / ``rollback()``. With
``autocommit=True`` every statement commits on its own unless the SQL says BEGIN.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import io
import ipaddress
import json
import os
import re
import shutil
import sys
import tempfile
import uuid
from decimal import Decimal
from typing import Any, Iterable, Sequence

import pyarrow as pa

from txlake import errors
from txlake.engine.executor import Result, interval_timedelta, python_rows
from txlake.parser.interval_input import interval_in
from txlake.engine.mvcc.xact import normalise_level
from txlake.engine.notify import Notification
from txlake.engine.session import FIXED_SETTINGS, Session
from txlake.parser import inet_input, statements as st
from txlake.storage.schema import text_type, type_from_arrow


class Connection:
    # PEP 249 optional extension: the exception classes as connection attributes
    Error = errors.Error
    Warning = errors.Warning
    InterfaceError = errors.InterfaceError
    DatabaseError = errors.DatabaseError
    DataError = errors.DataError
    OperationalError = errors.OperationalError
    IntegrityError = errors.IntegrityError
    InternalError = errors.InternalError
    ProgrammingError = errors.ProgrammingError
    NotSupportedError = errors.NotSupportedError

    def __init__(self, path: str, *, autocommit: bool = False, isolation_level: str | None = None, **options):
        if not isinstance(path, (str, os.PathLike)) or not str(path):
            raise errors.InterfaceError(f"the warehouse path must be a non-empty str or path, not {path!r}")
        try:
            self._session = Session(os.fspath(path), isolation_level=isolation_level, **options)
        except OSError as e:  # (a file where the directory goes, no permission, ...)
            raise errors.OperationalError(f'could not open the warehouse "{path}": {e.strerror or e}',
                                          sqlstate="08001") from e
        self._autocommit = bool(autocommit)
        self.path = str(path)
        self.notices: list[str] = []
        #: the notifications of the channels the session LISTENs to, as psycopg2's: (pid, channel,
        #: payload) each, gathered after each statement outside a transaction and by ``poll()``
        self.notifies: list[Notification] = []

    # --- properties ----------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._session.closed

    @property
    def autocommit(self) -> bool:
        return self._autocommit

    @autocommit.setter
    def autocommit(self, value: bool) -> None:
        self._check_open()
        if self._session.in_transaction:
            raise errors.ProgrammingError(
                "can't change autocommit inside a transaction: commit or roll back first", sqlstate="25001")
        self._autocommit = bool(value)

    @property
    def isolation_level(self) -> str:
        """The level of new transactions (a string such as "REPEATABLE READ")."""
        return self._session.default_isolation

    @isolation_level.setter
    def isolation_level(self, value: str | None) -> None:
        self._check_open()
        if self._session.in_transaction:
            raise errors.ProgrammingError(
                "can't change isolation_level inside a transaction: commit or roll back first", sqlstate="25001")
        self._session.default_isolation = normalise_level(value) if value else "REPEATABLE READ"

    @property
    def session(self) -> Session:
        return self._session

    # --- PEP 249 -------------------------------------------------------------------------

    def cursor(self, name: str | None = None, *, scrollable: bool | None = None,
               withhold: bool = False) -> "Cursor":
        """A cursor; with ``name``, psycopg's server-side one (``NamedCursor``): its query is
        DECLAREd as a SQL cursor and its rows FETCHed in pieces."""
        self._check_open()
        if name is not None:
            return NamedCursor(self, name, scrollable=scrollable, withhold=withhold)
        return Cursor(self)

    def execute(self, sql: str, params: Sequence[Any] | None = None) -> "Cursor":
        """Shortcut (sqlite3, psycopg 3): a new cursor that has executed ``sql``."""
        return self.cursor().execute(sql, params)

    def commit(self, label: str | None = None) -> None:
        """Commit; with ``label``, exactly once: a label already committed raises
        ``DuplicateObject`` (42710) and the transaction is rolled back."""
        self._check_open()
        self._session.uncancel()  # (a cancel sent before is of no statement: its deferred checks run)
        if label is not None:
            self._session.set_label(label)
        self._notice(self._session.commit(), quiet=True)
        self._hear()

    def rollback(self) -> None:
        self._check_open()
        self._notice(self._session.rollback(), quiet=True)
        self._hear()

    def cancel(self) -> None:
        """Cancel the statement another thread is running on this connection (as psycopg's):
        it fails with QueryCanceled (57014) before it commits. Without one, nothing happens."""
        self._session.cancel()

    def poll(self, timeout: float = 0.0) -> None:
        """Gather the notifications sent to the channels the session LISTENs to into ``notifies``
        (psycopg2's ``poll()``), waiting up to ``timeout`` seconds for one if there is none yet.
        Inside a transaction nothing arrives: PostgreSQL delivers between transactions."""
        self._check_open()
        self._gather(timeout)

    def close(self) -> None:
        self._session.close()  # (also of a session pg_terminate_backend closed: its DuckDB connection)

    def __enter__(self) -> "Connection":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            if not self.closed:
                if exc_type is None:
                    self.commit()
                else:
                    self.rollback()
        finally:
            self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    # --- internals -----------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._session.closed:
            self._session.check_open()  # (InterfaceError; 57P01 first after pg_terminate_backend)

    def _notice(self, result: Result, quiet: bool = False) -> None:
        if quiet:
            return
        if result.warning or result.notice:  # (the parser's first)
            self._tell((("WARNING", result.warning), (result.severity, result.notice)))
        if result.messages:  # (a DO's RAISEs)
            self._tell(result.messages)

    def _tell(self, messages) -> None:
        """``(severity, text)`` messages, each line as psycopg's ``NOTICE:  ...``, those
        ``client_min_messages`` lets through."""
        for severity, text in messages:
            if text and self._wanted(severity):
                self.notices.extend(f"{severity}:  {line}" for line in text.split("\n"))

    def _wanted(self, severity: str) -> bool:
        """Does ``client_min_messages`` let a message of ``severity`` through (as PostgreSQL's:
        INFO always; RAISE's DEBUG is DEBUG1)?"""
        if severity == "INFO":
            return True
        levels = FIXED_SETTINGS["client_min_messages"]  # (from the least severe)
        wanted = "debug1" if severity == "DEBUG" else severity.lower()
        return levels.index(wanted) >= levels.index(self._session.settings["client_min_messages"].lower())

    def open_implicit_block(self, statements) -> bool:
        """Several statements sent as one (one ``execute``, one ``txlake -c``) run as one
        transaction, as PostgreSQL runs a query string of several: in autocommit mode, outside a
        transaction, unless they hold transaction control (or a CALL) of their own. Opens it
        and says so; the caller commits it after the last statement, or rolls it back."""
        if len(statements) < 2 or not self._autocommit or self._session.in_transaction:
            return False
        if not all(s.touches_data or type(s) in _BLOCK_NEUTRAL for s in statements):
            return False
        self._session.begin(explicit=True)
        return True

    def close_implicit_block(self, failed: bool) -> None:
        if self._session.in_transaction:
            self._notice(self._session.rollback() if failed else self._session.commit(), quiet=True)

    def _run_many(self, statement: st.Insert, param_sets: list[tuple]) -> Result | None:
        """An INSERT once per parameter set, as one statement, where the session can run it so
        (``Session.execute_many``: in a transaction block - the one a connection without
        autocommit opens here); else None, having done nothing."""
        session = self._session
        if self._autocommit and not session.in_transaction:
            return None
        if not session.in_transaction:
            session.begin(explicit=True)
        try:
            param_sets = [_values(params) for params in param_sets]
        except errors.Error:
            return None  # (the sets one at a time report it, at the set it is in)
        result = session.execute_many(statement, param_sets)
        if result is not None:
            self._notice(result)
        return result

    def _run(self, statement: st.Statement, params: tuple) -> Result:
        session = self._session
        opens_block = statement.touches_data or statement.needs_block
        if not self._autocommit and not session.in_transaction and opens_block:
            session.begin(explicit=True)
        try:
            params = _values(params)
        except errors.Error as e:  # (binding: in a block, the block fails, as in PostgreSQL)
            session.fail(e)
            raise
        try:
            result = session.execute_statement(statement, params)
        except errors.Error as e:  # (a DO's RAISEs before its error: told, as PostgreSQL sends them)
            self._tell(getattr(e, "notices", ()))
            raise
        self._notice(result)
        self._hear()
        return result

    def _hear(self) -> None:
        """The notifications sent to a listening session, once it is outside a transaction."""
        if self._session.listener.channels:  # (most sessions listen to nothing: no more work)
            self._gather(0.0)

    def _gather(self, timeout: float) -> None:
        if not self._session.in_transaction:
            self._session.listener.poll(timeout)
            self.notifies.extend(self._session.listener.take())


class Cursor:
    def __init__(self, connection: Connection):
        self.connection = connection
        self.arraysize = 1
        self._result: Result | None = None
        self._rows: list[tuple] | None = None
        self._pos = 0
        self._closed = False
        self.rowcount = -1
        self.lastrowid = None
        self.statusmessage: str | None = None

    # --- execution -----------------------------------------------------------------------

    def execute(self, sql: str, params: Sequence[Any] | None = None) -> "Cursor":
        self._check()
        self._set_result(None)  # a failed execute leaves no result of an earlier one
        self.connection._session.uncancel()
        if not isinstance(sql, str):
            raise errors.ProgrammingError(f"the statement must be a str, not {type(sql).__name__}", sqlstate="42601")
        statements = self.connection._session.parse(sql)
        params = _params(params)
        if params and len(statements) != 1:
            raise errors.ProgrammingError("parameters need exactly one statement", sqlstate="08P01")
        result = Result(status="")
        block = self.connection.open_implicit_block(statements)
        try:
            for statement in statements:
                result = self.connection._run(statement, params)
        except BaseException:
            if block:
                self.connection.close_implicit_block(failed=True)
            raise
        if block:
            self.connection.close_implicit_block(failed=False)
        self._set_result(result)
        return self

    def executemany(self, sql: str, seq_of_params: Iterable[Sequence[Any]]) -> "Cursor":
        """Run one statement once per parameter set; the statement is parsed once."""
        self._check()
        self._set_result(None)
        statements = self.connection._session.parse(sql)
        if len(statements) != 1:
            raise errors.ProgrammingError("executemany needs exactly one statement", sqlstate="08P01")
        total = 0
        result = Result(status="")
        param_sets = [_params(params) for params in seq_of_params]
        if isinstance(statements[0], st.Insert) and statements[0].batchable and len(param_sets) > 1:  # (in a block)
            batched = self.connection._run_many(statements[0], param_sets)
            if batched is not None:
                self._set_result(batched)
                return self
        for params in param_sets:
            result = self.connection._run(statements[0], params)
            total += max(result.rowcount, 0)
        self._set_result(Result(rowcount=total, status=result.status))
        return self

    def copy_expert(self, sql: str, file, size: int = 8192) -> "Cursor":
        """psycopg2's ``copy_expert``: ``COPY ... FROM STDIN`` reads the rows from ``file`` (any
        object with ``read(size)``, of text or bytes), ``COPY ... TO STDOUT`` writes them into it
        (``write``: text for a text file, else bytes). The data passes through a temporary file,
        which the COPY reads or writes as it would the file it names; ``rowcount`` says how many
        rows."""
        self._check()
        self._set_result(None)
        self.connection._session.uncancel()
        statements = self.connection._session.parse(sql)
        if len(statements) != 1 or not isinstance(statements[0], st.Copy) or statements[0].file is not None:
            raise errors.ProgrammingError("copy_expert takes one COPY ... FROM STDIN or COPY ... TO STDOUT",
                                          sqlstate="42601")
        stmt = statements[0]
        with tempfile.TemporaryDirectory(prefix="txlake-copy-") as folder:
            path = os.path.join(folder, "data")
            if not stmt.to:
                with open(path, "wb") as spool:
                    while chunk := file.read(size):
                        spool.write(chunk.encode(stmt.options.encoding) if isinstance(chunk, str) else chunk)
            result = self.connection._run(dataclasses.replace(stmt, file=path), ())
            if stmt.to:
                text = isinstance(file, io.TextIOBase)
                with open(path, "r" if text else "rb", **({"encoding": stmt.options.encoding, "newline": ""}
                                                          if text else {})) as produced:
                    shutil.copyfileobj(produced, file, size)
        self._set_result(result)
        return self

    def _set_result(self, result: Result | None) -> None:
        self._result = result
        self._rows = None
        self._pos = 0
        self.rowcount = result.rowcount if result is not None else -1
        self.statusmessage = result.status if result is not None else None

    # --- results -------------------------------------------------------------------------

    @property
    def description(self):
        if self._result is None or self._result.schema is None:
            return None
        return [(f.name, _TEXT_TYPE_CODES.get(text_type(f)) or _type_code(f.type), None, None,
                 getattr(f.type, "precision", None), getattr(f.type, "scale", None), f.nullable)
                for f in self._result.schema]

    def _materialise(self) -> list[tuple]:
        if self._result is None or self._result.schema is None:
            raise errors.ProgrammingError("no results to fetch: the last statement returned no rows",
                                          sqlstate="24000")
        if self._rows is None and self._result.rows is not None:
            self._rows = _typed_values(self._result.schema, list(self._result.rows))
        elif self._rows is None:
            self._rows = _typed_values(self._result.schema, python_rows(self._result.table))
        return self._rows

    def fetchone(self):
        self._check()
        rows = self._materialise()
        if self._pos >= len(rows):
            return None
        self._pos += 1
        return rows[self._pos - 1]

    def fetchmany(self, size: int | None = None) -> list[tuple]:
        self._check()
        rows = self._materialise()
        size = self.arraysize if size is None else size
        chunk = rows[self._pos:self._pos + size]
        self._pos += len(chunk)
        return chunk

    def fetchall(self) -> list[tuple]:
        self._check()
        rows = self._materialise()
        chunk = rows[self._pos:]
        self._pos = len(rows)
        return chunk

    def fetch_arrow_table(self) -> pa.Table:
        """The whole result of the last statement as an Arrow table (no Python row objects)."""
        self._check()
        if self._result is None or self._result.schema is None:
            raise errors.ProgrammingError("no results to fetch", sqlstate="24000")
        return self._result.table

    def __iter__(self) -> "Cursor":  # (a cursor is its own iterator, as sqlite3's and psycopg's)
        return self

    def __next__(self) -> tuple:
        row = self.fetchone()
        if row is None:
            raise StopIteration
        return row

    def callproc(self, procname: str, parameters=()):
        raise errors.NotSupportedError("callproc is not supported: use execute('CALL ...')")

    def nextset(self):
        raise errors.NotSupportedError("a statement gives one result set")

    def setinputsizes(self, sizes) -> None:
        pass

    def setoutputsize(self, size, column=None) -> None:
        pass

    def close(self) -> None:
        self._closed = True
        self._result = None
        self._rows = None

    def __enter__(self) -> "Cursor":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _check(self) -> None:
        if self._closed:
            raise errors.InterfaceError("cursor is closed")
        self.connection._check_open()


class NamedCursor(Cursor):
    """psycopg's server-side cursor (``connection.cursor(name="c")``): ``execute`` declares its
    query as the SQL cursor ``"c"`` (``DECLARE "c" CURSOR WITHOUT HOLD FOR query``; ``withhold``:
    WITH HOLD, ``scrollable``: SCROLL or NO SCROLL), the fetch methods FETCH FORWARD from it -
    iteration ``itersize`` rows at a time - so only the rows asked for become Python objects
    (engine/cursors.py keeps the rest as Arrow); ``scroll`` MOVEs it, ``close`` CLOSEs it. A
    cursor WITHOUT HOLD lives in a transaction block (25P01 in autocommit mode), as psycopg's."""

    def __init__(self, connection: Connection, name: str, *, scrollable: bool | None = None, withhold: bool = False):
        super().__init__(connection)
        self.name, self.scrollable, self.withhold = name, scrollable, withhold
        self.itersize = 100
        self._declared = False
        self._fetched = 0

    def _sql_name(self) -> str:
        return '"' + self.name.replace('"', '""') + '"'

    def _command(self, sql: str) -> Result:
        return self.connection._run(self.connection._session.parse(sql)[0], ())

    def execute(self, sql: str, params: Sequence[Any] | None = None) -> "NamedCursor":
        self._check()
        self._close_declared()
        scroll = "" if self.scrollable is None else "SCROLL " if self.scrollable else "NO SCROLL "
        super().execute(f"DECLARE {self._sql_name()} {scroll}CURSOR {'WITH' if self.withhold else 'WITHOUT'} HOLD "
                        f"FOR {sql}", params)
        self._declared, self._fetched = True, 0
        columns = self._command(f"FETCH FORWARD 0 FROM {self._sql_name()}")  # (its columns: description)
        self._set_result(Result(rows=[], schema=columns.schema, status="DECLARE CURSOR"))
        return self

    def executemany(self, sql: str, seq_of_params: Iterable[Sequence[Any]]) -> "NamedCursor":
        raise errors.NotSupportedError("executemany is not supported on a named cursor")

    def _fetch(self, count: str) -> list[tuple]:
        result = self._fetched_result(count)
        return _typed_values(result.schema, python_rows(result.table))

    def _fetched_result(self, count: str) -> Result:
        """FETCH FORWARD ``count`` of the declared cursor, counted in ``rowcount``."""
        self._check()
        if not self._declared:
            raise errors.ProgrammingError("no results to fetch: execute a query first", sqlstate="24000")
        result = self._command(f"FETCH FORWARD {count} FROM {self._sql_name()}")
        self._fetched += result.table.num_rows
        self.rowcount = self._fetched  # (as psycopg's: the rows fetched so far)
        return result

    def fetchone(self):
        rows = self._fetch("1")
        return rows[0] if rows else None

    def fetchmany(self, size: int | None = None) -> list[tuple]:
        return self._fetch(str(int(self.arraysize if size is None else size)))

    def fetchall(self) -> list[tuple]:
        return self._fetch("ALL")

    def fetch_arrow_table(self) -> pa.Table:
        """The rest of the cursor's rows as an Arrow table."""
        return self._fetched_result("ALL").table

    def __iter__(self):
        while True:
            rows = self._fetch(str(int(self.itersize)))
            yield from rows
            if len(rows) < self.itersize:
                return

    def __next__(self) -> tuple:
        row = self.fetchone()
        if row is None:
            raise StopIteration
        return row

    def scroll(self, value: int, mode: str = "relative") -> None:
        """Move the cursor (psycopg's ``scroll``): ``value`` rows on (back, if negative), or to
        row ``value`` (``mode`` "absolute": 0 is before the first)."""
        self._check()
        if mode not in ("relative", "absolute"):
            raise errors.ProgrammingError(f"bad mode: {mode}. It should be 'relative' or 'absolute'")
        self._command(f"MOVE {'ABSOLUTE' if mode == 'absolute' else 'FORWARD'} {int(value)} FROM {self._sql_name()}")
        self._fetched = int(value) if mode == "absolute" else self._fetched + int(value)

    def close(self) -> None:
        if not self._closed:
            self._close_declared()
        super().close()

    def _close_declared(self) -> None:
        """CLOSE the SQL cursor ``execute`` declared, if it is still open (as psycopg: not in a
        failed transaction block, where the ROLLBACK closes it)."""
        session = self.connection._session
        if self._declared and not session.closed and not session.transaction_failed and self.name in session.cursors:
            self._command(f"CLOSE {self._sql_name()}")
        self._declared = False


# statements that may share an implicit block besides those touching data
_BLOCK_NEUTRAL = (st.SetVariable, st.Show, st.Prepare, st.Deallocate, st.FetchCursor, st.CloseCursor)


def _params(params) -> tuple:
    if params is None:
        return ()
    if type(params) is not tuple and type(params) is not list:  # (the check takes microseconds)
        if isinstance(params, (str, bytes)) or not isinstance(params, Sequence):
            raise errors.ProgrammingError("parameters must be a sequence (qmark style: ?)", sqlstate="08P01")
    return tuple(params)


def _values(params: tuple) -> tuple:
    """The parameter values checked (Connection._run), as PostgreSQL checks them at Bind."""
    for value in params:  # (every execute's path: most values pass by their type alone)
        kind = type(value)
        if kind is str:
            if "\x00" in value:
                raise _nul()
        elif kind not in _PLAIN:
            return tuple(map(_param, params))
    return params


_PLAIN = frozenset((int, float, bool, bytes, type(None)))


def _param(value):
    """A parameter value checked, and a Decimal or a dict made one DuckDB takes as it is
    (``_decimal``; a dict's JSON text)."""
    if isinstance(value, str) and "\x00" in value:
        raise _nul()
    if type(value) is Decimal:
        return _decimal(value)
    if isinstance(value, _NETWORK_TYPES):  # (as psycopg dumps them: their text, read as inet or cidr)
        return inet_input.of_python(value)
    if type(value) is list:  # (an array: its elements are parameter values too)
        if any(type(v) is list for v in value):  # (the array functions would take it as one-dimensional)
            raise errors.NotSupportedError("a multidimensional array parameter (a list of lists) is not supported")
        return [_param(v) for v in value]
    if type(value) is dict:  # a JSON object, as its text (a list stays a list: an array)
        try:
            return json.dumps(value, default=_json_default)
        except (TypeError, ValueError) as e:  # (a value JSON has no form for; a dict within itself)
            raise errors.NotSupportedError(f"a dict parameter is sent as JSON text: {e}") from None
    if isinstance(value, datetime.time) and value.tzinfo is not None:
        raise errors.NotSupportedError('type "time with time zone" is not supported: a datetime.time parameter '
                                       "with a tzinfo would lose its zone (pass it without one, or a datetime)")
    return value


_NETWORK_TYPES = (ipaddress.IPv4Address, ipaddress.IPv6Address, ipaddress.IPv4Network, ipaddress.IPv6Network)


def _json_default(value):
    """A dict parameter's values JSON has no type for, as PostgreSQL's to_json writes them: a
    uuid, a date or a time as its text. (Not a Decimal: a JSON number through a float would
    lose its digits - pass a str or a float.)"""
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _nul() -> errors.DataError:
    """PostgreSQL's text holds no NUL (its wire protocol's strings end at one): 22021, rather
    than a value kept that PostgreSQL would refuse."""
    return errors.DataError('invalid byte sequence for encoding "UTF8": 0x00', sqlstate="22021")


# DuckDB's widest DECIMAL holds 38 digits: it takes a Decimal of more as a DOUBLE, whose 16
# digits a DECIMAL column would then store (12345678901234567890.1234567890123456789 became
# 12345678901234568227.576610816). Rounded to 38 digits (half away from zero, as PostgreSQL
# rounds numeric), it stays a DECIMAL, and a column's scale rounds it as PostgreSQL would.
_DOUBLE_MAX = Decimal(sys.float_info.max)
_DECIMAL_38 = decimal.Context(prec=38, rounding=decimal.ROUND_HALF_UP, Emax=decimal.MAX_EMAX,
                              Emin=decimal.MIN_EMIN)


def _decimal(value: Decimal) -> Decimal:
    """``value`` to at most 38 significant digits, if it has more and fits DECIMAL(38, s).
    A larger one DuckDB takes as a DOUBLE: 22003 past a DOUBLE's range (it would be infinity)."""
    if value.is_finite() and len(value.as_tuple().digits) > 38 and value.adjusted() < 38:
        return _DECIMAL_38.create_decimal(value)
    if value.is_finite() and value.adjusted() >= 308 and abs(value) > _DOUBLE_MAX:
        raise errors.NumericValueOutOfRange(f'"{value}" is out of range for type double precision')
    return value


# a text type's values as a cursor fetches them, as psycopg does: a uuid as ``uuid.UUID``, json
# and jsonb parsed (objects as dicts, numbers as int or float)
# (an interval's stored text reaches a cursor only where no query read it: DuckDB's result is an
# INTERVAL, engine/executor.py's ``_timedeltas``)
_FETCHED = {"UUID": uuid.UUID, "JSON": json.loads, "JSONB": json.loads,
            "INTERVAL": lambda text: interval_timedelta(*interval_in(text)),
            # (an inet as an ``ip_address`` without a mask, else an ``ip_interface``; a cidr an ``ip_network``)
            "INET": lambda text: inet_input.to_python(text, False),
            "CIDR": lambda text: inet_input.to_python(text, True)}


# (a jsonb column's value is JSON once it has been through DuckDB, which has one json type: so
# both are JSON, whichever way a result was made)
_TEXT_TYPE_CODES = {"UUID": "UUID", "JSON": "JSON", "JSONB": "JSON", "INTERVAL": "INTERVAL", "INET": "INET",
                    "CIDR": "CIDR"}


def _typed_values(schema: pa.Schema, rows: list[tuple]) -> list[tuple]:
    """``rows`` with the values of UUID, JSON and JSONB columns (text in Arrow) made Python's."""
    convert = [(i, _FETCHED[kind]) for i, f in enumerate(schema) if (kind := text_type(f)) is not None]
    if not convert or not rows:
        return rows
    out = []
    for row in rows:
        row = list(row)
        for i, to in convert:
            if row[i] is not None:
                row[i] = to(row[i])
        out.append(tuple(row))
    return out


def _type_code(t: pa.DataType) -> str:
    """The type name of a result column (what the PEP 249 type objects compare against)."""
    try:
        return re.sub(r"\(.*?\)", "", type_from_arrow(t).sql())  # (DECIMAL, DECIMAL[]: no precision)
    except errors.NotSupportedError:  # query results may hold types tables cannot (lists, blobs)
        if pa.types.is_binary(t) or pa.types.is_large_binary(t):
            return "BLOB"
        if pa.types.is_time(t):
            return "TIME"
        if pa.types.is_interval(t):
            return "INTERVAL"
        if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
            return _type_code(t.value_type) + "[]"  # (as PostgreSQL names an array type: integer[])
        return str(t).upper()
