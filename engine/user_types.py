"""User-defined types: ``CREATE TYPE name AS ENUM (...)`` and ``CREATE DOMAIN``, as PostgreSQL 16
has them, with ALTER TYPE / ALTER DOMAIN and DROP TYPE / DROP DOMAIN.

- **Catalog.** A type is a catalog entry beside the tables, views and sequences, in their
  namespace (a table's row type takes its name in PostgreSQL too): ``TableVersion.is_type``, no
  files, its schema holding a ``TypeDefinition`` (storage/schema.py). So CREATE, ALTER and DROP
  are transactional - a ROLLBACK leaves nothing, another session sees a type once committed, two
  creators of one name are told as two creators of one table are (42710, at once in one
  process, at the second's COMMIT across processes) - and checkpoints and replays keep them. A
  table made from a type that a concurrent transaction alters, or the other way round, is
  40001 at COMMIT (storage/commit.py ``_check_types``).
- **Columns.** A column of a user-defined type stores its base type (an enum's: text), so
  Parquet, Paimon and Spark read plain values; ``Column.user_type`` is the type's entry id and
  ``Column.enum`` an enum's labels, for DuckDB to read the column as its ENUM (comparisons,
  ORDER BY, min / max follow the labels' order: engine/sources.py). A domain's DEFAULT is the
  column's when it has none of its own.
- **Rules.** The type's rules - an enum's labels, a domain's NOT NULL and CHECKs - are written
  into each using table's schema as ``domain_checks`` (``stamped``): CHECKs over the column,
  marked as the type's, enforced with the table's own CHECKs on every write path (INSERT,
  UPDATE, ON CONFLICT, INSERT ... SELECT, MERGE, COPY, a Spark task's rows: engine/checks.py),
  failing with PostgreSQL's errors (22P02 ``invalid input value for enum mood: "x"``, 23514
  ``value for domain email violates check constraint "email_check"``, 23502 ``domain email
  does not allow null values``). Every ALTER of a type writes them anew into the tables using
  it (``_follow``), within the same transaction - a rewrite of each, but for ADD VALUE (its
  catalog entry alone: every row passes the new rules).
- **Queries.** ``'x'::mood`` / ``CAST(x AS email)`` become the checked value of the base type
  (an enum's as DuckDB's ENUM of the labels), and a string constant or parameter compared with
  an enum column is read as a value of the enum, as PostgreSQL reads an unknown-typed literal
  (``rewritten``) - one that is no label is 22P02 at once, rows or none
  (``_refuse_unlisted``). Such statements are planned afresh each time (an ALTER TYPE changes what
  they mean); one that only reads enum columns keeps its plan.
"""

from __future__ import annotations

import dataclasses
import uuid
from typing import TYPE_CHECKING

from sqlglot import exp

from txlake import errors
from txlake.engine import catalog_views, checks, column_scope, composite_types
from txlake.engine.dialect import ENUM_VALUE_MACRO
from txlake.parser import statements as st
from txlake.parser.semantics import (ARRAY_MACRO, boolean_condition, postgres_semantics, quantified_operand,
                                     quantified_over)
from txlake.storage.schema import (NAME_BYTES, CheckConstraint, Column, TableSchema, TypeDefinition, array_input,
                                   constraint_name, parse_type_name)
from txlake.storage.version import TableVersion

if TYPE_CHECKING:  # (the executor imports this module: the DDL below imports it when it runs)
    from txlake.engine.executor import Context, Executor, Result

_VALUE = "__txl_value"  # (a domain's value, in the lambda that checks it)


# --- looking types up ----------------------------------------------------------------------

def _entry(ctx: Context, type_id: str) -> TableVersion | None:
    """The type entry ``type_id`` as the transaction sees it (None: dropped)."""
    if type_id in ctx.txn.changes:
        return ctx.txn.changes[type_id]
    return ctx.catalog.by_id(type_id)


def _entry_named(ctx: Context, name: st.TableName) -> TableVersion | None:
    """The catalog entry (a type, or a relation) ``name`` names, by the search path."""
    return ctx.txn.table(ctx.catalog, *ctx.locate(name))


def _named(ctx: Context, name: st.TableName) -> TableVersion | None:
    """The type ``name`` names (by the search path), None if no type has that name."""
    version = _entry_named(ctx, name)
    return version if version is not None and version.is_type else None


def _required(ctx: Context, name: st.TableName, domain: bool) -> TableVersion:
    """The type (a domain, if ``domain``) ``name`` names: 42704 if none, 42809 if not a domain."""
    version = _entry_named(ctx, name)
    if version is None or not version.is_type:
        raise errors.UndefinedObject(f'type "{_written(name)}" does not exist')
    if domain and not version.schema.user_type.is_domain:
        raise errors.WrongObjectType(f'"{version.name}" is not a domain')
    return version


def _written(name: st.TableName) -> str:
    return catalog_views.relation_name(name.db, name.name) if name.db else name.name


