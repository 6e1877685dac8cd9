"""Sequences: the counters behind SERIAL and identity columns, CREATE SEQUENCE and ``nextval()``.

A sequence hands out each number once, to any session of any process, whatever becomes of
the transaction that asked: as in PostgreSQL, ``nextval`` is not transactional - a rolled-back
insert leaves a gap - and a number handed out is never handed out again, even after a crash.

What a sequence is (its bounds and step) is a catalog entry (storage/schema.py
``SequenceDefinition``), made and dropped by transactional DDL as a table is; its numbers are a
file of its own, ``_sequences/<id>`` (the entry's table id: a sequence dropped and made again
under its name starts afresh, and a ROLLBACK of that DROP finds the old one's file as it was).
Warehouses from before sequences were catalog entries have files ``_sequences/<database>/<name>``
without one, read with the default bounds. The file holds the next number, as fixed-width text.
Taking numbers locks the file (``flock``: processes and threads alike), reads it, writes the
number after the last one taken in place and flushes it (``fdatasync``) before they are used -
one write of less than a disk sector, which lands whole or not at all. A statement takes all the
numbers it needs at once (``reserve(counter, n)``), and a session of a sequence with ``CACHE n``
n at a time (engine/sequence_calls.py hands them out).
"""

from __future__ import annotations

import fcntl
import os
from dataclasses import dataclass

import numpy as np

from txlake import errors

SEQUENCES_DIR = "_sequences"
_WIDTH = 22  # characters of the stored number: a sign and up to 2**64 (a last number plus a step)
BIGINT = (-2 ** 63, 2 ** 63 - 1)


def sequence_file(table_id: str) -> str:
    """Where the numbers of the sequence catalog entry ``table_id`` are (relative to the
    warehouse root). A dropped sequence's file goes with the snapshots that saw it
    (storage/expiry.py ``remove_orphan_files``)."""
    return os.path.join(SEQUENCES_DIR, table_id)


def sequence_name(table: str, column: str) -> str:
    """The name PostgreSQL gives a SERIAL column's sequence."""
    return f"{table}_{column}_seq"


@dataclass(frozen=True)
class Counter:
    """Where a sequence's numbers are and how they go: what ``reserve`` needs (picklable: a
    Spark task takes numbers with it)."""

    path: str  # relative to the warehouse root
    name: str
    increment: int = 1
    minimum: int = 1
    maximum: int = BIGINT[1]
    cycle: bool = False
    cache: int = 1  # numbers a session takes at a time (CACHE n: engine/sequence_calls.py keeps the rest)

    @staticmethod
    def of(version) -> "Counter":
        """The counter of a sequence's catalog entry (storage/version.py ``TableVersion``)."""
        d = version.schema.sequence
        return Counter(sequence_file(version.table_id), version.name, d.increment, d.minimum,
                       d.maximum, d.cycle, d.cache)

    @staticmethod
    def legacy(db: str, name: str) -> "Counter":
        """The counter of a sequence made before sequences were catalog entries."""
        return Counter(os.path.join(SEQUENCES_DIR, db, name), name)


class Sequences:
    """The sequence files of the warehouse at ``root``."""

    def __init__(self, root: str, durable: bool = True):
        self.root = root
        self.durable = durable

    def exists(self, counter: Counter) -> bool:
        return os.path.exists(os.path.join(self.root, counter.path))

    def create(self, counter: Counter, start: int) -> None:
        """Make the file of ``counter`` (next number ``start``), durable before it is used."""
        path = os.path.join(self.root, counter.path)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            os.write(fd, _encode(start))
            if self.durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        if self.durable:
            _fsync_dir(os.path.dirname(path))

    def reserve(self, counter: Counter, count: int = 1, extra: int = 0) -> np.ndarray:
        """Take ``count`` numbers of ``counter``, in order, and up to ``extra`` more after them
        as long as they are within its bounds (a session's cache: as PostgreSQL's, it stops
        at the bound rather than cycle or fail). 42P01 if there is no such sequence; 2200H
        past its last number without CYCLE (none is taken then)."""
        with self._locked(counter) as fd:
            first = _decode(os.pread(fd, 64, 0), counter.name)
            numbers, following = _numbers(counter, first, count)
            if extra:
                more = _within(counter, following, extra)
                numbers = np.concatenate([numbers, following + counter.increment * np.arange(more, dtype=np.int64)])
                following += more * counter.increment
            self._store(fd, following)
            return numbers

    def set_next(self, counter: Counter, value: int) -> None:
        """The next number taken is ``value`` (setval, ALTER SEQUENCE RESTART)."""
        with self._locked(counter) as fd:
            _decode(os.pread(fd, 64, 0), counter.name)
            self._store(fd, value)

    def peek(self, counter: Counter) -> int:
        """The next number, taking none."""
        with self._locked(counter) as fd:
            return _decode(os.pread(fd, 64, 0), counter.name)

    def _store(self, fd: int, next_value: int) -> None:
        os.pwrite(fd, _encode(next_value), 0)
        if self.durable:
            os.fdatasync(fd)

    def _locked(self, counter: Counter):
        return _Locked(os.path.join(self.root, counter.path), counter.name)


def _numbers(c: Counter, first: int, count: int) -> tuple[np.ndarray, int]:
    """``count`` numbers from ``first`` on, by ``c.increment``, and the one after them: back to
    the other bound past one with CYCLE, else 2200H."""
    step = c.increment
    last = first + (count - 1) * step
    if count == 0:
        return np.zeros(0, dtype=np.int64), first
    if c.minimum <= first <= c.maximum and c.minimum <= last <= c.maximum:
        return first + step * np.arange(count, dtype=np.int64), last + step
    out, value = [], first
    for _ in range(count):  # (rare: the range ends among them)
        if not c.minimum <= value <= c.maximum:
            if not c.cycle:
                which, bound = ("maximum", c.maximum) if step > 0 else ("minimum", c.minimum)
                raise errors.DataError(f'nextval: reached {which} value of sequence "{c.name}" ({bound})',
                                       sqlstate="2200H")
            value = c.minimum if step > 0 else c.maximum
        out.append(value)
        value += step
    return np.array(out, dtype=np.int64), value


def _within(c: Counter, first: int, most: int) -> int:
    """How many numbers from ``first`` on (up to ``most``) are within ``c``'s bounds."""
    if not c.minimum <= first <= c.maximum:
        return 0
    room = (c.maximum - first) // c.increment if c.increment > 0 else (first - c.minimum) // -c.increment
    return min(most, room + 1)


class _Locked:
    """The sequence file, open and ``flock``-ed for the ``with`` block."""

    def __init__(self, path: str, name: str):
        self.path, self.name = path, name

    def __enter__(self) -> int:
        try:
            self.fd = os.open(self.path, os.O_RDWR)
        except FileNotFoundError:
            raise errors.UndefinedTable(f'relation "{self.name}" does not exist') from None
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self.fd

    def __exit__(self, *exc) -> None:
        os.close(self.fd)  # (releases the lock)


def _encode(value: int) -> bytes:
    return f"{value:0{_WIDTH}d}\n".encode()


def _decode(data: bytes, name: str) -> int:
    try:
        return int(data.decode().strip())
    except ValueError:
        raise errors.InternalError(f'sequence "{name}" is damaged: {data[:40]!r}') from None


def _fsync_dir(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
