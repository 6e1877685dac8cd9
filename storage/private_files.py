"""Session-private files: the Parquet files a temporary table's rows spill to.

Each session that spills has its own folder, ``<warehouse>/_private/<pid>-<id>/``. Nothing in
it is durable or shared: no log entry, checkpoint or snapshot names its files, they are written
without fsync, and no other session reads them. The folder goes when its session closes; one
whose process died (a crash) is removed by the next process that opens the warehouse
(``remove_dead``), so a crash never leaves them behind for good.
"""

from __future__ import annotations

import os
import shutil
import uuid

import pyarrow as pa
import pyarrow.parquet as pq

PRIVATE_DIR = "_private"


class PrivateFolder:
    """One session's folder of private files (used by that session's thread only)."""

    def __init__(self, root: str):
        self.root = root
        self.rel = f"{PRIVATE_DIR}/{os.getpid()}-{uuid.uuid4().hex[:12]}"
        self.written: set[str] = set()  # paths relative to ``root``

    def write(self, data: pa.Table) -> tuple[str, int]:
        """``data`` as a new Parquet file of the folder: (path relative to the warehouse, size)."""
        rel = f"{self.rel}/data-{uuid.uuid4().hex}.parquet"
        full = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        pq.write_table(data, full, compression="zstd")
        self.written.add(rel)
        return rel, os.path.getsize(full)

    def keep_only(self, paths) -> None:
        """Remove the files written here that ``paths`` does not hold (no longer any table's)."""
        for rel in self.written - set(paths):
            try:
                os.unlink(os.path.join(self.root, rel))
            except FileNotFoundError:
                pass
            self.written.discard(rel)

    def remove(self) -> None:
        shutil.rmtree(os.path.join(self.root, self.rel), ignore_errors=True)
        self.written.clear()


def remove_dead(root: str) -> int:
    """Remove the private folders of processes that no longer run; how many went."""
    top = os.path.join(root, PRIVATE_DIR)
    try:
        names = os.listdir(top)
    except FileNotFoundError:
        return 0
    removed = 0
    for name in names:
        pid = name.split("-", 1)[0]
        if pid.isdigit() and not _running(int(pid)):
            shutil.rmtree(os.path.join(top, name), ignore_errors=True)
            removed += 1
    return removed


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # (another user's)
        return True
    return True
