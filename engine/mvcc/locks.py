"""Row write locks, held to the end of the transaction, with waiting and deadlock detection.

A lock is a key - ``(table_id, "key", primary key)`` for tables with a primary key (so an
UPDATE and a concurrent INSERT of the same key collide, as in a unique index), otherwise
``(table_id, "row", file_id, position)`` for a committed row. A transaction that wants a key
another running transaction holds waits until that one ends (PostgreSQL's first-updater-wins);
what happens then (proceed, re-check, or 40001) is the caller's business.

A statement writing very many rows takes one *table* lock, ``(table_id, TABLE)``, instead of a
lock per row (lock escalation: a lock costs ~200 bytes, so a bulk load of millions of keys
would not fit in memory). It conflicts with every row or key lock other transactions hold in
the table and covers all of its holder's: a bulk writer waits for the table's running writers,
and they for it. Readers never take locks.

Waiters for a key take it in the order they came (PostgreSQL's lock queue): a transaction that
finds a key free while others wait for it queues behind them rather than barging in. Without
that, a deadlock victim retrying its transaction at once - the interpreter lock never leaving its
thread between the rollback and the new attempt - took back the key its rival had been woken to
get, closed the same cycle again, and so on, each time.

SKIP LOCKED takes a key only if that needs no wait (``try_acquire``): one another transaction
holds, or queues for, is passed over - across processes too, by a record lock tried without
blocking.

Beside the row locks, PostgreSQL's table-level locks (``lock_relation``): eight modes, from
ACCESS SHARE (every read) to ACCESS EXCLUSIVE (DROP, ALTER TABLE), that conflict as
PostgreSQL's table says (``CONFLICTS``). Several transactions hold a table in modes that do
not conflict; one asking for a conflicting mode waits for every holder of one - and behind the
waiters before it that it conflicts with, so an ALTER TABLE waiting for readers is not starved
by new readers (a transaction holding the table already in some mode only waits for holders,
as PostgreSQL lets it). The modes a transaction holds are a bit mask per table
(``_modes``), read without the mutex: a request its held modes cover costs two dict lookups.
Table locks are this process's only; other processes stay optimistic (the COMMIT's check).

Every statement takes a weak mode - ACCESS SHARE, ROW SHARE, ROW EXCLUSIVE, which conflict
with none of each other - and only DDL and LOCK TABLE a strong one (SHARE and above), so weak
requests take PostgreSQL's fast path: while no transaction holds or waits for a strong mode of
the table (``_strong``, a count per table), a weak mode is only written in the transaction's
own ``_modes`` - no mutex, no entry in the shared table (``_relations``), nothing to undo at
COMMIT but its bit. The first strong request of a table counts itself, then moves every weak
mode held by the fast path into ``_relations`` (``_strong_begin``), under the mutex; weak
requests then queue there as any other, until the count is back at 0. The race between the two
is Dekker's: a weak request writes its bit, then reads the count; a strong one writes the
count, then reads the bits. Each step is one dict operation, atomic and seen in program order
under the interpreter lock, so at least one sees the other: either the strong request moves the
weak bit (the weak one holds the table and the strong one waits for it), or the weak request
sees the count and queues - under the mutex it takes its bit back unless it was moved already.
(PostgreSQL orders the same two steps with a per-backend lock, which it needs and we do not.)

A rollback to a savepoint frees the keys taken after it (``mark`` / ``release_since``), as
PostgreSQL frees a rolled-back subtransaction's locks (table locks too); RELEASE keeps them.

Waiting is bounded by ``lock_timeout`` (55P03), and ended by a cancel of the statement (57014;
a wait for another process's record lock without a timeout blocks in the kernel and is not).
Before sleeping, the waiter adds its edges to the wait-for graph - to the one holder of a key,
or to every holder and earlier waiter of a table lock it conflicts with: one graph for row and
table locks, so a cycle through both is found - and looks for a cycle through itself;
finding one, it gives up with 40P01 (the transaction that closes a cycle is the victim, as in
PostgreSQL where the one whose deadlock_timeout fires first aborts). Exactly one member of a
cycle is the victim: the graph is only changed under the table's mutex, so two waiters cannot
both close the same cycle.

A waiter sleeps on a condition of its own, woken only when the transaction it waits for ends
or leaves the key's queue: the others sleep on (waking every waiter at every commit made each
re-check and sleep again - under pgbench with 4 sessions, two wake-ups in three for nothing).

Across processes (``ProcessLocks``), a lock taken here is also a POSIX record lock on the
warehouse's row-lock file: one byte per key, at an offset hashed from the table and the key; a
table lock covers the table's whole range. A transaction in another process wanting the key
blocks in ``fcntl`` until this one ends, as a session of another PostgreSQL backend waits on
the shared lock table; it then re-checks the row (READ COMMITTED re-finds its newest version,
REPEATABLE READ fails with 40001), instead of both going on and the second learning at COMMIT
that its work is lost (40001 at every level). The kernel finds deadlocks between processes
(EDEADLK: 40P01); it sees a process as one owner, so with several sessions in each of several
processes it may report a deadlock that is none (a retryable 40P01). A record lock is only a
queue: two keys whose hashes collide wait for each other needlessly, and the COMMIT's check
against what others committed meanwhile stays the guarantee.
"""

