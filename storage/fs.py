"""The filesystem the warehouse lives on.

Everything in storage/ goes through a ``FileSystem``. The commit log itself needs a POSIX
filesystem (``flock`` and appends, storage/txlog.py); everything else that more than one writer
may create - prepared-transaction records, Paimon snapshots and schemas - relies on
``put_if_absent``: create a complete object under a name, or fail if the name is
taken - never a check-then-rename (POSIX ``rename`` silently replaces its target, which is how
Paimon's local commit loses acknowledged commits). Locally it is ``link(2)`` of a fully written,
fsync'd temporary file: ``link`` fails with EEXIST if the target exists, and readers can never
observe a partially written object.
"""

from __future__ import annotations

import fcntl
import os
import time
import uuid
from contextlib import contextmanager


class LocalFileSystem:
    """A local directory; ``durable`` writes fsync the file and its directory."""

    def __init__(self, durable: bool = True):
        self.durable = durable

    # --- reading -------------------------------------------------------------------------

    def exists(self, path: str) -> bool:
        return os.path.exists(path)

    def read_bytes(self, path: str) -> bytes:
        with open(path, "rb") as f:
            return f.read()

    def listdir(self, path: str) -> list[str]:
        try:
            return os.listdir(path)
        except FileNotFoundError:
            return []

    def database_dirs(self, root: str) -> list[str]:
        """The Paimon database folders (``name.db``) of the warehouse at ``root`` - not a file of
        that name a user keeps there (listing it as a folder failed publishing and expiry)."""
        return [name for name in self.listdir(root) if name.endswith(".db") and os.path.isdir(os.path.join(root, name))]

    def size(self, path: str) -> int:
        return os.stat(path).st_size

    # --- writing -------------------------------------------------------------------------

    def makedirs(self, path: str) -> None:
        if not os.path.isdir(path):
            os.makedirs(path, exist_ok=True)
            if self.durable:
                self._fsync_dir(os.path.dirname(os.path.abspath(path)))

    def put_if_absent(self, path: str, data: bytes) -> bool:
        """Create ``path`` holding ``data`` atomically; False if ``path`` already exists."""
        tmp = self._write_temp(path, data)
        try:
            os.link(tmp, path)
        except FileExistsError:
            return False
        finally:
            os.unlink(tmp)
        if self.durable:
            self._fsync_dir(os.path.dirname(path))
        return True

    def write_atomic(self, path: str, data: bytes) -> None:
        """Create or replace ``path`` with ``data``; readers see the old or the new bytes."""
        tmp = self._write_temp(path, data)
        os.replace(tmp, path)
        if self.durable:
            self._fsync_dir(os.path.dirname(path))

    def write_new(self, path: str, data: bytes) -> None:
        """Write a file under a fresh (unique) name; durable before it returns."""
        with open(path, "wb") as f:
            f.write(data)
            if self.durable:
                f.flush()
                os.fsync(f.fileno())

    def fsync_file(self, path: str) -> None:
        if self.durable:
            fd = os.open(path, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)

    def fsync_dir(self, path: str) -> None:
        if self.durable:
            self._fsync_dir(path)

    def remove(self, path: str) -> None:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass

    @contextmanager
    def try_lock(self, path: str, wait: float = 0.0):
        """Yield whether this thread got the exclusive ``flock`` of ``path`` (created if
        missing) within ``wait`` seconds (polling; by default at once): background work that
        one process - one thread - at a time should do."""
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = time.monotonic() + wait
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        yield False
                        return
                    time.sleep(0.01)
            yield True
        finally:
            os.close(fd)  # closing the descriptor releases the lock

    # --- internals -----------------------------------------------------------------------

    def _write_temp(self, path: str, data: bytes) -> str:
        directory, name = os.path.split(path)
        tmp = os.path.join(directory, f".{name}.{uuid.uuid4().hex}.tmp")
        with open(tmp, "wb") as f:
            f.write(data)
            if self.durable:
                f.flush()
                os.fsync(f.fileno())
        return tmp

    @staticmethod
    def _fsync_dir(path: str) -> None:
        fd = os.open(path or ".", os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
