"""The values of PostgreSQL's system columns, for the statements that name one (the parser says
which: ``Statement.system_columns``, ``Context.system_columns``). Every other statement reads its
tables as before, and the point paths (engine/points.py) never see one.

- ``ctid``: where the row version is in the snapshot - row (file id, position) as the tid
  (file id, position + 1), the file id as an unsigned 32-bit number (a transaction's own,
  uncommitted files have negative ids: they come after every committed one). Unique among the
  rows a snapshot sees and ordered; an UPDATE writes the row anew, at another ctid. A commit
  numbers the transaction's files, and compaction moves rows: a ctid holds within a snapshot
  (as PostgreSQL's does not outlive VACUUM FULL).
- ``xmin``: the XID of the transaction whose commit added the row (storage/warehouse.py
  ``creators``), kept where a compaction moves the row, as PostgreSQL's VACUUM keeps it; the
  transaction's own rows its XID (txid_current()'s); 2, PostgreSQL's frozen XID, where the row
  came with no XID (a Spark job's), which no transaction has (XIDs start at 3).
- ``xmax``: 0 - txlake's snapshots hold only live rows, and row locks keep no XID in the row.
  A row ``INSERT ... ON CONFLICT DO UPDATE`` updated returns its XID (``RETURNING (xmax = 0) AS
  inserted``), as PostgreSQL's, whose conflict check locked the row; a row DELETE returns, the
  deleter's.
- ``tableoid``: the table's OID, as pg_class has it.
- ``cmin`` / ``cmax``: 0. PostgreSQL's are the command id (within its transaction) of the
  statement that inserted / deleted the row - 0 for the first statement of a transaction, and
  of an autocommit one; txlake keeps no command ids, so a row a later statement of a
  transaction block wrote shows 0 where PostgreSQL's shows 1, 2, ...

A table of such a statement is read as ``(SELECT r.*, <system columns> FROM rows r) AS alias``,
with its row ids; a ``*`` over it leaves them out (``hidden``), and so do whole-row references and NATURAL JOIN.
"""

from __future__ import annotations

import bisect

import pyarrow as pa
import sqlglot
from sqlglot import exp

from txlake import errors
from txlake.engine import pg_catalog
from txlake.parser.system_columns import COMPARISONS, NAMES, RESERVED, TID_IN, TID_OUT, named
from txlake.storage.datafiles import ROWID

FROZEN_XID = 2  # PostgreSQL's FrozenTransactionId
# meta of a relation read with its system columns: (its hidden names, the table's column names)
_SYSTEM = "txl_system_relation"
_TID_FIELDS = ("tid_block", "tid_offset")


_ROWID_POSITION = f"__r.{ROWID} & 4294967295"  # (a row id's position in its file)


def _ctid_sql(rowid: str) -> str:
    return (f"struct_pack(tid_block := ({rowid} >> 32) & 4294967295, "
            f"tid_offset := ({rowid} & 4294967295) + 1)")


def relation(ex, ctx, version, rows: str, alias: exp.TableAlias | None, register) -> exp.Expression:
    """Table ``version``, registered as ``rows`` with its row ids, as a relation that also has
    the system columns the statement names (those of a name a column of the table has: the
    column), named by ``alias``."""
    names = [n for n in NAMES if n in ctx.system_columns and version.schema.column(n) is None]
    columns = ["__r.*"]  # (with ROWID: UPDATE / DELETE find rows by it)
    join = ""
    for name in names:
        if name == "ctid":
            columns.append(f"{_ctid_sql(f'__r.{ROWID}')} AS ctid")
        elif name == "xmin":
            creators = register(_creators_table(_creators(ex, ctx, version)))
            join = (f" ASOF LEFT JOIN {creators} AS __x ON __x.file_id = (__r.{ROWID} >> 32)"
                    f" AND ({_ROWID_POSITION}) >= __x.first")
            columns.append(f"COALESCE(__x.xid, {FROZEN_XID}) AS xmin")
        elif name in ("xmax", "cmin", "cmax"):
            columns.append(f"CAST(0 AS BIGINT) AS {name}")
        else:
            columns.append(f"CAST({pg_catalog.oid(version.table_id)} AS BIGINT) AS tableoid")
    select = sqlglot.parse_one(f"SELECT {', '.join(columns)} FROM {rows} AS __r{join}", read="duckdb")
    subquery = exp.Subquery(this=select, alias=alias.copy() if alias is not None else None)
    subquery.meta[_SYSTEM] = ((*names, ROWID), tuple(version.schema.names))
    return subquery


