"""A session: one user's conversation with a database, and its current transaction.

The session routes each statement: transaction control and settings it handles itself, data
statements go to the executor inside the current transaction - or, with none open, inside a
single-statement transaction (autocommit), as in PostgreSQL. Errors inside a transaction
block move it to the failed state (25P02 until ROLLBACK). Statements in a failed or finished
transaction leave the warehouse and other sessions untouched: nothing is shared before commit.

A session is used by one thread at a time (``_lock`` serialises calls); the ``Database`` it
shares with other sessions is thread-safe.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import datetime
import functools
import re
import threading
import time
import weakref

from sqlglot import exp

from txlake import errors
from txlake.engine import (backends, catalog_views, checks, comments, copy, cursors, deferred, functions, matviews,
                           notify, policies, prepared, renames, sequence_ddl, table_locks, triggers, uniques,
                           user_types, views, with_writes)
from txlake.engine.database import Database, default_memory_limit, open_database
from txlake.engine.executor import DEFAULT_DB, Context, Executor, Result, lock_wait, relation_kind, with_settings
from txlake.engine.merge import merge
from txlake.engine.mvcc.xact import (DEFAULT_LEVEL, READ_COMMITTED, READ_UNCOMMITTED, Transaction,
                                     TxnState, normalise_level)
from txlake.engine.pg_expr import column_default
from txlake.engine.temp_tables import TEMP_DB, TEMP_ID_PREFIX, TempTables
from txlake.parser import statements as st
from txlake.parser import system_columns
from txlake.parser.parse import named_position, parse, parse_table_name
from txlake.storage.schema import parse_type_name

# Sessions still open when the interpreter exits are closed then: their transactions roll
# back, DuckDB connections close cleanly, and background publishing is flushed.
_open_sessions: "weakref.WeakSet[Session]" = weakref.WeakSet()


@atexit.register
def _close_open_sessions() -> None:
    for session in list(_open_sessions):
        try:
            session.close()
        except Exception:
            pass
    # free DuckDB objects held in reference cycles now, while their bindings can still
    # release them (otherwise nanobind reports them as leaked at interpreter exit)
    import gc
    gc.collect()


SETTINGS_DEFAULTS = {
    "lock_timeout": "0",
    "statement_timeout": "0",
    "search_path": DEFAULT_DB,
    "application_name": "",
    # what the settings pg_dump's scripts open with say (``FIXED_SETTINGS``), and which messages
    # the client gets (``client_min_messages``: NOTICEs and WARNINGs from ``notice`` up)
    "client_encoding": "UTF8",
    "standard_conforming_strings": "on",
    "idle_in_transaction_session_timeout": "0",
    "check_function_bodies": "on",
    "xmloption": "content",
    "client_min_messages": "notice",
    "row_security": "on",
    "default_tablespace": "",
    "default_table_access_method": "heap",
    "datestyle": "ISO, MDY",
    "intervalstyle": "postgres",
}

# settings a session reads but cannot change (55P02), as PostgreSQL 16's: what tools ask of the
# server they talk to
READ_ONLY_SETTINGS = {
    "server_version": "16.0 (txlake)",
    "server_version_num": "160000",
    "server_encoding": "UTF8",
    "integer_datetimes": "on",
    "max_identifier_length": "63",
}

# settings that pg_dump's scripts set and that change nothing txlake does at the values they take
# (the lower-case words each may be): another value is refused (0A000) rather than ignored, as
# it would mean something txlake does not do - strings without standard_conforming_strings, an
# encoding other than UTF-8, a timeout on idle transactions, a tablespace
_BOOLEAN = ("on", "off", "true", "false", "yes", "no", "1", "0")
FIXED_SETTINGS = {
    "client_encoding": ("utf8", "utf-8", "unicode"),
    "standard_conforming_strings": ("on", "true", "yes", "1"),
    "idle_in_transaction_session_timeout": ("0",),
    "check_function_bodies": _BOOLEAN,  # (off: CREATE FUNCTION does not check the body: engine/functions.py)
    "xmloption": ("content", "document"),  # (nor an xml type)
    "client_min_messages": ("debug5", "debug4", "debug3", "debug2", "debug1", "debug", "log", "notice",
                            "warning", "error"),
    "row_security": _BOOLEAN,  # (nor row security policies)
    "default_tablespace": ("",),
    "default_table_access_method": ("heap",),
    "datestyle": ("iso, mdy", "iso", "iso,mdy"),  # (how dates are written and read: txlake's is fixed)
    "intervalstyle": ("postgres",),
}


# what SHOW ALL and pg_settings list (PostgreSQL's descriptions)
SETTING_DESCRIPTIONS = {
    "application_name": "Sets the application name to be reported in statistics and logs.",
    "datestyle": "Sets the display format for date and time values.",
    "intervalstyle": "Sets the display format for interval values.",
    "integer_datetimes": "Shows whether datetimes are integer based.",
    "max_identifier_length": "Shows the maximum identifier length.",
    "server_encoding": "Shows the server (database) character set encoding.",
    "server_version": "Shows the server version.",
    "server_version_num": "Shows the server version as an integer.",
    "check_function_bodies": "Check routine bodies during CREATE FUNCTION and CREATE PROCEDURE.",
    "client_encoding": "Sets the client's character set encoding.",
    "client_min_messages": "Sets the message levels that are sent to the client.",
    "default_table_access_method": "Sets the default table access method for new tables.",
    "default_tablespace": "Sets the default tablespace to create tables and indexes in.",
    "idle_in_transaction_session_timeout": "Sets the maximum allowed idle time between queries, when in a "
                                           "transaction.",
    "row_security": "Enable row security.",
    "standard_conforming_strings": "Causes '...' strings to treat backslashes literally.",
    "xmloption": "Sets whether XML data in implicit parsing and serialization operations is to be considered "
                 "as documents or content fragments.",
    "default_transaction_isolation": "Sets the transaction isolation level of each new transaction.",
    "default_transaction_read_only": "Sets the default read-only status of new transactions.",
    "lock_timeout": "Sets the maximum allowed duration of any wait for a lock.",
    "memory_limit": "Sets the memory the warehouse's data may take in this process.",
    "search_path": "Sets the schema search order for names that are not schema-qualified.",
    "statement_timeout": "Sets the maximum allowed duration of any statement.",
    "timezone": "Sets the time zone for displaying and interpreting time stamps.",
    "transaction_isolation": "Sets the current transaction's isolation level.",
    "transaction_read_only": "Sets the current transaction's read-only status.",
}


# the names PostgreSQL writes in capitals (SHOW ALL, pg_settings), of those txlake keeps in lower case
SETTING_NAMES = {"datestyle": "DateStyle", "intervalstyle": "IntervalStyle", "timezone": "TimeZone"}


class Session:
    def __init__(self, path: str, *, isolation_level: str | None = None, **options):
        # validated first: a refused connect must not leave the shared database referenced
        self.default_isolation = normalise_level(isolation_level) if isolation_level else DEFAULT_LEVEL
        self.start_isolation = self.default_isolation  # (what RESET goes back to: connect()'s level)
        self.db: Database = open_database(path, **options)
        self.pid = backends.next_pid()  # (pg_backend_pid(): engine/backends.py)
        self.executor = Executor(self.db, self.pid)
        self.executor.session = self  # (a trigger's function runs through its session: engine/triggers.py)
        self.default_read_only = False
        self.settings = dict(SETTINGS_DEFAULTS)
        # SET search_path: its text, as SHOW echoes it, and the databases where names resolve, in order
        self.search_path_text = st.DEFAULT_SEARCH_PATH
        self.search_path: tuple[str, ...] = (DEFAULT_DB,)
        self.txn: Transaction | None = None
        self._lock = threading.RLock()
        self.routine_depth = 0  # PL/pgSQL functions and procedures running (nested): engine/plpgsql_calls.py
        self.nonatomic_caller = None  # the PL/pgSQL run whose CALL / DO statement runs now, if it may COMMIT
        self.closed = False
        self.progress = None  # callable(done, total, what) for long maintenance runs
        self._canceled = False  # the statement running was canceled (``cancel``)
        self.prepared: dict[str, prepared.Prepared] = {}  # PREPARE's statements, by name
        self.cursors: dict[str, cursors.Cursor] = {}  # DECLARE's open cursors, by name (engine/cursors.py)
        self.temp = TempTables()  # its temporary tables (engine/temp_tables.py)
        self.executor.temp_schema = self.temp.schema
        # what pg_stat_activity shows of it (engine/system_views.py), stored as statements start and end
        self.backend_start = time.time()
        self.running = False  # a statement runs: 'active'
        self.query = ""  # its text, or the last one's
        self.query_start: float | None = None
        self.state_change = self.backend_start  # (while one runs: query_start)
        self._terminated = False  # pg_terminate_backend ended it: its owner's next call is told (57P01)
        self._released = False  # its DuckDB connection closed, its database let go (``close``)
        self.listener = notify.Listener(self.db.notifications)  # its LISTENs and what it was sent
        _open_sessions.add(self)
        self.db.backends.add(self)

    # --- public --------------------------------------------------------------------------

    @property
    def in_transaction(self) -> bool:
        return self.txn is not None

    @property
    def transaction_failed(self) -> bool:
        return self.txn is not None and self.txn.state is TxnState.FAILED

    def fail(self, error: Exception) -> None:
        """An error outside statement execution (parsing, binding) inside a transaction block
        fails the block, as in PostgreSQL."""
        if self.txn is not None and self.txn.explicit:
            self._failed(self.txn, error)

    def _failed(self, txn: Transaction, error: BaseException) -> None:
        """An error in a transaction block: the block fails (25P02 until ROLLBACK, or ROLLBACK TO
        a savepoint), and - as PostgreSQL aborts the transaction, or the subtransaction since
        the newest savepoint, at the error - the row locks taken since that savepoint (or all)
        are freed now: the rows it changed since can no longer commit, and a transaction waiting
        for one (the survivor of a deadlock) goes on without waiting for this one's ROLLBACK."""
        txn.state = TxnState.FAILED
        txn.error = error
        txn.statements_locked.clear()
        if txn.savepoints:
            self._release_since(txn, txn.savepoints[-1].locks)
        else:
            self.db.locks.release_all(txn)
            self.db.advisory.end_transaction(txn.vxid)

    def _release_since(self, txn: Transaction, marks: tuple) -> None:
        """Free the row, table and advisory locks ``txn`` took after a savepoint's ``marks``."""
        self.db.locks.release_since(txn, marks[0])
        self.db.advisory.end_transaction(txn.vxid, marks[1])

    def parse(self, sql: str):
        try:
            return parse(sql)
        except errors.Error as e:
            self.fail(e)
            raise

    def execute(self, sql: str, params=None) -> list[Result]:
        """Run every statement in ``sql``; one Result per statement."""
        statements = self.parse(sql)
        params = tuple(params) if params is not None else ()
        if params and len(statements) != 1:
            raise errors.ProgrammingError("parameters need exactly one statement", sqlstate="08P01")
        return [self.execute_statement(s, params) for s in statements]

    def cancel(self) -> None:
        """Cancel the statement running in another thread (the shell's Ctrl-C, DB-API
        ``Connection.cancel``), as PostgreSQL's cancel request: its DuckDB query is interrupted
        now, and a statement busy elsewhere (parsing, applying its rows) ends with 57014 at its
        next check, before it commits. The next ``execute`` starts afresh (``uncancel``)."""
        self._canceled = True
        try:
            self.executor.con.interrupt()
        except Exception:  # (a connection closing meanwhile)
            pass
        txn = self.txn
        if txn is not None:  # (a lock wait too)
            self.db.locks.cancel(txn)

    def cancel_statement(self) -> None:
        """``pg_cancel_backend``: cancel the statement the session runs; an idle one is left
        alone (a cancel would otherwise wait for its next statement)."""
        if self.running:
            self.cancel()

    def terminate(self, wait: float | None) -> bool:
        """``pg_terminate_backend``: the session is closed - no statement starts any more, the
        running one is canceled, its transaction is rolled back and its locks are freed - and its
        owner's next call fails with 57P01 (``check_open``). Done here if the session is idle or
        its statement ends within ``wait`` seconds (True); else (False) as that statement ends.
        ``wait`` None: from within the session's own statement, which ends it as it fails."""
        self._terminated = True
        self.closed = True
        self.db.backends.remove(self)
        if wait is None:
            return False
        self.cancel()
        if self._lock.acquire(timeout=wait):
            try:
                self._end_terminated()
            finally:
                self._lock.release()
            return True
        threading.Thread(target=self._end_when_idle, daemon=True).start()
        return False

    def _end_when_idle(self) -> None:
        with self._lock:
            self._end_terminated()

    def _end_terminated(self) -> None:
        """What the end of a terminated PostgreSQL backend frees: its transaction (rolled back)
        and its session-level advisory locks. Its DuckDB connection goes at its owner's next
        call, in the owner's thread (``check_open``)."""
        if self._released:
            return
        if self.txn is not None:
            self._rollback()
        self.executor.advisory.locks.release_session(self.pid)

    def check_open(self) -> None:
        """InterfaceError if the session is closed - but first, once, 57P01 if
        pg_terminate_backend closed it (then it is closed here, as its connection)."""
        if self._terminated:
            self._terminated = False
            self.close()
            raise errors.AdminShutdown("terminating connection due to administrator command")
        if self.closed:
            raise errors.InterfaceError("connection is closed")

    def uncancel(self) -> None:
        self._canceled = False
        txn = self.txn
        if txn is not None:
            self.db.locks.uncancel(txn)

    def _check_canceled(self) -> None:
        if self._canceled:
            raise errors.QueryCanceled("canceling statement due to user request")

    def execute_many(self, stmt: st.Insert, param_sets: list[tuple]) -> Result | None:
        """``stmt`` (an INSERT) once per parameter set, run as one statement (``Executor.insert_many``)
        - only in a transaction block, where a failure fails the block as a failure of any one
        run would. None, having done nothing, where it cannot be run so: outside a block (each
        run is a transaction of its own there), a set of the wrong length, rows the executor
        cannot build together."""
        with self._lock:
            if self.txn is None or not self.txn.explicit or self.transaction_failed or self.closed \
                    or not param_sets or any(len(p) != stmt.param_count for p in param_sets):
                return None
            if stmt.param_order is not None:
                param_sets = [tuple(p[i] for i in stmt.param_order) for p in param_sets]
            return self.execute_statement(stmt, param_sets[0], many=param_sets)

    def execute_statement(self, stmt: st.Statement, params=(), many: list[tuple] | None = None) -> Result:
        """Run ``stmt`` with ``params`` (``many``: an INSERT's parameter sets, ``execute_many``)."""
        with self._lock:
            if self.closed:
                self.check_open()
            if self.transaction_failed and type(stmt) not in _ENDS_FAILED_BLOCK:
                self.txn.check_usable()  # 25P02 for everything else, settings and SHOW included
            if len(params) != stmt.param_count:
                if type(stmt) not in _CONTROL:
                    self.fail(errors.ProgrammingError("parameter count"))
                raise errors.ProgrammingError(
                    f"the statement has {stmt.param_count} placeholders but {len(params)} parameters were passed",
                    sqlstate="08P01")
            if stmt.param_order is not None and many is None:
                params = tuple(params[i] for i in stmt.param_order)
            handler = _CONTROL.get(type(stmt))
            outer = self._shown_running(stmt.text)  # (EXECUTE runs its statement inside: that shows the EXECUTE)
            try:
                if handler is not None:
                    txn = self.txn
                    try:
                        return handler(self, stmt, params) if type(stmt) in _WITH_PARAMS else handler(self, stmt)
                    except errors.Error as e:  # (SET, SHOW, SET TRANSACTION, COMMIT PREPARED ... too)
                        if txn is not None and self.txn is txn and txn.state is TxnState.ACTIVE:
                            self.fail(e)
                        raise
                result = self._run_data_statement(stmt, params, many)
                if result is not None:
                    result.warning = stmt.warning
                    if self.executor.advisory.warnings:  # (pg_advisory_unlock of a lock not held)
                        result.warning = "\n".join(filter(None, (stmt.warning, self.executor.advisory.take_warnings())))
                return result
            except (errors.UndefinedTable, errors.UndefinedColumn) as e:
                if e.position is None and type(stmt) in _POSITIONED:  # (PostgreSQL's LINE / caret)
                    position = named_position(stmt.text, str(e))
                    e.position = position + stmt.offset if position is not None else None
                raise
            except UnicodeEncodeError as e:  # a str holding a lone surrogate (text that was not UTF-8)
                raise errors.DataError(f"invalid byte sequence for encoding \"UTF8\": {e.reason}",
                                       sqlstate="22021") from None
            except OSError as e:  # a full disk, a permission refused - where no layer below said more
                raise errors.file_error(e, f'could not access file "{e.filename}"' if e.filename
                                        else "could not read or write the warehouse's files") from e
            except BaseException:
                if self._terminated:  # (pg_terminate_backend canceled it: the session ends now)
                    self.check_open()
                raise
            finally:
                if outer:
                    self.running, self.state_change = False, time.time()

    def begin(self, isolation: str | None = None, read_only: bool | None = None,
              explicit: bool = True, label: str | None = None) -> Transaction:
        level = normalise_level(isolation) if isolation else self.default_isolation
        self.txn = self.db.begin(_effective(level), self.default_read_only if read_only is None else read_only,
                                 explicit=explicit, label=label)
        self.txn.declared_isolation = level
        if self.temp.tables:
            self.temp.begin(self.txn)
        return self.txn

    def commit(self) -> Result:
        """COMMIT (the statement's, or DB-API's ``commit()``): under the session's lock, and 57P01
        if pg_terminate_backend closed the session meanwhile - it rolled the transaction back, and
        a COMMIT must not report it done (``terminate``)."""
        with self._lock:
            if self.closed:
                self.check_open()
            outer = self._shown_running("COMMIT")
            try:
                txn = self.txn
                if txn is None:
                    return Result(status="COMMIT", notice="there is no transaction in progress", severity="WARNING")
                self.txn = None
                if txn.state is TxnState.FAILED:
                    self._abort_block(txn)
                    return Result(status="ROLLBACK")
                self._end_block(txn, self._commit)
                return Result(status="COMMIT")
            finally:
                if outer:
                    self.running, self.state_change = False, time.time()

    def _shown_running(self, query: str) -> bool:
        """What pg_stat_activity shows while a statement runs (engine/system_views.py): the
        session active, running ``query`` since now. False (and nothing changed) if a statement
        runs already - the one a COMMIT or EXECUTE is part of, which it shows."""
        if self.running:
            return False
        self.running, self.query, self.query_start = True, query, time.time()
        return True

    def _commit(self, txn: Transaction, deadline: float | None = None) -> None:
        """The database commits ``txn``; its temporary tables, lifted out first, are the session's;
        its LISTEN / UNLISTEN / NOTIFY take effect - its notifications queued in the order the
        transactions commit (the queue's lock held across the commit). ``deadline``: its deferred
        checks' statement_timeout (an autocommit statement's own; None: the COMMIT's, from now)."""
        if txn.deferred is not None:
            self._run_deferred(txn, ending=True, deadline=deadline)
        if not txn.notify:
            return self._commit_now(txn)
        with self.db.notifications.ordered() as held:
            self._commit_now(txn)
            self.listener.committed(txn.notify, self.pid, held)

    def _commit_now(self, txn: Transaction) -> None:
        if not self.temp.tables and not txn.temp_created:
            self.db.commit(txn)
            return
        mine = self.temp.take(txn)
        try:
            self.db.commit(txn)
            self.temp.committed(mine, txn.temp_created)
        finally:
            if self.executor.private is not None:  # spilled rows no temporary table holds now go
                self.executor.private.keep_only(self.temp.files())

    def set_label(self, label: str) -> None:
        """Give the open transaction a label (DB-API ``commit(label=...)``)."""
        with self._lock:
            if self.txn is not None:
                if self.txn.label not in (None, label):  # (the label given at BEGIN was dropped)
                    raise errors.InvalidParameterValue(
                        f'the transaction has label "{self.txn.label}" already, not "{label}"')
                self.txn.label = label

    def rollback(self) -> Result:
        """ROLLBACK (the statement's, or DB-API's ``rollback()``): under the session's lock; 57P01
        once a terminated session's owner calls it (``check_open``)."""
        with self._lock:
            if self.closed and self._terminated:
                self.check_open()
            return self._rollback()

    def _rollback(self) -> Result:
        txn = self.txn
        if txn is None:
            return Result(status="ROLLBACK", notice="there is no transaction in progress", severity="WARNING")
        self.txn = None
        self._abort_block(txn)
        return Result(status="ROLLBACK")

    # --- settings a transaction changed (PostgreSQL: SET is undone by a rollback, SET LOCAL
    # at the transaction's end) -----------------------------------------------------------

    def _setting(self, name: str):
        if name == "default_isolation":
            return self.default_isolation
        if name == "default_read_only":
            return self.default_read_only
        if name == "timezone":
            return self.executor.time_zone()
        if name == "search_path":  # (the whole path: settings holds its first database)
            return self.search_path_text
        return self.settings.get(name, "")  # (a custom one set first in this block: "" after its ROLLBACK)

    def _put_setting(self, name: str, value) -> None:
        if name == "default_isolation":
            self.default_isolation = value
        elif name == "default_read_only":
            self.default_read_only = value
        elif name == "timezone":
            self.executor.set_time_zone(value)
        elif name == "search_path":
            self._use_search_path(value)
        else:
            self.settings[name] = value

    def _use_search_path(self, text: str) -> None:
        """Resolve names by the search_path ``text``; settings holds its first database, where
        CREATE TABLE makes tables."""
        self.search_path_text = text
        self.search_path = st.search_path_databases(text)
        self.settings["search_path"] = self.search_path[0]

    def _tracked_set(self, stmt, names: tuple[str, ...], local: bool, apply) -> Result:
        """Run a SET (``apply``) that may change the session settings ``names``; inside a
        transaction block, record what it changed."""
        txn = self.txn if self.txn is not None and self.txn.explicit else None
        if local and txn is None:
            return Result(status="SET", notice="SET LOCAL can only be used in transaction blocks",
                          severity="WARNING")
        if txn is None or not names:
            return apply(self, stmt)
        before = {n: self._setting(n) for n in names}
        result = apply(self, stmt)
        for n in names:
            now = self._setting(n)
            if now != before[n]:
                txn.settings_changed.append((n, before[n], now, local))
        return result

    def _undo_settings(self, txn: Transaction, since: int = 0) -> None:
        """A rollback (to a savepoint): the settings back as they were before the changes
        ``since`` on."""
        for name, old, _, _ in reversed(txn.settings_changed[since:]):
            self._put_setting(name, old)
        del txn.settings_changed[since:]

    def _abort_block(self, txn: Transaction) -> None:
        """ROLLBACK (or the COMMIT / PREPARE of a failed block): the settings it changed undone,
        the cursors it declared closed."""
        self._ended(txn, committed=False)
        self.db.abort(txn)

    def _end_block(self, txn: Transaction, finish) -> None:
        """``finish(txn)`` (its COMMIT or PREPARE), then the settings it changed kept - or, if
        that fails, undone as a rollback undoes them - and its cursors closed but those WITH HOLD
        it committed."""
        try:
            finish(txn)
        except BaseException:
            self._ended(txn, committed=False)
            raise
        self._ended(txn, committed=True)

    def _ended(self, txn: Transaction, committed: bool) -> None:
        self._end_settings(txn, committed)
        if self.cursors:
            cursors.end_transaction(self.cursors, txn, committed)

    def _end_settings(self, txn: Transaction, committed: bool) -> None:
        if not txn.settings_changed:
            return
        if not committed:
            return self._undo_settings(txn)
        after = {}  # the value each LOCAL one goes back to: before it, or a later SET's
        for name, old, new, local in txn.settings_changed:
            if local:
                after.setdefault(name, old)
            elif name in after:
                after[name] = new
        for name, value in after.items():
            self._put_setting(name, value)
        txn.settings_changed.clear()

    def describe_tables(self, kinds=("table", "view", "materialized view", "sequence"), descriptions: bool = False):
        """Relations visible to this session (its transaction's view, or the newest committed),
        of the ``kinds`` asked for (table, view, materialized view, sequence); ``descriptions``: with their
        comments (psql's ``\\dt+``)."""
        import pyarrow as pa
        tables = [t for t in self._visible_tables() if relation_kind(t) in kinds]
        rows = sorted((t.db if t.db != TEMP_DB else self.temp.schema, t.name, len(t.column_types()),
                       t.row_count if t.is_table else None,
                       "partitioned table" if t.schema.partitioning is not None else relation_kind(t),
                       t.schema.comment("relation"))
                      for t in tables)
        columns = {"database": [r[0] for r in rows], "table": [r[1] for r in rows],
                   "columns": [r[2] for r in rows], "rows": pa.array([r[3] for r in rows], pa.int64()),
                   "type": [r[4] for r in rows]}
        if descriptions:
            columns["description"] = pa.array([r[5] or "" for r in rows], pa.string())  # (psql: none is empty)
        return pa.table(columns)

    def describe_table(self, name: str, descriptions: bool = False):
        """The columns of the relation ``name`` as psql's ``\\d`` shows them (of a sequence its
        definition); ``descriptions``: with their comments (``\\d+``)."""
        table = self._described(name)
        if descriptions and not self._visible(name).is_sequence:
            import pyarrow as pa
            table = table.append_column("description", pa.array(
                [text or "" for text in comments.column_comments(self._visible(name))], pa.string()))
        return table

    def _described(self, name: str):
        import pyarrow as pa
        version = self._visible(name)
        if version.is_sequence:  # (as psql's \d of a sequence)
            d = version.schema.sequence
            return pa.table({"type": [d.type], "start": [d.start], "minimum": [d.minimum], "maximum": [d.maximum],
                             "increment": [d.increment], "cycles?": ["yes" if d.cycle else "no"],
                             "cache": [d.cache]})
        if version.is_view:
            names = [n for n, _ in version.column_types()]
            return pa.table({"column": names, "type": [_shown_type(t) for _, t in version.column_types()],
                             "nullable": ["yes"] * len(names), "default": [""] * len(names), "key": [""] * len(names)})
        cols = version.schema.columns
        types = {t.table_id: t.name for t in self._visible_tables() if t.is_type} \
            if any(c.user_type for c in cols) else {}
        return pa.table({
            "column": [c.name for c in cols],
            "type": [types.get(c.user_type) or catalog_views.format_type(c.type) for c in cols],
            "nullable": ["no" if c.not_null else "yes" for c in cols],
            "default": [f"generated {c.identity.lower()} as identity" if c.identity else
                        f"generated always as ({checks.display(c.generated)}) stored" if c.generated is not None else
                        column_default(c.default, c.type, pretty=True) or "" for c in cols],
            "key": ["PRIMARY KEY" if c.name in version.schema.primary_key else "" for c in cols]})

    def describe_types(self, domains: bool = False):
        """psql's ``\\dT`` (every enum and domain: schema, name, an enum's labels) or, with
        ``domains``, ``\\dD`` (the domains: base type, NOT NULL, default, CHECKs)."""
        import pyarrow as pa
        found = sorted((t for t in self._visible_tables() if t.is_type
                        and (t.schema.user_type.is_domain or not domains)), key=lambda t: (t.db, t.name))
        schemas = [catalog_views.schema_name(t.db) for t in found]
        if not domains:
            return pa.table({"schema": schemas, "name": [t.name for t in found],
                             "elements": [", ".join(t.schema.user_type.labels) if not t.schema.user_type.is_domain
                                          else "" for t in found]})
        defined = [t.schema.user_type for t in found]
        return pa.table({"schema": schemas, "name": [t.name for t in found],
                         "type": [d.base.lower() for d in defined],
                         "nullable": ["not null" if d.not_null else "" for d in defined],
                         "default": [d.default or "" for d in defined],
                         "check": [" ".join(user_types.shown(c) for c in d.checks) for d in defined]})

    def describe_functions(self):
        """psql's ``\\df``: the user-defined functions (schema, name, result type, argument
        types, type), by schema and name."""
        import pyarrow as pa
        found = functions.listed(self._visible_tables())
        defined = [t.schema.function for t in found]
        return pa.table({"schema": [catalog_views.schema_name(t.db) for t in found],
                         "name": [d.name for d in defined],
                         "result type": [functions.result_text(d) for d in defined],
                         "argument types": [functions.arguments_text(d) for d in defined],
                         "type": ["proc" if d.procedure else "trigger" if d.returns == "trigger" else "func"
                                  for d in defined]})

    def function_definitions(self, name: str) -> list[str]:
        """psql's ``\\sf NAME``: the CREATE OR REPLACE FUNCTION of each function ``name``
        (``[schema.]name``) names, as pg_get_functiondef writes it (42883 if none)."""
        ref = parse_table_name(name)
        found = [t for t in functions.listed(self._visible_tables()) if t.schema.function.name == ref.name
                 and (t.db == ref.db if ref.db is not None else t.db in self.search_path)]
        if not found:
            raise errors.UndefinedFunction(f'function "{name}" does not exist')
        return [functions.definition_text(t) for t in found]

    def index_lines(self, name: str) -> list[str]:
        """psql's ``\\d`` "Indexes:" lines of the table ``name``: its primary key's and unique
        indexes (``"t_pkey" PRIMARY KEY, btree (id)``), then CREATE INDEX's (``"t_a_idx" btree (a)``)."""
        version = self._visible(name)
        if not version.is_table:
            return []
        return [f'"{index}" {kind}, btree ({", ".join(columns)})'
                + (" NULLS NOT DISTINCT" if " NULLS NOT DISTINCT" in definition else "") + timing
                + (f" WHERE {definition.split(' WHERE (', 1)[1][:-1]}" if " WHERE (" in definition else "")
                for index, columns, kind, definition, timing in catalog_views.unique_indexes(version)] \
            + [f'"{i.name}" {i.method} ({", ".join(i.shown)})'
               + (f" WHERE {i.predicate}" if i.predicate is not None else "") for i in version.schema.indexes]

    def relation_kind(self, name: str) -> str:
        """table, view, materialized view or sequence: what ``name`` is."""
        return relation_kind(self._visible(name))

    def partition_lines(self, name: str, plus: bool = False) -> tuple[list[str], list[str]]:
        """``\\d name``'s partitioning lines: those after the columns (``Partition of: p FOR VALUES
        ...``, ``Partition key: RANGE (ts)``) and those at the end (the partitions: listed with
        ``plus``, else counted)."""
        from txlake.engine import partitions  # (it builds on the executor)
        version = self._visible(name)
        tables = self._visible_tables()
        first, last = [], []
        bound = version.schema.partition_of
        if bound is not None:
            parent = next((t for t in tables if t.table_id == bound.parent), None)
            first.append(f"Partition of: {parent.name if parent is not None else '?'} {bound.shown}")
        key = version.schema.partitioning
        if key is not None:
            first.append(f"Partition key: {key.strategy.upper()} ({', '.join(key.columns)})")
            children = partitions.children_of(tables, version.table_id)
            if not plus:
                last.append(f"Number of partitions: {len(children)} (Use \\d+ to list them.)")
            elif children:
                shown = [f"{c.name} {c.schema.partition_of.shown}" + (", PARTITIONED" if c.schema.partitioning else "")
                         for c in children]
                last.append("Partitions: " + ",\n            ".join(shown))
        return first, last

    def qualified_name(self, name: str) -> str:
        """``schema.name`` of the relation ``name`` (``public.t``; a temporary one's schema
        ``pg_temp_N``), as psql's ``\\d`` titles it."""
        version = self._visible(name)
        schema = self.temp.schema if version.db == TEMP_DB else catalog_views.schema_name(version.db)
        return f"{schema}.{version.name}"

    def sequence_owner(self, name: str) -> str | None:
        """``schema.table.column`` of the column that owns sequence ``name`` (None: none does)."""
        owner = self._visible(name).schema.sequence.owner
        for t in self._visible_tables() if owner is not None else ():
            if t.table_id == owner[0]:
                col = next((c for c in t.schema.columns if c.field_id == owner[1]), None)
                return f"{'public' if t.db == 'default' else t.db}.{t.name}.{col.name}" if col is not None else None
        return None

    def foreign_key_lines(self, name: str) -> tuple[list[str], list[str]]:
        """``\\d name``'s "Foreign-key constraints:" and "Referenced by:" lines."""
        from txlake.engine import foreign_keys
        return foreign_keys.describe(self._visible(name), self._visible_tables(), self.search_path)

    def policy_lines(self, name: str) -> list[str]:
        """``\\d name``'s "Policies:" section (its header first; none without row security or policies)."""
        return policies.describe_lines(self._visible(name).schema)

    def trigger_lines(self, name: str) -> tuple[list[str], list[str]]:
        """``\\d name``'s "Triggers:" and "Disabled user triggers:" lines."""
        return triggers.described(self._visible(name))

    def view_definition(self, name: str) -> str | None:
        """The query of the view or materialized view ``name`` (None for a table), as ``\\d`` shows it."""
        version = self._visible(name)
        return version.schema.view.query if version.is_view else \
            version.schema.matview.query if version.is_matview else None

    def check_constraints(self, name: str) -> list[str]:
        """The CHECK constraints of the table ``name`` as ``\\d`` lists them, by name:
        ``"t_a_check" CHECK (a > 0)``."""
        version = self._visible(name)
        return [f'"{c.name}" {checks.definition(c)}' for c in sorted(version.schema.checks, key=lambda c: c.name)]

    def _visible(self, name: str):
        ref = parse_table_name(name)
        visible = {(v.db, v.name): v for v in self._visible_tables()}
        places = [ref.qualified(db) for db in (TEMP_DB, *self.search_path)]  # (a qualified name: its own)
        version = next((visible[p] for p in places if p in visible), None)
        if version is None or version.is_type:  # (a type is no relation: \\dT lists those)
            raise catalog_views.undefined_table(ref)
        return version

    def _visible_tables(self):
        txn = self.txn
        if txn is not None and txn.snapshot is not None:
            return txn.tables(txn.snapshot.catalog)
        catalog = self.db.warehouse.refresh()
        return txn.tables(catalog) if txn is not None else [*catalog.tables.values(), *self.temp.tables.values()]

    def close(self) -> None:
        with self._lock:
            if self._released:
                return
            if self.txn is not None:
                self._rollback()
            self.temp.tables.clear()  # (their spilled files go with the executor's private folder)
            self.listener.close()
            self.executor.close()
            self.closed = self._released = True
            self.db.backends.remove(self)
            self.db.release()

    # --- data statements -----------------------------------------------------------------

    def _run_data_statement(self, stmt: st.Statement, params, many: list[tuple] | None = None) -> Result | None:
        txn = self.txn
        if txn is None:
            deadline = self._deadline()
            txn = self.begin(explicit=False)
            try:
                result = self._run_in(txn, stmt, params, deadline)
                self._check_canceled()  # (canceled while busy outside DuckDB: nothing commits)
            except BaseException:
                self.txn = None
                self.db.abort(txn)
                raise
            self.txn = None
            self._commit(txn, deadline)  # (its deferred checks are the statement's: its timeout)
            return result
        txn.check_usable()
        try:
            result = self._run_in(txn, stmt, params, self._deadline(), many)
            self._check_canceled()
            return result
        except BaseException as e:
            self._failed(txn, e)
            raise

    def _deadline(self) -> float | None:
        """When a statement starting now reaches its statement_timeout (None: it has none)."""
        timeout = duration_seconds(self.settings["statement_timeout"], "statement_timeout")
        return None if timeout is None else time.monotonic() + timeout

    def _run_in(self, txn: Transaction, stmt: st.Statement, params, deadline: float | None,
                many: list[tuple] | None = None) -> Result | None:
        if deadline is None:
            return self._run_statement(txn, stmt, params, None, many)
        # statement_timeout, as PostgreSQL's: its DuckDB query is interrupted and its lock waits
        # end then; work in Python is not interrupted (see ``cancel``) but fails when it is done
        with self._statement_timer(deadline - time.monotonic()):
            try:
                result = self._run_statement(txn, stmt, params, deadline, many)
            except (errors.LockNotAvailable, errors.QueryCanceled):
                if time.monotonic() < deadline:
                    raise
                result = None
        if time.monotonic() >= deadline:
            raise errors.QueryCanceled("canceling statement due to statement timeout")
        return result

    @contextlib.contextmanager
    def _statement_timer(self, seconds: float):
        """Interrupt this session's DuckDB query after ``seconds``, unless the block has ended."""
        guard, running = threading.Lock(), [True]

        def fire():
            with guard:  # (not once the statement is over: the next one must not be hit)
                if running[0]:
                    try:
                        self.executor.con.interrupt()
                    except Exception:  # (a connection closing meanwhile)
                        pass
        timer = threading.Timer(seconds, fire)
        timer.daemon = True
        timer.start()
        try:
            yield
        finally:
            with guard:
                running[0] = False
            timer.cancel()

    def _run_statement(self, txn: Transaction, stmt: st.Statement, params, deadline: float | None,
                       many: list[tuple] | None = None) -> Result | None:
        search_path = self.search_path if not (self.temp.tables or txn.temp_created) else (TEMP_DB, *self.search_path)
        lock_timeout = duration_seconds(self.settings["lock_timeout"])
        # table locks before the snapshot: a statement that waited sees what it waited for
        taken = table_locks.lock(self.db, txn, stmt, search_path, lock_wait(lock_timeout, deadline))
        if txn.snapshot is None or not txn.uses_transaction_snapshot:
            txn.snapshot = self.db.take_snapshot()
            if not txn.uses_transaction_snapshot:
                txn.follow(txn.snapshot.catalog)
        if taken:
            table_locks.follow(self.db, txn, stmt, taken)
        ctx = Context(txn, txn.snapshot.catalog, self.settings["search_path"], lock_timeout=lock_timeout,
                      search_path=search_path, deadline=deadline, canceled=self._check_canceled,
                      params=params, param_order=stmt.param_order,
                      setting=lambda name: self._shown_setting(name.lower(), name))
        runner = _DATA.get(type(stmt))
        if runner is None:
            raise errors.NotSupportedError(f"statement not supported: {type(stmt).__name__}")
        self.executor.clock_of = txn
        self.executor.sequence_calls.ctx = ctx  # (nextval('s'): the statement's database's, as it sees it)
        if self.executor.advisory.warnings:  # (a failed statement's)
            self.executor.advisory.take_warnings()
        if self.executor.transition:  # (a trigger function's statement, its transition tables named)
            stmt, ctx = triggers.transition_placed(ctx, stmt, self.executor.transition)
        expanded = views.expand(ctx, stmt)  # (a view's query may read settings too)
        if expanded is not stmt and type(expanded) is st.InsteadOfWrite:  # (a view's INSTEAD OF triggers write)
            runner = triggers.instead_of
        if ctx.may_hold("function"):  # (calls of user-defined functions: their bodies in their place)
            if many is not None and functions.calls_any(ctx, expanded):
                return None  # (run once per parameter set: the values are bound into the bodies)
            snapshot = txn.snapshot
            expanded, ctx, params = functions.expand(ctx, expanded, params, self)
            if ctx.routines is not None:  # (PL/pgSQL calls ran statements of their own: this one's state back)
                txn.snapshot, self.executor.clock_of, self.executor.sequence_calls.ctx = snapshot, txn, ctx
                runner = _telling(runner, ctx.routines.messages)
        named = stmt.system_columns if expanded is stmt or not isinstance(expanded, st.Query) else \
            system_columns.named(expanded.expression)  # (a view's query may name them too)
        if named:
            ctx = dataclasses.replace(ctx, system_columns=named)
        reads_settings = stmt.reads_settings or expanded is not stmt
        expanded = with_settings(ctx, expanded) if reads_settings else expanded
        if many is not None:  # (an executemany's INSERT: None if its rows cannot be built together)
            return self.executor.insert_many(ctx, expanded, many)
        executor = self.executor
        if executor.trigger_depth:  # (a trigger's statement: the messages are its firing statement's)
            return runner(executor, ctx, expanded, params)
        if executor.trigger_messages:  # (a failed statement's)
            executor.trigger_messages = []
        result = runner(executor, ctx, expanded, params)
        if executor.trigger_messages:  # (its triggers' RAISEs, told with its result)
            result.messages = [*(result.messages or ()), *executor.trigger_messages]
            executor.trigger_messages = []
        return result

    # --- transaction control -------------------------------------------------------------

    def _begin(self, stmt: st.Begin) -> Result:
        if self.txn is not None:
            return Result(status="BEGIN", notice="there is already a transaction in progress", severity="WARNING")
        if stmt.label is not None:  # refuse a committed label before any work is done
            done = self.db.warehouse.label_commit(stmt.label, aborts=False)
            if done is not None:
                raise errors.DuplicateObject(f'label "{stmt.label}" is already used by commit {done.csn}')
            self.db.warehouse.refuse_held_label(stmt.label)
        self.begin(stmt.isolation, stmt.read_only, label=stmt.label)
        return Result(status="BEGIN")

    def _savepoint(self, stmt: st.Savepoint) -> Result:
        txn = self._in_block("SAVEPOINT")
        txn.check_usable()
        txn.savepoint(stmt.name, (self.db.locks.mark(txn), self.db.advisory.taken_by(txn.vxid)))
        return Result(status="SAVEPOINT")

    def _rollback_to(self, stmt: st.RollbackToSavepoint) -> Result:
        txn = self._in_block("ROLLBACK TO SAVEPOINT")
        try:
            mark = txn.rollback_to(stmt.name)
        except errors.Error as e:
            self._failed(txn, e)
            raise
        self._release_since(txn, mark.locks)
        txn.statements_locked.clear()
        self._undo_settings(txn, mark.settings)
        if self.cursors:
            cursors.rolled_back_to(self.cursors, mark)
        return Result(status="ROLLBACK")

    def _release(self, stmt: st.ReleaseSavepoint) -> Result:
        txn = self._in_block("RELEASE SAVEPOINT")
        txn.check_usable()
        try:
            txn.release(stmt.name)
        except errors.Error as e:
            self._failed(txn, e)
            raise
        return Result(status="RELEASE")

    def _lock_table(self, stmt: st.LockTable) -> Result:
        """``LOCK TABLE``: only in a transaction block (25P01), as PostgreSQL - outside one the
        lock would end with the statement."""
        self._in_block("LOCK TABLE")
        return self._run_data_statement(stmt, ())

    def _in_block(self, what: str) -> Transaction:
        # (a function's EXCEPTION block takes a savepoint in its caller's transaction, a single
        # statement's too: engine/plpgsql.py)
        if self.txn is None or not self.txn.explicit and not self.routine_depth:
            raise errors.NoActiveSqlTransaction(f"{what} can only be used in transaction blocks")
        return self.txn

    def _set_constraints(self, stmt: st.SetConstraints) -> Result:
        """``SET CONSTRAINTS``, as PostgreSQL's (engine/deferred.py): the mode of the deferrable
        constraints named - each name in the first schema of the search path that has a
        constraint so named (or the schema it names): 42704 if none, 42809 for DEFERRED of one
        not deferrable - or of ALL, for the rest of the transaction. IMMEDIATE runs their
        deferred checks now: a violation is this statement's error. Outside a transaction block
        it warns and changes nothing."""
        targets = None if stmt.names is None else self._named_constraints(stmt)
        if self.txn is None or not self.txn.explicit:
            return Result(status="SET CONSTRAINTS", notice="SET CONSTRAINTS can only be used in transaction blocks",
                          severity="WARNING")
        txn = self.txn
        txn.check_usable()
        if not stmt.deferred and deferred.has_pending(txn):
            self._run_deferred(txn, targets)
        if txn.deferred is None:
            txn.deferred = deferred.DeferredChecks()
        txn.deferred.set_mode(targets, stmt.deferred)
        return Result(status="SET CONSTRAINTS")

    def _named_constraints(self, stmt: st.SetConstraints) -> set[tuple[str, str]]:
        """(table id, name) of each deferrable constraint SET CONSTRAINTS names."""
        found = {}  # name -> db -> [(table id, constraint or None: one that is not deferrable)]
        for version in self._visible_tables():
            if version.is_table:
                keys = {c.name: c for c in version.schema.uniques + version.schema.foreign_keys}
                for name in version.schema.constraint_names(version.name):
                    found.setdefault(name, {}).setdefault(version.db, []).append((version.table_id, keys.get(name)))
        targets = set()
        for ref in stmt.names:
            held = found.get(ref.name, {})
            db = next((d for d in ((ref.db,) if ref.db is not None else (TEMP_DB, *self.search_path)) if d in held),
                      None)
            if db is None:
                raise errors.UndefinedObject(f'constraint "{ref.name}" does not exist')
            for table_id, constraint in held[db]:
                if constraint is None or not constraint.deferrable:
                    if stmt.deferred:
                        raise errors.ProgrammingError(f'constraint "{ref.name}" is not deferrable', sqlstate="42809")
                else:
                    targets.add((table_id, ref.name))
        return targets

    def _run_deferred(self, txn: Transaction, targets=None, ending: bool = False,
                      deadline: float | None = None) -> None:
        """The deferred constraint checks of ``txn`` (of ``targets``; None: all), run as a
        statement would (a new snapshot at READ COMMITTED): at COMMIT and PREPARE (``ending``),
        before anything is durable - a violation rolls the transaction back -, and for SET
        CONSTRAINTS ... IMMEDIATE, where a violation is the statement's error (the block fails,
        a savepoint before it can be rolled back to). As that statement they are subject to
        statement_timeout (from now, or ``deadline``) and a cancel: 57014, as a violation."""
        if not deferred.has_pending(txn):
            return
        try:
            if not txn.uses_transaction_snapshot:
                txn.snapshot = self.db.take_snapshot()
                txn.follow(txn.snapshot.catalog)
            search_path = self.search_path if not (self.temp.tables or txn.temp_created) \
                else (TEMP_DB, *self.search_path)
            ctx = Context(txn, txn.snapshot.catalog, self.settings["search_path"],
                          lock_timeout=duration_seconds(self.settings["lock_timeout"]), search_path=search_path,
                          deadline=deadline if deadline is not None else self._deadline(),
                          canceled=self._check_canceled)
            deferred.run(self.executor, ctx, targets)
        except BaseException:
            if ending:
                self.db.abort(txn)
            raise

    def _set_transaction(self, stmt: st.SetTransaction) -> Result:
        if stmt.session:
            if stmt.isolation:
                self.default_isolation = normalise_level(stmt.isolation)
            if stmt.read_only is not None:
                self.default_read_only = stmt.read_only
            return Result(status="SET")
        txn = self.txn
        if txn is None:
            # PostgreSQL warns and ignores it outside a block (each statement its own transaction)
            return Result(status="SET", notice="SET TRANSACTION can only be used in transaction blocks", severity="WARNING")
        txn.check_usable()
        if stmt.isolation:
            level = normalise_level(stmt.isolation)
            if txn.snapshot is not None and level != txn.declared_isolation:
                raise errors.ActiveSqlTransaction(
                    "SET TRANSACTION ISOLATION LEVEL must be called before any query")
            txn.declared_isolation = level
            txn.isolation = _effective(level)
        if stmt.read_only is not None:
            if stmt.read_only is False and txn.read_only and txn.snapshot is not None:
                raise errors.ActiveSqlTransaction(
                    "transaction read-write mode must be set before any query")
            txn.read_only = stmt.read_only
        return Result(status="SET")

    def _set(self, stmt: st.SetVariable) -> Result:
        result = self._set_setting(stmt)
        if not stmt.function:
            return result
        import pyarrow as pa  # (set_config's result: the setting's new value)
        return Result(table=pa.table({"set_config": [self._shown_setting(stmt.name.lower(), stmt.name)]}),
                      rowcount=1, status="SELECT 1")

    def _set_setting(self, stmt: st.SetVariable) -> Result:
        name = stmt.name.lower()
        value = stmt.value
        if name == "all" and value is None:  # RESET ALL: each as its RESET
            for each in _resettable(self):
                self._set_setting(st.SetVariable(name=each))
            return Result(status="RESET")
        if name in ("default_transaction_isolation", "transaction_isolation"):
            level = normalise_level(value) if value is not None else \
                self.default_isolation if name == "transaction_isolation" else self.start_isolation
            if name == "transaction_isolation":
                return self._set_transaction(st.SetTransaction(isolation=level))
            self.default_isolation = level
            return Result(status="SET")
        if name == "memory_limit":  # warehouse-wide in this process, as DuckDB's is per database
            self.db.set_memory_limit(value if value is not None else default_memory_limit())
            return Result(status="SET")
        if name == "default_transaction_read_only":
            self.default_read_only = _bool_setting(name, value) if value is not None else False
            return Result(status="SET")
        if name in ("timezone", "time zone"):  # how timestamps with time zones convert, as PostgreSQL's
            if stmt.local:  # (it would outlive the transaction)
                raise errors.NotSupportedError("SET LOCAL TIME ZONE is not supported: SET TIME ZONE is the session's")
            self.executor.set_time_zone(value.strip("'") if value is not None else None)
            return Result(status="SET")
        if name == "search_path":  # (its text as PostgreSQL keeps it: parser/dialect.py, set_config's as given)
            self._use_search_path(value if value is not None else st.DEFAULT_SEARCH_PATH)
            return Result(status="SET")
        if _CUSTOM_SETTING.fullmatch(name):  # (an application's own: app.tenant - current_setting reads it)
            self.settings[name] = value if value is not None else ""
            return Result(status="SET")
        if name in self.settings:
            if name in ("lock_timeout", "statement_timeout") and value is not None:
                duration_seconds(value, name)  # validate now, as PostgreSQL does
            if name in FIXED_SETTINGS and value is not None:
                _check_fixed_setting(name, value)
            self.settings[name] = value if value is not None else SETTINGS_DEFAULTS[name]
            return Result(status="SET")
        if name in READ_ONLY_SETTINGS:
            raise errors.OperationalError(f'parameter "{name}" cannot be changed', sqlstate="55P02")
        raise errors.UndefinedObject(f'unrecognized configuration parameter "{stmt.name}"')

    def _show(self, stmt: st.Show) -> Result:
        import pyarrow as pa
        name = stmt.name.lower()
        if name == "all":  # (PostgreSQL's columns: name, setting, description)
            names = sorted(SETTING_DESCRIPTIONS)
            return Result(table=pa.table({"name": [SETTING_NAMES.get(n, n) for n in names],
                                          "setting": [self._shown_setting(n, n) for n in names],
                                          "description": [SETTING_DESCRIPTIONS[n] for n in names]}),
                          rowcount=len(names), status="SHOW")
        return Result(table=pa.table({name: [self._shown_setting(name, stmt.name)]}), rowcount=1, status="SHOW")

    def shown_setting(self, name: str) -> str:
        """The value of setting ``name`` as SHOW and current_setting give it."""
        return self._shown_setting(name.lower(), name)

    def _shown_setting(self, name: str, written: str) -> str:
        if name == "transaction_isolation":
            level = self.txn.declared_isolation if self.txn is not None else self.default_isolation
            value = level.lower()
        elif name == "default_transaction_isolation":
            value = self.default_isolation.lower()
        elif name in ("transaction_read_only", "default_transaction_read_only"):
            ro = self.txn.read_only if (self.txn is not None and name == "transaction_read_only") else self.default_read_only
            value = "on" if ro else "off"
        elif name == "search_path":
            value = self.search_path_text
        elif name in self.settings:
            value = self.settings[name]
        elif name in READ_ONLY_SETTINGS:
            value = READ_ONLY_SETTINGS[name]
        elif name == "memory_limit":
            value = f"{self.db.memory_limit >> 20}MB"
        elif name == "timezone":
            value = self.executor.time_zone()
        else:
            raise errors.UndefinedObject(f'unrecognized configuration parameter "{written}"')
        return value

    def _update_settings(self, stmt: st.UpdateSettings, params: tuple) -> Result:
        """``UPDATE pg_settings SET setting = value WHERE ...``, as PostgreSQL's rule: the rows the
        WHERE picks are read first, then each is ``set_config(name, value, false)`` - a SET of the
        session, undone by a rollback of the transaction. Its result is those calls' rows (their
        new values), its tag ``UPDATE 0``."""
        import pyarrow as pa
        select = exp.select(exp.column("name"), exp.cast(stmt.setting.copy(), "VARCHAR")).from_(
            exp.to_table("pg_catalog.pg_settings").as_(stmt.alias or "pg_settings"))
        if stmt.where is not None:
            select = select.where(stmt.where.copy())
        picked = self.execute_statement(st.Query(expression=select, param_count=len(params), text=stmt.text,
                                                 reads_settings=stmt.reads_settings), params).table
        values = [self.execute_statement(st.SetVariable(name=name, value=value, function=True)).table.column(0)[0]
                  .as_py() for name, value in zip(picked.column(0).to_pylist(), picked.column(1).to_pylist())]
        return Result(table=pa.table({"set_config": pa.array(values, pa.string())}), rowcount=0, status="UPDATE 0")

    def _call(self, stmt: st.Call) -> Result:
        from txlake.engine.procedures import PROCEDURES, call
        if stmt.procedure.lower() not in PROCEDURES:
            return self._call_procedure(stmt)
        if self.txn is not None:  # (the block fails, as PostgreSQL's does at VACUUM)
            error = errors.ActiveSqlTransaction(f"CALL {stmt.procedure} cannot run inside a transaction block")
            self.fail(error)
            raise error
        self.executor.clock_of = None
        return call(self, stmt)

    def _call_procedure(self, stmt: st.Call) -> Result:
        """``CALL p(args)`` of a user-defined procedure (engine/plpgsql_calls.py), as a DO runs
        (``_in_own_block``: COMMIT / ROLLBACK in its body end the transaction of its own)."""
        from txlake.engine import plpgsql_calls

        def call(own: bool, caller) -> Result:
            found = self.execute_statement(st.ProcedureArguments(call=stmt, text=stmt.text), ())
            values = plpgsql_calls.argument_values(self, found.procedure.schema.function, found.arguments)
            return plpgsql_calls.call_procedure(self, found.procedure, values, own_transaction=own, caller=caller)
        return self._in_own_block(call)

    def _do(self, stmt: st.Do) -> Result:
        """``DO``: a PL/pgSQL block (engine/plpgsql.py) run as ``_in_own_block`` says; its RAISEs'
        messages are the result's."""
        from txlake.engine import plpgsql
        return Result(status="DO", messages=self._in_own_block(
            lambda own, caller: plpgsql.run_do(self, stmt, own_transaction=own, caller=caller)))

    def _in_own_block(self, run):
        """``run(own, caller)`` in the open transaction block - or, with none, in one of its own
        (``own``), committed at its end, rolled back if it fails (all or nothing, as PostgreSQL's DO
        and CALL). ``caller``: the non-atomic PL/pgSQL run (a DO's, a CALL's own) whose CALL / DO
        statement this is - its COMMIT / ROLLBACK may end that run's transaction too, as
        PostgreSQL's nested CALL / DO without an intervening command."""
        caller, self.nonatomic_caller = self.nonatomic_caller, None  # (only this statement's)
        own = self.txn is None
        if own:
            self.begin(explicit=True)
        try:
            result = run(own, caller)
        except BaseException:
            if own and self.txn is not None:
                self._rollback()
            raise
        if own and self.txn is not None:
            self.commit()
        return result

    def _notification(self, stmt: st.Listen | st.Unlisten | st.Notify) -> Result:
        """LISTEN, UNLISTEN, NOTIFY (engine/notify.py): queued in the transaction block, for its
        COMMIT; outside one, done now - a transaction of the one statement."""
        if isinstance(stmt, st.Notify):
            action, tag = ("notify", *notify.checked(stmt.channel, stmt.payload)), "NOTIFY"
        else:
            channel = None if stmt.channel is None else notify.checked(stmt.channel, None)[0]
            action = ("listen" if isinstance(stmt, st.Listen) else "unlisten", channel)
            tag = type(stmt).__name__.upper()
        if self.txn is None:
            self.listener.committed_alone(action, self.pid)
        else:
            self.txn.check_usable()
            self.txn.notify.append(action)
        return Result(status=tag)

    def _vacuum(self, stmt: st.Vacuum) -> Result:
        """``VACUUM [tables]``: each table (all, if none is named) compacted, its deleted rows
        dropped from its files, as ``CALL txlake.compact`` does - outside a transaction block
        (25001, as PostgreSQL's); ``ANALYZE [tables]``: the tables exist (42P01), nothing else
        to do (DuckDB plans by the statistics each Parquet file holds)."""
        from txlake.engine.procedures import compact, table_arg
        if self.txn is not None and not stmt.analyze:
            error = errors.ActiveSqlTransaction("VACUUM cannot run inside a transaction block")
            self.fail(error)
            raise error
        names = tuple(exp.Literal.string(".".join('"' + part.replace('"', '""') + '"'
                                                  for part in (name.db, name.name) if part))
                      for name in stmt.tables)
        if stmt.analyze:
            for name in names:
                table_arg(self, name)
            return Result(status="ANALYZE")
        self.executor.clock_of = None
        for name in names or (None,):
            compact(self, (name,) if name is not None else (), {})
        return Result(status="VACUUM")

    def _prepare_transaction(self, stmt: st.PrepareTransaction) -> Result:
        txn = self.txn
        if txn is None:
            return Result(status="ROLLBACK", notice="there is no transaction in progress", severity="WARNING")
        self.txn = None
        if txn.state is TxnState.FAILED:  # as PostgreSQL: a failed block is rolled back
            self._abort_block(txn)
            return Result(status="ROLLBACK")
        self._end_block(txn, lambda t: self._prepare_commit(t, stmt.gid))
        return Result(status="PREPARE TRANSACTION")

    def _prepare_commit(self, txn: Transaction, gid: str) -> None:
        """PREPARE TRANSACTION: a prepared transaction outlives the session, its temporary
        tables do not - one that changed them is refused (0A000) and rolled back, as in PostgreSQL."""
        if txn.deferred is not None:
            self._run_deferred(txn, ending=True)
        if self.temp.tables or txn.temp_created:
            if self.temp.changed(self.temp.take(txn)) or txn.temp_created:
                self.db.abort(txn)
                raise errors.NotSupportedError("cannot PREPARE a transaction that has operated on temporary objects")
        if txn.notify:  # (a prepared transaction has no session to listen for, or to send as)
            self.db.abort(txn)
            raise errors.NotSupportedError("cannot PREPARE a transaction that has executed LISTEN, UNLISTEN, or NOTIFY")
        if self.cursors and cursors.holds_cursor(self.cursors, txn):  # (it would outlive the session)
            self.db.abort(txn)
            raise errors.NotSupportedError("cannot PREPARE a transaction that has created a cursor WITH HOLD")
        if self.db.advisory.taken_by(txn.vxid):  # (they would end with the session, not the transaction)
            self.db.abort(txn)
            raise errors.NotSupportedError("cannot PREPARE a transaction that holds transaction-level advisory locks "
                                           "(txlake's end with the session that took them)")
        self.db.prepare(txn, gid)

    # --- prepared statements (engine/prepared.py) -----------------------------------------

    def _prepare(self, stmt: st.Prepare) -> Result:
        """PREPARE: the statement is checked as PostgreSQL analyzes it - a query is planned
        (with LIMIT 0, NULL for its parameters: nothing is read, but its tables must be there)
        and its columns kept; it is the session's from now on, whatever the transaction does."""
        if stmt.name in self.prepared:
            raise errors.DuplicatePreparedStatement(f'prepared statement "{stmt.name}" already exists')
        statement, analyzed = prepared.prepare(stmt)
        if isinstance(analyzed, st.Query) and not analyzed.locks:  # (FOR UPDATE would lock its rows)
            expression = analyzed.expression.copy()
            expression.set("limit", exp.Limit(expression=exp.Literal.number(0)))
            result = self.execute_statement(dataclasses.replace(analyzed, expression=expression))
            prepared.check_columns(statement, result.schema)
        self.prepared[stmt.name] = statement
        return Result(status="PREPARE")

    def _execute(self, stmt: st.Execute, params: tuple) -> Result:
        statement = self.prepared.get(stmt.name)
        if statement is None:
            raise errors.InvalidSqlStatementName(f'prepared statement "{stmt.name}" does not exist')
        inner, params = prepared.execution(statement, stmt, params)
        result = self.execute_statement(inner, params)
        prepared.check_columns(statement, result.schema)
        return result

    def _discard(self, stmt: st.Discard) -> Result:
        """``DISCARD``: PLANS has nothing to drop (a statement's text keys its cached parse, no
        session's plan); SEQUENCES forgets currval / lastval and the numbers taken ahead; TEMP
        drops the session's temporary tables (as DROP TABLE: undone by a ROLLBACK); ALL - only
        outside a transaction block (25001) - does all three, and RESET ALL, DEALLOCATE ALL,
        UNLISTEN * and pg_advisory_unlock_all(), as PostgreSQL's."""
        if stmt.what == "ALL":
            if self.txn is not None:
                error = errors.ActiveSqlTransaction("DISCARD ALL cannot run inside a transaction block")
                self.fail(error)
                raise error
            self._set_setting(st.SetVariable(name="all"))
            self.prepared.clear()
            self.listener.committed_alone(("unlisten", None), self.pid)
            self.cursors.clear()
            self.executor.advisory.locks.release_session(self.executor.advisory.session)
        if stmt.what in ("ALL", "SEQUENCES"):
            self.executor.sequence_calls.forget()
        if stmt.what in ("ALL", "TEMP"):
            self._drop_temporary()
        return Result(status=f"DISCARD {stmt.what}")

    def _drop_temporary(self) -> None:
        versions = self.txn.tables(self.txn.snapshot.catalog) if self.txn is not None and self.txn.snapshot \
            else self.temp.tables.values()
        temporary = [v for v in versions if v.table_id.startswith(TEMP_ID_PREFIX)]
        temp_views = tuple(st.TableName(TEMP_DB, v.name) for v in temporary if v.schema.view is not None)
        tables = tuple(st.TableName(TEMP_DB, v.name) for v in temporary if v.schema.view is None)
        if temp_views:  # (DROP statements as written ones run: CASCADE, transactionally)
            self.execute_statement(st.DropView(views=temp_views, if_exists=True, cascade=True))
        if tables:
            self.execute_statement(st.DropTable(tables=tables, if_exists=True, cascade=True))

    # --- cursors (engine/cursors.py) ---------------------------------------------------------

    def _declare_cursor(self, stmt: st.DeclareCursor, params: tuple) -> Result:
        """DECLARE: only in a transaction block (25P01), but WITH HOLD - declared outside one,
        its query runs in a transaction of its own and the cursor is the session's. The query
        runs now, as any of the block's would; its rows are the cursor's."""
        if not stmt.hold:
            self._in_block("DECLARE CURSOR")
        if stmt.name in self.cursors:
            raise errors.DuplicateCursor(f'cursor "{stmt.name}" already exists')
        rows = self.execute_statement(stmt.query, params).table
        txn = self.txn
        self.cursors[stmt.name] = cursors.Cursor(
            stmt.name, stmt.text, rows, stmt.scroll, stmt.hold, datetime.datetime.now(datetime.timezone.utc),
            txn, tuple(txn.savepoints) if txn is not None else ())
        return Result(status="DECLARE CURSOR")

    def _fetch_cursor(self, stmt: st.FetchCursor) -> Result:
        count, rows = cursors.named(self.cursors, stmt.name).fetch(stmt.direction, stmt.count, stmt.move)
        if stmt.move:
            return Result(rowcount=count, status=f"MOVE {count}")
        return Result(table=rows, rowcount=count, status=f"FETCH {count}")

    def _close_cursor(self, stmt: st.CloseCursor) -> Result:
        if stmt.name is None:
            self.cursors.clear()
            return Result(status="CLOSE CURSOR ALL")
        del self.cursors[cursors.named(self.cursors, stmt.name).name]
        return Result(status="CLOSE CURSOR")

    def _deallocate(self, stmt: st.Deallocate) -> Result:
        if stmt.name is None:
            self.prepared.clear()
            return Result(status="DEALLOCATE ALL")
        if self.prepared.pop(stmt.name, None) is None:
            raise errors.InvalidSqlStatementName(f'prepared statement "{stmt.name}" does not exist')
        return Result(status="DEALLOCATE")

    def _finish_prepared(self, stmt, commit: bool) -> Result:
        what = "COMMIT PREPARED" if commit else "ROLLBACK PREPARED"
        if self.txn is not None and self.txn.explicit:
            raise errors.ActiveSqlTransaction(f"{what} cannot run inside a transaction block")
        self.db.finish_prepared(stmt.gid, commit)
        return Result(status=what)


