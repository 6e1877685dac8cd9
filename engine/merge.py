"""MERGE, as PostgreSQL 15-17 runs it, on the executor's UPDATE / DELETE / INSERT machinery.

``MERGE INTO target USING source ON condition WHEN ...`` runs in four steps:

1. The source is computed once (DuckDB, over the statement's snapshot) and held as Arrow rows
   numbered ``SOURCE_ROW``: every later query reads the same rows, whatever the source does
   (``random()``, ``nextval()``).
2. The target side - an UPDATE's row finder: the target's rows (with row ids) join the source
   ON the condition (LEFT JOIN when a NOT MATCHED BY SOURCE clause needs the target rows no
   source row joins); DuckDB gives each joined row the first MATCHED / NOT MATCHED BY SOURCE
   clause whose condition holds and computes its UPDATE values. The rows an UPDATE or DELETE
   clause takes are locked and re-checked exactly as an UPDATE's (``Executor._lock_rows``):
   a writer of one waits, REPEATABLE READ / SERIALIZABLE get 40001 if it changed since their
   snapshot, READ COMMITTED re-runs this finder on the row's newest version (EvalPlanQual:
   the clauses are tried again from the first; a row that no longer joins its source row is
   NOT MATCHED BY SOURCE, a deleted one drops out). A target row two acting rows would change
   is 21000.
3. The source rows no target row joins (after those re-checks: a source row whose target row
   went away is now not matched, as in PostgreSQL) are given the first NOT MATCHED clause
   whose condition holds; each INSERT clause's rows are built as INSERT builds rows (casts,
   defaults, SERIAL numbers: ``insert_projections``).
4. Updates and deletes are one write of the transaction; the inserts then go through
   INSERT's own path (NOT NULL, VARCHAR(n), key locks, 23505 for a key that exists - also one
   another transaction inserted meanwhile, as PostgreSQL's MERGE gives it). Foreign keys are
   checked and followed after both, as at a statement's end (engine/foreign_keys.py
   ``statement``): a referenced key deleted and inserted again is no NO ACTION violation.

SERIALIZABLE records what the MERGE reads (ssi.py): the tables its source and clauses name,
whole, and of the target the primary keys its source rows look up when the ON condition sets
the key equal to source columns (an absent key too: its insert by another transaction is then
a conflict), else the whole target (a NOT MATCHED BY SOURCE clause reads every row). So a write
skew through MERGE is refused, and two MERGEs of other keys both commit.

Each ``?`` of a MERGE carries the index of the parameter it takes (``PARAM_INDEX``): the
queries built here take parts of the statement in another order than its text, so each
numbers its parameters itself (``$1``, ``$2``, ... : ``_Numbered``).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from sqlglot import exp

from txlake import errors
from txlake.engine import foreign_keys, generated, triggers
from txlake.engine.executor import (Context, Executor, Result, _aliased, assignable, _arrow, _cast, _default_value,
                                    _old_key_columns, _refuse_identity_updates, _refuse_identity_values,
                                    _sets_key, in_row_order, insert_projections)
from txlake.engine.mvcc.xact import SERIALIZABLE
from txlake.parser import statements as st
from txlake.parser.parse import identifier
from txlake.storage import keys as pk
from txlake.storage.datafiles import ROWID

SOURCE_ROW = "__txl_source_row"  # the source row's number (NULL: a target row no source row joins)
CLAUSE = "__txl_clause"          # the index of the WHEN clause a row takes (-1: none)
ACTIONS = "__txl_merge"          # RETURNING's merge_action() reads its "action" column
CHANGES = ("UPDATE", "DELETE")
LOOKUPS = 256  # a MERGE looking up at most this many target keys finds them by key, not by a scan


class _Numbered:
    """The parameters of one DuckDB query built from parts of a MERGE: each ``?`` (tagged with
    the statement parameter it takes) becomes ``$n``, numbered in the order this query first
    meets it; ``values`` are the parameters to run it with."""

    def __init__(self, params):
        self.params = params
        self.used: dict[int, int] = {}

    def __call__(self, node: exp.Expression) -> exp.Expression:
        def visit(n):
            if isinstance(n, exp.Placeholder) and st.PARAM_INDEX in n.meta:
                number = self.used.setdefault(n.meta[st.PARAM_INDEX], len(self.used) + 1)
                return exp.Placeholder(this=str(number))
            return n
        return node.transform(visit)

    @property
    def values(self) -> list:
        return [self.params[i] for i in self.used]


def merge(ex: Executor, ctx: Context, stmt: st.Merge, params) -> Result:
    """Run ``stmt`` in the statement's transaction (the session's runner for st.Merge)."""
    version = ex._writable(ctx, stmt.table)
    schema = version.schema
    if schema.partitioning is not None:
        raise errors.NotSupportedError(f'MERGE into the partitioned table "{version.name}" is not supported: '
                                       "merge into its partitions")
    alias = stmt.alias or stmt.table.name
    ctx = ctx.targeting(alias, version)
    actions = stmt.actions
    assigned = {}
    for action in actions:
        for name, _ in action.assignments:
            assignable(schema, name, stmt.table.name)
            assigned[name] = True
    if ctx.system_columns:  # (its rows are found and joined by engine code of its own)
        raise errors.NotSupportedError(f"system column {sorted(ctx.system_columns)[0]} in MERGE is not supported")
    if schema.generated:  # (the generated columns its SETs may change: their keys checked as SET ones)
        assigned.update(dict.fromkeys(generated.touched(schema, assigned), True))
    inserts = [i for i, a in enumerate(actions) if a.kind == "INSERT"]
    columns = {i: ex._target_columns(schema, st.Insert(table=stmt.table, columns=actions[i].columns))
               for i in inserts}
    for i, action in enumerate(actions):  # (GENERATED ALWAYS AS IDENTITY columns: 428C9, as INSERT and UPDATE)
        if schema.always:
            _refuse_identity_updates(schema, [name for name, _ in action.assignments], action.defaults)
        if i in columns and action.values is not None and action.overriding is None:
            row = exp.Tuple(expressions=list(action.values))
            _refuse_identity_values(schema, columns[i], exp.Values(expressions=[row]))
        if schema.generated:  # (and generated columns: 428C9, as INSERT and UPDATE)
            generated.refuse_updates(schema, [name for name, _ in action.assignments], action.defaults)
            if i in columns and action.values is not None:
                generated.refuse_values(schema, columns[i], exp.Values(expressions=[
                    exp.Tuple(expressions=list(action.values))]), action.columns is not None)
    merging = None
    if schema.triggers and any(triggers.fires(schema, a.kind) for a in actions):
        merging = triggers.Merging(ex, ctx, version, {a.kind for a in actions}, assigned)
    with ex._registered() as register:
        source = _source_rows(ex, ctx, stmt, params, register)
        keys = _looked_up(stmt, version.schema, source) \
            if ctx.txn.isolation == SERIALIZABLE or source.num_rows <= LOOKUPS else None
        if ctx.txn.isolation == SERIALIZABLE:
            _record_reads(ex, ctx, stmt, version, keys)
        source_table = register(source)
        found, quiet, version = _target_side(ex, ctx, stmt, version, source_table, keys, params, register)
        matched = np.zeros(source.num_rows, dtype=bool)
        for numbers in (*quiet, _numbers(found.column(SOURCE_ROW))):
            matched[numbers] = True
        unmatched = np.flatnonzero(~matched)
        new_rows, inserted_from = _insert_rows(ex, ctx, stmt, version, columns, source, unmatched, params,
                                               register)
    clauses = found.column(CLAUSE).to_numpy(zero_copy_only=False)
    updating = np.isin(clauses, [i for i, a in enumerate(actions) if a.kind == "UPDATE"])
    if merging is not None:  # (the BEFORE ROW triggers' rows; they may change any column: all checked as set)
        found, updating, changed_rows = merging.matched(stmt.table, found, updating)
        new_rows, inserted_from = merging.inserting(new_rows, inserted_from)
        merging.finish()
        if merging.changes_rows:
            assigned = dict.fromkeys(schema.names, True)
        version = ctx.resolve(stmt.table)  # (as the triggers left it - BEFORE STATEMENT ones' writes too)
    else:
        changed_rows = ex._conform(found.filter(pa.array(updating, pa.bool_())).select(schema.names), schema)
    rowids = found.column(ROWID).to_numpy(zero_copy_only=False)
    changed_rows = ex._check_rows(version, changed_rows)
    ex._check_updated_keys(ctx, version, rowids, changed_rows, assigned, sources=rowids[updating])
    inserted = None
    with foreign_keys.statement(ex):  # (its foreign keys checked once it has inserted too)
        if len(rowids):
            updated_ids = rowids[updating]
            kept = not _sets_key(schema, assigned) and bool((updated_ids >> 32 > 0).all())
            ex._write(ctx, version, ex._apply(version, rowids, changed_rows if len(updated_ids) else None,
                                              sources=updated_ids, same_keys=kept), assigned=assigned)
        if new_rows is not None:
            inserted = ex._insert_batch(ctx, st.Insert(table=stmt.table), new_rows, ())
    if merging is not None:
        merging.end(updating, changed_rows, inserted)
    count = len(rowids) + (inserted.num_rows if inserted is not None else 0)
    if stmt.returning:
        out = _returning(ex, stmt, alias, schema, found, changed_rows, updating, inserted, inserted_from, source,
                         params)
    else:
        out = Result(rowcount=count)
    out.status = f"MERGE {count}"
    return out


def _parts(actions) -> list:
    return [p for a in actions for p in (a.condition, *(v for _, v in a.assignments), *(a.values or ()))]


def _source_rows(ex: Executor, ctx: Context, stmt: st.Merge, params, register) -> pa.Table:
    """The source's rows, computed once, numbered ``SOURCE_ROW`` from 0."""
    number = _Numbered(params)
    source = number(ex._rewrite(ctx, stmt.source, register))
    if stmt.joined:
        source = _joined_columns(ex, stmt, source, number)
    sql = f"SELECT *, (row_number() OVER () - 1) AS {SOURCE_ROW} FROM {source.sql(dialect='duckdb')}"
    return ex._sql(sql, number.values)


