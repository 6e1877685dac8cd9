"""The interactive shell: prompt_toolkit line editing, history, SQL highlighting.

A statement runs when its line ends with ``;`` (so statements can span lines); lines starting
with a backslash are meta-commands. The prompt shows the transaction state as psql does:
``=>`` idle, ``*>`` inside a transaction block, ``!>`` in a failed one.
"""

from __future__ import annotations

import os
import sys
import time

from prompt_toolkit import PromptSession
from prompt_toolkit.history import FileHistory
from prompt_toolkit.lexers import PygmentsLexer
from pygments.lexers.sql import PostgresLexer

import txlake
from txlake.repl.cli import run_sql
from txlake.repl.render import render_error, render_table

HELP = """\
  \\dt          list tables
  \\d NAME      describe a table
  \\timing      toggle timing of statements
  \\q           quit (also Ctrl-D)
SQL ends with ';'. Ctrl-C cancels the current input."""


class Shell:
    def __init__(self, conn, warehouse: str):
        self.conn = conn
        self.warehouse = warehouse
        self.timing = False
        history = os.path.join(os.path.expanduser("~"), ".txlake_history")
        try:
            self.prompt = PromptSession(history=FileHistory(history), lexer=PygmentsLexer(PostgresLexer))
        except OSError:
            self.prompt = PromptSession(lexer=PygmentsLexer(PostgresLexer))

    def _marker(self) -> str:
        session = self.conn.session
        if session.transaction_failed:
            return "!"
        return "*" if session.in_transaction else "="

    def run(self) -> int:
        print(f"txlake {txlake.__version__} on {os.path.abspath(self.warehouse)}  (\\? for help, \\q to quit)")
        buffer: list[str] = []
        while True:
            name = os.path.basename(os.path.abspath(self.warehouse))
            prompt = f"{name}{self._marker()}> " if not buffer else f"{name}{self._marker()}- "
            try:
                line = self.prompt.prompt(prompt)
            except KeyboardInterrupt:
                buffer.clear()
                continue
            except EOFError:
                print()
                return 0
            if not buffer and line.strip().startswith("\\"):
                if self.meta(line.strip()) == "quit":
                    return 0
                continue
            buffer.append(line)
            if line.rstrip().endswith(";"):
                self.execute("\n".join(buffer))
                buffer.clear()

    def execute(self, sql: str) -> None:
        start = time.perf_counter()
        try:
            run_sql(self.conn, sql)
        except txlake.Error as e:
            print(render_error(e), file=sys.stderr)
        if self.timing:
            print(f"Time: {(time.perf_counter() - start) * 1000:.3f} ms")

    def meta(self, line: str) -> str | None:
        command, _, arg = line.partition(" ")
        arg = arg.strip()
        if command in ("\\q", "\\quit"):
            return "quit"
        if command in ("\\?", "\\h", "\\help"):
            print(HELP)
        elif command == "\\timing":
            self.timing = not self.timing
            print(f"Timing is {'on' if self.timing else 'off'}.")
        elif command == "\\dt":
            self.execute_table(self.conn.session.describe_tables())
        elif command == "\\d" and arg:
            try:
                self.execute_table(self.conn.session.describe_table(arg))
            except txlake.Error as e:
                print(render_error(e), file=sys.stderr)
        elif command == "\\d":
            self.execute_table(self.conn.session.describe_tables())
        else:
            print(f"invalid command {command}; try \\?", file=sys.stderr)
        return None

    @staticmethod
    def execute_table(table) -> None:
        print(render_table(table))
