"""Who is connected, and what one session may do to another: PostgreSQL's backends as its
proc array knows them (procarray.c), and its server signaling functions (signalfuncs.c).

A session's *pid* is the number ``pg_backend_pid()``, ``pg_stat_activity.pid``,
``pg_locks.pid``, ``pg_blocking_pids`` and ``pg_cancel_backend`` / ``pg_terminate_backend``
agree on. It is a counter of the Python process, from 1, so unique among all the sessions the
process opened, to any warehouse: several DB-API connections of one process are several
backends (DuckDB's sessions are one process too). It is not the operating system's process id,
which they share. Sessions of other processes are not seen at all - they share no memory with
this one (their commits are seen; their sessions and locks are not) - so pg_stat_activity and
pg_locks show this process's sessions of the warehouse, and another process's pid is "not a
PostgreSQL backend process" here.

``pg_cancel_backend(pid)`` cancels the statement the session runs, as its owner's
``Connection.cancel`` does (engine/session.py ``Session.cancel``): its DuckDB query is
interrupted, a lock wait ends, and it fails with 57014; an idle session is left alone.
``pg_terminate_backend(pid)`` ends the session: its statement is canceled, its transaction rolled
back, its locks - row, table and advisory - freed, and its owner's next call fails with 57P01
``terminating connection due to administrator command``; the connection is closed then.
A pid no session has: false, with PostgreSQL's WARNING.
"""

from __future__ import annotations

import itertools
import threading
import weakref

from txlake import errors
from txlake.parser.semantics import BACKEND_FUNCTION, NOTIFY_FUNCTIONS

_pids = itertools.count(1)
_pids_lock = threading.Lock()

# how long pg_terminate_backend(pid) waits for the session to end its statement, so that its locks are
# free when the call returns (past it, the session ends itself when its statement does)
END_WAIT = 1.0


def next_pid() -> int:
    """A new session's pid: unique in this process."""
    with _pids_lock:
        return next(_pids)


class Backends:
    """The open sessions of one database instance, by pid (``_lock`` guards ``_sessions``)."""

    def __init__(self, locks, advisory):
        self.locks = locks  # (engine/mvcc/locks.py LockTable, engine/advisory.py AdvisoryLocks: whom a wait is for)
        self.advisory = advisory
        self._lock = threading.Lock()
        self._sessions: weakref.WeakValueDictionary = weakref.WeakValueDictionary()

    def add(self, session) -> None:
        with self._lock:
            self._sessions[session.pid] = session

    def remove(self, session) -> None:
        with self._lock:
            if self._sessions.get(session.pid) is session:
                del self._sessions[session.pid]

    def get(self, pid: int):
        with self._lock:
            return self._sessions.get(pid)

    def sessions(self) -> list:
        """The open sessions, by pid."""
        with self._lock:
            return sorted(self._sessions.values(), key=lambda s: s.pid)

    def blocking_pids(self, pid: int) -> list[int]:
        """``pg_blocking_pids(pid)``: the sessions the session ``pid`` waits for - holders of a
        lock it wants and, for a table or advisory lock, the waiters queued before it for a
        conflicting mode - by pid; empty if it does not wait (or is no session)."""
        sessions = self.sessions()
        session = next((s for s in sessions if s.pid == pid), None)
        if session is None:
            return []
        txn = session.txn
        pids = {id(s.txn): s.pid for s in sessions if s.txn is not None}
        found = {pids[id(t)] for t in (self.locks.waiting_for(txn) if txn is not None else ()) if id(t) in pids}
        return sorted(found | self.advisory.blocking(pid))


class BackendCalls:
    """A session's ``pg_backend_pid()``, ``pg_cancel_backend(pid)`` and ``pg_terminate_backend(pid
    [, timeout])``, as DuckDB calls them: each is ``txl_backend(name, pid, timeout)``
    (parser/semantics.py), answered here with the session's pid and its database's sessions."""

    def __init__(self, duck, backends: Backends, pid: int, guarded, warn):
        """``guarded``: wraps the function as DuckDB calls it (its txlake errors kept for the
        executor); ``warn(text)``: a WARNING for the statement's result."""
        self.backends = backends
        self.pid = pid
        self._warn = warn
        duck.create_function(BACKEND_FUNCTION, guarded(self._call), ["VARCHAR", "INTEGER", "BIGINT"], "BIGINT",
                             side_effects=True, null_handling="special")
        duck.create_function(NOTIFY_FUNCTIONS["pg_listening_channels"], guarded(self._listening_channels), [],
                             "VARCHAR[]", side_effects=True)
        duck.create_function(NOTIFY_FUNCTIONS["pg_notification_queue_usage"], guarded(self._queue_usage), [],
                             "DOUBLE", side_effects=True)

    def _listening_channels(self) -> list[str]:
        return list(self.backends.get(self.pid).listener.channels)

    def _queue_usage(self) -> float:
        return self.backends.get(self.pid).listener.queue.usage()

    def _call(self, name: str, pid: int | None, timeout: int | None) -> int | None:
        if name == "pg_backend_pid":
            return self.pid
        if pid is None or timeout is None:  # (strict functions: NULL in, NULL out)
            return None
        if timeout < 0:
            raise errors.InvalidParameterValue('"timeout" must not be negative')
        target = self.backends.get(pid)
        if target is None:
            self._warn(f"PID {pid} is not a PostgreSQL backend process")
            return 0
        if name == "pg_cancel_backend":
            target.cancel_statement()
            return 1
        if target.pid == self.pid:  # (its own: the statement ends the session at once)
            target.terminate(None)
            raise errors.AdminShutdown("terminating connection due to administrator command")
        if target.terminate(timeout / 1000 if timeout else END_WAIT) or not timeout:
            return 1
        self._warn(f"backend with PID {pid} did not terminate within {timeout} millisecond"
                   + ("s" if timeout != 1 else ""))
        return 0