def _joined_columns(ex: Executor, stmt: st.Merge, source: exp.Subquery, number: _Numbered) -> exp.Subquery:
    """A join source's query (``SELECT * FROM a JOIN b ON ...``) selecting each relation's
    columns as "a.x", "b.y" (what the parser made the clauses' ``a.x`` read), and as x, y too
    where only one relation has the name (an unqualified reference, as PostgreSQL resolves it)."""
    query = source.this
    columns = {}
    for name in stmt.joined:  # (DuckDB's binder says which columns ``name.*`` is; nothing runs)
        star = exp.Column(this=exp.Star(), table=exp.to_identifier(name, quoted=True))
        columns[name] = ex._columns_of(query.select(star, append=False).sql(dialect="duckdb"), number.values)
    counts: dict[str, int] = {}
    for names in columns.values():
        for c in names:
            counts[c.lower()] = counts.get(c.lower(), 0) + 1
    projections = []
    for name, names in columns.items():
        for c in names:
            value = exp.column(exp.to_identifier(c, quoted=True), exp.to_identifier(name, quoted=True))
            projections.append(exp.alias_(value, exp.to_identifier(f"{name}.{c}", quoted=True)))
            if counts[c.lower()] == 1:
                projections.append(exp.alias_(value.copy(), exp.to_identifier(c, quoted=True)))
    return exp.Subquery(this=query.select(*projections, append=False), alias=source.args["alias"])


