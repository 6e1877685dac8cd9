"""PostgreSQL's advisory locks: ``pg_advisory_lock(key)`` and its kin, locks on numbers that
mean whatever the application says they mean. Migration tools (Rails, Flyway, Prisma,
golang-migrate) take one so that two deployments do not migrate at once.

A lock is named by one bigint, or by two integers - two key spaces, as in PostgreSQL, so
``pg_advisory_lock(1)`` and ``pg_advisory_lock(0, 1)`` are different locks. It is held in
SHARE or EXCLUSIVE mode, at one of two levels:

- a session-level lock (``pg_advisory_lock``) is held until ``pg_advisory_unlock`` - as many
  unlocks as locks: they count - or the session ends, whatever its transactions do (a
  ROLLBACK does not free it);
- a transaction-level lock (``pg_advisory_xact_lock``) is held to the end of the transaction
  that took it (or the rollback to a savepoint taken before it, or the error that fails the
  block); it cannot be unlocked.

A session never waits for itself: EXCLUSIVE conflicts with whatever another session holds, SHARE
with EXCLUSIVE. Waiters take the lock in the order they came: a request also waits for the
conflicting requests queued ahead of it - unless its session holds the lock already, in any mode
(PostgreSQL's rule: it would wait for a waiter that waits for it).
A wait ends with ``lock_timeout`` (55P03), the statement's cancel or ``statement_timeout``
(57014), or a deadlock: before and while waiting, a session follows the sessions it waits for,
and the ones they wait for, and finding itself, it gives up with 40P01. (Only advisory waits are
followed: a cycle through a row lock is ended by the timeouts.)

Across processes that open the warehouse, a lock a session of this process holds is also a POSIX
record lock of the process on one byte of ``advisory.locks`` in the log's directory, at an offset
hashed from the key: shared while the process's sessions hold the key in SHARE mode only,
exclusive while one holds it EXCLUSIVE. A session that would take a lock another process holds
polls for it (from 0.5 ms to 20 ms apart), so its timeouts and cancel still end the wait; the
kernel does not see such a wait, so a deadlock between processes is ended only by the
timeouts. Two keys whose hashes collide share a byte, held in the strongest mode any of them
needs: a session may wait for another process's unrelated lock, never take a lock another holds.
A process opens the lock file once and keeps it.
"""

from __future__ import annotations

import errno
import fcntl
import os
import threading
import time
import zlib
from dataclasses import dataclass, field
from typing import Callable

from txlake import errors
from txlake.parser.semantics import ADVISORY_FUNCTION, ADVISORY_PAIR as PAIR, ADVISORY_UNLOCK_ALL as UNLOCK_ALL

SHARE, EXCLUSIVE = 0, 1
_MODE_NAMES = ("ShareLock", "ExclusiveLock")
LOCK_FILE = "advisory.locks"
_POLL_FIRST, _POLL_MOST = 0.0005, 0.02
_WAIT_SLICE = 0.05  # a waiter's longest sleep between looks at its cancel and deadline

# name -> (mode, transaction-level?, try? - None for an unlock)
FUNCTIONS = {
    "pg_advisory_lock": (EXCLUSIVE, False, False), "pg_advisory_lock_shared": (SHARE, False, False),
    "pg_try_advisory_lock": (EXCLUSIVE, False, True), "pg_try_advisory_lock_shared": (SHARE, False, True),
    "pg_advisory_xact_lock": (EXCLUSIVE, True, False), "pg_advisory_xact_lock_shared": (SHARE, True, False),
    "pg_try_advisory_xact_lock": (EXCLUSIVE, True, True), "pg_try_advisory_xact_lock_shared": (SHARE, True, True),
    "pg_advisory_unlock": (EXCLUSIVE, False, None), "pg_advisory_unlock_shared": (SHARE, False, None),
}


@dataclass
class _Holder:
    """What one session holds of one key: session-level counts by mode, and the
    transaction-level holds (the transaction's vxid, the mode) in the order taken."""
    counts: list[int] = field(default_factory=lambda: [0, 0])
    xact: list[tuple[int, int]] = field(default_factory=list)

    def holds(self, mode: int | None = None) -> bool:
        if mode is None:
            return bool(self.counts[SHARE] or self.counts[EXCLUSIVE] or self.xact)
        return bool(self.counts[mode] or any(m == mode for _, m in self.xact))


