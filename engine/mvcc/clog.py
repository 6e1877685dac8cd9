"""The commit log: XID -> in progress / committed (with its CSN) / aborted.

The durable record of commits is ``_txlog`` (an XID is committed iff its entry exists); this
is the in-memory map the running process consults, with a bounded size: entries older than
the oldest XID any running transaction or snapshot can ask about are truncated (``truncate``),
and such old XIDs report ``FROZEN`` - settled long ago, visible to everyone if committed.
"""

from __future__ import annotations

import enum
import threading
from dataclasses import dataclass


class XidState(enum.Enum):
    IN_PROGRESS = "in progress"
    COMMITTED = "committed"
    ABORTED = "aborted"
    FROZEN = "frozen"  # older than the truncation horizon


@dataclass(frozen=True)
class XidStatus:
    state: XidState
    csn: int = 0  # commit sequence number, for COMMITTED


_FROZEN = XidStatus(XidState.FROZEN)
_IN_PROGRESS = XidStatus(XidState.IN_PROGRESS)
_ABORTED = XidStatus(XidState.ABORTED)


class CommitLog:
    def __init__(self):
        self._status: dict[int, XidStatus] = {}  # guarded by _lock
        self._horizon = 0  # XIDs below it are FROZEN
        self._lock = threading.Lock()

    def begin(self, xid: int) -> None:
        with self._lock:
            self._status[xid] = _IN_PROGRESS

    def set_committed(self, xid: int, csn: int) -> None:
        with self._lock:
            self._status[xid] = XidStatus(XidState.COMMITTED, csn)

    def set_aborted(self, xid: int) -> None:
        with self._lock:
            self._status[xid] = _ABORTED

    def status(self, xid: int) -> XidStatus:
        with self._lock:
            status = self._status.get(xid)
        if status is not None:
            return status
        return _FROZEN if xid < self._horizon else _ABORTED  # never started here: treat as aborted

    def truncate(self, horizon: int) -> int:
        """Forget settled XIDs below ``horizon``; returns how many entries were freed."""
        with self._lock:
            if horizon <= self._horizon:
                return 0
            old = [x for x, s in self._status.items() if x < horizon and s.state is not XidState.IN_PROGRESS]
            for x in old:
                del self._status[x]
            self._horizon = horizon
            return len(old)

    def __len__(self) -> int:
        with self._lock:
            return len(self._status)