def _looked_up(stmt: st.Merge, schema, source: pa.Table) -> list | None:
    """The target's primary keys the source rows look up (``_source_keys``; NULLs left out: they
    join nothing), or None if the join may read any target row."""
    columns = _source_keys(stmt, schema, source)
    if columns is None:
        return None
    key = schema.primary_key
    keys = pk.key_tuples(source.select(columns).rename_columns(list(key)), key)
    return [k for k in keys if k is not None and not (isinstance(k, tuple) and None in k)]


def _record_reads(ex: Executor, ctx: Context, stmt: st.Merge, version, keys: list | None) -> None:
    """SERIALIZABLE: what the MERGE reads - the tables its source and clauses name, whole, and of
    the target the keys its source rows look up (an absent one too: another transaction's
    insert of it is then a conflict), or every row."""
    ex._read_tables(ctx, stmt, lambda: [stmt.source, stmt.on, *_parts(stmt.actions)])
    if keys is None:
        ex.db.ssi.read_table(ctx.txn, version.table_id)
    else:
        ex.db.ssi.read_keys(ctx.txn, version.table_id, keys)


def _source_keys(stmt: st.Merge, schema, source: pa.Table) -> list[str] | None:
    """The source columns the ON condition sets the target's primary key equal to, a column for
    each key column (``ON t.k = s.k AND ...``) of a type that compares as the key's does
    (integers, text, or the same type) - so the target rows the join reads are exactly those
    keys; None if it does not (or a NOT MATCHED BY SOURCE clause reads every target row)."""
    if not schema.primary_key or any(a.match == "NOT MATCHED BY SOURCE" for a in stmt.actions):
        return None
    alias = stmt.alias or stmt.table.name
    conjuncts = list(stmt.on.flatten()) if isinstance(stmt.on, exp.And) else [stmt.on]
    found = {}
    for c in conjuncts:
        if not isinstance(c, exp.EQ):
            continue
        for target, other in ((c.this, c.expression), (c.expression, c.this)):
            name = _column_of(target, alias)
            column = _column_of(other, stmt.source_name)
            if name in schema.primary_key and column is not None and name not in found:
                matches = [n for n in source.column_names if n.lower() == column.lower()]
                exact = column if column in source.column_names else (matches[0] if len(matches) == 1 else None)
                if exact is not None and _compares_as(source.schema.field(exact).type,
                                                      schema.arrow_schema().field(name).type):
                    found[name] = exact
    return [found[k] for k in schema.primary_key] if set(found) == set(schema.primary_key) else None


