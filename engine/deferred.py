"""Deferrable constraints: PostgreSQL's DEFERRABLE, INITIALLY DEFERRED and SET CONSTRAINTS.

A FOREIGN KEY or UNIQUE constraint declared DEFERRABLE is, in each transaction, IMMEDIATE -
checked at the end of each statement, as a NOT DEFERRABLE one (except that a UNIQUE one is
not checked row by row: engine/uniques.py ``check_row_by_row``) - or DEFERRED: checked at
COMMIT, before the commit is durable (and at PREPARE TRANSACTION, and when SET CONSTRAINTS
makes it IMMEDIATE again). Its mode starts as its INITIALLY says; ``SET CONSTRAINTS { ALL |
name [, ...] } { DEFERRED | IMMEDIATE }`` changes it for the rest of the transaction.

What a deferred constraint defers, as PostgreSQL's deferred triggers do:

- a foreign key's check that the keys new rows of its table hold name a referenced row
  (engine/foreign_keys.py ``_check_new_rows``);
- a NO ACTION foreign key's check that no row references a key a statement removed from the
  referenced table (RESTRICT and the actions CASCADE / SET NULL / SET DEFAULT always run at
  once, as in PostgreSQL);
- a UNIQUE constraint's check of the rows a statement wrote (engine/uniques.py): at COMMIT the
  rows the transaction added are checked among themselves and against the others, so a
  transaction may swap two keys.

Each is queued (``defer``) as a check of (table id, constraint name) and run by ``run`` against
the transaction's view then - at READ COMMITTED a new snapshot's, so the newest committed rows;
its own writes included. A check of a constraint dropped meanwhile is skipped; a foreign-key
check of a row the transaction deleted since finds no violation. The COMMIT vote's re-checks
(storage/foreign_keys.py, storage/commit.py) then run as for any transaction: a parent row
another transaction deleted meanwhile is 40001 / 23503 there, as for an immediate check.

Savepoints: the modes and the queued checks are part of a savepoint (``DeferredChecks.mark``);
ROLLBACK TO restores the modes and drops the checks queued since.

Cost: ``Transaction.deferred`` stays None until a check is deferred or SET CONSTRAINTS runs,
so a transaction that meets no deferrable constraint pays one attribute test at COMMIT; a
statement tests ``deferrable`` only of the constraints it checks anyway.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class DeferredChecks:
    """A transaction's SET CONSTRAINTS modes and deferred checks. ``all_deferred``: SET
    CONSTRAINTS ALL's mode (None: each constraint's INITIALLY); ``named``: (table id, name) ->
    deferred?, of SET CONSTRAINTS name since; ``pending``: (table id, name, check(ex, ctx))."""

    all_deferred: bool | None = None
    named: dict = field(default_factory=dict)
    pending: list = field(default_factory=list)

    def mark(self) -> tuple:
        return self.all_deferred, dict(self.named), list(self.pending)

    def restore(self, mark: tuple) -> None:
        """Back to ``mark``: the checks queued since dropped, those run since (SET CONSTRAINTS
        ... IMMEDIATE) pending again - as PostgreSQL's subtransaction abort does."""
        self.all_deferred, named, pending = mark
        self.named, self.pending = dict(named), list(pending)

    def set_mode(self, targets, deferred: bool) -> None:
        """SET CONSTRAINTS: ``targets`` (table id, name) pairs, or None for ALL."""
        if targets is None:
            self.all_deferred = deferred
            self.named.clear()
        else:
            self.named.update(dict.fromkeys(targets, deferred))


def is_deferred(txn, table_id: str, constraint) -> bool:
    """Is the DEFERRABLE ``constraint`` of the table ``table_id`` DEFERRED now in ``txn``?"""
    modes = txn.deferred
    if modes is None:
        return constraint.initially_deferred
    mode = modes.named.get((table_id, constraint.name))
    if mode is not None:
        return mode
    return constraint.initially_deferred if modes.all_deferred is None else modes.all_deferred


def defer(txn, table_id: str, name: str, check) -> None:
    """Queue ``check(ex, ctx)`` of the constraint ``name`` of the table ``table_id`` for COMMIT."""
    if txn.deferred is None:
        txn.deferred = DeferredChecks()
    txn.deferred.pending.append((table_id, name, check))


def has_pending(txn) -> bool:
    return txn.deferred is not None and bool(txn.deferred.pending)


def run(ex, ctx, targets=None) -> None:
    """Run the transaction's deferred checks (of the constraints ``targets``, (table id, name)
    pairs; None: all), in the order queued; the first violation raises. A check run is dropped
    from the queue."""
    modes = ctx.txn.deferred
    if modes is None or not modes.pending:
        return
    queued = modes.pending
    chosen = [p for p in queued if targets is None or p[:2] in targets]
    modes.pending = [p for p in queued if not (targets is None or p[:2] in targets)]
    done = set()
    try:
        for table_id, name, check in chosen:
            if check in done:  # (the same check queued again: a UNIQUE one reads every row added)
                continue
            done.add(check)
            check(ex, ctx)
    except BaseException:
        modes.pending = queued
        raise
