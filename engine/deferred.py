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

At COMMIT the checks queued by many statements are run together where they can be: the
checks of a foreign key's new rows (of its removed keys) queued by a transaction's 20,000
one-row INSERTs (DELETEs) are one probe of the referenced (referencing) table for all their
keys - a check carrying a ``batch`` key is run with the others queued with that key, by its
class's ``violation``. A violation raised is still the one PostgreSQL's queue of deferred
triggers, fired in order, meets first: the violation of the check queued first, and of a
batch, its first row's (``_first_violation``). Between checks the statement's timeout and a
cancel are honoured (57014: the COMMIT fails, nothing is durable).

Savepoints: the modes and the queued checks are part of a savepoint (``DeferredChecks.mark``);
ROLLBACK TO restores the modes and drops the checks queued since.

Cost: ``Transaction.deferred`` stays None until a check is deferred or SET CONSTRAINTS runs,
so a transaction that meets no deferrable constraint pays one attribute test at COMMIT; a
statement tests ``deferrable`` only of the constraints it checks anyway.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from txlake import errors


@dataclass
class DeferredChecks:
    """A transaction's SET CONSTRAINTS modes and deferred checks. ``all_deferred``: SET
    CONSTRAINTS ALL's mode (None: each constraint's INITIALLY); ``named``: (table id, name) ->
    deferred?, of SET CONSTRAINTS name since; ``pending``: (table id, name, check(ex, ctx));
    ``queued``: batch key -> the keys a check in ``pending`` holds (``defer_keys``; forgotten
    when checks leave ``pending``: by ROLLBACK TO, or run)."""

    all_deferred: bool | None = None
    named: dict = field(default_factory=dict)
    pending: list = field(default_factory=list)
    queued: dict = field(default_factory=dict)

    def mark(self) -> tuple:
        return self.all_deferred, dict(self.named), list(self.pending)

    def restore(self, mark: tuple) -> None:
        """Back to ``mark``: the checks queued since dropped, those run since (SET CONSTRAINTS
        ... IMMEDIATE) pending again - as PostgreSQL's subtransaction abort does."""
        self.all_deferred, named, pending = mark
        self.named, self.pending = dict(named), list(pending)
        self.queued = {}

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


def defer_keys(txn, table_id: str, name: str, check) -> None:
    """``defer`` of a ``check`` of keys (with ``batch`` and ``keys``), of those of its keys that
    no check still queued with its batch holds: a check is of keys, not of rows, and the rows a
    transaction wrote come again in each merge of its files (engine/executor.py
    ``_merge_pending``), which 20,000 one-row INSERTs do a thousand times."""
    if txn.deferred is None:
        txn.deferred = DeferredChecks()
    queued = txn.deferred.queued.setdefault(check.batch, set())
    fresh = [k for k in check.keys if k not in queued]
    if fresh:
        queued.update(fresh)
        txn.deferred.pending.append((table_id, name, replace(check, keys=fresh)))


def renamed(txn, table_id: str, old: str, new: str) -> None:
    """The constraint ``old`` of the table ``table_id`` is called ``new`` now (engine/renames.py):
    its queued checks and its SET CONSTRAINTS mode follow it, as PostgreSQL's deferred triggers,
    bound to the constraint itself, do (queued under the old name, a check found no constraint
    of that name at COMMIT and was skipped)."""
    modes = txn.deferred
    if modes is None:
        return
    if (table_id, old) in modes.named:
        modes.named[(table_id, new)] = modes.named.pop((table_id, old))
    modes.pending = [(tid, new, check.renamed(new)) if (tid, name) == (table_id, old) else (tid, name, check)
                     for tid, name, check in modes.pending]


def has_pending(txn) -> bool:
    return txn.deferred is not None and bool(txn.deferred.pending)


def run(ex, ctx, targets=None) -> None:
    """Run the transaction's deferred checks (of the constraints ``targets``, (table id, name)
    pairs; None: all); the first violation raises (``_first_violation``), and 57014 if the
    statement is canceled or its statement_timeout passes meanwhile. The checks run are dropped
    from the queue - unless one raises."""
    modes = ctx.txn.deferred
    if modes is None or not modes.pending:
        return
    queued = modes.pending
    chosen = [p for p in queued if targets is None or p[:2] in targets]
    modes.pending = [p for p in queued if not (targets is None or p[:2] in targets)]
    modes.queued = {}
    try:
        found = _first_violation(ex, ctx, [check for _, _, check in chosen])
        ctx.check_interrupts()  # (a check that ran past the statement's timeout: 57014, not its result)
        if found is not None:
            raise found
    except BaseException:
        modes.pending = queued
        raise


def _first_violation(ex, ctx, checks: list):
    """The violation (23503, 23505) that running ``checks`` in order would raise first, or None.
    Checks with one ``batch`` key run together (once, where the first of them was queued) and
    say which of them queued their first violating row; equal checks (a UNIQUE constraint's,
    queued by each write of its table) run once. Once a violation is found, only the checks
    queued before it still run - one of them may fail first."""
    groups: dict = {}
    for position, check in enumerate(checks):
        batch = getattr(check, "batch", None)
        groups.setdefault(check if batch is None else batch, []).append((position, check))
    first = None  # (position, error)
    for members in groups.values():  # (in the order their first check was queued)
        if first is not None and members[0][0] > first[0]:
            break
        ctx.check_interrupts()
        check = members[0][1]
        if getattr(check, "batch", None) is not None:
            found = check.violation(ex, ctx, [c for _, c in members])
            found = None if found is None else (members[found[0]][0], found[1])
        else:
            try:
                check(ex, ctx)
                found = None
            except errors.IntegrityError as e:
                found = members[0][0], e
        if found is not None and (first is None or found[0] < first[0]):
            first = found
    return None if first is None else first[1]