def _column_of(node: exp.Expression, table: str) -> str | None:
    """The column name of ``table.column`` (qualified so), else None."""
    if isinstance(node, exp.Column) and node.args.get("table") is not None and isinstance(node.this, exp.Identifier) \
            and identifier(node.args["table"]) == table:
        return identifier(node.this)
    return None


def _compares_as(a: pa.DataType, b: pa.DataType) -> bool:
    """Do values of types ``a`` and ``b`` join exactly when their Python values are equal keys?
    (Not floating point: -0.0 and 0.0 join, NaN is a key of its own.)"""
    if pa.types.is_integer(a) and pa.types.is_integer(b):
        return True
    text = (pa.types.is_string, pa.types.is_large_string, pa.types.is_string_view)
    return (a == b and not pa.types.is_floating(a)) or (any(t(a) for t in text) and any(t(b) for t in text))


def _clause_case(ex, ctx, stmt, indexes, source_name, register, number) -> exp.Expression:
    """The index of the first of the clauses ``indexes`` whose condition holds, else -1. A
    MATCHED clause takes rows that joined a source row, NOT MATCHED BY SOURCE ones the others."""
    ifs = []
    for i in indexes:
        action = stmt.actions[i]
        side = exp.column(SOURCE_ROW, source_name).is_(exp.null())
        if action.match == "MATCHED":
            side = exp.Not(this=side)
        condition = side if action.match != "NOT MATCHED" else exp.true()
        if action.condition is not None:
            condition = exp.and_(condition, exp.paren(number(ex._rewrite(ctx, action.condition, register))))
        ifs.append(exp.If(this=condition, true=exp.Literal.number(i)))
    return exp.Case(ifs=ifs, default=exp.Literal.number(-1)) if ifs else exp.Literal.number(-1)