from __future__ import annotations

import errno
import fcntl
import os
import threading
import time
import zlib

from txlake import errors

TABLE = "table"  # the second part of a table lock's key (lock escalation: all of its rows)
RELATION = "relation"  # ... of a table-level lock of ``lock_relation``, in a transaction's ``_order``

# PostgreSQL's table lock modes, weakest first, and what each conflicts with
(ACCESS_SHARE, ROW_SHARE, ROW_EXCLUSIVE, SHARE_UPDATE_EXCLUSIVE, SHARE, SHARE_ROW_EXCLUSIVE, EXCLUSIVE,
 ACCESS_EXCLUSIVE) = MODES = range(1, 9)
MODE_NAMES = ("", "ACCESS SHARE", "ROW SHARE", "ROW EXCLUSIVE", "SHARE UPDATE EXCLUSIVE", "SHARE",
              "SHARE ROW EXCLUSIVE", "EXCLUSIVE", "ACCESS EXCLUSIVE")


def _bits(*modes: int) -> int:
    return sum(1 << m for m in modes)


CONFLICTS = (0, _bits(8), _bits(7, 8), _bits(5, 6, 7, 8), _bits(4, 5, 6, 7, 8), _bits(3, 4, 6, 7, 8),
             _bits(3, 4, 5, 6, 7, 8), _bits(2, 3, 4, 5, 6, 7, 8), _bits(*MODES))
# the weak modes - those every statement takes, which conflict with none of each other and take
# the fast path - are those up to WEAK; the strong ones, which conflict with a weak one, those
# from STRONG (SHARE UPDATE EXCLUSIVE is neither)
WEAK, STRONG = ROW_EXCLUSIVE, SHARE
# the held modes that make a request of a mode free: those conflicting with all it conflicts with
COVERED_BY = tuple(sum(1 << held for held in MODES if CONFLICTS[mode] & ~CONFLICTS[held] == 0) if mode else 0
                   for mode in range(9))


class _Relation:
    """One table's table-level locks: who holds which modes, and who waits for which, in order."""

    __slots__ = ("granted", "waiting")

    def __init__(self):
        self.granted: dict[int, list] = {}  # id(txn) -> [txn, bit mask of the modes it holds]
        self.waiting: list[tuple[object, int]] = []  # (txn, mode), oldest first

    def blockers(self, txn, mode: int) -> tuple:
        """The transactions ``txn`` must wait for to take ``mode``: the holders of a conflicting
        mode and - unless it holds the table already - the earlier waiters for one."""
        conflicts, me = CONFLICTS[mode], id(txn)
        found = [other for key, (other, held) in self.granted.items() if key != me and held & conflicts]
        if me not in self.granted:
            for other, wanted in self.waiting:
                if other is txn:
                    break
                if conflicts >> wanted & 1:
                    found.append(other)
        return tuple(found)

    def leave_queue(self, txn) -> bool:
        for i, (other, _) in enumerate(self.waiting):
            if other is txn:
                del self.waiting[i]
                return True
        return False