@dataclass
class _Lock:
    holders: dict[int, _Holder] = field(default_factory=dict)  # session id -> what it holds
    queue: list[tuple[int, int]] = field(default_factory=list)  # (session id, mode) waiting, in order


class AdvisoryLocks:
    """The advisory locks of one warehouse in this process (one per database instance)."""

    def __init__(self, directory: str):
        self._path = os.path.realpath(os.path.join(directory, LOCK_FILE))
        self._pid = os.getpid()
        self._cond = threading.Condition()
        self._locks: dict[tuple, _Lock] = {}
        self._key_modes: dict[tuple, int] = {}  # key -> the mode its sessions here need of its byte
        self._byte_modes: dict[int, int] = {}  # byte -> the record lock's mode this process holds
        self._waits: dict[int, tuple] = {}  # session id -> the key it waits for
        self._by_txn: dict[int, list[tuple[tuple, int]]] = {}  # vxid -> [(key, session id)] in order

    # --- taking and freeing ------------------------------------------------------------------

    def acquire(self, session: int, key: tuple, mode: int, vxid: int | None, *, wait: bool,
                timeout: float | None = None, canceled: Callable[[], None] | None = None) -> bool:
        """Take ``key`` in ``mode`` for ``session`` - for its transaction ``vxid`` if given, else
        until unlocked. Without ``wait``, False if that needs a wait. Raises 55P03 after
        ``timeout`` seconds, 40P01 on a deadlock, whatever ``canceled()`` raises."""
        deadline = None if timeout is None else time.monotonic() + timeout
        pause = _POLL_FIRST
        with self._cond:
            lock = self._locks.setdefault(key, _Lock())
            entry = (session, mode)
            lock.queue.append(entry)
            try:
                while True:
                    blockers = self._blockers(lock, session, mode)
                    if not blockers and self._take_process_lock(key, lock, session, mode):
                        break
                    if not wait:
                        return False
                    self._waits[session] = key
                    if blockers:
                        if self._cycle(session):
                            raise errors.DeadlockDetected(
                                "deadlock detected\nDETAIL:  Process waits for an advisory lock held by "
                                "another session, which waits for a lock this one holds.")
                        nap = _WAIT_SLICE
                    else:  # (free here; another process holds it: poll)
                        nap, pause = pause, min(pause * 2, _POLL_MOST)
                    if deadline is not None:
                        left = deadline - time.monotonic()
                        if left <= 0:
                            raise errors.LockNotAvailable("canceling statement due to lock timeout")
                        nap = min(nap, left)
                    self._cond.wait(nap)
                    if canceled is not None:
                        self._cond.release()  # (canceled() may take the session's own locks)
                        try:
                            canceled()
                        finally:
                            self._cond.acquire()
            finally:
                self._waits.pop(session, None)
                lock.queue.remove(entry)
                if not lock.holders and not lock.queue:
                    self._locks.pop(key, None)
                self._cond.notify_all()
            holder = lock.holders.setdefault(session, _Holder())
            self._locks[key] = lock
            if vxid is None:
                holder.counts[mode] += 1
            else:
                holder.xact.append((vxid, mode))
                self._by_txn.setdefault(vxid, []).append((key, session))
            return True

    def release(self, session: int, key: tuple, mode: int) -> bool:
        """``pg_advisory_unlock``: one session-level hold of ``key`` in ``mode`` fewer; False if
        the session held none (a transaction-level hold is not one)."""
        with self._cond:
            lock = self._locks.get(key)
            holder = lock.holders.get(session) if lock is not None else None
            if holder is None or not holder.counts[mode]:
                return False
            holder.counts[mode] -= 1
            self._settle(key, lock, session)
            return True

    def release_session(self, session: int) -> None:
        """``pg_advisory_unlock_all``, and the session's end: every session-level lock it holds."""
        with self._cond:
            for key, lock in list(self._locks.items()):
                holder = lock.holders.get(session)
                if holder is not None and (holder.counts[SHARE] or holder.counts[EXCLUSIVE]):
                    holder.counts = [0, 0]
                    self._settle(key, lock, session)

    def end_transaction(self, vxid: int, since: int = 0) -> None:
        """Free the transaction-level locks transaction ``vxid`` took (those after the first
        ``since`` of them: a rollback to a savepoint)."""
        if vxid not in self._by_txn:  # (most transactions take none: no lock)
            return
        with self._cond:
            taken = self._by_txn.get(vxid, [])
            for key, session in reversed(taken[since:]):
                lock = self._locks.get(key)
                holder = lock.holders.get(session) if lock is not None else None
                if holder is None:
                    continue
                for i in range(len(holder.xact) - 1, -1, -1):
                    if holder.xact[i][0] == vxid:
                        del holder.xact[i]
                        break
                self._settle(key, lock, session)
            del taken[since:]
            if not taken:
                self._by_txn.pop(vxid, None)

    def waiting(self, session: int) -> tuple | None:
        """The key ``session`` waits for, if it waits."""
        return self._waits.get(session)

    def listing(self) -> list[tuple[tuple, int, int, bool]]:
        """What pg_locks shows: (key, session, mode, granted) of each mode a session holds a key
        in - at either level - and of each wait."""
        with self._cond:
            rows = []
            for key, lock in self._locks.items():
                for session, holder in lock.holders.items():
                    rows += [(key, session, mode, True) for mode in (SHARE, EXCLUSIVE) if holder.holds(mode)]
                rows += [(key, session, mode, False) for session, mode in lock.queue if self._waits.get(session) == key]
            return rows

    def blocking(self, session: int) -> set[int]:
        """The sessions ``session`` waits for (pg_blocking_pids): none if it does not wait."""
        with self._cond:
            key = self._waits.get(session)
            lock = self._locks.get(key) if key is not None else None
            if lock is None:
                return set()
            return self._blockers(lock, session, _wanted(lock, session))

    def taken_by(self, vxid: int) -> int:
        """How many transaction-level locks ``vxid`` holds (a savepoint's mark)."""
        return len(self._by_txn.get(vxid, ()))

    # --- internals (holding the condition's lock) ------------------------------------------------

    def _blockers(self, lock: _Lock, session: int, mode: int) -> set[int]:
        """The other sessions ``session`` must wait for: holders in a conflicting mode, and -
        unless it holds the key already, in any mode - the waiters ahead of it that want one."""
        blockers = {s for s, h in lock.holders.items()
                    if s != session and (h.holds(EXCLUSIVE) or (mode == EXCLUSIVE and h.holds()))}
        mine = lock.holders.get(session)
        if mine is not None and mine.holds():
            return blockers
        for s, m in lock.queue:
            if s == session:
                break
            if mode == EXCLUSIVE or m == EXCLUSIVE:
                blockers.add(s)
        return blockers

    def _cycle(self, session: int) -> bool:
        """Does a chain of advisory waits lead from ``session`` back to it?"""
        seen, todo = set(), [session]
        while todo:
            s = todo.pop()
            key = self._waits.get(s)
            lock = self._locks.get(key) if key is not None else None
            if lock is None:
                continue
            for b in self._blockers(lock, s, _wanted(lock, s)):
                if b == session:
                    return True
                if b not in seen:
                    seen.add(b)
                    todo.append(b)
        return False

    def _settle(self, key: tuple, lock: _Lock, session: int) -> None:
        """After a hold of ``session`` ended: forget it if it was the last, set the process's
        record lock to what its sessions still hold, wake the waiters."""
        holder = lock.holders.get(session)
        if holder is not None and not holder.holds():
            del lock.holders[session]
        if not lock.holders and not lock.queue:
            self._locks.pop(key, None)
        self._set_process_mode(key, self._mode_held(lock))
        self._cond.notify_all()

    @staticmethod
    def _mode_held(lock: _Lock) -> int | None:
        if any(h.holds(EXCLUSIVE) for h in lock.holders.values()):
            return EXCLUSIVE
        return SHARE if lock.holders else None

    def _take_process_lock(self, key: tuple, lock: _Lock, session: int, mode: int) -> bool:
        """Hold the record lock of ``key`` in a mode covering ``mode`` and what this process's
        sessions hold; False if another process holds it in a conflicting one."""
        held = self._mode_held(lock)
        wanted = EXCLUSIVE if EXCLUSIVE in (held, mode) else SHARE
        return self._set_process_mode(key, wanted, wait=False)

    def _set_process_mode(self, key: tuple, mode: int | None, wait: bool = True) -> bool:
        """Record that this process's sessions need ``key``'s byte in ``mode`` (None: not at
        all), and hold the byte's record lock in the strongest mode any key hashed to it needs:
        the keys that share a byte share its lock, so freeing one never frees another's."""
        if self._pid != os.getpid():  # (a forked child holds no record locks)
            self._pid = os.getpid()
            self._key_modes.clear()
            self._byte_modes.clear()
        offset, fd = _offset(key), _file(self._path)
        needs = {**self._key_modes, key: mode}
        byte_mode = max((m for k, m in needs.items() if m is not None and _offset(k) == offset), default=None)
        if fd is not None and byte_mode != self._byte_modes.get(offset):
            operation = fcntl.LOCK_UN if byte_mode is None else \
                (fcntl.LOCK_EX if byte_mode == EXCLUSIVE else fcntl.LOCK_SH) | fcntl.LOCK_NB
            try:
                fcntl.lockf(fd, operation, 1, offset)
            except OSError as e:
                if e.errno in (errno.EAGAIN, errno.EACCES) and not wait:
                    return False
                raise
            if byte_mode is None:
                self._byte_modes.pop(offset, None)
            else:
                self._byte_modes[offset] = byte_mode
        if mode is None:
            self._key_modes.pop(key, None)
        else:
            self._key_modes[key] = mode
        return True