def _target_side(ex: Executor, ctx: Context, stmt: st.Merge, version, source_table: str, keys: list | None,
                 params, register):
    """Step 2: (the rows an UPDATE or DELETE clause changes - row id, old key, source row,
    clause, new values - locked and re-checked; the numbers of the source rows joined by target
    rows no such clause changes; the version to change them in). ``keys``: the only keys the
    join can match, if known - up to ``LOOKUPS`` of them are found through the key index, not
    by a scan."""
    alias = stmt.alias or stmt.table.name
    schema = version.schema
    actions = stmt.actions
    indexes = [i for i, a in enumerate(actions) if a.match != "NOT MATCHED"]
    changing = pa.array([i for i in indexes if actions[i].kind in CHANGES], pa.int64())
    by_source = any(a.match == "NOT MATCHED BY SOURCE" for a in actions)
    quiet: list[np.ndarray] = []

    def select(target: str) -> tuple[str, list]:
        number = _Numbered(params)
        clause = _clause_case(ex, ctx, stmt, indexes, stmt.source_name, register, number)
        projections = [exp.column(ROWID, alias), *_old_key_columns(schema, alias),
                       exp.alias_(exp.column(SOURCE_ROW, stmt.source_name), SOURCE_ROW),
                       exp.alias_(clause.copy(), CLAUSE)]
        for col in schema.columns:
            ifs = []
            for i in indexes:
                action = actions[i]
                values = dict(action.assignments)
                if action.kind != "UPDATE" or col.name not in values:
                    continue
                value = _default_value(col) if col.name in action.defaults else \
                    number(ex._rewrite(ctx, values[col.name], register))
                ifs.append(exp.If(this=exp.EQ(this=clause.copy(), expression=exp.Literal.number(i)),
                                  true=_cast(value, col.type)))
            old = exp.column(col.name, alias)
            projections.append(exp.alias_(exp.Case(ifs=ifs, default=old) if ifs else old, col.name, quoted=True))
        join = exp.Join(this=_aliased(source_table, stmt.source_name), kind="LEFT" if by_source else None,
                        on=number(ex._rewrite(ctx, stmt.on, register)))
        sql = exp.Select(expressions=projections, from_=exp.From(this=_aliased(target, alias)), joins=[join])
        return sql.sql(dialect="duckdb"), number.values

    def find(candidates) -> pa.Table:
        """The joined rows among ``candidates`` that an UPDATE or DELETE clause changes
        (``Executor._lock_rows``'s finder: it re-runs it on rows changed meanwhile)."""
        sql, values = select(register(candidates))
        rows = ex._sql(sql, values)
        takes = pc.is_in(rows.column(CLAUSE), value_set=changing)
        quiet.append(_numbers(rows.filter(pc.invert(takes)).column(SOURCE_ROW)))
        return _once_each(rows.filter(takes))

    if keys is not None and len(keys) <= LOOKUPS:
        candidates = ex._rows_by_id(version, list(pk.find(ex.store, version, keys).values()))
    else:
        candidates = ex._source(version, with_rowid=True)
    found = find(candidates)
    found, version = ex._lock_rows(ctx, version, found, find)
    return in_row_order(_once_each(found)), quiet, version


def _numbers(source_rows: pa.ChunkedArray) -> np.ndarray:
    """The source row numbers of joined rows, NULLs (target rows no source row joins) left out."""
    return source_rows.drop_null().to_numpy().astype(np.int64, copy=False)


def _once_each(rows: pa.Table) -> pa.Table:
    """21000 for a target row two source rows would change, as PostgreSQL refuses it."""
    ids = rows.column(ROWID).to_numpy()
    if len(ids) > 1 and len(np.unique(ids)) != len(ids):
        raise errors.CardinalityViolation(
            "MERGE command cannot affect row a second time\n"
            "HINT:  Ensure that not more than one source row matches any one target row.")
    return rows