def type_name_of(ctx: Context, data_type: exp.DataType) -> st.TableName | None:
    """The name a user-defined type in DDL or a cast names (``mood``, ``public.mood``)."""
    if not isinstance(data_type, exp.DataType) or data_type.this != exp.DataType.Type.USERDEFINED:
        return None
    kind = data_type.args.get("kind")
    if isinstance(kind, exp.Dot):
        return st.TableName(st.schema_database(kind.this.name), kind.expression.name)
    text = kind.name if isinstance(kind, exp.Expression) else str(kind)
    schema, _, name = text.rpartition(".")  # (a qualified name may come as its text: public.mood)
    return st.TableName(st.schema_database(schema.strip('"')) if schema else None, name.strip('"'))


def _element_type(data_type: exp.DataType) -> exp.DataType | None:
    """The element type of an array type (``mood[]``), None for another type."""
    if data_type.this == exp.DataType.Type.ARRAY and len(data_type.expressions) == 1:
        return data_type.expressions[0]
    return None


def refuse_type_name(ctx: Context, db: str, name: str) -> None:
    """42710 if a type holds the name a new table would take: a table's row type is a type in
    PostgreSQL, so the name is a type's already."""
    taken = ctx.txn.table(ctx.catalog, db, name)
    if taken is not None and taken.is_type:
        raise errors.DuplicateObject(f'type "{name}" already exists\nHINT:  A relation has an associated type of '
                                     "the same name, so you must use a name that doesn't conflict with any "
                                     "existing type.")


def _users(ctx: Context, type_id: str) -> list[tuple[TableVersion, Column]]:
    """(table, column) of each column of the type ``type_id``."""
    return [(t, c) for t in ctx.txn.tables(ctx.catalog) if t.is_table
            for c in t.schema.columns if c.user_type == type_id]


# --- columns -------------------------------------------------------------------------------

def column(ctx: Context, field_id: int, spec: st.ColumnSpec) -> Column | None:
    """The column ``spec`` makes if its type is a user-defined one (else None): the base type,
    the type's id, an enum's labels, a domain's DEFAULT unless the column has its own."""
    name = type_name_of(ctx, spec.type)
    version = _named(ctx, name) if name is not None else None
    if version is None:
        return None
    if version.schema.user_type.composite:
        composite_types.refuse_column(version.name)
    if spec.sequence is not None:
        raise errors.NotSupportedError(f"a SERIAL or identity column cannot be of type {version.name}")
    definition = version.schema.user_type
    base = parse_type_name(definition.base) if definition.is_domain else parse_type_name("TEXT")
    default = plain(ctx, spec.default).sql(dialect="duckdb") if spec.default is not None else definition.default
    return Column(field_id, spec.name, base, spec.not_null or spec.primary_key, default,
                  user_type=version.table_id, enum=None if definition.is_domain else definition.labels)


def plain(ctx: Context, expression: exp.Expression) -> exp.Expression:
    """``expression`` (a column's DEFAULT: ``'ok'::public.mood``) with its casts to user-defined
    types made casts to their base types: the value is checked as the column's when written."""
    def visit(node):
        name = type_name_of(ctx, node.to) if isinstance(node, exp.Cast) else None
        version = _named(ctx, name) if name is not None else None
        if version is None:
            return node
        definition = version.schema.user_type
        base = parse_type_name(definition.base if definition.is_domain else "TEXT")
        return exp.Cast(this=node.this, to=exp.DataType.build(base.sql(), dialect="duckdb"))
    return expression.transform(visit)


def stamped(ctx: Context, schema: TableSchema) -> TableSchema:
    """``schema`` with its columns' types' rules as they are now: an enum column's labels and
    the ``domain_checks`` (a column whose type was dropped meanwhile keeps its base type)."""
    if not schema.domain_checks and not any(c.user_type for c in schema.columns):
        return schema
    columns, rules = [], []
    for col in schema.columns:
        version = _entry(ctx, col.user_type) if col.user_type is not None else None
        if version is None:
            columns.append(dataclasses.replace(col, user_type=None, enum=None, type_version=None))
            continue
        definition = version.schema.user_type
        columns.append(dataclasses.replace(col, enum=None if definition.is_domain else definition.labels,
                                           type_version=version.schema.schema_id))
        rules += _rules(col.name, version.name, definition)
    return dataclasses.replace(schema, columns=tuple(columns), domain_checks=tuple(rules))


def _rules(col: str, type_name: str, definition: TypeDefinition) -> list[CheckConstraint]:
    """The CHECKs over column ``col`` that a value of the type ``type_name`` must pass."""
    target = exp.column(exp.to_identifier(col, quoted=True))
    if not definition.is_domain:
        listed = exp.In(this=target, expressions=[exp.Literal.string(label) for label in definition.labels])
        return [CheckConstraint(type_name, checks.stored(listed), domain=("enum", type_name))]
    rules = []
    if definition.not_null:
        rules.append(CheckConstraint(type_name, checks.stored(exp.Not(this=exp.Is(this=target, expression=exp.Null()))),
                                     domain=("not null", type_name)))
    for check in definition.checks:
        over = checks.parsed(check.expression).transform(
            lambda n: target.copy() if isinstance(n, exp.Column) and n.name.lower() == "value" else n)
        rules.append(CheckConstraint(check.name, checks.stored(over), domain=("check", type_name)))
    return rules