def _shown_type(stored: str) -> str:
    """A view column's stored type (``INT``, ``VARCHAR(20)``) as PostgreSQL's format_type writes
    it; one no table column can have (an interval) as PostgreSQL names its kind."""
    try:
        return catalog_views.format_type(parse_type_name(stored))
    except errors.Error:
        return catalog_views.pg_type_name(stored)


def _resettable(session: Session) -> tuple[str, ...]:
    """The settings RESET ALL resets, by their SET names (not memory_limit: the process's)."""
    return ("default_transaction_isolation", "default_transaction_read_only", "timezone",
            *(name for name in session.settings if name != "memory_limit"))


def _setting_names(session: Session, stmt: st.SetVariable) -> tuple[str, ...]:
    """The session settings (``Session._setting``) a SET of ``stmt.name`` may change."""
    name = stmt.name.lower()
    if name == "all" and stmt.value is None:
        return tuple(n for each in _resettable(session) for n in _setting_names(session, st.SetVariable(name=each)))
    if name == "default_transaction_isolation":
        return ("default_isolation",)
    if name == "default_transaction_read_only":
        return ("default_read_only",)
    if name in ("timezone", "time zone"):
        return ("timezone",)
    return (name,) if name in session.settings or _CUSTOM_SETTING.fullmatch(name) else ()