def _insert_rows(ex: Executor, ctx: Context, stmt: st.Merge, version, columns: dict, source: pa.Table,
                 unmatched: np.ndarray, params, register) -> tuple[pa.Table | None, list[int]]:
    """Step 3: the rows the INSERT clauses add for the source rows ``unmatched``, as the table's
    rows (cast, defaults filled), in the source's order, and the source row each comes from;
    None if there are none."""
    indexes = [i for i, a in enumerate(stmt.actions) if a.match == "NOT MATCHED"]
    if not len(unmatched) or not any(stmt.actions[i].kind == "INSERT" for i in indexes):
        return None, []
    schema = version.schema
    rows = register(source.take(pa.array(unmatched)))
    pieces = []
    for i in indexes:
        action = stmt.actions[i]
        if action.kind != "INSERT":
            continue
        number = _Numbered(params)
        clause = _clause_case(ex, ctx, stmt, indexes, stmt.source_name, register, number)
        targets = [schema.column(name) for name in columns[i]]
        values = []
        for k, value in enumerate(_expanded(action.values or (), stmt.source_name, source)):
            if isinstance(value, exp.Var) and value.name.upper() == "DEFAULT":
                # (OVERRIDING USER VALUE: an identity column's default is taken below, once)
                ignored = action.overriding == "USER" and k < len(targets) and targets[k].identity is not None
                value = _default_value(targets[k]) if k < len(targets) and not ignored else exp.null()
            else:
                value = number(ex._rewrite(ctx, value, register))
            values.append(exp.alias_(value, f"c{k}", quoted=True))
        projections = insert_projections(schema, columns[i], len(values), action.columns is not None,
                                         always_given=True,  # (checked above: DEFAULT for such a column)
                                         overriding=action.overriding)
        inner = exp.Select(expressions=[exp.column(SOURCE_ROW, stmt.source_name), *values],
                           from_=exp.From(this=_aliased(rows, stmt.source_name)),
                           where=exp.Where(this=exp.EQ(this=clause, expression=exp.Literal.number(i))))
        sql = f"SELECT {SOURCE_ROW}, {', '.join(projections)} FROM ({inner.sql(dialect='duckdb')}) AS __src"
        pieces.append(ex._sql(sql, number.values))
    made = pa.concat_tables(pieces)
    if len(pieces) > 1:  # (in the source's order, as they are met, not clause by clause)
        made = made.sort_by(SOURCE_ROW)
    if not made.num_rows:
        return None, []
    return ex._conform(made.select(schema.names), schema), made.column(SOURCE_ROW).to_pylist()


def _expanded(values, source_name: str, source: pa.Table) -> list[exp.Expression]:
    """INSERT VALUES (s.*, ...): the source's columns in place of ``s.*``, as PostgreSQL expands it."""
    out = []
    for value in values:
        if isinstance(value, exp.Column) and isinstance(value.this, exp.Star) and \
                value.args.get("table") is not None and identifier(value.args["table"]) == source_name:
            out += [exp.column(name, source_name) for name in source.column_names if name != SOURCE_ROW]
        else:
            out.append(value)
    return out


def _returning(ex: Executor, stmt: st.Merge, alias: str, schema, found: pa.Table, changed_rows,
               updating: np.ndarray, inserted, inserted_from, source: pa.Table, params) -> Result:
    """RETURNING over each row changed - the new row of an UPDATE or INSERT, the old one of a
    DELETE - beside the source row that made it (NULLs for NOT MATCHED BY SOURCE), with
    ``merge_action()``: 'UPDATE', 'DELETE' or 'INSERT'; ``*`` is the target's columns, then the
    source's. Rows come in that order: the target's rows in their physical order (PostgreSQL's heap
    order), then the inserted ones in the source's."""
    old = ex._conform(found.select(schema.names), schema)
    pieces = [_arrow(changed_rows), old.filter(pa.array(~updating, pa.bool_()))]
    order = np.empty(len(updating), dtype=np.int64)
    order[updating] = np.arange(int(updating.sum()))
    order[~updating] = int(updating.sum()) + np.arange(int((~updating).sum()))
    rows = pa.concat_tables(pieces).take(pa.array(order, pa.int64()))
    kinds = [stmt.actions[c].kind for c in found.column(CLAUSE).to_pylist()]
    made_by = found.column(SOURCE_ROW).to_pylist()
    if inserted is not None:
        rows = pa.concat_tables([rows, _arrow(inserted)])
        kinds += ["INSERT"] * inserted.num_rows
        made_by += inserted_from
    sources = source.drop_columns([SOURCE_ROW]).take(pa.array(made_by, pa.int64()))
    merged = pa.table({"action": pa.array(kinds, pa.string())})
    number = _Numbered(params)
    returning = []
    for item in stmt.returning:
        if isinstance(item, exp.Star):
            returning += [exp.Column(this=exp.Star(), table=exp.to_identifier(name))
                          for name in (alias, stmt.source_name)]
            continue
        returning.append(number(item.transform(_merge_action)))
    return ex._returning(returning, rows, schema, alias, number.values,
                         [(stmt.source_name, sources), (ACTIONS, merged)])


def _merge_action(node: exp.Expression) -> exp.Expression:
    if isinstance(node, exp.Anonymous) and node.name.lower() == "merge_action":
        if node.expressions:
            raise errors.ProgrammingError("function merge_action() takes no arguments", sqlstate="42883")
        return exp.column("action", ACTIONS)
    return node