def _follow(ex: Executor, ctx: Context, old: TableVersion, new: TableVersion | None, in_place: bool = False) -> None:
    """The tables using the type ``old`` made to use ``new`` (its next definition, maybe under
    another id), their rules written anew; ``new`` None: the type is gone, the columns keep
    their base type (DROP TYPE ... CASCADE has dropped them first). A new schema is a rewrite
    of the table in txlake's commit (storage/commit.py ``TableDelta.rewritten``), so each is
    written anew, as ALTER TABLE writes it - the price of keeping the rules in the schema -
    unless ``in_place``: rules that every row passes still (an enum with a label more: its
    rows are text), changed in the table's catalog entry alone, under the same schema id
    (storage/commit.py ``TableDelta.catalog_changed``: no file written, no writer refused)."""
    tables = {t.table_id: t for t, _ in _users(ctx, old.table_id)}
    for table in tables.values():
        columns = tuple(dataclasses.replace(c, user_type=new.table_id if new is not None else None)
                        if c.user_type == old.table_id else c for c in table.schema.columns)
        schema = stamped(ctx, dataclasses.replace(table.schema, columns=columns))
        if in_place:
            ex._write(ctx, table, table.with_files(schema=schema), check_ssi=False)
        else:
            ex.rewrite_table(ctx, table, schema, ex.store.scan(table))


def shown(check: CheckConstraint) -> str:
    """A domain's CHECK as psql's ``\\dD`` shows it: ``CHECK (VALUE ~~ '%@%')``."""
    over = checks.parsed(check.expression).transform(
        lambda n: exp.column("VALUE") if isinstance(n, exp.Column) and n.name == "value" else n)
    return checks.definition(dataclasses.replace(check, expression=over.sql(dialect="postgres")))


# --- CREATE --------------------------------------------------------------------------------

def create_type(ex: Executor, ctx: Context, stmt: st.CreateType, params) -> Result:
    from txlake.engine.executor import Result
    from txlake.engine.sequence_ddl import new_entry_name, read_write
    what = "CREATE DOMAIN" if stmt.base is not None else "CREATE TYPE"
    read_write(ctx, what)
    db, name = new_entry_name(ctx, stmt.name, "types in the temporary schema")
    if ex.name_taken(ctx, db, name):
        raise errors.DuplicateObject(f'type "{name}" already exists')
    if stmt.composite:
        definition = composite_types.definition(ctx, stmt.attributes)
    elif stmt.base is None:
        definition = TypeDefinition(_labels(stmt.labels))
    else:
        definition = _domain(ex, ctx, name, stmt)
    version = TableVersion(uuid.uuid4().hex, db, name, TableSchema(0, (), user_type=definition))
    ex._write(ctx, None, version, check_ssi=False)
    return Result(status=what)


def _labels(labels: tuple[str, ...]) -> tuple[str, ...]:
    for i, label in enumerate(labels):
        _check_label(label)
        if label in labels[:i]:  # (PostgreSQL's words: its catalog's unique index says so)
            raise errors.UniqueViolation('duplicate key value violates unique constraint "pg_enum_typid_label_index"')
    return tuple(labels)


def _check_label(label: str) -> None:
    if len(label.encode()) > NAME_BYTES:
        raise errors.InvalidName(f'invalid enum label "{label}"\nDETAIL:  Labels must be {NAME_BYTES} bytes or less.')


def _domain(ex: Executor, ctx: Context, name: str, stmt: st.CreateType) -> TypeDefinition:
    from txlake.engine.executor import column_type
    if type_name_of(ctx, stmt.base) is not None and _named(ctx, type_name_of(ctx, stmt.base)) is not None:
        raise errors.NotSupportedError("a domain over an enum or another domain is not supported")
    base = column_type(stmt.base)
    default = None
    if stmt.default is not None and not isinstance(stmt.default, exp.Null):
        default = stmt.default.sql(dialect="duckdb")
        ex._check_default(default, base)
    definition = TypeDefinition(base=base.display(), default=default, not_null=stmt.not_null)
    for spec in stmt.checks:
        definition = _with_check(ex, name, definition, spec)
    return definition