# a custom setting's name, as PostgreSQL takes one: a prefix, a dot, a name (SET app.tenant = '7')
_CUSTOM_SETTING = re.compile(r"[a-z_][a-z0-9_$]*(\.[a-z_][a-z0-9_$]*)+")


def _effective(level: str) -> str:
    """READ UNCOMMITTED behaves as READ COMMITTED, as in PostgreSQL."""
    return READ_COMMITTED if level == READ_UNCOMMITTED else level


@functools.lru_cache(maxsize=64)  # asked at every statement
def duration_seconds(value: str, name: str = "lock_timeout") -> float | None:
    """A PostgreSQL duration setting ('0' = no limit, '100' = ms, '2s', '1min') in seconds."""
    text = str(value).strip().strip("'\"").lower().replace(" ", "")
    units = (("ms", 0.001), ("min", 60.0), ("s", 1.0), ("h", 3600.0))
    for unit, factor in units:
        if text.endswith(unit) and text[: -len(unit)].replace(".", "", 1).isdigit():
            seconds = float(text[: -len(unit)]) * factor
            break
    else:
        if not text.replace(".", "", 1).isdigit():
            raise errors.InvalidParameterValue(f'invalid value for parameter "{name}": "{value}"')
        seconds = float(text) / 1000.0
    return seconds or None


