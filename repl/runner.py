"""Running typed or scripted input on a connection and printing what happens, as psql does.

A ``Runner`` owns the display settings (psql's ``\\pset``: format, null string, field separator,
tuples only, footer; ``\\x``, ``\\timing``, rows shown) and psql's variables, and takes pieces of
input from the scanner: each SQL statement - its variables put in - goes through the DB-API
cursor (so the transaction rules are the engine's, PostgreSQL's: an error inside a block fails
the block); meta-commands go to ``meta``. Results go to ``out`` (or ``\\o``'s file); errors,
notices and warnings go to ``err``.

Ctrl-C while a statement runs cancels it, and the statement reports 57014 as PostgreSQL's
cancel does. The statement runs in a worker thread while the main thread waits, so the
KeyboardInterrupt always lands in the main thread, which then interrupts the work: first the
session's DuckDB query (DuckDB polls for signals only in some phases of a query, so the
default signal delivery alone misses many cancels). Work in Python code is never interrupted
from outside (that could tear shared state); it ends on its own. The failure of a canceled
statement follows the engine's rules: inside a block the block fails, in autocommit nothing
commits.
"""

from __future__ import annotations

import enum
import shutil
import sys
import threading
import time

import txlake
from txlake.repl import render
from txlake.repl.scanner import CONDITIONALS, META, SQL, Piece, interpolate, scan

# How the shell waits for a statement's worker thread: sleeps from FIRST_POLL seconds, doubled
# up to POLL. A fixed 20 ms sleep made every statement of a script take 20 ms or more (a file of
# 10,000 INSERTs: over 3 minutes asleep); Ctrl-C is still seen within POLL.
FIRST_POLL = 0.0001
POLL = 0.02


class OutputError(Exception):
    """Writing the output failed (a closed pipe, a full disk): not the statement's error, which
    ran; the command stops (``cli.main``)."""

    def __init__(self, cause: OSError):
        super().__init__(str(cause))
        self.cause = cause


class Outcome(enum.Enum):
    OK = "ok"
    ERROR = "error"
    QUIT = "quit"


def canceled() -> txlake.Error:
    return txlake.QueryCanceled("canceling statement due to user request")