def _with_check(ex: Executor, name: str, definition: TypeDefinition, spec: st.CheckSpec) -> TypeDefinition:
    """``definition`` with the CHECK ``spec`` (its expression reads ``VALUE``), bound as a
    table's CHECK is: 42703 for a column, 42804 for no boolean, 42803 for an aggregate."""
    taken = {c.name for c in definition.checks}
    if spec.name is not None and spec.name in taken:
        raise errors.DuplicateObject(f'constraint "{spec.name}" for domain "{name}" already exists')
    check_name = spec.name or constraint_name(name, (), "check", taken)
    expression = spec.expression.transform(
        lambda n: exp.column("value") if isinstance(n, exp.Column) and not n.table and n.name.lower() == "value"
        else n)
    values = TableSchema(0, (Column(0, "value", parse_type_name(definition.base)),))
    made = checks.define(ex, name, values, check_name, expression, None, False).checks[-1]
    return dataclasses.replace(definition, checks=definition.checks + (made,))


# --- ALTER ---------------------------------------------------------------------------------

def alter_type(ex: Executor, ctx: Context, stmt: st.AlterType, params) -> Result:
    from txlake.engine.executor import Result
    from txlake.engine.sequence_ddl import read_write
    what = "ALTER DOMAIN" if stmt.domain else "ALTER TYPE"
    read_write(ctx, what)
    version = _required(ctx, stmt.name, stmt.domain)
    definition = version.schema.user_type
    if stmt.action in ("ADD VALUE", "RENAME VALUE") and not definition.is_enum:
        raise errors.WrongObjectType(f"{version.name} is not an enum")
    if stmt.action == "ADD ATTRIBUTE" and not definition.composite:  # (PostgreSQL's: not a composite type)
        raise errors.WrongObjectType(f'"{version.name}" is not a composite type')
    if stmt.action == "RENAME":
        return _rename(ex, ctx, version, stmt.target, what)
    rename = None
    if stmt.action == "ADD VALUE":
        label = stmt.labels[0]
        if label in definition.labels:
            if not stmt.exists:
                raise errors.DuplicateObject(f'enum label "{label}" already exists')
            return Result(status=what, notice=f'enum label "{label}" already exists, skipping')
        _check_label(label)
        labels = list(definition.labels)
        if stmt.target is None:
            labels.append(label)
        else:
            if stmt.target not in labels:
                raise errors.InvalidParameterValue(f'"{stmt.target}" is not an existing enum label')
            labels.insert(labels.index(stmt.target) + stmt.after, label)
        changed = dataclasses.replace(definition, labels=tuple(labels))
    elif stmt.action == "RENAME VALUE":
        old, new = stmt.labels
        if old not in definition.labels:
            raise errors.InvalidParameterValue(f'"{old}" is not an existing enum label')
        if new in definition.labels and new != old:
            raise errors.DuplicateObject(f'enum label "{new}" already exists')
        _check_label(new)
        changed = dataclasses.replace(definition, labels=tuple(new if x == old else x for x in definition.labels))
        rename = (old, new)
    elif stmt.action == "SET DEFAULT":
        default = None
        if not isinstance(stmt.default, exp.Null):
            default = stmt.default.sql(dialect="duckdb")
            ex._check_default(default, parse_type_name(definition.base))
        changed = dataclasses.replace(definition, default=default)
    elif stmt.action == "DROP DEFAULT":
        changed = dataclasses.replace(definition, default=None)
    elif stmt.action == "ADD ATTRIBUTE":  # (no column is of the type: the catalog entry alone changes)
        changed = composite_types.definition(ctx, stmt.attributes, definition.attributes)
    elif stmt.action in ("SET NOT NULL", "DROP NOT NULL"):
        changed = dataclasses.replace(definition, not_null=stmt.action == "SET NOT NULL")
    elif stmt.action == "ADD":
        changed = _with_check(ex, version.name, definition, stmt.check)
        if not stmt.validate:  # (NOT VALID: rows there now are not checked, new ones are)
            made = dataclasses.replace(changed.checks[-1], validated=False)
            changed = dataclasses.replace(changed, checks=changed.checks[:-1] + (made,))
    else:  # DROP CONSTRAINT
        kept = tuple(c for c in definition.checks if c.name != stmt.target)
        if len(kept) == len(definition.checks):
            message = f'constraint "{stmt.target}" of domain "{version.name}" does not exist'
            if not stmt.exists:
                raise errors.UndefinedObject(message)
            return Result(status=what, notice=message + ", skipping")
        changed = dataclasses.replace(definition, checks=kept)
    new = dataclasses.replace(version, schema=TableSchema(version.schema.schema_id + 1, (), user_type=changed),
                              caches={})
    ex._write(ctx, version, new, check_ssi=False)
    if rename is not None:
        _rename_value(ex, ctx, version, new, *rename)
    else:  # (a label more: every row is of the type still)
        _follow(ex, ctx, version, new, in_place=stmt.action == "ADD VALUE")
    if stmt.action == "SET NOT NULL":
        _check_existing(ex, ctx, new, "not null", new.name)
    elif stmt.action == "ADD" and stmt.validate:
        _check_existing(ex, ctx, new, "check", changed.checks[-1].name)
    if stmt.action in ("SET DEFAULT", "DROP DEFAULT"):
        _follow_default(ex, ctx, new, definition.default, changed.default)
    return Result(status=what)


