"""Serializable Snapshot Isolation (SSI), after PostgreSQL's predicate.c / README-SSI.

SERIALIZABLE transactions run on a snapshot like REPEATABLE READ; in addition their reads are
recorded, and at commit the rw-antidependencies among concurrent serializable transactions are
derived: ``R -rw-> W`` when R read something W wrote and R's snapshot did not see W's write.
Every serialization anomaly has a "dangerous structure" ``T_in -rw-> T_pivot -rw-> T_out``
in which T_out commits first; a transaction that would complete one is aborted with 40001.

Reads are recorded at three granularities, cheapest first:
- primary-key reads (a statement whose WHERE pins the key): the keys;
- predicate reads (a single-table statement): the WHERE clause with its parameters bound;
  a write conflicts if an old or new image of a row it wrote satisfies the predicate
  (evaluated by DuckDB) - this is exact predicate locking, so phantoms are caught without
  false positives from unrelated rows;
- anything else (joins, subqueries): the whole table.

Edges are computed when a transaction commits, against transactions that have already
committed (their read and write sets are final). A write also checks early (``check_write``):
if the structure is already complete with every other member committed, the writing statement
fails, as PostgreSQL's does, instead of the later COMMIT. Rules, for T committing:
  (a) T is a pivot: T -rw-> O with O committed, and I -rw-> T for some I that is O, or has not
      committed, or committed after O; if I is read-only, O must have committed before I's
      snapshot (PostgreSQL's read-only optimisation).
  (b) T closes a structure as T_in: T -rw-> P with P committed and P -rw-> O where O committed
      before P; if T is read-only, O must have committed before T's snapshot.
A read-only transaction can only ever be T_in, so it aborts only in PostgreSQL's read-only
anomaly. Serializable commit checks in a process are serialised by ``_lock`` so two of them
cannot both pass the check and form a structure together; the log append and flush that follow
run outside it (a checked transaction is ``COMMITTING`` until its entry is durable), so
serializable commits share group commits as the other levels' do.
"""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass, field
from typing import Callable

import duckdb
import numpy as np
import pyarrow as pa
from sqlglot import exp

from txlake import errors
from txlake.engine import dialect, sources
from txlake.storage import keys as pk
from txlake.storage.commit import TableDelta
from txlake.storage.datafiles import DataFileStore
from txlake.storage.version import TableVersion


@dataclass
class TableReads:
    whole: bool = False
    keys: set = field(default_factory=set)
    predicates: list[tuple[str, str]] = field(default_factory=list)  # (alias, WHERE as DuckDB SQL)


class TableWrites:
    """What a transaction wrote to a table: the old and new primary keys (empty for a table
    without one), ``count`` rows, and ``rows``, the old images of the rows it deleted or
    updated plus its new rows, in the table's schema.

    Worked out (``work()`` gives keys, count and a function making the rows) the first time
    another transaction's check asks - most never are asked: only transactions running beside
    this one check against it, and at one session there are none - and the rows made a table
    only when a predicate read needs them. ``unknown``: they could not be read (a file
    removed by an expiry meanwhile, say); every check then counts a conflict, as a false
    positive is safe where a miss is not."""

    def __init__(self, work: Callable[[], tuple[set, int, Callable[[], pa.Table]]]):
        self._work = work
        self._image = None
        self._rows = None
        self.keys: set = set()
        self.count = 0
        self.unknown = False

    def worked_out(self) -> "TableWrites":
        if self._work is not None:
            work, self._work = self._work, None
            try:
                self.keys, self.count, self._image = work()
            except Exception:  # (its own commit is done: the failure is not another's to raise)
                self.unknown = True
        return self

    @property
    def rows(self) -> pa.Table:
        if self._rows is None:
            self._rows = self.worked_out()._image()
            self._image = None
        return self._rows


@dataclass(eq=False)
class SerialRecord:
    vxid: int
    snapshot_csn: int | None = None
    commit_csn: int | None = None
    read_only: bool = True
    reads: dict[str, TableReads] = field(default_factory=dict)
    writes: dict[str, TableWrites] = field(default_factory=dict)
    ins: set = field(default_factory=set)    # records with an rw-edge into this one
    outs: set = field(default_factory=set)   # records this one has an rw-edge to