class Runner:
    def __init__(self, conn, out=None, err=None, *, csv: bool = False, quiet: bool = False,
                 max_rows: int | None = None, interactive: bool = False):
        self.conn = conn
        self.out = out if out is not None else sys.stdout
        self.err = err if err is not None else sys.stderr
        self.format = "csv" if csv else "aligned"  # psql's \pset format: aligned, unaligned or csv
        # \pset null: how NULL is shown; None: NULL in the aligned formats (never like an empty
        # string), nothing - psql's - in the unaligned one, made for scripts (as in CSV)
        self.null: str | None = None
        self.fieldsep = "|"  # \pset fieldsep (\f): between the values of the unaligned format
        self.tuples_only = False  # \pset tuples_only (\t): the rows alone, no header or footer
        self.footer = True  # \pset footer: the row count after the rows
        self.variables: dict[str, str] = {}  # psql's (\set, -v), put in where :name says
        self.branches: list[list] = []  # psql's \if ... \endif levels (repl/meta.py ``_if``)
        self.last_sql: str | None = None  # the statement run last: a bare \watch runs it again
        self.output = None  # \o FILE: the file results go to instead of ``out``
        self.quiet = quiet
        self.expanded = "off"  # "on", "off" or "auto" (expanded when the table is wider than the terminal)
        self.timing = False
        self.max_rows = max_rows  # aligned/expanded output is cut after this many rows
        self.interactive = interactive
        self.include_depth = 0
        # psql's ON_ERROR_STOP (``-v``, ``\\set``): a script stops at its first error; else it goes on
        self.on_error_stop = False
        self.restrict_key: str | None = None  # psql's \\restrict: only \\unrestrict with this key runs
        self.after_statement = None  # callable() run after each statement (the shell refreshes completion)
        self._cancel_requested = False
        self._location: str | None = None  # FILE:LINE of the script piece running, for errors
        self.source: str | None = None  # the script file running (\ir reads names from its folder)
        self.last_error: str | None = None  # the last error with all its fields, for \errverbose
        # \copy ... from stdin: the script's lines after the command (Piece.data), else None
        self.copy_data: str | None = None
        # the lines \copy ... from stdin reads when the script holds none (the shell: the prompt)
        self.read_data = self._stdin_lines

    # --- output --------------------------------------------------------------------------

    def print(self, text: str = "") -> None:
        self._write(text, self.out)

    @property
    def null_shown(self) -> str:
        """What NULL is shown as in the format in use (``null``)."""
        return self.null if self.null is not None else render.NULL if self.format == "aligned" else ""

    def print_result(self, text: str) -> None:
        """A result (rows, a command tag) to where ``\\o`` sends them."""
        self._write(text, self.output or self.out)

    def close_output(self) -> None:
        """Close ``\\o``'s file, if results go to one."""
        if self.output is not None:
            self.output.close()
            self.output = None

    def write(self, text: str) -> None:
        """``text`` to the output as it is (no newline added): \\copy ... to stdout."""
        try:
            self.out.write(text)
            self.out.flush()
        except OSError as e:
            raise OutputError(e) from None

    @staticmethod
    def _stdin_lines():
        return iter(sys.stdin) if sys.stdin is not None else iter(())

    def inform(self, text: str) -> None:
        """A message saying what a meta-command did (``Timing is on.``): not with ``-q``."""
        if not self.quiet:
            self.print(text)

    def warn(self, text: str) -> None:
        self._write(text, self.err)

    @staticmethod
    def _write(text: str, stream) -> None:
        try:
            print(text, file=stream, flush=True)
        except OSError as e:
            raise OutputError(e) from None

    def show_error(self, error: BaseException, statement: str | None = None) -> None:
        self.last_error = render.render_error_verbose(error, statement)  # (text: it keeps no frames alive)
        text = render.render_error(error, statement)
        self.warn(f"txlake:{self._location}: {text}" if self._location else text)

    def show_table(self, table) -> None:
        expanded = self.expanded == "on" or (self.expanded == "auto" and self.format == "aligned" and
                                             render.table_width(table) > shutil.get_terminal_size().columns)
        if self.format == "csv":
            text = render.render_csv(table, header=not self.tuples_only)
        elif self.format == "unaligned":
            text = render.render_unaligned(table, self.null_shown, self.fieldsep, expanded, self.tuples_only,
                                           self.footer)
        elif expanded:
            text = render.render_expanded(table, self.max_rows, self.null_shown, self.tuples_only)
        else:
            text = render.render_table(table, self.max_rows, self.null_shown, self.tuples_only, self.footer)
        if text or table.num_rows:  # (psql -At of no rows writes nothing; of one NULL, a blank line)
            self.print_result(text)

    # --- input ---------------------------------------------------------------------------

    def run_script(self, text: str, *, source: str | None = None, one_transaction: bool = False) -> Outcome:
        """Run a whole script (``-c``, ``-f``, stdin, ``\\i``): a last statement without ``;`` runs
        too. An error ends it under ``on_error_stop`` (which the script may set as it runs), else
        the rest runs, as psql's; the outcome is ERROR if any piece failed. Errors in a script
        from ``source`` (a file name) say where: ``txlake:FILE:LINE:``.
        ``one_transaction`` (``-c``, as psql's): statements with no transaction control of their
        own run as one transaction (``Connection.open_implicit_block``)."""
        scanned = scan(text)
        pieces = list(scanned.pieces)
        if scanned.pending:
            pieces.append(Piece(SQL, scanned.rest.strip(), scanned.rest_line))
        outcome = Outcome.OK
        outer, outer_source = self._location, self.source
        self.source = source or outer_source
        block = False
        if one_transaction and not any(piece.kind == META for piece in pieces):
            try:
                block = self._open_block(pieces)
            except txlake.Error:  # as PostgreSQL's query string: none runs if one does not parse
                return Outcome.ERROR
        depth = len(self.branches)
        try:
            for piece in pieces:
                self._location = f"{source}:{piece.line}" if source else None
                result = self.run_piece(piece)
                if result is Outcome.QUIT:
                    return Outcome.QUIT
                if result is Outcome.ERROR:
                    outcome = Outcome.ERROR
                    if self.on_error_stop or one_transaction:  # (a -c's string ends, as psql's query string)
                        break
        finally:
            self._location, self.source = outer, outer_source
            if block:
                outcome = self._close_block(outcome)
            if len(self.branches) > depth:  # (a script's \if ends with it, as psql's file)
                self.warn("reached EOF without finding closing \\endif(s)")
                del self.branches[depth:]
                outcome = Outcome.ERROR
        return outcome

    def _open_block(self, pieces: list[Piece]) -> bool:
        """Parse the statements of ``pieces`` (a statement that does not parse shows its error
        and raises it) and open the implicit block of a ``-c``, if they take one."""
        statements = []
        for piece in pieces:
            text = interpolate(piece.text, self.variables)
            try:
                statements.extend(self.conn.session.parse(text))
            except txlake.Error as e:
                self.show_error(e, text)
                raise
        return self.conn.open_implicit_block(statements)

    def _close_block(self, outcome: Outcome) -> Outcome:
        try:
            self.conn.close_implicit_block(failed=outcome is not Outcome.OK)
        except txlake.Error as e:  # the commit failed (40001, 23505 at the vote)
            self.show_error(e)
            return Outcome.ERROR
        return outcome

    def run_piece(self, piece: Piece) -> Outcome:
        if self.branches and self.branches[-1][0] != "active" and not (
                piece.kind == META and piece.text.split(None, 1)[0] in CONDITIONALS):
            return Outcome.OK  # (a branch of \if not taken: skipped, its variables not put in)
        if piece.kind == META:
            from txlake.repl.meta import run_meta
            self.copy_data = piece.data
            try:
                return run_meta(self, piece.text)  # (which puts the variables in its argument)
            finally:
                self.copy_data = None
        text = interpolate(piece.text, self.variables)
        if piece.data is not None:  # (COPY ... FROM STDIN and the script's lines after it)
            from txlake.repl.meta import copy_command
            self.copy_data = piece.data
            try:
                return copy_command(self, text[4:])
            finally:
                self.copy_data = None
        if piece.gset is not None:
            return self.run_gset(text, piece.gset)
        if piece.gexec:
            return self.run_gexec(text)
        if piece.watch is not None:
            return self.run_watch(text, piece.watch)
        if piece.expanded:  # (\gx)
            expanded, self.expanded = self.expanded, "on"
            try:
                return self.run_statement(text)
            finally:
                self.expanded = expanded
        return self.run_statement(text)

    def run_watch(self, sql: str | None, argument: str) -> Outcome:
        """psql's ``\\watch [[i=]SECONDS] [c=COUNT]``: ``sql`` (the statement it ends, else the
        last one run) run every SECONDS (2), each result under the time it ran, until Ctrl-C,
        an error or COUNT runs."""
        if not sql:
            self.warn("\\watch cannot be used with an empty query")
            return Outcome.ERROR
        interval, count = 2.0, None
        for word in argument.split():
            name, _, value = word.rpartition("=")
            try:
                if name in ("", "i", "interval"):
                    interval = float(value)
                    if interval < 0 or interval != interval:
                        raise ValueError
                elif name in ("c", "count"):
                    count = int(value)
                    if count <= 0:
                        raise ValueError
                else:
                    self.warn(f'\\watch: unrecognized parameter "{name}"')
                    return Outcome.ERROR
            except ValueError:
                self.warn(f"\\watch: incorrect {'count' if name in ('c', 'count') else 'interval'} value "
                          f'"{value}"')
                return Outcome.ERROR
        done = 0
        try:
            while True:
                self.print(f"{time.strftime('%a %d %b %Y %I:%M:%S %p %Z')} (every {interval:g}s)\n")
                outcome = self.run_statement(sql)
                done += 1
                if outcome is not Outcome.OK or (count is not None and done >= count):
                    return outcome
                time.sleep(interval)
        except KeyboardInterrupt:  # (Ctrl-C ends the watch, as psql's)
            return Outcome.OK

    def run_gset(self, sql: str, prefix: str) -> Outcome:
        """psql's ``\\gset [PREFIX]``: run ``sql`` and store its one row's values in variables
        named PREFIX and the column's name (a NULL unsets its variable); no rows or several are
        an error, and nothing is stored."""
        found = []

        def keep(cursor):
            found.append(cursor.fetch_arrow_table() if cursor.description is not None else None)

        outcome = self.run_statement(sql, before_tag=keep, show=False)
        if outcome is not Outcome.OK:
            return outcome
        table = found[0]
        if table is None or table.num_rows != 1:
            self.warn("\\gset: the statement returns no rows" if table is None else
                      "no rows returned for \\gset" if table.num_rows == 0 else
                      "more than one row returned for \\gset")
            return Outcome.ERROR
        for name, column in zip(table.column_names, table.columns):
            value = column[0].as_py()
            if value is None:
                self.variables.pop(prefix + name, None)
            else:
                self.variables[prefix + name] = render.format_value(value, "")
        return Outcome.OK

    def run_gexec(self, sql: str) -> Outcome:
        """psql's ``\\gexec``: run ``sql``, then each value of its rows - row by row, left to right,
        NULLs passed over - as a statement of its own, shown as any; an error stops the rest under
        ON_ERROR_STOP only."""
        found = []

        def keep(cursor):
            found.append(cursor.fetch_arrow_table() if cursor.description is not None else None)

        outcome = self.run_statement(sql, before_tag=keep, show=False)
        if outcome is not Outcome.OK or found[0] is None:
            return outcome
        table = found[0]
        for row in zip(*(column.to_pylist() for column in table.columns)):  # (names may repeat)
            for value in row:
                if value is None:
                    continue
                if self.run_statement(render.format_value(value, "")) is Outcome.ERROR:
                    outcome = Outcome.ERROR
                    if self.on_error_stop:
                        return outcome
        return outcome

    def run_statement(self, sql: str, before_tag=None, show: bool = True) -> Outcome:
        """Run ``sql`` and show its rows and tag (or its error); ``before_tag(cursor)``: after a
        success, before the tag (\\copy ... to stdout shows the rows so); ``show``: False to
        show neither rows nor tag (\\gset)."""
        self.last_sql = sql
        cursor = self.conn.cursor()
        start = time.perf_counter()
        try:
            def execute():
                cursor.execute(sql)
                return cursor.fetch_arrow_table() if cursor.description is not None else None

            try:
                table = self._cancellable(execute)
            finally:
                self._show_notices()
                if self.after_statement is not None:
                    self.after_statement()
            if table is not None and show:
                self.show_table(table)
            if before_tag is not None:
                before_tag(cursor)
            self._status(rows=table.num_rows if table is not None else max(cursor.rowcount, 0))
            tag = cursor.statusmessage
            if tag and show and not self.quiet and (table is None or not (
                    self.format == "csv" or tag.startswith(("SELECT", "SHOW", "CALL", "EXPLAIN", "FETCH")))):
                self.print_result(tag)  # (after RETURNING's rows too: INSERT 0 2, as psql; CSV stays CSV)
            outcome = Outcome.OK
        except txlake.Error as e:
            self.show_error(e, sql)
            self._status(error=e)
            outcome = Outcome.ERROR
        except KeyboardInterrupt:
            self.show_error(canceled())
            self._status(error=canceled())
            outcome = Outcome.ERROR
        except OutputError:
            raise
        except Exception as e:  # an engine bug must not end the user's session
            error = canceled() if self._cancel_requested else \
                txlake.InternalError(f"internal error: {type(e).__name__}: {e}")
            self.show_error(error)
            self._status(error=error)
            outcome = Outcome.ERROR
        finally:
            cursor.close()
        self._show_notifications()
        if self.timing:
            self.print(f"Time: {(time.perf_counter() - start) * 1000:.3f} ms")
        return outcome

    def _status(self, rows: int = 0, error: txlake.Error | None = None) -> None:
        """psql's variables of the last statement: ERROR, SQLSTATE and ROW_COUNT (the rows it
        returned or changed); after a failure also LAST_ERROR_MESSAGE and LAST_ERROR_SQLSTATE,
        which keep the last failure's."""
        sqlstate = "00000" if error is None else (getattr(error, "sqlstate", None) or "XX000")
        self.variables.update(ERROR="false" if error is None else "true", SQLSTATE=sqlstate, ROW_COUNT=str(rows))
        if error is not None:
            self.variables.update(LAST_ERROR_MESSAGE=str(error).split("\n")[0], LAST_ERROR_SQLSTATE=sqlstate)

    def _show_notifications(self) -> None:
        """What LISTEN brought since the last statement, as psql prints it after a command."""
        for n in self.conn.notifies:
            payload = f' with payload "{n.payload}"' if n.payload else ""
            self.print(f'Asynchronous notification "{n.channel}"{payload} received from server process '
                       f"with PID {n.pid}.")
        self.conn.notifies.clear()

    def _show_notices(self) -> None:
        for notice in self.conn.notices:
            self.warn(notice)
        self.conn.notices.clear()

    def _cancellable(self, work):
        """``work()`` in a worker thread; Ctrl-C in the main thread interrupts it."""
        self._cancel_requested = False
        if threading.current_thread() is not threading.main_thread():
            return work()
        outcome: dict = {}
        done = threading.Event()

        def target():
            try:
                outcome["value"] = work()
            except BaseException as e:  # handed to the main thread below
                outcome["error"] = e
            finally:
                done.set()

        worker = threading.Thread(target=target, name="txlake-statement", daemon=True)
        worker.start()
        # poll with sleep: a KeyboardInterrupt inside Thread.join or Event.wait can leave the
        # thread's state wrong (CPython issue 90882), one inside sleep is clean
        pause = FIRST_POLL
        while not done.is_set():
            try:
                time.sleep(pause)
                pause = min(pause * 2, POLL)
                if self._cancel_requested:  # (again: the statement may not have begun at the first)
                    self.conn.session.cancel()
            except KeyboardInterrupt:
                if self._cancel_requested:
                    self.warn("WARNING:  the statement has not stopped yet (work outside the query engine and "
                              "waits for another process's row lock finish first; lock_timeout bounds waits). "
                              "Ctrl-\\ ends txlake.")
                self._cancel_requested = True
                self._interrupt(worker, done)
        if "error" in outcome:
            if self._cancel_requested:
                raise KeyboardInterrupt from outcome["error"]
            raise outcome["error"]
        return outcome.get("value")

    def _interrupt(self, worker: threading.Thread, done: threading.Event) -> None:
        # the session interrupts its DuckDB query at once; work in Python code (parsing,
        # applying an UPDATE) is not interrupted - an exception raised at an arbitrary point
        # there could leave shared in-process state (locks, the newest committed version)
        # half-updated - but the statement fails when that step ends, before it commits
        self.conn.session.cancel()

    # --- transaction state ---------------------------------------------------------------

    @property
    def transaction_marker(self) -> str:
        """psql's ``%x``: ``*`` inside a transaction block, ``!`` in a failed one, else empty."""
        session = self.conn.session
        if session.transaction_failed:
            return "!"
        return "*" if session.in_transaction else ""

    def rollback_open_transaction(self, why: str) -> None:
        """Warn about and roll back a transaction left open when input ends."""
        if self.conn.session.in_transaction:
            self.warn(f"WARNING:  {why}: the open transaction was rolled back")
            self.conn.rollback()