_files: dict[str, int | None] = {}  # the lock file's path -> this process's descriptor of it
_files_pid = 0
_files_lock = threading.Lock()


def _file(path: str) -> int | None:
    """This process's one descriptor of the lock file ``path`` (None: it may not be written -
    then only its own sessions are kept apart). Opened once and kept, as closing any descriptor
    of a file drops every record lock the process holds on it; a forked child opens its own."""
    global _files_pid
    with _files_lock:
        if _files_pid != os.getpid():
            _files.clear()
            _files_pid = os.getpid()
        if path not in _files:
            try:
                _files[path] = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as e:
                if e.errno not in (errno.EROFS, errno.EACCES, errno.EPERM):
                    raise
                _files[path] = None
        return _files[path]


def _wanted(lock: _Lock, session: int) -> int:
    """The mode ``session`` waits for ``lock`` in."""
    return next((m for s, m in lock.queue if s == session), SHARE)


def _offset(key: tuple) -> int:
    """The byte of ``key``'s record lock (stable across processes: Python's ``hash`` is not)."""
    return zlib.crc32(repr(key).encode()) & 0x7FFFFFFF


def key_of(first: int, second: int | None) -> tuple:
    """The lock ``pg_advisory_lock(first)`` (a bigint) or ``(first, second)`` (two integers) names."""
    return (1, first) if second is None else (2, first, second)