class LockTable:
    def __init__(self, shared: "ProcessLocks | None" = None, sharing=lambda: True):
        self.shared = shared  # the same locks across processes, if the table has a file to take them in ...
        self.sharing = sharing  # ... taken while this says other processes write (checked per lock)
        self._shared_held: dict[int, list[tuple[int, int]]] = {}  # id(txn) -> its record locks
        self._mutex = threading.Lock()
        self._sleeping: dict[int, threading.Condition] = {}  # id(waiting txn) -> what wakes it
        self._holders: dict[tuple, object] = {}     # key -> holding transaction
        self._held: dict[int, set[tuple]] = {}      # id(txn) -> keys it holds
        self._order: dict[int, list[tuple]] = {}    # id(txn) -> the same keys, in the order granted
        self._waits_for: dict[int, tuple] = {}      # id(waiting txn) -> the transactions it waits for
        # table_id -> id(txn) -> txn, for transactions holding row/key locks there: whom a table
        # lock waits for
        self._in_table: dict[str, dict[int, object]] = {}
        self._queues: dict[tuple, list] = {}        # key -> transactions waiting for it, oldest first
        self._canceled: set[int] = set()            # id(txn) whose statement was canceled: no waiting
        self._relations: dict[str, _Relation] = {}  # table_id -> its table-level locks
        # id(txn) -> table_id -> bit mask of the table lock modes it holds (each entry changed
        # only by its transaction's thread - a weak mode's fast path without the mutex - and
        # read by it without; by others only under the mutex: a strong request's)
        self._modes: dict[int, dict[str, int]] = {}
        self._owners: dict[int, object] = {}  # id(txn) -> txn, for each key of ``_modes``
        # table_id -> how many transactions hold or wait for a strong mode (SHARE or above) of
        # it: while it has none, weak modes take the fast path (the module's docstring)
        self._strong: dict[str, int] = {}

    def acquire(self, txn, key: tuple, timeout: float | None = None) -> bool:
        """Take ``key`` for ``txn``, here and (``shared``) across processes. Returns True if it
        had to wait for another transaction (which has ended since: the caller must re-check
        the row), False if it was free."""
        deadline = None if not timeout else time.monotonic() + timeout
        waited, new = self._acquire_here(txn, key, deadline)
        if new and self.shared is not None and self.sharing():
            span = self.shared.span(key)
            remaining = None if deadline is None else max(deadline - time.monotonic(), 0.0)
            try:
                waited = self.shared.acquire(span, remaining) or waited
            except BaseException:  # (40P01, 55P03: the key is not held here either)
                self._ungrant(txn, key)
                raise
            self._shared_held.setdefault(id(txn), []).append(span)  # (only txn's thread adds)
        return waited

    def try_acquire(self, txn, key: tuple) -> bool:
        """SKIP LOCKED: take ``key`` for ``txn`` if that needs no wait - no other transaction
        holds it or queues for it, here or (``shared``) in another process; False otherwise,
        at once. Taken, it is held as ``acquire``'s keys are."""
        with self._mutex:
            if self._covered(txn, key):
                return True
            if self._blocker(txn, key) is not None or self._queues.get(key):
                return False
            self._grant(txn, key)
        if self.shared is not None and self.sharing():
            span = self.shared.span(key)
            if not self.shared.take_now(span):
                self._ungrant(txn, key)
                return False
            self._shared_held.setdefault(id(txn), []).append(span)
        return True

    def lock_relation(self, txn, table_id: str, mode: int, timeout: float | None = None, *,
                      nowait: bool = False, name: str = "") -> bool:
        """Take table ``table_id`` in ``mode`` (one of ``MODES``) for ``txn``, to its end (or a
        rollback to a savepoint before it). Waits for the conflicting holders - bounded by
        ``timeout`` (55P03), ended by a deadlock (40P01) or a cancel (57014) - unless ``nowait``:
        then 55P03 ``could not obtain lock on relation "name"`` at once. Returns True if it waited
        (the holders it waited for have ended since), False if it took the lock at once, None
        if a mode it holds covers the request."""
        me = id(txn)
        held = self._modes.get(me)
        if held is None:
            self._owners[me] = txn  # (first: a strong request looks it up for each key of _modes)
            held = self._modes[me] = {}
        before = held.get(table_id, 0)
        if before & COVERED_BY[mode]:
            return None
        if mode <= WEAK:  # the fast path: the bit first, then the count (the module's docstring)
            held[table_id] = before | 1 << mode
            if table_id not in self._strong:
                self._ordered(me, table_id, mode)
                return False
        waited = False
        with self._mutex:
            if mode <= WEAK:
                if table_id not in self._strong:  # (gone meanwhile)
                    self._ordered(me, table_id, mode)
                    return False
                entry = self._relations[table_id].granted.get(me)
                if entry is not None and entry[1] >> mode & 1:  # moved there by the strong request
                    self._ordered(me, table_id, mode)
                    return False
                self._take_back(held, table_id, before)  # (and queue for it below)
            elif mode >= STRONG:
                self._strong_begin(table_id)
            relation = self._relations.get(table_id)
            if relation is None:  # (nobody holds the table or waits for it)
                relation = self._relations[table_id] = _Relation()
            deadline = None if not timeout else time.monotonic() + timeout
            granted = False
            try:
                while True:
                    blockers = relation.blockers(txn, mode)
                    if not blockers:
                        self._grant_relation(txn, table_id, relation, mode)
                        granted = True
                        if waited:
                            del self._waits_for[id(txn)]
                            relation.leave_queue(txn)
                            self._wake_waiters_of(txn)  # (those queued behind it look again)
                        return waited
                    if nowait:
                        raise errors.LockNotAvailable(f'could not obtain lock on relation "{name}"')
                    remaining = self._may_wait(txn, blockers, deadline,
                                               lambda: self._leave_relation_queue(txn, relation))
                    if not waited:
                        relation.waiting.append((txn, mode))
                        waited = True
                    self._sleep(txn, remaining)
            finally:
                self._sleeping.pop(id(txn), None)
                if not granted and mode >= STRONG:
                    self._strong_end(table_id)
                if not relation.granted and not relation.waiting:
                    self._relations.pop(table_id, None)

    def _ordered(self, me: int, table_id: str, mode: int) -> None:
        """Note a table lock taken, in the order ``release_since`` undoes."""
        order = self._order.get(me)
        if order is None:
            order = self._order[me] = []
        order.append((table_id, RELATION, mode))

    @staticmethod
    def _take_back(held: dict[str, int], table_id: str, bits: int) -> None:
        if bits:
            held[table_id] = bits
        else:
            held.pop(table_id, None)

    def _strong_begin(self, table_id: str) -> None:
        """Under the mutex: a strong request of ``table_id`` counts itself; the first moves the
        weak modes the fast path holds into the shared table, where it sees them as holders."""
        count = self._strong.get(table_id, 0)
        self._strong[table_id] = count + 1
        if count:
            return  # (moved by the first: no weak mode has taken the fast path since)
        relation = self._relations.get(table_id)
        for me, held in list(self._modes.items()):
            bits = held.get(table_id)
            if bits:
                if relation is None:
                    relation = self._relations[table_id] = _Relation()
                relation.granted[me] = [self._owners[me], bits]

    def _strong_end(self, table_id: str, n: int = 1) -> None:
        left = self._strong[table_id] - n
        if left:
            self._strong[table_id] = left
        else:
            del self._strong[table_id]

    def _grant_relation(self, txn, table_id: str, relation: _Relation, mode: int) -> None:
        bit, me = 1 << mode, id(txn)
        entry = relation.granted.get(me)
        if entry is None:
            relation.granted[me] = [txn, bit]
        elif entry[1] & bit:
            return  # held already
        else:
            entry[1] |= bit
        held = self._modes.get(me)
        if held is None:
            self._owners[me] = txn
            held = self._modes[me] = {}
        held[table_id] = held.get(table_id, 0) | bit
        self._ordered(me, table_id, mode)

    def _leave_relation_queue(self, txn, relation: _Relation) -> None:
        """A waiter for a table lock gives up: those queued behind it may go on."""
        self._waits_for.pop(id(txn), None)
        if relation.leave_queue(txn):
            self._wake_waiters_of(txn)

    def _ungrant_relation(self, txn, table_id: str, mode: int) -> None:
        """Free ``txn``'s lock of ``table_id`` in ``mode`` (a rollback to a savepoint before it)."""
        me = id(txn)
        held = self._modes.get(me, {})
        left = held.get(table_id, 0) & ~(1 << mode)
        self._take_back(held, table_id, left)
        if mode >= STRONG:
            self._strong_end(table_id)
        relation = self._relations.get(table_id)
        entry = relation.granted.get(me) if relation is not None else None
        if entry is None:
            return  # (a weak mode of the fast path)
        if left:
            entry[1] = left
            return
        del relation.granted[me]
        if not relation.granted and not relation.waiting:
            del self._relations[table_id]

    def waiting_for(self, txn) -> tuple:
        """The transactions ``txn`` waits for now (none: it is not waiting)."""
        with self._mutex:
            return self._waits_for.get(id(txn), ())

    def listing(self) -> tuple[list[tuple], list[tuple]]:
        """What pg_locks shows of this table, read under the mutex: (txn, table_id, mode, granted,
        fast path?) of each table-level lock held or awaited, and (txn, the transactions it waits
        for) of each wait for a row, key or escalated table lock. Held row locks are not listed:
        PostgreSQL keeps them in the rows, and shows a wait for one as a wait for its holder."""
        with self._mutex:
            relations = []
            for me, held in list(self._modes.items()):  # (a fast path may change its own entry meanwhile)
                owner = self._owners.get(me)
                for table_id, bits in list(held.items()):
                    relation = self._relations.get(table_id)
                    entry = relation.granted.get(me) if relation is not None else None
                    relations += [(owner, table_id, mode, True, entry is None or not entry[1] >> mode & 1)
                                  for mode in MODES if bits >> mode & 1]
            for table_id, relation in self._relations.items():
                relations += [(txn, table_id, mode, False, False) for txn, mode in relation.waiting]
            rows = [(txn, self._waits_for[id(txn)]) for queue in self._queues.values() for txn in queue
                    if id(txn) in self._waits_for]
            return relations, rows

    def _ungrant(self, txn, key: tuple) -> None:
        """Give back a key ``txn`` was just granted here and did not get across processes."""
        with self._mutex:
            if self._holders.get(key) is txn:
                del self._holders[key]
            held = self._held.get(id(txn), set())
            if key in held:
                held.discard(key)
                self._order[id(txn)].remove(key)
            if key[1] != TABLE and not any(k[0] == key[0] and k[1] != TABLE for k in held):
                in_table = self._in_table.get(key[0])
                if in_table is not None and in_table.pop(id(txn), None) is not None and not in_table:
                    del self._in_table[key[0]]
            self._wake_waiters_of(txn)

    def _acquire_here(self, txn, key: tuple, deadline: float | None) -> tuple[bool, bool]:
        """(waited, newly held) for ``key`` among this process's transactions."""
        waited = False
        with self._mutex:
            try:
                while True:
                    holder = self._blocker(txn, key)
                    queue = self._queues.get(key)
                    if holder is None and queue and queue[0] is not txn and not self._covered(txn, key):
                        holder = queue[0]  # free, but an earlier waiter takes it first
                    if holder is None:
                        new = not self._covered(txn, key)
                        self._grant(txn, key)
                        self._waits_for.pop(id(txn), None)
                        if queue:
                            self._dequeue(txn, key)
                        return waited, new
                    remaining = self._may_wait(txn, (holder,), deadline, lambda: self._give_up(txn, key))
                    if not waited:
                        self._queues.setdefault(key, []).append(txn)
                        waited = True
                    self._sleep(txn, remaining)
            finally:
                self._sleeping.pop(id(txn), None)

    def _may_wait(self, txn, blockers: tuple, deadline: float | None, give_up) -> float | None:
        """Before ``txn`` sleeps until ``blockers`` end: its edges in the wait-for graph, then
        40P01 if they close a cycle, 57014 if its statement was canceled, 55P03 past
        ``deadline`` (each after ``give_up()``, which takes it out of the queue). Returns how
        long it may sleep (None: for ever)."""
        self._waits_for[id(txn)] = blockers
        if self._cycle_from(txn):
            give_up()
            raise errors.DeadlockDetected(
                "deadlock detected\nDETAIL:  Process waits for a lock held by another "
                "transaction, which waits for this one.")
        if id(txn) in self._canceled:
            give_up()
            raise errors.QueryCanceled("canceling statement due to user request")
        remaining = None if deadline is None else deadline - time.monotonic()
        if remaining is not None and remaining <= 0:
            give_up()
            raise errors.LockNotAvailable("canceling statement due to lock timeout")
        return remaining

    def _sleep(self, txn, remaining: float | None) -> None:
        """Wait (the mutex let go meanwhile) until woken, or ``remaining`` seconds have passed."""
        wake = self._sleeping.get(id(txn))
        if wake is None:
            wake = self._sleeping[id(txn)] = threading.Condition(self._mutex)
        wake.wait(remaining)

    def _wake_waiters_of(self, txn) -> None:
        """Wake the transactions waiting for ``txn`` (it ended, or left a key's queue): each
        looks again at what it waits for."""
        for waiter, blockers in self._waits_for.items():
            if waiter in self._sleeping and any(blocker is txn for blocker in blockers):
                self._sleeping[waiter].notify()

    def _dequeue(self, txn, key: tuple) -> None:
        """Take ``txn`` out of ``key``'s queue, if it is there (by identity: transactions are
        dataclasses, equal when their fields are)."""
        queue = self._queues[key]
        for i, waiter in enumerate(queue):
            if waiter is txn:
                del queue[i]
                if not queue:
                    del self._queues[key]
                self._wake_waiters_of(txn)  # those behind it: the next in line may take it now
                return

    def _give_up(self, txn, key: tuple) -> None:
        del self._waits_for[id(txn)]
        if key in self._queues:
            self._dequeue(txn, key)

    def _blocker(self, txn, key: tuple):
        """A transaction other than ``txn`` holding a lock that conflicts with ``key``, or None."""
        table_lock = self._holders.get((key[0], TABLE))
        if table_lock is not None and table_lock is not txn:
            return table_lock
        if key[1] == TABLE:
            return next((other for other in self._in_table.get(key[0], {}).values() if other is not txn), None)
        holder = self._holders.get(key)
        return holder if holder is not txn else None

    def _covered(self, txn, key: tuple) -> bool:
        """Does ``txn`` hold ``key`` already, or its table's lock?"""
        return self._holders.get(key) is txn or (key[1] != TABLE and self._holders.get((key[0], TABLE)) is txn)

    def _grant(self, txn, key: tuple) -> None:
        if self._covered(txn, key):
            return  # held already, or covered by its table lock
        self._holders[key] = txn
        self._held.setdefault(id(txn), set()).add(key)
        self._order.setdefault(id(txn), []).append(key)
        if key[1] != TABLE:
            self._in_table.setdefault(key[0], {})[id(txn)] = txn

    def _cycle_from(self, txn) -> bool:
        """Does a path of the wait-for graph lead from ``txn`` back to it?"""
        seen, todo = set(), list(self._waits_for.get(id(txn), ()))
        while todo:
            current = todo.pop()
            if current is txn:
                return True
            if id(current) not in seen:
                seen.add(id(current))
                todo.extend(self._waits_for.get(id(current), ()))
        return False

    def holder(self, key: tuple):
        with self._mutex:
            return self._holders.get(key)

    def holds(self, txn, key: tuple) -> bool:
        with self._mutex:
            return self._holders.get(key) is txn

    def release_all(self, txn) -> int:
        """End of transaction: free every key ``txn`` holds and wake the waiters."""
        with self._mutex:
            spans = self._shared_held.pop(id(txn), None)
            if spans:  # (before a waiter here may take a key: its record lock is this process's)
                self.shared.release(spans)
            keys = self._held.pop(id(txn), ())
            self._order.pop(id(txn), None)
            self._owners.pop(id(txn), None)
            for table_id, bits in self._modes.pop(id(txn), {}).items():
                if bits >> STRONG:
                    self._strong_end(table_id, (bits >> STRONG).bit_count())
                relation = self._relations.get(table_id)
                if relation is None or relation.granted.pop(id(txn), None) is None:
                    continue  # (weak modes of the fast path)
                if not relation.granted and not relation.waiting:
                    del self._relations[table_id]
            for key in keys:
                if self._holders.get(key) is txn:
                    del self._holders[key]
                in_table = self._in_table.get(key[0])
                if in_table is not None and in_table.pop(id(txn), None) is not None and not in_table:
                    del self._in_table[key[0]]
            self._waits_for.pop(id(txn), None)
            self._canceled.discard(id(txn))
            self._wake_waiters_of(txn)
            return len(keys)

    def cancel(self, txn) -> None:
        """The statement ``txn`` runs was canceled: a lock wait of it ends now, and any it begins
        at once, with 57014 (until ``uncancel``, or the transaction's end)."""
        with self._mutex:
            self._canceled.add(id(txn))
            wake = self._sleeping.get(id(txn))
            if wake is not None:
                wake.notify()

    def uncancel(self, txn) -> None:
        with self._mutex:
            self._canceled.discard(id(txn))

    def mark(self, txn) -> tuple[int, int]:
        """What ``txn`` holds now (SAVEPOINT), for ``release_since``."""
        with self._mutex:
            return len(self._order.get(id(txn), ())), len(self._shared_held.get(id(txn), ()))

    def release_since(self, txn, mark: tuple[int, int]) -> int:
        """ROLLBACK TO SAVEPOINT: free the keys ``txn`` took after ``mark`` (as PostgreSQL frees
        a rolled-back subtransaction's locks) and wake their waiters; it keeps the older ones."""
        with self._mutex:
            spans = self._shared_held.get(id(txn))
            if spans is not None and len(spans) > mark[1]:
                self.shared.release(spans[mark[1]:])
                del spans[mark[1]:]
            order = self._order.get(id(txn))
            if not order or len(order) <= mark[0]:
                return 0
            gone = order[mark[0]:]
            del order[mark[0]:]
            held = self._held.get(id(txn), set())
            for key in gone:
                if key[1] == RELATION:
                    self._ungrant_relation(txn, key[0], key[2])
                    continue
                held.discard(key)
                if self._holders.get(key) is txn:
                    del self._holders[key]
            tables = {key[0] for key in gone if key[1] not in (TABLE, RELATION)}
            if tables:
                tables -= {key[0] for key in held if key[1] != TABLE}
            for table_id in tables:
                in_table = self._in_table.get(table_id)
                if in_table is not None and in_table.pop(id(txn), None) is not None and not in_table:
                    del self._in_table[table_id]
            self._wake_waiters_of(txn)
            return len(gone)

    def __len__(self) -> int:
        with self._mutex:
            return len(self._holders)