def _rename(ex: Executor, ctx: Context, version: TableVersion, new_name: str, what: str) -> Result:
    """RENAME TO: the entry made again under the new name (one commit), its columns following."""
    from txlake.engine.executor import Result
    if ctx.txn.table(ctx.catalog, version.db, new_name) is not None or ex.name_taken(ctx, version.db, new_name):
        raise errors.DuplicateObject(f'type "{new_name}" already exists')
    renamed = TableVersion(uuid.uuid4().hex, version.db, new_name, version.schema)
    ex._write(ctx, version, None, check_ssi=False)
    ex._write(ctx, None, renamed, check_ssi=False)
    _follow(ex, ctx, version, renamed)
    return Result(status=what)


def _rename_value(ex: Executor, ctx: Context, old: TableVersion, new: TableVersion, before: str, after: str) -> None:
    """RENAME VALUE: the rows holding ``before`` get ``after`` (stored as text, a label is its
    value). The columns first take both labels, then the new ones only."""
    both = dataclasses.replace(new.schema.user_type, labels=new.schema.user_type.labels + (before,))
    interim = dataclasses.replace(new, schema=dataclasses.replace(new.schema, user_type=both))
    ex._write(ctx, new, interim, check_ssi=False)
    _follow(ex, ctx, old, interim)
    from txlake.parser.parse import parse  # (the UPDATE as a user would write it)
    for table, col in _users(ctx, interim.table_id):
        quoted = '"' + col.name.replace('"', '""') + '"'
        update = parse(f"UPDATE {_qualified(table)} SET {quoted} = ? WHERE {quoted}::text = ?")[0]
        ex.update(ctx, update, (after, before))
    ex._write(ctx, interim, new, check_ssi=False)
    _follow(ex, ctx, interim, new)


def _qualified(table: TableVersion) -> str:
    schema = catalog_views.schema_name(table.db)
    return '"' + schema.replace('"', '""') + '"."' + table.name.replace('"', '""') + '"'


def _check_existing(ex: Executor, ctx: Context, version: TableVersion, kind: str, name: str) -> None:
    """ALTER DOMAIN ... SET NOT NULL / ADD CONSTRAINT: the rows of the columns of the domain
    checked against the rule (``kind`` "not null" or "check", named ``name``): 23502 / 23514,
    as PostgreSQL words it."""
    for table, col in _users(ctx, version.table_id):
        rules = tuple(c for c in table.schema.domain_checks
                      if c.domain[0] == kind and c.name == name and col.name in checks.columns_of(c))
        if not rules:
            continue
        failure = checks.first_failure(ex, table.name, rules, ex.store.scan(table).select([col.name]))
        if failure is None:
            continue
        if kind == "not null":
            raise errors.NotNullViolation(f'column "{col.name}" of table "{table.name}" contains null values')
        raise errors.CheckViolation(f'column "{col.name}" of table "{table.name}" contains values that violate '
                                    "the new constraint")


def _follow_default(ex: Executor, ctx: Context, version: TableVersion, old: str | None, new: str | None) -> None:
    """The columns of the domain that took its DEFAULT (theirs is the old one) take the new."""
    for table in {t.table_id: t for t, _ in _users(ctx, version.table_id)}.values():
        current = ctx.txn.table(ctx.catalog, table.db, table.name)
        columns = tuple(dataclasses.replace(c, default=new) if c.user_type == version.table_id and c.default == old
                        else c for c in current.schema.columns)
        if columns != current.schema.columns:
            ex.rewrite_table(ctx, current, dataclasses.replace(current.schema, columns=columns), ex.store.scan(current))


# --- DROP ----------------------------------------------------------------------------------

def drop_type(ex: Executor, ctx: Context, stmt: st.DropType, params) -> Result:
    from txlake.engine.executor import Result
    from txlake.engine.sequence_ddl import read_write
    what = "DROP DOMAIN" if stmt.domain else "DROP TYPE"
    read_write(ctx, what)
    targets, notices = [], []
    for name in stmt.names:
        version = _entry_named(ctx, name)
        if version is None or not version.is_type:
            if version is not None and version.is_table:  # (its row type, in PostgreSQL)
                raise errors.DependentObjectsStillExist(f"cannot drop type {version.name} because table "
                                                        f"{version.name} requires it\n"
                                                        f"HINT:  You can drop table {version.name} instead.")
            if not stmt.if_exists:
                raise errors.UndefinedObject(f'type "{_written(name)}" does not exist')
            notices.append(f'type "{_written(name)}" does not exist, skipping')
            continue
        if stmt.domain and not version.schema.user_type.is_domain:
            raise errors.WrongObjectType(f'"{version.name}" is not a domain')
        targets.append(version)
    from txlake.engine.functions import signature
    users = [(v, t, c) for v in dict.fromkeys(targets) for t, c in _users(ctx, v.table_id)]
    routines = [(v, f) for v in dict.fromkeys(targets) for f in _routines_using(ctx, v)]
    if (users or routines) and not stmt.cascade:
        lines = "\n".join([*(f"column {c.name} of table {t.name} depends on type {v.name}" for v, t, c in users),
                           *(f"function {signature(f.schema.function)} depends on type {v.name}" for v, f in routines)])
        raise errors.DependentObjectsStillExist(
            f"cannot drop type {(users or routines)[0][0].name} because other objects depend on it\nDETAIL:  "
            f"{lines}\nHINT:  Use DROP ... CASCADE to drop the dependent objects too.")
    for _, table, col in users:  # (CASCADE: the columns go, as PostgreSQL drops them)
        ex.alter_table(ctx, st.AlterTable(table=st.TableName(table.db, table.name),
                                          actions=(st.DropColumn(col.name, cascade=True),)), ())
        notices.append(f"drop cascades to column {col.name} of table {table.name}")
    for function in dict.fromkeys(f for _, f in routines):  # (CASCADE: the functions taking or returning it go)
        ex._write(ctx, function, None, check_ssi=False)
        notices.append(f"drop cascades to function {signature(function.schema.function)}")
    for version in dict.fromkeys(targets):
        ex._write(ctx, version, None, check_ssi=False)
    return Result(status=what, notice="\n".join(notices) or None)


