"""``COMMENT ON`` and the functions that read comments back, as PostgreSQL's.

A comment lives in its relation's schema (storage/schema.py ``Comment``): on the table, view,
materialized view or sequence itself, a column, an index or a constraint. Setting one is transactional, undone by a
rollback, and changes the catalog only: a table keeps its schema id and its files (so a comment
on a large table writes no row), and its commit merges the comments it changed into the table's
newest committed schema (storage/commit.py ``TableDelta.catalog_changed``), so it stands beside
concurrent writers and comments on other objects. It takes SHARE UPDATE EXCLUSIVE on the
relation (engine/table_locks.py), as PostgreSQL's COMMENT ON does. ``IS NULL`` removes
it; an object dropped takes its comment along. Comments on anything else (a schema, a
function) are accepted and kept nowhere: parser/dialect.py reads those as no-effect statements.

``obj_description('t'::regclass, 'pg_class')`` and ``col_description('t'::regclass, n)`` read
them back; psql's ``\\d+`` and ``\\dt+`` show them (engine/session.py ``describe_*``).
"""

from __future__ import annotations

import dataclasses

from sqlglot import exp

from txlake import errors
from txlake.engine import catalog_views, uniques
from txlake.parser import statements as st
from txlake.parser.parse import parse_table_name
from txlake.storage.version import TableVersion

_KIND_WORDS = {"TABLE": "a table", "VIEW": "a view", "MATERIALIZED VIEW": "a materialized view",
               "SEQUENCE": "a sequence"}


def comment(ex, ctx, stmt: st.Comment, params):
    """``COMMENT ON ... IS 'text' | NULL``: the object's comment set or removed."""
    from txlake.engine.executor import Result  # (the executor imports this module's readers)
    if ctx.txn.read_only:
        raise errors.ReadOnlyTransaction("cannot execute COMMENT in a read-only transaction")
    version, kind, name = _commented(ex, ctx, stmt)
    schema = version.schema.with_comment(kind, name, stmt.comment)
    if schema.comments != version.schema.comments:
        if version.is_table:  # (its catalog entry alone: same schema id, same files - storage/commit.py merges it)
            ex._write(ctx, version, version.with_files(schema=schema), check_ssi=False)
        else:
            schema = dataclasses.replace(schema, schema_id=version.schema.schema_id + 1)
            ex._write(ctx, version, dataclasses.replace(version, schema=schema, caches={}), check_ssi=False)
    return Result(status="COMMENT")


def _commented(ex, ctx, stmt: st.Comment) -> tuple[TableVersion, str, str]:
    """(the relation, the kind and name of its object) ``stmt`` comments on (storage/schema.py
    ``Comment``), or PostgreSQL's error for one there is not."""
    if stmt.kind == "INDEX":
        if ctx.lookup(stmt.target) is not None:
            raise errors.WrongObjectType(f'"{stmt.target.name}" is not an index')
        return _index(ex, ctx, stmt.target)
    version = ctx.resolve(stmt.target)
    if stmt.kind in _KIND_WORDS:
        if _kind(version) != stmt.kind:
            raise errors.WrongObjectType(f'"{version.name}" is not {_KIND_WORDS[stmt.kind]}')
        return version, "relation", ""
    if stmt.kind == "COLUMN":
        if version.is_view and stmt.name in version.schema.view.names:
            return version, "column", stmt.name
        column = version.schema.column(stmt.name)
        if column is None:
            raise errors.UndefinedColumn(f'column "{stmt.name}" of relation "{version.name}" does not exist')
        return version, "column", str(column.field_id)
    schema = version.schema  # CONSTRAINT name ON table
    if schema.primary_key and stmt.name == schema.pkey_name(version.name):
        return version, "constraint", ""
    if not any(c.name == stmt.name and not getattr(c, "index", False) for c in schema.constraints):
        raise errors.UndefinedObject(f'constraint "{stmt.name}" for table "{version.name}" does not exist')
    return version, "constraint", stmt.name


