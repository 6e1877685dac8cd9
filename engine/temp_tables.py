"""Temporary tables (``CREATE TEMP TABLE``) and views (``CREATE TEMP VIEW``, or a view reading
a temporary table): a session's own relations, as PostgreSQL's.

A temporary table lives in the schema ``pg_temp`` of the session that made it and nowhere
else: no other session or process sees it, and it goes when the session closes. Invariants:

- **Never in the commit path.** Its versions are ordinary ``TableVersion`` objects (table id
  ``TEMP_ID_PREFIX``...), but the shared catalog never holds them. At each transaction's start
  the session's committed temporary tables are put in the transaction's working catalog
  (``Transaction.changes``, with each as its own base), so name resolution, every write path,
  savepoints and rollback treat them as any table the transaction has; at COMMIT ``take``
  lifts them out before the database's commit sees the transaction, so no log entry,
  checkpoint or Paimon snapshot ever names them, and nothing of them is made durable.
  If that commit fails, they go as the rest of the transaction does.
- **Spills are private.** Rows past the memory share spill, as any table's, but to Parquet files
  of the session's own folder (storage/private_files.py: not fsync'd, removed at close, and a
  dead process's by the next open of the warehouse). Files no temporary table holds any more
  (truncated, dropped, rolled back) go at the session's next COMMIT.
- **Name resolution.** While a session has (or is creating) one, its statements resolve
  unqualified names in ``pg_temp`` first, as PostgreSQL puts pg_temp first in the search path;
  ``pg_temp.t`` names one explicitly. A session without any pays nothing.
- **ON COMMIT**: PRESERVE ROWS (default), DELETE ROWS (emptied at each commit), DROP (dropped
  at the commit of the transaction that made it).
"""

from __future__ import annotations

import itertools

from txlake import errors
from txlake.storage.version import TableVersion

TEMP_DB = "pg_temp"
TEMP_ID_PREFIX = "pgtemp-"

_numbers = itertools.count(1)


def is_temp(version: TableVersion) -> bool:
    return version.db == TEMP_DB


def schema_of(name) -> str:
    """The schema a temporary relation named ``name`` (a TableName) is made in: ``pg_temp``;
    42P16 for another one named."""
    if name.db not in (None, TEMP_DB):
        raise errors.ProgrammingError("cannot create temporary relation in non-temporary schema", sqlstate="42P16")
    return TEMP_DB


def check_create(stmt) -> str:
    """The schema a CREATE TEMP TABLE makes its table in (``pg_temp``); 42P16 for another one
    named, 0A000 for what temporary tables do not have here."""
    schema_of(stmt.table)
    if any(getattr(spec, "sequence", None) is not None for spec in stmt.columns):  # (LIKE's: once expanded)
        raise errors.NotSupportedError("SERIAL and identity columns of a temporary table are not supported")
    return TEMP_DB


class TempTables:
    """One session's temporary tables as its last commit left them (the session's lock guards
    it: a session is used by one thread at a time)."""

    def __init__(self):
        #: the schema information_schema shows them in (PostgreSQL's pg_temp_N)
        self.schema = f"pg_temp_{next(_numbers)}"
        self.tables: dict[str, TableVersion] = {}
        self.delete_rows: set[str] = set()  # ON COMMIT DELETE ROWS: their table ids

    def begin(self, txn) -> None:
        """Put the committed temporary tables in ``txn``'s working catalog."""
        for tid, version in self.tables.items():
            txn.changes[tid] = version
            txn.bases[tid] = version

    def take(self, txn) -> dict[str, TableVersion | None]:
        """Lift the temporary tables out of ``txn`` (about to commit or prepare): table id ->
        the version it left (None: dropped)."""
        mine = {tid: txn.changes.pop(tid) for tid in [t for t in txn.changes if t.startswith(TEMP_ID_PREFIX)]}
        for tid in mine:
            txn.bases.pop(tid, None)
            txn.unfollowed.discard(tid)
        return mine

    def changed(self, mine: dict[str, TableVersion | None]) -> bool:
        """Did the transaction these were taken from change any of them?"""
        return any(version is not self.tables.get(tid) for tid, version in mine.items())

    def files(self) -> set[str]:
        """The paths of the files their rows spilled to (storage/private_files.py)."""
        return {f.path for version in self.tables.values() for f in version.files if f.path is not None}

    def committed(self, mine: dict[str, TableVersion | None], created: dict[str, str]) -> None:
        """The transaction ``mine`` was taken from committed; ``created``: the ON COMMIT action
        of each temporary table it made."""
        for tid, action in created.items():
            if action == "DELETE ROWS":
                self.delete_rows.add(tid)
        for tid, version in mine.items():
            if version is None or created.get(tid) == "DROP":
                self.tables.pop(tid, None)
                self.delete_rows.discard(tid)
            elif tid in self.delete_rows and version.files:
                self.tables[tid] = version.with_files(removed=frozenset(f.file_id for f in version.files))
            else:
                self.tables[tid] = version
