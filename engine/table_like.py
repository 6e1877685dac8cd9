"""CREATE TABLE's ``LIKE source [{INCLUDING | EXCLUDING} option] ...``, as PostgreSQL's
transformTableLikeClause makes it: the source's columns - names, types, NOT NULL - take the
clause's place among the new table's columns, and the options copy more of its definition:

- DEFAULTS: the columns' defaults (a SERIAL's ``nextval('t_id_seq')`` too: the new table's
  column then takes numbers from the source's sequence, as in PostgreSQL);
- IDENTITY: identity columns stay identity columns, with a sequence of their own made with the
  source sequence's options (without it they are plain NOT NULL columns);
- CONSTRAINTS: the CHECK constraints, named as in the source;
- INDEXES: the primary key, UNIQUE constraints, unique and other indexes - named anew, as
  PostgreSQL names them by default (``new_pkey``, ``new_a_key``, ``new_a_idx``);
- COMMENTS: the comments on the copied columns, constraints and indexes;
- GENERATED: generated columns stay generated, of the same expression (without it they are
  plain columns);
- STATISTICS, STORAGE, COMPRESSION: taken, with nothing of theirs to copy.

Foreign keys are never copied, as in PostgreSQL. The source may be a table or a view (whose
columns are its query's). The new table is empty, so what is copied needs no validation.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from sqlglot import exp

from txlake import errors
from txlake.engine import index_expressions, indexes, uniques
from txlake.parser import statements as st
from txlake.storage.schema import Column, Comment, TableSchema, constraint_name, type_from_field


@dataclass
class Copied:
    """What the LIKE clauses of one CREATE TABLE copy besides the columns' specs, laid on the
    new table's schema once it has its columns (``apply``)."""

    columns: dict[int, Column] = field(default_factory=dict)  # position in the new table -> the source's column
    primary_key: tuple[str, ...] = ()
    schemas: list[tuple[TableSchema, dict[int, int], frozenset[str]]] = field(default_factory=list)

    def column(self, position: int, spec: st.ColumnSpec) -> Column | None:
        """The column at ``position`` as copied (renumbered), or None for one written out."""
        copied = self.columns.get(position)
        if copied is None:
            return None
        options = self._options(position)
        default = copied.default if copied.identity is None and "DEFAULTS" in options else None  # (not an identity's)
        return replace(copied, field_id=position, default=default, always=spec.always, by_default=spec.by_default,
                       generated=copied.generated if "GENERATED" in options else None)

    def _options(self, position: int) -> frozenset[str]:
        return next(options for _, ids, options in self.schemas if position in ids.values())

    def apply(self, ex, ctx, db: str, table: str, schema: TableSchema) -> TableSchema:
        """``schema`` (the new table's, its written constraints not yet added) with the CHECKs,
        unique constraints, indexes and comments the options copy."""
        for source, ids, options in self.schemas:
            if "CONSTRAINTS" in options:
                taken = schema.constraint_names(table)
                for check in source.checks:
                    if check.name in taken:
                        raise errors.ProgrammingError(
                            f'constraint "{check.name}" for relation "{table}" already exists', sqlstate="42710")
                schema = replace(schema, checks=schema.checks + source.checks)
            renamed = {}
            if "INDEXES" in options:
                if source.primary_key:  # (named after the table: its comments' key is "")
                    renamed[("index", "")], renamed[("constraint", "")] = ("index", ""), ("constraint", "")
                for unique in source.uniques:
                    spec = st.UniqueSpec(None, unique.columns, unique.nulls_not_distinct, unique.deferrable,
                                         unique.initially_deferred)
                    if unique.index:
                        name = _index_name(ex, ctx, db, table, schema, index_expressions.words(unique))
                    else:
                        name = uniques.name_for(ex, ctx, db, table, schema, spec)
                    schema = replace(schema, uniques=schema.uniques + (replace(unique, name=name),)) \
                        if unique.computed else uniques.add(schema, table, name, spec, None, index=unique.index)
                    renamed[("index", unique.name)] = ("index", name)
                    renamed[("constraint", unique.name)] = ("constraint", name)
                for index in source.indexes:
                    name = _index_name(ex, ctx, db, table, schema, index_expressions.words(index))
                    schema = replace(schema, indexes=schema.indexes + (replace(index, name=name),)) \
                        if index.computed else indexes.define(schema, table, name, index.columns, index.method)
                    renamed[("index", index.name)] = ("index", name)
            if "COMMENTS" in options:
                kept = (_comment(c, ids, renamed, source) for c in source.comments)
                schema = replace(schema, comments=schema.comments + tuple(c for c in kept if c is not None))
        return schema


