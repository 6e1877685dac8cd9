"""Data-modifying statements in WITH (PostgreSQL's ``WITH d AS (DELETE ... RETURNING *)
INSERT INTO archive SELECT * FROM d``), run on the executor's INSERT / UPDATE / DELETE / query
paths (parser/parse.py ``_with_writes`` splits the statement into its parts).

What it guarantees, as PostgreSQL 16 does:

- Each data-modifying CTE runs exactly once, in the order written, whether or not anything
  reads it; then the main statement, whose result, row count and command tag are the
  statement's.
- Every part sees the statement's snapshot: a part that reads a table an earlier part changed
  reads it as the statement found it (``Context.unchanged``, which the executor's rewrite of
  table references honours). The changes are reached only through a CTE's RETURNING rows,
  which the later parts naming the CTE read as constant rows (``_rows_query``).
- It is one statement: an error in any part fails the whole of it (the session aborts an
  autocommit transaction, fails a block - a savepoint before it undoes all of it). Foreign
  keys are checked and followed once every part has run (``foreign_keys.statement``), as
  PostgreSQL fires its referential triggers at the statement's end. Row and table locks, SSI,
  defaults, sequences, constraints: each part's own, as when run alone.
- A row changed twice: PostgreSQL changes it once (which change wins is not predictable), so
  an UPDATE, DELETE or INSERT ... ON CONFLICT DO UPDATE of a table an earlier part changed,
  and a locking read (FOR UPDATE / SHARE) of one, are refused (0A000) rather than guessed.
"""

from __future__ import annotations

from dataclasses import replace

import pyarrow as pa
from sqlglot import exp

from txlake import errors
from txlake.engine import foreign_keys, views
from txlake.engine.executor import RETURNED_ROWS, Context, Executor, Result, with_settings
from txlake.parser import statements as st
from txlake.parser.parse import ctes_inlined, identifier, table_name

_NOT_WRITTEN = object()


def run(ex: Executor, ctx: Context, stmt: st.WithWrites, params) -> Result:
    """Each write of ``stmt``, then its main statement (``params``: the statement's, in the
    order its text holds them)."""
    txn = ctx.txn
    if txn.unfollowed:  # (READ COMMITTED: the tables it wrote before, at this statement's snapshot)
        txn.follow_all()
    start = dict(txn.changes)
    returned: dict[str, pa.Table] = {}
    named: dict[str, tuple[exp.Table, exp.TableAlias]] = {}  # where a later part names a CTE that ran: its rows
    unchanged = None
    with foreign_keys.statement(ex):
        for write in stmt.writes:
            result = _run_part(ex, replace(ctx, returned=returned), write.statement, params, named, unchanged)
            if write.returning:
                returned[write.name] = result.table
                named[write.name] = (exp.Table(this=exp.Anonymous(this=RETURNED_ROWS, expressions=[
                    exp.Literal.string(write.name)])), exp.TableAlias(
                    this=exp.to_identifier(write.name), columns=[exp.to_identifier(c) for c in write.columns]))
            unchanged = _unchanged(ctx, start)
        return _run_part(ex, replace(ctx, returned=returned), stmt.main, params, named, unchanged)


def _run_part(ex: Executor, ctx: Context, part: st.Statement, params, returned: dict, unchanged) -> Result:
    ctx.check_interrupts()  # (canceled, or past statement_timeout, since the part before)
    if returned:
        part = st.rewritten(part, lambda expression: returned_placed(expression, returned))
    expanded = views.expand(ctx, part)
    if expanded is not part:  # (a view's query may read settings)
        part = with_settings(ctx, expanded)
    params = tuple(params[i] for i in part.param_order)
    reads_changed = unchanged is not None and _reads_changed(ctx, part, unchanged)
    ctx = replace(ctx, params=params, param_order=part.param_order, unchanged=unchanged if reads_changed else None)
    if isinstance(part, st.Query):
        if not reads_changed:
            return ex.query(ctx, part, params)
        ex._read_query(ctx, part, params)  # (SERIALIZABLE: what it reads)
        with ex._registered() as register:  # (not the point or cached plans: they read the tables as they are)
            table = ex._sql(ex._rewrite(ctx, part.expression, register), params, result=True)
        return Result(table=table, rowcount=table.num_rows, status=f"SELECT {table.num_rows}")
    return _WRITES[type(part)](ex, ctx, part, params)


def _reads_changed(ctx: Context, part: st.Statement, unchanged: dict) -> bool:
    """Does ``part`` name a table an earlier part changed? 0A000 if it would change one again
    (or lock its rows): PostgreSQL would leave one of the changes out."""
    named = {part.table} if isinstance(part, (st.Insert, st.Update, st.Delete)) else set()

    def collect(expression: exp.Expression) -> exp.Expression:
        named.update(table_name(t) for t in expression.find_all(exp.Table) if isinstance(t.this, exp.Identifier))
        return expression

    st.rewritten(part, collect)
    changed = [v for v in map(ctx.lookup, named) if v is not None and v.table_id in unchanged]
    if not changed:
        return False
    if isinstance(part, (st.Update, st.Delete)) or isinstance(part, st.Insert) and part.on_conflict is not None \
            and not part.on_conflict.do_nothing:
        target = ctx.lookup(part.table)
        if target is not None and target.table_id in unchanged:
            raise errors.NotSupportedError(
                f'changing table "{target.name}" again after an earlier part of the WITH statement changed it is not '
                "supported (PostgreSQL would apply only one of two changes of a row)")
    if getattr(part, "locking", False) or getattr(part, "locks", ()):
        raise errors.NotSupportedError(
            f'locking rows of table "{changed[0].name}" after an earlier part of the WITH statement changed it '
            "is not supported")
    return True


def _unchanged(ctx: Context, start: dict) -> dict | None:
    """The tables the statement has changed so far (the parts run, and their foreign keys'
    actions), by table id, as the statement found them; None if it changed none."""
    found = {}
    for table_id, version in ctx.txn.changes.items():
        before = start.get(table_id, _NOT_WRITTEN)
        if before is version:
            continue
        before = ctx.catalog.by_id(table_id) if before is _NOT_WRITTEN else before
        if before is not None:
            found[table_id] = before
    return found or None


def returned_placed(expression: exp.Expression, returned: dict) -> exp.Expression:
    """``expression`` with each table reference naming a CTE that ran reading its RETURNING
    rows (a copy; the parsed statement is shared)."""
    if not any(not t.args.get("db") and isinstance(t.this, exp.Identifier) and identifier(t.this) in returned
               for t in expression.find_all(exp.Table)):
        return expression
    return ctes_inlined(expression.copy(), returned, None)


_WRITES = {st.Insert: Executor.insert, st.Update: Executor.update, st.Delete: Executor.delete}
