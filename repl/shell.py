"""The interactive shell: prompt_toolkit line editing, SQL highlighting, completion, history.

Input is one multi-line buffer: Enter runs it once it holds a complete piece (a statement
ended by ``;`` outside quotes, comments and parentheses, or a backslash meta-command), and
otherwise starts a new line. What follows the last ``;`` stays in the buffer for the next
prompt, as psql keeps its query buffer. History entries are whole statements.

The prompt shows the transaction state as psql's default ``%/%R%x%#`` does::

    txlake=>    idle                      txlake->    continuing a statement
    txlake=*>   inside a transaction      txlake'>    ... inside a string ( " ( * $ likewise)
    txlake=!>   in a failed transaction   txlake-*>   ... inside a transaction

Ctrl-C discards the input being typed (and cancels a running statement, see runner.py);
Ctrl-D on an empty line quits, rolling back - with a warning - a transaction still open.
"""

from __future__ import annotations

import os

from prompt_toolkit import PromptSession
from prompt_toolkit.filters import Condition, completion_is_selected, has_completions
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.lexers import PygmentsLexer
from pygments.lexers.sql import PostgresLexer

import txlake
from txlake.repl.completion import CatalogCache, SQLCompleter
from txlake.repl.runner import Outcome, Runner
from txlake.repl.scanner import scan

PROMPT_NAME = "txlake"
HISTORY_ENV = "TXLAKE_HISTFILE"
DEFAULT_MAX_ROWS = 1000


def history_path() -> str | None:
    """``$TXLAKE_HISTFILE`` (empty: no history file), else ``~/.txlake_history``."""
    path = os.environ.get(HISTORY_ENV)
    if path is not None:
        return os.path.expanduser(path) or None
    return os.path.join(os.path.expanduser("~"), ".txlake_history")


def open_history() -> History:
    path = history_path()
    if path is None:
        return InMemoryHistory()
    try:  # readable by its owner alone, as psql's: statements may hold passwords and data
        os.close(os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600))
    except OSError:  # read-only home: history for this session only
        return InMemoryHistory()
    return FileHistory(path)


def banner(warehouse: str) -> str:
    return (f"txlake {txlake.__version__} on warehouse {os.path.abspath(warehouse)}"
            f" - type \\? for help, \\q to quit.")


class Shell:
    def __init__(self, runner: Runner, warehouse: str, *, input=None, output=None,
                 history: History | None = None):
        self.runner = runner
        self.warehouse = warehouse
        runner.interactive = True
        if runner.max_rows is None:
            runner.max_rows = DEFAULT_MAX_ROWS
        self.catalog = CatalogCache(runner.conn.session)
        runner.after_statement = self.catalog.invalidate
        self.prompt_session = PromptSession(
            message=self.prompt, multiline=True, prompt_continuation=self.continuation,
            key_bindings=self._key_bindings(), lexer=PygmentsLexer(PostgresLexer),
            completer=SQLCompleter(self.catalog), complete_while_typing=False,
            history=history if history is not None else open_history(),
            input=input, output=output)
        # \copy ... from stdin typed at the prompt: its data lines, read with psql's ">> " prompt
        # (Tab types a tab there: the text format's delimiter, no completion)
        tab = KeyBindings()
        tab.add("tab")(lambda event: event.current_buffer.insert_text("\t"))
        self.data_session = PromptSession(message=">> ", input=input, output=output, history=InMemoryHistory(),
                                          key_bindings=tab)
        runner.read_data = self._data_lines

    # --- prompts -------------------------------------------------------------------------

    def prompt(self) -> str:
        return f"{PROMPT_NAME}={self.runner.transaction_marker}> "

    def continuation(self, width: int, line_number: int, wrap_count: int) -> str:
        if wrap_count:
            return " " * width
        lines = self.prompt_session.default_buffer.document.lines[:line_number]
        state = scan("\n".join(lines) + "\n").state
        return f"{PROMPT_NAME}{state}{self.runner.transaction_marker}> "

    def _key_bindings(self) -> KeyBindings:
        bindings = KeyBindings()

        @Condition
        def ready() -> bool:
            text = self.prompt_session.default_buffer.text
            return not text.strip() or bool(scan(text).pieces)

        @bindings.add("enter", filter=ready)
        def _run(event):
            event.current_buffer.validate_and_handle()

        @bindings.add("enter", filter=~ready)
        def _newline(event):
            event.current_buffer.newline(copy_margin=False)

        # added last, so it wins: Enter on a chosen completion only closes the menu
        @bindings.add("enter", filter=has_completions & completion_is_selected)
        def _take_completion(event):
            event.current_buffer.complete_state = None

        return bindings

    def _data_lines(self):
        """Lines typed for ``\\copy ... from stdin`` until ``\\.`` or Ctrl-D (Ctrl-C cancels the copy)."""
        lines = []
        while True:
            try:
                line = self.data_session.prompt()
            except EOFError:
                break
            lines.append(line + "\n")
            if line == "\\.":
                break
        return iter(lines)

    # --- the loop ------------------------------------------------------------------------

    def run(self) -> int:
        self.runner.print(banner(self.warehouse))
        pending = ""
        while True:
            try:
                text = self.prompt_session.prompt(default=pending)
            except KeyboardInterrupt:
                pending = ""
                continue
            except EOFError:
                self.runner.print("\\q")
                self.runner.rollback_open_transaction("exiting")
                return 0
            scanned = scan(text)
            pending = scanned.rest.lstrip() if scanned.pending else ""
            if pending or scanned.in_line_comment:  # (the Enter typed ends the line, as in psql: what
                pending += "\n"  # is typed next starts a new one - not "2as b", nor part of a comment)
            try:
                for piece in scanned.pieces:
                    if self.runner.run_piece(piece) is Outcome.QUIT:
                        self.runner.rollback_open_transaction("exiting")
                        return 0
            except KeyboardInterrupt:  # Ctrl-C outside a statement (a meta-command, printing)
                self.runner.warn("Cancelled.")