def _check_fixed_setting(name: str, value: str) -> None:
    """A value of one of ``FIXED_SETTINGS``: 22023 for one PostgreSQL refuses, 0A000 for one it
    takes but whose meaning txlake does not have."""
    allowed = FIXED_SETTINGS[name]
    if value.lower() in allowed:
        return
    if allowed in (_BOOLEAN, FIXED_SETTINGS["client_min_messages"], FIXED_SETTINGS["xmloption"]):
        raise errors.InvalidParameterValue(f'invalid value for parameter "{name}": "{value}"')
    raise errors.NotSupportedError(f"SET {name} = '{value}' is not supported: txlake has only "
                                   f"'{SETTINGS_DEFAULTS[name]}'")


def _bool_setting(name: str, value: str) -> bool:
    text = value.strip("'\"").lower()
    if text in ("on", "true", "yes", "1"):
        return True
    if text in ("off", "false", "no", "0"):
        return False
    raise errors.InvalidParameterValue(f'parameter "{name}" requires a Boolean value')


_CONTROL = {
    st.Begin: Session._begin,
    st.Commit: lambda s, stmt: s.commit(),
    st.Rollback: lambda s, stmt: s.rollback(),
    st.Savepoint: Session._savepoint,
    st.RollbackToSavepoint: Session._rollback_to,
    st.ReleaseSavepoint: Session._release,
    st.SetTransaction: lambda s, stmt: s._tracked_set(
        stmt, ("default_isolation", "default_read_only") if stmt.session else (), False, Session._set_transaction),
    st.SetVariable: lambda s, stmt: s._tracked_set(stmt, _setting_names(s, stmt), stmt.local, Session._set),
    st.Show: Session._show,
    st.SetConstraints: Session._set_constraints,
    st.NoEffect: lambda s, stmt: Result(status=stmt.tag, notice=stmt.notice),
    st.Call: Session._call,
    st.Vacuum: Session._vacuum,
    st.Listen: Session._notification,
    st.Unlisten: Session._notification,
    st.Notify: Session._notification,
    st.Do: Session._do,
    st.PrepareTransaction: Session._prepare_transaction,
    st.CommitPrepared: lambda s, stmt: s._finish_prepared(stmt, commit=True),
    st.RollbackPrepared: lambda s, stmt: s._finish_prepared(stmt, commit=False),
    st.Prepare: Session._prepare,
    st.Execute: Session._execute,
    st.Deallocate: Session._deallocate,
    st.Discard: Session._discard,
    st.DeclareCursor: Session._declare_cursor,
    st.FetchCursor: Session._fetch_cursor,
    st.CloseCursor: Session._close_cursor,
    st.LockTable: Session._lock_table,
    st.UpdateSettings: Session._update_settings,
}
# (control statements whose handler takes the parameters)
_WITH_PARAMS = (st.Execute, st.UpdateSettings, st.DeclareCursor)

