"""``_txlog/``: the warehouse commit log, the single commit point.

Entry ``N`` (``_txlog/000000000042.json``) is the transaction with commit sequence number N.
An entry is created put-if-absent (``FileSystem.put_if_absent``) from fully written, fsync'd
bytes, so:

- a transaction is committed exactly when its entry exists; a crash before that leaves at
  most orphan data files, a crash after it loses nothing;
- two writers racing for the same N cannot both win: the loser learns it and retries at N+1;
- the entries 1..N are a gap-free prefix: the order of entries is the commit order.

Finding the newest entry costs one ``stat`` per probe when nothing changed (``read(n + 1)``
returns None), never a directory scan; the scan happens once, at open.
"""

from __future__ import annotations

import json
import os

from txlake.storage.fs import LocalFileSystem
from txlake.storage.version import LogEntry

LOG_DIR = "_txlog"


class TxLog:
    def __init__(self, root: str, fs: LocalFileSystem):
        self.fs = fs
        self.dir = os.path.join(root, LOG_DIR)
        fs.makedirs(self.dir)

    def path(self, csn: int) -> str:
        return os.path.join(self.dir, f"{csn:012d}.json")

    def read(self, csn: int) -> LogEntry | None:
        try:
            data = self.fs.read_bytes(self.path(csn))
        except FileNotFoundError:
            return None
        return LogEntry.from_json(json.loads(data))

    def append(self, entry: LogEntry) -> bool:
        """Create the entry for ``entry.csn``; False if another writer already took that number."""
        data = json.dumps(entry.to_json(), separators=(",", ":")).encode()
        return self.fs.put_if_absent(self.path(entry.csn), data)

    def newest_csn(self) -> int:
        """The highest entry number on disk (a directory scan: use at open only)."""
        numbers = [int(n[:-5]) for n in self.fs.listdir(self.dir) if n.endswith(".json") and n[:-5].isdigit()]
        return max(numbers, default=0)

    def entries_after(self, csn: int):
        """Yield entries csn+1, csn+2, ... up to the newest one."""
        while True:
            entry = self.read(csn + 1)
            if entry is None:
                return
            yield entry
            csn += 1
