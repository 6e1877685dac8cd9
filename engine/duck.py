"""The DuckDB database that the sessions of one open txlake database share (engine/database.py).

Creating a DuckDB database costs about 14 ms and 4 MB here, and each session had one of its own,
so every ``connect()`` paid that. Now each session gets a connection to one shared database
(``cursor()``, a few microseconds). Sharing also bounds the sessions' query memory together
(``memory_limit``, a quarter of txlake's) and gives them one pool of worker threads.

What is a session's own stays its own. DuckDB keeps these per connection: the session settings
(TimeZone, integer_division), the Arrow tables a statement registers, and TEMP macros. Python
functions are not kept per connection: DuckDB puts them in the database's catalog, under one
name for all connections. So a session's function (its transaction's clock, its sequences'
currval) is registered once for the database as ``<name>__at(session, ...)``, which calls the
calling session's own function. The session's TEMP macro ``<name>(...)`` passes its number.
DuckDB may run a function on any of its threads, so the number travels as an argument, not in
a thread-local.
"""

from __future__ import annotations

import inspect
import itertools
import threading
from typing import Callable, TypeVar

import duckdb

from txlake.engine import dialect
from txlake.parser.semantics import NESTED_FORM

T = TypeVar("T")


class SharedDuckDB:
    """One in-memory DuckDB database; ``connect()`` gives a session its connection."""

    def __init__(self, root: str, memory_limit: str):
        self.con = duckdb.connect(config={"memory_limit": memory_limit})
        # DuckDB reads the warehouse's Parquet files itself (streamed scans) and nothing else
        self.con.execute("SET enable_progress_bar = false")  # a streamed INSERT may run long
        self.con.execute(f"SET allowed_directories = [{dialect.sql_string(root)}]")
        self.con.execute("SET enable_external_access = false")
        dialect.postgres_semantics(self.con)  # macros (the database's) and integer division (this connection's)
        dialect.identity(self.con)  # version(), current_user
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._functions: dict[str, dict[int, Callable]] = {}  # name -> session number -> its function
        self._nested_arrays = False  # (guarded by _lock: NESTED_ARRAY_MACROS created)

    def connect(self) -> "DuckSession":
        return DuckSession(self, next(self._ids))

    def with_nested_arrays(self, call: Callable[[], T]) -> T:
        """``call()`` - run again after creating dialect.NESTED_ARRAY_MACROS, the array functions'
        forms of arrays of several dimensions, where it failed for want of one: a database creates
        them when first called, not at its setup (binding their hundreds of forms takes DuckDB
        most of a second)."""
        try:
            return call()
        except duckdb.CatalogException as e:
            if NESTED_FORM not in str(e):
                raise
        with self._lock:
            if not self._nested_arrays:
                for statement in dialect.NESTED_ARRAY_MACROS:
                    self.con.execute(statement)
                self._nested_arrays = True
        return call()

    def set_memory_limit(self, limit: str) -> None:
        self.con.execute(f"SET memory_limit = {dialect.sql_string(limit)}")

    def close(self) -> None:
        self.con.close()

    def _register(self, name: str, params: list, returns, vectorized: bool, options: dict) -> dict[int, Callable]:
        """The session table of function ``name``, registering ``<name>__at`` at its first use."""
        with self._lock:
            table = self._functions.get(name)
            if table is None:
                table = self._functions[name] = {}
                if vectorized:  # (an Arrow function gets the session number as an array)
                    def call(session, *args):
                        return table[session[0].as_py()](*args)
                else:
                    def call(session, *args):
                        return table[session](*args)
                # (DuckDB counts the function's parameters)
                call.__signature__ = inspect.Signature(
                    [inspect.Parameter(f"a{i}", inspect.Parameter.POSITIONAL_ONLY) for i in range(len(params) + 1)])
                self.con.create_function(f"{name}__at", call, ["BIGINT", *params], returns,
                                         **({"type": "arrow"} if vectorized else {}), **options)
            return table


class DuckSession:
    """A session's connection to the shared database (``con``) and its own functions."""

    def __init__(self, shared: SharedDuckDB, number: int):
        self.shared = shared
        self.number = number
        self.con = shared.con.cursor()
        dialect.session_semantics(self.con)
        self._tables: list[dict[int, Callable]] = []
        self._lazy: dict[str, Callable[[], None]] = {}  # function name -> what creates it (``lazily``)

    def lazily(self, name: str, create: Callable[[], None]) -> None:
        """Have ``create()`` make the session's function ``name`` when a statement first calls it
        (``run``): a TEMP macro costs a fraction of a millisecond, at every connect."""
        self._lazy[name] = create

    def run(self, call: Callable[[], T]) -> T:
        """``call()``, DuckDB's binding of a statement - run again where it failed for want of a
        function created when first needed: the database's (``SharedDuckDB.with_nested_arrays``)
        or the session's (``lazily``)."""
        try:
            return self.shared.with_nested_arrays(call)
        except duckdb.CatalogException as e:
            lacking = next((name for name in self._lazy if f"Function with name {name} does not exist" in str(e)),
                           None)
            if lacking is None:
                raise
        self._lazy.pop(lacking)()
        return self.run(call)

    def create_function(self, name: str, function: Callable, params: list, returns, *, vectorized: bool = False,
                        **options) -> None:
        """``con.create_function(name, function, params, returns, **options)`` for this session
        alone (``vectorized``: an Arrow function, ``type="arrow"``)."""
        table = self.shared._register(name, params, returns, vectorized, options)
        table[self.number] = function
        self._tables.append(table)
        args = ", ".join(f"a{i}" for i in range(len(params)))
        self.con.execute(f"CREATE TEMP MACRO {name}({args}) AS {name}__at({self.number}{', ' if args else ''}{args})")

    def close(self) -> None:
        for table in self._tables:
            table.pop(self.number, None)
        self.con.close()
