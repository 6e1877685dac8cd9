"""SQL cursors: ``DECLARE``, ``FETCH``, ``MOVE``, ``CLOSE`` and ``pg_cursors``, as PostgreSQL 16's portals.

Rows. A cursor's query runs whole at DECLARE, as any query of the transaction would run then
(its snapshot: the transaction's at REPEATABLE READ and SERIALIZABLE, the statement's at READ
COMMITTED), and its result is kept as the Arrow table the executor made: FETCH slices it, so a
cursor over a million rows holds their Arrow buffers, never a Python object per value (DuckDB's
streaming result cannot be held instead: the session's one DuckDB connection runs the next
statement, and the tables a query reads are attached only while it runs). So a cursor is
PostgreSQL's INSENSITIVE one: what its transaction writes after DECLARE is not in it, and a
WITH HOLD cursor needs nothing more at COMMIT (PostgreSQL materialises it then). What differs:
an error PostgreSQL raises at the FETCH that reaches a row (``1 / 0`` in row 1000) is raised at
DECLARE, and volatile functions are evaluated then.

Position. ``Cursor`` keeps PostgreSQL's portal state (atStart, atEnd, portalPos) and its
tuplestore's read position, and moves as ``DoPortalRunFetch`` / ``PortalRunSelect`` /
``DoPortalRewind`` do (src/backend/tcop/pquery.c): ABSOLUTE and RELATIVE are steps forward or
backward, FETCH 0 re-reads the current row, MOVE BACKWARD ALL rewinds. A cursor scrolls unless
declared NO SCROLL (PostgreSQL's default scrolls when its plan can run backward cheaply, which a
kept result always can); a NO SCROLL cursor refuses every backward step with 55000, re-reading
the current row and a rewind once it has moved included, as PostgreSQL's does.

Lifetime (``end_transaction``, ``rolled_back_to``): a cursor belongs to the transaction that
declared it. Its COMMIT closes the cursors it declared WITHOUT HOLD and keeps those WITH HOLD
(then the session's, until CLOSE, DISCARD ALL or the session's end); its ROLLBACK - or a
failed COMMIT - closes both; ROLLBACK TO a savepoint closes the ones declared after the
savepoint. A cursor's position is no part of the transaction: a rollback does not move it back.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field

import pyarrow as pa

from txlake import errors


@dataclass(eq=False)
class Cursor:
    name: str
    statement: str  # (the DECLARE, as pg_cursors shows it)
    rows: pa.Table
    scroll: bool
    hold: bool
    created: datetime.datetime
    # the transaction that declared it (None once it outlived that one's COMMIT, WITH HOLD) and
    # the savepoints open then (SavepointMark objects, by identity): a rollback to one closes it
    txn: object = None
    savepoints: tuple = ()
    # PostgreSQL's portal: before the first row / past the last, and the rows it is past
    at_start: bool = True
    at_end: bool = False
    pos: int = 0
    # its tuplestore's read position: 0 before the first row, k on row k, n + 1 past the last
    read: int = field(default=0, repr=False)

    def fetch(self, direction: str, count: int | None, move: bool) -> tuple[int, pa.Table | None]:
        """FETCH (``move``: MOVE) ``direction count`` (count None: ALL): how many rows it
        gives (or passes), and FETCH's rows. PostgreSQL's DoPortalRunFetch."""
        keep = not move
        if direction == "ABSOLUTE":
            if count > 0:  # (rewind, go count - 1 rows, give the next: from here when nearer)
                if count - 1 <= self.pos // 2:
                    self._rewind()
                    if count > 1:
                        self._select(True, count - 1, False)
                else:
                    here = self.pos + 1 if self.at_end else self.pos
                    if count <= here:
                        self._select(False, here - count + 1, False)
                    elif count > here + 1:
                        self._select(True, count - here - 1, False)
                return self._select(True, 1, keep)
            if count < 0:  # (to the end, back -count - 1 rows, give the one before)
                self._select(True, None, False)
                if count < -1:
                    self._select(False, -count - 1, False)
                return self._select(False, 1, keep)
            self._rewind()
            return self._select(True, 0, keep)
        if direction == "RELATIVE":
            if count > 0:
                if count > 1:
                    self._select(True, count - 1, False)
                return self._select(True, 1, keep)
            if count < 0:
                if count < -1:
                    self._select(False, -count - 1, False)
                return self._select(False, 1, keep)
            direction = "FORWARD"  # (RELATIVE 0: FORWARD 0)
        forward = direction == "FORWARD"
        if count is not None and count < 0:
            forward, count = not forward, -count
        if count == 0:  # the current row again, if it is on one
            on_row = not self.at_start and not self.at_end
            if move:
                return int(on_row), None
            if on_row:
                self._select(False, 1, False)
                forward, count = True, 1
        if not forward and count is None and move:  # MOVE BACKWARD ALL: a rewind
            passed = self.pos - 1 if self.pos > 0 and not self.at_end else self.pos
            self._rewind()
            return passed, None
        return self._select(forward, count, keep)

    def _select(self, forward: bool, count: int | None, keep: bool) -> tuple[int, pa.Table | None]:
        """PostgreSQL's PortalRunSelect: up to ``count`` rows (None: all) from the read
        position on, or back; the rows if ``keep``."""
        if not forward and not self.scroll:
            raise _forward_only()
        total = self.rows.num_rows
        if (self.at_end if forward else self.at_start) or count is not None and count <= 0:
            return 0, self.rows.slice(0, 0) if keep else None
        if forward:
            available = max(total - self.read, 0)
            taken = available if count is None else min(count, available)
            rows = self.rows.slice(self.read, taken) if keep else None
            self.read = total + 1 if count is None or taken < count else self.read + taken
            if taken > 0:
                self.at_start = False
            if count is None or taken < count:
                self.at_end = True
            self.pos += taken
            return taken, rows
        available = max(min(self.read, total + 1) - 1, 0)
        taken = available if count is None else min(count, available)
        rows = None
        if keep:  # (the rows before the read position, nearest first)
            rows = self.rows.slice(self.read - 1 - taken, taken)
            rows = rows.take(pa.array(range(taken - 1, -1, -1), pa.int64()))
        self.read = 0 if count is None or taken < count else self.read - taken
        if taken > 0 and self.at_end:
            self.at_end = False
            self.pos += 1
        if count is None or taken < count:
            self.at_start, self.pos = True, 0
        else:
            self.pos -= taken
        return taken, rows

    def _rewind(self) -> None:
        """PostgreSQL's DoPortalRewind: nothing to do before any move; else only a scrolling
        cursor goes back to its start."""
        if self.at_start and not self.at_end:
            return
        if not self.scroll:
            raise _forward_only()
        self.read, self.at_start, self.at_end, self.pos = 0, True, False, 0


def _forward_only() -> errors.Error:
    return errors.ObjectNotInPrerequisiteState("cursor can only scan forward\n"
                                               "HINT:  Declare it with SCROLL option to enable backward scan.")


def named(cursors: dict[str, Cursor], name: str) -> Cursor:
    cursor = cursors.get(name)
    if cursor is None:
        raise errors.InvalidCursorName(f'cursor "{name}" does not exist')
    return cursor


def end_transaction(cursors: dict[str, Cursor], txn, committed: bool) -> None:
    """``txn`` committed (or prepared) or rolled back: the cursors it declared close, but - at
    its COMMIT - those WITH HOLD, which are the session's from now on."""
    for name, cursor in list(cursors.items()):
        if cursor.txn is txn:
            if committed and cursor.hold:
                cursor.txn, cursor.savepoints = None, ()
            else:
                del cursors[name]