class SSI:
    def __init__(self, store: DataFileStore):
        self.store = store
        self._lock = threading.RLock()  # guards _records and the edge sets; serialises commits
        self._records: dict[int, SerialRecord] = {}   # running and recently committed
        self.aborts = 0

    @functools.cached_property
    def _con(self) -> duckdb.DuckDBPyConnection:
        """Where a read's WHERE evaluates over another transaction's writes, as it did in the
        read: a database of its own, set up at the first predicate checked (a process that never
        checks one - most never run SERIALIZABLE - does not pay its set-up)."""
        con = duckdb.connect(config={"enable_external_access": False})
        dialect.postgres_semantics(con)
        return con

    # --- reads ---------------------------------------------------------------------------

    def _record(self, txn) -> SerialRecord:
        with self._lock:
            rec = self._records.get(txn.vxid)
            if rec is None:
                rec = self._records[txn.vxid] = SerialRecord(txn.vxid)
            if rec.snapshot_csn is None and txn.snapshot is not None:
                rec.snapshot_csn = txn.snapshot.csn
            return rec

    def read_table(self, txn, table_id: str) -> None:
        rec = self._record(txn)
        with self._lock:
            rec.reads.setdefault(table_id, TableReads()).whole = True

    def read_keys(self, txn, table_id: str, keys) -> None:
        rec = self._record(txn)
        with self._lock:
            rec.reads.setdefault(table_id, TableReads()).keys.update(keys)

    def read_predicate(self, txn, table_id: str, alias: str, where: exp.Expression) -> None:
        rec = self._record(txn)
        with self._lock:
            rec.reads.setdefault(table_id, TableReads()).predicates.append((alias, where.sql(dialect="duckdb")))

    # --- commit --------------------------------------------------------------------------

    def commit(self, txn, deltas: list[TableDelta], do_commit, latest_csn: int):
        """Check ``txn`` for dangerous structures, then run ``do_commit()`` (which returns the
        log entry) under the same lock, and record the transaction as committed. A read-only
        transaction "commits" between ``latest_csn`` and the next commit."""
        with self._lock:
            rec = self._record(txn)
            rec.writes = {d.table_id: self._write_image(d) for d in deltas if not d.is_noop()}
            rec.read_only = not rec.writes
            snapshot = rec.snapshot_csn if rec.snapshot_csn is not None else 0
            for other in list(self._records.values()):
                if other is rec or other.commit_csn is None or other.commit_csn <= snapshot:
                    continue  # running, or committed before our snapshot (we saw its writes)
                if self._conflict(rec.reads, other.writes):
                    rec.outs.add(other)
                    other.ins.add(rec)
                if self._conflict(other.reads, rec.writes):
                    rec.ins.add(other)
                    other.outs.add(rec)
            if self._dangerous(rec):
                self._drop(rec)
                self.aborts += 1
                raise errors.SerializationFailure(
                    "could not serialize access due to read/write dependencies among transactions\n"
                    "DETAIL:  Reason code: Canceled on identification as a pivot, during commit attempt.\n"
                    "HINT:  The transaction might succeed if retried.")
            rec.commit_csn = COMMITTING
        # the log append and its flush run outside the lock (as PostgreSQL marks a checked
        # transaction prepared and lets go of its lock before its commit record): serializable
        # commits share a group's write and flush; meanwhile others' checks count this one as
        # committed at a position not yet known (``_dangerous`` assumes the worst of it)
        try:
            entry = do_commit()
        except BaseException:
            with self._lock:
                self._drop(rec)
            raise
        with self._lock:
            rec.commit_csn = entry.csn if entry is not None else latest_csn + 0.5
        return entry

    def check_write(self, txn, deltas: list[TableDelta]) -> None:
        """Fail ``txn``'s write now if, with its reads and writes so far, it completes a
        dangerous structure whose other members have all committed, as PostgreSQL fails the
        write. Reads only accumulate and committed records are final, so commit would refuse it
        too (unless a savepoint rollback undid the write). Nothing is recorded here: commit
        derives the edges again from the final read and write sets."""
        with self._lock:
            rec = self._records.get(txn.vxid)
            if rec is None:
                return  # it read nothing: no rw-edge out of it, so it completes no structure
            snapshot = rec.snapshot_csn if rec.snapshot_csn is not None else 0
            committed = [o for o in self._records.values()
                         if o is not rec and o.commit_csn is not None and o.commit_csn > snapshot]
            outs = {o for o in committed if self._conflict(rec.reads, o.writes)}
            if not outs:
                return  # every structure it could complete needs an edge to a committed one
            writes = {d.table_id: self._write_image(d) for d in deltas if not d.is_noop()}
            ins = {o for o in committed if self._conflict(o.reads, writes)}
            probe = SerialRecord(rec.vxid, rec.snapshot_csn, read_only=not writes, ins=ins, outs=outs)
            if self._dangerous(probe):
                self.aborts += 1
                raise errors.SerializationFailure(
                    "could not serialize access due to read/write dependencies among transactions\n"
                    "DETAIL:  Reason code: Canceled on identification as a pivot, during write.\n"
                    "HINT:  The transaction might succeed if retried.")

    def keys_read(self, txn) -> dict[str, frozenset]:
        """The tables ``txn`` read only by primary key, and those keys: another process's
        commit is checked against them key by key (``Warehouse._vote``)."""
        with self._lock:
            rec = self._records.get(txn.vxid)
            if rec is None:
                return {}
            return {t: frozenset(r.keys) for t, r in rec.reads.items() if r.keys and not r.whole and not r.predicates}

    def tables_read(self, txn) -> frozenset[str]:
        with self._lock:
            rec = self._records.get(txn.vxid)
            return frozenset(rec.reads) if rec is not None else frozenset()

    def close(self) -> None:
        if "_con" in self.__dict__:
            self._con.close()

    def abort(self, txn) -> None:
        with self._lock:
            rec = self._records.get(txn.vxid)
            if rec is not None and rec.commit_csn is None:
                self._drop(rec)

    def _drop(self, rec: SerialRecord) -> None:
        self._records.pop(rec.vxid, None)
        for other in rec.ins:
            other.outs.discard(rec)
        for other in rec.outs:
            other.ins.discard(rec)

    def prune(self, oldest_running_csn: int | None) -> None:
        """Forget committed records no running transaction is concurrent with."""
        with self._lock:
            running = [r.snapshot_csn for r in self._records.values()
                       if r.commit_csn is None or r.commit_csn == COMMITTING]
            horizon = min([c for c in running if c is not None] +
                          ([oldest_running_csn] if oldest_running_csn is not None else []), default=None)
            for rec in list(self._records.values()):
                if rec.commit_csn is not None and rec.commit_csn != COMMITTING and \
                        (horizon is None or rec.commit_csn <= horizon):
                    del self._records[rec.vxid]

    def __len__(self) -> int:
        with self._lock:
            return len(self._records)

    # --- the rules -----------------------------------------------------------------------

    @staticmethod
    def _dangerous(t: SerialRecord) -> bool:
        """Does ``t`` complete a dangerous structure? Commit order is compared by CSN; where
        it cannot be told - a member still ``COMMITTING``, or two members of one commit group
        (one CSN) - the worse order is assumed: a false positive is safe, a miss is not."""
        for out in t.outs:
            if out.commit_csn is None:
                continue
            unknown = out.commit_csn == COMMITTING
            for into in t.ins:  # (a) t as pivot
                if into is out or into.commit_csn is None or unknown or into.commit_csn >= out.commit_csn:
                    if not into.read_only or into is out or (
                            into.snapshot_csn is not None and (unknown or out.commit_csn <= into.snapshot_csn)):
                        return True
            for far in out.outs:  # (b) t as T_in, out as pivot
                if far.commit_csn is None:
                    continue
                far_unknown = far.commit_csn == COMMITTING
                if far_unknown or unknown or far.commit_csn <= out.commit_csn:
                    if not t.read_only or (t.snapshot_csn is not None and (
                            far_unknown or far.commit_csn <= t.snapshot_csn)):
                        return True
        return False

    def _conflict(self, reads: dict[str, TableReads], writes: dict[str, TableWrites]) -> bool:
        for table_id, r in reads.items():
            w = writes.get(table_id)
            if w is None:
                continue
            if w.worked_out().unknown:
                return True
            if not w.count and not w.keys:
                continue
            if r.whole or (r.keys & w.keys):
                return True
            for alias, where in r.predicates:
                if self._matches(w.rows, alias, where):
                    return True
        return False

    def _matches(self, rows: pa.Table, alias: str, where: str) -> bool:
        if not rows.num_rows:
            return False
        name = f"__ssi_{id(rows)}"
        detach = None
        try:  # (attached as a statement's tables are: a uuid column compares as a uuid)
            detach = sources.attach(self._con, name, rows)
            found = self._con.execute(f'SELECT 1 FROM {name} AS "{alias}" WHERE {where} LIMIT 1').fetchall()
            return bool(found)
        except duckdb.Error:
            return True  # cannot tell: assume a conflict (a false positive is safe)
        finally:
            if detach is not None:
                detach()

    def _write_image(self, d: TableDelta) -> TableWrites:
        """Old images of the rows the transaction deleted or updated, plus its new rows, when
        asked. Those of a few point writes are read as Python values (``_point_writes``), and
        made a table only if a predicate read asks for them."""
        def work():
            point = self._point_writes(d)
            if point is not None:
                keys, rows = point
                target = d.base.schema.arrow_schema()
                return keys, len(rows), lambda: pa.Table.from_pylist(rows, schema=target)
            rows, keys = self._write_image_rows(d)
            return keys, rows.num_rows, lambda: rows
        return TableWrites(work)

    def _point_writes(self, d: TableDelta) -> tuple[set, list[dict]] | None:
        """(the keys, the rows) ``_write_image_rows`` would give, as Python values, when the
        transaction deleted at most POINT_WRITES rows of a table and its new rows are Python
        values (point UPDATEs, INSERT ... VALUES); None otherwise."""
        if d.base is None or d.work is None or d.rewritten():
            return None
        deleted = d.new_deletes()
        if sum(len(p) for p in deleted.values()) > POINT_WRITES:
            return None
        news = [f.python_rows() for f in d.pending]
        if any(held is None or d.work.deleted(f.file_id) for held, f in zip(news, d.pending)):
            return None
        schema = d.base.schema
        rows = []
        for fid, positions in deleted.items():
            f = d.base.file(fid)
            held = f.python_rows(schema) if f is not None else None
            if held is not None:
                rows.extend(held.row(pos) for pos in positions)
            elif f is not None:
                rows.extend(self.store.row(f, schema, pos) for pos in positions)
        for held in news:
            rows.extend(held.row(i) for i in range(held.num_rows))
        names = schema.primary_key
        if not names:
            return set(), rows
        keys = {row[names[0]] for row in rows} if len(names) == 1 else {tuple(row[n] for n in names) for row in rows}
        return keys, rows

    def _write_image_rows(self, d: TableDelta) -> tuple[pa.Table, set]:
        version = d.work or d.base
        schema = version.schema
        pieces = []
        if d.base is not None and d.work is not None and d.work.schema.schema_id == d.base.schema.schema_id:
            for fid, positions in d.new_deletes().items():
                f = d.base.file(fid)
                if f is None:
                    continue
                idx = np.fromiter(positions, dtype=np.int64, count=len(positions))
                pieces.append(self.store.read(f, schema).take(pa.array(idx)))
            for f in d.pending:
                pieces.append(self.store.scan(_only(d.work, f)))
        elif d.base is not None:  # dropped or rewritten: every row changed
            pieces.append(self.store.scan(d.base))
            if d.work is not None:
                pieces.append(self.store.scan(d.work).select(d.base.schema.names)
                              if set(d.base.schema.names) <= set(d.work.schema.names) else d.base.schema.arrow_schema().empty_table())
        elif d.work is not None:
            pieces.append(self.store.scan(d.work))
        target = (d.base or d.work).schema.arrow_schema()
        pieces = [p.select(target.names).cast(target) for p in pieces if p.num_rows]
        rows = pa.concat_tables(pieces) if pieces else target.empty_table()
        key_names = (d.base or d.work).schema.primary_key
        keys = set(pk.key_tuples(rows, key_names)) if key_names else set()
        if d.base is not None and (d.work is None or d.rewritten()):
            keys.add(("__table__",))  # dropping or rewriting touches every possible key
        return rows, keys


POINT_WRITES = 64  # deleted rows up to which a write's keys are read as Python values

# SerialRecord.commit_csn of a transaction past its commit check whose log entry is not yet
# durable: after every snapshot taken so far, its place among other commits not yet known
COMMITTING = float("inf")


def _only(version: TableVersion, f) -> TableVersion:
    from dataclasses import replace
    return replace(version, files=(f,), deletes={f.file_id: version.deleted(f.file_id)}
                   if version.deleted(f.file_id) else {}, caches={})