class ProcessLocks:
    """Exclusive POSIX record locks on one file, for the lock tables of every process that opens
    the warehouse (see the module's docstring). Record locks belong to the process: its own
    transactions are kept apart by the lock table, and a span two of them hold (keys whose
    hashes collide) is counted, unlocked when the last lets go. Closing any descriptor of the
    file would drop every record lock the process holds on it, so a process opens the file once
    (``for_path``) and keeps it; a forked child starts without (it inherits no record locks)."""

    _open: dict[str, "ProcessLocks"] = {}
    _open_guard = threading.Lock()

    def __init__(self, path: str):
        self.path = path
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        self._mutex = threading.Lock()
        self._count: dict[tuple[int, int], int] = {}  # span -> holders in this process

    @classmethod
    def for_path(cls, path: str) -> "ProcessLocks":
        path = os.path.realpath(path)
        with cls._open_guard:
            locks = cls._open.get(path)
            if locks is None:
                locks = cls._open[path] = cls(path)
            return locks

    @staticmethod
    def span(key: tuple) -> tuple[int, int]:
        """(offset, length) of ``key``'s record lock: a table's range is 2**32 bytes from a hash
        of its id; a key's byte in it, from a hash of the key (stable across processes:
        Python's ``hash`` of a string is not)."""
        table = (zlib.crc32(key[0].encode()) & 0x3FFFFFFF) << 32
        if key[1] == TABLE:
            return table, 1 << 32
        return table + zlib.crc32(repr(key[1:]).encode()), 1

    def acquire(self, span: tuple[int, int], timeout: float | None) -> bool:
        """Take ``span`` (True if another process held it and this one waited). Blocks in the
        kernel, which reports a deadlock among processes (40P01); with a ``timeout`` (seconds,
        ``lock_timeout``) it polls instead, and gives up with 55P03."""
        if self.take_now(span):
            return False
        if timeout is None:
            try:
                fcntl.lockf(self._fd, fcntl.LOCK_EX, span[1], span[0])
            except OSError as e:
                if e.errno != errno.EDEADLK:
                    raise
                raise errors.DeadlockDetected(
                    "deadlock detected\nDETAIL:  Process waits for a lock held by a transaction "
                    "in another process, which waits for this one.") from None
            with self._mutex:
                self._count[span] = self._count.get(span, 0) + 1
            return True
        deadline, pause = time.monotonic() + timeout, 0.0005
        while time.monotonic() < deadline:
            time.sleep(min(pause, max(deadline - time.monotonic(), 0.0)))
            pause = min(pause * 2, 0.02)
            if self.take_now(span):
                return True
        raise errors.LockNotAvailable("canceling statement due to lock timeout")

    def take_now(self, span: tuple[int, int]) -> bool:
        """Count one more holder of ``span`` if this process has it already or gets it now."""
        with self._mutex:
            if self._count.get(span):
                self._count[span] += 1
                return True
            try:
                fcntl.lockf(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB, span[1], span[0])
            except OSError as e:
                if e.errno in (errno.EAGAIN, errno.EACCES):
                    return False
                raise
            self._count[span] = 1
            return True

    def release(self, spans) -> None:
        with self._mutex:
            for span in spans:
                left = self._count.get(span, 0) - 1
                if left > 0:
                    self._count[span] = left
                    continue
                self._count.pop(span, None)
                fcntl.lockf(self._fd, fcntl.LOCK_UN, span[1], span[0])


def _forget_after_fork() -> None:
    ProcessLocks._open = {}
    ProcessLocks._open_guard = threading.Lock()


os.register_at_fork(after_in_child=_forget_after_fork)