def _creators(ex, ctx, version) -> dict[int, tuple[tuple[int, int], ...]]:
    """File id -> (first row, xmin of the rows from it on) pairs: each file the log knows of
    ``version``'s table (storage/warehouse.py ``creators``), and the transaction's own
    (negative ids)."""
    found = ex.db.warehouse.creators(version.table_id)
    own = ctx.txn.xid or FROZEN_XID
    for f in version.files:
        if f.file_id < 0:
            found[f.file_id] = ((0, own),)
    return found


def _creators_table(creators: dict[int, tuple[tuple[int, int], ...]]) -> pa.Table:
    rows = [(file_id, first, xid or FROZEN_XID) for file_id, pairs in creators.items() for first, xid in pairs]
    return pa.table({"file_id": pa.array([r[0] for r in rows], pa.int64()),
                     "first": pa.array([r[1] for r in rows], pa.int64()),
                     "xid": pa.array([r[2] for r in rows], pa.int64())})


def _xmin(creators: dict[int, tuple[tuple[int, int], ...]], rowid: int) -> int:
    """The xmin of row ``rowid`` (file id, position), as ``relation``'s join finds it."""
    pairs = creators.get(rowid >> 32, ())
    at = bisect.bisect_right(pairs, (rowid & 0xFFFFFFFF, float("inf"))) - 1
    return (pairs[at][1] if at >= 0 else 0) or FROZEN_XID


def with_joins(relation: exp.Subquery, joins: list[exp.Join]) -> exp.Table:
    """``relation`` (``relation``'s) as the first table of a parenthesized join,
    ``FROM (t JOIN u ON ...)``, keeping its ``joins``."""
    table = exp.Table(this=exp.Paren(this=relation.this), alias=relation.args.get("alias"), joins=joins)
    table.meta[_SYSTEM] = relation.meta[_SYSTEM]
    return table


def hidden(expression: exp.Expression) -> exp.Expression:
    """``expression`` with the hidden columns of each relation read with system columns
    (``relation``'s) out of sight, as PostgreSQL's system columns are: a ``*`` (and
    ``alias.*``) leaves them out, a whole-row reference (``to_jsonb(t)``, ``SELECT t``) is of
    the table's columns, and a NATURAL JOIN joins by the table's common columns."""
    for select in list(expression.find_all(exp.Select)):
        found = {alias: source for alias, source in _sources(select).items() if _SYSTEM in source.meta}
        if not found:
            continue
        every = sorted({n for source in found.values() for n in source.meta[_SYSTEM][0]})
        for projection in select.expressions:
            if isinstance(projection, exp.Star):
                _exclude(projection, every)
            elif isinstance(projection, exp.Column) and isinstance(projection.this, exp.Star) \
                    and projection.table in found:
                _exclude(projection.this, found[projection.table].meta[_SYSTEM][0])
        _whole_rows(select, found)
        if select.args.get("from_") is not None:
            _natural_joins(select.args["from_"].this, select.args.get("joins") or [])
        for source in found.values():  # (the joins of a parenthesized join)
            if source.args.get("joins"):
                _natural_joins(source, source.args["joins"])
    return expression


def _whole_rows(select: exp.Select, found: dict) -> None:
    """Each whole-row reference of ``select`` to a relation in ``found`` made a row of the
    table's columns only (NULL for a row an outer join made up)."""
    columns = {n for source in found.values() for n in source.meta[_SYSTEM][1]}
    for column in list(select.find_all(exp.Column)):
        name = column.name
        if column.table or name not in found or name in columns or column.find_ancestor(exp.Select) is not select:
            continue
        row = exp.func("struct_pack", *(exp.PropertyEQ(this=exp.to_identifier(n), expression=exp.column(n, name))
                                         for n in found[name].meta[_SYSTEM][1]))
        column.replace(exp.If(this=exp.column(ROWID, name).is_(exp.null()), true=exp.null(), false=row))


