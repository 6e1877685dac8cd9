"""Row write locks, held to the end of the transaction, with waiting and deadlock detection.

A lock is a key - ``(table_id, "key", primary key)`` for tables with a primary key (so an
UPDATE and a concurrent INSERT of the same key collide, as in a unique index), otherwise
``(table_id, "row", file_id, position)`` for a committed row. A transaction that wants a key
another running transaction holds waits until that one ends (PostgreSQL's first-updater-wins);
what happens then (proceed, re-check, or 40001) is the caller's business.

Waiting is bounded by ``lock_timeout`` (55P03). Before sleeping, the waiter adds an edge to the
wait-for graph and looks for a cycle through itself; finding one, it gives up with 40P01
(the transaction that closes a cycle is the victim, as in PostgreSQL where the one whose
deadlock_timeout fires first aborts). Exactly one member of a cycle is the victim: the graph
is only changed under ``_cond``'s lock, so two waiters cannot both close the same cycle.
"""

from __future__ import annotations

import threading
import time

from txlake import errors


class LockTable:
    def __init__(self):
        self._cond = threading.Condition()
        self._holders: dict[tuple, object] = {}     # key -> holding transaction
        self._held: dict[int, set[tuple]] = {}      # id(txn) -> keys it holds
        self._waits_for: dict[int, object] = {}     # id(waiting txn) -> the transaction it waits for

    def acquire(self, txn, key: tuple, timeout: float | None = None) -> bool:
        """Take ``key`` for ``txn``. Returns True if it had to wait for another transaction
        (which has ended since: the caller must re-check the row), False if it was free."""
        waited = False
        deadline = None if not timeout else time.monotonic() + timeout
        with self._cond:
            while True:
                holder = self._holders.get(key)
                if holder is None or holder is txn:
                    self._holders[key] = txn
                    self._held.setdefault(id(txn), set()).add(key)
                    self._waits_for.pop(id(txn), None)
                    return waited
                self._waits_for[id(txn)] = holder
                if self._cycle_from(txn):
                    del self._waits_for[id(txn)]
                    raise errors.DeadlockDetected(
                        "deadlock detected\nDETAIL:  Process waits for a lock held by another "
                        "transaction, which waits for this one.")
                waited = True
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    del self._waits_for[id(txn)]
                    raise errors.LockNotAvailable("canceling statement due to lock timeout")
                self._cond.wait(remaining)

    def _cycle_from(self, txn) -> bool:
        seen = set()
        current = self._waits_for.get(id(txn))
        while current is not None:
            if current is txn:
                return True
            if id(current) in seen:
                return False
            seen.add(id(current))
            current = self._waits_for.get(id(current))
        return False

    def holder(self, key: tuple):
        with self._cond:
            return self._holders.get(key)

    def holds(self, txn, key: tuple) -> bool:
        with self._cond:
            return self._holders.get(key) is txn

    def release_all(self, txn) -> int:
        """End of transaction: free every key ``txn`` holds and wake the waiters."""
        with self._cond:
            keys = self._held.pop(id(txn), ())
            for key in keys:
                if self._holders.get(key) is txn:
                    del self._holders[key]
            self._waits_for.pop(id(txn), None)
            self._cond.notify_all()
            return len(keys)

    def __len__(self) -> int:
        with self._cond:
            return len(self._holders)