def rolled_back_to(cursors: dict[str, Cursor], mark) -> None:
    """ROLLBACK TO the savepoint ``mark``: the cursors declared after it close."""
    for name, cursor in list(cursors.items()):
        if any(m is mark for m in cursor.savepoints):
            del cursors[name]


def holds_cursor(cursors: dict[str, Cursor], txn) -> bool:
    """Did ``txn`` declare a cursor WITH HOLD that is open (PREPARE TRANSACTION refuses it)?"""
    return any(c.txn is txn and c.hold for c in cursors.values())


PG_CURSORS_COLUMNS = {"name": pa.string(), "statement": pa.string(), "is_holdable": pa.bool_(),
                      "is_binary": pa.bool_(), "is_scrollable": pa.bool_(), "creation_time": pa.timestamp("us", "UTC")}


def pg_cursors(cursors: dict[str, Cursor]) -> pa.Table:
    """``pg_cursors``: the session's open cursors, in the order they were declared."""
    found = list(cursors.values())
    values = {"name": [c.name for c in found], "statement": [c.statement for c in found],
              "is_holdable": [c.hold for c in found], "is_binary": [False] * len(found),
              "is_scrollable": [c.scroll for c in found], "creation_time": [c.created for c in found]}
    return pa.table({k: pa.array(values[k], t) for k, t in PG_CURSORS_COLUMNS.items()})