def _comment(comment: Comment, ids: dict[int, int], renamed: dict, source: TableSchema) -> Comment | None:
    """``comment`` (of the source) as the new table's, or None for one not copied: the table's
    own, or one on an object that was not copied."""
    if comment.kind == "column":
        position = ids.get(int(comment.name))
        return None if position is None else Comment("column", str(position), comment.text)
    if comment.kind == "constraint" and any(c.name == comment.name for c in source.checks):
        return comment
    target = renamed.get((comment.kind, comment.name))
    return None if target is None else Comment(target[0], target[1], comment.text)


def _index_name(ex, ctx, db: str, table: str, schema: TableSchema, columns: tuple[str, ...]) -> str:
    """PostgreSQL's default name of an index of ``columns`` on the new table: ``<table>_<columns>_idx``,
    numbered past the names taken (the schema's relations and indexes, the table's constraints)."""
    taken = (set(uniques.index_names(ex, ctx, db)) | {t.name for t in ex._schema_tables(ctx, db)}
             | schema.constraint_names(table) | {u.name for u in schema.uniques} | {i.name for i in schema.indexes})
    return constraint_name(table, columns, "idx", taken)


def expanded(ex, ctx, stmt: st.CreateTable) -> tuple[st.CreateTable, Copied]:
    """``stmt`` with each LIKE clause replaced by the source's columns, as specs, and what the
    clauses copy besides (``Copied``). A missing source is 42P01; a sequence, 42809."""
    specs, copied = [], Copied()
    for item in stmt.columns:
        if isinstance(item, st.ColumnSpec):
            specs.append(item)
            continue
        source = ctx.resolve(item.table)
        if not (source.is_table or source.is_view):
            raise errors.WrongObjectType(f'"{source.name}" is not a table, view, materialized view, composite '
                                         "type, or foreign table")
        columns = source.schema.columns if source.is_table else _view_columns(ex, ctx, item.table)
        ids = {}
        for col in columns:
            ids[col.field_id] = len(specs)
            copied.columns[len(specs)] = col
            specs.append(_spec(ex, ctx, stmt.table.name, source, col, item.including))
        copied.schemas.append((source.schema, ids, item.including))
        if "INDEXES" in item.including and source.schema.primary_key:
            if copied.primary_key or stmt.primary_key:
                raise errors.ProgrammingError(f'multiple primary keys for table "{stmt.table.name}" are not allowed',
                                              sqlstate="42P16")
            copied.primary_key = source.schema.primary_key
    if copied.primary_key and any(s.primary_key for s in specs):
        raise errors.ProgrammingError(f'multiple primary keys for table "{stmt.table.name}" are not allowed',
                                      sqlstate="42P16")
    return replace(stmt, columns=tuple(specs), primary_key=stmt.primary_key or copied.primary_key), copied


def _spec(ex, ctx, table: str, source, col: Column, including: frozenset[str]) -> st.ColumnSpec:
    """The spec of the copied column ``col``: its name, type (for what reads specs; the column
    itself is copied whole) and NOT NULL - an identity column's sequence if IDENTITY is copied."""
    spec = st.ColumnSpec(col.name, exp.DataType.build(col.type.sql(), dialect="duckdb"), col.not_null)
    if col.identity is None or "IDENTITY" not in including:
        return spec
    from txlake.engine import sequence_ddl  # (it builds on the executor)
    owned = sequence_ddl.owned(ctx, {source.table_id}, col.field_id)
    made = owned[0].schema.sequence if owned else None
    options = () if made is None else (("start", made.start), ("increment", made.increment),
                                       ("minvalue", made.minimum), ("maxvalue", made.maximum),
                                       ("cache", made.cache), ("cycle", made.cycle))
    return replace(spec, sequence=f"{table}_{col.name}_seq", always=col.always, by_default=col.by_default,
                   sequence_options=options)


def _view_columns(ex, ctx, name: st.TableName) -> tuple[Column, ...]:
    """A view's columns, of its query's types (as CREATE TABLE AS types them)."""
    query = exp.select("*").from_(exp.Table(this=exp.to_identifier(name.name),
                                            db=exp.to_identifier(name.db) if name.db else None)).limit(0)
    from txlake.engine import views  # (it builds on the executor)
    with ex._registered() as register:
        data = ex._sql(ex._rewrite(ctx, views.expanded_query(ctx, query), register), (), result=True)
    return tuple(Column(i, f.name, type_from_field(f)) for i, f in enumerate(data.schema))