def _routines_using(ctx: Context, version: TableVersion) -> list[TableVersion]:
    """The functions and procedures of ``version``'s schema whose arguments or result are of the
    type (by its name: a function keeps its types' names)."""
    if not ctx.may_hold("function"):
        return []
    return [f for f in ctx.txn.tables(ctx.catalog) if f.is_function and f.db == version.db and
            version.name in (f.schema.function.returns, *(t.removesuffix("[]") for _, _, t, _ in
                                                        f.schema.function.parameters()))]


# --- queries -------------------------------------------------------------------------------

def uses_types(ctx: Context, expression: exp.Expression) -> bool:
    """Does ``expression`` cast to a user-defined type, or compare an enum column with a
    constant or a parameter? Such a statement is rewritten at each execution (``rewritten``:
    an ALTER TYPE changes what it means); one that only reads enum columns is not (the labels
    come with the table's columns when it is read, engine/sources.py)."""
    return ctx.may_hold("type") and rewritten(ctx, expression) != expression


def rewritten(ctx: Context, expression: exp.Expression, tables=None) -> exp.Expression:
    """``expression`` with its casts to user-defined types made casts to their base types that
    check the type's rules, and string constants and parameters compared with enum columns
    read as values of the enum (``tables``: the statement's, looked up, engine/column_scope.py)."""
    if not ctx.may_hold("type"):
        return expression
    typed = _typed_columns(ctx, expression, tables)

    def visit(node):
        if isinstance(node, exp.Anonymous) and node.name.lower() == "pg_typeof" and len(node.expressions) == 1:
            name = _type_named(ctx, node.expressions[0], typed)
            return name if name is not None else node
        if isinstance(node, exp.Cast) and type_name_of(ctx, node.to) is not None:
            version = _named(ctx, type_name_of(ctx, node.to))
            if version is None:
                return node
            if version.schema.user_type.is_enum:
                _refuse_unlisted(ctx, node.this, version.name, version.schema.user_type.labels)
            return cast(node.this.transform(visit), version, ctx)  # (its operand's casts too: ROW(..)::t::t)
        if isinstance(node, exp.Cast) and type_name_of(ctx, _element_type(node.to)) is not None:
            version = _named(ctx, type_name_of(ctx, _element_type(node.to)))
            if version is None:
                return node
            if version.schema.user_type.composite:
                raise errors.NotSupportedError(f"arrays of composite type {version.name} are not supported")
            if not version.schema.user_type.is_domain:
                _refuse_unlisted(ctx, node.this, version.name, version.schema.user_type.labels)
            return _cast_array(node.this.transform(visit), version)
        if typed and isinstance(node, (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.In, exp.Between)):
            return _compared(ctx, node, typed)
        return node
    return expression.transform(visit)


def _refuse_unlisted(ctx: Context, value: exp.Expression, name: str, labels: tuple[str, ...]) -> None:
    """22P02 if ``value`` is a string constant, or a parameter whose value is a string (a list
    of them, under ``ANY`` / ``ALL``), that is no label of the enum ``name``: PostgreSQL reads
    such a value when it parses the statement, so the error comes whether or not a row reaches
    the comparison (the ``ENUM_VALUE_MACRO`` DuckDB runs checks only the rows it compares)."""
    value = value.unnest()
    if isinstance(value, (exp.Any, exp.All)):
        operand = quantified_operand(value)
        if isinstance(operand, exp.Cast):  # (an untyped constant's elements: '{ok,happy}')
            operand = operand.this
        listed = parameter_value(ctx, operand)
        if isinstance(listed, str):  # (PostgreSQL's text of an array)
            listed = array_input(listed)
        if isinstance(operand, exp.Array):
            listed = [e.this for e in operand.expressions if isinstance(e, exp.Literal) and e.is_string]
        texts = listed if isinstance(listed, (list, tuple)) else ()
    elif isinstance(value, exp.Anonymous) and value.name == ARRAY_MACRO and isinstance(value.expressions[0], exp.Array):
        texts = [e.this for e in value.expressions[0].expressions if isinstance(e, exp.Literal) and e.is_string]
    elif isinstance(value, exp.Literal) and value.is_string:
        texts = (value.this,)
    else:
        texts = (parameter_value(ctx, value),)
    for text in texts:
        if isinstance(text, str) and text not in labels:
            raise errors.InvalidTextRepresentation(f'invalid input value for enum {name}: "{text}"')