# what a failed transaction block still accepts (PostgreSQL's "commands ignored until end
# of transaction block")
_ENDS_FAILED_BLOCK = (st.Commit, st.Rollback, st.RollbackToSavepoint, st.PrepareTransaction)
# statements whose unknown relation or column PostgreSQL points at (not DDL such as DROP TABLE)
_POSITIONED = (st.Query, st.Insert, st.Update, st.Delete, st.WithWrites, st.Explain, st.CreateView, st.CreateTable,
               st.CreateMatview)

def _telling(runner, messages: list):
    """``runner`` whose Result tells ``messages`` first (the RAISEs of the PL/pgSQL functions the
    statement called: engine/plpgsql_calls.py)."""
    def run(executor, ctx, stmt, params):
        result = runner(executor, ctx, stmt, params)
        if messages:
            result.messages = messages + (result.messages or [])
        return result
    return run


_DATA = {
    st.ProcedureArguments: functions.procedure_arguments,
    st.Query: Executor.query,
    st.Explain: Executor.explain,
    st.Insert: Executor.insert,
    st.Update: Executor.update,
    st.Delete: Executor.delete,
    st.Merge: merge,
    st.WithWrites: with_writes.run,
    st.Truncate: Executor.truncate,
    st.CreateSchema: Executor.create_schema,
    st.DropSchema: Executor.drop_schema,
    st.CreateTable: Executor.create_table,
    st.DropTable: Executor.drop_table,
    st.AlterTable: Executor.alter_table,
    st.Copy: copy.run,
    st.CreateView: views.create_view,
    st.CreateMatview: matviews.create_matview,
    st.RefreshMatview: matviews.refresh_matview,
    st.CreateSequence: sequence_ddl.create_sequence,
    st.AlterSequence: sequence_ddl.alter_sequence,
    st.DropSequence: sequence_ddl.drop_sequence,
    st.CreateType: user_types.create_type,
    st.AlterType: user_types.alter_type,
    st.DropType: user_types.drop_type,
    st.CreateFunction: functions.create_function,
    st.DropFunction: functions.drop_function,
    st.CreateTrigger: triggers.create_trigger,
    st.DropTrigger: triggers.drop_trigger,
    st.AlterTrigger: triggers.alter_trigger,
    st.CreatePolicy: policies.create_policy,
    st.AlterPolicy: policies.alter_policy,
    st.DropPolicy: policies.drop_policy,
    st.AlterRowSecurity: policies.alter_row_security,
    st.DropView: views.drop_view,
    st.AlterView: views.alter_view,
    st.CreateIndex: uniques.create_index,
    st.DropIndex: uniques.drop_index,
    st.AlterIndex: renames.rename_index,
    st.Comment: comments.comment,
    st.LockTable: lambda executor, ctx, stmt, params: Result(status="LOCK TABLE"),  # (taken by table_locks)
}