def _natural_joins(first: exp.Expression, joins: list[exp.Join]) -> None:
    """Each NATURAL JOIN among ``joins`` (after FROM item ``first``) of relations read with
    system columns on both sides made a join USING the tables' common columns, as PostgreSQL's
    (else it would join by the hidden ones too); 0A000 where a side's columns are not known
    here (a subquery, a parenthesized join)."""
    left, left_system = _columns(first)
    for join in joins:
        right, right_system = _columns(join.this)
        if str(join.args.get("method") or "").upper() == "NATURAL" and left_system and right_system:
            if left is None or right is None:
                raise errors.NotSupportedError("NATURAL JOIN of a subquery or a parenthesized join in a statement "
                                               "naming a system column is not supported: name the columns (USING)")
            common = [n for n in left if n in right]
            join.set("method", None)
            if common:
                join.set("using", [exp.to_identifier(n) for n in common])
            else:
                join.set("on", exp.true())
        left = None if left is None or right is None else [*left, *(n for n in right if n not in left)]
        left_system = left_system or right_system


def _columns(source: exp.Expression) -> tuple[list[str] | None, bool]:
    """(the column names of FROM item ``source`` where known here, does it hold a relation
    read with system columns)."""
    if _SYSTEM in source.meta and not source.args.get("joins"):
        return list(source.meta[_SYSTEM][1]), True
    inside: dict = {}
    _sources_in(source, inside)
    return None, any(_SYSTEM in s.meta for s in inside.values())


def user_ctids(expression: exp.Expression) -> exp.Expression:
    """``expression`` with the tid reading (parser/system_columns.py ``with_tids``, which goes by
    the name alone) undone where a column named ctid is not a table's system column - a
    subquery's, a CTE's or a view's column of that name, or a user column ``ctid`` of a table
    made before the name was refused: PostgreSQL gives only a table a ctid (a tid)."""
    for call in list(expression.find_all(exp.Anonymous)):
        name = call.name.lower()
        if name == TID_OUT and _user_ctid(call.expressions[0]):
            call.replace(exp.cast(call.expressions[0], exp.DataType.build("VARCHAR")))
        elif name == TID_IN and isinstance(call.parent, (*COMPARISONS, exp.In)) and \
                any(_user_ctid(side) for side in (call.parent.this, call.parent.args.get("expression"))):
            call.replace(call.expressions[0])
    return expression


def _user_ctid(column) -> bool:
    """Is ``column`` a column named ctid that is not a table's system column?"""
    if not isinstance(column, exp.Column) or column.name.lower() != "ctid":
        return False
    select = column.find_ancestor(exp.Select)
    while select is not None:
        sources = _sources(select)
        if column.table:
            if column.table in sources:
                return _exposes_ctid(sources[column.table], select)
        else:
            exposing = [s for s in sources.values() if _exposes_ctid(s, select)]
            if exposing or any(_SYSTEM in s.meta for s in sources.values()):
                return bool(exposing)
        select = select.find_ancestor(exp.Select)  # (an outer query's column)
    return False


def _sources(select: exp.Select) -> dict[str, exp.Expression]:
    """The FROM items of ``select`` by alias (those of a parenthesized join's too)."""
    sources: dict[str, exp.Expression] = {}
    for item in [select.args.get("from_")] + (select.args.get("joins") or []):
        if item is not None:
            _sources_in(item.this, sources)
    return sources


def _sources_in(source: exp.Expression, sources: dict) -> None:
    sources[source.alias_or_name] = source
    if isinstance(source, exp.Subquery) and isinstance(source.this, exp.Table):
        _sources_in(source.this, sources)  # ((t JOIN u ON ...))
    for join in source.args.get("joins") or ():
        _sources_in(join.this, sources)


def _exposes_ctid(source: exp.Expression, scope: exp.Expression) -> bool:
    """Does FROM item ``source`` (of the query ``scope``) have a column named ctid that is no
    tid: a user column, or a subquery's or a CTE's column of another value?"""
    if _SYSTEM in source.meta:
        return "ctid" in source.meta[_SYSTEM][1]
    query = source.this if isinstance(source, exp.Subquery) else _cte(source, scope)
    while isinstance(query, exp.SetOperation):
        query = query.this
    if not isinstance(query, exp.Select):
        return False
    for projection in query.expressions:
        if isinstance(projection, exp.Star) or isinstance(projection, exp.Column) and \
                isinstance(projection.this, exp.Star):
            if any(_exposes_ctid(s, query) for s in _sources(query).values()):
                return True
        elif projection.alias_or_name.lower() == "ctid":
            value = projection.this if isinstance(projection, exp.Alias) else projection
            while isinstance(value, (exp.Paren, exp.Min, exp.Max)):
                value = value.this
            if isinstance(value, exp.Column):
                return value.name.lower() != "ctid" or _user_ctid(value)
            return not (isinstance(value, exp.Anonymous) and value.name.lower() == TID_IN)
    return False