def parameter_value(ctx: Context, node: exp.Expression):
    """The value the parameter ``node`` takes in this execution (None: no parameter, or unknown)."""
    if not isinstance(node, exp.Placeholder) or st.PARAM_INDEX not in node.meta:
        return None
    tag, order = node.meta[st.PARAM_INDEX], ctx.param_order
    at = tag if order is None else order.index(tag) if tag in order else None
    return ctx.params[at] if at is not None and at < len(ctx.params) else None


def cast(value: exp.Expression, version: TableVersion, ctx: Context | None = None) -> exp.Expression:
    """``value`` as a value of the type ``version``: checked against its rules (the errors an
    INSERT of it gives), an enum's as DuckDB's ENUM of its labels, a composite's as its struct
    (``ctx``: the statement's, for a parameter's text)."""
    definition = version.schema.user_type
    if definition.composite:
        return composite_types.cast(ctx, value, version)
    if not definition.is_domain:
        return _enum_value(value, version.name, definition.labels)
    base = parse_type_name(definition.base)
    name = exp.column(_VALUE)
    whens = []
    if definition.not_null:
        whens.append(exp.If(this=exp.Is(this=name.copy(), expression=exp.Null()),
                            true=_error(f"domain {version.name} does not allow null values")))
    for check in definition.checks:
        over = postgres_semantics(exp.Select(expressions=[checks.parsed(check.expression).transform(
            lambda n: name.copy() if isinstance(n, exp.Column) and n.name.lower() == "value" else n)]))
        condition = boolean_condition(over.expressions[0].unalias(), "check")
        whens.append(exp.If(this=exp.Is(this=condition, expression=exp.false()),
                            true=_error(f'value for domain {version.name} violates check constraint "{check.name}"')))
    typed = exp.Cast(this=value, to=exp.DataType.build(base.sql(), dialect="duckdb"))
    if not whens:
        return typed
    checked = exp.Case(ifs=whens, default=name.copy())
    applied = exp.Anonymous(this="list_transform", expressions=[
        exp.Array(expressions=[typed]), exp.Lambda(this=checked, expressions=[exp.to_identifier(_VALUE)])])
    return exp.Bracket(this=applied, expressions=[exp.Literal.number(1)], offset=1)


def _cast_array(value: exp.Expression, version: TableVersion) -> exp.Expression:
    """``value`` (a list) as an array of the type ``version``: each element as ``cast`` makes it."""
    definition = version.schema.user_type
    if not definition.is_domain:
        return _enum_list(value, version.name, definition.labels)
    element = exp.to_identifier("__txl_element")
    return exp.Anonymous(this="list_transform", expressions=[
        value, exp.Lambda(this=cast(exp.column(element.copy()), version), expressions=[element])])


def _error(message: str) -> exp.Expression:
    return exp.Anonymous(this="error", expressions=[exp.Literal.string(message)])


def _enum_value(value: exp.Expression, name: str, labels: tuple[str, ...]) -> exp.Expression:
    listed = exp.Array(expressions=[exp.Literal.string(label) for label in labels])
    checked = exp.Anonymous(this=ENUM_VALUE_MACRO, expressions=[value, listed, exp.Literal.string(name)])
    return exp.Cast(this=checked, to=enum_type(labels))


def _enum_list(value: exp.Expression, name: str, labels: tuple[str, ...]) -> exp.Expression:
    """``value`` (a list) as a list of values of the enum: each checked, as ``_enum_value``."""
    element = exp.to_identifier("__txl_label")
    checked = exp.Lambda(this=_enum_value(exp.column(element.copy()), name, labels), expressions=[element])
    typed = enum_type(labels)
    return exp.Cast(this=exp.Anonymous(this="list_transform", expressions=[value, checked]),
                    to=exp.DataType(this=exp.DataType.Type.ARRAY, expressions=[typed], nested=True))


def enum_type(labels: tuple[str, ...]) -> exp.DataType:
    """DuckDB's ENUM of ``labels``, in order (an enum of none, which DuckDB has not: text)."""
    if not labels:
        return exp.DataType.build("VARCHAR")
    return exp.DataType(this=exp.DataType.Type.ENUM, expressions=[exp.Literal.string(label) for label in labels])


