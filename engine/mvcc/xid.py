"""64-bit transaction ids.

XIDs are handed out in increasing order and never wrap (64 bits), so PostgreSQL's wraparound
freezing has no counterpart here. A transaction gets its XID at its first write, as in
PostgreSQL; read-only transactions never consume one. XIDs order transactions inside one
process; the durable commit order is the commit sequence number (CSN) of ``_txlog``. A
reopened warehouse continues after the highest XID its log recorded.
"""

from __future__ import annotations

import threading

#: the first XID a transaction gets, as PostgreSQL's FirstNormalTransactionId: 2, the frozen XID
#: (a row of no known transaction shows it as its xmin), is no transaction's
FIRST_XID = 3


class XidAllocator:
    def __init__(self, next_xid: int = FIRST_XID):
        self._next = max(FIRST_XID, next_xid)
        self._lock = threading.Lock()  # guards _next

    def allocate(self) -> int:
        with self._lock:
            xid = self._next
            self._next += 1
            return xid

    @property
    def next_xid(self) -> int:
        """The XID the next allocation will return (a snapshot's xmax)."""
        with self._lock:
            return self._next