def _kind(version: TableVersion) -> str:
    if version.is_matview:
        return "MATERIALIZED VIEW"
    return "VIEW" if version.is_view else "SEQUENCE" if version.is_sequence else "TABLE"


# --- reading them back ---------------------------------------------------------------------

#: obj_description(relation [, catalog]) and col_description(relation, column number)
DESCRIPTION_FUNCTIONS = frozenset(("obj_description", "col_description"))


def description(ex, ctx, node: exp.Anonymous) -> exp.Expression:
    """A call ``obj_description('t'::regclass [, 'pg_class'])`` or ``col_description('t'::regclass,
    n)`` as its value, the comment or NULL, by the tables the statement's transaction sees: the
    relation's (an index's too) and its n-th column's. A relation given otherwise than as a
    constant (a column's values) is NULL: txlake has no oids; another catalog than pg_class too."""
    function, args = node.name.lower(), node.expressions
    if len(args) != 2 and (function == "col_description" or len(args) != 1):
        return node  # (DuckDB's own, with its 42883 for the wrong arguments)
    relation = _relation_text(args[0])
    if relation is None:
        return exp.null()
    target = parse_table_name(relation)
    version = ctx.lookup(target)
    if function == "obj_description":
        catalog = args[1] if len(args) == 2 else None
        if catalog is not None and not (isinstance(catalog, exp.Literal) and catalog.is_string
                                        and catalog.this.lower() in ("pg_class", "pg_catalog.pg_class")):
            return exp.null()
        if version is None:
            version, kind, name = _index(ex, ctx, target)
            text = version.schema.comment(kind, name)
        else:
            text = version.schema.comment("relation")
    else:
        if version is None:
            raise errors.UndefinedTable(f'relation "{relation}" does not exist')
        number = args[1]
        if not (isinstance(number, exp.Literal) and number.is_int):
            return exp.null()
        text = _column_comment(version, int(number.this))
    return exp.Literal.string(text) if text is not None else exp.null()


def constant_relation(args: list[exp.Expression]) -> bool:
    """Does a description call name its relation by a constant (``'t'::regclass``, ``'t'``)?
    Else it takes an OID, row by row (engine/catalog_functions.py answers it)."""
    return bool(args) and _relation_text(args[0]) is not None


def _relation_text(value: exp.Expression) -> str | None:
    """The relation name a regclass argument gives as text: ``'t'::regclass`` or ``'t'``."""
    if isinstance(value, exp.Cast) and str(value.to.args.get("kind") or value.to.this).lower().endswith("regclass"):
        value = value.this
    return value.this if isinstance(value, exp.Literal) and value.is_string else None


def _index(ex, ctx, target: st.TableName) -> tuple[TableVersion, str, str]:
    """(the table, "index", the index's name in its comments) of the index ``target`` (42P01:
    no relation of the name - an index is one in PostgreSQL)."""
    db, name = ctx.locate(target)
    hit = uniques.index_names(ex, ctx, db).get(name)
    if hit is None:
        raise catalog_views.undefined_table(target)
    version = hit[0]
    return version, "index", "" if name == version.schema.pkey_name(version.name) else name


def _column_comment(version: TableVersion, number: int) -> str | None:
    """The comment on the ``number``-th column (from 1) of ``version``, None past its columns."""
    if version.is_view:
        names = version.schema.view.names
        return version.schema.comment("column", names[number - 1]) if 1 <= number <= len(names) else None
    columns = version.schema.columns
    return version.schema.comment("column", str(columns[number - 1].field_id)) if 1 <= number <= len(columns) \
        else None


def column_comments(version: TableVersion) -> list[str | None]:
    """The comments on ``version``'s columns, in their order (psql's ``\\d+`` Description)."""
    count = len(version.schema.view.names) if version.is_view else len(version.schema.columns)
    return [_column_comment(version, n) for n in range(1, count + 1)]