def not_owned_warning(mode: int) -> str:
    return f"you don't own a lock of type {_MODE_NAMES[mode]}"


class AdvisoryCalls:
    """A session's advisory lock functions, as DuckDB calls them while it runs a statement: each
    is rewritten to ``txl_advisory('name', key, second key)`` (parser/semantics.py ``advisory_call``),
    which this answers with the statement's transaction, lock_timeout and cancel."""

    def __init__(self, duck, locks: AdvisoryLocks, sequence_calls, session: int):
        """``sequence_calls`` (engine/sequence_calls.py) holds the statement's Context (the
        session sets it) and keeps the error a function raises for the executor; ``session``:
        the session's pid (engine/backends.py), the holder of its locks."""
        self.session = session
        self.locks = locks
        self._calls = sequence_calls
        self.warnings: list[str] = []
        duck.create_function(ADVISORY_FUNCTION, sequence_calls.guarded(self._call), ["VARCHAR", "BIGINT", "BIGINT"],
                             "BOOLEAN", side_effects=True, null_handling="special")

    def _call(self, name: str, first: int | None, second: int | None) -> bool | None:
        if name == UNLOCK_ALL:
            self.locks.release_session(self.session)
            return None
        name, pair = name.removesuffix(PAIR), name.endswith(PAIR)
        if first is None or (pair and second is None):  # (strict functions: NULL in, NULL out)
            return None
        key, (mode, xact, attempt) = key_of(first, second if pair else None), FUNCTIONS[name]
        if attempt is None:
            if self.locks.release(self.session, key, mode):
                return True
            self.warnings.append(not_owned_warning(mode))
            return False
        ctx = self._calls.ctx
        taken = self.locks.acquire(self.session, key, mode, ctx.txn.vxid if xact else None, wait=not attempt,
                                   timeout=ctx.lock_wait, canceled=ctx.canceled)
        return taken if attempt else None

    def take_warnings(self) -> str | None:
        """The statement's WARNINGs - its advisory unlocks' and engine/backends.py's - taken."""
        text = "\n".join(self.warnings) or None
        self.warnings.clear()  # (the same list: BackendCalls appends to it)
        return text

    def close(self) -> None:
        self.locks.release_session(self.session)