def _typed_columns(ctx: Context, expression: exp.Expression, tables=None):
    """The user-defined type a column of ``expression`` is of: a function of a column node
    giving (the type's entry, an enum's labels or None for a domain), or None (the function
    itself is None if no table of the statement has such a column: engine/column_scope.py)."""
    return column_scope.resolver(ctx, expression, lambda col: _typed(ctx, col), tables)


def _typed(ctx: Context, col: Column) -> tuple[TableVersion, tuple[str, ...] | None] | None:
    entry = _entry(ctx, col.user_type) if col.user_type is not None else None
    return (entry, col.enum) if entry is not None else None


def shown_name(ctx: Context, version: TableVersion, suffix: str = "") -> exp.Expression:
    """The type or relation ``version`` (``suffix`` "[]": an array of it) as PostgreSQL's
    regtype and regclass show it: its name, qualified by its schema unless the search path finds
    it, each quoted where it must be (``quote_ident``, engine/dialect.py: ``"Quoted"``, ``s."Feel"``)."""
    def quoted(name: str) -> exp.Expression:
        return exp.Anonymous(this="quote_ident", expressions=[exp.Literal.string(name)])
    parts = [quoted(version.name), exp.Literal.string(suffix)]
    if version.db not in ctx.search_path and version.db != ctx.db:
        parts[:0] = [quoted(catalog_views.schema_name(version.db)), exp.Literal.string(".")]
    return exp.Concat(expressions=parts)


def _type_named(ctx: Context, value: exp.Expression, typed) -> exp.Expression | None:
    """``pg_typeof(value)`` when ``value`` is of a user-defined type - a column of one (``typed``:
    ``_typed_columns``'s function, or None), a cast to one - as PostgreSQL names it: the enum's
    or the domain's name (DuckDB knows the base type, or an ENUM of the labels only)."""
    value = value.unnest()
    if isinstance(value, exp.Cast) and type_name_of(ctx, _element_type(value.to)) is not None:  # (mood[])
        version = _named(ctx, type_name_of(ctx, _element_type(value.to)))
        if version is not None and not version.schema.user_type.is_domain:
            items = value.this.expressions if isinstance(value.this, exp.Array) else [value.this]
            for item in items:  # ('{ok,zz}'::mood[]: an ARRAY of the elements' casts)
                _refuse_unlisted(ctx, item.this if isinstance(item, exp.Cast) else item, version.name,
                                 version.schema.user_type.labels)
        return shown_name(ctx, version, "[]") if version is not None else None
    if isinstance(value, exp.Cast) and type_name_of(ctx, value.to) is not None:
        version = _named(ctx, type_name_of(ctx, value.to))
        if version is not None and version.schema.user_type.is_enum:
            _refuse_unlisted(ctx, value.this, version.name, version.schema.user_type.labels)
        return shown_name(ctx, version) if version is not None else None
    found = typed(value) if typed is not None and isinstance(value, exp.Column) else None
    return shown_name(ctx, found[0]) if found is not None else None


def _compared(ctx: Context, node: exp.Expression, types) -> exp.Expression:
    """A comparison of an enum column with strings or parameters: those read as enum values
    (``types``: ``_typed_columns``'s function), checked now (``_refuse_unlisted``)."""
    def enum_of(side):
        side = side.unnest()
        found = types(side) if isinstance(side, exp.Column) else None
        return (found[0].name, found[1]) if found is not None and found[1] is not None else None

    def literal(side):  # (in parentheses too: EXECUTE's values come so, engine/prepared.py)
        side = side.unnest()
        if isinstance(side, (exp.Any, exp.All)):  # (m = ANY(?), m = ANY('{ok,happy}'): a list of labels)
            operand = quantified_operand(side)
            return isinstance(operand, exp.Placeholder) or (
                isinstance(operand, exp.Cast) and isinstance(operand.this, exp.Array)
                and all(isinstance(e, (exp.Literal, exp.Null)) for e in operand.this.expressions))
        return isinstance(side, exp.Placeholder) or (isinstance(side, exp.Literal) and side.is_string)

    def value(side, typed):
        _refuse_unlisted(ctx, side, *typed)
        if isinstance(side.unnest(), (exp.Any, exp.All)):
            side = side.unnest()
            listed = exp.Anonymous(this=ARRAY_MACRO, expressions=[quantified_operand(side)])
            return quantified_over(side, _enum_list(listed, *typed))
        return _enum_value(side, *typed)

    typed = enum_of(node.this)
    if isinstance(node, exp.In):
        if typed is not None and node.expressions:
            node.set("expressions", [value(e, typed) if literal(e) else e for e in node.expressions])
        return node
    if isinstance(node, exp.Between):
        if typed is not None:
            for bound in ("low", "high"):
                if literal(node.args[bound]):
                    node.set(bound, value(node.args[bound], typed))
        return node
    if typed is not None and literal(node.expression):
        node.set("expression", value(node.expression, typed))
    elif typed is None and literal(node.this) and enum_of(node.expression) is not None:
        node.set("this", value(node.this, enum_of(node.expression)))
    return node
