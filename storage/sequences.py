"""Sequences: the counters behind SERIAL and identity columns, and ``nextval()``.

A sequence hands out each number once, to any session of any process, whatever becomes of
the transaction that asked: as in PostgreSQL, ``nextval`` is not transactional - a rolled-back
insert leaves a gap - and a number handed out is never handed out again, even after a crash.

Each sequence is a file ``_sequences/<database>/<name>`` holding the next number, as fixed-width
text. Taking numbers locks the file (``flock``: processes and threads alike), reads it, writes
the number after the last one taken in place and flushes it (``fdatasync``) before they are
used - one write of less than a disk sector, which lands whole or not at all. A statement
takes all the numbers it needs at once (``reserve(name, n)``).

A sequence is created with its table (CREATE TABLE of a SERIAL or identity column) and stays
when the table goes: a table created again under the same name goes on counting where the
dropped one stopped, where PostgreSQL's new sequence starts again at 1 (numbers stay unique).
"""

from __future__ import annotations

import fcntl
import os

from txlake import errors

SEQUENCES_DIR = "_sequences"
_WIDTH = 20  # digits of the stored number: up to 2**63 - 1


def sequence_name(table: str, column: str) -> str:
    """The name PostgreSQL gives a SERIAL column's sequence."""
    return f"{table}_{column}_seq"


class Sequences:
    """The sequences of the warehouse at ``root``."""

    def __init__(self, root: str, durable: bool = True):
        self.root = root
        self.durable = durable

    def _path(self, db: str, name: str) -> str:
        return os.path.join(self.root, SEQUENCES_DIR, db, name)

    def create(self, db: str, name: str, start: int = 1) -> None:
        """Make the sequence ``db.name`` if there is none (next number ``start``)."""
        path = self._path(db, name)
        if os.path.exists(path):
            return
        os.makedirs(os.path.dirname(path), exist_ok=True)
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:  # (another session's CREATE TABLE made it meanwhile)
            return
        try:
            os.write(fd, _encode(start))
            if self.durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        if self.durable:
            _fsync_dir(os.path.dirname(path))

    def reserve(self, db: str, name: str, count: int = 1) -> int:
        """Take ``count`` numbers of ``db.name``: the first of them (the others follow it).
        42P01 if there is no such sequence; 2200H past the largest BIGINT."""
        with self._locked(db, name) as fd:
            first = _decode(os.pread(fd, _WIDTH + 1, 0), name)
            if first + count - 1 > 2 ** 63 - 1:
                raise errors.DataError(f'nextval: reached maximum value of sequence "{name}"', sqlstate="2200H")
            self._store(fd, first + count)
            return first

    def set_next(self, db: str, name: str, value: int) -> None:
        """``setval(name, value)``: the next number taken is ``value`` + 1."""
        with self._locked(db, name) as fd:
            _decode(os.pread(fd, _WIDTH + 1, 0), name)
            self._store(fd, value + 1)

    def _store(self, fd: int, next_value: int) -> None:
        os.pwrite(fd, _encode(next_value), 0)
        if self.durable:
            os.fdatasync(fd)

    def _locked(self, db: str, name: str):
        return _Locked(self._path(db, name), name)


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