def _cte(table: exp.Expression, scope: exp.Expression) -> exp.Expression | None:
    """The query of the CTE FROM item ``table`` names, if it names one seen from ``scope``."""
    if not isinstance(table, exp.Table) or table.args.get("db"):
        return None
    while scope is not None:
        for cte in (scope.args.get("with_").expressions if scope.args.get("with_") else ()):
            if cte.alias_or_name == table.name:
                return cte.this
        scope = scope.parent
    return None


def hidden_from_returning(select: exp.Select, alias: str, names) -> None:
    """RETURNING's ``select`` with its ``*`` and ``alias.*`` leaving out the system columns
    ``names`` its rows carry."""
    for projection in select.expressions:
        if isinstance(projection, exp.Star):
            _exclude(projection, names)
        elif isinstance(projection, exp.Column) and isinstance(projection.this, exp.Star) and projection.table == alias:
            _exclude(projection.this, names)


def _exclude(star: exp.Star, names) -> None:
    star.set("except_", [*(star.args.get("except_") or []), *(exp.column(n) for n in names)])


def refuse_assignment(names) -> None:
    """428C9 for a system column among the columns an INSERT or UPDATE assigns."""
    for name in names:
        if name in RESERVED:
            raise errors.ProgrammingError(f'cannot assign to system column "{name}"', sqlstate="428C9")


def refuse_column_names(names) -> None:
    """42701 for a new table column named as a system column."""
    for name in names:
        if name in RESERVED:
            raise errors.DuplicateColumn(f'column name "{name}" conflicts with a system column name')


def text_tids(table: pa.Table, types: list[str]) -> pa.Table:
    """A result's tid columns (``TID_TYPE``) as PostgreSQL writes a tid: ``(0,1)``."""
    for i, t in enumerate(types):
        if t.startswith("STRUCT(tid_block BIGINT, tid_offset BIGINT)"):
            column = table.column(i)
            texts = [None if v is None else f"({v['tid_block']},{v['tid_offset']})" for v in column.to_pylist()]
            table = table.set_column(i, table.field(i).name, pa.array(texts, pa.string()))
    return table


def in_returning(returning) -> frozenset[str]:
    """The system columns a RETURNING list names (those of its rows: not its statement's WHERE's)."""
    return frozenset().union(*(named(e) for e in returning or ()))


def returned(ex, ctx, version, rows: pa.Table, names, *, updated=None, deleted: bool = False) -> pa.Table:
    """``rows`` - an INSERT's or UPDATE's new rows, or (``deleted``) a DELETE's, with their row
    ids - with the system columns RETURNING names. ``updated``: which rows an ON CONFLICT DO
    UPDATE updated (their xmax is the transaction's XID)."""
    xid = ctx.txn.xid or 0
    n = rows.num_rows
    for name in (n for n in NAMES if n in names and version.schema.column(n) is None):
        if name == "ctid":
            if not deleted:  # (the new rows' places are known once the statement's file is made)
                raise errors.NotSupportedError("RETURNING ctid of an INSERT or UPDATE is not supported")
            rowids = rows.column(ROWID).to_pylist()
            column = pa.array([{"tid_block": (r >> 32) & 0xFFFFFFFF, "tid_offset": (r & 0xFFFFFFFF) + 1}
                               for r in rowids], pa.struct([(f, pa.int64()) for f in _TID_FIELDS]))
        elif name == "xmin":
            if deleted:
                creators = _creators(ex, ctx, version)
                column = pa.array([_xmin(creators, r) for r in rows.column(ROWID).to_pylist()], pa.int64())
            else:
                column = pa.array([xid] * n, pa.int64())
        elif name == "xmax":
            if deleted:
                column = pa.array([xid] * n, pa.int64())
            elif updated is None:
                column = pa.array([0] * n, pa.int64())
            else:
                column = pa.array([xid if u else 0 for u in updated], pa.int64())
        elif name in ("cmin", "cmax"):
            column = pa.array([0] * n, pa.int64())
        else:
            column = pa.array([pg_catalog.oid(version.table_id)] * n, pa.int64())
        rows = rows.append_column(name, column)
    return rows.drop_columns([ROWID]) if deleted else rows

