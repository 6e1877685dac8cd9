"""Snapshots: which transactions a statement or transaction sees.

``Snapshot(xmin, xmax, xip)`` is PostgreSQL's: every XID below ``xmin`` had finished when the
snapshot was taken, every XID at or above ``xmax`` had not started, and ``xip`` lists those in
between that were still running. The rule (``sees``): a transaction's effects are visible iff
it committed and it is neither at/after ``xmax`` nor in ``xip`` - equivalently, iff its commit
sequence number is at most the snapshot's ``csn``.

The snapshot also carries the ``CatalogVersion`` as of ``csn``: the committed state it sees is
exactly the prefix 1..csn of ``_txlog``, which is how an in-memory PostgreSQL-style snapshot
lines up with the on-disk table versions.
"""

from __future__ import annotations

from dataclasses import dataclass

from txlake.engine.mvcc.clog import CommitLog, XidState
from txlake.storage.version import CatalogVersion


@dataclass(frozen=True, eq=False)
class Snapshot:
    xmin: int
    xmax: int
    xip: frozenset[int]
    catalog: CatalogVersion

    @property
    def csn(self) -> int:
        return self.catalog.csn

    def sees(self, xid: int, clog: CommitLog) -> bool:
        if xid >= self.xmax or xid in self.xip:
            return False
        status = clog.status(xid)
        if status.state is XidState.FROZEN:
            return True
        return status.state is XidState.COMMITTED and status.csn <= self.csn
